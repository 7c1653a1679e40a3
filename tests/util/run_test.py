#!/usr/bin/python3
"""Runs one command-line test for ctest and turns what it needs and what it must print into an exit status.

usage: run_test.py [--need PATH]... [--gpu WGK] [--status N] [--expect REGEX]... [--reject REGEX]... -- COMMAND ARG...

  --need PATH     data the test reads: if PATH is missing the test is skipped (exit 77), never passed.
  --gpu WGK       the test runs on the GPU: `WGK devices --json` must list an adapter other than Dawn's Null
                  backend, else the test fails, or is skipped with WGK_ALLOW_NO_GPU=1 (tests/util/wgk_test.h).
  --status N      the exit status the command must have (default 0): 1 for a command that must refuse.
  --expect REGEX  the output (stdout and stderr together) must match (Python re.search, `.` matches newlines).
  --reject REGEX  the output must not match.

Under WGK_TIER=all (`make test-all`, CI) every skip above is a failure instead: that tier runs everything.

The command's exit status always counts: any other than --status fails the test (77 passes through as
skipped) even when the output matches, and so does a sanitizer report in the output. ctest's
PASS_REGULAR_EXPRESSION, by contrast, ignores the exit status, so a crash or a sanitizer report printed after
the expected line would pass; tests/CMakeLists.txt refuses it.
"""
import json, os, re, subprocess, sys

SKIP = 77
SANITIZER = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer")


TIER_ALL = os.environ.get("WGK_TIER") == "all"


def finish(status, message):
    if status == SKIP and TIER_ALL:
        print(f"FAIL: skipped ({message}), but WGK_TIER=all runs everything: a skip fails this tier", flush=True)
        sys.exit(1)
    print(("SKIP: " if status == SKIP else "FAIL: ") + message, flush=True)
    sys.exit(status)


def need_gpu(wgk):
    p = subprocess.run([wgk, "devices", "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        finish(1, f"{wgk} devices --json: exit {p.returncode}\n{p.stdout}{p.stderr}")
    adapters = json.loads(p.stdout)["adapters"]
    real = [a for a in adapters if a.get("backend") not in (None, "", "null")]
    if real:
        print(f"# adapter: {real[0].get('device') or real[0].get('description')} (backend {real[0]['backend']})")
        return
    allow = os.environ.get("WGK_ALLOW_NO_GPU") == "1"
    finish(SKIP if allow else 1,
           "no GPU adapter: Dawn found only its Null backend, so this GPU test cannot run. Install a Vulkan driver "
           "(mesa-vulkan-drivers: lavapipe), or set WGK_ALLOW_NO_GPU=1 to report GPU tests as skipped.")


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__)
    split = argv.index("--")
    opts, command = argv[:split], argv[split + 1:]
    needs, expects, rejects, gpu, status = [], [], [], None, 0
    i = 0
    while i < len(opts):
        flag, value = opts[i], opts[i + 1] if i + 1 < len(opts) else sys.exit(__doc__)
        if flag == "--need": needs.append(value)
        elif flag == "--gpu": gpu = value
        elif flag == "--status": status = int(value)
        elif flag == "--expect": expects.append(value)
        elif flag == "--reject": rejects.append(value)
        else: sys.exit(f"run_test.py: unknown option {flag}\n{__doc__}")
        i += 2
    if not command:
        sys.exit(__doc__)
    for path in needs:
        if not os.path.exists(path):
            finish(SKIP, f"{path} is missing: test data not available here")
    if gpu:
        need_gpu(gpu)
    sys.stdout.flush()
    # The output is passed on as it comes (a test that runs past ctest's TIMEOUT still shows how far it got) and
    # kept for the checks below.
    p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    chunks = []
    for line in p.stdout:
        chunks.append(line)
        sys.stdout.write(line.decode("utf-8", "replace"))
        sys.stdout.flush()
    p.wait()
    out = b"".join(chunks).decode("utf-8", "replace")
    if p.returncode == SKIP and status != SKIP:
        finish(SKIP, "the test reported itself skipped (exit 77)")
    if p.returncode != status:
        finish(1, f"exit status {p.returncode}" + (f" (signal {-p.returncode})" if p.returncode < 0 else "") +
               f", wanted {status}")
    if SANITIZER.search(out):
        finish(1, "sanitizer report in the output")
    for rx in expects:
        if not re.search(rx, out, re.S):
            finish(1, f"output does not match {rx!r}")
    for rx in rejects:
        m = re.search(rx, out, re.S)
        if m:
            finish(1, f"output matches {rx!r}: {m.group(0)[:200]!r}")
    print(f"# exit status {status}" + (", output as expected" if expects or rejects else ""))
    sys.exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
