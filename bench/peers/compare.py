#!/usr/bin/env python3
"""Side-by-side tables: wgk's bench JSON against peer JSON files (ort_bench.mjs, torch_bench.py).

usage: compare.py WGK_BENCH.json PEER.json... [--markdown]   (peers: ort_bench.mjs, torch_bench.py, jsloader_bench.mjs)
       compare.py OUT_DIR [--markdown]    (run.sh's output: one table per OUT_DIR/<op id>/ holding wgk.json and
                                           the peers' ort-*.json / torch.json)

A peer's `kind` says what it measured: `gpu` (device time: CUDA events) is compared with wgk's GPU time,
`e2e` (host tensors in and out) with wgk's end-to-end wall time. ratio = wgk time / peer time (below 1: wgk is
faster). wgk's C reference (bench --reference) appears as the peer `c-reference` (kind e2e). A peer case that
did not time (failed, cpu-fallback) shows its status in the table and its message below it; a case wgk did not
time shows its status and the peers' figures, with no ratio.
"""
import json, os, sys

us = lambda ns: f"{ns / 1e3:.1f}"

# What each peer computes, printed under its table: the peers are not all the same work.
COMPUTES = {
    "ort-cpu": "ONNX Runtime 1.30 CPU provider: the same op, attributes and inputs, host tensors in and out",
    "ort-webgpu": "ONNX Runtime 1.30 WebGPU provider (Dawn): the same op and inputs, host tensors in and out",
    "torch-eager": "PyTorch eager RoPE on the GPU (gather, multiply, cat): the same shapes, device tensors",
    "torch-compile": "the same RoPE through torch.compile (one fused Triton kernel), device tensors",
    "torch-sdpa": "dense scaled_dot_product_attention over every key (more work than the block layout), GQA, "
                  "no rotary, no KV-cache append",
    "torch-flex": "flex_attention with the case's block layout as a BlockMask (the kernel's attention work), GQA, "
                  "no rotary, no KV-cache append",
    "public-loader": "@huggingface/kernels 0.0.1-preview.3 under node + dawn.node: the same package, host arrays in "
                     "and out",
    "c-reference": "wgk's C reference (double precision, host)",
}


def table(wgk_path, peer_paths, md):
    wgk = json.load(open(wgk_path))
    peers = []
    for path in peer_paths:
        doc = json.load(open(path))
        peers.extend(doc["peers"] if "peers" in doc else [doc])
    ref = {"peer": "c-reference", "kind": "e2e", "cases": [{"id": c["id"], "status": "ok", "ns": c["referenceNs"]}
                                                           for c in wgk["cases"] if "referenceNs" in c]}
    if ref["cases"]:
        peers.append(ref)
    cell = (lambda t, r: f"{t} ({r})") if md else (lambda t, r: f"{t} | {r}")  # "|" would split a markdown cell
    head = ["case", "wgk gpu us", "wgk e2e us"] + [cell(f"{p['peer']} {p['kind']} us", "ratio") for p in peers]
    rows, notes = [], []
    for c in wgk["cases"]:
        ok = c.get("status") == "ok"  # a case wgk did not time keeps its peers' figures, without a ratio
        row = [c["id"], us(c["gpuNs"]["median"]), us(c["e2eNs"]["median"])] if ok else [c["id"], c.get("status", "?"), ""]
        for p in peers:
            m = next((x for x in p["cases"] if x["id"] == c["id"]), None)
            if not m:
                row.append("-")
                continue
            if m.get("sameAs"):
                notes.append(f"{p['peer']} {c['id']}: the figures of {m['sameAs']} (the same inputs and attributes; "
                             "wgk's tunables are not the peer's)")
            if m["status"] != "ok":
                row.append(m["status"])
                if not m.get("sameAs"):
                    notes.append(f"{p['peer']} {c['id']}: {m['status']}: {m.get('message', '')}")
            else:
                mine = c["gpuNs" if p["kind"] == "gpu" else "e2eNs"]["median"] if ok else None
                row.append(cell(us(m['ns']['median']), f"{mine / m['ns']['median']:.2f}" if ok else "-"))
                if m.get("budgetLimited"):
                    notes.append(f"{p['peer']} {c['id']}: {m['iterations']} timed calls (the per-peer time budget)")
        rows.append(row)

    dev = wgk["device"]
    print(f"{wgk.get('package', '')}: wgk on {dev['device']} ({dev['description']}), {wgk['date']}; ratio = wgk / peer")
    if md:
        print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
        for r in [head] + rows:
            print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)))
    for p in peers:
        print(f"  {p['peer']} ({p['kind']}): {COMPUTES.get(p['peer'], 'see its JSON')}")
    for n in notes:
        print(f"  note: {n}")
    only = [(p, x) for p in peers for x in p["cases"] if not any(c["id"] == x["id"] for c in wgk["cases"])]
    if only:
        print("\npeer cases without a wgk package yet:")
        for p, x in only:
            print(f"  {p['peer']} {x['id']}: " + (f"{us(x['ns']['median'])} us" if x["status"] == "ok" else x.get("message", x["status"])))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    md = "--markdown" in sys.argv
    if not args:
        sys.exit(__doc__.strip())
    if len(args) == 1 and os.path.isdir(args[0]):
        first = True
        for d in sorted(os.listdir(args[0])):
            sub = os.path.join(args[0], d)
            if not os.path.isfile(os.path.join(sub, "wgk.json")):
                continue
            peers = [os.path.join(sub, f) for f in ("ort-cpu.json", "ort-webgpu.json", "torch.json", "jsloader.json")
                     if os.path.isfile(os.path.join(sub, f))]
            if not first:
                print()
            first = False
            table(os.path.join(sub, "wgk.json"), peers, md)
        return
    table(args[0], args[1:], md)


main()
