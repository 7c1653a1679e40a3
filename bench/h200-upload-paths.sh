#!/usr/bin/env bash
# The upload path of small tensors on a GPU, measured: RotaryEmbedding decode end to end (two 1 MiB caches in,
# 16 KiB out) with the queue-write limit at 4 MiB, just under 1 MiB, 512 KiB (the default: the float32 caches
# staged, the float16 ones queue writes), 64 KiB and 0 (every upload staged), and with staging off (every upload a
# queue write). Then `wgk tune` of the float32 cases. Run through scripts/gpu-run.sh; results under $OUT (default ./gpu-out).
set -u
BUILD=${BUILD:-build}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
rope=./kernels/ai.onnx.RotaryEmbedding
for q in 4194304 1048575 524288 65536 0; do
  echo "== WGK_QUEUE_WRITE_MAX=$q"
  WGK_QUEUE_WRITE_MAX=$q "$BUILD/wgk" bench $rope --case decode --json "$OUT/decode-q$q.json" 2>&1 | grep -v '^ *$'
done
echo "== WGK_STAGED_UPLOAD=0"
WGK_STAGED_UPLOAD=0 "$BUILD/wgk" bench $rope --case decode --json "$OUT/decode-unstaged.json" 2>&1 | grep -v '^ *$'
if [ "${TUNE:-1}" = 1 ]; then
  export WGK_TUNING_CACHE=$OUT/tuning.json
  echo "== wgk tune prompt, large"
  timeout 240 "$BUILD/wgk" tune $rope --case _float32 2>&1 | tail -n 40
fi
