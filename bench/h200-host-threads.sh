#!/usr/bin/env bash
# Host threads for staged transfers on a lent GPU: RotaryEmbedding end to end (`wgk bench`, float32 and float16
# decode, prompt and large) with WGK_HOST_THREADS=1 (every fill and drain on the calling thread) and with the
# default pool (8, the caller's included), twice in turn. Run through scripts/gpu-run.sh; results under $OUT.
set -u
BUILD=${BUILD:-build}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
rope=./kernels/ai.onnx.RotaryEmbedding
for pass in 1 2; do
  for t in 1 8; do
    echo "== pass $pass, WGK_HOST_THREADS=$t"
    WGK_HOST_THREADS=$t "$BUILD/wgk" bench $rope --json "$OUT/rope-threads$t-pass$pass.json" 2>&1 |
      grep -E "^(decode|prompt|large)|e2e us|transfer:|host transfers"
  done
done
