/* Call validation (SYSTEM.md §4.1): nothing is planned or dispatched for a call that fails here. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan/planner_internal.h"

static wgk_status fail_at(const wgk_manifest *m, const wgk_manifest_pos *pos, const char *fmt, const char *a,
                          const char *b, const char *c, const char *d, wgk_error *err) {
  return wgk_error_set(err, WGK_ERR_CALL, m->source, pos ? pos->line : 0, pos ? pos->column : 0,
                       pos ? pos->path : NULL, fmt, a, b, c, d);
}

static void join_dtypes(const char **list, size_t n, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    int k = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", list[i]);
    if (k < 0 || (size_t)k >= size - used) break;
    used += (size_t)k;
  }
}

static int type_index(const wgk_manifest *m, const char *type_var) {
  for (size_t i = 0; i < m->n_type_constraints; i++)
    if (strcmp(m->type_constraints[i].name, type_var) == 0) return (int)i;
  return -1;
}

static const char *port_keys(const wgk_manifest_port *port, char *buf, size_t size) {
  if (port->n_bind_keys == 0) { snprintf(buf, size, "%s", port->name); return buf; }
  snprintf(buf, size, "%s (bind key '%s')", port->name, port->bind_keys[0]);
  return buf;
}

static wgk_status check_port(const wgk_manifest *m, size_t i, const wgk_plan_tensor *t, const char **type_dtypes,
                             const char **type_from, wgk_error *err) {
  const wgk_manifest_port *port = &m->ports[i];
  char who[160], list[256], num[2][32];
  port_keys(port, who, sizeof who);
  if (!t->present) {
    if (port->dir != WGK_PORT_OUTPUT && !port->optional)
      return fail_at(m, &port->pos, "port %s: required input is missing%s%s%s", who, "", "", "", err);
    return WGK_OK;
  }
  if (t->rank < 0 || t->rank > WGK_MAX_RANK) {
    snprintf(num[0], sizeof num[0], "%d", t->rank);
    return fail_at(m, &port->pos, "port %s: rank %s is outside 0..8%s%s", who, num[0], "", "", err);
  }
  for (int d = 0; d < t->rank; d++) {
    if (t->shape[d] < 0) {
      snprintf(num[0], sizeof num[0], "%lld", (long long)t->shape[d]);
      return fail_at(m, &port->pos, "port %s: dimension %s is negative%s%s", who, num[0], "", "", err);
    }
  }
  bool allowed = port->n_dtypes == 0;
  for (size_t k = 0; k < port->n_dtypes; k++) allowed |= strcmp(port->dtypes[k], t->dtype) == 0;
  if (!allowed) {
    join_dtypes(port->dtypes, port->n_dtypes, list, sizeof list);
    return fail_at(m, &port->pos, "port %s: dtype %s is not allowed by type constraint %s (allowed: %s)", who,
                   t->dtype, port->type_var ? port->type_var : "?", list, err);
  }
  if (port->has_rank && !port->rank_expr.text && port->rank != t->rank) {
    snprintf(num[0], sizeof num[0], "%d", t->rank);
    snprintf(num[1], sizeof num[1], "%d", port->rank);
    return fail_at(m, &port->pos, "port %s: rank %s, the contract requires rank %s%s", who, num[0], num[1], "", err);
  }
  int ti = port->type_var ? type_index(m, port->type_var) : -1;
  if (ti >= 0) {
    if (type_dtypes[ti] && strcmp(type_dtypes[ti], t->dtype) != 0)
      return wgk_error_set(err, WGK_ERR_CALL, m->source, port->pos.line, port->pos.column, port->pos.path,
                           "port %s: dtype %s does not match type %s = %s (set by port %s)", who, t->dtype,
                           port->type_var, type_dtypes[ti], type_from[ti]);
    type_dtypes[ti] = t->dtype;
    type_from[ti] = port->name;
  }
  return WGK_OK;
}

static bool json_equals_value(const json_t *j, const wgk_value *v) {
  wgk_value *jv = wgk_value_from_json(j, NULL);
  bool same = jv && wgk_value_equal(jv, v);
  wgk_value_release(jv);
  return same;
}

static wgk_status check_attributes(const wgk_manifest *m, const wgk_value *attrs, wgk_error *err) {
  size_t n = attrs ? wgk_value_len(attrs) : 0;
  for (size_t i = 0; i < n; i++) {
    const char *name = wgk_value_dict_key_at(attrs, i);
    const wgk_value *v = wgk_value_dict_value_at(attrs, i);
    const wgk_manifest_attribute *a = wgk_manifest_find_attribute(m, name);
    if (!a)
      return wgk_error_set(err, WGK_ERR_CALL, m->source, 0, 0, "attributes", "attribute '%s' is not part of the %s contract",
                           name, m->op_id);
    if (a->n_values == 0) continue;
    bool ok = false;
    for (size_t k = 0; k < a->n_values && !ok; k++) ok = json_equals_value(a->values[k], v);
    if (!ok) {
      wgk_dynbuf text;
      wgk_dynbuf_init(&text, 4096);
      wgk_value_print(v, &text);
      wgk_dynbuf_append_str(&text, " is not one of [");
      for (size_t k = 0; k < a->n_values; k++) {
        char *s = json_dumps(a->values[k], JSON_ENCODE_ANY | JSON_COMPACT);
        wgk_dynbuf_printf(&text, "%s%s", k ? ", " : "", s ? s : "?");
        free(s);
      }
      wgk_dynbuf_append_str(&text, "]");
      wgk_error_set(err, WGK_ERR_CALL, m->source, a->pos.line, a->pos.column, a->pos.path,
                    "attribute %s: value %s", name, wgk_dynbuf_str(&text));
      wgk_dynbuf_free(&text);
      return WGK_ERR_CALL;
    }
  }
  for (size_t i = 0; i < m->n_attributes; i++) {
    const wgk_manifest_attribute *a = &m->attributes[i];
    if (a->required && !a->default_value && !(attrs && wgk_value_dict_get(attrs, a->name)))
      return wgk_error_set(err, WGK_ERR_CALL, m->source, a->pos.line, a->pos.column, a->pos.path,
                           "attribute %s is required", a->name);
  }
  return WGK_OK;
}

/* A scalar arg's value against its kind, as the public loader checks it: why it does not fit, or NULL. */
static const char *arg_kind_error(const wgk_manifest_scalar_arg *a, const wgk_value *v) {
  if (strcmp(a->kind, "string") == 0) {
    if (!wgk_value_str(v)) return "must be a string";
    for (size_t i = 0; a->one_of && i < json_array_size(a->one_of); i++) {
      const char *s = json_string_value(json_array_get(a->one_of, i));
      if (s && strcmp(s, wgk_value_str(v)) == 0) return NULL;
    }
    return a->one_of ? "is not one of its oneOf values" : NULL;
  }
  if (strcmp(a->kind, "bool") == 0) return wgk_value_kind_of(v) == WGK_VALUE_BOOL ? NULL : "must be a boolean";
  if (!wgk_value_is_number(v) || !isfinite(wgk_value_as_float(v))) return "must be a finite number";
  double d = wgk_value_as_float(v);
  if (strcmp(a->kind, "u32") == 0 && !(d == floor(d) && d >= 0 && d <= 4294967295.0)) return "must be a u32";
  if (strcmp(a->kind, "i32") == 0 && !(d == floor(d) && d >= -2147483648.0 && d <= 2147483647.0)) return "must be an i32";
  return NULL;
}

