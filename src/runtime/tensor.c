/* GPU tensors: logical dtype and shape over a storage-layout buffer, reference counted. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/runtime_internal.h"
#include "util/half.h"
#include "util/workers.h"

static bool is_integer(wgk_dtype d) { return d != WGK_DTYPE_FLOAT32 && d != WGK_DTYPE_FLOAT16; }

/* The element count of a shape, or false with the reason in err naming the values: the rank, a NULL shape, a
 * negative dim, or an element count whose bytes (up to 16 an element) would overflow int64. */
static bool shape_ok(int rank, const int64_t *shape, int64_t *numel, util_error *err, const char *what) {
  if (rank < 0 || rank > WGK_MAX_DIMS) {
    util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "%s: rank %d is outside 0..%d", what, rank, WGK_MAX_DIMS);
    return false;
  }
  if (rank > 0 && !shape) {
    util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "%s: rank %d but the shape is NULL", what, rank);
    return false;
  }
  int64_t n = 1;
  for (int i = 0; i < rank; i++)
    if (shape[i] < 0) {
      util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "%s: dim %d is %lld; dims are >= 0", what, i,
                       (long long)shape[i]);
      return false;
    }
  for (int i = 0; i < rank; i++) {
    if (shape[i] > 0 && n > INT64_MAX / 16 / shape[i]) {
      char dims[WGK_MAX_DIMS * 24 + 4] = "[";
      for (int k = 0; k < rank; k++)
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%lld", k ? ", " : "", (long long)shape[k]);
      strcat(dims, "]");
      util_error_plain(err, WGK_ERR_INVALID_ARGUMENT,
                       "%s: shape %s overflows: its element count is past %lld (the most whose bytes, at up to 16 "
                       "an element, fit in int64)",
                       what, dims, (long long)(INT64_MAX / 16));
      return false;
    }
    n *= shape[i];
  }
  *numel = n;
  return true;
}

static wgk_tensor *alloc_tensor(wgk_context *ctx, wgk_dtype dtype, int rank, const int64_t *shape, int64_t numel) {
  wgk_tensor *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->refs = 1;
  t->ctx = ctx;
  t->dtype = dtype;
  t->storage = dtype;
  t->rank = rank;
  if (rank) memcpy(t->shape, shape, sizeof(int64_t) * (size_t)rank);
  t->numel = numel;
  rt_ctx_retain(ctx);
  return t;
}

#define TENSOR_USAGE (WGK_GPU_BUFFER_STORAGE | WGK_GPU_BUFFER_COPY_SRC | WGK_GPU_BUFFER_COPY_DST)

/* The storage layout is the host layout (float32/16, int32, uint32, int64): the host values can go to the GPU as
 * they are. The others (int8, int16, uint8, bool) widen to a word per element. */
static bool same_layout(wgk_dtype d) {
  return d == WGK_DTYPE_FLOAT32 || d == WGK_DTYPE_FLOAT16 || d == WGK_DTYPE_INT32 || d == WGK_DTYPE_UINT32 ||
         d == WGK_DTYPE_INT64;
}

/* Host values in the storage layout into dst, which holds bytes (the tail past the values zeroed). */
static void to_storage_padded(wgk_dtype dtype, const void *data, int64_t numel, void *dst, size_t bytes) {
  size_t used = (size_t)numel * (same_layout(dtype) ? wgk_dtype_size(dtype) : 4);
  rt_to_storage(dtype, data, numel, dst);
  if (used < bytes) memset((char *)dst + used, 0, bytes - used);
}

/* ---- staged transfers: pieces, and the host side of big pieces on several threads ---- */

typedef void (*span_fn)(int64_t first, int64_t end, void *arg);

typedef struct spans {
  span_fn fn;
  void *arg;
  int64_t first, count;
  int n;
} spans;

static void span_task(int k, void *p) {
  const spans *s = p;
  s->fn(s->first + s->count * k / s->n, s->first + s->count * (k + 1) / s->n, s->arg);
}

/* fn over elements [first, end) (bytes of host work in all): on the calling thread, or from two spans (the context's
 * host span, WGK_HOST_SPAN) split in equal parts of a span or more, one per core up to 64, taken by the pool's
 * threads (WGK_HOST_THREADS) and the caller. The threads wait between calls, so a split pays a wake-up, not a
 * thread start (which made splitting a 1 MiB fill slower than doing it on one thread). */
static void parallel_spans(struct util_workers *workers, size_t span, int64_t first, int64_t end, size_t bytes,
                           span_fn fn, void *arg, void (*meanwhile)(void *), void *marg) {
  long cores = workers && bytes >= 2 * span ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
  int n = (int)(cores < 64 ? (cores > 1 ? cores : 1) : 64);
  if ((size_t)n > bytes / span) n = bytes / span > 1 ? (int)(bytes / span) : 1;
  if (n > end - first) n = end - first > 1 ? (int)(end - first) : 1;
  spans s = {fn, arg, first, end - first, n};
  /* meanwhile only beside threads that fill: run alone first it would only split a submission in two */
  util_workers_run_meanwhile(n > 1 ? workers : NULL, n, span_task, &s, n > 1 ? meanwhile : NULL, marg);
}

