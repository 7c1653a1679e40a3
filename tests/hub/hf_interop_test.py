#!/usr/bin/python3
"""One cache with huggingface_hub (issue 36 item 4): huggingface_hub's hf_hub_download(..., repo_type="kernel",
local_files_only=True) finds every file of a snapshot wgk downloaded, and wgk verifies and loads a snapshot that
huggingface_hub downloaded from the stand-in Hub. Where huggingface_hub cannot be imported (or its version knows no
repo type "kernel") the test reports skipped (exit 77) with the reason.

usage: hf_interop_test.py WGK SOURCE_DIR
"""
import os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from standin import StandIn  # noqa: E402

WGK, SRC = sys.argv[1], os.path.abspath(sys.argv[2])
REPO = "webgpu-kernels/ai.onnx.RotaryEmbedding"
PKG = os.path.join(SRC, "kernels", "ai.onnx.RotaryEmbedding")
try:
    import huggingface_hub
    from huggingface_hub import hf_hub_download
except Exception as e:  # noqa: BLE001 - any failure to import is a reason to skip
    print(f"SKIP: hub_hf_interop needs the Python package huggingface_hub, not importable by {sys.executable} "
          f"({type(e).__name__}: {e}). It is not a Debian package and PyPI is out of reach of this project's machines "
          "and CI, so only a machine where `pip install huggingface_hub` works runs this test; the same layout is "
          "checked without it by hub_cli (the stand-in Hub's ETags, cache verify).")
    sys.exit(77)

hub = StandIn()
C1 = hub.add(REPO, PKG, branch="v1")
hub.start()
tmp = tempfile.mkdtemp(prefix="wgk-hf-interop-")
failures = []
try:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "WGK_KERNEL_PATH"))}
    env.update(HOME=tmp, HF_HOME=os.path.join(tmp, "hf"), HF_ENDPOINT=hub.url, WGK_BUNDLED_KERNELS="0")
    cache = os.path.join(tmp, "hf", "hub")
    subprocess.run([WGK, "download", REPO, "--version", "1"], env=env, check=True, capture_output=True)
    import json
    with open(os.path.join(PKG, "build", "webgpu", "metadata.json")) as f:
        listed = list(json.load(f)["digest"]["files"]) + ["metadata.json"]
    for rel in listed:
        try:
            p = hf_hub_download(REPO, "build/webgpu/" + rel, repo_type="kernel", revision="v1", cache_dir=cache,
                                local_files_only=True)
        except ValueError as e:
            if "repo_type" in str(e) or "Invalid repo type" in str(e):
                print(f"SKIP: huggingface_hub {huggingface_hub.__version__} knows no repo type 'kernel' ({e})")
                sys.exit(77)
            raise
        with open(p, "rb") as a, open(os.path.join(PKG, "build", "webgpu", rel), "rb") as b:
            if a.read() != b.read():
                failures.append(f"hf_hub_download over wgk's cache: {rel} differs")
    # huggingface_hub fills a cache from the stand-in; wgk verifies it clean and loads from it without a request.
    cache2 = os.path.join(tmp, "hf2")
    for rel in listed + ["../../README.md"]:
        path = os.path.normpath("build/webgpu/" + rel)
        hf_hub_download(REPO, path, repo_type="kernel", revision=C1, cache_dir=cache2, endpoint=hub.url)
    env2 = dict(env, HF_HUB_CACHE=cache2, HF_HUB_OFFLINE="1")
    p = subprocess.run([WGK, "cache", "verify"], env=env2, capture_output=True, text=True)
    if p.returncode != 0 or "0 problems" not in p.stdout:
        failures.append("wgk cache verify on a cache huggingface_hub filled:\n" + p.stdout + p.stderr)
    p = subprocess.run([WGK, "info", REPO, "--revision", C1], env=env2, capture_output=True, text=True)
    if p.returncode != 0:
        failures.append("wgk loads a snapshot huggingface_hub filled:\n" + p.stdout + p.stderr)
finally:
    hub.stop()
    shutil.rmtree(tmp, ignore_errors=True)
for f in failures:
    print("FAIL", f)
print(f"hf_interop: {len(failures)} failures")
sys.exit(1 if failures else 0)
