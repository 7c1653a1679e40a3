/* The one dtype table: every fact wgk knows about an element type (docs/call-semantics.md, "Storage"), read by
 * the host tensors, the manifest reader, the planner, the expression helpers and the runtime. The enum is the
 * public wgk_dtype (include/wgk.h); 0 (WGK_DTYPE_INVALID) is "none", so a zeroed struct is visibly unset. */
#ifndef WGK_UTIL_DTYPE_H
#define WGK_UTIL_DTYPE_H

#include <stddef.h>

#include "wgk.h"

typedef struct util_dtype_info {
  wgk_dtype dtype;
  const char *name;         /* the logical name in manifests, .npy-facing text and the C API */
  size_t host_bytes;        /* bytes per element on the host */
  size_t storage_bytes;     /* bytes per element in a GPU buffer: int8, int16, uint8 and bool widen to a word */
  int onnx;                 /* TensorProto.DataType */
  const char *storage_wgsl; /* the WGSL type a buffer of it holds (int8 -> i32, int64 -> vec2<u32>) */
  const char *native_wgsl;  /* the WGSL scalar of the same width; NULL when widened (the loader's dtype table) */
  bool scratch;             /* may be an intermediate's dtype (32-bit words or float16) */
} util_dtype_info;

/* NULL for WGK_DTYPE_INVALID or an unknown value / name. */
const util_dtype_info *util_dtype_info_of(wgk_dtype dtype);
const util_dtype_info *util_dtype_info_named(const char *name);
int util_dtype_to_onnx(wgk_dtype dtype);               /* 0 for WGK_DTYPE_INVALID */
wgk_dtype util_dtype_from_onnx(int code);              /* WGK_DTYPE_INVALID when unsupported */
const char *util_dtype_storage_wgsl(const char *name); /* NULL when the name is no dtype */
/* The i-th entry, i = 0 .. util_dtype_count() - 1, in enum order. */
size_t util_dtype_count(void);
const util_dtype_info *util_dtype_info_at(size_t i);

#endif
