/* Finding a package folder: a path as given, or an op id on the search path (rules in package.h). */
#define _GNU_SOURCE /* dladdr1: which loaded object holds this code */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/env.h"
#include "hub/hub.h"
#include "package/pkg_internal.h"
#include "util/dynbuf.h"
#include "util/file_read.h"

#include <jansson.h>

#define TRUSTED_ORG "webgpu-kernels/"
_Static_assert(PKG_FILE_MAX_BYTES == WGK_HUB_FILE_MAX_BYTES,
               "the Hub keeps no file bigger than a package file may be, and refuses none a load could read");

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The build/webgpu folder of a package folder: <p>/build/webgpu, or <p> itself when it holds manifest.json; NULL when
 * neither (or out of memory: then *oom). */
static char *webgpu_dir(const char *p, bool *oom) {
  char *d = pkg_join(p, "build/webgpu");
  char *m = pkg_join(p, "manifest.json");
  char *out = NULL;
  bool ok = d && m;
  if (ok && is_dir(d)) {
    out = d;
    d = NULL;
  } else if (ok && is_file(m) && !(out = strdup(p)))
    ok = false;
  if (!ok) *oom = true;
  free(d);
  free(m);
  return out;
}

/* An op id "<domain>.<Name>" (optionally "org/" before it): letters, digits, . _ -, no "..". */
static bool id_ok(const char *id) {
  const char *slash = strchr(id, '/');
  if (slash && (slash == id || strchr(slash + 1, '/'))) return false;
  const char *op = slash ? slash + 1 : id;
  if (!strchr(op, '.') || op[0] == '.' || strstr(id, "..")) return false;
  for (const char *p = id; *p; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-' || c == '/';
    if (!ok) return false;
  }
  return op[strlen(op) - 1] != '.';
}

/* Tries <dir>/<rel> for each dir of a colon-separated list; *oom when a path could not be allocated. */
static bool try_list(const char *list, const char *rel, char **found, util_dynbuf *tried, bool *oom) {
  if (!list || *oom) return false;
  const char *p = list;
  while (!*found) {
    const char *colon = strchr(p, ':');
    size_t n = colon ? (size_t)(colon - p) : strlen(p);
    if (n > 0) {
      char *dir = strndup(p, n);
      char *cand = dir ? pkg_join(dir, rel) : NULL;
      if (!cand) *oom = true;
      if (cand && is_dir(cand)) {
        *found = cand;
        cand = NULL;
      }
      util_dynbuf_printf(tried, "%s%s", tried->len ? ", " : "", dir ? dir : "?");
      free(cand);
      free(dir);
    }
    if (!colon || *oom) break;
    p = colon + 1;
  }
  return *found != NULL;
}

/* Where this code was loaded from, resolved: the shared library holding it (libwgk.so), or the program it is
 * linked into (libwgk.a, the CLI). */
static bool self_path(char *out, bool *is_program) {
  Dl_info info;
  struct link_map *map = NULL;
  if (!dladdr1((void *)&self_path, &info, (void **)&map, RTLD_DL_LINKMAP) || !map) return false;
  *is_program = !map->l_name || !map->l_name[0]; /* the main program's link map has no name */
  return realpath(*is_program ? "/proc/self/exe" : map->l_name, out) != NULL;
}

#ifndef WGK_KERNELS_FROM_LIB
#define WGK_KERNELS_FROM_LIB "../share/wgk/kernels"
#endif
#ifndef WGK_KERNELS_FROM_BIN
#define WGK_KERNELS_FROM_BIN "../share/wgk/kernels"
#endif

