#!/usr/bin/env bash
# The *_sgmat variants: chosen where the (described) device has subgroups and subgroup matrices, for float32;
# not for float16 or on a device without the feature; their attention template renders.
# Usage: sgmat_selection.sh WGK_BINARY SOURCE_DIR
set -euo pipefail
wgk=$1 pkg=$2/kernels/com.microsoft.SparseAttention dev=$(dirname "$0")/sgmat-device.json
args=(--shape query=1x32x64 --shape key=1x32x16 --shape value=1x32x16 --shape past_key=1x1x32x16
      --shape past_value=1x1x32x16 --shape block_row_indices=1x3 --shape block_col_indices=1x3
      --shape total_sequence_length=1 --shape key_total_sequence_lengths=1 --dtype M=int32
      --attr num_heads=4 --attr kv_num_heads=1 --attr sparse_block_size=16)
expect() { grep -q "$1" <<<"$2" || { echo "expected '$1' in:"; echo "$2"; exit 1; }; }
expect "variant  separate_sgmat" "$("$wgk" explain "$pkg" "${args[@]}" --dtype T=float32 --device "$dev")"
expect "variant  separate_flash$" "$("$wgk" explain "$pkg" "${args[@]}" --dtype T=float16 --device "$dev")"
echo '{"features": ["shader-f16", "subgroups"]}' > "${TMPDIR:-/tmp}/wgk-no-matrix.json"
expect "variant  separate_flash$" "$("$wgk" explain "$pkg" "${args[@]}" --dtype T=float32 --device "${TMPDIR:-/tmp}/wgk-no-matrix.json")"
wgsl=$("$wgk" render "$pkg" "${args[@]}" --dtype T=float32 --device "$dev" --pass attend)
expect "subgroupMatrixMultiplyAccumulate" "$wgsl"
expect "enable chromium_experimental_subgroup_matrix;" "$wgsl"
echo "sgmat selection: ok"
