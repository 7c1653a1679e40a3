/* RotaryEmbedding's input generators: cos/sin caches with the usual RoPE frequencies. Row p of a (rows, rot/2)
 * cache holds angle p * base^(-2c/rot) at column c ("base" defaults to 10000). */
#include <math.h>
#include <stdlib.h>

#include "ops/ops.h"

static wgk_status make(const ops_generator *g, const double *params, int *rank, int64_t *dims, double **values,
                       util_error *err, bool is_cos) {
  size_t numel = 1;
  for (int i = 0; i < *rank; i++) numel *= (size_t)dims[i];
  double *vals = malloc(sizeof(double) * (numel + 1));
  if (!vals) return util_error_oom(err, NULL, NULL);
  int64_t last = *rank > 0 ? dims[*rank - 1] : 1;
  for (size_t i = 0; i < numel; i++) {
    double half = (double)(last ? last : 1), p = (double)(last ? (int64_t)i / last : 0);
    double c = (double)(last ? (int64_t)i % last : 0);
    double angle = p * pow(params[0], -c / half);
    vals[i] = is_cos ? cos(angle) : sin(angle);
  }
  *values = vals;
  return WGK_OK;
}

static wgk_status make_cos(const ops_generator *g, const double *params, int *rank, int64_t *dims, double **values,
                           util_error *err) {
  return make(g, params, rank, dims, values, err, true);
}

static wgk_status make_sin(const ops_generator *g, const double *params, int *rank, int64_t *dims, double **values,
                           util_error *err) {
  return make(g, params, rank, dims, values, err, false);
}

const ops_generator ops_rotary_generators[2] = {
    {.name = "rotary_cos", .params = {{.name = "base", .dflt = 10000}}, .make = make_cos},
    {.name = "rotary_sin", .params = {{.name = "base", .dflt = 10000}}, .make = make_sin},
};
