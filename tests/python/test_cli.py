"""The `sluice` command line, through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sluice.cli import app

runner = CliRunner()


def test_run_writes_summary_parquet_and_figure(tiny_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(tiny_path), "--seed", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 3 and summary["scenario"] == "tiny"
    for name in ("flows", "queues", "queue_samples"):
        assert (out / f"{name}.parquet").stat().st_size > 0
    png = (out / "overview.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    # the readable summary
    assert "Flows" in result.stdout and "Queues" in result.stdout
    assert "Jain" in result.stdout and "events/s" in result.stdout


def test_run_summary_option_and_no_figure(tiny_path: Path, tmp_path: Path) -> None:
    summary = tmp_path / "s" / "out.json"
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["run", str(tiny_path), "--summary", str(summary), "--out", str(out), "--no-figure"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(summary.read_text())["scenario"] == "tiny"
    assert not (out / "overview.png").exists()
    assert (out / "flows.parquet").exists()


def test_run_without_out_writes_nothing(tiny_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["run", str(tiny_path)])
    assert result.exit_code == 0, result.output
    assert list(tmp_path.iterdir()) == []


def one_error_line(stderr: str) -> str:
    lines = [l for l in stderr.splitlines() if l.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in stderr
    return lines[0]


def test_validate_bad_scenario_exits_2_with_one_line(tiny_text: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(tiny_text.replace('rate = "10Mbps"', 'rate = "10 megabits"'))
    result = runner.invoke(app, ["validate", str(bad)])
    assert result.exit_code == 2
    line = one_error_line(result.stderr)
    assert "10 megabits" in line
    assert result.stdout == ""


def test_validate_reports_the_field_path(tiny_text: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(tiny_text.replace('kind = "dumbbell"', 'kind = "dumbel"'))
    result = runner.invoke(app, ["validate", str(bad)])
    assert result.exit_code == 2
    assert one_error_line(result.stderr).startswith("error: topology.kind: ")


def test_validate_good_scenario(tiny_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(tiny_path)])
    assert result.exit_code == 0, result.output
    assert "ok" in result.stdout


def test_validate_explain_prints_each_queue_with_its_parameters(tiny_path: Path) -> None:
    result = runner.invoke(app, ["validate", "--explain", str(tiny_path)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ok: ")
    # The bottleneck alone, then the default 100,000-packet queues grouped: 2 pairs give 4
    # access links (8 queues) plus B->A, 9 in all.
    assert "A->B: drop_tail limit=50pkt" in lines
    grouped = [ln for ln in lines if ln.endswith(": drop_tail limit=100000pkt")]
    assert len(grouped) == 1 and grouped[0].endswith("and 6 more: drop_tail limit=100000pkt"), lines
    assert len(lines) == 3, lines


def test_validate_explain_fills_in_defaults(tiny_text: str, tmp_path: Path) -> None:
    # Under the tiny scenario's ns3.44 profile, CoDel takes ns-3's byte limit and arithmetic.
    p = tmp_path / "codel.toml"
    p.write_text(tiny_text.replace('queue = { kind = "drop_tail", limit = "50pkt" }', 'queue = { kind = "codel", target = "2ms" }'))
    result = runner.invoke(app, ["validate", "--explain", str(p)])
    assert result.exit_code == 0, result.output
    assert "A->B: codel arith=ns3 ecn=false interval=100ms limit=1500000B mtu=1500 target=2ms" in result.stdout.splitlines()


def test_explain_lists_every_queue(tiny_path: Path) -> None:
    from sluice import api

    queues = api.explain(tiny_path)
    assert len(queues) == 10  # 5 links, two directions each
    assert {"name": "A->B", "params": {"kind": "drop_tail", "limit": "50pkt"}} in queues


@pytest.mark.parametrize("command", ["run", "validate"])
def test_missing_file_is_one_line(command: str, tmp_path: Path) -> None:
    result = runner.invoke(app, [command, str(tmp_path / "nope.toml")])
    assert result.exit_code == 2
    assert "nope.toml" in one_error_line(result.stderr)


def test_run_bad_scenario_is_one_line(tiny_text: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(tiny_text.replace('dst = "receivers"', 'dst = "nowhere"'))
    result = runner.invoke(app, ["run", str(bad), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert one_error_line(result.stderr).startswith("error: flows[0].dst: ")
    assert not (tmp_path / "o" / "summary.json").exists()


@pytest.mark.parametrize(
    "args",
    [["run"], ["run", "x.toml", "--seed", "-1"], ["run", "x.toml", "--seed", "abc"], ["frob"],
     ["run", "x.toml", "--bogus"]],
)
def test_usage_errors_are_one_line(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    one_error_line(result.stderr)


@pytest.mark.parametrize("command", [[], ["run"], ["validate"], ["version"]])
def test_help_has_an_example(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.stdout
    assert "Example" in result.stdout
    assert "sluice" in result.stdout


def test_version_command() -> None:
    import sluice

    result = runner.invoke(app, ["version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"sluice {sluice.__version__}"


def test_unwritable_out_dir_exits_1(tiny_path: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = runner.invoke(app, ["run", str(tiny_path), "--out", str(blocker)])
    assert result.exit_code == 1
    assert str(blocker) in one_error_line(result.stderr)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--out", "{f}"], "a file of that name exists; --out takes a directory"),
        (["--out", "{f}/sub"], "is not a directory"),
        (["--summary", "{d}"], "is a directory; --summary takes a file name"),
        (["--summary", "{f}/s.json"], "is not a directory"),
    ],
)
def test_bad_output_paths_fail_before_the_run(tiny_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], says: str) -> None:
    # A long run must not be lost to an output path that could never be written: the paths are
    # checked first, and the simulation never starts.
    import sluice.api

    def must_not_run(*_: object, **__: object) -> None:
        raise AssertionError("the run started")

    monkeypatch.setattr(sluice.api, "run", must_not_run)
    f = tmp_path / "a-file"
    f.write_text("")
    d = tmp_path / "a-dir"
    d.mkdir()
    result = runner.invoke(app, ["run", str(tiny_path), *[a.format(f=f, d=d) for a in args]])
    assert result.exit_code == 1, result.output
    assert says in one_error_line(result.stderr)


def test_simulation_panic_exits_3_with_reproduce_command(
    tiny_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sluice.api
    from sluice import _sluice

    def panicking_run(scenario: object, seed: int | None = None, out_dir: object = None, progress: object = None) -> None:
        text, source = sluice.api.read_scenario(scenario)  # type: ignore[arg-type]
        _sluice._panic_for_test(text, seed, source=source)

    monkeypatch.setattr(sluice.api, "run", panicking_run)
    result = runner.invoke(app, ["run", str(tiny_path), "--seed", "4"])
    assert result.exit_code == 3
    line = one_error_line(result.stderr)
    assert f"sluice run {tiny_path} --seed 4" in line


def test_run_warns_about_failed_connections(tiny_text: str, tmp_path: Path) -> None:
    # Almost every packet on the bottleneck is lost: after one SYN retry (1 s, then 2 s) the
    # handshake gives up within the 5 s run.
    tcp = 'validate = "ns3.44"\nsyn_retries = 1\nsyn_rto = "rfc6298"'
    text = tiny_text.replace('validate = "ns3.44"', tcp).replace('delay = "5ms" }', 'delay = "5ms", loss = 0.9999 }')
    path = tmp_path / "lossy.toml"
    path.write_text(text)
    result = runner.invoke(app, ["run", str(path), "--summary", str(tmp_path / "s.json"), "--no-figure"])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "s.json").read_text())
    assert [f["tcp_state"] for f in summary["flows"]] == ["failed", "failed"]
    assert "flow 0: the handshake failed" in result.stdout and "flow 1:" in result.stdout


def test_ctrl_c_exits_130_with_how_far_the_run_got(tiny_text: str, tmp_path: Path) -> None:
    # A real process and a real SIGINT, once the simulation is under way.
    import signal
    import subprocess
    import sys
    import time

    scen = tmp_path / "long.toml"
    scen.write_text(tiny_text.replace('duration = "5s"', 'duration = "20000s"'))
    out = tmp_path / "out"
    # The child restores SIGINT's default: a shell starts background jobs (a CI runner's, say)
    # with SIGINT ignored, and Python then leaves Ctrl-C ignored, as it should for the user.
    proc = subprocess.Popen(
        [sys.executable, "-m", "sluice", "run", str(scen), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(4.0)  # imports, then the run
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "interrupted at" in lines[0] and "of 20,000 s simulated" in lines[0], err
    assert not out.exists(), "nothing written"


MANY = """name = "many"
duration = "3s"
warmup = "1s"
seed = 4
[tcp]
{profile}
[topology]
kind = "dumbbell"
pairs = 25
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck = {{ rate = "5Mbps", delay = "5ms" }}
queue = {{ kind = "drop_tail", limit = "20pkt" }}
[[flows]]
count = 25
src = "senders"
dst = "receivers"
app = {{ kind = "bulk" }}
start = {{ uniform = ["0s", "0.5s"] }}
"""

FLOW_ROW = r"^\s*(\d+)\s+s\d+->r\d+\s"


def run_many(tmp_path: Path, profile: str, *extra: str) -> tuple[str, dict]:
    scen = tmp_path / "many.toml"
    scen.write_text(MANY.format(profile=profile))
    summary = tmp_path / "many.json"
    result = runner.invoke(app, ["run", str(scen), "--summary", str(summary), *extra])
    assert result.exit_code == 0, result.output
    return result.stdout, json.loads(summary.read_text())


def test_many_flows_print_the_first_rows_and_a_distribution(tmp_path: Path) -> None:
    import re

    from sluice.cli import FLOW_ROWS

    out, s = run_many(tmp_path, "")
    ids = [int(m.group(1)) for m in re.finditer(FLOW_ROW, out, re.M)]
    assert ids == list(range(FLOW_ROWS))  # 0..19 of 25
    assert f"... {25 - FLOW_ROWS:,} more flows not shown" in out
    assert f'{tmp_path / "many.json"} ("flows")' in out  # where the whole table is
    assert "--all-flows" in out
    # The default profile headlines payload received: min / median / max over all 25 flows
    # (the 13th of 25 sorted values is the median), its Jain index, flows with RTOs.
    rates = sorted(f["received_bps"] / 1e6 for f in s["flows"])
    rtos = sum(1 for f in s["flows"] if f["rto_count"] > 0)
    line = (f"25 flows, received Mbps min {rates[0]:.3f} / median {rates[12]:.3f} / max {rates[-1]:.3f}; "
            f"Jain {s['jain_received']:.4f}; {rtos} flows with RTOs")
    assert line in out, out
    assert out.index("rcvd Mbps") < out.index("goodput Mbps")
    assert out.index("aggregate received Mbps") < out.index("aggregate goodput Mbps")


def test_all_flows_prints_every_row(tmp_path: Path) -> None:
    import re

    out, _ = run_many(tmp_path, "", "--all-flows")
    assert [int(m.group(1)) for m in re.finditer(FLOW_ROW, out, re.M)] == list(range(25))
    assert "more flows not shown" not in out


def test_truncated_table_names_the_parquet_file(tmp_path: Path) -> None:
    import pandas as pd

    out_dir = tmp_path / "out"
    out, _ = run_many(tmp_path, "", "--out", str(out_dir), "--no-figure")
    assert f"the full table is in {out_dir / 'flows.parquet'}" in out
    assert len(pd.read_parquet(out_dir / "flows.parquet")) == 25


def test_ns3_profile_headlines_goodput(tmp_path: Path) -> None:
    out, s = run_many(tmp_path, 'validate = "ns3.44"')
    rates = sorted(f["goodput_bps"] / 1e6 for f in s["flows"])
    assert f"25 flows, goodput Mbps min {rates[0]:.3f} / median {rates[12]:.3f} / max {rates[-1]:.3f}; Jain {s['jain_goodput']:.4f};" in out
    assert out.index("goodput Mbps") < out.index("rcvd Mbps")
    assert out.index("aggregate goodput Mbps") < out.index("aggregate received Mbps")


def test_goodput_above_received_is_explained(tmp_path: Path) -> None:
    # Nearly 2,000 flows in the heavy-congestion case of test_properties.py, where goodput
    # (199.6 Mb/s) exceeds both received (192.7) and what the link can carry (192.8).
    from test_properties import heavy_text

    scen = tmp_path / "heavy.toml"
    scen.write_text(heavy_text(2000, 200, 400, 4, 3, "", 1, 5, 3))
    result = runner.invoke(app, ["run", str(scen)])
    assert result.exit_code == 0, result.output
    assert "goodput exceeds received by" in result.stdout
    assert "reassembly buffers" in result.stdout
    assert len(result.stdout.splitlines()) < 60  # not 2,000 rows
