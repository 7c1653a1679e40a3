/*
 * The expression parser: recursive descent for the unary and postfix levels and a {left, right}
 * priority table for the binary operators (Lua's lparser.c subexpr). Every binary level of the oracle
 * is left-associative, `**` included (2 ** 3 ** 2 is 64 there), so left == right everywhere.
 */
#include "expr/expr_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct expr_arena {
  struct expr_arena *next; /* older chunk */
  size_t used, cap;        /* bytes of data in use / allocated */
  max_align_t data[];      /* the memory handed out */
};

void *expr_arena_alloc(expr_arena **a, size_t size) {
  size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  if (!*a || (*a)->cap - (*a)->used < size) {
    size_t cap = size > 16384 ? size : 16384;
    expr_arena *c = malloc(sizeof *c + cap);
    if (!c) return NULL;
    c->next = *a;
    c->used = 0;
    c->cap = cap;
    *a = c;
  }
  void *p = (char *)(*a)->data + (*a)->used;
  (*a)->used += size;
  memset(p, 0, size);
  return p;
}

void expr_arena_free(expr_arena *a) {
  while (a) {
    expr_arena *next = a->next;
    free(a);
    a = next;
  }
}

const char *expr_position(expr_parser *p, size_t offset, int *line, int *col) {
  if (p->map) {
    size_t k = offset < p->map->len ? offset : p->map->len;
    *line = p->map->line[k];
    *col = p->map->col[k];
    return p->map->files[p->map->file[k]];
  }
  size_t end = offset < p->len ? offset : p->len;
  if (end < p->lines_at) p->lines_at = p->lines = p->line_start = 0; /* behind the last one: count from the start */
  for (size_t i = p->lines_at; i < end; i++)
    if (p->text[i] == '\n') {
      p->lines++;
      p->line_start = i + 1;
    }
  p->lines_at = end;
  *line = (int)p->lines + 1;
  *col = (int)(offset - p->line_start) + 1;
  return p->source;
}

wgk_status expr_syntax_error(expr_parser *p, const char *fmt, ...) {
  int line, col;
  const char *src = expr_position(p, p->tok.start, &line, &col);
  va_list ap;
  va_start(ap, fmt);
  util_error_atv(p->err, WGK_ERR_PARSE, util_pos_make(src, line, col), NULL, fmt, ap);
  va_end(ap);
  return WGK_ERR_PARSE;
}

void expr_next(expr_parser *p) {
  if (p->tok.kind == WGK_TK_LBRACE) p->brace_depth++;
  if (p->tok.kind == WGK_TK_RBRACE) p->brace_depth--;
  p->prev = p->tok.kind;
  p->pos = p->tok.start + p->tok.len;
  p->tok = expr_lex(p->text, p->len, p->pos, p->prev, p->brace_depth, p->block_ends);
}

void expr_parser_init(expr_parser *p, const char *text, size_t len, size_t pos, const char *source, expr_arena **arena,
                      util_error *err) {
  memset(p, 0, sizeof *p);
  p->text = text;
  p->len = len;
  p->pos = pos;
  p->source = source;
  p->arena = arena;
  p->err = err;
  p->prev = WGK_TK_EOF;
  p->tok = expr_lex(text, len, pos, WGK_TK_EOF, 0, false);
}

bool expr_at_name(const expr_parser *p, const char *word) {
  size_t n = strlen(word);
  return p->tok.kind == WGK_TK_NAME && p->tok.len == n && memcmp(p->text + p->tok.start, word, n) == 0;
}

bool expr_accept_name(expr_parser *p, const char *word) {
  if (!expr_at_name(p, word)) return false;
  expr_next(p);
  return true;
}

static const char *tok_text(const expr_parser *p, char *buf, size_t size) {
  if (p->tok.kind == WGK_TK_EOF) return "end of expression";
  size_t n = p->tok.len < size - 3 ? p->tok.len : size - 3;
  snprintf(buf, size, "'%.*s'", (int)n, p->text + p->tok.start);
  return buf;
}

static expr_node *new_node(expr_parser *p, expr_node_kind kind, size_t start) {
  expr_node *n = expr_arena_alloc(p->arena, sizeof *n);
  if (!n) {
    util_error_oom(p->err, p->source, NULL);
    return NULL;
  }
  n->kind = kind;
  n->start = start;
  n->end = p->pos;
  n->src = expr_position(p, start, &n->line, &n->col);
  return n;
}

static bool expect(expr_parser *p, expr_tok kind, const char *what) {
  if (p->tok.kind == kind) {
    expr_next(p);
    return true;
  }
  char buf[64];
  expr_syntax_error(p, "%s expected near %s", what, tok_text(p, buf, sizeof buf));
  return false;
}

