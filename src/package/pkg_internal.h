/* The package object and the helpers its files share. */
#ifndef WGK_PACKAGE_PKG_INTERNAL_H
#define WGK_PACKAGE_PKG_INTERNAL_H

#include <jansson.h>

#include "hub/hub.h"
#include "util/digest.h"
#include "util/json_pos.h"
#include "package/package.h"

/* A file read (and checked) once, kept for later reads. */
typedef struct pkg_file {
  struct pkg_file *next; /* the file cached before this one */
  char *relpath;         /* path relative to the build/webgpu folder */
  char *data;            /* contents, NUL-terminated */
  size_t len;            /* bytes, not counting the NUL */
} pkg_file;

struct pkg_package {
  char *dir;                     /* the build/webgpu folder */
  char *root;                    /* the package root */
  char *real_root;               /* the root with every symlink resolved (realpath): no file may resolve outside it */
  char *op_id_asked;             /* op id the caller searched for; NULL when opened by path */
  json_t *metadata;              /* parsed metadata.json; NULL for an unverified package */
  const json_t *digests;         /* metadata digest.files (borrowed from metadata) */
  manifest_model *manifest;      /* the loaded op contract */
  bool verified;                 /* metadata present and checked: every read is digest-checked */
  char *warning;                 /* one-line warning for an unverified package, else NULL */
  int version;                   /* contract version (metadata, else asked), 0 unknown */
  char *revision;                /* revision asked for, recorded only */
  pkg_file *files;               /* cache of files read */
  char *meta_source;             /* "<dir>/metadata.json", for messages */
  util_manifest_jpos meta_index; /* value positions in metadata.json, for messages */
};

/* A package-relative path is non-empty, relative, without "..", "." or empty components or '\\'. */
/* Joins a and b with one '/'; malloc'ed, NULL when out of memory. */
char *pkg_join(const char *a, const char *b);
/* Checks that full (a file of the package, relpath as asked) resolves, symlinks followed, inside pkg->real_root;
 * WGK_ERR_DIGEST naming the file, where it resolves and the rule otherwise. WGK_ERR_NOT_FOUND when missing. */
wgk_status pkg_check_inside(const pkg_package *pkg, const char *full, const char *relpath, util_error *err);
/* Reads a whole file (NUL-terminated). WGK_ERR_NOT_FOUND when it does not exist. */
wgk_status pkg_slurp(const char *path, char **data, size_t *len, util_error *err);

/* Where pkg_resolve found a package: the folder, with the id and the version asked, a "@" suffix's included. */
typedef struct pkg_found {
  char *dir;   /* the build/webgpu folder; malloc'ed */
  char *id;    /* the repo id asked for, without its "@" suffix; NULL when a folder was named; malloc'ed */
  hub_ref ref; /* the version and revision asked: the options', or the "@vN" / "@<commit>" suffix's */
} pkg_found;

/* Finds the build/webgpu folder path_or_id names (rules in package.h) without opening it. Nothing is reported while
 * it looks: what went wrong is reported once, at the end, with everything the search learned (the dirs tried, the
 * bundled copy's version, what the Hub cache or the Hub said). *out is filled on success, empty on failure. */
wgk_status pkg_resolve(const char *path_or_id, const pkg_options *opts, pkg_found *out /* OUT */, util_error *err);
void pkg_found_free(pkg_found *found);

/* True when path_or_id reads as a repo id ("<op id>" or "org/<op id>", not starting with '/' or '.'): it is then
 * looked up on the search path only, never as a folder of the working directory. */
bool pkg_is_id(const char *path_or_id);
/* The op id part of a searched id (after "org/"), to check against the manifest. */
const char *pkg_id_op(const char *id);

/* Parses dir/metadata.json into pkg->metadata and checks its shape (not yet against the manifest). */
wgk_status pkg_metadata_load(pkg_package *pkg, util_error *err);
/* Checks the metadata against the loaded manifest: name, spec version, variants both ways. */
wgk_status pkg_metadata_match(pkg_package *pkg, util_error *err);

#endif
