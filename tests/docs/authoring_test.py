#!/usr/bin/env python3
"""docs/authoring.md builds the package it describes (issue 36 item 1): in an empty temporary folder, every code
block marked `<!-- file: PATH -->` is written to PATH and every block marked `<!-- run -->` runs (bash -e, with
the wgk under test first on PATH, and python3 there the Python running this test, which has numpy), in page order. Every code block of the page must carry one of the two marks,
so nothing the page shows goes untested. The last run must show `wgk test` passing every case of a verified
package: a closing "N passed, 0 failed" and no "unverified" warning.

usage: authoring_test.py SOURCE_DIR WGK     prints "ok: docs/authoring.md: N files, M commands, the package passes"
"""
import os
import re
import subprocess
import sys
import tempfile

MARK = re.compile(r'^<!--\s*(file:\s*(\S+)|run)\s*-->\s*$')
FENCE = re.compile(r'^```')


def blocks(page):
    """[(kind, path, text)] in page order; kind "file", "run" or None (an unmarked block)."""
    out, lines, i, mark = [], open(page, encoding="utf-8").read().split("\n"), 0, None
    while i < len(lines):
        m = MARK.match(lines[i])
        if m:
            mark = ("file", m.group(2)) if m.group(2) else ("run", None)
            i += 1
            continue
        if FENCE.match(lines[i]):
            j = i + 1
            while j < len(lines) and not FENCE.match(lines[j]):
                j += 1
            kind, path = mark if mark else (None, None)
            out.append((kind, path, "\n".join(lines[i + 1:j]) + "\n", i + 1))
            mark, i = None, j + 1
            continue
        if lines[i].strip():
            mark = None
        i += 1
    return out


def write_file(folder, path, text):
    """One file block of the page, written at folder/path."""
    full = os.path.join(folder, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def write_files(page, folder):
    """Every file block of the page into folder (the package the page builds, before any command of it runs)."""
    for kind, path, text, _ in blocks(page):
        if kind == "file":
            write_file(folder, path, text)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, wgk = sys.argv[1], os.path.abspath(sys.argv[2])
    page = os.path.join(src, "docs", "authoring.md")
    bs = blocks(page)
    bad = [line for kind, _, _, line in bs if kind is None]
    if bad:
        print("docs/authoring.md: code blocks at lines %s carry no <!-- file: PATH --> or <!-- run --> mark"
              % ", ".join(map(str, bad)))
        return 1
    bindir = tempfile.mkdtemp(prefix="wgk-authoring-bin-")
    os.symlink(wgk, os.path.join(bindir, "wgk"))
    os.symlink(sys.executable, os.path.join(bindir, "python3"))  # the page's reference imports numpy
    env = dict(os.environ)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env.pop("WGK_KERNEL_PATH", None)
    n_files = n_runs = 0
    last = ""
    with tempfile.TemporaryDirectory(prefix="wgk-authoring-") as work:
        for kind, path, text, line in bs:
            if kind == "file":
                write_file(work, path, text)
                n_files += 1
                continue
            r = subprocess.run(["bash", "-e", "-c", text], cwd=work, env=env, capture_output=True, text=True,
                               timeout=600)
            n_runs += 1
            last = r.stdout + r.stderr
            sys.stdout.write("--- docs/authoring.md:%d\n%s%s" % (line, text, last))
            if r.returncode != 0:
                print("docs/authoring.md:%d: the block exits %d" % (line, r.returncode))
                return 1
    os.unlink(os.path.join(bindir, "wgk"))
    os.unlink(os.path.join(bindir, "python3"))
    os.rmdir(bindir)
    m = re.search(r'^(\d+) passed, 0 failed', last, re.M)
    if not m or int(m.group(1)) == 0:
        print("docs/authoring.md: the last block does not end in `wgk test` passing (no 'N passed, 0 failed')")
        return 1
    if "unverified" in last:
        print("docs/authoring.md: the package the page builds is unverified (metadata.json missing or refused)")
        return 1
    print("ok: docs/authoring.md: %d files, %d commands, the package passes (%s passed)" % (n_files, n_runs, m.group(1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