/* Bytes of one piece of a staged transfer of a tensor's buffer: ctx->staged_chunk (a multiple of 8, so that no
 * element of any storage layout straddles two pieces), or the whole buffer when the chunk is unset. */
static size_t piece_bytes(const wgk_context *ctx, size_t bytes) {
  return ctx->staged_chunk >= 64 ? (size_t)ctx->staged_chunk & ~(size_t)7 : bytes;
}

/* The host values of a transfer, its direction, and the piece at hand. */
typedef struct piece_args {
  bool upload;       /* host values to storage (else storage to host values) */
  wgk_dtype dtype;   /* host */
  wgk_dtype storage; /* on the GPU */
  const void *in;    /* upload: host values */
  void *out;         /* read-back: host values */
  int64_t numel;
  char *mapped;                 /* the piece's staging memory */
  int64_t first;                /* the piece's first element */
  struct util_workers *workers; /* threads for large pieces (the context's) */
  /* An upload's deferred copies (earlier uploads') submitted by the calling thread while the threads fill its first
   * piece, so their transfer overlaps the fill (submit_deferred); NULL: none. */
  void (*meanwhile)(void *);
  wgk_context *ctx;
  wgk_status meanwhile_status;
} piece_args;

static size_t storage_size(wgk_dtype dtype, wgk_dtype storage) {
  return dtype == storage && same_layout(dtype) ? wgk_dtype_size(dtype) : 4;
}

/* Elements [first, end) of the piece, converted in the transfer's direction. */
static void convert_span(int64_t first, int64_t end, void *arg) {
  const piece_args *a = arg;
  size_t es = storage_size(a->dtype, a->storage), hs = wgk_dtype_size(a->dtype);
  char *stored = a->mapped + (size_t)(first - a->first) * es;
  if (a->upload)
    rt_to_storage(a->dtype, (const char *)a->in + (size_t)first * hs, end - first, stored);
  else
    rt_from_stored(a->dtype, a->storage, stored, end - first, (char *)a->out + (size_t)first * hs);
}

/* The piece of storage bytes [off, off + len): the elements in it (past the last element: none) converted, on
 * several threads when large. An upload zeroes the tail past the values; a read-back drops that padding. */
static void transfer_piece(void *mapped, size_t off, size_t len, void *arg) {
  piece_args *a = arg;
  size_t es = storage_size(a->dtype, a->storage);
  int64_t first = (int64_t)(off / es), end = (int64_t)((off + len) / es);
  if (end > a->numel) end = a->numel;
  if (first > end) first = end;
  a->mapped = mapped;
  a->first = first;
  size_t used = (size_t)(end - first) * es;
  void (*meanwhile)(void *) = a->meanwhile;
  a->meanwhile = NULL; /* once */
  parallel_spans(a->workers, (size_t)a->ctx->host_span, first, end, used, convert_span, a, meanwhile, a);
  if (a->upload && used < len) memset((char *)mapped + used, 0, len - used);
}

static void submit_deferred(void *arg) {
  piece_args *a = arg;
  a->meanwhile_status = gpu_deferred_flush(a->ctx->dev, &a->ctx->err);
}

/* A staged upload in pieces (piece_bytes): one staging size class however large the tensor, the pieces
 * pipelined (gpu_buffer_upload_pooled); one piece's copy deferred to the next submission where `defer`. Copies
 * deferred by earlier uploads are submitted while this one's first piece is filled on the context's threads
 * (ctx->submit_during_fill): the copy of the first of two caches runs on the GPU while the second is filled. */
static wgk_status upload_staged(wgk_context *ctx, gpu_buffer *buf, wgk_dtype dtype, const void *data, int64_t numel,
                                size_t bytes, bool defer) {
  piece_args a = {true, dtype, dtype, data, NULL, numel, NULL, 0, ctx->workers, NULL, ctx, WGK_OK};
  if (ctx->submit_during_fill && ctx->workers) a.meanwhile = submit_deferred;
  wgk_status st = gpu_buffer_upload_pooled(ctx->dev, &ctx->pool, buf, 0, bytes, piece_bytes(ctx, bytes), transfer_piece,
                                           &a, defer && ctx->defer_uploads, ctx->wait_ms, &ctx->err);
  return st != WGK_OK ? st : a.meanwhile_status;
}

/* Writes the host values into buf ([0, bytes), tail zeroed): staged when large (and staging is on), else with
 * queue writes (no wait for the GPU), straight from data when the layout is the host's (no host copy), else
 * through one converted copy. defer: buf is used only by this context's submissions (not handed to the caller),
 * so a staged upload's copy may ride with the next one (where the context defers uploads). */
