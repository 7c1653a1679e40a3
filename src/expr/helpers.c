/* The helpers of docs/expressions.md (what the public loader passes in as JavaScript functions). A helper's
 * whole-number result is an integer again, as the oracle converts a JS number back. */
#include "expr/expr_int.h"
#include "util/dtype.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HELPER(name)                                                                                       \
  static wgk_status name(const expr_value *fn, const expr_value *const *a, size_t n, const expr_value *kw, \
                         const expr_scope *scope, expr_value **out, util_error *err)
#define UNUSED \
  (void)fn;    \
  (void)kw;    \
  (void)scope

#define WGK_HELPER_MAX_LIST WGK_EXPR_MAX_LIST /* items a helper may build (range, fill) */

static wgk_status fail(util_error *err, const char *fmt, const char *a, const char *b) {
  return util_error_plain(err, WGK_ERR_EVAL, fmt, a, b);
}

static wgk_status put(expr_value *v, expr_value **out, util_error *err) {
  *out = v;
  if (v) return WGK_OK;
  return util_error_is_set(err) ? err->status : util_error_oom(err, NULL, NULL);
}

/* A JS number back into a value: whole numbers become integers. */
static wgk_status number(double d, expr_value **out, util_error *err) {
  if (isfinite(d) && d == floor(d)) return put(expr_int_checked(d, err), out, err);
  return put(expr_value_float(d), out, err);
}

static bool args_ok(const char *name, size_t n, size_t min, size_t max, util_error *err) {
  if (n >= min && n <= max) return true;
  util_error_plain(err, WGK_ERR_EVAL, "%s() takes %zu to %zu arguments, got %zu", name, min, max, n);
  return false;
}

static bool nums(const char *name, const expr_value *const *a, size_t n, double *d, util_error *err) {
  for (size_t i = 0; i < n; i++) {
    if (!expr_value_is_number(a[i]) && a[i]->kind != WGK_VALUE_BOOL) {
      fail(err, "%s() needs numbers, got %s", name, expr_type_name(a[i]));
      return false;
    }
    d[i] = a[i]->kind == WGK_VALUE_BOOL ? a[i]->u.b : expr_value_as_float(a[i]);
  }
  return true;
}

/* A shape or axis list: every item an integer. */
static bool int_list(const char *name, const expr_value *v, util_error *err) {
  if (v->kind != WGK_VALUE_LIST) {
    fail(err, "%s() needs a list, got %s", name, expr_type_name(v));
    return false;
  }
  for (size_t i = 0; i < v->u.list.len; i++)
    if (v->u.list.items[i]->kind != WGK_VALUE_INT) {
      fail(err, "%s() needs a list of integers, got a %s in it", name, expr_type_name(v->u.list.items[i]));
      return false;
    }
  return true;
}

static int64_t at(const expr_value *l, size_t i) { return l->u.list.items[i]->u.i; }

/* A list of numbers (integers or floats). */
static bool num_list(const char *name, const expr_value *v, util_error *err) {
  if (v->kind != WGK_VALUE_LIST) {
    fail(err, "%s() needs a list, got %s", name, expr_type_name(v));
    return false;
  }
  for (size_t i = 0; i < v->u.list.len; i++)
    if (!expr_value_is_number(v->u.list.items[i])) {
      fail(err, "%s() needs a list of numbers, got a %s in it", name, expr_type_name(v->u.list.items[i]));
      return false;
    }
  return true;
}

static double num_at(const expr_value *l, size_t i) { return expr_value_as_float(l->u.list.items[i]); }

static bool axis(const char *name, const expr_value *shape, const expr_value *ax, int64_t *out, util_error *err) {
  int64_t r = (int64_t)shape->u.list.len;
  if (ax->kind != WGK_VALUE_INT) {
    fail(err, "%s() needs an integer axis, got %s", name, expr_type_name(ax));
    return false;
  }
  int64_t i = ax->u.i < 0 ? ax->u.i + r : ax->u.i;
  if (i < 0 || i >= r) {
    util_error_plain(err, WGK_ERR_EVAL, "%s(): axis %lld out of range for rank %lld", name, (long long)ax->u.i,
                     (long long)r);
    return false;
  }
  *out = i;
  return true;
}

