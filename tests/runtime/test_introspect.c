/* The public API's view of a kernel's contract (wgk_kernel_port / _attr / _variant_*) on both shipped packages,
 * attribute names checked when set, and reading a batched call's output before the batch is submitted. */
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
#include "util/wgk_test.h"

static char rope_path[4096], sparse_path[4096];

static wgk_context *context(void) {
  wgk_context *ctx = NULL;
  char *msg = NULL;
  if (wgk_context_create(NULL, &ctx, &msg) != WGK_OK) fail_msg("context: %s", msg ? msg : "?");
  wgk_test_need_gpu_context(ctx);
  return ctx;
}

static wgk_kernel *load(wgk_context *ctx, const char *path) {
  wgk_kernel *k = NULL;
  if (wgk_kernel_load(ctx, path, NULL, &k) != WGK_OK) fail_msg("load %s: %s", path, wgk_context_errmsg(ctx));
  return k;
}

static void expect_dtypes(const wgk_port_info *p, const char *type_var, int n, const wgk_dtype *want) {
  assert_string_equal(p->type_var, type_var);
  assert_int_equal(p->n_dtypes, n);
  for (int i = 0; i < n; i++) {
    assert_int_equal(p->dtypes[i], want[i]);
    assert_string_equal(p->dtype_names[i], wgk_dtype_name(want[i]));
  }
}

static void rope_contract(void **state) {
  (void)state;
  wgk_context *ctx = context();
  wgk_kernel *k = load(ctx, rope_path);
  const wgk_dtype floats[] = {WGK_DTYPE_FLOAT32, WGK_DTYPE_FLOAT16}, i64[] = {WGK_DTYPE_INT64};
  static const char *const keys[] = {"x", "cos", "sin", "positionIds", "y"};
  static const char *const onnx[] = {"X", "cos_cache", "sin_cache", "position_ids", "Y"};
  assert_int_equal(wgk_kernel_port_count(k), 5);
  for (size_t i = 0; i < 5; i++) {
    const wgk_port_info *p = wgk_kernel_port(k, i);
    assert_non_null(p);
    assert_string_equal(p->key, keys[i]);
    assert_string_equal(p->onnx_name, onnx[i]);
    assert_int_equal(p->dir, i == 4 ? WGK_PORT_DIR_OUT : WGK_PORT_DIR_IN);
    assert_int_equal(p->optional, i == 3);
    if (i == 3)
      expect_dtypes(p, "M", 1, i64);
    else
      expect_dtypes(p, "T", 2, floats);
    assert_ptr_equal(wgk_kernel_find_port(k, keys[i]), p); /* by key and by ONNX name: the same struct */
    assert_ptr_equal(wgk_kernel_find_port(k, onnx[i]), p);
  }
  assert_null(wgk_kernel_port(k, 5));
  assert_null(wgk_kernel_find_port(k, "z"));

  assert_int_equal(wgk_kernel_attr_count(k), 3);
  const wgk_attr_info *a = wgk_kernel_attr(k, 0);
  assert_string_equal(a->name, "interleaved");
  assert_false(a->required);
  assert_string_equal(a->default_json, "0");
  assert_int_equal(a->n_values, 2);
  assert_string_equal(a->values_json[0], "0");
  assert_string_equal(a->values_json[1], "1");
  assert_true(strstr(a->description, "interleaved") != NULL);
  a = wgk_kernel_find_attr(k, "rotary_embedding_dim");
  assert_non_null(a);
  assert_string_equal(a->default_json, "0");
  assert_null(a->values_json);
  assert_int_equal(a->n_values, 0);
  a = wgk_kernel_find_attr(k, "num_heads");
  assert_non_null(a);
  assert_null(a->default_json); /* no default, yet not required: only rank-3 x needs it */
  assert_false(a->required);
  assert_null(wgk_kernel_attr(k, 3));
  assert_null(wgk_kernel_find_attr(k, "interleavd"));

  static const char *const variants[] = {
      "rank3_cache2_pos",           "rank4_cache2_pos",           "rank3_cache3",           "rank4_cache3",
      "rank3_cache2_pos_f16packed", "rank4_cache2_pos_f16packed", "rank3_cache3_f16packed", "rank4_cache3_f16packed"};
  assert_int_equal(wgk_kernel_variant_count(k), 8);
  for (size_t i = 0; i < 8; i++) assert_string_equal(wgk_kernel_variant_id(k, i), variants[i]);
  assert_null(wgk_kernel_variant_id(k, 8));

  /* NULL kernel: nothing, no crash. */
  assert_int_equal(wgk_kernel_port_count(NULL), 0);
  assert_null(wgk_kernel_port(NULL, 0));
  assert_null(wgk_kernel_find_port(NULL, "x"));
  assert_int_equal(wgk_kernel_attr_count(NULL), 0);
  assert_null(wgk_kernel_attr(NULL, 0));
  assert_int_equal(wgk_kernel_variant_count(NULL), 0);
  assert_null(wgk_kernel_variant_id(NULL, 0));

  /* Lifetimes as the kernel's: a call keeps the kernel, and with it the structs, after wgk_kernel_destroy. */
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  const wgk_port_info *y = wgk_kernel_find_port(k, "y");
  wgk_kernel_destroy(k);
  assert_string_equal(y->onnx_name, "Y");
  wgk_call_destroy(call);
  wgk_context_destroy(ctx);
}

