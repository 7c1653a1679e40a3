#!/usr/bin/env python3
"""PyTorch peers on the GPU machine: RoPE (eager and torch.compile) on the bench.json shapes, and
scaled_dot_product_attention (dense causal prompt and decode, GQA 32/8 heads, head 128) in float32 and float16.

usage: torch_bench.py --bench PATH/bench.json --out FILE.json [--iterations N] [--no-compile] [--case ID]

Times come from CUDA events around each call (GPU time; `kind: gpu`, compared with wgk's GPU time), median
and p10/p90 over the iterations. Without CUDA it runs on the CPU with wall time (`kind: e2e`).
"""
import argparse, json, sys, time

import torch

p = argparse.ArgumentParser()
p.add_argument("--bench", required=True)
p.add_argument("--out", required=True)
p.add_argument("--iterations", type=int, default=0)
p.add_argument("--no-compile", action="store_true")
p.add_argument("--case", default="")
a = p.parse_args()
dev = "cuda" if torch.cuda.is_available() else "cpu"
DT = {"float32": torch.float32, "float16": torch.float16}


def stat(xs):
    s = sorted(xs)
    def q(f):
        x = f * (len(s) - 1); lo = int(x)
        return s[lo] + (s[lo + 1] - s[lo]) * (x - lo) if lo + 1 < len(s) else s[lo]
    return {"median": q(0.5), "p10": q(0.1), "p90": q(0.9), "n": len(s)}


def timed(fn, warmup, iters):
    for _ in range(warmup):
        fn()
    ns = []
    for _ in range(iters):
        if dev == "cuda":
            b, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            b.record(); fn(); e.record(); e.synchronize()
            ns.append(b.elapsed_time(e) * 1e6)
        else:
            t0 = time.perf_counter_ns(); fn(); ns.append(time.perf_counter_ns() - t0)
    return stat(ns)


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
    return {**d, **c, "inputs": {**d.get("inputs", {}), **c.get("inputs", {})}}


def run(peer, cases, fn_of):
    out = {"peer": peer, "kind": "gpu" if dev == "cuda" else "e2e", "torch": torch.__version__, "device": dev, "cases": []}
    for c in cases:
        try:
            fn = fn_of(c)
            r = {"id": c["id"], "status": "ok",
                 "ns": timed(fn, c.get("warmup", 3), a.iterations or c.get("iterations", 20))}
        except Exception as e:  # a peer that cannot run a case says why, the others go on
            r = {"id": c["id"], "status": "failed", "message": str(e).splitlines()[0] if str(e) else repr(e)}
        print(f"{peer} {c['id']}: " + (f"{r['ns']['median'] / 1e3:.1f} us" if r["status"] == "ok" else r["message"]),
              file=sys.stderr)
        out["cases"].append(r)
    return out


def sdpa_cases():
    """Dense causal attention at Phi-3-small's head layout (32 query heads, 8 KV heads, head 128)."""
    for dt in ("float32", "float16"):
        # The Phi-3-small shapes of SparseAttention's bench.json, dense: prompt S=4096, decode after a past of 8191.
        yield {"id": f"sdpa_prompt_{dt}", "dtype": dt, "q": (1, 32, 4096, 128), "kv": (1, 8, 4096, 128), "causal": True}
        yield {"id": f"sdpa_decode_{dt}", "dtype": dt, "q": (1, 32, 1, 128), "kv": (1, 8, 8192, 128), "causal": False}


def sdpa_fn(c):
    dt = DT[c["dtype"]]
    q = torch.randn(c["q"], device=dev, dtype=dt)
    k, v = torch.randn(c["kv"], device=dev, dtype=dt), torch.randn(c["kv"], device=dev, dtype=dt)
    f = torch.nn.functional.scaled_dot_product_attention
    return lambda: f(q, k, v, is_causal=c["causal"], enable_gqa=True)


doc = json.load(open(a.bench))
cases = [merged(doc, c) for c in doc["cases"] if a.case in c["id"]]
results = [run("torch-eager", cases, lambda c: (lambda t: (lambda: rope(*t)))(rope_inputs(c)))]
if not a.no_compile:
    compiled = torch.compile(rope, dynamic=False)
    results.append(run("torch-compile", cases, lambda c: (lambda t: (lambda: compiled(*t)))(rope_inputs(c))))
results.append(run("torch-sdpa", list(sdpa_cases()), sdpa_fn))
json.dump({"peers": results}, open(a.out, "w"), indent=2)
