/* The public face of the expression language: parse, evaluate, render, explain. */
#include "expr/expr_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct expr_program {
  expr_arena *arena; /* every node and string */
  expr_node *root;   /* the expression */
  char *text;        /* a copy of the source text */
  char *source;      /* name in errors */
};

expr_program *expr_parse(const char *text, size_t len, const char *source, util_error *err) {
  if (!text) text = "";
  if (len == (size_t)-1) len = strlen(text);
  if (!source) source = "<expr>";
  if (len > WGK_EXPR_MAX_LENGTH) {
    util_error_in(err, WGK_ERR_LIMIT, source, NULL, "expression too long (limit is %d bytes)", WGK_EXPR_MAX_LENGTH);
    return NULL;
  }
  expr_program *e = calloc(1, sizeof *e);
  if (e) e->text = malloc(len + 1);
  if (e) e->source = strdup(source);
  if (!e || !e->text || !e->source) {
    expr_free(e);
    util_error_oom(err, source, NULL);
    return NULL;
  }
  memcpy(e->text, text, len);
  e->text[len] = '\0';
  expr_parser p;
  expr_parser_init(&p, e->text, len, 0, e->source, &e->arena, err);
  e->root = expr_parse_expression(&p);
  if (e->root && p.tok.kind != WGK_TK_EOF) {
    char buf[40];
    size_t n = p.tok.len < 30 ? p.tok.len : 30;
    memcpy(buf, e->text + p.tok.start, n);
    buf[n] = '\0';
    expr_syntax_error(&p, "unexpected '%s' after the expression", buf);
    e->root = NULL;
  }
  if (!e->root) {
    if (!util_error_is_set(err))
      util_error_at(err, WGK_ERR_PARSE, util_pos_make(e->source, 1, 1), NULL, "cannot parse expression");
    expr_free(e);
    return NULL;
  }
  return e;
}

void expr_free(expr_program *e) {
  if (!e) return;
  expr_arena_free(e->arena);
  free(e->text);
  free(e->source);
  free(e);
}

const char *expr_text(const expr_program *e) { return e ? e->text : ""; }

/* The first name of n the scope cannot resolve, walked as the loader collects an expression's identifiers: a
 * member's name, a filter's or test's name and a keyword's key are not names; `x is defined` (or `undefined`)
 * only probes x. true/false/none, the scope's names and the helpers resolve; range and namespace do not (the
 * loader's expression scope has neither: they exist in templates only). */
static const expr_node *unresolved(const expr_node *n, const expr_value *scope) {
  if (!n) return NULL;
  switch (n->kind) {
  case WGK_N_NAME: {
    static const char *const constants[] = {"true", "True", "false", "False", "none", "None"};
    for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++)
      if (!strcmp(n->str, constants[i])) return NULL;
    if (expr_value_dict_get(scope, n->str)) return NULL;
    if (strcmp(n->str, "range") && strcmp(n->str, "namespace")) {
      bool oom = false; /* a helper whose value could not be made still names a helper: resolved */
      expr_value *h = expr_helper(n->str, &oom);
      expr_value_release(h);
      if (h || oom) return NULL;
    }
    return n;
  }
  case WGK_N_MEMBER:
    return unresolved(n->a, scope);
  case WGK_N_TEST:
    if (n->a && n->a->kind == WGK_N_NAME && (!strcmp(n->str, "defined") || !strcmp(n->str, "undefined"))) return NULL;
    return unresolved(n->a, scope);
  case WGK_N_KWARG:
    return unresolved(n->a, scope);
  default: {
    const expr_node *u = unresolved(n->a, scope);
    if (!u) u = unresolved(n->b, scope);
    if (!u) u = unresolved(n->c, scope);
    for (size_t i = 0; !u && i < n->n; i++) u = unresolved(n->items[i], scope);
    return u;
  }
  }
}

