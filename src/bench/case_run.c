/* A bench case's inputs, call and the three per-call timings. */
#define _GNU_SOURCE /* sched_getcpu */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/case_run.h"
#include "bench/ceiling.h"
#include "ops/ops.h"
#include "runtime/runtime_access.h"
#include "testcase/tc_ref.h"

#define now_ns bench_now_ns
#define BATCH_TARGET_NS 5e6 /* K calls of one submission take about this long */
#define BATCH_MIN 2
#define BATCH_MAX 32

static const char *lacks(wgk_kernel *k, const tc_bench_case *c) {
  const device_desc *dev = rt_context_device_desc(rt_kernel_context(k));
  for (size_t i = 0; i < c->n_requires; i++) {
    device_feature f;
    if (!device_feature_from_name(c->requires[i], &f) || !device_has(dev, f)) return c->requires[i];
  }
  return NULL;
}

static wgk_status make_inputs(bench_setup *s, const char *source, util_error *err) {
  const tc_bench_case *c = s->c;
  for (size_t i = 0; i < c->n_inputs; i++) {
    wgk_status st = tc_input_make(&c->inputs[i], source, &s->host[i], err);
    if (st) return st;
    s->input_bytes += util_host_tensor_bytes(s->host[i]);
  }
  s->sets = s->input_bytes * WGK_BENCH_MAX_SETS <= WGK_BENCH_ROTATE_BYTES ? WGK_BENCH_MAX_SETS : 1;
  for (int set = 0; set < s->sets; set++) {
    if (!(s->dev[set] = calloc(c->n_inputs + 1, sizeof *s->dev[set]))) return util_error_oom(err, source, NULL);
    for (size_t i = 0; i < c->n_inputs; i++) {
      wgk_status st = tc_upload(rt_kernel_context(s->k), s->host[i], &s->dev[set][i]);
      if (st) return util_error_plain(err, st, "%s: %s", c->inputs[i].key, wgk_context_errmsg(rt_kernel_context(s->k)));
    }
  }
  return WGK_OK;
}

static wgk_status bind_set(bench_setup *s, int set) {
  for (size_t i = 0; i < s->c->n_inputs; i++) {
    wgk_status st = wgk_call_set_input(s->call, s->c->inputs[i].key, s->dev[set][i]);
    if (st) return st;
  }
  return WGK_OK;
}

wgk_status bench_setup_make(wgk_kernel *k, const tc_bench_case *c, const char *source, bench_setup *s,
                            util_error *err) {
  *s = (bench_setup){.k = k, .c = c};
  const char *missing = lacks(k, c);
  if (missing) return util_error_plain(err, WGK_ERR_UNSUPPORTED, "device lacks %s", missing);
  if (!(s->host = calloc(c->n_inputs + 1, sizeof *s->host))) return util_error_oom(err, source, NULL);
  wgk_status st = make_inputs(s, source, err);
  if (!st) st = wgk_call_create(k, &s->call);
  if (!st) st = bind_set(s, 0);
  if (!st) st = tc_set_values(s->call, c->attrs, c->n_attrs, c->args, c->n_args, c->tunables, c->n_tunables);
  util_error bare_err = {0}; /* none: the overhead goal falls back to the ceilings' bare submission */
  if (!st && bench_bare_create(rt_context_device(rt_kernel_context(k)), &s->bare, &bare_err) != WGK_OK) s->bare = NULL;
  if (st && !util_error_is_set(err)) util_error_plain(err, st, "%s", wgk_context_errmsg(rt_kernel_context(k)));
  return st;
}

