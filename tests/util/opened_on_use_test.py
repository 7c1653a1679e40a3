"""Libraries a process may not need are opened when first used, never linked: libcurl by the Hub client's first
request (src/hub/libcurl.c), Dawn by the first WebGPU instance (src/gpu/dawn.c); OpenSSL not at all (src/util/sha.c).
Linked, each was mapped and relocated before main in every process (issue 39: the first call's cost beyond the
device). Checks that neither binary given needs one (readelf -d), that a process loading a package without a GPU
keeps them out (LD_DEBUG=libs lists every library a process initializes), and that `wgk smoke` still opens Dawn.
Usage: opened_on_use_test.py WGK LIBWGK"""
import os
import subprocess
import sys

LAZY = ("libcurl", "libwebgpu_wrapper", "libcrypto", "libstdc++")
wgk, lib = sys.argv[1:3]
for binary in (wgk, lib):
    dyn = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    needed = [line.split("[", 1)[1].rstrip("]") for line in dyn.splitlines() if "(NEEDED)" in line]
    assert needed, f"{binary}: readelf listed no NEEDED entry: the check would pass on anything"
    linked = [n for n in needed if n.startswith(LAZY)]
    assert not linked, f"{binary} links {linked} again: {needed}"
    print(f"{os.path.basename(binary)}: needs {', '.join(needed)}")


def initialized(*args):
    env = dict(os.environ, LD_DEBUG="libs", HF_HUB_OFFLINE="1")
    out = subprocess.run([wgk, *args], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    libs = [line for line in out.stderr.splitlines() if "calling init:" in line]
    assert any("libc.so" in line for line in libs), "LD_DEBUG=libs listed no library: the check would pass on anything"
    return libs


libs = initialized("info", "ai.onnx.RotaryEmbedding")
opened = [line for line in libs if any(name in line for name in LAZY)]
assert not opened, "wgk info of a local package loaded:\n" + "\n".join(opened)
print(f"wgk info ai.onnx.RotaryEmbedding: {len(libs)} libraries initialized, none of {', '.join(LAZY)}")
libs = initialized("smoke")
assert any("libwebgpu_wrapper" in line for line in libs), "wgk smoke ran without opening Dawn?\n" + "\n".join(libs)
assert not any("libcurl" in line for line in libs), "wgk smoke loaded libcurl"
print(f"wgk smoke: {len(libs)} libraries initialized, Dawn among them")
