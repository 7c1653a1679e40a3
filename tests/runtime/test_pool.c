/* The context's buffer pool (issue 14 item 2): buffers of released tensors are reused across calls, and no call
 * ever sees another's bytes through them. test.Half writes only the first half of its output, so the second half
 * shows what the output buffer held: zeros, as a new buffer, even when the pool hands it the buffer of a
 * released tensor full of other values. A tensor released while a batch holds an unsubmitted recording that
 * binds it keeps its bytes until that recording runs. Inputs are uploaded into pooled buffers: every value is
 * the one written. Meant to run under ASan as well. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime_internal.h"
#include "util/wgk_test.h"

static char half_pkg[4096], twopass_pkg[4096];

enum { N = 64 };

static void fill(float *v, int n, float base) {
  for (int i = 0; i < n; i++) v[i] = base + (float)i * 0.25f;
}

static void fill_int8(int8_t *v, int n, int step, int base) {
  for (int i = 0; i < n; i++) v[i] = (int8_t)(i * step + base);
}

/* The int8 round trip of a staged context (each value widened to a word on the GPU): a tensor of n values
 * i * step + base made and read back (the host array changed in between: the tensor holds its own copy), then the
 * values i * step2 + base2 written into it and read back, every read into poison. */
static void int8_round_trip(wgk_context *ctx, int n, int step, int base, int step2, int base2) {
  int8_t *vals = malloc((size_t)n), *back = malloc((size_t)n);
  assert_non_null(vals);
  assert_non_null(back);
  int64_t shape = n;
  wgk_tensor *t = NULL;
  fill_int8(vals, n, step, base);
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_INT8, 1, &shape, vals, &t), WGK_OK);
  fill_int8(vals, n, step2, base2);
  memset(back, 0x5a, (size_t)n);
  assert_int_equal(wgk_tensor_read(t, back, (size_t)n), WGK_OK);
  fill_int8(vals, n, step, base);
  assert_memory_equal(back, vals, (size_t)n);
  fill_int8(vals, n, step2, base2);
  assert_int_equal(wgk_tensor_write(t, vals, (size_t)n), WGK_OK);
  memset(back, 0x5a, (size_t)n);
  assert_int_equal(wgk_tensor_read(t, back, (size_t)n), WGK_OK);
  assert_memory_equal(back, vals, (size_t)n);
  wgk_tensor_release(t);
  free(vals);
  free(back);
}

/* Leaves released tensors of N floats in the pool, full of poison. */
static void pool_poisoned_buffers(wgk_context *ctx, int count) {
  float poison[N];
  for (int i = 0; i < N; i++) poison[i] = -777.0f;
  wgk_tensor *t[8];
  for (int i = 0; i < count; i++) t[i] = wgk_test_floats(ctx, N, poison);
  assert_int_equal(wgk_context_wait(ctx), WGK_OK);
  for (int i = 0; i < count; i++) wgk_tensor_release(t[i]);
}

