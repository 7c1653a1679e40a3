/* What the files of src/gpu/ share: the handle structs and the helpers that wait and catch errors. */
#ifndef WGK_GPU_INTERNAL_H
#define WGK_GPU_INTERNAL_H

#include "gpu/gpu.h"

#include <pthread.h>
#include <time.h>

#define WGK_GPU_MESSAGE_MAX 1024
#define WGK_WAIT_SPIN_DEFAULT_US 2000 /* a GPU device's waits poll this long before they block */
#define WGK_WAIT_SPIN_MAX_US 1000000  /* WGK_WAIT_SPIN_US above this (or not a number) is ignored */

/* Upload copies recorded for the device's next submission (gpu/deferred.c): one submission carries them ahead of
 * the work that follows instead of one submission per upload. Their staging buffers go back to their pools, mapping
 * again, once the copies are submitted. */
#define GPU_DEFERRED_MAX 16
typedef struct gpu_deferred {
  WGPUCommandEncoder encoder; /* NULL: nothing recorded */
  int n;
  gpu_buffer *staging[GPU_DEFERRED_MAX];
  gpu_pool *pools[GPU_DEFERRED_MAX];
  WGPUBuffer dst[GPU_DEFERRED_MAX]; /* our references: the copies recorded again after a failed submission */
  uint64_t at[GPU_DEFERRED_MAX];
  size_t len[GPU_DEFERRED_MAX];
  uint64_t epoch; /* advances at every submission of the copies: a buffer whose deferred_epoch is epoch + 1 is the
                     destination of a copy not submitted yet */
} gpu_deferred;

struct gpu_device {
  WGPUInstance instance;  /* our reference */
  WGPUDevice device;      /* our reference; Destroy()ed only when !external */
  WGPUQueue queue;        /* our reference */
  bool external;          /* wraps a caller's device: never destroyed, its callbacks are the caller's */
  WGPUFuture lost_future; /* a caller's device: done once it is lost or destroyed (polled by gpu_device_check) */
  bool verbose;           /* Dawn log messages to log */
  util_log log;           /* gpu_options.log */
  bool timed_wait;        /* the instance accepts WaitAny with a timeout (else: poll with sleeps) */
  uint64_t spin_ns;       /* a wait polls without sleeping this long before it blocks (gpu_options.wait_spin_us) */
  bool cache_on;          /* the persistent pipeline cache is used (gpu_options.pipeline_cache_off) */
  bool cache_log;         /* its counts to log when the device goes (gpu_options.pipeline_cache_log) */
  uint64_t cache_max;     /* its cap in bytes (gpu_options.pipeline_cache_max) */
  long progress_after_ms; /* a long wait's progress line after this long; -1: none (gpu_options) */
  device_desc desc;       /* features and limits as granted, adapter facts */
  uint32_t hidden;        /* device_feature bits hidden (gpu_options.disable_features): not requested, not described */
  /* Written by Dawn's callbacks, reported and cleared by gpu_device_check. */
  wgk_status pending; /* WGK_ERR_GPU for an uncaptured error, WGK_OK when none */
  char pending_message[WGK_GPU_MESSAGE_MAX];
  bool lost; /* sticky: every later call fails */
  char lost_message[WGK_GPU_MESSAGE_MAX];
  struct gpu_blob_cache *blobs; /* the persistent pipeline cache Dawn reads and writes (gpu/blob_cache.h), or NULL */
  uint64_t map_waits;           /* waits for a buffer map (gpu_device_map_waits) */
  gpu_startup startup;          /* gpu_device_create's parts */
  gpu_deferred deferred;        /* upload copies waiting for the next submission */
  uint64_t submits;             /* queue submissions (gpu_device_submits) */
  uint64_t buffer_ids;          /* the last gpu_buffer id handed out */
  uint64_t staging_bytes;       /* bytes of map-read and map-write buffers alive (gpu_device_staging_bytes) */
};

struct gpu_buffer {
  gpu_device *dev;   /* device it belongs to */
  WGPUBuffer buffer; /* our reference */
  uint64_t size;     /* bytes */
  uint32_t usage;    /* WGK_GPU_BUFFER_* (0 for a wrapped buffer: unknown) */
  bool external;     /* wrapped: never Destroy()ed */
  /* A map started and not waited for yet (a staging buffer mapped again as soon as its copy is submitted, so that
   * its next use finds it mapped), or NULL; destroying the buffer aborts it. */
  struct gpu_async *map;
  WGPUFuture map_future;
  /* The map's wait timed out (a read-back's copy still running): the map stays pending, waited for before the
   * buffer is used again (a retry reuses the buffer rather than taking another while the GPU still writes it). */
  bool map_timed_out;
  uint64_t deferred_epoch; /* the device's deferred.epoch + 1 when a deferred copy into this buffer was recorded */
  uint64_t id;             /* unique on its device, never reused (gpu_buffer_id) */
};

