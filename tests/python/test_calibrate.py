"""sluice.calibrate: the bracket-and-bisect search for congestion levels."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluice.calibrate import search, search_levels


def noisy_loss(slope: float, noise: float, seeds: list[int]):  # type: ignore[no-untyped-def]
    """A monotone loss curve (slope·n %) plus noise, averaged over common seeds: the noise of a
    seed is a fixed function of (seed, n), as a simulator's would be."""

    def evaluate(n: int) -> float:
        vals = []
        for s in seeds:
            rng = random.Random(s * 1_000_003 + n)
            vals.append(slope * n * (1.0 + rng.gauss(0.0, noise)))
        return sum(vals) / len(vals)

    return evaluate


@pytest.mark.parametrize(("slope", "level", "true_n"), [
    (0.002, 0.1, 50),    # mild: 0.1 % at n = 50
    (0.002, 0.5, 250),   # medium
    (0.002, 1.0, 500),   # heavy
    (0.013, 0.5, 39),    # 0.5 / 0.013 = 38.46 → first n reaching it is 39
])
def test_search_finds_the_count_within_one_and_the_evaluation_budget(slope: float, level: float, true_n: int) -> None:
    calls: list[int] = []
    f = noisy_loss(slope, 0.01, [1, 2, 3, 4, 5])

    def counted(n: int) -> float:
        calls.append(n)
        return f(n)

    r = search(counted, level, maximum=4096)
    assert r.count is not None and abs(r.count - true_n) <= 1
    assert len(calls) <= 2 * math.log2(true_n) + 2
    assert len(calls) == len(set(calls)) == len(r.steps)
    # the answer is bracketed by evaluated neighbours: n-1 below (unless n = start), n at or above
    seen = {s.n: s.reached for s in r.steps}
    assert seen[r.count] is True
    assert seen.get(r.count - 1, False) is False


def test_search_exact_on_a_noiseless_line() -> None:
    r = search(lambda n: 0.01 * n, 0.5)
    assert r.count == 50
    # bracket 1, 2, 4, …, 64, then bisect 48, 56, 52, 50, 49
    assert [s.n for s in r.steps] == [1, 2, 4, 8, 16, 32, 64, 48, 56, 52, 50, 49]


def test_search_level_reached_at_start_and_never() -> None:
    assert search(lambda n: 5.0, 1.0).count == 1
    r = search(lambda n: 0.0, 1.0, maximum=100)
    assert r.count is None
    assert [s.n for s in r.steps] == [1, 2, 4, 8, 16, 32, 64, 100]
    # NaN (a metric a run could not define) counts as below the level
    assert search(lambda n: math.nan if n < 10 else 1.0, 1.0).count == 10


def test_levels_share_evaluations() -> None:
    calls: list[int] = []

    def f(n: int) -> float:
        calls.append(n)
        return 0.002 * n

    found = search_levels(f, {"mild": 0.1, "medium": 0.5, "heavy": 1.0}, maximum=4096)
    assert {k: r.count for k, r in found.items()} == {"mild": 50, "medium": 250, "heavy": 500}
    assert len(calls) == len(set(calls))  # no count evaluated twice


@given(st.integers(min_value=1, max_value=3000), st.integers(min_value=1, max_value=8))
@settings(max_examples=200)
def test_search_is_exact_for_any_step_function(true_n: int, start: int) -> None:
    start = min(start, true_n)
    r = search(lambda n: 1.0 if n >= true_n else 0.0, 0.5, start=start, maximum=4096)
    assert r.count == true_n
    # from 1: k + 1 bracket evaluations for 2^(k-1) < n ≤ 2^k, then at most k − 1 bisections
    if start == 1:
        assert len(r.steps) <= 2 * math.log2(true_n) + 2


def test_logs_each_step() -> None:
    lines: list[str] = []
    search(lambda n: 0.01 * n, 0.05, log=lines.append, name="mild")
    assert lines[0].startswith("mild (≥ 0.05) bracket n=1: 0.01 < 0.05")
    assert lines[-1] == "mild (≥ 0.05) → n=5"
