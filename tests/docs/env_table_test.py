#!/usr/bin/env python3
"""docs/environment.md against the code (issue 38 item 4): every environment variable the library, the CLI, the
Python binding, the scripts and the tests read is in the page's tables, every variable the tables list is read
somewhere, and in src/ only src/util/env.c calls getenv.

usage: env_table_test.py SOURCE_DIR            the check; prints "ok: N variables, each read and listed"
       env_table_test.py --self-test           the check refuses a tree with a read the page lacks, a listed
                                               variable nothing reads, and a getenv outside util/env.c

Reads found: in C, the first upper-case string literal in a call of a function whose name holds "env" (getenv,
util_env, util_env_int, env_long, ...; not setenv/unsetenv) or of runtime/options.c's pick_count / pick_switch, and
`#define *_ENV "NAME"`; in Python os.environ.get / os.getenv / os.environ[...] not assigned / "NAME" in os.environ;
in shell ${NAME:-...}, ${NAME-...}, ${NAME:=...}, ${NAME:+...}, ${NAME:?...}; in CMake $ENV{NAME}."""
import os
import re
import shutil
import sys
import tempfile

DIRS = ["src", "include", "python", "scripts", "tests", "bench", "examples", "fuzz", "cmake"]
TOP = ["Makefile", "CMakeLists.txt"]
SKIP_DIRS = {"third_party", "__pycache__", "node_modules", "results", "corpus"}
# Shell variables the scanner's patterns catch that are not read from the environment.
NOT_ENVIRONMENT = {"VERSION_CODENAME": "scripts/bootstrap.sh sources /etc/os-release for it"}

C_CALL = re.compile(r'\b(?!setenv\b|unsetenv\b|putenv\b)(\w*env\w*|pick_count|pick_switch)\s*\(([^;{}()]*)')
C_NAME = re.compile(r'"([A-Z][A-Z0-9_]*)"')
C_DEFINE = re.compile(r'#define\s+\w+_ENV\s+"([A-Z][A-Z0-9_]*)"')
PY_READ = re.compile(r'(?:os\.environ\.get|os\.getenv|environ\.get)\(\s*[\'"]([A-Z][A-Z0-9_]*)[\'"]'
                     r'|os\.environ\[\s*[\'"]([A-Z][A-Z0-9_]*)[\'"]\s*\](?!\s*=[^=])'
                     r'|[\'"]([A-Z][A-Z0-9_]*)[\'"]\s+(?:not\s+)?in\s+os\.environ')
SH_READ = re.compile(r'\$\{([A-Z][A-Z0-9_]*)(?::?[-=?+])')
CMAKE_READ = re.compile(r'\$ENV\{([A-Z][A-Z0-9_]*)\}')
DOC_ROW = re.compile(r'^\|\s*(`[A-Z][A-Z0-9_]*`(?:\s*,\s*`[A-Z][A-Z0-9_]*`)*)\s*\|', re.M)


def files_of(root):
    out = [os.path.join(root, t) for t in TOP]
    for d in DIRS:
        for dp, dn, fn in os.walk(os.path.join(root, d)):
            dn[:] = sorted(x for x in dn if x not in SKIP_DIRS and not re.match(r"build($|-)", x))
            out += [os.path.join(dp, f) for f in sorted(fn)]
    return [p for p in out if os.path.isfile(p)]


def is_shell(path, text):
    return path.endswith(".sh") or os.path.basename(path) == "Makefile" or \
        text.startswith(("#!/bin/sh", "#!/bin/bash", "#!/usr/bin/env bash", "#!/usr/bin/env sh"))


