"""sluice.sweep: the sweep file, the results directory (cache, manifest, resume) and running."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from sluice import sweep
from sluice.errors import SimulationPanic


def write_sweep(tmp_path: Path, tiny_text: str, body: str, scenario_text: str | None = None) -> Path:
    (tmp_path / "tiny.toml").write_text(scenario_text or tiny_text)
    path = tmp_path / "study.toml"
    path.write_text(body)
    return path


def manifest(results: Path) -> list[dict[str, Any]]:
    return [json.loads(l) for l in (results / "manifest.jsonl").read_text().splitlines() if l.strip()]


# ---------------------------------------------------------------------------------- the file


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('scenarios = ["tiny.toml"]\n[axes]\nflows = [9, 90, "x"]\n',
         'study.toml: axes.flows[2]: expected an integer, got a string ("x")'),
        ('scenarios = ["tiny.toml"]\n[axes]\nflows = [9, 0]\n', "study.toml: axes.flows[1]: expected an integer ≥ 1, got 0"),
        ('scenarios = ["tiny.toml"]\n[axes]\nqueue = [1]\n', "study.toml: axes.queue[0]: expected a string, got an integer (1)"),
        ('scenarios = ["tiny.toml"]\nseeds = 0\n', "study.toml: seeds: expected an integer ≥ 1, got 0"),
        ('scenarios = ["tiny.toml"]\nseeds = [1, "2"]\n', 'study.toml: seeds[1]: expected an integer, got a string ("2")'),
        ('scenarios = ["tiny.toml"]\nseed = 3\n', "study.toml: seed: unknown field, expected one of format, name,"),
        ('seeds = 3\n', "study.toml: scenarios: missing"),
        ('scenarios = ["nope.toml"]\n', "study.toml: scenarios[0]: cannot read"),
        ('scenarios = ["tiny.toml"]\n[axes]\nbogus = [1]\n', "study.toml: axes.bogus: not a known axis"),
        ('scenarios = ["tiny.toml"]\n[axes.buffer]\npath = "topology.queue.limit"\nvalues = ["5pkt", "9pkt"]\nlabels = ["a"]\n',
         "study.toml: axes.buffer.labels: expected 2 labels (one per value), got 1"),
        ('scenarios = ["tiny.toml"]\n[calibrate]\nper = ["buffer"]\n', 'study.toml: calibrate.per[0]: no axis named "buffer"'),
        ('scenarios = ["tiny.toml"]\n[calibrate]\nmetric = "speed"\n', 'study.toml: calibrate.metric: unknown metric "speed"'),
        ('scenarios = ["tiny.toml"]\n[axes]\nlevel = [1]\n', "study.toml: axes.level: not a known axis"),
    ],
)
def test_sweep_file_errors_name_the_field(tmp_path: Path, tiny_text: str, body: str, message: str) -> None:
    path = write_sweep(tmp_path, tiny_text, body)
    with pytest.raises(sweep.SweepError) as e:
        sweep.load_sweep(path)
    text = str(e.value).replace(str(tmp_path) + os.sep, "")
    assert text.startswith(message), text
    assert "\n" not in text


def test_quick_needs_a_quick_table(tmp_path: Path, tiny_text: str) -> None:
    path = write_sweep(tmp_path, tiny_text, 'scenarios = ["tiny.toml"]\n')
    with pytest.raises(sweep.SweepError, match="quick: missing"):
        sweep.load_sweep(path, quick=True)


def test_axes_cells_and_quick(tmp_path: Path, tiny_text: str) -> None:
    body = """
name = "demo"
scenarios = ["tiny.toml"]
seeds = 3
set = { "tcp.sack" = false }

[axes]
flows = [2, 4]
buffer = { path = "topology.queue.limit", values = ["10pkt", "20pkt", "40pkt"], labels = ["small", "mid", "big"] }
method = { values = [{ "topology.queue.kind" = "drop_tail" }, { "topology.queue.kind" = "drop_tail", "tcp.ecn" = true }], labels = ["dt", "dt-ecn"] }

