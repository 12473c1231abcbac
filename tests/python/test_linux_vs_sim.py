"""The simulator against stored Linux records (validation/linux_vs_sim.py; docs/validation.md,
"Simulator against Linux").

The Linux side was measured once on the namespace testbed (kernel TCP through sluice-gateway) and
is stored in validation/fixtures/linux/; here only the simulator runs, on the scenario generated
from each record's set-up, over seeds 1-3, and its means are held to the Linux means with the
issue's tolerances (goodput and mean RTT within 10 %, queue mean within 25 %; median FCT within
10 %, Jain's index within 0.05). The disagreements explained in docs/validation.md are listed in
DOCUMENTED and not asserted to agree; the test checks they still disagree, so a change that
closes one fails here until the page is updated.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import sluice

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "validation"))
import linux_vs_sim as lvs  # noqa: E402

FIXTURES = REPO / "validation" / "fixtures" / "linux"
SEEDS = (1, 2, 3)

#: (case, measure) pairs outside the tolerances, explained in docs/validation.md.
_BBR = "Linux's BBR keeps cwnd above 2 BDP (quantization budget, ACK-aggregation allowance); Sluice's is the draft's"
_CUBIC = "uncontrolled CUBIC: Sluice loses more at the end of slow start and resumes from a smaller window, Linux keeps a longer queue"
DOCUMENTED: dict[tuple[str, str], str] = {
    ("drop_tail-bbr", "rtt_ms"): _BBR,
    ("pie-bbr", "rtt_ms"): _BBR,
    ("codel-bbr", "rtt_ms"): _BBR,
    ("rwm-1f-20ms-none", "rtt_ms"): _CUBIC,
    ("rwm-1f-60ms-none", "rtt_ms"): _CUBIC,
    ("rwm-1f-100ms-none", "rtt_ms"): _CUBIC,
    ("rwm-4f-20ms-none", "rtt_ms"): _CUBIC,
    ("rwm-4f-60ms-none", "rtt_ms"): _CUBIC,
    ("rwm-4f-60ms-none", "fct_s"): _CUBIC,
    ("rwm-4f-60ms-none", "jain"): _CUBIC,
    ("rwm-4f-100ms-none", "rtt_ms"): _CUBIC,
    ("rwm-4f-100ms-none", "fct_s"): _CUBIC,
    ("rwm-4f-100ms-none", "jain"): _CUBIC,
    ("rwm-1f-140ms-rwm", "fct_s"): "Linux's slow start at 140 ms overshoots into ~410 losses and CUBIC then plateaus below the BDP; Sluice's leaves slow start without loss",
}


def test_the_gateway_rate_gives_a_full_packet_the_simulators_wire_time() -> None:
    # 100 Mb/s with 38 B of framing: a 1500-byte packet takes 1538·8/1e8 = 123.04 µs. The
    # gateway counts 14 B: 1514·8/r = 123.04 µs gives r = 1e8·1514/1538 = 98,439,531.86 b/s.
    assert lvs.gateway_rate(100_000_000) == 98_439_531
    assert abs(1514 * 8 / 98_439_531 - 1538 * 8 / 1e8) < 1e-11  # within 0.01 ns


def test_the_generated_scenario_has_linuxs_endpoint_rules_and_the_testbeds_path() -> None:
    setup = {"case": "x", "cc": "cubic", "qdisc": lvs.QDISCS["pie"], "flows": 4, "rtt_ms": 20, "rate_bps": 100_000_000,
             "duration_s": 20.0, "warmup_s": 2.0, "controller": '{ kind = "rwm" }'}
    model = sluice.resolve(lvs.scenario(setup, 1)).model
    tcp = model["flows"][0]["tcp"]
    assert [tcp[k] for k in ("rto", "wnd_update", "dupack", "delack")] == ["linux"] * 4
    assert tcp["cubic"]["hystart"] == "linux" and tcp["mss"] == 1448 and tcp["ecn"] is False
    assert tcp["iw"] == {"segments": 10}
    bottleneck = model["links"][1]
    assert bottleneck["l2_overhead"] == 38 and bottleneck["rate"] == "100Mbps" and bottleneck["ab"]["qdisc"]["kind"] == "pie"
    assert len(model["flows"]) == 4
    s = lvs.scenario(setup, 1)
    # RTT 20 ms: 10 ms each way on the bottleneck link, none on the access link; no pacing for CUBIC.
    assert 'delay = "10ms"' in s and 'delay = "0s"' in s and 'pacing = "off"' in s and "device_queue = 0" in s
    assert 'pacing = "cc"' in lvs.scenario({**setup, "cc": "bbr"}, 1)
    assert 'cc = "new_reno"' in lvs.scenario({**setup, "cc": "reno"}, 1)


def test_the_verdicts_fail_outside_the_tolerances() -> None:
    lin = {"goodput_mbps": 100.0, "rtt_ms": 50.0, "queue_ms": 20.0, "drops": 0.0}
    # 9 % and 11 % off in goodput; RTT 10.2 % off; queue 24 % off: agree, differ, differ, agree.
    assert lvs.verdicts({**lin, "goodput_mbps": 91.0}, lin)["goodput_mbps"] is True
    assert lvs.verdicts({**lin, "goodput_mbps": 89.0}, lin)["goodput_mbps"] is False
    assert lvs.verdicts({**lin, "rtt_ms": 55.1}, lin)["rtt_ms"] is False
    assert lvs.verdicts({**lin, "queue_ms": 15.2}, lin)["queue_ms"] is True
    # File transfers are judged on median FCT, Jain's index (0.06 off differs, 0.04 agrees) and
    # mean RTT, not on the queue.
    lf = {**lin, "fct_s": 10.0, "jain": 0.99}
    assert lvs.verdicts({**lf, "jain": 0.93}, lf)["jain"] is False
    assert lvs.verdicts({**lf, "jain": 0.95}, lf)["jain"] is True
    assert lvs.verdicts({**lf, "fct_s": 11.1}, lf)["fct_s"] is False
    assert set(lvs.verdicts({**lf, "queue_ms": 1.0}, lf)) == {"fct_s", "jain", "rtt_ms"}


def _cases() -> list[tuple[str, str]]:
    out = []
    for path in sorted(FIXTURES.glob("*.json")):
        for case in lvs.linux_means(path):
            out.append((path.name, case))
    return out


@pytest.mark.parametrize(("fixture", "case"), _cases())
def test_the_simulator_agrees_with_the_stored_linux_runs(fixture: str, case: str) -> None:
    setup, lin, _ = lvs.linux_means(FIXTURES / fixture)[case]
    sim = lvs.mean_measures([lvs.measures(lvs.run_sim(setup, seed)) for seed in SEEDS])
    verdicts = lvs.verdicts(sim, lin)
    assert verdicts, case
    for measure, ok in verdicts.items():
        assert ok is not None, f"{case}: {measure} not measured"
        if (case, measure) in DOCUMENTED:
            assert ok is False, f"{case}: {measure} now agrees (Sluice {sim[measure]:.3f}, Linux {lin[measure]:.3f}); update docs/validation.md and DOCUMENTED"
        else:
            assert ok, f"{case}: {measure}: Sluice {sim[measure]:.3f}, Linux {lin[measure]:.3f}"
