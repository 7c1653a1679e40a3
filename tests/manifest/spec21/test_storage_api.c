/* The public loader's storage rules through the C API (GPU), on the spec 2.1 packages test.Int64, test.Widen and
 * test.Packed beside this file: int64 outputs of a port that stores int64 as int32/uint32 read back widened
 * (they read back as zeros before), such an output chained into ports of other layouts (the same projection,
 * opaque int64, checked uint32), a checked-narrowing refusal that changes nothing, destinations given by the
 * caller (poisoned first), wgk_tensor_write on a 32-bit-stored int64 tensor, int16 tensors, packed uint8, an in/out
 * int64 stored as int32 (test.InOut64). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "wgk.h"
#include "util/rng.h"
#include "util/wgk_test.h"

#define N 37

static wgk_context *ctx;
static util_rng rng;

static wgk_kernel *load(const char *name) {
  const char *src = getenv("WGK_SOURCE_DIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/manifest/spec21/%s", src ? src : ".", name);
  wgk_kernel *k = NULL;
  if (wgk_kernel_load(ctx, path, NULL, &k) != WGK_OK) fail_msg("load %s: %s", path, wgk_context_errmsg(ctx));
  return k;
}

static wgk_tensor *tensor(wgk_dtype dtype, const void *data) {
  wgk_tensor *t = NULL;
  int64_t shape[1] = {N};
  if (wgk_tensor_create(ctx, dtype, 1, shape, data, &t) != WGK_OK) fail_msg("tensor: %s", wgk_context_errmsg(ctx));
  return t;
}

static void run_ok(wgk_call *call) {
  if (wgk_call_run(call) != WGK_OK) fail_msg("run: %s", wgk_context_errmsg(ctx));
}

static void read_i64(wgk_tensor *t, int64_t *out) {
  assert_int_equal(wgk_tensor_dtype(t), WGK_DTYPE_INT64);
  if (wgk_tensor_read(t, out, N * sizeof *out) != WGK_OK) fail_msg("read: %s", wgk_context_errmsg(ctx));
}

static int64_t sat32(int64_t v) { return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v; }
static int64_t wrap32(int64_t v) { return (int64_t)(int32_t)(uint32_t)(uint64_t)v; }

typedef struct int64_inputs {
  int64_t o[N], c[N], s[N];
} int64_inputs;

static void make_inputs(int64_inputs *in) {
  for (int i = 0; i < N; i++) {
    in->o[i] = (int64_t)util_rng_next(&rng);
    in->c[i] = (int64_t)(util_rng_next(&rng) & 0xffffffffu);
    in->s[i] = (int64_t)(util_rng_next(&rng) % (1ull << 41)) - (1ll << 40);
  }
  in->s[0] = INT32_MIN;
  in->s[1] = INT32_MAX;
  in->s[2] = -5;
  in->c[0] = UINT32_MAX;
}

static wgk_call *int64_call(wgk_kernel *k, const int64_inputs *in, wgk_tensor **t) {
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  t[0] = tensor(WGK_DTYPE_INT64, in->o);
  t[1] = tensor(WGK_DTYPE_INT64, in->c);
  t[2] = tensor(WGK_DTYPE_INT64, in->s);
  assert_int_equal(wgk_call_set_input(call, "o", t[0]), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "c", t[1]), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "s", t[2]), WGK_OK);
  return call;
}

/* w = 2 * sat(s) - 5 in int32, wu = 3 * c in uint32, both int64 outputs stored as 32-bit words. */
static void test_projected_outputs(void **state) {
  (void)state;
  wgk_kernel *k = load("test.Int64");
  int64_inputs in;
  make_inputs(&in);
  wgk_tensor *t[3];
  wgk_call *call = int64_call(k, &in, t);
  /* a caller-given destination, poisoned: it must hold the widened values after the run */
  int64_t poison[N];
  for (int i = 0; i < N; i++) poison[i] = 0x5a5a5a5a5a5a5a5all;
  wgk_tensor *w_dest = tensor(WGK_DTYPE_INT64, poison);
  assert_int_equal(wgk_call_set_output(call, "w", w_dest), WGK_OK);
  run_ok(call);
  int64_t w[N], wu[N], oy[N];
  read_i64(wgk_call_output(call, "w"), w);
  read_i64(wgk_call_output(call, "wu"), wu);
  read_i64(wgk_call_output(call, "oy"), oy);
  assert_ptr_equal(wgk_call_output(call, "w"), w_dest);
  for (int i = 0; i < N; i++) {
    assert_int_equal(w[i], wrap32(2 * sat32(in.s[i]) - 5));
    assert_int_equal(wu[i], (int64_t)((uint64_t)(3 * in.c[i]) & 0xffffffffu));
    assert_int_equal(oy[i], in.o[N - 1 - i]);
  }
  /* the same destination again (now holding 32-bit words), and a second run reusing the made outputs */
  run_ok(call);
  read_i64(wgk_call_output(call, "w"), w);
  for (int i = 0; i < N; i++) assert_int_equal(w[i], wrap32(2 * sat32(in.s[i]) - 5));
  /* wgk_tensor_write on an int64 tensor held as 32-bit words: 64-bit values again */
  int64_t big[N];
  for (int i = 0; i < N; i++) big[i] = (int64_t)util_rng_next(&rng);
  assert_int_equal(wgk_tensor_write(w_dest, big, sizeof big), WGK_OK);
  read_i64(w_dest, w);
  assert_memory_equal(w, big, sizeof big);
  for (int i = 0; i < 3; i++) wgk_tensor_release(t[i]);
  wgk_tensor_release(w_dest);
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
}

