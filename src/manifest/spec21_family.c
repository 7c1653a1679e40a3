/* Manifest spec 2.1 variant families: a `variants` member {cases, variants} or {axes, exclude?, cases?,
 * variants} expands into one variant per case (or per axis cell) and template, by `{placeholder}`
 * substitution, as the public loader does: a string that is exactly `{name}` takes the case value as is
 * (null removes the member, a list splices into a list), a placeholder inside a longer string takes the
 * value's text, and a placeholder left unresolved is an error. The expanded JSON is owned by
 * m->expanded; positions point at the family's template. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/reader.h"
#include "util/strindex.h"

typedef struct subst {
  manifest_rd *rd;
  const json_t *values; /* the case's values */
  const char *what;     /* "variants[r] case k template u" for messages */
} subst;

/* `{name}` spanning the whole string: the name (written to buf), else NULL. */
static const char *whole_placeholder(const char *s, char *buf, size_t size) {
  size_t n = strlen(s);
  if (n < 3 || s[0] != '{' || s[n - 1] != '}' || n - 2 >= size) return NULL;
  if (!(isalpha((unsigned char)s[1]) || s[1] == '_')) return NULL;
  for (size_t i = 1; i + 1 < n; i++)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return NULL;
  memcpy(buf, s + 1, n - 2);
  buf[n - 2] = '\0';
  return buf;
}

/* JavaScript's String(v) of a scalar. */
static void js_text(const json_t *v, util_dynbuf *out) {
  if (json_is_string(v)) {
    util_dynbuf_append_str(out, json_string_value(v));
    return;
  }
  if (json_is_true(v)) {
    util_dynbuf_append_str(out, "true");
    return;
  }
  if (json_is_false(v)) {
    util_dynbuf_append_str(out, "false");
    return;
  }
  if (json_is_integer(v)) {
    util_dynbuf_printf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    return;
  }
  double d = json_real_value(v);
  if (d == floor(d) && fabs(d) < 1e21) {
    util_dynbuf_printf(out, "%.0f", d);
    return;
  }
  char buf[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (strtod(buf, NULL) == d) break;
  }
  util_dynbuf_append_str(out, buf);
}

static wgk_status fail(subst *s, const char *fmt, const char *a, const char *b) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, a, b);
  return manifest_fail(s->rd, "%s: %s", s->what, msg);
}

/* Substitutes inside a longer string: each `{name}` whose name the case defines. */
static wgk_status subst_text(subst *s, const char *text, json_t **out) {
  util_dynbuf b;
  util_dynbuf_init(&b, 1 << 20);
  wgk_status st = WGK_OK;
  for (const char *c = text; *c && !st;) {
    if (*c == '{' && (isalpha((unsigned char)c[1]) || c[1] == '_')) {
      const char *e = c + 1;
      while (isalnum((unsigned char)*e) || *e == '_') e++;
      if (*e == '}') {
        char name[128];
        size_t n = (size_t)(e - c - 1);
        if (n < sizeof name) {
          memcpy(name, c + 1, n);
          name[n] = '\0';
          const json_t *v = json_object_get(s->values, name);
          if (v) {
            if (json_is_null(v) || json_is_object(v) || json_is_array(v))
              st = fail(s, "substitution \"{%s}\" must occupy the whole value to take a %s case value", name,
                        json_is_null(v) ? "null" : "structured");
            else
              js_text(v, &b);
            c = e + 1;
            continue;
          }
        }
      }
    }
    util_dynbuf_append_char(&b, *c++);
  }
  *out = st || b.failed ? NULL : json_string(util_dynbuf_str(&b));
  util_dynbuf_free(&b);
  if (!st && !*out) st = WGK_ERR_OUT_OF_MEMORY;
  return st;
}

static wgk_status subst_value(subst *s, const json_t *v, int depth, const char *last_key, bool in_array, json_t **out);

