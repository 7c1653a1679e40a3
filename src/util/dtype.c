/* The one dtype table (util/dtype.h). */
#include "util/dtype.h"

#include <string.h>

static const util_dtype_info DTYPES[] = {
    {WGK_DTYPE_FLOAT32, "float32", 4, 4, 1, "f32", "f32", true},
    {WGK_DTYPE_FLOAT16, "float16", 2, 2, 10, "f16", "f16", true},
    {WGK_DTYPE_INT32, "int32", 4, 4, 6, "i32", "i32", true},
    {WGK_DTYPE_UINT32, "uint32", 4, 4, 12, "u32", "u32", true},
    {WGK_DTYPE_INT64, "int64", 8, 8, 7, "vec2<u32>", "vec2<u32>", false},
    {WGK_DTYPE_INT8, "int8", 1, 4, 3, "i32", NULL, false},
    {WGK_DTYPE_UINT8, "uint8", 1, 4, 2, "u32", NULL, false},
    {WGK_DTYPE_BOOL, "bool", 1, 4, 9, "u32", NULL, false},
    {WGK_DTYPE_INT16, "int16", 2, 4, 5, "i32", NULL, false},
};
#define N_DTYPES (sizeof DTYPES / sizeof DTYPES[0])

size_t util_dtype_count(void) { return N_DTYPES; }
const util_dtype_info *util_dtype_info_at(size_t i) { return i < N_DTYPES ? &DTYPES[i] : NULL; }

const util_dtype_info *util_dtype_info_of(wgk_dtype dtype) {
  return dtype > WGK_DTYPE_INVALID && (size_t)dtype <= N_DTYPES ? &DTYPES[dtype - 1] : NULL;
}

const util_dtype_info *util_dtype_info_named(const char *name) {
  for (size_t i = 0; name && i < N_DTYPES; i++)
    if (strcmp(DTYPES[i].name, name) == 0) return &DTYPES[i];
  return NULL;
}

const char *wgk_dtype_name(wgk_dtype dtype) {
  const util_dtype_info *d = util_dtype_info_of(dtype);
  return d ? d->name : "invalid";
}

wgk_dtype wgk_dtype_from_name(const char *name) {
  const util_dtype_info *d = util_dtype_info_named(name);
  return d ? d->dtype : WGK_DTYPE_INVALID;
}

size_t wgk_dtype_size(wgk_dtype dtype) {
  const util_dtype_info *d = util_dtype_info_of(dtype);
  return d ? d->host_bytes : 0;
}

int util_dtype_to_onnx(wgk_dtype dtype) {
  const util_dtype_info *d = util_dtype_info_of(dtype);
  return d ? d->onnx : 0;
}

wgk_dtype util_dtype_from_onnx(int code) {
  for (size_t i = 0; i < N_DTYPES; i++)
    if (DTYPES[i].onnx == code) return DTYPES[i].dtype;
  return WGK_DTYPE_INVALID;
}

const char *util_dtype_storage_wgsl(const char *name) {
  const util_dtype_info *d = util_dtype_info_named(name);
  return d ? d->storage_wgsl : NULL;
}
