#!/usr/bin/env python3
"""test.json with .npy files and `wgk test --record` (issue 36 item 3), on the GPU, on the LeakyRelu package that
docs/authoring.md builds (made here from the page's own file blocks):
- cases read inputs from .npy files of the package and compare against expected .npy files; `wgk test --record
  COMMAND` writes those expected files from a numpy reference (tools/reference.py, written here) and repacks;
- the recorded files hold what numpy computes here independently (for the input read from a file) and `wgk test`
  passes every case; a wrong expected file fails its case (the comparison can fail); wgk pack --check passes;
- bad entries are refused with file:line:column and the rule: a path leaving build/webgpu, a name without .npy,
  data and npy together, a dtype or shape that disagrees with the file, a file not packed (naming `wgk pack`);
- a reference that fails, writes nothing, or writes a dtype wgk does not read stops --record with the case named.

usage: record_test.py WGK SOURCE_DIR      prints "ok: wgk test --record ..." """
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

WGK, SRC = os.path.abspath(sys.argv[1]), sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests", "docs"))
import authoring_test  # noqa: E402  (the page's blocks)

REFERENCE = """import json, os, sys
import numpy as np
d = os.environ["WGK_CASE_DIR"]
case = json.load(open(os.path.join(d, "case.json")))
assert case["id"] == os.environ["WGK_CASE"]
x = np.load(os.path.join(d, case["inputs"]["x"]["file"])).astype(np.float64)
scale = sys.argv[1] if len(sys.argv) > 1 else "1"
out_dtype = sys.argv[2] if len(sys.argv) > 2 else "float32"
alpha = case["attrs"].get("alpha", 0.01) * float(scale)
y = np.where(x >= 0, x, alpha * x)
np.save(os.path.join(d, case["outputs"]["y"]["file"]), y.astype(out_dtype))
"""


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def wgk(*args):
    return subprocess.run([WGK, *args], capture_output=True, text=True, timeout=300)


def leaky(x, alpha):
    x = x.astype(np.float64)
    return np.where(x >= 0, x, alpha * x)


