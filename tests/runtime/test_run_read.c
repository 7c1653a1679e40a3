/* wgk_call_run_read (issue 14: the public loader's call with one wait): RotaryEmbedding [1,HEADS,S,128] on fresh
 * random inputs, outputs poisoned before every read and compared with a double reference (NeoX halves):
 * - an output that fits a staging piece is copied out in the call's own submission: one submission and one map
 *   wait per call, deferred cache uploads included;
 * - an output larger than a piece is read after the submission, piece by piece, and arrives whole;
 * - float16 outputs arrive as their host values;
 * - a refused read (unknown or input port, NULL data, short size) refuses the call: nothing submitted, the host
 *   memory and the call's outputs as they were. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_internal.h"
#include "runtime/rope_check.h"
#include "runtime/runtime_internal.h"
#include "util/half.h"
#include "util/rng.h"
#include "util/wgk_test.h"

enum { HEADS = 4, HEAD = 128, HALF = HEAD / 2, ROWS = 512 };

static util_rng rng;

/* One call's host arrays: x [1,HEADS,s,HEAD], caches [ROWS,HALF], positions [1,s]. */
typedef struct rope_case {
  int s;
  float *x, *cs, *sn;
  int64_t *pos;
} rope_case;

static rope_case draw(int s) {
  rope_case c = {s, malloc(sizeof(float) * HEADS * s * HEAD), malloc(sizeof(float) * ROWS * HALF),
                 malloc(sizeof(float) * ROWS * HALF), malloc(sizeof(int64_t) * s)};
  assert_true(c.x && c.cs && c.sn && c.pos);
  for (int i = 0; i < HEADS * s * HEAD; i++) c.x[i] = (float)util_rng_uniform(&rng, -1, 1);
  for (int i = 0; i < ROWS * HALF; i++)
    c.cs[i] = (float)util_rng_uniform(&rng, -1, 1), c.sn[i] = (float)util_rng_uniform(&rng, -1, 1);
  for (int i = 0; i < s; i++) c.pos[i] = util_rng_int(&rng, 0, ROWS - 1);
  return c;
}

static void drop(rope_case *c) { free(c->x), free(c->cs), free(c->sn), free(c->pos); }

/* The largest error of y (float32, or float16 host values) against the double reference. */
static double max_error(const rope_case *c, const void *y, bool f16) {
  rope_check check = {HEADS, c->s, c->x, c->cs, c->sn, c->pos};
  return rope_check_error(&check, y, f16);
}

/* The call's inputs made from c's host arrays, in dtype dt (float16: the arrays rounded to it first, so the
 * reference sees what the GPU does). */
static void set_inputs(wgk_context *ctx, wgk_call *call, rope_case *c, wgk_dtype dt) {
  int64_t xs[4] = {1, HEADS, c->s, HEAD}, cshape[2] = {ROWS, HALF}, ps[2] = {1, c->s};
  float *arrays[3] = {c->x, c->cs, c->sn};
  int64_t counts[3] = {(int64_t)HEADS * c->s * HEAD, ROWS * HALF, ROWS * HALF};
  const char *names[3] = {"x", "cos", "sin"};
  for (int a = 0; a < 3; a++) {
    wgk_tensor *t = NULL;
    const int64_t *shape = a ? cshape : xs;
    int rank = a ? 2 : 4;
    if (dt == WGK_DTYPE_FLOAT16) {
      for (int64_t i = 0; i < counts[a]; i++) arrays[a][i] = util_half_to_float(util_half_from_float(arrays[a][i]));
      assert_int_equal(wgk_tensor_create_f16_from_f32(ctx, rank, shape, arrays[a], &t), WGK_OK);
    } else {
      assert_int_equal(wgk_tensor_create(ctx, dt, rank, shape, arrays[a], &t), WGK_OK);
    }
    assert_int_equal(wgk_call_set_input(call, names[a], t), WGK_OK);
    wgk_tensor_release(t);
  }
  wgk_tensor *p = NULL;
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_INT64, 2, ps, c->pos, &p), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "positionIds", p), WGK_OK);
  wgk_tensor_release(p);
}

/* A context with staged, deferred uploads (as on a GPU adapter) and staged pieces of `chunk` bytes (0: the
 * default). */
static wgk_context *context(uint64_t chunk) {
  wgk_context *ctx = wgk_test_staged_context();
  ctx->queue_write_max = 4096; /* the caches (128 KiB) staged, their copies deferred */
  if (chunk) ctx->staged_chunk = chunk;
  return ctx;
}

/* Calls of s positions in dtype dt through wgk_call_run_read, each on fresh inputs into a poisoned y; returns the
 * submissions and map waits of the last call. */
