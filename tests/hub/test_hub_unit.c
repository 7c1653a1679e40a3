/* The Hub client's parts that need no server: repo ids, digests, cache paths and environment, offline
 * resolution from a hand-made cache, atomic writes and the lock's sweep, the token's sources. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hub/hub.h"
#include "hub/hub_internal.h"

static char tmp[256];

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int setup(void **state) {
  (void)state;
  snprintf(tmp, sizeof tmp, "/tmp/wgk-hub-unit-XXXXXX");
  assert_non_null(mkdtemp(tmp));
  /* Nothing here may reach a network: an endpoint that refuses, and offline unless a test says otherwise. */
  setenv("HF_ENDPOINT", "http://127.0.0.1:9", 1);
  setenv("WGK_HUB_RETRIES", "1", 1);
  unsetenv("HF_TOKEN");
  unsetenv("HF_HUB_CACHE");
  unsetenv("XDG_CACHE_HOME");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  return system(cmd) == 0 ? 0 : -1;
}

static void repo_ids(void **state) {
  (void)state;
  assert_true(hub_repo_id_ok("webgpu-kernels/ai.onnx.RotaryEmbedding"));
  assert_true(hub_repo_id_ok("A_b.c-9/x"));
  const char *bad[] = {"", "x", "/x", "x/", "a/b/c", "a b/c", "a/b c", "./x", "a/..", "a/b\n", "a--b/c", "ü/x", NULL};
  for (const char **b = bad; *b; b++)
    if (hub_repo_id_ok(*b)) fail_msg("accepted '%s'", *b);
}

static void digests(void **state) {
  (void)state;
  char hex[65];
  /* sha256("") */
  assert_true(hub_b64_to_hex("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", hex));
  assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert_true(hub_sha256_hex("", 0, hex));
  assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert_false(hub_b64_to_hex("47DEQpj8HBSa", hex));
  assert_false(hub_b64_to_hex("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuF!=", hex));
  assert_true(hub_is_commit("0123456789abcdefABCDEF0123456789abcdef01"));
  assert_false(hub_is_commit("0123456789abcdef0123456789abcdef0123456"));
  assert_false(hub_is_commit("g123456789abcdef0123456789abcdef01234567"));
}

static void cache_root_env(void **state) {
  (void)state;
  setenv("HOME", "/h", 1);
  unsetenv("HF_HOME");
  char *r = hub_cache_root();
  assert_string_equal(r, "/h/.cache/huggingface/hub");
  free(r);
  setenv("HF_HOME", "/hf", 1);
  r = hub_cache_root();
  assert_string_equal(r, "/hf/hub");
  free(r);
  setenv("HF_HUB_CACHE", "/c", 1);
  r = hub_cache_root();
  assert_string_equal(r, "/c");
  free(r);
  unsetenv("HF_HUB_CACHE");
  r = hub_repo_dir("/c", "webgpu-kernels/ai.onnx.X");
  assert_string_equal(r, "/c/kernels--webgpu-kernels--ai.onnx.X");
  free(r);
}

static void snapshot_bound(void **state) {
  (void)state;
  char a[] = "/c/kernels--o--n.x/snapshots/0123456789abcdef0123456789abcdef01234567";
  assert_true(hub_snapshot_bound(a));
  assert_string_equal(a, "/c/kernels--o--n.x");
  const char *not_snapshots[] = {"/c/kernels--o--n.x/snapshots/main",
                                 "/c/models--o--n/snapshots/0123456789abcdef0123456789abcdef01234567",
                                 "/c/kernels--on/snapshots/0123456789abcdef0123456789abcdef01234567",
                                 "/c/kernels--o--n/other/0123456789abcdef0123456789abcdef01234567",
                                 "/pkg",
                                 "/"};
  for (size_t i = 0; i < sizeof not_snapshots / sizeof *not_snapshots; i++) {
    char buf[200];
    snprintf(buf, sizeof buf, "%s", not_snapshots[i]);
    assert_false(hub_snapshot_bound(buf));
    assert_string_equal(buf, not_snapshots[i]);
  }
}

