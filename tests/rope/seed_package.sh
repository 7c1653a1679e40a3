#!/usr/bin/env bash
# The verbatim seed manifest with our template, as an unverified local package (no metadata.json): the ONNX
# conformance suite must pass on it exactly as on the shipped package.
# Usage: seed_package.sh WGK_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
wgk=$1 src=$2 work=$3
pkg="$work/ai.onnx.RotaryEmbedding"
rm -rf "$work" && mkdir -p "$pkg/build/webgpu"
cp "$src/kernels/ai.onnx.RotaryEmbedding/README.md" "$pkg/"
cp "$src/kernels/ai.onnx.RotaryEmbedding/build/webgpu/rotary-embedding.wgsl.jinja" "$pkg/build/webgpu/"
cp "$src/../shared/reference/seeds/rotary-embedding.manifest.json" "$pkg/build/webgpu/manifest.json"
WGK_KERNEL_PATH="$work" "$wgk" onnx-test "$src/../shared/conformance/onnx-node-tests"/*/
