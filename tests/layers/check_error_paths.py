#!/usr/bin/env python3
"""One error path: every layer reports through util_error (src/util/error.h), and only the CLI's printer prints.

Fails, naming file and line, on any of these in a C file under src/ (comments left out):
  - a write to stderr (fprintf, vfprintf, fputs, fputc, fwrite, perror) outside the CLI's printer (PRINTER below):
    the library hands its diagnostics to wgk_context_options.log;
  - a string literal holding "out of memory" outside src/util/error.c (util_error_oom says it, and
    wgk_status_str(WGK_ERR_OUT_OF_MEMORY) where a text is needed);
  - a function of its own for out-of-memory errors (a name ending in `oom`, or an OOM macro) other than
    util_error_oom and the evaluator's expr_oom (util_error_oom's error, put at the expression's node);
  - a `char *why` parameter or buffer handed down to be filled (a message buffer beside util_error);
  - the runtime's former setters rt_set and rt_fail.
A file may stand in PENDING with the number of hits it may still hold while its layer is converted (none does
now); a count may only go down. Usage: check_error_paths.py REPO_ROOT | --self-test
"""
import os
import re
import sys

PRINTER = "src/cli/say.c"
OOM_HOME = "src/util/error.c"
OOM_HELPERS = {"util_error_oom", "expr_oom"}

RULES = {
    "stderr": (re.compile(r"\b(?:v?fprintf|fputs|fputc|putc|fwrite|perror)\s*\([^;]*?\bstderr\b|\bperror\s*\("),
               "prints to stderr outside " + PRINTER),
    "oom-text": (re.compile(r'"[^"\n]*out of memory[^"\n]*"'), "spells \"out of memory\" (use util_error_oom)"),
    "oom-helper": (re.compile(r"\b(\w*oom|OOM)\s*\([^;{}]*\)\s*(?:\{|[^;{}\n]*\butil_error)", re.I),
                   "defines an out-of-memory helper of its own (use util_error_oom)"),
    "why": (re.compile(r"(?<!const )\bchar\s*\*\s*why\b(?=[^;=]*[,)])|\bwhy_size\b"),
            "takes a `char *why` message buffer (take a util_error *)"),
    "rt-setter": (re.compile(r"\brt_(?:set|fail)\s*\("), "uses rt_set/rt_fail (set ctx->err through util_error)"),
}

# Files still being converted, and how many hits each may hold at most (rule -> {path: count}).
PENDING = {
    "stderr": {},
    "oom-text": {},
    "oom-helper": {},
    "why": {},
    "rt-setter": {},
}


def strip_comments(text):
    """Comments blanked (newlines kept, so line numbers hold); string literals kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def hits(rule, rel, text):
    pattern = RULES[rule][0]
    for m in pattern.finditer(text):
        if rule == "stderr" and rel == PRINTER:
            continue
        if rule == "oom-text" and rel == OOM_HOME:
            continue
        if rule == "oom-helper" and m.group(1) in OOM_HELPERS:
            continue
        yield text.count("\n", 0, m.start()) + 1, m.group(0)


def check(root):
    problems = []
    counts = {rule: {} for rule in RULES}
    src = os.path.join(root, "src")
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            with open(path, encoding="utf-8", errors="replace") as f:
                text = strip_comments(f.read())
            for rule in RULES:
                found = list(hits(rule, rel, text))
                if not found:
                    continue
                counts[rule][rel] = len(found)
                allowed = PENDING[rule].get(rel, 0)
                if len(found) > allowed:
                    for line, what in found:
                        problems.append(f"{rel}:{line}: {rule}: {RULES[rule][1]}: {what.strip()}"
                                        + (f" ({len(found)} here, {allowed} allowed)" if allowed else ""))
    return problems, counts


def self_test():
    """The checker must refuse each kind of second error path: a tree holding one of each."""
    import tempfile
    samples = {
        "stderr": 'void f(void) { fprintf(stderr, "x\\n"); }\n',
        "oom-text": 'const char *f(void) { return "out of memory"; }\n',
        "oom-helper": "static int oom(util_error *err) { return util_error_oom(err, 0, 0); }\n",
        "why": "int f(int x, char *why, size_t n);\n",
        "rt-setter": "int f(void *ctx) { return rt_set(ctx, 1, \"x\"); }\n",
    }
    failed = 0
    for rule, text in samples.items():
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "src", "zz"))
            with open(os.path.join(root, "src", "zz", "a.c"), "w", encoding="utf-8") as f:
                f.write("/* fprintf(stderr, \"out of memory\") in a comment is no hit */\n" + text)
            problems, _ = check(root)
            if not any(f": {rule}: " in p for p in problems) or len(problems) != 1:
                print(f"self-test: the {rule} sample gave {problems}")
                failed += 1
    print("self-test:", "failed" if failed else f"each of {len(samples)} samples refused")
    return 1 if failed else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems, counts = check(argv[1])
    for p in problems:
        print(p)
    total = {rule: sum(c.values()) for rule, c in counts.items()}
    print("error paths:", ", ".join(f"{rule} {n}" for rule, n in total.items()))
    if problems:
        print(f"{len(problems)} second error path(s): report through util_error, print only in {PRINTER}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
