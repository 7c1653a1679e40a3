/* `x | name(args)`: the oracle's filters, dispatched by operand type as it does. */
#include "expr/expr_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fargs {
  expr_value **args; /* positional */
  size_t n;
  expr_value *kw; /* keyword dict or NULL */
} fargs;

/* Positional i, else keyword name, else NULL (borrowed). */
static const expr_value *arg(const fargs *a, size_t i, const char *name) {
  if (i < a->n) return a->args[i];
  return name ? expr_value_dict_get(a->kw, name) : NULL;
}

static expr_value *unknown(expr_evaluator *ev, const expr_node *n, const expr_value *v) {
  return expr_fail(ev, n, WGK_ERR_EVAL, "unknown filter '%s' for %s", n->str, expr_type_name(v));
}

static bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* upper, lower, capitalize, title: one pass over the characters. */
static expr_value *str_case(expr_evaluator *ev, const expr_node *n, const char *s, size_t len) {
  const char *f = n->str;
  util_dynbuf b;
  util_dynbuf_init(&b, 0);
  for (size_t i = 0; i < len; i++) {
    int c = (unsigned char)s[i];
    bool word_start = i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_');
    if (f[0] == 'u' || (f[0] == 'c' && i == 0) || (f[0] == 't' && word_start))
      c = toupper(c);
    else if (f[0] == 'l')
      c = tolower(c);
    util_dynbuf_append_char(&b, (char)c);
  }
  return expr_take_string(ev, n, &b);
}

static expr_value *str_trim(expr_evaluator *ev, const expr_node *n, const char *s, size_t len) {
  util_dynbuf b;
  util_dynbuf_init(&b, 0);
  size_t i = 0, j = len;
  while (i < j && is_space(s[i])) i++;
  while (j > i && is_space(s[j - 1])) j--;
  util_dynbuf_append(&b, s + i, j - i);
  return expr_take_string(ev, n, &b);
}

/* indent(width=4, first=false, blank=false) */
static expr_value *str_indent(expr_evaluator *ev, const expr_node *n, const char *s, size_t len, const fargs *a) {
  const expr_value *w = arg(a, 0, "width"), *first = arg(a, 1, "first"), *blank = arg(a, 2, "blank");
  if (w && w->kind != WGK_VALUE_INT) return expr_fail(ev, n, WGK_ERR_EVAL, "indent width must be an integer");
  int64_t width = w ? w->u.i : 4;
  if (width < 0 || width > 1000) return expr_fail(ev, n, WGK_ERR_LIMIT, "indent width out of range (0 to 1000)");
  util_dynbuf b;
  util_dynbuf_init(&b, 0);
  size_t line = 0;
  for (size_t i = 0; i <= len; line++) {
    size_t e = i;
    while (e < len && s[e] != '\n') e++;
    bool skip = (line == 0 && !expr_value_truthy(first)) || (e == i && !expr_value_truthy(blank));
    if (!skip)
      for (int64_t k = 0; k < width; k++) util_dynbuf_append_char(&b, ' ');
    util_dynbuf_append(&b, s + i, e - i);
    if (e < len) util_dynbuf_append_char(&b, '\n');
    i = e + 1;
  }
  return expr_take_string(ev, n, &b);
}

/* join with a separator joins the characters; join without one, string and safe give the string back. */
static expr_value *str_join(expr_evaluator *ev, const expr_node *n, const expr_value *v, const fargs *a) {
  if (strcmp(n->str, "join") != 0 || a->n + (a->kw != NULL) == 0) return expr_value_ref(v);
  const expr_value *sep = arg(a, 0, "separator");
  util_dynbuf b;
  util_dynbuf_init(&b, 0);
  for (size_t i = 0; i < v->u.str.len; i++) {
    if (i && sep) expr_value_print(sep, &b);
    util_dynbuf_append_char(&b, v->u.str.s[i]);
  }
  return expr_take_string(ev, n, &b);
}

