/* The runtime's call contract (issue 10): a refused call changes nothing, not even the batch it was added to;
 * plan-cache entries in use survive eviction; calls and tensors keep their kernel and context alive; one context
 * serves several threads; every failure reports its own message. On lavapipe, with the test packages
 * test.TwoPass (two passes, only the second binds W) and test.Scratch. Meant to run under ASan as well. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime_internal.h"
#include "util/wgk_test.h"

static char twopass[4096], scratch[4096];

static void expect_values(wgk_tensor *t, const float *want, int64_t n, const char *what) {
  float got[64];
  assert_true(n <= 64);
  assert_int_equal(wgk_tensor_read(t, got, (size_t)n * sizeof *got), WGK_OK);
  for (int64_t i = 0; i < n; i++)
    if (got[i] != want[i]) fail_msg("%s: element %lld is %g, expected %g", what, (long long)i, got[i], want[i]);
}

enum { N = 10 };
static const float poison = -777.0f;

/* A good call (Y = (X + 1) * W), then a call of which only the second pass is refused, its output and its
 * inputs poisoned: after the submit, the good call's output holds its result and the refused call's buffers
 * hold their poison. bad_w: the refused call's W (bound by the second pass only). alias: W is the output too. */
static void refused_second_pass(wgk_tensor *(*bad_w)(wgk_context *), bool alias, bool batched) {
  wgk_context *ctx = wgk_test_context();
  wgk_kernel *k = wgk_test_load(ctx, twopass);
  float x[N], w[N], want[N], poisoned[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)i;
    w[i] = (float)(i % 3) + 2;
    want[i] = (x[i] + 1) * w[i];
    poisoned[i] = poison;
  }
  wgk_call *good = NULL, *bad = NULL;
  assert_int_equal(wgk_call_create(k, &good), WGK_OK);
  assert_int_equal(wgk_call_create(k, &bad), WGK_OK);
  wgk_tensor *gx = wgk_test_floats(ctx, N, x), *gw = wgk_test_floats(ctx, N, w),
             *gy = wgk_test_floats(ctx, N, poisoned);
  assert_int_equal(wgk_call_set_input(good, "x", gx), WGK_OK);
  assert_int_equal(wgk_call_set_input(good, "w", gw), WGK_OK);
  assert_int_equal(wgk_call_set_output(good, "y", gy), WGK_OK);
  wgk_tensor *bx = wgk_test_floats(ctx, N, poisoned), *by = wgk_test_floats(ctx, N, poisoned);
  wgk_tensor *bw = alias ? wgk_tensor_retain(by) : bad_w(ctx);
  assert_int_equal(wgk_call_set_input(bad, "x", bx), WGK_OK);
  assert_int_equal(wgk_call_set_input(bad, "w", bw), WGK_OK);
  assert_int_equal(wgk_call_set_output(bad, "y", by), WGK_OK);
  wgk_stats before, after;
  char msg[4096];
  if (batched) {
    wgk_batch *b = NULL;
    assert_int_equal(wgk_batch_create(ctx, &b), WGK_OK);
    assert_int_equal(wgk_batch_add(b, good), WGK_OK);
    wgk_context_stats(ctx, &before);
    wgk_status st = wgk_batch_add(b, bad);
    wgk_context_stats(ctx, &after);
    if (st == WGK_OK) fail_msg("the add of the call with a bad W was accepted");
    snprintf(msg, sizeof msg, "%s", wgk_context_errmsg(ctx));
    assert_int_equal(wgk_batch_submit(b), WGK_OK);
    wgk_batch_destroy(b);
  } else {
    assert_int_equal(wgk_call_run(good), WGK_OK);
    wgk_context_stats(ctx, &before);
    if (wgk_call_run(bad) == WGK_OK) fail_msg("the call with a bad W ran");
    snprintf(msg, sizeof msg, "%s", wgk_context_errmsg(ctx));
    wgk_context_stats(ctx, &after);
  }
  assert_int_equal(after.dispatches, before.dispatches);
  assert_int_equal(after.submissions, before.submissions);
  expect_values(gy, want, N, "the good call's Y");
  expect_values(by, poisoned, N, "the refused call's Y");
  expect_values(bx, poisoned, N, "the refused call's X");
  if (!alias) assert_null(wgk_call_output(bad, "y"));
  if (!strstr(msg, "second")) fail_msg("message '%s' does not name the pass 'second'", msg);
  wgk_tensor *tensors[] = {gx, gw, gy, bx, by, bw};
  for (size_t i = 0; i < sizeof tensors / sizeof *tensors; i++) wgk_tensor_release(tensors[i]);
  wgk_call_destroy(good);
  wgk_call_destroy(bad);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

