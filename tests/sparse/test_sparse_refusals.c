/* SparseAttention host checks through the public API: each rule refuses a call with a message naming the port,
 * the rule and the values, before anything is dispatched, and the KV caches read back unchanged.
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

#include "wgk.h"
#include "util/wgk_test.h"

enum { MAXE = 4096 };

/* One call: sizes, the int32 tensors' values and which optional ports are given. */
typedef struct spec {
  int64_t B, S, N, KN, H, block, L, max_blocks, max_nnz, cache, rot_rows, half_rot, do_rotary;
  bool key, value, cos, sin;
  int32_t row[32], col[32], total, kts[2];
} spec;

/* Decode of 3 tokens after pasts 10 and 20: two layouts, every block row lists blocks 0 and its own. */
static spec base(void) {
  spec s = {.B = 2,
            .S = 3,
            .N = 4,
            .KN = 2,
            .H = 16,
            .block = 16,
            .L = 2,
            .max_blocks = 4,
            .max_nnz = 8,
            .cache = 64,
            .rot_rows = 64,
            .half_rot = 8,
            .do_rotary = 1,
            .key = true,
            .value = true,
            .cos = true,
            .sin = true,
            .total = 23,
            .kts = {13, 23}};
  for (int l = 0; l < 2; l++) {
    int32_t *r = s.row + l * 5, *c = s.col + l * 8;
    r[0] = 0, r[1] = 1, r[2] = 3, r[3] = 5, r[4] = 7;
    int32_t cols[8] = {0, 0, 1, 0, 2, 0, 3, -1};
    memcpy(c, cols, sizeof cols);
  }
  return s;
}

typedef wgk_test_fixture fixture;

static int setup(void **state) {
  /* lavapipe's storage binding limit (128 MiB) on every device, so that the 138 MB caches of
   * cache_over_binding_limit_changes_nothing are over it on a GPU with a larger limit too (the H200: 4 GiB) */
  static const wgk_context_options o = {.max_storage_binding_bytes = 134217728};
  return wgk_test_fixture_setup_with(state, "webgpu-kernels/com.microsoft.SparseAttention", &o);
}

static int teardown(void **state) { return wgk_test_fixture_teardown(state); }

static float fill[MAXE * 8];
static char last_message[4096];

static wgk_tensor *floats(fixture *f, int rank, const int64_t *dims) {
  wgk_tensor *t = NULL;
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, rank, dims, fill, &t), WGK_OK);
  return t;
}

static wgk_tensor *ints(fixture *f, int rank, const int64_t *dims, const int32_t *data) {
  wgk_tensor *t = NULL;
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_INT32, rank, dims, data, &t), WGK_OK);
  return t;
}

static void set(wgk_call *c, const char *key, wgk_tensor *t) {
  assert_int_equal(wgk_call_set_input(c, key, t), WGK_OK);
  wgk_tensor_release(t);
}

/* key_total_sequence_lengths from a tensor the test made (wrapped, or another call's output) when set. */
static wgk_tensor *kts_given;
/* When set, the call is added to this batch, which is then submitted, instead of run. */
static wgk_batch *batch_given;

