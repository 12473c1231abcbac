"""A live dumbbell in network namespaces with ``sluice-gateway`` in the middle (docs/gateway.md).

``up`` builds three namespaces, ``<name>-c`` (client, 10.9.0.1), ``<name>-g`` (the gateway,
no addresses) and ``<name>-s`` (server, 10.9.0.2), joined by veth pairs with every offload off,
and starts the gateway with the bottleneck (rate, delay, queue discipline, controller) on its
egress toward the server. ``run`` sends bulk TCP from the client with iperf3, the kernel's
congestion control chosen by name (``reno``, ``cubic``, ``bbr``), and returns a summary in the
simulator's JSON contract (docs/summary.md) where the fields exist: flows from iperf3, the
queue from the gateway's metrics. ``down`` stops the gateway and removes the namespaces.

Everything needs root, ``ip``, ``ethtool`` and ``iperf3``. A failing call raises
:class:`sluice.errors.GatewayError` naming the interface (or namespace) and the call.

Example (as root)::

    from sluice import testbed
    testbed.up("tb", rate="100Mbps", delay="10ms", qdisc='{ kind = "pie", limit = "1000pkt" }')
    summary = testbed.run("tb", flows=4, duration=10, cc="cubic")
    testbed.down("tb")
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from .errors import GatewayError

__all__ = ["up", "run", "transfer", "down", "CLIENT", "SERVER", "CONGESTION_CONTROLS"]

CLIENT = "10.9.0.1"
SERVER = "10.9.0.2"
#: Kernel congestion controls ``run`` accepts (iperf3 ``-C``).
CONGESTION_CONTROLS = ("reno", "cubic", "bbr")
METRICS_PORT = 9464


def _state_dir(name: str) -> Path:
    return Path(tempfile.gettempdir()) / f"sluice-testbed-{name}"


def _call(args: list[str], iface: str, call: str, *, check: bool = True) -> str:
    """Run ``args``; on failure raise GatewayError("<iface>: <call>: <stderr>")."""
    try:
        out = subprocess.run(args, capture_output=True, text=True, check=False)
    except OSError as e:
        raise GatewayError(f"{iface}: {call}: {e.strerror or e}") from e
    if check and out.returncode != 0:
        msg = " ".join((out.stderr or out.stdout).split()) or f"exit status {out.returncode}"
        raise GatewayError(f"{iface}: {call}: {msg}")
    return out.stdout


def _ns(name: str, role: str) -> str:
    return f"{name}-{role}"


def _in(name: str, role: str, args: list[str], iface: str, call: str) -> str:
    return _call(["ip", "netns", "exec", _ns(name, role), *args], iface, call)


def _gateway_binary(path: str | None) -> str:
    """The ``sluice-gateway`` binary: the argument, ``$SLUICE_GATEWAY``, ``PATH``, or
    ``target/release`` of the checkout the package was installed from in place, or of the
    current directory."""
    for cand in (path, os.environ.get("SLUICE_GATEWAY"), shutil.which("sluice-gateway")):
        if cand:
            return cand
    for root in (Path(__file__).resolve().parents[2], Path.cwd()):
        built = root / "target" / "release" / "sluice-gateway"
        if built.exists():
            return str(built)
    raise GatewayError("sluice-gateway: no binary found (build it with `cargo build --release -p sluice-gateway`, or pass its path)")


def up(
    name: str = "sluice",
    *,
    rate: str = "100Mbps",
    delay: str = "10ms",
    reverse_delay: str = "0s",
    qdisc: str | None = None,
    controller: str | None = None,
    seed: int = 1,
    gateway: str | None = None,
) -> Path:
    """Build the dumbbell and start the gateway; returns the state directory (its config,
    log and pid file).

    ``qdisc`` and ``controller`` are TOML inline tables, as in a scenario
    (``'{ kind = "codel" }'``, ``'{ kind = "rwm" }'``); both apply to the egress toward the
    server, where the client's data queues. ``delay`` is that egress's delay, ``reverse_delay``
    the delay of the other one (toward the client, unshaped), so ``delay = reverse_delay = "10ms"``
    puts half of a 20 ms round trip in each direction, as a simulator link's delay does.

    The endpoints' TCP is the kernel's default except two sysctls set in the client's and the
    server's namespace: ``tcp_ecn = 0`` (ECN neither requested nor accepted) and
    ``tcp_no_metrics_save = 1`` (a connection does not inherit the previous one's ssthresh and
    RTT from the route cache, so runs on the same testbed are independent).
    """
    binary = _gateway_binary(gateway)
    state = _state_dir(name)
    if state.exists():
        raise GatewayError(f"{_ns(name, 'g')}: up: a testbed named {name!r} is up already (sluice testbed down {name})")
    for role in ("c", "g", "s"):
        _call(["ip", "netns", "add", _ns(name, role)], _ns(name, role), "ip netns add")
    try:
        _call(["ip", "link", "add", "c0", "netns", _ns(name, "c"), "type", "veth", "peer", "name", "gc", "netns", _ns(name, "g")], "c0", "ip link add")
        _call(["ip", "link", "add", "s0", "netns", _ns(name, "s"), "type", "veth", "peer", "name", "gs", "netns", _ns(name, "g")], "s0", "ip link add")
        _in(name, "g", ["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"], _ns(name, "g"), "sysctl")
        _in(name, "c", ["ip", "addr", "add", f"{CLIENT}/24", "dev", "c0"], "c0", "ip addr add")
        _in(name, "s", ["ip", "addr", "add", f"{SERVER}/24", "dev", "s0"], "s0", "ip addr add")
        for role in ("c", "s"):
            _in(name, role, ["sysctl", "-qw", "net.ipv4.tcp_ecn=0", "net.ipv4.tcp_no_metrics_save=1"], _ns(name, role), "sysctl")
        for role, dev in (("c", "c0"), ("s", "s0"), ("g", "gc"), ("g", "gs")):
            _in(name, role, ["ip", "link", "set", "lo", "up"], "lo", "ip link set up")
            _in(name, role, ["ip", "link", "set", dev, "up"], dev, "ip link set up")
            _in(name, role, ["ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off", "tx", "off", "rx", "off"], dev, "ethtool -K")
        state.mkdir(parents=True)
        lines = [
            f'name = "{name}"',
            f"seed = {int(seed)}",
            f'metrics = "127.0.0.1:{METRICS_PORT}"',
            f'log = "{state / "events.jsonl"}"',
            "[[egress]]",
            'interface = "gs"',
            f'rate = "{rate}"',
            f'delay = "{delay}"',
        ]
        if qdisc:
            lines.append(f"qdisc = {qdisc}")
        lines += ["[[egress]]", 'interface = "gc"', f'delay = "{reverse_delay}"']
        if controller:
            lines += ["[gateway]", f"controller = {controller}", 'monitor = "gs"']
        cfg = state / "gateway.toml"
        cfg.write_text("\n".join(lines) + "\n")
        _call([binary, "--config", str(cfg), "--check-config"], "gs", "sluice-gateway --check-config")
        err = open(state / "gateway.err", "w")  # noqa: SIM115 - the child keeps it
        # Real-time priority where chrt exists: on a busy machine the shaper otherwise loses
        # link time to the scheduler.
        prio = ["chrt", "-f", "50"] if shutil.which("chrt") else []
        proc = subprocess.Popen(["ip", "netns", "exec", _ns(name, "g"), *prio, binary, "--config", str(cfg)], stdout=subprocess.DEVNULL, stderr=err)
        (state / "gateway.pid").write_text(str(proc.pid))
        for _ in range(100):
            if proc.poll() is not None:
                raise GatewayError(f"gc: sluice-gateway: {(state / 'gateway.err').read_text().strip()}")
            if _metrics(name) is not None:
                break
            time.sleep(0.02)
        else:
            raise GatewayError(f"gc: sluice-gateway: metrics at 127.0.0.1:{METRICS_PORT} did not answer")
    except BaseException:
        down(name)
        raise
    return state


def _prio(priority: int) -> list[str]:
    """``chrt -f priority`` where chrt exists (real-time priority), else nothing."""
    return ["chrt", "-f", str(priority)] if shutil.which("chrt") else []


def _metrics(name: str, tries: int = 1) -> dict[str, float] | None:
    """The gateway's metrics as ``{"name{labels}": value}``, or None if it does not answer
    within ``tries`` attempts (50 ms apart)."""
    script = f"exec 3<>/dev/tcp/127.0.0.1/{METRICS_PORT} && printf 'GET /metrics HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3"
    for attempt in range(tries):
        if attempt:
            time.sleep(0.05)
        # Above the iperf3 client's real-time priority (40), below the gateway's (50): with both
        # cores taken by them, an ordinary process may wait seconds for its turn.
        out = subprocess.run(["ip", "netns", "exec", _ns(name, "g"), *_prio(45), "bash", "-c", script], capture_output=True, text=True, check=False)
        m: dict[str, float] = {}
        for line in out.stdout.splitlines():
            if line.startswith("sluice_gateway_"):
                k, _, v = line.rpartition(" ")
                try:
                    m[k] = float(v)
                except ValueError:
                    pass
        if out.returncode == 0 and m:
            return m
    return None


def _metrics_or_fail(name: str) -> dict[str, float]:
    m = _metrics(name, tries=100)
    if m is None:
        raise GatewayError(f"{_ns(name, 'g')}: GET /metrics: no answer from 127.0.0.1:{METRICS_PORT}")
    return m


def _queue_summary(m0: dict[str, float], m1: dict[str, float]) -> dict[str, Any]:
    """The queue ``gs`` between two scrapes of the gateway's metrics."""
    q = 'queue="gs"'

    def delta(key: str) -> float:
        return m1.get(key, 0.0) - m0.get(key, 0.0)

    n = delta(f"sluice_gateway_sojourn_seconds_count{{{q}}}")
    drops = {k.split('reason="')[1].rstrip('"}'): int(delta(k)) for k in m1 if k.startswith(f"sluice_gateway_dropped_total{{{q}") and delta(k) > 0}
    marks = {k.split('reason="')[1].rstrip('"}'): int(delta(k)) for k in m1 if k.startswith(f"sluice_gateway_marked_total{{{q}") and delta(k) > 0}
    return {
        "name": "gs",
        "enqueued": int(delta(f"sluice_gateway_enqueued_total{{{q}}}")),
        "dequeued": int(n),
        "dropped": sum(drops.values()),
        "drops_by_reason": drops,
        "marked": sum(marks.values()),
        "marks_by_reason": marks,
        "mean_sojourn_s": delta(f"sluice_gateway_sojourn_seconds_sum{{{q}}}") / n if n > 0 else None,
    }


