/* Internals of the runtime: the structs behind the public handles of wgk.h. */
#ifndef WGK_RUNTIME_INTERNAL_H
#define WGK_RUNTIME_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "wgk.h"

#include "expr/expr.h"
#include "gpu/gpu.h"
#include "package/package.h"
#include "plan/plan.h"
#include "runtime/runtime_access.h"
#include "util/error.h"

#define WGK_HOST_SHADOW_MAX (4u << 20) /* integer tensors up to this size keep a host copy for checks */
#define WGK_BIND_CACHE 8               /* bind groups kept per planned pass */
#define WGK_PLAN_CACHE 512             /* plans kept per kernel (least used evicted) */
#define RT_PLAN_KEY_MAX (1 << 20)      /* bytes of a call's plan key: its values and shapes as text */
#define RT_VALUE_MAX_TEXT (256 << 10)  /* bytes one attribute, arg or tunable value takes as text */
#define WGK_STAGED_CHUNK (8ull << 20)  /* pieces of a staged transfer (a power of two: a pool size class) */
/* Uploads up to this size go through wgpuQueueWriteBuffer, which copies into Dawn's own 4 MiB staging ring and
 * returns: no wait for the GPU. Larger ones are staged: on the H200 two 1 MiB queue writes a call exhaust the ring
 * now and then (RoPE decode f32 end to end: median 206-470 us, p90 441-1774 us, against 218 / p90 267 us staged;
 * bench/results/archive-2026-12-02/h200-2026-12-01-uploads.md), and with the host threads spinning two 512 KiB caches
 * staged on two threads each beat their queue writes by 23-32 us a call (float16 decode, h200-2026-12-01-host-spin.md).
 */
#define WGK_QUEUE_WRITE_MAX (256ull << 10)
#define WGK_POOL_BYTES (512ull << 20) /* buffers of released tensors and readback staging kept per context */
#define WGK_HOST_THREADS_DEFAULT                                                 \
  8 /* threads at most (the caller's included) converting one large staged piece \
      (env WGK_HOST_THREADS) */
#define WGK_HOST_SPAN                                                                            \
  (256u << 10) /* bytes of host work a thread takes of a staged piece; a piece of twice this and \
                more is split (env WGK_HOST_SPAN) */
#define WGK_HOST_SPIN_US                                                                                         \
  100u                     /* microseconds the threads (and the caller) watch for work before sleeping, on a GPU \
                              adapter (env WGK_HOST_SPIN_US, 0 .. 100000; 0 on a CPU adapter) */
#define WGK_WAIT_MS 60000u /* default longest wait for the GPU before WGK_ERR_TIMEOUT (env WGK_WAIT_TIMEOUT_MS) */

/* A context's strategies as wgk_context_create resolved them (runtime/options.c): the option, else its
 * environment variable, else the default; -1 in a field decided by the adapter means "by the adapter". */
typedef struct rt_settings {
  uint32_t wait_ms;                     /* wait_timeout_ms */
  uint64_t pool_bytes;                  /* 0: no reuse */
  uint64_t queue_write_max;             /* 0: every upload staged */
  uint64_t host_span;                   /* bytes a thread */
  uint64_t max_storage_binding;         /* 0: the device's limit */
  const char *max_storage_binding_from; /* the option or variable that gave it, for messages */
  int host_threads;                     /* the caller's included */
  int host_spin_us, wait_spin_us;       /* -1: by the adapter */
  int staged_upload, defer_uploads;     /* 1 on, 0 off, -1 by the adapter */
  bool submit_during_fill;
  bool pipeline_cache, pipeline_cache_log; /* the persistent pipeline cache used; its counts logged */
  uint64_t pipeline_cache_max;             /* its cap in bytes */
  long progress_after_ms;                  /* a long wait's progress line after this long; -1: none */
} rt_settings;

/* opts may be NULL. A value breaking its rule: WGK_ERR_INVALID_ARGUMENT naming the field or the variable. */
wgk_status rt_settings_resolve(const wgk_context_options *opts, rt_settings *out, util_error *err);

