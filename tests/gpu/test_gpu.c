/* The Dawn device layer on the default adapter: round trips checked element by element against the
 * host on fresh random data, and the errors a caller must be able to act on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu_test_util.h"
#include "util/wgk_test.h"

static gpu_device *g_dev;
static uint64_t g_rng;

/* y[i] = x[i] * x[i] + p.c * f32(i % 7u), then the host checks each element (fused or not). */
static const char *const square_wgsl =
    "struct P { c: f32, n: u32 }\n"
    "@group(0) @binding(0) var<storage, read> x: array<f32>;\n"
    "@group(0) @binding(1) var<storage, read_write> y: array<f32>;\n"
    "@group(0) @binding(2) var<uniform> p: P;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) g: vec3<u32>) {\n"
    "  if (g.x < p.n) { y[g.x] = x[g.x] * x[g.x] + p.c * f32(g.x % 7u); }\n"
    "}\n";

/* Long enough on a CPU adapter that a zero timeout cannot see it finish. */
/* %u: the chain's length per thread (busy_setup: about 45 ms on lavapipe, 5 ms on the H200). */
static const char busy_wgsl[] =
    "@group(0) @binding(0) var<storage, read_write> y: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) g: vec3<u32>) {\n"
    "  var acc = g.x;\n"
    "  for (var k = 0u; k < %uu; k++) { acc = acc * 1664525u + 1013904223u; }\n"
    "  y[g.x] = acc;\n"
    "}\n";

static const gpu_binding_type square_types[] = {WGK_GPU_BINDING_READ_ONLY_STORAGE, WGK_GPU_BINDING_STORAGE,
                                                WGK_GPU_BINDING_UNIFORM};
static const uint32_t SU = WGK_GPU_BUFFER_STORAGE | WGK_GPU_BUFFER_COPY_SRC | WGK_GPU_BUFFER_COPY_DST;

