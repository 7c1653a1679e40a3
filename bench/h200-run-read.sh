#!/usr/bin/env bash
# The call with its outputs read in its own submission (wgk_call_run_read) and deferred copies submitted during the
# next fill (WGK_SUBMIT_DURING_FILL) on a lent GPU (issue 14, decode end to end): test_run_read and test_transfer;
# bench/rope_decode_ab (one process, one context per setting, alternating rounds) with either on or off
# (`separate-read`: wgk_call_run, then wgk_tensor_read), float32 and float16; then `wgk bench` of RotaryEmbedding twice and `wgk test` of both
# packages. Run through scripts/gpu-run.sh; results under $OUT.
set -u
BUILD=${BUILD:-build}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
rope=./kernels/ai.onnx.RotaryEmbedding
ab=$BUILD/bench/rope_decode_ab
for t in test_run_read test_transfer; do
  echo "== $t"
  "$BUILD/tests/$t" 2>&1 | grep -E "seed|OK|FAIL|PASSED|Failure|error"
done
for pass in 1 2; do
  echo "== A/B pass $pass"
  "$ab" $rope - WGK_SUBMIT_DURING_FILL=1 separate-read WGK_SUBMIT_DURING_FILL=1,separate-read
  "$ab" $rope --f16 - separate-read
done
for pass in 1 2; do
  echo "== wgk bench RoPE, pass $pass"
  "$BUILD/wgk" bench $rope --json "$OUT/rope-pass$pass.json" 2>&1 |
    grep -E "^(decode|prompt|large)|e2e us|transfer:|host transfers|overhead:|REPEATS|repeat"
done
for pkg in $rope ./kernels/com.microsoft.SparseAttention; do
  echo "== wgk test $pkg"
  "$BUILD/wgk" test $pkg 2>&1 | tail -1
done
