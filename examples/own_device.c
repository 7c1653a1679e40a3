/*
 * own_device: bring your own WebGPU device. The program creates the instance, adapter, device and buffers
 * itself through Dawn, hands the device to wgk, wraps its buffers as tensors, runs one RotaryEmbedding call
 * into a buffer of its own, reads that buffer back itself and checks it against a double-precision reference.
 *
 *   own_device [PACKAGE]     PACKAGE: a package folder; default webgpu-kernels/ai.onnx.RotaryEmbedding
 *                            (found on the search path). Exit 77 when Dawn finds no adapter.
 *
 * Build against an install:  cc own_device.c $(pkg-config --cflags --libs wgk) -lm
 * <wgk/webgpu_dawn.h> declares the WebGPU API of the Dawn build wgk links (installed with wgk, README "Bring your
 * own device"); include/wgk.h lists the features and limits to request (section "Bring your own device").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wgk.h>
#include <wgk/webgpu_dawn.h>

enum { B = 1, N = 3, S = 8, H = 32, HALF = H / 2, MAX_POS = 64, NUMEL = B * N * S * H };

static WGPUStringView sv(const char *s) { return (WGPUStringView){s, WGPU_STRLEN}; }

/* ---- the caller's side: plain WebGPU --------------------------------------------------------- */

typedef struct request {
  int done;
  uint32_t status;
  void *object; /* the adapter or device */
} request;

static void on_adapter(uint32_t status, WGPUAdapter adapter, WGPUStringView message, void *u1, void *u2) {
  request *r = u1;
  *r = (request){1, status, adapter};
}

static void on_device(uint32_t status, WGPUDevice device, WGPUStringView message, void *u1, void *u2) {
  request *r = u1;
  *r = (request){1, status, device};
}

static void on_mapped(uint32_t status, WGPUStringView message, void *u1, void *u2) {
  request *r = u1;
  *r = (request){1, status, NULL};
}

static void on_error(const WGPUDevice *device, WGPUErrorType type, WGPUStringView message, void *u1, void *u2) {
  fprintf(stderr, "own_device: WebGPU error %d: %.*s\n", (int)type,
          (int)(message.length == WGPU_STRLEN ? strlen(message.data) : message.length),
          message.data ? message.data : "");
}

/* Waits for one future of an instance created with timed waits. */
static int wait_for(WGPUInstance instance, WGPUFuture future, const request *r) {
  WGPUFutureWaitInfo info = {future, 0};
  WGPUWaitStatus s = wgpuInstanceWaitAny(instance, 1, &info, 60ull * 1000 * 1000 * 1000);
  return s == WGPUWaitStatus_Success && r->done && r->status == 1;
}

/* The device wgk would make itself: every feature it can use that the adapter has, and the adapter's limits. */
static WGPUDevice make_device(WGPUInstance instance, WGPUAdapter adapter) {
  static const WGPUFeatureName wanted[] = {WGPUFeatureName_ShaderF16, WGPUFeatureName_Subgroups,
                                           WGPUFeatureName_TimestampQuery};
  WGPUFeatureName features[3];
  size_t n = 0;
  for (size_t i = 0; i < sizeof wanted / sizeof *wanted; i++)
    if (wgpuAdapterHasFeature(adapter, wanted[i])) features[n++] = wanted[i];
  WGPULimits limits;
  memset(&limits, 0xFF, sizeof limits); /* every limit "undefined" until the adapter fills it */
  limits.nextInChain = NULL;
  if (wgpuAdapterGetLimits(adapter, &limits) != WGPUStatus_Success) return NULL;
  WGPUDeviceDescriptor desc = {
      .label = sv("own_device"),
      .requiredFeatureCount = n,
      .requiredFeatures = features,
      .requiredLimits = &limits,
      .defaultQueue = {NULL, sv("own_device queue")},
      .uncapturedErrorCallbackInfo = {NULL, on_error, NULL, NULL},
  };
  request r = {0};
  WGPUFuture f = wgpuAdapterRequestDevice(
      adapter, &desc, (WGPURequestDeviceCallbackInfo){NULL, WGPUCallbackMode_WaitAnyOnly, on_device, &r, NULL});
  return wait_for(instance, f, &r) ? r.object : NULL;
}

/* A storage buffer of the caller's, filled from host memory. wgk needs Storage; CopySrc lets it read the buffer
 * back (data checks, wgk_tensor_read), CopyDst lets it write (wgk_tensor_write). */
static WGPUBuffer make_buffer(WGPUDevice device, WGPUQueue queue, const void *data, size_t bytes) {
  WGPUBufferDescriptor desc = {
      .label = sv("own_device buffer"),
      .usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst,
      .size = (bytes + 3) / 4 * 4,
  };
  WGPUBuffer buf = wgpuDeviceCreateBuffer(device, &desc);
  if (buf && data) wgpuQueueWriteBuffer(queue, buf, 0, data, bytes);
  return buf;
}

