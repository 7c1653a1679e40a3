/* Small text matching shared by the stages. */
#ifndef WGK_UTIL_TEXT_H
#define WGK_UTIL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Whether hay[0..len) contains needle, ignoring ASCII case; true for an empty needle. */
bool util_contains_nocase(const char *hay, size_t len, const char *needle);

#endif
