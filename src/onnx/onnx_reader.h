/*
 * Reading ONNX node-test folders: a model.onnx (usually one node) and TensorProto .pb files.
 * The decoded model is copied into plain structs so callers never see protobuf-c types.
 *
 * Lifecycle:
 *   1. onnx_model_read(path, &m, &err)
 *   2. onnx_model_single_node(m, &err) -> the node, or an error saying why not (e.g. a multi-node graph:
 *      callers SKIP such cases with that reason)
 *   3. onnx_node_attr(...) / onnx_attr_int_or(...) to read attributes
 *   4. onnx_model_free(m)   -- NULL is a no-op
 * Every error names the file (error source = path).
 */
#ifndef WGK_ONNX_READER_H
#define WGK_ONNX_READER_H

#include "util/error.h"
#include "util/tensor_host.h"

/* AttributeProto.AttributeType codes. */
typedef enum onnx_attr_type {
  WGK_ONNX_ATTR_UNDEFINED = 0,
  WGK_ONNX_ATTR_FLOAT = 1,
  WGK_ONNX_ATTR_INT = 2,
  WGK_ONNX_ATTR_STRING = 3,
  WGK_ONNX_ATTR_TENSOR = 4,
  WGK_ONNX_ATTR_FLOATS = 6,
  WGK_ONNX_ATTR_INTS = 7,
  WGK_ONNX_ATTR_STRINGS = 8,
} onnx_attr_type;

typedef struct onnx_attr {
  char *name;          /* attribute name */
  onnx_attr_type type; /* which of the value fields below is meaningful */
  double f;            /* FLOAT (the proto's float widened) */
  int64_t i;           /* INT */
  char *s;             /* STRING, NUL-terminated copy (bytes after an embedded NUL are in s_len) */
  size_t s_len;        /* STRING length in bytes */
  size_t n;            /* element count of floats / ints / strings */
  double *floats;      /* FLOATS */
  int64_t *ints;       /* INTS */
  char **strings;      /* STRINGS, each NUL-terminated */
  util_host_tensor *t; /* TENSOR, or NULL */
} onnx_attr;

typedef struct onnx_node {
  char *name;       /* node name ("" when unnamed) */
  char *domain;     /* "" for the default ai.onnx domain */
  char *op_type;    /* e.g. "RotaryEmbedding" */
  size_t n_inputs;  /* inputs by position, trailing absent ones included as written */
  char **inputs;    /* inputs[i] is NULL when the name is empty (an absent optional input) */
  size_t n_outputs; /* outputs by position */
  char **outputs;   /* outputs[i] is NULL when the name is empty */
  size_t n_attrs;   /* attribute count */
  onnx_attr *attrs;
} onnx_node;

/* A graph input or output: name, element type and shape (-1 for a symbolic or missing dim). */
typedef struct onnx_value_info {
  char *name;      /* value name */
  int elem_type;   /* TensorProto.DataType code, 0 when unknown */
  wgk_dtype dtype; /* the same as a host dtype, WGK_DTYPE_INVALID when unsupported */
  int rank;        /* -1 when no shape is given */
  int64_t dims[WGK_HOST_MAX_RANK];
} onnx_value_info;

typedef struct onnx_opset {
  char *domain;    /* "" for ai.onnx */
  int64_t version; /* opset version */
} onnx_opset;

typedef struct onnx_model {
  int64_t ir_version;
  size_t n_opsets;
  onnx_opset *opsets;
  char *graph_name;
  size_t node_count; /* nodes in the graph (callers skip graphs with more than one) */
  onnx_node *nodes;  /* node_count nodes in graph order */
  size_t n_inputs;   /* graph inputs */
  onnx_value_info *inputs;
  size_t n_outputs; /* graph outputs */
  onnx_value_info *outputs;
  size_t n_initializers;
  util_host_tensor **initializers; /* named host tensors */
} onnx_model;

wgk_status onnx_model_read(const char *path, onnx_model **out /* OUT */, util_error *err);
wgk_status onnx_model_parse(const void *buf, size_t len, const char *source, onnx_model **out /* OUT */,
                            util_error *err);
void onnx_model_free(onnx_model *m);

/* The graph's only node; WGK_ERR_UNSUPPORTED with "graph has N nodes, expected 1" otherwise. */
const onnx_node *onnx_model_single_node(const onnx_model *m, util_error *err);
/* The opset version imported for domain ("" and "ai.onnx" are the same); 0 when not imported. */
int64_t onnx_model_opset(const onnx_model *m, const char *domain);

const onnx_attr *onnx_node_attr(const onnx_node *n, const char *name); /* NULL when absent */
int64_t onnx_attr_int_or(const onnx_node *n, const char *name, int64_t dflt);
double onnx_attr_float_or(const onnx_node *n, const char *name, double dflt);
const char *onnx_attr_string_or(const onnx_node *n, const char *name, const char *dflt);
/* The node's input i, or NULL when i is past the end or the input is absent. */
const char *onnx_node_input(const onnx_node *n, size_t i);

/* A serialized TensorProto (.pb) -> host tensor with its name. raw_data or the typed fields; float16 bits and
 * int8/uint8/bool in int32_data; uint32 in uint64_data. */
wgk_status onnx_tensor_read(const char *path, util_host_tensor **out /* OUT */, util_error *err);
wgk_status onnx_tensor_parse(const void *buf, size_t len, const char *source, util_host_tensor **out /* OUT */,
                             util_error *err);

#endif
