/*
 * Test inputs as host tensors: inline data converted, or generated from a seed. Values are produced in
 * double and stored through util_host_tensor_from_double, so a float16 input holds exactly the rounded
 * value the reference then reads back (both sides see the same numbers).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testcase/testcase.h"
#include "util/rng.h"

/* Flattens (nested) data into out[], already checked by the parser to hold exactly numel numbers. */
static size_t flatten(const json_t *v, double *out, size_t at) {
  if (json_is_array(v)) {
    for (size_t i = 0; i < json_array_size(v); i++) at = flatten(json_array_get(v, i), out, at);
    return at;
  }
  if (json_is_string(v)) {
    const char *s = json_string_value(v);
    out[at] = strcmp(s, "NaN") == 0 ? NAN : s[0] == '-' ? -INFINITY : INFINITY;
  } else if (json_is_boolean(v)) {
    out[at] = json_is_true(v) ? 1 : 0;
  } else {
    out[at] = json_number_value(v);
  }
  return at + 1;
}

static size_t count_numbers(const json_t *v) {
  if (!json_is_array(v)) return 1;
  size_t n = 0;
  for (size_t i = 0; i < json_array_size(v); i++) n += count_numbers(json_array_get(v, i));
  return n;
}

static bool is_int_dtype(wgk_dtype d) { return d != WGK_DTYPE_FLOAT32 && d != WGK_DTYPE_FLOAT16; }

/* Fills vals[numel] for the generic generators. */
static void generate(const tc_input *in, double *vals, size_t numel) {
  util_rng rng;
  util_rng_seed(&rng, in->seed);
  int64_t last = in->rank > 0 ? in->dims[in->rank - 1] : 1;
  for (size_t i = 0; i < numel; i++) {
    switch (in->kind) {
    case WGK_TC_UNIFORM:
      vals[i] = is_int_dtype(in->dtype) ? (double)util_rng_int(&rng, (int64_t)ceil(in->a), (int64_t)floor(in->b))
                                        : util_rng_uniform(&rng, in->a, in->b);
      break;
    case WGK_TC_NORMAL:
      vals[i] = util_rng_normal(&rng, in->a, in->b);
      break;
    case WGK_TC_ARANGE:
      vals[i] = in->a + (double)i * in->b;
      break;
    case WGK_TC_POSITIONS:
      vals[i] = in->a + (double)(last ? (int64_t)i % last : 0);
      break;
    case WGK_TC_CONST:
      vals[i] = in->a;
      break;
    case WGK_TC_DATA:
    case WGK_TC_OP:
    case WGK_TC_NPY:
      vals[i] = 0;
      break;
    }
  }
}

/* An op's generator (src/ops/<op id>/generators.c): its values in double, in the case's dtype; a shape the case
 * gives must be the generator's own. */
static wgk_status make_op(const tc_input *in, const char *source, util_host_tensor **out, util_error *err) {
  util_host_tensor *t = NULL;
  wgk_status st = in->rank >= 0 ? util_host_tensor_create(in->dtype, in->rank, in->dims, &t) : WGK_OK;
  if (st) return util_error_value(err, st, source, in->pos, "cannot make the tensor");
  int rank = in->rank;
  int64_t dims[WGK_HOST_MAX_RANK];
  memcpy(dims, in->dims, sizeof dims);
  double *vals = NULL;
  st = in->op_gen->make(in->op_gen, in->params, &rank, dims, &vals, err);
  if (st) {
    util_host_tensor_free(t);
    util_error_wrap(err, UTIL_POS(source, in->pos), in->pos.path);
    return st;
  }
  if (t && (rank != in->rank || memcmp(dims, in->dims, sizeof(int64_t) * (size_t)rank) != 0)) {
    util_host_tensor_free(t);
    free(vals);
    return util_error_value(err, WGK_ERR_PARSE, source, in->pos, "the shape given differs from the layout's");
  }
  if (!t && (st = util_host_tensor_create(in->dtype, rank, dims, &t))) {
    free(vals);
    return util_error_in(err, st, source, in->pos.path, "%s", wgk_status_str(st));
  }
  util_host_tensor_from_double(t, vals);
  free(vals);
  *out = t;
  return WGK_OK;
}

wgk_status tc_input_bytes(const tc_input *in, uint64_t *bytes) {
  size_t numel = 0;
  *bytes = 0;
  if (in->rank < 0) return WGK_OK; /* a layout: its own generator bounds it */
  if (!util_host_shape_numel(in->rank, in->dims, 1, &numel)) return WGK_ERR_LIMIT;
  *bytes = (uint64_t)numel * wgk_dtype_size(in->dtype);
  return numel > WGK_TC_MAX_ELEMENTS ? WGK_ERR_LIMIT : WGK_OK;
}

wgk_status tc_input_make(const tc_input *in, const char *source, util_host_tensor **out, util_error *err) {
  *out = NULL;
  uint64_t bytes = 0;
  if (tc_input_bytes(in, &bytes) != WGK_OK) /* refused before anything is allocated */
    return util_error_value(
        err, WGK_ERR_LIMIT, source, in->pos,
        "input '%s' is %llu bytes (%s); test data is limited to %llu elements (staged as doubles on "
        "the host)",
        in->key, (unsigned long long)bytes, wgk_dtype_name(in->dtype), (unsigned long long)WGK_TC_MAX_ELEMENTS);
  if (in->kind == WGK_TC_OP) return make_op(in, source, out, err);
  if (in->kind == WGK_TC_NPY) /* read from the package: tc_input_load */
    return util_error_value(err, WGK_ERR_INVALID_ARGUMENT, source, in->pos,
                            "input '%s' reads %s, a file of the package", in->key, in->npy);
  util_host_tensor *t = NULL;
  wgk_status st = util_host_tensor_create(in->dtype, in->rank, in->dims, &t);
  if (st) return util_error_value(err, st, source, in->pos, "cannot make the tensor");
  size_t numel = util_host_tensor_numel(t);
  double *vals = malloc(sizeof(double) * (numel + 1));
  if (!vals) {
    util_host_tensor_free(t);
    return util_error_oom(err, source, in->pos.path);
  }
  if (in->kind == WGK_TC_DATA)
    flatten(in->data, vals, 0);
  else
    generate(in, vals, numel);
  util_host_tensor_from_double(t, vals);
  free(vals);
  *out = t;
  return WGK_OK;
}

wgk_status tc_expected_values(const tc_expected *e, const char *source, double **out, size_t *count, util_error *err) {
  *count = count_numbers(e->data);
  *out = malloc(sizeof(double) * (*count + 1));
  if (!*out) return util_error_oom(err, source, e->pos.path);
  flatten(e->data, *out, 0);
  return WGK_OK;
}
