"""Run a scenario from Python and get pandas DataFrames back.

This is a thin layer over the native module ``sluice._sluice``: Rust parses, validates, simulates
and computes every statistic; this module only reads files, converts the results to pandas and
writes them to disk.

Examples
--------
>>> import sluice
>>> result = sluice.run("scenarios/reference/single-newreno.toml", seed=2)  # doctest: +SKIP
>>> result.flows[["id", "goodput_bps", "retransmitted_bytes"]]              # doctest: +SKIP
>>> result.save("results/single")                                          # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import Any

import pandas as pd

from . import _sluice

__all__ = ["Result", "run", "validate", "read_scenario", "FLOW_COLUMNS", "QUEUE_COLUMNS"]

#: Per-flow columns the summary contract guarantees (docs/summary.md); more may follow.
FLOW_COLUMNS: tuple[str, ...] = (
    "id",
    "kind",
    "cc",
    "src",
    "dst",
    "start_s",
    "bytes_delivered",
    "goodput_bps",
    "bytes_received",
    "received_bps",
    "retransmitted_bytes",
    "lost_packets",
    "efficiency",
    "fct_s",
    "mean_rtt_s",
)

#: Per-queue columns the summary contract guarantees; more may follow.
QUEUE_COLUMNS: tuple[str, ...] = (
    "name",
    "enqueued",
    "dropped",
    "marked",
    "drop_ratio",
    "mean_len_pkts",
    "std_len_pkts",
    "mean_sojourn_s",
)

ScenarioLike = str | os.PathLike[str]


def _looks_like_path(scenario: str) -> bool:
    """A string is a path if it ends with ``.toml`` or names an existing file (and is one line)."""
    if "\n" in scenario:
        return False
    stripped = scenario.strip()
    return stripped.endswith(".toml") or os.path.isfile(stripped)


def read_scenario(scenario: ScenarioLike) -> tuple[str, str | None]:
    """Return ``(toml_text, source_path)`` for a path or for TOML text.

    ``source_path`` is ``None`` when ``scenario`` was the text itself.

    Raises
    ------
    OSError
        If ``scenario`` is a path that cannot be read (``FileNotFoundError`` when it is missing).
    """
    if isinstance(scenario, os.PathLike):
        path = os.fspath(scenario)
    elif isinstance(scenario, str) and _looks_like_path(scenario):
        path = scenario.strip()
    elif isinstance(scenario, str):
        return scenario, None
    else:
        raise TypeError(f"scenario must be TOML text or a path, not {type(scenario).__name__}")
    return Path(path).read_text(encoding="utf-8"), path


def _frame(rows: list[dict[str, Any]], contract: tuple[str, ...]) -> pd.DataFrame:
    """Rows from the summary as a DataFrame; contract columns first, present even when empty.

    A nested map (a queue's ``drops_by_reason``, ``marks_by_reason``, ``params``) becomes one
    column per key, ``drops_by_reason.overlimit``, ``params.limit`` (missing keys are NaN),
    so the frame stays flat for Parquet."""
    if not rows:
        return pd.DataFrame({name: pd.Series(dtype="object") for name in contract})
    nested = any(isinstance(v, dict) for r in rows for v in r.values())
    df = pd.json_normalize(rows, max_level=1) if nested else pd.DataFrame.from_records(rows)
    first = [c for c in contract if c in df.columns]
    rest = [c for c in df.columns if c not in first]
    return df[first + rest]


@dataclass
class Result:
    """The outcome of one run.

    Attributes
    ----------
    summary : dict
        The summary JSON contract (``scenario``, ``seed``, ``sim_time_s``, ``wall_time_s``,
        ``events``, ``flows``, ``queues``, ``jain_goodput``, ``aggregate_goodput_bps``,
        ``aggregate_received_bps``, ...). Goodput counts payload delivered to the application
        (ns-3's PacketSink definition); ``received`` counts payload that reached the receiver in
        the window, in order or not, which data buffered before the window cannot inflate.
    summary_json : str
        The same summary as the exact JSON text the simulator produced (written by :meth:`save`).
    flows : pandas.DataFrame
        One row per flow (``summary["flows"]``), contract columns first.
    queues : pandas.DataFrame
        One row per reported queue (``summary["queues"]``), contract columns first.
    tables : dict[str, pandas.DataFrame]
        Time series: ``queue_samples`` (``t_s, queue, len_pkts, len_bytes``) always, ``cwnd`` when
        ``monitor.cwnd_trace`` is set, ``rtt`` when ``monitor.rtt_trace`` is set.
    files : list[str]
        Files the simulator wrote into ``out_dir`` (pcap), relative to it.
    """

    summary: dict[str, Any]
    summary_json: str
    flows: pd.DataFrame
    queues: pd.DataFrame
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    @classmethod
    def from_native(cls, native: _sluice.RunResult) -> Result:
        """Convert the native module's result (no computation, only conversion)."""
        summary = json.loads(native.summary_json)
        tables = {name: pd.DataFrame(columns) for name, columns in native.tables.items()}
        return cls(
            summary=summary,
            summary_json=native.summary_json,
            flows=_frame(summary.get("flows", []), FLOW_COLUMNS),
            queues=_frame(summary.get("queues", []), QUEUE_COLUMNS),
            tables=tables,
            files=list(native.files),
        )

    def save(self, out_dir: str | os.PathLike[str]) -> list[Path]:
        """Write ``summary.json``, ``flows.parquet``, ``queues.parquet`` and one
        ``<table>.parquet`` per table into ``out_dir`` (created if missing).

        Returns the paths written, in that order.
        """
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = [out / "summary.json"]
        written[0].write_text(self.summary_json.rstrip("\n") + "\n", encoding="utf-8")
        frames = {"flows": self.flows, "queues": self.queues, **self.tables}
        for name, df in frames.items():
            path = out / f"{name}.parquet"
            df.to_parquet(path, engine="pyarrow", index=False)
            written.append(path)
        return written

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Result(scenario={s.get('scenario')!r}, seed={s.get('seed')}, "
            f"flows={len(self.flows)}, queues={len(self.queues)}, "
            f"aggregate_goodput_bps={s.get('aggregate_goodput_bps')}, "
            f"tables={sorted(self.tables)})"
        )


def run(
    scenario: ScenarioLike,
    seed: int | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[float, float], object] | None = None,
) -> Result:
    """Run one simulation.

    Parameters
    ----------
    scenario
        A path to a scenario file, or the TOML text itself. A ``str`` is taken as a path when it
        ends with ``.toml`` or names an existing file.
    seed
        Overrides the scenario's ``seed``. Same scenario and seed give the same summary (apart
        from ``wall_time_s``).
    out_dir
        Directory for files the simulator writes itself (pcap traces the scenario asks for).
        Parquet tables and ``summary.json`` are written by :meth:`Result.save`.
    progress
        Called as ``progress(simulated_s, end_s)`` about ten times a second while the run goes
        on, and once at the end (for a progress bar). An exception it raises stops the run and
        propagates. Ctrl-C stops a run with ``KeyboardInterrupt`` either way.

    Raises
    ------
    ScenarioError
        The scenario is invalid; ``.path`` names the field.
    SimulationPanic
        The simulator hit a bug; the message says how to reproduce it.
    OSError
        The scenario file cannot be read, or an output file cannot be written.

    Examples
    --------
    >>> r = sluice.run("scenarios/reference/single-newreno.toml", seed=1)   # doctest: +SKIP
    >>> r.summary["aggregate_goodput_bps"] > 0                             # doctest: +SKIP
    True
    """
    text, source = read_scenario(scenario)
    out = None if out_dir is None else os.fspath(out_dir)
    native = _sluice.run(text, _check_seed(seed), out, source=source, progress=progress)
    return Result.from_native(native)


def validate(scenario: ScenarioLike, seed: int | None = None) -> None:
    """Parse and validate a scenario without running it.

    Raises :class:`~sluice.errors.ScenarioError` (with ``.path``) if it is invalid.
    """
    text, source = read_scenario(scenario)
    _sluice.validate(text, _check_seed(seed), source=source)


def explain(scenario: ScenarioLike, seed: int | None = None) -> list[dict[str, Any]]:
    """Validate a scenario and list every queue's resolved discipline.

    One ``{"name": "A->B", "params": {"kind": "codel", "target": "5ms", ...}}`` per link
    direction, every parameter present (defaults filled in under the scenario's profile), as
    the run's summary reports them. Raises :class:`~sluice.errors.ScenarioError` if invalid.
    """
    text, source = read_scenario(scenario)
    queues: list[dict[str, Any]] = json.loads(_sluice.explain(text, _check_seed(seed), source=source))
    return queues


def _check_seed(seed: object) -> int | None:
    """A seed is None or an integer in [0, 2**64); anything else is refused by name."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an integer from 0 to 2**64 - 1 (or None), not {type(seed).__name__}")
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an integer from 0 to 2**64 - 1, got {seed}")
    return seed
