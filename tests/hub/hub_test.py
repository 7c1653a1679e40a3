#!/usr/bin/python3
"""The Hub client against the stand-in (tests/hub/standin.py) on 127.0.0.1: cache layout, offline, one request
for a cached branch, none for a cached commit, trust, token, every fault mode, two processes at once, lockfiles,
wgk cache ls/verify/rm, Ctrl-C. Every run has its own HF_HOME / HF_HUB_CACHE / HOME in a temp dir.

usage: hub_test.py WGK SOURCE_DIR [--no-gpu]
"""
import hashlib, base64, json, os, shutil, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from standin import StandIn, LFS_MIN, git_blob_id  # noqa: E402

WGK, SRC = sys.argv[1], os.path.abspath(sys.argv[2])
GPU = "--no-gpu" not in sys.argv
REPO = "webgpu-kernels/ai.onnx.RotaryEmbedding"
PKG = os.path.join(SRC, "kernels", "ai.onnx.RotaryEmbedding")
failures = []
tmp = tempfile.mkdtemp(prefix="wgk-hub-test-")


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def fresh_env(name, **extra):
    home = os.path.join(tmp, name)
    os.makedirs(home, exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("HF_TOKEN", "HF_HUB_OFFLINE", "HF_HUB_CACHE", "WGK_KERNEL_PATH", "XDG_CACHE_HOME")}
    env.update(HOME=home, HF_HOME=os.path.join(home, "hf"), HF_ENDPOINT=hub.url, WGK_BUNDLED_KERNELS="0",
               WGK_HUB_BACKOFF_MS="10", WGK_HUB_TIMEOUT="5")
    env.update(extra)
    return env


def cache_of(env):
    return env.get("HF_HUB_CACHE") or os.path.join(env["HF_HOME"], "hub")


def repo_dir(env, repo=REPO):
    org, name = repo.split("/")
    return os.path.join(cache_of(env), f"kernels--{org}--{name}")


