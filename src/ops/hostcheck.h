/* A call's input as the per-op host checks of src/ops/ see it: shape, dtype and, for small integer
 * tensors, the data (the runtime keeps host copies of those). */
#ifndef WGK_OPS_HOSTCHECK_H
#define WGK_OPS_HOSTCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "wgk.h"

typedef struct ops_hostcheck_tensor {
  bool present;         /* the caller gave this port */
  wgk_dtype dtype;      /* logical dtype */
  int rank;             /* number of dims */
  const int64_t *shape; /* rank dims */
  const void *data;     /* host copy in logical layout (integer tensors), or NULL when not on the host */
} ops_hostcheck_tensor;

#endif