static bool append_int(expr_value *l, int64_t x) { return expr_value_list_append(l, expr_value_int(x)); }

HELPER(h_ceil) {
  UNUSED;
  double d;
  if (!args_ok("ceil", n, 1, 1, err) || !nums("ceil", a, 1, &d, err)) return WGK_ERR_EVAL;
  return number(ceil(d), out, err);
}
HELPER(h_floor) {
  UNUSED;
  double d;
  if (!args_ok("floor", n, 1, 1, err) || !nums("floor", a, 1, &d, err)) return WGK_ERR_EVAL;
  return number(floor(d), out, err);
}

static wgk_status min_max(const expr_value *const *a, size_t n, bool is_max, expr_value **out, util_error *err) {
  const char *name = is_max ? "max" : "min";
  if (n == 0) return fail(err, "%s() needs at least one value%s", name, "");
  double best = 0;
  for (size_t i = 0; i < n; i++) {
    double d;
    if (!nums(name, a + i, 1, &d, err)) return WGK_ERR_EVAL;
    if (i == 0 || (is_max ? d > best : d < best) || isnan(d)) best = d;
  }
  return number(best, out, err);
}

HELPER(h_min) {
  UNUSED;
  if (n == 1 && a[0]->kind == WGK_VALUE_LIST)
    return min_max((const expr_value *const *)a[0]->u.list.items, a[0]->u.list.len, false, out, err);
  return min_max(a, n, false, out, err);
}
HELPER(h_max) {
  UNUSED;
  if (n == 1 && a[0]->kind == WGK_VALUE_LIST)
    return min_max((const expr_value *const *)a[0]->u.list.items, a[0]->u.list.len, true, out, err);
  return min_max(a, n, true, out, err);
}

HELPER(h_pow) {
  UNUSED;
  double d[2];
  if (!args_ok("pow", n, 2, 2, err) || !nums("pow", a, 2, d, err)) return WGK_ERR_EVAL;
  return number(pow(d[0], d[1]), out, err);
}

HELPER(h_range) {
  UNUSED;
  double d[3] = {0, 0, 1};
  if (!args_ok("range", n, 1, 3, err) || !nums("range", a, n, d, err)) return WGK_ERR_EVAL;
  double start = n == 1 ? 0 : d[0], stop = n == 1 ? d[0] : d[1], step = n == 3 ? d[2] : 1;
  if (step == 0) return fail(err, "range() step must not be zero%s%s", "", "");
  double count = step > 0 ? ceil((stop - start) / step) : ceil((start - stop) / -step);
  if (count > WGK_HELPER_MAX_LIST)
    return util_error_plain(err, WGK_ERR_LIMIT, "range() too long (limit is %d items)", WGK_HELPER_MAX_LIST);
  expr_value *l = expr_value_list();
  for (double x = start; l && (step > 0 ? x < stop : x > stop); x += step) {
    expr_value *item = x == floor(x) ? expr_int_checked(x, err) : expr_value_float(x);
    if (!expr_value_list_append(l, item)) {
      expr_value_release(l);
      l = NULL;
    }
  }
  return put(l, out, err);
}

HELPER(h_ceilDiv) {
  UNUSED;
  double d[2];
  if (!args_ok("ceilDiv", n, 2, 2, err) || !nums("ceilDiv", a, 2, d, err)) return WGK_ERR_EVAL;
  if (d[1] == 0) return fail(err, "ceilDiv(): division by zero%s%s", "", "");
  return number(ceil(d[0] / d[1]), out, err);
}

HELPER(h_pow2ceil) {
  UNUSED;
  double d;
  if (!args_ok("pow2ceil", n, 1, 1, err) || !nums("pow2ceil", a, 1, &d, err)) return WGK_ERR_EVAL;
  double p = 1;
  while (p < d && p < 1e300) p *= 2;
  return number(p, out, err);
}

HELPER(h_log2ceil) {
  UNUSED;
  double d;
  if (!args_ok("log2ceil", n, 1, 1, err) || !nums("log2ceil", a, 1, &d, err)) return WGK_ERR_EVAL;
  double p = 1, k = 0;
  while (p < d && k < 1100) {
    p *= 2;
    k++;
  }
  return number(k, out, err);
}

