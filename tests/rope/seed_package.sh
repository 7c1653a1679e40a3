#!/usr/bin/env bash
# The seed-format fixture's manifest (tests/cli/seed-packages/ai.onnx.RotaryEmbedding) with the shipped package's
# templates, as an unverified local package (no metadata.json): the ONNX conformance suite must pass on it exactly
# as on the shipped package.
# Usage: seed_package.sh WGK_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
wgk=$1 src=$2 work=$3
seed="$src/tests/cli/seed-packages/ai.onnx.RotaryEmbedding"
shipped="$src/kernels/ai.onnx.RotaryEmbedding"
pkg="$work/ai.onnx.RotaryEmbedding"
rm -rf "$work" && mkdir -p "$pkg/build/webgpu"
cp "$shipped/README.md" "$pkg/"
cp "$shipped"/build/webgpu/*.jinja "$pkg/build/webgpu/"
cp "$seed/build/webgpu/manifest.json" "$pkg/build/webgpu/"
exec "$(dirname "$0")/onnx_conformance.sh" "$wgk" "$src/tests/conformance/onnx-node-tests" "$work"
