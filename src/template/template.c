/* The public face of templates: load, parse, render, the directory loader and the line map. */
#include "template/tmpl_int.h"
#include "util/suggest.h"

#include <dirent.h>
#include <errno.h>
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

static bool path_ok(const char *p) {
  if (!p || !*p || p[0] == '/' || strchr(p, '\\')) return false;
  for (const char *s = p; *s;) {
    const char *e = strchr(s, '/');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n == 0 || (n == 2 && !memcmp(s, "..", 2))) return false;
    s += n + (e != NULL);
  }
  return true;
}

tmpl_template *tmpl_load(const char *name, const tmpl_loader *loader, util_error *err) {
  if (!path_ok(name)) {
    util_error_in(err, WGK_ERR_INVALID_ARGUMENT, name, NULL,
                  "template path must be relative to the package, without '..'");
    return NULL;
  }
  if (!loader || !loader->load) {
    util_error_in(err, WGK_ERR_INVALID_ARGUMENT, name, NULL, "no template loader");
    return NULL;
  }
  char *text = NULL;
  size_t len = 0;
  if (loader->load(loader->ud, name, &text, &len, err) != WGK_OK) {
    free(text);
    if (!util_error_is_set(err)) util_error_in(err, WGK_ERR_IO, name, NULL, "cannot read template");
    tmpl_suggest_path(loader, name, err);
    return NULL;
  }
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

static wgk_status dir_load(void *ud, const char *path, char **text, size_t *len, util_error *err) {
  const char *root = ud;
  size_t n = strlen(root) + strlen(path) + 2;
  char *full = malloc(n);
  if (!full) return util_error_oom(err, path, NULL);
  snprintf(full, n, "%s/%s", root, path);
  FILE *f = fopen(full, "rb");
  free(full);
  if (!f) return util_error_plain(err, WGK_ERR_NOT_FOUND, "cannot open '%s': %s", path, strerror(errno));
  util_dynbuf b;
  util_dynbuf_init(&b, WGK_TMPL_MAX_SIZE + 1);
  char chunk[8192];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) util_dynbuf_append(&b, chunk, k);
  bool bad = ferror(f);
  fclose(f);
  if (bad || b.failed) {
    util_dynbuf_free(&b);
    return util_error_plain(err, bad ? WGK_ERR_IO : WGK_ERR_LIMIT, bad ? "cannot read '%s'" : "'%s' is too large",
                            path);
  }
  *len = b.len;
  *text = b.data ? util_dynbuf_take(&b) : strdup("");
  return *text ? WGK_OK : util_error_oom(err, path, NULL);
}

static const char *name_at(const void *list, size_t i) { return ((char *const *)list)[i]; }

bool tmpl_nearest_in_dir(const char *root, const char *path, char *buf, size_t size) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  char folder[4096];
  snprintf(folder, sizeof folder, "%s/%.*s", root, slash ? (int)(slash - path) : 0, path);
  DIR *d = opendir(folder);
  if (!d) return false;
  char *names[256];
  size_t n = 0;
  for (struct dirent *e; n < sizeof names / sizeof names[0] && (e = readdir(d));)
    if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name))) n++;
  closedir(d);
  const char *near = util_suggest(base, names, n, name_at);
  bool found = near && (size_t)snprintf(buf, size, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, near) < size;
  for (size_t i = 0; i < n; i++) free(names[i]);
  return found;
}

void tmpl_suggest_path(const tmpl_loader *loader, const char *path, util_error *err) {
  char near[1024];
  if (loader && loader->nearest && util_error_is_set(err) && loader->nearest(loader->ud, path, near, sizeof near))
    util_error_append(err, "; did you mean '%s'?", near);
}

static bool dir_nearest(void *ud, const char *path, char *buf, size_t size) {
  return tmpl_nearest_in_dir((const char *)ud, path, buf, size);
}

tmpl_loader tmpl_loader_dir(const char *root) { return (tmpl_loader){dir_load, (void *)root, dir_nearest}; }

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
