#!/usr/bin/env bash
# Where wgk_call_run_host's decode call goes on a lent GPU (issue 14): bench/rope_decode_ab prints the library's
# times of the call's phases (inputs made, fill with the recording beside it, submit, outputs read with the wait),
# float32 with 8 and 4 host threads, and float16; then `wgk bench` of RotaryEmbedding twice. Run through
# scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
run_tests test_run_host
echo "== A/B"
"$BUILD/bench/rope_decode_ab" $rope - run-host run-host,WGK_HOST_THREADS=4
"$BUILD/bench/rope_decode_ab" $rope --f16 - run-host
bench_rope_twice
