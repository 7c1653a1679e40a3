#!/usr/bin/python3
"""The wheel (issue 35 item 4): built from this build by python/build_backend/wgk_wheel.py (what `make wheel` and
`pip wheel .` run), installed offline with Debian's pip as `pip install --user --no-index` into a scratch HOME, then
imported by Debian's python3 from another folder with no PYTHONPATH, WGK_LIBRARY or source tree in its environment:
it must load the wheel's own libwgk.so and its bundled RotaryEmbedding and agree with a float64 reference.
Also: python/path_hint.py (run by `make install`) prints the PYTHONPATH line only when the prefix is not on the path.

usage: wheel_test.py BUILD_DIR SOURCE_DIR"""
import os
import subprocess
import sys
import zipfile

import numpy as np

build, src = (os.path.abspath(a) for a in sys.argv[1:3])
sys.path.insert(0, os.path.join(src, "python", "build_backend"))
sys.path.insert(0, os.path.join(src, "tests", "python"))
import wgk_wheel  # noqa: E402
import references  # noqa: E402  (the ops' numpy references, by op id)

rope_ref = references.load("ai.onnx.RotaryEmbedding").rope_ref

scratch = os.path.join(os.environ.get("WGK_TEST_TMP") or os.environ["TMPDIR"], "wheel")
home, dist, elsewhere = (os.path.join(scratch, d) for d in ("home", "dist", "elsewhere"))
for d in (home, dist, elsewhere):
    os.makedirs(d, exist_ok=True)
failures = []


def check(ok, what, detail=""):
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else "\n" + detail))
    if not ok:
        failures.append(what)


name = wgk_wheel.build(build, dist)
wheel = os.path.join(dist, name)
names = zipfile.ZipFile(wheel).namelist()
for want in ("wgk/__init__.py", "wgk/_install.py", "wgk/lib/libwgk.so", "wgk/lib/wgk/libwebgpu_wrapper.so",
             "wgk/share/wgk/kernels/ai.onnx.RotaryEmbedding/build/webgpu/manifest.json",
             "wgk/share/wgk/kernels/com.microsoft.SparseAttention/build/webgpu/metadata.json"):
    check(want in names, f"the wheel holds {want}", "\n".join(names))

clean = {"HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
clean.update({k: os.environ[k] for k in ("LD_PRELOAD", "ASAN_OPTIONS") if k in os.environ})  # a sanitized build
p = subprocess.run(["/usr/bin/python3", "-m", "pip", "install", "--user", "--no-index", "--break-system-packages",
                    "--disable-pip-version-check", wheel], env=clean, capture_output=True, text=True)
check(p.returncode == 0, "pip install --user --no-index (offline, numpy from Debian)", p.stdout + p.stderr)

rng = np.random.default_rng(3)
x = rng.standard_normal((1, 2, 3, 8), dtype=np.float32)
theta = rng.uniform(0, 6, (10, 4))
c, s, pos = np.cos(theta).astype(np.float32), np.sin(theta).astype(np.float32), np.array([[0, 4, 9]])
for n, a in (("x", x), ("c", c), ("s", s), ("p", pos)):
    np.save(os.path.join(elsewhere, n + ".npy"), a)
script = """
import numpy as np, wgk
print("library", wgk.library_path())
print("version", wgk.__version__)
with wgk.load("webgpu-kernels/ai.onnx.RotaryEmbedding", version=1) as rope:
    y = rope(X=np.load("x.npy"), cos_cache=np.load("c.npy"), sin_cache=np.load("s.npy"), position_ids=np.load("p.npy"))
np.save("y.npy", y["y"])
"""
p = subprocess.run(["/usr/bin/python3", "-c", script], cwd=elsewhere, env=clean, capture_output=True, text=True)
print(p.stdout + p.stderr, end="")
check(p.returncode == 0, "import wgk and a RotaryEmbedding call from another folder", p.stdout + p.stderr)
if p.returncode == 0:
    lib = p.stdout.split("library ", 1)[1].split("\n", 1)[0]
    check(lib.startswith(os.path.join(home, ".local")), f"the wheel's own libwgk.so is loaded ({lib})")
    y = np.load(os.path.join(elsewhere, "y.npy"))
    check(np.allclose(y, rope_ref(x, c, s, pos, 0), rtol=1e-5, atol=1e-5), "y agrees with the float64 reference")

hint = os.path.join(src, "python", "path_hint.py")
prefix = os.path.join(scratch, "prefix")
p = subprocess.run(["/usr/bin/python3", hint, prefix], env=clean, capture_output=True, text=True)
check(f"export PYTHONPATH={prefix}/lib/python3/dist-packages" in p.stdout, "make install's hint when not on the path",
      p.stdout + p.stderr)
p = subprocess.run(["/usr/bin/python3", hint, prefix], capture_output=True, text=True,
                   env=dict(clean, PYTHONPATH=f"{prefix}/lib/python3/dist-packages"))
check(p.stdout == "", "no hint when the prefix is on the path", p.stdout + p.stderr)
if failures:
    sys.exit(f"FAIL: {len(failures)} check(s)")
print("wheel ok")