static wgk_status snap(const char *repo, int version, const char *rev, bool trust, char **dir, util_error *err) {
  hub_options o = {.version = version, .revision = rev, .trust_remote_code = trust};
  util_error_clear(err);
  return hub_snapshot(repo, &o, dir, NULL, err);
}

static void argument_refusals(void **state) {
  (void)state;
  char *dir = NULL;
  util_error err;
  /* Neither version nor revision: the newest version (docs/hub.md); offline and nothing cached, none to take. */
  setenv("HF_HUB_OFFLINE", "1", 1);
  assert_int_equal(snap("webgpu-kernels/ai.onnx.X", 0, NULL, false, &dir, &err), WGK_ERR_NOT_FOUND);
  assert_non_null(
      strstr(err.message, "HF_HUB_OFFLINE is set and no version of webgpu-kernels/ai.onnx.X is in the cache"));
  unsetenv("HF_HUB_OFFLINE");
  assert_int_equal(snap("webgpu-kernels/ai.onnx.X", 1, "0123456789abcdef0123456789abcdef01234567", false, &dir, &err),
                   WGK_ERR_INVALID_ARGUMENT);
  assert_int_equal(snap("webgpu-kernels/ai.onnx.X", 0, "main", false, &dir, &err), WGK_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "40-hex"));
  assert_int_equal(snap("a/b/c", 1, NULL, false, &dir, &err), WGK_ERR_INVALID_ARGUMENT);
  assert_int_equal(snap("evil/ai.onnx.X", 1, NULL, false, &dir, &err), WGK_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "org 'evil' is not trusted"));
  /* webgpu-kernels-fake is another org, not a prefix match of the trusted one. */
  assert_int_equal(snap("webgpu-kernels-x/ai.onnx.X", 1, NULL, false, &dir, &err), WGK_ERR_UNSUPPORTED);
  assert_null(dir);
}

