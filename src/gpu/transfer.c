/* Transfers between host memory and buffers: queue writes, staged uploads and read-backs in pipelined pieces
 * through pooled staging buffers, an upload's copy deferred to the next submission, a read through a map. */
#include "gpu/gpu_internal.h"
#include "gpu/dawn.h"

#include <stdlib.h>
#include <string.h>

wgk_status gpu_buffer_write(gpu_device *dev, gpu_buffer *buf, uint64_t offset, const void *data, size_t size,
                            util_error *err) {
  wgk_status s0;
  if ((s0 = gpu_device_check(dev, err)) || (s0 = gpu_buffer_check_range(buf, offset, size, "buffer write", err)))
    return s0;
  /* a queue write runs ahead of command buffers not submitted yet: a deferred copy into buf goes first */
  if (gpu_deferred_targets(buf) && (s0 = gpu_deferred_flush(dev, err))) return s0;
  if (size) wgpuQueueWriteBuffer(dev->queue, buf->buffer, offset, data, size);
  return gpu_device_check(dev, err);
}

/* [offset, offset + size) of a MAP_READ buf read through a map: the map started unless one is (a read-back's
 * staging starts its own after its copy), waited for, the range handed to drain(range, at, size, arg), the
 * buffer unmapped. */
static wgk_status map_read_range(gpu_device *dev, gpu_buffer *buf, uint64_t offset, size_t size, gpu_piece_fn drain,
                                 void *arg, size_t at, uint32_t timeout_ms, const char *what, util_error *err) {
  wgk_status s0 = gpu_buffer_map_settle(dev, buf, timeout_ms, what, err); /* an earlier read's map that timed out */
  if (s0 != WGK_OK) return s0;
  if (!buf->map && !gpu_buffer_map_start(buf, WGPUMapMode_Read, offset, size)) return util_error_oom(err, NULL, NULL);
  wgk_status s = gpu_buffer_map_finish(dev, buf, timeout_ms, what, err);
  if (s != WGK_OK) return s;
  const void *p = wgpuBufferGetConstMappedRange(buf->buffer, (size_t)offset, size);
  if (p) drain((void *)p, at, size, arg);
  wgpuBufferUnmap(buf->buffer);
  return p ? WGK_OK : util_error_plain(err, WGK_ERR_GPU, "%s: the mapped range is not accessible", what);
}

typedef struct read_into {
  char *out;
} read_into;

static void drain_copy(void *mapped, size_t off, size_t len, void *arg) {
  memcpy(((read_into *)arg)->out + off, mapped, len);
}

wgk_status gpu_buffer_map_read(gpu_device *dev, gpu_buffer *buf, uint64_t offset, void *out, size_t size,
                               uint32_t timeout_ms, const char *what, util_error *err) {
  read_into r = {out};
  return map_read_range(dev, buf, offset, size, drain_copy, &r, 0, timeout_ms, what, err);
}

/* A transfer in pieces between host memory and a GPU buffer through a ring of staging buffers. */
typedef struct transfer {
  gpu_device *dev;
  gpu_pool *pool;
  gpu_buffer *gpu; /* the buffer uploaded to or read from */
  uint64_t offset; /* of the transfer in gpu */
  size_t size, piece;
  uint64_t cls;   /* staging buffers' size */
  uint32_t usage; /* staging buffers' usage */
  gpu_piece_fn fn;
  void *arg;
  bool defer; /* an upload's copy recorded for the next submission (one piece only) */
  uint32_t timeout_ms;
  util_error *err;
  gpu_buffer *ring[GPU_STAGING_DEPTH]; /* piece i goes through ring[i % depth] */
} transfer;

static size_t piece_len(const transfer *t, size_t i) {
  size_t off = i * t->piece;
  return t->size - off < t->piece ? t->size - off : t->piece;
}

