#!/usr/bin/env bash
# With the spinning host threads (d9c9586) on a lent GPU (issue 14, decode end to end): float16's 512 KiB caches
# staged on two threads (WGK_QUEUE_WRITE_MAX=262144) against queue writes (the default); float32's caches on 8
# threads (WGK_HOST_SPAN=131072, pool of 8 or 16) against 4; bench/rope_decode_ab, one process per dtype, twice.
# Run through scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
for pass in 1 2; do
  echo "== A/B pass $pass"
  "$BUILD/bench/rope_decode_ab" $rope --f16 - WGK_QUEUE_WRITE_MAX=262144 WGK_QUEUE_WRITE_MAX=262144,WGK_HOST_SPAN=131072
  "$BUILD/bench/rope_decode_ab" $rope - WGK_HOST_SPAN=131072 WGK_HOST_SPAN=131072,WGK_HOST_THREADS=16
done
