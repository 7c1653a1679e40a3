"""The wheel of the Python binding, built from a cmake build of this checkout with nothing but the standard
library (no setuptools, no registry): a PEP 517 backend (pyproject.toml) and a command (`make wheel`).

    python3 python/build_backend/wgk_wheel.py [--build BUILD] [--out DIST]

The wheel holds a prefix inside the package, the layout `cmake --install` makes, so libwgk.so finds Dawn by its
run path ($ORIGIN/wgk) and the kernels from where it is (../share/wgk/kernels):
    wgk/__init__.py, wgk/_install.py (LIBDIR = "lib")
    wgk/lib/libwgk.so, wgk/lib/wgk/libwebgpu_wrapper.so
    wgk/share/wgk/kernels/<op id>/...
The build folder: --build, else $WGK_BUILD_DIR, else build/ of the checkout (config setting "build" for pip).
"""
import base64
import glob
import hashlib
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def _project():
    text = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    proj = text[text.index("[project]"):]
    name = re.search(r'^name = "([^"]+)"', proj, re.M).group(1)
    version = re.search(r'^version = "([^"]+)"', proj, re.M).group(1)
    summary = re.search(r'^description = "([^"]+)"', proj, re.M).group(1)
    requires = re.search(r'^requires-python = "([^"]+)"', proj, re.M).group(1)
    deps = re.findall(r'"([^"]+)"', re.search(r"^dependencies = \[([^\]]*)\]", proj, re.M).group(1))
    return name, version, summary, requires, deps


def _tag():
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")  # linux_x86_64
    return "py3-none-" + plat


def _metadata(name, version, summary, requires, deps):
    lines = ["Metadata-Version: 2.1", "Name: " + name, "Version: " + version, "Summary: " + summary,
             "Requires-Python: " + requires] + ["Requires-Dist: " + d for d in deps]
    return "\n".join(lines) + "\n\n" + open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()


def _installed_prefix(build, tmp):
    if not os.path.exists(os.path.join(build, "libwgk.so")):
        raise SystemExit("wgk wheel: no %s: build first (make build, or make wheel)"
                         % os.path.join(build, "libwgk.so"))
    prefix = os.path.join(tmp, "prefix")
    subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True, stdout=subprocess.DEVNULL)
    return prefix


def build(build_dir, out_dir):
    """Writes the wheel into out_dir and returns its file name."""
    name, version, summary, requires, deps = _project()
    tag = _tag()
    wheel_name = "%s-%s-%s.whl" % (name, version, tag)
    dist_info = "%s-%s.dist-info" % (name, version)
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        prefix = _installed_prefix(os.path.abspath(build_dir), tmp)
        libwgk = [p for p in glob.glob(os.path.join(prefix, "lib*", "**", "libwgk.so"), recursive=True)]
        if len(libwgk) != 1:
            raise SystemExit("wgk wheel: the install holds %d libwgk.so, wanted one: %s" % (len(libwgk), libwgk))
        libdir = os.path.dirname(libwgk[0])
        files = {  # path in the wheel -> (source file, or None with bytes)
            "wgk/__init__.py": os.path.join(ROOT, "python", "wgk", "__init__.py"),
            "wgk/lib/libwgk.so": libwgk[0],
            "wgk/lib/wgk/libwebgpu_wrapper.so": os.path.join(libdir, "wgk", "libwebgpu_wrapper.so"),
        }
        kernels = os.path.join(prefix, "share", "wgk", "kernels")
        for path in sorted(glob.glob(os.path.join(kernels, "**", "*"), recursive=True)):
            if os.path.isfile(path):
                files["wgk/share/wgk/kernels/" + os.path.relpath(path, kernels)] = path
        texts = {
            "wgk/_install.py": "# Written by python/build_backend/wgk_wheel.py: libwgk.so is in lib/ of this package.\n"
                               'LIBDIR = "lib"\n',
            dist_info + "/METADATA": _metadata(name, version, summary, requires, deps),
            dist_info + "/WHEEL": "Wheel-Version: 1.0\nGenerator: wgk_wheel\nRoot-Is-Purelib: false\nTag: %s\n" % tag,
        }
        record = []
        path = os.path.join(out_dir, wheel_name)
        with zipfile.ZipFile(path + ".part", "w", zipfile.ZIP_DEFLATED) as z:
            def add(arc, data, mode):
                info = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))  # reproducible
                info.external_attr = (0o100000 | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)
                digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                record.append("%s,sha256=%s,%d" % (arc, digest, len(data)))
            for arc, src in files.items():
                with open(src, "rb") as f:
                    add(arc, f.read(), 0o755 if arc.endswith(".so") else 0o644)
            for arc, text in texts.items():
                add(arc, text.encode("utf-8"), 0o644)
            record.append(dist_info + "/RECORD,,")
            info = zipfile.ZipInfo(dist_info + "/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o100644) << 16
            z.writestr(info, "\n".join(record) + "\n", zipfile.ZIP_DEFLATED)
        os.replace(path + ".part", path)
    return wheel_name


def _build_dir(config_settings):
    return ((config_settings or {}).get("build") or os.environ.get("WGK_BUILD_DIR")
            or os.path.join(ROOT, "build"))


# ---- PEP 517 -------------------------------------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return build(_build_dir(config_settings), wheel_directory)


def main(argv):
    build_dir, out = os.path.join(ROOT, "build"), os.path.join(ROOT, "dist")
    args = list(argv)
    while args:
        a = args.pop(0)
        if a in ("--build", "--out") and args:
            if a == "--build":
                build_dir = args.pop(0)
            else:
                out = args.pop(0)
        else:
            raise SystemExit("usage: wgk_wheel.py [--build BUILD] [--out DIST]")
    name = build(build_dir, out)
    path = os.path.join(out, name)
    print("wrote %s (%.1f MB)" % (os.path.relpath(path), os.path.getsize(path) / 1e6))
    print("install it: pip install --user %s   (Debian 12's pip also wants --break-system-packages for --user;"
          " it writes only to ~/.local)" % os.path.relpath(path))


if __name__ == "__main__":
    main(sys.argv[1:])