typedef struct rt_pipeline_entry {
  uint64_t hash;            /* of the WGSL text and layout */
  char *wgsl;               /* the text compiled (compared on hash hits) */
  gpu_binding_type *layout; /* binding types */
  size_t n_layout;          /* number of bindings */
  gpu_shader *shader;       /* compiled module */
  gpu_pipeline *pipeline;   /* the pipeline */
} rt_pipeline_entry;

struct wgk_context {
  atomic_int refs;           /* the caller's (until wgk_context_destroy) + one per kernel, tensor, batch */
  pthread_mutex_t lock;      /* recursive; held by every public function using the context (rt_lock) */
  uint64_t next_serial;      /* batch recordings: a new serial per batch and per submit */
  uint64_t recording_serial; /* the serial of the batch being recorded into; 0 for wgk_call_run */
  gpu_device *dev;           /* the device (owned handle; a caller's device is only referenced) */
  util_error err;            /* last error */
  util_log log;              /* wgk_context_options.log: where the library's diagnostics go */
  char errmsg[WGK_ERROR_MESSAGE_MAX + 1024]; /* err formatted */
  char adapter_line[512];                    /* "llvmpipe ..., vulkan, cpu" */
  wgk_stats stats;                           /* cache and work counters */
  /* Host time of the last successful wgk_call_run_host by phase (ns): make the inputs and take the staging; write
   * the small inputs and record (on this thread, beside the fill); the whole job (fill and record); submit; read
   * the outputs back (the wait included). For benchmarks of the call's parts (bench/rope_decode_ab). */
  uint64_t run_host_ns[5];
  rt_pipeline_entry **pipelines; /* pipeline cache, shared by every kernel; entries never move */
  size_t n_pipelines;            /* entries in use */
  double shader_ns, pipeline_ns; /* time spent creating shader modules / pipelines (pipeline_cache.c) */
  double compile_cpu_ns;         /* the process's CPU time over the same (`wgk run -v`'s compile) */
  uint64_t bind_clock;           /* ticks of bind-group use, for eviction */
  bool verbose;                  /* log cache decisions to stderr */
  uint32_t wait_ms;              /* longest wait for the GPU: WGK_WAIT_MS, or env WGK_WAIT_TIMEOUT_MS */
  struct wgk_batch *batches;     /* live batches (linked by next): a read checks none of them holds its writer */
  bool staged_upload;            /* uploads larger than the queue-write limit through the pool's MAP_WRITE staging: on
                                    for a GPU adapter, off for a CPU one (lavapipe: 20x slower); env WGK_STAGED_UPLOAD=0|1
                                    decides */
  bool defer_uploads;           /* a one-piece staged upload's copy rides with the next submission (gpu.h): on for a GPU
                                   adapter (H200 decode e2e 189 against 203 us), off for a CPU one, whose copies run on
                                   host threads beside the next fill when submitted at once (lavapipe: 203 against
                                   235 us); env WGK_DEFER_UPLOADS=0|1 decides */
  bool submit_during_fill;      /* copies deferred by earlier uploads are submitted while the threads fill a staged
                                   upload's first piece (runtime/tensor.c): off unless WGK_SUBMIT_DURING_FILL=1 (on
                                   the H200 it saved 14-18 us of a decode call on two lent machines, cost 21-27 us
                                   on a third, whose submission outlasted the fill, and was even on a fourth) */
  uint64_t queue_write_max;     /* uploads up to this many bytes go through queue writes (WGK_QUEUE_WRITE_MAX) */
  uint64_t staged_chunk;        /* a staged upload goes in pieces of this many bytes (WGK_STAGED_CHUNK): the staging
                                   stays one small size class, reused piece after piece, however large the tensor */
  gpu_pool pool;                /* buffers of released tensors (reused only by uploads that overwrite every byte) and
                                       readback staging buffers, reused across calls */
  struct util_workers *workers; /* host threads for large staged conversions (NULL: all on the caller's thread) */
  uint64_t host_span;           /* bytes of a staged piece's host work per thread (WGK_HOST_SPAN, 4 KiB .. 64 MiB) */
};

typedef struct rt_bind_entry {
  uint64_t ids[16];      /* the bound buffers' gpu_buffer_id, in binding order (0 for the uniform) */
  gpu_bind_group *group; /* the bind group */
  uint64_t last_use;     /* for eviction */
} rt_bind_entry;

