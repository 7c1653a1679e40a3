/* Internal interfaces of the expression language: tokens, the AST, the parser over a token cursor
 * (the template parser drives it too), and the evaluator. */
#ifndef WGK_EXPR_EXPR_INT_H
#define WGK_EXPR_EXPR_INT_H

#include "expr/expr.h"
#include "expr/value_int.h"

#define WGK_EXPR_MAX_DEPTH 200    /* nesting of sub-expressions, in the parser and evaluator */
#define WGK_EXPR_MAX_LIST 1000000 /* items of one list an expression or template builds */
/* Bytes of the lists (8 a reference) and strings one expression evaluation or one template render builds, all
 * together: a loop that grows a list or a string by concatenation copies it each time. */
#define WGK_EXPR_MAX_BUILT_BYTES ((size_t)64 << 20)

/* ---- Lexer ---- */
typedef enum expr_tok {
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
} expr_tok;

typedef struct expr_token {
  expr_tok kind; /* what it is */
  size_t start;  /* byte offset of its first byte */
  size_t len;    /* bytes it spans */
} expr_token;

/* The token at pos. prev is the previous token's kind (WGK_TK_EOF at the start): a sign after a value
 * is an operator, elsewhere it joins the digits that follow it (the oracle's rule). brace_depth > 0 keeps
 * "}}" from ending a block inside a dict literal; block_ends says whether "}}"/"%}" are tokens at all. */
expr_token expr_lex(const char *s, size_t len, size_t pos, expr_tok prev, int brace_depth, bool block_ends);

/* ---- AST ---- */
typedef enum expr_node_kind {
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
} expr_node_kind;

typedef struct expr_node expr_node;
struct expr_node {
  expr_node_kind kind;  /* what the node is */
  expr_tok tok;         /* the operator of BINARY/UNARY */
  int line, col;        /* 1-based position of the node's token in its source */
  const char *src;      /* name of that source (a template file, "<expr>") */
  size_t start, end;    /* byte span in the source text (for explanations) */
  int64_t i;            /* INT literal */
  double d;             /* FLOAT literal */
  char *str;            /* STRING literal bytes, NAME, member, test, filter or keyword name */
  size_t str_len;       /* bytes of str */
  bool negate;          /* TEST: `is not` */
  bool has_args;        /* TEST/FILTER: written with parentheses */
  expr_node *a, *b, *c; /* operands, see kinds */
  expr_node **items;    /* LIST/TUPLE items, DICT key,value pairs, call/test/filter args, slice parts */
  size_t n;             /* number of items */
};

/* Bump allocator owning every node and string of one expression or template. */
typedef struct expr_arena expr_arena;
void *expr_arena_alloc(expr_arena **a, size_t size); /* zeroed; NULL when out of memory */
void expr_arena_free(expr_arena *a);

/* Where each byte of a text came from (templates: after include expansion and whitespace rules). */
typedef struct expr_srcmap {
  int *file;       /* per byte: index into files */
  int *line, *col; /* per byte: 1-based position in that file */
  size_t len;      /* bytes mapped (one more entry for the end of the text) */
  char **files;    /* file names */
  size_t file_count;
} expr_srcmap;

/* ---- Parser over a token cursor ---- */
typedef struct expr_parser {
  const char *text;       /* the whole source (a template or one expression) */
  size_t len;             /* bytes of text */
  size_t pos;             /* where the next token starts */
  expr_token tok;         /* the current token */
  expr_tok prev;          /* kind of the token before it (for the sign rule) */
  int brace_depth;        /* open '{' inside the block */
  bool block_ends;        /* "}}" and "%}" end the expression (templates) */
  const char *source;     /* name in errors */
  const expr_srcmap *map; /* positions of a template's bytes; NULL: count lines in text */
  int depth;              /* nesting, bounded by WGK_EXPR_MAX_DEPTH */
  expr_arena **arena;     /* where nodes go */
  util_error *err;        /* first error wins */
  /* expr_position's count without a map: the newlines before `lines_at` and where the last of them ended (nodes are
   * made mostly in text order, so each position is counted on from the one before, not from the start) */
  size_t lines_at, lines, line_start;
} expr_parser;

