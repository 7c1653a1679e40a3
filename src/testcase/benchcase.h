/*
 * bench.json: a package's benchmark and tuning cases (schema ours: docs/package-format.md). Inputs are
 * always generated (no inline data: bench shapes are large). Parsed here; `wgk bench` and `wgk tune`
 * run them.
 *
 * Lifecycle: tc_bench_suite_parse() -> read suite->cases -> tc_bench_suite_free() (NULL is a no-op).
 * As in test.json, "defaults" gives any case field but the id; object fields merge per key.
 */
#ifndef WGK_RUNTIME_BENCHCASE_H
#define WGK_RUNTIME_BENCHCASE_H

#include "testcase/testcase.h"

typedef struct tc_bench_case {
  char *id;          /* canonical id, usable as a filter */
  char *description; /* "" when absent */
  tc_input *inputs;  /* generators only */
  size_t n_inputs;
  tc_value *attrs, *args, *tunables; /* as in test.json */
  size_t n_attrs, n_args, n_tunables;
  int64_t bytes;      /* bytes moved per call, for GB/s; -1: left to wgk (inputs + outputs) */
  int64_t flops;      /* floating-point operations per call; -1: not reported */
  int64_t warmup;     /* untimed calls first (default 3) */
  int64_t iterations; /* timed calls (default 20) */
  char **requires;    /* device features */
  size_t n_requires;
  tc_pos pos; /* the case object */
} tc_bench_case;

typedef struct tc_bench_suite {
  char *source; /* file name used in messages */
  tc_bench_case *cases;
  size_t n_cases;
  json_t *root; /* the document (owns every borrowed json_t) */
} tc_bench_suite;

wgk_status tc_bench_suite_parse(const char *text, size_t len, const char *source, tc_bench_suite **out /* OUT */,
                                util_error *err);
void tc_bench_suite_free(tc_bench_suite *suite);

#endif
