#include "util/json_pos.h"

#include <stdlib.h>
#include <string.h>

#define PATH_LIMIT ((size_t)1 << 20)
#define DEPTH_LIMIT 4096 /* above jansson's own parser depth limit, so never hit on accepted text */

typedef struct scanner {
  const char *text;        /* the JSON text */
  size_t len;              /* its length */
  size_t pos;              /* next byte */
  int line;                /* line of the next byte */
  int column;              /* column of the next byte (characters) */
  util_manifest_jpos *idx; /* index being built */
  util_dynbuf path;        /* path of the value being scanned */
  wgk_status status;       /* first failure */
} scanner;

static bool is_plain_key(const char *key) {
  if (!*key) return false;
  for (const char *p = key; *p; p++) {
    char c = *p;
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool util_manifest_path_key(util_dynbuf *path, const char *key) {
  if (!is_plain_key(key)) return util_dynbuf_printf(path, "[\"%s\"]", key);
  if (path->len > 0) util_dynbuf_append_char(path, '.');
  return util_dynbuf_append_str(path, key);
}

bool util_manifest_path_index(util_dynbuf *path, size_t i) { return util_dynbuf_printf(path, "[%zu]", i); }

size_t util_manifest_path_push_key(util_dynbuf *path, const char *key) {
  size_t mark = path->len;
  util_manifest_path_key(path, key);
  return mark;
}

size_t util_manifest_path_push_index(util_dynbuf *path, size_t i) {
  size_t mark = path->len;
  util_manifest_path_index(path, i);
  return mark;
}

void util_manifest_path_pop(util_dynbuf *path, size_t mark) {
  if (path->data && mark <= path->len) {
    path->len = mark;
    path->data[mark] = '\0';
  }
}

static void advance(scanner *s) {
  unsigned char c = (unsigned char)s->text[s->pos++];
  if (c == '\n') {
    s->line++;
    s->column = 1;
  } else if ((c & 0xC0) != 0x80) {
    s->column++; /* count a UTF-8 sequence once, at its lead byte */
  }
}

static int peek(const scanner *s) { return s->pos < s->len ? (unsigned char)s->text[s->pos] : -1; }

static void skip_ws(scanner *s) {
  while (peek(s) == ' ' || peek(s) == '\t' || peek(s) == '\n' || peek(s) == '\r') advance(s);
}

static bool fail(scanner *s, wgk_status st) {
  if (s->status == WGK_OK) s->status = st;
  return false;
}

static bool add_entry(scanner *s, int key_line, int key_column) {
  util_manifest_jpos *idx = s->idx;
  if (idx->n == idx->cap) {
    size_t cap = idx->cap ? idx->cap * 2 : 256;
    util_manifest_jpos_entry *e = realloc(idx->entries, cap * sizeof *e);
    if (!e) return fail(s, WGK_ERR_OUT_OF_MEMORY);
    idx->entries = e;
    idx->cap = cap;
  }
  char *path = strdup(util_dynbuf_str(&s->path));
  if (!path || s->path.failed) {
    free(path);
    return fail(s, WGK_ERR_OUT_OF_MEMORY);
  }
  idx->entries[idx->n++] = (util_manifest_jpos_entry){path, s->line, s->column, key_line, key_column};
  return true;
}

static int hex4(const char *p) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    int d = (c >= '0' && c <= '9')   ? c - '0'
            : (c >= 'a' && c <= 'f') ? c - 'a' + 10
            : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                     : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

static void put_utf8(util_dynbuf *b, unsigned cp) {
  if (cp < 0x80) {
    util_dynbuf_append_char(b, (char)cp);
  } else if (cp < 0x800) {
    util_dynbuf_append_char(b, (char)(0xC0 | (cp >> 6)));
    util_dynbuf_append_char(b, (char)(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    util_dynbuf_append_char(b, (char)(0xE0 | (cp >> 12)));
    util_dynbuf_append_char(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
    util_dynbuf_append_char(b, (char)(0x80 | (cp & 0x3F)));
  } else {
    util_dynbuf_append_char(b, (char)(0xF0 | (cp >> 18)));
    util_dynbuf_append_char(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
    util_dynbuf_append_char(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
    util_dynbuf_append_char(b, (char)(0x80 | (cp & 0x3F)));
  }
}

/* Decodes one escape after the backslash (s->pos at the letter) into out. */
static bool scan_escape(scanner *s, util_dynbuf *out) {
  int c = peek(s);
  static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
  const char *hit = c > 0 ? strchr(from, c) : NULL;
  if (hit) {
    util_dynbuf_append_char(out, to[hit - from]);
    advance(s);
    return true;
  }
  if (c != 'u' || s->pos + 5 > s->len) return fail(s, WGK_ERR_PARSE);
  int cp = hex4(s->text + s->pos + 1);
  if (cp < 0) return fail(s, WGK_ERR_PARSE);
  for (int i = 0; i < 5; i++) advance(s);
  unsigned code = (unsigned)cp;
  if (cp >= 0xD800 && cp < 0xDC00 && s->pos + 6 <= s->len && s->text[s->pos] == '\\' && s->text[s->pos + 1] == 'u') {
    int lo = hex4(s->text + s->pos + 2);
    if (lo >= 0xDC00 && lo < 0xE000) {
      code = 0x10000 + (((unsigned)cp - 0xD800) << 10) + ((unsigned)lo - 0xDC00);
      for (int i = 0; i < 6; i++) advance(s);
    }
  }
  put_utf8(out, code);
  return true;
}

/* Scans a string starting at its quote; its decoded text goes to out when out is not NULL. */
static bool scan_string(scanner *s, util_dynbuf *out) {
  advance(s); /* opening quote */
  for (;;) {
    int c = peek(s);
    if (c < 0) return fail(s, WGK_ERR_PARSE);
    advance(s);
    if (c == '"') return true;
    if (c == '\\') {
      util_dynbuf scratch;
      util_dynbuf_init(&scratch, 16);
      bool ok = scan_escape(s, out ? out : &scratch);
      util_dynbuf_free(&scratch);
      if (!ok) return false;
    } else if (out) {
      util_dynbuf_append_char(out, (char)c);
    }
  }
}

static bool scan_value(scanner *s, int key_line, int key_column, int depth);

static bool scan_members(scanner *s, int depth) {
  advance(s); /* { */
  skip_ws(s);
  if (peek(s) == '}') {
    advance(s);
    return true;
  }
  for (;;) {
    skip_ws(s);
    if (peek(s) != '"') return fail(s, WGK_ERR_PARSE);
    int kl = s->line, kc = s->column;
    util_dynbuf key;
    util_dynbuf_init(&key, PATH_LIMIT);
    bool ok = scan_string(s, &key);
    if (ok && key.failed && !key.over) ok = fail(s, WGK_ERR_OUT_OF_MEMORY); /* not a truncated key */
    size_t mark = s->path.len;
    if (ok) ok = util_manifest_path_key(&s->path, util_dynbuf_str(&key)) || fail(s, WGK_ERR_OUT_OF_MEMORY);
    util_dynbuf_free(&key);
    if (!ok) return false;
    skip_ws(s);
    if (peek(s) != ':') return fail(s, WGK_ERR_PARSE);
    advance(s);
    if (!scan_value(s, kl, kc, depth + 1)) return false;
    s->path.len = mark;
    s->path.data[mark] = '\0';
    skip_ws(s);
    int c = peek(s);
    if (c < 0) return fail(s, WGK_ERR_PARSE);
    advance(s);
    if (c == '}') return true;
    if (c != ',') return fail(s, WGK_ERR_PARSE);
  }
}

static bool scan_items(scanner *s, int depth) {
  advance(s); /* [ */
  skip_ws(s);
  if (peek(s) == ']') {
    advance(s);
    return true;
  }
  for (size_t i = 0;; i++) {
    size_t mark = s->path.len;
    if (!util_manifest_path_index(&s->path, i)) return fail(s, WGK_ERR_OUT_OF_MEMORY);
    skip_ws(s);
    if (!scan_value(s, s->line, s->column, depth + 1)) return false;
    s->path.len = mark;
    s->path.data[mark] = '\0';
    skip_ws(s);
    int c = peek(s);
    if (c < 0) return fail(s, WGK_ERR_PARSE);
    advance(s);
    if (c == ']') return true;
    if (c != ',') return fail(s, WGK_ERR_PARSE);
  }
}

static bool scan_value(scanner *s, int key_line, int key_column, int depth) {
  if (depth > DEPTH_LIMIT) return fail(s, WGK_ERR_PARSE);
  skip_ws(s);
  if (!add_entry(s, key_line, key_column)) return false;
  int c = peek(s);
  if (c == '{') return scan_members(s, depth);
  if (c == '[') return scan_items(s, depth);
  if (c == '"') return scan_string(s, NULL);
  if (c < 0 || c == ',' || c == ']' || c == '}' || c == ':') return fail(s, WGK_ERR_PARSE);
  while (peek(s) >= 0 && !strchr(",]} \t\r\n", peek(s))) advance(s); /* number, true, false, null */
  return true;
}

static int by_path(const void *a, const void *b) {
  return strcmp(((const util_manifest_jpos_entry *)a)->path, ((const util_manifest_jpos_entry *)b)->path);
}

wgk_status util_manifest_jpos_build(const char *text, size_t len, util_manifest_jpos *idx) {
  memset(idx, 0, sizeof *idx);
  scanner s = {.text = text, .len = len, .line = 1, .column = 1, .idx = idx, .status = WGK_OK};
  util_dynbuf_init(&s.path, PATH_LIMIT);
  if (!util_dynbuf_append_str(&s.path, "")) s.status = WGK_ERR_OUT_OF_MEMORY;
  if (s.status == WGK_OK) {
    skip_ws(&s);
    scan_value(&s, s.line, s.column, 0);
  }
  util_dynbuf_free(&s.path);
  if (s.status != WGK_OK) {
    util_manifest_jpos_free(idx);
    return s.status;
  }
  qsort(idx->entries, idx->n, sizeof *idx->entries, by_path);
  return WGK_OK;
}

const util_manifest_jpos_entry *util_manifest_jpos_find(const util_manifest_jpos *idx, const char *path) {
  if (!idx || idx->n == 0) return NULL;
  util_manifest_jpos_entry key = {.path = (char *)path};
  return bsearch(&key, idx->entries, idx->n, sizeof key, by_path);
}

util_pos util_manifest_jpos_pos(const util_manifest_jpos *idx, const char *source, const char *path, bool at_key) {
  const util_manifest_jpos_entry *e = idx ? util_manifest_jpos_find(idx, path) : NULL;
  if (!e) return util_pos_make(source, 0, 0);
  return at_key ? util_pos_make(source, e->key_line, e->key_column) : util_pos_make(source, e->line, e->column);
}

void util_manifest_jpos_free(util_manifest_jpos *idx) {
  if (!idx) return;
  for (size_t i = 0; i < idx->n; i++) free(idx->entries[i].path);
  free(idx->entries);
  memset(idx, 0, sizeof *idx);
}
