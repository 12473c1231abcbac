"""Sweeps on a Dask cluster: a real distributed.LocalCluster with two worker processes gives the
summaries of a local sweep (apart from wall_time_s), and only the client writes results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sluice import sweep

distributed = pytest.importorskip("distributed")


def summaries(results: Path) -> dict[str, dict[str, object]]:
    out = {}
    for d in sorted((results / "runs").iterdir()):
        s = json.loads((d / "summary.json").read_text())
        s.pop("wall_time_s")
        out[d.name] = s
    return out


def test_local_cluster_gives_the_local_sweeps_summaries(tmp_path: Path, tiny_text: str) -> None:
    (tmp_path / "tiny.toml").write_text(tiny_text)
    (tmp_path / "s.toml").write_text('name = "d"\nscenarios = ["tiny.toml"]\nseeds = 6\n')
    local = sweep.run(tmp_path / "s.toml", tmp_path / "local", workers=2)
    assert [o.status for o in local.outcomes] == ["done"] * 6

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=50) as cluster:
        with distributed.Client(cluster) as client:
            pids = set(client.run(lambda: __import__("os").getpid()).values())
            assert len(pids) == 2
            remote = sweep.run(tmp_path / "s.toml", tmp_path / "dask", scheduler=client)
            # a rerun is all cache
            again = sweep.run(tmp_path / "s.toml", tmp_path / "dask", scheduler=client)
            # by address, as `sluice sweep --scheduler ADDR` does
            (tmp_path / "two.toml").write_text('name = "d2"\nscenarios = ["tiny.toml"]\nseeds = [2, 5]\n')
            by_addr = sweep.run(tmp_path / "two.toml", tmp_path / "addr", scheduler=cluster.scheduler_address)
    assert [o.status for o in remote.outcomes] == ["done"] * 6
    assert [o.status for o in again.outcomes] == ["cached"] * 6
    assert [o.status for o in by_addr.outcomes] == ["done"] * 2
    a, b = summaries(tmp_path / "local"), summaries(tmp_path / "dask")
    assert len(a) == 6 and a == b
    c = summaries(tmp_path / "addr")
    assert sorted(c) == sorted(k for k in a if k.endswith(("-2", "-5"))) and all(c[k] == a[k] for k in c)
    # the runs really differ by seed (the comparison is not between identical files)
    assert len({json.dumps(s, sort_keys=True) for s in a.values()}) == 6
    for name in ("flows", "queues", "queue_samples"):
        assert all((tmp_path / "dask" / "runs" / r / f"{name}.parquet").stat().st_size > 0 for r in b)
