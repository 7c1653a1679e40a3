#!/usr/bin/env python3
"""Two wgk builds' first calls side by side: fresh `wgk run -v` processes of RotaryEmbedding decode float32 (the case
of bench/firstcall.sh), A B B A A B ... so a drift of the machine's speed falls on both, each with its own warm
pipeline cache (or an emptied one with --cold). Per build, the median (min-max) of each figure and the pair-by-pair
ratio A/B. The process's CPU and peak memory are the operating system's accounting of the finished child (wait4);
wall from outside; the phases from `-v`'s lines. On a shared machine read the CPU: the wall is mostly waiting for a
core.

  cpu          the whole process's CPU (user + system, every thread, the kernel's exit included)
  beyond_cpu   cpu less the context's thread (instance, adapter, device): issue 39's figure in CPU
  beyond_wall  wall less `-v`'s instance, adapter and device phases: issue 39's figure
  main_beyond  the same from `main` (`-v`'s own figure); outside = wall less main (exec, loading, exit)
  c_PHASE      `-v`'s cpu line, per phase

Usage: bench/firstcall_ab.py WGK_A WGK_B [PAIRS] [--cold]   (PAIRS default 15, after 2 warm-ups each)
"""
import os
import random
import re
import shutil
import statistics as st
import struct
import subprocess
import sys
import tempfile
import time


def npy(path, descr, shape, values):
    """A version 1.0 .npy file, little-endian, C order."""
    head = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, "".join(f"{d}, " for d in shape))
    head += " " * (63 - (10 + len(head)) % 64) + "\n"
    fmt = {"<f4": "f", "<i8": "q"}[descr]
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        f.write(struct.pack(f"<{len(values)}{fmt}", *values))


def inputs(tmp):
    r = random.Random(0)
    npy(f"{tmp}/x.npy", "<f4", (1, 32, 1, 128), [r.gauss(0, 1) for _ in range(32 * 128)])
    npy(f"{tmp}/c.npy", "<f4", (2048, 64), [r.gauss(0, 1) for _ in range(2048 * 64)])
    npy(f"{tmp}/p.npy", "<i8", (1, 1), [7])
    return ["--in", f"X={tmp}/x.npy", "--in", f"cos_cache={tmp}/c.npy", "--in", f"sin_cache={tmp}/c.npy",
            "--in", f"position_ids={tmp}/p.npy", "-v"]


def fields(line_re, out):
    m = re.search(line_re, out, re.M)
    if not m:
        sys.exit("no phases in wgk run -v's output:\n" + out)
    return {k: float(v) for k, v in re.findall(r"(\w+) (-?[\d.]+)", m.group(1))}


def one(wgk, args, tmp, tag, cold):
    cache = f"{tmp}/cache-{tag}"
    if cold:
        shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, HOME=tmp, XDG_CACHE_HOME=cache)
    env.pop("MESA_SHADER_CACHE_DIR", None)
    t0 = time.monotonic()
    p = subprocess.Popen([wgk, "run", "ai.onnx.RotaryEmbedding"] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=env)
    out = p.stdout.read().decode()
    _, status, ru = os.wait4(p.pid, 0)
    wall = (time.monotonic() - t0) * 1e3
    if status != 0:
        sys.exit(f"{wgk} failed:\n{out}")
    ph = fields(r"^phases ms:(.*);", out)
    cpu_ph = fields(r"^cpu ms:(.*);", out)
    main = float(re.search(r"; main ([\d.]+)", out).group(1))
    device = ph["instance"] + ph["adapter"] + ph["device"]
    cpu = (ru.ru_utime + ru.ru_stime) * 1e3
    row = {"cpu": cpu, "beyond_cpu": cpu - cpu_ph["context"], "context_cpu": cpu_ph["context"], "wall": wall,
           "beyond_wall": wall - device, "main_beyond": main - device, "outside": wall - main,
           "peak_mib": ru.ru_maxrss / 1024}
    row.update({"c_" + k: v for k, v in cpu_ph.items() if k != "context"})
    return row


def main():
    argv = [a for a in sys.argv[1:] if a != "--cold"]
    if len(argv) < 2:
        sys.exit(__doc__)
    a, b = argv[:2]
    pairs = int(argv[2]) if len(argv) > 2 else 15
    cold = "--cold" in sys.argv
    tmp = tempfile.mkdtemp()
    try:
        args = inputs(tmp)
        builds = (("a", a), ("b", b))
        for tag, wgk in builds:
            for _ in range(2):
                one(wgk, args, tmp, tag, cold)
        rows = {"a": [], "b": []}
        for i in range(pairs):
            for tag, wgk in builds if i % 2 == 0 else builds[::-1]:
                rows[tag].append(one(wgk, args, tmp, tag, cold))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{pairs} pairs, {'cold' if cold else 'warm'}: A {a}, B {b}; medians (min-max), ms (peak MiB)")
    print(f"{'':<12} {'A':>22} {'B':>22}   A/B pair by pair")
    for k in rows["a"][0]:
        va, vb = [r[k] for r in rows["a"]], [r[k] for r in rows["b"]]
        ratio = [x / y for x, y in zip(va, vb) if y > 0] or [float("nan")]
        print(f"{k:<12} {st.median(va):8.1f} ({min(va):.1f}-{max(va):.1f}) {st.median(vb):8.1f} ({min(vb):.1f}-"
              f"{max(vb):.1f})   {st.median(ratio):.3f} ({min(ratio):.2f}-{max(ratio):.2f})")


if __name__ == "__main__":
    main()
