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
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from . import _sluice

if TYPE_CHECKING:
    # pandas and pyarrow are imported where they are used, so `import sluice` stays fast.
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "Result",
    "Resolved",
    "run",
    "run_files",
    "validate",
    "resolve",
    "read_scenario",
    "FLOW_COLUMNS",
    "QUEUE_COLUMNS",
]

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

#: ``{"topology.queue.kind": "drop_tail", "flows[0].count": 90}``: dotted paths with ``[i]``
#: indices, to values (bool, int, float, str, and lists and dicts of them).
Overrides = Mapping[str, Any]


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


def _flat_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Summary rows made flat for Parquet: a flow's ``cc_options`` becomes its JSON text (Parquet
    has no empty struct type); any other nested map (a queue's ``drops_by_reason``,
    ``marks_by_reason``, ``params``) becomes one column per key, ``drops_by_reason.overlimit``,
    ``params.limit``."""
    out = []
    for r in rows:
        flat: dict[str, Any] = {}
        for k, v in r.items():
            if k == "cc_options":
                flat[k] = json.dumps(v, sort_keys=True)
            elif isinstance(v, dict):
                for sub, x in v.items():
                    flat[f"{k}.{sub}"] = x
            else:
                flat[k] = v
        out.append(flat)
    return out


def _row_table(rows: list[dict[str, Any]], contract: tuple[str, ...]) -> pa.Table:
    """Rows from the summary as an Arrow table: contract columns first (present even when
    empty or missing), then the others in the order they first appear; a key some rows lack
    is null there."""
    import pyarrow as pa

    flat = _flat_rows(rows)
    names = list(contract)
    seen = set(names)
    for r in flat:
        for k in r:
            if k not in seen:
                seen.add(k)
                names.append(k)
    return pa.table({n: pa.array([r.get(n) for r in flat]) for n in names})


def _parquet(table: pa.Table) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return bytes(sink.getvalue())


class RunTables(NamedTuple):
    """One run's tables as Arrow: what :meth:`Result.save` and a sweep write, and what
    :class:`Result`'s DataFrames are made from."""

    flows: pa.Table
    queues: pa.Table
    tables: dict[str, pa.Table]

    @classmethod
    def of(cls, summary: Mapping[str, Any], columns: Mapping[str, Mapping[str, list[Any]]]) -> RunTables:
        import pyarrow as pa

        return cls(
            _row_table(summary.get("flows", []), FLOW_COLUMNS),
            _row_table(summary.get("queues", []), QUEUE_COLUMNS),
            {name: pa.table(dict(cols)) for name, cols in columns.items()},
        )

    def files(self, summary_json: str) -> dict[str, bytes]:
        """``summary.json`` and one Parquet file per table, as bytes, in the order
        :meth:`Result.save` writes them."""
        out = {"summary.json": (summary_json.rstrip("\n") + "\n").encode("utf-8")}
        for name, table in {"flows": self.flows, "queues": self.queues, **self.tables}.items():
            out[f"{name}.parquet"] = _parquet(table)
        return out