/* A cache made by hand: refs/v1 -> C, snapshots/C/build/webgpu/metadata.json. */
static void offline_from_refs(void **state) {
  (void)state;
  char cache[400], p[800];
  const char *c = "89abcdef0123456789abcdef0123456789abcdef";
  snprintf(cache, sizeof cache, "%s/cache", tmp);
  setenv("HF_HUB_CACHE", cache, 1);
  setenv("HF_HUB_OFFLINE", "1", 1);
  char *dir = NULL, *commit = NULL;
  util_error err;
  assert_int_equal(snap("webgpu-kernels/ai.onnx.X", 1, NULL, false, &dir, &err), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "HF_HUB_OFFLINE is set and v1"));
  snprintf(p, sizeof p, "%s/kernels--webgpu-kernels--ai.onnx.X/refs", cache);
  assert_true(hub_mkdirs(p));
  strcat(p, "/v1");
  write_text(p, c);
  /* refs but no complete snapshot: still not found, and says which commit. */
  assert_int_equal(snap("webgpu-kernels/ai.onnx.X", 1, NULL, false, &dir, &err), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, c));
  snprintf(p, sizeof p, "%s/kernels--webgpu-kernels--ai.onnx.X/snapshots/%s/build/webgpu", cache, c);
  assert_true(hub_mkdirs(p));
  strcat(p, "/metadata.json");
  write_text(p, "{}"); /* complete means every file digest.files lists is there: without the object, not complete */
  assert_int_equal(snap("webgpu-kernels/ai.onnx.X", 1, NULL, false, &dir, &err), WGK_ERR_NOT_FOUND);
  write_text(p, "{\"digest\": {\"algorithm\": \"sha256\", \"files\": {}}}");
  hub_options o = {.version = 1};
  util_error_clear(&err);
  assert_int_equal(hub_snapshot("webgpu-kernels/ai.onnx.X", &o, &dir, &commit, &err), WGK_OK);
  assert_string_equal(commit, c);
  assert_non_null(strstr(dir, "/snapshots/89abcdef"));
  free(dir);
  free(commit);
  /* No version: the newest complete refs/v<N>. refs/v3 names an incomplete snapshot, refs/v07, refs/main and
   * refs/v2x are no version branches: all ignored; refs/v1 wins, offline without a request. */
  const char *junk[] = {"v3", "v07", "main", "v2x"};
  for (size_t i = 0; i < sizeof junk / sizeof *junk; i++) {
    snprintf(p, sizeof p, "%s/kernels--webgpu-kernels--ai.onnx.X/refs/%s", cache, junk[i]);
    write_text(p, "0000000000000000000000000000000000000000");
  }
  assert_int_equal(hub_newest_cached("webgpu-kernels/ai.onnx.X"), 1);
  int picked = 0;
  util_error_clear(&err);
  assert_int_equal(hub_pick_version("webgpu-kernels/ai.onnx.X", 0, true, NULL, &picked, &err), WGK_OK);
  assert_int_equal(picked, 1);
  /* a bundled copy recording a newer version wins over the cache; an untrusted org is refused before anything */
  assert_int_equal(hub_pick_version("webgpu-kernels/ai.onnx.X", 4, false, NULL, &picked, &err), WGK_OK);
  assert_int_equal(picked, 4);
  assert_int_equal(hub_pick_version("evil/ai.onnx.X", 0, false, NULL, &picked, &err), WGK_ERR_UNSUPPORTED);
  o.version = 0;
  util_error_clear(&err);
  assert_int_equal(hub_snapshot("webgpu-kernels/ai.onnx.X", &o, &dir, &commit, &err), WGK_OK);
  assert_string_equal(commit, c);
  free(dir);
  free(commit);
  /* A commit-pinned load of a complete snapshot needs no network even online (the endpoint refuses). */
  unsetenv("HF_HUB_OFFLINE");
  /* Online, the Hub unreachable: wgk download without a version takes the newest cached one, as a branch does. */
  util_error_clear(&err);
  assert_int_equal(hub_pick_version("webgpu-kernels/ai.onnx.X", 0, true, NULL, &picked, &err), WGK_OK);
  assert_int_equal(picked, 1);
  assert_false(util_error_is_set(&err));
  /* Online but the Hub cannot be reached: a cached branch is used (as huggingface_hub falls back). */
  assert_int_equal(snap("webgpu-kernels/ai.onnx.X", 1, NULL, false, &dir, &err), WGK_OK);
  assert_false(util_error_is_set(&err));
  free(dir);
  assert_int_equal(snap("webgpu-kernels/ai.onnx.X", 0, "89ABCDEF0123456789ABCDEF0123456789ABCDEF", false, &dir, &err),
                   WGK_OK);
  free(dir);
  /* Online, not cached, the endpoint refuses: a network error naming the URL, and nothing cached. */
  assert_int_equal(snap("webgpu-kernels/ai.onnx.Y", 1, NULL, false, &dir, &err), WGK_ERR_IO);
  assert_non_null(
      strstr(err.source, "http://127.0.0.1:9/kernels/webgpu-kernels/ai.onnx.Y/resolve/v1/build/webgpu/metadata.json"));
  assert_non_null(strstr(err.message, "network error"));
  snprintf(p, sizeof p, "%s/kernels--webgpu-kernels--ai.onnx.Y", cache);
  assert_int_not_equal(access(p, F_OK), 0);
  unsetenv("HF_HUB_CACHE");
}

static void atomic_writes_and_sweep(void **state) {
  (void)state;
  char cache[400], p[800], stale[900];
  snprintf(cache, sizeof cache, "%s/cache2", tmp);
  snprintf(p, sizeof p, "%s/kernels--o--n.x/blobs", cache);
  assert_true(hub_mkdirs(p));
  snprintf(stale, sizeof stale, "%s/abc.wgk-incomplete-1-2-3", p);
  write_text(stale, "half");
  strcat(p, "/f");
  util_error err;
  util_error_clear(&err);
  assert_int_equal(hub_write_atomic(p, "hello", 5, &err), WGK_OK);
  size_t n = 0;
  char *back = hub_read_all(p, 64, &n, NULL);
  assert_int_equal(n, 5);
  assert_memory_equal(back, "hello", 5);
  free(back);
  /* Taking the lock removes what an interrupted writer left. */
  int fd = hub_lock_repo(cache, "o/n.x", &err);
  assert_true(fd >= 0);
  assert_int_not_equal(access(stale, F_OK), 0);
  assert_int_equal(access(p, F_OK), 0);
  hub_unlock_repo(fd);
  /* A write into a missing folder fails cleanly. */
  snprintf(p, sizeof p, "%s/nowhere/f", cache);
  assert_int_equal(hub_write_atomic(p, "x", 1, &err), WGK_ERR_IO);
}

