/* Blocks: one device buffer holding several tensors at aligned offsets (runtime_internal.h, rt_block), so that
 * wgk_call_run_host moves a call's host inputs in one copy. On the H200 each copy or queue write of its own costs
 * a call 3-4 us of its submission whatever its size (bench/results/h200-2026-12-02-copy-shapes.md). */
#include <stdlib.h>

#include "runtime/runtime_internal.h"

#define BLOCK_USAGE (WGK_GPU_BUFFER_STORAGE | WGK_GPU_BUFFER_COPY_SRC | WGK_GPU_BUFFER_COPY_DST)

wgk_status rt_block_new(wgk_context *ctx, uint64_t bytes, rt_block **out) {
  *out = NULL;
  rt_block *b = calloc(1, sizeof *b);
  if (!b) return rt_set(ctx, WGK_ERR_OUT_OF_MEMORY, "block of %llu bytes: out of memory", (unsigned long long)bytes);
  b->buf = gpu_pool_take(&ctx->pool, bytes, BLOCK_USAGE);
  if (!b->buf) {
    wgk_status st = gpu_buffer_create(ctx->dev, bytes, BLOCK_USAGE, "wgk input block", &b->buf, &ctx->err);
    if (st != WGK_OK) {
      free(b);
      return rt_fail(ctx, st);
    }
  }
  b->refs = 1;
  *out = b;
  return WGK_OK;
}

void rt_block_drop(wgk_context *ctx, rt_block *b) {
  if (!b || --b->refs > 0) return;
  rt_buffer_release(ctx, b->buf);
  free(b);
}
