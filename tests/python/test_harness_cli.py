"""The harness commands: sluice sweep, sluice calibrate, sluice report (typer's CliRunner)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sluice.cli import app

runner = CliRunner()


def one_error_line(stderr: str) -> str:
    lines = [l for l in stderr.splitlines() if l.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in stderr
    return lines[0]


@pytest.mark.parametrize("command", [["sweep"], ["calibrate"], ["report"]])
def test_help_has_an_example(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Example" in result.stdout and f"sluice {command[0]} " in result.stdout


def test_sweep_then_report_gives_one_self_contained_html(tmp_path: Path, tiny_text: str) -> None:
    (tmp_path / "tiny.toml").write_text(tiny_text)
    (tmp_path / "s.toml").write_text('name = "s"\nscenarios = ["tiny.toml"]\nseeds = 3\n')
    results = tmp_path / "res"
    r = runner.invoke(app, ["sweep", str(tmp_path / "s.toml"), "--results", str(results), "--workers", "2"])
    assert r.exit_code == 0, r.output
    assert "means over seeds" in r.stdout and "3 cells (0 from earlier runs)" in r.stderr
    again = runner.invoke(app, ["sweep", str(tmp_path / "s.toml"), "--results", str(results)])
    assert again.exit_code == 0 and "3 cells (3 from earlier runs)" in again.stderr

    out = tmp_path / "report.html"
    (tmp_path / "tiny.toml").rename(tmp_path / "moved.toml")  # the report uses the texts that ran
    rep = runner.invoke(app, ["report", str(results), "-o", str(out)])
    assert rep.exit_code == 0, rep.output
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    # self-contained: no link, script or image from elsewhere
    assert not re.search(r'(src|href)="(?!data:)', page)
    imgs = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(imgs) >= 5
    assert all(base64.b64decode(i).startswith(b"\x89PNG") for i in imgs)
    assert "sluice sweep " in page and "--results" in page  # the command to rerun
    assert 'name = &quot;tiny&quot;' in page  # the scenario text
    assert "seeds 1, 2, 3" in page


def test_sweep_bad_file_is_one_line_exit_2(tmp_path: Path, tiny_text: str) -> None:
    (tmp_path / "tiny.toml").write_text(tiny_text)
    (tmp_path / "s.toml").write_text('scenarios = ["tiny.toml"]\n[axes]\nflows = [9, 90, "x"]\n')
    r = runner.invoke(app, ["sweep", str(tmp_path / "s.toml"), "--results", str(tmp_path / "r")])
    assert r.exit_code == 2
    line = one_error_line(r.stderr)
    assert line.endswith('axes.flows[2]: expected an integer, got a string ("x")')
    assert not (tmp_path / "r").exists()


def test_sweep_refuses_results_of_another_version(tmp_path: Path, tiny_text: str) -> None:
    (tmp_path / "tiny.toml").write_text(tiny_text)
    (tmp_path / "s.toml").write_text('scenarios = ["tiny.toml"]\n')
    old = tmp_path / "old"
    old.mkdir()
    (old / "sluice-results.json").write_text(json.dumps({"format": 1, "sluice_version": "0.0.1"}))
    r = runner.invoke(app, ["sweep", str(tmp_path / "s.toml"), "--results", str(old)])
    assert r.exit_code == 2
    assert "written by sluice 0.0.1" in one_error_line(r.stderr)


def test_report_of_a_directory_that_is_no_results_dir(tmp_path: Path) -> None:
    r = runner.invoke(app, ["report", str(tmp_path), "-o", str(tmp_path / "x.html")])
    assert r.exit_code == 2
    assert "not a sluice results directory" in one_error_line(r.stderr)


def test_calibrate_bad_levels_is_one_line(tiny_path: Path) -> None:
    r = runner.invoke(app, ["calibrate", str(tiny_path), "--levels", "mild:0.1"])
    assert r.exit_code == 2
    assert "--levels" in one_error_line(r.stderr)


def test_ctrl_c_stops_a_sweep_with_exit_130_and_nothing_half_written(tmp_path: Path, tiny_text: str) -> None:
    import signal
    import subprocess
    import sys
    import time

    (tmp_path / "tiny.toml").write_text(tiny_text.replace('duration = "5s"', 'duration = "40s"'))
    (tmp_path / "s.toml").write_text('scenarios = ["tiny.toml"]\nseeds = 60\n')
    results = tmp_path / "res"
    cmd = [sys.executable, "-m", "sluice", "sweep", str(tmp_path / "s.toml"), "--results", str(results), "--workers", "2"]
    # The child restores SIGINT's default (a shell starts background jobs with it ignored; see
    # test_cli.py's Ctrl-C test).
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    manifest = results / "manifest.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if manifest.exists() and manifest.read_text().count("\n") >= 3:
            break
        time.sleep(0.005)
    assert proc.poll() is None, "the sweep ended before Ctrl-C"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    line = one_error_line(err)
    assert "interrupted" in line and "rerun the same command to continue" in line
    lines = [json.loads(l) for l in manifest.read_text().splitlines()]
    assert 3 <= len(lines) < 60
    runs = sorted(p.name for p in (results / "runs").iterdir())
    assert runs == sorted(l["run"] for l in lines)  # no temporary or unrecorded run directory


def test_calibrate_prints_steps_and_counts(tiny_path: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["calibrate", str(tiny_path), "--seeds", "2", "--max", "32", "--set", "topology.queue.limit=8pkt",
                            "--levels", "mild=0.1,heavy=1", "--results", str(tmp_path / "cal")])
    assert r.exit_code == 0, r.output
    assert re.search(r"mild \(≥ 0.1\) bracket n=1: [0-9.e-]+ [<≥] 0.1", r.stderr)
    out = r.stdout.splitlines()
    assert out[0].startswith(f"{tiny_path} (topology.queue.limit=8pkt; mean over seeds 1..2)")
    assert re.match(r"  mild +loss ≥ 0.1 %: (flows\[0\]\.count = \d+|not reached up to 32)  \(\d+ steps\)", out[1])
    assert out[2].lstrip().startswith("heavy")
    # the runs are kept: a second calibration computes nothing new
    lines = (tmp_path / "cal" / "manifest.jsonl").read_text().count("\n")
    again = runner.invoke(app, ["calibrate", str(tiny_path), "--seeds", "2", "--max", "32", "--set", "topology.queue.limit=8pkt",
                                "--levels", "mild=0.1,heavy=1", "--results", str(tmp_path / "cal")])
    assert again.stdout == r.stdout
    assert (tmp_path / "cal" / "manifest.jsonl").read_text().count("\n") == lines


def test_bad_scheduler_address_is_one_line(tmp_path: Path, tiny_text: str) -> None:
    (tmp_path / "tiny.toml").write_text(tiny_text)
    (tmp_path / "s.toml").write_text('scenarios = ["tiny.toml"]\n')
    r = runner.invoke(app, ["sweep", str(tmp_path / "s.toml"), "--results", str(tmp_path / "r"), "--scheduler", "nope://127.0.0.1:9"])
    assert r.exit_code == 2
    assert one_error_line(r.stderr).startswith("error: --scheduler nope://127.0.0.1:9: unknown address scheme 'nope'")
