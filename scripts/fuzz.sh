#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for SECONDS (default 300) from the seed
# corpora in fuzz/corpus/<target>. Crashes are written to fuzz/crashes/ and fail the script.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds=${1:-300}
build=${FUZZ_BUILD:-$root/build-fuzz}
CC=clang cmake -S "$root" -B "$build" -DWGK_FUZZ=ON -DWGK_SANITIZE=ON -DWGK_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzz_expr fuzz_template fuzz_manifest >/dev/null
mkdir -p "$root/fuzz/crashes"
for target in expr template manifest; do
  work=$(mktemp -d)
  cp -r "$root/fuzz/corpus/$target/." "$work/"
  echo "fuzz_$target: ${seconds}s"
  ASAN_OPTIONS=detect_leaks=1 "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
    -artifact_prefix="$root/fuzz/crashes/$target-" "$work" 2>&1 | grep -E '^(#[0-9]+ +DONE|Done|==[0-9]+==ERROR|SUMMARY)' || true
  rm -rf "$work"
done
if ls "$root/fuzz/crashes/"* >/dev/null 2>&1; then echo "crashes in fuzz/crashes/"; exit 1; fi
echo "no crashes"