HELPER(h_numel) {
  UNUSED;
  if (!args_ok("numel", n, 1, 1, err) || !int_list("numel", a[0], err)) return WGK_ERR_EVAL;
  double p = 1;
  for (size_t i = 0; i < a[0]->u.list.len; i++) p *= (double)at(a[0], i);
  return number(p, out, err);
}

/* The loader's axis wrap for dim/rows/outer/inner: ((ax % len) + len) % len, any integer axis (no range
 * error); on an empty list there is no axis (JavaScript's NaN): dim gives undefined, the products 1. */
static bool wrap_axis(const char *name, const expr_value *shape, const expr_value *ax, int64_t *out, util_error *err) {
  if (ax->kind != WGK_VALUE_INT) {
    fail(err, "%s() needs an integer axis, got %s", name, expr_type_name(ax));
    return false;
  }
  int64_t len = (int64_t)shape->u.list.len;
  *out = len == 0 ? -1 : ((ax->u.i % len) + len) % len;
  return true;
}

HELPER(h_dim) {
  UNUSED;
  int64_t i;
  if (!args_ok("dim", n, 2, 2, err) || !int_list("dim", a[0], err) || !wrap_axis("dim", a[0], a[1], &i, err))
    return WGK_ERR_EVAL;
  if (i < 0) return put(expr_value_undefined(), out, err);
  return put(expr_value_int(at(a[0], (size_t)i)), out, err);
}

/* rows: product of all dims but ax; outer: dims before ax; inner: dims after ax. */
static wgk_status product_around(const char *name, const expr_value *const *a, size_t n, int which, expr_value **out,
                                 util_error *err) {
  int64_t ax;
  if (!args_ok(name, n, 2, 2, err) || !int_list(name, a[0], err) || !wrap_axis(name, a[0], a[1], &ax, err))
    return WGK_ERR_EVAL;
  double p = 1;
  for (int64_t i = 0; i < (int64_t)a[0]->u.list.len; i++)
    if ((which == 'r' && i != ax) || (which == 'o' && i < ax) || (which == 'i' && i > ax))
      p *= (double)at(a[0], (size_t)i);
  return number(p, out, err);
}
HELPER(h_rows) {
  UNUSED;
  return product_around("rows", a, n, 'r', out, err);
}
HELPER(h_outer) {
  UNUSED;
  return product_around("outer", a, n, 'o', out, err);
}
HELPER(h_inner) {
  UNUSED;
  return product_around("inner", a, n, 'i', out, err);
}

/* prefix(l, n) = l[:n], suffix(l, n) = l[n:] (n clamped to [0, len]), so prefix + suffix == l. */
static wgk_status part(const char *name, const expr_value *const *a, size_t n, bool head, expr_value **out,
                       util_error *err) {
  if (!args_ok(name, n, 2, 2, err)) return WGK_ERR_EVAL;
  if (a[0]->kind != WGK_VALUE_LIST || a[1]->kind != WGK_VALUE_INT)
    return fail(err, "%s() needs a list and an integer%s", name, "");
  int64_t len = (int64_t)a[0]->u.list.len, k = a[1]->u.i < 0 ? 0 : a[1]->u.i > len ? len : a[1]->u.i;
  expr_value *l = expr_value_list();
  for (int64_t i = head ? 0 : k; l && i < (head ? k : len); i++)
    if (!expr_value_list_append(l, expr_value_ref(a[0]->u.list.items[i]))) l = NULL;
  return put(l, out, err);
}
HELPER(h_prefix) {
  UNUSED;
  return part("prefix", a, n, true, out, err);
}
HELPER(h_suffix) {
  UNUSED;
  return part("suffix", a, n, false, out, err);
}

HELPER(h_fill) {
  UNUSED;
  if (!args_ok("fill", n, 2, 2, err)) return WGK_ERR_EVAL;
  if (a[1]->kind != WGK_VALUE_INT)
    return fail(err, "fill() count must be an integer, got %s%s", expr_type_name(a[1]), "");
  if (a[1]->u.i < 0) return fail(err, "fill(): negative count%s%s", "", "");
  if (a[1]->u.i > WGK_HELPER_MAX_LIST)
    return util_error_plain(err, WGK_ERR_LIMIT, "fill() too long (limit is %d items)", WGK_HELPER_MAX_LIST);
  expr_value *l = expr_value_list();
  for (int64_t i = 0; l && i < a[1]->u.i; i++)
    if (!expr_value_list_append(l, expr_value_ref(a[0]))) l = NULL;
  return put(l, out, err);
}

