/* `wgk explain` and `wgk render`: plan a call without running it (no GPU needed with --device FILE.json). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "gpu/gpu.h"
#include "package/package.h"
#include "package/template_loader.h"
#include "device/device_json.h"
#include "plan/plan.h"
#include "runtime/runtime_access.h"
#include "util/env.h"

typedef struct explain_opts {
  const char *pkg, *device_file, *pass_id;
  bool json;
  cli_common common; /* --adapter --version --revision --strict --verbose */
  const char *shapes[32], *dtypes[16], *attrs[32], *args[32], *tunables[32], *absents[32];
  int n_shapes, n_dtypes, n_attrs, n_args, n_tunables, n_absents;
} explain_opts;

#define PUSH(list, n, value)                                                                                           \
  do {                                                                                                                 \
    if ((n) >= (int)(sizeof(list) / sizeof(list[0])))                                                                  \
      return cli_error(cmd, "too many %s options (the limit is %d)", a, (int)(sizeof(list) / sizeof(list[0]))), false; \
    (list)[(n)++] = (value);                                                                                           \
  } while (0)

/* false after printing one line naming the option and the rule (or nothing printed: no package given). */
static bool parse(const char *cmd, int argc, char **argv, explain_opts *o) {
  memset(o, 0, sizeof *o);
  bool render = strcmp(cmd, "render") == 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int common = cli_common_option(cmd, argc, argv, &i, &o->common);
    if (common) {
      if (common < 0) return false;
      continue;
    }
    if (strcmp(a, "--json") == 0 && !render) {
      o->json = true;
      continue;
    }
    if (a[0] != '-' || !a[1]) {
      if (o->pkg) return cli_error(cmd, "unexpected argument '%s' (the package is already '%s')", a, o->pkg), false;
      o->pkg = a;
      continue;
    }
    static const char *const known[] = {"--shape",   "--dtype",  "--attr",   "--arg",
                                        "--tunable", "--absent", "--device", "--pass"};
    bool is_known = false;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) is_known = is_known || strcmp(a, known[k]) == 0;
    if (!is_known || (render && strcmp(a, "--json") == 0) || (!render && strcmp(a, "--pass") == 0))
      return cli_error(cmd,
                       "unknown option '%s' (wgk %s takes: --shape --dtype --attr --arg --tunable --absent "
                       "--device %s and the common options)",
                       a, cmd, render ? "--pass" : "--json"),
             false;
    const char *v = cli_value(cmd, argc, argv, &i);
    if (!v) return false;
    if (strcmp(a, "--shape") == 0)
      PUSH(o->shapes, o->n_shapes, v);
    else if (strcmp(a, "--dtype") == 0)
      PUSH(o->dtypes, o->n_dtypes, v);
    else if (strcmp(a, "--attr") == 0)
      PUSH(o->attrs, o->n_attrs, v);
    else if (strcmp(a, "--arg") == 0)
      PUSH(o->args, o->n_args, v);
    else if (strcmp(a, "--tunable") == 0)
      PUSH(o->tunables, o->n_tunables, v);
    else if (strcmp(a, "--absent") == 0)
      PUSH(o->absents, o->n_absents, v);
    else if (strcmp(a, "--device") == 0) {
      if (!cli_once(cmd, a, &o->device_file, v)) return false;
    } else if (!cli_once(cmd, a, &o->pass_id, v))
      return false;
  }
  if (!o->pkg) return cli_usage(cmd), false;
  return cli_kv_list_ok(cmd, "--shape", o->shapes, o->n_shapes, 128, true) &&
         cli_kv_list_ok(cmd, "--dtype", o->dtypes, o->n_dtypes, 128, false) &&
         cli_kv_list_ok(cmd, "--attr", o->attrs, o->n_attrs, 128, false) &&
         cli_kv_list_ok(cmd, "--arg", o->args, o->n_args, 128, true) &&
         cli_kv_list_ok(cmd, "--tunable", o->tunables, o->n_tunables, 128, false);
}

