/*
 * The Dawn device layer: the only part of wgk that talks WebGPU. Everything above it (runtime,
 * planner, CLI) sees opaque handles and wgk errors; the raw WGPU handles are reachable for callers
 * that bring their own device or buffers.
 *
 * Lifecycle of a device and its work:
 *   1. gpu_device_create (or wrap an external WGPUDevice through gpu_options)
 *   2. gpu_buffer_create / gpu_buffer_write           upload inputs
 *   3. gpu_shader_create -> gpu_pipeline_create        once per kernel variant
 *   4. gpu_bind_group_create                               once per set of buffers
 *   5. gpu_encoder_begin, _dispatch / _copy ..., _submit   record and submit
 *   6. gpu_wait or gpu_buffer_read                     wait, download
 *   7. destroy everything, the device last
 *
 * Every function that can fail returns a wgk_status, sets *err (first error wins) and leaves its
 * OUT parameters NULL. Every *_destroy(NULL) is a no-op. Errors Dawn reports asynchronously
 * (uncaptured validation errors, device loss) are recorded and returned by the next call on the
 * device. A device is used from one thread at a time.
 */
#ifndef WGK_GPU_GPU_H
#define WGK_GPU_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/webgpu_abi.h"
#include "device/device_desc.h"
#include "util/error.h"
#include "util/log.h"

typedef struct gpu_device gpu_device;
typedef struct gpu_buffer gpu_buffer;
typedef struct gpu_shader gpu_shader;
typedef struct gpu_pipeline gpu_pipeline;
typedef struct gpu_bind_group gpu_bind_group;
typedef struct gpu_encoder gpu_encoder;
typedef struct gpu_timer gpu_timer;

/* ---- adapters and devices ---------------------------------------------------------------- */

/* Every adapter Dawn offers: what it answers for each power preference and for the fallback adapter,
 * without duplicates (Dawn's C API has no enumeration; on a host with several identical GPUs Dawn
 * shows one). *out is a malloc'ed array the caller free()s. None: WGK_ERR_NO_ADAPTER with the hint. */
wgk_status gpu_list_adapters(device_desc **out /* OUT */, size_t *count /* OUT */, util_error *err);

typedef struct gpu_options {
  const char *adapter; /* index ("0") or case-insensitive substring of vendor/device/description;
                          NULL: env WGK_ADAPTER, else Dawn's high-performance default */
  bool verbose;        /* Dawn's own log messages to log (otherwise dropped) */
  util_log log;        /* where Dawn's messages (verbose), progress of long waits and cache counts go */
  /* Bring your own: when device is set, wgk wraps it (adds a reference, never destroys it) and
   * ignores the selector. instance is then needed for waits; when NULL it is found via the device. */
  WGPUInstance instance;
  WGPUDevice device;
  /* Features hidden from wgk, a comma list ("shader-f16"): never requested, and cleared from the description
   * (an external device's too). NULL: env WGK_DISABLE_FEATURES; "" hides none. An unknown name is refused. */
  const char *disable_features;
  /* Waits poll this many microseconds before they block when wait_spin_set (0: block at once), else 2,000 on a
   * GPU adapter and none on a CPU one (H200: a bare submit + wait 45.6 us blocking, 17.5 us polling). */
  bool wait_spin_set;
  uint32_t wait_spin_us;
  /* When not 0, the storage-binding limit plans read is lowered to this (never raised); it must be a multiple of 4
   * of at least the device's minStorageBufferOffsetAlignment, else the create fails naming max_storage_binding_from
   * (the option or variable it came from). */
  uint64_t max_storage_binding;
  const char *max_storage_binding_from;
  /* The persistent pipeline cache (off when pipeline_cache_off; its cap pipeline_cache_max, 0: 256 MiB; its counts
   * to log when the device goes with pipeline_cache_log) and a long wait's progress line to log after
   * progress_after_ms (0: at once; -1: never). runtime/options.c resolves them from the context's options. */
  bool pipeline_cache_off;
  bool pipeline_cache_log;
  uint64_t pipeline_cache_max;
  long progress_after_ms;
} gpu_options;

/* opts may be NULL (all defaults). No adapter: WGK_ERR_NO_ADAPTER naming the Vulkan packages.
 * Requests every available one of shader-f16, subgroups, subgroup-size-control, subgroup-matrix,
 * timestamp-query and the adapter's largest buffer, binding, workgroup and storage limits. */
