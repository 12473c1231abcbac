#!/usr/bin/env python3
"""Piotrowska (2021)'s queue, drop and fairness tables beside Sluice's, as Markdown.

A. Piotrowska, "On Cross-Layer Interactions for Congestion Control in the Internet" (Applied
Sciences 11(17), 7808, 2021) reports one ns-3.30 run per cell: for the Data Center scenario
Tables 3 (Jain), 4 (queue mean and standard deviation, packets) and 5 (drop ratio, %), for the
Access Link scenario Tables 7, 8 and 9. This prints each beside the mean over the seeds of the
sweeps in this folder.

Usage:
  python3 scenarios/papers/piotrowska2021/tables.py results/piotrowska2021-data-center results/piotrowska2021-access-link

Each argument is a results directory of sweep-data-center.toml or sweep-access-link.toml (which one
is read from its sweep.json); the tables of the scenarios given are printed.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

# The paper's values: {scenario: {(load, tcp): {aqm: (jain, queue mean, queue std, drop %)}}}.
# Tables 3/4/5 (Data Center) and 7/8/9 (Access Link); loads UC/MC/HC = 9/90/900 flows.
_AQMS = ("DT", "PIE", "CoDel")
_ROWS = {
    "data-center": """
UC NewReno  0.75 1.00 0.99  814 69  169 41  173 10   0.02 0.08 0.06
UC CUBIC    0.70 1.00 1.00  859 47  168 26  172 4    0.03 0.06 0.06
UC C-TCP    0.97 0.96 0.94  845 39  167 23  162 14   0.00 0.02 0.02
MC NewReno  0.48 1.00 1.00  873 33  166 30  222 28   0.40 1.64 1.45
MC CUBIC    0.25 0.99 1.00  900 1   167 22  216 28   0.13 1.76 1.54
MC C-TCP    0.88 1.00 1.00  877 17  167 24  204 18   0.34 1.56 1.43
HC NewReno  0.16 0.98 0.99  899 1   168 59  724 207  0.67 6.53 5.78
HC CUBIC    0.12 0.97 0.98  899 1   168 47  716 224  0.48 6.98 6.46
HC C-TCP    0.19 0.98 0.99  899 8   169 52  732 214  0.47 6.86 6.04
""",
    "access-link": """
UC NewReno  0.41 0.59 0.61  727 142  34 27  29 23    0.06 0.03 0.02
UC CUBIC    0.69 0.86 0.84  772 85   48 26  50 18    0.26 0.12 0.07
UC C-TCP    0.94 0.82 0.89  167 126  23 20  25 20    0.01 0.01 0.01
MC NewReno  0.54 0.61 0.65  832 50   54 26  94 36    0.75 0.85 0.71
MC CUBIC    0.24 0.76 0.80  899 1    52 22  91 30    0.89 1.31 1.15
MC C-TCP    0.78 0.59 0.62  830 46   42 17  68 18    0.32 0.48 0.40
HC NewReno  0.60 0.87 0.90  891 10   44 21  588 272  11.03 15.82 11.44
HC CUBIC    0.65 0.87 0.91  894 7    43 20  656 280  13.68 15.54 12.38
HC C-TCP    0.68 0.89 0.91  893 8    45 21  592 281  10.92 15.89 11.68
""",
}
_TABLES = {"data-center": ("Data Center", 3, 4, 5), "access-link": ("Access Link", 7, 8, 9)}


def paper_values(scenario: str) -> dict[tuple[str, str], dict[str, tuple[float, float, float, float]]]:
    out = {}
    for line in _ROWS[scenario].strip().splitlines():
        load, tcp, *nums = line.split()
        v = [float(x) for x in nums]
        jain, queue, drop = v[0:3], v[3:9], v[9:12]
        out[(load, tcp)] = {a: (jain[i], queue[2 * i], queue[2 * i + 1], drop[i]) for i, a in enumerate(_AQMS)}
    return out


def ours(results: Path) -> tuple[str, dict[tuple[str, str, str], dict[str, float]], int]:
    """The scenario a results directory holds, the mean over seeds of each cell's figures, and
    the number of seeds."""
    import sluice.sweep

    sweep = json.loads((results / "sweep.json").read_text())
    name = str(sweep.get("name", ""))
    scenario = next((s for s in _ROWS if name.endswith(s)), None)
    if scenario is None:
        raise SystemExit(f"{results}: not a sweep of this folder (name {name!r})")
    runs = sluice.sweep.load(results).runs()
    runs = runs[runs["status"] == "done"]
    cols = ["jain_goodput", "queue_mean_pkts", "queue_std_pkts", "queue_drop_pct"]
    means = runs.groupby(["load", "cc", "aqm"])[cols].mean()
    seeds = int(runs.groupby(["load", "cc", "aqm"]).size().min()) if len(runs) else 0
    return scenario, {k: dict(row) for k, row in means.iterrows()}, seeds


def fmt(x: float, digits: int) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def tables(scenario: str, cells: dict, seeds: int) -> str:
    title, t_jain, t_queue, t_drop = _TABLES[scenario]
    paper = paper_values(scenario)
    head = "| load, TCP | " + " | ".join(f"{a} paper | {a} Sluice" for a in _AQMS) + " |"
    rule = "|---|" + "---|" * (2 * len(_AQMS))
    out = [f"### {title}", "", f"Sluice: mean over {seeds} seed{'s' if seeds != 1 else ''} per cell.", ""]
    for what, table, pick in (
        ("mean (std) queue length, packets", t_queue, lambda p, s: (f"{p[1]:.0f} ({p[2]:.0f})", f"{fmt(s.get('queue_mean_pkts'), 0)} ({fmt(s.get('queue_std_pkts'), 0)})")),
        ("drop ratio at router A, %", t_drop, lambda p, s: (f"{p[3]:.2f}", fmt(s.get("queue_drop_pct"), 2))),
        ("Jain's index over the flows' throughput", t_jain, lambda p, s: (f"{p[0]:.2f}", fmt(s.get("jain_goodput"), 2))),
    ):
        out += [f"Table {table}: {what}.", "", head, rule]
        for (load, tcp), by_aqm in paper.items():
            cellstr = []
            for a in _AQMS:
                p, s = pick(by_aqm[a], cells.get((load, tcp, a), {}))
                cellstr += [p, s]
            out.append(f"| {load} {tcp} | " + " | ".join(cellstr) + " |")
        out.append("")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", type=Path, help="results directories of this folder's sweeps")
    a = ap.parse_args()
    for r in a.results:
        scenario, cells, seeds = ours(r)
        print(tables(scenario, cells, seeds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
