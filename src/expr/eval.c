/* The evaluator: names, literals, operators with the oracle's (JavaScript) number rules, members, calls. */
#include "expr/expr_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

wgk_value *wgk_expr_fail(wgk_eval *ev, const wgk_node *n, wgk_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wgk_error_setv(ev->err, st, n && n->src ? n->src : ev->source, n ? n->line : 0, n ? n->col : 0, NULL, fmt, ap);
  va_end(ap);
  return NULL;
}

wgk_value *wgk_expr_oom(wgk_eval *ev, const wgk_node *n) {
  return wgk_expr_fail(ev, n, WGK_ERR_OUT_OF_MEMORY, "out of memory");
}

const wgk_value *wgk_expr_scope_lookup(const wgk_expr_scope *s, const char *name) {
  for (; s; s = s->parent) {
    const wgk_value *v = wgk_value_dict_get(s->vars, name);
    if (v) return v;
  }
  return NULL;
}

/* true/false/none in either case of the first letter are globals of the oracle. */
static wgk_value *constant(const char *name) {
  if (!strcmp(name, "true") || !strcmp(name, "True")) return wgk_value_bool(true);
  if (!strcmp(name, "false") || !strcmp(name, "False")) return wgk_value_bool(false);
  if (!strcmp(name, "none") || !strcmp(name, "None")) return wgk_value_none();
  return NULL;
}

static wgk_value *name_value(wgk_eval *ev, const wgk_node *n) {
  wgk_value *c = constant(n->str);
  if (c) return c;
  const wgk_value *v = wgk_expr_scope_lookup(ev->scope, n->str);
  if (v) return wgk_value_ref(v);
  bool oom = false;
  wgk_value *h = wgk_expr_helper(n->str, &oom);
  if (h) return h;
  if (oom) return wgk_expr_oom(ev, n);
  return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "unknown name '%s'", n->str);
}

/* A checked integer result at node n. */
static wgk_value *int_result(wgk_eval *ev, const wgk_node *n, double d) {
  wgk_value *v = wgk_expr_int_checked(d, ev->err);
  if (!v) wgk_error_wrap_source(ev->err, n->src ? n->src : ev->source, n->line, n->col, NULL);
  return v;
}

/* A float result must be finite: the oracle's Infinity / NaN from an overflowing + - * / is an error here, as for
 * ** (docs/expressions.md), so it cannot reach a uniform or a comparison as a silent non-number. */
static wgk_value *float_result(wgk_eval *ev, const wgk_node *n, double d) {
  if (!isfinite(d)) return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "float overflow: the result is not a finite number");
  wgk_value *v = wgk_value_float(d);
  return v ? v : wgk_expr_oom(ev, n);
}

static wgk_value *list_literal(wgk_eval *ev, const wgk_node *n) {
  wgk_value *l = wgk_value_list();
  if (!l) return wgk_expr_oom(ev, n);
  l->is_tuple = n->kind == WGK_N_TUPLE;
  for (size_t i = 0; i < n->n; i++) {
    wgk_value *item = wgk_expr_eval_node(ev, n->items[i]);
    if (!item) {
      wgk_value_release(l);
      return NULL;
    }
    if (!wgk_value_list_append(l, item)) {
      wgk_value_release(l);
      return wgk_expr_oom(ev, n);
    }
  }
  return l;
}

static wgk_value *dict_literal(wgk_eval *ev, const wgk_node *n) {
  wgk_value *d = wgk_value_dict();
  if (!d) return wgk_expr_oom(ev, n);
  for (size_t i = 0; i + 1 < n->n; i += 2) {
    wgk_value *k = wgk_expr_eval_node(ev, n->items[i]);
    if (!k) {
      wgk_value_release(d);
      return NULL;
    }
    if (k->kind != WGK_VALUE_STRING) {
      wgk_expr_fail(ev, n->items[i], WGK_ERR_EVAL, "dict keys must be strings, not %s", wgk_expr_type_name(k));
      wgk_value_release(k);
      wgk_value_release(d);
      return NULL;
    }
    wgk_value *v = wgk_expr_eval_node(ev, n->items[i + 1]);
    bool ok = v && wgk_value_dict_set(d, k->u.str.s, v);
    wgk_value_release(k);
    if (!ok) {
      wgk_value_release(d);
      return v ? wgk_expr_oom(ev, n) : NULL;
    }
  }
  return d;
}

