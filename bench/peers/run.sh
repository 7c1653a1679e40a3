#!/usr/bin/env bash
# Peers side by side with wgk on the bench.json cases, in one call:
#   wgk bench --reference (wgk + its C reference), ONNX Runtime 1.30 CPU and WebGPU providers (onnxruntime-node),
#   and, where PyTorch is importable, torch eager / torch.compile RoPE and scaled_dot_product_attention.
# usage: bench/peers/run.sh [OUT_DIR]   (env: WGK=build/wgk, PKG=kernels/ai.onnx.RotaryEmbedding, ITER=N,
#        CASE=filter, NODE=node binary, ORT_NODE_MODULES=folder holding onnxruntime-node)
# Without npm (the GPU machine): run bench/peers/pack.sh here, carry ".peers"; this script unpacks it.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-${OUT:-$root/peers-out}}
mkdir -p "$out"
WGK=${WGK:-$root/${BUILD:-build}/wgk}
PKG=${PKG:-$root/kernels/ai.onnx.RotaryEmbedding}
bench=$PKG/build/webgpu/bench.json
iter="${ITER:+--iterations $ITER} ${CASE:+--case $CASE}"
if [ -f "$root/.peers/ort-node.tar.xz" ] && [ ! -x /tmp/wgk-peers/bin/node ]; then
  mkdir -p /tmp/wgk-peers && tar xJf "$root/.peers/ort-node.tar.xz" -C /tmp/wgk-peers
fi
if [ -x /tmp/wgk-peers/bin/node ]; then
  NODE=${NODE:-/tmp/wgk-peers/bin/node}
  export ORT_NODE_MODULES=${ORT_NODE_MODULES:-/tmp/wgk-peers/node_modules}
fi
NODE=${NODE:-node}
peers=()
echo "== wgk bench $PKG"
"$WGK" bench "$PKG" ${CASE:+--case $CASE} ${ITER:+--repeat $ITER} --reference --json "$out/wgk.json" | tee "$out/wgk.txt"
for ep in cpu webgpu; do
  echo "== onnxruntime-node $ep"
  if "$NODE" "$root/bench/peers/ort_bench.mjs" --ep $ep --bench "$bench" --out "$out/ort-$ep.json" $iter 2>&1 | tee "$out/ort-$ep.txt"; then
    [ -f "$out/ort-$ep.json" ] && peers+=("$out/ort-$ep.json")
  else
    echo "onnxruntime-node $ep: did not run (see $out/ort-$ep.txt)"
  fi
done
PY=${PYTHON:-python3}
if "$PY" -c "import torch" 2>/dev/null; then
  echo "== torch"
  "$PY" "$root/bench/peers/torch_bench.py" --bench "$bench" --out "$out/torch.json" $iter 2>&1 | tee "$out/torch.txt"
  [ -f "$out/torch.json" ] && peers+=("$out/torch.json")
else
  echo "== torch: not importable with $PY, skipped"
fi
echo "== side by side"
"$PY" "$root/bench/peers/compare.py" "$out/wgk.json" "${peers[@]}" | tee "$out/compare.txt"
