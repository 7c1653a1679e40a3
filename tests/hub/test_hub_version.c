/* The one version rule (docs/hub.md, "Which version a name without one loads") through the package search every
 * load uses (pkg_open: the C API, the CLI's package commands and Python all open packages this way) and through
 * hub_snapshot (wgk download, wgk lock). Run under tests/hub/standin.py, which serves
 * webgpu-kernels/ai.onnx.RotaryEmbedding with branch v1 (the shipped package) and branch v2 (a copy this test makes
 * before any request, recording version 2), sets HF_ENDPOINT, a fresh HF_HOME and WGK_BUNDLED_KERNELS=0. The
 * stand-in's request count (GET /__count, itself not counted) shows which steps sent a request. No GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/hub.h"
#include "hub/hub_internal.h"
#include "package/package.h"

#define REPO "webgpu-kernels/ai.onnx.RotaryEmbedding"
#define OP "ai.onnx.RotaryEmbedding"

static char msg[4096];

/* The stand-in's request count so far. */
static long requests(void) {
  hub_net net;
  util_error err;
  util_error_clear(&err);
  assert_int_equal(hub_net_init(&net, NULL, &err), WGK_OK);
  char url[512];
  snprintf(url, sizeof url, "%s/__count", net.endpoint);
  hub_body body;
  if (hub_http_get(&net, url, "count", "-", "-", &body, &err) != WGK_OK) {
    util_error_format(&err, msg, sizeof msg);
    fail_msg("the stand-in's count: %s", msg);
  }
  long n = strtol(body.data, NULL, 10);
  hub_body_free(&body);
  hub_net_free(&net);
  return n;
}

/* pkg_open with no version (or the options given); the message of a failure into msg. */
static wgk_status open_pkg(const char *name, const pkg_options *o, pkg_package **out) {
  util_error err;
  util_error_clear(&err);
  wgk_status st = pkg_open(name, o, out, &err);
  msg[0] = '\0';
  if (st) util_error_format(&err, msg, sizeof msg);
  return st;
}

static wgk_status download(int version, char **dir) {
  util_error err;
  util_error_clear(&err);
  hub_options o = {.version = version};
  wgk_status st = hub_snapshot(REPO, &o, dir, NULL, &err);
  msg[0] = '\0';
  if (st) util_error_format(&err, msg, sizeof msg);
  return st;
}

/* <WGK_TEST_TMP>/v2: the shipped package recording contract version 2 (metadata.json's "version" is not digested). */
static int make_v2(void **state) {
  (void)state;
  const char *tmp = getenv("WGK_TEST_TMP"), *src = getenv("WGK_SOURCE_DIR");
  assert_non_null(tmp);
  assert_non_null(src);
  char cmd[2048], meta[1024];
  snprintf(cmd, sizeof cmd, "rm -rf '%s/v2' && mkdir -p '%s' && cp -r '%s/kernels/" OP "' '%s/v2'", tmp, tmp, src, tmp);
  assert_int_equal(system(cmd), 0);
  snprintf(meta, sizeof meta, "%s/v2/build/webgpu/metadata.json", tmp);
  json_t *doc = json_load_file(meta, 0, NULL);
  assert_non_null(doc);
  json_object_set_new(doc, "version", json_integer(2));
  assert_int_equal(json_dump_file(doc, meta, JSON_INDENT(2)), 0);
  json_decref(doc);
  assert_non_null(strstr(getenv("HF_ENDPOINT"), "127.0.0.1")); /* started by standin.py */
  unsetenv("HF_HUB_OFFLINE");
  return 0;
}

/* Nothing on this machine: a load without a version fetches nothing and says how to name one; offline, wgk download
 * without a version has nothing to take either. Neither sends a request. */
static void nothing_local(void **state) {
  (void)state;
  long n0 = requests();
  pkg_package *pkg = NULL;
  assert_int_equal(open_pkg(REPO, NULL, &pkg), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(msg, "no version of it is on this machine"));
  assert_non_null(strstr(msg, "the version parameter")); /* the C/Python parameter is named, beside the flag */
  assert_int_equal(hub_newest_cached(REPO), 0);
  setenv("HF_HUB_OFFLINE", "1", 1);
  char *dir = NULL;
  assert_int_equal(download(0, &dir), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(msg, "HF_HUB_OFFLINE is set and no version of " REPO " is in the cache"));
  unsetenv("HF_HUB_OFFLINE");
  assert_int_equal(requests(), n0);
}

/* wgk download (hub_snapshot) without a version takes the Hub's newest branch: v2. */
static void download_takes_the_hubs_newest(void **state) {
  (void)state;
  char *dir = NULL;
  if (download(0, &dir) != WGK_OK) fail_msg("%s", msg);
  assert_non_null(strstr(dir, "/snapshots/"));
  free(dir);
  assert_int_equal(hub_newest_cached(REPO), 2);
  assert_false(hub_cached_version(REPO, 1));
}

