/* RotaryEmbedding host checks: each refusal names the port, the rule and the values; valid calls pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "ops/ai.onnx.RotaryEmbedding/host_check.h"

static int64_t X4[4] = {1, 2, 3, 8}, X3[3] = {1, 3, 16}, C2[2] = {10, 4}, C3[3] = {1, 3, 4}, P[2] = {1, 3};

static ops_hostcheck_tensor t(wgk_dtype dt, int rank, const int64_t *shape, const void *data) {
  return (ops_hostcheck_tensor){true, dt, rank, shape, data};
}

static ops_rotary_check_args base4(const int64_t *pos) {
  ops_rotary_check_args a = {0};
  a.x = t(WGK_DTYPE_FLOAT32, 4, X4, NULL);
  a.cos_cache = t(WGK_DTYPE_FLOAT32, 2, C2, NULL);
  a.sin_cache = t(WGK_DTYPE_FLOAT32, 2, C2, NULL);
  a.position_ids = t(WGK_DTYPE_INT64, 2, P, pos);
  return a;
}

/* The check refuses a with a message containing both texts. */
static void refused(const ops_rotary_check_args *a, const char *path, const char *text) {
  util_error e;
  util_error_clear(&e);
  assert_int_equal(ops_rotary_check(a, &e), WGK_ERR_CALL);
  assert_string_equal(e.path, path);
  if (!strstr(e.message, text)) fail_msg("message '%s' lacks '%s'", e.message, text);
}

static void accepts_valid_calls(void **state) {
  (void)state;
  int64_t pos[3] = {0, 5, 9};
  util_error e;
  util_error_clear(&e);
  ops_rotary_check_args a = base4(pos);
  assert_int_equal(ops_rotary_check(&a, &e), WGK_OK);
  a.x = t(WGK_DTYPE_FLOAT32, 3, X3, NULL);
  a.has_num_heads = true, a.num_heads = 2;
  assert_int_equal(ops_rotary_check(&a, &e), WGK_OK);
  a.position_ids.present = false;
  a.cos_cache = a.sin_cache = t(WGK_DTYPE_FLOAT32, 3, C3, NULL);
  assert_int_equal(ops_rotary_check(&a, &e), WGK_OK);
}

static void refuses_position_ids_out_of_range(void **state) {
  (void)state;
  int64_t neg[3] = {0, -1, 2}, big[3] = {0, 1, 10};
  ops_rotary_check_args a = base4(neg);
  refused(&a, "positionIds (position_ids)", "value -1 at [0, 1] is out of range: must be in [0, 10)");
  a = base4(big);
  refused(&a, "positionIds (position_ids)", "value 10 at [0, 2]");
  int32_t big32[3] = {0, 1, 11};
  a.position_ids = t(WGK_DTYPE_INT32, 2, P, big32);
  refused(&a, "positionIds (position_ids)", "value 11");
}

static void refuses_shapes(void **state) {
  (void)state;
  int64_t odd[4] = {1, 2, 3, 7}, wide[2] = {10, 3};
  ops_rotary_check_args a = base4(NULL);
  a.x.shape = odd;
  refused(&a, "x (X)", "head size 7 is odd");
  a = base4(NULL);
  a.cos_cache.shape = wide;
  refused(&a, "cos (cos_cache)", "width 3 is not rot/2 = 4 (rot = head size 8)");
  a = base4(NULL);
  a.rotary_embedding_dim = 4;
  refused(&a, "cos (cos_cache)", "width 4 is not rot/2 = 2 (rot = rotary_embedding_dim 4)");
  a.rotary_embedding_dim = 10;
  refused(&a, "rotary_embedding_dim", "10 must be even and at most the head size 8");
  a = base4(NULL);
  a.x = t(WGK_DTYPE_FLOAT32, 3, X3, NULL);
  refused(&a, "num_heads", "required for rank-3 x");
  a.has_num_heads = true, a.num_heads = 3;
  refused(&a, "x (X)", "hidden size 16 is not divisible by num_heads 3");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(accepts_valid_calls),
      cmocka_unit_test(refuses_position_ids_out_of_range),
      cmocka_unit_test(refuses_shapes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
