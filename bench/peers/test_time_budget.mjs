// The peers' per-case time budget (gen.mjs timeCalls): a slow call is timed fewer times (at least 3, one warm-up
// when a warm-up alone would take half the budget), a fast one its full iterations, no budget changes nothing.
// usage: node test_time_budget.mjs   (exit 1 on a failed check)
import { timeCalls } from "./gen.mjs";

let failures = 0;
const check = (ok, what) => { if (!ok) { failures++; console.error(`FAILED: ${what}`); } };
const sleepCall = (ms, counter) => async () => { counter.n++; await new Promise((r) => setTimeout(r, ms)); };

{ // 40 ms a call (a little more on a busy machine), 200 ms of budget, 20 iterations asked: 4-5 timed calls after
  // 1 warm-up (3 warm-ups would take 120 ms, more than half the budget)
  const c = { n: 0 };
  const r = await timeCalls(sleepCall(40, c), { iterations: 20, warmup: 3 }, undefined, 200);
  check(r.iterations >= 3 && r.iterations <= 5 && r.budgetLimited && r.ns.n === r.iterations,
        `slow call: 3-5 timed calls, got ${r.iterations}`);
  check(c.n === r.iterations + 1, `slow call: 1 warm-up + the timed calls, got ${c.n} calls`);
  check(r.ns.median >= 35e6, `slow call: median ${r.ns.median} ns is the call's time`);
}
{ // a call slower than the whole budget still gets 3 timed calls
  const c = { n: 0 };
  const r = await timeCalls(sleepCall(30, c), { iterations: 20, warmup: 3 }, undefined, 20);
  check(r.iterations === 3 && c.n === 4, `slower than the budget: 3 timed calls after 1 warm-up, got ${r.iterations}, ${c.n}`);
}
{ // a fast call keeps its iterations and warm-ups
  const c = { n: 0 };
  const r = await timeCalls(sleepCall(1, c), { iterations: 8, warmup: 3 }, undefined, 5000);
  check(r.iterations === 8 && !r.budgetLimited && c.n === 11, `fast call: 3 warm-ups + 8, got ${r.iterations}, ${c.n}`);
}
{ // no budget: the asked iterations (--iterations over the case's), every warm-up
  const c = { n: 0 };
  const r = await timeCalls(sleepCall(20, c), { iterations: 20, warmup: 2 }, "4", 0);
  check(r.iterations === 4 && c.n === 6, `no budget: 2 warm-ups + 4, got ${r.iterations}, ${c.n}`);
}
console.log(failures ? `${failures} failures` : "peers time budget: ok");
process.exit(failures ? 1 : 0);
