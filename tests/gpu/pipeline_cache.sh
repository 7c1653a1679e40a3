#!/bin/bash
# A second process reads the pipeline cache the first wrote (counts from WGK_PIPELINE_CACHE_LOG=1, not timed):
# the first stores and loads nothing, the second loads and compiles-and-stores nothing; corrupted files are
# ignored (counted, the call still right) and written again. Usage: pipeline_cache.sh WGK
set -u
wgk=$1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
export HOME=$t XDG_CACHE_HOME=$t/cache WGK_PIPELINE_CACHE_LOG=1
/usr/bin/python3 - "$t" <<'PY' || exit 1
import sys, numpy as np
r = np.random.default_rng(5)
np.save(sys.argv[1] + "/x.npy", r.standard_normal((1, 4, 3, 16)).astype(np.float32))
np.save(sys.argv[1] + "/c.npy", r.standard_normal((10, 8)).astype(np.float32))
np.save(sys.argv[1] + "/p.npy", np.array([[1, 5, 9]], dtype=np.int64))
PY
call() {
  "$wgk" run ai.onnx.RotaryEmbedding --in X="$t/x.npy" --in cos_cache="$t/c.npy" --in sin_cache="$t/c.npy" \
    --in position_ids="$t/p.npy" --out "$t/$1" 2>&1 >/dev/null | grep '^wgk pipeline cache'
}
counts() { sed -E 's/.*: ([0-9]+) loaded, ([0-9]+) missed, ([0-9]+) stored, ([0-9]+) corrupt.*/\1 \2 \3 \4/'; }
fail() { echo "FAIL: $*"; exit 1; }
first=$(call one) || fail "no cache line from the first process"
echo "first:  $first"
read -r loaded missed stored corrupt <<<"$(counts <<<"$first")"
[ "$loaded" = 0 ] && [ "$stored" -gt 0 ] || fail "the first process should store and load nothing"
second=$(call two) || fail "no cache line from the second process"
echo "second: $second"
read -r loaded missed stored corrupt <<<"$(counts <<<"$second")"
[ "$loaded" -gt 0 ] && [ "$missed" = 0 ] && [ "$stored" = 0 ] || fail "the second process should only load"
for f in "$t"/cache/wgk/pipelines/*/*.bin; do printf 'garbage' | dd of="$f" bs=1 seek=40 conv=notrunc 2>/dev/null; done
third=$(call three) || fail "no cache line from the third process"
echo "third:  $third"
read -r loaded missed stored corrupt <<<"$(counts <<<"$third")"
[ "$corrupt" -gt 0 ] && [ "$loaded" = 0 ] && [ "$stored" -gt 0 ] || fail "corrupt files should be ignored and rewritten"
/usr/bin/python3 - "$t" <<'PY' || fail "outputs differ between processes"
import sys, numpy as np
a, b, c = (np.load(f"{sys.argv[1]}/{d}/y.npy") for d in ("one", "two", "three"))
assert np.array_equal(a, b) and np.array_equal(a, c)
PY
echo "ok"
