#!/usr/bin/env bash
# The decode call with and without the input block (WGK_BLOCK_MAX=0), in one process each dtype, rounds alternating
# (bench/rope_decode_ab), on the CPUs off the one that takes the GPU's interrupts (the busiest in /proc/interrupts):
# run-host as it is, and with the caches resident (only x and the positions from the host: the small inputs' own
# cost). Run through scripts/gpu-run.sh; results under $OUT (log.txt).
. "$(dirname "$0")/h200-common.sh"
irq=$(grep -E "nvidia" /proc/interrupts | awk '{m=-1; c=-1; for (i=2;i<=NF;i++) if ($i ~ /^[0-9]+$/ && $i>m) {m=$i; c=i-2}; if (m>M) {M=m; C=c}} END {print C}')
cpus=$(python3 -c "import os,sys; print(','.join(str(c) for c in sorted(os.sched_getaffinity(0)) if str(c) != sys.argv[1]))" "$irq")
echo "== interrupt CPU $irq; running on $cpus"
for dt in "" --f16; do
  echo "== rope_decode_ab $dt"
  taskset -c "$cpus" "$BUILD/bench/rope_decode_ab" $rope $dt --rounds 12 --calls 200 run-host run-host,WGK_BLOCK_MAX=0 \
    run-host,caches-resident run-host,caches-resident,WGK_BLOCK_MAX=0
done