/* Each --dtype names a type variable of the package (listing the known ones) and a dtype it allows. */
static bool check_dtypes(const char *cmd, const explain_opts *o, const manifest_model *m, util_error *err) {
  for (int i = 0; i < o->n_dtypes; i++) {
    char var[128];
    const char *dt;
    cli_split_kv(o->dtypes[i], var, sizeof var, &dt);
    const manifest_type_constraint *tc = manifest_find_type(m, var);
    bool used = false;
    for (size_t p = 0; p < m->n_ports; p++)
      used = used || (m->ports[p].type_var && strcmp(m->ports[p].type_var, var) == 0);
    char known[1024];
    size_t n = 0;
    known[0] = 0;
    if (!tc && !used) {
      for (size_t k = 0; k < m->n_type_constraints && n < sizeof known; k++)
        n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", k ? ", " : "", m->type_constraints[k].name);
      util_error_plain(err, WGK_ERR_NOT_FOUND, "--dtype %s: %s has no type variable '%s' (known: %s)", o->dtypes[i],
                       m->op_id, var, n ? known : "none");
      return false;
    }
    bool allowed = !tc || tc->n_dtypes == 0;
    for (size_t k = 0; tc && k < tc->n_dtypes; k++) {
      allowed = allowed || strcmp(tc->dtypes[k], dt) == 0;
      if (n < sizeof known) n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", k ? ", " : "", tc->dtypes[k]);
    }
    if (!allowed) {
      util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "--dtype %s: '%s' is not a dtype %s allows (%s)", o->dtypes[i],
                       dt, var, known);
      return false;
    }
  }
  (void)cmd;
  return true;
}

/* Every --absent names a port, and not one given a --shape. */
static bool check_absent(const explain_opts *o, const manifest_model *m, const plan_tensor *ports, util_error *err) {
  for (int i = 0; i < o->n_absents; i++) {
    const manifest_port *p = manifest_find_port_or_key(m, o->absents[i]);
    if (!p) {
      util_error_plain(err, WGK_ERR_NOT_FOUND, "--absent %s: %s has no port '%s'", o->absents[i], m->op_id,
                       o->absents[i]);
      return false;
    }
    if (ports[p - m->ports].present) {
      util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "--absent %s: the port was given a --shape too", o->absents[i]);
      return false;
    }
  }
  return true;
}

static int fail(const char *cmd, const util_error *err) {
  char text[WGK_ERROR_MESSAGE_MAX + 1024];
  util_error_format(err, text, sizeof text);
  cli_error(cmd, "%s", text);
  return 1;
}

/* "K=V": V is JSON when it parses, else a bare string (cli_value_json). */
static bool put_kv(const char *cmd, const char *opt, expr_value *dict, const char *kv, util_error *err) {
  char key[128];
  const char *text;
  if (!cli_split_kv(kv, key, sizeof key, &text)) {
    util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "%s '%s' is not KEY=VALUE", opt, kv);
    return false;
  }
  long long n;
  char label[160];
  snprintf(label, sizeof label, "--tunable %s", key);
  bool tunable = strcmp(opt, "--tunable") == 0;
  if (tunable && !cli_int(cmd, label, text, -WGK_CLI_MAX_EXACT, WGK_CLI_MAX_EXACT, &n)) {
    util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "%s", "");
    return false;
  }
  char *json_text = tunable ? cli_value_json(text) : cli_value_json_checked(cmd, opt, key, text);
  if (!json_text) {
    util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "%s", "");
    return false;
  }
  json_t *j = json_text ? json_loads(json_text, JSON_DECODE_ANY, NULL) : NULL;
  free(json_text);
  expr_value *v = j ? expr_value_from_json(j, err) : NULL;
  json_decref(j);
  if (!v && !util_error_is_set(err)) util_error_oom(err, NULL, NULL);
  return v && expr_value_dict_set(dict, key, v);
}

