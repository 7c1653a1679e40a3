#!/usr/bin/env bash
# The fifteenth session's library on a lent GPU (issue 14): `wgk bench` of RotaryEmbedding four times in one go,
# alternating the default with `--off-irq-cpu` (every thread of the process kept off the CPU that takes the GPU's
# interrupts, where a wait sees the work done ~40 us late: bench/results/h200-2026-12-02-dealt-repeats.md), so the
# two are compared on one machine; each pass's host line says where the interrupts and the waits went. Then
# SparseAttention once with the option. Run through scripts/gpu-run.sh; results under $OUT (six files).
. "$(dirname "$0")/h200-common.sh"
echo "== cores: $(nproc), allowed $(grep Cpus_allowed_list /proc/self/status | cut -f2)"
echo "== the GPU's interrupt lines and their affinity"
grep -iE "nvidia" /proc/interrupts | head -4 | cut -c1-400 || true
for irq in $(grep -iE "nvidia" /proc/interrupts | cut -d: -f1 | head -4); do
  echo "irq $irq effective $(cat /proc/irq/$irq/effective_affinity_list 2>/dev/null) affinity $(cat /proc/irq/$irq/smp_affinity_list 2>/dev/null)"
done
show="^(decode|prompt|large)|^kept off|host:|transfer:|overhead:|REPEATS|repeats|INCONSISTENT"
for pass in 1 2; do
  echo "== wgk bench RoPE, pass $pass, default"
  "$BUILD/wgk" bench $rope --json "$OUT/rope-default$pass.json" 2>&1 | grep -E "$show"
  echo "== wgk bench RoPE, pass $pass, --off-irq-cpu"
  "$BUILD/wgk" bench $rope --off-irq-cpu --json "$OUT/rope-off$pass.json" 2>&1 | grep -E "$show"
done
echo "== wgk bench SparseAttention --off-irq-cpu"
"$BUILD/wgk" bench ./kernels/com.microsoft.SparseAttention --off-irq-cpu --json "$OUT/sparse-off.json" 2>&1 |
  grep -E "^[a-z_0-9]+ +[a-z_0-9]+ +[0-9]|^kept off|host:|transfer:|overhead:|REPEATS|INCONSISTENT"
