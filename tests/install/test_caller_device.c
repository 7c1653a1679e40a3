/* A caller's WGPUDevice created without a feature its adapter has (issue 16 item 2): the float16 refusal names
 * the caller's device as the cause, not the adapter; the same call on a device created with shader-f16 runs and
 * matches a double reference. Skipped when the adapter has no shader-f16 (nothing to leave out). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu/gpu_internal.h"
#include "util/half.h"
#include "util/wgk_test.h"
#include "wgk.h"

enum { B = 1, N = 2, S = 4, H = 16, HALF = H / 2, MAX_POS = 16, NUMEL = B * N * S * H };

typedef struct device_request {
  gpu_async async;
  WGPUDevice device;
} device_request;

static void on_device(uint32_t status, WGPUDevice device, WGPUStringView message, void *u1, void *u2) {
  if (gpu_async_orphaned(u1)) {
    if (device) wgpuDeviceRelease(device);
    return;
  }
  device_request *r = u1;
  r->async.done = true;
  r->async.status = status;
  r->device = device;
}

/* A device of the default adapter, with shader-f16 or without; NULL (and the test skipped) when the adapter
 * has no shader-f16. */
static WGPUDevice make_device(WGPUInstance instance, bool with_f16) {
  WGPUAdapter adapter = NULL;
  util_error err = {0};
  assert_int_equal(gpu_adapter_select(instance, NULL, &adapter, &err), WGK_OK);
  if (!wgpuAdapterHasFeature(adapter, WGPUFeatureName_ShaderF16)) {
    wgpuAdapterRelease(adapter);
    return NULL;
  }
  WGPUFeatureName f16 = WGPUFeatureName_ShaderF16;
  WGPUDeviceDescriptor desc = {.requiredFeatureCount = with_f16 ? 1 : 0, .requiredFeatures = &f16};
  device_request *r = gpu_async_new(sizeof *r);
  assert_non_null(r);
  WGPUFuture f = wgpuAdapterRequestDevice(
      adapter, &desc, (WGPURequestDeviceCallbackInfo){NULL, WGPUCallbackMode_WaitAnyOnly, on_device, r, NULL});
  assert_int_equal(gpu_await_instance(instance, f, &r->async, 60000, "the device request", &err), WGK_OK);
  WGPUDevice device = r->device;
  gpu_async_free(&r->async);
  wgpuAdapterRelease(adapter);
  assert_non_null(device);
  return device;
}

static double uniform(uint64_t *s) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) / 4503599627370496.0 - 1.0;
}

/* One float16 RotaryEmbedding call (split halves) on a context of the given device: its status; on success the
 * output is checked against a double reference of the float16-rounded inputs; on failure y is the poison. */
