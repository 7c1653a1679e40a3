/* Running a call: plan (cached), host checks, resolve every pass (outputs, buffers, bind groups), record, submit.
 * Everything that can refuse the call comes before the first command is recorded and before the call's outputs
 * change, so a refused call leaves every buffer, the call and the batch it was added to as they were. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "runtime/runtime_internal.h"
#include "runtime/tuning.h"

static void describe_ports(const wgk_call *c, plan_tensor *out) {
  const manifest_model *m = c->k->m;
  for (size_t i = 0; i < m->n_ports; i++) {
    const wgk_tensor *t = c->ports[i];
    out[i] = (plan_tensor){.present = t != NULL, .wanted = !t && c->wanted[i]};
    if (out[i].wanted && c->want_dtype[i] != WGK_DTYPE_INVALID) out[i].dtype = wgk_dtype_name(c->want_dtype[i]);
    if (!t) continue;
    out[i].dtype = wgk_dtype_name(t->dtype);
    out[i].rank = t->rank;
    memcpy(out[i].shape, t->shape, sizeof(int64_t) * (size_t)t->rank);
  }
}

static bool is_tunable(const manifest_model *m, const char *name) {
  for (size_t i = 0; i < m->n_tunables; i++)
    if (strcmp(m->tunables[i].name, name) == 0) return true;
  return false;
}

/* The call's tunables plus the tuning cache's for this variant and shape where the call sets none; NULL when
 * the cache adds nothing. */
static expr_value *tuned_tunables(const wgk_call *c, const plan_tensor *ports, const char *variant) {
  util_dynbuf key;
  util_dynbuf_init(&key, 1 << 16);
  const json_t *stored =
      rt_tuning_shape_key(c->k->m, ports, &key) ? rt_tuning_find(c->k->tuned, variant, util_dynbuf_str(&key)) : NULL;
  util_dynbuf_free(&key);
  expr_value *merged = NULL;
  const char *name;
  const json_t *v;
  json_object_foreach((json_t *)stored, name, v) {
    if (!json_is_integer(v) || expr_value_dict_get(c->tunables, name) || !is_tunable(c->k->m, name)) continue;
    if (!merged) merged = expr_value_dict_copy(c->tunables);
    if (merged) expr_value_dict_set(merged, name, expr_value_int(json_integer_value(v)));
  }
  return merged;
}

/* Plans with the call's tunables; when the tuning cache holds tunables for the chosen variant and these shapes,
 * plans again with them and keeps that plan if it is valid and picks the same variant. */
static wgk_status plan_call_ports(wgk_call *c, const plan_tensor *given, rt_plan_entry **entry, bool *tuned_out) {
  const manifest_model *m = c->k->m;
  plan_tensor *ports = calloc(m->n_ports ? m->n_ports : 1, sizeof *ports);
  if (!ports) return util_error_oom(&c->k->ctx->err, NULL, NULL);
  if (given)
    memcpy(ports, given, sizeof *ports * m->n_ports);
  else
    describe_ports(c, ports);
  plan_call call = {.ports = ports, .attrs = c->attrs, .args = c->args, .tunables = c->tunables};
  bool cached = json_array_size(c->k->tuned) > 0; /* the first plan may only tell the variant */
  wgk_status st = rt_plan_lookup(c->k, &call, !cached, entry);
  expr_value *tuned =
      st == WGK_OK && json_array_size(c->k->tuned) ? tuned_tunables(c, ports, (*entry)->plan->variant->id) : NULL;
  bool tuned_ok = false;
  if (tuned) {
    /* The lookups below may evict: the first entry stays pinned while it is compared. */
    rt_plan_entry *first = *entry, *e = NULL;
    rt_plan_pin(first);
    call.tunables = tuned;
    if (rt_plan_for(c->k, &call, &e) == WGK_OK && e->plan->variant == first->plan->variant) {
      *entry = e;
      tuned_ok = true;
    }
    rt_plan_unpin(first);
    rt_clear(c->k->ctx);
    expr_value_release(tuned);
  }
  call.tunables = c->tunables;
  if (st == WGK_OK && cached && !tuned_ok) st = rt_plan_for(c->k, &call, entry);
  if (tuned_out) *tuned_out = tuned_ok;
  free(ports);
  return st;
}

static wgk_status plan_for_call(wgk_call *c, rt_plan_entry **entry, bool *tuned_out) {
  return plan_call_ports(c, NULL, entry, tuned_out);
}

/* Host checks of an explained call: ports from the given shapes and dtypes, no data (wgk explain has none). */
typedef struct shapes_only {
  const manifest_model *m;
  const plan_tensor *ports;
} shapes_only;

static wgk_status shape_port(const ops_call *oc, const char *name, bool want_data, ops_hostcheck_tensor *out,
                             util_error *err) {
  (void)want_data;
  (void)err;
  const shapes_only *s = oc->impl;
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < s->m->n_ports; i++) {
    const manifest_port *pp = &s->m->ports[i];
    const plan_tensor *t = &s->ports[i];
    if ((strcmp(pp->name, name) != 0 && !(pp->onnx && strcmp(pp->onnx, name) == 0)) || !t->present) continue;
    *out = (ops_hostcheck_tensor){true, wgk_dtype_from_name(t->dtype), t->rank, t->shape, NULL};
  }
  return WGK_OK;
}

void rt_host_check_headline(const manifest_model *m, const plan_tensor *ports, const expr_value *attrs,
                            util_error *err) {
  const ops_hooks *hooks = ops_find(m->op_id);
  if (!hooks || !hooks->host_check) return;
  shapes_only sh = {m, ports};
  ops_call call = {.source = m->source, .attrs = attrs, .port = shape_port, .impl = &sh};
  util_error rejected = *err, check;
  util_error_clear(&check);
  if (hooks->host_check(&call, &check) == WGK_OK) return;
  *err = check;
  util_error_append(err, "\n%s", rejected.message);
}