wgk_status gpu_device_create(const gpu_options *opts, gpu_device **out /* OUT */, util_error *err);
void gpu_device_destroy(gpu_device *dev);

/* What the device has: features and limits as granted, adapter facts. Valid while dev lives. */
const device_desc *gpu_device_desc(const gpu_device *dev);
/* How long the device's waits poll before they block, in ns (0: they block at once; WGK_WAIT_SPIN_US). */
uint64_t gpu_device_wait_spin_ns(const gpu_device *dev);

/* How long gpu_device_create took, by part (ns; 0 for a part it did not do: a caller's device), for
 * `wgk bench --first-call`. */
typedef struct gpu_startup {
  double instance_ns; /* wgpuCreateInstance (Dawn loads the Vulkan loader and drivers) */
  double adapter_ns;  /* the adapter request(s) */
  double cache_ns;    /* opening the persistent pipeline cache (hashing the Dawn library's facts) */
  double device_ns;   /* the device request */
  double describe_ns; /* reading back features, limits and adapter facts */
} gpu_startup;
gpu_startup gpu_device_startup(const gpu_device *dev);
/* The persistent pipeline cache's counts so far (gpu/blob_cache.h); false when it is off. */
struct gpu_blob_counts;
bool gpu_device_blob_counts(const gpu_device *dev, struct gpu_blob_counts *out);

/* Reports (once) an error recorded asynchronously: uncaptured WebGPU error (WGK_ERR_GPU) or
 * device loss (WGK_ERR_DEVICE, sticky). Every operation below calls it first. */
wgk_status gpu_device_check(gpu_device *dev, util_error *err);

WGPUInstance gpu_device_raw_instance(const gpu_device *dev);
WGPUDevice gpu_device_raw(const gpu_device *dev);
WGPUQueue gpu_device_raw_queue(const gpu_device *dev);

/* ---- buffers ----------------------------------------------------------------------------- */

enum {
  WGK_GPU_BUFFER_STORAGE = 1u << 0,
  WGK_GPU_BUFFER_UNIFORM = 1u << 1,
  WGK_GPU_BUFFER_COPY_SRC = 1u << 2,
  WGK_GPU_BUFFER_COPY_DST = 1u << 3,
  WGK_GPU_BUFFER_MAP_READ = 1u << 4,      /* only with COPY_DST (WebGPU rule) */
  WGK_GPU_BUFFER_QUERY_RESOLVE = 1u << 5, /* target of timestamp resolves */
  WGK_GPU_BUFFER_MAP_WRITE = 1u << 6,     /* only with COPY_SRC (WebGPU rule): upload staging */
};

/* size above maxBufferSize: WGK_ERR_LIMIT with both numbers. size is rounded up to 4. */
wgk_status gpu_buffer_create(gpu_device *dev, uint64_t size, uint32_t usage, const char *label,
                             gpu_buffer **out /* OUT */, util_error *err);
/* The same, mapped at creation: *data points at its size bytes (host memory Dawn copies to the buffer at
 * gpu_buffer_unmap). A buffer the caller fills completely this way is never lazily cleared by Dawn, and the
 * host values are written once, straight into memory the device can take (no queue-write copy). Only for
 * buffers without MAP_READ. The caller must unmap before the buffer is used by any GPU work. */
wgk_status gpu_buffer_create_mapped(gpu_device *dev, uint64_t size, uint32_t usage, const char *label,
                                    gpu_buffer **out /* OUT */, void **data /* OUT */, util_error *err);
void gpu_buffer_unmap(gpu_buffer *buf);
/* A caller's buffer used in place: referenced, never destroyed by wgk. */
wgk_status gpu_buffer_wrap(gpu_device *dev, WGPUBuffer raw, uint64_t size, gpu_buffer **out /* OUT */, util_error *err);
void gpu_buffer_destroy(gpu_buffer *buf);
uint64_t gpu_buffer_size(const gpu_buffer *buf);
/* The buffer's identity on its device: never reused, so a bind group keyed by it can only name this buffer (a
 * buffer taken again from a pool keeps its id, a new one gets another). */
uint64_t gpu_buffer_id(const gpu_buffer *buf);
WGPUBuffer gpu_buffer_raw(const gpu_buffer *buf);

/* Queue write (offset and size multiples of 4). Ordered before work submitted afterwards. */
wgk_status gpu_buffer_write(gpu_device *dev, gpu_buffer *buf, uint64_t offset, const void *data, size_t size,
                            util_error *err);
