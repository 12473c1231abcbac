"""Sluice's exception hierarchy.

The native module ``sluice._sluice`` raises these classes (it imports them from here), so every
error Sluice reports can be caught as :class:`SluiceError` and, where it fits, as the built-in
exception a Python user would expect:

================  ==========================  =====================================================
class             also a                      raised when
================  ==========================  =====================================================
ScenarioError     ``ValueError``              a scenario is invalid; ``.path`` names the field
SimulationPanic   ``RuntimeError``            the simulator hit a bug (a Rust panic was caught)
OutputError       ``OSError``                 an output file (pcap, Parquet, figure) could not be written
GatewayError      ``OSError``                 the live gateway or its testbed failed
================  ==========================  =====================================================
"""

from __future__ import annotations

__all__ = [
    "SluiceError",
    "ScenarioError",
    "SimulationPanic",
    "OutputError",
    "GatewayError",
]


class SluiceError(Exception):
    """Base class of every error Sluice raises on purpose."""


class ScenarioError(SluiceError, ValueError):
    """An invalid scenario.

    The message is one line, ``"<path>: <message>"`` (or just the message for a file-level
    syntax error).

    Attributes
    ----------
    path : str
        The offending field, e.g. ``"topology.bottleneck.rate"`` or ``"flows[2].dst"``; empty
        when the problem is with the file as a whole.
    allowed : list[str] | None
        The accepted values when the set is closed (e.g. queue kinds), else ``None``.
    """

    def __init__(self, message: str, path: str = "", allowed: list[str] | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.allowed = allowed

    @property
    def message(self) -> str:
        """The one-line message, including the path."""
        return str(self.args[0]) if self.args else ""

    def __reduce__(self) -> tuple[type[ScenarioError], tuple[str, str, list[str] | None]]:
        # Keep .path and .allowed when the error crosses a process boundary (sweep workers).
        return (type(self), (self.message, self.path, self.allowed))


class SimulationPanic(SluiceError, RuntimeError):
    """The simulator panicked: a bug in Sluice, not in the scenario.

    The message names the scenario, the seed and a command that reproduces the run.

    Attributes
    ----------
    scenario : str
        The scenario's ``name``.
    seed : int | None
        The seed the run used.
    reproduce : str
        A one-line shell command that reruns the case, e.g. ``sluice run x.toml --seed 7``.
    """

    def __init__(
        self,
        message: str,
        scenario: str = "",
        seed: int | None = None,
        reproduce: str = "",
    ) -> None:
        super().__init__(message)
        self.scenario = scenario
        self.seed = seed
        self.reproduce = reproduce

    def __reduce__(self) -> tuple[type[SimulationPanic], tuple[str, str, int | None, str]]:
        message = str(self.args[0]) if self.args else ""
        return (type(self), (message, self.scenario, self.seed, self.reproduce))


class OutputError(SluiceError, OSError):
    """Writing a result file failed (``errno``, ``strerror`` and ``filename`` as for ``OSError``)."""


class GatewayError(SluiceError, OSError):
    """The live gateway or its namespace testbed failed; the message names the interface (or
    namespace) and the call (`sluice.testbed`)."""
