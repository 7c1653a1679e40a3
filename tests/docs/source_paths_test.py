#!/usr/bin/env python3
"""Every source path the docs name exists (issue 38 leftovers: a kernel card named src/kernels_host/sparse_check.c
long after the file moved): each `src/...` path in README.md, docs/**/*.md and kernels/*/README.md must be a file
or folder of the checkout (a glob, src/manifest/spec21_*.c, must match one). Only src/ is checked: the other paths
the pages name are of an install prefix (include/wgk/...), of a package folder (tools/reference.py) or built
programs (bench/upload_probe).

usage: source_paths_test.py SOURCE_DIR     the check; prints "ok: N source paths, each exists"
       source_paths_test.py --self-test    the check refuses a page naming a source file that does not exist
"""
import glob
import os
import re
import shutil
import sys
import tempfile

PATH = re.compile(r'(?<![\w/.-])src/[A-Za-z0-9_.\-/*]*[A-Za-z0-9_/*]')  # a * is a glob: it must match


def pages(src):
    found = glob.glob(os.path.join(src, 'docs', '**', '*.md'), recursive=True)
    found += glob.glob(os.path.join(src, 'kernels', '*', 'README.md')) + [os.path.join(src, 'README.md')]
    return sorted(p for p in set(found) if os.path.isfile(p))


def check(src):
    problems, n = [], 0
    for page in pages(src):
        for line_no, line in enumerate(open(page, encoding='utf-8'), 1):
            for m in PATH.finditer(line):
                n += 1
                if not glob.glob(os.path.join(src, m.group(0))):
                    problems.append(f'{os.path.relpath(page, src)}:{line_no}: {m.group(0)} does not exist')
    return problems, n


def self_test():
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, 'docs'))
        os.makedirs(os.path.join(tmp, 'src', 'util'))
        shutil.copy(os.path.join(src, 'src/util/file_read.c'), os.path.join(tmp, 'src/util/file_read.c'))
        open(os.path.join(tmp, 'README.md'), 'w').write('see `src/util/file_read.c`\n')
        good, _ = check(tmp)
        open(os.path.join(tmp, 'docs/a.md'), 'w').write('x\nthe checks (`src/kernels_host/sparse_check.c`)\n')
        bad, _ = check(tmp)
    if good:
        print('FAIL: an existing path was refused:', good)
        return 1
    if bad != ['docs/a.md:2: src/kernels_host/sparse_check.c does not exist']:
        print('FAIL: a missing path passed:', bad)
        return 1
    print('ok: the check refuses a source path that does not exist')
    return 0


if __name__ == '__main__':
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    problems, n = check(os.path.abspath(sys.argv[1]))
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f'ok: {n} source paths, each exists')
