/* The clock and the median of the bench programs (rope_decode_ab, upload_probe). */
#ifndef WGK_BENCH_CLOCK_H
#define WGK_BENCH_CLOCK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static inline int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of v[0..n) (the upper one of an even count), v left as it is; NaN when out of memory. */
static inline double median(const double *v, int n) {
  double *c = malloc((size_t)n * sizeof *c);
  if (!c) return NAN;
  memcpy(c, v, (size_t)n * sizeof *c);
  qsort(c, (size_t)n, sizeof *c, by_value);
  double m = c[n / 2];
  free(c);
  return m;
}

#endif