static wgk_status write_values(wgk_context *ctx, gpu_buffer *buf, wgk_dtype dtype, const void *data, int64_t numel,
                               size_t bytes, bool defer) {
  size_t host = (size_t)numel * wgk_dtype_size(dtype);
  if (ctx->staged_upload && bytes > ctx->queue_write_max &&
      ctx->pool.max_bytes) /* converted straight into mapped staging */
    return upload_staged(ctx, buf, dtype, data, numel, bytes, defer);
  if (same_layout(dtype) && bytes - (host & ~(size_t)3) <= 4) {
    size_t whole = host & ~(size_t)3;
    wgk_status st = gpu_buffer_write(ctx->dev, buf, 0, data, whole, &ctx->err);
    if (st == WGK_OK && bytes > whole) { /* the last partial word, or the 4 bytes of an empty tensor, zero-padded */
      uint8_t tail[4] = {0};
      memcpy(tail, (const char *)data + whole, host - whole);
      st = gpu_buffer_write(ctx->dev, buf, whole, tail, 4, &ctx->err);
    }
    return st;
  }
  void *storage = malloc(bytes);
  if (!storage) return util_error_oom(&ctx->err, NULL, "tensor");
  to_storage_padded(dtype, data, numel, storage, bytes);
  wgk_status st = gpu_buffer_write(ctx->dev, buf, 0, storage, bytes, &ctx->err);
  free(storage);
  return st;
}

/* A buffer holding the host values: a pooled one of the same size (every byte is written before any GPU work
 * reads it, so nothing of its last owner shows), else a new one mapped at creation and filled in place (no
 * queue-write copy, no lazy clear by Dawn). */
static wgk_status filled_buffer(wgk_context *ctx, wgk_dtype dtype, const void *data, int64_t numel, size_t bytes,
                                gpu_buffer **out) {
  gpu_buffer *b = gpu_pool_take(&ctx->pool, bytes, TENSOR_USAGE);
  if (b) {
    wgk_status st = write_values(ctx, b, dtype, data, numel, bytes, true);
    if (st != WGK_OK) {
      gpu_buffer_destroy(b);
      return st;
    }
    *out = b;
    return WGK_OK;
  }
  void *mapped = NULL;
  wgk_status st = gpu_buffer_create_mapped(ctx->dev, bytes, TENSOR_USAGE, "wgk tensor", &b, &mapped, &ctx->err);
  if (st != WGK_OK) return st;
  to_storage_padded(dtype, data, numel, mapped, bytes);
  gpu_buffer_unmap(b);
  *out = b;
  return WGK_OK;
}

static wgk_status tensor_make(wgk_context *ctx, wgk_dtype dtype, wgk_dtype storage, int rank, const int64_t *shape,
                              const void *data, bool pooled, wgk_tensor **out) {
  *out = NULL;
  int64_t numel;
  if (wgk_dtype_size(dtype) == 0)
    return util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "tensor: invalid dtype %d", (int)dtype);
  if (!shape_ok(rank, shape, &numel, &ctx->err, "tensor")) return ctx->err.status;
  wgk_tensor *t = alloc_tensor(ctx, dtype, rank, shape, numel);
  if (!t) return util_error_oom(&ctx->err, NULL, "tensor");
  t->storage = storage;
  t->buf_bytes = rt_storage_bytes(storage, numel);
  wgk_status st = WGK_OK;
  if (data)
    st = filled_buffer(ctx, dtype, data, numel, t->buf_bytes, &t->buf);
  else if (pooled && (t->buf = gpu_pool_take(&ctx->pool, t->buf_bytes, TENSOR_USAGE)))
    t->clear_pending = true;
  else
    st = gpu_buffer_create(ctx->dev, t->buf_bytes, TENSOR_USAGE, "wgk tensor", &t->buf, &ctx->err);
  if (st != WGK_OK) {
    wgk_tensor_release(t);
    return st;
  }
  *out = t;
  return WGK_OK;
}

wgk_status rt_tensor_new_stored(wgk_context *ctx, wgk_dtype dtype, wgk_dtype storage, int rank, const int64_t *shape,
                                wgk_tensor **out) {
  return tensor_make(ctx, dtype, storage, rank, shape, NULL, false, out);
}

wgk_status rt_tensor_new_output(wgk_context *ctx, wgk_dtype dtype, wgk_dtype storage, int rank, const int64_t *shape,
                                wgk_tensor **out) {
  return tensor_make(ctx, dtype, storage, rank, shape, NULL, true, out);
}

wgk_status rt_tensor_new(wgk_context *ctx, wgk_dtype dtype, int rank, const int64_t *shape, wgk_tensor **out) {
  return rt_tensor_new_stored(ctx, dtype, dtype, rank, shape, out);
}

/* The host copy of a small integer tensor, for checks that need its values (absorbed when out of memory: the
 * checks read back instead). */
