/* Median and percentiles of a sample. */
#include <math.h>
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

bench_stat bench_stat_of(const double *samples, size_t n) {
  bench_stat s = {0};
  double *sorted = n ? malloc(n * sizeof *sorted) : NULL;
  if (!sorted) return s;
  memcpy(sorted, samples, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, cmp_double);
  s = (bench_stat){quantile(sorted, n, 0.5), quantile(sorted, n, 0.1), quantile(sorted, n, 0.9), n};
  free(sorted);
  return s;
}

double bench_spread(const double *v, size_t n) {
  if (n < 2) return 0;
  double lo = v[0], hi = v[0];
  for (size_t i = 1; i < n; i++) {
    if (v[i] < lo) lo = v[i];
    if (v[i] > hi) hi = v[i];
  }
  if (hi <= lo) return 0;
  return lo > 0 ? (hi - lo) / lo : INFINITY;
}

/* samples[0..n) added to the pooled samples; false when out of memory. */
static bool pool(bench_series *s, const double *samples, size_t n) {
  if (s->n + n > s->cap) {
    size_t cap = (s->n + n) * 2 + 16;
    double *p = realloc(s->samples, cap * sizeof *p);
    if (!p) return false;
    s->samples = p;
    s->cap = cap;
  }
  if (n) memcpy(s->samples + s->n, samples, n * sizeof *samples);
  s->n += n;
  return true;
}

bool bench_series_add(bench_series *s, const double *samples, size_t n) {
  if (s->repeats >= WGK_BENCH_MAX_REPEATS || !pool(s, samples, n)) return false;
  s->medians[s->repeats++] = bench_stat_of(samples, n).median;
  return true;
}

bool bench_series_deal(bench_series *s, const double *samples, size_t n, size_t k, size_t block) {
  if (k <= 1) return bench_series_add(s, samples, n);
  if (s->repeats + k > WGK_BENCH_MAX_REPEATS) return false;
  if (block < 1) block = 1;
  double *dealt = malloc((n + 1) * sizeof *dealt);
  bool ok = dealt && pool(s, samples, n);
  for (size_t r = 0; ok && r < k; r++) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if ((i / block) % k == r) dealt[m++] = samples[i];
    s->medians[s->repeats++] = bench_stat_of(dealt, m).median;
  }
  free(dealt);
  return ok;
}

bench_stat bench_series_stat(const bench_series *s) { return bench_stat_of(s->samples, s->n); }

double bench_series_drift(const bench_series *s, size_t k) {
  if (k < 2 || k > WGK_BENCH_MAX_REPEATS || s->n < k) return 0;
  double medians[WGK_BENCH_MAX_REPEATS];
  for (size_t r = 0; r < k; r++) {
    size_t from = s->n * r / k, to = s->n * (r + 1) / k;
    medians[r] = bench_stat_of(s->samples + from, to - from).median;
  }
  return bench_spread(medians, k);
}

double bench_series_spread(const bench_series *s) { return bench_spread(s->medians, s->repeats); }

void bench_series_free(bench_series *s) {
  free(s->samples);
  memset(s, 0, sizeof *s);
}
