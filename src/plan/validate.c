/* Call validation (docs/call-semantics.md step 1): nothing is planned or dispatched for a call that fails here. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner_internal.h"
#include "util/suggest.h"

/* Appends sep and text to buf (cut at size). */
static void append_text(char *buf, size_t size, const char *sep, const char *text) {
  size_t used = strlen(buf);
  if (used + 1 < size) snprintf(buf + used, size - used, "%s%s", sep, text);
}

static void join_dtypes(const char **list, size_t n, char *buf, size_t size) {
  buf[0] = '\0';
  for (size_t i = 0; i < n; i++) append_text(buf, size, i ? ", " : "", list[i]);
}

static int type_index(const manifest_model *m, const char *type_var) {
  for (size_t i = 0; i < m->n_type_constraints; i++)
    if (strcmp(m->type_constraints[i].name, type_var) == 0) return (int)i;
  return -1;
}

static const char *port_keys(const manifest_port *port, char *buf, size_t size) {
  if (port->n_bind_keys == 0) {
    snprintf(buf, size, "%s", port->name);
    return buf;
  }
  snprintf(buf, size, "%s (bind key '%s')", port->name, port->bind_keys[0]);
  return buf;
}

static wgk_status check_port(const manifest_model *m, size_t i, const plan_tensor *t, const char **type_dtypes,
                             const char **type_from, util_error *err) {
  const manifest_port *port = &m->ports[i];
  char who[160], list[256], num[2][32];
  port_keys(port, who, sizeof who);
  if (!t->present) {
    if (port->dir != WGK_PORT_OUTPUT && !port->optional)
      return plan_fail_at(err, WGK_ERR_CALL, m, &port->pos, "port %s: required input is missing", who);
    if (!t->wanted || !t->dtype) return WGK_OK;
  }
  if (t->present && (t->rank < 0 || t->rank > WGK_MAX_RANK)) {
    snprintf(num[0], sizeof num[0], "%d", t->rank);
    return plan_fail_at(err, WGK_ERR_CALL, m, &port->pos, "port %s: rank %s is outside 0..8", who, num[0]);
  }
  for (int d = 0; t->present && d < t->rank; d++) {
    if (t->shape[d] < 0) {
      snprintf(num[0], sizeof num[0], "%lld", (long long)t->shape[d]);
      return plan_fail_at(err, WGK_ERR_CALL, m, &port->pos, "port %s: dimension %s is negative", who, num[0]);
    }
  }
  bool allowed = port->n_dtypes == 0;
  for (size_t k = 0; k < port->n_dtypes; k++) allowed |= strcmp(port->dtypes[k], t->dtype) == 0;
  if (!allowed) {
    join_dtypes(port->dtypes, port->n_dtypes, list, sizeof list);
    if (!port->type_var) /* a concrete dtype (spec 2.1 `"dtype": "float32"`): no type variable to name */
      return plan_fail_at(err, WGK_ERR_CALL, m, &port->pos, "port %s: dtype %s, not the declared dtype %s", who,
                          t->dtype, list);
    return plan_fail_at(err, WGK_ERR_CALL, m, &port->pos,
                        "port %s: dtype %s is not allowed by type constraint %s (allowed: %s)", who, t->dtype,
                        port->type_var, list);
  }
  if (t->present && port->has_rank && !port->rank_expr.text && port->rank != t->rank) {
    snprintf(num[0], sizeof num[0], "%d", t->rank);
    snprintf(num[1], sizeof num[1], "%d", port->rank);
    return plan_fail_at(err, WGK_ERR_CALL, m, &port->pos, "port %s: rank %s, the contract requires rank %s", who,
                        num[0], num[1]);
  }
  int ti = port->type_var ? type_index(m, port->type_var) : -1;
  if (ti >= 0) {
    if (type_dtypes[ti] && strcmp(type_dtypes[ti], t->dtype) != 0)
      return plan_fail_at(err, WGK_ERR_CALL, m, &port->pos,
                          "port %s: dtype %s does not match type %s = %s (set by port %s)", who, t->dtype,
                          port->type_var, type_dtypes[ti], type_from[ti]);
    type_dtypes[ti] = t->dtype;
    type_from[ti] = port->name;
  }
  return WGK_OK;
}

/* Whether a call's value (as JSON) is an allowed value: numbers by value (1 is 1.0), lists item by item. */
static bool json_same(const json_t *a, const json_t *b) {
  if (json_is_number(a) && json_is_number(b)) return json_number_value(a) == json_number_value(b);
  if (!json_is_array(a) || !json_is_array(b)) return json_equal(a, b);
  if (json_array_size(a) != json_array_size(b)) return false;
  for (size_t i = 0; i < json_array_size(a); i++)
    if (!json_same(json_array_get(a, i), json_array_get(b, i))) return false;
  return true;
}

