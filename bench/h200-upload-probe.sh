#!/usr/bin/env bash
# Where the decode upload's time goes on a lent GPU (issue 14): bench/upload_probe for 1 and 2 MiB (host writes
# into a MAP_WRITE staging mapping on 1-16 threads against host memory, reads from it, the GPU's copy from staging
# and between device buffers), then the in-process A/B of the decode call with spans of 512 KiB and 1 MiB (2 and 1
# threads a cache) against the default. Run through scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
for mib in 1 2; do
  echo "== upload_probe $mib MiB"
  "$BUILD/bench/upload_probe" $mib
done
for pass in 1 2; do
  echo "== A/B pass $pass"
  "$BUILD/bench/rope_decode_ab" $rope - WGK_HOST_SPAN=524288 WGK_HOST_SPAN=1048576 WGK_HOST_THREADS=2
done
