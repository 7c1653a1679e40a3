/* Templates read through the package, so each one is digest-checked before the renderer sees it. */
#include <stdlib.h>
#include <string.h>

#include "package/package.h"
#include "package/template_loader.h"

static wgk_status load_template(void *ud, const char *path, char **text, size_t *len, wgk_error *err) {
  const char *data;
  size_t n;
  wgk_status st = wgk_pkg_read_file((wgk_pkg *)ud, path, &data, &n, err);
  if (st != WGK_OK) return st;
  *text = malloc(n + 1);
  if (!*text) return wgk_error_set(err, WGK_ERR_OUT_OF_MEMORY, path, 0, 0, NULL, "out of memory");
  memcpy(*text, data, n);
  (*text)[n] = '\0';
  *len = n;
  return WGK_OK;
}

wgk_tmpl_loader wgk_pkg_template_loader(wgk_pkg *pkg) { return (wgk_tmpl_loader){.load = load_template, .ud = pkg}; }