static const char *dtype_of(const explain_opts *o, const manifest_port *port) {
  for (int i = 0; port->type_var && i < o->n_dtypes; i++) {
    size_t n = strlen(port->type_var);
    if (strncmp(o->dtypes[i], port->type_var, n) == 0 && o->dtypes[i][n] == '=') return o->dtypes[i] + n + 1;
  }
  return port->n_dtypes ? port->dtypes[0] : "float32";
}

static bool parse_shape(const explain_opts *o, const manifest_model *m, plan_tensor *ports, const char *spec,
                        util_error *err) {
  char name[128];
  const char *dims;
  const manifest_port *port = cli_split_kv(spec, name, sizeof name, &dims) ? manifest_find_port_or_key(m, name) : NULL;
  if (!port) {
    util_error_plain(err, WGK_ERR_NOT_FOUND, "--shape %s: %s has no port '%s'", spec, m->op_id, name);
    return false;
  }
  plan_tensor *t = &ports[port - m->ports];
  if (t->present) {
    util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "--shape %s: port %s given twice; give it once", spec, port->name);
    return false;
  }
  t->present = true;
  t->dtype = dtype_of(o, port);
  if (!cli_parse_shape(dims, &t->rank, t->shape, err)) {
    char at[WGK_ERROR_PATH_MAX];
    snprintf(at, sizeof at, "--shape %s", spec);
    util_error_wrap(err, util_pos_make(NULL, 0, 0), at);
    return false;
  }
  return true;
}

static bool choose_device(const explain_opts *o, device_desc *d, util_error *err) {
  if (device_desc_load(o->device_file, d, err) != WGK_OK) return false;
  uint32_t hidden; /* WGK_DISABLE_FEATURES hides features of a described device too */
  return device_features_parse(util_env(WGK_DISABLE_FEATURES_ENV), WGK_DISABLE_FEATURES_ENV, &hidden, err) == WGK_OK &&
         (d->features &= ~hidden, true);
}

static const char *port_key(const manifest_port *p) { return p->n_bind_keys ? p->bind_keys[0] : p->name; }

static void print_shape(FILE *out, int rank, const int64_t *shape) {
  fputc('[', out);
  for (int d = 0; d < rank; d++) fprintf(out, "%s%lld", d ? ", " : "", (long long)shape[d]);
  fputc(']', out);
}

/* How the plan stores its float16 ports: "f16" (native, the device has shader-f16), "packed" (two halves per u32
 * word, f32 arithmetic) or NULL (no float16 port); *ports lists them ("x, cos, sin, y"), *why says why. */
static const char *float16_form(const manifest_model *m, const device_desc *d, const plan_result *plan, char *ports,
                                size_t size, const char **why) {
  const expr_value *dtypes = expr_value_dict_get(plan->scope, "dtypes");
  bool native = false, packed = false;
  size_t len = 0;
  ports[0] = '\0';
  for (size_t i = 0; i < plan->n_passes; i++)
    for (size_t b = 0; b < plan->passes[i].n_bindings; b++) {
      const plan_binding *pb = &plan->passes[i].bindings[b];
      if (pb->port < 0 || pb->buffer == WGK_BUFFER_UNIFORM) continue;
      const manifest_port *port = &m->ports[pb->port];
      const expr_value *v = port->type_var && dtypes ? expr_value_dict_get(dtypes, port->type_var) : NULL;
      const char *dt = v ? expr_value_str(v) : port->n_dtypes == 1 ? port->dtypes[0] : NULL;
      if (!dt || (strcmp(dt, "f16") != 0 && strcmp(dt, "float16") != 0)) continue;
      bool is_packed = strcmp(pb->wgsl_type, "u32") == 0;
      native |= !is_packed;
      packed |= is_packed;
      const char *name = port_key(port);
      size_t n = strlen(name);
      bool seen = false;
      for (const char *q = strstr(ports, name); q && !seen; q = strstr(q + 1, name))
        seen = (q == ports || q[-1] == ' ') && (q[n] == ',' || q[n] == '\0');
      if (!seen && len + n + 3 < size) len += (size_t)snprintf(ports + len, size - len, "%s%s", len ? ", " : "", name);
    }
  bool has = device_has(d, WGK_FEATURE_SHADER_F16);
  *why = packed && !has ? "the device lacks shader-f16, or WGK_DISABLE_FEATURES hides it"
         : packed       ? "chosen by the variant's when, though the device has shader-f16"
                        : "the device has shader-f16";
  return packed && native ? "mixed" : packed ? "packed" : native ? "f16" : NULL;
}

