#!/usr/bin/python3
"""wgk tune / the tuning cache / wgk bench --json on the RotaryEmbedding package's decode case.

usage: tune_bench_test.py WGK SOURCE_DIR

No timing assertions: the tuner's choice depends on timing, so the test checks what it tried (every value
correct), then pre-seeds the cache with a value neither the default nor the tuner's and checks that a fresh
process's call renders exactly that @workgroup_size and still computes RoPE correctly.
"""
import json, os, re, shutil, subprocess, sys, tempfile
import numpy as np

WGK, SRC = sys.argv[1], sys.argv[2]
PKG = os.path.join(SRC, "kernels", "ai.onnx.RotaryEmbedding")
CASE = "decode_float32"
failures = []
tmp = tempfile.mkdtemp()
CACHE = os.path.join(tmp, "cache", "wgk", "tuning.json")
ENV = dict(os.environ, WGK_TUNING_CACHE=CACHE)


def wgk(*args, rc=0):
    p = subprocess.run([WGK, *args], capture_output=True, text=True, timeout=600, env=ENV)
    if p.returncode != rc:
        failures.append(f"wgk {' '.join(args)}: exit {p.returncode}, wanted {rc}\n{p.stdout}{p.stderr}")
    return p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)


def rope(x, cos, sin, pos):  # NeoX halves, 4D X (B, N, S, H), 2D caches at position ids
    half = x.shape[-1] // 2
    c = cos[pos][:, None, :, :].astype(np.float64)
    s = sin[pos][:, None, :, :].astype(np.float64)
    x1, x2 = x[..., :half].astype(np.float64), x[..., half:].astype(np.float64)
    return np.concatenate([c * x1 - s * x2, s * x1 + c * x2], axis=-1)


def run_call(seq, *extra):
    rng = np.random.default_rng(seq)
    x = rng.uniform(-1, 1, (1, 32, seq, 128)).astype(np.float32)
    ang = rng.uniform(-3, 3, (4096, 64))
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    pos = np.arange(4096 - seq, 4096, dtype=np.int64)[None, :]
    files = {}
    for name, a in (("x", x), ("cos", cos), ("sin", sin), ("positionIds", pos)):
        files[name] = os.path.join(tmp, f"{name}{seq}.npy")
        np.save(files[name], a)
    out_dir = os.path.join(tmp, f"out{seq}")
    out, _ = wgk("run", PKG, *[a for n, f in files.items() for a in ("--in", f"{n}={f}")], "--out", out_dir,
                 "--verbose", "--wgsl", *extra)
    y_path = os.path.join(out_dir, "y.npy")
    if os.path.exists(y_path):
        y = np.load(y_path)
        check(np.allclose(y, rope(x, cos, sin, pos), rtol=1e-5, atol=1e-6), f"RoPE values wrong (seq {seq} {extra})")
    return out


