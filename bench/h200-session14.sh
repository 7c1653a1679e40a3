#!/usr/bin/env bash
# The fourteenth session's library on a lent GPU (issue 14): `wgk bench` with each figure's repeats dealt from one
# series (the drift over each series reported beside): RotaryEmbedding twice and SparseAttention once, then
# `wgk test` of both packages. Run through scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
bench_rope_twice
echo "== wgk bench SparseAttention"
"$BUILD/wgk" bench ./kernels/com.microsoft.SparseAttention --json "$OUT/sparse.json" 2>&1 |
  grep -E "^[a-z_0-9]+ +[a-z_0-9]+ +[0-9]|e2e us|transfer:|overhead:|REPEATS|repeat"
test_packages