static bool is_num(const wgk_value *v) { return v->kind == WGK_VALUE_INT || v->kind == WGK_VALUE_FLOAT; }
static double num(const wgk_value *v) { return v->kind == WGK_VALUE_BOOL ? v->u.b : wgk_value_as_float(v); }

static wgk_value *power(wgk_eval *ev, const wgk_node *n, const wgk_value *l, const wgk_value *r) {
  double a = num(l), b = num(r);
  if (a == 0 && b < 0) return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "0.0 cannot be raised to a negative power");
  double res = pow(a, b);
  if (!isfinite(res)) return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "exponentiation result is not a finite real number");
  if (l->kind == WGK_VALUE_FLOAT || r->kind == WGK_VALUE_FLOAT || b < 0) return float_result(ev, n, res);
  return int_result(ev, n, res);
}

/* + - * / // % of two numbers. Integer results must stay exact (|x| <= 2^53); the oracle's division and
 * modulo by zero give Infinity/NaN, which we refuse as errors (docs/expressions.md). */
static wgk_value *arith(wgk_eval *ev, const wgk_node *n, const wgk_value *l, const wgk_value *r) {
  bool flt = l->kind == WGK_VALUE_FLOAT || r->kind == WGK_VALUE_FLOAT;
  double a = num(l), b = num(r), res;
  switch (n->tok) {
  case WGK_TK_PLUS:
    res = a + b;
    break;
  case WGK_TK_MINUS:
    res = a - b;
    break;
  case WGK_TK_STAR:
    res = a * b;
    break;
  case WGK_TK_SLASH:
    if (b == 0) return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "division by zero");
    return float_result(ev, n, a / b);
  case WGK_TK_DSLASH:
    if (b == 0) return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "division by zero");
    if (!flt && l->u.i % r->u.i != 0 && ((l->u.i < 0) != (r->u.i < 0)))
      return int_result(ev, n, (double)(l->u.i / r->u.i - 1));
    if (!flt) return int_result(ev, n, (double)(l->u.i / r->u.i));
    res = floor(a / b);
    break;
  case WGK_TK_PERCENT:
    if (b == 0) return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "modulo by zero");
    if (!flt) return int_result(ev, n, (double)(l->u.i % r->u.i)); /* C and JS agree: sign of the dividend */
    res = fmod(a, b);
    break;
  case WGK_TK_LT:
    return wgk_value_bool(a < b);
  case WGK_TK_GT:
    return wgk_value_bool(a > b);
  case WGK_TK_LE:
    return wgk_value_bool(a <= b);
  case WGK_TK_GE:
    return wgk_value_bool(a >= b);
  default:
    return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "bad operator");
  }
  if (!flt) {
    /* Exact int64 arithmetic where the double would round; the range check follows. */
    int64_t x = l->u.i, y = r->u.i, z = 0;
    bool over = n->tok == WGK_TK_PLUS    ? __builtin_add_overflow(x, y, &z)
                : n->tok == WGK_TK_MINUS ? __builtin_sub_overflow(x, y, &z)
                                         : __builtin_mul_overflow(x, y, &z);
    if (over || !wgk_value_int_ok(z)) return int_result(ev, n, 1e300);
    return int_result(ev, n, (double)z);
  }
  return float_result(ev, n, res);
}