[quick]
seeds = [7]
set = { duration = "2s" }
axes = { buffer = ["20pkt"] }
"""
    path = write_sweep(tmp_path, tiny_text, body)
    sw = sweep.load_sweep(path)
    cells = sw.cells()
    assert len(cells) == 2 * 3 * 2 * 3
    c = cells[0]
    assert c.overrides == {"tcp.sack": False, "flows[0].count": 2, "topology.queue.limit": "10pkt",
                           "topology.queue.kind": "drop_tail"}
    assert c.labels == {"flows": "2", "buffer": "small", "method": "dt"} and c.seed == 1
    assert [x.seed for x in cells[:3]] == [1, 2, 3]  # seeds innermost
    assert cells[-1].overrides["tcp.ecn"] is True and cells[-1].labels["buffer"] == "big"

    q = sweep.load_sweep(path, quick=True)
    qc = q.cells()
    assert len(qc) == 2 * 1 * 2 * 1
    assert {x.seed for x in qc} == {7}
    assert qc[0].overrides["duration"] == "2s"
    assert qc[0].labels["buffer"] == "mid"  # the full axis's label for the same value


def test_reproduce_command_gives_overrides_as_toml(tiny_text: str) -> None:
    sc = sweep.ScenarioRef("t", "dir/t.toml", tiny_text)
    cell = sweep.Cell(sc, {"flows[0].count": 9, "topology.queue.limit": "10pkt", "tcp.sack": False,
                           "topology.queue": {"kind": "drop_tail", "limit": "5pkt"}}, {}, 3)
    assert cell.reproduce() == (
        "sluice run dir/t.toml --seed 3 --set 'flows[0].count=9' --set 'topology.queue.limit=\"10pkt\"' "
        "--set tcp.sack=false --set 'topology.queue={ kind = \"drop_tail\", limit = \"5pkt\" }'"
    )


def test_cell_key_depends_on_text_and_overrides_not_seed(tiny_text: str) -> None:
    a = sweep.cell_key(tiny_text, {"flows[0].count": 2})
    assert a == sweep.cell_key(tiny_text, {"flows[0].count": 2})
    assert a != sweep.cell_key(tiny_text, {"flows[0].count": 3})
    assert len(a) == 64 and int(a, 16) >= 0
    # the resolved model's hash: a comment or a default spelt out changes nothing
    assert sweep.cell_key("# a comment\n" + tiny_text, {"flows[0].count": 2}) == a
    assert sweep.cell_key(tiny_text, {"flows[0].count": 2, "tcp.sack": True}) == a
    assert sweep.run_id(a, 5) == f"{a[:16]}-5"


# ----------------------------------------------------------------------------- results dir


def test_sweep_runs_every_cell_once_and_a_rerun_skips_them(tmp_path: Path, tiny_text: str) -> None:
    path = write_sweep(tmp_path, tiny_text, 'name = "seeds"\nscenarios = ["tiny.toml"]\nseeds = 4\n')
    results = tmp_path / "res"
    seen: list[tuple[int, int]] = []
    res = sweep.run(path, results, workers=2, progress=lambda d, t, o: seen.append((d, t)))
    assert [o.status for o in res.outcomes] == ["done"] * 4
    assert seen[0] == (0, 4) and seen[-1] == (4, 4)
    lines = manifest(results)
    assert sorted(l["seed"] for l in lines) == [1, 2, 3, 4]
    for l in lines:
        d = results / "runs" / l["run"]
        summary = json.loads((d / "summary.json").read_text())
        assert summary["seed"] == l["seed"] and l["status"] == "done"
        for name in ("flows", "queues", "queue_samples"):
            assert (d / f"{name}.parquet").stat().st_size > 0
        assert l["reproduce"] == f"sluice run {tmp_path / 'tiny.toml'} --seed {l['seed']}"
    assert not [p for p in (results / "runs").iterdir() if p.name.startswith(".")]

    # the summaries are those of single runs with the same seed
    import sluice

    one = sluice.run(tiny_text, seed=3).summary
    stored = json.loads((results / "runs" / res.outcomes[2].run / "summary.json").read_text())
    one.pop("wall_time_s"), stored.pop("wall_time_s")
    assert one == stored

    runs = res.runs()
    assert list(runs["seed"]) == [1, 2, 3, 4] and (runs["loss_pct"] >= 0).all()
    agg = res.aggregate(["goodput_mbps"])
    assert len(agg) == 1 and agg.loc[0, "n"] == 4
    assert agg.loc[0, "goodput_mbps"] == pytest.approx(runs["goodput_mbps"].mean())

    again = sweep.run(path, results)
    assert [o.status for o in again.outcomes] == ["cached"] * 4
    assert len(manifest(results)) == 4


def test_results_dir_of_another_version_is_refused(tmp_path: Path, tiny_text: str) -> None:
    path = write_sweep(tmp_path, tiny_text, 'scenarios = ["tiny.toml"]\n')
    old = tmp_path / "old"
    old.mkdir()
    (old / "sluice-results.json").write_text('{"format": 1, "sluice_version": "0.0.1"}')
    with pytest.raises(sweep.ResultsDirError, match="written by sluice 0.0.1, this is sluice .*not mixed"):
        sweep.run(path, old)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(sweep.ResultsDirError, match="not a sluice results directory"):
        sweep.run(path, other)
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]  # untouched


def test_failed_cell_is_recorded_with_error_and_reproduce_command(
    tmp_path: Path, tiny_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = sweep.execute

    def flaky(text: str, overrides: Any, seed: int, *a: Any, **k: Any) -> dict[str, bytes]:
        if seed == 2:
            raise SimulationPanic("simulator panicked: boom (seed 2)", "tiny", 2, "sluice run tiny.toml --seed 2")
        return real(text, overrides, seed, *a, **k)

    monkeypatch.setattr(sweep, "execute", flaky)
    path = write_sweep(tmp_path, tiny_text, 'scenarios = ["tiny.toml"]\nseeds = 3\n')
    results = tmp_path / "res"
    res = sweep.run(path, results, workers=1)
    assert [o.status for o in res.outcomes] == ["done", "failed", "done"]
    failed = [l for l in manifest(results) if l["status"] == "failed"]
    assert len(failed) == 1
    assert failed[0]["error"] == "simulator panicked: boom (seed 2)"
    assert failed[0]["error_type"] == "SimulationPanic"
    assert failed[0]["reproduce"] == f"sluice run {tmp_path / 'tiny.toml'} --seed 2"
    assert not (results / "runs" / failed[0]["run"]).exists()
    assert res.runs()["status"].tolist() == ["done", "failed", "done"]

    # a rerun keeps the failure; --retry-failed runs it again (now it works)
    monkeypatch.setattr(sweep, "execute", real)
    assert [o.status for o in sweep.run(path, results).outcomes] == ["cached", "failed", "cached"]
    assert [o.status for o in sweep.run(path, results, retry_failed=True).outcomes] == ["cached", "done", "cached"]
    assert sweep.ResultsDir(results).status(failed[0]["run"]) == "done"


def test_ctrl_c_keeps_finished_cells_and_a_rerun_finishes(tmp_path: Path, tiny_text: str) -> None:
    path = write_sweep(tmp_path, tiny_text, 'scenarios = ["tiny.toml"]\nseeds = 6\n')
    results = tmp_path / "res"

    def stop_after_two(done: int, total: int, outcome: Any) -> None:
        if done >= 2:
            raise KeyboardInterrupt

    with pytest.raises(sweep.Interrupted) as e:
        sweep.run(path, results, workers=1, progress=stop_after_two)
    assert e.value.total == 6 and 2 <= e.value.done < 6
    assert "rerun the same command to continue" in str(e.value)
    first = manifest(results)
    runs = sorted(p.name for p in (results / "runs").iterdir())
    assert runs == sorted(l["run"] for l in first)  # nothing half-written, nothing unrecorded
    res = sweep.run(path, results, workers=2)
    assert all(o.status in ("done", "cached") for o in res.outcomes)
    lines = manifest(results)
    assert sorted(l["seed"] for l in lines) == [1, 2, 3, 4, 5, 6]  # each computed exactly once


def test_run_directory_without_its_manifest_line_is_recovered(tmp_path: Path, tiny_text: str) -> None:
    path = write_sweep(tmp_path, tiny_text, 'scenarios = ["tiny.toml"]\nseeds = 2\n')
    results = tmp_path / "res"
    sweep.run(path, results)
    lines = (results / "manifest.jsonl").read_text().splitlines()
    # a crash after the rename, before the line: the line is lost (and a cut line is left)
    (results / "manifest.jsonl").write_text(lines[0] + "\n" + lines[1][:20])
    (results / "runs" / ".tmp-junk-1-1").mkdir()
    res = sweep.run(path, results)
    assert [o.status for o in res.outcomes] == ["cached", "cached"]
    recs = manifest_lenient(results)
    assert sorted(r["seed"] for r in recs) == [1, 2]
    assert any(r.get("recovered") for r in recs)
    assert not (results / "runs" / ".tmp-junk-1-1").exists()


def manifest_lenient(results: Path) -> list[dict[str, Any]]:
    out = []
    for l in (results / "manifest.jsonl").read_text().splitlines():
        try:
            out.append(json.loads(l))
        except ValueError:
            pass
    return out


def test_sigkill_midway_then_rerun_computes_every_cell_exactly_once(tmp_path: Path, tiny_text: str) -> None:
    # Runs of about 50-100 ms each, one at a time, so the kill lands in the middle of the sweep.
    long_text = tiny_text.replace('duration = "5s"', 'duration = "40s"')
    seeds = 60
    path = write_sweep(tmp_path, tiny_text, f'scenarios = ["tiny.toml"]\nseeds = {seeds}\n', long_text)
    results = tmp_path / "res"
    cmd = [sys.executable, "-m", "sluice", "sweep", str(path), "--results", str(results), "--workers", "1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    m = results / "manifest.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if m.exists() and m.read_text().count("\n") >= 5:
            break
        time.sleep(0.005)
    assert proc.poll() is None, "the sweep ended before it could be killed: " + proc.stderr.read().decode()  # type: ignore[union-attr]
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed_at = len(manifest_lenient(results))
    assert 5 <= killed_at < seeds
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    recs = manifest_lenient(results)
    assert sorted(r["seed"] for r in recs) == list(range(1, seeds + 1))
    assert all(r["status"] == "done" for r in recs)
    runs = sorted(p.name for p in (results / "runs").iterdir())
    assert runs == sorted(r["run"] for r in recs)
    for r in runs:
        assert json.loads((results / "runs" / r / "summary.json").read_text())["sim_time_s"] == 40


# ------------------------------------------------------------------------- with overrides


def test_axes_override_the_scenario(tmp_path: Path, tiny_text: str) -> None:
    body = """