static wgk_status rope_f16(WGPUInstance instance, WGPUDevice device, char *msg, size_t msg_size) {
  wgk_context *ctx;
  char *cerr = NULL;
  wgk_context_options o = {.wgpu_instance = instance, .wgpu_device = device};
  assert_int_equal(wgk_context_create(&o, &ctx, &cerr), WGK_OK);
  wgk_test_need_gpu_context(ctx);
  char path[4096];
  snprintf(path, sizeof path, "%s/kernels/ai.onnx.RotaryEmbedding", getenv("WGK_SOURCE_DIR"));
  wgk_kernel *k;
  assert_int_equal(wgk_kernel_load(ctx, path, NULL, &k), WGK_OK);

  static float x[NUMEL], cos_c[MAX_POS * HALF], sin_c[MAX_POS * HALF], y[NUMEL];
  int64_t pos[B * S];
  uint64_t seed = 0x1234567ULL;
  for (int i = 0; i < NUMEL; i++) x[i] = (float)uniform(&seed);
  for (int i = 0; i < MAX_POS * HALF; i++) {
    double a = uniform(&seed) * 3.0;
    cos_c[i] = (float)cos(a), sin_c[i] = (float)sin(a);
  }
  for (int i = 0; i < B * S; i++) pos[i] = (int64_t)((uniform(&seed) + 1.0) / 2.0 * MAX_POS);
  int64_t xs[4] = {B, N, S, H}, cs[2] = {MAX_POS, HALF}, ps[2] = {B, S};
  wgk_tensor *xt, *ct, *st, *pt, *yt;
  assert_int_equal(wgk_tensor_create_f16_from_f32(ctx, 4, xs, x, &xt), WGK_OK);
  assert_int_equal(wgk_tensor_create_f16_from_f32(ctx, 2, cs, cos_c, &ct), WGK_OK);
  assert_int_equal(wgk_tensor_create_f16_from_f32(ctx, 2, cs, sin_c, &st), WGK_OK);
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_INT64, 2, ps, pos, &pt), WGK_OK);
  for (int i = 0; i < NUMEL; i++) y[i] = NAN; /* poison */
  assert_int_equal(wgk_tensor_create_f16_from_f32(ctx, 4, xs, y, &yt), WGK_OK);
  wgk_call *call;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "X", xt), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "cos_cache", ct), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "sin_cache", st), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "position_ids", pt), WGK_OK);
  assert_int_equal(wgk_call_set_output(call, "Y", yt), WGK_OK);
  wgk_status s = wgk_call_run(call);
  snprintf(msg, msg_size, "%s", wgk_context_errmsg(ctx));
  assert_int_equal(wgk_tensor_read_f32(yt, y, NUMEL), WGK_OK);
  if (s != WGK_OK) {
    for (int i = 0; i < NUMEL; i++) assert_true(isnan(y[i])); /* a refused call wrote nothing */
  } else {
    int bad = 0;
    for (int b = 0; b < B * N; b++)
      for (int t = 0; t < S; t++)
        for (int i = 0; i < HALF; i++) {
          size_t at = ((size_t)b * S + t) * H;
          int64_t row = pos[(b / N) * S + t];
          double xr[2], c, sn;
          xr[0] = util_half_to_float(util_half_from_float(x[at + i]));
          xr[1] = util_half_to_float(util_half_from_float(x[at + i + HALF]));
          c = util_half_to_float(util_half_from_float(cos_c[row * HALF + i]));
          sn = util_half_to_float(util_half_from_float(sin_c[row * HALF + i]));
          double w0 = c * xr[0] - sn * xr[1], w1 = sn * xr[0] + c * xr[1];
          if (!(fabs(y[at + i] - w0) <= 4e-3 + 2e-3 * fabs(w0))) bad++;
          if (!(fabs(y[at + i + HALF] - w1) <= 4e-3 + 2e-3 * fabs(w1))) bad++;
        }
    assert_int_equal(bad, 0);
  }
  wgk_call_destroy(call);
  wgk_tensor_release(xt), wgk_tensor_release(ct), wgk_tensor_release(st), wgk_tensor_release(pt);
  wgk_tensor_release(yt);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
  return s;
}

/* A float16 call of tests/cli/scale, a package with no packed-float16 form: its status and message. */
static wgk_status scale_f16(WGPUInstance instance, WGPUDevice device, char *msg, size_t msg_size) {
  wgk_context *ctx;
  char *cerr = NULL;
  wgk_context_options o = {.wgpu_instance = instance, .wgpu_device = device};
  assert_int_equal(wgk_context_create(&o, &ctx, &cerr), WGK_OK);
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/cli/scale", getenv("WGK_SOURCE_DIR"));
  wgk_kernel *k;
  assert_int_equal(wgk_kernel_load(ctx, path, NULL, &k), WGK_OK);
  float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8];
  for (int i = 0; i < 8; i++) y[i] = NAN; /* poison */
  int64_t n = 8;
  wgk_tensor *xt, *yt;
  assert_int_equal(wgk_tensor_create_f16_from_f32(ctx, 1, &n, x, &xt), WGK_OK);
  assert_int_equal(wgk_tensor_create_f16_from_f32(ctx, 1, &n, y, &yt), WGK_OK);
  wgk_call *call;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "X", xt), WGK_OK);
  assert_int_equal(wgk_call_set_output(call, "Y", yt), WGK_OK);
  wgk_status s = wgk_call_run(call);
  snprintf(msg, msg_size, "%s", s == WGK_OK ? "" : wgk_context_errmsg(ctx));
  wgk_call_destroy(call);
  wgk_tensor_release(xt), wgk_tensor_release(yt);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
  return s;
}

