/* `wgk bench --json`: everything measured, the device and the command line that made it. */
#include <stdio.h>
#include <time.h>

#include "cli/bench_report.h"
#include "cli/cli.h"

double cli_bench_row_gbps(const cli_bench_row *r) { return r->gpu.median > 0 ? (double)r->bytes / r->gpu.median : 0; }

double cli_bench_row_copy_at_ratio(const cli_bench_row *r) {
  return r->has_copy_at && r->copy_at.gbps > 0 ? cli_bench_row_gbps(r) / r->copy_at.gbps : 0;
}

double cli_bench_row_gflops(const cli_bench_row *r) {
  return r->gpu.median > 0 && r->flops ? (double)r->flops / r->gpu.median : 0;
}

bench_goals cli_bench_row_goals(const cli_bench_row *r, const bench_ceilings *c) {
  bool beside = r->has_transfers_beside;
  bench_goal_figures f = {r->input_bytes,
                          r->output_bytes,
                          r->e2e.median,
                          r->resident.median,
                          r->gpu.median,
                          r->bare_beside.median,
                          beside ? &r->upload_beside : NULL,
                          beside ? &r->download_beside : NULL};
  return bench_goals_of(c, &f);
}

bench_breakdown cli_bench_row_breakdown(const cli_bench_row *r, const bench_ceilings *c) {
  return (bench_breakdown){.resident = r->resident,
                           .run = r->resident_run,
                           .wait = r->resident_wait,
                           .has_timestamps = r->has_timestamps,
                           .timestamps_trusted = r->gpu_timed,
                           .timed_call = r->timed_call,
                           .timed_run = r->timed_run,
                           .timed_wait = r->timed_wait,
                           .timed_gpu = r->timed_gpu,
                           .timed_span = r->timed_span,
                           .warm_gpu = r->timestamps,
                           .warm_span = r->span,
                           .has_submit_wait = c->has_submit_wait,
                           .has_empty_pass = c->has_empty_pass,
                           .submit_wait_ns = c->submit_wait.median,
                           .empty_pass_ns = c->empty_pass.median};
}

#define stat_json bench_stat_json

static json_t *medians_json(const double *m, int n) {
  json_t *a = json_array();
  for (int i = 0; i < n; i++) json_array_append_new(a, json_real(m[i]));
  return a;
}

/* A measured row's figures: timings, sizes, rates against the ceilings, the goals. */
static json_t *measures_json(const cli_bench_row *r, const bench_ceilings *ceil) {
  double gbps = cli_bench_row_gbps(r), gflops = cli_bench_row_gflops(r);
  json_t *m =
      json_pack("{s:s, s:I, s:I, s:i, s:b, s:o, s:o, s:o, s:I, s:b, s:I, s:b, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f}",
                "variant", r->variant, "warmup", (json_int_t)r->warmup, "iterations", (json_int_t)r->iterations,
                "inputSets", r->sets, "gpuTimestamps", r->gpu_timed, "gpuNs", stat_json(&r->gpu), "residentNs",
                stat_json(&r->resident), "e2eNs", stat_json(&r->e2e), "bytes", (json_int_t)r->bytes, "bytesGiven",
                r->c->bytes >= 0, "flops", (json_int_t)r->flops, "flopsGiven", r->c->flops >= 0, "inputBytes",
                (json_int_t)r->input_bytes, "outputBytes", (json_int_t)r->output_bytes, "gbps", gbps, "gflops", gflops,
                "bandwidthRatio", ceil->copy.gbps > 0 ? gbps / ceil->copy.gbps : 0, "computeRatio",
                ceil->fma_gflops > 0 ? gflops / ceil->fma_gflops : 0, "bandwidthFloorNs",
                ceil->copy.gbps > 0 ? (double)r->bytes / ceil->copy.gbps : 0, "computeFloorNs",
                ceil->fma_gflops > 0 ? (double)r->flops / ceil->fma_gflops : 0);
  if (r->has_reference) json_object_set_new(m, "referenceNs", stat_json(&r->reference));
  if (r->bare_beside.n) json_object_set_new(m, "bareBesideNs", stat_json(&r->bare_beside));
  json_object_set_new(m, "e2eParts",
                      json_pack("{s:o, s:o, s:o}", "stepsNs", stat_json(&r->e2e_parts.steps), "uploadNs",
                                stat_json(&r->e2e_parts.upload), "runNs", stat_json(&r->e2e_parts.run)));
  if (r->has_copy_at)
    json_object_set_new(m, "copyAtSize",
                        json_pack("{s:I, s:o, s:f, s:i, s:f}", "bytes", (json_int_t)r->copy_at.bytes, "ns",
                                  stat_json(&r->copy_at.best.ns), "gbps", r->copy_at.gbps, "vec4PerThread",
                                  (int)r->copy_at.vec4_per_thread, "bandwidthRatio", cli_bench_row_copy_at_ratio(r)));
  if (r->has_transfers_beside)
    json_object_set_new(m, "transfersBeside",
                        json_pack("{s:o, s:o}", "upload", bench_transfer_json(&r->upload_beside), "download",
                                  bench_transfer_json(&r->download_beside)));
  bench_goals g = cli_bench_row_goals(r, ceil);
  json_object_set_new(m, "goals", bench_goals_json(&g));
  return m;
}

