"""Statistics over runs: confidence intervals, batch means, Jain's index, quartiles, and the
per-run metrics a sweep aggregates.

Definitions (docs/harness.md):

- :func:`t_interval` — Student-t 95 % interval of a mean over independent runs (seeds):
  ``mean ± t(0.975, n−1) · s / √n`` with ``s`` the sample standard deviation (``n − 1``).
- :func:`batch_means` — the same interval over the means of ``batches`` (30) consecutive,
  equal-length batches of one long run's series (the batch-means method for autocorrelated
  output; the first ``len % batches`` samples are dropped so the batches are equal).
- :func:`jain` — Jain's fairness index ``(Σx)² / (n·Σx²)``; 1 for equal shares, ``1/n`` when one
  flow has everything.
- :func:`quartiles` — Q1, median, Q3 (linear interpolation between order statistics).
- :func:`run_metrics` — one run's figures of merit from its summary: per-flow means over the
  data-direction TCP flows (ACK streams are not flows of their own in a Sluice summary), UDP
  flows reported apart.

Only the standard library is imported at module level; scipy is imported by the functions that
need the t quantile.

Examples
--------
>>> from sluice import stats
>>> ci = stats.t_interval([1, 2, 3, 4, 5])
>>> round(ci.mean, 3), round(ci.half_width, 3)
(3.0, 1.963)
>>> round(stats.jain([2, 1, 1]), 3)
0.889
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Interval",
    "t_interval",
    "batch_means",
    "throughput_batch_means",
    "jain",
    "quartiles",
    "flow_loss_pct",
    "run_metrics",
    "METRICS",
]


@dataclass(frozen=True)
class Interval:
    """A mean with its two-sided confidence interval.

    Attributes
    ----------
    mean : float
        The sample mean (NaN without samples).
    half_width : float
        Half the interval's width (NaN with fewer than two samples; 0 when all are equal).
    n : int
        Number of samples (runs, or batches for :func:`batch_means`).
    level : float
        Confidence level, 0.95 by default.
    """

    mean: float
    half_width: float
    n: int
    level: float = 0.95

    @property
    def low(self) -> float:
        """Lower end, ``mean − half_width``."""
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        """Upper end, ``mean + half_width``."""
        return self.mean + self.half_width

    def __contains__(self, x: object) -> bool:
        return isinstance(x, (int, float)) and self.low <= float(x) <= self.high

    def __str__(self) -> str:
        return f"{self.mean:.6g} ± {self.half_width:.3g} (n={self.n})"


def _finite(values: Iterable[Any]) -> list[float]:
    """The values as floats, None and NaN left out."""
    out = []
    for v in values:
        if v is None:
            continue
        x = float(v)
        if not math.isnan(x):
            out.append(x)
    return out


def t_quantile(level: float, dof: int) -> float:
    """Two-sided Student-t quantile: ``t`` with ``P(|T| ≤ t) = level`` for ``dof`` degrees of
    freedom (2.776 for 95 % and 4)."""
    from scipy.stats import t as student_t

    return float(student_t.ppf(0.5 + level / 2.0, dof))


def t_interval(values: Iterable[Any], level: float = 0.95) -> Interval:
    """Student-t confidence interval of the mean of independent samples (one per seed).

    None and NaN are left out (a metric a run could not define, such as the FCT of a transfer
    that never finished, is not a zero).

    Examples
    --------
    >>> ci = t_interval([1, 2, 3, 4, 5])   # s = 1.5811, t(0.975, 4) = 2.7764
    >>> round(ci.half_width, 3)
    1.963
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    xs = _finite(values)
    n = len(xs)
    if n == 0:
        return Interval(math.nan, math.nan, 0, level)
    mean = math.fsum(xs) / n
    if n == 1:
        return Interval(mean, math.nan, 1, level)
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
    if var == 0.0:
        return Interval(mean, 0.0, n, level)
    return Interval(mean, t_quantile(level, n - 1) * math.sqrt(var / n), n, level)