static wgk_value *concat(wgk_eval *ev, const wgk_node *n, const wgk_value *l, const wgk_value *r) {
  wgk_dynbuf b;
  wgk_dynbuf_init(&b, 0);
  wgk_expr_print_raw(l, &b);
  wgk_expr_print_raw(r, &b);
  wgk_value *v = b.failed ? NULL : wgk_value_string_n(wgk_dynbuf_str(&b), b.len);
  wgk_dynbuf_free(&b);
  return v ? v
           : wgk_expr_fail(ev, n, WGK_ERR_LIMIT, "string too long (limit is %zu bytes)",
                           (size_t)WGK_DYNBUF_DEFAULT_LIMIT);
}

static wgk_value *list_concat(wgk_eval *ev, const wgk_node *n, const wgk_value *l, const wgk_value *r) {
  wgk_value *out = wgk_value_list();
  for (size_t i = 0; out && i < l->u.list.len + r->u.list.len; i++) {
    wgk_value *item = i < l->u.list.len ? l->u.list.items[i] : r->u.list.items[i - l->u.list.len];
    if (!wgk_value_list_append(out, wgk_value_ref(item))) {
      wgk_value_release(out);
      out = NULL;
    }
  }
  return out ? out : wgk_expr_oom(ev, n);
}

static wgk_value *membership(wgk_eval *ev, const wgk_node *n, const wgk_value *l, const wgk_value *r) {
  bool found;
  if (r->kind == WGK_VALUE_LIST) {
    found = false;
    for (size_t i = 0; !found && i < r->u.list.len; i++) found = wgk_expr_strict_eq(r->u.list.items[i], l);
  } else if (r->kind == WGK_VALUE_STRING && l->kind == WGK_VALUE_STRING) {
    found = l->u.str.len == 0 ||
            (r->u.str.len >= l->u.str.len && wgk_expr_find(r->u.str.s, r->u.str.len, l->u.str.s, l->u.str.len));
  } else if (r->kind == WGK_VALUE_DICT && l->kind == WGK_VALUE_STRING) {
    found = wgk_value_dict_get(r, l->u.str.s) != NULL;
  } else {
    return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "operator 'in' is not defined between %s and %s", wgk_expr_type_name(l),
                         wgk_expr_type_name(r));
  }
  return wgk_value_bool(n->kind == WGK_N_IN ? found : !found);
}

static const char *op_name(const wgk_node *n) {
  static const char *names[] = {
      [WGK_TK_PLUS] = "+",    [WGK_TK_MINUS] = "-",   [WGK_TK_TILDE] = "~", [WGK_TK_STAR] = "*", [WGK_TK_SLASH] = "/",
      [WGK_TK_DSLASH] = "//", [WGK_TK_PERCENT] = "%", [WGK_TK_POW] = "**",  [WGK_TK_LT] = "<",   [WGK_TK_GT] = ">",
      [WGK_TK_LE] = "<=",     [WGK_TK_GE] = ">=",     [WGK_TK_EQ] = "==",   [WGK_TK_NE] = "!="};
  if (n->kind == WGK_N_IN) return "in";
  if (n->kind == WGK_N_NOT_IN) return "not in";
  return (size_t)n->tok < sizeof names / sizeof names[0] && names[n->tok] ? names[n->tok] : "?";
}

/* The oracle's order of cases: == and != first, then undefined/none refusals, ~, **, numbers, lists,
 * membership, string +. */