void bench_setup_free(bench_setup *s) {
  wgk_call_destroy(s->call);
  bench_bare_destroy(s->bare);
  for (int set = 0; set < WGK_BENCH_MAX_SETS; set++) {
    for (size_t i = 0; s->dev[set] && i < s->c->n_inputs; i++) wgk_tensor_release(s->dev[set][i]);
    free(s->dev[set]);
  }
  for (size_t i = 0; s->host && i < s->c->n_inputs; i++) util_host_tensor_free(s->host[i]);
  free(s->host);
  bench_series *series[] = {&s->ts_batch,  &s->span_ns,    &s->timed_calls,  &s->timed_run,     &s->timed_wait,
                            &s->timed_gpu, &s->timed_span, &s->resident_run, &s->resident_wait, &s->bare_beside};
  for (size_t i = 0; i < sizeof series / sizeof *series; i++) bench_series_free(series[i]);
  for (int p = 0; p < WGK_BENCH_MAX_PASSES; p++) bench_series_free(&s->pass_ns[p]);
  memset(s, 0, sizeof *s);
}

/* Binds the next input set and runs (no wait). */
static wgk_status run_next(bench_setup *s) {
  wgk_status st = s->sets > 1 ? bind_set(s, s->next) : WGK_OK;
  s->next = (s->next + 1) % s->sets;
  return st ? st : wgk_call_run(s->call);
}

wgk_status bench_first_run(bench_setup *s) {
  wgk_status st = run_next(s);
  if (!st) st = wgk_context_wait(rt_kernel_context(s->k));
  s->output_bytes = 0;
  for (size_t i = 0; !st && i < rt_kernel_manifest(s->k)->n_ports; i++) {
    if (rt_kernel_manifest(s->k)->ports[i].dir == WGK_PORT_INPUT) continue;
    wgk_tensor *t = wgk_call_output(s->call, rt_kernel_manifest(s->k)->ports[i].name);
    if (t) s->output_bytes += wgk_tensor_host_bytes(t);
  }
  s->call_ns = 0;
  /* the fastest of a few: each input set's first calls are slow (bind groups, host checks), so go round them
   * twice, within about 2 s */
  double start = now_ns();
  for (int i = 0; i < 2 * s->sets + 1 && !st && (i < 1 || now_ns() - start < 2e9); i++) {
    double t0 = now_ns();
    st = run_next(s);
    if (!st) st = wgk_context_wait(rt_kernel_context(s->k));
    double t = now_ns() - t0;
    if (i == 0 || t < s->call_ns) s->call_ns = t;
  }
  double k = s->call_ns > 0 ? BATCH_TARGET_NS / s->call_ns : BATCH_MAX;
  s->batch_calls = k < BATCH_MIN ? BATCH_MIN : k > BATCH_MAX ? BATCH_MAX : (int)k;
  s->cpu = strcmp(rt_context_device_desc(rt_kernel_context(s->k))->adapterType, "cpu") == 0;
  return st;
}

/* Binds the call's last outputs as its given outputs (on), or unbinds them. In a batch the previous add still
 * holds its outputs, so the runtime would make new tensors for every add (and Dawn clear each on first use):
 * work a resident call, which reuses its outputs, does not do. */
static wgk_status pin_outputs(bench_setup *s, bool on) {
  const manifest_model *m = rt_kernel_manifest(s->k);
  wgk_status st = WGK_OK;
  for (size_t i = 0; i < m->n_ports && !st; i++) {
    if (m->ports[i].dir != WGK_PORT_OUTPUT) continue;
    wgk_tensor *t = on ? wgk_call_output(s->call, m->ports[i].name) : NULL;
    if (t || !on) st = wgk_call_set_output(s->call, m->ports[i].name, t);
  }
  return st;
}

/* K calls (the input sets in turn) recorded into one submission, all writing the same outputs; with timing on
 * (wgk_call_enable_timing) each is timed and resolved, the last one's timestamps readable after the wait. */
static wgk_status record_batch(bench_setup *s, wgk_batch *b) {
  wgk_status st = pin_outputs(s, true);
  for (int i = 0; i < s->batch_calls && !st; i++) {
    st = s->sets > 1 ? bind_set(s, s->next) : WGK_OK;
    s->next = (s->next + 1) % s->sets;
    if (!st) st = wgk_batch_add(b, s->call);
  }
  wgk_status un = pin_outputs(s, false);
  return st ? st : un;
}

