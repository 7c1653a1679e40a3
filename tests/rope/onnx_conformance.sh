#!/usr/bin/env bash
# The ONNX node tests of RotaryEmbedding (tests/conformance/onnx-node-tests, in the repository) through
# `wgk onnx-test`: the single-node folders, found when the test runs (a folder added later is run, never left
# out because the build was configured before it existed). The *_expanded folders hold many-node graphs, which
# wgk does not run; tests/onnx/test_onnx.c reads them.
# Usage: onnx_conformance.sh WGK_BINARY CONFORMANCE_DIR [KERNEL_PATH]
set -euo pipefail
wgk=$1 dir=$2
cases=()
for d in "$dir"/test_rotary_embedding*/; do
  case "$d" in *_expanded/) ;; *) cases+=("$d") ;; esac
done
if [ ${#cases[@]} -lt 8 ]; then
  echo "FAIL: ${#cases[@]} single-node RotaryEmbedding folders under $dir, expected at least 8"
  exit 1
fi
echo "# ${#cases[@]} single-node folders"
if [ $# -ge 3 ]; then export WGK_KERNEL_PATH=$3; fi
exec "$wgk" onnx-test "${cases[@]}"
