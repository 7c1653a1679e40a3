#include "util/dynbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void util_dynbuf_init(util_dynbuf *b, size_t limit) {
  memset(b, 0, sizeof *b);
  b->limit = limit ? limit : WGK_DYNBUF_DEFAULT_LIMIT;
}

void util_dynbuf_free(util_dynbuf *b) {
  free(b->data);
  size_t limit = b->limit;
  util_dynbuf_init(b, limit);
}

void util_dynbuf_reset(util_dynbuf *b) {
  b->len = 0;
  b->failed = b->over = false;
  if (b->data) b->data[0] = '\0';
}

static bool reserve(util_dynbuf *b, size_t extra) {
  if (b->failed) return false;
  size_t limit = b->limit ? b->limit : WGK_DYNBUF_DEFAULT_LIMIT;
  if (extra > limit || b->len > limit - extra) {
    b->failed = b->over = true;
    return false;
  }
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->failed = true;
    return false;
  }
  b->data = p;
  b->cap = cap;
  return true;
}

bool util_dynbuf_append(util_dynbuf *b, const void *data, size_t len) {
  if (!reserve(b, len)) return false;
  if (len) memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
  return true;
}

bool util_dynbuf_append_str(util_dynbuf *b, const char *s) { return util_dynbuf_append(b, s, strlen(s)); }

bool util_dynbuf_append_char(util_dynbuf *b, char c) { return util_dynbuf_append(b, &c, 1); }

bool util_dynbuf_printf(util_dynbuf *b, const char *fmt, ...) {
  if (b->failed) return false;
  va_list ap;
  va_start(ap, fmt);
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->failed = true;
    return false;
  }
  if ((size_t)n < sizeof small) return util_dynbuf_append(b, small, (size_t)n);
  if (!reserve(b, (size_t)n)) return false;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return true;
}

char *util_dynbuf_take(util_dynbuf *b) {
  if (b->failed) {
    util_dynbuf_free(b);
    return NULL;
  }
  char *p = b->data;
  if (!p) {
    p = malloc(1);
    if (p) p[0] = '\0';
  }
  size_t limit = b->limit;
  util_dynbuf_init(b, limit);
  return p;
}

const char *util_dynbuf_str(const util_dynbuf *b) { return b->data ? b->data : ""; }