/* Submits what b holds and waits for it: the part of a batch the batch figure times (recording is host work
 * that a GPU-time figure must not hold). */
static wgk_status submit_wait(bench_setup *s, wgk_batch *b) {
  wgk_status st = wgk_batch_submit(b);
  return st ? st : wgk_context_wait(rt_kernel_context(s->k));
}

static wgk_status run_batch(bench_setup *s, wgk_batch *b) {
  wgk_status st = record_batch(s, b);
  return st ? st : submit_wait(s, b);
}

/* A GPU idling between series drops its clock within a second (an H200 went from 1980 to 345 MHz), and one that
 * waits on the host after every call may never raise it: warm with back-to-back submissions of K calls for
 * WARM_NS (and at least `calls` calls), right before each measured series. A case's first warm-up, after its
 * setup and the case before it (whose end-to-end calls leave the GPU mostly idle), lasts WARM_FIRST_NS: the H200
 * once ran RoPE large float16 at 2.8x its time for half a second from the case's start, through a 200 ms warm-up
 * and the first timestamp series (bench/results/archive-2026-12-02/h200-2026-12-01-defer.md). */
wgk_status bench_warm(bench_setup *s, int64_t calls) {
  wgk_batch *b = NULL;
  wgk_status st = wgk_batch_create(rt_kernel_context(s->k), &b);
  double t0 = now_ns(), until = s->cpu      ? WGK_BENCH_WARM_CPU_NS
                                : s->warmed ? WGK_BENCH_WARM_NS
                                            : WGK_BENCH_WARM_FIRST_NS;
  s->warmed = true;
  bool single = s->call_ns * s->batch_calls > until; /* a long call warms by itself: no batches of them */
  for (int64_t done = 0; !st && (done < calls || now_ns() - t0 < until); done += single ? 1 : s->batch_calls) {
    if (!single)
      st = run_batch(s, b);
    else if (!(st = run_next(s)))
      st = wgk_context_wait(rt_kernel_context(s->k));
  }
  wgk_batch_destroy(b);
  return st;
}

static wgk_status finish(const bench_setup *s, wgk_status st, double *ns, int64_t iters, bench_stat *out,
                         bench_series *acc) {
  if (!st) *out = bench_stat_of(ns, (size_t)iters);
  if (!st && acc && !bench_series_deal(acc, ns, (size_t)iters, (size_t)s->deal, (size_t)s->sets))
    st = WGK_ERR_OUT_OF_MEMORY;
  free(ns);
  return st;
}

wgk_status bench_time_batch(bench_setup *s, int64_t warmup, int64_t iters, bench_stat *out, bench_series *acc) {
  double *ns = calloc((size_t)iters + 1, sizeof *ns);
  wgk_batch *b = NULL;
  wgk_status st = ns ? wgk_batch_create(rt_kernel_context(s->k), &b) : WGK_ERR_OUT_OF_MEMORY;
  if (!st) st = bench_warm(s, warmup);
  for (int64_t i = 0; i < iters && !st; i++) {
    st = record_batch(s, b);
    double t0 = now_ns();
    if (!st) st = submit_wait(s, b);
    ns[i] = (now_ns() - t0) / s->batch_calls;
  }
  wgk_batch_destroy(b);
  return finish(s, st, ns, iters, out, acc);
}

wgk_status bench_time_gpu(bench_setup *s, int64_t warmup, int64_t iters, bench_stat *out, bool *timed,
                          bench_series *acc) {
  *timed = bench_timestamps_trusted(rt_context_device_desc(rt_kernel_context(s->k)));
  return *timed ? bench_time_timestamps(s, warmup, iters, out, acc) : bench_time_batch(s, warmup, iters, out, acc);
}

