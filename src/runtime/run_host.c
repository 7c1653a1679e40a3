/* wgk_call_run_host: the public loader's call in one (host arrays in, host arrays out), with one submission and one
 * wait. Each large float input goes straight into a staging buffer, filled on the context's threads while this
 * thread writes the small inputs and records the call; the copies out of the staging buffers ride in the call's
 * own submission. */
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime_internal.h"
#include "util/clock.h"
#include "util/workers.h"

#define STACK_ITEMS 8
#define PARTS_MAX 64 /* fill tasks of one input at most */

/* One input of the call, resolved. */
typedef struct host_input {
  int port;
  const wgk_input_write *w;
  wgk_tensor *t;       /* new: holds the values (the call's reference once swapped in) */
  gpu_buffer *staging; /* filled while the call records (rt_tensor_stages_whole), else NULL: written at once */
  void *mapped;
  bool write_beside;  /* a queue write (no threads): made beside the fill, before the call records */
  wgk_tensor *before; /* the call's input before this run: back in place on refusal */
  bool given_before;
} host_input;

/* A fill task: elements [first, end) of one staged input. */
typedef struct fill_part {
  const host_input *in;
  int64_t first, end;
} fill_part;

typedef struct run_host {
  wgk_call *c;
  host_input *in;
  size_t n_in;
  fill_part *parts;
  int n_parts;
  gpu_encoder *enc;
  const wgk_output_read *reads;
  size_t n_reads;
  gpu_buffer **read_staging;
  wgk_status recorded;
  bool swapped;          /* the new tensors are the call's inputs */
  uint64_t ns[5];        /* phase times (wgk_context's run_host_ns) */
  uint64_t submitted_at; /* util_now_ns once submitted */
} run_host;

static wgk_status bad_input(wgk_call *c, const wgk_input_write *w, size_t i, const char *rule) {
  return util_error_plain(&c->k->ctx->err, WGK_ERR_INVALID_ARGUMENT, "%s: input %zu (%s): %s", c->k->m->op_id, i,
                          w->name ? w->name : "no name", rule);
}

/* The inputs named before anything is made: each an input (or in/out) port, listed once, with data. */
static wgk_status check_inputs(wgk_call *c, const wgk_input_write *w, size_t n, host_input *in) {
  if (n && !w) return util_error_plain(&c->k->ctx->err, WGK_ERR_INVALID_ARGUMENT, "%s: inputs is NULL", c->k->m->op_id);
  for (size_t i = 0; i < n; i++) {
    if (!w[i].name) return bad_input(c, &w[i], i, "the port name is NULL");
    int p = rt_port_index(c->k->m, w[i].name);
    if (p < 0 || c->k->m->ports[p].dir == WGK_PORT_OUTPUT) return rt_unknown_port(c, w[i].name, true);
    for (size_t j = 0; j < i; j++)
      if (in[j].port == p) return bad_input(c, &w[i], i, "the port is listed twice");
    if (!w[i].data) return bad_input(c, &w[i], i, "data is NULL");
    in[i] = (host_input){.port = p, .w = &w[i]};
  }
  return WGK_OK;
}

/* Input i's tensor, its size checked, and its staging buffer taken; else its values written at once, or (a queue
 * write) beside the fill. */
static wgk_status make_input(wgk_call *c, host_input *in, size_t i) {
  wgk_context *ctx = c->k->ctx;
  const wgk_input_write *w = in->w;
  wgk_status st = rt_tensor_new_input(ctx, w->dtype, w->rank, w->shape, &in->t);
  if (st != WGK_OK) { /* the tensor's refusal (rank, dims, dtype) said first which input it is, as the others do */
    char why[sizeof ctx->err.message];
    snprintf(why, sizeof why, "%s", ctx->err.message);
    util_error_clear(&ctx->err); /* the first error is kept: this one replaces it */
    return util_error_plain(&ctx->err, st, "%s: input %zu (%s): %s", c->k->m->op_id, i, w->name, why);
  }
  if (w->size != wgk_tensor_host_bytes(in->t))
    return util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT,
                            "%s: input %zu (%s): %zu bytes given, its %s tensor of %lld elements holds %zu",
                            c->k->m->op_id, i, w->name, w->size, wgk_dtype_name(w->dtype),
                            (long long)wgk_tensor_numel(in->t), wgk_tensor_host_bytes(in->t));
  in->write_beside = in->t->buf_bytes <= ctx->queue_write_max;
  if (in->write_beside) return WGK_OK;
  if (!rt_tensor_stages_whole(in->t)) return rt_tensor_upload(in->t, w->data);
  st = gpu_upload_staging(ctx->dev, &ctx->pool, in->t->buf_bytes, ctx->wait_ms, &in->staging, &in->mapped, &ctx->err);
  return st;
}

