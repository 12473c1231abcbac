#!/usr/bin/env python3
"""Speed of the Linux gateway (docs/gateway.md) in network namespaces, as root.

    python3 bench/linux_gateway.py [--gateway target/release/sluice-gateway] [--seconds 10]
    python3 bench/linux_gateway.py --equal-rate [--pairs 5] [--seconds 10] [--rate 500Mbps]
                                   [--flows 4] [--rwm-rtt 4ms] [--perf]
                                   [--mode shaped [--delay 10ms] [--limit 1250pkt]]

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

`--equal-rate` prints a fourth instead, the gateway's CPU per frame with RWM against drop-tail
at the same frame rate. `--mode paced` (the default): `--flows` TCP flows (iperf3 -P), each
sender paced by the kernel to `--rate` / `--flows` (iperf3 --fq-rate), through a gateway with
no delay and no shaping (its loop has no timers to spin on); RWM with `capacity = --rate` and
`bdp_source = "configured_rtt"`, `configured_rtt = --rwm-rtt`, a cap per flow below the
windows the kernel advertises (so RWM lowers every window) and above what a paced flow needs
(so it does not change the traffic). `--mode shaped`: the data egress shaped to `--rate` with
`--delay` each way in the gateway's delay line, a drop-tail queue of `--limit`, RWM's default
table (each flow's share of the rate x its handshake RTT); there the loop spins between frames
due less than 20 us apart, so its CPU per frame measures the spin (bench/linux-gateway.md).
Drop-tail and RWM run alternately, `--pairs` times, a new gateway each run; per run the
goodput, the frames sent in both directions, the windows RWM lowered, the gateway's CPU (utime
+ stime), its wake-ups and the load average; per pair the ratio RWM / drop-tail of CPU per
frame. `--perf` also splits the gateway's CPU by call stack (`perf record -e cpu-clock`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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
    return sum(cpu_split(pid))


def cpu_split(pid: int) -> tuple[float, float]:
    """utime and stime of `pid`, in seconds."""
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(f[11]) / os.sysconf("SC_CLK_TCK"), int(f[12]) / os.sysconf("SC_CLK_TCK")


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


def scrape() -> dict[str, float]:
    """The gateway's metrics: each series' value summed over its labels, by name."""
    # The gateway answers whether or not the request came within 100 ms; a scraper held off the
    # CPU longer than that (both cores busy with real-time work) sees a reset: ask again.
    for _ in range(5):
        m = sh("g", "curl -sS --max-time 5 http://127.0.0.1:9464/metrics", check=False)
        if "sluice_gateway_tx_frames_total" in m:
            break
        time.sleep(0.2)
    else:
        sys.exit("g: the gateway's metrics did not answer")
    out: dict[str, float] = {}
    for line in m.splitlines():
        if line.startswith("sluice_gateway_"):
            name = line.split("{", 1)[0].split(" ", 1)[0].removeprefix("sluice_gateway_")
            key = name + ("[gc]" if 'queue="gc"' in line else "[gs]" if 'queue="gs"' in line else "")
            out[key] = out.get(key, 0.0) + float(line.rsplit(" ", 1)[1])
    return out


def wakeups(pid: int) -> int:
    """Voluntary context switches of `pid` (each a sleep in `ppoll` and a wake-up)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("voluntary_ctxt_switches:"):
            return int(line.split()[1])
    return 0


# Where the gateway's CPU goes, by the call stack of each `perf record -e cpu-clock` sample (the
# first rule that matches). The endpoints' kernel IP/TCP work runs in the gateway's process
# when its `send` into a veth hands the frame to the peer namespace's stack (softirq at the
# end of the system call) or an interrupt lands while it runs: that is the client's and the
# server's work, charged to the gateway's stime.
PERF_PERIOD_NS = 100_000
PERF_RULES = (
    ("endpoints_ip_tcp", ("tcp_", "bbr_", "ip_rcv", "ip_list_rcv", "ip_local_deliver", "ip_queue_xmit", "__ip_queue_xmit")),
    ("packet_rx", ("tpacket_rcv", "packet_rcv")),
    ("send", ("__sys_sendto", "packet_sendmsg")),
    ("sleep_wake", ("ppoll", "do_sys_poll", "schedule", "finish_task_switch")),
)


