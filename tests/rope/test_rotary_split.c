/* RotaryEmbedding calls over the storage-binding limit run as sub-calls along the axis the op declares
 * (src/ops/ai.onnx.RotaryEmbedding/host_hook.c): the limit is lowered to 20000 bytes (WGK_MAX_STORAGE_BINDING_BYTES)
 * so small tensors split. Every case against the double reference on random inputs, outputs poisoned (NaN)
 * first; a call that no rule can split is refused naming the port, its size and the limit, dispatching nothing.
 * Needs a real adapter (tests/util/wgk_test.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ai.onnx.RotaryEmbedding/reference.h"
#include "util/wgk_test.h"
#include "wgk.h"

#define LIMIT "20000"

typedef wgk_test_fixture fixture;

static int setup(void **state) {
  setenv("WGK_MAX_STORAGE_BINDING_BYTES", LIMIT, 1); /* before the context reads the limits */
  return wgk_test_fixture_setup(state, "webgpu-kernels/ai.onnx.RotaryEmbedding");
}

static int teardown(void **state) { return wgk_test_fixture_teardown(state); }

static double uniform(unsigned *seed) { return (double)rand_r(seed) / RAND_MAX * 2 - 1; }

static size_t numel(int rank, const int64_t *d) {
  size_t n = 1;
  for (int i = 0; i < rank; i++) n *= (size_t)d[i];
  return n;
}

static util_host_tensor *host_f32(int rank, const int64_t *dims, unsigned *seed) {
  util_host_tensor *t = NULL;
  assert_int_equal(util_host_tensor_create(WGK_DTYPE_FLOAT32, rank, dims, &t), WGK_OK);
  float *v = t->data;
  for (size_t i = 0; i < numel(rank, dims); i++) v[i] = (float)uniform(seed);
  return t;
}

typedef struct rope_case {
  int xrank;
  int64_t xs[4];
  int crank;
  int64_t cs[3];
  bool positions; /* position_ids (batch, seq) in [0, cs[0]) */
  int64_t num_heads, rot, interleaved;
  int min_dispatches; /* the sub-calls the split must make */
} rope_case;

/* Runs the case twice (the second time through the cached sub-call plans) into a NaN-poisoned output; every
 * element within float32 tolerance of the double reference. */
static void run_case(fixture *f, const rope_case *rc, unsigned seed) {
  util_host_tensor *hx = host_f32(rc->xrank, rc->xs, &seed), *hc = host_f32(rc->crank, rc->cs, &seed),
                   *hs = host_f32(rc->crank, rc->cs, &seed), *hp = NULL;
  int64_t batch = rc->xs[0], seq = rc->xrank == 4 ? rc->xs[2] : rc->xs[1], ps[2] = {batch, seq};
  if (rc->positions) {
    assert_int_equal(util_host_tensor_create(WGK_DTYPE_INT64, 2, ps, &hp), WGK_OK);
    int64_t *p = hp->data;
    for (size_t i = 0; i < numel(2, ps); i++) p[i] = rand_r(&seed) % rc->cs[0];
  }
  size_t n = numel(rc->xrank, rc->xs);
  double *want = malloc(n * sizeof *want);
  float *got = malloc(n * sizeof *got), *poison = malloc(n * sizeof *poison);
  assert_non_null(want), assert_non_null(got), assert_non_null(poison);
  util_error e;
  util_error_clear(&e);
  ops_ref_rotary_attrs at = {rc->num_heads, rc->rot, rc->interleaved};
  assert_int_equal(ops_ref_rotary(hx, hc, hs, hp, &at, want, &e), WGK_OK);
  wgk_tensor *tx, *tc, *ts, *tp = NULL, *ty;
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, rc->xrank, rc->xs, hx->data, &tx), WGK_OK);
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, rc->crank, rc->cs, hc->data, &tc), WGK_OK);
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, rc->crank, rc->cs, hs->data, &ts), WGK_OK);
  if (hp) assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_INT64, 2, ps, hp->data, &tp), WGK_OK);
  for (size_t i = 0; i < n; i++) poison[i] = NAN;
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, rc->xrank, rc->xs, poison, &ty), WGK_OK);
  wgk_call *call;
  assert_int_equal(wgk_call_create(f->k, &call), WGK_OK);
  wgk_call_set_input(call, "x", tx), wgk_call_set_input(call, "cos", tc), wgk_call_set_input(call, "sin", ts);
  if (tp) wgk_call_set_input(call, "positionIds", tp);
  assert_int_equal(wgk_call_set_output(call, "y", ty), WGK_OK);
  if (rc->num_heads) wgk_call_set_attr_int(call, "num_heads", rc->num_heads);
  if (rc->rot) wgk_call_set_attr_int(call, "rotary_embedding_dim", rc->rot);
  wgk_call_set_attr_int(call, "interleaved", rc->interleaved);
  if (wgk_prepare(call) != WGK_OK) fail_msg("prepare: %s", wgk_context_errmsg(f->ctx)); /* the sub-calls' plans */
  /* a split call succeeded: the whole call's refusal (over the binding limit) is not left as the error (issue 37) */
  if (wgk_context_errcode(f->ctx) != WGK_OK || *wgk_context_errmsg(f->ctx))
    fail_msg("prepare succeeded but the context says: %s", wgk_context_errmsg(f->ctx));
  for (int round = 0; round < 2; round++) {
    wgk_stats before, after;
    wgk_context_stats(f->ctx, &before);
    wgk_status st = wgk_call_run(call);
    if (st != WGK_OK) fail_msg("run: %s", wgk_context_errmsg(f->ctx));
    if (wgk_context_errcode(f->ctx) != WGK_OK || *wgk_context_errmsg(f->ctx))
      fail_msg("run succeeded but the context says: %s", wgk_context_errmsg(f->ctx));
    wgk_context_stats(f->ctx, &after);
    if (after.dispatches - before.dispatches < (uint64_t)rc->min_dispatches)
      fail_msg("%llu dispatches, want at least %d sub-calls",
               (unsigned long long)(after.dispatches - before.dispatches), rc->min_dispatches);
    assert_int_equal(wgk_tensor_read_f32(ty, got, n), WGK_OK);
    for (size_t i = 0; i < n; i++)
      if (!(fabs(got[i] - want[i]) <= 1e-5 + 1e-5 * fabs(want[i])))
        fail_msg("round %d [%zu] got %g want %g", round, i, got[i], want[i]);
    assert_int_equal(wgk_tensor_write(ty, poison, n * sizeof *poison), WGK_OK);
  }
  wgk_call_destroy(call);
  wgk_tensor_release(tx), wgk_tensor_release(tc), wgk_tensor_release(ts), wgk_tensor_release(tp);
  wgk_tensor_release(ty);
  util_host_tensor_free(hx), util_host_tensor_free(hc), util_host_tensor_free(hs), util_host_tensor_free(hp);
  free(want), free(got), free(poison);
}