static void test_device_without_f16_is_named(void **state) {
  WGPUInstance instance = gpu_instance_create();
  assert_non_null(instance);
  WGPUDevice without = make_device(instance, false);
  if (!without) {
    wgpuInstanceRelease(instance);
    wgk_skip("the adapter has no shader-f16: nothing a caller could have left out");
  }
  char msg[8192];
  /* RotaryEmbedding has a packed-float16 form: the caller's device without shader-f16 runs it, checked. */
  assert_int_equal(rope_f16(instance, without, msg, sizeof msg), WGK_OK);
  /* A package without one is refused, and the refusal names the caller's device, not the adapter. */
  assert_int_equal(scale_f16(instance, without, msg, sizeof msg), WGK_ERR_UNSUPPORTED);
  printf("# refusal: %s\n", msg);
  assert_non_null(strstr(msg, "float16 needs the shader-f16 feature: the adapter "));
  assert_non_null(strstr(msg, "has it, but your WGPUDevice (wgk_context_options.wgpu_device) was created without it"));
  assert_non_null(strstr(msg, "WGPUFeatureName_ShaderF16"));
  assert_null(strstr(msg, "does not have"));
  wgpuDeviceRelease(without);

  WGPUDevice with = make_device(instance, true);
  assert_int_equal(rope_f16(instance, with, msg, sizeof msg), WGK_OK);
  assert_int_equal(scale_f16(instance, with, msg, sizeof msg), WGK_OK);
  wgpuDeviceRelease(with);
  wgpuInstanceRelease(instance);
}

/* A caller's device destroyed under a context (issue 37, wrong accepts 2): wgk_call_run and wgk_context_wait
 * return an error naming the caller's device, not WGK_OK with nothing run; the output keeps its poison. Before,
 * both returned WGK_OK: the device's lost callback is the caller's, so wgk never heard of the loss. */
static void test_destroyed_caller_device_is_an_error(void **state) {
  (void)state;
  WGPUInstance instance = gpu_instance_create();
  assert_non_null(instance);
  WGPUDevice device = make_device(instance, true);
  if (!device) {
    wgpuInstanceRelease(instance);
    wgk_skip("the adapter has no shader-f16: make_device makes no device");
  }
  wgk_context *ctx;
  char *cerr = NULL;
  wgk_context_options o = {.wgpu_instance = instance, .wgpu_device = device};
  assert_int_equal(wgk_context_create(&o, &ctx, &cerr), WGK_OK);
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/cli/scale", getenv("WGK_SOURCE_DIR"));
  wgk_kernel *k;
  assert_int_equal(wgk_kernel_load(ctx, path, NULL, &k), WGK_OK);
  float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8];
  int64_t n = 8;
  wgk_tensor *xt, *yt;
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 1, &n, x, &xt), WGK_OK);
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 1, &n, NULL, &yt), WGK_OK);
  wgk_call *call;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "X", xt), WGK_OK);
  assert_int_equal(wgk_call_set_output(call, "Y", yt), WGK_OK);
  assert_int_equal(wgk_call_run(call), WGK_OK); /* the device works */
  assert_int_equal(wgk_context_wait(ctx), WGK_OK);
  wgpuDeviceDestroy(device);
  wgk_status s = wgk_call_run(call);
  printf("# run after destroy: %d %s\n", s, wgk_context_errmsg(ctx));
  assert_int_equal(s, WGK_ERR_DEVICE);
  assert_non_null(strstr(wgk_context_errmsg(ctx), "wgpu_device) was destroyed or lost"));
  s = wgk_context_wait(ctx);
  assert_int_equal(s, WGK_ERR_DEVICE);
  assert_non_null(strstr(wgk_context_errmsg(ctx), "destroyed or lost"));
  assert_int_not_equal(wgk_tensor_read(yt, y, sizeof y), WGK_OK);
  wgk_call_destroy(call);
  wgk_tensor_release(xt), wgk_tensor_release(yt);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
  wgpuDeviceRelease(device);
  wgpuInstanceRelease(instance);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_device_without_f16_is_named),
                                     cmocka_unit_test(test_destroyed_caller_device_is_an_error)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
