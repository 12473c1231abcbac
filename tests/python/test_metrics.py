"""The metrics the simulator computes reach Python unchanged: the summary's per-flow fields and
the ``flow_samples`` table (docs/summary.md)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import sluice

NEW_FLOW_FIELDS = (
    "data_dir_packets_sent",
    "data_dir_bytes_sent",
    "data_dir_packets_lost",
    "data_dir_bytes_lost",
    "data_dir_loss_ratio",
    "efficiency_ip",
    "efficiency_retx",
    "startup_s",
)


def test_summary_has_the_version_and_the_new_fields(tiny_path: Path) -> None:
    r = sluice.run(tiny_path, overrides={"duration": "2s", "warmup": "0s"})
    assert r.summary["summary_version"] == 2
    assert r.summary["options"]["efficiency"] == "ip"
    for name in NEW_FLOW_FIELDS:
        assert name in r.flows.columns, name
    f = r.summary["flows"][0]
    assert f["efficiency"] == f["efficiency_ip"]
    # tiny.toml's flows start uniformly in [0, 1) s and need one handshake (at least the
    # 14 ms base RTT of its 1 ms + 5 ms + 1 ms path) before data.
    for f in r.summary["flows"]:
        assert f["startup_s"] >= 0.014, f
    r = sluice.run(tiny_path, overrides={"duration": "2s", "monitor.efficiency": "retx"})
    assert r.summary["options"]["efficiency"] == "retx"
    assert all(f["efficiency"] == f["efficiency_retx"] for f in r.summary["flows"])


def test_flow_samples_table(tiny_path: Path, tmp_path: Path) -> None:
    # 5 s with a 1 s warm-up, sampled every 500 ms: 8 intervals for each of the 2 flows.
    r = sluice.run(tiny_path, overrides={"monitor.flow_sample": "500ms"})
    t = r.tables["flow_samples"]
    assert list(t.columns) == ["t_s", "flow", "bytes", "throughput_bps", "data_dir_lost", "triple_dupacks"]
    assert len(t) == 16
    # The per-interval losses add up to the flows' data-direction losses in the window.
    lost = t.groupby("flow")["data_dir_lost"].sum()
    assert [int(lost[f["id"]]) for f in r.summary["flows"]] == [f["data_dir_packets_lost"] for f in r.summary["flows"]]
    assert sorted(set(t["t_s"])) == [1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0]
    assert (t["throughput_bps"] == t["bytes"] * 8 / 0.5).all()
    paths = r.save(tmp_path)
    assert tmp_path / "flow_samples.parquet" in paths
    back = pd.read_parquet(tmp_path / "flow_samples.parquet")
    assert back.equals(t)
    assert "flow_samples" not in sluice.run(tiny_path, overrides={"duration": "2s"}).tables
