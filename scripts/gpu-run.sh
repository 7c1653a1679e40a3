#!/usr/bin/env bash
# Runs one command on a lent GPU machine with the environment of scripts/gpu-env.sh, e.g. (BUILD=.device/build):
#   bash scripts/gpu-run.sh .device/build/wgk bench ./kernels/ai.onnx.RotaryEmbedding --case decode
# or a script of several measurements: bash scripts/gpu-run.sh bash bench/h200-upload-paths.sh
set -u
. "$(dirname "$0")/gpu-env.sh"
exec "$@"