static wgk_value *binary_values(wgk_eval *ev, const wgk_node *n, const wgk_value *l, const wgk_value *r) {
  if (n->tok == WGK_TK_EQ && n->kind == WGK_N_BINARY) return wgk_value_bool(wgk_expr_loose_eq(l, r));
  if (n->tok == WGK_TK_NE && n->kind == WGK_N_BINARY) return wgk_value_bool(!wgk_expr_loose_eq(l, r));
  bool is_in = n->kind == WGK_N_IN || n->kind == WGK_N_NOT_IN;
  if (l->kind == WGK_VALUE_UNDEFINED || r->kind == WGK_VALUE_UNDEFINED) {
    if (r->kind == WGK_VALUE_UNDEFINED && is_in) return wgk_value_bool(n->kind == WGK_N_NOT_IN);
    return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "cannot apply '%s' to an undefined value", op_name(n));
  }
  if (l->kind == WGK_VALUE_NONE || r->kind == WGK_VALUE_NONE)
    return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "cannot apply '%s' to none", op_name(n));
  if (is_in) return membership(ev, n, l, r);
  if (n->tok == WGK_TK_TILDE) return concat(ev, n, l, r);
  bool lnum = is_num(l) || l->kind == WGK_VALUE_BOOL, rnum = is_num(r) || r->kind == WGK_VALUE_BOOL;
  if (n->tok == WGK_TK_POW && lnum && rnum) return power(ev, n, l, r);
  if (is_num(l) && is_num(r) && n->tok != WGK_TK_POW) return arith(ev, n, l, r);
  if (l->kind == WGK_VALUE_LIST && r->kind == WGK_VALUE_LIST && n->tok == WGK_TK_PLUS) return list_concat(ev, n, l, r);
  if ((l->kind == WGK_VALUE_STRING || r->kind == WGK_VALUE_STRING) && n->tok == WGK_TK_PLUS &&
      l->kind != WGK_VALUE_LIST && r->kind != WGK_VALUE_LIST)
    return concat(ev, n, l, r);
  return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "operator '%s' is not defined between %s and %s", op_name(n),
                       wgk_expr_type_name(l), wgk_expr_type_name(r));
}

static wgk_value *binary(wgk_eval *ev, const wgk_node *n) {
  wgk_value *l = wgk_expr_eval_node(ev, n->a);
  if (!l) return NULL;
  if (n->kind == WGK_N_AND || n->kind == WGK_N_OR) {
    if (wgk_value_truthy(l) == (n->kind == WGK_N_OR)) return l;
    wgk_value_release(l);
    return wgk_expr_eval_node(ev, n->b);
  }
  wgk_value *r = wgk_expr_eval_node(ev, n->b);
  if (!r) {
    wgk_value_release(l);
    return NULL;
  }
  wgk_value *v = binary_values(ev, n, l, r);
  wgk_value_release(l);
  wgk_value_release(r);
  return v;
}

/* `not` tests the raw JavaScript value: a list or dict is always "true" there, so `not []` is false. */
static wgk_value *logical_not(wgk_eval *ev, const wgk_node *n) {
  wgk_value *v = wgk_expr_eval_node(ev, n->a);
  if (!v) return NULL;
  bool js_truthy = v->kind == WGK_VALUE_LIST || v->kind == WGK_VALUE_DICT || wgk_value_truthy(v);
  wgk_value_release(v);
  return wgk_value_bool(!js_truthy);
}

static wgk_value *unary(wgk_eval *ev, const wgk_node *n) {
  wgk_value *v = wgk_expr_eval_node(ev, n->a);
  if (!v) return NULL;
  wgk_value *r = NULL;
  double sign = n->tok == WGK_TK_MINUS ? -1 : 1;
  if (v->kind == WGK_VALUE_FLOAT)
    r = float_result(ev, n, sign * v->u.d);
  else if (v->kind == WGK_VALUE_INT || v->kind == WGK_VALUE_BOOL)
    r = int_result(ev, n, sign * num(v));
  else
    wgk_expr_fail(ev, n, WGK_ERR_EVAL, "unary '%s' is not defined for %s", n->tok == WGK_TK_MINUS ? "-" : "+",
                  wgk_expr_type_name(v));
  wgk_value_release(v);
  return r;
}

static wgk_value *ternary(wgk_eval *ev, const wgk_node *n) {
  wgk_value *c = wgk_expr_eval_node(ev, n->b);
  if (!c) return NULL;
  bool t = wgk_value_truthy(c);
  wgk_value_release(c);
  if (t) return wgk_expr_eval_node(ev, n->a);
  return n->c ? wgk_expr_eval_node(ev, n->c) : wgk_value_undefined();
}