try:
    # tune: every candidate tried is correct and the best is stored under this device, op, variant and shape
    out, err = wgk("tune", PKG, "--case", CASE, "--iterations", "3")
    tried = re.findall(rf"^tune {CASE}: WORKGROUP_SIZE=(\d+) ", err, re.M)
    # candidates around the default 256: from 256 / 16 = 16 up to the device's invocation limit
    check(len(set(tried)) >= 2 and "16" in tried and "8" not in tried,
          "the sweep tried workgroup sizes from 16:\n" + err)
    check("rejected:" not in err and re.search(r", 0 rejected$", out, re.M), "every candidate correct:\n" + out + err)
    # a value that plans the very GPU work of one timed before (ROW_BITS above what one row needs) is not timed again
    same = re.search(r"candidates \((\d+) the same GPU work as one timed before\)", out)
    check(same and int(same.group(1)) >= 1 and "(the same GPU work as one timed before)" in err,
          "candidates with an equal plan share a time:\n" + out + err)
    doc = json.load(open(CACHE))
    entries = [e for e in doc["entries"] if e["op"] == "ai.onnx.RotaryEmbedding"]
    check(doc["schema"] == 1 and len(entries) == 1, f"one cache entry: {doc}")
    e = entries[0]
    best = e["tunables"]["WORKGROUP_SIZE"]
    check(str(best) in tried, f"stored value {best} was tried")
    check(e["variant"] == "rank4_cache2_pos" and e["case"] == CASE, f"entry keys: {e}")
    check(e["shape"] == "x:float32[1,32,1,128] cos:float32[4096,64] sin:float32[4096,64] "
          "positionIds:int64[1,1]", "shape key: " + e["shape"])  # spec 2.1: ports keyed by bind key
    out, _ = wgk("tune", "--show")
    check(f"WORKGROUP_SIZE={best}" in out and CASE in out, "--show lists the entry:\n" + out)
    out, _ = wgk("tune", "--show", "--json")  # the same entries as the cache file holds them
    shown = json.loads(out)
    check(shown["cache"] == CACHE and shown["entries"] == json.load(open(CACHE))["entries"], "--show --json:\n" + out)

    # the stored value is what a fresh process's call uses: pre-seed one that neither default nor tuner chose
    seeded = next(v for v in (64, 128, 32) if v not in (256, best))
    e["tunables"]["WORKGROUP_SIZE"] = seeded
    json.dump(doc, open(CACHE, "w"))
    out = run_call(1)
    # the tunables line lists every tunable (WORKGROUP_SIZE, ROW_BITS, THREAD_BITS), then where they came from
    check(f"@workgroup_size({seeded})" in out and re.search(rf"WORKGROUP_SIZE={seeded} .*\(tuning cache\)", out),
          f"seeded {seeded} used:\n" + out)
    # wgk explain plans through the library as the call does (issue 38 item 5): the same tuned value, said so;
    # before, explain built its own planner, read no tuning cache and showed the default 256
    shapes = ["--shape", "x=1,32,1,128", "--shape", "cos_cache=4096,64", "--shape", "sin_cache=4096,64",
              "--shape", "position_ids=1,1"]
    out, _ = wgk("explain", PKG, *shapes)
    check(re.search(rf"^tunables WORKGROUP_SIZE={seeded} .*\(tuning cache\)$", out, re.M), "explain, tuned:\n" + out)
    out, _ = wgk("explain", PKG, *shapes, "--json")
    j = json.loads(out)
    check(j["tunables"]["WORKGROUP_SIZE"] == seeded and j["tunablesFrom"] == "tuning cache", "explain --json: " + out)
    out, _ = wgk("render", PKG, *shapes)
    check(f"@workgroup_size({seeded})" in out, "render renders the tuned plan:\n" + out[:400])
    out, _ = wgk("explain", PKG, *shapes, "--tunable", "WORKGROUP_SIZE=1024")
    check(re.search(r"^tunables WORKGROUP_SIZE=1024 ", out, re.M), "explain, the call's own tunable wins:\n" + out)
    # another shape has no entry: the manifest default; a value the call sets wins over the cache
    out = run_call(2)
    check("@workgroup_size(256)" in out and "(call and manifest defaults)" in out, "other shape, default:\n" + out)
    out = run_call(1, "--tunable", "WORKGROUP_SIZE=1024")
    check("@workgroup_size(1024)" in out, "the call's own tunable wins:\n" + out)
    # a stored value planning refuses (past the device limit) is ignored, the call still runs with the default
    e["tunables"]["WORKGROUP_SIZE"] = 1 << 20
    json.dump(doc, open(CACHE, "w"))
    out = run_call(1)
    check("@workgroup_size(256)" in out, "an impossible stored value is ignored:\n" + out)
    out, _ = wgk("explain", PKG, *shapes)
    check(re.search(r"^tunables WORKGROUP_SIZE=256 .*\(call and manifest defaults\)$", out, re.M),
          "explain ignores it as the call does:\n" + out)

    # bench --json: the report parses and holds every field
    path = os.path.join(tmp, "bench.json")
    # --off-irq-cpu: a GPU's interrupt CPUs are left (bench/affinity.h, tested in test_bench); a CPU adapter has none
    out, _ = wgk("bench", PKG, "--case", CASE, "--iterations", "3", "--json", path, "--off-irq-cpu", "--verbose")
    rep = json.load(open(path))
    check(rep["command"][:2] == ["wgk", "bench"] and rep["package"] == "ai.onnx.RotaryEmbedding", "command, package")
    check({"vendor", "architecture", "device", "description", "features", "limits"} <= set(rep["device"]), "device")
    ce = rep["ceilings"]
    check(ce["copy"]["gbps"] > 0 and ce["fma"]["gflops"] > 0 and ce["copy"]["wallNs"]["n"] == 5, f"ceilings {ce}")
    if ce["timestampQueries"]:
        check(ce["copy"]["timestampNs"]["n"] == 10 and ce["fma"]["timestampNs"]["n"] == 10, "timestamps per dispatch")
    cpu = rep["device"].get("adapterType") == "cpu"
    check(ce["timestampsUsed"] == (ce["timestampQueries"] and not cpu), f"timestamps used: {ce['timeSource']}")
    variants = ce["copy"]["variants"]
    check([v["vec4PerThread"] for v in variants] == [1, 2, 4, 8], f"copy variants {variants}")
    check(ce["copy"]["gbps"] == max(v["gbps"] for v in variants)
          and ce["copy"]["vec4PerThread"] == max(variants, key=lambda v: v["gbps"])["vec4PerThread"], "best copy kept")
    for k in ("copy", "fma"):  # the flag says what the figures say: timestamps within the wall of back-to-back dispatches
        t = ce[k].get("timestampNs")
        holds = t is None or t["median"] <= ce[k]["wallNs"]["median"] * 1.05
        check(ce[k]["timestampsConsistent"] == holds and (ce[k]["reason"] == "") == holds
              and ce[k]["consistent"] == (holds or not ce["timestampsUsed"]), f"{k} consistency flags: {ce[k]}")
    for k in ("upload", "download"):
        t = ce.get(k, {})
        check(set(t) == {"bytes", "ns", "gbps"} and t["bytes"] > 0 and t["gbps"] > 0 and t["ns"]["n"] > 0
              and abs(t["gbps"] - t["bytes"] / t["ns"]["median"]) < 1e-9 * t["gbps"] + 1e-12, f"ceilings.{k}: {t}")
    sw = ce.get("submitWait", {})  # the bare submit + wait of an empty dispatch (issue 14 item 3's reference)
    check(set(sw) == {"ns"} and sw["ns"]["n"] == 200 and sw["ns"]["median"] > 0, f"ceilings.submitWait: {sw}")
    ep = ce.get("emptyPass")  # that dispatch in its own timed pass: the least a timed pass reads
    check((ep is not None) == ce["timestampQueries"] and (ep is None or (set(ep) == {"ns"} and ep["ns"]["n"] == 200)),
          f"ceilings.emptyPass: {ep}")
    (c,) = rep["cases"]
    # issue 14's goals, computed from the figures of the same report
    g = c["goals"]
    # the transfer ceilings timed again beside the case; each direction's floor at the faster of the two
    tb = c.get("transfersBeside", {})
    check(set(tb) == {"upload", "download"} and all(tb[k]["bytes"] == ce[k]["bytes"] and tb[k]["gbps"] > 0 for k in tb),
          f"transfersBeside: {tb}")
    up, down = (max(ce[k]["gbps"], tb[k]["gbps"]) for k in ("upload", "download"))
    floor = c["inputBytes"] / up + c["outputBytes"] / down
    moved = c["e2eNs"]["median"] - c["residentNs"]["median"]
    at_beside = moved / (c["inputBytes"] / tb["upload"]["gbps"] + c["outputBytes"] / tb["download"]["gbps"])
    # given only where the end-to-end median exceeds the resident one (on an idle machine the two can cross)
    if at_beside > 0:
        check(abs(c["goals"]["transfer"].get("ratioAtBesideCeilings", 0) - at_beside) <= 1e-9 * abs(at_beside),
              f"ratio at the beside ceilings: {c['goals']['transfer']}")
    else:
        check("ratioAtBesideCeilings" not in c["goals"]["transfer"],
              f"ratio at the beside ceilings given for {moved} ns moved: {c['goals']['transfer']}")
    t = g["transfer"]
    check(abs(t["floorNs"] - floor) <= 1e-9 * floor and abs(t["e2eMinusResidentNs"] - moved) <= 1e-6
          and abs(t["ratio"] - moved / floor) <= 1e-9 * abs(moved / floor) + 1e-12 and t["goal"] == 1.25
          and t["met"] == (t["ratio"] <= 1.25) and t["uploadGbps"] == up and t["downloadGbps"] == down
          and t["ceilingsTimed"].endswith(": beside" if (up, down) != (ce["upload"]["gbps"], ce["download"]["gbps"])
                                          else ": the start"), f"goals.transfer: {t}")
    # the overhead goal's bare submit + wait is the one timed after each resident call (the same moments)
    bb = c.get("bareBesideNs", {})
    check(set(bb) == {"median", "p10", "p90", "n"} and bb["n"] == c["residentNs"]["n"] and bb["median"] > 0,
          f"bareBesideNs: {bb}")
    o = g["overhead"]
    ratio = c["residentNs"]["median"] / bb["median"]
    check(abs(o["ratio"] - ratio) <= 1e-9 * ratio and o["submitWaitNs"] == bb["median"] and o["goal"] == 1.3
          and o["submitWaitTimed"] == "beside the resident calls" and o["met"] == (ratio <= 1.3), f"goals.overhead: {o}")
    check("  transfer: e2e - resident " in out and "  overhead: resident " in out, "the table shows the goals:\n" + out)
    check(c["id"] == CASE and c["status"] == "ok" and c["variant"] == "rank4_cache2_pos", f"case {c}")
    check(c["bytes"] == 33288 and c["flops"] == 12288 and c["bytesGiven"] and c["inputSets"] == 3, f"counts {c}")
    check(c["repeats"] == 3, "three repeats")
    for k in ("gpuNs", "batchNs", "residentNs", "e2eNs"):
        n = 3 if k == "e2eNs" else 9  # 3 iterations; gpu, batch and resident pooled over the 3 repeats
        # a short call gets more: resident up to 1000 a repeat, batch samples (the GPU figure here) up to 100
        most = {"residentNs": 3000, "batchNs": 300, "gpuNs": 300}.get(k, n)
        ok = c[k]["n"] == n or (c[k]["n"] % 3 == 0 and 9 <= c[k]["n"] <= most)
        ok = ok or (k == "e2eNs" and 3 <= c[k]["n"] <= 200)  # a short e2e call: towards 200 samples
        check(set(c[k]) == {"median", "p10", "p90", "n"} and ok and c[k]["median"] > 0, f"{k}: {c[k]}")
    # the resident-call breakdown (issue 14): the resident series split at wgk_call_run's return, a lone timed
    # call's parts, the warm timestamps, the floors of the same report
    b = c["breakdown"]
    check(b["residentNs"] == c["residentNs"] and b["runNs"]["n"] == b["waitNs"]["n"] == c["residentNs"]["n"]
          and 0 < b["runNs"]["median"] and 0 < b["waitNs"]["median"], f"breakdown split: {b}")
    check(b["floor"].get("submitWaitNs") == sw["ns"]["median"]
          and b["floor"].get("emptyPassNs") == (ep["ns"]["median"] if ep else None), f"breakdown floors: {b}")
    if ce["timestampQueries"]:
        tc = b["timedCall"]
        check(tc["wallNs"] == c["timedCallNs"] and tc["runNs"]["n"] == tc["gpuNs"]["n"] == tc["spanNs"]["n"] == 9
              and tc["gpuNs"]["median"] <= tc["spanNs"]["median"] + 1e-9
              and abs(tc["gapNs"] - (tc["spanNs"]["median"] - tc["gpuNs"]["median"])) < 1e-6
              and b["warm"]["gpuNs"] == c["timestamps"]["ns"] and b["warm"]["spanNs"] == c["timestamps"]["spanNs"]
              and b["timestampsTrusted"] == c["gpuTimestamps"], f"breakdown timed call: {b}")
    else:
        check("timedCall" not in b and "warm" not in b, f"no timestamps, no timed breakdown: {b}")
    check("  us: resident " in out, "the table shows the breakdown:\n" + out)
    # per-pass timestamps (issue 14): each pass's share of the timestamps, named, sampled as often as the total
    passes = c.get("passes")
    if ce["timestampQueries"]:
        ts = c["timestamps"]["ns"]
        check(isinstance(passes, list) and len(passes) >= 1
              and all(set(p) == {"name", "gpuNs"} and p["name"] and "/" not in p["name"]
                      and set(p["gpuNs"]) == {"median", "p10", "p90", "n"} and p["gpuNs"]["n"] == ts["n"]
                      and 0 <= p["gpuNs"]["median"] <= ts["p90"] for p in passes)
              and len({p["name"] for p in passes}) == len(passes), f"passes: {passes}")
        if len(passes) == 1:  # one pass: its share is the whole call's timestamps
            check(passes[0]["gpuNs"] == ts, f"one pass's time is the call's: {passes} {ts}")
        check("  passes (timestamps" in out and all(f" {p['name']} " in out for p in passes),
              "the table shows the passes:\n" + out)
    else:
        check(passes == [], f"no timestamps, no passes: {passes}")
    for k in ("gbps", "gflops", "bandwidthRatio", "computeRatio", "bandwidthFloorNs", "computeFloorNs"):
        check(isinstance(c.get(k), float), f"{k} in the case")
    # the same call in steps, and where its time goes: two positive parts (inputs; the call with its outputs read),
    # none past the steps' slowest sample
    parts = c.get("e2eParts") or {}
    check("readNs" not in parts, f"the outputs are read in the call's submission, no part of their own: {parts}")
    steps = parts.get("stepsNs", {})
    check(steps.get("median", 0) > 0, f"e2eParts.stepsNs: {parts}")
    for k in ("uploadNs", "runNs"):
        med = parts.get(k, {}).get("median", -1)
        check(0 < med <= steps.get("p90", 0) * 1.5, f"e2eParts.{k} {med} against the steps {steps}")
    # the copy kernels at the case's own size: at least its bytes moved, and the ratio is the case's GB/s over theirs
    cat = c.get("copyAtSize") or {}
    check(cat.get("bytes", 0) >= c["bytes"] and cat.get("gbps", 0) > 0 and cat.get("ns", {}).get("median", 0) > 0,
          f"copyAtSize in the case: {cat}")
    check(abs(cat.get("bandwidthRatio", -1) - c["gbps"] / cat.get("gbps", 1)) < 1e-9, f"copyAtSize ratio: {cat}")
    # only the ceiling's best variant and its neighbours in 1, 2, 4, 8 are timed at the case's size
    near = [1, 2, 4, 8].index(ce["copy"]["vec4PerThread"])
    check(cat.get("vec4PerThread") in [1, 2, 4, 8][max(near - 1, 0):near + 2],
          f"copyAtSize variant {cat.get('vec4PerThread')} near the ceiling's {ce['copy']['vec4PerThread']}")
    # consistency: the flag and its reason say exactly what the figures say (not how fast anything is)
    gpu, res, batch = c["gpuNs"]["median"], c["residentNs"]["median"], c["batchNs"]["median"]
    holds = gpu <= res if c["gpuTimestamps"] else gpu <= res * 1.05  # the batch figure: two wall times, noise apart
    if c["gpuTimestamps"]:  # against the submissions the timestamps timed the last call of; the lone timed call's own
        tc, wall = c["breakdown"]["timedCall"], c["timedCallNs"]["median"]
        holds = (holds and gpu <= c["timestamps"]["batchNs"]["median"] * 1.05 and tc["gpuNs"]["median"] <= wall
                 and tc["spanNs"]["median"] <= wall)
    else:
        check(gpu == batch and "batch" in c["gpuSource"], "without usable timestamps gpu is the batch figure")
    check(c["consistent"] == holds and (c["reason"] == "") == holds, f"consistent flag: {c['consistent']} {c['reason']}")
    check(c["gpuTimestamps"] == ce["timestampsUsed"], "the case uses timestamps as the ceilings do")
    for k in ("gpu", "batch", "resident"):
        meds = c["repeatMediansNs"][k]
        spread = (max(meds) - min(meds)) / min(meds)
        check(len(meds) == 3 and abs(c["repeatSpread"][k] - spread) < 1e-9, f"spread of {k}: {meds}")
    drift = c["overTimeSpread"]  # each series' thirds in time order: the drift its dealt repeats share
    check(all(isinstance(drift[k], float) and drift[k] >= 0 for k in ("gpu", "batch", "resident")), f"drift: {drift}")
    check(c["residentNs"]["n"] % 3 == 0 and c["batchNs"]["n"] % 3 == 0, "one series dealt into 3 repeats")
    check("repeats (dealt in turn)" in out and "over time (thirds of each series)" in out, "table shows the drift")
    h = c["host"]  # the load average while the case ran, and the cores: a loaded host is named as the cause
    check(h["cores"] >= 1 and isinstance(h["loadAverage"], float), f"host: {h}")
    check(isinstance(h["gpuInterruptCpu"], int) and 0 <= h["residentWaitsOnIt"] <= 1, f"interrupt CPU: {h}")
    check((h["gpuInterruptCpu"] >= 0) == ("the GPU's interrupts went to CPU" in out), "the table names it")
    check((h["keptOffCpus"] == "") == cpu and ("a CPU adapter takes no interrupts; no thread moved" in out) == cpu,
          f"--off-irq-cpu: {h}")
    if not c["repeatsAgree"]:
        check(("the host's load average was" in c["repeatsReason"]) == (h["loadAverage"] > h["cores"]),
              f"load note: {c['repeatsReason']} {h}")
    agree = all(c["repeatSpread"][k] <= 0.05 for k in ("gpu", "batch", "resident"))
    check(c["repeatsAgree"] == agree and (c["repeatsReason"] == "") == agree, f"repeats flag: {c['repeatsReason']}")
    if not c["consistent"]:
        check("INCONSISTENT: " + c["reason"] in out, "the table shows the inconsistency:\n" + out)
    if not c["repeatsAgree"]:
        check("REPEATS DISAGREE: " in out, "the table shows the disagreement:\n" + out)
    check(re.search(rf"^{CASE}\s+rank4_cache2_pos\s", out, re.M), "table row:\n" + out)

    # --first-call (issue 14 item 6): the phases of this process's first call, and the persistent pipeline cache
    # as two fresh processes see it: the first stores, the second only loads (compiles nothing). Not timed.
    fc_env = dict(ENV, XDG_CACHE_HOME=os.path.join(tmp, "fc-cache"), HOME=tmp)
    fc = []
    for i in range(2):
        path = os.path.join(tmp, f"first{i}.json")
        p = subprocess.run([WGK, "bench", PKG, "--first-call", "--case", CASE, "--json", path], capture_output=True,
                           text=True, timeout=600, env=fc_env)
        check(p.returncode == 0 and "first call: " in p.stdout and f"case: {CASE}" in p.stdout,
              f"--first-call {i}: exit {p.returncode}\n{p.stdout}{p.stderr}")
        fc.append(json.load(open(path)) if os.path.exists(path) else {"firstCall": {}})
    f0, f1 = fc[0]["firstCall"], fc[1]["firstCall"]
    check(fc[0].get("case") == CASE and set(f0.get("phases", {})) == {
        "context", "load", "inputs", "prepare", "run", "wait", "read", "secondCall"}, f"first-call json: {fc[0]}")
    ph = f0.get("phases", {})
    call = sum(ph[k]["wallNs"] for k in ("load", "prepare", "run", "wait", "read")) if ph else -1
    check(ph and abs(f0["callNs"] - call) <= 1e-6 * call and f0["shaders"] >= 1 and f0["pipelines"] >= 1
          and all(v["wallNs"] > 0 and v["cpuNs"] >= 0 for v in ph.values()), f"first-call phases: {f0}")
    c0, c1 = f0.get("pipelineCache", {}), f1.get("pipelineCache", {})
    check(c0.get("loaded") == 0 and c0.get("stored", 0) > 0, f"the first process stores: {c0}")
    check(c1.get("loaded", 0) > 0 and c1.get("missed") == 0 and c1.get("stored") == 0,
          f"the second process only loads: {c1}")
    wgk("bench", PKG, "--first-call", "--iterations", "3", rc=2)  # one call: --iterations does not apply

    # the default table, for people: a header, one line per case with the figures it names, no lab vocabulary
    out, _ = wgk("bench", PKG, "--case", CASE, "--iterations", "2")
    lines = out.splitlines()
    head = next((i for i, l in enumerate(lines) if l.split()[:2] == ["case", "variant"]), None)
    check(head is not None and lines[head].split()[2:] == ["GPU", "us", "e2e", "us", "GB/s", "%", "of", "copy"],
          "short table header:\n" + out)
    if head is not None:
        row = lines[head + 1].split()
        check(len(row) == 6 and row[0] == CASE and row[5].endswith("%"), "one row per case:\n" + out)
    for lab in ("repeats (dealt", "MISSED", "goal", "p10-p90", "breakdown", "us: "):
        check(lab not in out, f"no lab detail ({lab!r}) without --verbose:\n" + out)
    wgk("bench", PKG, "--first-call", "--off-irq-cpu", rc=2)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

for f in failures:
    print("FAIL:", f)
print("tune/bench:", "ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
