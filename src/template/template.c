/* The public face of templates: load, parse, render and the line map (reading a template is source.c's). */
#include "template/tmpl_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tmpl_template *tmpl_parse(const char *text, size_t len, const char *name, const tmpl_loader *loader, util_error *err) {
  if (!name) name = "<template>";
  if (len == (size_t)-1) len = text ? strlen(text) : 0;
  tmpl_template *t = calloc(1, sizeof *t);
  if (!t) {
    util_error_oom(err, name, NULL);
    return NULL;
  }
  if (tmpl_src_build(text ? text : "", len, name, loader, &t->src, err) != WGK_OK || tmpl_parse_src(t, err) != WGK_OK) {
    tmpl_free(t);
    return NULL;
  }
  return t;
}

tmpl_template *tmpl_load(const char *name, const tmpl_loader *loader, util_error *err) {
  char *text = NULL;
  size_t len = 0;
  if (tmpl_read(name, loader, &text, &len, err) != WGK_OK) return NULL;
  tmpl_template *t = tmpl_parse(text, len, name, loader, err);
  free(text);
  return t;
}

void tmpl_free(tmpl_template *t) {
  if (!t) return;
  tmpl_src_free(&t->src);
  expr_arena_free(t->arena);
  free(t);
}

wgk_status tmpl_render(const char *name, const tmpl_loader *loader, const expr_value *scope, util_dynbuf *out,
                       tmpl_linemap *map, util_error *err) {
  tmpl_template *t = tmpl_load(name, loader, err);
  if (!t) return err ? err->status : WGK_ERR_PARSE;
  wgk_status st = tmpl_render_parsed(t, scope, out, map, err);
  tmpl_free(t);
  return st;
}

void tmpl_linemap_init(tmpl_linemap *m) { memset(m, 0, sizeof *m); }

void tmpl_linemap_free(tmpl_linemap *m) {
  if (!m) return;
  free(m->lines);
  for (size_t i = 0; i < m->file_count; i++) free(m->files[i]);
  free(m->files);
  memset(m, 0, sizeof *m);
}

bool tmpl_linemap_lookup(const tmpl_linemap *m, int out_line, const char **file, int *line) {
  if (!m || out_line < 1 || (size_t)out_line > m->count) return false;
  const tmpl_line *l = &m->lines[out_line - 1];
  if (file) *file = m->files[l->file];
  if (line) *line = l->line;
  return true;
}
