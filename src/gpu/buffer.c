/* Buffers: creation with the limit checked before Dawn sees it, queue writes, synchronous read-back. */
#include "gpu/gpu_internal.h"

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
  if (!buf) return util_error_in(err, WGK_ERR_OUT_OF_MEMORY, NULL, label, "out of memory");
  WGPUBufferDescriptor desc = {NULL, gpu_sv(label), to_wgpu_usage(usage), size, mapped};
  gpu_scope_push(dev);
  buf->buffer = wgpuDeviceCreateBuffer(dev->device, &desc);
  char what[96];
  snprintf(what, sizeof what, "creating buffer '%s' of %llu bytes", label ? label : "", (unsigned long long)size);
  wgk_status s = gpu_scope_pop(dev, what, err);
  if (s == WGK_OK && !buf->buffer) s = util_error_plain(err, WGK_ERR_GPU, "%s failed", what);
  buf->dev = dev;
  buf->size = size;
  buf->usage = usage;
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
  if (!buf) return util_error_plain(err, WGK_ERR_OUT_OF_MEMORY, "out of memory");
  wgpuBufferAddRef(raw);
  *buf = (gpu_buffer){dev, raw, size, 0, true};
  *out = buf;
  return WGK_OK;
}

void gpu_buffer_destroy(gpu_buffer *buf) {
  if (!buf) return;
  if (buf->buffer) {
    /* Release only: work recorded or submitted earlier may still use the buffer (a batch not yet
     * submitted, a queue still running); Dawn frees the memory when the last such use is done. */
    wgpuBufferRelease(buf->buffer);
  }
  free(buf);
}

uint64_t gpu_buffer_size(const gpu_buffer *buf) { return buf->size; }
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

wgk_status gpu_buffer_write(gpu_device *dev, gpu_buffer *buf, uint64_t offset, const void *data, size_t size,
                            util_error *err) {
  wgk_status s0;
  if ((s0 = gpu_device_check(dev, err)) || (s0 = gpu_buffer_check_range(buf, offset, size, "buffer write", err)))
    return s0;
  if (size) wgpuQueueWriteBuffer(dev->queue, buf->buffer, offset, data, size);
  return gpu_device_check(dev, err);
}

typedef struct map_state {
  gpu_async async;
} map_state;

static void on_map(uint32_t status, WGPUStringView message, void *u1, void *u2) {
  if (gpu_async_orphaned(u1)) return;
  map_state *m = u1;
  m->async.done = true;
  m->async.status = status;
  gpu_sv_copy(m->async.message, sizeof m->async.message, message);
}

wgk_status gpu_buffer_map_read(gpu_device *dev, gpu_buffer *buf, uint64_t offset, void *out, size_t size,
                               uint32_t timeout_ms, const char *what, util_error *err) {
  map_state *m = gpu_async_new(sizeof *m);
  if (!m) return util_error_plain(err, WGK_ERR_OUT_OF_MEMORY, "out of memory");
  WGPUBufferMapCallbackInfo cb = {NULL, WGPUCallbackMode_WaitAnyOnly, on_map, m, NULL};
  WGPUFuture f = wgpuBufferMapAsync(buf->buffer, WGPUMapMode_Read, (size_t)offset, size, cb);
  wgk_status s = gpu_await(dev, dev->instance, f, &m->async, timeout_ms, what, err);
  gpu_async_free(&m->async);
  if (s != WGK_OK) return s;
  const void *p = wgpuBufferGetConstMappedRange(buf->buffer, (size_t)offset, size);
  if (p) memcpy(out, p, size);
  wgpuBufferUnmap(buf->buffer);
  if (!p) return util_error_plain(err, WGK_ERR_GPU, "%s: the mapped range is not accessible", what);
  return WGK_OK;
}

static wgk_status map_write(gpu_device *dev, gpu_buffer *buf, size_t size, void **data, uint32_t timeout_ms,
                            util_error *err) {
  map_state *m = gpu_async_new(sizeof *m);
  if (!m) return util_error_plain(err, WGK_ERR_OUT_OF_MEMORY, "out of memory");
  WGPUBufferMapCallbackInfo cb = {NULL, WGPUCallbackMode_WaitAnyOnly, on_map, m, NULL};
  WGPUFuture f = wgpuBufferMapAsync(buf->buffer, WGPUMapMode_Write, 0, size, cb);
  wgk_status s = gpu_await(dev, dev->instance, f, &m->async, timeout_ms, "mapping an upload buffer", err);
  gpu_async_free(&m->async);
  if (s != WGK_OK) return s;
  if (!(*data = wgpuBufferGetMappedRange(buf->buffer, 0, size))) {
    wgpuBufferUnmap(buf->buffer);
    return util_error_plain(err, WGK_ERR_GPU, "mapping an upload buffer: no mapped range");
  }
  return WGK_OK;
}

