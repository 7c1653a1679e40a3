/*
 * One bench.json case against a loaded kernel: inputs generated once, uploaded as 1 or several GPU copies
 * (rotated call to call so a small problem is not served from a warm cache), and four timings per call:
 *   gpu       timestamp queries around each pass, the union of the passes' busy intervals (gpu/gpu.h);
 *   batch     wall time of K calls recorded back to back into one submission (wgk_batch), per call: the check
 *             on the timestamps, and the GPU time itself on a device without timestamp-query;
 *   resident  wall time of run + wait with GPU-resident tensors;
 *   e2e       wall time of what the public loader's call does: host inputs uploaded into new tensors,
 *             run, every output read back to host memory.
 *
 * Lifecycle: bench_setup() -> wgk_bench_time_*() / change tunables on setup->call -> bench_setup_free().
 */
#ifndef WGK_BENCH_CASE_RUN_H
#define WGK_BENCH_CASE_RUN_H

#include "bench/irq.h"
#include "bench/stats.h"
#include "device/device_desc.h"
#include "testcase/benchcase.h"

#define WGK_BENCH_ROTATE_BYTES (256ull << 20) /* several input copies while all of them fit below this */
#define WGK_BENCH_MAX_SETS 3
#define WGK_BENCH_MAX_PASSES 16 /* passes of a call timed one by one (rt_call_pass_times) */

typedef struct bench_setup {
  wgk_kernel *k;
  const tc_bench_case *c;
  util_host_tensor **host;                    /* per case input */
  wgk_tensor **dev[WGK_BENCH_MAX_SETS];       /* per set, per case input */
  int sets;                                   /* input copies rotated among */
  int next;                                   /* the set the next call binds */
  wgk_call *call;                             /* inputs of set 0, the case's attrs, args and tunables */
  uint64_t input_bytes, output_bytes;         /* host bytes of all inputs / outputs (outputs after a run) */
  double call_ns;                             /* one run + wait after the first (an estimate, picks K) */
  int batch_calls;                            /* K: calls per back-to-back submission */
  bool cpu;                                   /* a CPU adapter (shorter warm-up) */
  bool warmed;                                /* the case's first warm-up (the long one) is done */
  bench_series ts_batch;                      /* wall per call of the submissions the timestamp series read (every call
                                                     of them timed): a repeat per series with acc */
  bench_series span_ns;                       /* GPU span of those reads: the last call's first pass's begin to its
                                                     last pass's end */
  int n_passes;                               /* passes timed by the timestamp series */
  char pass_name[WGK_BENCH_MAX_PASSES][64];   /* each pass's name (the last part of its label) */
  bench_series pass_ns[WGK_BENCH_MAX_PASSES]; /* each pass's share of the timestamps, a repeat per series */
  /* The lone timed call (a resident call with timestamps on, bench_time_timed_call), a repeat per series: */
  bench_series timed_calls;           /* wall of run + wait + reading the timestamps */
  bench_series timed_run, timed_wait; /* wgk_call_run returning (record + submit); the wait after it */
  bench_series timed_gpu, timed_span; /* its passes' busy time (timestamps) and span */
  /* The untimed resident series split (bench_time_batch_resident): */
  bench_series resident_run, resident_wait;
  struct bench_bare *bare;  /* a bare submission timed after each resident call (NULL: none could be made) */
  bench_series bare_beside; /* its times */
  int deal; /* repeats each timed series is dealt into (bench_series_deal, in blocks of `sets`); 0 or 1: one */
  uint32_t wait_cpu[BENCH_IRQ_MAX_CPUS]; /* per CPU: resident calls (bench_time_batch_resident) whose wait ended
                                           on it, as sched_getcpu saw after the wait */
} bench_setup;

/* Generates and uploads the inputs, makes the call and the bare submission timed beside its resident calls. A case the
 * device cannot run (a missing required feature) gives WGK_ERR_UNSUPPORTED with the reason in err; other failures name
 * the cause in err too. */
wgk_status bench_setup_make(wgk_kernel *k, const tc_bench_case *c, const char *source, bench_setup *out /* OUT */,
                            util_error *err);
void bench_setup_free(bench_setup *s);

/* Runs once (plans, compiles), records the output bytes, times one more run + wait and picks K. */
wgk_status bench_first_run(bench_setup *s);

