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

/* Where an error is: the source (a file, a URL, "<expr>"; NULL when none) and a 1-based line and column
 * in it (0 = unknown, then omitted). Readers keep line and column per JSON value (manifest_pos, tc_pos,
 * util_manifest_jpos_entry, a jansson json_error_t); UTIL_POS takes them from such a value. */
typedef struct util_pos {
  const char *source;
  int line;
  int column;
} util_pos;

/* The position of v (anything with int members line and column) in source. */
#define UTIL_POS(source, v) ((util_pos){(source), (v).line, (v).column})

static inline util_pos util_pos_make(const char *source, int line, int column) {
  return (util_pos){source, line, column};
}

/* The one error path. Each sets the error unless one is already set and returns status, so callers can
 * `return util_error_at(...)`. path (the JSON path or a context such as a repo id) may be NULL.
 *
 *   util_error_plain  no source:                     "message" or "path: message" with util_error_in(NULL, path)
 *   util_error_in     a source without a line:      "source: path: message"
 *   util_error_at     a position:                   "source:line:column: path: message"
 *   util_error_value  the position and path of the value read (v.line, v.column, v.path), e.g. a->pos */
wgk_status util_error_plain(util_error *err, wgk_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
wgk_status util_error_in(util_error *err, wgk_status status, const char *source, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
wgk_status util_error_at(util_error *err, wgk_status status, util_pos pos, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
wgk_status util_error_atv(util_error *err, wgk_status status, util_pos pos, const char *path, const char *fmt,
                          va_list ap) __attribute__((format(printf, 5, 0)));
#define util_error_value(err, status, source, v, ...) \
  util_error_at((err), (status), UTIL_POS((source), (v)), (v).path, __VA_ARGS__)

/* A call that breaks a rule of the op: WGK_ERR_CALL with path naming the port ("positionIds (position_ids)"),
 * no source position (the caller wraps one in). Returns WGK_ERR_CALL (or the status already set). */
wgk_status util_error_refuse(util_error *err, const char *port, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The one out-of-memory error: WGK_ERR_OUT_OF_MEMORY with the message "out of memory", in source (NULL when none)
 * at path (what was being built, e.g. an op id or "planning a pass"; NULL when none). Returns
 * WGK_ERR_OUT_OF_MEMORY, so callers can `return util_error_oom(...)`. */
wgk_status util_error_oom(util_error *err, const char *source, const char *path);

/* Prefixes context to an error already set (e.g. the template file around an expression error),
 * filling the source, the line and column, and the path only where they are still empty. */
void util_error_wrap(util_error *err, util_pos pos, const char *path);

/* Moves an error set inside generated or embedded text (an expression's text, rendered WGSL) to where that text
 * came from: replaces source, line and column by pos, and the path by path unless it is NULL. No-op when no error
 * is set. */
void util_error_relocate(util_error *err, util_pos pos, const char *path);

/* Appends to the message of an error already set (context found on the way out, e.g. " (not split: ...)"). */
void util_error_append(util_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes the one-line form "source:line:column: path: message" into buf (always NUL-terminated). */
void util_error_format(const util_error *err, char *buf, size_t size);

#endif