static void run_rounds(wgk_context *ctx, int s, wgk_dtype dt, uint64_t *submits, uint64_t *waits) {
  wgk_kernel *k = wgk_test_load(ctx, "webgpu-kernels/ai.onnx.RotaryEmbedding");
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  bool f16 = dt == WGK_DTYPE_FLOAT16;
  size_t y_bytes = (size_t)HEADS * s * HEAD * (f16 ? 2 : 4);
  void *y = malloc(y_bytes);
  for (int round = 0; round < 3; round++) {
    rope_case c = draw(s);
    set_inputs(ctx, call, &c, dt);
    memset(y, 0xff, y_bytes); /* NaN where unwritten */
    uint64_t sub0 = gpu_device_submits(ctx->dev), wait0 = gpu_device_map_waits(ctx->dev);
    wgk_output_read read = {"y", y, y_bytes};
    assert_int_equal(wgk_call_run_read(call, &read, 1), WGK_OK);
    *submits = gpu_device_submits(ctx->dev) - sub0;
    *waits = gpu_device_map_waits(ctx->dev) - wait0;
    assert_true(max_error(&c, y, f16) < (f16 ? 4e-3 : 1e-5));
    drop(&c);
  }
  free(y);
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
}

/* A small output rides in the call's submission: one submission (the deferred cache copies, the call, the copy
 * out) and one wait. wgk_call_run + wgk_tensor_read takes two submissions. */
static void small_output_in_the_call_submission(void **state) {
  (void)state;
  wgk_context *ctx = context(0);
  uint64_t submits = 0, waits = 0;
  run_rounds(ctx, 1, WGK_DTYPE_FLOAT32, &submits, &waits);
  assert_int_equal(submits, 1);
  assert_int_equal(waits, 1);
  wgk_context_destroy(ctx);
}

/* An output of 256 KiB with pieces of 64 KiB: read after the call's submission, four pieces, every value there. */
static void large_output_read_in_pieces(void **state) {
  (void)state;
  wgk_context *ctx = context(64 << 10);
  uint64_t submits = 0, waits = 0;
  run_rounds(ctx, 128, WGK_DTYPE_FLOAT32, &submits, &waits);
  assert_int_equal(submits, 1 + 4); /* the call, then a copy per piece */
  wgk_context_destroy(ctx);
}

/* Float16 (stored as f16 with shader-f16, else two halves a word): the host values arrive. */
static void float16_output(void **state) {
  (void)state;
  wgk_context *ctx = context(0);
  uint64_t submits = 0, waits = 0;
  run_rounds(ctx, 3, WGK_DTYPE_FLOAT16, &submits, &waits);
  assert_int_equal(submits, 1);
  wgk_context_destroy(ctx);
}

/* Each bad read refuses the call: the status and message, nothing submitted, y untouched, the call's output the
 * tensor (and values) of its last run. */
static void refused_reads_change_nothing(void **state) {
  (void)state;
  wgk_context *ctx = context(0);
  wgk_kernel *k = wgk_test_load(ctx, "webgpu-kernels/ai.onnx.RotaryEmbedding");
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  rope_case c = draw(2);
  set_inputs(ctx, call, &c, WGK_DTYPE_FLOAT32);
  enum { N = HEADS * 2 * HEAD };
  static float y[N], before[N], poison[N];
  wgk_output_read good = {"y", before, sizeof before};
  assert_int_equal(wgk_call_run_read(call, &good, 1), WGK_OK);
  wgk_tensor *out = wgk_call_output(call, "y");
  struct {
    wgk_output_read read;
    wgk_status status;
    const char *says;
  } bad[] = {
      {{"z", y, sizeof y}, WGK_ERR_NOT_FOUND, "has no output 'z'"},
      {{"cos", y, sizeof y}, WGK_ERR_NOT_FOUND, "has no output 'cos'"},
      {{NULL, y, sizeof y}, WGK_ERR_INVALID_ARGUMENT, "read 0 has no name"},
      {{"y", NULL, sizeof y}, WGK_ERR_INVALID_ARGUMENT, "output y: data is NULL"},
      {{"y", y, sizeof y - 4}, WGK_ERR_INVALID_ARGUMENT, "output y: 4092 bytes given, 4096 needed"},
  };
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
    memset(y, 0xab, sizeof y);
    memcpy(poison, y, sizeof y);
    uint64_t submits = gpu_device_submits(ctx->dev);
    assert_int_equal(wgk_call_run_read(call, &bad[b].read, 1), bad[b].status);
    assert_non_null(strstr(wgk_context_errmsg(ctx), bad[b].says));
    assert_int_equal(gpu_device_submits(ctx->dev), submits);
    assert_memory_equal(y, poison, sizeof y);
    assert_ptr_equal(wgk_call_output(call, "y"), out);
    memset(y, 0xff, sizeof y);
    assert_int_equal(wgk_tensor_read(out, y, sizeof y), WGK_OK);
    assert_memory_equal(y, before, sizeof y);
  }
  assert_int_equal(wgk_call_run_read(NULL, &good, 1), WGK_ERR_INVALID_ARGUMENT);
  assert_int_equal(wgk_call_run_read(call, NULL, 1), WGK_ERR_INVALID_ARGUMENT);
  assert_int_equal(wgk_call_run_read(call, NULL, 0), WGK_OK); /* no reads: a run */
  drop(&c);
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

int main(int argc, char **argv) {
  if (argc > 1) cmocka_set_test_filter(argv[1]);
  setenv("WGK_TUNING_CACHE", "/nonexistent/wgk-test-run-read/tuning.json", 1);
  wgk_test_seed(&rng, "test_run_read");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(small_output_in_the_call_submission),
      cmocka_unit_test(large_output_read_in_pieces),
      cmocka_unit_test(float16_output),
      cmocka_unit_test(refused_reads_change_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
