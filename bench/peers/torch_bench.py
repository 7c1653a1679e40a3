#!/usr/bin/env python3
"""PyTorch peers on the GPU machine, on a package's bench.json cases (the op from the manifest.json beside it):
- ai.onnx.RotaryEmbedding: RoPE eager and torch.compile on the case shapes;
- com.microsoft.SparseAttention: scaled_dot_product_attention (`torch-sdpa`) on each case's shapes under the
  case's id: dense attention with GQA (enable_gqa, else K/V repeat_interleave) over all `total_sequence_length`
  keys (causal for a prompt, the last S query rows for a chunk after a past). It does more work than the sparse
  kernel (every key instead of the local + vertical blocks) and none of the KV-cache append: a reference point;
  and, where torch has flex_attention (`torch-flex`, --no-flex leaves it out), the same attention with the case's
  Phi-3 block layout as a BlockMask (head h on layout h % num_layout, causal inside a block): the block-sparse
  equivalent of the kernel's attention work, still without the rotary and the KV-cache append.

usage: torch_bench.py --bench PATH/bench.json --out FILE.json [--iterations N] [--no-compile] [--no-flex] [--case ID]
       [--budget-ms B] (each case's timed calls within B ms: fewer iterations for a slow case, at least 3)

Times come from CUDA events around each call (GPU time; `kind: gpu`, compared with wgk's GPU time), median
and p10/p90 over the iterations. Without CUDA it runs on the CPU with wall time (`kind: e2e`).
"""
import argparse, json, os, sys, time

import torch

p = argparse.ArgumentParser()
p.add_argument("--bench", required=True)
p.add_argument("--out", required=True)
p.add_argument("--iterations", type=int, default=0)
p.add_argument("--no-compile", action="store_true")
p.add_argument("--no-flex", action="store_true")
p.add_argument("--case", default="")
p.add_argument("--budget-ms", type=float, default=0)
a = p.parse_args()
dev = "cuda" if torch.cuda.is_available() else "cpu"
DT = {"float32": torch.float32, "float16": torch.float16}


def stat(xs):
    s = sorted(xs)
    def q(f):
        x = f * (len(s) - 1); lo = int(x)
        return s[lo] + (s[lo + 1] - s[lo]) * (x - lo) if lo + 1 < len(s) else s[lo]
    return {"median": q(0.5), "p10": q(0.1), "p90": q(0.9), "n": len(s)}


def one(fn):
    if dev == "cuda":
        b, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        b.record(); fn(); e.record(); e.synchronize()
        return b.elapsed_time(e) * 1e6
    t0 = time.perf_counter_ns(); fn(); return time.perf_counter_ns() - t0


def timed(fn, warmup, iters):
    """Warm-ups, then iters timed calls; with --budget-ms the timed calls fit the budget (at least 3), measured
    from a warm-up after the first (which may compile)."""
    fn()
    probe = one(fn) if warmup > 1 else 0
    for _ in range(max(0, warmup - 2)):
        fn()
    if a.budget_ms and probe:
        iters = max(3, min(iters, int(a.budget_ms * 1e6 / max(probe, 1))))
    ns = []
    for _ in range(iters):
        if dev == "cuda":
            b, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            b.record(); fn(); e.record(); e.synchronize()
            ns.append(b.elapsed_time(e) * 1e6)
        else:
            t0 = time.perf_counter_ns(); fn(); ns.append(time.perf_counter_ns() - t0)
    return stat(ns)


FLEX = {}  # the compiled flex_attention (one, shared) and each shape's call: compiled once per shape and dtype