/* A string: a whole "{name}" is replaced by the value (null removes the member where that is allowed), else the
 * placeholders inside the text are. */
static wgk_status subst_string(subst *s, const json_t *v, int depth, const char *last_key, bool in_array,
                               json_t **out) {
  char name[128];
  const char *ph = whole_placeholder(json_string_value(v), name, sizeof name);
  const json_t *val = ph ? json_object_get(s->values, ph) : NULL;
  if (!val) return subst_text(s, json_string_value(v), out);
  if (json_is_null(val)) {
    if (in_array)
      return fail(s,
                  "null substitution \"{%s}\" cannot delete an array element (substitute an empty "
                  "array to splice nothing)%s",
                  ph, "");
    if (depth == 0 || (last_key && strcmp(last_key, "id") == 0) || (depth == 1 && strcmp(last_key, "passes") == 0))
      return fail(s, "null substitution \"{%s}\" cannot remove %s, which is required", ph,
                  last_key ? last_key : "the variant");
    return WGK_OK;
  }
  *out = json_deep_copy(val);
  return *out ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
}

/* An array: an element that is a whole "{name}" of an array value is spliced in, every other substituted. */
static wgk_status subst_array(subst *s, const json_t *v, int depth, json_t **out) {
  char name[128];
  json_t *arr = json_array();
  if (!arr) return WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; i < json_array_size(v); i++) {
    const json_t *e = json_array_get(v, i);
    const char *ph = json_is_string(e) ? whole_placeholder(json_string_value(e), name, sizeof name) : NULL;
    const json_t *val = ph ? json_object_get(s->values, ph) : NULL;
    wgk_status st = WGK_OK;
    if (json_is_array(val)) {
      for (size_t k = 0; !st && k < json_array_size(val); k++)
        if (json_array_append_new(arr, json_deep_copy(json_array_get(val, k))) != 0) st = WGK_ERR_OUT_OF_MEMORY;
    } else {
      json_t *x = NULL;
      st = subst_value(s, e, depth + 1, NULL, true, &x);
      if (!st && json_array_append_new(arr, x) != 0) st = WGK_ERR_OUT_OF_MEMORY;
    }
    if (st) {
      json_decref(arr);
      return st;
    }
  }
  *out = arr;
  return WGK_OK;
}

/* An object key: a whole "{name}" of a scalar value becomes that value's text, else its placeholders are replaced. */
static wgk_status subst_key(subst *s, const char *key, json_t **k) {
  char name[128];
  const char *ph = whole_placeholder(key, name, sizeof name);
  const json_t *kv = ph ? json_object_get(s->values, ph) : NULL;
  if (!kv || json_is_null(kv) || json_is_object(kv) || json_is_array(kv)) return subst_text(s, key, k);
  util_dynbuf b;
  util_dynbuf_init(&b, 4096);
  js_text(kv, &b);
  *k = b.failed ? NULL : json_string(util_dynbuf_str(&b));
  util_dynbuf_free(&b);
  return *k ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
}

/* An object: keys and values substituted; a key produced twice is refused, a member whose value is removed left
 * out. */
static wgk_status subst_object(subst *s, const json_t *v, int depth, json_t **out) {
  json_t *obj = json_object();
  if (!obj) return WGK_ERR_OUT_OF_MEMORY;
  const char *key;
  const json_t *x;
  json_object_foreach((json_t *)v, key, x) {
    json_t *k = NULL;
    wgk_status st = subst_key(s, key, &k);
    if (!st && json_object_get(obj, json_string_value(k)))
      st = fail(s, "substitution produced duplicate object key \"%s\"%s", json_string_value(k), "");
    json_t *y = NULL;
    if (!st) st = subst_value(s, x, depth + 1, json_string_value(k), false, &y);
    if (!st && y && json_object_set_new(obj, json_string_value(k), y) != 0) st = WGK_ERR_OUT_OF_MEMORY;
    json_decref(k);
    if (st) {
      json_decref(obj);
      return st;
    }
  }
  *out = obj;
  return WGK_OK;
}

