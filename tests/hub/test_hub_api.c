/* The C API loads by repo id from the Hub: run under tests/hub/standin.py, which serves
 * webgpu-kernels/ai.onnx.RotaryEmbedding (branch v1) on 127.0.0.1 and sets HF_ENDPOINT and a fresh HF_HOME.
 * The loaded kernel runs a call whose output (poisoned first) matches a double reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/wgk_test.h"
#include "wgk.h"

#define REPO "webgpu-kernels/ai.onnx.RotaryEmbedding"

static wgk_context *ctx;

static int setup(void **state) {
  (void)state;
  ctx = wgk_test_context(); /* a real adapter, or the test fails: never skipped */
  return 0;
}

static int teardown(void **state) {
  (void)state;
  wgk_context_destroy(ctx);
  return 0;
}

static void loads_by_repo_id_and_runs(void **state) {
  (void)state;
  assert_non_null(getenv("HF_ENDPOINT")); /* started by standin.py */
  assert_non_null(strstr(getenv("HF_ENDPOINT"), "127.0.0.1"));
  wgk_kernel *k = NULL;
  wgk_kernel_options o = {.version = 1, .strict = true};
  if (wgk_kernel_load(ctx, REPO, &o, &k) != WGK_OK) fail_msg("%s", wgk_context_errmsg(ctx));
  assert_string_equal(wgk_kernel_op_id(k), "ai.onnx.RotaryEmbedding");
  /* It came through the cache: the snapshot's metadata.json is there. */
  char path[2048];
  snprintf(path, sizeof path, "%s/hub/kernels--webgpu-kernels--ai.onnx.RotaryEmbedding/refs/v1", getenv("HF_HOME"));
  struct stat st;
  assert_int_equal(stat(path, &st), 0);

  enum { B = 2, N = 3, S = 4, H = 8, P = 16, NX = B * N * S * H };
  int64_t xs[4] = {B, N, S, H}, cs[2] = {P, H / 2}, ps[2] = {B, S};
  float x[NX], c[P * H / 2], s[P * H / 2], y[NX];
  int64_t pos[B * S];
  srand(12);
  for (int i = 0; i < NX; i++) x[i] = (float)rand() / RAND_MAX * 4 - 2;
  for (int i = 0; i < P * H / 2; i++) c[i] = (float)rand() / RAND_MAX * 2 - 1, s[i] = (float)rand() / RAND_MAX * 2 - 1;
  for (int i = 0; i < B * S; i++) pos[i] = rand() % P;
  for (int i = 0; i < NX; i++) y[i] = NAN;
  wgk_tensor *tx, *tc, *ts, *tp, *ty;
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 4, xs, x, &tx), WGK_OK);
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 2, cs, c, &tc), WGK_OK);
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 2, cs, s, &ts), WGK_OK);
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_INT64, 2, ps, pos, &tp), WGK_OK);
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 4, xs, y, &ty), WGK_OK); /* poisoned output */
  wgk_call *call;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  wgk_call_set_input(call, "x", tx);
  wgk_call_set_input(call, "cos", tc);
  wgk_call_set_input(call, "sin", ts);
  wgk_call_set_input(call, "positionIds", tp);
  assert_int_equal(wgk_call_set_output(call, "y", ty), WGK_OK);
  if (wgk_call_run(call) != WGK_OK) fail_msg("%s", wgk_context_errmsg(ctx));
  assert_int_equal(wgk_tensor_read(ty, y, sizeof y), WGK_OK);
  /* Double reference, non-interleaved: pairs (i, i + H/2) rotated by the cache row of the position id. */
  for (int b = 0; b < B; b++)
    for (int n = 0; n < N; n++)
      for (int t = 0; t < S; t++)
        for (int i = 0; i < H / 2; i++) {
          size_t base = (((size_t)b * N + n) * S + t) * H;
          int64_t p = pos[b * S + t];
          double cv = c[p * H / 2 + i], sv = s[p * H / 2 + i], x1 = x[base + i], x2 = x[base + i + H / 2];
          double r1 = x1 * cv - x2 * sv, r2 = x2 * cv + x1 * sv;
          if (!(fabs(y[base + i] - r1) <= 1e-5 + 1e-5 * fabs(r1)) ||
              !(fabs(y[base + i + H / 2] - r2) <= 1e-5 + 1e-5 * fabs(r2)))
            fail_msg("y at %zu: %g %g, reference %g %g", base + i, y[base + i], y[base + i + H / 2], r1, r2);
        }
  wgk_call_destroy(call);
  wgk_tensor_release(tx), wgk_tensor_release(tc), wgk_tensor_release(ts), wgk_tensor_release(tp),
      wgk_tensor_release(ty);
  wgk_kernel_destroy(k);

  /* A second load by the commit the branch resolved to: from the cache. */
  const char *commits = getenv("WGK_STANDIN_COMMITS");
  assert_non_null(commits);
  char commit[41];
  snprintf(commit, sizeof commit, "%s", commits);
  wgk_kernel_options pinned = {.revision = commit};
  setenv("HF_HUB_OFFLINE", "1", 1);
  if (wgk_kernel_load(ctx, REPO, &pinned, &k) != WGK_OK) fail_msg("%s", wgk_context_errmsg(ctx));
  wgk_kernel_destroy(k);
  /* One way to name a kernel: the same loads as name@<commit>, a bare op id @vN, with no options. */
  char named[160];
  snprintf(named, sizeof named, "%s@%s", REPO, commit);
  if (wgk_kernel_load(ctx, named, NULL, &k) != WGK_OK) fail_msg("%s: %s", named, wgk_context_errmsg(ctx));
  wgk_kernel_destroy(k);
  if (wgk_kernel_load(ctx, "ai.onnx.RotaryEmbedding@v1", NULL, &k) != WGK_OK)
    fail_msg("ai.onnx.RotaryEmbedding@v1: %s", wgk_context_errmsg(ctx));
  wgk_kernel_destroy(k);
  /* A suffix that disagrees with the version option is refused, naming the parameter (not a CLI flag only). */
  wgk_kernel_options v2 = {.version = 2};
  assert_int_equal(wgk_kernel_load(ctx, "ai.onnx.RotaryEmbedding@v1", &v2, &k), WGK_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(wgk_context_errmsg(ctx), "version parameter"));
  unsetenv("HF_HUB_OFFLINE");
}

