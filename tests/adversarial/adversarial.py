#!/usr/bin/python3
"""An adversarial run of wgk: several hundred bad inputs, each judged on four things.

  crash    a signal, or an ASan / UBSan / LSan report in the output
  hang     no answer within the time limit
  touched  an output folder or file written although the command failed (or a bad input accepted with exit 0)
  unclear  refused, but the message does not name what the case broke (the `expect` words, case-insensitive)

Everything else is `clear`. Run it against any build (an ASan build finds the most):

    python3 tests/adversarial/adversarial.py --wgk build-asan/wgk [--only PATTERN] [--json FILE] [--markdown FILE]

It needs numpy. Every case runs in its own temporary folder with its own HOME and tuning cache.
Exit status 0 when no case crashed, hung or touched data and at least --min-clear percent (default 97) are clear.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROPE = os.path.join(ROOT, "kernels", "ai.onnx.RotaryEmbedding")
SPARSE = os.path.join(ROOT, "kernels", "com.microsoft.SparseAttention")
CONFORMANCE = os.path.join(ROOT, "tests", "conformance", "onnx-node-tests")
SANITIZER = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer")


class Case:
    def __init__(self, cat, name, argv, expect, setup=None, out=None, may_pass=False, timeout=60):
        self.cat, self.name, self.argv, self.expect = cat, name, argv, [e.lower() for e in expect]
        self.setup, self.out, self.may_pass, self.timeout = setup, out, may_pass, timeout


CASES = []


def case(*a, **k):
    CASES.append(Case(*a, **k))


# ---- inputs written into a case's folder ------------------------------------------------------

def npy_bytes(arr):
    import io
    b = io.BytesIO()
    np.save(b, arr)
    return b.getvalue()


def npy_raw(header_dict_text, payload=b"", magic=b"\x93NUMPY", version=b"\x01\x00", pad=True):
    h = header_dict_text.encode("latin1")
    if pad:
        total = len(magic) + 2 + 2 + len(h) + 1
        h = h + b" " * ((64 - total % 64) % 64) + b"\n"
    return magic + version + len(h).to_bytes(2, "little") + h + payload


def rope_inputs(d, x_shape=(2, 4, 3, 8), pos=None, cache_rows=50, pos_dtype=np.int64):
    rng = np.random.default_rng()
    rot_half = x_shape[-1] // 2 if len(x_shape) == 4 else 4
    np.save(os.path.join(d, "x.npy"), rng.standard_normal(x_shape).astype(np.float32))
    np.save(os.path.join(d, "cos.npy"), rng.standard_normal((cache_rows, rot_half)).astype(np.float32))
    np.save(os.path.join(d, "sin.npy"), rng.standard_normal((cache_rows, rot_half)).astype(np.float32))
    if pos is None:
        pos = rng.integers(0, cache_rows, size=(x_shape[0], x_shape[-2] if len(x_shape) == 4 else x_shape[1]))
    np.save(os.path.join(d, "pos.npy"), np.asarray(pos).astype(pos_dtype))


ROPE_INS = ["--in", "x=x.npy", "--in", "cos=cos.npy", "--in", "sin=sin.npy", "--in", "positionIds=pos.npy"]


def copy_pkg(src, d, name="pkg"):
    dst = os.path.join(d, name)
    shutil.copytree(src, dst, symlinks=True)
    return dst


def mutate_json(path, fn):
    with open(path) as f:
        doc = json.load(f)
    doc = fn(doc) or doc
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)


def unverified(pkg):
    """Drop metadata.json: the package loads unverified, so its mutations reach the manifest reader."""
    os.remove(os.path.join(pkg, "build", "webgpu", "metadata.json"))


def rope_pkg_with(fn, verified=False):
    def setup(d):
        p = copy_pkg(ROPE, d)
        w = os.path.join(p, "build", "webgpu")
        fn(w)
        if not verified:
            unverified(p)
    return setup


def manifest_mut(fn):
    return rope_pkg_with(lambda w: mutate_json(os.path.join(w, "manifest.json"), fn))


def write(path, data, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(data)


# ---- the cases ----------------------------------------------------------------------------------

EXPLAIN_SHAPES = ["--shape", "X=2x4x3x8", "--shape", "cos_cache=50x4", "--shape", "sin_cache=50x4",
                  "--shape", "position_ids=2x3"]


def cli_cases():
    pkg_cmds = ["run", "test", "explain", "render", "info", "bench", "tune"]
    all_cmds = pkg_cmds + ["eval", "template", "onnx-test", "devices", "smoke"]
    for c in all_cmds:
        case("cli", f"{c}-unknown-option", [c, "--definitely-not-an-option"], ["--definitely-not-an-option"])
        case("cli", f"{c}-adapter-no-value", [c, "--adapter"], ["--adapter"])
    for c in pkg_cmds:
        case("cli", f"{c}-missing-package", [c, "/nonexistent/pkg/dir"], ["/nonexistent/pkg/dir"])
        case("cli", f"{c}-unknown-repo", [c, "webgpu-kernels/ai.onnx.NoSuchOp", "--version", "1"], ["ai.onnx.NoSuchOp"])
        for v in ["0", "-3", "abc", "1e3", "99999999999999999999"]:
            case("cli", f"{c}-version-{v}", [c, ROPE, "--version", v], ["--version", v])
        case("cli", f"{c}-revision-short", [c, ROPE, "--revision", "abc123"], ["--revision", "abc123"])
        case("cli", f"{c}-two-packages", [c, ROPE, SPARSE], [SPARSE])
    for c in ["run", "test", "bench", "tune", "smoke", "onnx-test"]:
        extra = [ROPE] if c in pkg_cmds else ([CONFORMANCE] if c == "onnx-test" else [])
        case("cli", f"{c}-adapter-99", [c] + extra + ["--adapter", "99"], ["99"])
        case("cli", f"{c}-adapter-name", [c] + extra + ["--adapter", "no-such-gpu-xyz"], ["no-such-gpu-xyz"])
    case("cli", "no-command", ["frobnicate"], ["frobnicate"])
    case("cli", "calls-zero", ["run", ROPE, "--calls", "0"] + ROPE_INS, ["--calls"], setup=rope_inputs)
    case("cli", "calls-text", ["run", ROPE, "--calls", "many"] + ROPE_INS, ["--calls"], setup=rope_inputs)
    for c in ["bench", "tune", "test"]:
        case("cli", f"{c}-case-unknown", [c, ROPE, "--case", "no_such_case_zzz"], ["no_such_case_zzz"])
    case("cli", "bench-json-missing-dir", ["bench", ROPE, "--json", "/nonexistent/dir/x.json"], ["/nonexistent/dir"])
    case("cli", "bench-iterations-neg", ["bench", ROPE, "--iterations", "-1"], ["--iterations"])
    case("cli", "smoke-n-zero", ["smoke", "--n", "0"], ["--n"])
    case("cli", "smoke-n-huge", ["smoke", "--n", "99999999999999"], ["--n"])
    case("cli", "smoke-seed-text", ["smoke", "--seed", "x"], ["--seed"])
    case("cli", "onnx-rtol-text", ["onnx-test", CONFORMANCE, "--rtol", "abc"], ["--rtol"])
    case("cli", "onnx-atol-neg", ["onnx-test", CONFORMANCE, "--atol", "-1"], ["--atol"])


def shape_cases():
    bad = {
        "empty": "X=", "trailing-x": "X=2x", "leading-x": "X=x4", "negative": "X=2x-1x3x8",
        "rank9": "X=" + "x".join(["1"] * 9), "past-2p53": "X=9007199254740993x1x2x2",
        "past-int64": "X=99999999999999999999x1x2x2", "float": "X=2.5x4x3x8", "letters": "X=axbxcxd",
        "no-eq": "X", "spaces": "X=2 x 4", "overflow-product": "X=4294967296x4294967296x3x8",
    }
    for n, s in bad.items():
        word = s.split("=", 1)[1] if "=" in s and s.split("=", 1)[1] else "X"
        case("shape", f"explain-{n}", ["explain", ROPE, "--shape", s] + EXPLAIN_SHAPES[2:], ["X", word] if n not in ("no-eq", "empty") else ["X"])
    case("shape", "unknown-port", ["explain", ROPE, "--shape", "Q=2x2"] + EXPLAIN_SHAPES, ["Q"])
    case("shape", "twice", ["explain", ROPE] + EXPLAIN_SHAPES + ["--shape", "X=1x4x3x8"], ["X"])
    case("shape", "forty-shapes", ["explain", ROPE] + ["--shape", "X=2x4x3x8"] * 40, ["--shape"])
    case("shape", "rank2-x", ["explain", ROPE, "--shape", "X=2x8"] + EXPLAIN_SHAPES[2:], ["X", "rank"])
    case("shape", "odd-head", ["explain", ROPE, "--shape", "X=2x4x3x7", "--shape", "cos_cache=50x3",
                               "--shape", "sin_cache=50x3", "--shape", "position_ids=2x3"], ["X"])
    case("shape", "cache-mismatch", ["explain", ROPE, "--shape", "X=2x4x3x8", "--shape", "cos_cache=50x4",
                                     "--shape", "sin_cache=49x4", "--shape", "position_ids=2x3"], ["sin"])
    case("shape", "pos-mismatch", ["explain", ROPE, "--shape", "X=2x4x3x8", "--shape", "cos_cache=50x4",
                                   "--shape", "sin_cache=50x4", "--shape", "position_ids=3x3"], ["position"])
    case("shape", "render-missing-x", ["render", ROPE] + EXPLAIN_SHAPES[2:], ["X"])
    case("shape", "render-pass-unknown", ["render", ROPE, "--pass", "nopass"] + EXPLAIN_SHAPES, ["nopass"])


def attr_cases():
    rope_bad = {"interleaved=2": "interleaved", "interleaved=abc": "interleaved", "interleaved=1.5": "interleaved",
                "interleaved=[1]": "interleaved", "interleaved=9007199254740993": "interleaved",
                "nope_attr=1": "nope_attr", "rotary_embedding_dim=-2": "rotary_embedding_dim",
                "rotary_embedding_dim=9": "rotary_embedding_dim", "rotary_embedding_dim=3": "rotary_embedding_dim",
                "interleaved": "interleaved", "=1": "=1", "interleaved=": "interleaved",
                "interleaved=true": "interleaved", "interleaved={}": "interleaved"}
    for a, word in rope_bad.items():
        case("attr", f"explain-{a}", ["explain", ROPE, "--attr", a] + EXPLAIN_SHAPES, [word])
        case("attr", f"run-{a}", ["run", ROPE, "--attr", a, "--out", "out"] + ROPE_INS, [word], setup=rope_inputs, out="out")
    rank3 = ["--shape", "X=2x3x16", "--shape", "cos_cache=50x4", "--shape", "sin_cache=50x4", "--shape", "position_ids=2x3"]
    case("attr", "num_heads-missing-rank3", ["explain", ROPE] + rank3, ["num_heads"])
    case("attr", "num_heads-zero", ["explain", ROPE, "--attr", "num_heads=0"] + rank3, ["num_heads"])
    case("attr", "num_heads-3", ["explain", ROPE, "--attr", "num_heads=3"] + rank3, ["num_heads"])
    case("attr", "num_heads-neg", ["explain", ROPE, "--attr", "num_heads=-2"] + rank3, ["num_heads"])
    sp = ["--shape", "query=1x32x32", "--shape", "key=1x32x16", "--shape", "value=1x32x16",
          "--shape", "past_key=1x1x32x16", "--shape", "past_value=1x1x32x16", "--shape", "block_row_indices=1x3",
          "--shape", "block_col_indices=1x3", "--shape", "total_sequence_length=1",
          "--shape", "key_total_sequence_lengths=1", "--attr", "num_heads=2", "--attr", "kv_num_heads=1",
          "--attr", "sparse_block_size=16"]
    for v in ["abc", "1e400", "[1,2]", "NaN", "nan", "inf", "-inf", "1e39", "-1e39", "\"0.5\""]:
        case("attr", f"sparse-scale-{v}", ["explain", SPARSE, "--attr", f"scale={v}"] + sp, ["scale"])
    for a, w in {"sparse_block_size=7": "sparse_block_size", "sparse_block_size=0": "sparse_block_size",
                 "kv_num_heads=3": "kv_num_heads", "kv_num_heads=0": "kv_num_heads", "num_heads=0": "num_heads",
                 "do_rotary=2": "do_rotary", "rotary_interleaved=5": "rotary_interleaved",
                 "num_heads=4294967297": "num_heads"}.items():
        case("attr", f"sparse-{a}", ["explain", SPARSE] + sp + ["--attr", a], [w])
    no_heads = sp[:18] + ["--attr", "kv_num_heads=1", "--attr", "sparse_block_size=16"]
    case("attr", "sparse-no-num_heads", ["explain", SPARSE] + no_heads, ["num_heads"])
    for d, w in {"T=float64": "float64", "Q=float16": "Q", "T=": "T", "M=float32": "M", "T=int8": "int8",
                 "=float32": "=float32", "T": "T"}.items():
        case("dtype", f"explain-dtype-{d}", ["explain", ROPE, "--dtype", d] + EXPLAIN_SHAPES, [w])
    for t, w in {"WORKGROUP_SIZE=0": "WORKGROUP_SIZE", "WORKGROUP_SIZE=100000": "WORKGROUP_SIZE",
                 "WORKGROUP_SIZE=-1": "WORKGROUP_SIZE", "WORKGROUP_SIZE=abc": "WORKGROUP_SIZE",
                 "NOPE_TUNABLE=64": "NOPE_TUNABLE", "WORKGROUP_SIZE=1e3": "WORKGROUP_SIZE",
                 "WORKGROUP_SIZE=4294967296": "WORKGROUP_SIZE", "WORKGROUP_SIZE=2048": "WORKGROUP_SIZE"}.items():
        case("tunable", f"explain-{t}", ["explain", ROPE, "--tunable", t] + EXPLAIN_SHAPES, [w])
        case("tunable", f"run-{t}", ["run", ROPE, "--tunable", t, "--out", "out"] + ROPE_INS, [w], setup=rope_inputs, out="out")
    for a, w in {"foo=1": "foo", "x=1": "x"}.items():
        case("arg", f"run-arg-{a}", ["run", ROPE, "--arg", a, "--out", "out"] + ROPE_INS, [w.split("=")[0]], setup=rope_inputs, out="out")


def npy_cases():
    def with_file(name, data, mode="wb"):
        def setup(d):
            rope_inputs(d)
            write(os.path.join(d, name), data, mode)
        return setup

    def run_with(port_file, expect, setup, extra=(), nm=None):
        ins = [a if not a.startswith(port_file.split("=")[0] + "=") else port_file for a in ROPE_INS]
        case("npy", nm or f"run-{port_file}", ["run", ROPE, "--out", "out"] + ins + list(extra), expect, setup=setup, out="out")

    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4, 3, 8), }"
    payload = np.zeros(192, np.float32).tobytes()
    bads = {
        "truncated-header": (npy_raw(hdr, payload)[:20], ["bad.npy"]),
        "bad-magic": (npy_raw(hdr, payload, magic=b"\x93NUMPZ"), ["bad.npy"]),
        "version-9": (npy_raw(hdr, payload, version=b"\x09\x00"), ["bad.npy"]),
        "short-data": (npy_raw(hdr, payload[:100]), ["bad.npy"]),
        "long-data": (npy_raw(hdr, payload + b"\0" * 64), ["bad.npy"]),
        "f8": (npy_raw(hdr.replace("<f4", "<f8"), payload * 2), ["x"]),
        "descr-nul": (npy_raw(hdr.replace("<f4", "<f\\x004"), payload), ["bad.npy"]),
        "descr-nul-raw": (npy_raw(hdr.replace("<f4", "<f\x004"), payload), ["bad.npy"]),
        "fortran": (npy_raw(hdr.replace("False", "True"), payload), ["bad.npy"]),
        "neg-shape": (npy_raw(hdr.replace("(2, 4, 3, 8)", "(2, -4, 3, 8)"), payload), ["bad.npy"]),
        "huge-shape": (npy_raw(hdr.replace("(2, 4, 3, 8)", "(1099511627776, 4, 3, 8)"), payload), ["bad.npy"]),
        "overflow-shape": (npy_raw(hdr.replace("(2, 4, 3, 8)", "(4294967296, 4294967296, 4294967296, 8)"), payload), ["bad.npy"]),
        "not-dict": (npy_raw("[1, 2, 3]", payload), ["bad.npy"]),
        "no-shape": (npy_raw("{'descr': '<f4', 'fortran_order': False, }", payload), ["bad.npy"]),
        "no-descr": (npy_raw("{'fortran_order': False, 'shape': (2, 4, 3, 8), }", payload), ["bad.npy"]),
        "descr-object": (npy_raw(hdr.replace("<f4", "|O"), payload), ["bad.npy"]),
        "descr-struct": (npy_raw(hdr.replace("'<f4'", "[('a', '<f4')]"), payload), ["bad.npy"]),
        "descr-big-endian": (npy_raw(hdr.replace("<f4", ">f4"), payload), ["bad.npy"]),
        "header-len-huge": (b"\x93NUMPY\x01\x00\xff\xff" + b"{" * 100, ["bad.npy"]),
        "v2-header-len-huge": (b"\x93NUMPY\x02\x00\xff\xff\xff\x7f" + b"{", ["bad.npy"]),
        "empty-file": (b"", ["bad.npy"]),
        "unterminated-dict": (npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4, 3, 8)", payload), ["bad.npy"]),
        "shape-text": (npy_raw(hdr.replace("(2, 4, 3, 8)", "'abc'"), payload), ["bad.npy"]),
        "rank-9": (npy_raw(hdr.replace("(2, 4, 3, 8)", "(1, 1, 1, 1, 1, 2, 4, 3, 8)"), payload), ["bad.npy"]),
        "text-file": (b"hello world\n", ["bad.npy"]),
    }
    for n, (data, exp) in bads.items():
        run_with("x=bad.npy", exp, with_file("bad.npy", data), nm=f"run-x-{n}")
    run_with("x=missing.npy", ["missing.npy"], rope_inputs, nm="run-x-missing")
    run_with("x=", ["x"], rope_inputs, nm="run-x-empty-path")
    run_with("x=.", ["x"], rope_inputs, nm="run-x-directory")
    run_with("x=/dev/zero", ["/dev/zero"], rope_inputs, nm="run-x-dev-zero")
    run_with("x=/dev/null", ["/dev/null"], rope_inputs, nm="run-x-dev-null")

    def fifo(d):
        rope_inputs(d)
        os.mkfifo(os.path.join(d, "fifo.npy"))
    run_with("x=fifo.npy", ["fifo.npy"], fifo, nm="run-x-fifo")
    # values and dtypes the contract refuses
    for n, pos, exp in [("pos-too-big", [[1000, 0, 1], [2, 3, 4]], ["position"]), ("pos-negative", [[-1, 0, 1], [2, 3, 4]], ["position"]),
                        ("pos-at-rows", [[50, 0, 1], [2, 3, 4]], ["position"]), ("pos-2p40", [[2 ** 40, 0, 1], [2, 3, 4]], ["position"])]:
        case("data", f"run-{n}", ["run", ROPE, "--out", "out"] + ROPE_INS, exp, setup=lambda d, p=pos: rope_inputs(d, pos=p), out="out")
    case("data", "run-pos-int32", ["run", ROPE, "--out", "out"] + ROPE_INS, ["position"],
         setup=lambda d: rope_inputs(d, pos_dtype=np.int32), out="out")
    case("data", "run-pos-float", ["run", ROPE, "--out", "out"] + ROPE_INS, ["position"],
         setup=lambda d: rope_inputs(d, pos_dtype=np.float32), out="out")
    case("data", "run-pos-shape", ["run", ROPE, "--out", "out"] + ROPE_INS, ["position"],
         setup=lambda d: rope_inputs(d, pos=np.zeros((3, 3))), out="out")

    def x_as(arr):
        def s(d):
            rope_inputs(d)
            np.save(os.path.join(d, "x.npy"), arr)
        return s
    for n, arr in {"x-f64": np.zeros((2, 4, 3, 8)), "x-int32": np.zeros((2, 4, 3, 8), np.int32),
                   "x-rank2": np.zeros((8, 8), np.float32), "x-rank5": np.zeros((1, 2, 4, 3, 8), np.float32),
                   "x-scalar": np.float32(1), "x-odd-head": np.zeros((2, 4, 3, 7), np.float32),
                   "x-bool": np.zeros((2, 4, 3, 8), bool), "x-f16-with-f32-caches": np.zeros((2, 4, 3, 8), np.float16),
                   "x-head-too-big": np.zeros((2, 4, 3, 16), np.float32), "x-batch-mismatch": np.zeros((3, 4, 3, 8), np.float32)}.items():
        case("data", f"run-{n}", ["run", ROPE, "--out", "out"] + ROPE_INS, ["x"], setup=x_as(arr), out="out")
    case("npy", "run-unknown-port", ["run", ROPE, "--out", "out", "--in", "nope=x.npy"] + ROPE_INS, ["nope"], setup=rope_inputs, out="out")
    case("npy", "run-in-twice", ["run", ROPE, "--out", "out", "--in", "x=cos.npy"] + ROPE_INS, ["x"], setup=rope_inputs, out="out")
    case("npy", "run-missing-x", ["run", ROPE, "--out", "out"] + ROPE_INS[2:], ["x"], setup=rope_inputs, out="out")
    case("npy", "run-no-eq", ["run", ROPE, "--out", "out", "--in", "x.npy"] + ROPE_INS[2:], ["x.npy"], setup=rope_inputs, out="out")
    case("npy", "run-in-output-port", ["run", ROPE, "--out", "out", "--in", "y=x.npy"] + ROPE_INS, ["y"], setup=rope_inputs, out="out")

    def out_file(d):
        rope_inputs(d)
        write(os.path.join(d, "outfile"), "keep me\n")
    case("npy", "run-out-is-file", ["run", ROPE, "--out", "outfile"] + ROPE_INS, ["outfile"], setup=out_file, out="outfile")
    case("npy", "run-out-kv", ["run", ROPE, "--out", "y=y.npy"] + ROPE_INS, ["y=y.npy"], setup=rope_inputs, out="y=y.npy")
    case("npy", "run-out-missing-parent", ["run", ROPE, "--out", "no/such/parent/out"] + ROPE_INS, ["no/such/parent"], setup=rope_inputs)


def package_cases():
    def m(name, fn, expect):
        case("package", name, ["explain", "pkg"] + EXPLAIN_SHAPES, expect, setup=manifest_mut(fn))

    def drop(key):
        def fn(doc):
            doc.pop(key)
        return fn

    def setk(path, val):
        def fn(doc):
            o = doc
            for k in path[:-1]:
                o = o[k]
            o[path[-1]] = val
        return fn

    for key in ["domain", "name", "inputs", "outputs", "variants", "bindingSets", "args", "typeConstraints"]:
        m(f"drop-{key}", drop(key), [key])
    m("root-array", lambda doc: [doc], ["manifest.json"])
    m("variants-empty", setk(["variants"], []), ["variants"])
    m("variants-object", setk(["variants"], {}), ["variants"])
    m("inputs-string", setk(["inputs"], "X"), ["inputs"])
    m("typevar-unknown", setk(["inputs", 0, "dtype"], "ZZ"), ["ZZ"])
    m("typeconstraint-bad-dtype", setk(["typeConstraints", "T"], ["float99"]), ["float99"])
    m("rank-string", setk(["inputs", 0, "rank"], "banana +"), ["rank"])
    m("tunable-huge", setk(["tunables", "WORKGROUP_SIZE"], 2 ** 60), ["WORKGROUP_SIZE"])
    m("tunable-string", setk(["tunables", "WORKGROUP_SIZE"], "big"), ["WORKGROUP_SIZE"])
    m("attr-constraint-not-list", setk(["attributeConstraints", "interleaved"], {"values": 3}), ["interleaved"])

    def derive_bad(name, text):
        def fn(doc):
            doc["derive"][name] = text
        return fn
    m("derive-syntax", derive_bad("zzBad", "1 +"), ["zzBad"])
    m("derive-unknown-name", derive_bad("zzBad", "noSuchThing + 1"), ["noSuchThing"])
    m("derive-div-zero", derive_bad("zzBad", "1 // 0"), ["zzBad"])
    m("derive-huge-int", derive_bad("zzBad", "9007199254740993"), ["zzBad"])
    m("derive-string-bomb", derive_bad("zzBad", "'a' * 100000000"), ["zzBad"])
    m("derive-range-bomb", derive_bad("zzBad", "range(1000000000) | list | length"), ["zzBad"])
    m("derive-deep", derive_bad("zzBad", "(" * 5000 + "1" + ")" * 5000), ["zzBad"])
    m("derive-pow", derive_bad("zzBad", "2 ** 2000"), ["zzBad"])

    def first_variant(fn):
        def f(doc):
            for v in doc["variants"]:
                fn(v)
        return f
    m("when-unknown", first_variant(lambda v: v["when"].append("zzNotDefined")), ["zzNotDefined"])
    m("when-syntax", first_variant(lambda v: v["when"].append("1 +* 2")), ["when"])
    m("when-multiline", first_variant(lambda v: v["when"].append("ranks.X ==\n  99")), ["false"])
    m("pass-shader-missing", first_variant(lambda v: v["passes"][0]["source"].update(shader="nope.wgsl.jinja")), ["nope.wgsl.jinja"])
    m("pass-bindings-unknown", first_variant(lambda v: v["passes"][0].update(bindings="noSuchSet")), ["noSuchSet"])
    m("dispatch-threads-neg", first_variant(lambda v: v["passes"][0]["dispatch"].update(threads="-5")), ["threads"])
    m("dispatch-threads-text", first_variant(lambda v: v["passes"][0]["dispatch"].update(threads="'abc'")), ["threads"])
    m("dispatch-wg-zero", first_variant(lambda v: v["passes"][0]["dispatch"].update(workgroupSize="0")), ["workgroupSize"])
    m("dispatch-missing", first_variant(lambda v: v["passes"][0].pop("dispatch")), ["dispatch"])
    m("variant-dup-id", lambda doc: doc["variants"].append(dict(doc["variants"][0])), ["id"])

    def binding_mut(fn):
        def f(doc):
            for name, lst in doc["bindingSets"].items():
                fn(lst)
        return f
    m("binding-arg-unknown", binding_mut(lambda l: l[0].update(arg="zzArg")), ["zzArg"])
    m("binding-buffer-type", binding_mut(lambda l: l[0]["buffer"].update(type="texture")), ["texture"])
    m("binding-uniform-value", binding_mut(lambda l: [b["struct"]["fields"][0].update(value="1 +") for b in l if "struct" in b]), ["value"])
    m("binding-uniform-type", binding_mut(lambda l: [b["struct"]["fields"][0].update(type="f64") for b in l if "struct" in b]), ["f64"])
    m("binding-uniform-neg", binding_mut(lambda l: [b["struct"]["fields"][0].update(value="-1") for b in l if "struct" in b]), ["-1"])
    m("binding-uniform-huge", binding_mut(lambda l: [b["struct"]["fields"][0].update(value="2**40") for b in l if "struct" in b]), ["u32"])

    def with_inputs(setup):
        def s(d):
            setup(d)
            rope_inputs(d)
        return s

    def tmpl(text, name="rotary-embedding.wgsl.jinja"):
        return rope_pkg_with(lambda w: write(os.path.join(w, name), text))
    for n, text, exp in [("tmpl-unclosed-if", "{% if true %}\nfn main() {}\n", ["endif"]),
                         ("tmpl-stray-endfor", "{% endfor %}\n", ["endfor"]),
                         ("tmpl-unknown-filter", "{{ 1 | zzfilter }}\n", ["zzfilter"]),
                         ("tmpl-unknown-name", "{{ zzname.x }}\n", ["zzname"]),
                         ("tmpl-bad-wgsl", "this is not wgsl\n", ["wgsl"]),
                         ("tmpl-include-missing", "{% include 'zz-missing.wgsl' %}\n", ["zz-missing.wgsl"]),
                         ("tmpl-include-dotdot", "{% include '../../../../../../etc/passwd' %}\n", ["passwd"]),
                         ("tmpl-include-abs", "{% include '/etc/passwd' %}\n", ["/etc/passwd"]),
                         ("tmpl-for-bomb", "{% for i in range(100000000) %}x{% endfor %}\n", ["range"]),
                         ("tmpl-macro-recursion", "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}\n", ["f"]),
                         ("tmpl-empty", "", ["main"]),
                         ("tmpl-binary", "\x00\x01\x02", ["rotary-embedding.wgsl.jinja"]),
                         ("tmpl-deep-if", "{% if true %}" * 3000 + "{% endif %}" * 3000, ["rotary-embedding.wgsl.jinja"])]:
        case("template", n, ["run", "pkg", "--out", "out"] + ROPE_INS, exp, setup=with_inputs(tmpl(text)), out="out")

    def symlink_inc(d):
        p = copy_pkg(ROPE, d)
        w = os.path.join(p, "build", "webgpu")
        os.symlink("/etc/passwd", os.path.join(w, "inc.wgsl"))
        write(os.path.join(w, "rotary-embedding.wgsl.jinja"), "{% include 'inc.wgsl' %}\n")
        unverified(p)
    case("template", "tmpl-include-symlink", ["render", "pkg"] + EXPLAIN_SHAPES, ["inc.wgsl"], setup=symlink_inc)

    def cycle(d):
        p = copy_pkg(ROPE, d)
        w = os.path.join(p, "build", "webgpu")
        write(os.path.join(w, "a.wgsl"), "{% include 'b.wgsl' %}\n")
        write(os.path.join(w, "b.wgsl"), "{% include 'a.wgsl' %}\n")
        write(os.path.join(w, "rotary-embedding.wgsl.jinja"), "{% include 'a.wgsl' %}\n")
        unverified(p)
    case("template", "tmpl-include-cycle", ["render", "pkg"] + EXPLAIN_SHAPES, ["a.wgsl"], setup=cycle)

    def manifest_symlink(d):
        p = copy_pkg(ROPE, d)
        w = os.path.join(p, "build", "webgpu")
        os.remove(os.path.join(w, "manifest.json"))
        os.symlink("/etc/passwd", os.path.join(w, "manifest.json"))
        unverified(p)
    case("package", "manifest-symlink-out", ["info", "pkg"], ["manifest.json"], setup=manifest_symlink)

    def raw_manifest(text):
        return rope_pkg_with(lambda w: write(os.path.join(w, "manifest.json"), text))
    for n, text in [("manifest-trailing-comma", '{"domain": "ai.onnx",}'), ("manifest-truncated", '{"domain": "ai.onnx", "name": "Rot'),
                    ("manifest-empty", ""), ("manifest-nul", '{"domain": "ai\u0000onnx"}'), ("manifest-deep", "[" * 100000 + "]" * 100000),
                    ("manifest-number", "42"), ("manifest-bom", "\ufeff{}"), ("manifest-dup-key", '{"domain": "a", "domain": "b"}')]:
        case("package", n, ["info", "pkg"], ["manifest.json"], setup=raw_manifest(text))

    # verified packages with broken metadata
    def meta(fn):
        return rope_pkg_with(lambda w: mutate_json(os.path.join(w, "metadata.json"), fn), verified=True)

    def flip(w, name):
        p = os.path.join(w, name)
        b = bytearray(open(p, "rb").read())
        b[len(b) // 2] ^= 1
        open(p, "wb").write(bytes(b))
    for f in ["manifest.json", "rotary-embedding.wgsl.jinja", "test.json", "bench.json"]:
        cmd = {"test.json": "test", "bench.json": "bench"}.get(f, "explain")
        args = EXPLAIN_SHAPES if cmd == "explain" else []
        case("digest", f"flip-{f}", [cmd, "pkg"] + args, [f, "sha256"], setup=rope_pkg_with(lambda w, f=f: flip(w, f), verified=True))
    case("digest", "metadata-name-mismatch", ["info", "pkg"], ["name"], setup=meta(lambda d: d.update(name="ai.onnx.Other")))
    case("digest", "metadata-digest-not-b64", ["info", "pkg"], ["manifest.json"],
         setup=meta(lambda d: d.__setitem__("digest", {"algorithm": "sha256", "files": {"manifest.json": "!!!"}}) if "digest" in d else d.update(digests={"manifest.json": "!!!"})))
    case("digest", "metadata-algorithm-md5", ["info", "pkg"], ["md5"],
         setup=meta(lambda d: d["digest"].update(algorithm="md5") if "digest" in d else d.update(algorithm="md5")))
    case("digest", "metadata-dotdot-path", ["info", "pkg"], [".."],
         setup=meta(lambda d: (d["digest"]["files"] if "digest" in d else d.setdefault("files", {})).update({"../x": "AAAA"})))
    case("digest", "metadata-missing-file", ["info", "pkg"], ["ghost.wgsl"], may_pass=True,
         setup=meta(lambda d: (d["digest"]["files"] if "digest" in d else d.setdefault("files", {})).update({"ghost.wgsl": "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="})))
    case("digest", "metadata-not-json", ["info", "pkg"], ["metadata.json"],
         setup=rope_pkg_with(lambda w: write(os.path.join(w, "metadata.json"), "{nope"), verified=True))
    case("digest", "metadata-array", ["info", "pkg"], ["metadata.json"],
         setup=rope_pkg_with(lambda w: write(os.path.join(w, "metadata.json"), "[]"), verified=True))
    case("digest", "strict-unverified", ["info", "pkg", "--strict"], ["metadata.json"], setup=rope_pkg_with(lambda w: None))
    case("digest", "version-mismatch", ["info", ROPE, "--version", "7"], ["7"])


def testjson_cases():
    def tj(fn):
        def one_case(doc):
            doc["cases"] = doc["cases"][:1]
            return fn(doc)
        return rope_pkg_with(lambda w: mutate_json(os.path.join(w, "test.json"), one_case))

    def first_case(fn):
        def f(doc):
            fn(doc["cases"][0])
        return f
    items = {
        "unknown-port": (first_case(lambda c: c["inputs"].update(zzPort=c["inputs"][next(iter(c["inputs"]))])), ["zzPort"]),
        "shape-not-list": (first_case(lambda c: next(iter(c["inputs"].values())).update(shape="2x3")), ["shape"]),
        "huge-tensor": (first_case(lambda c: next(iter(c["inputs"].values())).update(shape=[1 << 20, 1 << 12, 1, 2])), ["bytes"]),
        "neg-dim": (first_case(lambda c: next(iter(c["inputs"].values())).update(shape=[-2, 4, 3, 8])), ["shape"]),
        "bad-dtype": (first_case(lambda c: next(iter(c["inputs"].values())).update(dtype="float99")), ["dtype", "float32"]),
        "bad-generator": (first_case(lambda c: next(iter(c["inputs"].values())).update(generator={"kind": "zzgen"})), ["generator.kind", "unknown generator"]),
        "seed-text": (first_case(lambda c: next(iter(c["inputs"].values())).update(generator={"kind": "uniform", "seed": "x"})), ["seed"]),
        "attr-bad": (first_case(lambda c: c.setdefault("attrs", {}).update(interleaved="yes")), ["interleaved"]),
        "cases-not-list": (lambda d: d.update(cases={}), ["cases"]),
        "case-no-id": (first_case(lambda c: c.pop("id")), ["id"]),
        "dup-ids": (lambda d: d["cases"].append(dict(d["cases"][0])), ["id"]),
    }
    for n, (fn, exp) in items.items():
        case("testjson", n, ["test", "pkg"], exp, setup=tj(fn))

    def nan_int64(w):
        p = os.path.join(w, "test.json")
        doc = json.load(open(p))
        doc["cases"] = doc["cases"][:1]
        c = doc["cases"][0]
        c["inputs"]["positionIds"] = {"dtype": "int64", "shape": [2, 3], "data": ["NaN", 0, 1, 2, 3, 4]}
        json.dump(doc, open(p, "w"))
    case("testjson", "nan-in-int64", ["test", "pkg"], ["NaN"], setup=rope_pkg_with(nan_int64))

    def data_len(w):
        p = os.path.join(w, "test.json")
        doc = json.load(open(p))
        doc["cases"] = doc["cases"][:1]
        doc["cases"][0]["inputs"]["positionIds"] = {"dtype": "int64", "shape": [2, 3], "data": [0, 1]}
        json.dump(doc, open(p, "w"))
    case("testjson", "data-length", ["test", "pkg"], ["positionIds"], setup=rope_pkg_with(data_len))
    case("testjson", "not-json", ["test", "pkg"], ["test.json"], setup=rope_pkg_with(lambda w: write(os.path.join(w, "test.json"), "{")))
    case("testjson", "bench-not-json", ["bench", "pkg"], ["bench.json"], setup=rope_pkg_with(lambda w: write(os.path.join(w, "bench.json"), "[1,")))
    case("testjson", "bench-case-huge", ["bench", "pkg"], ["bytes"],
         setup=rope_pkg_with(lambda w: mutate_json(os.path.join(w, "bench.json"), huge_bench)))


def huge_bench(doc):
    for c in doc["cases"]:
        next(iter(c["inputs"].values())).update(shape=[1 << 22, 1 << 12, 1, 2])


def lang_cases():
    exprs = {"trailing-op": ("1 +", ["1:4", "end of expression"]), "deep-parens": ("(" * 3000 + "1" + ")" * 3000, ["nested too deeply", "limit"]),
             "unclosed-list": ("[1, 2", ["']' expected"]), "unknown-name": ("zzUnknown", ["zzUnknown"]),
             "div-zero": ("1 / 0", ["zero"]), "idiv-zero": ("1 // 0", ["zero"]), "mod-zero": ("1 % 0", ["zero"]),
             "past-2p53": ("9007199254740993", ["2^53"]), "pow-huge": ("2 ** 64", ["2"]),
             "string-bomb": ("'ab' * 1000000000", ["'*'", "string"]), "range-bomb": ("range(1000000000) | list", ["range"]),
             "unterminated-string": ("'abc", ["string"]), "unknown-filter": ("1 | zzfilt", ["zzfilt"]),
             "unknown-func": ("zzfunc(1)", ["zzfunc"]), "ceildiv-zero": ("ceilDiv(1, 0)", ["ceilDiv"]),
             "dim-empty": ("dim([], 0)", ["dim"]), "pow2ceil-text": ("pow2ceil('x')", ["pow2ceil"]),
             "bad-char": ("1 $ 2", ["$"]), "call-int": ("1(2)", ["call"]), 
             "slice-step-zero": ("[1,2][::0]", ["step"]), 
             "if-no-else-used": ("(1 if false) + 1", ["undefined"]), "compare-list-int": ("[1] < 1", ["<"]),
             "neg-range": ("range(0, 10, 0)", ["range"]), "numel-text": ("numel('abc')", ["numel"]),
             "broadcast-bad": ("broadcastShape([2], [3])", ["broadcast"]), "join-int": ("1 | join", ["join"]),
             "int-overflow-mul": ("9007199254740991 * 3", ["2^53"]), "float-huge": ("1e400", ["e400"]),
"empty": ("", ["1:1", "end of expression"]), "only-space": ("   ", ["end of expression"]),
             "kwarg-unknown": ("range(stop=3)", ["stop"]), "too-many-args": ("ceilDiv(1,2,3)", ["ceilDiv"]),
             "dict-unhashable": ("{[1]: 2}", ["key"]), "tuple-trailing": ("(1,,)", [","])}
    for n, (e, exp) in exprs.items():
        case("expr", n, ["eval", e], exp)
    templates = {"unclosed-for": ("{% for i in [1] %}x", ["endfor"]), "endif-stray": ("{% endif %}", ["endif"]),
                 "unknown-tag": ("{% zztag %}", ["zztag"]), "unclosed-expr": ("{{ 1 + ", ["1:8", "end of expression"]),
                 "unclosed-comment": ("{# never", ["unclosed comment"]), "for-bomb": ("{% for i in range(1000000000) %}{% endfor %}", ["range"]),
                 "macro-recursion": ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", ["nested too deeply", "limit"]),
                 "include-missing": ("{% include 'zzmissing.wgsl' %}", ["zzmissing.wgsl"]),
                 "include-etc": ("{% include '/etc/passwd' %}", ["/etc/passwd"]),
                 "set-bad": ("{% set = 1 %}", ["1:8", "'='"]), "break-outside": ("{% break %}", ["break"]),
                 "else-twice": ("{% if 1 %}{% else %}{% else %}{% endif %}", ["else"]),
                 "output-bomb": ("{% for i in range(100000) %}{{ 'x' * 100000 }}{% endfor %}", ["'*'", "string"]),
                 "filter-unknown-block": ("{% filter zzf %}x{% endfilter %}", ["zzf"]),
                 "call-undefined-macro": ("{% call zzm() %}x{% endcall %}", ["zzm"]),
                 "deep-if": ("{% if 1 %}" * 2000 + "{% endif %}" * 2000, ["nested too deeply", "limit"])}
    for n, (t, exp) in templates.items():
        case("template-cli", n, ["template", "t.wgsl.jinja"], exp, setup=lambda d, t=t: write(os.path.join(d, "t.wgsl.jinja"), t))
    case("template-cli", "missing-file", ["template", "nofile.jinja"], ["nofile.jinja"])
    case("template-cli", "directory", ["template", "."], ["."])
    case("template-cli", "scope-bad-json", ["template", "t.j", "--scope", "s.json"], ["s.json"],
         setup=lambda d: (write(os.path.join(d, "t.j"), "x"), write(os.path.join(d, "s.json"), "{")))
    case("template-cli", "scope-missing", ["eval", "1", "--scope", "nos.json"], ["nos.json"])
    case("template-cli", "scope-array", ["eval", "1", "--scope", "s.json"], ["s.json"], setup=lambda d: write(os.path.join(d, "s.json"), "[1]"))


def device_cases():
    base = {"features": [], "limits": {}}
    devs = {"limits-string": dict(base, limits="none"), "features-int": dict(base, features=5),
            "limit-negative": dict(base, limits={"maxStorageBufferBindingSize": -1}),
            "limit-text": dict(base, limits={"maxComputeInvocationsPerWorkgroup": "x"}),
            "limit-unknown": dict(base, limits={"maxZzz": 1}), "unknown-key": dict(base, zzKey=1),
            "limit-huge": dict(base, limits={"maxBufferSize": 2 ** 70}), "feature-num": dict(base, features=[1]),
            "root-array": [base], "limit-float": dict(base, limits={"maxBufferSize": 1.5}),
            "tiny-binding-limit": dict(base, limits={"maxStorageBufferBindingSize": 16}),
            "tiny-wg-limit": dict(base, limits={"maxComputeInvocationsPerWorkgroup": 1, "maxComputeWorkgroupSizeX": 1})}
    expects = {"limits-string": ["limits"], "features-int": ["features"], "limit-negative": ["maxStorageBufferBindingSize"],
               "limit-text": ["maxComputeInvocationsPerWorkgroup"], "limit-unknown": ["maxZzz"], "unknown-key": ["zzKey"],
               "limit-huge": ["dev.json:1:", "integer"], "feature-num": ["features"], "root-array": ["dev.json"],
               "limit-float": ["maxBufferSize"], "tiny-binding-limit": ["maxStorageBufferBindingSize"],
               "tiny-wg-limit": ["WORKGROUP_SIZE"]}
    for n, doc in devs.items():
        case("device", n, ["explain", ROPE, "--device", "dev.json"] + EXPLAIN_SHAPES, expects[n],
             setup=lambda d, doc=doc: write(os.path.join(d, "dev.json"), json.dumps(doc)))
    case("device", "missing", ["explain", ROPE, "--device", "nodev.json"] + EXPLAIN_SHAPES, ["nodev.json"])
    case("device", "not-json", ["explain", ROPE, "--device", "dev.json"] + EXPLAIN_SHAPES, ["dev.json"],
         setup=lambda d: write(os.path.join(d, "dev.json"), "{x"))


def onnx_cases():
    if not os.path.isdir(CONFORMANCE):
        return
    src = sorted(t for t in os.listdir(CONFORMANCE) if "expanded" not in t and os.path.isdir(os.path.join(CONFORMANCE, t)))[0]

    def mut(fn):
        def setup(d):
            dst = os.path.join(d, "t")
            shutil.copytree(os.path.join(CONFORMANCE, src), dst)
            fn(dst)
        return setup

    def trunc(rel, n):
        def f(dst):
            p = os.path.join(dst, rel)
            b = open(p, "rb").read()
            open(p, "wb").write(b[:n])
        return f

    def garbage(rel):
        return lambda dst: open(os.path.join(dst, rel), "wb").write(os.urandom(200))

    def patch(rel, a, b):
        def f(dst):
            p = os.path.join(dst, rel)
            open(p, "wb").write(open(p, "rb").read().replace(a, b))
        return f
    ds = "test_data_set_0"
    muts = {"model-truncated": (trunc("model.onnx", 30), ["model.onnx"]), "model-garbage": (garbage("model.onnx"), ["model.onnx"]),
            "model-missing": (lambda dst: os.remove(os.path.join(dst, "model.onnx")), ["model.onnx"]),
            "model-empty": (trunc("model.onnx", 0), ["model.onnx"]),
            "input-truncated": (trunc(f"{ds}/input_0.pb", 20), ["input_0.pb"]),
            "input-garbage": (garbage(f"{ds}/input_0.pb"), ["input_0.pb"]),
            "input-missing": (lambda dst: os.remove(os.path.join(dst, ds, "input_0.pb")), ["input_0"]),
            "output-missing": (lambda dst: os.remove(os.path.join(dst, ds, "output_0.pb")), ["output_0"]),
            "output-truncated": (trunc(f"{ds}/output_0.pb", 16), ["output_0.pb"]),
            "op-renamed": (patch("model.onnx", b"RotaryEmbedding", b"RotaryEmbeddinX"), ["RotaryEmbeddinX"]),
            "no-dataset": (lambda dst: shutil.rmtree(os.path.join(dst, ds)), ["test_data_set"]),
            "dataset-is-file": (lambda dst: (shutil.rmtree(os.path.join(dst, ds)), open(os.path.join(dst, ds), "w").write("x")), ["test_data_set_0"])}
    for n, (fn, exp) in muts.items():
        case("onnx", n, ["onnx-test", "t"], exp, setup=mut(fn))
    case("onnx", "folder-is-file", ["onnx-test", "f"], ["f"], setup=lambda d: write(os.path.join(d, "f"), "x"))
    case("onnx", "folder-empty", ["onnx-test", "e"], ["e"], setup=lambda d: os.makedirs(os.path.join(d, "e")))
    case("onnx", "folder-missing", ["onnx-test", "nothere"], ["nothere"])


# ---- running ------------------------------------------------------------------------------------

def snapshot(path):
    if not os.path.lexists(path):
        return None
    if os.path.isfile(path):
        return ("file", open(path, "rb").read())
    return ("dir", sorted(os.listdir(path)))


def run_case(c, wgk, keep):
    d = tempfile.mkdtemp(prefix="wgk-adv-")
    env = dict(os.environ, HOME=d, WGK_TUNING_CACHE=os.path.join(d, "tuning"), XDG_CACHE_HOME=os.path.join(d, "xdg"),
               HF_HOME=os.path.join(d, "hf"), HF_HUB_OFFLINE="1")
    try:
        if c.setup:
            c.setup(d)
        before = snapshot(os.path.join(d, c.out)) if c.out else None
        t0 = time.time()
        try:
            p = subprocess.run([wgk] + c.argv, cwd=d, env=env, capture_output=True, timeout=c.timeout)
            rc, out = p.returncode, (p.stdout + p.stderr).decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            rc, out = None, ((e.stdout or b"") + (e.stderr or b"")).decode("utf-8", "replace")
        secs = time.time() - t0
        after = snapshot(os.path.join(d, c.out)) if c.out else None
        if rc is None:
            verdict = "hang"
        elif rc < 0 or SANITIZER.search(out):
            verdict = "crash"
        elif rc == 0 and not c.may_pass:
            verdict = "accepted"
        elif c.out and before != after and rc != 0:
            verdict = "touched"
        elif rc == 0:
            verdict = "clear"
        else:
            low = out.lower()
            verdict = "clear" if all(e in low for e in c.expect) and not low.lstrip().startswith("usage:") else "unclear"
        return dict(cat=c.cat, name=c.name, argv=c.argv, rc=rc, verdict=verdict, secs=round(secs, 2),
                    expect=c.expect, output=out[-1500:])
    finally:
        if not keep:
            shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wgk", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    ap.add_argument("--min-clear", type=float, default=97.0)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    for gen in (cli_cases, shape_cases, attr_cases, npy_cases, package_cases, testjson_cases, lang_cases, device_cases, onnx_cases):
        gen()
    names = [c.cat + "/" + c.name for c in CASES]
    assert len(set(names)) == len(names), [n for n in names if names.count(n) > 1]
    cases = [c for c in CASES if re.search(a.only, c.cat + "/" + c.name)]
    if a.list:
        for c in cases:
            print(c.cat + "/" + c.name)
        return 0
    wgk = os.path.abspath(a.wgk)
    results = []
    for i, c in enumerate(cases):
        try:
            r = run_case(c, wgk, a.keep)
        except Exception as e:  # a case that cannot even be set up is the harness's fault: say so, count it
            r = dict(cat=c.cat, name=c.name, argv=c.argv, rc=None, verdict="harness", secs=0, expect=c.expect, output=repr(e))
        results.append(r)
        if r["verdict"] != "clear":
            first = next((ln for ln in r["output"].splitlines() if ln.strip()), "")
            print(f"[{i + 1}/{len(cases)}] {r['verdict']:8} {c.cat}/{c.name}: {first[:200]}", flush=True)
    counts = {}
    for r in results:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    n = len(results)
    clear = counts.get("clear", 0)
    pct = 100.0 * clear / n if n else 0.0
    print(f"{n} cases: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f"; clear {pct:.1f}%")
    if a.json:
        json.dump(dict(counts=counts, total=n, clear_percent=pct, results=results), open(a.json, "w"), indent=1)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(f"# Adversarial run\n\n{n} bad inputs; " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) +
                    f"; clear {pct:.1f}%\n\n| category | cases | clear | other |\n|---|---|---|---|\n")
            cats = sorted({r["cat"] for r in results})
            for cat in cats:
                rs = [r for r in results if r["cat"] == cat]
                other = ", ".join(f"{r['name']} ({r['verdict']})" for r in rs if r["verdict"] != "clear")
                f.write(f"| {cat} | {len(rs)} | {sum(r['verdict'] == 'clear' for r in rs)} | {other} |\n")
    bad = sum(counts.get(k, 0) for k in ("crash", "hang", "touched", "accepted"))
    print(f"{bad} crash/hang/touched/accepted; {n - clear - bad} unclear")
    return 0 if bad == 0 and pct >= a.min_clear else 1


if __name__ == "__main__":
    sys.exit(main())
