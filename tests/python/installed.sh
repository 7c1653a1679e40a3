#!/bin/sh
# The binding as installed: `cmake --install` into a scratch prefix, the prefix moved, then python3 imports wgk from
# <prefix>/lib/python3/dist-packages with no WGK_LIBRARY and no source tree on its path: it must find the moved
# prefix's libwgk.so by itself and run RotaryEmbedding from the prefix's share/wgk/kernels against a numpy reference.
# usage: installed.sh BUILD_DIR SCRATCH_DIR
set -eu
build=$1 scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/first" >/dev/null
mv "$scratch/first" "$scratch/moved"
cd "$scratch"
env -u WGK_LIBRARY -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$scratch/moved/lib/python3/dist-packages" \
  /usr/bin/python3 - "$scratch/moved" <<'PY'
import os, sys
import numpy as np
import wgk
prefix = os.path.realpath(sys.argv[1])
lib = os.path.realpath(wgk.library_path())
assert lib.startswith(prefix + os.sep), f"wgk loaded {lib}, not the installed prefix's library"
rope = wgk.load(os.path.join(prefix, "share", "wgk", "kernels", "ai.onnx.RotaryEmbedding"))
rng = np.random.default_rng(1)
x = rng.uniform(-1, 1, (1, 2, 3, 8)).astype(np.float32)
theta = rng.uniform(0, 6, (1, 3, 4))
c, s = np.cos(theta), np.sin(theta)
y = rope(X=x, cos_cache=c.astype(np.float32), sin_cache=s.astype(np.float32))["Y"]
x1, x2 = x[..., :4].astype(np.float64), x[..., 4:].astype(np.float64)
want = np.concatenate([c[:, None] * x1 - s[:, None] * x2, s[:, None] * x1 + c[:, None] * x2], axis=-1)
np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
print(f"installed binding: {lib}, RotaryEmbedding ok")
PY
