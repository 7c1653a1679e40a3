/* The copy and FMA ceilings: fixed kernels dispatched through src/gpu, each timed by timestamps and by the wall
 * time of back-to-back dispatches in one submission, on warm clocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/ceiling.h"
#include "bench/consistency.h"
#include "device/device_desc.h"
#include "util/clock.h"

#define WG 256u
#define COPY_MAX_BYTES (256ull << 20)    /* per buffer: far past any cache */
#define COPY_MAX_BYTES_CPU (64ull << 20) /* a CPU adapter: past its last-level cache, a dispatch in tens of ms */
#define COPY_MAX_VEC4 8u                 /* the largest variant: the buffer is a multiple of its block */
#define FMA_CHAINS 4u                    /* independent chains per thread (vec4 each) */
#define WALL_SAMPLES 5                   /* wall samples of `reps` back-to-back dispatches */

bool bench_timestamps_trusted(const device_desc *dev) {
  return device_has(dev, WGK_FEATURE_TIMESTAMP_QUERY) && strcmp(dev->adapterType, "cpu") != 0;
}

double bench_now_ns(void) { return (double)util_now_ns(); }

/* The copy kernel with V vec4 per thread: a workgroup copies a block of 256 V vec4, thread li elements
 * li, li + 256, ... (each load and store coalesced across the workgroup); all V loads are issued before the
 * first store so V x 16 bytes per thread are in flight. */
static void copy_wgsl(uint32_t v, char *out, size_t size) {
  size_t n = (size_t)snprintf(out, size,
                              "@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;\n"
                              "@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;\n"
                              "@compute @workgroup_size(256)\n"
                              "fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,\n"
                              "        @builtin(local_invocation_index) li: u32) {\n"
                              "  let base = (wg.y * nw.x + wg.x) * %uu + li;\n"
                              "  let n = arrayLength(&dst);\n"
                              "  if (base + %uu < n) {\n",
                              256 * v, 256 * (v - 1));
  for (uint32_t k = 0; k < v && n < size; k++)
    n += (size_t)snprintf(out + n, size - n, "    let v%u = src[base + %uu];\n", k, 256 * k);
  for (uint32_t k = 0; k < v && n < size; k++)
    n += (size_t)snprintf(out + n, size - n, "    dst[base + %uu] = v%u;\n", 256 * k, k);
  if (n < size)
    snprintf(out + n, size - n,
             "  } else {\n"
             "    for (var k = 0u; k < %uu; k++) { let i = base + k * 256u; if (i < n) { dst[i] = src[i]; } }\n"
             "  }\n"
             "}\n",
             v);
}

/* %u: iterations. Four chains of a = a * m + c keep every FMA dependent on the one before it in its chain. */
static const char fma_wgsl[] =
    "@group(0) @binding(0) var<storage, read_write> dst: array<vec4<f32>>;\n"
    "@compute @workgroup_size(256)\n"
    "fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,\n"
    "        @builtin(local_invocation_index) li: u32) {\n"
    "  let i = (wg.y * nw.x + wg.x) * 256u + li;\n"
    "  let s = f32(i & 1023u) * 1e-6;\n"
    "  var a = vec4<f32>(s, s + 0.1, s + 0.2, s + 0.3);\n"
    "  var b = a + 0.05; var c = a + 0.15; var d = a + 0.25;\n"
    "  let m = vec4<f32>(0.9999, 0.99985, 0.9998, 0.99975);\n"
    "  let k = vec4<f32>(1e-4, 2e-4, 3e-4, 4e-4);\n"
    "  for (var n = 0u; n < %uu; n++) {\n"
    "    a = fma(a, m, k); b = fma(b, m, k); c = fma(c, m, k); d = fma(d, m, k);\n"
    "  }\n"
    "  if (i < arrayLength(&dst)) { dst[i] = a + b + c + d; }\n"
    "}\n";

typedef struct job {
  gpu_shader *shader;
  gpu_pipeline *pipeline;
  gpu_bind_group *group;
  uint32_t x, y;
} job;

static void job_free(job *j) {
  gpu_bind_group_destroy(j->group);
  gpu_pipeline_destroy(j->pipeline);
  gpu_shader_destroy(j->shader);
  memset(j, 0, sizeof *j);
}

