/* The planner object: parsed expressions and templates of one kernel, kept across calls. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner_internal.h"

wgk_status plan_planner_create(const manifest_model *m, const tmpl_loader *loader, const device_desc *device,
                               plan_planner **out, util_error *err) {
  *out = NULL;
  plan_planner *p = calloc(1, sizeof *p);
  if (!p) return util_error_oom(err, NULL, "creating a planner");
  p->m = m;
  if (loader) p->loader = *loader;
  p->device = device;
  p->device_value = expr_value_device(device);
  p->expr_cap = 256;
  p->exprs = calloc(p->expr_cap, sizeof *p->exprs);
  if (!p->device_value || !p->exprs) {
    plan_planner_free(p);
    return util_error_oom(err, NULL, "creating a planner");
  }
  *out = p;
  return WGK_OK;
}

void plan_planner_free(plan_planner *p) {
  if (!p) return;
  for (size_t i = 0; i < p->expr_cap && p->exprs; i++) expr_free(p->exprs[i].parsed);
  free(p->exprs);
  for (size_t i = 0; i < p->n_tmpls; i++) {
    free(p->tmpls[i].shader);
    tmpl_free(p->tmpls[i].parsed);
  }
  free(p->tmpls);
  expr_value_release(p->device_value);
  free(p);
}

static size_t slot_of(const void *key, size_t cap) {
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17;
  h *= (uintptr_t)0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 7) & (cap - 1);
}

static bool grow(plan_planner *p) {
  size_t cap = p->expr_cap * 2;
  plan_expr_slot *slots = calloc(cap, sizeof *slots);
  if (!slots) return false;
  for (size_t i = 0; i < p->expr_cap; i++) {
    if (!p->exprs[i].key) continue;
    size_t j = slot_of(p->exprs[i].key, cap);
    while (slots[j].key) j = (j + 1) & (cap - 1);
    slots[j] = p->exprs[i];
  }
  free(p->exprs);
  p->exprs = slots;
  p->expr_cap = cap;
  return true;
}

/* Moves an error reported inside an expression's text to the manifest position of that text. */
static void relocate(const plan_planner *p, const manifest_expr *e, util_error *err) {
  if (!err || err->status == WGK_OK) return;
  int column = err->line == 1 && err->column > 0 ? e->pos.column + err->column - 1 : e->pos.column;
  util_error_relocate(err, util_pos_make(p->m->source ? p->m->source : "manifest.json", e->pos.line, column),
                      e->pos.path);
}

/* The parsed expression cached under key (a manifest expression, or the JSON string of a literal's item). */
static const expr_program *parsed_by_key(plan_planner *p, const void *key, const manifest_expr *e, util_error *err) {
  size_t j = slot_of(key, p->expr_cap);
  while (p->exprs[j].key) {
    if (p->exprs[j].key == key) return p->exprs[j].parsed;
    j = (j + 1) & (p->expr_cap - 1);
  }
  expr_program *parsed = expr_parse(e->text, (size_t)-1, "<expr>", err);
  if (!parsed) {
    relocate(p, e, err);
    return NULL;
  }
  if ((p->expr_count + 1) * 2 > p->expr_cap) {
    if (!grow(p)) {
      expr_free(parsed);
      util_error_oom(err, NULL, NULL);
      return NULL;
    }
    j = slot_of(key, p->expr_cap);
    while (p->exprs[j].key) j = (j + 1) & (p->expr_cap - 1);
  }
  p->exprs[j].key = key;
  p->exprs[j].parsed = parsed;
  p->expr_count++;
  return parsed;
}

const expr_program *plan_parsed(plan_planner *p, const manifest_expr *e, util_error *err) {
  return parsed_by_key(p, e, e, err);
}

wgk_status plan_eval(plan_planner *p, const manifest_expr *e, const expr_value *scope, expr_value **out,
                     util_error *err) {
  *out = NULL;
  const expr_program *parsed = plan_parsed(p, e, err);
  if (!parsed) return err ? err->status : WGK_ERR_PARSE;
  wgk_status st = expr_check_names(parsed, scope, err);
  if (st == WGK_OK) st = expr_eval(parsed, scope, out, err);
  if (st != WGK_OK) relocate(p, e, err);
  return st;
}

wgk_status plan_literal(plan_planner *p, const json_t *lit, const manifest_pos *pos, const expr_value *scope,
                        expr_value **out, util_error *err) {
  *out = NULL;
  if (json_is_string(lit)) {
    manifest_expr e = {json_string_value(lit), *pos};
    const expr_program *parsed = parsed_by_key(p, lit, &e, err);
    if (!parsed) return err ? err->status : WGK_ERR_PARSE;
    wgk_status st = expr_check_names(parsed, scope, err);
    if (st == WGK_OK) st = expr_eval(parsed, scope, out, err);
    if (st != WGK_OK) relocate(p, &e, err);
    return st;
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
