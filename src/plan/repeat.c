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
#define MAX_REPEAT_ITERATIONS (1 << 20) /* loop iterations of all groups of one call, empty ones included */

typedef struct expansion {
  plan_planner *p;
  plan_result *plan;
  size_t cap;
  util_error *err;
  const char **ids;  /* the expanded pass ids, open addressing (a duplicate found in O(1), not by a scan) */
  size_t ids_cap;    /* a power of two, at least twice the passes measured */
  expr_value *scope; /* a copy of the variant scope, its "repeat" set for each count evaluated */
} expansion;

static uint64_t id_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

/* Adds id to the set; false when it was there already. */
static bool id_add(expansion *x, const char *id) {
  for (size_t i = id_hash(id) & (x->ids_cap - 1);; i = (i + 1) & (x->ids_cap - 1)) {
    if (!x->ids[i]) {
      x->ids[i] = id;
      return true;
    }
    if (strcmp(x->ids[i], id) == 0) return false;
  }
}

static wgk_status add_pass(expansion *x, const manifest_pass *mp, const char *prefix, const expr_value *repeat) {
  plan_result *plan = x->plan;
  if (plan->n_passes >= MAX_EXPANDED_PASSES)
    return plan_fail_at(x->err, WGK_ERR_CALL, x->p->m, &plan->variant->pos, "variant %s expands to more than %d passes",
                        plan->variant->id, MAX_EXPANDED_PASSES);
  if (2 * (plan->n_passes + 1) > x->ids_cap) /* more than measured: the counts changed between the walks */
    return plan_fail_at(x->err, WGK_ERR_CALL, x->p->m, &plan->variant->pos,
                        "variant %s expands to more passes than its repeat counts gave", plan->variant->id);
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
  if (!id_add(x, pass->id))
    return plan_fail_at(x->err, WGK_ERR_MANIFEST, x->p->m, &mp->pos, "variant %s expands duplicate pass id %s",
                        plan->variant->id, pass->id);
  const char *op = x->p->m->op_id, *vid = plan->variant->id;
  n = strlen(op) + strlen(vid) + strlen(pass->id) + 3;
  pass->label = malloc(n);
  if (!pass->label) return util_error_oom(x->err, NULL, "expanding repeat groups");
  snprintf(pass->label, n, "%s/%s/%s", op, vid, pass->id);
  return WGK_OK;
}

/* The count of repeat group it, with repeat as the enclosing groups' scope. */
static wgk_status group_count(expansion *x, const manifest_pass_item *it, const expr_value *repeat, int64_t *out) {
  /* one copy of the variant scope for every count (a copy per evaluation made 65535 x 16 of them cost 7 s) */
  if (!expr_value_dict_set(x->scope, "repeat", expr_value_ref(repeat)))
    return util_error_oom(x->err, NULL, "expanding repeat groups");
  expr_value *v = NULL;
  wgk_status st = plan_eval(x->p, &it->count, x->scope, &v, x->err);
  if (st != WGK_OK) return st;
  double d = expr_value_is_number(v) ? expr_value_as_float(v) : -1;
  if (!(d >= 0 && d <= MAX_REPEAT_COUNT && d == floor(d))) {
    util_dynbuf shown;
    util_dynbuf_init(&shown, 256);
    expr_value_print(v, &shown);
    plan_fail_at(x->err, WGK_ERR_CALL, x->p->m, &it->count.pos,
                 "repeat group %s count must resolve to an integer in [0, %d], got %s", it->id, MAX_REPEAT_COUNT,
                 util_dynbuf_str(&shown));
    util_dynbuf_free(&shown);
    expr_value_release(v);
    return WGK_ERR_CALL;
  }
  expr_value_release(v);
  *out = (int64_t)d;
  return WGK_OK;
}

/* The repeat dict of iteration k of group it inside repeat; NULL when out of memory. */
static expr_value *iteration_scope(const manifest_pass_item *it, const expr_value *repeat, int64_t k, int64_t count) {
  char key[256];
  expr_value *r = expr_value_dict_copy(repeat);
  snprintf(key, sizeof key, "%s_count", it->index);
  bool ok = r && expr_value_dict_set(r, "index", expr_value_int(k)) &&
            expr_value_dict_set(r, "count", expr_value_int(count)) &&
            expr_value_dict_set(r, it->index, expr_value_int(k)) && expr_value_dict_set(r, key, expr_value_int(count));
  if (!ok) {
    expr_value_release(r);
    return NULL;
  }
  return r;
}

/* Whether a count inside items (at any depth) may read the enclosing groups' indices: its text names `repeat`
 * (the only way an expression reaches them; a string that merely contains the word only makes this cautious). */
static bool reads_repeat(const manifest_pass_item *items, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!items[i].pass && ((items[i].count.text && strstr(items[i].count.text, "repeat")) ||
                           reads_repeat(items[i].items, items[i].n_items)))
      return true;
  return false;
}

/* a x b, saturating at UINT64_MAX */
static uint64_t times(uint64_t a, uint64_t b) {
  uint64_t z;
  return __builtin_mul_overflow(a, b, &z) ? UINT64_MAX : z;
}

