/* wgk_kernel: a package bound to a context, with its planner and plan cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "package/template_loader.h"
#include "runtime/runtime_internal.h"
#include "runtime/tuning.h"

/* The tuning-cache entries of this device and op; an unreadable cache is an empty one. */
static void load_tuning(wgk_kernel *k) {
  char path[4096], device[1024];
  rt_tuning_device_key(gpu_device_desc(k->ctx->dev), device, sizeof device);
  k->tuned = rt_tuning_load(rt_tuning_path(path, sizeof path) ? path : NULL, device, k->m->op_id);
  if (k->ctx->verbose && json_array_size(k->tuned))
    util_log_say(&k->ctx->log, WGK_LOG_LINE, "wgk: %zu tuned entries for %s from %s", json_array_size(k->tuned),
                 k->m->op_id, path);
}

static void kernel_free(wgk_kernel *k);

/* A kernel for pkg (taken: freed on failure): its planner, info and tuning-cache entries. */
static wgk_status kernel_make(wgk_context *ctx, pkg_package *pkg, wgk_kernel **out) {
  wgk_status lost = gpu_device_check(ctx->dev, &ctx->err); /* a kernel for a lost device could never run */
  wgk_kernel *k = lost ? NULL : calloc(1, sizeof *k);
  if (!k) {
    pkg_free(pkg);
    return lost ? lost : util_error_oom(&ctx->err, NULL, "kernel load");
  }
  k->refs = 1;
  k->ctx = ctx;
  k->max_plans = WGK_PLAN_CACHE;
  k->pkg = pkg;
  k->m = pkg_manifest(k->pkg);
  k->loader = pkg_template_loader(k->pkg);
  wgk_status st = plan_planner_create(k->m, &k->loader, gpu_device_desc(ctx->dev), &k->planner, &ctx->err);
  if (st == WGK_OK && rt_kernel_info_make(k->m, &k->info) != WGK_OK)
    st = util_error_oom(&ctx->err, NULL, "kernel load");
  if (st != WGK_OK) {
    kernel_free(k);
    return st;
  }
  load_tuning(k);
  rt_ctx_retain(ctx);
  *out = k;
  return WGK_OK;
}

static wgk_status load_locked(wgk_context *ctx, const char *path_or_id, const wgk_kernel_options *opts,
                              wgk_kernel **out) {
  if (!path_or_id || !out)
    return util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "kernel load: %s is NULL",
                            out ? "the package path or id" : "out");
  wgk_status lost = gpu_device_check(ctx->dev, &ctx->err); /* before the package is read */
  if (lost != WGK_OK) return lost;
  pkg_options po = {.log = &ctx->log};
  if (opts) {
    po.strict = opts->strict;
    po.version = opts->version;
    po.revision = opts->revision;
    po.trust_remote_code = opts->trust_remote_code;
  }
  pkg_package *pkg = NULL;
  wgk_status st = pkg_open(path_or_id, &po, &pkg, &ctx->err);
  return st ? st : kernel_make(ctx, pkg, out);
}

wgk_status rt_kernel_load_package(wgk_context *ctx, pkg_package *pkg, wgk_kernel **out) {
  if (out) *out = NULL;
  if (!ctx || !pkg || !out) {
    pkg_free(pkg);
    return WGK_ERR_INVALID_ARGUMENT;
  }
  rt_lock(ctx);
  rt_clear(ctx);
  wgk_status st = kernel_make(ctx, pkg, out);
  rt_unlock(ctx);
  return st;
}

wgk_status wgk_kernel_load(wgk_context *ctx, const char *path_or_id, const wgk_kernel_options *opts, wgk_kernel **out) {
  if (out) *out = NULL;
  if (!ctx) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(ctx);
  rt_clear(ctx);
  wgk_status st = load_locked(ctx, path_or_id, opts, out);
  rt_unlock(ctx);
  return st;
}

/* Frees what prepare() made: uniform and scratch buffers, bind groups; the plan itself stays. */
static void unprepare(rt_plan_entry *e) {
  for (size_t i = 0; e->plan && e->passes && i < e->plan->n_passes; i++) {
    gpu_buffer_destroy(e->passes[i].uniform);
    for (int b = 0; b < WGK_BIND_CACHE; b++) gpu_bind_group_destroy(e->passes[i].binds[b].group);
  }
  for (size_t i = 0; e->plan && e->scratch && i < e->plan->n_intermediates; i++) gpu_buffer_destroy(e->scratch[i]);
  free(e->scratch);
  free(e->passes);
  e->scratch = NULL;
  e->passes = NULL;
}