/* Synchronous download: copy to a staging buffer, submit, map, memcpy. Waits for all work
 * submitted before it. offset and size multiples of 4. */
wgk_status gpu_buffer_read(gpu_device *dev, gpu_buffer *buf, uint64_t offset, void *out, size_t size,
                           uint32_t timeout_ms, util_error *err);

/* ---- buffer pool ------------------------------------------------------------------------ */

/* Buffers kept for reuse across calls: device buffers of tensors that are gone (handed out again only to
 * code that overwrites every byte before any GPU work reads them, so no caller sees another's data) and
 * MAP_READ staging buffers (size classes: powers of two from 64 KiB). Fixed capacity, no allocation of its
 * own; the oldest entry goes when it is full or holds more than max_bytes. One per context, used under its lock. */
#define WGK_GPU_POOL_ENTRIES 32
typedef struct gpu_pool {
  gpu_buffer *bufs[WGK_GPU_POOL_ENTRIES]; /* NULL: free slot */
  uint64_t ticks[WGK_GPU_POOL_ENTRIES];   /* when put, for eviction */
  uint64_t tick;
  uint64_t bytes, max_bytes; /* held, and the most it holds */
  uint64_t hits, misses;     /* takes answered / not */
} gpu_pool;

void gpu_pool_init(gpu_pool *pool, uint64_t max_bytes);
/* Destroys every buffer held (Dawn keeps alive what submitted work still uses). */
void gpu_pool_clear(gpu_pool *pool);
/* A buffer of exactly size bytes (already rounded to 4) and usage, removed from the pool; NULL when none. The
 * newest put, except for MAP_WRITE usage (upload staging, mapping again since its copy): the oldest. */
gpu_buffer *gpu_pool_take(gpu_pool *pool, uint64_t size, uint32_t usage);
/* Hands buf to the pool (a wrapped buffer, or one over max_bytes, is destroyed instead). NULL pool: destroyed. */
void gpu_pool_put(gpu_pool *pool, gpu_buffer *buf);
/* The size class of a staging buffer for size bytes: the next power of two, at least 64 KiB (capped at max). */
uint64_t gpu_pool_size_class(uint64_t size, uint64_t max);

/* A staged transfer goes in pieces of `piece` bytes (0: one piece; else a multiple of 8), each through a staging
 * buffer of the pool (one size class for every piece), GPU_STAGING_DEPTH of them in turn so that the host's work
 * on one piece overlaps the GPU's copy of the one before. The per-piece action gets the mapped staging memory of
 * bytes [off, off + len) of the transfer. */
#define GPU_STAGING_DEPTH 2
typedef void (*gpu_piece_fn)(void *mapped, size_t off, size_t len, void *arg);

/* Queue-ordered upload of size bytes at offset of dst (multiples of 4), each piece written by fill straight into a
 * MAP_WRITE staging buffer, then copied in a submission of its own: ordered like gpu_buffer_write, without the
 * queue write's host copy or its per-call staging allocation for large sizes. A staging buffer is mapped again as
 * soon as its copy is submitted (the map completes when the copy has): the piece after next, or the next call,
 * finds it mapped; a new one is mapped at creation.
 * defer, for an upload of one piece into a buffer that only this device's submissions use: the copy is recorded
 * for the device's next submission instead (gpu_encoder_submit carries it ahead of its own work; a queue write to
 * dst, gpu_wait and gpu_deferred_flush submit it first), which saves a submission per upload. */
wgk_status gpu_buffer_upload_pooled(gpu_device *dev, gpu_pool *pool, gpu_buffer *dst, uint64_t offset, size_t size,
                                    size_t piece, gpu_piece_fn fill, void *arg, bool defer, uint32_t timeout_ms,
                                    util_error *err);
/* Submits the deferred upload copies, if any: before a buffer is used outside this device's submissions. */
wgk_status gpu_deferred_flush(gpu_device *dev, util_error *err);
/* Queue submissions made so far (every kind: calls, uploads, read-backs). */
uint64_t gpu_device_submits(const gpu_device *dev);

/* Read-back of size bytes at offset of buf, each piece copied into a MAP_READ staging buffer and handed to drain;
 * the copy of piece i+1 is submitted before piece i is waited for and drained. A MAP_READ buf is mapped directly
 * (one piece). pool NULL: new staging buffers. */
