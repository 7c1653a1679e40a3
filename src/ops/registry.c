/*
 * The table of ops wgk has C for: one row per op, its hooks. Compiled twice: into libwgk (host checks only:
 * the tools' hooks are NULL there, so the library links no reference code) and, through registry_tools.c with
 * WGK_OPS_TOOLS defined, into wgk_tools (everything).
 */
#include <string.h>

#include "ops/ops.h"

#ifdef WGK_OPS_TOOLS
#define TOOL(x) x
#define TOOL_N(x) x
#else
#define TOOL(x) NULL
#define TOOL_N(x) 0
#endif

static const op_hooks table[] = {
    {.op_id = "ai.onnx.RotaryEmbedding",
     .host_check = op_rotary_host_check,
     .splits = op_rotary_splits,
     .n_splits = 3,
     .reference_name = "rotary",
     .reference = TOOL(op_rotary_reference),
     .generators = TOOL(op_rotary_generators),
     .n_generators = TOOL_N(2)},
    {.op_id = "com.microsoft.SparseAttention",
     .host_check = op_sparse_host_check,
     .reference_name = "sparse_attention",
     .reference = TOOL(op_sparse_reference),
     .generators = TOOL(op_sparse_generators),
     .n_generators = TOOL_N(2)},
};
#define N_OPS (sizeof table / sizeof table[0])

static const op_hooks *find(const char *op_id) {
  for (size_t i = 0; op_id && i < N_OPS; i++)
    if (strcmp(table[i].op_id, op_id) == 0) return &table[i];
  return NULL;
}

#ifndef WGK_OPS_TOOLS
const op_hooks *ops_find(const char *op_id) { return find(op_id); }
#else
size_t ops_tools_count(void) { return N_OPS; }
const op_hooks *ops_tools_at(size_t i) { return i < N_OPS ? &table[i] : NULL; }
const op_hooks *ops_tools_find(const char *op_id) { return find(op_id); }

const op_hooks *ops_tools_find_reference(const char *name) {
  for (size_t i = 0; name && i < N_OPS; i++)
    if (table[i].reference && strcmp(table[i].reference_name, name) == 0) return &table[i];
  return NULL;
}

const op_generator *ops_tools_find_generator(const char *name) {
  for (size_t i = 0; name && i < N_OPS; i++)
    for (size_t j = 0; j < table[i].n_generators; j++)
      if (strcmp(table[i].generators[j].name, name) == 0) return &table[i].generators[j];
  return NULL;
}
#endif