/* One copy between gpu and staging, in a submission of its own. */
static wgk_status copy_submit(transfer *t, gpu_buffer *staging, size_t i, bool upload) {
  gpu_encoder *enc = NULL;
  uint64_t at = t->offset + i * t->piece;
  size_t len = piece_len(t, i);
  wgk_status s = gpu_encoder_begin(t->dev, upload ? "wgk upload" : "wgk readback", &enc, t->err);
  if (s == WGK_OK)
    s = upload ? gpu_encoder_copy(enc, staging, 0, t->gpu, at, len, t->err)
               : gpu_encoder_copy(enc, t->gpu, at, staging, 0, len, t->err);
  if (s == WGK_OK) {
    s = gpu_encoder_submit(enc, t->err);
    enc = NULL;
  }
  gpu_encoder_discard(enc);
  return s;
}

/* The memory of b, a staging buffer for uploads whose map was started (or not: it starts here), once mapped. */
static wgk_status staging_memory(gpu_device *dev, gpu_buffer *b, uint64_t cls, uint32_t timeout_ms, void **data,
                                 util_error *err) {
  if (!b->map && !gpu_buffer_map_start(b, WGPUMapMode_Write, 0, (size_t)cls)) return util_error_oom(err, NULL, NULL);
  wgk_status s = gpu_buffer_map_finish(dev, b, timeout_ms, "mapping an upload buffer", err);
  if (s == WGK_OK && !(*data = wgpuBufferGetMappedRange(b->buffer, 0, (size_t)cls))) {
    wgpuBufferUnmap(b->buffer);
    s = util_error_plain(err, WGK_ERR_GPU, "mapping an upload buffer: no mapped range");
  }
  return s;
}

/* A mapped upload staging buffer of size class cls into *out, and its memory: the pool's unless its copy still
 * runs (then a new one rather than a wait: the pool keeps the oldest), else new, mapped at creation. On failure *out
 * is the pool's buffer (for the caller to destroy) or NULL. */
static wgk_status staging_take(gpu_device *dev, gpu_pool *pool, uint64_t cls, uint32_t timeout_ms, gpu_buffer **out,
                               void **data, util_error *err) {
  uint32_t usage = WGK_GPU_BUFFER_MAP_WRITE | WGK_GPU_BUFFER_COPY_SRC;
  gpu_buffer *b = gpu_pool_take(pool, cls, usage);
  if (b && b->map && !gpu_buffer_map_done(b)) {
    gpu_pool_put(pool, b);
    b = NULL;
  }
  *out = b;
  if (b) return staging_memory(dev, b, cls, timeout_ms, data, err);
  return gpu_buffer_create_mapped(dev, cls, usage, "wgk upload", out, data, err);
}

wgk_status gpu_upload_staging(gpu_device *dev, gpu_pool *pool, size_t size, uint32_t timeout_ms, gpu_buffer **out,
                              void **mapped, util_error *err) {
  uint64_t cls = pool ? gpu_pool_size_class(size, dev->desc.limits.maxBufferSize) : size;
  wgk_status s = gpu_device_check(dev, err);
  if (s == WGK_OK) s = staging_take(dev, pool, cls, timeout_ms, out, mapped, err);
  if (s != WGK_OK) {
    gpu_buffer_destroy(*out);
    *out = NULL;
  }
  return s;
}

/* Upload of piece i: its staging mapped (the ring's, its map started after its last copy, or one taken), filled,
 * copied, and mapped again for its next use. */
static wgk_status upload_piece(transfer *t, size_t i) {
  gpu_buffer **b = &t->ring[i % GPU_STAGING_DEPTH];
  void *data = NULL;
  wgk_status s = *b ? staging_memory(t->dev, *b, t->cls, t->timeout_ms, &data, t->err)
                    : staging_take(t->dev, t->pool, t->cls, t->timeout_ms, b, &data, t->err);
  if (s != WGK_OK) return s;
  t->fn(data, i * t->piece, piece_len(t, i), t->arg);
  wgpuBufferUnmap((*b)->buffer);
  if (t->defer) { /* the staging buffer goes with the copy */
    s = gpu_deferred_copy(t->dev, t->pool, *b, t->gpu, t->offset + i * t->piece, piece_len(t, i), t->err);
    if (s == WGK_OK) *b = NULL;
    return s;
  }
  s = copy_submit(t, *b, i, true);
  if (s == WGK_OK)
    gpu_buffer_map_start(*b, WGPUMapMode_Write, 0, (size_t)t->cls); /* out of memory: mapped when taken */
  return s;
}

