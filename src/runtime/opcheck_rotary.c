/* RotaryEmbedding: the runtime's host-check hook handing the call to the op's checks in kernels_host/
 * (position ids within the cache rows, and the shape rules with their values). ONNX Runtime's CUDA and WebGPU
 * kernels pass X through on a bad id; wgk refuses the call before anything runs (SYSTEM.md §5). */

#include "kernels_host/rotary_check.h"
#include "runtime/runtime_internal.h"

wgk_status wgk_opcheck_rotary(const wgk_manifest *m, const wgk_opcheck_port *ports, const wgk_value *attrs,
                              wgk_error *err) {
  wgk_rotary_check_args a = {0};
  wgk_status st = wgk_opcheck_view(m, ports, "X", false, &a.x, err);
  if (st == WGK_OK) st = wgk_opcheck_view(m, ports, "cos_cache", false, &a.cos_cache, err);
  if (st == WGK_OK) st = wgk_opcheck_view(m, ports, "sin_cache", false, &a.sin_cache, err);
  if (st == WGK_OK) st = wgk_opcheck_view(m, ports, "position_ids", true, &a.position_ids, err);
  if (st != WGK_OK) return st;
  if (!a.x.present || !a.cos_cache.present || !a.sin_cache.present) return WGK_OK; /* validation's job */
  const wgk_value *heads = attrs ? wgk_value_dict_get(attrs, "num_heads") : NULL;
  const wgk_value *rot = attrs ? wgk_value_dict_get(attrs, "rotary_embedding_dim") : NULL;
  a.has_num_heads = heads && wgk_value_is_number(heads);
  a.num_heads = a.has_num_heads ? wgk_value_as_int(heads) : 0;
  a.rotary_embedding_dim = rot && wgk_value_is_number(rot) ? wgk_value_as_int(rot) : 0;
  st = wgk_rotary_check(&a, err);
  if (st != WGK_OK) wgk_error_wrap_source(err, m->source, 0, 0, NULL);
  return st;
}
