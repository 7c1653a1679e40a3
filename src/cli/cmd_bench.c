/*
 * `wgk bench PKG [--case ID] [--iterations N] [--json FILE] [--verbose]`: the device's ceilings (vec4 copy
 * bandwidth, FMA rate), then every bench.json case: GPU time per call, wall time with resident tensors and end to
 * end, bytes and FLOPs per call, achieved GB/s and GFLOP/s and their ratio to the ceilings. By default one short
 * table (case, variant, GPU us, e2e us, GB/s, % of the copy ceiling, then a column per peer: --peer FILE of
 * bench/peers, the C reference of --reference); --verbose prints the lab detail (repeats, breakdowns, goals,
 * consistency) under each row. docs/performance.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/affinity.h"
#include "bench/breakdown.h"
#include "bench/consistency.h"
#include "cli/bench_report.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "package/package.h"
#include "runtime/runtime_access.h"

typedef struct bench_opts {
  cli_common common;
  const char *pkg, *filter, *json;
  long iterations;   /* --iterations N; 0: the case's own */
  bool reference;    /* --reference: time the op's C reference too */
  bool first_call;   /* --first-call: the first call of the process by phase, nothing else */
  bool off_irq_cpu;  /* --off-irq-cpu: move this process off the GPU's interrupt CPUs first (bench/affinity.h) */
  char kept_off[64]; /* the CPUs it was moved off, as a CPU list; "" when none */
  const char *peer_files[WGK_BENCH_MAX_PEERS]; /* --peer FILE, in order */
  int n_peer_files;
  cli_bench_peers peers; /* theirs, then the C reference's (--reference) */
} bench_opts;

#define REPEATS 3 /* each series is dealt into this many repeats, whose medians must agree */

static int parse_one(int argc, char **argv, int *i, bench_opts *o) {
  const char *a = argv[*i];
  int r = cli_common_option("bench", argc, argv, i, &o->common);
  if (r) return r;
  if (strcmp(a, "--case") == 0) return cli_once("bench", a, &o->filter, cli_value("bench", argc, argv, i)) ? 1 : -1;
  if (strcmp(a, "--reference") == 0) return o->reference = true, 1;
  if (strcmp(a, "--first-call") == 0) return o->first_call = true, 1;
  if (strcmp(a, "--off-irq-cpu") == 0) return o->off_irq_cpu = true, 1;
  if (strcmp(a, "--json") == 0) return cli_once("bench", a, &o->json, cli_value("bench", argc, argv, i)) ? 1 : -1;
  if (strcmp(a, "--peer") == 0) {
    const char *v = cli_value("bench", argc, argv, i);
    if (!v) return -1;
    if (o->n_peer_files == WGK_BENCH_MAX_PEERS)
      return cli_error("bench", "--peer given more than %d times", WGK_BENCH_MAX_PEERS), -1;
    o->peer_files[o->n_peer_files++] = v;
    return 1;
  }
  if (strcmp(a, "--iterations") == 0) {
    const char *v = cli_value("bench", argc, argv, i);
    long long n;
    if (!v) return -1;
    if (o->iterations) return cli_error("bench", "--iterations given twice; give it once"), -1;
    if (!cli_int("bench", "--iterations", v, 1, 1000000, &n)) return -1;
    o->iterations = (long)n;
    return 1;
  }
  if (strcmp(a, "--repeat") == 0)
    return cli_error("bench",
                     "--repeat is now --iterations N (the timed iterations per case; the %d repeats they are "
                     "dealt into are fixed)",
                     REPEATS),
           -1;
  if (a[0] == '-' && a[1])
    return cli_error("bench",
                     "unknown option '%s' (wgk bench takes: --case --iterations --json --peer --reference --first-call "
                     "--off-irq-cpu and the common options)",
                     a),
           -1;
  if (o->pkg) return cli_error("bench", "unexpected argument '%s' (the package is already '%s')", a, o->pkg), -1;
  o->pkg = a;
  return 1;
}

/* Wall samples of K calls per repeat: BATCH_SAMPLES (fewer where the case has fewer iterations), and on up to
 * BATCH_SAMPLES_MAX while they take under BATCH_NS: ten samples of a short case's batch spread its medians past 5%
 * between repeats on the H200 (a submission's jitter is a large part of a 5 µs call); on lavapipe, where the batch
 * is the GPU figure, 10-50 samples of decode's 1.2 ms batches (20 or 60 ms) spread them past 5% in 6 case-runs of
 * 14, about 60 (150 ms) in none of 8 (0.2-3.8%). */
