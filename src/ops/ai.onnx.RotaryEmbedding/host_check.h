/*
 * Host checks for ai.onnx.RotaryEmbedding that its manifest cannot express (the op's kernel card, kernels/<op
 * id>/README.md): they need the position ids' values, or they turn a bare "rank4Contract is false" into a message
 * naming the port, the rule and the values. Run after the manifest's own validation and before anything is dispatched.
 *
 * The runtime calls ops_rotary_check through its per-op host-check hook (op id "ai.onnx.RotaryEmbedding").
 * It sees tensors by ONNX port name with their shape and, where the caller's data is on the host, the data.
 */
#ifndef WGK_OPS_ROTARY_CHECK_H
#define WGK_OPS_ROTARY_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/hostcheck.h"
#include "util/error.h"

typedef struct ops_rotary_check_args {
  ops_hostcheck_tensor x, cos_cache, sin_cache, position_ids; /* the ONNX inputs, in ONNX order */
  bool has_num_heads;                                         /* attribute num_heads given */
  int64_t num_heads;                                          /* its value */
  int64_t rotary_embedding_dim;                               /* 0 = head size */
} ops_rotary_check_args;

/* WGK_OK, or WGK_ERR_CALL with the error's path naming the port ("positionIds (position_ids)") and the
 * message the rule and the values. A position_ids tensor without host data is not range-checked here
 * (the shader then passes such tokens through unchanged). */
wgk_status ops_rotary_check(const ops_rotary_check_args *a, util_error *err);

#endif
