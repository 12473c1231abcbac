"""Sweeps: run scenarios × axes × seeds, locally in threads or on a Dask cluster, into a results
directory that a rerun resumes.

A sweep file (TOML; format in docs/harness.md) names the scenarios, the axes (each an override
path and its values), the seeds, and optionally a calibration of the flow count to RFC 7928
congestion levels (:mod:`sluice.calibrate`). Each cell — one scenario with one value of every
axis and one seed — runs once; its result lands in ``DIR/runs/<key>-<seed>/`` and a line in the
append-only ``DIR/manifest.jsonl``. Only this process (the client) writes into ``DIR``; runs on
Dask workers send their files back.

Examples
--------
>>> from sluice import sweep
>>> res = sweep.run("scenarios/studies/buffer.toml", "results/buffer", workers=2)  # doctest: +SKIP
>>> res.aggregate()[["flows", "buffer", "loss_pct", "loss_pct_ci"]]                # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import queue
import shlex
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import api
from .errors import ScenarioError, SluiceError

if TYPE_CHECKING:
    import pandas as pd

    from .calibrate import CalibrationResult

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "SweepError",
    "ResultsDirError",
    "Interrupted",
    "SchedulerError",
    "Axis",
    "Calibration",
    "ScenarioRef",
    "Sweep",
    "Cell",
    "Outcome",
    "SweepResult",
    "ResultsDir",
    "AXIS_ALIASES",
    "RESULTS_FORMAT",
    "cell_key",
    "load_sweep",
    "parse_sweep",
    "run",
    "run_cells",
    "load",
]

#: Layout version of a results directory (``DIR/sluice-results.json``).
RESULTS_FORMAT = 1

#: Short axis names and the override path each stands for, with the type its values must have.
AXIS_ALIASES: dict[str, tuple[str, type]] = {
    "flows": ("flows[0].count", int),
    "queue": ("topology.queue.kind", str),
    "buffer": ("topology.queue.limit", str),
    "cc": ("tcp.cc", str),
    "bottleneck_rate": ("topology.bottleneck.rate", str),
    "bottleneck_delay": ("topology.bottleneck.delay", str),
}

_TYPE_NAMES = {int: "an integer", str: "a string", float: "a number"}

#: The congestion levels of RFC 7928's stability scenarios as the EWT study made them
#: operational: mean loss ratio (%) with drop-tail.
DEFAULT_LEVELS: dict[str, float] = {"mild": 0.1, "medium": 0.5, "heavy": 1.0}


class SweepError(ScenarioError):
    """An invalid sweep file, or an override that breaks a scenario. One line,
    ``"<file>: <field>: <message>"``; ``.path`` names the field."""


class ResultsDirError(SluiceError, OSError):
    """A results directory that cannot be used (another sluice version wrote it, or it is not a
    results directory)."""


class SchedulerError(SluiceError, ConnectionError):
    """The Dask scheduler cannot be reached (the message names its address)."""


class Interrupted(SluiceError, KeyboardInterrupt):
    """The sweep was stopped (Ctrl-C). Cells finished so far are saved; rerun to continue.

    Attributes
    ----------
    done : int
        Cells done (this run and before).
    total : int
        Cells in the sweep.
    """

    def __init__(self, message: str, done: int = 0, total: int = 0) -> None:
        super().__init__(message)
        self.done = done
        self.total = total

    def __reduce__(self) -> tuple[type[Interrupted], tuple[str, int, int]]:
        return (type(self), (str(self.args[0]) if self.args else "", self.done, self.total))


# --------------------------------------------------------------------------------------------
# Keys


def cell_key(text: str, overrides: Mapping[str, Any]) -> str:
    """The key of a (scenario, overrides) pair, the seed excluded: a SHA-256 hex digest.

    The one place a cell's identity is made: the resolved model's ``model_hash``
    (:func:`sluice.resolve`), so a comment, a reordered key or a default spelt out in the file
    does not change it, and any parameter of the run does.
    """
    return api.resolve(text, overrides=dict(overrides)).model_hash


# --------------------------------------------------------------------------------------------
# The sweep file


@dataclass(frozen=True)
class Axis:
    """One axis: its name, and for each value the overrides it applies and a label.

    Attributes
    ----------
    name : str
        As written in the sweep file (``flows``, ``buffer``, ``"tcp.cc"``).
    values : tuple[dict[str, Any], ...]
        For each value, the overrides (path -> value) it applies.
    labels : tuple[str, ...]
        How each value is shown in tables and figures.
    """

    name: str
    values: tuple[dict[str, Any], ...]
    labels: tuple[str, ...]

    def paths(self) -> set[str]:
        """Every override path this axis sets."""
        return {p for v in self.values for p in v}


@dataclass(frozen=True)
class Calibration:
    """The ``[calibrate]`` table: find the flow counts giving each congestion level.

    Attributes
    ----------
    path : str
        The override the search moves (the flow count).
    levels : dict[str, float]
        Level name -> mean loss ratio (%) to reach.
    seeds : tuple[int, ...]
        Common seeds every evaluation averages over.
    set : dict[str, Any]
        Overrides for the calibration runs (the method calibrated with, drop-tail by default).
    start, max : int
        First count tried; the count beyond which the search gives up.
    per : tuple[str, ...]
        Axes to calibrate separately for each value of (default: every axis that does not set
        ``path``).
    metric : str
        The :func:`sluice.stats.run_metrics` key averaged over seeds (``loss_pct``).
    """

    path: str = "flows[0].count"
    levels: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_LEVELS))
    seeds: tuple[int, ...] = (1, 2, 3)
    set: dict[str, Any] = field(default_factory=lambda: {"topology.queue.kind": "drop_tail"})
    start: int = 1
    max: int = 1024
    per: tuple[str, ...] | None = None
    metric: str = "loss_pct"


@dataclass(frozen=True)
class ScenarioRef:
    """A scenario of the sweep: a label, the file it came from and its text."""

    label: str
    path: str | None
    text: str


@dataclass(frozen=True)
class Sweep:
    """A parsed sweep file. Build one with :func:`load_sweep` or :func:`parse_sweep`."""

    name: str
    scenarios: tuple[ScenarioRef, ...]
    axes: tuple[Axis, ...]
    seeds: tuple[int, ...]
    set: dict[str, Any] = field(default_factory=dict)
    calibrate: Calibration | None = None
    source: str | None = None
    text: str = ""
    quick: bool = False

    def cells(self, levels: Mapping[tuple[str, tuple[str, ...]], Mapping[str, int | None]] | None = None) -> list[Cell]:
        """Every cell, scenario-major, then axes in file order, seeds innermost.

        ``levels`` maps ``(scenario label, labels of the calibration's per-axes)`` to the
        calibrated count of each level; with it, the sweep also gets a ``level`` axis whose
        cells set the calibrated path to those counts (levels not reached are left out).
        """
        out: list[Cell] = []
        for sc in self.scenarios:
            for combo in itertools.product(*[range(len(a.values)) for a in self.axes]):
                overrides = dict(self.set)
                labels: dict[str, str] = {}
                for axis, i in zip(self.axes, combo):
                    overrides.update(axis.values[i])
                    labels[axis.name] = axis.labels[i]
                for seed in self.seeds:
                    out.append(Cell(sc, overrides, labels, seed))
            if self.calibrate is None or levels is None:
                continue
            cal = self.calibrate
            free = [a for a in self.axes if cal.path not in a.paths()]
            per = self.calibration_axes()
            for combo in itertools.product(*[range(len(a.values)) for a in free]):
                overrides = dict(self.set)
                labels = {}
                for axis, i in zip(free, combo):
                    overrides.update(axis.values[i])
                    labels[axis.name] = axis.labels[i]
                found = levels.get((sc.label, tuple(labels[a.name] for a in per)), {})
                for level in cal.levels:
                    count = found.get(level)
                    if count is None:
                        continue
                    o = {**overrides, cal.path: count}
                    lab = {**labels, "level": level}
                    for seed in self.seeds:
                        out.append(Cell(sc, o, lab, seed))
        return out

    def calibration_axes(self) -> tuple[Axis, ...]:
        """The axes the calibration is repeated over."""
        if self.calibrate is None:
            return ()
        free = [a for a in self.axes if self.calibrate.path not in a.paths()]
        if self.calibrate.per is None:
            return tuple(free)
        return tuple(a for a in free if a.name in self.calibrate.per)

    def axis_names(self) -> list[str]:
        """Axis names as table columns (``level`` last when calibrating)."""
        names = [a.name for a in self.axes]
        if self.calibrate is not None:
            names.append("level")
        return names

    def to_json(self) -> dict[str, Any]:
        """What the report needs to describe the sweep (written to ``DIR/sweep.json``)."""
        return {
            "name": self.name,
            "source": self.source,
            "text": self.text,
            "quick": self.quick,
            "seeds": list(self.seeds),
            "set": self.set,
            "axes": [{"name": a.name, "labels": list(a.labels), "values": list(a.values)} for a in self.axes],
            "axis_names": self.axis_names(),
            "scenarios": [{"label": s.label, "path": s.path, "text": s.text} for s in self.scenarios],
            "calibrate": None if self.calibrate is None else {
                "path": self.calibrate.path, "levels": self.calibrate.levels,
                "seeds": list(self.calibrate.seeds), "set": self.calibrate.set,
                "start": self.calibrate.start, "max": self.calibrate.max,
                "per": [a.name for a in self.calibration_axes()], "metric": self.calibrate.metric,
            },
        }


class _Fields:
    """Typed reads from a TOML table that fail naming the field."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, path: str, message: str, allowed: list[str] | None = None) -> SweepError:
        return SweepError(f"{self.where}: {path}: {message}", path, allowed)

    def check_keys(self, table: Mapping[str, Any], prefix: str, allowed: Sequence[str]) -> None:
        for k in table:
            if k not in allowed:
                p = f"{prefix}.{k}" if prefix else k
                raise self.fail(p, f"unknown field, expected one of {', '.join(allowed)}", list(allowed))

    def table(self, v: Any, path: str) -> dict[str, Any]:
        if not isinstance(v, dict):
            raise self.fail(path, f"expected a table, got {_toml_type(v)}")
        return v

    def int_(self, v: Any, path: str, minimum: int | None = None) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(path, f"expected an integer, got {_toml_type(v)}")
        if minimum is not None and v < minimum:
            raise self.fail(path, f"expected an integer ≥ {minimum}, got {v}")
        return v

    def str_(self, v: Any, path: str) -> str:
        if not isinstance(v, str):
            raise self.fail(path, f"expected a string, got {_toml_type(v)}")
        return v

    def number(self, v: Any, path: str) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.fail(path, f"expected a number, got {_toml_type(v)}")
        return float(v)

    def list_(self, v: Any, path: str, nonempty: bool = True) -> list[Any]:
        if not isinstance(v, list):
            raise self.fail(path, f"expected a list, got {_toml_type(v)}")
        if nonempty and not v:
            raise self.fail(path, "expected a non-empty list")
        return v

    def seeds(self, v: Any, path: str) -> tuple[int, ...]:
        if isinstance(v, list):
            seeds = tuple(self.int_(s, f"{path}[{i}]", 0) for i, s in enumerate(self.list_(v, path)))
            if len(set(seeds)) != len(seeds):
                raise self.fail(path, "seeds repeat")
            return seeds
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(path, f"expected a count of seeds (seeds 1..N) or a list of seeds, got {_toml_type(v)}")
        return tuple(range(1, self.int_(v, path, 1) + 1))


def _toml_type(v: Any) -> str:
    if isinstance(v, bool):
        return f"a boolean ({str(v).lower()})"
    if isinstance(v, int):
        return f"an integer ({v})"
    if isinstance(v, float):
        return f"a number ({v})"
    if isinstance(v, str):
        return f'a string ("{v}")'
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "a table"
    return type(v).__name__


def _is_path(name: str) -> bool:
    return "." in name or "[" in name


def _label(v: Any) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k}={_label(x)}" for k, x in v.items())
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


