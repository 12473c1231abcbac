#!/usr/bin/env python3
"""Sluice against Linux: the same set-up in network namespaces (kernel TCP through
``sluice-gateway``) and in the simulator (docs/validation.md, "Simulator against Linux").

    sudo python3 validation/linux_vs_sim.py linux dumbbell --runs 2 --out validation/fixtures/linux/dumbbell.json
    sudo python3 validation/linux_vs_sim.py linux rwm --out validation/fixtures/linux/rwm.json
    python3 validation/linux_vs_sim.py compare validation/fixtures/linux/dumbbell.json validation/fixtures/linux/rwm.json

``linux`` runs the testbed (root, ``ip``, ``ethtool``, ``iperf3``, ``sluice-gateway``) and stores
its records; ``compare`` runs the simulator on the scenario generated from each record's set-up
(:func:`scenario`) over ``--seeds`` seeds and prints one table per experiment with the issue's
tolerances: goodput and mean RTT within 10 %, queue mean (mean sojourn) within 25 % for the
dumbbell; median FCT within 10 %, Jain's index within 0.05 and mean RTT within 10 % for RWM.

The two sides are one set-up:

- **Path.** client --(veth)-- gateway --(veth)-- server. The gateway's egress toward the server
  is the bottleneck (shaper, queue discipline, delay RTT/2); its egress toward the client adds
  RTT/2 and no shaping. In the simulator: ``client --[10 Gb/s, 0 s]-- gw --[R, RTT/2]-- server``,
  the queue on ``gw->server``, no device queue below it (the gateway dequeues only when its
  shaper's link is free), and a drop-tail queue that never fills on the way back.
- **Rate.** The simulator serializes each IP packet with 38 bytes of Ethernet framing
  (``l2_overhead = 38``: header, FCS, preamble, gap); the gateway's shaper counts the IP packet
  plus the 14-byte header. The gateway's rate is therefore ``R · 1514 / 1538`` so that a
  1500-byte packet takes the same ``1538 · 8 / R`` on both (98,439,531 b/s for R = 100 Mb/s).
- **Queue.** The same TOML table on both (they share ``sluice-core``'s disciplines).
- **Endpoints.** MTU 1500 on every veth, so MSS 1448 with timestamps, SACK on both sides;
  initial window 10; ECN off (``tcp_ecn = 0`` in the namespaces, ``ecn = false``); every offload
  off on every veth (TSO, GSO, GRO, TX/RX checksum); the kernel's buffer maxima (``tcp_wmem[2]``
  4 MiB, ``tcp_rmem[2]`` 32 MiB on 6.18, read from the namespace) as ``snd_buf``/``rcv_buf``; Linux's RTO, window-update, duplicate-ACK and
  delayed-ACK rules; CUBIC with Linux's HyStart; no pacing for CUBIC and Reno (the kernel paces
  them only under ``fq``; the namespaces run veth's default qdisc), BBR's own pacing.
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: Kernel congestion control -> Sluice's.
CC = {"cubic": "cubic", "bbr": "bbr", "reno": "new_reno"}
QDISCS = {
    "drop_tail": '{ kind = "drop_tail", limit = "300pkt" }',
    "pie": '{ kind = "pie", limit = "1000pkt" }',
    "codel": '{ kind = "codel", limit = "1000pkt" }',
}
RATE_BPS = 100_000_000
# The testbed kernel's (6.18) buffer maxima, tcp_wmem[2] and tcp_rmem[2]; a record's set-up
# stores the values read in the client's namespace (tcp_wmem, tcp_rmem) and wins over these.
SND_BUF = 4_194_304
RCV_BUF = 33_554_432
# RWM experiment (Ciaccia et al. 2019 at a tenth of the rate): 100 MB files, the edge buffer of
# 50.9 ms (the reproduction's 6.2 MB at 1 Gb/s) as 413 packets of 1500 B at 100 Mb/s.
RWM_SIZE = 100_000_000
RWM_QDISC = '{ kind = "drop_tail", limit = "413pkt" }'
RWM_RTTS_MS = (20, 60, 100, 140)

TOL = {"goodput": 0.10, "rtt": 0.10, "queue": 0.25, "fct": 0.10, "jain": 0.05}


def gateway_rate(rate_bps: int) -> int:
    """The gateway's shaper rate (14 bytes of framing) equal to ``rate_bps`` with 38 bytes for
    a 1500-byte IP packet."""
    return rate_bps * 1514 // 1538


def scenario(setup: dict[str, Any], seed: int) -> str:
    """The simulator's scenario for one set-up (a record's ``setup``)."""
    cc = CC[setup["cc"]]
    tcp = [
        f'cc = "{cc}"',
        "mss = 1448",
        f'snd_buf = "{setup.get("tcp_wmem", SND_BUF)}B"',
        f'rcv_buf = "{setup.get("tcp_rmem", RCV_BUF)}B"',
        'rto = "linux"',
        'wnd_update = "linux"',
        'dupack = "linux"',
        'delack = "linux"',
        "ecn = false",
        "initial_cwnd = 10",
        f'pacing = "{"cc" if cc == "bbr" else "off"}"',
    ]
    if cc == "cubic":
        tcp.append('cubic = { hystart = "linux" }')
    half = setup["rtt_ms"] / 2
    if setup.get("size"):
        app = f'{{ kind = "file", size = "{setup["size"]}B" }}'
        duration, warmup = 600.0, 0.0
    else:
        app = '{ kind = "bulk" }'
        duration, warmup = setup["warmup_s"] + setup["duration_s"], setup["warmup_s"]
    lines = [
        'name = "linux-vs-sim"',
        f'duration = "{duration:g}s"',
        f'warmup = "{warmup:g}s"',
        f"seed = {seed}",
        "[tcp]",
        *tcp,
        "[topology]",
        'kind = "graph"',
        'nodes = [{ name = "client", kind = "host" }, { name = "gw", kind = "router" }, { name = "server", kind = "host" }]',
        "links = [",
        '  { a = "client", b = "gw", rate = "10Gbps", delay = "0s", l2_overhead = 38 },',
        f'  {{ a = "gw", b = "server", rate = "{setup["rate_bps"]}bps", delay = "{half:g}ms", l2_overhead = 38, device_queue = 0, '
        f'queue = {setup["qdisc"]}, reverse_queue = {{ kind = "drop_tail", limit = "100000pkt" }} }},',
        "]",
        "[[flows]]",
        f"count = {setup['flows']}",
        'src = "client"',
        'dst = "server"',
        f"app = {app}",
        'start = { uniform = ["0s", "10ms"] }',
    ]
    if setup.get("controller"):
        lines += ["[[gateways]]", 'node = "gw"', 'monitor = "gw->server"', f"controller = {setup['controller']}"]
    lines += ["[monitor]", 'queues = ["gw->server"]']
    return "\n".join(lines) + "\n"


def sim_binary() -> str:
    for cand in (os.environ.get("SLUICE_SIM"), str(ROOT / "target" / "release" / "sluice-sim")):
        if cand and Path(cand).exists():
            return cand
    raise SystemExit("error: sluice-sim: no binary (cargo build --release -p sluice-sim, or set SLUICE_SIM)")


def run_sim(setup: dict[str, Any], seed: int) -> dict[str, Any]:
    """The simulator's summary for one set-up: through the Python package if it is installed,
    else the release binary."""
    try:
        import sluice  # noqa: PLC0415
    except ImportError:
        sluice = None
    if sluice is not None:
        return dict(sluice.run(scenario(setup, seed)).summary)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.toml"
        path.write_text(scenario(setup, seed))
        out = subprocess.run([sim_binary(), str(path)], capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise SystemExit(f"error: sluice-sim: {out.stderr.strip()}")
        return json.loads(out.stdout)


def jain(xs: list[float]) -> float:
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def measures(summary: dict[str, Any]) -> dict[str, float | None]:
    """What is compared, from one summary (simulator or testbed)."""
    flows = summary["flows"]
    rtts = [f["mean_rtt_s"] for f in flows if f.get("mean_rtt_s") is not None]
    q = summary["queues"][0] if summary["queues"] else {}
    m: dict[str, float | None] = {
        "goodput_mbps": sum(f["goodput_bps"] for f in flows) / 1e6 if all(f.get("goodput_bps") is not None for f in flows) else None,
        "rtt_ms": statistics.mean(rtts) * 1e3 if rtts else None,
        "queue_ms": q["mean_sojourn_s"] * 1e3 if q.get("mean_sojourn_s") is not None else None,
        "drops": float(q.get("dropped", 0)),
    }
    fcts = [f["fct_s"] for f in flows if f.get("fct_s") is not None]
    if fcts and len(fcts) == len(flows):
        m["fct_s"] = statistics.median(fcts)
        sizes = [f["bytes_delivered"] for f in flows]
        m["jain"] = jain([s / t for s, t in zip(sizes, fcts)])
    return m


def mean_measures(ms: list[dict[str, float | None]]) -> dict[str, float | None]:
    keys = ms[0].keys()
    out: dict[str, float | None] = {}
    for k in keys:
        vals = [m[k] for m in ms if m.get(k) is not None]
        out[k] = statistics.mean(vals) if vals else None
    return out


# ---------------------------------------------------------------------------------------------
# Linux side


def linux(experiment: str, runs: int, duration: float, warmup: float, out: Path, only: list[str] | None) -> None:
    from sluice import testbed  # noqa: PLC0415 - needs root and the testbed's tools

    gw = str(ROOT / "target" / "release" / "sluice-gateway")
    records: list[dict[str, Any]] = json.loads(out.read_text())["records"] if out.exists() else []
    setups: list[dict[str, Any]] = []
    if experiment == "dumbbell":
        for qname, q in QDISCS.items():
            for cc in ("cubic", "bbr", "reno"):
                setups.append({"case": f"{qname}-{cc}", "cc": cc, "qdisc": q, "flows": 4, "rtt_ms": 20, "rate_bps": RATE_BPS,
                               "duration_s": duration, "warmup_s": warmup, "controller": None})
    else:
        for flows in (1, 4):
            for rtt in RWM_RTTS_MS:
                for ctl in (None, '{ kind = "rwm" }'):
                    setups.append({"case": f"rwm-{flows}f-{rtt}ms-{'rwm' if ctl else 'none'}", "cc": "cubic", "qdisc": RWM_QDISC,
                                   "flows": flows, "rtt_ms": rtt, "rate_bps": RATE_BPS, "size": RWM_SIZE, "controller": ctl})
    for setup in setups:
        if only and setup["case"] not in only:
            continue
        name = "lvs"
        testbed.down(name)
        testbed.up(name, rate=f"{gateway_rate(setup['rate_bps'])}bps", delay=f"{setup['rtt_ms'] / 2:g}ms",
                   reverse_delay=f"{setup['rtt_ms'] / 2:g}ms", qdisc=setup["qdisc"], controller=setup["controller"], gateway=gw)
        for key in ("tcp_rmem", "tcp_wmem"):
            out_ = subprocess.run(["ip", "netns", "exec", f"{name}-c", "sysctl", "-n", f"net.ipv4.{key}"], capture_output=True, text=True, check=True)
            setup[key] = int(out_.stdout.split()[2])
        try:
            for r in range(runs):
                if setup.get("size"):
                    s = testbed.transfer(name, flows=setup["flows"], size=setup["size"], cc=setup["cc"])
                else:
                    s = testbed.run(name, flows=setup["flows"], duration=setup["duration_s"], cc=setup["cc"], warmup=setup["warmup_s"])
                rec = {"setup": setup, "run": r, "measures": measures(s), "summary": s,
                       "recorded": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load": os.getloadavg()[0]}
                records.append(rec)
                print(setup["case"], r, json.dumps(rec["measures"]), flush=True)
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(json.dumps({"experiment": experiment, "uname": os.uname().release, "records": records}, indent=1) + "\n")
        finally:
            testbed.down(name)


# ---------------------------------------------------------------------------------------------
# Comparison


def linux_means(path: Path) -> dict[str, tuple[dict[str, Any], dict[str, float | None], int]]:
    """Per case: its set-up, the mean of its Linux runs' measures, and the number of runs."""
    by: dict[str, list[dict[str, Any]]] = {}
    for rec in json.loads(path.read_text())["records"]:
        by.setdefault(rec["setup"]["case"], []).append(rec)
    return {c: (rs[0]["setup"], mean_measures([r["measures"] for r in rs]), len(rs)) for c, rs in by.items()}


