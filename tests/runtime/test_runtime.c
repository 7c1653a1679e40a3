/* The runtime through the public API, on RotaryEmbedding: results against the double-precision reference,
 * plan and pipeline reuse, rejected calls leaving outputs untouched, batches, a caller-owned device. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "wgk.h"
#include "gpu/gpu.h"
#include "ops/ai.onnx.RotaryEmbedding/reference.h"
#include "util/rng.h"
#include "util/tensor_host.h"
#include "util/wgk_test.h"

static char pkg_path[4096];
static util_rng rng;

static void find_package(void) {
  const char *env = getenv("WGK_TEST_ROPE_PKG");
  const char *src = getenv("WGK_SOURCE_DIR");
  if (env)
    snprintf(pkg_path, sizeof pkg_path, "%s", env);
  else
    snprintf(pkg_path, sizeof pkg_path, "%s/kernels/ai.onnx.RotaryEmbedding", src ? src : ".");
}

typedef struct rope_case {
  int64_t B, N, S, H, rot, max_pos;
  bool positions;
  int interleaved;
} rope_case;

typedef struct rope_data {
  util_host_tensor *x, *cos, *sin, *pos;
} rope_data;

static void fill(util_host_tensor *t, double lo, double hi) {
  float *f = (float *)t->data;
  for (size_t i = 0; i < util_host_tensor_numel(t); i++) f[i] = (float)util_rng_uniform(&rng, lo, hi);
}

static rope_data make_data(const rope_case *c) {
  rope_data d = {0};
  int64_t xd[4] = {c->B, c->N, c->S, c->H};
  assert_int_equal(util_host_tensor_create(WGK_DTYPE_FLOAT32, 4, xd, &d.x), WGK_OK);
  fill(d.x, -2, 2);
  int64_t cd3[3] = {c->B, c->S, c->rot / 2}, cd2[2] = {c->max_pos, c->rot / 2};
  int rank = c->positions ? 2 : 3;
  const int64_t *cd = c->positions ? cd2 : cd3;
  assert_int_equal(util_host_tensor_create(WGK_DTYPE_FLOAT32, rank, cd, &d.cos), WGK_OK);
  assert_int_equal(util_host_tensor_create(WGK_DTYPE_FLOAT32, rank, cd, &d.sin), WGK_OK);
  fill(d.cos, -1, 1);
  fill(d.sin, -1, 1);
  if (c->positions) {
    int64_t pd[2] = {c->B, c->S};
    assert_int_equal(util_host_tensor_create(WGK_DTYPE_INT64, 2, pd, &d.pos), WGK_OK);
    int64_t *p = (int64_t *)d.pos->data;
    for (int64_t i = 0; i < c->B * c->S; i++) p[i] = util_rng_int(&rng, 0, c->max_pos - 1);
  }
  return d;
}

static void free_data(rope_data *d) {
  util_host_tensor_free(d->x);
  util_host_tensor_free(d->cos);
  util_host_tensor_free(d->sin);
  util_host_tensor_free(d->pos);
}

static wgk_tensor *gpu(wgk_context *ctx, const util_host_tensor *h, wgk_dtype dtype) {
  wgk_tensor *t = NULL;
  assert_int_equal(wgk_tensor_create(ctx, dtype, h->rank, h->dims, h->data, &t), WGK_OK);
  return t;
}

/* An output tensor filled with NaN, so an element the kernel never writes shows. */
static wgk_tensor *poisoned(wgk_context *ctx, const util_host_tensor *like) {
  int64_t n = (int64_t)util_host_tensor_numel(like);
  float *nan_fill = malloc((size_t)n * sizeof(float));
  for (int64_t i = 0; i < n; i++) nan_fill[i] = NAN;
  wgk_tensor *t = NULL;
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, like->rank, like->dims, nan_fill, &t), WGK_OK);
  free(nan_fill);
  return t;
}

static void set_inputs(wgk_call *call, wgk_context *ctx, const rope_data *d, const rope_case *c) {
  wgk_tensor *x = gpu(ctx, d->x, WGK_DTYPE_FLOAT32), *cs = gpu(ctx, d->cos, WGK_DTYPE_FLOAT32),
             *sn = gpu(ctx, d->sin, WGK_DTYPE_FLOAT32), *p = d->pos ? gpu(ctx, d->pos, WGK_DTYPE_INT64) : NULL;
  assert_int_equal(wgk_call_set_input(call, "x", x), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "cos", cs), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "sin", sn), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "positionIds", p), WGK_OK);
  assert_int_equal(wgk_call_set_attr_int(call, "interleaved", c->interleaved), WGK_OK);
  if (c->rot != c->H) assert_int_equal(wgk_call_set_attr_int(call, "rotary_embedding_dim", c->rot), WGK_OK);
  wgk_tensor_release(x);
  wgk_tensor_release(cs);
  wgk_tensor_release(sn);
  wgk_tensor_release(p);
}

