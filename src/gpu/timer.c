/* Timestamp queries: two per slot (pass begin, pass end), resolved and read back as nanoseconds of busy time. */
#include "gpu/gpu_internal.h"
#include "gpu/dawn.h"

#include <stdlib.h>
#include <string.h>

wgk_status gpu_timer_create(gpu_device *dev, uint32_t slots, gpu_timer **out, util_error *err) {
  *out = NULL;
  wgk_status s = gpu_device_check(dev, err);
  if (s) return s;
  if (!device_has(&dev->desc, WGK_FEATURE_TIMESTAMP_QUERY))
    return util_error_plain(err, WGK_ERR_UNSUPPORTED, "the device has no timestamp-query feature");
  if (slots == 0 || slots > 2048) /* WebGPU caps a query set at 4096 queries */
    return util_error_plain(err, WGK_ERR_LIMIT, "%u timer slots (1 to 2048)", slots);
  gpu_timer *t = calloc(1, sizeof *t);
  if (!t) return util_error_oom(err, NULL, NULL);
  t->slots = slots;
  if (!(t->written = calloc(slots, sizeof *t->written))) {
    free(t);
    return util_error_oom(err, NULL, NULL);
  }
  uint64_t bytes = (uint64_t)slots * 2 * sizeof(uint64_t);
  WGPUQuerySetDescriptor desc = {NULL, gpu_sv("wgk timestamps"), WGPUQueryType_Timestamp, 2 * slots};
  gpu_scope_push(dev);
  t->queries = wgpuDeviceCreateQuerySet(dev->device, &desc);
  s = gpu_scope_pop(dev, "creating a timestamp query set", err);
  if (s == WGK_OK)
    s = gpu_buffer_create(dev, bytes, WGK_GPU_BUFFER_QUERY_RESOLVE | WGK_GPU_BUFFER_COPY_SRC, "wgk timestamps",
                          &t->resolved, err);
  if (s == WGK_OK)
    s = gpu_buffer_create(dev, bytes, WGK_GPU_BUFFER_MAP_READ | WGK_GPU_BUFFER_COPY_DST, "wgk timestamps readback",
                          &t->readback, err);
  if (s != WGK_OK) {
    gpu_timer_destroy(t);
    return s;
  }
  *out = t;
  return WGK_OK;
}

void gpu_timer_destroy(gpu_timer *t) {
  if (!t) return;
  if (t->queries) {
    wgpuQuerySetDestroy(t->queries);
    wgpuQuerySetRelease(t->queries);
  }
  gpu_buffer_destroy(t->resolved);
  gpu_buffer_destroy(t->readback);
  free(t->written);
  free(t);
}

wgk_status gpu_timer_read(gpu_device *dev, gpu_timer *t, uint64_t *ns, uint32_t slots, uint32_t timeout_ms,
                          util_error *err) {
  wgk_status s = gpu_device_check(dev, err);
  if (s) return s;
  if (!t || slots > t->slots)
    return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "reading %u timer slots of %u", slots, t ? t->slots : 0);
  uint64_t *stamps = malloc((size_t)slots * 2 * sizeof *stamps + 1);
  if (!stamps) return util_error_oom(err, NULL, NULL);
  s = gpu_buffer_map_read(dev, t->readback, 0, stamps, (size_t)slots * 2 * sizeof *stamps, timeout_ms,
                          "reading timestamps", err);
  if (s == WGK_OK) gpu_timestamps_busy(stamps, t->written, slots, ns);
  t->span_ns = s == WGK_OK ? gpu_timestamps_span(stamps, t->written, slots) : 0;
  free(stamps);
  return s;
}

void gpu_timestamps_busy(const uint64_t *stamps, const bool *written, uint32_t n, uint64_t *busy) {
  for (uint32_t i = 0; i < n; i++) {
    uint64_t b = stamps[2 * i], e = stamps[2 * i + 1];
    bool used = written ? written[i] : (b || e);
    busy[i] = 0;
    if (!used || e <= b) continue;
    uint64_t covered = b; /* the furthest end of the slots that began before this one */
    for (uint32_t j = 0; j < n; j++) {
      uint64_t bj = stamps[2 * j], ej = stamps[2 * j + 1];
      bool earlier = bj < b || (bj == b && j < i);
      if (j == i || !earlier || !(written ? written[j] : (bj || ej)) || ej <= bj) continue;
      if (ej > covered) covered = ej;
    }
    busy[i] = e > covered ? e - covered : 0;
  }
}

uint64_t gpu_timestamps_span(const uint64_t *stamps, const bool *written, uint32_t n) {
  uint64_t first = 0, last = 0;
  bool any = false;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t b = stamps[2 * i], e = stamps[2 * i + 1];
    if (!(written ? written[i] : (b || e)) || e <= b) continue;
    if (!any || b < first) first = b;
    if (!any || e > last) last = e;
    any = true;
  }
  return any ? last - first : 0;
}

uint64_t gpu_timer_span(const gpu_timer *t) { return t ? t->span_ns : 0; }
