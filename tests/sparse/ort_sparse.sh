#!/usr/bin/env bash
# SparseAttention against ONNX Runtime's CPU kernel: random single-node com.microsoft models (make_sparse_cases.py),
# expected outputs and present_* caches from onnxruntime-node 1.30 (run_ort_sparse.mjs), then `wgk onnx-test`
# (float32 atol 1e-4, float16 atol 1e-2). Usage: ort_sparse.sh WGK_BINARY WORK_DIR [SEED].
# Exit 77 (ctest: skipped) when tests/ort/node_modules is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
wgk=$1 work=$2 seed=${3:-23}
if [ ! -d "$here/../ort/node_modules/onnxruntime-node" ]; then
  echo "SKIP: tests/ort/node_modules missing (run scripts/bootstrap.sh)"; exit 77
fi
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 "$here/make_sparse_cases.py" "$work" --seed "$seed"
node "$here/run_ort_sparse.mjs" "$work"/*/ >/dev/null
shopt -s nullglob
f16=("$work"/*_f16/) f32=()
for d in "$work"/*/; do [[ "$d" == *_f16/ ]] || f32+=("$d"); done
status=0
"$wgk" onnx-test --atol 1e-4 "${f32[@]}" || status=1
"$wgk" onnx-test --atol 1e-2 "${f16[@]}" || status=1
exit $status