def wgk(env, *args, rc=0, timeout=120):
    try:
        p = subprocess.run([WGK, *args], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:  # a hang is a failure of this case, not of the whole run
        failures.append(f"wgk {' '.join(map(str, args))}: still running after {timeout} s (a hang)")
        return subprocess.CompletedProcess(e.cmd, -1, str(e.stdout or ""), str(e.stderr or ""))
    for mark in ("Sanitizer", "runtime error:"):  # an ASan/UBSan build reports into stderr
        check(mark not in p.stderr, f"wgk {' '.join(args)}: sanitizer report\n{p.stderr[-3000:]}")
    if rc is not None and p.returncode != rc:
        failures.append(f"wgk {' '.join(args)}: exit {p.returncode}, wanted {rc}\n{p.stdout}{p.stderr}")
    return p


def listed_files(pkg):
    with open(os.path.join(pkg, "build", "webgpu", "metadata.json")) as f:
        return json.load(f)["digest"]["files"]


def hex_of_b64(b64):
    return base64.b64decode(b64).hex()


def blob_name(data):
    """The name huggingface_hub gives a blob: the Hub's ETag, its SHA-256 for an LFS file, else its git blob id."""
    return hashlib.sha256(data).hexdigest() if len(data) >= LFS_MIN else git_blob_id(data)


def name_ok(name, data):
    return name == (hashlib.sha256(data).hexdigest() if len(name) == 64 else git_blob_id(data))


def cache_holds_only_verified(env, what):
    """Every blob hashes to its name; no temp file is left; every complete snapshot verifies."""
    blobs = os.path.join(repo_dir(env), "blobs")
    for name in os.listdir(blobs) if os.path.isdir(blobs) else []:
        with open(os.path.join(blobs, name), "rb") as f:
            check(name_ok(name, f.read()), f"{what}: blob {name} does not hash to its name")
    if os.path.isdir(repo_dir(env)):
        p = wgk(env, "cache", "verify", REPO, rc=None)
        check(p.returncode == 0, f"{what}: wgk cache verify:\n{p.stdout}{p.stderr}")


def no_complete_snapshot(env, what):
    snaps = os.path.join(repo_dir(env), "snapshots")
    for c in os.listdir(snaps) if os.path.isdir(snaps) else []:
        check(not os.path.exists(os.path.join(snaps, c, "build", "webgpu", "metadata.json")),
              f"{what}: snapshot {c} looks complete after a failed download")


hub = StandIn()
C1 = hub.add(REPO, PKG, branch="v1")
OTHER = "someone/ai.onnx.RotaryEmbedding"
hub.add(OTHER, PKG, branch="v1")
# v2 of the repo: a copy whose test.json changed (a different commit), for branch moves and drift.
PKG2 = os.path.join(tmp, "pkg-v2")
shutil.copytree(PKG, PKG2)
with open(os.path.join(PKG2, "build", "webgpu", "bench.json"), "a") as f:
    f.write("\n")
subprocess.run([WGK, "pack", PKG2], check=True, capture_output=True)
C2 = hub.add(REPO, PKG2, branch="v2")
hub.start()

try:
    # 1. From an empty cache: download fills the layout; stdout is the snapshot folder.
    env = fresh_env("main")
    n0 = hub.count()
    p = wgk(env, "download", REPO, "--version", "1")
    snap = os.path.join(repo_dir(env), "snapshots", C1, "build", "webgpu")
    check(p.stdout.strip() == snap, f"download prints the snapshot folder: {p.stdout!r} vs {snap}")
    files = listed_files(PKG)
    n_lfs = sum(os.path.getsize(os.path.join(PKG, "build", "webgpu", r)) >= LFS_MIN for r in files)
    check(n_lfs >= 1, "the package has an LFS-sized file")
    # every listed file, metadata.json, the card; an LFS file costs a second request (the storage redirect)
    n_requests = len(files) + 2 + n_lfs
    check(hub.count() - n0 == n_requests, f"download: {hub.count() - n0} requests, wanted {n_requests}")
    card = os.path.join(repo_dir(env), "snapshots", C1, "README.md")
    with open(os.path.join(PKG, "README.md"), "rb") as f:
        card_bytes = f.read()
    check(os.path.islink(card) and os.readlink(card) == "../../blobs/" + git_blob_id(card_bytes),
          f"the card is linked at the snapshot's root: {os.readlink(card) if os.path.islink(card) else None}")
    with open(os.path.join(repo_dir(env), "refs", "v1")) as f:
        check(f.read().strip() == C1, "refs/v1 holds the commit")
    for rel, b64 in list(files.items()) + [("metadata.json", None)]:
        link = os.path.join(snap, rel)
        check(os.path.islink(link), f"{rel} is a symlink")
        target = os.readlink(link) if os.path.islink(link) else ""
        check(not target.startswith("/") and "/blobs/" in target, f"{rel} links relatively into blobs: {target}")
        with open(link, "rb") as a, open(os.path.join(PKG, "build", "webgpu", rel), "rb") as b:
            data = a.read()
            check(data == b.read(), f"{rel}: cached bytes equal the served ones")
        check(os.path.basename(target) == blob_name(data), f"{rel}: blob named by the Hub's ETag: {target}")
        if b64 and len(data) >= LFS_MIN:
            check(os.path.basename(target) == hex_of_b64(b64), f"{rel}: an LFS blob's name = metadata digest")
    cache_holds_only_verified(env, "download")
    # HF_HUB_CACHE wins over HF_HOME.
    env_c = fresh_env("hubcache", HF_HUB_CACHE=os.path.join(tmp, "hubcache", "elsewhere"))
    wgk(env_c, "download", REPO, "--version", "1")
    check(os.path.isdir(os.path.join(tmp, "hubcache", "elsewhere", f"kernels--webgpu-kernels--ai.onnx.RotaryEmbedding")),
          "HF_HUB_CACHE is where the cache goes")

    # 2. Offline: no request at all; the package's tests pass from the cache.
    off = dict(env, HF_HUB_OFFLINE="1")
    n0 = hub.count()
    p = wgk(off, "info", REPO, "--version", "1")
    check(snap.rsplit("/build", 1)[0] in p.stdout, "offline info loads the cached snapshot:\n" + p.stdout)
    if GPU:
        p = wgk(off, "test", REPO, "--version", "1", "--strict", timeout=300)
        check("FAIL " not in p.stdout and p.returncode == 0, "offline wgk test passes:\n" + p.stdout[-2000:])
    check(hub.count() == n0, f"HF_HUB_OFFLINE=1 sent {hub.count() - n0} requests")
    p = wgk(off, "info", REPO, "--version", "2", rc=1)
    check("HF_HUB_OFFLINE" in p.stderr and "v2" in p.stderr, "offline, v2 not cached: clear error\n" + p.stderr)
    p = wgk(off, "info", REPO, "--revision", C2, rc=1)
    check("HF_HUB_OFFLINE" in p.stderr and C2 in p.stderr, "offline, commit not cached: clear error\n" + p.stderr)
    check(hub.count() == n0, "offline failures send nothing either")
    # With the bundled packages on: a version is answered by the bundled copy, a commit pin by the cache.
    # With the bundled packages on: the version the user downloaded (refs/v1) wins over the bundled copy of it; a
    # version not downloaded comes from the bundled copy (a pre-filled cache); wgk list shows what shadows what.
    bundled = {k: v for k, v in off.items() if k != "WGK_BUNDLED_KERNELS"}
    p = wgk(bundled, "info", REPO, "--version", "1")
    check(f"package: {repo_dir(env)}/snapshots/{C1}" in p.stdout, "a downloaded version wins over the bundled copy\n" + p.stdout[:300])
    p = wgk(bundled, "list", "--json")
    lst = json.loads(p.stdout or "{}")
    check(lst.get("precedence", [])[:4] == ["search path", "WGK_KERNEL_PATH", "hub cache", "bundled or installed"],
          f"list --json names the precedence: {lst.get('precedence')}")
    b_rope = [e for e in lst.get("packages", []) if e.get("where") == PKG]
    c_rope = [e for e in lst.get("packages", []) if e.get("revision") == C1]
    check(len(b_rope) == 1 and b_rope[0]["shadowed"] and b_rope[0]["shadowedBy"].endswith(C1),
          f"list: the bundled copy is shadowed by the download: {b_rope}")
    check(len(c_rope) == 1 and not c_rope[0]["shadowed"], f"list: the download is not shadowed: {c_rope}")
    p = wgk(bundled, "list")
    check("shadowed by " + os.path.join(repo_dir(env), "snapshots", C1) in p.stdout, "list text says what shadows\n" + p.stdout)
    nod = dict(bundled, HF_HUB_CACHE=os.path.join(tmp, "empty-cache"))
    p = wgk(nod, "info", REPO, "--version", "1")
    check(f"package: {PKG}" in p.stdout, "a version not downloaded: the bundled copy\n" + p.stdout[:300])
    p = wgk(bundled, "info", REPO, "--revision", C1)
    check(f"package: {repo_dir(env)}/snapshots/{C1}" in p.stdout, "a commit: the cache, not the bundled copy\n" + p.stdout[:300])
    check(hub.count() == n0, "offline: still no request")

    # 3. Online: a cached branch costs one request (metadata.json), a cached commit none.
    n0 = hub.count()
    wgk(env, "info", REPO, "--version", "1")
    check(hub.count() - n0 == 1 and hub.requests[-1][0].endswith("/resolve/v1/build/webgpu/metadata.json"),
          f"cached branch load: {hub.count() - n0} requests {hub.requests[n0:]}")
    n0 = hub.count()
    wgk(env, "info", REPO, "--revision", C1)
    wgk(env, "download", REPO, "--revision", C1.upper())
    check(hub.count() == n0, f"commit-pinned loads sent {hub.count() - n0} requests")
    # A branch that moved: v1 now points at C2; one online load follows it, refs/v1 changes.
    hub.repos[REPO]["branches"]["v1"] = C2
    p = wgk(env, "download", REPO, "--version", "1")
    check(C2 in p.stdout, "branch moved: the new commit's snapshot\n" + p.stdout)
    with open(os.path.join(repo_dir(env), "refs", "v1")) as f:
        check(f.read().strip() == C2, "refs/v1 follows the branch")
    hub.repos[REPO]["branches"]["v1"] = C1
    wgk(env, "download", REPO, "--version", "1")

    # 4. Arguments: no version is the Hub's newest branch for download (v2), bad ids, trust.
    p = wgk(env, "download", REPO)
    check(p.stdout.strip().endswith(C2 + "/build/webgpu"), "download without a version: the newest, v2\n" + p.stdout + p.stderr)
    for bad in ("a/b/c", "bad id/x.y", "../x", "a--b/x.y"):
        p = wgk(env, "download", bad, "--version", "1", rc=1)
        check("not a repo id" in p.stderr, f"repo id {bad!r} refused\n{p.stderr}")
    n0 = hub.count()
    p = wgk(env, "download", OTHER, "--version", "1", rc=1)
    check("not trusted" in p.stderr and "--trust-remote-code" in p.stderr, "untrusted org refused\n" + p.stderr)
    p = wgk(env, "info", OTHER, "--version", "1", rc=1)
    check("not trusted" in p.stderr, "untrusted org refused by every command\n" + p.stderr)
    check("not found locally either; searched:" in p.stderr, "a Hub error also names the local search\n" + p.stderr)
    check(hub.count() == n0, "an untrusted org sends no request")
    wgk(env, "download", OTHER, "--version", "1", "--trust-remote-code")
    wgk(env, "info", OTHER, "--version", "1", "--trust-remote-code")

    # 5. Fault modes. Each from an empty cache; after each the cache holds only verified files.
    def fault(name, mode, *args, rc=1, expect=None, **extra):
        e = fresh_env("fault-" + name, **extra)
        hub.reset(mode)
        p = wgk(e, "download", REPO, *(args or ("--version", "1")), rc=rc)
        hub.reset(None)
        if expect:
            check(expect in p.stderr, f"fault {name}: message has {expect!r}:\n{p.stderr}")
        if rc:
            no_complete_snapshot(e, name)
        cache_holds_only_verified(e, name)
        return e, p

    fault("404", "404", expect="404 Not Found")
    e = fresh_env("no-repo")
    p = wgk(e, "download", "webgpu-kernels/ai.onnx.Nothing", "--version", "1", rc=1)
    check("404: no repo webgpu-kernels/ai.onnx.Nothing" in p.stderr, "404 repo\n" + p.stderr)
    p = wgk(e, "download", REPO, "--version", "9", rc=1)
    check("has no revision v9" in p.stderr, "404 revision\n" + p.stderr)
    p = wgk(e, "download", REPO, "--revision", "0" * 40, rc=1)
    check("has no revision " + "0" * 40 in p.stderr, "404 commit\n" + p.stderr)
    hub.add("webgpu-kernels/ai.onnx.Renamed", PKG, branch="v1")
    p = wgk(e, "download", "webgpu-kernels/ai.onnx.Renamed", "--version", "1", rc=1)
    check("basename must be its op id" in p.stderr, "repo basename = op id\n" + p.stderr)
    check(not os.path.exists(repo_dir(e, "webgpu-kernels/ai.onnx.Renamed") + "/snapshots"), "a misnamed repo is not cached")
    hub.token = "s3cret"
    fault("401", "token", expect="needs a token: set HF_TOKEN")
    fault("401-bad", "token", expect="refused the token", HF_TOKEN="wrong")
    e, _ = fault("401-ok", "token", rc=0, HF_TOKEN="s3cret")
    # The token file under HF_HOME works too.
    e = fresh_env("token-file")
    os.makedirs(e["HF_HOME"], exist_ok=True)
    with open(os.path.join(e["HF_HOME"], "token"), "w") as f:
        f.write("s3cret\n")
    hub.reset("token")
    wgk(e, "download", REPO, "--version", "1")
    hub.reset(None)
    fault("403", "forbidden", expect="403 Forbidden: the token given has no access", HF_TOKEN="s3cret")
    hub.reset("500x2")
    e = fresh_env("500")
    wgk(e, "download", REPO, "--version", "1")
    check(all(n == (1 if path.startswith("/__lfs/") else 3) for path, n in hub.seen.items())
          and len(hub.seen) == n_requests,
          f"500 twice then OK: every file asked 3 times: {hub.seen}")
    hub.reset(None)
    cache_holds_only_verified(e, "500")
    fault("truncate", "truncate", expect="arrived short")
    fault("flip", "flip", expect="digest mismatch for build/webgpu/")
    e, p = fault("flip-msg", "flip")
    check("expected" in p.stderr and "got" in p.stderr, "digest message names expected and got\n" + p.stderr)
    # Redirect to another host: followed, but the token stays with the endpoint's host.
    e = fresh_env("redirect", HF_TOKEN="s3cret")
    hub.reset("redirect")
    wgk(e, "download", REPO, "--version", "1")
    moved = [a for path, a in hub.requests if path.startswith("/__moved/")]
    first = [a for path, a in hub.requests if path.startswith("/kernels/")]
    check(moved and first, f"redirect mode was exercised: {hub.requests}")
    check(all(a == "Bearer s3cret" for a in first), "the token goes to the endpoint host")
    check(all(a is None for a in moved), f"no token across the redirect to another host: {moved}")
    hub.reset(None)
    cache_holds_only_verified(e, "redirect")
    hub.delay = 4
    e, p = fault("slow", "slow", expect="timed out", WGK_HUB_TIMEOUT="1", WGK_HUB_RETRIES="2")
    fault("drop", "drop", rc=0)

    # 6. Two processes downloading into one empty cache at once: both succeed, the cache is intact.
    e = fresh_env("two")
    hub.reset("delay")
    hub.delay = 0.2
    procs = [subprocess.Popen([WGK, "download", REPO, "--version", "1"], env=e, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [pr.communicate(timeout=120) for pr in procs]
    asked = list(hub.requests)
    hub.reset(None)
    # The lock serializes the writers: the second finds the snapshot complete and fetches no file.
    check(len(asked) == n_requests + 1, f"two processes: {len(asked)} requests, wanted {n_requests + 1}: {asked}")
    for pr, (o, err) in zip(procs, outs):
        check(pr.returncode == 0 and o.strip().endswith(C1 + "/build/webgpu"), f"concurrent download: {pr.returncode} {o} {err}")
    cache_holds_only_verified(e, "two processes")
    leftovers = [f for d, _, fs in os.walk(cache_of(e)) for f in fs if "incomplete" in f]
    check(not leftovers, f"no temp files left: {leftovers}")

    # 6b. A progress bar on a terminal only: the same slow download through a pty (script(1)), then piped.
    if shutil.which("script"):
        hub.reset("delay")
        hub.delay = 0.8
        e = fresh_env("progress-tty")
        p = subprocess.run(["script", "-qec", f"{WGK} download {REPO} --version 1", "/dev/null"], env=e,
                           capture_output=True, timeout=120)
        check(p.returncode == 0 and b"\rmanifest.json" in p.stdout and b" kB" in p.stdout,
              f"progress on a terminal: {p.returncode} {p.stdout[-500:]!r}")
        e = fresh_env("progress-pipe")
        p = wgk(e, "download", REPO, "--version", "1")
        check("\r" not in p.stderr and " kB" not in p.stderr, f"no progress when piped: {p.stderr!r}")
        hub.reset(None)

    # 7. Ctrl-C in the middle of a download: nothing half-written; the next download completes and sweeps.
    e = fresh_env("sigint")
    hub.reset("delay")
    hub.delay = 1.0
    pr = subprocess.Popen([WGK, "download", REPO, "--version", "1"], env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(1.5)
    pr.send_signal(signal.SIGINT)
    pr.communicate(timeout=60)
    hub.reset(None)
    no_complete_snapshot(e, "SIGINT")
    cache_holds_only_verified(e, "SIGINT")
    wgk(e, "download", REPO, "--version", "1")
    cache_holds_only_verified(e, "after SIGINT")

    # 8. Lockfiles: lock pins the commit and digests; download --lock fetches exactly that; drift refused.
    e = fresh_env("lock")
    p = wgk(e, "lock", REPO + "@v1", REPO + "@v2")
    lock = json.loads(p.stdout)
    check(lock["version"] == 1 and [k["commit"] for k in lock["kernels"]] == [C1, C2], f"lock: {p.stdout}")
    check(lock["kernels"][0]["files"]["manifest.json"] == files["manifest.json"], "lock lists the file digests")
    check("metadata.json" in lock["kernels"][0]["files"], "lock lists metadata.json's own digest")
    lock_path = os.path.join(tmp, "wgk.lock")
    with open(lock_path, "w") as f:
        f.write(p.stdout)
    e2 = fresh_env("lock-dl")
    hub.repos[REPO]["branches"]["v1"] = C2  # the branch moves; the lock still means C1
    p = wgk(e2, "download", "--lock", lock_path)
    hub.repos[REPO]["branches"]["v1"] = C1
    check(f"{REPO} {repo_dir(e2)}/snapshots/{C1}/build/webgpu" in p.stdout, "download --lock fetches the locked commit\n" + p.stdout)
    cache_holds_only_verified(e2, "download --lock")
    lock["kernels"][0]["files"]["manifest.json"] = lock["kernels"][1]["files"]["bench.json"]
    with open(lock_path, "w") as f:
        json.dump(lock, f)
    p = wgk(e2, "download", "--lock", lock_path, rc=1)
    check("refusing drift" in p.stderr and "manifest.json" in p.stderr, "drifted digest refused\n" + p.stderr)
    lock["kernels"][0]["files"]["manifest.json"] = files["manifest.json"]
    lock["kernels"][0]["files"]["extra.json"] = files["manifest.json"]
    with open(lock_path, "w") as f:
        json.dump(lock, f)
    p = wgk(e2, "download", "--lock", lock_path, rc=1)
    check("refusing drift" in p.stderr and "extra.json" in p.stderr, "a file the snapshot lacks refused\n" + p.stderr)
    p = wgk(e2, "lock", REPO)
    check(json.loads(p.stdout or "{}").get("kernels", [{}])[0].get("version") == 2, "lock REPO: the newest, v2\n" + p.stderr)
    p = wgk(e2, "lock", REPO + "@main", rc=1)
    check("REPO@vN" in p.stderr, "lock REPO@main refused\n" + p.stderr)

    # 8b. One way to name a kernel (issue 35 item 5): org/name, name, @vN, @<commit> in every command, beside
    # --version / --revision; disagreeing forms are refused naming both; short op ids in cache verify / rm.
    e = fresh_env("naming")
    OP = REPO.split("/")[1]
    p = wgk(e, "download", REPO + "@v1")
    check(p.stdout.strip().endswith(C1 + "/build/webgpu"), "download REPO@v1\n" + p.stdout + p.stderr)
    p = wgk(e, "download", OP, "--version", "1")
    check(p.stdout.strip().endswith(C1 + "/build/webgpu"), "download of a bare op id\n" + p.stdout + p.stderr)
    p = wgk(e, "download", OP + "@" + C1)
    check(p.stdout.strip().endswith(C1 + "/build/webgpu"), "download NAME@commit\n" + p.stdout + p.stderr)
    for spec in (REPO + "@v1", OP + "@v1", REPO + "@" + C1, OP + "@" + C1.upper()):
        p = wgk(e, "info", spec)
        check(f"snapshots/{C1}" in p.stdout, f"info {spec} loads the snapshot\n{p.stdout[:300]}{p.stderr}")
    p = wgk(e, "info", REPO + "@v1", "--version", "2", rc=1)
    check("version 1" in p.stderr and "says 2" in p.stderr, "@v1 with --version 2 refused, naming both\n" + p.stderr)
    p = wgk(e, "info", REPO + "@v1", "--revision", C1, rc=1)
    check("give one" in p.stderr, "@v1 with --revision refused\n" + p.stderr)
    p = wgk(e, "info", REPO + "@main", rc=1)
    check("after '@' give a version" in p.stderr, "a bad @ suffix is refused\n" + p.stderr)
    p = wgk(e, "lock", REPO, "--version", "1")
    check(json.loads(p.stdout or "{}").get("kernels", [{}])[0].get("commit") == C1, "lock REPO --version 1\n" + p.stderr)
    p = wgk(e, "lock", OP + "@v1")
    check(json.loads(p.stdout or "{}").get("kernels", [{}])[0].get("repo") == REPO, "lock of a bare op id\n" + p.stderr)
    p = wgk(e, "cache", "verify", OP)
    check("0 problems" in p.stdout and "1 repos checked" in p.stdout, "cache verify of a short op id\n" + p.stdout + p.stderr)
    p = wgk(e, "cache", "rm", OP)
    check(not os.path.exists(repo_dir(e)), "cache rm of a short op id\n" + p.stdout + p.stderr)

    # 9. wgk cache ls / verify / rm.
    p = wgk(env, "cache", "ls")
    check(REPO in p.stdout and f"ref v1 -> {C1}" in p.stdout and OTHER in p.stdout, "cache ls\n" + p.stdout)
    p = wgk(env, "cache", "ls", "--json")  # the same listing as JSON, against the cache's own refs/ (issue 35)
    listed = {r["repo"]: r for r in json.loads(p.stdout)["repos"]}
    mine = listed.get(REPO, {})
    on_disk = open(os.path.join(repo_dir(env), "refs", "v1")).read().strip()
    check(set(listed) >= {REPO, OTHER} and mine.get("refs", {}).get("v1") == on_disk == C1
          and any(s["commit"] == C1 and s["complete"] for s in mine.get("snapshots", [])), "cache ls --json\n" + p.stdout)
    p = wgk(env, "cache", "verify")
    check("0 problems" in p.stdout, "cache verify on a good cache\n" + p.stdout)
    # A snapshot's links may resolve into its repo's blobs/, nowhere else: a link to an identical copy outside
    # the repo folder is refused.
    link = os.path.join(repo_dir(env), "snapshots", C1, "build", "webgpu", "manifest.json")
    outside = os.path.join(cache_of(env), "manifest-copy.json")
    shutil.copy(link, outside)
    target = os.readlink(link)
    os.unlink(link)
    os.symlink(outside, link)
    p = wgk(env, "info", REPO, "--revision", C1, rc=1)
    check("outside the package root" in p.stderr, "a link out of the repo folder is refused\n" + p.stderr)
    os.unlink(link)
    os.symlink(target, link)
    wgk(env, "info", REPO, "--revision", C1)
    blob = os.path.join(repo_dir(env), "blobs", os.path.basename(os.readlink(link)))
    with open(blob, "r+b") as f:
        f.write(b"X")
    p = wgk(env, "cache", "verify", REPO, rc=1)
    check("digest mismatch" in p.stdout and "does not hash to its name" in p.stdout, "cache verify finds a bad blob\n" + p.stdout)
    p = wgk(env, "info", REPO, "--revision", C1, rc=1)
    check("sha256 mismatch" in p.stderr, "a corrupted cached file is refused at load\n" + p.stderr)
    # wgk download repairs it: the corrupted blob is fetched again (a commit pin included), the cache verifies.
    n0 = hub.count()
    wgk(env, "download", REPO, "--revision", C1)
    check(hub.count() - n0 == 2, f"the repair fetched metadata.json and manifest.json only: {hub.requests[n0:]}")
    p = wgk(env, "cache", "verify", REPO)
    check("0 problems" in p.stdout, "after the repair the cache verifies\n" + p.stdout)
    wgk(env, "info", REPO, "--revision", C1)
    # A snapshot filled in part (as huggingface_hub leaves one after fetching single files) is incomplete, not wrong:
    # verify reports no problem, a load does not use it, a download completes it.
    os.unlink(os.path.join(repo_dir(env), "snapshots", C1, "build", "webgpu", "bench.json"))
    p = wgk(env, "cache", "verify", REPO)
    check("incomplete snapshot (1 of" in p.stdout and "0 problems" in p.stdout, "a partial snapshot is no problem\n" + p.stdout)
    p = wgk(env, "download", REPO, "--version", "1")
    check(os.path.exists(os.path.join(repo_dir(env), "snapshots", C1, "build", "webgpu", "bench.json")),
          "download completes a partial snapshot")
    wgk(env, "cache", "rm", REPO)
    check(not os.path.exists(repo_dir(env)), "cache rm removes the repo")
    p = wgk(env, "cache", "rm", REPO, rc=1)
    check("not in the cache" in p.stderr, "cache rm of a missing repo\n" + p.stderr)

    # 10. Bad inputs (issue 37): nothing followed out of the cache, secrets kept, every Hub body and wait bounded,
    # only regular files read.
    # A repo folder that is a symlink: the lock-time sweep must not delete temp-named files where it points.
    e = fresh_env("symlink-repo")
    victim = os.path.join(tmp, "victim")
    os.makedirs(os.path.join(victim, "blobs"))
    bait = os.path.join(victim, "blobs", "keep.wgk-incomplete-1-2-3")
    with open(bait, "w") as f:
        f.write("not the cache's")
    os.makedirs(cache_of(e))
    os.symlink(victim, repo_dir(e))
    p = wgk(e, "download", REPO, "--version", "1", rc=1)
    check("symbolic link" in p.stderr, "a symlinked repo folder is refused\n" + p.stderr)
    check(os.path.exists(bait), "download swept a temp file outside the cache through a symlinked repo folder")
    p = wgk(e, "cache", "rm", REPO)
    check(os.path.exists(bait) and os.path.isdir(victim), "cache rm deleted through a symlinked repo folder")
    check(not os.path.lexists(repo_dir(e)), "cache rm removes the link itself")
    # A password in HF_ENDPOINT is never printed.
    e = fresh_env("endpoint-pw", HF_ENDPOINT=hub.url.replace("http://", "http://someone:hunter2@"))
    hub.reset("404")
    p = wgk(e, "download", REPO, "--version", "1", rc=1)
    hub.reset(None)
    check("hunter2" not in p.stderr + p.stdout and "***@" in p.stderr, "HF_ENDPOINT's password is printed\n" + p.stderr)
    # A token with CR LF (or any control character) is refused before any request, and not printed.
    n0 = hub.count()
    e = fresh_env("token-crlf", HF_TOKEN="s3cret\r\nX-Injected: yes")
    p = wgk(e, "download", REPO, "--version", "1", rc=1)
    check("HF_TOKEN" in p.stderr and "control character" in p.stderr and "s3cret" not in p.stderr,
          "a CR LF token is refused, unprinted\n" + p.stderr)
    check(hub.count() == n0, f"a CR LF token sent {hub.count() - n0} requests")
    # A bad WGK_HUB_* value is an error naming the variable, not a silent default.
    e = fresh_env("bad-env", WGK_HUB_TIMEOUT="30s")
    p = wgk(e, "download", REPO, "--version", "1", rc=1)
    check("WGK_HUB_TIMEOUT" in p.stderr and "30s" in p.stderr, "a bad WGK_HUB_TIMEOUT is named\n" + p.stderr)
    # cache ls prints refs escaped: no terminal escape from disk reaches the terminal.
    e = fresh_env("escapes")
    wgk(e, "download", REPO, "--version", "1")
    with open(os.path.join(repo_dir(e), "refs", "v1"), "w") as f:
        f.write("\x1b]0;pwned\x07\x1b[2J")
    with open(os.path.join(repo_dir(e), "refs", "v\x1b[31m9"), "w") as f:
        f.write(C1)
    for args in (("cache", "ls"), ("list",)):
        p = wgk(e, *args)
        check("\x1b" not in p.stdout and "\x07" not in p.stdout and "\\x1b" in p.stdout,
              f"wgk {' '.join(args)} prints refs escaped\n{p.stdout!r}")
    # Only regular files: a FIFO as the lockfile, the token file, or a blob never blocks.
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    p = wgk(e, "download", "--lock", fifo, rc=1, timeout=20)
    check("regular file" in p.stderr, "a FIFO lockfile is refused\n" + p.stderr)
    e2 = fresh_env("token-fifo")
    os.makedirs(e2["HF_HOME"], exist_ok=True)
    os.mkfifo(os.path.join(e2["HF_HOME"], "token"))
    p = wgk(e2, "download", REPO, "--version", "1", rc=1, timeout=20)
    check("regular file" in p.stderr and "token" in p.stderr, "a FIFO token file is refused\n" + p.stderr)
    os.mkfifo(os.path.join(repo_dir(e), "blobs", "0" * 64))
    p = wgk(e, "cache", "verify", REPO, rc=1, timeout=20)
    check("regular file" in p.stdout, "cache verify refuses a FIFO blob without blocking\n" + p.stdout)
    # Hub bodies: the per-file limit (announced or not), the total limit, the minimum rate, the deadline.
    t0 = time.time()
    fault("huge", "huge", expect="per-file limit")
    fault("huge-nolen", "huge-nolen", expect="per-file limit")
    fault("total", None, expect="WGK_HUB_MAX_BYTES", WGK_HUB_MAX_BYTES="20000")
    fault("trickle", "trickle", expect="WGK_HUB_MIN_RATE", WGK_HUB_TIMEOUT="1", WGK_HUB_RETRIES="1")
    fault("deadline", "trickle", expect="WGK_HUB_DEADLINE", WGK_HUB_MIN_RATE="1", WGK_HUB_DEADLINE="2")
    check(time.time() - t0 < 60, f"the bounded downloads took {time.time() - t0:.0f} s")
except Exception:  # an unexpected state (a missing file ...) is a failure with its traceback, not a crash
    import traceback
    failures.append(traceback.format_exc())
finally:
    hub.stop()
    shutil.rmtree(tmp, ignore_errors=True)

for f in failures:
    print("FAIL", f)
print(f"hub_test: {len(failures)} failures")
sys.exit(1 if failures else 0)
