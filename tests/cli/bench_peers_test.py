#!/usr/bin/python3
"""wgk bench --peer FILE / --reference: a column per peer in the default table (issue 35 item 6).

usage: bench_peers_test.py WGK SOURCE_DIR [--args-only]

--args-only (the quick tier): the peer files' checks only, every one refused before a GPU context. Without it, one
real bench case too: each peer column's figure and ratio are recomputed here from the peer files and from the
--json report of the same run (wgk's medians), so a cell that misreads the peer, compares with the wrong wgk
figure, or inverts the ratio fails.
"""
import json, os, re, shutil, subprocess, sys, tempfile

WGK, SRC = sys.argv[1], sys.argv[2]
ARGS_ONLY = "--args-only" in sys.argv[3:]
PKG = os.path.join(SRC, "kernels", "ai.onnx.RotaryEmbedding")
CASE = "decode_float32"
failures = []
tmp = tempfile.mkdtemp()


def check(cond, what):
    if not cond:
        failures.append(what)


def wgk(*args):
    p = subprocess.run([WGK, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def peer_file(name, doc):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))
    return path


ok_case = lambda ns: {"id": CASE, "status": "ok", "ns": {"median": ns, "p10": ns, "p90": ns, "n": 3}}
two = peer_file("two.json", {"peers": [
    {"peer": "fake-gpu", "kind": "gpu", "cases": [ok_case(1000.0)]},
    {"peer": "fake-failed", "kind": "e2e", "cases": [{"id": CASE, "status": "failed", "message": "it broke"}]}]})
one = peer_file("one.json", {"peer": "fake-e2e", "kind": "e2e", "cases": [ok_case(250000.0),
                                                                          {"id": "not_here", "status": "ok",
                                                                           "ns": {"median": 1.0}}]})
try:
    # Refusals: one line naming --peer, the file (line and column for bad JSON) and the rule; exit 1, no GPU work
    # (no "adapter:" line), before the package's cases are timed.
    bad = [
        ("kind.json", {"peer": "x", "kind": "cpu", "cases": [ok_case(1.0)]}, r"peer 'x': \"kind\" is 'cpu'"),
        ("json.json", '{"peer": "x",\n  "kind": }', r"json\.json:2:\d+: "),
        ("other.json", {"peer": "o", "kind": "e2e", "cases": [{"id": "prompt_q", "status": "ok", "ns": {"median": 5}}]},
         r"peer 'o' times no case of this package's bench\.json \(its cases: prompt_q\)"),
        ("noname.json", {"kind": "gpu", "cases": []}, r"\"peer\" must be a name"),
        ("median.json", {"peer": "m", "kind": "gpu", "cases": [{"id": CASE, "status": "ok", "ns": {"median": 0}}]},
         r"cases\[0\] needs .* a positive ns\.median"),
        ("empty.json", {"peers": []}, r"\"peers\" must be a non-empty array"),
    ]
    for name, doc, want in bad:
        rc, out, err = wgk("bench", PKG, "--case", CASE, "--peer", peer_file(name, doc))
        check(rc == 1 and re.search(r"^wgk bench: --peer", err) and re.search(want, err) and "adapter:" not in out,
              f"{name}: exit {rc}, wanted 1 and /{want}/\n{out}{err}")
    rc, out, err = wgk("bench", PKG, "--peer", two, "--peer", two)
    check(rc == 1 and "peer 'fake-gpu' given twice" in err, f"a peer twice: exit {rc}\n{err}")
    rc, out, err = wgk("bench", PKG, "--peer", os.path.join(tmp, "missing.json"))
    check(rc == 1 and "missing.json" in err, f"a missing file: exit {rc}\n{err}")
    rc, out, err = wgk("bench", PKG, "--first-call", "--peer", two)
    check(rc == 2 and "--peer" in err, f"--first-call with --peer: exit {rc}\n{err}")
    rc, out, err = wgk("bench", PKG, "--peer")
    check(rc == 2 and "--peer needs a value" in err, f"--peer without a file: exit {rc}\n{err}")

    if not ARGS_ONLY:
        report = os.path.join(tmp, "wgk.json")
        rc, out, err = wgk("bench", PKG, "--case", CASE, "--iterations", "2", "--peer", two, "--peer", one,
                           "--reference", "--json", report)
        check(rc == 0, f"bench with peers: exit {rc}\n{out}{err}")
        lines = out.splitlines()
        head = next((l for l in lines if l.split()[:2] == ["case", "variant"]), "")
        cols = re.split(r"\s{2,}", head.strip())
        want_cols = ["case", "variant", "GPU us", "e2e us", "GB/s", "% of copy", "fake-gpu us", "fake-failed us",
                     "fake-e2e us", "c-reference us"]
        check(cols == want_cols, f"header columns {cols}, wanted {want_cols}\n{out}")
        row = next((l for l in lines if l.startswith(CASE + " ")), "")
        cells = re.split(r"\s{2,}", row.strip())
        rep = json.load(open(report)) if os.path.exists(report) else {"cases": [{}]}
        c = rep["cases"][0]
        gpu, e2e, ref = c.get("gpuNs", {}).get("median"), c.get("e2eNs", {}).get("median"), \
            c.get("referenceNs", {}).get("median")
        check(gpu and e2e and ref, f"the report has the medians: {sorted(c)}")
        if len(cells) == len(want_cols) and gpu and e2e and ref:
            def cell(text, peer_ns, mine_ns, what):
                m = re.fullmatch(r"([0-9.]+) \(([0-9.]+)x\)", text)
                check(m and abs(float(m.group(1)) - peer_ns / 1e3) <= 0.05 + 1e-3 * peer_ns / 1e3
                      and abs(float(m.group(2)) - mine_ns / peer_ns) <= 0.005 + 1e-3 * mine_ns / peer_ns,
                      f"{what}: cell {text!r}, wanted {peer_ns / 1e3:.1f} ({mine_ns / peer_ns:.2f}x)")
            check(abs(float(cells[2]) - gpu / 1e3) <= 0.05 and abs(float(cells[3]) - e2e / 1e3) <= 0.05,
                  f"wgk's own columns {cells[2:4]} against the report {gpu}, {e2e}")
            cell(cells[6], 1000.0, gpu, "fake-gpu (kind gpu: beside GPU us)")
            check(cells[7] == "failed", f"a peer case that did not time shows its status: {cells[7]!r}")
            cell(cells[8], 250000.0, e2e, "fake-e2e (kind e2e: beside e2e us)")
            cell(cells[9], ref, e2e, "c-reference (e2e)")
        else:
            failures.append(f"one row of {len(want_cols)} cells:\n{row}\n{out}")
        key = next((l for l in lines if l.startswith("peers: ")), "")
        check("fake-gpu (GPU time, beside wgk's GPU us)" in key and "fake-e2e (end to end, beside wgk's e2e us)" in key
              and "below 1, wgk is faster" in key, f"the peers' key line:\n{out}")
        # --verbose: the same cells in one line under the case's detail
        rc, out, err = wgk("bench", PKG, "--case", CASE, "--iterations", "2", "--peer", two, "--verbose")
        check(rc == 0 and re.search(r"^  peers, us \(wgk / peer\): fake-gpu gpu [0-9.]+ \([0-9.]+x\), "
                                    r"fake-failed e2e failed$", out, re.M), f"--verbose peers line:\n{out}{err}")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

for f in failures:
    print("FAIL:", f)
print("bench peers:", "ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
