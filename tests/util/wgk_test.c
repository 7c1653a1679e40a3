/* Skip reporting and the real-adapter check shared by every cmocka test: see wgk_test.h. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "gpu/gpu.h"
#include "runtime/runtime_internal.h"
#include "util/env.h"
#include "util/rng.h"
#include "util/wgk_test.h"

#define WGK_TEST_SKIPPED 77

static int skips;
static char skip_reason[512]; /* set by wgk_test_skip_reason, consumed by the next skip() */

/* The linker sends the tests' calls of cmocka's _skip and _cmocka_run_group_tests here (-Wl,--wrap). */
void __real__skip(const char *file, const int line);
int __real__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests, const size_t num_tests,
                                   CMFixtureFunction group_setup, CMFixtureFunction group_teardown);
void __wrap__skip(const char *file, const int line);
int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests, const size_t num_tests,
                                   CMFixtureFunction group_setup, CMFixtureFunction group_teardown);

int wgk_test_tier_all(void) {
  const char *tier = getenv("WGK_TIER");
  return tier && strcmp(tier, "all") == 0;
}

void wgk_test_skip_reason(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(skip_reason, sizeof skip_reason, fmt, ap);
  va_end(ap);
}

void __wrap__skip(const char *file, const int line) {
  if (!skip_reason[0]) {
    printf("FAIL: %s:%d: skip() without a reason: call wgk_skip(\"why\", ...) (tests/util/wgk_test.h)\n", file, line);
    _fail(file, line);
  }
  char why[sizeof skip_reason];
  memcpy(why, skip_reason, sizeof why);
  skip_reason[0] = 0;
  if (wgk_test_tier_all()) {
    printf("FAIL: %s:%d: skipped (%s), but WGK_TIER=all runs everything: a skip fails this tier\n", file, line, why);
    _fail(file, line);
  }
  printf("SKIP: %s:%d: %s\n", file, line, why);
  skips++;
  __real__skip(file, line);
}

/* Under the sanitizers (tests/CMakeLists.txt defines WGK_TEST_KEEP_DRIVER): Mesa's lavapipe keeps 128 bytes from
 * vkCreateInstance in a global of its own. The Vulkan loader unloads the driver when Dawn destroys its instance;
 * LeakSanitizer then finds the bytes unreachable, with a stack ending in the unmapped driver (`<unknown module>`),
 * which no suppression can name. Opening the driver once more here, privately (RTLD_LOCAL: its symbols must not
 * stand in for Dawn's own copy of SPIRV-Tools), keeps it mapped to the end, so its global still holds the bytes. */
static void keep_driver_loaded(void) {
#ifdef WGK_TEST_KEEP_DRIVER
  if (!dlopen(WGK_TEST_KEEP_DRIVER, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE))
    printf("# could not keep %s loaded (%s): a leak report inside it may follow\n", WGK_TEST_KEEP_DRIVER, dlerror());
#endif
}

int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests, const size_t num_tests,
                                   CMFixtureFunction group_setup, CMFixtureFunction group_teardown) {
  keep_driver_loaded();
  int failed = __real__cmocka_run_group_tests(group_name, tests, num_tests, group_setup, group_teardown);
  if (failed) return 1; /* never 77 by accident */
  if (skips) {
    printf("# %d test(s) skipped: exit %d, reported as skipped\n", skips, WGK_TEST_SKIPPED);
    return WGK_TEST_SKIPPED;
  }
  return 0;
}

void wgk_test_need_gpu(const char *backend, const char *what) {
  if (backend && backend[0] && strcmp(backend, "null") != 0) {
    printf("# adapter: %s (backend %s)\n", what, backend);
    return;
  }
  const char *allow = getenv("WGK_ALLOW_NO_GPU");
  bool skip_it = allow && strcmp(allow, "1") == 0 && !wgk_test_tier_all();
  printf(
      "%s: no GPU adapter: Dawn found only its Null backend (%s), so this GPU test cannot run. Install a Vulkan "
      "driver (mesa-vulkan-drivers: lavapipe), or set WGK_ALLOW_NO_GPU=1 to report GPU tests as skipped (not "
      "under WGK_TIER=all).\n",
      skip_it ? "SKIP" : "FAIL", what && what[0] ? what : "no adapter description");
  fflush(stdout);
  exit(skip_it ? WGK_TEST_SKIPPED : 1);
}