static void print_text(const manifest_model *m, const pkg_package *pkg, const device_desc *d, const plan_result *plan) {
  printf("kernel   %s (%s)\n", m->op_id, pkg_is_verified(pkg) ? "verified" : "unverified");
  printf("device   %s [%s, %s]\n", d->device[0] ? d->device : "described device", d->vendor, d->backend);
  printf("variant  %s\n", plan->variant->id);
  if (plan->rejections[0]) {
    printf("rejected\n");
    for (const char *line = plan->rejections; *line;) {
      const char *nl = strchr(line, '\n');
      int n = nl ? (int)(nl - line) : (int)strlen(line);
      printf("  %.*s\n", n, line);
      line += n + (nl ? 1 : 0);
    }
  }
  char ports[256];
  const char *why, *form = float16_form(m, d, plan, ports, sizeof ports, &why);
  if (form)
    printf("float16  %s: %s (%s)\n",
           strcmp(form, "f16") == 0 ? "f16 storage and arithmetic"
                                    : "packed storage, two halves per u32 word (pack2x16float), f32 arithmetic",
           ports, why);
  printf("outputs\n");
  for (size_t i = 0; i < plan->n_outputs; i++) {
    const plan_output *o = &plan->outputs[i];
    printf("  %s (%s): %s ", m->ports[o->port].name, port_key(&m->ports[o->port]), o->dtype ? o->dtype : "?");
    print_shape(stdout, o->rank, o->shape);
    printf("\n");
  }
  for (size_t i = 0; i < plan->n_intermediates; i++) {
    const plan_intermediate *it = &plan->intermediates[i];
    printf("scratch  %s: %s ", it->source->id, it->dtype);
    print_shape(stdout, it->rank, it->shape);
    printf(" (%llu bytes%s)\n", (unsigned long long)it->bytes, it->zero_init ? ", zeroed every call" : "");
  }
  for (size_t i = 0; i < plan->n_passes; i++) {
    const plan_pass *p = &plan->passes[i];
    printf("pass     %s (%s, %s)\n", p->id ? p->id : p->source->id, p->source->name, p->source->shader);
    printf("  dispatch %u x %u x %u%s\n", p->workgroups[0], p->workgroups[1], p->workgroups[2],
           p->skip ? " (skipped: empty)" : "");
    if (p->uniform_text) printf("  uniform  %s\n", p->uniform_text);
  }
}

/* The tunables the plan used, and where they came from (as `wgk run --verbose` prints them). */
static void print_tunables(const plan_result *plan, int tuned) {
  const expr_value *t = expr_value_dict_get(plan->scope, "tunables");
  if (!expr_value_len(t)) return;
  printf("tunables");
  for (size_t i = 0; i < expr_value_len(t); i++)
    printf(" %s=%lld", expr_value_dict_key_at(t, i), (long long)expr_value_as_int(expr_value_dict_value_at(t, i)));
  printf(" (%s)\n", tuned < 0 ? "call and manifest defaults; a described device reads no tuning cache"
                    : tuned   ? "tuning cache"
                              : "call and manifest defaults");
}

static json_t *tunables_json(const plan_result *plan) {
  const expr_value *t = expr_value_dict_get(plan->scope, "tunables");
  json_t *o = json_object();
  for (size_t i = 0; o && i < expr_value_len(t); i++)
    json_object_set_new(o, expr_value_dict_key_at(t, i),
                        json_integer(expr_value_as_int(expr_value_dict_value_at(t, i))));
  return o;
}