typedef struct rt_pass_state {
  const rt_pipeline_entry *pipeline;   /* borrowed from the context cache */
  gpu_buffer *uniform;                 /* the pass's uniform values (fixed by the plan key) */
  rt_bind_entry binds[WGK_BIND_CACHE]; /* recently used bind groups */
} rt_pass_state;

typedef struct rt_plan_entry {
  char *key;             /* plan_call_key text */
  plan_result *plan;     /* the plan */
  rt_pass_state *passes; /* per plan pass */
  gpu_buffer **scratch;  /* per plan intermediate: its buffer, reused by every call of the plan */
  uint64_t uses;         /* for eviction and stats */
  int pins;              /* users holding the entry (a call in progress, a call's last plan): never evicted */
} rt_plan_entry;

/* The contract as wgk.h's introspection shows it (runtime/introspect.c): built at load, freed with the kernel. */
typedef struct rt_kernel_info rt_kernel_info;
wgk_status rt_kernel_info_make(const manifest_model *m, rt_kernel_info **out);
void rt_kernel_info_free(rt_kernel_info *info);

struct wgk_kernel {
  int refs;                /* the caller's (until wgk_kernel_destroy) + one per call; under the context lock */
  wgk_context *ctx;        /* owner (referenced) */
  pkg_package *pkg;        /* package files and manifest */
  const manifest_model *m; /* the contract */
  tmpl_loader loader;      /* reads templates through the package (digest-checked) */
  plan_planner *planner;   /* parsed expressions and templates */
  rt_plan_entry **plans;   /* plan cache; entries never move */
  size_t n_plans;          /* entries in use */
  size_t cap_plans;        /* allocated */
  size_t max_plans;        /* cache size (WGK_PLAN_CACHE; tests lower it) */
  json_t *tuned;           /* tuning-cache entries of this device and op (runtime/tuning.h) */
  rt_kernel_info *info;    /* ports, attributes for wgk_kernel_port / wgk_kernel_attr */
};

struct wgk_tensor {
  int refs;                    /* reference count; under the context lock */
  wgk_context *ctx;            /* owner (referenced) */
  wgk_dtype dtype;             /* logical dtype */
  wgk_dtype storage;           /* layout of buf: dtype's own, except int64 stored as INT32/UINT32 words (an
                                  output of a port that projects int64) */
  size_t buf_bytes;            /* size of buf (at least what storage needs) */
  int rank;                    /* dims */
  int64_t shape[WGK_MAX_DIMS]; /* dims */
  int64_t numel;               /* product of dims */
  gpu_buffer *buf;             /* storage-layout buffer */
  void *host;                  /* host copy (integer tensors up to WGK_HOST_SHADOW_MAX), else NULL */
  bool host_valid;             /* host holds the current contents */
  bool external;               /* the caller can write the buffer behind wgk's back (wrapped, or its WGPUBuffer
                                  handed out): host copy and narrow are never trusted, checks read back */
  uint64_t pending_serial;     /* the batch serial of the last recording that writes it (0: wgk_call_run) */
  gpu_buffer *narrow;          /* the tensor in the layout a port needs, made on demand from the host values */
  size_t narrow_bytes;         /* size of narrow */
  int narrow_kind;             /* 0 none, 1 u32 checked, 2 i32 checked, 3 u32 saturating, 4 i32 saturating,
                                  5 int64 widened from 32-bit storage, 6 uint8 packed four per word */
  bool narrow_valid;           /* narrow is up to date */
  bool narrow_written;         /* an in/out port of the staged call writes narrow (runtime/execute.c) */
  bool clear_pending;          /* buf came from the pool holding another tensor's bytes: the call that stages it as
                                  an output records a clear before its passes (what a new buffer reads: zeros) */
};

