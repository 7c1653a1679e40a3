/* wgk template FILE [--scope FILE.json]: renders a template (includes relative to its folder). */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/say.h"
#include "template/template.h"

/* A file to read must be a regular one: a folder, a FIFO or /dev/zero is refused before it is opened. */
static bool regular_file(const char *cmd, const char *what, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return cli_say("wgk %s: %s %s: %s\n", cmd, what, path, strerror(errno)), false;
  if (!S_ISREG(st.st_mode)) return cli_say("wgk %s: %s %s: not a regular file\n", cmd, what, path), false;
  return true;
}

/* FILE and --scope FILE.json from argv: 0, or the exit status after saying what is wrong. */
static int parse_args(int argc, char **argv, const char **file, const char **scope_path) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--scope")) {
      if (i + 1 >= argc) {
        cli_say("wgk template: --scope needs a value (a JSON file)\n");
        return 2;
      }
      if (*scope_path) {
        cli_say("wgk template: --scope given twice ('%s' and '%s'); give it once\n", *scope_path, argv[i + 1]);
        return 2;
      }
      *scope_path = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2]) {
      cli_say("wgk template: unknown option '%s' (`wgk help template`)\n", argv[i]);
      return 2;
    } else if (!*file) {
      *file = argv[i];
    } else {
      cli_say("wgk template: unexpected argument '%s' (one FILE only, already '%s')\n", argv[i], *file);
      return 2;
    }
  }
  return 0;
}

/* Renders name, its includes read from dir, to stdout: 0, or 1 after saying why not. */
static int render(const char *dir, const char *name, const char *scope_path) {
  util_error err;
  util_error_clear(&err);
  util_dynbuf out;
  util_dynbuf_init(&out, 0);
  tmpl_loader loader = tmpl_loader_dir(dir);
  expr_value *scope = cli_load_scope(scope_path, &err);
  if (scope) tmpl_render(name, &loader, scope, &out, NULL, &err);
  expr_value_release(scope);
  int rc = 0;
  if (util_error_is_set(&err)) {
    char msg[4096];
    util_error_format(&err, msg, sizeof msg);
    cli_say("wgk template: %s\n", msg);
    rc = 1;
  } else {
    fwrite(util_dynbuf_str(&out), 1, out.len, stdout);
  }
  util_dynbuf_free(&out);
  return rc;
}

int cli_cmd_template(int argc, char **argv) {
  const char *file = NULL, *scope_path = NULL;
  int rc = parse_args(argc, argv, &file, &scope_path);
  if (rc != 0) return rc;
  if (!file) return cli_usage("template");
  if (scope_path && !regular_file("template", "--scope", scope_path)) return 1;
  if (!regular_file("template", "FILE", file)) return 1;
  const char *slash = strrchr(file, '/');
  char *dir = slash ? strndup(file, (size_t)(slash - file)) : strdup(".");
  if (!dir) return 1;
  rc = render(dir, slash ? slash + 1 : file, scope_path);
  free(dir);
  return rc;
}
