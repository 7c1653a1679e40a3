/* Template sources: reading a template through its loader (the path rule, the directory loader, the nearest name
 * after a failed read), include expansion with a byte map, then the oracle's whitespace preprocessing. */
#include "template/source.h"
#include "template/tmpl_int.h"
#include "util/file_read.h"
#include "util/suggest.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct builder {
  util_dynbuf text;       /* assembled bytes */
  int *file, *line, *col; /* per byte */
  size_t cap;             /* entries allocated in the arrays */
  char **files;           /* names */
  size_t file_count;
  const char *chain[WGK_TMPL_MAX_INCLUDE_DEPTH + 1]; /* open includes, for cycles */
  int depth;
  size_t includes; /* expanded so far, all depths together */
} builder;

static bool push_byte(builder *b, char c, int file, int line, int col) {
  if (b->text.len >= b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 1024;
    int *f = realloc(b->file, (cap + 1) * sizeof *f);
    if (f) b->file = f;
    int *l = f ? realloc(b->line, (cap + 1) * sizeof *l) : NULL;
    if (l) b->line = l;
    int *k = l ? realloc(b->col, (cap + 1) * sizeof *k) : NULL;
    if (!k) return false;
    b->col = k;
    b->cap = cap;
  }
  size_t i = b->text.len;
  b->file[i] = file;
  b->line[i] = line;
  b->col[i] = col;
  return util_dynbuf_append_char(&b->text, c);
}

/* A template or include path the loader may be asked for: relative, no empty or ".." segment, no backslash. */
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

/* A template or an included file through the one file reader (util/file_read.h): a regular file of at most the template
 * size limit, so an include naming a FIFO or a device is refused instead of hanging or filling memory. */
static wgk_status dir_load(void *ud, const char *path, char **text, size_t *len, util_error *err) {
  const char *root = ud;
  size_t n = strlen(root) + strlen(path) + 2;
  char *full = malloc(n);
  if (!full) return util_error_oom(err, path, NULL);
  snprintf(full, n, "%s/%s", root, path);
  util_error why;
  util_error_clear(&why);
  unsigned char *data = NULL;
  wgk_status st = util_file_read_all(full, WGK_TMPL_MAX_SIZE, &data, len, &why);
  free(full);
  if (st == WGK_ERR_OUT_OF_MEMORY) return util_error_oom(err, path, NULL);
  if (st != WGK_OK) return util_error_plain(err, st, "'%s': %s", path, why.message);
  *text = (char *)data;
  return WGK_OK;
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

static void suggest_path(const tmpl_loader *loader, const char *path, util_error *err) {
  char near[1024];
  if (loader && loader->nearest && util_error_is_set(err) && loader->nearest(loader->ud, path, near, sizeof near))
    util_error_append(err, "; did you mean '%s'?", near);
}

static bool dir_nearest(void *ud, const char *path, char *buf, size_t size) {
  return tmpl_nearest_in_dir((const char *)ud, path, buf, size);
}

tmpl_loader tmpl_loader_dir(const char *root) { return (tmpl_loader){dir_load, (void *)root, dir_nearest}; }

wgk_status tmpl_read(const char *name, const tmpl_loader *loader, char **text, size_t *len, util_error *err) {
  *text = NULL;
  *len = 0;
  if (!path_ok(name))
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, name, NULL,
                         "template path must be relative to the package, without '..'");
  if (!loader || !loader->load) return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, name, NULL, "no template loader");
  wgk_status st = loader->load(loader->ud, name, text, len, err);
  if (st == WGK_OK) return WGK_OK;
  free(*text);
  *text = NULL;
  if (!util_error_is_set(err)) util_error_in(err, WGK_ERR_IO, name, NULL, "cannot read template");
  suggest_path(loader, name, err);
  return err && err->status ? err->status : st;
}

static bool js_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/* An include tag at text[i], as the public loader's pattern finds one before rendering:
 * {%\s*include\s+["']([^"']+)["']\s*%}. Its name and the tag's end, or false. A tag with whitespace
 * control ({%- include ... -%}) is not one: the loader leaves it to its Jinja parser, which knows no
 * include statement, and so does wgk's. */
