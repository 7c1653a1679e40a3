#!/usr/bin/env python3
"""docs/manifest.md against the manifest reader's key tables (issue 36 item 1): every key table in
src/manifest/*.c (a `static const char *const NAME[] = {...}` whose NAME is `keys`, ends in `_keys`, or is `xyz`)
has a table in the page, marked `<!-- reader: FILE NAME -->`, whose first column lists exactly its keys.

usage: manifest_keys_test.py SOURCE_DIR     the check; prints "ok: N keys in M tables, each documented"
       manifest_keys_test.py --self-test    the check refuses a page missing a key and one listing a key the reader lacks
"""
import os
import re
import shutil
import sys
import tempfile

ARRAY = re.compile(r'static\s+const\s+char\s*\*\s*const\s+(\w+)\s*\[\]\s*=\s*\{(.*?)\};', re.S)
MARK = re.compile(r'<!--\s*reader:\s*(\S+)\s+(\w+)\s*-->')
ROW_KEY = re.compile(r'^\|\s*`([^`]+)`\s*\|')


def reader_tables(src):
    tables = []  # (file, name, keys)
    d = os.path.join(src, "src", "manifest")
    for f in sorted(os.listdir(d)):
        if not f.endswith(".c"):
            continue
        text = open(os.path.join(d, f), encoding="utf-8").read()
        for m in ARRAY.finditer(text):
            name = m.group(1)
            if name == "keys" or name.endswith("_keys") or name == "xyz":
                tables.append((f, name, re.findall(r'"([^"]*)"', m.group(2))))
    return tables


def doc_tables(page):
    tables, cur = [], None
    for line in open(page, encoding="utf-8"):
        m = MARK.search(line)
        if m:
            cur = (m.group(1), m.group(2), [])
            tables.append(cur)
            continue
        if cur is None:
            continue
        if line.startswith("|"):
            k = ROW_KEY.match(line)
            if k:
                cur[2].append(k.group(1))
        elif cur[2]:
            cur = None
    return tables


def check(src):
    problems, n_keys = [], 0
    reader = reader_tables(src)
    docs = doc_tables(os.path.join(src, "docs", "manifest.md"))
    if not reader:
        return ["no key tables found in src/manifest"], 0, 0
    used = set()
    for f, name, keys in reader:
        n_keys += len(keys)
        cands = [i for i, t in enumerate(docs) if t[0] == f and t[1] == name and i not in used]
        best = min(cands, key=lambda i: len(set(keys) ^ set(docs[i][2])), default=None)
        if best is None:
            problems.append("src/manifest/%s %s (%s): no table in docs/manifest.md" % (f, name, " ".join(keys)))
            continue
        used.add(best)
        got = docs[best][2]
        for k in keys:
            if k not in got:
                problems.append("src/manifest/%s %s: key `%s` is accepted by the reader but missing from docs/manifest.md"
                                % (f, name, k))
        for k in got:
            if k not in keys:
                problems.append("docs/manifest.md table `%s %s` lists `%s`, which the reader does not accept" % (f, name, k))
    for i, t in enumerate(docs):
        if i not in used:
            problems.append("docs/manifest.md marks a table `%s %s` the reader does not have" % (t[0], t[1]))
    return problems, n_keys, len(reader)


def self_test():
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "docs"))
        shutil.copytree(os.path.join(src, "src", "manifest"), os.path.join(tmp, "src", "manifest"))
        page = open(os.path.join(src, "docs", "manifest.md"), encoding="utf-8").read()
        dst = os.path.join(tmp, "docs", "manifest.md")
        open(dst, "w", encoding="utf-8").write(page)
        p, _, _ = check(tmp)
        if p:
            print("self-test: the real page fails:", *p, sep="\n  ")
            return 1
        # a key the reader accepts, missing from the page
        open(dst, "w", encoding="utf-8").write(page.replace("| `typeConstraints` |", "| typeConstraints |", 1))
        p, _, _ = check(tmp)
        if not any("`typeConstraints` is accepted by the reader but missing" in x for x in p):
            print("self-test: a page without typeConstraints passed:", p)
            return 1
        # a key the reader gains that the page lacks
        open(dst, "w", encoding="utf-8").write(page)
        c = os.path.join(tmp, "src", "manifest", "spec21_variants.c")
        code = open(c, encoding="utf-8").read()
        open(c, "w", encoding="utf-8").write(code.replace('"viewAlias",', '"viewAlias", "newKey",', 1))
        p, _, _ = check(tmp)
        if not any("`newKey`" in x for x in p):
            print("self-test: a reader key absent from the page passed:", p)
            return 1
        # a key the page lists that the reader refuses
        open(c, "w", encoding="utf-8").write(code.replace('"viewAlias",', '', 1))
        p, _, _ = check(tmp)
        if not any("lists `viewAlias`, which the reader does not accept" in x for x in p):
            print("self-test: a page key the reader refuses passed:", p)
            return 1
    print("ok: the check refuses a missing key, a new reader key and a key the reader refuses")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems, n, m = check(sys.argv[1])
    if problems:
        print("docs/manifest.md does not match the manifest reader's key tables:", *problems, sep="\n  ")
        return 1
    print("ok: %d keys in %d tables, each documented" % (n, m))
    return 0


if __name__ == "__main__":
    sys.exit(main())