#define BATCH_SAMPLES 10
#define BATCH_SAMPLES_MAX 100
#define BATCH_NS 150e6
/* Resident calls per repeat: the case's iterations at least, up to RESIDENT_MAX while they take under RESIDENT_NS
 * (a host-bound call's median needs many samples to settle; this bounds their time). */
#define RESIDENT_MAX 1000
#define RESIDENT_NS 50e6
#define TIMED_CALL_SAMPLES 20     /* lone timed calls per repeat at most (the breakdown) */
#define IRQ_PROBE_SUBMISSIONS 200 /* --off-irq-cpu: the burst whose interrupts show the CPUs to leave */

static double json_safe(double v) { return isfinite(v) ? v : 1e9; }

/* The consistency rules (bench/consistency.h) and the repeats' agreement of a measured row. */
static void check_row(cli_bench_row *r) {
  bench_figures f = {.timestamps = r->gpu_timed,
                     .gpu_ns = r->gpu.median,
                     .batch_ns = r->gpu_timed ? r->ts_batch.median : r->batch.median,
                     .batch_calls = r->batch_calls,
                     .resident_ns = r->resident.median,
                     .timed_call_ns = r->timed_call.median,
                     .timed_call_gpu_ns = r->timed_gpu.median,
                     .timed_call_span_ns = r->timed_span.median};
  r->consistent = bench_consistent(&f, r->consistency, sizeof r->consistency);
  f.timestamps = true; /* the timestamps checked alike where they are not the figure (a CPU adapter's) */
  f.gpu_ns = r->timestamps.median;
  f.batch_ns = r->ts_batch.median;
  r->timestamps_consistent =
      !r->has_timestamps || bench_consistent(&f, r->timestamps_reason, sizeof r->timestamps_reason);
  const char *names[] = {r->gpu_timed ? "gpu (timestamps)" : "gpu (batch)", "batch", "resident"};
  double spreads[] = {r->spread_gpu, r->spread_batch, r->spread_resident};
  size_t n = r->gpu_timed ? 3 : 2;
  r->repeats_agree = bench_repeats_agree(names + 3 - n, spreads + 3 - n, n, r->disagreement, sizeof r->disagreement);
  if (!r->repeats_agree) bench_load_note(r->load_average, r->cores, r->disagreement, sizeof r->disagreement);
}

/* n samples of sample_ns each, raised from least towards most while they take under budget_ns. */
static int64_t samples_by_time(int64_t least, int64_t most, double sample_ns, double budget_ns) {
  int64_t by_time = sample_ns > 0 ? (int64_t)(budget_ns / sample_ns) : least;
  int64_t want = by_time < most ? by_time : most;
  return want > least ? want : least;
}

static int64_t resident_calls(int64_t iterations, double call_ns) {
  return samples_by_time(iterations, RESIDENT_MAX, call_ns, RESIDENT_NS);
}

/* Which CPU took the GPU's interrupts over the series (before: the counts at its start, NULL where unknown) and
 * the share of the resident calls whose wait ended on it. */
static void note_irq_cpu(const bench_setup *su, const bench_irq_counts *before, const char *driver, cli_bench_row *r) {
  bench_irq_counts after;
  r->irq_cpu = before && bench_irq_read(driver, &after) ? bench_irq_busiest(before, &after) : -1;
  r->waits_on_irq = 0;
  uint64_t all = 0;
  for (int c = 0; c < BENCH_IRQ_MAX_CPUS; c++) all += su->wait_cpu[c];
  if (r->irq_cpu >= 0 && all) r->waits_on_irq = (double)su->wait_cpu[r->irq_cpu] / (double)all;
}

/* The row's statistics from the timed series: each series' quantiles, the repeats' spread and drift and their
 * medians; gpu is the timestamps where they are trusted, else the batch. */