/* X 40960 bytes, a batch 8192: windows of 2 batches, the last of 1 (a second sub-call plan). */
static void splits_batch_with_a_shorter_last_window(void **state) {
  rope_case rc = {4, {5, 2, 64, 16}, 2, {100, 8}, true, 0, 0, 0, 3};
  run_case(*state, &rc, 1);
}

/* Batch 1, rank 3: the sequence axis, position ids windowed with X (128 tokens: 256-byte aligned id windows). */
static void splits_sequence_of_one_batch(void **state) {
  rope_case rc = {3, {1, 320, 32}, 2, {500, 4}, true, 2, 8, 1, 3};
  run_case(*state, &rc, 2);
}

/* Batch 1, rank 4 with 6 heads: the heads axis, position ids and caches bound whole. */
static void splits_heads_of_one_batch(void **state) {
  rope_case rc = {4, {1, 6, 64, 16}, 2, {64, 8}, true, 0, 0, 0, 2};
  run_case(*state, &rc, 3);
}

/* No position ids: the (batch, seq, rot/2) caches are windowed with X. */
static void splits_batch_caches_without_position_ids(void **state) {
  rope_case rc = {3, {3, 64, 32}, 3, {3, 64, 4}, false, 2, 8, 0, 2};
  run_case(*state, &rc, 4);
}

/* A 2D cache over the limit is bound whole by every sub-call: refused, naming the port, its bytes and the limit,
 * nothing dispatched and the output as it was. */
static void refuses_a_cache_over_the_limit(void **state) {
  fixture *f = *state;
  int64_t xs[4] = {2, 1, 4, 16}, cs[2] = {1000, 8}, ps[2] = {2, 4};
  float *c = calloc(8000, sizeof *c), x[128] = {0}, y[128];
  int64_t p[8] = {0};
  for (int i = 0; i < 128; i++) y[i] = 7;
  wgk_tensor *tx, *tc, *tp, *ty;
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, 4, xs, x, &tx), WGK_OK);
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, 2, cs, c, &tc), WGK_OK);
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_INT64, 2, ps, p, &tp), WGK_OK);
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, 4, xs, y, &ty), WGK_OK);
  wgk_call *call;
  assert_int_equal(wgk_call_create(f->k, &call), WGK_OK);
  wgk_call_set_input(call, "x", tx), wgk_call_set_input(call, "cos", tc), wgk_call_set_input(call, "sin", tc);
  wgk_call_set_input(call, "positionIds", tp);
  wgk_call_set_output(call, "y", ty);
  wgk_stats before, after;
  wgk_context_stats(f->ctx, &before);
  assert_int_equal(wgk_prepare(call), WGK_ERR_LIMIT);
  assert_int_equal(wgk_call_run(call), WGK_ERR_LIMIT);
  wgk_context_stats(f->ctx, &after);
  assert_int_equal(before.dispatches, after.dispatches);
  const char *msg = wgk_context_errmsg(f->ctx);
  printf("# %s\n", msg);
  if (!strstr(msg, "port cos is 32000 bytes, over the device's maxStorageBufferBindingSize of " LIMIT " bytes"))
    fail_msg("message: %s", msg);
  float back[128];
  assert_int_equal(wgk_tensor_read_f32(ty, back, 128), WGK_OK);
  for (int i = 0; i < 128; i++) assert_true(back[i] == 7);
  wgk_call_destroy(call);
  wgk_tensor_release(tx), wgk_tensor_release(tc), wgk_tensor_release(tp), wgk_tensor_release(ty);
  free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(splits_batch_with_a_shorter_last_window),
      cmocka_unit_test(splits_sequence_of_one_batch),
      cmocka_unit_test(splits_heads_of_one_batch),
      cmocka_unit_test(splits_batch_caches_without_position_ids),
      cmocka_unit_test(refuses_a_cache_over_the_limit),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
