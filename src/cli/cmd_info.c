/* `wgk info PKG [--json]`: the kernel card's facts from the manifest, without a GPU. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "package/package.h"

static void print_json_inline(const json_t *v) {
  char *text = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
  printf("%s", text ? text : "(none)");
  free(text);
}

static void print_ports(const manifest_model *m) {
  printf("ports:\n");
  static const char *const dirs[] = {"input", "output", "in/out"};
  for (size_t i = 0; i < m->n_ports; i++) {
    const manifest_port *p = &m->ports[i];
    printf("  %-7s %s", dirs[p->dir], p->onnx ? p->onnx : p->name);
    printf("  keys:");
    for (size_t k = 0; k < p->n_bind_keys; k++) printf(" %s", p->bind_keys[k]);
    if (p->n_bind_keys == 0) printf(" (none)");
    printf("  dtype %s {", p->type_var ? p->type_var : "?");
    for (size_t d = 0; d < p->n_dtypes; d++) printf("%s%s", d ? ", " : "", p->dtypes[d]);
    printf("}");
    if (p->storage_dtype)
      printf("  stored as %s (%s)", p->storage_dtype,
             p->narrowing == WGK_NARROW_CHECKED      ? "checked"
             : p->narrowing == WGK_NARROW_SATURATING ? "saturating"
                                                     : "-");
    if (p->has_rank && !p->rank_expr.text) printf("  rank %d", p->rank);
    if (p->rank_expr.text) printf("  rank %s", p->rank_expr.text);
    if (p->shape.text) printf("  shape %s", p->shape.text);
    if (p->optional) printf("  optional");
    printf("\n");
    if (p->description[0]) printf("          %s\n", p->description);
  }
}

static void print_attributes(const manifest_model *m) {
  printf("attributes:\n");
  if (m->n_attributes == 0) printf("  (none)\n");
  for (size_t i = 0; i < m->n_attributes; i++) {
    const manifest_attribute *a = &m->attributes[i];
    printf("  %s  default ", a->name);
    print_json_inline(a->default_value);
    if (a->values) {
      printf("  values {");
      for (size_t v = 0; v < a->n_values; v++) {
        printf("%s", v ? ", " : "");
        print_json_inline(a->values[v]);
      }
      printf("}");
    }
    if (a->required) printf("  required");
    printf("\n");
    if (a->description[0]) printf("      %s\n", a->description);
  }
}

static void print_variants(const manifest_model *m) {
  printf("tunables:");
  for (size_t i = 0; i < m->n_tunables; i++) {
    printf(" %s=", m->tunables[i].name);
    print_json_inline(m->tunables[i].default_value);
  }
  printf("%s\nvariants:\n", m->n_tunables ? "" : " (none)");
  for (size_t i = 0; i < m->n_variants; i++) {
    const manifest_variant *v = &m->variants[i];
    printf("  %s  (priority %g)\n", v->id, v->priority);
    for (size_t w = 0; w < v->n_when; w++) printf("    when  %s\n", v->when[w].text);
    for (size_t p = 0; p < v->n_passes; p++) {
      const manifest_pass *ps = &v->passes[p];
      const manifest_dispatch *d = &ps->dispatch;
      printf("    pass  %s: %s, bindings %s, dispatch ", ps->id, ps->shader, ps->bindings ? ps->bindings->name : "?");
      if (d->kind == WGK_DISPATCH_THREADS)
        printf("threads %s / workgroup %s\n", d->threads.text, d->workgroup_size.text);
      else if (d->kind == WGK_DISPATCH_WORKGROUPS)
        printf("workgroups %s\n", d->workgroups.text);
      else
        printf("x %s, y %s, z %s\n", d->x.text, d->y.text ? d->y.text : "1", d->z.text ? d->z.text : "1");
    }
  }
}

/* --json: the same facts as one object (docs: wgk info --help). */
static json_t *info_json(pkg_package *pkg) {
  const manifest_model *m = pkg_manifest(pkg);
  static const char *const dirs[] = {"input", "output", "inout"};
  json_t *ports = json_array(), *attrs = json_array(), *tunables = json_object(), *variants = json_array();
  for (size_t i = 0; i < m->n_ports; i++) {
    const manifest_port *p = &m->ports[i];
    json_t *keys = json_array(), *dtypes = json_array();
    for (size_t k = 0; k < p->n_bind_keys; k++) json_array_append_new(keys, json_string(p->bind_keys[k]));
    for (size_t d = 0; d < p->n_dtypes; d++) json_array_append_new(dtypes, json_string(p->dtypes[d]));
    json_t *o = json_pack("{s:s, s:s, s:s?, s:o, s:s?, s:o, s:b, s:s}", "dir", dirs[p->dir], "name", p->name, "onnx",
                          p->onnx, "keys", keys, "typeVar", p->type_var, "dtypes", dtypes, "optional", p->optional,
                          "description", p->description);
    if (p->rank_expr.text)
      json_object_set_new(o, "rank", json_string(p->rank_expr.text));
    else if (p->has_rank)
      json_object_set_new(o, "rank", json_integer(p->rank));
    if (p->shape.text) json_object_set_new(o, "shape", json_string(p->shape.text));
    json_array_append_new(ports, o);
  }
  for (size_t i = 0; i < m->n_attributes; i++) {
    const manifest_attribute *a = &m->attributes[i];
    json_t *values = a->values ? json_array() : json_null();
    for (size_t v = 0; a->values && v < a->n_values; v++) json_array_append_new(values, json_deep_copy(a->values[v]));
    json_array_append_new(attrs, json_pack("{s:s, s:o?, s:o, s:b, s:s}", "name", a->name, "default",
                                           a->default_value ? json_deep_copy(a->default_value) : NULL, "values", values,
                                           "required", a->required, "description", a->description));
  }
  for (size_t i = 0; i < m->n_tunables; i++)
    json_object_set_new(tunables, m->tunables[i].name,
                        m->tunables[i].default_value ? json_deep_copy(m->tunables[i].default_value) : json_null());
  for (size_t i = 0; i < m->n_variants; i++) {
    const manifest_variant *v = &m->variants[i];
    json_t *when = json_array(), *passes = json_array();
    for (size_t w = 0; w < v->n_when; w++) json_array_append_new(when, json_string(v->when[w].text));
    for (size_t p = 0; p < v->n_passes; p++)
      json_array_append_new(passes, json_pack("{s:s, s:s}", "id", v->passes[p].id, "shader", v->passes[p].shader));
    json_array_append_new(variants, json_pack("{s:s, s:f, s:o, s:o}", "id", v->id, "priority", v->priority, "when",
                                              when, "passes", passes));
  }
  json_t *doc = json_pack("{s:s, s:i, s:s, s:b, s:s}", "opId", m->op_id, "sinceVersion", m->since_version, "package",
                          pkg_root(pkg), "verified", pkg_is_verified(pkg), "description", m->description);
  if (!doc) return NULL;
  if (pkg_version(pkg)) json_object_set_new(doc, "version", json_integer(pkg_version(pkg)));
  if (pkg_revision(pkg)) json_object_set_new(doc, "revision", json_string(pkg_revision(pkg)));
  if (pkg_warning(pkg)) json_object_set_new(doc, "warning", json_string(pkg_warning(pkg)));
  json_object_set_new(doc, "ports", ports);
  json_object_set_new(doc, "attributes", attrs);
  json_object_set_new(doc, "tunables", tunables);
  json_object_set_new(doc, "variants", variants);
  return doc;
}