/* What the checks need to know of one call value (an entry of the call's attrs, args or tunables, or an item of a
 * list value), read once: the checks below never go back to the value but to compare and print it. */
typedef struct value_view {
  const char *name;      /* the entry's key; NULL for a list item */
  const expr_value *v;   /* the value */
  expr_value_kind kind;  /* its kind */
  const char *kind_name; /* "integer", "float", "string", ... */
  double num;            /* a number's value (an integer's too) */
  bool int_ok;           /* false for an integer past +-2^53 */
  const char *str;       /* a string's text */
  size_t len;            /* a list's items, a dict's entries */
} value_view;

static value_view view_of(const expr_value *v, const char *name) {
  value_view w = {name, v, expr_value_kind_of(v), expr_value_kind_name(expr_value_kind_of(v)), 0, true, NULL, 0};
  if (w.kind == WGK_VALUE_INT || w.kind == WGK_VALUE_FLOAT) w.num = expr_value_as_float(v);
  if (w.kind == WGK_VALUE_INT) w.int_ok = expr_value_int_ok(expr_value_as_int(v));
  if (w.kind == WGK_VALUE_STRING) w.str = expr_value_str(v);
  if (w.kind == WGK_VALUE_LIST || w.kind == WGK_VALUE_DICT) w.len = expr_value_len(v);
  return w;
}

/* The entries of a dict (NULL: none) or the items of a list, each read once; NULL when out of memory. */
static value_view *views_of(const expr_value *v, size_t *n) {
  value_view whole = view_of(v, NULL);
  bool dict = whole.kind == WGK_VALUE_DICT;
  *n = whole.len;
  value_view *out = calloc(*n ? *n : 1, sizeof *out);
  for (size_t i = 0; out && i < *n; i++)
    out[i] = dict ? view_of(expr_value_dict_value_at(v, i), expr_value_dict_key_at(v, i))
                  : view_of(expr_value_list_at(v, i), NULL);
  return out;
}

static const value_view *find_view(const value_view *views, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(views[i].name, name) == 0) return &views[i];
  return NULL;
}

/* What an attribute holds, as its default (else its first allowed value) shows: ONNX float, int, string, or a
 * list of them. ATTR_ANY when the manifest shows no value (a described-only attribute). */
typedef enum attr_kind { ATTR_ANY, ATTR_FLOAT, ATTR_INT, ATTR_STRING, ATTR_LIST } attr_kind;

static attr_kind kind_of_json(const json_t *j, attr_kind *item) {
  *item = ATTR_ANY;
  if (json_is_real(j)) return ATTR_FLOAT;
  if (json_is_integer(j)) return ATTR_INT;
  if (json_is_string(j)) return ATTR_STRING;
  if (json_is_array(j)) {
    for (size_t i = 0; i < json_array_size(j); i++) {
      attr_kind sub, k = kind_of_json(json_array_get(j, i), &sub);
      if (k == ATTR_FLOAT || (k == ATTR_INT && *item != ATTR_FLOAT) || (k == ATTR_STRING && *item == ATTR_ANY))
        *item = k;
    }
    return ATTR_LIST;
  }
  return ATTR_ANY;
}

static attr_kind attribute_kind(const manifest_attribute *a, attr_kind *item, const char **from) {
  *item = ATTR_ANY;
  if (a->default_value) {
    *from = "default";
    return kind_of_json(a->default_value, item);
  }
  attr_kind k = ATTR_ANY;
  for (size_t i = 0; i < a->n_values; i++) { /* a float among the allowed values makes it a float attribute */
    attr_kind sub, ki = kind_of_json(a->values[i], &sub);
    if (k == ATTR_ANY || ki == ATTR_FLOAT) {
      k = ki;
      *item = sub;
    }
  }
  *from = "allowed values";
  return k;
}

static const char *kind_name(attr_kind k) {
  return k == ATTR_FLOAT ? "a float" : k == ATTR_INT ? "an integer" : k == ATTR_STRING ? "a string" : "a list";
}

