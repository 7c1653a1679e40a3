#!/usr/bin/env bash
# The one GPU script: prepares, here, what a lent GPU machine needs (it reaches no registry), and there checks and
# times wgk with its peers in one call of at most 10 minutes.
#
# Here (a machine with apt-get, npm's node_modules and a build):
#   bench/gpu.sh build [BUILD]      make the build (default build/, RelWithDebInfo) and pack it into .device/
#   bench/gpu.sh prep  [BUILD]      build, then the git-ignored folders the `run` call carries, at the root:
#       .gl       the Vulkan loader and GL vendor-neutral libraries (Debian amd64 .debs, unpacked into / there)
#       .devlibs  the libraries the GPU image lacks (jansson, protobuf-c, cmocka; unpacked beside the build there)
#       .device   BUILD stripped (wgk, libwgk, the GPU tests, the examples, the bench programs), Dawn as
#                 dawn.tar.xz, the ONNX node tests, and, where a public loader bundle is in JSLOADER_DIR (default
#                 .jsloader, else /work/.jsloader: docs/public-loader.md), the bundle and its dawn.node (the harness is the tree's tests/loader)
#       .peers    node + onnxruntime-node (bench/peers/pack.sh)
#     DEST=DIR puts the four folders at DIR (the checkout the `run` tool sends) instead of this one's root;
#     TREE=1 also packs this checkout's tracked files (with their edits) as .device/tree.tar.xz: `there` then
#     runs from that tree, not from the one the tool sent.
# There (run(carry=[".gl",".devlibs",".device",".peers"], command="bash bench/gpu.sh all")):
#   bench/gpu.sh [STEP...]          steps, in the order given (default: all):
#       check      devices, smoke, the GPU tests, the ONNX conformance suite, `wgk test` of every package
#       bench      both packages side by side with every peer (bench/peers/run.sh): wgk bench --off-irq-cpu,
#                  ONNX Runtime CPU and WebGPU, torch (RoPE eager/compile; dense SDPA and flex_attention with the
#                  block layout, float32 and float16; TORCH_FLEX=0 without flex), the public loader; each peer case
#                  within PEER_BUDGET_MS (default 4000) of timed calls
#       firstcall  the first call of a fresh `wgk run` process, cold and warm pipeline cache (bench/firstcall.sh)
#       sparse     SparseAttention alone, in minutes: wgk bench of its Phi-3 cases (--off-irq-cpu), then wgk tune of
#                  the cases matching SPARSE_TUNE (default phi3_decode; '' skips it) into a tuning cache in the
#                  results, printing every candidate (DECODE_MERGE_FOLD 0/1, DECODE_WORKGROUPS, FLASH_SG_ROWS ...)
#       ab         SparseAttention under each tunable set of SPARSE_AB ("A=1,B=2;C=3", '-' the defaults): wgk bench
#                  of the cases matching SPARSE_AB_CASE (default phi3) in a package copy whose bench.json starts
#                  from the set (bench/sparse_ab.py), so pairs a coordinate sweep never visits are timed;
#                  SPARSE_AB_PKG another package folder (an older copy, for a baseline in the same call)
#       all        check firstcall bench
#       exec CMD.. one command with the environment (Vulkan at the NVIDIA driver, the carried libraries)
#   Results in $OUT (else ./gpu-out): log.txt, summary.txt (the tables) and results.tar.gz (every file).
#   Env: BUILD (default .device/build where carried, else build), PEER_BUDGET_MS, ITER, CASE, PKG (one package),
#   DEADLINE_S (default 570: a step still running then is cut, and the results are packed before the tool's 600 s).
# Without VK_DRIVER_FILES Dawn silently falls back to its Null backend: `wgk devices` heads the log to show it.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)

