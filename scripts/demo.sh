#!/usr/bin/env bash
# The demo `make demo` runs: for now the GPU smoke test (y = a*x + b on random data, every element
# checked against the host) on the default adapter, or WGK_ADAPTER if set.
set -euo pipefail
BUILD_DIR=${1:-build}
WGK="$BUILD_DIR/wgk"
if [[ ! -x "$WGK" ]]; then
  echo "demo: $WGK not found; build first (make build)" >&2
  exit 2
fi
echo "== wgk devices"
"$WGK" devices
echo
echo "== wgk smoke"
"$WGK" smoke ${WGK_ADAPTER:+--adapter "$WGK_ADAPTER"}
