"""``sluice.testbed``: the live dumbbell in namespaces (docs/gateway.md).

The end-to-end test needs root, ``ip``, ``ethtool``, ``iperf3`` and the ``sluice-gateway``
binary (built by ``cargo test --workspace --release`` before pytest in README's command); without
them it skips with one line, unless ``SLUICE_REQUIRE_NETNS=1`` (set by ``.ci/run``) makes that a
failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from sluice import testbed
from sluice.cli import app
from sluice.errors import GatewayError


def test_a_failed_call_names_the_interface_and_the_call() -> None:
    with pytest.raises(GatewayError) as e:
        testbed._call(["sh", "-c", "echo 'Cannot find device' >&2; exit 1"], "eth9", "ip link set up")
    assert str(e.value) == "eth9: ip link set up: Cannot find device"
    assert isinstance(e.value, OSError)


def test_an_unknown_congestion_control_is_refused_naming_the_choices() -> None:
    with pytest.raises(GatewayError, match=r"^c0: iperf3 -C: congestion control 'vegas': expected one of reno, cubic, bbr$"):
        testbed.run("nosuchbed", cc="vegas")


def test_the_cli_lists_the_testbed_commands() -> None:
    out = CliRunner().invoke(app, ["testbed", "--help"])
    assert out.exit_code == 0
    for cmd in ("up", "run", "down"):
        assert cmd in out.output


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "not root"
    absent = [t for t in ("ip", "ethtool", "iperf3", "bash") if shutil.which(t) is None]
    if absent:
        return "missing " + ", ".join(absent)
    try:
        testbed._gateway_binary(None)
    except GatewayError as e:
        return str(e)
    probe = f"slpy{os.getpid()}"
    if subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode != 0:
        return "`ip netns add` fails"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


# Two kernel Reno flows for 3 s (after 1 s left out) through 50 Mb/s and 5 ms, drop-tail: the
# summary has both flows, their goodput sums to 50-110 % of the bottleneck's payload rate
# (50 Mb/s × 1448/1514 = 47.82 Mb/s; iperf3's receiver also counts what drains from the
# 1000-packet queue after the senders stop, up to 1000 × 1448 B / 3 s = 3.9 Mb/s, 8 %; the low
# bound is loose because iperf3 itself is not prioritized on a busy machine, and the shaper's
# accuracy is the Rust namespace test's job), the queue forwarded packets, file transfers report
# their FCT, and `down` leaves no namespace behind.
def test_up_run_down_gives_a_summary() -> None:
    why = _missing()
    if why is not None:
        if os.environ.get("SLUICE_REQUIRE_NETNS") == "1":
            pytest.fail(f"SLUICE_REQUIRE_NETNS=1 but the testbed cannot run: {why}")
        pytest.skip(f"the testbed needs root, ip, ethtool, iperf3 and sluice-gateway ({why})")
    name = f"sltb{os.getpid() % 10000}"
    testbed.up(name, rate="50Mbps", delay="5ms")
    try:
        with pytest.raises(GatewayError, match="is up already"):
            testbed.up(name)
        s = testbed.run(name, flows=2, duration=3, cc="reno", warmup=1)
        t = testbed.transfer(name, flows=2, size=2_000_000, cc="cubic")
    finally:
        testbed.down(name)
    assert len(s["flows"]) == 2
    assert all(f["cc"] == "reno" and f["bytes_delivered"] > 0 for f in s["flows"])
    cap = 50e6 * 1448 / 1514
    assert 0.5 * cap <= s["aggregate_goodput_bps"] <= 1.1 * cap, s["aggregate_goodput_bps"]
    assert s["queues"][0]["dequeued"] > 1000
    assert s["queues"][0]["mean_sojourn_s"] is not None
    assert 0.5 <= s["jain_goodput"] <= 1.0
    # Two 2 MB transfers: each delivers all its bytes; every byte crosses the shaper, so each FCT
    # is at least one transfer's link time (2e6 B · 8 / 47.82 Mb/s = 0.33 s) and the last one's
    # at least both transfers' (0.67 s); the summary's goodput is size / FCT.
    assert [f["bytes_delivered"] for f in t["flows"]] == [2_000_000, 2_000_000]
    fcts = [f["fct_s"] for f in t["flows"]]
    assert min(fcts) >= 2e6 * 8 / cap and max(fcts) >= 4e6 * 8 / cap, fcts
    assert all(abs(f["goodput_bps"] - 2e6 * 8 / f["fct_s"]) < 1e-6 * f["goodput_bps"] for f in t["flows"])
    assert all(f["cc"] == "cubic" and f["mean_rtt_s"] is not None for f in t["flows"])
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert name not in listed
