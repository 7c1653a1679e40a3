#!/usr/bin/python3
"""(Re)write the digest map of a kernel package's metadata.json from the files beside it.

Usage: scripts/package-digests.py [--check] PACKAGE_DIR

PACKAGE_DIR is the package root (holding build/webgpu/) or the build/webgpu folder itself. Every regular
file under build/webgpu except metadata.json and hidden files is listed, by its path relative to
build/webgpu, with the base64 (standard alphabet, padded) SHA-256 of its bytes, in sorted order.
Other keys of metadata.json are kept as they are. With --check nothing is written: the script lists
the files whose digests differ or are missing and exits 1 if there are any.
"""
import base64
import hashlib
import json
import os
import sys


def webgpu_dir(path):
    inner = os.path.join(path, "build", "webgpu")
    return inner if os.path.isdir(inner) else path


def digests(folder):
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, name), folder).replace(os.sep, "/")
            if name.startswith(".") or rel == "metadata.json":
                continue
            with open(os.path.join(dirpath, name), "rb") as f:
                out[rel] = base64.b64encode(hashlib.sha256(f.read()).digest()).decode("ascii")
    return dict(sorted(out.items()))


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    folder = webgpu_dir(args[0])
    meta_path = os.path.join(folder, "metadata.json")
    try:
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{meta_path}: {e}", file=sys.stderr)
        return 1
    files = digests(folder)
    if check:
        old = meta.get("digest", {}).get("files", {})
        bad = [p for p in sorted(set(files) | set(old)) if files.get(p) != old.get(p)]
        for p in bad:
            print(f"{p}: listed {old.get(p)}, actual {files.get(p)}")
        return 1 if bad else 0
    meta["digest"] = {"algorithm": "sha256", "files": files}
    with open(meta_path, "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    print(f"{meta_path}: {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
