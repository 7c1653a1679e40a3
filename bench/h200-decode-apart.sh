#!/usr/bin/env bash
# Where the end-to-end decode call's time goes past a resident call's (issue 14's transfer goal): in one process,
# wgk_call_run_host with every input from the host, the same with the caches' tensors made once (only x and the
# positions from the host), and wgk_call_run_read on tensors made once; float32 and float16. Run through
# scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
echo "== A/B"
for dt in "" --f16; do
  "$BUILD/bench/rope_decode_ab" $rope $dt run-host run-host,caches-resident resident-read resident-wait
done
