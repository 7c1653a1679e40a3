/* A repo at a version or revision -> a complete snapshot folder in the cache, fetched when needed. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hub/hub_internal.h"
#include "util/digest.h"

/* Everything one resolution needs, freed together. */
typedef struct job {
  const char *repo;
  const hub_options *opts;
  hub_net net;
  char *cache;
  char *repo_dir;
  char rev[48];    /* what the URL names: "v<N>" or the commit */
  char commit[41]; /* the resolved commit, lower-case; "" until known */
  util_error *err;
} job;

/* $HF_ENDPOINT/kernels/<org>/<name>/resolve/<rev>/<path>, path from the repo's root. */
static char *file_url(const job *j, const char *rev, const char *path) {
  size_t n = strlen(j->net.endpoint) + strlen(j->repo) + strlen(rev) + strlen(path) + 64;
  char *u = malloc(n);
  if (u) snprintf(u, n, "%s/kernels/%s/resolve/%s/%s", j->net.endpoint, j->repo, rev, path);
  return u;
}

/* GETs <path> (from the repo's root) at rev; err_to receives a failure (j->err, or a local one). */
static wgk_status fetch_path(job *j, const char *rev, const char *path, hub_body *body, util_error *err_to) {
  char *url = file_url(j, rev, path);
  if (!url) return util_error_oom(err_to, j->repo, NULL);
  wgk_status st = hub_http_get(&j->net, url, j->repo, rev, path, body, err_to);
  free(url);
  return st;
}

/* GETs build/webgpu/<file> at rev. */
static wgk_status fetch(job *j, const char *rev, const char *file, hub_body *body) {
  size_t n = strlen(file) + 16;
  char *path = malloc(n);
  if (!path) return util_error_oom(j->err, j->repo, NULL);
  snprintf(path, n, "build/webgpu/%s", file);
  wgk_status st = fetch_path(j, rev, path, body, j->err);
  free(path);
  return st;
}

static char *ref_path(const job *j) {
  char *refs = hub_path(j->repo_dir, "refs");
  char *p = refs ? hub_path(refs, j->rev) : NULL;
  free(refs);
  return p;
}

/* refs/v<N> -> j->commit; false when absent or not a commit. */
static bool read_ref(job *j) {
  char *p = ref_path(j);
  char *text = p ? hub_read_all(p, HUB_SMALL_FILE_MAX_BYTES, NULL, NULL) : NULL;
  free(p);
  if (!text) return false;
  size_t n = strlen(text);
  while (n && isspace((unsigned char)text[n - 1])) text[--n] = '\0';
  bool ok = hub_is_commit(text);
  if (ok)
    for (int i = 0; i < 41; i++) j->commit[i] = (char)tolower((unsigned char)text[i]);
  free(text);
  return ok;
}

/* refs/v<N> := commit (no newline, as huggingface_hub writes it), unless it already says so. */
static wgk_status write_ref(job *j) {
  char *p = ref_path(j);
  char *refs = hub_path(j->repo_dir, "refs");
  wgk_status st = p && refs ? WGK_OK : util_error_oom(j->err, j->repo, NULL);
  char *old = p ? hub_read_all(p, HUB_SMALL_FILE_MAX_BYTES, NULL, NULL) : NULL;
  if (!st && !(old && strcmp(old, j->commit) == 0)) {
    if (!hub_mkdirs(refs))
      st = util_error_in(j->err, WGK_ERR_IO, refs, j->repo, "cannot create: %s", strerror(errno));
    else
      st = hub_write_atomic(p, j->commit, 40, j->err);
  }
  free(old);
  free(refs);
  free(p);
  return st;
}

/* Download order: manifest.json, then the templates, then the rest (test.json, bench.json ...). */
static int rank_of(const char *rel) {
  if (strcmp(rel, "manifest.json") == 0) return 0;
  size_t n = strlen(rel);
  return n > 11 && strcmp(rel + n - 11, ".wgsl.jinja") == 0 ? 1 : 2;
}

/* <dir>/<rel> -> ../(depth times)blobs/<name>: depth is how deep dir lies under the repo folder (4 for
 * snapshots/<commit>/build/webgpu, 2 for snapshots/<commit>), one more per folder in rel. Relative, as
 * huggingface_hub links. */
