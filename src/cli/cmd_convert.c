/* `wgk convert SRC DST`: a seed-format package (docs/package-format.md) into a manifest spec 2.1 package with the
 * public metadata layout (docs/package-format.md, docs/loader-semantics.md rules 6-9), planning every call as the seed
 * does: ports        inputs/outputs lists + tensor args -> maps keyed by the bind key; the role goes to `onnx`; an
 * arg's dtype/narrowing -> the port's storage/narrowing; `required: false` -> optional; a role in both lists -> one
 * in/out port; expressions  shapes./ranks./present./tensorDtypes.<role> -> .<port key> (manifest and templates);
 *   attributes   defaults + attributeDescriptions -> {default?, description?}; tunables -> {default};
 *   bindings     each pass's binding set -> inline entries (buffer string, struct field list + structName,
 *                intermediate -> scratch, semantic dropped);
 *   variants     constants -> derive; source {shader, inputs} -> shader + pass derive.
 * Templates, test.json, bench.json and README.md are copied (templates renamed as above); metadata.json
 * lists every file with its digest and every variant with its templates. */
#include <errno.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "cli/cli.h"
#include "package/package.h"
#include "cli/say.h"
#include "manifest/manifest.h"
#include "util/digest.h"
#include "util/dynbuf.h"
#include "util/error.h"
#include "util/file_read.h"

#define CONVERT_MAX_FILE ((size_t)64 << 20) /* a package file (docs/limits.md) */

/* A file to write once every input has been read and checked: nothing is created before. */
typedef struct staged {
  char *path;
  char *data;
  size_t len;
} staged;

typedef struct conv {
  const manifest_model *m;
  const json_t *seed;
  json_t *files;         /* digest.files being built */
  const char *src, *dst; /* build/webgpu folders */
  util_error *err;
  char *root; /* the source package's real path: nothing read may resolve outside it */
  staged *out;
  size_t n_out;
} conv;

/* The 2.1 port key of a seed role: the first bind key of its tensor arg, else the role. */
static const char *port_key(const manifest_model *m, const char *role) {
  const manifest_port *p = manifest_find_port(m, role);
  return p && p->n_bind_keys ? p->bind_keys[0] : role;
}

/* shapes.<role> (and ranks., present., tensorDtypes.) -> shapes.<key>, at word boundaries. */
static char *rename_text(const manifest_model *m, const char *text) {
  static const char *const ns[] = {"shapes", "ranks", "present", "tensorDtypes", NULL};
  util_dynbuf out;
  util_dynbuf_init(&out, (size_t)1 << 26);
  for (const char *c = text; *c;) {
    bool done = false;
    bool boundary = c == text || !(isalnum((unsigned char)c[-1]) || c[-1] == '_' || c[-1] == '.');
    for (const char *const *n = ns; boundary && *n && !done; n++) {
      size_t k = strlen(*n);
      if (strncmp(c, *n, k) != 0 || c[k] != '.' || !(isalpha((unsigned char)c[k + 1]) || c[k + 1] == '_')) continue;
      const char *id = c + k + 1, *e = id;
      while (isalnum((unsigned char)*e) || *e == '_') e++;
      char role[256];
      snprintf(role, sizeof role, "%.*s", (int)(e - id), id);
      util_dynbuf_printf(&out, "%s.%s", *n, port_key(m, role));
      c = e;
      done = true;
    }
    if (!done) util_dynbuf_append_char(&out, *c++);
  }
  return util_dynbuf_take(&out);
}

/* A deep copy with every string renamed. */
static json_t *renamed(const manifest_model *m, const json_t *v) {
  if (json_is_string(v)) {
    char *t = rename_text(m, json_string_value(v));
    json_t *s = t ? json_string(t) : NULL;
    free(t);
    return s;
  }
  if (json_is_array(v)) {
    json_t *a = json_array();
    for (size_t i = 0; a && i < json_array_size(v); i++) json_array_append_new(a, renamed(m, json_array_get(v, i)));
    return a;
  }
  if (json_is_object(v)) {
    json_t *o = json_object();
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)v, k, x) json_object_set_new(o, k, renamed(m, x));
    return o;
  }
  return json_deep_copy(v);
}

