#!/usr/bin/env bash
# The fifteenth session's library on a lent GPU (issue 14): `wgk bench` of RotaryEmbedding four times in one go,
# alternating the default with `--off-irq-cpu` (every thread of the process kept off the CPU that a burst of bare
# submissions interrupted, where a wait sees the work done ~40 us late:
# bench/results/h200-2026-12-02-dealt-repeats.md), so the two are compared on one machine; each pass's host line
# says where the interrupts and the waits went. Then the option's refusal when the process may run only there, its
# move when one other CPU is allowed, SparseAttention once with it, and `wgk test` of both packages. Run through
# scripts/gpu-run.sh; results under $OUT (six files).
. "$(dirname "$0")/h200-common.sh"
echo "== cores: $(nproc), allowed $(grep Cpus_allowed_list /proc/self/status | cut -f2)"
echo "== the GPU's interrupt lines and their affinity"
grep -iE "nvidia" /proc/interrupts | head -4 | cut -c1-400 || true
for irq in $(grep -iE "nvidia" /proc/interrupts | cut -d: -f1 | head -4); do
  echo "irq $irq effective $(cat /proc/irq/$irq/effective_affinity_list 2>/dev/null) affinity $(cat /proc/irq/$irq/smp_affinity_list 2>/dev/null)"
done
show="^(decode|prompt|large)|^kept off|host:|transfer:|link was slower|overhead:|REPEATS|repeats|INCONSISTENT"
for pass in 1 2; do
  echo "== wgk bench RoPE, pass $pass, default"
  "$BUILD/wgk" bench $rope --json "$OUT/rope-default$pass.json" 2>&1 | grep -E "$show"
  echo "== wgk bench RoPE, pass $pass, --off-irq-cpu"
  "$BUILD/wgk" bench $rope --off-irq-cpu --json "$OUT/rope-off$pass.json" 2>&1 | grep -E "$show"
done
irq=$(grep -E "nvidia" /proc/interrupts | awk '{m=-1; c=-1; for (i=2;i<=17;i++) if ($i>m) {m=$i; c=i-2}; if (m>M) {M=m; C=c}} END {print C}')
echo "== pinned to the interrupt CPU $irq alone: --off-irq-cpu must refuse, moving nothing"
taskset -c "$irq" "$BUILD/wgk" bench $rope --case decode_float32 --off-irq-cpu 2>&1 | grep -E "off-irq-cpu|^kept"
echo "rc ${PIPESTATUS[0]}"
lo=$(( irq > 0 ? irq - 1 : irq + 1 ))
echo "== allowed CPUs $lo,$irq: kept off $irq, on $lo"
taskset -c "$lo,$irq" "$BUILD/wgk" bench $rope --case decode_float32 --off-irq-cpu 2>&1 | grep -E "$show"
echo "== wgk bench SparseAttention --off-irq-cpu"
"$BUILD/wgk" bench ./kernels/com.microsoft.SparseAttention --off-irq-cpu --json "$OUT/sparse-off.json" 2>&1 |
  grep -E "^[a-z_0-9]+ +[a-z_0-9]+ +[0-9]|^kept off|host:|transfer:|overhead:|REPEATS|INCONSISTENT"
test_packages
