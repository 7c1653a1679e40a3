/* libFuzzer entry: parse and render arbitrary template text; includes resolve to a tiny fixed package. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "template/template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static wgk_status load(void *ud, const char *path, char **text, size_t *len, util_error *err) {
  (void)ud;
  const char *body = !strcmp(path, "a") ? "A{% include 'b' %}" : !strcmp(path, "b") ? "B{{ 1 + 1 }}" : NULL;
  if (!body) return util_error_plain(err, WGK_ERR_NOT_FOUND, "no file");
  *text = strdup(body);
  *len = strlen(body);
  return *text ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tmpl_loader loader = {load, NULL, NULL};
  util_error err;
  util_error_clear(&err);
  tmpl_template *t = tmpl_parse((const char *)data, size, "fuzz", &loader, &err);
  if (t) {
    expr_value *scope = expr_value_dict();
    expr_value_dict_set(scope, "n", expr_value_int(3));
    util_dynbuf out;
    util_dynbuf_init(&out, 1 << 20);
    tmpl_linemap map;
    tmpl_linemap_init(&map);
    tmpl_render_parsed(t, scope, &out, &map, &err);
    tmpl_linemap_free(&map);
    util_dynbuf_free(&out);
    expr_value_release(scope);
    tmpl_free(t);
  }
  return 0;
}
