#!/usr/bin/env bash
# The shared library exports the public API (wgk_*) and nothing else; internal cross-file functions stay hidden.
set -euo pipefail
lib=$1
syms=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRV]$/ {print $3}')
count=$(printf '%s\n' "$syms" | grep -c '^wgk_' || true)
others=$(printf '%s\n' "$syms" | grep -v '^wgk_' | grep -v '^$' || true)
if [ -n "$others" ]; then echo "exported but not wgk_*:"; echo "$others"; exit 1; fi
[ "$count" -gt 20 ] || { echo "only $count wgk_ symbols exported"; exit 1; }
echo "$count symbols exported, all wgk_*"
