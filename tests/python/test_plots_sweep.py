"""Sweep figures: bars with intervals per method and level, goodput against latency."""

from __future__ import annotations

import pandas as pd
from matplotlib.container import BarContainer
from matplotlib.figure import Figure

from sluice import plots


def agg() -> pd.DataFrame:
    rows = []
    for b in ("0.5 BDP", "2 BDP"):
        for lv, base in (("mild", 0.1), ("medium", 0.5), ("heavy", 1.0)):
            for m, k in (("drop-tail", 1.0), ("red", 2.0)):
                rows.append({"scenario": "s", "buffer": b, "level": lv, "method": m, "n": 10,
                             "loss_pct": base * k, "loss_pct_ci": 0.05 * k,
                             "goodput_mbps": 5 / k, "goodput_mbps_ci": 0.2,
                             "mean_rtt_ms": 60 * k, "mean_rtt_ms_ci": float("nan")})
    return pd.DataFrame(rows)


def test_interval_bars_one_panel_per_facet_one_bar_per_level_and_method() -> None:
    fig = plots.interval_bars(agg(), "loss_pct", x="level", hue="method", facet=["buffer"], ylabel="loss (%)")
    assert isinstance(fig, Figure)
    axes = fig.get_axes()
    assert len(axes) == 2 and axes[0].get_title() == "buffer=0.5 BDP"
    bars = [c for c in axes[0].containers if isinstance(c, BarContainer)]
    assert [len(c) for c in bars] == [3, 3]  # two methods, three levels
    assert [round(p.get_height(), 6) for p in bars[1]] == [0.2, 1.0, 2.0]  # red: 2 × the level
    assert [t.get_text() for t in axes[0].get_xticklabels()] == ["mild", "medium", "heavy"]
    assert axes[0].get_ylabel() == "loss (%)"


def test_goodput_latency_points_with_intervals() -> None:
    fig = plots.goodput_latency(agg(), hue="method")
    ax = fig.get_axes()[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["drop-tail", "red"]
    xs = sorted(x for line in ax.get_lines() for x in line.get_xdata())
    assert xs[0] == 60 and xs[-1] == 120


def test_flow_throughput_from_flow_samples(tiny_text: str) -> None:
    import sluice

    r = sluice.run(tiny_text, overrides={"monitor.flow_sample": "1s"})
    fig = plots.flow_throughput(r)
    ax = fig.get_axes()[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["flow 0", "flow 1"]
    # 4 whole 1-s intervals in the [1, 5) s window, one point each
    assert [len(line.get_xdata()) for line in ax.get_lines()] == [4, 4]
    one = sluice.run(tiny_text)
    import pytest

    with pytest.raises(ValueError, match="monitor.flow_sample"):
        plots.flow_throughput(one)
