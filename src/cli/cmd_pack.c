/* `wgk pack DIR [--check]`: writes a package's metadata.json from its files (docs/package-format.md): the op id,
 * each variant's template list with every file its templates include (public layout; the seed format keeps its
 * own), and the SHA-256 of every file under build/webgpu; then opens the result strict and reads every listed
 * file through the digest check, so a package that `wgk pack` accepts loads verified. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "cli/say.h"
#include "package/package.h"
#include "util/digest.h"
#include "util/dynbuf.h"
#include "util/file_read.h"

/* The command whose messages these are: "pack", or a command that packs on the way (wgk test --record). */
static const char *who = "pack";

typedef struct file_list {
  char **names;
  size_t n, cap;
} file_list;

static bool list_add(file_list *l, const char *rel) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 16;
    char **names = realloc(l->names, cap * sizeof *names);
    if (!names) return false;
    l->names = names;
    l->cap = cap;
  }
  return (l->names[l->n] = strdup(rel)) != NULL && ++l->n;
}

static void list_free(file_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->names[i]);
  free(l->names);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every regular file under dir/rel (symlinks followed), hidden names and the top metadata.json left out. */
static bool walk(const char *dir, const char *rel, file_list *out, int depth) {
  char path[4096];
  snprintf(path, sizeof path, "%s%s%s", dir, rel[0] ? "/" : "", rel);
  DIR *d = opendir(path);
  if (!d) return (cli_error(who, "cannot read %s: %s", path, strerror(errno)), false);
  bool ok = true;
  for (struct dirent *e = readdir(d); e && ok; e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    if (!rel[0] && strcmp(e->d_name, "metadata.json") == 0) continue;
    char sub[4096], full[4096];
    snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
    snprintf(full, sizeof full, "%s/%s", dir, sub);
    struct stat st;
    if (stat(full, &st) != 0) {
      ok = (cli_error(who, "cannot read %s: %s", full, strerror(errno)), false);
    } else if (S_ISDIR(st.st_mode)) {
      ok = depth < 16 ? walk(dir, sub, out, depth + 1)
                      : (cli_error(who, "%s: folders nest deeper than 16", full), false);
    } else if (S_ISREG(st.st_mode)) {
      ok = list_add(out, sub) || (cli_error(who, "%s", wgk_status_str(WGK_ERR_OUT_OF_MEMORY)), false);
    }
  }
  closedir(d);
  return ok;
}

static json_t *digests(const char *dir, const file_list *files) {
  json_t *map = json_object();
  for (size_t i = 0; map && i < files->n; i++) {
    char path[4096], b64[WGK_PKG_DIGEST_B64_LEN + 1];
    snprintf(path, sizeof path, "%s/%s", dir, files->names[i]);
    unsigned char *bytes = NULL;
    size_t len = 0;
    util_error err = {0};
    if (util_file_read_all(path, PKG_FILE_MAX_BYTES, &bytes, &len, &err) != WGK_OK ||
        !util_pkg_sha256_b64(bytes, len, b64)) {
      char text[WGK_ERROR_MESSAGE_MAX + 1024];
      util_error_format(&err, text, sizeof text);
      cli_error(who, "%s", util_error_is_set(&err) ? text : "cannot compute SHA-256");
      json_decref(map);
      map = NULL;
    } else if (json_object_set_new(map, files->names[i], json_string(b64))) {
      json_decref(map);
      map = NULL;
    }
    free(bytes);
  }
  return map;
}

/* Each variant's template list: its passes' shaders in pass order, then (spec 2.1) every file they include. */
static json_t *variant_lists(const char *dir, const manifest_model *m, bool closure) {
  json_t *vars = json_object();
  for (size_t i = 0; vars && i < m->n_variants; i++) {
    const manifest_variant *v = &m->variants[i];
    json_t *list = json_array();
    wgk_status st = list ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
    util_error err = {0};
    for (size_t k = 0; !st && k < v->n_passes; k++) {
      if (closure) {
        st = pkg_template_closure(dir, v->passes[k].shader, list, &err);
        continue;
      }
      bool seen = false;
      for (size_t j = 0; j < json_array_size(list) && !seen; j++)
        seen = strcmp(json_string_value(json_array_get(list, j)), v->passes[k].shader) == 0;
      if (!seen && json_array_append_new(list, json_string(v->passes[k].shader))) st = WGK_ERR_OUT_OF_MEMORY;
    }
    if (!st && json_object_set_new(vars, v->id, list)) st = WGK_ERR_OUT_OF_MEMORY;
    if (st) {
      char text[WGK_ERROR_MESSAGE_MAX + 1024];
      util_error_format(&err, text, sizeof text);
      cli_error(who, "variant '%s': %s", v->id, util_error_is_set(&err) ? text : wgk_status_str(st));
      if (list && json_object_get(vars, v->id) != list) json_decref(list);
      json_decref(vars);
      vars = NULL;
    }
  }
  return vars;
}

