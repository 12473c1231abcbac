"""The EWT paper's Scenarios 1 and 2 (scenarios/papers/talau2019/): the sweep cells are valid
scenarios with the paper's set-up, the acceptance test holds on Scenario 1 at the calibrated
heavy level, and tables.py puts a sweep's runs beside the paper's claims."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import sluice
from sluice import stats, sweep

DIR = Path(__file__).resolve().parents[2] / "scenarios" / "papers" / "talau2019"

# Drop-tail's calibrated flow counts (30 seeds; docs/reproductions/talau2019-ewt.md).
HEAVY_1 = 24
HEAVY_2 = 13


def _tables():
    spec = importlib.util.spec_from_file_location("talau2019_tables", DIR / "tables.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def _method(n: int, label: str) -> dict:
    sw = sweep.load_sweep(DIR / f"sweep-{n}.toml")
    axis = next(a for a in sw.axes if a.name == "method")
    return axis.values[axis.labels.index(label)]


@pytest.mark.parametrize("n", [1, 2])
def test_every_method_of_the_paper_sweeps_is_a_valid_scenario(n: int) -> None:
    sw = sweep.load_sweep(DIR / f"sweep-{n}.toml")
    cells = sw.cells()
    assert len(cells) == 6 * 30  # methods × seeds (the level cells follow the calibration)
    assert sw.calibrate is not None and sw.calibration_axes() == ()  # one calibration for all
    sweep.check_cells(cells[::30])  # one seed of each method


@pytest.mark.parametrize("n, rate, delay, limit, red_limit", [
    # 10 Mbit/s × (2·(1 + 250 + 1) ms) = 630,000 B of BDP; / 588 B (536 B of payload + 52 B of
    # IP and TCP headers with timestamps) = 1071.4 → 1071 packets; RED's byte limit 1071 × 588.
    (1, "10Mbps", "250ms", "1071pkt", "629748B"),
    # 44.5 Mbit/s × (2·(1 + 10 + 1) ms) = 133,500 B; / 588 = 227.0 → 227; 227 × 588 = 133,476.
    (2, "44.5Mbps", "10ms", "227pkt", "133476B"),
])
def test_the_buffer_is_one_bdp_of_data_segments(n: int, rate: str, delay: str, limit: str, red_limit: str) -> None:
    model, _ = sluice.resolve(DIR / f"scenario-{n}.toml")
    text = (DIR / f"scenario-{n}.toml").read_text()
    assert f'bottleneck = {{ rate = "{rate}", delay = "{delay}" }}' in text
    assert 'access_delay = "1ms"' in text and 'tcp_preset = "ns3.30"' in text
    flows = model["flows"]
    assert flows[0]["tcp"]["mss"] == 536
    assert _method(n, "drop-tail")["topology.queue"]["limit"] == limit
    assert _method(n, "RED")["topology.queue"]["limit"] == red_limit
    # EWA, AWM and EWT count the buffer as limit × 588 B.
    for m in ("EWA", "AWM", "EWT"):
        (gw,) = _method(n, m)["gateways"]
        assert gw["node"] == "A" and gw["controller"]["mtu"] == 588


def test_scenario_1_heavy_ewt_loses_nothing_where_drop_tail_loses() -> None:
    """The acceptance test on the first three seeds at drop-tail's calibrated heavy count: drop-tail
    loses ≥ 0.1 % of packets in every run, EWT none, and EWT's mean goodput is at least
    drop-tail's (30 seeds: drop-tail 1.04 % and 0.350 Mb/s, EWT 0 and 0.382 Mb/s)."""
    base = {"flows[0].count": HEAVY_1}
    dt_goodput, ewt_goodput = [], []
    for seed in (1, 2, 3):
        dt = sluice.run(DIR / "scenario-1.toml", seed=seed, overrides={**base, **_method(1, "drop-tail")}).summary
        ewt = sluice.run(DIR / "scenario-1.toml", seed=seed, overrides={**base, **_method(1, "EWT")}).summary
        m_dt, m_ewt = stats.run_metrics(dt), stats.run_metrics(ewt)
        assert m_dt["loss_pct"] >= 0.1, seed
        assert sum(f["lost_packets"] for f in ewt["flows"]) == 0, seed
        assert all(f["fct_s"] is not None for f in dt["flows"] + ewt["flows"])
        dt_goodput.append(m_dt["goodput_mbps"])
        ewt_goodput.append(m_ewt["goodput_mbps"])
        # EWT sits on router A, reads the data queue A->B and rewrites the ACKs leaving A.
        (gw,) = ewt["gateways"]
        assert (gw["node"], gw["kind"], gw["monitor"], gw["rewrite_at"]) == ("A", "ewt", "A->B", "dequeue")
        assert gw["lowered"] > 0 and gw["untracked"] == 0 and gw["skipped"] == 0
    assert sum(ewt_goodput) >= sum(dt_goodput)


