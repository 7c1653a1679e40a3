#!/usr/bin/env python3
"""The package suite: every package folder under DIR (DIR/<op id>/build/webgpu/manifest.json), found when the
test runs, has its own test.json run by `wgk test`; each must pass at least one case, fail none and skip none
(a skipped case checked nothing). A new package is in the suite by being a folder there: no registration.

usage: suite.py WGK DIR [--shard K/N]     (the shard is handed to each `wgk test`: each package's cases split)
"""
import glob
import os
import re
import subprocess
import sys

wgk, root = sys.argv[1], sys.argv[2]
extra = sys.argv[3:]
pkgs = sorted(os.path.dirname(os.path.dirname(os.path.dirname(m)))
              for m in glob.glob(os.path.join(os.path.abspath(root), "*", "build", "webgpu", "manifest.json")))
if not pkgs:
    sys.exit(f"{root}: no package folder (<op id>/build/webgpu/manifest.json)")
bad = []
for pkg in pkgs:
    name = os.path.basename(pkg)
    if not os.path.exists(os.path.join(pkg, "build", "webgpu", "test.json")):
        bad.append(f"{name}: no build/webgpu/test.json (every package brings its own cases)")
        continue
    r = subprocess.run([wgk, "test", pkg] + extra, capture_output=True, text=True)
    out = r.stdout + r.stderr
    m = re.search(r"(\d+) passed, (\d+) failed(?:, (\d+) skipped)?", out)
    passed = int(m.group(1)) if m else 0
    skipped = int(m.group(3) or 0) if m else 0
    sharded = bool(extra) and r.returncode == 0 and passed == 0 and "SKIP" not in out
    print(f"{name}: {m.group(0) if m else 'no summary'} (exit {r.returncode})")
    if r.returncode != 0 or not m or int(m.group(2)) or skipped or re.search(r"^SKIP ", out, re.M) or \
            (passed == 0 and not sharded):
        bad.append(f"{name}: wgk test exit {r.returncode}\n{out[-3000:]}")
for b in bad:
    print("FAIL", b)
print(f"{len(pkgs) - len(bad)}/{len(pkgs)} packages pass")
sys.exit(1 if bad else 0)
