/*
 * The references a case can name ("expected": {"reference": ...}): the case's inputs are matched to the
 * reference's ONNX inputs through the manifest (a case may key an input by bind key or port name), the
 * attributes are the case's over the manifest's defaults, and the result is one or more outputs in double.
 */
#include <stdlib.h>
#include <string.h>

#include "ref/rotary.h"
#include "ref/sparse_attention.h"
#include "runtime/tc_ref.h"

/* The case input feeding ONNX input `onnx`, or NULL when the case leaves it out. */
static const wgk_host_tensor *input_for(const wgk_manifest *m, const wgk_tc_case *c, wgk_host_tensor *const *in,
                                        const char *onnx) {
  for (size_t i = 0; i < c->n_inputs; i++) {
    const wgk_manifest_port *p = wgk_manifest_find_port_or_key(m, c->inputs[i].key);
    const char *name = p ? (p->onnx ? p->onnx : p->name) : c->inputs[i].key;
    if (strcmp(name, onnx) == 0) return in[i];
  }
  return NULL;
}

/* An attribute as a number: the case's value, else the manifest default, else dflt. */
static double attr_num(const wgk_manifest *m, const wgk_tc_case *c, const char *name, double dflt) {
  for (size_t i = 0; i < c->n_attrs; i++)
    if (strcmp(c->attrs[i].name, name) == 0 && json_is_number(c->attrs[i].value))
      return json_number_value(c->attrs[i].value);
  const wgk_manifest_attribute *a = wgk_manifest_find_attribute(m, name);
  if (a && a->default_value && json_is_number(a->default_value)) return json_number_value(a->default_value);
  return dflt;
}

static wgk_status add_out(wgk_tc_ref_outputs *o, const char *const *names, const wgk_host_tensor *like, int rank,
                          const int64_t *dims, double **values, wgk_error *err) {
  wgk_tc_ref_output *r = &o->out[o->n];
  size_t numel = 0;
  if (!wgk_host_shape_numel(rank, dims, 8, &numel) || !(*values = calloc(numel + 1, sizeof(double))))
    return wgk_error_set(err, WGK_ERR_OUT_OF_MEMORY, NULL, 0, 0, NULL, "out of memory for the reference");
  for (int i = 0; i < 2 && names[i]; i++) r->names[i] = names[i];
  r->dtype = like->dtype;
  r->rank = rank;
  memcpy(r->dims, dims, sizeof(int64_t) * (size_t)rank);
  r->values = *values;
  r->count = numel;
  o->n++;
  return WGK_OK;
}

static wgk_status need(const wgk_host_tensor *t, const char *onnx, wgk_error *err) {
  return t ? WGK_OK
           : wgk_error_set(err, WGK_ERR_CALL, NULL, 0, 0, NULL, "the reference needs input %s, which the case lacks",
                           onnx);
}

static wgk_status rotary(const wgk_manifest *m, const wgk_tc_case *c, wgk_host_tensor *const *in,
                         wgk_tc_ref_outputs *o, wgk_error *err) {
  const wgk_host_tensor *x = input_for(m, c, in, "X"), *cs = input_for(m, c, in, "cos_cache"),
                        *sn = input_for(m, c, in, "sin_cache"), *pos = input_for(m, c, in, "position_ids");
  wgk_status st = need(x, "X", err);
  if (!st) st = need(cs, "cos_cache", err);
  if (!st) st = need(sn, "sin_cache", err);
  if (st) return st;
  wgk_ref_rotary_attrs a = {.num_heads = (int64_t)attr_num(m, c, "num_heads", 0),
                            .rotary_embedding_dim = (int64_t)attr_num(m, c, "rotary_embedding_dim", 0),
                            .interleaved = (int64_t)attr_num(m, c, "interleaved", 0)};
  static const char *const names[] = {"Y", NULL};
  double *y = NULL;
  st = add_out(o, names, x, x->rank, x->dims, &y, err);
  return st ? st : wgk_ref_rotary(x, cs, sn, pos, &a, y, err);
}

static wgk_status sparse(const wgk_manifest *m, const wgk_tc_case *c, wgk_host_tensor *const *in,
                         wgk_tc_ref_outputs *o, wgk_error *err) {
  wgk_ref_sparse_inputs si = {
      .query = input_for(m, c, in, "query"),
      .key = input_for(m, c, in, "key"),
      .value = input_for(m, c, in, "value"),
      .past_key = input_for(m, c, in, "past_key"),
      .past_value = input_for(m, c, in, "past_value"),
      .block_row_indices = input_for(m, c, in, "block_row_indices"),
      .block_col_indices = input_for(m, c, in, "block_col_indices"),
      .total_sequence_length = input_for(m, c, in, "total_sequence_length"),
      .key_total_sequence_lengths = input_for(m, c, in, "key_total_sequence_lengths"),
      .cos_cache = input_for(m, c, in, "cos_cache"),
      .sin_cache = input_for(m, c, in, "sin_cache"),
  };
  wgk_status st = need(si.query, "query", err);
  if (!st) st = need(si.past_key, "past_key", err);
  if (!st) st = need(si.past_value, "past_value", err);
  if (st) return st;
  wgk_ref_sparse_attrs a = {.num_heads = (int64_t)attr_num(m, c, "num_heads", 0),
                            .kv_num_heads = (int64_t)attr_num(m, c, "kv_num_heads", 0),
                            .scale = attr_num(m, c, "scale", 0),
                            .sparse_block_size = (int64_t)attr_num(m, c, "sparse_block_size", 0),
                            .do_rotary = (int64_t)attr_num(m, c, "do_rotary", 0),
                            .rotary_interleaved = (int64_t)attr_num(m, c, "rotary_interleaved", 0)};
  const wgk_host_tensor *q = si.query;
  if (q->rank != 3 || a.num_heads <= 0 || a.kv_num_heads <= 0 || si.past_key->rank != 4)
    return wgk_error_set(err, WGK_ERR_CALL, NULL, 0, 0, NULL,
                         "the reference needs a rank-3 query, rank-4 caches, num_heads and kv_num_heads");
  int64_t head = si.past_key->dims[3], dims[3] = {q->dims[0], q->dims[1], a.num_heads * head};
  /* present_* are the caches updated in place: the outputs are named after either */
  static const char *const out_names[] = {"output", NULL}, *const pk[] = {"present_key", "past_key"},
                           *const pv[] = {"present_value", "past_value"};
  double *out = NULL, *kc = NULL, *vc = NULL;
  st = add_out(o, out_names, q, 3, dims, &out, err);
  if (!st) st = add_out(o, pk, q, 4, si.past_key->dims, &kc, err);
  if (!st) st = add_out(o, pv, q, 4, si.past_value->dims, &vc, err);
  return st ? st : wgk_ref_sparse_attention(&si, &a, out, kc, vc, err);
}

wgk_status wgk_tc_reference_run(const wgk_manifest *m, const wgk_tc_case *c, wgk_host_tensor *const *inputs,
                            wgk_tc_ref_outputs *out, wgk_error *err) {
  memset(out, 0, sizeof *out);
  switch (c->reference) {
  case WGK_TC_REF_ROTARY: return rotary(m, c, inputs, out, err);
  case WGK_TC_REF_SPARSE_ATTENTION: return sparse(m, c, inputs, out, err);
  case WGK_TC_REF_NONE: break;
  }
  return WGK_OK;
}

void wgk_tc_ref_outputs_free(wgk_tc_ref_outputs *o) {
  for (size_t i = 0; i < o->n; i++) free(o->out[i].values);
  memset(o, 0, sizeof *o);
}