/* obj.name / obj["name"]: dict entries first, then the type's built-in methods; missing is undefined. */
static wgk_value *member_by_name(wgk_eval *ev, const wgk_node *n, const wgk_value *obj, const char *name) {
  if (obj->kind == WGK_VALUE_DICT) {
    const wgk_value *v = wgk_value_dict_get(obj, name);
    if (v) return wgk_value_ref(v);
  }
  wgk_value *m = NULL;
  if ((obj->kind == WGK_VALUE_LIST || obj->kind == WGK_VALUE_STRING) && !strcmp(name, "length"))
    m = wgk_value_int((int64_t)wgk_value_len(obj));
  else if (!(m = wgk_expr_method(obj, name)) && !wgk_expr_has_method(obj, name))
    return wgk_value_undefined();
  return m ? m : wgk_expr_oom(ev, n);
}

static wgk_value *index_value(wgk_eval *ev, const wgk_node *n, const wgk_value *obj, const wgk_value *key) {
  if (key->kind == WGK_VALUE_STRING && obj->kind != WGK_VALUE_LIST && obj->kind != WGK_VALUE_STRING)
    return member_by_name(ev, n, obj, key->u.str.s);
  if (obj->kind == WGK_VALUE_LIST || obj->kind == WGK_VALUE_STRING) {
    if (key->kind == WGK_VALUE_STRING) return member_by_name(ev, n, obj, key->u.str.s);
    if (key->kind != WGK_VALUE_INT)
      return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "cannot index a %s with a %s", wgk_expr_type_name(obj),
                           wgk_expr_type_name(key));
    int64_t len = (int64_t)wgk_value_len(obj), i = key->u.i < 0 ? key->u.i + len : key->u.i;
    /* Array.prototype.at: undefined out of range; the oracle wraps that in a string for strings. */
    if (i < 0 || i >= len) return obj->kind == WGK_VALUE_LIST ? wgk_value_undefined() : wgk_value_string("undefined");
    wgk_value *v =
        obj->kind == WGK_VALUE_LIST ? wgk_value_ref(obj->u.list.items[i]) : wgk_value_string_n(obj->u.str.s + i, 1);
    return v ? v : wgk_expr_oom(ev, n);
  }
  return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "cannot access a member of %s with a %s", wgk_expr_type_name(obj),
                       wgk_expr_type_name(key));
}

static wgk_value *member(wgk_eval *ev, const wgk_node *n) {
  wgk_value *obj = wgk_expr_eval_node(ev, n->a);
  if (!obj) return NULL;
  wgk_value *v;
  if (n->kind == WGK_N_MEMBER) {
    v = member_by_name(ev, n, obj, n->str);
  } else {
    wgk_value *key = wgk_expr_eval_node(ev, n->b);
    v = key ? index_value(ev, n, obj, key) : NULL;
    wgk_value_release(key);
  }
  wgk_value_release(obj);
  return v;
}

