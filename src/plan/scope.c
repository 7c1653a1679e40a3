/* The scope every expression of a call sees (docs/expressions.md), before derives are added. */
#include <string.h>

#include "plan/planner_internal.h"
#include "util/dtype.h"

/* 32-bit scalars only: an int64 port without a projection has no WGSL scalar here (NULL). */
const char *wgk_plan_wgsl_scalar(const char *d) {
  const wgk_dtype_info *info = wgk_dtype_info_named(d);
  return info && info->dtype != WGK_DTYPE_INT64 ? info->storage_wgsl : NULL;
}

bool wgk_plan_scope_put(wgk_value *scope, const char *group, const char *name, wgk_value *value) {
  if (!value) return false;
  wgk_value *g = (wgk_value *)wgk_value_dict_get(scope, group);
  if (!g) {
    if (!wgk_value_dict_set(scope, group, wgk_value_dict())) {
      wgk_value_release(value);
      return false;
    }
    g = (wgk_value *)wgk_value_dict_get(scope, group);
  }
  return wgk_value_dict_set(g, name, value);
}

wgk_value *wgk_plan_shape_value(int rank, const int64_t *shape) {
  wgk_value *list = wgk_value_list();
  for (int d = 0; list && d < rank; d++)
    if (!wgk_value_list_append(list, wgk_value_int(shape[d]))) {
      wgk_value_release(list);
      return NULL;
    }
  return list;
}

/* The WGSL scalar a type variable stands for: the storage projection of its ports if any, else its dtype. */
static const char *type_wgsl(const wgk_manifest *m, const char *type_var, const char *logical) {
  for (size_t i = 0; i < m->n_ports; i++) {
    const wgk_manifest_port *port = &m->ports[i];
    if (port->type_var && strcmp(port->type_var, type_var) == 0 && port->storage_dtype)
      return wgk_plan_wgsl_scalar(port->storage_dtype);
  }
  const char *w = wgk_plan_wgsl_scalar(logical);
  return w ? w : "vec2<u32>";
}

static bool put_merged(wgk_value *scope, const char *group, const wgk_value *given, const char *const *names,
                       const json_t *const *defaults, size_t n, wgk_error *err) {
  if (!wgk_value_dict_set(scope, group, wgk_value_dict())) return false;
  for (size_t i = 0; i < n; i++) {
    const wgk_value *g = given ? wgk_value_dict_get(given, names[i]) : NULL;
    if (g) {
      if (!wgk_plan_scope_put(scope, group, names[i], wgk_value_ref(g))) return false;
      continue;
    }
    if (!defaults[i]) continue;
    wgk_value *v = wgk_value_from_json(defaults[i], err);
    if (!v || !wgk_plan_scope_put(scope, group, names[i], v)) return false;
  }
  return true;
}

static bool put_attrs_and_tunables(const wgk_manifest *m, const wgk_plan_call *call, wgk_value *scope, wgk_error *err) {
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
static const char *tensor_dtype(const wgk_manifest *m, const wgk_manifest_port *port, const char *dtype) {
  bool projected = m->format == WGK_MANIFEST_SPEC21 && port->storage_dtype && strcmp(dtype, "int64") == 0;
  return projected ? port->storage_dtype : dtype;
}

static bool put_ports(const wgk_manifest *m, const wgk_plan_call *call, wgk_value *scope) {
  bool ok = wgk_value_dict_set(scope, "shapes", wgk_value_dict()) &&
            wgk_value_dict_set(scope, "ranks", wgk_value_dict()) &&
            wgk_value_dict_set(scope, "present", wgk_value_dict()) &&
            wgk_value_dict_set(scope, "tensorDtypes", wgk_value_dict());
  for (size_t i = 0; ok && i < m->n_ports; i++) {
    const wgk_manifest_port *port = &m->ports[i];
    const wgk_plan_tensor *t = &call->ports[i];
    ok = wgk_plan_scope_put(scope, "present", port->name, wgk_value_bool(t->present));
    for (size_t k = 0; ok && k < port->n_bind_keys; k++)
      ok = wgk_plan_scope_put(scope, "present", port->bind_keys[k], wgk_value_bool(t->present));
    if (!ok || !t->present) continue;
    ok = wgk_plan_scope_put(scope, "shapes", port->name, wgk_plan_shape_value(t->rank, t->shape)) &&
         wgk_plan_scope_put(scope, "ranks", port->name, wgk_value_int(t->rank)) &&
         (!t->dtype ||
          wgk_plan_scope_put(scope, "tensorDtypes", port->name, wgk_value_string(tensor_dtype(m, port, t->dtype))));
  }
  for (size_t i = 0; ok && i < m->n_scalar_args; i++) {
    const char *name = m->scalar_args[i].name;
    ok = wgk_plan_scope_put(scope, "present", name, wgk_value_bool(call->args && wgk_value_dict_get(call->args, name)));
  }
  return ok;
}

wgk_status wgk_plan_scope(wgk_planner *p, const wgk_plan_call *call, const char **type_dtypes, wgk_value **out,
                          wgk_error *err) {
  const wgk_manifest *m = p->m;
  *out = NULL;
  wgk_value *scope = wgk_value_dict();
  bool ok = scope && put_attrs_and_tunables(m, call, scope, err) && put_ports(m, call, scope) &&
            wgk_value_dict_set(scope, "args", call->args ? wgk_value_ref(call->args) : wgk_value_dict()) &&
            wgk_value_dict_set(scope, "dtypes", wgk_value_dict()) &&
            wgk_value_dict_set(scope, "logicalDtypes", wgk_value_dict()) &&
            wgk_value_dict_set(scope, "derive", wgk_value_dict()) &&
            wgk_value_dict_set(scope, "repeat", wgk_value_dict()) &&
            wgk_value_dict_set(scope, "device", wgk_value_ref(p->device_value)) &&
            wgk_value_dict_set(scope, "DISPATCH_FOLD_WIDTH", wgk_value_int(WGK_DISPATCH_FOLD_WIDTH));
  for (size_t i = 0; ok && i < m->n_type_constraints; i++) {
    if (!type_dtypes[i]) continue;
    const char *name = m->type_constraints[i].name;
    ok = wgk_plan_scope_put(scope, "dtypes", name, wgk_value_string(type_wgsl(m, name, type_dtypes[i]))) &&
         wgk_plan_scope_put(scope, "logicalDtypes", name, wgk_value_string(type_dtypes[i]));
  }
  if (!ok) {
    wgk_value_release(scope);
    if (!wgk_error_is_set(err))
      wgk_error_set(err, WGK_ERR_OUT_OF_MEMORY, NULL, 0, 0, NULL, "out of memory building the scope");
    return err ? err->status : WGK_ERR_OUT_OF_MEMORY;
  }
  *out = scope;
  return WGK_OK;
}
