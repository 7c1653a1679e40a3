/*
 * Tuning one bench case: every tunable swept in turn (coordinate descent, a second round when the first moved
 * any) over powers of two around its default (from default / 16, and 0 for a default of 0 or 1, up to the larger
 * of the default and the device's maxComputeInvocationsPerWorkgroup), keeping only values for which planning
 * succeeds and the same variant is chosen; a candidate that plans the very GPU work of one already timed (a
 * tunable the chosen variant does not read) shares its time instead of being checked and timed again; every
 * other candidate's outputs are compared with the default tunables' outputs (the dtype's default tolerance)
 * before its GPU time counts. The best values are the ones `wgk tune` stores.
 */
#ifndef WGK_BENCH_TUNE_H
#define WGK_BENCH_TUNE_H

#include <jansson.h>

#include "bench/case_run.h"

typedef struct bench_tune_candidate {
  const char *tunable; /* borrowed from the manifest */
  int64_t value;
  bool ok;        /* planned, ran, outputs correct */
  char why[512];  /* when !ok: planning refused it, or where its output went wrong */
  bench_stat gpu; /* ns per call when ok */
  uint64_t plan;  /* fingerprint of the GPU work it planned (passes' WGSL, dispatch, uniforms, scratch); 0 when
                     it did not run */
  bool same_plan; /* ok without being timed: an earlier candidate (or the defaults) planned the same work, whose
                     time it shares */
} bench_tune_candidate;

typedef struct bench_tune_result {
  char variant[128];           /* the variant every candidate ran */
  char *shape;                 /* tuning-cache shape key (malloc'ed) */
  json_t *defaults, *best;     /* {tunable: value} */
  double default_ns, best_ns;  /* median GPU time per call */
  bool timed;                  /* from timestamp queries */
  bench_tune_candidate *cands; /* in sweep order */
  size_t n_cands;
} bench_tune_result;

/* Called after each candidate: done of total candidates so far (total is an upper bound). */
typedef void (*bench_tune_progress)(void *user, const tc_bench_case *c, size_t done, size_t total,
                                    const bench_tune_candidate *last);

/* iters: timed calls per candidate (0: the case's). On failure err says what went wrong; a case the device
 * cannot run gives WGK_ERR_UNSUPPORTED. */
wgk_status bench_tune_case(wgk_kernel *k, const tc_bench_case *c, const char *source, int64_t iters,
                           bench_tune_progress progress, void *user, bench_tune_result *out /* OUT */, util_error *err);
void bench_tune_result_free(bench_tune_result *r);

#endif
