/* wgk_context_options.disable_features and WGK_DISABLE_FEATURES (issue 15): a hidden shader-f16 makes a float16
 * RotaryEmbedding call run the packed-f16 variant (two halves per u32 word), whose result matches the double
 * reference within float16 tolerance, with an odd element count in the caches (the last word's upper half is
 * padding) and a poisoned caller output; "" hides nothing even when the environment variable is set; an unknown
 * feature name is refused at context creation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "wgk.h"
#include "util/half.h"
#include "util/rng.h"
#include "util/wgk_test.h"

enum { B = 2, N = 3, S = 5, H = 6, HALF = 3, ROWS = 7 }; /* caches ROWS x HALF: 21 halves, an odd count */
#define NX (B * N * S * H)

static char pkg[4096];

/* Runs the rank-4, 2D-cache, NeoX call in ctx; returns the chosen variant (static) and checks y. */
static const char *run_rope(wgk_context *ctx) {
  static char variant[128];
  util_rng rng;
  util_rng_seed(&rng, 15);
  float x[NX], c[ROWS * HALF], s[ROWS * HALF];
  int64_t pos[B * S];
  for (int i = 0; i < NX; i++) x[i] = (float)util_rng_uniform(&rng, -2, 2);
  for (int i = 0; i < ROWS * HALF; i++)
    c[i] = (float)util_rng_uniform(&rng, -1, 1), s[i] = (float)util_rng_uniform(&rng, -1, 1);
  for (int i = 0; i < B * S; i++) pos[i] = util_rng_int(&rng, 0, ROWS - 1);
  wgk_kernel *k = NULL;
  assert_int_equal(wgk_kernel_load(ctx, pkg, NULL, &k), WGK_OK);
  wgk_tensor *tx, *tc, *ts, *tp, *ty;
  int64_t xd[4] = {B, N, S, H}, cd[2] = {ROWS, HALF}, pd[2] = {B, S};
  assert_int_equal(wgk_tensor_create_f16_from_f32(ctx, 4, xd, x, &tx), WGK_OK);
  assert_int_equal(wgk_tensor_create_f16_from_f32(ctx, 2, cd, c, &tc), WGK_OK);
  assert_int_equal(wgk_tensor_create_f16_from_f32(ctx, 2, cd, s, &ts), WGK_OK);
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_INT64, 2, pd, pos, &tp), WGK_OK);
  float poison[NX];
  for (int i = 0; i < NX; i++) poison[i] = NAN;
  assert_int_equal(wgk_tensor_create_f16_from_f32(ctx, 4, xd, poison, &ty), WGK_OK);
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "x", tx), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "cos", tc), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "sin", ts), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "positionIds", tp), WGK_OK);
  assert_int_equal(wgk_call_set_output(call, "y", ty), WGK_OK);
  wgk_status st = wgk_call_run(call);
  if (st != WGK_OK) fail_msg("%s", wgk_context_errmsg(ctx));
  snprintf(variant, sizeof variant, "%s", wgk_call_variant(call));
  float y[NX];
  assert_int_equal(wgk_tensor_read_f32(ty, y, NX), WGK_OK);
  for (int b = 0; b < B; b++)
    for (int n = 0; n < N; n++)
      for (int t = 0; t < S; t++)
        for (int j = 0; j < H; j++) {
          /* the double reference on the float16-rounded inputs */
          int base = ((b * N + n) * S + t) * H, row = (int)pos[b * S + t] * HALF, p = j % HALF;
          double x1 = util_half_to_float(util_half_from_float(x[base + p]));
          double x2 = util_half_to_float(util_half_from_float(x[base + p + HALF]));
          double cv = util_half_to_float(util_half_from_float(c[row + p]));
          double sv = util_half_to_float(util_half_from_float(s[row + p]));
          double want = j < HALF ? cv * x1 - sv * x2 : sv * x1 + cv * x2;
          double got = y[base + j];
          if (!(fabs(got - want) <= 2e-3 + 1e-2 * fabs(want)))
            fail_msg("%s: y[%d] = %g, want %g", variant, base + j, got, want);
        }
  wgk_call_destroy(call);
  wgk_tensor_release(tx), wgk_tensor_release(tc), wgk_tensor_release(ts), wgk_tensor_release(tp);
  wgk_tensor_release(ty);
  wgk_kernel_destroy(k);
  return variant;
}

static void hidden_by_option(void **state) {
  (void)state;
  unsetenv("WGK_DISABLE_FEATURES");
  wgk_context *ctx = NULL;
  assert_int_equal(wgk_context_create(&(wgk_context_options){.disable_features = "subgroups, shader-f16"}, &ctx, NULL),
                   WGK_OK);
  wgk_test_need_gpu_context(ctx);
  assert_string_equal(run_rope(ctx), "rank4_cache2_pos_f16packed");
  wgk_context_destroy(ctx);
}

static void hidden_by_env_and_option_overrides(void **state) {
  (void)state;
  unsetenv("WGK_DISABLE_FEATURES");
  wgk_context *ctx = NULL;
  assert_int_equal(wgk_context_create(NULL, &ctx, NULL), WGK_OK);
  wgk_test_need_gpu_context(ctx);
  char plain[128]; /* what the device itself chooses */
  snprintf(plain, sizeof plain, "%s", run_rope(ctx));
  wgk_context_destroy(ctx);
  setenv("WGK_DISABLE_FEATURES", "shader-f16", 1);
  assert_int_equal(wgk_context_create(NULL, &ctx, NULL), WGK_OK);
  wgk_test_need_gpu_context(ctx);
  assert_string_equal(run_rope(ctx), "rank4_cache2_pos_f16packed");
  wgk_context_destroy(ctx);
  /* "": nothing hidden whatever the environment says; lavapipe then has shader-f16 */
  assert_int_equal(wgk_context_create(&(wgk_context_options){.disable_features = ""}, &ctx, NULL), WGK_OK);
  assert_string_equal(run_rope(ctx), plain);
  wgk_context_destroy(ctx);
  unsetenv("WGK_DISABLE_FEATURES");
}

static void unknown_name_refused(void **state) {
  (void)state;
  wgk_context *ctx = NULL;
  char *msg = NULL;
  assert_int_equal(wgk_context_create(&(wgk_context_options){.disable_features = "shader-f16,bogus"}, &ctx, &msg),
                   WGK_ERR_INVALID_ARGUMENT);
  assert_null(ctx);
  assert_non_null(msg);
  assert_non_null(strstr(msg, "disable_features: unknown feature \"bogus\"; expected one of shader-f16"));
  free(msg);
}

int main(void) {
  const char *src = getenv("WGK_SOURCE_DIR");
  snprintf(pkg, sizeof pkg, "%s/kernels/ai.onnx.RotaryEmbedding", src ? src : ".");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hidden_by_option),
      cmocka_unit_test(hidden_by_env_and_option_overrides),
      cmocka_unit_test(unknown_name_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