struct gpu_shader {
  WGPUShaderModule module;
};

#define WGK_GPU_MAX_BINDINGS 32

struct gpu_pipeline {
  WGPUComputePipeline pipeline;
  WGPUBindGroupLayout layout;                   /* @group(0), for bind groups */
  size_t count;                                 /* bindings 0..count-1 */
  gpu_binding_type types[WGK_GPU_MAX_BINDINGS]; /* binding i's type, for argument checks */
};

struct gpu_bind_group {
  WGPUBindGroup group;
};

struct gpu_encoder {
  gpu_device *dev;
  WGPUCommandEncoder encoder;
  WGPUComputePassEncoder pass; /* the open untimed pass, NULL when none */
};

struct gpu_timer {
  WGPUQuerySet queries; /* 2 timestamps per slot: begin, end */
  gpu_buffer *resolved; /* QUERY_RESOLVE | COPY_SRC, 16 bytes per slot */
  gpu_buffer *readback; /* MAP_READ | COPY_DST copy of it */
  uint32_t slots;
  bool *written;         /* per slot: written by the recording last resolved (else its values are stale) */
  bool resolve_recorded; /* a resolve was recorded: the next timed dispatch starts a new recording */
  uint64_t span_ns;      /* gpu_timestamps_span of the last read */
};

/* ---- strings ---- */
WGPUStringView gpu_sv(const char *s); /* NULL -> the null view */
/* Copies a string view into a C buffer, truncating. */
void gpu_sv_copy(char *dst, size_t size, WGPUStringView sv);

/* ---- waits (wait.c) ---- */
/* What a callback reports back to the code waiting on its future. */
typedef struct gpu_async {
  bool done;       /* the callback ran */
  bool orphaned;   /* the waiter gave up: the callback frees the state when it finally runs */
  uint32_t status; /* its status (1 = success everywhere) */
  char message[WGK_GPU_MESSAGE_MAX];
} gpu_async;

/* Callback state lives on the heap, with gpu_async first: a wait that times out leaves its
 * callback pending, and Dawn calls it later (at the latest with "cancelled" when the instance goes),
 * so the state must outlive the waiting function. Every callback starts with
 * `if (gpu_async_orphaned(u1)) return;`. */
void *gpu_async_new(size_t size);       /* zeroed; NULL when out of memory */
void gpu_async_free(gpu_async *st);     /* frees unless orphaned (then the callback will) */
bool gpu_async_orphaned(gpu_async *st); /* in a callback: true (and freed) if nobody waits */

/* One zero-timeout poll of future (its callback runs here if it is done): whether it completed. */
bool gpu_poll_once(gpu_device *dev, WGPUFuture future);

/* Waits for one future without spinning. Timed out -> WGK_ERR_TIMEOUT; WaitAny failing or returning
 * without the callback having run -> WGK_ERR_GPU; then a callback status other than success ->
 * WGK_ERR_GPU "<what> failed: <status>: <message>". what names the work in every message. */
wgk_status gpu_await(gpu_device *dev, WGPUInstance instance, WGPUFuture future, gpu_async *st, uint32_t timeout_ms,
                     const char *what, util_error *err);
/* Same, for code without a device yet (adapter and device requests). */
wgk_status gpu_await_instance(WGPUInstance instance, WGPUFuture future, gpu_async *st, uint32_t timeout_ms,
                              const char *what, util_error *err);

/* ---- error scopes (wait.c) ---- */
/* Brackets Dawn calls whose errors belong to one wgk call: validation and out-of-memory errors
 * inside become WGK_ERR_GPU naming what. pop always pops both scopes, even with err already set. */
void gpu_scope_push(gpu_device *dev);
wgk_status gpu_scope_pop(gpu_device *dev, const char *what, util_error *err);

/* Default timeout of the short internal waits (scopes, compilation info, requests). */
#define WGK_GPU_INTERNAL_TIMEOUT_MS 60000u

/* ---- buffers (buffer.c) and transfers (transfer.c) ---- */
/* offset and size multiples of 4 and inside the buffer; what names the operation in the message. */
wgk_status gpu_buffer_check_range(const gpu_buffer *buf, uint64_t offset, uint64_t size, const char *what,
                                  util_error *err);
/* A buffer's map (buffer.c): started on [offset, offset + size) (false, nothing started, when out of memory); done
 * yet, without waiting; waited for (timeout_ms; a wait that times out keeps the map pending on buf, marked
 * map_timed_out, for its next use to settle or its destruction to abort); settled: a map that timed out waited for
 * again and the buffer unmapped (WGK_OK when there was none). */
