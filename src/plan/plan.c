/* plan_make: validate, scope, outputs, derives, variant choice, passes (docs/call-semantics.md). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner_internal.h"
#include "util/dtype.h"

static bool shape_from_value(const expr_value *v, int *rank, int64_t *shape) {
  if (expr_value_kind_of(v) != WGK_VALUE_LIST || expr_value_len(v) > WGK_MAX_RANK) return false;
  *rank = (int)expr_value_len(v);
  for (int d = 0; d < *rank; d++) {
    const expr_value *x = expr_value_list_at(v, (size_t)d);
    if (expr_value_kind_of(x) != WGK_VALUE_INT || expr_value_as_int(x) < 0) return false;
    shape[d] = expr_value_as_int(x);
  }
  return true;
}

static void shape_text(int rank, const int64_t *shape, char *buf, size_t size) {
  size_t used = (size_t)snprintf(buf, size, "[");
  for (int d = 0; d < rank && used < size; d++)
    used += (size_t)snprintf(buf + used, size - used, "%s%" PRId64, d ? ", " : "", shape[d]);
  if (used < size) snprintf(buf + used, size - used, "]");
}

static const char *type_dtype(const manifest_model *m, const char **type_dtypes, const char *type_var) {
  for (size_t i = 0; type_var && i < m->n_type_constraints; i++)
    if (strcmp(m->type_constraints[i].name, type_var) == 0) return type_dtypes[i];
  return NULL;
}

/* The ONNX TensorProto dtype codes the loader maps (its `ci` table). */
static const char *onnx_dtype(int64_t code) {
  switch (code) {
  case 1:
    return "float32";
  case 2:
    return "uint8";
  case 3:
    return "int8";
  case 5:
    return "int16";
  case 6:
    return "int32";
  case 7:
    return "int64";
  case 9:
    return "bool";
  case 10:
    return "float16";
  case 12:
    return "uint32";
  default:
    return NULL;
  }
}

static bool dtype_allowed(const manifest_port *port, const char *dtype) {
  for (size_t k = 0; k < port->n_dtypes; k++)
    if (strcmp(port->dtypes[k], dtype) == 0) return true;
  return false;
}

/* An output's dtype as the loader resolves it (resolveOutputLogicalDtype, docs/loader-semantics.md rule 34): a
 * concrete dtype; its type variable as the call's tensors bound it; for an ai.onnx op with a required attribute
 * `to`, the ONNX dtype code it gives; the constraint's one dtype; the first input whose dtype the constraint
 * allows. */
static wgk_status output_dtype(plan_planner *p, const plan_call *call, const manifest_port *port,
                               const char **type_dtypes, const char **out, util_error *err) {
  const manifest_model *m = p->m;
  *out = type_dtype(m, type_dtypes, port->type_var);
  if (*out) return WGK_OK;
  if (!port->type_var && port->n_dtypes == 1) {
    *out = port->dtypes[0]; /* spec 2.1 concrete dtype */
    return WGK_OK;
  }
  const manifest_attribute *to = p->dtype_code;
  if (port->type_var && to) {
    const expr_value *v = call->attrs ? expr_value_dict_get(call->attrs, "to") : NULL;
    const char *d = v && expr_value_kind_of(v) == WGK_VALUE_INT ? onnx_dtype(expr_value_as_int(v)) : NULL;
    if (!d) {
      char shown[96] = "(none)";
      if (v) plan_value_text(v, shown, sizeof shown);
      return plan_fail_at(err, WGK_ERR_CALL, m, &to->pos,
                          "port %s: required attribute to=%s is not a supported ONNX TensorProto dtype code (1 "
                          "float32, 2 uint8, 3 int8, 5 int16, 6 int32, 7 int64, 9 bool, 10 float16, 12 uint32)",
                          port->name, shown);
    }
    if (!dtype_allowed(port, d)) {
      char list[256] = "";
      size_t used = 0;
      for (size_t k = 0; k < port->n_dtypes && used < sizeof list; k++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "", port->dtypes[k]);
      return plan_fail_at(err, WGK_ERR_CALL, m, &to->pos,
                          "port %s: required attribute to resolves to %s, not allowed by output type constraint "
                          "%s = [%s]",
                          port->name, d, port->type_var, list);
    }
    *out = d;
    return WGK_OK;
  }
  if (port->n_dtypes == 1) {
    *out = port->dtypes[0];
    return WGK_OK;
  }
  for (size_t i = 0; i < m->n_ports; i++) {
    const plan_tensor *t = &call->ports[i];
    if (m->ports[i].dir != WGK_PORT_OUTPUT && t->present && t->dtype && dtype_allowed(port, t->dtype)) {
      *out = t->dtype;
      return WGK_OK;
    }
  }
  return plan_fail_at(err, WGK_ERR_CALL, m, &port->pos,
                      "port %s: dtype %s is a type variable no input of the call binds: give an input of that "
                      "type, or ask for the output with a dtype (--out-shape %s=DIMS:dtype, wgk_call_want_output)",
                      port->name, port->type_var ? port->type_var : "?", port->name);
}

/* An in/out port's output shape expression, which cannot be honoured otherwise: the tensor updated in place is the
 * input, so the expression must give the input's shape (docs/loader-semantics.md rule 11). It was ignored: a package
 * whose in/out output declared another shape ran, writing the input's. */
static wgk_status inout_shape_agrees(plan_planner *p, const manifest_port *port, const expr_value *shape_scope,
                                     const plan_output *o, util_error *err) {
  const manifest_model *m = p->m;
  expr_value *v = NULL;
  wgk_status st = plan_eval(p, &port->shape, shape_scope, &v, err);
  if (st != WGK_OK) return st;
  int rank = 0;
  int64_t shape[WGK_MAX_RANK];
  bool ok = shape_from_value(v, &rank, shape);
  expr_value_release(v);
  if (!ok)
    return plan_fail_at(err, WGK_ERR_CALL, m, &port->shape.pos,
                        "port %s: shape expression '%s' did not give a list of non-negative integers", port->name,
                        port->shape.text);
  if (rank == o->rank && memcmp(shape, o->shape, sizeof(int64_t) * (size_t)rank) == 0) return WGK_OK;
  char want[128], got[128];
  shape_text(rank, shape, want, sizeof want);
  shape_text(o->rank, o->shape, got, sizeof got);
  return plan_fail_at(err, WGK_ERR_CALL, m, &port->shape.pos,
                      "in/out port %s: its output shape expression '%s' gives %s, but the tensor is updated in "
                      "place, so its output shape is its input's, %s",
                      port->name, port->shape.text, want, got);
}