def reads(root):
    """{name: {relative paths reading it}} and [paths in src/ calling getenv outside util/env.c]."""
    found, stray = {}, []
    for p in files_of(root):
        rel = os.path.relpath(p, root)
        if rel == os.path.join("tests", "docs", "env_table_test.py"):  # this file's patterns and cases
            continue
        try:
            text = open(p, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        names = []
        if p.endswith((".c", ".h")):
            for m in C_CALL.finditer(text):
                n = C_NAME.search(m.group(2))
                if n:
                    names.append(n.group(1))
            names += C_DEFINE.findall(text)
            if rel.startswith("src" + os.sep) and rel != os.path.join("src", "util", "env.c") and \
                    re.search(r'\bgetenv\s*\(', text):
                stray.append(rel)
        elif p.endswith(".py"):
            names += [next(g for g in m.groups() if g) for m in PY_READ.finditer(text)]
        elif is_shell(p, text):
            names += SH_READ.findall(text)
        elif p.endswith(".cmake") or os.path.basename(p) == "CMakeLists.txt":
            names += CMAKE_READ.findall(text)
        for n in names:
            if n not in NOT_ENVIRONMENT:
                found.setdefault(n, set()).add(rel)
    return found, stray


def listed(root):
    text = open(os.path.join(root, "docs", "environment.md"), encoding="utf-8").read()
    names = set()
    for m in DOC_ROW.finditer(text):
        names.update(re.findall(r'`([A-Z][A-Z0-9_]*)`', m.group(1)))
    return names


def check(root):
    found, stray = reads(root)
    table = listed(root)
    errors = []
    for n in sorted(set(found) - table):
        errors.append("docs/environment.md: %s is read by %s but not in the tables" % (n, ", ".join(sorted(found[n]))))
    for n in sorted(table - set(found)):
        errors.append("docs/environment.md: %s is listed but nothing reads it" % n)
    for rel in stray:
        errors.append("%s: calls getenv; the library reads the environment only through src/util/env.c" % rel)
    # a scanner that finds nothing would pass: the library's own reads must be seen
    for must in ("WGK_WAIT_TIMEOUT_MS", "WGK_STAGED_UPLOAD", "HF_ENDPOINT", "WGK_LIBRARY", "FUZZ_BUILD"):
        if must not in found:
            errors.append("scanner: %s not found among the reads (the patterns no longer match the code)" % must)
    return errors, len(found)


def self_test(root):
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "tree")
        for d in DIRS + ["docs"]:
            if os.path.isdir(os.path.join(root, d)):
                shutil.copytree(os.path.join(root, d), os.path.join(copy, d),
                                ignore=shutil.ignore_patterns(*SKIP_DIRS, "build", "build-*"))
        for t in TOP:
            if os.path.isfile(os.path.join(root, t)):
                shutil.copy(os.path.join(root, t), copy)
        errors, _ = check(copy)
        if errors:
            print("FAIL: the copied tree is not clean:", errors)
            return 1
        doc = os.path.join(copy, "docs", "environment.md")
        original = open(doc).read()
        cases = [
            ("src/util/extra.c", '#include "util/env.h"\nint f(void) { return util_env("WGK_NOT_LISTED") != 0; }\n',
             "WGK_NOT_LISTED is read by"),
            ("src/gpu/extra.c", '#include <stdlib.h>\nint g(void) { return getenv("HOME") != 0; }\n', "calls getenv"),
            ("scripts/extra.sh", '#!/usr/bin/env bash\necho "${SOME_KNOB:-1}"\n', "SOME_KNOB is read by"),
            ("python/wgk/extra.py", 'import os\nX = os.environ.get("WGK_PY_KNOB")\n', "WGK_PY_KNOB is read by"),
            ("docs/environment.md", original + "\n| `WGK_NOBODY_READS` | x | y | z |\n", "WGK_NOBODY_READS is listed"),
        ]
        for rel, text, want in cases:
            path = os.path.join(copy, rel)
            saved = open(path).read() if os.path.exists(path) else None
            open(path, "w").write(text)
            errors, _ = check(copy)
            if not any(want in e for e in errors):
                print("FAIL: %s: expected an error with %r, got %r" % (rel, want, errors))
                failures += 1
            if saved is None:
                os.remove(path)
            else:
                open(path, "w").write(saved)
    if not failures:
        print("ok: the check refuses %d kinds of drift" % len(cases))
    return 1 if failures else 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.argv[1:2] == ["--self-test"]:
        return self_test(os.path.normpath(os.path.join(here, "..", "..")))
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    errors, n = check(sys.argv[1])
    for e in errors:
        print("FAIL: " + e)
    if errors:
        return 1
    print("ok: %d variables, each read and listed" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