/* 129 MiB of float32: over lavapipe's (and WebGPU's default) 128 MiB maxStorageBufferBindingSize. */
static wgk_tensor *over_binding_limit(wgk_context *ctx) {
  wgk_tensor *t = NULL;
  int64_t n = (int64_t)129 << 18;
  if (wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 1, &n, NULL, &t) != WGK_OK)
    fail_msg("big tensor: %s", wgk_context_errmsg(ctx));
  return t;
}

static void refused_add_over_limit_leaves_batch(void **state) {
  (void)state;
  refused_second_pass(over_binding_limit, false, true);
}
static void refused_add_aliased_leaves_batch(void **state) {
  (void)state;
  refused_second_pass(NULL, true, true);
}
static void refused_run_over_limit_changes_nothing(void **state) {
  (void)state;
  refused_second_pass(over_binding_limit, false, false);
}
static void refused_run_aliased_changes_nothing(void **state) {
  (void)state;
  refused_second_pass(NULL, true, false);
}

/* A cache of two plans, both used twice; a new shape the tuning cache knows: its first plan is the least used
 * when the tuned plan is made, and must not be evicted while plan_for_call still compares against it. */
static void plan_in_use_survives_eviction(void **state) {
  (void)state;
  wgk_context *ctx = wgk_test_context();
  wgk_kernel *k = wgk_test_load(ctx, scratch);
  k->max_plans = 2;
  json_decref(k->tuned);
  k->tuned =
      json_pack("[{s:s, s:s, s:{s:i}}]", "variant", "twice", "shape", "X:float32[7]", "tunables", "WORKGROUP_SIZE", 32);
  assert_non_null(k->tuned);
  float x[16];
  for (int i = 0; i < 16; i++) x[i] = (float)i - 3;
  int64_t sizes[] = {5, 6, 5, 6, 7, 7, 5};
  for (size_t r = 0; r < sizeof sizes / sizeof *sizes; r++) {
    wgk_call *c = NULL;
    assert_int_equal(wgk_call_create(k, &c), WGK_OK);
    wgk_tensor *t = wgk_test_floats(ctx, sizes[r], x);
    assert_int_equal(wgk_call_set_input(c, "x", t), WGK_OK);
    if (wgk_call_run(c) != WGK_OK) fail_msg("run %zu: %s", r, wgk_context_errmsg(ctx));
    float want[16];
    for (int i = 0; i < sizes[r]; i++) want[i] = 2 * x[i];
    expect_values(wgk_call_output(c, "y"), want, sizes[r], "Y");
    bool tuned = false;
    assert_non_null(rt_call_plan(c, &tuned));
    assert_int_equal(tuned, sizes[r] == 7);
    wgk_tensor_release(t);
    wgk_call_destroy(c);
  }
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

/* The call keeps its kernel, the tensors and calls their context: destroying them first is no memory error. */
static void calls_outlive_kernel_and_context(void **state) {
  (void)state;
  wgk_context *ctx = wgk_test_context();
  wgk_kernel *k = wgk_test_load(ctx, scratch);
  wgk_call *c = NULL;
  assert_int_equal(wgk_call_create(k, &c), WGK_OK);
  float x[N], want[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)i * 0.5f;
    want[i] = 2 * x[i];
  }
  wgk_tensor *t = wgk_test_floats(ctx, N, x);
  assert_int_equal(wgk_call_set_input(c, "x", t), WGK_OK);
  wgk_kernel_destroy(k);
  assert_int_equal(wgk_call_run(c), WGK_OK);
  expect_values(wgk_call_output(c, "y"), want, N, "Y after wgk_kernel_destroy");
  wgk_batch *b = NULL;
  assert_int_equal(wgk_batch_create(ctx, &b), WGK_OK);
  wgk_context_destroy(ctx);
  assert_int_equal(wgk_batch_add(b, c), WGK_OK);
  assert_int_equal(wgk_batch_submit(b), WGK_OK);
  wgk_tensor *y = wgk_tensor_retain(wgk_call_output(c, "y"));
  expect_values(y, want, N, "Y after wgk_context_destroy");
  wgk_call_destroy(c);
  wgk_batch_destroy(b);
  expect_values(y, want, N, "Y after its call");
  wgk_tensor_release(y);
  wgk_tensor_release(t);
}