wgk_status rt_call_explain(wgk_call *c, const plan_tensor *ports, const expr_value *attrs, const expr_value *args,
                           const expr_value *tunables, const plan_result **plan, bool *tuned) {
  wgk_context *ctx = c->k->ctx;
  *plan = NULL;
  rt_lock(ctx);
  rt_clear(ctx);
  expr_value *copies[3] = {expr_value_dict_copy(attrs), expr_value_dict_copy(args), expr_value_dict_copy(tunables)};
  wgk_status st = WGK_OK;
  if (!copies[0] || !copies[1] || !copies[2]) {
    for (int i = 0; i < 3; i++) expr_value_release(copies[i]);
    st = util_error_oom(&ctx->err, NULL, c->k->m->op_id);
    rt_unlock(ctx);
    return st;
  }
  expr_value_release(c->attrs), expr_value_release(c->args), expr_value_release(c->tunables);
  c->attrs = copies[0], c->args = copies[1], c->tunables = copies[2];
  c->values_gen++;
  rt_plan_entry *e = NULL;
  st = plan_call_ports(c, ports, &e, tuned);
  if (st == WGK_ERR_NO_VARIANT) { /* the refusal policy of wgk_call_run (explain_rejection), from the shapes */
    rt_host_check_headline(c->k->m, ports, c->attrs, &ctx->err);
    st = ctx->err.status;
  }
  if (st == WGK_OK) *plan = e->plan;
  rt_unlock(ctx);
  return st;
}

/* A sub-call's plan (runtime/split.c's planner). */
static wgk_status plan_sub_call(wgk_call *c, const plan_tensor *ports, rt_plan_entry **entry) {
  return plan_call_ports(c, ports, entry, NULL);
}

/* The port `name` of the call as an op's host check sees it (src/ops/ops.h); with want_data, the host copy of
 * an int32/int64 tensor (the runtime keeps one for small integer tensors, or reads it back). */
static wgk_status op_port(const ops_call *oc, const char *name, bool want_data, ops_hostcheck_tensor *out,
                          util_error *err) {
  const wgk_call *c = oc->impl;
  const manifest_model *m = c->k->m;
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < m->n_ports; i++) {
    wgk_tensor *t = c->ports[i];
    const manifest_port *pp = &m->ports[i]; /* by ONNX name: the seed port name, spec 2.1 `onnx` */
    if ((strcmp(pp->name, name) != 0 && !(pp->onnx && strcmp(pp->onnx, name) == 0)) || !t) continue;
    *out = (ops_hostcheck_tensor){true, t->dtype, t->rank, t->shape, NULL};
    bool integer = t->dtype == WGK_DTYPE_INT64 || t->dtype == WGK_DTYPE_INT32;
    if (want_data && integer) {
      wgk_status st = rt_tensor_host(t, name, &out->data);
      if (st != WGK_OK) {
        *err = t->ctx->err;
        return st;
      }
    }
  }
  return WGK_OK;
}

static wgk_status op_checks(wgk_call *c, const expr_value *attrs) {
  const ops_hooks *hooks = ops_find(c->k->m->op_id);
  if (!hooks || !hooks->host_check) return WGK_OK;
  ops_call call = {.source = c->k->m->source, .attrs = attrs, .port = op_port, .impl = c};
  wgk_status st = hooks->host_check(&call, &c->k->ctx->err);
  return st;
}

/* When no variant fits, the op's host checks may name the broken rule with its values better than the list
 * of failed `when` clauses; their message then comes first, the list after it. */
static wgk_status explain_rejection(wgk_call *c) {
  wgk_context *ctx = c->k->ctx;
  util_error rejected = ctx->err;
  util_error_clear(&ctx->err);
  if (op_checks(c, c->attrs) == WGK_OK) {
    ctx->err = rejected;
    return ctx->err.status;
  }
  util_error_append(&ctx->err, "\n%s", rejected.message);
  return ctx->err.status;
}

/* Outputs, staged: in/out ports are their input tensor; caller-given outputs are used as given; others reuse the
 * previous run's tensor when nobody else holds it and it still fits, else a new one. outs[port] gets a reference
 * for every output port; the call is not changed (commit_outputs does that once nothing can refuse the call). */
static wgk_status stage_outputs(wgk_call *c, const plan_output *outputs, size_t n_outputs, wgk_tensor **outs) {
  for (size_t o = 0; o < n_outputs; o++) {
    const plan_output *po = &outputs[o];
    int i = po->port;
    wgk_tensor *t = c->ports[i];
    if (!t) {
      wgk_tensor *prev = c->outputs[i];
      wgk_dtype dtype = rt_dtype_of(po->dtype);
      wgk_dtype storage = rt_port_storage(&c->k->m->ports[i], dtype); /* int64 an output port keeps in 32 bits */
      bool reuse = prev && prev->refs == 1 && prev->dtype == dtype && prev->storage == storage &&
                   prev->rank == po->rank && memcmp(prev->shape, po->shape, sizeof(int64_t) * (size_t)po->rank) == 0;
      if (reuse)
        t = prev;
      else {
        wgk_status st = rt_tensor_new_output(c->k->ctx, dtype, storage, po->rank, po->shape, &t);
        if (st != WGK_OK) return st;
        outs[i] = t;
        continue;
      }
    }
    outs[i] = wgk_tensor_retain(t);
  }
  return WGK_OK;
}

/* wgk_call_run_read's reads against the staged outputs, before anything is recorded: each port produced, each
 * size enough for its values, and each read's staging buffer taken (run_read gives them back on a refusal). */
static wgk_status check_reads(wgk_call *c, wgk_tensor **outs) {
  for (size_t r = 0; r < c->n_reads; r++) {
    const wgk_output_read *rd = &c->reads[r];
    int i = rt_port_index(c->k->m, rd->name);
    if (i < 0 || !outs[i])
      return util_error_plain(&c->k->ctx->err, WGK_ERR_INVALID_ARGUMENT,
                              "%s: run_read: output %s is not produced by this call", c->k->m->op_id, rd->name);
    size_t need = wgk_tensor_host_bytes(outs[i]);
    if (rd->size < need)
      return util_error_plain(&c->k->ctx->err, WGK_ERR_INVALID_ARGUMENT,
                              "%s: read of output %s: %zu bytes given, %zu needed", c->k->m->op_id, rd->name, rd->size,
                              need);
  }
  for (size_t r = 0; r < c->n_reads; r++) {
    wgk_status st = rt_tensor_read_staging(outs[rt_port_index(c->k->m, c->reads[r].name)], &c->read_staging[r]);
    if (st != WGK_OK) return st;
  }
  return WGK_OK;
}

