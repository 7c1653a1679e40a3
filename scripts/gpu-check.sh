#!/usr/bin/env bash
# Checks and times wgk on a lent GPU machine in one call (scripts/gpu-prep.sh prepares what it carries):
# unpacks the carried Vulkan loader (.gl) and the few libraries the image lacks (.devlibs), points Vulkan at the
# NVIDIA driver, then runs the device listing, the smoke job, the GPU tests, the ONNX conformance suite,
# the packages' own tests and their benchmarks with the build carried in BUILD (default build).
# Results land in $OUT (or ./gpu-out when OUT is unset). CHECKS=0: devices, smoke and the benchmarks only;
# PEERS=0: no peers (bench/peers/run.sh), each package's `wgk bench` alone. With the public loader carried the whole
# run takes about 11 minutes on the H200; a runner with a 10-minute limit runs it twice (PEERS=0, then CHECKS=0).
set -u
BUILD=${BUILD:-build}
FINAL=${OUT:-$PWD/gpu-out}
OUT=/tmp/gpu-results   # everything lands here; $FINAL gets log.txt and one results.tar.gz (the tool returns few files)
rm -rf "$OUT"
mkdir -p "$OUT" "$FINAL"
. "$(dirname "$0")/gpu-env.sh"
conf=${CONFORMANCE:-.device/conformance/onnx-node-tests}
status=0
step() { echo "== $*"; "$@" 2>&1 | tee -a "$OUT/log.txt"; local rc=${PIPESTATUS[0]}; [ "$rc" = 0 ] || { echo "(exit $rc)"; status=1; }; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > "$OUT/machine.txt" 2>&1
step "$BUILD/wgk" devices
"$BUILD/wgk" devices --json > "$OUT/devices.json" 2>&1
step "$BUILD/wgk" smoke
if [ "${CHECKS:-1}" = 1 ]; then  # CHECKS=0: devices, smoke and the benchmarks only
for t in test_gpu test_runtime test_rotary_runtime test_sparse_refusals test_transfer test_run_read; do
  [ -x "$BUILD/tests/$t" ] && step "$BUILD/tests/$t"
done
[ -x "$BUILD/examples/rope_chain" ] && step "$BUILD/examples/rope_chain" ./kernels/ai.onnx.RotaryEmbedding
step "$BUILD/wgk" onnx-test "$conf"/*
if "$BUILD/wgk" help | grep -q '^  test '; then
  for pkg in kernels/*/; do step "$BUILD/wgk" test "$pkg"; done
fi
fi
peers=${PEERS:-1}
[ -x bench/peers/run.sh ] || peers=0
if "$BUILD/wgk" help | grep -q '^  bench ' && [ "$peers" = 0 ]; then  # else run.sh benches each package
  for pkg in kernels/*/; do step "$BUILD/wgk" bench "$pkg" --off-irq-cpu --json "$OUT/bench-$(basename "$pkg").json"; done
fi
if [ -f .device/jsloader.tar.xz ]; then  # the public loader as a peer (scripts/gpu-prep.sh packs it)
  mkdir -p /tmp/jsl && tar xJf .device/jsloader.tar.xz -C /tmp/jsl
  export JSLOADER_DIR=/tmp/jsl/.jsloader JSLOADER_TOOLS=/tmp/jsl/tools
fi
if [ "$peers" = 1 ] && "$BUILD/wgk" help | grep -q '^  bench '; then
  step env BUILD="$BUILD" bench/peers/run.sh "$OUT/peers"
fi
cp "$OUT/log.txt" "$FINAL/log.txt"
tar czf "$FINAL/results.tar.gz" -C "$OUT" .
exit $status