/* Builds and runs the call; on return the caches hold what the call left in them. */
static wgk_status run(fixture *f, const spec *s, float *pk_after, float *pv_after) {
  int64_t q[3] = {s->B, s->S, (s->key ? s->N : s->N + 2 * s->KN) * s->H}, kv[3] = {s->B, s->S, s->KN * s->H},
          cache[4] = {s->B, s->KN, s->cache, s->H}, row[2] = {s->L, s->max_blocks + 1}, col[2] = {s->L, s->max_nnz},
          one[1] = {1}, b[1] = {s->B}, rot[2] = {s->rot_rows, s->half_rot};
  wgk_call *c = NULL;
  assert_int_equal(wgk_call_create(f->k, &c), WGK_OK);
  set(c, "queryT", floats(f, 3, q));
  if (s->key) set(c, "keyT", floats(f, 3, kv));
  if (s->value) set(c, "valueT", floats(f, 3, kv));
  wgk_tensor *pk = floats(f, 4, cache), *pv = floats(f, 4, cache);
  assert_int_equal(wgk_call_set_input(c, "pastKeyT", pk), WGK_OK);
  assert_int_equal(wgk_call_set_input(c, "pastValueT", pv), WGK_OK);
  set(c, "blockRowIndicesT", ints(f, 2, row, s->row));
  set(c, "blockColIndicesT", ints(f, 2, col, s->col));
  set(c, "totalSequenceLengthT", ints(f, 1, one, &s->total));
  if (kts_given)
    assert_int_equal(wgk_call_set_input(c, "keyTotalSequenceLengthsT", kts_given), WGK_OK);
  else
    set(c, "keyTotalSequenceLengthsT", ints(f, 1, b, s->kts));
  if (s->cos) set(c, "cosCacheT", floats(f, 2, rot));
  if (s->sin) set(c, "sinCacheT", floats(f, 2, rot));
  wgk_call_set_attr_int(c, "num_heads", s->N);
  wgk_call_set_attr_int(c, "kv_num_heads", s->KN);
  wgk_call_set_attr_int(c, "sparse_block_size", s->block);
  wgk_call_set_attr_int(c, "do_rotary", s->do_rotary);
  wgk_status st = batch_given ? wgk_batch_add(batch_given, c) : wgk_call_run(c);
  snprintf(last_message, sizeof last_message, "%s", wgk_context_errmsg(f->ctx)); /* reads below clear it */
  if (batch_given) assert_int_equal(wgk_batch_submit(batch_given), WGK_OK);
  size_t n = (size_t)(s->B * s->KN * s->cache * s->H);
  assert_int_equal(wgk_tensor_read_f32(pk, pk_after, n), WGK_OK);
  assert_int_equal(wgk_tensor_read_f32(pv, pv_after, n), WGK_OK);
  wgk_tensor_release(pk), wgk_tensor_release(pv);
  wgk_call_destroy(c);
  return st;
}

/* The call is refused with a message containing text, and both caches still hold their initial values. */
static void refused(fixture *f, const spec *s, const char *text) {
  static float pk[MAXE * 8], pv[MAXE * 8];
  wgk_stats before, after;
  wgk_context_stats(f->ctx, &before);
  wgk_status st = run(f, s, pk, pv);
  wgk_context_stats(f->ctx, &after);
  const char *msg = last_message;
  if (st == WGK_OK) fail_msg("ran, expected a refusal with '%s'", text);
  if (!strstr(msg, text)) fail_msg("message '%s' lacks '%s'", msg, text);
  assert_int_equal(before.dispatches, after.dispatches);
  size_t n = (size_t)(s->B * s->KN * s->cache * s->H);
  for (size_t i = 0; i < n; i++)
    if (pk[i] != fill[i] || pv[i] != fill[i]) fail_msg("cache element %zu changed by a refused call", i);
}

#define FIXTURE        \
  fixture *f = *state; \
  spec s = base()

static void base_call_runs(void **state) {
  FIXTURE;
  static float pk[MAXE * 8], pv[MAXE * 8];
  if (run(f, &s, pk, pv) != WGK_OK) fail_msg("%s", wgk_context_errmsg(f->ctx));
  assert_true(pk[(10 * 16)] != fill[10 * 16]); /* batch 0, kv head 0, row 10: the first appended key */
}

static void kv_heads_divide(void **state) {
  FIXTURE;
  s.KN = 3;
  refused(f, &s, "kv_num_heads: 3 does not divide num_heads 4");
}

static void heads_multiple_of_layouts(void **state) {
  FIXTURE;
  s.N = 4, s.KN = 2, s.L = 3;
  refused(f, &s, "num_heads 4 is not a multiple of num_layout 3");
}

static void head_size_multiple_of_8(void **state) {
  FIXTURE;
  s.H = 12, s.half_rot = 0, s.do_rotary = 0, s.cos = s.sin = false;
  refused(f, &s, "head size (dim 3) 12 must be a non-zero multiple of 8");
}

static void block_size_values(void **state) {
  FIXTURE;
  s.block = 24;
  refused(f, &s, "sparse_block_size");
}

static void csr_starts_at_zero(void **state) {
  FIXTURE;
  s.row[5] = 1;
  refused(f, &s, "blockRowIndicesT (block_row_indices): layout 1 starts at 1; row pointers must start at 0");
}

