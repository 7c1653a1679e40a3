#!/usr/bin/env bash
# The final library of the session on a lent GPU (issue 14): the transfer tests; bench/rope_decode_ab float32 and
# float16, the call in steps against wgk_call_run_host (its small inputs written beside the fill), with its phases;
# `wgk bench` of RotaryEmbedding twice and `wgk test` of both packages. Run through scripts/gpu-run.sh; results
# under $OUT.
. "$(dirname "$0")/h200-common.sh"
run_tests test_workers test_transfer test_run_read test_run_host
echo "== A/B"
"$BUILD/bench/rope_decode_ab" $rope - run-host
"$BUILD/bench/rope_decode_ab" $rope --f16 - run-host
bench_rope_twice
test_packages
