"""sluice.stats: intervals, batch means, Jain's index, quartiles, per-run metrics."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluice import stats


def test_t_interval_hand_checked() -> None:
    # mean 3; s² = (4+1+0+1+4)/4 = 2.5, s = 1.58114; t(0.975, 4) = 2.77645;
    # half = 2.77645 · 1.58114 / √5 = 1.96324
    ci = stats.t_interval([1, 2, 3, 4, 5])
    assert ci.mean == 3.0
    assert ci.n == 5
    assert stats.t_quantile(0.95, 4) == pytest.approx(2.776, abs=5e-4)
    assert ci.half_width == pytest.approx(1.963, abs=5e-4)
    assert (ci.low, ci.high) == pytest.approx((1.037, 4.963), abs=5e-4)


def test_t_interval_edge_cases() -> None:
    assert math.isnan(stats.t_interval([]).mean)
    one = stats.t_interval([2.5])
    assert one.mean == 2.5 and math.isnan(one.half_width)
    assert stats.t_interval([7, 7, 7]).half_width == 0.0
    # None and NaN are missing values, not zeros: mean of (2, 4) = 3
    assert stats.t_interval([2, None, float("nan"), 4]).mean == 3.0
    with pytest.raises(ValueError):
        stats.t_interval([1, 2], level=1.5)


@pytest.mark.parametrize(
    ("xs", "expected"),
    [
        ([1, 1, 1, 1], 1.0),
        ([4, 0, 0, 0], 0.25),  # 16 / (4 · 16)
        ([2, 1, 1], 16 / 18),  # (2+1+1)² / (3 · (4+1+1)) = 0.889
    ],
)
def test_jain_reference_values(xs: list[float], expected: float) -> None:
    assert stats.jain(xs) == pytest.approx(expected)


def test_jain_0889_rounds_as_published() -> None:
    assert round(stats.jain([2, 1, 1]), 3) == 0.889


def test_quartiles_interpolate_like_numpy() -> None:
    # [1,2,3,4]: Q1 at h = 0.75 → 1.75, median 2.5, Q3 at h = 2.25 → 3.25
    assert stats.quartiles([4, 1, 3, 2]) == (1.75, 2.5, 3.25)
    assert stats.quartiles([5]) == (5.0, 5.0, 5.0)


def _ar1(n: int, phi: float, mu: float, seed: int) -> list[float]:
    rng = random.Random(seed)
    x = mu
    out = []
    for _ in range(n):
        x = mu + phi * (x - mu) + rng.gauss(0.0, 1.0)
        out.append(x)
    return out


def test_batch_means_on_ar1_covers_true_mean_and_is_wider_than_naive() -> None:
    # AR(1) with phi = 0.9: the variance of the mean is (1+phi)/(1-phi) = 19 times the naive
    # i.i.d. figure, so the naive interval is about √19 ≈ 4.4 times too narrow.
    mu = 10.0
    covered_bm = covered_naive = 0
    for seed in range(40):
        xs = _ar1(30_000, 0.9, mu, seed)
        bm = stats.batch_means(xs, batches=30)
        naive = stats.t_interval(xs)
        assert bm.n == 30
        assert bm.half_width > 3.0 * naive.half_width
        covered_bm += mu in bm
        covered_naive += mu in naive
    # 95 % intervals: about 38 of 40 cover; the naive ones cover far fewer (about 35 %).
    assert covered_bm >= 34
    assert covered_naive <= 25


def test_batch_means_width_shrinks_with_a_longer_run() -> None:
    short = stats.batch_means(_ar1(6_000, 0.9, 0.0, 1))
    long = stats.batch_means(_ar1(96_000, 0.9, 0.0, 1))
    # 16 times the samples: about 1/4 of the width
    assert long.half_width < 0.5 * short.half_width


def test_batch_means_drops_the_oldest_remainder() -> None:
    # 62 samples, 30 batches of 2: the first two (the outliers) are dropped
    xs = [1000.0, 1000.0] + [1.0, 3.0] * 30
    ci = stats.batch_means(xs, batches=30)
    assert ci.mean == 2.0 and ci.half_width == 0.0
    with pytest.raises(ValueError, match="at least 30 samples"):
        stats.batch_means([1.0] * 29)


@given(st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False), min_size=1, max_size=50))
def test_jain_is_between_one_over_n_and_one(xs: list[float]) -> None:
    j = stats.jain(xs)
    assert 1.0 / len(xs) - 1e-9 <= j <= 1.0 + 1e-9


@given(
    st.lists(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), min_size=2, max_size=40),
    st.floats(min_value=-1e3, max_value=1e3, allow_nan=False),
)
@settings(max_examples=50)
def test_t_interval_contains_the_mean_and_shifts_with_the_data(xs: list[float], c: float) -> None:
    ci = stats.t_interval(xs)
    assert ci.low <= ci.mean <= ci.high
    shifted = stats.t_interval([x + c for x in xs])
    assert shifted.mean == pytest.approx(ci.mean + c, abs=1e-6)
    assert shifted.half_width == pytest.approx(ci.half_width, rel=1e-6, abs=1e-6)


@given(st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False), min_size=1, max_size=40))
def test_quartiles_are_ordered_and_within_range(xs: list[float]) -> None:
    q1, med, q3 = stats.quartiles(xs)
    assert min(xs) <= q1 <= med <= q3 <= max(xs)


def test_run_metrics_means_over_tcp_flows_udp_apart() -> None:
    summary = {
        "flows": [
            {"id": 0, "cc": "new_reno", "goodput_bps": 4e6, "efficiency": 0.9, "fct_s": 2.0,
             "lost_packets": 1, "data_packets_sent": 100, "mean_rtt_s": 0.1, "startup_s": 0.5},
            {"id": 1, "cc": "new_reno", "goodput_bps": 2e6, "efficiency": 1.0, "fct_s": None,
             "lost_packets": 3, "data_packets_sent": 100, "mean_rtt_s": 0.3, "startup_s": 0.25},
            {"id": 2, "cc": None, "kind": "udp_cbr", "goodput_bps": 1e6, "efficiency": 0.5,
             "lost_packets": 50, "data_packets_sent": 100},
        ],
        "queues": [{"name": "A->B", "drop_ratio": 0.02, "mean_len_pkts": 12.5, "std_len_pkts": 3.5}],
    }
    m = stats.run_metrics(summary)
    assert m["loss_pct"] == 2.0  # (1 % + 3 %) / 2, UDP's 50 % apart
    assert m["goodput_mbps"] == 3.0
    assert m["fct_s"] == 2.0  # the unfinished transfer is missing, not 0
    assert m["efficiency_pct"] == pytest.approx(95.0)
    assert m["jain_goodput"] == pytest.approx(36 / 40)  # (4+2)² / (2 · (16+4))
    assert m["mean_rtt_ms"] == pytest.approx(200.0)
    assert m["startup_s"] == pytest.approx(0.375)
    assert m["queue_drop_pct"] == 2.0
    assert m["queue_mean_pkts"] == 12.5 and m["queue_std_pkts"] == 3.5
    assert m["udp_loss_pct"] == 50.0 and m["udp_efficiency_pct"] == 50.0
    assert set(m) == set(stats.METRICS)


def test_flow_loss_prefers_the_simulators_data_direction_ratio() -> None:
    f = {"data_dir_loss_ratio": 0.005, "data_dir_packets_sent": 1000, "lost_packets": 9, "data_packets_sent": 10}
    assert stats.flow_loss_pct(f) == 0.5
    assert stats.flow_loss_pct({"data_dir_loss_ratio": 0.0, "data_dir_packets_sent": 0}) is None
    assert stats.flow_loss_pct({"lost_packets": 1, "data_packets_sent": 200}) == 0.5
    assert stats.flow_loss_pct({"lost_packets": 0, "data_packets_sent": 0}) is None


def test_throughput_batch_means_sums_flows_per_interval() -> None:
    import pandas as pd

    # 60 intervals, two flows: flow 0 alternates 1 and 3 Mbit/s, flow 1 is 2 Mbit/s throughout.
    # Sum per interval alternates 3 and 5; 30 batches of 2 intervals all have mean 4 → 4 ± 0.
    rows = []
    for i in range(60):
        rows.append({"t_s": float(i + 1), "flow": 0, "throughput_bps": 1e6 if i % 2 == 0 else 3e6})
        rows.append({"t_s": float(i + 1), "flow": 1, "throughput_bps": 2e6})
    table = pd.DataFrame(rows)
    total = stats.throughput_batch_means(table)
    assert total.mean == 4e6 and total.half_width == 0.0 and total.n == 30
    one = stats.throughput_batch_means(table, flow=0)
    assert one.mean == 2e6 and one.half_width == 0.0
