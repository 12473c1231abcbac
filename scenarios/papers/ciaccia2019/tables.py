#!/usr/bin/env python3
"""Ciaccia et al. (2019)'s RWM results beside Sluice's, as Markdown.

F. Ciaccia, O. Arcas-Abella, D. Montero, I. Romero, R. Milito, R. Serral-Gracià, M. Nemirovsky,
"Improving TCP Performance and Reducing Self-Induced Congestion with Receive Window Modulation"
(2019), reports from a real testbed (50 runs per cell): the flow completion times of one and four
1 GB downloads at 20-140 ms of RTT with and without RWM (Fig. 3, Fig. 5, with the headline
figures in the text), the fairness of four transfers at 60 ms (Fig. 4), and the RTT statistics at
20 ms (Table I). This prints ours beside them.

Usage:
  python3 scenarios/papers/ciaccia2019/tables.py results/ciaccia2019-fct results/ciaccia2019-table1

Each argument is a results directory of sweep-fct.toml or sweep-table1.toml (which one is read
from its sweep.json).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

# Table I (ms): (control, flows) -> (std, mean, 25th, 50th, 75th, max).
TABLE_I = {
    ("none", 1): (12.8, 53.2, 42.8, 56.0, 64.4, 71.2),
    ("none", 4): (15.9, 52.8, 41.9, 58.5, 65.1, 71.0),
    ("RWM", 1): (0.2, 21.0, 21.0, 21.0, 21.0, 21.3),
    ("RWM", 4): (0.2, 20.4, 20.3, 20.4, 20.6, 25.5),
}
# The text of §IV-B: the largest median-FCT improvement over the RTTs (one and four transfers),
# the uncontrolled median FCT over the controlled one at 140 ms with four transfers, and the set's
# finishing time at 60 ms with four transfers (Fig. 4), without and with RWM.
PAPER_IMPROVEMENT = {1: 0.46, 4: 0.70}
PAPER_RATIO_140_4 = 1.5
PAPER_FINISH_60 = {"none": 70.0, "RWM": 40.0}
CONTROLS = ("none", "exact", "-10%", "+10%")


def _kind(results: Path) -> str:
    name = str(json.loads((results / "sweep.json").read_text()).get("name", ""))
    for k in ("fct", "table1"):
        if name.endswith(k):
            return k
    raise SystemExit(f"{results}: not a sweep of this folder (name {name!r})")


def _done(results: Path):
    import sluice.sweep

    res = sluice.sweep.load(results)
    runs = res.runs()
    return res, runs[runs["status"] == "done"]


def rtt_stats(x: np.ndarray) -> tuple[float, ...]:
    """(std, mean, 25th, 50th, 75th, max) of RTT samples in ms; percentiles interpolate linearly."""
    q1, q2, q3 = np.percentile(x, [25, 50, 75])
    return (float(x.std()), float(x.mean()), float(q1), float(q2), float(q3), float(x.max()))


def table1_cells(results: Path) -> tuple[dict[tuple[str, int], tuple[float, ...]], int]:
    """Table I's statistics per (control, flows) over the senders' RTT samples pooled over seeds,
    and the number of seeds."""
    import pyarrow.parquet as pq

    res, runs = _done(results)
    out, seeds = {}, 0
    for (control, flows), sub in runs.groupby(["control", "flows"]):
        xs = [pq.read_table(res.results.root / "runs" / r / "rtt.parquet", columns=["rtt_s"]).column(0).to_numpy() for r in sub["run"]]
        out[(str(control), int(flows))] = rtt_stats(np.concatenate(xs) * 1e3)
        seeds = len(sub) if not seeds else min(seeds, len(sub))
    return out, seeds


def fct_cells(results: Path) -> tuple[dict[tuple[int, int, str], dict[str, float]], int]:
    """Per (RTT ms, transfers, control): the transfers' FCTs pooled over seeds (each transfer one
    event, as Fig. 3) as quartiles, the median of each run's slowest transfer (Fig. 5), the mean
    and smallest value of Jain's index over the transfers' goodputs, the largest gap between a run's
    first and last finishing transfer, and the number of seeds."""
    res, runs = _done(results)
    out, seeds = {}, 0
    for (rtt, flows, control), sub in runs.groupby(["rtt", "flows", "control"]):
        fcts, slowest, jains, spread = [], [], [], []
        for r in sub["run"]:
            s = res.results.summary(r)
            f = [float(x["fct_s"]) if x.get("fct_s") is not None else math.inf for x in s["flows"]]
            fcts += f
            slowest.append(max(f))
            spread.append(max(f) - min(f))
            jains.append(float(s["jain_goodput"]))
        q1, med, q3 = np.percentile(fcts, [25, 50, 75])
        out[(int(rtt), int(flows), str(control))] = {
            "q1": float(q1), "median": float(med), "q3": float(q3),
            "slowest": float(np.median(slowest)), "jain": float(np.mean(jains)), "jain_min": float(min(jains)),
            "spread": float(max(spread)),
            "min": float(min(fcts)), "max": float(max(fcts)),
        }
        seeds = len(sub) if not seeds else min(seeds, len(sub))
    return out, seeds


def improvement(cells: dict, rtt: int, flows: int, control: str, what: str = "median") -> float:
    """`median_FCT_none / median_FCT_control - 1`."""
    none, ctrl = cells.get((rtt, flows, "none")), cells.get((rtt, flows, control))
    return none[what] / ctrl[what] - 1.0 if none and ctrl else math.nan


def fmt(x: float, digits: int = 1) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def table1_markdown(cells: dict, seeds: int) -> str:
    out = [f"Table I: RTT at 20 ms, ms (Sluice: the senders' RTT samples pooled over {seeds} seed{'s' if seeds != 1 else ''}).", "",
           "| control | flows | | std | mean | 25th | 50th | 75th | max |", "|---|---|---|---|---|---|---|---|---|"]
    for (control, flows), paper in TABLE_I.items():
        ours = cells.get((control, flows))
        out.append(f"| {control} | {flows} | paper | " + " | ".join(f"{v:.1f}" for v in paper) + " |")
        out.append(f"| {control} | {flows} | Sluice | " + (" | ".join(fmt(v) for v in ours) if ours else " | ".join("–" * 6)) + " |")
    return "\n".join(out) + "\n"


def fct_markdown(cells: dict, seeds: int) -> str:
    rtts = sorted({k[0] for k in cells})
    out = [f"Median FCT, s, with the first and third quartiles, every transfer of {seeds} seed{'s' if seeds != 1 else ''} pooled (Fig. 3); "
           "improvement `median_none / median_control − 1`.", ""]
    for flows in (1, 4):
        if not any(k[1] == flows for k in cells):
            continue
        out += [f"{flows} transfer{'s' if flows > 1 else ''}:", "",
                "| RTT, ms | " + " | ".join(CONTROLS) + " | improvement exact | −10 % | +10 % |",
                "|---|" + "---|" * (len(CONTROLS) + 3)]
        for rtt in rtts:
            row = []
            for c in CONTROLS:
                v = cells.get((rtt, flows, c))
                row.append(f"{v['median']:.2f} ({v['q1']:.2f}–{v['q3']:.2f})" if v else "–")
            imp = [fmt(100 * improvement(cells, rtt, flows, c), 1) + " %" for c in CONTROLS[1:]]
            out.append(f"| {rtt} | " + " | ".join(row) + " | " + " | ".join(imp) + " |")
        best = max((improvement(cells, r, flows, "exact"), r) for r in rtts if (r, flows, "exact") in cells)
        out += ["", f"Largest improvement (exact BDP): Sluice {100 * best[0]:.1f} % at {best[1]} ms; paper up to "
                f"{100 * PAPER_IMPROVEMENT[flows]:.0f} %.", ""]
    if 4 in {k[1] for k in cells}:
        out += ["Four transfers: the slowest of each run (Fig. 5), median over seeds, s; Jain's index over the four goodputs, "
                "mean (smallest) over seeds; the largest gap between the first and the last transfer of a run to finish, s.", "",
                "| RTT, ms | " + " | ".join(f"slowest {c}" for c in CONTROLS) + " | " + " | ".join(f"Jain {c}" for c in CONTROLS)
                + " | gap none | gap exact |",
                "|---|" + "---|" * (2 * len(CONTROLS) + 2)]
        for rtt in rtts:
            v = [cells.get((rtt, 4, c)) for c in CONTROLS]
            out.append(f"| {rtt} | " + " | ".join(fmt(x["slowest"], 2) if x else "–" for x in v) + " | "
                       + " | ".join(f"{x['jain']:.3f} ({x['jain_min']:.3f})" if x else "–" for x in v) + " | "
                       + " | ".join(fmt(x["spread"], 2) if x else "–" for x in v[:2]) + " |")
        r140 = improvement(cells, 140, 4, "exact") + 1
        s60 = [cells.get((60, 4, c)) for c in ("none", "exact")]
        out += ["", f"140 ms, four transfers, median FCT none / exact: Sluice {fmt(r140, 2)}, paper ≈ {PAPER_RATIO_140_4}.",
                f"60 ms, four transfers, the set finishes (slowest transfer): Sluice {fmt(s60[0]['slowest'] if s60[0] else math.nan)} s "
                f"without a controller, {fmt(s60[1]['slowest'] if s60[1] else math.nan)} s with RWM; paper ≈ {PAPER_FINISH_60['none']:.0f} s and ≈ {PAPER_FINISH_60['RWM']:.0f} s.", ""]
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", type=Path, help="results directories of this folder's sweeps")
    a = ap.parse_args()
    for r in a.results:
        if _kind(r) == "table1":
            print(table1_markdown(*table1_cells(r)))
        else:
            print(fct_markdown(*fct_cells(r)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
