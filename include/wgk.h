/*
 * wgk: WebGPU kernel packages, natively.
 *
 * The one public header of libwgk. Every object is an opaque handle; every function that can fail
 * returns a wgk_status and leaves its OUT parameters NULL on failure. wgk_*_destroy(NULL) is a no-op.
 * There is no global state: everything hangs off a wgk_context.
 *
 * Errors. Every function that returns a wgk_status and is given a usable handle (a context, kernel, tensor,
 * call or batch) sets its context's error: on failure the reason, naming the thing refused and the rule
 * ("file:line:column: path: message", wgk_context_errmsg) and the status (wgk_context_errcode); on success it
 * clears both ("" and WGK_OK). So after any call, errmsg/errcode describe that call, never an earlier one.
 * Functions that return no status (accessors, wgk_call_output, _retain, _release, _destroy, wgk_context_stats,
 * wgk_context_errmsg itself) leave the error as it is. A NULL handle gives WGK_ERR_INVALID_ARGUMENT with no
 * message, since there is no context to hold one.
 */
#ifndef WGK_H
#define WGK_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(WGK_BUILDING)
#define WGK_API __attribute__((visibility("default")))
#else
#define WGK_API
#endif

/* Status codes. Only ever appended to: a code keeps its number forever. */
typedef enum wgk_status {
  WGK_OK = 0,
  WGK_ERR_INVALID_ARGUMENT = 1, /* a caller passed a bad value (NULL handle, unknown name ...) */
  WGK_ERR_OUT_OF_MEMORY = 2,    /* a host allocation failed */
  WGK_ERR_IO = 3,               /* a file could not be read or written */
  WGK_ERR_PARSE = 4,            /* JSON, expression, template, .npy or protobuf text is malformed */
  WGK_ERR_MANIFEST = 5,         /* the manifest breaks a rule of the format */
  WGK_ERR_DIGEST = 6,           /* a package file does not match its metadata digest */
  WGK_ERR_EVAL = 7,             /* an expression or template failed while evaluating */
  WGK_ERR_CALL = 8,             /* a call breaks the op contract (port, dtype, rank, attribute, value) */
  WGK_ERR_NO_VARIANT = 9,       /* no variant of the kernel accepts the call on this device */
  WGK_ERR_NO_ADAPTER = 10,      /* no WebGPU adapter (no Vulkan driver) */
  WGK_ERR_DEVICE = 11,          /* device creation failed, or the device was lost */
  WGK_ERR_SHADER = 12,          /* WGSL failed to compile */
  WGK_ERR_GPU = 13,             /* a WebGPU validation or runtime error */
  WGK_ERR_LIMIT = 14,           /* a request exceeds a device or language limit */
  WGK_ERR_TIMEOUT = 15,         /* a wait on the GPU timed out */
  WGK_ERR_UNSUPPORTED = 16,     /* valid, but not supported by this device or build */
  WGK_ERR_NOT_FOUND = 17,       /* a package, port, file or case does not exist */
} wgk_status;

/* A short English text for a status code; never NULL. */
WGK_API const char *wgk_status_str(wgk_status status);