/* A measured row's cross-checks: where the gpu figure comes from, the repeats and whether they agree, timestamps,
   the breakdown, the host, the drift over time and each pass's share. */
static json_t *checks_json(const cli_bench_row *r, const bench_ceilings *ceil) {
  json_t *checks = json_pack(
      "{s:s, s:o, s:o, s:i, s:i, s:{s:o, s:o, s:o}, s:{s:f, s:f, s:f}, s:b, s:s, s:b, s:s}", "gpuSource",
      r->gpu_timed        ? "timestamps"
      : r->has_timestamps ? "batch wall time (a CPU adapter's timestamps time the driver's flush, not the kernel)"
                          : "batch wall time (no timestamp-query)",
      "batchNs", stat_json(&r->batch), "timedCallNs", stat_json(&r->timed_call), "batchCalls", r->batch_calls,
      "repeats", r->repeats, "repeatMediansNs", "gpu", medians_json(r->med_gpu, r->repeats), "batch",
      medians_json(r->med_batch, r->repeats), "resident", medians_json(r->med_resident, r->repeats), "repeatSpread",
      "gpu", r->spread_gpu, "batch", r->spread_batch, "resident", r->spread_resident, "repeatsAgree", r->repeats_agree,
      "repeatsReason", r->disagreement, "consistent", r->consistent, "reason", r->consistency);
  if (r->has_timestamps)
    json_object_set_new(checks, "timestamps",
                        json_pack("{s:o, s:o, s:o, s:b, s:s}", "ns", stat_json(&r->timestamps), "batchNs",
                                  stat_json(&r->ts_batch), "spanNs", stat_json(&r->span), "consistent",
                                  r->timestamps_consistent, "reason", r->timestamps_reason));
  bench_breakdown b = cli_bench_row_breakdown(r, ceil);
  json_object_set_new(checks, "breakdown", bench_breakdown_json(&b));
  json_object_set_new(
      checks, "host",
      json_pack("{s:f, s:i, s:i, s:f, s:s}", "loadAverage", r->load_average, "cores", r->cores, "gpuInterruptCpu",
                r->irq_cpu, "residentWaitsOnIt", r->waits_on_irq, "keptOffCpus", r->kept_off));
  json_object_set_new(
      checks, "overTimeSpread", /* the series' consecutive thirds: the host's drift, which the dealt
                                   repeats share */
      json_pack("{s:f, s:f, s:f}", "gpu", r->drift_gpu, "batch", r->drift_batch, "resident", r->drift_resident));
  json_t *meds = json_object_get(checks, "repeatMediansNs"); /* the resident split per repeat: which part moved */
  json_object_set_new(meds, "residentRun", medians_json(r->med_run, r->repeats));
  json_object_set_new(meds, "residentWait", medians_json(r->med_wait, r->repeats));
  json_t *passes = json_array(); /* each pass's share of the timestamps: where a multi-pass call's time goes */
  for (int p = 0; p < r->n_passes; p++)
    json_array_append_new(passes, json_pack("{s:s, s:o}", "name", r->pass_name[p], "gpuNs", stat_json(&r->pass[p])));
  json_object_set_new(checks, "passes", passes);
  return checks;
}

static json_t *row_json(const cli_bench_row *r, const bench_ceilings *ceil) {
  const char *status = r->skipped ? "skipped" : r->failed ? "failed" : "ok";
  json_t *o = json_pack("{s:s, s:s, s:s}", "id", r->c->id, "description", r->c->description, "status", status);
  if (r->skipped || r->failed) {
    json_object_set_new(o, "message", json_string(r->message));
    return o;
  }
  json_t *m = measures_json(r, ceil), *checks = checks_json(r, ceil);
  json_object_update(m, checks);
  json_decref(checks);
  json_object_update(o, m);
  json_decref(m);
  return o;
}

json_t *cli_bench_report_head(int argc, char **argv, const char *op_id, const device_desc *dev) {
  json_t *cmd = json_pack("[s]", "wgk"), *device = cli_adapter_json(dev, 0);
  for (int i = 0; cmd && i < argc; i++) json_array_append_new(cmd, json_string(argv[i]));
  json_object_del(device, "index"); /* the adapter of this run, not a place in a listing */
  char date[32];
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  return json_pack("{s:i, s:o, s:s, s:s, s:o}", "schema", 1, "command", cmd, "date", date, "package", op_id, "device",
                   device);
}

json_t *cli_bench_report_json(int argc, char **argv, const char *op_id, const device_desc *dev,
                              const bench_ceilings *ceil, const cli_bench_row *rows, size_t n) {
  json_t *doc = cli_bench_report_head(argc, argv, op_id, dev), *cases = json_array();
  for (size_t i = 0; cases && i < n; i++) json_array_append_new(cases, row_json(&rows[i], ceil));
  if (doc && cases) {
    json_object_set_new(doc, "ceilings", bench_ceilings_json(ceil));
    json_object_set_new(doc, "cases", cases);
    return doc;
  }
  json_decref(doc);
  json_decref(cases);
  return NULL;
}