def _jain(xs: list[float]) -> float | None:
    s = sum(xs)
    q = sum(x * x for x in xs)
    return s * s / (len(xs) * q) if xs and q > 0 else None


def run(name: str = "sluice", *, flows: int = 1, duration: float = 10.0, cc: str = "cubic", warmup: float = 1.0) -> dict[str, Any]:
    """Bulk TCP from the client to the server for ``duration`` seconds after ``warmup``
    (iperf3 ``-P flows -C cc -O warmup``); returns the summary (docs/gateway.md)."""
    if cc not in CONGESTION_CONTROLS:
        raise GatewayError(f"c0: iperf3 -C: congestion control {cc!r}: expected one of {', '.join(CONGESTION_CONTROLS)}")
    if not _state_dir(name).exists():
        raise GatewayError(f"{_ns(name, 'g')}: run: no testbed named {name!r} is up (sluice testbed up {name})")
    wall0 = time.monotonic()
    server = subprocess.Popen(["ip", "netns", "exec", _ns(name, "s"), *_prio(40), "iperf3", "-s", "-1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if ":5201" in _in(name, "s", ["ss", "-ltn"], "s0", "ss -ltn"):
                break
            time.sleep(0.02)
        args = ["iperf3", "-c", SERVER, "-P", str(int(flows)), "-C", cc, "-t", f"{duration:g}", "-J"]
        if warmup > 0:
            args += ["-O", f"{warmup:g}"]
        # The queue's statistics cover the same window as iperf3's (the warm-up left out): the
        # first scrape is taken `warmup` after the client started. The client runs at real-time
        # priority below the gateway's, as in the namespace tests.
        client = subprocess.Popen(["ip", "netns", "exec", _ns(name, "c"), *_prio(40), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(max(warmup, 0.0))
        m0 = _metrics_or_fail(name)
        out, err = client.communicate()
        m1 = _metrics_or_fail(name)
        if client.returncode != 0:
            msg = " ".join((err or out).split()) or f"exit status {client.returncode}"
            raise GatewayError(f"c0: iperf3 -c: {msg}")
    finally:
        server.kill()
        server.wait()
    j = json.loads(out)
    streams = j["end"]["streams"]
    rows: list[dict[str, Any]] = []
    for i, s in enumerate(streams):
        snd, rcv = s["sender"], s["receiver"]
        rows.append({
            "id": i,
            "kind": "bulk",
            "cc": cc,
            "src": "client",
            "dst": "server",
            "start_s": 0.0,
            "bytes_delivered": int(rcv["bytes"]),
            "goodput_bps": float(rcv["bits_per_second"]),
            "retransmitted_bytes": None,
            "retransmits": int(snd.get("retransmits", 0)),
            "lost_packets": None,
            "fct_s": None,
            "mean_rtt_s": snd["mean_rtt"] * 1e-6 if "mean_rtt" in snd else None,
        })
    queue = _queue_summary(m0, m1)
    goodputs = [float(r["goodput_bps"]) for r in rows]
    summary: dict[str, Any] = {
        "scenario": f"testbed:{name}",
        "seed": None,
        "sim_time_s": float(duration),
        "warmup_s": float(warmup),
        "wall_time_s": time.monotonic() - wall0,
        "flows": rows,
        "queues": [queue],
        "jain_goodput": _jain(goodputs),
        "aggregate_goodput_bps": sum(goodputs),
        "options": {"testbed": True, "cc": cc},
    }
    return summary


XFER_PORT = 5301

# The receiving side of `transfer`: accept `n` connections, read `size` bytes from each and
# report, per connection, the client's port and the CLOCK_MONOTONIC time of its last byte.
_XFER_SERVER = r"""
import json, socket, sys, threading, time
n, size, port = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("0.0.0.0", port)); ls.listen(n)
out = []
def rx(c, peer):
    buf = bytearray(1 << 20); got = 0
    while got < size:
        k = c.recv_into(buf, min(len(buf), size - got))
        if k == 0:
            break
        got += k
    out.append({"port": peer[1], "bytes": got, "t_end_ns": time.monotonic_ns()})
    c.close()
ts = []
for _ in range(n):
    c, peer = ls.accept()
    t = threading.Thread(target=rx, args=(c, peer)); t.start(); ts.append(t)
for t in ts:
    t.join()
print(json.dumps(out))
"""

# The sending side: `n` connections with the kernel congestion control `cc`, each writes `size`
# bytes; per connection the port, the CLOCK_MONOTONIC time before connect(), and the sender's
# smoothed RTT (tcp_info tcpi_rtt, µs) sampled every 100 ms while it sends.
_XFER_CLIENT = r"""
import json, socket, struct, sys, threading, time
n, size, server, port, cc = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
out = [None] * n
def tx(i):
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    t0 = time.monotonic_ns()
    s.connect((server, port))
    chunk = memoryview(bytes(1 << 18)); left = size; rtts = []; last = 0
    while left > 0:
        k = min(left, len(chunk)); s.sendall(chunk[:k]); left -= k
        now = time.monotonic_ns()
        if now - last >= 100_000_000:
            rtts.append(struct.unpack_from("I", s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104), 68)[0]); last = now
    retrans = struct.unpack_from("I", s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104), 100)[0]
    out[i] = {"port": s.getsockname()[1], "t_start_ns": t0, "srtt_us": rtts, "retransmits": retrans}
    s.shutdown(socket.SHUT_WR); s.recv(1); s.close()
ts = [threading.Thread(target=tx, args=(i,)) for i in range(n)]
for t in ts: t.start()
for t in ts: t.join()
print(json.dumps(out))
"""


def transfer(name: str = "sluice", *, flows: int = 1, size: int = 10_000_000, cc: str = "cubic") -> dict[str, Any]:
    """``flows`` simultaneous file transfers of ``size`` bytes each from the client to the
    server, with the kernel congestion control ``cc``; returns the summary with each flow's
    ``fct_s``: from the client's ``connect()`` to the server reading the last byte, both read
    from the one ``CLOCK_MONOTONIC`` the namespaces share. ``mean_rtt_s`` is the mean of the
    sender's smoothed RTT (``tcp_info``) sampled every 100 ms while it writes; ``goodput_bps``
    is ``size · 8 / fct_s``. The queue's statistics cover the whole transfer."""
    if cc not in CONGESTION_CONTROLS:
        raise GatewayError(f"c0: transfer: congestion control {cc!r}: expected one of {', '.join(CONGESTION_CONTROLS)}")
    if not _state_dir(name).exists():
        raise GatewayError(f"{_ns(name, 'g')}: transfer: no testbed named {name!r} is up (sluice testbed up {name})")
    import sys

    wall0 = time.monotonic()
    server = subprocess.Popen(["ip", "netns", "exec", _ns(name, "s"), *_prio(40), sys.executable, "-c", _XFER_SERVER, str(int(flows)), str(int(size)), str(XFER_PORT)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(200):
            if f":{XFER_PORT}" in _in(name, "s", ["ss", "-ltn"], "s0", "ss -ltn"):
                break
            time.sleep(0.02)
        m0 = _metrics_or_fail(name)
        out = _in(name, "c", [*_prio(40), sys.executable, "-c", _XFER_CLIENT, str(int(flows)), str(int(size)), SERVER, str(XFER_PORT), cc], "c0", "transfer client")
        sout, serr = server.communicate(timeout=60)
        m1 = _metrics_or_fail(name)
        if server.returncode != 0:
            raise GatewayError(f"s0: transfer server: {' '.join(serr.split())}")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    ends = {r["port"]: r for r in json.loads(sout)}
    rows: list[dict[str, Any]] = []
    for i, c in enumerate(json.loads(out)):
        e = ends[c["port"]]
        fct = (e["t_end_ns"] - c["t_start_ns"]) * 1e-9
        rtts = c["srtt_us"]
        rows.append({
            "id": i, "kind": "file", "cc": cc, "src": "client", "dst": "server", "start_s": 0.0,
            "bytes_delivered": int(e["bytes"]), "goodput_bps": e["bytes"] * 8 / fct,
            "retransmitted_bytes": None, "retransmits": int(c["retransmits"]), "lost_packets": None,
            "fct_s": fct, "mean_rtt_s": sum(rtts) / len(rtts) * 1e-6 if rtts else None,
        })
    queue = _queue_summary(m0, m1)
    goodputs = [float(r["goodput_bps"]) for r in rows]
    return {
        "scenario": f"testbed:{name}", "seed": None, "sim_time_s": max(r["fct_s"] for r in rows), "warmup_s": 0.0,
        "wall_time_s": time.monotonic() - wall0, "flows": rows, "queues": [queue],
        "jain_goodput": _jain(goodputs), "aggregate_goodput_bps": sum(goodputs),
        "options": {"testbed": True, "cc": cc, "size": int(size)},
    }


def down(name: str = "sluice") -> None:
    """Stop the gateway and remove the namespaces (whatever of them exists)."""
    state = _state_dir(name)
    pid_file = state / "gateway.pid"
    if pid_file.exists():
        try:
            os.kill(int(pid_file.read_text()), signal.SIGTERM)
        except (ProcessLookupError, ValueError):
            pass
    existing = _call(["ip", "netns", "list"], _ns(name, "g"), "ip netns list", check=False)
    for role in ("c", "g", "s"):
        ns = _ns(name, role)
        if any(line.split()[0] == ns for line in existing.splitlines() if line.strip()):
            _call(["ip", "netns", "del", ns], ns, "ip netns del")
    if state.exists():
        shutil.rmtree(state, ignore_errors=True)
