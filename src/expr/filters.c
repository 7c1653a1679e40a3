/* `x | name(args)`: the oracle's filters, dispatched by operand type as it does. */
#include "expr/expr_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

wgk_value *wgk_expr_take_string(wgk_eval *ev, const wgk_node *n, wgk_dynbuf *b) {
  wgk_value *v = b->failed ? NULL : wgk_value_string_n(wgk_dynbuf_str(b), b->len);
  bool failed = b->failed;
  wgk_dynbuf_free(b);
  if (!v)
    return failed ? wgk_expr_fail(ev, n, WGK_ERR_LIMIT, "string too long (limit is %zu bytes)",
                                  (size_t)WGK_DYNBUF_DEFAULT_LIMIT)
                  : wgk_expr_oom(ev, n);
  return v;
}

typedef struct fargs {
  wgk_value **args; /* positional */
  size_t n;
  wgk_value *kw; /* keyword dict or NULL */
} fargs;

/* Positional i, else keyword name, else NULL (borrowed). */
static const wgk_value *arg(const fargs *a, size_t i, const char *name) {
  if (i < a->n) return a->args[i];
  return name ? wgk_value_dict_get(a->kw, name) : NULL;
}

static wgk_value *unknown(wgk_eval *ev, const wgk_node *n, const wgk_value *v) {
  return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "unknown filter '%s' for %s", n->str, wgk_expr_type_name(v));
}

static bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static wgk_value *str_filter(wgk_eval *ev, const wgk_node *n, const wgk_value *v, const fargs *a) {
  const char *s = v->u.str.s, *f = n->str;
  size_t len = v->u.str.len;
  wgk_dynbuf b;
  wgk_dynbuf_init(&b, 0);
  if (!strcmp(f, "upper") || !strcmp(f, "lower") || !strcmp(f, "capitalize") || !strcmp(f, "title")) {
    for (size_t i = 0; i < len; i++) {
      int c = (unsigned char)s[i];
      bool word_start = i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_');
      if (f[0] == 'u' || (f[0] == 'c' && i == 0) || (f[0] == 't' && word_start))
        c = toupper(c);
      else if (f[0] == 'l')
        c = tolower(c);
      wgk_dynbuf_append_char(&b, (char)c);
    }
    return wgk_expr_take_string(ev, n, &b);
  }
  if (!strcmp(f, "trim")) {
    size_t i = 0, j = len;
    while (i < j && is_space(s[i])) i++;
    while (j > i && is_space(s[j - 1])) j--;
    wgk_dynbuf_append(&b, s + i, j - i);
    return wgk_expr_take_string(ev, n, &b);
  }
  if (!strcmp(f, "indent")) {
    const wgk_value *w = arg(a, 0, "width"), *first = arg(a, 1, "first"), *blank = arg(a, 2, "blank");
    if (w && w->kind != WGK_VALUE_INT) return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "indent width must be an integer");
    int64_t width = w ? w->u.i : 4;
    if (width < 0 || width > 1000) return wgk_expr_fail(ev, n, WGK_ERR_LIMIT, "indent width out of range (0 to 1000)");
    size_t line = 0;
    for (size_t i = 0; i <= len; line++) {
      size_t e = i;
      while (e < len && s[e] != '\n') e++;
      bool skip = (line == 0 && !wgk_value_truthy(first)) || (e == i && !wgk_value_truthy(blank));
      if (!skip)
        for (int64_t k = 0; k < width; k++) wgk_dynbuf_append_char(&b, ' ');
      wgk_dynbuf_append(&b, s + i, e - i);
      if (e < len) wgk_dynbuf_append_char(&b, '\n');
      i = e + 1;
    }
    return wgk_expr_take_string(ev, n, &b);
  }
  if (!strcmp(f, "join") || !strcmp(f, "string") || !strcmp(f, "safe")) {
    if (!strcmp(f, "join") && a->n + (a->kw != NULL) > 0) { /* joins the characters with the separator */
      const wgk_value *sep = arg(a, 0, "separator");
      for (size_t i = 0; i < len; i++) {
        if (i && sep) wgk_value_print(sep, &b);
        wgk_dynbuf_append_char(&b, s[i]);
      }
      return wgk_expr_take_string(ev, n, &b);
    }
    return wgk_value_ref(v);
  }
  if (!strcmp(f, "length")) return wgk_value_int((int64_t)len);
  if (!strcmp(f, "int") || !strcmp(f, "float")) {
    char *end;
    double d = f[0] == 'i' ? (double)strtoll(s, &end, 10) : strtod(s, &end);
    const char *p = s;
    while (is_space(*p)) p++;
    if (end == s || end == p || (f[0] == 'f' && !strchr("0123456789.-+", *p))) { /* parseInt/parseFloat gave NaN */
      const wgk_value *def = arg(a, 0, "default");
      if (def) return wgk_value_ref(def);
      return f[0] == 'i' ? wgk_value_int(0) : wgk_value_float(0);
    }
    return f[0] == 'i' ? wgk_expr_int_checked(d, ev->err) : wgk_value_float(d);
  }
  if (!strcmp(f, "replace")) {
    wgk_value *m = wgk_expr_method(v, "replace");
    wgk_value *r = m ? wgk_expr_call_value(ev, n, m, (const wgk_value *const *)a->args, a->n, a->kw) : NULL;
    wgk_value_release(m);
    return r;
  }
  wgk_dynbuf_free(&b);
  return unknown(ev, n, v);
}

