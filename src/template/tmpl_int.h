/* Internal interfaces of the template engine: source assembly, parsing and rendering. */
#ifndef WGK_TEMPLATE_TMPL_INT_H
#define WGK_TEMPLATE_TMPL_INT_H

#include "expr/expr_int.h"
#include "template/template.h"

/* A text with its byte -> (file, line, col) map. */
typedef struct tmpl_src {
  char *text; /* NUL-terminated */
  size_t len;
  expr_srcmap map; /* map.len == len; entries [0, len] valid */
} tmpl_src;

void tmpl_src_free(tmpl_src *s);
/* Loads name, expands `{% include "f" %}` (package-relative, no escapes, no cycles), then applies the
 * oracle's preprocessing: one trailing newline dropped, lstrip_blocks and trim_blocks. */
wgk_status tmpl_src_build(const char *text, size_t len, const char *name, const tmpl_loader *loader, tmpl_src *out,
                          util_error *err);

typedef enum tmpl_stmt_kind {
  WGK_S_TEXT,
  WGK_S_OUTPUT,
  WGK_S_IF,
  WGK_S_FOR,
  WGK_S_SET,
  WGK_S_MACRO,
  WGK_S_CALL,
  WGK_S_FILTER,
  WGK_S_BREAK,
  WGK_S_CONTINUE,
} tmpl_stmt_kind;

typedef struct tmpl_stmt tmpl_stmt;
typedef struct tmpl_body {
  tmpl_stmt **items;
  size_t n, cap;
} tmpl_body;

struct tmpl_stmt {
  tmpl_stmt_kind kind; /* what the statement is */
  size_t start;        /* TEXT: first byte in the source text; others: the tag's offset */
  size_t len;          /* TEXT: bytes (after whitespace control) */
  expr_node *expr;     /* OUTPUT/IF test/FOR iterable/SET value/CALL the call/FILTER the filter node */
  expr_node *cond;     /* FOR: `for x in xs if cond` */
  expr_node *target;   /* FOR/SET: NAME or TUPLE of NAMEs; MACRO: NAME; CALL: caller params (a CALL node) */
  expr_node *params;   /* MACRO: a CALL node whose items are the parameters */
  tmpl_body body;      /* IF/FOR/SET block/MACRO/CALL/FILTER body */
  tmpl_body alt;       /* IF else / FOR else */
};

struct tmpl_template {
  tmpl_src src;      /* the assembled text */
  expr_arena *arena; /* statements and expression nodes */
  tmpl_body body;    /* top level */
};

wgk_status tmpl_parse_src(tmpl_template *t, util_error *err);

#endif