static void expect_matches(wgk_tensor *y, const rope_data *d, const rope_case *c) {
  int64_t n = (int64_t)util_host_tensor_numel(d->x);
  double *want = malloc((size_t)n * sizeof *want);
  float *got = malloc((size_t)n * sizeof *got);
  ops_ref_rotary_attrs attrs = {.rotary_embedding_dim = c->rot == c->H ? 0 : c->rot, .interleaved = c->interleaved};
  util_error err;
  util_error_clear(&err);
  assert_int_equal(ops_ref_rotary(d->x, d->cos, d->sin, d->pos, &attrs, want, &err), WGK_OK);
  assert_int_equal(wgk_tensor_read(y, got, (size_t)n * sizeof *got), WGK_OK);
  for (int64_t i = 0; i < n; i++) {
    if (!(fabs(got[i] - want[i]) <= 1e-5 + 1e-5 * fabs(want[i])))
      fail_msg("element %lld: got %.9g want %.9g", (long long)i, got[i], want[i]);
  }
  free(want);
  free(got);
}

static wgk_context *context(void) {
  wgk_context *ctx = NULL;
  char *msg = NULL;
  wgk_status st = wgk_context_create(NULL, &ctx, &msg);
  if (st != WGK_OK) fail_msg("context: %s", msg ? msg : "?");
  wgk_test_need_gpu_context(ctx);
  return ctx;
}

static wgk_kernel *kernel(wgk_context *ctx) {
  wgk_kernel *k = NULL;
  if (wgk_kernel_load(ctx, pkg_path, NULL, &k) != WGK_OK) fail_msg("load %s: %s", pkg_path, wgk_context_errmsg(ctx));
  return k;
}

static void run_case(wgk_context *ctx, wgk_kernel *k, const rope_case *c) {
  rope_data d = make_data(c);
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  set_inputs(call, ctx, &d, c);
  wgk_tensor *y = poisoned(ctx, d.x);
  assert_int_equal(wgk_call_set_output(call, "y", y), WGK_OK);
  if (wgk_call_run(call) != WGK_OK) fail_msg("run: %s", wgk_context_errmsg(ctx));
  expect_matches(y, &d, c);
  wgk_tensor_release(y);
  wgk_call_destroy(call);
  free_data(&d);
}