static void release_outputs(const wgk_call *c, wgk_tensor **outs) {
  for (size_t i = 0; i < c->k->m->n_ports; i++) {
    wgk_tensor_release(outs[i]);
    outs[i] = NULL;
  }
}

/* The staged outputs become the call's, in their ports' layouts; what they held is no longer what the host
 * copies say. */
static void commit_outputs(wgk_call *c, const plan_result *plan, wgk_tensor **outs, uint64_t serial) {
  /* An optional output this call did not ask for has no tensor, not the one of an earlier run. */
  for (size_t i = 0; i < c->k->m->n_ports; i++) {
    bool made = false;
    for (size_t o = 0; o < plan->n_outputs && !made; o++) made = plan->outputs[o].port == (int)i;
    if (!made && c->k->m->ports[i].dir == WGK_PORT_OUTPUT) {
      wgk_tensor_release(c->outputs[i]);
      c->outputs[i] = NULL;
    }
  }
  for (size_t o = 0; o < plan->n_outputs; o++) {
    int i = plan->outputs[o].port;
    wgk_tensor *t = outs[i];
    outs[i] = NULL;
    rt_tensor_commit_written(t, &c->k->m->ports[i]);
    t->host_valid = false;
    t->narrow_valid = false;
    t->pending_serial = serial;
    wgk_tensor_release(c->outputs[i]);
    c->outputs[i] = t;
  }
}

/* Staged outputs whose buffer the pool gave back still hold another tensor's bytes: cleared first in this
 * call's recording, so the call sees what a new buffer holds (zeros). A refused call drops the recording, and
 * its outputs are released; the context pools no buffer while a batch holds a recording (rt_buffer_release). */
static wgk_status clear_reused_outputs(wgk_call *c, const plan_result *plan, wgk_tensor **outs, gpu_encoder *enc) {
  wgk_context *ctx = c->k->ctx;
  for (size_t o = 0; o < plan->n_outputs; o++) {
    wgk_tensor *t = outs[plan->outputs[o].port];
    if (!t || !t->clear_pending) continue;
    wgk_status st = gpu_encoder_clear(enc, t->buf, 0, t->buf_bytes, &ctx->err);
    if (st != WGK_OK) return st;
    t->clear_pending = false;
  }
  return WGK_OK;
}

static wgk_tensor *bound_tensor(const wgk_call *c, wgk_tensor **outs, int port) {
  return c->k->m->ports[port].dir == WGK_PORT_OUTPUT || outs[port] ? outs[port] : c->ports[port];
}

/* A window of the call's split (runtime/split.c): steps [start, start + count) of every split port. */
typedef struct window {
  const rt_split *split;
  int64_t start, count;
} window;

/* The buffers of one pass, in binding order; an input in another layout than the tensor's (int64 projected or
 * widened, uint8 packed) is made here, and a written port's tensor is checked to take the port's layout. With a
 * window, a split port binds its steps of the buffer only. */
/* spec 2.1 `viewAlias`: a pass whose every {input, output} pair binds one buffer range, of one dtype, is skipped
 * (its output already is its input), as the loader skips it (`sl`); any other pass binding one tensor twice with a
 * write is refused (below), as the loader refuses it ("storage aliasing hazard"). */
static bool view_alias_skips(const wgk_call *c, wgk_tensor **outs, const plan_pass *pass, const gpu_binding *b,
                             const uint64_t *ids) {
  const manifest_pass *mp = pass->source;
  if (!mp || !mp->n_view_alias) return false;
  for (size_t a = 0; a < mp->n_view_alias; a++) {
    int in = -1, out = -1;
    for (size_t i = 0; i < pass->n_bindings; i++) {
      if (strcmp(pass->bindings[i].name, mp->view_alias[a].input) == 0) in = (int)i;
      if (strcmp(pass->bindings[i].name, mp->view_alias[a].output) == 0) out = (int)i;
    }
    if (in < 0 || out < 0 || !ids[in] || ids[in] != ids[out] || b[in].offset != b[out].offset ||
        b[in].size != b[out].size || pass->bindings[in].port < 0 || pass->bindings[out].port < 0)
      return false;
    const wgk_tensor *ti = bound_tensor(c, outs, pass->bindings[in].port);
    const wgk_tensor *to = bound_tensor(c, outs, pass->bindings[out].port);
    if (!ti || !to || wgk_tensor_dtype(ti) != wgk_tensor_dtype(to)) return false;
  }
  return true;
}

