#!/usr/bin/python3
"""The one version rule (docs/hub.md, "Which version a name without one loads") through the CLI, against the stand-in
Hub (tests/hub/standin.py) serving webgpu-kernels/ai.onnx.RotaryEmbedding as branch v1 (the shipped package) and v2
(a copy recording version 2). A name without a version loads the newest version on this machine (the cache's or the
bundled copy's) and never fetches one nobody named; wgk download and wgk lock without one take the Hub's newest;
offline, the newest cached one without any request. Host only (wgk info, download, lock): no GPU.

usage: version_rule_test.py WGK SOURCE_DIR
"""
import json, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from standin import StandIn  # noqa: E402

WGK, SRC = sys.argv[1], os.path.abspath(sys.argv[2])
REPO = "webgpu-kernels/ai.onnx.RotaryEmbedding"
OP = REPO.split("/")[1]
PKG = os.path.join(SRC, "kernels", OP)
failures = []
tmp = tempfile.mkdtemp(prefix="wgk-version-rule-")


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def env_of(name, bundled=False, offline=False, cache=None):
    home = os.path.join(tmp, name)
    os.makedirs(home, exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("HF_TOKEN", "HF_HUB_OFFLINE", "HF_HUB_CACHE", "WGK_KERNEL_PATH", "XDG_CACHE_HOME",
                        "WGK_BUNDLED_KERNELS")}
    env.update(HOME=home, HF_HOME=os.path.join(home, "hf"), HF_ENDPOINT=hub.url, WGK_HUB_BACKOFF_MS="10",
               WGK_HUB_TIMEOUT="5")
    if not bundled:
        env["WGK_BUNDLED_KERNELS"] = "0"
    if offline:
        env["HF_HUB_OFFLINE"] = "1"
    if cache:
        env["HF_HUB_CACHE"] = cache
    return env


def wgk(env, *args, rc=0, requests=None):
    n0 = hub.count()
    p = subprocess.run([WGK, *args], capture_output=True, text=True, timeout=120, env=env)
    sent = hub.count() - n0
    what = f"wgk {' '.join(args)}"
    check(p.returncode == rc, f"{what}: exit {p.returncode}, wanted {rc}\n{p.stdout}{p.stderr}")
    if requests is not None:
        check(sent == requests, f"{what}: {sent} requests to the Hub, wanted {requests}")
    return p


def info(env, *args, requests=None):
    p = wgk(env, "info", *args, "--json", requests=requests)
    try:
        return json.loads(p.stdout)
    except ValueError:
        failures.append(f"info {args}: no JSON\n{p.stdout}{p.stderr}")
        return {}


hub = StandIn()
C1 = hub.add(REPO, PKG, branch="v1")
PKG2 = os.path.join(tmp, "pkg-v2")
shutil.copytree(PKG, PKG2)
meta = os.path.join(PKG2, "build", "webgpu", "metadata.json")
with open(meta) as f:
    doc = json.load(f)
doc["version"] = 2  # not a digested file: the copy stays verified
with open(meta, "w") as f:
    json.dump(doc, f, indent=2)
C2 = hub.add(REPO, PKG2, branch="v2")
hub.start()
try:
    # 1. Nothing on this machine: a load without a version fetches nothing and says how to name one (the flag, in
    #    the CLI; the C API and Python name the parameter beside it).
    e = env_of("main")
    p = wgk(e, "info", REPO, rc=1, requests=0)
    check("no version of it is on this machine" in p.stderr and "--version N" in p.stderr,
          "a load without a version, nothing local: the rule's message\n" + p.stderr)
    off = env_of("main", offline=True)
    p = wgk(off, "download", REPO, rc=1, requests=0)
    check("HF_HUB_OFFLINE is set and no version of " + REPO + " is in the cache" in p.stderr,
          "offline download without a version, nothing cached\n" + p.stderr)

    # 2. wgk download without a version: the Hub's newest branch, v2 (refs listing, then the files).
    p = wgk(e, "download", REPO)
    check(p.stdout.strip().endswith(C2 + "/build/webgpu"), "download without a version takes v2\n" + p.stdout + p.stderr)

    # 3. A load without a version: the newest cached, v2; offline with no request at all, online as REPO@v2 (the one
    #    request that follows the branch).
    j = info(off, REPO, requests=0)
    check(j.get("version") == 2 and C2 in j.get("package", ""), f"offline load without a version: cached v2\n{j}")
    j = info(off, OP, requests=0)
    check(j.get("version") == 2, f"a bare op id: the same rule\n{j}")
    j = info(e, REPO, requests=1)
    check(j.get("version") == 2, f"online load without a version: v2, as REPO@v2\n{j}")
    p = wgk(off, "download", REPO, requests=0)
    check(p.stdout.strip().endswith(C2 + "/build/webgpu"), "offline download without a version: the cached v2\n" + p.stdout)

    # 4. The bundled copy (v1) beside the cache (v2): the newer wins; v1 named: the bundled copy; an empty cache:
    #    the bundled copy, without a request.
    b_off = env_of("main", bundled=True, offline=True)
    j = info(b_off, REPO, requests=0)
    check(j.get("version") == 2 and C2 in j.get("package", ""), f"cache v2 over bundled v1\n{j}")
    j = info(b_off, REPO, "--version", "1", requests=0)
    check(j.get("package") == PKG, f"v1 named, not downloaded: the bundled copy\n{j}")
    empty = os.path.join(tmp, "empty-cache")
    b_empty = env_of("main", bundled=True, cache=empty)
    j = info(b_empty, REPO, requests=0)
    check(j.get("version") == 1 and j.get("package") == PKG, f"empty cache: the bundled v1, no request\n{j}")
    # A version the bundled copy does not hold is not refused by it: the cache or the Hub answers.
    p = wgk(env_of("main", bundled=True, offline=True, cache=empty), "info", REPO, "--version", "2", rc=1, requests=0)
    check("HF_HUB_OFFLINE is set and v2" in p.stderr and "the bundled copy is contract version 1" in p.stderr,
          "bundled v1 does not answer v2, and the message says what it holds\n" + p.stderr)
    j = info(b_empty, REPO + "@v2")
    check(j.get("version") == 2 and C2 in j.get("package", ""), f"v2 named: fetched from the Hub\n{j}")

    # 5. wgk lock without a version pins the Hub's newest.
    p = wgk(e, "lock", REPO, OP + "@v1")
    kernels = json.loads(p.stdout or "{}").get("kernels", [{}, {}])
    check([k.get("version") for k in kernels] == [2, 1] and kernels[0].get("commit") == C2,
          f"lock REPO (newest, v2) and OP@v1\n{p.stdout}{p.stderr}")
finally:
    hub.stop()
    shutil.rmtree(tmp, ignore_errors=True)

for f in failures:
    print("FAIL:", f)
print(f"version rule: {len(failures)} failures")
sys.exit(1 if failures else 0)
