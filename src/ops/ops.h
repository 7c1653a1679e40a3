/*
 * Everything wgk knows about an op in C, behind one hooks struct per op, found by the table of
 * src/ops/registry.c (generated from the op folders). Each op's code lives in src/ops/<op id>/: host_*.c are the
 * runtime's part (in libwgk), the other files the tools' part (in wgk_tools: references, generators). The generic
 * layers never name an op: the runtime asks the table for the manifest's op id, test cases ask it for a reference or
 * generator by name. A package whose op is not in the table needs no C at all: its manifest's rules are all its checks,
 * and its test cases give expected data inline.
 */
#ifndef WGK_OPS_OPS_H
#define WGK_OPS_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "expr/expr.h"
#include "ops/hostcheck.h"
#include "util/error.h"
#include "util/tensor_host.h"

/* A call as a host check sees it: ports by name (lazily: only the ports it asks for, data only on request). */
typedef struct ops_call {
  const char *source;      /* the manifest's path: where a refusal points */
  const expr_value *attrs; /* the call's attributes, defaults applied; may be NULL */
  /* The port `name` (absent: out->present false); want_data: the host copy of an int32/int64 tensor. */
  wgk_status (*port)(const struct ops_call *call, const char *name, bool want_data, ops_hostcheck_tensor *out,
                     util_error *err);
  const void *impl; /* the runtime's side of port() */
} ops_call;

/* A test case as a reference sees it: inputs by ONNX name, attributes as numbers, outputs it allocates. */
typedef struct ops_ref_io {
  const util_host_tensor *(*input)(const struct ops_ref_io *io, const char *onnx_name); /* NULL: not given */
  double (*attr)(const struct ops_ref_io *io, const char *name, double dflt); /* case, else manifest default */
  /* A new output named names[0] (else names[1]) of rank/dims in like's dtype; *values (owned by io) to fill. */
  wgk_status (*output)(struct ops_ref_io *io, const char *const *names, const util_host_tensor *like, int rank,
                       const int64_t *dims, double **values, util_error *err);
  const void *impl;
} ops_ref_io;

/* An input generator a test case can name ({"generator": {"kind": name, params...}}). */
#define WGK_OP_GEN_MAX_PARAMS 4
typedef struct ops_gen_param {
  const char *name; /* NULL ends the list */
  double dflt;      /* when not required */
  bool required;
  bool count; /* an integer in [1, 1e6] */
} ops_gen_param;

typedef struct ops_generator {
  const char *name;
  ops_gen_param params[WGK_OP_GEN_MAX_PARAMS];
  bool own_shape; /* the generator decides the shape: a case may leave it out; one given must equal it */
  /* Values in double (malloc'd, *values owned by the caller). *rank/dims: the case's shape (rank -1 when left
   * out), and on return the shape made. */
  wgk_status (*make)(const struct ops_generator *g, const double *params, int *rank, int64_t *dims, double **values,
                     util_error *err);
} ops_generator;

/* How a call may be run as several smaller calls (when one of its tensors is over the device's storage-binding
 * limit): each sub-call takes a range [a, b) along `axis` of every port a rule lists with that axis, and the whole
 * of every other port, and the sub-calls' results are the whole call's. A rule applies to a call when every port it
 * names that the call gives (inputs) or makes (outputs) has one of the ranks listed for it, and the listed axes of
 * those ports have one extent. The runtime also needs each window to be one contiguous range of the port's buffer
 * (every dim before the axis is 1) and checks that itself; rules are tried in order. */
#define WGK_OP_SPLIT_WHOLE (-1) /* the port at this rank is bound whole by every sub-call */
#define WGK_OP_SPLIT_MAX_PORTS 16
typedef struct ops_split_port {
  const char *port; /* ONNX name (or the manifest's port name); NULL ends the list */
  int rank;         /* the rank this entry is for */
  int axis;         /* the axis split, or WGK_OP_SPLIT_WHOLE */
} ops_split_port;

typedef struct ops_split {
  const char *name; /* "batch", "sequence": said in verbose logs and refusals */
  ops_split_port ports[WGK_OP_SPLIT_MAX_PORTS];
} ops_split;

typedef struct ops_hooks {
  const char *op_id; /* the manifest's opId */
  /* Rules the manifest cannot state (they depend on tensor data), run before anything is dispatched. */
  wgk_status (*host_check)(const ops_call *call, util_error *err);
  /* Axes along which a call may be split into sub-calls (see ops_split); none: a call over the binding
   * limit is refused. */
  const ops_split *splits;
  size_t n_splits;
  /* Tools only (NULL in libwgk's view of the table): */
  const char *reference_name; /* "expected": {"reference": reference_name} */
  wgk_status (*reference)(ops_ref_io *io, util_error *err);
  const ops_generator *generators;
  size_t n_generators;
} ops_hooks;

/* libwgk's view (host checks): the op's hooks, or NULL when wgk has none for it. */
const ops_hooks *ops_find(const char *op_id);

/* The tools' view of the same table (references and generators filled in; wgk_tools only). */
size_t ops_tools_count(void);
const ops_hooks *ops_tools_at(size_t i);
const ops_hooks *ops_tools_find(const char *op_id);
const ops_hooks *ops_tools_find_reference(const char *reference_name);
const ops_generator *ops_tools_find_generator(const char *name);

/* An op's hooks declare themselves in its own folder: src/ops/<op id>/host_hook.c defines
 *   WGK_OP_HOST_HOOKS(<sym>) = {.op_id = "<op id>", .host_check = ..., .splits = ..., .n_splits = ...};
 * (libwgk) and src/ops/<op id>/reference_hook.c, where the op has a reference or generators,
 *   WGK_OP_TOOL_HOOKS(<sym>) = {.op_id = "<op id>", .reference_name = ..., .reference = ..., .generators = ...};
 * (wgk_tools), <sym> being the folder name with every character but letters and digits made '_'
 * (ai_onnx_RotaryEmbedding). cmake/ops_table.cmake finds the folders; nothing else names an op. */
#define WGK_OP_HOST_HOOKS(sym)                 \
  extern const ops_hooks ops_host_hooks_##sym; \
  const ops_hooks ops_host_hooks_##sym
#define WGK_OP_TOOL_HOOKS(sym)                 \
  extern const ops_hooks ops_tool_hooks_##sym; \
  const ops_hooks ops_tool_hooks_##sym

#endif
