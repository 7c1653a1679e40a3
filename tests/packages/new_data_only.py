#!/usr/bin/env python3
"""packages_new_data_only: a new data-only package (manifest, template, test.json, and a numpy reference in its
tools/: no C, no cmake, no docs entry, no list anywhere) put into a scratch kernels folder needs nothing outside
its own folder:
  1. the package suite (tests/packages/suite.py) finds it and runs its test.json: its cases must pass;
  2. the reference registry (tests/python/references.py) finds its reference by op id;
  3. the install rule of the build (build/cmake_install.cmake, component kernels, cmake/install_kernels.cmake)
     installs it, every file identical, and a folder beside it that is no package is left out;
  4. the installed copy runs by op id (WGK_KERNEL_PATH = the installed kernels folder): `wgk run` on random
     inputs agrees with the reference.
The package is tests/cli/scale, copied under its op id.

usage: new_data_only.py WGK SOURCE_DIR BUILD_DIR
"""
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

wgk, src, build = (os.path.abspath(a) for a in sys.argv[1:4])
sys.path.insert(0, os.path.join(src, "tests", "python"))
import references  # noqa: E402

REFERENCE = '''"""test.Scale in float64 numpy: Y = X * scale + bias."""
import numpy as np


def reference(inputs, attrs):
    return {"Y": np.asarray(inputs["X"], np.float64) * attrs.get("scale", 2.0) + attrs.get("bias", 0.0)}
'''


def fail(msg):
    sys.exit("FAIL: " + msg)


pkg_src = os.path.join(src, "tests", "cli", "scale")
man = json.load(open(os.path.join(pkg_src, "build", "webgpu", "manifest.json")))
op_id = f"{man['domain']}.{man['name']}"
with tempfile.TemporaryDirectory() as tmp:
    kernels = os.path.join(tmp, "kernels")
    pkg = os.path.join(kernels, op_id)
    shutil.copytree(pkg_src, pkg)
    os.makedirs(os.path.join(pkg, "tools"))
    with open(os.path.join(pkg, "tools", "reference.py"), "w") as f:
        f.write(REFERENCE)
    os.makedirs(os.path.join(kernels, "notes"))  # a folder that is no package: the install leaves it out

    # 1. the suite
    r = subprocess.run([sys.executable, os.path.join(src, "tests", "packages", "suite.py"), wgk, kernels],
                       capture_output=True, text=True)
    print(r.stdout + r.stderr)
    line = next((l for l in r.stdout.splitlines() if l.startswith(op_id + ":")), "")
    if r.returncode != 0 or " passed, 0 failed" not in line or line.startswith(op_id + ": 0 passed"):
        fail(f"the suite did not run {op_id} from its folder alone")
    print(f"suite: {op_id} picked up from its folder alone")

    # 2. the reference registry
    if list(references.ops(kernels)) != [op_id]:
        fail(f"the reference registry found {list(references.ops(kernels))} in {kernels}, wanted [{op_id!r}]")
    ref = references.reference(op_id, kernels)
    print(f"references: {op_id} found by op id")

    # 3. the install rule
    prefix = os.path.join(tmp, "prefix")
    r = subprocess.run(["cmake", f"-DWGK_INSTALL_KERNELS_FROM={kernels}", f"-DCMAKE_INSTALL_PREFIX={prefix}",
                        "-DCMAKE_INSTALL_COMPONENT=kernels", "-P", os.path.join(build, "cmake_install.cmake")],
                       capture_output=True, text=True)
    print(r.stdout + r.stderr)
    installed = os.path.join(prefix, "share", "wgk", "kernels")
    if r.returncode:
        fail(f"the install script exited {r.returncode}")
    if sorted(os.listdir(installed)) != [op_id]:
        fail(f"installed {sorted(os.listdir(installed))}, wanted [{op_id!r}] (the notes folder is no package)")
    want = sorted(os.path.relpath(os.path.join(d, f), pkg) for d, _, fs in os.walk(pkg) for f in fs)
    got = sorted(os.path.relpath(os.path.join(d, f), os.path.join(installed, op_id))
                 for d, _, fs in os.walk(os.path.join(installed, op_id)) for f in fs)
    if got != want:
        fail(f"installed files {got}, wanted {want}")
    _, diff, errs = filecmp.cmpfiles(pkg, os.path.join(installed, op_id), want, shallow=False)
    if diff or errs:
        fail(f"installed files differ from the package's: {diff + errs}")
    print(f"install: {op_id}'s {len(want)} files installed as they are")

    # 4. the installed copy, by op id
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, (3, 70)).astype(np.float32)
    np.save(os.path.join(tmp, "x.npy"), x)
    env = dict(os.environ, WGK_KERNEL_PATH=installed)
    r = subprocess.run([wgk, "run", op_id, "--in", f"x={os.path.join(tmp, 'x.npy')}", "--attr", "scale=-1.5",
                        "--attr", "bias=0.25", "--out", os.path.join(tmp, "out")], capture_output=True, text=True,
                       env=env)
    print(r.stdout + r.stderr)
    if r.returncode:
        fail(f"wgk run {op_id} from the install exited {r.returncode}")
    if f"{installed}/{op_id}" not in r.stdout + r.stderr:  # its unverified-package warning names the copy it ran
        fail(f"wgk run {op_id} did not say it ran the installed copy {installed}/{op_id}")
    y = np.load(os.path.join(tmp, "out", "y.npy"))
    np.testing.assert_allclose(y, ref({"X": x}, {"scale": -1.5, "bias": 0.25})["Y"], rtol=1e-6, atol=1e-6)
    print(f"ok: {op_id} needs nothing outside its folder: the suite ran it, the registry found its reference, "
          f"the install took it, and the installed copy agrees with the reference")