/* A load without a version: the newest cached version, v2; online it then loads as @v2 does (one request, to
 * follow the branch), offline with no request at all. */
static void load_takes_the_newest_cached(void **state) {
  (void)state;
  pkg_package *pkg = NULL;
  long n0 = requests();
  if (open_pkg(REPO, NULL, &pkg)) fail_msg("%s", msg);
  assert_int_equal(pkg_version(pkg), 2);
  assert_non_null(strstr(pkg_root(pkg), "kernels--webgpu-kernels--" OP "/snapshots/"));
  pkg_free(pkg);
  assert_int_equal(requests(), n0 + 1); /* metadata.json at v2, as REPO@v2 */
  n0 = requests();
  setenv("HF_HUB_OFFLINE", "1", 1);
  if (open_pkg(OP, NULL, &pkg)) fail_msg("%s", msg); /* a bare op id: the same kernel */
  assert_int_equal(pkg_version(pkg), 2);
  pkg_free(pkg);
  unsetenv("HF_HUB_OFFLINE");
  assert_int_equal(requests(), n0);
}

/* The bundled copy (v1) beside the cache (v2): the newer one wins; a version named loads that one; with the cache
 * holding no version the bundled copy answers without a request. */
static void bundled_and_cache(void **state) {
  (void)state;
  setenv("WGK_BUNDLED_KERNELS", "1", 1);
  setenv("HF_HUB_OFFLINE", "1", 1);
  pkg_package *pkg = NULL;
  if (open_pkg(REPO, NULL, &pkg)) fail_msg("%s", msg);
  assert_int_equal(pkg_version(pkg), 2); /* the cache's v2 over the bundled v1 */
  pkg_free(pkg);
  pkg_options v1 = {.version = 1};
  if (open_pkg(REPO, &v1, &pkg)) fail_msg("%s", msg);
  assert_int_equal(pkg_version(pkg), 1);
  assert_null(strstr(pkg_root(pkg), "/snapshots/")); /* the bundled copy: v1 was never downloaded */
  pkg_free(pkg);
  /* An empty cache: the bundled copy, no version given, no request (offline proves it: none could be sent). */
  char empty[1024];
  snprintf(empty, sizeof empty, "%s/empty-cache", getenv("WGK_TEST_TMP"));
  char *hub_cache = getenv("HF_HUB_CACHE") ? strdup(getenv("HF_HUB_CACHE")) : NULL;
  setenv("HF_HUB_CACHE", empty, 1);
  if (open_pkg(REPO, NULL, &pkg)) fail_msg("%s", msg);
  assert_int_equal(pkg_version(pkg), 1);
  pkg_free(pkg);
  /* A version the bundled copy does not hold is not refused by it: the cache or the Hub answers (offline: not
   * cached, so the offline refusal, not the bundled copy's "version 2 asked, but ... version 1"). */
  pkg_options v2 = {.version = 2};
  assert_int_equal(open_pkg(REPO, &v2, &pkg), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(msg, "HF_HUB_OFFLINE is set and v2"));
  unsetenv("HF_HUB_OFFLINE");
  if (open_pkg(REPO, &v2, &pkg)) fail_msg("%s", msg); /* online: fetched from the Hub */
  assert_int_equal(pkg_version(pkg), 2);
  pkg_free(pkg);
  if (hub_cache)
    setenv("HF_HUB_CACHE", hub_cache, 1);
  else
    unsetenv("HF_HUB_CACHE");
  free(hub_cache);
  setenv("WGK_BUNDLED_KERNELS", "0", 1);
}

/* A name's @vN and the version parameter still choose exactly that version; the revision is untouched. */
static void named_versions_unchanged(void **state) {
  (void)state;
  pkg_package *pkg = NULL;
  if (open_pkg(REPO "@v1", NULL, &pkg)) fail_msg("%s", msg);
  assert_int_equal(pkg_version(pkg), 1);
  pkg_free(pkg);
  assert_int_equal(hub_newest_cached(REPO), 2);
  pkg_options both = {.version = 1};
  assert_int_equal(open_pkg(REPO "@v2", &both, &pkg), WGK_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(msg, "the version parameter"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(nothing_local),
      cmocka_unit_test(download_takes_the_hubs_newest),
      cmocka_unit_test(load_takes_the_newest_cached),
      cmocka_unit_test(bundled_and_cache),
      cmocka_unit_test(named_versions_unchanged),
  };
  return cmocka_run_group_tests(tests, make_v2, NULL);
}
