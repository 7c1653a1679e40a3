/*
 * One test case against a loaded kernel: requirements, inputs, call, outputs compared in double.
 * Everything that goes wrong with the kernel becomes a FAIL verdict with a message; only the harness's
 * own failures (out of memory) return an error status.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_desc.h"
#include "runtime/runtime_access.h"
#include "testcase/tc_ref.h"

__attribute__((format(printf, 3, 4))) static void verdict(tc_outcome *o, tc_verdict v, const char *fmt, ...) {
  o->verdict = v;
  util_error_clear(&o->why); /* the last verdict stands */
  va_list ap;
  va_start(ap, fmt);
  util_error_atv(&o->why,
                 v == WGK_TC_FAIL   ? WGK_ERR_CALL
                 : v == WGK_TC_SKIP ? WGK_ERR_UNSUPPORTED
                                    : WGK_OK,
                 util_pos_make(NULL, 0, 0), NULL, fmt, ap);
  va_end(ap);
}

wgk_status tc_upload(wgk_context *ctx, const util_host_tensor *h, wgk_tensor **out) {
  wgk_dtype d = wgk_dtype_from_name(wgk_dtype_name(h->dtype));
  return wgk_tensor_create(ctx, d, h->rank, h->dims, h->data, out);
}

wgk_status tc_download(wgk_tensor *t, util_host_tensor **out) {
  *out = NULL;
  wgk_dtype d = wgk_dtype_from_name(wgk_dtype_name(wgk_tensor_dtype(t)));
  util_host_tensor *h = NULL;
  wgk_status st = util_host_tensor_create(d, wgk_tensor_rank(t), wgk_tensor_shape(t), &h);
  if (!st && util_host_tensor_bytes(h) > 0) st = wgk_tensor_read(t, h->data, util_host_tensor_bytes(h));
  if (st)
    util_host_tensor_free(h);
  else
    *out = h;
  return st;
}

/* SKIP when the device lacks a feature the case requires. */
static bool lacks_feature(wgk_kernel *k, const tc_case *c, tc_outcome *o) {
  const device_desc *dev = rt_context_device_desc(rt_kernel_context(k));
  for (size_t i = 0; i < c->n_requires; i++) {
    device_feature f;
    if (!device_feature_from_name(c->requires[i], &f) || !device_has(dev, f)) {
      verdict(o, WGK_TC_SKIP, "device lacks %s", c->requires[i]);
      return true;
    }
  }
  return false;
}

static char *json_text(const json_t *v) { return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT); }

wgk_status tc_set_values(wgk_call *call, const tc_value *attrs, size_t n_attrs, const tc_value *args, size_t n_args,
                         const tc_value *tunables, size_t n_tunables) {
  wgk_status st = WGK_OK;
  for (size_t i = 0; i < n_attrs + n_args && !st; i++) {
    bool attr = i < n_attrs;
    const tc_value *v = attr ? &attrs[i] : &args[i - n_attrs];
    char *text = json_text(v->value);
    st = !text  ? WGK_ERR_OUT_OF_MEMORY
         : attr ? wgk_call_set_attr_json(call, v->name, text)
                : wgk_call_set_arg_json(call, v->name, text);
    free(text);
  }
  for (size_t i = 0; i < n_tunables && !st; i++)
    st = wgk_call_set_tunable(call, tunables[i].name, json_integer_value(tunables[i].value));
  return st;
}

/* Inputs, absent ports, attributes, args and tunables onto the call; a refusal is the context's message. */
static wgk_status set_call(wgk_call *call, const tc_case *c, wgk_tensor **tensors) {
  wgk_status st = WGK_OK;
  for (size_t i = 0; i < c->n_inputs && !st; i++) st = wgk_call_set_input(call, c->inputs[i].key, tensors[i]);
  for (size_t i = 0; i < c->n_absent && !st; i++) st = wgk_call_set_input(call, c->absent[i], NULL);
  return st ? st : tc_set_values(call, c->attrs, c->n_attrs, c->args, c->n_args, c->tunables, c->n_tunables);
}

