/* The tunable sweep of one bench case, with every candidate's outputs checked against the defaults'. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tune.h"
#include "runtime/runtime_access.h"

typedef struct sweep {
  bench_setup s;
  uint64_t default_plan; /* the defaults' plan fingerprint */
  bench_stat default_gpu;
  const tc_bench_case *c;
  int64_t warmup, iters;
  util_host_tensor *want[16]; /* default outputs, per manifest port (outputs only) */
  bench_tune_result *r;
  size_t total;
  bench_tune_progress progress;
  void *user;
} sweep;

#define SWEEP_VALUES 32 /* candidate values of one tunable at most */
#define SWEEP_ROUNDS 2  /* coordinate sweeps over all tunables at most (another only after one that moved) */

/* A tunable's candidates around its default d: 0 when d <= 1 (an on/off or "automatic" setting), then powers of
 * two from max(1, d / 16) to the larger of d and the device's workgroup invocation limit. */
static size_t candidates(const wgk_kernel *k, int64_t d, int64_t *out, size_t max) {
  int64_t limit = rt_context_device_desc(rt_kernel_context(k))->limits.maxComputeInvocationsPerWorkgroup;
  int64_t top = d > limit ? d : limit, v = 1;
  size_t n = 0;
  if (d <= 1 && n < max) out[n++] = 0;
  while (v < d / 16) v *= 2;
  for (; v <= top && n < max; v *= 2) out[n++] = v;
  return n;
}

/* The case's value of a tunable, else the manifest default (non-integers: not tunable here, false). */
static bool start_value(const tc_bench_case *c, const manifest_tunable *t, int64_t *v) {
  for (size_t i = 0; i < c->n_tunables; i++)
    if (strcmp(c->tunables[i].name, t->name) == 0) return *v = json_integer_value(c->tunables[i].value), true;
  if (!json_is_integer(t->default_value)) return false;
  *v = json_integer_value(t->default_value);
  return true;
}

/* Outputs of the last run against the defaults'; false with why set (WGK_ERR_EVAL) on the first mismatch. */
static bool outputs_match(sweep *w, util_error *why) {
  const manifest_model *m = rt_kernel_manifest(w->s.k);
  for (size_t i = 0; i < m->n_ports && i < 16; i++) {
    if (!w->want[i]) continue;
    util_host_tensor *got = NULL;
    if (tc_download(wgk_call_output(w->s.call, m->ports[i].name), &got) != WGK_OK)
      return util_error_plain(why, WGK_ERR_EVAL, "%s: read back failed", m->ports[i].name), false;
    size_t count = util_host_tensor_numel(got);
    double *a = malloc(sizeof(double) * (count + 1)), *b = malloc(sizeof(double) * (count + 1));
    tc_compare_result cr = {.pass = a && b && count == util_host_tensor_numel(w->want[i])};
    if (cr.pass) {
      util_host_tensor_to_double(got, a);
      util_host_tensor_to_double(w->want[i], b);
      tc_compare(a, b, count, tc_default_tolerance(got->dtype), &cr);
    }
    if (!cr.pass)
      util_error_plain(why, WGK_ERR_EVAL,
                       "%s differs from the default tunables' output: element %zu got %g want %g (%zu outside)",
                       m->ports[i].name, cr.worst, cr.worst_got, cr.worst_want, cr.n_bad);
    free(a);
    free(b);
    util_host_tensor_free(got);
    if (!cr.pass) return false;
  }
  return true;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *b = data;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/* The GPU work of the call's last run: every pass's WGSL, dispatch size and uniform bytes, and every scratch
 * buffer's size. Equal fingerprints, equal work. */
static uint64_t plan_fingerprint(const wgk_call *call) {
  const plan_result *p = rt_call_plan(call, NULL);
  if (!p) return 0;
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < p->n_passes; i++) {
    const plan_pass *pass = &p->passes[i];
    h = fnv1a(h, pass->wgsl, strlen(pass->wgsl) + 1);
    h = fnv1a(h, pass->workgroups, sizeof pass->workgroups);
    h = fnv1a(h, &pass->skip, sizeof pass->skip);
    if (pass->uniform) h = fnv1a(h, pass->uniform, pass->uniform_size);
  }
  for (size_t i = 0; i < p->n_intermediates; i++)
    h = fnv1a(h, &p->intermediates[i].bytes, sizeof p->intermediates[i].bytes);
  return h ? h : 1;
}

