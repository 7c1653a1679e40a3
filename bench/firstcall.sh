#!/bin/bash
# First call of RotaryEmbedding (decode: X [1,32,1,128] f32, caches [2048,64], one position id) in a fresh
# process, cold and warm pipeline caches. Each run is a new `wgk run` process with its own XDG_CACHE_HOME:
#   cold        empty folder: neither wgk's pipeline cache nor Mesa's shader cache
#   warm        both filled by the run before
#   wgk only    wgk's pipeline cache warm, Mesa's emptied
#   mesa only   Mesa's warm, wgk's off (WGK_PIPELINE_CACHE=0)
# Prints per config the median (and min-max) of the process wall time (Dawn instance, adapter, device, package
# load, plan, compile, run, readback, exit) and of the call as `wgk run -v` reports it ("call 1: wall").
# Usage: bench/firstcall.sh WGK [REPS]
set -eu
wgk=$1
reps=${2:-5}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
/usr/bin/python3 - "$t" <<'PY'
import sys, numpy as np
r = np.random.default_rng(0)
np.save(sys.argv[1] + "/x.npy", r.standard_normal((1, 32, 1, 128)).astype(np.float32))
np.save(sys.argv[1] + "/c.npy", r.standard_normal((2048, 64)).astype(np.float32))
np.save(sys.argv[1] + "/p.npy", np.array([[7]], dtype=np.int64))
PY
unset MESA_SHADER_CACHE_DIR
one() { # $1 cache folder; prints "process_ms call_ms"
  local s e out
  s=$(date +%s%N)
  out=$(HOME=$t XDG_CACHE_HOME=$1 "$wgk" run ai.onnx.RotaryEmbedding --in X="$t/x.npy" --in cos_cache="$t/c.npy" \
    --in sin_cache="$t/c.npy" --in position_ids="$t/p.npy" -v 2>&1)
  e=$(date +%s%N)
  echo "$(( (e - s) / 1000000 )) $(sed -nE 's/^call 1: .*wall ([0-9.]+) ms.*/\1/p' <<<"$out")"
}
stats() { /usr/bin/python3 -c "
import sys, statistics as st
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
p = [r[0] for r in rows]; c = [r[1] for r in rows]
print(f'{st.median(p):8.0f} ({min(p):.0f}-{max(p):.0f}) {st.median(c):10.1f} ({min(c):.1f}-{max(c):.1f})')"; }
printf '%-10s %s\n' config "process ms (min-max)   call ms (min-max)"
for config in cold warm "wgk only" "mesa only"; do
  for i in $(seq "$reps"); do
    d=$t/cache-$i
    case $config in
    cold) rm -rf "$d"; one "$d" ;;
    warm) one "$d" ;;
    "wgk only") rm -rf "$d"/mesa_shader_cache*; one "$d" ;;
    "mesa only") WGK_PIPELINE_CACHE=0 one "$d" ;;
    esac
  done | stats | sed "s/^/$(printf '%-10s' "$config") /"
done