/* The int32-stored output w of one call as the inputs of the next: s (int32, the same layout: bound as is),
 * o (opaque int64: widened back to 64 bits), c (uint32 checked: its negative values are refused). */
static void test_chained(void **state) {
  (void)state;
  wgk_kernel *k = load("test.Int64");
  int64_inputs in;
  make_inputs(&in);
  wgk_tensor *t[3];
  wgk_call *first = int64_call(k, &in, t);
  run_ok(first);
  wgk_tensor *w = wgk_tensor_retain(wgk_call_output(first, "w"));
  int64_t wv[N];
  read_i64(w, wv);
  wgk_call *second = NULL;
  assert_int_equal(wgk_call_create(k, &second), WGK_OK);
  assert_int_equal(wgk_call_set_input(second, "o", w), WGK_OK);
  assert_int_equal(wgk_call_set_input(second, "c", t[1]), WGK_OK);
  assert_int_equal(wgk_call_set_input(second, "s", w), WGK_OK);
  run_ok(second);
  int64_t oy[N], w2[N];
  read_i64(wgk_call_output(second, "oy"), oy);
  read_i64(wgk_call_output(second, "w"), w2);
  for (int i = 0; i < N; i++) {
    assert_int_equal(oy[i], wv[N - 1 - i]);
    assert_int_equal(w2[i], wrap32(2 * wv[i] - 5));
  }
  /* w into c (uint32, checked): in[2] = -5 gives w[2] = -15, outside uint32: refused, nothing changes */
  assert_true(wv[2] < 0);
  assert_int_equal(wgk_call_set_input(second, "c", w), WGK_OK);
  wgk_stats before, after;
  wgk_context_stats(ctx, &before);
  assert_int_equal(wgk_call_run(second), WGK_ERR_CALL);
  wgk_context_stats(ctx, &after);
  assert_int_equal(after.dispatches, before.dispatches);
  char want[160];
  int at = 0;
  while (wv[at] >= 0) at++;
  snprintf(want, sizeof want, "input \"c\": int64 value at index %d (%lld) is outside the uint32 WebGPU storage range",
           at, (long long)wv[at]);
  if (!strstr(wgk_context_errmsg(ctx), want)) fail_msg("message: %s (want %s)", wgk_context_errmsg(ctx), want);
  if (!strstr(wgk_context_errmsg(ctx), "test.Int64/build/webgpu/manifest.json:"))
    fail_msg("position: %s", wgk_context_errmsg(ctx));
  read_i64(wgk_call_output(second, "w"), w2); /* the outputs of the previous run */
  for (int i = 0; i < N; i++) assert_int_equal(w2[i], wrap32(2 * wv[i] - 5));
  wgk_tensor_release(w);
  for (int i = 0; i < 3; i++) wgk_tensor_release(t[i]);
  wgk_call_destroy(first);
  wgk_call_destroy(second);
  wgk_kernel_destroy(k);
}