static wgk_status pass_buffers(wgk_call *c, wgk_tensor **outs, const rt_plan_entry *e, size_t p, const window *win,
                               gpu_binding *b, uint64_t *ids, bool *alias_skip) {
  const plan_pass *pass = &e->plan->passes[p];
  *alias_skip = false;
  for (size_t i = 0; i < pass->n_bindings; i++) {
    const plan_binding *pb = &pass->bindings[i];
    if (pb->buffer == WGK_BUFFER_UNIFORM) {
      b[i] = (gpu_binding){.buffer = e->passes[p].uniform, .offset = pb->uniform_offset, .size = pb->uniform_bytes};
      ids[i] = 0;
      continue;
    }
    if (pb->intermediate >= 0) {
      b[i] = (gpu_binding){.buffer = e->scratch[pb->intermediate]};
      ids[i] = gpu_buffer_id(b[i].buffer);
      continue;
    }
    wgk_tensor *t = bound_tensor(c, outs, pb->port);
    if (!t)
      return util_error_plain(&c->k->ctx->err, WGK_ERR_CALL,
                              "%s: binding %s needs port %s, which the call does not give", pass->label, pb->name,
                              c->k->m->ports[pb->port].name);
    const manifest_port *port = &c->k->m->ports[pb->port];
    wgk_status st = port->dir == WGK_PORT_INPUT ? rt_tensor_binding(t, port, c->k->m->source, &b[i].buffer)
                                                : rt_tensor_written_binding(t, port, c->k->m->source, &b[i].buffer);
    if (st != WGK_OK) return st;
    b[i].offset = 0;
    b[i].size = 0;
    ids[i] = gpu_buffer_id(b[i].buffer); /* not the tensor's: a new tensor on a pooled buffer finds its group */
    if (win && win->split->axis[pb->port] >= 0) {
      uint64_t slab = (uint64_t)win->split->slab[pb->port], total = gpu_buffer_size(b[i].buffer);
      b[i].offset = (uint64_t)win->start * slab;
      b[i].size = ((uint64_t)win->count * slab + 3) & ~(uint64_t)3;
      if (b[i].offset + b[i].size > total) b[i].size = total - b[i].offset;
    }
  }
  if (view_alias_skips(c, outs, pass, b, ids)) {
    *alias_skip = true;
    return WGK_OK;
  }
  for (size_t i = 0; i < pass->n_bindings; i++)
    for (size_t j = i + 1; j < pass->n_bindings; j++)
      if (ids[i] && ids[i] == ids[j] &&
          (pass->bindings[i].buffer == WGK_BUFFER_STORAGE || pass->bindings[j].buffer == WGK_BUFFER_STORAGE))
        return util_error_plain(&c->k->ctx->err, WGK_ERR_CALL,
                                "%s: one tensor is bound as %s and %s, and one of them is written", pass->label,
                                pass->bindings[i].name, pass->bindings[j].name);
  return WGK_OK;
}

static wgk_status bind_group(wgk_context *ctx, const plan_pass *pass, rt_pass_state *state, const gpu_binding *b,
                             const uint64_t *ids, gpu_bind_group **out) {
  size_t n = pass->n_bindings;
  rt_bind_entry *slot = &state->binds[0];
  for (int i = 0; i < WGK_BIND_CACHE; i++) {
    rt_bind_entry *e = &state->binds[i];
    if (e->group && memcmp(e->ids, ids, n * sizeof *ids) == 0) {
      e->last_use = ++ctx->bind_clock;
      *out = e->group;
      return WGK_OK;
    }
    if (!e->group || e->last_use < slot->last_use) slot = e;
  }
  gpu_bind_group *g = NULL;
  wgk_status st = gpu_bind_group_create(ctx->dev, state->pipeline->pipeline, b, n, pass->label, &g, &ctx->err);
  if (st != WGK_OK) {
    /* The GPU layer names the binding by number: name the pass and the binding too. */
    int at = -1;
    if (sscanf(ctx->err.path, "binding %d", &at) == 1 && at >= 0 && (size_t)at < n)
      util_error_append(&ctx->err, " (binding %s of pass %s)", pass->bindings[at].name, pass->label);
    return st;
  }
  ctx->stats.bind_groups_created++;
  gpu_bind_group_destroy(slot->group); /* Dawn keeps it alive while recorded work uses it */
  slot->group = g;
  memcpy(slot->ids, ids, n * sizeof *ids);
  slot->last_use = ++ctx->bind_clock;
  *out = g;
  return WGK_OK;
}

static wgk_status ensure_timer(wgk_call *c, uint32_t slots) {
  wgk_context *ctx = c->k->ctx;
  if (c->timer && c->timer_slots >= slots) return WGK_OK;
  gpu_timer_destroy(c->timer);
  c->timer = NULL;
  wgk_status st = gpu_timer_create(ctx->dev, slots, &c->timer, &ctx->err);
  if (st != WGK_OK) return st;
  c->timer_slots = slots;
  return WGK_OK;
}

#define MAX_BINDINGS 16

/* Every pass's bind group, made (or found in the cache) with the staged outputs: after this nothing is refused. */
static wgk_status resolve(wgk_call *c, rt_plan_entry *e, wgk_tensor **outs, gpu_bind_group **groups) {
  wgk_context *ctx = c->k->ctx;
  const plan_result *plan = e->plan;
  for (size_t i = 0; i < c->k->m->n_ports; i++) /* set again below by the passes that bind them */
    if (outs[i]) outs[i]->narrow_written = false;
  for (size_t i = 0; i < plan->n_passes; i++) {
    const plan_pass *pass = &plan->passes[i];
    if (pass->skip) continue;
    if (!e->passes[i].pipeline)
      return util_error_plain(&ctx->err, WGK_ERR_GPU, "%s: the pass has no pipeline", pass->label);
    gpu_binding b[MAX_BINDINGS];
    uint64_t ids[MAX_BINDINGS];
    bool alias_skip = false;
    wgk_status st = pass_buffers(c, outs, e, i, NULL, b, ids, &alias_skip);
    groups[i] = NULL; /* a pass viewAlias skips is not recorded */
    if (st == WGK_OK && !alias_skip) st = bind_group(ctx, pass, &e->passes[i], b, ids, &groups[i]);
    if (st != WGK_OK) return st;
  }
  return WGK_OK;
}

static wgk_status record(wgk_call *c, rt_plan_entry *e, gpu_bind_group **groups, bool timed, uint32_t slot0,
                         gpu_encoder *enc) {
  wgk_context *ctx = c->k->ctx;
  const plan_result *plan = e->plan;
  for (size_t i = 0; i < plan->n_intermediates; i++)
    if (plan->intermediates[i].zero_init &&
        gpu_encoder_clear(enc, e->scratch[i], 0, plan->intermediates[i].bytes, &ctx->err) != WGK_OK)
      return ctx->err.status;
  for (size_t i = 0; i < plan->n_passes; i++) {
    const plan_pass *pass = &plan->passes[i];
    if (pass->skip || !groups[i]) continue; /* nothing to dispatch, or skipped by viewAlias */
    const uint32_t *w = pass->workgroups;
    wgk_status st =
        timed ? gpu_encoder_dispatch_timed(enc, e->passes[i].pipeline->pipeline, groups[i], w[0], w[1], w[2], c->timer,
                                           slot0 + (uint32_t)i, &ctx->err)
              : gpu_encoder_dispatch(enc, e->passes[i].pipeline->pipeline, groups[i], w[0], w[1], w[2], &ctx->err);
    if (st != WGK_OK) return st;
    ctx->stats.dispatches++;
  }
  if (timed && gpu_encoder_resolve_timer(enc, c->timer, &ctx->err) != WGK_OK) return ctx->err.status;
  c->timed_last = timed;
  return WGK_OK;
}