/* numpy.moveaxis for one axis, applied to a list: the item at from moves to position to. */
HELPER(h_moveAxis) {
  UNUSED;
  int64_t from, to;
  if (!args_ok("moveAxis", n, 3, 3, err) || a[0]->kind != WGK_VALUE_LIST)
    return args_ok("moveAxis", n, 3, 3, err) ? fail(err, "moveAxis() needs a list%s%s", "", "") : WGK_ERR_EVAL;
  if (!axis("moveAxis", a[0], a[1], &from, err) || !axis("moveAxis", a[0], a[2], &to, err)) return WGK_ERR_EVAL;
  size_t len = a[0]->u.list.len;
  expr_value *l = expr_value_list();
  for (size_t i = 0, src = 0; l && i < len; i++) {
    const expr_value *item;
    if ((int64_t)i == to)
      item = a[0]->u.list.items[from];
    else {
      if ((int64_t)src == from) src++;
      item = a[0]->u.list.items[src++];
    }
    if (!expr_value_list_append(l, expr_value_ref(item))) l = NULL;
  }
  return put(l, out, err);
}

HELPER(h_permuteShape) {
  UNUSED;
  if (!args_ok("permuteShape", n, 2, 2, err) || !int_list("permuteShape", a[1], err)) return WGK_ERR_EVAL;
  if (a[0]->kind != WGK_VALUE_LIST) return fail(err, "permuteShape() needs a list%s%s", "", "");
  if (a[1]->u.list.len != a[0]->u.list.len)
    return fail(err, "permuteShape(): permutation length differs from rank%s%s", "", "");
  expr_value *l = expr_value_list();
  for (size_t i = 0; l && i < a[1]->u.list.len; i++) {
    int64_t p, q;
    bool repeated = false;
    if (!axis("permuteShape", a[0], a[1]->u.list.items[i], &p, err)) {
      expr_value_release(l);
      return WGK_ERR_EVAL;
    }
    for (size_t j = 0; j < i && !repeated; j++)
      repeated = axis("permuteShape", a[0], a[1]->u.list.items[j], &q, err) && q == p;
    if (repeated) {
      expr_value_release(l);
      return util_error_plain(err, WGK_ERR_EVAL, "permuteShape(): axis %lld repeated", (long long)at(a[1], i));
    }
    if (!expr_value_list_append(l, expr_value_ref(a[0]->u.list.items[p]))) l = NULL;
  }
  return put(l, out, err);
}

HELPER(h_reversedAxes) {
  UNUSED;
  if (!args_ok("reversedAxes", n, 1, 1, err)) return WGK_ERR_EVAL;
  if (a[0]->kind != WGK_VALUE_INT || a[0]->u.i < 0 || a[0]->u.i > WGK_HELPER_MAX_LIST)
    return fail(err, "reversedAxes() needs a rank (a non-negative integer)%s%s", "", "");
  expr_value *l = expr_value_list();
  for (int64_t i = a[0]->u.i - 1; l && i >= 0; i--)
    if (!append_int(l, i)) l = NULL;
  return put(l, out, err);
}

/* numpy broadcasting of two shapes; NULL (no error set) when they do not broadcast. */
static expr_value *broadcast(const expr_value *x, const expr_value *y, bool *ok) {
  size_t lx = x->u.list.len, ly = y->u.list.len, r = lx > ly ? lx : ly;
  *ok = true;
  expr_value *l = expr_value_list();
  for (size_t i = 0; l && i < r; i++) {
    int64_t p = i + lx >= r ? at(x, i + lx - r) : 1, q = i + ly >= r ? at(y, i + ly - r) : 1;
    if (p != q && p != 1 && q != 1) {
      *ok = false;
      expr_value_release(l);
      return NULL;
    }
    if (!append_int(l, p == 1 ? q : p)) l = NULL;
  }
  return l;
}

