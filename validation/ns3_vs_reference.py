#!/usr/bin/env python3
"""Compare our ns-3 runs (validation/fixtures/ns3/*.json, made by ns3_dumbbell.py) with the
shared ns-3 reference (validation/fixtures/ns3-reference.json) and print a Markdown table.

    python3 validation/ns3_vs_reference.py            # table on standard output
    python3 validation/ns3_vs_reference.py --check    # also exit 1 unless every case agrees

"Agrees" means: the same queue-disc counts in the window (received, dropped, sent), the same
bottleneck packet totals, and goodput, drop ratio, queue mean and Jain's index equal to 1e-9
relative; per-flow start times within 1 µs (the reference lists them rounded to 1 µs).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REF = ROOT / "validation" / "fixtures" / "ns3-reference.json"
OURS = ROOT / "validation" / "fixtures" / "ns3"


def close(a, b, rel=1e-9) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    ref = {c["case"]: c for c in json.loads(REF.read_text())["cases"]}
    print("| case | goodput Mb/s (ours / ref) | drop ratio (ours / ref) | queue mean pkts (ours / ref) "
          "| Jain (ours / ref) | max per-flow goodput diff Mb/s | max start diff µs | events (ours / ref) "
          "| Run() wall s (ours / ref) | agrees |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    bad = 0
    for p in sorted(OURS.glob("*.json")):
        if p.name == "start_times.json":
            continue
        o = json.loads(p.read_text())
        r = ref.get(o["case"])
        if r is None:
            continue
        gd = max(abs(a["goodput_mbps"] - b["goodput_mbps"]) for a, b in zip(o["flows"], r["flows"]))
        sd = max(abs(a["start_s"] - b["start_s"]) for a, b in zip(o["flows"], r["flows"])) * 1e6
        ok = (
            o["qdisc_window"] == r["qdisc_window"]
            and o["bottleneck_data_pkts_total"] == r["bottleneck_data_pkts_total"]
            and o["bottleneck_ack_pkts_total"] == r["bottleneck_ack_pkts_total"]
            and all(close(o[k], r[k]) for k in ("aggregate_goodput_mbps", "drop_ratio", "queue_mean_pkts", "jain"))
            and len(o["flows"]) == len(r["flows"])
            and sd < 1.0
        )
        bad += not ok
        print(f"| {o['case']} | {o['aggregate_goodput_mbps']:.6f} / {r['aggregate_goodput_mbps']:.6f} "
              f"| {o['drop_ratio']:.6e} / {r['drop_ratio']:.6e} | {o['queue_mean_pkts']:.4f} / {r['queue_mean_pkts']:.4f} "
              f"| {o['jain']:.6f} / {r['jain']:.6f} | {gd:.1e} | {sd:.2f} | {o['events']} / {r['events']} "
              f"| {o['wall_run_s']:.1f} / {r['wall_run_s']:.1f} | {'yes' if ok else 'NO'} |")
    return 1 if (args.check and bad) else 0


if __name__ == "__main__":
    sys.exit(main())