static wgk_status job_make(gpu_device *dev, const char *wgsl, const char *label, gpu_buffer *const *bufs, size_t n,
                           uint64_t workgroups, job *j, util_error *err) {
  static const gpu_binding_type types[] = {WGK_GPU_BINDING_READ_ONLY_STORAGE, WGK_GPU_BINDING_STORAGE};
  const gpu_binding_type *t = n == 1 ? types + 1 : types;
  gpu_binding b[2] = {{bufs[0], 0, 0}, {n > 1 ? bufs[1] : NULL, 0, 0}};
  j->x = (uint32_t)(workgroups < WGK_DISPATCH_FOLD_WIDTH ? workgroups : WGK_DISPATCH_FOLD_WIDTH);
  j->y = (uint32_t)((workgroups + WGK_DISPATCH_FOLD_WIDTH - 1) / WGK_DISPATCH_FOLD_WIDTH);
  wgk_status st = gpu_shader_create(dev, wgsl, label, &j->shader, err);
  if (!st) st = gpu_pipeline_create(dev, j->shader, t, n, "main", label, &j->pipeline, err);
  if (!st) st = gpu_bind_group_create(dev, j->pipeline, b, n, label, &j->group, err);
  return st;
}

/* `count` dispatches in one submission, then the wait: with a timer each in its own timed pass (slot r),
 * else all in one pass. */
static wgk_status submit(gpu_device *dev, const job *j, gpu_timer *timer, uint32_t count, util_error *err) {
  gpu_encoder *enc = NULL;
  wgk_status st = gpu_encoder_begin(dev, "wgk ceiling", &enc, err);
  if (st) return st;
  for (uint32_t r = 0; r < count && !st; r++)
    st = timer ? gpu_encoder_dispatch_timed(enc, j->pipeline, j->group, j->x, j->y, 1, timer, r, err)
               : gpu_encoder_dispatch(enc, j->pipeline, j->group, j->x, j->y, 1, err);
  if (!st && timer) st = gpu_encoder_resolve_timer(enc, timer, err);
  if (st) {
    gpu_encoder_discard(enc);
    return st;
  }
  st = gpu_encoder_submit(enc, err);
  return st ? st : gpu_wait(dev, 600000, "a ceiling kernel", err);
}

/* Back-to-back submissions of `count` dispatches for the warm-up time (at least one). */
static wgk_status warm(gpu_device *dev, const job *j, uint32_t count, util_error *err) {
  bool cpu = strcmp(gpu_device_desc(dev)->adapterType, "cpu") == 0;
  double t0 = bench_now_ns(), until = cpu ? WGK_BENCH_WARM_CPU_NS : WGK_BENCH_WARM_NS;
  wgk_status st;
  do st = submit(dev, j, NULL, count, err);
  while (!st && bench_now_ns() - t0 < until);
  return st;
}

/* Timestamps per dispatch (when timer is set) and wall time of back-to-back dispatches, each series on warm clocks. */
static wgk_status measure(gpu_device *dev, const job *j, gpu_timer *timer, uint32_t reps, bench_kernel_time *out,
                          util_error *err) {
  uint64_t *ns = calloc(reps, sizeof *ns);
  double *samples = calloc(reps + WALL_SAMPLES, sizeof *samples);
  wgk_status st = ns && samples ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
  if (!st && timer) {
    st = warm(dev, j, reps, err);
    if (!st) st = submit(dev, j, timer, reps, err);
    if (!st) st = gpu_timer_read(dev, timer, ns, reps, 600000, err);
    for (uint32_t r = 0; !st && r < reps; r++) samples[r] = (double)ns[r];
    if (!st) out->ts_ns = bench_stat_of(samples, reps);
    out->has_timestamps = true;
  }
  if (!st) st = warm(dev, j, reps, err);
  for (uint32_t r = 0; !st && r < WALL_SAMPLES; r++) {
    double t0 = bench_now_ns();
    st = submit(dev, j, NULL, reps, err);
    samples[r] = (bench_now_ns() - t0) / reps;
  }
  if (!st) {
    out->dispatches = reps;
    out->wall_ns = bench_stat_of(samples, WALL_SAMPLES);
    bool trusted = timer && bench_timestamps_trusted(gpu_device_desc(dev));
    out->ns = trusted ? out->ts_ns : out->wall_ns;
    /* the timestamps are checked against the wall figure wherever they were measured */
    bench_figures f = {.timestamps = timer != NULL,
                       .gpu_ns = timer ? out->ts_ns.median : out->ns.median,
                       .batch_ns = out->wall_ns.median,
                       .batch_calls = (int)reps};
    out->timestamps_consistent = bench_consistent(&f, out->reason, sizeof out->reason);
    out->consistent = trusted ? out->timestamps_consistent : true;
  }
  free(ns);
  free(samples);
  return st == WGK_ERR_OUT_OF_MEMORY && !err->status ? util_error_oom(err, NULL, NULL) : st;
}

