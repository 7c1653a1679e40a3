/* spec 2.1 repeat groups: {id, repeat: {index, count}, passes} expands per call into count copies of its
 * passes, ids "<group>[<i>].<pass>", each seeing repeat = {..outer, index, count, <index>, <index>_count}
 * (the public loader's expansion; count in [0, 65535], at most 131072 passes, at least one). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner_internal.h"

#define MAX_REPEAT_COUNT 65535
#define MAX_EXPANDED_PASSES 131072

typedef struct expansion {
  plan_planner *p;
  plan_result *plan;
  size_t cap;
  util_error *err;
} expansion;

static wgk_status add_pass(expansion *x, const manifest_pass *mp, const char *prefix, const expr_value *repeat) {
  plan_result *plan = x->plan;
  if (plan->n_passes >= MAX_EXPANDED_PASSES)
    return util_error_value(x->err, WGK_ERR_CALL, x->p->m->source, plan->variant->pos,
                            "variant %s expands to more than %d passes", plan->variant->id, MAX_EXPANDED_PASSES);
  if (plan->n_passes == x->cap) {
    size_t cap = x->cap ? x->cap * 2 : 16;
    plan_pass *grown = realloc(plan->passes, cap * sizeof *grown);
    if (!grown) return util_error_oom(x->err, NULL, "expanding repeat groups");
    plan->passes = grown;
    x->cap = cap;
  }
  expr_value *scope = expr_value_dict_copy(plan->scope);
  if (!scope || !expr_value_dict_set(scope, "repeat", expr_value_ref(repeat))) {
    expr_value_release(scope);
    return util_error_oom(x->err, NULL, "expanding repeat groups");
  }
  plan_pass *pass = &plan->passes[plan->n_passes];
  wgk_status st = plan_pass_make(x->p, mp, scope, pass, x->err);
  expr_value_release(scope);
  plan->n_passes++;
  if (st != WGK_OK) return st;
  size_t n = strlen(prefix) + strlen(mp->id) + 1;
  pass->id = malloc(n);
  if (!pass->id) return util_error_oom(x->err, NULL, "expanding repeat groups");
  snprintf(pass->id, n, "%s%s", prefix, mp->id);
  for (size_t i = 0; i + 1 < plan->n_passes; i++) {
    const char *other = plan->passes[i].id ? plan->passes[i].id : plan->passes[i].source->id;
    if (strcmp(other, pass->id) == 0)
      return util_error_value(x->err, WGK_ERR_MANIFEST, x->p->m->source, mp->pos,
                              "variant %s expands duplicate pass id %s", plan->variant->id, pass->id);
  }
  const char *op = x->p->m->op_id, *vid = plan->variant->id;
  n = strlen(op) + strlen(vid) + strlen(pass->id) + 3;
  pass->label = malloc(n);
  if (!pass->label) return util_error_oom(x->err, NULL, "expanding repeat groups");
  snprintf(pass->label, n, "%s/%s/%s", op, vid, pass->id);
  return WGK_OK;
}

static wgk_status expand(expansion *x, const manifest_pass_item *items, size_t n, const char *prefix,
                         const expr_value *repeat) {
  for (size_t i = 0; i < n; i++) {
    const manifest_pass_item *it = &items[i];
    if (it->pass) {
      wgk_status st = add_pass(x, it->pass, prefix, repeat);
      if (st != WGK_OK) return st;
      continue;
    }
    expr_value *scope = expr_value_dict_copy(x->plan->scope);
    if (!scope || !expr_value_dict_set(scope, "repeat", expr_value_ref(repeat))) {
      expr_value_release(scope);
      return util_error_oom(x->err, NULL, "expanding repeat groups");
    }
    expr_value *v = NULL;
    wgk_status st = plan_eval(x->p, &it->count, scope, &v, x->err);
    expr_value_release(scope);
    if (st != WGK_OK) return st;
    double d = expr_value_is_number(v) ? expr_value_as_float(v) : -1;
    util_dynbuf shown;
    util_dynbuf_init(&shown, 256);
    expr_value_print(v, &shown);
    expr_value_release(v);
    if (!(d >= 0 && d <= MAX_REPEAT_COUNT && d == floor(d))) {
      util_error_value(x->err, WGK_ERR_CALL, x->p->m->source, it->count.pos,
                       "repeat group %s count must resolve to an integer in [0, %d], got %s", it->id, MAX_REPEAT_COUNT,
                       util_dynbuf_str(&shown));
      util_dynbuf_free(&shown);
      return WGK_ERR_CALL;
    }
    util_dynbuf_free(&shown);
    int64_t count = (int64_t)d;
    char key[256];
    for (int64_t k = 0; k < count; k++) {
      expr_value *r = expr_value_dict_copy(repeat);
      snprintf(key, sizeof key, "%s_count", it->index);
      bool ok = r && expr_value_dict_set(r, "index", expr_value_int(k)) &&
                expr_value_dict_set(r, "count", expr_value_int(count)) &&
                expr_value_dict_set(r, it->index, expr_value_int(k)) &&
                expr_value_dict_set(r, key, expr_value_int(count));
      size_t plen = strlen(prefix) + strlen(it->id) + 32;
      char *sub = ok ? malloc(plen) : NULL;
      if (!sub) {
        expr_value_release(r);
        return util_error_oom(x->err, NULL, "expanding repeat groups");
      }
      snprintf(sub, plen, "%s%s[%lld].", prefix, it->id, (long long)k);
      st = expand(x, it->items, it->n_items, sub, r);
      free(sub);
      expr_value_release(r);
      if (st != WGK_OK) return st;
    }
  }
  return WGK_OK;
}

wgk_status plan_repeat_passes(plan_planner *p, plan_result *plan, util_error *err) {
  const manifest_variant *v = plan->variant;
  expansion x = {p, plan, 0, err};
  expr_value *empty = expr_value_dict();
  if (!empty) return util_error_oom(err, NULL, "expanding repeat groups");
  wgk_status st = expand(&x, v->sequence, v->n_sequence, "", empty);
  expr_value_release(empty);
  if (st == WGK_OK && plan->n_passes == 0)
    st = util_error_value(err, WGK_ERR_CALL, p->m->source, v->pos,
                          "variant %s expands to zero passes; every eligible request must retain at least one pass",
                          v->id);
  return st;
}
