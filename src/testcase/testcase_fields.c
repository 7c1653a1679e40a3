/* test.json field readers: inputs (data or generator), named values, tolerance, expected outputs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testcase/tc_internal.h"

static const char *const input_keys[] = {"dtype", "shape", "data", "generator", "npy", NULL};
static const char *const gen_keys[] = {
    "kind",  "seed", "lo",     "hi",    "mean", "std",
    "start", "step", "offset", "value", NULL}; /* and the ops' generators' parameters (src/ops/registry.c) */
static const char *const tol_keys[] = {"rtol", "atol", NULL};
static const char *const expected_keys[] = {"dtype", "shape", "data", "npy", NULL};

static const struct {
  const char *name;
  tc_gen_kind kind;
} gen_kinds[] = {
    {"uniform", WGK_TC_UNIFORM},     {"normal", WGK_TC_NORMAL}, {"arange", WGK_TC_ARANGE},
    {"positions", WGK_TC_POSITIONS}, {"const", WGK_TC_CONST},
};

/* A member path for messages; falls back to the parent when out of memory. */
static wgk_status fail_at(tc_reader *r, const char *parent, const char *key, const char *msg) {
  char *p = tc_path_key(parent, key);
  wgk_status st = tc_fail(r, p ? p : parent, "%s", msg);
  free(p);
  return st;
}

static wgk_status read_dtype(tc_reader *r, const json_t *obj, const char *path, bool required, wgk_dtype *out) {
  const json_t *v = json_object_get(obj, "dtype");
  if (!v) return required ? tc_fail(r, path, "missing required key 'dtype'") : WGK_OK;
  if (!json_is_string(v) || (*out = wgk_dtype_from_name(json_string_value(v))) == WGK_DTYPE_INVALID)
    return fail_at(r, path, "dtype", "expected a dtype: float32 float16 int32 uint32 int64 int8 uint8 bool");
  return WGK_OK;
}

/* "shape": [d0, d1, ...], each an integer >= 0. */
static wgk_status read_shape(tc_reader *r, const json_t *obj, const char *path, int *rank, int64_t *dims) {
  const json_t *v = json_object_get(obj, "shape");
  if (!v) return tc_fail(r, path, "missing required key 'shape'");
  if (!json_is_array(v) || json_array_size(v) > WGK_HOST_MAX_RANK)
    return fail_at(r, path, "shape", "expected a list of at most 8 dims");
  for (size_t i = 0; i < json_array_size(v); i++) {
    const json_t *d = json_array_get(v, i);
    if (!json_is_integer(d) || json_integer_value(d) < 0) return fail_at(r, path, "shape", "dims are integers >= 0");
    dims[i] = json_integer_value(d);
  }
  *rank = (int)json_array_size(v);
  return WGK_OK;
}

/* One element of inline data against the dtype it fills: an integer dtype takes integers within its range (for
 * int64 within +-2^53, where the double path stays exact), bool takes true/false/0/1; "NaN" and the infinities
 * only fill floats. NONE: the dtype is not known yet (expected data without "dtype"). */
