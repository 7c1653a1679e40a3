/* Built-in methods of values: "abc".upper(), d.items(), device.features.has('shader-f16'). */
#include "expr/expr_int.h"

#include <ctype.h>
#include <string.h>

static wgk_status fail(util_error *err, const char *msg, const char *name) {
  return util_error_plain(err, WGK_ERR_EVAL, msg, name);
}

static wgk_status done(expr_value *v, expr_value **out, util_error *err) {
  *out = v;
  return v ? WGK_OK : util_error_oom(err, NULL, NULL);
}

static bool space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static wgk_status str_case(const expr_value *self, int mode, expr_value **out, util_error *err) {
  util_dynbuf b;
  util_dynbuf_init(&b, 0);
  const char *s = self->u.str.s;
  size_t len = self->u.str.len, i = 0, j = len;
  if (mode == 's' || mode == 'l')
    while (i < j && space(s[i])) i++;
  if (mode == 's' || mode == 'r')
    while (j > i && space(s[j - 1])) j--;
  for (size_t k = i; k < j; k++) {
    int c = (unsigned char)s[k];
    bool word_start = k == 0 || !(isalnum((unsigned char)s[k - 1]) || s[k - 1] == '_');
    if (mode == 'U' || (mode == 'C' && k == 0) || (mode == 'T' && word_start)) c = toupper(c);
    if (mode == 'L') c = tolower(c);
    util_dynbuf_append_char(&b, (char)c);
  }
  expr_value *v = b.failed ? NULL : expr_value_string_n(util_dynbuf_str(&b), b.len);
  util_dynbuf_free(&b);
  return done(v, out, err);
}

#define STR_METHOD(fname, mode)                                                                               \
  static wgk_status fname(const expr_value *self, const expr_value *const *a, size_t n, const expr_value *kw, \
                          const expr_scope *sc, expr_value **out, util_error *err) {                          \
    (void)a;                                                                                                  \
    (void)n;                                                                                                  \
    (void)kw;                                                                                                 \
    (void)sc;                                                                                                 \
    return str_case(self->u.func.self, mode, out, err);                                                       \
  }
STR_METHOD(m_upper, 'U')
STR_METHOD(m_lower, 'L')
STR_METHOD(m_strip, 's')
STR_METHOD(m_lstrip, 'l')
STR_METHOD(m_rstrip, 'r')
STR_METHOD(m_title, 'T')
STR_METHOD(m_capitalize, 'C')

static bool affix(const expr_value *s, const expr_value *p, bool start) {
  if (p->u.str.len > s->u.str.len) return false;
  const char *at = start ? s->u.str.s : s->u.str.s + s->u.str.len - p->u.str.len;
  return memcmp(at, p->u.str.s, p->u.str.len) == 0;
}

static wgk_status affix_method(const expr_value *fn, const expr_value *const *a, size_t n, expr_value **out,
                               util_error *err, bool start) {
  const expr_value *s = fn->u.func.self;
  if (n == 0) return fail(err, "%s() needs an argument", start ? "startswith" : "endswith");
  bool r = false;
  if (a[0]->kind == WGK_VALUE_STRING)
    r = affix(s, a[0], start);
  else if (a[0]->kind == WGK_VALUE_LIST) {
    for (size_t i = 0; i < a[0]->u.list.len; i++) {
      if (a[0]->u.list.items[i]->kind != WGK_VALUE_STRING)
        return fail(err, "%s() tuple elements must be strings", start ? "startswith" : "endswith");
      r = r || affix(s, a[0]->u.list.items[i], start);
    }
  } else {
    return fail(err, "%s() argument must be a string or tuple of strings", start ? "startswith" : "endswith");
  }
  return done(expr_value_bool(r), out, err);
}

static wgk_status m_startswith(const expr_value *f, const expr_value *const *a, size_t n, const expr_value *kw,
                               const expr_scope *sc, expr_value **out, util_error *err) {
  (void)kw;
  (void)sc;
  return affix_method(f, a, n, out, err, true);
}

static wgk_status m_endswith(const expr_value *f, const expr_value *const *a, size_t n, const expr_value *kw,
                             const expr_scope *sc, expr_value **out, util_error *err) {
  (void)kw;
  (void)sc;
  return affix_method(f, a, n, out, err, false);
}

