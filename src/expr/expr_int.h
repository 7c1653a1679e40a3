/* Internal interfaces of the expression language: tokens, the AST, the parser over a token cursor
 * (the template parser drives it too), and the evaluator. */
#ifndef WGK_EXPR_EXPR_INT_H
#define WGK_EXPR_EXPR_INT_H

#include "expr/value_int.h"

/* ---- Lexer ---- */
typedef enum wgk_tok {
  WGK_TK_EOF,
  WGK_TK_INT,
  WGK_TK_FLOAT,
  WGK_TK_STRING,
  WGK_TK_NAME,
  WGK_TK_LPAREN,
  WGK_TK_RPAREN,
  WGK_TK_LBRACKET,
  WGK_TK_RBRACKET,
  WGK_TK_LBRACE,
  WGK_TK_RBRACE,
  WGK_TK_COMMA,
  WGK_TK_DOT,
  WGK_TK_COLON,
  WGK_TK_PIPE,
  WGK_TK_ASSIGN,
  WGK_TK_EQ,
  WGK_TK_NE,
  WGK_TK_LT,
  WGK_TK_GT,
  WGK_TK_LE,
  WGK_TK_GE,
  WGK_TK_PLUS,
  WGK_TK_MINUS,
  WGK_TK_TILDE,
  WGK_TK_STAR,
  WGK_TK_SLASH,
  WGK_TK_DSLASH,
  WGK_TK_PERCENT,
  WGK_TK_POW,
  WGK_TK_UPLUS,
  WGK_TK_UMINUS,    /* a sign where a value is expected and no digits follow */
  WGK_TK_BLOCK_END, /* "}}", "%}", "-}}", "-%}" (only when the caller asks for them) */
  WGK_TK_ILLEGAL,   /* a byte that starts no token, or an unterminated string */
} wgk_tok;

typedef struct wgk_token {
  wgk_tok kind; /* what it is */
  size_t start; /* byte offset of its first byte */
  size_t len;   /* bytes it spans */
} wgk_token;

/* The token at pos. prev is the previous token's kind (WGK_TK_EOF at the start): a sign after a value
 * is an operator, elsewhere it joins the digits that follow it (the oracle's rule). brace_depth > 0 keeps
 * "}}" from ending a block inside a dict literal; block_ends says whether "}}"/"%}" are tokens at all. */
wgk_token wgk_expr_lex(const char *s, size_t len, size_t pos, wgk_tok prev, int brace_depth, bool block_ends);

/* ---- AST ---- */
typedef enum wgk_node_kind {
  WGK_N_INT,
  WGK_N_FLOAT,
  WGK_N_STRING,
  WGK_N_NAME,
  WGK_N_LIST,
  WGK_N_TUPLE,
  WGK_N_DICT,
  WGK_N_BINARY, /* op in tok; a, b */
  WGK_N_AND,
  WGK_N_OR,
  WGK_N_NOT,
  WGK_N_UNARY,   /* tok is WGK_TK_PLUS or WGK_TK_MINUS; a */
  WGK_N_TERNARY, /* a if b else c; c NULL for `a if b` */
  WGK_N_IN,
  WGK_N_NOT_IN,
  WGK_N_TEST,   /* a is [not] name(items) */
  WGK_N_FILTER, /* a | name(items) */
  WGK_N_MEMBER, /* a.name (str) */
  WGK_N_INDEX,  /* a[b] */
  WGK_N_SLICE,  /* a[items[0]:items[1]:items[2]], NULL parts omitted */
  WGK_N_CALL,   /* a(items) */
  WGK_N_KWARG,  /* str=a, only inside argument lists */
} wgk_node_kind;

typedef struct wgk_node wgk_node;
struct wgk_node {
  wgk_node_kind kind;  /* what the node is */
  wgk_tok tok;         /* the operator of BINARY/UNARY */
  int line, col;       /* 1-based position of the node's token in its source */
  const char *src;     /* name of that source (a template file, "<expr>") */
  size_t start, end;   /* byte span in the source text (for explanations) */
  int64_t i;           /* INT literal */
  double d;            /* FLOAT literal */
  char *str;           /* STRING literal bytes, NAME, member, test, filter or keyword name */
  size_t str_len;      /* bytes of str */
  bool negate;         /* TEST: `is not` */
  bool has_args;       /* TEST/FILTER: written with parentheses */
  wgk_node *a, *b, *c; /* operands, see kinds */
  wgk_node **items;    /* LIST/TUPLE items, DICT key,value pairs, call/test/filter args, slice parts */
  size_t n;            /* number of items */
};

/* Bump allocator owning every node and string of one expression or template. */
typedef struct wgk_arena wgk_arena;
void *wgk_expr_arena_alloc(wgk_arena **a, size_t size); /* zeroed; NULL when out of memory */
void wgk_expr_arena_free(wgk_arena *a);