/* "rank": "ranks.X" must agree with the rank the shape expression gave. */
static wgk_status check_rank(plan_planner *p, const manifest_port *port, const expr_value *shape_scope, int rank,
                             util_error *err) {
  expr_value *r = NULL;
  wgk_status st = plan_eval(p, &port->rank_expr, shape_scope, &r, err);
  if (st != WGK_OK) return st;
  bool same = expr_value_kind_of(r) == WGK_VALUE_INT && expr_value_as_int(r) == rank;
  char shown[96];
  plan_value_text(r, shown, sizeof shown);
  expr_value_release(r);
  if (same) return WGK_OK;
  return plan_fail_at(err, WGK_ERR_CALL, p->m, &port->rank_expr.pos,
                      "port %s: rank expression '%s' gives %s, but the shape expression gives rank %d", port->name,
                      port->rank_expr.text, shown, rank);
}

/* Infers one output's shape and dtype (in/out ports and outputs without a shape expression: as given), checks a
 * caller-given output against it, and adds shapes.<port> / ranks.<port> for the derives that follow. */
static wgk_status infer_output(plan_planner *p, size_t i, const plan_call *call, expr_value *scope,
                               const expr_value *shape_scope, const char **type_dtypes, plan_output *o,
                               util_error *err) {
  const manifest_model *m = p->m;
  const manifest_port *port = &m->ports[i];
  const plan_tensor *given = &call->ports[i];
  o->port = (int)i;
  if (port->dir == WGK_PORT_INOUT || !port->shape.text) {
    if (!given->present)
      return plan_fail_at(err, WGK_ERR_CALL, m, &port->pos,
                          "port %s: output has no shape expression, so the caller must give it", port->name);
    o->rank = given->rank;
    memcpy(o->shape, given->shape, sizeof o->shape);
    o->dtype = type_dtype(m, type_dtypes, port->type_var);
    if (!o->dtype && !port->type_var && port->n_dtypes == 1) o->dtype = port->dtypes[0];
    if (!o->dtype) o->dtype = given->dtype;
    if (port->dir == WGK_PORT_INOUT && port->shape.text) return inout_shape_agrees(p, port, shape_scope, o, err);
    return WGK_OK;
  }
  wgk_status st0 = output_dtype(p, call, port, type_dtypes, &o->dtype, err);
  if (st0 != WGK_OK) return st0;
  expr_value *v = NULL;
  wgk_status st = plan_eval(p, &port->shape, shape_scope, &v, err);
  if (st != WGK_OK) return st;
  bool ok = shape_from_value(v, &o->rank, o->shape);
  expr_value_release(v);
  if (!ok)
    return plan_fail_at(err, WGK_ERR_CALL, m, &port->shape.pos,
                        "port %s: shape expression '%s' did not give a list of non-negative integers", port->name,
                        port->shape.text);
  if (port->rank_expr.text && (st = check_rank(p, port, shape_scope, o->rank, err)) != WGK_OK) return st;
  if (given->present && (given->rank != o->rank || memcmp(given->shape, o->shape, sizeof(int64_t) * (size_t)o->rank))) {
    char want[128], got[128];
    shape_text(o->rank, o->shape, want, sizeof want);
    shape_text(given->rank, given->shape, got, sizeof got);
    return plan_fail_at(err, WGK_ERR_CALL, m, &port->pos,
                        "port %s: the given output has shape %s, the contract gives %s", port->name, got, want);
  }
  if (!given->present) {
    if (!plan_scope_put(scope, "shapes", port->name, plan_shape_value(o->rank, o->shape)) ||
        !plan_scope_put(scope, "ranks", port->name, expr_value_int(o->rank)))
      return util_error_oom(err, NULL, "planning a call");
  }
  return WGK_OK;
}

/* Spec 2.1: an output's shape expression sees the manifest derives by bare name, each evaluated in order in the
 * scope so far, one that fails left unbound, as the public loader infers outputs before it evaluates every derive
 * (which then also see the outputs' shapes). A copy of the scope, so the derives proper are evaluated after. */
static wgk_status shape_scope_of(plan_planner *p, const expr_value *scope, expr_value **out, util_error *err) {
  const manifest_model *m = p->m;
  *out = expr_value_dict_copy(scope);
  if (!*out) return util_error_oom(err, NULL, "planning a call");
  for (size_t i = 0; i < m->n_derives; i++) {
    const manifest_derive *d = &m->derives[i];
    expr_value *v = NULL;
    util_error local;
    util_error_clear(&local);
    wgk_status st = d->expr.text ? plan_eval(p, &d->expr, *out, &v, &local)
                                 : plan_literal(p, d->literal, &d->pos, *out, &v, &local);
    if (st == WGK_ERR_OUT_OF_MEMORY || st == WGK_ERR_LIMIT) { /* never a derive that is merely unbound */
      if (err) *err = local;
      return st;
    }
    if (st == WGK_OK && !expr_value_dict_set(*out, d->name, v)) return util_error_oom(err, NULL, "planning a call");
  }
  return WGK_OK;
}

/* What the loader's run sees of the outputs it made: each present, its dtype, and the type variable it binds, added
 * to the scope at once. */
