#!/usr/bin/env bash
# Prepares, on this machine, everything the lent GPU machine needs for scripts/gpu-check.sh (it reaches no
# registry): git-ignored folders at the repository root that the `run` call carries.
#   .gl       the Vulkan loader and GL vendor-neutral packages (Debian amd64 .debs, unpacked into / there)
#   .devlibs  the libraries the GPU image lacks (jansson, protobuf-c, cmocka; unpacked beside the build there)
#   .device   build/ stripped (wgk, libwgk, the GPU tests, the examples, bench/rope_decode_ab), Dawn as dawn.tar.xz, the ONNX node tests,
#             and, where a public loader bundle is in .jsloader/ (docs/public-loader.md), the loader's bundle, its
#             dawn.node for linux-x64 and its harness as jsloader.tar.xz
#   .peers    node + onnxruntime-node (bench/peers/pack.sh)
# usage: scripts/gpu-prep.sh [BUILD]   (BUILD default build: a RelWithDebInfo build made with `make`)
# then:  run(carry=[".gl",".devlibs",".device",".peers"], command="OUT=$OUT BUILD=.device/build bash scripts/gpu-check.sh")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${1:-build}
[ -x "$build/wgk" ] || { echo "gpu-prep: no $build/wgk: build first (make)" >&2; exit 1; }
exclude=$(git rev-parse --git-path info/exclude)  # a worktree keeps its own under the main repository
mkdir -p "$(dirname "$exclude")"
for d in .gl .devlibs .device .peers; do grep -qx "/$d/" "$exclude" 2>/dev/null || echo "/$d/" >> "$exclude"; done

debs() { # folder, packages...: the amd64 .debs of Debian's current versions
  local dir=$1; shift
  rm -rf "$dir" && mkdir -p "$dir" /tmp/amd64/partial
  local o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  [ -f /tmp/amd64/.updated ] || { apt-get $o update >/dev/null && touch /tmp/amd64/.updated; }
  (cd "$dir" && apt-get $o download "$@" >/dev/null)
}
debs .gl libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2
debs .devlibs libjansson4 libprotobuf-c1 libcmocka0

rm -rf .device && mkdir -p .device/build/tests .device/build/examples .device/conformance
cp -P "$build"/libwgk.so* .device/build/
cp "$build/wgk" .device/build/
for t in test_gpu test_runtime test_rotary_runtime test_sparse_refusals test_transfer test_run_read test_run_host test_workers; do
  [ -x "$build/tests/$t" ] && cp "$build/tests/$t" .device/build/tests/
done
for e in "$build"/examples/*; do [ -f "$e" ] && [ -x "$e" ] && cp "$e" .device/build/examples/; done
mkdir -p .device/build/bench
for b in rope_decode_ab upload_probe; do
  [ -x "$build/bench/$b" ] && cp "$build/bench/$b" .device/build/bench/
done
find .device/build -type f -exec strip --strip-debug {} + 2>/dev/null || true
dawn=third_party/dawn/node_modules/bun-webgpu-linux-x64
tar cJf .device/dawn.tar.xz -C "$dawn" libwebgpu_wrapper.so
cp -r ../shared/conformance/onnx-node-tests .device/conformance/

jsl=${JSLOADER_DIR:-.jsloader}
if [ -f "$jsl/kernels/index.js" ]; then
  stage=$(mktemp -d)
  mkdir -p "$stage/.jsloader/node_modules/webgpu/dist" "$stage/tools"
  cp -r "$jsl/kernels" "$stage/.jsloader/"
  cp -rL "$jsl/node_modules/debug" "$jsl/node_modules/ms" "$stage/.jsloader/node_modules/"
  (cd "$jsl/node_modules/webgpu" && cp -L index.js package.json "$stage/.jsloader/node_modules/webgpu/" &&
     cp -rL dist/linux-x64 "$stage/.jsloader/node_modules/webgpu/dist/")
  cp ../shared/tools/jsloader/*.mjs "$stage/tools/"
  tar cJf .device/jsloader.tar.xz -C "$stage" .jsloader tools
  rm -rf "$stage"
else
  echo "gpu-prep: no public loader bundle in $jsl: the public-loader peer will be skipped there"
fi
bash bench/peers/pack.sh >/dev/null
du -sh .gl .devlibs .device .peers
git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | awk '{printf "tracked files: %.1f MiB\n", $1/1048576}'
