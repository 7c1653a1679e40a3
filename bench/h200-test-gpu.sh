#!/usr/bin/env bash
# test_gpu three times on a lent GPU (its waits and timeouts). Run through scripts/gpu-run.sh.
. "$(dirname "$0")/h200-common.sh"
for i in 1 2 3; do run_tests test_gpu; done
