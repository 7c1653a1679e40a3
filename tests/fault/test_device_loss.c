/* Device loss: the context's device destroyed under live kernels, tensors, calls and batches (what a GPU
 * reset or a driver crash does). Every later operation returns WGK_ERR_DEVICE with a message naming the loss,
 * and nothing crashes or hangs; destroying everything afterwards is clean (ASan build: no leak).
 * The device is destroyed with wgpuDeviceDestroy on the context's own device (runtime internals). A GPU test:
 * on Dawn's Null backend alone it fails (tests/util/wgk_test.h), it does not pass having lost nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime_internal.h"
#include "util/wgk_test.h"
#include "wgk.h"

static float x[48], cs[32], sn[32];
static const int64_t xd[4] = {1, 2, 3, 8};

/* A context, the RotaryEmbedding kernel and one call that has run; the device then destroyed. */
typedef struct world {
  wgk_context *ctx;
  wgk_kernel *k;
  wgk_tensor *tx, *tc, *ts, *ty;
  wgk_call *call;
  wgk_batch *batch;
} world;

static void build(world *w, bool run_first) {
  memset(w, 0, sizeof *w);
  for (int i = 0; i < 48; i++) x[i] = (float)i / 7.0f;
  for (int i = 0; i < 32; i++) cs[i] = (float)i / 32.0f, sn[i] = 1.0f - (float)i / 32.0f;
  w->ctx = wgk_test_context(); /* a real adapter, or the test fails */
  assert_int_equal(wgk_kernel_load(w->ctx, "webgpu-kernels/ai.onnx.RotaryEmbedding", NULL, &w->k), WGK_OK);
  assert_int_equal(wgk_tensor_create(w->ctx, WGK_DTYPE_FLOAT32, 4, xd, x, &w->tx), WGK_OK);
  int64_t c3[3] = {1, 3, 4};
  assert_int_equal(wgk_tensor_create(w->ctx, WGK_DTYPE_FLOAT32, 3, c3, cs, &w->tc), WGK_OK);
  assert_int_equal(wgk_tensor_create(w->ctx, WGK_DTYPE_FLOAT32, 3, c3, sn, &w->ts), WGK_OK);
  assert_int_equal(wgk_tensor_create(w->ctx, WGK_DTYPE_FLOAT32, 4, xd, NULL, &w->ty), WGK_OK);
  assert_int_equal(wgk_call_create(w->k, &w->call), WGK_OK);
  assert_int_equal(wgk_call_set_input(w->call, "x", w->tx), WGK_OK);
  assert_int_equal(wgk_call_set_input(w->call, "cos", w->tc), WGK_OK);
  assert_int_equal(wgk_call_set_input(w->call, "sin", w->ts), WGK_OK);
  assert_int_equal(wgk_call_set_output(w->call, "y", w->ty), WGK_OK);
  assert_int_equal(wgk_batch_create(w->ctx, &w->batch), WGK_OK);
  if (run_first) {
    if (wgk_call_run(w->call) != WGK_OK) fail_msg("run: %s", wgk_context_errmsg(w->ctx));
    float y[48];
    assert_int_equal(wgk_tensor_read(w->ty, y, sizeof y), WGK_OK);
  }
}

static void lose_device(world *w) { wgpuDeviceDestroy(gpu_device_raw(w->ctx->dev)); }

static void teardown_world(world *w) {
  wgk_batch_destroy(w->batch);
  wgk_call_destroy(w->call);
  wgk_tensor_release(w->tx), wgk_tensor_release(w->tc), wgk_tensor_release(w->ts), wgk_tensor_release(w->ty);
  wgk_kernel_destroy(w->k);
  wgk_context_destroy(w->ctx);
}

/* st must be WGK_ERR_DEVICE with a message naming the loss. */
static void lost(const world *w, const char *what, wgk_status st) {
  const char *msg = wgk_context_errmsg(w->ctx);
  if (st != WGK_ERR_DEVICE)
    fail_msg("%s after device loss: %s (%s), expected device error", what, wgk_status_str(st), msg);
  if (!strstr(msg, "device lost")) fail_msg("%s after device loss: message '%s' does not name the loss", what, msg);
}

static void every_call_reports_loss(void **state) {
  world w;
  build(&w, true);
  lose_device(&w);
  float y[48] = {0};
  lost(&w, "wgk_call_run", wgk_call_run(w.call));
  lost(&w, "wgk_tensor_read", wgk_tensor_read(w.ty, y, sizeof y));
  lost(&w, "wgk_tensor_read_f32", wgk_tensor_read_f32(w.ty, y, 48));
  lost(&w, "wgk_tensor_write", wgk_tensor_write(w.tx, x, sizeof x));
  wgk_tensor *t = NULL;
  lost(&w, "wgk_tensor_create", wgk_tensor_create(w.ctx, WGK_DTYPE_FLOAT32, 4, xd, x, &t));
  assert_null(t);
  lost(&w, "wgk_tensor_create_f16_from_f32", wgk_tensor_create_f16_from_f32(w.ctx, 4, xd, x, &t));
  assert_null(t);
  lost(&w, "wgk_batch_add", wgk_batch_add(w.batch, w.call));
  lost(&w, "wgk_batch_submit", wgk_batch_submit(w.batch));
  wgk_batch *b = NULL;
  lost(&w, "wgk_batch_create", wgk_batch_create(w.ctx, &b));
  assert_null(b);
  lost(&w, "wgk_context_wait", wgk_context_wait(w.ctx));
  wgk_kernel *k = NULL;
  lost(&w, "wgk_kernel_load", wgk_kernel_load(w.ctx, "webgpu-kernels/com.microsoft.SparseAttention", NULL, &k));
  assert_null(k);
  /* Another plan (interleaved): prepare must plan and compile, on a device that is gone. */
  wgk_call *c = NULL;
  assert_int_equal(wgk_call_create(w.k, &c), WGK_OK);
  assert_int_equal(wgk_call_set_input(c, "x", w.tx), WGK_OK); /* tensors made before the loss */
  assert_int_equal(wgk_call_set_input(c, "cos", w.tc), WGK_OK);
  assert_int_equal(wgk_call_set_input(c, "sin", w.ts), WGK_OK);
  assert_int_equal(wgk_call_set_attr_int(c, "interleaved", 1), WGK_OK);
  lost(&w, "wgk_prepare", wgk_prepare(c));
  lost(&w, "wgk_call_run (second call)", wgk_call_run(c));
  wgk_call_destroy(c);
  teardown_world(&w);
}

