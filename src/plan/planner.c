/* The planner object of one kernel (its parsed expressions and templates, kept across calls), the scope every
 * expression of a call sees (docs/expressions.md) before derives are added, and the evaluation in it. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner_internal.h"
#include "plan/requires.h"
#include "util/dtype.h"

wgk_status plan_planner_create(const manifest_model *m, const tmpl_loader *loader, const device_desc *device,
                               plan_planner **out, util_error *err) {
  *out = NULL;
  if (m->n_type_constraints > PLAN_MAX_TYPE_VARS)
    return util_error_in(err, WGK_ERR_LIMIT, m->source, "typeConstraints", "more than %d type variables",
                         PLAN_MAX_TYPE_VARS);
  plan_planner *p = calloc(1, sizeof *p);
  if (!p) return util_error_oom(err, NULL, "creating a planner");
  p->m = m;
  if (loader) p->loader = *loader;
  p->device = device;
  const manifest_attribute *to = manifest_find_attribute(m, "to");
  if (m->format == WGK_MANIFEST_SPEC21 && strcmp(m->domain, "ai.onnx") == 0 && to && to->required) p->dtype_code = to;
  p->device_value = expr_value_device(device);
  p->exprs = expr_cache_create();
  if (p->device_value) p->device_why = plan_device_reasons(m, device, p->device_value);
  if (!p->device_value || !p->exprs || !p->device_why) {
    plan_planner_free(p);
    return util_error_oom(err, NULL, "creating a planner");
  }
  *out = p;
  return WGK_OK;
}

void plan_planner_free(plan_planner *p) {
  if (!p) return;
  expr_cache_free(p->exprs);
  for (size_t i = 0; i < p->n_tmpls; i++) {
    free(p->tmpls[i].shader);
    tmpl_free(p->tmpls[i].parsed);
  }
  free(p->tmpls);
  plan_device_reasons_free(p->device_why, p->m->n_variants);
  expr_value_release(p->device_value);
  free(p);
}

wgk_status plan_fail_at(util_error *err, wgk_status status, const manifest_model *m, const manifest_pos *pos,
                        const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wgk_status st = util_error_atv(err, status, util_pos_make(m->source, pos->line, pos->column), pos->path, fmt, ap);
  va_end(ap);
  return st;
}

/* Moves an error reported inside an expression's text to the manifest position of that text. */
static void relocate(const plan_planner *p, const manifest_expr *e, util_error *err) {
  if (!err || err->status == WGK_OK) return;
  int column = err->line == 1 && err->column > 0 ? e->pos.column + err->column - 1 : e->pos.column;
  util_error_relocate(err, util_pos_make(p->m->source ? p->m->source : "manifest.json", e->pos.line, column),
                      e->pos.path);
}

const expr_program *plan_parsed(plan_planner *p, const manifest_expr *e, util_error *err) {
  const expr_program *parsed = expr_cache_parse(p->exprs, e, e->text, err);
  if (!parsed) relocate(p, e, err);
  return parsed;
}

/* Evaluates e, parsed once under key (the manifest expression, or the JSON string a literal holds it in). */
static wgk_status eval_keyed(plan_planner *p, const void *key, const manifest_expr *e, const expr_value *scope,
                             expr_value **out, util_error *err) {
  wgk_status st = expr_cache_eval(p->exprs, key, e->text, scope, out, err);
  if (st != WGK_OK) relocate(p, e, err);
  return st;
}

wgk_status plan_eval(plan_planner *p, const manifest_expr *e, const expr_value *scope, expr_value **out,
                     util_error *err) {
  return eval_keyed(p, e, e, scope, out, err);
}

wgk_status plan_literal(plan_planner *p, const json_t *lit, const manifest_pos *pos, const expr_value *scope,
                        expr_value **out, util_error *err) {
  *out = NULL;
  if (json_is_string(lit)) {
    manifest_expr e = {json_string_value(lit), *pos};
    return eval_keyed(p, lit, &e, scope, out, err);
  }
  if (json_is_array(lit) || json_is_object(lit)) {
    bool list = json_is_array(lit);
    expr_value *agg = list ? expr_value_list() : expr_value_dict();
    if (!agg) return util_error_oom(err, NULL, NULL);
    size_t n = list ? json_array_size(lit) : json_object_size(lit);
    void *it = list ? NULL : json_object_iter((json_t *)lit);
    for (size_t i = 0; i < n; i++) {
      const json_t *item = list ? json_array_get(lit, i) : json_object_iter_value(it);
      expr_value *x = NULL;
      wgk_status st = plan_literal(p, item, pos, scope, &x, err);
      bool ok = st == WGK_OK &&
                (list ? expr_value_list_append(agg, x) : expr_value_dict_set(agg, json_object_iter_key(it), x));
      if (!list) it = json_object_iter_next((json_t *)lit, it);
      if (!ok) {
        expr_value_release(agg);
        return st != WGK_OK ? st : util_error_oom(err, NULL, NULL);
      }
    }
    *out = agg;
    return WGK_OK;
  }
  *out = expr_value_from_json(lit, err);
  if (!*out) {
    util_error_wrap(err, UTIL_POS(p->m->source, *pos), pos->path);
    return err ? err->status : WGK_ERR_MANIFEST;
  }
  return WGK_OK;
}