/* JSON text of j (or of the value w), cut to size with "..." (a non-finite float prints as nan / inf). */
static void json_dump_short(const json_t *j, const value_view *w, char *buf, size_t size) {
  json_t *own = NULL;
  if (w && w->kind == WGK_VALUE_FLOAT) {
    snprintf(buf, size, "%.9g", w->num);
    return;
  }
  if (w) j = own = expr_value_to_json(w->v);
  char *t = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
  json_decref(own);
  if (!t) {
    snprintf(buf, size, "?");
    return;
  }
  if (strlen(t) >= size && size > 4)
    snprintf(buf, size, "%.*s...", (int)(size - 4), t);
  else
    snprintf(buf, size, "%s", t);
  free(t);
}

/* Why one attribute value (or a list item) is not a value of kind k; NULL when it is. Any float must be finite and
 * within f32 range (ONNX float attributes are f32), any integer within +-2^53. */
static const char *bad_scalar(const value_view *w, attr_kind k) {
  expr_value_kind vk = w->kind;
  if (vk == WGK_VALUE_FLOAT) {
    double d = w->num;
    if (!isfinite(d)) return "is not a finite number";
    if (fabs(d) > FLT_MAX) return "is outside the f32 range (magnitude at most 3.4028235e38)";
  }
  if (vk == WGK_VALUE_INT && !w->int_ok) return "is past 2^53";
  if (vk == WGK_VALUE_STRING && k != ATTR_STRING && k != ATTR_ANY) {
    char *end = NULL;
    const char *s = w->str;
    double d = strtod(s, &end);
    if (*s && end && *end == '\0')
      return isfinite(d) && fabs(d) <= FLT_MAX ? "is a string, not a number (give it without quotes)"
                                               : "reads as a number that is not finite or outside the f32 range";
  }
  switch (k) {
  case ATTR_ANY:
    if (vk == WGK_VALUE_INT || vk == WGK_VALUE_FLOAT || vk == WGK_VALUE_STRING) return NULL;
    return "is not an attribute value (a number or a string)";
  case ATTR_FLOAT:
    return vk == WGK_VALUE_INT || vk == WGK_VALUE_FLOAT ? NULL : "is not a number";
  case ATTR_INT: /* a whole float (set_attr_float(c, "axis", 1.0)) is the integer it holds */
    if (vk == WGK_VALUE_FLOAT && w->num == floor(w->num) && fabs(w->num) <= (double)WGK_INT_EXACT_MAX) return NULL;
    return vk == WGK_VALUE_INT ? NULL : "is not an integer";
  case ATTR_STRING:
    return vk == WGK_VALUE_STRING ? NULL : "is not a string";
  default:
    return "is not a scalar";
  }
}

static wgk_status attribute_type_error(const manifest_model *m, const manifest_attribute *a, const value_view *w,
                                       const char *item_of, size_t index, const char *why, attr_kind k,
                                       const char *from, util_error *err) {
  char shown[96], rule[260] = "";
  json_dump_short(NULL, w, shown, sizeof shown);
  if (k != ATTR_ANY) {
    char def[120];
    if (a->default_value)
      json_dump_short(a->default_value, NULL, def, sizeof def);
    else {
      json_t *list = json_array();
      for (size_t i = 0; list && i < a->n_values; i++) json_array_append(list, (json_t *)a->values[i]);
      json_dump_short(list, NULL, def, sizeof def);
      json_decref(list);
    }
    snprintf(rule, sizeof rule, " (the attribute is %s%s, as its %s %s show%s)", item_of ? "a list of " : "",
             item_of ? (k == ATTR_FLOAT    ? "floats"
                        : k == ATTR_INT    ? "integers"
                        : k == ATTR_STRING ? "strings"
                                           : "values")
                     : kind_name(k),
             from, def, a->default_value ? "s" : "");
  }
  const char *kind = w->kind_name;
  if (item_of)
    return plan_fail_at(err, WGK_ERR_CALL, m, &a->pos, "attribute %s: item %zu, %s %s, %s%s", a->name, index, kind,
                        shown, why, rule);
  return plan_fail_at(err, WGK_ERR_CALL, m, &a->pos, "attribute %s: %s %s %s%s", a->name, kind, shown, why, rule);
}

/* The value's type against what the manifest shows the attribute to be; no silent default for a wrong type. */
static wgk_status check_attribute_type(const manifest_model *m, const manifest_attribute *a, const value_view *w,
                                       util_error *err) {
  attr_kind item, k;
  const char *from = "";
  k = attribute_kind(a, &item, &from);
  if (w->kind == WGK_VALUE_LIST && (k == ATTR_LIST || k == ATTR_ANY)) {
    attr_kind want = k == ATTR_LIST ? item : ATTR_ANY;
    size_t n = 0;
    value_view *items = views_of(w->v, &n);
    if (!items) return util_error_oom(err, m->source, a->pos.path);
    wgk_status st = WGK_OK;
    for (size_t i = 0; i < n && st == WGK_OK; i++) {
      const char *why = bad_scalar(&items[i], want);
      if (why) st = attribute_type_error(m, a, &items[i], "list", i, why, want, from, err);
    }
    free(items);
    return st;
  }
  const char *why = k == ATTR_LIST ? "is not a list" : bad_scalar(w, k);
  return why ? attribute_type_error(m, a, w, NULL, 0, why, k, from, err) : WGK_OK;
}

