#!/usr/bin/python3
"""scripts/plot-bench.py (issue 35 item 7) on a committed H200 run (bench/results/archive-2026-12-02, RoPE with its
peers): every value it draws (--values) equals the one read here from the JSON by hand (the ceiling floor as the
larger of bandwidthFloorNs and computeFloorNs; gpu peers beside wgk's GPU time, e2e peers beside its end-to-end
time), and the SVG it writes parses and names every case and series.
usage: plot_bench_test.py SOURCE_DIR"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

src = sys.argv[1]
run = os.path.join(src, "bench", "results", "archive-2026-12-02", "h200-2026-12-02-final-check", "peers",
                   "ai.onnx.RotaryEmbedding")
files = [os.path.join(run, f) for f in ("wgk.json", "torch.json", "ort-cpu.json", "ort-webgpu.json")]
out = os.path.join(os.environ.get("WGK_TEST_TMP") or os.environ.get("TMPDIR", "/tmp"), "rope.svg")
p = subprocess.run(["/usr/bin/python3", os.path.join(src, "scripts", "plot-bench.py"), *files, "-o", out, "--values"],
                   capture_output=True, text=True)
print(p.stdout + p.stderr, end="")
if p.returncode:
    sys.exit(f"FAIL: plot-bench.py exited {p.returncode}")
got = {}
for line in p.stdout.splitlines():
    parts = [x.strip() for x in line.split("|")]
    if len(parts) == 4:
        got[(parts[1], parts[2])] = float(parts[3])

want = {}
wgk = json.load(open(files[0]))
peers = []
for f in files[1:]:
    d = json.load(open(f))
    peers += d["peers"] if "peers" in d else [d]
for c in wgk["cases"]:
    want[(c["id"], "ceiling floor")] = max(c["bandwidthFloorNs"], c["computeFloorNs"]) / 1e3
    want[(c["id"], "wgk GPU")] = c["gpuNs"]["median"] / 1e3
    want[(c["id"], "wgk e2e")] = c["e2eNs"]["median"] / 1e3
    for peer in peers:
        for m in peer["cases"]:
            if m["id"] == c["id"] and m["status"] == "ok":
                want[(c["id"], f"{peer['peer']} ({peer['kind']})")] = m["ns"]["median"] / 1e3
fails = [f"{k}: drawn {got.get(k)}, the JSON says {v:.3f}" for k, v in want.items()
         if k not in got or abs(got[k] - v) > 5e-4 * max(1, v)]
fails += [f"{k}: drawn but not in the JSON" for k in got if k not in want]
if len(want) < 6 * 7:
    fails.append(f"only {len(want)} values expected: the committed run changed?")
texts = " ".join(t.text or "" for t in ET.parse(out).getroot().iter() if t.tag.endswith("text"))
for case, series in want:
    if case not in texts or series not in texts:
        fails.append(f"the SVG does not name {case} / {series}")
for f in fails:
    print("FAIL:", f)
if fails:
    sys.exit(1)
print(f"ok: {len(want)} values drawn as the JSON has them; the SVG names every case and series")