static wgk_status check_element(tc_reader *r, const json_t *v, const char *path, wgk_dtype dtype) {
  if (dtype == WGK_DTYPE_INVALID || dtype == WGK_DTYPE_FLOAT32 || dtype == WGK_DTYPE_FLOAT16) return WGK_OK;
  const char *name = wgk_dtype_name(dtype);
  if (json_is_string(v))
    return tc_fail(r, path, "\"%s\" in %s data: only float data may hold NaN or infinities", json_string_value(v),
                   name);
  if (json_is_boolean(v)) return WGK_OK;
  double d = json_number_value(v);
  static const struct {
    wgk_dtype t;
    double lo, hi;
  } ranges[] = {{WGK_DTYPE_INT32, -2147483648.0, 2147483647.0},
                {WGK_DTYPE_UINT32, 0, 4294967295.0},
                {WGK_DTYPE_INT64, -9007199254740992.0, 9007199254740992.0},
                {WGK_DTYPE_INT8, -128, 127},
                {WGK_DTYPE_UINT8, 0, 255},
                {WGK_DTYPE_BOOL, 0, 1},
                {WGK_DTYPE_INT16, -32768, 32767}};
  double lo = 0, hi = 0;
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
    if (ranges[i].t == dtype) lo = ranges[i].lo, hi = ranges[i].hi;
  if (json_is_integer(v)) {
    json_int_t n = json_integer_value(v);
    if ((double)n < lo || (double)n > hi ||
        (dtype == WGK_DTYPE_INT64 && (n > 9007199254740992LL || n < -9007199254740992LL)))
      return tc_fail(r, path, "%lld is outside the %s range [%.0f, %.0f]%s", (long long)n, name, lo, hi,
                     dtype == WGK_DTYPE_INT64 ? " (int64 test data is exact within +-2^53)" : "");
    return WGK_OK;
  }
  if (d != floor(d)) return tc_fail(r, path, "%.17g is not an integer, as %s data must be", d, name);
  if (d < lo || d > hi) return tc_fail(r, path, "%.17g is outside the %s range [%.0f, %.0f]", d, name, lo, hi);
  return WGK_OK;
}

/* Counts the numbers of a (nested) data list, refusing anything else. */
static wgk_status count_data(tc_reader *r, const json_t *v, const char *path, size_t *count, int depth,
                             wgk_dtype dtype) {
  if (json_is_number(v) || json_is_boolean(v)) {
    wgk_status st = check_element(r, v, path, dtype);
    return st ? st : (++*count, WGK_OK);
  }
  if (json_is_string(v)) {
    const char *s = json_string_value(v);
    if (strcmp(s, "NaN") && strcmp(s, "Infinity") && strcmp(s, "-Infinity"))
      return tc_fail(r, path, "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\")");
    wgk_status st = check_element(r, v, path, dtype);
    return st ? st : (++*count, WGK_OK);
  }
  if (!json_is_array(v) || depth > WGK_HOST_MAX_RANK) return tc_fail(r, path, "expected a list of numbers");
  for (size_t i = 0; i < json_array_size(v); i++) {
    char *p = tc_path_index(path, i);
    if (!p) return util_error_oom(r->err, r->source, path);
    wgk_status st = count_data(r, json_array_get(v, i), p, count, depth + 1, dtype);
    free(p);
    if (st) return st;
  }
  return WGK_OK;
}

static wgk_status check_data(tc_reader *r, const json_t *obj, const char *path, int rank, const int64_t *dims,
                             wgk_dtype dtype) {
  char *p = tc_path_key(path, "data");
  if (!p) return util_error_oom(r->err, r->source, path);
  size_t count = 0, numel = 0;
  wgk_status st = count_data(r, json_object_get(obj, "data"), p, &count, 0, dtype);
  if (!st && !util_host_shape_numel(rank, dims, 1, &numel)) st = tc_fail(r, path, "shape too large");
  if (!st && count != numel) st = tc_fail(r, p, "%zu values for a shape of %zu elements", count, numel);
  free(p);
  return st;
}

static wgk_status gen_number(tc_reader *r, const json_t *g, const char *path, const char *key, bool required,
                             double dflt, double *out) {
  const json_t *v = json_object_get(g, key);
  *out = dflt;
  if (!v) {
    if (!required) return WGK_OK;
    char msg[96];
    snprintf(msg, sizeof msg, "missing required key '%s'", key);
    return tc_fail(r, path, "%s", msg);
  }
  if (!json_is_number(v)) return fail_at(r, path, key, "expected a number");
  *out = json_number_value(v);
  return WGK_OK;
}

