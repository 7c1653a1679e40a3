#!/usr/bin/env bash
# The library with spinning host threads and the 256 KiB queue-write limit on a lent GPU (issue 14): the transfer
# tests; bench/rope_decode_ab float32 and float16 (the default against the spin off); `wgk bench` of RotaryEmbedding
# twice and `wgk test` of both packages. Run through scripts/gpu-run.sh; results under $OUT.
set -u
BUILD=${BUILD:-build}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
rope=./kernels/ai.onnx.RotaryEmbedding
for t in test_workers test_transfer test_run_read; do
  echo "== $t"
  "$BUILD/tests/$t" 2>&1 | grep -E "seed|FAIL|PASSED|Failure|error"
done
echo "== A/B"
"$BUILD/bench/rope_decode_ab" $rope - WGK_HOST_SPIN_US=0
"$BUILD/bench/rope_decode_ab" $rope --f16 - WGK_HOST_SPIN_US=0 WGK_QUEUE_WRITE_MAX=524288
for pass in 1 2; do
  echo "== wgk bench RoPE, pass $pass"
  "$BUILD/wgk" bench $rope --json "$OUT/rope-pass$pass.json" 2>&1 |
    grep -E "^(decode|prompt|large)|e2e us|transfer:|host transfers|overhead:|REPEATS|repeat"
done
for pkg in $rope ./kernels/com.microsoft.SparseAttention; do
  echo "== wgk test $pkg"
  "$BUILD/wgk" test $pkg 2>&1 | tail -1
done
