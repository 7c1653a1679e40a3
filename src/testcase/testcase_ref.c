/*
 * The references a case can name ("expected": {"reference": ...}, each an op's hook in src/ops/): the case's
 * inputs are matched to the
 * reference's ONNX inputs through the manifest (a case may key an input by bind key or port name), the
 * attributes are the case's over the manifest's defaults, and the result is one or more outputs in double.
 */
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "testcase/tc_ref.h"

/* The case input feeding ONNX input `onnx`, or NULL when the case leaves it out. */
static const util_host_tensor *input_for(const manifest_model *m, const tc_case *c, util_host_tensor *const *in,
                                         const char *onnx) {
  for (size_t i = 0; i < c->n_inputs; i++) {
    const manifest_port *p = manifest_find_port_or_key(m, c->inputs[i].key);
    const char *name = p ? (p->onnx ? p->onnx : p->name) : c->inputs[i].key;
    if (strcmp(name, onnx) == 0) return in[i];
  }
  return NULL;
}

/* An attribute as a number: the case's value, else the manifest default, else dflt. */
static double attr_num(const manifest_model *m, const tc_case *c, const char *name, double dflt) {
  for (size_t i = 0; i < c->n_attrs; i++)
    if (strcmp(c->attrs[i].name, name) == 0 && json_is_number(c->attrs[i].value))
      return json_number_value(c->attrs[i].value);
  const manifest_attribute *a = manifest_find_attribute(m, name);
  if (a && a->default_value && json_is_number(a->default_value)) return json_number_value(a->default_value);
  return dflt;
}

static wgk_status add_out(tc_ref_outputs *o, const char *const *names, const util_host_tensor *like, int rank,
                          const int64_t *dims, double **values, util_error *err) {
  tc_ref_output *r = &o->out[o->n];
  size_t numel = 0;
  if (!util_host_shape_numel(rank, dims, 8, &numel) || !(*values = calloc(numel + 1, sizeof(double))))
    return util_error_oom(err, NULL, "for the reference");
  for (int i = 0; i < 2 && names[i]; i++) r->names[i] = names[i];
  r->dtype = like->dtype;
  r->rank = rank;
  memcpy(r->dims, dims, sizeof(int64_t) * (size_t)rank);
  r->values = *values;
  r->count = numel;
  o->n++;
  return WGK_OK;
}

/* The case as the op's reference sees it (src/ops/ops.h). */
typedef struct ref_io {
  ops_ref_io io; /* first: the hooks get &io */
  const manifest_model *m;
  const tc_case *c;
  util_host_tensor *const *in;
  tc_ref_outputs *o;
} ref_io;

static const util_host_tensor *io_input(const ops_ref_io *io, const char *onnx) {
  const ref_io *r = (const ref_io *)io;
  return input_for(r->m, r->c, r->in, onnx);
}

static double io_attr(const ops_ref_io *io, const char *name, double dflt) {
  const ref_io *r = (const ref_io *)io;
  return attr_num(r->m, r->c, name, dflt);
}

static wgk_status io_output(ops_ref_io *io, const char *const *names, const util_host_tensor *like, int rank,
                            const int64_t *dims, double **values, util_error *err) {
  ref_io *r = (ref_io *)io;
  if (r->o->n == WGK_TC_MAX_OUTPUTS) return util_error_plain(err, WGK_ERR_LIMIT, "the reference has too many outputs");
  return add_out(r->o, names, like, rank, dims, values, err);
}

wgk_status tc_reference_run(const manifest_model *m, const tc_case *c, util_host_tensor *const *inputs,
                            tc_ref_outputs *out, util_error *err) {
  memset(out, 0, sizeof *out);
  if (!c->reference || !c->reference->reference) return WGK_OK;
  ref_io r = {.io = {.input = io_input, .attr = io_attr, .output = io_output}, .m = m, .c = c, .in = inputs, .o = out};
  r.io.impl = &r;
  return c->reference->reference(&r.io, err);
}

void tc_ref_outputs_free(tc_ref_outputs *o) {
  for (size_t i = 0; i < o->n; i++) free(o->out[i].values);
  memset(o, 0, sizeof *o);
}