def rel(sim: float | None, lin: float | None) -> float | None:
    if sim is None or lin is None or lin == 0:
        return None
    return sim / lin - 1


def verdicts(sim: dict[str, float | None], lin: dict[str, float | None]) -> dict[str, bool | None]:
    """Which measures are within the tolerances (None: not measured on a side). Bulk runs are
    judged on goodput, mean RTT and queue mean; file transfers (the RWM experiment) on median
    FCT, Jain's index and mean RTT."""
    v: dict[str, bool | None] = {}
    transfers = "fct_s" in lin
    judged = ("fct_s", "jain", "rtt_ms") if transfers else ("goodput_mbps", "rtt_ms", "queue_ms")
    for key, tol, kind in (("goodput_mbps", "goodput", "rel"), ("rtt_ms", "rtt", "rel"), ("queue_ms", "queue", "rel"),
                           ("fct_s", "fct", "rel"), ("jain", "jain", "abs")):
        if key not in judged or key not in lin or key not in sim:
            continue
        a, b = sim[key], lin[key]
        if a is None or b is None:
            v[key] = None
        elif kind == "rel":
            v[key] = abs(a / b - 1) <= TOL[tol]
        else:
            v[key] = abs(a - b) <= TOL[tol]
    return v


def fmt(x: float | None, p: int = 2) -> str:
    return "–" if x is None else f"{x:.{p}f}"


