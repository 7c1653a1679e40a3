#!/usr/bin/env bash
# The call with its outputs read in its own submission (wgk_call_run_read) and deferred copies submitted during the
# next fill (WGK_SUBMIT_DURING_FILL) on a lent GPU (issue 14, decode end to end): test_run_read and test_transfer;
# bench/rope_decode_ab (one process, one context per setting, alternating rounds) with either on or off
# (`separate-read`: wgk_call_run, then wgk_tensor_read), float32 and float16; then `wgk bench` of RotaryEmbedding twice and `wgk test` of both
# packages. Run through scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
ab=$BUILD/bench/rope_decode_ab
run_tests test_run_read test_transfer
for pass in 1 2; do
  echo "== A/B pass $pass"
  "$ab" $rope - WGK_SUBMIT_DURING_FILL=1 separate-read WGK_SUBMIT_DURING_FILL=1,separate-read
  "$ab" $rope --f16 - separate-read
done
bench_rope_twice
test_packages