static wgk_status link_file(job *j, const char *dir, size_t depth, const char *rel, const char *name) {
  char *path = hub_path(dir, rel);
  for (const char *p = rel; *p; p++) depth += *p == '/';
  char *target = malloc(depth * 3 + 80);
  wgk_status st = path && target ? WGK_OK : util_error_oom(j->err, j->repo, NULL);
  if (!st) {
    target[0] = '\0';
    for (size_t i = 0; i < depth; i++) strcat(target, "../");
    strcat(target, "blobs/");
    strcat(target, name);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    bool made = hub_mkdirs(path);
    *slash = '/';
    st = made ? hub_symlink_atomic(target, path, j->err)
              : util_error_in(j->err, WGK_ERR_IO, path, j->repo, "cannot create its folder: %s", strerror(errno));
  }
  free(target);
  free(path);
  return st;
}

/* blobs/<name> := data (verified by the caller). Written even when a blob of that name exists: the bytes were
 * verified, so they also repair a blob that was corrupted on disk (the rename is atomic). */
static wgk_status store_blob(job *j, const char *name, const void *data, size_t len) {
  char *blobs = hub_path(j->repo_dir, "blobs");
  char *p = blobs ? hub_path(blobs, name) : NULL;
  wgk_status st = p ? WGK_OK : util_error_oom(j->err, j->repo, NULL);
  size_t have_len = 0;
  char *have = st ? NULL : hub_read_all(p, HUB_FILE_MAX_BYTES, &have_len, NULL);
  bool same = have && have_len == len && memcmp(have, data, len) == 0;
  free(have);
  if (!st && !same) {
    if (!hub_mkdirs(blobs))
      st = util_error_in(j->err, WGK_ERR_IO, blobs, j->repo, "cannot create: %s", strerror(errno));
    else
      st = hub_write_atomic(p, data, len, j->err);
  }
  free(p);
  free(blobs);
  return st;
}

/* Whether path is a relative link into blobs/ whose bytes hash to want (sha256 hex). */
static bool file_ok(const char *path, const char *want) {
  char link[4096], got[65];
  ssize_t k = readlink(path, link, sizeof link - 1);
  if (k <= 0) return false;
  link[k] = '\0';
  if (link[0] == '/' || !strstr(link, "blobs/")) return false;
  size_t n = 0;
  char *bytes = hub_read_all(path, HUB_FILE_MAX_BYTES, &n, NULL);
  bool ok = bytes && hub_sha256_hex(bytes, n, got) && strcmp(got, want) == 0;
  free(bytes);
  return ok;
}

/* A blob already in the cache with the bytes of want (sha256 hex), so that a file shared by two commits is fetched
 * once: blobs/<want> (an LFS file's name), else the blob rel links to in another snapshot of the repo. */
static bool find_blob(job *j, const char *rel, const char *want, char name[65]) {
  char *blobs = hub_path(j->repo_dir, "blobs");
  char *p = blobs ? hub_path(blobs, want) : NULL;
  bool found = false;
  size_t n = 0;
  char *bytes = p ? hub_read_all(p, HUB_FILE_MAX_BYTES, &n, NULL) : NULL;
  char got[65];
  if (bytes && hub_sha256_hex(bytes, n, got) && strcmp(got, want) == 0) {
    memcpy(name, want, 65);
    found = true;
  }
  free(bytes);
  free(p);
  char *snaps = hub_path(j->repo_dir, "snapshots");
  DIR *d = snaps && !found ? opendir(snaps) : NULL;
  struct dirent *e;
  while (d && !found && (e = readdir(d))) {
    if (!hub_is_commit(e->d_name) || strcmp(e->d_name, j->commit) == 0) continue;
    char *dir = hub_snapshot_dir(j->repo_dir, e->d_name);
    char *f = dir ? hub_path(dir, rel) : NULL;
    char link[4096];
    ssize_t k = f ? readlink(f, link, sizeof link - 1) : -1;
    if (k > 0) {
      link[k] = '\0';
      const char *base = strrchr(link, '/');
      base = base ? base + 1 : link;
      if (hub_blob_name_shape(base) && file_ok(f, want)) {
        snprintf(name, 65, "%s", base);
        found = true;
      }
    }
    free(f);
    free(dir);
  }
  if (d) closedir(d);
  free(snaps);
  free(blobs);
  return found;
}

