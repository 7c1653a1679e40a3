#!/usr/bin/env python3
"""The include edges between src/ folders are the ones the "How it is built" table of docs/contributing.md allows.

Reads the table (rows `| `src/FOLDER` | does | `a`, `b` |`: the folders FOLDER may include) and every
`#include "FOLDER/..."` under src/; fails on an edge the table does not allow, on a folder under src/ that the
table does not name, and on a table that allows an upward edge (a folder may name only folders above its row).
Usage: check_layers.py REPO_ROOT
"""
import os
import re
import sys

ROW = re.compile(r"^\|\s*`src/([a-z_]+)`\s*\|[^|]*\|([^|]*)\|")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/', re.M)


def read_table(readme):
    order, allowed = [], {}
    with open(readme, encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line)
            if m:
                folder = m.group(1)
                order.append(folder)
                allowed[folder] = set(re.findall(r"`([a-z_]+)`", m.group(2)))
    return order, allowed


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    order, allowed = read_table(os.path.join(root, "docs", "contributing.md"))
    problems = []
    if not order:
        problems.append("docs/contributing.md: no layer table (rows | `src/FOLDER` | does | may include |)")
    for i, folder in enumerate(order):
        for dep in allowed[folder]:
            if dep not in order[:i]:
                problems.append(f"docs/contributing.md: src/{folder} may include {dep}, which is not a layer below it")
    src = os.path.join(root, "src")
    for folder in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, folder)) and folder not in allowed:
            problems.append(f"src/{folder}: a folder the layer table of docs/contributing.md does not name")
    for dirpath, _, files in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        folder = rel.split(os.sep)[0]
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                dep = m.group(1)
                if dep == folder or dep not in allowed and not os.path.isdir(os.path.join(src, dep)):
                    continue  # own folder, or not a src/ folder (a generated or system path)
                if dep not in allowed.get(folder, set()):
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(f"{os.path.relpath(path, root)}:{line}:1: include \"{dep}/...\": "
                                    f"src/{folder} may not include src/{dep} (docs/contributing.md, How it is built)")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{len(order)} layers, every include edge allowed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