/* Growing item arrays live in the arena too: doubling, old copies are simply left behind. */
static bool push_item(expr_parser *p, expr_node *n, size_t *cap, expr_node *item) {
  if (!item) return false;
  if (n->n == *cap) {
    size_t c = *cap ? *cap * 2 : 4;
    expr_node **items = expr_arena_alloc(p->arena, c * sizeof *items);
    if (!items) {
      util_error_oom(p->err, p->source, NULL);
      return false;
    }
    if (n->n) memcpy(items, n->items, n->n * sizeof *items);
    n->items = items;
    *cap = c;
  }
  n->items[n->n++] = item;
  return true;
}

static bool enter(expr_parser *p) {
  if (++p->depth <= WGK_EXPR_MAX_DEPTH) return true;
  util_error_in(p->err, WGK_ERR_LIMIT, p->source, NULL, "expression nested too deeply (limit is %d)",
                WGK_EXPR_MAX_DEPTH);
  int line, col;
  const char *src = expr_position(p, p->tok.start, &line, &col);
  util_error_wrap(p->err, util_pos_make(src, line, col), NULL);
  return false;
}

static const char escapes_from[] = "ntrbfv'\"\\";
static const char escapes_to[] = "\n\t\r\b\f\v'\"\\";

/* Copies a quoted string without its quotes, resolving the oracle's escapes; appends to *dst. */
static bool unescape(expr_parser *p, const expr_token *t, char *dst, size_t *dlen) {
  for (size_t i = t->start + 1; i + 1 < t->start + t->len; i++) {
    char c = p->text[i];
    if (c == '\\') {
      const char *e = strchr(escapes_from, p->text[i + 1]);
      if (!e || !p->text[i + 1]) {
        p->tok = *t;
        expr_syntax_error(p, "unknown escape '\\%c' in string", p->text[i + 1]);
        return false;
      }
      c = escapes_to[e - escapes_from];
      i++;
    }
    dst[(*dlen)++] = c;
  }
  return true;
}

static expr_node *string_literal(expr_parser *p) {
  expr_node *n = new_node(p, WGK_N_STRING, p->tok.start);
  size_t total = 0, pos = p->pos;
  expr_tok prev = p->prev;
  /* Adjacent strings join: measure them all first. */
  for (expr_token t = p->tok; t.kind == WGK_TK_STRING;) {
    total += t.len;
    pos = t.start + t.len;
    t = expr_lex(p->text, p->len, pos, WGK_TK_STRING, p->brace_depth, p->block_ends);
  }
  (void)prev;
  char *buf = n ? expr_arena_alloc(p->arena, total + 1) : NULL;
  if (!buf) return NULL;
  size_t blen = 0;
  while (p->tok.kind == WGK_TK_STRING) {
    expr_token t = p->tok;
    if (!unescape(p, &t, buf, &blen)) return NULL;
    expr_next(p);
  }
  buf[blen] = '\0';
  n->str = buf;
  n->str_len = blen;
  return n;
}

static expr_node *number_literal(expr_parser *p) {
  expr_node *n = new_node(p, p->tok.kind == WGK_TK_INT ? WGK_N_INT : WGK_N_FLOAT, p->tok.start);
  if (!n) return NULL;
  char buf[400];
  size_t len = p->tok.len < sizeof buf - 1 ? p->tok.len : sizeof buf - 1;
  memcpy(buf, p->text + p->tok.start, len);
  buf[len] = '\0';
  n->d = strtod(buf, NULL);
  /* Integers are range-checked when evaluated, where the error can carry the node; strtoll saturates. */
  n->i = n->kind == WGK_N_INT ? strtoll(buf, NULL, 10) : 0;
  expr_next(p);
  return n;
}

static char *name_copy(expr_parser *p) {
  char *s = expr_arena_alloc(p->arena, p->tok.len + 1);
  if (!s) {
    util_error_oom(p->err, p->source, NULL);
    return NULL;
  }
  memcpy(s, p->text + p->tok.start, p->tok.len);
  return s;
}