/* One listed file: kept when its link is good; else linked to a cached blob with its bytes, or fetched at the
 * commit, verified against metadata.json, stored under the Hub's ETag (hub_blob_name) and linked. */
static wgk_status fetch_file(job *j, const char *snap, const char *rel, const char *b64) {
  char want[65], name[65];
  if (!util_pkg_relpath_ok(rel) || strcmp(rel, "metadata.json") == 0)
    return util_error_in(j->err, WGK_ERR_MANIFEST, "metadata.json", j->repo,
                         "digest.files lists '%s': a file path must be relative, without '..', and not metadata.json",
                         rel);
  if (!hub_b64_to_hex(b64, want))
    return util_error_in(j->err, WGK_ERR_MANIFEST, "metadata.json", j->repo,
                         "digest of '%s' is not a base64 SHA-256: '%s'", rel, b64);
  char *path = hub_path(snap, rel);
  if (!path) return util_error_oom(j->err, j->repo, NULL);
  bool ok = file_ok(path, want);
  free(path);
  if (ok) return WGK_OK;
  if (!find_blob(j, rel, want, name)) {
    hub_body body;
    wgk_status st = fetch(j, j->commit, rel, &body);
    if (st) return st;
    char got[65];
    if (!hub_sha256_hex(body.data, body.len, got) || strcmp(got, want) != 0) {
      char got_b64[WGK_PKG_DIGEST_B64_LEN + 1] = "";
      util_pkg_sha256_b64(body.data, body.len, got_b64);
      st = util_error_in(j->err, WGK_ERR_DIGEST, rel, j->repo,
                         "digest mismatch for build/webgpu/%s at %s: expected %s (metadata.json), got %s (%zu bytes); "
                         "not cached",
                         rel, j->commit, b64, got_b64, body.len);
    }
    hub_blob_name(body.etag, body.data, body.len, name);
    if (!st) st = store_blob(j, name, body.data, body.len);
    hub_body_free(&body);
    if (st) return st;
  }
  return link_file(j, snap, 4, rel, name);
}

/* The kernel card, README.md at the repo's root, into snapshots/<commit>/README.md. It is not in metadata.json's
 * digests: stored by its ETag when that matches its bytes. A repo without one (404) is fine. */
static wgk_status fetch_card(job *j) {
  char *root = hub_path(j->repo_dir, "snapshots");
  char *dir = root ? hub_path(root, j->commit) : NULL;
  char *path = dir ? hub_path(dir, "README.md") : NULL;
  wgk_status st = path ? WGK_OK : util_error_oom(j->err, j->repo, NULL);
  char link[4096];
  ssize_t k = path ? readlink(path, link, sizeof link - 1) : -1;
  size_t n = 0;
  char *bytes = k > 0 ? hub_read_all(path, HUB_FILE_MAX_BYTES, &n, NULL) : NULL;
  if (k > 0) link[k] = '\0';
  bool ok = bytes && hub_blob_name_ok(strrchr(link, '/') ? strrchr(link, '/') + 1 : link, bytes, n);
  free(bytes);
  if (!st && !ok) {
    util_error local;
    util_error_clear(&local);
    hub_body body;
    st = fetch_path(j, j->commit, "README.md", &body, &local);
    if (st == WGK_ERR_NOT_FOUND) {
      st = WGK_OK; /* no card in this repo */
    } else if (st) {
      if (j->err && !util_error_is_set(j->err)) *j->err = local;
    } else {
      char name[65];
      hub_blob_name(body.etag, body.data, body.len, name);
      st = store_blob(j, name, body.data, body.len);
      if (!st) st = link_file(j, dir, 2, "README.md", name);
      hub_body_free(&body);
    }
  }
  free(path);
  free(dir);
  free(root);
  return st;
}

