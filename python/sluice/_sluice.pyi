"""The private native module of Sluice (Rust, built with PyO3 by maturin).

Use :mod:`sluice` (``sluice.run``, ``sluice.validate``) rather than this module: it reads files
and returns pandas DataFrames. Everything here takes scenario *text* and returns plain Python
values. Errors are the classes of :mod:`sluice.errors`:

- an invalid scenario raises ``ScenarioError`` (also a ``ValueError``) with ``.path`` and
  ``.allowed``;
- an output file that cannot be written raises ``OutputError`` (also an ``OSError``);
- a bug in the simulator (a Rust panic) raises ``SimulationPanic`` (also a ``RuntimeError``)
  naming the scenario, the seed and a command that reproduces the run.

This stub is checked against the compiled module by ``python -m mypy.stubtest sluice._sluice``
(tests/python/test_stubs.py).
"""

from collections.abc import Callable
from typing import Any, final

__all__ = ["RunResult", "run", "validate", "resolve", "parse_set", "explain", "version", "_panic_for_test"]

@final
class RunResult:
    """The outcome of one run, as produced by the simulator."""

    @property
    def summary_json(self) -> str:
        """The summary (the JSON contract of docs/summary.md), fields in a fixed order."""

    @property
    def files(self) -> list[str]:
        """Files the simulator wrote (pcap), relative to ``out_dir``."""

    @property
    def tables(self) -> dict[str, dict[str, list[float] | list[int] | list[str]]]:
        """Result tables: table name -> column name -> values.

        ``queue_samples`` (``t_s``, ``queue``, ``len_pkts``, ``len_bytes``) is always present;
        ``cwnd``, ``rtt`` and ``flow_samples`` (``t_s``, ``flow``, ``bytes``,
        ``throughput_bps``) when the scenario's ``monitor`` section enables them. Each access
        builds new lists.
        """

def run(
    scenario: str,
    seed: int | None = None,
    out_dir: str | None = None,
    *,
    source: str | None = None,
    progress: Callable[[float, float], object] | None = None,
    overrides: dict[str, Any] | None = None,
) -> RunResult:
    """Parse, validate and run a scenario.

    Parameters
    ----------
    scenario
        The scenario as TOML text.
    seed
        Overrides the scenario's seed (a non-negative integer).
    out_dir
        Directory for files the scenario asks the simulator to write (pcap); created if missing.
    source
        The file the text came from: named first in a ``ScenarioError``'s message
        (``x.toml: flows[0].count: ...``) and in the reproduce command of a ``SimulationPanic``.
    progress
        Called as ``progress(simulated_s, end_s)`` about ten times a second of wall time and once
        at the end. An exception it raises stops the run and propagates.
    overrides
        Dotted paths with ``[i]`` indices (``"flows[0].count"``) to values (bool, int, float, str,
        lists and dicts of them), set in order on the parsed TOML tree before the schema reads
        it. A value of another type raises ``TypeError``; an index past an array's end, or a
        path through a number or string, raises ``ScenarioError`` naming the override.

    The interpreter lock is released while the simulation runs and taken back between slices
    of events, so signals are handled: Ctrl-C stops the run with ``KeyboardInterrupt``.
    """

def validate(
    scenario: str,
    seed: int | None = None,
    *,
    source: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> None:
    """Parse and validate a scenario (TOML text, with ``overrides`` as for :func:`run`) without
    running it.

    Raises ``ScenarioError`` when it is invalid.
    """

def resolve(
    scenario: str,
    seed: int | None = None,
    *,
    source: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> tuple[str, str]:
    """The resolved model as JSON text, and its hash (64 hex digits).

    The model is what the simulator runs, every default filled in; the hash is the SHA-256 of
    its canonical JSON without ``seed`` and ``notes``. Raises ``ScenarioError`` when the
    scenario is invalid.
    """

def parse_set(arg: str) -> tuple[str, Any]:
    """A command-line ``PATH=VALUE`` as ``(path, value)``: the value read as a TOML value
    (``90``, ``true``, ``"x"``, ``[1, 2]``, an inline table), else taken as a plain string.

    Raises ``ValueError`` when there is no ``=`` or the path is malformed.
    """

def explain(
    scenario: str,
    seed: int | None = None,
    *,
    source: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> str:
    """Validate a scenario and return its queues' resolved disciplines as JSON text: a list of
    ``{"name": "A->B", "params": {"kind": ..., ...}}``, one per link direction.

    Raises ``ScenarioError`` when it is invalid.
    """

def version() -> str:
    """The simulator's version (the Rust workspace version)."""

def _panic_for_test(
    scenario: str,
    seed: int | None = None,
    *,
    source: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> None:
    """Panic inside the same guard as :func:`run`; raises ``SimulationPanic`` (whose reproduce
    command repeats the overrides as ``--set`` arguments). For tests only."""