static expr_node *bracketed(expr_parser *p, expr_node_kind kind, expr_tok close) {
  expr_node *n = new_node(p, kind, p->tok.start);
  size_t cap = 0;
  if (!n) return NULL;
  expr_next(p);
  while (p->tok.kind != close) {
    if (p->tok.kind == WGK_TK_EOF || p->tok.kind == WGK_TK_BLOCK_END) {
      expect(p, close, close == WGK_TK_RBRACKET ? "']'" : "'}'");
      return NULL;
    }
    if (!push_item(p, n, &cap, expr_parse_expression(p))) return NULL;
    if (kind == WGK_N_DICT) {
      if (!expect(p, WGK_TK_COLON, "':'")) return NULL;
      if (!push_item(p, n, &cap, expr_parse_expression(p))) return NULL;
    }
    if (p->tok.kind == WGK_TK_COMMA)
      expr_next(p);
    else if (p->tok.kind != close) {
      expect(p, close, close == WGK_TK_RBRACKET ? "']'" : "'}'");
      return NULL;
    }
  }
  expr_next(p);
  n->end = p->pos;
  return n;
}

expr_node *expr_parse_primary(expr_parser *p) {
  char buf[64];
  switch (p->tok.kind) {
  case WGK_TK_INT:
  case WGK_TK_FLOAT:
    return number_literal(p);
  case WGK_TK_STRING:
    return string_literal(p);
  case WGK_TK_NAME: {
    expr_node *n = new_node(p, WGK_N_NAME, p->tok.start);
    if (!n || !(n->str = name_copy(p))) return NULL;
    n->str_len = p->tok.len;
    expr_next(p);
    n->end = p->pos;
    return n;
  }
  case WGK_TK_LPAREN: {
    expr_next(p);
    expr_node *n = expr_parse_sequence(p, false);
    if (!n || !expect(p, WGK_TK_RPAREN, "')'")) return NULL;
    return n;
  }
  case WGK_TK_LBRACKET:
    return bracketed(p, WGK_N_LIST, WGK_TK_RBRACKET);
  case WGK_TK_LBRACE:
    return bracketed(p, WGK_N_DICT, WGK_TK_RBRACE);
  case WGK_TK_ILLEGAL:
    if (p->text[p->tok.start] == '"' || p->text[p->tok.start] == '\'')
      expr_syntax_error(p, "unterminated string");
    else
      expr_syntax_error(p, "unexpected character %s", tok_text(p, buf, sizeof buf));
    return NULL;
  default:
    expr_syntax_error(p, "unexpected %s", tok_text(p, buf, sizeof buf));
    return NULL;
  }
}

expr_node *expr_parse_sequence(expr_parser *p, bool primary) {
  size_t start = p->tok.start;
  expr_node *first = primary ? expr_parse_primary(p) : expr_parse_expression(p);
  if (!first || p->tok.kind != WGK_TK_COMMA) return first;
  expr_node *t = new_node(p, WGK_N_TUPLE, start);
  size_t cap = 0;
  if (!t || !push_item(p, t, &cap, first)) return NULL;
  while (p->tok.kind == WGK_TK_COMMA) {
    expr_next(p);
    if (p->tok.kind == WGK_TK_RPAREN) break; /* (a, b,) */
    if (!push_item(p, t, &cap, primary ? expr_parse_primary(p) : expr_parse_expression(p))) return NULL;
  }
  t->end = p->pos;
  return t;
}

bool expr_parse_args(expr_parser *p, expr_node *node) {
  size_t cap = 0;
  bool saw_keyword = false;
  if (!expect(p, WGK_TK_LPAREN, "'('")) return false;
  while (p->tok.kind != WGK_TK_RPAREN) {
    if (p->tok.kind == WGK_TK_EOF || p->tok.kind == WGK_TK_BLOCK_END) return expect(p, WGK_TK_RPAREN, "')'");
    expr_node *arg = expr_parse_expression(p);
    if (!arg) return false;
    if (p->tok.kind == WGK_TK_ASSIGN) {
      if (arg->kind != WGK_N_NAME) {
        expr_syntax_error(p, "keyword argument needs a name before '='");
        return false;
      }
      expr_next(p);
      arg->kind = WGK_N_KWARG;
      if (!(arg->a = expr_parse_expression(p))) return false;
      saw_keyword = true;
    } else if (saw_keyword) {
      expr_syntax_error(p, "positional argument follows keyword argument");
      return false;
    }
    if (!push_item(p, node, &cap, arg)) return false;
    if (p->tok.kind == WGK_TK_COMMA)
      expr_next(p);
    else if (p->tok.kind != WGK_TK_RPAREN)
      return expect(p, WGK_TK_RPAREN, "')'");
  }
  expr_next(p);
  node->end = p->pos;
  return true;
}

