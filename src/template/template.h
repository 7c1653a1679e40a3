/*
 * The Jinja subset of WGSL templates (docs/templates.md), rendered with lstrip_blocks and trim_blocks on, as the
 * public loader does, sharing the expression evaluator of expr.h.
 *
 * Lifecycle:
 *   1. tmpl_load(name, loader, err)   -> reads and parses the file and every file it includes
 *                                            (through loader; include cycles and escapes rejected);
 *   2. tmpl_render_parsed(t, scope, out, map, err)  -> as often as needed;
 *   3. tmpl_free(t).
 * tmpl_render does 1-3 in one call.
 *
 * Errors name the template file, line and column: `rotary.wgsl.jinja:12:5: unknown name 'foo'`;
 * unclosed blocks name where they opened: "'endfor' expected (to close 'for' at line 3)".
 */
#ifndef WGK_TEMPLATE_TEMPLATE_H
#define WGK_TEMPLATE_TEMPLATE_H

#include <stddef.h>

#include "expr/expr.h"
#include "template/source.h"

/* Output line -> template line, kept while rendering so WGSL compile errors point at the template. */
typedef struct tmpl_line {
  int file; /* index into tmpl_linemap.files */
  int line; /* 1-based line in that file */
} tmpl_line;

typedef struct tmpl_linemap {
  tmpl_line *lines; /* lines[i] is where output line i+1 came from */
  size_t count;     /* output lines recorded */
  size_t cap;       /* allocated entries */
  char **files;     /* template file names, owned */
  size_t file_count;
} tmpl_linemap;

void tmpl_linemap_init(tmpl_linemap *m);
void tmpl_linemap_free(tmpl_linemap *m);
/* Where output line out_line (1-based) came from; false if unknown. *file is borrowed from the map. */
bool tmpl_linemap_lookup(const tmpl_linemap *m, int out_line, const char **file, int *line);

typedef struct tmpl_template tmpl_template;

#define WGK_TMPL_MAX_BLOCK_DEPTH 100      /* nested statements */
#define WGK_TMPL_MAX_ITERATIONS 1000000   /* loop iterations in one render, all loops together */
#define WGK_TMPL_MAX_CALL_DEPTH 64        /* nested macro calls */
#define WGK_TMPL_MAX_OUTPUT (16u << 20)   /* bytes of rendered output */
#define WGK_TMPL_MAX_OUTPUT_TEXT "16 MiB" /* the same, for messages */

/* Loads and parses name through loader. NULL with err set on failure. */
tmpl_template *tmpl_load(const char *name, const tmpl_loader *loader, util_error *err);
/* Parses a template held in memory (includes still go through loader, which may be NULL: no includes). */
tmpl_template *tmpl_parse(const char *text, size_t len, const char *name, const tmpl_loader *loader, util_error *err);
void tmpl_free(tmpl_template *t);

/* Renders t against scope (a dict) appending to out; map (nullable) receives the line map. */
wgk_status tmpl_render_parsed(const tmpl_template *t, const expr_value *scope, util_dynbuf *out, tmpl_linemap *map,
                              util_error *err);

/* Load + render + free. */
wgk_status tmpl_render(const char *name, const tmpl_loader *loader, const expr_value *scope, util_dynbuf *out,
                       tmpl_linemap *map, util_error *err);

/* The `enable` directives a rendered WGSL module needs and does not write, as the public loader infers
 * them from real uses outside comments (enables.c says what counts as a use); prepended in this order. */
#define WGK_ENABLE_F16 1u                   /* enable f16; */
#define WGK_ENABLE_SUBGROUPS 2u             /* enable subgroups; */
#define WGK_ENABLE_SUBGROUP_SIZE_CONTROL 4u /* enable subgroup_size_control; */
#define WGK_ENABLE_OOM 0x80000000u          /* out of memory: nothing decided */
unsigned tmpl_wgsl_missing_enables(const char *wgsl);

#endif