/* int(default=0) and float(default=0.0), as parseInt/parseFloat read the string. */
static expr_value *str_number(expr_evaluator *ev, const expr_node *n, const char *s, const fargs *a) {
  bool is_int = n->str[0] == 'i';
  char *end;
  double d = is_int ? (double)strtoll(s, &end, 10) : strtod(s, &end);
  const char *p = s;
  while (is_space(*p)) p++;
  if (end == s || end == p || (!is_int && !strchr("0123456789.-+", *p))) { /* parseInt/parseFloat gave NaN */
    const expr_value *def = arg(a, 0, "default");
    if (def) return expr_value_ref(def);
    return is_int ? expr_value_int(0) : expr_value_float(0);
  }
  return is_int ? expr_int_checked(d, ev->err) : expr_value_float(d);
}

static expr_value *str_filter(expr_evaluator *ev, const expr_node *n, const expr_value *v, const fargs *a) {
  const char *s = v->u.str.s, *f = n->str;
  size_t len = v->u.str.len;
  if (!strcmp(f, "upper") || !strcmp(f, "lower") || !strcmp(f, "capitalize") || !strcmp(f, "title"))
    return str_case(ev, n, s, len);
  if (!strcmp(f, "trim")) return str_trim(ev, n, s, len);
  if (!strcmp(f, "indent")) return str_indent(ev, n, s, len, a);
  if (!strcmp(f, "join") || !strcmp(f, "string") || !strcmp(f, "safe")) return str_join(ev, n, v, a);
  if (!strcmp(f, "length")) return expr_value_int((int64_t)len);
  if (!strcmp(f, "int") || !strcmp(f, "float")) return str_number(ev, n, s, a);
  if (!strcmp(f, "replace")) {
    expr_value *m = expr_method(v, "replace");
    expr_value *r = m ? expr_call_value(ev, n, m, (const expr_value *const *)a->args, a->n, a->kw) : NULL;
    expr_value_release(m);
    return r;
  }
  return unknown(ev, n, v);
}

static int compare(expr_evaluator *ev, const expr_node *n, const expr_value *x, const expr_value *y,
                   bool case_sensitive) {
  bool xn = expr_value_is_number(x) || x->kind == WGK_VALUE_BOOL,
       yn = expr_value_is_number(y) || y->kind == WGK_VALUE_BOOL;
  if (xn && yn) {
    double a = x->kind == WGK_VALUE_BOOL ? x->u.b : expr_value_as_float(x),
           b = y->kind == WGK_VALUE_BOOL ? y->u.b : expr_value_as_float(y);
    return a < b ? -1 : a > b;
  }
  if (x->kind == WGK_VALUE_STRING && y->kind == WGK_VALUE_STRING) {
    for (size_t i = 0;; i++) {
      int a = i < x->u.str.len ? (unsigned char)x->u.str.s[i] : -1,
          b = i < y->u.str.len ? (unsigned char)y->u.str.s[i] : -1;
      if (!case_sensitive && a >= 0) a = tolower(a);
      if (!case_sensitive && b >= 0) b = tolower(b);
      if (a != b) return a < b ? -1 : 1;
      if (a < 0) return 0;
    }
  }
  if (x->kind == y->kind && (x->kind == WGK_VALUE_NONE || x->kind == WGK_VALUE_UNDEFINED)) return 0;
  expr_fail(ev, n, WGK_ERR_EVAL, "cannot compare %s with %s", expr_type_name(x), expr_type_name(y));
  return 2;
}

static const expr_value *attribute_of(const expr_value *item, const expr_value *attr) {
  if (!attr) return item;
  if (attr->kind == WGK_VALUE_STRING) return expr_value_dict_get(item, attr->u.str.s);
  return expr_value_list_at(item, (size_t)attr->u.i);
}