/* The time of an earlier timed candidate (or the defaults) that planned the same work; false when none. */
static bool shared_time(const sweep *w, const bench_tune_candidate *cand, bench_stat *gpu) {
  if (cand->plan == w->default_plan) return *gpu = w->default_gpu, true;
  for (size_t i = 0; i < w->r->n_cands; i++) {
    const bench_tune_candidate *e = &w->r->cands[i];
    if (e != cand && e->ok && !e->same_plan && e->plan == cand->plan) return *gpu = e->gpu, true;
  }
  return false;
}

/* Plans, runs, checks and times the call as it is set now. */
static void try_candidate(sweep *w, bench_tune_candidate *cand) {
  wgk_context *ctx = rt_kernel_context(w->s.k);
  if (wgk_prepare(w->s.call) != WGK_OK) {
    snprintf(cand->why, sizeof cand->why, "planning refused it: %s", wgk_context_errmsg(ctx));
    return;
  }
  if (bench_first_run(&w->s) != WGK_OK) {
    snprintf(cand->why, sizeof cand->why, "run failed: %s", wgk_context_errmsg(ctx));
    return;
  }
  if (strcmp(wgk_call_variant(w->s.call), w->r->variant) != 0) {
    snprintf(cand->why, sizeof cand->why, "picks variant %s, not %s", wgk_call_variant(w->s.call), w->r->variant);
    return;
  }
  cand->plan = plan_fingerprint(w->s.call);
  if (shared_time(w, cand, &cand->gpu)) {
    cand->ok = cand->same_plan = true;
    return;
  }
  util_error differs;
  util_error_clear(&differs);
  if (!outputs_match(w, &differs)) {
    util_error_format(&differs, cand->why, sizeof cand->why);
    return;
  }
  if (bench_time_gpu(&w->s, w->warmup, w->iters, &cand->gpu, &w->r->timed, NULL) != WGK_OK) {
    snprintf(cand->why, sizeof cand->why, "timing failed: %s", wgk_context_errmsg(ctx));
    return;
  }
  cand->ok = true;
}

/* Sweeps one tunable, the others held at their best so far; leaves it at its best, *moved when that changed. */
static wgk_status sweep_tunable(sweep *w, const manifest_tunable *t, bool *moved) {
  int64_t values[SWEEP_VALUES];
  size_t n = candidates(w->s.k, json_integer_value(json_object_get(w->r->defaults, t->name)), values, SWEEP_VALUES);
  int64_t start = json_integer_value(json_object_get(w->r->best, t->name)), best = start;
  for (size_t i = 0; i < n; i++) {
    bench_tune_candidate *cand = &w->r->cands[w->r->n_cands++];
    *cand = (bench_tune_candidate){.tunable = t->name, .value = values[i]};
    wgk_status st = wgk_call_set_tunable(w->s.call, t->name, values[i]);
    if (st) return st;
    try_candidate(w, cand);
    if (cand->ok && cand->gpu.median < w->r->best_ns) {
      w->r->best_ns = cand->gpu.median;
      best = values[i];
    }
    if (w->progress) w->progress(w->user, w->c, w->r->n_cands, w->total, cand);
  }
  json_object_set_new(w->r->best, t->name, json_integer(best));
  *moved |= best != start;
  return wgk_call_set_tunable(w->s.call, t->name, best);
}