static bool include_tag(const char *t, size_t len, size_t i, char *name, size_t nsize, size_t *end) {
  if (i + 2 > len || t[i] != '{' || t[i + 1] != '%') return false;
  size_t j = i + 2;
  while (j < len && js_space(t[j])) j++;
  if (j + 7 > len || memcmp(t + j, "include", 7) != 0) return false;
  j += 7;
  if (j >= len || !js_space(t[j])) return false;
  while (j < len && js_space(t[j])) j++;
  if (j >= len || (t[j] != '"' && t[j] != '\'')) return false;
  size_t s = ++j;
  while (j < len && t[j] != '"' && t[j] != '\'') j++;
  if (j >= len || j == s || j - s + 1 > nsize) return false;
  memcpy(name, t + s, j - s);
  name[j - s] = '\0';
  j++;
  while (j < len && js_space(t[j])) j++;
  if (j + 2 > len || t[j] != '%' || t[j + 1] != '}') return false;
  *end = j + 2;
  return true;
}

static wgk_status add_text(builder *b, const char *text, size_t len, const char *name, const tmpl_loader *loader,
                           util_error *err);

/* The public loader's include path: a name starting with '.' is relative to the including file's folder,
 * any other to the package root; empty and "." segments are dropped and ".." pops one (escaping the root
 * is an error). False when the result escapes or does not fit. */
static bool resolve_include(const char *from, const char *name, char *out, size_t size) {
  char joined[1024];
  const char *slash = name[0] == '.' ? strrchr(from, '/') : NULL;
  int n = slash ? snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - from), from, name)
                : snprintf(joined, sizeof joined, "%s", name);
  if (n < 0 || (size_t)n >= sizeof joined) return false;
  size_t used = 0;
  out[0] = '\0';
  for (char *seg = joined; seg;) {
    char *end = strpbrk(seg, "/\\");
    size_t len = end ? (size_t)(end - seg) : strlen(seg);
    if (len == 2 && seg[0] == '.' && seg[1] == '.') {
      if (used == 0) return false;
      while (used > 0 && out[used - 1] != '/') used--;
      if (used > 0) used--;
      out[used] = '\0';
    } else if (len > 0 && !(len == 1 && seg[0] == '.')) {
      if (used + len + 2 > size) return false;
      if (used) out[used++] = '/';
      memcpy(out + used, seg, len);
      used += len;
      out[used] = '\0';
    }
    seg = end ? end + 1 : NULL;
  }
  return used > 0;
}

static wgk_status include_file(builder *b, const char *written, const char *from, int line, int col,
                               const tmpl_loader *loader, util_error *err) {
  char name[1024];
  if (!resolve_include(from, written, name, sizeof name))
    return util_error_at(err, WGK_ERR_PARSE, util_pos_make(from, line, col), NULL,
                         "include path '%s' escapes the package root", written);
  if (!path_ok(name))
    return util_error_at(err, WGK_ERR_PARSE, util_pos_make(from, line, col), NULL,
                         "include path '%s' must be relative to the package, without '..'", name);
  for (int i = 0; i < b->depth; i++) {
    if (strcmp(b->chain[i], name) != 0) continue;
    char chain[1024] = "";
    for (int k = i; k < b->depth; k++) {
      strncat(chain, b->chain[k], sizeof chain - strlen(chain) - 1);
      strncat(chain, " -> ", sizeof chain - strlen(chain) - 1);
    }
    strncat(chain, name, sizeof chain - strlen(chain) - 1);
    return util_error_at(err, WGK_ERR_PARSE, util_pos_make(from, line, col), NULL, "include cycle: %s", chain);
  }
  if (b->depth >= WGK_TMPL_MAX_INCLUDE_DEPTH)
    return util_error_at(err, WGK_ERR_LIMIT, util_pos_make(from, line, col), NULL,
                         "includes nested too deeply (limit is %d)", WGK_TMPL_MAX_INCLUDE_DEPTH);
  if (++b->includes > WGK_TMPL_MAX_INCLUDES)
    return util_error_at(err, WGK_ERR_LIMIT, util_pos_make(from, line, col), NULL,
                         "more than %d includes expanded in one template (including '%s'); a file included from "
                         "many places is expanded each time",
                         WGK_TMPL_MAX_INCLUDES, name);
  if (!loader || !loader->load)
    return util_error_at(err, WGK_ERR_NOT_FOUND, util_pos_make(from, line, col), NULL, "cannot include '%s': no loader",
                         name);
  char *text = NULL;
  size_t len = 0;
  wgk_status st = loader->load(loader->ud, name, &text, &len, err);
  if (st != WGK_OK) {
    free(text);
    if (!util_error_is_set(err))
      util_error_at(err, st, util_pos_make(from, line, col), NULL, "cannot include '%s'", name);
    suggest_path(loader, name, err);
    util_error_wrap(err, util_pos_make(from, line, col), NULL);
    return err->status;
  }
  /* the included file's text as is, its final newline included (the public loader's expansion) */
  st = add_text(b, text, len, name, loader, err);
  free(text);
  return st;
}