static void entry_free(rt_plan_entry *e) {
  if (!e) return;
  unprepare(e);
  plan_free(e->plan);
  free(e->key);
  free(e);
}

void rt_plans_free(wgk_kernel *k) {
  for (size_t i = 0; i < k->n_plans; i++) entry_free(k->plans[i]);
  free(k->plans);
  k->plans = NULL;
  k->n_plans = k->cap_plans = 0;
}

static void kernel_free(wgk_kernel *k) {
  rt_plans_free(k);
  plan_planner_free(k->planner);
  json_decref(k->tuned);
  rt_kernel_info_free(k->info);
  pkg_free(k->pkg);
  free(k);
}

void rt_kernel_retain(wgk_kernel *k) {
  rt_lock(k->ctx);
  k->refs++;
  rt_unlock(k->ctx);
}

/* Drops one reference (the caller's, or a call's): the last frees the kernel and drops its context reference. */
void rt_kernel_release(wgk_kernel *k) {
  if (!k) return;
  wgk_context *ctx = k->ctx;
  rt_lock(ctx);
  bool last = --k->refs == 0;
  if (last) kernel_free(k);
  rt_unlock(ctx);
  if (last) rt_ctx_release(ctx);
}

void wgk_kernel_destroy(wgk_kernel *k) { rt_kernel_release(k); }

const char *wgk_kernel_op_id(const wgk_kernel *k) { return k ? pkg_op_id(k->pkg) : NULL; }
const char *wgk_kernel_warning(const wgk_kernel *k) { return k ? pkg_warning(k->pkg) : NULL; }
int wgk_kernel_version(const wgk_kernel *k) { return k ? pkg_version(k->pkg) : 0; }

/* One buffer per intermediate of the plan, kept with the plan entry (never seen by the caller). */
static wgk_status scratch(wgk_context *ctx, const char *op_id, rt_plan_entry *e) {
  size_t n = e->plan->n_intermediates;
  e->scratch = calloc(n ? n : 1, sizeof *e->scratch);
  if (!e->scratch) return util_error_oom(&ctx->err, NULL, NULL);
  for (size_t i = 0; i < n; i++) {
    const plan_intermediate *it = &e->plan->intermediates[i];
    char label[256];
    snprintf(label, sizeof label, "%s/%s/%s", op_id, e->plan->variant->id, it->source->id);
    wgk_status st = gpu_buffer_create(ctx->dev, it->bytes, WGK_GPU_BUFFER_STORAGE | WGK_GPU_BUFFER_COPY_DST, label,
                                      &e->scratch[i], &ctx->err);
    if (st != WGK_OK) return st;
  }
  return WGK_OK;
}

/* Pipelines, uniform and scratch buffers of a fresh plan: everything that does not depend on the tensors bound. */
static wgk_status prepare(wgk_context *ctx, const char *op_id, rt_plan_entry *e) {
  e->passes = calloc(e->plan->n_passes ? e->plan->n_passes : 1, sizeof *e->passes);
  if (!e->passes) return util_error_oom(&ctx->err, NULL, NULL);
  wgk_status sst = scratch(ctx, op_id, e);
  if (sst != WGK_OK) return sst;
  for (size_t i = 0; i < e->plan->n_passes; i++) {
    const plan_pass *pass = &e->plan->passes[i];
    if (pass->skip) continue;
    wgk_status st = rt_pipeline(ctx, pass, &e->passes[i].pipeline);
    if (st != WGK_OK) return st;
    if (!pass->uniform) continue;
    st = gpu_buffer_create(ctx->dev, pass->uniform_size, WGK_GPU_BUFFER_UNIFORM | WGK_GPU_BUFFER_COPY_DST, pass->label,
                           &e->passes[i].uniform, &ctx->err);
    if (st == WGK_OK)
      st = gpu_buffer_write(ctx->dev, e->passes[i].uniform, 0, pass->uniform, pass->uniform_size, &ctx->err);
    if (st != WGK_OK) return st;
  }
  return WGK_OK;
}

void rt_plan_pin(rt_plan_entry *e) {
  if (e) e->pins++;
}
void rt_plan_unpin(rt_plan_entry *e) {
  if (e) e->pins--;
}

