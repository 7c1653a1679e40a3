#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for SECONDS (default 300), one target at a
# time on one core (-jobs=1), from the seed corpora in fuzz/corpus/<name> (target fuzz_<name>).
#   scripts/fuzz.sh [SECONDS [NAME...]]      NAME: expr template manifest npy onnx_tensor onnx_model metadata
#                                            testcase (default: all)
# Crashes are written to fuzz/crashes/ and fail the script. With FUZZ_MERGE=1 the inputs a run found that add
# coverage (libFuzzer -merge=1 over the committed corpus) are copied into fuzz/corpus/<name>, smallest first,
# while the folder stays under FUZZ_CORPUS_CAP bytes (default 1 MB). Each run's log is kept in
# $FUZZ_BUILD/fuzz-logs/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds=${1:-300}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(expr template manifest npy onnx_tensor onnx_model metadata testcase)
bash "$root/scripts/bootstrap.sh" fuzz
build=${FUZZ_BUILD:-$root/build-fuzz}
cap=${FUZZ_CORPUS_CAP:-1000000}
CC=clang cmake -S "$root" -B "$build" -DWGK_FUZZ=ON -DWGK_SANITIZE=ON -DWGK_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
cmake --build "$build" -j "${FUZZ_BUILD_JOBS:-2}" --target "${targets[@]/#/fuzz_}" >/dev/null
mkdir -p "$root/fuzz/crashes" "$build/fuzz-logs"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
for name in "${targets[@]}"; do
  seeds="$root/fuzz/corpus/$name"
  work=$(mktemp -d)
  mkdir "$work/corpus"
  cp -r "$seeds/." "$work/corpus/"
  log="$build/fuzz-logs/$name.log"
  echo "fuzz_$name: ${seconds}s"
  # -jobs=1: one worker process whose output goes to fuzz-0.log in the current folder.
  (cd "$work" && "$build/fuzz/fuzz_$name" -jobs=1 -max_total_time="$seconds" -max_len=8192 -timeout=10 \
     -rss_limit_mb=2048 -artifact_prefix="$root/fuzz/crashes/$name-" corpus >/dev/null 2>&1) || true
  cp "$work/fuzz-0.log" "$log" 2>/dev/null || true
  grep -E '^(#[0-9]+ +DONE|Done|==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" || true
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    mkdir "$work/merged"
    cp -r "$seeds/." "$work/merged/"
    "$build/fuzz/fuzz_$name" -merge=1 -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$root/fuzz/crashes/$name-merge-" "$work/merged" "$work/corpus" \
      >"$work/merge.log" 2>&1 || { tail -5 "$work/merge.log"; exit 1; }
    total=$(du -sb --apparent-size "$seeds" | cut -f1)
    added=0
    while read -r size file; do
      base=$(basename "$file")
      [ -e "$seeds/$base" ] && continue
      [ $((total + size)) -le "$cap" ] || break
      cp "$file" "$seeds/$base"
      total=$((total + size))
      added=$((added + 1))
    done < <(find "$work/merged" -type f -printf '%s %p\n' | sort -n)
    echo "fuzz_$name: merged $added new inputs, corpus now $total bytes"
  fi
  rm -rf "$work"
done
if ls "$root/fuzz/crashes/"* >/dev/null 2>&1; then echo "crashes in fuzz/crashes/"; exit 1; fi
echo "no crashes"