static json_t *shape_json(int rank, const int64_t *shape) {
  json_t *a = json_array();
  for (int d = 0; d < rank; d++) json_array_append_new(a, json_integer(shape[d]));
  return a;
}

static json_t *scratch_json(const plan_result *plan) {
  json_t *scratch = json_array();
  for (size_t i = 0; i < plan->n_intermediates; i++) {
    const plan_intermediate *it = &plan->intermediates[i];
    json_t *j = json_object();
    json_object_set_new(j, "id", json_string(it->source->id));
    json_object_set_new(j, "dtype", json_string(it->dtype));
    json_object_set_new(j, "shape", shape_json(it->rank, it->shape));
    json_object_set_new(j, "bytes", json_integer((json_int_t)it->bytes));
    json_object_set_new(j, "zeroInit", json_boolean(it->zero_init));
    json_array_append_new(scratch, j);
  }
  return scratch;
}

/* A JSON string of n bytes of text; bytes that are not valid UTF-8 (a message cut mid-character) become '?'. */
static json_t *text_json(const char *text, size_t n) {
  json_t *j = json_stringn(text, n);
  if (j) return j;
  char *copy = malloc(n + 1);
  if (!copy) return NULL;
  for (size_t i = 0; i < n; i++) copy[i] = (unsigned char)text[i] < 0x80 ? text[i] : '?';
  j = json_stringn(copy, n);
  free(copy);
  return j;
}

/* --json: the plan as one object on stdout; 0, or 1 after printing why not. */
static int print_json(const manifest_model *m, const device_desc *d, const plan_result *plan, int tuned) {
  json_t *root = json_object(), *rejected = json_array(), *outs = json_array(), *passes = json_array();
  json_object_set_new(root, "kernel", json_string(m->op_id));
  json_object_set_new(root, "variant", json_string(plan->variant->id));
  char ports[256];
  const char *why, *form = float16_form(m, d, plan, ports, sizeof ports, &why);
  if (form) {
    json_t *f = json_object();
    json_object_set_new(f, "form", json_string(form));
    json_object_set_new(f, "ports", json_string(ports));
    json_object_set_new(f, "why", json_string(why));
    json_object_set_new(root, "float16", f);
  }
  for (const char *line = plan->rejections; *line;) {
    const char *nl = strchr(line, '\n');
    size_t n = nl ? (size_t)(nl - line) : strlen(line);
    const char *colon = memchr(line, ':', n);
    size_t id_len = colon ? (size_t)(colon - line) : n;
    size_t skip = colon ? id_len + 1 + (id_len + 1 < n && line[id_len + 1] == ' ') : 0; /* "id: reason"; never past n */
    json_t *r = json_object();
    json_object_set_new(r, "id", text_json(line, id_len));
    json_object_set_new(r, "reason", text_json(line + skip, n - skip));
    json_array_append_new(rejected, r);
    line += n + (nl ? 1 : 0);
  }
  for (size_t i = 0; i < plan->n_outputs; i++) {
    const plan_output *o = &plan->outputs[i];
    json_t *j = json_object();
    json_object_set_new(j, "port", json_string(m->ports[o->port].name));
    json_object_set_new(j, "key", json_string(port_key(&m->ports[o->port])));
    json_object_set_new(j, "dtype", json_string(o->dtype ? o->dtype : ""));
    json_object_set_new(j, "shape", shape_json(o->rank, o->shape));
    json_array_append_new(outs, j);
  }
  for (size_t i = 0; i < plan->n_passes; i++) {
    const plan_pass *p = &plan->passes[i];
    json_t *j = json_object(), *wg = json_array();
    json_object_set_new(j, "id", json_string(p->id ? p->id : p->source->id));
    json_object_set_new(j, "shader", json_string(p->source->shader));
    for (int k = 0; k < 3; k++) json_array_append_new(wg, json_integer(p->workgroups[k]));
    json_object_set_new(j, "workgroups", wg);
    json_object_set_new(j, "uniform", json_string(p->uniform_text ? p->uniform_text : ""));
    json_array_append_new(passes, j);
  }
  json_object_set_new(root, "rejected", rejected);
  json_object_set_new(root, "outputs", outs);
  json_object_set_new(root, "intermediates", scratch_json(plan));
  json_object_set_new(root, "passes", passes);
  json_object_set_new(root, "tunables", tunables_json(plan));
  json_object_set_new(root, "tunablesFrom",
                      json_string(tuned < 0 ? "described device"
                                  : tuned   ? "tuning cache"
                                            : "defaults"));
  return cli_print_json("explain", root, 0);
}

