#!/usr/bin/env python3
"""wgk run's refusals as one block: the first line says what is wrong, the variants' reasons under it, each
distinct reason once (they were one line per variant, the same reason repeated 4 to 12 times); every missing
required attribute named in one message; a misspelled --attr answered with the nearest declared name.
usage: error_block_test.py WGK SOURCE_DIR"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

wgk, src = sys.argv[1], sys.argv[2]
rope = os.path.join(src, "kernels", "ai.onnx.RotaryEmbedding")
sparse = os.path.join(src, "kernels", "com.microsoft.SparseAttention")
failures = 0


def run(args):
    p = subprocess.run([wgk, "run"] + args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr


def expect(name, args, want_rc, check):
    global failures
    rc, err = run(args)
    ok = rc == want_rc and check(err)
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        print(f"  exit {rc}, stderr:\n" + err)
        failures += 1


with tempfile.TemporaryDirectory() as d:
    rng = np.random.default_rng(7)

    def npy(name, a):
        path = os.path.join(d, name + ".npy")
        np.save(path, a)
        return path

    x2 = npy("x2", rng.standard_normal((2, 3)).astype(np.float32))
    x4 = npy("x4", rng.standard_normal((2, 4, 3, 8)).astype(np.float32))
    cache = npy("cache", rng.standard_normal((50, 4)).astype(np.float32))
    pos = npy("pos", rng.integers(0, 50, (2, 3)).astype(np.int64))

    def rank2_block(err):
        lines = err.rstrip("\n").split("\n")
        return (len(lines) == 4 and lines[0].endswith("x (X): rank must be 3 or 4 (got 2)")
                and lines[1] == "no variant of ai.onnx.RotaryEmbedding accepts the call:"
                and lines[2] == "  rank3_cache2_pos, rank3_cache3, rank3_cache2_pos_f16packed, rank3_cache3_f16packed: ranks.x == 3 is false (ranks.x = 2, 3)"
                and lines[3] == "  rank4_cache2_pos, rank4_cache3, rank4_cache2_pos_f16packed, rank4_cache3_f16packed: ranks.x == 4 is false (ranks.x = 2, 4)")

    expect("rank-2 x: one block, each reason once", [rope, "--in", "x=" + x2, "--in", "cos=" + x2,
                                                     "--in", "sin=" + x2], 1, rank2_block)
    expect("misspelled --attr: did you mean", [rope, "--in", "x=" + x4, "--in", "cos=" + cache, "--in", "sin=" + cache,
                                               "--in", "positionIds=" + pos, "--attr", "interleavd=1"], 1,
           lambda e: "has no attribute 'interleavd'; did you mean 'interleaved'?" in e and e.count("\n") == 1)

    f = np.float32
    ins = {"queryT": rng.standard_normal((1, 4, 64)).astype(f), "keyT": rng.standard_normal((1, 4, 32)).astype(f),
           "valueT": rng.standard_normal((1, 4, 32)).astype(f), "pastKeyT": np.zeros((1, 2, 16, 16), f),
           "pastValueT": np.zeros((1, 2, 16, 16), f), "blockRowIndicesT": np.array([[0, 1]], np.int32),
           "blockColIndicesT": np.array([[0]], np.int32), "totalSequenceLengthT": np.array([4], np.int32),
           "keyTotalSequenceLengthsT": np.array([4], np.int32)}
    sargs = [sparse]
    for k, v in ins.items():
        sargs += ["--in", k + "=" + npy(k, v)]
    expect("every missing required attribute named", sargs, 1,
           lambda e: "3 required attributes are missing: kv_num_heads, num_heads, sparse_block_size" in e)
    # every variant the shipped manifest declares, counted here, so a new variant needs no edit of this test
    with open(os.path.join(sparse, "build", "webgpu", "manifest.json")) as f:
        variants = len(json.load(f)["variants"])
    expect("every variant, one reason: one line", sargs + ["--attr", "num_heads=4", "--attr", "kv_num_heads=3",
                                                         "--attr", "sparse_block_size=16"], 1,
           lambda e: e.rstrip("\n").split("\n")[1:] == [
               f"no variant of com.microsoft.SparseAttention accepts the call (all {variants} variants): "
               "numHeads % kvHeads == 0 is false (numHeads % kvHeads = 1, 0)"]
           and e.split("\n")[0].endswith("kv_num_heads: 3 does not divide num_heads 4"))

print(f"{failures} failed")
sys.exit(1 if failures else 0)