static int compare(wgk_eval *ev, const wgk_node *n, const wgk_value *x, const wgk_value *y, bool case_sensitive) {
  bool xn = wgk_value_is_number(x) || x->kind == WGK_VALUE_BOOL,
       yn = wgk_value_is_number(y) || y->kind == WGK_VALUE_BOOL;
  if (xn && yn) {
    double a = x->kind == WGK_VALUE_BOOL ? x->u.b : wgk_value_as_float(x),
           b = y->kind == WGK_VALUE_BOOL ? y->u.b : wgk_value_as_float(y);
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
  wgk_expr_fail(ev, n, WGK_ERR_EVAL, "cannot compare %s with %s", wgk_expr_type_name(x), wgk_expr_type_name(y));
  return 2;
}

static const wgk_value *attribute_of(const wgk_value *item, const wgk_value *attr) {
  if (!attr) return item;
  if (attr->kind == WGK_VALUE_STRING) return wgk_value_dict_get(item, attr->u.str.s);
  return wgk_value_list_at(item, (size_t)attr->u.i);
}

/* Stable insertion sort: lists here are short, and a comparison can fail (mixed types). */
static wgk_value *sort_list(wgk_eval *ev, const wgk_node *n, const wgk_value *v, const fargs *a) {
  const wgk_value *rev = arg(a, 0, "reverse"), *cs = arg(a, 1, "case_sensitive"), *attr = arg(a, 2, "attribute");
  size_t len = v->u.list.len;
  wgk_value **items = malloc((len ? len : 1) * sizeof *items);
  if (!items) return wgk_expr_oom(ev, n);
  for (size_t i = 0; i < len; i++) {
    wgk_value *x = v->u.list.items[i];
    size_t j = i;
    for (; j > 0; j--) {
      const wgk_value *p = attribute_of(items[j - 1], attr), *q = attribute_of(x, attr);
      int c = compare(ev, n, p ? p : wgk_value_undefined(), q ? q : wgk_value_undefined(), wgk_value_truthy(cs));
      if (c == 2) {
        free(items);
        return NULL;
      }
      if (wgk_value_truthy(rev) ? c >= 0 : c <= 0) break;
      items[j] = items[j - 1];
    }
    items[j] = x;
  }
  wgk_value *out = wgk_value_list();
  for (size_t i = 0; out && i < len; i++)
    if (!wgk_value_list_append(out, wgk_value_ref(items[i]))) out = NULL;
  free(items);
  return out ? out : wgk_expr_oom(ev, n);
}

static wgk_value *select_attr(wgk_eval *ev, const wgk_node *n, const wgk_value *v, const fargs *a, bool select) {
  const wgk_value *attr = arg(a, 0, NULL), *test = arg(a, 1, NULL), *targ = arg(a, 2, NULL);
  if (!attr || attr->kind != WGK_VALUE_STRING || (test && test->kind != WGK_VALUE_STRING))
    return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "arguments of '%s' must be strings", n->str);
  wgk_node tn = *n;
  tn.str = test ? test->u.str.s : NULL;
  wgk_value *out = wgk_value_list();
  for (size_t i = 0; out && i < v->u.list.len; i++) {
    const wgk_value *item = v->u.list.items[i];
    if (item->kind != WGK_VALUE_DICT) {
      wgk_value_release(out);
      return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "'%s' needs a list of dicts", n->str);
    }
    const wgk_value *x = wgk_value_dict_get(item, attr->u.str.s);
    int r = !x ? 0 : test ? wgk_expr_run_test(ev, &tn, x, targ) : wgk_value_truthy(x);
    if (r < 0) {
      wgk_value_release(out);
      return NULL;
    }
    if ((r != 0) == select && !wgk_value_list_append(out, wgk_value_ref(item))) out = NULL;
  }
  return out ? out : wgk_expr_oom(ev, n);
}

