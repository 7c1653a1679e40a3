/* ModelProto -> onnx_model: every string and array copied out so the protobuf message can be freed at once. */
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx_internal.h"
#include "util/file_read.h"

typedef struct ctx {
  const char *src; /* file name for errors */
  util_error *err;
} ctx;

static wgk_status dup_bytes(ctx *c, const ProtobufCBinaryData *b, char **out, size_t *len) {
  if (!(*out = malloc(b->len + 1))) return util_error_oom(c->err, c->src, NULL);
  if (b->len) memcpy(*out, b->data, b->len);
  (*out)[b->len] = 0;
  if (len) *len = b->len;
  return WGK_OK;
}

static onnx_attr_type infer_type(const WgkOnnx__AttributeProto *a) {
  if (a->has_type) return (onnx_attr_type)a->type;
  return a->n_floats    ? WGK_ONNX_ATTR_FLOATS
         : a->n_ints    ? WGK_ONNX_ATTR_INTS
         : a->n_strings ? WGK_ONNX_ATTR_STRINGS
         : a->has_s     ? WGK_ONNX_ATTR_STRING
         : a->t         ? WGK_ONNX_ATTR_TENSOR
         : a->has_f     ? WGK_ONNX_ATTR_FLOAT
         : a->has_i     ? WGK_ONNX_ATTR_INT
                        : WGK_ONNX_ATTR_UNDEFINED;
}

/* Only the list the attribute's type names is kept, so n always describes it. */
static wgk_status copy_lists(ctx *c, const WgkOnnx__AttributeProto *a, onnx_attr *o) {
  if (o->type == WGK_ONNX_ATTR_FLOATS && a->n_floats) {
    if (!(o->floats = calloc(a->n_floats, sizeof *o->floats))) return util_error_oom(c->err, c->src, NULL);
    for (size_t i = 0; i < a->n_floats; i++) o->floats[i] = a->floats[i];
    o->n = a->n_floats;
  } else if (o->type == WGK_ONNX_ATTR_INTS && a->n_ints) {
    if (!(o->ints = calloc(a->n_ints, sizeof *o->ints))) return util_error_oom(c->err, c->src, NULL);
    memcpy(o->ints, a->ints, a->n_ints * sizeof *o->ints);
    o->n = a->n_ints;
  } else if (o->type == WGK_ONNX_ATTR_STRINGS && a->n_strings) {
    if (!(o->strings = calloc(a->n_strings, sizeof *o->strings))) return util_error_oom(c->err, c->src, NULL);
    o->n = a->n_strings;
    for (size_t i = 0; i < a->n_strings; i++)
      if (dup_bytes(c, &a->strings[i], &o->strings[i], NULL) != WGK_OK) return WGK_ERR_OUT_OF_MEMORY;
  }
  return WGK_OK;
}

static wgk_status copy_attr(ctx *c, const WgkOnnx__AttributeProto *a, onnx_attr *o) {
  if (!(o->name = onnx_strdup(a->name))) return util_error_oom(c->err, c->src, NULL);
  o->type = infer_type(a);
  o->f = a->f;
  o->i = a->i;
  if (a->has_s && dup_bytes(c, &a->s, &o->s, &o->s_len) != WGK_OK) return WGK_ERR_OUT_OF_MEMORY;
  if (a->t && onnx_tensor_from_proto(a->t, c->src, o->name, &o->t, c->err) != WGK_OK) return c->err->status;
  return copy_lists(c, a, o);
}

/* Names by position; "" (an absent optional) becomes NULL. */
static wgk_status copy_names(ctx *c, char *const *in, size_t n, char ***out) {
  if (n && !(*out = calloc(n, sizeof **out))) return util_error_oom(c->err, c->src, NULL);
  for (size_t i = 0; i < n; i++)
    if (in[i] && in[i][0] && !((*out)[i] = strdup(in[i]))) return util_error_oom(c->err, c->src, NULL);
  return WGK_OK;
}

static wgk_status copy_node(ctx *c, const WgkOnnx__NodeProto *p, onnx_node *n) {
  if (!(n->name = onnx_strdup(p->name)) || !(n->domain = onnx_strdup(p->domain)) ||
      !(n->op_type = onnx_strdup(p->op_type)))
    return util_error_oom(c->err, c->src, NULL);
  n->n_inputs = p->n_input;
  n->n_outputs = p->n_output;
  wgk_status st = copy_names(c, p->input, p->n_input, &n->inputs);
  if (st == WGK_OK) st = copy_names(c, p->output, p->n_output, &n->outputs);
  if (st == WGK_OK && p->n_attribute && !(n->attrs = calloc(p->n_attribute, sizeof *n->attrs)))
    st = util_error_oom(c->err, c->src, NULL);
  if (st == WGK_OK) /* zeroed slots are safe to free if a copy below fails */
    n->n_attrs = p->n_attribute;
  for (size_t i = 0; st == WGK_OK && i < p->n_attribute; i++) st = copy_attr(c, p->attribute[i], &n->attrs[i]);
  return st;
}

