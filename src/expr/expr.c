/* The public face of the expression language: parse, evaluate, render, explain. */
#include "expr/expr_int.h"

#include <stdlib.h>
#include <string.h>

struct wgk_expr {
  wgk_arena *arena; /* every node and string */
  wgk_node *root;   /* the expression */
  char *text;       /* a copy of the source text */
  char *source;     /* name in errors */
};

wgk_expr *wgk_expr_parse(const char *text, size_t len, const char *source, wgk_error *err) {
  if (!text) text = "";
  if (len == (size_t)-1) len = strlen(text);
  if (!source) source = "<expr>";
  if (len > WGK_EXPR_MAX_LENGTH) {
    wgk_error_set(err, WGK_ERR_LIMIT, source, 0, 0, NULL, "expression too long (limit is %d bytes)",
                  WGK_EXPR_MAX_LENGTH);
    return NULL;
  }
  wgk_expr *e = calloc(1, sizeof *e);
  if (e) e->text = malloc(len + 1);
  if (e) e->source = strdup(source);
  if (!e || !e->text || !e->source) {
    wgk_expr_free(e);
    wgk_error_set(err, WGK_ERR_OUT_OF_MEMORY, source, 0, 0, NULL, "out of memory");
    return NULL;
  }
  memcpy(e->text, text, len);
  e->text[len] = '\0';
  wgk_parser p;
  wgk_expr_parser_init(&p, e->text, len, 0, e->source, &e->arena, err);
  e->root = wgk_expr_parse_expression(&p);
  if (e->root && p.tok.kind != WGK_TK_EOF) {
    char buf[40];
    size_t n = p.tok.len < 30 ? p.tok.len : 30;
    memcpy(buf, e->text + p.tok.start, n);
    buf[n] = '\0';
    wgk_expr_syntax_error(&p, "unexpected '%s' after the expression", buf);
    e->root = NULL;
  }
  if (!e->root) {
    if (!wgk_error_is_set(err)) wgk_error_set(err, WGK_ERR_PARSE, e->source, 1, 1, NULL, "cannot parse expression");
    wgk_expr_free(e);
    return NULL;
  }
  return e;
}

void wgk_expr_free(wgk_expr *e) {
  if (!e) return;
  wgk_expr_arena_free(e->arena);
  free(e->text);
  free(e->source);
  free(e);
}

const char *wgk_expr_text(const wgk_expr *e) { return e ? e->text : ""; }

wgk_status wgk_expr_eval_in(const wgk_expr *e, const wgk_expr_scope *scope, wgk_value **out, wgk_error *err) {
  *out = NULL;
  wgk_eval ev = {.scope = scope, .source = e->source, .err = err};
  *out = wgk_expr_eval_node(&ev, e->root);
  if (*out) return WGK_OK;
  if (!wgk_error_is_set(err)) wgk_error_set(err, WGK_ERR_EVAL, e->source, 0, 0, NULL, "evaluation failed");
  return err ? err->status : WGK_ERR_EVAL;
}

wgk_status wgk_expr_eval(const wgk_expr *e, const wgk_value *scope, wgk_value **out, wgk_error *err) {
  wgk_expr_scope s = {scope, NULL};
  return wgk_expr_eval_in(e, &s, out, err);
}

wgk_status wgk_expr_render(const char *text, const wgk_value *scope, wgk_dynbuf *out, wgk_error *err) {
  wgk_expr *e = wgk_expr_parse(text, (size_t)-1, NULL, err);
  if (!e) return err ? err->status : WGK_ERR_PARSE;
  wgk_value *v = NULL;
  wgk_status st = wgk_expr_eval(e, scope, &v, err);
  if (st == WGK_OK && !wgk_value_print(v, out))
    st = wgk_error_set(err, WGK_ERR_LIMIT, "<expr>", 0, 0, NULL, "output too long");
  wgk_value_release(v);
  wgk_expr_free(e);
  return st;
}

static void append_value(wgk_dynbuf *out, const wgk_value *v) {
  if (wgk_value_kind_of(v) == WGK_VALUE_STRING)
    wgk_dynbuf_printf(out, "'%s'", v->u.str.s);
  else if (wgk_value_kind_of(v) == WGK_VALUE_UNDEFINED)
    wgk_dynbuf_append_str(out, "undefined");
  else if (wgk_value_kind_of(v) == WGK_VALUE_NONE)
    wgk_dynbuf_append_str(out, "none");
  else
    wgk_value_print(v, out);
}

static void explain_node(const wgk_expr *e, const wgk_node *n, const wgk_expr_scope *scope, wgk_dynbuf *out) {
  wgk_error err;
  wgk_error_clear(&err);
  wgk_eval ev = {.scope = scope, .source = e->source, .err = &err};
  wgk_dynbuf_append(out, e->text + n->start, n->end - n->start);
  wgk_value *v = wgk_expr_eval_node(&ev, n);
  if (!v) {
    if (err.status == WGK_ERR_OUT_OF_MEMORY)
      out->failed = true; /* an explanation lost for memory, not a reason */
    else
      wgk_dynbuf_printf(out, " failed: %s", err.message);
    return;
  }
  bool cmp = n->kind == WGK_N_BINARY && n->tok >= WGK_TK_EQ && n->tok <= WGK_TK_GE;
  if (v->kind == WGK_VALUE_BOOL)
    wgk_dynbuf_printf(out, " is %s", v->u.b ? "true" : "false");
  else {
    wgk_dynbuf_append_str(out, " is ");
    append_value(out, v);
    wgk_dynbuf_append_str(out, ", not true");
  }
  wgk_value_release(v);
  if (cmp || n->kind == WGK_N_IN || n->kind == WGK_N_NOT_IN) {
    wgk_value *l = wgk_expr_eval_node(&ev, n->a), *r = l ? wgk_expr_eval_node(&ev, n->b) : NULL;
    if (l && r) {
      wgk_dynbuf_append_str(out, " (");
      wgk_dynbuf_append(out, e->text + n->a->start, n->a->end - n->a->start);
      wgk_dynbuf_append_str(out, " = ");
      append_value(out, l);
      wgk_dynbuf_append_str(out, ", ");
      append_value(out, r);
      wgk_dynbuf_append_char(out, ')');
    } else if (err.status == WGK_ERR_OUT_OF_MEMORY) {
      out->failed = true;
    }
    wgk_value_release(l);
    wgk_value_release(r);
  }
}

/* Finds the first operand of a top-level `and` chain that is not exactly true. */
static const wgk_node *first_false(const wgk_node *n, const wgk_expr_scope *scope, const wgk_expr *e, wgk_dynbuf *out) {
  if (n->kind != WGK_N_AND) return n;
  const wgk_node *left = first_false(n->a, scope, e, out);
  wgk_error err;
  wgk_error_clear(&err);
  wgk_eval ev = {.scope = scope, .source = e->source, .err = &err};
  wgk_value *v = wgk_expr_eval_node(&ev, left);
  bool ok = v && v->kind == WGK_VALUE_BOOL && v->u.b;
  if (!v && err.status == WGK_ERR_OUT_OF_MEMORY) out->failed = true; /* else the wrong operand is explained */
  wgk_value_release(v);
  return ok ? first_false(n->b, scope, e, out) : left;
}

void wgk_expr_explain_false(const wgk_expr *e, const wgk_value *scope, wgk_dynbuf *out) {
  wgk_expr_scope s = {scope, NULL};
  const wgk_node *n = first_false(e->root, &s, e, out);
  if (!out->failed) explain_node(e, n, &s, out);
}
