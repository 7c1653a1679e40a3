#!/usr/bin/env bash
# The fourteenth session's library on a lent GPU (issue 14): `wgk bench` with each figure's repeats dealt from one
# series (the drift over each series reported beside). First the GPU's interrupt lines and three short processes
# of decode float32 alone (run 1 found whole processes whose bare submit + wait took 55 us against 18 us in
# others; run 2 also pinned them to the first or the last core, JSON only: the log did not come back), then
# RotaryEmbedding twice and SparseAttention once, then `wgk test` of both packages. Run through
# scripts/gpu-run.sh; results under $OUT (four files: more do not all come back).
. "$(dirname "$0")/h200-common.sh"
echo "== cores: $(nproc), allowed $(grep Cpus_allowed_list /proc/self/status | cut -f2)"
lscpu | grep -E "NUMA|Model name|Socket" || true
echo "== the GPU's interrupts (where visible): per-CPU counts of the busiest nvidia lines"
grep -iE "nvidia|nvkm" /proc/interrupts | head -4 | cut -c1-400 || true
for irq in $(grep -iE "nvidia" /proc/interrupts | cut -d: -f1 | head -4); do
  echo "irq $irq affinity $(cat /proc/irq/$irq/smp_affinity_list 2>/dev/null)"
done
for i in 1 2 3; do
  echo "== decode float32 alone, process $i ($(cut -d' ' -f1 /proc/uptime) s since boot)"
  "$BUILD/wgk" bench $rope --case decode_float32 2>&1 | grep -E "bare submit|^decode|e2e us|overhead:|us: resident"
done
bench_rope_twice
echo "== wgk bench SparseAttention"
"$BUILD/wgk" bench ./kernels/com.microsoft.SparseAttention --json "$OUT/sparse.json" 2>&1 |
  grep -E "^[a-z_0-9]+ +[a-z_0-9]+ +[0-9]|e2e us|transfer:|overhead:|REPEATS|repeat"
test_packages
