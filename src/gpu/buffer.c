/* Buffers: creation with the limit checked before Dawn sees it, destruction, ranges, and their maps (started,
 * polled, waited for, settled after a timeout, aborted). Moving bytes in and out of them is transfer.c's. */
#include "gpu/gpu_internal.h"
#include "gpu/dawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static WGPUBufferUsage to_wgpu_usage(uint32_t usage) {
  WGPUBufferUsage u = 0;
  if (usage & WGK_GPU_BUFFER_STORAGE) u |= WGPUBufferUsage_Storage;
  if (usage & WGK_GPU_BUFFER_UNIFORM) u |= WGPUBufferUsage_Uniform;
  if (usage & WGK_GPU_BUFFER_COPY_SRC) u |= WGPUBufferUsage_CopySrc;
  if (usage & WGK_GPU_BUFFER_COPY_DST) u |= WGPUBufferUsage_CopyDst;
  if (usage & WGK_GPU_BUFFER_MAP_READ) u |= WGPUBufferUsage_MapRead;
  if (usage & WGK_GPU_BUFFER_MAP_WRITE) u |= WGPUBufferUsage_MapWrite;
  if (usage & WGK_GPU_BUFFER_QUERY_RESOLVE) u |= WGPUBufferUsage_QueryResolve;
  return u;
}

static wgk_status check_usage(uint32_t usage, const char *label, util_error *err) {
  const uint32_t known = WGK_GPU_BUFFER_STORAGE | WGK_GPU_BUFFER_UNIFORM | WGK_GPU_BUFFER_COPY_SRC |
                         WGK_GPU_BUFFER_COPY_DST | WGK_GPU_BUFFER_MAP_READ | WGK_GPU_BUFFER_QUERY_RESOLVE |
                         WGK_GPU_BUFFER_MAP_WRITE;
  if (usage == 0 || (usage & ~known))
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, NULL, label, "invalid buffer usage 0x%x", usage);
  if ((usage & WGK_GPU_BUFFER_MAP_READ) && (usage & ~(WGK_GPU_BUFFER_MAP_READ | WGK_GPU_BUFFER_COPY_DST)))
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, NULL, label,
                         "a map-read buffer can only be a copy destination (usage 0x%x)", usage);
  if ((usage & WGK_GPU_BUFFER_MAP_WRITE) && (usage & ~(WGK_GPU_BUFFER_MAP_WRITE | WGK_GPU_BUFFER_COPY_SRC)))
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, NULL, label,
                         "a map-write buffer can only be a copy source (usage 0x%x)", usage);
  return WGK_OK;
}

static wgk_status create(gpu_device *dev, uint64_t size, uint32_t usage, const char *label, bool mapped,
                         gpu_buffer **out, void **data, util_error *err) {
  *out = NULL;
  if (data) *data = NULL;
  wgk_status s0;
  if ((s0 = gpu_device_check(dev, err)) || (s0 = check_usage(usage, label, err))) return s0;
  uint64_t max = dev->desc.limits.maxBufferSize;
  if (size > max || size > UINT64_MAX - 3)
    return util_error_in(err, WGK_ERR_LIMIT, NULL, label,
                         "buffer of %llu bytes exceeds the device's maxBufferSize of %llu bytes",
                         (unsigned long long)size, (unsigned long long)max);
  if (mapped && (usage & WGK_GPU_BUFFER_MAP_READ))
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, NULL, label,
                         "a map-read buffer cannot be mapped at creation here (usage 0x%x)", usage);
  size = (size + 3) & ~(uint64_t)3; /* WebGPU copies and bindings work in 4-byte units */
  gpu_buffer *buf = calloc(1, sizeof *buf);
  if (!buf) return util_error_oom(err, NULL, label);
  WGPUBufferDescriptor desc = {NULL, gpu_sv(label), to_wgpu_usage(usage), size, mapped};
  gpu_scope_push(dev);
  buf->buffer = wgpuDeviceCreateBuffer(dev->device, &desc);
  char what[96];
  snprintf(what, sizeof what, "creating buffer '%s' of %llu bytes", label ? label : "", (unsigned long long)size);
  wgk_status s = gpu_scope_pop(dev, what, err);
  if (s == WGK_OK && !buf->buffer) s = util_error_plain(err, WGK_ERR_GPU, "%s failed", what);
  buf->dev = dev;
  buf->id = ++dev->buffer_ids;
  buf->size = size;
  buf->usage = usage;
  if (usage & (WGK_GPU_BUFFER_MAP_READ | WGK_GPU_BUFFER_MAP_WRITE)) dev->staging_bytes += size;
  void *p = NULL;
  if (s == WGK_OK && mapped && !(p = wgpuBufferGetMappedRange(buf->buffer, 0, (size_t)size)))
    s = util_error_plain(err, WGK_ERR_GPU, "%s: the buffer mapped at creation has no mapped range", what);
  if (s != WGK_OK) {
    if (buf->buffer && mapped) wgpuBufferUnmap(buf->buffer);
    gpu_buffer_destroy(buf);
    return s;
  }
  if (data) *data = p;
  *out = buf;
  return WGK_OK;
}

