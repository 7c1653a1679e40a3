/* Split calls: a call whose tensor is over the device's storage-binding limit runs as sub-calls, each binding a
 * window (offset, size) of the split ports' buffers, along the axes the op's hooks declare (src/ops/ops.h,
 * ops_split). Generic: this file names no op. A window must be one contiguous range of its buffer (every dim
 * before the axis 1), start at a multiple of minStorageBufferOffsetAlignment and fit the binding limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "runtime/runtime_internal.h"

static bool port_named(const manifest_port *p, const char *name) {
  return strcmp(p->name, name) == 0 || (p->onnx && strcmp(p->onnx, name) == 0);
}

/* The rule's entry for port p at rank: its axis, WGK_OP_SPLIT_WHOLE, or -2 when the rule names p at other ranks
 * only; -3 when the rule does not name p. */
static int rule_axis(const ops_split *rule, const manifest_port *p, int rank) {
  bool named = false;
  for (int i = 0; i < WGK_OP_SPLIT_MAX_PORTS && rule->ports[i].port; i++) {
    if (!port_named(p, rule->ports[i].port)) continue;
    named = true;
    if (rule->ports[i].rank == rank) return rule->ports[i].axis;
  }
  return named ? -2 : -3;
}

/* Axis of a port of `rank` dims under the rule, with the slab bytes; false when the rule cannot split this port
 * (not listed at this rank, window not contiguous, or extent not the others'). */
static bool take_port(const ops_split *rule, const manifest_port *port, const char *dtype, int rank,
                      const int64_t *shape, int64_t *extent, int *axis, int64_t *slab) {
  int a = rule_axis(rule, port, rank);
  bool output = port->dir != WGK_PORT_INPUT;
  *axis = -1;
  *slab = 0;
  if (a == -2 || ((a == -3 || a == WGK_OP_SPLIT_WHOLE) && output)) return false; /* written whole by each: no */
  if (a < 0) return true;
  if (a >= rank) return false;
  for (int d = 0; d < a; d++)
    if (shape[d] != 1) return false;
  if (*extent >= 0 && shape[a] != *extent) return false;
  *extent = shape[a];
  int64_t bytes = (int64_t)rt_port_element_bytes(port, rt_dtype_of(dtype));
  for (int d = a + 1; d < rank; d++) bytes *= shape[d];
  *axis = a;
  *slab = bytes;
  return true;
}

/* The most steps whose windows all fit limit and all start aligned; 0 when none. */
static int64_t chunk_for(const int64_t *slab, size_t n, int64_t extent, uint64_t limit, uint32_t align) {
  int64_t most = extent;
  for (size_t i = 0; i < n; i++)
    if (slab[i] > 0 && (int64_t)(limit / (uint64_t)slab[i]) < most) most = (int64_t)(limit / (uint64_t)slab[i]);
  for (int64_t c = most; c >= 1; c--) {
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) ok = slab[i] == 0 || (c * slab[i]) % (int64_t)(align ? align : 1) == 0;
    if (ok) return c;
  }
  return 0;
}

void rt_split_shrink(const wgk_call *c, const rt_split *s, int64_t count, plan_tensor *ports) {
  for (size_t i = 0; i < c->k->m->n_ports; i++)
    if (s->axis[i] >= 0 && ports[i].present) ports[i].shape[s->axis[i]] = count;
}

void rt_split_free(rt_split *s) {
  free(s->axis);
  free(s->slab);
  memset(s, 0, sizeof *s);
}

/* One rule: inputs first (their shapes are the call's), then the outputs of a one-step sub-call, whose shapes
 * the planner infers; an output must be split with the inputs (extent 1 in the probe). */
