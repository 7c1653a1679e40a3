/*
 * The one English name of a JSON value's type in error messages ("expected a list, got an object"), shared by
 * every reader of JSON (manifest, device description) so the same value reads the same way everywhere.
 */
#ifndef WGK_UTIL_JSON_TYPE_H
#define WGK_UTIL_JSON_TYPE_H

#include <jansson.h>

/* "an object", "a list", "a string", "an integer", "a number" (a JSON real: a fraction or an exponent),
 * "a boolean" or "null". */
const char *util_json_type_name(const json_t *v);

#endif
