"""How much code a scenario keeps hot: the 64-byte code lines executed at least once (and at
least once per ten) per data packet, from callgrind's per-instruction counts.

A run whose working code outgrows the first-level instruction cache (32 KiB on the machines of
bench/results.md) pays for it on every packet, which instruction counts do not show. Counts are
deterministic; no time is measured.

Usage:
  python3 bench/code_footprint.py SCENARIO.toml [SCENARIO.toml ...] [--duration 10s] [--warmup 5s]

Needs valgrind and a release build (``cargo build --release``). Each scenario runs under
callgrind for ``--duration`` of simulated time (slow: about a minute for 10 s of the access90
cases).
"""
from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release" / "sluice-sim"
LINE = 64


def position(tok: str, cur: int) -> int:
    """A callgrind position: absolute (``0x…`` or decimal), relative (``+n``, ``-n``) or ``*``."""
    if tok == "*":
        return cur
    if tok[0] == "+":
        return cur + int(tok[1:], 0)
    if tok[0] == "-":
        return cur - int(tok[1:], 0)
    return int(tok, 0)


def instruction_counts(path: Path) -> collections.Counter:
    """Executions per instruction address (self cost only: a call line's inclusive cost is
    skipped)."""
    counts: collections.Counter = collections.Counter()
    addr = line = 0
    after_call = False
    with open(path) as f:
        for raw in f:
            c = raw[:1]
            if c.isdigit() or c in "+-*":
                p = raw.split()
                addr = position(p[0], addr)
                if len(p) > 1:
                    line = position(p[1], line)
                if after_call:
                    after_call = False
                elif len(p) > 2:
                    counts[addr] += int(p[2])
            elif raw.startswith("calls="):
                after_call = True
    return counts


def footprint(scenario: Path, duration: str, warmup: str) -> dict:
    with tempfile.TemporaryDirectory() as d:
        out, summary = Path(d) / "callgrind.out", Path(d) / "summary.json"
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes", f"--callgrind-out-file={out}", str(BIN), str(scenario),
                        "--set", f'duration="{duration}"', "--set", f'warmup="{warmup}"', "--summary", str(summary)],
                       check=True, capture_output=True)
        pkts = json.loads(summary.read_text())["data_packets"]
        counts = instruction_counts(out)
    lines: collections.Counter = collections.Counter()
    for a, n in counts.items():
        lines[a // LINE] += n
    total = sum(counts.values())
    row = {"scenario": str(scenario), "data_packets": pkts, "instructions_per_packet": round(total / pkts)}
    for per, name in ((1.0, "every_packet"), (0.1, "every_tenth")):
        hot = [k for k, n in lines.items() if n / pkts >= per]
        row[f"lines_{name}"] = len(hot)
        row[f"kib_{name}"] = round(len(hot) * LINE / 1024, 1)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenarios", nargs="+", type=Path)
    ap.add_argument("--duration", default="10s")
    ap.add_argument("--warmup", default="5s")
    a = ap.parse_args()
    if not BIN.exists():
        print(f"{BIN} missing: run cargo build --release first", file=sys.stderr)
        return 2
    print("| scenario | instructions / data packet | code lines run ≥ 1 per data packet | ≥ 1 per 10 |")
    print("|---|---|---|---|")
    for s in a.scenarios:
        r = footprint(s, a.duration, a.warmup)
        print(f"| `{s}` | {r['instructions_per_packet']:,} | {r['lines_every_packet']} ({r['kib_every_packet']} KiB) | "
              f"{r['lines_every_tenth']} ({r['kib_every_tenth']} KiB) |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
