#!/usr/bin/env python3
"""List the C functions under src/ by length (lines from signature to closing brace).

The house style (.clang-format) puts a function's opening brace at the end of its signature and its
closing brace alone in column 0, so a function is found as: a line in column 0 that is not a comment,
preprocessor line, declaration of a type or an initializer, ending in ") {" (a signature may span
lines; a function on one line is skipped), up to the next "}" in column 0.

  scripts/func-lengths.py [--top N] [--max LINES [--except FOLDER=LINES ...]] [ROOT]

Prints the N longest functions, then the counts of functions of 30+ and 60+ lines and the longest.
With --max, exits 1 (naming each) when a function is longer than LINES: the lint test's ceiling. --except gives
one folder of ROOT (e.g. runtime=105) a ceiling of its own, for a folder whose long functions are not split yet.
"""
import argparse
import os
import re
import sys

NOT_FUNC = re.compile(r'^(typedef|struct\s+\w+\s*\{|enum\b|union\b|static\s+const\s+[^()]*=|const\s+[^()]*=|#|/\*|\*|//)')


def functions(path):
    """Yield (name, first_line, n_lines) for each function definition in one C file."""
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().split('\n')
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line or line[0] in ' \t}' or NOT_FUNC.match(line) or '(' not in line:
            i += 1
            continue
        # A signature: gather continuation lines until one ends with "{" or ";".
        j = i
        sig = line
        while not sig.rstrip().endswith(('{', ';', '}')) and lines[j + 1:j + 2] != [''] and j + 1 < len(lines) \
                and j - i < 8:
            j += 1
            sig += ' ' + lines[j].strip()
        if not sig.rstrip().endswith('{') or '=' in sig.split('(')[0]:
            i = j + 1
            continue
        m = re.search(r'(\w+)\s*\(', sig)
        name = m.group(1) if m else '?'
        k = j + 1
        while k < len(lines) and not lines[k].startswith('}'):
            k += 1
        yield name, i + 1, k - i + 1
        i = k + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--top', type=int, default=20)
    ap.add_argument('--max', type=int, default=0)
    ap.add_argument('--except', dest='excepts', action='append', default=[], metavar='FOLDER=LINES')
    ap.add_argument('root', nargs='?', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src'))
    a = ap.parse_args()
    root = os.path.normpath(a.root)
    found = []
    for d, _, files in os.walk(root):
        for fn in files:
            if fn.endswith('.c'):
                p = os.path.join(d, fn)
                for name, line, n in functions(p):
                    found.append((n, os.path.relpath(p, os.path.dirname(root)), line, name))
    found.sort(key=lambda t: (-t[0], t[1], t[2]))
    for n, p, line, name in found[:a.top]:
        print(f'{n:5d}  {p}:{line}  {name}')
    n30 = sum(1 for t in found if t[0] >= 30)
    n60 = sum(1 for t in found if t[0] >= 60)
    longest = found[0][0] if found else 0
    print(f'functions: {len(found)}, 30+ lines: {n30}, 60+ lines: {n60}, longest: {longest}')
    if a.max:
        ceilings = {}
        for e in a.excepts:
            folder, _, lines = e.partition('=')
            if not lines.isdigit():
                ap.error(f'--except {e}: expected FOLDER=LINES')
            ceilings[folder.strip('/')] = int(lines)

        def ceiling(p):  # p is relative to ROOT's parent: ROOT's name, then the folder
            parts = p.split(os.sep)
            return ceilings.get(parts[1], a.max) if len(parts) > 2 else a.max

        over = [t + (ceiling(t[1]),) for t in found if t[0] > ceiling(t[1])]
        for n, p, line, name, c in over:
            print(f'{p}:{line}: function {name} is {n} lines, over the ceiling of {c} '
                  f'(split it; scripts/func-lengths.py)', file=sys.stderr)
        return 1 if over else 0
    return 0


if __name__ == '__main__':
    sys.exit(main())
