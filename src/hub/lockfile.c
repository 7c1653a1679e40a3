/* wgk.lock: repos pinned to commits and file digests (format in hub.h); writing one, downloading from one. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/hub_internal.h"
#include "util/digest.h"

/* The snapshot's metadata.json: its digest.files (new reference) and its own digest. */
static wgk_status snapshot_files(const char *dir, const char *repo, json_t **files_out,
                                 char b64[WGK_PKG_DIGEST_B64_LEN + 1], util_error *err) {
  *files_out = NULL;
  char *p = hub_path(dir, "metadata.json");
  size_t len = 0;
  char *text = p ? hub_read_all(p, HUB_FILE_MAX_BYTES, &len, NULL) : NULL;
  json_t *doc = text ? json_loadb(text, len, 0, NULL) : NULL;
  json_t *files = json_object_get(json_object_get(doc, "digest"), "files");
  wgk_status st = WGK_OK;
  if (!text)
    st = util_error_in(err, WGK_ERR_IO, p ? p : dir, repo, "cannot read the cached metadata.json");
  else if (!json_is_object(files))
    st = util_error_in(err, WGK_ERR_MANIFEST, p, repo, "no digest.files object");
  else if (!util_pkg_sha256_b64(text, len, b64))
    st = util_error_in(err, WGK_ERR_IO, p, repo, "sha256 failed");
  else
    *files_out = json_deep_copy(files);
  if (!st && !*files_out) st = util_error_oom(err, p, repo);
  json_decref(doc);
  free(text);
  free(p);
  return st;
}

wgk_status hub_lock(const char *const *specs, size_t n, const hub_options *opts, char **json_out, util_error *err) {
  *json_out = NULL;
  json_t *root = json_pack("{s:i, s:[]}", "version", 1, "kernels");
  json_t *list = json_object_get(root, "kernels");
  wgk_status st = root ? WGK_OK : util_error_oom(err, NULL, NULL);
  for (size_t i = 0; i < n && !st; i++) {
    const char *at = strrchr(specs[i], '@');
    char *end = NULL;
    long v = at && at[1] == 'v' ? strtol(at + 2, &end, 10) : 0;
    if (at && (!end || *end || v < 1 || v > 1000000)) {
      st = util_error_in(err, WGK_ERR_INVALID_ARGUMENT, specs[i], NULL,
                         "expected REPO or REPO@vN, e.g. webgpu-kernels/ai.onnx.RotaryEmbedding@v1");
      break;
    }
    char *repo = at ? strndup(specs[i], (size_t)(at - specs[i])) : strdup(specs[i]);
    hub_options o = opts ? *opts : (hub_options){0};
    o.revision = NULL;
    o.version = (int)v;
    /* REPO alone: the one version rule, the Hub answering (its newest branch; offline the newest cached). */
    if (repo && !at && (st = hub_pick_version(repo, 0, true, &o, &o.version, err))) {
      free(repo);
      break;
    }
    v = o.version;
    char *dir = NULL, *commit = NULL;
    json_t *files = NULL;
    char meta_b64[WGK_PKG_DIGEST_B64_LEN + 1];
    st = repo ? hub_snapshot(repo, &o, &dir, &commit, err) : util_error_oom(err, NULL, NULL);
    if (!st) st = snapshot_files(dir, repo, &files, meta_b64, err);
    if (!st) {
      json_object_set_new(files, "metadata.json", json_string(meta_b64));
      json_t *e = json_pack("{s:s, s:i, s:s, s:o}", "repo", repo, "version", (int)v, "commit", commit, "files", files);
      files = NULL;
      if (!e || json_array_append_new(list, e) != 0) st = util_error_oom(err, NULL, NULL);
    }
    json_decref(files);
    free(dir);
    free(commit);
    free(repo);
  }
  if (!st && !(*json_out = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS))) st = util_error_oom(err, NULL, NULL);
  json_decref(root);
  return st;
}