/* The dtype of an inline expected output that does not say: the first floating-point input's. */
static wgk_dtype guess_dtype(const tc_case *c) {
  for (size_t i = 0; i < c->n_inputs; i++)
    if (c->inputs[i].dtype == WGK_DTYPE_FLOAT32 || c->inputs[i].dtype == WGK_DTYPE_FLOAT16) return c->inputs[i].dtype;
  return WGK_DTYPE_INVALID;
}

/* An expected output from a .npy file of the package: its values, its shape, and (unless the case gives one) its
 * dtype as the output's. */
static wgk_status npy_expected(pkg_package *pkg, const tc_expected *e, const char *source, tc_ref_output *r,
                               util_error *err) {
  util_host_tensor *t = NULL;
  wgk_status st = tc_expected_load(e, pkg, source, &t, err);
  if (st) return st;
  r->dtype = e->dtype != WGK_DTYPE_INVALID ? e->dtype : t->dtype;
  r->rank = t->rank;
  memcpy(r->dims, t->dims, sizeof r->dims);
  r->count = util_host_tensor_numel(t);
  r->values = malloc(sizeof(double) * (r->count + 1));
  if (r->values)
    util_host_tensor_to_double(t, r->values);
  else
    st = util_error_oom(err, source, e->pos.path);
  util_host_tensor_free(t);
  return st;
}

static wgk_status inline_expected(pkg_package *pkg, const tc_case *c, const char *source, tc_ref_outputs *w,
                                  util_error *err) {
  for (size_t i = 0; i < c->n_expected && i < WGK_TC_MAX_OUTPUTS; i++) {
    const tc_expected *e = &c->expected[i];
    tc_ref_output *r = &w->out[w->n++];
    r->names[0] = e->key;
    if (e->npy) {
      wgk_status st = npy_expected(pkg, e, source, r, err);
      if (st) return st;
      continue;
    }
    r->dtype = e->dtype != WGK_DTYPE_INVALID ? e->dtype : guess_dtype(c);
    r->rank = e->rank;
    memcpy(r->dims, e->dims, sizeof r->dims);
    wgk_status st = tc_expected_values(e, source, &r->values, &r->count, err);
    if (st) return st;
  }
  return WGK_OK;
}

/* Caller-owned outputs filled with all-ones bits (NaN for floats) for every expected output of known shape
 * that is a pure output port (in/out ports hold input data). */
static wgk_status poison_outputs(wgk_kernel *k, wgk_call *call, const tc_ref_outputs *w) {
  for (size_t i = 0; i < w->n; i++) {
    const tc_ref_output *r = &w->out[i];
    const manifest_port *p = manifest_find_port_or_key(rt_kernel_manifest(k), r->names[0]);
    if (!p || p->dir != WGK_PORT_OUTPUT || r->rank < 0 || r->dtype == WGK_DTYPE_INVALID) continue;
    util_host_tensor *h = NULL;
    wgk_tensor *t = NULL;
    wgk_status st = util_host_tensor_create(r->dtype, r->rank, r->dims, &h);
    if (!st) memset(h->data, 0xff, util_host_tensor_bytes(h));
    if (!st) st = tc_upload(rt_kernel_context(k), h, &t);
    if (!st) st = wgk_call_set_output(call, r->names[0], t);
    wgk_tensor_release(t);
    util_host_tensor_free(h);
    if (st) return st;
  }
  return WGK_OK;
}

/* %.9g, but NaN always as "nan" (glibc prints a negative NaN's sign). */
static const char *num(double v, char *buf, size_t size) {
  if (isnan(v))
    snprintf(buf, size, "nan");
  else
    snprintf(buf, size, "%.9g", v);
  return buf;
}

