/* wgk template FILE [--scope FILE.json]: renders a template (includes relative to its folder). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "template/template.h"

int wgk_cmd_template(int argc, char **argv) {
  const char *file = NULL, *scope_path = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--scope") && i + 1 < argc) scope_path = argv[++i];
    else if (!file) file = argv[i];
    else { fprintf(stderr, "usage: wgk template FILE [--scope FILE.json]\n"); return 2; }
  }
  if (!file) { fprintf(stderr, "usage: wgk template FILE [--scope FILE.json]\n"); return 2; }
  char *dir = strdup(file);
  if (!dir) return 1;
  char *slash = strrchr(dir, '/');
  const char *name = file;
  if (slash) { *slash = '\0'; name = slash + 1; } else { free(dir); dir = strdup("."); }
  wgk_error err;
  wgk_error_clear(&err);
  wgk_dynbuf out;
  wgk_dynbuf_init(&out, 0);
  wgk_tmpl_loader loader = wgk_tmpl_loader_dir(dir);
  wgk_value *scope = wgk_cli_load_scope(scope_path, &err);
  if (scope) wgk_tmpl_render(name, &loader, scope, &out, NULL, &err);
  wgk_value_release(scope);
  int rc = 0;
  if (wgk_error_is_set(&err)) {
    char msg[4096];
    wgk_error_format(&err, msg, sizeof msg);
    fprintf(stderr, "wgk template: %s\n", msg);
    rc = 1;
  } else {
    fwrite(wgk_dynbuf_str(&out), 1, out.len, stdout);
  }
  wgk_dynbuf_free(&out);
  free(dir);
  return rc;
}
