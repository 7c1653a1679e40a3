#!/usr/bin/env python3
"""docs/loader-semantics.md's key table covers every manifest key of docs/manifest.md (issue 34, the systematic
pass): each key of each `<!-- reader: FILE NAME -->` table of docs/manifest.md must appear, qualified by where it
stands (`inputs/outputs.*.dtype`, `variants[].passes[].profile`, `seed.pass.source` ...), as a code span in the
first cell of a row of loader-semantics.md, and every qualified name there must be such a key (no stale rows).
A manifest.md table this check does not know how to qualify fails it, so a new key table gets rows.

usage: loader_keys_test.py SOURCE_DIR     the check; prints "ok: N keys, each with a row"
       loader_keys_test.py --self-test    the check refuses a page missing a row and one with a stale row
"""
import os
import re
import shutil
import sys
import tempfile

MARK = re.compile(r'<!--\s*reader:\s*(\S+)\s+(\w+)\s*-->')
ROW_KEY = re.compile(r'^\|\s*`([^`]+)`\s*\|')
# (reader file, array, occurrence of that pair in the page) -> how the loader table qualifies its keys
PREFIX = {
    ('spec21_top.c', 'top_keys', 0): '',
    ('spec21_top.c', 'port_keys', 0): 'inputs/outputs.*.',
    ('spec21_top.c', 'arg_keys', 0): 'args.*.',
    ('spec21_top.c', 'keys', 0): 'requires.',
    ('spec21_top.c', 'keys', 1): 'requires.subgroupMatrixConfigs[].',
    ('spec21_bindings.c', 'entry_keys', 0): 'bindings.*.',
    ('spec21_bindings.c', 'field_keys', 0): 'bindings.*.struct[].',
    ('spec21_variants.c', 'variant_keys', 0): 'variants[].',
    ('spec21_variants.c', 'intermediate_keys', 0): 'variants[].intermediates[].',
    ('spec21_variants.c', 'pass_keys', 0): 'variants[].passes[].',
    ('spec21_variants.c', 'xyz', 0): 'variants[].passes[].dispatch.',
    ('seed.c', 'tensor_arg_keys', 0): 'seed.arg.',
    ('seed.c', 'source_keys', 0): 'seed.source.',
    ('seed.c', 'struct_keys', 0): 'seed.struct.',
}


def manifest_keys(page):
    """The qualified keys of docs/manifest.md, or an error naming a table this check cannot qualify."""
    keys, seen, cur = [], {}, None
    for line in open(page, encoding='utf-8'):
        m = MARK.search(line)
        if m:
            pair = (m.group(1), m.group(2))
            occ = seen.get(pair, 0)
            seen[pair] = occ + 1
            if (pair + (occ,)) not in PREFIX:
                return None, f'docs/manifest.md table {pair[0]} {pair[1]} (#{occ + 1}) has no qualifier in loader_keys_test.py'
            cur = PREFIX[pair + (occ,)]
            continue
        r = ROW_KEY.match(line)
        if r and cur is not None:
            keys.append(cur + r.group(1))
        elif cur is not None and line.strip() and not line.startswith('|'):
            cur = None
    return keys, None


def table_names(page):
    names = set()
    for line in open(page, encoding='utf-8'):
        if line.startswith('| ') and not line.startswith('|---'):
            first = line.split('|')[1]
            names.update(re.findall(r'`([^`]+)`', first))
    return names


def check(src):
    keys, err = manifest_keys(os.path.join(src, 'docs/manifest.md'))
    if err:
        return [err], 0
    names = table_names(os.path.join(src, 'docs/loader-semantics.md'))
    problems = [f'docs/loader-semantics.md has no row for `{k}`' for k in keys if k not in names]
    qualified = set(keys)
    prefixes = sorted({p for p in PREFIX.values() if p}, key=len, reverse=True)
    for n in sorted(names):
        if any(n.startswith(p) for p in prefixes) and n not in qualified:
            problems.append(f'docs/loader-semantics.md has a row for `{n}`, which docs/manifest.md does not list')
    return problems, len(keys)


def self_test():
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, 'docs'))
        shutil.copy(os.path.join(src, 'docs/manifest.md'), os.path.join(tmp, 'docs/manifest.md'))
        page = open(os.path.join(src, 'docs/loader-semantics.md'), encoding='utf-8').read()
        out = os.path.join(tmp, 'docs/loader-semantics.md')
        open(out, 'w').write(re.sub(r'^\| `variants\[\]\.passes\[\]\.profile` \|.*\n', '', page, flags=re.M))
        missing, _ = check(tmp)
        open(out, 'w').write(page.replace('| `variants[].passes[].profile` |', '| `variants[].passes[].profiles` |'))
        stale, _ = check(tmp)
    if not any('no row for `variants[].passes[].profile`' in p for p in missing):
        print('FAIL: a missing row passed:', missing)
        return 1
    if not any('`variants[].passes[].profiles`, which docs/manifest.md does not list' in p for p in stale):
        print('FAIL: a stale row passed:', stale)
        return 1
    print('ok: the check refuses a missing row and a stale one')
    return 0


if __name__ == '__main__':
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    problems, n = check(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f'ok: {n} keys, each with a row')
