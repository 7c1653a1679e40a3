/* RotaryEmbedding through the public API: host checks refuse bad calls before dispatch with clear messages,
 * and float16 matches the double reference. Needs a real adapter (tests/util/wgk_test.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ops/ai.onnx.RotaryEmbedding/reference.h"
#include "wgk.h"
#include "util/wgk_test.h"

typedef wgk_test_fixture fixture;

static int setup(void **state) { return wgk_test_fixture_setup(state, "webgpu-kernels/ai.onnx.RotaryEmbedding"); }

static int teardown(void **state) { return wgk_test_fixture_teardown(state); }

/* A 4D call (1, 2, 3, 8) with 2D caches of 10 rows and the given position ids (or the tensor pos_given);
 * returns run's status. */
static wgk_tensor *pos_given;
static wgk_status run_pos(fixture *f, const int64_t *pos, int64_t head) {
  int64_t xs[4] = {1, 2, 3, head}, cs[2] = {10, head / 2}, ps[2] = {1, 3};
  float x[48] = {0}, c[40] = {0};
  wgk_tensor *tx, *tc, *tp;
  wgk_call *call;
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, 4, xs, x, &tx), WGK_OK);
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, 2, cs, c, &tc), WGK_OK);
  if (pos_given)
    tp = wgk_tensor_retain(pos_given);
  else
    assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_INT64, 2, ps, pos, &tp), WGK_OK);
  assert_int_equal(wgk_call_create(f->k, &call), WGK_OK);
  wgk_call_set_input(call, "x", tx);
  wgk_call_set_input(call, "cos", tc);
  wgk_call_set_input(call, "sin", tc);
  wgk_call_set_input(call, "positionIds", tp);
  wgk_status st = wgk_call_run(call);
  wgk_call_destroy(call);
  wgk_tensor_release(tx), wgk_tensor_release(tc), wgk_tensor_release(tp);
  return st;
}

static void refuses_position_ids_out_of_range(void **state) {
  fixture *f = *state;
  int64_t good[3] = {0, 9, 4}, big[3] = {0, 10, 4};
  wgk_stats before, after;
  assert_int_equal(run_pos(f, good, 8), WGK_OK);
  wgk_context_stats(f->ctx, &before);
  assert_int_equal(run_pos(f, big, 8), WGK_ERR_CALL);
  wgk_context_stats(f->ctx, &after);
  assert_int_equal(before.dispatches, after.dispatches); /* nothing dispatched */
  const char *msg = wgk_context_errmsg(f->ctx);
  if (!strstr(msg, "positionIds (position_ids): value 10 at [0, 1] is out of range: must be in [0, 10)"))
    fail_msg("message: %s", msg);
}

/* Position ids in a caller's buffer (wrapped), rewritten after a first call (through another tensor over the same
 * WGPUBuffer, as wgpuQueueWriteBuffer would): the check sees the new values, not a copy from the first call. */
static void checks_wrapped_position_ids_as_they_are(void **state) {
  fixture *f = *state;
  int64_t ps[2] = {1, 3}, good[3] = {0, 9, 4}, big[3] = {0, 1000000, 4};
  wgk_tensor *owner = NULL, *wrapped = NULL;
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_INT64, 2, ps, good, &owner), WGK_OK);
  assert_int_equal(wgk_tensor_wrap(f->ctx, WGK_DTYPE_INT64, 2, ps, wgk_tensor_wgpu_buffer(owner), &wrapped), WGK_OK);
  pos_given = wrapped;
  assert_int_equal(run_pos(f, NULL, 8), WGK_OK);
  assert_int_equal(wgk_tensor_write(owner, big, sizeof big), WGK_OK);
  wgk_stats before, after;
  wgk_context_stats(f->ctx, &before);
  wgk_status st = run_pos(f, NULL, 8);
  wgk_context_stats(f->ctx, &after);
  const char *msg = wgk_context_errmsg(f->ctx);
  if (st != WGK_ERR_CALL || !strstr(msg, "positionIds (position_ids): value 1000000 at [0, 1] is out of range"))
    fail_msg("status %d, message: %s", (int)st, msg);
  assert_int_equal(before.dispatches, after.dispatches);
  assert_int_equal(wgk_tensor_write(owner, good, sizeof good), WGK_OK);
  assert_int_equal(run_pos(f, NULL, 8), WGK_OK);
  pos_given = NULL;
  wgk_tensor_release(wrapped);
  wgk_tensor_release(owner);
}