/* The fill tasks of every staged input: parts of the context's host span or more, up to PARTS_MAX an input. */
static wgk_status plan_parts(run_host *r) {
  wgk_context *ctx = r->c->k->ctx;
  int total = 0;
  for (size_t i = 0; i < r->n_in; i++) {
    const host_input *in = &r->in[i];
    if (!in->staging) continue;
    uint64_t n = in->t->buf_bytes / ctx->host_span;
    n = n < 1 ? 1 : n > PARTS_MAX ? PARTS_MAX : n;
    if ((int64_t)n > wgk_tensor_numel(in->t)) n = wgk_tensor_numel(in->t) > 0 ? (uint64_t)wgk_tensor_numel(in->t) : 1;
    fill_part *grown = realloc(r->parts, (size_t)(total + (int)n) * sizeof *grown);
    if (!grown) return util_error_oom(&ctx->err, NULL, r->c->k->m->op_id);
    r->parts = grown;
    int64_t numel = wgk_tensor_numel(in->t);
    for (uint64_t k = 0; k < n; k++)
      r->parts[total++] = (fill_part){in, numel * (int64_t)k / (int64_t)n, numel * (int64_t)(k + 1) / (int64_t)n};
  }
  r->n_parts = total;
  return WGK_OK;
}

static void fill_task(int k, void *arg) {
  const fill_part *p = &((run_host *)arg)->parts[k];
  rt_tensor_stage_span(p->in->t, p->in->w->data, p->in->mapped, p->first, p->end);
}

/* The small inputs' queue writes, then the encoder with the staged inputs' copies first, then the call and its
 * reads recorded. */
static wgk_status write_and_record(run_host *r) {
  wgk_context *ctx = r->c->k->ctx;
  wgk_status st = WGK_OK;
  for (size_t i = 0; st == WGK_OK && i < r->n_in; i++)
    if (r->in[i].write_beside) st = rt_tensor_upload(r->in[i].t, r->in[i].w->data);
  if (st != WGK_OK) return st;
  st = gpu_encoder_begin(ctx->dev, r->c->k->m->op_id, &r->enc, &ctx->err);
  for (size_t i = 0; st == WGK_OK && i < r->n_in; i++)
    if (r->in[i].staging)
      st = gpu_encoder_copy(r->enc, r->in[i].staging, 0, r->in[i].t->buf, 0, r->in[i].t->buf_bytes, &ctx->err);
  if (st != WGK_OK) return st;
  return rt_reads_record(r->c, r->enc, r->reads, r->n_reads, r->read_staging);
}

/* Beside the threads that fill: write_and_record. The context's threads are busy, so host work of its own (a
 * read-back for a check) runs on this thread alone. */
static void record_meanwhile(void *arg) {
  run_host *r = arg;
  wgk_context *ctx = r->c->k->ctx;
  struct util_workers *workers = ctx->workers;
  ctx->workers = NULL;
  uint64_t t0 = util_now_ns();
  r->recorded = write_and_record(r);
  r->ns[1] = util_now_ns() - t0;
  ctx->workers = workers;
}

/* The new tensors in the call's input ports (the ones before kept, to go back on refusal). */
static void swap_in(run_host *r) {
  wgk_call *c = r->c;
  for (size_t i = 0; i < r->n_in; i++) {
    host_input *in = &r->in[i];
    in->before = c->ports[in->port];
    in->given_before = c->given[in->port];
    c->ports[in->port] = in->t;
    c->given[in->port] = false;
  }
  r->swapped = true;
}

/* Undoes swap_in after a refusal: the inputs before back in place, the new tensors dropped. */
static void swap_out(run_host *r) {
  wgk_call *c = r->c;
  for (size_t i = 0; i < r->n_in; i++) {
    host_input *in = &r->in[i];
    c->ports[in->port] = in->before;
    c->given[in->port] = in->given_before;
    in->before = NULL;
  }
  r->swapped = false;
}