static void set_if(json_t *obj, const char *key, const json_t *v) {
  if (v) json_object_set_new(obj, key, json_deep_copy(v));
}

static json_t *port_json(conv *c, const manifest_port *p, const json_t *seed_port, bool output) {
  const manifest_model *m = c->m;
  json_t *o = json_object();
  const char *key = port_key(m, p->name);
  if (strcmp(key, p->onnx) != 0) json_object_set_new(o, "onnx", json_string(p->onnx));
  set_if(o, "description", json_object_get(seed_port, "description"));
  set_if(o, "dtype", json_object_get(seed_port, "dtype"));
  const json_t *rank = json_object_get(seed_port, "rank");
  if (rank) json_object_set_new(o, "rank", renamed(m, rank));
  if (p->optional) json_object_set_new(o, "optional", json_true());
  if (output && json_object_get(seed_port, "shape"))
    json_object_set_new(o, "shape", renamed(m, json_object_get(seed_port, "shape")));
  if (p->storage_dtype) {
    json_object_set_new(o, "storage", json_string(p->storage_dtype));
    if (!output)
      json_object_set_new(o, "narrowing",
                          json_string(p->narrowing == WGK_NARROW_SATURATING ? "saturating" : "checked"));
  }
  return o;
}

static json_t *ports_json(conv *c, bool output) {
  const json_t *list = json_object_get(c->seed, output ? "outputs" : "inputs");
  json_t *map = json_object();
  for (size_t i = 0; i < json_array_size(list); i++) {
    const json_t *sp = json_array_get(list, i);
    const manifest_port *p = manifest_find_port(c->m, json_string_value(json_object_get(sp, "role")));
    if (!p) continue;
    json_t *o = port_json(c, p, sp, output);
    if (output && p->dir == WGK_PORT_INOUT) { /* the in/out entry: the same dtype and storage as the input's */
      json_object_del(o, "narrowing");
      json_object_del(o, "optional");
    }
    json_object_set_new(map, port_key(c->m, p->name), o);
  }
  return map;
}

static json_t *binding_json(conv *c, const manifest_binding *b) {
  json_t *e = json_object();
  json_object_set_new(e, "name", json_string(b->name));
  const char *arg = b->port ? port_key(c->m, b->port->name) : NULL;
  if (arg && strcmp(arg, b->name) != 0) json_object_set_new(e, "arg", json_string(arg));
  if (b->intermediate) json_object_set_new(e, "scratch", json_string(b->intermediate));
  json_object_set_new(e, "buffer",
                      json_string(b->buffer == WGK_BUFFER_UNIFORM   ? "uniform"
                                  : b->buffer == WGK_BUFFER_STORAGE ? "storage"
                                                                    : "read-only-storage"));
  if (b->buffer != WGK_BUFFER_UNIFORM) {
    json_object_set_new(e, "elementType", json_string(b->element_type));
    return e;
  }
  if (strcmp(b->struct_name, "Params") != 0) json_object_set_new(e, "structName", json_string(b->struct_name));
  json_t *fields = json_array();
  for (size_t i = 0; i < b->n_fields; i++) {
    const manifest_field *f = &b->fields[i];
    char *v = rename_text(c->m, f->value.text);
    json_array_append_new(fields, json_pack("{ss ss ss}", "name", f->name, "type",
                                            f->type == WGK_SCALAR_U32   ? "u32"
                                            : f->type == WGK_SCALAR_I32 ? "i32"
                                                                        : "f32",
                                            "value", v ? v : ""));
    free(v);
  }
  json_object_set_new(e, "struct", fields);
  return e;
}

