/*
 * got vs want in double precision, numpy.isclose's rule (|got - want| <= atol + rtol * |want|). Non-finite
 * values never pass by tolerance: NaN must meet NaN and an infinity the same infinity, so an output left
 * at its NaN poison, or one that overflowed, fails even when the tolerance is huge.
 */
#include <math.h>
#include <stdio.h>

#include "testcase/testcase.h"

tc_tolerance tc_default_tolerance(wgk_dtype dtype) {
  switch (dtype) {
  case WGK_DTYPE_FLOAT32:
    return (tc_tolerance){1e-5, 1e-6};
  case WGK_DTYPE_FLOAT16:
    return (tc_tolerance){1e-2, 1e-3};
  case WGK_DTYPE_INVALID:
  case WGK_DTYPE_INT32:
  case WGK_DTYPE_UINT32:
  case WGK_DTYPE_INT64:
  case WGK_DTYPE_INT8:
  case WGK_DTYPE_UINT8:
  case WGK_DTYPE_BOOL:
  case WGK_DTYPE_INT16:
    break;
  }
  return (tc_tolerance){0, 0};
}

static bool nonfinite_match(double got, double want) {
  if (isnan(want)) return isnan(got);
  return got == want; /* both infinities of one sign */
}

void tc_compare(const double *got, const double *want, size_t n, tc_tolerance tol, tc_compare_result *out) {
  *out = (tc_compare_result){.pass = true};
  double worst_excess = -INFINITY;
  bool worst_is_nonfinite = false;
  for (size_t i = 0; i < n; i++) {
    double g = got[i], w = want[i];
    if (!isfinite(w) || !isfinite(g)) {
      if (nonfinite_match(g, w)) continue;
      out->n_bad++;
      if (isfinite(w)) out->n_nonfinite++;
      if (!worst_is_nonfinite) { /* the first non-finite mismatch is the one to show */
        worst_is_nonfinite = true;
        out->worst = i;
      }
      continue;
    }
    double diff = fabs(g - w), bound = tol.atol + tol.rtol * fabs(w);
    if (diff > out->max_abs) out->max_abs = diff;
    if (w != 0 && diff / fabs(w) > out->max_rel) out->max_rel = diff / fabs(w);
    if (diff > bound) out->n_bad++;
    if (diff > 0) {
      double used = bound > 0 ? diff / bound : INFINITY;
      if (used > out->used) out->used = used;
    }
    if (!worst_is_nonfinite && diff - bound > worst_excess) {
      worst_excess = diff - bound;
      out->worst = i;
    }
  }
  out->pass = out->n_bad == 0;
  if (n > 0) {
    out->worst_got = got[out->worst];
    out->worst_want = want[out->worst];
  }
}

void tc_unravel(size_t i, int rank, const int64_t *dims, char *buf, size_t size) {
  size_t idx[16] = {0};
  for (int d = rank - 1; d >= 0 && d < 16; d--) {
    size_t ext = dims[d] > 0 ? (size_t)dims[d] : 1;
    idx[d] = i % ext;
    i /= ext;
  }
  size_t at = (size_t)snprintf(buf, size, "(");
  for (int d = 0; d < rank && d < 16 && at < size; d++)
    at += (size_t)snprintf(buf + at, size - at, "%s%zu", d ? ", " : "", idx[d]);
  if (at < size) snprintf(buf + at, size - at, ")");
}