static void keep_host_copy(wgk_tensor *t, const void *data) {
  size_t host_bytes = (size_t)t->numel * wgk_dtype_size(t->dtype);
  if (is_integer(t->dtype) && host_bytes <= WGK_HOST_SHADOW_MAX) {
    if (!t->host) t->host = malloc(host_bytes ? host_bytes : 1);
    if (t->host) {
      memcpy(t->host, data, host_bytes);
      t->host_valid = true;
    }
  } else {
    t->host_valid = false;
  }
  t->narrow_valid = false;
}

static wgk_status upload(wgk_tensor *t, const void *data) {
  wgk_context *ctx = t->ctx;
  size_t bytes = rt_storage_bytes(t->dtype, t->numel);
  if (t->storage != t->dtype) { /* int64 held as 32-bit words: back to 64 bits, in a larger buffer if need be */
    if (t->buf_bytes < bytes) {
      gpu_buffer *grown = NULL;
      wgk_status st = gpu_buffer_create(ctx->dev, bytes, TENSOR_USAGE, "wgk tensor", &grown, &ctx->err);
      if (st != WGK_OK) return st;
      rt_buffer_release(ctx, t->buf);
      t->buf = grown;
      t->buf_bytes = bytes;
    }
    t->storage = t->dtype;
  }
  wgk_status st = write_values(ctx, t->buf, t->dtype, data, t->numel, bytes, !t->external);
  if (st != WGK_OK) return st;
  keep_host_copy(t, data);
  return WGK_OK;
}

wgk_status rt_tensor_upload(wgk_tensor *t, const void *data) { return upload(t, data); }

wgk_status rt_tensor_new_input(wgk_context *ctx, wgk_dtype dtype, int rank, const int64_t *shape, wgk_tensor **out) {
  wgk_status st = tensor_make(ctx, dtype, dtype, rank, shape, NULL, true, out);
  if (st == WGK_OK) (*out)->clear_pending = false; /* every byte is written before the call reads it */
  return st;
}

bool rt_tensor_stages_whole(const wgk_tensor *t) {
  const wgk_context *ctx = t->ctx;
  return !is_integer(t->dtype) && t->storage == t->dtype && ctx->staged_upload && ctx->pool.max_bytes &&
         t->buf_bytes > ctx->queue_write_max && t->buf_bytes <= piece_bytes(ctx, t->buf_bytes);
}

void rt_tensor_stage_span(const wgk_tensor *t, const void *data, void *mapped, int64_t first, int64_t end) {
  piece_args a = {
      .upload = true, .dtype = t->dtype, .storage = t->storage, .in = data, .numel = t->numel, .mapped = mapped};
  convert_span(first, end, &a);
  size_t used = (size_t)t->numel * storage_size(t->dtype, t->storage);
  if (end == t->numel && used < t->buf_bytes) memset((char *)mapped + used, 0, t->buf_bytes - used);
}

wgk_status wgk_tensor_create(wgk_context *ctx, wgk_dtype dtype, int rank, const int64_t *shape, const void *data,
                             wgk_tensor **out) {
  if (out) *out = NULL;
  if (!ctx) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(ctx);
  rt_clear(ctx);
  wgk_status st = out ? tensor_make(ctx, dtype, dtype, rank, shape, data, false, out)
                      : util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "tensor create: out is NULL");
  if (st == WGK_OK && data) keep_host_copy(*out, data);
  rt_unlock(ctx);
  return st;
}

wgk_status wgk_tensor_create_f16_from_f32(wgk_context *ctx, int rank, const int64_t *shape, const float *data,
                                          wgk_tensor **out) {
  if (out) *out = NULL;
  if (!ctx) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(ctx);
  rt_clear(ctx);
  int64_t numel;
  uint16_t *half = NULL;
  wgk_status st = WGK_OK;
  if (!out || !data)
    st = util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "tensor create_f16_from_f32: %s is NULL",
                          out ? "data" : "out");
  else if (!shape_ok(rank, shape, &numel, &ctx->err, "tensor create_f16_from_f32"))
    st = ctx->err.status;
  else if (!(half = malloc((size_t)(numel ? numel : 1) * sizeof *half)))
    st = util_error_oom(&ctx->err, NULL, "tensor");
  if (st == WGK_OK) {
    for (int64_t i = 0; i < numel; i++) half[i] = util_half_from_float(data[i]);
    st = wgk_tensor_create(ctx, WGK_DTYPE_FLOAT16, rank, shape, half, out);
  }
  free(half);
  rt_unlock(ctx);
  return st;
}