static wgk_status copy_value_info(ctx *c, const WgkOnnx__ValueInfoProto *p, onnx_value_info *v) {
  if (!(v->name = onnx_strdup(p->name))) return util_error_oom(c->err, c->src, NULL);
  v->rank = -1;
  const WgkOnnx__TypeProto__Tensor *tt =
      p->type && p->type->value_case == WGK_ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? p->type->tensor_type : NULL;
  if (!tt) return WGK_OK;
  v->elem_type = tt->elem_type;
  v->dtype = util_dtype_from_onnx(tt->elem_type);
  if (!tt->shape) return WGK_OK;
  if (tt->shape->n_dim > WGK_HOST_MAX_RANK)
    return util_error_in(c->err, WGK_ERR_LIMIT, c->src, v->name, "rank %zu above the limit of 8", tt->shape->n_dim);
  v->rank = (int)tt->shape->n_dim;
  for (int i = 0; i < v->rank; i++) {
    const WgkOnnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
    v->dims[i] = d->value_case == WGK_ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ? d->dim_value : -1;
  }
  return WGK_OK;
}

static wgk_status copy_values(ctx *c, WgkOnnx__ValueInfoProto *const *in, size_t n, onnx_value_info **out,
                              size_t *count) {
  if (n && !(*out = calloc(n, sizeof **out))) return util_error_oom(c->err, c->src, NULL);
  *count = n;
  for (size_t i = 0; i < n; i++) {
    wgk_status st = copy_value_info(c, in[i], &(*out)[i]);
    if (st != WGK_OK) return st;
  }
  return WGK_OK;
}

static wgk_status copy_graph(ctx *c, const WgkOnnx__GraphProto *g, onnx_model *m) {
  if (!(m->graph_name = onnx_strdup(g->name))) return util_error_oom(c->err, c->src, NULL);
  if ((g->n_node && !(m->nodes = calloc(g->n_node, sizeof *m->nodes))) ||
      (g->n_initializer && !(m->initializers = calloc(g->n_initializer, sizeof *m->initializers))))
    return util_error_oom(c->err, c->src, NULL);
  m->node_count = g->n_node;
  m->n_initializers = g->n_initializer;
  wgk_status st = WGK_OK;
  for (size_t i = 0; st == WGK_OK && i < g->n_node; i++) st = copy_node(c, g->node[i], &m->nodes[i]);
  for (size_t i = 0; st == WGK_OK && i < g->n_initializer; i++)
    st = onnx_tensor_from_proto(g->initializer[i], c->src, "initializer", &m->initializers[i], c->err);
  if (st == WGK_OK) st = copy_values(c, g->input, g->n_input, &m->inputs, &m->n_inputs);
  if (st == WGK_OK) st = copy_values(c, g->output, g->n_output, &m->outputs, &m->n_outputs);
  return st;
}

static wgk_status copy_model(ctx *c, const WgkOnnx__ModelProto *p, onnx_model *m) {
  m->ir_version = p->ir_version;
  if (p->n_opset_import && !(m->opsets = calloc(p->n_opset_import, sizeof *m->opsets)))
    return util_error_oom(c->err, c->src, NULL);
  m->n_opsets = p->n_opset_import;
  for (size_t i = 0; i < p->n_opset_import; i++) {
    if (!(m->opsets[i].domain = onnx_strdup(p->opset_import[i]->domain))) return util_error_oom(c->err, c->src, NULL);
    m->opsets[i].version = p->opset_import[i]->version;
  }
  if (!p->graph) return util_error_in(c->err, WGK_ERR_PARSE, c->src, NULL, "model has no graph");
  return copy_graph(c, p->graph, m);
}

wgk_status onnx_model_parse(const void *buf, size_t len, const char *source, onnx_model **out, util_error *err) {
  *out = NULL;
  ctx c = {source ? source : "<onnx>", err};
  WgkOnnx__ModelProto *p = wgk_onnx__model_proto__unpack(NULL, len, buf);
  if (!p) return util_error_in(err, WGK_ERR_PARSE, c.src, NULL, "not a valid ONNX ModelProto");
  onnx_model *m = calloc(1, sizeof *m);
  wgk_status st = m ? copy_model(&c, p, m) : util_error_oom(c.err, c.src, NULL);
  wgk_onnx__model_proto__free_unpacked(p, NULL);
  if (st != WGK_OK) {
    onnx_model_free(m);
    return st;
  }
  *out = m;
  return WGK_OK;
}

wgk_status onnx_model_read(const char *path, onnx_model **out, util_error *err) {
  unsigned char *buf;
  size_t len;
  *out = NULL;
  wgk_status st = util_file_read_all(path, WGK_ONNX_MAX_FILE, &buf, &len, err);
  if (st != WGK_OK) return st;
  st = onnx_model_parse(buf, len, path, out, err);
  free(buf);
  return st;
}