/* a + b, saturating at UINT64_MAX */
static uint64_t plus(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

static wgk_status measure(expansion *x, const manifest_pass_item *items, size_t n, const expr_value *repeat,
                          uint64_t *passes, uint64_t *iterations);

/* One iteration (k) of group it: the passes and loop iterations of its items. */
static wgk_status measure_iteration(expansion *x, const manifest_pass_item *it, const expr_value *repeat, int64_t k,
                                    int64_t count, uint64_t *passes, uint64_t *iterations) {
  expr_value *r = iteration_scope(it, repeat, k, count);
  if (!r) return util_error_oom(x->err, NULL, "expanding repeat groups");
  wgk_status st = measure(x, it->items, it->n_items, r, passes, iterations);
  expr_value_release(r);
  return st;
}

/* Group it: its count times what one iteration runs. When no count inside reads the indices (the usual case),
 * every iteration runs the same, so one is measured and multiplied by the count: 65535 x 65535 empty loops are
 * refused from the product, in time proportional to the manifest. Otherwise the iterations are measured one by
 * one, stopping at the first bound passed (at most MAX_REPEAT_ITERATIONS count evaluations). */
static wgk_status measure_group(expansion *x, const manifest_pass_item *it, const expr_value *repeat, uint64_t *passes,
                                uint64_t *iterations) {
  const manifest_variant *v = x->plan->variant;
  int64_t count;
  wgk_status st = group_count(x, it, repeat, &count);
  if (st != WGK_OK || count == 0) return st;
  uint64_t each_passes = 0, each_iterations = 0, all_passes = 0, all_iterations = 0;
  int64_t walked = 0; /* iterations measured one by one; 0 when one was measured for all */
  if (!reads_repeat(it->items, it->n_items)) {
    st = measure_iteration(x, it, repeat, 0, count, &each_passes, &each_iterations);
    all_passes = times((uint64_t)count, each_passes);
    all_iterations = times((uint64_t)count, each_iterations);
  } else {
    for (; st == WGK_OK && walked < count && all_passes <= MAX_EXPANDED_PASSES &&
           plus(plus(*iterations, (uint64_t)count), all_iterations) <= MAX_REPEAT_ITERATIONS;
         walked++) {
      uint64_t p = 0, i = 0;
      st = measure_iteration(x, it, repeat, walked, count, &p, &i);
      all_passes = plus(all_passes, p);
      all_iterations = plus(all_iterations, i);
    }
  }
  if (st != WGK_OK) return st;
  *iterations = plus(*iterations, plus((uint64_t)count, all_iterations));
  *passes = plus(*passes, all_passes);
  char inner[160];
  if (walked)
    snprintf(inner, sizeof inner, "its first %lld iterations run %llu passes and %llu inner loop iterations",
             (long long)walked, (unsigned long long)all_passes, (unsigned long long)all_iterations);
  else
    snprintf(inner, sizeof inner, "each iteration runs %llu passes and %llu inner loop iterations",
             (unsigned long long)each_passes, (unsigned long long)each_iterations);
  const char *more = walked || *iterations == UINT64_MAX || *passes == UINT64_MAX ? "at least " : "";
  if (*iterations > MAX_REPEAT_ITERATIONS)
    return plan_fail_at(x->err, WGK_ERR_CALL, x->p->m, &it->pos,
                        "variant %s: repeat group %s runs %lld times and %s: %s%llu loop iterations in all, empty "
                        "groups included, above the bound of %d",
                        v->id, it->id ? it->id : "?", (long long)count, inner, more, (unsigned long long)*iterations,
                        MAX_REPEAT_ITERATIONS);
  if (*passes > MAX_EXPANDED_PASSES)
    return plan_fail_at(x->err, WGK_ERR_CALL, x->p->m, &it->pos,
                        "variant %s: repeat group %s runs %lld times and %s: %s%llu passes in all, above the "
                        "bound of %d passes (counted before any pass is made)",
                        v->id, it->id ? it->id : "?", (long long)count, inner, more, (unsigned long long)*passes,
                        MAX_EXPANDED_PASSES);
  return WGK_OK;
}

/* Before any pass is made: the passes and loop iterations the sequence asks for, counts evaluated as the
 * expansion will, stopping at the first bound passed. */
static wgk_status measure(expansion *x, const manifest_pass_item *items, size_t n, const expr_value *repeat,
                          uint64_t *passes, uint64_t *iterations) {
  for (size_t i = 0; i < n; i++) {
    if (items[i].pass) {
      *passes = plus(*passes, 1);
      continue;
    }
    wgk_status st = measure_group(x, &items[i], repeat, passes, iterations);
    if (st != WGK_OK) return st;
  }
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
    int64_t count;
    wgk_status st = group_count(x, it, repeat, &count);
    if (st != WGK_OK) return st;
    for (int64_t k = 0; k < count; k++) {
      expr_value *r = iteration_scope(it, repeat, k, count);
      bool ok = r != NULL;
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
  expansion x = {p, plan, 0, err, NULL, 0, expr_value_dict_copy(plan->scope)};
  expr_value *empty = expr_value_dict();
  if (!empty || !x.scope) {
    expr_value_release(empty);
    expr_value_release(x.scope);
    return util_error_oom(err, NULL, "expanding repeat groups");
  }
  uint64_t passes = 0, iterations = 0;
  wgk_status st = measure(&x, v->sequence, v->n_sequence, empty, &passes, &iterations);
  if (st == WGK_OK) {
    for (x.ids_cap = 16; x.ids_cap < 2 * passes; x.ids_cap *= 2) {}
    x.ids = calloc(x.ids_cap, sizeof *x.ids);
    st = x.ids ? expand(&x, v->sequence, v->n_sequence, "", empty)
               : util_error_oom(err, NULL, "expanding repeat groups");
  }
  free(x.ids);
  expr_value_release(x.scope);
  expr_value_release(empty);
  if (st == WGK_OK && plan->n_passes == 0)
    st = plan_fail_at(err, WGK_ERR_CALL, p->m, &v->pos,
                      "variant %s expands to zero passes; every eligible request must retain at least one pass", v->id);
  return st;
}
