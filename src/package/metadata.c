/*
 * metadata.json, the root of trust of a verified package. The schema wgk accepts (unknown keys are errors):
 *
 *   {
 *     "name": "<domain>.<Name>",              required; equals the manifest's op id
 *     "version": N,                           optional integer >= 1: the contract version (branch vN)
 *     "backend": { "type": "webgpu" },        required; "type" is the only key
 *     "manifestSpecVersion": "1",             required; "1" = the seed format (the one read today);
 *                                             "2.1" is recognised and refused as not supported yet
 *     "variants": { "<variant id>": ["<template>.wgsl.jinja", ...] },
 *                                             required; exactly the manifest's variants, each with exactly
 *                                             the set of its passes' shaders (order and repeats ignored)
 *     "digest": { "algorithm": "sha256",      required; only sha256
 *                 "files": { "<relpath>": "<base64 sha256>" } },
 *                                             relpath relative to build/webgpu: no leading '/', no "..",
 *                                             no empty or "." parts; must list manifest.json and every
 *                                             template named in "variants"; base64 standard, padded
 *     "provenance": <any JSON>                optional, free-form (source repo, commit, tool versions)
 *   }
 *
 * The public layout (what the Hub serves, checked as the public loader checks it, docs/loader-semantics.md rules
 * 6-9; any other key is ignored) is told by its `webgpu` key:
 *
 *   { "name": "<op id>", "backend": {"type": "webgpu"},
 *     "webgpu": { "manifestSpec": "2.1", "variants": { "<id>": ["<template>", ...] } },
 *     "digest": { "algorithm": "sha256", "files": { "<canonical relpath>": "<base64 sha256>" } } }
 *
 * There every manifest variant is listed with at least its passes' shaders (a list may add the files its
 * templates include), and every listed id is a manifest variant.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_pos.h"
#include "util/digest.h"
#include "package/pkg_internal.h"

static const char *const meta_keys[] = {"name",     "version", "backend",    "manifestSpecVersion",
                                        "variants", "digest",  "provenance", NULL};

typedef struct meta_ctx {
  pkg_package *pkg; /* the package being opened (holds the metadata, its source name and positions) */
  util_error *err;  /* where the first error goes */
} meta_ctx;

static wgk_status failv(meta_ctx *c, wgk_status st, bool at_key, const char *path, const char *fmt, va_list ap) {
  return util_error_atv(c->err, st, util_manifest_jpos_pos(&c->pkg->meta_index, c->pkg->meta_source, path, at_key),
                        path, fmt, ap);
}

__attribute__((format(printf, 4, 5))) static wgk_status fail(meta_ctx *c, bool at_key, const char *path,
                                                             const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wgk_status st = failv(c, WGK_ERR_MANIFEST, at_key, path, fmt, ap);
  va_end(ap);
  return st;
}

/* path of member key under parent, in the position index's form. */
static const char *member_path(char *buf, size_t size, const char *parent, const char *key) {
  util_dynbuf b;
  util_dynbuf_init(&b, size - 1);
  util_dynbuf_append_str(&b, parent);
  util_manifest_path_key(&b, key);
  snprintf(buf, size, "%s", b.failed ? parent : util_dynbuf_str(&b));
  util_dynbuf_free(&b);
  return buf;
}

static wgk_status check_keys(meta_ctx *c, const json_t *obj, const char *path, const char *const *allowed) {
  if (!json_is_object(obj)) return fail(c, false, path, "expected an object");
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    bool ok = false;
    for (const char *const *a = allowed; *a && !ok; a++) ok = strcmp(*a, key) == 0;
    char p[512];
    if (!ok) return fail(c, true, member_path(p, sizeof p, path, key), "unknown key '%s'", key);
  }
  return WGK_OK;
}

static wgk_status need_string(meta_ctx *c, const json_t *obj, const char *parent, const char *key, const char **out) {
  char p[512];
  const json_t *v = json_object_get(obj, key);
  if (!v) return fail(c, false, parent, "missing required key '%s'", key);
  if (!json_is_string(v)) return fail(c, false, member_path(p, sizeof p, parent, key), "expected a string");
  *out = json_string_value(v);
  return WGK_OK;
}