/* Checked narrowing refuses before anything runs: caller-given outputs keep their poison. */
static void test_checked_refusal(void **state) {
  (void)state;
  wgk_kernel *k = load("test.Int64");
  int64_inputs in;
  make_inputs(&in);
  in.c[1] = -1;
  wgk_tensor *t[3];
  wgk_call *call = int64_call(k, &in, t);
  int64_t poison[N];
  uint32_t poison32[N];
  for (int i = 0; i < N; i++) {
    poison[i] = -7777;
    poison32[i] = 0xdeadbeefu;
  }
  wgk_tensor *w = tensor(WGK_DTYPE_INT64, poison), *cy = tensor(WGK_DTYPE_UINT32, poison32);
  assert_int_equal(wgk_call_set_output(call, "w", w), WGK_OK);
  assert_int_equal(wgk_call_set_output(call, "cy", cy), WGK_OK);
  assert_int_equal(wgk_call_run(call), WGK_ERR_CALL);
  if (!strstr(wgk_context_errmsg(ctx),
              "input \"c\": int64 value at index 1 (-1) is outside the uint32 WebGPU storage range"))
    fail_msg("message: %s", wgk_context_errmsg(ctx));
  int64_t got[N];
  uint32_t got32[N];
  read_i64(w, got);
  assert_memory_equal(got, poison, sizeof got);
  assert_int_equal(wgk_tensor_read(cy, got32, sizeof got32), WGK_OK);
  assert_memory_equal(got32, poison32, sizeof got32);
  wgk_tensor_release(w);
  wgk_tensor_release(cy);
  for (int i = 0; i < 3; i++) wgk_tensor_release(t[i]);
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
}

/* int16 in the C API, and the widened dtypes through test.Widen. */
static void test_widened(void **state) {
  (void)state;
  assert_int_equal(wgk_dtype_size(WGK_DTYPE_INT16), 2);
  assert_string_equal(wgk_dtype_name(WGK_DTYPE_INT16), "int16");
  assert_int_equal(wgk_dtype_from_name("int16"), WGK_DTYPE_INT16);
  int8_t a[N];
  int16_t b[N];
  uint8_t c[N];
  bool d[N];
  for (int i = 0; i < N; i++) {
    a[i] = (int8_t)(util_rng_next(&rng) & 0xff);
    b[i] = (int16_t)(util_rng_next(&rng) & 0xffff);
    c[i] = (uint8_t)(util_rng_next(&rng) & 0xff);
    d[i] = util_rng_next(&rng) & 1;
  }
  b[0] = INT16_MIN;
  b[1] = INT16_MAX;
  wgk_tensor *tb = tensor(WGK_DTYPE_INT16, b);
  int16_t back[N];
  assert_int_equal(wgk_tensor_host_bytes(tb), sizeof back);
  assert_int_equal(wgk_tensor_read(tb, back, sizeof back), WGK_OK);
  assert_memory_equal(back, b, sizeof back);
  wgk_kernel *k = load("test.Widen");
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  wgk_tensor *ta = tensor(WGK_DTYPE_INT8, a), *tc = tensor(WGK_DTYPE_UINT8, c), *td = tensor(WGK_DTYPE_BOOL, d);
  assert_int_equal(wgk_call_set_input(call, "a", ta), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "b", tb), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "c", tc), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "d", td), WGK_OK);
  run_ok(call);
  int8_t ya[N];
  int16_t yb[N];
  uint8_t yc[N];
  bool yd[N];
  assert_int_equal(wgk_tensor_read(wgk_call_output(call, "ya"), ya, sizeof ya), WGK_OK);
  assert_int_equal(wgk_tensor_read(wgk_call_output(call, "yb"), yb, sizeof yb), WGK_OK);
  assert_int_equal(wgk_tensor_read(wgk_call_output(call, "yc"), yc, sizeof yc), WGK_OK);
  assert_int_equal(wgk_tensor_read(wgk_call_output(call, "yd"), yd, sizeof yd), WGK_OK);
  for (int i = 0; i < N; i++) {
    assert_int_equal(ya[i], (int8_t)(uint8_t)(3 * a[i]));
    assert_int_equal(yb[i], (int16_t)(uint16_t)(b[i] - 7));
    assert_int_equal(yc[i], (uint8_t)(c[i] + 100));
    assert_int_equal(yd[i], !d[i]);
  }
  wgk_tensor_release(ta);
  wgk_tensor_release(tb);
  wgk_tensor_release(tc);
  wgk_tensor_release(td);
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
}

