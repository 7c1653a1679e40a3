#!/usr/bin/env bash
# wgk devices and wgk smoke succeed and write nothing to stderr (no Vulkan, Mesa or Dawn noise);
# devices --json is valid JSON listing at least one adapter with its features.
set -u
WGK=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp"/err* 2>/dev/null; exit 1; }
"$WGK" smoke --n 4096 >"$tmp/out" 2>"$tmp/err" || fail "smoke exit $?"
[[ -s "$tmp/err" ]] && fail "smoke wrote to stderr"
grep -q '^verified: 4096 of 4096' "$tmp/out" || fail "no verified line"
"$WGK" devices --json >"$tmp/json" 2>"$tmp/err2" || fail "devices exit $?"
[[ -s "$tmp/err2" ]] && fail "devices wrote to stderr"
python3 - "$tmp/json" <<'PY' || fail "bad JSON"
import json, sys
doc = json.load(open(sys.argv[1]))
a = doc["adapters"]
assert a and all("features" in x and "limits" in x and x["backend"] for x in a), a
print("adapters:", [(x["device"], x["features"]) for x in a])
PY
"$WGK" smoke --adapter no-such-adapter >/dev/null 2>"$tmp/err3" && fail "bad selector accepted"
grep -q "no adapter matches 'no-such-adapter'" "$tmp/err3" || fail "bad selector message"
echo ok
