#!/usr/bin/env bash
# The fourteenth session's library on a lent GPU (issue 14): `wgk bench` with each figure's repeats dealt from one
# series (the drift over each series reported beside). First three short processes of decode float32 alone (does
# the first process on a freshly started machine wait longer?), then RotaryEmbedding twice and SparseAttention
# once, then `wgk test` of both packages. Run through scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
for i in 1 2 3; do
  echo "== decode float32 alone, process $i ($(cut -d' ' -f1 /proc/uptime) s since boot)"
  "$BUILD/wgk" bench $rope --case decode_float32 --json "$OUT/decode-alone$i.json" 2>&1 |
    grep -E "bare submit|^decode|e2e us|overhead:|us: resident"
done
bench_rope_twice
echo "== wgk bench SparseAttention"
"$BUILD/wgk" bench ./kernels/com.microsoft.SparseAttention --json "$OUT/sparse.json" 2>&1 |
  grep -E "^[a-z_0-9]+ +[a-z_0-9]+ +[0-9]|e2e us|transfer:|overhead:|REPEATS|repeat"
test_packages
