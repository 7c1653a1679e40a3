#!/usr/bin/env bash
# Bytes of host work per thread for a staged fill (WGK_HOST_SPAN) on a lent GPU (issue 14, decode end to end): a
# 1 MiB cache is filled in spans of 256 KiB (the default: 4 threads), 128 KiB or 64 KiB, with the default pool of
# 8 threads or 16; bench/rope_decode_ab (one process, one context per setting, alternating rounds), float32 twice;
# then test_transfer and `wgk bench --case decode` with the default and with the best span. Run through
# scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
ab=$BUILD/bench/rope_decode_ab
echo "== test_transfer"
"$BUILD/tests/test_transfer" 2>&1 | grep -E "OK|FAIL|PASSED|Failure|error"
nproc
for pass in 1 2; do
  echo "== A/B pass $pass"
  "$ab" $rope - WGK_HOST_SPAN=131072 WGK_HOST_SPAN=65536 WGK_HOST_THREADS=16 WGK_HOST_SPAN=131072,WGK_HOST_THREADS=16 \
    WGK_HOST_SPAN=65536,WGK_HOST_THREADS=16
done
for span in 262144 131072 65536; do
  echo "== wgk bench decode, WGK_HOST_SPAN=$span WGK_HOST_THREADS=16"
  WGK_HOST_SPAN=$span WGK_HOST_THREADS=16 "$BUILD/wgk" bench $rope --case decode --json "$OUT/decode-span$span.json" 2>&1 |
    grep -E "^(decode)|e2e us|transfer:|host transfers"
done