/* Stable insertion sort: lists here are short, and a comparison can fail (mixed types). */
static expr_value *sort_list(expr_evaluator *ev, const expr_node *n, const expr_value *v, const fargs *a) {
  const expr_value *rev = arg(a, 0, "reverse"), *cs = arg(a, 1, "case_sensitive"), *attr = arg(a, 2, "attribute");
  size_t len = v->u.list.len;
  expr_value **items = malloc((len ? len : 1) * sizeof *items);
  if (!items) return expr_oom(ev, n);
  for (size_t i = 0; i < len; i++) {
    expr_value *x = v->u.list.items[i];
    size_t j = i;
    for (; j > 0; j--) {
      const expr_value *p = attribute_of(items[j - 1], attr), *q = attribute_of(x, attr);
      int c = compare(ev, n, p ? p : expr_value_undefined(), q ? q : expr_value_undefined(), expr_value_truthy(cs));
      if (c == 2) {
        free(items);
        return NULL;
      }
      if (expr_value_truthy(rev) ? c >= 0 : c <= 0) break;
      items[j] = items[j - 1];
    }
    items[j] = x;
  }
  expr_value *out = expr_value_list();
  for (size_t i = 0; out && i < len; i++)
    if (!expr_value_list_append(out, expr_value_ref(items[i]))) out = NULL;
  free(items);
  return out ? out : expr_oom(ev, n);
}

static expr_value *select_attr(expr_evaluator *ev, const expr_node *n, const expr_value *v, const fargs *a,
                               bool select) {
  const expr_value *attr = arg(a, 0, NULL), *test = arg(a, 1, NULL), *targ = arg(a, 2, NULL);
  if (!attr || attr->kind != WGK_VALUE_STRING || (test && test->kind != WGK_VALUE_STRING))
    return expr_fail(ev, n, WGK_ERR_EVAL, "arguments of '%s' must be strings", n->str);
  expr_node tn = *n;
  tn.str = test ? test->u.str.s : NULL;
  expr_value *out = expr_value_list();
  for (size_t i = 0; out && i < v->u.list.len; i++) {
    const expr_value *item = v->u.list.items[i];
    if (item->kind != WGK_VALUE_DICT) {
      expr_value_release(out);
      return expr_fail(ev, n, WGK_ERR_EVAL, "'%s' needs a list of dicts", n->str);
    }
    const expr_value *x = expr_value_dict_get(item, attr->u.str.s);
    int r = !x ? 0 : test ? expr_run_test(ev, &tn, x, targ) : expr_value_truthy(x);
    if (r < 0) {
      expr_value_release(out);
      return NULL;
    }
    if ((r != 0) == select && !expr_value_list_append(out, expr_value_ref(item))) out = NULL;
  }
  return out ? out : expr_oom(ev, n);
}

static expr_value *map_attr(expr_evaluator *ev, const expr_node *n, const expr_value *v, const fargs *a) {
  const expr_value *attr = arg(a, 99, "attribute"), *def = arg(a, 99, "default");
  if (!attr) return expr_fail(ev, n, WGK_ERR_EVAL, "map needs attribute=");
  if (attr->kind != WGK_VALUE_STRING) return expr_fail(ev, n, WGK_ERR_EVAL, "map attribute must be a string");
  expr_value *out = expr_value_list();
  for (size_t i = 0; out && i < v->u.list.len; i++) {
    const expr_value *item = v->u.list.items[i];
    if (item->kind != WGK_VALUE_DICT) {
      expr_value_release(out);
      return expr_fail(ev, n, WGK_ERR_EVAL, "items in map must be dicts");
    }
    const expr_value *x = expr_value_dict_get(item, attr->u.str.s);
    if (!expr_value_list_append(out, expr_value_ref(x ? x : def ? def : expr_value_undefined()))) out = NULL;
  }
  return out ? out : expr_oom(ev, n);
}

