/*
 * The values of the expression language (docs/expressions.md), what expressions and templates compute with and what
 * the planner puts in their scopes.
 *
 * Values are reference counted and immutable once shared. Ownership is in the names:
 *   - a constructor (expr_value_int, expr_value_list ...) returns a NEW reference (NULL when out of memory);
 *   - functions that "take" a value (expr_value_list_append, expr_value_dict_set) consume the caller's reference,
 *     also on failure, so `expr_value_dict_set(d, "k", expr_value_int(3))` never leaks;
 *   - getters (expr_value_dict_get, expr_value_list_at ...) return BORROWED references: expr_value_ref to keep one.
 *   - expr_value_release(NULL) is a no-op.
 * Only mutate a list or dict you just built and have not shared yet.
 *
 * Integers are int64 but exact only in [-2^53, 2^53] (JavaScript numbers): an integer result outside that
 * range is a WGK_ERR_EVAL "integer overflow past 2^53" error instead of a silently rounded number.
 */
#ifndef WGK_EXPR_VALUE_H
#define WGK_EXPR_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wgk.h"
#include "util/dynbuf.h"
#include "util/error.h"

struct json_t;
struct device_desc;

typedef enum expr_value_kind {
  WGK_VALUE_UNDEFINED = 0, /* a missing member or variable; prints as "" */
  WGK_VALUE_NONE,          /* none / null; prints as "" at top level, "null" inside a list */
  WGK_VALUE_BOOL,
  WGK_VALUE_INT,    /* exact integer in [-2^53, 2^53] */
  WGK_VALUE_FLOAT,  /* double; prints like the oracle: 64.0, 3.5, 1e+21 */
  WGK_VALUE_STRING, /* bytes, NUL-terminated, length kept */
  WGK_VALUE_LIST,   /* ordered values (lists and tuples) */
  WGK_VALUE_DICT,   /* string keys in insertion order */
  WGK_VALUE_FUNC,   /* a native callable: helper, builtin method bound to its object */
} expr_value_kind;

typedef struct expr_value expr_value;

#define WGK_INT_EXACT_MAX ((int64_t)1 << 53) /* largest integer magnitude a value may hold */

/* Native callable: args are positional (borrowed), kwargs a dict of keyword args or NULL.
 * fn is the callable itself (its bound object: expr_value_func_self(fn)); scope is the dict chain of the call site
 * (read it with expr_scope_lookup). Returns WGK_OK and a new reference in *out; on failure sets err
 * without a position (the evaluator adds the call's). */
typedef struct expr_scope {
  const expr_value *vars;          /* a dict of names visible at this level */
  const struct expr_scope *parent; /* enclosing level, NULL at the top */
} expr_scope;
typedef wgk_status (*expr_native_fn)(const expr_value *fn, const expr_value *const *args, size_t nargs,
                                     const expr_value *kwargs, const expr_scope *scope, expr_value **out,
                                     util_error *err);
/* Looks name up from the innermost level outwards; borrowed, NULL if absent (value.c). */
const expr_value *expr_scope_lookup(const expr_scope *scope, const char *name);

/* Constructors: each returns a new reference, NULL when out of memory. */
expr_value *expr_value_undefined(void);
expr_value *expr_value_none(void);
expr_value *expr_value_bool(bool b);
expr_value *expr_value_int(int64_t i); /* |i| > 2^53 is clamped: check with expr_value_int_ok first */
expr_value *expr_value_float(double d);
expr_value *expr_value_string(const char *s);
expr_value *expr_value_string_n(const char *s, size_t len);
expr_value *expr_value_list(void);
expr_value *expr_value_dict(void);
expr_value *expr_value_int_list(const int64_t *ints, size_t count); /* [ints...], each clamped as above */
/* A callable bound to self (self may be NULL; a reference to it is kept). name is for messages. */
expr_value *expr_value_func(const char *name, expr_native_fn fn, const expr_value *self);

const expr_value *expr_value_func_self(const expr_value *fn); /* borrowed; NULL if unbound */
expr_value *expr_value_ref(const expr_value *v);              /* new reference to v; v may be NULL (returns NULL) */
void expr_value_release(expr_value *v);
static inline bool expr_value_int_ok(int64_t i) { return i >= -WGK_INT_EXACT_MAX && i <= WGK_INT_EXACT_MAX; }

/* Building (takes item/value, also on failure; false when out of memory or not a list/dict). */
bool expr_value_list_append(expr_value *list, expr_value *item);
bool expr_value_dict_set(expr_value *dict, const char *key, expr_value *value); /* replaces, keeps position */
/* A new dict holding the same keys and (referenced, not copied) values, ready to be changed; NULL when out of
 * memory or when dict is not a dict. */
