#!/usr/bin/env bash
# Whether the resident call's bimodal host part (10-12 vs 15-19 µs between repeats, issue 14's repeats within 5%)
# follows the core the calling thread runs on: `wgk bench --case decode` three times unpinned and three times with
# the process on one core, alternating. Run through scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
nproc; cat /proc/cpuinfo | grep "model name" | sort | uniq -c
for pass in 1 2 3; do
  for how in free pinned; do
    pre=""
    [ $how = pinned ] && pre="taskset -c 5"
    echo "== $how pass $pass"
    $pre "$BUILD/wgk" bench $rope --case decode --json "$OUT/decode-$how-$pass.json" 2>&1 | grep -E "^decode|REPEAT|repeat" | head -8
  done
done
