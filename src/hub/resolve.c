/* A repo at a version or revision -> a complete snapshot folder in the cache, fetched when needed. */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* $HF_ENDPOINT/kernels/<org>/<name>/resolve/<rev>/build/webgpu/<file> */
static char *file_url(const job *j, const char *rev, const char *file) {
  size_t n = strlen(j->net.endpoint) + strlen(j->repo) + strlen(rev) + strlen(file) + 64;
  char *u = malloc(n);
  if (u) snprintf(u, n, "%s/kernels/%s/resolve/%s/build/webgpu/%s", j->net.endpoint, j->repo, rev, file);
  return u;
}

static wgk_status fetch(job *j, const char *rev, const char *file, hub_body *body) {
  char *url = file_url(j, rev, file);
  if (!url) return util_error_oom(j->err, j->repo, NULL);
  wgk_status st = hub_http_get(&j->net, url, j->repo, rev, file, body, j->err);
  free(url);
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

/* snapshots/<commit>/build/webgpu/<rel> -> ../../../../blobs/<hex> (one more ../ per folder in rel). */
static wgk_status link_file(job *j, const char *snap, const char *rel, const char *hex) {
  char *path = hub_path(snap, rel);
  size_t depth = 4;
  for (const char *p = rel; *p; p++) depth += *p == '/';
  char *target = malloc(depth * 3 + 80);
  wgk_status st = path && target ? WGK_OK : util_error_oom(j->err, j->repo, NULL);
  if (!st) {
    target[0] = '\0';
    for (size_t i = 0; i < depth; i++) strcat(target, "../");
    strcat(target, "blobs/");
    strcat(target, hex);
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

/* blobs/<hex> holds data (verified by the caller) after this. */
static wgk_status store_blob(job *j, const char *hex, const void *data, size_t len) {
  char *blobs = hub_path(j->repo_dir, "blobs");
  char *p = blobs ? hub_path(blobs, hex) : NULL;
  wgk_status st = p ? WGK_OK : util_error_oom(j->err, j->repo, NULL);
  struct stat sb;
  if (!st && stat(p, &sb) != 0) {
    if (!hub_mkdirs(blobs))
      st = util_error_in(j->err, WGK_ERR_IO, blobs, j->repo, "cannot create: %s", strerror(errno));
    else
      st = hub_write_atomic(p, data, len, j->err);
  }
  free(p);
  free(blobs);
  return st;
}

static bool blob_exists(job *j, const char *hex) {
  char *blobs = hub_path(j->repo_dir, "blobs");
  char *p = blobs ? hub_path(blobs, hex) : NULL;
  struct stat sb;
  bool ok = p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
  free(p);
  free(blobs);
  return ok;
}

/* One listed file: fetched at the commit unless its blob is cached, verified, stored; linked when link. */
static wgk_status fetch_file(job *j, const char *snap, const char *rel, const char *b64, bool link) {
  char want[65];
  if (!util_pkg_relpath_ok(rel) || strcmp(rel, "metadata.json") == 0)
    return util_error_in(j->err, WGK_ERR_MANIFEST, "metadata.json", j->repo,
                         "digest.files lists '%s': a file path must be relative, without '..', and not metadata.json",
                         rel);
  if (!hub_b64_to_hex(b64, want))
    return util_error_in(j->err, WGK_ERR_MANIFEST, "metadata.json", j->repo,
                         "digest of '%s' is not a base64 SHA-256: '%s'", rel, b64);
  if (!blob_exists(j, want)) {
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
    if (!st) st = store_blob(j, want, body.data, body.len);
    hub_body_free(&body);
    if (st) return st;
  }
  return link ? link_file(j, snap, rel, want) : WGK_OK;
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
  else if (!hub_snapshot_complete(j->repo_dir, j->commit)) {
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
    /* Every blob first (verified), then the links: an interrupted download leaves only whole blobs. Passes 0-2
     * fetch in order (manifest, templates, the rest); pass 3 links. */
    for (int pass = 0; pass < 4 && !st; pass++) {
      const char *rel;
      json_t *v;
      json_object_foreach(files, rel, v) {
        if (pass < 3 && rank_of(rel) != pass) continue;
        st = json_is_string(v) ? fetch_file(j, snap, rel, json_string_value(v), pass == 3)
                               : util_error_in(j->err, WGK_ERR_MANIFEST, "metadata.json", j->repo,
                                               "digest of '%s' is not a string", rel);
        if (st) break;
      }
    }
    /* metadata.json last: its link marks the snapshot complete. */
    char hex[65];
    if (!st && !hub_sha256_hex(meta->data, meta->len, hex)) st = util_error_oom(j->err, j->repo, NULL);
    if (!st) st = store_blob(j, hex, meta->data, meta->len);
    if (!st) st = link_file(j, snap, "metadata.json", hex);
  }
  if (!st && j->rev[0] == 'v') st = write_ref(j);
  json_decref(doc);
  free(snap);
  hub_unlock_repo(fd);
  return st;
}

static wgk_status resolve(job *j) {
  const hub_options *o = j->opts;
  const char *repo = j->repo;
  if (!hub_repo_id_ok(repo))
    return util_error_in(j->err, WGK_ERR_INVALID_ARGUMENT, repo, NULL,
                         "not a repo id: expected org/name of letters, digits, '.', '_', '-'");
  bool has_rev = o->revision != NULL;
  if ((o->version > 0) == has_rev)
    return util_error_in(j->err, WGK_ERR_INVALID_ARGUMENT, repo, NULL,
                         has_rev ? "give a version or a revision, not both"
                                 : "a load from the Hub needs a version (--version N) or a revision (--revision SHA): "
                                   "there is no default");
  if (has_rev && !hub_is_commit(o->revision))
    return util_error_in(j->err, WGK_ERR_INVALID_ARGUMENT, repo, "revision", "'%s' is not a 40-hex commit",
                         o->revision);
  size_t org_len = (size_t)(strchr(repo, '/') - repo);
  if (!o->trust_remote_code &&
      !(org_len == strlen(WGK_HUB_TRUSTED_ORG) && strncmp(repo, WGK_HUB_TRUSTED_ORG, org_len) == 0))
    return util_error_in(j->err, WGK_ERR_UNSUPPORTED, repo, NULL,
                         "org '%.*s' is not trusted (only " WGK_HUB_TRUSTED_ORG
                         " is): its kernels run on your GPU; "
                         "pass trust_remote_code (C) or --trust-remote-code (CLI) to load it",
                         (int)org_len, repo);
  wgk_status st = hub_net_init(&j->net, o->log, j->err);
  if (st) return st;
  j->cache = hub_cache_root();
  if (!j->cache)
    return util_error_in(j->err, WGK_ERR_IO, repo, NULL, "no cache folder: set HF_HUB_CACHE, HF_HOME or HOME");
  if (!(j->repo_dir = hub_repo_dir(j->cache, repo))) return util_error_oom(j->err, j->repo, NULL);
  if (has_rev) {
    for (int i = 0; i < 41; i++) j->commit[i] = (char)tolower((unsigned char)o->revision[i]);
    snprintf(j->rev, sizeof j->rev, "%s", j->commit);
    if (hub_snapshot_complete(j->repo_dir, j->commit)) return WGK_OK; /* pinned: never refetched */
  } else {
    snprintf(j->rev, sizeof j->rev, "v%d", o->version);
    if (j->net.offline) {
      if (!read_ref(j))
        return util_error_in(
            j->err, WGK_ERR_NOT_FOUND, j->repo_dir, repo,
            "HF_HUB_OFFLINE is set and %s of %s is not in the cache (no refs/%s): download it online first", j->rev,
            repo, j->rev);
      if (hub_snapshot_complete(j->repo_dir, j->commit)) return WGK_OK;
    }
  }
  if (j->net.offline)
    return util_error_in(
        j->err, WGK_ERR_NOT_FOUND, j->repo_dir, repo,
        "HF_HUB_OFFLINE is set and commit %s of %s is not complete in the cache: download it online first", j->commit,
        repo);
  /* One request: metadata.json at the branch (or commit); X-Repo-Commit names the commit. */
  hub_body meta;
  util_error before;
  if (j->err) before = *j->err;
  if ((st = fetch(j, j->rev, "metadata.json", &meta))) {
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
          util_error_in(j->err, WGK_ERR_IO, j->net.shown, repo,
                        "the answer for %s/metadata.json at %s has no X-Repo-Commit header: cannot pin it in the cache",
                        repo, j->rev);
    else
      memcpy(j->commit, meta.commit, 41);
  } else if (meta.commit[0] && strcmp(meta.commit, j->commit) != 0) {
    st = util_error_in(j->err, WGK_ERR_IO, j->net.shown, repo, "asked for commit %s, the Hub answered for %s",
                       j->commit, meta.commit);
  }
  if (!st) st = populate(j, &meta);
  hub_body_free(&meta);
  return st;
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
