"""libcurl is opened by the Hub client's first request (src/hub/libcurl.c), never linked: a process that downloads
nothing (every local `wgk run`) does not map and relocate libcurl and its libraries before main. Checks that no
binary given needs libcurl (readelf -d), and that a process that loads a package without the network keeps libcurl
out of its maps (LD_DEBUG=libs lists every library the process opened).
Usage: libcurl_unlinked_test.py WGK LIBWGK"""
import os
import subprocess
import sys

wgk, lib = sys.argv[1:3]
for binary in (wgk, lib):
    dyn = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    needed = [line.split("[", 1)[1].rstrip("]") for line in dyn.splitlines() if "(NEEDED)" in line]
    assert needed, f"{binary}: readelf listed no NEEDED entry: the check would pass on anything"
    assert not any("curl" in n for n in needed), f"{binary} links libcurl again: {needed}"
    print(f"{os.path.basename(binary)}: needs {', '.join(needed)}")
env = dict(os.environ, LD_DEBUG="libs", HF_HUB_OFFLINE="1")
out = subprocess.run([wgk, "info", "ai.onnx.RotaryEmbedding"], capture_output=True, text=True, env=env)
assert out.returncode == 0, out.stdout + out.stderr
opened = [line for line in out.stderr.splitlines() if "calling init:" in line]
assert any("libc.so" in line for line in opened), "LD_DEBUG=libs listed no library: the check would pass on anything"
assert not any("libcurl" in line for line in opened), "wgk info of a local package loaded libcurl:\n" + "\n".join(opened)
print(f"wgk info ai.onnx.RotaryEmbedding: {len(opened)} libraries initialized, libcurl not among them")
