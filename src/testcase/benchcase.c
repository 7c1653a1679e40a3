/* bench.json reader: the test.json readers for inputs and values, plus the bench-only counts. */
#include <stdlib.h>
#include <string.h>

#include "testcase/benchcase.h"
#include "testcase/tc_internal.h"

static const char *const case_keys[] = {"id",    "description", "inputs", "attrs",      "args",     "tunables",
                                        "bytes", "flops",       "warmup", "iterations", "requires", NULL};

/* Upper bounds of a case's counts (docs/limits.md): `wgk bench --iterations` takes at most 1,000,000, and a case may
 * ask no more; warm-ups are a tenth of that. The bench multiplies iterations by its repeats (3) and batch sizes, so
 * the bounds also keep those products far from int64 overflow. */
#define BENCH_MAX_ITERATIONS 1000000
#define BENCH_MAX_WARMUP 100000

static wgk_status read_count(tc_reader *r, const json_t *v, const char *path, int64_t *out) {
  if (!json_is_integer(v) || json_integer_value(v) < 0) return tc_fail(r, path, "expected an integer >= 0");
  *out = json_integer_value(v);
  return WGK_OK;
}

static wgk_status read_bounded(tc_reader *r, const json_t *v, const char *path, int64_t max, int64_t *out) {
  if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
    return tc_fail(r, path, "expected an integer in [0, %lld]%s", (long long)max,
                   json_is_integer(v) && json_integer_value(v) > max ? " (the bound of docs/limits.md)" : "");
  *out = json_integer_value(v);
  return WGK_OK;
}

static wgk_status read_string(tc_reader *r, const json_t *v, const char *path, char **out) {
  if (!json_is_string(v)) return tc_fail(r, path, "expected a string");
  free(*out);
  *out = strdup(json_string_value(v));
  return *out ? WGK_OK : util_error_oom(r->err, r->source, path);
}

static wgk_status read_field(tc_reader *r, tc_bench_case *c, const char *key, const json_t *v, const char *path) {
  if (strcmp(key, "id") == 0) return read_string(r, v, path, &c->id);
  if (strcmp(key, "description") == 0) return read_string(r, v, path, &c->description);
  if (strcmp(key, "inputs") == 0) return tc_read_input_map(r, v, path, &c->inputs, &c->n_inputs, true);
  if (strcmp(key, "attrs") == 0) return tc_read_values(r, v, path, &c->attrs, &c->n_attrs, false);
  if (strcmp(key, "args") == 0) return tc_read_values(r, v, path, &c->args, &c->n_args, false);
  if (strcmp(key, "tunables") == 0) return tc_read_values(r, v, path, &c->tunables, &c->n_tunables, true);
  if (strcmp(key, "bytes") == 0) return read_count(r, v, path, &c->bytes);
  if (strcmp(key, "flops") == 0) return read_count(r, v, path, &c->flops);
  if (strcmp(key, "warmup") == 0) return read_bounded(r, v, path, BENCH_MAX_WARMUP, &c->warmup);
  if (strcmp(key, "iterations") == 0) return read_bounded(r, v, path, BENCH_MAX_ITERATIONS, &c->iterations);
  if (strcmp(key, "requires") == 0) {
    wgk_status st = tc_read_strings(r, v, path, &c->requires, &c->n_requires);
    return st ? st : tc_check_features(r, c->requires, c->n_requires, path);
  }
  return tc_fail(r, path, "unknown key '%s'", key);
}

static wgk_status read_layer(tc_reader *r, tc_bench_case *c, const json_t *obj, const char *path) {
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

static wgk_status check_case(tc_reader *r, const tc_bench_suite *s, size_t index, const char *path) {
  const tc_bench_case *c = &s->cases[index];
  if (!c->id || !c->id[0]) return tc_fail(r, path, "a case needs a non-empty \"id\"");
  for (size_t j = 0; j < index; j++)
    if (strcmp(s->cases[j].id, c->id) == 0) return tc_fail(r, path, "duplicate case id '%s'", c->id);
  if (c->n_inputs == 0) return tc_fail(r, path, "case '%s' has no inputs", c->id);
  if (c->iterations == 0) return tc_fail(r, path, "case '%s': iterations must be >= 1", c->id);
  return WGK_OK;
}

static wgk_status read_cases(tc_reader *r, tc_bench_suite *s, const json_t *cases, const json_t *defaults) {
  if (!json_is_array(cases)) return tc_fail(r, "cases", "expected a list of cases");
  s->cases = calloc(json_array_size(cases) + 1, sizeof *s->cases);
  if (!s->cases) return util_error_oom(r->err, r->source, "cases");
  wgk_status st = WGK_OK;
  for (size_t i = 0; i < json_array_size(cases) && !st; i++) {
    tc_bench_case *c = &s->cases[s->n_cases++];
    *c = (tc_bench_case){.bytes = -1, .flops = -1, .warmup = 3, .iterations = 20};
    char *path = tc_path_index("cases", i);
    if (!path) return util_error_oom(r->err, r->source, "cases");
    st = tc_pos_set(r, &c->pos, path);
    if (!st && defaults) st = read_layer(r, c, defaults, "defaults");
    if (!st) st = read_layer(r, c, json_array_get(cases, i), path);
    if (!st && !c->description && !(c->description = strdup(""))) st = util_error_oom(r->err, r->source, path);
    if (!st) st = check_case(r, s, i, path);
    free(path);
  }
  return st;
}

static wgk_status read_document(tc_reader *r, tc_bench_suite *s) {
  const json_t *defaults, *cases;
  wgk_status st = tc_document(r, s->root, &defaults, &cases);
  return st ? st : read_cases(r, s, cases, defaults);
}

wgk_status tc_bench_suite_parse(const char *text, size_t len, const char *source, tc_bench_suite **out,
                                util_error *err) {
  *out = NULL;
  tc_bench_suite *s = calloc(1, sizeof *s);
  if (!s || !(s->source = strdup(source ? source : "bench.json"))) {
    free(s);
    return util_error_oom(err, source, NULL);
  }
  tc_reader r;
  wgk_status st = tc_parse_root(text, len, s->source, &r, &s->root, err);
  if (!st) st = read_document(&r, s);
  util_manifest_jpos_free(&r.index);
  if (st) {
    tc_bench_suite_free(s);
    return st;
  }
  *out = s;
  return WGK_OK;
}

void tc_bench_suite_free(tc_bench_suite *suite) {
  if (!suite) return;
  for (size_t i = 0; i < suite->n_cases; i++) {
    tc_bench_case *c = &suite->cases[i];
    free(c->id);
    free(c->description);
    for (size_t j = 0; j < c->n_inputs; j++) tc_input_clear(&c->inputs[j]);
    free(c->inputs);
    tc_values_free(c->attrs, c->n_attrs);
    tc_values_free(c->args, c->n_args);
    tc_values_free(c->tunables, c->n_tunables);
    for (size_t j = 0; j < c->n_requires; j++) free(c->requires[j]);
    free(c->requires);
    free(c->pos.path);
  }
  free(suite->cases);
  free(suite->source);
  json_decref(suite->root);
  free(suite);
}
