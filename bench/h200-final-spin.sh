#!/usr/bin/env bash
# The library with spinning host threads and the 256 KiB queue-write limit on a lent GPU (issue 14): the transfer
# tests; bench/rope_decode_ab float32 and float16 (the default against the spin off); `wgk bench` of RotaryEmbedding
# twice and `wgk test` of both packages. Run through scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
run_tests test_workers test_transfer test_run_read
echo "== A/B"
"$BUILD/bench/rope_decode_ab" $rope - WGK_HOST_SPIN_US=0
"$BUILD/bench/rope_decode_ab" $rope --f16 - WGK_HOST_SPIN_US=0 WGK_QUEUE_WRITE_MAX=524288
bench_rope_twice
test_packages