/* Expands the include tag at text[*i] (ending at end, naming inc) the public loader's way: a tag alone on its
 * line (indentation before it, [ \t]*\r?\n after it) is replaced, indentation and line end included, by the
 * file's text; otherwise the text goes between the indentation and whatever follows the tag. Leaves *i on the
 * last byte consumed and *line, *col after it. */
static wgk_status expand_include(builder *b, const char *text, size_t len, size_t *i, size_t end, const char *inc,
                                 const char *from, int *line, int *col, const tmpl_loader *loader, util_error *err) {
  size_t ws = *i;
  while (ws > 0 && (text[ws - 1] == ' ' || text[ws - 1] == '\t')) ws--;
  bool line_start = ws == 0 || text[ws - 1] == '\n' || text[ws - 1] == '\r';
  size_t h = end;
  while (h < len && (text[h] == ' ' || text[h] == '\t')) h++;
  if (h < len && text[h] == '\r') h++;
  bool whole_line = line_start && h < len && text[h] == '\n';
  if (whole_line && b->text.len >= *i - ws) {
    b->text.len -= *i - ws;
    if (b->text.data) b->text.data[b->text.len] = '\0';
  }
  wgk_status st = include_file(b, inc, from, *line, *col, loader, err);
  if (st != WGK_OK) return st;
  for (size_t k = *i; k < end; k++) /* the tag may span lines */
    if (text[k] == '\n')
      ++*line, *col = 1;
    else
      ++*col;
  if (whole_line) {
    *i = h;
    ++*line;
    *col = 1;
  } else
    *i = end - 1;
  return WGK_OK;
}

static wgk_status add_text(builder *b, const char *text, size_t len, const char *name, const tmpl_loader *loader,
                           util_error *err) {
  if (len > WGK_TMPL_MAX_SIZE)
    return util_error_in(err, WGK_ERR_LIMIT, name, NULL, "template too large (limit is %d bytes)", WGK_TMPL_MAX_SIZE);
  char **files = realloc(b->files, (b->file_count + 1) * sizeof *files);
  if (!files) return util_error_oom(err, name, NULL);
  b->files = files;
  if (!(files[b->file_count] = strdup(name))) return util_error_oom(err, name, NULL);
  int file = (int)b->file_count++;
  const char *stable_name = files[file];
  b->chain[b->depth++] = stable_name;
  int line = 1, col = 1;
  for (size_t i = 0; i < len; i++) {
    char inc[512];
    size_t end;
    if (text[i] == '{' && include_tag(text, len, i, inc, sizeof inc, &end)) {
      wgk_status st = expand_include(b, text, len, &i, end, inc, stable_name, &line, &col, loader, err);
      if (st != WGK_OK) return st;
      continue;
    }
    if (!push_byte(b, text[i], file, line, col))
      return b->text.over ? util_error_in(err, WGK_ERR_LIMIT, name, NULL,
                                          "template with its includes expanded is over %s (%u bytes)",
                                          WGK_TMPL_MAX_EXPANDED_TEXT, WGK_TMPL_MAX_EXPANDED)
                          : util_error_oom(err, name, NULL);
    if (text[i] == '\n') {
      line++;
      col = 1;
    } else
      col++;
  }
  b->depth--;
  if (b->depth == 0) { /* the end position, for errors at the end of the text */
    if (!push_byte(b, '\0', file, line, col)) return util_error_oom(err, name, NULL);
    b->text.len--;
  }
  return WGK_OK;
}