pack_build() { # BUILD DEST: the build's programs, stripped, into DEST/.device/build
  local build=$1 dev=$2/.device
  [ -x "$build/wgk" ] || { echo "gpu.sh: no $build/wgk: build first (bench/gpu.sh build)" >&2; return 1; }
  rm -rf "$dev/build" && mkdir -p "$dev/build/tests" "$dev/build/examples" "$dev/build/bench"
  cp -P "$build"/libwgk.so* "$dev/build/"
  cp "$build/wgk" "$dev/build/"
  for t in test_gpu test_runtime test_rotary_runtime test_sparse_refusals test_transfer test_run_read test_run_host \
           test_workers; do
    [ -x "$build/tests/$t" ] && cp "$build/tests/$t" "$dev/build/tests/"
  done
  for e in "$build"/examples/*; do [ -f "$e" ] && [ -x "$e" ] && cp "$e" "$dev/build/examples/"; done
  for b in rope_decode_ab upload_probe; do [ -x "$build/bench/$b" ] && cp "$build/bench/$b" "$dev/build/bench/"; done
  find "$dev/build" -type f -exec strip --strip-debug {} + 2>/dev/null || true
  if [ "${TREE:-0}" = 1 ]; then # this checkout as it is, for a run from a tree the tool does not send
    (cd "$root" && git ls-files -z | tar cJf "$dev/tree.tar.xz" --null -T - --ignore-failed-read 2>/dev/null)
  else
    rm -f "$dev/tree.tar.xz"
  fi
  (cd "$root" && git rev-parse --short HEAD) > "$dev/commit.txt"
  du -sh "$dev"
}

do_build() {
  local build=${1:-build} dest=${DEST:-$root}
  (cd "$root" && make build BUILD="$build" JOBS="${JOBS:-2}") || return 1
  pack_build "$root/$build" "$dest"
}

debs() { # folder, packages...: the amd64 .debs of Debian's current versions
  local dir=$1; shift
  rm -rf "$dir" && mkdir -p "$dir" /tmp/amd64/partial
  local o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  [ -f /tmp/amd64/.updated ] || { apt-get $o update >/dev/null && touch /tmp/amd64/.updated; }
  (cd "$dir" && apt-get $o download "$@" >/dev/null)
}

do_prep() {
  local build=${1:-build} dest=${DEST:-$root}
  dest=$(cd "$dest" && pwd)
  local exclude
  exclude=$(cd "$dest" && git rev-parse --git-path info/exclude)
  case $exclude in /*) ;; *) exclude=$dest/$exclude ;; esac
  mkdir -p "$(dirname "$exclude")"
  for d in .gl .devlibs .device .peers; do grep -qx "/$d/" "$exclude" 2>/dev/null || echo "/$d/" >> "$exclude"; done
  do_build "$build" || return 1
  debs "$dest/.gl" libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2
  debs "$dest/.devlibs" libjansson4 libprotobuf-c1 libcmocka0
  tar cJf "$dest/.device/dawn.tar.xz" -C "$root/third_party/dawn/node_modules/bun-webgpu-linux-x64" libwebgpu_wrapper.so
  rm -rf "$dest/.device/conformance" && mkdir -p "$dest/.device/conformance"
  cp -r "$root/tests/conformance/onnx-node-tests" "$dest/.device/conformance/" # in the repository
  local jsl=${JSLOADER_DIR:-$root/.jsloader}
  [ -f "$jsl/kernels/index.js" ] || jsl=/work/.jsloader
  rm -f "$dest/.device/jsloader.tar.xz"
  if [ -f "$jsl/kernels/index.js" ]; then
    local stage
    stage=$(mktemp -d)
    mkdir -p "$stage/.jsloader/node_modules/webgpu/dist"
    cp -r "$jsl/kernels" "$stage/.jsloader/"
    cp -rL "$jsl/node_modules/debug" "$jsl/node_modules/ms" "$stage/.jsloader/node_modules/"
    (cd "$jsl/node_modules/webgpu" && cp -L index.js package.json "$stage/.jsloader/node_modules/webgpu/" &&
      cp -rL dist/linux-x64 "$stage/.jsloader/node_modules/webgpu/dist/")
    tar cJf "$dest/.device/jsloader.tar.xz" -C "$stage" .jsloader # its harness is the tree's tests/loader
    rm -rf "$stage"
  else
    echo "gpu.sh: no public loader bundle in $jsl (docs/public-loader.md): the public-loader peer will be skipped"
  fi
  bash "$root/bench/peers/pack.sh" >/dev/null && { [ "$dest" = "$root" ] || cp -r "$root/.peers" "$dest/"; }
  du -sh "$dest/.gl" "$dest/.devlibs" "$dest/.device" "$dest/.peers"
  local tree carried
  tree=$(cd "$dest" && git ls-files -z -co --exclude-standard | xargs -0 du -cb 2>/dev/null | awk '/total$/ {t += $1} END {print t}')
  carried=$(du -scb "$dest/.gl" "$dest/.devlibs" "$dest/.device" "$dest/.peers" | tail -1 | cut -f1)
  awk -v t="$tree" -v c="$carried" 'BEGIN {
    printf "the call sends %.1f MiB: the tree %.1f MiB, the carried folders %.1f MiB (the limit is 64 MiB)\n",
      (t + c) / 1048576, t / 1048576, c / 1048576
    # the tool counts more than this sum: a call estimated at 63.0 MiB was refused as over 64 MiB (2026-12-07)
    if (t + c > 60 * 1048576) print "gpu.sh: near the limit: leave the public loader out (JSLOADER_DIR=/nonexistent)" }'
}

case "${1:-}" in
build) shift; do_build "$@"; exit ;;
prep) shift; do_prep "$@"; exit ;;
-h|--help|help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac

# ---- there: the lent GPU machine ----
if [ -f .device/tree.tar.xz ] && [ -z "${GPU_SH_IN_TREE:-}" ]; then # run from the packed tree (TREE=1)
  t=/tmp/gpu-tree
  rm -rf "$t" && mkdir -p "$t" && tar xJf .device/tree.tar.xz -C "$t"
  for d in .gl .devlibs .device .peers; do [ -e "$d" ] && ln -sfn "$PWD/$d" "$t/$d"; done
  cd "$t" && GPU_SH_IN_TREE=1 exec bash bench/gpu.sh "$@"
fi
BUILD=${BUILD:-build}
[ -x .device/build/wgk ] && [ "$BUILD" = build ] && [ ! -x build/wgk ] && BUILD=.device/build
FINAL=${OUT:-$PWD/gpu-out}
RES=/tmp/gpu-results # everything lands here; $FINAL gets log.txt, summary.txt and results.tar.gz (few files return)
mkdir -p "$RES" "$FINAL"

gpu_env() { # Dawn, the carried Vulkan loader and libraries, the NVIDIA ICD, BUILD's libwgk, the tree's kernels/
  local dawn=$PWD/third_party/dawn/node_modules/bun-webgpu-linux-x64
  if [ -f .device/dawn.tar.xz ]; then mkdir -p /tmp/dawn && tar xJf .device/dawn.tar.xz -C /tmp/dawn && dawn=/tmp/dawn; fi
  for f in .gl/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done
  ldconfig 2>/dev/null
  mkdir -p /tmp/devlibs
  for f in .devlibs/*.deb; do [ -f "$f" ] && dpkg -x "$f" /tmp/devlibs; done
  export LD_LIBRARY_PATH=/tmp/devlibs/usr/lib/x86_64-linux-gnu:$dawn:$PWD/$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  [ -f "$icd" ] && export VK_DRIVER_FILES=$icd
  export WGK_SOURCE_DIR=$PWD
  export WGK_KERNEL_PATH=${WGK_KERNEL_PATH:-$PWD/kernels} # a moved build looks for kernels/ only on the search path
  if [ -f .device/jsloader.tar.xz ] && [ ! -d /tmp/jsl/.jsloader ]; then
    mkdir -p /tmp/jsl && tar xJf .device/jsloader.tar.xz -C /tmp/jsl
  fi
  [ -d /tmp/jsl/.jsloader ] && export JSLOADER_DIR=/tmp/jsl/.jsloader
}
gpu_env

status=0
DEADLINE_S=${DEADLINE_S:-570} # the whole run ends by then (the tool's limit is 600 s): a step past it is cut short
stamp_lines() { while IFS= read -r l; do printf '%(%T)T %s\n' -1 "$l"; done; } # when each line came: what a step spent where
step() { echo "== $*" | tee -a "$RES/log.txt"
  local left=$((DEADLINE_S - SECONDS))
  if [ "$left" -le 5 ]; then echo "(skipped: past DEADLINE_S=$DEADLINE_S)" | tee -a "$RES/log.txt"; status=1; return; fi
  timeout -k 5 "$left" "$@" 2>&1 | stamp_lines | tee -a "$RES/log.txt"; local rc=${PIPESTATUS[0]}
  [ "$rc" = 124 ] && echo "(cut at DEADLINE_S=$DEADLINE_S)" | tee -a "$RES/log.txt"
  [ "$rc" = 0 ] || { echo "(exit $rc)" | tee -a "$RES/log.txt"; status=1; }
  cp "$RES/log.txt" "$FINAL/log.txt"; } # a run cut off at its limit still returns its log so far
stamp() { echo "-- $(date -u +%T) $* (${SECONDS}s into the run)" | tee -a "$RES/log.txt"; }

do_check() {
  stamp check
  local conf=${CONFORMANCE:-.device/conformance/onnx-node-tests}
  step "$BUILD/wgk" smoke
  for t in test_gpu test_runtime test_rotary_runtime test_sparse_refusals test_transfer test_run_read; do
    [ -x "$BUILD/tests/$t" ] && step "$BUILD/tests/$t"
  done
  [ -x "$BUILD/examples/rope_chain" ] && step "$BUILD/examples/rope_chain" ./kernels/ai.onnx.RotaryEmbedding
  [ -d "$conf" ] && step "$BUILD/wgk" onnx-test "$conf"/*
  for pkg in kernels/*/; do step "$BUILD/wgk" test "$pkg"; done
}

