#!/usr/bin/python3
"""wgk list: packages on the search path (WGK_KERNEL_PATH in order, then the bundled kernels/) and in the Hub
cache, each opened as a load opens it: op id, version, verified / unverified / broken, where, shadowed; the cache's
snapshots with the refs pointing at them. Text and --json. A fresh HF_HUB_CACHE and WGK_KERNEL_PATH in a temp dir.
usage: list_test.py WGK SOURCE_DIR"""
import base64, hashlib, json, os, shutil, subprocess, sys, tempfile

WGK, SRC = sys.argv[1], os.path.abspath(sys.argv[2])
ROPE = os.path.join(SRC, "kernels", "ai.onnx.RotaryEmbedding")
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


tmp = tempfile.mkdtemp(prefix="wgk-list-test-")
try:
    a, b, hub = (os.path.join(tmp, n) for n in ("a", "b", "hub"))
    shutil.copytree(ROPE, os.path.join(a, "ai.onnx.RotaryEmbedding"))            # found first
    shutil.copytree(ROPE, os.path.join(b, "ai.onnx.RotaryEmbedding"))            # shadowed by a's
    unverified = os.path.join(a, "test.Unverified")
    shutil.copytree(ROPE, unverified)
    os.remove(os.path.join(unverified, "build", "webgpu", "metadata.json"))
    broken = os.path.join(b, "myorg", "test.Broken")                              # another org's folder
    shutil.copytree(ROPE, broken)
    with open(os.path.join(broken, "build", "webgpu", "manifest.json"), "a") as f:
        f.write(" ")                                                              # no longer its digest

    # A Hub cache as huggingface_hub lays it out: blobs by SHA-256, refs/v1, snapshots/<commit> of links.
    repo = os.path.join(hub, "kernels--webgpu-kernels--ai.onnx.RotaryEmbedding")
    commit, partial = "1" * 40, "2" * 40
    webgpu = os.path.join(ROPE, "build", "webgpu")
    files = list(json.load(open(os.path.join(webgpu, "metadata.json")))["digest"]["files"]) + ["metadata.json"]
    os.makedirs(os.path.join(repo, "blobs"))
    os.makedirs(os.path.join(repo, "refs"))
    with open(os.path.join(repo, "refs", "v1"), "w") as f:
        f.write(commit)
    for c, names in ((commit, files), (partial, [n for n in files if n != "metadata.json"][:2])):
        snap = os.path.join(repo, "snapshots", c, "build", "webgpu")
        for name in names:
            data = open(os.path.join(webgpu, name), "rb").read()
            h = hashlib.sha256(data).hexdigest()
            with open(os.path.join(repo, "blobs", h), "wb") as f:
                f.write(data)
            os.makedirs(os.path.dirname(os.path.join(snap, name)), exist_ok=True)
            os.symlink(os.path.relpath(os.path.join(repo, "blobs", h), os.path.dirname(os.path.join(snap, name))),
                       os.path.join(snap, name))

    env = {k: v for k, v in os.environ.items() if k not in ("HF_HOME", "WGK_BUNDLED_KERNELS")}
    env.update(WGK_KERNEL_PATH=a + ":" + b + ":" + os.path.join(tmp, "missing"), HF_HUB_CACHE=hub, HF_HUB_OFFLINE="1",
               HOME=tmp)
    p = subprocess.run([WGK, "list", "--json"], capture_output=True, text=True, env=env, timeout=120)
    check(p.returncode == 0, f"wgk list --json: exit {p.returncode}\n{p.stderr}")
    out = json.loads(p.stdout)
    dirs = [(d["dir"], d["source"], d["exists"]) for d in out["searchPath"]]
    check(dirs[:3] == [(a, "WGK_KERNEL_PATH", True), (b, "WGK_KERNEL_PATH", True),
                       (os.path.join(tmp, "missing"), "WGK_KERNEL_PATH", False)], f"search path {dirs}")
    check(any(d[1] == "bundled" and d[0] == os.path.join(SRC, "kernels") for d in dirs), f"bundled dir missing: {dirs}")
    check(out["hubCache"] == hub, f"hubCache {out['hubCache']}")
    pk = out["packages"]

    def find(**kw):
        return [e for e in pk if all(e.get(k) == v for k, v in kw.items())]

    first = find(where=os.path.join(a, "ai.onnx.RotaryEmbedding"))
    check(len(first) == 1 and first[0]["opId"] == "ai.onnx.RotaryEmbedding" and first[0]["version"] == 1
          and first[0]["verified"] is True and first[0]["shadowed"] is False, f"first copy: {first}")
    second = find(where=os.path.join(b, "ai.onnx.RotaryEmbedding"))
    check(len(second) == 1 and second[0]["shadowed"] is True and second[0]["verified"] is True, f"shadowed copy: {second}")
    bundled = find(where=ROPE)
    check(len(bundled) == 1 and bundled[0]["source"] == "bundled" and bundled[0]["shadowed"] is True, f"bundled: {bundled}")
    unv = find(name="test.Unverified")
    check(len(unv) == 1 and unv[0]["verified"] is False and unv[0]["version"] is None and "error" not in unv[0]
          and unv[0]["opId"] == "ai.onnx.RotaryEmbedding", f"unverified: {unv}")
    brk = find(name="myorg/test.Broken")
    check(len(brk) == 1 and brk[0]["verified"] is False and "manifest.json" in brk[0].get("error", "")
          and "sha256 mismatch" in brk[0].get("error", ""), f"broken: {brk}")
    cached = find(repo="webgpu-kernels/ai.onnx.RotaryEmbedding", revision=commit)
    check(len(cached) == 1 and cached[0]["verified"] is True and cached[0]["version"] == 1 and cached[0]["refs"] == ["v1"]
          and cached[0]["opId"] == "ai.onnx.RotaryEmbedding" and cached[0]["source"] == "hub cache"
          and cached[0]["where"] == os.path.join(repo, "snapshots", commit), f"cached: {cached}")
    inc = find(repo="webgpu-kernels/ai.onnx.RotaryEmbedding", revision=partial)
    check(len(inc) == 1 and inc[0]["verified"] is False and inc[0]["refs"] == [] and "incomplete" in inc[0].get("error", "")
          and inc[0]["complete"] is False and cached[0]["complete"] is True,
          f"incomplete snapshot: {inc}")

    p = subprocess.run([WGK, "list"], capture_output=True, text=True, env=env, timeout=120)
    t = p.stdout
    check(p.returncode == 0, f"wgk list: exit {p.returncode}\n{p.stderr}")
    lines = t.splitlines()

    def line_of(*parts):
        return [ln for ln in lines if all(x in ln for x in parts)]

    check(len(line_of("ai.onnx.RotaryEmbedding", " v1 ", " verified ", os.path.join(a, "ai.onnx.RotaryEmbedding"), "[WGK_KERNEL_PATH]")) == 1,
          "text: first copy")
    check(len(line_of(os.path.join(b, "ai.onnx.RotaryEmbedding"), "[WGK_KERNEL_PATH, shadowed]")) == 1, "text: shadowed copy")
    check(len(line_of("test.Unverified", " - ", " unverified ")) == 1, "text: unverified")
    check(len(line_of("myorg/test.Broken", " broken ")) == 1, "text: broken")
    check(len(line_of("webgpu-kernels/ai.onnx.RotaryEmbedding", " v1 ", " verified ", "[hub cache, revision 111111111111; v1]")) == 1,
          "text: cached snapshot")
    check(len(line_of("webgpu-kernels/ai.onnx.RotaryEmbedding", " incomplete ", "revision 222222222222]")) == 1,
          "text: incomplete snapshot")
    check(len(line_of(os.path.join(tmp, "missing"), "(no such folder)")) == 1, "text: missing dir")
    check(t.rstrip().endswith("hub cache: " + hub), "text: hub cache line")
    if fails:
        print(t)
    p = subprocess.run([WGK, "list", "--jsn"], capture_output=True, text=True, env=env)
    check(p.returncode == 2 and "unknown option '--jsn'" in p.stderr, f"wgk list --jsn: {p.returncode} {p.stderr}")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
for f in fails:
    print("FAIL", f)
print(f"wgk list: {len(fails)} failures")
sys.exit(1 if fails else 0)
