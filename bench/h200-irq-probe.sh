#!/usr/bin/env bash
# Experiment: is a wait slow when the waiting thread runs on the CPU that takes the GPU's interrupts? A first
# process makes interrupts, so the busiest CPU shows; then decode float32 alone, pinned to it and to another core.
. "$(dirname "$0")/h200-common.sh"
"$BUILD/wgk" bench $rope --case decode_float32 > /dev/null 2>&1
irqcpu=$(grep -E "nvidia" /proc/interrupts | head -1 | awk '{m=-1; c=0; for (i=2;i<=17;i++) if ($i>m) {m=$i; c=i-2}; print c}')
other=$(( (irqcpu + 8) % 16 ))
echo "interrupts on CPU $irqcpu; the other core $other"
for round in 1 2; do
  for core in $irqcpu $other; do
    echo "== round $round core $core"
    taskset -c $core "$BUILD/wgk" bench $rope --case decode_float32 2>&1 | grep -E "bare submit|^decode|overhead:|us: resident"
  done
done
grep -E "nvidia" /proc/interrupts | head -1 | cut -c1-300
