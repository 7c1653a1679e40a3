/* The tools' view of the op table (src/ops/registry.c): references and generators filled in. */
#define WGK_OPS_TOOLS 1
#include "registry.c"
