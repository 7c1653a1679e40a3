#include "expr/expr.h"
#include "manifest/reader.h"
#include "util/json_type.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The arena: a list of zeroed blocks, one per allocation, freed together with the model. */
typedef struct arena_block {
  struct arena_block *next; /* the block allocated before this one */
  max_align_t data[];       /* the caller's bytes */
} arena_block;

void *manifest_alloc(manifest_rd *rd, size_t count, size_t size) {
  if (count == 0) count = 1;
  if (size && count > (SIZE_MAX - sizeof(arena_block)) / size) goto oom;
  arena_block *b = calloc(1, sizeof *b + count * size);
  if (!b) goto oom;
  b->next = rd->m->internal;
  rd->m->internal = b;
  return b->data;
oom:
  util_error_oom(rd->err, rd->m->source, NULL);
  return NULL;
}

const char *manifest_strdup(manifest_rd *rd, const char *s) {
  size_t n = strlen(s) + 1;
  char *d = manifest_alloc(rd, n, 1);
  if (d) memcpy(d, s, n);
  return d;
}

void manifest_arena_free(void *arena) {
  for (arena_block *b = arena; b;) {
    arena_block *next = b->next;
    free(b);
    b = next;
  }
}

size_t manifest_push_key(manifest_rd *rd, const char *key) { return util_manifest_path_push_key(&rd->path, key); }

size_t manifest_push_index(manifest_rd *rd, size_t i) { return util_manifest_path_push_index(&rd->path, i); }

void manifest_pop(manifest_rd *rd, size_t mark) { util_manifest_path_pop(&rd->path, mark); }

manifest_pos manifest_here(manifest_rd *rd) {
  util_dynbuf scratch;
  util_dynbuf_init(&scratch, 1 << 16);
  const char *path = manifest_origin_path(rd, util_dynbuf_str(&rd->path), &scratch);
  const util_manifest_jpos_entry *e = util_manifest_jpos_find(rd->index, path);
  manifest_pos pos = {e ? e->line : 0, e ? e->column : 0, manifest_strdup(rd, path)};
  util_dynbuf_free(&scratch);
  if (!pos.path) pos.path = "";
  return pos;
}

static wgk_status failv(manifest_rd *rd, wgk_status st, bool at_key, const char *fmt, va_list ap) {
  util_dynbuf scratch;
  util_dynbuf_init(&scratch, 1 << 16);
  const char *path = manifest_origin_path(rd, util_dynbuf_str(&rd->path), &scratch);
  wgk_status r =
      util_error_atv(rd->err, st, util_manifest_jpos_pos(rd->index, rd->m->source, path, at_key), path, fmt, ap);
  util_dynbuf_free(&scratch);
  return r;
}

wgk_status manifest_fail(manifest_rd *rd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wgk_status st = failv(rd, WGK_ERR_MANIFEST, false, fmt, ap);
  va_end(ap);
  return st;
}

wgk_status manifest_fail_key(manifest_rd *rd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wgk_status st = failv(rd, WGK_ERR_MANIFEST, true, fmt, ap);
  va_end(ap);
  return st;
}

wgk_status manifest_fail_status(manifest_rd *rd, wgk_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wgk_status st = failv(rd, status, false, fmt, ap);
  va_end(ap);
  return st;
}

wgk_status manifest_fail_in(manifest_rd *rd, const char *key, bool at_key, const char *fmt, ...) {
  size_t mark = manifest_push_key(rd, key);
  va_list ap;
  va_start(ap, fmt);
  wgk_status st = failv(rd, WGK_ERR_MANIFEST, at_key, fmt, ap);
  va_end(ap);
  manifest_pop(rd, mark);
  return st;
}

void manifest_show(const json_t *v, char *buf, size_t size) {
  char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
  if (!s) {
    snprintf(buf, size, "?");
    return;
  }
  if (strlen(s) > 60)
    snprintf(buf, size, "%.57s...", s);
  else
    snprintf(buf, size, "%s", s);
  free(s);
}

wgk_status manifest_expect(manifest_rd *rd, const json_t *v, json_type t, const char *what) {
  if (json_typeof(v) == t || (t == JSON_TRUE && json_is_boolean(v))) return WGK_OK;
  char shown[80];
  manifest_show(v, shown, sizeof shown);
  return manifest_fail(rd, "expected %s, got %s %s", what, util_json_type_name(v), shown);
}

wgk_status manifest_object(manifest_rd *rd, const json_t *obj, const char *what, const char *const *allowed) {
  wgk_status st = manifest_expect(rd, obj, JSON_OBJECT, what);
  if (st) return st;
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    bool known = false;
    for (const char *const *a = allowed; *a && !known; a++) known = strcmp(*a, key) == 0;
    if (known) continue;
    size_t mark = manifest_push_key(rd, key);
    st = manifest_fail_key(rd, "unknown key '%s'", key);
    manifest_pop(rd, mark);
    return st;
  }
  return WGK_OK;
}

/* Looks up obj.key; a missing required key is an error at obj. *v NULL when absent. */
static wgk_status member(manifest_rd *rd, const json_t *obj, const char *key, bool required, const json_t **v) {
  *v = json_object_get(obj, key);
  if (!*v && required) return manifest_fail(rd, "missing required key '%s'", key);
  return WGK_OK;
}