static wgk_status try_rule(wgk_call *c, const plan_tensor *ports, const ops_split *rule, rt_split_planner plan,
                           rt_split *s, util_error *why) {
  const manifest_model *m = c->k->m;
  const device_limits *lim = &gpu_device_desc(c->k->ctx->dev)->limits;
  uint64_t limit =
      lim->maxStorageBufferBindingSize < lim->maxBufferSize ? lim->maxStorageBufferBindingSize : lim->maxBufferSize;
  s->extent = -1;
  for (size_t i = 0; i < m->n_ports; i++) {
    s->axis[i] = -1;
    s->slab[i] = 0;
    if (!ports[i].present) continue;
    if (!take_port(rule, &m->ports[i], ports[i].dtype, ports[i].rank, ports[i].shape, &s->extent, &s->axis[i],
                   &s->slab[i])) {
      return util_error_plain(why, WGK_ERR_NOT_FOUND, "%s: port %s (rank %d) cannot be split so", rule->name,
                              m->ports[i].name, ports[i].rank);
    }
  }
  if (s->extent < 2) {
    return util_error_plain(why, WGK_ERR_NOT_FOUND, "%s: the axis has %lld step(s)", rule->name, (long long)s->extent);
  }
  plan_tensor *probe = malloc(sizeof *probe * (m->n_ports ? m->n_ports : 1));
  if (!probe) return util_error_oom(&c->k->ctx->err, NULL, m->op_id);
  memcpy(probe, ports, sizeof *probe * m->n_ports);
  rt_split_shrink(c, s, 1, probe);
  rt_plan_entry *e = NULL;
  wgk_status st = plan(c, probe, &e);
  free(probe);
  if (st == WGK_ERR_LIMIT) { /* one step is over a limit too: another rule may split finer */
    return util_error_plain(why, WGK_ERR_NOT_FOUND, "%s: a one-step sub-call is refused too: %s", rule->name,
                            c->k->ctx->err.message);
  }
  if (st != WGK_OK) return st; /* the sub-call itself is refused: its message says why */
  for (size_t o = 0; o < e->plan->n_outputs; o++) {
    const plan_output *po = &e->plan->outputs[o];
    int64_t one = 1;
    if (!take_port(rule, &m->ports[po->port], po->dtype, po->rank, po->shape, &one, &s->axis[po->port],
                   &s->slab[po->port]) ||
        s->axis[po->port] < 0) {
      return util_error_plain(why, WGK_ERR_NOT_FOUND, "%s: output %s (rank %d) cannot be split so", rule->name,
                              m->ports[po->port].name, po->rank);
    }
  }
  s->chunk = chunk_for(s->slab, m->n_ports, s->extent, limit, lim->minStorageBufferOffsetAlignment);
  if (s->chunk < 1 || s->chunk >= s->extent) {
    return util_error_plain(why, WGK_ERR_NOT_FOUND,
                            "%s: no window of the %lld steps fits %llu bytes at offsets aligned to %u", rule->name,
                            (long long)s->extent, (unsigned long long)limit, lim->minStorageBufferOffsetAlignment);
  }
  s->rule = rule->name;
  return WGK_OK;
}

wgk_status rt_split_find(wgk_call *c, const plan_tensor *ports, rt_split_planner plan, rt_split *out) {
  wgk_context *ctx = c->k->ctx;
  const manifest_model *m = c->k->m;
  const ops_hooks *hooks = ops_find(m->op_id);
  util_error refusal = ctx->err; /* the whole call's */
  memset(out, 0, sizeof *out);
  char why[1024] = "";
  size_t used = 0;
  if (!hooks || !hooks->n_splits) snprintf(why, sizeof why, "the op declares no axis to split a call along");
  out->axis = calloc(m->n_ports ? m->n_ports : 1, sizeof *out->axis);
  out->slab = calloc(m->n_ports ? m->n_ports : 1, sizeof *out->slab);
  if (!out->axis || !out->slab) {
    rt_split_free(out);
    return util_error_oom(&ctx->err, NULL, m->op_id);
  }
  for (size_t r = 0; hooks && r < hooks->n_splits; r++) {
    util_error one; /* why this rule does not split the call (WGK_ERR_NOT_FOUND) */
    util_error_clear(&one);
    wgk_status st = try_rule(c, ports, &hooks->splits[r], plan, out, &one);
    if (st == WGK_OK) {
      if (ctx->verbose)
        util_log_say(&ctx->log, WGK_LOG_LINE, "wgk: %s: split by %s into windows of %lld of %lld steps", m->op_id,
                     out->rule, (long long)out->chunk, (long long)out->extent);
      util_error_clear(&ctx->err); /* the whole call's refusal is answered: a successful call leaves no message */
      return WGK_OK;
    }
    if (st != WGK_ERR_NOT_FOUND) {
      rt_split_free(out);
      return st;
    }
    used +=
        (size_t)snprintf(why + used, used < sizeof why ? sizeof why - used : 0, "%s%s", used ? "; " : "", one.message);
    if (used >= sizeof why) used = sizeof why - 1;
  }
  rt_split_free(out);
  ctx->err = refusal;
  util_error_append(&ctx->err, " (not split: %s)", why);
  return ctx->err.status;
}