wgk_status wgk_tensor_wrap(wgk_context *ctx, wgk_dtype dtype, int rank, const int64_t *shape, void *wgpu_buffer,
                           wgk_tensor **out) {
  if (out) *out = NULL;
  if (!ctx) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(ctx);
  rt_clear(ctx);
  int64_t numel;
  wgk_tensor *t = NULL;
  wgk_status st = WGK_OK;
  if (!out || !wgpu_buffer)
    st = util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "tensor wrap: %s is NULL",
                          out ? "the WGPUBuffer" : "out");
  else if (wgk_dtype_size(dtype) == 0)
    st = util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "tensor wrap: invalid dtype %d", (int)dtype);
  else if (!shape_ok(rank, shape, &numel, &ctx->err, "tensor wrap"))
    st = ctx->err.status;
  else if (!(t = alloc_tensor(ctx, dtype, rank, shape, numel)))
    st = util_error_oom(&ctx->err, NULL, "tensor");
  if (st == WGK_OK) {
    t->external = true;
    t->buf_bytes = rt_storage_bytes(dtype, numel);
    st = gpu_buffer_wrap(ctx->dev, (WGPUBuffer)wgpu_buffer, t->buf_bytes, &t->buf, &ctx->err);
    if (st != WGK_OK) {
      wgk_tensor_release(t);
      t = NULL;
    }
  }
  if (out) *out = t;
  rt_unlock(ctx);
  return st;
}

wgk_tensor *wgk_tensor_retain(wgk_tensor *t) {
  if (!t) return NULL;
  rt_lock(t->ctx);
  t->refs++;
  rt_unlock(t->ctx);
  return t;
}

void wgk_tensor_release(wgk_tensor *t) {
  if (!t) return;
  wgk_context *ctx = t->ctx;
  rt_lock(ctx);
  bool last = --t->refs == 0;
  if (last) {
    if (t->external) { /* the caller may still hold the WGPUBuffer and write it: never reused */
      gpu_buffer_destroy(t->buf);
      gpu_buffer_destroy(t->narrow);
    } else {
      rt_buffer_release(ctx, t->buf);
      rt_buffer_release(ctx, t->narrow);
    }
    free(t->host);
    free(t);
  }
  rt_unlock(ctx);
  if (last) rt_ctx_release(ctx);
}

wgk_dtype wgk_tensor_dtype(const wgk_tensor *t) { return t ? t->dtype : WGK_DTYPE_INVALID; }
int wgk_tensor_rank(const wgk_tensor *t) { return t ? t->rank : 0; }
const int64_t *wgk_tensor_shape(const wgk_tensor *t) { return t ? t->shape : NULL; }
int64_t wgk_tensor_numel(const wgk_tensor *t) { return t ? t->numel : 0; }
size_t wgk_tensor_host_bytes(const wgk_tensor *t) { return t ? (size_t)t->numel * wgk_dtype_size(t->dtype) : 0; }

/* The caller may now write the buffer (wgpuQueueWriteBuffer, its own passes): the host copy is no longer known to
 * be current, so data checks read the buffer back from here on. */
void *wgk_tensor_wgpu_buffer(const wgk_tensor *t) {
  if (!t) return NULL;
  wgk_tensor *m = (wgk_tensor *)t;
  rt_lock(m->ctx);
  m->external = true;
  /* the caller's own submissions may read it: an upload copy still waiting for ours is submitted now */
  gpu_deferred_flush(m->ctx->dev, &m->ctx->err); /* a failure stays the context's error */
  void *raw = (void *)gpu_buffer_raw(m->buf);
  rt_unlock(m->ctx);
  return raw;
}

static wgk_status read_locked(wgk_tensor *t, void *out, size_t size) {
  wgk_context *ctx = t->ctx;
  size_t need = wgk_tensor_host_bytes(t);
  if (!out) return util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "tensor read: out is NULL");
  if (size < need)
    return util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "tensor read: %zu bytes given, %zu needed", size,
                            need);
  if (rt_batch_unsubmitted(ctx, t->pending_serial))
    return util_error_plain(
        &ctx->err, WGK_ERR_CALL,
        "tensor read: the tensor is written by a call added to a batch that is not submitted yet, so it "
        "holds no values of that call: call wgk_batch_submit first");
  /* straight into out, converted piece by piece (the padding past the values dropped) */
  size_t bytes = rt_storage_bytes(t->storage, t->numel);
  if (t->numel == 0) return WGK_OK;
  piece_args a = {false, t->dtype, t->storage, NULL, out, t->numel, NULL, 0, ctx->workers, NULL, ctx, WGK_OK};
  wgk_status st = gpu_buffer_read_pooled(ctx->dev, &ctx->pool, t->buf, 0, bytes, piece_bytes(ctx, bytes),
                                         transfer_piece, &a, ctx->wait_ms, &ctx->err);
  return st;
}

wgk_status rt_tensor_read(wgk_tensor *t, void *out, size_t size) { return read_locked(t, out, size); }

wgk_status rt_tensor_read_staging(wgk_tensor *t, gpu_buffer **staging) {
  *staging = NULL;
  size_t bytes = rt_storage_bytes(t->storage, t->numel);
  if (t->numel == 0 || piece_bytes(t->ctx, bytes) < bytes) return WGK_OK;
  wgk_status st = gpu_readback_staging(t->ctx->dev, &t->ctx->pool, bytes, t->ctx->wait_ms, staging, &t->ctx->err);
  return st;
}