def perf_categories(path: Path) -> dict[str, int]:
    """Samples of a `perf record -g` file by PERF_RULES; `user` if the sample is in user space."""
    out = subprocess.run(["perf", "script", "-i", str(path), "-F", "ip,sym"], capture_output=True, text=True).stdout
    cats: dict[str, int] = {}
    for block in out.split("\n\n"):
        lines = [line.split(None, 1) for line in block.strip().splitlines() if line.strip()]
        if not lines:
            continue
        syms = [x[1] if len(x) > 1 else "" for x in lines]
        if int(lines[0][0], 16) < 1 << 63:
            cat = "user"
        else:
            cat = next((c for c, pre in PERF_RULES if any(x.startswith(pre) for x in syms)), "other_kernel")
        cats[cat] = cats.get(cat, 0) + 1
    return cats


def bps(rate: str) -> int:
    """"500Mbps" -> 500000000 (the gateway's rate units, decimal)."""
    for unit, k in (("Gbps", 10**9), ("Mbps", 10**6), ("Kbps", 10**3), ("bps", 1)):
        if rate.endswith(unit):
            return int(float(rate[: -len(unit)]) * k)
    sys.exit(f"--rate: expected a rate like 500Mbps, got {rate!r}")


def equal_rate_run(binary: str, tmp: Path, seconds: float, rwm: bool, o: argparse.Namespace) -> dict[str, float]:
    """One run of the equal-rate figure (module doc): `o.flows` iperf3 flows client -> server."""
    pace = ""
    if o.mode == "shaped":
        cfg = (
            f'metrics = "127.0.0.1:9464"\n[[egress]]\ninterface = "gs"\nrate = "{o.rate}"\ndelay = "{o.delay}"\n'
            f'qdisc = {{ kind = "drop_tail", limit = "{o.limit}" }}\n[[egress]]\ninterface = "gc"\ndelay = "{o.delay}"\n'
        )
        ctl = '{ kind = "rwm" }'
    else:
        # No shaping and no delay (no timers in the loop but the 10 Gb/s shaper's 1.2 us per
        # frame); the senders pace themselves (SO_MAX_PACING_RATE) to rate / flows each.
        cfg = f'metrics = "127.0.0.1:9464"\n[[egress]]\ninterface = "gs"\nrate = "10Gbps"\n[[egress]]\ninterface = "gc"\n'
        ctl = f'{{ kind = "rwm", capacity = "{o.rate}", bdp_source = "configured_rtt", configured_rtt = "{o.rwm_rtt}" }}'
        pace = f" --fq-rate {bps(o.rate) // o.flows}"
    if rwm:
        cfg += f'[gateway]\ncontroller = {ctl}\nmonitor = "gs"\n'
    gw = start_gateway(binary, cfg, tmp)
    # Both iperf3 ends at real-time priority 40, below the gateway's 50 (as `sluice testbed`),
    # so the other jobs on the machine do not hold the senders below the rate.
    srv = subprocess.Popen(["ip", "netns", "exec", f"{P}s", "chrt", "-f", "40", "iperf3", "-s", "-1"], stdout=subprocess.DEVNULL)
    time.sleep(0.3)
    load0 = os.getloadavg()[0]
    m0 = scrape()
    perf = None
    if o.perf:
        data = tmp / "perf.data"
        perf = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-c", str(PERF_PERIOD_NS), "-g", "-o", str(data), "-p", str(gw.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
    w0, (u0, s0), t0 = wakeups(gw.pid), cpu_split(gw.pid), time.monotonic()
    out = json.loads(sh("c", f"chrt -f 40 iperf3 -c {SERVER} -P {o.flows} -t {seconds}{pace} -J"))
    t1 = time.monotonic()
    srv.wait()
    # The frames still in the delay line leave within 2 x delay: count their CPU and frames too.
    time.sleep(0.3)
    (u1, s1), w1 = cpu_split(gw.pid), wakeups(gw.pid)
    if perf:
        perf.send_signal(2)
        perf.wait()
    m1 = scrape()
    load1 = os.getloadavg()[0]
    gw.terminate()
    gw.wait()
    d = {k: m1.get(k, 0.0) - m0.get(k, 0.0) for k in m1}
    frames = d["tx_frames_total[gs]"] + d["tx_frames_total[gc]"]
    cpu = (u1 - u0) + (s1 - s0)
    return {
        "goodput_bps": out["end"]["sum_received"]["bits_per_second"],
        "retransmits": out["end"]["sum_sent"].get("retransmits", 0),
        "frames": frames,
        "data_frames": d["tx_frames_total[gs]"],
        "ack_frames": d["tx_frames_total[gc]"],
        "frames_per_s": frames / (t1 - t0),
        "wakeups_per_frame": (w1 - w0) / frames if frames else float("nan"),
        "queue_drops": sum(v for k, v in d.items() if k.startswith("dropped_total")),
        "acks_at_rewrite_point": d.get("acks_total", 0.0),
        "rewrites": d.get("rewrites_total", 0.0),
        "gateway_cpu_s": cpu,
        "gateway_utime_s": u1 - u0,
        "gateway_stime_s": s1 - s0,
        "gateway_cpu_cores": cpu / (t1 - t0),
        "cpu_ns_per_frame": cpu * 1e9 / frames if frames else float("nan"),
        "load_average_before": load0,
        "load_average_after": load1,
    } | ({f"perf_ns_per_frame_{k}": v * PERF_PERIOD_NS / frames for k, v in perf_categories(tmp / "perf.data").items()} if perf else {})