def _frame(rows: list[dict[str, Any]], contract: tuple[str, ...]) -> pd.DataFrame:
    """Rows from the summary as a DataFrame (as :func:`_row_table` lays them out)."""
    return _row_table(rows, contract).to_pandas()


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
        ``monitor.cwnd_trace`` is set, ``rtt`` when ``monitor.rtt_trace`` is set, and
        ``flow_samples`` (``t_s, flow, bytes, throughput_bps``: payload delivered per flow in
        each interval) when ``monitor.flow_sample`` is set, ``rewrites`` (``t_s, gateway, flow,
        orig_bytes, new_bytes, reason, weight``; reason ``window``, ``ngwa_ack``, ``ngwa_stamp``,
        ``acns_freeze`` or ``acns_fallback``; weight ACNS's ``W``, NaN on other rows) when ``monitor.rewrite_trace`` is set.
    files : list[str]
        Files the simulator wrote into ``out_dir`` (pcap), relative to it.
    """

    summary: dict[str, Any]
    summary_json: str
    flows: pd.DataFrame
    queues: pd.DataFrame
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    # The Arrow tables the frames were made from (None for a result read back from files).
    _arrow: RunTables | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_native(cls, native: _sluice.RunResult) -> Result:
        """Convert the native module's result (no computation, only conversion)."""
        summary = json.loads(native.summary_json)
        arrow = RunTables.of(summary, native.tables)
        return cls(
            summary=summary,
            summary_json=native.summary_json,
            flows=arrow.flows.to_pandas(),
            queues=arrow.queues.to_pandas(),
            tables={name: t.to_pandas() for name, t in arrow.tables.items()},
            files=list(native.files),
            _arrow=arrow,
        )

    def save(self, out_dir: str | os.PathLike[str]) -> list[Path]:
        """Write ``summary.json``, ``flows.parquet``, ``queues.parquet`` and one
        ``<table>.parquet`` per table into ``out_dir`` (created if missing): the same bytes a
        sweep writes for the run.

        Returns the paths written, in that order.
        """
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        arrow = self._arrow
        if arrow is None:
            import pyarrow as pa

            def table(df: pd.DataFrame) -> pa.Table:
                return pa.Table.from_pandas(df, preserve_index=False)

            arrow = RunTables(table(self.flows), table(self.queues), {k: table(v) for k, v in self.tables.items()})
        written = []
        for name, data in arrow.files(self.summary_json).items():
            path = out / name
            path.write_bytes(data)
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
    overrides: Overrides | None = None,
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
    overrides
        Scenario fields to set before the scenario is read, e.g.
        ``{"topology.queue.limit": "20pkt", "flows[0].count": 90}`` (docs/scenarios.md,
        "Overrides"). They are checked exactly as the same values written in the file.

    Raises
    ------
    ScenarioError
        The scenario (or an override) is invalid; ``.path`` names the field. For a file the
        message starts with its path: ``x.toml: flows[0].count: must be at least 1``.
    TypeError
        An override's value is not a bool, int, float, str, list or dict.
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
    native = _sluice.run(
        text, _check_seed(seed), out, source=source, progress=progress, overrides=_overrides(overrides)
    )
    return Result.from_native(native)


def run_files(
    scenario: ScenarioLike,
    seed: int | None = None,
    progress: Callable[[float, float], object] | None = None,
    overrides: Overrides | None = None,
) -> dict[str, bytes]:
    """Run one simulation and return the files :meth:`Result.save` would write (name to
    bytes), straight from the simulator's columns without making a DataFrame: what a sweep's
    worker does. Parameters and errors as for :func:`run`."""
    text, source = read_scenario(scenario)
    native = _sluice.run(text, _check_seed(seed), None, source=source, progress=progress, overrides=_overrides(overrides))
    return RunTables.of(json.loads(native.summary_json), native.tables).files(native.summary_json)


def validate(scenario: ScenarioLike, seed: int | None = None, overrides: Overrides | None = None) -> None:
    """Parse and validate a scenario (with ``overrides`` set, as for :func:`run`) without
    running it.

    Raises :class:`~sluice.errors.ScenarioError` (with ``.path``) if it is invalid.
    """
    text, source = read_scenario(scenario)
    _sluice.validate(text, _check_seed(seed), source=source, overrides=_overrides(overrides))


class Resolved(NamedTuple):
    """What :func:`resolve` returns: unpacks as ``model, model_hash = sluice.resolve(...)``."""

    #: The resolved model: the configuration the simulator runs, every default filled in
    #: (nodes, links with their queues and loss models, flows with their full TCP options,
    #: monitor settings). Times, rates and sizes are exact unit strings (``"200ms"``).
    model: dict[str, Any]
    #: Hex SHA-256 of the model's canonical form, without its ``seed`` and ``notes``: the same
    #: hash means the same simulation for every seed, so ``(model_hash, seed, sluice_version)``
    #: keys a result cache.
    model_hash: str


def resolve(scenario: ScenarioLike, seed: int | None = None, overrides: Overrides | None = None) -> Resolved:
    """The fully defaulted model a scenario resolves to, and its stable hash.

    The hash does not change with key order, comments, whitespace, or a default spelt out
    in the file, nor with the seed; it changes when any parameter of the run does.

    Raises :class:`~sluice.errors.ScenarioError` if the scenario is invalid.

    Examples
    --------
    >>> model, h = sluice.resolve("scenarios/reference/single-newreno.toml")   # doctest: +SKIP
    >>> model["flows"][0]["tcp"]["mss"], len(h)                                # doctest: +SKIP
    (1448, 64)
    """
    text, source = read_scenario(scenario)
    model_json, model_hash = _sluice.resolve(text, _check_seed(seed), source=source, overrides=_overrides(overrides))
    model: dict[str, Any] = json.loads(model_json)
    return Resolved(model, model_hash)


def _overrides(overrides: Overrides | None) -> dict[str, Any] | None:
    """The overrides as the dict the native module takes (in their order)."""
    if overrides is None:
        return None
    if not isinstance(overrides, Mapping):
        raise TypeError(f"overrides must be a mapping of dotted paths to values, not {type(overrides).__name__}")
    return dict(overrides)


def explain(scenario: ScenarioLike, seed: int | None = None, overrides: Overrides | None = None) -> list[dict[str, Any]]:
    """Validate a scenario (with ``overrides`` set, as for :func:`run`) and list every queue's
    resolved discipline.

    One ``{"name": "A->B", "params": {"kind": "codel", "target": "5ms", ...}}`` per link
    direction, every parameter present (defaults filled in under the scenario's profile), as
    the run's summary reports them. Raises :class:`~sluice.errors.ScenarioError` if invalid.
    """
    text, source = read_scenario(scenario)
    queues: list[dict[str, Any]] = json.loads(_sluice.explain(text, _check_seed(seed), source=source, overrides=_overrides(overrides)))
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