static wgk_value *map_attr(wgk_eval *ev, const wgk_node *n, const wgk_value *v, const fargs *a) {
  const wgk_value *attr = arg(a, 99, "attribute"), *def = arg(a, 99, "default");
  if (!attr) return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "map needs attribute=");
  if (attr->kind != WGK_VALUE_STRING) return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "map attribute must be a string");
  wgk_value *out = wgk_value_list();
  for (size_t i = 0; out && i < v->u.list.len; i++) {
    const wgk_value *item = v->u.list.items[i];
    if (item->kind != WGK_VALUE_DICT) {
      wgk_value_release(out);
      return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "items in map must be dicts");
    }
    const wgk_value *x = wgk_value_dict_get(item, attr->u.str.s);
    if (!wgk_value_list_append(out, wgk_value_ref(x ? x : def ? def : wgk_value_undefined()))) out = NULL;
  }
  return out ? out : wgk_expr_oom(ev, n);
}

static wgk_value *list_filter(wgk_eval *ev, const wgk_node *n, const wgk_value *v, const fargs *a) {
  const char *f = n->str;
  size_t len = v->u.list.len;
  if (!strcmp(f, "list") || !strcmp(f, "safe")) return wgk_value_ref(v);
  if (!strcmp(f, "first")) return wgk_value_ref(len ? v->u.list.items[0] : wgk_value_undefined());
  if (!strcmp(f, "last")) return wgk_value_ref(len ? v->u.list.items[len - 1] : wgk_value_undefined());
  if (!strcmp(f, "length") || !strcmp(f, "count")) return wgk_value_int((int64_t)len);
  if (!strcmp(f, "sort")) return sort_list(ev, n, v, a);
  if (!strcmp(f, "selectattr") || !strcmp(f, "rejectattr")) return select_attr(ev, n, v, a, f[0] == 's');
  if (!strcmp(f, "map")) return map_attr(ev, n, v, a);
  if (!strcmp(f, "string")) {
    wgk_dynbuf b;
    wgk_dynbuf_init(&b, 0);
    if (!wgk_expr_print_json(v, &b, 0, 0, false, ev->err)) {
      wgk_dynbuf_free(&b);
      wgk_error_wrap_source(ev->err, n->src ? n->src : ev->source, n->line, n->col, NULL);
      return NULL;
    }
    return wgk_expr_take_string(ev, n, &b);
  }
  if (!strcmp(f, "join")) {
    const wgk_value *sep = arg(a, 0, "separator");
    if (sep && sep->kind != WGK_VALUE_STRING)
      return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "join separator must be a string");
    wgk_dynbuf b;
    wgk_dynbuf_init(&b, 0);
    for (size_t i = 0; i < len; i++) {
      const wgk_value *x = v->u.list.items[i];
      if (i && sep) wgk_dynbuf_append(&b, sep->u.str.s, sep->u.str.len);
      if (x->kind != WGK_VALUE_NONE && x->kind != WGK_VALUE_UNDEFINED) wgk_expr_print_raw(x, &b); /* Array.join */
    }
    return wgk_expr_take_string(ev, n, &b);
  }
  wgk_value *out = wgk_value_list();
  if (!out) return wgk_expr_oom(ev, n);
  if (!strcmp(f, "reverse")) {
    for (size_t i = len; out && i > 0; i--)
      if (!wgk_value_list_append(out, wgk_value_ref(v->u.list.items[i - 1]))) out = NULL;
    return out ? out : wgk_expr_oom(ev, n);
  }
  if (!strcmp(f, "unique")) {
    for (size_t i = 0; out && i < len; i++) {
      bool seen = false;
      for (size_t j = 0; !seen && j < out->u.list.len; j++)
        seen = wgk_expr_strict_eq(out->u.list.items[j], v->u.list.items[i]);
      if (!seen && !wgk_value_list_append(out, wgk_value_ref(v->u.list.items[i]))) out = NULL;
    }
    return out ? out : wgk_expr_oom(ev, n);
  }
  wgk_value_release(out);
  return unknown(ev, n, v);
}