/* The snapshot in dir holds exactly the locked files, each hashing to its locked digest. */
static wgk_status check_drift(const char *lock_path, size_t index, const char *repo, const char *dir, json_t *locked,
                              util_error *err) {
  char path[64];
  snprintf(path, sizeof path, "kernels[%zu]", index);
  json_t *files = NULL;
  char meta_b64[WGK_PKG_DIGEST_B64_LEN + 1];
  wgk_status st = snapshot_files(dir, repo, &files, meta_b64, err);
  if (!st) json_object_set_new(files, "metadata.json", json_string(meta_b64));
  const char *rel;
  json_t *v;
  json_object_foreach(files, rel, v) {
    if (st) break;
    if (!json_object_get(locked, rel))
      st = util_error_in(err, WGK_ERR_DIGEST, lock_path, path,
                         "%s: the snapshot has build/webgpu/%s, which the lock does not list: refusing drift", repo,
                         rel);
  }
  json_object_foreach(locked, rel, v) {
    if (st) break;
    const char *want = json_string_value(v);
    json_t *have = json_object_get(files, rel);
    char *p = hub_path(dir, rel);
    size_t len = 0;
    char *bytes = p && have ? hub_read_all(p, HUB_FILE_MAX_BYTES, &len, NULL) : NULL;
    char got[WGK_PKG_DIGEST_B64_LEN + 1] = "";
    if (bytes) util_pkg_sha256_b64(bytes, len, got);
    if (!have)
      st =
          util_error_in(err, WGK_ERR_DIGEST, lock_path, path,
                        "%s: the lock lists build/webgpu/%s, the snapshot has no such file: refusing drift", repo, rel);
    else if (!want || strcmp(want, got) != 0)
      st = util_error_in(err, WGK_ERR_DIGEST, lock_path, path,
                         "%s: build/webgpu/%s: locked digest %s, snapshot has %s: refusing drift", repo, rel,
                         want ? want : "(not a string)", got[0] ? got : "(unreadable)");
    free(bytes);
    free(p);
  }
  json_decref(files);
  return st;
}

wgk_status hub_download_lock(const char *lock_path, const hub_options *opts, hub_dir_fn fn, void *user,
                             util_error *err) {
  json_error_t je;
  size_t len = 0;
  /* Regular files only, bounded: a FIFO or a device named as the lockfile must not hang or fill memory. */
  char *text = hub_read_all(lock_path, HUB_LOCKFILE_MAX_BYTES, &len, err);
  if (!text) return err && err->status ? err->status : WGK_ERR_IO;
  json_t *root = json_loadb(text, len, 0, &je);
  free(text);
  if (!root) return util_error_at(err, WGK_ERR_PARSE, UTIL_POS(lock_path, je), NULL, "%s", je.text);
  json_t *list = json_object_get(root, "kernels");
  wgk_status st = WGK_OK;
  if (json_integer_value(json_object_get(root, "version")) != 1 || !json_is_array(list))
    st = util_error_in(err, WGK_ERR_PARSE, lock_path, NULL, "expected {\"version\": 1, \"kernels\": [...]}");
  size_t i;
  json_t *e;
  json_array_foreach(list, i, e) {
    if (st) break;
    char path[64];
    snprintf(path, sizeof path, "kernels[%zu]", i);
    const char *repo = json_string_value(json_object_get(e, "repo"));
    const char *commit = json_string_value(json_object_get(e, "commit"));
    json_t *files = json_object_get(e, "files");
    if (!repo || !commit || !hub_is_commit(commit) || !json_is_object(files)) {
      st = util_error_in(err, WGK_ERR_PARSE, lock_path, path, "needs repo, commit (40 hex) and files");
      break;
    }
    hub_options o = opts ? *opts : (hub_options){0};
    o.version = 0;
    o.revision = commit;
    char *dir = NULL;
    st = hub_snapshot(repo, &o, &dir, NULL, err);
    if (!st) st = check_drift(lock_path, i, repo, dir, files, err);
    if (!st && fn) fn(repo, dir, user);
    free(dir);
  }
  json_decref(root);
  return st;
}
