/* What every cmocka test of wgk links (tests/util/wgk_test.c, added by wgk_add_test):
 *
 * - Skips are reported to ctest, with their reason. cmocka's skip() counts as a pass in its exit status;
 *   wgk_add_test links with -Wl,--wrap for _skip and _cmocka_run_group_tests, so a run with no failure and at
 *   least one skip exits 77 (SKIP_RETURN_CODE: ctest shows "Skipped"), and a failure still exits 1. Tests skip
 *   with wgk_skip("why", ...), which prints the reason; a bare skip() fails the test (no reason given). With
 *   WGK_TIER=all in the environment (`make test-all`, CI) a skip fails the test instead: that tier runs
 *   everything.
 * - A GPU test checks it got a real adapter. Dawn always offers its Null backend, so "a device was created"
 *   proves nothing: on a machine without a Vulkan driver the tests would run on Null and fail for the wrong
 *   reason, or pass without having run anything. With only the Null backend a GPU test fails with a message
 *   saying so, or, with WGK_ALLOW_NO_GPU=1 in the environment, exits 77 (skipped). Failing is the default so
 *   that CI cannot go green without having run the GPU tests (this machine must have lavapipe). */
#ifndef WGK_TESTS_UTIL_WGK_TEST_H
#define WGK_TESTS_UTIL_WGK_TEST_H

#include "wgk.h"

/* Skips the current cmocka test, printing "SKIP: <reason>" (printf format) first; see above for WGK_TIER=all. */
void wgk_test_skip_reason(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define wgk_skip(...)                  \
  do {                                 \
    wgk_test_skip_reason(__VA_ARGS__); \
    skip();                            \
  } while (0)

/* Whether WGK_TIER=all: every skip is a failure (tests/util/wgk_test.c, tests/util/run_test.py). */
int wgk_test_tier_all(void);

/* Exits 1 (or 77 with WGK_ALLOW_NO_GPU=1) if backend is Dawn's Null backend ("null") or unknown; prints the
 * adapter otherwise. what names the adapter in the message. */
void wgk_test_need_gpu(const char *backend, const char *what);

/* The same for the device under a context (wgk_context_create succeeds on the Null backend). */
void wgk_test_need_gpu_context(const wgk_context *ctx);

/* A context on the default adapter, which must be a real one (wgk_test_need_gpu_context); fails the test with
 * wgk's message when none can be made. */
wgk_context *wgk_test_context(void);
/* The same with options (NULL: the defaults). */
wgk_context *wgk_test_context_with(const wgk_context_options *opts);

/* wgk_test_context with staged uploads and deferred upload copies on (the options staged_upload and
 * defer_uploads), as on a GPU adapter, whatever the adapter. */
wgk_context *wgk_test_staged_context(void);

/* WGK_TEST_SEED, else fallback; a value that is not a whole decimal number fails the test program (exit 1)
 * rather than run with a seed nobody asked for. */
uint64_t wgk_test_seed_value(uint64_t fallback);

/* Seeds rng from WGK_TEST_SEED, else the clock, and prints the seed under the test's name (to repeat a run). */
struct util_rng;
void wgk_test_seed(struct util_rng *rng, const char *test);

/* wgk_kernel_load, failing the test with the context's message. */
wgk_kernel *wgk_test_load(wgk_context *ctx, const char *pkg);

/* A float32 vector of n elements on the GPU holding data (NULL: uninitialised), failing the test otherwise. */
wgk_tensor *wgk_test_floats(wgk_context *ctx, int64_t n, const float *data);

/* Runs k, the test package tests/runtime/test.TwoPass (y = (x + 1) * w[i % len(w)]), on fresh random x and w with y
 * poisoned, and checks every element against that formula in double precision; fails the test otherwise. */
void wgk_test_run_two_pass(wgk_context *ctx, wgk_kernel *k, const char *test);

/* The fixture of a test group that runs one package: a context and the kernel loaded from pkg. */
typedef struct wgk_test_fixture {
  wgk_context *ctx;
  wgk_kernel *k;
} wgk_test_fixture;

/* cmocka group setup/teardown around a static fixture; returns 0 (failing the test on error). */
int wgk_test_fixture_setup(void **state, const char *pkg);
int wgk_test_fixture_setup_with(void **state, const char *pkg, const wgk_context_options *opts);
int wgk_test_fixture_teardown(void **state);

#endif
