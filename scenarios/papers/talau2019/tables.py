#!/usr/bin/env python3
"""Talau, Fonseca, Wille (2019)'s Scenario 1 and 2 results beside Sluice's, as Markdown.

L. Talau, M. Fonseca, E. Wille, "Early Window Tailoring" (Journal of Computer Networks and
Communications, 2019) compares drop-tail, RED, ARED, EWA, AWM and EWT in ns-3 at RFC 7928's
mild, medium and heavy congestion levels, 30 seeds each, with 95 % confidence intervals. Its
figures carry the numbers and none survives in the text; what survives is what the text says of
them. This prints, for a results directory of sweep-1.toml or sweep-2.toml:

- the calibrated flow counts, and a check that every TCP transfer of every run completed before
  the run ended (the simulator stops at the scenario's duration, not when the last transfer is
  done);
- per level, each method's mean ± 95 % Student-t half-width over the seeds of TCP efficiency,
  file transfer latency (FCT), goodput, Jain's index over goodputs and mean loss ratio, the
  number of runs that lost any packet of a TCP flow, and for Scenario 2 the UDP efficiency and
  loss while TCP transfers were under way;
- each of the paper's claims about these figures, with "yes" or "no" and the numbers that decide.

Usage:
  python3 scenarios/papers/talau2019/tables.py results/talau2019-scenario-1 results/talau2019-scenario-2
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

METHODS = ("drop-tail", "RED", "ARED", "EWA", "AWM", "EWT")
LEVELS = ("mild", "medium", "heavy")
FILE_BYTES = 625_000  # each transfer (scenario-1.toml, scenario-2.toml)

# (key, column title, digits)
TCP_COLUMNS = (
    ("efficiency_pct", "TCP efficiency %", 2),
    ("fct_s", "FCT s", 2),
    ("goodput_mbps", "goodput Mb/s", 3),
    ("jain_goodput", "Jain", 3),
    ("loss_pct", "loss %", 3),
)
UDP_COLUMNS = (
    ("udp_efficiency_active_pct", "UDP efficiency %", 2),
    ("udp_loss_active_pct", "UDP loss %", 3),
)


@dataclass(frozen=True)
class Ci:
    """A mean over seeds with its 95 % Student-t half-width (NaN with fewer than two seeds)."""

    mean: float
    half: float
    n: int

    def text(self, digits: int) -> str:
        if math.isnan(self.mean):
            return "–"
        if math.isnan(self.half):
            return f"{self.mean:.{digits}f}"
        return f"{self.mean:.{digits}f} ± {self.half:.{digits}f}"


@dataclass
class Ours:
    """What a results directory holds, reduced to what the tables and claims need."""

    scenario: int  # 1 or 2
    counts: dict[str, int | None]  # calibrated flow count per level
    seeds: int  # fewest seeds of any (method, level) cell
    cells: dict[tuple[str, str], dict[str, Ci]]  # (method, level) -> metric -> interval
    losing_runs: dict[tuple[str, str], tuple[int, int]]  # runs with any TCP loss, runs
    udp_losing_runs: dict[tuple[str, str], tuple[int, int]]
    runs: int = 0
    incomplete: list[str] = field(default_factory=list)  # "run: k of n transfers unfinished"
    latest_end_s: float = math.nan  # last completion over all runs
    duration_s: float = math.nan


def run_figures(summary: dict[str, Any]) -> dict[str, Any]:
    """One run's figures: sluice.stats.run_metrics, plus the completion check and the UDP loss
    over the time TCP transfers were under way.

    The UDP source sends at a constant rate from 0 s to the end of the run; the paper's runs end
    when the last transfer does. Once the transfers are over the UDP source (30 % of the
    bottleneck) is alone and loses nothing, so its losses all fall before the last completion
    `T`, while the datagrams it sent up to `T` are `sent · T / duration` (constant rate). The
    UDP loss of the paper's run is therefore `lost / (sent · T / duration)`.
    """
    import sluice.stats

    m: dict[str, Any] = dict(sluice.stats.run_metrics(summary))
    tcp = [f for f in summary["flows"] if f.get("cc") is not None]
    udp = [f for f in summary["flows"] if f.get("cc") is None]
    duration = float(summary["sim_time_s"])
    unfinished = [f for f in tcp if f.get("fct_s") is None or int(f["bytes_delivered"]) < FILE_BYTES]
    ends = [float(f["start_s"]) + float(f["fct_s"]) for f in tcp if f.get("fct_s") is not None]
    last = duration if unfinished or not ends else max(ends)
    m["unfinished"] = len(unfinished)
    m["transfers"] = len(tcp)
    m["last_end_s"] = max(ends) if ends else math.nan
    m["duration_s"] = duration
    m["tcp_lost_packets"] = sum(int(f.get("data_dir_packets_lost") or 0) for f in tcp)
    losses = []
    for f in udp:
        sent = float(f.get("data_dir_packets_sent") or 0) * min(last, duration) / duration
        lost = float(f.get("data_dir_packets_lost") or 0)
        losses.append(100.0 * lost / sent if sent > 0 else math.nan)
    m["udp_loss_active_pct"] = sum(losses) / len(losses) if losses else math.nan
    m["udp_efficiency_active_pct"] = 100.0 - m["udp_loss_active_pct"]
    m["udp_lost_packets"] = sum(int(f.get("data_dir_packets_lost") or 0) for f in udp)
    return m


def _ci(xs: Iterable[float]) -> Ci:
    import sluice.stats

    i = sluice.stats.t_interval(list(xs))
    return Ci(i.mean, i.half_width, i.n)


def ours(results: Path) -> Ours:
    """Read a results directory of sweep-1.toml or sweep-2.toml."""
    import sluice.sweep

    info = json.loads((results / "sweep.json").read_text())
    name = str(info.get("name", ""))
    if name not in ("talau2019-scenario-1", "talau2019-scenario-2"):
        raise SystemExit(f"{results}: not a sweep of this folder (name {name!r})")
    scenario = int(name[-1])
    cal = json.loads((results / "calibration.json").read_text()) if (results / "calibration.json").exists() else []
    counts: dict[str, int | None] = {lv: None for lv in LEVELS}
    for entry in cal:
        counts.update(entry.get("counts", {}))
    res = sluice.sweep.load(results)
    per: dict[tuple[str, str], list[dict[str, Any]]] = {}
    o = Ours(scenario, counts, 0, {}, {}, {})
    for out in res.outcomes:
        labels = out.cell.labels
        if out.status == "failed" or "level" not in labels:
            continue
        fig = run_figures(res.results.summary(out.run))
        per.setdefault((labels["method"], labels["level"]), []).append(fig)
        o.runs += 1
        if fig["unfinished"]:
            o.incomplete.append(f"{out.run} ({labels['method']}, {labels['level']}, seed {out.cell.seed}): "
                                f"{fig['unfinished']} of {fig['transfers']} transfers unfinished")
        o.latest_end_s = fig["last_end_s"] if math.isnan(o.latest_end_s) else max(o.latest_end_s, fig["last_end_s"])
        o.duration_s = fig["duration_s"]
    keys = [k for k, _, _ in TCP_COLUMNS + UDP_COLUMNS] + ["udp_goodput_mbps", "aggregate_goodput_mbps"]
    for cell, figs in per.items():
        o.cells[cell] = {k: _ci(f[k] for f in figs) for k in keys}
        o.losing_runs[cell] = (sum(1 for f in figs if f["tcp_lost_packets"] > 0), len(figs))
        o.udp_losing_runs[cell] = (sum(1 for f in figs if f["udp_lost_packets"] > 0), len(figs))
    o.seeds = min((len(f) for f in per.values()), default=0)
    return o


# ---------------------------------------------------------------------------------------------
# The paper's claims (§5.4.1 for Scenario 1, §5.5.1 and §5.5.2 for Scenario 2, figures only) and
# the project's acceptance test. Each check returns (verdict, evidence); verdict None when the
# results lack a method or level it needs.

# An outcome is True (holds), False (the opposite holds beyond the 95 % intervals), or TIED (the
# order the paper states is not decided by these runs: the intervals overlap).
TIED = "tied"
Outcome = bool | str
Verdict = tuple[Outcome | None, str]


def _combine(oks: Iterable[Outcome]) -> Outcome:
    xs = list(oks)
    if any(x is False for x in xs):
        return False
    if any(x == TIED for x in xs):
        return TIED
    return True


class _Missing(Exception):
    pass


class _View:
    def __init__(self, o: Ours):
        self.o = o

    def ci(self, m: str, lv: str, k: str) -> Ci:
        c = self.o.cells.get((m, lv))
        if c is None:
            raise _Missing(f"{m} at {lv}")
        return c[k]

    def mean(self, m: str, lv: str, k: str) -> float:
        return self.ci(m, lv, k).mean

    def overlap(self, a: str, b: str, lv: str, k: str) -> bool:
        x, y = self.ci(a, lv, k), self.ci(b, lv, k)
        hx = 0.0 if math.isnan(x.half) else x.half
        hy = 0.0 if math.isnan(y.half) else y.half
        return abs(x.mean - y.mean) <= hx + hy

    def losing(self, m: str, lv: str) -> int:
        if (m, lv) not in self.o.losing_runs:
            raise _Missing(f"{m} at {lv}")
        return self.o.losing_runs[(m, lv)][0]

    def nums(self, ms: Iterable[str], lv: str, k: str, digits: int) -> str:
        return ", ".join(f"{m} {self.mean(m, lv, k):.{digits}f}" for m in ms)


def _check(f: Callable[[_View], Verdict], v: _View) -> Verdict:
    try:
        return f(v)
    except _Missing as e:
        return None, f"not run ({e})"


def _all_levels(v: _View, one: Callable[[str], tuple[Outcome, str]]) -> Verdict:
    return _pair(v, LEVELS, one)


def _pair(v: _View, levels: Iterable[str], one: Callable[[str], tuple[Outcome, str]]) -> Verdict:
    oks, texts = [], []
    for lv in levels:
        ok, t = one(lv)
        oks.append(ok)
        texts.append(f"{lv}: {t}")
    return _combine(oks), "; ".join(texts)


def _order(v: _View, m: str, x: str, lv: str, k: str, higher: bool) -> Outcome:
    """Whether m's mean is below x's (above, with `higher`): TIED when the intervals overlap."""
    if v.overlap(m, x, lv, k):
        return TIED
    return (v.mean(m, lv, k) > v.mean(x, lv, k)) == higher


def _lowest(v: _View, m: str, lv: str, k: str, others: Iterable[str], digits: int, highest: bool = False) -> tuple[Outcome, str]:
    rest = list(others)
    each = {x: _order(v, m, x, lv, k, highest) for x in rest}
    text = v.nums([m, *rest], lv, k, digits)
    ties = [x for x, o in each.items() if o == TIED]
    if ties:
        text += f" (tied within the intervals with {', '.join(ties)})"
    return _combine(each.values()), text


def _similar(v: _View, ms: list[str], lv: str, k: str, digits: int) -> tuple[bool, str]:
    ok = all(v.overlap(a, b, lv, k) for i, a in enumerate(ms) for b in ms[i + 1:])
    return ok, ", ".join(f"{m} {v.ci(m, lv, k).text(digits)}" for m in ms)


def _no_loss(v: _View, m: str) -> Verdict:
    return _all_levels(v, lambda lv: (v.losing(m, lv) == 0, f"{v.losing(m, lv)}/{v.o.losing_runs[(m, lv)][1]} runs lost, "
                                      f"mean {v.mean(m, lv, 'loss_pct'):.3f} %"))


def _efficiency_falls(v: _View, ms: Iterable[str]) -> Verdict:
    oks, texts = [], []
    for m in ms:
        e = [v.mean(m, lv, "efficiency_pct") for lv in LEVELS]
        # mild above heavy beyond the intervals (TIED when they overlap)
        oks.append(TIED if _overlap_levels(v, m, "mild", "heavy", "efficiency_pct") else e[0] > e[2])
        texts.append(f"{m} " + " → ".join(f"{x:.2f}" for x in e))
    return _combine(oks), "; ".join(texts)


def _overlap_levels(v: _View, m: str, a: str, b: str, k: str) -> bool:
    x, y = v.ci(m, a, k), v.ci(m, b, k)
    return abs(x.mean - y.mean) <= (0.0 if math.isnan(x.half) else x.half) + (0.0 if math.isnan(y.half) else y.half)


OTHERS = ("drop-tail", "RED", "ARED", "EWA", "AWM")
CLASSIC = ("drop-tail", "RED", "ARED")


def _loss_order(v: _View) -> Verdict:
    def one(lv: str) -> tuple[Outcome, str]:
        each = [_order(v, m, "drop-tail", lv, "loss_pct", True) for m in ("RED", "ARED")]
        each += [_order(v, "drop-tail", m, lv, "loss_pct", True) for m in ("EWA", "AWM", "EWT")]
        return _combine(each), ", ".join(f"{m} {v.ci(m, lv, 'loss_pct').text(3)}" for m in METHODS)
    return _all_levels(v, one)


def claims_1() -> list[tuple[str, Callable[[_View], Verdict]]]:
    return [
        ("TCP efficiency of drop-tail, RED and ARED falls as the load grows", lambda v: _efficiency_falls(v, CLASSIC)),
        ("EWA's efficiency drops from the mild level on (EWA loses at mild)",
         lambda v: (v.losing("EWA", "mild") > 0, f"{v.losing('EWA', 'mild')}/{v.o.losing_runs[('EWA', 'mild')][1]} runs lost, "
                    f"efficiency {v.ci('EWA', 'mild', 'efficiency_pct').text(3)} %")),
        ("EWT stays efficient (no retransmitted byte lost) at every level", lambda v: _no_loss(v, "EWT")),
        ("Latency, mild: EWT below drop-tail, RED, ARED and EWA",
         lambda v: _lowest(v, "EWT", "mild", "fct_s", ("drop-tail", "RED", "ARED", "EWA"), 2)),
        ("Latency, medium and heavy: EWT the shortest",
         lambda v: _pair(v, ("medium", "heavy"), lambda lv: _lowest(v, "EWT", lv, "fct_s", OTHERS, 2))),
        ("Latency: AWM similar to EWT (intervals overlap)",
         lambda v: _all_levels(v, lambda lv: _similar(v, ["EWT", "AWM"], lv, "fct_s", 2))),
        ("Goodput, mild: EWT above drop-tail, RED, ARED and EWA",
         lambda v: _lowest(v, "EWT", "mild", "goodput_mbps", ("drop-tail", "RED", "ARED", "EWA"), 3, highest=True)),
        ("Goodput, medium and heavy: EWT the highest",
         lambda v: _pair(v, ("medium", "heavy"), lambda lv: _lowest(v, "EWT", lv, "goodput_mbps", OTHERS, 3, highest=True))),
        ("Goodput: AWM follows EWT (second highest at medium and heavy)",
         lambda v: _pair(v, ("medium", "heavy"), lambda lv: _lowest(v, "AWM", lv, "goodput_mbps", ("drop-tail", "RED", "ARED", "EWA"), 3, highest=True))),
        ("Fairness: drop-tail the least fair",
         lambda v: _all_levels(v, lambda lv: _lowest(v, "drop-tail", lv, "jain_goodput", ("RED", "ARED", "EWA", "AWM", "EWT"), 3))),
        ("Fairness: RED, ARED, AWM and EWT similar within the interval",
         lambda v: _all_levels(v, lambda lv: _similar(v, ["RED", "ARED", "AWM", "EWT"], lv, "jain_goodput", 3))),
        ("Loss: RED and ARED the highest, then drop-tail", _loss_order),
        ("Loss: EWA loses at medium and heavy",
         lambda v: _pair(v, ("medium", "heavy"), lambda lv: (v.losing("EWA", lv) > 0, f"{v.losing('EWA', lv)} runs lost, mean {v.mean('EWA', lv, 'loss_pct'):.3f} %"))),
        ("Loss: AWM loses only at heavy",
         lambda v: _all_levels(v, lambda lv: ((v.losing("AWM", lv) > 0) == (lv == "heavy"), f"{v.losing('AWM', lv)} runs lost, mean {v.mean('AWM', lv, 'loss_pct'):.3f} %"))),
        ("Loss: EWT zero at every level", lambda v: _no_loss(v, "EWT")),
    ]


def _ewt_vs_drop_tail(v: _View, lv: str) -> tuple[bool, str]:
    dt = v.mean("drop-tail", lv, "loss_pct")
    ok = dt >= 0.1 and v.losing("EWT", lv) == 0 and v.mean("EWT", lv, "goodput_mbps") >= v.mean("drop-tail", lv, "goodput_mbps")
    return ok, (f"drop-tail loses {dt:.3f} %, EWT {v.losing('EWT', lv)} runs with loss; goodput EWT "
                f"{v.ci('EWT', lv, 'goodput_mbps').text(3)} vs drop-tail {v.ci('drop-tail', lv, 'goodput_mbps').text(3)}")


def acceptance() -> list[tuple[str, Callable[[_View], Verdict]]]:
    """The project's acceptance test for Scenario 1."""
    return [
        ("At each level EWT loses no segment where drop-tail loses ≥ 0.1 %, with goodput ≥ drop-tail's",
         lambda v: _all_levels(v, lambda lv: _ewt_vs_drop_tail(v, lv))),
        ("AWM close to EWT (goodput and FCT intervals overlap at every level)",
         lambda v: _all_levels(v, lambda lv: (v.overlap("AWM", "EWT", lv, "goodput_mbps") and v.overlap("AWM", "EWT", lv, "fct_s"),
                                             f"goodput AWM {v.ci('AWM', lv, 'goodput_mbps').text(3)} / EWT {v.ci('EWT', lv, 'goodput_mbps').text(3)}, "
                                             f"FCT {v.ci('AWM', lv, 'fct_s').text(2)} / {v.ci('EWT', lv, 'fct_s').text(2)}"))),
        ("AWM with some loss at heavy",
         lambda v: (v.losing("AWM", "heavy") > 0, f"{v.losing('AWM', 'heavy')} runs lost, mean {v.mean('AWM', 'heavy', 'loss_pct'):.3f} %")),
        ("EWA losing at medium and heavy",
         lambda v: _pair(v, ("medium", "heavy"), lambda lv: (v.losing("EWA", lv) > 0, f"{v.losing('EWA', lv)} runs lost, mean {v.mean('EWA', lv, 'loss_pct'):.3f} %"))),
    ]