static bool push_str(expr_value *l, const char *s, size_t len) {
  return expr_value_list_append(l, expr_value_string_n(s, len));
}

/* Python's str.split(sep=None, maxsplit=-1). */
static wgk_status m_split(const expr_value *f, const expr_value *const *a, size_t n, const expr_value *kw,
                          const expr_scope *sc, expr_value **out, util_error *err) {
  (void)kw;
  (void)sc;
  const expr_value *self = f->u.func.self, *sep = n > 0 ? a[0] : NULL, *maxv = n > 1 ? a[1] : NULL;
  if (sep && sep->kind != WGK_VALUE_STRING && sep->kind != WGK_VALUE_NONE)
    return fail(err, "%s", "sep argument must be a string or none");
  if (maxv && maxv->kind != WGK_VALUE_INT) return fail(err, "%s", "maxsplit argument must be an integer");
  int64_t maxsplit = maxv ? maxv->u.i : -1;
  const char *s = self->u.str.s, *end = s + self->u.str.len;
  expr_value *l = expr_value_list();
  bool ok = l != NULL;
  if (!sep || sep->kind == WGK_VALUE_NONE) {
    while (ok) {
      while (s < end && space(*s)) s++;
      if (s >= end) break;
      if (maxsplit >= 0 && (int64_t)l->u.list.len >= maxsplit) {
        ok = push_str(l, s, (size_t)(end - s));
        break;
      }
      const char *w = s;
      while (s < end && !space(*s)) s++;
      ok = push_str(l, w, (size_t)(s - w));
    }
  } else {
    size_t sl = sep->u.str.len;
    if (sl == 0) {
      expr_value_release(l);
      return fail(err, "%s", "empty separator");
    }
    while (ok) {
      const char *hit = (maxsplit < 0 || (int64_t)l->u.list.len < maxsplit)
                            ? expr_find(s, (size_t)(end - s), sep->u.str.s, sl)
                            : NULL;
      if (!hit) {
        ok = push_str(l, s, (size_t)(end - s));
        break;
      }
      ok = push_str(l, s, (size_t)(hit - s));
      s = hit + sl;
    }
  }
  if (!ok) {
    expr_value_release(l);
    l = NULL;
  }
  return done(l, out, err);
}

static wgk_status m_replace(const expr_value *f, const expr_value *const *a, size_t n, const expr_value *kw,
                            const expr_scope *sc, expr_value **out, util_error *err) {
  (void)sc;
  const expr_value *self = f->u.func.self;
  if (n < 2) return fail(err, "%s", "replace() needs two arguments");
  if (a[0]->kind != WGK_VALUE_STRING || a[1]->kind != WGK_VALUE_STRING)
    return fail(err, "%s", "replace() arguments must be strings");
  const expr_value *cnt = n > 2 ? a[2] : expr_value_dict_get(kw, "count");
  if (cnt && cnt->kind != WGK_VALUE_INT && cnt->kind != WGK_VALUE_NONE)
    return fail(err, "%s", "replace() count must be an integer or none");
  int64_t left = cnt && cnt->kind == WGK_VALUE_INT && cnt->u.i >= 0 ? cnt->u.i : INT64_MAX;
  const char *s = self->u.str.s, *end = s + self->u.str.len, *old = a[0]->u.str.s;
  size_t ol = a[0]->u.str.len;
  util_dynbuf b;
  util_dynbuf_init(&b, 0);
  if (ol == 0) { /* an empty pattern matches between every character, both ends included */
    for (const char *p = s; p <= end; p++) {
      if (left > 0) {
        expr_value_print(a[1], &b);
        left--;
      }
      if (p < end) util_dynbuf_append_char(&b, *p);
    }
  } else {
    while (s < end) {
      const char *hit = left > 0 ? expr_find(s, (size_t)(end - s), old, ol) : NULL;
      if (!hit) break;
      util_dynbuf_append(&b, s, (size_t)(hit - s));
      expr_value_print(a[1], &b);
      s = hit + ol;
      left--;
    }
    util_dynbuf_append(&b, s, (size_t)(end - s));
  }
  expr_value *v = b.failed ? NULL : expr_value_string_n(util_dynbuf_str(&b), b.len);
  util_dynbuf_free(&b);
  return done(v, out, err);
}