static const uint32_t copy_vec4[WGK_BENCH_COPY_VARIANTS] = {1, 2, 4, COPY_MAX_VEC4};

size_t bench_copy_variants_near(uint32_t best, uint32_t out[WGK_BENCH_COPY_VARIANTS]) {
  size_t at = WGK_BENCH_COPY_VARIANTS, n = 0; /* best's index; none: every variant */
  for (size_t i = 0; i < WGK_BENCH_COPY_VARIANTS; i++)
    if (copy_vec4[i] == best) at = i;
  for (size_t i = 0; i < WGK_BENCH_COPY_VARIANTS; i++)
    if (at == WGK_BENCH_COPY_VARIANTS || (i + 1 >= at && i <= at + 1)) out[n++] = copy_vec4[i];
  return n;
}

/* The copy variants vec4[0..n) over two buffers of `size` bytes each (a multiple of the largest variant's block)
 * into out->variants, the best into out->best / gbps / vec4. */
static wgk_status copy_variants(gpu_device *dev, gpu_timer *timer, uint32_t reps, uint64_t size, const uint32_t *vec4,
                                size_t n, bench_copy *out, util_error *err) {
  gpu_buffer *bufs[2] = {NULL, NULL};
  wgk_status st = gpu_buffer_create(dev, size, WGK_GPU_BUFFER_STORAGE, "wgk ceiling src", &bufs[0], err);
  if (!st) st = gpu_buffer_create(dev, size, WGK_GPU_BUFFER_STORAGE, "wgk ceiling dst", &bufs[1], err);
  out->bytes = 2 * size;
  for (size_t i = 0; !st && i < n; i++) {
    uint32_t v = vec4[i];
    char wgsl[4096], label[64];
    copy_wgsl(v, wgsl, sizeof wgsl);
    snprintf(label, sizeof label, "wgk copy ceiling x%u", v);
    job j = {0};
    bench_kernel_time t = {0};
    st = job_make(dev, wgsl, label, bufs, 2, size / 16 / WG / v, &j, err);
    if (!st) st = measure(dev, &j, timer, reps, &t, err);
    job_free(&j);
    if (st) break;
    double gbps = t.ns.median > 0 ? (double)out->bytes / t.ns.median : 0;
    out->variants[out->n_variants++] = (bench_copy_variant){v, gbps, t.ns.median};
    if (gbps > out->gbps) {
      out->gbps = gbps;
      out->vec4_per_thread = v;
      out->best = t;
    }
  }
  gpu_buffer_destroy(bufs[0]);
  gpu_buffer_destroy(bufs[1]);
  return st;
}

/* The copy's buffer size for `bytes` moved (read + written): half, rounded up to the largest variant's block,
 * at most the device's binding and buffer limits. */
static uint64_t copy_size(const gpu_device *dev, uint64_t bytes) {
  const device_limits *l = &gpu_device_desc(dev)->limits;
  uint64_t block = 16 * WG * COPY_MAX_VEC4, size = (bytes / 2 + block - 1) / block * block;
  uint64_t most = l->maxStorageBufferBindingSize < l->maxBufferSize ? l->maxStorageBufferBindingSize : l->maxBufferSize;
  most -= most % block;
  return size > most ? most : size < block ? block : size;
}

static wgk_status copy_ceiling(gpu_device *dev, gpu_timer *timer, uint32_t reps, bench_ceilings *out, util_error *err) {
  bool cpu = strcmp(gpu_device_desc(dev)->adapterType, "cpu") == 0;
  return copy_variants(dev, timer, reps, copy_size(dev, 2 * (cpu ? COPY_MAX_BYTES_CPU : COPY_MAX_BYTES)), copy_vec4,
                       WGK_BENCH_COPY_VARIANTS, &out->copy, err);
}

wgk_status bench_measure_copy(gpu_device *dev, uint64_t bytes, uint32_t ceiling_best, uint32_t reps, bench_copy *out,
                              util_error *err) {
  *out = (bench_copy){0};
  if (reps == 0) reps = 10;
  uint32_t vec4[WGK_BENCH_COPY_VARIANTS];
  size_t n = bench_copy_variants_near(ceiling_best, vec4);
  gpu_timer *timer = NULL;
  wgk_status st = bench_timestamps_trusted(gpu_device_desc(dev)) ? gpu_timer_create(dev, reps, &timer, err) : WGK_OK;
  if (!st) st = copy_variants(dev, timer, reps, copy_size(dev, bytes), vec4, n, out, err);
  gpu_timer_destroy(timer);
  return st;
}