def claims_2() -> list[tuple[str, Callable[[_View], Verdict]]]:
    def udp_falls(v: _View) -> Verdict:
        oks, texts = [], []
        for m in CLASSIC:
            e = [v.mean(m, lv, "udp_efficiency_active_pct") for lv in LEVELS]
            ok: Outcome = e[1] < 100.0 and e[2] < e[1]
            if ok and _overlap_levels(v, m, "medium", "heavy", "udp_efficiency_active_pct"):
                ok = TIED
            oks.append(ok)
            texts.append(f"{m} " + " → ".join(f"{x:.3f}" for x in e))
        return _combine(oks), "; ".join(texts)

    def udp_kept(v: _View) -> Verdict:
        def one(lv: str) -> tuple[bool, str]:
            worst_nr = min(v.mean(m, lv, "udp_efficiency_active_pct") for m in ("EWA", "AWM", "EWT"))
            best_cl = max(v.mean(m, lv, "udp_efficiency_active_pct") for m in CLASSIC)
            return worst_nr >= best_cl, v.nums(METHODS, lv, "udp_efficiency_active_pct", 3)
        return _pair(v, ("medium", "heavy"), one)

    def up_to(v: _View) -> Verdict:
        best = (0.0, "", "")
        for lv in LEVELS:
            e = v.mean("EWT", lv, "fct_s")
            for m in OTHERS:
                r = (v.mean(m, lv, "fct_s") - e) / v.mean(m, lv, "fct_s")
                if r > best[0]:
                    best = (r, m, lv)
        return best[0] >= 0.35, f"largest reduction {100 * best[0]:.1f} % (against {best[1]} at {best[2]})"

    def ewa_fairness(v: _View) -> Verdict:
        j = {lv: v.ci("EWA", lv, "jain_goodput") for lv in LEVELS}
        # fair through medium: within EWT's interval; less fair at heavy: below its medium figure
        ok: Outcome = v.overlap("EWA", "EWT", "medium", "jain_goodput") and j["heavy"].mean < j["medium"].mean
        if ok and _overlap_levels(v, "EWA", "medium", "heavy", "jain_goodput"):
            ok = TIED
        return ok, ", ".join(f"{lv} {j[lv].text(3)}" for lv in LEVELS) + f" (EWT at medium {v.ci('EWT', 'medium', 'jain_goodput').text(3)})"

    def mild_gap(v: _View) -> Verdict:
        a, e = v.mean("AWM", "mild", "jain_goodput"), v.mean("EWT", "mild", "jain_goodput")
        gap = 100.0 * (a - e) / a
        return abs(gap - 1.40) < 0.5, f"EWT {gap:.2f} % below AWM (AWM {a:.4f}, EWT {e:.4f})"

    def loss_grows(v: _View) -> Verdict:
        oks, texts = [], []
        for m in CLASSIC:
            x = [v.mean(m, lv, "loss_pct") for lv in LEVELS]
            ok: Outcome = x[0] < x[1] < x[2]
            if ok and (_overlap_levels(v, m, "mild", "medium", "loss_pct") or _overlap_levels(v, m, "medium", "heavy", "loss_pct")):
                ok = TIED
            oks.append(ok)
            texts.append(f"{m} " + " → ".join(f"{y:.3f}" for y in x))
        return _combine(oks), "; ".join(texts)

    def ewt_none(v: _View) -> Verdict:
        def one(lv: str) -> tuple[bool, str]:
            t, u = v.losing("EWT", lv), v.o.udp_losing_runs[("EWT", lv)][0]
            return t == 0 and u == 0, f"TCP {t}, UDP {u} runs with loss"
        return _all_levels(v, one)

    return [
        ("TCP efficiency: drop-tail, RED and ARED similar at mild",
         lambda v: _similar(v, list(CLASSIC), "mild", "efficiency_pct", 3)),
        ("TCP efficiency: EWA and AWM lose a little at heavy",
         lambda v: (v.losing("EWA", "heavy") > 0 and v.losing("AWM", "heavy") > 0,
                    f"EWA {v.ci('EWA', 'heavy', 'efficiency_pct').text(3)}, AWM {v.ci('AWM', 'heavy', 'efficiency_pct').text(3)}")),
        ("TCP efficiency: EWT efficient at every level", lambda v: _no_loss(v, "EWT")),
        ("UDP efficiency: similar at mild", lambda v: _similar(v, list(METHODS), "mild", "udp_efficiency_active_pct", 3)),
        ("UDP efficiency: drop-tail, RED and ARED lose at medium and more at heavy", udp_falls),
        ("UDP efficiency: network-return methods keep UDP efficient (at medium and heavy, at least as the best of drop-tail, RED, ARED)", udp_kept),
        ("Latency: EWT the lowest at every level", lambda v: _all_levels(v, lambda lv: _lowest(v, "EWT", lv, "fct_s", OTHERS, 3))),
        ("Latency: EWT up to 35 % lower", up_to),
        ("Latency: EWA the worst", lambda v: _all_levels(v, lambda lv: _lowest(v, "EWA", lv, "fct_s", ("drop-tail", "RED", "ARED", "AWM", "EWT"), 3, highest=True))),
        ("Latency: AWM similar to EWT", lambda v: _all_levels(v, lambda lv: _similar(v, ["EWT", "AWM"], lv, "fct_s", 3))),
        ("Goodput: EWT the highest at mild", lambda v: _lowest(v, "EWT", "mild", "goodput_mbps", OTHERS, 3, highest=True)),
        ("Goodput: AWM similar to EWT at medium and heavy",
         lambda v: _pair(v, ("medium", "heavy"), lambda lv: _similar(v, ["EWT", "AWM"], lv, "goodput_mbps", 3))),
        ("Goodput: EWA the lowest", lambda v: _all_levels(v, lambda lv: _lowest(v, "EWA", lv, "goodput_mbps", ("drop-tail", "RED", "ARED", "AWM", "EWT"), 3))),
        ("Fairness: drop-tail the least fair at every level",
         lambda v: _all_levels(v, lambda lv: _lowest(v, "drop-tail", lv, "jain_goodput", ("RED", "ARED", "EWA", "AWM", "EWT"), 3))),
        ("Fairness: EWA fair through medium, less fair at heavy", ewa_fairness),
        ("Fairness: RED, ARED, AWM and EWT the same within the interval at medium and heavy",
         lambda v: _pair(v, ("medium", "heavy"), lambda lv: _similar(v, ["RED", "ARED", "AWM", "EWT"], lv, "jain_goodput", 3))),
        ("Fairness: at mild EWT 1.40 % below AWM (within half a point)", mild_gap),
        ("Loss: grows with the load (drop-tail, RED, ARED)", loss_grows),
        ("Loss: RED the highest",
         lambda v: _all_levels(v, lambda lv: _lowest(v, "RED", lv, "loss_pct", ("drop-tail", "ARED", "EWA", "AWM", "EWT"), 3, highest=True))),
        ("Loss: EWA and AWM lose at medium and heavy",
         lambda v: _pair(v, ("medium", "heavy"), lambda lv: (v.losing("EWA", lv) > 0 and v.losing("AWM", lv) > 0,
                                                            f"EWA {v.losing('EWA', lv)}, AWM {v.losing('AWM', lv)} runs with loss"))),
        ("Loss: EWT none at any level (TCP and UDP)", ewt_none),
    ]