scenarios = ["tiny.toml"]
seeds = [4]
[axes]
flows = [1, 3]
buffer = ["10pkt", "80pkt"]
"""
    path = write_sweep(tmp_path, tiny_text, body)
    res = sweep.run(path, tmp_path / "res", workers=2)
    assert len(res.outcomes) == 4 and all(o.status == "done" for o in res.outcomes)
    for o in res.outcomes:
        s = json.loads((tmp_path / "res" / "runs" / o.run / "summary.json").read_text())
        assert len(s["flows"]) == int(o.cell.labels["flows"])
        assert s["queues"][0]["limit"] == o.cell.labels["buffer"]
    # four different models: four keys
    assert len({o.run.split("-")[0] for o in res.outcomes}) == 4


def test_an_override_that_breaks_the_scenario_names_the_file_and_the_cell(tmp_path: Path, tiny_text: str) -> None:
    body = 'scenarios = ["tiny.toml"]\n[axes]\nflows = [2]\nbuffer = ["10pkt", "ten packets"]\n'
    path = write_sweep(tmp_path, tiny_text, body)
    with pytest.raises(sweep.SweepError) as e:
        sweep.run(path, tmp_path / "res")
    msg = str(e.value)
    assert msg.startswith(f"{tmp_path / 'tiny.toml'}, cell flows=2, buffer=ten packets: topology.queue.limit: "), msg
    assert e.value.path == "topology.queue.limit"
    assert not (tmp_path / "res").exists()  # nothing ran, nothing was made


def test_calibrated_levels_become_cells(tmp_path: Path, tiny_text: str) -> None:
    body = """