def compare(paths: list[Path], seeds: int) -> int:
    for path in paths:
        cases = linux_means(path)
        fct = any("size" in s for s, _, _ in cases.values() if s.get("size"))
        if fct:
            print("| case | Linux median FCT s | Sluice | Δ | Linux Jain | Sluice | Linux mean RTT ms | Sluice | Δ | Linux queue ms | Sluice | verdict |")
            print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        else:
            print("| case | Linux goodput Mb/s | Sluice | Δ | Linux mean RTT ms | Sluice | Δ | Linux queue ms | Sluice | Δ | Linux drops | Sluice | verdict |")
            print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for case, (setup, lin, n) in cases.items():
            sim = mean_measures([measures(run_sim(setup, seed)) for seed in range(1, seeds + 1)])
            v = verdicts(sim, lin)
            bad = [k.split("_")[0] for k, ok in v.items() if ok is False]
            verdict = "agree" if not bad else "differ: " + ", ".join(bad)

            def d(k: str) -> str:
                r = rel(sim.get(k), lin.get(k))
                return "–" if r is None else f"{r * 100:+.1f} %"

            if fct:
                print(f"| {case} ({n}) | {fmt(lin['fct_s'])} | {fmt(sim['fct_s'])} | {d('fct_s')} | {fmt(lin['jain'], 3)} | {fmt(sim['jain'], 3)} | "
                      f"{fmt(lin['rtt_ms'], 1)} | {fmt(sim['rtt_ms'], 1)} | {d('rtt_ms')} | {fmt(lin['queue_ms'], 1)} | {fmt(sim['queue_ms'], 1)} | {verdict} |")
            else:
                print(f"| {case} ({n}) | {fmt(lin['goodput_mbps'])} | {fmt(sim['goodput_mbps'])} | {d('goodput_mbps')} | {fmt(lin['rtt_ms'], 1)} | "
                      f"{fmt(sim['rtt_ms'], 1)} | {d('rtt_ms')} | {fmt(lin['queue_ms'], 1)} | {fmt(sim['queue_ms'], 1)} | {d('queue_ms')} | "
                      f"{fmt(lin['drops'], 0)} | {fmt(sim['drops'], 0)} | {verdict} |")
        print()
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    lx = sub.add_parser("linux", help="run the testbed and store its records (root)")
    lx.add_argument("experiment", choices=["dumbbell", "rwm"])
    lx.add_argument("--runs", type=int, default=1)
    lx.add_argument("--duration", type=float, default=20.0)
    lx.add_argument("--warmup", type=float, default=2.0)
    lx.add_argument("--only", nargs="*")
    lx.add_argument("--out", type=Path, required=True)
    cp = sub.add_parser("compare", help="run the simulator on the stored set-ups and print the tables")
    cp.add_argument("records", type=Path, nargs="+")
    cp.add_argument("--seeds", type=int, default=3)
    sc = sub.add_parser("scenario", help="print the simulator's scenario of one stored case")
    sc.add_argument("records", type=Path)
    sc.add_argument("case")
    a = ap.parse_args()
    if a.cmd == "linux":
        linux(a.experiment, a.runs, a.duration, a.warmup, a.out, a.only)
        return 0
    if a.cmd == "scenario":
        print(scenario(linux_means(a.records)[a.case][0], 1), end="")
        return 0
    return compare(a.records, a.seeds)


if __name__ == "__main__":
    sys.exit(main())
