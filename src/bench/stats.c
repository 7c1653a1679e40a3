/* Median and percentiles of a sample. */
#include <stdlib.h>
#include <string.h>

#include "bench/stats.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The q-quantile (0..1) of a sorted array, interpolated between neighbours (numpy's default). */
static double quantile(const double *sorted, size_t n, double q) {
  double pos = q * (double)(n - 1);
  size_t lo = (size_t)pos;
  if (lo + 1 >= n) return sorted[n - 1];
  double frac = pos - (double)lo;
  return sorted[lo] + (sorted[lo + 1] - sorted[lo]) * frac;
}

wgk_bench_stat wgk_bench_stat_of(const double *samples, size_t n) {
  wgk_bench_stat s = {0};
  double *sorted = n ? malloc(n * sizeof *sorted) : NULL;
  if (!sorted) return s;
  memcpy(sorted, samples, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, cmp_double);
  s = (wgk_bench_stat){quantile(sorted, n, 0.5), quantile(sorted, n, 0.1), quantile(sorted, n, 0.9), n};
  free(sorted);
  return s;
}