wgk_status plan_value(plan_planner *p, const manifest_value *v, const expr_value *scope, expr_value **out,
                      util_error *err) {
  if (v->is_expr) return plan_eval(p, &v->expr, scope, out, err);
  if (p->m->format == WGK_MANIFEST_SPEC21) return plan_literal(p, v->literal, &v->pos, scope, out, err);
  *out = expr_value_from_json(v->literal, err);
  if (!*out) {
    util_error_wrap(err, UTIL_POS(p->m->source, v->pos), v->pos.path);
    return err ? err->status : WGK_ERR_MANIFEST;
  }
  return WGK_OK;
}

const tmpl_template *plan_template(plan_planner *p, const char *shader, util_error *err) {
  for (size_t i = 0; i < p->n_tmpls; i++)
    if (strcmp(p->tmpls[i].shader, shader) == 0) return p->tmpls[i].parsed;
  if (!p->loader.load) {
    util_error_in(err, WGK_ERR_NOT_FOUND, shader, NULL, "no template loader to read '%s'", shader);
    return NULL;
  }
  plan_tmpl_slot *grown = realloc(p->tmpls, (p->n_tmpls + 1) * sizeof *grown);
  if (!grown) {
    util_error_oom(err, NULL, NULL);
    return NULL;
  }
  p->tmpls = grown;
  tmpl_template *t = tmpl_load(shader, &p->loader, err);
  if (!t) return NULL; /* the loader or parser set err */
  char *name = strdup(shader);
  if (!name) {
    tmpl_free(t);
    util_error_oom(err, NULL, NULL);
    return NULL;
  }
  p->tmpls[p->n_tmpls++] = (plan_tmpl_slot){.shader = name, .parsed = t};
  return t;
}

/* 32-bit scalars only: an int64 port without a projection has no WGSL scalar here (NULL). */
const char *plan_wgsl_scalar(const char *d) {
  const util_dtype_info *info = util_dtype_info_named(d);
  return info && info->dtype != WGK_DTYPE_INT64 ? info->storage_wgsl : NULL;
}

bool plan_scope_put(expr_value *scope, const char *group, const char *name, expr_value *value) {
  if (!value) return false;
  if (!group) return expr_value_dict_set(scope, name, value);
  expr_value *g = (expr_value *)expr_value_dict_get(scope, group);
  if (!g) {
    if (!expr_value_dict_set(scope, group, expr_value_dict())) {
      expr_value_release(value);
      return false;
    }
    g = (expr_value *)expr_value_dict_get(scope, group);
  }
  return expr_value_dict_set(g, name, value);
}

expr_value *plan_shape_value(int rank, const int64_t *shape) { return expr_value_int_list(shape, (size_t)rank); }

/* The WGSL scalar a type variable stands for: the storage projection of its ports if any, else its dtype. */
const char *plan_type_wgsl(const manifest_model *m, const char *type_var, const char *logical) {
  for (size_t i = 0; i < m->n_ports; i++) {
    const manifest_port *port = &m->ports[i];
    if (port->type_var && strcmp(port->type_var, type_var) == 0 && port->storage_dtype)
      return plan_wgsl_scalar(port->storage_dtype);
  }
  const char *w = plan_wgsl_scalar(logical);
  return w ? w : "vec2<u32>";
}

/* The scope's entries, listed before one call to expr builds them (expr_value_dict_build). */
typedef struct scope_list {
  expr_entry *e;
  size_t n;
} scope_list;

static void add(scope_list *l, const char *group, const char *name, expr_entry e) {
  e.group = group;
  e.name = name;
  l->e[l->n++] = e;
}

/* attrs and tunables: the call's value, else the manifest default, else nothing. */
static void add_values(scope_list *l, const manifest_model *m, const plan_call *call) {
  add(l, NULL, "attrs", (expr_entry){.kind = EXPR_ENTRY_DICT});
  for (size_t i = 0; i < m->n_attributes; i++)
    add(l, "attrs", m->attributes[i].name,
        (expr_entry){.kind = EXPR_ENTRY_GIVEN, .value = call->attrs, .json = m->attributes[i].default_value});
  add(l, NULL, "tunables", (expr_entry){.kind = EXPR_ENTRY_DICT});
  for (size_t i = 0; i < m->n_tunables; i++)
    add(l, "tunables", m->tunables[i].name,
        (expr_entry){.kind = EXPR_ENTRY_GIVEN, .value = call->tunables, .json = m->tunables[i].default_value});
}

