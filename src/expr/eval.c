/* The evaluator: names, literals, operators with the oracle's (JavaScript) number rules, members, calls. */
#include "expr/expr_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* true/false/none in either case of the first letter are globals of the oracle. */
static expr_value *constant(const char *name) {
  if (!strcmp(name, "true") || !strcmp(name, "True")) return expr_value_bool(true);
  if (!strcmp(name, "false") || !strcmp(name, "False")) return expr_value_bool(false);
  if (!strcmp(name, "none") || !strcmp(name, "None")) return expr_value_none();
  return NULL;
}

static expr_value *name_value(expr_evaluator *ev, const expr_node *n) {
  expr_value *c = constant(n->str);
  if (c) return c;
  const expr_value *v = expr_scope_lookup(ev->scope, n->str);
  if (v) return expr_value_ref(v);
  bool oom = false;
  expr_value *h = expr_helper(n->str, &oom);
  if (h) return h;
  if (oom) return expr_oom(ev, n);
  return expr_fail(ev, n, WGK_ERR_EVAL, "unknown name '%s'", n->str);
}

/* A checked integer result at node n. */
static expr_value *int_result(expr_evaluator *ev, const expr_node *n, double d) {
  expr_value *v = expr_int_checked(d, ev->err);
  if (!v) util_error_wrap(ev->err, util_pos_make(n->src ? n->src : ev->source, n->line, n->col), NULL);
  return v;
}

/* A float result must be finite: the oracle's Infinity / NaN from an overflowing + - * / is an error here, as for
 * ** (docs/expressions.md), so it cannot reach a uniform or a comparison as a silent non-number. */
static expr_value *float_result(expr_evaluator *ev, const expr_node *n, double d) {
  if (!isfinite(d)) return expr_fail(ev, n, WGK_ERR_EVAL, "float overflow: the result is not a finite number");
  expr_value *v = expr_value_float(d);
  return v ? v : expr_oom(ev, n);
}

static expr_value *list_literal(expr_evaluator *ev, const expr_node *n) {
  expr_value *l = expr_value_list();
  if (!l) return expr_oom(ev, n);
  l->is_tuple = n->kind == WGK_N_TUPLE;
  for (size_t i = 0; i < n->n; i++) {
    expr_value *item = expr_eval_node(ev, n->items[i]);
    if (!item) {
      expr_value_release(l);
      return NULL;
    }
    if (!expr_value_list_append(l, item)) {
      expr_value_release(l);
      return expr_oom(ev, n);
    }
  }
  return l;
}

static expr_value *dict_literal(expr_evaluator *ev, const expr_node *n) {
  expr_value *d = expr_value_dict();
  if (!d) return expr_oom(ev, n);
  for (size_t i = 0; i + 1 < n->n; i += 2) {
    expr_value *k = expr_eval_node(ev, n->items[i]);
    if (!k) {
      expr_value_release(d);
      return NULL;
    }
    if (k->kind != WGK_VALUE_STRING) {
      expr_fail(ev, n->items[i], WGK_ERR_EVAL, "dict keys must be strings, not %s", expr_type_name(k));
      expr_value_release(k);
      expr_value_release(d);
      return NULL;
    }
    expr_value *v = expr_eval_node(ev, n->items[i + 1]);
    bool ok = v && expr_value_dict_set(d, k->u.str.s, v);
    expr_value_release(k);
    if (!ok) {
      expr_value_release(d);
      return v ? expr_oom(ev, n) : NULL;
    }
  }
  return d;
}

static bool is_num(const expr_value *v) { return v->kind == WGK_VALUE_INT || v->kind == WGK_VALUE_FLOAT; }
static double num(const expr_value *v) { return v->kind == WGK_VALUE_BOOL ? v->u.b : expr_value_as_float(v); }

static expr_value *power(expr_evaluator *ev, const expr_node *n, const expr_value *l, const expr_value *r) {
  double a = num(l), b = num(r);
  if (a == 0 && b < 0) return expr_fail(ev, n, WGK_ERR_EVAL, "0.0 cannot be raised to a negative power");
  double res = pow(a, b);
  if (!isfinite(res)) return expr_fail(ev, n, WGK_ERR_EVAL, "exponentiation result is not a finite real number");
  if (l->kind == WGK_VALUE_FLOAT || r->kind == WGK_VALUE_FLOAT || b < 0) return float_result(ev, n, res);
  return int_result(ev, n, res);
}