static wgk_status add_outputs(plan_planner *p, const plan_call *call, const plan_result *plan, const char **type_dtypes,
                              expr_value *scope, util_error *err) {
  const manifest_model *m = p->m;
  size_t cap = 1, n = 0;
  for (size_t o = 0; o < plan->n_outputs; o++) cap += 4 + m->ports[plan->outputs[o].port].n_bind_keys;
  expr_entry *e = calloc(cap, sizeof *e);
  if (!e) return util_error_oom(err, NULL, "planning a call");
  for (size_t o = 0; o < plan->n_outputs; o++) {
    const manifest_port *port = &m->ports[plan->outputs[o].port];
    const char *d = plan->outputs[o].dtype;
    e[n++] = (expr_entry){.group = "present", .name = port->name, .kind = EXPR_ENTRY_BOOL, .i = 1};
    for (size_t k = 0; k < port->n_bind_keys; k++)
      e[n++] = (expr_entry){.group = "present", .name = port->bind_keys[k], .kind = EXPR_ENTRY_BOOL, .i = 1};
    if (d && !call->ports[plan->outputs[o].port].present)
      e[n++] = (expr_entry){.group = "tensorDtypes",
                            .name = port->name,
                            .kind = EXPR_ENTRY_STRING,
                            .s = port->storage_dtype && strcmp(d, "int64") == 0 ? port->storage_dtype : d};
    for (size_t t = 0; d && port->type_var && t < m->n_type_constraints; t++) {
      if (type_dtypes[t] || strcmp(m->type_constraints[t].name, port->type_var) != 0) continue;
      type_dtypes[t] = d;
      e[n++] = (expr_entry){.group = "dtypes",
                            .name = port->type_var,
                            .kind = EXPR_ENTRY_STRING,
                            .s = plan_type_wgsl(m, port->type_var, d)};
      e[n++] = (expr_entry){.group = "logicalDtypes", .name = port->type_var, .kind = EXPR_ENTRY_STRING, .s = d};
    }
  }
  bool ok = expr_value_dict_add(scope, e, n, err);
  free(e);
  return ok ? WGK_OK : util_error_oom(err, NULL, "planning a call");
}

static wgk_status infer_outputs(plan_planner *p, const plan_call *call, expr_value *scope, const char **type_dtypes,
                                plan_result *plan, util_error *err) {
  const manifest_model *m = p->m;
  size_t n = 0;
  for (size_t i = 0; i < m->n_ports; i++) n += m->ports[i].dir != WGK_PORT_INPUT;
  plan->outputs = calloc(n ? n : 1, sizeof *plan->outputs);
  if (!plan->outputs) return util_error_oom(err, NULL, "planning a call");
  expr_value *shape_scope = NULL;
  wgk_status st = m->format == WGK_MANIFEST_SPEC21 ? shape_scope_of(p, scope, &shape_scope, err) : WGK_OK;
  for (size_t i = 0; st == WGK_OK && i < m->n_ports; i++) {
    const manifest_port *port = &m->ports[i];
    if (port->dir == WGK_PORT_INPUT) continue;
    /* An optional output is made only when the call asks for it (docs/loader-semantics.md rule 35). */
    if (port->dir == WGK_PORT_OUTPUT && port->optional && !call->ports[i].present && !call->ports[i].wanted) continue;
    st = infer_output(p, i, call, scope, shape_scope ? shape_scope : scope, type_dtypes,
                      &plan->outputs[plan->n_outputs], err);
    if (st == WGK_OK) plan->n_outputs++;
  }
  expr_value_release(shape_scope);
  return st == WGK_OK ? add_outputs(p, call, plan, type_dtypes, scope, err) : st;
}

/* Derives in order; one that fails is bound to undefined and its message kept for the explanation (a rank-4
 * derive may fail on a rank-3 call, and the variant that needs it is rejected with that reason). A limit, a syntax
 * error or running out of memory is never a reason: it fails the call, naming the derive (the error's path). */
static wgk_status eval_derives(plan_planner *p, expr_value *scope, char **failures, util_error *err) {
  const manifest_model *m = p->m;
  for (size_t i = 0; i < m->n_derives; i++) {
    const manifest_derive *d = &m->derives[i];
    expr_value *v = NULL;
    util_error local;
    util_error_clear(&local);
    wgk_status st = d->expr.text ? plan_eval(p, &d->expr, scope, &v, &local)
                                 : plan_literal(p, d->literal, &d->pos, scope, &v, &local);
    if (st != WGK_OK) {
      /* spec 2.1: a manifest derive that throws fails the whole call (docs/loader-semantics.md rule 25) */
      if (local.status == WGK_ERR_PARSE || local.status == WGK_ERR_OUT_OF_MEMORY || local.status == WGK_ERR_LIMIT ||
          m->format == WGK_MANIFEST_SPEC21) {
        if (err) *err = local;
        return local.status;
      }
      /* The reason quotes the derive's expression, so it names what the failing value came from (a tunable, an
       * attribute ...), not only the rule it broke. */
      char text[WGK_ERROR_MESSAGE_MAX + 600], reason[WGK_ERROR_MESSAGE_MAX + 900];
      util_error_format(&local, text, sizeof text);
      snprintf(reason, sizeof reason, "%s (in %.200s)", text, d->expr.text ? d->expr.text : "?");
      if (!(failures[i] = strdup(reason))) return util_error_oom(err, NULL, "planning a call");
      v = expr_value_undefined();
    }
    bool ok = plan_scope_put(scope, "derive", d->name, expr_value_ref(v)); /* derive.NAME and NAME */
    if (!ok) expr_value_release(v);
    if (!ok || !plan_scope_put(scope, NULL, d->name, v)) return util_error_oom(err, NULL, "planning a call");
  }
  return WGK_OK;
}

static const manifest_derive *find_derive(const manifest_model *m, const char *name) {
  for (size_t i = 0; i < m->n_derives; i++)
    if (strcmp(m->derives[i].name, name) == 0) return &m->derives[i];
  return NULL;
}

/* When an explanation ends in "NAME is false" and NAME is a derive, explains NAME's expression too, so a reason
 * goes down to the comparison that failed ("sparseContract is false: qkvContract is false: numHeads % kvHeads == 0
 * is false (numHeads % kvHeads = 1, 0)") instead of stopping at a name; at most 8 derives deep. */
