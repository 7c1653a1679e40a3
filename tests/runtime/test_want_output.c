/* Optional outputs through the C API (docs/loader-semantics.md rule 35), on tests/spec21run's
 * ai.onnx.LayerNormalization (Mean and InvStdDev optional, of type U: [float32], bound by no input):
 * - not asked: the call makes and returns Y only (wgk_call_output gives NULL for Mean and InvStdDev), variant plain;
 * - asked with wgk_call_want_output: both made and returned, in their contract shape, variant with_stats; values
 *   against a double reference on random inputs;
 * - asked into caller tensors (wgk_call_set_output) filled with poison: every element written;
 * - an ask withdrawn (want false, or set_output NULL): a poisoned caller tensor is not written at all, and the
 *   output is not returned;
 * - a bad ask (no such output, an input port, an invalid dtype) is refused by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "wgk.h"

enum { ROWS = 6, COLS = 40 };

static char pkg_path[4096];

typedef struct fixture {
  wgk_context *ctx;
  wgk_kernel *k;
  wgk_call *call;
  float x[ROWS * COLS], scale[COLS], bias[COLS];
  double y[ROWS * COLS], mean[ROWS], inv[ROWS];
} fixture;

static const float POISON = -7.25e29f;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f) return -1;
  char *msg = NULL;
  if (wgk_context_create(NULL, &f->ctx, &msg) != WGK_OK) {
    fprintf(stderr, "context: %s\n", msg ? msg : "?");
    free(msg);
    free(f);
    return -1;
  }
  if (wgk_kernel_load(f->ctx, pkg_path, NULL, &f->k) != WGK_OK) {
    fprintf(stderr, "load %s: %s\n", pkg_path, wgk_context_errmsg(f->ctx));
    wgk_context_destroy(f->ctx);
    free(f);
    return -1;
  }
  util_rng rng;
  util_rng_seed(&rng, 3535);
  for (int i = 0; i < ROWS * COLS; i++) f->x[i] = (float)util_rng_uniform(&rng, -3, 5);
  for (int c = 0; c < COLS; c++) {
    f->scale[c] = (float)util_rng_uniform(&rng, 0.5, 2);
    f->bias[c] = (float)util_rng_uniform(&rng, 1, 3);
  }
  for (int r = 0; r < ROWS; r++) {
    double s = 0, v = 0;
    for (int c = 0; c < COLS; c++) s += f->x[r * COLS + c];
    f->mean[r] = s / COLS;
    for (int c = 0; c < COLS; c++) v += (f->x[r * COLS + c] - f->mean[r]) * (f->x[r * COLS + c] - f->mean[r]);
    f->inv[r] = 1 / sqrt(v / COLS + 1e-5);
    for (int c = 0; c < COLS; c++)
      f->y[r * COLS + c] = (f->x[r * COLS + c] - f->mean[r]) * f->inv[r] * f->scale[c] + f->bias[c];
  }
  int64_t xs[2] = {ROWS, COLS}, cs = COLS;
  wgk_tensor *tx = NULL, *ts = NULL, *tb = NULL;
  if (wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, 2, xs, f->x, &tx) != WGK_OK ||
      wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, 1, &cs, f->scale, &ts) != WGK_OK ||
      wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, 1, &cs, f->bias, &tb) != WGK_OK ||
      wgk_call_create(f->k, &f->call) != WGK_OK || wgk_call_set_input(f->call, "X", tx) != WGK_OK ||
      wgk_call_set_input(f->call, "Scale", ts) != WGK_OK || wgk_call_set_input(f->call, "B", tb) != WGK_OK) {
    fprintf(stderr, "setup: %s\n", wgk_context_errmsg(f->ctx));
    return -1;
  }
  wgk_tensor_release(tx);
  wgk_tensor_release(ts);
  wgk_tensor_release(tb);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  wgk_call_destroy(f->call);
  wgk_kernel_destroy(f->k);
  wgk_context_destroy(f->ctx);
  free(f);
  return 0;
}

static void run(fixture *f) {
  if (wgk_call_run(f->call) != WGK_OK) fail_msg("run: %s", wgk_context_errmsg(f->ctx));
}

/* out (n floats) against want within rtol/atol, naming the first element off. */
static void expect_close(const char *what, const float *out, const double *want, int n, double rtol, double atol) {
  for (int i = 0; i < n; i++)
    if (!(fabs(out[i] - want[i]) <= atol + rtol * fabs(want[i])))
      fail_msg("%s[%d] = %.9g, want %.9g", what, i, (double)out[i], want[i]);
}