/* + - * / // % of two numbers. Integer results must stay exact (|x| <= 2^53); the oracle's division and
 * modulo by zero give Infinity/NaN, which we refuse as errors (docs/expressions.md). */
static expr_value *arith(expr_evaluator *ev, const expr_node *n, const expr_value *l, const expr_value *r) {
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
    if (b == 0) return expr_fail(ev, n, WGK_ERR_EVAL, "division by zero");
    return float_result(ev, n, a / b);
  case WGK_TK_DSLASH:
    if (b == 0) return expr_fail(ev, n, WGK_ERR_EVAL, "division by zero");
    if (!flt && l->u.i % r->u.i != 0 && ((l->u.i < 0) != (r->u.i < 0)))
      return int_result(ev, n, (double)(l->u.i / r->u.i - 1));
    if (!flt) return int_result(ev, n, (double)(l->u.i / r->u.i));
    res = floor(a / b);
    break;
  case WGK_TK_PERCENT:
    if (b == 0) return expr_fail(ev, n, WGK_ERR_EVAL, "modulo by zero");
    if (!flt) return int_result(ev, n, (double)(l->u.i % r->u.i)); /* C and JS agree: sign of the dividend */
    res = fmod(a, b);
    break;
  case WGK_TK_LT:
    return expr_value_bool(a < b);
  case WGK_TK_GT:
    return expr_value_bool(a > b);
  case WGK_TK_LE:
    return expr_value_bool(a <= b);
  case WGK_TK_GE:
    return expr_value_bool(a >= b);
  default:
    return expr_fail(ev, n, WGK_ERR_EVAL, "bad operator");
  }
  if (!flt) {
    /* Exact int64 arithmetic where the double would round; the range check follows. */
    int64_t x = l->u.i, y = r->u.i, z = 0;
    bool over = n->tok == WGK_TK_PLUS    ? __builtin_add_overflow(x, y, &z)
                : n->tok == WGK_TK_MINUS ? __builtin_sub_overflow(x, y, &z)
                                         : __builtin_mul_overflow(x, y, &z);
    if (over || !expr_value_int_ok(z)) return int_result(ev, n, 1e300);
    return int_result(ev, n, (double)z);
  }
  return float_result(ev, n, res);
}

static expr_value *concat(expr_evaluator *ev, const expr_node *n, const expr_value *l, const expr_value *r) {
  util_dynbuf b;
  util_dynbuf_init(&b, 0);
  expr_print_raw(l, &b);
  expr_print_raw(r, &b);
  return expr_take_string(ev, n, &b); /* the limit, or out of memory, told apart */
}

static expr_value *list_concat(expr_evaluator *ev, const expr_node *n, const expr_value *l, const expr_value *r) {
  if (l->u.list.len + r->u.list.len > WGK_EXPR_MAX_LIST) /* refused before it is built */
    return expr_fail(ev, n, WGK_ERR_LIMIT, "list of %zu items, above the bound of %d items a list may have",
                     l->u.list.len + r->u.list.len, WGK_EXPR_MAX_LIST);
  expr_value *out = expr_value_list();
  for (size_t i = 0; out && i < l->u.list.len + r->u.list.len; i++) {
    expr_value *item = i < l->u.list.len ? l->u.list.items[i] : r->u.list.items[i - l->u.list.len];
    if (!expr_value_list_append(out, expr_value_ref(item))) {
      expr_value_release(out);
      out = NULL;
    }
  }
  return out ? out : expr_oom(ev, n);
}

static expr_value *membership(expr_evaluator *ev, const expr_node *n, const expr_value *l, const expr_value *r) {
  bool found;
  if (r->kind == WGK_VALUE_LIST) {
    found = false;
    for (size_t i = 0; !found && i < r->u.list.len; i++) found = expr_strict_eq(r->u.list.items[i], l);
  } else if (r->kind == WGK_VALUE_STRING && l->kind == WGK_VALUE_STRING) {
    found = l->u.str.len == 0 ||
            (r->u.str.len >= l->u.str.len && expr_find(r->u.str.s, r->u.str.len, l->u.str.s, l->u.str.len));
  } else if (r->kind == WGK_VALUE_DICT && l->kind == WGK_VALUE_STRING) {
    found = expr_value_dict_get(r, l->u.str.s) != NULL;
  } else {
    return expr_fail(ev, n, WGK_ERR_EVAL, "operator 'in' is not defined between %s and %s", expr_type_name(l),
                     expr_type_name(r));
  }
  return expr_value_bool(n->kind == WGK_N_IN ? found : !found);
}