wgk_status gpu_readback_staging(gpu_device *dev, gpu_pool *pool, size_t size, uint32_t timeout_ms, gpu_buffer **out,
                                util_error *err) {
  uint32_t usage = WGK_GPU_BUFFER_MAP_READ | WGK_GPU_BUFFER_COPY_DST;
  uint64_t cls = pool ? gpu_pool_size_class(size, dev->desc.limits.maxBufferSize) : size;
  *out = pool ? gpu_pool_take(pool, cls, usage) : NULL;
  if (!*out) return gpu_buffer_create(dev, cls, usage, "wgk readback", out, err);
  /* one a timed-out read left with its copy running: reused once that copy is done, never replaced by another
   * while it runs (a caller retrying after WGK_ERR_TIMEOUT would stack one staging buffer per try) */
  wgk_status s = gpu_buffer_map_settle(dev, *out, timeout_ms, "an earlier read-back that timed out", err);
  if (s == WGK_ERR_TIMEOUT) {
    gpu_pool_put(pool, *out);
    *out = NULL;
  } else if (s != WGK_OK) {
    gpu_buffer_destroy(*out);
    *out = NULL;
  }
  return s;
}

/* Staging buffers of a read-back that timed out go back to pool with their maps pending (marked timed out, so
 * that their next use waits for them); after another failure they are destroyed. */
static void readback_give_back(gpu_pool *pool, gpu_buffer *b, wgk_status s) {
  if (!b) return;
  if (s == WGK_ERR_TIMEOUT && b->map) {
    b->map_timed_out = true;
    gpu_pool_put(pool, b);
  } else {
    gpu_buffer_destroy(b);
  }
}

/* Read-back of piece i, first half: copied into its staging, which starts mapping (done once the copy is). */
static wgk_status read_start(transfer *t, size_t i) {
  gpu_buffer **b = &t->ring[i % GPU_STAGING_DEPTH];
  wgk_status s = WGK_OK;
  if (!*b) s = gpu_readback_staging(t->dev, t->pool, t->piece, t->timeout_ms, b, t->err); /* size class t->cls */
  if (s == WGK_OK) s = copy_submit(t, *b, i, false);
  if (s == WGK_OK && !gpu_buffer_map_start(*b, WGPUMapMode_Read, 0, piece_len(t, i)))
    s = util_error_oom(t->err, NULL, NULL);
  return s;
}

/* Second half: the map waited for, the piece drained, the staging unmapped. */
static wgk_status read_finish(transfer *t, size_t i) {
  return map_read_range(t->dev, t->ring[i % GPU_STAGING_DEPTH], 0, piece_len(t, i), t->fn, t->arg, i * t->piece,
                        t->timeout_ms, "reading a buffer back", t->err);
}

/* The one loop over the pieces: an upload fills and copies piece after piece; a read-back submits the copy of
 * piece i, then drains piece i - 1 while the GPU copies. The staging buffers go back to the pool (uploads' ones
 * mapping again) when every piece went through; after a failure they are destroyed (a map may be pending). */
static wgk_status transfer_pieces(transfer *t, bool upload) {
  size_t n = (t->size + t->piece - 1) / t->piece;
  wgk_status s = WGK_OK;
  for (size_t i = 0; i <= n && s == WGK_OK; i++) {
    if (upload) {
      if (i < n) s = upload_piece(t, i);
      continue;
    }
    if (i < n) s = read_start(t, i);
    if (s == WGK_OK && i > 0) s = read_finish(t, i - 1);
  }
  for (int k = 0; k < GPU_STAGING_DEPTH; k++) {
    if (s == WGK_OK)
      gpu_pool_put(t->pool, t->ring[k]);
    else if (!upload)
      readback_give_back(t->pool, t->ring[k], s);
    else
      gpu_buffer_destroy(t->ring[k]);
  }
  return s != WGK_OK ? s : gpu_device_check(t->dev, t->err);
}