struct wgk_call {
  wgk_kernel *k;             /* the kernel (referenced) */
  wgk_tensor **ports;        /* per manifest port: input, or caller-given output (referenced) */
  wgk_tensor **outputs;      /* per manifest port: the output of the last run (referenced) */
  bool *given;               /* per port: ports[i] is a caller-given output */
  bool *wanted;              /* per port: an output asked for with wgk_call_want_output */
  wgk_dtype *want_dtype;     /* per port: the dtype it asked for (WGK_DTYPE_INVALID: the contract's) */
  expr_value *attrs;         /* dict of attributes set */
  expr_value *args;          /* dict of scalar args set */
  expr_value *tunables;      /* dict of tunables set */
  char variant[128];         /* chosen variant of the last run */
  bool timing;               /* time passes with timestamp queries */
  gpu_timer *timer;          /* timestamps of the last run */
  uint32_t timer_slots;      /* slots in timer */
  bool timed_last;           /* the last run wrote timer */
  uint32_t timed_slots;      /* slots the last run wrote (a split call: one per pass of every sub-call) */
  uint64_t slot_ns[64];      /* per slot: its busy share as wgk_call_gpu_time read it last (gpu_timer_read) */
  uint32_t slot_ns_n;        /* slots in slot_ns; 0 before a read */
  uint64_t span_ns;          /* first pass's begin to last pass's end of that read (gpu_timer_span) */
  rt_plan_entry *last_entry; /* the plan of the last run (pinned until the next run or destroy) */
  bool tuned_last;           /* the last run took tunables from the tuning cache */
  /* The plan-cache lookup is skipped when nothing its key reads changed since the last run: */
  plan_tensor *key_ports; /* 2 x n ports: [0, n) the ports as the last run planned them, [n, 2n) scratch */
  uint64_t values_gen;    /* bumped by every attribute, arg and tunable set */
  uint64_t key_gen;       /* values_gen of the last run's plan */
  /* wgk_call_run_read's reads while it records (else NULL): once the outputs are staged, each size is checked and
   * the output's read-back staging buffer taken (read_staging[r]; NULL for one read after the submission) */
  const wgk_output_read *reads;
  size_t n_reads;
  gpu_buffer **read_staging;
};

struct wgk_batch {
  wgk_context *ctx;       /* owner (referenced) */
  uint64_t serial;        /* of this recording (renewed by each submit) */
  gpu_encoder *enc;       /* open recording, NULL when empty */
  size_t calls;           /* recorded since the last submit */
  struct wgk_batch *next; /* the context's next live batch */
};

/* Context errors. */
void rt_clear(wgk_context *ctx);

/* The context lock (recursive): every public function that uses a context holds it, so several threads may
 * share one context. rt_ctx_retain/_release count the objects that keep a context alive. */
void rt_lock(wgk_context *ctx);
void rt_unlock(wgk_context *ctx);
void rt_ctx_retain(wgk_context *ctx);
void rt_ctx_release(wgk_context *ctx);

/* Kernels: a call holds a reference, wgk_kernel_destroy drops the caller's. */
void rt_kernel_retain(wgk_kernel *k);
void rt_kernel_release(wgk_kernel *k);

/* dtype storage. */
size_t rt_storage_bytes(wgk_dtype dtype, int64_t numel); /* GPU bytes, rounded up to 4, at least 4 */
bool rt_to_storage(wgk_dtype dtype, const void *host, int64_t numel, void *storage);
bool rt_from_storage(wgk_dtype dtype, const void *storage, int64_t numel, void *host);
/* From a buffer in layout `storage` (dtype's own, or INT32/UINT32 words of an int64 tensor) to host values. */
bool rt_from_stored(wgk_dtype dtype, wgk_dtype storage, const void *words, int64_t numel, void *host);
/* The layout a port keeps a tensor of dtype in: INT32/UINT32 for int64 where the port projects it, else dtype. */
wgk_dtype rt_port_storage(const manifest_port *port, wgk_dtype dtype);
wgk_dtype rt_dtype_of(const char *logical);
/* Bytes of one element in the layout a port binds a tensor of dtype in (packed uint8: 1). */
size_t rt_port_element_bytes(const manifest_port *port, wgk_dtype dtype);

/* Tensors. */
/* The buffer of a tensor that is gone: into the context's pool, unless a live batch holds a recording not yet
 * submitted (it may bind the buffer, and a reuse's queue write would land before that recording runs). */
void rt_buffer_release(wgk_context *ctx, gpu_buffer *buf);
wgk_status rt_tensor_new(wgk_context *ctx, wgk_dtype dtype, int rank, const int64_t *shape, wgk_tensor **out);
/* An output a call stages: buf from the pool when one fits (clear_pending set), else new. */
wgk_status rt_tensor_new_output(wgk_context *ctx, wgk_dtype dtype, wgk_dtype storage, int rank, const int64_t *shape,
                                wgk_tensor **out);
