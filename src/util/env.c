/* The environment, read in one place (util/env.h). */
#include "util/env.h"

#include <stdlib.h>
#include <string.h>

/* v as it may be printed: control and non-ASCII bytes as \xNN, cut to fit size with "...". */
static void shown_value(const char *v, char *out, size_t size) {
  static const char hex[] = "0123456789abcdef";
  size_t o = 0;
  for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
    if (o + 8 >= size) {
      memcpy(out + o, "...", 3);
      o += 3;
      break;
    }
    if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\') {
      out[o++] = '\\', out[o++] = 'x', out[o++] = hex[*p >> 4], out[o++] = hex[*p & 15];
    } else {
      out[o++] = (char)*p;
    }
  }
  out[o] = '\0';
}

const char *util_env(const char *name) {
  const char *v = name ? getenv(name) : NULL;
  return v && *v ? v : NULL;
}

bool util_env_parse_int(const char *text, int64_t lo, int64_t hi, int64_t *out) {
  if (!text || !*text || strlen(text) > 19) return false; /* 19 digits: below 2^63 */
  int64_t n = 0;
  for (const char *p = text; *p; p++) {
    if (*p < '0' || *p > '9') return false;
    n = n * 10 + (*p - '0');
  }
  if (n < lo || n > hi) return false;
  *out = n;
  return true;
}

wgk_status util_env_int(const char *name, int64_t lo, int64_t hi, int64_t *value, util_error *err) {
  const char *v = util_env(name);
  if (!v || util_env_parse_int(v, lo, hi, value)) return WGK_OK;
  char shown[48];
  shown_value(v, shown, sizeof shown);
  return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT,
                          "environment variable %s: must be a whole number from %lld to %lld, not \"%s\"", name,
                          (long long)lo, (long long)hi, shown);
}

wgk_status util_env_flag(const char *name, bool *value, util_error *err) {
  const char *v = util_env(name);
  if (!v) return WGK_OK;
  if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) {
    *value = v[0] == '1';
    return WGK_OK;
  }
  char shown[48];
  shown_value(v, shown, sizeof shown);
  return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT,
                          "environment variable %s: must be 0 (off) or 1 (on), not \"%s\"", name, shown);
}
