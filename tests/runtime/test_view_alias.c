/* spec 2.1 `viewAlias` through the C API, on tests/runtime/test.ViewAlias (pass `add`: dst = src + 1, with
 * viewAlias {input: src, output: dst} in variant aliased, without it in variant plain):
 * - distinct tensors: the pass runs (dst = src + 1, src untouched);
 * - one tensor given as src and as dst: the loader skips a pass whose every pair binds one buffer range of one
 *   dtype (its output already is its input), so the call runs and the tensor keeps its values (it was refused:
 *   "one tensor is bound as src and dst");
 * - one tensor for both in variant plain (no viewAlias): refused before anything runs, as the loader refuses a
 *   read-only and a read_write binding of one buffer ("storage aliasing hazard"), and the tensor is unchanged.
 * The values are compared with the inputs themselves (bitwise), the added 1 with a double reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "wgk.h"

enum { N = 100 };

static char pkg_path[4096];

typedef struct fixture {
  wgk_context *ctx;
  wgk_kernel *k;
  wgk_call *call;
  float x[N];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f) return -1;
  char *msg = NULL;
  if (wgk_context_create(NULL, &f->ctx, &msg) != WGK_OK) {
    fprintf(stderr, "context: %s\n", msg ? msg : "?");
    free(msg);
    free(f);
    return -1;
  }
  if (wgk_kernel_load(f->ctx, pkg_path, NULL, &f->k) != WGK_OK || wgk_call_create(f->k, &f->call) != WGK_OK) {
    fprintf(stderr, "load %s: %s\n", pkg_path, wgk_context_errmsg(f->ctx));
    wgk_kernel_destroy(f->k);
    wgk_context_destroy(f->ctx);
    free(f);
    return -1;
  }
  util_rng rng;
  util_rng_seed(&rng, 4242);
  for (int i = 0; i < N; i++) f->x[i] = (float)util_rng_uniform(&rng, -50, 50);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  wgk_call_destroy(f->call);
  wgk_kernel_destroy(f->k);
  wgk_context_destroy(f->ctx);
  free(f);
  return 0;
}

static wgk_tensor *tensor(fixture *f, const float *data, int64_t rows) {
  int64_t shape[2] = {rows, N / rows};
  wgk_tensor *t = NULL;
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, 2, shape, data, &t), WGK_OK);
  return t;
}

static void read_all(wgk_tensor *t, float *out) {
  for (int i = 0; i < N; i++) out[i] = -7.25e29f;
  assert_int_equal(wgk_tensor_read(t, out, sizeof(float) * N), WGK_OK);
}

static void expect_same_bits(const char *what, const float *got, const float *want) {
  for (int i = 0; i < N; i++)
    if (memcmp(&got[i], &want[i], sizeof(float)) != 0)
      fail_msg("%s[%d] = %.9g, want %.9g", what, i, (double)got[i], (double)want[i]);
}

static void distinct_tensors_run_the_pass(void **state) {
  fixture *f = *state;
  wgk_tensor *src = tensor(f, f->x, 1), *dst = tensor(f, f->x, 4); /* dst: another shape, same count */
  assert_int_equal(wgk_call_set_input(f->call, "src", src), WGK_OK);
  assert_int_equal(wgk_call_set_output(f->call, "dst", dst), WGK_OK);
  if (wgk_call_run(f->call) != WGK_OK) fail_msg("run: %s", wgk_context_errmsg(f->ctx));
  assert_string_equal(wgk_call_variant(f->call), "aliased");
  float got[N];
  read_all(dst, got);
  for (int i = 0; i < N; i++)
    if ((double)got[i] != (double)f->x[i] + 1.0 && got[i] != (float)((double)f->x[i] + 1.0))
      fail_msg("dst[%d] = %.9g, want %.9g", i, (double)got[i], (double)f->x[i] + 1.0);
  read_all(src, got);
  expect_same_bits("src", got, f->x);
  wgk_tensor_release(src);
  wgk_tensor_release(dst);
}

static void one_tensor_skips_the_pass(void **state) {
  fixture *f = *state;
  wgk_tensor *t = tensor(f, f->x, 2);
  assert_int_equal(wgk_call_set_input(f->call, "src", t), WGK_OK);
  assert_int_equal(wgk_call_set_output(f->call, "dst", t), WGK_OK);
  for (int round = 0; round < 2; round++) { /* the second call finds the plan and the bind state again */
    if (wgk_call_run(f->call) != WGK_OK) fail_msg("run %d: %s", round, wgk_context_errmsg(f->ctx));
    assert_string_equal(wgk_call_variant(f->call), "aliased");
    assert_ptr_equal(wgk_call_output(f->call, "dst"), t);
    float got[N];
    read_all(t, got);
    expect_same_bits("the aliased tensor", got, f->x); /* the pass (+1) did not run */
  }
  wgk_tensor_release(t);
}

static void one_tensor_without_view_alias_refused(void **state) {
  fixture *f = *state;
  wgk_tensor *t = tensor(f, f->x, 2);
  assert_int_equal(wgk_call_set_attr_int(f->call, "alias", 0), WGK_OK);
  assert_int_equal(wgk_call_set_input(f->call, "src", t), WGK_OK);
  assert_int_equal(wgk_call_set_output(f->call, "dst", t), WGK_OK);
  assert_int_not_equal(wgk_call_run(f->call), WGK_OK);
  const char *msg = wgk_context_errmsg(f->ctx);
  if (!strstr(msg, "one tensor is bound as src and dst")) fail_msg("refusal: %s", msg);
  float got[N];
  read_all(t, got);
  expect_same_bits("the tensor of a refused call", got, f->x);
  wgk_tensor_release(t);
}

int main(void) {
  const char *src = getenv("WGK_SOURCE_DIR");
  snprintf(pkg_path, sizeof pkg_path, "%s/tests/runtime/test.ViewAlias", src ? src : ".");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(distinct_tensors_run_the_pass, setup, teardown),
      cmocka_unit_test_setup_teardown(one_tensor_skips_the_pass, setup, teardown),
      cmocka_unit_test_setup_teardown(one_tensor_without_view_alias_refused, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
