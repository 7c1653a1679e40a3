#!/bin/bash
# First call of RotaryEmbedding (decode: X [1,32,1,128] f32, caches [2048,64], one position id) in a fresh
# process, cold and warm pipeline caches. Each run is a new `wgk run` process with its own XDG_CACHE_HOME:
#   cold        empty folder: neither wgk's pipeline cache nor Mesa's shader cache
#   warm        both filled by the run before
#   wgk only    wgk's pipeline cache warm, Mesa's emptied
#   mesa only   Mesa's warm, wgk's off (WGK_PIPELINE_CACHE=0)
# Prints per config the median (and min-max) of the process wall time (Dawn instance, adapter, device, package
# load, plan, compile, run, readback, exit), of the call as `wgk run -v` reports it ("call 1: wall") and of the
# process beyond creating the device (the process less `wgk run -v`'s instance, adapter and device phases; issue
# 39's first-call figure) and the same in CPU time (the process's, less the thread that made the context: on a loaded
# machine the wall time is mostly waiting for a core); then per config the medians of `wgk run -v`'s phases, wall
# and CPU, and of `outside` (the process's wall as timed here, around the shell's command substitution, less
# `main`'s: its exec, dynamic loading and exit, a driver's teardown in the kernel included); FIRSTCALL_PHASES=1 also
# prints each run's phases lines on stderr. Then,
# per config, the medians of `wgk bench PKG --first-call` (the same case from the package's bench.json, one
# fresh process each): the call (load + prepare + run + wait + read) in wall and CPU time, each phase, and the
# pipeline cache's counts. On a loaded machine the CPU figures are the ones to compare. First, one call's output
# is checked against the op's numpy reference.
# Usage: bench/firstcall.sh WGK [REPS] [PKG]
set -eu
# the first python3 with numpy: PATH's (on the GPU image the one holding PyTorch), else the system's
py=${PYTHON:-python3}
"$py" -c 'import numpy' 2>/dev/null || py=/usr/bin/python3
wgk=$1
reps=${2:-5}
pkg=${3:-$(cd "$(dirname "$0")/.." && pwd)/kernels/ai.onnx.RotaryEmbedding}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"$py" - "$t" <<'PY'
import sys, numpy as np
r = np.random.default_rng(0)
np.save(sys.argv[1] + "/x.npy", r.standard_normal((1, 32, 1, 128)).astype(np.float32))
np.save(sys.argv[1] + "/c.npy", r.standard_normal((2048, 64)).astype(np.float32))
np.save(sys.argv[1] + "/p.npy", np.array([[7]], dtype=np.int64))
PY
unset MESA_SHADER_CACHE_DIR
# What is timed computes the right thing: one call's y against the op's float64 numpy reference, found by op id in
# the package's own folder (tests/python/references.py); a wrong result stops the script before any timing.
HOME=$t XDG_CACHE_HOME=$t/check "$wgk" run ai.onnx.RotaryEmbedding --in X="$t/x.npy" --in cos_cache="$t/c.npy" \
  --in sin_cache="$t/c.npy" --in position_ids="$t/p.npy" --out "$t/check" >/dev/null
"$py" - "$t" "$(cd "$(dirname "$0")/.." && pwd)" <<'PY'
import sys, numpy as np
t, src = sys.argv[1:3]
sys.path.insert(0, src + "/tests/python")
import references
x, c, p = (np.load(f"{t}/{n}.npy") for n in ("x", "c", "p"))
want = references.reference("ai.onnx.RotaryEmbedding")({"X": x, "cos_cache": c, "sin_cache": c, "position_ids": p}, {})
err = np.abs(np.load(f"{t}/check/y.npy") - want["Y"]).max()
print(f"check: y agrees with the float64 reference (max abs err {err:.2g})" if err <= 1e-4 else
      f"check: FAIL: y differs from the float64 reference (max abs err {err:.2g})")
sys.exit(0 if err <= 1e-4 else 1)
PY
one() { # $1 cache folder, $2 file the run's phases lines go to; prints "process_ms call_ms beyond_ms beyond_cpu_ms"
  # (beyond: the process less instance, adapter, device; beyond_cpu_ms: the process's CPU less the context's thread,
  # from `wgk run -v`'s cpu line)
  local s e out
  s=$(date +%s%N)
  out=$(HOME=$t XDG_CACHE_HOME=$1 "$wgk" run ai.onnx.RotaryEmbedding --in X="$t/x.npy" --in cos_cache="$t/c.npy" \
    --in sin_cache="$t/c.npy" --in position_ids="$t/p.npy" -v 2>&1)
  e=$(date +%s%N)
  local p=$(( (e - s) / 1000000 ))
  [ "${FIRSTCALL_PHASES:-0}" = 1 ] && grep -E '^(phases|cpu) ms:' <<<"$out" >&2
  { grep -E '^(phases|cpu) ms:' <<<"$out"; echo "process ms: $p"; } >>"$2"
  local dev
  dev=$(sed -nE 's/^phases ms:.* instance ([0-9.]+) adapter ([0-9.]+) device ([0-9.]+) .*/\1 \2 \3/p' <<<"$out" |
    awk '{print $1 + $2 + $3}')
  echo "$p $(sed -nE 's/^call 1: .*wall ([0-9.]+) ms.*/\1/p' <<<"$out") $(awk -v p="$p" -v d="${dev:-0}" 'BEGIN {print p - d}')" \
    "$(sed -nE 's/^cpu ms: .*, beyond the device (-?[0-9.]+)$/\1/p' <<<"$out")"
}
stats() { "$py" -c "
import sys, statistics as st
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
p = [r[0] for r in rows]; c = [r[1] for r in rows]; b = [r[2] for r in rows]; u = [r[3] for r in rows if len(r) > 3]
print(f'{st.median(p):8.0f} ({min(p):.0f}-{max(p):.0f}) {st.median(c):10.1f} ({min(c):.1f}-{max(c):.1f})'
      f' {st.median(b):10.1f} ({min(b):.1f}-{max(b):.1f})'
      + (f' {st.median(u):10.1f} ({min(u):.1f}-{max(u):.1f})' if u else ''))"; }
printf '%-10s %s\n' config "process ms (min-max)   call ms (min-max)   beyond the device ms (min-max)   beyond, CPU ms"
for config in cold warm "wgk only" "mesa only"; do
  for i in $(seq "$reps"); do
    d=$t/cache-$i
    f=$t/phases-${config// /_}
    case $config in
    cold) rm -rf "$d"; one "$d" "$f" ;;
    warm) one "$d" "$f" ;;
    "wgk only") rm -rf "$d"/mesa_shader_cache*; one "$d" "$f" ;;
    "mesa only") WGK_PIPELINE_CACHE=0 one "$d" "$f" ;;
    esac
  done | stats | sed "s/^/$(printf '%-10s' "$config") /"
