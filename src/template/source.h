/*
 * Where a template's text comes from: the loader that reads a template file by its package-relative path, the
 * path rule every template and include path obeys (source.c), and the limits on a file and on its includes expanded.
 * The template engine (template.h) reads through these; a package, the CLI or a test supplies the loader.
 */
#ifndef WGK_TEMPLATE_SOURCE_H
#define WGK_TEMPLATE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

#define WGK_TMPL_MAX_SIZE (4 * 1024 * 1024) /* bytes of one template file */
#define WGK_TMPL_MAX_INCLUDE_DEPTH 16       /* nested includes */
#define WGK_TMPL_MAX_INCLUDES 4096          /* includes expanded in one template, all depths together */
#define WGK_TMPL_MAX_EXPANDED (8u << 20)    /* bytes of one template with its includes expanded */
#define WGK_TMPL_MAX_EXPANDED_TEXT "8 MiB"  /* the same, for messages */

/* Reads a template by its package-relative path. The renderer has already checked the path (relative,
 * no "..", no absolute path, no backslash). Returns a malloc'ed NUL-terminated text in *text (caller frees). */
typedef struct tmpl_loader {
  wgk_status (*load)(void *ud, const char *path, char **text, size_t *len, util_error *err);
  void *ud; /* passed back to load */
  /* Optional: the existing template path nearest to a path that failed to load (a likely misspelling), written
   * into buf; false when none is near (util_suggest's rule). A failed load then ends "; did you mean 'X'?". */
  bool (*nearest)(void *ud, const char *path, char *buf, size_t size);
} tmpl_loader;

/* A loader reading files under the folder root (root must outlive the loader). */
tmpl_loader tmpl_loader_dir(const char *root);

/* The file in the folder root/<path's folder> whose name is nearest to path's (util_suggest), as a path like
 * path, into buf; false when the folder cannot be read or no name is near. Loaders over folders use it. */
bool tmpl_nearest_in_dir(const char *root, const char *path, char *buf, size_t size);

/* Reads the template name through loader into *text (malloc'ed, NUL-terminated; *len bytes): name must be relative
 * to the package, without '..', '\\' or a leading '/'; a failed read ends with the nearest name the loader knows. */
wgk_status tmpl_read(const char *name, const tmpl_loader *loader, char **text, size_t *len, util_error *err);

#endif