static wgk_status check_args(const wgk_manifest *m, const wgk_plan_call *call, wgk_error *err) {
  size_t n = call->args ? wgk_value_len(call->args) : 0;
  for (size_t i = 0; i < n; i++) {
    const char *name = wgk_value_dict_key_at(call->args, i);
    bool known = false;
    for (size_t k = 0; k < m->n_scalar_args; k++) known |= strcmp(m->scalar_args[k].name, name) == 0;
    if (!known)
      return wgk_error_set(err, WGK_ERR_CALL, m->source, 0, 0, "args", "arg '%s' is not part of the %s contract", name,
                           m->op_id);
  }
  for (size_t k = 0; k < m->n_scalar_args; k++) {
    const wgk_manifest_scalar_arg *a = &m->scalar_args[k];
    const wgk_value *v = call->args ? wgk_value_dict_get(call->args, a->name) : NULL;
    const char *why = v ? arg_kind_error(a, v) : NULL;
    if (why) {
      wgk_dynbuf shown;
      wgk_dynbuf_init(&shown, 256);
      wgk_value_print(v, &shown);
      wgk_error_set(err, WGK_ERR_CALL, m->source, a->pos.line, a->pos.column, a->pos.path, "arg %s (%s) = %s %s", a->name,
                    a->kind, wgk_dynbuf_str(&shown), why);
      wgk_dynbuf_free(&shown);
      return WGK_ERR_CALL;
    }
    if (a->required && !(call->args && wgk_value_dict_get(call->args, a->name)))
      return wgk_error_set(err, WGK_ERR_CALL, m->source, a->pos.line, a->pos.column, a->pos.path, "arg %s is required",
                           a->name);
  }
  n = call->tunables ? wgk_value_len(call->tunables) : 0;
  for (size_t i = 0; i < n; i++) {
    const char *name = wgk_value_dict_key_at(call->tunables, i);
    bool known = false;
    for (size_t k = 0; k < m->n_tunables; k++) known |= strcmp(m->tunables[k].name, name) == 0;
    if (!known)
      return wgk_error_set(err, WGK_ERR_CALL, m->source, 0, 0, "tunables", "tunable '%s' is not part of the %s contract",
                           name, m->op_id);
  }
  return WGK_OK;
}

wgk_status wgk_plan_validate(const wgk_manifest *m, const wgk_plan_call *call, const char **type_dtypes,
                             wgk_error *err) {
  const char *type_from[64] = {0};
  if (m->n_type_constraints > 64)
    return wgk_error_set(err, WGK_ERR_LIMIT, m->source, 0, 0, "typeConstraints", "more than 64 type variables");
  for (size_t i = 0; i < m->n_type_constraints; i++) type_dtypes[i] = NULL;
  /* Inputs first so a caller-given output is checked against the types its inputs fixed. */
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < m->n_ports; i++) {
      bool is_output = m->ports[i].dir == WGK_PORT_OUTPUT;
      if (is_output != (pass == 1)) continue;
      wgk_status st = check_port(m, i, &call->ports[i], type_dtypes, type_from, err);
      if (st != WGK_OK) return st;
    }
  }
  wgk_status st = check_attributes(m, call->attrs, err);
  return st != WGK_OK ? st : check_args(m, call, err);
}
