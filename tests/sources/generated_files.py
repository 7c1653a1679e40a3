#!/usr/bin/env python3
"""One source per package: kernels/<op id>/ is what an author edits, and every file its generators
(kernels/<op id>/tools/gen_*.py) write is the file committed there (tools/reference.py and tools/ort_cases.py
are the tests' references, not generators). Each tool runs on a scratch copy of its package
(tools/ and an empty build/webgpu/), and what it writes is compared byte for byte with the package's own; the
package's metadata.json lists the digest of every file as it is. Also: templates name the fold width
DISPATCH_FOLD_WIDTH, never the literal 65535. (The seed-format fixtures of tests/cli/seed-packages hold a
manifest each and are checked to plan as kernels/ does by tests/cli/convert_test.py.)
Usage: generated_files.py REPO_ROOT WGK      (WGK: the wgk binary; `wgk pack --check` judges the digests)
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

if len(sys.argv) != 3:
    print(__doc__.strip(), file=sys.stderr)
    sys.exit(2)
root, wgk = sys.argv[1], sys.argv[2]
problems, checked = [], 0
for pkg in sorted(glob.glob(os.path.join(root, "kernels", "*"))):
    tools = os.path.join(pkg, "tools")
    if not os.path.isdir(tools):
        continue
    for tool in sorted(glob.glob(os.path.join(tools, "gen_*.py"))):
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
                                    f"{os.path.relpath(tool, root)} writes (run it, then `wgk pack {os.path.relpath(pkg, root)}`)")
for pkg in sorted(glob.glob(os.path.join(root, "kernels", "*"))):
    check = subprocess.run([wgk, "pack", pkg, "--check"], capture_output=True, text=True, timeout=300)
    checked += 1
    if check.returncode != 0:
        problems.append(f"{os.path.relpath(pkg, root)}/build/webgpu/metadata.json: digests out of date "
                        f"(run `wgk pack {os.path.relpath(pkg, root)}`): {(check.stdout + check.stderr).strip()}")
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
