/* Loading: jansson parses, the position index maps values to lines, the spec 2.1 reader fills the model (a seed
 * manifest translated into spec 2.1 first, seed.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/reader.h"
#include "util/file_read.h"
#include "util/json_type.h"

#define MANIFEST_MAX_BYTES ((size_t)16 << 20)

/* Spec 2.1 is told from the seed by its port maps (or its own keys); the spec version itself lives in
 * metadata.json (docs/loader-semantics.md rule 7). */
static bool looks_like_spec21(const json_t *root) {
  return json_object_get(root, "$schema") || json_object_get(root, "bindings") ||
         json_is_object(json_object_get(root, "inputs")) || json_object_get(root, "conformance") ||
         json_object_get(root, "requires") || json_object_get(root, "when") || json_object_get(root, "onnx");
}

/* The loader drops every `$comment` key of manifest.json, at any depth (objects inside lists included), before it
 * reads anything, and refuses one whose value is not a string (docs/loader-semantics.md rule 33). Positions are
 * indexed by JSON path, so removing members leaves every other value's position as it was. */
static wgk_status strip_comments(manifest_rd *rd, json_t *v) {
  wgk_status st = WGK_OK;
  if (json_is_array(v)) {
    for (size_t i = 0; !st && i < json_array_size(v); i++) {
      size_t mark = manifest_push_index(rd, i);
      st = strip_comments(rd, json_array_get(v, i));
      manifest_pop(rd, mark);
    }
  } else if (json_is_object(v)) {
    json_t *c = json_object_get(v, "$comment");
    if (c && !json_is_string(c)) {
      char shown[80];
      manifest_show(c, shown, sizeof shown);
      return manifest_fail_in(rd, "$comment", false, "$comment must be a string, got %s %s", util_json_type_name(c),
                              shown);
    }
    if (c) json_object_del(v, "$comment");
    const char *key;
    json_t *item;
    json_object_foreach(v, key, item) {
      size_t mark = manifest_push_key(rd, key);
      st = strip_comments(rd, item);
      manifest_pop(rd, mark);
      if (st) break;
    }
  }
  return st;
}

static wgk_status read_spec21(manifest_rd *rd, const json_t *root) {
  wgk_status st = strip_comments(rd, (json_t *)root);
  if (!st) st = manifest_spec21_top(rd, root);
  if (!st) st = manifest_spec21_types(rd, root);
  if (!st) st = manifest_spec21_ports(rd, root);
  if (!st) st = manifest_spec21_args(rd, root);
  if (!st) st = manifest_spec21_attributes(rd, root);
  if (!st) st = manifest_spec21_tunables(rd, root, &rd->m->tunables, &rd->m->n_tunables);
  manifest_derive *ds = NULL;
  if (!st) st = manifest_spec21_derive(rd, root, "derive", true, &ds, &rd->m->n_derives);
  rd->m->derives = ds;
  if (!st) st = manifest_spec21_handles(rd, root);
  if (!st) st = manifest_spec21_variants(rd, root);
  return st;
}

/* Every number a manifest holds is one the expression language can hold exactly: integers in [-2^53, 2^53]
 * (docs/expressions.md), so a literal is never rounded on its way into a scope. Depth is bounded by jansson's. */
static wgk_status check_numbers(manifest_rd *rd, const json_t *v) {
  wgk_status st = WGK_OK;
  if (json_is_integer(v)) {
    json_int_t i = json_integer_value(v);
    if (i > ((json_int_t)1 << 53) || i < -((json_int_t)1 << 53))
      st = manifest_fail(
          rd, "integer overflow past 2^53: %" JSON_INTEGER_FORMAT " (integers are exact only up to 2^53)", i);
  } else if (json_is_array(v)) {
    for (size_t i = 0; !st && i < json_array_size(v); i++) {
      size_t mark = manifest_push_index(rd, i);
      st = check_numbers(rd, json_array_get(v, i));
      manifest_pop(rd, mark);
    }
  } else if (json_is_object(v)) {
    const char *key;
    json_t *item;
    json_object_foreach((json_t *)v, key, item) {
      size_t mark = manifest_push_key(rd, key);
      st = check_numbers(rd, item);
      manifest_pop(rd, mark);
      if (st) break;
    }
  }
  return st;
}

