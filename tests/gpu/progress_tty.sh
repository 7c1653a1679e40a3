#!/bin/bash
# A long compile or GPU wait says so on a terminal only: under a pseudo-terminal (script) with the threshold at
# 0 ms a call prints "wgk: compiling ..." / "wgk: the GPU is busy ..." lines and erases them; with stderr in a
# file it prints none. Usage: progress_tty.sh WGK
set -u
wgk=$1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
export HOME=$t XDG_CACHE_HOME=$t/cache WGK_PROGRESS_AFTER_MS=0 WGK_PIPELINE_CACHE=0
command -v script >/dev/null || { echo "SKIP: no script(1) (Debian's bsdutils): no pseudo-terminal to run wgk under"; exit 77; }
/usr/bin/python3 - "$t" <<'PY' || exit 1
import sys, numpy as np
r = np.random.default_rng(5)
np.save(sys.argv[1] + "/x.npy", r.standard_normal((1, 4, 3, 16)).astype(np.float32))
np.save(sys.argv[1] + "/c.npy", r.standard_normal((10, 8)).astype(np.float32))
PY
cmd="$wgk run ai.onnx.RotaryEmbedding --in X=$t/x.npy --in cos_cache=$t/c.npy --in sin_cache=$t/c.npy --in position_ids=$t/p.npy"
/usr/bin/python3 -c "import numpy as np; np.save('$t/p.npy', np.array([[1, 5, 9]], dtype=np.int64))"
script -qc "$cmd >/dev/null" "$t/tty.txt" >/dev/null 2>&1
$cmd >/dev/null 2>"$t/file.txt"
grep -q $'\rwgk: compiling ai.onnx.RotaryEmbedding/' "$t/tty.txt" || { echo "FAIL: no compile progress on a terminal"; cat -A "$t/tty.txt"; exit 1; }
grep -q $'\033\[K' "$t/tty.txt" || { echo "FAIL: the progress line is not erased"; exit 1; }
if grep -q 'wgk: compiling\|wgk: the GPU is busy' "$t/file.txt"; then echo "FAIL: progress written to a file"; exit 1; fi
echo "ok"