static void results_match_reference(void **state) {
  (void)state;
  wgk_context *ctx = context();
  wgk_kernel *k = kernel(ctx);
  const rope_case cases[] = {
      {2, 4, 3, 8, 8, 0, false, 0},
      {2, 4, 3, 8, 8, 50, true, 0},
      {1, 2, 5, 16, 8, 7, true, 1},
      {3, 2, 7, 64, 32, 0, false, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(ctx, k, &cases[i]);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

static void second_call_compiles_nothing(void **state) {
  (void)state;
  wgk_context *ctx = context();
  wgk_kernel *k = kernel(ctx);
  rope_case c = {2, 4, 3, 8, 8, 20, true, 0};
  wgk_stats before, after;
  run_case(ctx, k, &c);
  wgk_context_stats(ctx, &before);
  assert_true(before.plans_made >= 1 && before.pipelines_created >= 1);
  run_case(ctx, k, &c); /* new inputs, same shapes */
  wgk_context_stats(ctx, &after);
  assert_int_equal(after.plans_made, before.plans_made);
  assert_int_equal(after.shaders_compiled, before.shaders_compiled);
  assert_int_equal(after.pipelines_created, before.pipelines_created);
  assert_int_equal(after.plan_hits, before.plan_hits + 1);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

/* What the library says beside its errors goes to wgk_context_options.log: one line per call of kind LINE, with
 * verbose the shader compile and the plan; without verbose none. */
typedef struct heard {
  int lines;
  bool compiled, planned;
} heard;

static void listen(void *user, wgk_log_kind kind, const char *text) {
  heard *h = user;
  if (kind != WGK_LOG_LINE) return;
  assert_null(strchr(text, '\n'));
  h->lines++;
  h->compiled = h->compiled || strncmp(text, "wgk: compiled ", 14) == 0;
  h->planned = h->planned || strncmp(text, "wgk: planned ai.onnx.RotaryEmbedding variant ", 45) == 0;
}

static void diagnostics_go_to_the_log(void **state) {
  (void)state;
  for (int verbose = 0; verbose < 2; verbose++) {
    heard h = {0};
    wgk_context_options o = {.verbose = verbose, .log = listen, .log_user = &h};
    wgk_context *ctx = NULL;
    char *msg = NULL;
    if (wgk_context_create(&o, &ctx, &msg) != WGK_OK) fail_msg("context: %s", msg ? msg : "?");
    wgk_test_need_gpu_context(ctx);
    wgk_kernel *k = kernel(ctx);
    rope_case c = {1, 2, 3, 8, 8, 0, false, 0};
    run_case(ctx, k, &c);
    wgk_kernel_destroy(k);
    wgk_context_destroy(ctx);
    if (verbose) {
      assert_true(h.compiled);
      assert_true(h.planned);
    } else {
      assert_false(h.compiled || h.planned);
    }
  }
}

/* Runs a call expected to be rejected; the caller's output must keep its NaN poison. */
static void expect_rejected(wgk_context *ctx, wgk_call *call, wgk_tensor *y, const char *needle) {
  wgk_stats before, after;
  wgk_context_stats(ctx, &before);
  wgk_status st = wgk_call_run(call);
  assert_int_not_equal(st, WGK_OK);
  const char *msg = wgk_context_errmsg(ctx);
  if (!strstr(msg, needle)) fail_msg("message '%s' lacks '%s'", msg, needle);
  wgk_context_stats(ctx, &after);
  assert_int_equal(after.dispatches, before.dispatches);
  int64_t n = wgk_tensor_numel(y);
  float *got = malloc((size_t)n * sizeof *got);
  assert_int_equal(wgk_tensor_read(y, got, (size_t)n * sizeof *got), WGK_OK);
  for (int64_t i = 0; i < n; i++) assert_true(isnan(got[i]));
  free(got);
}

static void rejected_calls_change_nothing(void **state) {
  (void)state;
  wgk_context *ctx = context();
  wgk_kernel *k = kernel(ctx);
  rope_case c = {2, 4, 3, 8, 8, 20, true, 0};
  rope_data d = make_data(&c);
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  set_inputs(call, ctx, &d, &c);
  wgk_tensor *y = poisoned(ctx, d.x);
  assert_int_equal(wgk_call_set_output(call, "y", y), WGK_OK);

  assert_int_equal(wgk_call_set_attr_int(call, "interleaved", 2), WGK_OK);
  expect_rejected(ctx, call, y, "attribute interleaved: value 2 is not one of [0, 1]");
  assert_int_equal(wgk_call_set_attr_float(call, "interleaved", 2.0), WGK_OK);
  expect_rejected(ctx, call, y, "attribute interleaved: value 2 is not one of [0, 1]");
  /* A whole float is the integer it holds: 0.0 is the allowed 0, so the next refusal is about positionIds. */
  assert_int_equal(wgk_call_set_attr_float(call, "interleaved", 0.0), WGK_OK);

  int64_t *p = (int64_t *)d.pos->data;
  p[4] = (int64_t)1 << 33;
  wgk_tensor *bad = gpu(ctx, d.pos, WGK_DTYPE_INT64);
  assert_int_equal(wgk_call_set_input(call, "positionIds", bad), WGK_OK);
  expect_rejected(ctx, call, y, "8589934592");
  p[4] = 20; /* one past the last cache row */
  wgk_tensor_write(bad, d.pos->data, (size_t)util_host_tensor_numel(d.pos) * 8);
  expect_rejected(ctx, call, y, "out of range: must be in [0, 20)");
  wgk_tensor_release(bad);

  int32_t *ints = calloc((size_t)util_host_tensor_numel(d.x), sizeof *ints);
  wgk_tensor *xi = NULL;
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_INT32, d.x->rank, d.x->dims, ints, &xi), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "x", xi), WGK_OK);
  expect_rejected(ctx, call, y, "dtype int32 is not allowed");
  wgk_tensor_release(xi);
  free(ints);

  wgk_tensor *p3 = NULL;
  int64_t dims3[3] = {2, 3, 1}, vals[6] = {0};
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_INT64, 3, dims3, vals, &p3), WGK_OK);
  wgk_tensor *x = gpu(ctx, d.x, WGK_DTYPE_FLOAT32);
  assert_int_equal(wgk_call_set_input(call, "x", x), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "positionIds", p3), WGK_OK);
  expect_rejected(ctx, call, y, "ranks.positionIds == 2 is false" /* spec 2.1: the contract's derives refuse it (a port's rank is not enforced) */);
  wgk_tensor_release(p3);
  wgk_tensor_release(x);

  assert_int_equal(wgk_call_set_input(call, "cos", NULL), WGK_OK);
  expect_rejected(ctx, call, y, "required input is missing");

  wgk_tensor_release(y);
  wgk_call_destroy(call);
  free_data(&d);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