/* ============================================================================================
 * Handles
 * ============================================================================================
 *
 * wgk_context  one WebGPU device (wgk's own, or the caller's) plus every cache: plans, pipelines,
 *              bind groups. Safe to share between threads: every function taking a handle of the
 *              context holds the context's lock (recursive) for its whole duration, so calls on one
 *              context are serialized (a wgk_tensor_read waiting on the GPU holds it too; contexts on
 *              separate threads run in parallel). The error message is the context's, as in sqlite's
 *              serialized mode: with several threads failing at once, read wgk_context_errmsg only
 *              where your threads do not race (or use one context per thread). A wgk_call and a
 *              wgk_batch are each for one thread at a time; tensors and kernels may be shared.
 *              With the caller's WGPUDevice, the caller must not use that device on another thread
 *              while a wgk function runs on it, unless the device is thread-safe itself.
 * wgk_kernel   a loaded kernel package (manifest + templates), bound to a context.
 * wgk_tensor   a typed, shaped buffer on the GPU; reference counted.
 * wgk_call     one invocation of a kernel: inputs, attributes, args, tunables, outputs. Reusable:
 *              change inputs and run again; a call with the same shapes reuses its plan and pipelines.
 * wgk_batch    many calls (of any kernels of one context) recorded into one GPU submission.
 *
 * Lifecycle of a call (after sqlite3_stmt):
 *   1. wgk_call_create(kernel)                   a call with no inputs
 *   2. wgk_call_set_input / _set_output / _set_attr_* / _set_arg_* / _set_tunable
 *   3. wgk_call_run(call)                        validate, plan, record, submit (returns without waiting)
 *      or wgk_batch_add(batch, call)             validate, plan, record into the batch
 *   4. wgk_call_output(call, "y")                the output tensor (borrowed; retain to keep it)
 *   5. wgk_tensor_read(...)                      waits for the GPU and copies to host memory
 *   6. back to 2, or wgk_call_destroy(call)
 * A call that fails validation dispatches nothing and changes no buffer; the reason is in
 * wgk_context_errmsg(). This holds for every refusal, however late: wgk_call_run and wgk_batch_add
 * plan, check, and resolve every pass (buffers, int64 projections, bind groups, binding limits) before
 * they record the first command, so a refused wgk_batch_add leaves the batch exactly as it was (the
 * calls added before it still run at submit; nothing of the refused call does), and a refused call
 * keeps the outputs of its previous run.
 *
 * Lifetimes. Handles hold references on what they use: a call holds its kernel, and every kernel,
 * tensor and batch holds its context. wgk_kernel_destroy and wgk_context_destroy drop the caller's
 * reference: calls made from a destroyed kernel keep working until wgk_call_destroy, and tensors,
 * calls and batches of a destroyed context keep working until released, the device and caches going
 * with the last of them (destroy in any order; never a memory error). A caller's WGPUDevice and
 * WGPUInstance must outlive every wgk object of the context.
 *
 * Data checks. Some ops check tensor values on the host before anything runs (RotaryEmbedding's
 * position ids within the cache, SparseAttention's sequence lengths and block layout, int64 values
 * projected to 32 bits). They check the values the GPU will read: wgk's host copy when it is known
 * to be current (the tensor was created or written from host memory through wgk and nothing wrote it
 * since), else the values read back from the GPU: wrapped tensors, tensors whose WGPUBuffer was
 * handed out (wgk_tensor_wgpu_buffer), and outputs of earlier calls. A checked tensor that an earlier
 * call of the same unsubmitted batch writes has no values yet: that wgk_batch_add is refused (submit
 * first). Values are checked when the call is run or added: a tensor changed between wgk_batch_add
 * and wgk_batch_submit (by wgk_tensor_write, or the caller's queue writes) is not checked again.
 */
typedef struct wgk_context wgk_context;
typedef struct wgk_kernel wgk_kernel;
typedef struct wgk_tensor wgk_tensor;
typedef struct wgk_call wgk_call;
typedef struct wgk_batch wgk_batch;

/* Logical dtypes. GPU storage: float32/float16/int32/uint32 as is; int8/int16/uint8/bool widened to one
 * 32-bit word per element (sign-extended for int8/int16) and narrowed back on read (the low 8 or 16 bits;
 * bool: the low byte != 0); a uint8 input of a `layout: "packed"` port is bound as four bytes per word.
 * int64 is 64-bit (two u32 words, opaque to the kernel) unless a port projects it to int32/uint32: inputs
 * are narrowed (checked or saturating) into a 32-bit copy, and an output of such a port is stored as 32-bit
 * words (sign- or zero-extended back to int64 by wgk_tensor_read; its WGPUBuffer holds the 32-bit words). */
typedef enum wgk_dtype {
  WGK_DTYPE_INVALID = 0,
  WGK_DTYPE_FLOAT32 = 1,
  WGK_DTYPE_FLOAT16 = 2,
  WGK_DTYPE_INT32 = 3,
  WGK_DTYPE_UINT32 = 4,
  WGK_DTYPE_INT64 = 5,
  WGK_DTYPE_INT8 = 6,
  WGK_DTYPE_UINT8 = 7,
  WGK_DTYPE_BOOL = 8,
  WGK_DTYPE_INT16 = 9,
} wgk_dtype;

#define WGK_MAX_DIMS 8

