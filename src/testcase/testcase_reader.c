/*
 * The reader both test.json and bench.json are read with: the JSON loaded with its position index, failures placed
 * at the value (or key) their JSON path names, path building, key checks and the top level of the document. The
 * field readers (testcase_fields.c) and the document readers (testcase_parse.c, benchcase.c) stand on it.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "testcase/tc_internal.h"
#include "util/json_pos.h"

static const char *const top_keys[] = {"schema", "description", "defaults", "cases", NULL};

wgk_status tc_parse_root(const char *text, size_t len, const char *source, tc_reader *r, json_t **root,
                         util_error *err) {
  memset(r, 0, sizeof *r);
  r->source = source;
  r->err = err;
  json_error_t jerr;
  *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  if (!*root) return util_error_at(err, WGK_ERR_PARSE, UTIL_POS(source, jerr), NULL, "%s", jerr.text);
  if (!json_is_object(*root))
    return util_error_at(err, WGK_ERR_PARSE, util_pos_make(source, 1, 1), NULL, "expected an object");
  if (util_manifest_jpos_build(text, len, &r->index) != WGK_OK)
    return util_error_oom(err, source, "indexing positions");
  return WGK_OK;
}

wgk_status tc_failv(tc_reader *r, bool at_key, const char *path, const char *fmt, va_list ap) {
  return util_error_atv(r->err, WGK_ERR_PARSE, util_manifest_jpos_pos(&r->index, r->source, path, at_key), path, fmt,
                        ap);
}

wgk_status tc_fail(tc_reader *r, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wgk_status st = tc_failv(r, false, path, fmt, ap);
  va_end(ap);
  return st;
}

/* An error at a member's key rather than its value (unknown keys). */
__attribute__((format(printf, 3, 4))) static wgk_status fail_key(tc_reader *r, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wgk_status st = tc_failv(r, true, path, fmt, ap);
  va_end(ap);
  return st;
}

char *tc_path_key(const char *parent, const char *key) {
  util_dynbuf b;
  util_dynbuf_init(&b, 0);
  util_dynbuf_append_str(&b, parent);
  util_manifest_path_key(&b, key);
  return util_dynbuf_take(&b);
}

char *tc_path_index(const char *parent, size_t i) {
  util_dynbuf b;
  util_dynbuf_init(&b, 0);
  util_dynbuf_append_str(&b, parent);
  util_manifest_path_index(&b, i);
  return util_dynbuf_take(&b);
}

wgk_status tc_pos_set(tc_reader *r, tc_pos *pos, const char *path) {
  free(pos->path);
  pos->path = strdup(path);
  if (!pos->path) return util_error_oom(r->err, r->source, path);
  const util_manifest_jpos_entry *e = util_manifest_jpos_find(&r->index, path);
  pos->line = e ? e->line : 0;
  pos->column = e ? e->column : 0;
  return WGK_OK;
}

wgk_status tc_check_keys(tc_reader *r, const json_t *obj, const char *path, const char *const *allowed) {
  if (!json_is_object(obj)) return tc_fail(r, path, "expected an object");
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    bool ok = false;
    for (const char *const *a = allowed; *a && !ok; a++) ok = strcmp(*a, key) == 0;
    if (!ok) {
      char *p = tc_path_key(path, key);
      wgk_status st = fail_key(r, p ? p : path, "unknown key '%s'", key);
      free(p);
      return st;
    }
  }
  return WGK_OK;
}

/* The top level both test.json and bench.json share: schema, description, defaults (without an id), cases. */
wgk_status tc_document(tc_reader *r, const json_t *root, const json_t **defaults, const json_t **cases) {
  wgk_status st = tc_check_keys(r, root, "", top_keys);
  if (st) return st;
  const json_t *schema = json_object_get(root, "schema");
  if (!schema) return tc_fail(r, "", "missing required key 'schema'");
  if (!json_is_integer(schema) || json_integer_value(schema) != WGK_TC_SCHEMA)
    return tc_fail(r, "schema", "unsupported schema (this wgk reads schema %d)", WGK_TC_SCHEMA);
  *defaults = json_object_get(root, "defaults");
  if (*defaults && json_object_get(*defaults, "id")) return tc_fail(r, "defaults.id", "defaults cannot give an id");
  *cases = json_object_get(root, "cases");
  if (!*cases) return tc_fail(r, "", "missing required key 'cases'");
  return WGK_OK;
}