bool pkg_bundled_dir(char *out, size_t size, const char **origin) {
  char self[PATH_MAX];
  bool is_program = false;
  if (!self_path(self, &is_program)) return false;
  char *slash = strrchr(self, '/');
  if (!slash) return false;
  *slash = '\0'; /* the folder holding the library or program */
  const char *rel = is_program ? WGK_KERNELS_FROM_BIN : WGK_KERNELS_FROM_LIB;
  char base[PATH_MAX];
  memcpy(base, self, strlen(self) + 1);
  for (; strncmp(rel, "../", 3) == 0 && (slash = strrchr(base, '/')) && slash != base; rel += 3)
    *slash = '\0'; /* "<prefix>/share/...", not "<prefix>/bin/../share/..." */
  int n = snprintf(out, size, "%s/%s", base, rel);
  if (n < 0 || (size_t)n >= size) return false;
  if (origin) *origin = "installed";
  if (is_dir(out)) return true;
#if defined(WGK_BUILD_DIR) && defined(WGK_SOURCE_KERNEL_DIR)
  /* Not installed: a program or library of the build tree uses the checkout's kernels/. */
  char build[PATH_MAX];
  size_t len = realpath(WGK_BUILD_DIR, build) ? strlen(build) : 0;
  if (len && strncmp(self, build, len) == 0 && (self[len] == '/' || self[len] == '\0')) {
    n = snprintf(out, size, "%s", WGK_SOURCE_KERNEL_DIR);
    if (n < 0 || (size_t)n >= size) return false;
    if (origin) *origin = "bundled";
  }
#endif
  return true;
}

const char *pkg_id_op(const char *id) {
  const char *slash = strrchr(id, '/');
  return slash ? slash + 1 : id;
}

/* The contract version a package folder records (metadata.json "version" under <root>/build/webgpu or <root>); 0 when
 * none. Only to choose a version: the package's own reader checks the file when it is opened. */
static int recorded_version(const char *root) {
  bool oom = false;
  char *dir = webgpu_dir(root, &oom);
  if (!dir) return 0;
  char *meta = pkg_join(dir, "metadata.json");
  unsigned char *text = NULL;
  size_t len = 0;
  util_error ignored = {0}; /* through the one file reader: a FIFO here must not hang the search */
  json_t *doc = meta && util_file_read_all(meta, PKG_FILE_MAX_BYTES, &text, &len, &ignored) == WGK_OK
                    ? json_loadb((const char *)text, len, 0, NULL)
                    : NULL;
  free(text);
  json_t *v = json_object_get(doc, "version");
  int version = json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) <= 1000000
                    ? (int)json_integer_value(v)
                    : 0;
  json_decref(doc);
  free(meta);
  free(dir);
  return version;
}

/* Everything looking for a package learns on the way: what it found, or what stood in the way. Nothing is reported
 * while it looks; pkg_resolve reports once, at the end, with all of it (report). */
typedef struct lookup {
  pkg_found *out;      /* the folder found, the id and the version asked */
  bool oom;            /* a path or a name could not be allocated */
  bool exists, is_dir; /* a folder named: something of that name exists; it is a folder */
  char *found;         /* an id: the local folder it was found in (the search path or the bundled kernels) */
  util_dynbuf tried;   /* an id: the local dirs looked in, ", "-separated */
  int bundled_version; /* an id: the contract version the bundled copy records; 0 when none (or no copy) */
  int version;         /* an id: the version asked, or the one the version rule picked; 0 when none */
  util_error why;      /* an id: what the environment, the Hub cache or the Hub said instead of a folder */
} lookup;

/* The bundled kernels' copy of rel (pkg_bundled_dir), with the contract version it records; NULL when none. */
static char *bundled_copy(lookup *lk, const char *rel) {
  char kernels[PATH_MAX];
  char *copy = NULL;
  if (pkg_bundled_dir(kernels, sizeof kernels, NULL)) try_list(kernels, rel, &copy, &lk->tried, &lk->oom);
  lk->bundled_version = copy ? recorded_version(copy) : 0;
  return copy;
}

/* Not on the search path: the Hub cache or the Hub (src/hub/hub.h) answer, or the bundled copy (have_copy): true for
 * the copy. The snapshot's folder goes to lk->out->dir, why there is none to lk->why. */