static wgk_value *number_filter(wgk_eval *ev, const wgk_node *n, const wgk_value *v, const fargs *a) {
  const char *f = n->str;
  bool flt = v->kind == WGK_VALUE_FLOAT;
  double d = wgk_value_as_float(v);
  if (!strcmp(f, "abs")) return flt ? wgk_value_float(fabs(d)) : wgk_expr_int_checked(fabs(d), ev->err);
  if (!strcmp(f, "int")) return n->has_args ? wgk_value_ref(v) : wgk_expr_int_checked(floor(d), ev->err);
  if (!strcmp(f, "float")) return n->has_args ? wgk_value_ref(v) : wgk_value_float(d);
  if (!strcmp(f, "round")) { /* extension: Jinja's round(precision=0, method='common') */
    const wgk_value *p = arg(a, 0, "precision");
    double scale = pow(10, p ? (double)wgk_value_as_int(p) : 0);
    return wgk_value_float(round(d * scale) / scale);
  }
  if (!strcmp(f, "string")) {
    wgk_dynbuf b;
    wgk_dynbuf_init(&b, 0);
    wgk_value_print(v, &b);
    return wgk_expr_take_string(ev, n, &b);
  }
  return unknown(ev, n, v);
}

static wgk_value *dict_filter(wgk_eval *ev, const wgk_node *n, const wgk_value *v, const fargs *a) {
  if (!strcmp(n->str, "length")) return wgk_value_int((int64_t)v->u.dict.len);
  wgk_value *m = wgk_expr_method(v, n->str);
  if (!m) return unknown(ev, n, v);
  wgk_value *r = wgk_expr_call_value(ev, n, m, (const wgk_value *const *)a->args, a->n, a->kw);
  wgk_value_release(m);
  return r;
}

static wgk_value *bool_filter(wgk_eval *ev, const wgk_node *n, const wgk_value *v) {
  const char *f = n->str;
  if (!strcmp(f, "bool")) return wgk_value_ref(v);
  if (!strcmp(f, "int")) return wgk_value_int(v->u.b);
  if (!strcmp(f, "float")) return wgk_value_float(v->u.b);
  if (!strcmp(f, "string")) return wgk_value_string(v->u.b ? "true" : "false");
  return unknown(ev, n, v);
}

static wgk_value *tojson(wgk_eval *ev, const wgk_node *n, const wgk_value *v, const fargs *a) {
  const wgk_value *indent = arg(a, 99, "indent");
  if (indent && indent->kind != WGK_VALUE_INT && indent->kind != WGK_VALUE_NONE)
    return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "tojson indent must be an integer");
  int64_t ind = indent && indent->kind == WGK_VALUE_INT ? indent->u.i : 0;
  if (ind < 0 || ind > 100) ind = ind < 0 ? 0 : 100;
  wgk_dynbuf b;
  wgk_dynbuf_init(&b, 0);
  if (!wgk_expr_print_json(v, &b, (int)ind, 0, true, ev->err)) {
    wgk_dynbuf_free(&b);
    wgk_error_wrap_source(ev->err, n->src ? n->src : ev->source, n->line, n->col, NULL);
    return NULL;
  }
  return wgk_expr_take_string(ev, n, &b);
}

static wgk_value *by_type(wgk_eval *ev, const wgk_node *n, const wgk_value *v, const fargs *a) {
  const char *f = n->str;
  if (!strcmp(f, "safe")) return wgk_value_ref(v);
  if (!strcmp(f, "tojson")) return tojson(ev, n, v, a);
  if (!strcmp(f, "default") || !strcmp(f, "d")) {
    const wgk_value *def = arg(a, 0, NULL), *boolean = arg(a, 1, "boolean");
    if (v->kind == WGK_VALUE_UNDEFINED || (wgk_value_truthy(boolean) && !wgk_value_truthy(v)))
      return def ? wgk_value_ref(def) : wgk_value_string("");
    return wgk_value_ref(v);
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
    return wgk_expr_fail(ev, n, WGK_ERR_EVAL, "cannot apply filter '%s' to %s", f, wgk_expr_type_name(v));
  }
}

/* Applies filter node n to operand (or to n->a evaluated when operand is NULL). */
wgk_value *wgk_expr_apply_filter(wgk_eval *ev, const wgk_node *n, const wgk_value *operand) {
  bool lenient = !strcmp(n->str, "default") || !strcmp(n->str, "d");
  wgk_value *v = operand   ? wgk_value_ref(operand)
                 : lenient ? wgk_expr_eval_lenient(ev, n->a)
                           : wgk_expr_eval_node(ev, n->a);
  if (!v) return NULL;
  fargs a = {0};
  if (!wgk_expr_eval_args(ev, n->items, n->n, &a.args, &a.n, &a.kw)) {
    wgk_value_release(v);
    return NULL;
  }
  wgk_value *r = by_type(ev, n, v, &a);
  if (!r && !wgk_error_is_set(ev->err)) wgk_expr_oom(ev, n);
  wgk_error_wrap_source(ev->err, n->src ? n->src : ev->source, n->line, n->col, NULL);
  wgk_expr_free_args(a.args, a.n, a.kw);
  wgk_value_release(v);
  return r;
}