/* Whether every listed file and metadata.json of the cached snapshot is a good link (for hub_options.repair). */
static bool snapshot_intact(job *j) {
  if (!hub_snapshot_complete(j->repo_dir, j->commit)) return false;
  char *snap = hub_snapshot_dir(j->repo_dir, j->commit);
  char *meta = snap ? hub_path(snap, "metadata.json") : NULL;
  size_t len = 0;
  char *text = meta ? hub_read_all(meta, HUB_FILE_MAX_BYTES, &len, NULL) : NULL;
  json_t *doc = text ? json_loadb(text, len, 0, NULL) : NULL;
  json_t *files = json_object_get(json_object_get(doc, "digest"), "files");
  char link[4096];
  ssize_t k = meta ? readlink(meta, link, sizeof link - 1) : -1;
  if (k > 0) link[k] = '\0';
  bool ok =
      json_is_object(files) && k > 0 && hub_blob_name_ok(strrchr(link, '/') ? strrchr(link, '/') + 1 : link, text, len);
  const char *rel;
  json_t *v;
  json_object_foreach(files, rel, v) {
    char want[65];
    char *p = ok && json_is_string(v) && hub_b64_to_hex(json_string_value(v), want) ? hub_path(snap, rel) : NULL;
    ok = p && file_ok(p, want);
    free(p);
    if (!ok) break;
  }
  json_decref(doc);
  free(text);
  free(meta);
  free(snap);
  return ok;
}

/* Fills snapshots/<commit>/ from the metadata bytes (already fetched), under the repo lock. */
static wgk_status populate(job *j, const hub_body *meta) {
  int fd = hub_lock_repo(j->cache, j->repo, j->err);
  if (fd < 0) return WGK_ERR_IO;
  wgk_status st = WGK_OK;
  char *snap = hub_snapshot_dir(j->repo_dir, j->commit);
  json_t *doc = NULL;
  if (!snap)
    st = util_error_oom(j->err, j->repo, NULL);
  else {
    json_error_t je;
    doc = json_loadb(meta->data, meta->len, 0, &je);
    json_t *digest = json_object_get(doc, "digest");
    json_t *files = json_object_get(digest, "files");
    const char *alg = json_string_value(json_object_get(digest, "algorithm"));
    if (!doc)
      st = util_error_at(j->err, WGK_ERR_PARSE, UTIL_POS("metadata.json", je), j->repo, "from %s at %s: %s",
                         j->net.shown, j->commit, je.text);
    else if (json_is_string(json_object_get(doc, "name")) &&
             strcmp(json_string_value(json_object_get(doc, "name")), strchr(j->repo, '/') + 1) != 0)
      st = util_error_in(j->err, WGK_ERR_MANIFEST, "metadata.json", "name",
                         "%s at %s: the package is '%s', but a repo's basename must be its op id", j->repo, j->commit,
                         json_string_value(json_object_get(doc, "name")));
    else if (!json_is_object(files) || !alg || strcmp(alg, "sha256") != 0)
      st = util_error_in(j->err, WGK_ERR_MANIFEST, "metadata.json", "digest",
                         "%s at %s: needs digest.algorithm \"sha256\" and a digest.files object", j->repo, j->commit);
    /* Each file checked, and fetched only when missing or corrupted, in order (manifest, templates, the rest); an
     * interrupted download leaves whole, verified blobs and links to them, never metadata.json's link. */
    for (int pass = 0; pass < 3 && !st; pass++) {
      const char *rel;
      json_t *v;
      json_object_foreach(files, rel, v) {
        if (rank_of(rel) != pass) continue;
        st = json_is_string(v) ? fetch_file(j, snap, rel, json_string_value(v))
                               : util_error_in(j->err, WGK_ERR_MANIFEST, "metadata.json", j->repo,
                                               "digest of '%s' is not a string", rel);
        if (st) break;
      }
    }
    if (!st) st = fetch_card(j);
    /* metadata.json last: its link marks the snapshot complete. */
    char name[65], *mpath = snap ? hub_path(snap, "metadata.json") : NULL;
    size_t have_len = 0;
    char *have = !st && mpath ? hub_read_all(mpath, HUB_FILE_MAX_BYTES, &have_len, NULL) : NULL;
    bool same = have && have_len == meta->len && memcmp(have, meta->data, meta->len) == 0;
    char link[4096];
    ssize_t k = same ? readlink(mpath, link, sizeof link - 1) : -1;
    if (k > 0) link[k] = '\0';
    same = same && k > 0 && hub_blob_name_ok(strrchr(link, '/') ? strrchr(link, '/') + 1 : link, have, have_len);
    free(have);
    free(mpath);
    hub_blob_name(meta->etag, meta->data, meta->len, name);
    if (!st && !same) st = store_blob(j, name, meta->data, meta->len);
    if (!st && !same) st = link_file(j, snap, 4, "metadata.json", name);
  }
  if (!st && j->rev[0] == 'v') st = write_ref(j);
  json_decref(doc);
  free(snap);
  hub_unlock_repo(fd);
  return st;
}

