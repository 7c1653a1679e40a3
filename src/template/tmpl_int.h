/* Internal interfaces of the template engine: source assembly, parsing and rendering. */
#ifndef WGK_TEMPLATE_TMPL_INT_H
#define WGK_TEMPLATE_TMPL_INT_H

#include "expr/expr_int.h"
#include "template/template.h"

/* A text with its byte -> (file, line, col) map. */
typedef struct wgk_tmpl_src {
  char *text; /* NUL-terminated */
  size_t len;
  wgk_srcmap map; /* map.len == len; entries [0, len] valid */
} wgk_tmpl_src;

void wgk_tmpl_src_free(wgk_tmpl_src *s);
/* Loads name, expands `{% include "f" %}` (package-relative, no escapes, no cycles), then applies the
 * oracle's preprocessing: one trailing newline dropped, lstrip_blocks and trim_blocks. */
wgk_status wgk_tmpl_src_build(const char *text, size_t len, const char *name, const wgk_tmpl_loader *loader,
                              wgk_tmpl_src *out, wgk_error *err);

typedef enum wgk_stmt_kind {
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
} wgk_stmt_kind;

typedef struct wgk_stmt wgk_stmt;
typedef struct wgk_body {
  wgk_stmt **items;
  size_t n, cap;
} wgk_body;

struct wgk_stmt {
  wgk_stmt_kind kind; /* what the statement is */
  size_t start;       /* TEXT: first byte in the source text; others: the tag's offset */
  size_t len;         /* TEXT: bytes (after whitespace control) */
  wgk_node *expr;     /* OUTPUT/IF test/FOR iterable/SET value/CALL the call/FILTER the filter node */
  wgk_node *cond;     /* FOR: `for x in xs if cond` */
  wgk_node *target;   /* FOR/SET: NAME or TUPLE of NAMEs; MACRO: NAME; CALL: caller params (a CALL node) */
  wgk_node *params;   /* MACRO: a CALL node whose items are the parameters */
  wgk_body body;      /* IF/FOR/SET block/MACRO/CALL/FILTER body */
  wgk_body alt;       /* IF else / FOR else */
};

struct wgk_tmpl {
  wgk_tmpl_src src; /* the assembled text */
  wgk_arena *arena; /* statements and expression nodes */
  wgk_body body;    /* top level */
};

wgk_status wgk_tmpl_parse_src(wgk_tmpl *t, wgk_error *err);

#endif
