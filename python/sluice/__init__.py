"""Sluice: gateway-side TCP congestion control, starting with a deterministic packet-level
simulator.

The public API:

- :func:`run` — run a scenario (a ``.toml`` path or TOML text) and get a :class:`Result`
  holding the summary and pandas DataFrames;
- :func:`validate` — check a scenario without running it;
- :func:`resolve` — the fully defaulted model a scenario resolves to, and its hash;
- :mod:`sluice.plots` — matplotlib figures of a result and of a sweep;
- :mod:`sluice.sweep`, :mod:`sluice.calibrate`, :mod:`sluice.stats`, :mod:`sluice.report` — the
  evaluation harness: sweeps with a resumable results directory, congestion-level calibration,
  confidence intervals, HTML reports (docs/harness.md);
- :func:`explain` — validate and list every queue's resolved discipline;
- the exceptions in :mod:`sluice.errors`.

Examples
--------
>>> import sluice
>>> r = sluice.run("scenarios/reference/single-newreno.toml")   # doctest: +SKIP
>>> r.flows[["id", "goodput_bps"]]                                # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import Any

from . import _sluice
from .api import Resolved, Result, explain, resolve, run, validate
from .errors import (
    GatewayError,
    OutputError,
    ScenarioError,
    SimulationPanic,
    SluiceError,
)


# The package is versioned with the Rust workspace (maturin reads it from Cargo.toml).
__version__: str = _sluice.version()

#: Submodules imported on first use (they import pandas, matplotlib or scipy; `import sluice`
#: stays light).
_LAZY = ("plots", "stats", "sweep", "calibrate", "report")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'sluice' has no attribute {name!r}")


__all__ = [
    "__version__",
    "run",
    "validate",
    "resolve",
    "explain",
    "Result",
    "Resolved",
    "SluiceError",
    "ScenarioError",
    "SimulationPanic",
    "OutputError",
    "GatewayError",
]
