/*
 * The expression language of kernel manifests (docs/expressions.md): a Jinja expression evaluated as `{{ expr }}`
 * would be by @huggingface/jinja 0.5.10, including its number rules and how values print.
 *
 * Values are reference counted and immutable once shared. Ownership is in the names:
 *   - a constructor (wgk_value_int, wgk_value_list ...) returns a NEW reference (NULL when out of memory);
 *   - functions that "take" a value (wgk_value_list_append, wgk_value_dict_set) consume the caller's reference,
 *     also on failure, so `wgk_value_dict_set(d, "k", wgk_value_int(3))` never leaks;
 *   - getters (wgk_value_dict_get, wgk_value_list_at ...) return BORROWED references: wgk_value_ref to keep one.
 *   - wgk_value_release(NULL) is a no-op.
 * Only mutate a list or dict you just built and have not shared yet.
 *
 * Expression lifecycle:
 *   1. wgk_expr_parse(text, source, err)     -> parse once (syntax errors: WGK_ERR_PARSE / WGK_ERR_LIMIT);
 *   2. wgk_expr_eval(e, scope, &v, err)      -> evaluate as often as needed against a scope dict;
 *   3. wgk_value_print(v, &buf)              -> the text `{{ expr }}` would render;
 *   4. wgk_value_release(v); wgk_expr_free(e).
 * Bare names resolve in the scope dict first, then among the built-in helpers (ceilDiv, numel, ...).
 * `f16Ok` reads `device.features` from the scope.
 *
 * Integers are int64 but exact only in [-2^53, 2^53] (JavaScript numbers): an integer result outside that
 * range is a WGK_ERR_EVAL "integer overflow past 2^53" error instead of a silently rounded number.
 */
#ifndef WGK_EXPR_EXPR_H
#define WGK_EXPR_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wgk.h"
#include "util/dynbuf.h"
#include "util/error.h"

struct json_t;
struct wgk_device_desc;

typedef enum wgk_value_kind {
  WGK_VALUE_UNDEFINED = 0, /* a missing member or variable; prints as "" */
  WGK_VALUE_NONE,          /* none / null; prints as "" at top level, "null" inside a list */
  WGK_VALUE_BOOL,
  WGK_VALUE_INT,    /* exact integer in [-2^53, 2^53] */
  WGK_VALUE_FLOAT,  /* double; prints like the oracle: 64.0, 3.5, 1e+21 */
  WGK_VALUE_STRING, /* bytes, NUL-terminated, length kept */
  WGK_VALUE_LIST,   /* ordered values (lists and tuples) */
  WGK_VALUE_DICT,   /* string keys in insertion order */
  WGK_VALUE_FUNC,   /* a native callable: helper, builtin method bound to its object */
} wgk_value_kind;

typedef struct wgk_value wgk_value;

#define WGK_INT_EXACT_MAX ((int64_t)1 << 53) /* largest integer magnitude a value may hold */

/* Native callable: args are positional (borrowed), kwargs a dict of keyword args or NULL.
 * fn is the callable itself (its bound object: wgk_value_func_self(fn)); scope is the dict chain of the call site
 * (read it with wgk_expr_scope_lookup). Returns WGK_OK and a new reference in *out; on failure sets err
 * without a position (the evaluator adds the call's). */
typedef struct wgk_expr_scope {
  const wgk_value *vars;               /* a dict of names visible at this level */
  const struct wgk_expr_scope *parent; /* enclosing level, NULL at the top */
} wgk_expr_scope;
typedef wgk_status (*wgk_native_fn)(const wgk_value *fn, const wgk_value *const *args, size_t nargs,
                                    const wgk_value *kwargs, const wgk_expr_scope *scope, wgk_value **out,
                                    wgk_error *err);
/* Looks name up from the innermost level outwards; borrowed, NULL if absent. */
const wgk_value *wgk_expr_scope_lookup(const wgk_expr_scope *scope, const char *name);

/* Constructors: each returns a new reference, NULL when out of memory. */
wgk_value *wgk_value_undefined(void);
wgk_value *wgk_value_none(void);
wgk_value *wgk_value_bool(bool b);
wgk_value *wgk_value_int(int64_t i); /* |i| > 2^53 is clamped: check with wgk_value_int_ok first */
wgk_value *wgk_value_float(double d);
wgk_value *wgk_value_string(const char *s);
wgk_value *wgk_value_string_n(const char *s, size_t len);
wgk_value *wgk_value_list(void);
wgk_value *wgk_value_dict(void);
/* A callable bound to self (self may be NULL; a reference to it is kept). name is for messages. */
wgk_value *wgk_value_func(const char *name, wgk_native_fn fn, const wgk_value *self);

const wgk_value *wgk_value_func_self(const wgk_value *fn); /* borrowed; NULL if unbound */
wgk_value *wgk_value_ref(const wgk_value *v);              /* new reference to v; v may be NULL (returns NULL) */
void wgk_value_release(wgk_value *v);
static inline bool wgk_value_int_ok(int64_t i) { return i >= -WGK_INT_EXACT_MAX && i <= WGK_INT_EXACT_MAX; }

