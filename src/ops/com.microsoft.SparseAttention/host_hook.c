/* SparseAttention: the host-check hook handing the call to host_check.c (the CSR layout
 * and the sequence lengths by value, from the host copies the runtime keeps of small integer tensors). */

#include "ops/com.microsoft.SparseAttention/host_check.h"
#include "ops/ops.h"

static int64_t attr_int(const expr_value *attrs, const char *name, bool *given) {
  const expr_value *v = attrs ? expr_value_dict_get(attrs, name) : NULL;
  *given = v && expr_value_is_number(v);
  return *given ? expr_value_as_int(v) : 0;
}

static wgk_status host_check(const ops_call *call, util_error *err) {
  const expr_value *attrs = call->attrs;
  ops_sparse_check_args a = {0};
  struct {
    const char *port;
    ops_hostcheck_tensor *t;
  } map[] = {
      {"query", &a.query},
      {"key", &a.key},
      {"value", &a.value},
      {"past_key", &a.past_key},
      {"past_value", &a.past_value},
      {"block_row_indices", &a.block_row_indices},
      {"block_col_indices", &a.block_col_indices},
      {"total_sequence_length", &a.total_sequence_length},
      {"key_total_sequence_lengths", &a.key_total_sequence_lengths},
      {"cos_cache", &a.cos_cache},
      {"sin_cache", &a.sin_cache},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    wgk_status st = call->port(call, map[i].port, true, map[i].t, err);
    if (st != WGK_OK) return st;
  }
  if (!a.query.present || !a.past_key.present || !a.past_value.present || !a.block_row_indices.present ||
      !a.block_col_indices.present || !a.total_sequence_length.present || !a.key_total_sequence_lengths.present)
    return WGK_OK; /* a missing required port is validation's message */
  bool given;
  a.num_heads = attr_int(attrs, "num_heads", &a.has_num_heads);
  a.kv_num_heads = attr_int(attrs, "kv_num_heads", &a.has_kv_num_heads);
  a.sparse_block_size = attr_int(attrs, "sparse_block_size", &a.has_sparse_block_size);
  a.do_rotary = attr_int(attrs, "do_rotary", &given);
  wgk_status st = ops_sparse_check(&a, err);
  if (st != WGK_OK) util_error_wrap(err, util_pos_make(call->source, 0, 0), NULL);
  return st;
}

WGK_OP_HOST_HOOKS(com_microsoft_SparseAttention) = {
    .op_id = "com.microsoft.SparseAttention",
    .host_check = host_check,
};
