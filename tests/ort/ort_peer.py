#!/usr/bin/python3
"""The ONNX Runtime peer, one driver for every op: each package folder KERNELS/<op id>/ with a
tools/ort_cases.py (CASES, a list of rows, and case(outdir, rng, *row) writing one case folder with
tests/ort/case_folder.py; optionally ATOL, {folder-name ending: atol}) is found when the test runs. For each such
op the driver writes its cases into WORK/<op id>/ with one seeded generator, has ONNX Runtime's CPU kernel
(onnxruntime-node 1.30, run_ort.mjs) write the expected outputs, checks them against the op's float64 numpy
reference when it has one (tests/python/references.py: a third opinion, so a fault shared by ORT and wgk
shows), and runs `wgk onnx-test` on the folders. Every case must pass; none may be skipped.

usage: ort_peer.py WGK KERNELS WORK [--seed N] [--shard K/N] [--op ID]
  --shard K/N   only the ops whose index in the sorted list is K-1 modulo N (ctest runs the shards in parallel)
  --op ID       only that op
Exit 77 (skipped) when tests/ort/node_modules lacks onnxruntime-node (scripts/bootstrap.sh installs it).
"""
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ inside a package folder
sys.path.insert(0, HERE)  # case_folder, for the ops' writers
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import references  # noqa: E402


def load_cases(path, op):
    spec = importlib.util.spec_from_file_location("ort_cases_" + re.sub(r"\W", "_", op), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not isinstance(getattr(module, "CASES", None), list) or not callable(getattr(module, "case", None)):
        raise SystemExit(f"{path}: defines no CASES list and case(outdir, rng, *row)")
    return module


def atol_of(module, folder):
    """The atol for a case folder: the ATOL entry whose key ends the folder's name, the longest such."""
    table = getattr(module, "ATOL", {})
    keys = [k for k in table if os.path.basename(folder.rstrip("/")).endswith(k)]
    return table[max(keys, key=len)] if keys else None


def check_reference(op, folders, module):
    """ORT's outputs against the op's numpy reference (if it has one); the problems found."""
    try:
        ref = references.load(op, os.path.dirname(os.path.dirname(os.path.dirname(module.__file__)))).reference
    except KeyError:
        print(f"{op}: no numpy reference (tools/reference.py): ORT's outputs are not cross-checked")
        return []
    import onnx
    from onnx import helper, numpy_helper
    problems = []
    for d in folders:
        model = onnx.load(os.path.join(d, "model.onnx"))
        node = model.graph.node[0]
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        data = os.path.join(d, "test_data_set_0")
        def tensor(path):
            t = onnx.TensorProto()
            with open(path, "rb") as f:
                t.ParseFromString(f.read())
            return t.name, numpy_helper.to_array(t)
        ins = dict(tensor(p) for p in sorted(glob.glob(os.path.join(data, "input_*.pb"))))
        want = ref(ins, attrs)
        atol = atol_of(module, d) or (1e-2 if any(v.dtype == np.float16 for v in ins.values()) else 1e-4)
        for p in sorted(glob.glob(os.path.join(data, "output_*.pb"))):
            name, got = tensor(p)
            if name not in want:
                problems.append(f"{d}: the reference gives no output {name!r} (it gives {', '.join(want)})")
                continue
            err = np.abs(got.astype(np.float64) - want[name])
            if got.shape != want[name].shape or not np.all(err <= atol + 1e-3 * np.abs(want[name])):
                problems.append(f"{d}: ORT's {name} and the numpy reference disagree (shape {got.shape} vs "
                                f"{want[name].shape}, max abs err {err.max() if err.size else 0:.3g}, atol {atol})")
    return problems


def run_op(wgk, op, path, work, seed):
    module = load_cases(path, op)
    out = os.path.join(work, op)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    rng = np.random.default_rng(seed)
    for row in module.CASES:
        module.case(out, rng, *row)
    folders = sorted(glob.glob(os.path.join(out, "*", "")))
    if len(folders) != len(module.CASES):
        return [f"{op}: {len(module.CASES)} cases written as {len(folders)} folders"]
    r = subprocess.run(["node", os.path.join(HERE, "run_ort.mjs")] + folders, capture_output=True, text=True)
    if r.returncode:
        return [f"{op}: ONNX Runtime failed (exit {r.returncode}):\n{r.stdout[-2000:]}{r.stderr[-3000:]}"]
    problems = check_reference(op, folders, module)
    groups = {}
    for d in folders:
        groups.setdefault(atol_of(module, d), []).append(d)
    for atol, dirs in sorted(groups.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
        argv = [wgk, "onnx-test"] + (["--atol", repr(atol)] if atol is not None else []) + dirs
        r = subprocess.run(argv, capture_output=True, text=True)
        text = r.stdout + r.stderr
        print(text, end="")
        m = re.search(r"(\d+) passed, (\d+) failed, (\d+) skipped", text)
        if r.returncode or not m or (int(m.group(1)), int(m.group(2)), int(m.group(3))) != (len(dirs), 0, 0):
            problems.append(f"{op}: wgk onnx-test{' --atol ' + repr(atol) if atol is not None else ''} on "
                            f"{len(dirs)} cases: {m.group(0) if m else 'no summary'} (exit {r.returncode}); "
                            f"every case must pass")
    if not problems:
        print(f"ort peer: {op}: {len(folders)} cases agree with ONNX Runtime (seed {seed})")
    return problems


def main(argv):
    if len(argv) < 3 or argv[0].startswith("-"):
        sys.exit(__doc__)
    wgk, kernels, work = argv[:3]
    opts = dict(zip(argv[3::2], argv[4::2]))
    seed = int(opts.get("--seed", 23))
    if not os.path.isdir(os.path.join(HERE, "node_modules", "onnxruntime-node")):
        print("SKIP: tests/ort/node_modules/onnxruntime-node missing (run scripts/bootstrap.sh)")
        return 77
    ops = {os.path.basename(os.path.dirname(os.path.dirname(p))): p
           for p in sorted(glob.glob(os.path.join(os.path.abspath(kernels), "*", "tools", "ort_cases.py")))}
    if not ops:
        print(f"FAIL: no package under {kernels} has tools/ort_cases.py: the peer would check nothing")
        return 1
    names = sorted(ops)
    if "--op" in opts:
        if opts["--op"] not in ops:
            print(f"FAIL: {opts['--op']}: no {kernels}/{opts['--op']}/tools/ort_cases.py (ops with one: "
                  f"{', '.join(names)})")
            return 1
        names = [opts["--op"]]
    if "--shard" in opts:
        k, n = (int(v) for v in opts["--shard"].split("/"))
        names = [op for i, op in enumerate(names) if i % n == k - 1]
        print(f"shard {k}/{n}: {', '.join(names) or 'no op (fewer ops than shards)'} of {len(ops)} ops")
    problems = []
    for op in names:
        problems += run_op(wgk, op, ops[op], work, seed)
    for p in problems:
        print("FAIL: " + p)
    print(f"ort peer: {len(names)} ops, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
