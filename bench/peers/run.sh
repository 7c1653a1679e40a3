#!/usr/bin/env bash
# Peers side by side with wgk on the bench.json cases, in one call, per package (RotaryEmbedding, then
# SparseAttention; PKG=./kernels/<op id> for one): wgk bench --reference (wgk + its C reference), ONNX Runtime 1.30
# CPU and WebGPU providers (onnxruntime-node; SparseAttention has no WebGPU kernel there: reported, not timed),
# and, where PyTorch is importable, torch eager / torch.compile RoPE or dense scaled_dot_product_attention.
# Results per package in OUT_DIR/<op id>/ (wgk.json, ort-cpu.json, ort-webgpu.json, torch.json, compare.txt);
# OUT_DIR/compare.txt holds every package's table.
# usage: bench/peers/run.sh [OUT_DIR]   (env: WGK=build/wgk, PKG=./kernels/<op id> (default: both), ITER=N,
#        CASE=filter (substring of the case id, applied to every package), REFERENCE=0|1 (the C reference for no package / every
#        package; default: RotaryEmbedding only, SparseAttention's prompt takes minutes a call in double),
#        NODE=node binary, ORT_NODE_MODULES=folder holding onnxruntime-node, PYTHON=python3,
#        TORCH_FLEX=0 (no flex_attention peer: it compiles for tens of seconds a shape and dtype),
#        PEER_BUDGET_MS=B (each peer case's timed calls within B ms: fewer iterations for a slow peer, at least 3),
#        JSLOADER_DIR=the public loader's bundle + dawn.node (default .jsloader), JSLOADER_TOOLS=its harness
#        (default tests/loader), OFF_IRQ_CPU=0 to leave every process where the system puts it)
# wgk bench runs with --off-irq-cpu (off the CPU that takes the GPU's interrupts; docs/performance.md), and every
# peer then runs under taskset on the CPUs wgk kept (bench/peers/cpus_beside.py), so no side waits there.
# Without npm (the GPU machine): run bench/peers/pack.sh here, carry ".peers"; this script unpacks it.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-${OUT:-$root/peers-out}}
mkdir -p "$out"
WGK=${WGK:-$root/${BUILD:-build}/wgk}
if [ -n "${PKG:-}" ]; then pkgs=("$PKG"); else pkgs=("$root/kernels/ai.onnx.RotaryEmbedding" "$root/kernels/com.microsoft.SparseAttention"); fi
iter="${ITER:+--iterations $ITER} ${CASE:+--case $CASE} ${PEER_BUDGET_MS:+--budget-ms $PEER_BUDGET_MS}"
if [ -f "$root/.peers/ort-node.tar.xz" ] && [ ! -x /tmp/wgk-peers/bin/node ]; then
  mkdir -p /tmp/wgk-peers && tar xJf "$root/.peers/ort-node.tar.xz" -C /tmp/wgk-peers
fi
if [ -x /tmp/wgk-peers/bin/node ]; then
  NODE=${NODE:-/tmp/wgk-peers/bin/node}
  export ORT_NODE_MODULES=${ORT_NODE_MODULES:-/tmp/wgk-peers/node_modules}
fi
NODE=${NODE:-node}
PY=${PYTHON:-python3}
torch_ok=0
# "== NAME: S s" after each step, so the log says where the time went
took() { awk -v a="$2" -v b="$(date +%s%3N)" -v n="$1" 'BEGIN { printf "== %s: %.1f s\n", n, (b - a) / 1000 }'; }
"$PY" -c "import torch" 2>/dev/null && torch_ok=1
for pkg in "${pkgs[@]}"; do
pkg=$(cd "$pkg" && pwd)
bench=$pkg/build/webgpu/bench.json
o=$out/$(basename "$pkg")
mkdir -p "$o" && rm -f "$o"/*.json
peers=()
echo "== wgk bench $pkg"
t0=$(date +%s%3N)
ref=--reference
case "${REFERENCE:-auto}" in
  0) ref= ;;
  auto) [ "$(basename "$pkg")" = com.microsoft.SparseAttention ] && ref= ;;
esac
off_irq=--off-irq-cpu
[ "${OFF_IRQ_CPU:-1}" = 0 ] && off_irq=
"$WGK" bench "$pkg" ${CASE:+--case $CASE} ${ITER:+--iterations $ITER} $ref $off_irq --json "$o/wgk.json" | tee "$o/wgk.txt"
took "wgk bench $(basename "$pkg")" "$t0"
pin=()
beside=$([ -f "$o/wgk.json" ] && "$PY" "$root/bench/peers/cpus_beside.py" "$o/wgk.json")
if [ -n "$beside" ] && command -v taskset >/dev/null; then
  pin=(taskset -c "$beside")
  echo "== the peers run on CPUs $beside, as wgk did"
elif [ -n "$beside" ]; then
  echo "== no taskset here: the peers run on every CPU, wgk off its interrupt CPU"
fi
for ep in cpu webgpu; do
  echo "== onnxruntime-node $ep"
  t0=$(date +%s%3N)
  if "${pin[@]}" "$NODE" "$root/bench/peers/ort_bench.mjs" --ep $ep --bench "$bench" --out "$o/ort-$ep.json" $iter 2>&1 | tee "$o/ort-$ep.txt"; then
    [ -f "$o/ort-$ep.json" ] && peers+=("$o/ort-$ep.json")
  else
    echo "onnxruntime-node $ep: did not run (see $o/ort-$ep.txt)"
  fi
  took "onnxruntime-node $ep" "$t0"
done
if [ $torch_ok = 1 ]; then
  echo "== torch"
  t0=$(date +%s%3N)
  "${pin[@]}" "$PY" "$root/bench/peers/torch_bench.py" --bench "$bench" --out "$o/torch.json" $iter \
    ${TORCH_FLEX:+$([ "$TORCH_FLEX" = 0 ] && echo --no-flex)} 2>&1 | tee "$o/torch.txt"
  [ -f "$o/torch.json" ] && peers+=("$o/torch.json")
  took torch "$t0"
else
  echo "== torch: not importable with $PY, skipped"
fi
jsl=${JSLOADER_DIR:-$root/.jsloader}
tools=${JSLOADER_TOOLS:-$root/tests/loader}
if [ -f "$jsl/kernels/index.js" ] && [ -f "$tools/env.mjs" ]; then
  echo "== public loader (node + dawn.node)"
  t0=$(date +%s%3N)
  if JSLOADER_DIR=$jsl JSLOADER_TOOLS=$tools "${pin[@]}" "$NODE" "$root/bench/peers/jsloader_bench.mjs" --bench "$bench" \
       --out "$o/jsloader.json" $iter 2>&1 | tee "$o/jsloader.txt"; then
    [ -f "$o/jsloader.json" ] && peers+=("$o/jsloader.json")
  else
    echo "public loader: did not run (see $o/jsloader.txt)"
  fi
  took "public loader" "$t0"
else
  echo "== public loader: no bundle in $jsl or no tools in $tools (docs/public-loader.md), skipped"
fi
echo "== side by side: $(basename "$pkg")"
"$PY" "$root/bench/peers/compare.py" "$o/wgk.json" "${peers[@]}" | tee "$o/compare.txt"
done
"$PY" "$root/bench/peers/compare.py" "$out" > "$out/compare.txt"
