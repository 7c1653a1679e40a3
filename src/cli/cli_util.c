/* Helpers shared by the subcommands; see cli_util.h. */
#include "cli/cli_util.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "package/package.h"
#include "runtime/runtime_access.h"

const char *cli_value(const char *cmd, int argc, char **argv, int *i) {
  if (*i + 1 >= argc) {
    cli_error(cmd, "%s needs a value", argv[*i]);
    return NULL;
  }
  const char *v = argv[*i + 1];
  if (v[0] == '-' && v[1] == '-' && v[2]) {
    cli_error(cmd, "%s needs a value, not the option '%s'", argv[*i], v);
    return NULL;
  }
  return argv[++*i];
}

bool cli_once(const char *cmd, const char *opt, const char **slot, const char *v) {
  if (!v) return false;
  if (*slot) return cli_error(cmd, "%s given twice ('%s' and '%s'); give it once", opt, *slot, v), false;
  *slot = v;
  return true;
}

bool cli_int(const char *cmd, const char *opt, const char *v, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long n = v && *v && !isspace((unsigned char)*v) ? strtoll(v, &end, 10) : 0;
  if (!v || !*v || isspace((unsigned char)*v) || errno || *end || n < lo || n > hi)
    return cli_error(cmd, "%s takes an integer in [%lld, %lld], not '%s'", opt, lo, hi, v ? v : ""), false;
  *out = n;
  return true;
}

bool cli_kv_list_ok(const char *cmd, const char *opt, const char *const *list, int n, size_t key_size,
                    bool allow_empty) {
  for (int i = 0; i < n; i++) {
    const char *eq = strchr(list[i], '=');
    if (!eq || eq == list[i])
      return cli_error(cmd, "%s takes %s, not '%s'", opt, strcmp(opt, "--in") == 0 ? "port=FILE.npy" : "KEY=VALUE",
                       list[i]),
             false;
    size_t k = (size_t)(eq - list[i]);
    if (k >= key_size)
      return cli_error(cmd, "%s: the key of '%.40s...' is longer than %zu bytes", opt, list[i], key_size - 1), false;
    if (!allow_empty && !eq[1])
      return cli_error(cmd, "%s %.*s=: no value given for '%.*s'%s", opt, (int)k, list[i], (int)k, list[i],
                       strcmp(opt, "--in") == 0 ? " (give the .npy file: port=FILE.npy)" : ""),
             false;
    for (int j = 0; j < i; j++)
      if (strncmp(list[j], list[i], k + 1) == 0)
        return cli_error(cmd, "%s %.*s given twice ('%s' and '%s'); give each key once", opt, (int)k, list[i],
                         list[j] + k + 1, eq + 1),
               false;
  }
  return true;
}

/* The folder part of path ("." when none). */
static void parent_of(const char *path, char *buf, size_t size) {
  snprintf(buf, size, "%s", path);
  size_t n = strlen(buf);
  while (n > 1 && buf[n - 1] == '/') buf[--n] = 0;
  char *slash = strrchr(buf, '/');
  if (!slash)
    snprintf(buf, size, ".");
  else if (slash == buf)
    buf[1] = 0;
  else
    *slash = 0;
}

static bool writable_dir(const char *cmd, const char *opt, const char *path, const char *dir) {
  struct stat st;
  if (stat(dir, &st) != 0)
    return cli_error(cmd, "%s %s: the folder %s does not exist (%s)", opt, path, dir, strerror(errno)), false;
  if (!S_ISDIR(st.st_mode)) return cli_error(cmd, "%s %s: %s is not a folder", opt, path, dir), false;
  if (access(dir, W_OK | X_OK) != 0)
    return cli_error(cmd, "%s %s: the folder %s is not writable (%s)", opt, path, dir, strerror(errno)), false;
  return true;
}

