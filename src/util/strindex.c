/* A set of borrowed strings with an index each (strindex.h): FNV-1a hashing, linear probing. */
#include "util/strindex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t str_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

static bool alloc_table(util_strindex *x, size_t cap) {
  x->keys = calloc(cap, sizeof *x->keys);
  x->values = calloc(cap, sizeof *x->values);
  x->cap = cap;
  x->n = 0;
  if (x->keys && x->values) return true;
  util_strindex_free(x);
  return false;
}

bool util_strindex_init(util_strindex *x, size_t n) {
  size_t cap = 16;
  while (cap < 2 * n && cap < ((size_t)1 << 60)) cap *= 2;
  return alloc_table(x, cap);
}

void util_strindex_free(util_strindex *x) {
  free(x->keys);
  free(x->values);
  x->keys = NULL;
  x->values = NULL;
  x->cap = x->n = 0;
}

/* The slot of key, or the empty slot where it would go. */
static size_t slot(const util_strindex *x, const char *key) {
  size_t i = str_hash(key) & (x->cap - 1);
  while (x->keys[i] && strcmp(x->keys[i], key) != 0) i = (i + 1) & (x->cap - 1);
  return i;
}

static bool grow(util_strindex *x) {
  util_strindex bigger;
  if (!alloc_table(&bigger, x->cap * 2)) return false;
  for (size_t i = 0; i < x->cap; i++)
    if (x->keys[i]) {
      size_t j = slot(&bigger, x->keys[i]);
      bigger.keys[j] = x->keys[i];
      bigger.values[j] = x->values[i];
      bigger.n++;
    }
  util_strindex_free(x);
  *x = bigger;
  return true;
}

int util_strindex_add(util_strindex *x, const char *key, size_t value, size_t *prev) {
  if (!x->keys) return -1;
  size_t i = slot(x, key);
  if (x->keys[i]) {
    if (prev) *prev = x->values[i];
    return 0;
  }
  if (2 * (x->n + 1) > x->cap) {
    if (!grow(x)) return -1;
    i = slot(x, key);
  }
  x->keys[i] = key;
  x->values[i] = value;
  x->n++;
  return 1;
}

bool util_strindex_find(const util_strindex *x, const char *key, size_t *value) {
  if (!x->keys) return false;
  size_t i = slot(x, key);
  if (!x->keys[i]) return false;
  if (value) *value = x->values[i];
  return true;
}
