#!/usr/bin/env python3
"""No loops between the files of one src/ folder (issue 38: no tangles inside a folder a newcomer must untangle).

File A.c leans on file B.c (both in the same folder) when A.c names a function B.c defines without static. A loop
(A leans on B, B leans back on A, maybe through other files) fails the check, naming each edge with the functions
that make it, so whoever adds one sees which shared piece to move.

Usage: check_folder_loops.py ROOT          checks ROOT/src
       check_folder_loops.py --self-test   a two-file loop is refused and the same files without it pass
"""
import os
import re
import sys
import tempfile

FUNC_DEF = re.compile(r"^(?!static\b|typedef\b|extern\b|return\b|else\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(")
WORD = re.compile(r"[A-Za-z_]\w*")


def strip(text):
    """The text without comments and string or character literals (names inside them are not uses)."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', " ", text, flags=re.S)


def defined_in_source(text):
    names = set()
    for line in text.splitlines():
        m = FUNC_DEF.match(line)
        if m and not line.startswith((" ", "\t", "#", "}")):
            names.add(m.group(1))
    return names


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def folder_edges(src, folder):
    """{A: {B: set(names)}} for the files (stems) of one folder."""
    here = os.path.join(src, folder)
    stems = sorted(n[:-2] for n in os.listdir(here) if n.endswith(".c"))
    text, defs = {}, {}
    for s in stems:
        text[s] = strip(read(os.path.join(here, s + ".c")))
        defs[s] = defined_in_source(text[s])
    edges = {s: {} for s in stems}
    for a in stems:
        words = set(WORD.findall(text[a]))
        for b in stems:
            if a == b:
                continue
            used = words & defs[b] - defs[a]
            if used:
                edges[a][b] = used
    return edges


def loops(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def check(root):
    src = os.path.join(root, "src")
    found = 0
    folders = sorted(
        os.path.relpath(d, src) for d, _, files in os.walk(src) if any(f.endswith(".c") for f in files)
    )
    for folder in folders:
        edges = folder_edges(src, folder)
        for comp in loops(edges):
            found += 1
            print(f"src/{folder}: a loop between {', '.join(f + '.c' for f in comp)}")
            for a in comp:
                for b in comp:
                    if b in edges[a]:
                        names = sorted(edges[a][b])
                        more = f", and {len(names) - 6} more" if len(names) > 6 else ""
                        print(f"  {a}.c -> {b}.c: {', '.join(names[:6])}{more}")
    if found:
        print(f"{found} loop(s) inside folders: move the piece both sides need to where it belongs (its own file, or "
              "the lower of the two), so that one file leans on the other and not back")
        return 1
    print(f"no loops between the files of any of {len(folders)} src/ folders")
    return 0


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        x = os.path.join(tmp, "src", "x")
        os.makedirs(x)
        with open(os.path.join(x, "a.c"), "w") as f:
            f.write("int x_a(int v) {\n  return x_b(v) + 4;\n}\n")
        with open(os.path.join(x, "b.c"), "w") as f:
            f.write("int x_b(int v) {\n  return v; /* not x_a: a comment is no use */\n}\n")
        if check(tmp) != 0:
            sys.exit("self-test: a tree without a loop was refused")
        with open(os.path.join(x, "b.c"), "w") as f:
            f.write("int x_b(int v) {\n  return v < 4 ? x_a(v + 1) : v;\n}\n")
        if check(tmp) == 0:
            sys.exit("self-test: b.c calling x_a while a.c calls x_b was not refused")
    print("self-test: the loop is refused, the tree without it passes")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(check(sys.argv[1]))