/* The new metadata.json: the old one's other keys kept (public layout: any; seed layout: its own optional
 * keys), name, backend, the variant lists and the digests written fresh. */
static json_t *build_metadata(const json_t *old, const manifest_model *m, json_t *vars, json_t *files) {
  bool pub = m->format == WGK_MANIFEST_SPEC21;
  static const char *const ours[] = {"name", "backend", "webgpu", "manifestSpecVersion", "variants", "digest", NULL};
  static const char *const seed_extra[] = {"version", "provenance", NULL};
  json_t *meta = json_object();
  json_object_set_new(meta, "name", json_string(m->op_id));
  const char *key;
  json_t *value;
  json_object_foreach((json_t *)old, key, value) {
    bool skip = false;
    for (const char *const *k = ours; *k && !skip; k++) skip = strcmp(*k, key) == 0;
    bool allowed = pub;
    for (const char *const *k = seed_extra; *k && !allowed; k++) allowed = strcmp(*k, key) == 0;
    if (!skip && allowed && strcmp(key, "provenance") != 0) json_object_set(meta, key, value);
  }
  json_object_set_new(meta, "backend", json_pack("{s:s}", "type", "webgpu"));
  if (pub) {
    json_object_set_new(meta, "webgpu", json_pack("{s:s,s:o}", "manifestSpec", "2.1", "variants", vars));
  } else {
    json_object_set_new(meta, "manifestSpecVersion", json_string("1"));
    json_object_set_new(meta, "variants", vars);
  }
  json_object_set_new(meta, "digest", json_pack("{s:s,s:o}", "algorithm", "sha256", "files", files));
  const json_t *prov = json_object_get(old, "provenance");
  if (prov) json_object_set(meta, "provenance", (json_t *)prov);
  return meta;
}

static bool same_set(const json_t *a, const json_t *b) {
  if (!json_is_array(a) || !json_is_array(b)) return false;
  for (int pass = 0; pass < 2; pass++) {
    const json_t *x = pass ? b : a, *y = pass ? a : b;
    for (size_t i = 0; i < json_array_size(x); i++) {
      bool found = false;
      for (size_t j = 0; j < json_array_size(y) && !found; j++)
        found = json_equal(json_array_get(x, i), json_array_get(y, j));
      if (!found) return false;
    }
  }
  return true;
}

/* --check: the old metadata has the name, every digest and each variant's templates (in any order) of the new. */
static bool up_to_date(const json_t *old, const json_t *meta) {
  if (!old || !json_equal(json_object_get(old, "name"), json_object_get(meta, "name"))) return false;
  if (!json_equal(json_object_get(json_object_get(old, "digest"), "files"),
                  json_object_get(json_object_get(meta, "digest"), "files")))
    return false;
  const json_t *ov = json_object_get(old, "webgpu") ? json_object_get(json_object_get(old, "webgpu"), "variants")
                                                    : json_object_get(old, "variants");
  const json_t *nv = json_object_get(meta, "webgpu") ? json_object_get(json_object_get(meta, "webgpu"), "variants")
                                                     : json_object_get(meta, "variants");
  if (json_object_size(ov) != json_object_size(nv)) return false;
  const char *id;
  json_t *list;
  json_object_foreach((json_t *)nv, id, list) {
    if (!same_set(json_object_get(ov, id), list)) return false;
  }
  return true;
}

static bool write_file(const char *path, const char *text) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
  if (f && fclose(f) != 0) ok = false;
  if (ok && rename(tmp, path) != 0) ok = false;
  if (!ok) {
    cli_error(who, "cannot write %s: %s", path, strerror(errno));
    remove(tmp);
  }
  return ok;
}