static json_t *variant_json(conv *c, const manifest_variant *v, const json_t *seed_v) {
  json_t *o = json_object();
  json_object_set_new(o, "id", json_string(v->id));
  if (v->priority != 0) json_object_set_new(o, "priority", json_real(v->priority));
  if (json_object_get(seed_v, "when")) json_object_set_new(o, "when", renamed(c->m, json_object_get(seed_v, "when")));
  if (json_object_get(seed_v, "constants"))
    json_object_set_new(o, "derive", renamed(c->m, json_object_get(seed_v, "constants")));
  if (json_object_get(seed_v, "intermediates"))
    json_object_set_new(o, "intermediates", renamed(c->m, json_object_get(seed_v, "intermediates")));
  json_t *passes = json_array();
  const json_t *seed_passes = json_object_get(seed_v, "passes");
  for (size_t i = 0; i < v->n_passes; i++) {
    const manifest_pass *p = &v->passes[i];
    const json_t *sp = json_array_get(seed_passes, i);
    json_t *po = json_object();
    json_object_set_new(po, "id", json_string(p->id));
    json_object_set_new(po, "name", json_string(p->name));
    json_object_set_new(po, "shader", json_string(p->shader));
    const json_t *inputs = json_object_get(json_object_get(sp, "source"), "inputs");
    if (inputs && json_object_size(inputs)) json_object_set_new(po, "derive", renamed(c->m, inputs));
    json_t *bs = json_array();
    for (size_t k = 0; k < p->bindings->n_bindings; k++)
      json_array_append_new(bs, binding_json(c, &p->bindings->bindings[k]));
    json_object_set_new(po, "bindings", bs);
    json_object_set_new(po, "dispatch", renamed(c->m, json_object_get(sp, "dispatch")));
    json_array_append_new(passes, po);
  }
  json_object_set_new(o, "passes", passes);
  return o;
}

static json_t *manifest_json(conv *c) {
  const manifest_model *m = c->m;
  const json_t *s = c->seed;
  json_t *o = json_object();
  set_if(o, "domain", json_object_get(s, "domain"));
  set_if(o, "name", json_object_get(s, "name"));
  set_if(o, "description", json_object_get(s, "description"));
  set_if(o, "sinceVersion", json_object_get(s, "sinceVersion"));
  json_object_set_new(o, "inputs", ports_json(c, false));
  json_object_set_new(o, "outputs", ports_json(c, true));
  if (m->n_scalar_args) {
    json_t *args = json_object();
    for (size_t i = 0; i < m->n_scalar_args; i++) {
      const manifest_scalar_arg *a = &m->scalar_args[i];
      json_t *x = json_pack("{ss}", "kind", a->kind);
      if (*a->description) json_object_set_new(x, "description", json_string(a->description));
      if (!a->required) json_object_set_new(x, "required", json_false());
      json_object_set_new(args, a->name, x);
    }
    json_object_set_new(o, "args", args);
  }
  if (m->n_attributes) {
    json_t *attrs = json_object();
    for (size_t i = 0; i < m->n_attributes; i++) {
      const manifest_attribute *a = &m->attributes[i];
      json_t *x = json_object();
      if (a->default_value) json_object_set_new(x, "default", json_deep_copy(a->default_value));
      if (*a->description) json_object_set_new(x, "description", json_string(a->description));
      json_object_set_new(attrs, a->name, x);
    }
    json_object_set_new(o, "attributes", attrs);
  }
  set_if(o, "attributeConstraints", json_object_get(s, "attributeConstraints"));
  set_if(o, "typeConstraints", json_object_get(s, "typeConstraints"));
  if (m->n_tunables) {
    json_t *t = json_object();
    for (size_t i = 0; i < m->n_tunables; i++)
      json_object_set_new(t, m->tunables[i].name, json_pack("{sO}", "default", (json_t *)m->tunables[i].default_value));
    json_object_set_new(o, "tunables", t);
  }
  if (json_object_get(s, "derive")) json_object_set_new(o, "derive", renamed(m, json_object_get(s, "derive")));
  json_t *vs = json_array();
  const json_t *seed_vs = json_object_get(s, "variants");
  for (size_t i = 0; i < m->n_variants; i++)
    json_array_append_new(vs, variant_json(c, &m->variants[i], json_array_get(seed_vs, i)));
  json_object_set_new(o, "variants", vs);
  return o;
}

