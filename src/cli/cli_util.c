/* Helpers shared by the subcommands; see cli_util.h. */
#include "cli/cli_util.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void wgk_cli_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "wgk %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

const char *wgk_cli_value(const char *cmd, int argc, char **argv, int *i) {
  if (*i + 1 >= argc) {
    wgk_cli_error(cmd, "%s needs a value", argv[*i]);
    return NULL;
  }
  return argv[++*i];
}

static bool is_hex40(const char *s) {
  size_t n = 0;
  for (; s[n]; n++)
    if (!strchr("0123456789abcdefABCDEF", s[n])) return false;
  return n == 40;
}

int wgk_cli_common_option(const char *cmd, int argc, char **argv, int *i, wgk_cli_common *o) {
  const char *a = argv[*i], *v;
  if (strcmp(a, "--strict") == 0) return o->strict = true, 1;
  if (strcmp(a, "--trust-remote-code") == 0) return o->trust_remote_code = true, 1;
  if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) return o->verbose = true, 1;
  if (strcmp(a, "--adapter") == 0) return (o->adapter = wgk_cli_value(cmd, argc, argv, i)) ? 1 : -1;
  if (strcmp(a, "--revision") == 0) {
    if (!(v = wgk_cli_value(cmd, argc, argv, i))) return -1;
    if (!is_hex40(v)) return wgk_cli_error(cmd, "--revision takes a 40-hex commit, not '%s'", v), -1;
    o->revision = v;
    return 1;
  }
  if (strcmp(a, "--version") == 0) {
    if (!(v = wgk_cli_value(cmd, argc, argv, i))) return -1;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || n < 1 || n > 1000000) return wgk_cli_error(cmd, "--version takes an integer >= 1, not '%s'", v), -1;
    o->version = (int)n;
    return 1;
  }
  return 0;
}

bool wgk_cli_split_kv(const char *arg, char *key_buf, size_t key_size, const char **value) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || (size_t)(eq - arg) >= key_size) return false;
  memcpy(key_buf, arg, (size_t)(eq - arg));
  key_buf[eq - arg] = '\0';
  *value = eq + 1;
  return true;
}

bool wgk_cli_parse_shape(const char *text, int *rank, int64_t *dims) {
  *rank = 0;
  if (!text[0] || strcmp(text, "scalar") == 0) return true;
  const char *p = text;
  for (;;) {
    char *end;
    errno = 0;
    if (*p < '0' || *p > '9' || *rank >= WGK_MAX_DIMS) return false;
    long long d = strtoll(p, &end, 10);
    if (errno || d < 0) return false;
    dims[(*rank)++] = d;
    if (!*end) return true;
    if (*end != 'x' && *end != ',') return false;
    p = end + 1;
  }
}

char *wgk_cli_value_json(const char *v) {
  json_error_t jerr;
  json_t *j = json_loads(v, JSON_DECODE_ANY, &jerr);
  if (!j) j = json_string(v);
  char *text = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
  json_decref(j);
  return text;
}

bool wgk_cli_open(const char *cmd, const wgk_cli_common *o, const char *pkg, wgk_context **ctx, wgk_kernel **kernel) {
  *ctx = NULL;
  *kernel = NULL;
  wgk_context_options co = {.adapter = o->adapter};
  char *msg = NULL;
  if (wgk_context_create(&co, ctx, &msg) != WGK_OK) {
    wgk_cli_error(cmd, "%s", msg ? msg : "cannot create a WebGPU context");
    free(msg);
    return false;
  }
  wgk_kernel_options ko = {.version = o->version, .revision = o->revision, .strict = o->strict,
                            .trust_remote_code = o->trust_remote_code};
  if (wgk_kernel_load(*ctx, pkg, &ko, kernel) != WGK_OK) {
    wgk_cli_error(cmd, "%s", wgk_context_errmsg(*ctx));
    wgk_context_destroy(*ctx);
    *ctx = NULL;
    return false;
  }
  const char *warning = wgk_kernel_warning(*kernel);
  if (warning) fprintf(stderr, "wgk %s: warning: %s\n", cmd, warning);
  return true;
}

double wgk_cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
