#!/usr/bin/python3
"""Draws `wgk bench --json` results for people: per case, wgk's GPU and end-to-end time beside the floor the
measured ceilings allow and beside each peer's time (bench/peers), on one logarithmic time axis.

usage: scripts/plot-bench.py WGK.json [PEER.json...] -o FILE.svg|.png [--title TEXT] [--values]
       scripts/plot-bench.py OUT_DIR -o FILE.svg|.png [--values]
  WGK.json   what `wgk bench PKG --json WGK.json` wrote
  PEER.json  what bench/peers wrote (ort_bench.mjs, torch_bench.py, jsloader_bench.mjs): a peer of kind `gpu`
             (device time) is drawn beside wgk's GPU time, one of kind `e2e` (host tensors in and out) beside
             wgk's end-to-end time
  OUT_DIR    bench/peers/run.sh's output: one panel per OUT_DIR/<op id>/ holding wgk.json and its peers' JSON
  --values   also print every plotted value, one "panel | case | series | us" line each

Per case, from top to bottom: "ceiling floor" (the least GPU time the device's measured copy bandwidth and FMA
rate allow for the case's bytes and FLOPs: bandwidthFloorNs and computeFloorNs, the larger), "wgk GPU", each gpu
peer, "wgk e2e", each e2e peer. Shorter is faster. Needs matplotlib (Debian: python3-matplotlib, which
`scripts/bootstrap.sh test` installs).
"""
import json
import math
import os
import sys


def load_peers(paths):
    peers = []
    for path in paths:
        doc = json.load(open(path))
        peers.extend(doc["peers"] if "peers" in doc else [doc])
    return peers


def panel(wgk_path, peer_paths, title=None):
    """{title, cases: [{id, bars: [(series, kind, us)]}]} of one bench report and its peers."""
    wgk = json.load(open(wgk_path))
    peers = load_peers(peer_paths)
    dev = wgk.get("device", {})
    name = title or "%s on %s (%s)" % (wgk.get("package", "?"), dev.get("device") or dev.get("description") or "?",
                                        (wgk.get("date") or "")[:10])
    cases = []
    for c in wgk.get("cases", []):
        if c.get("status", "ok") != "ok":
            continue
        bars = []
        floor = max(c.get("bandwidthFloorNs") or 0, c.get("computeFloorNs") or 0)
        if floor > 0:
            bars.append(("ceiling floor", "floor", floor / 1e3))
        bars.append(("wgk GPU", "wgk", c["gpuNs"]["median"] / 1e3))
        for kind in ("gpu", "e2e"):
            if kind == "e2e":
                bars.append(("wgk e2e", "wgk", c["e2eNs"]["median"] / 1e3))
            for p in peers:
                if p.get("kind") != kind:
                    continue
                m = next((x for x in p.get("cases", []) if x.get("id") == c["id"] and x.get("status") == "ok"), None)
                if m:
                    bars.append(("%s (%s)" % (p["peer"], kind), "peer", m["ns"]["median"] / 1e3))
        cases.append({"id": c["id"], "bars": bars})
    return {"title": name, "cases": cases}


def panels_of(args):
    if len(args) == 1 and os.path.isdir(args[0]):
        out = []
        for op in sorted(os.listdir(args[0])):
            d = os.path.join(args[0], op)
            if os.path.isfile(os.path.join(d, "wgk.json")):
                peers = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".json") and f != "wgk.json")
                out.append(panel(os.path.join(d, "wgk.json"), peers))
        if not out:
            sys.exit("plot-bench: %s holds no <op id>/wgk.json" % args[0])
        return out
    return [panel(args[0], args[1:])]


COLOURS = {"floor": "#9e9e9e", "wgk": "#1f77b4", "peer": "#ff7f0e"}


def draw(panels, path):
    try:
        import matplotlib
    except ImportError:
        sys.exit("plot-bench: needs matplotlib (Debian: apt-get install python3-matplotlib, or scripts/bootstrap.sh test)")
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: smaller, searchable
    import matplotlib.pyplot as plt

    heights = [max(1, sum(len(c["bars"]) + 1 for c in p["cases"])) for p in panels]
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 0.22 * sum(heights) + 1.2 * len(panels)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, p in zip(axes[:, 0], panels):
        values = [us for c in p["cases"] for _, _, us in c["bars"]]
        # the axis starts a decade below the shortest time of 0.1 us or more: a floor far below it (a tiny case
        # on a fast GPU) is labelled, not drawn to scale
        left = 10 ** math.floor(math.log10(min([v for v in values if v >= 0.1] or [0.1])))
        y, ticks, labels = 0, [], []
        for c in p["cases"]:
            for series, kind, us in c["bars"]:
                ax.barh(y, us, color=COLOURS[kind], height=0.8)
                ax.text(max(us, left) * 1.05, y, "%s %s us" % (series, "%.1f" % us if us >= 1 else "%.2g" % us),
                        va="center", fontsize=7)
                y -= 1
            ticks.append(y + len(c["bars"]) / 2 + 0.5)
            labels.append(c["id"])
            y -= 1
        ax.set_xscale("log")
        ax.set_yticks(ticks)
        ax.set_yticklabels(labels, fontsize=8)
        ax.set_title(p["title"], fontsize=9)
        ax.set_xlabel("us per call (log scale; shorter is faster)", fontsize=8)
        ax.set_xlim(left, max(values or [1]) * 30)  # room for the labels right of the longest bar
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None} if path.endswith(".svg") else None)


def main(argv):
    args, out, title, values = [], None, None, False
    it = iter(argv)
    for a in it:
        if a == "-o":
            out = next(it, None)
        elif a == "--title":
            title = next(it, None)
        elif a == "--values":
            values = True
        elif a in ("-h", "--help"):
            print(__doc__)
            return
        else:
            args.append(a)
    if not args or not out or not out.endswith((".svg", ".png")):
        sys.exit(__doc__)
    panels = panels_of(args)
    if title:
        panels[0]["title"] = title
    if values:
        for p in panels:
            for c in p["cases"]:
                for series, _, us in c["bars"]:
                    print("%s | %s | %s | %.3f" % (p["title"], c["id"], series, us))
    draw(panels, out)
    print("wrote %s (%d panel%s, %d cases)" % (out, len(panels), "" if len(panels) == 1 else "s",
                                               sum(len(p["cases"]) for p in panels)))


if __name__ == "__main__":
    main(sys.argv[1:])
