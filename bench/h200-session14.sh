#!/usr/bin/env bash
# The fourteenth session's library on a lent GPU (issue 14): `wgk bench` with each figure's repeats dealt from one
# series (the drift over each series reported beside). First short processes of decode float32 alone, unpinned and
# pinned to the first or the last core (run 1 found whole processes whose bare submit + wait took 55 us against
# 18 us in others), then RotaryEmbedding twice and SparseAttention once, then `wgk test` of both packages. Run
# through scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
echo "== cores: $(nproc), allowed $(grep Cpus_allowed_list /proc/self/status | cut -f2)"
lscpu | grep -E "NUMA|Model name|Socket" || true
echo "== the GPU's interrupts (where visible): per-CPU counts of the busiest nvidia lines"
grep -iE "nvidia|nvkm" /proc/interrupts | head -4 | cut -c1-400 || true
for irq in $(grep -iE "nvidia" /proc/interrupts | cut -d: -f1 | head -4); do
  echo "irq $irq affinity $(cat /proc/irq/$irq/smp_affinity_list 2>/dev/null)"
done
last=$(($(nproc) - 1))
for i in 1 2 3; do
  for pin in "" 0 $last; do
    echo "== decode float32 alone, round $i, ${pin:+core $pin}${pin:-unpinned} ($(cut -d' ' -f1 /proc/uptime) s since boot)"
    ${pin:+taskset -c $pin} "$BUILD/wgk" bench $rope --case decode_float32 --json "$OUT/decode-alone$i${pin:+-core$pin}.json" 2>&1 |
      grep -E "bare submit|^decode|e2e us|overhead:|us: resident"
  done
done
bench_rope_twice
echo "== wgk bench SparseAttention"
"$BUILD/wgk" bench ./kernels/com.microsoft.SparseAttention --json "$OUT/sparse.json" 2>&1 |
  grep -E "^[a-z_0-9]+ +[a-z_0-9]+ +[0-9]|e2e us|transfer:|overhead:|REPEATS|repeat"
test_packages