static transfer transfer_of(gpu_device *dev, gpu_pool *pool, gpu_buffer *buf, uint64_t offset, size_t size,
                            size_t piece, uint32_t usage, gpu_piece_fn fn, void *arg, uint32_t timeout_ms,
                            util_error *err) {
  if (piece == 0 || piece > size) piece = size;
  uint64_t cls = pool ? gpu_pool_size_class(piece, dev->desc.limits.maxBufferSize) : piece;
  return (transfer){dev, pool, buf, offset, size, piece, cls, usage, fn, arg, false, timeout_ms, err, {NULL}};
}

wgk_status gpu_buffer_upload_pooled(gpu_device *dev, gpu_pool *pool, gpu_buffer *dst, uint64_t offset, size_t size,
                                    size_t piece, gpu_piece_fn fill, void *arg, bool defer, uint32_t timeout_ms,
                                    util_error *err) {
  wgk_status s0;
  if ((s0 = gpu_device_check(dev, err)) || (s0 = gpu_buffer_check_range(dst, offset, size, "buffer upload", err)))
    return s0;
  if (size == 0) return WGK_OK;
  transfer t = transfer_of(dev, pool, dst, offset, size, piece, WGK_GPU_BUFFER_MAP_WRITE | WGK_GPU_BUFFER_COPY_SRC,
                           fill, arg, timeout_ms, err);
  t.defer = defer && t.piece >= size && !dst->external;
  return transfer_pieces(&t, true);
}

wgk_status gpu_buffer_read_pooled(gpu_device *dev, gpu_pool *pool, gpu_buffer *buf, uint64_t offset, size_t size,
                                  size_t piece, gpu_piece_fn drain, void *arg, uint32_t timeout_ms, util_error *err) {
  wgk_status s0;
  if ((s0 = gpu_device_check(dev, err)) || (s0 = gpu_buffer_check_range(buf, offset, size, "buffer read", err)))
    return s0;
  if (size == 0) return WGK_OK;
  if (buf->usage & WGK_GPU_BUFFER_MAP_READ) /* mapped directly, whole */
    return map_read_range(dev, buf, offset, size, drain, arg, 0, timeout_ms, "mapping a buffer for reading", err);
  transfer t = transfer_of(dev, pool, buf, offset, size, piece, WGK_GPU_BUFFER_MAP_READ | WGK_GPU_BUFFER_COPY_DST,
                           drain, arg, timeout_ms, err);
  return transfer_pieces(&t, false);
}

wgk_status gpu_buffer_read(gpu_device *dev, gpu_buffer *buf, uint64_t offset, void *out, size_t size,
                           uint32_t timeout_ms, util_error *err) {
  read_into r = {out};
  return gpu_buffer_read_pooled(dev, NULL, buf, offset, size, 0, drain_copy, &r, timeout_ms, err);
}

bool gpu_readback_start(gpu_buffer *staging, size_t size) {
  return staging->map || gpu_buffer_map_start(staging, WGPUMapMode_Read, 0, size);
}

wgk_status gpu_readback_finish(gpu_device *dev, gpu_pool *pool, gpu_buffer *staging, size_t size, gpu_piece_fn drain,
                               void *arg, uint32_t timeout_ms, util_error *err) {
  wgk_status s = map_read_range(dev, staging, 0, size, drain, arg, 0, timeout_ms, "reading a call's output back", err);
  if (s == WGK_OK)
    gpu_pool_put(pool, staging);
  else
    readback_give_back(pool, staging, s);
  return s;
}