WGK_API const char *wgk_dtype_name(wgk_dtype dtype);     /* "float32" ...; "invalid" */
WGK_API wgk_dtype wgk_dtype_from_name(const char *name); /* WGK_DTYPE_INVALID when unknown */
WGK_API size_t wgk_dtype_size(wgk_dtype dtype);          /* host bytes per element (float16, int16: 2; bool: 1) */

/* ---- context ---------------------------------------------------------------------------- */

/* What wgk has to say beside its errors (those stay in wgk_context_errmsg): the library itself never prints. */
typedef enum wgk_log_kind {
  WGK_LOG_LINE = 0,     /* one line without its newline: Dawn's messages and cache decisions (verbose), a download
                           retried, pipeline-cache counts (pipeline_cache_log) */
  WGK_LOG_PROGRESS = 1, /* how a long wait (a shader compile, a busy GPU) or a download goes: each replaces the one
                           before; "" when it is over */
} wgk_log_kind;
/* May be called from a thread of wgk's (a progress line is redrawn on one), never from two at once for one kind. */
typedef void (*wgk_log_fn)(void *log_user, wgk_log_kind kind, const char *text);

typedef struct wgk_context_options {
  const char *adapter; /* adapter index or name substring; NULL: env WGK_ADAPTER, else high-performance */
  bool verbose;        /* Dawn's log and wgk's cache decisions to log */
  /* A caller's WebGPU objects (WGPUInstance, WGPUDevice as void*): wgk uses them and never destroys
   * them. When device is set, adapter is ignored. */
  void *wgpu_instance;
  void *wgpu_device;
  /* Device features wgk must act as if absent, a comma list ("shader-f16", "subgroups", ...): never requested,
   * never seen by variant selection (a float16 call then runs the packages' packed-f16 variants), explain or
   * test `requires`. NULL: the environment variable WGK_DISABLE_FEATURES; "": none. An unknown name fails
   * wgk_context_create with WGK_ERR_INVALID_ARGUMENT. */
  const char *disable_features;
  /* Runtime strategies, each settable per context. 0 (what a designated initializer leaves) means the default:
   * the environment variable named beside the field when it is set (docs/environment.md), else the built-in
   * value. WGK_OFF asks for none where the comment allows it; WGK_ON / WGK_OFF set a switch. A value that breaks
   * its rule, here or in the variable, fails wgk_context_create with WGK_ERR_INVALID_ARGUMENT naming the field
   * (or variable), the rule and the value. */
  int64_t wait_timeout_ms; /* longest wait for the GPU before WGK_ERR_TIMEOUT, 1 .. 86,400,000 (24 h);
                              WGK_WAIT_TIMEOUT_MS; 60,000 */
  int64_t pool_bytes;      /* bytes of released tensors' buffers and read-back staging kept for reuse, up to 2^48;
                              WGK_OFF: none kept; WGK_POOL_BYTES; 512 MiB */
  int64_t queue_write_max; /* uploads up to this many bytes go through queue writes, larger ones through staging,
                              up to 2^48; WGK_OFF: every upload staged; WGK_QUEUE_WRITE_MAX; 256 KiB */
  int64_t host_span;       /* bytes of a staged piece's host conversion one thread takes, 4 KiB .. 64 MiB;
                              WGK_HOST_SPAN; 256 KiB */
  int64_t max_storage_binding_bytes; /* lowers (never raises) the storage-binding limit plans use, so calls split
                               at small sizes: a multiple of 4 of at least the device's storage offset alignment;
                               WGK_MAX_STORAGE_BINDING_BYTES; the device's limit */
  int32_t host_threads;      /* threads converting one large staged transfer, the caller's included, 1 .. 64 (1: all
                                on the calling thread); WGK_HOST_THREADS; 8 */
  int32_t host_spin_us;      /* microseconds those threads watch for the next piece before sleeping, up to 100,000;
                                WGK_OFF: none; WGK_HOST_SPIN_US; 100 on a GPU adapter, none on a CPU adapter */
  int32_t wait_spin_us;      /* microseconds a wait for the GPU polls before it blocks, up to 1,000,000; WGK_OFF:
                                block at once; WGK_WAIT_SPIN_US; 2,000 on a GPU adapter, none on a CPU adapter */
  int8_t staged_upload;      /* uploads above queue_write_max through reused mapped staging buffers (else through
                                mapped creation); WGK_STAGED_UPLOAD; on unless the adapter is a CPU */
  int8_t defer_uploads;      /* a one-piece staged upload's copy rides with the next submission; WGK_DEFER_UPLOADS;
                                on unless the adapter is a CPU */
  int8_t submit_during_fill; /* copies deferred by earlier uploads are submitted while a staged piece is filled;
                               WGK_SUBMIT_DURING_FILL; off */
  wgk_log_fn log;            /* where wgk's diagnostics go (wgk_log_kind); NULL: nowhere, the library never prints */
  void *log_user;            /* passed to log */
  /* More runtime strategies, by the rules above. The persistent pipeline cache (compiled pipelines kept between
   * processes) lives in $XDG_CACHE_HOME/wgk/pipelines, else ~/.cache/wgk/pipelines. */
  int64_t pipeline_cache_max_bytes; /* that cache's cap, the least recently used entries going past it, 1 .. 2^48;
                                       WGK_PIPELINE_CACHE_MAX_BYTES; 256 MiB */
  int32_t progress_after_ms;        /* how long a wait or compile runs before its progress line goes to log, up to
                                       3,600,000; WGK_OFF: at once; WGK_PROGRESS_AFTER_MS; 1,000 */
  int8_t pipeline_cache;            /* that cache is used; WGK_PIPELINE_CACHE; on */
  int8_t pipeline_cache_log;        /* its counts to log when the device goes; WGK_PIPELINE_CACHE_LOG; off */
  int8_t progress;                  /* progress lines (WGK_LOG_PROGRESS) of long waits; WGK_PROGRESS; on */
} wgk_context_options;

