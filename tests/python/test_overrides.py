"""Overrides (``sluice.run(..., overrides=...)``, ``--set``) and ``sluice.resolve``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import sluice
from sluice import _sluice
from sluice.cli import app

runner = CliRunner()


def test_overrides_change_what_runs(tiny_text: str) -> None:
    # tiny.toml runs 2 flows; count = 3 on its one [[flows]] entry runs 3, on 2 pairs.
    r = sluice.run(tiny_text, overrides={"flows[0].count": 3, "duration": "2s", "warmup": "0s"})
    assert len(r.flows) == 3
    assert r.summary["sim_time_s"] == 2.0
    # A nested table as a dict, a list as a list.
    r = sluice.run(
        tiny_text,
        overrides={
            "duration": "2s",
            "topology.queue": {"kind": "drop_tail", "limit": "7pkt"},
            "flows[0].start": ["0s", "0.5s"],
        },
    )
    assert r.summary["queues"][0]["limit"] == "7pkt"
    assert sorted(r.flows["start_s"]) == [0.0, 0.5]


def test_an_override_error_names_the_field_and_the_file(tiny_path: Path, tiny_text: str) -> None:
    with pytest.raises(sluice.ScenarioError) as info:
        sluice.validate(tiny_path, overrides={"flows[0].count": 0})
    assert info.value.path == "flows[0].count"
    assert str(info.value) == f"{tiny_path}: flows[0].count: must be at least 1"
    # TOML text has no file to name.
    with pytest.raises(sluice.ScenarioError) as info:
        sluice.validate(tiny_text, overrides={"flows[0].count": 0})
    assert str(info.value) == "flows[0].count: must be at least 1"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("flows[1].count", "override: index 1 is past the end of `flows` (1 entry)"),
        ("name.first", "override: `name` is a string, not a table"),
        ("topology.pairs[0]", "override: `topology.pairs` is an integer, not an array"),
    ],
)
def test_bad_override_paths_fail_naming_the_override(tiny_text: str, path: str, message: str) -> None:
    for call in (sluice.run, sluice.validate, sluice.resolve):
        with pytest.raises(sluice.ScenarioError) as info:
            call(tiny_text, overrides={path: 1})
        assert (info.value.path, str(info.value)) == (path, f"{path}: {message}")


def test_a_misspelt_override_is_the_schemas_unknown_field(tiny_text: str) -> None:
    with pytest.raises(sluice.ScenarioError) as info:
        sluice.validate(tiny_text, overrides={"topology.queue.limt": "5pkt"})
    assert info.value.path == "topology.queue.limt"
    assert 'unknown field for kind "drop_tail"; its fields: `limit`' in str(info.value)


def test_override_values_must_be_toml_values(tiny_text: str) -> None:
    for value in (None, object(), {1: "x"}, 2**70):
        with pytest.raises(TypeError, match=r'overrides\["duration"\]'):
            sluice.validate(tiny_text, overrides={"duration": value})
    with pytest.raises(TypeError, match="mapping"):
        sluice.validate(tiny_text, overrides=[("duration", "1s")])  # type: ignore[arg-type]


def test_parse_set_reads_toml_values_or_strings() -> None:
    assert _sluice.parse_set("flows[0].count=90") == ("flows[0].count", 90)
    assert _sluice.parse_set("topology.queue.kind=drop_tail") == ("topology.queue.kind", "drop_tail")
    assert _sluice.parse_set('name="a=b"') == ("name", "a=b")
    assert _sluice.parse_set("x=0.5") == ("x", 0.5)
    assert _sluice.parse_set("x=true") == ("x", True)
    assert _sluice.parse_set("x=[1, 2]") == ("x", [1, 2])
    assert _sluice.parse_set('q={ kind = "drop_tail", limit = "20pkt" }') == ("q", {"kind": "drop_tail", "limit": "20pkt"})
    for bad in ("novalue", "a..b=1", "a[x]=1"):
        with pytest.raises(ValueError):
            _sluice.parse_set(bad)


# ----- resolve -----

REORDERED = """
# tiny.toml with its keys in another order, comments, and defaults spelt out
warmup = "1000ms"    # = 1s
seed = 99
duration = "5s"
name = "tiny"

[[flows]]
start = { uniform = ["0s", "1000ms"] }
app = { kind = "bulk" }
dst = "receivers"
src = "senders"
count = 2

