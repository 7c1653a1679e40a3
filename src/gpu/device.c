/* The device: created from a chosen adapter with every useful feature and the adapter's limits, or
 * wrapped from a caller's WGPUDevice; asynchronous errors recorded here (reported by gpu_device_check, wait.c). */
#define _GNU_SOURCE /* dladdr */
#include "gpu/gpu_internal.h"
#include "gpu/dawn.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

#include "gpu/blob_cache.h"
#include "util/clock.h"
#include "util/env.h"
#include <stdlib.h>
#include <string.h>

static void on_uncaptured(const WGPUDevice *device, WGPUErrorType type, WGPUStringView message, void *u1, void *u2) {
  gpu_device *dev = u1;
  if (dev->pending != WGK_OK) return; /* the first error is the root cause */
  dev->pending = WGK_ERR_GPU;
  char text[WGK_GPU_MESSAGE_MAX - 64];
  gpu_sv_copy(text, sizeof text, message);
  snprintf(dev->pending_message, sizeof dev->pending_message, "%s: %s",
           type == WGPUErrorType_OutOfMemory  ? "out of GPU memory"
           : type == WGPUErrorType_Validation ? "validation error"
                                              : "internal error",
           text);
}

static void on_lost(const WGPUDevice *device, WGPUDeviceLostReason reason, WGPUStringView message, void *u1, void *u2) {
  gpu_device *dev = u1;
  dev->lost = true;
  char text[WGK_GPU_MESSAGE_MAX - 64];
  gpu_sv_copy(text, sizeof text, message);
  snprintf(dev->lost_message, sizeof dev->lost_message, "device lost (%s): %s",
           reason == WGPUDeviceLostReason_Destroyed        ? "destroyed"
           : reason == WGPUDeviceLostReason_FailedCreation ? "creation failed"
                                                           : "unknown",
           text);
}

static void on_log(WGPULoggingType type, WGPUStringView message, void *u1, void *u2) {
  const gpu_device *dev = u1;
  if (!dev->verbose) return; /* Dawn's warnings are for us, not for every user of the CLI */
  static const char *const names[] = {"?", "verbose", "info", "warning", "error"};
  util_log_say(&dev->log, WGK_LOG_LINE, "dawn %s: %.*s", (unsigned)type <= 4 ? names[type] : "?",
               message.data ? (int)(message.length == WGPU_STRLEN ? strlen(message.data) : message.length) : 0,
               message.data ? message.data : "");
}

typedef struct device_request {
  gpu_async async;
  WGPUDevice device;
} device_request;

static void on_device(uint32_t status, WGPUDevice device, WGPUStringView message, void *u1, void *u2) {
  if (gpu_async_orphaned(u1)) {
    if (device) wgpuDeviceRelease(device);
    return;
  }
  device_request *r = u1;
  r->async.done = true;
  r->async.status = status;
  r->device = device;
  gpu_sv_copy(r->async.message, sizeof r->async.message, message);
}

/* The persistent pipeline cache of this adapter and driver (gpu/blob_cache.h): its folder is named by the hash
 * of the adapter's facts (vendor, architecture, device, driver description, backend, ids) and of the Dawn
 * library file (path, size, time), so another driver or another Dawn build starts an empty cache. NULL when
 * turned off (gpu_options.pipeline_cache_off) or no folder can be made: Dawn then caches nothing. */
static gpu_blob_cache *open_blob_cache(const gpu_device *dev, WGPUAdapter adapter) {
  if (!dev->cache_on) return NULL;
  device_desc d;
  gpu_desc_from_adapter(&d, adapter);
  char id[2048], dir[4096];
  Dl_info lib = {0};
  struct stat st = {0};
  if (dladdr((void *)wgpuCreateInstance, &lib) && lib.dli_fname) stat(lib.dli_fname, &st);
  snprintf(id, sizeof id, "%s|%s|%s|%s|%s|%" PRIu32 "|%" PRIu32 "|%s|%lld|%lld", d.vendor, d.architecture, d.device,
           d.description, d.backend, d.vendorId, d.deviceId, lib.dli_fname ? lib.dli_fname : "", (long long)st.st_size,
           (long long)st.st_mtime);
  if (!gpu_blob_cache_dir(id, dir, sizeof dir)) return NULL;
  return gpu_blob_cache_open(dir, dev->cache_max);
}