with tempfile.TemporaryDirectory() as tmp:
    authoring_test.write_files(os.path.join(SRC, "docs", "authoring.md"), tmp)
    pkg = os.path.join(tmp, "ai.onnx.LeakyRelu")
    web = os.path.join(pkg, "build", "webgpu")
    os.makedirs(os.path.join(pkg, "tools"), exist_ok=True)
    open(os.path.join(pkg, "tools", "reference.py"), "w").write(REFERENCE)
    os.makedirs(os.path.join(web, "data"))
    x_file = np.random.default_rng(5).standard_normal((4, 7)).astype(np.float32)
    np.save(os.path.join(web, "data", "x.npy"), x_file)
    suite = json.load(open(os.path.join(web, "test.json")))
    suite["cases"] += [
        {"id": "random_normal", "attrs": {"alpha": 0.25},
         "inputs": {"x": {"dtype": "float32", "shape": [3, 50], "generator": {"kind": "normal", "seed": 11}}},
         "expected": {"y": {"npy": "expected/random_normal.y.npy"}}},
        {"id": "from_file", "attrs": {"alpha": 0.5},
         "inputs": {"x": {"npy": "data/x.npy"}},
         "expected": {"y": {"npy": "expected/from_file.y.npy", "shape": [4, 7]}}},
    ]
    json.dump(suite, open(os.path.join(web, "test.json"), "w"), indent=2)
    if wgk("pack", pkg).returncode != 0:
        fail("pack before recording")
    ref = f"{sys.executable} tools/reference.py"

    # Recording writes the expected files, repacked, and they hold numpy's values.
    n_cases = len(suite["cases"])
    r = wgk("test", pkg, "--record", ref)
    n_recorded = sum(1 for c in suite["cases"] if any("npy" in e for e in c.get("expected", {}).values()))
    if r.returncode != 0 or f"{n_recorded} cases recorded; metadata.json repacked" not in r.stdout:
        fail("--record: " + r.stdout + r.stderr)
    got = np.load(os.path.join(web, "expected", "from_file.y.npy"))
    if got.dtype != np.float32 or got.shape != (4, 7) or not np.array_equal(got, leaky(x_file, 0.5).astype(np.float32)):
        fail(f"expected/from_file.y.npy is not numpy's LeakyRelu of data/x.npy: {got}")
    if np.load(os.path.join(web, "expected", "random_normal.y.npy")).shape != (3, 50):
        fail("expected/random_normal.y.npy: wrong shape")
    if wgk("pack", pkg, "--check").returncode != 0:
        fail("after --record, metadata.json is not up to date")
    r = wgk("test", pkg)
    if r.returncode != 0 or not re.search(rf"^{n_cases} passed, 0 failed$", r.stdout, re.M) \
            or "PASS from_file" not in r.stdout:
        fail("wgk test after --record:\n" + r.stdout + r.stderr)

    # The comparison can fail: expected files recorded from a wrong reference (twice the slope).
    r = wgk("test", pkg, "--record", ref + " 2", "--case", "from_file")
    if r.returncode != 0:
        fail("--record --case: " + r.stdout + r.stderr)
    r = wgk("test", pkg)
    if r.returncode != 1 or "FAIL from_file" not in r.stdout or "PASS random_normal" not in r.stdout:
        fail("a wrong expected file does not fail its case:\n" + r.stdout + r.stderr)
    wgk("test", pkg, "--record", ref, "--case", "from_file")

    # References that fail: the case is named, nothing is written.
    for args, want in ((" x", "the reference `"), (" 1 float64", "outputs/y.npy")):
        r = wgk("test", pkg, "--record", ref + args, "--case", "from_file")
        if r.returncode != 1 or want not in r.stderr or "case from_file" not in r.stderr:
            fail(f"a failing reference ({args}): rc {r.returncode}\n{r.stderr}")
    r = wgk("test", pkg, "--record", "true", "--case", "from_file")
    if r.returncode != 1 or "wrote no outputs/y.npy" not in r.stderr:
        fail("a reference that writes nothing: " + r.stderr)
    if wgk("test", pkg).returncode != 0:
        fail("a failed --record changed the package")

    # Bad entries: one line with the position, the rule and the values.
    base = json.load(open(os.path.join(web, "test.json")))
    bad = [
        ({"x": {"npy": "../x.npy"}}, None, "no '..'"),
        ({"x": {"npy": "data/x.bin"}}, None, "ends in .npy"),
        ({"x": {"npy": "data/x.npy", "data": [1]}}, None, "exactly one of \"data\", \"generator\" and \"npy\""),
        ({"x": {"npy": "data/x.npy", "dtype": "float16"}}, {"y": {"npy": "expected/from_file.y.npy"}},
         "holds float32, the case says dtype float16"),
        ({"x": {"npy": "data/x.npy", "shape": [7, 4]}}, {"y": {"npy": "expected/from_file.y.npy"}},
         "has shape [4, 7], the case says shape [7, 4]"),
        ({"x": {"npy": "data/missing.npy"}}, {"y": {"npy": "expected/from_file.y.npy"}}, "data/missing.npy"),
    ]
    for inputs, expected, want in bad:
        doc = json.loads(json.dumps(base))
        doc["cases"][-1]["inputs"] = inputs
        if expected:
            doc["cases"][-1]["expected"] = expected
        json.dump(doc, open(os.path.join(web, "test.json"), "w"), indent=2)
        wgk("pack", pkg)
        r = wgk("test", pkg, "--case", "from_file")
        out = r.stdout + r.stderr
        if r.returncode != 1 or want not in out or not re.search(rf"test\.json:\d+:\d+: cases\[{n_cases - 1}\]", out):
            fail(f"{inputs}: want '{want}' at test.json:LINE:COL cases[{n_cases - 1}]:\n{out}")
    doc = json.loads(json.dumps(base))
    doc["cases"][-1]["inputs"] = {"x": {"npy": "data/extra.npy"}}
    json.dump(doc, open(os.path.join(web, "test.json"), "w"), indent=2)
    wgk("pack", pkg)
    np.save(os.path.join(web, "data", "extra.npy"), x_file)  # added after packing
    r = wgk("test", pkg, "--case", "from_file")
    if r.returncode != 1 or "run `wgk pack" not in r.stdout + r.stderr:
        fail("an unpacked .npy file: the refusal does not name `wgk pack`:\n" + r.stdout + r.stderr)

print("ok: wgk test --record: .npy inputs and expected files, recorded from numpy, checked, refused when wrong")