static const char *op_name(const expr_node *n) {
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
static expr_value *binary_values(expr_evaluator *ev, const expr_node *n, const expr_value *l, const expr_value *r) {
  if (n->tok == WGK_TK_EQ && n->kind == WGK_N_BINARY) return expr_value_bool(expr_loose_eq(l, r));
  if (n->tok == WGK_TK_NE && n->kind == WGK_N_BINARY) return expr_value_bool(!expr_loose_eq(l, r));
  bool is_in = n->kind == WGK_N_IN || n->kind == WGK_N_NOT_IN;
  if (l->kind == WGK_VALUE_UNDEFINED || r->kind == WGK_VALUE_UNDEFINED) {
    if (r->kind == WGK_VALUE_UNDEFINED && is_in) return expr_value_bool(n->kind == WGK_N_NOT_IN);
    return expr_fail(ev, n, WGK_ERR_EVAL, "cannot apply '%s' to an undefined value", op_name(n));
  }
  if (l->kind == WGK_VALUE_NONE || r->kind == WGK_VALUE_NONE)
    return expr_fail(ev, n, WGK_ERR_EVAL, "cannot apply '%s' to none", op_name(n));
  if (is_in) return membership(ev, n, l, r);
  if (n->tok == WGK_TK_TILDE) return concat(ev, n, l, r);
  bool lnum = is_num(l) || l->kind == WGK_VALUE_BOOL, rnum = is_num(r) || r->kind == WGK_VALUE_BOOL;
  if (n->tok == WGK_TK_POW && lnum && rnum) return power(ev, n, l, r);
  if (is_num(l) && is_num(r) && n->tok != WGK_TK_POW) return arith(ev, n, l, r);
  if (l->kind == WGK_VALUE_LIST && r->kind == WGK_VALUE_LIST && n->tok == WGK_TK_PLUS) return list_concat(ev, n, l, r);
  if ((l->kind == WGK_VALUE_STRING || r->kind == WGK_VALUE_STRING) && n->tok == WGK_TK_PLUS &&
      l->kind != WGK_VALUE_LIST && r->kind != WGK_VALUE_LIST)
    return concat(ev, n, l, r);
  return expr_fail(ev, n, WGK_ERR_EVAL, "operator '%s' is not defined between %s and %s", op_name(n), expr_type_name(l),
                   expr_type_name(r));
}

static expr_value *binary(expr_evaluator *ev, const expr_node *n) {
  expr_value *l = expr_eval_node(ev, n->a);
  if (!l) return NULL;
  if (n->kind == WGK_N_AND || n->kind == WGK_N_OR) {
    if (expr_value_truthy(l) == (n->kind == WGK_N_OR)) return l;
    expr_value_release(l);
    return expr_eval_node(ev, n->b);
  }
  expr_value *r = expr_eval_node(ev, n->b);
  if (!r) {
    expr_value_release(l);
    return NULL;
  }
  expr_value *v = binary_values(ev, n, l, r);
  expr_value_release(l);
  expr_value_release(r);
  return v;
}

/* `not` tests the raw JavaScript value: a list or dict is always "true" there, so `not []` is false. */
static expr_value *logical_not(expr_evaluator *ev, const expr_node *n) {
  expr_value *v = expr_eval_node(ev, n->a);
  if (!v) return NULL;
  bool js_truthy = v->kind == WGK_VALUE_LIST || v->kind == WGK_VALUE_DICT || expr_value_truthy(v);
  expr_value_release(v);
  return expr_value_bool(!js_truthy);
}

static expr_value *unary(expr_evaluator *ev, const expr_node *n) {
  expr_value *v = expr_eval_node(ev, n->a);
  if (!v) return NULL;
  expr_value *r = NULL;
  double sign = n->tok == WGK_TK_MINUS ? -1 : 1;
  if (v->kind == WGK_VALUE_FLOAT)
    r = float_result(ev, n, sign * v->u.d);
  else if (v->kind == WGK_VALUE_INT || v->kind == WGK_VALUE_BOOL)
    r = int_result(ev, n, sign * num(v));
  else
    expr_fail(ev, n, WGK_ERR_EVAL, "unary '%s' is not defined for %s", n->tok == WGK_TK_MINUS ? "-" : "+",
              expr_type_name(v));
  expr_value_release(v);
  return r;
}

static expr_value *ternary(expr_evaluator *ev, const expr_node *n) {
  expr_value *c = expr_eval_node(ev, n->b);
  if (!c) return NULL;
  bool t = expr_value_truthy(c);
  expr_value_release(c);
  if (t) return expr_eval_node(ev, n->a);
  return n->c ? expr_eval_node(ev, n->c) : expr_value_undefined();
}

/* obj.name / obj["name"]: dict entries first, then the type's built-in methods; missing is undefined. */
static expr_value *member_by_name(expr_evaluator *ev, const expr_node *n, const expr_value *obj, const char *name) {
  if (obj->kind == WGK_VALUE_DICT) {
    const expr_value *v = expr_value_dict_get(obj, name);
    if (v) return expr_value_ref(v);
  }
  expr_value *m = NULL;
  if ((obj->kind == WGK_VALUE_LIST || obj->kind == WGK_VALUE_STRING) && !strcmp(name, "length"))
    m = expr_value_int((int64_t)expr_value_len(obj));
  else if (!(m = expr_method(obj, name)) && !expr_has_method(obj, name))
    return expr_value_undefined();
  return m ? m : expr_oom(ev, n);
}

static expr_value *index_value(expr_evaluator *ev, const expr_node *n, const expr_value *obj, const expr_value *key) {
  if (key->kind == WGK_VALUE_STRING && obj->kind != WGK_VALUE_LIST && obj->kind != WGK_VALUE_STRING)
    return member_by_name(ev, n, obj, key->u.str.s);
  if (obj->kind == WGK_VALUE_LIST || obj->kind == WGK_VALUE_STRING) {
    if (key->kind == WGK_VALUE_STRING) return member_by_name(ev, n, obj, key->u.str.s);
    if (key->kind != WGK_VALUE_INT)
      return expr_fail(ev, n, WGK_ERR_EVAL, "cannot index a %s with a %s", expr_type_name(obj), expr_type_name(key));
    int64_t len = (int64_t)expr_value_len(obj), i = key->u.i < 0 ? key->u.i + len : key->u.i;
    /* Array.prototype.at: undefined out of range; the oracle wraps that in a string for strings. */
    if (i < 0 || i >= len) return obj->kind == WGK_VALUE_LIST ? expr_value_undefined() : expr_value_string("undefined");
    expr_value *v =
        obj->kind == WGK_VALUE_LIST ? expr_value_ref(obj->u.list.items[i]) : expr_value_string_n(obj->u.str.s + i, 1);
    return v ? v : expr_oom(ev, n);
  }
  return expr_fail(ev, n, WGK_ERR_EVAL, "cannot access a member of %s with a %s", expr_type_name(obj),
                   expr_type_name(key));
}

static expr_value *member(expr_evaluator *ev, const expr_node *n) {
  expr_value *obj = expr_eval_node(ev, n->a);
  if (!obj) return NULL;
  expr_value *v;
  if (n->kind == WGK_N_MEMBER) {
    v = member_by_name(ev, n, obj, n->str);
  } else {
    expr_value *key = expr_eval_node(ev, n->b);
    v = key ? index_value(ev, n, obj, key) : NULL;
    expr_value_release(key);
  }
  expr_value_release(obj);
  return v;
}

/* Python slice rules as the oracle implements them (utils.ts slice). */
static expr_value *slice_values(expr_evaluator *ev, const expr_node *n, const expr_value *obj,
                                const expr_value *const part[3]) {
  int64_t len = (int64_t)expr_value_len(obj), step = part[2] ? part[2]->u.i : 1;
  if (step == 0) return expr_fail(ev, n, WGK_ERR_EVAL, "slice step cannot be zero");
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
  util_dynbuf b;
  util_dynbuf_init(&b, 0);
  expr_value *out = obj->kind == WGK_VALUE_LIST ? expr_value_list() : NULL;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    if (obj->kind == WGK_VALUE_LIST) {
      if (!expr_value_list_append(out, expr_value_ref(obj->u.list.items[i]))) break;
    } else {
      util_dynbuf_append_char(&b, obj->u.str.s[i]);
    }
  }
  if (obj->kind == WGK_VALUE_STRING) out = b.failed ? NULL : expr_value_string_n(util_dynbuf_str(&b), b.len);
  util_dynbuf_free(&b);
  return out ? out : expr_oom(ev, n);
}

