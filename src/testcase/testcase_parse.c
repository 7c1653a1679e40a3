/*
 * test.json reader. Each case is read in two layers: first "defaults", then the case itself, through the
 * same field readers, so a case value replaces a default one (per key for object fields). Every value
 * keeps the JSON path it was read from, and the position index (a second scan of the text) turns that
 * path into line and column for messages.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_pos.h"
#include "device/device_desc.h"
#include "testcase/tc_internal.h"

static const char *const case_keys[] = {"id",          "description", "inputs",         "absent",    "attrs",
                                        "args",        "tunables",    "expected",       "tolerance", "requires",
                                        "expectError", "variant",     "variantWithout", NULL};

/* A list of strings (absent, requires), replacing what an earlier layer gave. */
wgk_status tc_read_strings(tc_reader *r, const json_t *v, const char *path, char ***out, size_t *n) {
  if (!json_is_array(v)) return tc_fail(r, path, "expected a list of strings");
  for (size_t i = 0; i < *n; i++) free((*out)[i]);
  free(*out);
  *n = 0;
  *out = calloc(json_array_size(v) + 1, sizeof **out);
  if (!*out) return util_error_oom(r->err, r->source, path);
  for (size_t i = 0; i < json_array_size(v); i++) {
    const json_t *s = json_array_get(v, i);
    if (!json_is_string(s)) {
      char *p = tc_path_index(path, i);
      wgk_status st = tc_fail(r, p ? p : path, "expected a string");
      free(p);
      return st;
    }
    if (!((*out)[(*n)++] = strdup(json_string_value(s)))) return util_error_oom(r->err, r->source, path);
  }
  return WGK_OK;
}

static wgk_status read_string(tc_reader *r, const json_t *v, const char *path, char **out) {
  if (!json_is_string(v)) return tc_fail(r, path, "expected a string");
  free(*out);
  *out = strdup(json_string_value(v));
  return *out ? WGK_OK : util_error_oom(r->err, r->source, path);
}

wgk_status tc_check_features(tc_reader *r, char *const *names, size_t n, const char *path) {
  for (size_t i = 0; i < n; i++) {
    device_feature f;
    if (!device_feature_from_name(names[i], &f)) {
      char *p = tc_path_index(path, i);
      wgk_status st = tc_fail(r, p ? p : path, "unknown device feature '%s'", names[i]);
      free(p);
      return st;
    }
  }
  return WGK_OK;
}

/* variantWithout: {"shader-f16": "<variant id>", ...}, replacing what an earlier layer gave. */
static wgk_status read_variant_without(tc_reader *r, tc_case *c, const json_t *v, const char *path) {
  if (!json_is_object(v)) return tc_fail(r, path, "expected an object {feature: variant id}");
  for (size_t i = 0; i < 2 * c->n_variant_without; i++) free(c->variant_without[i]);
  free(c->variant_without);
  c->n_variant_without = 0;
  c->variant_without = calloc(2 * json_object_size(v) + 1, sizeof *c->variant_without);
  if (!c->variant_without) return util_error_oom(r->err, r->source, path);
  const char *key;
  const json_t *id;
  json_object_foreach((json_t *)v, key, id) {
    char *p = tc_path_key(path, key);
    device_feature f;
    wgk_status st = !device_feature_from_name(key, &f) ? tc_fail(r, p ? p : path, "unknown device feature '%s'", key)
                    : !json_is_string(id)              ? tc_fail(r, p ? p : path, "expected a variant id (a string)")
                                                       : WGK_OK;
    free(p);
    if (st) return st;
    char **pair = &c->variant_without[2 * c->n_variant_without];
    pair[0] = strdup(key);
    pair[1] = pair[0] ? strdup(json_string_value(id)) : NULL;
    if (!pair[1]) {
      free(pair[0]);
      pair[0] = NULL;
      return util_error_oom(r->err, r->source, path);
    }
    c->n_variant_without++;
  }
  return WGK_OK;
}

