/* `wgk cache ls [--json] | verify [REPO...] | rm REPO`: the Hub cache (src/hub/hub.h has its layout). */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "hub/hub.h"

static char *join(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", a, b);
  return p;
}

/* Bytes of the regular files in dir (blobs/). */
static long long dir_bytes(const char *dir, int *count) {
  long long total = 0;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    char *p = e->d_name[0] == '.' ? NULL : join(dir, e->d_name);
    struct stat st;
    if (p && lstat(p, &st) == 0 && S_ISREG(st.st_mode)) {
      total += st.st_size;
      ++*count;
    }
    free(p);
  }
  if (d) closedir(d);
  return total;
}

/* One line per repo, then one per ref and per snapshot; or, with user a JSON array (ls --json), one object
 * appended to it: {repo, folder, blobs, bytes, refs: {name: commit}, snapshots: [{commit, complete}]}. */
static void list_repo(const char *cache, const char *repo, void *user) {
  json_t *repos = user, *obj = NULL, *jrefs = NULL, *jsnaps = NULL;
  char *dir = hub_repo_dir(cache, repo);
  char *blobs = dir ? join(dir, "blobs") : NULL, *refs = dir ? join(dir, "refs") : NULL;
  char *snaps = dir ? join(dir, "snapshots") : NULL;
  int n_blobs = 0;
  long long bytes = blobs ? dir_bytes(blobs, &n_blobs) : 0;
  if (repos) {
    jrefs = json_object();
    jsnaps = json_array();
    obj = json_pack("{s:s, s:s, s:i, s:I, s:o, s:o}", "repo", repo, "folder", dir ? dir : "", "blobs", n_blobs, "bytes",
                    (json_int_t)bytes, "refs", jrefs, "snapshots", jsnaps);
    json_array_append_new(repos, obj);
  } else {
    printf("%s  %d blobs, %lld bytes  %s\n", repo, n_blobs, bytes, dir ? dir : "");
  }
  struct dirent **names = NULL;
  int n = refs ? scandir(refs, &names, NULL, alphasort) : -1;
  for (int i = 0; i < n; i++) {
    char *p = names[i]->d_name[0] == '.' ? NULL : join(refs, names[i]->d_name);
    /* A ref is read as a small regular file, and both its name and its text are printed escaped: what is on
     * disk may hold terminal escapes (JSON escapes them itself). */
    char *text = p ? hub_ref_read(p) : NULL;
    char name[256], commit[256];
    if (text) text[strcspn(text, "\r\n")] = '\0';
    if (p && jrefs)
      json_object_set_new(jrefs, names[i]->d_name, text ? json_string(text) : json_null());
    else if (p)
      printf("  ref %s -> %s\n", hub_escape(names[i]->d_name, name, sizeof name),
             text ? hub_escape(text, commit, sizeof commit) : "(unreadable: not a small regular file)");
    free(text);
    free(p);
    free(names[i]);
  }
  free(names);
  n = snaps ? scandir(snaps, &names, NULL, alphasort) : -1;
  for (int i = 0; i < n; i++) {
    if (names[i]->d_name[0] != '.') {
      char *p = join(snaps, names[i]->d_name);
      char *meta = p ? join(p, "build/webgpu/metadata.json") : NULL;
      struct stat st;
      bool complete = meta && stat(meta, &st) == 0;
      char name[256];
      if (jsnaps)
        json_array_append_new(jsnaps, json_pack("{s:s, s:b}", "commit", names[i]->d_name, "complete", complete));
      else
        printf("  snapshot %s%s\n", hub_escape(names[i]->d_name, name, sizeof name), complete ? "" : " (incomplete)");
      free(meta);
      free(p);
    }
    free(names[i]);
  }
  free(names);
  free(snaps);
  free(refs);
  free(blobs);
  free(dir);
}

typedef struct verify_state {
  int problems;
  int repos;
} verify_state;

static void verify_repo(const char *cache, const char *repo, void *user) {
  verify_state *v = user;
  util_error err;
  util_error_clear(&err);
  int bad = hub_cache_verify(cache, repo, stdout, &err);
  v->repos++;
  if (bad < 0) {
    char msg[4096];
    util_error_format(&err, msg, sizeof msg);
    printf("%s\n", msg);
    v->problems++;
  } else {
    v->problems += bad;
    printf("%s: %s\n", repo, bad ? "PROBLEMS" : "ok");
  }
}

int cli_cmd_cache(int argc, char **argv) {
  if (argc < 2) return cli_usage("cache");
  char *cache = hub_cache_root();
  if (!cache) {
    cli_error("cache", "no cache folder: set HF_HUB_CACHE, HF_HOME or HOME");
    return 1;
  }
  util_error err;
  util_error_clear(&err);
  int rc = 0;
  const char *sub = argv[1];
  if (strcmp(sub, "ls") == 0 && argc == 3 && strcmp(argv[2], "--json") == 0) {
    json_t *repos = json_array();
    if (hub_cache_each(cache, list_repo, repos, &err) != WGK_OK) rc = 1;
    if (rc)
      json_decref(repos);
    else
      rc = cli_print_json("cache", json_pack("{s:s, s:o}", "cache", cache, "repos", repos), 0);
  } else if (strcmp(sub, "ls") == 0 && argc == 2) {
    printf("cache %s\n", cache);
    if (hub_cache_each(cache, list_repo, NULL, &err) != WGK_OK) rc = 1;
  } else if (strcmp(sub, "verify") == 0) {
    verify_state v = {0};
    if (argc == 2 && hub_cache_each(cache, verify_repo, &v, &err) != WGK_OK) rc = 1;
    for (int i = 2; i < argc; i++) {
      char *id = hub_repo_of(argv[i], strlen(argv[i])); /* a bare op id: webgpu-kernels/<op id> */
      if (!id || !hub_repo_id_ok(id)) {
        cli_error("cache", "'%s' is not a repo id (org/name, or an op id)", argv[i]);
        free(id);
        free(cache);
        return 2;
      }
      verify_repo(cache, id, &v);
      free(id);
    }
    if (v.problems) rc = 1;
    printf("%d repos checked, %d problems\n", v.repos, v.problems);
  } else if (strcmp(sub, "rm") == 0 && argc == 3) {
    char *id = hub_repo_of(argv[2], strlen(argv[2])); /* a bare op id: webgpu-kernels/<op id> */
    if (!id || hub_cache_rm(cache, id, &err) != WGK_OK)
      rc = 1;
    else
      printf("removed %s\n", id);
    free(id);
  } else {
    free(cache);
    return cli_usage("cache");
  }
  if (rc && util_error_is_set(&err)) {
    char msg[4096];
    util_error_format(&err, msg, sizeof msg);
    cli_error("cache", "%s", msg);
  }
  free(cache);
  return rc;
}
