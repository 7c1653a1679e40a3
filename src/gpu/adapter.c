/* The instance and its adapters: creating the instance wgk owns, listing adapters, choosing one. */
#include "gpu/gpu_internal.h"
#include "gpu/dawn.h"
#include "util/env.h"
#include "util/text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_ADAPTER_HINT                                                                                      \
  "no WebGPU adapter: Dawn found no usable Vulkan driver; install libvulkan1 and mesa-vulkan-drivers >= 25 " \
  "(Debian 12: from bookworm-backports) or a GPU vendor's Vulkan driver"

WGPUInstance gpu_instance_create(void) {
  if (gpu_dawn_load(NULL) != WGK_OK) return NULL; /* Dawn opened here, once (gpu/dawn.h) */
  /* Mesa prints "not a conformant vulkan implementation" for some drivers (older lavapipe, panvk)
   * when Vulkan starts, which Dawn does inside the instance; a user's own setting wins. */
  setenv("MESA_VK_IGNORE_CONFORMANCE_WARNING", "1", 0);
  /* allow_unsafe_apis: Dawn hides experimental features (subgroup matrices) without it. */
  static const char *const enabled[] = {"allow_unsafe_apis"};
  WGPUDawnTogglesDescriptor toggles = {{NULL, WGPUSType_DawnTogglesDescriptor}, 1, enabled, 0, NULL};
  WGPUInstanceDescriptor desc = {&toggles.chain, {NULL, 1, 64}}; /* timed waits: no spinning */
  return wgpuCreateInstance(&desc);
}

typedef struct adapter_request {
  gpu_async async;
  WGPUAdapter adapter;
} adapter_request;

static void on_adapter(uint32_t status, WGPUAdapter adapter, WGPUStringView message, void *u1, void *u2) {
  if (gpu_async_orphaned(u1)) {
    if (adapter) wgpuAdapterRelease(adapter);
    return;
  }
  adapter_request *r = u1;
  r->async.done = true;
  r->async.status = status;
  r->adapter = adapter;
  gpu_sv_copy(r->async.message, sizeof r->async.message, message);
}

/* One RequestAdapter; NULL (no error) when Dawn has none for these options. */
static WGPUAdapter request(WGPUInstance instance, WGPUPowerPreference power, bool fallback, util_error *err) {
  WGPURequestAdapterOptions opts = {NULL, WGPUFeatureLevel_Core, power, fallback, WGPUBackendType_Undefined, NULL};
  adapter_request *r = gpu_async_new(sizeof *r);
  if (!r) {
    if (!err->status) util_error_oom(err, NULL, "requesting an adapter");
    return NULL;
  }
  WGPURequestAdapterCallbackInfo cb = {NULL, WGPUCallbackMode_WaitAnyOnly, on_adapter, r, NULL};
  WGPUFuture f = wgpuInstanceRequestAdapter(instance, &opts, cb);
  util_error local = {0};
  WGPUAdapter adapter = NULL;
  if (gpu_await_instance(instance, f, &r->async, WGK_GPU_INTERNAL_TIMEOUT_MS, "the adapter request", &local)) {
    /* Unavailable is the normal "none of that kind"; anything else is worth reporting. */
    if (r->async.status != WGPURequestAdapterStatus_Unavailable && !err->status) *err = local;
    if (r->adapter) wgpuAdapterRelease(r->adapter);
  } else {
    adapter = r->adapter;
  }
  gpu_async_free(&r->async);
  return adapter;
}

typedef struct adapter_list {
  WGPUAdapter adapters[8]; /* referenced */
  device_desc descs[8];
  size_t count;
} adapter_list;

static bool same_adapter(const device_desc *a, const device_desc *b) {
  return a->vendorId == b->vendorId && a->deviceId == b->deviceId && strcmp(a->backend, b->backend) == 0 &&
         strcmp(a->device, b->device) == 0 && strcmp(a->description, b->description) == 0;
}

/* Dawn's C API has no adapter enumeration: ask with each power preference and for the fallback
 * adapter, and keep the distinct answers (the high-performance one first, Dawn's default). */
static void enumerate(WGPUInstance instance, adapter_list *list, util_error *err) {
  static const struct {
    WGPUPowerPreference power;
    bool fallback;
  } asks[] = {
      {WGPUPowerPreference_HighPerformance, false},
      {WGPUPowerPreference_LowPower, false},
      {WGPUPowerPreference_Undefined, true},
  };
  list->count = 0;
  for (size_t i = 0; i < sizeof asks / sizeof asks[0]; i++) {
    WGPUAdapter a = request(instance, asks[i].power, asks[i].fallback, err);
    if (!a) continue;
    device_desc *d = &list->descs[list->count];
    gpu_desc_from_adapter(d, a);
    bool seen = false;
    for (size_t j = 0; j < list->count; j++) seen = seen || same_adapter(&list->descs[j], d);
    if (seen) {
      wgpuAdapterRelease(a);
      continue;
    }
    list->adapters[list->count++] = a;
  }
}

