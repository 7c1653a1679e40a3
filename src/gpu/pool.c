/* The buffer pool (gpu/gpu.h): fixed slots, exact size and usage per take, oldest out first; a used upload staging
 * buffer comes back here mapped again (gpu_upload_recycle). */
#include "gpu/gpu_internal.h"

void gpu_pool_init(gpu_pool *pool, uint64_t max_bytes) { *pool = (gpu_pool){.max_bytes = max_bytes}; }

static void drop(gpu_pool *pool, int i) {
  pool->bytes -= pool->bufs[i]->size;
  gpu_buffer_destroy(pool->bufs[i]);
  pool->bufs[i] = NULL;
}

void gpu_pool_clear(gpu_pool *pool) {
  for (int i = 0; i < WGK_GPU_POOL_ENTRIES; i++)
    if (pool->bufs[i]) drop(pool, i);
}

gpu_buffer *gpu_pool_take(gpu_pool *pool, uint64_t size, uint32_t usage) {
  /* the newest, except an upload's staging buffer: the oldest, whose map (started after its copy) is the first done */
  bool oldest = (usage & WGK_GPU_BUFFER_MAP_WRITE) != 0;
  int best = -1;
  for (int i = 0; pool && i < WGK_GPU_POOL_ENTRIES; i++) {
    const gpu_buffer *b = pool->bufs[i];
    if (b && b->size == size && b->usage == usage &&
        (best < 0 || (oldest ? pool->ticks[i] < pool->ticks[best] : pool->ticks[i] > pool->ticks[best])))
      best = i;
  }
  if (best < 0) {
    if (pool) pool->misses++;
    return NULL;
  }
  gpu_buffer *b = pool->bufs[best];
  pool->bufs[best] = NULL;
  pool->bytes -= b->size;
  pool->hits++;
  return b;
}

void gpu_pool_put(gpu_pool *pool, gpu_buffer *buf) {
  if (!buf) return;
  if (!pool || buf->external || buf->size > pool->max_bytes) {
    gpu_buffer_destroy(buf);
    return;
  }
  for (;;) { /* make room: a free slot, and the bytes under the cap */
    int free_slot = -1, oldest = -1;
    for (int i = 0; i < WGK_GPU_POOL_ENTRIES; i++) {
      if (!pool->bufs[i]) {
        if (free_slot < 0) free_slot = i;
      } else if (oldest < 0 || pool->ticks[i] < pool->ticks[oldest]) {
        oldest = i;
      }
    }
    if (free_slot >= 0 && pool->bytes + buf->size <= pool->max_bytes) {
      pool->bufs[free_slot] = buf;
      pool->ticks[free_slot] = ++pool->tick;
      pool->bytes += buf->size;
      return;
    }
    drop(pool, oldest); /* oldest exists: the pool is full or over the cap, so it holds something */
  }
}

uint64_t gpu_pool_size_class(uint64_t size, uint64_t max) {
  uint64_t c = 64u << 10;
  while (c < size && c <= UINT64_MAX / 2) c *= 2;
  if (c > max) c = size > max ? size : max;
  return c;
}

void gpu_upload_recycle(gpu_pool *pool, gpu_buffer *staging, bool submitted) {
  if (!staging) return;
  if (submitted && gpu_buffer_map_start(staging, WGPUMapMode_Write, 0, (size_t)staging->size))
    gpu_pool_put(pool, staging);
  else
    gpu_buffer_destroy(staging);
}