/* Every tunable set explicitly (so the tuning cache cannot apply), the default run kept as the reference. */
static wgk_status baseline(sweep *w, util_error *err) {
  const manifest_model *m = rt_kernel_manifest(w->s.k);
  for (size_t i = 0; i < m->n_tunables; i++) {
    int64_t v;
    if (!start_value(w->c, &m->tunables[i], &v)) continue;
    json_object_set_new(w->r->defaults, m->tunables[i].name, json_integer(v));
    wgk_status st = wgk_call_set_tunable(w->s.call, m->tunables[i].name, v);
    if (st) return util_error_plain(err, st, "%s", wgk_context_errmsg(rt_kernel_context(w->s.k)));
  }
  json_object_update(w->r->best, w->r->defaults);
  wgk_status st = bench_first_run(&w->s);
  if (st) return util_error_plain(err, st, "%s", wgk_context_errmsg(rt_kernel_context(w->s.k)));
  snprintf(w->r->variant, sizeof w->r->variant, "%s", wgk_call_variant(w->s.call));
  for (size_t i = 0; i < m->n_ports && i < 16 && !st; i++)
    if (m->ports[i].dir != WGK_PORT_INPUT) {
      wgk_tensor *t = wgk_call_output(w->s.call, m->ports[i].name);
      if (t) st = tc_download(t, &w->want[i]);
    }
  bench_stat s = {0};
  if (!st) st = bench_time_gpu(&w->s, w->warmup, w->iters, &s, &w->r->timed, NULL);
  w->r->default_ns = w->r->best_ns = s.median;
  w->default_gpu = s;
  w->default_plan = plan_fingerprint(w->s.call);
  util_dynbuf key;
  util_dynbuf_init(&key, 1 << 16);
  if (!st && rt_call_shape_key(w->s.call, &key)) w->r->shape = util_dynbuf_take(&key);
  util_dynbuf_free(&key);
  if (!st && !w->r->shape) st = WGK_ERR_OUT_OF_MEMORY;
  if (st && !util_error_is_set(err)) util_error_plain(err, st, "%s", wgk_context_errmsg(rt_kernel_context(w->s.k)));
  return st;
}

wgk_status bench_tune_case(wgk_kernel *k, const tc_bench_case *c, const char *source, int64_t iters,
                           bench_tune_progress progress, void *user, bench_tune_result *r, util_error *err) {
  memset(r, 0, sizeof *r);
  sweep w = {.c = c,
             .warmup = c->warmup ? c->warmup : 1,
             .iters = iters ? iters : c->iterations,
             .r = r,
             .progress = progress,
             .user = user};
  const manifest_model *m = rt_kernel_manifest(k);
  r->defaults = json_object();
  r->best = json_object();
  r->cands = calloc(SWEEP_ROUNDS * m->n_tunables * SWEEP_VALUES + 1, sizeof *r->cands);
  wgk_status st = r->defaults && r->best && r->cands ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
  if (!st) st = bench_setup_make(k, c, source, &w.s, err);
  if (!st) st = baseline(&w, err);
  size_t per_round = 0;
  for (size_t i = 0; i < m->n_tunables && !st; i++) {
    int64_t values[SWEEP_VALUES];
    const json_t *d = json_object_get(r->defaults, m->tunables[i].name);
    if (d) per_round += candidates(k, json_integer_value(d), values, SWEEP_VALUES);
  }
  /* Tunables interact (a split count and a workgroup size): sweep again while a round moves any of them. */
  bool moved = true;
  for (size_t round = 0; round < SWEEP_ROUNDS && moved && !st; round++) {
    moved = false;
    w.total = per_round * (round + 1);
    for (size_t i = 0; i < m->n_tunables && !st; i++)
      if (json_object_get(r->defaults, m->tunables[i].name)) st = sweep_tunable(&w, &m->tunables[i], &moved);
  }
  if (st && !util_error_is_set(err)) util_error_plain(err, st, "%s", wgk_context_errmsg(rt_kernel_context(k)));
  for (int i = 0; i < 16; i++) util_host_tensor_free(w.want[i]);
  if (w.s.k) bench_setup_free(&w.s);
  return st;
}

void bench_tune_result_free(bench_tune_result *r) {
  free(r->shape);
  json_decref(r->defaults);
  json_decref(r->best);
  free(r->cands);
  memset(r, 0, sizeof *r);
}
