#!/usr/bin/env bash
# SparseAttention on a lent GPU, after scripts/gpu-check.sh: `wgk bench` of every bench.json case, `wgk tune` of the
# float32 decode and prompt cases (into $OUT/tuning.json, not the machine's cache), and the first call of a fresh
# process for both packages (`wgk bench --first-call`). Run through scripts/gpu-run.sh; results under $OUT.
set -u
BUILD=${BUILD:-build}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
sparse=./kernels/com.microsoft.SparseAttention
export WGK_TUNING_CACHE=$OUT/tuning.json
echo "== wgk bench $sparse"
"$BUILD/wgk" bench $sparse --json "$OUT/sparse.json" 2>&1
for c in phi3_decode_past8191_f32 phi3_prompt_4096_f32; do
  echo "== wgk tune $c"
  timeout "${TUNE_S:-150}" "$BUILD/wgk" tune $sparse --case $c 2>&1 | tail -n 3
done
for p in ./kernels/ai.onnx.RotaryEmbedding $sparse; do
  echo "== wgk bench --first-call $p"
  WGK_TUNING_CACHE=/nonexistent/tuning.json "$BUILD/wgk" bench $p --first-call 2>&1 | tail -n 15
done