/* The least used entry nobody holds; when every entry is held, none (the cache grows past its size instead). */
static void evict_least_used(wgk_kernel *k) {
  size_t victim = k->n_plans;
  for (size_t i = 0; i < k->n_plans; i++)
    if (!k->plans[i]->pins && (victim == k->n_plans || k->plans[i]->uses < k->plans[victim]->uses)) victim = i;
  if (victim == k->n_plans) return;
  entry_free(k->plans[victim]);
  k->plans[victim] = k->plans[--k->n_plans];
}

wgk_status rt_plan_for(wgk_kernel *k, const plan_call *call, rt_plan_entry **out) {
  return rt_plan_lookup(k, call, true, out);
}

/* A cached entry planned without its pipelines gets them when a call needs them. */
static wgk_status ensure_prepared(wgk_context *ctx, const char *op_id, rt_plan_entry *e, bool need) {
  if (!need || e->passes) return WGK_OK;
  wgk_status st = prepare(ctx, op_id, e);
  if (st != WGK_OK) unprepare(e);
  return st;
}

/* A new entry for key (taken): planned, then kept in the cache (evicting the least used when full). */
static wgk_status plan_new(wgk_kernel *k, const plan_call *call, util_dynbuf *key, rt_plan_entry **out) {
  wgk_context *ctx = k->ctx;
  rt_plan_entry *e = calloc(1, sizeof *e);
  if (e) e->key = util_dynbuf_take(key);
  util_dynbuf_free(key);
  wgk_status st = e && e->key ? plan_make(k->planner, call, &e->plan, &ctx->err) : WGK_ERR_OUT_OF_MEMORY;
  if (st == WGK_OK && k->n_plans == k->cap_plans) {
    size_t cap = k->cap_plans ? k->cap_plans * 2 : 8;
    rt_plan_entry **grown = realloc(k->plans, cap * sizeof *grown);
    if (grown) {
      k->plans = grown;
      k->cap_plans = cap;
    } else
      st = WGK_ERR_OUT_OF_MEMORY;
  }
  if (st != WGK_OK) {
    entry_free(e);
    return st == WGK_ERR_OUT_OF_MEMORY ? util_error_oom(&ctx->err, NULL, k->m->op_id) : st;
  }
  ctx->stats.plans_made++;
  if (k->n_plans >= k->max_plans) evict_least_used(k);
  e->uses = 1;
  k->plans[k->n_plans++] = e;
  if (ctx->verbose)
    util_log_say(&ctx->log, WGK_LOG_LINE, "wgk: planned %s variant %s", k->m->op_id, e->plan->variant->id);
  *out = e;
  return WGK_OK;
}

/* The cache entry of a call (planned on a miss), with its pipelines when asked: planning first, the GPU after. */
wgk_status rt_plan_lookup(wgk_kernel *k, const plan_call *call, bool with_pipelines, rt_plan_entry **out) {
  wgk_context *ctx = k->ctx;
  *out = NULL;
  util_dynbuf key;
  util_dynbuf_init(&key, RT_PLAN_KEY_MAX);
  if (!plan_call_key(k->m, call, &key)) {
    bool over = key.over;
    util_dynbuf_free(&key);
    if (over)
      return util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT,
                              "%s: the call's attributes, args, tunables and shapes take more than %d bytes as text, "
                              "the bound of a call's plan key",
                              k->m->op_id, RT_PLAN_KEY_MAX);
    return util_error_oom(&ctx->err, NULL, k->m->op_id);
  }
  rt_plan_entry *e = NULL;
  for (size_t i = 0; i < k->n_plans && !e; i++)
    if (strcmp(k->plans[i]->key, util_dynbuf_str(&key)) == 0) e = k->plans[i];
  wgk_status st = WGK_OK;
  if (e) {
    util_dynbuf_free(&key);
    e->uses++;
    ctx->stats.plan_hits++;
  } else
    st = plan_new(k, call, &key, &e);
  if (st == WGK_OK) st = ensure_prepared(ctx, k->m->op_id, e, with_pipelines);
  if (st == WGK_OK) *out = e;
  return st;
}

const manifest_model *rt_kernel_manifest(const wgk_kernel *k) { return k->m; }
pkg_package *rt_kernel_package(const wgk_kernel *k) { return k->pkg; }
wgk_context *rt_kernel_context(const wgk_kernel *k) { return k->ctx; }
