/* RotaryEmbedding host checks: shape rules with their values, then every position id against the cache rows. */
#include "ops/ai.onnx.RotaryEmbedding/host_check.h"

#include <inttypes.h>
#include <stddef.h>

/* Head size of X, or a refusal: 3D X needs num_heads dividing the hidden size; 4D X has it in dim 3. */
static wgk_status head_size(const ops_rotary_check_args *a, int64_t *out, util_error *err) {
  const ops_hostcheck_tensor *x = &a->x;
  if (x->rank == 4) {
    *out = x->shape[3];
  } else if (x->rank == 3) {
    if (!a->has_num_heads)
      return util_error_refuse(err, "num_heads",
                               "required for rank-3 x (batch, sequence, hidden %" PRId64 ") but absent", x->shape[2]);
    if (a->num_heads < 1)
      return util_error_refuse(err, "num_heads", "must be at least 1 (got %" PRId64 ")", a->num_heads);
    if (x->shape[2] % a->num_heads)
      return util_error_refuse(err, "x (X)", "hidden size %" PRId64 " is not divisible by num_heads %" PRId64,
                               x->shape[2], a->num_heads);
    *out = x->shape[2] / a->num_heads;
  } else {
    return util_error_refuse(err, "x (X)", "rank must be 3 or 4 (got %d)", x->rank);
  }
  if (*out % 2) return util_error_refuse(err, "x (X)", "head size %" PRId64 " is odd; rotation needs pairs", *out);
  return WGK_OK;
}

/* The caches' last dim must be rot/2, where rot is rotary_embedding_dim (at most the head size) or the head size. */
static wgk_status cache_width(const ops_rotary_check_args *a, int64_t head, util_error *err) {
  int64_t rot = a->rotary_embedding_dim ? a->rotary_embedding_dim : head;
  if (rot < 0 || rot > head || rot % 2)
    return util_error_refuse(err, "rotary_embedding_dim", "%" PRId64 " must be even and at most the head size %" PRId64,
                             a->rotary_embedding_dim, head);
  const ops_hostcheck_tensor *c[2] = {&a->cos_cache, &a->sin_cache};
  const char *names[2] = {"cos (cos_cache)", "sin (sin_cache)"};
  int want_rank = a->position_ids.present ? 2 : 3;
  for (int i = 0; i < 2; i++) {
    if (c[i]->rank != want_rank)
      return util_error_refuse(err, names[i], "rank must be %d %s position_ids (got %d)", want_rank,
                               a->position_ids.present ? "with" : "without", c[i]->rank);
    int64_t w = c[i]->shape[c[i]->rank - 1];
    if (w * 2 != rot)
      return util_error_refuse(err, names[i], "width %" PRId64 " is not rot/2 = %" PRId64 " (rot = %s %" PRId64 ")", w,
                               rot / 2, a->rotary_embedding_dim ? "rotary_embedding_dim" : "head size", rot);
  }
  return WGK_OK;
}

/* Every position id in [0, cache rows): ONNX Runtime's CPU kernel fails on others, and so do we. */
static wgk_status positions(const ops_rotary_check_args *a, util_error *err) {
  const ops_hostcheck_tensor *p = &a->position_ids;
  if (!p->present || !p->data || p->rank != 2) return WGK_OK;
  int64_t rows = a->cos_cache.shape[0];
  int64_t cols = p->shape[1];
  for (int64_t i = 0; i < p->shape[0] * cols; i++) {
    int64_t v = p->dtype == WGK_DTYPE_INT32 ? ((const int32_t *)p->data)[i] : ((const int64_t *)p->data)[i];
    if (v < 0 || v >= rows)
      return util_error_refuse(err, "positionIds (position_ids)",
                               "value %" PRId64 " at [%" PRId64 ", %" PRId64
                               "] is out of range: must be in [0, %" PRId64 ") (cos_cache has %" PRId64 " rows)",
                               v, i / cols, i % cols, rows, rows);
  }
  return WGK_OK;
}

wgk_status ops_rotary_check(const ops_rotary_check_args *a, util_error *err) {
  int64_t head = 0;
  wgk_status st = head_size(a, &head, err);
  if (st == WGK_OK) st = cache_width(a, head, err);
  if (st == WGK_OK) st = positions(a, err);
  return st;
}