static void sparse_contract(void **state) {
  (void)state;
  wgk_context *ctx = context();
  wgk_kernel *k = load(ctx, sparse_path);
  const wgk_dtype floats[] = {WGK_DTYPE_FLOAT32, WGK_DTYPE_FLOAT16}, i32[] = {WGK_DTYPE_INT32};
  static const struct {
    const char *key, *onnx;
    wgk_port_dir dir;
    bool optional;
    bool integer;
  } want[] = {
      {"queryT", "query", WGK_PORT_DIR_IN, false, false},
      {"keyT", "key", WGK_PORT_DIR_IN, true, false},
      {"valueT", "value", WGK_PORT_DIR_IN, true, false},
      {"pastKeyT", "past_key", WGK_PORT_DIR_INOUT, false, false},
      {"pastValueT", "past_value", WGK_PORT_DIR_INOUT, false, false},
      {"blockRowIndicesT", "block_row_indices", WGK_PORT_DIR_IN, false, true},
      {"blockColIndicesT", "block_col_indices", WGK_PORT_DIR_IN, false, true},
      {"totalSequenceLengthT", "total_sequence_length", WGK_PORT_DIR_IN, false, true},
      {"keyTotalSequenceLengthsT", "key_total_sequence_lengths", WGK_PORT_DIR_IN, false, true},
      {"cosCacheT", "cos_cache", WGK_PORT_DIR_IN, true, false},
      {"sinCacheT", "sin_cache", WGK_PORT_DIR_IN, true, false},
      {"outputT", "output", WGK_PORT_DIR_OUT, false, false},
  };
  assert_int_equal(wgk_kernel_port_count(k), 12);
  for (size_t i = 0; i < 12; i++) {
    const wgk_port_info *p = wgk_kernel_port(k, i);
    assert_string_equal(p->key, want[i].key);
    assert_string_equal(p->onnx_name, want[i].onnx);
    assert_int_equal(p->dir, want[i].dir);
    assert_int_equal(p->optional, want[i].optional);
    if (want[i].integer)
      expect_dtypes(p, "M", 1, i32);
    else
      expect_dtypes(p, "T", 2, floats);
  }
  static const char *const attrs[] = {"do_rotary",    "rotary_interleaved", "scale",
                                      "kv_num_heads", "num_heads",          "sparse_block_size"};
  assert_int_equal(wgk_kernel_attr_count(k), 6);
  for (size_t i = 0; i < 6; i++) {
    const wgk_attr_info *a = wgk_kernel_attr(k, i);
    assert_string_equal(a->name, attrs[i]);
    assert_int_equal(a->required, i >= 3);
    assert_int_equal(a->default_json == NULL, i >= 3);
  }
  const wgk_attr_info *bs = wgk_kernel_find_attr(k, "sparse_block_size");
  assert_int_equal(bs->n_values, 4);
  assert_string_equal(bs->values_json[0], "16");
  assert_string_equal(bs->values_json[3], "128");
  assert_string_equal(wgk_kernel_find_attr(k, "scale")->default_json, "0.0");
  assert_int_equal(wgk_kernel_variant_count(k), 50);
  assert_string_equal(wgk_kernel_variant_id(k, 0), "separate_decode_sg_fold"); /* the merge folded into the split */
  assert_string_equal(wgk_kernel_variant_id(k, 1), "separate_decode_sg");      /* subgroups of >= 8 */
  assert_string_equal(wgk_kernel_variant_id(k, 2), "separate_decode");
  assert_string_equal(wgk_kernel_variant_id(k, 7), "separate_tiled");     /* PROMPT_FORM 1 */
  assert_string_equal(wgk_kernel_variant_id(k, 15), "separate_flash_sg"); /* subgroups of >= 8 */
  assert_string_equal(wgk_kernel_variant_id(k, 22), "packed_rotary_flash");
  assert_string_equal(wgk_kernel_variant_id(k, 26), "packed_rotary");
  assert_string_equal(wgk_kernel_variant_id(k, 27), "separate_decode_sg_fold_f16packed"); /* without shader-f16 */
  assert_string_equal(wgk_kernel_variant_id(k, 28), "separate_decode_sg_f16packed");
  assert_string_equal(wgk_kernel_variant_id(k, 34), "separate_tiled_f16packed");
  assert_string_equal(wgk_kernel_variant_id(k, 38), "separate_flash_sg_f16packed");
  assert_string_equal(wgk_kernel_variant_id(k, 45), "packed_rotary_flash_f16packed");
  assert_string_equal(wgk_kernel_variant_id(k, 49), "packed_rotary_f16packed");
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

/* wgk_call_set_attr_*: a name the contract does not declare is refused when set, with the nearest name. */
static void misspelled_attribute_refused_when_set(void **state) {
  (void)state;
  wgk_context *ctx = context();
  wgk_kernel *k = load(ctx, rope_path);
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  assert_int_equal(wgk_call_set_attr_int(call, "interleavd", 1), WGK_ERR_NOT_FOUND);
  assert_int_equal(wgk_context_errcode(ctx), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(wgk_context_errmsg(ctx), "has no attribute 'interleavd'; did you mean 'interleaved'?"));
  assert_int_equal(wgk_call_set_attr_json(call, "rotary_embeding_dim", "0"), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(wgk_context_errmsg(ctx), "did you mean 'rotary_embedding_dim'?"));
  assert_int_equal(wgk_call_set_attr_string(call, "colour", "red"), WGK_ERR_NOT_FOUND); /* nothing near: no guess */
  assert_null(strstr(wgk_context_errmsg(ctx), "did you mean"));
  assert_non_null(strstr(wgk_context_errmsg(ctx), "(attributes: interleaved, rotary_embedding_dim, num_heads)"));
  assert_int_equal(wgk_call_set_attr_int(call, "interleaved", 1), WGK_OK);
  assert_string_equal(wgk_context_errmsg(ctx), "");
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

/* issue 37: a value too large for the call's plan key is refused when set, naming the bound, the attribute and the
 * value's size (a 64 MiB string or a 2^24-element list was a bare "out of memory" when the call was planned). */
static void oversized_attribute_refused_when_set(void **state) {
  (void)state;
  wgk_context *ctx = context();
  wgk_kernel *k = load(ctx, rope_path);
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  size_t n = (size_t)64 << 20;
  char *s = malloc(n + 1);
  assert_non_null(s);
  memset(s, 'a', n);
  s[n] = '\0';
  assert_int_equal(wgk_call_set_attr_string(call, "interleaved", s), WGK_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(wgk_context_errmsg(ctx),
                         "attribute interleaved: a string of 67108864 bytes, above the bound "
                         "of 262144 bytes"));
  s[262144] = '\0'; /* at the bound: kept */
  assert_int_equal(wgk_call_set_attr_string(call, "interleaved", s), WGK_OK);
  free(s);
  size_t m = (size_t)1 << 24;
  int64_t *v = calloc(m, sizeof *v);
  assert_non_null(v);
  assert_int_equal(wgk_call_set_attr_ints(call, "num_heads", v, m), WGK_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(wgk_context_errmsg(ctx),
                         "attribute num_heads: a list of 16777216 values, above the bound of "
                         "131072 values"));
  for (size_t i = 0; i < 100000; i++) v[i] = (int64_t)1 << 52; /* within the count, 1.7 MB as text */
  assert_int_equal(wgk_call_set_attr_ints(call, "num_heads", v, 100000), WGK_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(wgk_context_errmsg(ctx),
                         "attribute num_heads: a list whose value takes more than 262144 "
                         "bytes as text"));
  free(v);
  assert_int_equal(wgk_call_set_attr_int(call, "interleaved", 1), WGK_OK);
  assert_string_equal(wgk_context_errmsg(ctx), "");
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

/* ONNX RotaryEmbedding, rank 4, 3-D caches (batch, seq, H/2), halves not interleaved, in double. */
static void rope_reference(const float *x, const float *cs, const float *sn, int B, int N, int S, int H, double *y) {
  int h2 = H / 2;
  for (int b = 0; b < B; b++)
    for (int n = 0; n < N; n++)
      for (int s = 0; s < S; s++) {
        const float *xi = x + (((size_t)b * N + n) * S + s) * H;
        double *yi = y + (((size_t)b * N + n) * S + s) * H;
        for (int i = 0; i < h2; i++) {
          double c = cs[((size_t)b * S + s) * h2 + i], sv = sn[((size_t)b * S + s) * h2 + i];
          yi[i] = xi[i] * c - xi[i + h2] * sv;
          yi[i + h2] = xi[i + h2] * c + xi[i] * sv;
        }
      }
}

/* Before wgk_batch_submit, a batched call's output holds no values of that call: reading it is an error (it gave
 * stale zeros), the destination stays as it was; after submit it reads the call's result. */
static void batched_output_read_before_submit(void **state) {
  (void)state;
  enum { B = 2, N = 2, S = 3, H = 8, NX = B * N * S * H, NC = B * S * H / 2 };
  wgk_context *ctx = context();
  wgk_kernel *k = load(ctx, rope_path);
  float x[NX], cs[NC], sn[NC];
  srand(11);
  for (int i = 0; i < NX; i++) x[i] = (float)rand() / RAND_MAX * 4 - 2;
  for (int i = 0; i < NC; i++) {
    cs[i] = (float)rand() / RAND_MAX * 2 - 1;
    sn[i] = (float)rand() / RAND_MAX * 2 - 1;
  }
  wgk_tensor *tx = NULL, *tc = NULL, *ts = NULL;
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 4, (int64_t[]){B, N, S, H}, x, &tx), WGK_OK);
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 3, (int64_t[]){B, S, H / 2}, cs, &tc), WGK_OK);
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 3, (int64_t[]){B, S, H / 2}, sn, &ts), WGK_OK);
  wgk_call *call = NULL;
  wgk_batch *batch = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "x", tx), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "cos", tc), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "sin", ts), WGK_OK);
  assert_int_equal(wgk_batch_create(ctx, &batch), WGK_OK);
  if (wgk_batch_add(batch, call) != WGK_OK) fail_msg("batch add: %s", wgk_context_errmsg(ctx));
  wgk_tensor *y = wgk_tensor_retain(wgk_call_output(call, "y"));
  assert_non_null(y);
  float got[NX];
  for (int i = 0; i < NX; i++) got[i] = NAN;
  assert_int_equal(wgk_tensor_read(y, got, sizeof got), WGK_ERR_CALL);
  assert_non_null(strstr(wgk_context_errmsg(ctx), "batch that is not submitted yet"));
  assert_non_null(strstr(wgk_context_errmsg(ctx), "wgk_batch_submit"));
  assert_int_equal(wgk_tensor_read_f32(y, got, NX), WGK_ERR_CALL);
  for (int i = 0; i < NX; i++) assert_true(isnan(got[i])); /* untouched */
  /* The inputs were not written by the batch: they read as always. */
  float xr[NX];
  assert_int_equal(wgk_tensor_read(tx, xr, sizeof xr), WGK_OK);
  assert_memory_equal(xr, x, sizeof x);

  assert_int_equal(wgk_batch_submit(batch), WGK_OK);
  if (wgk_tensor_read(y, got, sizeof got) != WGK_OK) fail_msg("read after submit: %s", wgk_context_errmsg(ctx));
  double want[NX];
  rope_reference(x, cs, sn, B, N, S, H, want);
  for (int i = 0; i < NX; i++)
    if (!(fabs(got[i] - want[i]) <= 1e-5 + 1e-5 * fabs(want[i])))
      fail_msg("y[%d] = %g, reference %g", i, got[i], want[i]);

  /* The batch reused: a new recording refuses reads again until its own submit. */
  if (wgk_batch_add(batch, call) != WGK_OK) fail_msg("batch add: %s", wgk_context_errmsg(ctx));
  wgk_tensor *y2 = wgk_call_output(call, "y");
  assert_int_equal(wgk_tensor_read(y2, got, sizeof got), WGK_ERR_CALL);
  assert_int_equal(wgk_batch_submit(batch), WGK_OK);
  assert_int_equal(wgk_tensor_read(y2, got, sizeof got), WGK_OK);

  wgk_tensor_release(y);
  wgk_batch_destroy(batch);
  wgk_call_destroy(call);
  wgk_tensor_release(tx);
  wgk_tensor_release(tc);
  wgk_tensor_release(ts);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

int main(void) {
  const char *src = getenv("WGK_SOURCE_DIR");
  snprintf(rope_path, sizeof rope_path, "%s/kernels/ai.onnx.RotaryEmbedding", src ? src : ".");
  snprintf(sparse_path, sizeof sparse_path, "%s/kernels/com.microsoft.SparseAttention", src ? src : ".");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rope_contract),
      cmocka_unit_test(sparse_contract),
      cmocka_unit_test(misspelled_attribute_refused_when_set),
      cmocka_unit_test(oversized_attribute_refused_when_set),
      cmocka_unit_test(batched_output_read_before_submit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
