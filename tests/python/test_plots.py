"""Figures: each function returns a Figure and never shows it."""

from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.figure import Figure

import sluice
from sluice import plots


@pytest.fixture(scope="module")
def result() -> sluice.Result:
    return sluice.run(Path(__file__).parent / "data" / "tiny.toml")


@pytest.mark.parametrize("make", [plots.queue_length, plots.goodput_bars, plots.overview])
def test_figures(make, result: sluice.Result, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    fig = make(result)
    assert isinstance(fig, Figure)
    assert fig.axes
    png = tmp_path / "fig.png"
    fig.savefig(png)
    assert png.read_bytes().startswith(b"\x89PNG")


def test_overview_has_two_panels(result: sluice.Result) -> None:
    assert len(plots.overview(result).axes) == 2


def test_cwnd_needs_a_trace(result: sluice.Result) -> None:
    with pytest.raises(ValueError, match="cwnd_trace"):
        plots.cwnd(result)


def test_cwnd_when_traced(tiny_text: str) -> None:
    traced = tiny_text + '\n[monitor]\ncwnd_trace = "10ms"\n'
    r = sluice.run(traced)
    assert {"t_s", "flow", "cwnd_bytes"} <= set(r.tables["cwnd"].columns)
    assert isinstance(plots.cwnd(r), Figure)
