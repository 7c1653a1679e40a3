#!/usr/bin/env bash
# The sixteenth session's question on a lent GPU (issue 14, the decode transfer goal): how much of the decode call's
# fixed cost is the number of copies in its submission? upload_probe times the decode inputs moved in five shapes
# (wgk's path, four staged copies, one copy into one buffer, the caches alone in two copies or one), each a
# submission with its wait, for float32's 2 MiB of caches and float16's 1 MiB. Then `wgk bench --case decode
# --off-irq-cpu` twice with the default and twice with every input staged (WGK_QUEUE_WRITE_MAX=0: x through the
# staging buffers, not a queue write), alternating. The probe runs on the CPUs the first bench kept.
# Run through scripts/gpu-run.sh; results under $OUT (five files).
. "$(dirname "$0")/h200-common.sh"
show="^(decode)|^kept off|host:|e2e us|transfer:|link was slower|overhead:|REPEATS|repeats|INCONSISTENT"
bench_decode() { # name, env assignments...
  local name=$1; shift
  echo "== wgk bench RoPE decode --off-irq-cpu, $name"
  env "$@" "$BUILD/wgk" bench $rope --case decode --off-irq-cpu --json "$OUT/decode-$name.json" 2>&1 | grep -E "$show"
}
bench_decode default1
cpus=$(python3 bench/peers/cpus_beside.py "$OUT/decode-default1.json" 2>/dev/null)
for mib in 2 1; do
  echo "== upload_probe $mib MiB, on CPUs ${cpus:-any}"
  ${cpus:+taskset -c $cpus} "$BUILD/bench/upload_probe" $mib 2>&1 | grep -vE "threads +(2|4|16):"
done
bench_decode staged1 WGK_QUEUE_WRITE_MAX=0
bench_decode default2
bench_decode staged2 WGK_QUEUE_WRITE_MAX=0
