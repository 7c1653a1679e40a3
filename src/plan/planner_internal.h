/* Internals shared by the planner's files. */
#ifndef WGK_PLAN_PLANNER_INTERNAL_H
#define WGK_PLAN_PLANNER_INTERNAL_H

#include "plan/plan.h"

#define PLAN_MAX_TYPE_VARS 64 /* type variables of one manifest: a call's bound dtypes are kept on the stack */

typedef struct plan_tmpl_slot {
  char *shader;          /* template file name */
  tmpl_template *parsed; /* parsed once, includes expanded */
} plan_tmpl_slot;

struct plan_planner {
  const manifest_model *m;              /* the op contract */
  tmpl_loader loader;                   /* reads template files */
  const device_desc *device;            /* what the device has */
  expr_value *device_value;             /* the `device` scope entry */
  expr_cache *exprs;                    /* parsed expressions, by manifest expression or a literal's JSON string */
  plan_tmpl_slot *tmpls;                /* parsed templates */
  size_t n_tmpls;                       /* number of templates */
  char **device_why;                    /* per manifest variant: why the device cannot run it, NULL where it can */
  const manifest_attribute *dtype_code; /* an ai.onnx spec 2.1 op's required attribute `to`: its outputs' dtype as
                                         * an ONNX TensorProto code (as Cast has it); NULL when none */
};

/* A call the planner refuses (or a manifest it cannot use), positioned at the manifest entry it is about:
 * "manifest.json:line:column: path: message" with pos's line, column and JSON path. Returns status (or the one
 * already set in err). */
wgk_status plan_fail_at(util_error *err, wgk_status status, const manifest_model *m, const manifest_pos *pos,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Evaluates a manifest expression against scope; errors point into the manifest (file:line:col: path). */
wgk_status plan_eval(plan_planner *p, const manifest_expr *e, const expr_value *scope, expr_value **out,
                     util_error *err);
/* The parsed form of a manifest expression (NULL with err set on a syntax error). */
const expr_program *plan_parsed(plan_planner *p, const manifest_expr *e, util_error *err);
/* A manifest value (expression or JSON literal) as a value. */
wgk_status plan_value(plan_planner *p, const manifest_value *v, const expr_value *scope, expr_value **out,
                      util_error *err);
const tmpl_template *plan_template(plan_planner *p, const char *shader, util_error *err);

/* Call validation (docs/call-semantics.md step 1): presence, dtypes, type variables, ranks, attributes. Fills
 * type_dtypes[i] with the logical dtype bound to m->type_constraints[i] (NULL when unbound); m has at most
 * PLAN_MAX_TYPE_VARS type variables (plan_planner_create refuses more). */
wgk_status plan_validate(const manifest_model *m, const plan_call *call, const char **type_dtypes, util_error *err);
/* The scope before derives: attrs, args, shapes, ranks, present, dtypes, logicalDtypes, tunables, device. */
wgk_status plan_scope(plan_planner *p, const plan_call *call, const char **type_dtypes, expr_value **out,
                      util_error *err);
/* A shape as the list value `shapes.<port>` holds; NULL when out of memory. */
expr_value *plan_shape_value(int rank, const int64_t *shape);
/* Adds a value under scope[group][name] (group created when missing), or scope[name] when group is NULL. Takes
 * value. */
bool plan_scope_put(expr_value *scope, const char *group, const char *name, expr_value *value);
/* A value as a refusal shows it, cut to size: a string as its text, a float to 9 digits, else its JSON. */
void plan_value_text(const expr_value *v, char *buf, size_t size);
/* The WGSL scalar a type variable stands for: its ports' storage projection if any, else its logical dtype's. */
const char *plan_type_wgsl(const manifest_model *m, const char *type_var, const char *logical);
/* Per pass: bindings, rendered WGSL, uniform bytes, dispatch. */
wgk_status plan_pass_make(plan_planner *p, const manifest_pass *mp, const expr_value *scope, plan_pass *out,
                          util_error *err);
void plan_pass_free(plan_pass *pass);
/* Opaque int64 (an int64 port without storage projection, bound as vec2<u32>): every pass binding one must
 * declare it vec2<u32> and its WGSL may only copy and select whole elements, as the public loader enforces
 * (int64_scan.c). */
wgk_status plan_check_opaque_int64(plan_planner *p, const plan_call *call, const plan_result *plan, util_error *err);
/* The scan itself over WGSL text with the opaque binding names: the offset of the first refused use, or
 * (size_t)-1 when the text is accepted; (size_t)-2 when out of memory. */
size_t plan_opaque_int64_scan(const char *wgsl, const char *const *names, size_t n_names);
/* The chosen variant's intermediates (after its derives) and the intermediate index of every pass binding. */
wgk_status plan_intermediates(plan_planner *p, plan_result *plan, util_error *err);
void plan_bind_intermediates(plan_result *plan);

/* spec 2.1: a variant with repeat groups: its passes expanded per call (repeat.* in each pass scope). */
wgk_status plan_repeat_passes(plan_planner *p, plan_result *plan, util_error *err);
/* A spec 2.1 literal (number, bool, list/object whose strings are expressions) evaluated element by element. */
wgk_status plan_literal(plan_planner *p, const json_t *lit, const manifest_pos *pos, const expr_value *scope,
                        expr_value **out, util_error *err);

#endif