def test_run_figures_count_udp_loss_while_transfers_run_and_unfinished_transfers() -> None:
    t = _tables()
    red = _method(2, "RED")
    full = sluice.run(DIR / "scenario-2.toml", seed=1, overrides={"flows[0].count": HEAVY_2, **red}).summary
    fig = t.run_figures(full)
    assert fig["unfinished"] == 0 and fig["transfers"] == HEAVY_2
    last = fig["last_end_s"]
    assert 1.0 < last < 30.0
    # The same run cut right after the last transfer: its UDP source lost as many datagrams and
    # sent about sent·T/duration of them, so the two loss ratios agree (to a datagram or two).
    cut = sluice.run(DIR / "scenario-2.toml", seed=1,
                     overrides={"flows[0].count": HEAVY_2, **red, "duration": f"{last + 0.001:.3f}s"}).summary
    (u_full,) = [f for f in full["flows"] if f["cc"] is None]
    (u_cut,) = [f for f in cut["flows"] if f["cc"] is None]
    assert u_full["data_dir_packets_lost"] == u_cut["data_dir_packets_lost"] > 0
    cut_loss = 100.0 * u_cut["data_dir_packets_lost"] / u_cut["data_dir_packets_sent"]
    assert fig["udp_loss_active_pct"] == pytest.approx(cut_loss, rel=1e-3)
    assert fig["udp_loss_pct"] < 0.5 * fig["udp_loss_active_pct"]  # the whole run dilutes it
    # A run that ends before the transfers do: they are counted as unfinished.
    short = t.run_figures(sluice.run(DIR / "scenario-2.toml", seed=1, overrides={"flows[0].count": HEAVY_2, "duration": "8.1s"}).summary)
    assert short["unfinished"] > 0


def test_quick_sweep_runs_and_tables_judge_the_claims(tmp_path: Path) -> None:
    res = tmp_path / "res"
    sweep.run(DIR / "sweep-1.toml", res, quick=True, workers=2)
    t = _tables()
    o = t.ours(res)
    assert o.scenario == 1 and o.seeds == 2
    assert set(o.counts) == {"mild", "medium", "heavy"} and all(o.counts.values())
    assert set(o.cells) == {(m, lv) for m in t.METHODS for lv in t.LEVELS}
    assert not o.incomplete
    text = t.tables(o)
    assert f"Every transfer of the {6 * 3 * 2} runs completed" in text
    # EWT lost nothing in any quick run either: its row and the claim say so.
    assert all(o.losing_runs[("EWT", lv)] == (0, 2) for lv in t.LEVELS)
    claims = dict(t.claims(o))
    assert claims["Loss: EWT zero at every level"][0] is True
    ewt_heavy = next(line for line in text.split("Heavy (")[1].splitlines() if line.startswith("| EWT |"))
    assert ewt_heavy.endswith("| 0.000 ± 0.000 | 0/2 |")
    assert all(verdict in (True, False, t.TIED) for verdict, _ in claims.values())
