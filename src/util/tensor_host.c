/* Host tensors: dtype facts in one table, shape arithmetic checked for overflow, double conversions. */
#include "util/tensor_host.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/half.h"

typedef struct dtype_info {
  const char *name; /* the dtype's name in manifests and .npy-facing text */
  size_t size;      /* bytes per element */
  int onnx;         /* TensorProto.DataType */
} dtype_info;

static const dtype_info DTYPES[] = {
    [WGK_HOST_NONE] = {"none", 0, 0},   [WGK_HOST_FLOAT32] = {"float32", 4, 1}, [WGK_HOST_FLOAT16] = {"float16", 2, 10},
    [WGK_HOST_INT32] = {"int32", 4, 6}, [WGK_HOST_UINT32] = {"uint32", 4, 12},  [WGK_HOST_INT64] = {"int64", 8, 7},
    [WGK_HOST_INT8] = {"int8", 1, 3},   [WGK_HOST_UINT8] = {"uint8", 1, 2},     [WGK_HOST_BOOL] = {"bool", 1, 9},
    [WGK_HOST_INT16] = {"int16", 2, 5},
};
#define N_DTYPES (sizeof DTYPES / sizeof DTYPES[0])

static bool valid_dtype(wgk_host_dtype d) { return d > WGK_HOST_NONE && (size_t)d < N_DTYPES; }

const char *wgk_host_dtype_name(wgk_host_dtype d) { return valid_dtype(d) ? DTYPES[d].name : "none"; }
size_t wgk_host_dtype_size(wgk_host_dtype d) { return valid_dtype(d) ? DTYPES[d].size : 0; }
int wgk_host_dtype_to_onnx(wgk_host_dtype d) { return valid_dtype(d) ? DTYPES[d].onnx : 0; }

wgk_host_dtype wgk_host_dtype_from_name(const char *name) {
  for (size_t i = 1; name && i < N_DTYPES; i++)
    if (strcmp(DTYPES[i].name, name) == 0) return (wgk_host_dtype)i;
  return WGK_HOST_NONE;
}

wgk_host_dtype wgk_host_dtype_from_onnx(int code) {
  for (size_t i = 1; i < N_DTYPES; i++)
    if (DTYPES[i].onnx == code) return (wgk_host_dtype)i;
  return WGK_HOST_NONE;
}

bool wgk_host_shape_numel(int rank, const int64_t *dims, size_t elem_size, size_t *numel) {
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

wgk_status wgk_host_tensor_create(wgk_host_dtype dtype, int rank, const int64_t *dims, wgk_host_tensor **out) {
  *out = NULL;
  if (!valid_dtype(dtype) || rank < 0 || rank > WGK_HOST_MAX_RANK || (rank > 0 && !dims))
    return WGK_ERR_INVALID_ARGUMENT;
  size_t numel;
  if (!wgk_host_shape_numel(rank, dims, DTYPES[dtype].size, &numel)) return WGK_ERR_LIMIT;
  wgk_host_tensor *t = calloc(1, sizeof *t);
  if (!t) return WGK_ERR_OUT_OF_MEMORY;
  t->dtype = dtype;
  t->rank = rank;
  for (int i = 0; i < rank; i++) t->dims[i] = dims[i];
  if (numel > 0 && !(t->data = calloc(numel, DTYPES[dtype].size))) {
    free(t);
    return WGK_ERR_OUT_OF_MEMORY;
  }
  *out = t;
  return WGK_OK;
}

void wgk_host_tensor_free(wgk_host_tensor *t) {
  if (!t) return;
  free(t->data);
  free(t->name);
  free(t);
}

wgk_status wgk_host_tensor_set_name(wgk_host_tensor *t, const char *name) {
  char *copy = NULL;
  if (name && !(copy = strdup(name))) return WGK_ERR_OUT_OF_MEMORY;
  free(t->name);
  t->name = copy;
  return WGK_OK;
}

wgk_status wgk_host_tensor_clone(const wgk_host_tensor *t, wgk_host_tensor **out) {
  wgk_status st = wgk_host_tensor_create(t->dtype, t->rank, t->dims, out);
  if (st == WGK_OK && wgk_host_tensor_bytes(t)) memcpy((*out)->data, t->data, wgk_host_tensor_bytes(t));
  if (st == WGK_OK && (st = wgk_host_tensor_set_name(*out, t->name)) != WGK_OK) {
    wgk_host_tensor_free(*out);
    *out = NULL;
  }
  return st;
}

size_t wgk_host_tensor_numel(const wgk_host_tensor *t) {
  size_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= (size_t)t->dims[i];
  return n;
}

size_t wgk_host_tensor_bytes(const wgk_host_tensor *t) {
  return wgk_host_tensor_numel(t) * wgk_host_dtype_size(t->dtype);
}