typedef struct worker {
  wgk_context *ctx;
  wgk_kernel *k;
  int id;
  int failures;
  char msg[512];
} worker;

/* Distinct shapes and workgroup sizes: plans, pipelines, tensors and bind groups made on both threads at once. */
static void *hammer(void *arg) {
  worker *w = arg;
  float x[64], y[64];
  for (int i = 0; i < 64; i++) x[i] = (float)(i + w->id);
  for (int r = 0; r < 24; r++) {
    wgk_call *c = NULL;
    wgk_tensor *t = NULL;
    int64_t n = 8 + (r * 7 + w->id * 3) % 56;
    if (wgk_call_create(w->k, &c) != WGK_OK || wgk_tensor_create(w->ctx, WGK_DTYPE_FLOAT32, 1, &n, x, &t) != WGK_OK ||
        wgk_call_set_input(c, "x", t) != WGK_OK ||
        wgk_call_set_tunable(c, "WORKGROUP_SIZE", 16 << ((r + w->id) % 3)) != WGK_OK || wgk_call_run(c) != WGK_OK ||
        wgk_tensor_read(wgk_call_output(c, "y"), y, (size_t)n * sizeof *y) != WGK_OK) {
      w->failures++;
    } else {
      for (int64_t i = 0; i < n; i++)
        if (y[i] != 2 * x[i]) {
          w->failures++;
          snprintf(w->msg, sizeof w->msg, "round %d element %lld: %g", r, (long long)i, y[i]);
          break;
        }
    }
    wgk_tensor_release(t);
    wgk_call_destroy(c);
  }
  return NULL;
}

static void two_threads_share_a_context(void **state) {
  (void)state;
  wgk_context *ctx = wgk_test_context();
  wgk_kernel *k = wgk_test_load(ctx, scratch);
  worker w[2] = {{ctx, k, 0, 0, ""}, {ctx, k, 1, 0, ""}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, hammer, &w[i]), 0);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 2; i++)
    if (w[i].failures) fail_msg("thread %d: %d failures %s", i, w[i].failures, w[i].msg);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

static void expect_message(wgk_context *ctx, wgk_status st, const char *needle) {
  if (st == WGK_OK) fail_msg("expected a failure naming '%s'", needle);
  assert_int_equal(wgk_context_errcode(ctx), st);
  if (!strstr(wgk_context_errmsg(ctx), needle))
    fail_msg("message '%s' does not name '%s'", wgk_context_errmsg(ctx), needle);
}