bool cli_check_out_dir(const char *cmd, const char *opt, const char *path) {
  struct stat st;
  char parent[4096];
  if (!*path) return cli_error(cmd, "%s: an empty folder name", opt), false;
  if (strlen(path) > WGK_CLI_MAX_PATH)
    return cli_error(cmd, "%s: the folder name is %zu bytes, above the limit of %d", opt, strlen(path),
                     WGK_CLI_MAX_PATH),
           false;
  if (stat(path, &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      return cli_error(cmd, "%s %s: exists and is not a folder; %s names a folder to write outputs into", opt, path,
                       opt),
             false;
    return writable_dir(cmd, opt, path, path);
  }
  const char *base = strrchr(path, '/');
  if (strchr(base ? base + 1 : path, '='))
    return cli_error(cmd,
                     "%s takes a folder to write every output into as <port>.npy, not '%s' (a new folder "
                     "named like port=FILE is refused as a likely mistake; create it first to mean it)",
                     opt, path),
           false;
  parent_of(path, parent, sizeof parent);
  return writable_dir(cmd, opt, path, parent);
}

bool cli_check_out_file(const char *cmd, const char *opt, const char *path) {
  struct stat st;
  char parent[4096];
  if (!*path) return cli_error(cmd, "%s: an empty file name", opt), false;
  if (strlen(path) > WGK_CLI_MAX_PATH)
    return cli_error(cmd, "%s: the file name is %zu bytes, above the limit of %d", opt, strlen(path), WGK_CLI_MAX_PATH),
           false;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return cli_error(cmd, "%s %s: is a folder; %s names a file to write", opt, path, opt), false;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    return cli_error(cmd, "%s %s: exists and is not a regular file", opt, path), false;
  parent_of(path, parent, sizeof parent);
  return writable_dir(cmd, opt, path, parent);
}

static bool is_hex40(const char *s) {
  size_t n = 0;
  for (; s[n]; n++)
    if (!strchr("0123456789abcdefABCDEF", s[n])) return false;
  return n == 40;
}

int cli_common_option(const char *cmd, int argc, char **argv, int *i, cli_common *o) {
  const char *a = argv[*i], *v;
  if (strcmp(a, "--strict") == 0) return o->strict = true, 1;
  if (strcmp(a, "--trust-remote-code") == 0) return o->trust_remote_code = true, 1;
  if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) return o->verbose = true, 1;
  if (strcmp(a, "--adapter") == 0) {
    if (!(v = cli_value(cmd, argc, argv, i)) || !cli_once(cmd, a, &o->adapter, v)) return -1;
    if (!*v) return cli_error(cmd, "--adapter takes an adapter index or a name substring, not ''"), -1;
    return 1;
  }
  if (strcmp(a, "--revision") == 0) {
    if (!(v = cli_value(cmd, argc, argv, i))) return -1;
    if (!is_hex40(v)) return cli_error(cmd, "--revision takes a 40-hex commit, not '%s'", v), -1;
    if (!cli_once(cmd, a, &o->revision, v)) return -1;
    return 1;
  }
  if (strcmp(a, "--version") == 0) {
    if (!(v = cli_value(cmd, argc, argv, i))) return -1;
    long long n;
    if (o->version) return cli_error(cmd, "--version given twice (%d and '%s'); give it once", o->version, v), -1;
    if (!cli_int(cmd, "--version", v, 1, 1000000, &n)) return -1;
    o->version = (int)n;
    return 1;
  }
  return 0;
}

bool cli_split_kv(const char *arg, char *key_buf, size_t key_size, const char **value) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || (size_t)(eq - arg) >= key_size) return false;
  memcpy(key_buf, arg, (size_t)(eq - arg));
  key_buf[eq - arg] = '\0';
  *value = eq + 1;
  return true;
}

bool cli_parse_shape(const char *text, int *rank, int64_t *dims, util_error *why) {
  *rank = 0;
  if (!text[0] || strcmp(text, "scalar") == 0) return true;
  const char *p = text;
  for (;;) {
    if (*rank >= WGK_MAX_DIMS)
      return util_error_plain(why, WGK_ERR_INVALID_ARGUMENT, "more than WGK_MAX_DIMS = %d dims", WGK_MAX_DIMS), false;
    if (*p < '0' || *p > '9')
      return util_error_plain(why, WGK_ERR_INVALID_ARGUMENT,
                              "dim %d: expected a non-negative integer at '%s' (dims are like 2x4x3x8; "
                              "scalar: PORT=)",
                              *rank, p),
             false;
    const char *start = p;
    unsigned long long d = 0;
    bool big = false;
    for (; *p >= '0' && *p <= '9'; p++) {
      if (d > (unsigned long long)WGK_CLI_MAX_EXACT)
        big = true;
      else
        d = d * 10 + (unsigned long long)(*p - '0');
    }
    if (big || d > (unsigned long long)WGK_CLI_MAX_EXACT)
      return util_error_plain(why, WGK_ERR_INVALID_ARGUMENT, "dim %d (%.*s) is above the limit of 2^53 = %lld", *rank,
                              (int)(p - start), start, WGK_CLI_MAX_EXACT),
             false;
    dims[(*rank)++] = (int64_t)d;
    if (!*p) return true;
    if (*p != 'x' && *p != ',')
      return util_error_plain(why, WGK_ERR_INVALID_ARGUMENT,
                              "unexpected '%c' after dim %d (dims are like 2x4x3x8; scalar: PORT=)", *p, *rank - 1),
             false;
    p++;
  }
}