/* The parameters each kind reads; unused keys are ignored only if they are in gen_keys. */
static wgk_status read_gen_params(tc_reader *r, tc_input *in, const json_t *g, const char *path) {
  wgk_status st = WGK_OK;
  bool is_float = in->dtype == WGK_DTYPE_FLOAT32 || in->dtype == WGK_DTYPE_FLOAT16;
  switch (in->kind) {
  case WGK_TC_UNIFORM:
    st = gen_number(r, g, path, "lo", false, -1, &in->a);
    if (!st) st = gen_number(r, g, path, "hi", false, 1, &in->b);
    if (!st && !(is_float ? in->a < in->b : in->a <= in->b))
      st = tc_fail(r, path, "%s", is_float ? "needs lo < hi" : "needs lo <= hi");
    break;
  case WGK_TC_NORMAL:
    st = gen_number(r, g, path, "mean", false, 0, &in->a);
    if (!st) st = gen_number(r, g, path, "std", false, 1, &in->b);
    break;
  case WGK_TC_ARANGE:
    st = gen_number(r, g, path, "start", false, 0, &in->a);
    if (!st) st = gen_number(r, g, path, "step", false, 1, &in->b);
    break;
  case WGK_TC_POSITIONS:
    st = gen_number(r, g, path, "offset", false, 0, &in->a);
    break;
  case WGK_TC_CONST:
    st = gen_number(r, g, path, "value", true, 0, &in->a);
    break;
  case WGK_TC_OP:
    for (int i = 0; i < WGK_OP_GEN_MAX_PARAMS && in->op_gen->params[i].name && !st; i++) {
      const ops_gen_param *p = &in->op_gen->params[i];
      double d;
      st = gen_number(r, g, path, p->name, p->required, p->dflt, &d);
      if (!st && p->count && (d < 1 || d > 1e6 || d != floor(d)))
        st = fail_at(r, path, p->name, "expected an integer in [1, 1e6]");
      in->params[i] = d;
    }
    break;
  case WGK_TC_DATA:
  case WGK_TC_NPY:
    break;
  }
  if (st || (in->kind != WGK_TC_UNIFORM && in->kind != WGK_TC_NORMAL)) return st;
  const json_t *sv = json_object_get(g, "seed");
  if (!sv) return tc_fail(r, path, "missing required key 'seed' (random generators are always seeded)");
  if (!json_is_integer(sv) || json_integer_value(sv) < 0) return fail_at(r, path, "seed", "expected an integer >= 0");
  in->seed = (uint64_t)json_integer_value(sv);
  return WGK_OK;
}

/* Every generator key: the generic ones, then each op generator's parameters. */
#define MAX_GEN_KEYS 64
static void all_gen_keys(const char **keys) {
  size_t n = 0;
  for (; gen_keys[n]; n++) keys[n] = gen_keys[n];
  for (size_t i = 0; i < ops_tools_count(); i++) {
    const ops_hooks *op = ops_tools_at(i);
    for (size_t j = 0; j < op->n_generators; j++)
      for (int p = 0; p < WGK_OP_GEN_MAX_PARAMS && op->generators[j].params[p].name && n + 1 < MAX_GEN_KEYS; p++) {
        const char *name = op->generators[j].params[p].name;
        size_t k = 0;
        while (k < n && strcmp(keys[k], name) != 0) k++;
        if (k == n) keys[n++] = name;
      }
  }
  keys[n] = NULL;
}

static wgk_status unknown_generator(tc_reader *r, const char *path) {
  char msg[512];
  size_t n = (size_t)snprintf(msg, sizeof msg, "unknown generator:");
  for (size_t i = 0; i < sizeof gen_kinds / sizeof gen_kinds[0] && n < sizeof msg; i++)
    n += (size_t)snprintf(msg + n, sizeof msg - n, " %s", gen_kinds[i].name);
  for (size_t i = 0; i < ops_tools_count(); i++) {
    const ops_hooks *op = ops_tools_at(i);
    for (size_t j = 0; j < op->n_generators && n < sizeof msg; j++)
      n += (size_t)snprintf(msg + n, sizeof msg - n, " %s", op->generators[j].name);
  }
  return fail_at(r, path, "kind", msg);
}

