/* Optimal string alignment distance over bytes, on three rolling rows: names are short (capped at 128 bytes, past
 * which no suggestion is made), so the cost is nothing next to the error it decorates. */
#include <stdbool.h>
#include <string.h>

#include "util/suggest.h"

#define MAX_NAME 128

static size_t min3(size_t a, size_t b, size_t c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }

static size_t distance(const char *a, size_t la, const char *b, size_t lb) {
  size_t rows[3][MAX_NAME + 1];
  size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
  for (size_t j = 0; j <= lb; j++) prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < cur[j])
        cur[j] = prev2[j - 2] + 1;
    }
    size_t *t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[lb];
}

const char *util_suggest(const char *name, const void *list, size_t n, util_suggest_at_fn at) {
  size_t ln = name ? strlen(name) : 0;
  if (!name || ln == 0 || ln > MAX_NAME) return NULL;
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    const char *c = at(list, i);
    size_t lc = c ? strlen(c) : 0;
    if (!c || lc == 0 || lc > MAX_NAME) continue;
    if (strcmp(c, name) == 0) return NULL;
    size_t longer = ln > lc ? ln : lc;
    size_t limit = longer <= 4 ? 1 : longer / 3;
    size_t d = distance(name, ln, c, lc);
    if (d <= limit && d < best_d) {
      best = c;
      best_d = d;
    }
  }
  return best;
}
