/*
 * A growable byte buffer with a size cap and a sticky failure flag (after curl's dynbuf and SQLite's
 * sqlite3_str): appends after a failure do nothing, so a builder checks once at the end.
 * The content is always NUL-terminated.
 */
#ifndef WGK_UTIL_DYNBUF_H
#define WGK_UTIL_DYNBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct wgk_dynbuf {
  char *data;   /* NUL-terminated content, NULL until the first append */
  size_t len;   /* bytes used, not counting the NUL */
  size_t cap;   /* bytes allocated */
  size_t limit; /* largest len allowed; 0 means WGK_DYNBUF_DEFAULT_LIMIT */
  bool failed;  /* an append ran out of memory or past the limit */
  bool over;    /* the failure was the limit (else out of memory) */
} wgk_dynbuf;

#define WGK_DYNBUF_DEFAULT_LIMIT ((size_t)64 << 20)

void wgk_dynbuf_init(wgk_dynbuf *b, size_t limit);
void wgk_dynbuf_free(wgk_dynbuf *b);
void wgk_dynbuf_reset(wgk_dynbuf *b); /* keeps the allocation, clears content and failure */
bool wgk_dynbuf_append(wgk_dynbuf *b, const void *data, size_t len);
bool wgk_dynbuf_append_str(wgk_dynbuf *b, const char *s);
bool wgk_dynbuf_append_char(wgk_dynbuf *b, char c);
bool wgk_dynbuf_printf(wgk_dynbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the content to the caller (free() it) and resets the buffer; NULL if failed. */
char *wgk_dynbuf_take(wgk_dynbuf *b);
/* Content as a C string: "" when empty. Valid until the next append. */
const char *wgk_dynbuf_str(const wgk_dynbuf *b);

#endif
