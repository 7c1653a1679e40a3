/* wgk_call_run_read: a call and the read-back of its outputs in one submission, with one wait (the public
 * loader's call: host arrays out). */
#include <stdlib.h>

#include "runtime/runtime_internal.h"

#define STACK_READS 8

wgk_status rt_reads_check(wgk_call *c, const wgk_output_read *reads, size_t n) {
  if (n && !reads)
    return util_error_plain(&c->k->ctx->err, WGK_ERR_INVALID_ARGUMENT, "%s: reads is NULL", c->k->m->op_id);
  for (size_t r = 0; r < n; r++) {
    if (!reads[r].name)
      return util_error_plain(&c->k->ctx->err, WGK_ERR_INVALID_ARGUMENT, "%s: read %zu has no name", c->k->m->op_id, r);
    int i = rt_port_index(c->k->m, reads[r].name);
    if (i < 0 || c->k->m->ports[i].dir == WGK_PORT_INPUT) return rt_unknown_port(c, reads[r].name, false);
    if (!reads[r].data)
      return util_error_plain(&c->k->ctx->err, WGK_ERR_INVALID_ARGUMENT, "%s: read of output %s: data is NULL",
                              c->k->m->op_id, reads[r].name);
  }
  return WGK_OK;
}

/* The call's output (or in/out) tensor a checked read names. */
static wgk_tensor *output_of(const wgk_call *c, const wgk_output_read *read) {
  return c->outputs[rt_port_index(c->k->m, read->name)];
}

wgk_status rt_reads_record(wgk_call *c, gpu_encoder *enc, const wgk_output_read *reads, size_t n,
                           gpu_buffer **staging) {
  c->reads = reads;
  c->n_reads = n;
  c->read_staging = staging;
  wgk_status st = rt_call_record(c, enc, 0);
  c->reads = NULL;
  c->n_reads = 0;
  c->read_staging = NULL;
  for (size_t r = 0; st == WGK_OK && r < n; r++)
    if (staging[r]) st = rt_tensor_read_record(output_of(c, &reads[r]), enc, &staging[r]);
  return st;
}

wgk_status rt_reads_finish(wgk_call *c, const wgk_output_read *reads, size_t n, gpu_buffer **staging) {
  wgk_status st = WGK_OK;
  for (size_t r = 0; r < n; r++)
    if (staging[r]) rt_tensor_read_start(output_of(c, &reads[r]), staging[r]);
  for (size_t r = 0; r < n; r++) {
    wgk_tensor *t = output_of(c, &reads[r]);
    wgk_status s = WGK_OK;
    if (staging[r])
      s = rt_tensor_read_finish(t, staging[r], reads[r].data);
    else if (st == WGK_OK)
      s = rt_tensor_read(t, reads[r].data, reads[r].size);
    if (st == WGK_OK) st = s;
  }
  return st;
}

void rt_reads_drop(wgk_context *ctx, gpu_buffer **staging, size_t n, bool submitted) {
  for (size_t r = 0; r < n; r++)
    if (submitted)
      gpu_buffer_destroy(staging[r]); /* a map may be pending */
    else
      gpu_pool_put(&ctx->pool, staging[r]); /* unused: no map pending */
}

wgk_status wgk_call_run_read(wgk_call *c, const wgk_output_read *reads, size_t n) {
  if (!c) return WGK_ERR_INVALID_ARGUMENT;
  wgk_context *ctx = c->k->ctx;
  rt_lock(ctx);
  rt_clear(ctx);
  gpu_buffer *stack[STACK_READS] = {0};
  gpu_buffer **staging = n <= STACK_READS ? stack : calloc(n, sizeof *staging);
  gpu_encoder *enc = NULL;
  wgk_status st = rt_reads_check(c, reads, n);
  if (st == WGK_OK && !staging) st = util_error_oom(&ctx->err, NULL, c->k->m->op_id);
  if (st == WGK_OK) st = gpu_encoder_begin(ctx->dev, c->k->m->op_id, &enc, &ctx->err);
  if (st == WGK_OK && (st = rt_reads_record(c, enc, reads, n, staging)) != WGK_OK) {
    gpu_encoder_discard(enc);
    rt_reads_drop(ctx, staging, n, false);
  } else if (st == WGK_OK) {
    if ((st = gpu_encoder_submit(enc, &ctx->err)) != WGK_OK) {
      rt_reads_drop(ctx, staging, n, true);
    } else {
      ctx->stats.submissions++;
      st = rt_reads_finish(c, reads, n, staging);
    }
  }
  if (staging != stack) free(staging);
  rt_unlock(ctx);
  return st;
}
