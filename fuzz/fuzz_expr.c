/* libFuzzer entry: parse and evaluate arbitrary expression text against a small scope; must never crash. */
#include <stddef.h>
#include <stdint.h>

#include "expr/expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wgk_value *scope = wgk_value_dict(), *l = wgk_value_list();
  wgk_value_list_append(l, wgk_value_int(2));
  wgk_value_list_append(l, wgk_value_int(3));
  wgk_value_dict_set(scope, "s", l);
  wgk_value_dict_set(scope, "x", wgk_value_string("ab"));
  wgk_error err;
  wgk_error_clear(&err);
  wgk_expr *e = wgk_expr_parse((const char *)data, size, NULL, &err);
  if (e) {
    wgk_value *v = NULL;
    if (wgk_expr_eval(e, scope, &v, &err) == WGK_OK) {
      wgk_dynbuf out;
      wgk_dynbuf_init(&out, 1 << 20);
      wgk_value_print(v, &out);
      wgk_dynbuf_free(&out);
    }
    wgk_value_release(v);
    wgk_dynbuf ex;
    wgk_dynbuf_init(&ex, 1 << 20);
    wgk_expr_explain_false(e, scope, &ex);
    wgk_dynbuf_free(&ex);
    wgk_expr_free(e);
  }
  wgk_value_release(scope);
  return 0;
}