/* Resolves every input binding (int64 narrowing, uint8 packing included) before outputs are touched. */
static wgk_status check_inputs(wgk_call *c, rt_plan_entry *e) {
  const plan_result *plan = e->plan;
  for (size_t i = 0; i < plan->n_passes; i++) {
    const plan_pass *pass = &plan->passes[i];
    if (pass->n_bindings > MAX_BINDINGS)
      return util_error_plain(&c->k->ctx->err, WGK_ERR_LIMIT, "%s: %zu bindings, wgk binds at most %d", pass->label,
                              pass->n_bindings, MAX_BINDINGS);
    for (size_t b = 0; b < pass->n_bindings; b++) {
      int port = pass->bindings[b].port;
      if (port < 0 || c->k->m->ports[port].dir == WGK_PORT_OUTPUT || !c->ports[port]) continue;
      gpu_buffer *buf;
      wgk_status st = rt_tensor_binding(c->ports[port], &c->k->m->ports[port], c->k->m->source, &buf);
      if (st != WGK_OK) return st;
    }
  }
  /* Inputs no pass binds (a shape tensor the caller resolved, Expand's or Reshape's `shape`) are narrowed too. */
  for (size_t i = 0; i < c->k->m->n_ports; i++) {
    if (c->k->m->ports[i].dir == WGK_PORT_OUTPUT || !c->ports[i]) continue;
    wgk_status st = rt_tensor_check_narrowing(c->ports[i], &c->k->m->ports[i], c->k->m->source);
    if (st != WGK_OK) return st;
  }
  return WGK_OK;
}

static bool same_port(const plan_tensor *a, const plan_tensor *b) {
  if (a->present != b->present || a->wanted != b->wanted) return false;
  if (!a->present) return a->dtype == b->dtype;
  return a->dtype == b->dtype && a->rank == b->rank &&
         memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->rank) == 0;
}

/* The call's last plan when nothing the plan key reads changed since that run: the ports' presence, dtypes and
 * shapes, and the attribute, arg and tunable dicts (values_gen; the tuning cache is fixed at kernel load). Saves
 * building and comparing the key text on every call. */
static rt_plan_entry *last_plan_if_same(wgk_call *c, bool *tuned) {
  size_t n = c->k->m->n_ports;
  plan_tensor *now = c->key_ports + (n ? n : 1);
  if (!c->last_entry || c->key_gen != c->values_gen) return NULL;
  describe_ports(c, now);
  for (size_t i = 0; i < n; i++)
    if (!same_port(&c->key_ports[i], &now[i])) return NULL;
  *tuned = c->tuned_last;
  c->last_entry->uses++;
  c->k->ctx->stats.plan_hits++;
  return c->last_entry;
}

static void remember_plan_key(wgk_call *c) {
  describe_ports(c, c->key_ports);
  c->key_gen = c->values_gen;
}

#define STACK_PORTS 32 /* calls with up to this many ports and passes record without allocating */

/* Everything that can refuse a planned call, before its outputs change: the op's host checks, the inputs of the
 * plans (e2: a split call's last sub-call, when it has its own), the outputs staged, the reads taken. */
static wgk_status check_and_stage(wgk_call *c, rt_plan_entry *e, rt_plan_entry *e2, const plan_output *outputs,
                                  size_t n_outputs, wgk_tensor **outs) {
  wgk_status st = op_checks(c, expr_value_dict_get(e->plan->scope, "attrs"));
  if (st == WGK_OK) st = check_inputs(c, e);
  if (st == WGK_OK && e2) st = check_inputs(c, e2);
  if (st == WGK_OK) st = stage_outputs(c, outputs, n_outputs, outs);
  if (st == WGK_OK) st = check_reads(c, outs);
  return st;
}

/* Whether this run is timed (slots, at most max, on a device that has timestamps), with its timer made. */
static wgk_status timer_for(wgk_call *c, size_t slots, size_t max, bool *timed) {
  wgk_context *ctx = c->k->ctx;
  *timed = c->timing && slots > 0 && slots <= max && device_has(gpu_device_desc(ctx->dev), WGK_FEATURE_TIMESTAMP_QUERY);
  return *timed ? ensure_timer(c, (uint32_t)slots) : WGK_OK;
}

/* A recorded run's plan becomes the call's last (pinned until the next run). */
static void keep_plan(wgk_call *c, rt_plan_entry *e, bool tuned, uint32_t timed_slots) {
  snprintf(c->variant, sizeof c->variant, "%s", e->plan->variant->id);
  c->tuned_last = tuned;
  c->timed_slots = timed_slots;
  rt_plan_unpin(c->last_entry);
  c->last_entry = e;
}

/* A call over the storage-binding limit, run as sub-calls along the axis its op declares (runtime/split.c). */
typedef struct split_run {
  rt_split sp;
  int64_t n_chunks, rest;  /* sub-calls; steps of the last one */
  rt_plan_entry *e[2];     /* the plans of the sub-calls of sp.chunk steps, and of the last one's (NULL: same) */
  plan_output *whole;      /* the whole call's outputs: the sub-call's, extent steps along the split axis */
  size_t n_out, n_passes;  /* outputs; passes of the longer plan */
  gpu_bind_group **groups; /* n_chunks * n_passes, sub-call by sub-call */
} split_run;

static rt_plan_entry *chunk_plan(const split_run *s, int64_t k) {
  return k == s->n_chunks - 1 && s->e[1] ? s->e[1] : s->e[0];
}