static void batch_equals_single_calls(void **state) {
  (void)state;
  wgk_context *ctx = context();
  wgk_kernel *k = kernel(ctx);
  enum { CALLS = 100 };
  rope_case c = {1, 2, 4, 16, 16, 9, true, 1};
  rope_data d[CALLS];
  wgk_tensor *batched[CALLS], *single[CALLS];
  wgk_batch *batch = NULL;
  assert_int_equal(wgk_batch_create(ctx, &batch), WGK_OK);
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  for (int i = 0; i < CALLS; i++) {
    d[i] = make_data(&c);
    set_inputs(call, ctx, &d[i], &c);
    if (wgk_batch_add(batch, call) != WGK_OK) fail_msg("batch add: %s", wgk_context_errmsg(ctx));
    batched[i] = wgk_tensor_retain(wgk_call_output(call, "y"));
  }
  wgk_stats before, after;
  wgk_context_stats(ctx, &before);
  assert_int_equal(wgk_batch_submit(batch), WGK_OK);
  wgk_context_stats(ctx, &after);
  assert_int_equal(after.submissions, before.submissions + 1);
  for (int i = 0; i < CALLS; i++) {
    set_inputs(call, ctx, &d[i], &c);
    if (wgk_call_run(call) != WGK_OK) fail_msg("run %d: %s", i, wgk_context_errmsg(ctx));
    single[i] = wgk_tensor_retain(wgk_call_output(call, "y"));
  }
  int64_t n = (int64_t)util_host_tensor_numel(d[0].x);
  float *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
  for (int i = 0; i < CALLS; i++) {
    assert_int_equal(wgk_tensor_read(batched[i], a, (size_t)n * sizeof *a), WGK_OK);
    assert_int_equal(wgk_tensor_read(single[i], b, (size_t)n * sizeof *b), WGK_OK);
    assert_memory_equal(a, b, (size_t)n * sizeof *a);
    expect_matches(batched[i], &d[i], &c);
    wgk_tensor_release(batched[i]);
    wgk_tensor_release(single[i]);
    free_data(&d[i]);
  }
  free(a);
  free(b);
  wgk_call_destroy(call);
  wgk_batch_destroy(batch);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

static void caller_device_survives(void **state) {
  (void)state;
  util_error err;
  util_error_clear(&err);
  gpu_device *mine = NULL;
  assert_int_equal(gpu_device_create(NULL, &mine, &err), WGK_OK);
  wgk_context_options o = {.wgpu_instance = gpu_device_raw_instance(mine), .wgpu_device = gpu_device_raw(mine)};
  wgk_context *ctx = NULL;
  assert_int_equal(wgk_context_create(&o, &ctx, NULL), WGK_OK);
  wgk_kernel *k = kernel(ctx);
  rope_case c = {1, 2, 3, 8, 8, 0, false, 0};
  run_case(ctx, k, &c);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
  /* The caller's device still works: a round trip through a fresh buffer. */
  gpu_buffer *buf = NULL;
  uint32_t in[64], out[64];
  for (int i = 0; i < 64; i++) in[i] = (uint32_t)util_rng_next(&rng);
  assert_int_equal(
      gpu_buffer_create(mine, sizeof in, WGK_GPU_BUFFER_STORAGE | WGK_GPU_BUFFER_COPY_SRC | WGK_GPU_BUFFER_COPY_DST,
                        "after", &buf, &err),
      WGK_OK);
  assert_int_equal(gpu_buffer_write(mine, buf, 0, in, sizeof in, &err), WGK_OK);
  assert_int_equal(gpu_buffer_read(mine, buf, 0, out, sizeof out, 10000, &err), WGK_OK);
  assert_memory_equal(in, out, sizeof in);
  gpu_buffer_destroy(buf);
  gpu_device_destroy(mine);
}

int main(void) {
  find_package();
  uint64_t seed = wgk_test_seed_value((uint64_t)time(NULL));
  printf("seed %llu (WGK_TEST_SEED to repeat)\n", (unsigned long long)seed);
  util_rng_seed(&rng, seed);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(results_match_reference),       cmocka_unit_test(second_call_compiles_nothing),
      cmocka_unit_test(rejected_calls_change_nothing), cmocka_unit_test(batch_equals_single_calls),
      cmocka_unit_test(caller_device_survives),        cmocka_unit_test(diagnostics_go_to_the_log),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