/* Copies a buffer into a mappable one and reads it: the caller's own read-back, after wgk's work on the queue. */
static int read_buffer(WGPUInstance instance, WGPUDevice device, WGPUQueue queue, WGPUBuffer src, void *out,
                       size_t bytes) {
  WGPUBufferDescriptor desc = {
      .label = sv("own_device readback"), .usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, .size = bytes};
  WGPUBuffer staging = wgpuDeviceCreateBuffer(device, &desc);
  WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(device, NULL);
  wgpuCommandEncoderCopyBufferToBuffer(enc, src, 0, staging, 0, bytes);
  WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, NULL);
  wgpuQueueSubmit(queue, 1, &cmd);
  wgpuCommandBufferRelease(cmd);
  wgpuCommandEncoderRelease(enc);
  request r = {0};
  WGPUFuture f =
      wgpuBufferMapAsync(staging, WGPUMapMode_Read, 0, bytes,
                         (WGPUBufferMapCallbackInfo){NULL, WGPUCallbackMode_WaitAnyOnly, on_mapped, &r, NULL});
  int ok = wait_for(instance, f, &r);
  const void *mapped = ok ? wgpuBufferGetConstMappedRange(staging, 0, bytes) : NULL;
  if (mapped) memcpy(out, mapped, bytes);
  if (ok) wgpuBufferUnmap(staging);
  wgpuBufferRelease(staging);
  return mapped != NULL;
}

/* ---- the reference ---------------------------------------------------------------------------- */

static double uniform(uint64_t *s) { /* xorshift64*, uniform in [-1, 1) */
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) / 4503599627370496.0 - 1.0;
}

/* Interleaved RoPE: pairs (2i, 2i + 1) of each head rotated by the cache row of the token's position. */
static void rope_ref(double *y, const float *x, const float *cos_c, const float *sin_c, const int64_t *pos) {
  for (int b = 0; b < B; b++)
    for (int n = 0; n < N; n++)
      for (int s = 0; s < S; s++) {
        size_t at = (((size_t)b * N + n) * S + s) * H;
        int64_t row = pos[b * S + s];
        for (int i = 0; i < HALF; i++) {
          double c = cos_c[row * HALF + i], sn = sin_c[row * HALF + i], x1 = x[at + 2 * i], x2 = x[at + 2 * i + 1];
          y[at + 2 * i] = c * x1 - sn * x2;
          y[at + 2 * i + 1] = sn * x1 + c * x2;
        }
      }
}

static wgk_context *ctx;

static void check(wgk_status st, const char *what) {
  if (st == WGK_OK) return;
  fprintf(stderr, "own_device: %s: %s: %s\n", what, wgk_status_str(st), ctx ? wgk_context_errmsg(ctx) : "");
  exit(1);
}