static char *join(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", a, b);
  return p;
}

/* A source file: regular, at most CONVERT_MAX_FILE bytes, and inside the source package once symlinks are resolved
 * (a symlink to /etc/passwd became bench.json of the new package). *data NULL and true: an optional file absent. */
static bool read_src(conv *c, const char *path, bool optional, char **data, size_t *len) {
  *data = NULL;
  char real[PATH_MAX];
  if (!realpath(path, real)) {
    if (errno == ENOENT && optional) return true;
    return util_error_in(c->err, errno == ENOENT ? WGK_ERR_NOT_FOUND : WGK_ERR_IO, path, NULL, "cannot open: %s",
                         strerror(errno)),
           false;
  }
  size_t n = strlen(c->root);
  if (strncmp(real, c->root, n) != 0 || (real[n] != '/' && real[n] != '\0'))
    return util_error_in(c->err, WGK_ERR_INVALID_ARGUMENT, path, NULL,
                         "resolves to %s, outside the source package %s; a package's files stay inside it", real,
                         c->root),
           false;
  unsigned char *d = NULL;
  if (util_file_read_all(real, CONVERT_MAX_FILE, &d, len, c->err) != WGK_OK) return false;
  *data = (char *)d;
  return true;
}

static bool stage(conv *c, char *path, const char *data, size_t len) {
  staged *grown = path ? realloc(c->out, (c->n_out + 1) * sizeof *c->out) : NULL;
  char *copy = grown ? malloc(len + 1) : NULL;
  if (grown) c->out = grown;
  if (!copy) {
    free(path);
    return util_error_oom(c->err, "wgk convert", NULL), false;
  }
  memcpy(copy, data, len);
  c->out[c->n_out++] = (staged){path, copy, len};
  return true;
}

/* Stages dst/rel and records its digest. */
static bool write_file(conv *c, const char *rel, const char *data, size_t len) {
  if (!stage(c, join(c->dst, rel), data, len)) return false;
  char digest[WGK_PKG_DIGEST_B64_LEN + 1];
  if (util_pkg_sha256_b64(data, len, digest)) json_object_set_new(c->files, rel, json_string(digest));
  return true;
}

/* Makes the folders of path below top (which exists). */
static void make_parents(char *path, size_t top_len) {
  for (char *s = strchr(path + top_len + 1, '/'); s; s = strchr(s + 1, '/')) {
    *s = '\0';
    mkdir(path, 0755);
    *s = '/';
  }
}

/* Writes what was staged for top (each path top/REL) into the folder `into` as into/REL, making folders. */
static bool flush(conv *c, const char *top, const char *into) {
  bool ok = true;
  size_t tl = strlen(top);
  for (size_t i = 0; ok && i < c->n_out; i++) {
    char *path = join(into, c->out[i].path + tl + 1);
    if (!path) return util_error_oom(c->err, "wgk convert", NULL), false;
    make_parents(path, strlen(into));
    FILE *f = fopen(path, "wb");
    ok = f && fwrite(c->out[i].data, 1, c->out[i].len, f) == c->out[i].len;
    if (f && fclose(f) != 0) ok = false;
    if (!ok) util_error_in(c->err, WGK_ERR_IO, path, NULL, "cannot write: %s", strerror(errno));
    free(path);
  }
  return ok;
}