/* Where each byte of a text came from (templates: after include expansion and whitespace rules). */
typedef struct wgk_srcmap {
  int *file;       /* per byte: index into files */
  int *line, *col; /* per byte: 1-based position in that file */
  size_t len;      /* bytes mapped (one more entry for the end of the text) */
  char **files;    /* file names */
  size_t file_count;
} wgk_srcmap;

/* ---- Parser over a token cursor ---- */
typedef struct wgk_parser {
  const char *text;      /* the whole source (a template or one expression) */
  size_t len;            /* bytes of text */
  size_t pos;            /* where the next token starts */
  wgk_token tok;         /* the current token */
  wgk_tok prev;          /* kind of the token before it (for the sign rule) */
  int brace_depth;       /* open '{' inside the block */
  bool block_ends;       /* "}}" and "%}" end the expression (templates) */
  const char *source;    /* name in errors */
  const wgk_srcmap *map; /* positions of a template's bytes; NULL: count lines in text */
  int depth;             /* nesting, bounded by WGK_EXPR_MAX_DEPTH */
  wgk_arena **arena;     /* where nodes go */
  wgk_error *err;        /* first error wins */
} wgk_parser;

void wgk_expr_parser_init(wgk_parser *p, const char *text, size_t len, size_t pos, const char *source,
                          wgk_arena **arena, wgk_error *err);
void wgk_expr_next(wgk_parser *p);                          /* advances to the next token */
bool wgk_expr_accept_name(wgk_parser *p, const char *word); /* consumes the name word if it is next */
bool wgk_expr_at_name(const wgk_parser *p, const char *word);
/* Line, column and source name of a byte offset. */
const char *wgk_expr_position(const wgk_parser *p, size_t offset, int *line, int *col);
wgk_status wgk_expr_syntax_error(wgk_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
wgk_node *wgk_expr_parse_expression(wgk_parser *p); /* full expression: conditional and below */
wgk_node *wgk_expr_parse_primary(wgk_parser *p);    /* one literal, name, parenthesised or bracketed form */
/* Comma-separated expressions (primary only when primary is set); a tuple node when a comma was seen. */
wgk_node *wgk_expr_parse_sequence(wgk_parser *p, bool primary);
/* "(a, b=c)" argument list into node->items / node->n; the current token must be "(". */
bool wgk_expr_parse_args(wgk_parser *p, wgk_node *node);

/* ---- Evaluator ---- */
typedef struct wgk_eval {
  const wgk_expr_scope *scope; /* innermost names */
  const char *source;          /* for error positions */
  wgk_error *err;              /* first error wins */
  int depth;                   /* recursion, bounded by WGK_EXPR_MAX_DEPTH */
} wgk_eval;

wgk_value *wgk_expr_eval_node(wgk_eval *ev, const wgk_node *n);
/* Raises an evaluation error at node n. Returns NULL so callers can `return wgk_expr_fail(...)`. */
wgk_value *wgk_expr_fail(wgk_eval *ev, const wgk_node *n, wgk_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
wgk_value *wgk_expr_oom(wgk_eval *ev, const wgk_node *n);
/* Calls a callable with evaluated arguments. */
wgk_value *wgk_expr_call_value(wgk_eval *ev, const wgk_node *at, const wgk_value *fn, const wgk_value *const *args,
                               size_t nargs, const wgk_value *kwargs);
/* Evaluates an argument list into args (new refs) and kwargs (a dict or NULL). */
bool wgk_expr_eval_args(wgk_eval *ev, wgk_node *const *items, size_t n, wgk_value ***args, size_t *nargs,
                        wgk_value **kwargs);
void wgk_expr_free_args(wgk_value **args, size_t nargs, wgk_value *kwargs);

/* Filters, tests, methods and helpers (filters.c, tests.c, methods.c, helpers.c). */
wgk_value *wgk_expr_apply_filter(wgk_eval *ev, const wgk_node *n, const wgk_value *operand);
wgk_value *wgk_expr_apply_test(wgk_eval *ev, const wgk_node *n, const wgk_value *operand);
/* Evaluates n, but an unknown bare name gives undefined instead of an error (is defined, default). */
wgk_value *wgk_expr_eval_lenient(wgk_eval *ev, const wgk_node *n);
/* Runs the test named by n->str on v (arg for equalto); 1 true, 0 false, -1 error. */
int wgk_expr_run_test(wgk_eval *ev, const wgk_node *n, const wgk_value *v, const wgk_value *arg);
/* A string value built from a dynbuf (error at n when it failed). Frees the buffer. */
wgk_value *wgk_expr_take_string(wgk_eval *ev, const wgk_node *n, wgk_dynbuf *b);
/* The built-in method name of v (e.g. "upper" of a string, "items" of a dict), bound; NULL if none. */
wgk_value *wgk_expr_method(const wgk_value *v, const char *name);
/* Whether v has a built-in method called name (wgk_expr_method's NULL is then out of memory). */
bool wgk_expr_has_method(const wgk_value *v, const char *name);
/* The helper called name, or NULL (then *oom, when not NULL, says whether it exists but could not be made). */
wgk_value *wgk_expr_helper(const char *name, bool *oom);

#endif