void expr_parser_init(expr_parser *p, const char *text, size_t len, size_t pos, const char *source, expr_arena **arena,
                      util_error *err);
void expr_next(expr_parser *p);                          /* advances to the next token */
bool expr_accept_name(expr_parser *p, const char *word); /* consumes the name word if it is next */
bool expr_at_name(const expr_parser *p, const char *word);
/* Line, column and source name of a byte offset. */
const char *expr_position(expr_parser *p, size_t offset, int *line, int *col);
wgk_status expr_syntax_error(expr_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
expr_node *expr_parse_expression(expr_parser *p); /* full expression: conditional and below */
expr_node *expr_parse_primary(expr_parser *p);    /* one literal, name, parenthesised or bracketed form */
/* Comma-separated expressions (primary only when primary is set); a tuple node when a comma was seen. */
expr_node *expr_parse_sequence(expr_parser *p, bool primary);
/* "(a, b=c)" argument list into node->items / node->n; the current token must be "(". */
bool expr_parse_args(expr_parser *p, expr_node *node);

/* ---- Evaluator ---- */
typedef struct expr_evaluator {
  const expr_scope *scope; /* innermost names */
  const char *source;      /* for error positions */
  util_error *err;         /* first error wins */
  int depth;               /* recursion, bounded by WGK_EXPR_MAX_DEPTH */
  size_t *built;           /* bytes of lists and strings built so far (WGK_EXPR_MAX_BUILT_BYTES): a renderer's
                            * counter shared by all its evaluations, or NULL for this evaluation's own */
  size_t own_built;        /* the counter when built is NULL */
} expr_evaluator;

expr_value *expr_eval_node(expr_evaluator *ev, const expr_node *n);
/* Evaluates an argument list into args (new refs) and kwargs (a dict or NULL). */
bool expr_eval_args(expr_evaluator *ev, expr_node *const *items, size_t n, expr_value ***args, size_t *nargs,
                    expr_value **kwargs);
void expr_free_args(expr_value **args, size_t nargs, expr_value *kwargs);
/* Applies filter node n to operand (or to n->a evaluated when operand is NULL): arguments evaluated, error at n. */
expr_value *expr_apply_filter(expr_evaluator *ev, const expr_node *n, const expr_value *operand);

/* At a node (at_node.c): an evaluation error there (returns NULL so callers can `return expr_fail(...)`); running
 * out of memory there; a callable called with evaluated arguments, its error placed there; a string value built
 * from a dynbuf (error there when it failed; frees the buffer). */
expr_value *expr_fail(expr_evaluator *ev, const expr_node *n, wgk_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
expr_value *expr_oom(expr_evaluator *ev, const expr_node *n);
expr_value *expr_call_value(expr_evaluator *ev, const expr_node *at, const expr_value *fn,
                            const expr_value *const *args, size_t nargs, const expr_value *kwargs);
expr_value *expr_take_string(expr_evaluator *ev, const expr_node *n, util_dynbuf *b);

/* Filters, tests, methods and helpers over values (filters.c, tests.c, methods.c, helpers.c). */
/* Filter n->str on v with evaluated arguments (kw: a keyword dict or NULL); errors at n. */
expr_value *expr_filter(expr_evaluator *ev, const expr_node *n, const expr_value *v, expr_value **args, size_t nargs,
                        expr_value *kw);
/* Runs the test named by n->str on v (arg for equalto); 1 true, 0 false, -1 error. */
int expr_run_test(expr_evaluator *ev, const expr_node *n, const expr_value *v, const expr_value *arg);
/* The built-in method name of v (e.g. "upper" of a string, "items" of a dict), bound; NULL if none. */
expr_value *expr_method(const expr_value *v, const char *name);
/* Whether v has a built-in method called name (expr_method's NULL is then out of memory). */
bool expr_has_method(const expr_value *v, const char *name);
/* The helper called name, or NULL (then *oom, when not NULL, says whether it exists but could not be made). */
expr_value *expr_helper(const char *name, bool *oom);

#endif