static void store_series(const bench_setup *su, const bench_series *ts, const bench_series *batch,
                         const bench_series *resident, cli_bench_row *r) {
  const bench_series *gpu = r->gpu_timed ? ts : batch;
  r->repeats = REPEATS;
  r->batch_calls = su->batch_calls;
  r->gpu = bench_series_stat(gpu);
  r->timestamps = bench_series_stat(ts);
  r->batch = bench_series_stat(batch);
  r->resident = bench_series_stat(resident);
  r->timed_call = bench_series_stat(&su->timed_calls);
  r->resident_run = bench_series_stat(&su->resident_run);
  r->resident_wait = bench_series_stat(&su->resident_wait);
  r->bare_beside = bench_series_stat(&su->bare_beside);
  r->ts_batch = bench_series_stat(&su->ts_batch);
  r->span = bench_series_stat(&su->span_ns);
  r->timed_run = bench_series_stat(&su->timed_run);
  r->timed_wait = bench_series_stat(&su->timed_wait);
  r->timed_gpu = bench_series_stat(&su->timed_gpu);
  r->timed_span = bench_series_stat(&su->timed_span);
  r->n_passes = su->n_passes;
  for (int p = 0; p < su->n_passes; p++) {
    memcpy(r->pass_name[p], su->pass_name[p], sizeof r->pass_name[p]);
    r->pass[p] = bench_series_stat(&su->pass_ns[p]);
  }
  r->spread_gpu = json_safe(bench_series_spread(gpu));
  r->spread_batch = json_safe(bench_series_spread(batch));
  r->spread_resident = json_safe(bench_series_spread(resident));
  r->drift_gpu = json_safe(bench_series_drift(gpu, REPEATS));
  r->drift_batch = json_safe(bench_series_drift(batch, REPEATS));
  r->drift_resident = json_safe(bench_series_drift(resident, REPEATS));
  memcpy(r->med_gpu, gpu->medians, sizeof r->med_gpu);
  memcpy(r->med_batch, batch->medians, sizeof r->med_batch);
  memcpy(r->med_resident, resident->medians, sizeof r->med_resident);
  memcpy(r->med_run, su->resident_run.medians, sizeof r->med_run);
  memcpy(r->med_wait, su->resident_wait.medians, sizeof r->med_wait);
}

/* Timestamps of the last call of warm back-to-back submissions (when the device has them), lone timed calls (the
 * breakdown), then batch and resident interleaved; each series timed in one go and dealt into REPEATS repeats
 * (in blocks as long as the input copies bound in turn: bench_series_deal), so that the repeats see the same moments of
 * a host that moves between levels (the H200's does, for stretches of tens of milliseconds); the drift over each series
 * is reported beside. gpu is the timestamps where they are trusted (bench_timestamps_trusted), else the batch. */
static wgk_status time_repeats(bench_setup *su, const device_desc *dev, cli_bench_row *r) {
  bench_series ts = {0}, batch = {0}, resident = {0};
  bench_stat one;
  /* the cross-check: samples of K calls (BATCH_SAMPLES and its bounds, above); as the GPU figure at least as many,
   * and at least `iterations` calls */
  int64_t batch_iters = samples_by_time(r->iterations < BATCH_SAMPLES ? r->iterations : BATCH_SAMPLES,
                                        BATCH_SAMPLES_MAX, su->call_ns * su->batch_calls, BATCH_NS);
  int64_t gpu_batches = (r->iterations + su->batch_calls - 1) / su->batch_calls;
  if (gpu_batches < batch_iters) gpu_batches = batch_iters;
  int64_t calls = resident_calls(r->iterations, su->call_ns);
  int64_t lone = r->iterations < TIMED_CALL_SAMPLES ? r->iterations : TIMED_CALL_SAMPLES;
  r->load_average = bench_load_average();
  r->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
  r->has_timestamps = device_has(dev, WGK_FEATURE_TIMESTAMP_QUERY);
  r->gpu_timed = bench_timestamps_trusted(dev);
  su->deal = REPEATS;
  bench_irq_counts irq_before;
  bool irq = strcmp(dev->adapterType, "cpu") != 0 && bench_irq_read(dev->vendor, &irq_before);
  wgk_status st = WGK_OK;
  if (r->has_timestamps) {
    st = bench_time_timestamps(su, r->warmup, REPEATS * (r->gpu_timed ? r->iterations : batch_iters), &one, &ts);
    if (!st) st = bench_time_timed_call(su, REPEATS * lone);
  }
  if (!st)
    st = bench_time_batch_resident(su, r->warmup, REPEATS * (r->gpu_timed ? batch_iters : gpu_batches), REPEATS * calls,
                                   &one, &batch, &one, &resident);
  su->deal = 0;
  note_irq_cpu(su, irq ? &irq_before : NULL, dev->vendor, r);
  if (!st) {
    double load = bench_load_average();
    if (load > r->load_average) r->load_average = load;
    store_series(su, &ts, &batch, &resident, r);
    check_row(r);
  }
  bench_series_free(&ts);
  bench_series_free(&batch);
  bench_series_free(&resident);
  return st;
}

/* The transfer ceilings again, right after the case's e2e series: the goal takes the faster of these and the start's
 * (bench_goals_of). */
static wgk_status time_transfers_beside(wgk_kernel *k, cli_bench_row *r) {
  bench_ceilings t = {0};
  wgk_status st = bench_measure_transfers(rt_kernel_context(k), 0, 0, &t);
  r->has_transfers_beside = st == WGK_OK && t.has_transfers;
  r->upload_beside = t.upload;
  r->download_beside = t.download;
  return st;
}