scenarios = ["tiny.toml"]
seeds = 2
[axes]
buffer = ["8pkt", "30pkt"]
[calibrate]
levels = { mild = 0.1, heavy = 1.0 }
seeds = [1, 2]
max = 32
"""
    path = write_sweep(tmp_path, tiny_text, body)
    lines: list[str] = []
    res = sweep.run(path, tmp_path / "res", log=lines.append)
    assert len(res.calibration) == 2
    for c in res.calibration:
        assert set(c.counts) == {"mild", "heavy"}
        for lvl, n in c.counts.items():
            if n is not None:
                steps = {s.n: s for s in c.steps[lvl]}
                assert steps[n].reached and (n - 1 not in steps or not steps[n - 1].reached)
    leveled = [o for o in res.outcomes if "level" in o.cell.labels]
    expected = sum(2 for c in res.calibration for n in c.counts.values() if n is not None)
    assert len(leveled) == expected > 0
    for o in leveled:
        c = next(c for c in res.calibration if c.labels["buffer"] == o.cell.labels["buffer"])
        assert o.cell.overrides["flows[0].count"] == c.counts[o.cell.labels["level"]]
    assert any("bisect" in l or "bracket" in l for l in lines)
    # the calibration's runs are cells of the results directory: a rerun computes nothing
    before = len(manifest(tmp_path / "res"))
    again = sweep.run(path, tmp_path / "res")
    assert len(manifest(tmp_path / "res")) == before
    assert [c.counts for c in again.calibration] == [c.counts for c in res.calibration]


def test_the_documented_sweep_file_parses(tmp_path: Path, tiny_text: str) -> None:
    import re

    doc = (Path(__file__).resolve().parents[2] / "docs" / "harness.md").read_text()
    example = re.search(r"```toml\n(format = 1.*?)```", doc, re.S)
    assert example is not None
    (tmp_path / "buffer-sizing-base.toml").write_text(tiny_text)
    path = tmp_path / "doc.toml"
    path.write_text(example.group(1))
    sw = sweep.load_sweep(path)
    assert [a.name for a in sw.axes] == ["flows", "tcp.cc", "buffer", "method"]
    assert sw.axes[3].values[1] == {"topology.queue.kind": "drop_tail", "tcp.ecn": True}
    assert len(sw.cells()) == 2 * 2 * 2 * 2 * 10
    q = sweep.load_sweep(path, quick=True)
    assert q.seeds == (1, 2) and q.calibrate is not None and q.calibrate.max == 64
    sweep.check_cells(sw.cells()[::10])  # the overrides fit a real scenario
