/* wgk_context: a device plus the caches every kernel of it shares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime_internal.h"
#include "util/workers.h"

void rt_clear(wgk_context *ctx) {
  if (!ctx) return;
  util_error_clear(&ctx->err);
}

void rt_lock(wgk_context *ctx) { pthread_mutex_lock(&ctx->lock); }
void rt_unlock(wgk_context *ctx) { pthread_mutex_unlock(&ctx->lock); }
void rt_ctx_retain(wgk_context *ctx) { atomic_fetch_add(&ctx->refs, 1); }

/* The last reference gone: nothing else can hold the lock. */
void rt_ctx_release(wgk_context *ctx) {
  if (!ctx || atomic_fetch_sub(&ctx->refs, 1) != 1) return;
  rt_pipelines_free(ctx);
  gpu_pool_clear(&ctx->pool);
  util_workers_destroy(ctx->workers);
  gpu_device_destroy(ctx->dev);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
}

static bool init_lock(pthread_mutex_t *m) {
  pthread_mutexattr_t a;
  if (pthread_mutexattr_init(&a) != 0) return false;
  bool ok = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE) == 0 && pthread_mutex_init(m, &a) == 0;
  pthread_mutexattr_destroy(&a);
  return ok;
}

static void describe_adapter(wgk_context *ctx) {
  const device_desc *d = gpu_device_desc(ctx->dev);
  snprintf(ctx->adapter_line, sizeof ctx->adapter_line, "%s [%s, %s, %s]", d->device[0] ? d->device : d->description,
           d->vendor, d->backend, d->adapterType);
}

/* The options resolved (rt_settings: an option, else its documented variable, else the default) and the device
 * made with them. */
static wgk_status open_device(wgk_context *ctx, const wgk_context_options *opts, rt_settings *set) {
  wgk_status st = rt_settings_resolve(opts, set, &ctx->err);
  gpu_options g = {0};
  if (opts) {
    g.adapter = opts->adapter;
    g.verbose = opts->verbose;
    g.log = ctx->log = (util_log){opts->log, opts->log_user};
    g.instance = (WGPUInstance)opts->wgpu_instance;
    g.device = (WGPUDevice)opts->wgpu_device;
    g.disable_features = opts->disable_features;
    ctx->verbose = opts->verbose;
  }
  if (st != WGK_OK) return st;
  g.wait_spin_set = set->wait_spin_us >= 0;
  g.wait_spin_us = set->wait_spin_us >= 0 ? (uint32_t)set->wait_spin_us : 0;
  g.max_storage_binding = set->max_storage_binding;
  g.max_storage_binding_from = set->max_storage_binding_from;
  g.pipeline_cache_off = !set->pipeline_cache;
  g.pipeline_cache_log = set->pipeline_cache_log;
  g.pipeline_cache_max = set->pipeline_cache_max;
  g.progress_after_ms = set->progress_after_ms;
  return gpu_device_create(&g, &ctx->dev, &ctx->err);
}

/* The host-side strategies of the context, once its device (and so the adapter type) is known. */
static void apply_settings(wgk_context *ctx, const rt_settings *set) {
  ctx->wait_ms = set->wait_ms;
  gpu_pool_init(&ctx->pool, set->pool_bytes); /* 0 turns reuse off */
  /* threads (the caller's included; 1 keeps all host work on the calling thread) that convert one large staged
   * piece; they start on the first large transfer */
  ctx->workers = util_workers_create(set->host_threads - 1);
  ctx->queue_write_max = set->queue_write_max; /* 0: every upload staged */
  /* Uploads through reused mapped staging buffers pay on a GPU behind a bus (H200: 9.1 GB/s against 3.4 through
   * mapped creation, bench/results/archive-2026-12-02/h200-2026-11-30.md) and cost on a CPU adapter (lavapipe:
   * 0.9 against 15-22 GB/s): on unless the adapter is the CPU, unless the option or its variable decides. */
  bool gpu_adapter = strcmp(gpu_device_desc(ctx->dev)->adapterType, "cpu") != 0;
  ctx->staged_upload = set->staged_upload < 0 ? gpu_adapter : set->staged_upload == 1;
  ctx->defer_uploads = set->defer_uploads < 0 ? gpu_adapter : set->defer_uploads == 1;
  ctx->submit_during_fill = set->submit_during_fill; /* no steady win on the H200 */
  ctx->staged_chunk = WGK_STAGED_CHUNK;
  ctx->host_span = set->host_span;
  /* On a GPU adapter the pool's threads watch for the next staged piece a while before they sleep: a wake-up took
   * about 20 us of each 1 MiB fill on the H200. A CPU adapter needs those cores for its own work. */
  util_workers_set_spin(ctx->workers, set->host_spin_us >= 0 ? (unsigned)set->host_spin_us
                                      : gpu_adapter          ? WGK_HOST_SPIN_US
                                                             : 0u);
}