int cli_cmd_info(int argc, char **argv) {
  cli_common o = {0};
  const char *pkg_name = NULL;
  bool as_json = false;
  for (int i = 1; i < argc; i++) {
    int r = cli_common_option("info", argc, argv, &i, &o);
    if (r < 0) return 2;
    if (r == 0 && strcmp(argv[i], "--json") == 0) {
      as_json = true;
      continue;
    }
    if (r == 0 && argv[i][0] == '-' && argv[i][1])
      return cli_error("info", "unknown option '%s' (wgk info PKG [--json] [--version N | --revision SHA] [--strict])",
                       argv[i]),
             2;
    if (r == 0 && pkg_name)
      return cli_error("info", "unexpected argument '%s' (the package is already '%s')", argv[i], pkg_name), 2;
    if (r == 0) pkg_name = argv[i];
  }
  if (!pkg_name) return cli_usage("info");
  pkg_options po = {.strict = o.strict,
                    .version = o.version,
                    .revision = o.revision,
                    .trust_remote_code = o.trust_remote_code,
                    .log = &cli_log_sink};
  pkg_package *pkg = NULL;
  util_error err = {0};
  if (pkg_open(pkg_name, &po, &pkg, &err) != WGK_OK) {
    char text[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(&err, text, sizeof text);
    cli_error("info", "%s", text);
    return 1;
  }
  if (as_json) {
    int rc = cli_print_json("info", info_json(pkg), 0);
    pkg_free(pkg);
    return rc;
  }
  const manifest_model *m = pkg_manifest(pkg);
  printf("%s  (ONNX since opset %d)\n", m->op_id, m->since_version);
  printf("package: %s\n", pkg_root(pkg));
  if (pkg_version(pkg)) printf("version: %d\n", pkg_version(pkg));
  if (pkg_revision(pkg)) printf("revision: %s\n", pkg_revision(pkg));
  printf("verified: %s\n", pkg_is_verified(pkg) ? "yes (metadata.json digests)" : "no");
  if (pkg_warning(pkg)) printf("warning: %s\n", pkg_warning(pkg));
  if (m->description[0]) printf("\n%s\n\n", m->description);
  print_ports(m);
  print_attributes(m);
  print_variants(m);
  pkg_free(pkg);
  return 0;
}
