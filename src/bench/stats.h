/* Order statistics of timing samples: median and the 10th / 90th percentiles (sorted copy, linear interpolation),
 * and how far apart the medians of repeated series lie. */
#ifndef WGK_BENCH_STATS_H
#define WGK_BENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct bench_stat {
  double median, p10, p90; /* same unit as the samples; all 0 when there are none */
  size_t n;                /* samples */
} bench_stat;

/* Summarises samples[0..n); the array is left as it was. */
bench_stat bench_stat_of(const double *samples, size_t n);

/* Repeats of one series agree when their medians lie within this fraction of the smallest. */
#define WGK_BENCH_REPEAT_TOLERANCE 0.05
#define WGK_BENCH_MAX_REPEATS 8

/* (max - min) / min of values[0..n); 0 with fewer than 2 values, +inf when min <= 0 < max. */
double bench_spread(const double *values, size_t n);

/* The repeats of one series: every sample (pooled) and each repeat's median. */
typedef struct bench_series {
  double *samples;
  size_t n, cap;
  double medians[WGK_BENCH_MAX_REPEATS];
  size_t repeats;
} bench_series;

/* Appends one repeat's samples (its median kept apart); false when out of memory or past WGK_BENCH_MAX_REPEATS. */
bool bench_series_add(bench_series *s, const double *samples, size_t n);
/* Appends the samples of one series timed in one go as k repeats dealt in turn, in blocks of `block` consecutive
 * samples: sample i goes to repeat (i / block) % k (k 0 or 1: one repeat; block 0 counts as 1). Dealt repeats span
 * the same stretch of time, so a machine that drifts between levels over the series moves them alike;
 * bench_series_drift still shows the drift. A block as long as the period of anything the samples rotate through
 * (input copies bound in turn) gives every repeat each of them alike. False as bench_series_add. */
bool bench_series_deal(bench_series *s, const double *samples, size_t n, size_t k, size_t block);
bench_stat bench_series_stat(const bench_series *s); /* over every sample of every repeat */
double bench_series_spread(const bench_series *s);   /* bench_spread of the repeats' medians */
/* bench_spread of the medians of k consecutive parts of the pooled samples (in the order added): how far the
 * series moved over time; 0 with fewer than k samples. */
double bench_series_drift(const bench_series *s, size_t k);
void bench_series_free(bench_series *s);

#endif
