/* wgk_call_run_host (issue 14: the public loader's call in one, host arrays in and out): RotaryEmbedding
 * [1,HEADS,S,128] on fresh random inputs, y poisoned before every call and compared with a double reference (NeoX
 * halves):
 * - the caches (staged: above the queue-write limit) are filled on the context's threads in parts of uneven sizes
 *   while the call records; x and the positions are written at once; one submission and one map wait a call, no
 *   new staging buffer once warm;
 * - float16 host values go in and come out;
 * - inputs not listed keep the tensors set before;
 * - a refused input, read or call (a host check after the new inputs are in place) changes nothing: nothing
 *   submitted, y untouched, the call's inputs and output the tensors (and values) of before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_internal.h"
#include "runtime/rope_check.h"
#include "runtime/runtime_internal.h"
#include "util/half.h"
#include "util/rng.h"
#include "util/wgk_test.h"

enum { HEADS = 4, HEAD = 128, HALF = HEAD / 2, ROWS = 509 }; /* 509 rows: caches split in parts of uneven sizes */

static util_rng rng;

/* One call's host arrays: x [1,HEADS,s,HEAD], caches [ROWS,HALF], positions [1,s]; f16: x and the caches as
 * float16 host values too (the float arrays rounded to them, so the reference sees what the GPU does). */
typedef struct rope_case {
  int s;
  float *x, *cs, *sn;
  uint16_t *hx, *hcs, *hsn;
  int64_t *pos;
} rope_case;

static float *uniform(size_t n) {
  float *a = malloc(sizeof(float) * n);
  assert_non_null(a);
  for (size_t i = 0; i < n; i++) a[i] = (float)util_rng_uniform(&rng, -1, 1);
  return a;
}

static uint16_t *to_half(float *a, size_t n) {
  uint16_t *h = malloc(sizeof(uint16_t) * n);
  assert_non_null(h);
  for (size_t i = 0; i < n; i++) a[i] = util_half_to_float(h[i] = util_half_from_float(a[i]));
  return h;
}

static rope_case draw(int s, bool f16) {
  size_t nx = (size_t)HEADS * s * HEAD, nc = (size_t)ROWS * HALF;
  rope_case c = {s, uniform(nx), uniform(nc), uniform(nc), NULL, NULL, NULL, malloc(sizeof(int64_t) * s)};
  assert_non_null(c.pos);
  for (int i = 0; i < s; i++) c.pos[i] = util_rng_int(&rng, 0, ROWS - 1);
  if (f16) c.hx = to_half(c.x, nx), c.hcs = to_half(c.cs, nc), c.hsn = to_half(c.sn, nc);
  return c;
}

static void drop(rope_case *c) {
  free(c->x), free(c->cs), free(c->sn), free(c->pos), free(c->hx), free(c->hcs), free(c->hsn);
}

/* The largest error of y (float32, or float16 host values) against the double reference. */
static double max_error(const rope_case *c, const void *y, bool f16) {
  rope_check check = {HEADS, c->s, c->x, c->cs, c->sn, c->pos};
  return rope_check_error(&check, y, f16);
}

/* The four inputs of c as host values (shapes in the caller's storage, which must outlive the call). */
typedef struct host_inputs {
  int64_t xs[4], cshape[2], ps[2];
  wgk_input_write w[4];
} host_inputs;

static void describe(host_inputs *h, const rope_case *c, bool f16) {
  wgk_dtype dt = f16 ? WGK_DTYPE_FLOAT16 : WGK_DTYPE_FLOAT32;
  size_t es = f16 ? 2 : 4, nx = (size_t)HEADS * c->s * HEAD, nc = (size_t)ROWS * HALF;
  memcpy(h->xs, (int64_t[4]){1, HEADS, c->s, HEAD}, sizeof h->xs);
  memcpy(h->cshape, (int64_t[2]){ROWS, HALF}, sizeof h->cshape);
  memcpy(h->ps, (int64_t[2]){1, c->s}, sizeof h->ps);
  h->w[0] = (wgk_input_write){"x", dt, 4, h->xs, f16 ? (void *)c->hx : c->x, nx * es};
  h->w[1] = (wgk_input_write){"cos", dt, 2, h->cshape, f16 ? (void *)c->hcs : c->cs, nc * es};
  h->w[2] = (wgk_input_write){"sin", dt, 2, h->cshape, f16 ? (void *)c->hsn : c->sn, nc * es};
  h->w[3] = (wgk_input_write){"positionIds", WGK_DTYPE_INT64, 2, h->ps, c->pos, sizeof(int64_t) * c->s};
}

/* A context with staged, deferred uploads (as on a GPU adapter): the caches (127 KiB, 64 KiB in float16) staged and
 * filled in parts of a 16 KiB host span (8 and 4 parts, of uneven sizes), x and the positions written at once. */