static expr_value *slice(expr_evaluator *ev, const expr_node *n) {
  expr_value *obj = expr_eval_node(ev, n->a);
  if (!obj) return NULL;
  expr_value *part[3] = {NULL, NULL, NULL}, *res = NULL;
  if (obj->kind != WGK_VALUE_LIST && obj->kind != WGK_VALUE_STRING) {
    expr_fail(ev, n, WGK_ERR_EVAL, "cannot slice a %s", expr_type_name(obj));
    goto done;
  }
  for (int i = 0; i < 3; i++) {
    if (!n->items[i]) continue;
    if (!(part[i] = expr_eval_node(ev, n->items[i]))) goto done;
    if (part[i]->kind == WGK_VALUE_UNDEFINED) {
      expr_value_release(part[i]);
      part[i] = NULL;
      continue;
    }
    if (part[i]->kind != WGK_VALUE_INT) {
      expr_fail(ev, n->items[i], WGK_ERR_EVAL, "slice bounds must be integers, not %s", expr_type_name(part[i]));
      goto done;
    }
  }
  res = slice_values(ev, n, obj, (const expr_value *const *)part);
done:
  for (int i = 0; i < 3; i++) expr_value_release(part[i]);
  expr_value_release(obj);
  return res;
}

void expr_free_args(expr_value **args, size_t nargs, expr_value *kwargs) {
  for (size_t i = 0; i < nargs; i++) expr_value_release(args[i]);
  free(args);
  expr_value_release(kwargs);
}

