#!/usr/bin/env bash
# Deferred upload copies on a lent GPU (issue 14, decode end to end): bench/rope_decode_ab (one process, one
# context per setting, alternating rounds) with the copies deferred or submitted at once, with 1, 8 and 16 host
# threads, float32 and float16 (whose 512 KiB caches go through queue writes unless WGK_QUEUE_WRITE_MAX is lower);
# then `wgk bench` of RotaryEmbedding twice and `wgk test` of both packages. Run through scripts/gpu-run.sh;
# results under $OUT.
. "$(dirname "$0")/h200-common.sh"
ab=$BUILD/bench/rope_decode_ab
for pass in 1 2; do
  echo "== A/B pass $pass"
  "$ab" $rope WGK_DEFER_UPLOADS=1 WGK_DEFER_UPLOADS=0 WGK_DEFER_UPLOADS=1,WGK_HOST_THREADS=1 \
    WGK_DEFER_UPLOADS=1,WGK_HOST_THREADS=16
  "$ab" $rope --f16 WGK_DEFER_UPLOADS=1 WGK_DEFER_UPLOADS=0 WGK_DEFER_UPLOADS=1,WGK_QUEUE_WRITE_MAX=262144 \
    WGK_DEFER_UPLOADS=0,WGK_QUEUE_WRITE_MAX=262144
done
for pass in 1 2; do
  echo "== wgk bench RoPE, pass $pass"
  "$BUILD/wgk" bench $rope --json "$OUT/rope-pass$pass.json" 2>&1 |
    grep -E "^(decode|prompt|large)|e2e us|transfer:|host transfers|overhead:"
done
test_packages
