/* The template parser: text, {{ }}, {% %} and {# #} into a statement tree, with the expression parser
 * driving everything between the delimiters. Unclosed blocks name where they opened. */
#include "template/tmpl_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tparser {
  tmpl_template *t; /* the template being built */
  const char *text; /* t->src.text */
  size_t len;
  size_t pos;           /* where scanning continues */
  tmpl_stmt *last_text; /* the text right before the current tag, for "{%-" */
  int depth;            /* open blocks */
  int loops;            /* open for blocks: break and continue are only valid inside one */
  util_error *err;
} tparser;

static bool is_ws(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static wgk_status fail_at(tparser *p, size_t at, wgk_status st, const char *msg, const char *a, const char *b) {
  size_t k = at < p->t->src.map.len ? at : p->t->src.map.len;
  const expr_srcmap *m = &p->t->src.map;
  return util_error_at(p->err, st, util_pos_make(m->files[m->file[k]], m->line[k], m->col[k]), NULL, msg, a, b);
}

static tmpl_stmt *new_stmt(tparser *p, tmpl_stmt_kind kind, size_t start) {
  tmpl_stmt *s = expr_arena_alloc(&p->t->arena, sizeof *s);
  if (!s) {
    util_error_oom(p->err, NULL, NULL);
    return NULL;
  }
  s->kind = kind;
  s->start = start;
  return s;
}

static bool body_push(tparser *p, tmpl_body *b, tmpl_stmt *s) {
  if (!s) return false;
  if (b->n == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 8;
    tmpl_stmt **items = expr_arena_alloc(&p->t->arena, cap * sizeof *items);
    if (!items) {
      util_error_oom(p->err, NULL, NULL);
      return false;
    }
    if (b->n) memcpy(items, b->items, b->n * sizeof *items);
    b->items = items;
    b->cap = cap;
  }
  b->items[b->n++] = s;
  return true;
}

static void strip_last_text(tparser *p) {
  if (!p->last_text) return;
  while (p->last_text->len && is_ws(p->text[p->last_text->start + p->last_text->len - 1])) p->last_text->len--;
}

/* Starts an expression parser just after a "{{" or "{%" at pos (handling "-" whitespace control). */
static void open_tag(tparser *p, size_t pos, expr_parser *ep) {
  size_t after = pos + 2;
  if (after < p->len && p->text[after] == '-') {
    strip_last_text(p);
    after++;
  }
  p->last_text = NULL;
  expr_parser_init(ep, p->text, p->len, after, NULL, &p->t->arena, p->err);
  ep->map = &p->t->src.map;
  ep->block_ends = true;
  ep->tok = expr_lex(p->text, p->len, after, WGK_TK_EOF, 0, true);
}

/* Expects the closing "%}" (or "}}" when expr) of the current tag and moves past it. */
static bool close_tag(tparser *p, expr_parser *ep, bool expr) {
  const char *at = p->text + ep->tok.start;
  bool ok = ep->tok.kind == WGK_TK_BLOCK_END && (at[ep->tok.len - 2] == (expr ? '}' : '%'));
  if (!ok) {
    char buf[40];
    size_t n = ep->tok.len < 30 ? ep->tok.len : 30;
    memcpy(buf, at, n);
    buf[n] = '\0';
    expr_syntax_error(ep, "'%s' expected near '%s'", expr ? "}}" : "%}",
                      ep->tok.kind == WGK_TK_EOF ? "end of template" : buf);
    return false;
  }
  p->pos = ep->tok.start + ep->tok.len;
  if (at[0] == '-')
    while (p->pos < p->len && is_ws(p->text[p->pos])) p->pos++;
  return true;
}

/* The statement name after "{%" or "{%-" at pos, into name (empty if none). */
static void peek_name(const tparser *p, size_t pos, char *name, size_t size) {
  size_t i = pos + 2;
  if (i < p->len && p->text[i] == '-') i++;
  while (i < p->len && is_ws(p->text[i])) i++;
  size_t n = 0;
  while (i < p->len && n + 1 < size && (p->text[i] == '_' || (p->text[i] >= 'a' && p->text[i] <= 'z')))
    name[n++] = p->text[i++];
  name[n] = '\0';
}

static bool parse_body(tparser *p, tmpl_body *body, const char *const *enders, const char *opener, size_t opened_at,
                       int *which);

/* Consumes an ender tag "{% name %}" at p->pos (already peeked). */
static bool consume_simple_tag(tparser *p) {
  expr_parser ep;
  open_tag(p, p->pos, &ep);
  expr_next(&ep); /* the name */
  return close_tag(p, &ep, false);
}

static const char *const IF_ENDS[] = {"elif", "else", "endif", NULL};
static const char *const ELSE_ENDS[] = {"endif", NULL};
static const char *const FOR_ENDS[] = {"else", "endfor", NULL};
static const char *const ENDFOR[] = {"endfor", NULL};
static const char *const ENDSET[] = {"endset", NULL};
static const char *const ENDMACRO[] = {"endmacro", NULL};
static const char *const ENDCALL[] = {"endcall", NULL};
static const char *const ENDFILTER[] = {"endfilter", NULL};

static bool parse_if(tparser *p, expr_parser *ep, tmpl_stmt *s, size_t at) {
  if (!(s->expr = expr_parse_expression(ep)) || !close_tag(p, ep, false)) return false;
  int which;
  if (!parse_body(p, &s->body, IF_ENDS, "if", at, &which)) return false;
  if (which == 0) { /* elif: a nested if in the else branch, closed by the same endif */
    size_t eat = p->pos;
    tmpl_stmt *e = new_stmt(p, WGK_S_IF, eat);
    expr_parser ep2;
    open_tag(p, p->pos, &ep2);
    expr_next(&ep2);
    return body_push(p, &s->alt, e) && parse_if(p, &ep2, e, at);
  }
  if (which == 1) {
    if (!consume_simple_tag(p) || !parse_body(p, &s->alt, ELSE_ENDS, "if", at, &which)) return false;
  }
  return consume_simple_tag(p);
}

static bool parse_for(tparser *p, expr_parser *ep, tmpl_stmt *s, size_t at) {
  if (!(s->target = expr_parse_sequence(ep, true))) return false;
  if (s->target->kind != WGK_N_NAME && s->target->kind != WGK_N_TUPLE) {
    expr_syntax_error(ep, "loop variable must be a name or names");
    return false;
  }
  for (size_t i = 0; s->target->kind == WGK_N_TUPLE && i < s->target->n; i++)
    if (s->target->items[i]->kind != WGK_N_NAME) {
      expr_syntax_error(ep, "loop variable must be a name or names");
      return false;
    }
  if (!expr_accept_name(ep, "in")) {
    expr_syntax_error(ep, "'in' expected after the loop variable");
    return false;
  }
  if (!(s->expr = expr_parse_expression(ep)) || !close_tag(p, ep, false)) return false;
  if (s->expr->kind == WGK_N_TERNARY && !s->expr->c) {
    s->cond = s->expr->b;
    s->expr = s->expr->a;
  }
  int which;
  if (!parse_body(p, &s->body, FOR_ENDS, "for", at, &which)) return false;
  if (which == 0 && (!consume_simple_tag(p) || !parse_body(p, &s->alt, ENDFOR, "for", at, &which))) return false;
  return consume_simple_tag(p);
}

static bool parse_set(tparser *p, expr_parser *ep, tmpl_stmt *s, size_t at) {
  if (!(s->target = expr_parse_sequence(ep, true))) return false;
  if (s->target->kind != WGK_N_NAME && s->target->kind != WGK_N_TUPLE) {
    expr_syntax_error(ep, "set needs a name or names");
    return false;
  }
  while (s->target->kind != WGK_N_TUPLE && ep->tok.kind == WGK_TK_DOT) { /* set ns.name = v (a namespace attribute) */
    expr_node *m = expr_arena_alloc(&p->t->arena, sizeof *m);
    if (!m) return false;
    *m = *s->target;
    m->kind = WGK_N_MEMBER;
    m->a = s->target;
    expr_next(ep);
    if (ep->tok.kind != WGK_TK_NAME) {
      expr_syntax_error(ep, "name expected after '.'");
      return false;
    }
    if (!(m->str = expr_arena_alloc(&p->t->arena, ep->tok.len + 1))) return false;
    memcpy(m->str, ep->text + ep->tok.start, ep->tok.len);
    m->str[ep->tok.len] = '\0';
    m->str_len = ep->tok.len;
    expr_next(ep);
    s->target = m;
  }
  if (ep->tok.kind == WGK_TK_ASSIGN) {
    expr_next(ep);
    return (s->expr = expr_parse_sequence(ep, false)) && close_tag(p, ep, false);
  }
  int which;
  return close_tag(p, ep, false) && parse_body(p, &s->body, ENDSET, "set", at, &which) && consume_simple_tag(p);
}

static expr_node *params_node(tparser *p, expr_parser *ep) {
  expr_node *n = expr_arena_alloc(&p->t->arena, sizeof *n);
  if (!n) return NULL;
  n->kind = WGK_N_CALL;
  if (!expr_parse_args(ep, n)) return NULL;
  for (size_t i = 0; i < n->n; i++)
    if (n->items[i]->kind != WGK_N_NAME && n->items[i]->kind != WGK_N_KWARG) {
      expr_syntax_error(ep, "macro parameters must be names");
      return NULL;
    }
  return n;
}

static bool parse_macro(tparser *p, expr_parser *ep, tmpl_stmt *s, size_t at) {
  if (ep->tok.kind != WGK_TK_NAME) {
    expr_syntax_error(ep, "macro name expected");
    return false;
  }
  if (!(s->target = expr_parse_primary(ep)) || !(s->params = params_node(p, ep)) || !close_tag(p, ep, false))
    return false;
  int which;
  return parse_body(p, &s->body, ENDMACRO, "macro", at, &which) && consume_simple_tag(p);
}

static bool parse_call(tparser *p, expr_parser *ep, tmpl_stmt *s, size_t at) {
  if (ep->tok.kind == WGK_TK_LPAREN && !(s->params = params_node(p, ep))) return false;
  if (!(s->expr = expr_parse_expression(ep))) return false;
  if (s->expr->kind != WGK_N_CALL || s->expr->a->kind != WGK_N_NAME) {
    expr_syntax_error(ep, "call needs a macro call");
    return false;
  }
  int which;
  return close_tag(p, ep, false) && parse_body(p, &s->body, ENDCALL, "call", at, &which) && consume_simple_tag(p);
}

static bool parse_filter(tparser *p, expr_parser *ep, tmpl_stmt *s, size_t at) {
  size_t start = ep->tok.start;
  if (ep->tok.kind != WGK_TK_NAME) {
    expr_syntax_error(ep, "filter name expected");
    return false;
  }
  expr_node *name = expr_parse_primary(ep);
  if (!name) return false;
  expr_node *f = expr_arena_alloc(&p->t->arena, sizeof *f);
  if (!f) return false;
  *f = *name;
  f->kind = WGK_N_FILTER;
  f->start = start;
  if (ep->tok.kind == WGK_TK_LPAREN) {
    f->has_args = true;
    if (!expr_parse_args(ep, f)) return false;
  }
  s->expr = f;
  int which;
  return close_tag(p, ep, false) && parse_body(p, &s->body, ENDFILTER, "filter", at, &which) && consume_simple_tag(p);
}

/* {% raw %}...{% endraw %}: the text in between, verbatim (an extension: the oracle has no raw). */
static bool parse_raw(tparser *p, expr_parser *ep, tmpl_body *body, size_t at) {
  if (!close_tag(p, ep, false)) return false;
  for (size_t i = p->pos; i + 1 < p->len; i++) {
    char name[16];
    if (p->text[i] != '{' || p->text[i + 1] != '%') continue;
    peek_name(p, i, name, sizeof name);
    if (strcmp(name, "endraw") != 0) continue;
    tmpl_stmt *s = new_stmt(p, WGK_S_TEXT, p->pos);
    if (!s) return false;
    s->len = i - p->pos;
    p->pos = i;
    p->last_text = s;
    return body_push(p, body, s) && consume_simple_tag(p);
  }
  char line[16];
  snprintf(line, sizeof line, "%d", p->t->src.map.line[at < p->t->src.map.len ? at : p->t->src.map.len]);
  fail_at(p, p->len, WGK_ERR_PARSE, "'endraw' expected (to close 'raw' at line %s)%s", line, "");
  return false;
}

/* The statements by name, with the parser of what follows the name (NULL: the tag closes right after it). */
typedef struct stmt_entry {
  const char *name;
  tmpl_stmt_kind kind;
  bool (*parse)(tparser *, expr_parser *, tmpl_stmt *, size_t);
} stmt_entry;

static const stmt_entry *stmt_lookup(const char *name) {
  static const stmt_entry table[] = {
      {"if", WGK_S_IF, parse_if},          {"for", WGK_S_FOR, parse_for},      {"set", WGK_S_SET, parse_set},
      {"macro", WGK_S_MACRO, parse_macro}, {"call", WGK_S_CALL, parse_call},   {"filter", WGK_S_FILTER, parse_filter},
      {"break", WGK_S_BREAK, NULL},        {"continue", WGK_S_CONTINUE, NULL},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (!strcmp(table[i].name, name)) return &table[i];
  return NULL;
}

static bool parse_statement(tparser *p, tmpl_body *body) {
  size_t at = p->pos;
  expr_parser ep;
  open_tag(p, at, &ep);
  if (ep.tok.kind != WGK_TK_NAME) {
    expr_syntax_error(&ep, "statement name expected after '{%%'");
    return false;
  }
  char name[32];
  size_t n = ep.tok.len < sizeof name - 1 ? ep.tok.len : sizeof name - 1;
  memcpy(name, p->text + ep.tok.start, n);
  name[n] = '\0';
  if (!strcmp(name, "raw")) {
    expr_next(&ep);
    return parse_raw(p, &ep, body, at);
  }
  const stmt_entry *e = stmt_lookup(name);
  if (!e) {
    expr_syntax_error(&ep, "unknown or unexpected statement '%s'", name);
    return false;
  }
  tmpl_stmt_kind kind = e->kind;
  bool (*fn)(tparser *, expr_parser *, tmpl_stmt *, size_t) = e->parse;
  if ((kind == WGK_S_BREAK || kind == WGK_S_CONTINUE) && p->loops == 0) {
    fail_at(p, at, WGK_ERR_PARSE, "'%s' outside a for loop%s", name, "");
    return false;
  }
  tmpl_stmt *s = new_stmt(p, kind, at);
  if (!s) return false;
  expr_next(&ep);
  if (!fn) return close_tag(p, &ep, false) && body_push(p, body, s);
  if (++p->depth > WGK_TMPL_MAX_BLOCK_DEPTH) {
    fail_at(p, at, WGK_ERR_LIMIT, "blocks nested too deeply (limit is %s)%s", "100", "");
    return false;
  }
  p->loops += kind == WGK_S_FOR;
  bool ok = fn(p, &ep, s, at) && body_push(p, body, s);
  p->loops -= kind == WGK_S_FOR;
  p->depth--;
  return ok;
}

static bool parse_output(tparser *p, tmpl_body *body) {
  expr_parser ep;
  tmpl_stmt *s = new_stmt(p, WGK_S_OUTPUT, p->pos);
  open_tag(p, p->pos, &ep);
  return s && (s->expr = expr_parse_expression(&ep)) && close_tag(p, &ep, true) && body_push(p, body, s);
}

static bool parse_comment(tparser *p) {
  size_t at = p->pos, i = at + 2;
  if (i < p->len && p->text[i] == '-') {
    strip_last_text(p);
    i++;
  }
  p->last_text = NULL;
  const char *end = expr_find(p->text + i, p->len - i, "#}", 2);
  if (!end) {
    fail_at(p, at, WGK_ERR_PARSE, "unclosed comment%s%s", "", "");
    return false;
  }
  p->pos = (size_t)(end - p->text) + 2;
  if (end > p->text + i && end[-1] == '-')
    while (p->pos < p->len && is_ws(p->text[p->pos])) p->pos++;
  return true;
}

static bool parse_body(tparser *p, tmpl_body *body, const char *const *enders, const char *opener, size_t opened_at,
                       int *which) {
  while (p->pos < p->len) {
    size_t i = p->pos;
    while (i + 1 < p->len && !(p->text[i] == '{' && strchr("{%#", p->text[i + 1]))) i++;
    if (i + 1 >= p->len) i = p->len;
    if (i > p->pos) {
      tmpl_stmt *s = new_stmt(p, WGK_S_TEXT, p->pos);
      if (!s) return false;
      s->len = i - p->pos;
      p->last_text = s;
      p->pos = i;
      if (!body_push(p, body, s)) return false;
      continue;
    }
    char c = p->text[i + 1];
    if (c == '#') {
      if (!parse_comment(p)) return false;
      continue;
    }
    if (c == '{') {
      if (!parse_output(p, body)) return false;
      continue;
    }
    char name[32];
    peek_name(p, i, name, sizeof name);
    for (int k = 0; enders && enders[k]; k++)
      if (!strcmp(name, enders[k])) {
        *which = k;
        return true;
      }
    if (!parse_statement(p, body)) return false;
  }
  if (enders) {
    const expr_srcmap *m = &p->t->src.map;
    char line[16];
    snprintf(line, sizeof line, "%d", m->line[opened_at]);
    size_t k = p->len;
    const char *want = enders[0];
    for (int e = 1; enders[e]; e++) want = enders[e]; /* the closing word is always last */
    util_error_at(p->err, WGK_ERR_PARSE, util_pos_make(m->files[m->file[k]], m->line[k], m->col[k]), NULL,
                  "'%s' expected (to close '%s' at line %s)", want, opener, line);
    return false;
  }
  *which = -1;
  return true;
}

wgk_status tmpl_parse_src(tmpl_template *t, util_error *err) {
  tparser p = {.t = t, .text = t->src.text, .len = t->src.len, .err = err};
  int which;
  if (!parse_body(&p, &t->body, NULL, NULL, 0, &which)) {
    if (!util_error_is_set(err)) fail_at(&p, p.pos, WGK_ERR_PARSE, "cannot parse template%s%s", "", "");
    return err ? err->status : WGK_ERR_PARSE;
  }
  return WGK_OK;
}
