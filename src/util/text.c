/* Small text matching shared by the stages (util/text.h). */
#include "util/text.h"

#include <string.h>
#include <strings.h>

bool util_contains_nocase(const char *hay, size_t len, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= len; i++)
    if (strncasecmp(hay + i, needle, n) == 0) return true;
  return n == 0;
}