wgk_status expr_check_names(const expr_program *e, const expr_value *scope, util_error *err) {
  const expr_node *u = e ? unresolved(e->root, scope) : NULL;
  if (!u) return WGK_OK;
  return util_error_at(err, WGK_ERR_EVAL, util_pos_make(u->src ? u->src : e->source, u->line, u->col), NULL,
                       "unknown name '%s'%s", u->str,
                       !strcmp(u->str, "range") || !strcmp(u->str, "namespace")
                           ? " (a template function: manifest expressions have no range or namespace)"
                           : "");
}

wgk_status expr_eval_in(const expr_program *e, const expr_scope *scope, expr_value **out, util_error *err) {
  *out = NULL;
  expr_evaluator ev = {.scope = scope, .source = e->source, .err = err};
  *out = expr_eval_node(&ev, e->root);
  if (*out) return WGK_OK;
  if (!util_error_is_set(err)) util_error_in(err, WGK_ERR_EVAL, e->source, NULL, "evaluation failed");
  return err ? err->status : WGK_ERR_EVAL;
}

wgk_status expr_eval(const expr_program *e, const expr_value *scope, expr_value **out, util_error *err) {
  expr_scope s = {scope, NULL};
  return expr_eval_in(e, &s, out, err);
}

/* An open-addressing table of parsed expressions, by key. */
typedef struct cache_slot {
  const void *key;
  expr_program *parsed;
} cache_slot;

struct expr_cache {
  cache_slot *slots;
  size_t cap; /* a power of two */
  size_t count;
};

expr_cache *expr_cache_create(void) {
  expr_cache *c = calloc(1, sizeof *c);
  if (c) c->cap = 256;
  if (c && !(c->slots = calloc(c->cap, sizeof *c->slots))) {
    free(c);
    return NULL;
  }
  return c;
}

void expr_cache_free(expr_cache *c) {
  if (!c) return;
  for (size_t i = 0; i < c->cap; i++) expr_free(c->slots[i].parsed);
  free(c->slots);
  free(c);
}

static size_t slot_of(const void *key, size_t cap) {
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17;
  h *= (uintptr_t)0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 7) & (cap - 1);
}

/* The slot of key, or the free slot where it goes. */
static size_t find_slot(const cache_slot *slots, size_t cap, const void *key) {
  size_t j = slot_of(key, cap);
  while (slots[j].key && slots[j].key != key) j = (j + 1) & (cap - 1);
  return j;
}

static bool grow(expr_cache *c) {
  size_t cap = c->cap * 2;
  cache_slot *slots = calloc(cap, sizeof *slots);
  if (!slots) return false;
  for (size_t i = 0; i < c->cap; i++)
    if (c->slots[i].key) slots[find_slot(slots, cap, c->slots[i].key)] = c->slots[i];
  free(c->slots);
  c->slots = slots;
  c->cap = cap;
  return true;
}

const expr_program *expr_cache_parse(expr_cache *c, const void *key, const char *text, util_error *err) {
  size_t j = find_slot(c->slots, c->cap, key);
  if (c->slots[j].key) return c->slots[j].parsed;
  expr_program *parsed = expr_parse(text, (size_t)-1, "<expr>", err);
  if (!parsed) return NULL;
  if ((c->count + 1) * 2 > c->cap) {
    if (!grow(c)) {
      expr_free(parsed);
      util_error_oom(err, NULL, NULL);
      return NULL;
    }
    j = find_slot(c->slots, c->cap, key);
  }
  c->slots[j] = (cache_slot){key, parsed};
  c->count++;
  return parsed;
}

wgk_status expr_cache_eval(expr_cache *c, const void *key, const char *text, const expr_value *scope, expr_value **out,
                           util_error *err) {
  *out = NULL;
  const expr_program *parsed = expr_cache_parse(c, key, text, err);
  if (!parsed) return err ? err->status : WGK_ERR_PARSE;
  wgk_status st = expr_check_names(parsed, scope, err);
  return st == WGK_OK ? expr_eval(parsed, scope, out, err) : st;
}

