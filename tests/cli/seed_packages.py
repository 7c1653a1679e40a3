#!/usr/bin/env python3
"""The seed-format test fixtures, made whole: each folder of tests/cli/seed-packages/ holds only a seed-format
manifest.json and metadata.json (without digests) for a shipped package; everything else (README.md,
templates, test.json, bench.json) is taken from the package's source, kernels/<op id>/, so a template edited
there is the template the seed fixture renders. `wgk pack` writes the digests (one digest writer: the CLI's).

usage: seed_packages.py WGK SOURCE_DIR OUT_DIR     writes OUT_DIR/<op id>/ for every fixture
As a module: materialize(source_dir, out_dir, wgk) -> [package folders].
"""
import os
import shutil
import subprocess
import sys

OWN = ("manifest.json", "metadata.json")  # the files a fixture supplies itself


def materialize(src, out, wgk):
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
        packed = subprocess.run([wgk, "pack", dst], capture_output=True, text=True, timeout=300)
        if packed.returncode != 0:
            raise SystemExit(f"wgk pack {dst} failed:\n{packed.stdout}{packed.stderr}")
        made.append(dst)
    return made


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    for pkg in materialize(sys.argv[2], sys.argv[3], sys.argv[1]):
        print(pkg)
