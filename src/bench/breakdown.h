/*
 * Where a resident call's time goes, per bench case (issue 14 item 2): the resident series split at
 * wgk_call_run's return (host: plan lookup, checks, recording, submit) and the wait after it; a lone resident
 * call with timestamps on, split the same way, with its passes' busy time and its GPU span (the first pass's
 * begin to the last pass's end, so gaps between passes, clears and copies show as span - passes); the GPU time
 * of the last call of a warm back-to-back series; and the floors: a bare submit + wait of an empty dispatch and
 * that dispatch's timestamps in its own timed pass. Reading it: resident ~ run + wait; wait - span is the
 * driver's and Dawn's latency around the GPU work; span - passes the GPU's idle gaps inside the call.
 */
#ifndef WGK_BENCH_BREAKDOWN_H
#define WGK_BENCH_BREAKDOWN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "bench/stats.h"

typedef struct bench_breakdown {
  bench_stat resident, run, wait; /* the untimed resident series: whole call, run returning, the wait */
  bool has_timestamps;            /* the timed figures below were measured */
  bool timestamps_trusted;        /* they time the GPU (not a CPU adapter's driver flush) */
  bench_stat timed_call, timed_run, timed_wait, timed_gpu, timed_span; /* lone timed resident calls */
  bench_stat warm_gpu, warm_span; /* the last call of a warm back-to-back series: passes, span */
  bool has_submit_wait, has_empty_pass;
  double submit_wait_ns, empty_pass_ns; /* the floors (medians) */
} bench_breakdown;

/* {"residentNs", "runNs", "waitNs", "timedCall": {"wallNs", "runNs", "waitNs", "gpuNs", "spanNs",
 *  "gapNs", "waitPastSpanNs"}, "warm": {"gpuNs", "spanNs"}, "floor": {"submitWaitNs", "emptyPassNs"},
 *  "timestampsTrusted"}: stats as bench_stat_json, derived figures from medians; parts not measured are left out. */
json_t *bench_breakdown_json(const bench_breakdown *b);

/* One line for the table: "resident 52.1 us = run 10.2 + wait 41.9 | timed call ... | floor ...". */
void bench_breakdown_text(const bench_breakdown *b, char *out, size_t size);

#endif