done
"$py" - "$t" <<'PY'
import re, sys, statistics as st
print(f"\n{'-v phases':<10} medians, wall ms / CPU ms (start: before main; context: instance + adapter + device);"
      " outside: the process's wall less main's (exec, loading, exit, the shell's capture)")
for config in ("cold", "warm", "wgk only", "mesa only"):
    try:
        text = open(f"{sys.argv[1]}/phases-{config.replace(' ', '_')}").read()
    except OSError:
        continue
    wall = [dict(re.findall(r"(\w+) (-?[\d.]+)", l)) for l in re.findall(r"^phases ms: (.*)$", text, re.M)]
    cpu = [dict(re.findall(r"(\w+) (-?[\d.]+)", l)) for l in re.findall(r"^cpu ms: (.*)$", text, re.M)]
    proc = [float(v) for v in re.findall(r"^process ms: ([\d.]+)$", text, re.M)]
    if not wall or not cpu or len(proc) != len(wall):
        continue
    med = lambda rows, k: st.median(float(r.get(k, "nan")) for r in rows)
    context = med(wall, "instance") + med(wall, "adapter") + med(wall, "device")
    parts = [f"start -/{med(cpu, 'start'):.1f}", f"context {context:.1f}/{med(cpu, 'context'):.1f}"]
    parts += [f"{k} {med(wall, k):.1f}/{med(cpu, k):.1f}"
              for k in ("check", "load", "inputs", "plan", "compile", "run", "read", "exit")]
    outside = st.median(p - float(w["main"]) for p, w in zip(proc, wall))
    print(f"{config:<10} {' '.join(parts)}; outside {outside:.1f}")
PY

# Phases from `wgk bench --first-call` (decode_float32: the same shapes as above, inputs from bench.json)
phase() { # $1 cache folder $2 json
  HOME=$t XDG_CACHE_HOME=$1 "$wgk" bench "$pkg" --first-call --case decode_float32 --json "$2" >/dev/null
}
for config in cold warm "wgk only" "mesa only"; do
  for i in $(seq "$reps"); do
    d=$t/pcache-$i
    case $config in
    cold) rm -rf "$d"; phase "$d" "$t/fc-cold-$i.json" ;;
    warm) phase "$d" "$t/fc-warm-$i.json" ;;
    "wgk only") rm -rf "$d"/mesa_shader_cache*; phase "$d" "$t/fc-wgk-$i.json" ;;
    "mesa only") WGK_PIPELINE_CACHE=0 phase "$d" "$t/fc-mesa-$i.json" ;;
    esac
  done
done
"$py" - "$t" <<'PY'
import sys, json, glob, statistics as st
print()
print(f"{'--first-call':<10} {'call ms wall / CPU':>20} {'context wall / CPU':>20}  phases ms wall / CPU (medians)   cache")
for tag, name in (("cold", "cold"), ("warm", "warm"), ("wgk", "wgk only"), ("mesa", "mesa only")):
    docs = [json.load(open(f))["firstCall"] for f in sorted(glob.glob(f"{sys.argv[1]}/fc-{tag}-*.json"))]
    if not docs:
        continue
    med = lambda f: st.median(f(d) for d in docs) * 1e-6
    ph = " ".join(f"{k} {med(lambda d: d['phases'][k]['wallNs']):.1f}/{med(lambda d: d['phases'][k]['cpuNs']):.1f}"
                  for k in ("load", "prepare", "run", "wait", "read"))
    c = docs[-1].get("pipelineCache")
    cache = f"{c['loaded']} loaded, {c['missed']} missed, {c['stored']} stored" if c else "off"
    print(f"{name:<10} {med(lambda d: d['callNs']):9.1f} / {med(lambda d: d['callCpuNs']):6.1f}"
          f" {med(lambda d: d['phases']['context']['wallNs']):10.1f} / {med(lambda d: d['phases']['context']['cpuNs']):6.1f}"
          f"  {ph}   {cache}")
PY