/* a[...]: an index or a slice of up to three parts. */
static expr_node *subscript(expr_parser *p, expr_node *obj) {
  expr_node *n = new_node(p, WGK_N_INDEX, p->tok.start);
  if (!n) return NULL;
  n->a = obj;
  expr_next(p);
  expr_node *parts[3] = {NULL, NULL, NULL};
  int count = 0;
  bool slice = false;
  while (p->tok.kind != WGK_TK_RBRACKET) {
    if (count == 3) {
      expr_syntax_error(p, "a slice has at most 3 parts");
      return NULL;
    }
    if (p->tok.kind == WGK_TK_EOF || p->tok.kind == WGK_TK_BLOCK_END) {
      expect(p, WGK_TK_RBRACKET, "']'");
      return NULL;
    }
    if (p->tok.kind == WGK_TK_COLON) {
      count++;
      slice = true;
      expr_next(p);
      continue;
    }
    if (!(parts[count] = expr_parse_expression(p))) return NULL;
    if (p->tok.kind == WGK_TK_COLON) {
      count++;
      slice = true;
      expr_next(p);
    } else if (p->tok.kind != WGK_TK_RBRACKET) {
      expect(p, WGK_TK_RBRACKET, "']'");
      return NULL;
    } else
      count++;
  }
  if (count == 0) {
    expr_syntax_error(p, "empty subscript");
    return NULL;
  }
  expr_next(p);
  if (slice) {
    n->kind = WGK_N_SLICE;
    n->items = expr_arena_alloc(p->arena, 3 * sizeof *n->items);
    if (!n->items) return NULL;
    memcpy(n->items, parts, sizeof parts);
    n->n = 3;
  } else {
    n->b = parts[0];
  }
  n->end = p->pos;
  return n;
}

static expr_node *postfix(expr_parser *p) {
  size_t start = p->tok.start;
  expr_node *e = expr_parse_primary(p);
  while (e) {
    if (p->tok.kind == WGK_TK_DOT) {
      expr_next(p);
      expr_node *m = new_node(p, WGK_N_MEMBER, start);
      if (!m) return NULL;
      m->a = e;
      if (p->tok.kind == WGK_TK_INT) { /* a.0 is a[0] */
        m->kind = WGK_N_INDEX;
        if (!(m->b = number_literal(p))) return NULL;
      } else if (p->tok.kind == WGK_TK_NAME) {
        if (!(m->str = name_copy(p))) return NULL;
        m->str_len = p->tok.len;
        expr_next(p);
      } else {
        expr_syntax_error(p, "name expected after '.'");
        return NULL;
      }
      m->end = p->pos;
      e = m;
    } else if (p->tok.kind == WGK_TK_LBRACKET) {
      e = subscript(p, e);
      if (e) e->start = start;
    } else if (p->tok.kind == WGK_TK_LPAREN) {
      expr_node *c = new_node(p, WGK_N_CALL, start);
      if (!c) return NULL;
      c->line = e->line;
      c->col = e->col;
      c->a = e;
      if (!expr_parse_args(p, c)) return NULL;
      e = c;
    } else {
      break;
    }
  }
  return e;
}

static expr_node *unary_sign(expr_parser *p) {
  expr_tok k = p->tok.kind;
  if (k == WGK_TK_UMINUS || k == WGK_TK_UPLUS || k == WGK_TK_MINUS || k == WGK_TK_PLUS) {
    expr_node *n = new_node(p, WGK_N_UNARY, p->tok.start);
    if (!n || !enter(p)) return NULL;
    n->tok = (k == WGK_TK_UMINUS || k == WGK_TK_MINUS) ? WGK_TK_MINUS : WGK_TK_PLUS;
    expr_next(p);
    n->a = unary_sign(p);
    p->depth--;
    n->end = p->pos;
    return n->a ? n : NULL;
  }
  return postfix(p);
}

/* x | f | g(1): filters apply left to right to the unary-signed operand. */
static expr_node *filters(expr_parser *p) {
  size_t start = p->tok.start;
  expr_node *e = unary_sign(p);
  while (e && p->tok.kind == WGK_TK_PIPE) {
    expr_next(p);
    expr_node *f = new_node(p, WGK_N_FILTER, p->tok.start);
    if (!f) return NULL;
    if (p->tok.kind != WGK_TK_NAME) {
      expr_syntax_error(p, "filter name expected after '|'");
      return NULL;
    }
    f->a = e;
    if (!(f->str = name_copy(p))) return NULL;
    expr_next(p);
    if (p->tok.kind == WGK_TK_LPAREN) {
      f->has_args = true;
      if (!expr_parse_args(p, f)) return NULL;
    }
    f->start = start;
    f->end = p->pos;
    e = f;
  }
  return e;
}