#define ASSERT_OK(call)                                  \
  do {                                                   \
    wgk_status s_ = (call);                              \
    if (s_ != WGK_OK) gpu_test_print_error(#call, &err); \
    assert_int_equal(s_, WGK_OK);                        \
  } while (0)

static int setup(void **state) {
  g_rng = gpu_test_seed();
  util_error err = {0};
  if (gpu_device_create(NULL, &g_dev, &err) != WGK_OK) {
    gpu_test_print_error("device", &err);
    return -1;
  }
  wgk_test_need_gpu(gpu_device_desc(g_dev)->backend, gpu_device_desc(g_dev)->description);
  return 0;
}

static int teardown(void **state) {
  gpu_device_destroy(g_dev);
  return 0;
}

static void device_on_default_adapter(void **state) {
  const device_desc *d = gpu_device_desc(g_dev);
  printf("# adapter: %s (%s, %s)\n", d->device, d->backend, d->adapterType);
  assert_true(d->backend[0] && strcmp(d->backend, "null") != 0);
  assert_true(d->limits.maxBufferSize >= 268435456u);
  assert_true(d->limits.maxStorageBufferBindingSize >= 134217728u);
  assert_true(d->limits.maxComputeWorkgroupsPerDimension >= 65535u);
  assert_true(d->limits.maxComputeInvocationsPerWorkgroup >= 256u);
  assert_true(d->limits.minStorageBufferOffsetAlignment >= 4u);
  util_error err = {0};
  assert_int_equal(gpu_device_check(g_dev, &err), WGK_OK);
  gpu_device_destroy(NULL);
  gpu_buffer_destroy(NULL);
  gpu_shader_destroy(NULL);
  gpu_pipeline_destroy(NULL);
  gpu_bind_group_destroy(NULL);
  gpu_encoder_discard(NULL);
  gpu_timer_destroy(NULL);
}

typedef struct square_run {
  gpu_buffer *x, *y, *z, *p;
  gpu_shader *shader;
  gpu_pipeline *pipeline;
  gpu_bind_group *group;
} square_run;

static void square_free(square_run *r) {
  gpu_bind_group_destroy(r->group);
  gpu_pipeline_destroy(r->pipeline);
  gpu_shader_destroy(r->shader);
  gpu_buffer_destroy(r->x);
  gpu_buffer_destroy(r->y);
  gpu_buffer_destroy(r->z);
  gpu_buffer_destroy(r->p);
}

/* Uploads x, poisons y, dispatches, copies y to z, reads z back from a nonzero offset and checks. */
static void square_round_trip(gpu_device *dev, uint32_t n) {
  util_error err = {0};
  square_run r = {0};
  size_t bytes = (size_t)n * 4;
  float *x = malloc(bytes), *out = malloc(bytes), *poison = malloc(bytes);
  assert_non_null(x && out && poison);
  for (uint32_t i = 0; i < n; i++) x[i] = gpu_test_float(&g_rng) * 100;
  memset(poison, 0xFF, bytes);
  memset(out, 0xA5, bytes);
  struct {
    float c;
    uint32_t n;
    uint32_t pad[2];
  } p = {gpu_test_float(&g_rng), n, {0, 0}};
  ASSERT_OK(gpu_buffer_create(dev, bytes, SU, "x", &r.x, &err));
  ASSERT_OK(gpu_buffer_create(dev, bytes, SU, "y", &r.y, &err));
  ASSERT_OK(gpu_buffer_create(dev, bytes + 16, SU, "z", &r.z, &err));
  ASSERT_OK(gpu_buffer_create(dev, sizeof p, WGK_GPU_BUFFER_UNIFORM | WGK_GPU_BUFFER_COPY_DST, "p", &r.p, &err));
  ASSERT_OK(gpu_buffer_write(dev, r.x, 0, x, bytes, &err));
  ASSERT_OK(gpu_buffer_write(dev, r.y, 0, poison, bytes, &err));
  ASSERT_OK(gpu_buffer_write(dev, r.p, 0, &p, sizeof p, &err));
  ASSERT_OK(gpu_shader_create(dev, square_wgsl, "square.wgsl", &r.shader, &err));
  ASSERT_OK(gpu_pipeline_create(dev, r.shader, square_types, 3, NULL, "square", &r.pipeline, &err));
  gpu_binding b[] = {{r.x, 0, 0}, {r.y, 0, 0}, {r.p, 0, 0}};
  ASSERT_OK(gpu_bind_group_create(dev, r.pipeline, b, 3, "square", &r.group, &err));
  gpu_encoder *enc = NULL;
  ASSERT_OK(gpu_encoder_begin(dev, "square", &enc, &err));
  ASSERT_OK(gpu_encoder_dispatch(enc, r.pipeline, r.group, (n + 63) / 64, 1, 1, &err));
  ASSERT_OK(gpu_encoder_copy(enc, r.y, 0, r.z, 16, bytes, &err));
  ASSERT_OK(gpu_encoder_submit(enc, &err));
  ASSERT_OK(gpu_wait(dev, 60000, "the square kernel", &err));
  ASSERT_OK(gpu_buffer_read(dev, r.z, 16, out, bytes, 60000, &err));
  size_t bad = 0;
  for (uint32_t i = 0; i < n; i++) {
    volatile float sq = x[i] * x[i], term = p.c * (float)(i % 7u);
    float separate = sq + term, fused = fmaf(x[i], x[i], term);
    if (out[i] != separate && out[i] != fused && bad++ < 5)
      printf("# element %u: gpu %.9g, host %.9g\n", i, out[i], separate);
  }
  assert_int_equal(bad, 0);
  square_free(&r);
  free(x);
  free(out);
  free(poison);
}

static void round_trip_random(void **state) {
  uint32_t n = 1000 + (uint32_t)(gpu_test_next(&g_rng) % 100000);
  printf("# n = %u\n", n);
  square_round_trip(g_dev, n);
}

/* A MAP_READ buffer is read by mapping it directly (no staging): random words copied into it at an offset, read
 * back from that offset into poisoned memory twice (the first read unmapped it) and compared word by word. */
static void map_read_buffer_read_directly(void **state) {
  util_error err = {0};
  uint32_t n = 4099;
  size_t bytes = (size_t)n * 4;
  uint32_t *x = malloc(bytes), *out = malloc(bytes);
  assert_non_null(x && out);
  for (uint32_t i = 0; i < n; i++) x[i] = (uint32_t)gpu_test_next(&g_rng);
  gpu_buffer *src = NULL, *mr = NULL;
  ASSERT_OK(gpu_buffer_create(g_dev, bytes, SU, "src", &src, &err));
  ASSERT_OK(
      gpu_buffer_create(g_dev, bytes + 16, WGK_GPU_BUFFER_MAP_READ | WGK_GPU_BUFFER_COPY_DST, "map-read", &mr, &err));
  ASSERT_OK(gpu_buffer_write(g_dev, src, 0, x, bytes, &err));
  gpu_encoder *enc = NULL;
  ASSERT_OK(gpu_encoder_begin(g_dev, "copy", &enc, &err));
  ASSERT_OK(gpu_encoder_copy(enc, src, 0, mr, 16, bytes, &err));
  ASSERT_OK(gpu_encoder_submit(enc, &err));
  for (int pass = 0; pass < 2; pass++) {
    memset(out, 0xA5, bytes);
    ASSERT_OK(gpu_buffer_read(g_dev, mr, 16, out, bytes, 60000, &err));
    size_t bad = 0;
    for (uint32_t i = 0; i < n; i++)
      if (out[i] != x[i] && bad++ < 5) printf("# read %d, word %u: 0x%08x, wrote 0x%08x\n", pass, i, out[i], x[i]);
    assert_int_equal(bad, 0);
  }
  gpu_buffer_destroy(src);
  gpu_buffer_destroy(mr);
  free(x);
  free(out);
}

static void shader_error_has_line_and_column(void **state) {
  const char *bad =
      "@compute @workgroup_size(1)\n"
      "fn main() {\n"
      "  let v: f32 = 1.0 +;\n"
      "}\n";
  util_error err = {0};
  gpu_shader *shader = NULL;
  assert_int_equal(gpu_shader_create(g_dev, bad, "bad.wgsl", &shader, &err), WGK_ERR_SHADER);
  gpu_test_print_error("expected", &err);
  assert_null(shader);
  assert_string_equal(err.source, "bad.wgsl");
  assert_int_equal(err.line, 3);
  assert_int_equal(err.column, 21);
  /* The device is still usable after a bad shader. */
  util_error_clear(&err);
  assert_int_equal(gpu_device_check(g_dev, &err), WGK_OK);
}

static void pipeline_layout_mismatch_is_gpu_error(void **state) {
  util_error err = {0};
  gpu_shader *shader = NULL;
  gpu_pipeline *pipeline = NULL;
  ASSERT_OK(gpu_shader_create(g_dev, square_wgsl, "square.wgsl", &shader, &err));
  const gpu_binding_type wrong[] = {WGK_GPU_BINDING_READ_ONLY_STORAGE, WGK_GPU_BINDING_READ_ONLY_STORAGE,
                                    WGK_GPU_BINDING_UNIFORM};
  assert_int_equal(gpu_pipeline_create(g_dev, shader, wrong, 3, NULL, "wrong", &pipeline, &err), WGK_ERR_GPU);
  gpu_test_print_error("expected", &err);
  assert_null(pipeline);
  assert_non_null(strstr(err.message, "creating pipeline 'wrong'"));
  gpu_shader_destroy(shader);
}

static void buffer_over_limit(void **state) {
  util_error err = {0};
  gpu_buffer *buf = NULL;
  uint64_t max = gpu_device_desc(g_dev)->limits.maxBufferSize;
  assert_int_equal(gpu_buffer_create(g_dev, max + 4, SU, "huge", &buf, &err), WGK_ERR_LIMIT);
  gpu_test_print_error("expected", &err);
  assert_null(buf);
  char num[32];
  snprintf(num, sizeof num, "%llu", (unsigned long long)max);
  assert_non_null(strstr(err.message, num));
  snprintf(num, sizeof num, "%llu", (unsigned long long)(max + 4));
  assert_non_null(strstr(err.message, num));
  assert_non_null(strstr(err.message, "maxBufferSize"));
}

static void dispatch_over_limit(void **state) {
  util_error err = {0};
  square_run r = {0};
  ASSERT_OK(gpu_shader_create(g_dev, square_wgsl, "square.wgsl", &r.shader, &err));
  ASSERT_OK(gpu_pipeline_create(g_dev, r.shader, square_types, 3, NULL, "square", &r.pipeline, &err));
  ASSERT_OK(gpu_buffer_create(g_dev, 256, SU, "x", &r.x, &err));
  ASSERT_OK(gpu_buffer_create(g_dev, 16, WGK_GPU_BUFFER_UNIFORM, "p", &r.p, &err));
  gpu_binding b[] = {{r.x, 0, 0}, {r.x, 0, 0}, {r.p, 0, 0}};
  gpu_bind_group *group = NULL;
  /* x bound read-only and read-write at once: WebGPU refuses at dispatch, not here. */
  ASSERT_OK(gpu_bind_group_create(g_dev, r.pipeline, b, 3, "g", &group, &err));
  gpu_encoder *enc = NULL;
  ASSERT_OK(gpu_encoder_begin(g_dev, "over", &enc, &err));
  uint32_t max = gpu_device_desc(g_dev)->limits.maxComputeWorkgroupsPerDimension;
  assert_int_equal(gpu_encoder_dispatch(enc, r.pipeline, group, max + 1, 1, 1, &err), WGK_ERR_LIMIT);
  gpu_test_print_error("expected", &err);
  /* The aliasing reaches Dawn's validation at submit: a WGK_ERR_GPU, not a crash. */
  util_error_clear(&err);
  ASSERT_OK(gpu_encoder_dispatch(enc, r.pipeline, group, 1, 1, 1, &err));
  assert_int_equal(gpu_encoder_submit(enc, &err), WGK_ERR_GPU);
  gpu_test_print_error("expected", &err);
  gpu_bind_group_destroy(group);
  square_free(&r);
  util_error_clear(&err);
  assert_int_equal(gpu_device_check(g_dev, &err), WGK_OK);
}

static void uncaptured_error_reported_by_next_call(void **state) {
  util_error err = {0};
  gpu_buffer *buf = NULL;
  ASSERT_OK(gpu_buffer_create(g_dev, 64, WGK_GPU_BUFFER_STORAGE, "no-copy-dst", &buf, &err));
  uint32_t data[16] = {0};
  /* A queue write needs COPY_DST: Dawn reports that asynchronously, as an uncaptured error. */
  assert_int_equal(gpu_buffer_write(g_dev, buf, 0, data, sizeof data, &err), WGK_ERR_GPU);
  gpu_test_print_error("expected", &err);
  assert_non_null(strstr(err.message, "validation error"));
  util_error_clear(&err);
  assert_int_equal(gpu_device_check(g_dev, &err), WGK_OK); /* reported once */
  gpu_buffer_destroy(buf);
}

static void feature_names_both_ways(void **state) {
  for (int f = 0; f < WGK_FEATURE_COUNT; f++) {
    device_feature back = WGK_FEATURE_COUNT;
    assert_true(device_feature_from_name(device_feature_name((device_feature)f), &back));
    assert_int_equal(back, f);
  }
  device_feature f = WGK_FEATURE_COUNT;
  assert_true(device_feature_from_name("subgroup-matrix", &f));
  assert_int_equal(f, WGK_FEATURE_SUBGROUP_MATRIX);
  assert_true(device_feature_from_name("chromium-experimental-subgroup-size-control", &f));
  assert_int_equal(f, WGK_FEATURE_SUBGROUP_SIZE_CONTROL);
  assert_false(device_feature_from_name("shader-f64", &f));
  assert_string_equal(device_feature_name(WGK_FEATURE_COUNT), "unknown");
  assert_string_equal(device_feature_name(WGK_FEATURE_SHADER_F16), "shader-f16");
}

static void wrapped_device_survives(void **state) {
  util_error err = {0};
  gpu_device *owner = NULL, *wrapped = NULL;
  ASSERT_OK(gpu_device_create(NULL, &owner, &err));
  /* The owner stands for an application's own device; wgk wraps it, then lets go. */
  gpu_options opts = {.device = gpu_device_raw(owner)};
  ASSERT_OK(gpu_device_create(&opts, &wrapped, &err));
  assert_string_equal(gpu_device_desc(wrapped)->device, gpu_device_desc(owner)->device);
  square_round_trip(wrapped, 4096);
  gpu_buffer *own = NULL, *alias = NULL;
  ASSERT_OK(gpu_buffer_create(owner, 64, SU, "own", &own, &err));
  ASSERT_OK(gpu_buffer_wrap(wrapped, gpu_buffer_raw(own), 0, &alias, &err));
  assert_int_equal(gpu_buffer_size(alias), 64);
  gpu_buffer_destroy(alias);
  gpu_device_destroy(wrapped);
  /* Device and buffer still work for their owner. */
  uint32_t in[16], back[16];
  for (int i = 0; i < 16; i++) in[i] = (uint32_t)gpu_test_next(&g_rng);
  ASSERT_OK(gpu_buffer_write(owner, own, 0, in, sizeof in, &err));
  ASSERT_OK(gpu_buffer_read(owner, own, 0, back, sizeof back, 60000, &err));
  assert_memory_equal(in, back, sizeof in);
  square_round_trip(owner, 1000);
  gpu_buffer_destroy(own);
  gpu_device_destroy(owner);
}

typedef struct busy_run {
  gpu_buffer *y;
  gpu_shader *shader;
  gpu_pipeline *pipeline;
  gpu_bind_group *group;
} busy_run;

/* The busy kernel on g_dev: a chain of 20000 steps a thread on a CPU adapter, 2000000 on a GPU (20000 took about
 * 50 us on the H200, as short as a submission: a zero-timeout wait found it done at times). */
static void busy_setup(busy_run *r, uint32_t groups) {
  util_error err = {0};
  const gpu_binding_type types[] = {WGK_GPU_BINDING_STORAGE};
  bool cpu = strcmp(gpu_device_desc(g_dev)->adapterType, "cpu") == 0;
  char wgsl[sizeof busy_wgsl + 16];
  snprintf(wgsl, sizeof wgsl, busy_wgsl, cpu ? 20000u : 2000000u);
  ASSERT_OK(gpu_buffer_create(g_dev, (uint64_t)groups * 64 * 4, SU, "busy", &r->y, &err));
  ASSERT_OK(gpu_shader_create(g_dev, wgsl, "busy.wgsl", &r->shader, &err));
  ASSERT_OK(gpu_pipeline_create(g_dev, r->shader, types, 1, "main", "busy", &r->pipeline, &err));
  gpu_binding b[] = {{r->y, 0, 0}};
  ASSERT_OK(gpu_bind_group_create(g_dev, r->pipeline, b, 1, "busy", &r->group, &err));
}

static void busy_free(busy_run *r) {
  gpu_bind_group_destroy(r->group);
  gpu_pipeline_destroy(r->pipeline);
  gpu_shader_destroy(r->shader);
  gpu_buffer_destroy(r->y);
}

/* The busy kernel (256 groups) recorded and submitted on dev. */
static void busy_submit(gpu_device *dev, const busy_run *r) {
  util_error err = {0};
  gpu_encoder *enc = NULL;
  ASSERT_OK(gpu_encoder_begin(dev, "busy", &enc, &err));
  ASSERT_OK(gpu_encoder_dispatch(enc, r->pipeline, r->group, 256, 1, 1, &err));
  ASSERT_OK(gpu_encoder_submit(enc, &err));
}

/* The busy kernel submitted, then a zero-timeout wait for it: its status. lavapipe at times runs a submission
 * inside it (50 ms, the work done when the wait looks: after map_read_buffer_read_directly, 2 runs in 3), and a
 * later one returns at once: the kernel is submitted again while the wait finds it done, up to 8 times. */
static wgk_status zero_wait_on_busy(gpu_device *dev, const busy_run *r, util_error *err) {
  wgk_status waited = WGK_OK;
  for (int tries = 0; waited == WGK_OK && tries < 8; tries++) {
    busy_submit(dev, r);
    waited = gpu_wait(dev, 0, "the busy kernel", err);
  }
  return waited;
}

/* A zero-timeout wait on running work times out, naming it. */
static void wait_timeout_names_the_work(void **state) {
  util_error err = {0};
  busy_run r = {0};
  busy_setup(&r, 256);
  assert_int_equal(zero_wait_on_busy(g_dev, &r, &err), WGK_ERR_TIMEOUT);
  gpu_test_print_error("expected", &err);
  assert_non_null(strstr(err.message, "the busy kernel"));
  util_error_clear(&err);
  ASSERT_OK(gpu_wait(g_dev, 120000, "the busy kernel", &err));
  busy_free(&r);
}

/* A wait polls gpu_options.wait_spin_us before it blocks (a CPU adapter blocks at once unless told): a kernel
 * longer than the spin still completes through the blocking wait, a zero timeout still times out (the spin is cut
 * to the timeout); without the option the adapter's default holds. */
static void wait_spins_then_blocks(void **state) {
  util_error err = {0};
  bool cpu = strcmp(gpu_device_desc(g_dev)->adapterType, "cpu") == 0;
  assert_true(cpu ? gpu_device_wait_spin_ns(g_dev) == 0 : gpu_device_wait_spin_ns(g_dev) > 0);
  gpu_device *dev = NULL;
  gpu_options plain = {.wait_spin_us = 200}; /* not set: ignored */
  ASSERT_OK(gpu_device_create(&plain, &dev, &err));
  assert_int_equal(gpu_device_wait_spin_ns(dev), gpu_device_wait_spin_ns(g_dev));
  gpu_device_destroy(dev);
  gpu_options spin = {.wait_spin_set = true, .wait_spin_us = 200};
  ASSERT_OK(gpu_device_create(&spin, &dev, &err));
  assert_int_equal(gpu_device_wait_spin_ns(dev), 200000);
  gpu_device *saved = g_dev;
  g_dev = dev; /* busy_setup builds on g_dev */
  busy_run r = {0};
  busy_setup(&r, 256);
  assert_int_equal(zero_wait_on_busy(dev, &r, &err), WGK_ERR_TIMEOUT);
  util_error_clear(&err);
  ASSERT_OK(gpu_wait(dev, 120000, "the busy kernel", &err));
  busy_submit(dev, &r); /* longer than the 200 us spin: done through the blocking wait */
  ASSERT_OK(gpu_wait(dev, 120000, "the busy kernel", &err));
  busy_free(&r);
  g_dev = saved;
  gpu_device_destroy(dev);
}

static void timestamps_measure_a_pass(void **state) {
  util_error err = {0};
  gpu_timer *timer = NULL;
  if (!device_has(gpu_device_desc(g_dev), WGK_FEATURE_TIMESTAMP_QUERY)) {
    assert_int_equal(gpu_timer_create(g_dev, 1, &timer, &err), WGK_ERR_UNSUPPORTED);
    printf("# no timestamp-query on this adapter: checked the refusal only\n");
    return;
  }
  busy_run r = {0};
  busy_setup(&r, 32);
  ASSERT_OK(gpu_timer_create(g_dev, 2, &timer, &err));
  gpu_encoder *enc = NULL;
  ASSERT_OK(gpu_encoder_begin(g_dev, "timed", &enc, &err));
  ASSERT_OK(gpu_encoder_dispatch_timed(enc, r.pipeline, r.group, 32, 1, 1, timer, 0, &err));
  ASSERT_OK(gpu_encoder_dispatch_timed(enc, r.pipeline, r.group, 1, 1, 1, timer, 1, &err));
  ASSERT_OK(gpu_encoder_resolve_timer(enc, timer, &err));
  ASSERT_OK(gpu_encoder_submit(enc, &err));
  uint64_t ns[2] = {0, 0};
  ASSERT_OK(gpu_timer_read(g_dev, timer, ns, 2, 60000, &err));
  printf("# pass 0: %llu ns, pass 1: %llu ns\n", (unsigned long long)ns[0], (unsigned long long)ns[1]);
  assert_true(ns[0] > 0);
  assert_true(ns[1] > 0);
  assert_true(ns[0] < 60ull * 1000000000ull);
  /* the span of the read, first begin to last end, holds both passes' busy time (and any gap between them) */
  printf("# span %llu ns\n", (unsigned long long)gpu_timer_span(timer));
  assert_true(gpu_timer_span(timer) >= ns[0] + ns[1]);
  assert_int_equal(gpu_timer_span(NULL), 0);
  gpu_timer_destroy(timer);
  busy_free(&r);
}

/* A recording that times fewer slots than the last one: the slot it did not write reads 0, not the previous
 * run's time (the runtime sums every slot of a call's timer, so a stale slot was added to the next call's time). */
static void timestamps_of_an_earlier_run_are_not_read(void **state) {
  util_error err = {0};
  if (!device_has(gpu_device_desc(g_dev), WGK_FEATURE_TIMESTAMP_QUERY)) {
    printf("# no timestamp-query on this adapter: nothing to check\n");
    return;
  }
  busy_run r = {0};
  busy_setup(&r, 32);
  gpu_timer *timer = NULL;
  ASSERT_OK(gpu_timer_create(g_dev, 2, &timer, &err));
  uint64_t ns[2] = {0, 0};
  for (int run = 0; run < 2; run++) {
    gpu_encoder *enc = NULL;
    ASSERT_OK(gpu_encoder_begin(g_dev, "timed", &enc, &err));
    ASSERT_OK(gpu_encoder_dispatch_timed(enc, r.pipeline, r.group, 32, 1, 1, timer, 0, &err));
    if (run == 0) ASSERT_OK(gpu_encoder_dispatch_timed(enc, r.pipeline, r.group, 32, 1, 1, timer, 1, &err));
    ASSERT_OK(gpu_encoder_resolve_timer(enc, timer, &err));
    ASSERT_OK(gpu_encoder_submit(enc, &err));
    ASSERT_OK(gpu_timer_read(g_dev, timer, ns, 2, 60000, &err));
    printf("# run %d: slot 0 %llu ns, slot 1 %llu ns\n", run, (unsigned long long)ns[0], (unsigned long long)ns[1]);
    assert_true(ns[0] > 0);
    if (run == 0) assert_true(ns[1] > 0);
  }
  assert_int_equal(ns[1], 0);
  gpu_timer_destroy(timer);
  busy_free(&r);
}

static void bad_selector_is_not_found(void **state) {
  util_error err = {0};
  gpu_device *dev = NULL;
  gpu_options opts = {.adapter = "no-such-adapter-xyz"};
  assert_int_equal(gpu_device_create(&opts, &dev, &err), WGK_ERR_NOT_FOUND);
  gpu_test_print_error("expected", &err);
  assert_null(dev);
  opts.adapter = "0";
  util_error_clear(&err);
  ASSERT_OK(gpu_device_create(&opts, &dev, &err));
  gpu_startup su = gpu_device_startup(dev); /* its parts were timed (how long is not checked) */
  assert_true(su.instance_ns > 0 && su.adapter_ns > 0 && su.device_ns > 0 && su.describe_ns > 0);
  gpu_device_destroy(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(device_on_default_adapter),
      cmocka_unit_test(round_trip_random),
      cmocka_unit_test(shader_error_has_line_and_column),
      cmocka_unit_test(pipeline_layout_mismatch_is_gpu_error),
      cmocka_unit_test(buffer_over_limit),
      cmocka_unit_test(dispatch_over_limit),
      cmocka_unit_test(uncaptured_error_reported_by_next_call),
      cmocka_unit_test(feature_names_both_ways),
      cmocka_unit_test(wrapped_device_survives),
      cmocka_unit_test(wait_timeout_names_the_work),
      cmocka_unit_test(wait_spins_then_blocks),
      cmocka_unit_test(timestamps_measure_a_pass),
      cmocka_unit_test(timestamps_of_an_earlier_run_are_not_read),
      cmocka_unit_test(bad_selector_is_not_found),
      cmocka_unit_test(map_read_buffer_read_directly),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
