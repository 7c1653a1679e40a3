#!/usr/bin/env bash
# The decode call's inputs part by input, with the library's counters (pool misses, map waits, submissions a call),
# on a lent GPU (issue 14): bench/rope_decode_ab with the default, 2 threads a cache (WGK_HOST_SPAN=524288) and
# submitting during the fill, float32 twice and float16 once. Run through scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
for pass in 1 2; do
  echo "== A/B pass $pass"
  "$BUILD/bench/rope_decode_ab" $rope - WGK_HOST_SPAN=524288 WGK_SUBMIT_DURING_FILL=1 separate-read
done
"$BUILD/bench/rope_decode_ab" $rope --f16 -
