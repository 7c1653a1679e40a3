/*
 * The table of ops wgk has C for, made from the folders of src/ops alone: cmake/ops_table.cmake writes one line
 * per src/ops/<op>/ that has a host_hook.c (WGK_OP_HOST) or a reference_hook.c (WGK_OP_TOOLS), and each of those
 * files declares its op's hooks itself (WGK_OP_HOST_HOOKS / WGK_OP_TOOL_HOOKS, ops/ops.h). Compiled twice: into
 * libwgk (the host hooks only, so the library links no reference code) and, through registry_tools.c with
 * WGK_OPS_TOOLS defined, into wgk_tools (the tools' hooks: references and generators).
 */
#include <string.h>

#include "ops/ops.h"

#ifndef WGK_OPS_TOOLS
#define WGK_OP_HOST(sym) extern const ops_hooks ops_host_hooks_##sym;
#define WGK_OP_TOOLS(sym)
#include "ops_table.inc"
#undef WGK_OP_HOST
#define WGK_OP_HOST(sym) &ops_host_hooks_##sym,
#else
#define WGK_OP_HOST(sym)
#define WGK_OP_TOOLS(sym) extern const ops_hooks ops_tool_hooks_##sym;
#include "ops_table.inc"
#undef WGK_OP_TOOLS
#define WGK_OP_TOOLS(sym) &ops_tool_hooks_##sym,
#endif

static const ops_hooks *const table[] = {
#include "ops_table.inc"
    NULL, /* keeps the array non-empty when no op has hooks */
};
#define N_OPS (sizeof table / sizeof table[0] - 1)

static const ops_hooks *find(const char *op_id) {
  for (size_t i = 0; op_id && i < N_OPS; i++)
    if (strcmp(table[i]->op_id, op_id) == 0) return table[i];
  return NULL;
}

#ifndef WGK_OPS_TOOLS
const ops_hooks *ops_find(const char *op_id) { return find(op_id); }
#else
size_t ops_tools_count(void) { return N_OPS; }
const ops_hooks *ops_tools_at(size_t i) { return i < N_OPS ? table[i] : NULL; }
const ops_hooks *ops_tools_find(const char *op_id) { return find(op_id); }

const ops_hooks *ops_tools_find_reference(const char *name) {
  for (size_t i = 0; name && i < N_OPS; i++)
    if (table[i]->reference && table[i]->reference_name && strcmp(table[i]->reference_name, name) == 0) return table[i];
  return NULL;
}

const ops_generator *ops_tools_find_generator(const char *name) {
  for (size_t i = 0; name && i < N_OPS; i++)
    for (size_t j = 0; j < table[i]->n_generators; j++)
      if (strcmp(table[i]->generators[j].name, name) == 0) return &table[i]->generators[j];
  return NULL;
}
#endif