static bool cache_or_hub(lookup *lk, const char *id, const pkg_options *opts, bool have_copy) {
  char *hub_id = hub_repo_of(id, strlen(id)); /* a bare op id names the same kernel as webgpu-kernels/<op id> */
  hub_options ho = {.version = lk->out->ref.version,
                    .revision = lk->out->ref.revision,
                    .trust_remote_code = opts && opts->trust_remote_code,
                    .log = opts ? opts->log : NULL};
  wgk_status st = hub_id ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
  lk->oom = !hub_id;
  /* No version and no revision: the one version rule picks one (hub_pick_version): the newest on this machine (the
   * cache's or the bundled copy's), without a request; nothing here: an error saying how to name one (a load never
   * fetches a version nobody named). A bundled copy recording no version is taken as it is, as a search-path folder
   * is. */
  if (!st && !ho.version && !ho.revision && !(have_copy && !lk->bundled_version))
    st = hub_pick_version(hub_id, lk->bundled_version, false, &ho, &ho.version, &lk->why);
  lk->version = ho.version;
  /* The one precedence (docs/hub.md): a version the user downloaded (refs/vN in the Hub cache) wins over the bundled
   * copy of it; the bundled packages act as a pre-filled cache behind the real one, holding the one version their
   * metadata.json records. */
  bool downloaded = !st && ho.version > 0 && hub_cached_version(hub_id, ho.version);
  bool use_copy = !st && have_copy && !downloaded && (!ho.version || ho.version == lk->bundled_version);
  if (!st && !use_copy) hub_snapshot(hub_id, &ho, &lk->out->dir, NULL, &lk->why);
  free(hub_id);
  return use_copy;
}

/* id passed pkg_is_id: searched on the path, in the cache, the bundled kernels and the Hub (docs/hub.md). */
static void search(lookup *lk, const char *id, const pkg_options *opts) {
  const char *rel = strncmp(id, TRUSTED_ORG, strlen(TRUSTED_ORG)) == 0 ? id + strlen(TRUSTED_ORG) : id;
  /* 1. The search path: a local folder wins for every version (it is how a kernel is developed). */
  bool hit = try_list(opts ? opts->search_path : NULL, rel, &lk->found, &lk->tried, &lk->oom) ||
             try_list(util_env("WGK_KERNEL_PATH"), rel, &lk->found, &lk->tried, &lk->oom);
  /* WGK_BUNDLED_KERNELS=0 leaves out the bundled dirs (so a repo id goes to the Hub cache, e.g. in tests); a
   * commit pin (revision) means exact bytes, which a bundled copy cannot promise: the cache or the Hub answers it. */
  bool bundled = true;
  if (util_env_flag("WGK_BUNDLED_KERNELS", &bundled, &lk->why) || lk->oom) return;
  char *copy = !hit && bundled && !lk->out->ref.revision ? bundled_copy(lk, rel) : NULL;
  /* 2. Not found locally: the version rule, then the Hub cache, the bundled copy or the Hub (cache_or_hub). */
  if (!hit && !lk->oom && cache_or_hub(lk, id, opts, copy != NULL)) {
    lk->found = copy;
    copy = NULL;
  }
  free(copy);
  if (lk->found && !lk->oom) lk->out->dir = webgpu_dir(lk->found, &lk->oom);
}

bool pkg_is_id(const char *path_or_id) {
  if (!path_or_id || path_or_id[0] == '/' || path_or_id[0] == '.') return false;
  const char *rel =
      strncmp(path_or_id, TRUSTED_ORG, strlen(TRUSTED_ORG)) == 0 ? path_or_id + strlen(TRUSTED_ORG) : path_or_id;
  return *rel && id_ok(rel);
}

/* A folder named: the package root (holding build/webgpu/) or the build/webgpu folder itself. */
static void find_folder(lookup *lk, const char *path) {
  struct stat st;
  lk->exists = stat(path, &st) == 0;
  lk->is_dir = lk->exists && S_ISDIR(st.st_mode);
  if (lk->is_dir) lk->out->dir = webgpu_dir(path, &lk->oom);
}

/* What the environment, the Hub cache or the Hub said, with what the local search saw on the way. */
static wgk_status report_search(const lookup *lk, util_error *err) {
  if (!err || err->status) return lk->why.status; /* the first error set wins */
  *err = lk->why;
  if (lk->found) return err->status; /* found on this machine: the environment alone stood in the way */
  util_error_append(err, " (not found locally either; searched: %s)",
                    lk->tried.len ? util_dynbuf_str(&lk->tried) : "(no dirs)");
  if (lk->bundled_version && lk->version && lk->version != lk->bundled_version)
    util_error_append(err, "; the bundled copy is contract version %d", lk->bundled_version);
  if (is_dir(lk->out->id))
    util_error_append(err, "; a folder of that name here is not used for an id: write ./%s to open it", lk->out->id);
  return err->status;
}