static void explain_derives(plan_planner *p, const expr_value *scope, util_dynbuf *detail) {
  static const char suffix[] = " is false";
  const size_t ns = sizeof suffix - 1;
  for (int depth = 0; depth < 8 && detail->len && !detail->failed; depth++) {
    const char *s = util_dynbuf_str(detail), *last = s;
    for (const char *q = strstr(s, ": "); q; q = strstr(q + 2, ": ")) last = q + 2;
    size_t n = strlen(last);
    if (n <= ns || n - ns >= 128 || strcmp(last + n - ns, suffix) != 0) return;
    char name[128];
    memcpy(name, last, n - ns);
    name[n - ns] = '\0';
    for (const char *c = name; *c; c++)
      if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_')) return;
    const manifest_derive *d = find_derive(p->m, name);
    util_error local;
    util_error_clear(&local);
    const expr_program *e = d && d->expr.text ? plan_parsed(p, &d->expr, &local) : NULL;
    if (!e) {
      if (local.status == WGK_ERR_OUT_OF_MEMORY) detail->failed = true; /* the caller reports it */
      return;
    }
    util_dynbuf more;
    util_dynbuf_init(&more, 4096);
    expr_explain_false(e, scope, &more);
    if (more.failed && !more.over) {
      detail->failed = true;
      util_dynbuf_free(&more);
      return;
    }
    bool grew = more.len && !(strncmp(util_dynbuf_str(&more), name, n - ns) == 0 &&
                              strcmp(util_dynbuf_str(&more) + n - ns, suffix) == 0);
    if (grew) util_dynbuf_printf(detail, ": %s", util_dynbuf_str(&more));
    util_dynbuf_free(&more);
    if (!grew) return;
  }
}

/* Why a `when` clause is not exactly true; "" when it is. */
static wgk_status check_clause(plan_planner *p, const manifest_expr *clause, const expr_value *scope,
                               char *const *failures, util_dynbuf *why, util_error *err) {
  expr_value *v = NULL;
  util_error local;
  util_error_clear(&local);
  if (plan_eval(p, clause, scope, &v, &local) != WGK_OK) {
    if (local.status == WGK_ERR_PARSE || local.status == WGK_ERR_LIMIT || local.status == WGK_ERR_OUT_OF_MEMORY) {
      if (err) *err = local; /* a limit is never a reason to try the next variant */
      return local.status;
    }
    util_dynbuf_printf(why, "%s failed: %s", clause->text, local.message);
    return WGK_OK;
  }
  bool pass = expr_value_kind_of(v) == WGK_VALUE_BOOL && expr_value_as_bool(v);
  if (!pass) {
    const manifest_derive *d = find_derive(p->m, clause->text);
    const char *failed = d ? failures[d - p->m->derives] : NULL;
    if (failed) {
      util_dynbuf_printf(why, "%s failed: %s", d->name, failed);
    } else {
      bool is_bool = expr_value_kind_of(v) == WGK_VALUE_BOOL;
      util_dynbuf detail;
      util_dynbuf_init(&detail, 4096);
      const expr_program *e = plan_parsed(p, d ? &d->expr : clause, err);
      if (!e) {
        util_dynbuf_free(&detail);
        expr_value_release(v);
        return err ? err->status : WGK_ERR_OUT_OF_MEMORY;
      }
      expr_explain_false(e, scope, &detail);
      explain_derives(p, scope, &detail);
      if (detail.failed && !detail.over) { /* a reason lost for memory is not a reason */
        util_dynbuf_free(&detail);
        expr_value_release(v);
        return util_error_oom(err, NULL, "planning a call");
      }
      /* A clause that is one comparison explains itself: say it once, with its values. */
      size_t n = strlen(clause->text);
      const char *text = util_dynbuf_str(&detail);
      if (is_bool && strncmp(text, clause->text, n) == 0 && strncmp(text + n, " is false", 9) == 0) {
        util_dynbuf_append_str(why, text);
      } else {
        util_dynbuf_printf(why, "%s is ", clause->text);
        if (is_bool)
          util_dynbuf_append_str(why, "false");
        else {
          util_dynbuf_printf(why, "%s ", expr_value_kind_name(expr_value_kind_of(v)));
          expr_value_print(v, why);
          util_dynbuf_append_str(why, ", not true");
        }
        if (detail.len) util_dynbuf_printf(why, ": %s", text);
      }
      util_dynbuf_free(&detail);
    }
  }
  expr_value_release(v);
  return WGK_OK;
}

/* Why variant v does not take the call: the device's reason (decided when the planner was made), else the first
 * `when` clause that is not true; nothing when it takes it. */
static wgk_status variant_reason(plan_planner *p, const manifest_variant *v, const expr_value *scope,
                                 char *const *failures, util_dynbuf *why, util_error *err) {
  const char *device_why = p->device_why[v - p->m->variants];
  if (device_why) {
    util_dynbuf_append_str(why, device_why);
    return WGK_OK;
  }
  for (size_t c = 0; c < v->n_when && why->len == 0; c++) {
    wgk_status st = check_clause(p, &v->when[c], scope, failures, why, err);
    if (st != WGK_OK) return st;
  }
  return WGK_OK;
}

enum { CHECK_UNKNOWN = 0, CHECK_OK = 1, CHECK_DEMOTED = 2, CHECK_REJECTED = 3 };

typedef struct check_memo {
  int *state; /* per manifest variant: CHECK_* */
  const manifest_model *m;
} check_memo;

/* The loader's checkVariant: requires, buffer budget, when; then (spec 2.1) supersededBy and demoteWhen.
 * *state is CHECK_OK, CHECK_DEMOTED (why: the clause) or CHECK_REJECTED (why: the reason). */
