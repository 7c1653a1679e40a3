#!/usr/bin/python3
"""scripts/bootstrap.sh as an ordinary user (issue 35 item 1).

usage: bootstrap_test.py SOURCE_DIR

The script runs as a user that is not root: under ctest as root, a system user made for the test with useradd
(and removed afterwards); as an ordinary user, that user. `sudo`, `apt-get` and `tee` on its PATH are
stand-ins that record their call and refuse, so nothing can change the system even when the test fails.

  present    on this machine (bootstrapped, as `make test` does before ctest), `--dry-run` and a real run of
             every set print "nothing to install", exit 0, call no sudo/apt-get and change no file of the
             checkout's npm stamps or apt's sources.
  plan       with a stand-in dpkg-query that reports every package missing and Mesa 24, `--dry-run` prints the
             plan (the packages, the Mesa upgrade and why) and calls nothing; a real run prints the same plan
             before its first call of sudo.
"""
import grp, os, pwd, shutil, subprocess, sys

SKIP = 77
src = os.path.abspath(sys.argv[1])
script = os.path.join(src, "scripts", "bootstrap.sh")
work = os.path.join(os.environ.get("WGK_TEST_TMP") or os.environ.get("TMPDIR", "/tmp"), "bootstrap")
failures = []


def check(ok, what, out=""):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)
        print(out)


def user():
    """(name, made): an account that is not root, made here only when the test runs as root."""
    if os.getuid() != 0:
        return None, False
    name = "wgk-bootstrap-test"
    try:
        pwd.getpwnam(name)
        return name, False
    except KeyError:
        pass
    if not shutil.which("useradd") or not shutil.which("runuser"):
        print("SKIP: running as root without useradd/runuser: cannot run bootstrap as an ordinary user")
        sys.exit(SKIP)
    subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
    return name, True


def shims(folder, dpkg_missing):
    os.makedirs(folder, exist_ok=True)
    log = os.path.join(work, "calls.log")
    for tool in ("sudo", "apt-get", "tee"):
        with open(os.path.join(folder, tool), "w") as f:
            f.write(f'#!/bin/sh\necho "CALLED {tool} $*"\necho "{tool} $*" >>{log}\nexit 1\n')
        os.chmod(os.path.join(folder, tool), 0o755)
    if dpkg_missing:
        # dpkg-query -W -f=FMT PKG: nothing installed, Mesa 24 (older than bootstrap's 25).
        with open(os.path.join(folder, "dpkg-query"), "w") as f:
            f.write('#!/bin/sh\nfor a; do last=$a; done\n'
                    'if [ "$last" = mesa-vulkan-drivers ]; then printf 24.2.8-1; exit 0; fi\nexit 1\n')
        os.chmod(os.path.join(folder, "dpkg-query"), 0o755)
        # node and npm count as present when on PATH: hide them by giving a PATH without /usr/bin's node.
    return log


def run(account, path, *args):
    env = ["env", "-i", f"PATH={path}", f"HOME={work}", "LANG=C.UTF-8"]
    cmd = env + ["bash", script, *args]
    if account:
        cmd = ["runuser", "-u", account, "--"] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=work)
    return p.returncode, p.stdout + p.stderr


def snapshot():
    """mtimes of what a run could change: the npm stamps and apt's source lists."""
    paths = [os.path.join(src, d, "node_modules", ".wgk-lock-sha256")
             for d in ("third_party/dawn", "tests/oracle", "tests/ort")]
    paths += ["/etc/apt/sources.list"]
    if os.path.isdir("/etc/apt/sources.list.d"):
        paths += [os.path.join("/etc/apt/sources.list.d", n) for n in sorted(os.listdir("/etc/apt/sources.list.d"))]
    return {p: os.stat(p).st_mtime_ns for p in paths if os.path.exists(p)}


def main():
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chmod(work, 0o777)
    account, made = user()
    try:
        who = account or pwd.getpwuid(os.getuid()).pw_name
        print(f"# running bootstrap as {who} (uid {pwd.getpwnam(who).pw_uid})")
        system_path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

        # present: everything installed.
        bin1 = os.path.join(work, "bin-present")
        log = shims(bin1, dpkg_missing=False)
        before = snapshot()
        for args in (["runtime", "--dry-run"], ["test", "--dry-run"], ["runtime"], ["test"]):
            rc, out = run(account, f"{bin1}:{system_path}", *args)
            what = "bootstrap " + " ".join(args)
            check(rc == 0, f"{what}: exit 0 as {who} (got {rc})", out)
            check("nothing to install" in out, f"{what}: says nothing to install", out)
            check("CALLED" not in out and not os.path.exists(log), f"{what}: no sudo, apt-get or tee", out)
        check(snapshot() == before, "no npm stamp or apt source changed")

        # plan: everything missing (stand-in dpkg-query; node and npm hidden by a PATH without them).
        bin2 = os.path.join(work, "bin-missing")
        log = shims(bin2, dpkg_missing=True)
        for tool in ("bash", "dpkg", "sha256sum", "cut", "cat", "grep", "id", "sed"):
            found = shutil.which(tool, path=system_path)
            if found:
                os.symlink(found, os.path.join(bin2, tool))
        rc, out = run(account, bin2, "test", "--dry-run")
        check(rc == 0, f"dry run with packages missing: exit 0 (got {rc})", out)
        for want in ("plan for the 'test' set", "apt-get install build-essential", "libcmocka-dev", "nodejs npm",
                     "mesa-vulkan-drivers >= 25 (now 24.2.8-1", "Dawn refuses lavapipe older than 25",
                     "dry run: nothing changed"):
            check(want in out, f"dry run prints {want!r}", out)
        check("CALLED" not in out and not os.path.exists(log), "dry run: no sudo, apt-get or tee", out)
        rc, out = run(account, bin2, "runtime")
        check(rc != 0, f"real run with packages missing and a refusing sudo: fails (got {rc})", out)
        check("libcmocka-dev" not in out, "runtime set: no test package in its plan", out)
        plan, first_call = out.find("plan for the 'runtime' set"), out.find("CALLED")
        check(0 <= plan < first_call, "the plan is printed before the first sudo", out)
        check(out[first_call:].startswith("CALLED sudo"), "the first system call goes through sudo", out)
    finally:
        if made:
            subprocess.run(["userdel", account])
    if failures:
        print(f"FAIL: {len(failures)} check(s) failed")
        sys.exit(1)
    print("ok: bootstrap needs root only for what is missing, and says what before doing it")


if __name__ == "__main__":
    main()
