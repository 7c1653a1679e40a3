/*
 * The expression language of kernel manifests (docs/expressions.md): a Jinja expression evaluated as `{{ expr }}`
 * would be by @huggingface/jinja 0.5.10, including its number rules and how values print. Its values are value.h's.
 *
 * Expression lifecycle:
 *   1. expr_parse(text, source, err)     -> parse once (syntax errors: WGK_ERR_PARSE / WGK_ERR_LIMIT);
 *   2. expr_eval(e, scope, &v, err)      -> evaluate as often as needed against a scope dict;
 *   3. expr_value_print(v, &buf)              -> the text `{{ expr }}` would render;
 *   4. expr_value_release(v); expr_free(e).
 * Bare names resolve in the scope dict first, then among the built-in helpers (ceilDiv, numel, ...).
 * `f16Ok` reads `device.features` from the scope.
 */
#ifndef WGK_EXPR_EXPR_H
#define WGK_EXPR_EXPR_H

#include "expr/value.h"

typedef struct expr_program expr_program;

#define WGK_EXPR_MAX_LENGTH (64 * 1024) /* bytes of expression text */

/* Parses text (len bytes, or strlen when len is (size_t)-1). source names it in errors ("<expr>" if NULL).
 * Returns NULL with err set on failure. Errors read `<source>:1:<col>: <message>`. */
expr_program *expr_parse(const char *text, size_t len, const char *source, util_error *err);
void expr_free(expr_program *e);
const char *expr_text(const expr_program *e);

/* Every name of e resolves in scope (or is true/false/none or a helper other than range and namespace), wherever
 * it stands, even in a branch the evaluation would not take: the public loader resolves a manifest expression's
 * names before evaluating it ("Unknown identifier"). The planner checks this before every manifest expression. */
wgk_status expr_check_names(const expr_program *e, const expr_value *scope, util_error *err);
/* Evaluates e against scope (a dict, may be NULL) into *out (new reference, NULL on failure). */
wgk_status expr_eval(const expr_program *e, const expr_value *scope, expr_value **out, util_error *err);
/* The same against a chain of scopes (templates, nested planner scopes). */
wgk_status expr_eval_in(const expr_program *e, const expr_scope *scope, expr_value **out, util_error *err);

/* Parsed expressions kept by key (a pointer that names one text for the cache's life, e.g. a manifest
 * expression): each text is parsed once however often it is evaluated. */
typedef struct expr_cache expr_cache;
expr_cache *expr_cache_create(void); /* NULL when out of memory */
void expr_cache_free(expr_cache *c);
/* The parsed form of text, kept under key; NULL with err set on a syntax error or when out of memory. */
const expr_program *expr_cache_parse(expr_cache *c, const void *key, const char *text, util_error *err);
/* A manifest expression's evaluation in one call: parsed once (under key), its names checked against scope
 * (expr_check_names), evaluated into *out. Errors read `<expr>:1:<col>: ...`: the caller places them. */
wgk_status expr_cache_eval(expr_cache *c, const void *key, const char *text, const expr_value *scope, expr_value **out,
                           util_error *err);

/* Parse + eval + print in one go: what `{{ text }}` renders. */
wgk_status expr_render(const char *text, const expr_value *scope, util_dynbuf *out, util_error *err);

/* For a `when` clause that was not exactly true: appends why. For a top-level `and` chain, names the first
 * operand that is not true with its source text and, for a comparison, its operands' values:
 *   "ranks.X == 4 is false (ranks.X = 5, 4)".
 * Evaluation errors inside are described too ("dim(shapes.X, 9) failed: ..."), except running out of memory,
 * which marks out failed (not over its limit): no explanation rather than a wrong one. */
void expr_explain_false(const expr_program *e, const expr_value *scope, util_dynbuf *out);

#endif