static wgk_status check_digests(meta_ctx *c, const json_t *digest) {
  static const char *const digest_keys[] = {"algorithm", "files", NULL};
  const char *alg = NULL;
  wgk_status st = check_keys(c, digest, "digest", digest_keys);
  if (!st) st = need_string(c, digest, "digest", "algorithm", &alg);
  if (!st && strcmp(alg, "sha256") != 0)
    st = fail(c, false, "digest.algorithm", "unsupported digest algorithm '%s' (only sha256)", alg);
  const json_t *files = json_object_get(digest, "files");
  if (!st && !json_is_object(files))
    st = fail(c, false, files ? "digest.files" : "digest", "%s",
              files ? "expected an object" : "missing required key 'files'");
  const char *rel;
  const json_t *v;
  char p[512];
  if (!st) json_object_foreach((json_t *)files, rel, v) {
      member_path(p, sizeof p, "digest.files", rel);
      if (!util_pkg_relpath_ok(rel))
        st = fail(c, true, p, "'%s': a package path must be relative, without '..' or empty parts", rel);
      else if (!util_pkg_digest_well_formed(json_string_value(v)))
        st = fail(c, false, p, "not a base64 SHA-256 digest (44 characters, padded)");
      if (st) break;
    }
  if (!st && !json_object_get(files, "manifest.json"))
    st = fail(c, false, "digest.files", "manifest.json must be listed");
  if (!st) c->pkg->digests = files;
  return st;
}

static wgk_status check_variants_shape(meta_ctx *c, const json_t *vars) {
  if (!vars) return fail(c, false, "", "missing required key 'variants'");
  if (!json_is_object(vars)) return fail(c, false, "variants", "expected an object");
  const char *id;
  const json_t *list;
  char p[512], q[600];
  json_object_foreach((json_t *)vars, id, list) {
    member_path(p, sizeof p, "variants", id);
    if (!json_is_array(list)) return fail(c, false, p, "expected a list of template files");
    for (size_t i = 0; i < json_array_size(list); i++) {
      snprintf(q, sizeof q, "%s[%zu]", p, i);
      const char *t = json_string_value(json_array_get(list, i));
      if (!t) return fail(c, false, q, "expected a string");
      if (!json_object_get(c->pkg->digests, t))
        return fail(c, false, q, "template '%s' is not listed in digest.files", t);
    }
  }
  return WGK_OK;
}

/* The loader's canonical relative path: [A-Za-z0-9._-]+ segments joined by '/', no "..", no segment that
 * names an Object.prototype member. */
static bool canonical_path(const char *rel) {
  static const char *const proto[] = {"constructor",
                                      "__proto__",
                                      "toString",
                                      "toLocaleString",
                                      "valueOf",
                                      "hasOwnProperty",
                                      "isPrototypeOf",
                                      "propertyIsEnumerable",
                                      "__defineGetter__",
                                      "__defineSetter__",
                                      "__lookupGetter__",
                                      "__lookupSetter__",
                                      NULL};
  if (!*rel || strstr(rel, "..")) return false;
  for (const char *seg = rel; seg;) {
    const char *end = strchr(seg, '/');
    size_t n = end ? (size_t)(end - seg) : strlen(seg);
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++) {
      char ch = seg[i];
      if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
            ch == '_' || ch == '-'))
        return false;
    }
    for (const char *const *p = proto; *p; p++)
      if (strlen(*p) == n && strncmp(*p, seg, n) == 0) return false;
    seg = end ? end + 1 : NULL;
  }
  return true;
}

static bool template_name(const char *t) {
  size_t n = strlen(t);
  return (n > 5 && strcmp(t + n - 5, ".wgsl") == 0) || (n > 11 && strcmp(t + n - 11, ".wgsl.jinja") == 0);
}

