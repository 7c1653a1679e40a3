#!/usr/bin/env bash
# RotaryEmbedding against ONNX Runtime's CPU kernel: random single-node models (make_rotary_cases.py), expected
# outputs from onnxruntime-node 1.30 (run_ort.mjs), then `wgk onnx-test` on the same folders.
# Usage: ort_rotary.sh WGK_BINARY WORK_DIR [SEED]. Exit 77 (ctest: skipped) when node_modules is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
wgk=$1 work=$2 seed=${3:-23}
if [ ! -d "$here/node_modules/onnxruntime-node" ]; then
  echo "SKIP: tests/ort/node_modules missing (run scripts/bootstrap.sh)"; exit 77
fi
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 "$here/make_rotary_cases.py" "$work" --seed "$seed"
node "$here/run_ort.mjs" "$work"/*/ >/dev/null
"$wgk" onnx-test "$work"/*/