def _parse_axis(f: _Fields, name: str, spec: Any) -> Axis:
    where = f"axes.{name}" if not _is_path(name) else f'axes."{name}"'
    if isinstance(spec, list):
        if name in AXIS_ALIASES:
            path, typ = AXIS_ALIASES[name]
        elif _is_path(name):
            path, typ = name, object
        else:
            raise f.fail(
                where,
                f"not a known axis ({', '.join(AXIS_ALIASES)}) nor an override path: quote a path "
                f'("tcp.cc" = [...]) or give a table {{ path = "...", values = [...] }}',
                list(AXIS_ALIASES),
            )
        values = f.list_(spec, where)
        checked = [_check_value(f, v, f"{where}[{i}]", typ) for i, v in enumerate(values)]
        return Axis(name, tuple({path: v} for v in checked), tuple(_label(v) for v in checked))
    t = f.table(spec, where)
    f.check_keys(t, where, ("path", "values", "labels"))
    if "values" not in t:
        raise f.fail(f"{where}.values", "missing: the axis's values")
    values = f.list_(t["values"], f"{where}.values")
    if "path" in t:
        path = f.str_(t["path"], f"{where}.path")
        typ = next((ty for p, ty in AXIS_ALIASES.values() if p == path), object)
        checked = [_check_value(f, v, f"{where}.values[{i}]", typ) for i, v in enumerate(values)]
        overrides = tuple({path: v} for v in checked)
        default_labels = [_label(v) for v in checked]
    else:
        # each value is a table of overrides (several paths at once, e.g. a method and its knobs)
        overrides = tuple(
            dict(_overrides(f, v, f"{where}.values[{i}]")) for i, v in enumerate(values)
        )
        default_labels = [_label(v) for v in overrides]
    labels = default_labels
    if "labels" in t:
        labels = [f.str_(x, f"{where}.labels[{i}]") for i, x in enumerate(f.list_(t["labels"], f"{where}.labels"))]
        if len(labels) != len(values):
            raise f.fail(f"{where}.labels", f"expected {len(values)} labels (one per value), got {len(labels)}")
    if len(set(labels)) != len(labels):
        raise f.fail(f"{where}.labels" if "labels" in t else where, "two values have the same label")
    return Axis(name, overrides, tuple(labels))