static bool variant_id_ok(const char *id) {
  if (!((id[0] >= 'a' && id[0] <= 'z') || (id[0] >= 'A' && id[0] <= 'Z') || (id[0] >= '0' && id[0] <= '9')))
    return false;
  for (const char *ch = id; *ch; ch++)
    if (!((*ch >= 'a' && *ch <= 'z') || (*ch >= 'A' && *ch <= 'Z') || (*ch >= '0' && *ch <= '9') || *ch == '_'))
      return false;
  return strcmp(id, "constructor") != 0 && strcmp(id, "toString") != 0 && strcmp(id, "valueOf") != 0 &&
         strcmp(id, "hasOwnProperty") != 0 && strcmp(id, "isPrototypeOf") != 0 && strcmp(id, "toLocaleString") != 0 &&
         strcmp(id, "propertyIsEnumerable") != 0;
}

/* webgpu.manifestSpec: "<major>.<minor>" (a string or a number), and the one this runtime reads (2.1). */
static wgk_status public_spec(meta_ctx *c, const json_t *webgpu) {
  const json_t *spec = json_object_get(webgpu, "manifestSpec");
  char text[64] = "";
  if (json_is_string(spec))
    snprintf(text, sizeof text, "%s", json_string_value(spec));
  else if (json_is_integer(spec))
    snprintf(text, sizeof text, "%" JSON_INTEGER_FORMAT, json_integer_value(spec));
  else if (json_is_real(spec))
    snprintf(text, sizeof text, "%.15g", json_real_value(spec));
  const char *dot = strchr(text, '.');
  bool shaped = dot && dot > text && dot[1];
  for (const char *ch = text; shaped && *ch; ch++) shaped = (*ch >= '0' && *ch <= '9') || ch == dot;
  if (!shaped)
    return fail(c, false, spec ? "webgpu.manifestSpec" : "webgpu",
                "manifest spec version \"%s\" is not \"<major>.<minor>\"", text);
  if (strcmp(text, "2.1") != 0)
    return fail(c, false, "webgpu.manifestSpec", "manifest spec %s is not supported by this runtime (supports 2.1)",
                text);
  return WGK_OK;
}

/* digest: sha256, and files a record of canonical relative paths -> base64 SHA-256, manifest.json among them; kept
 * in c->pkg->digests. */
static wgk_status public_digests(meta_ctx *c, const json_t *meta) {
  const json_t *digest = json_object_get(meta, "digest");
  const char *alg = json_string_value(json_object_get(digest, "algorithm"));
  if (!alg || strcmp(alg, "sha256") != 0)
    return fail(c, false, digest ? "digest" : "", "metadata digest.algorithm is %s, not \"sha256\"",
                alg ? alg : "missing");
  const json_t *files = json_object_get(digest, "files");
  if (!json_is_object(files)) return fail(c, false, "digest", "metadata digest.files is not a record");
  const char *rel;
  const json_t *v;
  char p[512];
  json_object_foreach((json_t *)files, rel, v) {
    member_path(p, sizeof p, "digest.files", rel);
    if (!canonical_path(rel))
      return fail(c, true, p, "metadata digest path \"%s\" is not a canonical relative path", rel);
    if (!json_is_string(v)) return fail(c, false, p, "metadata digest for %s is not a string", rel);
    if (!util_pkg_digest_well_formed(json_string_value(v)))
      return fail(c, false, p, "not a base64 SHA-256 digest (44 characters, padded)");
  }
  if (!json_object_get(files, "manifest.json"))
    return fail(c, false, "digest.files", "metadata digest.files does not include manifest.json");
  c->pkg->digests = files;
  return WGK_OK;
}

