#!/bin/sh
# Golden plans of the spec 2.1 package that uses every key (test.EveryKey): `wgk explain` (text and
# --json) and `wgk render` for calls that select different variants, and refused calls. Each output is
# compared with golden/<name>.txt; WGK_UPDATE_GOLDEN=1 rewrites them (review the diff before committing).
# usage: golden.sh WGK_BINARY
set -u
wgk="$1"
here=$(cd "$(dirname "$0")" && pwd)
pkg="$here/test.EveryKey"
dev="$here/../../plan/lavapipe.device.json"
nof16="$here/../../plan/nof16.device.json"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
check() {
  name="$1"; shift
  (cd "$here" && "$wgk" "$@" > "$out/$name.txt" 2>&1; echo "exit $?" >> "$out/$name.txt")
  sed -i "s|$here/||g; s|\./test\.|test.|g" "$out/$name.txt"
  if [ -n "${WGK_UPDATE_GOLDEN:-}" ]; then mkdir -p "$here/golden"; cp "$out/$name.txt" "$here/golden/$name.txt"; fi
  if ! diff -u "$here/golden/$name.txt" "$out/$name.txt"; then fail=1; fi
}
check explain-main-json explain ./test.EveryKey --device "$dev" --json --shape x=1x5 --shape state=4
check explain-main explain ./test.EveryKey --device "$dev" --shape x=1x5 --shape state=4
check render-main render ./test.EveryKey --device "$dev" --shape x=1x5 --shape state=4
check explain-grid explain ./test.EveryKey --device "$dev" --shape x=2x3 --shape state=4
check explain-family explain ./test.EveryKey --device "$dev" --tunable WG=128 --shape x=2x3 --shape state=4
check explain-f16-grid explain ./test.EveryKey --device "$dev" --dtype T=float16 --shape x=2x3 --shape state=4
check explain-demoted-undemoted explain ./test.EveryKey --device "$dev" --shape x=2x2 --shape state=4
check refuse-attr-value explain ./test.EveryKey --device "$dev" --attr axis=3 --shape x=2x3 --shape state=4
check refuse-attr-unknown explain ./test.EveryKey --device "$dev" --attr zzz=1 --shape x=2x3 --shape state=4
check refuse-arg-oneof explain ./test.EveryKey --device "$dev" --arg mode=c --shape x=2x3 --shape state=4
check refuse-arg-kind explain ./test.EveryKey --device "$dev" --arg alpha=true --shape x=2x3 --shape state=4
check arg-ok explain ./test.EveryKey --device "$dev" --arg mode=b --arg alpha=0.25 --shape x=2x3 --shape state=4
check refuse-f16 explain ./test.EveryKey --device "$nof16" --dtype T=float16 --shape x=2x3 --shape state=4
check refuse-inout-missing explain ./test.EveryKey --device "$dev" --shape x=2x3
check refuse-include-unlisted explain ./test.Include --device "$dev" --shape x=4
check selection-scope explain ./test.Selection --device "$dev" --shape x=2x2
check refuse-derive-throws explain ./test.Selection --device "$dev" --shape x=2x3
exit $fail
