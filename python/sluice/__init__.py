"""Sluice: gateway-side TCP congestion control, starting with a deterministic packet-level
simulator.

The public API:

- :func:`run` — run a scenario (a ``.toml`` path or TOML text) and get a :class:`Result`
  holding the summary and pandas DataFrames;
- :func:`validate` — check a scenario without running it;
- :func:`explain` — validate and list every queue's resolved discipline;
- :mod:`sluice.plots` — matplotlib figures of a result;
- the exceptions in :mod:`sluice.errors`.

Examples
--------
>>> import sluice
>>> r = sluice.run("scenarios/reference/single-newreno.toml")   # doctest: +SKIP
>>> r.flows[["id", "goodput_bps"]]                                # doctest: +SKIP
"""

from __future__ import annotations

from . import _sluice
from .api import Result, explain, run, validate
from .errors import (
    GatewayError,
    OutputError,
    ScenarioError,
    SimulationPanic,
    SluiceError,
)


# The package is versioned with the Rust workspace (maturin reads it from Cargo.toml).
__version__: str = _sluice.version()

__all__ = [
    "__version__",
    "run",
    "validate",
    "explain",
    "Result",
    "SluiceError",
    "ScenarioError",
    "SimulationPanic",
    "OutputError",
    "GatewayError",
]