/* The values of a switch in wgk_context_options (0: its default), and "none" for the counts that allow it. */
#define WGK_ON 1
#define WGK_OFF (-1)

/* Bring your own device. wgpu_device must be a WGPUDevice of the Dawn wgk links (lib/wgk/libwebgpu_wrapper.so
 * of the install): <wgk/webgpu_dawn.h> declares its WebGPU API (the npm Dawn ships no webgpu.h, and enum values
 * differ between public header versions: use this one), and `pkg-config --libs wgk` links Dawn with libwgk.
 * examples/own_device.c is a complete program. What wgk needs of it:
 *   - Instance (wgpu_instance; NULL: found from the device's adapter): created with
 *     capabilities.timedWaitAnyEnable = 1, wgk's waits sleep in Dawn; without, wgk polls with a growing sleep.
 *   - Features: wgk makes its own device with each of these the adapter has (wgpuAdapterHasFeature); request the
 *     same ones in WGPUDeviceDescriptor.requiredFeatures:
 *       WGPUFeatureName_ShaderF16         float16 ports. Without it a float16 call is refused (WGK_ERR_UNSUPPORTED),
 *                                         the message saying whether the adapter lacks shader-f16 or your device
 *                                         was created without it;
 *       WGPUFeatureName_Subgroups         variants using subgroup operations (else other variants are chosen);
 *       WGPUFeatureName_ChromiumExperimentalSubgroupMatrix  the same for subgroup-matrix variants (the adapter
 *                                         offers it only on an instance with Dawn's toggle allow_unsafe_apis);
 *       WGPUFeatureName_TimestampQuery    wgk_call_gpu_time and wgk bench (else the time is 0).
 *   - Limits: wgk asks for all of the adapter's (wgpuAdapterGetLimits into requiredLimits); do the same. With the
 *     WebGPU defaults, a call needing more is refused with the limit named (WGK_ERR_LIMIT, or no variant). Planning
 *     reads maxBufferSize, maxStorageBufferBindingSize, maxUniformBufferBindingSize, maxStorageBuffersPerShaderStage,
 *     maxUniformBuffersPerShaderStage, maxBindGroups, maxBindingsPerBindGroup, maxComputeWorkgroupStorageSize,
 *     maxComputeInvocationsPerWorkgroup, maxComputeWorkgroupSizeX/Y/Z, maxComputeWorkgroupsPerDimension and
 *     min{Storage,Uniform}BufferOffsetAlignment.
 *   - Buffers given to wgk_tensor_wrap: usage Storage | CopySrc | CopyDst (CopySrc: data checks and
 *     wgk_tensor_read read them back; CopyDst: wgk_tensor_write), holding the tensor in GPU storage layout (see
 *     wgk_dtype), of at least that many bytes rounded up to 4.
 *   - wgk submits on the device's queue and reports WebGPU errors of its own work through error scopes; the
 *     device's uncaptured-error and device-lost callbacks stay yours. Work you submit after a wgk call (a copy
 *     of its output) is ordered after it on that queue.
 * wgk adds a reference to the device and instance and never destroys them (see Lifetimes). */