/* The staging buffers filled on the context's threads while this thread writes the small inputs and records
 * (record_meanwhile), then unmapped. */
static wgk_status record_filled(run_host *r) {
  wgk_context *ctx = r->c->k->ctx;
  uint64_t t0 = util_now_ns();
  util_workers_run_meanwhile(ctx->workers, r->n_parts, fill_task, r, record_meanwhile, r);
  r->ns[2] = util_now_ns() - t0;
  for (size_t i = 0; i < r->n_in; i++) gpu_buffer_unmap(r->in[i].staging);
  return r->recorded;
}

/* After a refusal or a failed submission: the inputs before back in place, the new tensors and the staging
 * buffers dropped (those of the reads given back unused when nothing was submitted, else destroyed). */
static void undo(run_host *r, bool submitted) {
  wgk_context *ctx = r->c->k->ctx;
  if (r->swapped) swap_out(r);
  gpu_encoder_discard(r->enc);
  r->enc = NULL;
  for (size_t i = 0; i < r->n_in; i++) {
    gpu_upload_recycle(&ctx->pool, r->in[i].staging, false);
    wgk_tensor_release(r->in[i].t);
  }
  rt_reads_drop(ctx, r->read_staging, r->n_reads, submitted);
}

/* The recording submitted, then the staging buffers mapped again into the pool and the outputs read. */
static wgk_status submit(run_host *r) {
  wgk_context *ctx = r->c->k->ctx;
  wgk_status st = gpu_encoder_submit(r->enc, &ctx->err);
  r->enc = NULL;
  if (st != WGK_OK) {
    undo(r, true);
    return st;
  }
  ctx->stats.submissions++;
  r->submitted_at = util_now_ns();
  for (size_t i = 0; i < r->n_in; i++) {
    gpu_upload_recycle(&ctx->pool, r->in[i].staging, true);
    wgk_tensor_release(r->in[i].before);
  }
  return rt_reads_finish(r->c, r->reads, r->n_reads, r->read_staging);
}

static wgk_status run_locked(run_host *r, const wgk_input_write *inputs) {
  wgk_call *c = r->c;
  uint64_t t0 = util_now_ns();
  wgk_status st = check_inputs(c, inputs, r->n_in, r->in);
  if (st == WGK_OK) st = rt_reads_check(c, r->reads, r->n_reads);
  for (size_t i = 0; st == WGK_OK && i < r->n_in; i++) st = make_input(c, &r->in[i], i);
  if (st == WGK_OK) st = plan_parts(r);
  uint64_t t1 = util_now_ns();
  if (st == WGK_OK) {
    swap_in(r);
    st = record_filled(r);
  }
  if (st != WGK_OK) {
    undo(r, false);
    return st;
  }
  uint64_t t2 = util_now_ns();
  st = submit(r);
  uint64_t t3 = util_now_ns();
  r->ns[0] = t1 - t0;
  r->ns[3] = r->submitted_at - t2;
  r->ns[4] = t3 - r->submitted_at;
  if (st == WGK_OK) memcpy(c->k->ctx->run_host_ns, r->ns, sizeof r->ns);
  return st;
}

wgk_status wgk_call_run_host(wgk_call *c, const wgk_input_write *inputs, size_t n_inputs, const wgk_output_read *reads,
                             size_t n_reads) {
  if (!c) return WGK_ERR_INVALID_ARGUMENT;
  wgk_context *ctx = c->k->ctx;
  rt_lock(ctx);
  rt_clear(ctx);
  host_input in_stack[STACK_ITEMS] = {{0}};
  gpu_buffer *staging_stack[STACK_ITEMS] = {0};
  run_host r = {.c = c, .n_in = n_inputs, .reads = reads, .n_reads = n_reads};
  r.in = n_inputs <= STACK_ITEMS ? in_stack : calloc(n_inputs, sizeof *r.in);
  r.read_staging = n_reads <= STACK_ITEMS ? staging_stack : calloc(n_reads, sizeof *r.read_staging);
  wgk_status st = r.in && r.read_staging ? run_locked(&r, inputs) : util_error_oom(&ctx->err, NULL, c->k->m->op_id);
  if (r.in != in_stack) free(r.in);
  if (r.read_staging != staging_stack) free(r.read_staging);
  free(r.parts);
  rt_unlock(ctx);
  return st;
}
