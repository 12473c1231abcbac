"""Calibrate a scenario's load to RFC 7928 congestion levels.

The EWT study (Talau, Fonseca, Wille, 2019) ran drop-tail with ``i = 1, 2, …`` flows and took,
for each level, the number of flows whose mean loss ratio falls into it: mild ≈ 0.1 %,
medium ≈ 0.5 %, heavy ≈ 1 %. Sluice makes that operational as *the smallest count whose
seed-averaged mean loss ratio reaches the level* and finds it without trying every count:

1. **bracket**: evaluate ``start``, ``2·start``, ``4·start``, … until the loss reaches the level
   (or ``max`` is passed: the level is not reached);
2. **integer bisection** between the last count below and the first at or above, until they are
   adjacent.

Every evaluation averages the same seeds (common random numbers), so neighbouring counts are
compared on the same randomness. For a loss that grows with the count this takes at most about
``2·log2(n) + 2`` evaluations. Evaluations are shared between the levels, and in a sweep they are
cells of the results directory, so a rerun costs nothing. Run with another method (``set =
{"topology.queue.kind" = "red"}``), the same search gives the flows that method serves at each
level (EWT §5.6).

Examples
--------
>>> from sluice.calibrate import search
>>> r = search(lambda n: 0.01 * n, 0.5)     # loss 0.01 % per flow: 50 flows reach 0.5 %
>>> r.count, len(r.steps)
(50, 12)
"""

from __future__ import annotations

import itertools
import math
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .sweep import ResultsDir, ScenarioRef, Sweep

__all__ = ["Step", "SearchResult", "CalibrationResult", "search", "search_levels", "calibrate", "calibrate_sweep"]


@dataclass(frozen=True)
class Step:
    """One evaluation the search used: the count, the seed-averaged metric, and whether it
    reached the level."""

    n: int
    value: float
    reached: bool
    phase: str  # "bracket" or "bisect"


@dataclass
class SearchResult:
    """The smallest count reaching ``threshold`` (None if not reached up to ``max``), and the
    steps taken."""

    threshold: float
    count: int | None
    steps: list[Step] = field(default_factory=list)


def search(
    evaluate: Callable[[int], float],
    threshold: float,
    start: int = 1,
    maximum: int = 1024,
    log: Callable[[str], object] | None = None,
    name: str = "",
) -> SearchResult:
    """The smallest integer ``n`` in ``[start, maximum]`` with ``evaluate(n) ≥ threshold``,
    assuming ``evaluate`` grows with ``n``: bracket by doubling, then bisect.

    ``log`` gets one line per step. NaN counts as below the level.
    """
    if start < 1 or maximum < start:
        raise ValueError(f"need 1 ≤ start ≤ maximum, got start={start}, maximum={maximum}")
    result = SearchResult(threshold, None)
    label = f"{name} " if name else ""

    def at(n: int, phase: str) -> bool:
        v = float(evaluate(n))
        ok = not math.isnan(v) and v >= threshold
        result.steps.append(Step(n, v, ok, phase))
        if log is not None:
            log(f"{label}(≥ {threshold:g}) {phase} n={n}: {v:.4g} {'≥' if ok else '<'} {threshold:g}")
        return ok

    if at(start, "bracket"):
        result.count = start
        return result
    lo, hi = start, None
    while hi is None:
        if lo >= maximum:
            if log is not None:
                log(f"{label}(≥ {threshold:g}) not reached up to n={maximum}")
            return result
        n = min(2 * lo, maximum)
        if at(n, "bracket"):
            hi = n
        else:
            lo = n
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if at(mid, "bisect"):
            hi = mid
        else:
            lo = mid
    result.count = hi
    if log is not None:
        log(f"{label}(≥ {threshold:g}) → n={hi}")
    return result


def search_levels(
    evaluate: Callable[[int], float],
    levels: Mapping[str, float],
    start: int = 1,
    maximum: int = 1024,
    log: Callable[[str], object] | None = None,
) -> dict[str, SearchResult]:
    """:func:`search` for each level, sharing evaluations (each count is evaluated once)."""
    memo: dict[int, float] = {}

    def cached(n: int) -> float:
        if n not in memo:
            memo[n] = float(evaluate(n))
        return memo[n]

    return {name: search(cached, t, start, maximum, log, name) for name, t in levels.items()}


@dataclass
class CalibrationResult:
    """A calibration of one scenario (and one value of each calibrated axis).

    Attributes
    ----------
    scenario : str
        The scenario's label.
    labels : dict[str, str]
        The labels of the axes it was done for.
    counts : dict[str, int | None]
        Level -> smallest count reaching it (None: not reached up to ``max``).
    levels : dict[str, float]
        Level -> threshold.
    steps : dict[str, list[Step]]
        Level -> the search's steps.
    path, metric : str
        The override searched over and the metric compared with the thresholds.
    set : dict
        The overrides of the calibration runs (the method).
    seeds : list[int]
        The common seeds.
    """

    scenario: str
    labels: dict[str, str]
    counts: dict[str, int | None]
    levels: dict[str, float]
    steps: dict[str, list[Step]]
    path: str
    metric: str
    set: dict[str, Any]
    seeds: list[int]

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario, "labels": self.labels, "counts": self.counts,
            "levels": self.levels, "path": self.path, "metric": self.metric, "set": self.set,
            "seeds": self.seeds,
            "steps": {k: [vars(s) for s in v] for k, v in self.steps.items()},
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CalibrationResult:
        return cls(
            d["scenario"], dict(d["labels"]), dict(d["counts"]), dict(d["levels"]),
            {k: [Step(**s) for s in v] for k, v in d["steps"].items()},
            d["path"], d["metric"], dict(d["set"]), list(d["seeds"]),
        )