static void measure_case(wgk_kernel *k, const tc_bench_suite *s, const bench_opts *o, const bench_ceilings *ceil,
                         cli_bench_row *r) {
  bench_setup su;
  r->irq_cpu = -1;
  snprintf(r->kept_off, sizeof r->kept_off, "%s", o->kept_off);
  util_error setup_err;
  util_error_clear(&setup_err);
  wgk_status st = bench_setup_make(k, r->c, s->source, &su, &setup_err);
  if (st) util_error_format(&setup_err, r->message, sizeof r->message);
  r->skipped = st == WGK_ERR_UNSUPPORTED && r->message[0];
  r->warmup = r->c->warmup;
  r->iterations = o->iterations ? o->iterations : r->c->iterations;
  if (!st) st = bench_first_run(&su);
  if (!st) snprintf(r->variant, sizeof r->variant, "%s", wgk_call_variant(su.call));
  if (!st) st = time_repeats(&su, rt_context_device_desc(rt_kernel_context(k)), r);
  if (!st) st = bench_time_e2e(&su, r->warmup > 1 ? 1 : r->warmup, r->iterations, &r->e2e, &r->e2e_parts);
  if (!st) st = time_transfers_beside(k, r);
  if (!st && o->reference)
    r->has_reference = bench_time_reference(&su, r->iterations > 5 ? 5 : r->iterations, &r->reference) == WGK_OK;
  if (st == WGK_ERR_LIMIT) { /* tensors past a device limit: this device cannot run the case at all */
    r->skipped = true;
    if (!r->message[0]) snprintf(r->message, sizeof r->message, "%s", wgk_context_errmsg(rt_kernel_context(k)));
  }
  if (st && !r->skipped) {
    r->failed = true;
    if (!r->message[0])
      snprintf(r->message, sizeof r->message, "%s",
               st == WGK_ERR_OUT_OF_MEMORY ? wgk_status_str(WGK_ERR_OUT_OF_MEMORY)
                                           : wgk_context_errmsg(rt_kernel_context(k)));
  }
  r->sets = su.sets;
  r->bytes = bench_bytes(&su);
  r->flops = bench_flops(&su);
  r->input_bytes = su.input_bytes;
  r->output_bytes = su.output_bytes;
  bench_setup_free(&su);
  util_error err = {0};
  if (!st && r->bytes > 0)
    r->has_copy_at = bench_measure_copy(rt_context_device(rt_kernel_context(k)), r->bytes, ceil->copy.vec4_per_thread,
                                        10, &r->copy_at, &err) == WGK_OK;
}

static void print_kernel_check(const char *name, const bench_kernel_time *k) {
  if (!k->consistent)
    printf("  INCONSISTENT %s ceiling: %s\n", name, k->reason);
  else if (!k->timestamps_consistent)
    printf("  %s ceiling timestamps (not used on this adapter): %s\n", name, k->reason);
}

static void print_ceilings(const bench_ceilings *c) {
  printf(
      "ceilings (%s): vec4 copy %.1f GB/s (%u vec4 per thread; %.1f MiB moved, %.3f ms; wall of %u back-to-back "
      "%.3f ms), FMA %.1f GFLOP/s (%.3f ms; wall %.3f ms)\n",
      c->timed            ? "timestamp queries"
      : c->has_timestamps ? "wall time of back-to-back dispatches: a CPU adapter's timestamps time the driver"
                          : "wall time of back-to-back dispatches: no timestamp-query",
      c->copy.gbps, c->copy.vec4_per_thread, (double)c->copy.bytes / (1 << 20), c->copy.best.ns.median * 1e-6,
      c->copy.best.dispatches, c->copy.best.wall_ns.median * 1e-6, c->fma_gflops, c->fma.ns.median * 1e-6,
      c->fma.wall_ns.median * 1e-6);
  printf("  copy variants:");
  for (size_t i = 0; i < c->copy.n_variants; i++)
    printf(" %ux vec4 %.1f GB/s%s", c->copy.variants[i].vec4_per_thread, c->copy.variants[i].gbps,
           i + 1 < c->copy.n_variants ? "," : "\n");
  if (c->has_transfers)
    printf("  host transfers (as the e2e path): upload %.2f GB/s, download %.2f GB/s (%.1f MiB, %.3f / %.3f ms)\n",
           c->upload.gbps, c->download.gbps, (double)c->upload.bytes / (1 << 20), c->upload.ns.median * 1e-6,
           c->download.ns.median * 1e-6);
  if (c->has_submit_wait)
    printf("  bare submit + wait of an empty dispatch: %.1f us (p10-p90 %.1f-%.1f)\n", c->submit_wait.median * 1e-3,
           c->submit_wait.p10 * 1e-3, c->submit_wait.p90 * 1e-3);
  if (c->has_empty_pass)
    printf("  an empty dispatch in its own timed pass reads %.1f us of timestamps (p10-p90 %.1f-%.1f)%s\n",
           c->empty_pass.median * 1e-3, c->empty_pass.p10 * 1e-3, c->empty_pass.p90 * 1e-3,
           c->timed ? "" : " (a CPU adapter's: the driver's flush)");
  print_kernel_check("copy", &c->copy.best);
  print_kernel_check("FMA", &c->fma);
}

