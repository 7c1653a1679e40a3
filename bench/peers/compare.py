#!/usr/bin/env python3
"""Side-by-side table: wgk's bench JSON against peer JSON files (ort_bench.mjs, torch_bench.py).

usage: compare.py WGK_BENCH.json PEER.json... [--markdown]

A peer's `kind` says what it measured: `gpu` (device time: CUDA events) is compared with wgk's GPU time,
`e2e` (host tensors in and out) with wgk's end-to-end wall time. ratio = wgk time / peer time (below 1: wgk is
faster). wgk's C reference (bench --reference) appears as the peer `c-reference` (kind e2e).
"""
import json, sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
md = "--markdown" in sys.argv
wgk = json.load(open(args[0]))
peers = []
for path in args[1:]:
    doc = json.load(open(path))
    peers.extend(doc["peers"] if "peers" in doc else [doc])
ref = {"peer": "c-reference", "kind": "e2e", "cases": [{"id": c["id"], "status": "ok", "ns": c["referenceNs"]}
                                                       for c in wgk["cases"] if "referenceNs" in c]}
if ref["cases"]:
    peers.append(ref)

us = lambda ns: f"{ns / 1e3:.1f}"
head = ["case", "wgk gpu us", "wgk e2e us"] + [f"{p['peer']} ({p['kind']}) us | ratio" for p in peers]
rows = []
for c in wgk["cases"]:
    if c.get("status") != "ok":
        rows.append([c["id"], c.get("status", "?"), ""] + [""] * len(peers))
        continue
    row = [c["id"], us(c["gpuNs"]["median"]), us(c["e2eNs"]["median"])]
    for p in peers:
        m = next((x for x in p["cases"] if x["id"] == c["id"]), None)
        if not m:
            row.append("-")
        elif m["status"] != "ok":
            row.append(m["status"])
        else:
            mine = c["gpuNs" if p["kind"] == "gpu" else "e2eNs"]["median"]
            row.append(f"{us(m['ns']['median'])} | {mine / m['ns']['median']:.2f}")
    rows.append(row)

dev = wgk["device"]
print(f"wgk on {dev['device']} ({dev['description']}), {wgk['date']}; ratio = wgk / peer")
if md:
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")
else:
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    for r in [head] + rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)))
only = [(p, x) for p in peers for x in p["cases"] if not any(c["id"] == x["id"] for c in wgk["cases"])]
if only:
    print("\npeer cases without a wgk package yet:")
    for p, x in only:
        print(f"  {p['peer']} {x['id']}: " + (f"{us(x['ns']['median'])} us" if x["status"] == "ok" else x.get("message", x["status"])))
