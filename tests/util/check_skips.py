#!/usr/bin/python3
"""tests_skip_reasons: every place a test can report itself skipped says why. In the test and example sources
(tests/, examples/), a skip is exit status 77 (ctest's SKIP_RETURN_CODE), cmocka's skip() or a pytest skip;
each must give its reason where it happens:
  - an exit 77 (`exit 77`, `sys.exit(77)`, `return 77`, `exit(77)`, `process.exit(77)`, the same through a
    SKIP / WGK_TEST_SKIPPED constant) has a line printing "SKIP: <reason>" on it or on one of the 4 lines above
    (tests/util/tier.py lists the SKIP lines of every skipped test; without one it can only say "no reason");
  - cmocka's skip() is called only through wgk_skip("why", ...) (tests/util/wgk_test.h), which prints it;
  - pytest.skip(...) and the skip/skipif marks carry a reason.
The test machinery itself (which prints the reasons it is handed, and whose self-test skips without one on
purpose) is exempt, each file with its reason below. Every test carrying a label is checked when cmake
configures (tests/CMakeLists.txt: a test with no label is a configure error).

usage: check_skips.py SOURCE_DIR        exit 1 naming file:line of each skip without a reason
       check_skips.py --self-test      the check refuses each kind of unexplained skip and accepts explained ones
"""
import os
import re
import sys
import tempfile

EXEMPT = {
    "tests/util/selftest.sh": "the machinery's self-test: exits 77 on purpose to see it reported",
    "tests/util/probe.c": "the self-test's probe: skips without a reason on purpose, to see that refused",
    "tests/util/wgk_test.c": "the machinery: prints the reason wgk_skip was given, then exits 77",
    "tests/util/wgk_test.h": "wgk_skip itself: prints the reason, then calls skip()",
    "tests/util/run_test.py": "the machinery: finish(SKIP, message) prints \"SKIP: message\"",
    "tests/util/tier.py": "the tier runner: reads skips, makes none",
    "tests/util/check_skips.py": "this check (its patterns and self-test)",
}
EXTS = (".sh", ".py", ".c", ".h", ".mjs", ".js")
SKIP_EXIT = {  # by file type
    ".sh": re.compile(r"\bexit\s+77\b"),
    ".py": re.compile(r"\bexit\(\s*(77|SKIP)\s*\)|\breturn\s+(77|SKIP)\b"),
    ".c": re.compile(r"\bexit\(\s*(77|WGK_TEST_SKIPPED)\s*\)|\breturn\s+(77|WGK_TEST_SKIPPED)\b"),
    ".mjs": re.compile(r"process\.exit\(\s*77\s*\)"),
}
SKIP_EXIT[".h"], SKIP_EXIT[".js"] = SKIP_EXIT[".c"], SKIP_EXIT[".mjs"]
BARE_SKIP = re.compile(r"(?<![\w.])skip\(\s*\)")
PYTEST_SKIP = re.compile(r"pytest\.skip\(\s*\)|mark\.skip(if)?\((?![^)]*reason=)[^)]*\)|mark\.skip\b(?!\s*\()")


def check_file(path, rel):
    problems = []
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError as e:
        return [f"{rel}: cannot read ({e})"]
    for i, line in enumerate(lines):
        code = line.split("#", 1)[0] if rel.endswith((".py", ".sh")) else line
        code = re.sub(r"/\*.*?\*/|//.*$", "", code) if rel.endswith((".c", ".h", ".mjs", ".js")) else code
        pattern = SKIP_EXIT.get(os.path.splitext(rel)[1])
        if pattern and pattern.search(code):
            window = lines[max(0, i - 4):i + 1]
            if not any("SKIP:" in w or "SKIP: " in w for w in window):
                problems.append(f"{rel}:{i + 1}: exits 77 (skipped) without printing \"SKIP: <reason>\" on this line "
                                f"or the 4 above: {line.strip()}")
        if rel.endswith((".c", ".h")) and BARE_SKIP.search(code):
            problems.append(f"{rel}:{i + 1}: cmocka skip() without a reason: call wgk_skip(\"why\", ...) "
                            f"(tests/util/wgk_test.h): {line.strip()}")
        if rel.endswith(".py") and PYTEST_SKIP.search(code):
            problems.append(f"{rel}:{i + 1}: a pytest skip without a reason: {line.strip()}")
    return problems


def check_tree(src):
    problems, seen = [], 0
    for top in ("tests", "examples"):
        for d, dirs, files in os.walk(os.path.join(src, top)):
            dirs[:] = sorted(x for x in dirs if x not in ("node_modules", "__pycache__", "conformance"))
            for f in sorted(files):
                if not f.endswith(EXTS):
                    continue
                rel = os.path.relpath(os.path.join(d, f), src)
                if rel in EXEMPT:
                    continue
                seen += 1
                problems += check_file(os.path.join(d, f), rel)
    return problems, seen


def self_test():
    bad = {"a.sh": "echo skipping\nexit 77\n", "b.py": "import sys\nsys.exit(77)\n",
           "c.c": "int main(void) { return 77; }\n", "d.c": "static void t(void **s) { skip(); }\n",
           "e.py": "import pytest\n@pytest.mark.skip\ndef test_x(): pass\n", "f.mjs": "process.exit(77);\n",
           "g.py": "SKIP = 77\nprint('no reason')\nsys.exit(SKIP)\n"}
    good = {"a.sh": "echo \"SKIP: no script(1)\"; exit 77\n",
            "b.py": "print('SKIP: no onnx')\nsys.exit(77)\n",
            "c.c": "printf(\"SKIP: no adapter\\n\");\nreturn 77;\n",
            "d.c": "wgk_skip(\"no shader-f16\");\n",
            "e.py": "@pytest.mark.skipif(True, reason='never')\ndef test_x(): pass\n"}
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in list(bad.items()) + [("ok_" + n, t) for n, t in good.items()]:
            open(os.path.join(tmp, name), "w").write(text)
        missed = [n for n in bad if not check_file(os.path.join(tmp, n), n)]
        wrong = [n for n in good if check_file(os.path.join(tmp, "ok_" + n), "ok_" + n)]
    if missed or wrong:
        print(f"FAIL: the check let through {missed} and refused {wrong}")
        return 1
    print(f"ok: the check refuses {len(bad)} unexplained skips and accepts {len(good)} explained ones")
    return 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) != 1:
        sys.exit(__doc__)
    problems, seen = check_tree(argv[0])
    for p in problems:
        print("FAIL: " + p)
    if problems:
        return 1
    print(f"ok: every skip in {seen} test and example sources says why ({len(EXEMPT)} machinery files exempt)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
