#!/usr/bin/env python3
"""The CPUs a peer may run on beside wgk: this process's CPUs less those `wgk bench --off-irq-cpu` kept off
(host.keptOffCpus of the report's cases), as a `taskset -c` list. Prints nothing when wgk kept off no CPU, so the
peers then run where they are. Usage: cpus_beside.py WGK.json"""
import json, os, sys


def parse(cpu_list):
    cpus = set()
    for part in filter(None, cpu_list.split(",")):
        first, _, last = part.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def spans(cpus):
    out, run = [], []
    for c in sorted(cpus):
        if run and c != run[-1] + 1:
            out.append(run)
            run = []
        run.append(c)
    if run:
        out.append(run)
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in out)


report = json.load(open(sys.argv[1]))
kept = set()
for case in report.get("cases", []):
    kept |= parse(case.get("host", {}).get("keptOffCpus", ""))
left = set(os.sched_getaffinity(0)) - kept
if kept and left:
    print(spans(left))