static void refusals(void **state) {
  (void)state;
  wgk_kernel *k = (wgk_kernel *)1;
  /* No version: the newest on this machine (v1, cached by the test above), offline without a request. */
  setenv("HF_HUB_OFFLINE", "1", 1);
  if (wgk_kernel_load(ctx, REPO, NULL, &k) != WGK_OK) fail_msg("%s", wgk_context_errmsg(ctx));
  wgk_kernel_destroy(k);
  unsetenv("HF_HUB_OFFLINE");
  /* Nothing on this machine: not fetched without a version; the message names the API parameter. */
  k = (wgk_kernel *)1;
  assert_int_equal(wgk_kernel_load(ctx, "webgpu-kernels/ai.onnx.Absent", NULL, &k), WGK_ERR_NOT_FOUND);
  assert_null(k);
  assert_non_null(strstr(wgk_context_errmsg(ctx), "no version of it is on this machine"));
  assert_non_null(strstr(wgk_context_errmsg(ctx), "the version parameter"));
  wgk_kernel_options v1 = {.version = 1};
  assert_int_equal(wgk_kernel_load(ctx, "someone/ai.onnx.RotaryEmbedding", &v1, &k), WGK_ERR_UNSUPPORTED);
  assert_non_null(strstr(wgk_context_errmsg(ctx), "trust_remote_code"));
  wgk_kernel_options trusted = {.version = 1, .trust_remote_code = true};
  /* Trusted now, but the stand-in has no such repo: a 404 naming it. */
  assert_int_equal(wgk_kernel_load(ctx, "someone/ai.onnx.RotaryEmbedding", &trusted, &k), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(wgk_context_errmsg(ctx), "404: no repo someone/ai.onnx.RotaryEmbedding"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(loads_by_repo_id_and_runs),
      cmocka_unit_test(refusals),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