/* opts may be NULL. On failure *out is NULL; a message is in *errmsg when errmsg is not NULL (free it). */
WGK_API wgk_status wgk_context_create(const wgk_context_options *opts, wgk_context **out /* OUT */,
                                      char **errmsg /* OUT, nullable */);
/* Drops the caller's reference (see Lifetimes): the device and caches are freed with the last kernel,
 * tensor or batch of the context. */
WGK_API void wgk_context_destroy(wgk_context *ctx);
/* The error of the last status-returning call on ctx (see Errors above): "source:line:column: path: message";
 * "" when that call succeeded. The text lives in ctx until its next call. */
WGK_API const char *wgk_context_errmsg(const wgk_context *ctx);
WGK_API wgk_status wgk_context_errcode(const wgk_context *ctx);
/* The adapter in one line: "lavapipe (llvmpipe ...), vulkan, cpu". */
WGK_API const char *wgk_context_adapter(const wgk_context *ctx);
/* Blocks until all submitted work is done. Every wait on the GPU gives up with WGK_ERR_TIMEOUT after the
 * context's wait_timeout_ms (wgk_context_options). */
WGK_API wgk_status wgk_context_wait(wgk_context *ctx);

/* What the caches did, for tests and --verbose. */
typedef struct wgk_stats {
  uint64_t plans_made;          /* plans rendered (cache misses) */
  uint64_t plan_hits;           /* calls that reused a plan */
  uint64_t shaders_compiled;    /* WGSL modules compiled */
  uint64_t pipelines_created;   /* compute pipelines created */
  uint64_t bind_groups_created; /* bind groups created */
  uint64_t dispatches;          /* compute dispatches recorded */
  uint64_t submissions;         /* queue submissions */
} wgk_stats;
WGK_API void wgk_context_stats(const wgk_context *ctx, wgk_stats *out /* OUT */);

/* ---- kernels ---------------------------------------------------------------------------- */

typedef struct wgk_kernel_options {
  int version;            /* contract version (branch vN), 1 .. 1000000; 0 = the newest on this machine
                             (docs/hub.md); else WGK_ERR_INVALID_ARGUMENT */
  const char *revision;   /* 40-hex commit, recorded; NULL = none; any other text: WGK_ERR_INVALID_ARGUMENT */
  bool strict;            /* refuse packages without metadata.json (unverified) */
  bool trust_remote_code; /* load a repo of an org other than webgpu-kernels from the Hub */
} wgk_kernel_options;

/* path_or_id: a package folder, or a repo id "webgpu-kernels/<op id>" found on the search path
 * (WGK_KERNEL_PATH, then the share/wgk/kernels of the install this libwgk was loaded from, found relative to it
 * wherever the install was moved; from the build tree, the checkout's kernels/), else in the Hugging Face cache
 * ($HF_HUB_CACHE, $HF_HOME/hub, ~/.cache/huggingface/hub), else fetched from the Hub ($HF_ENDPOINT) into
 * that cache, every file digest-checked. Neither version nor revision: the newest version on this machine (the
 * cache's or the bundled copy's, no request to choose it); none there: WGK_ERR_NOT_FOUND (name a version to fetch
 * one). HF_HUB_OFFLINE=1 sends no request. docs/hub.md has the rules. opts may be NULL. */
WGK_API wgk_status wgk_kernel_load(wgk_context *ctx, const char *path_or_id, const wgk_kernel_options *opts,
                                   wgk_kernel **out /* OUT */);
/* Drops the caller's reference: calls created from the kernel keep it alive until they are destroyed. */
WGK_API void wgk_kernel_destroy(wgk_kernel *kernel);
WGK_API const char *wgk_kernel_op_id(const wgk_kernel *kernel);
/* A one-line warning for unverified packages, else NULL. */
WGK_API const char *wgk_kernel_warning(const wgk_kernel *kernel);
/* The contract version the loaded package records (metadata.json "version"), e.g. the one a load without a version
 * chose; 0 when it records none (or kernel is NULL). */