/* The same with buf in layout storage (rt_port_storage). */
wgk_status rt_tensor_new_stored(wgk_context *ctx, wgk_dtype dtype, wgk_dtype storage, int rank, const int64_t *shape,
                                wgk_tensor **out);
/* The reads of wgk_call_run_read and wgk_call_run_host (runtime/run_read.c). rt_reads_check, before anything is
 * planned: every name an output (or in/out) port, every data pointer set. rt_reads_record: the call recorded (its
 * reads checked and their staging buffers taken into staging[r] as its outputs are staged), then the copy of every
 * output with a staging buffer; nothing can refuse after the call's own recording. rt_reads_finish, after the
 * submission: every recorded read's map started, then each waited for and drained; the others read whole. Every
 * staging buffer is given back or destroyed, whatever fails. */
wgk_status rt_reads_check(wgk_call *c, const wgk_output_read *reads, size_t n);
wgk_status rt_reads_record(wgk_call *c, gpu_encoder *enc, const wgk_output_read *reads, size_t n, gpu_buffer **staging);
wgk_status rt_reads_finish(wgk_call *c, const wgk_output_read *reads, size_t n, gpu_buffer **staging);
/* The reads' staging buffers after a refusal (back to the pool, unused) or a failed submission (destroyed). */
void rt_reads_drop(wgk_context *ctx, gpu_buffer **staging, size_t n, bool submitted);

/* A call's host inputs (runtime/run_host.c). rt_tensor_new_input: a tensor whose buffer (pooled, else new) the
 * host values are about to fill. rt_tensor_upload: t's values written at once (as wgk_tensor_write, without its
 * checks). rt_tensor_stages_whole: whether t's values instead go through one staging buffer the caller fills and
 * copies in its own submission (a float tensor above the queue-write limit, of one staged piece, where the context
 * stages; integers are written at once, so checks that read their values find them). rt_tensor_stage_span:
 * elements [first, end) of t's host values data into mapped, the staging of t's whole buffer, the span ending at
 * the last element zeroing the buffer's tail; host work only, on any thread. */
wgk_status rt_tensor_new_input(wgk_context *ctx, wgk_dtype dtype, int rank, const int64_t *shape, wgk_tensor **out);
wgk_status rt_tensor_upload(wgk_tensor *t, const void *data);
bool rt_tensor_stages_whole(const wgk_tensor *t);
void rt_tensor_stage_span(const wgk_tensor *t, const void *data, void *mapped, int64_t first, int64_t end);
/* Host copy of an integer tensor holding the values the GPU will read: the kept copy when it is current, else
 * read back (wrapped or exposed buffers, outputs of earlier calls). what names the port in errors; a tensor
 * that an earlier call of the batch being recorded writes is refused (its values do not exist yet). */
wgk_status rt_tensor_host(wgk_tensor *t, const char *what, const void **out);
/* wgk_tensor_read under the context's lock held by the caller. */
wgk_status rt_tensor_read(wgk_tensor *t, void *out, size_t size);
/* A read of t inside a submission: rt_tensor_read_staging gives its staging buffer when its storage fits one
 * staging piece (else *staging NULL: read it after the submission with rt_tensor_read); rt_tensor_read_record,
 * once the call's outputs are committed, records the copy into it, or gives it back and sets *staging NULL when
 * the committed storage no longer fits it. */
wgk_status rt_tensor_read_staging(wgk_tensor *t, gpu_buffer **staging /* OUT */);
wgk_status rt_tensor_read_record(wgk_tensor *t, gpu_encoder *enc, gpu_buffer **staging /* IN/OUT */);
/* After the submission: the recorded read's map started (rt_tensor_read_start, for every read before any wait), then
 * waited for and converted into out (the tensor's host values). */
void rt_tensor_read_start(const wgk_tensor *t, gpu_buffer *staging);
wgk_status rt_tensor_read_finish(wgk_tensor *t, gpu_buffer *staging, void *out);
/* The buffer bound for a port the kernel reads: the tensor's own, or a copy in the port's layout made from the
 * host values (int64 narrowed to 32 bits, checked or saturating; int64 held as 32-bit words widened back to
 * 64; uint8 packed). source names the manifest in errors. */
