#!/usr/bin/env bash
# wgk_call_run_host's decode call by phase (medians of the library's own times) with 8, 4 and 2 host threads, float32
# and float16; then `wgk bench` of RotaryEmbedding twice, with batch and resident samples by time. Run through
# scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
run_tests test_run_host
echo "== A/B"
"$BUILD/bench/rope_decode_ab" $rope - run-host run-host,WGK_HOST_THREADS=4 run-host,WGK_HOST_THREADS=2
"$BUILD/bench/rope_decode_ab" $rope --f16 - run-host run-host,WGK_HOST_THREADS=2
bench_rope_twice