wgk_status manifest_get_string(manifest_rd *rd, const json_t *obj, const char *key, bool required, const char **out) {
  const json_t *v;
  wgk_status st = member(rd, obj, key, required, &v);
  if (st || !v) return st;
  size_t mark = manifest_push_key(rd, key);
  st = manifest_expect(rd, v, JSON_STRING, "a string");
  if (!st) *out = json_string_value(v);
  manifest_pop(rd, mark);
  return st;
}

wgk_status manifest_get_bool(manifest_rd *rd, const json_t *obj, const char *key, bool required, bool *out) {
  const json_t *v;
  wgk_status st = member(rd, obj, key, required, &v);
  if (st || !v) return st;
  size_t mark = manifest_push_key(rd, key);
  st = manifest_expect(rd, v, JSON_TRUE, "a boolean");
  if (!st) *out = json_is_true(v);
  manifest_pop(rd, mark);
  return st;
}

wgk_status manifest_get_int(manifest_rd *rd, const json_t *obj, const char *key, bool required, int *out) {
  const json_t *v;
  wgk_status st = member(rd, obj, key, required, &v);
  if (st || !v) return st;
  size_t mark = manifest_push_key(rd, key);
  st = manifest_expect(rd, v, JSON_INTEGER, "an integer");
  if (!st && (json_integer_value(v) < -1000000000 || json_integer_value(v) > 1000000000))
    st = manifest_fail(rd, "integer %" JSON_INTEGER_FORMAT " is out of range", json_integer_value(v));
  if (!st) *out = (int)json_integer_value(v);
  manifest_pop(rd, mark);
  return st;
}

wgk_status manifest_read_expr(manifest_rd *rd, const json_t *v, manifest_expr *out) {
  out->pos = manifest_here(rd);
  if (json_is_integer(v)) {
    char text[32];
    snprintf(text, sizeof text, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    out->text = manifest_strdup(rd, text);
    return out->text ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
  }
  wgk_status st = manifest_expect(rd, v, JSON_STRING, "an expression string");
  if (st) return st;
  if (json_string_length(v) == 0) return manifest_fail(rd, "empty expression");
  out->text = json_string_value(v);
  if (out->pos.column > 0) out->pos.column++; /* past the opening quote */
  /* A syntax error is the manifest's, found at load: not only when a call first evaluates the expression (a
   * rejected variant's dispatch might never be). The planner parses it again, once, and keeps it. */
  util_error perr;
  util_error_clear(&perr);
  expr_program *parsed = expr_parse(out->text, json_string_length(v), "<expr>", &perr);
  if (!parsed) {
    if (perr.status == WGK_ERR_OUT_OF_MEMORY) return util_error_oom(rd->err, rd->m->source, NULL);
    char at[32] = "";
    if (perr.line == 1 && perr.column > 0) snprintf(at, sizeof at, " (column %d of the expression)", perr.column);
    return manifest_fail(rd, "expression '%.80s%s' does not parse: %s%s", out->text,
                         json_string_length(v) > 80 ? "..." : "", perr.message, at);
  }
  expr_free(parsed);
  return WGK_OK;
}

wgk_status manifest_get_expr(manifest_rd *rd, const json_t *obj, const char *key, bool required, manifest_expr *out) {
  const json_t *v;
  wgk_status st = member(rd, obj, key, required, &v);
  if (st || !v) return st;
  size_t mark = manifest_push_key(rd, key);
  st = manifest_read_expr(rd, v, out);
  manifest_pop(rd, mark);
  return st;
}

wgk_status manifest_read_value(manifest_rd *rd, const char *name, const json_t *v, manifest_value *out) {
  out->name = name;
  out->pos = manifest_here(rd);
  if (json_is_null(v)) return manifest_fail(rd, "expected an expression string or a literal, got null");
  if (!json_is_string(v)) {
    out->literal = v;
    return WGK_OK;
  }
  out->is_expr = true;
  return manifest_read_expr(rd, v, &out->expr);
}

wgk_status manifest_get_values(manifest_rd *rd, const json_t *obj, const char *key, const manifest_value **out,
                               size_t *n) {
  const json_t *map = json_object_get(obj, key);
  if (!map) return WGK_OK;
  size_t mark = manifest_push_key(rd, key);
  wgk_status st = manifest_expect(rd, map, JSON_OBJECT, "an object");
  manifest_value *vals = st ? NULL : manifest_alloc(rd, json_object_size(map), sizeof *vals);
  if (!st && !vals) st = WGK_ERR_OUT_OF_MEMORY;
  const char *name;
  const json_t *v;
  size_t i = 0;
  if (!st) json_object_foreach((json_t *)map, name, v) {
      size_t m2 = manifest_push_key(rd, name);
      st = manifest_read_value(rd, name, v, &vals[i++]);
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  if (!st) {
    *out = vals;
    *n = i;
  }
  return st;
}

wgk_status manifest_check_name(manifest_rd *rd, const char *key, const char *text, const char *what, bool wgsl) {
  bool ok = text && *text && !(wgsl && text[0] >= '0' && text[0] <= '9');
  for (const char *c = text; ok && *c; c++)
    ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
         (!wgsl && (*c == '.' || *c == '-'));
  if (ok) return WGK_OK;
  char shown[80];
  json_t *j = json_string(text ? text : "");
  manifest_show(j, shown, sizeof shown);
  json_decref(j);
  return manifest_fail_in(rd, key, false, "%s %s is not %s", what, shown,
                          wgsl ? "a WGSL identifier ([A-Za-z_][A-Za-z0-9_]*)" : "an id of letters, digits and _ . -");
}