static wgk_context *context(void) {
  wgk_context *ctx = wgk_test_staged_context();
  ctx->queue_write_max = 4096;
  ctx->host_span = 16 << 10;
  return ctx;
}

/* Calls of s positions through wgk_call_run_host, each on fresh inputs into a poisoned y: right every time, and
 * once warm one submission, one map wait (the output's) and no new staging buffer a call. */
static void run_rounds(int s, bool f16) {
  wgk_context *ctx = context();
  wgk_kernel *k = wgk_test_load(ctx, "webgpu-kernels/ai.onnx.RotaryEmbedding");
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  size_t y_bytes = (size_t)HEADS * s * HEAD * (f16 ? 2 : 4);
  void *y = malloc(y_bytes);
  for (int round = 0; round < 4; round++) {
    rope_case c = draw(s, f16);
    host_inputs h;
    describe(&h, &c, f16);
    memset(y, 0xff, y_bytes); /* NaN where unwritten */
    uint64_t sub0 = gpu_device_submits(ctx->dev), wait0 = gpu_device_map_waits(ctx->dev), miss0 = ctx->pool.misses;
    wgk_output_read read = {"y", y, y_bytes};
    if (wgk_call_run_host(call, h.w, 4, &read, 1) != WGK_OK) fail_msg("%s", wgk_context_errmsg(ctx));
    assert_true(max_error(&c, y, f16) < (f16 ? 4e-3 : 1e-5));
    if (round >= 2) {
      assert_int_equal(gpu_device_submits(ctx->dev) - sub0, 1);
      assert_int_equal(gpu_device_map_waits(ctx->dev) - wait0, 1);
      assert_int_equal(ctx->pool.misses - miss0, 0);
    }
    drop(&c);
  }
  free(y);
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

static void float32_caches_filled_while_recording(void **state) {
  (void)state;
  run_rounds(1, false);
  run_rounds(5, false);
}

static void float16_host_values(void **state) {
  (void)state;
  run_rounds(3, true);
}

/* Only x and the positions given: the caches set before stay the call's. */
static void unlisted_inputs_stay(void **state) {
  (void)state;
  wgk_context *ctx = context();
  wgk_kernel *k = wgk_test_load(ctx, "webgpu-kernels/ai.onnx.RotaryEmbedding");
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  rope_case first = draw(2, false), second = draw(2, false);
  host_inputs h1, h2;
  describe(&h1, &first, false);
  describe(&h2, &second, false);
  static float y[HEADS * 2 * HEAD];
  wgk_output_read read = {"y", y, sizeof y};
  assert_int_equal(wgk_call_run_host(call, h1.w, 4, &read, 1), WGK_OK);
  wgk_tensor *cos_before = call->ports[rt_port_index(call->k->m, "cos")];
  wgk_input_write some[2] = {h2.w[0], h2.w[3]};
  memcpy(second.cs, first.cs, sizeof(float) * ROWS * HALF); /* the reference's caches: the first call's */
  memcpy(second.sn, first.sn, sizeof(float) * ROWS * HALF);
  memset(y, 0xff, sizeof y);
  assert_int_equal(wgk_call_run_host(call, some, 2, &read, 1), WGK_OK);
  assert_ptr_equal(call->ports[rt_port_index(call->k->m, "cos")], cos_before);
  assert_true(max_error(&second, y, false) < 1e-5);
  drop(&first);
  drop(&second);
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

/* The call's input tensors, by port. */
static void inputs_of(wgk_call *call, wgk_tensor **out) {
  const char *names[4] = {"x", "cos", "sin", "positionIds"};
  for (int i = 0; i < 4; i++) out[i] = call->ports[rt_port_index(call->k->m, names[i])];
}

typedef struct refusal {
  wgk_status status; /* 0: any error */
  const char *says;
} refusal;

/* Refusal case b made from good inputs h and read r (far: room for two positions); says NULL past the last. Cases 9
 * and 11 are refused once the new inputs are in the call's ports (a host check, a read's size). */
static refusal spoil(host_inputs *h, wgk_output_read *r, int b, int64_t *far) {
  switch (b) {
  case 0:
    h->w[0].name = "z";
    return (refusal){WGK_ERR_NOT_FOUND, "has no input 'z'"};
  case 1:
    h->w[0].name = "y";
    return (refusal){WGK_ERR_NOT_FOUND, "has no input 'y'"};
  case 2:
    h->w[0].name = NULL;
    return (refusal){WGK_ERR_INVALID_ARGUMENT, "input 0 (no name): the port name is NULL"};
  case 3:
    h->w[2].name = "cos";
    return (refusal){WGK_ERR_INVALID_ARGUMENT, "input 2 (cos): the port is listed twice"};
  case 4:
    h->w[1].data = NULL;
    return (refusal){WGK_ERR_INVALID_ARGUMENT, "input 1 (cos): data is NULL"};
  case 5:
    h->w[2].rank = 9;
    return (refusal){WGK_ERR_INVALID_ARGUMENT, "input 2 (sin): tensor: rank 9 is outside 0..8"};
  case 6:
    h->w[2].dtype = (wgk_dtype)99;
    return (refusal){WGK_ERR_INVALID_ARGUMENT, "input 2 (sin): tensor: invalid dtype 99"};
  case 7:
    far[0] = (int64_t)1 << 62, far[1] = 4; /* issue 37: an overflowing shape says so, with its dims */
    h->w[2].rank = 2, h->w[2].shape = far;
    return (refusal){WGK_ERR_INVALID_ARGUMENT,
                     "input 2 (sin): tensor: shape [4611686018427387904, 4] overflows: its element count is past"};
  case 8:
    h->w[2].size = 12;
    return (refusal){WGK_ERR_INVALID_ARGUMENT,
                     "input 2 (sin): 12 bytes given, its float32 tensor of 32576 elements holds 130304"};
  case 9:
    far[0] = 0, far[1] = ROWS;
    h->w[3].data = far;
    return (refusal){0, "value 509 at [0, 1] is out of range"};
  case 10:
    r->name = "x";
    return (refusal){WGK_ERR_NOT_FOUND, "has no output 'x'"};
  case 11:
    r->size -= 4;
    return (refusal){WGK_ERR_INVALID_ARGUMENT, "output y: 4092 bytes given, 4096 needed"};
  default:
    return (refusal){0, NULL};
  }
}

/* Each bad input or read, and refusals once the new inputs are in place: the status and message, nothing
 * submitted, y untouched, the call's inputs and output those of before (values too); then a good call works. */
static void refusals_change_nothing(void **state) {
  (void)state;
  wgk_context *ctx = context();
  wgk_kernel *k = wgk_test_load(ctx, "webgpu-kernels/ai.onnx.RotaryEmbedding");
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  rope_case c = draw(2, false), d = draw(2, false);
  host_inputs h;
  describe(&h, &c, false);
  enum { N = HEADS * 2 * HEAD };
  static float y[N], before[N], poison[N];
  wgk_output_read r = {"y", before, sizeof before};
  assert_int_equal(wgk_call_run_host(call, h.w, 4, &r, 1), WGK_OK);
  wgk_tensor *out = wgk_call_output(call, "y"), *ins[4], *ins_after[4];
  inputs_of(call, ins);
  int64_t far[2];
  refusal want;
  for (int b = 0; (describe(&h, &d, false), r = (wgk_output_read){"y", y, sizeof y}, want = spoil(&h, &r, b, far)).says;
       b++) {
    memset(y, 0xab, sizeof y);
    memcpy(poison, y, sizeof y);
    uint64_t submits = gpu_device_submits(ctx->dev);
    wgk_status st = wgk_call_run_host(call, h.w, 4, &r, 1);
    assert_int_not_equal(st, WGK_OK);
    if (want.status) assert_int_equal(st, want.status);
    if (!strstr(wgk_context_errmsg(ctx), want.says)) fail_msg("case %d: %s", b, wgk_context_errmsg(ctx));
    assert_int_equal(gpu_device_submits(ctx->dev), submits);
    assert_memory_equal(y, poison, sizeof y);
    inputs_of(call, ins_after);
    assert_memory_equal(ins, ins_after, sizeof ins);
    assert_ptr_equal(wgk_call_output(call, "y"), out);
    memset(y, 0xff, sizeof y);
    assert_int_equal(wgk_tensor_read(out, y, sizeof y), WGK_OK);
    assert_memory_equal(y, before, sizeof y);
  }
  describe(&h, &d, false);
  r = (wgk_output_read){"y", y, sizeof y};
  memset(y, 0xff, sizeof y);
  assert_int_equal(wgk_call_run_host(call, h.w, 4, &r, 1), WGK_OK);
  assert_true(max_error(&d, y, false) < 1e-5);
  assert_int_equal(wgk_call_run_host(NULL, h.w, 4, &r, 1), WGK_ERR_INVALID_ARGUMENT);
  assert_int_equal(wgk_call_run_host(call, NULL, 1, &r, 1), WGK_ERR_INVALID_ARGUMENT);
  assert_int_equal(wgk_call_run_host(call, NULL, 0, NULL, 0), WGK_OK); /* nothing given: a run */
  drop(&c);
  drop(&d);
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

int main(int argc, char **argv) {
  if (argc > 1) cmocka_set_test_filter(argv[1]);
  setenv("WGK_TUNING_CACHE", "/nonexistent/wgk-test-run-host/tuning.json", 1);
  wgk_test_seed(&rng, "test_run_host");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(float32_caches_filled_while_recording),
      cmocka_unit_test(float16_host_values),
      cmocka_unit_test(unlisted_inputs_stay),
      cmocka_unit_test(refusals_change_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
