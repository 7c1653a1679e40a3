#!/usr/bin/env python3
"""Puts the public loader's bundle together in the loader folder from the pages it was read in.

The bundle (vendor/huggingface-kernels/index.js of the public repository mk2cav/WEBAI at commit 59c4c1b6...,
215806 characters) is read in 14 pages of 16000 characters (the last 7806); each page's text is saved as a JSON
string literal to <dir>/chunks/c00.json ... c13.json. This checks every page's length, writes
<dir>/kernels/index.js and <dir>/kernels/package.json ({"type": "module"}), and compares the SHA-256 of the
result with the one docs/public-loader.md gives.

usage: assemble_bundle.py [DIR]     DIR: the loader folder (default $JSLOADER_DIR, else .jsloader at the repo root)
"""
import hashlib
import json
import os
import sys

PAGES, PAGE, TOTAL = 14, 16000, 215806
SHA256 = '800d4d4dbd310d15cb890aad004dfde1fde780620a7a175a4b478400b873052c'


def main():
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    d = sys.argv[1] if len(sys.argv) > 1 else os.environ.get('JSLOADER_DIR', os.path.join(repo, '.jsloader'))
    text = []
    for k in range(PAGES):
        path = os.path.join(d, 'chunks', 'c%02d.json' % k)
        try:
            page = json.load(open(path, encoding='utf-8'))
        except (OSError, ValueError) as e:
            print(f'assemble_bundle: {path}: {e}')
            return 1
        want = PAGE if k < PAGES - 1 else TOTAL - PAGE * (PAGES - 1)
        if not isinstance(page, str) or len(page) != want:
            print(f'assemble_bundle: {path}: {len(page) if isinstance(page, str) else type(page).__name__} '
                  f'characters, want {want}')
            return 1
        text.append(page)
    data = ''.join(text).encode('utf-8')
    os.makedirs(os.path.join(d, 'kernels'), exist_ok=True)
    open(os.path.join(d, 'kernels', 'index.js'), 'wb').write(data)
    open(os.path.join(d, 'kernels', 'package.json'), 'w').write('{"type":"module"}\n')
    got = hashlib.sha256(data).hexdigest()
    print(f'{os.path.join(d, "kernels", "index.js")}: {len(data)} bytes, sha256 {got}')
    if got != SHA256:
        print(f'assemble_bundle: the SHA-256 is not the bundle\'s ({SHA256}): a page was saved wrongly')
        return 1
    return 0


sys.exit(main())
