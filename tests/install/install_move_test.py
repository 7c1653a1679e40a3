#!/usr/bin/python3
"""A relocatable install (issue 16 item 1), as a user gets it: install into a temporary prefix, move the prefix,
then, with no build or source path anywhere in the environment (no WGK_KERNEL_PATH, no LD_LIBRARY_PATH, the
working directory elsewhere), run the installed `wgk info` and `wgk list`, and build the installed examples
(rope_chain.c, own_device.c) against the moved prefix with its wgk.pc and run them. Then the moved prefix's
kernels are taken away: the installed wgk must not find the checkout's instead. The build tree's wgk, run the
same way, must still find the checkout's kernels/.

usage: install_move_test.py BUILD_DIR SOURCE_DIR [--sanitize]
Exit 77 when Dawn finds no adapter (own_device says so).
"""
import os, shutil, subprocess, sys, tempfile

BUILD, SRC = (os.path.realpath(p) for p in sys.argv[1:3])
SANITIZE = "--sanitize" in sys.argv[3:]
ROPE = "webgpu-kernels/ai.onnx.RotaryEmbedding"
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failures.append(what)


def outside(path, *dirs):
    return all(os.path.commonpath([path, d]) != d for d in dirs)


def scratch_parent():
    """A temporary folder outside the build and source trees (the test's TMPDIR is inside the build tree)."""
    for d in ("/tmp", "/var/tmp", os.path.expanduser("~")):
        d = os.path.realpath(d)
        if os.path.isdir(d) and os.access(d, os.W_OK) and outside(d, BUILD, SRC) and outside(BUILD, d):
            return d
    for d in ("/tmp", "/var/tmp"):
        if os.path.isdir(d) and outside(d, BUILD, SRC):
            return d
    sys.exit("no writable temporary folder outside the build and source trees")


def clean_env(home):
    """What a user's shell has: no WGK_*, no library path, nothing naming the build or the checkout."""
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "HF_HUB_OFFLINE": "1", "LANG": "C.UTF-8"}
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "WGK_WAIT_TIMEOUT_MS"):
        if k in os.environ:
            env[k] = os.environ[k]
    for k, v in env.items():
        if k not in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
            assert BUILD not in v and SRC not in v, (k, v)
    return env


def run(cmd, env, cwd):
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    print(f"$ {' '.join(cmd)}  (exit {p.returncode})\n{p.stdout}{p.stderr}", flush=True)
    return p


def main():
    # `make install PREFIX=/x` passes the prefix to cmake on every call, not only at the first configure.
    p = subprocess.run(["make", "-n", "-C", SRC, "install", "PREFIX=/x/wgk-prefix", f"BUILD={BUILD}"],
                       capture_output=True, text=True)
    check("-DCMAKE_INSTALL_PREFIX=/x/wgk-prefix" in p.stdout and "--prefix /x/wgk-prefix" in p.stdout,
          "make install PREFIX=... re-configures and installs with that prefix")

    root = tempfile.mkdtemp(prefix="wgk-install-", dir=scratch_parent())
    try:
        first, moved = os.path.join(root, "first"), os.path.join(root, "elsewhere", "wgk")
        home, cwd = os.path.join(root, "home"), os.path.join(root, "work")
        for d in (home, cwd, os.path.dirname(moved)):
            os.makedirs(d)
        p = run(["cmake", "--install", BUILD, "--prefix", first], os.environ, BUILD)
        check(p.returncode == 0, "cmake --install --prefix")
        with open(os.path.join(BUILD, "install_manifest.txt")) as f:
            installed = f.read().split()
        check(installed and all(x.startswith(first + "/") for x in installed),
              f"every installed file under the prefix ({len(installed)} files)")
        for rel in ("bin/wgk", "include/wgk.h", "include/wgk/webgpu_dawn.h", "lib/pkgconfig/wgk.pc",
                    "lib/wgk/libwebgpu_wrapper.so", "share/wgk/kernels/ai.onnx.RotaryEmbedding/build/webgpu/manifest.json",
                    "share/doc/wgk/examples/own_device.c"):
            check(os.path.exists(os.path.join(first, rel)), f"installed {rel}")
        os.rename(first, moved)
        env = clean_env(home)
        kernels = os.path.join(moved, "share/wgk/kernels")

        p = run([os.path.join(moved, "bin/wgk"), "info", ROPE, "--version", "1"], env, cwd)
        check(p.returncode == 0 and f"package: {kernels}/ai.onnx.RotaryEmbedding" in p.stdout,
              "moved wgk info finds the moved prefix's kernels")
        check(SRC not in p.stdout + p.stderr and BUILD not in p.stdout + p.stderr, "wgk info names no build path")
        p = run([os.path.join(moved, "bin/wgk"), "list"], env, cwd)
        check(p.returncode == 0 and f"installed        {kernels}" in p.stdout and SRC not in p.stdout,
              "moved wgk list searches the moved share/wgk/kernels only")

        # The installed examples, built as a user would: the moved prefix's wgk.pc, its header and libraries.
        penv = dict(env, PKG_CONFIG_PATH=os.path.join(moved, "lib/pkgconfig"))
        flags = run(["pkg-config", "--cflags", "--libs", "wgk"], penv, cwd)
        check(flags.returncode == 0 and moved in flags.stdout, "pkg-config wgk points into the moved prefix")
        extra = ["-fsanitize=address,undefined"] if SANITIZE else []
        skipped = False
        for name in ("rope_chain", "own_device"):
            src = os.path.join(moved, "share/doc/wgk/examples", name + ".c")
            exe = os.path.join(cwd, name)
            p = run(["cc", "-std=c17", "-Wall", "-Werror", "-o", exe, src] + extra + flags.stdout.split() + ["-lm"],
                    penv, cwd)
            check(p.returncode == 0, f"{name}.c builds against the moved install")
            p = run([exe], env, cwd)
            if p.returncode == 77:
                print(f"SKIP: installed {name} reported itself skipped (exit 77): {p.stdout.strip()[-300:]}")
                skipped = True
                continue
            check(p.returncode == 0 and "verified" in p.stdout, f"installed {name} runs on the moved install")

        # Without its kernels the moved install finds none: never the checkout's.
        os.rename(kernels, kernels + ".away")
        p = run([os.path.join(moved, "bin/wgk"), "info", ROPE, "--version", "1"], env, cwd)
        check(p.returncode != 0 and "not found locally" in p.stdout + p.stderr and SRC not in p.stdout + p.stderr,
              "moved install without its kernels does not fall back to the checkout")

        # The build tree's wgk, run the same way, still uses the checkout's kernels/.
        p = run([os.path.join(BUILD, "wgk"), "info", ROPE, "--version", "1"], env, cwd)
        check(p.returncode == 0 and f"package: {SRC}/kernels/ai.onnx.RotaryEmbedding" in p.stdout,
              "build-tree wgk finds the checkout's kernels")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed: " + "; ".join(failures))
        return 1
    if skipped:
        print("SKIP: an installed example found no adapter (its SKIP line above says so); every other check passed")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
