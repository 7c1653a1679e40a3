/* Values: constructors, reference counting, accessors, equality. */
#include "expr/value_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The singletons carry no data, so they are shared and never counted (refs < 0). */
static expr_value undefined_value = {.refs = -1, .kind = WGK_VALUE_UNDEFINED};
static expr_value none_value = {.refs = -1, .kind = WGK_VALUE_NONE};
static expr_value true_value = {.refs = -1, .kind = WGK_VALUE_BOOL, .u.b = true};
static expr_value false_value = {.refs = -1, .kind = WGK_VALUE_BOOL, .u.b = false};

static expr_value *alloc_value(expr_value_kind kind) {
  expr_value *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  v->refs = 1;
  v->kind = kind;
  return v;
}

expr_value *expr_value_undefined(void) { return &undefined_value; }
expr_value *expr_value_none(void) { return &none_value; }
expr_value *expr_value_bool(bool b) { return b ? &true_value : &false_value; }

expr_value *expr_value_int(int64_t i) {
  expr_value *v = alloc_value(WGK_VALUE_INT);
  if (!v) return NULL;
  if (i > WGK_INT_EXACT_MAX) i = WGK_INT_EXACT_MAX;
  if (i < -WGK_INT_EXACT_MAX) i = -WGK_INT_EXACT_MAX;
  v->u.i = i;
  return v;
}

expr_value *expr_int_checked(double d, util_error *err) {
  if (!(d >= -(double)WGK_INT_EXACT_MAX && d <= (double)WGK_INT_EXACT_MAX)) {
    util_error_plain(err, WGK_ERR_EVAL, "integer overflow past 2^53");
    return NULL;
  }
  expr_value *v = expr_value_int((int64_t)d);
  if (!v) util_error_oom(err, NULL, NULL);
  return v;
}

expr_value *expr_value_float(double d) {
  expr_value *v = alloc_value(WGK_VALUE_FLOAT);
  if (v) v->u.d = d;
  return v;
}

expr_value *expr_value_string_n(const char *s, size_t len) {
  expr_value *v = alloc_value(WGK_VALUE_STRING);
  if (!v) return NULL;
  v->u.str.s = malloc(len + 1);
  if (!v->u.str.s) {
    free(v);
    return NULL;
  }
  if (len) memcpy(v->u.str.s, s, len);
  v->u.str.s[len] = '\0';
  v->u.str.len = len;
  return v;
}

expr_value *expr_value_string(const char *s) { return expr_value_string_n(s ? s : "", s ? strlen(s) : 0); }
expr_value *expr_value_list(void) { return alloc_value(WGK_VALUE_LIST); }
expr_value *expr_value_dict(void) { return alloc_value(WGK_VALUE_DICT); }

expr_value *expr_func_with_data(const char *name, expr_native_fn fn, void *data, void (*data_free)(void *)) {
  expr_value *v = alloc_value(WGK_VALUE_FUNC);
  char *copy = strdup(name ? name : "function");
  if (!v || !copy) {
    free(v);
    free(copy);
    if (data_free) data_free(data);
    return NULL;
  }
  v->u.func.name = copy;
  v->u.func.fn = fn;
  v->u.func.data = data;
  v->u.func.data_free = data_free;
  return v;
}

expr_value *expr_value_func(const char *name, expr_native_fn fn, const expr_value *self) {
  expr_value *v = expr_func_with_data(name, fn, NULL, NULL);
  if (v) v->u.func.self = expr_value_ref(self);
  return v;
}

expr_value *expr_value_ref(const expr_value *v) {
  expr_value *m = (expr_value *)v; /* counting is not a change of the value */
  if (m && m->refs > 0) m->refs++;
  return m;
}

static void free_contents(expr_value *v) {
  switch (v->kind) {
  case WGK_VALUE_STRING:
    free(v->u.str.s);
    break;
  case WGK_VALUE_LIST:
    for (size_t i = 0; i < v->u.list.len; i++) expr_value_release(v->u.list.items[i]);
    free(v->u.list.items);
    break;
  case WGK_VALUE_DICT:
    for (size_t i = 0; i < v->u.dict.len; i++) {
      free(v->u.dict.keys[i]);
      expr_value_release(v->u.dict.vals[i]);
    }
    free(v->u.dict.keys);
    free(v->u.dict.vals);
    break;
  case WGK_VALUE_FUNC:
    free(v->u.func.name);
    expr_value_release(v->u.func.self);
    if (v->u.func.data_free) v->u.func.data_free(v->u.func.data);
    break;
  default:
    break;
  }
}

