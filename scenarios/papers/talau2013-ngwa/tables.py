#!/usr/bin/env python3
"""Talau & Wille (2013)'s NGWA results beside Sluice's, as Markdown.

L. Talau, E. Wille, "NGWA — New General Window Advertising" (IJCNC 5(5), 2013), §3: four
500-kbit/s TCP flows over a dumbbell for 10 minutes, standard TCP (RFC 793), NewReno and NGWA's
eight modes. Table 2 gives the average lost packets over 30 rounds, Fig. 6 the triple duplicate
ACKs (only a few values legible), Fig. 3 the window of one flow as connections come and go.
This prints ours beside them and says which of the paper's claims hold.

Usage:
  python3 scenarios/papers/talau2013-ngwa/tables.py results/talau2013-ngwa \
      results/talau2013-ngwa-sensitivity results/talau2013-ngwa-window

Each argument is a results directory of sweep.toml, sweep-sensitivity.toml or sweep-window.toml
(which one is read from its sweep.json).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

METHODS = ["RFC 793", "NewReno", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"]
# Table 2: average lost packets over 30 rounds.
PAPER_LOST = {"RFC 793": 4001, "NewReno": 328, "m1": 7, "m2": 0, "m3": 1063, "m4": 869, "m5": 0, "m6": 0, "m7": 0, "m8": 0}
# Fig. 6: triple duplicate ACKs; RFC 793's and NewReno's values are lost ("the highest").
PAPER_TDUP = {"RFC 793": None, "NewReno": None, "m1": 30, "m2": 0, "m3": 5279, "m4": 2833, "m5": 0, "m6": 0, "m7": 0, "m8": 0}
BATCHES = 30
# Student t, 29 degrees of freedom, two-sided 95 %.
T29 = 2.045


def _kind(results: Path) -> str:
    name = str(json.loads((results / "sweep.json").read_text()).get("name", ""))
    for k in ("sensitivity", "window"):
        if name.endswith(k):
            return k
    if name == "talau2013-ngwa":
        return "main"
    raise SystemExit(f"{results}: not a sweep of this folder (name {name!r})")


def _done(results: Path):
    import sluice.sweep

    res = sluice.sweep.load(results)
    runs = res.runs()
    return res, runs[runs["status"] == "done"]


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % Student-t interval (30 batches)."""
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, float("nan")
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    t = T29 if n == BATCHES else _t95(n - 1)
    return m, t * math.sqrt(var / n)


def _t95(dof: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.975, dof))


def jain(xs: list[float]) -> float:
    s, q = sum(xs), sum(x * x for x in xs)
    return 1.0 if q == 0 else s * s / (len(xs) * q)


def cells(results: Path) -> list[dict]:
    """One record per run: labels, losses and triple duplicate ACKs over the run (summed over the
    four data flows) and per batch, timeouts, per-flow goodput."""
    import pyarrow.parquet as pq

    res, runs = _done(results)
    out = []
    for _, r in runs.iterrows():
        d = res.results.root / "runs" / r["run"]
        s = json.loads((d / "summary.json").read_text())
        flows = [f for f in s["flows"] if f["kind"] == "tcp_rate"]
        rec = {k: r[k] for k in ("method", "rate") if k in r}
        rec["lost"] = sum(f["data_dir_packets_lost"] for f in flows)
        rec["lost_both"] = sum(f["lost_packets"] for f in flows)
        rec["tdup"] = sum(f["triple_dupacks"] for f in flows)
        rec["rto"] = sum(f["rto_count"] for f in flows)
        rec["goodput_kbps"] = [f["goodput_bps"] / 1e3 for f in flows]
        fs = d / "flow_samples.parquet"
        if fs.exists():
            t = pq.read_table(fs).to_pandas()
            per = t.groupby("t_s")[["data_dir_lost", "triple_dupacks"]].sum()
            rec["lost_batches"] = per["data_dir_lost"].tolist()
            rec["tdup_batches"] = per["triple_dupacks"].tolist()
        out.append(rec)
    return out


def main_markdown(recs: list[dict]) -> str:
    lines = []
    rates = sorted({r["rate"] for r in recs}, key=lambda x: (x != "1.1", x))
    for rate in rates:
        by = {r["method"]: r for r in recs if r["rate"] == rate}
        lines.append(f"\n**Bottleneck {rate} Mbit/s** (600 s, four flows; per batch: mean ± 95 % CI over {BATCHES} batches of 20 s)\n")
        lines.append("| method | lost, run | lost / batch | paper Table 2 | triple dupACKs, run | per batch | paper Fig. 6 | RTOs | goodput kbit/s (per flow) | Jain |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|")
        for m in METHODS:
            if m not in by:
                continue
            r = by[m]
            lb = "–"
            tb = "–"
            if r.get("lost_batches"):
                mu, h = mean_ci(r["lost_batches"])
                lb = f"{mu:.1f} ± {h:.1f}"
                mu, h = mean_ci(r["tdup_batches"])
                tb = f"{mu:.1f} ± {h:.1f}"
            pt = PAPER_TDUP[m]
            gp = ", ".join(f"{g:.0f}" for g in r["goodput_kbps"])
            lines.append(
                f"| {m} | {r['lost']} | {lb} | {PAPER_LOST[m]} | {r['tdup']} | {tb} | {'highest' if pt is None else pt} | {r['rto']} | {gp} | {jain(r['goodput_kbps']):.3f} |"
            )
        lines.append("")
        lines.extend(claims(by))
    return "\n".join(lines)