def batch_means(series: Sequence[float], batches: int = 30, level: float = 0.95) -> Interval:
    """Confidence interval of a long run's mean by the batch-means method.

    The series is cut into ``batches`` consecutive batches of equal length ``len(series) //
    batches`` (the first ``len(series) % batches`` samples, the oldest, are dropped), and the
    Student-t interval is taken over the batch means. Batches long compared with the series'
    correlation time make the batch means nearly independent, so the interval is honest where
    the naive one over the raw samples is far too narrow.

    Raises
    ------
    ValueError
        If there are fewer samples than batches, or fewer than 2 batches.
    """
    if batches < 2:
        raise ValueError(f"batches must be at least 2, got {batches}")
    xs = [float(x) for x in series]
    size = len(xs) // batches
    if size == 0:
        raise ValueError(f"batch means need at least {batches} samples, got {len(xs)}")
    start = len(xs) - size * batches
    means = [math.fsum(xs[start + i * size : start + (i + 1) * size]) / size for i in range(batches)]
    return t_interval(means, level)


def throughput_batch_means(samples: Any, flow: int | None = None, batches: int = 30, level: float = 0.95) -> Interval:
    """Batch-means interval of the throughput (bit/s) of one long run, from its
    ``flow_samples`` table (``monitor.flow_sample``): of flow ``flow``, or of the sum over all
    flows per interval when ``flow`` is None. Each interval is one sample; see
    :func:`batch_means` (NGWA's 600 s run in 30 batches of 20 s is ``flow_sample = "20s"`` with
    ``batches = 30``, or ``"1s"`` samples batched 20 at a time)."""
    table = samples if flow is None else samples[samples["flow"] == flow]
    series = table.groupby("t_s", sort=True)["throughput_bps"].sum()
    return batch_means(series.tolist(), batches, level)


def jain(values: Iterable[Any]) -> float:
    """Jain's fairness index ``(Σx)² / (n·Σx²)``; NaN without values, 1 when all are zero.

    Examples
    --------
    >>> jain([1, 1, 1, 1]), jain([4, 0, 0, 0])
    (1.0, 0.25)
    """
    xs = _finite(values)
    if not xs:
        return math.nan
    if any(x < 0 for x in xs):
        raise ValueError("Jain's index is defined for non-negative values")
    sq = math.fsum(x * x for x in xs)
    if sq == 0.0:
        return 1.0
    return math.fsum(xs) ** 2 / (len(xs) * sq)


def quartiles(values: Iterable[Any]) -> tuple[float, float, float]:
    """``(Q1, median, Q3)`` with linear interpolation between order statistics (numpy's
    default, R type 7); NaNs without values."""
    xs = sorted(_finite(values))
    if not xs:
        return (math.nan, math.nan, math.nan)

    def q(p: float) -> float:
        h = (len(xs) - 1) * p
        lo = math.floor(h)
        hi = min(lo + 1, len(xs) - 1)
        return xs[lo] + (h - lo) * (xs[hi] - xs[lo])

    return (q(0.25), q(0.5), q(0.75))


def flow_loss_pct(flow: Mapping[str, Any]) -> float | None:
    """A flow's loss ratio in percent: ``100 · lost / sent`` packets (FlowMonitor semantics,
    lost = sent but never received).

    Uses the simulator's data-direction ratio when the summary has it (``data_dir_loss_ratio``:
    the flow's packets from source to destination lost in the network over those sent, within
    the measurement window), else ``lost_packets / data_packets_sent`` (older summaries, where
    ``lost_packets`` counts both directions). None when the flow sent nothing.
    """
    ratio = flow.get("data_dir_loss_ratio")
    if ratio is not None:
        if not flow.get("data_dir_packets_sent", 1):
            return None
        return 100.0 * float(ratio)
    sent = flow.get("data_packets_sent")
    lost = flow.get("lost_data_packets", flow.get("lost_packets"))
    if not sent or lost is None:
        return None
    return 100.0 * float(lost) / float(sent)


def _mean(xs: Iterable[Any]) -> float:
    v = _finite(xs)
    return math.fsum(v) / len(v) if v else math.nan