void expr_value_release(expr_value *v) {
  if (!v || v->refs < 0) return;
  if (--v->refs > 0) return;
  free_contents(v);
  free(v);
}

static bool grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return true;
  size_t n = *cap ? *cap * 2 : 4;
  while (n < need) n *= 2;
  void *q = realloc(*p, n * size);
  if (!q) return false;
  *p = q;
  *cap = n;
  return true;
}

bool expr_value_list_append(expr_value *list, expr_value *item) {
  if (!list || !item || list->kind != WGK_VALUE_LIST || list->refs < 0) {
    expr_value_release(item);
    return false;
  }
  size_t cap = list->u.list.cap;
  void *p = list->u.list.items;
  if (!grow(&p, &cap, list->u.list.len + 1, sizeof(expr_value *))) {
    expr_value_release(item);
    return false;
  }
  list->u.list.items = p;
  list->u.list.cap = cap;
  list->u.list.items[list->u.list.len++] = item;
  return true;
}

expr_value *expr_value_int_list(const int64_t *ints, size_t count) {
  expr_value *list = expr_value_list();
  for (size_t i = 0; list && i < count; i++)
    if (!expr_value_list_append(list, expr_value_int(ints[i]))) {
      expr_value_release(list);
      return NULL;
    }
  return list;
}

static long dict_find(const expr_value *d, const char *key) {
  for (size_t i = 0; i < d->u.dict.len; i++)
    if (strcmp(d->u.dict.keys[i], key) == 0) return (long)i;
  return -1;
}

expr_value *expr_value_dict_copy(const expr_value *dict) {
  if (expr_value_kind_of(dict) != WGK_VALUE_DICT) return NULL;
  expr_value *copy = expr_value_dict();
  for (size_t i = 0; copy && i < expr_value_len(dict); i++)
    if (!expr_value_dict_set(copy, expr_value_dict_key_at(dict, i),
                             expr_value_ref(expr_value_dict_value_at(dict, i)))) {
      expr_value_release(copy);
      return NULL;
    }
  return copy;
}

bool expr_value_dict_set(expr_value *d, const char *key, expr_value *value) {
  if (!d || !key || !value || d->kind != WGK_VALUE_DICT) {
    expr_value_release(value);
    return false;
  }
  long at = dict_find(d, key);
  if (at >= 0) {
    expr_value_release(d->u.dict.vals[at]);
    d->u.dict.vals[at] = value;
    return true;
  }
  size_t need = d->u.dict.len + 1, kcap = d->u.dict.cap, vcap = d->u.dict.cap;
  void *k = d->u.dict.keys, *v = d->u.dict.vals;
  bool ok = grow(&k, &kcap, need, sizeof(char *));
  d->u.dict.keys = k;
  ok = ok && grow(&v, &vcap, need, sizeof(expr_value *));
  d->u.dict.vals = v;
  if (ok) d->u.dict.cap = kcap < vcap ? kcap : vcap;
  char *copy = ok ? strdup(key) : NULL;
  if (!copy) {
    expr_value_release(value);
    return false;
  }
  d->u.dict.keys[d->u.dict.len] = copy;
  d->u.dict.vals[d->u.dict.len++] = value;
  return true;
}

expr_value_kind expr_value_kind_of(const expr_value *v) { return v ? v->kind : WGK_VALUE_UNDEFINED; }

const char *expr_value_kind_name(expr_value_kind k) {
  switch (k) {
  case WGK_VALUE_UNDEFINED:
    return "undefined";
  case WGK_VALUE_NONE:
    return "none";
  case WGK_VALUE_BOOL:
    return "boolean";
  case WGK_VALUE_INT:
    return "integer";
  case WGK_VALUE_FLOAT:
    return "float";
  case WGK_VALUE_STRING:
    return "string";
  case WGK_VALUE_LIST:
    return "list";
  case WGK_VALUE_DICT:
    return "dict";
  case WGK_VALUE_FUNC:
    return "function";
  }
  return "value";
}

const char *expr_type_name(const expr_value *v) {
  if (v && v->kind == WGK_VALUE_LIST && v->is_tuple) return "tuple";
  return expr_value_kind_name(expr_value_kind_of(v));
}

