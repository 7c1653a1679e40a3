/* The scope every expression of a call sees (docs/expressions.md), before derives are added. */
#include <string.h>

#include "plan/planner_internal.h"
#include "util/dtype.h"

/* 32-bit scalars only: an int64 port without a projection has no WGSL scalar here (NULL). */
const char *plan_wgsl_scalar(const char *d) {
  const util_dtype_info *info = util_dtype_info_named(d);
  return info && info->dtype != WGK_DTYPE_INT64 ? info->storage_wgsl : NULL;
}

bool plan_scope_put(expr_value *scope, const char *group, const char *name, expr_value *value) {
  if (!value) return false;
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

expr_value *plan_shape_value(int rank, const int64_t *shape) {
  expr_value *list = expr_value_list();
  for (int d = 0; list && d < rank; d++)
    if (!expr_value_list_append(list, expr_value_int(shape[d]))) {
      expr_value_release(list);
      return NULL;
    }
  return list;
}

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

static bool put_merged(expr_value *scope, const char *group, const expr_value *given, const char *const *names,
                       const json_t *const *defaults, size_t n, util_error *err) {
  if (!expr_value_dict_set(scope, group, expr_value_dict())) return false;
  for (size_t i = 0; i < n; i++) {
    const expr_value *g = given ? expr_value_dict_get(given, names[i]) : NULL;
    if (g) {
      if (!plan_scope_put(scope, group, names[i], expr_value_ref(g))) return false;
      continue;
    }
    if (!defaults[i]) continue;
    expr_value *v = expr_value_from_json(defaults[i], err);
    if (!v || !plan_scope_put(scope, group, names[i], v)) return false;
  }
  return true;
}

static bool put_attrs_and_tunables(const manifest_model *m, const plan_call *call, expr_value *scope, util_error *err) {
  size_t n = m->n_attributes > m->n_tunables ? m->n_attributes : m->n_tunables;
  const char *names[n ? n : 1];
  const json_t *defaults[n ? n : 1];
  for (size_t i = 0; i < m->n_attributes; i++) {
    names[i] = m->attributes[i].name;
    defaults[i] = m->attributes[i].default_value;
  }
  if (!put_merged(scope, "attrs", call->attrs, names, defaults, m->n_attributes, err)) return false;
  for (size_t i = 0; i < m->n_tunables; i++) {
    names[i] = m->tunables[i].name;
    defaults[i] = m->tunables[i].default_value;
  }
  return put_merged(scope, "tunables", call->tunables, names, defaults, m->n_tunables, err);
}

/* tensorDtypes.<port>: the dtype of the tensor bound, which for spec 2.1 is the storage dtype (the public loader's
 * scope: an int64 input projected to int32 is an int32 tensor there, its logical dtype in logicalDtypes). */
static const char *tensor_dtype(const manifest_model *m, const manifest_port *port, const char *dtype) {
  bool projected = m->format == WGK_MANIFEST_SPEC21 && port->storage_dtype && strcmp(dtype, "int64") == 0;
  return projected ? port->storage_dtype : dtype;
}

static bool put_ports(const manifest_model *m, const plan_call *call, expr_value *scope) {
  bool ok = expr_value_dict_set(scope, "shapes", expr_value_dict()) &&
            expr_value_dict_set(scope, "ranks", expr_value_dict()) &&
            expr_value_dict_set(scope, "present", expr_value_dict()) &&
            expr_value_dict_set(scope, "tensorDtypes", expr_value_dict());
  for (size_t i = 0; ok && i < m->n_ports; i++) {
    const manifest_port *port = &m->ports[i];
    const plan_tensor *t = &call->ports[i];
    ok = plan_scope_put(scope, "present", port->name, expr_value_bool(t->present));
    for (size_t k = 0; ok && k < port->n_bind_keys; k++)
      ok = plan_scope_put(scope, "present", port->bind_keys[k], expr_value_bool(t->present));
    if (!ok || !t->present) continue;
    ok = plan_scope_put(scope, "shapes", port->name, plan_shape_value(t->rank, t->shape)) &&
         plan_scope_put(scope, "ranks", port->name, expr_value_int(t->rank)) &&
         (!t->dtype ||
          plan_scope_put(scope, "tensorDtypes", port->name, expr_value_string(tensor_dtype(m, port, t->dtype))));
  }
  for (size_t i = 0; ok && i < m->n_scalar_args; i++) {
    const char *name = m->scalar_args[i].name;
    ok = plan_scope_put(scope, "present", name, expr_value_bool(call->args && expr_value_dict_get(call->args, name)));
  }
  return ok;
}

wgk_status plan_scope(plan_planner *p, const plan_call *call, const char **type_dtypes, expr_value **out,
                      util_error *err) {
  const manifest_model *m = p->m;
  *out = NULL;
  expr_value *scope = expr_value_dict();
  bool ok = scope && put_attrs_and_tunables(m, call, scope, err) && put_ports(m, call, scope) &&
            expr_value_dict_set(scope, "args", call->args ? expr_value_ref(call->args) : expr_value_dict()) &&
            expr_value_dict_set(scope, "dtypes", expr_value_dict()) &&
            expr_value_dict_set(scope, "logicalDtypes", expr_value_dict()) &&
            expr_value_dict_set(scope, "derive", expr_value_dict()) &&
            expr_value_dict_set(scope, "repeat", expr_value_dict()) &&
            expr_value_dict_set(scope, "device", expr_value_ref(p->device_value)) &&
            expr_value_dict_set(scope, "DISPATCH_FOLD_WIDTH", expr_value_int(WGK_DISPATCH_FOLD_WIDTH));
  for (size_t i = 0; ok && i < m->n_type_constraints; i++) {
    if (!type_dtypes[i]) continue;
    const char *name = m->type_constraints[i].name;
    ok = plan_scope_put(scope, "dtypes", name, expr_value_string(plan_type_wgsl(m, name, type_dtypes[i]))) &&
         plan_scope_put(scope, "logicalDtypes", name, expr_value_string(type_dtypes[i]));
  }
  if (!ok) {
    expr_value_release(scope);
    if (!util_error_is_set(err)) util_error_oom(err, NULL, "building the scope");
    return err ? err->status : WGK_ERR_OUT_OF_MEMORY;
  }
  *out = scope;
  return WGK_OK;
}
