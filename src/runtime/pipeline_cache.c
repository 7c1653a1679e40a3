/* Pipelines cached by the WGSL they compile and their binding layout, shared by all kernels of a context:
 * two plans that render the same text compile once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime_internal.h"
#include "util/clock.h"

static uint64_t fnv1a(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static gpu_binding_type binding_type(manifest_buffer b) {
  return b == WGK_BUFFER_UNIFORM   ? WGK_GPU_BINDING_UNIFORM
         : b == WGK_BUFFER_STORAGE ? WGK_GPU_BINDING_STORAGE
                                   : WGK_GPU_BINDING_READ_ONLY_STORAGE;
}

/* A WGSL compile error at WGSL line L is reported at the template line it came from. */
static void point_at_template(wgk_context *ctx, const plan_pass *pass) {
  util_error *e = &ctx->err;
  if (e->status != WGK_ERR_SHADER || e->line <= 0) return;
  const char *file;
  int line;
  int rendered = e->line - pass->wgsl_line_offset;
  if (!tmpl_linemap_lookup(&pass->linemap, rendered, &file, &line)) return;
  util_error_append(e, " (WGSL line %d, column %d of %s)", e->line, e->column, pass->label);
  util_error_relocate(e, util_pos_make(file, line, 0), NULL);
}

static wgk_status create(wgk_context *ctx, const plan_pass *pass, uint64_t hash, rt_pipeline_entry *e) {
  memset(e, 0, sizeof *e);
  e->hash = hash;
  e->wgsl = strdup(pass->wgsl);
  e->layout = calloc(pass->n_bindings ? pass->n_bindings : 1, sizeof *e->layout);
  if (!e->wgsl || !e->layout) {
    free(e->wgsl);
    free(e->layout);
    return util_error_oom(&ctx->err, NULL, NULL);
  }
  e->n_layout = pass->n_bindings;
  for (size_t i = 0; i < pass->n_bindings; i++) e->layout[i] = binding_type(pass->bindings[i].buffer);
  double t0 = (double)util_now_ns(), c0 = (double)util_process_cpu_ns();
  wgk_status st = gpu_shader_create(ctx->dev, pass->wgsl, pass->label, &e->shader, &ctx->err);
  double t1 = (double)util_now_ns();
  ctx->shader_ns += t1 - t0;
  if (st == WGK_OK) {
    ctx->stats.shaders_compiled++;
    st = gpu_pipeline_create(ctx->dev, e->shader, e->layout, e->n_layout, "main", pass->label, &e->pipeline, &ctx->err);
    ctx->pipeline_ns += (double)util_now_ns() - t1;
  }
  ctx->compile_cpu_ns += (double)util_process_cpu_ns() - c0;
  if (st != WGK_OK) {
    point_at_template(ctx, pass);
    gpu_shader_destroy(e->shader);
    free(e->wgsl);
    free(e->layout);
    return st;
  }
  ctx->stats.pipelines_created++;
  if (ctx->verbose) util_log_say(&ctx->log, WGK_LOG_LINE, "wgk: compiled %s", pass->label);
  return WGK_OK;
}

wgk_status rt_pipeline(wgk_context *ctx, const plan_pass *pass, const rt_pipeline_entry **out) {
  *out = NULL;
  uint64_t h = fnv1a(0xcbf29ce484222325ull, pass->wgsl, strlen(pass->wgsl));
  for (size_t i = 0; i < pass->n_bindings; i++)
    h = fnv1a(h, &pass->bindings[i].buffer, sizeof pass->bindings[i].buffer);
  for (size_t i = 0; i < ctx->n_pipelines; i++) {
    const rt_pipeline_entry *e = ctx->pipelines[i];
    if (e->hash == h && e->n_layout == pass->n_bindings && strcmp(e->wgsl, pass->wgsl) == 0) {
      *out = e;
      return WGK_OK;
    }
  }
  rt_pipeline_entry *e = malloc(sizeof *e);
  rt_pipeline_entry **grown = e ? realloc(ctx->pipelines, (ctx->n_pipelines + 1) * sizeof *grown) : NULL;
  if (!grown) {
    free(e);
    return util_error_oom(&ctx->err, NULL, NULL);
  }
  ctx->pipelines = grown;
  wgk_status st = create(ctx, pass, h, e);
  if (st != WGK_OK) {
    free(e);
    return st;
  }
  ctx->pipelines[ctx->n_pipelines++] = e;
  *out = e;
  return WGK_OK;
}

void rt_pipelines_free(wgk_context *ctx) {
  for (size_t i = 0; i < ctx->n_pipelines; i++) {
    gpu_pipeline_destroy(ctx->pipelines[i]->pipeline);
    gpu_shader_destroy(ctx->pipelines[i]->shader);
    free(ctx->pipelines[i]->wgsl);
    free(ctx->pipelines[i]->layout);
    free(ctx->pipelines[i]);
  }
  free(ctx->pipelines);
  ctx->pipelines = NULL;
  ctx->n_pipelines = 0;
}
