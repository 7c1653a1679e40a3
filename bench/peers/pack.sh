#!/usr/bin/env bash
# Packs node and onnxruntime-node (Linux x64 only) into .peers/ort-node.tar.xz so run.sh works on a machine
# without npm (the lent GPU machine): carry ".peers" with the run call. Needs tests/ort/node_modules
# (scripts/bootstrap.sh) and a node binary on PATH. About 45 MB.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mods=$root/tests/ort/node_modules
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/node_modules/onnxruntime-node/bin/napi-v6/linux"
# stripped: node ships its symbol table (13 MB of 99), which the peers never read; 2 MB less to carry
strip -o "$stage/bin/node" "$(readlink -f "$(command -v node)")"
cp -r "$mods/onnxruntime-common" "$stage/node_modules/"
(cd "$mods/onnxruntime-node" && cp -r package.json dist lib "$stage/node_modules/onnxruntime-node/")
cp -r "$mods/onnxruntime-node/bin/napi-v6/linux/x64" "$stage/node_modules/onnxruntime-node/bin/napi-v6/linux/"
mkdir -p "$root/.peers"
tar cJf "$root/.peers/ort-node.tar.xz" -C "$stage" bin node_modules
ls -l "$root/.peers/ort-node.tar.xz"