wgk_status wgk_context_create(const wgk_context_options *opts, wgk_context **out, char **errmsg) {
  if (errmsg) *errmsg = NULL;
  if (!out) {
    if (errmsg) *errmsg = strdup("context create: out is NULL");
    return WGK_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  wgk_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    if (errmsg) *errmsg = strdup(wgk_status_str(WGK_ERR_OUT_OF_MEMORY));
    return WGK_ERR_OUT_OF_MEMORY;
  }
  if (!init_lock(&ctx->lock)) {
    free(ctx);
    if (errmsg) *errmsg = strdup("context: cannot create its lock");
    return WGK_ERR_OUT_OF_MEMORY;
  }
  atomic_init(&ctx->refs, 1);
  rt_settings set;
  wgk_status st = open_device(ctx, opts, &set);
  if (st != WGK_OK) {
    if (errmsg) *errmsg = strdup(wgk_context_errmsg(ctx));
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
    return st;
  }
  describe_adapter(ctx);
  apply_settings(ctx, &set);
  ctx->next_serial = 1;
  *out = ctx;
  return WGK_OK;
}

/* Drops the caller's reference: the device and caches go with the last kernel, tensor or batch of the context. */
void wgk_context_destroy(wgk_context *ctx) { rt_ctx_release(ctx); }

/* ctx->err formatted when asked: every layer sets ctx->err, none formats it. */
const char *wgk_context_errmsg(const wgk_context *ctx) {
  if (!ctx) return "no context";
  if (!util_error_is_set(&ctx->err)) return "";
  util_error_format(&ctx->err, ((wgk_context *)ctx)->errmsg, sizeof ctx->errmsg);
  return ctx->errmsg;
}
wgk_status wgk_context_errcode(const wgk_context *ctx) { return ctx ? ctx->err.status : WGK_ERR_INVALID_ARGUMENT; }
const char *wgk_context_adapter(const wgk_context *ctx) { return ctx ? ctx->adapter_line : ""; }

wgk_status wgk_context_wait(wgk_context *ctx) {
  if (!ctx) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(ctx);
  rt_clear(ctx);
  wgk_status st = gpu_wait(ctx->dev, ctx->wait_ms, "submitted work", &ctx->err);
  rt_unlock(ctx);
  return st;
}

void wgk_context_stats(const wgk_context *ctx, wgk_stats *out) {
  if (!out) return;
  if (!ctx) {
    memset(out, 0, sizeof *out);
    return;
  }
  rt_lock((wgk_context *)ctx);
  *out = ctx->stats;
  rt_unlock((wgk_context *)ctx);
}

/* A context question: is serial the recording of one of its live batches, not yet submitted. */
bool rt_batch_unsubmitted(const wgk_context *ctx, uint64_t serial) {
  for (const wgk_batch *b = ctx->batches; serial && b; b = b->next)
    if (b->serial == serial && b->enc) return true;
  return false;
}

gpu_device *rt_context_device(const wgk_context *ctx) { return ctx->dev; }
const device_desc *rt_context_device_desc(const wgk_context *ctx) { return gpu_device_desc(ctx->dev); }

void rt_context_compile_ns(const wgk_context *ctx, double *shader_ns, double *pipeline_ns) {
  rt_lock((wgk_context *)ctx);
  *shader_ns = ctx->shader_ns;
  *pipeline_ns = ctx->pipeline_ns;
  rt_unlock((wgk_context *)ctx);
}

double rt_context_compile_cpu_ns(const wgk_context *ctx) {
  rt_lock((wgk_context *)ctx);
  double ns = ctx->compile_cpu_ns;
  rt_unlock((wgk_context *)ctx);
  return ns;
}