/* *out NULL with WGK_OK: the member is removed (a null substitution). depth/last_key tell what may be removed. */
static wgk_status subst_value(subst *s, const json_t *v, int depth, const char *last_key, bool in_array, json_t **out) {
  *out = NULL;
  if (json_is_string(v)) return subst_string(s, v, depth, last_key, in_array, out);
  if (json_is_array(v)) return subst_array(s, v, depth, out);
  if (json_is_object(v)) return subst_object(s, v, depth, out);
  *out = json_deep_copy(v);
  return *out ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
}

/* The first `{identifier}` left in a text, written to buf. */
static bool unresolved_text(const char *text, char *buf, size_t size) {
  for (const char *c = strchr(text, '{'); c; c = strchr(c + 1, '{')) {
    const char *e = c + 1;
    if (!(isalpha((unsigned char)*e) || *e == '_')) continue;
    while (isalnum((unsigned char)*e) || *e == '_') e++;
    if (*e == '}') {
      snprintf(buf, size, "%.*s", (int)(e - c + 1), c);
      return true;
    }
  }
  return false;
}

/* The first `{identifier}` left in a string or key, written to buf. */
static bool unresolved(const json_t *v, char *buf, size_t size) {
  if (json_is_string(v)) return unresolved_text(json_string_value(v), buf, size);
  if (json_is_array(v)) {
    for (size_t i = 0; i < json_array_size(v); i++)
      if (unresolved(json_array_get(v, i), buf, size)) return true;
    return false;
  }
  const char *key;
  const json_t *x;
  json_object_foreach((json_t *)v, key, x) {
    if (unresolved_text(key, buf, size) || unresolved(x, buf, size)) return true;
  }
  return false;
}

/* A case record: non-empty (when required), identifier keys, finite JSON values. */
static wgk_status check_record(manifest_rd *rd, const json_t *c, const char *what, bool nonempty) {
  if (!json_is_object(c) || (nonempty && json_object_size(c) == 0))
    return manifest_fail(rd, "%s must be a non-empty record", what);
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)c, key, v) {
    if (!manifest_identifier(key)) return manifest_fail(rd, "%s key \"%s\" must be an identifier", what, key);
    if (json_is_real(v) && !isfinite(json_real_value(v)))
      return manifest_fail(rd, "%s.%s must be a finite JSON value", what, key);
  }
  return WGK_OK;
}

/* The two axes of an axes family, with an index of each axis's $keys and of the value keys its entries use. */
typedef struct family_axes {
  const char *names[2];
  const json_t *lists[2];
  util_strindex keys[2];   /* $key -> position in its axis */
  util_strindex values[2]; /* a value key any entry of the axis has */
} family_axes;

static void axes_free(family_axes *ax) {
  for (int k = 0; k < 2; k++) {
    util_strindex_free(&ax->keys[k]);
    util_strindex_free(&ax->values[k]);
  }
}

