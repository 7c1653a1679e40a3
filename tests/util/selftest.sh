#!/usr/bin/env bash
# The test machinery itself (tests/CMakeLists.txt, tests/util): each check fails if what it guards breaks.
# usage: selftest.sh PROBE RUN_TEST.PY WGK TEST_SCRATCH
set -u
probe=$1 run_test=$2 wgk=$3 gpu_test=$4
failures=0
expect_status() { # WANT DESCRIPTION COMMAND...
  local want=$1 what=$2; shift 2
  local out; out=$("$@" 2>&1); local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: exit $got, wanted $want"; printf '%s\n' "$out" | tail -5 | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok: $what (exit $got)"
  fi
}

# Hermetic environment: every cache and home folder is this test's own, fresh and empty; no kernel path.
[ -n "${WGK_TEST_TMP:-}" ] && [ "$(basename "$WGK_TEST_TMP")" = test_infra_selftest ] ||
  { echo "FAIL: WGK_TEST_TMP is '${WGK_TEST_TMP:-}', not this test's folder"; failures=$((failures + 1)); }
for v in HOME XDG_CACHE_HOME XDG_CONFIG_HOME XDG_DATA_HOME TMPDIR WGK_TUNING_CACHE HF_HOME HF_HUB_CACHE; do
  case "${!v:-}" in
    "${WGK_TEST_TMP:-/nonexistent}"/*) ;;
    *) echo "FAIL: $v=${!v:-} is not under WGK_TEST_TMP"; failures=$((failures + 1)) ;;
  esac
done
for d in "$HOME" "$XDG_CACHE_HOME" "$TMPDIR"; do
  [ -d "$d" ] && [ -z "$(ls -A "$d")" ] || { echo "FAIL: $d is not an empty folder"; failures=$((failures + 1)); }
done
[ -z "${WGK_KERNEL_PATH+set}" ] || { echo "FAIL: WGK_KERNEL_PATH is set"; failures=$((failures + 1)); }
echo "ok: hermetic environment under $WGK_TEST_TMP"

# cmocka programs: wgk_skip is reported as skipped (77) with its reason, a failure wins over a skip, a skip
# without a reason fails, and under WGK_TIER=all (the tier that runs everything) a skip fails.
expect_status 0 "cmocka, all pass" "$probe" pass
expect_status 77 "cmocka, one skip" env -u WGK_TIER "$probe" skip
out=$(env -u WGK_TIER "$probe" skip 2>&1)
case "$out" in *"SKIP: "*"probe skipping on purpose"*) echo "ok: cmocka, the skip's reason is printed" ;;
  *) echo "FAIL: cmocka skip without its reason in the output:"; printf '%s\n' "$out" | tail -5; failures=$((failures + 1)) ;; esac
expect_status 1 "cmocka, a skip and a failure" env -u WGK_TIER "$probe" skip-fail
expect_status 1 "cmocka, skip() without a reason" env -u WGK_TIER "$probe" skip-bare
expect_status 1 "cmocka, a skip under WGK_TIER=all" env WGK_TIER=all "$probe" skip
# WGK_TEST_SEED: a decimal seed is taken, a value that is none fails the program instead of being ignored.
expect_status 0 "seed: WGK_TEST_SEED=12345" env WGK_TEST_SEED=12345 "$probe" seed
case "$(env WGK_TEST_SEED=12345 "$probe" seed)" in "seed 12345") echo "ok: seed: the variable's seed is used" ;;
  *) echo "FAIL: seed: WGK_TEST_SEED=12345 not used"; failures=$((failures + 1)) ;; esac
expect_status 1 "seed: WGK_TEST_SEED=12x fails" env WGK_TEST_SEED=12x "$probe" seed
expect_status 1 "seed: WGK_TEST_SEED=-3 fails" env WGK_TEST_SEED=-3 "$probe" seed
# The real-adapter check: Dawn's Null backend fails a GPU test, or skips it with WGK_ALLOW_NO_GPU=1.
expect_status 0 "adapter check, vulkan backend" "$probe" gpu vulkan
expect_status 1 "adapter check, Null backend" env -u WGK_ALLOW_NO_GPU "$probe" gpu null
expect_status 77 "adapter check, Null backend, WGK_ALLOW_NO_GPU=1" env -u WGK_TIER WGK_ALLOW_NO_GPU=1 "$probe" gpu null
expect_status 1 "adapter check, Null backend, WGK_ALLOW_NO_GPU=1 under WGK_TIER=all" \
  env WGK_TIER=all WGK_ALLOW_NO_GPU=1 "$probe" gpu null
# ... and on a real Null backend: no Vulkan driver visible to the loader.
expect_status 1 "GPU test without a Vulkan driver" env -u WGK_ALLOW_NO_GPU VK_ICD_FILENAMES=/nonexistent.json "$gpu_test"
expect_status 77 "GPU test without a Vulkan driver, WGK_ALLOW_NO_GPU=1" \
  env -u WGK_TIER WGK_ALLOW_NO_GPU=1 VK_ICD_FILENAMES=/nonexistent.json "$gpu_test"

# run_test.py: the exit status counts with or without a pattern; missing data skips; --gpu checks the adapter.
rt=(env -u WGK_TIER /usr/bin/python3 "$run_test")
rt_all=(env WGK_TIER=all /usr/bin/python3 "$run_test")
expect_status 0 "run_test: exit 0" "${rt[@]}" -- true
expect_status 1 "run_test: exit 1" "${rt[@]}" -- false
expect_status 1 "run_test: pattern printed, then exit 3" "${rt[@]}" --expect ok -- sh -c 'echo ok; exit 3'
expect_status 1 "run_test: exit 0, pattern missing" "${rt[@]}" --expect ok -- echo nope
expect_status 0 "run_test: exit 0, pattern across lines" "${rt[@]}" --expect 'a\n.*c$' -- printf 'a\nb\nc\n'
expect_status 1 "run_test: rejected pattern" "${rt[@]}" --reject 'FAIL ' -- echo 'FAIL x'
expect_status 0 "run_test: --status 1 and exit 1" "${rt[@]}" --status 1 -- false
expect_status 1 "run_test: --status 1 and exit 0" "${rt[@]}" --status 1 -- true
expect_status 1 "run_test: sanitizer report with the wanted status" \
  "${rt[@]}" --status 1 -- sh -c 'echo "==1==ERROR: LeakSanitizer: detected memory leaks"; exit 1'
expect_status 77 "run_test: command exits 77" "${rt[@]}" -- sh -c 'exit 77'
expect_status 77 "run_test: missing data" "${rt[@]}" --need /nonexistent/data -- true
expect_status 1 "run_test: command exits 77 under WGK_TIER=all" "${rt_all[@]}" -- sh -c 'exit 77'
expect_status 1 "run_test: missing data under WGK_TIER=all" "${rt_all[@]}" --need /nonexistent/data -- true
expect_status 0 "run_test: --gpu on this machine's adapter" "${rt[@]}" --gpu "$wgk" -- true
expect_status 1 "run_test: --gpu without a Vulkan driver" \
  env -u WGK_ALLOW_NO_GPU VK_ICD_FILENAMES=/nonexistent.json "${rt[@]}" --gpu "$wgk" -- true
expect_status 77 "run_test: --gpu without a Vulkan driver, WGK_ALLOW_NO_GPU=1" \
  env WGK_ALLOW_NO_GPU=1 VK_ICD_FILENAMES=/nonexistent.json "${rt[@]}" --gpu "$wgk" -- true
expect_status 1 "run_test: --gpu without a Vulkan driver, WGK_ALLOW_NO_GPU=1, WGK_TIER=all" \
  env WGK_ALLOW_NO_GPU=1 VK_ICD_FILENAMES=/nonexistent.json "${rt_all[@]}" --gpu "$wgk" -- true

# tier.py: a test that ctest reports skipped (a program outside the helpers above) fails the all tier, not the
# quick one; a test labelled optional may skip in both.
tier=$(dirname "$run_test")/tier.py
tiny=$(mktemp -d)
make_tiny() { # LABELS: one test that skips on purpose, in a ctest folder of its own
  cat >"$tiny/CTestTestfile.cmake" <<EOT
add_test(skipper "/bin/sh" "-c" "echo 'SKIP: on purpose'; exit 77")
set_tests_properties(skipper PROPERTIES SKIP_RETURN_CODE 77 LABELS "$1")
EOT
}
make_tiny unit
expect_status 1 "tier.py all: a skip fails it" env -u WGK_TIER /usr/bin/python3 "$tier" all "$tiny"
expect_status 0 "tier.py quick: a skip is allowed" env -u WGK_TIER /usr/bin/python3 "$tier" quick "$tiny"
make_tiny "unit;optional"
expect_status 0 "tier.py all: an optional test may skip" env -u WGK_TIER /usr/bin/python3 "$tier" all "$tiny"
rm -rf "$tiny"

[ $failures = 0 ] && echo "test machinery: ok" && exit 0
echo "$failures check(s) failed"
exit 1
