#!/usr/bin/env python3
"""check_layers.py fails on a tree where a low folder includes a higher one (the edge expr -> plan that the
device description's move removed), and passes on the same tree without it. Usage: upward_edge.py CHECKER ROOT"""
import os
import shutil
import subprocess
import sys
import tempfile

checker, root = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "docs"))
    shutil.copy(os.path.join(root, "docs", "contributing.md"), os.path.join(tmp, "docs"))
    for folder in os.listdir(os.path.join(root, "src")):
        if os.path.isdir(os.path.join(root, "src", folder)):
            os.makedirs(os.path.join(tmp, "src", folder))
    probe = os.path.join(tmp, "src", "expr", "probe.c")
    with open(probe, "w") as f:
        f.write('#include "util/error.h"\n')
    ok = subprocess.run([sys.executable, checker, tmp], capture_output=True, text=True)
    with open(probe, "a") as f:
        f.write('#include "plan/plan.h"\n')
    bad = subprocess.run([sys.executable, checker, tmp], capture_output=True, text=True)
    print(ok.stdout, bad.stdout, sep="")
    if ok.returncode != 0 or bad.returncode == 0 or "src/expr may not include src/plan" not in bad.stdout:
        sys.exit("the layer check did not tell the upward edge apart")
print("upward edge refused, the same tree without it passes")
