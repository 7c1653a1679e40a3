/* "did you mean ...?": the declared name nearest to a misspelled one. */
#ifndef WGK_UTIL_SUGGEST_H
#define WGK_UTIL_SUGGEST_H

#include <stddef.h>

/* The i-th candidate name (NULL is skipped). */
typedef const char *(*util_suggest_at_fn)(const void *list, size_t i);

/* The candidate nearest to name by edit distance (insert, delete, replace, swap of neighbours: 1 each),
 * when it is near enough to be a likely misspelling: at most 1 edit for names up to 4 characters, else at most
 * a third of the longer name's length (so "interleavd" -> "interleaved", "heads" -> nothing among "scale").
 * Ties go to the first candidate. NULL when none is near enough, or name is one of them exactly. */
const char *util_suggest(const char *name, const void *list, size_t n, util_suggest_at_fn at);

#endif