/* What every request for repo needs first: a repo id, and a trusted org (or trust_remote_code). */
static wgk_status check_repo(const char *repo, const hub_options *o, util_error *err) {
  if (!hub_repo_id_ok(repo))
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, repo, NULL,
                         "not a repo id: expected org/name of letters, digits, '.', '_', '-'");
  size_t org_len = (size_t)(strchr(repo, '/') - repo);
  if (!o->trust_remote_code &&
      !(org_len == strlen(WGK_HUB_TRUSTED_ORG) && strncmp(repo, WGK_HUB_TRUSTED_ORG, org_len) == 0))
    return util_error_in(err, WGK_ERR_UNSUPPORTED, repo, NULL,
                         "org '%.*s' is not trusted (only " WGK_HUB_TRUSTED_ORG
                         " is): its kernels run on your GPU; "
                         "pass trust_remote_code (C) or --trust-remote-code (CLI) to load it",
                         (int)org_len, repo);
  return WGK_OK;
}

/* What the cache answers without a request: a pinned commit complete there, or (offline) the commit refs/vN names;
 * *done when that is the answer. Sets j->rev (what a URL names) and, where known, j->commit. Offline and the cache
 * cannot answer: WGK_ERR_NOT_FOUND. */
static wgk_status from_cache(job *j, bool *done) {
  const hub_options *o = j->opts;
  if (o->revision) {
    for (int i = 0; i < 41; i++) j->commit[i] = (char)tolower((unsigned char)o->revision[i]);
    snprintf(j->rev, sizeof j->rev, "%s", j->commit);
    /* pinned: never refetched, unless a repair finds a file missing or corrupted */
    *done = hub_snapshot_complete(j->repo_dir, j->commit) && (!o->repair || snapshot_intact(j));
  } else {
    snprintf(j->rev, sizeof j->rev, "v%d", o->version);
    if (j->net.offline && !read_ref(j))
      return util_error_in(
          j->err, WGK_ERR_NOT_FOUND, j->repo_dir, j->repo,
          "HF_HUB_OFFLINE is set and %s of %s is not in the cache (no refs/%s): download it online first", j->rev,
          j->repo, j->rev);
    *done = j->net.offline && hub_snapshot_complete(j->repo_dir, j->commit) && (!o->repair || snapshot_intact(j));
  }
  if (!*done && j->net.offline)
    return util_error_in(
        j->err, WGK_ERR_NOT_FOUND, j->repo_dir, j->repo,
        "HF_HUB_OFFLINE is set and commit %s of %s is not complete in the cache: download it online first", j->commit,
        j->repo);
  return WGK_OK;
}

/* One request: metadata.json at the branch (or commit), whose X-Repo-Commit names the commit; then the files it lists
 * that the cache lacks (populate). */
static wgk_status fetch_snapshot(job *j) {
  bool has_rev = j->opts->revision != NULL;
  hub_body meta;
  util_error before;
  if (j->err) before = *j->err;
  wgk_status st = fetch(j, j->rev, "metadata.json", &meta);
  if (st) {
    /* The Hub cannot be reached at all: a branch cached before is used as huggingface_hub does. */
    if (meta.unreachable && !has_rev && read_ref(j) && hub_snapshot_complete(j->repo_dir, j->commit)) {
      if (j->err) *j->err = before;
      return WGK_OK;
    }
    return st;
  }
  if (!has_rev) {
    if (!meta.commit[0])
      st =
          util_error_in(j->err, WGK_ERR_IO, j->net.shown, j->repo,
                        "the answer for %s/metadata.json at %s has no X-Repo-Commit header: cannot pin it in the cache",
                        j->repo, j->rev);
    else
      memcpy(j->commit, meta.commit, 41);
  } else if (meta.commit[0] && strcmp(meta.commit, j->commit) != 0) {
    st = util_error_in(j->err, WGK_ERR_IO, j->net.shown, j->repo, "asked for commit %s, the Hub answered for %s",
                       j->commit, meta.commit);
  }
  if (!st) st = populate(j, &meta);
  hub_body_free(&meta);
  return st;
}

