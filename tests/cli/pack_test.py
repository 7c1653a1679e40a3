#!/usr/bin/env python3
"""wgk pack (issue 36 item 2), no GPU: on copies of packages in a temporary folder,
- the shipped packages' metadata.json is what pack writes (--check exit 0);
- an edited template is refused at load with a message naming `wgk pack DIR`; pack makes it load verified again;
- a package without metadata.json gets the public layout from pack: name, backend, webgpu.variants with the files
  the templates include, a digest for every file (hidden files left out), other keys of an old metadata kept;
- pack refuses a folder with no manifest.json, a metadata.json that is not JSON (left untouched) and one that is
  no regular file (a FIFO).

usage: pack_test.py WGK SOURCE_DIR      prints "ok: wgk pack ..." """
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

WGK, SRC = sys.argv[1], sys.argv[2]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def wgk(*args):
    return subprocess.run([WGK, *args], capture_output=True, text=True, timeout=120)


def sha(path):
    return base64.b64encode(hashlib.sha256(open(path, "rb").read()).digest()).decode()


with tempfile.TemporaryDirectory() as tmp:
    for op in ("ai.onnx.RotaryEmbedding", "com.microsoft.SparseAttention"):
        pkg = os.path.join(tmp, op)
        shutil.copytree(os.path.join(SRC, "kernels", op), pkg)
        r = wgk("pack", pkg, "--check")
        if r.returncode != 0:
            fail(f"{op}: the shipped metadata.json is not what wgk pack writes: {r.stderr}")
    pkg = os.path.join(tmp, "ai.onnx.RotaryEmbedding")
    web = os.path.join(pkg, "build", "webgpu")
    with open(os.path.join(web, "rotary-embedding.wgsl.jinja"), "a") as f:
        f.write("// edited\n")
    r = wgk("info", pkg)  # info reads the manifest only; render reads the template
    r = wgk("render", pkg, "--shape", "x=1x2x3x8", "--shape", "cos=8x4", "--shape", "sin=8x4",
            "--shape", "positionIds=1x3")
    if r.returncode == 0 or "sha256 mismatch" not in r.stderr or f"run `wgk pack {pkg}`" not in r.stderr:
        fail("an edited template: the refusal does not say to run `wgk pack DIR`:\n" + r.stderr)
    if wgk("pack", pkg, "--check").returncode != 1:
        fail("--check passes a package whose template changed")
    r = wgk("pack", pkg)
    if r.returncode != 0 or "loads verified" not in r.stdout:
        fail("pack after an edit: " + r.stdout + r.stderr)
    meta = json.load(open(os.path.join(web, "metadata.json")))
    if meta["digest"]["files"]["rotary-embedding.wgsl.jinja"] != sha(os.path.join(web, "rotary-embedding.wgsl.jinja")):
        fail("pack did not write the edited template's digest")
    if meta.get("version") != 1 or "provenance" not in meta:
        fail(f"pack dropped keys of the old metadata: {sorted(meta)}")
    r = wgk("render", pkg, "--shape", "x=1x2x3x8", "--shape", "cos=8x4", "--shape", "sin=8x4",
            "--shape", "positionIds=1x3", "--strict")
    if r.returncode != 0:
        fail("after pack the package does not render strict: " + r.stderr)

    # A package with includes and no metadata.json: the public layout from nothing.
    inc = os.path.join(tmp, "test.Include")
    shutil.copytree(os.path.join(SRC, "tests", "manifest", "spec21", "test.Include"), inc)
    iweb = os.path.join(inc, "build", "webgpu")
    os.remove(os.path.join(iweb, "metadata.json"))
    open(os.path.join(iweb, ".hidden"), "w").write("not packed\n")
    r = wgk("pack", iweb)
    if r.returncode != 0:
        fail("pack of a package without metadata.json: " + r.stdout + r.stderr)
    meta = json.load(open(os.path.join(iweb, "metadata.json")))
    want_files = sorted(os.path.relpath(os.path.join(d, f), iweb) for d, _, fs in os.walk(iweb) for f in fs
                        if f != "metadata.json" and not f.startswith("."))
    if sorted(meta["digest"]["files"]) != want_files or meta["name"] != "test.Include":
        fail(f"pack's digest map {sorted(meta['digest']['files'])} is not every file {want_files}")
    if meta["backend"] != {"type": "webgpu"} or meta["webgpu"]["manifestSpec"] != "2.1":
        fail(f"not the public layout: {meta}")
    included = [v for v in meta["webgpu"]["variants"].values() if any("/" in t for t in v)]
    if not included:
        fail(f"no variant lists the file its template includes: {meta['webgpu']['variants']}")
    if wgk("pack", inc, "--check").returncode != 0:
        fail("--check right after pack fails")

    # Refusals
    r = wgk("pack", tmp)
    if r.returncode != 2 or "no manifest.json" not in r.stderr:
        fail("a folder without manifest.json: " + r.stderr)
    open(os.path.join(iweb, "metadata.json"), "w").write("{ broken")
    r = wgk("pack", inc)
    if r.returncode != 1 or "metadata.json:1:" not in r.stderr or open(os.path.join(iweb, "metadata.json")).read() != "{ broken":
        fail("a metadata.json that is not JSON: " + r.stderr)
    os.remove(os.path.join(iweb, "metadata.json"))
    os.mkfifo(os.path.join(iweb, "metadata.json"))  # waited on for a writer before
    try:
        r = wgk("pack", inc)
    except subprocess.TimeoutExpired:
        fail("a metadata.json that is a FIFO: pack waited on it")
    if r.returncode != 1 or "metadata.json: not a regular file" not in r.stderr:
        fail("a metadata.json that is a FIFO: " + r.stderr)
print("ok: wgk pack writes what the shipped packages hold, re-verifies an edited package, packs from nothing")
