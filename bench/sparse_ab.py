#!/usr/bin/env python3
"""A/B of tunable sets in one process per set: `wgk bench` of a package copy whose bench.json cases start from
the set (bench.json's per-case `tunables`), so pairs of tunables a coordinate sweep (`wgk tune`) never visits
together are timed side by side in one GPU call.

  bench/sparse_ab.py WGK PKG OUT_DIR CASE SET [SET ...]

SET is `name=value,name=value` (`-` for the package's defaults). Each set's package copy is repacked with
`wgk pack` (its digests), benched with `--case CASE --off-irq-cpu` into OUT_DIR/ab-<i>.json, and a line per case
prints the set, the variant and the GPU median (us), also written to OUT_DIR/ab.txt. Used by bench/gpu.sh's `ab` step (SPARSE_AB).
"""
import json
import os
import shutil
import subprocess
import sys


def parse_set(text):
    if text in ("", "-"):
        return {}
    out = {}
    for item in text.split(","):
        name, _, value = item.partition("=")
        out[name.strip()] = int(value)
    return out


def copy_with(pkg, dest, tunables):
    root = os.path.join(dest, os.path.basename(os.path.normpath(pkg)))
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(pkg, root)
    path = os.path.join(root, "build", "webgpu", "bench.json")
    with open(path) as f:
        bench = json.load(f)
    for case in bench["cases"]:
        case["tunables"] = dict(case.get("tunables", {}), **tunables)
    with open(path, "w") as f:
        json.dump(bench, f, indent=1)
    return root


def rows(path):
    with open(path) as f:
        doc = json.load(f)
    for r in doc.get("cases", []):
        yield r.get("id", "?"), r.get("variant", r.get("status", "?")), (r.get("gpuNs") or {}).get("median")


def main(argv):
    if len(argv) < 6:
        sys.stderr.write(__doc__)
        return 2
    wgk, pkg, out, case = argv[1:5]
    os.makedirs(out, exist_ok=True)
    lines = open(os.path.join(out, "ab.txt"), "w")  # this run's lines only (the summary's)
    status = 0
    for i, text in enumerate(argv[5:]):
        root = copy_with(pkg, os.path.join(out, "ab-%d" % i), parse_set(text))
        pack = subprocess.run([wgk, "pack", root], capture_output=True, text=True)
        if pack.returncode != 0:
            print("ab %s: wgk pack failed: %s" % (text, pack.stderr.strip()), flush=True)
            status = 1
            continue
        js = os.path.join(out, "ab-%d.json" % i)
        run = subprocess.run([wgk, "bench", root, "--case", case, "--off-irq-cpu", "--json", js],
                             capture_output=True, text=True)
        sys.stdout.write(run.stdout)
        if run.returncode != 0 or not os.path.exists(js):
            print("ab %s: wgk bench exit %d: %s" % (text, run.returncode, run.stderr.strip()[-400:]), flush=True)
            status = 1
            continue
        for cid, variant, med in rows(js):
            us = "%.1f" % (med * 1e-3) if isinstance(med, (int, float)) else "?"
            line = "ab | %s | %s | %s | %s us" % (text or "-", cid, variant, us)
            print(line, flush=True)
            lines.write(line + "\n")
            lines.flush()
        shutil.rmtree(os.path.join(out, "ab-%d" % i), ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
