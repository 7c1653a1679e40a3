#!/usr/bin/env bash
# Issue 14's decode transfer goal on a lent GPU, with a call's host inputs in one block (one copy; runtime/block.c):
# `wgk bench --case decode --off-irq-cpu` three times with blocks (the default) and three times without
# (WGK_BLOCK_MAX=0: each input on its own, as before), alternating, then SparseAttention's decode cases once each
# way. Run through scripts/gpu-run.sh; results under $OUT (log.txt and the JSON of each pass).
. "$(dirname "$0")/h200-common.sh"
show="^(decode)|^kept off|e2e us|transfer:|link was slower|overhead:|REPEATS|INCONSISTENT"
bench() { # package, name, env assignments...
  local pkg=$1 name=$2; shift 2
  echo "== wgk bench $(basename "$pkg") decode --off-irq-cpu, $name"
  env "$@" "$BUILD/wgk" bench "$pkg" --case decode --off-irq-cpu --json "$OUT/$name.json" 2>&1 | grep -E "$show"
}
for pass in 1 2 3; do
  bench $rope rope-block$pass
  bench $rope rope-apart$pass WGK_BLOCK_MAX=0
done
bench ./kernels/com.microsoft.SparseAttention sparse-block
bench ./kernels/com.microsoft.SparseAttention sparse-apart WGK_BLOCK_MAX=0
