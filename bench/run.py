#!/usr/bin/env python3
"""Sluice speed benchmarks: wall time, events/s and data packets/s on the reference dumbbells,
and how per-packet cost scales with flow count and buffer size.

Ratios against ns-3 use ns-3 runs of the same cases on the same machine, stored in
``validation/fixtures/ns3/`` by ``validation/ns3_dumbbell.py`` (see bench/README.md).
Nothing here is a test: numbers go to ``bench/results.json`` and ``bench/results.md``.

Usage:  python3 bench/run.py [--quick] [--repeat N] [--pair-rounds N] [--cachegrind]

Cases run in rounds (every case once per round) and the fastest run of each counts.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release" / "sluice-sim"
BENCH = ROOT / "target" / "release" / "sluice-bench"

ACCESS = """name = "{name}"
duration = "{duration}"
warmup = "{warmup}"
seed = 1
[tcp]
validate = "ns3.44"
snd_buf = "8MiB"
rcv_buf = "8MiB"
[topology]
kind = "dumbbell"
pairs = {flows}
access_rate = "{rate}"
{delays}
bottleneck = {{ rate = "{rate}", delay = "{bdelay}" }}
queue = {{ kind = "drop_tail", limit = "{buffer}pkt" }}
[[flows]]
count = {flows}
src = "senders"
dst = "receivers"
app = {{ kind = "bulk" }}
start = {{ uniform = ["0s", "3s"] }}
"""

EVAL9 = 'rtt_table = "eval9"'
DC = 'sender_delays = ["10us", "100us"]\nreceiver_delays = ["10us", "100us"]'

# (case, flows, buffer, rate, bottleneck delay, delays, duration, warmup, ns-3 case name)
CASES = [
    ("access10", 10, 900, "100Mbps", "2ms", EVAL9, "100s", "30s", "access10-newreno-fifo"),
    ("access9", 9, 900, "100Mbps", "2ms", EVAL9, "100s", "30s", "a-access9-newreno-fifo"),
    ("access90", 90, 900, "100Mbps", "2ms", EVAL9, "100s", "30s", "b-access90-newreno-fifo"),
    ("access900", 900, 900, "100Mbps", "2ms", EVAL9, "100s", "30s", None),
    ("access10-buf100", 10, 100, "100Mbps", "2ms", EVAL9, "100s", "30s", None),
    ("access10-buf1000", 10, 1000, "100Mbps", "2ms", EVAL9, "100s", "30s", None),
    ("dc90", 90, 900, "1Gbps", "10us", DC, "10s", "3s", "d-dc90-newreno-fifo-10s"),
]


# Per-packet cost comparisons: (key, base case, other case).
PAIRS = [("per_pkt_900_vs_10_flows", "access10", "access900"), ("per_pkt_buf1000_vs_buf100", "access10-buf100", "access10-buf1000")]


def build() -> None:
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "sluice-sim", "--bin", "sluice-bench"], cwd=ROOT, check=True)


def scenario_text(case: tuple) -> str:
    name, flows, buf, rate, bdelay, delays, duration, warmup, _ = case
    return ACCESS.format(name=name, flows=flows, buffer=buf, rate=rate, bdelay=bdelay, delays=delays, duration=duration, warmup=warmup)


def run_once(scen: Path) -> dict:
    out = subprocess.run([str(BIN), str(scen)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def record(case: tuple, runs: list[dict]) -> dict:
    """The fastest run of a case, with the spread of all of them."""
    name, flows, buf = case[0], case[1], case[2]
    best = min(runs, key=lambda s: s["wall_time_s"])
    wall = best["wall_time_s"]
    walls = sorted(s["wall_time_s"] for s in runs)
    return {
        "case": name,
        "flows": flows,
        "buffer_pkts": buf,
        "sim_s": best["sim_time_s"],
        "wall_s": wall,
        "wall_s_median": walls[len(walls) // 2],
        "wall_s_all": [s["wall_time_s"] for s in runs],
        "events": best["events"],
        "events_per_s": best["events"] / wall,
        "data_packets": best["data_packets"],
        "data_pkts_per_s": best["data_packets"] / wall,
        "ns_per_data_pkt": wall / best["data_packets"] * 1e9,
        "wall_per_sim_s": wall / best["sim_time_s"],
        "aggregate_goodput_mbps": best["aggregate_goodput_bps"] / 1e6,
    }


def paired_ratios(by: dict, a: str, b: str) -> list[float]:
    """Per-packet cost of case b over case a, run by run: run k of both cases was made in the same
    round, minutes apart at most, so a slow spell of a shared machine weighs on both."""
    ra, rb = by[a], by[b]
    return [(tb / rb["data_packets"]) / (ta / ra["data_packets"]) for ta, tb in zip(ra["wall_s_all"], rb["wall_s_all"])]


def interleaved_ratios(a: Path, b: Path, rounds: int) -> list[float]:
    """Per-packet cost of scenario b over scenario a, both run in one process in alternating
    slices of events (``sluice-bench``), once per round: the two meet the same machine
    conditions throughout, which sequential runs on a shared machine do not."""
    out = subprocess.run([str(BENCH), str(a), str(b), "--rounds", str(rounds)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["ratio"]


def cachegrind_counts(case: tuple) -> dict | None:
    """Instructions and last-level data misses per data packet under cachegrind (a 1 MiB, 16-way
    last-level cache, twice this machine's 512 KiB per-core L2), on the case shortened to 40 s with a 10 s
    warm-up. Deterministic, unlike wall time on a shared machine: the flatness of the work
    itself. None if valgrind is missing."""
    import re
    import shutil
    if shutil.which("valgrind") is None:
        return None
    c = list(case)
    c[6], c[7] = "40s", "10s"
    with tempfile.TemporaryDirectory() as d:
        scen = Path(d) / "c.toml"
        scen.write_text(scenario_text(tuple(c)))
        out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--LL=1048576,16,64",
                              "--cachegrind-out-file=/dev/null", str(BIN), str(scen)], capture_output=True, text=True, check=True)
    pkts = json.loads(out.stdout)["data_packets"]
    num = lambda pat: int(re.search(pat, out.stderr).group(1).replace(",", ""))  # noqa: E731
    return {"instructions_per_pkt": num(r"I\s+refs:\s+([\d,]+)") / pkts, "ll_misses_per_pkt": num(r"LLd misses:\s+([\d,]+)") / pkts}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="skip the 900-flow case")
    ap.add_argument("--repeat", type=int, default=3, help="rounds (runs per case); the fastest run counts (default 3)")
    ap.add_argument("--pair-rounds", type=int, default=11,
                    help="rounds of each interleaved pair; their median is the figure to quote (default 11: on a "
                         "shared machine medians of 5 rounds of the same build scatter by about ±0.05)")
    ap.add_argument("--cachegrind", action="store_true",
                    help="also count instructions and last-level misses per packet at 10 and 900 flows (valgrind, ~1 min)")
    args = ap.parse_args()
    build()
    own = sorted((ROOT / "validation" / "fixtures" / "ns3").glob("*.json"))
    if own:
        # ns-3 runs of the same cases on this machine (validation/ns3_dumbbell.py).
        records = [json.loads(p.read_text()) for p in own]
        cases = {r["case"]: r for r in records if isinstance(r, dict) and "case" in r and "wall_run_s" in r}
        ns3 = {"about": "validation/fixtures/ns3/*.json (validation/ns3_dumbbell.py, ns-3 3.44, this machine)", "cases": cases}
    else:
        # Fall back to the reference fixture: ns-3 3.44 on a 2-core machine of the same kind.
        fx = json.loads((ROOT / "validation" / "fixtures" / "ns3-reference.json").read_text())
        ns3 = {"about": "validation/fixtures/ns3-reference.json (" + fx["about"] + ")", "cases": {c["case"]: c for c in fx["cases"]}}
    cases = [c for c in CASES if not (args.quick and c[1] >= 900)]
    runs: dict[str, list[dict]] = {c[0]: [] for c in cases}
    with tempfile.TemporaryDirectory() as d:
        files = {}
        for c in cases:
            files[c[0]] = Path(d) / f"{c[0]}.toml"
            files[c[0]].write_text(scenario_text(c))
        # Rounds of every case in turn rather than each case's runs back to back: on a shared
        # machine a slow spell then slows one run of every case instead of all runs of one.
        for k in range(args.repeat):
            for c in cases:
                runs[c[0]].append(run_once(files[c[0]]))
            print(f"round {k + 1}/{args.repeat}: " + "  ".join(f"{c[0]} {runs[c[0]][-1]['wall_time_s']:.2f}s" for c in cases), flush=True)
        interleaved = {}
        for key, a, b in PAIRS:
            if a in files and b in files:
                print(f"interleaved {a} / {b} ...", flush=True)
                r = sorted(interleaved_ratios(files[a], files[b], args.pair_rounds))
                interleaved[key] = {"ratios": r, "median": r[len(r) // 2], "min": r[0], "max": r[-1]}
    rows = []
    for c in cases:
        r = record(c, runs[c[0]])
        ref = ns3.get("cases", {}).get(c[8]) if c[8] else None
        if ref:
            r["ns3_wall_s"] = ref["wall_run_s"]
            r["ns3_events_per_s"] = ref.get("events_per_s") or ref["events"] / ref["wall_run_s"]
            r["speedup_vs_ns3"] = ref["wall_run_s"] / r["wall_s"]
        rows.append(r)
        print(f"{r['case']:>18}: wall {r['wall_s']:.3f}s  {r['events_per_s']/1e6:.2f} Mev/s  {r['data_pkts_per_s']/1e6:.2f} Mpkt/s  {r['ns_per_data_pkt']:.0f} ns/pkt" + (f"  {r['speedup_vs_ns3']:.0f}x ns-3" if ref else ""), flush=True)
    by = {r["case"]: r for r in rows}
    flat = {}
    paired = {}
    for key, a, b in PAIRS:
        if a in by and b in by:
            flat[key] = by[b]["ns_per_data_pkt"] / by[a]["ns_per_data_pkt"]
            ratios = sorted(paired_ratios(by, a, b))
            paired[key] = {"median": ratios[len(ratios) // 2], "min": ratios[0], "max": ratios[-1]}
    counts = {}
    if args.cachegrind:
        for c in cases:
            if c[0] in ("access10", "access900"):
                print(f"cachegrind {c[0]} (40 s) ...", flush=True)
                got = cachegrind_counts(c)
                if got is None:
                    print("valgrind not found: no counts", flush=True)
                    break
                counts[c[0]] = got
    result = {
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": sys.version.split()[0]},
        "date": time.strftime("%Y-%m-%d"),
        "ns3_reference": ns3.get("about"),
        "cases": rows,
        "flatness": flat,
        "flatness_paired": paired,
        "flatness_interleaved": interleaved,
        "cachegrind": counts,
    }
    (ROOT / "bench" / "results.json").write_text(json.dumps(result, indent=1) + "\n")
    lines = ["# Benchmark results", "", f"Machine: {result['machine']['cpus']} cores, {result['machine']['platform']}; {result['date']}. Single core; fastest of {args.repeat} runs.", "",
             "| case | flows | buffer | wall s | events/s | data pkt/s | ns/pkt | ns-3 wall s | ns-3 events/s | speed-up |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['flows']} | {r['buffer_pkts']} | {r['wall_s']:.3f} | {r['events_per_s']/1e6:.2f} M | {r['data_pkts_per_s']/1e6:.2f} M | {r['ns_per_data_pkt']:.0f} | " + (f"{r['ns3_wall_s']:.1f} | {r['ns3_events_per_s'] / 1e3:.0f} k | {r['speedup_vs_ns3']:.0f}x |" if "ns3_wall_s" in r else "– | – | – |"))
    lines += ["", f"ns-3 reference: {result['ns3_reference']}", "", "Per-packet cost ratios (1.0 = perfectly flat; target ≤ 1.5). Interleaved: the two cases run in one",
              f"process in alternating slices (`sluice-bench`), median [range] of {args.pair_rounds} rounds — the figure to quote, as both",
              "meet the same machine conditions. Sequential: fastest run over fastest run, and the same-round median [range]:", ""]
    for k, v in flat.items():
        p = paired[k]
        i = interleaved.get(k)
        il = f"interleaved {i['median']:.2f} [{i['min']:.2f}–{i['max']:.2f}]; " if i else ""
        lines.append(f"- {k}: {il}sequential {v:.2f} (same-round median {p['median']:.2f} [{p['min']:.2f}–{p['max']:.2f}])")
    if len(counts) == 2:
        a, b = counts["access10"], counts["access900"]
        lines += ["", "Under cachegrind (deterministic; 40 s versions, 1 MiB last-level cache), per data packet:", "",
                  f"- instructions: {a['instructions_per_pkt']:.0f} at 10 flows, {b['instructions_per_pkt']:.0f} at 900 "
                  f"({b['instructions_per_pkt'] / a['instructions_per_pkt']:.2f}x)",
                  f"- last-level data misses: {a['ll_misses_per_pkt']:.2f} at 10 flows, {b['ll_misses_per_pkt']:.2f} at 900 "
                  "(cachegrind ignores prefetches: these are the cold lines the prefetches must cover)"]
    (ROOT / "bench" / "results.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
