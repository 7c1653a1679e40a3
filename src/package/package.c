/* Opening a package: find it, check metadata.json, load manifest.json (digest-checked) and match them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hub/hub.h"
#include "package/pkg_internal.h"

/* The package root: two levels above a ".../build/webgpu" folder, else the folder itself. */
static char *root_of(const char *dir) {
  static const char tail[] = "/build/webgpu";
  size_t n = strlen(dir), k = sizeof tail - 1;
  while (n > 1 && dir[n - 1] == '/') n--;
  if (n > k && strncmp(dir + n - k, tail, k) == 0) return strndup(dir, n - k);
  if (n == k && strncmp(dir, tail, k) == 0) return strdup("/");
  return strndup(dir, n);
}

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static wgk_status open_unverified(pkg_package *pkg, const pkg_options *opts, util_error *err) {
  if (opts && opts->strict)
    return util_error_in(err, WGK_ERR_DIGEST, pkg->dir, NULL,
                         "no metadata.json: strict mode refuses an unverified package (`wgk pack %s` writes one)",
                         pkg->root);
  const char *fmt = "%s: unverified local package (no metadata.json): files are not digest-checked";
  size_t n = strlen(fmt) + strlen(pkg->root);
  pkg->warning = malloc(n);
  if (!pkg->warning) return util_error_oom(err, pkg->dir, NULL);
  snprintf(pkg->warning, n, fmt, pkg->root);
  return WGK_OK;
}

static wgk_status check_version(pkg_package *pkg, const pkg_options *opts, util_error *err) {
  int asked = opts ? opts->version : 0;
  if (asked > 0 && pkg->version > 0 && asked != pkg->version)
    return util_error_in(err, WGK_ERR_NOT_FOUND, pkg->root, NULL,
                         "version %d asked, but the package here is contract version %d", asked, pkg->version);
  /* A version the package cannot confirm is refused, never adopted. */
  if (asked > 0 && pkg->version == 0)
    return util_error_in(err, WGK_ERR_NOT_FOUND, pkg->root, NULL,
                         "version %d asked, but the package here records no version (%s), so it cannot confirm %d",
                         asked, pkg->verified ? "metadata.json has no \"version\"" : "unverified: no metadata.json",
                         asked);
  if (opts && opts->revision && !(pkg->revision = strdup(opts->revision))) return util_error_oom(err, pkg->root, NULL);
  return WGK_OK;
}

static wgk_status load_manifest(pkg_package *pkg, util_error *err) {
  const char *text;
  size_t len;
  wgk_status st = pkg_read_file(pkg, "manifest.json", &text, &len, err);
  char *source = st ? NULL : pkg_join(pkg->dir, "manifest.json");
  if (!st && !source) st = util_error_oom(err, pkg->dir, NULL);
  if (!st) st = manifest_load_text(text, len, source, &pkg->manifest, err);
  free(source);
  if (!st && pkg->op_id_asked && strcmp(pkg_id_op(pkg->op_id_asked), pkg->manifest->op_id) != 0)
    st = util_error_in(err, WGK_ERR_NOT_FOUND, pkg->dir, NULL, "asked for '%s' but the manifest is '%s'",
                       pkg_id_op(pkg->op_id_asked), pkg->manifest->op_id);
  return st;
}

static wgk_status open_dir(pkg_package *pkg, const pkg_options *opts, util_error *err) {
  char *meta = pkg_join(pkg->dir, "metadata.json");
  if (!meta) return util_error_oom(err, pkg->dir, NULL);
  pkg->verified = exists(meta);
  free(meta);
  wgk_status st = pkg->verified ? pkg_metadata_load(pkg, err) : open_unverified(pkg, opts, err);
  if (!st) st = load_manifest(pkg, err);
  if (!st && pkg->verified) st = pkg_metadata_match(pkg, err);
  if (!st) st = check_version(pkg, opts, err);
  util_manifest_jpos_free(&pkg->meta_index);
  return st;
}

wgk_status pkg_open(const char *path_or_id, const pkg_options *opts, pkg_package **out, util_error *err) {
  if (out) *out = NULL;
  if (!out) return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "pkg_open: NULL out");
  pkg_found found;
  wgk_status st = pkg_resolve(path_or_id, opts, &found, err);
  /* The version asked, by the options or (for an id only) a "name@vN" / "name@<commit>" suffix: one set of rules for
   * a folder and an id (hub_split_ref). */
  pkg_options eff = opts ? *opts : (pkg_options){0};
  eff.version = found.ref.version;
  eff.revision = found.ref.revision;
  pkg_package *pkg = st ? NULL : calloc(1, sizeof *pkg);
  if (!st && !pkg) st = util_error_oom(err, found.dir, NULL);
  if (pkg) {
    pkg->dir = found.dir;
    pkg->op_id_asked = found.id;
    found.dir = found.id = NULL;
  }
  if (!st && !(pkg->root = root_of(pkg->dir))) st = util_error_oom(err, pkg->dir, NULL);
  if (!st && !(pkg->real_root = realpath(pkg->root, NULL)))
    st = util_error_in(err, WGK_ERR_IO, pkg->root, NULL, "cannot resolve the package root: %s", strerror(errno));
  if (!st) hub_snapshot_bound(pkg->real_root); /* a Hub cache snapshot links into its repo's blobs/ */
  if (!st) st = open_dir(pkg, &eff, err);
  pkg_found_free(&found);
  if (st) {
    pkg_free(pkg);
    return st;
  }
  *out = pkg;
  return WGK_OK;
}

void pkg_free(pkg_package *pkg) {
  if (!pkg) return;
  for (pkg_file *f = pkg->files; f;) {
    pkg_file *next = f->next;
    free(f->relpath);
    free(f->data);
    free(f);
    f = next;
  }
  manifest_free(pkg->manifest);
  json_decref(pkg->metadata);
  util_manifest_jpos_free(&pkg->meta_index);
  free(pkg->meta_source);
  free(pkg->dir);
  free(pkg->root);
  free(pkg->real_root);
  free(pkg->op_id_asked);
  free(pkg->warning);
  free(pkg->revision);
  free(pkg);
}

const manifest_model *pkg_manifest(const pkg_package *pkg) { return pkg ? pkg->manifest : NULL; }
const char *pkg_op_id(const pkg_package *pkg) { return pkg && pkg->manifest ? pkg->manifest->op_id : NULL; }
const char *pkg_dir(const pkg_package *pkg) { return pkg ? pkg->dir : NULL; }
const char *pkg_root(const pkg_package *pkg) { return pkg ? pkg->root : NULL; }
bool pkg_is_verified(const pkg_package *pkg) { return pkg && pkg->verified; }
const char *pkg_warning(const pkg_package *pkg) { return pkg ? pkg->warning : NULL; }
int pkg_version(const pkg_package *pkg) { return pkg ? pkg->version : 0; }
const char *pkg_revision(const pkg_package *pkg) { return pkg ? pkg->revision : NULL; }
