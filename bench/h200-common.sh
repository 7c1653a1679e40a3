# Sourced by the bench/h200-*.sh experiment scripts (run through scripts/gpu-run.sh): BUILD (the build folder),
# OUT (the results; all output goes to $OUT/log.txt as well), rope (the RotaryEmbedding package); and the steps
# several experiments share.
set -u
BUILD=${BUILD:-build}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
rope=./kernels/ai.onnx.RotaryEmbedding

# The device tests named ($BUILD/tests/NAME), each with its seed and summary lines.
run_tests() {
  for t in "$@"; do
    echo "== $t"
    "$BUILD/tests/$t" 2>&1 | grep -E "seed|FAIL|PASSED|Failure|error"
  done
}

# `wgk bench` of RotaryEmbedding twice, the JSON in $OUT/rope-pass{1,2}.json; the lines of the cases and goals.
bench_rope_twice() {
  for pass in 1 2; do
    echo "== wgk bench RoPE, pass $pass"
    "$BUILD/wgk" bench $rope --json "$OUT/rope-pass$pass.json" 2>&1 |
      grep -E "^(decode|prompt|large)|e2e us|transfer:|host transfers|overhead:|REPEATS|repeat|over time"
  done
}

# `wgk test` of both packages: the summary line of each.
test_packages() {
  for pkg in $rope ./kernels/com.microsoft.SparseAttention; do
    echo "== wgk test $pkg"
    "$BUILD/wgk" test $pkg 2>&1 | tail -1
  done
}
