#!/usr/bin/env bash
# Host threads that spin a while for the next staged piece before they sleep (WGK_HOST_SPIN_US) on a lent GPU
# (issue 14, decode end to end): bench/rope_decode_ab (one process, one context per setting, alternating rounds)
# with the default (100 us), 0 (sleep at once: the library before), 300 us, and the default with 2 threads a cache
# or with submitting during the fill, float32 twice and float16 once; test_workers and test_transfer; then
# `wgk bench` of RotaryEmbedding twice. Run through scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
run_tests test_workers test_transfer test_run_read
for pass in 1 2; do
  echo "== A/B pass $pass"
  "$BUILD/bench/rope_decode_ab" $rope - WGK_HOST_SPIN_US=0 WGK_HOST_SPIN_US=300 WGK_HOST_SPAN=524288 \
    WGK_SUBMIT_DURING_FILL=1
done
"$BUILD/bench/rope_decode_ab" $rope --f16 - WGK_HOST_SPIN_US=0
bench_rope_twice