def claims(by: dict[str, dict]) -> list[str]:
    """The paper's acceptance claims, each judged on this rate's runs."""
    if not all(m in by for m in METHODS):
        return []
    lost = {m: by[m]["lost"] for m in METHODS}
    tdup = {m: by[m]["tdup"] for m in METHODS}
    zero = ["m2", "m5", "m6", "m7", "m8"]
    out = []

    def say(ok: bool, text: str) -> None:
        out.append(f"- {'holds' if ok else 'does not hold'}: {text}")

    say(all(lost[m] == 0 for m in zero) and lost["RFC 793"] > 0 and lost["NewReno"] > 0,
        "modes 2 and 5-8 lose nothing while RFC 793 and NewReno lose (" + ", ".join(f"{m} {lost[m]}" for m in zero + ["RFC 793", "NewReno"]) + ")")
    order = ["RFC 793", "m3", "m4", "NewReno", "m1"]
    ranked = sorted(order, key=lambda m: -lost[m])
    say(ranked == order and lost["m1"] > 0,
        "losses rank RFC 793 > m3 > m4 > NewReno > m1 > the rest (ours: " + " > ".join(f"{m} {lost[m]}" for m in ranked) + ")")
    say(lost["RFC 793"] == max(lost.values()), "RFC 793 loses most")
    say(min(tdup["RFC 793"], tdup["NewReno"]) > max(tdup[m] for m in ["m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"]),
        "RFC 793 and NewReno have the most triple duplicate ACKs")
    t_order = ["m3", "m4", "m1"]
    say(tdup["m3"] > tdup["m4"] > tdup["m1"] > 0 and all(tdup[m] == 0 for m in zero),
        "triple dupACKs: m3 > m4 > m1 > the rest (0) (ours: " + ", ".join(f"{m} {tdup[m]}" for m in t_order + zero) + ")")
    out.append("")
    return out


def sensitivity_markdown(recs: list[dict]) -> str:
    lines = ["\n**Sensitivity** (1.1 Mbit/s, 600 s)\n", "| variant | lost, run | triple dupACKs, run | RTOs | Jain |", "|---|---|---|---|---|"]
    for r in recs:
        lines.append(f"| {r['method']} | {r['lost']} | {r['tdup']} | {r['rto']} | {jain(r['goodput_kbps']):.3f} |")
    return "\n".join(lines) + "\n"


PHASES = [(5, 15, 1), (20, 30, 2), (35, 45, 3), (50, 120, 4), (125, 180, 2)]


def window_markdown(results: Path) -> str:
    """Per phase, the median of flow `long0`'s advertised window (the peer's window its sender
    holds) and of the window it works with, min(cwnd, advertised), beside the phase's active flow
    count and the flow-division window of an empty queue, 0.98·97,000/n; and when the working
    window was largest before the fourth flow came."""
    import pyarrow.parquet as pq

    res, runs = _done(results)
    head = "| method | window | " + " | ".join(f"{a}-{b} s (n={n})" for a, b, n in PHASES) + " | largest before 45 s |"
    lines = ["\n**Fig. 3: the window of the flow that lives throughout** (median per phase, bytes)\n", head, "|---" * (len(PHASES) + 3) + "|"]
    lines.append("| 0.98·97,000/n | | " + " | ".join(f"{0.98 * 97000 / n:,.0f}" for _, _, n in PHASES) + " | |")
    for _, r in runs.iterrows():
        t = pq.read_table(res.results.root / "runs" / r["run"] / "cwnd.parquet").to_pandas()
        t = t[t["flow"] == 0]
        work = t[["cwnd_bytes", "snd_wnd_bytes"]].min(axis=1)
        early = t["t_s"] < 45
        tpk = float(t.loc[work[early].idxmax(), "t_s"]) if early.any() else float("nan")
        for name, w in (("advertised", t["snd_wnd_bytes"]), ("min(cwnd, adv.)", work)):
            cells_ = []
            for a, b, _ in PHASES:
                sel = w[(t["t_s"] >= a) & (t["t_s"] < b)]
                cells_.append(f"{sel.median():,.0f}" if len(sel) else "–")
            last = f"{tpk:.1f} s" if name != "advertised" else ""
            lines.append(f"| {r['method']} | {name} | " + " | ".join(cells_) + f" | {last} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", type=Path)
    args = ap.parse_args()
    for r in args.results:
        k = _kind(r)
        if k == "main":
            print(main_markdown(cells(r)))
        elif k == "sensitivity":
            print(sensitivity_markdown(cells(r)))
        else:
            print(window_markdown(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