static void expect_output(fixture *f, const char *name, const double *want, int n, int64_t last_dim) {
  wgk_tensor *t = wgk_call_output(f->call, name);
  if (!t) fail_msg("%s: not returned", name);
  assert_int_equal(wgk_tensor_dtype(t), WGK_DTYPE_FLOAT32);
  assert_int_equal(wgk_tensor_rank(t), 2);
  assert_int_equal(wgk_tensor_shape(t)[0], ROWS);
  assert_int_equal(wgk_tensor_shape(t)[1], last_dim);
  float *got = malloc(sizeof(float) * (size_t)n);
  assert_non_null(got);
  for (int i = 0; i < n; i++) got[i] = POISON; /* every element must come from the read */
  assert_int_equal(wgk_tensor_read(t, got, sizeof(float) * (size_t)n), WGK_OK);
  expect_close(name, got, want, n, 1e-4, 1e-5);
  free(got);
}

/* A caller tensor of the statistics' shape [ROWS, 1], every element POISON. */
static wgk_tensor *poisoned(fixture *f) {
  float p[ROWS];
  for (int i = 0; i < ROWS; i++) p[i] = POISON;
  int64_t shape[2] = {ROWS, 1};
  wgk_tensor *t = NULL;
  assert_int_equal(wgk_tensor_create(f->ctx, WGK_DTYPE_FLOAT32, 2, shape, p, &t), WGK_OK);
  return t;
}

static void expect_poisoned(wgk_tensor *t, const char *what) {
  float got[ROWS];
  assert_int_equal(wgk_tensor_read(t, got, sizeof got), WGK_OK);
  for (int i = 0; i < ROWS; i++)
    if (memcmp(&got[i], &POISON, sizeof(float)) != 0)
      fail_msg("%s[%d] = %.9g: written by a call that did not ask for it", what, i, (double)got[i]);
}

static void not_asked_not_returned(void **state) {
  fixture *f = *state;
  run(f);
  assert_string_equal(wgk_call_variant(f->call), "plain");
  expect_output(f, "Y", f->y, ROWS * COLS, COLS);
  assert_null(wgk_call_output(f->call, "Mean"));
  assert_null(wgk_call_output(f->call, "InvStdDev"));
}

static void want_output_made_and_returned(void **state) {
  fixture *f = *state;
  assert_int_equal(wgk_call_want_output(f->call, "Mean", true, WGK_DTYPE_INVALID), WGK_OK);
  assert_int_equal(wgk_call_want_output(f->call, "InvStdDev", true, WGK_DTYPE_FLOAT32), WGK_OK);
  run(f);
  assert_string_equal(wgk_call_variant(f->call), "with_stats");
  expect_output(f, "Y", f->y, ROWS * COLS, COLS);
  expect_output(f, "Mean", f->mean, ROWS, 1);
  expect_output(f, "InvStdDev", f->inv, ROWS, 1);
  /* Withdrawn: the next run makes and returns neither again. */
  assert_int_equal(wgk_call_want_output(f->call, "Mean", false, WGK_DTYPE_INVALID), WGK_OK);
  assert_int_equal(wgk_call_want_output(f->call, "InvStdDev", false, WGK_DTYPE_INVALID), WGK_OK);
  run(f);
  assert_string_equal(wgk_call_variant(f->call), "plain");
  assert_null(wgk_call_output(f->call, "Mean"));
  assert_null(wgk_call_output(f->call, "InvStdDev"));
  expect_output(f, "Y", f->y, ROWS * COLS, COLS);
}

