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
from typing import final

__all__ = ["RunResult", "run", "validate", "explain", "version", "_panic_for_test"]

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
        ``cwnd`` and ``rtt`` when the scenario's ``monitor`` section enables them. Each access
        builds new lists.
        """

def run(
    scenario: str,
    seed: int | None = None,
    out_dir: str | None = None,
    *,
    source: str | None = None,
    progress: Callable[[float, float], object] | None = None,
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
        The file the text came from; used only in the reproduce command of a ``SimulationPanic``.
    progress
        Called as ``progress(simulated_s, end_s)`` about ten times a second of wall time and once
        at the end. An exception it raises stops the run and propagates.

    The interpreter lock is released while the simulation runs and taken back between slices
    of events, so signals are handled: Ctrl-C stops the run with ``KeyboardInterrupt``.
    """

def validate(scenario: str, seed: int | None = None, *, source: str | None = None) -> None:
    """Parse and validate a scenario (TOML text) without running it.

    Raises ``ScenarioError`` when it is invalid.
    """

def explain(scenario: str, seed: int | None = None, *, source: str | None = None) -> str:
    """Validate a scenario and return its queues' resolved disciplines as JSON text: a list of
    ``{"name": "A->B", "params": {"kind": ..., ...}}``, one per link direction.

    Raises ``ScenarioError`` when it is invalid.
    """

def version() -> str:
    """The simulator's version (the Rust workspace version)."""

def _panic_for_test(scenario: str, seed: int | None = None, *, source: str | None = None) -> None:
    """Panic inside the same guard as :func:`run`; raises ``SimulationPanic``. For tests only."""