wgk_status gpu_buffer_create(gpu_device *dev, uint64_t size, uint32_t usage, const char *label, gpu_buffer **out,
                             util_error *err) {
  return create(dev, size, usage, label, false, out, NULL, err);
}

wgk_status gpu_buffer_create_mapped(gpu_device *dev, uint64_t size, uint32_t usage, const char *label, gpu_buffer **out,
                                    void **data, util_error *err) {
  return create(dev, size, usage, label, true, out, data, err);
}

void gpu_buffer_unmap(gpu_buffer *buf) {
  if (buf && buf->buffer) wgpuBufferUnmap(buf->buffer);
}

wgk_status gpu_buffer_wrap(gpu_device *dev, WGPUBuffer raw, uint64_t size, gpu_buffer **out, util_error *err) {
  *out = NULL;
  wgk_status s0 = gpu_device_check(dev, err);
  if (s0) return s0;
  if (!raw) return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "no buffer to wrap");
  uint64_t real = wgpuBufferGetSize(raw);
  if (size == 0) size = real;
  if (size > real)
    return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "wrapped buffer has %llu bytes, fewer than the %llu claimed",
                            (unsigned long long)real, (unsigned long long)size);
  gpu_buffer *buf = calloc(1, sizeof *buf);
  if (!buf) return util_error_oom(err, NULL, NULL);
  wgpuBufferAddRef(raw);
  *buf = (gpu_buffer){.dev = dev, .buffer = raw, .size = size, .external = true, .id = ++dev->buffer_ids};
  *out = buf;
  return WGK_OK;
}

static void map_abort(gpu_buffer *buf);

void gpu_buffer_destroy(gpu_buffer *buf) {
  if (!buf) return;
  if (buf->buffer) {
    if (buf->map) map_abort(buf);
    /* Release only: work recorded or submitted earlier may still use the buffer (a batch not yet
     * submitted, a queue still running); Dawn frees the memory when the last such use is done. */
    wgpuBufferRelease(buf->buffer);
  }
  if (buf->usage & (WGK_GPU_BUFFER_MAP_READ | WGK_GPU_BUFFER_MAP_WRITE)) buf->dev->staging_bytes -= buf->size;
  free(buf);
}

uint64_t gpu_buffer_size(const gpu_buffer *buf) { return buf->size; }
uint64_t gpu_buffer_id(const gpu_buffer *buf) { return buf->id; }
WGPUBuffer gpu_buffer_raw(const gpu_buffer *buf) { return buf->buffer; }

wgk_status gpu_buffer_check_range(const gpu_buffer *buf, uint64_t offset, uint64_t size, const char *what,
                                  util_error *err) {
  if (!buf) return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "%s: no buffer", what);
  if (offset % 4 || size % 4)
    return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "%s: offset %llu and size %llu must be multiples of 4", what,
                            (unsigned long long)offset, (unsigned long long)size);
  if (offset > buf->size || size > buf->size - offset)
    return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "%s: range [%llu, +%llu) outside the buffer's %llu bytes",
                            what, (unsigned long long)offset, (unsigned long long)size, (unsigned long long)buf->size);
  return WGK_OK;
}