/* webgpu.variants: a non-empty record of variant id -> a non-empty list of templates that digest.files lists. */
static wgk_status public_variants(meta_ctx *c, const json_t *webgpu, const json_t *files) {
  const json_t *vars = json_object_get(webgpu, "variants");
  if (!json_is_object(vars))
    return fail(c, false, vars ? "webgpu.variants" : "webgpu",
                "metadata webgpu.variants is not a record of variant id -> template paths");
  const char *id;
  const json_t *list;
  char p[512], q[600];
  json_object_foreach((json_t *)vars, id, list) {
    member_path(p, sizeof p, "webgpu.variants", id);
    if (!variant_id_ok(id))
      return fail(c, true, p, "metadata webgpu.variants names \"%s\", which is not a variant id", id);
    if (!json_is_array(list) || json_array_size(list) == 0)
      return fail(c, false, p, "metadata webgpu.variants[%s] is not a non-empty list of template paths", id);
    for (size_t i = 0; i < json_array_size(list); i++) {
      snprintf(q, sizeof q, "%s[%zu]", p, i);
      const char *t = json_string_value(json_array_get(list, i));
      if (!t || !json_object_get(files, t) || !template_name(t))
        return fail(c, false, q,
                    "metadata webgpu.variants[%s] lists %s, which is not a template in metadata.digest.files", id,
                    t ? t : "a non-string");
    }
  }
  if (json_object_size(vars) == 0)
    return fail(c, false, "webgpu.variants", "metadata webgpu.variants lists no variant");
  return WGK_OK;
}

/* The public layout, checked in the loader's order (its `Nl`). */
static wgk_status check_public(meta_ctx *c, const json_t *meta) {
  const json_t *backend = json_object_get(meta, "backend");
  const char *type = json_string_value(json_object_get(backend, "type"));
  if (!type || strcmp(type, "webgpu") != 0)
    return fail(c, false, backend ? "backend" : "", "metadata backend.type is %s, not \"webgpu\"",
                type ? type : "missing");
  const json_t *webgpu = json_object_get(meta, "webgpu");
  if (!json_is_object(webgpu)) return fail(c, false, "webgpu", "webgpu must be an object {manifestSpec, variants}");
  wgk_status st = public_spec(c, webgpu);
  if (!st) st = public_digests(c, meta);
  if (!st) st = public_variants(c, webgpu, c->pkg->digests);
  if (st) return st;
  if (!json_is_string(json_object_get(meta, "name"))) return fail(c, false, "", "missing required key 'name'");
  const json_t *ver = json_object_get(meta, "version");
  if (json_is_integer(ver) && json_integer_value(ver) >= 1 && json_integer_value(ver) <= 1000000)
    c->pkg->version = (int)json_integer_value(ver);
  return WGK_OK;
}

/* The variants record of either layout. */
static const json_t *listed_variants(const json_t *meta) {
  const json_t *webgpu = json_object_get(meta, "webgpu");
  return webgpu ? json_object_get(webgpu, "variants") : json_object_get(meta, "variants");
}

static wgk_status check_top(meta_ctx *c, const json_t *meta) {
  if (json_is_object(meta) && json_object_get(meta, "webgpu")) return check_public(c, meta);
  static const char *const backend_keys[] = {"type", NULL};
  const char *s = NULL;
  wgk_status st = check_keys(c, meta, "", meta_keys);
  if (!st) st = need_string(c, meta, "", "name", &s);
  const json_t *ver = json_object_get(meta, "version");
  if (!st && ver && (!json_is_integer(ver) || json_integer_value(ver) < 1 || json_integer_value(ver) > 1000000))
    st = fail(c, false, "version", "expected an integer >= 1 (the contract version)");
  if (!st && ver) c->pkg->version = (int)json_integer_value(ver);
  const json_t *backend = json_object_get(meta, "backend");
  if (!st && !backend) st = fail(c, false, "", "missing required key 'backend'");
  if (!st) st = check_keys(c, backend, "backend", backend_keys);
  if (!st) st = need_string(c, backend, "backend", "type", &s);
  if (!st && strcmp(s, "webgpu") != 0) st = fail(c, false, "backend.type", "backend type '%s' is not webgpu", s);
  if (!st) st = need_string(c, meta, "", "manifestSpecVersion", &s);
  if (!st && strcmp(s, "2.1") == 0)
    st = fail(c, false, "manifestSpecVersion",
              "manifest spec 2.1 goes with the public layout: webgpu: {manifestSpec: "
              "\"2.1\", variants}");
  else if (!st && strcmp(s, "1") != 0)
    st = fail(c, false, "manifestSpecVersion", "unknown manifest spec version '%s' (known: \"1\")", s);
  const json_t *digest = json_object_get(meta, "digest");
  if (!st && !digest) st = fail(c, false, "", "missing required key 'digest'");
  if (!st) st = check_digests(c, digest);
  if (!st) st = check_variants_shape(c, json_object_get(meta, "variants"));
  return st;
}