/* The passes of the call's last timed run into column i of per_pass (iters samples per pass); names taken from
 * the first sample. */
static void note_passes(bench_setup *s, int64_t i, int64_t iters, double *per_pass) {
  const char *names[WGK_BENCH_MAX_PASSES];
  uint64_t ns[WGK_BENCH_MAX_PASSES];
  size_t n = rt_call_pass_times(s->call, WGK_BENCH_MAX_PASSES, names, ns);
  if (i == 0) {
    s->n_passes = (int)n;
    for (size_t p = 0; p < n; p++) {
      const char *slash = strrchr(names[p], '/');
      snprintf(s->pass_name[p], sizeof s->pass_name[p], "%s", slash ? slash + 1 : names[p]);
    }
  }
  for (size_t p = 0; p < n && (int)p < s->n_passes; p++) per_pass[(int64_t)p * iters + i] = (double)ns[p];
}

/* Appends samples[0..n) to series as s->deal repeats when acc (else nothing), dealt in blocks of s->sets: the calls
 * bind the input copies in turn, so a block covers each copy; false when out of memory. */
static bool keep(const bench_setup *s, bool acc, bench_series *series, const double *samples, int64_t n) {
  return !acc || bench_series_deal(series, samples, (size_t)n, (size_t)s->deal, (size_t)s->sets);
}

wgk_status bench_time_timestamps(bench_setup *s, int64_t warmup, int64_t iters, bench_stat *out, bench_series *acc) {
  double *ns = calloc((size_t)iters + 1, sizeof *ns), *wall = calloc((size_t)iters + 1, sizeof *wall);
  double *span = calloc((size_t)iters + 1, sizeof *span);
  double *per_pass = calloc((size_t)iters * WGK_BENCH_MAX_PASSES + 1, sizeof *per_pass);
  wgk_batch *b = NULL;
  wgk_status st =
      ns && wall && span && per_pass ? wgk_batch_create(rt_kernel_context(s->k), &b) : WGK_ERR_OUT_OF_MEMORY;
  if (!st) st = wgk_call_enable_timing(s->call, true);
  if (!st) st = bench_warm(s, warmup); /* timed like the series, so the clocks are up for this very pattern */
  for (int64_t i = 0; i < iters && !st; i++) {
    uint64_t t = 0;
    st = record_batch(s, b);
    double t0 = now_ns();
    if (!st) st = submit_wait(s, b);
    wall[i] = (now_ns() - t0) / s->batch_calls;
    if (!st) st = wgk_call_gpu_time(s->call, &t);
    ns[i] = (double)t;
    span[i] = (double)rt_call_gpu_span(s->call);
    if (!st) note_passes(s, i, iters, per_pass);
  }
  wgk_call_enable_timing(s->call, false);
  wgk_batch_destroy(b);
  bool a = acc != NULL;
  if (!st && !(keep(s, a, &s->ts_batch, wall, iters) && keep(s, a, &s->span_ns, span, iters)))
    st = WGK_ERR_OUT_OF_MEMORY;
  for (int p = 0; !st && p < s->n_passes; p++)
    if (!keep(s, a, &s->pass_ns[p], per_pass + (int64_t)p * iters, iters)) st = WGK_ERR_OUT_OF_MEMORY;
  free(per_pass);
  free(span);
  free(wall);
  return finish(s, st, ns, iters, out, acc);
}

