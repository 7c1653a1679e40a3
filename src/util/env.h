/* The environment, read in one place. Every variable wgk reads goes through these functions, and every one is
 * listed in docs/environment.md (tests/docs/env_table_test.py checks both ways). A set variable with a value that
 * breaks its rule is an error naming the variable, the rule and the value, never a silent default. */
#ifndef WGK_UTIL_ENV_H
#define WGK_UTIL_ENV_H

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"

/* The value of name, or NULL when it is unset or empty (an empty variable counts as unset everywhere). */
const char *util_env(const char *name);

/* A whole decimal number in [lo, hi] from name (digits only: no sign, space or suffix). *value is left as it is
 * (the caller's default) when the variable is unset or empty. */
wgk_status util_env_int(const char *name, int64_t lo, int64_t hi, int64_t *value, util_error *err);

/* An on/off switch from name: "1" on, "0" off, anything else an error; *value left as it is when unset. */
wgk_status util_env_flag(const char *name, bool *value, util_error *err);

/* A whole decimal number in [lo, hi] from text, for options given as strings (what names the option in a
 * message). false when text is not one; *out is then unchanged. */
bool util_env_parse_int(const char *text, int64_t lo, int64_t hi, int64_t *out);

#endif
