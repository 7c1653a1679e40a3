/* The resident-call breakdown of a bench case as JSON and as one line of text. */
#include <stdio.h>

#include "bench/breakdown.h"
#include "bench/ceiling.h"

json_t *bench_breakdown_json(const bench_breakdown *b) {
  json_t *o = json_pack("{s:o, s:o, s:o}", "residentNs", bench_stat_json(&b->resident), "runNs",
                        bench_stat_json(&b->run), "waitNs", bench_stat_json(&b->wait));
  if (b->has_timestamps) {
    json_object_set_new(o, "timestampsTrusted", json_boolean(b->timestamps_trusted));
    json_object_set_new(o, "timedCall",
                        json_pack("{s:o, s:o, s:o, s:o, s:o, s:f, s:f}", "wallNs", bench_stat_json(&b->timed_call),
                                  "runNs", bench_stat_json(&b->timed_run), "waitNs", bench_stat_json(&b->timed_wait),
                                  "gpuNs", bench_stat_json(&b->timed_gpu), "spanNs", bench_stat_json(&b->timed_span),
                                  "gapNs", b->timed_span.median - b->timed_gpu.median, "waitPastSpanNs",
                                  b->timed_wait.median - b->timed_span.median));
    json_object_set_new(
        o, "warm",
        json_pack("{s:o, s:o}", "gpuNs", bench_stat_json(&b->warm_gpu), "spanNs", bench_stat_json(&b->warm_span)));
  }
  json_t *floor = json_object();
  if (b->has_submit_wait) json_object_set_new(floor, "submitWaitNs", json_real(b->submit_wait_ns));
  if (b->has_empty_pass) json_object_set_new(floor, "emptyPassNs", json_real(b->empty_pass_ns));
  json_object_set_new(o, "floor", floor);
  return o;
}

/* Appends printf text to out[0..size) at *len. */
#define PUT(...)                                                                     \
  do {                                                                               \
    if (*len < size) *len += (size_t)snprintf(out + *len, size - *len, __VA_ARGS__); \
  } while (0)

static void timed_part(const bench_breakdown *b, char *out, size_t size, size_t *len) {
  PUT(" | timed call%s %.1f = run %.1f + wait %.1f (+ read), GPU passes %.1f, span %.1f; warm GPU %.1f, span %.1f",
      b->timestamps_trusted ? "" : " (a CPU adapter's timestamps)", b->timed_call.median * 1e-3,
      b->timed_run.median * 1e-3, b->timed_wait.median * 1e-3, b->timed_gpu.median * 1e-3, b->timed_span.median * 1e-3,
      b->warm_gpu.median * 1e-3, b->warm_span.median * 1e-3);
}

void bench_breakdown_text(const bench_breakdown *b, char *out, size_t size) {
  size_t n = 0, *len = &n;
  if (!size) return;
  out[0] = 0;
  PUT("resident %.1f us = run %.1f + wait %.1f", b->resident.median * 1e-3, b->run.median * 1e-3,
      b->wait.median * 1e-3);
  if (b->has_timestamps) timed_part(b, out, size, len);
  if (b->has_submit_wait || b->has_empty_pass) PUT(" | floor:");
  if (b->has_submit_wait) PUT(" submit + wait %.1f", b->submit_wait_ns * 1e-3);
  if (b->has_empty_pass) PUT("%s empty pass %.1f", b->has_submit_wait ? "," : "", b->empty_pass_ns * 1e-3);
}
