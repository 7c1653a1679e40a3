/* A set of strings, each with the index it was added under: a duplicate or a lookup in O(1) on average, where
 * a scan of the earlier names made checks over many names quadratic (a family of 100,000 variants took minutes
 * to load). The strings are borrowed: they must outlive the index. */
#ifndef WGK_UTIL_STRINDEX_H
#define WGK_UTIL_STRINDEX_H

#include <stdbool.h>
#include <stddef.h>

typedef struct util_strindex {
  const char **keys; /* open addressing, NULL where empty */
  size_t *values;    /* the index each key was added under */
  size_t cap;        /* a power of two, at least twice the keys */
  size_t n;          /* keys held */
} util_strindex;

/* An empty index sized for about n keys (it grows past them); false when out of memory. */
bool util_strindex_init(util_strindex *x, size_t n);
void util_strindex_free(util_strindex *x);
/* Adds key with value. Returns 1 when added, 0 when key was there already (*prev, if not NULL, gets its value),
 * -1 when out of memory. */
int util_strindex_add(util_strindex *x, const char *key, size_t value, size_t *prev);
/* The value of key in *value; false when absent. */
bool util_strindex_find(const util_strindex *x, const char *key, size_t *value);

#endif