/* Every feature wgk can use that the adapter has, and all of the adapter's limits. */
static wgk_status request_device(gpu_device *dev, WGPUAdapter adapter, util_error *err) {
  WGPUFeatureName features[WGK_FEATURE_COUNT];
  size_t nfeatures = 0;
  for (int f = 0; f < WGK_FEATURE_COUNT; f++) {
    WGPUFeatureName code = gpu_feature_code((device_feature)f);
    if (code && !(dev->hidden >> f & 1u) && wgpuAdapterHasFeature(adapter, code)) features[nfeatures++] = code;
  }
  WGPULimits limits;
  gpu_limits_init(&limits);
  wgpuAdapterGetLimits(adapter, &limits);
  /* Timestamps quantized to 100 us by default (a browser's timing-attack guard): useless for kernels. */
  static const char *const disabled[] = {"timestamp_quantization"};
  WGPUDawnTogglesDescriptor toggles = {{NULL, WGPUSType_DawnTogglesDescriptor}, 0, NULL, 1, disabled};
  double t0 = (double)util_now_ns();
  dev->blobs = open_blob_cache(dev, adapter);
  double t1 = (double)util_now_ns();
  dev->startup.cache_ns = t1 - t0;
  WGPUDawnCacheDeviceDescriptor cache = {{NULL, WGPUSType_DawnCacheDeviceDescriptor},
                                         gpu_sv("wgk"),
                                         gpu_blob_cache_load,
                                         gpu_blob_cache_store,
                                         dev->blobs};
  if (dev->blobs) toggles.chain.next = &cache.chain;
  WGPUDeviceDescriptor desc = {
      .nextInChain = &toggles.chain,
      .label = gpu_sv("wgk"),
      .requiredFeatureCount = nfeatures,
      .requiredFeatures = features,
      .requiredLimits = &limits,
      .defaultQueue = {NULL, gpu_sv("wgk queue")},
      .deviceLostCallbackInfo = {NULL, WGPUCallbackMode_AllowSpontaneous, on_lost, dev, NULL},
      .uncapturedErrorCallbackInfo = {NULL, on_uncaptured, dev, NULL},
  };
  device_request *r = gpu_async_new(sizeof *r);
  if (!r) return util_error_oom(err, NULL, NULL);
  WGPURequestDeviceCallbackInfo cb = {NULL, WGPUCallbackMode_WaitAnyOnly, on_device, r, NULL};
  WGPUFuture f = wgpuAdapterRequestDevice(adapter, &desc, cb);
  util_error why = {0};
  wgk_status s = WGK_OK;
  if (gpu_await(dev, dev->instance, f, &r->async, WGK_GPU_INTERNAL_TIMEOUT_MS, "the device request", &why)) {
    if (r->device) wgpuDeviceRelease(r->device);
    s = util_error_plain(err, why.status == WGK_ERR_TIMEOUT ? WGK_ERR_TIMEOUT : WGK_ERR_DEVICE, "%s", why.message);
  } else {
    dev->device = r->device;
  }
  dev->startup.device_ns = (double)util_now_ns() - t1;
  gpu_async_free(&r->async);
  return s;
}

/* Features, limits and adapter facts as the device has them. */
static void describe(gpu_device *dev) {
  device_desc *d = &dev->desc;
  device_desc_defaults(d);
  WGPUAdapterInfo info = {0};
  if (wgpuDeviceGetAdapterInfo(dev->device, &info) == WGPUStatus_Success) {
    gpu_desc_from_info(d, &info);
    wgpuAdapterInfoFreeMembers(info);
  }
  WGPUSupportedFeatures features = {0};
  wgpuDeviceGetFeatures(dev->device, &features);
  gpu_desc_from_features(d, &features);
  wgpuSupportedFeaturesFreeMembers(features);
  d->features &= ~dev->hidden;
  WGPULimits limits;
  gpu_limits_init(&limits);
  if (wgpuDeviceGetLimits(dev->device, &limits) == WGPUStatus_Success) gpu_desc_from_limits(d, &limits);
  /* Subgroup matrix configurations are an adapter property. */
  WGPUAdapter adapter = wgpuDeviceGetAdapter(dev->device);
  d->callerDevice = dev->external;
  if (adapter) {
    WGPUSupportedFeatures offered = {0};
    wgpuAdapterGetFeatures(adapter, &offered);
    device_desc of_adapter = {0};
    gpu_desc_from_features(&of_adapter, &offered);
    wgpuSupportedFeaturesFreeMembers(offered);
    d->adapterFeatures = of_adapter.features;
  }
  if (adapter && device_has(d, WGK_FEATURE_SUBGROUP_MATRIX)) {
    device_desc from_adapter;
    gpu_desc_from_adapter(&from_adapter, adapter);
    d->subgroupMatrixConfigCount = from_adapter.subgroupMatrixConfigCount;
    memcpy(d->subgroupMatrixConfigs, from_adapter.subgroupMatrixConfigs, sizeof d->subgroupMatrixConfigs);
  }
  if (adapter) wgpuAdapterRelease(adapter);
}