static wgk_status check_variant(plan_planner *p, check_memo *memo, const manifest_variant *v, const expr_value *scope,
                                char *const *failures, util_dynbuf *why, int *state, util_error *err) {
  size_t idx = (size_t)(v - memo->m->variants);
  wgk_status st = variant_reason(p, v, scope, failures, why, err);
  if (st != WGK_OK) return st;
  if (why->failed && !why->over) return util_error_oom(err, NULL, "planning a call");
  if (why->len) {
    *state = memo->state[idx] = CHECK_REJECTED;
    return WGK_OK;
  }
  for (size_t k = 0; k < v->n_superseded_by; k++) {
    size_t j = v->superseded_by_index[k];
    const manifest_variant *o = &memo->m->variants[j];
    if (memo->state[j] == CHECK_UNKNOWN) {
      util_dynbuf other;
      util_dynbuf_init(&other, 1 << 16);
      int s2 = 0;
      st = check_variant(p, memo, o, scope, failures, &other, &s2, err);
      util_dynbuf_free(&other);
      if (st != WGK_OK) return st;
    }
    if (memo->state[j] == CHECK_OK) {
      util_dynbuf_printf(why, "superseded by `%s`, which is eligible here and takes precedence", o->id);
      *state = memo->state[idx] = CHECK_REJECTED;
      return WGK_OK;
    }
  }
  for (size_t c = 0; c < v->n_demote_when; c++) {
    expr_value *x = NULL;
    util_error local;
    util_error_clear(&local);
    if (plan_eval(p, &v->demote_when[c], scope, &x, &local) != WGK_OK) {
      if (local.status == WGK_ERR_PARSE || local.status == WGK_ERR_OUT_OF_MEMORY) {
        *err = local;
        return local.status;
      }
      util_dynbuf_printf(why, "demoteWhen eval error in `%s`: %s", v->demote_when[c].text, local.message);
      *state = memo->state[idx] = CHECK_REJECTED;
      return WGK_OK;
    }
    bool hit = expr_value_kind_of(x) == WGK_VALUE_BOOL && expr_value_as_bool(x);
    expr_value_release(x);
    if (hit) {
      util_dynbuf_printf(why, "%sdemoteWhen `%s` is true", why->len ? "; " : "", v->demote_when[c].text);
      memo->state[idx] = CHECK_DEMOTED;
    }
    if (why->failed && !why->over) return util_error_oom(err, NULL, "planning a call");
  }
  *state = memo->state[idx] = memo->state[idx] == CHECK_DEMOTED ? CHECK_DEMOTED : CHECK_OK;
  return WGK_OK;
}

/* A call with a float16 type on a device without shader-f16: when no variant accepts it, that is the reason. */
static bool needs_missing_f16(const plan_planner *p, const expr_value *scope) {
  if (device_has(p->device, WGK_FEATURE_SHADER_F16)) return false;
  const expr_value *types = expr_value_dict_get(scope, "logicalDtypes");
  for (size_t i = 0; types && i < expr_value_len(types); i++) {
    const char *t = expr_value_str(expr_value_dict_value_at(types, i));
    if (t && strcmp(t, "float16") == 0) return true;
  }
  return false;
}

/* The innermost reason of a rejection: a chain "a is false: b is false: x == 3 is false (x = 2, 3)" ends in what
 * was wrong; variants rejected for the same innermost reason share one line of the error. */
static const char *innermost(const char *reason, const char *end) {
  static const char sep[] = " is false: ";
  const size_t n = sizeof sep - 1;
  for (const char *q = reason; q + n <= end; q++)
    if (memcmp(q, sep, n) == 0) reason = q + n;
  return reason;
}

/* The error's text from explain's rejection lines ("id: reason\n" per variant): every distinct innermost reason
 * once, after the variants it rejects, so a reason all variants share is said once, not once per variant:
 *   no variant of OP accepts the call (all 12 variants): numHeads % kvHeads == 0 is false (...)
 *   no variant of OP accepts the call:
 *     rank3_cache2_pos, rank3_cache3: ranks.x == 3 is false (ranks.x = 2, 3)
 *     rank4_cache2_pos, rank4_cache3: ranks.x == 4 is false (ranks.x = 2, 4) */
static void group_rejections(const manifest_model *m, const char *rejected, size_t n_variants, util_dynbuf *out) {
  typedef struct {
    const char *reason;
    size_t len;
    util_dynbuf ids;
    size_t n;
  } group;
  size_t cap = n_variants ? n_variants : 1, n_groups = 0;
  group *g = calloc(cap, sizeof *g);
  for (const char *line = rejected; g && *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    const char *sep = strstr(line, ": ");
    if (!sep || sep > line + len) sep = line + len;
    const char *reason = sep < line + len ? innermost(sep + 2, line + len) : sep;
    size_t rlen = (size_t)(line + len - reason);
    size_t k = 0;
    while (k < n_groups && !(g[k].len == rlen && memcmp(g[k].reason, reason, rlen) == 0)) k++;
    if (k == n_groups && n_groups < cap) {
      g[k] = (group){.reason = reason, .len = rlen};
      util_dynbuf_init(&g[k].ids, 1 << 14);
      n_groups++;
    }
    if (k < n_groups) {
      util_dynbuf_printf(&g[k].ids, "%s%.*s", g[k].n ? ", " : "", (int)(sep - line), line);
      g[k].n++;
    }
    line += len + (nl ? 1 : 0);
  }
  if (g && n_groups == 1 && g[0].n > 1)
    util_dynbuf_printf(out, "no variant of %s accepts the call (all %zu variants): %.*s", m->op_id, g[0].n,
                       (int)g[0].len, g[0].reason);
  else {
    util_dynbuf_printf(out, "no variant of %s accepts the call:", m->op_id);
    for (size_t k = 0; g && k < n_groups; k++)
      util_dynbuf_printf(out, "\n  %s: %.*s", util_dynbuf_str(&g[k].ids), (int)g[k].len, g[k].reason);
    if (!g) util_dynbuf_printf(out, "\n%s", rejected); /* out of memory: the lines as they are */
  }
  for (size_t k = 0; g && k < n_groups; k++) util_dynbuf_free(&g[k].ids);
  free(g);
}

