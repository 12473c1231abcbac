#!/usr/bin/env python3
"""Sluice speed benchmarks: wall time, events/s and data packets/s on the reference dumbbells,
and how per-packet cost scales with flow count and buffer size.

Ratios against ns-3 use ns-3 runs of the same cases on the same machine, stored in
``validation/fixtures/ns3/`` by ``validation/ns3_dumbbell.py`` (see bench/README.md).
Nothing here is a test: numbers go to ``bench/results.json`` and ``bench/results.md``.

Usage:  python3 bench/run.py [--quick] [--repeat N]
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


def build() -> None:
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "sluice-sim"], cwd=ROOT, check=True)


def run_case(case: tuple, repeat: int) -> dict:
    name, flows, buf, rate, bdelay, delays, duration, warmup, _ = case
    text = ACCESS.format(name=name, flows=flows, buffer=buf, rate=rate, bdelay=bdelay, delays=delays, duration=duration, warmup=warmup)
    best = None
    with tempfile.TemporaryDirectory() as d:
        scen = Path(d) / f"{name}.toml"
        scen.write_text(text)
        for _ in range(repeat):
            out = subprocess.run([str(BIN), str(scen)], capture_output=True, text=True, check=True)
            s = json.loads(out.stdout)
            if best is None or s["wall_time_s"] < best["wall_time_s"]:
                best = s
    assert best is not None
    wall = best["wall_time_s"]
    return {
        "case": name,
        "flows": flows,
        "buffer_pkts": buf,
        "sim_s": best["sim_time_s"],
        "wall_s": wall,
        "events": best["events"],
        "events_per_s": best["events"] / wall,
        "data_packets": best["data_packets"],
        "data_pkts_per_s": best["data_packets"] / wall,
        "ns_per_data_pkt": wall / best["data_packets"] * 1e9,
        "wall_per_sim_s": wall / best["sim_time_s"],
        "aggregate_goodput_mbps": best["aggregate_goodput_bps"] / 1e6,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="skip the 900-flow case")
    ap.add_argument("--repeat", type=int, default=3, help="runs per case; the fastest counts (default 3)")
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
    rows = []
    for c in CASES:
        if args.quick and c[1] >= 900:
            continue
        r = run_case(c, args.repeat)
        ref = ns3.get("cases", {}).get(c[8]) if c[8] else None
        if ref:
            r["ns3_wall_s"] = ref["wall_run_s"]
            r["ns3_events_per_s"] = ref.get("events_per_s") or ref["events"] / ref["wall_run_s"]
            r["speedup_vs_ns3"] = ref["wall_run_s"] / r["wall_s"]
        rows.append(r)
        print(f"{r['case']:>18}: wall {r['wall_s']:.3f}s  {r['events_per_s']/1e6:.2f} Mev/s  {r['data_pkts_per_s']/1e6:.2f} Mpkt/s  {r['ns_per_data_pkt']:.0f} ns/pkt" + (f"  {r['speedup_vs_ns3']:.0f}x ns-3" if ref else ""), flush=True)
    by = {r["case"]: r for r in rows}
    flat = {}
    if "access10" in by and "access900" in by:
        flat["per_pkt_900_vs_10_flows"] = by["access900"]["ns_per_data_pkt"] / by["access10"]["ns_per_data_pkt"]
    if "access10-buf100" in by and "access10-buf1000" in by:
        flat["per_pkt_buf1000_vs_buf100"] = by["access10-buf1000"]["ns_per_data_pkt"] / by["access10-buf100"]["ns_per_data_pkt"]
    result = {
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": sys.version.split()[0]},
        "date": time.strftime("%Y-%m-%d"),
        "ns3_reference": ns3.get("about"),
        "cases": rows,
        "flatness": flat,
    }
    (ROOT / "bench" / "results.json").write_text(json.dumps(result, indent=1) + "\n")
    lines = ["# Benchmark results", "", f"Machine: {result['machine']['cpus']} cores, {result['machine']['platform']}; {result['date']}. Single core; fastest of {args.repeat} runs.", "",
             "| case | flows | buffer | wall s | events/s | data pkt/s | ns/pkt | ns-3 wall s | ns-3 events/s | speed-up |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['flows']} | {r['buffer_pkts']} | {r['wall_s']:.3f} | {r['events_per_s']/1e6:.2f} M | {r['data_pkts_per_s']/1e6:.2f} M | {r['ns_per_data_pkt']:.0f} | " + (f"{r['ns3_wall_s']:.1f} | {r['ns3_events_per_s'] / 1e3:.0f} k | {r['speedup_vs_ns3']:.0f}x |" if "ns3_wall_s" in r else "– | – | – |"))
    lines += ["", f"ns-3 reference: {result['ns3_reference']}", "", "Per-packet cost ratios (1.0 = perfectly flat; target ≤ 1.5):", ""]
    for k, v in flat.items():
        lines.append(f"- {k}: {v:.2f}")
    (ROOT / "bench" / "results.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