do_bench() {
  stamp bench
  step env BUILD="$BUILD" PEER_BUDGET_MS="${PEER_BUDGET_MS:-4000}" bench/peers/run.sh "$RES/peers"
  [ -f "$RES/peers/compare.txt" ] && cat "$RES/peers/compare.txt" >> "$RES/summary.txt"
}

do_sparse() {
  stamp sparse
  step "$BUILD/wgk" bench ./kernels/com.microsoft.SparseAttention --off-irq-cpu --json "$RES/sparse.json"
  local tune=${SPARSE_TUNE-phi3_decode}
  [ -n "$tune" ] && step env WGK_TUNING_CACHE="$RES/tuning.json" "$BUILD/wgk" tune ./kernels/com.microsoft.SparseAttention --case "$tune"
  return 0
}

do_ab() {
  stamp ab
  [ -n "${SPARSE_AB:-}" ] || { echo "ab: SPARSE_AB is empty: nothing to time"; return 0; }
  local sets
  IFS=';' read -ra sets <<< "$SPARSE_AB"
  step python3 bench/sparse_ab.py "$BUILD/wgk" "${SPARSE_AB_PKG:-./kernels/com.microsoft.SparseAttention}" "$RES/ab" \
    "${SPARSE_AB_CASE:-phi3}" "${sets[@]}"
  [ -f "$RES/ab/ab.txt" ] && cat "$RES/ab/ab.txt" >> "$RES/summary.txt"
}

