/* wgk_context: a device plus the caches every kernel of it shares. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime_internal.h"

void wgk_rt_clear(wgk_context *ctx) {
  if (!ctx) return;
  wgk_error_clear(&ctx->err);
  ctx->errmsg[0] = '\0';
}

wgk_status wgk_rt_fail(wgk_context *ctx, wgk_status st) {
  if (!ctx) return st;
  if (ctx->err.status == WGK_OK) ctx->err.status = st;
  wgk_error_format(&ctx->err, ctx->errmsg, sizeof ctx->errmsg);
  return ctx->err.status;
}

wgk_status wgk_rt_set(wgk_context *ctx, wgk_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wgk_error_setv(&ctx->err, st, NULL, 0, 0, NULL, fmt, ap);
  va_end(ap);
  return wgk_rt_fail(ctx, st);
}

static void describe_adapter(wgk_context *ctx) {
  const wgk_device_desc *d = wgk_gpu_device_desc(ctx->dev);
  snprintf(ctx->adapter_line, sizeof ctx->adapter_line, "%s [%s, %s, %s]", d->device[0] ? d->device : d->description,
           d->vendor, d->backend, d->adapterType);
}

wgk_status wgk_context_create(const wgk_context_options *opts, wgk_context **out, char **errmsg) {
  if (errmsg) *errmsg = NULL;
  if (!out) return WGK_ERR_INVALID_ARGUMENT;
  *out = NULL;
  wgk_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    if (errmsg) *errmsg = strdup("out of memory creating a context");
    return WGK_ERR_OUT_OF_MEMORY;
  }
  wgk_gpu_options g = {0};
  if (opts) {
    g.adapter = opts->adapter;
    g.verbose = opts->verbose;
    g.instance = (WGPUInstance)opts->wgpu_instance;
    g.device = (WGPUDevice)opts->wgpu_device;
    ctx->verbose = opts->verbose;
  }
  wgk_status st = wgk_gpu_device_create(&g, &ctx->dev, &ctx->err);
  if (st != WGK_OK) {
    wgk_rt_fail(ctx, st);
    if (errmsg) *errmsg = strdup(ctx->errmsg);
    free(ctx);
    return st;
  }
  describe_adapter(ctx);
  ctx->next_tensor_id = 1;
  *out = ctx;
  return WGK_OK;
}

void wgk_context_destroy(wgk_context *ctx) {
  if (!ctx) return;
  wgk_rt_pipelines_free(ctx);
  wgk_gpu_device_destroy(ctx->dev);
  free(ctx);
}

const char *wgk_context_errmsg(const wgk_context *ctx) { return ctx ? ctx->errmsg : "no context"; }
wgk_status wgk_context_errcode(const wgk_context *ctx) { return ctx ? ctx->err.status : WGK_ERR_INVALID_ARGUMENT; }
const char *wgk_context_adapter(const wgk_context *ctx) { return ctx ? ctx->adapter_line : ""; }

wgk_status wgk_context_wait(wgk_context *ctx) {
  if (!ctx) return WGK_ERR_INVALID_ARGUMENT;
  wgk_rt_clear(ctx);
  wgk_status st = wgk_gpu_wait(ctx->dev, WGK_WAIT_MS, "submitted work", &ctx->err);
  return st == WGK_OK ? WGK_OK : wgk_rt_fail(ctx, st);
}

void wgk_context_stats(const wgk_context *ctx, wgk_stats *out) {
  if (!out) return;
  if (!ctx) { memset(out, 0, sizeof *out); return; }
  *out = ctx->stats;
}
