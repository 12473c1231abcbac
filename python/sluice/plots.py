"""Figures of a :class:`~sluice.api.Result`.

Every function returns a :class:`matplotlib.figure.Figure` and never calls ``plt.show()``;
save it with ``fig.savefig("x.png")`` or show it in a notebook. Figures are built without
``pyplot``, so no global figure state is touched and no display is needed.

Examples
--------
>>> from sluice import plots
>>> fig = plots.overview(result)          # doctest: +SKIP
>>> fig.savefig("overview.png", dpi=120)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from matplotlib.axes import Axes
from matplotlib.figure import Figure

if TYPE_CHECKING:
    import pandas as pd

    from .api import Result

__all__ = ["queue_length", "goodput_bars", "cwnd", "flow_throughput", "overview", "interval_bars", "goodput_latency"]


def _title(result: Result) -> str:
    s = result.summary
    return f"{s.get('scenario', '?')} (seed {s.get('seed', '?')})"


def _draw_queue_length(ax: Axes, result: Result) -> None:
    samples = result.tables.get("queue_samples")
    if samples is None or samples.empty:
        ax.text(0.5, 0.5, "no queue samples", ha="center", va="center", transform=ax.transAxes)
    else:
        for name, group in samples.groupby("queue", sort=False):
            ax.step(group["t_s"], group["len_pkts"], where="post", label=str(name), linewidth=0.8)
        ax.legend(loc="upper right", fontsize="small")
    warmup = result.summary.get("warmup_s")
    if warmup:
        ax.axvspan(0, warmup, color="0.92", zorder=0)
        ax.text(warmup / 2, 0.5, "warm-up\n(not measured)", ha="center", va="center",
                transform=ax.get_xaxis_transform(), fontsize="small", color="0.4")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue length (packets)")
    ax.set_title("Queue length")
    ax.grid(True, alpha=0.3)


def _draw_goodput_bars(ax: Axes, result: Result) -> None:
    flows = result.flows
    if flows.empty:
        ax.text(0.5, 0.5, "no flows", ha="center", va="center", transform=ax.transAxes)
    else:
        ids = [int(i) for i in flows["id"]]
        ax.bar(ids, flows["goodput_bps"].astype(float) / 1e6, color="tab:blue")
        if len(ids) <= 30:
            ax.set_xticks(ids)
    jain = result.summary.get("jain_goodput")
    aggregate = result.summary.get("aggregate_goodput_bps")
    subtitle = []
    if aggregate is not None:
        subtitle.append(f"aggregate {aggregate / 1e6:.2f} Mbps")
    if jain is not None:
        subtitle.append(f"Jain {jain:.3f}")
    ax.set_title("Goodput per flow" + (f" ({', '.join(subtitle)})" if subtitle else ""))
    ax.set_xlabel("flow id")
    ax.set_ylabel("goodput (Mbps)")
    ax.grid(True, axis="y", alpha=0.3)


def queue_length(result: Result) -> Figure:
    """Queue length (packets) over time, one line per reported queue."""
    fig = Figure(figsize=(8, 4), layout="constrained")
    _draw_queue_length(fig.add_subplot(), result)
    fig.suptitle(_title(result))
    return fig


def goodput_bars(result: Result) -> Figure:
    """Goodput (Mbps) of each flow within the measurement window, as bars."""
    fig = Figure(figsize=(8, 4), layout="constrained")
    _draw_goodput_bars(fig.add_subplot(), result)
    fig.suptitle(_title(result))
    return fig


def cwnd(result: Result) -> Figure:
    """Congestion window (bytes) over time per flow.

    Raises
    ------
    ValueError
        If the run did not trace cwnd (set ``monitor.cwnd_trace`` in the scenario).
    """
    table = result.tables.get("cwnd")
    if table is None:
        raise ValueError("this run has no cwnd trace: set monitor.cwnd_trace in the scenario")
    fig = Figure(figsize=(8, 4), layout="constrained")
    ax = fig.add_subplot()
    for flow, group in table.groupby("flow", sort=True):
        ax.step(group["t_s"], group["cwnd_bytes"] / 1e3, where="post", label=f"flow {flow}", linewidth=0.8)
    if not table.empty:
        ax.legend(loc="upper right", fontsize="small")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (kB)")
    ax.set_title("Congestion window")
    ax.grid(True, alpha=0.3)
    fig.suptitle(_title(result))
    return fig


def overview(result: Result) -> Figure:
    """Two panels: queue length over time (top) and per-flow goodput (bottom)."""
    fig = Figure(figsize=(9, 7), layout="constrained")
    top, bottom = fig.subplots(2, 1)
    _draw_queue_length(top, result)
    _draw_goodput_bars(bottom, result)
    fig.suptitle(_title(result))
    return fig


# ----------------------------------------------------------------------------------------------
# Sweep figures: from the aggregate table of a sweep (sluice.sweep.SweepResult.aggregate)


def _facets(agg: pd.DataFrame, facet: Sequence[str]) -> list[tuple[str, pd.DataFrame]]:
    if not facet:
        return [("", agg)]
    out = []
    for key, sub in agg.groupby(list(facet), sort=False, dropna=False):
        k = key if isinstance(key, tuple) else (key,)
        out.append((", ".join(f"{f}={v}" for f, v in zip(facet, k)), sub))
    return out


def interval_bars(
    agg: pd.DataFrame,
    metric: str,
    x: str,
    hue: str | None = None,
    facet: Sequence[str] = (),
    ylabel: str | None = None,
) -> Figure:
    """Grouped bars of a metric's mean over seeds with its 95 % interval as error bars.

    ``agg`` is a sweep's aggregate table (columns ``metric`` and ``metric + "_ci"``); one group
    of bars per value of ``x`` (e.g. the congestion level), one bar per value of ``hue`` (e.g.
    the method), one panel per value of the ``facet`` columns (e.g. the buffer size).
    """
    panels = _facets(agg, facet)
    fig = Figure(figsize=(min(4.0 + 3.2 * len(panels), 16), 3.8), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (title, sub) in zip(axes, panels):
        xs = list(dict.fromkeys(sub[x].tolist()))
        hues = list(dict.fromkeys(sub[hue].tolist())) if hue else [None]
        width = 0.8 / len(hues)
        for j, h in enumerate(hues):
            part = sub if h is None else sub[sub[hue] == h]
            means, errs = [], []
            for xv in xs:
                row = part[part[x] == xv]
                means.append(float(row[metric].iloc[0]) if len(row) else float("nan"))
                err = float(row[f"{metric}_ci"].iloc[0]) if len(row) else float("nan")
                errs.append(0.0 if err != err else err)  # NaN (one seed): no bar
            pos = [i - 0.4 + width * (j + 0.5) for i in range(len(xs))]
            ax.bar(pos, means, width * 0.95, yerr=errs, capsize=3, label=None if h is None else str(h))
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([str(v) for v in xs], rotation=30 if len(xs) > 4 else 0)
        ax.set_xlabel(x)
        ax.set_title(title, fontsize="small")
        ax.grid(True, axis="y", alpha=0.3)
        if hue and len(hues) > 1:
            ax.legend(title=hue, fontsize="small")
    axes[0].set_ylabel(ylabel or metric)
    fig.suptitle(f"{ylabel or metric}: mean over seeds, 95 % interval")
    return fig


def goodput_latency(
    agg: pd.DataFrame,
    hue: str | None = None,
    latency: str = "mean_rtt_ms",
    goodput: str = "goodput_mbps",
) -> Figure:
    """Goodput against latency (RFC 7928's trade-off view): one point per sweep row, with its
    95 % intervals on both axes, coloured by ``hue``."""
    fig = Figure(figsize=(6.5, 4.5), layout="constrained")
    ax = fig.add_subplot()
    groups = [(None, agg)] if hue is None else list(agg.groupby(hue, sort=False))
    for name, sub in groups:
        ax.errorbar(sub[latency], sub[goodput], xerr=sub[f"{latency}_ci"].fillna(0.0),
                    yerr=sub[f"{goodput}_ci"].fillna(0.0), fmt="o", capsize=2,
                    label=None if name is None else str(name))
    if hue is not None:
        ax.legend(title=hue, fontsize="small")
    ax.set_xlabel(latency)
    ax.set_ylabel(goodput)
    ax.set_title("Goodput against latency (mean over seeds, 95 % intervals)")
    ax.grid(True, alpha=0.3)
    return fig


def flow_throughput(result: Result, flows: Sequence[int] | None = None) -> Figure:
    """Throughput (Mbps) of each flow over time, from the ``flow_samples`` table (payload
    delivered per interval).

    ``flows`` picks flow ids (default: all, up to 20 lines).

    Raises
    ------
    ValueError
        If the run has no per-flow samples (set ``monitor.flow_sample`` in the scenario).
    """
    table = result.tables.get("flow_samples")
    if table is None:
        raise ValueError("this run has no per-flow samples: set monitor.flow_sample in the scenario")
    fig = Figure(figsize=(8, 4), layout="constrained")
    ax = fig.add_subplot()
    ids = list(flows) if flows is not None else sorted(int(i) for i in table["flow"].unique())[:20]
    for flow, group in table[table["flow"].isin(ids)].groupby("flow", sort=True):
        ax.step(group["t_s"], group["throughput_bps"] / 1e6, where="pre", label=f"flow {flow}", linewidth=0.8)
    if ids and not table.empty:
        ax.legend(loc="upper right", fontsize="small", ncol=2 if len(ids) > 10 else 1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput (Mbps)")
    ax.set_title("Per-flow throughput (payload delivered per interval)")
    ax.grid(True, alpha=0.3)
    fig.suptitle(_title(result))
    return fig
