/* SparseAttention's reference hook ("expected": {"reference": "sparse_attention"}): the case's inputs and
 * attributes handed to the double-precision reference (reference.c); outputs: output and the updated caches. */
#include "ops/com.microsoft.SparseAttention/reference.h"
#include "ops/ops.h"

static wgk_status need(const util_host_tensor *t, const char *onnx, util_error *err) {
  return t ? WGK_OK : util_error_plain(err, WGK_ERR_CALL, "the reference needs input %s, which the case lacks", onnx);
}

extern const ops_generator ops_sparse_generators[2]; /* generators.c */

static wgk_status reference(ops_ref_io *io, util_error *err) {
  ops_ref_sparse_inputs si = {
      .query = io->input(io, "query"),
      .key = io->input(io, "key"),
      .value = io->input(io, "value"),
      .past_key = io->input(io, "past_key"),
      .past_value = io->input(io, "past_value"),
      .block_row_indices = io->input(io, "block_row_indices"),
      .block_col_indices = io->input(io, "block_col_indices"),
      .total_sequence_length = io->input(io, "total_sequence_length"),
      .key_total_sequence_lengths = io->input(io, "key_total_sequence_lengths"),
      .cos_cache = io->input(io, "cos_cache"),
      .sin_cache = io->input(io, "sin_cache"),
  };
  wgk_status st = need(si.query, "query", err);
  if (!st) st = need(si.past_key, "past_key", err);
  if (!st) st = need(si.past_value, "past_value", err);
  if (st) return st;
  ops_ref_sparse_attrs a = {.num_heads = (int64_t)io->attr(io, "num_heads", 0),
                            .kv_num_heads = (int64_t)io->attr(io, "kv_num_heads", 0),
                            .scale = io->attr(io, "scale", 0),
                            .sparse_block_size = (int64_t)io->attr(io, "sparse_block_size", 0),
                            .do_rotary = (int64_t)io->attr(io, "do_rotary", 0),
                            .rotary_interleaved = (int64_t)io->attr(io, "rotary_interleaved", 0)};
  const util_host_tensor *q = si.query;
  if (q->rank != 3 || a.num_heads <= 0 || a.kv_num_heads <= 0 || si.past_key->rank != 4)
    return util_error_plain(err, WGK_ERR_CALL,
                            "the reference needs a rank-3 query, rank-4 caches, num_heads and kv_num_heads");
  int64_t head = si.past_key->dims[3], dims[3] = {q->dims[0], q->dims[1], a.num_heads * head};
  /* present_* are the caches updated in place: the outputs are named after either */
  static const char *const out_names[] = {"output", NULL}, *const pk[] = {"present_key", "past_key"},
                           *const pv[] = {"present_value", "past_value"};
  double *out = NULL, *kc = NULL, *vc = NULL;
  st = io->output(io, out_names, q, 3, dims, &out, err);
  if (!st) st = io->output(io, pk, q, 4, si.past_key->dims, &kc, err);
  if (!st) st = io->output(io, pv, q, 4, si.past_value->dims, &vc, err);
  return st ? st : ops_ref_sparse_attention(&si, &a, out, kc, vc, err);
}

WGK_OP_TOOL_HOOKS(com_microsoft_SparseAttention) = {
    .op_id = "com.microsoft.SparseAttention",
    .reference_name = "sparse_attention",
    .reference = reference,
    .generators = ops_sparse_generators,
    .n_generators = sizeof ops_sparse_generators / sizeof ops_sparse_generators[0],
};
