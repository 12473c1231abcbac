"""Ciaccia et al. (2019)'s RWM experiments (scenarios/papers/ciaccia2019/): every cell of the
sweeps is a valid scenario, the quick variants run and tables.py puts them beside the paper, and
the project's acceptance case: four CUBIC transfers at 60 ms share the 1 Gb/s edge fairly under
RWM, with an RTT that hardly moves, where the uncontrolled run fills the drop-tail buffer."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import sluice
from sluice import sweep

DIR = Path(__file__).resolve().parents[2] / "scenarios" / "papers" / "ciaccia2019"
RWM = [{"node": "edge", "monitor": "edge->client", "controller": {"kind": "rwm"}}]


def _tables():
    spec = importlib.util.spec_from_file_location("ciaccia2019_tables", DIR / "tables.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_cell_of_the_paper_sweeps_is_a_valid_scenario() -> None:
    cells = sweep.load_sweep(DIR / "sweep-fct.toml").cells()
    assert len(cells) == 7 * 2 * 4 * 10  # RTT × transfers × control × seeds
    sweep.check_cells(cells[::10])  # one seed of each setting
    cells = sweep.load_sweep(DIR / "sweep-table1.toml").cells()
    assert len(cells) == 2 * 2 * 5
    sweep.check_cells(cells)


def test_the_paper_values_are_read_whole() -> None:
    t = _tables()
    assert len(t.TABLE_I) == 4
    assert t.TABLE_I[("none", 4)] == (15.9, 52.8, 41.9, 58.5, 65.1, 71.0)
    assert t.TABLE_I[("RWM", 1)] == (0.2, 21.0, 21.0, 21.0, 21.0, 21.3)
    # [1, 2, 3, 4]: std 1.118 (population), mean 2.5, quartiles 1.75 / 2.5 / 3.25 (linear), max 4.
    s = t.rtt_stats(np.array([1.0, 2.0, 3.0, 4.0]))
    assert s == pytest.approx((1.118034, 2.5, 1.75, 2.5, 3.25, 4.0), rel=1e-6)


def test_quick_sweeps_run_and_tables_put_them_beside_the_paper(tmp_path: Path) -> None:
    t = _tables()
    sweep.run(DIR / "sweep-fct.toml", tmp_path / "fct", quick=True, workers=2)
    cells, seeds = t.fct_cells(tmp_path / "fct")
    assert seeds == 1 and set(cells) == {(60, 4, c) for c in t.CONTROLS}
    text = t.fct_markdown(cells, seeds)
    assert "| 60 | " in text and "paper ≈ 70 s and ≈ 40 s" in text
    sweep.run(DIR / "sweep-table1.toml", tmp_path / "t1", quick=True, workers=2)
    rows, seeds = t.table1_cells(tmp_path / "t1")
    assert set(rows) == {(c, n) for c in ("none", "RWM") for n in (1, 4)}
    text = t.table1_markdown(rows, seeds)
    assert "| RWM | 4 | paper | 0.2 | 20.4 | 20.3 | 20.4 | 20.6 | 25.5 |" in text
    # RWM at 20 ms: the mean RTT is the handshake RTT times the framing overhead (see below).
    assert 20.5 < rows[("RWM", 1)][1] < 22.0


def _four_at_60ms(rwm: bool) -> sluice.Result:
    ov = {"flows[0].count": 4, "topology.links[1].delay": "30ms", "flows[0].app.size": "100MB", "monitor.rtt_trace": True}
    if rwm:
        ov["gateways"] = RWM
    return sluice.run(DIR / "edge.toml", overrides=ov, seed=1)


def test_rwm_shares_the_edge_fairly_and_holds_the_rtt_at_60ms() -> None:
    none, rwm = _four_at_60ms(False), _four_at_60ms(True)
    # Each flow's cap: C/8 · RTT_hs / n = 125,000,000 B/s · 0.060 s / 4 = 1,875,000 B, in field
    # units at shift 10 floor(1,875,000 / 1024) = 1831, i.e. 1,874,944 B; four flows keep
    # 7,499,776 B of payload in flight. The edge carries 1448 payload bytes per 1538 bytes of wire
    # time: 125e6 · 1448/1538 = 117.685 MB/s of payload, so the windows take 7,499,776 /
    # 117.685e6 = 63.7 ms to drain: a standing queue of 3.7 ms over the 60-ms path, the same for
    # every flow.
    fct = rwm.flows["fct_s"].to_numpy()
    assert rwm.summary["jain_goodput"] >= 0.95
    assert fct.max() / fct.min() < 1.03, fct  # they finish together
    assert (rwm.flows["retransmitted_bytes"] == 0).all()
    x = rwm.tables["rtt"]["rtt_s"].to_numpy() * 1e3
    assert 63.0 < float(np.median(x)) < 64.5, np.median(x)
    # Without a controller the flows fill the 6.2 MB buffer (51 ms at 1 Gb/s) and share unevenly.
    y = none.tables["rtt"]["rtt_s"].to_numpy() * 1e3
    assert none.summary["jain_goodput"] < 0.95
    assert float(np.max(y)) > 100.0
    assert x.std() < y.std() / 4, (x.std(), y.std())
    assert rwm.summary["gateways"][0]["lowered"] > 0
