#!/usr/bin/env bash
# Experiment: a waiting thread on the CPU that takes the GPU's interrupts (14 on run 16's machine), polling with
# sched_yield between polls or without; then unpinned with the yield. WGK_WAIT_YIELD was a patch of run 6 (not
# kept: it did not help); on the library as committed the variable does nothing.
. "$(dirname "$0")/h200-common.sh"
for y in 1 "" 1; do
  echo "== core 14 yield=${y:-0}"
  taskset -c 14 env ${y:+WGK_WAIT_YIELD=1} "$BUILD/wgk" bench $rope --case decode_float32 2>&1 | grep -E "bare submit|^decode|overhead:|us: resident"
done
echo "== unpinned yield=1"
WGK_WAIT_YIELD=1 "$BUILD/wgk" bench $rope --case decode_float32 2>&1 | grep -E "bare submit|^decode|overhead:|us: resident|e2e us"
grep -E "nvidia" /proc/interrupts | head -1 | cut -c1-300
