/* libFuzzer entry: parse and render arbitrary template text; includes resolve to a tiny fixed package. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "template/template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static wgk_status load(void *ud, const char *path, char **text, size_t *len, wgk_error *err) {
  (void)ud;
  const char *body = !strcmp(path, "a") ? "A{% include 'b' %}" : !strcmp(path, "b") ? "B{{ 1 + 1 }}" : NULL;
  if (!body) return wgk_error_set(err, WGK_ERR_NOT_FOUND, NULL, 0, 0, NULL, "no file");
  *text = strdup(body);
  *len = strlen(body);
  return *text ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wgk_tmpl_loader loader = {load, NULL};
  wgk_error err;
  wgk_error_clear(&err);
  wgk_tmpl *t = wgk_tmpl_parse((const char *)data, size, "fuzz", &loader, &err);
  if (t) {
    wgk_value *scope = wgk_value_dict();
    wgk_value_dict_set(scope, "n", wgk_value_int(3));
    wgk_dynbuf out;
    wgk_dynbuf_init(&out, 1 << 20);
    wgk_tmpl_linemap map;
    wgk_tmpl_linemap_init(&map);
    wgk_tmpl_render_parsed(t, scope, &out, &map, &err);
    wgk_tmpl_linemap_free(&map);
    wgk_dynbuf_free(&out);
    wgk_value_release(scope);
    wgk_tmpl_free(t);
  }
  return 0;
}
