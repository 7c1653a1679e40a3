/* The RotaryEmbedding reference against ONNX's expected outputs, and its refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx_reader.h"
#include "ops/ai.onnx.RotaryEmbedding/reference.h"
#include "testkit.h"

static const char *CASES[] = {"test_rotary_embedding",
                              "test_rotary_embedding_3d_input",
                              "test_rotary_embedding_interleaved",
                              "test_rotary_embedding_no_position_ids",
                              "test_rotary_embedding_no_position_ids_interleaved",
                              "test_rotary_embedding_no_position_ids_rotary_dim",
                              "test_rotary_embedding_with_interleaved_rotary_dim",
                              "test_rotary_embedding_with_rotary_dim"};

static util_host_tensor *read_pb(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/test_data_set_0/%s", dir, name);
  util_error e;
  util_error_clear(&e);
  util_host_tensor *t;
  assert_int_equal(onnx_tensor_read(path, &t, &e), WGK_OK);
  return t;
}

static void run_case(const char *dir) {
  util_error e;
  util_error_clear(&e);
  onnx_model *m;
  assert_int_equal(onnx_model_read(testkit_path(dir, "model.onnx"), &m, &e), WGK_OK);
  const onnx_node *n = onnx_model_single_node(m, &e);
  assert_non_null(n);
  util_host_tensor *in[4] = {0};
  for (size_t i = 0, k = 0; i < 4; i++) /* .pb files are numbered over the inputs present */
    if (onnx_node_input(n, i)) {
      char name[32];
      snprintf(name, sizeof name, "input_%zu.pb", k++);
      in[i] = read_pb(dir, name);
    }
  util_host_tensor *want = read_pb(dir, "output_0.pb");
  ops_ref_rotary_attrs a = {onnx_attr_int_or(n, "num_heads", 0), onnx_attr_int_or(n, "rotary_embedding_dim", 0),
                            onnx_attr_int_or(n, "interleaved", 0)};
  size_t count = util_host_tensor_numel(in[0]);
  double *got = calloc(count, sizeof *got);
  assert_int_equal(ops_ref_rotary(in[0], in[1], in[2], in[3], &a, got, &e), WGK_OK);
  assert_int_equal(util_host_tensor_numel(want), count);
  double worst = 0;
  for (size_t i = 0; i < count; i++) {
    double w = util_host_tensor_get(want, i), d = fabs(got[i] - w);
    if (d > 1e-6 + 1e-5 * fabs(w)) fail_msg("%s: element %zu: ref %.9g, onnx %.9g", dir, i, got[i], w);
    worst = fmax(worst, d);
  }
  printf("%s: %zu elements, max abs diff %.3g\n", strrchr(dir, '/') + 1, count, worst);
  free(got);
  for (int i = 0; i < 4; i++) util_host_tensor_free(in[i]);
  util_host_tensor_free(want);
  onnx_model_free(m);
}

static void conformance_outputs(void **state) {
  (void)state;
  const char *root = testkit_conformance_dir();
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/onnx-node-tests/%s", root, CASES[i]);
    run_case(dir);
  }
}

static util_host_tensor *tensor(wgk_dtype d, int rank, int64_t a, int64_t b, int64_t c, int64_t e) {
  int64_t dims[4] = {a, b, c, e};
  util_host_tensor *t;
  assert_int_equal(util_host_tensor_create(d, rank, dims, &t), WGK_OK);
  return t;
}

static void invalid_arguments_refused(void **state) {
  (void)state;
  double out[256];
  util_error e;
  util_host_tensor *x = tensor(WGK_DTYPE_FLOAT32, 4, 1, 2, 3, 8), *c = tensor(WGK_DTYPE_FLOAT32, 2, 5, 4, 0, 0);
  util_host_tensor *s = tensor(WGK_DTYPE_FLOAT32, 2, 5, 4, 0, 0), *p = tensor(WGK_DTYPE_INT64, 2, 1, 3, 0, 0);
  ops_ref_rotary_attrs a = {0, 0, 0};
  util_error_clear(&e);
  assert_int_equal(ops_ref_rotary(x, c, s, p, &a, out, &e), WGK_OK);
  ((int64_t *)p->data)[2] = 5; /* max_pos is 5 */
  assert_int_equal(ops_ref_rotary(x, c, s, p, &a, out, &e), WGK_ERR_CALL);
  assert_non_null(strstr(e.message, "value 5 out of range [0, 5)"));
  ((int64_t *)p->data)[2] = -1;
  util_error_clear(&e);
  assert_int_equal(ops_ref_rotary(x, c, s, p, &a, out, &e), WGK_ERR_CALL);
  ((int64_t *)p->data)[2] = 0;
  a.rotary_embedding_dim = 6; /* cache width 4 needs rot 8 */
  util_error_clear(&e);
  assert_int_equal(ops_ref_rotary(x, c, s, p, &a, out, &e), WGK_ERR_CALL);
  a.rotary_embedding_dim = 0;
  a.interleaved = 2;
  util_error_clear(&e);
  assert_int_equal(ops_ref_rotary(x, c, s, p, &a, out, &e), WGK_ERR_CALL);
  a.interleaved = 0;
  util_error_clear(&e);
  assert_int_equal(ops_ref_rotary(x, c, s, NULL, &a, out, &e), WGK_ERR_CALL); /* 2D caches need position ids */
  util_host_tensor *odd = tensor(WGK_DTYPE_FLOAT32, 4, 1, 2, 3, 7), *x3 = tensor(WGK_DTYPE_FLOAT32, 3, 1, 3, 16, 0);
  util_error_clear(&e);
  assert_int_equal(ops_ref_rotary(odd, c, s, p, &a, out, &e), WGK_ERR_CALL);
  assert_non_null(strstr(e.message, "odd"));
  util_error_clear(&e);
  assert_int_equal(ops_ref_rotary(x3, c, s, p, &a, out, &e), WGK_ERR_CALL); /* 3D without num_heads */
  a.num_heads = 2;
  util_error_clear(&e);
  assert_int_equal(ops_ref_rotary(x3, c, s, p, &a, out, &e), WGK_OK);
  a.num_heads = 3;
  util_error_clear(&e);
  assert_int_equal(ops_ref_rotary(x3, c, s, p, &a, out, &e), WGK_ERR_CALL);
  util_host_tensor *all[] = {x, c, s, p, odd, x3};
  for (size_t i = 0; i < 6; i++) util_host_tensor_free(all[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(conformance_outputs),
      cmocka_unit_test(invalid_arguments_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
