#!/usr/bin/env bash
# The SparseAttention flash prompt with the queries in registers (`*_flash_sg`) on a lent GPU: `wgk test` of
# the flash cases, `wgk bench` of the prompt cases with the package's defaults and again with a copy whose
# FLASH_SUBGROUPS default is 0 (the staged `*_flash`, in the same process conditions), then `wgk tune` of both
# prompt cases. Run through scripts/gpu-run.sh with BUILD and OUT; results under $OUT.
set -u
BUILD=${BUILD:-build}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
sparse=./kernels/com.microsoft.SparseAttention
echo "== wgk test $sparse --case flash"
[ "${SKIP_TEST:-0}" = 1 ] || "$BUILD/wgk" test $sparse --case flash 2>&1 | tail -n 45
export WGK_TUNING_CACHE=$OUT/tuning.json
echo "== wgk bench $sparse --case prompt"
"$BUILD/wgk" bench $sparse --case prompt --json "$OUT/sparse-prompt.json" 2>&1 | grep -v "^  "
staged=$(mktemp -d)/com.microsoft.SparseAttention
cp -r $sparse "$staged"
/usr/bin/python3 - "$staged/build/webgpu/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["tunables"]["FLASH_SUBGROUPS"]["default"] = 0
json.dump(m, open(sys.argv[1], "w"), indent=2)
PY
/usr/bin/python3 scripts/package-digests.py "$staged" > /dev/null
echo "== wgk bench (FLASH_SUBGROUPS 0: the staged flash) --case prompt"
"$BUILD/wgk" bench "$staged" --case prompt --json "$OUT/sparse-prompt-staged.json" 2>&1 | grep -A1 "^phi3"
[ "${SKIP_TUNE:-0}" = 1 ] && exit 0
for c in phi3_prompt_4096_f32 phi3_prompt_4096_f16; do
  echo "== wgk tune $c"
  timeout "${TUNE_S:-150}" "$BUILD/wgk" tune $sparse --case $c 2>&1 |
    grep -v "the same GPU work as one timed before" | tail -n 30
done