/* "attribute a: value v is not one of [allowed values]". */
static wgk_status not_one_of(const manifest_model *m, const manifest_attribute *a, const value_view *w,
                             util_error *err) {
  char shown[96], allowed[512] = "", item[96];
  plan_value_text(w->v, shown, sizeof shown);
  for (size_t k = 0; k < a->n_values; k++) {
    json_dump_short(a->values[k], NULL, item, sizeof item);
    append_text(allowed, sizeof allowed, k ? ", " : "", item);
  }
  return plan_fail_at(err, WGK_ERR_CALL, m, &a->pos, "attribute %s: value %s is not one of [%s]", a->name, shown,
                      allowed);
}

static const char *attr_at(const void *m, size_t i) { return ((const manifest_model *)m)->attributes[i].name; }
static const char *arg_at(const void *m, size_t i) { return ((const manifest_model *)m)->scalar_args[i].name; }
static const char *tunable_at(const void *m, size_t i) { return ((const manifest_model *)m)->tunables[i].name; }

/* Where name is among the n names the contract declares (at(m, i): attributes, args or tunables). */
static bool find_name(const manifest_model *m, size_t n, util_suggest_at_fn at, const char *name, size_t *index) {
  for (*index = 0; *index < n; (*index)++)
    if (strcmp(at(m, *index), name) == 0) return true;
  return false;
}