typedef struct map_state {
  gpu_async async;
} map_state;

static void on_map(uint32_t status, WGPUStringView message, void *u1, void *u2) {
  (void)u2;
  if (gpu_async_orphaned(u1)) return;
  map_state *m = u1;
  m->async.done = true;
  m->async.status = status;
  gpu_sv_copy(m->async.message, sizeof m->async.message, message);
}

/* Starts mapping [offset, offset + size) of buf; false (nothing started) when out of memory. */
bool gpu_buffer_map_start(gpu_buffer *buf, WGPUMapMode mode, uint64_t offset, size_t size) {
  map_state *m = gpu_async_new(sizeof *m);
  if (!m) return false;
  WGPUBufferMapCallbackInfo cb = {NULL, WGPUCallbackMode_WaitAnyOnly, on_map, m, NULL};
  buf->map_future = wgpuBufferMapAsync(buf->buffer, mode, (size_t)offset, size, cb);
  buf->map = &m->async;
  return true;
}

/* Whether the map started on buf is done, without waiting (its callback runs here if it is). */
bool gpu_buffer_map_done(gpu_buffer *buf) {
  if (!buf->map->done) gpu_poll_once(buf->dev, buf->map_future);
  return buf->map->done;
}

/* The map started on buf, waited for unless done (a wait counted in the device's map waits). A wait that timed
 * out keeps the map pending on buf (map_timed_out; the state is ours again: its callback runs only inside a wait
 * for its future, on this thread), for the buffer's next use to wait for (gpu_buffer_map_settle) or its destruction to
 * abort; any other failed wait leaves the map to Dawn: destroy the buffer then. */
wgk_status gpu_buffer_map_finish(gpu_device *dev, gpu_buffer *buf, uint32_t timeout_ms, const char *what,
                                 util_error *err) {
  gpu_async *m = buf->map;
  wgk_status s = WGK_OK;
  if (!m->done) {
    dev->map_waits++;
    s = gpu_await(dev, dev->instance, buf->map_future, m, timeout_ms, what, err);
  } else if (m->status != WGPU_ASYNC_SUCCESS) {
    s = util_error_plain(err, WGK_ERR_GPU, "%s failed: status %u%s%s", what, m->status, m->message[0] ? ": " : "",
                         m->message);
  }
  buf->map_timed_out = s == WGK_ERR_TIMEOUT && !m->done;
  if (buf->map_timed_out) {
    m->orphaned = false;
    return s;
  }
  gpu_async_free(m);
  buf->map = NULL;
  return s;
}

/* A buffer whose map timed out, before it is used again: that map waited for (timeout_ms; WGK_ERR_TIMEOUT again
 * while the GPU still writes the buffer, which then stays as it is), the buffer unmapped. Anything else: WGK_OK. */
wgk_status gpu_buffer_map_settle(gpu_device *dev, gpu_buffer *buf, uint32_t timeout_ms, const char *what,
                                 util_error *err) {
  if (!buf->map || !buf->map_timed_out) return WGK_OK;
  wgk_status s = gpu_buffer_map_finish(dev, buf, timeout_ms, what, err);
  if (s == WGK_ERR_TIMEOUT && buf->map_timed_out) return s;
  wgpuBufferUnmap(buf->buffer); /* mapped (a success) or not (a failed map): either way unmapped now */
  return s;
}

/* A map started and never waited for (a staging buffer leaving the pool): aborted by the unmap; its callback runs
 * in the zero-timeout wait, or later on its own (the state is orphaned then). */
static void map_abort(gpu_buffer *buf) {
  wgpuBufferUnmap(buf->buffer);
  gpu_poll_once(buf->dev, buf->map_future);
  if (!buf->map->done) buf->map->orphaned = true;
  gpu_async_free(buf->map);
  buf->map = NULL;
  buf->map_timed_out = false;
}

uint64_t gpu_device_map_waits(const gpu_device *dev) { return dev->map_waits; }
uint64_t gpu_device_staging_bytes(const gpu_device *dev) { return dev->staging_bytes; }
uint64_t gpu_device_submits(const gpu_device *dev) { return dev->submits; }
