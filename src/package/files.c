/* Reading package files: path rules, whole-file reads, and the verified, cached pkg_read_file. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/digest.h"
#include "package/pkg_internal.h"
#include "util/dynbuf.h"
#include "util/file_read.h"

char *pkg_join(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  bool slash = na > 0 && a[na - 1] != '/';
  char *s = malloc(na + nb + 2);
  if (!s) return NULL;
  memcpy(s, a, na);
  if (slash) s[na++] = '/';
  memcpy(s + na, b, nb + 1);
  return s;
}

/* A package file whole: regular files only, at most PKG_FILE_MAX_BYTES, checked before a byte is read. */
wgk_status pkg_slurp(const char *path, char **data, size_t *len, util_error *err) {
  unsigned char *bytes = NULL;
  wgk_status st = util_file_read_all(path, PKG_FILE_MAX_BYTES, &bytes, len, err);
  *data = (char *)bytes;
  return st;
}

wgk_status pkg_check_inside(const pkg_package *pkg, const char *full, const char *relpath, util_error *err) {
  char *real = realpath(full, NULL);
  if (!real)
    return util_error_in(err, errno == ENOENT ? WGK_ERR_NOT_FOUND : WGK_ERR_IO, full, NULL, "cannot open: %s",
                         strerror(errno));
  size_t n = strlen(pkg->real_root);
  bool inside = strncmp(real, pkg->real_root, n) == 0 && (real[n] == '/' || (n == 1 && pkg->real_root[0] == '/'));
  wgk_status st = inside ? WGK_OK
                         : util_error_in(err, WGK_ERR_DIGEST, full, NULL,
                                         "'%s' resolves to %s, outside the package root %s: no package file may "
                                         "resolve outside the package (symlinks are followed and checked)",
                                         relpath, real, pkg->real_root);
  free(real);
  return st;
}

static wgk_status verify(const pkg_package *pkg, const char *relpath, const char *full, const char *data, size_t len,
                         util_error *err) {
  const char *want = json_string_value(json_object_get(pkg->digests, relpath)); /* listed: checked before */
  char got[WGK_PKG_DIGEST_B64_LEN + 1];
  if (!util_pkg_sha256_b64(data, len, got))
    return util_error_in(err, WGK_ERR_DIGEST, full, NULL, "cannot compute SHA-256");
  if (strcmp(want, got) != 0)
    return util_error_in(err, WGK_ERR_DIGEST, full, NULL,
                         "sha256 mismatch: expected %s, actual %s (the file changed after metadata.json was written: "
                         "if you edited it, run `wgk pack %s`; a downloaded copy is damaged: download it again)",
                         want, got, pkg->root);
  return WGK_OK;
}

static wgk_status cache_add(pkg_package *pkg, const char *relpath, char *data, size_t len, util_error *err) {
  pkg_file *f = calloc(1, sizeof *f);
  char *rel = strdup(relpath);
  if (!f || !rel) {
    free(f);
    free(rel);
    free(data);
    return util_error_oom(err, pkg->dir, NULL);
  }
  *f = (pkg_file){pkg->files, rel, data, len};
  pkg->files = f;
  return WGK_OK;
}

wgk_status pkg_read_file(pkg_package *pkg, const char *relpath, const char **data, size_t *len, util_error *err) {
  if (data) *data = NULL;
  if (len) *len = 0;
  if (!pkg || !relpath || !data || !len)
    return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "pkg_read_file: NULL argument");
  if (!util_pkg_relpath_ok(relpath))
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, pkg->dir, NULL,
                         "'%s': a package path must be relative, without '..' or empty parts", relpath);
  for (const pkg_file *f = pkg->files; f; f = f->next)
    if (strcmp(f->relpath, relpath) == 0) {
      *data = f->data;
      *len = f->len;
      return WGK_OK;
    }
  if (pkg->verified && !json_object_get(pkg->digests, relpath))
    return util_error_in(err, WGK_ERR_DIGEST, pkg->dir, NULL,
                         "'%s' is not listed in metadata.json digest.files; refusing an unverified file (a file "
                         "you added: run `wgk pack %s`)",
                         relpath, pkg->root);
  char *full = pkg_join(pkg->dir, relpath);
  if (!full) return util_error_oom(err, pkg->dir, NULL);
  char *bytes;
  size_t n;
  bytes = NULL;
  wgk_status st = pkg_check_inside(pkg, full, relpath, err);
  if (!st) st = pkg_slurp(full, &bytes, &n, err);
  if (!st && pkg->verified) st = verify(pkg, relpath, full, bytes, n, err);
  free(full);
  if (st) {
    free(bytes);
    return st;
  }
  st = cache_add(pkg, relpath, bytes, n, err);
  if (st) return st;
  *data = pkg->files->data;
  *len = pkg->files->len;
  return WGK_OK;
}