do_firstcall() {
  stamp firstcall
  step bash bench/firstcall.sh "$BUILD/wgk" "${FIRSTCALL_REPS:-5}"
  sed -n '/^config/,$p' "$RES/log.txt" | tail -n 14 >> "$RES/summary.txt"
}

[ $# = 0 ] && set -- all
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
  cat .device/commit.txt 2>/dev/null; } > "$RES/machine.txt" 2>&1
if [ "$1" = exec ]; then shift; exec "$@"; fi
step "$BUILD/wgk" devices
"$BUILD/wgk" devices --json > "$RES/devices.json" 2>&1
for s in "$@"; do
  case $s in
  check) do_check ;;
  bench) do_bench ;;
  firstcall) do_firstcall ;;
  sparse) do_sparse ;;
  ab) do_ab ;;
  all) do_check; do_firstcall; do_bench ;;
  *) echo "gpu.sh: unknown step '$s' (check, bench, firstcall, sparse, ab, all, exec CMD...)" >&2; status=2 ;;
  esac
done
stamp done
cp "$RES/log.txt" "$FINAL/log.txt"
[ -f "$RES/summary.txt" ] && cp "$RES/summary.txt" "$FINAL/summary.txt"
tar czf "$FINAL/results.tar.gz" -C "$RES" .
exit $status