/* Python slice rules as the oracle implements them (utils.ts slice). */
static wgk_value *slice_values(wgk_eval *ev, const wgk_node *n, const wgk_value *obj, const wgk_value *const part[3]) {
  int64_t len = (int64_t)wgk_value_len(obj), step = part[2] ? part[2]->u.i : 1;
  if (step == 0) return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "slice step cannot be zero");
  int64_t start, stop;
  if (step > 0) {
    start = part[0] ? part[0]->u.i : 0;
    stop = part[1] ? part[1]->u.i : len;
    start = start < 0 ? (len + start > 0 ? len + start : 0) : (start < len ? start : len);
    stop = stop < 0 ? (len + stop > 0 ? len + stop : 0) : (stop < len ? stop : len);
  } else {
    start = part[0] ? part[0]->u.i : len - 1;
    stop = part[1] ? part[1]->u.i : -1;
    start = start < 0 ? (len + start > -1 ? len + start : -1) : (start < len - 1 ? start : len - 1);
    stop = stop < -1 ? (len + stop > -1 ? len + stop : -1) : (stop < len - 1 ? stop : len - 1);
  }
  wgk_dynbuf b;
  wgk_dynbuf_init(&b, 0);
  wgk_value *out = obj->kind == WGK_VALUE_LIST ? wgk_value_list() : NULL;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    if (obj->kind == WGK_VALUE_LIST) {
      if (!wgk_value_list_append(out, wgk_value_ref(obj->u.list.items[i]))) break;
    } else {
      wgk_dynbuf_append_char(&b, obj->u.str.s[i]);
    }
  }
  if (obj->kind == WGK_VALUE_STRING) out = b.failed ? NULL : wgk_value_string_n(wgk_dynbuf_str(&b), b.len);
  wgk_dynbuf_free(&b);
  return out ? out : wgk_expr_oom(ev, n);
}

static wgk_value *slice(wgk_eval *ev, const wgk_node *n) {
  wgk_value *obj = wgk_expr_eval_node(ev, n->a);
  if (!obj) return NULL;
  wgk_value *part[3] = {NULL, NULL, NULL}, *res = NULL;
  if (obj->kind != WGK_VALUE_LIST && obj->kind != WGK_VALUE_STRING) {
    wgk_expr_fail(ev, n, WGK_ERR_EVAL, "cannot slice a %s", wgk_expr_type_name(obj));
    goto done;
  }
  for (int i = 0; i < 3; i++) {
    if (!n->items[i]) continue;
    if (!(part[i] = wgk_expr_eval_node(ev, n->items[i]))) goto done;
    if (part[i]->kind == WGK_VALUE_UNDEFINED) {
      wgk_value_release(part[i]);
      part[i] = NULL;
      continue;
    }
    if (part[i]->kind != WGK_VALUE_INT) {
      wgk_expr_fail(ev, n->items[i], WGK_ERR_EVAL, "slice bounds must be integers, not %s",
                    wgk_expr_type_name(part[i]));
      goto done;
    }
  }
  res = slice_values(ev, n, obj, (const wgk_value *const *)part);
done:
  for (int i = 0; i < 3; i++) wgk_value_release(part[i]);
  wgk_value_release(obj);
  return res;
}

void wgk_expr_free_args(wgk_value **args, size_t nargs, wgk_value *kwargs) {
  for (size_t i = 0; i < nargs; i++) wgk_value_release(args[i]);
  free(args);
  wgk_value_release(kwargs);
}

bool wgk_expr_eval_args(wgk_eval *ev, wgk_node *const *items, size_t n, wgk_value ***args, size_t *nargs,
                        wgk_value **kwargs) {
  *args = n ? calloc(n, sizeof **args) : NULL;
  *nargs = 0;
  *kwargs = NULL;
  if (n && !*args) {
    wgk_expr_oom(ev, NULL);
    return false;
  }
  for (size_t i = 0; i < n; i++) {
    const wgk_node *a = items[i];
    wgk_value *v = wgk_expr_eval_node(ev, a->kind == WGK_N_KWARG ? a->a : a);
    if (!v) goto fail;
    if (a->kind != WGK_N_KWARG) {
      (*args)[(*nargs)++] = v;
      continue;
    }
    if (!*kwargs && !(*kwargs = wgk_value_dict())) {
      wgk_value_release(v);
      wgk_expr_oom(ev, a);
      goto fail;
    }
    if (wgk_value_dict_get(*kwargs, a->str)) {
      wgk_value_release(v);
      wgk_expr_fail(ev, a, WGK_ERR_EVAL, "got multiple values for keyword argument '%s'", a->str);
      goto fail;
    }
    if (!wgk_value_dict_set(*kwargs, a->str, v)) {
      wgk_expr_oom(ev, a);
      goto fail;
    }
  }
  return true;
fail:
  wgk_expr_free_args(*args, *nargs, *kwargs);
  *args = NULL;
  *kwargs = NULL;
  *nargs = 0;
  return false;
}

