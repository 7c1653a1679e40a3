#!/usr/bin/env bash
# The thirteenth session's final library on a lent GPU (issue 14): the transfer, wait and call tests; the decode
# call taken apart (bench/h200-decode-apart.sh's settings); `wgk bench` of RotaryEmbedding twice and `wgk test` of
# both packages. Run through scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
run_tests test_workers test_transfer test_run_read test_run_host test_gpu
echo "== A/B"
for dt in "" --f16; do
  "$BUILD/bench/rope_decode_ab" $rope $dt run-host run-host,caches-resident resident-read resident-wait
done
bench_rope_twice
test_packages