static void csr_never_decreases(void **state) {
  FIXTURE;
  s.row[2] = 0;
  refused(f, &s, "layout 0 decreases at block row 1: 1 then 0");
}

static void csr_ends_within_width(void **state) {
  FIXTURE;
  s.row[9] = 9;
  refused(f, &s, "layout 1 block row 3 ends at 9, beyond the column width 8");
}

static void csr_columns_in_range(void **state) {
  FIXTURE;
  s.col[8 + 4] = 4;
  refused(
      f, &s,
      "blockColIndicesT (block_col_indices): layout 1 entry 4 (block row 2): column 4 is outside [0, max_blocks 4)");
}

static void total_fits_cache(void **state) {
  FIXTURE;
  s.cache = 20, s.total = 23;
  refused(f, &s,
          "totalSequenceLengthT (total_sequence_length): 23 does not fit the cache: max_cache (past_key dim 2) is 20");
}

static void total_fits_layout(void **state) {
  FIXTURE;
  s.max_blocks = 1, s.row[0] = 0, s.row[1] = 1, s.row[2] = 0, s.row[3] = 1, s.col[1] = 0;
  refused(f, &s, "23 exceeds the layout's capacity max_blocks 1 * sparse_block_size 16 = 16");
}

static void total_fits_rotary_rows(void **state) {
  FIXTURE;
  s.rot_rows = 20;
  refused(f, &s, "cosCacheT (cos_cache): 20 rows do not reach total_sequence_length 23");
}

static void key_total_at_most_total(void **state) {
  FIXTURE;
  s.kts[0] = 24;
  refused(f, &s, "keyTotalSequenceLengthsT (key_total_sequence_lengths): batch 0: 24 exceeds total_sequence_length 23");
}

static void key_total_at_least_s(void **state) {
  FIXTURE;
  s.kts[1] = 2;
  refused(f, &s, "batch 1: 2 is below 3 (past_b = key total - sequence_length must be >= 0)");
}

static void prompt_key_total_at_least_1(void **state) {
  FIXTURE;
  s.total = 3, s.kts[0] = 3, s.kts[1] = 0;
  refused(f, &s, "batch 1: 0 is below 1 (a prompt needs at least one key)");
}

static void packed_or_separate(void **state) {
  FIXTURE;
  s.value = false;
  refused(f, &s, "valueT (value): key and value must both be given (separate Q, K, V) or both be absent");
}

static void rotary_caches_iff_do_rotary(void **state) {
  FIXTURE;
  s.do_rotary = 0;
  refused(f, &s, "cosCacheT (cos_cache): given while do_rotary is 0 (rotary off)");
  s = base();
  s.sin = false;
  refused(f, &s, "sinCacheT (sin_cache): required when do_rotary is 1");
}

static void rotary_width(void **state) {
  FIXTURE;
  s.half_rot = 12;
  refused(f, &s, "width 12 (rotary dim / 2) must be a multiple of 8 no larger than head size / 2 = 8");
}

/* The check reads the values the GPU will read. A caller's buffer wrapped as key_total_sequence_lengths, rewritten
 * to 1000000 after a first call (here through another tensor over the same WGPUBuffer, as wgpuQueueWriteBuffer
 * would): the second call is refused, not checked against the values of the first. */
static void wrapped_values_checked_as_they_are(void **state) {
  FIXTURE;
  static float pk[MAXE * 8], pv[MAXE * 8];
  int64_t b[1] = {s.B};
  wgk_tensor *owner = ints(f, 1, b, s.kts), *wrapped = NULL;
  assert_int_equal(wgk_tensor_wrap(f->ctx, WGK_DTYPE_INT32, 1, b, wgk_tensor_wgpu_buffer(owner), &wrapped), WGK_OK);
  kts_given = wrapped;
  if (run(f, &s, pk, pv) != WGK_OK) fail_msg("%s", last_message);
  int32_t bad[2] = {1000000, 23};
  assert_int_equal(wgk_tensor_write(owner, bad, sizeof bad), WGK_OK);
  refused(f, &s,
          "keyTotalSequenceLengthsT (key_total_sequence_lengths): batch 0: 1000000 exceeds total_sequence_length 23");
  int32_t good[2] = {13, 23};
  assert_int_equal(wgk_tensor_write(owner, good, sizeof good), WGK_OK);
  if (run(f, &s, pk, pv) != WGK_OK) fail_msg("%s", last_message);
  kts_given = NULL;
  wgk_tensor_release(wrapped);
  wgk_tensor_release(owner);
}