int main(int argc, char **argv) {
  const char *package = argc > 1 ? argv[1] : "webgpu-kernels/ai.onnx.RotaryEmbedding";
  static float x[NUMEL], y[NUMEL], cos_c[MAX_POS * HALF], sin_c[MAX_POS * HALF];
  static double want[NUMEL];
  int64_t pos[B * S];
  uint64_t seed = 0x243F6A8885A308D3ULL;
  for (int i = 0; i < NUMEL; i++) x[i] = (float)uniform(&seed);
  for (int p = 0; p < MAX_POS; p++)
    for (int i = 0; i < HALF; i++) {
      double angle = p * pow(10000.0, -(double)i / HALF);
      cos_c[p * HALF + i] = (float)cos(angle);
      sin_c[p * HALF + i] = (float)sin(angle);
    }
  for (int i = 0; i < B * S; i++) pos[i] = (int64_t)((uniform(&seed) + 1.0) / 2.0 * MAX_POS);

  /* 1. Our instance (timed waits: wgk waits on it without spinning), adapter and device. */
  WGPUInstanceDescriptor idesc = {NULL, {NULL, 1, 64}};
  WGPUInstance instance = wgpuCreateInstance(&idesc);
  if (!instance) return fprintf(stderr, "own_device: Dawn made no instance\n"), 1;
  request ra = {0};
  WGPURequestAdapterOptions aopts = {.featureLevel = WGPUFeatureLevel_Core,
                                     .powerPreference = WGPUPowerPreference_HighPerformance};
  WGPUFuture fa = wgpuInstanceRequestAdapter(
      instance, &aopts, (WGPURequestAdapterCallbackInfo){NULL, WGPUCallbackMode_WaitAnyOnly, on_adapter, &ra, NULL});
  WGPUAdapter adapter = wait_for(instance, fa, &ra) ? ra.object : NULL;
  if (!adapter) {
    printf("own_device: SKIP: Dawn found no adapter (install a Vulkan driver, e.g. mesa-vulkan-drivers)\n");
    wgpuInstanceRelease(instance);
    return 77;
  }
  WGPUDevice device = make_device(instance, adapter);
  if (!device) return fprintf(stderr, "own_device: the device request failed\n"), 1;
  WGPUQueue queue = wgpuDeviceGetQueue(device);

  /* 2. Our buffers, in wgk's storage layout: float32 as is, int64 as two 32-bit words (little-endian). */
  WGPUBuffer xb = make_buffer(device, queue, x, sizeof x), cb = make_buffer(device, queue, cos_c, sizeof cos_c);
  WGPUBuffer sb = make_buffer(device, queue, sin_c, sizeof sin_c), pb = make_buffer(device, queue, pos, sizeof pos);
  memset(y, 0xFF, sizeof y); /* poisoned (NaN): an element the kernel misses shows */
  WGPUBuffer yb = make_buffer(device, queue, y, sizeof y);

  /* 3. wgk on our device: wrap the buffers, run the call into our output buffer. */
  wgk_context_options copts = {.wgpu_instance = instance, .wgpu_device = device};
  char *err = NULL;
  if (wgk_context_create(&copts, &ctx, &err) != WGK_OK) {
    fprintf(stderr, "own_device: wgk_context_create: %s\n", err ? err : "");
    free(err);
    return 1;
  }
  printf("adapter: %s\n", wgk_context_adapter(ctx));
  wgk_kernel *k;
  check(wgk_kernel_load(ctx, package, &(wgk_kernel_options){.version = 1}, &k), package);
  int64_t xs[4] = {B, N, S, H}, cs[2] = {MAX_POS, HALF}, ps[2] = {B, S};
  wgk_tensor *xt, *ct, *st, *pt, *yt;
  check(wgk_tensor_wrap(ctx, WGK_DTYPE_FLOAT32, 4, xs, xb, &xt), "wrap x");
  check(wgk_tensor_wrap(ctx, WGK_DTYPE_FLOAT32, 2, cs, cb, &ct), "wrap cos");
  check(wgk_tensor_wrap(ctx, WGK_DTYPE_FLOAT32, 2, cs, sb, &st), "wrap sin");
  check(wgk_tensor_wrap(ctx, WGK_DTYPE_INT64, 2, ps, pb, &pt), "wrap position ids");
  check(wgk_tensor_wrap(ctx, WGK_DTYPE_FLOAT32, 4, xs, yb, &yt), "wrap y");
  wgk_call *call;
  check(wgk_call_create(k, &call), "wgk_call_create");
  check(wgk_call_set_input(call, "X", xt), "set X");
  check(wgk_call_set_input(call, "cos_cache", ct), "set cos_cache");
  check(wgk_call_set_input(call, "sin_cache", st), "set sin_cache");
  check(wgk_call_set_input(call, "position_ids", pt), "set position_ids");
  check(wgk_call_set_output(call, "Y", yt), "set Y (our buffer)");
  check(wgk_call_set_attr_int(call, "interleaved", 1), "set interleaved");
  check(wgk_call_run(call), "wgk_call_run");
  check(wgk_context_wait(ctx), "wgk_context_wait");

  /* 4. Our own read-back of our buffer, against the double reference. */
  if (!read_buffer(instance, device, queue, yb, y, sizeof y))
    return fprintf(stderr, "own_device: read-back failed\n"), 1;
  rope_ref(want, x, cos_c, sin_c, pos);
  double worst = 0;
  int bad = 0;
  for (int i = 0; i < NUMEL; i++) {
    double d = fabs((double)y[i] - want[i]);
    if (d > worst || isnan(d)) worst = d;
    if (!(d <= 1e-5 + 1e-5 * fabs(want[i]))) bad++;
  }
  printf(
      "own_device: RotaryEmbedding (interleaved) on [%d, %d, %d, %d] float32 in the caller's buffers, variant %s, "
      "max abs err %.3g\n",
      B, N, S, H, wgk_call_variant(call), worst);

  wgk_call_destroy(call);
  wgk_tensor_release(xt), wgk_tensor_release(ct), wgk_tensor_release(st), wgk_tensor_release(pt);
  wgk_tensor_release(yt);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
  WGPUBuffer bufs[] = {xb, cb, sb, pb, yb};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) wgpuBufferRelease(bufs[i]);
  wgpuQueueRelease(queue);
  wgpuDeviceRelease(device); /* wgk never destroys a caller's device: it is ours to release */
  wgpuAdapterRelease(adapter);
  wgpuInstanceRelease(instance);
  if (bad) {
    printf("own_device: FAILED: %d of %d elements differ from the double reference\n", bad, NUMEL);
    return 1;
  }
  printf("own_device: verified (%d elements against the double reference)\n", NUMEL);
  return 0;
}
