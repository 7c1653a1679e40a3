/*
 * Errors as data. A util_error is caller-owned; the first error set wins (later ones are ignored until
 * util_error_clear), so the root cause is what the user sees. Every message has one shape:
 *
 *     source:line:column: path: message
 *
 * where source is a file (or "<expr>"), line/column are 1-based (0 = unknown, then omitted), and path is
 * the JSON path or the context (e.g. "derive.rank3Contract", "port X"), omitted when empty.
 */
#ifndef WGK_UTIL_ERROR_H
#define WGK_UTIL_ERROR_H

#include "wgk.h"
#include <stdarg.h>

#define WGK_ERROR_SOURCE_MAX 512
#define WGK_ERROR_PATH_MAX 256
#define WGK_ERROR_MESSAGE_MAX 2048

typedef struct util_error {
  wgk_status status;                   /* WGK_OK when no error is set */
  char source[WGK_ERROR_SOURCE_MAX];   /* file name or origin of the text in error */
  int line;                            /* 1-based line in source, 0 if unknown */
  int column;                          /* 1-based column in source, 0 if unknown */
  char path[WGK_ERROR_PATH_MAX];       /* JSON path or context inside the source */
  char message[WGK_ERROR_MESSAGE_MAX]; /* what is wrong, with the values involved */
} util_error;

void util_error_clear(util_error *err);
bool util_error_is_set(const util_error *err);

/* Sets the error unless one is already set. Returns status so callers can `return util_error_set(...)`.
 * source and path may be NULL. */
wgk_status util_error_set(util_error *err, wgk_status status, const char *source, int line, int column,
                          const char *path, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
wgk_status util_error_setv(util_error *err, wgk_status status, const char *source, int line, int column,
                           const char *path, const char *fmt, va_list ap);

/* A call that breaks a rule of the op: WGK_ERR_CALL with path naming the port ("positionIds (position_ids)"),
 * no source position (the caller wraps one in). Returns WGK_ERR_CALL (or the status already set). */
wgk_status util_error_refuse(util_error *err, const char *port, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefixes context to an error already set (e.g. the template file around an expression error),
 * filling source/line/column only where they are still empty. */
void util_error_wrap_source(util_error *err, const char *source, int line, int column, const char *path);

/* Writes the one-line form "source:line:column: path: message" into buf (always NUL-terminated). */
void util_error_format(const util_error *err, char *buf, size_t size);

#endif