/* The medians of each repeat, when the repeats disagree. */
static void print_disagreement(const cli_bench_row *r) {
  printf("  REPEATS DISAGREE: %s; medians per repeat, us: gpu", r->disagreement);
  for (int i = 0; i < r->repeats; i++) printf(" %.1f", r->med_gpu[i] * 1e-3);
  printf(", resident");
  for (int i = 0; i < r->repeats; i++) printf(" %.1f", r->med_resident[i] * 1e-3);
  printf(" (run");
  for (int i = 0; i < r->repeats; i++) printf(" %.1f", r->med_run[i] * 1e-3);
  printf(", wait");
  for (int i = 0; i < r->repeats; i++) printf(" %.1f", r->med_wait[i] * 1e-3);
  printf(")\n");
}

/* The transfer and overhead goals of a row, met or MISSED. */
static void print_goals(const cli_bench_row *r, const bench_ceilings *c) {
  bench_goals g = cli_bench_row_goals(r, c);
  if (g.has_transfer)
    printf(
        "  transfer: e2e - resident %.1f us, floor %.1f us (in %.2f MiB / upload %.1f GB/s + out %.2f MiB / download "
        "%.1f GB/s, the faster of the start's and beside: %s): %.2fx, goal <= %.2f%s\n",
        g.transfer_ns * 1e-3, g.transfer_floor_ns * 1e-3, (double)r->input_bytes / (1 << 20), g.upload_gbps,
        (double)r->output_bytes / (1 << 20), g.download_gbps, g.transfer_beside ? "beside" : "the start",
        g.transfer_ratio, WGK_BENCH_TRANSFER_GOAL, g.transfer_met ? "" : " MISSED");
  if (g.has_transfer && g.ratio_beside > 0 && g.ratio_beside < g.transfer_ratio / 1.1)
    printf("  the link was slower beside this case (upload %.1f / download %.1f GB/s): %.2fx at those ceilings\n",
           r->upload_beside.gbps, r->download_beside.gbps, g.ratio_beside);
  if (g.has_overhead)
    printf(
        "  overhead: resident %.1f us, bare submit + wait %.1f us (%s): %.2fx, goal <= %.2f%s; (resident - gpu) / "
        "bare %.2fx\n",
        r->resident.median * 1e-3, g.submit_wait_ns * 1e-3,
        g.submit_wait_beside ? "timed beside the resident calls" : "the ceilings'", g.overhead_ratio,
        WGK_BENCH_OVERHEAD_GOAL, g.overhead_met ? "" : " MISSED", g.host_ratio);
}

