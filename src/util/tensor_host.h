/*
 * A host tensor: the CPU-side value the tests, the references, the .npy and ONNX readers and the CLI pass around.
 * Data is owned, contiguous, little-endian, C (row-major) order. Rank 0 is a scalar (numel 1).
 *
 * Lifecycle:
 *   1. util_host_tensor_create(dtype, rank, dims, &t)  -- zero-filled data
 *   2. fill t->data (or util_host_tensor_from_double), read it (or util_host_tensor_to_double)
 *   3. util_host_tensor_free(t)                         -- NULL is a no-op
 */
#ifndef WGK_UTIL_TENSOR_HOST_H
#define WGK_UTIL_TENSOR_HOST_H

#include "util/dtype.h"
#include "wgk.h"
#include <stddef.h>
#include <stdint.h>

#define WGK_HOST_MAX_RANK 8
#define WGK_HOST_MAX_BYTES ((uint64_t)1 << 36) /* 64 GiB: anything larger is a corrupt header, not data */

typedef struct util_host_tensor {
  wgk_dtype dtype;                 /* element type */
  int rank;                        /* 0 .. WGK_HOST_MAX_RANK */
  int64_t dims[WGK_HOST_MAX_RANK]; /* extents, each >= 0; unused entries 0 */
  void *data;                      /* owned; numel * elem size bytes (may be NULL when numel is 0) */
  char *name;                      /* owned, optional (ONNX tensor name); NULL when unnamed */
} util_host_tensor;

/* Creates a zero-filled tensor. Fails (WGK_ERR_INVALID_ARGUMENT / WGK_ERR_LIMIT / WGK_ERR_OUT_OF_MEMORY) on a bad
 * dtype, rank, negative dim, or a size over WGK_HOST_MAX_BYTES. *out is NULL on failure. */
wgk_status util_host_tensor_create(wgk_dtype dtype, int rank, const int64_t *dims, util_host_tensor **out /* OUT */);
void util_host_tensor_free(util_host_tensor *t);
wgk_status util_host_tensor_set_name(util_host_tensor *t, const char *name); /* copies; NULL clears */
wgk_status util_host_tensor_clone(const util_host_tensor *t, util_host_tensor **out /* OUT */);

size_t util_host_tensor_numel(const util_host_tensor *t);
size_t util_host_tensor_bytes(const util_host_tensor *t);
/* Checks a shape's element count and byte size against WGK_HOST_MAX_BYTES; false on overflow or a negative dim. */
bool util_host_shape_numel(int rank, const int64_t *dims, size_t elem_size, size_t *numel /* OUT */);

/* Element i as a double (float16 widened exactly, integers converted, bool 0/1). */
double util_host_tensor_get(const util_host_tensor *t, size_t i);
/* All elements as doubles into out[numel]. */
void util_host_tensor_to_double(const util_host_tensor *t, double *out);
/* Stores src[numel] into t: float32 rounded to nearest, float16 round-to-nearest-even, integers rounded to nearest
 * and saturated to the type's range (NaN -> 0), bool = (value != 0). */
void util_host_tensor_from_double(util_host_tensor *t, const double *src);

#endif
