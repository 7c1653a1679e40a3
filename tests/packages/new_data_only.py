#!/usr/bin/env python3
"""packages_new_data_only: a data-only package (manifest, template, test.json: no C, no cmake, no docs entry) put
into a scratch kernels folder is found and run by the package suite (tests/packages/suite.py) with nothing outside
its own folder touched; the suite must report that package's cases passed. The package is tests/cli/scale, copied
under its op id.

usage: new_data_only.py WGK SOURCE_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

wgk, src = sys.argv[1], sys.argv[2]
pkg_src = os.path.join(src, "tests", "cli", "scale")
man = json.load(open(os.path.join(pkg_src, "build", "webgpu", "manifest.json")))
op_id = f"{man['domain']}.{man['name']}"
with tempfile.TemporaryDirectory() as tmp:
    kernels = os.path.join(tmp, "kernels")
    shutil.copytree(pkg_src, os.path.join(kernels, op_id))
    r = subprocess.run([sys.executable, os.path.join(src, "tests", "packages", "suite.py"), wgk, kernels],
                       capture_output=True, text=True)
    print(r.stdout + r.stderr)
    line = next((l for l in r.stdout.splitlines() if l.startswith(op_id + ":")), "")
    if r.returncode != 0 or " passed, 0 failed" not in line or line.startswith(op_id + ": 0 passed"):
        sys.exit(f"the suite did not run {op_id} from its folder alone")
    print(f"{op_id}: picked up from its folder alone")
