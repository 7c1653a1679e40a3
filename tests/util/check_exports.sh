#!/usr/bin/env bash
# The shared library exports exactly the functions include/wgk.h declares: nothing internal (a wgk_ prefix
# is no proof of being public: most internal cross-file functions have it too), nothing declared but missing.
# usage: check_exports.sh LIBWGK.so WGK.H
set -euo pipefail
lib=$1 header=$2

# Functions the header declares: comments and preprocessor lines dropped, statements split at ';',
# typedefs skipped, the first `wgk_name(` of each remaining statement.
declared=$(sed -e 's://.*$::' -e '/^[[:space:]]*#/d' "$header" | tr '\n' ' ' |
  sed -e 's:/\*\([^*]\|\*[^/]\)*\*/: :g' | tr ';' '\n' | grep -v '\btypedef\b' |
  grep -oE '\bwgk_[A-Za-z0-9_]+[[:space:]]*\(' | sed 's/[[:space:]]*($//' | sort -u)
# Symbols the library defines and exports (text, data, bss, read-only, weak).
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVWiu]$/ {print $3}' | sed 's/@.*//' | sort -u)

n_declared=$(printf '%s\n' "$declared" | grep -c . || true)
[ "$n_declared" -ge 20 ] || { echo "$header: found only $n_declared declared functions (parser broken?)"; exit 1; }
extra=$(comm -13 <(printf '%s\n' "$declared") <(printf '%s\n' "$exported"))
missing=$(comm -23 <(printf '%s\n' "$declared") <(printf '%s\n' "$exported"))
rc=0
if [ -n "$extra" ]; then
  echo "$lib: $(printf '%s\n' "$extra" | wc -l) exported symbols not declared in $header (internal: hide them):"
  printf '  %s\n' $extra
  rc=1
fi
if [ -n "$missing" ]; then
  echo "$header: $(printf '%s\n' "$missing" | wc -l) declared functions not exported by $lib (WGK_API missing or not defined):"
  printf '  %s\n' $missing
  rc=1
fi
[ $rc -ne 0 ] || echo "$n_declared functions declared in $(basename "$header"), the same $n_declared exported"
exit $rc
