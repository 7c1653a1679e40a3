/*
 * Planning: a pure function of (manifest model, call description, device description) to the work a
 * call needs — validated ports, the scope, derives, the chosen variant (with the reason for every
 * rejected one), output shapes and dtypes, and per pass the rendered WGSL, its binding layout, the
 * uniform bytes and the folded dispatch size. No GPU is touched, so all of it is testable anywhere.
 *
 * Lifecycle:
 *   1. plan_planner_create(manifest, loader, device)  once per kernel and device: decides what the
 *      device allows of each variant, and keeps parsed expressions and templates so repeated plans
 *      parse nothing twice;
 *   2. plan_make(planner, call, &plan, err)     per distinct call signature (shapes, dtypes,
 *      presence, attributes, args, tunables); the runtime caches plans by plan_call_key();
 *   3. plan_free(plan); plan_planner_free(planner).
 * A planner is not thread-safe; plans are immutable once made.
 */
#ifndef WGK_PLAN_PLAN_H
#define WGK_PLAN_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "expr/expr.h"
#include "manifest/manifest.h"
#include "device/device_desc.h"
#include "template/template.h"
#include "util/dynbuf.h"
#include "util/error.h"

#define WGK_MAX_RANK WGK_MAX_DIMS /* the public API's bound on dims */

/* One tensor of the call as planning sees it: presence, logical dtype and shape, no data. */
typedef struct plan_tensor {
  bool present;                /* the caller gave this port (outputs: a caller-owned output) */
  const char *dtype;           /* logical dtype name ("float32", "int64" ...) */
  int rank;                    /* number of dims */
  int64_t shape[WGK_MAX_RANK]; /* dims */
  bool wanted;                 /* an output the caller asks wgk to make without giving it (docs/loader-semantics.md
                                * rule 35); dtype, when set, is the dtype asked for (binds its type variable) */
} plan_tensor;

typedef struct plan_call {
  const plan_tensor *ports;   /* one per manifest port, same order as manifest_model.ports */
  const expr_value *attrs;    /* dict: attributes the call gives (merged over the defaults); NULL = none */
  const expr_value *args;     /* dict: scalar args; NULL = none */
  const expr_value *tunables; /* dict: tunable overrides; NULL = manifest defaults */
} plan_call;

typedef struct plan_binding {
  uint32_t index;          /* @binding(index) in @group(0) */
  manifest_buffer buffer;  /* read-only-storage, storage or uniform */
  int port;                /* manifest port index bound here; -1 for the uniform and intermediates */
  int intermediate;        /* index into plan_result.intermediates bound here; -1 otherwise */
  const char *name;        /* WGSL variable name (borrowed from the manifest) */
  char wgsl_type[16];      /* element type of the array ("f32", "u32" ...); "" for the uniform */
  uint64_t length;         /* spec 2.1 fixed array length; 0 = runtime-sized */
  uint64_t uniform_offset; /* a uniform binding: where its struct starts in plan_pass.uniform */
  uint64_t uniform_bytes;  /* a uniform binding: the struct's size (a multiple of 16) */
} plan_binding;

typedef struct plan_pass {
  const manifest_pass *source; /* the manifest pass */
  char *id;                    /* spec 2.1 repeat groups: the expanded id ("g[1].main"); NULL = source->id */
  char *label;                 /* "<op id>/<variant>/<pass>" */
  char *wgsl;                  /* rendered WGSL, enable directives added */
  tmpl_linemap linemap;        /* rendered line -> template line (after the added directives) */
  int wgsl_line_offset;        /* lines prepended to the rendered text (enable directives) */
  plan_binding *bindings;      /* in binding-index order */
  size_t n_bindings;           /* number of bindings */
  uint8_t *uniform;            /* packed uniform struct bytes; NULL when the pass has none. Each uniform
                                  binding's struct at its own offset, a multiple of 256 (the largest
                                  minUniformBufferOffsetAlignment WebGPU allows) */
  size_t uniform_size;         /* bytes, a multiple of 16 */
  char *uniform_text;          /* "pairCount=96 numHeads=4 ..." for explain; with several uniform
                                  bindings "a: n=1 | b: m=2" */
  uint32_t workgroups[3];      /* dispatch size after folding */
  bool skip;                   /* an axis is 0: nothing to dispatch */
} plan_pass;

typedef struct plan_output {
  int port;                    /* manifest port index */
  const char *dtype;           /* logical dtype */
  int rank;                    /* inferred rank */
  int64_t shape[WGK_MAX_RANK]; /* inferred shape */
} plan_output;

/* A scratch buffer of the chosen variant (manifest `intermediates`), shape evaluated in the call scope. */
typedef struct plan_intermediate {
  const manifest_intermediate *source; /* the manifest intermediate */
  const char *dtype;                   /* logical dtype ("float32"), a type variable resolved */
  int rank;                            /* number of dims */
  int64_t shape[WGK_MAX_RANK];         /* dims */
  uint64_t bytes;                      /* buffer size: numel * element bytes, rounded up to 4, at least 4 */
  bool zero_init;                      /* clear to zero at the start of every call */
} plan_intermediate;

typedef struct plan_result {
  const manifest_variant *variant;  /* the chosen variant */
  char *rejections;                 /* one line per rejected variant: "id: reason"; "" when none */
  plan_output *outputs;             /* every output and in/out port */
  size_t n_outputs;                 /* number of outputs */
  plan_intermediate *intermediates; /* the variant's scratch buffers, manifest order */
  size_t n_intermediates;           /* number of intermediates */
  plan_pass *passes;                /* in submission order */
  size_t n_passes;                  /* number of passes */
  expr_value *scope;                /* the final call scope (attrs, shapes, derives ...) */
} plan_result;

typedef struct plan_planner plan_planner;

/* manifest, loader (for templates) and device must outlive the planner. */
wgk_status plan_planner_create(const manifest_model *m, const tmpl_loader *loader, const device_desc *device,
                               plan_planner **out /* OUT */, util_error *err);
void plan_planner_free(plan_planner *p);

/* Validates the call (docs/call-semantics.md step 1) and plans it. A rejected call: WGK_ERR_CALL naming the port, the
 * rule and the values; no variant: WGK_ERR_NO_VARIANT listing every variant with its reason. */
wgk_status plan_make(plan_planner *p, const plan_call *call, plan_result **out /* OUT */, util_error *err);
void plan_free(plan_result *plan);

/* A canonical text of everything in the call that can change the plan (presence, dtypes, shapes,
 * attributes, args, tunables): equal keys give equal plans on the same planner. */
bool plan_call_key(const manifest_model *m, const plan_call *call, util_dynbuf *out);

/* Logical dtype -> WGSL scalar of its storage ("float32" -> "f32", "int8" -> "i32" widened, "int64" -> NULL). */
const char *plan_wgsl_scalar(const char *logical_dtype);

#endif