def _check_value(f: _Fields, v: Any, path: str, typ: type) -> Any:
    if typ is int:
        return f.int_(v, path, 1)
    if typ is str:
        return f.str_(v, path)
    if isinstance(v, list) and not v:
        raise f.fail(path, "expected a value, got an empty list")
    return v


def _quick_axis(f: _Fields, axis: Axis, spec: Any) -> Axis:
    """``quick.axes.NAME``: a list of values of a one-path axis (keeping the labels of values
    the full axis has), or a whole axis definition."""
    paths = axis.paths()
    if isinstance(spec, list) and len(paths) == 1:
        path = next(iter(paths))
        known = {json.dumps(v[path]): lab for v, lab in zip(axis.values, axis.labels)}
        values = f.list_(spec, f"quick.axes.{axis.name}")
        labels = [known.get(json.dumps(v), _label(v)) for v in values]
        spec = {"path": path, "values": values, "labels": labels}
    q = _parse_axis(f, axis.name, spec)
    return q


def _overrides(f: _Fields, v: Any, path: str) -> dict[str, Any]:
    t = f.table(v, path)
    for k in t:
        if not k or k.startswith(".") or k.endswith("."):
            raise f.fail(f"{path}.{k}", "expected an override path like \"tcp.cc\" or \"flows[0].count\"")
    return dict(t)


_TOP = ("format", "name", "description", "scenarios", "seeds", "set", "axes", "calibrate", "quick")