/* One axis: entries with unique identifier $keys, value keys that are identifiers and no axis selector. */
static wgk_status axis_index(manifest_rd *rd, family_axes *ax, int k, const char *what) {
  const json_t *list = ax->lists[k];
  if (!manifest_identifier(ax->names[k]))
    return manifest_fail_in(rd, "axes", false, "%s: axis name \"%s\" must be an identifier", what, ax->names[k]);
  if (!json_is_array(list) || json_array_size(list) == 0)
    return manifest_fail_in(rd, "axes", false, "%s: axis %s must be a non-empty array", what, ax->names[k]);
  if (!util_strindex_init(&ax->keys[k], json_array_size(list)) || !util_strindex_init(&ax->values[k], 16))
    return WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; i < json_array_size(list); i++) {
    const json_t *e = json_array_get(list, i);
    const char *id = json_string_value(json_object_get(e, "$key"));
    if (!json_is_object(e) || !manifest_identifier(id))
      return manifest_fail_in(rd, "axes", false, "%s: axis %s[%zu] requires an identifier $key", what, ax->names[k], i);
    int added = util_strindex_add(&ax->keys[k], id, i, NULL);
    if (added < 0) return WGK_ERR_OUT_OF_MEMORY;
    if (added == 0)
      return manifest_fail_in(rd, "axes", false, "%s: duplicate $key \"%s\" in axis %s", what, id, ax->names[k]);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)e, key, v) {
      if (strcmp(key, "$key") == 0) continue;
      if (strcmp(key, ax->names[0]) == 0 || strcmp(key, ax->names[1]) == 0)
        return manifest_fail_in(rd, "axes", false, "%s: value \"%s\" collides with an axis selector", what, key);
      if (!manifest_identifier(key))
        return manifest_fail_in(rd, "axes", false, "%s: key \"%s\" must be an identifier", what, key);
      if (util_strindex_add(&ax->values[k], key, i, NULL) < 0) return WGK_ERR_OUT_OF_MEMORY;
    }
  }
  return WGK_OK;
}

/* The axes of fam, indexed; no value key belongs to both. */
static wgk_status axes_read(manifest_rd *rd, const json_t *fam, const char *what, family_axes *ax) {
  const json_t *list = json_object_get(fam, "axes");
  if (!json_is_object(list) || json_object_size(list) != 2)
    return manifest_fail_in(rd, "axes", false, "%s: axes must have exactly two named axes", what);
  int k = 0;
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)list, key, v) {
    ax->names[k] = key;
    ax->lists[k++] = v;
  }
  for (k = 0; k < 2; k++) {
    wgk_status st = axis_index(rd, ax, k, what);
    if (st) return st;
  }
  for (k = 0; k < 2; k++)
    for (size_t i = 0; i < json_array_size(ax->lists[k]); i++)
      json_object_foreach(json_array_get(ax->lists[k], i), key, v) {
        if (strcmp(key, "$key") != 0 && util_strindex_find(&ax->values[1 - k], key, NULL))
          return manifest_fail_in(rd, "axes", false, "%s: value \"%s\" belongs to both axes", what, key);
      }
  return WGK_OK;
}

/* What each cell (a x nb + b) is: 0 kept, 1 excluded, 2 + j overridden by cases[j]. A selector names an existing
 * key of each axis, an exclude entry exactly both axes, and no cell is selected twice. */
static wgk_status mark_cells(manifest_rd *rd, const json_t *fam, const char *what, const family_axes *ax,
                             size_t *cell) {
  size_t nb = json_array_size(ax->lists[1]);
  const json_t *exclude = json_object_get(fam, "exclude"), *cases = json_object_get(fam, "cases");
  if (exclude && !json_is_array(exclude))
    return manifest_fail_in(rd, "exclude", false, "%s: exclude must be an array", what);
  if (cases && !json_is_array(cases))
    return manifest_fail_in(rd, "cases", false, "%s: cases overrides must be an array", what);
  const json_t *sel_lists[2] = {exclude, cases};
  for (int s = 0; s < 2; s++)
    for (size_t i = 0; i < json_array_size(sel_lists[s]); i++) {
      const json_t *sel = json_array_get(sel_lists[s], i);
      const char *field = s ? "cases" : "exclude";
      if (!json_is_object(sel))
        return manifest_fail_in(rd, field, false, "%s %s[%zu] must be a selector record", what, field, i);
      size_t at[2];
      for (int k = 0; k < 2; k++) {
        const char *want = json_string_value(json_object_get(sel, ax->names[k]));
        if (!want || !util_strindex_find(&ax->keys[k], want, &at[k]))
          return manifest_fail_in(rd, field, false, "%s %s[%zu] must select an existing %s key", what, field, i,
                                  ax->names[k]);
      }
      if (s == 0 && json_object_size(sel) != 2)
        return manifest_fail_in(rd, field, false, "%s exclude[%zu] must name exactly both axes", what, i);
      size_t *c = &cell[at[0] * nb + at[1]];
      if ((s == 0 && *c == 1) || (s && *c >= 2))
        return manifest_fail_in(rd, field, false, "%s: duplicate %s cell [%s]", what, s ? "override" : "excluded",
                                json_string_value(json_object_get(sel, ax->names[0])));
      if (s && *c == 1)
        return manifest_fail_in(rd, "cases", false, "%s: override targets excluded cell [%s]", what,
                                json_string_value(json_object_get(sel, ax->names[0])));
      *c = s ? 2 + i : 1;
    }
  return WGK_OK;
}

