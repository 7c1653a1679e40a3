/* A context's strategies: each from its wgk_context_options field when set, else from its documented environment
 * variable (docs/environment.md), else the built-in default. A value that breaks its rule is refused by name. */
#include <inttypes.h>

#include "runtime/runtime_internal.h"
#include "util/env.h"

#define BYTES_MAX (1ll << 48)

/* A count: opt when not 0 (WGK_OFF giving 0 where lo is 0), else the variable env, else *value as it is. */
static wgk_status pick_count(int64_t opt, const char *field, const char *env, int64_t lo, int64_t hi, int64_t *value,
                             util_error *err) {
  if (opt == 0) return util_env_int(env, lo, hi, value, err);
  if (opt == WGK_OFF && lo == 0) {
    *value = 0;
    return WGK_OK;
  }
  if (opt >= (lo ? lo : 1) && opt <= hi) {
    *value = opt;
    return WGK_OK;
  }
  if (lo == 0)
    return util_error_plain(
        err, WGK_ERR_INVALID_ARGUMENT,
        "context option %s: must be 0 (the default), WGK_OFF or from 1 to %" PRId64 ", not %" PRId64, field, hi, opt);
  return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT,
                          "context option %s: must be 0 (the default) or from %" PRId64 " to %" PRId64 ", not %" PRId64,
                          field, lo, hi, opt);
}

/* A switch: WGK_ON / WGK_OFF, else the variable env ("0" / "1"), else *value as it is (-1: by the adapter). */
static wgk_status pick_switch(int8_t opt, const char *field, const char *env, int *value, util_error *err) {
  if (opt == WGK_ON || opt == WGK_OFF) {
    *value = opt == WGK_ON;
    return WGK_OK;
  }
  if (opt != 0)
    return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT,
                            "context option %s: must be WGK_ON (1), WGK_OFF (-1) or 0 (the default), not %d", field,
                            (int)opt);
  bool on = false;
  if (!util_env(env)) return WGK_OK;
  wgk_status s = util_env_flag(env, &on, err);
  if (s == WGK_OK) *value = on;
  return s;
}

/* The pipeline cache's and the progress line's settings of o into out (the device applies them). */
static wgk_status resolve_device_side(const wgk_context_options *o, rt_settings *out, util_error *err) {
  int cache = 1, cache_log = 0, progress = 1;
  int64_t cap = 0, after = 1000; /* cap 0: the device's default */
  wgk_status s = pick_switch(o->pipeline_cache, "pipeline_cache", "WGK_PIPELINE_CACHE", &cache, err);
  if (s == WGK_OK)
    s = pick_count(o->pipeline_cache_max_bytes, "pipeline_cache_max_bytes", "WGK_PIPELINE_CACHE_MAX_BYTES", 1,
                   BYTES_MAX, &cap, err);
  if (s == WGK_OK)
    s = pick_switch(o->pipeline_cache_log, "pipeline_cache_log", "WGK_PIPELINE_CACHE_LOG", &cache_log, err);
  if (s == WGK_OK) s = pick_switch(o->progress, "progress", "WGK_PROGRESS", &progress, err);
  if (s == WGK_OK)
    s = pick_count(o->progress_after_ms, "progress_after_ms", "WGK_PROGRESS_AFTER_MS", 0, 3600000, &after, err);
  if (s != WGK_OK) return s;
  out->pipeline_cache = cache == 1;
  out->pipeline_cache_log = cache_log == 1;
  out->pipeline_cache_max = (uint64_t)cap;
  out->progress_after_ms = progress == 1 ? (long)after : -1;
  return WGK_OK;
}

wgk_status rt_settings_resolve(const wgk_context_options *opts, rt_settings *out, util_error *err) {
  static const wgk_context_options none = {0};
  const wgk_context_options *o = opts ? opts : &none;
  int64_t wait = WGK_WAIT_MS, pool = WGK_POOL_BYTES, qmax = WGK_QUEUE_WRITE_MAX, span = WGK_HOST_SPAN, bind = 0,
          threads = WGK_HOST_THREADS_DEFAULT, host_spin = -1, wait_spin = -1;
  int staged = -1, defer = -1, during = 0;
  wgk_status s = WGK_OK;
  if (s == WGK_OK)
    s = pick_count(o->wait_timeout_ms, "wait_timeout_ms", "WGK_WAIT_TIMEOUT_MS", 1, 86400000, &wait, err);
  if (s == WGK_OK) s = pick_count(o->pool_bytes, "pool_bytes", "WGK_POOL_BYTES", 0, BYTES_MAX, &pool, err);
  if (s == WGK_OK)
    s = pick_count(o->queue_write_max, "queue_write_max", "WGK_QUEUE_WRITE_MAX", 0, BYTES_MAX, &qmax, err);
  if (s == WGK_OK) s = pick_count(o->host_span, "host_span", "WGK_HOST_SPAN", 4 << 10, 64 << 20, &span, err);
  if (s == WGK_OK)
    s = pick_count(o->max_storage_binding_bytes, "max_storage_binding_bytes", "WGK_MAX_STORAGE_BINDING_BYTES", 4,
                   BYTES_MAX, &bind, err);
  if (s == WGK_OK && bind % 4 != 0)
    s = util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "%s: must be a multiple of 4, not %" PRId64,
                         o->max_storage_binding_bytes ? "context option max_storage_binding_bytes"
                                                      : "environment variable WGK_MAX_STORAGE_BINDING_BYTES",
                         bind);
  if (s == WGK_OK) s = pick_count(o->host_threads, "host_threads", "WGK_HOST_THREADS", 1, 64, &threads, err);
  if (s == WGK_OK) s = pick_count(o->host_spin_us, "host_spin_us", "WGK_HOST_SPIN_US", 0, 100000, &host_spin, err);
  if (s == WGK_OK) s = pick_count(o->wait_spin_us, "wait_spin_us", "WGK_WAIT_SPIN_US", 0, 1000000, &wait_spin, err);
  if (s == WGK_OK) s = pick_switch(o->staged_upload, "staged_upload", "WGK_STAGED_UPLOAD", &staged, err);
  if (s == WGK_OK) s = pick_switch(o->defer_uploads, "defer_uploads", "WGK_DEFER_UPLOADS", &defer, err);
  if (s == WGK_OK) s = pick_switch(o->submit_during_fill, "submit_during_fill", "WGK_SUBMIT_DURING_FILL", &during, err);
  if (s != WGK_OK) return s;
  *out = (rt_settings){.wait_ms = (uint32_t)wait,
                       .pool_bytes = (uint64_t)pool,
                       .queue_write_max = (uint64_t)qmax,
                       .host_span = (uint64_t)span,
                       .max_storage_binding = (uint64_t)bind,
                       .max_storage_binding_from = o->max_storage_binding_bytes
                                                       ? "context option max_storage_binding_bytes"
                                                       : "environment variable WGK_MAX_STORAGE_BINDING_BYTES",
                       .host_threads = (int)threads,
                       .host_spin_us = (int)host_spin,
                       .wait_spin_us = (int)wait_spin,
                       .staged_upload = staged,
                       .defer_uploads = defer,
                       .submit_during_fill = during == 1};
  return resolve_device_side(o, out, err);
}