def parse_sweep(
    text: str,
    source: str | os.PathLike[str] | None = None,
    quick: bool = False,
    scenario_texts: Mapping[str, str] | None = None,
) -> Sweep:
    """Parse a sweep file's text. Scenario paths are relative to the file's directory (to the
    working directory for text without a file).

    ``scenario_texts`` (path -> text) stands in for reading the scenario files (a results
    directory keeps the texts that ran).

    Raises
    ------
    SweepError
        One line naming the field, e.g. ``"study.toml: axes.flows[2]: expected an integer, got
        a string ("x")"``.
    """
    where = os.fspath(source) if source is not None else "<sweep>"
    f = _Fields(where)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{where}: {e}", "") from None
    f.check_keys(doc, "", _TOP)
    if "format" in doc and f.int_(doc["format"], "format") != 1:
        raise f.fail("format", f"this sluice reads sweep format 1, got {doc['format']}", ["1"])
    base = Path(where).parent if source is not None else Path(".")
    name = f.str_(doc.get("name", Path(where).stem), "name")

    if "scenarios" not in doc:
        raise f.fail("scenarios", "missing: a list of scenario files (paths relative to the sweep file)")
    raw = doc["scenarios"]
    entries: list[tuple[str, str]] = []
    if isinstance(raw, dict):
        entries = [(k, f.str_(v, f"scenarios.{k}")) for k, v in raw.items()]
        if not entries:
            raise f.fail("scenarios", "expected at least one scenario")
    else:
        for i, p in enumerate(f.list_(raw, "scenarios")):
            p = f.str_(p, f"scenarios[{i}]")
            entries.append((Path(p).stem, p))
    labels = [e[0] for e in entries]
    if len(set(labels)) != len(labels):
        raise f.fail("scenarios", "two scenarios have the same name; use a table { label = \"path\" }")
    scenarios = []
    for (label, p), i in zip(entries, range(len(entries))):
        field_name = f"scenarios.{label}" if isinstance(raw, dict) else f"scenarios[{i}]"
        path = base / p
        try:
            if scenario_texts is not None and str(path) in scenario_texts:
                scen_text = scenario_texts[str(path)]
            else:
                scen_text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise f.fail(field_name, f"cannot read {path}: {e.strerror or e}") from None
        scenarios.append(ScenarioRef(label, str(path), scen_text))

    seeds = f.seeds(doc.get("seeds", 1), "seeds")
    fixed = _overrides(f, doc.get("set", {}), "set")
    axes_t = f.table(doc.get("axes", {}), "axes")
    axes = [_parse_axis(f, n, s) for n, s in axes_t.items()]
    if any(a.name == "level" for a in axes):
        raise f.fail("axes.level", "reserved: the calibrated congestion levels use this name")

    cal: Calibration | None = None
    cal_t = f.table(doc["calibrate"], "calibrate") if "calibrate" in doc else None

    if quick:
        if "quick" not in doc:
            raise f.fail("quick", "missing: --quick needs a [quick] table in the sweep file")
        q = f.table(doc["quick"], "quick")
        f.check_keys(q, "quick", ("seeds", "set", "axes", "calibrate"))
        if "seeds" in q:
            seeds = f.seeds(q["seeds"], "quick.seeds")
        fixed.update(_overrides(f, q.get("set", {}), "quick.set"))
        for n, s in f.table(q.get("axes", {}), "quick.axes").items():
            at = next((k for k, a in enumerate(axes) if a.name == n), None)
            if at is None:
                raise f.fail(f"quick.axes.{n}", "no such axis in [axes]", [a.name for a in axes])
            axes[at] = _quick_axis(f, axes[at], s)
        if "calibrate" in q:
            if cal_t is None:
                raise f.fail("quick.calibrate", "there is no [calibrate] table to change")
            cal_t = {**cal_t, **f.table(q["calibrate"], "quick.calibrate")}
    elif "quick" in doc:
        f.table(doc["quick"], "quick")

    if cal_t is not None:
        f.check_keys(cal_t, "calibrate", ("path", "levels", "seeds", "set", "start", "max", "per", "metric"))
        cpath = f.str_(cal_t.get("path", "flows[0].count"), "calibrate.path")
        levels = dict(DEFAULT_LEVELS)
        if "levels" in cal_t:
            lt = f.table(cal_t["levels"], "calibrate.levels")
            levels = {k: f.number(v, f"calibrate.levels.{k}") for k, v in lt.items()}
            if not levels:
                raise f.fail("calibrate.levels", "expected at least one level")
        cseeds = f.seeds(cal_t["seeds"], "calibrate.seeds") if "seeds" in cal_t else seeds
        cset = _overrides(f, cal_t["set"], "calibrate.set") if "set" in cal_t else {"topology.queue.kind": "drop_tail"}
        start = f.int_(cal_t.get("start", 1), "calibrate.start", 1)
        maximum = f.int_(cal_t.get("max", 1024), "calibrate.max", start)
        per: tuple[str, ...] | None = None
        if "per" in cal_t:
            per = tuple(f.str_(x, f"calibrate.per[{i}]") for i, x in enumerate(f.list_(cal_t["per"], "calibrate.per", nonempty=False)))
            for i, n in enumerate(per):
                if n not in [a.name for a in axes]:
                    raise f.fail(f"calibrate.per[{i}]", f'no axis named "{n}"', [a.name for a in axes])
        from .stats import METRICS

        metric = f.str_(cal_t.get("metric", "loss_pct"), "calibrate.metric")
        if metric not in METRICS:
            raise f.fail("calibrate.metric", f'unknown metric "{metric}"', list(METRICS))
        cal = Calibration(cpath, levels, cseeds, cset, start, maximum, per, metric)

    return Sweep(name, tuple(scenarios), tuple(axes), seeds, fixed, cal, None if source is None else where, text, quick)


