#!/usr/bin/env bash
# wgk_call_run_host on a lent GPU (issue 14): the public loader's call in one, its caches filled on the host threads
# while the call records. The transfer tests; bench/rope_decode_ab float32 and float16, the call in one against
# the steps (tensors made, then wgk_call_run_read); `wgk bench` of RotaryEmbedding twice (its e2e now the call in
# one, e2eParts the steps) and `wgk test` of both packages. Run through scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
run_tests test_workers test_transfer test_run_read test_run_host
echo "== A/B"
"$BUILD/bench/rope_decode_ab" $rope - run-host
"$BUILD/bench/rope_decode_ab" $rope --f16 - run-host
"$BUILD/bench/rope_decode_ab" $rope run-host run-host,WGK_HOST_SPAN=131072 run-host,WGK_HOST_SPAN=524288
bench_rope_twice
test_packages
