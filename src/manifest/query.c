/* Look-ups on a loaded manifest. Linear scans: manifests hold tens of parts, not thousands. */
#include <string.h>
#include "util/dtype.h"

#include "manifest/manifest.h"

const manifest_port *manifest_find_port(const manifest_model *m, const char *name) {
  for (size_t i = 0; m && name && i < m->n_ports; i++)
    if (strcmp(m->ports[i].name, name) == 0) return &m->ports[i];
  return NULL;
}

const manifest_port *manifest_find_bind_key(const manifest_model *m, const char *key) {
  for (size_t i = 0; m && key && i < m->n_ports; i++)
    for (size_t k = 0; k < m->ports[i].n_bind_keys; k++)
      if (strcmp(m->ports[i].bind_keys[k], key) == 0) return &m->ports[i];
  return NULL;
}

const manifest_port *manifest_find_port_or_key(const manifest_model *m, const char *name) {
  const manifest_port *p = manifest_find_bind_key(m, name);
  if (!p) p = manifest_find_port(m, name);
  /* spec 2.1 names a port by its key only; its ONNX name (the seed's port name) is accepted last, so
   * test.json files and callers written against the seed keep working */
  for (size_t i = 0; !p && m && name && m->format == WGK_MANIFEST_SPEC21 && i < m->n_ports; i++)
    if (m->ports[i].onnx && strcmp(m->ports[i].onnx, name) == 0) p = &m->ports[i];
  return p;
}

const manifest_attribute *manifest_find_attribute(const manifest_model *m, const char *name) {
  for (size_t i = 0; m && name && i < m->n_attributes; i++)
    if (strcmp(m->attributes[i].name, name) == 0) return &m->attributes[i];
  return NULL;
}

const manifest_type_constraint *manifest_find_type(const manifest_model *m, const char *type_var) {
  for (size_t i = 0; m && type_var && i < m->n_type_constraints; i++)
    if (strcmp(m->type_constraints[i].name, type_var) == 0) return &m->type_constraints[i];
  return NULL;
}

const manifest_variant *manifest_find_variant(const manifest_model *m, const char *id) {
  for (size_t i = 0; m && id && i < m->n_variants; i++)
    if (strcmp(m->variants[i].id, id) == 0) return &m->variants[i];
  return NULL;
}

const manifest_intermediate *manifest_find_intermediate(const manifest_variant *v, const char *id) {
  for (size_t i = 0; v && id && i < v->n_intermediates; i++)
    if (strcmp(v->intermediates[i].id, id) == 0) return &v->intermediates[i];
  return NULL;
}

bool manifest_dtype_known(const char *dtype) { return util_dtype_info_named(dtype) != NULL; }