/* One cell's values: axis a's entry, axis b's, then the override's (new reference in out). */
static wgk_status add_cell(const family_axes *ax, const json_t *ea, const json_t *eb, const json_t *over, json_t *out) {
  json_t *cell = json_object();
  bool ok = cell != NULL;
  const json_t *parts[3] = {ea, eb, over};
  const char *key;
  const json_t *v;
  for (int p = 0; p < 3 && ok; p++) {
    json_object_foreach((json_t *)parts[p], key, v) {
      if (strcmp(key, "$key") == 0 || (p == 2 && (strcmp(key, ax->names[0]) == 0 || strcmp(key, ax->names[1]) == 0)))
        continue;
      if (json_object_set(cell, key, (json_t *)v) != 0) {
        ok = false;
        break;
      }
    }
  }
  if (!ok) json_decref(cell);
  return ok && json_array_append_new(out, cell) == 0 ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
}

/* The cells of an axes family: values per cell (new references, in out). Every check goes through an index
 * ($keys, value keys, a mark per cell), so a family at the variant bound is read in linear time. */
static wgk_status axes_cells(manifest_rd *rd, const json_t *fam, const char *what, json_t *out) {
  family_axes ax = {0};
  wgk_status st = axes_read(rd, fam, what, &ax);
  size_t na = st ? 0 : json_array_size(ax.lists[0]), nb = st ? 0 : json_array_size(ax.lists[1]);
  if (!st && na > MANIFEST_MAX_VARIANTS / nb) /* family_size bounded the product already */
    st = manifest_fail_in(rd, "axes", false, "%s: axes make %zu x %zu cells (at most %d variants)", what, na, nb,
                          MANIFEST_MAX_VARIANTS);
  size_t *cell = st ? NULL : calloc(na * nb, sizeof *cell);
  if (!st && !cell) st = WGK_ERR_OUT_OF_MEMORY;
  if (!st) st = mark_cells(rd, fam, what, &ax, cell);
  const json_t *cases = json_object_get(fam, "cases");
  for (size_t a = 0; !st && a < na; a++)
    for (size_t b = 0; !st && b < nb; b++) {
      size_t c = cell[a * nb + b];
      if (c != 1)
        st = add_cell(&ax, json_array_get(ax.lists[0], a), json_array_get(ax.lists[1], b),
                      c >= 2 ? json_array_get(cases, c - 2) : NULL, out);
    }
  free(cell);
  axes_free(&ax);
  if (!st && json_array_size(out) == 0) return manifest_fail(rd, "%s: axes must retain at least one cell", what);
  return st;
}

/* Bytes of v as compact JSON text (numbers counted as 8): what an expanded variant costs to hold and read. */
static size_t json_text_size(const json_t *v) {
  if (json_is_string(v)) return json_string_length(v) + 2;
  size_t n = 2;
  if (json_is_array(v)) {
    for (size_t i = 0; i < json_array_size(v); i++) n += json_text_size(json_array_get(v, i)) + 1;
    return n;
  }
  if (json_is_object(v)) {
    const char *key;
    const json_t *x;
    json_object_foreach((json_t *)v, key, x) n += strlen(key) + 4 + json_text_size(x);
    return n;
  }
  return 8;
}