WGK_API int wgk_kernel_version(const wgk_kernel *kernel);

/* ---- introspection: a kernel's contract --------------------------------------------------
 * What a call may set, read from the kernel's manifest: ports, attributes, variants. The structs are the
 * kernel's: the caller neither frees nor changes them, and they stay valid as long as the kernel does (until
 * wgk_kernel_destroy and the last wgk_call_destroy of its calls). Fields are only ever appended to the structs.
 * Count and index accessors: a NULL kernel counts 0; an index past the end gives NULL. These functions leave
 * the context's error as it is (they return no status). */

typedef enum wgk_port_dir {
  WGK_PORT_DIR_IN = 1,    /* an input: wgk_call_set_input */
  WGK_PORT_DIR_OUT = 2,   /* an output: wgk_call_output (or wgk_call_set_output) */
  WGK_PORT_DIR_INOUT = 3, /* updated in place: set as an input, read back with wgk_call_output */
} wgk_port_dir;

typedef struct wgk_port_info {
  const char *key;                /* the port's key ("x"): the name calls take (they take onnx_name too) */
  const char *onnx_name;          /* the ONNX port name ("X") */
  wgk_port_dir dir;               /* input, output or in/out */
  bool optional;                  /* an input the call may leave unset */
  const char *type_var;           /* the dtype constraint's type variable ("T"); "" when it names none */
  const wgk_dtype *dtypes;        /* the dtypes the constraint allows, the contract's order; WGK_DTYPE_INVALID
                                     for a dtype this build of wgk does not know (its name is in dtype_names) */
  const char *const *dtype_names; /* the same dtypes by name ("float32", "float16") */
  size_t n_dtypes;                /* entries of dtypes and dtype_names */
} wgk_port_info;

typedef struct wgk_attr_info {
  const char *name;               /* the ONNX attribute name ("interleaved"), as wgk_call_set_attr_* take it */
  bool required;                  /* a call must set it (it has no default) */
  const char *default_json;       /* the default as compact JSON text ("0", "[1,2]"); NULL when it has none */
  const char *const *values_json; /* the allowed values as compact JSON texts; NULL (n_values 0) when any value
                                     of its type is allowed */
  size_t n_values;                /* entries of values_json */
  const char *description;        /* the contract's text; "" when none */
} wgk_attr_info;

WGK_API size_t wgk_kernel_port_count(const wgk_kernel *kernel);
WGK_API const wgk_port_info *wgk_kernel_port(const wgk_kernel *kernel, size_t index);
/* By key or ONNX name; NULL when the kernel has no such port. */
WGK_API const wgk_port_info *wgk_kernel_find_port(const wgk_kernel *kernel, const char *name);
WGK_API size_t wgk_kernel_attr_count(const wgk_kernel *kernel);
WGK_API const wgk_attr_info *wgk_kernel_attr(const wgk_kernel *kernel, size_t index);
/* By name; NULL when the kernel has no such attribute. */
WGK_API const wgk_attr_info *wgk_kernel_find_attr(const wgk_kernel *kernel, const char *name);
/* The variants in the contract's order, by id ("rank4_cache3"); wgk_call_variant names the one a run chose. */
WGK_API size_t wgk_kernel_variant_count(const wgk_kernel *kernel);
WGK_API const char *wgk_kernel_variant_id(const wgk_kernel *kernel, size_t index);

/* ---- tensors ---------------------------------------------------------------------------- */

/* A new GPU tensor. data (host layout, C order, wgk_dtype_size bytes per element) may be NULL:
 * the contents are then unspecified. */
WGK_API wgk_status wgk_tensor_create(wgk_context *ctx, wgk_dtype dtype, int rank, const int64_t *shape,
                                     const void *data, wgk_tensor **out /* OUT */);
/* A float16 tensor from float32 host values (rounded to nearest even). */
WGK_API wgk_status wgk_tensor_create_f16_from_f32(wgk_context *ctx, int rank, const int64_t *shape, const float *data,
                                                  wgk_tensor **out /* OUT */);