bool expr_value_as_bool(const expr_value *v) { return v && v->kind == WGK_VALUE_BOOL && v->u.b; }

int64_t expr_value_as_int(const expr_value *v) {
  if (!v) return 0;
  if (v->kind == WGK_VALUE_INT) return v->u.i;
  if (v->kind == WGK_VALUE_BOOL) return v->u.b;
  if (v->kind == WGK_VALUE_FLOAT && isfinite(v->u.d) && fabs(v->u.d) < 9.2e18) return (int64_t)v->u.d;
  return 0;
}

double expr_value_as_float(const expr_value *v) {
  if (!v) return 0;
  if (v->kind == WGK_VALUE_INT) return (double)v->u.i;
  if (v->kind == WGK_VALUE_FLOAT) return v->u.d;
  return 0;
}

bool expr_value_is_number(const expr_value *v) { return v && (v->kind == WGK_VALUE_INT || v->kind == WGK_VALUE_FLOAT); }

const char *expr_value_str(const expr_value *v) { return v && v->kind == WGK_VALUE_STRING ? v->u.str.s : NULL; }
size_t expr_value_str_len(const expr_value *v) { return v && v->kind == WGK_VALUE_STRING ? v->u.str.len : 0; }

size_t expr_value_len(const expr_value *v) {
  if (!v) return 0;
  if (v->kind == WGK_VALUE_LIST) return v->u.list.len;
  if (v->kind == WGK_VALUE_DICT) return v->u.dict.len;
  if (v->kind == WGK_VALUE_STRING) return v->u.str.len;
  return 0;
}

const expr_value *expr_value_list_at(const expr_value *l, size_t i) {
  return l && l->kind == WGK_VALUE_LIST && i < l->u.list.len ? l->u.list.items[i] : NULL;
}

const expr_value *expr_value_dict_get(const expr_value *d, const char *key) {
  if (!d || !key || d->kind != WGK_VALUE_DICT) return NULL;
  long at = dict_find(d, key);
  return at < 0 ? NULL : d->u.dict.vals[at];
}

const char *expr_value_dict_key_at(const expr_value *d, size_t i) {
  return d && d->kind == WGK_VALUE_DICT && i < d->u.dict.len ? d->u.dict.keys[i] : NULL;
}

const expr_value *expr_value_dict_value_at(const expr_value *d, size_t i) {
  return d && d->kind == WGK_VALUE_DICT && i < d->u.dict.len ? d->u.dict.vals[i] : NULL;
}

bool expr_value_truthy(const expr_value *v) {
  switch (expr_value_kind_of(v)) {
  case WGK_VALUE_BOOL:
    return v->u.b;
  case WGK_VALUE_INT:
    return v->u.i != 0;
  case WGK_VALUE_FLOAT:
    return v->u.d != 0 && !isnan(v->u.d);
  case WGK_VALUE_STRING:
    return v->u.str.len > 0;
  case WGK_VALUE_LIST:
    return v->u.list.len > 0;
  case WGK_VALUE_DICT:
    return v->u.dict.len > 0;
  case WGK_VALUE_FUNC:
    return true;
  default:
    return false;
  }
}

bool expr_value_equal(const expr_value *a, const expr_value *b) {
  if (expr_value_is_number(a) && expr_value_is_number(b)) return expr_value_as_float(a) == expr_value_as_float(b);
  if (expr_value_kind_of(a) != expr_value_kind_of(b)) return false;
  switch (a->kind) {
  case WGK_VALUE_BOOL:
    return a->u.b == b->u.b;
  case WGK_VALUE_STRING:
    return a->u.str.len == b->u.str.len && memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0;
  case WGK_VALUE_LIST:
    if (a->u.list.len != b->u.list.len) return false;
    for (size_t i = 0; i < a->u.list.len; i++)
      if (!expr_value_equal(a->u.list.items[i], b->u.list.items[i])) return false;
    return true;
  case WGK_VALUE_DICT:
    if (a->u.dict.len != b->u.dict.len) return false;
    for (size_t i = 0; i < a->u.dict.len; i++) {
      const expr_value *o = expr_value_dict_get(b, a->u.dict.keys[i]);
      if (!o || !expr_value_equal(a->u.dict.vals[i], o)) return false;
    }
    return true;
  case WGK_VALUE_FUNC:
    return a == b;
  default:
    return true;
  }
}

