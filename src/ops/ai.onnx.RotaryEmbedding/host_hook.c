/* RotaryEmbedding: the host-check hook handing the call to the op's checks in host_check.c
 * (position ids within the cache rows, and the shape rules with their values). ONNX Runtime's CUDA and WebGPU
 * kernels pass X through on a bad id; wgk refuses the call before anything runs (the op's kernel card, kernels/<op
 * id>/README.md). */

#include "ops/ai.onnx.RotaryEmbedding/host_check.h"
#include "ops/ops.h"

static wgk_status host_check(const ops_call *call, util_error *err) {
  const expr_value *attrs = call->attrs;
  ops_rotary_check_args a = {0};
  wgk_status st = call->port(call, "X", false, &a.x, err);
  if (st == WGK_OK) st = call->port(call, "cos_cache", false, &a.cos_cache, err);
  if (st == WGK_OK) st = call->port(call, "sin_cache", false, &a.sin_cache, err);
  if (st == WGK_OK) st = call->port(call, "position_ids", true, &a.position_ids, err);
  if (st != WGK_OK) return st;
  if (!a.x.present || !a.cos_cache.present || !a.sin_cache.present) return WGK_OK; /* validation's job */
  const expr_value *heads = attrs ? expr_value_dict_get(attrs, "num_heads") : NULL;
  const expr_value *rot = attrs ? expr_value_dict_get(attrs, "rotary_embedding_dim") : NULL;
  a.has_num_heads = heads && expr_value_is_number(heads);
  a.num_heads = a.has_num_heads ? expr_value_as_int(heads) : 0;
  a.rotary_embedding_dim = rot && expr_value_is_number(rot) ? expr_value_as_int(rot) : 0;
  st = ops_rotary_check(&a, err);
  if (st != WGK_OK) util_error_wrap(err, util_pos_make(call->source, 0, 0), NULL);
  return st;
}

/* Every output element depends on its own row of X (one token of one head), its position id and the cache rows
 * that id selects: batches, tokens and heads are independent. Rank 3 X is (B, S, hidden), rank 4 (B, N, S, H);
 * the caches are 2D (rows gathered at position_ids: bound whole) or, without position_ids, (B, S, rotary/2)
 * and split with X. The runtime takes the first rule whose windows are contiguous: batch, else (batch 1) the
 * sequence, else (rank 4) the heads. */
static const ops_split splits[] = {
    {"batch",
     {{"X", 3, 0},
      {"X", 4, 0},
      {"Y", 3, 0},
      {"Y", 4, 0},
      {"position_ids", 2, 0},
      {"cos_cache", 2, WGK_OP_SPLIT_WHOLE},
      {"cos_cache", 3, 0},
      {"sin_cache", 2, WGK_OP_SPLIT_WHOLE},
      {"sin_cache", 3, 0}}},
    {"sequence",
     {{"X", 3, 1},
      {"X", 4, 2},
      {"Y", 3, 1},
      {"Y", 4, 2},
      {"position_ids", 2, 1},
      {"cos_cache", 2, WGK_OP_SPLIT_WHOLE},
      {"cos_cache", 3, 1},
      {"sin_cache", 2, WGK_OP_SPLIT_WHOLE},
      {"sin_cache", 3, 1}}},
    {"heads",
     {{"X", 4, 1},
      {"Y", 4, 1},
      {"position_ids", 2, WGK_OP_SPLIT_WHOLE},
      {"cos_cache", 2, WGK_OP_SPLIT_WHOLE},
      {"cos_cache", 3, WGK_OP_SPLIT_WHOLE},
      {"sin_cache", 2, WGK_OP_SPLIT_WHOLE},
      {"sin_cache", 3, WGK_OP_SPLIT_WHOLE}}},
};

WGK_OP_HOST_HOOKS(ai_onnx_RotaryEmbedding) = {
    .op_id = "ai.onnx.RotaryEmbedding",
    .host_check = host_check,
    .splits = splits,
    .n_splits = sizeof splits / sizeof splits[0],
};