bool expr_eval_args(expr_evaluator *ev, expr_node *const *items, size_t n, expr_value ***args, size_t *nargs,
                    expr_value **kwargs) {
  *args = n ? calloc(n, sizeof **args) : NULL;
  *nargs = 0;
  *kwargs = NULL;
  if (n && !*args) {
    expr_oom(ev, NULL);
    return false;
  }
  for (size_t i = 0; i < n; i++) {
    const expr_node *a = items[i];
    expr_value *v = expr_eval_node(ev, a->kind == WGK_N_KWARG ? a->a : a);
    if (!v) goto fail;
    if (a->kind != WGK_N_KWARG) {
      (*args)[(*nargs)++] = v;
      continue;
    }
    if (!*kwargs && !(*kwargs = expr_value_dict())) {
      expr_value_release(v);
      expr_oom(ev, a);
      goto fail;
    }
    if (expr_value_dict_get(*kwargs, a->str)) {
      expr_value_release(v);
      expr_fail(ev, a, WGK_ERR_EVAL, "got multiple values for keyword argument '%s'", a->str);
      goto fail;
    }
    if (!expr_value_dict_set(*kwargs, a->str, v)) {
      expr_oom(ev, a);
      goto fail;
    }
  }
  return true;
fail:
  expr_free_args(*args, *nargs, *kwargs);
  *args = NULL;
  *kwargs = NULL;
  *nargs = 0;
  return false;
}

/* An unknown bare name is an error everywhere except where it is being tested for (is defined, default). */
static expr_value *eval_lenient(expr_evaluator *ev, const expr_node *n) {
  if (n->kind == WGK_N_NAME && !expr_scope_lookup(ev->scope, n->str)) {
    bool oom = false;
    expr_value *v = expr_helper(n->str, &oom);
    if (v) return v;
    if (oom) return expr_oom(ev, n);
    if (strcmp(n->str, "true") && strcmp(n->str, "True") && strcmp(n->str, "false") && strcmp(n->str, "False") &&
        strcmp(n->str, "none") && strcmp(n->str, "None"))
      return expr_value_undefined();
  }
  return expr_eval_node(ev, n);
}

/* `x is [not] name(arg)`: the operand evaluated leniently, the argument (if any) strictly, then the test. */
static expr_value *apply_test(expr_evaluator *ev, const expr_node *n) {
  expr_value *v = eval_lenient(ev, n->a);
  if (!v) return NULL;
  expr_value *arg = NULL;
  if (n->n > 0 && !(arg = expr_eval_node(ev, n->items[0]))) {
    expr_value_release(v);
    return NULL;
  }
  int r = expr_run_test(ev, n, v, arg);
  expr_value_release(v);
  expr_value_release(arg);
  if (r < 0) return NULL;
  return expr_value_bool(n->negate ? !r : r);
}

/* Applies filter node n to operand (or to n->a evaluated when operand is NULL; leniently for `default`): the
 * arguments evaluated here, the filter itself in filters.c, any error placed at n. */
