#!/usr/bin/env bash
# The demo `make demo` runs: ONNX RotaryEmbedding from its kernel package on the default adapter (or
# WGK_ADAPTER if set). 1. examples/rope_chain: random data, two calls chained on the GPU, checked against a
# double-precision reference. 2. `wgk test` of the package's own cases. It ends with one verified line.
# (The y = a*x + b GPU check is still there as `wgk smoke`.)
set -euo pipefail
BUILD_DIR=${1:-build}
WGK="$BUILD_DIR/wgk"
EXAMPLE="$BUILD_DIR/examples/rope_chain"
PACKAGE=webgpu-kernels/ai.onnx.RotaryEmbedding
for bin in "$WGK" "$EXAMPLE"; do
  if [[ ! -x "$bin" ]]; then
    echo "demo: $bin not found; build first (make build)" >&2
    exit 2
  fi
done

echo "== examples/rope_chain.c: $PACKAGE on random data, checked against a double reference"
example_out=$("$EXAMPLE" "$PACKAGE") || { echo "$example_out"; echo "demo: FAILED (rope_chain)"; exit 1; }
echo "$example_out"
adapter=$(sed -n 's/^adapter: //p' <<<"$example_out")

echo
echo "== wgk test $PACKAGE --version 1"
test_out=$("$WGK" test "$PACKAGE" --version 1 ${WGK_ADAPTER:+--adapter "$WGK_ADAPTER"}) || {
  echo "$test_out"; echo "demo: FAILED (wgk test)"; exit 1; }
echo "$test_out"
summary=$(tail -n 1 <<<"$test_out")

echo
echo "demo: verified: RotaryEmbedding on $adapter: chained example matches the reference; test.json: $summary"
