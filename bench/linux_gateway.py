#!/usr/bin/env python3
"""Speed of the Linux gateway (docs/gateway.md) in network namespaces, as root.

    python3 bench/linux_gateway.py [--gateway target/release/sluice-gateway] [--seconds 10]

Three figures, printed as JSON (bench/linux-gateway.md records them):

* forwarding rate: one TCP flow client -> server through the gateway with no shaping (a 10 Gb/s
  "rate", far above what the machine forwards), drop-tail and then RWM, with each receive ring
  version; the goodput, the gateway's CPU time over the run (utime + stime from /proc), goodput
  per busy core, and CPU time per frame forwarded (both directions; RWM holds each flow to its
  share of the configured 10 Gb/s, so its goodput is window-limited and the cost per frame is
  the figure to compare);
* added latency at light load: ping RTTs (1000 echoes, 5 ms apart) client -> server through the
  gateway with no delay, against a kernel bridge in the same namespace; percentiles of both, for
  each receive ring version;
* nothing here is a test: figures move with the machine's load, which is printed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

P = f"slb{os.getpid() % 10000}"
CLIENT, SERVER = "10.9.0.1", "10.9.0.2"


def sh(ns: str, cmd: str, check: bool = True) -> str:
    out = subprocess.run(["ip", "netns", "exec", f"{P}{ns}", "sh", "-c", cmd], capture_output=True, text=True)
    if check and out.returncode != 0:
        sys.exit(f"{ns}: {cmd}: {out.stderr.strip()}")
    return out.stdout


def setup() -> None:
    for n in "cgs":
        subprocess.run(["ip", "netns", "add", f"{P}{n}"], check=True)
    subprocess.run(["ip", "link", "add", "c0", "netns", f"{P}c", "type", "veth", "peer", "name", "gc", "netns", f"{P}g"], check=True)
    subprocess.run(["ip", "link", "add", "s0", "netns", f"{P}s", "type", "veth", "peer", "name", "gs", "netns", f"{P}g"], check=True)
    sh("g", "sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1")
    sh("c", f"ip addr add {CLIENT}/24 dev c0")
    sh("s", f"ip addr add {SERVER}/24 dev s0")
    for n, d in (("c", "c0"), ("s", "s0"), ("g", "gc"), ("g", "gs")):
        sh(n, f"ip link set lo up && ip link set {d} up && ethtool -K {d} tso off gso off gro off tx off rx off")


def teardown() -> None:
    for n in "cgs":
        subprocess.run(["ip", "netns", "del", f"{P}{n}"], capture_output=True)


def start_gateway(binary: str, cfg: str, tmp: Path) -> subprocess.Popen[bytes]:
    path = tmp / "gw.toml"
    path.write_text(cfg)
    p = subprocess.Popen(["ip", "netns", "exec", f"{P}g", "chrt", "-f", "50", binary, "--config", str(path)])
    time.sleep(0.5)
    if p.poll() is not None:
        sys.exit("the gateway did not start")
    return p


def cpu_s(pid: int) -> float:
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def forwarding(binary: str, tmp: Path, seconds: float, controller: str | None, version: int = 2) -> dict[str, float]:
    cfg = f'metrics = "127.0.0.1:9464"\n[ring]\nversion = {version}\n' + '[[egress]]\ninterface = "gs"\nrate = "10Gbps"\n[[egress]]\ninterface = "gc"\n'
    if controller:
        cfg += f'[gateway]\ncontroller = {controller}\nmonitor = "gs"\n'
    gw = start_gateway(binary, cfg, tmp)
    srv = subprocess.Popen(["ip", "netns", "exec", f"{P}s", "iperf3", "-s", "-1"], stdout=subprocess.DEVNULL)
    time.sleep(0.3)
    c0, t0 = cpu_s(gw.pid), time.monotonic()
    out = json.loads(sh("c", f"iperf3 -c {SERVER} -t {seconds} -J"))
    c1, t1 = cpu_s(gw.pid), time.monotonic()
    srv.wait()
    m = sh("g", "bash -c 'exec 3<>/dev/tcp/127.0.0.1/9464 && printf \"GET / HTTP/1.0\\r\\n\\r\\n\" >&3 && cat <&3'")
    frames = sum(float(line.rsplit(" ", 1)[1]) for line in m.splitlines() if line.startswith("sluice_gateway_tx_frames_total"))
    rewrites = sum(float(line.rsplit(" ", 1)[1]) for line in m.splitlines() if line.startswith("sluice_gateway_rewrites_total"))
    gw.terminate()
    gw.wait()
    bps = out["end"]["sum_received"]["bits_per_second"]
    busy = (c1 - c0) / (t1 - t0)
    return {
        "goodput_bps": bps,
        "gateway_cpu_cores": busy,
        "goodput_bps_per_core": bps / busy if busy > 0 else float("nan"),
        "frames": frames,
        "cpu_ns_per_frame": (c1 - c0) * 1e9 / frames if frames else float("nan"),
        "rewrites": rewrites,
    }


def pings(n: int = 1000) -> list[float]:
    out = sh("c", f"ping -c {n} -i 0.005 -q {SERVER} >/dev/null; ping -c {n} -i 0.005 {SERVER}")
    return sorted(float(line.split("time=")[1].split()[0]) for line in out.splitlines() if "time=" in line)


def pct(xs: list[float], p: float) -> float:
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def latency(binary: str, tmp: Path) -> dict[str, dict[str, float]]:
    res: dict[str, dict[str, float]] = {}
    sh("g", "ip link add br0 type bridge && ip link set gc master br0 && ip link set gs master br0 && ip link set br0 up")
    time.sleep(0.5)
    xs = pings()
    res["kernel_bridge"] = {f"p{p}": pct(xs, p) for p in (50, 90, 99)}
    sh("g", "ip link set gc nomaster && ip link set gs nomaster && ip link del br0")
    for version in (2, 3):
        gw = start_gateway(binary, f'[ring]\nversion = {version}\n[[egress]]\ninterface = "gs"\n[[egress]]\ninterface = "gc"\n', tmp)
        xs = pings()
        gw.terminate()
        gw.wait()
        res[f"gateway_tpacket_v{version}"] = {f"p{p}": pct(xs, p) for p in (50, 90, 99)}
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gateway", default="target/release/sluice-gateway")
    ap.add_argument("--seconds", type=float, default=10.0)
    a = ap.parse_args()
    setup()
    try:
        with tempfile.TemporaryDirectory() as d:
            tmp = Path(d)
            result = {
                "load_average": os.getloadavg(),
                "cores": os.cpu_count(),
                "forwarding_drop_tail": forwarding(a.gateway, tmp, a.seconds, None),
                "forwarding_rwm": forwarding(a.gateway, tmp, a.seconds, '{ kind = "rwm" }'),
                "forwarding_drop_tail_v3": forwarding(a.gateway, tmp, a.seconds, None, 3),
                "forwarding_rwm_v3": forwarding(a.gateway, tmp, a.seconds, '{ kind = "rwm" }', 3),
                "rtt_ms": latency(a.gateway, tmp),
                "load_average_after": os.getloadavg(),
            }
    finally:
        teardown()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
