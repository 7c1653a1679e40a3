#!/usr/bin/env bash
# onnx_conformance.sh finds its folders when it runs: a copy of the data with one case added (as a folder added
# after the build was configured would be) is run in full.
# Usage: conformance_added_later.sh WGK_BINARY CONFORMANCE_DIR
set -euo pipefail
wgk=$1 dir=$2
copy="${WGK_TEST_TMP:?run by ctest}/conformance"
rm -rf "$copy" && cp -r "$dir" "$copy"
cp -r "$copy/test_rotary_embedding" "$copy/test_rotary_embedding_added_later"
exec "$(dirname "$0")/onnx_conformance.sh" "$wgk" "$copy"