wgk_value *wgk_expr_call_value(wgk_eval *ev, const wgk_node *at, const wgk_value *fn, const wgk_value *const *args,
                               size_t nargs, const wgk_value *kwargs) {
  if (fn->kind != WGK_VALUE_FUNC)
    return wgk_expr_fail(ev, at, WGK_ERR_EVAL, "cannot call a %s", wgk_expr_type_name(fn));
  wgk_value *out = NULL;
  wgk_status st = fn->u.func.fn(fn, args, nargs, kwargs, ev->scope, &out, ev->err);
  if (st != WGK_OK || !out) {
    if (!wgk_error_is_set(ev->err))
      wgk_error_set(ev->err, WGK_ERR_EVAL, NULL, 0, 0, NULL, "%s failed", fn->u.func.name);
    wgk_error_wrap_source(ev->err, at->src ? at->src : ev->source, at->line, at->col, NULL);
    wgk_value_release(out);
    return NULL;
  }
  return out;
}

static wgk_value *call(wgk_eval *ev, const wgk_node *n) {
  wgk_value **args, *kwargs;
  size_t nargs;
  if (!wgk_expr_eval_args(ev, n->items, n->n, &args, &nargs, &kwargs)) return NULL;
  wgk_value *fn = wgk_expr_eval_node(ev, n->a), *out = NULL;
  if (fn) out = wgk_expr_call_value(ev, n, fn, (const wgk_value *const *)args, nargs, kwargs);
  wgk_value_release(fn);
  wgk_expr_free_args(args, nargs, kwargs);
  return out;
}

static wgk_value *dispatch(wgk_eval *ev, const wgk_node *n) {
  switch (n->kind) {
  case WGK_N_INT:
    return int_result(ev, n, wgk_value_int_ok(n->i) ? (double)n->i : 1e300);
  case WGK_N_FLOAT:
    return float_result(ev, n, n->d);
  case WGK_N_STRING: {
    wgk_value *s = wgk_value_string_n(n->str, n->str_len);
    return s ? s : wgk_expr_oom(ev, n);
  }
  case WGK_N_NAME:
    return name_value(ev, n);
  case WGK_N_LIST:
  case WGK_N_TUPLE:
    return list_literal(ev, n);
  case WGK_N_DICT:
    return dict_literal(ev, n);
  case WGK_N_BINARY:
  case WGK_N_AND:
  case WGK_N_OR:
  case WGK_N_IN:
  case WGK_N_NOT_IN:
    return binary(ev, n);
  case WGK_N_NOT:
    return logical_not(ev, n);
  case WGK_N_UNARY:
    return unary(ev, n);
  case WGK_N_TERNARY:
    return ternary(ev, n);
  case WGK_N_TEST: {
    wgk_value *v = wgk_expr_apply_test(ev, n, NULL);
    return v;
  }
  case WGK_N_FILTER:
    return wgk_expr_apply_filter(ev, n, NULL);
  case WGK_N_MEMBER:
  case WGK_N_INDEX:
    return member(ev, n);
  case WGK_N_SLICE:
    return slice(ev, n);
  case WGK_N_CALL:
    return call(ev, n);
  case WGK_N_KWARG:
    return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "keyword argument outside a call");
  }
  return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "unknown node");
}

wgk_value *wgk_expr_eval_node(wgk_eval *ev, const wgk_node *n) {
  if (++ev->depth > WGK_EXPR_MAX_DEPTH) {
    ev->depth--;
    return wgk_expr_fail(ev, n, WGK_ERR_LIMIT, "evaluation nested too deeply (limit is %d)", WGK_EXPR_MAX_DEPTH);
  }
  wgk_value *v = dispatch(ev, n);
  ev->depth--;
  return v;
}