wgk_status rt_tensor_read_record(wgk_tensor *t, gpu_encoder *enc, gpu_buffer **staging) {
  size_t bytes = rt_storage_bytes(t->storage, t->numel);
  if (piece_bytes(t->ctx, bytes) < bytes || gpu_buffer_size(*staging) < bytes) {
    /* the committed layout is another than the staged one (an in/out port's written copy became its buffer) and
     * does not fit: read after the submission instead */
    gpu_pool_put(&t->ctx->pool, *staging);
    *staging = NULL;
    return WGK_OK;
  }
  wgk_status st = gpu_encoder_copy(enc, t->buf, 0, *staging, 0, bytes, &t->ctx->err);
  return st;
}

void rt_tensor_read_start(const wgk_tensor *t, gpu_buffer *staging) {
  gpu_readback_start(staging, rt_storage_bytes(t->storage, t->numel)); /* out of memory: finish starts it */
}

wgk_status rt_tensor_read_finish(wgk_tensor *t, gpu_buffer *staging, void *out) {
  wgk_context *ctx = t->ctx;
  piece_args a = {false, t->dtype, t->storage, NULL, out, t->numel, NULL, 0, ctx->workers, NULL, ctx, WGK_OK};
  wgk_status st = gpu_readback_finish(ctx->dev, &ctx->pool, staging, rt_storage_bytes(t->storage, t->numel),
                                      transfer_piece, &a, ctx->wait_ms, &ctx->err);
  return st;
}

wgk_status wgk_tensor_read(wgk_tensor *t, void *out, size_t size) {
  if (!t) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(t->ctx);
  rt_clear(t->ctx);
  wgk_status st = read_locked(t, out, size);
  rt_unlock(t->ctx);
  return st;
}

static wgk_status read_f32_locked(wgk_tensor *t, float *out, size_t count) {
  if (!out) return util_error_plain(&t->ctx->err, WGK_ERR_INVALID_ARGUMENT, "tensor read_f32: out is NULL");
  if (t->dtype == WGK_DTYPE_FLOAT32) {
    if (count > SIZE_MAX / sizeof(float)) count = SIZE_MAX / sizeof(float);
    return read_locked(t, out, count * sizeof(float));
  }
  if (t->dtype != WGK_DTYPE_FLOAT16)
    return util_error_plain(&t->ctx->err, WGK_ERR_INVALID_ARGUMENT, "tensor read_f32: dtype %s is not a float",
                            wgk_dtype_name(t->dtype));
  if (count < (size_t)t->numel)
    return util_error_plain(&t->ctx->err, WGK_ERR_INVALID_ARGUMENT, "tensor read_f32: %zu values given, %lld needed",
                            count, (long long)t->numel);
  uint16_t *half = malloc((size_t)(t->numel ? t->numel : 1) * 2);
  if (!half) return util_error_oom(&t->ctx->err, NULL, "tensor read_f32");
  wgk_status st = read_locked(t, half, (size_t)t->numel * 2);
  for (int64_t i = 0; st == WGK_OK && i < t->numel; i++) out[i] = util_half_to_float(half[i]);
  free(half);
  return st;
}

wgk_status wgk_tensor_read_f32(wgk_tensor *t, float *out, size_t count) {
  if (!t) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(t->ctx);
  rt_clear(t->ctx);
  wgk_status st = read_f32_locked(t, out, count);
  rt_unlock(t->ctx);
  return st;
}

wgk_status wgk_tensor_write(wgk_tensor *t, const void *data, size_t size) {
  if (!t) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(t->ctx);
  rt_clear(t->ctx);
  wgk_status st;
  if (!data)
    st = util_error_plain(&t->ctx->err, WGK_ERR_INVALID_ARGUMENT, "tensor write: data is NULL");
  else if (size != wgk_tensor_host_bytes(t))
    st = util_error_plain(&t->ctx->err, WGK_ERR_INVALID_ARGUMENT, "tensor write: %zu bytes given, the tensor holds %zu",
                          size, wgk_tensor_host_bytes(t));
  else
    st = upload(t, data);
  rt_unlock(t->ctx);
  return st;
}

wgk_status rt_tensor_host(wgk_tensor *t, const char *what, const void **out) {
  *out = NULL;
  wgk_context *ctx = t->ctx;
  if (ctx->recording_serial && t->pending_serial == ctx->recording_serial)
    return util_error_plain(
        &ctx->err, WGK_ERR_CALL,
        "port %s: its values are written by an earlier call of this batch, which is not submitted yet, "
        "and a check of this call needs them: submit the batch before adding this call",
        what);
  if (t->host && t->host_valid && !t->external) {
    *out = t->host;
    return WGK_OK;
  }
  size_t bytes = wgk_tensor_host_bytes(t);
  if (!t->host) t->host = malloc(bytes ? bytes : 1);
  if (!t->host) return util_error_oom(&ctx->err, NULL, what);
  wgk_status st = read_locked(t, t->host, bytes);
  if (st != WGK_OK) return st;
  t->host_valid = true;
  *out = t->host;
  return WGK_OK;
}