/* A seed manifest is translated into spec 2.1 and read by the same reader (seed.c): one set of checks for both. */
static wgk_status read_seed(manifest_rd *rd, const json_t *root) {
  manifest_origin map = {0};
  json_t *spec = NULL;
  wgk_status st = manifest_seed_translate(rd, root, &spec, &map);
  if (!st) {
    rd->m->translated = spec;
    rd->origin = &map;
    rd->seed = true;
    st = read_spec21(rd, spec);
    rd->origin = NULL; /* what the seed model adds is read at the seed's own paths */
  }
  if (!st) st = manifest_seed_finish(rd, root);
  manifest_origin_free(&map);
  return st;
}

static wgk_status read_manifest(manifest_rd *rd, const json_t *root) {
  wgk_status st = check_numbers(rd, root);
  if (st) return st;
  if (json_is_object(root) && looks_like_spec21(root)) return read_spec21(rd, root);
  return read_seed(rd, root);
}

static wgk_status parse(const char *text, size_t len, const char *source, json_t **root, util_error *err) {
  json_error_t jerr;
  *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  if (*root) return WGK_OK;
  return util_error_at(err, json_error_code(&jerr) == json_error_out_of_memory ? WGK_ERR_OUT_OF_MEMORY : WGK_ERR_PARSE,
                       util_pos_make(source, jerr.line > 0 ? jerr.line : 0, jerr.column > 0 ? jerr.column : 0), NULL,
                       "%s", jerr.text);
}

wgk_status manifest_load_text(const char *text, size_t len, const char *source_name, manifest_model **out,
                              util_error *err) {
  if (out) *out = NULL;
  if (!text || !out) return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "no manifest text");
  if (!source_name) source_name = "<manifest>";
  wgk_status before = err ? err->status : WGK_OK;
  manifest_model *m = calloc(1, sizeof *m);
  char *src = strdup(source_name);
  if (!m || !src) {
    free(m);
    free(src);
    return util_error_oom(err, source_name, NULL);
  }
  m->source = src;
  m->format = WGK_MANIFEST_SEED;
  m->description = "";
  wgk_status st = parse(text, len, source_name, &m->root, err);
  util_manifest_jpos index = {0};
  if (!st) {
    st = util_manifest_jpos_build(text, len, &index);
    if (st) util_error_in(err, st, source_name, NULL, "cannot index the JSON text");
  }
  if (!st) {
    manifest_rd rd = {.m = m, .index = &index, .err = err};
    util_dynbuf_init(&rd.path, 1 << 16);
    util_dynbuf_append_str(&rd.path, "");
    st = rd.path.failed ? util_error_oom(err, source_name, NULL) : read_manifest(&rd, m->root);
    /* Readers that cannot fail (positions, paths) record a lost allocation in err or rd.path only. */
    if (!st && ((rd.path.failed && !rd.path.over) || (err && before == WGK_OK && err->status == WGK_ERR_OUT_OF_MEMORY)))
      st = util_error_oom(err, source_name, NULL);
    util_dynbuf_free(&rd.path);
  }
  util_manifest_jpos_free(&index);
  if (st) {
    if (!util_error_is_set(err)) util_error_in(err, st, source_name, NULL, "%s", wgk_status_str(st));
    manifest_free(m);
    return st;
  }
  *out = m;
  return WGK_OK;
}

/* Through the one file reader (util/file_read.h): a regular file of at most 16 MiB, so a manifest that is a FIFO
 * or a device is refused rather than waited on. */
wgk_status manifest_load_file(const char *path, manifest_model **out, util_error *err) {
  if (out) *out = NULL;
  if (!path) return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "no manifest path");
  unsigned char *text = NULL;
  size_t len = 0;
  wgk_status st = util_file_read_all(path, MANIFEST_MAX_BYTES, &text, &len, err);
  if (st == WGK_OK) st = manifest_load_text((const char *)text, len, path, out, err);
  free(text);
  return st;
}

void manifest_free(manifest_model *m) {
  if (!m) return;
  manifest_arena_free(m->internal);
  json_decref(m->expanded);
  json_decref(m->translated);
  json_decref(m->root);
  free((char *)m->source);
  free(m);
}