static void list_release(adapter_list *list) {
  for (size_t i = 0; i < list->count; i++) wgpuAdapterRelease(list->adapters[i]);
  list->count = 0;
}

static wgk_status no_adapter(const util_error *why, util_error *err) {
  if (why->status == WGK_ERR_OUT_OF_MEMORY) return util_error_plain(err, WGK_ERR_OUT_OF_MEMORY, "%s", why->message);
  if (why->status) return util_error_plain(err, WGK_ERR_NO_ADAPTER, "%s (%s)", NO_ADAPTER_HINT, why->message);
  return util_error_plain(err, WGK_ERR_NO_ADAPTER, "%s", NO_ADAPTER_HINT);
}

wgk_status gpu_list_adapters(device_desc **out, size_t *count, util_error *err) {
  *out = NULL;
  *count = 0;
  WGPUInstance instance = gpu_instance_create();
  if (!instance) return util_error_plain(err, WGK_ERR_DEVICE, "Dawn could not create a WebGPU instance");
  adapter_list list;
  util_error why = {0};
  enumerate(instance, &list, &why);
  if (why.status == WGK_ERR_OUT_OF_MEMORY) list_release(&list);
  wgk_status s = list.count ? WGK_OK : no_adapter(&why, err);
  if (list.count) {
    *out = malloc(list.count * sizeof **out);
    if (!*out)
      s = util_error_oom(err, NULL, "listing adapters");
    else {
      memcpy(*out, list.descs, list.count * sizeof **out);
      *count = list.count;
      uint32_t hidden = 0;
      s = device_features_parse(util_env(WGK_DISABLE_FEATURES_ENV), WGK_DISABLE_FEATURES_ENV, &hidden, err);
      if (s != WGK_OK) {
        free(*out);
        *out = NULL;
        *count = 0;
      }
      for (size_t i = 0; i < *count; i++) (*out)[i].features &= ~hidden;
    }
  }
  list_release(&list);
  wgpuInstanceRelease(instance);
  return s;
}

static bool contains_nocase(const char *hay, const char *needle) {
  return util_contains_nocase(hay, strlen(hay), needle);
}

static bool matches(const device_desc *d, const char *sel) {
  return contains_nocase(d->vendor, sel) || contains_nocase(d->architecture, sel) || contains_nocase(d->device, sel) ||
         contains_nocase(d->description, sel) || contains_nocase(d->backend, sel) ||
         contains_nocase(d->adapterType, sel);
}

static bool parse_index(const char *s, size_t *out) {
  if (!*s) return false;
  size_t v = 0;
  for (; *s; s++) {
    if (!isdigit((unsigned char)*s) || v > 1000) return false;
    v = v * 10 + (size_t)(*s - '0');
  }
  *out = v;
  return true;
}

wgk_status gpu_adapter_select(WGPUInstance instance, const char *selector, WGPUAdapter *out, util_error *err) {
  *out = NULL;
  if (!selector || !*selector) selector = util_env("WGK_ADAPTER");
  if (!selector || !*selector) {
    util_error why = {0};
    *out = request(instance, WGPUPowerPreference_HighPerformance, false, &why);
    if (!*out && why.status != WGK_ERR_OUT_OF_MEMORY)
      *out = request(instance, WGPUPowerPreference_Undefined, true, &why);
    return *out ? WGK_OK : no_adapter(&why, err);
  }
  adapter_list list;
  util_error why = {0};
  enumerate(instance, &list, &why);
  if (list.count == 0 || why.status == WGK_ERR_OUT_OF_MEMORY) { /* a list short of an adapter picks the wrong one */
    list_release(&list);
    return no_adapter(&why, err);
  }
  size_t index = 0, pick = list.count;
  if (parse_index(selector, &index)) pick = index < list.count ? index : list.count;
  for (size_t i = 0; pick == list.count && !parse_index(selector, &index) && i < list.count; i++)
    if (matches(&list.descs[i], selector)) pick = i;
  if (pick == list.count) {
    wgk_status s = util_error_in(err, WGK_ERR_NOT_FOUND, NULL, "adapter",
                                 "no adapter matches '%s' (%zu adapter%s: see `wgk devices`)", selector, list.count,
                                 list.count == 1 ? "" : "s");
    list_release(&list);
    return s;
  }
  *out = list.adapters[pick];
  wgpuAdapterAddRef(*out);
  list_release(&list);
  return WGK_OK;
}