static wgk_status create_own(gpu_device *dev, const gpu_options *opts, util_error *err) {
  double t0 = (double)util_now_ns();
  wgk_status loaded = gpu_dawn_load(err); /* opening Dawn is part of making the instance */
  if (loaded != WGK_OK) return loaded;
  dev->instance = gpu_instance_create();
  double t1 = (double)util_now_ns();
  dev->startup.instance_ns = t1 - t0;
  if (!dev->instance) return util_error_plain(err, WGK_ERR_DEVICE, "Dawn could not create a WebGPU instance");
  WGPUAdapter adapter = NULL;
  wgk_status s = gpu_adapter_select(dev->instance, opts ? opts->adapter : NULL, &adapter, err);
  dev->startup.adapter_ns = (double)util_now_ns() - t1;
  if (s == WGK_OK) s = request_device(dev, adapter, err);
  if (adapter) wgpuAdapterRelease(adapter);
  return s;
}

static wgk_status wrap_external(gpu_device *dev, const gpu_options *opts, util_error *err) {
  dev->external = true;
  wgk_status loaded = gpu_dawn_load(err); /* the caller's Dawn: the same library, already loaded */
  if (loaded != WGK_OK) return loaded;
  dev->device = opts->device;
  wgpuDeviceAddRef(dev->device);
  /* The caller's lost callback is theirs: whether the device was destroyed (or lost) is polled from this future. */
  dev->lost_future = wgpuDeviceGetLostFuture(dev->device);
  if (opts->instance) {
    dev->instance = opts->instance;
    wgpuInstanceAddRef(dev->instance);
  } else {
    WGPUAdapter adapter = wgpuDeviceGetAdapter(dev->device);
    dev->instance = adapter ? wgpuAdapterGetInstance(adapter) : NULL;
    if (adapter) wgpuAdapterRelease(adapter);
  }
  if (!dev->instance)
    return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "cannot find the instance of the given device");
  return WGK_OK;
}

/* How long a wait polls before it blocks. A blocking wait on a GPU wakes tens of microseconds after the work is
 * done (H200: a bare submit + wait of an empty dispatch 45.6 us blocking, 17.5 us polling; a RoPE decode call
 * 59 -> 22 us), which is most of a short call. A CPU adapter runs the shaders on the cores a polling thread
 * would take, so it blocks at once. gpu_options.wait_spin_us sets the time (0: always block). */
static uint64_t wait_spin_ns(const device_desc *d, const gpu_options *opts) {
  if (opts && opts->wait_spin_set) return (uint64_t)opts->wait_spin_us * 1000u;
  return strcmp(d->adapterType, "cpu") == 0 ? 0 : (uint64_t)WGK_WAIT_SPIN_DEFAULT_US * 1000u;
}

/* The lowered storage-binding limit of opts, checked against the device's alignment (a lower limit than its
 * alignment could bind nothing). Above the device's own limit it changes nothing: it never raises. */
static wgk_status lower_storage_binding(device_desc *d, const gpu_options *opts, util_error *err) {
  uint64_t lower = opts ? opts->max_storage_binding : 0;
  if (!lower) return WGK_OK;
  const char *from = opts->max_storage_binding_from ? opts->max_storage_binding_from : "max_storage_binding";
  if (lower % 4 != 0 || lower < d->limits.minStorageBufferOffsetAlignment)
    return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT,
                            "%s: must be a multiple of 4 of at least the device's minStorageBufferOffsetAlignment "
                            "(%" PRIu32 "), not %" PRIu64,
                            from, d->limits.minStorageBufferOffsetAlignment, lower);
  if (lower < d->limits.maxStorageBufferBindingSize) d->limits.maxStorageBufferBindingSize = lower;
  return WGK_OK;
}

