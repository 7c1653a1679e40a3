/* The tuning cache file: path, keys, lookup, and the read-modify-write of `wgk tune`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/env.h"
#include "runtime/tuning.h"
#include "util/file_read.h"

bool rt_tuning_path(char *buf, size_t size) {
  const char *env = util_env("WGK_TUNING_CACHE"), *xdg = util_env("XDG_CACHE_HOME"), *home = util_env("HOME");
  int n = -1;
  if (env && env[0])
    n = snprintf(buf, size, "%s", env);
  else if (xdg && xdg[0] == '/')
    n = snprintf(buf, size, "%s/wgk/tuning.json", xdg);
  else if (home && home[0])
    n = snprintf(buf, size, "%s/.cache/wgk/tuning.json", home);
  return n > 0 && (size_t)n < size;
}

void rt_tuning_device_key(const device_desc *d, char *buf, size_t size) {
  snprintf(buf, size, "%s / %s / %s / %s", d->vendor, d->architecture, d->device, d->description);
}

bool rt_tuning_shape_key(const manifest_model *m, const plan_tensor *ports, util_dynbuf *out) {
  bool first = true;
  for (size_t i = 0; i < m->n_ports; i++) {
    const plan_tensor *t = &ports[i];
    if (!t->present || m->ports[i].dir == WGK_PORT_OUTPUT) continue;
    util_dynbuf_printf(out, "%s%s:%s[", first ? "" : " ", m->ports[i].name, t->dtype);
    for (int d = 0; d < t->rank; d++) util_dynbuf_printf(out, "%s%lld", d ? "," : "", (long long)t->shape[d]);
    util_dynbuf_append_char(out, ']');
    first = false;
  }
  return util_dynbuf_str(out) != NULL;
}

json_t *rt_tuning_read(const char *path, util_error *err) {
  /* a regular file of at most 64 MiB (docs/limits.md), opened without blocking: a FIFO or /dev/zero hung here */
  unsigned char *data = NULL;
  size_t len = 0;
  wgk_status st = util_file_read_all(path, (size_t)64 << 20, &data, &len, err);
  if (st == WGK_ERR_NOT_FOUND) return json_pack("{s:i, s:[]}", "schema", WGK_TUNING_SCHEMA, "entries");
  if (st != WGK_OK) return NULL;
  json_error_t je;
  json_t *doc = json_loadb((const char *)data, len, 0, &je);
  free(data);
  if (!doc) return util_error_at(err, WGK_ERR_PARSE, UTIL_POS(path, je), NULL, "%s", je.text), NULL;
  const json_t *schema = json_object_get(doc, "schema");
  if (!json_is_array(json_object_get(doc, "entries")) || !json_is_integer(schema) ||
      json_integer_value(schema) != WGK_TUNING_SCHEMA) {
    json_decref(doc);
    return util_error_in(err, WGK_ERR_PARSE, path, NULL, "not a wgk tuning cache (schema %d)", WGK_TUNING_SCHEMA), NULL;
  }
  return doc;
}

static bool field_is(const json_t *entry, const char *key, const char *value) {
  const char *v = json_string_value(json_object_get(entry, key));
  return v && strcmp(v, value) == 0;
}

json_t *rt_tuning_load(const char *path, const char *device_key, const char *op_id) {
  json_t *out = json_array();
  util_error err = {0};
  json_t *doc = path && out ? rt_tuning_read(path, &err) : NULL;
  size_t i;
  json_t *e;
  json_array_foreach(json_object_get(doc, "entries"), i, e) {
    if (field_is(e, "device", device_key) && field_is(e, "op", op_id) && json_is_object(json_object_get(e, "tunables")))
      json_array_append(out, e);
  }
  json_decref(doc);
  return out;
}

const json_t *rt_tuning_find(const json_t *entries, const char *variant, const char *shape) {
  size_t i;
  const json_t *e;
  json_array_foreach(entries, i, e) {
    if (field_is(e, "variant", variant) && field_is(e, "shape", shape)) return json_object_get(e, "tunables");
  }
  return NULL;
}

/* mkdir -p of path's folder. */
static bool make_parents(const char *path) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) return false;
    *p = '/';
  }
  return true;
}

static bool same_slot(const json_t *a, const json_t *b) {
  static const char *const keys[] = {"device", "op", "variant", "shape"};
  for (int i = 0; i < 4; i++) {
    const char *v = json_string_value(json_object_get(b, keys[i]));
    if (!v || !field_is(a, keys[i], v)) return false;
  }
  return true;
}

wgk_status rt_tuning_store(const char *path, const json_t *entry, util_error *err) {
  json_t *doc = rt_tuning_read(path, err);
  if (!doc) return err->status;
  json_t *entries = json_object_get(doc, "entries");
  size_t i;
  for (i = 0; i < json_array_size(entries) && !same_slot(json_array_get(entries, i), entry); i++) {}
  if (i < json_array_size(entries))
    json_array_set(entries, i, (json_t *)entry);
  else
    json_array_append(entries, (json_t *)entry);
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  bool ok = make_parents(path) && json_dump_file(doc, tmp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0;
  if (ok && rename(tmp, path) != 0) ok = false;
  if (!ok) remove(tmp);
  json_decref(doc);
  return ok ? WGK_OK : util_error_in(err, WGK_ERR_IO, path, NULL, "cannot write the tuning cache: %s", strerror(errno));
}