static wgk_status resolve(job *j) {
  const hub_options *o = j->opts;
  const char *repo = j->repo;
  bool has_rev = o->revision != NULL;
  if (o->version > 0 && has_rev)
    return util_error_in(j->err, WGK_ERR_INVALID_ARGUMENT, repo, NULL, "give a version or a revision, not both");
  if (has_rev && !hub_is_commit(o->revision))
    return util_error_in(j->err, WGK_ERR_INVALID_ARGUMENT, repo, "revision", "'%s' is not a 40-hex commit",
                         o->revision);
  wgk_status st = check_repo(repo, o, j->err);
  if (st) return st;
  if (o->version <= 0 && !has_rev) { /* no version: the one rule picks it (hub_pick_version, the Hub answering) */
    hub_options picked = *o;
    if ((st = hub_pick_version(repo, 0, true, o, &picked.version, j->err))) return st;
    j->opts = &picked;
    st = resolve(j);
    j->opts = o;
    return st;
  }
  st = hub_net_init(&j->net, o->log, j->err);
  if (st) return st;
  j->cache = hub_cache_root();
  if (!j->cache)
    return util_error_in(j->err, WGK_ERR_IO, repo, NULL, "no cache folder: set HF_HUB_CACHE, HF_HOME or HOME");
  if (!(j->repo_dir = hub_repo_dir(j->cache, repo))) return util_error_oom(j->err, j->repo, NULL);
  bool done = false;
  if ((st = from_cache(j, &done)) || done) return st;
  return fetch_snapshot(j);
}

wgk_status hub_snapshot(const char *repo, const hub_options *opts, char **dir_out, char **commit_out, util_error *err) {
  if (dir_out) *dir_out = NULL;
  if (commit_out) *commit_out = NULL;
  hub_options none = {0};
  if (!repo || !dir_out) return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "hub_snapshot: no repo");
  job j = {.repo = repo, .opts = opts ? opts : &none, .err = err};
  wgk_status st = resolve(&j);
  if (!st && !(*dir_out = hub_snapshot_dir(j.repo_dir, j.commit))) st = util_error_oom(j.err, j.repo, NULL);
  if (!st && commit_out && !(*commit_out = strdup(j.commit))) st = util_error_oom(j.err, j.repo, NULL);
  if (st && dir_out) {
    free(*dir_out);
    *dir_out = NULL;
  }
  hub_net_free(&j.net);
  free(j.cache);
  free(j.repo_dir);
  return st;
}

bool hub_cached_version(const char *repo, int version) {
  if (!repo || version <= 0 || !hub_repo_id_ok(repo)) return false;
  char *cache = hub_cache_root();
  char *dir = cache ? hub_repo_dir(cache, repo) : NULL;
  char name[32];
  snprintf(name, sizeof name, "refs/v%d", version);
  char *ref = dir ? hub_path(dir, name) : NULL;
  char *commit = ref ? hub_ref_read(ref) : NULL;
  bool ok = commit && hub_is_commit(commit);
  if (ok)
    for (char *c = commit; *c; c++) *c = (char)tolower((unsigned char)*c);
  ok = ok && hub_snapshot_complete(dir, commit);
  free(commit);
  free(ref);
  free(dir);
  free(cache);
  return ok;
}

/* ---- the one version rule (docs/hub.md, "Which version a name without one loads") ------------ */

/* "v<N>", N from 1 to 1000000 without a leading zero -> N; anything else -> 0. */
static int branch_version(const char *name) {
  if (!name || name[0] != 'v' || name[1] < '1' || name[1] > '9') return 0;
  char *end = NULL;
  long v = strtol(name + 1, &end, 10);
  return *end || v > 1000000 ? 0 : (int)v;
}

int hub_newest_cached(const char *repo) {
  if (!repo || !hub_repo_id_ok(repo)) return 0;
  char *cache = hub_cache_root();
  char *dir = cache ? hub_repo_dir(cache, repo) : NULL;
  char *refs = dir ? hub_path(dir, "refs") : NULL;
  DIR *d = refs ? opendir(refs) : NULL;
  int newest = 0;
  struct dirent *e;
  while (d && (e = readdir(d))) {
    int v = branch_version(e->d_name);
    if (v > newest && hub_cached_version(repo, v)) newest = v;
  }
  if (d) closedir(d);
  free(refs);
  free(dir);
  free(cache);
  return newest;
}