/* Reads one output and compares; false (with the message set) on a mismatch. */
static bool judge_output(wgk_call *call, const tc_case *c, const tc_ref_output *r, tc_outcome *o) {
  wgk_tensor *t = wgk_call_output(call, r->names[0]);
  if (!t && r->names[1]) t = wgk_call_output(call, r->names[1]);
  util_host_tensor *h = NULL;
  if (!t) return verdict(o, WGK_TC_FAIL, "no output '%s' after the run", r->names[0]), false;
  if (tc_download(t, &h) != WGK_OK)
    return verdict(o, WGK_TC_FAIL, "output %s: read back failed: %s", r->names[0],
                   wgk_context_errmsg(rt_tensor_context(t))),
           false;
  size_t n = util_host_tensor_numel(h);
  double *got = malloc(sizeof(double) * (n + 1));
  bool ok = got && n == r->count;
  if (!got)
    verdict(o, WGK_TC_FAIL, "%s", wgk_status_str(WGK_ERR_OUT_OF_MEMORY));
  else if (!ok)
    verdict(o, WGK_TC_FAIL, "output %s: %zu elements, expected %zu", r->names[0], n, r->count);
  if (ok) {
    util_host_tensor_to_double(h, got);
    tc_tolerance tol = c->tol[h->dtype];
    tc_compare_result cr;
    tc_compare(got, r->values, n, tol, &cr);
    if (cr.max_abs > o->max_abs) o->max_abs = cr.max_abs;
    if (cr.max_rel > o->max_rel) o->max_rel = cr.max_rel;
    if (o->tol_dtype == WGK_DTYPE_INVALID || cr.used > o->used) {
      o->used = cr.used > o->used ? cr.used : o->used;
      o->tol = tol;
      o->tol_dtype = h->dtype;
    }
    if (!cr.pass) {
      char idx[160], g[32], w[32];
      tc_unravel(cr.worst, h->rank, h->dims, idx, sizeof idx);
      verdict(o, WGK_TC_FAIL,
              "%s: worst element [%zu] %s got %s want %s (%s rtol %g atol %g); %zu of %zu outside, %zu non-finite",
              r->names[0], cr.worst, idx, num(cr.worst_got, g, sizeof g), num(cr.worst_want, w, sizeof w),
              wgk_dtype_name(h->dtype), tol.rtol, tol.atol, cr.n_bad, n, cr.n_nonfinite);
      ok = false;
    }
  }
  free(got);
  util_host_tensor_free(h);
  return ok;
}

/* Runs the call and judges refusals, the variant and every output. */
static void run_and_judge(wgk_kernel *k, wgk_call *call, const tc_case *c, wgk_status set, const tc_ref_outputs *w,
                          tc_outcome *o) {
  wgk_status st = set ? set : wgk_call_run(call);
  if (!st) snprintf(o->variant, sizeof o->variant, "%s", wgk_call_variant(call));
  if (c->expect_error) {
    const char *msg = wgk_context_errmsg(rt_kernel_context(k));
    if (!st)
      verdict(o, WGK_TC_FAIL, "expected a refusal containing '%s', but the call ran (%s)", c->expect_error, o->variant);
    else if (!strstr(msg, c->expect_error))
      verdict(o, WGK_TC_FAIL, "refused, but not with '%s': %s", c->expect_error, msg);
    else
      verdict(o, WGK_TC_PASS, "refused: %s", msg);
    return;
  }
  if (st) return verdict(o, WGK_TC_FAIL, "%s", wgk_context_errmsg(rt_kernel_context(k)));
  const char *want = c->variant, *lacking = NULL;
  const device_desc *dev = rt_context_device_desc(rt_kernel_context(k));
  for (size_t i = 0; i < c->n_variant_without && !lacking; i++) {
    device_feature f;
    if (device_feature_from_name(c->variant_without[2 * i], &f) && !device_has(dev, f))
      lacking = c->variant_without[2 * i], want = c->variant_without[2 * i + 1];
  }
  if (want && strcmp(want, o->variant) != 0)
    return verdict(o, WGK_TC_FAIL, "variant %s chosen, the case expects %s%s%s", o->variant, want,
                   lacking ? " on a device without " : "", lacking ? lacking : "");
  for (size_t i = 0; i < w->n; i++)
    if (!judge_output(call, c, &w->out[i], o)) return;
  verdict(o, WGK_TC_PASS, "%s", "");
}