def load_sweep(path: str | os.PathLike[str], quick: bool = False) -> Sweep:
    """Read and parse a sweep file (see :func:`parse_sweep`)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SweepError(f"{p}: no such file", "") from None
    except OSError as e:
        raise SweepError(f"{p}: {e.strerror or e}", "") from None
    return parse_sweep(text, p, quick=quick)


# --------------------------------------------------------------------------------------------
# Cells


@dataclass(frozen=True)
class Cell:
    """One run of a sweep: a scenario, its overrides, the axis labels, a seed."""

    scenario: ScenarioRef
    overrides: dict[str, Any]
    labels: dict[str, str]
    seed: int

    def describe(self) -> str:
        """``"flows=9, buffer=1 BDP, seed 3"``."""
        parts = [f"{k}={v}" for k, v in self.labels.items()]
        return ", ".join(parts + [f"seed {self.seed}"])

    def reproduce(self) -> str:
        """A shell command that reruns this cell alone:
        ``sluice run FILE --seed N --set PATH=VALUE ...`` (values in TOML)."""
        cmd = ["sluice", "run", self.scenario.path or "SCENARIO.toml", "--seed", str(self.seed)]
        for path, value in self.overrides.items():
            cmd += ["--set", f"{path}={toml_value(value)}"]
        return " ".join(shlex.quote(c) for c in cmd)


def toml_value(v: Any) -> str:
    """A value as TOML text (``"10ms"``, ``90``, ``true``, ``[1, 2]``, ``{ kind = "red" }``)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        def key(k: str) -> str:
            return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)
        return "{ " + ", ".join(f"{key(str(k))} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"no TOML form for {type(v).__name__}")


def _cell_key_cached(cache: dict[tuple[str, str], str], cell: Cell) -> str:
    k = (cell.scenario.text, json.dumps(cell.overrides, default=str))  # order matters: applied in order
    if k not in cache:
        cache[k] = cell_key(cell.scenario.text, cell.overrides)
    return cache[k]


def run_id(key: str, seed: int) -> str:
    """The run directory's name: the key's first 16 hex digits and the seed."""
    return f"{key[:16]}-{seed}"


# --------------------------------------------------------------------------------------------
# Execution (runs on a worker thread or a Dask worker; returns files, writes nothing)


class _Cancelled(Exception):
    """Raised from the progress callback to stop a run when the sweep is interrupted."""


def execute(text: str, overrides: Mapping[str, Any], seed: int, cancel: threading.Event | None = None) -> dict[str, bytes]:
    """Run one cell and return its files (name -> bytes). Used by the thread pool and, pickled
    by name, by Dask workers."""
    progress = None
    if cancel is not None:
        def progress(_now: float, _end: float) -> None:
            if cancel.is_set():
                raise _Cancelled()
    return api.run_files(text, seed=seed, progress=progress, overrides=dict(overrides))


# --------------------------------------------------------------------------------------------
# The results directory


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def deferred_interrupt() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) back while the block writes, and raise it after: a results directory
    is never left with a temporary directory or a run without its manifest line by Ctrl-C (a
    ``kill -9`` is repaired on the next open instead). Only the main thread receives SIGINT;
    elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
        if caught:
            raise KeyboardInterrupt


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename:
    a reader (or a crash) sees the old file or the new one, never half of one."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