wgk_status gpu_buffer_upload_pooled(gpu_device *dev, gpu_pool *pool, gpu_buffer *dst, uint64_t offset, size_t size,
                                    void (*fill)(void *data, void *arg), void *arg, uint32_t timeout_ms,
                                    util_error *err) {
  wgk_status s0;
  if ((s0 = gpu_device_check(dev, err)) || (s0 = gpu_buffer_check_range(dst, offset, size, "buffer upload", err)))
    return s0;
  if (size == 0) return WGK_OK;
  const uint32_t usage = WGK_GPU_BUFFER_MAP_WRITE | WGK_GPU_BUFFER_COPY_SRC;
  uint64_t cls = pool ? gpu_pool_size_class(size, dev->desc.limits.maxBufferSize) : size;
  gpu_buffer *staging = gpu_pool_take(pool, cls, usage);
  void *data = NULL;
  wgk_status s = staging ? map_write(dev, staging, (size_t)cls, &data, timeout_ms, err)
                         : gpu_buffer_create_mapped(dev, cls, usage, "wgk upload", &staging, &data, err);
  if (s != WGK_OK) {
    gpu_buffer_destroy(staging);
    return s;
  }
  fill(data, arg);
  wgpuBufferUnmap(staging->buffer);
  gpu_encoder *enc = NULL;
  s = gpu_encoder_begin(dev, "wgk upload", &enc, err);
  if (s == WGK_OK) s = gpu_encoder_copy(enc, staging, 0, dst, offset, size, err);
  if (s == WGK_OK) {
    s = gpu_encoder_submit(enc, err);
    enc = NULL;
  }
  gpu_encoder_discard(enc);
  if (s == WGK_OK)
    gpu_pool_put(pool, staging); /* unmapped; mapped again when taken, after this copy */
  else
    gpu_buffer_destroy(staging);
  return s != WGK_OK ? s : gpu_device_check(dev, err);
}

wgk_status gpu_buffer_read_pooled(gpu_device *dev, gpu_pool *pool, gpu_buffer *buf, uint64_t offset, void *out,
                                  size_t size, uint32_t timeout_ms, util_error *err) {
  wgk_status s0;
  if ((s0 = gpu_device_check(dev, err)) || (s0 = gpu_buffer_check_range(buf, offset, size, "buffer read", err)))
    return s0;
  if (size == 0) return WGK_OK;
  if (buf->usage & WGK_GPU_BUFFER_MAP_READ)
    return gpu_buffer_map_read(dev, buf, offset, out, size, timeout_ms, "mapping a buffer for reading", err);
  const uint32_t usage = WGK_GPU_BUFFER_MAP_READ | WGK_GPU_BUFFER_COPY_DST;
  uint64_t cls = pool ? gpu_pool_size_class(size, dev->desc.limits.maxBufferSize) : size;
  gpu_buffer *staging = gpu_pool_take(pool, cls, usage);
  gpu_encoder *enc = NULL;
  wgk_status s = staging ? WGK_OK : gpu_buffer_create(dev, cls, usage, "wgk readback", &staging, err);
  if (s == WGK_OK) s = gpu_encoder_begin(dev, "wgk readback", &enc, err);
  if (s == WGK_OK) s = gpu_encoder_copy(enc, buf, offset, staging, 0, size, err);
  if (s == WGK_OK) {
    s = gpu_encoder_submit(enc, err);
    enc = NULL;
  }
  if (s == WGK_OK) s = gpu_buffer_map_read(dev, staging, 0, out, size, timeout_ms, "reading a buffer back", err);
  gpu_encoder_discard(enc);
  /* back to the pool only when unmapped and idle: a failed map may leave it pending */
  if (s == WGK_OK)
    gpu_pool_put(pool, staging);
  else
    gpu_buffer_destroy(staging);
  return s != WGK_OK ? s : gpu_device_check(dev, err);
}

wgk_status gpu_buffer_read(gpu_device *dev, gpu_buffer *buf, uint64_t offset, void *out, size_t size,
                           uint32_t timeout_ms, util_error *err) {
  return gpu_buffer_read_pooled(dev, NULL, buf, offset, out, size, timeout_ms, err);
}