/* Wraps a caller's WGPUBuffer (as void*) holding the tensor in GPU storage layout; never destroyed
 * by wgk. Its size must cover the tensor. The caller may rewrite it between calls: data checks read
 * it back each time (see Data checks). */
WGK_API wgk_status wgk_tensor_wrap(wgk_context *ctx, wgk_dtype dtype, int rank, const int64_t *shape, void *wgpu_buffer,
                                   wgk_tensor **out /* OUT */);
WGK_API wgk_tensor *wgk_tensor_retain(wgk_tensor *t);
WGK_API void wgk_tensor_release(wgk_tensor *t); /* NULL is a no-op */
WGK_API wgk_dtype wgk_tensor_dtype(const wgk_tensor *t);
WGK_API int wgk_tensor_rank(const wgk_tensor *t);
WGK_API const int64_t *wgk_tensor_shape(const wgk_tensor *t);
WGK_API int64_t wgk_tensor_numel(const wgk_tensor *t);
WGK_API size_t wgk_tensor_host_bytes(const wgk_tensor *t); /* numel * wgk_dtype_size */
/* The GPU buffer (a WGPUBuffer as void*), in storage layout. From then on wgk assumes the caller may
 * write it: data checks of this tensor read it back instead of trusting wgk's host copy. */
WGK_API void *wgk_tensor_wgpu_buffer(const wgk_tensor *t);
/* Waits for pending work and copies the tensor to host memory (size >= wgk_tensor_host_bytes). A tensor
 * written by a call added to a batch that is not submitted yet holds no values of that call: reading it is
 * refused (WGK_ERR_CALL; out unchanged) until wgk_batch_submit. */
WGK_API wgk_status wgk_tensor_read(wgk_tensor *t, void *out, size_t size);
/* Float16 tensor read back as float32. */
WGK_API wgk_status wgk_tensor_read_f32(wgk_tensor *t, float *out, size_t count);
/* Replaces the contents from host memory (same dtype and shape). */
WGK_API wgk_status wgk_tensor_write(wgk_tensor *t, const void *data, size_t size);

/* ---- calls ------------------------------------------------------------------------------ */

WGK_API wgk_status wgk_call_create(wgk_kernel *kernel, wgk_call **out /* OUT */);
WGK_API void wgk_call_destroy(wgk_call *call);
/* name: a bind key ("x") or the ONNX port name ("X"). NULL tensor unsets (absent optional input).
 * The call keeps a reference. */
WGK_API wgk_status wgk_call_set_input(wgk_call *call, const char *name, wgk_tensor *t);
/* A caller-owned output (shape and dtype must match what the contract infers). NULL unsets it (and an ask made
 * with wgk_call_want_output). An optional output is made only when the call asks for it: with this, or with
 * wgk_call_want_output; one not asked for is not made, and wgk_call_output gives NULL for it
 * (docs/loader-semantics.md rule 35). */
WGK_API wgk_status wgk_call_set_output(wgk_call *call, const char *name, wgk_tensor *t);
/* Asks wgk to make an output without giving a tensor: the shape is the contract's; dtype WGK_DTYPE_INVALID takes
 * the dtype the contract infers, another dtype is the dtype asked for (it must be allowed, and binds the port's
 * type variable as an input's dtype does). want false withdraws the ask. For an optional output this is how a
 * call asks for it; for any other output it only sets the dtype. */
WGK_API wgk_status wgk_call_want_output(wgk_call *call, const char *name, bool want, wgk_dtype dtype);
/* Attributes by name. A name the contract does not declare is refused at once (WGK_ERR_NOT_FOUND), the message
 * naming the nearest declared name when it looks misspelled ("did you mean 'interleaved'?"); values are checked
 * against the contract when the call runs. */