static wgk_status fma_ceiling(gpu_device *dev, gpu_timer *timer, uint32_t reps, bench_ceilings *out, util_error *err) {
  /* a CPU adapter (lavapipe) gets a smaller problem so the measurement takes about as long as on a GPU */
  bool cpu = strcmp(gpu_device_desc(dev)->adapterType, "cpu") == 0;
  uint64_t threads = cpu ? 16384 : 1048576;
  uint32_t iters = cpu ? 256 : 2048;
  char wgsl[sizeof fma_wgsl + 16];
  snprintf(wgsl, sizeof wgsl, fma_wgsl, iters);
  gpu_buffer *buf = NULL;
  job j = {0};
  wgk_status st = gpu_buffer_create(dev, threads * 16, WGK_GPU_BUFFER_STORAGE, "wgk fma ceiling", &buf, err);
  if (!st) st = job_make(dev, wgsl, "wgk fma ceiling", &buf, 1, threads / WG, &j, err);
  if (!st) st = measure(dev, &j, timer, reps, &out->fma, err);
  out->fma_threads = threads;
  out->fma_flops = threads * iters * FMA_CHAINS * 4 * 2;
  out->fma_gflops = out->fma.ns.median > 0 ? (double)out->fma_flops / out->fma.ns.median : 0;
  job_free(&j);
  gpu_buffer_destroy(buf);
  return st;
}

wgk_status bench_measure_ceilings(gpu_device *dev, uint32_t reps, bench_ceilings *out, util_error *err) {
  *out = (bench_ceilings){0};
  if (reps == 0) reps = 10;
  gpu_timer *timer = NULL;
  out->has_timestamps = device_has(gpu_device_desc(dev), WGK_FEATURE_TIMESTAMP_QUERY);
  out->timed = bench_timestamps_trusted(gpu_device_desc(dev));
  wgk_status st = out->has_timestamps ? gpu_timer_create(dev, reps, &timer, err) : WGK_OK;
  if (!st) st = copy_ceiling(dev, timer, reps, out, err);
  if (!st) st = fma_ceiling(dev, timer, reps, out, err);
  gpu_timer_destroy(timer);
  return st;
}

/* The least a call can cost: one workgroup writing one word, recorded, submitted and waited for, as a resident
 * call's run + wait does through the same layer. */
static const char empty_wgsl[] =
    "@group(0) @binding(0) var<storage, read_write> dst: array<u32>;\n"
    "@compute @workgroup_size(1)\n"
    "fn main() { dst[0] = 1u; }\n";

struct bench_bare {
  gpu_device *dev;
  gpu_buffer *buf;
  job j;
};

wgk_status bench_bare_create(gpu_device *dev, bench_bare **out, util_error *err) {
  bench_bare *b = calloc(1, sizeof *b);
  *out = NULL;
  if (!b) return util_error_oom(err, NULL, NULL);
  b->dev = dev;
  wgk_status st = gpu_buffer_create(dev, 4, WGK_GPU_BUFFER_STORAGE, "wgk submit-wait", &b->buf, err);
  if (!st) st = job_make(dev, empty_wgsl, "wgk submit-wait", &b->buf, 1, 1, &b->j, err);
  if (!st) st = submit(dev, &b->j, NULL, 1, err); /* its first dispatch (a CPU driver compiles there) untimed */
  if (st) {
    bench_bare_destroy(b);
    return st;
  }
  *out = b;
  return WGK_OK;
}

wgk_status bench_bare_time(bench_bare *b, double *ns, util_error *err) {
  double t0 = bench_now_ns();
  wgk_status st = submit(b->dev, &b->j, NULL, 1, err);
  *ns = bench_now_ns() - t0;
  return st;
}

void bench_bare_destroy(bench_bare *b) {
  if (!b) return;
  job_free(&b->j);
  gpu_buffer_destroy(b->buf);
  free(b);
}

