/* The clock and the median of the bench programs (rope_decode_ab, upload_probe), in microseconds: the ones `wgk
 * bench` uses (src/util/clock.h, the one clock; src/bench: bench_stat_of). */
#ifndef WGK_BENCH_CLOCK_H
#define WGK_BENCH_CLOCK_H

#include <stddef.h>

#include "bench/stats.h"
#include "util/clock.h"

static inline double now_us(void) { return util_now_us(); }

/* The median of v[0..n) (bench_stat_of: the mean of the middle two of an even count), v left as it is. */
static inline double median(const double *v, int n) { return bench_stat_of(v, (size_t)n).median; }

#endif