/* The converted package in `dir` loads verified, every file read through its digest (as `wgk pack` checks). */
static bool loads_verified(conv *c, const char *dir) {
  pkg_options po = {.strict = true};
  pkg_package *pkg = NULL;
  util_error e;
  util_error_clear(&e);
  char *root = realpath(dir, NULL); /* a folder, never searched for as an id */
  wgk_status st =
      root ? pkg_open(root, &po, &pkg, &e) : util_error_plain(&e, WGK_ERR_IO, "%s: %s", dir, strerror(errno));
  free(root);
  for (size_t i = 0; !st && i < c->n_out; i++) {
    const char *rel = c->out[i].path + strlen(c->dst) + 1, *data;
    size_t len;
    if (strncmp(c->out[i].path, c->dst, strlen(c->dst)) == 0 && c->out[i].path[strlen(c->dst)] == '/' &&
        strcmp(rel, "metadata.json") != 0) /* the digest list's own file is not in it */
      st = pkg_read_file(pkg, rel, &data, &len, &e);
  }
  if (!st && !pkg_is_verified(pkg)) st = util_error_plain(&e, WGK_ERR_DIGEST, "the package does not open verified");
  pkg_free(pkg);
  if (st) {
    char text[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(&e, text, sizeof text);
    util_error_plain(c->err, st, "the converted package does not load, so DST was left as it was: %s", text);
  }
  return st == WGK_OK;
}

/* Removes the temporary folder this command made, with what it holds (never following a symlink). */
static void remove_tree(const char *path, int depth) {
  struct stat st;
  if (lstat(path, &st) != 0) return;
  if (S_ISDIR(st.st_mode) && depth < 32) {
    DIR *d = opendir(path);
    struct dirent *de;
    while (d && (de = readdir(d))) {
      if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
      char *child = join(path, de->d_name);
      if (child) remove_tree(child, depth + 1);
      free(child);
    }
    if (d) closedir(d);
  }
  remove(path);
}

/* Writes DST atomically: every staged file into a fresh folder beside DST, the result load-checked there, then
 * moved into place by rename (the whole folder when DST does not exist, else each file, so files of DST that
 * the conversion does not write stay). A refusal leaves DST as it was and no temporary folder behind. */
static bool publish(conv *c, const char *dst_arg) {
  size_t al = strlen(dst_arg);
  while (al > 1 && dst_arg[al - 1] == '/') al--;
  if (al != strlen(dst_arg)) { /* "dst/": the staged paths start "dst//" and still match "dst" + one byte */
    char *trimmed = strndup(dst_arg, al);
    bool ok = trimmed && publish(c, trimmed);
    if (!trimmed) util_error_oom(c->err, "wgk convert", NULL);
    free(trimmed);
    return ok;
  }
  char *slash = strrchr(dst_arg, '/');
  size_t dl = slash ? (size_t)(slash - dst_arg) : 0;
  const char *base = slash ? slash + 1 : dst_arg;
  size_t n = dl + strlen(base) + 64;
  char *tmp = malloc(n);
  if (!tmp) return util_error_oom(c->err, "wgk convert", NULL), false;
  snprintf(tmp, n, "%.*s%s.%s.wgk-convert-XXXXXX", (int)dl, dst_arg, slash ? "/" : "", base);
  if (!mkdtemp(tmp)) {
    util_error_in(c->err, WGK_ERR_IO, tmp, NULL, "cannot make a folder beside DST: %s", strerror(errno));
    free(tmp);
    return false;
  }
  bool ok = flush(c, dst_arg, tmp) && loads_verified(c, tmp);
  struct stat st;
  if (ok && stat(dst_arg, &st) != 0) {
    if (rename(tmp, dst_arg) != 0) {
      util_error_in(c->err, WGK_ERR_IO, dst_arg, NULL, "cannot rename: %s", strerror(errno));
      ok = false;
    }
  } else if (ok) {
    size_t tl = strlen(dst_arg);
    for (size_t i = 0; ok && i < c->n_out; i++) {
      char *from = join(tmp, c->out[i].path + tl + 1);
      make_parents(c->out[i].path, tl);
      if (!from || rename(from, c->out[i].path) != 0) {
        util_error_in(c->err, WGK_ERR_IO, c->out[i].path, NULL, "cannot rename into place: %s", strerror(errno));
        ok = false;
      }
      free(from);
    }
  }
  remove_tree(tmp, 0);
  free(tmp);
  return ok;
}

static bool copy_file(conv *c, const char *rel, bool rename, bool optional) {
  char *path = join(c->src, rel);
  size_t len = 0;
  char *data = NULL;
  if (!path) return util_error_oom(c->err, "wgk convert", NULL), false;
  bool ok = read_src(c, path, optional, &data, &len);
  free(path);
  if (!ok || !data) return ok; /* optional files (test.json, bench.json) may be absent */
  if (rename) {
    char *r = rename_text(c->m, data);
    ok = r && write_file(c, rel, r, strlen(r));
    free(r);
  } else {
    ok = write_file(c, rel, data, len);
  }
  free(data);
  return ok;
}

/* The folder holding manifest.json: PKG/build/webgpu when it exists, else PKG itself. */
static char *webgpu_dir(const char *pkg) {
  char *d = join(pkg, "build/webgpu");
  struct stat st;
  if (d && stat(d, &st) == 0 && S_ISDIR(st.st_mode)) return d;
  free(d);
  return strdup(pkg);
}

/* Each variant's shaders and every file they include (the public loader fetches a variant's templates from its
 * list: docs/loader-semantics.md rule 8), copied once each (a template must be there), listed by variant id in
 * `variants`. */
static bool copy_shaders(conv *c, json_t *variants) {
  const manifest_model *m = c->m;
  bool ok = true;
  for (size_t i = 0; ok && i < m->n_variants; i++) {
    json_t *list = json_array();
    if (!list) return util_error_oom(c->err, "wgk convert", NULL), false;
    for (size_t k = 0; ok && k < m->variants[i].n_passes; k++)
      ok = pkg_template_closure(c->src, m->variants[i].passes[k].shader, list, c->err) == WGK_OK;
    for (size_t j = 0; ok && j < json_array_size(list); j++) {
      const char *file = json_string_value(json_array_get(list, j));
      if (!json_object_get(c->files, file)) ok = copy_file(c, file, true, false);
    }
    json_object_set_new(variants, m->variants[i].id, list);
  }
  return ok;
}

/* The kernel card, which lives beside build/: PKG/README.md to DST/README.md when there is one. */
static bool copy_card(conv *c, const char *pkg, const char *out) {
  char *card = join(pkg, "README.md");
  size_t len = 0;
  char *data = NULL;
  bool ok = card && read_src(c, card, true, &data, &len);
  if (ok && data) ok = stage(c, join(out, "README.md"), data, len);
  free(card);
  free(data);
  return ok;
}

/* The public metadata.json: the name, the old metadata's version if any, the variants' shaders and the digest.
 * Takes `variants` and c->files. */
static bool stage_metadata(conv *c, json_t *variants) {
  char *meta_path = join(c->src, "metadata.json");
  size_t mlen = 0;
  char *mtext = NULL;
  bool ok = !meta_path || read_src(c, meta_path, true, &mtext, &mlen);
  json_t *old = mtext ? json_loadb(mtext, mlen, 0, NULL) : NULL;
  free(mtext);
  free(meta_path);
  if (!ok) {
    json_decref(old);
    json_decref(variants);
    json_decref(c->files);
    c->files = NULL;
    return false;
  }
  json_t *meta = json_pack("{ss}", "name", c->m->op_id);
  if (json_is_integer(json_object_get(old, "version"))) set_if(meta, "version", json_object_get(old, "version"));
  json_decref(old);
  json_object_set_new(meta, "backend", json_pack("{ss}", "type", "webgpu"));
  json_object_set_new(meta, "webgpu", json_pack("{ssso}", "manifestSpec", "2.1", "variants", variants));
  json_object_set_new(meta, "digest", json_pack("{ssso}", "algorithm", "sha256", "files", c->files));
  c->files = NULL;
  json_object_set_new(meta, "provenance", json_pack("{ss}", "convertedBy", "wgk convert (from the seed format)"));
  char *mt = json_dumps(meta, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  size_t mtlen = mt ? strlen(mt) : 0;
  char *line = mt ? malloc(mtlen + 2) : NULL;
  if (line) memcpy(line, mt, mtlen), line[mtlen] = '\n', line[mtlen + 1] = '\0';
  ok = line ? stage(c, join(c->dst, "metadata.json"), line, mtlen + 1)
            : (util_error_oom(c->err, "wgk convert", "metadata.json"), false);
  free(line);
  free(mt);
  json_decref(meta);
  return ok;
}

/* The seed package at arg: a real folder (root, resolved), its manifest.json inside it and a seed manifest; false
   with err set otherwise. */
static bool load_seed(const char *arg, char *src, const char *mpath, char root[PATH_MAX], manifest_model **m,
                      util_error *err) {
  if (!realpath(arg, root)) {
    util_error_in(err, errno == ENOENT ? WGK_ERR_NOT_FOUND : WGK_ERR_IO, arg, NULL, "cannot open: %s", strerror(errno));
    return false;
  }
  conv probe = {.src = src, .root = root, .err = err};
  char *text = NULL;
  size_t tlen = 0;
  bool inside = read_src(&probe, mpath, false, &text, &tlen);
  free(text);
  if (!inside || manifest_load_file(mpath, m, err) != WGK_OK) return false;
  if ((*m)->format == WGK_MANIFEST_SEED) return true;
  util_error_in(err, WGK_ERR_INVALID_ARGUMENT, mpath, NULL, "already manifest spec 2.1; nothing to convert");
  return false;
}

/* Every file of the converted package staged in memory: the 2.1 manifest, the shaders, test.json and bench.json,
   the kernel card and metadata.json; false at the first that fails. */
static bool stage_package(conv *c, const char *from, const char *to) {
  json_t *man = manifest_json(c);
  char *text = json_dumps(man, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  json_decref(man);
  bool ok = text && write_file(c, "manifest.json", text, strlen(text));
  free(text);
  json_t *variants = json_object();
  if (ok) ok = copy_shaders(c, variants);
  if (ok) ok = copy_file(c, "test.json", false, true) && copy_file(c, "bench.json", false, true);
  if (ok) ok = copy_card(c, from, to);
  if (ok) {
    ok = stage_metadata(c, variants); /* takes variants and c->files */
  } else {
    json_decref(variants);
    json_decref(c->files);
  }
  c->files = NULL;
  return ok;
}

int cli_cmd_convert(int argc, char **argv) {
  if (argc != 3) return cli_usage("convert");
  util_error err;
  util_error_clear(&err);
  char *src = webgpu_dir(argv[1]);
  char *dst_root = join(argv[2], "build");
  char *dst = join(argv[2], "build/webgpu");
  char *mpath = join(src, "manifest.json");
  manifest_model *m = NULL;
  int rc = 1;
  conv c = {0};
  char root[PATH_MAX];
  if (load_seed(argv[1], src, mpath, root, &m, &err)) {
    c = (conv){m, m->root, json_object(), src, dst, &err, root, NULL, 0};
    /* every source file read and checked: only now is DST made and written */
    if (stage_package(&c, argv[1], argv[2]) && publish(&c, argv[2])) {
      printf("%s: %s, %zu variants, manifest spec 2.1 with the public metadata layout\n", argv[2], m->op_id,
             m->n_variants);
      rc = 0;
    }
  }
  if (rc) {
    char msg[4096];
    util_error_format(&err, msg, sizeof msg);
    cli_say("wgk convert: %s\n", msg);
  }
  for (size_t i = 0; i < c.n_out; i++) free(c.out[i].path), free(c.out[i].data);
  free(c.out);
  manifest_free(m);
  free(mpath);
  free(src);
  free(dst);
  free(dst_root);
  return rc;
}
