#!/usr/bin/env bash
# Whether the host's layout moves the figures on a lent GPU (issue 14: resident repeats spread 5-26% with the GPU
# flat): the CPUs and NUMA nodes, the GPU's node; `wgk bench --case decode` of RotaryEmbedding with the process
# on the GPU's node's CPUs (taskset) and without, alternating, twice each; the A/B of the decode call likewise.
# Run through scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
lscpu | grep -E "^(Model name|Socket|Core|Thread|NUMA|CPU\(s\)|CPU MHz|CPU max)" || true
node=-1
for d in /sys/bus/pci/devices/*; do
  [ "$(cat "$d/vendor" 2>/dev/null)" = 0x10de ] && [ "$(cat "$d/class" 2>/dev/null | cut -c1-6)" = 0x0302 ] &&
    { node=$(cat "$d/numa_node"); echo "GPU $(basename "$d") numa_node $node"; }
done
cpus=$(cat /sys/devices/system/node/node${node}/cpulist 2>/dev/null || echo "")
[ -n "$cpus" ] || cpus=$(cat /sys/devices/system/node/node0/cpulist 2>/dev/null || echo 0-7)
echo "pinned runs use CPUs $cpus"
cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo "no cpufreq governor visible"
for pass in 1 2; do
  for pin in yes no; do
    echo "== wgk bench decode, pass $pass, pinned $pin"
    pre=""; [ $pin = yes ] && pre="taskset -c $cpus"
    $pre "$BUILD/wgk" bench $rope --case decode --json "$OUT/decode-pin$pin-pass$pass.json" 2>&1 |
      grep -E "^(decode)|e2e us|REPEATS|repeats,"
  done
done
for pin in yes no; do
  echo "== A/B, pinned $pin"
  pre=""; [ $pin = yes ] && pre="taskset -c $cpus"
  $pre "$BUILD/bench/rope_decode_ab" $rope -
done
