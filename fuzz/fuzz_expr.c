/* libFuzzer entry: parse and evaluate arbitrary expression text against a small scope; must never crash. */
#include <stddef.h>
#include <stdint.h>

#include "expr/expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  expr_value *scope = expr_value_dict(), *l = expr_value_list();
  expr_value_list_append(l, expr_value_int(2));
  expr_value_list_append(l, expr_value_int(3));
  expr_value_dict_set(scope, "s", l);
  expr_value_dict_set(scope, "x", expr_value_string("ab"));
  util_error err;
  util_error_clear(&err);
  expr_program *e = expr_parse((const char *)data, size, NULL, &err);
  if (e) {
    expr_value *v = NULL;
    if (expr_eval(e, scope, &v, &err) == WGK_OK) {
      util_dynbuf out;
      util_dynbuf_init(&out, 1 << 20);
      expr_value_print(v, &out);
      util_dynbuf_free(&out);
    }
    expr_value_release(v);
    util_dynbuf ex;
    util_dynbuf_init(&ex, 1 << 20);
    expr_explain_false(e, scope, &ex);
    util_dynbuf_free(&ex);
    expr_free(e);
  }
  expr_value_release(scope);
  return 0;
}
