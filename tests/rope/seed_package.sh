#!/usr/bin/env bash
# The seed-format fixture (tests/cli/seed-packages/ai.onnx.RotaryEmbedding: its manifest and templates) as an
# unverified local package (no metadata.json): the ONNX conformance suite must pass on it exactly as on the
# shipped package.
# Usage: seed_package.sh WGK_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
wgk=$1 src=$2 work=$3
seed="$src/tests/cli/seed-packages/ai.onnx.RotaryEmbedding"
pkg="$work/ai.onnx.RotaryEmbedding"
rm -rf "$work" && mkdir -p "$pkg/build/webgpu"
cp "$seed/README.md" "$pkg/"
cp "$seed/build/webgpu/manifest.json" "$seed"/build/webgpu/*.jinja "$pkg/build/webgpu/"
exec "$(dirname "$0")/onnx_conformance.sh" "$wgk" "$src/tests/conformance/onnx-node-tests" "$work"