wgk_status pkg_metadata_load(pkg_package *pkg, util_error *err) {
  meta_ctx c = {.pkg = pkg, .err = err};
  pkg->meta_source = pkg_join(pkg->dir, "metadata.json");
  if (!pkg->meta_source) return util_error_oom(err, pkg->dir, NULL);
  char *text = NULL;
  size_t len = 0;
  wgk_status st = pkg_check_inside(pkg, pkg->meta_source, "metadata.json", err);
  if (!st) st = pkg_slurp(pkg->meta_source, &text, &len, err);
  json_error_t jerr;
  if (!st) {
    pkg->metadata = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!pkg->metadata)
      st =
          util_error_at(err, json_error_code(&jerr) == json_error_out_of_memory ? WGK_ERR_OUT_OF_MEMORY : WGK_ERR_PARSE,
                        UTIL_POS(pkg->meta_source, jerr), NULL, "%s", jerr.text);
  }
  if (!st && util_manifest_jpos_build(text, len, &pkg->meta_index) != WGK_OK)
    st = util_error_in(err, WGK_ERR_OUT_OF_MEMORY, pkg->meta_source, NULL, "cannot index metadata.json");
  if (!st) st = check_top(&c, pkg->metadata);
  free(text);
  return st;
}

/* Every manifest variant is listed with exactly its pass shaders; every listed variant exists. */
static wgk_status match_variants(meta_ctx *c, const manifest_model *m) {
  const json_t *vars = listed_variants(c->pkg->metadata);
  bool pub = json_object_get(c->pkg->metadata, "webgpu") != NULL;
  const char *base = pub ? "webgpu.variants" : "variants";
  char p[512];
  for (size_t i = 0; i < m->n_variants; i++) {
    const manifest_variant *v = &m->variants[i];
    const json_t *list = json_object_get(vars, v->id);
    if (!list) return fail(c, false, base, "manifest variant '%s' is not listed", v->id);
    member_path(p, sizeof p, base, v->id);
    for (size_t k = 0; k < v->n_passes; k++) {
      bool found = false;
      for (size_t j = 0; j < json_array_size(list) && !found; j++)
        found = strcmp(json_string_value(json_array_get(list, j)), v->passes[k].shader) == 0;
      if (!found)
        return fail(c, false, p, "shader '%s' of pass '%s' is not listed", v->passes[k].shader, v->passes[k].id);
    }
    for (size_t j = 0; !pub && j < json_array_size(list); j++) {
      const char *t = json_string_value(json_array_get(list, j));
      bool used = false;
      for (size_t k = 0; k < v->n_passes && !used; k++) used = strcmp(t, v->passes[k].shader) == 0;
      if (!used) return fail(c, false, p, "template '%s' is not a shader of any pass of variant '%s'", t, v->id);
    }
  }
  const char *id;
  const json_t *list;
  json_object_foreach((json_t *)vars, id, list) {
    if (!manifest_find_variant(m, id))
      return fail(c, true, member_path(p, sizeof p, base, id), "variant '%s' is not in the manifest", id);
  }
  return WGK_OK;
}

/* The loader's include path: "./x" and "../x" relative to the including file's folder, else to the package
 * root; "." and empty segments dropped, ".." pops (escaping the root is an error). NULL when it escapes, or
 * with *nomem set when out of memory. */
