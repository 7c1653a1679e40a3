/* A kernel's contract for callers (wgk.h, "introspection"): ports, attributes and variants as small structs built
 * once when the kernel loads and owned by it, so the accessors neither allocate nor fail. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime_internal.h"

struct rt_kernel_info {
  wgk_port_info *ports; /* per manifest port, manifest order */
  size_t n_ports;       /* number of ports */
  wgk_dtype *dtypes;    /* every port's allowed dtypes, one after another (ports[i].dtypes points in) */
  wgk_attr_info *attrs; /* per manifest attribute, manifest order */
  size_t n_attrs;       /* number of attributes */
  const char **values;  /* every attribute's allowed values as JSON texts (attrs[i].values_json points in) */
  char **texts;         /* the JSON texts made here (defaults, values), owned */
  size_t n_texts;       /* texts in use */
};

void rt_kernel_info_free(rt_kernel_info *info) {
  if (!info) return;
  for (size_t i = 0; i < info->n_texts; i++) free(info->texts[i]);
  free(info->texts);
  free(info->values);
  free(info->attrs);
  free(info->dtypes);
  free(info->ports);
  free(info);
}

/* A JSON value as compact text kept by info; NULL when out of memory. */
static const char *keep_json(rt_kernel_info *info, const json_t *v) {
  char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
  if (s) info->texts[info->n_texts++] = s;
  return s;
}

static wgk_port_dir port_dir(manifest_dir d) {
  return d == WGK_PORT_OUTPUT ? WGK_PORT_DIR_OUT : d == WGK_PORT_INPUT ? WGK_PORT_DIR_IN : WGK_PORT_DIR_INOUT;
}

wgk_status rt_kernel_info_make(const manifest_model *m, rt_kernel_info **out) {
  *out = NULL;
  size_t n_dtypes = 0, n_values = 0, n_texts = 0;
  for (size_t i = 0; i < m->n_ports; i++) n_dtypes += m->ports[i].n_dtypes;
  for (size_t i = 0; i < m->n_attributes; i++) {
    n_values += m->attributes[i].values ? m->attributes[i].n_values : 0;
    n_texts += 1 + (m->attributes[i].values ? m->attributes[i].n_values : 0);
  }
  rt_kernel_info *info = calloc(1, sizeof *info);
  if (!info) return WGK_ERR_OUT_OF_MEMORY;
  info->ports = calloc(m->n_ports ? m->n_ports : 1, sizeof *info->ports);
  info->dtypes = calloc(n_dtypes ? n_dtypes : 1, sizeof *info->dtypes);
  info->attrs = calloc(m->n_attributes ? m->n_attributes : 1, sizeof *info->attrs);
  info->values = calloc(n_values ? n_values : 1, sizeof *info->values);
  info->texts = calloc(n_texts ? n_texts : 1, sizeof *info->texts);
  bool ok = info->ports && info->dtypes && info->attrs && info->values && info->texts;
  size_t d = 0;
  for (size_t i = 0; ok && i < m->n_ports; i++) {
    const manifest_port *p = &m->ports[i];
    wgk_port_info *pi = &info->ports[i];
    pi->key = p->n_bind_keys ? p->bind_keys[0] : p->name;
    pi->onnx_name = p->onnx ? p->onnx : p->name;
    pi->dir = port_dir(p->dir);
    pi->optional = p->optional;
    pi->type_var = p->type_var ? p->type_var : "";
    pi->dtype_names = p->dtypes;
    pi->dtypes = &info->dtypes[d];
    pi->n_dtypes = p->n_dtypes;
    for (size_t k = 0; k < p->n_dtypes; k++) info->dtypes[d++] = wgk_dtype_from_name(p->dtypes[k]);
  }
  size_t v = 0;
  for (size_t i = 0; ok && i < m->n_attributes; i++) {
    const manifest_attribute *a = &m->attributes[i];
    wgk_attr_info *ai = &info->attrs[i];
    ai->name = a->name;
    ai->required = a->required;
    ai->description = a->description ? a->description : "";
    if (a->default_value && !(ai->default_json = keep_json(info, a->default_value))) ok = false;
    if (!a->values) continue;
    ai->values_json = &info->values[v];
    ai->n_values = a->n_values;
    for (size_t k = 0; ok && k < a->n_values; k++)
      if (!(info->values[v++] = keep_json(info, a->values[k]))) ok = false;
  }
  if (!ok) {
    rt_kernel_info_free(info);
    return WGK_ERR_OUT_OF_MEMORY;
  }
  info->n_ports = m->n_ports;
  info->n_attrs = m->n_attributes;
  *out = info;
  return WGK_OK;
}

size_t wgk_kernel_port_count(const wgk_kernel *k) { return k ? k->info->n_ports : 0; }

const wgk_port_info *wgk_kernel_port(const wgk_kernel *k, size_t i) {
  return k && i < k->info->n_ports ? &k->info->ports[i] : NULL;
}

const wgk_port_info *wgk_kernel_find_port(const wgk_kernel *k, const char *name) {
  if (!k || !name) return NULL;
  const manifest_port *p = manifest_find_port_or_key(k->m, name);
  return p ? &k->info->ports[p - k->m->ports] : NULL;
}

size_t wgk_kernel_attr_count(const wgk_kernel *k) { return k ? k->info->n_attrs : 0; }

const wgk_attr_info *wgk_kernel_attr(const wgk_kernel *k, size_t i) {
  return k && i < k->info->n_attrs ? &k->info->attrs[i] : NULL;
}

const wgk_attr_info *wgk_kernel_find_attr(const wgk_kernel *k, const char *name) {
  for (size_t i = 0; k && name && i < k->info->n_attrs; i++)
    if (strcmp(k->info->attrs[i].name, name) == 0) return &k->info->attrs[i];
  return NULL;
}

size_t wgk_kernel_variant_count(const wgk_kernel *k) { return k ? k->m->n_variants : 0; }

const char *wgk_kernel_variant_id(const wgk_kernel *k, size_t i) {
  return k && i < k->m->n_variants ? k->m->variants[i].id : NULL;
}