/* A uint8 tensor bound to a packed port, and the same tensor then read back whole (its own layout). */
static void test_packed(void **state) {
  (void)state;
  uint8_t p[N];
  for (int i = 0; i < N; i++) p[i] = (uint8_t)(util_rng_next(&rng) & 0xff);
  wgk_kernel *k = load("test.Packed");
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  wgk_tensor *tp = tensor(WGK_DTYPE_UINT8, p);
  assert_int_equal(wgk_call_set_input(call, "p", tp), WGK_OK);
  run_ok(call);
  uint32_t y[N], words = 0;
  uint8_t back[N];
  assert_int_equal(wgk_tensor_read(wgk_call_output(call, "y"), y, sizeof y), WGK_OK);
  assert_int_equal(wgk_tensor_read(wgk_call_output(call, "words"), &words, sizeof words), WGK_OK);
  assert_int_equal(words, (N + 3) / 4);
  for (int i = 0; i < N; i++) assert_int_equal(y[i], 2u * p[i] + 1u);
  assert_int_equal(wgk_tensor_read(tp, back, sizeof back), WGK_OK);
  assert_memory_equal(back, p, sizeof back);
  wgk_tensor_release(tp);
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
}

/* An in/out int64 port stored as int32: the tensor is narrowed into a 32-bit copy that the kernel updates and
 * that becomes the tensor (read back widened); a second run binds it as it is. */
static void test_inout(void **state) {
  (void)state;
  int64_t v[N], got[N];
  for (int i = 0; i < N; i++) v[i] = (int64_t)(util_rng_next(&rng) % (1ull << 36)) - (1ll << 35);
  wgk_kernel *k = load("test.InOut64");
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  wgk_tensor *acc = tensor(WGK_DTYPE_INT64, v);
  assert_int_equal(wgk_call_set_input(call, "acc", acc), WGK_OK);
  run_ok(call);
  assert_ptr_equal(wgk_call_output(call, "acc"), acc);
  read_i64(acc, got);
  for (int i = 0; i < N; i++) assert_int_equal(got[i], wrap32(2 * sat32(v[i]) + 1));
  run_ok(call);
  read_i64(acc, got);
  for (int i = 0; i < N; i++) assert_int_equal(got[i], wrap32(2 * wrap32(2 * sat32(v[i]) + 1) + 1));
  wgk_tensor_release(acc);
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
}

int main(void) {
  char *msg = NULL;
  if (wgk_context_create(NULL, &ctx, &msg) != WGK_OK) {
    fprintf(stderr, "context: %s\n", msg ? msg : "?");
    return 1;
  }
  wgk_test_need_gpu_context(ctx);
  util_rng_seed(&rng, 2111);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_projected_outputs), cmocka_unit_test(test_chained), cmocka_unit_test(test_checked_refusal),
      cmocka_unit_test(test_widened),           cmocka_unit_test(test_packed),  cmocka_unit_test(test_inout),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  wgk_context_destroy(ctx);
  return rc;
}
