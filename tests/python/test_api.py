"""The Python API: `sluice.run` / `sluice.validate` and the summary contract (docs/summary.md)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

import sluice
from sluice import _sluice

SUMMARY_KEYS = {
    "scenario",
    "seed",
    "sim_time_s",
    "wall_time_s",
    "events",
    "flows",
    "queues",
    "jain_goodput",
    "aggregate_goodput_bps",
    "aggregate_received_bps",
    "jain_received",
}
FLOW_COLUMNS = [
    "id", "kind", "cc", "src", "dst", "start_s", "bytes_delivered", "goodput_bps",
    "bytes_received", "received_bps", "retransmitted_bytes", "lost_packets", "efficiency", "fct_s", "mean_rtt_s",
]
QUEUE_COLUMNS = [
    "name", "enqueued", "dropped", "marked", "drop_ratio", "mean_len_pkts", "std_len_pkts",
    "mean_sojourn_s",
]


def without_wall_time(summary: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in summary.items() if k != "wall_time_s"}


def test_run_returns_contract_dataframes(tiny_path: Path) -> None:
    r = sluice.run(tiny_path)
    assert SUMMARY_KEYS <= set(r.summary)
    assert r.summary["scenario"] == "tiny"
    assert r.summary["seed"] == 1
    assert isinstance(r.flows, pd.DataFrame) and isinstance(r.queues, pd.DataFrame)
    assert list(r.flows.columns[: len(FLOW_COLUMNS)]) == FLOW_COLUMNS
    assert list(r.queues.columns[: len(QUEUE_COLUMNS)]) == QUEUE_COLUMNS
    assert len(r.flows) == 2  # `count = 2`
    assert len(r.queues) >= 1
    assert (r.flows["goodput_bps"] > 0).all()
    assert r.summary["aggregate_goodput_bps"] > 0
    assert 0.0 < r.summary["jain_goodput"] <= 1.0
    assert r.summary["events"] > 0
    # the DataFrames are the summary's lists, not a recomputation
    assert r.flows["goodput_bps"].tolist() == [f["goodput_bps"] for f in r.summary["flows"]]
    assert r.flows["received_bps"].tolist() == [f["received_bps"] for f in r.summary["flows"]]
    # Aggregate received is the flows' bytes received over the 4 s window [1 s, 5 s).
    window = r.summary["sim_time_s"] - r.summary["warmup_s"]
    assert r.summary["aggregate_received_bps"] == pytest.approx(r.flows["bytes_received"].sum() * 8 / window)


def test_tables_are_dataframes(tiny_path: Path) -> None:
    r = sluice.run(tiny_path)
    samples = r.tables["queue_samples"]
    assert isinstance(samples, pd.DataFrame)
    assert {"t_s", "queue", "len_pkts", "len_bytes"} <= set(samples.columns)
    assert len(samples) > 0
    # statistics exclude the warm-up; so do the samples
    assert samples["t_s"].min() >= r.summary["warmup_s"] - 1e-9
    assert "cwnd" not in r.tables  # not traced in tiny.toml


def test_text_and_path_give_the_same_run(tiny_path: Path, tiny_text: str) -> None:
    a = sluice.run(tiny_path)
    b = sluice.run(tiny_text)
    c = sluice.run(str(tiny_path))
    assert without_wall_time(a.summary) == without_wall_time(b.summary)
    assert without_wall_time(a.summary) == without_wall_time(c.summary)


def test_same_seed_same_summary(tiny_text: str) -> None:
    # docs/summary.md: same scenario + same seed => byte-identical summary apart from wall_time_s
    a = sluice.run(tiny_text, seed=7)
    b = sluice.run(tiny_text, seed=7)
    assert without_wall_time(a.summary) == without_wall_time(b.summary)

    def strip(text: str) -> str:
        return "\n".join(l for l in text.splitlines() if '"wall_time_s"' not in l)

    assert strip(a.summary_json) == strip(b.summary_json)


@pytest.mark.parametrize(("seed", "error"), [(-1, ValueError), (2**64, ValueError), ("1", TypeError), (1.0, TypeError), (True, TypeError)])
def test_a_bad_seed_is_refused_by_name(tiny_text: str, seed: object, error: type) -> None:
    # Seeds are 64-bit unsigned integers: anything else says so, before any work is done.
    for call in (sluice.run, sluice.validate):
        with pytest.raises(error, match="seed must be an integer from 0 to 2\\*\\*64 - 1"):
            call(tiny_text, seed=seed)  # type: ignore[arg-type]
    assert sluice.run(tiny_text, seed=2**64 - 1).summary["seed"] == 2**64 - 1


def test_different_seeds_different_start_times(tiny_text: str) -> None:
    # tiny.toml draws each start uniformly in [0 s, 1 s) from the flow's own stream
    a = sluice.run(tiny_text, seed=1)
    b = sluice.run(tiny_text, seed=2)
    assert a.summary["seed"] == 1 and b.summary["seed"] == 2
    assert a.flows["start_s"].tolist() != b.flows["start_s"].tolist()
    assert all(0.0 <= s < 1.0 for s in a.flows["start_s"].tolist() + b.flows["start_s"].tolist())


def test_seed_overrides_the_file(tiny_text: str) -> None:
    assert sluice.run(tiny_text, seed=42).summary["seed"] == 42


@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        ('duration = "5s"', 'duration = "5 parsecs"', "duration"),
        ('kind = "dumbbell"', 'kind = "dumbel"', "topology.kind"),
        ('dst = "receivers"', 'dst = "nowhere"', "flows[0].dst"),
        ('app = { kind = "bulk" }', 'app = { kind = "bulk" }\nbogus = 1', "flows[0].bogus"),
    ],
)
def test_bad_scenario_raises_scenario_error(tiny_text: str, old: str, new: str, path: str) -> None:
    bad = tiny_text.replace(old, new)
    assert bad != tiny_text
    for call in (sluice.run, sluice.validate):
        with pytest.raises(sluice.ScenarioError) as info:
            call(bad)
        e = info.value
        assert isinstance(e, ValueError) and isinstance(e, sluice.SluiceError)
        assert not isinstance(e, sluice.SimulationPanic)
        assert e.path == path
        message = str(e)
        assert "\n" not in message
        assert message.startswith(f"{path}: ")


def test_scenario_error_lists_allowed_values(tiny_text: str) -> None:
    with pytest.raises(sluice.ScenarioError) as info:
        sluice.validate(tiny_text.replace('dst = "receivers"', 'dst = "nowhere"'))
    assert info.value.allowed is not None
    assert "r0" in info.value.allowed


def test_syntax_error_has_empty_path() -> None:
    with pytest.raises(sluice.ScenarioError) as info:
        sluice.validate('name = "x"\n[oops')
    assert info.value.path == ""
    assert "\n" not in str(info.value)


def test_scenario_error_survives_pickling(tiny_text: str) -> None:
    with pytest.raises(sluice.ScenarioError) as info:
        sluice.validate(tiny_text.replace('duration = "5s"', 'duration = "soon"'))
    copy = pickle.loads(pickle.dumps(info.value))
    assert (copy.path, copy.allowed, str(copy)) == (info.value.path, info.value.allowed, str(info.value))


def test_validate_accepts_the_tiny_scenario(tiny_path: Path) -> None:
    assert sluice.validate(tiny_path) is None


def test_missing_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        sluice.run(tmp_path / "missing.toml")
    with pytest.raises(FileNotFoundError):
        sluice.run(str(tmp_path / "missing.toml"))


def test_panic_becomes_simulation_panic(tiny_text: str) -> None:
    with pytest.raises(sluice.SimulationPanic) as info:
        _sluice._panic_for_test(tiny_text, 5, source="tiny.toml")
    e = info.value
    assert isinstance(e, RuntimeError) and isinstance(e, sluice.SluiceError)
    message = str(e)
    assert "\n" not in message
    assert '"tiny"' in message and "seed 5" in message
    assert "sluice run tiny.toml --seed 5" in message
    assert e.scenario == "tiny" and e.seed == 5 and e.reproduce == "sluice run tiny.toml --seed 5"


def test_panic_without_seed_uses_the_scenario_seed(tiny_text: str) -> None:
    with pytest.raises(sluice.SimulationPanic) as info:
        _sluice._panic_for_test(tiny_text)
    assert info.value.seed == 1  # tiny.toml's seed
    assert "--seed 1" in str(info.value)


def test_save_writes_summary_and_parquet(tiny_path: Path, tmp_path: Path) -> None:
    r = sluice.run(tiny_path)
    out = tmp_path / "res"
    written = r.save(out)
    names = {p.name for p in written}
    assert {"summary.json", "flows.parquet", "queues.parquet", "queue_samples.parquet"} <= names
    assert json.loads((out / "summary.json").read_text()) == r.summary
    flows = pq.read_table(out / "flows.parquet").to_pandas()
    assert flows["goodput_bps"].tolist() == r.flows["goodput_bps"].tolist()
    samples = pq.read_table(out / "queue_samples.parquet").to_pandas()
    assert len(samples) == len(r.tables["queue_samples"])


def test_run_files_are_the_bytes_save_writes(tiny_path: Path, tmp_path: Path) -> None:
    # A sweep's worker writes run_files (no DataFrame made); `sluice run --out` writes
    # Result.save: the two must be the same files, and read back as the Result's frames.
    files = sluice.api.run_files(tiny_path, seed=4)
    r = sluice.run(tiny_path, seed=4)
    written = r.save(tmp_path)
    assert [p.name for p in written] == list(files)
    strip = lambda b: json.loads(b) | {"wall_time_s": 0}  # noqa: E731 - wall time differs
    assert strip(files.pop("summary.json")) == strip((tmp_path / "summary.json").read_bytes())
    for name, data in files.items():
        assert data == (tmp_path / name).read_bytes(), name
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "flows.parquet"), r.flows)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "queues.parquet"), r.queues)


def test_a_result_read_back_saves_the_same_tables(tiny_path: Path, tmp_path: Path) -> None:
    # A Result built from DataFrames (as the report builds one from a run directory) saves
    # tables equal to the ones it was read from.
    r = sluice.run(tiny_path)
    r.save(tmp_path / "a")
    back = sluice.api.Result(r.summary, r.summary_json, r.flows, r.queues, r.tables)
    back.save(tmp_path / "b")
    for name in ("flows", "queues", "queue_samples"):
        a = pd.read_parquet(tmp_path / "a" / f"{name}.parquet")
        b = pd.read_parquet(tmp_path / "b" / f"{name}.parquet")
        pd.testing.assert_frame_equal(a, b)


def test_native_run_result(tiny_text: str) -> None:
    native = _sluice.run(tiny_text, 3)
    assert json.loads(native.summary_json)["seed"] == 3
    tables = native.tables
    assert set(tables["queue_samples"]) >= {"t_s", "queue", "len_pkts", "len_bytes"}
    assert all(isinstance(x, float) for x in tables["queue_samples"]["t_s"][:5])
    assert all(isinstance(x, int) for x in tables["queue_samples"]["len_pkts"][:5])
    assert native.files == []
    assert "RunResult(" in repr(native)


def test_version() -> None:
    assert sluice.__version__ == _sluice.version()
    assert sluice.__version__.count(".") >= 2


def test_run_releases_the_gil(tiny_text: str) -> None:
    # Two runs in threads finish with correct, identical results (the GIL is released inside).
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        a, b = pool.map(lambda _: sluice.run(tiny_text, seed=9), range(2))
    assert without_wall_time(a.summary) == without_wall_time(b.summary)


def test_pcap_files_go_to_out_dir(tiny_text: str, tmp_path: Path) -> None:
    r = sluice.run(tiny_text + '\n[monitor]\npcap = ["A->B"]\n', out_dir=tmp_path)
    assert r.files
    for name in r.files:
        assert (tmp_path / name).read_bytes()[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1")


def test_unwritable_out_dir_raises_output_error(tiny_text: str, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(sluice.OutputError) as info:
        sluice.run(tiny_text + '\n[monitor]\npcap = ["A->B"]\n', out_dir=blocker / "sub")
    e = info.value
    assert isinstance(e, OSError) and isinstance(e, sluice.SluiceError)
    assert e.errno and e.filename and "os error" not in str(e)


def test_progress_reports_simulated_time_and_changes_nothing(tiny_text: str) -> None:
    # 200 s at 10 Mbit/s: over a million events, so the run reports between slices too.
    text = tiny_text.replace('duration = "5s"', 'duration = "200s"')
    seen: list[tuple[float, float]] = []
    r = sluice.run(text, progress=lambda now, end: seen.append((now, end)))
    assert len(seen) >= 2
    assert all(end == 200.0 for _, end in seen)
    times = [now for now, _ in seen]
    assert times == sorted(times) and 0 < times[0] < 200.0 and times[-1] == 200.0
    assert without_wall_time(r.summary) == without_wall_time(sluice.run(text).summary)


def test_progress_callback_exception_stops_the_run(tiny_text: str) -> None:
    text = tiny_text.replace('duration = "5s"', 'duration = "200s"')
    calls: list[float] = []

    def stop(now: float, end: float) -> None:
        calls.append(now)
        raise ValueError("enough")

    with pytest.raises(ValueError, match="enough"):
        sluice.run(text, progress=stop)
    assert len(calls) == 1 and calls[0] < 200.0


def test_ctrl_c_stops_a_run(tiny_text: str) -> None:
    # SIGINT while the simulator runs (the lock released) stops it with KeyboardInterrupt at
    # the next slice, long before the end.
    import _thread
    import signal
    import threading
    import time

    text = tiny_text.replace('duration = "5s"', 'duration = "20000s"')
    # Python's own handler, whatever this process inherited (a shell starts background jobs
    # with SIGINT ignored, and then Python ignores it too).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            sluice.run(text)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - t0 < 5.0


def test_cc_options_and_cc_state_reach_python_and_parquet(tiny_text: str, tmp_path: Path) -> None:
    # docs/summary.md `cc_options`, docs/scenarios.md `monitor.cc_trace`: a CUBIC run with beta
    # 0.6 carries its resolved parameters per flow (JSON text in the frame, a dict in the
    # summary) and the long table `cc_state`; both survive Parquet.
    text = tiny_text.replace('rcv_buf = "1MiB"', 'rcv_buf = "1MiB"\ncc = "cubic"\ncubic = { beta = 0.6 }')
    text += '\n[monitor]\ncwnd_trace = "50ms"\ncc_trace = true\n'
    r = sluice.run(text)
    assert r.summary["flows"][0]["cc_options"]["cubic.beta"] == "0.6"
    assert json.loads(r.flows["cc_options"][0])["cubic.hystart"] == "ns3"  # the ns3.44 profile's
    st = r.tables["cc_state"]
    assert list(st.columns) == ["t_s", "flow", "name", "value"]
    assert {"w_max", "k", "cnt"} <= set(st["name"])
    assert "pacing_bps" in r.tables["cwnd"].columns
    r.save(tmp_path / "res")
    flows = pq.read_table(tmp_path / "res" / "flows.parquet").to_pandas()
    assert flows["cc_options"].tolist() == r.flows["cc_options"].tolist()
    assert len(pq.read_table(tmp_path / "res" / "cc_state.parquet")) == len(st)


def test_compound_options_and_dwnd_reach_python(tiny_text: str) -> None:
    # docs/algorithms/compound.md: `cc = "compound"` with its table; the flow records the seven
    # resolved keys and `cc_state` carries dwnd, diff, base_rtt_s and gamma; a bad value is one
    # line naming the key.
    text = tiny_text.replace('rcv_buf = "1MiB"', 'rcv_buf = "1MiB"\ncc = "compound"\ncompound = { variant = "linux", gamma = 20 }')
    text += '\n[monitor]\ncwnd_trace = "50ms"\ncc_trace = true\n'
    r = sluice.run(text)
    opts = r.summary["flows"][0]["cc_options"]
    assert (opts["compound.variant"], opts["compound.gamma"], len(opts)) == ("linux", "20", 7)
    assert r.summary["flows"][0]["cc"] == "compound"
    assert {"dwnd", "diff", "base_rtt_s", "gamma"} == set(r.tables["cc_state"]["name"])
    with pytest.raises(sluice.ScenarioError, match=r"^tcp\.compound\.beta: must be in \(0, 1\), got 1\.2"):
        sluice.run(text.replace("gamma = 20", "beta = 1.2"))
