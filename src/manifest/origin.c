/* The origin map of a translated seed manifest: each spec 2.1 path the translation wrote -> the seed path it came
 * from. The seed translation (seed.c) fills it; the reader (reader.c) asks it for the path and position an error
 * names, so a mistake in a seed file is told at the seed file's line, column and path. */
#include <stdlib.h>
#include <string.h>

#include "manifest/reader.h"

static int entry_cmp(const void *a, const void *b) {
  return strcmp(((const manifest_origin_entry *)a)->to, ((const manifest_origin_entry *)b)->to);
}

bool manifest_origin_add(manifest_origin *o, const char *to, const char *from) {
  if (o->failed) return false;
  if (o->n == o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 256;
    manifest_origin_entry *e = realloc(o->entries, cap * sizeof *e);
    if (!e) return !(o->failed = true);
    o->entries = e;
    o->cap = cap;
  }
  char *t = strdup(to), *f = strdup(from);
  if (!t || !f) {
    free(t);
    free(f);
    return !(o->failed = true);
  }
  o->entries[o->n++] = (manifest_origin_entry){t, f};
  return true;
}

void manifest_origin_sort(manifest_origin *o) {
  if (o->n) qsort(o->entries, o->n, sizeof *o->entries, entry_cmp);
}

void manifest_origin_free(manifest_origin *o) {
  for (size_t i = 0; o && i < o->n; i++) {
    free(o->entries[i].to);
    free(o->entries[i].from);
  }
  if (o) free(o->entries);
}

/* The entry whose path is path[0..len), or NULL. */
static const manifest_origin_entry *origin_find(const manifest_origin *o, const char *path, size_t len) {
  size_t lo = 0, hi = o->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const char *to = o->entries[mid].to;
    int c = strncmp(to, path, len);
    if (c == 0) c = to[len] ? 1 : 0;
    if (c == 0) return &o->entries[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* Length of the parent of path[0..len): the start of its last step ("." or "[", a quoted ["key"] skipped whole). */
static size_t parent_len(const char *path, size_t len) {
  size_t last = 0;
  for (size_t i = 0; i < len; i++) {
    if (path[i] == '[' && path[i + 1] == '"') {
      last = i;
      for (i += 2; i < len && !(path[i] == '"' && path[i + 1] == ']'); i++)
        if (path[i] == '\\') i++;
      i++;
    } else if (path[i] == '.' || path[i] == '[') {
      last = i;
    }
  }
  return last;
}

const char *manifest_origin_path(const manifest_rd *rd, const char *path, util_dynbuf *scratch) {
  if (!rd->origin) return path;
  size_t full = strlen(path);
  for (size_t len = full;; len = parent_len(path, len)) {
    const manifest_origin_entry *e = origin_find(rd->origin, path, len);
    if (e && len == full) return e->from;
    if (e) { /* a value the seed has under the same steps (a copied subtree), else the nearest mapped ancestor */
      util_dynbuf_reset(scratch);
      util_dynbuf_append_str(scratch, e->from);
      util_dynbuf_append_str(scratch, *e->from || path[len] != '.' ? path + len : path + len + 1);
      const char *s = util_dynbuf_str(scratch);
      return !scratch->failed && util_manifest_jpos_find(rd->index, s) ? s : e->from;
    }
    if (len == 0) return path;
  }
}