HELPER(h_broadcastShape) {
  UNUSED;
  if (!args_ok("broadcastShape", n, 2, 2, err) || !int_list("broadcastShape", a[0], err) ||
      !int_list("broadcastShape", a[1], err))
    return WGK_ERR_EVAL;
  bool ok;
  expr_value *l = broadcast(a[0], a[1], &ok);
  if (!ok) return fail(err, "broadcastShape(): shapes do not broadcast%s%s", "", "");
  return put(l, out, err);
}

/* broadcastable(a, b): a broadcasts to b, the loader's one-way rule: len(a) <= len(b) and each a[i] is 1 or
 * b's aligned dim. */
HELPER(h_broadcastable) {
  UNUSED;
  if (!args_ok("broadcastable", n, 2, 2, err) || !num_list("broadcastable", a[0], err) ||
      !num_list("broadcastable", a[1], err))
    return WGK_ERR_EVAL;
  size_t la = a[0]->u.list.len, lb = a[1]->u.list.len;
  bool ok = la <= lb;
  for (size_t i = 0; ok && i < la; i++) {
    double x = num_at(a[0], i);
    ok = x == 1 || x == num_at(a[1], i + lb - la);
  }
  return put(expr_value_bool(ok), out, err);
}

/* ONNX MatMul (numpy matmul): 1-D operands are promoted and the added axis dropped again. */
HELPER(h_matmulShape) {
  UNUSED;
  if (!args_ok("matmulShape", n, 2, 2, err) || !int_list("matmulShape", a[0], err) ||
      !int_list("matmulShape", a[1], err))
    return WGK_ERR_EVAL;
  const expr_value *x = a[0], *y = a[1];
  size_t lx = x->u.list.len, ly = y->u.list.len;
  if (lx == 0 || ly == 0) return fail(err, "matmulShape(): operands must have rank >= 1%s%s", "", "");
  int64_t m = lx >= 2 ? at(x, lx - 2) : 1, k1 = at(x, lx - 1), k2 = ly >= 2 ? at(y, ly - 2) : at(y, 0),
          nn = ly >= 2 ? at(y, ly - 1) : 1;
  if (k1 != k2) return fail(err, "matmulShape(): inner dimensions differ%s%s", "", "");
  expr_value *bx = expr_value_list(), *by = expr_value_list();
  for (size_t i = 0; bx && i + 2 < lx; i++)
    if (!append_int(bx, at(x, i))) bx = NULL;
  for (size_t i = 0; by && i + 2 < ly; i++)
    if (!append_int(by, at(y, i))) by = NULL;
  bool ok = true;
  expr_value *l = bx && by ? broadcast(bx, by, &ok) : NULL;
  expr_value_release(bx);
  expr_value_release(by);
  if (!ok) return fail(err, "matmulShape(): batch dimensions do not broadcast%s%s", "", "");
  if (l && lx >= 2 && !append_int(l, m)) l = NULL;
  if (l && ly >= 2 && !append_int(l, nn)) l = NULL;
  return put(l, out, err);
}

HELPER(h_sameShape) {
  UNUSED;
  if (!args_ok("sameShape", n, 2, 2, err)) return WGK_ERR_EVAL;
  bool same = a[0]->kind == WGK_VALUE_LIST && a[1]->kind == WGK_VALUE_LIST && expr_value_equal(a[0], a[1]);
  return put(expr_value_bool(same), out, err);
}

/* JavaScript's ((x % m) + m) % m over doubles: NaN when m is 0 or an argument is not a number. */
static double js_mod(double x, double m) { return fmod(fmod(x, m) + m, m); }

/* A helper argument as a JavaScript number: numbers and booleans; anything else (undefined too) NaN. */
static double js_num(const expr_value *const *a, size_t n, size_t i) {
  if (i >= n) return NAN;
  if (a[i]->kind == WGK_VALUE_BOOL) return a[i]->u.b;
  return expr_value_is_number(a[i]) ? expr_value_as_float(a[i]) : NAN;
}

static bool js_int(double d) { return isfinite(d) && d == floor(d); }