bool gpu_buffer_map_start(gpu_buffer *buf, WGPUMapMode mode, uint64_t offset, size_t size);
bool gpu_buffer_map_done(gpu_buffer *buf);
wgk_status gpu_buffer_map_finish(gpu_device *dev, gpu_buffer *buf, uint32_t timeout_ms, const char *what,
                                 util_error *err);
wgk_status gpu_buffer_map_settle(gpu_device *dev, gpu_buffer *buf, uint32_t timeout_ms, const char *what,
                                 util_error *err);
/* Maps a MAP_READ buffer, copies [offset, offset+size) out, unmaps (transfer.c). */
wgk_status gpu_buffer_map_read(gpu_device *dev, gpu_buffer *buf, uint64_t offset, void *out, size_t size,
                               uint32_t timeout_ms, const char *what, util_error *err);

/* ---- adapters (adapter.c) ---- */
WGPUInstance gpu_instance_create(void);
/* Chooses by selector (see gpu_options.adapter); returns a referenced adapter or sets
 * WGK_ERR_NO_ADAPTER / WGK_ERR_NOT_FOUND. */
wgk_status gpu_adapter_select(WGPUInstance instance, const char *selector, WGPUAdapter *out, util_error *err);

/* ---- device descriptions (desc.c) ---- */
void gpu_desc_from_info(device_desc *desc, const WGPUAdapterInfo *info);
void gpu_desc_from_limits(device_desc *desc, const WGPULimits *limits);
void gpu_desc_from_features(device_desc *desc, const WGPUSupportedFeatures *features);
/* Adapter facts, features, limits and subgroup-matrix configurations of one adapter. */
void gpu_desc_from_adapter(device_desc *desc, WGPUAdapter adapter);
/* The WGPU feature code of a wgk feature; 0 when this Dawn has none. */
WGPUFeatureName gpu_feature_code(device_feature f);
/* A WGPULimits ready to be filled: every limit "undefined" so that fields this Dawn does not write
 * (the per-stage storage limits after maxImmediateSize) mean "default" when passed back. */
void gpu_limits_init(WGPULimits *limits);

/* A wait that takes a while says so on a terminal (SparseAttention's first call on lavapipe: 14-24 s of shader
 * compiles, in pipeline creation and in the first dispatches): after gpu_options.progress_after_ms a line
 * "wgk: DOING LABEL ... N s" to log as WGK_LOG_PROGRESS, redrawn every half second, and "" when the wait ends. Only
 * when log goes somewhere (the CLI draws it on a terminal only); progress_after_ms -1 turns it off. start/stop pair on
 * one stack struct. */
typedef struct gpu_progress {
  pthread_mutex_t lock;
  pthread_cond_t done_cond;
  pthread_t thread;
  bool done, running, shown;
  char label[200];
  double start_s; /* util_now_s at the start */
  long after_ms;
  const util_log *log;
} gpu_progress;
void gpu_progress_start(gpu_progress *pr, const gpu_device *dev, const char *doing, const char *label);
void gpu_progress_stop(gpu_progress *pr);

/* ---- deferred upload copies (deferred.c) ---- */
/* Records the copy of len bytes from staging (unmapped, filled) to dst at `at` for the next submission; staging goes
 * back to pool, mapping again, once the copy is submitted. A full list is submitted first. */
wgk_status gpu_deferred_copy(gpu_device *dev, gpu_pool *pool, gpu_buffer *staging, gpu_buffer *dst, uint64_t at,
                             size_t len, util_error *err);
/* Whether a recorded copy not yet submitted writes buf. */
bool gpu_deferred_targets(const gpu_buffer *buf);
/* The recorded copies as a command buffer to submit ahead of others (NULL when none); gpu_deferred_submitted after
 * the submission (ok: it was made without error). */
WGPUCommandBuffer gpu_deferred_finish(gpu_device *dev);
/* The recorded copies recorded again, to submit on their own after a submission that carried them failed for its
 * other work (a rejected submission runs none of it): false when no encoder could be made. */
bool gpu_deferred_rerecord(gpu_device *dev);
void gpu_deferred_submitted(gpu_device *dev, bool ok);
/* The recorded copies dropped unsubmitted (device teardown), their staging buffers destroyed. */
void gpu_deferred_discard(gpu_device *dev);
/* One queue submission (deferred.c): the deferred upload copies, then own's commands (NULL: the copies alone), under
 * one error scope named by what; the copies' staging buffers go back to their pools afterwards. */
wgk_status gpu_queue_submit(gpu_device *dev, WGPUCommandEncoder own, const char *what, util_error *err);

#endif