/* float16 with partial interleaved rotation against the reference (f16 inputs widened exactly). */
static void float16_matches_reference(void **state) {
  fixture *f = *state;
  enum { B = 2, S = 3, N = 2, H = 12, R = 8, NX = B * S * N * H, NC = B * S * R / 2 };
  int64_t xs[3] = {B, S, N * H}, cs[3] = {B, S, R / 2};
  float x[NX], c[NC], s[NC];
  for (int i = 0; i < NX; i++) x[i] = (float)sin(i * 0.7) * 3;
  for (int i = 0; i < NC; i++) c[i] = (float)cos(i * 0.3), s[i] = (float)sin(i * 0.3);
  wgk_tensor *tx, *tc, *ts;
  wgk_call *call;
  assert_int_equal(wgk_tensor_create_f16_from_f32(f->ctx, 3, xs, x, &tx), WGK_OK);
  assert_int_equal(wgk_tensor_create_f16_from_f32(f->ctx, 3, cs, c, &tc), WGK_OK);
  assert_int_equal(wgk_tensor_create_f16_from_f32(f->ctx, 3, cs, s, &ts), WGK_OK);
  assert_int_equal(wgk_call_create(f->k, &call), WGK_OK);
  wgk_call_set_input(call, "x", tx), wgk_call_set_input(call, "cos", tc), wgk_call_set_input(call, "sin", ts);
  wgk_call_set_attr_int(call, "num_heads", N);
  wgk_call_set_attr_int(call, "rotary_embedding_dim", R);
  wgk_call_set_attr_int(call, "interleaved", 1);
  wgk_status st = wgk_call_run(call);
  if (st == WGK_ERR_UNSUPPORTED) { /* no shader-f16 on this adapter (the H200 through this Dawn): said plainly */
    assert_non_null(strstr(wgk_context_errmsg(f->ctx), "float16 needs the shader-f16 feature"));
    printf("# %s\n", wgk_context_errmsg(f->ctx));
    wgk_call_destroy(call);
    wgk_tensor_release(tx), wgk_tensor_release(tc), wgk_tensor_release(ts);
    wgk_skip("the adapter has no shader-f16 (said plainly: %s)", wgk_context_errmsg(f->ctx));
  }
  assert_int_equal(st, WGK_OK);
  float got[NX];
  assert_int_equal(wgk_tensor_read_f32(wgk_call_output(call, "y"), got, NX), WGK_OK);
  /* The reference on the same f16-rounded inputs. */
  util_host_tensor *hx, *hc, *hs;
  util_host_tensor_create(WGK_DTYPE_FLOAT16, 3, xs, &hx), util_host_tensor_create(WGK_DTYPE_FLOAT16, 3, cs, &hc);
  util_host_tensor_create(WGK_DTYPE_FLOAT16, 3, cs, &hs);
  assert_int_equal(wgk_tensor_read(tx, hx->data, NX * 2), WGK_OK);
  assert_int_equal(wgk_tensor_read(tc, hc->data, NC * 2), WGK_OK);
  assert_int_equal(wgk_tensor_read(ts, hs->data, NC * 2), WGK_OK);
  double want[NX];
  util_error e;
  util_error_clear(&e);
  ops_ref_rotary_attrs at = {N, R, 1};
  assert_int_equal(ops_ref_rotary(hx, hc, hs, NULL, &at, want, &e), WGK_OK);
  for (int i = 0; i < NX; i++)
    if (fabs(got[i] - want[i]) > 1e-3 + 1e-2 * fabs(want[i])) fail_msg("[%d] got %g want %g", i, got[i], want[i]);
  util_host_tensor_free(hx), util_host_tensor_free(hc), util_host_tensor_free(hs);
  wgk_call_destroy(call);
  wgk_tensor_release(tx), wgk_tensor_release(tc), wgk_tensor_release(ts);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(refuses_position_ids_out_of_range),
      cmocka_unit_test(checks_wrapped_position_ids_as_they_are),
      cmocka_unit_test(float16_matches_reference),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