/* Back-to-back submissions of K calls for WGK_BENCH_WARM_NS (WGK_BENCH_WARM_CPU_NS on a CPU adapter) and at
 * least `calls` calls: the clocks are up when the series that follows starts. Every series below warms first. */
wgk_status bench_warm(bench_setup *s, int64_t calls);

/* Per-call samples in nanoseconds (warmup calls first), summarised in *out and, when acc is set, appended to it
 * as one repeat (s->deal repeats dealt in turn where set, in blocks of s->sets; the same for every series appended
 * below). gpu: *timed true from timestamp queries when bench_timestamps_trusted, else the batch figure (wall of K
 * back-to-back calls / K). */
wgk_status bench_time_gpu(bench_setup *s, int64_t warmup, int64_t iters, bench_stat *out, bool *timed,
                          bench_series *acc);
/* Timestamps alone (the device must have timestamp-query), of the last call of a warm back-to-back series: each
 * sample is one submission of K calls recorded back to back, every call timed the same way (its passes in their
 * own timed passes, resolved after it), and the last call's timestamps read after the wait. With acc, the
 * submission's wall time / K goes to s->ts_batch (the cross-check from the same moments), the last call's GPU
 * span to s->span_ns and each pass's share to s->pass_ns (names in s->pass_name; the shares of one call sum to
 * its sample). A lone call after the host waited (bench_time_timed_call) starts on an idle GPU: not the figure. */
wgk_status bench_time_timestamps(bench_setup *s, int64_t warmup, int64_t iters, bench_stat *out, bench_series *acc);
/* iters lone resident calls with timestamps on, each: run (timed until wgk_call_run returns), wait, read the
 * timestamps; into s->timed_calls / timed_run / timed_wait / timed_gpu / timed_span, one repeat. */
wgk_status bench_time_timed_call(bench_setup *s, int64_t iters);
/* iters samples, each the wall time of submitting K calls recorded back to back into one submission (wgk_batch;
 * recorded before the clock starts) + the wait, divided by K. */
wgk_status bench_time_batch(bench_setup *s, int64_t warmup, int64_t iters, bench_stat *out, bench_series *acc);
/* Batch and resident in one series on warm clocks, interleaved (a batch sample, then resident calls in proportion)
 * so that on a machine whose load changes both figures see the same moments: `batches` batch samples and
 * `calls` resident calls (batches >= 1). Each resident call's run (until wgk_call_run returns) and wait go to
 * s->resident_run / resident_wait as one repeat. */
wgk_status bench_time_batch_resident(bench_setup *s, int64_t warmup, int64_t batches, int64_t calls,
                                     bench_stat *batch_out, bench_series *batch_acc, bench_stat *resident_out,
                                     bench_series *resident_acc);
wgk_status bench_time_resident(bench_setup *s, int64_t warmup, int64_t iters, bench_stat *out, bench_series *acc);
/* An end-to-end call made in steps, as a caller without wgk_call_run_host would: the inputs' tensors made from host
 * arrays and bound (upload), then wgk_call_run_read until it returns (run: the call and its outputs read to host
 * memory, the wait for the GPU included); steps: the two together. */
typedef struct bench_e2e_parts {
  bench_stat upload, run, steps; /* ns per call */
} bench_e2e_parts;
/* Public-loader style calls (wgk_call_run_host: the inputs from host arrays, every output read back) into out, each
 * followed by the same call in steps into parts, after `warmup` (at least two, and until a call's time settles):
 * iters, then on up to 200 while the series has taken under 100 ms (a short call's median needs many samples to
 * settle). */
wgk_status bench_time_e2e(bench_setup *s, int64_t warmup, int64_t iters, bench_stat *out, bench_e2e_parts *parts);

/* The op's C reference (src/ops/<op id>/reference.c, in double on the host) on the same inputs, timed per call;
 * WGK_ERR_UNSUPPORTED when wgk has no reference for the op. */
wgk_status bench_time_reference(bench_setup *s, int64_t iters, bench_stat *out);

/* The bytes and FLOPs one call must move / do: the case's figures, else inputs + outputs and 0 (unknown). */
uint64_t bench_bytes(const bench_setup *s);
uint64_t bench_flops(const bench_setup *s);

#endif
