/* Order statistics of timing samples: median and the 10th / 90th percentiles (sorted copy, linear interpolation). */
#ifndef WGK_BENCH_STATS_H
#define WGK_BENCH_STATS_H

#include <stddef.h>

typedef struct wgk_bench_stat {
  double median, p10, p90; /* same unit as the samples; all 0 when there are none */
  size_t n;                /* samples */
} wgk_bench_stat;

/* Summarises samples[0..n); the array is left as it was. */
wgk_bench_stat wgk_bench_stat_of(const double *samples, size_t n);

#endif