[topology]
queue = { limit = "50pkt", kind = "drop_tail" }
bottleneck = { delay = "5ms", rate = "10Mbps" }
access_delay = "1ms"
access_rate = "100Mbps"
pairs = 2
kind = "dumbbell"
device_queue = 1

[tcp]
rcv_buf = "1MiB"
snd_buf = "1048576B"
validate = "ns3.44"

[monitor]
queue_sample = "10ms"
"""


def test_resolve_returns_the_defaulted_model_and_its_hash(tiny_path: Path) -> None:
    model, model_hash = sluice.resolve(tiny_path)
    assert len(model_hash) == 64 and int(model_hash, 16) >= 0
    assert model["seed"] == 1 and model["duration"] == "5s"
    assert [f["name"] for f in model["flows"]] == ["f00", "f01"]
    # Defaults filled in: the ns3.44 profile's TCP options, the monitor's sampling interval.
    tcp = model["flows"][0]["tcp"]
    assert (tcp["mss"], tcp["rcv_buf"], tcp["profile"]) == (1448, 1048576, "ns3.44")
    assert model["monitor"]["queue_sample"] == "10ms"
    r = sluice.resolve(tiny_path, seed=5)
    assert isinstance(r, sluice.Resolved)
    assert (r.model["seed"], r.model_hash) == (5, model_hash)


def test_model_hash_ignores_spelling_and_seed(tiny_text: str) -> None:
    h = sluice.resolve(tiny_text).model_hash
    assert sluice.resolve(REORDERED).model_hash == h
    assert sluice.resolve(tiny_text, seed=12345).model_hash == h
    assert sluice.resolve(tiny_text, overrides={"seed": 7}).model_hash == h
    assert sluice.resolve(tiny_text, overrides={"flows[0].count": 2}).model_hash == h


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("duration", "6s"),
        ("topology.bottleneck.rate", "10000001bps"),
        ("topology.queue.limit", "49pkt"),
        ("flows[0].count", 3),
        ("tcp.sack", False),
        ("flows[0].app", {"kind": "file", "size": "1MB"}),
        ("monitor.queue_sample", "1ms"),
    ],
)
def test_model_hash_changes_with_a_parameter(tiny_text: str, path: str, value: object) -> None:
    assert sluice.resolve(tiny_text, overrides={path: value}).model_hash != sluice.resolve(tiny_text).model_hash


def test_model_hash_is_the_same_in_another_process(tiny_path: Path) -> None:
    code = "import sys, sluice; print(sluice.resolve(sys.argv[1]).model_hash)"
    hashes = {
        subprocess.run([sys.executable, "-c", code, str(tiny_path)], capture_output=True, text=True, check=True).stdout.strip()
        for _ in range(2)
    }
    assert hashes == {sluice.resolve(tiny_path).model_hash}


# ----- the command line -----


def test_cli_set_changes_the_run(tiny_path: Path, tmp_path: Path) -> None:
    summary = tmp_path / "s.json"
    args = ["run", str(tiny_path), "--set", "flows[0].count=3", "--set", "duration=2s", "--summary", str(summary)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    s = json.loads(summary.read_text())
    assert (len(s["flows"]), s["sim_time_s"]) == (3, 2.0)


def test_cli_validate_set_errors_are_one_line(tiny_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(tiny_path), "--set", "topology.queue.kind=pei"])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith(f"error: {tiny_path}: topology.queue.kind: unknown kind `pei`, expected one of `drop_tail`")
    result = runner.invoke(app, ["validate", str(tiny_path), "--set", "flows[4].count=1"])
    assert result.exit_code == 2
    assert "flows[4].count: override: index 4 is past the end of `flows` (1 entry)" in result.stderr
    result = runner.invoke(app, ["validate", str(tiny_path), "--set", "duration"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --set") and "PATH=VALUE" in result.stderr
    result = runner.invoke(app, ["validate", str(tiny_path), "--set", "topology.queue.limit=20pkt"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("command", ["run", "validate"])
def test_cli_help_shows_set_with_an_example(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "--set" in text and "PATH=VALUE" in text
    assert "--set topology.queue" in text


def test_a_panic_reproduces_with_the_overrides(tiny_text: str) -> None:
    with pytest.raises(sluice.SimulationPanic) as info:
        _sluice._panic_for_test(tiny_text, 5, source="tiny.toml", overrides={"flows[0].count": 3, "name": "it's"})
    assert info.value.reproduce == "sluice run tiny.toml --seed 5 --set 'flows[0].count=3' --set 'name=\"it'\\''s\"'"
    assert info.value.scenario == "it's"
