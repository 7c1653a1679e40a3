/* `wgk list [--json]`: the kernel packages wgk can load by repo id: on the local search path (WGK_KERNEL_PATH, the
 * installed share or a source build's kernels/; the first folder of a name is the one a repo id finds, later ones are
 * shadowed) and in the Hub cache (docs/hub.md), one entry per cached snapshot with the versions that point at
 * it. Each entry is opened as a load would open it: its op id, metadata version and whether every file matched
 * its digest (verified), or why it does not open. */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "hub/hub.h"
#include "package/package.h"

typedef struct list_state {
  json_t *packages; /* every entry, as --json prints it */
  json_t *dirs;     /* the search path: {dir, origin, exists} */
  json_t *seen;     /* folder names found on the search path so far (later ones are shadowed) */
} list_state;

static char *join(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", a, b);
  return p;
}

static bool is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_package(const char *p) {
  char *w = join(p, "build/webgpu"), *m = join(p, "manifest.json");
  struct stat st;
  bool yes = (w && is_dir(w)) || (m && stat(m, &st) == 0 && S_ISREG(st.st_mode));
  free(w);
  free(m);
  return yes;
}

/* Opens path as a load does (digests checked) and records op id, version, verified, or the error. */
static json_t *open_entry(const char *path) {
  json_t *e = json_object();
  char *folder = path[0] == '/' || path[0] == '.' ? strdup(path) : join(".", path); /* never taken as a repo id */
  pkg_package *pkg = NULL;
  util_error err;
  util_error_clear(&err);
  if (folder && pkg_open(folder, NULL, &pkg, &err) == WGK_OK) {
    json_object_set_new(e, "opId", json_string(pkg_op_id(pkg)));
    json_object_set_new(e, "version", pkg_version(pkg) ? json_integer(pkg_version(pkg)) : json_null());
    json_object_set_new(e, "verified", json_boolean(pkg_is_verified(pkg)));
  } else {
    char text[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(&err, text, sizeof text);
    json_object_set_new(e, "opId", json_null());
    json_object_set_new(e, "version", json_null());
    json_object_set_new(e, "verified", json_false());
    json_object_set_new(e, "error", json_string(folder ? text : wgk_status_str(WGK_ERR_OUT_OF_MEMORY)));
  }
  pkg_free(pkg);
  free(folder);
  return e;
}

static void add_local(list_state *s, const char *dir, const char *origin, const char *name) {
  char *path = join(dir, name);
  if (!path) return;
  json_t *e = open_entry(path);
  json_object_set_new(e, "name", json_string(name));
  json_object_set_new(e, "where", json_string(path));
  json_object_set_new(e, "source", json_string(origin));
  json_object_set_new(e, "shadowed", json_boolean(json_object_get(s->seen, name) != NULL));
  json_object_set_new(s->seen, name, json_true());
  json_array_append_new(s->packages, e);
  free(path);
}

static int no_dots(const struct dirent *d) { return d->d_name[0] != '.'; }

/* <dir>/<op id>, and <dir>/<org>/<op id> (a repo id of another org is looked up there). */
static void list_dir(const char *dir, const char *origin, void *user) {
  list_state *s = user;
  json_t *d = json_object();
  json_object_set_new(d, "dir", json_string(dir));
  json_object_set_new(d, "source", json_string(origin));
  json_object_set_new(d, "exists", json_boolean(is_dir(dir)));
  json_array_append_new(s->dirs, d);
  struct dirent **names = NULL;
  int n = scandir(dir, &names, no_dots, alphasort);
  for (int i = 0; i < n; i++) {
    char *p = join(dir, names[i]->d_name);
    if (p && is_package(p))
      add_local(s, dir, origin, names[i]->d_name);
    else if (p && is_dir(p)) {
      struct dirent **sub = NULL;
      int m = scandir(p, &sub, no_dots, alphasort);
      for (int j = 0; j < m; j++) {
        char *q = join(p, sub[j]->d_name);
        char *name = join(names[i]->d_name, sub[j]->d_name);
        if (q && name && is_package(q)) add_local(s, dir, origin, name);
        free(q);
        free(name);
        free(sub[j]);
      }
      free(sub);
    }
    free(p);
    free(names[i]);
  }
  free(names);
}

/* The refs (v<N> -> commit) of a cached repo, as {ref: commit}. */
static json_t *read_refs(const char *repo_dir) {
  json_t *refs = json_object();
  char *dir = join(repo_dir, "refs");
  struct dirent **names = NULL;
  int n = dir ? scandir(dir, &names, no_dots, alphasort) : -1;
  for (int i = 0; i < n; i++) {
    char *p = join(dir, names[i]->d_name);
    char *commit = p ? hub_ref_read(p) : NULL;
    if (commit) json_object_set_new(refs, names[i]->d_name, json_stringn(commit, strlen(commit)));
    free(commit);
    free(p);
    free(names[i]);
  }
  free(names);
  free(dir);
  return refs;
}

static void list_repo(const char *cache, const char *repo, void *user) {
  list_state *s = user;
  char *rdir = hub_repo_dir(cache, repo);
  char *snaps = rdir ? join(rdir, "snapshots") : NULL;
  json_t *refs = rdir ? read_refs(rdir) : json_object();
  struct dirent **names = NULL;
  int n = snaps ? scandir(snaps, &names, no_dots, alphasort) : -1;
  for (int i = 0; i < n; i++) {
    char *snap = join(snaps, names[i]->d_name);
    char *webgpu = snap ? join(snap, "build/webgpu") : NULL;
    char *meta = webgpu ? join(webgpu, "metadata.json") : NULL;
    struct stat st;
    bool complete = meta && stat(meta, &st) == 0;
    json_t *e = complete ? open_entry(webgpu) : json_object();
    if (!complete) {
      json_object_set_new(e, "opId", json_null());
      json_object_set_new(e, "version", json_null());
      json_object_set_new(e, "verified", json_false());
      json_object_set_new(e, "error",
                          json_string("incomplete snapshot (an interrupted download): wgk download fetches it again"));
    }
    json_t *pointing = json_array();
    const char *ref;
    json_t *commit;
    json_object_foreach(refs, ref, commit) if (strcmp(json_string_value(commit), names[i]->d_name) == 0)
        json_array_append_new(pointing, json_string(ref));
    json_object_set_new(e, "name", json_string(repo));
    json_object_set_new(e, "repo", json_string(repo));
    json_object_set_new(e, "revision", json_string(names[i]->d_name));
    json_object_set_new(e, "complete", json_boolean(complete));
    json_object_set_new(e, "refs", pointing);
    json_object_set_new(e, "where", json_string(snap ? snap : ""));
    json_object_set_new(e, "source", json_string("hub cache"));
    json_object_set_new(e, "shadowed", json_false());
    json_array_append_new(s->packages, e);
    free(meta);
    free(webgpu);
    free(snap);
    free(names[i]);
  }
  free(names);
  json_decref(refs);
  free(snaps);
  free(rdir);
}

static const char *str_or(const json_t *o, const char *key, const char *dflt) {
  const char *v = json_string_value(json_object_get(o, key));
  return v ? v : dflt;
}

/* The one precedence for a repo id (docs/hub.md): 1 the search path, 2 WGK_KERNEL_PATH (folders a kernel is
 * developed in answer every version), 3 the Hub cache (refs/vN: what the user downloaded), 4 the bundled or
 * installed packages (a pre-filled cache), then the Hub itself. */
static const char *const PRECEDENCE[] = {"search path", "WGK_KERNEL_PATH", "hub cache", "bundled or installed",
                                         "the Hub (HF_ENDPOINT)"};

static int rank_of(const json_t *e) {
  const char *src = str_or(e, "source", "");
  if (strcmp(src, "search path") == 0) return 1;
  if (strcmp(src, "WGK_KERNEL_PATH") == 0) return 2;
  if (strcmp(src, "hub cache") == 0) return 3;
  return 4;
}

/* The op a repo id names: "webgpu-kernels/<op>" and "<op>" are one (the trusted org is the default). */
static const char *key_of(const json_t *e) {
  const char *name = str_or(e, "name", "");
  size_t n = strlen(WGK_HUB_TRUSTED_ORG);
  return strncmp(name, WGK_HUB_TRUSTED_ORG, n) == 0 && name[n] == '/' ? name + n + 1 : name;
}

static bool has_ref(const json_t *e, long long version) {
  char want[32];
  snprintf(want, sizeof want, "v%lld", version);
  size_t k;
  json_t *r;
  json_array_foreach(json_object_get(e, "refs"), k, r) if (strcmp(json_string_value(r), want) == 0) return true;
  return false;
}

/* Whether f answers a repo id before e: an earlier folder of the same name on the search path; a search-path or
 * WGK_KERNEL_PATH folder before everything else; a cached snapshot a ref vN points at before the bundled copy of
 * version N. */
static bool wins_over(const json_t *f, size_t fi, const json_t *e, size_t ei) {
  if (strcmp(key_of(f), key_of(e)) != 0 || fi == ei) return false;
  int rf = rank_of(f), re = rank_of(e);
  if (rf <= 2) return rf < re || (rf == re && fi < ei) || (re <= 2 && fi < ei);
  if (rf == 3 && re == 4) {
    const json_t *v = json_object_get(e, "version");
    return json_is_true(json_object_get(f, "complete")) && json_is_integer(v) && has_ref(f, json_integer_value(v));
  }
  return rf == 4 && re == 4 && fi < ei;
}

static void mark_shadowed(list_state *s) {
  size_t i, k;
  json_t *e, *f;
  json_array_foreach(s->packages, i, e) {
    const char *by = NULL;
    json_array_foreach(s->packages, k, f) if (!by && wins_over(f, k, e, i)) by = str_or(f, "where", "");
    json_object_set_new(e, "shadowed", json_boolean(by != NULL));
    json_object_set_new(e, "shadowedBy", by ? json_string(by) : json_null());
  }
}

static void print_text(const list_state *s, const char *cache) {
  size_t i;
  json_t *e;
  printf("a repo id is answered by, in order:");
  for (size_t k = 0; k < sizeof PRECEDENCE / sizeof *PRECEDENCE; k++) printf(" %zu. %s", k + 1, PRECEDENCE[k]);
  printf("\n(a commit pin only by the hub cache or the Hub; a cached version wins over the bundled copy of it)\n");
  printf("search path (a repo id finds the first folder of its name):\n");
  json_array_foreach(s->dirs, i, e) printf("  %-16s %s%s\n", str_or(e, "source", ""), str_or(e, "dir", ""),
                                           json_is_true(json_object_get(e, "exists")) ? "" : "  (no such folder)");
  printf("packages:\n");
  size_t shown = 0;
  json_array_foreach(s->packages, i, e) {
    const json_t *version = json_object_get(e, "version");
    char ver[32] = "-";
    if (json_is_integer(version)) snprintf(ver, sizeof ver, "v%lld", (long long)json_integer_value(version));
    const char *err = str_or(e, "error", NULL);
    const char *state = json_is_false(json_object_get(e, "complete"))  ? "incomplete"
                        : err                                          ? "broken"
                        : json_is_true(json_object_get(e, "verified")) ? "verified"
                                                                       : "unverified";
    char name[512], where[4096];
    printf("  %-40s %-4s %-10s %s", hub_escape(str_or(e, "name", "?"), name, sizeof name), ver, state,
           hub_escape(str_or(e, "where", ""), where, sizeof where));
    if (json_object_get(e, "revision")) {
      char esc[256];
      printf("  [hub cache, revision %.12s", hub_escape(str_or(e, "revision", ""), esc, sizeof esc));
      size_t k;
      json_t *r;
      json_array_foreach(json_object_get(e, "refs"), k, r)
          printf("%s%s", k ? ", " : "; ", hub_escape(json_string_value(r), esc, sizeof esc));
      printf("]");
    } else {
      printf("  [%s%s]", str_or(e, "source", ""), json_is_true(json_object_get(e, "shadowed")) ? ", shadowed" : "");
    }
    printf("\n");
    if (json_is_true(json_object_get(e, "shadowed")))
      printf("      shadowed by %s\n", hub_escape(str_or(e, "shadowedBy", ""), where, sizeof where));
    if (err) printf("      %s\n", err);
    shown++;
  }
  if (!shown) printf("  (none)\n");
  printf("hub cache: %s%s\n", cache ? cache : "(none: set HF_HUB_CACHE, HF_HOME or HOME)",
         cache && !is_dir(cache) ? "  (no such folder)" : "");
}

int cli_cmd_list(int argc, char **argv) {
  bool json = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0)
      json = true;
    else if (argv[i][0] == '-')
      return cli_error("list", "unknown option '%s' (wgk list [--json])", argv[i]), 2;
    else
      return cli_error("list", "unexpected argument '%s' (wgk list [--json])", argv[i]), 2;
  }
  list_state s = {json_array(), json_array(), json_object()};
  if (!s.packages || !s.dirs || !s.seen) return cli_error("list", "%s", wgk_status_str(WGK_ERR_OUT_OF_MEMORY)), 1;
  pkg_search_dirs(NULL, list_dir, &s);
  char *cache = hub_cache_root();
  int rc = 0;
  if (cache && is_dir(cache)) {
    util_error err;
    util_error_clear(&err);
    if (hub_cache_each(cache, list_repo, &s, &err) != WGK_OK) {
      char text[WGK_ERROR_MESSAGE_MAX + 1024];
      util_error_format(&err, text, sizeof text);
      cli_error("list", "%s", text);
      rc = 1;
    }
  }
  mark_shadowed(&s);
  if (json) {
    json_t *root = json_object();
    json_t *order = json_array();
    for (size_t k = 0; k < sizeof PRECEDENCE / sizeof *PRECEDENCE; k++)
      json_array_append_new(order, json_string(PRECEDENCE[k]));
    json_object_set_new(root, "precedence", order);
    json_object_set_new(root, "searchPath", json_incref(s.dirs));
    json_object_set_new(root, "hubCache", cache ? json_string(cache) : json_null());
    json_object_set_new(root, "packages", json_incref(s.packages));
    if (cli_print_json("list", root, 0)) rc = 1;
  } else {
    print_text(&s, cache);
  }
  free(cache);
  json_decref(s.packages);
  json_decref(s.dirs);
  json_decref(s.seen);
  return rc;
}