static void output_from_pool_reads_as_new(void **state) {
  (void)state;
  wgk_context *ctx = wgk_test_context();
  wgk_kernel *k = wgk_test_load(ctx, half_pkg);
  for (int round = 0; round < 3; round++) {
    pool_poisoned_buffers(ctx, 4);
    uint64_t hits = ctx->pool.hits;
    float xv[N], y[N];
    fill(xv, N, (float)round);
    wgk_tensor *x = wgk_test_floats(ctx, N, xv); /* from the pool: every value the one written */
    wgk_call *c = NULL;
    assert_int_equal(wgk_call_create(k, &c), WGK_OK);
    assert_int_equal(wgk_call_set_input(c, "x", x), WGK_OK);
    assert_int_equal(wgk_call_run(c), WGK_OK);
    assert_true(ctx->pool.hits >= hits + 2); /* the input and the output both reused a poisoned buffer */
    assert_int_equal(wgk_tensor_read(wgk_call_output(c, "y"), y, sizeof y), WGK_OK);
    for (int i = 0; i < N; i++) {
      float want = i < N / 2 ? xv[i] + 1 : 0.0f;
      if (y[i] != want) fail_msg("round %d: y[%d] is %g, expected %g", round, i, y[i], want);
    }
    wgk_call_destroy(c);
    wgk_tensor_release(x);
  }
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

/* A call recorded into a batch binds x; x is released and a new tensor of the same size is made before the
 * submit. The new tensor must not get x's buffer: its upload would land before the recording runs. */
static void batch_keeps_released_inputs(void **state) {
  (void)state;
  wgk_context *ctx = wgk_test_context();
  wgk_kernel *k = wgk_test_load(ctx, twopass_pkg);
  float xv[N], wv[1] = {2.0f}, other[N], y[N];
  fill(xv, N, 1.0f);
  for (int i = 0; i < N; i++) other[i] = 1000.0f;
  wgk_tensor *x = wgk_test_floats(ctx, N, xv), *w = wgk_test_floats(ctx, 1, wv);
  wgk_call *c = NULL;
  wgk_batch *b = NULL;
  assert_int_equal(wgk_call_create(k, &c), WGK_OK);
  assert_int_equal(wgk_call_set_input(c, "x", x), WGK_OK);
  assert_int_equal(wgk_call_set_input(c, "w", w), WGK_OK);
  assert_int_equal(wgk_batch_create(ctx, &b), WGK_OK);
  assert_int_equal(wgk_batch_add(b, c), WGK_OK);
  assert_int_equal(wgk_call_set_input(c, "x", NULL), WGK_OK);
  wgk_tensor_release(x); /* the batch's recording still reads it */
  wgk_tensor *x2 = wgk_test_floats(ctx, N, other);
  assert_int_equal(wgk_batch_submit(b), WGK_OK);
  assert_int_equal(wgk_tensor_read(wgk_call_output(c, "y"), y, sizeof y), WGK_OK);
  for (int i = 0; i < N; i++)
    if (y[i] != (xv[i] + 1) * 2) fail_msg("y[%d] is %g, expected %g", i, y[i], (xv[i] + 1) * 2);
  wgk_tensor_release(x2);
  wgk_batch_destroy(b);
  wgk_call_destroy(c);
  wgk_tensor_release(w);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

/* Shapes that repeat reuse their buffers: the second e2e-style round (new tensors from host data, run, read,
 * release) takes every buffer from the pool, and reads back what the reference says. */
static void repeated_calls_reuse_buffers(void **state) {
  (void)state;
  wgk_context *ctx = wgk_test_context();
  wgk_kernel *k = wgk_test_load(ctx, twopass_pkg);
  wgk_call *c = NULL;
  assert_int_equal(wgk_call_create(k, &c), WGK_OK);
  for (int round = 0; round < 4; round++) {
    float xv[N], wv[3] = {1.5f, -2.0f, 0.5f}, y[N];
    fill(xv, N, (float)(round * 10));
    for (int i = 0; i < N; i++) y[i] = -777.0f;
    wgk_tensor *x = wgk_test_floats(ctx, N, xv), *w = wgk_test_floats(ctx, 3, wv);
    uint64_t misses = ctx->pool.misses;
    assert_int_equal(wgk_call_set_input(c, "x", x), WGK_OK);
    assert_int_equal(wgk_call_set_input(c, "w", w), WGK_OK);
    assert_int_equal(wgk_call_run(c), WGK_OK);
    assert_int_equal(wgk_tensor_read(wgk_call_output(c, "y"), y, sizeof y), WGK_OK);
    for (int i = 0; i < N; i++) {
      float want = (xv[i] + 1) * wv[i % 3];
      if (y[i] != want) fail_msg("round %d: y[%d] is %g, expected %g", round, i, y[i], want);
    }
    if (round >= 2) assert_int_equal(ctx->pool.misses, misses); /* the readback staging came from the pool */
    wgk_tensor_release(x);
    wgk_tensor_release(w);
  }
  assert_true(ctx->pool.hits > 0);
  wgk_call_destroy(c);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

/* Staged uploads on: uploads over the queue-write limit (lowered here to 64 KiB) go through the pool's MAP_WRITE
 * staging, mapped again on every reuse; every value arrives, round after round, and int8 values are widened on the
 * way. */
static void staged_uploads_arrive(void **state) {
  (void)state;
  wgk_context_options o = {.staged_upload = WGK_ON};
  wgk_context *ctx = wgk_test_context_with(&o);
  assert_true(ctx->staged_upload);
  ctx->queue_write_max = 64 << 10;
  enum { M = 40000 }; /* 160 KB of floats: past the 64 KiB threshold, not a size class */
  static float xv[M], back[M];
  for (int round = 0; round < 3; round++) {
    fill(xv, M, (float)round * 3);
    wgk_tensor *x = wgk_test_floats(ctx, M, xv);
    assert_int_equal(wgk_tensor_read(x, back, sizeof back), WGK_OK);
    assert_memory_equal(back, xv, sizeof xv);
    wgk_tensor_release(x);
  }
  int8_round_trip(ctx, M, 7, -100, 3, 11);
  wgk_context_destroy(ctx);
}

/* Staged uploads and readbacks larger than the pool's cap go in pieces that the pool keeps: a second round of the
 * same size maps no new staging buffer (before the pieces, the whole tensor's size class was over the cap,
 * destroyed after every transfer and made again), and every value arrives across the piece boundaries, widened
 * ones too. */
static void staged_transfers_in_pieces(void **state) {
  (void)state;
  wgk_context_options o = {.staged_upload = WGK_ON};
  wgk_context *ctx = wgk_test_context_with(&o);
  ctx->staged_chunk = 64 << 10;    /* pieces of 64 KiB */
  ctx->queue_write_max = 64 << 10; /* staged past 64 KiB */
  ctx->pool.max_bytes = 256 << 10; /* a pool cap below the tensor's 640 KB */
  enum { M = 160003 };             /* not a multiple of a piece's 16384 floats */
  static float xv[M], back[M];
  fill(xv, M, -3);
  wgk_tensor *x = wgk_test_floats(ctx, M, xv); /* a new buffer mapped at creation: no staging */
  for (int round = 0; round < 3; round++) {
    fill(xv, M, (float)round * 5 + 1);
    uint64_t misses = ctx->pool.misses;
    assert_int_equal(wgk_tensor_write(x, xv, sizeof xv), WGK_OK); /* staged, into the tensor's buffer */
    memset(back, 0xff, sizeof back);
    assert_int_equal(wgk_tensor_read(x, back, sizeof back), WGK_OK);
    assert_memory_equal(back, xv, sizeof xv);
    if (round >= 1) assert_int_equal(ctx->pool.misses, misses); /* every piece's staging came from the pool */
  }
  wgk_tensor_release(x);
  int8_round_trip(ctx, M, 13, -50, 5, 3); /* widened, staged in pieces both ways */
  wgk_context_destroy(ctx);
}

int main(int argc, char **argv) {
  if (argc > 1) cmocka_set_test_filter(argv[1]);
  const char *src = getenv("WGK_SOURCE_DIR");
  snprintf(half_pkg, sizeof half_pkg, "%s/tests/runtime/test.Half", src ? src : ".");
  snprintf(twopass_pkg, sizeof twopass_pkg, "%s/tests/runtime/test.TwoPass", src ? src : ".");
  setenv("WGK_TUNING_CACHE", "/nonexistent/wgk-test-pool/tuning.json", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(output_from_pool_reads_as_new), cmocka_unit_test(batch_keeps_released_inputs),
      cmocka_unit_test(repeated_calls_reuse_buffers),  cmocka_unit_test(staged_uploads_arrive),
      cmocka_unit_test(staged_transfers_in_pieces),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