static wgk_status dict_view(const expr_value *d, int which, expr_value **out, util_error *err) {
  expr_value *l = expr_value_list();
  for (size_t i = 0; l && i < d->u.dict.len; i++) {
    expr_value *item;
    if (which == 'k')
      item = expr_value_string(d->u.dict.keys[i]);
    else if (which == 'v')
      item = expr_value_ref(d->u.dict.vals[i]);
    else {
      item = expr_value_list();
      if (item && !(expr_value_list_append(item, expr_value_string(d->u.dict.keys[i])) &&
                    expr_value_list_append(item, expr_value_ref(d->u.dict.vals[i])))) {
        expr_value_release(item);
        item = NULL;
      }
    }
    if (!expr_value_list_append(l, item)) {
      expr_value_release(l);
      l = NULL;
    }
  }
  return done(l, out, err);
}

#define DICT_METHOD(fname, which)                                                                          \
  static wgk_status fname(const expr_value *f, const expr_value *const *a, size_t n, const expr_value *kw, \
                          const expr_scope *sc, expr_value **out, util_error *err) {                       \
    (void)a;                                                                                               \
    (void)n;                                                                                               \
    (void)kw;                                                                                              \
    (void)sc;                                                                                              \
    return dict_view(f->u.func.self, which, out, err);                                                     \
  }
DICT_METHOD(m_items, 'i')
DICT_METHOD(m_keys, 'k')
DICT_METHOD(m_values, 'v')

static wgk_status m_get(const expr_value *f, const expr_value *const *a, size_t n, const expr_value *kw,
                        const expr_scope *sc, expr_value **out, util_error *err) {
  (void)kw;
  (void)sc;
  if (n < 1 || a[0]->kind != WGK_VALUE_STRING) return fail(err, "%s", "get() needs a string key");
  const expr_value *v = expr_value_dict_get(f->u.func.self, a[0]->u.str.s);
  return done(expr_value_ref(v ? v : n > 1 ? a[1] : expr_value_none()), out, err);
}

static wgk_status m_has(const expr_value *f, const expr_value *const *a, size_t n, const expr_value *kw,
                        const expr_scope *sc, expr_value **out, util_error *err) {
  (void)kw;
  (void)sc;
  const expr_value *set = f->u.func.self;
  bool found = false;
  for (size_t i = 0; n > 0 && !found && i < set->u.list.len; i++) found = expr_strict_eq(set->u.list.items[i], a[0]);
  return done(expr_value_bool(found), out, err);
}

typedef struct method {
  expr_value_kind kind;
  const char *name;
  expr_native_fn fn;
} method;

static const method methods[] = {
    {WGK_VALUE_STRING, "upper", m_upper},
    {WGK_VALUE_STRING, "lower", m_lower},
    {WGK_VALUE_STRING, "strip", m_strip},
    {WGK_VALUE_STRING, "lstrip", m_lstrip},
    {WGK_VALUE_STRING, "rstrip", m_rstrip},
    {WGK_VALUE_STRING, "title", m_title},
    {WGK_VALUE_STRING, "capitalize", m_capitalize},
    {WGK_VALUE_STRING, "startswith", m_startswith},
    {WGK_VALUE_STRING, "endswith", m_endswith},
    {WGK_VALUE_STRING, "split", m_split},
    {WGK_VALUE_STRING, "replace", m_replace},
    {WGK_VALUE_DICT, "items", m_items},
    {WGK_VALUE_DICT, "keys", m_keys},
    {WGK_VALUE_DICT, "values", m_values},
    {WGK_VALUE_DICT, "get", m_get},
};

bool expr_has_method(const expr_value *v, const char *name) {
  if (v->kind == WGK_VALUE_LIST && v->is_set && !strcmp(name, "has")) return true;
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
    if (methods[i].kind == v->kind && !strcmp(methods[i].name, name)) return true;
  return false;
}

expr_value *expr_method(const expr_value *v, const char *name) {
  if (v->kind == WGK_VALUE_LIST && v->is_set && !strcmp(name, "has")) return expr_value_func("has", m_has, v);
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
    if (methods[i].kind == v->kind && !strcmp(methods[i].name, name)) return expr_value_func(name, methods[i].fn, v);
  return NULL;
}