static wgk_status read_generator(tc_reader *r, tc_input *in, const json_t *g, const char *path) {
  const char *keys[MAX_GEN_KEYS];
  all_gen_keys(keys);
  wgk_status st = tc_check_keys(r, g, path, keys);
  if (st) return st;
  const json_t *k = json_object_get(g, "kind");
  if (!k) return tc_fail(r, path, "missing required key 'kind'");
  in->kind = WGK_TC_DATA;
  for (size_t i = 0; i < sizeof gen_kinds / sizeof gen_kinds[0]; i++)
    if (json_is_string(k) && strcmp(json_string_value(k), gen_kinds[i].name) == 0) in->kind = gen_kinds[i].kind;
  if (in->kind == WGK_TC_DATA && (in->op_gen = ops_tools_find_generator(json_string_value(k)))) in->kind = WGK_TC_OP;
  if (in->kind == WGK_TC_DATA) return unknown_generator(r, path);
  return read_gen_params(r, in, g, path);
}

/* "npy": a path relative to build/webgpu, inside it ("data/x.npy"), naming a .npy file; copied into *out. */
static wgk_status read_npy_path(tc_reader *r, const json_t *obj, const char *path, char **out) {
  char *p = tc_path_key(path, "npy");
  if (!p) return util_error_oom(r->err, r->source, path);
  const json_t *v = json_object_get(obj, "npy");
  const char *rel = json_is_string(v) ? json_string_value(v) : NULL;
  size_t n = rel ? strlen(rel) : 0;
  bool up = rel && (strcmp(rel, "..") == 0 || strncmp(rel, "../", 3) == 0 || strstr(rel, "/../") ||
                    (n >= 3 && strcmp(rel + n - 3, "/..") == 0));
  wgk_status st = !rel                                   ? tc_fail(r, p, "expected a file name (a string)")
                  : n < 5 || strcmp(rel + n - 4, ".npy") ? tc_fail(r, p, "'%s': a .npy file name ends in .npy", rel)
                  : rel[0] == '/' || up || strchr(rel, '\\')
                      ? tc_fail(r, p,
                                "'%s': the file is a path inside build/webgpu, relative to it (no leading '/', "
                                "no '..')",
                                rel)
                      : WGK_OK;
  free(p);
  if (st) return st;
  free(*out);
  return (*out = strdup(rel)) ? WGK_OK : util_error_oom(r->err, r->source, path);
}

void tc_input_clear(tc_input *in) {
  free(in->npy);
  free(in->key);
  free(in->pos.path);
  memset(in, 0, sizeof *in);
}

wgk_status tc_read_input(tc_reader *r, tc_input *in, const char *key, const json_t *v, const char *path,
                         bool generators_only) {
  tc_input_clear(in);
  if (!(in->key = strdup(key))) return util_error_oom(r->err, r->source, path);
  wgk_status st = tc_check_keys(r, v, path, input_keys);
  const json_t *data = json_object_get(v, "data"), *gen = json_object_get(v, "generator"),
               *npy = json_object_get(v, "npy");
  in->dtype = WGK_DTYPE_INVALID;
  if (!st) st = tc_pos_set(r, &in->pos, path);
  if (!st) st = read_dtype(r, v, path, !npy, &in->dtype);
  if (st) return st;
  if (!!data + !!gen + !!npy != 1)
    return tc_fail(r, path, "an input has exactly one of \"data\", \"generator\" and \"npy\"");
  if (data && generators_only) return fail_at(r, path, "data", "bench inputs are generated, not inline");
  if (npy && generators_only) return fail_at(r, path, "npy", "bench inputs are generated, not read from files");
  if (npy) { /* dtype and shape, when given, are checked against the file's when it is read */
    in->kind = WGK_TC_NPY;
    in->rank = -1;
    st = read_npy_path(r, v, path, &in->npy);
    return st || !json_object_get(v, "shape") ? st : read_shape(r, v, path, &in->rank, in->dims);
  }
  if (gen) {
    char *gp = tc_path_key(path, "generator");
    if (!gp) return util_error_oom(r->err, r->source, path);
    st = read_generator(r, in, gen, gp);
    free(gp);
    if (st) return st;
  }
  bool own_shape = in->kind == WGK_TC_OP && in->op_gen->own_shape;
  in->rank = -1;
  if (own_shape && !json_object_get(v, "shape")) return WGK_OK; /* the generator decides the shape */
  st = read_shape(r, v, path, &in->rank, in->dims);
  if (!st && data) {
    in->data = data;
    st = check_data(r, v, path, in->rank, in->dims, in->dtype);
  }
  return st;
}

