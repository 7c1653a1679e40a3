/* The double reference of the runtime tests' RotaryEmbedding calls (x [1,heads,s,128], NeoX halves, caches
 * [rows,64] indexed by position): test_run_read and test_run_host. */
#ifndef WGK_TESTS_ROPE_CHECK_H
#define WGK_TESTS_ROPE_CHECK_H

#include <stdbool.h>
#include <stdint.h>

typedef struct rope_check {
  int heads, s;
  const float *x, *cs, *sn; /* the host values (float16 calls: rounded to float16 first) */
  const int64_t *pos;       /* s positions */
} rope_check;

/* The largest error of y (float32, or float16 host values) against the reference; NaN counts as the worst. */
double rope_check_error(const rope_check *c, const void *y, bool f16);

#endif
