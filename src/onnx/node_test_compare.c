/* allclose for node tests: the worst element is the one exceeding its tolerance by the most. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "onnx/node_test_internal.h"

static void defaults(wgk_dtype dt, double *rtol, double *atol) {
  double r = 0, a = 0; /* integers and bool: exact */
  if (dt == WGK_DTYPE_FLOAT32) r = 1e-3, a = 1e-7;
  if (dt == WGK_DTYPE_FLOAT16) r = 1e-2, a = 1e-3;
  if (*rtol < 0) *rtol = r;
  if (*atol < 0) *atol = a;
}

static bool shapes_equal(const util_host_tensor *a, const util_host_tensor *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

static void shape_text(const util_host_tensor *t, char *buf, size_t size) {
  size_t n = (size_t)snprintf(buf, size, "(");
  for (int i = 0; i < t->rank && n < size; i++)
    n += (size_t)snprintf(buf + n, size - n, i ? ", %lld" : "%lld", (long long)t->dims[i]);
  if (n < size) snprintf(buf + n, size - n, ")");
}

bool onnx_nt_compare(const util_host_tensor *got, const util_host_tensor *want, double rtol, double atol,
                     util_error *why) {
  if (!shapes_equal(got, want) || got->dtype != want->dtype) {
    char gs[128], ws[128];
    shape_text(got, gs, sizeof gs);
    shape_text(want, ws, sizeof ws);
    util_error_plain(why, WGK_ERR_EVAL, "got %s %s, want %s %s", wgk_dtype_name(got->dtype), gs,
                     wgk_dtype_name(want->dtype), ws);
    return false;
  }
  defaults(want->dtype, &rtol, &atol);
  size_t n = util_host_tensor_numel(want), worst = 0;
  double worst_excess = 0;
  bool bad = false;
  for (size_t i = 0; i < n; i++) {
    double g = util_host_tensor_get(got, i), w = util_host_tensor_get(want, i);
    if (isnan(g) && isnan(w)) continue;
    double excess = fabs(g - w) - (atol + rtol * fabs(w));
    if (isnan(excess)) excess = INFINITY; /* one side NaN, or inf against finite */
    if (isinf(g) && isinf(w) && (g > 0) == (w > 0)) excess = 0;
    if (excess > 0 && (!bad || excess > worst_excess)) bad = true, worst = i, worst_excess = excess;
  }
  if (bad)
    util_error_plain(why, WGK_ERR_EVAL, "worst element [%zu] got %.9g want %.9g (rtol %g, atol %g)", worst,
                     util_host_tensor_get(got, worst), util_host_tensor_get(want, worst), rtol, atol);
  return !bad;
}