/* Lost with work in flight: the run was submitted, not waited for. */
static void loss_with_work_in_flight(void **state) {
  world w;
  build(&w, false);
  assert_int_equal(wgk_call_run(w.call), WGK_OK);
  lose_device(&w);
  float y[48];
  lost(&w, "wgk_tensor_read", wgk_tensor_read(w.ty, y, sizeof y));
  lost(&w, "wgk_call_run", wgk_call_run(w.call));
  teardown_world(&w);
}

/* Lost while a batch holds recorded work. */
static void loss_with_recorded_batch(void **state) {
  world w;
  build(&w, false);
  assert_int_equal(wgk_batch_add(w.batch, w.call), WGK_OK);
  lose_device(&w);
  lost(&w, "wgk_batch_submit", wgk_batch_submit(w.batch));
  float y[48];
  lost(&w, "wgk_tensor_read", wgk_tensor_read(w.ty, y, sizeof y));
  teardown_world(&w);
}

/* Lost before anything ran: the first plan and pipeline compile meet a dead device. */
static void loss_before_first_run(void **state) {
  world w;
  build(&w, false);
  lose_device(&w);
  lost(&w, "wgk_prepare", wgk_prepare(w.call));
  lost(&w, "wgk_call_run", wgk_call_run(w.call));
  teardown_world(&w);
}

/* A caller's device (wgk only references it) destroyed by its owner: later calls fail cleanly, with a message. */
static void caller_device_lost(void **state) {
  util_error err;
  util_error_clear(&err);
  gpu_device *mine = NULL;
  assert_int_equal(gpu_device_create(NULL, &mine, &err), WGK_OK);
  wgk_context_options o = {.wgpu_instance = gpu_device_raw_instance(mine), .wgpu_device = gpu_device_raw(mine)};
  world w;
  memset(&w, 0, sizeof w);
  assert_int_equal(wgk_context_create(&o, &w.ctx, NULL), WGK_OK);
  assert_int_equal(wgk_kernel_load(w.ctx, "webgpu-kernels/ai.onnx.RotaryEmbedding", NULL, &w.k), WGK_OK);
  int64_t c3[3] = {1, 3, 4};
  assert_int_equal(wgk_tensor_create(w.ctx, WGK_DTYPE_FLOAT32, 4, xd, x, &w.tx), WGK_OK);
  assert_int_equal(wgk_tensor_create(w.ctx, WGK_DTYPE_FLOAT32, 3, c3, cs, &w.tc), WGK_OK);
  assert_int_equal(wgk_tensor_create(w.ctx, WGK_DTYPE_FLOAT32, 3, c3, sn, &w.ts), WGK_OK);
  assert_int_equal(wgk_call_create(w.k, &w.call), WGK_OK);
  assert_int_equal(wgk_call_set_input(w.call, "x", w.tx), WGK_OK);
  assert_int_equal(wgk_call_set_input(w.call, "cos", w.tc), WGK_OK);
  assert_int_equal(wgk_call_set_input(w.call, "sin", w.ts), WGK_OK);
  assert_int_equal(wgk_call_run(w.call), WGK_OK);
  wgpuDeviceDestroy(gpu_device_raw(mine));
  /* wgk cannot register for the loss of a device it did not create: a run records into the lost device (a no-op
   * in Dawn) and succeeds; the first read back fails, naming the loss. */
  float y[48];
  wgk_status st = wgk_tensor_read(wgk_call_output(w.call, "y"), y, sizeof y);
  if (st == WGK_OK || !strstr(wgk_context_errmsg(w.ctx), "lost"))
    fail_msg("read after the caller's device was lost: %s (%s)", wgk_status_str(st), wgk_context_errmsg(w.ctx));
  wgk_call_run(w.call);
  st = wgk_tensor_read(w.tx, y, sizeof y);
  if (st == WGK_OK || !strstr(wgk_context_errmsg(w.ctx), "lost"))
    fail_msg("second read after the caller's device was lost: %s (%s)", wgk_status_str(st), wgk_context_errmsg(w.ctx));
  teardown_world(&w);
  gpu_device_destroy(mine);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_call_reports_loss),  cmocka_unit_test(loss_with_work_in_flight),
      cmocka_unit_test(loss_with_recorded_batch), cmocka_unit_test(loss_before_first_run),
      cmocka_unit_test(caller_device_lost),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