wgk_status gpu_buffer_read_pooled(gpu_device *dev, gpu_pool *pool, gpu_buffer *buf, uint64_t offset, size_t size,
                                  size_t piece, gpu_piece_fn drain, void *arg, uint32_t timeout_ms, util_error *err);

/* A read-back inside a submission of the caller's: gpu_readback_staging gives a MAP_READ staging buffer for size
 * bytes (the pool's when it holds one: one left by a timed-out read is waited for, up to timeout_ms, until the
 * copy into it is done), the caller records gpu_encoder_copy of the bytes into it and submits;
 * then gpu_readback_start begins its map (false: out of memory; finish starts it then) and gpu_readback_finish
 * waits for it, hands the bytes to drain(mapped, 0, size, arg) and gives the buffer back to the pool (after a
 * timeout too, its map pending; destroys it on another failure). One wait serves the work and the read.
 * A read-back that times out (these and gpu_buffer_read_pooled's) thus holds no more staging memory than one that
 * succeeds: a retry reuses the buffers it left. */
wgk_status gpu_readback_staging(gpu_device *dev, gpu_pool *pool, size_t size, uint32_t timeout_ms,
                                gpu_buffer **out /* OUT */, util_error *err);
bool gpu_readback_start(gpu_buffer *staging, size_t size);
wgk_status gpu_readback_finish(gpu_device *dev, gpu_pool *pool, gpu_buffer *staging, size_t size, gpu_piece_fn drain,
                               void *arg, uint32_t timeout_ms, util_error *err);

/* An upload inside a submission of the caller's: gpu_upload_staging gives a MAP_WRITE staging buffer for size bytes
 * (of its pool size class), mapped, and its memory: the pool's when one is mapped or mapping (its map waited for),
 * else a new one mapped at creation. The caller fills the memory (host work only: any thread may), unmaps the
 * buffer (gpu_buffer_unmap), records gpu_encoder_copy from it and submits; then gpu_upload_recycle maps it again
 * into the pool, or destroys it where it was not submitted (a refusal, a failed submission); NULL is accepted. */
wgk_status gpu_upload_staging(gpu_device *dev, gpu_pool *pool, size_t size, uint32_t timeout_ms,
                              gpu_buffer **out /* OUT */, void **mapped /* OUT */, util_error *err);
void gpu_upload_recycle(gpu_pool *pool, gpu_buffer *staging, bool submitted);

/* How many times the device's buffers were waited for to map (readbacks, staging buffers taken for reuse): a
 * counter for tests of the steady path (a decode call waits once, for its output). */
uint64_t gpu_device_map_waits(const gpu_device *dev);
/* Bytes of the device's staging buffers (map-read and map-write) that wgk holds, in a pool, a transfer or a
 * timed-out read-back waiting for its copy: a counter for tests that a fault gives back what it took. */
uint64_t gpu_device_staging_bytes(const gpu_device *dev);

/* ---- shaders and pipelines --------------------------------------------------------------- */

/* Compilation errors: WGK_ERR_SHADER with source = label (or "<wgsl>"), line and column in the
 * WGSL and Dawn's message; further messages appended to the message text. */
wgk_status gpu_shader_create(gpu_device *dev, const char *wgsl, const char *label, gpu_shader **out /* OUT */,
                             util_error *err);
void gpu_shader_destroy(gpu_shader *shader);

typedef enum gpu_binding_type {
  WGK_GPU_BINDING_READ_ONLY_STORAGE = 0, /* var<storage, read> */
  WGK_GPU_BINDING_STORAGE,               /* var<storage, read_write> */
  WGK_GPU_BINDING_UNIFORM,               /* var<uniform> */
} gpu_binding_type;

/* One bind group (@group(0)), binding i of type types[i]; entry point entry (NULL: "main").
 * Validation errors (WGSL/layout mismatch ...) come back as WGK_ERR_GPU. */
wgk_status gpu_pipeline_create(gpu_device *dev, const gpu_shader *shader, const gpu_binding_type *types, size_t count,
                               const char *entry, const char *label, gpu_pipeline **out /* OUT */, util_error *err);
void gpu_pipeline_destroy(gpu_pipeline *pipeline);

typedef struct gpu_binding {
  gpu_buffer *buffer; /* bound at binding i */
  uint64_t offset;    /* bytes; multiple of the device's offset alignment */
  uint64_t size;      /* bytes; 0 = from offset to the end of the buffer */
} gpu_binding;

