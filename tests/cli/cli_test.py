#!/usr/bin/python3
"""CLI-level tests of wgk run / test / info on tests/cli/scale (Y = X * scale + bias), checked with numpy.

usage: cli_test.py WGK SOURCE_DIR
"""
import json, os, re, shutil, subprocess, sys, tempfile
import numpy as np

WGK, SRC = sys.argv[1], sys.argv[2]
PKG = os.path.join(SRC, "tests", "cli", "scale")
failures = []


def wgk(*args, rc=0):
    p = subprocess.run([WGK, *args], capture_output=True, text=True, timeout=120)
    if p.returncode != rc:
        failures.append(f"wgk {' '.join(args)}: exit {p.returncode}, wanted {rc}\n{p.stdout}{p.stderr}")
    return p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)


tmp = tempfile.mkdtemp()
try:
    # run: float32 and float16 outputs written as .npy and equal to numpy's result
    rng = np.random.default_rng(5)
    x32 = rng.standard_normal((2, 4, 3, 8)).astype(np.float32)
    np.save(os.path.join(tmp, "x32.npy"), x32)
    out, _ = wgk("run", PKG, "--in", "x=" + os.path.join(tmp, "x32.npy"), "--attr", "scale=3",
                 "--attr", "bias=0.25", "--out", os.path.join(tmp, "o32"))
    y = np.load(os.path.join(tmp, "o32", "y.npy"))
    check(y.dtype == np.float32 and y.shape == x32.shape, f"y.npy float32 {y.dtype} {y.shape}")
    check(np.allclose(y, x32 * np.float32(3) + np.float32(0.25), rtol=1e-6, atol=1e-6), "float32 values")
    check(re.search(r"^y: float32 \[2, 4, 3, 8\] min=\S+ max=\S+ mean=\S+$", out, re.M), "summary line:\n" + out)
    check(re.search(r"^call 1: variant elementwise, wall [0-9.]+ ms", out, re.M), "time line:\n" + out)

    x16 = rng.uniform(-2, 2, (5, 7)).astype(np.float16)
    np.save(os.path.join(tmp, "x16.npy"), x16)
    wgk("run", PKG, "--in", "X=" + os.path.join(tmp, "x16.npy"), "--out", os.path.join(tmp, "o16"))
    y = np.load(os.path.join(tmp, "o16", "y.npy"))
    check(y.dtype == np.dtype("<f2"), f"float16 output written as {y.dtype}")
    check(np.array_equal(y, (x16.astype(np.float32) * 2).astype(np.float16)), "float16 values")

    # a second call with the same shapes plans and compiles nothing
    out, _ = wgk("run", PKG, "--in", "x=" + os.path.join(tmp, "x32.npy"), "--verbose", "--calls", "2")
    counters = re.findall(r"plans made: (\d+), plan hits: (\d+), shaders compiled: (\d+), pipelines created: (\d+)", out)
    check(len(counters) == 2, "two counter lines:\n" + out)
    if len(counters) == 2:
        check(counters[0][0] == "1" and counters[0][3] == "1", f"first call made a plan and a pipeline: {counters[0]}")
        check(counters[1] == ("0", "1", "0", "0"), f"second call compiled nothing: {counters[1]}")
    # --verbose ends with the process's phases (issue 39: the first call explains itself), each a time in ms
    names = ("check", "instance", "adapter", "device", "load", "inputs", "plan", "compile", "run", "read", "exit")
    m = re.search(r"^phases ms: (.*); main ([0-9.]+), beyond the device (-?[0-9.]+)$", out, re.M)
    check(m is not None, "phases line:\n" + out)
    if m:
        got = dict(zip(m.group(1).split()[::2], map(float, m.group(1).split()[1::2])))
        check(tuple(got) == names, f"phases named in order: {tuple(got)}")
        main_ms, beyond = float(m.group(2)), float(m.group(3))
        check(all(v >= 0 for v in got.values()) and main_ms > 0, f"phase times: {got}, main {main_ms}")
        parts = got["instance"] + got["adapter"] + got["device"]
        check(abs(main_ms - parts - beyond) < 0.2, f"beyond the device = main - instance - adapter - device: {m.group(0)}")
        check(got["run"] > 0 and got["compile"] + got["plan"] > 0, f"the call's phases timed: {got}")
    # and the same in CPU ms (what a loaded machine cannot blur): before main, the context's thread, the rest
    m = re.search(r"^cpu ms: start ([0-9.]+) context ([0-9.]+) (.*); process ([0-9.]+), beyond the device (-?[0-9.]+)$",
                  out, re.M)
    check(m is not None, "cpu line:\n" + out)
    if m:
        start, context, process, beyond = (float(m.group(i)) for i in (1, 2, 4, 5))
        got = dict(zip(m.group(3).split()[::2], map(float, m.group(3).split()[1::2])))
        cpu_names = tuple(n for n in names if n not in ("instance", "adapter", "device"))
        check(tuple(got) == cpu_names, f"cpu phases named in order: {tuple(got)}")
        check(start > 0 and context > 0 and got["run"] > 0, f"cpu phases timed: start {start}, context {context}, {got}")
        # compile is the CPU over the context's compile clock (a first call makes a shader module), plan the rest
        check(got["compile"] > 0 and got["plan"] >= 0, f"cpu compile measured, plan the rest of prepare: {got}")
        check(abs(start + context + sum(got.values()) - process) < 0.2 + 0.05 * len(got), f"process = the sum: {m.group(0)}")
        check(abs(process - context - beyond) < 0.2, f"beyond the device = process - context: {m.group(0)}")
    # the GPU time only with --gpu-time (timestamp queries cost a first call)
    check(re.search(r"^call 1: .*, gpu ", out, re.M) is None, "no GPU time unless asked:\n" + out)
    out, _ = wgk("run", PKG, "--in", "x=" + os.path.join(tmp, "x32.npy"), "--gpu-time")
    check(re.search(r"^call 1: variant elementwise, wall [0-9.]+ ms, gpu [0-9.]+ ms$", out, re.M), "--gpu-time:\n" + out)

    # run: refusals and bad options
    _, err = wgk("run", PKG, "--in", "x=" + os.path.join(tmp, "missing.npy"), rc=1)
    check("missing.npy" in err, "missing file named:\n" + err)
    _, err = wgk("run", PKG, "--in", "nonsense", rc=1)
    check("port=FILE.npy" in err, "bad --in explained:\n" + err)
    _, err = wgk("run", PKG, "--in", "x=" + os.path.join(tmp, "x32.npy"), "--attr", "colour=1", rc=1)
    check("colour" in err, "unknown attribute named:\n" + err)

    # test: the package's own cases pass
    out, _ = wgk("test", PKG)
    check(out.strip().splitlines()[-1] == "5 passed, 0 failed", "closing line:\n" + out)
    check(re.search(r"^PASS inline_f32 \(elementwise, max abs err 0, max rel err 0; float32 tolerance rtol 1e-06 atol 1e-06, 0% used\)$",
                     out, re.M), "PASS line:\n" + out)
    out, _ = wgk("test", PKG, "--case", "f16")
    check(out.strip().splitlines() == ["PASS inline_f16 (elementwise, max abs err 2.34e-05, max rel err 2.35e-05; float16 tolerance "
                                       "rtol 0.01 atol 0.001, <1% used)",
                                       "1 passed, 0 failed"], "filtered run:\n" + out)
    wgk("test", PKG, "--case", "no_such_case", rc=1)
    # --json: the same verdicts, with the tolerance of each case (test.json's, else the dtype's default)
    out, _ = wgk("test", PKG, "--json")
    rep = json.loads(out)
    cases = {c["id"]: c for c in rep["cases"]}
    check(rep["passed"] == 5 and rep["failed"] == 0 and all(c["verdict"] == "pass" for c in rep["cases"]), out)
    f16 = cases.get("inline_f16", {})
    check(f16.get("tolerance", {}).get("dtype") == "float16" and f16["tolerance"]["rtol"] == 0.01
          and f16["tolerance"]["atol"] == 0.001 and 0 < f16["tolerance"]["used"] < 0.01
          and abs(f16["maxAbs"] - 2.34e-05) < 1e-7, "inline_f16 as JSON:\n" + out)
    check(cases.get("refuses_int32", {}).get("refusedAsExpected") is True, "a refusal as JSON:\n" + out)
    out, _ = wgk("test", PKG, "--list", "--json")
    check(json.loads(out)["cases"] == [c["id"] for c in json.load(open(os.path.join(PKG, "build", "webgpu",
                                                                                       "test.json")))["cases"]],
          "--list --json:\n" + out)
    # info --json: the manifest's ports and attributes, read here from manifest.json itself
    out, _ = wgk("info", PKG, "--json")
    info = json.loads(out)
    man = json.load(open(os.path.join(PKG, "build", "webgpu", "manifest.json")))
    check(info["opId"] == "test.Scale" and len(info["ports"]) == len(man["inputs"]) + len(man["outputs"])
          and len(info["variants"]) == len(man["variants"]),
          "info --json:\n" + out)

    # test: failures, wrong refusals, skips, and an element the kernel never writes
    bad = os.path.join(tmp, "bad")
    shutil.copytree(PKG, bad)
    doc = json.load(open(os.path.join(PKG, "build", "webgpu", "test.json")))
    cases = {c["id"]: c for c in doc["cases"]}
    wrong = dict(cases["inline_f32"], id="wrong_value")
    wrong["expected"] = {"y": {"dtype": "float32", "shape": [2, 2], "data": [[2, -4], [1.5, 0]]}}
    ran = dict(cases["inline_f32"], id="expected_refusal_ran", expectError="whatever")
    del ran["expected"]
    skip = dict(cases["inline_f32"], id="needs_matrix", requires=["chromium-experimental-subgroup-matrix"])
    doc["cases"] = [cases["inline_f32"], wrong, ran, skip]
    json.dump(doc, open(os.path.join(bad, "build", "webgpu", "test.json"), "w"))
    out, _ = wgk("test", bad, rc=1)
    check("FAIL wrong_value: y: worst element [2] (1, 0) got 1 want 1.5 (float32 rtol 1e-06 atol 1e-06); "
          "1 of 4 outside, 0 non-finite" in out, "FAIL line:\n" + out)
    check("FAIL expected_refusal_ran: expected a refusal containing 'whatever', but the call ran (elementwise)" in out,
          "refusal line:\n" + out)
    devices = json.loads(subprocess.run([WGK, "devices", "--json"], capture_output=True, text=True).stdout)
    has_matrix = "chromium-experimental-subgroup-matrix" in devices["adapters"][0]["features"]
    if has_matrix:
        check(out.strip().splitlines()[-1] == "2 passed, 2 failed", "closing line:\n" + out)
    else:
        check("SKIP needs_matrix: device lacks chromium-experimental-subgroup-matrix" in out, "SKIP line:\n" + out)
        check(out.strip().splitlines()[-1] == "1 passed, 2 failed, 1 skipped", "closing line:\n" + out)

    # a kernel that skips the last element: the NaN poison shows it
    tmpl = os.path.join(bad, "build", "webgpu", "scale.wgsl.jinja")
    text = open(tmpl).read().replace("if (i >= params.count)", "if (i + 1u >= params.count)")
    open(tmpl, "w").write(text)
    out, _ = wgk("test", bad, "--case", "inline_f32", rc=1)
    check(re.search(r"FAIL inline_f32: y: worst element \[3\] \(1, 1\) got nan want 0 .* 1 non-finite", out),
          "poison line:\n" + out)

    # info: the card's facts
    out, _ = wgk("info", PKG)
    for want in ["test.Scale  (ONNX since opset 1)", "verified: no", "input   X  keys: x  dtype T {float32, float16}",
                 "output  Y  keys: y", "scale  default 2.0", "tunables: WORKGROUP_SIZE=64",
                 "when  contract", "pass  main: scale.wgsl.jinja, bindings plain, dispatch threads count / workgroup"]:
        check(want in out, f"info lacks '{want}':\n{out}")
finally:
    shutil.rmtree(tmp)

for f in failures:
    print("FAILED:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