static void token_sources(void **state) {
  (void)state;
  char home[400], p[800];
  snprintf(home, sizeof home, "%s/hfhome", tmp);
  assert_true(hub_mkdirs(home));
  setenv("HF_HOME", home, 1);
  hub_net net;
  util_error err;
  util_error_clear(&err);
  assert_int_equal(hub_net_init(&net, NULL, &err), WGK_OK);
  assert_null(net.token);
  hub_net_free(&net);
  snprintf(p, sizeof p, "%s/token", home);
  write_text(p, "hf_file \n");
  assert_int_equal(hub_net_init(&net, NULL, &err), WGK_OK);
  assert_string_equal(net.token, "hf_file");
  hub_net_free(&net);
  setenv("HF_TOKEN", "hf_env", 1);
  setenv("HF_ENDPOINT", "http://127.0.0.1:9///", 1);
  assert_int_equal(hub_net_init(&net, NULL, &err), WGK_OK);
  assert_string_equal(net.token, "hf_env");
  assert_string_equal(net.endpoint, "http://127.0.0.1:9");
  hub_net_free(&net);
  /* A token that would end the Authorization header and start another is refused, and not printed. */
  setenv("HF_TOKEN", "hf_env\r\nX-Injected: 1", 1);
  util_error_clear(&err);
  assert_int_equal(hub_net_init(&net, NULL, &err), WGK_ERR_INVALID_ARGUMENT);
  assert_null(strstr(err.message, "hf_env"));
  assert_string_equal(err.source, "HF_TOKEN");
  hub_net_free(&net);
  unsetenv("HF_TOKEN");
  write_text(p, "hf_\x1b[2Jfile\n");
  util_error_clear(&err);
  assert_int_equal(hub_net_init(&net, NULL, &err), WGK_ERR_INVALID_ARGUMENT);
  hub_net_free(&net);
  unlink(p);
  /* A bad value of a WGK_HUB_ variable is an error naming it, never a silent default. */
  setenv("WGK_HUB_RETRIES", "0", 1);
  util_error_clear(&err);
  assert_int_equal(hub_net_init(&net, NULL, &err), WGK_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "WGK_HUB_RETRIES"));
  hub_net_free(&net);
  unsetenv("WGK_HUB_RETRIES");
  setenv("HF_ENDPOINT", "http://127.0.0.1:9", 1);
}

/* Blob names as huggingface_hub gives them: the Hub's ETag when it is the bytes' git blob id or SHA-256. */
static void blob_names(void **state) {
  (void)state;
  char hex[65];
  assert_true(hub_git_sha1_hex("hello\n", 6, hex));
  assert_string_equal(hex, "ce013625030ba8dba906f756967f9e9ca394464a"); /* git hash-object of "hello\n" */
  hub_blob_name("CE013625030BA8DBA906F756967F9E9CA394464A", "hello\n", 6, hex);
  assert_string_equal(hex, "ce013625030ba8dba906f756967f9e9ca394464a");
  char sha[65];
  hub_sha256_hex("hello\n", 6, sha);
  hub_blob_name(sha, "hello\n", 6, hex);
  assert_string_equal(hex, sha);
  hub_blob_name("d41d8cd98f00b204e9800998ecf8427e", "hello\n", 6, hex); /* a CDN's MD5: not a content name */
  assert_string_equal(hex, sha);
  hub_blob_name("ce013625030ba8dba906f756967f9e9ca394464b", "hello\n", 6, hex); /* a git id of other bytes */
  assert_string_equal(hex, sha);
  assert_true(hub_blob_name_ok("ce013625030ba8dba906f756967f9e9ca394464a", "hello\n", 6));
  assert_false(hub_blob_name_ok("ce013625030ba8dba906f756967f9e9ca394464a", "hello!", 6));
  assert_false(hub_blob_name_shape("../../etc"));
}