wgk_status tc_read_input_map(tc_reader *r, const json_t *v, const char *path, tc_input **list, size_t *n,
                             bool generators_only) {
  if (!json_is_object(v)) return tc_fail(r, path, "expected an object of inputs by bind key or port name");
  const char *key;
  const json_t *item;
  json_object_foreach((json_t *)v, key, item) {
    size_t i = 0;
    while (i < *n && strcmp((*list)[i].key, key) != 0) i++;
    if (i == *n) {
      tc_input *grown = realloc(*list, (*n + 1) * sizeof *grown);
      if (!grown) return util_error_oom(r->err, r->source, path);
      *list = grown;
      memset(&grown[(*n)++], 0, sizeof *grown);
    }
    char *p = tc_path_key(path, key);
    if (!p) return util_error_oom(r->err, r->source, path);
    wgk_status st = tc_read_input(r, &(*list)[i], key, item, p, generators_only);
    free(p);
    if (st) return st;
  }
  return WGK_OK;
}

void tc_values_free(tc_value *list, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(list[i].name);
    free(list[i].pos.path);
  }
  free(list);
}

wgk_status tc_read_values(tc_reader *r, const json_t *v, const char *path, tc_value **list, size_t *n, bool integers) {
  if (!json_is_object(v)) return tc_fail(r, path, "expected an object of name: value");
  const char *key;
  const json_t *item;
  json_object_foreach((json_t *)v, key, item) {
    if (integers && !json_is_integer(item)) return fail_at(r, path, key, "expected an integer");
    size_t i = 0;
    while (i < *n && strcmp((*list)[i].name, key) != 0) i++;
    if (i == *n) {
      tc_value *grown = realloc(*list, (*n + 1) * sizeof *grown);
      if (!grown) return util_error_oom(r->err, r->source, path);
      *list = grown;
      memset(&grown[*n], 0, sizeof *grown);
      if (!(grown[(*n)++].name = strdup(key))) return util_error_oom(r->err, r->source, path);
    }
    (*list)[i].value = item;
    char *p = tc_path_key(path, key);
    if (!p) return util_error_oom(r->err, r->source, path);
    wgk_status st = tc_pos_set(r, &(*list)[i].pos, p);
    free(p);
    if (st) return st;
  }
  return WGK_OK;
}

wgk_status tc_read_tolerance(tc_reader *r, tc_case *c, const json_t *v, const char *path) {
  if (!json_is_object(v)) return tc_fail(r, path, "expected an object of dtype: {rtol, atol}");
  const char *key;
  const json_t *item;
  json_object_foreach((json_t *)v, key, item) {
    char *p = tc_path_key(path, key);
    if (!p) return util_error_oom(r->err, r->source, path);
    wgk_dtype d = wgk_dtype_from_name(key);
    wgk_status st =
        d == WGK_DTYPE_INVALID ? tc_fail(r, p, "unknown dtype '%s'", key) : tc_check_keys(r, item, p, tol_keys);
    double rtol = c->tol[d].rtol, atol = c->tol[d].atol;
    if (!st) st = gen_number(r, item, p, "rtol", false, rtol, &rtol);
    if (!st) st = gen_number(r, item, p, "atol", false, atol, &atol);
    if (!st && (!(rtol >= 0) || !(atol >= 0))) st = tc_fail(r, p, "rtol and atol are >= 0");
    free(p);
    if (st) return st;
    c->tol[d] = (tc_tolerance){rtol, atol};
  }
  return WGK_OK;
}