wgk_status gpu_bind_group_create(gpu_device *dev, const gpu_pipeline *pipeline, const gpu_binding *bindings,
                                 size_t count, const char *label, gpu_bind_group **out /* OUT */, util_error *err);
void gpu_bind_group_destroy(gpu_bind_group *group);

/* ---- recording and submission ------------------------------------------------------------ */

wgk_status gpu_encoder_begin(gpu_device *dev, const char *label, gpu_encoder **out /* OUT */, util_error *err);
/* Untimed dispatches share one compute pass until a copy, a timed dispatch or the submit. With a
 * timer, the dispatch gets its own pass whose begin/end timestamps land in the timer's slot. */
wgk_status gpu_encoder_dispatch(gpu_encoder *enc, const gpu_pipeline *pipeline, const gpu_bind_group *group, uint32_t x,
                                uint32_t y, uint32_t z, util_error *err);
wgk_status gpu_encoder_dispatch_timed(gpu_encoder *enc, const gpu_pipeline *pipeline, const gpu_bind_group *group,
                                      uint32_t x, uint32_t y, uint32_t z, gpu_timer *timer, uint32_t slot,
                                      util_error *err);
wgk_status gpu_encoder_copy(gpu_encoder *enc, gpu_buffer *src, uint64_t src_offset, gpu_buffer *dst,
                            uint64_t dst_offset, uint64_t size, util_error *err);
/* Finishes and submits; the encoder is freed whether it succeeds or not. */
/* Records a clear to zero of [offset, offset + size) of buf (both multiples of 4; buf needs COPY_DST). */
wgk_status gpu_encoder_clear(gpu_encoder *enc, gpu_buffer *buf, uint64_t offset, uint64_t size, util_error *err);
wgk_status gpu_encoder_submit(gpu_encoder *enc, util_error *err);
/* Drops a recording without submitting it. */
void gpu_encoder_discard(gpu_encoder *enc);

/* Blocks (no spinning) until all submitted work is done. what names the work in errors:
 * WGK_ERR_TIMEOUT (timed out), WGK_ERR_GPU (the wait itself failed, or the callback reported failure). */
wgk_status gpu_wait(gpu_device *dev, uint32_t timeout_ms, const char *what, util_error *err);

/* ---- timestamp queries ------------------------------------------------------------------- */

/* slots timed passes; WGK_ERR_UNSUPPORTED without the timestamp-query feature. */
wgk_status gpu_timer_create(gpu_device *dev, uint32_t slots, gpu_timer **out /* OUT */, util_error *err);
void gpu_timer_destroy(gpu_timer *timer);
/* Records the resolve of every slot into the timer's readback buffer; call before submit. */
wgk_status gpu_encoder_resolve_timer(gpu_encoder *enc, gpu_timer *timer, util_error *err);
/* After submit: ns[i] = the time slot i's pass kept the GPU busy that no earlier-starting slot covers
 * (gpu_timestamps_busy), so the sum over slots is the union of the passes' intervals, never more than
 * the span from the first begin to the last end. 0 for a slot the last resolved recording did not write. */
wgk_status gpu_timer_read(gpu_device *dev, gpu_timer *timer, uint64_t *ns, uint32_t slots, uint32_t timeout_ms,
                          util_error *err);

/* Pure: begin/end timestamp pairs (stamps[2i], stamps[2i+1]) of n slots -> busy[i], the part of slot i's
 * interval that no slot beginning earlier (ties: lower index) covers. Dawn's Vulkan backend latches a pass's
 * begin at TOP_OF_PIPE, before the barrier that waits for the previous pass: the begin can fall inside the
 * previous pass, and summing end - begin then counts that overlap twice. Unwritten (written[i] false, or
 * written NULL and both 0) and reversed slots give 0. */
void gpu_timestamps_busy(const uint64_t *stamps, const bool *written, uint32_t n, uint64_t *busy);
/* Pure: the span of the same slots, from the earliest begin to the latest end of the written, unreversed ones
 * (0 when none): the GPU time of a call including the gaps between its passes (clears, copies, barriers outside
 * them), which the busy union leaves out. */
uint64_t gpu_timestamps_span(const uint64_t *stamps, const bool *written, uint32_t n);
/* The span (gpu_timestamps_span) of the slots the last gpu_timer_read read; 0 before one. */
uint64_t gpu_timer_span(const gpu_timer *timer);

#endif