wgk_status rt_tensor_binding(wgk_tensor *t, const manifest_port *port, const char *source, gpu_buffer **out);
/* A given int64 input with a checked 32-bit projection, bound by a pass or not: a value out of range refuses the
 * call, as the public loader narrows every host input when it uploads it (docs/loader-semantics.md rule 12). */
wgk_status rt_tensor_check_narrowing(wgk_tensor *t, const manifest_port *port, const char *source);
/* The buffer bound for a port the kernel writes (output, in/out): refuses, before anything is recorded, a
 * tensor whose buffer cannot take the port's layout (a caller's buffer, or one too small). */
wgk_status rt_tensor_written_binding(wgk_tensor *t, const manifest_port *port, const char *source, gpu_buffer **out);
/* After the call is recorded: t holds what the kernel writes, in the port's layout. */
void rt_tensor_commit_written(wgk_tensor *t, const manifest_port *port);

/* Pipelines. */
wgk_status rt_pipeline(wgk_context *ctx, const plan_pass *pass, const rt_pipeline_entry **out);
void rt_pipelines_free(wgk_context *ctx);

/* Plan-cache entries in use are pinned: never evicted until unpinned. */
void rt_plan_pin(rt_plan_entry *e);
void rt_plan_unpin(rt_plan_entry *e);

/* Plans of a kernel: looked up by key, made and prepared (pipelines, uniforms) on a miss. */
wgk_status rt_plan_for(wgk_kernel *k, const plan_call *call, rt_plan_entry **out);
/* The same; without with_pipelines a new entry is only planned (e->passes NULL until a call needs it). */
wgk_status rt_plan_lookup(wgk_kernel *k, const plan_call *call, bool with_pipelines, rt_plan_entry **out);
void rt_plans_free(wgk_kernel *k);

/* rt_call_plan, rt_call_shape_key and the handles' accessors: runtime/runtime_access.h. */

/* Split calls (runtime/split.c): a call with a tensor over the storage-binding limit, run as sub-calls that each
 * bind a window of the split ports, along the axis an op's hooks declare (src/ops/ops.h, ops_split). */
typedef struct rt_split {
  const char *rule; /* the op's rule taken */
  int *axis;        /* per manifest port: the axis split, or -1 (bound whole, or absent) */
  int64_t *slab;    /* per manifest port: bytes of one step along the axis in the port's layout (0: whole) */
  int64_t extent;   /* of the split axes */
  int64_t chunk;    /* steps per sub-call (the last takes the rest) */
} rt_split;

/* Finds the first rule of the op that splits c into sub-calls whose windows fit limit, align; plans the
 * probing sub-call with plan(c, ports, entry) where needed. WGK_ERR_LIMIT with the context's error kept (the
 * refusal that brought the runtime here) when no rule fits; the message then says why. */
typedef wgk_status (*rt_split_planner)(wgk_call *c, const plan_tensor *ports, rt_plan_entry **entry);
wgk_status rt_split_find(wgk_call *c, const plan_tensor *ports, rt_split_planner plan, rt_split *out);
void rt_split_free(rt_split *s);
/* The call's ports (as the planner takes them) made the sub-call's: count steps along every split input's axis. */
void rt_split_shrink(const wgk_call *c, const rt_split *s, int64_t count, plan_tensor *ports);

/* A port by bind key or ONNX name; -1 when none. */
int rt_port_index(const manifest_model *m, const char *name);
/* WGK_ERR_NOT_FOUND naming the op's inputs (or outputs) for a port `name` it does not have. */
wgk_status rt_unknown_port(wgk_call *call, const char *name, bool inputs);

/* Calls: record into enc: plan, check, resolve every pass (buffers, bind groups, pipelines, limits), and only
 * then record; on failure nothing is recorded and the call's outputs are as before. serial: the batch's, or 0. */
wgk_status rt_call_record(wgk_call *call, gpu_encoder *enc, uint64_t serial);
/* True when serial is the recording of a live batch holding calls not yet submitted: a tensor written there
 * (pending_serial) has no values yet, so reading it is refused rather than answered with stale contents. */
bool rt_batch_unsubmitted(const wgk_context *ctx, uint64_t serial);

#endif