/* Building (takes item/value, also on failure; false when out of memory or not a list/dict). */
bool wgk_value_list_append(wgk_value *list, wgk_value *item);
bool wgk_value_dict_set(wgk_value *dict, const char *key, wgk_value *value); /* replaces, keeps position */
/* A new dict holding the same keys and (referenced, not copied) values, ready to be changed; NULL when out of
 * memory or when dict is not a dict. */
wgk_value *wgk_value_dict_copy(const wgk_value *dict);

/* Accessors. */
wgk_value_kind wgk_value_kind_of(const wgk_value *v);
const char *wgk_value_kind_name(wgk_value_kind k); /* "integer", "float", "string", ... */
bool wgk_value_as_bool(const wgk_value *v);        /* the bool of a BOOL value, false otherwise */
int64_t wgk_value_as_int(const wgk_value *v);      /* INT; FLOAT truncated; BOOL 0/1; else 0 */
double wgk_value_as_float(const wgk_value *v);     /* INT or FLOAT as double; else 0 */
bool wgk_value_is_number(const wgk_value *v);      /* INT or FLOAT (not BOOL) */
const char *wgk_value_str(const wgk_value *v);     /* STRING bytes, NULL otherwise */
size_t wgk_value_str_len(const wgk_value *v);
size_t wgk_value_len(const wgk_value *v); /* items of a list/dict, bytes of a string, else 0 */
const wgk_value *wgk_value_list_at(const wgk_value *list, size_t i);         /* borrowed; NULL out of range */
const wgk_value *wgk_value_dict_get(const wgk_value *dict, const char *key); /* borrowed; NULL if absent */
const char *wgk_value_dict_key_at(const wgk_value *dict, size_t i);
const wgk_value *wgk_value_dict_value_at(const wgk_value *dict, size_t i);
bool wgk_value_truthy(const wgk_value *v);                    /* Jinja truth: 0, "", [], {}, none, undefined false */
bool wgk_value_equal(const wgk_value *a, const wgk_value *b); /* deep: numbers by value, lists/dicts item by item */

/* Prints exactly what `{{ v }}` renders (appends to out; false if out failed). */
bool wgk_value_print(const wgk_value *v, wgk_dynbuf *out);
/* Appends a JavaScript-style number: shortest text that reads back to d ("0.30000000000000004", "1e+21"). */
bool wgk_value_print_js_number(double d, wgk_dynbuf *out);

/* JSON <-> value. Integral JSON numbers become INT (error past 2^53), others FLOAT; objects become dicts.
 * A functions or undefined value becomes null in JSON. Both return new references / NULL on failure. */
wgk_value *wgk_value_from_json(const struct json_t *json, wgk_error *err);
struct json_t *wgk_value_to_json(const wgk_value *v);

/* The `device` scope entry: {features: <object with .has(name)>, limits: {...}, adapterInfo: {...}}.
 * From a device description, or from JSON {"features": [...], "limits": {...}, "adapterInfo": {...}} read by
 * src/device/device_json.c (missing limits take the spec defaults; maxComputeWorkgroupsPerDimension clamped to
 * WGK_DISPATCH_FOLD_WIDTH). */
wgk_value *wgk_value_device(const struct wgk_device_desc *desc);
wgk_value *wgk_value_device_from_json(const struct json_t *json, wgk_error *err);
/* A set of names with a `has(name)` method (what device.features is). */
wgk_value *wgk_value_name_set(const char *const *names, size_t count);

/* ---- Expressions ---- */

typedef struct wgk_expr wgk_expr;

#define WGK_EXPR_MAX_LENGTH (64 * 1024) /* bytes of expression text */
#define WGK_EXPR_MAX_DEPTH 200          /* nesting of sub-expressions, in the parser and evaluator */

/* Parses text (len bytes, or strlen when len is (size_t)-1). source names it in errors ("<expr>" if NULL).
 * Returns NULL with err set on failure. Errors read `<source>:1:<col>: <message>`. */
wgk_expr *wgk_expr_parse(const char *text, size_t len, const char *source, wgk_error *err);
void wgk_expr_free(wgk_expr *e);
const char *wgk_expr_text(const wgk_expr *e);

/* Evaluates e against scope (a dict, may be NULL) into *out (new reference, NULL on failure). */
wgk_status wgk_expr_eval(const wgk_expr *e, const wgk_value *scope, wgk_value **out, wgk_error *err);
/* The same against a chain of scopes (templates, nested planner scopes). */
wgk_status wgk_expr_eval_in(const wgk_expr *e, const wgk_expr_scope *scope, wgk_value **out, wgk_error *err);

/* Parse + eval + print in one go: what `{{ text }}` renders. */
wgk_status wgk_expr_render(const char *text, const wgk_value *scope, wgk_dynbuf *out, wgk_error *err);

/* For a `when` clause that was not exactly true: appends why. For a top-level `and` chain, names the first
 * operand that is not true with its source text and, for a comparison, its operands' values:
 *   "ranks.X == 4 is false (ranks.X = 5, 4)".
 * Evaluation errors inside are described too ("dim(shapes.X, 9) failed: ..."), except running out of memory,
 * which marks out failed (not over its limit): no explanation rather than a wrong one. */
void wgk_expr_explain_false(const wgk_expr *e, const wgk_value *scope, wgk_dynbuf *out);

#endif