void tmpl_src_free(tmpl_src *s) {
  free(s->text);
  free(s->map.file);
  free(s->map.line);
  free(s->map.col);
  for (size_t i = 0; i < s->map.file_count; i++) free(s->map.files[i]);
  free(s->map.files);
  memset(s, 0, sizeof *s);
}

/* The oracle's regexes, in order: /^[ \t]*({[#%-])/gm -> "$1", then /([#%-]})\n/g -> "$1". */
static bool keep_byte(const char *t, size_t len, size_t i, const bool *removed_nl) {
  (void)removed_nl;
  if (t[i] == ' ' || t[i] == '\t') {
    size_t ls = i;
    while (ls > 0 && (t[ls - 1] == ' ' || t[ls - 1] == '\t')) ls--;
    if (ls == 0 || t[ls - 1] == '\n') {
      size_t j = i;
      while (j < len && (t[j] == ' ' || t[j] == '\t')) j++;
      if (j + 1 < len && t[j] == '{' && (t[j + 1] == '#' || t[j + 1] == '%' || t[j + 1] == '-')) return false;
    }
  }
  return true;
}

static wgk_status preprocess(const builder *b, tmpl_src *out, util_error *err) {
  const char *t = util_dynbuf_str(&b->text);
  size_t len = b->text.len;
  if (len && t[len - 1] == '\n') len--;
  out->text = malloc(len + 1);
  out->map.file = malloc((len + 1) * sizeof(int));
  out->map.line = malloc((len + 1) * sizeof(int));
  out->map.col = malloc((len + 1) * sizeof(int));
  if (!out->text || !out->map.file || !out->map.line || !out->map.col) return util_error_oom(err, NULL, NULL);
  /* Pass 1 (lstrip) and pass 2 (trim) fused: pass 2 looks at what pass 1 kept. */
  size_t n = 0;
  bool just_trimmed = false; /* the regex matches do not overlap: "%}\n\n" loses one newline */
  for (size_t i = 0; i < len; i++) {
    if (!keep_byte(t, len, i, NULL)) continue;
    if (t[i] == '\n' && !just_trimmed && n >= 2 && out->text[n - 1] == '}' && strchr("#%-", out->text[n - 2])) {
      just_trimmed = true;
      continue;
    }
    just_trimmed = false;
    out->text[n] = t[i];
    out->map.file[n] = b->file[i];
    out->map.line[n] = b->line[i];
    out->map.col[n] = b->col[i];
    n++;
  }
  out->text[n] = '\0';
  size_t last = len; /* the end: where the dropped final newline was, else the end recorded by add_text */
  out->map.file[n] = b->file[last];
  out->map.line[n] = b->line[last];
  out->map.col[n] = b->col[last];
  out->len = n;
  out->map.len = n;
  return WGK_OK;
}

wgk_status tmpl_src_build(const char *text, size_t len, const char *name, const tmpl_loader *loader, tmpl_src *out,
                          util_error *err) {
  memset(out, 0, sizeof *out);
  builder b;
  memset(&b, 0, sizeof b);
  util_dynbuf_init(&b.text, WGK_TMPL_MAX_EXPANDED);
  wgk_status st = add_text(&b, text, len, name, loader, err);
  if (st == WGK_OK) st = preprocess(&b, out, err);
  out->map.files = b.files;
  out->map.file_count = b.file_count;
  free(b.file);
  free(b.line);
  free(b.col);
  util_dynbuf_free(&b.text);
  if (st != WGK_OK) tmpl_src_free(out);
  return st;
}
