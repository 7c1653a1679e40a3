/*
 * rope_chain: two RotaryEmbedding calls chained on the GPU, checked against a double-precision reference.
 *
 *   rope_chain [PACKAGE]     PACKAGE: a package folder; default webgpu-kernels/ai.onnx.RotaryEmbedding
 *                            (found on the search path). The adapter is WGK_ADAPTER's, else the default.
 *
 * X (batch 2, 4 heads, 16 tokens, head 64) is rotated at position ids p1, and the first call's output
 * tensor is fed, without a read-back, to a second call at position ids p2. Only the final result is read.
 * It uses nothing but <wgk.h>.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <wgk.h>

enum { B = 2, N = 4, S = 16, H = 64, HALF = H / 2, MAX_POS = 128, NUMEL = B * N * S * H };

static wgk_context *ctx;

/* Stops the program with the library's message when a call fails. */
static void check(wgk_status st, const char *what) {
  if (st == WGK_OK) return;
  fprintf(stderr, "rope_chain: %s: %s: %s\n", what, wgk_status_str(st), ctx ? wgk_context_errmsg(ctx) : "");
  exit(1);
}

/* A small seeded generator (xorshift64*), uniform in [-1, 1). */
static double uniform(uint64_t *s) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) / 4503599627370496.0 - 1.0;
}

/* The reference: NeoX pairs (i, i + HALF) of each head rotated by the cache row of the token's position. */
static void rope_ref(double *y, const double *x, const float *cos_c, const float *sin_c, const int64_t *pos) {
  for (int b = 0; b < B; b++)
    for (int n = 0; n < N; n++)
      for (int s = 0; s < S; s++) {
        const double *xh = x + (((size_t)b * N + n) * S + s) * H;
        double *yh = y + (((size_t)b * N + n) * S + s) * H;
        int64_t row = pos[b * S + s];
        for (int i = 0; i < HALF; i++) {
          double c = cos_c[row * HALF + i], sn = sin_c[row * HALF + i], x1 = xh[i], x2 = xh[i + HALF];
          yh[i] = c * x1 - sn * x2;
          yh[i + HALF] = sn * x1 + c * x2;
        }
      }
}

/* One call of the kernel on x at the given position ids; returns the output tensor (retained). */
static wgk_tensor *rope(wgk_kernel *k, wgk_tensor *x, wgk_tensor *cos_t, wgk_tensor *sin_t, wgk_tensor *pos) {
  wgk_call *call;
  check(wgk_call_create(k, &call), "wgk_call_create");
  check(wgk_call_set_input(call, "x", x), "set x");
  check(wgk_call_set_input(call, "cos", cos_t), "set cos");
  check(wgk_call_set_input(call, "sin", sin_t), "set sin");
  check(wgk_call_set_input(call, "positionIds", pos), "set positionIds");
  check(wgk_call_set_attr_int(call, "interleaved", 0), "set interleaved");
  check(wgk_call_run(call), "wgk_call_run");  /* submitted; no wait */
  wgk_tensor *y = wgk_call_output(call, "y"); /* borrowed from the call: keep it */
  if (!y) check(WGK_ERR_NOT_FOUND, "output y");
  wgk_tensor_retain(y);
  wgk_call_destroy(call);
  return y;
}

int main(int argc, char **argv) {
  const char *package = argc > 1 ? argv[1] : "webgpu-kernels/ai.onnx.RotaryEmbedding";
  static float x[NUMEL], y[NUMEL], cos_c[MAX_POS * HALF], sin_c[MAX_POS * HALF];
  static double want[NUMEL], mid[NUMEL], xd[NUMEL];
  int64_t p1[B * S], p2[B * S];

  /* Host data: random X and position ids, and the usual RoPE tables cos/sin(p * 10000^(-i/HALF)). */
  uint64_t seed = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < NUMEL; i++) x[i] = (float)uniform(&seed);
  for (int p = 0; p < MAX_POS; p++)
    for (int i = 0; i < HALF; i++) {
      double angle = p * pow(10000.0, -(double)i / HALF);
      cos_c[p * HALF + i] = (float)cos(angle);
      sin_c[p * HALF + i] = (float)sin(angle);
    }
  for (int i = 0; i < B * S; i++) {
    p1[i] = (int64_t)((uniform(&seed) + 1.0) / 2.0 * MAX_POS);
    p2[i] = MAX_POS - 1 - p1[i];
  }

  char *err = NULL;
  if (wgk_context_create(NULL, &ctx, &err) != WGK_OK) {
    fprintf(stderr, "rope_chain: no device: %s\n", err ? err : "");
    free(err);
    return 1;
  }
  printf("adapter: %s\n", wgk_context_adapter(ctx));
  wgk_kernel *k;
  wgk_kernel_options ko = {.version = 1};
  check(wgk_kernel_load(ctx, package, &ko, &k), package);

  /* GPU tensors from the host data. */
  int64_t xs[4] = {B, N, S, H}, cs[2] = {MAX_POS, HALF}, ps[2] = {B, S};
  wgk_tensor *xt, *cos_t, *sin_t, *p1t, *p2t;
  check(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 4, xs, x, &xt), "x");
  check(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 2, cs, cos_c, &cos_t), "cos");
  check(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 2, cs, sin_c, &sin_t), "sin");
  check(wgk_tensor_create(ctx, WGK_DTYPE_INT64, 2, ps, p1, &p1t), "p1");
  check(wgk_tensor_create(ctx, WGK_DTYPE_INT64, 2, ps, p2, &p2t), "p2");

  /* The chain: the first output stays on the GPU and is the second call's input. */
  wgk_tensor *y1 = rope(k, xt, cos_t, sin_t, p1t);
  wgk_tensor *y2 = rope(k, y1, cos_t, sin_t, p2t);
  check(wgk_tensor_read(y2, y, sizeof y), "read y"); /* waits for both calls */

  /* The same chain in double on the host. */
  for (int i = 0; i < NUMEL; i++) xd[i] = x[i];
  rope_ref(mid, xd, cos_c, sin_c, p1);
  rope_ref(want, mid, cos_c, sin_c, p2);
  double checksum = 0, worst = 0;
  int bad = 0;
  for (int i = 0; i < NUMEL; i++) {
    double d = fabs((double)y[i] - want[i]);
    checksum += y[i];
    if (d > worst || isnan(d)) worst = d;
    if (!(d <= 1e-5 + 1e-5 * fabs(want[i]))) bad++;
  }
  printf("rope_chain: 2 chained RotaryEmbedding calls on [%d, %d, %d, %d] float32, checksum %.6f, max abs err %.3g\n",
         B, N, S, H, checksum, worst);

  wgk_tensor_release(y1);
  wgk_tensor_release(y2);
  wgk_tensor_release(xt);
  wgk_tensor_release(cos_t);
  wgk_tensor_release(sin_t);
  wgk_tensor_release(p1t);
  wgk_tensor_release(p2t);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
  if (bad) {
    printf("rope_chain: FAILED: %d of %d elements differ from the double reference\n", bad, NUMEL);
    return 1;
  }
  printf("rope_chain: verified (%d elements against the double reference)\n", NUMEL);
  return 0;
}
