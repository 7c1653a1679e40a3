/* `x is [not] name`: the oracle's tests. */
#include "expr/expr_int.h"

#include <ctype.h>
#include <string.h>

static bool case_is(const expr_value *v, int (*conv)(int)) {
  if (v->kind != WGK_VALUE_STRING) return false;
  for (size_t i = 0; i < v->u.str.len; i++)
    if (conv((unsigned char)v->u.str.s[i]) != (unsigned char)v->u.str.s[i]) return false;
  return true;
}

static int test_result(expr_evaluator *ev, const expr_node *n, const expr_value *v, const expr_value *arg) {
  const char *t = n->str;
  expr_value_kind k = v->kind;
  if (!strcmp(t, "defined")) return k != WGK_VALUE_UNDEFINED;
  if (!strcmp(t, "undefined")) return k == WGK_VALUE_UNDEFINED;
  if (!strcmp(t, "none")) return k == WGK_VALUE_NONE;
  if (!strcmp(t, "boolean")) return k == WGK_VALUE_BOOL;
  if (!strcmp(t, "true")) return k == WGK_VALUE_BOOL && v->u.b;
  if (!strcmp(t, "false")) return k == WGK_VALUE_BOOL && !v->u.b;
  if (!strcmp(t, "string")) return k == WGK_VALUE_STRING;
  if (!strcmp(t, "number")) return k == WGK_VALUE_INT || k == WGK_VALUE_FLOAT;
  if (!strcmp(t, "integer")) return k == WGK_VALUE_INT;
  if (!strcmp(t, "iterable")) return k == WGK_VALUE_LIST || k == WGK_VALUE_STRING;
  if (!strcmp(t, "mapping")) return k == WGK_VALUE_DICT && !v->is_namespace; /* the oracle: a namespace is no mapping */
  if (!strcmp(t, "sequence")) return k == WGK_VALUE_LIST || k == WGK_VALUE_DICT || k == WGK_VALUE_STRING;
  if (!strcmp(t, "callable")) return k == WGK_VALUE_FUNC;
  if (!strcmp(t, "lower")) return case_is(v, tolower);
  if (!strcmp(t, "upper")) return case_is(v, toupper);
  if (!strcmp(t, "odd") || !strcmp(t, "even")) {
    if (k != WGK_VALUE_INT) {
      expr_fail(ev, n, WGK_ERR_EVAL, "test '%s' needs an integer, not %s", t, expr_type_name(v));
      return -1;
    }
    return (v->u.i % 2 != 0) == (t[0] == 'o');
  }
  if (!strcmp(t, "equalto") || !strcmp(t, "eq") || !strcmp(t, "sameas")) {
    if (!arg) {
      expr_fail(ev, n, WGK_ERR_EVAL, "test '%s' needs a value to compare with", t);
      return -1;
    }
    return expr_strict_eq(v, arg);
  }
  if (!strcmp(t, "ne")) return arg && !expr_strict_eq(v, arg);
  expr_fail(ev, n, WGK_ERR_EVAL, "unknown test '%s'", t);
  return -1;
}

/* Runs the named test of node n on v with argument arg (for `is`, selectattr and rejectattr). */
int expr_run_test(expr_evaluator *ev, const expr_node *n, const expr_value *v, const expr_value *arg) {
  return test_result(ev, n, v, arg);
}
