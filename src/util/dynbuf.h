/*
 * A growable byte buffer with a size cap and a sticky failure flag (after curl's dynbuf and SQLite's
 * sqlite3_str): appends after a failure do nothing, so a builder checks once at the end.
 * The content is always NUL-terminated.
 */
#ifndef WGK_UTIL_DYNBUF_H
#define WGK_UTIL_DYNBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct util_dynbuf {
  char *data;   /* NUL-terminated content, NULL until the first append */
  size_t len;   /* bytes used, not counting the NUL */
  size_t cap;   /* bytes allocated */
  size_t limit; /* largest len allowed; 0 means WGK_DYNBUF_DEFAULT_LIMIT */
  bool failed;  /* an append ran out of memory or past the limit */
  bool over;    /* the failure was the limit (else out of memory) */
} util_dynbuf;

#define WGK_DYNBUF_DEFAULT_LIMIT ((size_t)64 << 20)

void util_dynbuf_init(util_dynbuf *b, size_t limit);
void util_dynbuf_free(util_dynbuf *b);
void util_dynbuf_reset(util_dynbuf *b); /* keeps the allocation, clears content and failure */
bool util_dynbuf_append(util_dynbuf *b, const void *data, size_t len);
bool util_dynbuf_append_str(util_dynbuf *b, const char *s);
bool util_dynbuf_append_char(util_dynbuf *b, char c);
bool util_dynbuf_printf(util_dynbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the content to the caller (free() it) and resets the buffer; NULL if failed. */
char *util_dynbuf_take(util_dynbuf *b);
/* Content as a C string: "" when empty. Valid until the next append. */
const char *util_dynbuf_str(const util_dynbuf *b);

#endif