static wgk_status read_one_expected(tc_reader *r, tc_expected *e, const char *key, const json_t *v, const char *path) {
  wgk_status st = tc_check_keys(r, v, path, expected_keys);
  if (!st && !(e->key = strdup(key))) st = util_error_oom(r->err, r->source, path);
  if (!st) st = tc_pos_set(r, &e->pos, path);
  if (!st) st = read_dtype(r, v, path, false, &e->dtype);
  if (st) return st;
  const json_t *npy = json_object_get(v, "npy");
  e->data = json_object_get(v, "data");
  if (!e->data == !npy) return tc_fail(r, path, "an expected output has exactly one of \"data\" and \"npy\"");
  if (npy) { /* the file gives the values and their shape; "shape", when given, is checked against it */
    e->rank = -1;
    st = read_npy_path(r, v, path, &e->npy);
    return st || !json_object_get(v, "shape") ? st : read_shape(r, v, path, &e->rank, e->dims);
  }
  if (!json_object_get(v, "shape")) {
    size_t count = 0;
    e->rank = -1;
    char *p = tc_path_key(path, "data");
    st = p ? count_data(r, e->data, p, &count, 0, e->dtype) : util_error_oom(r->err, r->source, path);
    free(p);
    return st;
  }
  st = read_shape(r, v, path, &e->rank, e->dims);
  return st ? st : check_data(r, v, path, e->rank, e->dims, e->dtype);
}

static void expected_clear(tc_case *c) {
  for (size_t i = 0; i < c->n_expected; i++) {
    free(c->expected[i].npy);
    free(c->expected[i].key);
    free(c->expected[i].pos.path);
  }
  free(c->expected);
  c->expected = NULL;
  c->n_expected = 0;
  c->reference = NULL;
}

/* "expected": {"reference": "rotary"} or {outputKey: {data, shape?, dtype?}, ...}; replaces an earlier layer. */
wgk_status tc_read_expected(tc_reader *r, tc_case *c, const json_t *v, const char *path) {
  expected_clear(c);
  if (!json_is_object(v)) return tc_fail(r, path, "expected an object");
  const json_t *ref = json_object_get(v, "reference");
  if (ref) {
    if (json_object_size(v) != 1) return tc_fail(r, path, "\"reference\" stands alone");
    const char *name = json_is_string(ref) ? json_string_value(ref) : "";
    if ((c->reference = ops_tools_find_reference(name))) return WGK_OK;
    char msg[256];
    size_t n = (size_t)snprintf(msg, sizeof msg, "unknown reference (wgk has:");
    for (size_t i = 0, k = 0; i < ops_tools_count() && n < sizeof msg; i++)
      if (ops_tools_at(i)->reference)
        n += (size_t)snprintf(msg + n, sizeof msg - n, "%s %s", k++ ? "," : "", ops_tools_at(i)->reference_name);
    if (n < sizeof msg) snprintf(msg + n, sizeof msg - n, ")");
    return fail_at(r, path, "reference", msg);
  }
  if (json_object_size(v) == 0) return tc_fail(r, path, "no expected output");
  if (!(c->expected = calloc(json_object_size(v), sizeof *c->expected))) return util_error_oom(r->err, r->source, path);
  const char *key;
  const json_t *item;
  json_object_foreach((json_t *)v, key, item) {
    char *p = tc_path_key(path, key);
    if (!p) return util_error_oom(r->err, r->source, path);
    wgk_status st = read_one_expected(r, &c->expected[c->n_expected++], key, item, p);
    free(p);
    if (st) return st;
  }
  return WGK_OK;
}

void tc_case_clear(tc_case *c) {
  free(c->id);
  free(c->description);
  for (size_t i = 0; i < c->n_inputs; i++) tc_input_clear(&c->inputs[i]);
  free(c->inputs);
  for (size_t i = 0; i < c->n_absent; i++) free(c->absent[i]);
  free(c->absent);
  for (size_t i = 0; i < c->n_requires; i++) free(c->requires[i]);
  free(c->requires);
  tc_values_free(c->attrs, c->n_attrs);
  tc_values_free(c->args, c->n_args);
  tc_values_free(c->tunables, c->n_tunables);
  expected_clear(c);
  free(c->expect_error);
  free(c->variant);
  for (size_t i = 0; i < 2 * c->n_variant_without; i++) free(c->variant_without[i]);
  free(c->variant_without);
  free(c->pos.path);
}

void tc_suite_free(tc_suite *suite) {
  if (!suite) return;
  for (size_t i = 0; i < suite->n_cases; i++) tc_case_clear(&suite->cases[i]);
  free(suite->cases);
  free(suite->source);
  json_decref(suite->root);
  free(suite);
}
