/* wgk eval EXPR [--scope FILE.json]: prints what `{{ EXPR }}` renders, then a newline. */
#include <jansson.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/say.h"
#include "expr/expr.h"
#include "plan/plan.h"

/* Every scope the loader builds has DISPATCH_FOLD_WIDTH (docs/expressions.md); a scope file may override it. */
static expr_value *with_builtins(expr_value *scope) {
  if (scope && !expr_value_dict_get(scope, "DISPATCH_FOLD_WIDTH") &&
      !expr_value_dict_set(scope, "DISPATCH_FOLD_WIDTH", expr_value_int(WGK_DISPATCH_FOLD_WIDTH))) {
    expr_value_release(scope);
    return NULL;
  }
  return scope;
}

/* Reads a scope file: a JSON object of variables; "device" becomes the device object. The loader's
 * built-in names (DISPATCH_FOLD_WIDTH) are added where the file does not give them. */
expr_value *cli_load_scope(const char *path, util_error *err) {
  expr_value *scope = NULL;
  if (!path) {
    if (!(scope = with_builtins(expr_value_dict()))) util_error_oom(err, NULL, NULL);
    return scope;
  }
  json_error_t jerr;
  json_t *j = json_load_file(path, 0, &jerr);
  if (!j) {
    util_error_at(err, WGK_ERR_PARSE, UTIL_POS(path, jerr), NULL, "%s", jerr.text);
    return NULL;
  }
  if (!json_is_object(j)) {
    util_error_in(err, WGK_ERR_PARSE, path, NULL, "the scope must be a JSON object");
  } else if ((scope = expr_value_from_json(j, err))) {
    json_t *dev = json_object_get(j, "device");
    if (json_is_object(dev)) {
      expr_value *d = expr_value_device_from_json(dev, err);
      if (!d || !expr_value_dict_set(scope, "device", d)) {
        expr_value_release(scope);
        scope = NULL;
      }
    }
  }
  if (scope && !(scope = with_builtins(scope))) util_error_oom(err, NULL, NULL);
  if (!scope) util_error_wrap(err, util_pos_make(path, 0, 0), NULL);
  json_decref(j);
  return scope;
}

/* A file to read must be a regular one: a folder, a FIFO or /dev/zero is refused before it is opened. */
static bool regular_file(const char *cmd, const char *what, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return cli_say("wgk %s: %s %s: %s\n", cmd, what, path, strerror(errno)), false;
  if (!S_ISREG(st.st_mode)) return cli_say("wgk %s: %s %s: not a regular file\n", cmd, what, path), false;
  return true;
}

int cli_cmd_eval(int argc, char **argv) {
  const char *expr = NULL, *scope_path = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--scope")) {
      if (i + 1 >= argc) {
        cli_say("wgk eval: --scope needs a value (a JSON file)\n");
        return 2;
      }
      if (scope_path) {
        cli_say("wgk eval: --scope given twice ('%s' and '%s'); give it once\n", scope_path, argv[i + 1]);
        return 2;
      }
      scope_path = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2]) {
      cli_say("wgk eval: unknown option '%s' (`wgk help eval`)\n", argv[i]);
      return 2;
    } else if (!expr) {
      expr = argv[i];
    } else {
      cli_say("wgk eval: unexpected argument '%s' (one EXPR only, already '%s')\n", argv[i], expr);
      return 2;
    }
  }
  if (!expr) return cli_usage("eval");
  if (scope_path && !regular_file("eval", "--scope", scope_path)) return 1;
  util_error err;
  util_error_clear(&err);
  util_dynbuf out;
  util_dynbuf_init(&out, 0);
  expr_value *scope = cli_load_scope(scope_path, &err);
  if (scope) expr_render(expr, scope, &out, &err);
  expr_value_release(scope);
  int rc = 0;
  if (util_error_is_set(&err)) {
    char msg[4096];
    util_error_format(&err, msg, sizeof msg);
    cli_say("wgk eval: %s\n", msg);
    rc = 1;
  } else {
    fwrite(util_dynbuf_str(&out), 1, out.len, stdout);
    fputc('\n', stdout);
  }
  util_dynbuf_free(&out);
  return rc;
}