def claims(o: Ours) -> list[tuple[str, Verdict]]:
    """Every claim of the paper on this scenario (and, for Scenario 1, the acceptance test),
    with its verdict on these results."""
    v = _View(o)
    listed = claims_1() + [(f"Acceptance: {t}", f) for t, f in acceptance()] if o.scenario == 1 else claims_2()
    return [(t, _check(f, v)) for t, f in listed]


# ---------------------------------------------------------------------------------------------


def tables(o: Ours) -> str:
    cols = TCP_COLUMNS + (UDP_COLUMNS if o.scenario == 2 else ())
    out = [f"### Scenario {o.scenario}", ""]
    out.append("Flow counts (drop-tail's smallest count whose mean loss ratio over the seeds reaches the level): "
               + ", ".join(f"{lv} {o.counts.get(lv) if o.counts.get(lv) is not None else 'not reached'}" for lv in LEVELS) + ".")
    out.append("")
    if o.incomplete:
        out.append(f"**Unfinished transfers** in {len(o.incomplete)} of {o.runs} runs (the run ended first; their FCT is left out):")
        out += [f"- {x}" for x in o.incomplete] + [""]
    else:
        out.append(f"Every transfer of the {o.runs} runs completed; the last at {o.latest_end_s:.1f} s of a {o.duration_s:.0f}-s run.")
        out.append("")
    out.append(f"Mean ± 95 % Student-t half-width over {o.seeds} seed{'s' if o.seeds != 1 else ''} per cell; "
               "\"runs losing\": runs in which any TCP packet was lost." +
               (" UDP figures over the time TCP transfers were under way." if o.scenario == 2 else ""))
    out.append("")
    for lv in LEVELS:
        if not any((m, lv) in o.cells for m in METHODS):
            continue
        out += [f"{lv.capitalize()} ({o.counts.get(lv)} flows).", ""]
        out.append("| method | " + " | ".join(t for _, t, _ in cols) + " | runs losing |")
        out.append("|---|" + "---|" * (len(cols) + 1))
        for m in METHODS:
            c = o.cells.get((m, lv))
            if c is None:
                continue
            lr = o.losing_runs[(m, lv)]
            out.append(f"| {m} | " + " | ".join(c[k].text(d) for k, _, d in cols) + f" | {lr[0]}/{lr[1]} |")
        out.append("")
    out += ["Claims (the paper's figures, as its text describes them) against these runs:", "",
            "| claim | holds here | evidence |", "|---|---|---|"]
    for text, (ok, why) in claims(o):
        mark = "–" if ok is None else ("within the intervals" if ok == TIED else ("yes" if ok else "**no**"))
        out.append(f"| {text} | {mark} | {why} |")
    out.append("")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", type=Path, help="results directories of this folder's sweeps")
    a = ap.parse_args()
    for r in a.results:
        print(tables(ours(r)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
