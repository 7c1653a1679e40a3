#!/usr/bin/env bash
# experiment: resident call wait modes on the H200
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
mkdir -p /tmp/devlibs /tmp/dawn; for f in .devlibs/*.deb; do dpkg -x "$f" /tmp/devlibs; done
tar xJf .device/dawn.tar.xz -C /tmp/dawn
export LD_LIBRARY_PATH=/tmp/devlibs/usr/lib/x86_64-linux-gnu:/tmp/dawn:$PWD/.device/build
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json WGK_KERNEL_PATH=$PWD/kernels
W=.device/build/wgk
$W devices | head -3
for spin in 0 2000; do
  echo "== WGK_WAIT_SPIN_US=$spin"
  export WGK_WAIT_SPIN_US=$spin
  $W bench ./kernels/com.microsoft.SparseAttention --case decode_past8191 --json $OUT/sd-$spin.json 2>&1 | tail -25
  $W bench ./kernels/ai.onnx.RotaryEmbedding --case decode --json $OUT/rope-$spin.json 2>&1 | tail -30
done
