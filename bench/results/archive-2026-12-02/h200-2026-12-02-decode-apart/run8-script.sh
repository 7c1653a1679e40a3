. "$(dirname "$0")/h200-common.sh"
for pass in 1 2; do
  for how in beside none; do
    echo "== $how pass $pass"
    if [ $how = none ]; then export WGK_BENCH_NO_BARE=1; else unset WGK_BENCH_NO_BARE; fi
    "$BUILD/wgk" bench $rope --json "$OUT/ab-$how-$pass.json" 2>&1 | grep -E "^(decode|prompt|large)|REPEATS" | cut -c1-200
  done
done