def _evaluate_fn(
    scenario: ScenarioRef, base: Mapping[str, Any], path: str, metric: str, seeds: Sequence[int],
    rd: ResultsDir, labels: Mapping[str, str], workers: int | None, scheduler: Any,
    keys: dict[tuple[str, str], str],
) -> Callable[[int], float]:
    """``n -> mean over seeds of metric`` with runs stored as cells of ``rd``."""
    from .stats import run_metrics
    from .sweep import Cell, SweepError, check_cells, run_cells

    def evaluate(n: int) -> float:
        cells = [Cell(scenario, {**base, path: n}, {**labels, "calibrate": str(n)}, s) for s in seeds]
        check_cells(cells[:1])
        outs = run_cells(cells, rd, workers=workers, scheduler=scheduler, keys=keys)
        values = []
        for o in outs:
            if o.status == "failed":
                raise SweepError(f"{scenario.path or scenario.label}: calibration run {path}={n} seed {o.cell.seed} "
                                 f"failed: {o.error}", path)
            values.append(run_metrics(rd.summary(o.run))[metric])
        finite = [v for v in values if not math.isnan(v)]
        return math.fsum(finite) / len(finite) if finite else math.nan

    return evaluate


def calibrate_sweep(
    sw: Sweep, rd: ResultsDir, *, workers: int | None = None, scheduler: Any = None,
    log: Callable[[str], object] | None = None, keys: dict[tuple[str, str], str] | None = None,
) -> tuple[list[CalibrationResult], dict[tuple[str, tuple[str, ...]], dict[str, int | None]]]:
    """Run a sweep's ``[calibrate]`` for each scenario and each value of its calibrated axes;
    write ``calibration.json``. Returns the results and the counts keyed as
    :meth:`sluice.sweep.Sweep.cells` expects."""
    cal = sw.calibrate
    assert cal is not None
    keys = {} if keys is None else keys
    per = sw.calibration_axes()
    results: list[CalibrationResult] = []
    table: dict[tuple[str, tuple[str, ...]], dict[str, int | None]] = {}
    for sc in sw.scenarios:
        for combo in itertools.product(*[range(len(a.values)) for a in per]):
            base = dict(sw.set)
            labels: dict[str, str] = {}
            for axis, i in zip(per, combo):
                base.update(axis.values[i])
                labels[axis.name] = axis.labels[i]
            base.update(cal.set)
            where = ", ".join([sc.label, *[f"{k}={v}" for k, v in labels.items()]])
            if log is not None:
                log(f"calibrating {where}: {cal.path} for " + ", ".join(f"{k} {v:g}" for k, v in cal.levels.items())
                    + f" ({cal.metric}, mean over seeds {list(cal.seeds)})")
            ev = _evaluate_fn(sc, base, cal.path, cal.metric, cal.seeds, rd, labels, workers, scheduler, keys)
            step_log = None
            if log is not None:
                def step_log(line: str, w: str = where, out: Callable[[str], object] = log) -> None:
                    out(f"  {w}: {line}")
            found = search_levels(ev, cal.levels, cal.start, cal.max, step_log)
            counts = {k: r.count for k, r in found.items()}
            results.append(CalibrationResult(sc.label, labels, counts, dict(cal.levels),
                                             {k: r.steps for k, r in found.items()}, cal.path, cal.metric,
                                             dict(cal.set), list(cal.seeds)))
            table[(sc.label, tuple(labels.values()))] = counts
            rd.write_json("calibration.json", [r.to_json() for r in results])
    return results, table


def calibrate(
    scenario: str | os.PathLike[str],
    *,
    levels: Mapping[str, float] | None = None,
    seeds: Sequence[int] = (1, 2, 3),
    overrides: Mapping[str, Any] | None = None,
    path: str = "flows[0].count",
    metric: str = "loss_pct",
    start: int = 1,
    maximum: int = 1024,
    results: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    log: Callable[[str], object] | None = None,
) -> CalibrationResult:
    """Find the flow counts giving each congestion level for one scenario.

    Parameters
    ----------
    scenario
        Scenario file or TOML text.
    levels
        Level -> mean loss ratio in % (default: mild 0.1, medium 0.5, heavy 1).
    seeds
        Common seeds each evaluation averages over.
    overrides
        Applied to every run: the method to calibrate with (the scenario's own queue by default;
        ``{"topology.queue.kind": "red"}`` gives the flows RED serves).
    path, metric, start, maximum
        The override searched over, the :func:`sluice.stats.run_metrics` key compared with the
        levels, the first count tried and the largest.
    results
        A results directory to keep the runs in (a rerun then reuses them); a temporary one if
        None.
    workers, scheduler
        As for :func:`sluice.sweep.run`.
    log
        Called with one line per step.
    """
    from . import api
    from .sweep import DEFAULT_LEVELS, ResultsDir, ScenarioRef

    text, source = api.read_scenario(scenario)
    sc = ScenarioRef(os.path.splitext(os.path.basename(source))[0] if source else "scenario", source, text)
    lv = dict(levels or DEFAULT_LEVELS)
    with tempfile.TemporaryDirectory(prefix="sluice-calibrate-") as tmp:
        rd = ResultsDir(results if results is not None else os.path.join(tmp, "results"))
        ev = _evaluate_fn(sc, dict(overrides or {}), path, metric, list(seeds), rd, {}, workers, scheduler, {})
        found = search_levels(ev, lv, start, maximum, log)
    return CalibrationResult(sc.label, {}, {k: r.count for k, r in found.items()}, lv,
                             {k: r.steps for k, r in found.items()}, path, metric, dict(overrides or {}), list(seeds))
