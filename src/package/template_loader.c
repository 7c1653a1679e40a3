/* Templates read through the package, so each one is digest-checked before the renderer sees it. */
#include <stdlib.h>
#include <string.h>

#include "package/package.h"
#include "package/template_loader.h"

static wgk_status load_template(void *ud, const char *path, char **text, size_t *len, util_error *err) {
  const char *data;
  size_t n;
  wgk_status st = pkg_read_file((pkg_package *)ud, path, &data, &n, err);
  if (st != WGK_OK) return st;
  *text = malloc(n + 1);
  if (!*text) return util_error_oom(err, path, NULL);
  memcpy(*text, data, n);
  (*text)[n] = '\0';
  *len = n;
  return WGK_OK;
}

/* A template path near a missing one, among the files of the package's build/webgpu folder. */
static bool nearest_template(void *ud, const char *path, char *buf, size_t size) {
  return tmpl_nearest_in_dir(pkg_dir((pkg_package *)ud), path, buf, size);
}

tmpl_loader pkg_template_loader(pkg_package *pkg) {
  return (tmpl_loader){.load = load_template, .ud = pkg, .nearest = nearest_template};
}
