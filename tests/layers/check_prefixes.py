#!/usr/bin/env python3
"""Internal names say their layer, and only the public header's names start with wgk_.

Reads the layer table of docs/contributing.md (its fourth column: the layer's internal prefixes) and fails on
  - an identifier `wgk_...` in a C file under src/ that include/wgk.h does not declare (protobuf-c's generated
    `wgk_onnx__...` names aside), and
  - a name declared at file scope in a header under src/FOLDER/ (function, typedef, struct, union or enum tag)
    that starts with none of FOLDER's prefixes and is not public.
Usage: check_prefixes.py REPO_ROOT
"""
import os
import re
import sys

ROW = re.compile(r"^\|\s*`src/([a-z_]+)`\s*\|[^|]*\|[^|]*\|([^|]*)\|")
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


def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"^\s*#[^\n]*(\\\n[^\n]*)*", " ", text, flags=re.M)


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


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    table = prefixes(os.path.join(root, "docs", "contributing.md"))
    public = set(WGK.findall(open(os.path.join(root, "include", "wgk.h"), encoding="utf-8").read()))
    problems = []
    if not table:
        problems.append("docs/contributing.md: no internal prefix column in the layer table")
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
            if not name.endswith(".h") or layer not in table or name == "webgpu_abi.h":  # WebGPU's own names
                continue
            for stmt in top_level(strip(text)):
                for d in declared(stmt):
                    if re.fullmatch(r"[A-Z0-9_]+", d):  # macro uses (static assertions)
                        continue
                    if d not in public and not d.startswith(table[layer]) and not d.startswith(("WGPU", "wgpu")):
                        problems.append(f"{shown}: {d} is declared in src/{layer} but starts with none of "
                                        f"{', '.join(table[layer])} (the layer table of docs/contributing.md)")
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s)" if problems else "every internal name carries its layer's prefix")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