WGK_API wgk_status wgk_call_set_attr_int(wgk_call *call, const char *name, int64_t value);
WGK_API wgk_status wgk_call_set_attr_float(wgk_call *call, const char *name, double value);
WGK_API wgk_status wgk_call_set_attr_string(wgk_call *call, const char *name, const char *value);
WGK_API wgk_status wgk_call_set_attr_ints(wgk_call *call, const char *name, const int64_t *values, size_t count);
/* value: JSON text of any value ("1", "[1, 2]", "\"x\"", "1.5"). */
WGK_API wgk_status wgk_call_set_attr_json(wgk_call *call, const char *name, const char *json);
WGK_API wgk_status wgk_call_set_arg_json(wgk_call *call, const char *name, const char *json);
WGK_API wgk_status wgk_call_set_tunable(wgk_call *call, const char *name, int64_t value);
/* Plans and compiles ahead for the inputs set so far (pre-warm); dispatches nothing. */
WGK_API wgk_status wgk_prepare(wgk_call *call);
/* Validates, plans, resolves every pass, records and submits; returns without waiting. On failure
 * nothing is recorded and the call's outputs are those of its previous run. */
WGK_API wgk_status wgk_call_run(wgk_call *call);
/* One output read into host memory by wgk_call_run_read. */
typedef struct wgk_output_read {
  const char *name; /* output (or in/out) port: bind key or port name */
  void *data;       /* receives the values as wgk_tensor_read writes them */
  size_t size;      /* bytes at data: at least the output's wgk_tensor_host_bytes */
} wgk_output_read;
/* wgk_call_run, then each listed output read into host memory, with one submission and one wait for both:
 * outputs up to one staging piece are copied out in the call's own submission, larger ones are read after it as
 * wgk_tensor_read does. A name that is no output, or a size short of the output's bytes, refuses the call before
 * anything is recorded (no host memory written). The outputs stay readable with wgk_call_output. */
WGK_API wgk_status wgk_call_run_read(wgk_call *call, const wgk_output_read *reads, size_t n_reads);
/* One input given to wgk_call_run_host as host values. */
typedef struct wgk_input_write {
  const char *name; /* input (or in/out) port: bind key or port name */
  wgk_dtype dtype;  /* of the values, as wgk_tensor_create takes them */
  int rank;
  const int64_t *shape;
  const void *data;
  size_t size; /* bytes at data: exactly the tensor's wgk_tensor_host_bytes */
} wgk_input_write;
/* The public loader's call in one: each listed input set to a new tensor holding its host values (as
 * wgk_tensor_create, then wgk_call_set_input), the call run, and each listed output read into host memory (as
 * wgk_call_run_read), with one submission and one wait. Large float inputs go straight into staging memory, filled
 * on the context's threads while this thread records the call. A bad input (a port that is no input or is listed
 * twice, NULL data, a bad dtype or shape, a size other than the tensor's bytes), a bad read, or any refusal of the
 * call leaves everything as it was: nothing submitted, the call's inputs and outputs those before, no host memory
 * written. */
WGK_API wgk_status wgk_call_run_host(wgk_call *call, const wgk_input_write *inputs, size_t n_inputs,
                                     const wgk_output_read *reads, size_t n_reads);
/* After a run: an output (or in/out) tensor by bind key or port name, borrowed (valid until the next
 * successful run or add, or destroy; wgk_tensor_retain to keep it); NULL if unknown or before a run. */
WGK_API wgk_tensor *wgk_call_output(wgk_call *call, const char *name);
/* After a run: the chosen variant id. */
WGK_API const char *wgk_call_variant(const wgk_call *call);
/* GPU time of the last run in nanoseconds from timestamp queries (0 if unsupported); waits. */
WGK_API wgk_status wgk_call_gpu_time(wgk_call *call, uint64_t *ns /* OUT */);
WGK_API wgk_status wgk_call_enable_timing(wgk_call *call, bool on);

/* ---- batches ---------------------------------------------------------------------------- */

WGK_API wgk_status wgk_batch_create(wgk_context *ctx, wgk_batch **out /* OUT */);
/* Validates and records call into the batch; its outputs are ready once the batch is submitted (reading one
 * before, with wgk_tensor_read, is refused).
 * A call may be added again after changing its inputs: each add records the inputs set now.
 * A refused add records nothing: the batch is exactly as before it (see the call lifecycle). The call
 * must be of the batch's context. */
WGK_API wgk_status wgk_batch_add(wgk_batch *batch, wgk_call *call);
/* Submits everything recorded as one command buffer; the batch can then be reused. */
WGK_API wgk_status wgk_batch_submit(wgk_batch *batch);
WGK_API void wgk_batch_destroy(wgk_batch *batch);

#ifdef __cplusplus
}
#endif
#endif /* WGK_H */
