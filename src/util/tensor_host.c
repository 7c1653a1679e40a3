/* Host tensors: dtype facts from util/dtype.h, shape arithmetic checked for overflow, double conversions. */
#include "util/tensor_host.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/half.h"

static bool valid_dtype(wgk_dtype d) { return util_dtype_info_of(d) != NULL; }

bool util_host_shape_numel(int rank, const int64_t *dims, size_t elem_size, size_t *numel) {
  if (rank < 0 || rank > WGK_HOST_MAX_RANK || elem_size == 0) return false;
  uint64_t n = 1;
  bool zero = false;
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0) return false;
    if (dims[i] == 0) {
      zero = true;
      continue;
    }
    if ((uint64_t)dims[i] > WGK_HOST_MAX_BYTES || n > WGK_HOST_MAX_BYTES / (uint64_t)dims[i]) return false;
    n *= (uint64_t)dims[i];
  }
  if (n > WGK_HOST_MAX_BYTES / elem_size) return false;
  *numel = zero ? 0 : (size_t)n;
  return true;
}

wgk_status util_host_tensor_create(wgk_dtype dtype, int rank, const int64_t *dims, util_host_tensor **out) {
  *out = NULL;
  if (!valid_dtype(dtype) || rank < 0 || rank > WGK_HOST_MAX_RANK || (rank > 0 && !dims))
    return WGK_ERR_INVALID_ARGUMENT;
  size_t numel;
  if (!util_host_shape_numel(rank, dims, wgk_dtype_size(dtype), &numel)) return WGK_ERR_LIMIT;
  util_host_tensor *t = calloc(1, sizeof *t);
  if (!t) return WGK_ERR_OUT_OF_MEMORY;
  t->dtype = dtype;
  t->rank = rank;
  for (int i = 0; i < rank; i++) t->dims[i] = dims[i];
  if (numel > 0 && !(t->data = calloc(numel, wgk_dtype_size(dtype)))) {
    free(t);
    return WGK_ERR_OUT_OF_MEMORY;
  }
  *out = t;
  return WGK_OK;
}

void util_host_tensor_free(util_host_tensor *t) {
  if (!t) return;
  free(t->data);
  free(t->name);
  free(t);
}

wgk_status util_host_tensor_set_name(util_host_tensor *t, const char *name) {
  char *copy = NULL;
  if (name && !(copy = strdup(name))) return WGK_ERR_OUT_OF_MEMORY;
  free(t->name);
  t->name = copy;
  return WGK_OK;
}

wgk_status util_host_tensor_clone(const util_host_tensor *t, util_host_tensor **out) {
  wgk_status st = util_host_tensor_create(t->dtype, t->rank, t->dims, out);
  if (st == WGK_OK && util_host_tensor_bytes(t)) memcpy((*out)->data, t->data, util_host_tensor_bytes(t));
  if (st == WGK_OK && (st = util_host_tensor_set_name(*out, t->name)) != WGK_OK) {
    util_host_tensor_free(*out);
    *out = NULL;
  }
  return st;
}

size_t util_host_tensor_numel(const util_host_tensor *t) {
  size_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= (size_t)t->dims[i];
  return n;
}

size_t util_host_tensor_bytes(const util_host_tensor *t) {
  return util_host_tensor_numel(t) * wgk_dtype_size(t->dtype);
}
