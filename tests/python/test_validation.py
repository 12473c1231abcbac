"""validation/compare.py and the departure fingerprint (validation/departures.py).

compare.py runs Sluice (the release binary, built with cargo if needed) on ns-3 cases and exits
1 when a case disagrees: a case with a departure fingerprint must be identical packet for packet,
others within the tolerances. The cases here are the smallest: the single flow (0.05 s of
Sluice) and 12 window-limited flows on 10 Mb/s.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "validation"))
import departures  # noqa: E402

COMPARE = REPO / "validation" / "compare.py"
SMALL = REPO / "validation" / "fixtures" / "ns3" / "i-access12-nosack-64k-10mbps.json"


def compare(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(COMPARE), *args], cwd=REPO, capture_output=True, text=True, timeout=600
    )


def row(out: str, case: str) -> list[str]:
    """The cells of the table row of `case`."""
    (line,) = [x for x in out.splitlines() if x.startswith(f"| {case} |")]
    return [c.strip() for c in line.strip("|").split("|")]


def test_record_layout_is_19_big_endian_bytes() -> None:
    # time_ns u64 | flow u32 | seq u32 | len u16 | flags u8, big-endian: written out by hand.
    r = (10_000_552_160, 3, 12_006_817, 1500, 0x10)
    want = (
        bytes.fromhex("00000002541450e0")  # 10,000,552,160 = 0x2_5414_50E0
        + bytes.fromhex("00000003")
        + bytes.fromhex("00b735a1")  # 12,006,817 = 0xB7_35A1
        + bytes.fromhex("05dc")  # 1500
        + b"\x10"  # ACK
    )
    assert departures.RECORD.pack(*r) == want
    fp = departures.fingerprint([r, r])
    assert fp == {"count": 2, "sha256": hashlib.sha256(want + want).hexdigest()}
    assert departures.fingerprint([]) == {"count": 0, "sha256": hashlib.sha256(b"").hexdigest()}


def test_identical_cases_are_identical_packet_for_packet() -> None:
    res = compare("--only", "e-single-newreno-fifo", "--only", SMALL.stem, "--record", str(SMALL))
    assert res.returncode == 0, res.stdout + res.stderr
    # counts from our ns-3 records: 41,611 and 29,642 packets left A on the bottleneck in the window
    assert row(res.stdout, "e-single-newreno-fifo")[-1] == "identical (41611 departures)"
    cells = row(res.stdout, SMALL.stem)
    assert cells[-1] == "identical (29642 departures)"
    assert cells[2] == "9.50 / 9.50" and cells[3] == "+0.0%"  # goodput Mb/s, Sluice / ns-3


def test_a_fingerprint_that_differs_fails(tmp_path: Path) -> None:
    rec = json.loads(SMALL.read_text())
    rec["departures"]["sha256"] = "0" * 64
    p = tmp_path / "doctored.json"
    p.write_text(json.dumps(rec))
    res = compare("--only", SMALL.stem, "--record", str(p))
    assert res.returncode == 1, res.stdout + res.stderr
    assert row(res.stdout, SMALL.stem)[-1].startswith("PARTS: 29642 departures")
    assert SMALL.stem in res.stderr


@pytest.mark.parametrize(("scale", "code", "verdict"), [(1.0, 0, "within tolerance"), (1.06, 1, "OUTSIDE tolerance: goodput")])
def test_without_a_fingerprint_the_tolerances_judge(tmp_path: Path, scale: float, code: int, verdict: str) -> None:
    # ns-3's goodput 6 % higher than it was: outside the 5 % tolerance.
    rec = json.loads(SMALL.read_text())
    del rec["departures"]
    rec["aggregate_goodput_mbps"] *= scale
    p = tmp_path / "record.json"
    p.write_text(json.dumps(rec))
    res = compare("--only", SMALL.stem, "--record", str(p))
    assert res.returncode == code, res.stdout + res.stderr
    assert row(res.stdout, SMALL.stem)[-1] == verdict


def test_scripted_loss_case_is_identical() -> None:
    # A lost fast retransmission that only the timeout repairs (docs/validation.md, "Under
    # identical losses"): the loss list goes to Sluice's bottleneck, and link losses, episodes
    # and the departure fingerprint all agree with ns-3's.
    rec = REPO / "validation" / "fixtures" / "ns3" / "p-loss-retx-lost.json"
    r = compare("--record", str(rec), "--only", "p-loss-retx-lost")
    assert r.returncode == 0, r.stdout + r.stderr
    assert row(r.stdout, "p-loss-retx-lost")[-1].startswith("identical")


def test_bbr_with_ns3s_draws_replayed_is_identical() -> None:
    # ns3_dumbbell.py --bbr-streams recorded the draws of ProbeBW's first phase ns-3's TcpBbr
    # made (docs/validation.md, "BBR packet for packet"); compare.py gives each flow its own
    # table replaying them as bbr.cycle_draws, and the run is ns-3's packet for packet.
    rec = REPO / "validation" / "fixtures" / "ns3" / "v-bbr-access2-listloss-10mbps.json"
    case = json.loads(rec.read_text())
    sys.path.insert(0, str(REPO / "validation"))
    import compare as cmp  # noqa: E402

    text = cmp.scenario(case, None)
    for k, f in enumerate(case["flows"]):
        draws = ", ".join(str(d) for d in f["bbr_draws"])
        assert f'name = "f{k}"' in text and f'tcp = {{ cc = "bbr", bbr = {{ cycle_draws = [{draws}] }} }}' in text
    r = compare("--record", str(rec), "--only", rec.stem)
    assert r.returncode == 0, r.stdout + r.stderr
    assert row(r.stdout, rec.stem)[-1] == "identical (10705 departures)"


def test_random_loss_seed_means_agree_with_ns3() -> None:
    # Bernoulli loss over 100 seeds against the recorded ns-3 runs: no more comparisons beyond
    # two standard errors than chance gives, none beyond three (validation/loss_seeds.py).
    r = subprocess.run(
        [sys.executable, str(REPO / "validation" / "loss_seeds.py")], cwd=REPO, capture_output=True, text=True, timeout=1200
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 beyond 3" in r.stderr


def test_set_up_flags_override_a_case_or_a_record(tmp_path: Path) -> None:
    import ns3_dumbbell

    # The 90-flow reference case with BBR instead: the case's other arguments stay.
    a, _ = ns3_dumbbell.setup(["--case", "b-access90-newreno-fifo", "--tcp", "ns3::TcpBbr", "--ecn"])
    assert (a["tcp"], a["ecn"], a["flows"], a["buffer"], a["rtt_table"]) == ("ns3::TcpBbr", True, 90, 900, "eval9")
    a, _ = ns3_dumbbell.setup(["--case", "b-access90-newreno-fifo"])
    assert (a["tcp"], a["ecn"], a["flows"]) == ("ns3::TcpNewReno", False, 90)
    # A record of ours, one argument changed; the name stays the record's unless given.
    a, _ = ns3_dumbbell.setup(["--from-record", str(SMALL), "--buffer", "7"])
    rec = json.loads(SMALL.read_text())
    assert a["buffer"] == 7 and a["case"] == rec["case"]
    assert {k: v for k, v in a.items() if k in rec["args"] and k != "buffer"} == {k: v for k, v in rec["args"].items() if k != "buffer"}
    # Without either, the flags and the defaults.
    a, _ = ns3_dumbbell.setup(["--flows", "3"])
    assert (a["flows"], a["buffer"], a["tcp"]) == (3, 100, "ns3::TcpNewReno")
    with pytest.raises(SystemExit):
        ns3_dumbbell.setup(["--case", "b-access90-newreno-fifo", "--from-record", str(SMALL)])


# ---- validation/ns3_graph.py: multi-hop set-ups (ns-3 itself is not needed for these) ----

import ns3_graph  # noqa: E402

PARKING = REPO / "validation" / "fixtures" / "ns3" / "mh-parking2-nosack-linuxreno-classic-10mbps.json"


def test_a_stored_multihop_record_is_identical_from_python() -> None:
    # The script's own comparison (Sluice's pcaps of every router queue, flows told by their
    # two hosts) agrees with the record ns-3 wrote, as the Rust test's does.
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "sluice-sim"], cwd=REPO, check=True)
    out = subprocess.run([sys.executable, str(REPO / "validation" / "ns3_graph.py"), "--from-record", str(PARKING),
                          "--sluice", str(REPO / "target" / "release" / "sluice-sim")],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "identical to ns-3" in out.stdout


def test_a_parking_lot_is_laid_out_as_sluice_builds_it() -> None:
    sc = {"topology": {"kind": "parking_lot", "hops": 2, "rate": "10Mbps", "delay": "5ms", "queue": {"kind": "drop_tail", "limit": "20pkt"},
                       "access_rate": "100Mbps", "access_delay": "1ms"}}
    nodes, links = ns3_graph.topology(sc)
    assert [n for n, _ in nodes] == ["R0", "R1", "R2", "long_src", "long_dst", "c0_src", "c0_dst", "c1_src", "c1_dst"]
    assert [(l["a"], l["b"]) for l in links] == [(0, 1), (1, 2), (3, 0), (4, 2), (5, 0), (6, 1), (7, 1), (8, 2)]
    # the hops' forward direction has the queue under test, their reverse the large FIFO
    assert links[0]["queue"]["limit"] == "20pkt" and links[0]["reverse_queue"] == ns3_graph.BIG
    names = [q[0] for q in ns3_graph.router_queues(nodes, links)]
    assert names[:4] == ["R0->R1", "R1->R0", "R1->R2", "R2->R1"] and "R0->long_src" in names and "long_src->R0" not in names


def graph_scenario() -> dict:
    """A four-router chain with a host at each end and one flow, as ns3_graph.py takes it."""
    hosts = ("a", "b")
    return {"name": "t", "duration": "2s", "tcp": {"validate": "ns3.44"},
            "topology": {"kind": "graph", "nodes": [{"name": n, "kind": "router"} for n in ("R0", "R1", "R2", "R3")] + [{"name": n, "kind": "host"} for n in hosts],
                         "links": [{"a": "R0", "b": "R1", "rate": "10Mbps", "queue": {"kind": "drop_tail", "limit": "10pkt"}},
                                   {"a": "R1", "b": "R2", "rate": "10Mbps"}, {"a": "R2", "b": "R3", "rate": "10Mbps"},
                                   {"a": "a", "b": "R0", "rate": "100Mbps"}, {"a": "b", "b": "R3", "rate": "100Mbps"}]},
            "flows": [{"src": "a", "dst": "b", "start": "0.5s", "app": {"kind": "bulk", "write_size": "11584B"}}]}


def test_a_graph_the_script_can_run_passes_its_checks() -> None:
    tcp, nodes, links, flows = ns3_graph.plan(graph_scenario())
    assert len(nodes) == 6 and len(links) == 5
    assert flows == [{"name": "f0", "src": 4, "dst": 5, "port": 5001, "start_ns": 500_000_000, "cc": "new_reno", "file_size": 0, "write": 11584}]


@pytest.mark.parametrize("edit, field", [
    (lambda s: s["tcp"].pop("validate"), "tcp.validate"),
    (lambda s: s["tcp"].update(pacing="on"), "tcp.pacing"),
    (lambda s: s["flows"][0].pop("start"), "flows[0].start"),
    (lambda s: s["flows"][0].update(start="2s"), "flows[0].start"),
    (lambda s: s["flows"][0].update(src="R0"), "flows[0].src"),
    (lambda s: s["flows"][0].update(count=3), "flows[0].count"),
    (lambda s: s["flows"].append(dict(s["flows"][0], src="b", dst="a", port=5002)), "flows[1]"),
    (lambda s: s["flows"].append(dict(s["flows"][0], src="b", dst="a", tcp={"cc": "cubic"})), "flows[1]"),
    (lambda s: s["topology"]["links"].append({"a": "R0", "b": "R3", "rate": "1Mbps"}) or s["topology"]["links"].append({"a": "R1", "b": "R3", "rate": "1Mbps"}), "topology"),
    (lambda s: s["topology"]["links"][0].update(queue={"kind": "pie", "limit": "10pkt"}), "topology.links[0].queue.kind"),
    (lambda s: s["topology"]["links"][0].update(queue={"kind": "codel"}), "topology.links[0].queue.limit"),
    (lambda s: s["topology"]["links"][0].update(loss=0.01), "topology.links[0].loss"),
    (lambda s: s["topology"]["links"].append({"a": "a", "b": "R1", "rate": "1Mbps"}), "topology"),
])
def test_what_ns3_would_not_run_the_same_is_refused_by_name(edit, field: str) -> None:
    sc = graph_scenario()
    edit(sc)
    with pytest.raises(SystemExit) as e:
        ns3_graph.plan(sc)
    assert str(e.value).startswith(field + ":"), str(e.value)