/* FAIL before any allocation when an input exceeds the host limit, or (unless the case expects a refusal) cannot
 * fit one device buffer binding. */
static bool too_large(wgk_kernel *k, const tc_case *c, tc_outcome *o) {
  const device_limits *l = &rt_context_device_desc(rt_kernel_context(k))->limits;
  uint64_t limit =
      l->maxStorageBufferBindingSize < l->maxBufferSize ? l->maxStorageBufferBindingSize : l->maxBufferSize;
  for (size_t i = 0; i < c->n_inputs; i++) {
    uint64_t bytes = 0;
    bool host = tc_input_bytes(&c->inputs[i], &bytes) != WGK_OK;
    if (!host && (bytes <= limit || c->expect_error)) continue; /* an expected refusal is the runtime's to give */
    if (host && bytes)
      verdict(o, WGK_TC_FAIL, "case %s, input %s: %llu bytes, above the test-data host limit of %llu elements", c->id,
              c->inputs[i].key, (unsigned long long)bytes, (unsigned long long)WGK_TC_MAX_ELEMENTS);
    else if (host)
      verdict(o, WGK_TC_FAIL,
              "case %s, input %s: the shape's byte size overflows (above the test-data host "
              "limit of %llu elements)",
              c->id, c->inputs[i].key, (unsigned long long)WGK_TC_MAX_ELEMENTS);
    else
      verdict(o, WGK_TC_FAIL,
              "case %s, input %s: %llu bytes, above this device's %s of %llu bytes; refused before "
              "allocating",
              c->id, c->inputs[i].key, (unsigned long long)bytes,
              limit == l->maxBufferSize ? "maxBufferSize" : "maxStorageBufferBindingSize", (unsigned long long)limit);
    return true;
  }
  return false;
}

wgk_status tc_run_case(wgk_kernel *k, const tc_case *c, const char *source, tc_outcome *o) {
  memset(o, 0, sizeof *o);
  if (lacks_feature(k, c, o) || too_large(k, c, o)) return WGK_OK;
  util_host_tensor **host = calloc(c->n_inputs + 1, sizeof *host);
  wgk_tensor **dev = calloc(c->n_inputs + 1, sizeof *dev);
  tc_ref_outputs want = {0};
  wgk_call *call = NULL;
  util_error err = {0};
  wgk_status st = host && dev ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
  pkg_package *pkg = rt_kernel_package(k);
  for (size_t i = 0; i < c->n_inputs && !st; i++) st = tc_input_load(&c->inputs[i], pkg, source, &host[i], &err);
  for (size_t i = 0; i < c->n_inputs && !st; i++)
    if (tc_upload(rt_kernel_context(k), host[i], &dev[i]) != WGK_OK)
      st = util_error_in(&err, WGK_ERR_GPU, NULL, c->inputs[i].key, "%s", wgk_context_errmsg(rt_kernel_context(k)));
  if (!st && !c->expect_error)
    st = c->reference ? tc_reference_run(rt_kernel_manifest(k), c, host, &want, &err)
                      : inline_expected(pkg, c, source, &want, &err);
  if (st) {
    char text[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(&err, text, sizeof text);
    verdict(o, WGK_TC_FAIL, "%s", err.status ? text : wgk_status_str(st));
    st = st == WGK_ERR_OUT_OF_MEMORY ? st : WGK_OK;
  } else if ((st = wgk_call_create(k, &call)) == WGK_OK) {
    wgk_status set = set_call(call, c, dev);
    if (!set) set = poison_outputs(k, call, &want);
    run_and_judge(k, call, c, set, &want, o);
  } else {
    verdict(o, WGK_TC_FAIL, "%s", wgk_context_errmsg(rt_kernel_context(k)));
  }
  wgk_call_destroy(call);
  tc_ref_outputs_free(&want);
  for (size_t i = 0; i < c->n_inputs; i++) {
    if (host) util_host_tensor_free(host[i]);
    if (dev) wgk_tensor_release(dev[i]);
  }
  free(host);
  free(dev);
  return st;
}