expr_value *expr_value_dict_copy(const expr_value *dict);

/* Accessors. */
expr_value_kind expr_value_kind_of(const expr_value *v);
const char *expr_value_kind_name(expr_value_kind k); /* "integer", "float", "string", ... */
bool expr_value_as_bool(const expr_value *v);        /* the bool of a BOOL value, false otherwise */
int64_t expr_value_as_int(const expr_value *v);      /* INT; FLOAT truncated; BOOL 0/1; else 0 */
double expr_value_as_float(const expr_value *v);     /* INT or FLOAT as double; else 0 */
bool expr_value_is_number(const expr_value *v);      /* INT or FLOAT (not BOOL) */
const char *expr_value_str(const expr_value *v);     /* STRING bytes, NULL otherwise */
size_t expr_value_str_len(const expr_value *v);
size_t expr_value_len(const expr_value *v); /* items of a list/dict, bytes of a string, else 0 */
const expr_value *expr_value_list_at(const expr_value *list, size_t i);         /* borrowed; NULL out of range */
const expr_value *expr_value_dict_get(const expr_value *dict, const char *key); /* borrowed; NULL if absent */
const char *expr_value_dict_key_at(const expr_value *dict, size_t i);
const expr_value *expr_value_dict_value_at(const expr_value *dict, size_t i);
bool expr_value_truthy(const expr_value *v);                     /* Jinja truth: 0, "", [], {}, none, undefined false */
bool expr_value_equal(const expr_value *a, const expr_value *b); /* deep: numbers by value, lists/dicts item by item */

/* Prints exactly what `{{ v }}` renders (appends to out; false if out failed). */
bool expr_value_print(const expr_value *v, util_dynbuf *out);
/* Appends a JavaScript-style number: shortest text that reads back to d ("0.30000000000000004", "1e+21"). */
bool expr_value_print_js_number(double d, util_dynbuf *out);

/* JSON <-> value. Integral JSON numbers become INT (error past 2^53), others FLOAT; objects become dicts.
 * A functions or undefined value becomes null in JSON. Both return new references / NULL on failure. */
expr_value *expr_value_from_json(const struct json_t *json, util_error *err);
struct json_t *expr_value_to_json(const expr_value *v);

/* One entry of a dict built in one call (expr_value_dict_build): dict[group][name], or dict[name] when group is
 * NULL; a group is made (an empty dict) where it is first named. */
typedef enum expr_entry_kind {
  EXPR_ENTRY_DICT,    /* an empty dict */
  EXPR_ENTRY_VALUE,   /* a new reference to value */
  EXPR_ENTRY_INT,     /* i */
  EXPR_ENTRY_BOOL,    /* i != 0 */
  EXPR_ENTRY_STRING,  /* s */
  EXPR_ENTRY_INTS,    /* the list of i ints */
  EXPR_ENTRY_GIVEN,   /* value[name] when the dict value holds it, else json (read as expr_value_from_json) when
                         not NULL, else no entry */
  EXPR_ENTRY_HAS_KEY, /* the bool: the dict value holds the key s */
} expr_entry_kind;

typedef struct expr_entry {
  const char *group, *name;
  expr_entry_kind kind;
  const expr_value *value;
  int64_t i;
  const char *s;
  const int64_t *ints;
  const struct json_t *json;
} expr_entry;

/* The dict of n entries in their order (a name set twice keeps its first position, its last value); NULL when out
 * of memory (err unset) or when a JSON default is not a value (err set). */
expr_value *expr_value_dict_build(const expr_entry *entries, size_t n, util_error *err);
/* Adds the n entries to the dict d as expr_value_dict_build makes them (a name already there takes the new value);
 * false when out of memory (err unset) or when a JSON default is not a value (err set). */
bool expr_value_dict_add(expr_value *d, const expr_entry *entries, size_t n, util_error *err);

/* The `device` scope entry: {features: <object with .has(name)>, limits: {...}, adapterInfo: {...}}.
 * From a device description, or from JSON {"features": [...], "limits": {...}, "adapterInfo": {...}} read by
 * src/device/device_json.c (missing limits take the spec defaults; maxComputeWorkgroupsPerDimension clamped to
 * WGK_DISPATCH_FOLD_WIDTH). */
expr_value *expr_value_device(const struct device_desc *desc);
expr_value *expr_value_device_from_json(const struct json_t *json, util_error *err);
/* A set of names with a `has(name)` method (what device.features is). */
expr_value *expr_value_name_set(const char *const *names, size_t count);

#endif
