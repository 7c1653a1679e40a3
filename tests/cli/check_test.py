#!/usr/bin/env python3
"""wgk check DIR (issue 36 item 2), on the GPU, on the LeakyRelu package docs/authoring.md builds (made here from
the page's own file blocks, then packed):
- the package as the page writes it: every check ok, each case compiled and run, "0 problems", exit 0;
- several problems at once are all listed, each as FAIL [rule] FILE:LINE:COL: path: what, with the values:
  an input, attribute, output and tunable the manifest lacks (test.json and bench.json), a missing card, and the
  check still exits 1 with "N problems";
- a stale metadata.json names `wgk pack DIR`; a template that does not compile is reported per case with the
  template's own line; a missing expected .npy names the file and `--record`;
- a manifest that does not load is reported with its position, and the device checks are skipped, said so.

usage: check_test.py WGK SOURCE_DIR      prints "ok: wgk check ..." """
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

WGK, SRC = os.path.abspath(sys.argv[1]), sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests", "docs"))
import authoring_test  # noqa: E402  (the page's blocks)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def wgk(*args):
    return subprocess.run([WGK, *args], capture_output=True, text=True, timeout=300)


def edit_json(path, fn):
    doc = json.load(open(path))
    fn(doc)
    json.dump(doc, open(path, "w"), indent=2)


with tempfile.TemporaryDirectory() as tmp:
    authoring_test.write_files(os.path.join(SRC, "docs", "authoring.md"), tmp)
    good = os.path.join(tmp, "ai.onnx.LeakyRelu")
    if wgk("pack", good).returncode != 0:
        fail("pack")
    r = wgk("check", good)  # the page's expected file is not recorded yet: named, with the command that writes it
    if r.returncode != 1 or "expected/random_f32.y.npy: no such file" not in r.stdout or "--record" not in r.stdout:
        fail("a missing expected file:\n" + r.stdout + r.stderr)
    r = subprocess.run([WGK, "test", good, "--record", f"{sys.executable} tools/reference.py"], capture_output=True,
                       text=True, timeout=300)
    if r.returncode != 0:
        fail("the page's --record: " + r.stdout + r.stderr)
    pristine = os.path.join(tmp, "pristine")
    shutil.copytree(good, pristine)

    r = wgk("check", good)
    out = r.stdout
    if r.returncode != 0 or not re.search(r"^0 problems$", out, re.M) or "FAIL" in out:
        fail("the page's package does not check clean:\n" + out + r.stderr)
    for want in ("ok    manifest.json", "ok    metadata.json: up to date", "ok    test.json", "ok    bench.json",
                 "ok    README.md", "ok    case small_f32: variant elementwise renders, compiles and runs"):
        if want not in out:
            fail(f"clean check lacks '{want}':\n{out}")

    # Several problems at once, each with its position, rule and values.
    pkg = os.path.join(tmp, "many")
    shutil.copytree(pristine, pkg)
    web = os.path.join(pkg, "build", "webgpu")

    def break_tests(d):
        d["cases"][0]["inputs"]["q"] = d["cases"][0]["inputs"]["x"]
        d["cases"][0]["attrs"]["beta"] = 2
        d["cases"][1]["expected"]["z"] = {"data": [1]}
    edit_json(os.path.join(web, "test.json"), break_tests)
    edit_json(os.path.join(web, "bench.json"), lambda d: d["cases"][0].update(tunables={"WG": 64}))
    os.remove(os.path.join(pkg, "README.md"))
    wgk("pack", pkg)
    r = wgk("check", pkg)
    out = r.stdout
    wants = [
        r"FAIL  \[test\.json\] \S+/test\.json:\d+:\d+: cases\[0\]\.inputs\.q: 'q' is not an input of ai\.onnx\.LeakyRelu \(inputs: x\)",
        r"FAIL  \[test\.json\] \S+/test\.json:\d+:\d+: cases\[0\]\.attrs\.beta: ai\.onnx\.LeakyRelu declares no attribute 'beta'",
        r"FAIL  \[test\.json\] \S+/test\.json:\d+:\d+: cases\[1\]\.expected\.z: 'z' is not an output of ai\.onnx\.LeakyRelu \(outputs: y\)",
        r"FAIL  \[bench\.json\] \S+/bench\.json:\d+:\d+: cases\[0\]\.tunables\.WG: ai\.onnx\.LeakyRelu declares no tunable 'WG'",
        r"FAIL  \[card\] \S+/README\.md: missing",
    ]
    for w in wants:
        if not re.search(w, out):
            fail(f"missing /{w}/ in:\n{out}")
    m = re.search(r"^(\d+) problems$", out, re.M)
    if r.returncode != 1 or not m or int(m.group(1)) < len(wants):
        fail(f"exit {r.returncode} / count:\n{out}")

    # A stale metadata.json names the command that fixes it; the device is not checked then.
    pkg = os.path.join(tmp, "stale")
    shutil.copytree(pristine, pkg)
    web = os.path.join(pkg, "build", "webgpu")
    with open(os.path.join(web, "leaky-relu.wgsl.jinja"), "a") as f:
        f.write("// edited\n")
    r = wgk("check", pkg)
    if r.returncode != 1 or f"run `wgk pack {pkg}`" not in r.stdout or "FAIL  [pack]" not in r.stdout \
            or "note  device: not checked" not in r.stdout:
        fail("stale metadata:\n" + r.stdout + r.stderr)

    # A template that does not compile: each case that reaches it, with the template's line.
    tmpl = os.path.join(web, "leaky-relu.wgsl.jinja")
    lines = open(tmpl).read().split("\n")
    lines.insert(2, "let broken = 1;")
    open(tmpl, "w").write("\n".join(lines))
    wgk("pack", pkg)
    r = wgk("check", pkg)
    if r.returncode != 1 or not re.search(r"FAIL  \[device\] case small_f32: leaky-relu\.wgsl\.jinja:3: ", r.stdout):
        fail("a template that does not compile:\n" + r.stdout + r.stderr)

    # A missing expected .npy: the file, and how to write it.
    pkg = os.path.join(tmp, "npy")
    shutil.copytree(pristine, pkg)
    web = os.path.join(pkg, "build", "webgpu")
    edit_json(os.path.join(web, "test.json"),
              lambda d: d["cases"][0].update(expected={"y": {"npy": "expected/small_f32.y.npy"}}))
    wgk("pack", pkg)
    r = wgk("check", pkg)
    if r.returncode != 1 or "expected/small_f32.y.npy" not in r.stdout or "--record" not in r.stdout:
        fail("a missing expected file:\n" + r.stdout + r.stderr)

    # A manifest that does not load: its position; nothing is compiled.
    pkg = os.path.join(tmp, "manifest")
    shutil.copytree(pristine, pkg)
    man = os.path.join(pkg, "build", "webgpu", "manifest.json")
    edit_json(man, lambda d: d["variants"][0].update(bogus=1))
    r = wgk("check", pkg)
    if r.returncode != 1 or not re.search(r"FAIL  \[manifest\] \S+manifest\.json:\d+:\d+: ", r.stdout) \
            or "note  device: not checked" not in r.stdout:
        fail("a manifest that does not load:\n" + r.stdout + r.stderr)

    r = wgk("check")
    if r.returncode != 2:
        fail("wgk check without DIR: exit %d" % r.returncode)

print("ok: wgk check: a clean package, every problem listed with position and rule, stale digests, compile errors")