/* One way to name a kernel, name@vN, name@<commit>, agreeing with the version / revision parameters: the split
 * reports nothing, hub_ref_error turns its problem into the one message. */
static void name_forms(void **state) {
  (void)state;
  util_error err;
  util_error_clear(&err);
  hub_ref r = {0};
  assert_int_equal(hub_split_ref("webgpu-kernels/a.B@v12", true, &r), HUB_REF_OK);
  assert_int_equal(r.base_len, strlen("webgpu-kernels/a.B"));
  assert_int_equal(r.version, 12);
  assert_null(r.revision);
  assert_int_equal(hub_ref_error(&r, "webgpu-kernels/a.B@v12", &err), WGK_OK);
  assert_false(util_error_is_set(&err));
  r = (hub_ref){0};
  assert_int_equal(hub_split_ref("a.B@89ABCDEF0123456789ABCDEF0123456789ABCDEF", true, &r), HUB_REF_OK);
  assert_string_equal(r.revision, "89abcdef0123456789abcdef0123456789abcdef");
  assert_ptr_equal(r.revision, r.rev);
  assert_int_equal(r.base_len, 3);
  r = (hub_ref){.version = 2};
  assert_int_equal(hub_split_ref("a.B@v1", true, &r), HUB_REF_VERSIONS_DIFFER);
  assert_int_equal(hub_ref_error(&r, "a.B@v1", &err), WGK_ERR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "names version 1, but the version parameter (or --version) says 2: give one");
  assert_string_equal(err.source, "a.B@v1");
  util_error_clear(&err);
  r = (hub_ref){0};
  assert_int_equal(hub_split_ref("a.B@v0", true, &r), HUB_REF_SUFFIX);
  assert_int_equal(hub_ref_error(&r, "a.B@v0", &err), WGK_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "'@v0': after '@' give a version"));
  util_error_clear(&err);
  r = (hub_ref){0};
  assert_int_equal(hub_split_ref("a.B@v1000001", true, &r), HUB_REF_SUFFIX_VERSION);
  r = (hub_ref){.revision = "0123456789abcdef0123456789abcdef01234567"};
  assert_int_equal(hub_split_ref("a.B@v3", true, &r), HUB_REF_VERSION_AND_REVISION);
  assert_int_equal(hub_split_ref("a.B@89ABCDEF0123456789ABCDEF0123456789ABCDEF", true, &r), HUB_REF_COMMITS_DIFFER);
  r = (hub_ref){.version = 4};
  assert_int_equal(hub_split_ref("a.B@89ABCDEF0123456789ABCDEF0123456789ABCDEF", true, &r), HUB_REF_COMMIT_AND_VERSION);
  r = (hub_ref){0};
  assert_int_equal(hub_split_ref("a.B", true, &r), HUB_REF_OK);
  assert_int_equal(r.base_len, 3);
  /* The given version and revision answer to the same rules, for a folder (no suffix read) as for an id. */
  r = (hub_ref){.version = 1000001};
  assert_int_equal(hub_split_ref("some/dir@v1", false, &r), HUB_REF_VERSION_OPTION);
  assert_int_equal(hub_ref_error(&r, "some/dir@v1", &err), WGK_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "kernel option version: must be 0 (any) or a branch number"));
  assert_string_equal(err.source, "some/dir@v1");
  assert_int_equal(r.base_len, strlen("some/dir@v1"));
  util_error_clear(&err);
  r = (hub_ref){.revision = "0123456789abcdef0123456789abcdef0123456g"};
  assert_int_equal(hub_split_ref("a.B@v1", true, &r), HUB_REF_REVISION_OPTION);
  assert_int_equal(hub_ref_error(&r, "a.B@v1", &err), WGK_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "kernel option revision: must be a 40-hex commit"));
  util_error_clear(&err);
  char *id = hub_repo_of("a.B", 3);
  assert_string_equal(id, "webgpu-kernels/a.B");
  free(id);
  id = hub_repo_of("o/a.B@v1", 5);
  assert_string_equal(id, "o/a.B");
  free(id);
}