/* The sub-call of `steps` steps planned and pinned. */
static wgk_status plan_chunk(wgk_call *c, split_run *s, const plan_tensor *ports, plan_tensor *sub, int64_t steps,
                             rt_plan_entry **e) {
  memcpy(sub, ports, sizeof *sub * c->k->m->n_ports);
  rt_split_shrink(c, &s->sp, steps, sub);
  wgk_status st = plan_sub_call(c, sub, e);
  if (st == WGK_OK) rt_plan_pin(*e);
  return st;
}

/* The split and the sub-calls' plans; the whole call's outputs and room for every bind group. */
static wgk_status plan_split(wgk_call *c, split_run *s) {
  wgk_context *ctx = c->k->ctx;
  const manifest_model *m = c->k->m;
  size_t np = m->n_ports ? m->n_ports : 1;
  plan_tensor *ports = calloc(np, sizeof *ports), *sub = calloc(np, sizeof *sub);
  wgk_status st = ports && sub ? WGK_OK : util_error_oom(&ctx->err, NULL, m->op_id);
  if (st == WGK_OK) describe_ports(c, ports);
  if (st == WGK_OK) st = rt_split_find(c, ports, plan_sub_call, &s->sp);
  if (st == WGK_OK) {
    s->n_chunks = (s->sp.extent + s->sp.chunk - 1) / s->sp.chunk;
    s->rest = s->sp.extent - (s->n_chunks - 1) * s->sp.chunk;
    st = plan_chunk(c, s, ports, sub, s->sp.chunk, &s->e[0]);
  }
  if (st == WGK_OK && s->rest != s->sp.chunk) st = plan_chunk(c, s, ports, sub, s->rest, &s->e[1]);
  free(ports);
  free(sub);
  if (st != WGK_OK) return st;
  s->n_out = s->e[0]->plan->n_outputs;
  s->n_passes = s->e[0]->plan->n_passes;
  if (s->e[1] && s->e[1]->plan->n_passes > s->n_passes) s->n_passes = s->e[1]->plan->n_passes;
  s->whole = calloc(s->n_out ? s->n_out : 1, sizeof *s->whole);
  s->groups = calloc((size_t)s->n_chunks * (s->n_passes ? s->n_passes : 1), sizeof *s->groups);
  if (!s->whole || !s->groups) return util_error_oom(&ctx->err, NULL, m->op_id);
  for (size_t o = 0; o < s->n_out; o++) {
    s->whole[o] = s->e[0]->plan->outputs[o];
    s->whole[o].shape[s->sp.axis[s->whole[o].port]] = s->sp.extent;
  }
  return WGK_OK;
}

/* Sub-call k's bind groups, each binding its window (made here, not cached: a window is one run's). */
static wgk_status chunk_groups(wgk_call *c, split_run *s, int64_t k, wgk_tensor **outs) {
  wgk_context *ctx = c->k->ctx;
  rt_plan_entry *ek = chunk_plan(s, k);
  window win = {&s->sp, k * s->sp.chunk, k == s->n_chunks - 1 ? s->rest : s->sp.chunk};
  uint32_t align = gpu_device_desc(ctx->dev)->limits.minStorageBufferOffsetAlignment;
  for (size_t i = 0; i < ek->plan->n_passes; i++) {
    const plan_pass *pass = &ek->plan->passes[i];
    if (pass->skip) continue;
    if (!ek->passes[i].pipeline)
      return util_error_plain(&ctx->err, WGK_ERR_GPU, "%s: the pass has no pipeline", pass->label);
    gpu_binding b[MAX_BINDINGS];
    uint64_t ids[MAX_BINDINGS];
    bool alias_skip = false;
    wgk_status st = pass_buffers(c, outs, ek, i, &win, b, ids, &alias_skip);
    if (st != WGK_OK) return st;
    if (alias_skip) continue; /* its group stays NULL: not recorded */
    for (size_t j = 0; j < pass->n_bindings; j++)
      if (align && b[j].offset % align)
        return util_error_plain(&ctx->err, WGK_ERR_CALL,
                                "%s: split window of binding %s at offset %llu, not a multiple of %u", pass->label,
                                pass->bindings[j].name, (unsigned long long)b[j].offset, align);
    st = gpu_bind_group_create(ctx->dev, ek->passes[i].pipeline->pipeline, b, pass->n_bindings, pass->label,
                               &s->groups[(size_t)k * s->n_passes + i], &ctx->err);
    if (st != WGK_OK) return st;
    ctx->stats.bind_groups_created++;
  }
  return WGK_OK;
}

static void split_free(split_run *s) {
  rt_plan_unpin(s->e[0]);
  rt_plan_unpin(s->e[1]);
  for (size_t g = 0; s->groups && g < (size_t)s->n_chunks * s->n_passes; g++) gpu_bind_group_destroy(s->groups[g]);
  free(s->groups);
  free(s->whole);
  rt_split_free(&s->sp);
}

/* The whole call's host checks and outputs, every sub-call's bind groups made before anything is recorded (so a
 * refusal still records nothing), then the sub-calls recorded in order. */
static wgk_status record_split(wgk_call *c, gpu_encoder *enc, uint64_t serial, wgk_tensor **outs) {
  split_run s = {0};
  wgk_status st = plan_split(c, &s);
  if (st == WGK_OK) st = check_and_stage(c, s.e[0], s.e[1], s.whole, s.n_out, outs);
  for (size_t i = 0; st == WGK_OK && i < c->k->m->n_ports; i++)
    if (outs[i]) outs[i]->narrow_written = false;
  for (int64_t k = 0; st == WGK_OK && k < s.n_chunks; k++) st = chunk_groups(c, &s, k, outs);
  size_t slots = (size_t)s.n_chunks * s.n_passes;
  bool timed = false;
  if (st == WGK_OK) st = timer_for(c, slots, 64, &timed);
  if (st == WGK_OK) st = clear_reused_outputs(c, s.e[0]->plan, outs, enc);
  if (st == WGK_OK) commit_outputs(c, s.e[0]->plan, outs, serial);
  for (int64_t k = 0; st == WGK_OK && k < s.n_chunks; k++)
    st =
        record(c, chunk_plan(&s, k), &s.groups[(size_t)k * s.n_passes], timed, (uint32_t)((size_t)k * s.n_passes), enc);
  if (st == WGK_OK) {
    rt_plan_pin(s.e[0]); /* split_free unpins it once: the call keeps one pin */
    keep_plan(c, s.e[0], false, timed ? (uint32_t)slots : 0);
  }
  split_free(&s);
  return st;
}