/* key_total_sequence_lengths = (X + 1) * W from test.TwoPass (int32), into a caller-given tensor. */
static void produce(fixture *f, wgk_kernel *tp, wgk_tensor *y, int32_t w0, wgk_batch *batch) {
  int64_t two[1] = {2}, one[1] = {1};
  int32_t x[2] = {12, 22};
  wgk_call *c = NULL;
  assert_int_equal(wgk_call_create(tp, &c), WGK_OK);
  set(c, "x", ints(f, 1, two, x));
  set(c, "w", ints(f, 1, one, &w0));
  assert_int_equal(wgk_call_set_output(c, "y", y), WGK_OK);
  assert_int_equal(batch ? wgk_batch_add(batch, c) : wgk_call_run(c), WGK_OK);
  wgk_call_destroy(c);
}

/* Values another call writes on the GPU: after a run, read back (the host copy of the tensor is old); in the same
 * batch, not yet known at all: refused, naming the port. */
static void gpu_written_values_checked_as_they_are(void **state) {
  FIXTURE;
  static float pk[MAXE * 8], pv[MAXE * 8];
  char path[4096];
  const char *src = getenv("WGK_SOURCE_DIR");
  snprintf(path, sizeof path, "%s/tests/runtime/test.TwoPass", src ? src : ".");
  wgk_kernel *tp = NULL;
  if (wgk_kernel_load(f->ctx, path, NULL, &tp) != WGK_OK) fail_msg("%s", wgk_context_errmsg(f->ctx));
  int64_t b[1] = {s.B};
  int32_t stale[2] = {13, 23};
  wgk_tensor *y = ints(f, 1, b, stale); /* its host copy says 13, 23 */
  kts_given = y;
  produce(f, tp, y, 1, NULL); /* 13, 23 again */
  if (run(f, &s, pk, pv) != WGK_OK) fail_msg("%s", last_message);
  produce(f, tp, y, 100000, NULL); /* 1300000, 2300000 */
  refused(f, &s,
          "keyTotalSequenceLengthsT (key_total_sequence_lengths): batch 0: 1300000 exceeds total_sequence_length 23");
  assert_int_equal(wgk_tensor_write(y, stale, sizeof stale), WGK_OK);
  assert_int_equal(wgk_batch_create(f->ctx, &batch_given), WGK_OK);
  produce(f, tp, y, 100000, batch_given);
  refused(f, &s, "key_total_sequence_lengths: its values are written by an earlier call of this batch");
  wgk_batch_destroy(batch_given);
  batch_given = NULL;
  kts_given = NULL;
  wgk_tensor_release(y);
  wgk_kernel_destroy(tp);
}

/* The case of issue 10: rotary on, and KV caches of 138 MB, over the 128 MiB storage binding limit. The q-rotary
 * pass binds no cache; a later pass does. setup holds the limit at 128 MiB (a GPU's can be larger). The refusal comes
 * before anything is recorded: run, and added to a batch that is then submitted, the call leaves its (caller-given,
 * poisoned) output as it was. */
