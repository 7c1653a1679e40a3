#include "util/error.h"

#include <stdio.h>
#include <string.h>

const char *wgk_status_str(wgk_status status) {
  /* A switch without default: the compiler flags a code without text. */
  switch (status) {
  case WGK_OK:
    return "ok";
  case WGK_ERR_INVALID_ARGUMENT:
    return "invalid argument";
  case WGK_ERR_OUT_OF_MEMORY:
    return "out of memory";
  case WGK_ERR_IO:
    return "i/o error";
  case WGK_ERR_PARSE:
    return "parse error";
  case WGK_ERR_MANIFEST:
    return "invalid manifest";
  case WGK_ERR_DIGEST:
    return "digest mismatch";
  case WGK_ERR_EVAL:
    return "evaluation error";
  case WGK_ERR_CALL:
    return "invalid call";
  case WGK_ERR_NO_VARIANT:
    return "no variant accepts the call";
  case WGK_ERR_NO_ADAPTER:
    return "no WebGPU adapter";
  case WGK_ERR_DEVICE:
    return "device error";
  case WGK_ERR_SHADER:
    return "shader compilation failed";
  case WGK_ERR_GPU:
    return "GPU error";
  case WGK_ERR_LIMIT:
    return "limit exceeded";
  case WGK_ERR_TIMEOUT:
    return "timed out";
  case WGK_ERR_UNSUPPORTED:
    return "unsupported";
  case WGK_ERR_NOT_FOUND:
    return "not found";
  }
  return "unknown status";
}

void util_error_clear(util_error *err) {
  if (err) memset(err, 0, sizeof *err);
}

bool util_error_is_set(const util_error *err) { return err && err->status != WGK_OK; }

/* Where every error is set: the helpers below all come here. */
wgk_status util_error_atv(util_error *err, wgk_status status, util_pos pos, const char *path, const char *fmt,
                          va_list ap) {
  if (!err || err->status != WGK_OK) return status;
  err->status = status;
  snprintf(err->source, sizeof err->source, "%s", pos.source ? pos.source : "");
  snprintf(err->path, sizeof err->path, "%s", path ? path : "");
  err->line = pos.line;
  err->column = pos.column;
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  return status;
}

wgk_status util_error_at(util_error *err, wgk_status status, util_pos pos, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  util_error_atv(err, status, pos, path, fmt, ap);
  va_end(ap);
  return status;
}

wgk_status util_error_in(util_error *err, wgk_status status, const char *source, const char *path, const char *fmt,
                         ...) {
  va_list ap;
  va_start(ap, fmt);
  util_error_atv(err, status, util_pos_make(source, 0, 0), path, fmt, ap);
  va_end(ap);
  return status;
}

wgk_status util_error_plain(util_error *err, wgk_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  util_error_atv(err, status, util_pos_make(NULL, 0, 0), NULL, fmt, ap);
  va_end(ap);
  return status;
}

wgk_status util_error_refuse(util_error *err, const char *port, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wgk_status st = util_error_atv(err, WGK_ERR_CALL, util_pos_make(NULL, 0, 0), port, fmt, ap);
  va_end(ap);
  return st;
}

wgk_status util_error_oom(util_error *err, const char *source, const char *path) {
  return util_error_in(err, WGK_ERR_OUT_OF_MEMORY, source, path, "%s", wgk_status_str(WGK_ERR_OUT_OF_MEMORY));
}

void util_error_wrap(util_error *err, util_pos pos, const char *path) {
  if (!err || err->status == WGK_OK) return;
  if (pos.source && !err->source[0]) snprintf(err->source, sizeof err->source, "%s", pos.source);
  if (pos.line && !err->line) {
    err->line = pos.line;
    err->column = pos.column;
  }
  if (path && !err->path[0]) snprintf(err->path, sizeof err->path, "%s", path);
}

void util_error_relocate(util_error *err, util_pos pos, const char *path) {
  if (!err || err->status == WGK_OK) return;
  snprintf(err->source, sizeof err->source, "%s", pos.source ? pos.source : "");
  err->line = pos.line;
  err->column = pos.column;
  if (path) snprintf(err->path, sizeof err->path, "%s", path);
}

void util_error_append(util_error *err, const char *fmt, ...) {
  if (!err || err->status == WGK_OK) return;
  size_t used = strlen(err->message);
  if (used + 1 >= sizeof err->message) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message + used, sizeof err->message - used, fmt, ap);
  va_end(ap);
}

void util_error_format(const util_error *err, char *buf, size_t size) {
  if (!buf || size == 0) return;
  buf[0] = '\0';
  if (!err) return;
  size_t n = 0;
#define APPEND(...)                                                   \
  do {                                                                \
    int k_ = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__); \
    if (k_ > 0) n += (size_t)k_;                                      \
  } while (0)
  if (err->source[0]) {
    APPEND("%s", err->source);
    if (err->line > 0) APPEND(":%d", err->line);
    if (err->line > 0 && err->column > 0) APPEND(":%d", err->column);
    APPEND(": ");
  }
  if (err->path[0]) APPEND("%s: ", err->path);
  APPEND("%s", err->message[0] ? err->message : wgk_status_str(err->status));
#undef APPEND
}