/* The newest v<N> branch of the Hub's refs listing ({"branches": [{"name": "v1", ...}, ...]}); 0 when none. */
static int newest_branch(const hub_body *body) {
  json_t *doc = json_loadb(body->data, body->len, 0, NULL);
  json_t *branches = json_object_get(doc, "branches");
  int newest = 0;
  size_t i;
  json_t *b;
  json_array_foreach(branches, i, b) {
    int v = branch_version(json_string_value(json_object_get(b, "name")));
    if (v > newest) newest = v;
  }
  json_decref(doc);
  return newest;
}

/* Nothing on this machine, and a load never fetches a version nobody named: the error says how to name one. */
static wgk_status none_here(const char *repo, util_error *err) {
  char *cache = hub_cache_root();
  char *dir = cache ? hub_repo_dir(cache, repo) : NULL;
  wgk_status st = util_error_in(err, WGK_ERR_NOT_FOUND, repo, NULL,
                                "no version of it is on this machine (none bundled, none in the cache %s): name one "
                                "to fetch it from the Hub (the version parameter, --version N, or NAME@vN), or `wgk "
                                "download %s` for the Hub's newest",
                                dir ? dir : "(no cache folder)", repo);
  free(dir);
  free(cache);
  return st;
}

/* HF_HUB_OFFLINE and no version of repo in the cache. */
static wgk_status none_offline(const char *repo, util_error *err) {
  char *cache = hub_cache_root();
  char *dir = cache ? hub_repo_dir(cache, repo) : NULL;
  wgk_status st = util_error_in(err, WGK_ERR_NOT_FOUND, dir ? dir : repo, repo,
                                "HF_HUB_OFFLINE is set and no version of %s is in the cache (no refs/vN naming a "
                                "complete snapshot): download it online first (wgk download %s)",
                                repo, repo);
  free(dir);
  free(cache);
  return st;
}

/* The newest v<N> branch on the Hub, one request (GET /api/kernels/<org>/<name>/refs, as huggingface_hub lists
 * them); no answer at all and a version on this machine (local > 0): that one, as for a branch. */
static wgk_status newest_on_hub(hub_net *net, const char *repo, int local, int *version, util_error *err) {
  size_t n = strlen(net->endpoint) + strlen(repo) + 32;
  char *url = malloc(n);
  if (!url) return util_error_oom(err, repo, NULL);
  snprintf(url, n, "%s/api/kernels/%s/refs", net->endpoint, repo);
  util_error before;
  if (err) before = *err;
  hub_body body;
  wgk_status st = hub_http_get(net, url, repo, "(its branches)", "refs", &body, err);
  if (st && body.unreachable && local > 0) {
    if (err) *err = before;
    *version = local;
    st = WGK_OK;
  } else if (!st) {
    *version = newest_branch(&body);
    if (*version == 0)
      st = util_error_in(err, WGK_ERR_NOT_FOUND, url, repo,
                         "%s has no version branch (v1, v2 ...) on %s: name a revision (the revision parameter, "
                         "--revision SHA, or REPO@SHA)",
                         repo, net->shown);
    hub_body_free(&body);
  }
  free(url);
  return st;
}

wgk_status hub_pick_version(const char *repo, int bundled, bool ask_hub, const hub_options *opts, int *version,
                            util_error *err) {
  hub_options none = {0};
  const hub_options *o = opts ? opts : &none;
  *version = 0;
  wgk_status st = check_repo(repo, o, err);
  if (st) return st;
  int cached = hub_newest_cached(repo);
  int local = cached > bundled ? cached : bundled;
  if (local > 0 && !ask_hub) {
    *version = local;
    return WGK_OK;
  }
  if (!ask_hub) return none_here(repo, err);
  hub_net net;
  if ((st = hub_net_init(&net, o->log, err))) return st;
  if (net.offline && local > 0)
    *version = local;
  else if (net.offline)
    st = none_offline(repo, err);
  else
    st = newest_on_hub(&net, repo, local, version, err);
  hub_net_free(&net);
  return st;
}