#: The metrics :func:`run_metrics` returns, with their units, in report order.
METRICS: dict[str, str] = {
    "loss_pct": "mean loss ratio over TCP flows, %",
    "goodput_mbps": "mean goodput over TCP flows, Mbit/s",
    "fct_s": "mean file transfer time over finished TCP transfers, s",
    "efficiency_pct": "mean TCP efficiency, %",
    "jain_goodput": "Jain's index over TCP goodputs",
    "mean_rtt_ms": "mean RTT over TCP flows, ms",
    "startup_s": "mean start-up time over TCP flows (start to first data segment, RFC 7928), s",
    "aggregate_goodput_mbps": "sum of TCP goodputs, Mbit/s",
    "throughput_q1_mbps": "first quartile of TCP goodputs, Mbit/s",
    "throughput_median_mbps": "median TCP goodput, Mbit/s",
    "throughput_q3_mbps": "third quartile of TCP goodputs, Mbit/s",
    "queue_drop_pct": "drop ratio at the first reported queue, %",
    "queue_mean_pkts": "mean length of the first reported queue, packets",
    "queue_std_pkts": "standard deviation of the first reported queue's length, packets",
    "udp_loss_pct": "mean loss ratio over UDP flows, %",
    "udp_efficiency_pct": "mean UDP efficiency, %",
    "udp_goodput_mbps": "mean UDP goodput, Mbit/s",
}


def _is_tcp(flow: Mapping[str, Any]) -> bool:
    return flow.get("cc") is not None


def run_metrics(summary: Mapping[str, Any], queue: str | None = None) -> dict[str, float]:
    """One run's figures of merit (the keys of :data:`METRICS`), NaN where undefined.

    Per-flow means are over the data-direction TCP flows (flows with a congestion control); UDP
    flows are summarised apart under ``udp_*``. ``queue`` picks the queue by name for the
    ``queue_*`` metrics (default: the first reported, the bottleneck of a dumbbell).
    """
    flows = list(summary.get("flows") or [])
    tcp = [f for f in flows if _is_tcp(f)]
    udp = [f for f in flows if not _is_tcp(f)]
    goodputs = [float(f.get("goodput_bps") or 0.0) / 1e6 for f in tcp]
    q1, med, q3 = quartiles(goodputs)
    queues = list(summary.get("queues") or [])
    if queue is not None:
        queues = [q for q in queues if q.get("name") == queue]
    first = queues[0] if queues else {}

    def efficiency(fs: list[Mapping[str, Any]]) -> float:
        return _mean(100.0 * float(f["efficiency"]) for f in fs if f.get("efficiency") is not None)

    rtts = [float(f["mean_rtt_s"]) * 1e3 for f in tcp if f.get("mean_rtt_s") is not None]
    drop = first.get("drop_ratio")
    return {
        "loss_pct": _mean(flow_loss_pct(f) for f in tcp),
        "goodput_mbps": _mean(goodputs),
        "fct_s": _mean(f.get("fct_s") for f in tcp),
        "efficiency_pct": efficiency(tcp),
        "jain_goodput": jain(goodputs) if goodputs else math.nan,
        "mean_rtt_ms": _mean(rtts),
        "startup_s": _mean(f.get("startup_s") for f in tcp),
        "aggregate_goodput_mbps": math.fsum(goodputs) if tcp else math.nan,
        "throughput_q1_mbps": q1,
        "throughput_median_mbps": med,
        "throughput_q3_mbps": q3,
        "queue_drop_pct": 100.0 * float(drop) if drop is not None else math.nan,
        "queue_mean_pkts": float(first["mean_len_pkts"]) if first.get("mean_len_pkts") is not None else math.nan,
        "queue_std_pkts": float(first["std_len_pkts"]) if first.get("std_len_pkts") is not None else math.nan,
        "udp_loss_pct": _mean(flow_loss_pct(f) for f in udp),
        "udp_efficiency_pct": efficiency(udp),
        "udp_goodput_mbps": _mean(float(f.get("goodput_bps") or 0.0) / 1e6 for f in udp),
    }
