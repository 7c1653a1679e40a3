/* What the evaluator and the built-ins (filters, tests) do at a node of the expression: fail there, with the
 * node's source, line and column; call a native function value there; finish a string they built there. eval.c,
 * filters.c and tests.c all stand on these, so none of them has to reach back into another for its errors. */
#include "expr/expr_int.h"

#include <stdarg.h>

expr_value *expr_fail(expr_evaluator *ev, const expr_node *n, wgk_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  util_error_atv(ev->err, st, util_pos_make(n && n->src ? n->src : ev->source, n ? n->line : 0, n ? n->col : 0), NULL,
                 fmt, ap);
  va_end(ap);
  return NULL;
}

/* The one out-of-memory error (util_error_oom), placed at the node when no error was set before it. */
expr_value *expr_oom(expr_evaluator *ev, const expr_node *n) {
  bool first = !util_error_is_set(ev->err);
  util_error_oom(ev->err, NULL, NULL);
  if (first)
    util_error_wrap(ev->err, util_pos_make(n && n->src ? n->src : ev->source, n ? n->line : 0, n ? n->col : 0), NULL);
  return NULL;
}

expr_value *expr_call_value(expr_evaluator *ev, const expr_node *at, const expr_value *fn,
                            const expr_value *const *args, size_t nargs, const expr_value *kwargs) {
  if (fn->kind != WGK_VALUE_FUNC) return expr_fail(ev, at, WGK_ERR_EVAL, "cannot call a %s", expr_type_name(fn));
  expr_value *out = NULL;
  wgk_status st = fn->u.func.fn(fn, args, nargs, kwargs, ev->scope, &out, ev->err);
  if (st != WGK_OK || !out) {
    if (!util_error_is_set(ev->err)) util_error_plain(ev->err, WGK_ERR_EVAL, "%s failed", fn->u.func.name);
    util_error_wrap(ev->err, util_pos_make(at->src ? at->src : ev->source, at->line, at->col), NULL);
    expr_value_release(out);
    return NULL;
  }
  return out;
}

expr_value *expr_take_string(expr_evaluator *ev, const expr_node *n, util_dynbuf *b) {
  expr_value *v = b->failed ? NULL : expr_value_string_n(util_dynbuf_str(b), b->len);
  bool over = b->failed && b->over; /* past the limit; any other failure is out of memory */
  util_dynbuf_free(b);
  if (!v)
    return over ? expr_fail(ev, n, WGK_ERR_LIMIT, "string too long (limit is %zu bytes)",
                            (size_t)WGK_DYNBUF_DEFAULT_LIMIT)
                : expr_oom(ev, n);
  return v;
}