static char *include_path(const char *from, const char *name, bool *nomem) {
  *nomem = false;
  util_dynbuf joined;
  util_dynbuf_init(&joined, 1 << 16);
  if (name[0] == '.') {
    const char *slash = strrchr(from, '/');
    if (slash) util_dynbuf_append(&joined, from, (size_t)(slash - from));
    util_dynbuf_append_char(&joined, '/');
  }
  util_dynbuf_append_str(&joined, name);
  char *text = util_dynbuf_take(&joined);
  if (!text) {
    *nomem = true;
    return NULL;
  }
  size_t n = strlen(text) + 1, used = 0;
  char *out = calloc(1, n);
  bool ok = out != NULL;
  *nomem = !ok;
  for (char *seg = text; ok && seg;) {
    char *end = strpbrk(seg, "/\\");
    size_t len = end ? (size_t)(end - seg) : strlen(seg);
    if (len == 2 && seg[0] == '.' && seg[1] == '.') {
      if (used == 0) ok = false;
      while (used > 0 && out[used - 1] != '/') used--;
      if (used > 0) used--;
      out[used] = '\0';
    } else if (len > 0 && !(len == 1 && seg[0] == '.')) {
      if (used) out[used++] = '/';
      memcpy(out + used, seg, len);
      used += len;
      out[used] = '\0';
    }
    seg = end ? end + 1 : NULL;
  }
  free(text);
  if (!ok) {
    free(out);
    return NULL;
  }
  return out;
}

/* The next `{% include "name" %}` at or after s: copies the name, returns where to go on from; NULL at the end. */
static const char *next_include(const char *s, char *name, size_t size) {
  for (s = strstr(s, "{%"); s; s = strstr(s + 2, "{%")) {
    const char *q = s + 2;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
    if (strncmp(q, "include", 7) != 0 || !(q[7] == ' ' || q[7] == '\t' || q[7] == '\n')) continue;
    q += 7;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
    if (*q != '"' && *q != '\'') continue;
    char quote = *q++;
    const char *e = strchr(q, quote);
    if (!e) continue;
    snprintf(name, size, "%.*s", (int)(e - q), q);
    return e + 1;
  }
  return NULL;
}

static long list_index(const json_t *list, const char *s) {
  for (size_t i = 0; i < json_array_size(list); i++)
    if (strcmp(json_string_value(json_array_get(list, i)), s) == 0) return (long)i;
  return -1;
}

/* One variant's walk over its includes: each listed file is checked once (a DAG of includes is linear work, not
 * one walk per path through it), and a file met again while it is open is a cycle. */
typedef struct inc_walk {
  unsigned char *state;  /* per entry of the variant's template list: 0 not seen, 1 open, 2 checked */
  const char *chain[18]; /* the files open, outermost first */
  int depth;
} inc_walk;

/* Every file a template of variant `id` includes (recursively) is in the variant's template list:
 * the public loader fetches templates per variant from that list (docs/loader-semantics.md rule 8). */
static wgk_status check_includes(meta_ctx *c, const char *id, const json_t *list, const char *file, inc_walk *w) {
  char p[512];
  member_path(p, sizeof p, "webgpu.variants", id);
  if (w->depth > 16) return fail(c, false, p, "template %s: includes nest deeper than 16", file);
  long me = list_index(list, file);
  if (me >= 0 && w->state[me] == 2) return WGK_OK;
  if (me >= 0) w->state[me] = 1;
  w->chain[w->depth++] = file;
  char *path = pkg_join(c->pkg->dir, file), *text = NULL;
  size_t len = 0;
  wgk_status st = path ? pkg_slurp(path, &text, &len, c->err) : util_error_oom(c->err, c->pkg->meta_source, NULL);
  free(path);
  char name[512];
  for (const char *s = st ? NULL : next_include(text, name, sizeof name); s && !st;
       s = next_include(s, name, sizeof name)) {
    bool nomem;
    char *target = include_path(file, name, &nomem);
    if (!target) {
      st = nomem ? util_error_oom(c->err, c->pkg->meta_source, NULL)
                 : fail(c, false, p, "template %s includes \"%s\", which escapes the package root", file, name);
      break;
    }
    long at = list_index(list, target);
    if (at < 0) {
      st = fail(c, false, p,
                "variant %s renders %s, which includes %s, but %s is not in the variant's template list "
                "(the public loader fetches templates per variant from this list)",
                id, file, target, target);
    } else if (w->state[at] == 1) {
      char chain[1024] = "";
      int from = 0;
      while (from < w->depth && strcmp(w->chain[from], target) != 0) from++;
      for (int k = from; k < w->depth; k++) {
        strncat(chain, w->chain[k], sizeof chain - strlen(chain) - 1);
        strncat(chain, " -> ", sizeof chain - strlen(chain) - 1);
      }
      strncat(chain, target, sizeof chain - strlen(chain) - 1);
      st = fail(c, false, p, "variant %s: templates include each other in a cycle: %s", id, chain);
    } else {
      st = check_includes(c, id, list, target, w);
    }
    free(target);
  }
  free(text);
  w->depth--;
  if (me >= 0) w->state[me] = 2;
  return st;
}