static expr_value *list_filter(expr_evaluator *ev, const expr_node *n, const expr_value *v, const fargs *a) {
  const char *f = n->str;
  size_t len = v->u.list.len;
  if (!strcmp(f, "list") || !strcmp(f, "safe")) return expr_value_ref(v);
  if (!strcmp(f, "first")) return expr_value_ref(len ? v->u.list.items[0] : expr_value_undefined());
  if (!strcmp(f, "last")) return expr_value_ref(len ? v->u.list.items[len - 1] : expr_value_undefined());
  if (!strcmp(f, "length") || !strcmp(f, "count")) return expr_value_int((int64_t)len);
  if (!strcmp(f, "sort")) return sort_list(ev, n, v, a);
  if (!strcmp(f, "selectattr") || !strcmp(f, "rejectattr")) return select_attr(ev, n, v, a, f[0] == 's');
  if (!strcmp(f, "map")) return map_attr(ev, n, v, a);
  if (!strcmp(f, "string")) {
    util_dynbuf b;
    util_dynbuf_init(&b, 0);
    if (!expr_print_json(v, &b, 0, 0, false, ev->err)) {
      util_dynbuf_free(&b);
      util_error_wrap(ev->err, util_pos_make(n->src ? n->src : ev->source, n->line, n->col), NULL);
      return NULL;
    }
    return expr_take_string(ev, n, &b);
  }
  if (!strcmp(f, "join")) {
    const expr_value *sep = arg(a, 0, "separator");
    if (sep && sep->kind != WGK_VALUE_STRING) return expr_fail(ev, n, WGK_ERR_EVAL, "join separator must be a string");
    util_dynbuf b;
    util_dynbuf_init(&b, 0);
    for (size_t i = 0; i < len; i++) {
      const expr_value *x = v->u.list.items[i];
      if (i && sep) util_dynbuf_append(&b, sep->u.str.s, sep->u.str.len);
      if (x->kind != WGK_VALUE_NONE && x->kind != WGK_VALUE_UNDEFINED) expr_print_raw(x, &b); /* Array.join */
    }
    return expr_take_string(ev, n, &b);
  }
  expr_value *out = expr_value_list();
  if (!out) return expr_oom(ev, n);
  if (!strcmp(f, "reverse")) {
    for (size_t i = len; out && i > 0; i--)
      if (!expr_value_list_append(out, expr_value_ref(v->u.list.items[i - 1]))) out = NULL;
    return out ? out : expr_oom(ev, n);
  }
  if (!strcmp(f, "unique")) {
    for (size_t i = 0; out && i < len; i++) {
      bool seen = false;
      for (size_t j = 0; !seen && j < out->u.list.len; j++)
        seen = expr_strict_eq(out->u.list.items[j], v->u.list.items[i]);
      if (!seen && !expr_value_list_append(out, expr_value_ref(v->u.list.items[i]))) out = NULL;
    }
    return out ? out : expr_oom(ev, n);
  }
  expr_value_release(out);
  return unknown(ev, n, v);
}

static expr_value *number_filter(expr_evaluator *ev, const expr_node *n, const expr_value *v, const fargs *a) {
  const char *f = n->str;
  bool flt = v->kind == WGK_VALUE_FLOAT;
  double d = expr_value_as_float(v);
  if (!strcmp(f, "abs")) return flt ? expr_value_float(fabs(d)) : expr_int_checked(fabs(d), ev->err);
  if (!strcmp(f, "int")) return n->has_args ? expr_value_ref(v) : expr_int_checked(floor(d), ev->err);
  if (!strcmp(f, "float")) return n->has_args ? expr_value_ref(v) : expr_value_float(d);
  if (!strcmp(f, "round")) { /* extension: Jinja's round(precision=0, method='common') */
    const expr_value *p = arg(a, 0, "precision");
    double scale = pow(10, p ? (double)expr_value_as_int(p) : 0);
    return expr_value_float(round(d * scale) / scale);
  }
  if (!strcmp(f, "string")) {
    util_dynbuf b;
    util_dynbuf_init(&b, 0);
    expr_value_print(v, &b);
    return expr_take_string(ev, n, &b);
  }
  return unknown(ev, n, v);
}

