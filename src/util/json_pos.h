/*
 * Where each JSON value starts. jansson parses (and reports syntax errors with their positions) but
 * keeps no positions for values, so this scans the same text a second time and maps the JSON path
 * of every value to its line and column, and for object members the position of the key too.
 *
 * Paths: root "", a member of the root "key", deeper members ".key", array items "[i]", and a key
 * that is not plain (letters, digits, _ $ -) as ["key"]. util_manifest_path_key() and
 * util_manifest_path_index() write the same form, so a reader builds paths as it walks and looks
 * them up here.
 */
#ifndef WGK_MANIFEST_JSON_POS_H
#define WGK_MANIFEST_JSON_POS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/dynbuf.h"
#include "util/error.h"
#include "wgk.h"

typedef struct util_manifest_jpos_entry {
  char *path;     /* JSON path of the value (owned) */
  int line;       /* 1-based line of the value's first character */
  int column;     /* 1-based column (characters) of the value's first character */
  int key_line;   /* line of the member's key (its quote); = line for array items and the root */
  int key_column; /* column of the member's key; = column for array items and the root */
} util_manifest_jpos_entry;

typedef struct util_manifest_jpos {
  util_manifest_jpos_entry *entries; /* sorted by path after a build */
  size_t n;                          /* entries used */
  size_t cap;                        /* entries allocated */
} util_manifest_jpos;

/* Indexes text, which jansson has already accepted. WGK_ERR_OUT_OF_MEMORY or WGK_ERR_PARSE (text
 * that is not JSON after all) leave an empty index. */
wgk_status util_manifest_jpos_build(const char *text, size_t len, util_manifest_jpos *idx);
const util_manifest_jpos_entry *util_manifest_jpos_find(const util_manifest_jpos *idx, const char *path);
/* The position in source of the value at path (of its key when at_key, for an unknown or misplaced key), for
 * util_error_at; line and column 0 when idx is NULL or does not hold path. */
util_pos util_manifest_jpos_pos(const util_manifest_jpos *idx, const char *source, const char *path, bool at_key);
void util_manifest_jpos_free(util_manifest_jpos *idx);

/* Appends a member step for key (decoded text) to path, in the index's form. */
bool util_manifest_path_key(util_dynbuf *path, const char *key);
/* Appends an array step "[i]". */
bool util_manifest_path_index(util_dynbuf *path, size_t i);
/* The same steps for a reader walking down and back: each returns the mark util_manifest_path_pop returns to. */
size_t util_manifest_path_push_key(util_dynbuf *path, const char *key);
size_t util_manifest_path_push_index(util_dynbuf *path, size_t i);
void util_manifest_path_pop(util_dynbuf *path, size_t mark);

#endif