wgk_status pkg_metadata_match(pkg_package *pkg, util_error *err) {
  meta_ctx c = {.pkg = pkg, .err = err};
  const char *name = json_string_value(json_object_get(pkg->metadata, "name"));
  wgk_status st = WGK_OK;
  bool pub = json_object_get(pkg->metadata, "webgpu") != NULL;
  if (strcmp(name, pkg->manifest->op_id) != 0)
    st = fail(&c, false, "name", "name '%s' is not the manifest's op id '%s'", name, pkg->manifest->op_id);
  if (!st && pub && pkg->manifest->format != WGK_MANIFEST_SPEC21)
    st = fail(&c, false, "webgpu.manifestSpec",
              "metadata says manifest spec 2.1 but manifest.json is in the seed format");
  if (!st && !pub && pkg->manifest->format != WGK_MANIFEST_SEED)
    st = fail(&c, false, "manifestSpecVersion",
              "metadata says the seed format (\"1\") but manifest.json is manifest spec "
              "2.1; use the public layout webgpu: {manifestSpec: \"2.1\", variants}");
  if (!st) st = match_variants(&c, pkg->manifest);
  for (size_t i = 0; !st && pub && i < pkg->manifest->n_variants; i++) {
    const manifest_variant *v = &pkg->manifest->variants[i];
    const json_t *list = json_object_get(listed_variants(pkg->metadata), v->id);
    inc_walk walk = {.state = calloc(json_array_size(list) + 1, 1)};
    if (!walk.state) st = util_error_oom(err, pkg->meta_source, NULL);
    for (size_t k = 0; !st && k < v->n_passes; k++) {
      bool seen = false;
      for (size_t j = 0; j < k && !seen; j++) seen = strcmp(v->passes[j].shader, v->passes[k].shader) == 0;
      if (!seen) st = check_includes(&c, v->id, list, v->passes[k].shader, &walk);
    }
    free(walk.state);
  }
  return st;
}

static bool in_list(const json_t *list, const char *s) {
  for (size_t i = 0; i < json_array_size(list); i++)
    if (strcmp(json_string_value(json_array_get(list, i)), s) == 0) return true;
  return false;
}

static wgk_status add_template(const char *dir, const char *file, json_t *list, int depth, util_error *err) {
  if (in_list(list, file)) return WGK_OK;
  char *path = pkg_join(dir, file), *text = NULL;
  size_t len = 0;
  if (!path || json_array_append_new(list, json_string(file))) {
    free(path);
    return util_error_oom(err, dir, NULL);
  }
  wgk_status st = depth > 16 ? util_error_in(err, WGK_ERR_MANIFEST, path, NULL, "includes nest deeper than 16")
                             : pkg_slurp(path, &text, &len, err);
  char name[512];
  for (const char *s = st ? NULL : next_include(text, name, sizeof name); s && !st;
       s = next_include(s, name, sizeof name)) {
    bool nomem;
    char *target = include_path(file, name, &nomem);
    if (!target)
      st = nomem ? util_error_oom(err, path, NULL)
                 : util_error_in(err, WGK_ERR_MANIFEST, path, NULL, "includes \"%s\", which escapes the package root",
                                 name);
    else
      st = add_template(dir, target, list, depth + 1, err);
    free(target);
  }
  free(text);
  free(path);
  return st;
}

wgk_status pkg_template_closure(const char *dir, const char *file, json_t *list, util_error *err) {
  return add_template(dir, file, list, 0, err);
}
