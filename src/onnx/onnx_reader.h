/*
 * Reading ONNX node-test folders: a model.onnx (usually one node) and TensorProto .pb files.
 * The decoded model is copied into plain structs so callers never see protobuf-c types.
 *
 * Lifecycle:
 *   1. wgk_onnx_model_read(path, &m, &err)
 *   2. wgk_onnx_model_single_node(m, &err) -> the node, or an error saying why not (e.g. a multi-node graph:
 *      callers SKIP such cases with that reason)
 *   3. wgk_onnx_node_attr(...) / wgk_onnx_attr_int_or(...) to read attributes
 *   4. wgk_onnx_model_free(m)   -- NULL is a no-op
 * Every error names the file (error source = path).
 */
#ifndef WGK_ONNX_READER_H
#define WGK_ONNX_READER_H

#include "util/error.h"
#include "util/tensor_host.h"

/* AttributeProto.AttributeType codes. */
typedef enum wgk_onnx_attr_type {
  WGK_ONNX_ATTR_UNDEFINED = 0,
  WGK_ONNX_ATTR_FLOAT = 1,
  WGK_ONNX_ATTR_INT = 2,
  WGK_ONNX_ATTR_STRING = 3,
  WGK_ONNX_ATTR_TENSOR = 4,
  WGK_ONNX_ATTR_FLOATS = 6,
  WGK_ONNX_ATTR_INTS = 7,
  WGK_ONNX_ATTR_STRINGS = 8,
} wgk_onnx_attr_type;

typedef struct wgk_onnx_attr {
  char *name;              /* attribute name */
  wgk_onnx_attr_type type; /* which of the value fields below is meaningful */
  double f;                /* FLOAT (the proto's float widened) */
  int64_t i;               /* INT */
  char *s;                 /* STRING, NUL-terminated copy (bytes after an embedded NUL are in s_len) */
  size_t s_len;            /* STRING length in bytes */
  size_t n;                /* element count of floats / ints / strings */
  double *floats;          /* FLOATS */
  int64_t *ints;           /* INTS */
  char **strings;          /* STRINGS, each NUL-terminated */
  wgk_host_tensor *t;      /* TENSOR, or NULL */
} wgk_onnx_attr;

typedef struct wgk_onnx_node {
  char *name;       /* node name ("" when unnamed) */
  char *domain;     /* "" for the default ai.onnx domain */
  char *op_type;    /* e.g. "RotaryEmbedding" */
  size_t n_inputs;  /* inputs by position, trailing absent ones included as written */
  char **inputs;    /* inputs[i] is NULL when the name is empty (an absent optional input) */
  size_t n_outputs; /* outputs by position */
  char **outputs;   /* outputs[i] is NULL when the name is empty */
  size_t n_attrs;   /* attribute count */
  wgk_onnx_attr *attrs;
} wgk_onnx_node;

/* A graph input or output: name, element type and shape (-1 for a symbolic or missing dim). */
typedef struct wgk_onnx_value_info {
  char *name;           /* value name */
  int elem_type;        /* TensorProto.DataType code, 0 when unknown */
  wgk_dtype dtype; /* the same as a host dtype, WGK_DTYPE_INVALID when unsupported */
  int rank;             /* -1 when no shape is given */
  int64_t dims[WGK_HOST_MAX_RANK];
} wgk_onnx_value_info;

typedef struct wgk_onnx_opset {
  char *domain;    /* "" for ai.onnx */
  int64_t version; /* opset version */
} wgk_onnx_opset;

typedef struct wgk_onnx_model {
  int64_t ir_version;
  size_t n_opsets;
  wgk_onnx_opset *opsets;
  char *graph_name;
  size_t node_count;    /* nodes in the graph (callers skip graphs with more than one) */
  wgk_onnx_node *nodes; /* node_count nodes in graph order */
  size_t n_inputs;      /* graph inputs */
  wgk_onnx_value_info *inputs;
  size_t n_outputs; /* graph outputs */
  wgk_onnx_value_info *outputs;
  size_t n_initializers;
  wgk_host_tensor **initializers; /* named host tensors */
} wgk_onnx_model;

wgk_status wgk_onnx_model_read(const char *path, wgk_onnx_model **out /* OUT */, wgk_error *err);
wgk_status wgk_onnx_model_parse(const void *buf, size_t len, const char *source, wgk_onnx_model **out /* OUT */,
                                wgk_error *err);
void wgk_onnx_model_free(wgk_onnx_model *m);

/* The graph's only node; WGK_ERR_UNSUPPORTED with "graph has N nodes, expected 1" otherwise. */
const wgk_onnx_node *wgk_onnx_model_single_node(const wgk_onnx_model *m, wgk_error *err);
/* The opset version imported for domain ("" and "ai.onnx" are the same); 0 when not imported. */
int64_t wgk_onnx_model_opset(const wgk_onnx_model *m, const char *domain);

const wgk_onnx_attr *wgk_onnx_node_attr(const wgk_onnx_node *n, const char *name); /* NULL when absent */
int64_t wgk_onnx_attr_int_or(const wgk_onnx_node *n, const char *name, int64_t dflt);
double wgk_onnx_attr_float_or(const wgk_onnx_node *n, const char *name, double dflt);
const char *wgk_onnx_attr_string_or(const wgk_onnx_node *n, const char *name, const char *dflt);
/* The node's input i, or NULL when i is past the end or the input is absent. */
const char *wgk_onnx_node_input(const wgk_onnx_node *n, size_t i);

/* A serialized TensorProto (.pb) -> host tensor with its name. raw_data or the typed fields; float16 bits and
 * int8/uint8/bool in int32_data; uint32 in uint64_data. */
wgk_status wgk_onnx_tensor_read(const char *path, wgk_host_tensor **out /* OUT */, wgk_error *err);
wgk_status wgk_onnx_tensor_parse(const void *buf, size_t len, const char *source, wgk_host_tensor **out /* OUT */,
                                 wgk_error *err);

#endif
