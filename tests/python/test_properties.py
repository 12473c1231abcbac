"""Invariants of every run, on dumbbells drawn at random (hypothesis): whatever the traffic mix,
TCP options, loss and buffer sizes, the counters must add up, rates and ratios stay in range,
finished transfers deliver exactly their size, and the same seed gives the same summary."""

from __future__ import annotations

from typing import Any

import pytest

hypothesis = pytest.importorskip("hypothesis")
st = pytest.importorskip("hypothesis.strategies")

import sluice  # noqa: E402

given, settings = hypothesis.given, hypothesis.settings

MBPS = 1_000_000


@st.composite
def apps(draw: Any) -> tuple[str, int | None]:
    """A flow's `app` table, and the file size for a file transfer."""
    kind = draw(st.sampled_from(["bulk", "file", "udp_cbr", "on_off"]))
    if kind == "bulk":
        return '{ kind = "bulk" }', None
    if kind == "file":
        size = draw(st.integers(1, 2_000_000))
        return f'{{ kind = "file", size = "{size}B" }}', size
    rate = draw(st.integers(100, 20_000))
    pkt = draw(st.integers(20, 1400))
    if kind == "udp_cbr":
        return f'{{ kind = "udp_cbr", rate = "{rate}kbps", packet_size = "{pkt}B" }}', None
    on, off = draw(st.integers(1, 500)), draw(st.integers(1, 500))
    return f'{{ kind = "on_off", rate = "{rate}kbps", packet_size = "{pkt}B", mean_on = "{on}ms", mean_off = "{off}ms" }}', None


@st.composite
def scenarios(draw: Any) -> tuple[str, dict[str, Any]]:
    pairs = draw(st.integers(1, 4))
    bottleneck = draw(st.integers(1, 50))
    limit = draw(st.integers(2, 200))
    loss = draw(st.sampled_from([0.0, 0.001, 0.01, 0.03]))
    tcp = {
        "sack": draw(st.booleans()),
        "timestamps": draw(st.booleans()),
        "ecn": draw(st.booleans()),
        "delack": draw(st.sampled_from(["on", "off", "linux"])),
        "recovery": draw(st.sampled_from(["prr", "classic"])),
        "dupack": draw(st.sampled_from(["default", "strict", "ns3", "linux"])),
        "cc": draw(st.sampled_from(["new_reno", "new_reno", "none"])),
    }
    profile = draw(st.sampled_from(["", 'validate = "ns3.44"\n']))
    tcp_lines = "".join(f"{k} = {str(v).lower() if isinstance(v, bool) else repr(v)}\n".replace("'", '"') for k, v in tcp.items())
    flows, files = [], {}
    for i in range(pairs):
        app, size = draw(apps())
        start = draw(st.integers(0, 500))
        flows.append(f'[[flows]]\nname = "x{i}"\nsrc = "s{i}"\ndst = "r{i}"\napp = {app}\nstart = "{start}ms"\n')
        if size is not None:
            files[f"x{i}"] = size
    text = (
        f'name = "prop"\nduration = "{draw(st.integers(1, 4))}s"\nseed = {draw(st.integers(0, 2**32))}\n'
        f"[tcp]\n{profile}{tcp_lines}"
        f'[topology]\nkind = "dumbbell"\npairs = {pairs}\naccess_rate = "{draw(st.integers(10, 100))}Mbps"\n'
        f'access_delay = "{draw(st.integers(0, 20))}ms"\n'
        f'bottleneck = {{ rate = "{bottleneck}Mbps", delay = "{draw(st.integers(0, 20))}ms", loss = {loss} }}\n'
        f'queue = {{ kind = "drop_tail", limit = "{limit}pkt" }}\n' + "".join(flows)
    )
    return text, {"bottleneck_bps": bottleneck * MBPS, "limit": limit, "files": files}


@settings(max_examples=40, deadline=None)
@given(scenarios())
def test_counters_add_up_and_runs_repeat(case: tuple[str, dict[str, Any]]) -> None:
    text, facts = case
    a = sluice.run(text)
    s = a.summary
    for q in s["queues"]:
        # Drop-tail drops on arrival: every arrival is enqueued or dropped; what left was queued;
        # what is still queued fits the limit (plus the packet a busy device holds).
        assert q["arrivals"] == q["enqueued"] + q["dropped"], q
        limit = facts["limit"] if q["name"] == "A->B" else 100_000
        assert 0 <= q["enqueued"] - q["dequeued"] <= limit, q
        assert q["drop_ratio"] == pytest.approx(q["dropped"] / q["arrivals"] if q["arrivals"] else 0.0)
    # Nothing crosses the bottleneck faster than its rate (goodput counts payload only).
    assert 0.0 <= s["aggregate_goodput_bps"] <= facts["bottleneck_bps"] * 1.0001, s["aggregate_goodput_bps"]
    n = len(s["flows"])
    if s["jain_goodput"] is not None:
        assert 1.0 / n - 1e-9 <= s["jain_goodput"] <= 1.0 + 1e-9
    for f in s["flows"]:
        assert f["bytes_delivered"] <= f["payload_bytes_sent"], f
        if f["kind"] in ("bulk", "file"):
            assert 0 <= f["retransmitted_bytes"] <= f["payload_bytes_sent"], f
            if f["efficiency"] is not None:
                assert 0.0 <= f["efficiency"] <= 1.0, f
            if f["kind"] == "file" and f["fct_s"] is not None:
                # A completed transfer delivered exactly its file, no more, no less.
                assert f["bytes_delivered"] == facts["files"][f["name"]], f
                assert f["fct_s"] > 0
    # Same scenario and seed: the same summary, byte for byte, but for the wall time.
    b = sluice.run(text)
    strip = lambda j: {k: v for k, v in j.items() if k != "wall_time_s"}  # noqa: E731
    assert strip(b.summary) == strip(s)