/* A tensor in the layout a port needs, as the public loader uploads host data: int64 narrowed to a 32-bit
 * projection (checked: a value out of range refuses the call with the loader's message; saturating: clamped),
 * int64 held as 32-bit words widened back to 64 bits, uint8 packed four per word (byte i in bits 8*(i%4) of
 * word i/4). Made from the host values, before anything is dispatched. */
enum { ALT_NONE, ALT_U32_CHECKED, ALT_I32_CHECKED, ALT_U32_SATURATING, ALT_I32_SATURATING, ALT_INT64, ALT_PACKED };

static int alt_kind(const wgk_tensor *t, const manifest_port *port) {
  if (!port) return ALT_NONE;
  if (port->packed && t->dtype == WGK_DTYPE_UINT8) return ALT_PACKED;
  if (t->dtype != WGK_DTYPE_INT64) return ALT_NONE;
  wgk_dtype want = rt_port_storage(port, t->dtype);
  if (want == t->storage) return ALT_NONE;
  if (want == WGK_DTYPE_INT64) return ALT_INT64;
  bool sat = port->narrowing == WGK_NARROW_SATURATING;
  return want == WGK_DTYPE_UINT32 ? (sat ? ALT_U32_SATURATING : ALT_U32_CHECKED)
                                  : (sat ? ALT_I32_SATURATING : ALT_I32_CHECKED);
}

static size_t alt_bytes(int kind, int64_t numel) {
  return kind == ALT_PACKED  ? rt_storage_bytes(WGK_DTYPE_UINT32, (numel + 3) / 4)
         : kind == ALT_INT64 ? rt_storage_bytes(WGK_DTYPE_INT64, numel)
                             : rt_storage_bytes(WGK_DTYPE_UINT32, numel);
}

static wgk_status narrow_values(wgk_tensor *t, const manifest_port *port, const char *source, int kind,
                                const int64_t *src, uint32_t *dst) {
  bool u32 = kind == ALT_U32_CHECKED || kind == ALT_U32_SATURATING;
  bool checked = kind == ALT_U32_CHECKED || kind == ALT_I32_CHECKED;
  int64_t lo = u32 ? 0 : INT32_MIN, hi = u32 ? (int64_t)UINT32_MAX : INT32_MAX;
  for (int64_t i = 0; i < t->numel; i++) {
    int64_t v = src[i];
    if ((v < lo || v > hi) && checked) {
      util_error_value(
          &t->ctx->err, WGK_ERR_CALL, source, port->pos,
          "input \"%s\": int64 value at index %lld (%lld) is outside the %s WebGPU storage range (narrowing: "
          "checked; the range is [%lld, %lld])",
          port->name, (long long)i, (long long)v, u32 ? "uint32" : "int32", (long long)lo, (long long)hi);
      return t->ctx->err.status;
    }
    v = v < lo ? lo : v > hi ? hi : v;
    dst[i] = u32 ? (uint32_t)v : (uint32_t)(int32_t)v;
  }
  return WGK_OK;
}

static wgk_status alt_values(wgk_tensor *t, const manifest_port *port, const char *source, int kind, void *dst) {
  const void *host;
  wgk_status st = rt_tensor_host(t, port->name, &host);
  if (st != WGK_OK) return st;
  if (kind == ALT_INT64) {
    memcpy(dst, host, (size_t)t->numel * 8);
    return WGK_OK;
  }
  if (kind == ALT_PACKED) {
    const uint8_t *bytes = host;
    uint32_t *words = dst;
    for (int64_t i = 0; i < t->numel; i++) words[i / 4] |= (uint32_t)bytes[i] << (8 * (i % 4));
    return WGK_OK;
  }
  return narrow_values(t, port, source, kind, host, dst);
}

