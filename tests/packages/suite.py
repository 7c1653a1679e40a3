#!/usr/bin/env python3
"""The package suite: every package folder under DIR (DIR/<op id>/build/webgpu/manifest.json), found when the
test runs, has its own test.json run by `wgk test`; each must pass at least one case, fail none and skip none
(a skipped case checked nothing). A new package is in the suite by being a folder there: no registration.

usage: suite.py WGK DIR [--shard K/N] [--case PAT] [--require TEXT]
  --shard K/N     handed to each `wgk test`: each package's cases split
  --case PAT      handed to each `wgk test`: only the cases whose id contains PAT; a package with none is named
                  and left out (at least one package must have some)
  --require TEXT  each package's `wgk test` output that passed cases must contain TEXT (e.g. the variant a case
                  must run)
"""
import glob
import os
import re
import subprocess
import sys

wgk, root = sys.argv[1], sys.argv[2]
extra, require = sys.argv[3:], None
if "--require" in extra:
    i = extra.index("--require")
    require, extra = extra[i + 1], extra[:i] + extra[i + 2:]
pkgs = sorted(os.path.dirname(os.path.dirname(os.path.dirname(m)))
              for m in glob.glob(os.path.join(os.path.abspath(root), "*", "build", "webgpu", "manifest.json")))
if not pkgs:
    sys.exit(f"{root}: no package folder (<op id>/build/webgpu/manifest.json)")
bad, none = [], []
for pkg in pkgs:
    name = os.path.basename(pkg)
    if not os.path.exists(os.path.join(pkg, "build", "webgpu", "test.json")):
        bad.append(f"{name}: no build/webgpu/test.json (every package brings its own cases)")
        continue
    r = subprocess.run([wgk, "test", pkg] + extra, capture_output=True, text=True)
    out = r.stdout + r.stderr
    if "--case" in extra and "no test.json case id contains" in out:
        none.append(name)
        print(f"{name}: no case matches --case {extra[extra.index('--case') + 1]}: not run")
        continue
    m = re.search(r"(\d+) passed, (\d+) failed(?:, (\d+) skipped)?", out)
    passed = int(m.group(1)) if m else 0
    skipped = int(m.group(3) or 0) if m else 0
    sharded = "--shard" in extra and r.returncode == 0 and passed == 0 and "SKIP" not in out
    print(f"{name}: {m.group(0) if m else 'no summary'} (exit {r.returncode})")
    if r.returncode != 0 or not m or int(m.group(2)) or skipped or re.search(r"^SKIP ", out, re.M) or \
            (passed == 0 and not sharded):
        failing = "\n".join(l for l in out.splitlines() if l.startswith(("FAIL", "SKIP")))  # each case's verdict
        bad.append(f"{name}: wgk test exit {r.returncode}\n{failing[:4000]}\n{out[-1500:]}")
    elif require and passed and require not in out:  # (a shard may hold none of a package's cases)
        bad.append(f"{name}: the output does not contain {require!r}\n{out[-3000:]}")
ran = len(pkgs) - len(none)
if none and not ran:
    bad.append("no package has a case matching --case: nothing was checked")
for b in bad:
    print("FAIL", b)
print(f"{max(ran - len(bad), 0)}/{ran} packages pass"
      + (f" ({len(none)} without a matching case)" if none else ""))
sys.exit(1 if bad else 0)