/* JavaScript's ToNumber of a string: trimmed, "" is 0, decimal or 0x/0o/0b, else NaN. */
static double js_string_to_number(const char *s) {
  while (*s == ' ' || (*s >= '\t' && *s <= '\r')) s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || (s[n - 1] >= '\t' && s[n - 1] <= '\r'))) n--;
  if (n == 0) return 0;
  char buf[128];
  if (n >= sizeof buf) return NAN;
  memcpy(buf, s, n);
  buf[n] = '\0';
  if (strcmp(buf, "Infinity") == 0 || strcmp(buf, "+Infinity") == 0) return INFINITY;
  if (strcmp(buf, "-Infinity") == 0) return -INFINITY;
  int base = 10;
  const char *p = buf;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    base = 16;
  else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O'))
    base = 8;
  else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
    base = 2;
  char *end = NULL;
  if (base != 10) {
    if (!p[2]) return NAN;
    double r = (double)strtoull(p + 2, &end, base);
    return *end ? NAN : r;
  }
  for (const char *q = p; *q; q++)
    if (!strchr("0123456789+-.eE", *q)) return NAN; /* strtod would also take "inf", "nan", hex floats */
  double r = strtod(p, &end);
  return *end ? NAN : r;
}

static bool js_primitive_number(const expr_value *v, double *out) {
  switch (expr_value_kind_of(v)) {
  case WGK_VALUE_INT:
    *out = (double)v->u.i;
    return true;
  case WGK_VALUE_FLOAT:
    *out = v->u.d;
    return true;
  case WGK_VALUE_BOOL:
    *out = v->u.b;
    return true;
  case WGK_VALUE_STRING:
    *out = js_string_to_number(v->u.str.s);
    return true;
  default:
    return false;
  }
}

bool expr_strict_eq(const expr_value *a, const expr_value *b) {
  expr_value_kind ka = expr_value_kind_of(a), kb = expr_value_kind_of(b);
  if (expr_value_is_number(a) && expr_value_is_number(b)) return expr_value_as_float(a) == expr_value_as_float(b);
  if (ka != kb) return false;
  switch (ka) {
  case WGK_VALUE_BOOL:
    return a->u.b == b->u.b;
  case WGK_VALUE_STRING:
    return a->u.str.len == b->u.str.len && memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0;
  case WGK_VALUE_LIST:
  case WGK_VALUE_DICT:
  case WGK_VALUE_FUNC:
    return a == b;
  default:
    return true; /* none === none, undefined === undefined */
  }
}

bool expr_loose_eq(const expr_value *a, const expr_value *b) {
  expr_value_kind ka = expr_value_kind_of(a), kb = expr_value_kind_of(b);
  bool a_nullish = ka == WGK_VALUE_NONE || ka == WGK_VALUE_UNDEFINED;
  bool b_nullish = kb == WGK_VALUE_NONE || kb == WGK_VALUE_UNDEFINED;
  if (a_nullish || b_nullish) return a_nullish && b_nullish;
  if (ka == kb || (expr_value_is_number(a) && expr_value_is_number(b))) return expr_strict_eq(a, b);
  double x, y;
  /* Mixed primitives compare as numbers in JavaScript ("1" == 1, true == 1). Containers against
   * primitives would go through their string form; we call them unequal (documented). */
  if (js_primitive_number(a, &x) && js_primitive_number(b, &y)) return x == y;
  return false;
}

const expr_value *expr_value_func_self(const expr_value *fn) {
  return fn && fn->kind == WGK_VALUE_FUNC ? fn->u.func.self : NULL;
}

const char *expr_find(const char *hay, size_t hlen, const char *needle, size_t nlen) {
  if (nlen == 0) return hay;
  for (size_t i = 0; i + nlen <= hlen; i++)
    if (hay[i] == needle[0] && memcmp(hay + i, needle, nlen) == 0) return hay + i;
  return NULL;
}

/* A scope is a chain of dicts, the innermost first. */
const expr_value *expr_scope_lookup(const expr_scope *s, const char *name) {
  for (; s; s = s->parent) {
    const expr_value *v = expr_value_dict_get(s->vars, name);
    if (v) return v;
  }
  return NULL;
}
