#!/usr/bin/python3
"""Every package's fast cases, for the quick test tier: each kernels/*/ found when the test runs, its test.json
cases whose inputs hold at most LIMIT elements (by their declared shapes; refusal cases included), run with
`wgk test` on the machine's adapter and checked against wgk's double references. Every picked case must pass:
none may fail or be skipped. The whole of each test.json runs in the full tier (packages_suite_KofN,
tests/packages).

usage: fast_cases.py WGK KERNELS_DIR [LIMIT]   (LIMIT: default 65536 elements)

The picked cases run from a copy of the package without its metadata.json (a test.json with fewer cases no
longer matches its digest; the copy is an unverified local package, as `wgk test` says) under $WGK_TEST_TMP.
"""
import json, math, os, re, shutil, subprocess, sys


def elements(case):
    n = 0
    for port in case.get("inputs", {}).values():
        if isinstance(port, dict) and "shape" in port:
            n += math.prod(port["shape"])
    return n


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    wgk, kernels = argv[0], argv[1]
    limit = int(argv[2]) if len(argv) > 2 else 65536
    tmp = os.environ.get("WGK_TEST_TMP") or sys.exit("WGK_TEST_TMP is not set (ctest sets it)")
    packages = sorted(d for d in os.listdir(kernels) if os.path.isfile(os.path.join(kernels, d, "build/webgpu/test.json")))
    if not packages:
        print(f"FAIL: no package with a build/webgpu/test.json under {kernels}")
        return 1
    failures = 0
    for op in packages:
        src = os.path.join(kernels, op)
        with open(os.path.join(src, "build/webgpu/test.json")) as f:
            tests = json.load(f)
        cases = tests.get("cases", [])
        fast = [c for c in cases if elements(c) <= limit]
        if not fast:
            print(f"FAIL: {op}: none of its {len(cases)} cases has at most {limit} input elements")
            failures += 1
            continue
        copy = os.path.join(tmp, "fast", op)
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(src, copy)
        meta = os.path.join(copy, "build/webgpu/metadata.json")
        if os.path.exists(meta):
            os.remove(meta)
        tests["cases"] = fast
        with open(os.path.join(copy, "build/webgpu/test.json"), "w") as f:
            json.dump(tests, f, indent=1)
        print(f"# {op}: {len(fast)} of {len(cases)} cases (at most {limit} input elements)", flush=True)
        p = subprocess.run([wgk, "test", copy], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        sys.stdout.write(p.stdout)
        m = re.search(r"^(\d+) passed, (\d+) failed(, (\d+) skipped)?$", p.stdout, re.M)
        if p.returncode != 0 or not m or int(m.group(1)) != len(fast) or m.group(3):
            print(f"FAIL: {op}: exit {p.returncode}, wanted all {len(fast)} picked cases passed, none failed or skipped")
            failures += 1
        else:
            print(f"ok: {op}: {len(fast)} fast cases passed")
    print(f"packages' fast cases: {len(packages) - failures} of {len(packages)} packages ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