/* Asked into caller tensors: every poisoned element is written. Withdrawn: the same tensors keep their poison. */
static void caller_tensors_written_only_when_asked(void **state) {
  fixture *f = *state;
  wgk_tensor *mean = poisoned(f), *inv = poisoned(f);
  assert_int_equal(wgk_call_set_output(f->call, "Mean", mean), WGK_OK);
  assert_int_equal(wgk_call_set_output(f->call, "InvStdDev", inv), WGK_OK);
  run(f);
  assert_string_equal(wgk_call_variant(f->call), "with_stats");
  assert_ptr_equal(wgk_call_output(f->call, "Mean"), mean);
  expect_output(f, "Mean", f->mean, ROWS, 1);
  expect_output(f, "InvStdDev", f->inv, ROWS, 1);
  wgk_tensor_release(mean);
  wgk_tensor_release(inv);

  mean = poisoned(f), inv = poisoned(f);
  assert_int_equal(wgk_call_set_output(f->call, "Mean", mean), WGK_OK);
  assert_int_equal(wgk_call_set_output(f->call, "InvStdDev", inv), WGK_OK);
  assert_int_equal(wgk_call_set_output(f->call, "Mean", NULL), WGK_OK);                           /* withdrawn */
  assert_int_equal(wgk_call_want_output(f->call, "InvStdDev", false, WGK_DTYPE_INVALID), WGK_OK); /* withdrawn */
  run(f);
  assert_string_equal(wgk_call_variant(f->call), "plain");
  assert_null(wgk_call_output(f->call, "Mean"));
  assert_null(wgk_call_output(f->call, "InvStdDev"));
  expect_poisoned(mean, "Mean");
  expect_poisoned(inv, "InvStdDev");
  expect_output(f, "Y", f->y, ROWS * COLS, COLS);
  wgk_tensor_release(mean);
  wgk_tensor_release(inv);
}

/* Asking for one statistic alone: no variant writes only one, so the call is refused (nothing returned as Mean). */
static void one_statistic_alone_refused(void **state) {
  fixture *f = *state;
  assert_int_equal(wgk_call_want_output(f->call, "Mean", true, WGK_DTYPE_INVALID), WGK_OK);
  assert_int_not_equal(wgk_call_run(f->call), WGK_OK);
  assert_non_null(strstr(wgk_context_errmsg(f->ctx), "LayerNormalization"));
  assert_int_equal(wgk_call_want_output(f->call, "Mean", false, WGK_DTYPE_INVALID), WGK_OK);
}

static void bad_asks_refused(void **state) {
  fixture *f = *state;
  assert_int_not_equal(wgk_call_want_output(f->call, "Z", true, WGK_DTYPE_INVALID), WGK_OK);
  assert_non_null(strstr(wgk_context_errmsg(f->ctx), "Z"));
  assert_int_not_equal(wgk_call_want_output(f->call, "X", true, WGK_DTYPE_INVALID), WGK_OK); /* an input */
  assert_int_not_equal(wgk_call_want_output(f->call, NULL, true, WGK_DTYPE_INVALID), WGK_OK);
  assert_int_equal(wgk_call_want_output(f->call, "Mean", true, (wgk_dtype)999), WGK_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(wgk_context_errmsg(f->ctx), "invalid dtype 999"));
  /* A dtype the type constraint U does not allow: refused when the call runs, naming the port. */
  assert_int_equal(wgk_call_want_output(f->call, "Mean", true, WGK_DTYPE_FLOAT16), WGK_OK);
  assert_int_equal(wgk_call_want_output(f->call, "InvStdDev", true, WGK_DTYPE_INVALID), WGK_OK);
  assert_int_not_equal(wgk_call_run(f->call), WGK_OK);
  assert_non_null(strstr(wgk_context_errmsg(f->ctx), "Mean"));
  assert_int_equal(wgk_call_want_output(f->call, "Mean", false, WGK_DTYPE_INVALID), WGK_OK);
  assert_int_equal(wgk_call_want_output(f->call, "InvStdDev", false, WGK_DTYPE_INVALID), WGK_OK);
  run(f);
  assert_null(wgk_call_output(f->call, "Mean"));
}

int main(void) {
  const char *src = getenv("WGK_SOURCE_DIR");
  snprintf(pkg_path, sizeof pkg_path, "%s/tests/spec21run/ai.onnx.LayerNormalization", src ? src : ".");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(not_asked_not_returned, setup, teardown),
      cmocka_unit_test_setup_teardown(want_output_made_and_returned, setup, teardown),
      cmocka_unit_test_setup_teardown(caller_tensors_written_only_when_asked, setup, teardown),
      cmocka_unit_test_setup_teardown(one_statistic_alone_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(bad_asks_refused, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