/* hasAxis(axes, ax, rank): ax mod rank is among the axes mod rank (the loader's definition). */
HELPER(h_hasAxis) {
  UNUSED;
  if (!args_ok("hasAxis", n, 1, 3, err)) return WGK_ERR_EVAL;
  if (a[0]->kind != WGK_VALUE_LIST)
    return fail(err, "hasAxis() needs a list of axes, got %s%s", expr_type_name(a[0]), "");
  double rank = js_num(a, n, 2), r = js_mod(js_num(a, n, 1), rank);
  bool found = false;
  for (size_t i = 0; !found && i < a[0]->u.list.len; i++) {
    const expr_value *item = a[0]->u.list.items[i];
    const expr_value *one[1] = {item};
    found = js_mod(js_num(one, 1, 0), rank) == r;
  }
  return put(expr_value_bool(found), out, err);
}

/* axisValue(vals, axes, ax, rank, default): vals at the first position where axes[i] mod rank is ax mod
 * rank, else default (undefined when not given). */
HELPER(h_axisValue) {
  UNUSED;
  if (!args_ok("axisValue", n, 2, 5, err)) return WGK_ERR_EVAL;
  if (a[1]->kind != WGK_VALUE_LIST)
    return fail(err, "axisValue() needs a list of axes, got %s%s", expr_type_name(a[1]), "");
  double rank = js_num(a, n, 3), s = js_mod(js_num(a, n, 2), rank);
  size_t len = a[0]->kind == WGK_VALUE_LIST ? a[0]->u.list.len : 0;
  for (size_t i = 0; i < a[1]->u.list.len; i++) {
    const expr_value *one[1] = {a[1]->u.list.items[i]};
    if (js_mod(js_num(one, 1, 0), rank) != s) continue;
    if (i < len) return put(expr_value_ref(a[0]->u.list.items[i]), out, err);
    break;
  }
  return put(n > 4 ? expr_value_ref(a[4]) : expr_value_undefined(), out, err);
}

/* isUniqueIntList(l, lo, hi, mod=0): integers in [lo, hi), unique after mod when mod > 0; false on bad
 * arguments (a list, integer bounds with lo <= hi, an integer mod >= 0). */
HELPER(h_isUniqueIntList) {
  UNUSED;
  if (!args_ok("isUniqueIntList", n, 1, 4, err)) return WGK_ERR_EVAL;
  double lo = js_num(a, n, 1), hi = js_num(a, n, 2), mod = n > 3 ? js_num(a, n, 3) : 0;
  bool ok = a[0]->kind == WGK_VALUE_LIST && js_int(lo) && js_int(hi) && hi >= lo && js_int(mod) && mod >= 0;
  size_t len = ok ? a[0]->u.list.len : 0;
  for (size_t i = 0; ok && i < len; i++) {
    const expr_value *one[1] = {a[0]->u.list.items[i]};
    double x = a[0]->u.list.items[i]->kind == WGK_VALUE_BOOL ? NAN : js_num(one, 1, 0);
    ok = js_int(x) && x >= lo && x < hi;
    double key = mod == 0 ? x : js_mod(x, mod);
    for (size_t j = 0; ok && j < i; j++) {
      const expr_value *other[1] = {a[0]->u.list.items[j]};
      double y = js_num(other, 1, 0);
      ok = (mod == 0 ? y : js_mod(y, mod)) != key;
    }
  }
  return put(expr_value_bool(ok), out, err);
}

/* has(obj, key): JavaScript's own-property test on the plain value: a dict key (the key as text), a list or
 * string index in range, or "length" of a list or string; false for anything else. */
HELPER(h_has) {
  UNUSED;
  if (!args_ok("has", n, 2, 2, err)) return WGK_ERR_EVAL;
  const expr_value *o = a[0], *k = a[1];
  util_dynbuf key;
  util_dynbuf_init(&key, 4096);
  if (k->kind == WGK_VALUE_STRING)
    util_dynbuf_append(&key, k->u.str.s, k->u.str.len);
  else if (expr_value_is_number(k))
    expr_value_print_js_number(expr_value_as_float(k), &key);
  else if (k->kind == WGK_VALUE_BOOL)
    util_dynbuf_append_str(&key, k->u.b ? "true" : "false");
  else if (k->kind == WGK_VALUE_NONE)
    util_dynbuf_append_str(&key, "null");
  else
    util_dynbuf_append_str(&key, "undefined");
  if (key.failed) {
    util_dynbuf_free(&key);
    return put(NULL, out, err);
  } /* a key lost for memory answers nothing */
  const char *ks = util_dynbuf_str(&key);
  bool r = false;
  if (o->kind == WGK_VALUE_DICT)
    r = expr_value_dict_get(o, ks) != NULL;
  else if (o->kind == WGK_VALUE_LIST || o->kind == WGK_VALUE_STRING) {
    size_t len = o->kind == WGK_VALUE_LIST ? o->u.list.len : o->u.str.len;
    char *end = NULL;
    unsigned long long idx = (ks[0] >= '0' && ks[0] <= '9') ? strtoull(ks, &end, 10) : 0;
    bool canonical = end && *end == '\0' && (ks[0] != '0' || ks[1] == '\0');
    r = strcmp(ks, "length") == 0 || (canonical && idx < len);
  }
  util_dynbuf_free(&key);
  return put(expr_value_bool(r), out, err);
}

