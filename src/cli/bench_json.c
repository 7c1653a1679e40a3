/* `wgk bench --json`: everything measured, the device and the command line that made it. */
#include <stdio.h>
#include <time.h>

#include "cli/bench_report.h"
#include "cli/cli.h"

double wgk_bench_row_gbps(const wgk_bench_row *r) {
  return r->gpu.median > 0 ? (double)r->bytes / r->gpu.median : 0;
}

double wgk_bench_row_gflops(const wgk_bench_row *r) {
  return r->gpu.median > 0 && r->flops ? (double)r->flops / r->gpu.median : 0;
}

static json_t *stat_json(const wgk_bench_stat *s) {
  return json_pack("{s:f, s:f, s:f, s:I}", "median", s->median, "p10", s->p10, "p90", s->p90, "n", (json_int_t)s->n);
}

static json_t *ceilings_json(const wgk_bench_ceilings *c) {
  return json_pack("{s:b, s:{s:I, s:o, s:f}, s:{s:I, s:I, s:o, s:f}}", "timestampQueries", c->timed, "copy", "bytes",
                   (json_int_t)c->copy_bytes, "ns", stat_json(&c->copy_ns), "gbps", c->copy_gbps, "fma", "flops",
                   (json_int_t)c->fma_flops, "threads", (json_int_t)c->fma_threads, "ns", stat_json(&c->fma_ns),
                   "gflops", c->fma_gflops);
}

static json_t *row_json(const wgk_bench_row *r, const wgk_bench_ceilings *ceil) {
  const char *status = r->skipped ? "skipped" : r->failed ? "failed" : "ok";
  json_t *o = json_pack("{s:s, s:s, s:s}", "id", r->c->id, "description", r->c->description, "status", status);
  if (r->skipped || r->failed) {
    json_object_set_new(o, "message", json_string(r->message));
    return o;
  }
  double gbps = wgk_bench_row_gbps(r), gflops = wgk_bench_row_gflops(r);
  json_t *m = json_pack(
      "{s:s, s:I, s:I, s:i, s:b, s:o, s:o, s:o, s:I, s:b, s:I, s:b, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f}",
      "variant", r->variant, "warmup", (json_int_t)r->warmup, "iterations", (json_int_t)r->iterations, "inputSets",
      r->sets, "gpuTimestamps", r->gpu_timed, "gpuNs", stat_json(&r->gpu), "residentNs", stat_json(&r->resident),
      "e2eNs", stat_json(&r->e2e), "bytes", (json_int_t)r->bytes, "bytesGiven", r->c->bytes >= 0, "flops",
      (json_int_t)r->flops, "flopsGiven", r->c->flops >= 0, "inputBytes", (json_int_t)r->input_bytes, "outputBytes",
      (json_int_t)r->output_bytes, "gbps", gbps, "gflops", gflops, "bandwidthRatio",
      ceil->copy_gbps > 0 ? gbps / ceil->copy_gbps : 0, "computeRatio",
      ceil->fma_gflops > 0 ? gflops / ceil->fma_gflops : 0, "bandwidthFloorNs",
      ceil->copy_gbps > 0 ? (double)r->bytes / ceil->copy_gbps : 0, "computeFloorNs",
      ceil->fma_gflops > 0 ? (double)r->flops / ceil->fma_gflops : 0);
  if (r->has_reference) json_object_set_new(m, "referenceNs", stat_json(&r->reference));
  json_object_update(o, m);
  json_decref(m);
  return o;
}

json_t *wgk_bench_report_json(int argc, char **argv, const char *op_id, const wgk_device_desc *dev,
                              const wgk_bench_ceilings *ceil, const wgk_bench_row *rows, size_t n) {
  json_t *cmd = json_pack("[s]", "wgk"), *cases = json_array(), *device = wgk_cli_adapter_json(dev, 0);
  for (int i = 0; i < argc; i++) json_array_append_new(cmd, json_string(argv[i]));
  for (size_t i = 0; i < n; i++) json_array_append_new(cases, row_json(&rows[i], ceil));
  json_object_del(device, "index"); /* the adapter of this run, not a place in a listing */
  char date[32];
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  return json_pack("{s:i, s:o, s:s, s:s, s:o, s:o, s:o}", "schema", 1, "command", cmd, "date", date, "package", op_id,
                   "device", device, "ceilings", ceilings_json(ceil), "cases", cases);
}