/* check -> resolve every pass -> record, for a call whose plan e is pinned; timed_slots: the timer slots written. */
static wgk_status record_planned(wgk_call *c, rt_plan_entry *e, gpu_encoder *enc, uint64_t serial, wgk_tensor **outs,
                                 uint32_t *timed_slots) {
  wgk_context *ctx = c->k->ctx;
  gpu_bind_group *groups_stack[STACK_PORTS] = {0};
  size_t n_passes = e->plan->n_passes;
  gpu_bind_group **groups = n_passes <= STACK_PORTS ? groups_stack : calloc(n_passes, sizeof *groups);
  wgk_status st = groups ? WGK_OK : util_error_oom(&ctx->err, NULL, c->k->m->op_id);
  if (st == WGK_OK) st = check_and_stage(c, e, NULL, e->plan->outputs, e->plan->n_outputs, outs);
  if (st == WGK_OK) st = resolve(c, e, outs, groups);
  bool timed = false;
  if (st == WGK_OK) st = timer_for(c, n_passes, SIZE_MAX, &timed);
  if (st == WGK_OK) st = clear_reused_outputs(c, e->plan, outs, enc);
  if (st == WGK_OK) {
    commit_outputs(c, e->plan, outs, serial);
    st = record(c, e, groups, timed, 0, enc);
  }
  *timed_slots = timed ? (uint32_t)n_passes : 0;
  if (groups != groups_stack) free(groups);
  return st;
}

/* plan -> check -> resolve every pass -> record. The entry stays pinned throughout; on success it becomes the
 * call's last plan (pinned until the next run). */
wgk_status rt_call_record(wgk_call *c, gpu_encoder *enc, uint64_t serial) {
  wgk_context *ctx = c->k->ctx;
  const manifest_model *m = c->k->m;
  uint64_t saved_serial = ctx->recording_serial;
  ctx->recording_serial = serial;
  wgk_tensor *outs_stack[STACK_PORTS] = {0};
  wgk_tensor **outs = m->n_ports <= STACK_PORTS ? outs_stack : calloc(m->n_ports, sizeof *outs);
  rt_plan_entry *e = NULL;
  bool tuned = false;
  wgk_status st = WGK_OK;
  if (!outs)
    st = util_error_oom(&ctx->err, NULL, m->op_id);
  else if (!(e = last_plan_if_same(c, &tuned)))
    st = plan_for_call(c, &e, &tuned);
  if (st == WGK_ERR_LIMIT) { /* a tensor over a binding limit: sub-calls where the op says how */
    st = record_split(c, enc, serial, outs);
    c->key_gen = c->values_gen - 1; /* the last plan is a sub-call's: never reused as the whole call's */
  } else {
    if (st == WGK_ERR_NO_VARIANT) st = explain_rejection(c);
    if (st == WGK_OK) rt_plan_pin(e);
    uint32_t timed_slots = 0;
    if (st == WGK_OK && (st = record_planned(c, e, enc, serial, outs, &timed_slots)) != WGK_OK) rt_plan_unpin(e);
    if (st == WGK_OK) {
      keep_plan(c, e, tuned, timed_slots);
      remember_plan_key(c);
    }
  }
  if (outs) release_outputs(c, outs);
  if (outs != outs_stack) free(outs);
  ctx->recording_serial = saved_serial;
  return st;
}

wgk_status wgk_call_run(wgk_call *c) {
  if (!c) return WGK_ERR_INVALID_ARGUMENT;
  wgk_context *ctx = c->k->ctx;
  rt_lock(ctx);
  rt_clear(ctx);
  gpu_encoder *enc = NULL;
  wgk_status st = gpu_encoder_begin(ctx->dev, c->k->m->op_id, &enc, &ctx->err);
  if (st == WGK_OK) {
    st = rt_call_record(c, enc, 0);
    if (st != WGK_OK)
      gpu_encoder_discard(enc);
    else if ((st = gpu_encoder_submit(enc, &ctx->err)) == WGK_OK)
      ctx->stats.submissions++;
  }
  rt_unlock(ctx);
  return st;
}

bool rt_call_shape_key(const wgk_call *c, util_dynbuf *out) {
  plan_tensor *ports = calloc(c->k->m->n_ports ? c->k->m->n_ports : 1, sizeof *ports);
  if (!ports) return false;
  describe_ports(c, ports);
  bool ok = rt_tuning_shape_key(c->k->m, ports, out);
  free(ports);
  return ok;
}

const plan_result *rt_call_plan(const wgk_call *c, bool *tuned) {
  if (tuned) *tuned = c && c->last_entry && c->tuned_last;
  return c && c->last_entry ? c->last_entry->plan : NULL;
}

/* wgk_prepare of a call over the binding limit: the sub-calls' plans, as wgk_call_run will split it. */
static wgk_status prepare_split(wgk_call *c) {
  const manifest_model *m = c->k->m;
  size_t np = m->n_ports ? m->n_ports : 1;
  plan_tensor *ports = calloc(np, sizeof *ports);
  if (!ports) return util_error_oom(&c->k->ctx->err, NULL, m->op_id);
  describe_ports(c, ports);
  rt_split sp;
  wgk_status st = rt_split_find(c, ports, plan_sub_call, &sp);
  int64_t rest = st == WGK_OK ? sp.extent % sp.chunk : 0;
  rt_plan_entry *e = NULL;
  for (int i = 0; st == WGK_OK && i < (rest ? 2 : 1); i++) {
    plan_tensor *sub = calloc(np, sizeof *sub);
    if (!sub) {
      st = util_error_oom(&c->k->ctx->err, NULL, m->op_id);
      break;
    }
    memcpy(sub, ports, sizeof *sub * m->n_ports);
    rt_split_shrink(c, &sp, i ? rest : sp.chunk, sub);
    st = plan_sub_call(c, sub, &e);
    free(sub);
  }
  if (sp.axis) rt_split_free(&sp);
  free(ports);
  return st;
}