/* "name is not part of the contract", with the nearest declared name when name looks like a misspelling of it. */
static wgk_status not_in_contract(const manifest_model *m, const char *what, const char *path, const char *name,
                                  size_t n, util_suggest_at_fn at, util_error *err) {
  const char *near = util_suggest(name, m, n, at);
  return plan_fail_at(err, WGK_ERR_CALL, m, &(manifest_pos){0, 0, path}, "%s '%s' is not part of the %s contract%s%s%s",
                      what, name, m->op_id, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

/* The call's attributes against the contract: each one declared, of its type, one of its allowed values; every
 * required one given. */
static wgk_status check_attributes(const manifest_model *m, const value_view *attrs, size_t n, util_error *err) {
  for (size_t i = 0; i < n; i++) {
    size_t ai;
    if (!find_name(m, m->n_attributes, attr_at, attrs[i].name, &ai))
      return not_in_contract(m, "attribute", "attributes", attrs[i].name, m->n_attributes, attr_at, err);
    const manifest_attribute *a = &m->attributes[ai];
    wgk_status st = check_attribute_type(m, a, &attrs[i], err);
    if (st != WGK_OK) return st;
    if (a->n_values == 0) continue;
    json_t *jv = expr_value_to_json(attrs[i].v);
    if (!jv) return util_error_oom(err, m->source, a->pos.path);
    bool ok = false;
    for (size_t k = 0; k < a->n_values && !ok; k++) ok = json_same(a->values[k], jv);
    json_decref(jv);
    if (!ok) return not_one_of(m, a, &attrs[i], err);
  }
  /* Every missing required attribute in one message (the position is the first one's), so one fix is enough. */
  const manifest_attribute *first = NULL;
  char missing[512] = "";
  size_t n_missing = 0;
  for (size_t i = 0; i < m->n_attributes; i++) {
    const manifest_attribute *a = &m->attributes[i];
    if (!a->required || a->default_value || find_view(attrs, n, a->name)) continue;
    if (!first) first = a;
    append_text(missing, sizeof missing, n_missing++ ? ", " : "", a->name);
  }
  if (first && n_missing == 1)
    return plan_fail_at(err, WGK_ERR_CALL, m, &first->pos, "attribute %s is required", first->name);
  if (first)
    return plan_fail_at(err, WGK_ERR_CALL, m, &first->pos, "%zu required attributes are missing: %s", n_missing,
                        missing);
  return WGK_OK;
}

/* A scalar arg's value against its kind, as the public loader checks it: why it does not fit, or NULL. */
static const char *arg_kind_error(const manifest_scalar_arg *a, const value_view *w) {
  if (strcmp(a->kind, "string") == 0) {
    if (!w->str) return "must be a string";
    for (size_t i = 0; a->one_of && i < json_array_size(a->one_of); i++) {
      const char *s = json_string_value(json_array_get(a->one_of, i));
      if (s && strcmp(s, w->str) == 0) return NULL;
    }
    return a->one_of ? "is not one of its oneOf values" : NULL;
  }
  if (strcmp(a->kind, "bool") == 0) return w->kind == WGK_VALUE_BOOL ? NULL : "must be a boolean";
  double d = w->num;
  if ((w->kind != WGK_VALUE_INT && w->kind != WGK_VALUE_FLOAT) || !isfinite(d)) return "must be a finite number";
  if (strcmp(a->kind, "u32") == 0 && !(d == floor(d) && d >= 0 && d <= 4294967295.0)) return "must be a u32";
  if (strcmp(a->kind, "i32") == 0 && !(d == floor(d) && d >= -2147483648.0 && d <= 2147483647.0))
    return "must be an i32";
  return NULL;
}

/* The call's args against the contract: each one declared and of its kind; every required one given. */
static wgk_status check_args(const manifest_model *m, const value_view *args, size_t n, util_error *err) {
  for (size_t i = 0; i < n; i++) {
    size_t k;
    if (!find_name(m, m->n_scalar_args, arg_at, args[i].name, &k))
      return not_in_contract(m, "arg", "args", args[i].name, m->n_scalar_args, arg_at, err);
  }
  for (size_t k = 0; k < m->n_scalar_args; k++) {
    const manifest_scalar_arg *a = &m->scalar_args[k];
    const value_view *w = find_view(args, n, a->name);
    const char *why = w ? arg_kind_error(a, w) : NULL;
    if (why) {
      char shown[96];
      plan_value_text(w->v, shown, sizeof shown);
      return plan_fail_at(err, WGK_ERR_CALL, m, &a->pos, "arg %s (%s) = %s %s", a->name, a->kind, shown, why);
    }
    if (a->required && !w) return plan_fail_at(err, WGK_ERR_CALL, m, &a->pos, "arg %s is required", a->name);
  }
  return WGK_OK;
}

/* The call's tunable overrides: each one declared, of its default's type (an integer for an integer, a finite
 * number for a float, a boolean). */
static wgk_status check_tunables(const manifest_model *m, const value_view *tunables, size_t n, util_error *err) {
  for (size_t i = 0; i < n; i++) {
    const value_view *w = &tunables[i];
    size_t ti;
    if (!find_name(m, m->n_tunables, tunable_at, w->name, &ti))
      return not_in_contract(m, "tunable", "tunables", w->name, m->n_tunables, tunable_at, err);
    const manifest_tunable *t = &m->tunables[ti];
    expr_value_kind vk = w->kind;
    const char *want = json_is_boolean(t->default_value)   ? (vk == WGK_VALUE_BOOL ? NULL : "a boolean")
                       : json_is_integer(t->default_value) ? (vk == WGK_VALUE_INT ? NULL : "an integer")
                       : (vk == WGK_VALUE_INT || (vk == WGK_VALUE_FLOAT && isfinite(w->num))) ? NULL
                                                                                              : "a finite number";
    if (want) {
      char shown[96], def[96];
      json_dump_short(NULL, w, shown, sizeof shown);
      json_dump_short(t->default_value, NULL, def, sizeof def);
      return plan_fail_at(err, WGK_ERR_CALL, m, &t->pos,
                          "tunable %s: %s %s is not %s (the tunable is %s, as its default %s shows)", w->name,
                          w->kind_name, shown, want, want, def);
    }
  }
  return WGK_OK;
}

static wgk_status check_ports(const manifest_model *m, const plan_call *call, const char **type_dtypes,
                              util_error *err) {
  const char *type_from[PLAN_MAX_TYPE_VARS] = {0};
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
  return WGK_OK;
}

wgk_status plan_validate(const manifest_model *m, const plan_call *call, const char **type_dtypes, util_error *err) {
  wgk_status st = check_ports(m, call, type_dtypes, err);
  size_t n[3] = {0};
  value_view *attrs = views_of(call->attrs, &n[0]), *args = views_of(call->args, &n[1]),
             *tunables = views_of(call->tunables, &n[2]);
  if (st == WGK_OK && (!attrs || !args || !tunables)) st = util_error_oom(err, m->source, "validating a call");
  if (st == WGK_OK) st = check_attributes(m, attrs, n[0], err);
  if (st == WGK_OK) st = check_args(m, args, n[1], err);
  if (st == WGK_OK) st = check_tunables(m, tunables, n[2], err);
  free(attrs);
  free(args);
  free(tunables);
  return st;
}