wgk_status bench_time_timed_call(bench_setup *s, int64_t iters) {
  size_t n = (size_t)iters + 1;
  double *wall = calloc(n, sizeof *wall), *run = calloc(n, sizeof *run), *wait = calloc(n, sizeof *wait);
  double *gpu = calloc(n, sizeof *gpu), *span = calloc(n, sizeof *span);
  wgk_status st = wall && run && wait && gpu && span ? wgk_call_enable_timing(s->call, true) : WGK_ERR_OUT_OF_MEMORY;
  if (!st) st = bench_warm(s, 0);
  for (int64_t i = 0; i < iters && !st; i++) {
    uint64_t t = 0;
    double t0 = now_ns();
    st = run_next(s);
    double t1 = now_ns();
    if (!st) st = wgk_context_wait(rt_kernel_context(s->k));
    double t2 = now_ns();
    if (!st) st = wgk_call_gpu_time(s->call, &t);
    wall[i] = now_ns() - t0;
    run[i] = t1 - t0;
    wait[i] = t2 - t1;
    gpu[i] = (double)t;
    span[i] = (double)rt_call_gpu_span(s->call);
  }
  wgk_call_enable_timing(s->call, false);
  if (!st && !(keep(s, true, &s->timed_calls, wall, iters) && keep(s, true, &s->timed_run, run, iters) &&
               keep(s, true, &s->timed_wait, wait, iters) && keep(s, true, &s->timed_gpu, gpu, iters) &&
               keep(s, true, &s->timed_span, span, iters)))
    st = WGK_ERR_OUT_OF_MEMORY;
  free(wall);
  free(run);
  free(wait);
  free(gpu);
  free(span);
  return st;
}

wgk_status bench_time_batch_resident(bench_setup *s, int64_t warmup, int64_t batches, int64_t calls,
                                     bench_stat *batch_out, bench_series *batch_acc, bench_stat *resident_out,
                                     bench_series *resident_acc) {
  double *bns = calloc((size_t)batches + 1, sizeof *bns), *rns = calloc((size_t)calls + 1, sizeof *rns);
  double *run = calloc((size_t)calls + 1, sizeof *run), *wait = calloc((size_t)calls + 1, sizeof *wait);
  double *bare = calloc((size_t)calls + 1, sizeof *bare);
  wgk_batch *b = NULL;
  wgk_status st =
      bns && rns && run && wait && bare ? wgk_batch_create(rt_kernel_context(s->k), &b) : WGK_ERR_OUT_OF_MEMORY;
  util_error bare_err = {0};
  if (!st) st = bench_warm(s, warmup);
  /* one batch sample, then resident calls in proportion, so both see the same moments of a busy machine */
  int64_t r = 0;
  for (int64_t i = 0; i < batches && !st; i++) {
    st = record_batch(s, b);
    double t0 = now_ns();
    if (!st) st = submit_wait(s, b);
    bns[i] = (now_ns() - t0) / s->batch_calls;
    for (int64_t until = calls * (i + 1) / batches; r < until && !st; r++) {
      t0 = now_ns();
      st = run_next(s);
      double t1 = now_ns();
      if (!st) st = wgk_context_wait(rt_kernel_context(s->k));
      rns[r] = now_ns() - t0;
      int cpu = sched_getcpu();
      if (resident_acc && cpu >= 0 && cpu < BENCH_IRQ_MAX_CPUS) s->wait_cpu[cpu]++;
      run[r] = t1 - t0;
      wait[r] = rns[r] - run[r];
      if (!st && s->bare) st = bench_bare_time(s->bare, &bare[r], &bare_err); /* the same moment's bare submit */
    }
  }
  wgk_batch_destroy(b);
  if (!st && resident_acc &&
      !(keep(s, true, &s->resident_run, run, calls) && keep(s, true, &s->resident_wait, wait, calls) &&
        (!s->bare || keep(s, true, &s->bare_beside, bare, calls))))
    st = WGK_ERR_OUT_OF_MEMORY;
  free(run);
  free(wait);
  free(bare);
  wgk_status a = finish(s, st, bns, batches, batch_out, batch_acc);
  wgk_status c = finish(s, st ? st : a, rns, calls, resident_out, resident_acc);
  return st ? st : a ? a : c;
}

