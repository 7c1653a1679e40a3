#!/usr/bin/env bash
# Host threads that spin a while for the next staged piece before they sleep (WGK_HOST_SPIN_US) on a lent GPU
# (issue 14, decode end to end): bench/rope_decode_ab (one process, one context per setting, alternating rounds)
# with the default (100 us), 0 (sleep at once: the library before), 300 us, and the default with 2 threads a cache
# or with submitting during the fill, float32 twice and float16 once; test_workers and test_transfer; then
# `wgk bench` of RotaryEmbedding twice. Run through scripts/gpu-run.sh; results under $OUT.
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
for pass in 1 2; do
  echo "== A/B pass $pass"
  "$BUILD/bench/rope_decode_ab" $rope - WGK_HOST_SPIN_US=0 WGK_HOST_SPIN_US=300 WGK_HOST_SPAN=524288 \
    WGK_SUBMIT_DURING_FILL=1
done
"$BUILD/bench/rope_decode_ab" $rope --f16 - WGK_HOST_SPIN_US=0
for pass in 1 2; do
  echo "== wgk bench RoPE, pass $pass"
  "$BUILD/wgk" bench $rope --json "$OUT/rope-pass$pass.json" 2>&1 |
    grep -E "^(decode|prompt|large)|e2e us|transfer:|host transfers|overhead:|REPEATS|repeat"
done
