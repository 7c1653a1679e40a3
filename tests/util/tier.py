#!/usr/bin/python3
"""Runs one test tier with ctest and says what it ran, how long it took, and what was skipped.

usage: tier.py quick|all BUILD_DIR [CTEST_ARG...]

  quick  every test but those labelled `slow` (`make test`): the unit tests, every package's fast cases on the
         machine's adapter, the ONNX conformance data, the Python binding, the docs' examples. Target: 5 minutes
         on 2 cores.
  all    every test (`make test-all`, what CI runs), with WGK_TIER=all in the tests' environment: there a skip
         is a failure (tests/util/wgk_test.c, tests/util/run_test.py), and this script fails the tier on any
         test that ctest still reports as skipped (exit 77 from a program outside those helpers).

The tiers are ctest labels (docs/testing.md): `ctest -LE slow` is the quick tier, plain `ctest` the whole.
Extra arguments go to ctest (e.g. -j 2, -R NAME). Exit status: ctest's, or 1 when the all tier saw a skip.
"""
import os, re, subprocess, sys, time

TIERS = {
    "quick": ["-LE", "slow"],
    "all": [],
}


def optional_tests(build):
    """Tests labelled `optional`: they need a tool Debian does not package (huggingface_hub), so even the all
    tier lets them skip, printing why."""
    out = subprocess.run(["ctest", "-N", "-L", "optional"], cwd=build, capture_output=True, text=True).stdout
    return set(re.findall(r"Test\s+#\d+: (\S+)", out))


def skip_reasons(build, names):
    """Each skipped test's SKIP lines, from ctest's log (ctest does not print a skipped test's output)."""
    try:
        with open(os.path.join(build, "Testing", "Temporary", "LastTest.log"), errors="replace") as f:
            log = f.read()
    except OSError:
        return [(n, "(no ctest log to read the reason from)") for n in names]
    out = []
    for name in names:
        m = re.search(r"^\d+/\d+ Test: " + re.escape(name) + r"\n(.*?)(?=^\d+/\d+ Testing: |\Z)", log, re.S | re.M)
        lines = [l.strip() for l in (m.group(1).splitlines() if m else []) if "SKIP:" in l]
        out.append((name, "; ".join(lines) if lines else "(it printed no SKIP line: see Testing/Temporary/LastTest.log)"))
    return out


def main(argv):
    if len(argv) < 2 or argv[0] not in TIERS:
        sys.exit(__doc__)
    tier, build, extra = argv[0], argv[1], argv[2:]
    env = dict(os.environ)
    if tier == "all":
        env["WGK_TIER"] = "all"
    else:
        env.pop("WGK_TIER", None)
    cmd = ["ctest", "--output-on-failure", "--no-tests=error"] + TIERS[tier] + extra
    print(f"# tier {tier}: {' '.join(cmd)} (in {build})", flush=True)
    start = time.monotonic()
    p = subprocess.Popen(cmd, cwd=build, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         errors="replace")
    skipped, ran = [], 0
    for line in p.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        m = re.match(r"\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*(.*)", line)
        if m:
            ran += 1
            if "Skipped" in m.group(2):
                skipped.append(m.group(1))
    status = p.wait()
    took = time.monotonic() - start
    print(f"# tier {tier}: {ran} tests in {int(took // 60)} min {int(took % 60)} s, ctest exit {status}")
    if skipped:
        print(f"# tier {tier}: {len(skipped)} skipped: {', '.join(skipped)}")
        for name, why in skip_reasons(build, skipped):
            print(f"#   {name}: {why}")
        required = [n for n in skipped if n not in optional_tests(build)]
        if tier == "all" and required:
            print("FAIL: the all tier runs everything: a skipped test fails it (its output above says why)")
            return status or 1
        if tier == "all":
            print("# (only tests labelled optional skipped: each needs a tool Debian does not package, named above)")
            return status
        print("# (a skip is allowed here, never in `make test-all`)")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