wgk_status bench_time_resident(bench_setup *s, int64_t warmup, int64_t iters, bench_stat *out, bench_series *acc) {
  double *ns = calloc((size_t)iters + 1, sizeof *ns);
  wgk_status st = ns ? bench_warm(s, warmup) : WGK_ERR_OUT_OF_MEMORY;
  for (int64_t i = 0; i < iters && !st; i++) {
    double t0 = now_ns();
    st = run_next(s);
    if (!st) st = wgk_context_wait(rt_kernel_context(s->k));
    ns[i] = now_ns() - t0;
  }
  return finish(s, st, ns, iters, out, acc);
}

/* The reads of an end-to-end call: every output the warm-up's run produced, each into its own part of scratch
 * (output_bytes in all). n_out: how many. */
static wgk_output_read *e2e_reads(bench_setup *s, char *scratch, size_t *n_out) {
  const manifest_model *m = rt_kernel_manifest(s->k);
  wgk_output_read *reads = calloc(m->n_ports ? m->n_ports : 1, sizeof *reads);
  size_t n = 0, at = 0;
  for (size_t i = 0; reads && i < m->n_ports; i++) {
    if (m->ports[i].dir == WGK_PORT_INPUT) continue;
    wgk_tensor *t = wgk_call_output(s->call, m->ports[i].name);
    if (!t) continue;
    reads[n++] = (wgk_output_read){m->ports[i].name, scratch + at, wgk_tensor_host_bytes(t)};
    at += wgk_tensor_host_bytes(t);
  }
  *n_out = n;
  return reads;
}

/* The case's inputs as host values for wgk_call_run_host (NULL when out of memory). */
static wgk_input_write *e2e_writes(const bench_setup *s) {
  const tc_bench_case *c = s->c;
  wgk_input_write *w = calloc(c->n_inputs ? c->n_inputs : 1, sizeof *w);
  for (size_t i = 0; w && i < c->n_inputs; i++) {
    const util_host_tensor *h = s->host[i];
    w[i] = (wgk_input_write){c->inputs[i].key, wgk_dtype_from_name(wgk_dtype_name(h->dtype)),
                             h->rank,          h->dims,
                             h->data,          util_host_tensor_bytes(h)};
  }
  return w;
}

/* The same call in steps: new tensors from host data, then the call run with its outputs read to host memory;
 * *uploaded: when its inputs were made and bound (bench_now_ns). */
static wgk_status e2e_steps(bench_setup *s, const wgk_output_read *reads, size_t n_reads, double *uploaded) {
  const tc_bench_case *c = s->c;
  wgk_status st = WGK_OK;
  for (size_t i = 0; i < c->n_inputs && !st; i++) {
    wgk_tensor *t = NULL;
    st = tc_upload(rt_kernel_context(s->k), s->host[i], &t);
    if (!st) st = wgk_call_set_input(s->call, c->inputs[i].key, t);
    wgk_tensor_release(t);
  }
  *uploaded = now_ns();
  return st ? st : wgk_call_run_read(s->call, reads, n_reads);
}

#define E2E_MIN 200 /* end-to-end calls at least, while they take under E2E_NS: a short call's median needs many */
#define E2E_NS 100e6
#define E2E_WARM_NS 1e9

/* One public-loader style call (wgk_call_run_host), then the same in steps, each timed: ns[0] the call, ns[1] the
 * steps, ns[2] their inputs' part. */
static wgk_status e2e_pair(bench_setup *s, const wgk_input_write *w, const wgk_output_read *reads, size_t n_reads,
                           double *ns) {
  double t0 = now_ns(), uploaded = 0;
  wgk_status st = wgk_call_run_host(s->call, w, s->c->n_inputs, reads, n_reads);
  double t1 = now_ns();
  if (!st) st = e2e_steps(s, reads, n_reads, &uploaded);
  ns[0] = t1 - t0;
  ns[1] = now_ns() - t1;
  ns[2] = uploaded - t1;
  return st;
}

