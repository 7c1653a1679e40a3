#!/usr/bin/python3
"""CLI conventions (issue 16 item 3): `wgk CMD --help`, `wgk CMD -h` and `wgk help CMD` print that command's usage
on stdout and exit 0 for every command `wgk help` lists; the help of a command names every option its source
parses (src/cli/cmd_<name>.c, plus the common package options); a command called without its arguments prints
the usage lines of that same help on stderr and exits 2; `wgk --version` names the pinned Dawn package
and the commit the build was made from.
Usage: help_test.py WGK REPO_ROOT
"""
import glob, json, os, re, subprocess, sys

wgk, root = sys.argv[1], sys.argv[2]
fails = []


def run(args):
    p = subprocess.run([wgk] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


rc, listing, _ = run(["help"])
commands = [m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*) ", listing, re.M) if m.group(1) != "help"]
if len(commands) < 15:
    fails.append(f"wgk help lists {len(commands)} commands: {commands}")
util = open(os.path.join(root, "src/cli/cli_util.c")).read()
common_body = util[util.index("int cli_common_option("):]
common = set(re.findall(r'"(--[a-z-]+)"', common_body[:common_body.index("\n}\n")]))

for cmd in commands:
    outs = []
    for args in ([cmd, "--help"], [cmd, "-h"], ["help", cmd], [cmd, "x", "--help"]):
        rc, out, err = run(args)
        if rc != 0 or not out.startswith(f"usage: wgk {cmd}"):
            fails.append(f"wgk {' '.join(args)}: exit {rc}, stdout {out[:80]!r}, stderr {err[:120]!r}")
        outs.append(out)

    if len(set(outs)) != 1:
        fails.append(f"wgk {cmd}: --help, -h and help {cmd} differ")
    # the description (the lines that are neither usage nor options) says what the command prints (issue 35 item 6)
    desc = " ".join(l for l in outs[0].splitlines()[1:] if l and not l.startswith(" "))
    if not re.search(r"\b(prints?|lists?|writes?)\b", desc, re.I):
        fails.append(f"wgk {cmd} --help does not say what it prints: {desc[:160]!r}")
    if cmd not in ("list", "devices", "smoke"):  # the others need an argument: called bare, the usage on stderr
        lines = outs[0].splitlines(keepends=True)
        n = 1
        while n < len(lines) and lines[n].startswith(" "):
            n += 1
        usage = "".join(lines[:n])
        rc, out, err = run([cmd])
        if rc != 2 or not err.startswith(usage) or f"wgk help {cmd}" not in err:
            fails.append(f"wgk {cmd} (no arguments): exit {rc}, stderr {err[:200]!r}, not its help's usage {usage!r}")
    src = os.path.join(root, "src/cli", f"cmd_{cmd.replace('-', '_')}.c")
    if os.path.exists(src):
        text = open(src).read()
        options = set(re.findall(r'"(--[a-z][a-z-]*)"', text))
        if "cli_common_option" in text:
            options |= common
        shown = outs[0] + (run(["render", "--help"])[1] if cmd == "explain" else "")  # one source for both
        for opt in sorted(options):
            if opt not in shown:
                fails.append(f"wgk {cmd} --help does not explain {opt}")
rc, out, err = run(["bnech", "x"])  # a misspelled command: the near one named (issue 35 item 6)
if rc != 2 or "wgk: unknown command 'bnech'; did you mean 'bench'?" not in err:
    fails.append(f"wgk bnech: exit {rc}, {err[:120]!r}")
rc, out, err = run(["help", "tset"])
if rc != 2 or "wgk help: unknown command 'tset'; did you mean 'test'?" not in err:
    fails.append(f"wgk help tset: exit {rc}, {err[:120]!r}")
rc, out, err = run(["help", "no-such-command"])
if rc != 2 or "unknown command 'no-such-command'" not in err:
    fails.append(f"wgk help no-such-command: exit {rc}, {err[:120]!r}")
dawn = json.load(open(os.path.join(root, "third_party/dawn/package.json")))["dependencies"]["bun-webgpu-linux-x64"]
rc, out, err = run(["--version"])
if rc != 0 or not re.match(r"wgk \d+\.\d+\.\d+\n", out) or f"bun-webgpu-linux-x64 {dawn}" not in out or "commit" not in out:
    fails.append(f"wgk --version: exit {rc}, {out!r}")
head = subprocess.run(["git", "-C", root, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
if head.returncode == 0 and f"source commit: {head.stdout.strip()}" not in out:  # taken at build, not configure
    fails.append(f"wgk --version does not show the checkout's commit {head.stdout.strip()}: {out!r}")
for f in fails:
    print("FAIL", f)
print(f"{len(commands)} commands' help checked; {len(fails)} failures")
sys.exit(1 if fails else 0)
