#!/usr/bin/env python3
"""The seed-format test fixtures, made whole: each folder of tests/cli/seed-packages/ holds only a seed-format
manifest.json and metadata.json (without digests) for a shipped package; everything else (README.md,
templates, test.json, bench.json) is taken from the package's source, kernels/<op id>/, so a template edited
there is the template the seed fixture renders. The digests are computed here.

usage: seed_packages.py SOURCE_DIR OUT_DIR     writes OUT_DIR/<op id>/ for every fixture
As a module: materialize(source_dir, out_dir) -> [package folders].
"""
import base64
import hashlib
import json
import os
import shutil
import sys

OWN = ("manifest.json", "metadata.json")  # the files a fixture supplies itself


def _digests(webgpu):
    out = {}
    for dirpath, dirnames, names in os.walk(webgpu):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(dirpath, name), webgpu).replace(os.sep, "/")
            if name.startswith(".") or rel == "metadata.json":
                continue
            with open(os.path.join(dirpath, name), "rb") as f:
                out[rel] = base64.b64encode(hashlib.sha256(f.read()).digest()).decode("ascii")
    return dict(sorted(out.items()))


def materialize(src, out):
    fixtures = os.path.join(src, "tests", "cli", "seed-packages")
    made = []
    for op in sorted(os.listdir(fixtures)):
        fixture = os.path.join(fixtures, op, "build", "webgpu")
        shipped = os.path.join(src, "kernels", op)
        if not os.path.isdir(fixture):
            continue
        if not os.path.isdir(shipped):
            raise SystemExit(f"{fixture}: no kernels/{op} to take the package's other files from")
        dst = os.path.join(out, op)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(shipped, dst, ignore=shutil.ignore_patterns("tools", ".*"))
        webgpu = os.path.join(dst, "build", "webgpu")
        for name in OWN:
            shutil.copyfile(os.path.join(fixture, name), os.path.join(webgpu, name))
        meta_path = os.path.join(webgpu, "metadata.json")
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
        meta["digest"] = {"algorithm": "sha256", "files": _digests(webgpu)}
        with open(meta_path, "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=2)
            f.write("\n")
        made.append(dst)
    return made


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    for pkg in materialize(sys.argv[1], sys.argv[2]):
        print(pkg)