def equal_rate(binary: str, tmp: Path, seconds: float, o: argparse.Namespace) -> dict[str, object]:
    """Drop-tail and RWM alternately, `pairs` times; per pair RWM / drop-tail of CPU per frame."""
    # A connection does not inherit the previous run's ssthresh, so runs are independent.
    for ns in "cs":
        sh(ns, "sysctl -qw net.ipv4.tcp_no_metrics_save=1")
    runs = []
    for i in range(o.pairs):
        dt = equal_rate_run(binary, tmp, seconds, False, o)
        rw = equal_rate_run(binary, tmp, seconds, True, o)
        runs.append({"pair": i + 1, "drop_tail": dt, "rwm": rw, "cpu_per_frame_ratio": rw["cpu_ns_per_frame"] / dt["cpu_ns_per_frame"], "goodput_ratio": rw["goodput_bps"] / dt["goodput_bps"], "frames_ratio": rw["frames"] / dt["frames"]})
        print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
    ratios = [r["cpu_per_frame_ratio"] for r in runs]
    return {
        "config": {k: getattr(o, k) for k in ("mode", "rate", "delay", "flows", "limit", "rwm_rtt", "seconds", "pairs")},
        "pairs": runs,
        "cpu_per_frame_ratio_median": statistics.median(ratios),
        "cpu_per_frame_ratio_range": [min(ratios), max(ratios)],
        "goodput_ratio_range": [min(r["goodput_ratio"] for r in runs), max(r["goodput_ratio"] for r in runs)],
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
    ap.add_argument("--equal-rate", action="store_true", help="only the equal-rate figure: RWM against drop-tail at the same frame rate")
    ap.add_argument("--pairs", type=int, default=5, help="--equal-rate: drop-tail/RWM pairs (default 5)")
    ap.add_argument("--mode", choices=("paced", "shaped"), default="paced", help="--equal-rate: senders paced, no shaping or delay (default), or the egress shaped with a delay line")
    ap.add_argument("--rwm-rtt", default="4ms", help="--equal-rate --mode paced: RWM's configured_rtt (default 4ms: with 500Mbps and 4 flows a cap of 62,500 bytes per flow, below every window the kernel advertises here and above what a flow paced to 125 Mb/s needs)")
    ap.add_argument("--perf", action="store_true", help="--equal-rate: also split the gateway's CPU by call stack (perf record -e cpu-clock)")
    ap.add_argument("--rate", default="500Mbps", help="--equal-rate: the rate (paced: the senders' total pacing rate and RWM's capacity; shaped: the data egress's rate; default 500Mbps)")
    ap.add_argument("--delay", default="10ms", help="--equal-rate --mode shaped: the delay line, each way (default 10ms)")
    ap.add_argument("--flows", type=int, default=4, help="--equal-rate: TCP flows, iperf3 -P (default 4)")
    ap.add_argument("--limit", default="1250pkt", help="--equal-rate --mode shaped: the drop-tail queue's limit (default 1250pkt)")
    a = ap.parse_args()
    if a.pairs < 1 or a.flows < 1:
        sys.exit("--pairs and --flows: must be at least 1")
    setup()
    try:
        with tempfile.TemporaryDirectory() as d:
            tmp = Path(d)
            if a.equal_rate:
                load = os.getloadavg()
                result = {"load_average": load, "cores": os.cpu_count(), "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())}
                result["equal_rate"] = equal_rate(a.gateway, tmp, a.seconds, a)
                result["load_average_after"] = os.getloadavg()
                print(json.dumps(result, indent=2))
                return
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
