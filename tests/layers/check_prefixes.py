#!/usr/bin/env python3
"""Internal names say their layer, one prefix per layer, and only the public header's names start with wgk_.

Reads the layer table of docs/contributing.md (its fourth column: the layer's internal prefix) and fails on
  - a row naming no prefix or more than one (one layer, one prefix),
  - an identifier `wgk_...` in a C file under src/ that include/wgk.h does not declare (protobuf-c's generated
    `wgk_onnx__...` names aside),
  - a name declared at file scope in a header under src/FOLDER/ (function, typedef, struct, union or enum tag)
    that does not start with FOLDER's prefix and is not public, and
  - an external definition in a C file under src/FOLDER/ (a function or variable not `static`, so the linker
    sees it) that does not start with FOLDER's prefix and is not public, unless EXTERNAL_EXCEPTIONS names it.
Usage: check_prefixes.py REPO_ROOT | --self-test
"""
import os
import re
import sys

ROW = re.compile(r"^\|\s*`src/([a-z_]+)`\s*\|[^|]*\|[^|]*\|([^|]*)\|")
# External definitions that cannot carry their layer's prefix, and why.
EXTERNAL_EXCEPTIONS = {("cli", "main"): "the program's entry point"}
WGK = re.compile(r"\bwgk_[a-z0-9_]+\b")
DECL = [re.compile(r"\b(?:struct|union|enum)\s+([A-Za-z_]\w*)\s*\{"),        # a tag defined here
        re.compile(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\("),                 # typedef R (*name)(...)
        re.compile(r"\b([A-Za-z_]\w*)\s*\((?![^()]*\)\s*\()"),             # a function's name
        re.compile(r"^typedef\b[^;(]*?\b([A-Za-z_]\w*)\s*;", re.S)]         # typedef ... name;


def prefixes(readme):
    table = {}
    with open(readme, encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line)
            if m:
                table[m.group(1)] = tuple(re.findall(r"`([a-z_]+)`", m.group(2)))
    return table


TOKENS = re.compile(r"""/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""", re.S)


def strip(text):
    """Comments, string and character literals (left to right, so a quote inside one is no start) and
    preprocessor lines out."""
    text = TOKENS.sub(lambda m: " " if m.group(0)[0] == "/" else m.group(0)[0] * 2, text)
    return re.sub(r"^[ \t]*#(?:\\\n|[^\n])*", " ", text, flags=re.M)


def top_level(text):
    """File-scope statements, each with its braces' bodies emptied (so members and parameters stay out)."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "{":
            if depth == 0:
                cur.append("{")
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            cur.append(ch)
            if ch == ";":
                out.append("".join(cur).strip())
                cur = []
    return out


def declared(stmt):
    names = []
    for i, rx in enumerate(DECL):
        if (i == 1 and not stmt.startswith("typedef")) or (i == 2 and stmt.startswith("typedef")):
            continue
        m = rx.search(stmt)
        if m:
            names.append(m.group(1))
            if i == 2:
                break
    return names


def external_definitions(text):
    """Names of the functions and variables a stripped C file defines without `static` (names in capitals,
    macro uses such as HELPER(name) { ... }, aside)."""
    out, depth, cur, in_func = [], 0, [], False
    for ch in text:
        if ch == "{":
            if depth == 0:
                head = "".join(cur).strip()
                m = re.search(r"\b([A-Za-z_]\w*)\s*\([^;{}=]*\)\s*$", head)
                if m and "=" not in head and not re.match(r"(typedef|struct|union|enum)\b", head):
                    in_func = True
                    if not re.search(r"\bstatic\b", head):
                        out.append(m.group(1))
                else:
                    cur.append("{")
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and in_func:
                in_func, cur = False, []
        elif depth == 0:
            cur.append(ch)
            if ch == ";":
                decl = " ".join("".join(cur).split()).split("=")[0]
                cur = []
                if re.match(r"(static|extern|typedef|struct|union|enum)\b", decl) or "(" in decl:
                    continue  # not a definition, a type, a prototype or a macro use
                m = re.search(r"\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*;?\s*$", decl)
                if m:
                    out.append(m.group(1))
    return [n for n in out if not re.fullmatch(r"[A-Z0-9_]+", n)]


def check(root):
    table = prefixes(os.path.join(root, "docs", "contributing.md"))
    public = set(WGK.findall(open(os.path.join(root, "include", "wgk.h"), encoding="utf-8").read()))
    problems = []
    if not table:
        problems.append("docs/contributing.md: no internal prefix column in the layer table")
    for layer, pre in sorted(table.items()):
        if len(pre) != 1:
            problems.append(f"docs/contributing.md: src/{layer} has {len(pre)} internal prefixes "
                            f"({', '.join(pre) or 'none'}); a layer has exactly one")
    for dirpath, _, files in os.walk(os.path.join(root, "src")):
        rel = os.path.relpath(dirpath, os.path.join(root, "src")).split(os.sep)
        layer = rel[0]
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            shown = os.path.relpath(path, root)
            text = open(path, encoding="utf-8").read()
            for w in sorted(set(WGK.findall(strip(text))) - public):
                if "__" not in w:
                    problems.append(f"{shown}: {w} starts with the public prefix wgk_ but is not in include/wgk.h")
            if layer in table and name.endswith(".c"):
                for d in external_definitions(strip(text)):
                    if d not in public and not d.startswith(table[layer]) and (layer, d) not in EXTERNAL_EXCEPTIONS:
                        problems.append(f"{shown}: {d} is defined without static in src/{layer} but does not start "
                                        f"with {', '.join(table[layer])} (the layer table of docs/contributing.md)")
            if not name.endswith(".h") or layer not in table or name == "webgpu_abi.h":  # WebGPU's own names
                continue
            for stmt in top_level(strip(text)):
                for d in declared(stmt):
                    if re.fullmatch(r"[A-Z0-9_]+", d):  # macro uses (static assertions)
                        continue
                    if d not in public and not d.startswith(table[layer]) and not d.startswith(("WGPU", "wgpu")):
                        problems.append(f"{shown}: {d} is declared in src/{layer} but does not start with "
                                        f"{', '.join(table[layer])} (the layer table of docs/contributing.md)")
    return problems


def self_test():
    """The checker must refuse a second prefix in the table, an unprefixed header name and an unprefixed
    external definition, and pass statics, macro-made functions and the excepted main: small trees of one each."""
    import tempfile
    good = ("int zz_f(void) { return '{'; }\nstatic int g(void) { return 0; }\nconst int zz_n[2] = {1, 2};\n"
            "static const char *s = \"x { y\";\n#define H(n) static int n(void)\nH(h) { return 1; }\n")
    samples = {  # name: (prefix cell, a.c, a.h, expected problem text or None)
        "clean": ("`zz_`", good, "int zz_f(void);\n", None),
        "two prefixes": ("`zz_`, `z_`", good, "", "has 2 internal prefixes"),
        "header name": ("`zz_`", good, "int z_f(void);\n", "z_f is declared in src/zz"),
        "external function": ("`zz_`", good + "int z_g(int a) {\n  return a;\n}\n", "", "z_g is defined without static"),
        "external variable": ("`zz_`", good + "const char *z_names[] = {\"a\"};\n", "", "z_names is defined without"),
    }
    failed = 0
    for what, (cell, c_text, h_text, expect) in samples.items():
        with tempfile.TemporaryDirectory() as root:
            for d in ("src/zz", "docs", "include"):
                os.makedirs(os.path.join(root, d))
            for rel, text in (("docs/contributing.md", f"| `src/zz` | x | y | {cell} |\n"), ("include/wgk.h", ""),
                              ("src/zz/a.c", c_text), ("src/zz/a.h", h_text)):
                with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                    f.write(text)
            problems = check(root)
            if (expect is None and problems) or (expect and (len(problems) != 1 or expect not in problems[0])):
                print(f"self-test: the {what} sample gave {problems}")
                failed += 1
    print("self-test:", "failed" if failed else f"each of {len(samples)} samples judged as expected")
    return 1 if failed else 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    problems = check(sys.argv[1] if len(sys.argv) > 1 else ".")
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s)" if problems else "every internal name carries its layer's prefix")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