/* The variants, higher priority first, in manifest order among equals; NULL without memory. */
static const manifest_variant **by_priority(const manifest_model *m) {
  size_t n = m->n_variants;
  const manifest_variant **order = calloc(n ? n : 1, sizeof *order);
  if (!order) return NULL;
  for (size_t i = 0; i < n; i++) order[i] = &m->variants[i];
  for (size_t i = 1; i < n; i++) /* stable insertion sort */
    for (size_t j = i; j > 0 && order[j]->priority > order[j - 1]->priority; j--) {
      const manifest_variant *t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  return order;
}

/* No variant accepted the call: the rejections grouped, after the missing shader-f16 feature when float16 needed
   it (a caller's device created without it named as such). */
static wgk_status no_variant(plan_planner *p, const expr_value *scope, const char *rejected, util_error *err) {
  const manifest_model *m = p->m;
  const device_desc *d = p->device;
  util_dynbuf grouped;
  util_dynbuf_init(&grouped, 1 << 16);
  group_rejections(m, rejected, m->n_variants, &grouped);
  /* A float16 call on a device without shader-f16: that is the cause, said before the rejections. */
  char cause[768] = "";
  bool f16_left_out = d->callerDevice && (d->adapterFeatures >> WGK_FEATURE_SHADER_F16) & 1u;
  if (needs_missing_f16(p, scope) && f16_left_out)
    snprintf(cause, sizeof cause,
             "float16 needs the shader-f16 feature: the adapter %s [%s, %s] has it, but your WGPUDevice "
             "(wgk_context_options.wgpu_device) was created without it: add WGPUFeatureName_ShaderF16 to its "
             "requiredFeatures (include/wgk.h, \"Bring your own device\")\n",
             d->device[0] ? d->device : "of this device", d->vendor, d->backend);
  else if (needs_missing_f16(p, scope))
    snprintf(cause, sizeof cause, "float16 needs the shader-f16 feature, which %s [%s, %s] does not have\n",
             d->device[0] ? d->device : "this device", d->vendor, d->backend);
  wgk_status st = util_error_in(err, cause[0] ? WGK_ERR_UNSUPPORTED : WGK_ERR_NO_VARIANT, m->source, NULL, "%s%s",
                                cause, util_dynbuf_str(&grouped));
  util_dynbuf_free(&grouped);
  return st;
}

static wgk_status select_variant(plan_planner *p, const expr_value *scope, char *const *failures, plan_result *plan,
                                 util_error *err) {
  const manifest_model *m = p->m;
  size_t n = m->n_variants;
  const manifest_variant **order = by_priority(m);
  if (!order) return util_error_oom(err, NULL, "planning a call");
  util_dynbuf rejected, why;
  util_dynbuf_init(&rejected, 1 << 20);
  util_dynbuf_init(&why, 1 << 16);
  wgk_status st = WGK_OK;
  check_memo memo = {calloc(n ? n : 1, sizeof *memo.state), m};
  const manifest_variant *demoted = NULL;
  if (!memo.state) st = util_error_oom(err, NULL, "planning a call");
  for (size_t i = 0; i < n && !plan->variant && st == WGK_OK; i++) {
    util_dynbuf_reset(&why);
    int state = 0;
    st = check_variant(p, &memo, order[i], scope, failures, &why, &state, err);
    if (st != WGK_OK) break;
    if (why.failed && !why.over) {
      st = util_error_oom(err, NULL, "planning a call");
      break;
    } /* a reason lost for memory is not "accepted" */
    /* One line per variant: a reason quoting a multi-line clause (or a message with a newline) is flattened. */
    for (size_t k = 0; k < why.len; k++)
      if ((unsigned char)why.data[k] < 0x20) why.data[k] = ' ';
    if (state == CHECK_OK)
      plan->variant = order[i];
    else if (state == CHECK_DEMOTED) {
      if (!demoted) demoted = order[i];
      util_dynbuf_printf(&rejected, "%s: demoted (%s)\n", order[i]->id, util_dynbuf_str(&why));
    } else
      util_dynbuf_printf(&rejected, "%s: %s\n", order[i]->id, util_dynbuf_str(&why));
  }
  if (st == WGK_OK && !plan->variant && demoted) plan->variant = demoted; /* demoteWhen: a last resort */
  free(memo.state);
  free(order);
  util_dynbuf_free(&why);
  if (st == WGK_OK && !plan->variant) st = no_variant(p, scope, util_dynbuf_str(&rejected), err);
  plan->rejections = util_dynbuf_take(&rejected);
  if (st == WGK_OK && !plan->rejections) st = util_error_oom(err, NULL, "planning a call");
  return st;
}

/* spec 2.1: tunables after selection = manifest defaults, then the variant's, then the call's (fact 26). */
static wgk_status variant_tunables(plan_planner *p, const plan_call *call, plan_result *plan, util_error *err) {
  const manifest_variant *v = plan->variant;
  if (v->n_tunables == 0) return WGK_OK;
  expr_value *t = expr_value_dict_copy(expr_value_dict_get(plan->scope, "tunables"));
  for (size_t i = 0; t && i < v->n_tunables; i++) {
    if (call->tunables && expr_value_dict_get(call->tunables, v->tunables[i].name)) continue;
    expr_value *x = expr_value_from_json(v->tunables[i].default_value, err);
    if (!x || !expr_value_dict_set(t, v->tunables[i].name, x)) {
      expr_value_release(t);
      return util_error_oom(err, NULL, "planning a call");
    }
  }
  if (!t || !expr_value_dict_set(plan->scope, "tunables", t)) return util_error_oom(err, NULL, "planning a call");
  (void)p;
  return WGK_OK;
}

static wgk_status make_passes(plan_planner *p, const plan_call *call, plan_result *plan, util_error *err) {
  const manifest_variant *v = plan->variant;
  wgk_status st = variant_tunables(p, call, plan, err);
  for (size_t i = 0; i < v->n_derive && st == WGK_OK; i++) {
    expr_value *x = NULL;
    st = plan_value(p, &v->derive[i], plan->scope, &x, err);
    if (st == WGK_OK && !expr_value_dict_set(plan->scope, v->derive[i].name, x))
      st = util_error_oom(err, NULL, "planning a call");
  }
  if (st == WGK_OK) st = plan_intermediates(p, plan, err);
  if (st != WGK_OK) return st;
  if (v->sequence) return plan_repeat_passes(p, plan, err);
  plan->passes = calloc(v->n_passes ? v->n_passes : 1, sizeof *plan->passes);
  if (!plan->passes) return util_error_oom(err, NULL, "planning a call");
  for (size_t i = 0; i < v->n_passes && st == WGK_OK; i++) {
    st = plan_pass_make(p, &v->passes[i], plan->scope, &plan->passes[i], err);
    plan->n_passes = i + 1;
    if (st != WGK_OK) break;
    size_t size = strlen(p->m->op_id) + strlen(v->id) + strlen(v->passes[i].id) + 3;
    plan->passes[i].label = malloc(size);
    if (!plan->passes[i].label) return util_error_oom(err, NULL, "planning a call");
    snprintf(plan->passes[i].label, size, "%s/%s/%s", p->m->op_id, v->id, v->passes[i].id);
  }
  return st;
}

/* Bytes of a port's GPU buffer: numel times the storage element (float16 2, 64-bit 8, packed uint8 1, others widened
 * to 4), rounded up to 4. A double, so huge shapes compare instead of wrapping. */
static double port_bytes(const manifest_port *port, const char *dtype, int rank, const int64_t *shape) {
  const char *t = port->storage_dtype ? port->storage_dtype : dtype ? dtype : "";
  const util_dtype_info *info = util_dtype_info_named(t);
  double element = port->packed && info && info->dtype == WGK_DTYPE_UINT8 ? 1 : info ? (double)info->storage_bytes : 4;
  double numel = 1;
  for (int d = 0; d < rank; d++) numel *= (double)shape[d];
  double bytes = ceil(numel * element / 4) * 4;
  return bytes < 4 ? 4 : bytes;
}

/* Every binding of every pass within the device's binding limits, refused before anything is recorded. */
static wgk_status check_binding_sizes(plan_planner *p, const plan_call *call, const plan_result *plan,
                                      util_error *err) {
  const device_limits *lim = &p->device->limits;
  for (size_t i = 0; i < plan->n_passes; i++) {
    const plan_pass *pass = &plan->passes[i];
    for (size_t b = 0; b < pass->n_bindings; b++) {
      const plan_binding *pb = &pass->bindings[b];
      const manifest_binding *mb = &pass->source->bindings->bindings[b];
      double bytes = 0;
      const char *what = "";
      if (pb->buffer == WGK_BUFFER_UNIFORM) {
        bytes = (double)pb->uniform_bytes;
        if (bytes > (double)lim->maxUniformBufferBindingSize)
          return plan_fail_at(err, WGK_ERR_LIMIT, p->m, &mb->pos,
                              "pass %s: uniform binding %s (%u) of %.0f bytes exceeds the device's "
                              "maxUniformBufferBindingSize of %" PRIu64 " bytes",
                              pass->source->id, pb->name, pb->index, bytes, lim->maxUniformBufferBindingSize);
        continue;
      }
      if (pb->port < 0) continue; /* intermediates are checked where they are planned */
      const manifest_port *port = &p->m->ports[pb->port];
      const plan_tensor *given = &call->ports[pb->port];
      if (given->present) {
        bytes = port_bytes(port, given->dtype, given->rank, given->shape);
      } else {
        for (size_t o = 0; o < plan->n_outputs; o++)
          if (plan->outputs[o].port == pb->port)
            bytes = port_bytes(port, plan->outputs[o].dtype, plan->outputs[o].rank, plan->outputs[o].shape);
      }
      uint64_t max = lim->maxStorageBufferBindingSize;
      what = "maxStorageBufferBindingSize";
      if (lim->maxBufferSize < max) {
        max = lim->maxBufferSize;
        what = "maxBufferSize";
      }
      if (bytes > (double)max)
        return plan_fail_at(err, WGK_ERR_LIMIT, p->m, &mb->pos,
                            "pass %s: binding %s (%u) of port %s is %.0f bytes, over the device's %s of %" PRIu64
                            " bytes",
                            pass->source->id, pb->name, pb->index, port->name, bytes, what, max);
    }
  }
  return WGK_OK;
}

/* Bytes one element of a fixed-length binding takes (the public loader's sizes for a sized binding: f32, i32,
 * u32 and atomics 4, f16 2, vecN<T> N (3 counts as 4) times T); 0 for any other element type. */
static double fixed_element_bytes(const char *type) {
  static const struct {
    const char *name;
    double bytes;
  } scalars[] = {{"f32", 4}, {"u32", 4}, {"i32", 4}, {"f16", 2}};
  char t[16];
  size_t n = 0;
  for (const char *s = type; *s && n + 1 < sizeof t; s++)
    if (*s != ' ' && *s != '\t') t[n++] = *s;
  t[n] = '\0';
  if (strcmp(t, "atomic<u32>") == 0 || strcmp(t, "atomic<i32>") == 0) return 4;
  int lanes = 1;
  const char *scalar = t;
  if (strncmp(t, "vec", 3) == 0 && t[3] >= '2' && t[3] <= '4' && t[4] == '<' && n > 6 && t[n - 1] == '>') {
    lanes = t[3] == '3' ? 4 : t[3] - '0';
    t[n - 1] = '\0';
    scalar = t + 5;
  }
  for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
    if (strcmp(scalar, scalars[i].name) == 0) return lanes * scalars[i].bytes;
  return 0;
}

/* A binding with a fixed `length` needs a tensor of at least length x element bytes: the public loader refuses a
 * shorter one when it binds it ("bound tensor provides N bytes but the declared fixed length requires M"), where
 * wgk left it to Dawn's validation at submit. Checked here, before anything is recorded, naming the binding
 * (docs/loader-semantics.md rule 39). A tensor's bytes are rounded up to 4 (at least 4), as the loader rounds. */
static wgk_status check_fixed_lengths(plan_planner *p, const plan_call *call, const plan_result *plan,
                                      util_error *err) {
  for (size_t i = 0; i < plan->n_passes; i++) {
    const plan_pass *pass = &plan->passes[i];
    for (size_t b = 0; b < pass->n_bindings; b++) {
      const plan_binding *pb = &pass->bindings[b];
      const manifest_binding *mb = &pass->source->bindings->bindings[b];
      if (pb->buffer == WGK_BUFFER_UNIFORM || !pb->length) continue;
      const char *pass_id = pass->id ? pass->id : pass->source->id;
      double element = fixed_element_bytes(pb->wgsl_type);
      if (element == 0)
        return plan_fail_at(err, WGK_ERR_CALL, p->m, &mb->pos,
                            "pass %s: binding %s has a fixed length, but its element type %s is not one a sized "
                            "binding takes (f32, f16, i32, u32, vecN of them, atomic<u32|i32>)",
                            pass_id, pb->name, pb->wgsl_type);
      double need = (double)pb->length * element, have = -1;
      char what[200] = "";
      if (pb->intermediate >= 0) {
        const plan_intermediate *it = &plan->intermediates[pb->intermediate];
        have = (double)it->bytes;
        snprintf(what, sizeof what, "intermediate %s", it->source->id);
      } else if (pb->port >= 0) {
        const manifest_port *port = &p->m->ports[pb->port];
        const plan_tensor *given = &call->ports[pb->port];
        char shape[WGK_MAX_RANK * 24 + 4] = "";
        if (given->present) {
          have = port_bytes(port, given->dtype, given->rank, given->shape);
          shape_text(given->rank, given->shape, shape, sizeof shape);
          snprintf(what, sizeof what, "port %s (%s %s)", port->name, given->dtype, shape);
        } else {
          for (size_t o = 0; o < plan->n_outputs; o++)
            if (plan->outputs[o].port == pb->port) {
              const plan_output *po = &plan->outputs[o];
              have = port_bytes(port, po->dtype, po->rank, po->shape);
              shape_text(po->rank, po->shape, shape, sizeof shape);
              snprintf(what, sizeof what, "port %s (%s %s)", port->name, po->dtype, shape);
            }
        }
      }
      if (have >= 0 && have < need)
        return plan_fail_at(err, WGK_ERR_CALL, p->m, &mb->pos,
                            "pass %s: binding %s: %s provides %.0f bytes, but the declared fixed length %s%s"
                            "%" PRIu64 " of %s requires %.0f",
                            pass_id, pb->name, what, have, mb->length[0] == '$' ? mb->length : "",
                            mb->length[0] == '$' ? " = " : "", pb->length, pb->wgsl_type, need);
    }
  }
  return WGK_OK;
}

wgk_status plan_make(plan_planner *p, const plan_call *call, plan_result **out, util_error *err) {
  *out = NULL;
  const char *type_dtypes[PLAN_MAX_TYPE_VARS];
  wgk_status st = plan_validate(p->m, call, type_dtypes, err);
  if (st != WGK_OK) return st;
  plan_result *plan = calloc(1, sizeof *plan);
  char **failures = calloc(p->m->n_derives ? p->m->n_derives : 1, sizeof *failures); /* per derive: why it failed */
  if (!plan || !failures) {
    free(plan);
    free(failures);
    return util_error_oom(err, NULL, "planning a call");
  }
  st = plan_scope(p, call, type_dtypes, &plan->scope, err);
  if (st == WGK_OK) st = infer_outputs(p, call, plan->scope, type_dtypes, plan, err);
  if (st == WGK_OK) st = eval_derives(p, plan->scope, failures, err);
  if (st == WGK_OK) st = select_variant(p, plan->scope, failures, plan, err);
  if (st == WGK_OK) st = make_passes(p, call, plan, err);
  if (st == WGK_OK) st = check_binding_sizes(p, call, plan, err);
  if (st == WGK_OK) st = plan_check_opaque_int64(p, call, plan, err);
  if (st == WGK_OK) plan_bind_intermediates(plan);
  if (st == WGK_OK) st = check_fixed_lengths(p, call, plan, err);
  for (size_t i = 0; i < p->m->n_derives; i++) free(failures[i]);
  free(failures);
  if (st != WGK_OK) {
    plan_free(plan);
    return st;
  }
  *out = plan;
  return WGK_OK;
}

void plan_free(plan_result *plan) {
  if (!plan) return;
  for (size_t i = 0; i < plan->n_passes; i++) plan_pass_free(&plan->passes[i]);
  free(plan->passes);
  free(plan->intermediates);
  free(plan->outputs);
  free(plan->rejections);
  expr_value_release(plan->scope);
  free(plan);
}

bool plan_call_key(const manifest_model *m, const plan_call *call, util_dynbuf *out) {
  for (size_t i = 0; i < m->n_ports; i++) {
    const plan_tensor *t = &call->ports[i];
    if (!t->present) {
      util_dynbuf_printf(out, "%s%s;", t->wanted ? "+" : "-", t->wanted && t->dtype ? t->dtype : "");
      continue;
    }
    util_dynbuf_printf(out, "%s[", t->dtype);
    for (int d = 0; d < t->rank; d++) util_dynbuf_printf(out, "%s%" PRId64, d ? "," : "", t->shape[d]);
    util_dynbuf_append_str(out, "];");
  }
  const expr_value *dicts[3] = {call->attrs, call->args, call->tunables};
  for (int k = 0; k < 3; k++) {
    util_dynbuf_append_char(out, '|');
    for (size_t i = 0; dicts[k] && i < expr_value_len(dicts[k]); i++) {
      util_dynbuf_printf(out, "%s=", expr_value_dict_key_at(dicts[k], i));
      const expr_value *v = expr_value_dict_value_at(dicts[k], i);
      util_dynbuf_append_str(out, expr_value_kind_name(expr_value_kind_of(v)));
      util_dynbuf_append_char(out, ':');
      expr_value_print(v, out);
      util_dynbuf_append_char(out, ';');
    }
  }
  return !out->failed;
}
