/*
 * ai.onnx RotaryEmbedding (opset 23) computed on the host in double precision: the oracle the GPU kernels are
 * compared with. Semantics: the op's kernel card, kernels/<op id>/README.md.
 *
 *   X            4D (batch, num_heads, seq, head_size) or 3D (batch, seq, num_heads * head_size)
 *   cos/sin      (max_pos, rot/2) with position_ids, else (batch, seq, rot/2)
 *   position_ids (batch, seq) int64 (int32 accepted), optional
 * float32 and float16 inputs are widened to double; the output has X's shape and is written as doubles.
 * Invalid arguments (odd head size, rot > head_size, shape mismatch, position id out of range ...) return
 * WGK_ERR_CALL with a message; nothing is written to out then.
 */
#ifndef WGK_REF_ROTARY_H
#define WGK_REF_ROTARY_H

#include "util/error.h"
#include "util/tensor_host.h"

typedef struct ops_ref_rotary_attrs {
  int64_t num_heads;            /* required for 3D X; 0 = absent (for 4D X, checked against dims[1] if set) */
  int64_t rotary_embedding_dim; /* 0 = head_size */
  int64_t interleaved;          /* 0: pair i with i + rot/2 (NeoX); 1: pair 2i with 2i+1 (GPT-J) */
} ops_ref_rotary_attrs;

wgk_status ops_ref_rotary(const util_host_tensor *x, const util_host_tensor *cos_cache,
                          const util_host_tensor *sin_cache, const util_host_tensor *position_ids /* or NULL */,
                          const ops_ref_rotary_attrs *attrs, double *out /* numel(x) */, util_error *err);

#endif