wgk_status bench_measure_submit_wait(gpu_device *dev, uint32_t reps, bench_ceilings *out, util_error *err) {
  if (reps == 0) reps = 200;
  bench_bare *b = NULL;
  double *ns = calloc(reps, sizeof *ns);
  wgk_status st = ns ? WGK_OK : util_error_oom(err, NULL, NULL);
  if (!st) st = bench_bare_create(dev, &b, err);
  if (!st) st = warm(dev, &b->j, 1, err);
  for (uint32_t r = 0; !st && r < reps; r++) st = bench_bare_time(b, &ns[r], err);
  if (!st) out->submit_wait = bench_stat_of(ns, reps);
  out->has_submit_wait = st == WGK_OK;
  gpu_timer *timer = NULL;
  if (!st && device_has(gpu_device_desc(dev), WGK_FEATURE_TIMESTAMP_QUERY)) {
    st = gpu_timer_create(dev, 1, &timer, err);
    for (uint32_t r = 0; !st && r < reps; r++) {
      uint64_t t = 0;
      st = submit(dev, &b->j, timer, 1, err);
      if (!st) st = gpu_timer_read(dev, timer, &t, 1, 600000, err);
      ns[r] = (double)t;
    }
    if (!st) out->empty_pass = bench_stat_of(ns, reps);
    out->has_empty_pass = st == WGK_OK;
  }
  gpu_timer_destroy(timer);
  bench_bare_destroy(b);
  free(ns);
  return st;
}

/* The faster of the start's ceiling and the one beside (NULL: none); *beside set when that one was faster. */
static double faster(const bench_transfer *start, const bench_transfer *by, bool *beside) {
  if (by && by->gbps > start->gbps) return *beside = true, by->gbps;
  return start->gbps;
}

/* The case's bytes moved at upload and download GB/s, ns. */
static double transfer_floor(const bench_goal_figures *f, double upload_gbps, double download_gbps) {
  return (double)f->input_bytes / upload_gbps + (double)f->output_bytes / download_gbps;
}

bench_goals bench_goals_of(const bench_ceilings *c, const bench_goal_figures *f) {
  bench_goals g = {0};
  if (c->has_transfers && c->upload.gbps > 0 && c->download.gbps > 0) {
    g.has_transfer = true;
    g.upload_gbps = faster(&c->upload, f->upload_beside, &g.transfer_beside);
    g.download_gbps = faster(&c->download, f->download_beside, &g.transfer_beside);
    g.transfer_floor_ns = transfer_floor(f, g.upload_gbps, g.download_gbps);
    g.transfer_ns = f->e2e_ns - f->resident_ns;
    g.transfer_ratio = g.transfer_floor_ns > 0 ? g.transfer_ns / g.transfer_floor_ns : 0;
    g.transfer_met = g.transfer_ratio <= WGK_BENCH_TRANSFER_GOAL;
    if (f->upload_beside && f->download_beside && f->upload_beside->gbps > 0 && f->download_beside->gbps > 0)
      g.ratio_beside = g.transfer_ns / transfer_floor(f, f->upload_beside->gbps, f->download_beside->gbps);
  }
  g.submit_wait_beside = f->bare_beside_ns > 0;
  if (g.submit_wait_beside || (c->has_submit_wait && c->submit_wait.median > 0)) {
    g.has_overhead = true;
    g.submit_wait_ns = g.submit_wait_beside ? f->bare_beside_ns : c->submit_wait.median;
    g.overhead_ratio = f->resident_ns / g.submit_wait_ns;
    g.overhead_met = g.overhead_ratio <= WGK_BENCH_OVERHEAD_GOAL;
    g.host_ratio = (f->resident_ns - f->gpu_ns) / g.submit_wait_ns;
  }
  return g;
}

json_t *bench_goals_json(const bench_goals *g) {
  json_t *o = json_object();
  if (g->has_transfer)
    json_object_set_new(
        o, "transfer",
        json_pack("{s:f, s:f, s:f, s:f, s:s, s:f, s:f, s:b}", "e2eMinusResidentNs", g->transfer_ns, "floorNs",
                  g->transfer_floor_ns, "uploadGbps", g->upload_gbps, "downloadGbps", g->download_gbps, "ceilingsTimed",
                  g->transfer_beside ? "the faster of the process's start and beside the case: beside"
                                     : "the faster of the process's start and beside the case: the start",
                  "ratio", g->transfer_ratio, "goal", WGK_BENCH_TRANSFER_GOAL, "met", g->transfer_met));
  if (g->has_transfer && g->ratio_beside > 0)
    json_object_set_new(json_object_get(o, "transfer"), "ratioAtBesideCeilings", json_real(g->ratio_beside));
  if (g->has_overhead)
    json_object_set_new(
        o, "overhead",
        json_pack("{s:f, s:s, s:f, s:f, s:b, s:f}", "submitWaitNs", g->submit_wait_ns, "submitWaitTimed",
                  g->submit_wait_beside ? "beside the resident calls" : "with the ceilings", "ratio", g->overhead_ratio,
                  "goal", WGK_BENCH_OVERHEAD_GOAL, "met", g->overhead_met, "residentMinusGpuRatio", g->host_ratio));
  return o;
}
