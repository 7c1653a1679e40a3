/*
 * The Jinja subset of WGSL templates (docs/templates.md), rendered with lstrip_blocks and trim_blocks on, as the
 * public loader does, sharing the expression evaluator of expr.h.
 *
 * Lifecycle:
 *   1. wgk_tmpl_load(name, loader, err)   -> reads and parses the file and every file it includes
 *                                            (through loader; include cycles and escapes rejected);
 *   2. wgk_tmpl_render_parsed(t, scope, out, map, err)  -> as often as needed;
 *   3. wgk_tmpl_free(t).
 * wgk_tmpl_render does 1-3 in one call.
 *
 * Errors name the template file, line and column: `rotary.wgsl.jinja:12:5: unknown name 'foo'`;
 * unclosed blocks name where they opened: "'endfor' expected (to close 'for' at line 3)".
 */
#ifndef WGK_TEMPLATE_TEMPLATE_H
#define WGK_TEMPLATE_TEMPLATE_H

#include <stddef.h>

#include "expr/expr.h"

/* Reads a template by its package-relative path. The renderer has already checked the path (relative,
 * no "..", no absolute path, no backslash). Returns a malloc'ed NUL-terminated text in *text (caller frees). */
typedef struct wgk_tmpl_loader {
  wgk_status (*load)(void *ud, const char *path, char **text, size_t *len, wgk_error *err);
  void *ud; /* passed back to load */
} wgk_tmpl_loader;

/* A loader reading files under the folder root (root must outlive the loader). */
wgk_tmpl_loader wgk_tmpl_loader_dir(const char *root);

/* Output line -> template line, kept while rendering so WGSL compile errors point at the template. */
typedef struct wgk_tmpl_line {
  int file; /* index into wgk_tmpl_linemap.files */
  int line; /* 1-based line in that file */
} wgk_tmpl_line;

typedef struct wgk_tmpl_linemap {
  wgk_tmpl_line *lines; /* lines[i] is where output line i+1 came from */
  size_t count;         /* output lines recorded */
  size_t cap;           /* allocated entries */
  char **files;         /* template file names, owned */
  size_t file_count;
} wgk_tmpl_linemap;

void wgk_tmpl_linemap_init(wgk_tmpl_linemap *m);
void wgk_tmpl_linemap_free(wgk_tmpl_linemap *m);
/* Where output line out_line (1-based) came from; false if unknown. *file is borrowed from the map. */
bool wgk_tmpl_linemap_lookup(const wgk_tmpl_linemap *m, int out_line, const char **file, int *line);

typedef struct wgk_tmpl wgk_tmpl;

#define WGK_TMPL_MAX_SIZE (4 * 1024 * 1024) /* bytes of one template file */
#define WGK_TMPL_MAX_INCLUDE_DEPTH 16       /* nested includes */
#define WGK_TMPL_MAX_BLOCK_DEPTH 100        /* nested statements */
#define WGK_TMPL_MAX_ITERATIONS 1000000     /* loop iterations in one render, all loops together */
#define WGK_TMPL_MAX_CALL_DEPTH 64          /* nested macro calls */
#define WGK_TMPL_MAX_OUTPUT (16u << 20)     /* bytes of rendered output */
#define WGK_TMPL_MAX_OUTPUT_TEXT "16 MiB"   /* the same, for messages */

/* Loads and parses name through loader. NULL with err set on failure. */
wgk_tmpl *wgk_tmpl_load(const char *name, const wgk_tmpl_loader *loader, wgk_error *err);
/* Parses a template held in memory (includes still go through loader, which may be NULL: no includes). */
wgk_tmpl *wgk_tmpl_parse(const char *text, size_t len, const char *name, const wgk_tmpl_loader *loader, wgk_error *err);
void wgk_tmpl_free(wgk_tmpl *t);

/* Renders t against scope (a dict) appending to out; map (nullable) receives the line map. */
wgk_status wgk_tmpl_render_parsed(const wgk_tmpl *t, const wgk_value *scope, wgk_dynbuf *out, wgk_tmpl_linemap *map,
                                  wgk_error *err);

/* Load + render + free. */
wgk_status wgk_tmpl_render(const char *name, const wgk_tmpl_loader *loader, const wgk_value *scope, wgk_dynbuf *out,
                           wgk_tmpl_linemap *map, wgk_error *err);

/* The `enable` directives a rendered WGSL module needs and does not write, as the public loader infers
 * them from real uses outside comments (enables.c says what counts as a use); prepended in this order. */
#define WGK_ENABLE_F16 1u                   /* enable f16; */
#define WGK_ENABLE_SUBGROUPS 2u             /* enable subgroups; */
#define WGK_ENABLE_SUBGROUP_SIZE_CONTROL 4u /* enable subgroup_size_control; */
#define WGK_ENABLE_OOM 0x80000000u          /* out of memory: nothing decided */
unsigned wgk_wgsl_missing_enables(const char *wgsl);

#endif