static void print_row(const cli_bench_row *r, const bench_ceilings *c) {
  if (r->skipped || r->failed) {
    printf("%-18s %s: %s\n", r->c->id, r->skipped ? "SKIP" : "FAIL", r->message);
    return;
  }
  double gbps = cli_bench_row_gbps(r), gflops = cli_bench_row_gflops(r);
  printf("%-18s %-22s %10.1f %9.1f-%-9.1f %10.1f %10.1f %10.1f %9.2f %6.1f%% %9.2f %6.2f%%\n", r->c->id, r->variant,
         r->gpu.median * 1e-3, r->gpu.p10 * 1e-3, r->gpu.p90 * 1e-3, r->batch.median * 1e-3, r->resident.median * 1e-3,
         r->e2e.median * 1e-3, gbps, c->copy.gbps > 0 ? 100 * gbps / c->copy.gbps : 0, gflops,
         c->fma_gflops > 0 ? 100 * gflops / c->fma_gflops : 0);
  printf(
      "  %d repeats (dealt in turn), spread of medians: gpu %.1f%%, batch %.1f%%, resident %.1f%%; over time "
      "(thirds of each series): %.1f%%, %.1f%%, %.1f%%; batch = %d calls per submission; timestamps: the last call "
      "of %d back-to-back, every call timed (%.1f us per call)%s\n",
      r->repeats, r->spread_gpu * 100, r->spread_batch * 100, r->spread_resident * 100, r->drift_gpu * 100,
      r->drift_batch * 100, r->drift_resident * 100, r->batch_calls, r->batch_calls, r->ts_batch.median * 1e-3,
      r->gpu_timed ? "" : "; gpu = batch");
  if (r->has_timestamps && !r->gpu_timed)
    printf(
        "  timestamps %.1f us (not the GPU time on a CPU adapter: lavapipe reads the host clock after a queue "
        "flush)%s%s\n",
        r->timestamps.median * 1e-3, r->timestamps_consistent ? "" : ": ",
        r->timestamps_consistent ? "" : r->timestamps_reason);
  printf(
      "  e2e us (medians): one call (wgk_call_run_host) %.1f; in steps %.1f: inputs made and bound %.1f, run with "
      "its outputs read (one submission, one wait) %.1f\n",
      r->e2e.median * 1e-3, r->e2e_parts.steps.median * 1e-3, r->e2e_parts.upload.median * 1e-3,
      r->e2e_parts.run.median * 1e-3);
  if (r->has_copy_at)
    printf("  copy of the same size (%.1f MiB moved): %.1f us, %.1f GB/s; this case at %.1f%% of it\n",
           (double)r->copy_at.bytes / (1 << 20), r->copy_at.best.ns.median * 1e-3, r->copy_at.gbps,
           100 * cli_bench_row_copy_at_ratio(r));
  char line[1024];
  bench_breakdown b = cli_bench_row_breakdown(r, c);
  bench_breakdown_text(&b, line, sizeof line);
  printf("  us: %s\n", line);
  if (r->n_passes > 0) {
    printf("  passes (timestamps of the last call of %d back-to-back, each pass's share%s):", r->batch_calls,
           r->gpu_timed ? "" : "; a CPU adapter's, see above");
    for (int p = 0; p < r->n_passes; p++)
      printf(" %s %.1f us%s", r->pass_name[p], r->pass[p].median * 1e-3, p + 1 < r->n_passes ? "," : "\n");
  }
  if (r->irq_cpu >= 0)
    printf("  host: the GPU's interrupts went to CPU %d; %.0f%% of the resident calls' waits ended on it%s%s%s\n",
           r->irq_cpu, 100 * r->waits_on_irq, r->kept_off[0] ? "; the process was kept off CPU " : "", r->kept_off,
           r->waits_on_irq > 0.1 ? " (on the H200 a wait there sees the work done ~40 us late: --off-irq-cpu keeps "
                                   "the process off it)"
                                 : "");
  if (!r->repeats_agree) print_disagreement(r);
  if (!r->has_timestamps)
    printf("  no timestamp-query: gpu is the wall time of %d back-to-back calls / %d\n", r->batch_calls,
           r->batch_calls);
  print_goals(r, c);
  if (!r->consistent) printf("  INCONSISTENT: %s\n", r->consistency);
}

/* --verbose: the peers of a measured row in one line (the short table has them as columns). */
static void print_peers_line(const cli_bench_row *r, const cli_bench_peers *peers) {
  if (!peers->n || r->skipped || r->failed) return;
  char cell[96];
  printf("  peers, us (wgk / peer):");
  for (size_t k = 0; k < peers->n; k++) {
    cli_bench_peer_cell(&peers->peer[k], r, cell, sizeof cell);
    printf(" %s %s %s%s", peers->peer[k].name, peers->peer[k].gpu ? "gpu" : "e2e", cell, k + 1 < peers->n ? "," : "\n");
  }
}

/* The default table: one line per case, for people; the lab detail is print_row's (--verbose). */
/* A peer's column: wide enough for "<name> us" and a cell. */
static int peer_width(const cli_bench_peer *p) {
  int w = (int)strlen(p->name) + 3;
  return w > 18 ? w : 18;
}

static void print_short_header(const bench_ceilings *c, const cli_bench_peers *peers) {
  printf("ceilings: copy %.1f GB/s, FMA %.1f GFLOP/s (measured now; --verbose prints how, and each case's detail)\n",
         c->copy.gbps, c->fma_gflops);
  printf("%-18s %-24s %10s %10s %9s %10s", "case", "variant", "GPU us", "e2e us", "GB/s", "% of copy");
  char head[80];
  for (size_t k = 0; k < peers->n; k++) {
    snprintf(head, sizeof head, "%s us", peers->peer[k].name);
    printf("  %*s", peer_width(&peers->peer[k]), head);
  }
  printf("\n");
}