/* The plan shown (explain) or its WGSL written (render). tuned: -1 for a described device (no tuning cache is
 * consulted for a device wgk does not run on), else whether the tuning cache's tunables were taken. */
static int show(const explain_opts *o, const manifest_model *m, const pkg_package *pkg, const device_desc *d,
                const plan_result *plan, int tuned, bool render) {
  if (!render) {
    if (o->json) return print_json(m, d, plan, tuned);
    print_text(m, pkg, d, plan);
    print_tunables(plan, tuned);
    return 0;
  }
  int rc = o->pass_id ? 1 : 0;
  for (size_t i = 0; i < plan->n_passes; i++) {
    if (o->pass_id && strcmp(o->pass_id, plan->passes[i].id ? plan->passes[i].id : plan->passes[i].source->id) != 0)
      continue;
    if (!o->pass_id && plan->n_passes > 1)
      printf("// pass %s\n", plan->passes[i].id ? plan->passes[i].id : plan->passes[i].source->id);
    fputs(plan->passes[i].wgsl, stdout);
    rc = 0;
  }
  if (rc) cli_say("wgk render: variant %s has no pass '%s'\n", plan->variant->id, o->pass_id);
  return rc;
}

/* The call's ports, attributes, args and tunables from the command line. */
typedef struct call_values {
  plan_tensor *ports;
  expr_value *attrs, *args, *tunables;
} call_values;

static bool values_make(const char *cmd, const explain_opts *o, const manifest_model *m, call_values *v,
                        util_error *err) {
  v->ports = calloc(m->n_ports ? m->n_ports : 1, sizeof *v->ports);
  v->attrs = expr_value_dict(), v->args = expr_value_dict(), v->tunables = expr_value_dict();
  if (!v->ports || !v->attrs || !v->args || !v->tunables) return util_error_oom(err, NULL, cmd), false;
  bool ok = check_dtypes(cmd, o, m, err);
  for (int i = 0; ok && i < o->n_shapes; i++) ok = parse_shape(o, m, v->ports, o->shapes[i], err);
  ok = ok && check_absent(o, m, v->ports, err);
  for (int i = 0; ok && i < o->n_attrs; i++) ok = put_kv(cmd, "--attr", v->attrs, o->attrs[i], err);
  for (int i = 0; ok && i < o->n_args; i++) ok = put_kv(cmd, "--arg", v->args, o->args[i], err);
  for (int i = 0; ok && i < o->n_tunables; i++) ok = put_kv(cmd, "--tunable", v->tunables, o->tunables[i], err);
  return ok;
}

static void values_free(call_values *v) {
  expr_value_release(v->attrs);
  expr_value_release(v->args);
  expr_value_release(v->tunables);
  free(v->ports);
}