/* The one report of a lookup, with everything it learned; WGK_OK when it found the folder. */
static wgk_status report(const char *spec, const lookup *lk, util_error *err) {
  if (lk->out->ref.problem) return hub_ref_error(&lk->out->ref, spec, err);
  if (!spec || !*spec)
    return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT,
                            "an empty package name: give a package folder or a repo id (webgpu-kernels/<op id>)");
  if (lk->oom) return util_error_oom(err, spec, "finding the package");
  if (lk->why.status) return report_search(lk, err);
  if (lk->out->dir) return WGK_OK;
  if (lk->found) /* an id's folder, on the search path or bundled */
    return util_error_in(err, WGK_ERR_NOT_FOUND, lk->found, NULL,
                         "found for %s, but not a kernel package (no build/webgpu/ and no manifest.json)", lk->out->id);
  const char *why = lk->is_dir ? "not a kernel package (no build/webgpu/ and no manifest.json)"
                    : lk->exists
                        ? "not a folder: a package is a folder (holding build/webgpu/ or manifest.json) or a repo id"
                    : spec[0] == '/' || spec[0] == '.' ? "no such folder"
                                                       : "neither a folder nor an op id like ai.onnx.RotaryEmbedding";
  return util_error_in(err, WGK_ERR_NOT_FOUND, spec, NULL, "%s", why);
}

void pkg_found_free(pkg_found *found) {
  free(found->dir);
  free(found->id);
  found->dir = found->id = NULL;
}

wgk_status pkg_resolve(const char *path_or_id, const pkg_options *opts, pkg_found *out, util_error *err) {
  *out = (pkg_found){.ref = {.version = opts ? opts->version : 0, .revision = opts ? opts->revision : NULL}};
  lookup lk = {.out = out};
  util_dynbuf_init(&lk.tried, 4096);
  /* "NAME@vN" / "NAME@<commit>" names a version of a repo id (hub_split_ref); a folder's '@' is part of its path. A
   * repo id ("<op id>", "org/<op id>") is found only on the search path, never relative to the working directory: a
   * ./webgpu-kernels/<op id> folder there must not shadow the package asked for. */
  const char *at = path_or_id ? strrchr(path_or_id, '@') : NULL;
  char *base = at ? strndup(path_or_id, (size_t)(at - path_or_id)) : NULL;
  const char *name = at ? base : path_or_id;
  bool by_id = pkg_is_id(name);
  lk.oom = (at && !base) || (by_id && !(out->id = strdup(name)));
  if (!hub_split_ref(path_or_id, by_id, &out->ref) && by_id && !lk.oom)
    search(&lk, name, opts);
  else if (!out->ref.problem && !lk.oom && path_or_id && *path_or_id)
    find_folder(&lk, path_or_id);
  free(base);
  wgk_status st = report(path_or_id, &lk, err);
  free(lk.found);
  util_dynbuf_free(&lk.tried);
  if (st) pkg_found_free(out);
  return st;
}

/* The same order as search(): wgk list shows what a repo id would find, first dir first. */
static void each_listed(const char *list, const char *origin, pkg_dir_fn fn, void *user) {
  for (const char *p = list; p && *p;) {
    const char *colon = strchr(p, ':');
    size_t n = colon ? (size_t)(colon - p) : strlen(p);
    char *dir = n ? strndup(p, n) : NULL;
    if (dir) fn(dir, origin, user);
    free(dir);
    if (!colon) break;
    p = colon + 1;
  }
}

void pkg_search_dirs(const pkg_options *opts, pkg_dir_fn fn, void *user) {
  each_listed(opts ? opts->search_path : NULL, "search path", fn, user);
  each_listed(util_env("WGK_KERNEL_PATH"), "WGK_KERNEL_PATH", fn, user);
  bool bundled = true;
  util_error ignored = {0}; /* a bad value is refused by the search itself (search(), from pkg_resolve) */
  if (util_env_flag("WGK_BUNDLED_KERNELS", &bundled, &ignored) == WGK_OK && !bundled) return;
  char kernels[PATH_MAX];
  const char *origin;
  if (pkg_bundled_dir(kernels, sizeof kernels, &origin)) fn(kernels, origin, user);
}