static expr_value *dict_filter(expr_evaluator *ev, const expr_node *n, const expr_value *v, const fargs *a) {
  if (!strcmp(n->str, "length")) return expr_value_int((int64_t)v->u.dict.len);
  expr_value *m = expr_method(v, n->str);
  if (!m) return unknown(ev, n, v);
  expr_value *r = expr_call_value(ev, n, m, (const expr_value *const *)a->args, a->n, a->kw);
  expr_value_release(m);
  return r;
}

static expr_value *bool_filter(expr_evaluator *ev, const expr_node *n, const expr_value *v) {
  const char *f = n->str;
  if (!strcmp(f, "bool")) return expr_value_ref(v);
  if (!strcmp(f, "int")) return expr_value_int(v->u.b);
  if (!strcmp(f, "float")) return expr_value_float(v->u.b);
  if (!strcmp(f, "string")) return expr_value_string(v->u.b ? "true" : "false");
  return unknown(ev, n, v);
}

static expr_value *tojson(expr_evaluator *ev, const expr_node *n, const expr_value *v, const fargs *a) {
  const expr_value *indent = arg(a, 99, "indent");
  if (indent && indent->kind != WGK_VALUE_INT && indent->kind != WGK_VALUE_NONE)
    return expr_fail(ev, n, WGK_ERR_EVAL, "tojson indent must be an integer");
  int64_t ind = indent && indent->kind == WGK_VALUE_INT ? indent->u.i : 0;
  if (ind < 0 || ind > 100) ind = ind < 0 ? 0 : 100;
  util_dynbuf b;
  util_dynbuf_init(&b, 0);
  if (!expr_print_json(v, &b, (int)ind, 0, true, ev->err)) {
    util_dynbuf_free(&b);
    util_error_wrap(ev->err, util_pos_make(n->src ? n->src : ev->source, n->line, n->col), NULL);
    return NULL;
  }
  return expr_take_string(ev, n, &b);
}

static expr_value *by_type(expr_evaluator *ev, const expr_node *n, const expr_value *v, const fargs *a) {
  const char *f = n->str;
  if (!strcmp(f, "safe")) return expr_value_ref(v);
  if (!strcmp(f, "tojson")) return tojson(ev, n, v, a);
  if (!strcmp(f, "default") || !strcmp(f, "d")) {
    const expr_value *def = arg(a, 0, NULL), *boolean = arg(a, 1, "boolean");
    if (v->kind == WGK_VALUE_UNDEFINED || (expr_value_truthy(boolean) && !expr_value_truthy(v)))
      return def ? expr_value_ref(def) : expr_value_string("");
    return expr_value_ref(v);
  }
  switch (v->kind) {
  case WGK_VALUE_LIST:
    return list_filter(ev, n, v, a);
  case WGK_VALUE_STRING:
    return str_filter(ev, n, v, a);
  case WGK_VALUE_INT:
  case WGK_VALUE_FLOAT:
    return number_filter(ev, n, v, a);
  case WGK_VALUE_DICT:
    return dict_filter(ev, n, v, a);
  case WGK_VALUE_BOOL:
    return bool_filter(ev, n, v);
  default:
    return expr_fail(ev, n, WGK_ERR_EVAL, "cannot apply filter '%s' to %s", f, expr_type_name(v));
  }
}

/* Filter n->str applied to the value v with its arguments evaluated (positional args, keyword dict kw or NULL). */
expr_value *expr_filter(expr_evaluator *ev, const expr_node *n, const expr_value *v, expr_value **args, size_t nargs,
                        expr_value *kw) {
  fargs a = {args, nargs, kw};
  return by_type(ev, n, v, &a);
}