static void secrets_and_escapes(void **state) {
  (void)state;
  char *u = hub_url_shown("https://user:pw@host.example:8443/kernels/a@b");
  assert_string_equal(u, "https://***@host.example:8443/kernels/a@b");
  free(u);
  u = hub_url_shown("http://host/x@y");
  assert_string_equal(u, "http://host/x@y");
  free(u);
  char out[64];
  assert_string_equal(hub_escape("v1\x1b[2J\\", out, sizeof out), "v1\\x1b[2J\\x5c");
  assert_string_equal(hub_escape("abcdefghij", out, 8), "abcdefg");
}

/* The lock-time sweep never follows a symlink: a repo folder that is a link is refused, its target untouched. */
static void sweep_stays_inside(void **state) {
  (void)state;
  char cache[400], victim[400], bait[600], link[600];
  snprintf(cache, sizeof cache, "%s/cache3", tmp);
  snprintf(victim, sizeof victim, "%s/victim", tmp);
  snprintf(bait, sizeof bait, "%s/blobs/x.wgk-incomplete-1-2-3", victim);
  snprintf(link, sizeof link, "%s/blobs", victim);
  assert_true(hub_mkdirs(link) && hub_mkdirs(cache));
  write_text(bait, "keep");
  snprintf(link, sizeof link, "%s/kernels--o--n.x", cache);
  assert_int_equal(symlink(victim, link), 0);
  util_error err;
  util_error_clear(&err);
  assert_true(hub_lock_repo(cache, "o/n.x", &err) < 0);
  assert_non_null(strstr(err.message, "symbolic link"));
  assert_int_equal(access(bait, F_OK), 0);
  /* A linked folder inside a real repo folder is not entered either. */
  assert_int_equal(unlink(link), 0);
  assert_true(hub_mkdirs(link));
  strcat(link, "/snapshots");
  assert_int_equal(symlink(victim, link), 0);
  util_error_clear(&err);
  int fd = hub_lock_repo(cache, "o/n.x", &err);
  assert_true(fd >= 0);
  hub_unlock_repo(fd);
  assert_int_equal(access(bait, F_OK), 0);
}

static void lockfile_refusals(void **state) {
  (void)state;
  char p[400];
  snprintf(p, sizeof p, "%s/bad.lock", tmp);
  write_text(p, "{\"version\": 2, \"kernels\": []}");
  util_error err;
  util_error_clear(&err);
  assert_int_equal(hub_download_lock(p, NULL, NULL, NULL, &err), WGK_ERR_PARSE);
  write_text(
      p, "{\"version\": 1, \"kernels\": [{\"repo\": \"webgpu-kernels/a.b\", \"commit\": \"main\", \"files\": {}}]}");
  util_error_clear(&err);
  assert_int_equal(hub_download_lock(p, NULL, NULL, NULL, &err), WGK_ERR_PARSE);
  assert_non_null(strstr(err.path, "kernels[0]"));
  const char *specs[] = {"webgpu-kernels/a.b@main"};
  char *json = NULL;
  util_error_clear(&err);
  assert_int_equal(hub_lock(specs, 1, NULL, &json, &err), WGK_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "expected REPO or REPO@vN"));
  assert_null(json);
  /* REPO alone: the newest version (hub_pick_version); offline with nothing cached, none. */
  specs[0] = "webgpu-kernels/a.b";
  setenv("HF_HUB_OFFLINE", "1", 1);
  util_error_clear(&err);
  assert_int_equal(hub_lock(specs, 1, NULL, &json, &err), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "no version of webgpu-kernels/a.b is in the cache"));
  unsetenv("HF_HUB_OFFLINE");
  assert_null(json);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(repo_ids),           cmocka_unit_test(digests),
      cmocka_unit_test(cache_root_env),     cmocka_unit_test(argument_refusals),
      cmocka_unit_test(offline_from_refs),  cmocka_unit_test(atomic_writes_and_sweep),
      cmocka_unit_test(token_sources),      cmocka_unit_test(lockfile_refusals),
      cmocka_unit_test(snapshot_bound),     cmocka_unit_test(secrets_and_escapes),
      cmocka_unit_test(sweep_stays_inside), cmocka_unit_test(blob_names),
      cmocka_unit_test(name_forms),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