static void print_short_row(const cli_bench_row *r, const bench_ceilings *c, const cli_bench_peers *peers) {
  if (r->skipped || r->failed) {
    printf("%-18s %s: %s\n", r->c->id, r->skipped ? "SKIP" : "FAIL", r->message);
    return;
  }
  double gbps = cli_bench_row_gbps(r);
  printf("%-18s %-24s %10.1f %10.1f %9.2f %9.1f%%", r->c->id, r->variant, r->gpu.median * 1e-3, r->e2e.median * 1e-3,
         gbps, c->copy.gbps > 0 ? 100 * gbps / c->copy.gbps : 0);
  char cell[96];
  for (size_t k = 0; k < peers->n; k++) {
    cli_bench_peer_cell(&peers->peer[k], r, cell, sizeof cell);
    printf("  %*s", peer_width(&peers->peer[k]), cell);
  }
  printf("\n");
}

/* Under a table with peers: what each is compared with, and what the ratio says. */
static void print_peers_key(const cli_bench_peers *peers) {
  if (!peers->n) return;
  printf("peers:");
  for (size_t k = 0; k < peers->n; k++)
    printf(" %s (%s, beside wgk's %s)%s", peers->peer[k].name, peers->peer[k].gpu ? "GPU time" : "end to end",
           peers->peer[k].gpu ? "GPU us" : "e2e us", k + 1 < peers->n ? "," : "");
  printf("; (Nx) is wgk's time over the peer's: below 1, wgk is faster\n");
}

/* Under the short table: what makes a figure doubtful, in a line each (the detail is --verbose's). */
static void print_short_notes(const cli_bench_row *rows, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const cli_bench_row *r = &rows[i];
    if (r->skipped || r->failed) continue;
    if (!r->repeats_agree) printf("note: %s: the repeats disagree (%s)\n", r->c->id, r->disagreement);
    if (!r->consistent) printf("note: %s: inconsistent figures (%s)\n", r->c->id, r->consistency);
  }
}

static bool write_json(const bench_opts *o, int argc, char **argv, wgk_kernel *k, const bench_ceilings *c,
                       const cli_bench_row *rows, size_t n) {
  json_t *doc = cli_bench_report_json(argc, argv, rt_kernel_manifest(k)->op_id,
                                      rt_context_device_desc(rt_kernel_context(k)), c, rows, n);
  return cli_write_json("bench", o->json, doc);
}

/* --off-irq-cpu: every thread of this process moved off the CPUs that IRQ_PROBE_SUBMISSIONS bare submissions
 * interrupted, before anything is measured (a CPU adapter takes no interrupts: nothing moves). The burst finds them
 * where the lines' affinities do not: the H200's machine gives each of the driver's eight lines a CPU of its own and
 * uses one. false, printed, when none can be found or left. */
static bool keep_off_irq_cpus(wgk_context *ctx, bench_opts *o) {
  const device_desc *dev = rt_context_device_desc(ctx);
  if (strcmp(dev->adapterType, "cpu") == 0) {
    printf("--off-irq-cpu: a CPU adapter takes no interrupts; no thread moved\n");
    return true;
  }
  bench_irq_counts before, after;
  if (!bench_irq_read(dev->vendor, &before))
    return cli_error("bench", "--off-irq-cpu: no interrupt line of '%s' in /proc/interrupts", dev->vendor), false;
  util_error err = {0};
  bench_bare *bare = NULL;
  double ns;
  wgk_status st = bench_bare_create(rt_context_device(ctx), &bare, &err);
  for (int i = 0; !st && i < IRQ_PROBE_SUBMISSIONS; i++) st = bench_bare_time(bare, &ns, &err);
  bench_bare_destroy(bare);
  char why[WGK_ERROR_MESSAGE_MAX + 1024];
  if (st) return util_error_format(&err, why, sizeof why), cli_error("bench", "--off-irq-cpu: %s", why), false;
  bool cpus[BENCH_IRQ_MAX_CPUS];
  if (!bench_irq_read(dev->vendor, &after) || !bench_irq_grown(&before, &after, cpus))
    return cli_error("bench", "--off-irq-cpu: no interrupt of '%s' counted over %d submissions", dev->vendor,
                     IRQ_PROBE_SUBMISSIONS),
           false;
  util_error moved;
  util_error_clear(&moved);
  if (!bench_keep_off(cpus, &moved)) {
    util_error_format(&moved, why, sizeof why);
    return cli_error("bench", "--off-irq-cpu: %s", why), false;
  }
  bench_cpu_list_format(cpus, o->kept_off, sizeof o->kept_off);
  printf("kept off CPU %s, which took the GPU's interrupts\n", o->kept_off);
  return true;
}