/* tensorDtypes.<port>: the dtype of the tensor bound, which for spec 2.1 is the storage dtype (the public loader's
 * scope: an int64 input projected to int32 is an int32 tensor there, its logical dtype in logicalDtypes). */
static const char *tensor_dtype(const manifest_model *m, const manifest_port *port, const char *dtype) {
  bool projected = m->format == WGK_MANIFEST_SPEC21 && port->storage_dtype && strcmp(dtype, "int64") == 0;
  return projected ? port->storage_dtype : dtype;
}

static void add_ports(scope_list *l, const manifest_model *m, const plan_call *call) {
  static const char *const groups[] = {"shapes", "ranks", "present", "tensorDtypes"};
  for (size_t g = 0; g < 4; g++) add(l, NULL, groups[g], (expr_entry){.kind = EXPR_ENTRY_DICT});
  for (size_t i = 0; i < m->n_ports; i++) {
    const manifest_port *port = &m->ports[i];
    const plan_tensor *t = &call->ports[i];
    add(l, "present", port->name, (expr_entry){.kind = EXPR_ENTRY_BOOL, .i = t->present});
    for (size_t k = 0; k < port->n_bind_keys; k++)
      add(l, "present", port->bind_keys[k], (expr_entry){.kind = EXPR_ENTRY_BOOL, .i = t->present});
    if (!t->present) continue;
    add(l, "shapes", port->name, (expr_entry){.kind = EXPR_ENTRY_INTS, .i = t->rank, .ints = t->shape});
    add(l, "ranks", port->name, (expr_entry){.kind = EXPR_ENTRY_INT, .i = t->rank});
    if (t->dtype)
      add(l, "tensorDtypes", port->name, (expr_entry){.kind = EXPR_ENTRY_STRING, .s = tensor_dtype(m, port, t->dtype)});
  }
  for (size_t i = 0; i < m->n_scalar_args; i++)
    add(l, "present", m->scalar_args[i].name,
        (expr_entry){.kind = EXPR_ENTRY_HAS_KEY, .value = call->args, .s = m->scalar_args[i].name});
}

static void add_rest(scope_list *l, const plan_planner *p, const plan_call *call, const char **type_dtypes) {
  const manifest_model *m = p->m;
  add(l, NULL, "args", (expr_entry){.kind = EXPR_ENTRY_VALUE, .value = call->args});
  static const char *const groups[] = {"dtypes", "logicalDtypes", "derive", "repeat"};
  for (size_t g = 0; g < 4; g++) add(l, NULL, groups[g], (expr_entry){.kind = EXPR_ENTRY_DICT});
  add(l, NULL, "device", (expr_entry){.kind = EXPR_ENTRY_VALUE, .value = p->device_value});
  add(l, NULL, "DISPATCH_FOLD_WIDTH", (expr_entry){.kind = EXPR_ENTRY_INT, .i = WGK_DISPATCH_FOLD_WIDTH});
  for (size_t i = 0; i < m->n_type_constraints; i++) {
    if (!type_dtypes[i]) continue;
    const char *name = m->type_constraints[i].name;
    add(l, "dtypes", name, (expr_entry){.kind = EXPR_ENTRY_STRING, .s = plan_type_wgsl(m, name, type_dtypes[i])});
    add(l, "logicalDtypes", name, (expr_entry){.kind = EXPR_ENTRY_STRING, .s = type_dtypes[i]});
  }
}

wgk_status plan_scope(plan_planner *p, const plan_call *call, const char **type_dtypes, expr_value **out,
                      util_error *err) {
  const manifest_model *m = p->m;
  *out = NULL;
  size_t cap = 16 + m->n_attributes + m->n_tunables + m->n_scalar_args + 2 * m->n_type_constraints;
  for (size_t i = 0; i < m->n_ports; i++) cap += 4 + m->ports[i].n_bind_keys;
  scope_list l = {calloc(cap, sizeof *l.e), 0};
  if (l.e) {
    add_values(&l, m, call);
    add_ports(&l, m, call);
    add_rest(&l, p, call, type_dtypes);
    *out = expr_value_dict_build(l.e, l.n, err);
  }
  free(l.e);
  if (*out) return WGK_OK;
  if (!util_error_is_set(err)) util_error_oom(err, NULL, "building the scope");
  return err ? err->status : WGK_ERR_OUT_OF_MEMORY;
}

void plan_value_text(const expr_value *v, char *buf, size_t size) {
  expr_value_kind k = expr_value_kind_of(v);
  if (k == WGK_VALUE_STRING) {
    snprintf(buf, size, "%s", expr_value_str(v));
    return;
  }
  if (k == WGK_VALUE_FLOAT) {
    snprintf(buf, size, "%.9g", expr_value_as_float(v));
    return;
  }
  json_t *j = expr_value_to_json(v);
  char *t = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
  json_decref(j);
  snprintf(buf, size, "%s", t ? t : "?");
  free(t);
}