/* One field of a case layer. */
static wgk_status read_field(tc_reader *r, tc_case *c, const char *key, const json_t *v, const char *path) {
  if (strcmp(key, "id") == 0) return read_string(r, v, path, &c->id);
  if (strcmp(key, "description") == 0) return read_string(r, v, path, &c->description);
  if (strcmp(key, "expectError") == 0) return read_string(r, v, path, &c->expect_error);
  if (strcmp(key, "variant") == 0) return read_string(r, v, path, &c->variant);
  if (strcmp(key, "variantWithout") == 0) return read_variant_without(r, c, v, path);
  if (strcmp(key, "absent") == 0) return tc_read_strings(r, v, path, &c->absent, &c->n_absent);
  if (strcmp(key, "requires") == 0) {
    wgk_status st = tc_read_strings(r, v, path, &c->requires, &c->n_requires);
    return st ? st : tc_check_features(r, c->requires, c->n_requires, path);
  }
  if (strcmp(key, "inputs") == 0) return tc_read_input_map(r, v, path, &c->inputs, &c->n_inputs, false);
  if (strcmp(key, "attrs") == 0) return tc_read_values(r, v, path, &c->attrs, &c->n_attrs, false);
  if (strcmp(key, "args") == 0) return tc_read_values(r, v, path, &c->args, &c->n_args, false);
  if (strcmp(key, "tunables") == 0) return tc_read_values(r, v, path, &c->tunables, &c->n_tunables, true);
  if (strcmp(key, "tolerance") == 0) return tc_read_tolerance(r, c, v, path);
  if (strcmp(key, "expected") == 0) return tc_read_expected(r, c, v, path);
  return tc_fail(r, path, "unknown key '%s'", key);
}

static wgk_status read_layer(tc_reader *r, tc_case *c, const json_t *obj, const char *path) {
  wgk_status st = tc_check_keys(r, obj, path, case_keys);
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    if (st) break;
    char *p = tc_path_key(path, key);
    if (!p) return util_error_oom(r->err, r->source, path);
    st = read_field(r, c, key, v, p);
    free(p);
  }
  return st;
}

static void case_defaults(tc_case *c) {
  for (int d = 0; d <= WGK_DTYPE_INT16; d++) c->tol[d] = tc_default_tolerance((wgk_dtype)d);
}

/* What every case must have once both layers are read. */
static wgk_status check_case(tc_reader *r, const tc_suite *s, size_t index, const char *path) {
  const tc_case *c = &s->cases[index];
  if (!c->id || !c->id[0]) return tc_fail(r, path, "a case needs a non-empty \"id\"");
  for (size_t j = 0; j < index; j++)
    if (strcmp(s->cases[j].id, c->id) == 0) return tc_fail(r, path, "duplicate case id '%s'", c->id);
  if (!c->expect_error && !c->reference && c->n_expected == 0)
    return tc_fail(r, path, "case '%s' has neither \"expected\" nor \"expectError\"", c->id);
  for (size_t a = 0; a < c->n_absent; a++)
    for (size_t i = 0; i < c->n_inputs; i++)
      if (strcmp(c->absent[a], c->inputs[i].key) == 0)
        return tc_fail(r, path, "'%s' is both an input and absent", c->absent[a]);
  return WGK_OK;
}

static wgk_status read_cases(tc_reader *r, tc_suite *s, const json_t *cases, const json_t *defaults) {
  if (!json_is_array(cases)) return tc_fail(r, "cases", "expected a list of cases");
  s->cases = calloc(json_array_size(cases) + 1, sizeof *s->cases);
  if (!s->cases) return util_error_oom(r->err, r->source, "cases");
  wgk_status st = WGK_OK;
  for (size_t i = 0; i < json_array_size(cases) && !st; i++) {
    tc_case *c = &s->cases[s->n_cases++];
    case_defaults(c);
    char *path = tc_path_index("cases", i);
    if (!path) return util_error_oom(r->err, r->source, "cases");
    st = tc_pos_set(r, &c->pos, path);
    if (!st && defaults) st = read_layer(r, c, defaults, "defaults");
    if (!st) st = read_layer(r, c, json_array_get(cases, i), path);
    if (!st && !c->description) c->description = strdup("");
    if (!st && !c->description) st = util_error_oom(r->err, r->source, path);
    if (!st) st = check_case(r, s, i, path);
    free(path);
  }
  return st;
}

static wgk_status read_document(tc_reader *r, tc_suite *s) {
  const json_t *defaults, *cases;
  wgk_status st = tc_document(r, s->root, &defaults, &cases);
  return st ? st : read_cases(r, s, cases, defaults);
}

wgk_status tc_suite_parse(const char *text, size_t len, const char *source, tc_suite **out, util_error *err) {
  *out = NULL;
  tc_suite *s = calloc(1, sizeof *s);
  if (!s || !(s->source = strdup(source ? source : "test.json"))) {
    free(s);
    return util_error_oom(err, source, NULL);
  }
  tc_reader r;
  wgk_status st = tc_parse_root(text, len, s->source, &r, &s->root, err);
  if (!st) st = read_document(&r, s);
  util_manifest_jpos_free(&r.index);
  if (st) {
    tc_suite_free(s);
    return st;
  }
  *out = s;
  return WGK_OK;
}

bool tc_case_matches(const tc_case *c, const char *filter) {
  return !filter || !filter[0] || strcmp(c->id, filter) == 0 || strstr(c->id, filter) != NULL;
}