int cli_print_json(const char *cmd, json_t *doc, size_t flags) {
  char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | flags) : NULL;
  json_decref(doc);
  if (!text) return cli_error(cmd, "%s", wgk_status_str(WGK_ERR_OUT_OF_MEMORY)), 1;
  printf("%s\n", text);
  free(text);
  return 0;
}

bool cli_write_json(const char *cmd, const char *path, json_t *doc) {
  if (!doc) return cli_error(cmd, "%s", wgk_status_str(WGK_ERR_OUT_OF_MEMORY)), false;
  bool ok = json_dump_file(doc, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0;
  json_decref(doc);
  if (!ok) cli_error(cmd, "cannot write %s", path);
  return ok;
}

char *cli_value_json(const char *v) {
  json_error_t jerr;
  json_t *j = json_loads(v, JSON_DECODE_ANY, &jerr);
  if (!j) j = json_string(v);
  char *text = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
  json_decref(j);
  return text;
}

/* A JSON integer past 2^53 somewhere in v: its text in buf. */
static bool inexact_integer(const json_t *v, char *buf, size_t size) {
  if (json_is_integer(v)) {
    json_int_t n = json_integer_value(v);
    if (n > WGK_CLI_MAX_EXACT || n < -WGK_CLI_MAX_EXACT) return snprintf(buf, size, "%lld", (long long)n), true;
    return false;
  }
  size_t i;
  const char *k;
  json_t *e;
  if (json_is_array(v)) json_array_foreach((json_t *)v, i, e) if (inexact_integer(e, buf, size)) return true;
  if (json_is_object(v)) json_object_foreach((json_t *)v, k, e) if (inexact_integer(e, buf, size)) return true;
  return false;
}

/* Text strtod reads whole as a number (so the caller meant a number): "1e400", "nan", "99999999999999999999". */
static bool looks_numeric(const char *v) {
  char *end;
  if (!*v || isspace((unsigned char)*v)) return false;
  (void)strtod(v, &end);
  return *end == 0;
}

char *cli_value_json_checked(const char *cmd, const char *opt, const char *key, const char *v) {
  json_error_t jerr;
  json_t *j = json_loads(v, JSON_DECODE_ANY, &jerr);
  char big[64];
  if (j && inexact_integer(j, big, sizeof big)) {
    json_decref(j);
    cli_error(cmd, "%s %s=%s: %s is not exactly representable (integers are limited to +-2^53 = %lld)", opt, key, v,
              big, WGK_CLI_MAX_EXACT);
    return NULL;
  }
  if (!j && looks_numeric(v)) {
    cli_error(cmd, "%s %s=%s: not a number wgk can hold exactly (a finite double; integers up to +-2^53)", opt, key, v);
    return NULL;
  }
  json_decref(j);
  char *text = cli_value_json(v);
  if (!text) cli_error(cmd, "%s %s: %s", opt, key, wgk_status_str(WGK_ERR_OUT_OF_MEMORY));
  return text;
}

bool cli_open(const char *cmd, const cli_common *o, pkg_package *pkg, wgk_context **ctx, wgk_kernel **kernel) {
  *ctx = NULL;
  *kernel = NULL;
  if (!pkg) return false; /* cli_pkg_open printed why */
  wgk_context_options co = {.adapter = o->adapter, .log = cli_log};
  char *msg = NULL;
  if (wgk_context_create(&co, ctx, &msg) != WGK_OK) {
    cli_error(cmd, "%s", msg ? msg : "cannot create a WebGPU context");
    free(msg);
    pkg_free(pkg);
    return false;
  }
  if (!cli_load(cmd, pkg, *ctx, kernel)) {
    wgk_context_destroy(*ctx);
    *ctx = NULL;
    return false;
  }
  return true;
}

bool cli_load(const char *cmd, pkg_package *pkg, wgk_context *ctx, wgk_kernel **kernel) {
  *kernel = NULL;
  if (rt_kernel_load_package(ctx, pkg, kernel) != WGK_OK) {
    cli_error(cmd, "%s", wgk_context_errmsg(ctx));
    return false;
  }
  const char *warning = wgk_kernel_warning(*kernel);
  if (warning) cli_say("wgk %s: warning: %s\n", cmd, warning);
  return true;
}

struct pkg_package *cli_pkg_open(const char *cmd, const cli_common *o, const char *name) {
  pkg_options po = {.strict = o->strict,
                    .version = o->version,
                    .revision = o->revision,
                    .trust_remote_code = o->trust_remote_code,
                    .log = &cli_log_sink};
  pkg_package *pkg = NULL;
  util_error err = {0};
  if (pkg_open(name, &po, &pkg, &err) != WGK_OK) {
    char text[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(&err, text, sizeof text);
    cli_error(cmd, "%s", text);
    return NULL;
  }
  return pkg;
}