wgk_status gpu_device_create(const gpu_options *opts, gpu_device **out, util_error *err) {
  *out = NULL;
  gpu_device *dev = calloc(1, sizeof *dev);
  if (!dev) return util_error_oom(err, NULL, "creating a device");
  dev->verbose = opts && opts->verbose;
  if (opts) dev->log = opts->log;
  dev->timed_wait = true;
  const char *hide = opts && opts->disable_features ? opts->disable_features : util_env(WGK_DISABLE_FEATURES_ENV);
  const char *what = opts && opts->disable_features ? "disable_features" : WGK_DISABLE_FEATURES_ENV;
  wgk_status bad = device_features_parse(hide, what, &dev->hidden, err);
  /* The pipeline cache's switch, cap and log and the progress line's delay (resolved by runtime/options.c). */
  dev->cache_on = !(opts && opts->pipeline_cache_off);
  dev->cache_log = opts && opts->pipeline_cache_log;
  dev->cache_max = opts && opts->pipeline_cache_max ? opts->pipeline_cache_max : WGK_BLOB_CACHE_MAX_DEFAULT;
  dev->progress_after_ms = opts ? opts->progress_after_ms : 0;
  if (bad != WGK_OK) {
    free(dev);
    return bad;
  }
  wgk_status s = opts && opts->device ? wrap_external(dev, opts, err) : create_own(dev, opts, err);
  if (s != WGK_OK) {
    gpu_device_destroy(dev);
    return s;
  }
  dev->queue = wgpuDeviceGetQueue(dev->device);
  if (!dev->external) wgpuDeviceSetLoggingCallback(dev->device, (WGPULoggingCallbackInfo){NULL, on_log, dev, NULL});
  double t0 = (double)util_now_ns();
  describe(dev);
  dev->startup.describe_ns = (double)util_now_ns() - t0;
  dev->spin_ns = wait_spin_ns(&dev->desc, opts);
  s = lower_storage_binding(&dev->desc, opts, err);
  if (s != WGK_OK) {
    gpu_device_destroy(dev);
    return s;
  }
  *out = dev;
  return WGK_OK;
}

uint64_t gpu_device_wait_spin_ns(const gpu_device *dev) { return dev->spin_ns; }

gpu_startup gpu_device_startup(const gpu_device *dev) { return dev ? dev->startup : (gpu_startup){0}; }

bool gpu_device_blob_counts(const gpu_device *dev, gpu_blob_counts *out) {
  if (!dev || !dev->blobs) return false;
  *out = gpu_blob_cache_counts(dev->blobs);
  return true;
}

void gpu_device_destroy(gpu_device *dev) {
  if (!dev) return;
  gpu_deferred_discard(dev);
  if (dev->queue) wgpuQueueRelease(dev->queue);
  if (dev->device && !dev->external) {
    /* Destroy first: the loss callback (AllowSpontaneous) runs now, while dev is still valid. */
    wgpuDeviceDestroy(dev->device);
  }
  if (dev->device) wgpuDeviceRelease(dev->device);
  if (dev->instance) {
    wgpuInstanceProcessEvents(dev->instance); /* let Dawn finish callbacks that still point at dev */
    wgpuInstanceRelease(dev->instance);
  }
  if (dev->blobs) {
    if (dev->cache_log) {
      gpu_blob_counts n = gpu_blob_cache_counts(dev->blobs);
      util_log_say(&dev->log, WGK_LOG_LINE,
                   "wgk pipeline cache %s: %" PRIu64 " loaded, %" PRIu64 " missed, %" PRIu64 " stored, %" PRIu64
                   " corrupt, %" PRIu64 " evicted",
                   gpu_blob_cache_path(dev->blobs), n.loaded, n.missed, n.stored, n.corrupt, n.evicted);
    }
    gpu_blob_cache_close(dev->blobs);
  }
  free(dev);
}

const device_desc *gpu_device_desc(const gpu_device *dev) { return &dev->desc; }
WGPUInstance gpu_device_raw_instance(const gpu_device *dev) { return dev->instance; }
WGPUDevice gpu_device_raw(const gpu_device *dev) { return dev->device; }
WGPUQueue gpu_device_raw_queue(const gpu_device *dev) { return dev->queue; }