def flex_fn(c):
    """A SparseAttention case as flex_attention with its block layout as a BlockMask (torch >= 2.5). One
    torch.compile of flex_attention serves every case; a case with the shapes, dtype, layout and scale of an earlier
    one (the _tiled cases differ only in a wgk tunable) reuses its mask, inputs and compiled graph."""
    from torch.nn.attention.flex_attention import flex_attention, create_block_mask
    i, at = c["inputs"], c.get("attrs", {})
    dt = DT[i["queryT"]["dtype"]]
    n, kn, bs = at["num_heads"], at["kv_num_heads"], at["sparse_block_size"]
    b, s, width = i["queryT"]["shape"]
    h = i["pastKeyT"]["shape"][3] if "pastKeyT" in i else width // (n + 2 * kn)
    t = int(i["totalSequenceLengthT"]["generator"]["value"])
    g = i["blockRowIndicesT"]["generator"]
    nl, local, vs = g["num_layout"], g["local_blocks"], g["vert_stride"]
    step = max(1, vs // nl)
    past = t - s
    scale = at.get("scale") or None
    key = (str(dt), b, n, kn, s, t, h, bs, nl, local, vs, scale)
    if key in FLEX:
        return FLEX[key]

    def mask(bi, hi, qi, ki):  # phi3Layout of gen.mjs: query block >= key block, local or on the vertical stride
        p = qi + past
        qb, kb, l = p // bs, ki // bs, hi % nl
        return (p >= ki) & ((qb - kb < local) | ((kb + l * step + 1) % vs == 0))

    bm = create_block_mask(mask, None, n, s, t, device=dev)
    q = torch.rand((b, n, s, h), device=dev, dtype=dt) * 2 - 1
    k, v = (torch.rand((b, kn, t, h), device=dev, dtype=dt) * 2 - 1 for _ in range(2))
    if "compiled" not in FLEX:
        FLEX["compiled"] = torch.compile(flex_attention, dynamic=False)
    f = FLEX["compiled"]
    FLEX[key] = lambda: f(q, k, v, block_mask=bm, scale=scale, enable_gqa=True)
    return FLEX[key]


def rope(x, cos, sin, pos):  # NeoX halves; x (B, N, S, H), caches (max_pos, H/2) gathered at pos (B, S)
    half = x.shape[-1] // 2
    c, s = cos[pos].unsqueeze(1), sin[pos].unsqueeze(1)
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((c * x1 - s * x2, s * x1 + c * x2), dim=-1)


def rope_inputs(c):
    i = c["inputs"]
    dt = DT[i["x"]["dtype"]]
    x = torch.rand(i["x"]["shape"], device=dev, dtype=dt) * 2 - 1
    rows, half = i["cos"]["shape"]
    ang = torch.arange(rows, device=dev)[:, None] * (10000.0 ** (-torch.arange(half, device=dev) / half))[None, :]
    b, s = i["positionIds"]["shape"]
    g = i["positionIds"]["generator"]
    pos = (torch.full((b, s), g["value"], device=dev) if g["kind"] == "const"
           else torch.arange(s, device=dev).repeat(b, 1) + int(g.get("offset", 0)))
    return x, ang.cos().to(dt), ang.sin().to(dt), pos


def merged(doc, c):
    d = doc.get("defaults", {})
    return {**d, **c, "inputs": {**d.get("inputs", {}), **c.get("inputs", {})},
            "attrs": {**d.get("attrs", {}), **c.get("attrs", {})}}


def run(peer, cases, fn_of):
    out = {"peer": peer, "kind": "gpu" if dev == "cuda" else "e2e", "torch": torch.__version__, "device": dev, "cases": []}
    t0, seen = time.perf_counter(), {}
    for c in cases:
        key = json.dumps([c["inputs"], c.get("attrs", {})], sort_keys=True)  # wgk's tunables are not the peer's
        prev = seen.get(key)
        try:
            fn = None if prev else fn_of(c)
            r = ({**prev, "id": c["id"], "sameAs": prev["id"]} if prev else
                 {"id": c["id"], "status": "ok", "ns": timed(fn, c.get("warmup", 3), a.iterations or c.get("iterations", 20))})
        except Exception as e:  # a peer that cannot run a case says why, the others go on
            r = {"id": c["id"], "status": "failed", "message": str(e).splitlines()[0] if str(e) else repr(e)}
        seen.setdefault(key, r)
        print(f"{peer} {c['id']}: " + (f"{r['ns']['median'] / 1e3:.1f} us" if r["status"] == "ok" else r["message"])
              + (f" (the figures of {prev['id']})" if prev else ""), file=sys.stderr)
        out["cases"].append(r)
    print(f"{peer}: {time.perf_counter() - t0:.1f} s for {len(cases)} cases", file=sys.stderr)
    return out


def sdpa_fn(c):
    """A SparseAttention case as dense SDPA: q (B, N, S, H), k/v (B, KN, T, H) with T = total_sequence_length."""
    i, at = c["inputs"], c.get("attrs", {})
    dt = DT[i["queryT"]["dtype"]]
    n, kn = at["num_heads"], at["kv_num_heads"]
    b, s, width = i["queryT"]["shape"]
    h = i["pastKeyT"]["shape"][3] if "pastKeyT" in i else width // (n + 2 * kn)
    g = i["totalSequenceLengthT"]["generator"]
    if g.get("kind") != "const":
        raise ValueError("total_sequence_length needs a const generator")
    t = int(g["value"])
    q = torch.rand((b, n, s, h), device=dev, dtype=dt) * 2 - 1
    k, v = (torch.rand((b, kn, t, h), device=dev, dtype=dt) * 2 - 1 for _ in range(2))
    f = torch.nn.functional.scaled_dot_product_attention
    scale = at.get("scale") or None
    if s == t:
        kw = {"is_causal": True}
    elif s == 1:
        kw = {}
    else:  # a chunk after a past: query row r sees keys j <= t - s + r (bottom-right causal)
        kw = {"attn_mask": torch.ones((s, t), device=dev, dtype=torch.bool).tril(t - s)}
    try:
        f(q, k, v, scale=scale, enable_gqa=True, **kw)
        return lambda: f(q, k, v, scale=scale, enable_gqa=True, **kw)
    except TypeError:  # torch < 2.5: no enable_gqa; the repeat is part of the timed work
        return lambda: f(q, k.repeat_interleave(n // kn, 1), v.repeat_interleave(n // kn, 1), scale=scale, **kw)


doc = json.load(open(a.bench))
manifest = os.path.join(os.path.dirname(os.path.abspath(a.bench)), "manifest.json")
m = json.load(open(manifest)) if os.path.exists(manifest) else {"name": "RotaryEmbedding"}
op = f"{m.get('domain') or 'ai.onnx'}.{m['name']}"
cases = [merged(doc, c) for c in doc["cases"] if a.case in c["id"]]
if op == "ai.onnx.RotaryEmbedding":
    results = [run("torch-eager", cases, lambda c: (lambda t: (lambda: rope(*t)))(rope_inputs(c)))]
    if not a.no_compile:
        compiled = torch.compile(rope, dynamic=False)
        results.append(run("torch-compile", cases, lambda c: (lambda t: (lambda: compiled(*t)))(rope_inputs(c))))
elif op == "com.microsoft.SparseAttention":
    results = [run("torch-sdpa", cases, sdpa_fn)]
    if not a.no_flex and dev == "cuda":
        results.append(run("torch-flex", cases, flex_fn))
else:
    sys.exit(f"torch_bench.py: no PyTorch peer for {op}")
json.dump({"peers": results}, open(a.out, "w"), indent=2)
