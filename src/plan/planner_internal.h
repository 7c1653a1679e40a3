/* Internals shared by the planner's files. */
#ifndef WGK_PLAN_PLANNER_INTERNAL_H
#define WGK_PLAN_PLANNER_INTERNAL_H

#include "plan/plan.h"

typedef struct expr_slot {
  const void *key;  /* the manifest expression, or a literal's JSON string (pointer identity) */
  wgk_expr *parsed; /* parsed once */
} expr_slot;

typedef struct tmpl_slot {
  char *shader;     /* template file name */
  wgk_tmpl *parsed; /* parsed once, includes expanded */
} tmpl_slot;

struct wgk_planner {
  const wgk_manifest *m;         /* the op contract */
  wgk_tmpl_loader loader;        /* reads template files */
  const wgk_device_desc *device; /* what the device has */
  wgk_value *device_value;       /* the `device` scope entry */
  expr_slot *exprs;              /* open-addressing table of parsed expressions */
  size_t expr_cap;               /* table size, a power of two */
  size_t expr_count;             /* slots in use */
  tmpl_slot *tmpls;              /* parsed templates */
  size_t n_tmpls;                /* number of templates */
};

/* Evaluates a manifest expression against scope; errors point into the manifest (file:line:col: path). */
wgk_status wgk_plan_eval(wgk_planner *p, const wgk_manifest_expr *e, const wgk_value *scope, wgk_value **out,
                         wgk_error *err);
/* The parsed form of a manifest expression (NULL with err set on a syntax error). */
const wgk_expr *wgk_plan_parsed(wgk_planner *p, const wgk_manifest_expr *e, wgk_error *err);
/* A manifest value (expression or JSON literal) as a value. */
wgk_status wgk_plan_value(wgk_planner *p, const wgk_manifest_value *v, const wgk_value *scope, wgk_value **out,
                          wgk_error *err);
const wgk_tmpl *wgk_plan_template(wgk_planner *p, const char *shader, wgk_error *err);

/* Call validation (docs/call-semantics.md step 1): presence, dtypes, type variables, ranks, attributes. Fills
 * type_dtypes[i] with the logical dtype bound to m->type_constraints[i] (NULL when unbound). */
wgk_status wgk_plan_validate(const wgk_manifest *m, const wgk_plan_call *call, const char **type_dtypes,
                             wgk_error *err);
/* The scope before derives: attrs, args, shapes, ranks, present, dtypes, logicalDtypes, tunables, device. */
wgk_status wgk_plan_scope(wgk_planner *p, const wgk_plan_call *call, const char **type_dtypes, wgk_value **out,
                          wgk_error *err);
/* A shape as the list value `shapes.<port>` holds; NULL when out of memory. */
wgk_value *wgk_plan_shape_value(int rank, const int64_t *shape);
/* Adds a value under scope[group][name] (group created when missing). Takes value. */
bool wgk_plan_scope_put(wgk_value *scope, const char *group, const char *name, wgk_value *value);
/* Per pass: bindings, rendered WGSL, uniform bytes, dispatch. */
wgk_status wgk_plan_pass_make(wgk_planner *p, const wgk_manifest_pass *mp, const wgk_value *scope, wgk_plan_pass *out,
                              wgk_error *err);
void wgk_plan_pass_free(wgk_plan_pass *pass);
/* Opaque int64 (an int64 port without storage projection, bound as vec2<u32>): every pass binding one must
 * declare it vec2<u32> and its WGSL may only copy and select whole elements, as the public loader enforces
 * (int64_scan.c). */
wgk_status wgk_plan_check_opaque_int64(wgk_planner *p, const wgk_plan_call *call, const wgk_plan *plan, wgk_error *err);
/* The scan itself over WGSL text with the opaque binding names: the offset of the first refused use, or
 * (size_t)-1 when the text is accepted; (size_t)-2 when out of memory. */
size_t wgk_plan_opaque_int64_scan(const char *wgsl, const char *const *names, size_t n_names);
/* The chosen variant's intermediates (after its derives) and the intermediate index of every pass binding. */
wgk_status wgk_plan_intermediates(wgk_planner *p, wgk_plan *plan, wgk_error *err);
void wgk_plan_bind_intermediates(wgk_plan *plan);

/* spec 2.1: a variant with repeat groups: its passes expanded per call (repeat.* in each pass scope). */
wgk_status wgk_plan_repeat_passes(wgk_planner *p, wgk_plan *plan, wgk_error *err);
/* spec 2.1: why the device does not meet r (appended to why; nothing when it does or r is NULL). */
void wgk_plan_requires_reason(const wgk_planner *p, const wgk_manifest_requires *r, wgk_dynbuf *why);
/* A spec 2.1 literal (number, bool, list/object whose strings are expressions) evaluated element by element. */
wgk_status wgk_plan_literal(wgk_planner *p, const json_t *lit, const wgk_manifest_pos *pos, const wgk_value *scope,
                            wgk_value **out, wgk_error *err);

#endif
