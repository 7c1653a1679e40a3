#!/usr/bin/env bash
# Whether the resident call's two modes (record and submit 10-11 µs or 16-18 µs, for whole repeats) follow the
# host core's speed: rounds of resident calls, each round after a fixed host workload timed. Run through
# scripts/gpu-run.sh; results under $OUT.
. "$(dirname "$0")/h200-common.sh"
"$BUILD/bench/rope_decode_ab" $rope --rounds 400 --calls 1000 resident-wait