wgk_status expr_render(const char *text, const expr_value *scope, util_dynbuf *out, util_error *err) {
  expr_program *e = expr_parse(text, (size_t)-1, NULL, err);
  if (!e) return err ? err->status : WGK_ERR_PARSE;
  expr_value *v = NULL;
  wgk_status st = expr_eval(e, scope, &v, err);
  if (st == WGK_OK && !expr_value_print(v, out))
    st = util_error_in(err, WGK_ERR_LIMIT, "<expr>", NULL, "output too long");
  expr_value_release(v);
  expr_free(e);
  return st;
}

static void append_value(util_dynbuf *out, const expr_value *v) {
  if (expr_value_kind_of(v) == WGK_VALUE_STRING)
    util_dynbuf_printf(out, "'%s'", v->u.str.s);
  else if (expr_value_kind_of(v) == WGK_VALUE_UNDEFINED)
    util_dynbuf_append_str(out, "undefined");
  else if (expr_value_kind_of(v) == WGK_VALUE_NONE)
    util_dynbuf_append_str(out, "none");
  else
    expr_value_print(v, out);
}

static void explain_node(const expr_program *e, const expr_node *n, const expr_scope *scope, util_dynbuf *out) {
  util_error err;
  util_error_clear(&err);
  expr_evaluator ev = {.scope = scope, .source = e->source, .err = &err};
  util_dynbuf_append(out, e->text + n->start, n->end - n->start);
  expr_value *v = expr_eval_node(&ev, n);
  if (!v) {
    if (err.status == WGK_ERR_OUT_OF_MEMORY)
      out->failed = true; /* an explanation lost for memory, not a reason */
    else
      util_dynbuf_printf(out, " failed: %s", err.message);
    return;
  }
  bool cmp = n->kind == WGK_N_BINARY && n->tok >= WGK_TK_EQ && n->tok <= WGK_TK_GE;
  if (v->kind == WGK_VALUE_BOOL)
    util_dynbuf_printf(out, " is %s", v->u.b ? "true" : "false");
  else {
    util_dynbuf_append_str(out, " is ");
    append_value(out, v);
    util_dynbuf_append_str(out, ", not true");
  }
  expr_value_release(v);
  if (cmp || n->kind == WGK_N_IN || n->kind == WGK_N_NOT_IN) {
    expr_value *l = expr_eval_node(&ev, n->a), *r = l ? expr_eval_node(&ev, n->b) : NULL;
    if (l && r) {
      util_dynbuf_append_str(out, " (");
      util_dynbuf_append(out, e->text + n->a->start, n->a->end - n->a->start);
      util_dynbuf_append_str(out, " = ");
      append_value(out, l);
      util_dynbuf_append_str(out, ", ");
      append_value(out, r);
      util_dynbuf_append_char(out, ')');
    } else if (err.status == WGK_ERR_OUT_OF_MEMORY) {
      out->failed = true;
    }
    expr_value_release(l);
    expr_value_release(r);
  }
}

/* Finds the first operand of a top-level `and` chain that is not exactly true. */
static const expr_node *first_false(const expr_node *n, const expr_scope *scope, const expr_program *e,
                                    util_dynbuf *out) {
  if (n->kind != WGK_N_AND) return n;
  const expr_node *left = first_false(n->a, scope, e, out);
  util_error err;
  util_error_clear(&err);
  expr_evaluator ev = {.scope = scope, .source = e->source, .err = &err};
  expr_value *v = expr_eval_node(&ev, left);
  bool ok = v && v->kind == WGK_VALUE_BOOL && v->u.b;
  if (!v && err.status == WGK_ERR_OUT_OF_MEMORY) out->failed = true; /* else the wrong operand is explained */
  expr_value_release(v);
  return ok ? first_false(n->b, scope, e, out) : left;
}

void expr_explain_false(const expr_program *e, const expr_value *scope, util_dynbuf *out) {
  expr_scope s = {scope, NULL};
  const expr_node *n = first_false(e->root, &s, e, out);
  if (!out->failed) explain_node(e, n, &s, out);
}