/* dtypeBytes takes a logical name or a WGSL scalar (f32 f16 u32 i32 vec2<u32>); onnxDtypeCode logical names only. */
static const util_dtype_info *dtype(const char *name, bool wgsl_ok, const expr_value *const *a, size_t n,
                                    util_error *err) {
  if (!args_ok(name, n, 1, 1, err)) return NULL;
  const char *s = a[0]->kind == WGK_VALUE_STRING ? a[0]->u.str.s : NULL;
  for (size_t i = 0; s && i < util_dtype_count(); i++) {
    const util_dtype_info *d = util_dtype_info_at(i);
    if (!strcmp(d->name, s) || (wgsl_ok && d->native_wgsl && !strcmp(d->native_wgsl, s))) return d;
  }
  util_dynbuf shown;
  util_dynbuf_init(&shown, 256);
  expr_value_print(a[0], &shown);
  util_error_plain(err, WGK_ERR_EVAL, "Unsupported dtype%s: %s", wgsl_ok ? " for dtypeBytes()" : "",
                   util_dynbuf_str(&shown));
  util_dynbuf_free(&shown);
  return NULL;
}

HELPER(h_dtypeBytes) {
  UNUSED;
  const util_dtype_info *d = dtype("dtypeBytes", true, a, n, err);
  return d ? put(expr_value_int((int64_t)d->storage_bytes), out, err) : WGK_ERR_EVAL;
}
HELPER(h_onnxDtypeCode) {
  UNUSED;
  const util_dtype_info *d = dtype("onnxDtypeCode", false, a, n, err);
  return d ? put(expr_value_int(d->onnx), out, err) : WGK_ERR_EVAL;
}

/* JavaScript truth (pick's conditions are plain JS values): lists and dicts are true even when empty. */
static bool js_truthy(const expr_value *v) {
  if (v->kind == WGK_VALUE_LIST || v->kind == WGK_VALUE_DICT) return true;
  if (expr_value_is_number(v)) {
    double d = expr_value_as_float(v);
    return d != 0 && !isnan(d);
  }
  return expr_value_truthy(v);
}

HELPER(h_pick) {
  UNUSED;
  if (!args_ok("pick", n, 1, 2, err)) return WGK_ERR_EVAL;
  if (a[0]->kind != WGK_VALUE_LIST) return fail(err, "pick() needs a list of [condition, value] pairs%s%s", "", "");
  for (size_t i = 0; i < a[0]->u.list.len; i++) {
    const expr_value *pair = a[0]->u.list.items[i];
    if (pair->kind != WGK_VALUE_LIST || pair->u.list.len < 2)
      return fail(err, "pick() entries must be [condition, value] pairs%s%s", "", "");
    if (js_truthy(pair->u.list.items[0])) return put(expr_value_ref(pair->u.list.items[1]), out, err);
  }
  return put(n > 1 ? expr_value_ref(a[1]) : expr_value_undefined(), out, err);
}

HELPER(h_f16Ok) {
  (void)fn;
  (void)kw;
  if (!args_ok("f16Ok", n, 1, 1, err)) return WGK_ERR_EVAL;
  const char *dt = expr_value_str(a[0]);
  if (!dt || (strcmp(dt, "f16") && strcmp(dt, "float16"))) return put(expr_value_bool(true), out, err);
  const expr_value *dev = expr_scope_lookup(scope, "device");
  const expr_value *features = expr_value_dict_get(dev, "features");
  bool has = false;
  for (size_t i = 0; i < expr_value_len(features) && features->kind == WGK_VALUE_LIST; i++) {
    const char *f = expr_value_str(features->u.list.items[i]);
    has = has || (f && !strcmp(f, "shader-f16"));
  }
  return put(expr_value_bool(has), out, err);
}