static int run_bench(wgk_kernel *k, const tc_bench_suite *s, bench_opts *o, int argc, char **argv) {
  bench_ceilings ceil;
  util_error err = {0};
  printf("adapter: %s\n", wgk_context_adapter(rt_kernel_context(k)));
  if (o->off_irq_cpu && !keep_off_irq_cpus(rt_kernel_context(k), o)) return 1;
  if (bench_measure_ceilings(rt_context_device(rt_kernel_context(k)), 10, &ceil, &err) != WGK_OK) {
    char msg[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(&err, msg, sizeof msg);
    return cli_error("bench", "ceilings: %s", msg), 1;
  }
  if (bench_measure_transfers(rt_kernel_context(k), 0, 0, &ceil) != WGK_OK)
    return cli_error("bench", "transfer ceilings: %s", wgk_context_errmsg(rt_kernel_context(k))), 1;
  if (bench_measure_submit_wait(rt_context_device(rt_kernel_context(k)), 0, &ceil, &err) != WGK_OK) {
    char msg[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(&err, msg, sizeof msg);
    return cli_error("bench", "submit + wait: %s", msg), 1;
  }
  bool lab = o->common.verbose;
  cli_bench_row *rows = calloc(s->n_cases + 1, sizeof *rows);
  size_t n = 0;
  int failed = 0;
  if (lab) {
    print_ceilings(&ceil);
    printf("%-18s %-22s %10s %19s %10s %10s %10s %9s %7s %9s %7s\n", "case", "variant", "gpu us", "p10-p90 us",
           "batch us", "resident", "e2e us", "GB/s", "of BW", "GFLOP/s", "of FMA");
  } else {
    print_short_header(&ceil, &o->peers);
  }
  for (size_t i = 0; rows && i < s->n_cases; i++) {
    const tc_bench_case *c = &s->cases[i];
    if (o->filter && !strstr(c->id, o->filter)) continue;
    rows[n].c = c;
    measure_case(k, s, o, &ceil, &rows[n]);
    if (lab) {
      print_row(&rows[n], &ceil);
      print_peers_line(&rows[n], &o->peers);
    } else {
      print_short_row(&rows[n], &ceil, &o->peers);
    }
    fflush(stdout);
    failed += rows[n++].failed;
  }
  if (!lab && rows) print_short_notes(rows, n);
  print_peers_key(&o->peers);
  if (o->filter && n == 0) cli_error("bench", "no case matches '%s'", o->filter), failed++;
  if (o->json && !write_json(o, argc, argv, k, &ceil, rows, n)) failed++;
  free(rows);
  return failed ? 1 : 0;
}

int cli_cmd_bench(int argc, char **argv) {
  bench_opts o = {0};
  for (int i = 1; i < argc; i++)
    if (parse_one(argc, argv, &i, &o) < 0) return 2;
  if (!o.pkg) return cli_usage("bench");
  /* Every argument is checked (the --json file's folder, the package, bench.json, --case) before a GPU context. */
  if (o.json && !cli_check_out_file("bench", "--json", o.json)) return 1;
  if (o.first_call && (o.iterations || o.reference || o.off_irq_cpu || o.n_peer_files))
    return cli_error("bench",
                     "--first-call times one call: --iterations, --reference, --peer and --off-irq-cpu do not apply"),
           2;
  bool ok = true;
  for (int i = 0; ok && i < o.n_peer_files; i++) ok = cli_bench_peers_read(o.peer_files[i], &o.peers);
  if (ok && o.reference) {
    if (o.peers.n == WGK_BENCH_MAX_PEERS) {
      cli_error("bench", "--reference: the table holds %d peers, and --peer gave that many", WGK_BENCH_MAX_PEERS);
      ok = false;
    } else {
      o.peers.peer[o.peers.n++] = (cli_bench_peer){.name = "c-reference", .reference = true};
    }
  }
  pkg_package *pkg = ok ? cli_pkg_open("bench", &o.common, o.pkg) : NULL;
  tc_bench_suite *suite = pkg ? cli_load_bench("bench", pkg) : NULL;
  ok = suite && cli_bench_filter_ok("bench", suite, o.filter) && cli_bench_peers_match(&o.peers, suite);
  if (!ok || o.first_call) { /* --first-call times the library's own load of the package, from nothing */
    tc_bench_suite_free(suite);
    pkg_free(pkg);
  }
  if (!ok) return cli_bench_peers_free(&o.peers), 1;
  if (o.first_call) return cli_bench_first_call(o.pkg, o.filter, o.json, &o.common, argc, argv);
  /* the package and bench.json read for the checks are the ones that run: each read once */
  wgk_context *ctx = NULL;
  wgk_kernel *k = NULL;
  if (!cli_open("bench", &o.common, pkg, &ctx, &k)) {
    tc_bench_suite_free(suite);
    return cli_bench_peers_free(&o.peers), 1;
  }
  int rc = run_bench(k, suite, &o, argc, argv);
  cli_bench_peers_free(&o.peers);
  tc_bench_suite_free(suite);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
  return rc;
}