wgk_status bench_time_e2e(bench_setup *s, int64_t warmup, int64_t iters, bench_stat *out, bench_e2e_parts *parts) {
  char *scratch = malloc(s->output_bytes + 16);
  wgk_input_write *w = e2e_writes(s);
  wgk_status st = scratch && w ? bench_warm(s, 0) : WGK_ERR_OUT_OF_MEMORY;
  size_t n_reads = 0;
  wgk_output_read *reads = st ? NULL : e2e_reads(s, scratch, &n_reads);
  if (!st && !reads) st = WGK_ERR_OUT_OF_MEMORY;
  /* Warm-ups: `warmup`, at least two, and on while the call still speeds up or slows down by more than a fifth
   * (lavapipe's first calls with new tensors take 17-23 ms, then settle over a few calls to 0.2 ms), up to
   * E2E_WARM_NS. */
  double call[3] = {0}, prev_ns = 0, start = now_ns();
  for (int64_t i = 0; !st; i++) {
    prev_ns = call[0];
    st = e2e_pair(s, w, reads, n_reads, call);
    bool settled = i >= 1 && call[0] > 0.8 * prev_ns && call[0] < 1.2 * prev_ns;
    if (i + 1 >= warmup && i >= 1 && (settled || now_ns() - start > E2E_WARM_NS)) break;
  }
  /* iters pairs, then on up to E2E_MIN while the series is under E2E_NS */
  int64_t cap = iters > E2E_MIN ? iters : E2E_MIN, n = 0;
  double *ns = st ? NULL : calloc(4 * ((size_t)cap + 1), sizeof *ns), *steps = ns ? ns + cap + 1 : NULL,
         *up = steps ? steps + cap + 1 : NULL, *run = up ? up + cap + 1 : NULL;
  if (!st && !ns) st = WGK_ERR_OUT_OF_MEMORY;
  start = now_ns();
  for (; n < cap && !st && (n < iters || now_ns() - start < E2E_NS); n++) {
    st = e2e_pair(s, w, reads, n_reads, call);
    ns[n] = call[0], steps[n] = call[1], up[n] = call[2], run[n] = call[1] - call[2];
  }
  if (!st) {
    *out = bench_stat_of(ns, (size_t)n);
    *parts =
        (bench_e2e_parts){bench_stat_of(up, (size_t)n), bench_stat_of(run, (size_t)n), bench_stat_of(steps, (size_t)n)};
  }
  if (!st) st = bind_set(s, 0); /* back to the resident inputs */
  free(reads);
  free(w);
  free(scratch);
  free(ns);
  return st;
}

uint64_t bench_bytes(const bench_setup *s) {
  return s->c->bytes >= 0 ? (uint64_t)s->c->bytes : s->input_bytes + s->output_bytes;
}

uint64_t bench_flops(const bench_setup *s) { return s->c->flops >= 0 ? (uint64_t)s->c->flops : 0; }

wgk_status bench_time_reference(bench_setup *s, int64_t iters, bench_stat *out) {
  const tc_bench_case *c = s->c;
  tc_case tc = {.inputs = c->inputs, .n_inputs = c->n_inputs, .attrs = c->attrs, .n_attrs = c->n_attrs};
  tc.reference = ops_tools_find(rt_kernel_manifest(s->k)->op_id);
  if (!tc.reference || !tc.reference->reference) return WGK_ERR_UNSUPPORTED;
  double *ns = calloc((size_t)iters + 1, sizeof *ns);
  wgk_status st = ns ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
  for (int64_t i = 0; i < iters && !st; i++) {
    tc_ref_outputs want;
    util_error err = {0};
    double t0 = now_ns();
    st = tc_reference_run(rt_kernel_manifest(s->k), &tc, s->host, &want, &err);
    ns[i] = now_ns() - t0;
    tc_ref_outputs_free(&want);
  }
  if (!st) *out = bench_stat_of(ns, (size_t)iters);
  free(ns);
  return st;
}
