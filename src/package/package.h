/*
 * A kernel package on disk (docs/package-format.md):
 *
 *     <root>/README.md
 *     <root>/build/webgpu/{metadata.json, manifest.json, test.json, bench.json, *.wgsl.jinja}
 *
 * Lifecycle:
 *   1. pkg_open() finds the folder (a path, or an op id on the search path), reads and checks
 *      metadata.json, reads manifest.json (digest-checked) and loads it through src/manifest.
 *   2. pkg_read_file() reads any other package file on demand (templates, test.json ...),
 *      digest-checked before it is returned, and cached: only the files a call uses are read.
 *   3. pkg_free() releases it all (NULL is a no-op).
 *
 * A folder without metadata.json opens as an *unverified* local package: nothing is digest-checked,
 * pkg_is_verified() is false and pkg_warning() gives a one-line text to print. The strict
 * option refuses such a folder instead.
 *
 * Finding a package (pkg_resolve):
 *   - a repo id ("<op id>" or "org/<op id>", see pkg_is_id) is only ever searched (below), never taken
 *     as a folder of the working directory; a folder path must look like one: start with '/' or '.', or not
 *     be id-shaped (".../build/webgpu"). A folder is the package root (holding build/webgpu/) or the
 *     build/webgpu folder itself (holding manifest.json).
 *   - an id, "webgpu-kernels/<op id>" or "<op id>" (another org "org/<op id>" is looked
 *     up as "<dir>/org/<op id>"), searched as <dir>/<op id> in: the dirs of opts->search_path, then
 *     of env WGK_KERNEL_PATH (colon-separated), then the bundled kernels (pkg_bundled_dir): the
 *     share/wgk/kernels of the install this code was loaded from, or from the build tree the checkout's kernels/.
 *     The first folder that exists wins.
 *   - version: when opts->version > 0 and metadata.json records "version", they must be equal
 *     (WGK_ERR_NOT_FOUND otherwise); a package without a recorded version (or unverified) refuses any
 *     asked version: it cannot confirm it. revision is
 *     recorded only: a local folder has no commit to compare with.
 */
#ifndef WGK_PACKAGE_PACKAGE_H
#define WGK_PACKAGE_PACKAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "manifest/manifest.h"
#include "util/error.h"
#include "util/log.h"
#include "wgk.h"

/* The largest package file read (docs/limits.md): the Hub client refuses a bigger download for the same reason. */
#define PKG_FILE_MAX_BYTES ((size_t)64 << 20)

typedef struct pkg_package pkg_package;

typedef struct pkg_options {
  bool strict;             /* refuse a folder without metadata.json */
  int version;             /* contract version asked for (--version N); 0 = not given */
  const char *revision;    /* commit asked for (--revision SHA), recorded only; NULL = not given */
  const char *search_path; /* colon-separated dirs searched before WGK_KERNEL_PATH; NULL = none */
  bool trust_remote_code;  /* a repo id of an org other than webgpu-kernels may come from the Hub */
  const util_log *log;     /* where a download's progress goes (NULL: nowhere) */
} pkg_options;

/* Opens a package; opts may be NULL (defaults: not strict, no version). */
wgk_status pkg_open(const char *path_or_id, const pkg_options *opts, pkg_package **out /* OUT */, util_error *err);
void pkg_free(pkg_package *pkg);

/* The bundled kernels folder into out (size bytes): found from where this code was loaded (dladdr), never from
 * the configure-time prefix, so an install can be moved: <dir of libwgk.so>/WGK_KERNELS_FROM_LIB, or, for a
 * program linking libwgk.a (the CLI), <dir of the program>/WGK_KERNELS_FROM_BIN (both ../share/wgk/kernels
 * with the default layout). When that folder does not exist and the code lives under the build tree
 * (WGK_BUILD_DIR), the checkout's kernels/ (WGK_SOURCE_KERNEL_DIR) instead. *origin: "installed" or "bundled".
 * false when the path cannot be found (the folder itself need not exist). */
bool pkg_bundled_dir(char *out /* OUT */, size_t size, const char **origin /* OUT, nullable */);

/* The local dirs a repo id is searched in, in order (opts->search_path, WGK_KERNEL_PATH, the bundled kernels/,
 * or the installed share (pkg_bundled_dir; left out with WGK_BUNDLED_KERNELS=0), each with where it comes
 * from ("search path", "WGK_KERNEL_PATH", "bundled", "installed"), for `wgk list`. Dirs need not exist. */
typedef void (*pkg_dir_fn)(const char *dir, const char *origin, void *user);
void pkg_search_dirs(const pkg_options *opts, pkg_dir_fn fn, void *user);

const manifest_model *pkg_manifest(const pkg_package *pkg);
const char *pkg_op_id(const pkg_package *pkg);    /* "ai.onnx.RotaryEmbedding" */
const char *pkg_dir(const pkg_package *pkg);      /* the build/webgpu folder */
const char *pkg_root(const pkg_package *pkg);     /* the package root (dir's grandparent, or dir) */
bool pkg_is_verified(const pkg_package *pkg);     /* metadata.json present and checked */
const char *pkg_warning(const pkg_package *pkg);  /* one line for unverified packages, else NULL */
int pkg_version(const pkg_package *pkg);          /* metadata "version", else 0 */
const char *pkg_revision(const pkg_package *pkg); /* the asked revision, or NULL */

/* Reads relpath (relative to build/webgpu, no "..", not absolute), digest-checked in verified mode
 * (a file missing from the digest map is refused). *data is NUL-terminated, owned by the package and
 * valid until pkg_free; repeated reads return the cached bytes. */
wgk_status pkg_read_file(pkg_package *pkg, const char *relpath, const char **data /* OUT */, size_t *len /* OUT */,
                         util_error *err);

/* `file` (a template, relative to the build/webgpu folder `dir`) and, recursively, every file it
 * {% include %}s, each appended once to the JSON array `list`: a variant's template list as the public loader
 * fetches it (`wgk pack`). */
struct json_t;
wgk_status pkg_template_closure(const char *dir, const char *file, struct json_t *list, util_error *err);

#endif