/* A device description (--device FILE): planned here on the package alone, there being no device to run on. */
static int plan_described(const char *cmd, const explain_opts *o, bool render) {
  util_error err;
  util_error_clear(&err);
  pkg_options po = {.strict = o->common.strict,
                    .version = o->common.version,
                    .revision = o->common.revision,
                    .trust_remote_code = o->common.trust_remote_code,
                    .log = &cli_log_sink};
  pkg_package *pkg = NULL;
  if (pkg_open(o->pkg, &po, &pkg, &err) != WGK_OK) return fail(cmd, &err);
  if (pkg_warning(pkg)) cli_say("wgk: %s\n", pkg_warning(pkg));
  const manifest_model *m = pkg_manifest(pkg);
  call_values v = {0};
  device_desc desc;
  plan_planner *planner = NULL;
  plan_result *plan = NULL;
  bool ok = values_make(cmd, o, m, &v, &err) && choose_device(o, &desc, &err);
  tmpl_loader loader = pkg_template_loader(pkg);
  ok = ok && plan_planner_create(m, &loader, &desc, &planner, &err) == WGK_OK;
  plan_call call = {.ports = v.ports, .attrs = v.attrs, .args = v.args, .tunables = v.tunables};
  ok = ok && plan_make(planner, &call, &plan, &err) == WGK_OK;
  if (!ok && err.status == WGK_ERR_NO_VARIANT) rt_host_check_headline(m, v.ports, v.attrs, &err);
  int rc = !ok ? (err.message[0] ? fail(cmd, &err) : 1) : show(o, m, pkg, &desc, plan, -1, render);
  plan_free(plan);
  plan_planner_free(planner);
  values_free(&v);
  pkg_free(pkg);
  return rc;
}

/* This machine's device: through the library, as a program's wgk_call_run plans (rt_call_explain): the same load
 * policy, plan cache, tuning cache and refusal policy. */
static int plan_on_device(const char *cmd, const explain_opts *o, bool render) {
  wgk_context_options co = {.adapter = o->common.adapter, .verbose = o->common.verbose};
  wgk_context *ctx = NULL;
  char *msg = NULL;
  if (wgk_context_create(&co, &ctx, &msg) != WGK_OK) {
    cli_error(cmd, "%s", msg ? msg : "cannot create a context");
    free(msg);
    return 1;
  }
  wgk_kernel_options ko = {.version = o->common.version,
                           .revision = o->common.revision,
                           .strict = o->common.strict,
                           .trust_remote_code = o->common.trust_remote_code};
  wgk_kernel *k = NULL;
  wgk_call *call = NULL;
  call_values v = {0};
  util_error err;
  util_error_clear(&err);
  int rc = 1;
  if (wgk_kernel_load(ctx, o->pkg, &ko, &k) != WGK_OK) {
    cli_error(cmd, "%s", wgk_context_errmsg(ctx));
  } else {
    if (wgk_kernel_warning(k)) cli_say("wgk: %s\n", wgk_kernel_warning(k));
    const manifest_model *m = rt_kernel_manifest(k);
    const plan_result *plan = NULL;
    bool tuned = false;
    if (!values_make(cmd, o, m, &v, &err))
      rc = err.message[0] ? fail(cmd, &err) : 1;
    else if (wgk_call_create(k, &call) != WGK_OK ||
             rt_call_explain(call, v.ports, v.attrs, v.args, v.tunables, &plan, &tuned) != WGK_OK)
      cli_error(cmd, "%s", wgk_context_errmsg(ctx));
    else
      rc = show(o, m, rt_kernel_package(k), rt_context_device_desc(ctx), plan, tuned, render);
  }
  values_free(&v);
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
  return rc;
}

static int run_plan(const char *cmd, int argc, char **argv, bool render) {
  explain_opts o;
  if (!parse(cmd, argc, argv, &o)) return 2;
  if (!o.device_file) return plan_on_device(cmd, &o, render);
  /* a device description must be a regular file: not a folder, FIFO or device */
  struct stat sb;
  if (stat(o.device_file, &sb) != 0) return cli_error(cmd, "--device %s: %s", o.device_file, strerror(errno)), 1;
  if (!S_ISREG(sb.st_mode))
    return cli_error(cmd, "--device %s: not a regular file (a device description is a JSON file)", o.device_file), 1;
  return plan_described(cmd, &o, render);
}

int cli_cmd_explain(int argc, char **argv) { return run_plan("explain", argc, argv, false); }
int cli_cmd_render(int argc, char **argv) { return run_plan("render", argc, argv, true); }