/* Failure A, then failure B: B's message. A success after a failure: no message. */
static void every_failure_sets_its_message(void **state) {
  (void)state;
  wgk_context *ctx = wgk_test_context(), *other = wgk_test_context();
  wgk_kernel *k = wgk_test_load(ctx, scratch), *ko = wgk_test_load(other, scratch);
  wgk_call *c = NULL, *co = NULL;
  assert_int_equal(wgk_call_create(k, &c), WGK_OK);
  assert_int_equal(wgk_call_create(ko, &co), WGK_OK);
  int64_t n = 4;
  int32_t ints[4] = {1, 2, 3, 4};
  wgk_tensor *ti = NULL;
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_INT32, 1, &n, ints, &ti), WGK_OK);
  wgk_batch *b = NULL;
  assert_int_equal(wgk_batch_create(ctx, &b), WGK_OK);

  expect_message(ctx, wgk_call_set_input(c, "nope", ti), "nope");
  expect_message(ctx, wgk_call_set_input(c, NULL, ti), "NULL");
  expect_message(ctx, wgk_call_set_attr_int(c, "big_one", (int64_t)1 << 60), "big_one");
  expect_message(ctx, wgk_call_set_attr_int(c, NULL, 1), "NULL");
  expect_message(ctx, wgk_call_set_attr_json(c, "jattr", "{bad"), "jattr");
  expect_message(ctx, wgk_call_set_attr_string(c, "sattr", NULL), "sattr");
  expect_message(ctx, wgk_call_set_tunable(c, "WORKGROUP_SIZE", (int64_t)1 << 60), "WORKGROUP_SIZE");
  float f[4];
  expect_message(ctx, wgk_tensor_read_f32(ti, f, 4), "int32");
  expect_message(ctx, wgk_tensor_read(ti, f, 3), "3 bytes");
  expect_message(ctx, wgk_tensor_write(ti, NULL, 16), "data");
  expect_message(ctx, wgk_batch_add(b, co), "another context");
  expect_message(ctx, wgk_batch_add(b, NULL), "NULL");
  expect_message(ctx, wgk_call_set_output(c, "nix", NULL), "nix");
  expect_message(ctx, wgk_call_run(c), "X"); /* no input: the contract names the port */
  expect_message(ctx, wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 9, (int64_t[9]){1}, NULL, &(wgk_tensor *){NULL}),
                 "rank 9");
  expect_message(ctx, wgk_kernel_load(ctx, NULL, NULL, &(wgk_kernel *){NULL}), "NULL");
  expect_message(ctx, wgk_call_gpu_time(c, NULL), "ns");
  expect_message(ctx, wgk_call_set_attr_int(c, "fine", 1), "fine"); /* not an attribute of the contract */
  /* a success clears the message */
  assert_int_equal(wgk_call_set_tunable(c, "WORKGROUP_SIZE", 64), WGK_OK);
  assert_int_equal(wgk_context_errcode(ctx), WGK_OK);
  assert_string_equal(wgk_context_errmsg(ctx), "");
  wgk_batch_destroy(b);
  wgk_tensor_release(ti);
  wgk_call_destroy(c);
  wgk_call_destroy(co);
  wgk_kernel_destroy(k);
  wgk_kernel_destroy(ko);
  wgk_context_destroy(ctx);
  wgk_context_destroy(other);
}

int main(int argc, char **argv) {
  if (argc > 1) cmocka_set_test_filter(argv[1]); /* one test by name */
  const char *src = getenv("WGK_SOURCE_DIR");
  snprintf(twopass, sizeof twopass, "%s/tests/runtime/test.TwoPass", src ? src : ".");
  snprintf(scratch, sizeof scratch, "%s/tests/runtime/test.Scratch", src ? src : ".");
  setenv("WGK_TUNING_CACHE", "/nonexistent/wgk-test-contract/tuning.json", 1); /* no developer's tuning */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(refused_add_aliased_leaves_batch),    cmocka_unit_test(refused_add_over_limit_leaves_batch),
      cmocka_unit_test(refused_run_aliased_changes_nothing), cmocka_unit_test(refused_run_over_limit_changes_nothing),
      cmocka_unit_test(plan_in_use_survives_eviction),       cmocka_unit_test(calls_outlive_kernel_and_context),
      cmocka_unit_test(two_threads_share_a_context),         cmocka_unit_test(every_failure_sets_its_message),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