expr_value *expr_apply_filter(expr_evaluator *ev, const expr_node *n, const expr_value *operand) {
  bool lenient = !strcmp(n->str, "default") || !strcmp(n->str, "d");
  expr_value *v = operand ? expr_value_ref(operand) : lenient ? eval_lenient(ev, n->a) : expr_eval_node(ev, n->a);
  if (!v) return NULL;
  expr_value **args, *kw;
  size_t nargs;
  if (!expr_eval_args(ev, n->items, n->n, &args, &nargs, &kw)) {
    expr_value_release(v);
    return NULL;
  }
  expr_value *r = expr_filter(ev, n, v, args, nargs, kw);
  if (!r && !util_error_is_set(ev->err)) expr_oom(ev, n);
  util_error_wrap(ev->err, util_pos_make(n->src ? n->src : ev->source, n->line, n->col), NULL);
  expr_free_args(args, nargs, kw);
  expr_value_release(v);
  return r;
}

static expr_value *call(expr_evaluator *ev, const expr_node *n) {
  expr_value **args, *kwargs;
  size_t nargs;
  if (!expr_eval_args(ev, n->items, n->n, &args, &nargs, &kwargs)) return NULL;
  expr_value *fn = expr_eval_node(ev, n->a), *out = NULL;
  if (fn) out = expr_call_value(ev, n, fn, (const expr_value *const *)args, nargs, kwargs);
  expr_value_release(fn);
  expr_free_args(args, nargs, kwargs);
  return out;
}

static expr_value *dispatch(expr_evaluator *ev, const expr_node *n) {
  switch (n->kind) {
  case WGK_N_INT:
    return int_result(ev, n, expr_value_int_ok(n->i) ? (double)n->i : 1e300);
  case WGK_N_FLOAT:
    return float_result(ev, n, n->d);
  case WGK_N_STRING: {
    expr_value *s = expr_value_string_n(n->str, n->str_len);
    return s ? s : expr_oom(ev, n);
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
  case WGK_N_TEST:
    return apply_test(ev, n);
  case WGK_N_FILTER:
    return expr_apply_filter(ev, n, NULL);
  case WGK_N_MEMBER:
  case WGK_N_INDEX:
    return member(ev, n);
  case WGK_N_SLICE:
    return slice(ev, n);
  case WGK_N_CALL:
    return call(ev, n);
  case WGK_N_KWARG:
    return expr_fail(ev, n, WGK_ERR_EVAL, "keyword argument outside a call");
  }
  return expr_fail(ev, n, WGK_ERR_EVAL, "unknown node");
}

/* A list or string v just built at n (only the caller holds it: a value read from the scope is held there too)
 * counted against the bounds: its items, and the bytes built so far by this evaluation or render. */
static expr_value *count_built(expr_evaluator *ev, const expr_node *n, expr_value *v) {
  if (!v || v->refs != 1 || (v->kind != WGK_VALUE_LIST && v->kind != WGK_VALUE_STRING)) return v;
  size_t *built = ev->built ? ev->built : &ev->own_built;
  size_t bytes = v->kind == WGK_VALUE_LIST ? v->u.list.len * sizeof(expr_value *) : v->u.str.len;
  const char *what = v->kind == WGK_VALUE_LIST ? "list" : "string";
  if (v->kind == WGK_VALUE_LIST && v->u.list.len > WGK_EXPR_MAX_LIST) {
    size_t len = v->u.list.len;
    expr_value_release(v);
    return expr_fail(ev, n, WGK_ERR_LIMIT, "list of %zu items, above the bound of %d items a list may have", len,
                     WGK_EXPR_MAX_LIST);
  }
  *built += bytes;
  if (*built > WGK_EXPR_MAX_BUILT_BYTES) {
    expr_value_release(v);
    return expr_fail(ev, n, WGK_ERR_LIMIT,
                     "lists and strings built here total %zu bytes (this %s adds %zu), above the bound of %zu bytes "
                     "one evaluation or template render may build",
                     *built, what, bytes, WGK_EXPR_MAX_BUILT_BYTES);
  }
  return v;
}

expr_value *expr_eval_node(expr_evaluator *ev, const expr_node *n) {
  if (++ev->depth > WGK_EXPR_MAX_DEPTH) {
    ev->depth--;
    return expr_fail(ev, n, WGK_ERR_LIMIT, "evaluation nested too deeply (limit is %d)", WGK_EXPR_MAX_DEPTH);
  }
  expr_value *v = count_built(ev, n, dispatch(ev, n));
  ev->depth--;
  return v;
}
