#!/usr/bin/env python3
"""One source of truth per package: every file a package's tools (kernels/*/tools/*.py, and those of the seed
fixtures, tests/cli/seed-packages/*/tools/*.py) write is the file committed, and each shipped package is what
`wgk convert` makes of its seed fixture, byte for byte (the fixture is the source; kernels/ is generated). Each tool runs on a scratch copy of its package (tools/ and an empty build/webgpu/), and what it
writes is compared byte for byte with the package's own. Also: templates name the fold width
DISPATCH_FOLD_WIDTH, never the literal 65535.
Usage: generated_files.py REPO_ROOT [WGK]   (without WGK the convert check is not made)
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

root = sys.argv[1] if len(sys.argv) > 1 else "."
wgk = sys.argv[2] if len(sys.argv) > 2 else None
problems, checked = [], 0
seeds = os.path.join(root, "tests", "cli", "seed-packages")
for pkg in sorted(glob.glob(os.path.join(root, "kernels", "*")) + glob.glob(os.path.join(seeds, "*"))):
    tools = os.path.join(pkg, "tools")
    if not os.path.isdir(tools):
        continue
    for tool in sorted(glob.glob(os.path.join(tools, "*.py"))):
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(tools, os.path.join(tmp, "tools"))
            out = os.path.join(tmp, "build", "webgpu")
            os.makedirs(out)
            run = subprocess.run([sys.executable, os.path.join(tmp, "tools", os.path.basename(tool))], cwd=tmp,
                                 capture_output=True, text=True)
            if run.returncode != 0:
                problems.append(f"{os.path.relpath(tool, root)}: failed: {run.stderr.strip()}")
                continue
            written = sorted(os.listdir(out))
            if not written:
                problems.append(f"{os.path.relpath(tool, root)}: wrote nothing under build/webgpu")
            for name in written:
                committed = os.path.join(pkg, "build", "webgpu", name)
                with open(os.path.join(out, name), "rb") as f:
                    made = f.read()
                have = open(committed, "rb").read() if os.path.exists(committed) else None
                checked += 1
                if made != have:
                    problems.append(f"{os.path.relpath(committed, root)}: differs from what "
                                    f"{os.path.relpath(tool, root)} writes (run it, then scripts/package-digests.py)")
for seed in sorted(glob.glob(os.path.join(seeds, "*"))) if wgk else []:
    shipped = os.path.join(root, "kernels", os.path.basename(seed))
    with tempfile.TemporaryDirectory() as tmp:
        dst = os.path.join(tmp, "pkg")
        run = subprocess.run([wgk, "convert", seed, dst], capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"wgk convert {os.path.relpath(seed, root)}: failed: {run.stderr.strip()}")
            continue
        for dirpath, _, names in os.walk(dst):
            for name in names:
                rel = os.path.relpath(os.path.join(dirpath, name), dst)
                have = os.path.join(shipped, rel)
                checked += 1
                if not os.path.exists(have) or open(have, "rb").read() != open(os.path.join(dirpath, name), "rb").read():
                    problems.append(f"kernels/{os.path.basename(seed)}/{rel}: differs from what wgk convert makes of "
                                    f"{os.path.relpath(seed, root)} (run: wgk convert SEED /tmp/x, copy it into kernels/)")
for tmpl in sorted(glob.glob(os.path.join(root, "kernels", "*", "build", "webgpu", "*.jinja"))):
    with open(tmpl, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if re.search(r"\b65535\b", line):
                problems.append(f"{os.path.relpath(tmpl, root)}:{n}: the literal 65535: use DISPATCH_FOLD_WIDTH")
for p in problems:
    print(p)
if problems:
    sys.exit(1)
print(f"{checked} generated files match what is committed; templates use DISPATCH_FOLD_WIDTH")
