#!/bin/sh
# `wgk explain --json` on a package whose rejected variant has a multi-line `when` clause (one line of it ends in
# a colon, which once made the reason's length underflow to SIZE_MAX): the output must be valid JSON, one
# rejection per variant, the reason whole. Usage: explain_json_valid.sh WGK_BINARY PACKAGE_DIR
set -eu
out=$("$1" explain "$2" --json --shape X=4 2>/dev/null)
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["variant"] == "main", d
r = d["rejected"]
assert len(r) == 1 and r[0]["id"] == "never", r
assert "== 2" in r[0]["reason"] and "count > 0" in r[0]["reason"], r
print("explain json: ok")'
