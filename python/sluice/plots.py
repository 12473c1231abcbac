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

from typing import TYPE_CHECKING

from matplotlib.axes import Axes
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from .api import Result

__all__ = ["queue_length", "goodput_bars", "cwnd", "overview"]


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