/* A family's keys: cases, variants, description, axes, and exclude with axes; description a string. */
static wgk_status check_family_keys(manifest_rd *rd, const json_t *fam, bool has_axes, const char *what) {
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)fam, key, v) {
    if (strcmp(key, "cases") && strcmp(key, "variants") && strcmp(key, "description") && strcmp(key, "axes") &&
        !(strcmp(key, "exclude") == 0 && has_axes))
      return manifest_fail_in(rd, key, true, "%s has unknown key '%s'", what, key);
  }
  const json_t *desc = json_object_get(fam, "description");
  if (desc && !json_is_string(desc))
    return manifest_fail_in(rd, "description", false, "%s description must be a string", what);
  return WGK_OK;
}

/* The cells of a cases family: each case record checked (check_record) and taken as it is. */
static wgk_status case_cells(manifest_rd *rd, const json_t *fam, const char *what, json_t *out) {
  const json_t *cases = json_object_get(fam, "cases");
  if (!json_is_array(cases) || json_array_size(cases) == 0)
    return manifest_fail(rd, "%s: family cases must be a non-empty array of case records", what);
  wgk_status st = WGK_OK;
  for (size_t i = 0; !st && i < json_array_size(cases); i++) {
    size_t mark = manifest_push_key(rd, "cases");
    manifest_push_index(rd, i);
    char w2[96];
    snprintf(w2, sizeof w2, "%s case %zu", what, i);
    st = check_record(rd, json_array_get(cases, i), w2, true);
    manifest_pop(rd, mark);
    if (!st && json_array_append(out, json_array_get(cases, i)) != 0) st = WGK_ERR_OUT_OF_MEMORY;
  }
  return st;
}

/* Template u instantiated for one cell: every placeholder resolved, the JSON expanded so far (*bytes) within its
 * bound, the variant kept by the model (its path the template's) as items[*n]. */
static wgk_status instantiate(manifest_rd *rd, const json_t *cell, const json_t *templates, size_t u, const char *w2,
                              manifest_family_item *items, size_t *n, size_t *bytes) {
  subst s = {rd, cell, w2};
  json_t *x = NULL;
  wgk_status st = subst_value(&s, json_array_get(templates, u), 0, NULL, false, &x);
  char ph[128];
  if (!st && !x) st = manifest_fail(rd, "%s: a case cannot delete the whole variant template", w2);
  if (!st && (*bytes += json_text_size(x)) > MANIFEST_MAX_EXPANDED_BYTES)
    st = manifest_fail(rd, "%s: the variants expanded so far take %zu bytes of JSON, above the bound of %zu", w2,
                       *bytes, MANIFEST_MAX_EXPANDED_BYTES);
  if (!st && unresolved(x, ph, sizeof ph)) st = manifest_fail(rd, "%s leaves unresolved placeholder \"%s\"", w2, ph);
  if (st) {
    json_decref(x);
    return st;
  }
  items[*n].json = x;
  items[*n].path = (char *)manifest_strdup(rd, util_dynbuf_str(&rd->path));
  if (json_array_append_new(rd->m->expanded, x) != 0 || !items[*n].path) return WGK_ERR_OUT_OF_MEMORY;
  (*n)++;
  return WGK_OK;
}