wgk_status wgk_prepare(wgk_call *c) {
  if (!c) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(c->k->ctx);
  rt_clear(c->k->ctx);
  rt_plan_entry *e;
  wgk_status st = plan_for_call(c, &e, NULL);
  if (st == WGK_ERR_LIMIT) st = prepare_split(c);
  if (st == WGK_ERR_NO_VARIANT) st = explain_rejection(c);
  rt_unlock(c->k->ctx);
  return st;
}

wgk_status wgk_call_gpu_time(wgk_call *c, uint64_t *ns) {
  if (ns) *ns = 0;
  if (!c) return WGK_ERR_INVALID_ARGUMENT;
  wgk_context *ctx = c->k->ctx;
  rt_lock(ctx);
  rt_clear(ctx);
  wgk_status st = WGK_OK;
  if (!ns)
    st = util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "%s: gpu_time: ns is NULL", c->k->m->op_id);
  else if (c->timed_last && c->timer) {
    uint64_t slots[64] = {0};
    uint32_t n = c->timed_slots < 64 ? c->timed_slots : 64; /* the last run's */
    st = gpu_timer_read(ctx->dev, c->timer, slots, n, ctx->wait_ms, &ctx->err);
    for (uint32_t i = 0; st == WGK_OK && i < n; i++) *ns += slots[i];
    memcpy(c->slot_ns, slots, sizeof slots);
    c->slot_ns_n = st == WGK_OK ? n : 0;
    c->span_ns = st == WGK_OK ? gpu_timer_span(c->timer) : 0;
  }
  rt_unlock(ctx);
  return st;
}

uint64_t rt_call_gpu_span(const wgk_call *c) { return c && c->slot_ns_n ? c->span_ns : 0; }

size_t rt_call_pass_times(const wgk_call *c, size_t max, const char **names, uint64_t *ns) {
  const plan_result *plan = c && c->last_entry ? c->last_entry->plan : NULL;
  if (!plan || !c->slot_ns_n || !plan->n_passes) return 0;
  size_t n = 0;
  for (size_t p = 0; p < plan->n_passes && n < max; p++) {
    if (plan->passes[p].skip) continue;
    uint64_t sum = 0; /* a split call: the pass's slots of every sub-call */
    for (size_t s = p; s < c->slot_ns_n; s += plan->n_passes) sum += c->slot_ns[s];
    names[n] = plan->passes[p].label;
    ns[n++] = sum;
  }
  return n;
}

wgk_status wgk_batch_create(wgk_context *ctx, wgk_batch **out) {
  if (out) *out = NULL;
  if (!ctx) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(ctx);
  rt_clear(ctx);
  wgk_status st = WGK_OK;
  wgk_batch *b = NULL;
  if (!out)
    st = util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "batch create: out is NULL");
  else if ((st = gpu_device_check(ctx->dev, &ctx->err)) == WGK_OK && !(b = calloc(1, sizeof *b))) /* lost: say so now */
    st = util_error_oom(&ctx->err, NULL, "batch create");
  if (b) {
    b->ctx = ctx;
    b->serial = ctx->next_serial++;
    b->next = ctx->batches;
    ctx->batches = b;
    rt_ctx_retain(ctx);
    *out = b;
  }
  rt_unlock(ctx);
  return st;
}

static wgk_status batch_add_locked(wgk_batch *b, wgk_call *c) {
  wgk_context *ctx = b->ctx;
  if (!c) return util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "batch add: the call is NULL");
  if (c->k->ctx != ctx)
    return util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT,
                            "batch add: the call of %s belongs to another context than the batch", c->k->m->op_id);
  bool began = false;
  if (!b->enc) {
    wgk_status st = gpu_encoder_begin(ctx->dev, "wgk batch", &b->enc, &ctx->err);
    if (st != WGK_OK) return st;
    began = true;
  }
  /* The call's context is the batch's: its lock is held. */
  wgk_status st = rt_call_record(c, b->enc, b->serial);
  if (st == WGK_OK)
    b->calls++;
  else if (began) {
    gpu_encoder_discard(b->enc);
    b->enc = NULL;
  }
  return st;
}

wgk_status wgk_batch_add(wgk_batch *b, wgk_call *c) {
  if (!b) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(b->ctx);
  rt_clear(b->ctx);
  wgk_status st = batch_add_locked(b, c);
  rt_unlock(b->ctx);
  return st;
}

wgk_status wgk_batch_submit(wgk_batch *b) {
  if (!b) return WGK_ERR_INVALID_ARGUMENT;
  wgk_context *ctx = b->ctx;
  rt_lock(ctx);
  rt_clear(ctx);
  wgk_status st = WGK_OK;
  if (b->enc) {
    st = gpu_encoder_submit(b->enc, &ctx->err);
    b->enc = NULL;
    b->calls = 0;
    b->serial = ctx->next_serial++;
    if (st == WGK_OK) ctx->stats.submissions++;
  } else { /* nothing recorded; a lost device is still reported */
    st = gpu_device_check(ctx->dev, &ctx->err);
  }
  rt_unlock(ctx);
  return st;
}

void wgk_batch_destroy(wgk_batch *b) {
  if (!b) return;
  wgk_context *ctx = b->ctx;
  rt_lock(ctx);
  gpu_encoder_discard(b->enc);
  for (wgk_batch **p = &ctx->batches; *p; p = &(*p)->next)
    if (*p == b) {
      *p = b->next;
      break;
    }
  free(b);
  rt_unlock(ctx);
  rt_ctx_release(ctx);
}