/* Opens the package strict and reads every digested file through the digest check. */
static bool loads_verified(const char *arg, const json_t *files) {
  pkg_options po = {.strict = true};
  pkg_package *pkg = NULL;
  util_error err = {0};
  char *root = realpath(arg, NULL); /* a folder, never searched for as an id */
  wgk_status st =
      root ? pkg_open(root, &po, &pkg, &err) : util_error_plain(&err, WGK_ERR_IO, "%s: %s", arg, strerror(errno));
  free(root);
  const char *rel;
  json_t *v;
  if (!st) json_object_foreach((json_t *)files, rel, v) {
      const char *data;
      size_t len;
      if ((st = pkg_read_file(pkg, rel, &data, &len, &err)) != WGK_OK) break;
    }
  if (!st && !pkg_is_verified(pkg)) st = util_error_plain(&err, WGK_ERR_DIGEST, "the package does not open verified");
  pkg_free(pkg);
  if (st) {
    char text[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(&err, text, sizeof text);
    cli_error(who, "the packed package does not load verified: %s", text);
  }
  return st == WGK_OK;
}

/* The metadata.json there is (*old, NULL when there is none), an object: pack keeps its other keys. false after
   saying why it cannot be read. */
static bool read_old(const char *path, json_t **old) {
  struct stat st;
  if (stat(path, &st) != 0) return true;
  if (!S_ISREG(st.st_mode)) { /* a FIFO would hang the read */
    cli_error(who, "%s: not a regular file (remove it; pack writes metadata.json)", path);
    return false;
  }
  json_error_t jerr;
  *old = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
  if (*old && json_is_object(*old)) return true;
  cli_error(who, "%s:%d:%d: %s (fix or remove it; pack keeps its other keys)", path, jerr.line, jerr.column,
            *old ? "not an object" : jerr.text);
  json_decref(*old);
  *old = NULL;
  return false;
}

/* metadata.json as pack writes it: every file under dir digested in name order, the variant lists, old's other
   keys kept; *n_files the count digested. NULL on failure. */
static json_t *compose(const char *dir, const manifest_model *m, const json_t *old, size_t *n_files) {
  file_list files = {0};
  json_t *digest = walk(dir, "", &files, 0)
                       ? (qsort(files.names, files.n, sizeof *files.names, by_name), digests(dir, &files))
                       : NULL;
  json_t *vars = digest ? variant_lists(dir, m, m->format == WGK_MANIFEST_SPEC21) : NULL;
  json_t *meta = vars ? build_metadata(old, m, vars, digest) : NULL;
  if (!vars) json_decref(digest);
  *n_files = files.n;
  list_free(&files);
  return meta;
}

static int pack(const char *arg, bool check, bool quiet) {
  char dir[4096], path[4096];
  struct stat st;
  snprintf(dir, sizeof dir, "%s/build/webgpu", arg);
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) snprintf(dir, sizeof dir, "%s", arg);
  snprintf(path, sizeof path, "%s/manifest.json", dir);
  if (stat(path, &st) != 0)
    return cli_error(who,
                     "%s: no manifest.json here or in %s/build/webgpu (DIR is a package root or its "
                     "build/webgpu folder)",
                     arg, arg),
           2;
  util_error err = {0};
  manifest_model *m = NULL;
  if (manifest_load_file(path, &m, &err) != WGK_OK) {
    char text[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(&err, text, sizeof text);
    return cli_error(who, "%s", text), 1;
  }
  snprintf(path, sizeof path, "%s/metadata.json", dir);
  json_t *old = NULL;
  if (!read_old(path, &old)) {
    manifest_free(m);
    return 1;
  }
  size_t n_files = 0, n_variants = m->n_variants;
  json_t *meta = compose(dir, m, old, &n_files);
  char *text = meta ? json_dumps(meta, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
  int rc = text ? 0 : 1;
  if (text && check) {
    rc = up_to_date(old, meta) ? 0 : 1;
    if (rc && !quiet) /* a command that checks quietly says it itself */
      cli_error(who,
                "%s is not what `wgk pack %s` writes (a file changed since it was packed, or the variant "
                "lists differ): run `wgk pack %s`",
                path, arg, arg);
    else if (!quiet)
      printf("%s: up to date (%zu files, %zu variants)\n", path, n_files, n_variants);
  } else if (text) {
    rc = write_file(path, text) && loads_verified(arg, json_object_get(json_object_get(meta, "digest"), "files")) ? 0
                                                                                                                  : 1;
    if (!rc && !quiet)
      printf("wrote %s: %zu files digested, %zu variants; the package loads verified\n", path, n_files, n_variants);
  }
  free(text);
  json_decref(meta);
  json_decref(old);
  manifest_free(m);
  return rc;
}

int cli_cmd_pack(int argc, char **argv) {
  const char *dir = NULL;
  bool check = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--check") == 0)
      check = true;
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_error(who, "unknown option '%s' (wgk pack DIR [--check])", argv[i]), 2;
    else if (dir)
      return cli_error(who, "unexpected argument '%s' (the package is already '%s')", argv[i], dir), 2;
    else
      dir = argv[i];
  }
  if (!dir) return cli_usage("pack");
  who = "pack";
  return pack(dir, check, false);
}

int cli_pack_run(const char *cmd, const char *dir, bool check, bool quiet) {
  who = cmd;
  int rc = pack(dir, check, quiet);
  who = "pack";
  return rc;
}