static wgk_status expand_family(manifest_rd *rd, const json_t *fam, size_t r, manifest_family_item *items, size_t *n,
                                size_t *bytes) {
  char what[64];
  snprintf(what, sizeof what, "variants[%zu]", r);
  bool has_axes = json_object_get(fam, "axes") != NULL;
  wgk_status st = check_family_keys(rd, fam, has_axes, what);
  if (st) return st;
  const json_t *templates = json_object_get(fam, "variants");
  if (!json_is_array(templates) || json_array_size(templates) == 0)
    return manifest_fail(rd, "%s: a family requires at least one variant template", what);
  json_t *cells = json_array();
  if (!cells) return WGK_ERR_OUT_OF_MEMORY;
  st = has_axes ? axes_cells(rd, fam, what, cells) : case_cells(rd, fam, what, cells);
  for (size_t c = 0; !st && c < json_array_size(cells); c++)
    for (size_t u = 0; !st && u < json_array_size(templates); u++) {
      size_t mark = manifest_push_key(rd, "variants");
      manifest_push_index(rd, u);
      char w2[128];
      snprintf(w2, sizeof w2, "%s case %zu template %zu", what, c, u);
      st = instantiate(rd, json_array_get(cells, c), templates, u, w2, items, n, bytes);
      manifest_pop(rd, mark);
    }
  json_decref(cells);
  return st;
}

#define FAMILY_SIZE_SATURATED ((size_t)1 << 40)

/* Upper bound of the expanded count: cases or cells times templates, saturating at 2^40. */
static size_t family_size(const json_t *fam) {
  const size_t over = FAMILY_SIZE_SATURATED;
  size_t cells = json_array_size(json_object_get(fam, "cases"));
  const json_t *axes = json_object_get(fam, "axes");
  if (axes) {
    size_t prod = 1;
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)axes, key, v) {
      size_t k = json_array_size(v) ? json_array_size(v) : 1;
      prod = prod > over / k ? over : prod * k;
    }
    cells = prod;
  }
  size_t t = json_array_size(json_object_get(fam, "variants"));
  return t && cells > over / t ? over : cells * t;
}

wgk_status manifest_spec21_expand(manifest_rd *rd, const json_t *variants, manifest_family_item **out, size_t *count) {
  size_t cap = 0, bytes = 0;
  for (size_t r = 0; r < json_array_size(variants) && cap <= MANIFEST_MAX_VARIANTS; r++) {
    const json_t *v = json_array_get(variants, r);
    bool fam = json_object_get(v, "cases") || json_object_get(v, "axes") || json_object_get(v, "exclude");
    cap += fam ? family_size(v) : 1;
  }
  if (cap > MANIFEST_MAX_VARIANTS)
    return manifest_fail_in(rd, "variants", false, "families expand to %s%zu variants (at most %d)",
                            cap >= FAMILY_SIZE_SATURATED ? "at least " : "", cap, MANIFEST_MAX_VARIANTS);
  manifest_family_item *items = manifest_alloc(rd, cap, sizeof *items);
  if (!items) return WGK_ERR_OUT_OF_MEMORY;
  if (!rd->m->expanded && !(rd->m->expanded = json_array())) return WGK_ERR_OUT_OF_MEMORY;
  size_t n = 0;
  wgk_status st = WGK_OK;
  size_t mark = manifest_push_key(rd, "variants");
  for (size_t r = 0; !st && r < json_array_size(variants); r++) {
    const json_t *v = json_array_get(variants, r);
    size_t m2 = manifest_push_index(rd, r);
    if (!json_is_object(v))
      st = manifest_fail(rd, "variants[%zu] must be an object", r);
    else if (json_object_get(v, "use"))
      st = manifest_fail_in(rd, "use", true,
                            "variants[%zu] is an unexpanded shared fragment reference; expand the "
                            "shared libraries before normalizing",
                            r);
    else if (json_object_get(v, "cases") || json_object_get(v, "axes") || json_object_get(v, "exclude"))
      st = expand_family(rd, v, r, items, &n, &bytes);
    else {
      items[n].json = v;
      items[n].path = (char *)manifest_strdup(rd, util_dynbuf_str(&rd->path));
      if (!items[n].path)
        st = WGK_ERR_OUT_OF_MEMORY;
      else
        n++;
    }
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  *out = items;
  *count = n;
  return st;
}