static wgk_status alt_binding(wgk_tensor *t, const manifest_port *port, const char *source, int kind,
                              gpu_buffer **out) {
  wgk_context *ctx = t->ctx;
  bool pending = ctx->recording_serial && t->pending_serial == ctx->recording_serial;
  if (t->narrow && t->narrow_valid && t->narrow_kind == kind && !t->external && !pending) {
    *out = t->narrow;
    return WGK_OK;
  }
  size_t bytes = alt_bytes(kind, t->numel);
  void *words = calloc(1, bytes);
  if (!words) return util_error_oom(&ctx->err, NULL, NULL);
  wgk_status st = alt_values(t, port, source, kind, words);
  if (st == WGK_OK && (!t->narrow || t->narrow_bytes != bytes)) {
    /* written whole below before any GPU work reads it: a pooled buffer shows nothing of its last owner */
    gpu_buffer *made = gpu_pool_take(&ctx->pool, (bytes + 3) & ~(size_t)3, TENSOR_USAGE);
    if (!made) st = gpu_buffer_create(ctx->dev, bytes, TENSOR_USAGE, "wgk tensor in a port's layout", &made, &ctx->err);
    if (st == WGK_OK) {
      gpu_buffer_destroy(t->narrow);
      t->narrow = made;
      t->narrow_bytes = bytes;
    }
  }
  if (st == WGK_OK) st = gpu_buffer_write(ctx->dev, t->narrow, 0, words, bytes, &ctx->err);
  free(words);
  if (st != WGK_OK) return st;
  t->narrow_kind = kind;
  t->narrow_valid = true;
  *out = t->narrow;
  return WGK_OK;
}

wgk_status rt_tensor_binding(wgk_tensor *t, const manifest_port *port, const char *source, gpu_buffer **out) {
  *out = t->buf;
  int kind = alt_kind(t, port);
  return kind == ALT_NONE ? WGK_OK : alt_binding(t, port, source, kind, out);
}

wgk_status rt_tensor_check_narrowing(wgk_tensor *t, const manifest_port *port, const char *source) {
  int kind = alt_kind(t, port);
  if (kind != ALT_U32_CHECKED && kind != ALT_I32_CHECKED) return WGK_OK;
  gpu_buffer *buf; /* made (and kept for a later binding) as a pass binding it would make it */
  return alt_binding(t, port, source, kind, &buf);
}

static const char *layout_name(wgk_dtype storage) {
  return storage == WGK_DTYPE_INT32 ? "int32 words" : storage == WGK_DTYPE_UINT32 ? "uint32 words" : "64-bit values";
}

wgk_status rt_tensor_written_binding(wgk_tensor *t, const manifest_port *port, const char *source, gpu_buffer **out) {
  wgk_context *ctx = t->ctx;
  wgk_dtype want = rt_port_storage(port, t->dtype);
  const char *dir = port->dir == WGK_PORT_INOUT ? "in/out" : "output";
  *out = t->buf;
  if (port->dir == WGK_PORT_INOUT) {
    int kind = alt_kind(t, port);
    if (kind == ALT_NONE) return WGK_OK;
    const char *why = kind == ALT_PACKED ? "the packed uint8 layout is for inputs only"
                      : t->external      ? "the tensor's buffer is the caller's (wrapped, or its WGPUBuffer handed out)"
                                         : NULL;
    if (why) {
      util_error_value(&ctx->err, WGK_ERR_CALL, source, port->pos,
                       "%s port %s keeps %s as %s, the tensor holds %s, and %s: pass a tensor wgk owns", dir,
                       port->name, wgk_dtype_name(t->dtype), kind == ALT_PACKED ? "packed words" : layout_name(want),
                       layout_name(t->storage), why);
      return ctx->err.status;
    }
    wgk_status st = alt_binding(t, port, source, kind, out);
    t->narrow_written = st == WGK_OK;
    return st;
  }
  if (want == t->storage) return WGK_OK;
  const char *why = t->external ? "the tensor's buffer is the caller's (wrapped, or its WGPUBuffer handed out)"
                    : rt_storage_bytes(want, t->numel) > t->buf_bytes ? "its buffer is too small for that layout"
                                                                      : NULL;
  if (!why) return WGK_OK; /* the kernel overwrites it: the layout changes when the call is recorded */
  util_error_value(&ctx->err, WGK_ERR_CALL, source, port->pos,
                   "%s port %s stores %s as %s, the destination tensor holds %s, and %s: pass no destination, or a new "
                   "tensor",
                   dir, port->name, wgk_dtype_name(t->dtype), layout_name(want), layout_name(t->storage), why);
  return ctx->err.status;
}

void rt_tensor_commit_written(wgk_tensor *t, const manifest_port *port) {
  wgk_dtype want = rt_port_storage(port, t->dtype);
  if (t->narrow_written &&
      port->dir == WGK_PORT_INOUT) { /* the kernel updated the port-layout copy: it becomes the buffer */
    gpu_buffer *b = t->buf;
    size_t bytes = t->buf_bytes;
    t->buf = t->narrow;
    t->buf_bytes = t->narrow_bytes;
    t->narrow = b;
    t->narrow_bytes = bytes;
    t->narrow_written = false;
  }
  t->storage = want;
  t->narrow_valid = false;
}

wgk_context *rt_tensor_context(const wgk_tensor *t) { return t->ctx; }

void rt_buffer_release(wgk_context *ctx, gpu_buffer *buf) {
  for (const wgk_batch *b = ctx->batches; b; b = b->next)
    if (b->enc) {
      gpu_buffer_destroy(buf);
      return;
    }
  gpu_pool_put(&ctx->pool, buf);
}