/* x is [not] name, optionally name(args) (an extension: the oracle's tests take no argument there). */
static expr_node *tests(expr_parser *p) {
  size_t start = p->tok.start;
  expr_node *e = filters(p);
  while (e && expr_at_name(p, "is")) {
    expr_next(p);
    expr_node *t = new_node(p, WGK_N_TEST, p->tok.start);
    if (!t) return NULL;
    t->a = e;
    t->negate = expr_accept_name(p, "not");
    if (p->tok.kind != WGK_TK_NAME) {
      expr_syntax_error(p, "test name expected after 'is'");
      return NULL;
    }
    if (!(t->str = name_copy(p))) return NULL;
    expr_next(p);
    if (p->tok.kind == WGK_TK_LPAREN) {
      t->has_args = true;
      if (!expr_parse_args(p, t)) return NULL;
    }
    t->start = start;
    t->end = p->pos;
    e = t;
  }
  return e;
}

/* Binary operators: {left, right} priority; `not` (3) is a prefix between `and` and comparisons. */
typedef struct {
  expr_node_kind kind;
  expr_tok tok;
  int left, right;
  size_t width;
} binop;

static bool binary_op(expr_parser *p, binop *op) {
  expr_tok k = p->tok.kind;
  *op = (binop){WGK_N_BINARY, k, 0, 0, 1};
  switch (k) {
  case WGK_TK_POW:
    op->left = op->right = 7;
    return true;
  case WGK_TK_STAR:
  case WGK_TK_SLASH:
  case WGK_TK_DSLASH:
  case WGK_TK_PERCENT:
    op->left = op->right = 6;
    return true;
  case WGK_TK_PLUS:
  case WGK_TK_MINUS:
  case WGK_TK_TILDE:
    op->left = op->right = 5;
    return true;
  case WGK_TK_EQ:
  case WGK_TK_NE:
  case WGK_TK_LT:
  case WGK_TK_GT:
  case WGK_TK_LE:
  case WGK_TK_GE:
    op->left = op->right = 4;
    return true;
  default:
    break;
  }
  if (expr_at_name(p, "in")) {
    *op = (binop){WGK_N_IN, k, 4, 4, 1};
    return true;
  }
  if (expr_at_name(p, "not")) {
    expr_token save = p->tok;
    expr_token next = expr_lex(p->text, p->len, save.start + save.len, WGK_TK_NAME, p->brace_depth, p->block_ends);
    if (next.kind == WGK_TK_NAME && next.len == 2 && memcmp(p->text + next.start, "in", 2) == 0) {
      *op = (binop){WGK_N_NOT_IN, k, 4, 4, 2};
      return true;
    }
    return false;
  }
  if (expr_at_name(p, "and")) {
    *op = (binop){WGK_N_AND, k, 2, 2, 1};
    return true;
  }
  if (expr_at_name(p, "or")) {
    *op = (binop){WGK_N_OR, k, 1, 1, 1};
    return true;
  }
  return false;
}

#define NOT_PRIORITY 3

static expr_node *subexpr(expr_parser *p, int limit) {
  if (!enter(p)) return NULL;
  size_t start = p->tok.start;
  expr_node *e;
  if (limit < NOT_PRIORITY && expr_at_name(p, "not")) {
    e = new_node(p, WGK_N_NOT, start);
    if (!e) return NULL;
    expr_next(p);
    if (!(e->a = subexpr(p, NOT_PRIORITY - 1))) return NULL;
    e->end = p->pos;
  } else {
    e = tests(p);
  }
  binop op;
  while (e && binary_op(p, &op) && op.left > limit) {
    expr_node *b = new_node(p, op.kind, start);
    if (!b) return NULL;
    b->line = 0;
    expr_position(p, p->tok.start, &b->line, &b->col); /* errors point at the operator */
    for (size_t i = 0; i < op.width; i++) expr_next(p);
    b->tok = op.tok;
    b->a = e;
    if (!(b->b = subexpr(p, op.right))) return NULL;
    b->end = p->pos;
    e = b;
  }
  p->depth--;
  return e;
}

expr_node *expr_parse_expression(expr_parser *p) {
  size_t start = p->tok.start;
  if (!enter(p)) return NULL;
  expr_node *a = subexpr(p, 0);
  if (a && expr_accept_name(p, "if")) {
    expr_node *t = new_node(p, WGK_N_TERNARY, start);
    if (!t) return NULL;
    t->a = a;
    if (!(t->b = subexpr(p, 0))) return NULL;
    if (expr_accept_name(p, "else") && !(t->c = expr_parse_expression(p))) return NULL;
    t->end = p->pos;
    a = t;
  }
  p->depth--;
  return a;
}