static void cache_over_binding_limit_changes_nothing(void **state) {
  FIXTURE;
  s.cache = 540000; /* 2 x 2 x 540000 x 16 floats = 138240000 bytes */
  int64_t q[3] = {s.B, s.S, s.N * s.H}, kv[3] = {s.B, s.S, s.KN * s.H}, cache[4] = {s.B, s.KN, s.cache, s.H},
          row[2] = {s.L, s.max_blocks + 1}, col[2] = {s.L, s.max_nnz}, one[1] = {1}, b[1] = {s.B},
          rot[2] = {s.rot_rows, s.half_rot};
  wgk_call *c = NULL;
  assert_int_equal(wgk_call_create(f->k, &c), WGK_OK);
  set(c, "queryT", floats(f, 3, q));
  set(c, "keyT", floats(f, 3, kv));
  set(c, "valueT", floats(f, 3, kv));
  wgk_tensor *pk = NULL, *pv = NULL;
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, 4, cache, NULL, &pk), WGK_OK);
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, 4, cache, NULL, &pv), WGK_OK);
  set(c, "pastKeyT", pk);
  set(c, "pastValueT", pv);
  set(c, "blockRowIndicesT", ints(f, 2, row, s.row));
  set(c, "blockColIndicesT", ints(f, 2, col, s.col));
  set(c, "totalSequenceLengthT", ints(f, 1, one, &s.total));
  set(c, "keyTotalSequenceLengthsT", ints(f, 1, b, s.kts));
  set(c, "cosCacheT", floats(f, 2, rot));
  set(c, "sinCacheT", floats(f, 2, rot));
  wgk_call_set_attr_int(c, "num_heads", s.N);
  wgk_call_set_attr_int(c, "kv_num_heads", s.KN);
  wgk_call_set_attr_int(c, "sparse_block_size", s.block);
  wgk_call_set_attr_int(c, "do_rotary", 1);
  enum { NQ = 2 * 3 * 4 * 16 };
  static float poisoned[NQ], got[NQ];
  for (int i = 0; i < NQ; i++) poisoned[i] = -555.0f;
  wgk_tensor *out = NULL;
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, 3, q, poisoned, &out), WGK_OK);
  assert_int_equal(wgk_call_set_output(c, "outputT", out), WGK_OK);
  wgk_stats before, after;
  for (int batched = 0; batched < 2; batched++) {
    wgk_batch *batch = NULL;
    assert_int_equal(wgk_batch_create(f->ctx, &batch), WGK_OK);
    wgk_context_stats(f->ctx, &before);
    wgk_status st = batched ? wgk_batch_add(batch, c) : wgk_call_run(c);
    wgk_context_stats(f->ctx, &after);
    snprintf(last_message, sizeof last_message, "%s", wgk_context_errmsg(f->ctx));
    assert_int_equal(wgk_batch_submit(batch), WGK_OK);
    wgk_batch_destroy(batch);
    if (st == WGK_OK) fail_msg("a call with 138 MB caches was accepted (%s)", batched ? "batch" : "run");
    assert_int_equal(after.dispatches, before.dispatches);
    assert_int_equal(wgk_tensor_read(out, got, sizeof got), WGK_OK);
    for (int i = 0; i < NQ; i++)
      if (got[i] != poisoned[i])
        fail_msg("%s: output element %d changed to %g by a refused call", batched ? "batch" : "run", i, got[i]);
    if (!strstr(last_message, "maxStorageBufferBindingSize"))
      fail_msg("message '%s' does not name the limit", last_message);
  }
  wgk_tensor_release(out);
  wgk_call_destroy(c);
}

int main(void) {
  for (int i = 0; i < MAXE * 8; i++) fill[i] = (float)sin(i * 0.37);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(base_call_runs),
      cmocka_unit_test(kv_heads_divide),
      cmocka_unit_test(heads_multiple_of_layouts),
      cmocka_unit_test(head_size_multiple_of_8),
      cmocka_unit_test(block_size_values),
      cmocka_unit_test(csr_starts_at_zero),
      cmocka_unit_test(csr_never_decreases),
      cmocka_unit_test(csr_ends_within_width),
      cmocka_unit_test(csr_columns_in_range),
      cmocka_unit_test(total_fits_cache),
      cmocka_unit_test(total_fits_layout),
      cmocka_unit_test(total_fits_rotary_rows),
      cmocka_unit_test(key_total_at_most_total),
      cmocka_unit_test(key_total_at_least_s),
      cmocka_unit_test(prompt_key_total_at_least_1),
      cmocka_unit_test(packed_or_separate),
      cmocka_unit_test(rotary_caches_iff_do_rotary),
      cmocka_unit_test(rotary_width),
      cmocka_unit_test(wrapped_values_checked_as_they_are),
      cmocka_unit_test(gpu_written_values_checked_as_they_are),
      cmocka_unit_test(cache_over_binding_limit_changes_nothing),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
