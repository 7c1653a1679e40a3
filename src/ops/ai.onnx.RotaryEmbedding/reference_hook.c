/* RotaryEmbedding's reference hook ("expected": {"reference": "rotary"}): the case's inputs and attributes
 * handed to the double-precision reference (reference.c), one output Y shaped like X. */
#include "ops/ai.onnx.RotaryEmbedding/reference.h"
#include "ops/ops.h"

static wgk_status need(const util_host_tensor *t, const char *onnx, util_error *err) {
  return t ? WGK_OK : util_error_plain(err, WGK_ERR_CALL, "the reference needs input %s, which the case lacks", onnx);
}

extern const ops_generator ops_rotary_generators[2]; /* generators.c */

static wgk_status reference(ops_ref_io *io, util_error *err) {
  const util_host_tensor *x = io->input(io, "X"), *cs = io->input(io, "cos_cache"), *sn = io->input(io, "sin_cache"),
                         *pos = io->input(io, "position_ids");
  wgk_status st = need(x, "X", err);
  if (!st) st = need(cs, "cos_cache", err);
  if (!st) st = need(sn, "sin_cache", err);
  if (st) return st;
  ops_ref_rotary_attrs a = {.num_heads = (int64_t)io->attr(io, "num_heads", 0),
                            .rotary_embedding_dim = (int64_t)io->attr(io, "rotary_embedding_dim", 0),
                            .interleaved = (int64_t)io->attr(io, "interleaved", 0)};
  static const char *const names[] = {"Y", NULL};
  double *y = NULL;
  st = io->output(io, names, x, x->rank, x->dims, &y, err);
  return st ? st : ops_ref_rotary(x, cs, sn, pos, &a, y, err);
}

WGK_OP_TOOL_HOOKS(ai_onnx_RotaryEmbedding) = {
    .op_id = "ai.onnx.RotaryEmbedding",
    .reference_name = "rotary",
    .reference = reference,
    .generators = ops_rotary_generators,
    .n_generators = sizeof ops_rotary_generators / sizeof ops_rotary_generators[0],
};
