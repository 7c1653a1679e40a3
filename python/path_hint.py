"""After `make install PREFIX=DIR`: prints the one line a user needs when DIR's Python folder
(DIR/lib/python3/dist-packages, where the binding is installed) is not on this python3's sys.path; prints nothing
when `import wgk` already finds it (Debian's python3 looks in /usr/local/lib/python3/dist-packages, not in
$HOME/.local/lib/python3/dist-packages).    usage: python3 python/path_hint.py PREFIX"""
import os
import sys

folder = os.path.join(os.path.abspath(sys.argv[1]), "lib", "python3", "dist-packages")
on_path = {os.path.realpath(p) for p in sys.path[1:] if p}  # [0] is this script's folder
if os.path.realpath(folder) not in on_path:
    print("python: %s is not on python3's path; for `import wgk`, add it (e.g. in ~/.profile):\n"
          "  export PYTHONPATH=%s${PYTHONPATH:+:$PYTHONPATH}\n"
          "or install the wheel instead: make wheel && pip install --user dist/wgk-*.whl" % (folder, folder))