class ResultsDir:
    """A results directory::

        DIR/sluice-results.json      format and the sluice version that wrote it
        DIR/manifest.jsonl           one JSON line per finished cell ("done" or "failed")
        DIR/sweep.json               the last sweep run here (file text, scenarios, axes, seeds)
        DIR/calibration.json         calibrated counts and every search step, if any
        DIR/runs/<key>-<seed>/       summary.json and Parquet tables of one run

    A run's files are written into ``DIR/runs/.tmp-…`` and the directory renamed into place, so
    a run directory is complete or absent. The manifest line follows the rename; a run directory
    without its line (a crash between the two) gets it on the next open.
    """

    MARKER = "sluice-results.json"

    def __init__(self, root: str | os.PathLike[str], create: bool = True) -> None:
        self.root = Path(root)
        self.runs = self.root / "runs"
        self.manifest_path = self.root / "manifest.jsonl"
        self.version = api_version()
        marker = self.root / self.MARKER
        if marker.exists():
            try:
                info = json.loads(marker.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise ResultsDirError(f"{marker}: unreadable ({e}); not a sluice results directory") from None
            fmt, ver = info.get("format"), info.get("sluice_version")
            if fmt != RESULTS_FORMAT:
                raise ResultsDirError(
                    f"{self.root}: results directory format {fmt}, this sluice reads format {RESULTS_FORMAT}; "
                    "use a new --results directory")
            if ver != self.version:
                raise ResultsDirError(
                    f"{self.root}: written by sluice {ver}, this is sluice {self.version}; results of "
                    "different versions are not mixed (they may differ): use a new --results directory")
        elif not create:
            raise ResultsDirError(f"{self.root}: not a sluice results directory (no {self.MARKER})")
        else:
            if self.root.exists() and (not self.root.is_dir() or any(self.root.iterdir())):
                raise ResultsDirError(
                    f"{self.root}: exists and is not a sluice results directory (no {self.MARKER}); "
                    "give a new or empty directory")
            self.runs.mkdir(parents=True, exist_ok=True)
            write_atomic(marker, (json.dumps({"format": RESULTS_FORMAT, "sluice_version": self.version}) + "\n").encode())
        self._lock = threading.Lock()
        self.records: dict[str, dict[str, Any]] = {}
        if create or self.runs.exists():
            self._recover()

    def _read_manifest(self) -> list[dict[str, Any]]:
        try:
            raw = self.manifest_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        out = []
        for line in raw.splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line cut by a crash; its run directory is the truth
            if isinstance(rec, dict) and "run" in rec:
                out.append(rec)
        return out

    def _recover(self) -> None:
        """Load the manifest, drop temporary directories of an interrupted run, and add the
        manifest line of any run directory that lacks one."""
        for rec in self._read_manifest():
            # a later line for the same run (a retried failure) wins
            self.records[rec["run"]] = rec
        if not self.runs.exists():
            return
        for d in self.runs.iterdir():
            if d.name.startswith(".tmp-"):
                shutil.rmtree(d, ignore_errors=True)
            elif d.is_dir() and (self.records.get(d.name) or {}).get("status") != "done":
                meta_path = d / "cell.json"
                try:
                    meta = json.loads(meta_path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    meta = {"run": d.name}
                meta["status"] = "done"
                meta["recovered"] = True
                self._append(meta)

    def _append(self, rec: dict[str, Any]) -> None:
        line = (json.dumps(rec, sort_keys=True, default=str) + "\n").encode("utf-8")
        with self._lock:
            fd = os.open(self.manifest_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                # a line cut by a crash is closed first, so this one stays readable
                if os.fstat(fd).st_size > 0:
                    with open(self.manifest_path, "rb") as fh:
                        fh.seek(-1, os.SEEK_END)
                        if fh.read(1) != b"\n":
                            os.write(fd, b"\n")
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
            self.records[rec["run"]] = rec

    def status(self, run: str) -> str | None:
        """``"done"``, ``"failed"`` or None (not run)."""
        rec = self.records.get(run)
        return None if rec is None else str(rec.get("status"))

    def save_run(self, run: str, files: Mapping[str, bytes], meta: dict[str, Any]) -> None:
        """Write a run's files into ``runs/<run>/`` (temporary directory, then rename) and append
        its manifest line."""
        final = self.runs / run
        tmp = self.runs / f".tmp-{run}-{os.getpid()}-{threading.get_ident()}"
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
        rec = {**meta, "run": run, "status": "done"}
        for name, data in {**files, "cell.json": (json.dumps(rec, sort_keys=True, default=str) + "\n").encode()}.items():
            with open(tmp / name, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        _fsync_dir(tmp)
        if final.exists():  # a run that an earlier, lost manifest line left behind
            shutil.rmtree(tmp)
        else:
            os.replace(tmp, final)
            _fsync_dir(self.runs)
        self._append(rec)

    def save_failure(self, run: str, meta: dict[str, Any]) -> None:
        """Record a failed cell (its error and a reproduce command) in the manifest."""
        self._append({**meta, "run": run, "status": "failed"})

    def summary(self, run: str) -> dict[str, Any]:
        """A finished run's summary."""
        return dict(json.loads((self.runs / run / "summary.json").read_text(encoding="utf-8")))

    def write_json(self, name: str, obj: Any) -> None:
        """Write ``DIR/<name>`` atomically."""
        with deferred_interrupt():
            write_atomic(self.root / name, (json.dumps(obj, indent=2, default=str) + "\n").encode("utf-8"))

    def read_json(self, name: str) -> Any:
        """Read ``DIR/<name>``, None if absent."""
        try:
            return json.loads((self.root / name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None


def api_version() -> str:
    """The running sluice's version (the simulator's)."""
    from . import _sluice

    return str(_sluice.version())


# --------------------------------------------------------------------------------------------
# Running cells


@dataclass
class Outcome:
    """What happened to one cell in :func:`run_cells`."""

    cell: Cell
    run: str
    status: str  # "done", "failed", "cached"
    error: str | None = None


ProgressFn = Callable[[int, int, "Outcome | None"], object]


class _Backend:
    """Submits :func:`execute` calls; completion callbacks feed a queue."""

    def __init__(self, workers: int | None, scheduler: str | Any | None) -> None:
        self.cancel = threading.Event()
        self.client: Any = None
        self.pool: Any = None
        self._own_client = False
        if scheduler is not None:
            try:
                from distributed import Client
            except ImportError:
                raise SluiceError("--scheduler needs Dask: pip install 'sluice[dask]'") from None
            if isinstance(scheduler, str):
                try:
                    self.client = Client(scheduler)  # type: ignore[no-untyped-call]
                except (OSError, ValueError) as e:
                    raise SchedulerError(f"--scheduler {scheduler}: {e}") from None
                self._own_client = True
            else:
                self.client = scheduler
        else:
            from concurrent.futures import ThreadPoolExecutor

            self.pool = ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1, thread_name_prefix="sluice-sweep")

    def submit(self, cell: Cell) -> Any:
        if self.client is not None:
            return self.client.submit(execute, cell.scenario.text, cell.overrides, cell.seed, pure=False)
        return self.pool.submit(execute, cell.scenario.text, cell.overrides, cell.seed, cancel=self.cancel)

    def stop(self, futures: Iterable[Any]) -> None:
        self.cancel.set()
        for fut in futures:
            fut.cancel()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        if self.client is not None and self._own_client:
            self.client.close()


def _error_meta(e: BaseException) -> dict[str, Any]:
    meta: dict[str, Any] = {"error": str(e).splitlines()[0] if str(e) else type(e).__name__,
                            "error_type": type(e).__name__}
    if isinstance(e, ScenarioError) and e.path:
        meta["error_path"] = e.path
    return meta


def run_cells(
    cells: Sequence[Cell],
    results: ResultsDir,
    *,
    workers: int | None = None,
    scheduler: str | Any | None = None,
    progress: ProgressFn | None = None,
    retry_failed: bool = False,
    keys: dict[tuple[str, str], str] | None = None,
) -> list[Outcome]:
    """Run the cells not already done in ``results``; return one outcome per cell, in order.

    Cells with the same key and seed run once. Interrupted by Ctrl-C (``KeyboardInterrupt``),
    it stops the runs under way, keeps what finished and raises :class:`Interrupted`.
    """
    keys = {} if keys is None else keys
    ids = [run_id(_cell_key_cached(keys, c), c.seed) for c in cells]
    outcomes: list[Outcome | None] = [None] * len(cells)
    todo: dict[str, list[int]] = {}
    for i, (c, rid) in enumerate(zip(cells, ids)):
        st = results.status(rid)
        if st == "done" or (st == "failed" and not retry_failed):
            rec = results.records[rid]
            outcomes[i] = Outcome(c, rid, "cached" if st == "done" else "failed", rec.get("error"))
        else:
            todo.setdefault(rid, []).append(i)
    total = len(cells)
    done = sum(o is not None for o in outcomes)
    if progress is not None:
        progress(done, total, None)
    if not todo:
        return [o for o in outcomes if o is not None]

    backend = _Backend(workers, scheduler)
    finished: queue.Queue[tuple[str, Any]] = queue.Queue()
    futures: dict[str, Any] = {}
    started = time.monotonic()
    try:
        for rid, idx in todo.items():
            fut = backend.submit(cells[idx[0]])
            fut.add_done_callback(lambda _f, rid=rid: finished.put((rid, _f)))
            futures[rid] = fut
        remaining = set(futures)
        while remaining:
            try:
                rid, fut = finished.get(timeout=0.2)
            except queue.Empty:
                continue
            remaining.discard(rid)
            # A finished future holds its run's files: let them go once saved, so the client's
            # memory stays flat in the number of runs (bench/harness.py).
            futures.pop(rid, None)
            cell = cells[todo[rid][0]]
            meta = {
                "key": _cell_key_cached(keys, cell),
                "seed": cell.seed,
                "scenario": cell.scenario.label,
                "scenario_path": cell.scenario.path,
                "labels": cell.labels,
                "overrides": cell.overrides,
                "sluice_version": results.version,
                "reproduce": cell.reproduce(),
            }
            try:
                files = fut.result()
            except (KeyboardInterrupt, _Cancelled):
                raise
            except Exception as e:  # noqa: BLE001 - recorded with its type and message
                if type(e).__name__ == "CancelledError":
                    continue
                with deferred_interrupt():
                    results.save_failure(rid, {**meta, **_error_meta(e)})
                status, err = "failed", _error_meta(e)["error"]
            else:
                summary = json.loads(files["summary.json"])
                meta["wall_time_s"] = summary.get("wall_time_s")
                with deferred_interrupt():
                    results.save_run(rid, files, meta)
                status, err = "done", None
            for i in todo[rid]:
                outcomes[i] = Outcome(cells[i], rid, status, err)
                done += 1
                if progress is not None:
                    progress(done, total, outcomes[i])
    except (KeyboardInterrupt, _Cancelled):
        backend.stop(futures.values())
        backend.close()
        n = sum(o is not None and o.status != "failed" for o in outcomes)
        raise Interrupted(
            f"interrupted after {time.monotonic() - started:.0f} s: {n} of {total} cells done and saved in "
            f"{results.root}; rerun the same command to continue", n, total) from None
    backend.close()
    return [o for o in outcomes if o is not None]


# --------------------------------------------------------------------------------------------
# Sweeps


def check_cells(cells: Sequence[Cell]) -> None:
    """Validate every distinct (scenario, overrides) pair before anything runs.

    Raises
    ------
    SweepError
        ``"<scenario path>, cell <labels>: <field>: <message>"`` for the first that fails.
    """
    seen: set[tuple[str, str]] = set()
    for c in cells:
        k = (c.scenario.text, json.dumps(c.overrides, default=str))
        if k in seen:
            continue
        seen.add(k)
        try:
            api.validate(c.scenario.text, overrides=dict(c.overrides))
        except ScenarioError as e:
            labels = ", ".join(f"{k}={v}" for k, v in c.labels.items()) or "no axes"
            raise SweepError(f"{c.scenario.path or c.scenario.label}, cell {labels}: {e}", e.path, e.allowed) from None


@dataclass
class SweepResult:
    """The cells of a sweep and where their results are.

    Attributes
    ----------
    sweep : Sweep
        The sweep that ran.
    results : ResultsDir
        Its results directory.
    outcomes : list[Outcome]
        One per cell.
    calibration : list[CalibrationResult]
        The calibrations, if the sweep has ``[calibrate]``.
    """

    sweep: Sweep
    results: ResultsDir
    outcomes: list[Outcome]
    calibration: list[CalibrationResult] = field(default_factory=list)

    def runs(self) -> pd.DataFrame:
        """One row per cell: ``scenario``, the axis labels, ``seed``, ``run``, ``status``, and
        the :data:`sluice.stats.METRICS` of finished runs."""
        return runs_table(self.results, self.outcomes, self.sweep.axis_names())

    def aggregate(self, metrics: Sequence[str] | None = None) -> pd.DataFrame:
        """One row per scenario and axis values: each metric's mean over seeds, its Student-t
        95 % half-width (``<metric>_ci``) and the number of seeds (``n``)."""
        return aggregate(self.runs(), self.sweep.axis_names(), metrics)

    @property
    def failed(self) -> list[Outcome]:
        """The cells that failed."""
        return [o for o in self.outcomes if o.status == "failed"]


def runs_table(results: ResultsDir, outcomes: Sequence[Outcome], axis_names: Sequence[str]) -> pd.DataFrame:
    """The per-cell table of :meth:`SweepResult.runs`."""
    import pandas as pd

    from .stats import METRICS, run_metrics

    rows = []
    for o in outcomes:
        row: dict[str, Any] = {"scenario": o.cell.scenario.label}
        for n in axis_names:
            row[n] = o.cell.labels.get(n)
        row.update(seed=o.cell.seed, run=o.run, status="failed" if o.status == "failed" else "done")
        if o.status != "failed":
            s = results.summary(o.run)
            row.update(run_metrics(s))
            row["wall_time_s"] = s.get("wall_time_s")
        else:
            row.update({m: math.nan for m in METRICS})
            row["error"] = o.error
        rows.append(row)
    return pd.DataFrame(rows)


def aggregate(runs: pd.DataFrame, axis_names: Sequence[str], metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Mean, Student-t 95 % half-width and count over seeds, per scenario and axis values."""
    import pandas as pd

    from .stats import METRICS, t_interval

    metrics = list(metrics or METRICS)
    keys = ["scenario", *axis_names]
    ok = runs[runs["status"] == "done"] if "status" in runs else runs
    rows = []
    for group, sub in ok.groupby(keys, sort=False, dropna=False):
        g = group if isinstance(group, tuple) else (group,)
        row: dict[str, Any] = dict(zip(keys, g))
        row["n"] = len(sub)
        for m in metrics:
            ci = t_interval(sub[m].tolist())
            row[m] = ci.mean
            row[f"{m}_ci"] = ci.half_width
        rows.append(row)
    return pd.DataFrame(rows, columns=[*keys, "n", *[c for m in metrics for c in (m, f"{m}_ci")]])


def run(
    sweep: str | os.PathLike[str] | Sweep,
    results: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: str | Any | None = None,
    quick: bool = False,
    progress: ProgressFn | None = None,
    log: Callable[[str], object] | None = None,
    retry_failed: bool = False,
) -> SweepResult:
    """Run a sweep into a results directory, skipping the cells already there.

    Parameters
    ----------
    sweep
        A sweep file's path, or a parsed :class:`Sweep`.
    results
        The results directory (created if missing; refused if another sluice version wrote it).
    workers
        Threads for local runs (default: the number of CPUs).
    scheduler
        A Dask scheduler address (``"tcp://host:8786"``) or a ``distributed.Client``: run the
        cells on that cluster instead of threads.
    quick
        Apply the sweep file's ``[quick]`` table (fewer seeds, shorter runs).
    progress
        Called as ``progress(done, total, outcome)`` as cells finish (``outcome`` None for a
        first call after the cache is read).
    log
        Called with each line of calibration progress (steps of the search).
    retry_failed
        Run again the cells a previous run recorded as failed.

    Raises
    ------
    SweepError
        The sweep file is invalid, or an override breaks a scenario (the message names the
        scenario file and the cell).
    ResultsDirError
        The results directory cannot be used.
    Interrupted
        Ctrl-C: the finished cells are saved; rerun to continue.
    """
    sw = sweep if isinstance(sweep, Sweep) else load_sweep(sweep, quick=quick)
    plain = sw.cells()
    check_cells(plain)  # before the results directory is made: bad input leaves no trace
    rd = ResultsDir(results)
    keys: dict[tuple[str, str], str] = {}
    rd.write_json("sweep.json", {**sw.to_json(), "command": rerun_command(sw, results, workers), "cwd": os.getcwd()})
    calibrations: list[CalibrationResult] = []
    levels = None
    if sw.calibrate is not None:
        from .calibrate import calibrate_sweep

        calibrations, levels = calibrate_sweep(sw, rd, workers=workers, scheduler=scheduler, log=log, keys=keys)
    cells = sw.cells(levels)
    check_cells(cells[len(plain):])
    outcomes = run_cells(cells, rd, workers=workers, scheduler=scheduler, progress=progress,
                         retry_failed=retry_failed, keys=keys)
    return SweepResult(sw, rd, outcomes, calibrations)


def rerun_command(sw: Sweep, results: str | os.PathLike[str], workers: int | None = None) -> str:
    """The command that reruns (or resumes) the sweep."""
    cmd = ["sluice", "sweep", sw.source or "SWEEP.toml", "--results", os.fspath(results)]
    if sw.quick:
        cmd.append("--quick")
    return " ".join(shlex.quote(c) for c in cmd)


def load(results: str | os.PathLike[str]) -> SweepResult:
    """Reopen a results directory written by :func:`run` (for reports): the last sweep run
    there, with its cells' outcomes as the manifest records them."""
    rd = ResultsDir(results, create=False)
    info = rd.read_json("sweep.json")
    if info is None:
        raise ResultsDirError(f"{rd.root}: no sweep.json (no sweep has run here)")
    if not info.get("source"):
        raise ResultsDirError(f"{rd.root}: sweep.json names no sweep file")
    # the scenario texts as they ran, not as they are now
    texts = {s["path"]: s["text"] for s in info["scenarios"]}
    sw = parse_sweep(info["text"], info["source"], quick=bool(info.get("quick")), scenario_texts=texts)
    from .calibrate import CalibrationResult

    cal_info = rd.read_json("calibration.json") or []
    calibrations = [CalibrationResult.from_json(c) for c in cal_info]
    levels = None
    if sw.calibrate is not None:
        levels = {(c.scenario, tuple(c.labels.values())): c.counts for c in calibrations}
    keys: dict[tuple[str, str], str] = {}
    outcomes = []
    for c in sw.cells(levels):
        rid = run_id(_cell_key_cached(keys, c), c.seed)
        st = rd.status(rid)
        if st is None:
            continue
        outcomes.append(Outcome(c, rid, "cached" if st == "done" else "failed", rd.records[rid].get("error")))
    return SweepResult(sw, rd, outcomes, calibrations)