/* namespace([dict or [[key, value], ...]], key=value, ...): a dict whose attributes templates may set with
 * `{% set ns.key = value %}` (the engine's built-in, Jinja's meaning). Keyword arguments come last. */
HELPER(h_namespace) {
  (void)fn;
  (void)scope;
  if (!args_ok("namespace", n, 0, 1, err)) return WGK_ERR_EVAL;
  expr_value *ns = expr_value_dict();
  if (!ns) return put(NULL, out, err);
  ns->is_namespace = true;
  bool ok = true;
  if (n == 1 && a[0]->kind == WGK_VALUE_DICT) {
    for (size_t i = 0; ok && i < a[0]->u.dict.len; i++)
      ok = expr_value_dict_set(ns, a[0]->u.dict.keys[i], expr_value_ref(a[0]->u.dict.vals[i]));
  } else if (n == 1 && a[0]->kind == WGK_VALUE_LIST) {
    for (size_t i = 0; ok && i < a[0]->u.list.len; i++) {
      const expr_value *pair = a[0]->u.list.items[i];
      if (pair->kind != WGK_VALUE_LIST || pair->u.list.len != 2 || pair->u.list.items[0]->kind != WGK_VALUE_STRING) {
        expr_value_release(ns);
        return fail(err, "namespace() needs a dict or a list of [key, value] pairs with string keys%s%s", "", "");
      }
      ok = expr_value_dict_set(ns, pair->u.list.items[0]->u.str.s, expr_value_ref(pair->u.list.items[1]));
    }
  } else if (n == 1) {
    expr_value_release(ns);
    return fail(err, "namespace() needs a dict or a list of [key, value] pairs, got %s%s", expr_type_name(a[0]), "");
  }
  for (size_t i = 0; ok && kw && i < kw->u.dict.len; i++)
    ok = expr_value_dict_set(ns, kw->u.dict.keys[i], expr_value_ref(kw->u.dict.vals[i]));
  if (!ok) {
    expr_value_release(ns);
    ns = NULL;
  }
  return put(ns, out, err);
}

typedef struct helper {
  const char *name;
  expr_native_fn fn;
} helper;
static const helper helpers[] = {
    {"ceil", h_ceil},
    {"floor", h_floor},
    {"min", h_min},
    {"max", h_max},
    {"pow", h_pow},
    {"range", h_range},
    {"ceilDiv", h_ceilDiv},
    {"pow2ceil", h_pow2ceil},
    {"log2ceil", h_log2ceil},
    {"numel", h_numel},
    {"dim", h_dim},
    {"rows", h_rows},
    {"outer", h_outer},
    {"inner", h_inner},
    {"prefix", h_prefix},
    {"suffix", h_suffix},
    {"fill", h_fill},
    {"moveAxis", h_moveAxis},
    {"permuteShape", h_permuteShape},
    {"reversedAxes", h_reversedAxes},
    {"broadcastShape", h_broadcastShape},
    {"broadcastable", h_broadcastable},
    {"matmulShape", h_matmulShape},
    {"sameShape", h_sameShape},
    {"hasAxis", h_hasAxis},
    {"axisValue", h_axisValue},
    {"isUniqueIntList", h_isUniqueIntList},
    {"has", h_has},
    {"dtypeBytes", h_dtypeBytes},
    {"onnxDtypeCode", h_onnxDtypeCode},
    {"pick", h_pick},
    {"f16Ok", h_f16Ok},
    {"namespace", h_namespace},
};

expr_value *expr_helper(const char *name, bool *oom) {
  for (size_t i = 0; i < sizeof helpers / sizeof helpers[0]; i++)
    if (!strcmp(helpers[i].name, name)) {
      expr_value *f = expr_value_func(name, helpers[i].fn, NULL);
      if (!f && oom) *oom = true;
      return f;
    }
  return NULL;
}