void wgk_test_need_gpu_context(const wgk_context *ctx) {
  if (!ctx) {
    printf("FAIL: no context\n");
    exit(1);
  }
  wgk_test_need_gpu(gpu_device_desc(ctx->dev)->backend, wgk_context_adapter(ctx));
}

wgk_context *wgk_test_context(void) { return wgk_test_context_with(NULL); }

wgk_context *wgk_test_context_with(const wgk_context_options *opts) {
  wgk_context *ctx = NULL;
  char *msg = NULL;
  if (wgk_context_create(opts, &ctx, &msg) != WGK_OK) {
    print_message("context: %s\n", msg ? msg : "?");
    free(msg);
    fail_msg("no wgk context");
  }
  wgk_test_need_gpu_context(ctx);
  return ctx;
}

wgk_context *wgk_test_staged_context(void) {
  wgk_context_options o = {.staged_upload = WGK_ON, .defer_uploads = WGK_ON};
  return wgk_test_context_with(&o);
}

wgk_kernel *wgk_test_load(wgk_context *ctx, const char *pkg) {
  wgk_kernel *k = NULL;
  if (wgk_kernel_load(ctx, pkg, NULL, &k) != WGK_OK) fail_msg("load %s: %s", pkg, wgk_context_errmsg(ctx));
  return k;
}

wgk_tensor *wgk_test_floats(wgk_context *ctx, int64_t n, const float *data) {
  wgk_tensor *t = NULL;
  if (wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 1, &n, data, &t) != WGK_OK)
    fail_msg("tensor: %s", wgk_context_errmsg(ctx));
  return t;
}

int wgk_test_fixture_setup(void **state, const char *pkg) { return wgk_test_fixture_setup_with(state, pkg, NULL); }

int wgk_test_fixture_setup_with(void **state, const char *pkg, const wgk_context_options *opts) {
  static wgk_test_fixture f;
  f.ctx = wgk_test_context_with(opts);
  f.k = wgk_test_load(f.ctx, pkg);
  *state = &f;
  return 0;
}

int wgk_test_fixture_teardown(void **state) {
  wgk_test_fixture *f = *state;
  wgk_kernel_destroy(f->k);
  wgk_context_destroy(f->ctx);
  return 0;
}

uint64_t wgk_test_seed_value(uint64_t fallback) {
  const char *v = util_env("WGK_TEST_SEED");
  int64_t seed;
  if (!v) return fallback;
  if (!util_env_parse_int(v, 0, INT64_MAX, &seed)) {
    printf("FAIL: WGK_TEST_SEED=\"%s\": a seed is a whole decimal number (as the tests print it)\n", v);
    exit(1);
  }
  return (uint64_t)seed;
}

void wgk_test_seed(util_rng *rng, const char *test) {
  uint64_t seed = wgk_test_seed_value((uint64_t)time(NULL));
  printf("%s: seed %llu (WGK_TEST_SEED repeats it)\n", test, (unsigned long long)seed);
  util_rng_seed(rng, seed);
}

void wgk_test_run_two_pass(wgk_context *ctx, wgk_kernel *k, const char *test) {
  enum { N = 1000, NW = 7 };
  float x[N], w[NW], y[N];
  util_rng rng;
  wgk_test_seed(&rng, test);
  for (int i = 0; i < N; i++) x[i] = (float)util_rng_uniform(&rng, -4, 4);
  for (int i = 0; i < NW; i++) w[i] = (float)util_rng_uniform(&rng, -2, 2);
  for (int i = 0; i < N; i++) y[i] = 1e30f; /* poison: every element must be written */
  wgk_tensor *tx = wgk_test_floats(ctx, N, x), *tw = wgk_test_floats(ctx, NW, w);
  wgk_call *call = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "x", tx), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "w", tw), WGK_OK);
  if (wgk_call_run(call) != WGK_OK) fail_msg("run: %s", wgk_context_errmsg(ctx));
  assert_int_equal(wgk_tensor_read(wgk_call_output(call, "y"), y, sizeof y), WGK_OK);
  for (int i = 0; i < N; i++) {
    double want = ((double)x[i] + 1) * (double)w[i % NW], diff = (double)y[i] - want;
    double bound = 1e-6 * (1 + (want < 0 ? -want : want));
    if (!(diff <= bound && -diff <= bound)) fail_msg("y[%d] = %g, want %g", i, y[i], want);
  }
  wgk_call_destroy(call);
  wgk_tensor_release(tx);
  wgk_tensor_release(tw);
}
