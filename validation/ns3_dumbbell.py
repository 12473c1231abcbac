#!/usr/bin/env python3
"""ns-3 reference runs of Sluice's validation dumbbells (ns-3 3.44 from PyPI: ``pip install ns3``).

Builds the set-up of validation/README.md — one sender and one receiver node per flow, each on
its own point-to-point access link, routers A and B joined by the bottleneck, the queue disc
under test on A's bottleneck device, one-packet device queues, bulk TCP senders — runs it, and
prints (or writes) a JSON record with the fields of ``validation/fixtures/ns3-reference.json``.

Statistics are taken by running the simulator in slices (``Simulator::Stop`` + ``Run``): the
warm-up, then 10 ms steps in which the bottleneck queue length is sampled. ``wall_run_s`` is the
time spent inside ``Simulator::Run`` only.

Examples:
    python3 validation/ns3_dumbbell.py --case e-single-newreno-fifo            # from the fixture's args
    python3 validation/ns3_dumbbell.py --flows 9 --rtt-table eval9 --bottleneck-rate 100Mbps \\
        --bottleneck-delay 2ms --buffer 900 --duration 100 --warmup 30 --start-window 3
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "validation" / "fixtures" / "ns3-reference.json"

EVAL9_LEFT = [0, 0, 0, 12, 12, 12, 25, 25, 25]  # ms, sender side
EVAL9_RIGHT = [2, 37, 75, 2, 37, 75, 2, 37, 75]  # ms, receiver side


def parse_time_s(s: str) -> float:
    for unit, k in (("us", 1e-6), ("ms", 1e-3), ("ns", 1e-9), ("s", 1.0)):
        if s.endswith(unit):
            return float(s[: -len(unit)]) * k
    return float(s)


def args_from_case(name: str) -> dict:
    fx = json.loads(FIXTURE.read_text())
    case = next(c for c in fx["cases"] if c["case"] == name)
    a = dict(case["args"])
    a["case"] = name
    a["start_times"] = [f["start_s"] for f in case["flows"]]
    a["delays"] = [(f["sender_delay"], f["receiver_delay"]) for f in case["flows"]]
    return a


def run(a: dict) -> dict:
    from ns import ns  # imported late: takes ~20 s

    ns.RngSeedManager.SetSeed(int(a["seed"]))
    ns.RngSeedManager.SetRun(int(a.get("run", 1)))
    C = ns.Config
    C.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue(a["tcp"]))
    C.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(int(a["segment_size"])))
    C.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(int(a["sndbuf"])))
    C.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(int(a["rcvbuf"])))
    C.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(not a.get("no_sack", False)))

    n = int(a["flows"])
    senders = ns.NodeContainer()
    senders.Create(n)
    receivers = ns.NodeContainer()
    receivers.Create(n)
    routers = ns.NodeContainer()
    routers.Create(2)
    stack = ns.InternetStackHelper()
    stack.InstallAll()

    if a.get("delays"):
        delays = [(str(s), str(r)) for s, r in a["delays"]]
    elif a.get("rtt_table") == "eval9":
        delays = [(f"{EVAL9_LEFT[k % 9]}ms", f"{EVAL9_RIGHT[k % 9]}ms") for k in range(n)]
    else:
        d = a.get("access_delay", "1ms")
        delays = [(d, d)] * n

    def p2p(rate: str, delay: str):
        h = ns.PointToPointHelper()
        h.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        h.SetChannelAttribute("Delay", ns.StringValue(delay))
        h.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue("1p"))
        return h

    big = ns.TrafficControlHelper()
    big.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.StringValue("100000p"))
    addr = ns.Ipv4AddressHelper()
    recv_ips = []
    net = 0

    def assign(devs):
        nonlocal net
        addr.SetBase(ns.Ipv4Address(f"10.{net // 250}.{net % 250}.0"), ns.Ipv4Mask("255.255.255.0"))
        net += 1
        return addr.Assign(devs)

    a_node, b_node = routers.Get(0), routers.Get(1)
    for k in range(n):
        sd, rd = delays[k]
        d1 = p2p(a["access_rate"], sd).Install(senders.Get(k), a_node)
        big.Install(d1)
        assign(d1)
        d2 = p2p(a["access_rate"], rd).Install(b_node, receivers.Get(k))
        big.Install(d2)
        ifc = assign(d2)
        recv_ips.append(ifc.GetAddress(1))
    bn = p2p(a["bottleneck_rate"], a["bottleneck_delay"]).Install(a_node, b_node)
    q = ns.TrafficControlHelper()
    kind = {"fifo": "ns3::FifoQueueDisc", "codel": "ns3::CoDelQueueDisc", "pie": "ns3::PieQueueDisc"}[a["qdisc"]]
    q.SetRootQueueDisc(kind, "MaxSize", ns.StringValue(f"{int(a['buffer'])}p"))
    qdiscs = q.Install(bn.Get(0))
    rev = ns.TrafficControlHelper()
    rev.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.StringValue("100000p"))
    rev.Install(bn.Get(1))
    assign(bn)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    rv = ns.CreateObject[ns.UniformRandomVariable]()
    rv.SetAttribute("Min", ns.DoubleValue(0.0))
    rv.SetAttribute("Max", ns.DoubleValue(float(a.get("start_window", 0.0))))
    starts = a.get("start_times") or [rv.GetValue() if float(a.get("start_window", 0)) > 0 else 0.0 for _ in range(n)]
    sinks = []
    port = 5001
    duration = float(a["duration"])
    for k in range(n):
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
        app = sink.Install(receivers.Get(k))
        app.Start(ns.Seconds(0.0))
        sinks.append(ns.DynamicCast[ns.PacketSink](app.Get(0)))
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(recv_ips[k], port).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(int(a.get("send_size", 11584))))
        s = bulk.Install(senders.Get(k))
        s.Start(ns.Seconds(float(starts[k])))
        s.Stop(ns.Seconds(duration))

    qd = qdiscs.Get(0)
    Sim = ns.Simulator
    wall = 0.0

    def run_until(t: float) -> None:
        nonlocal wall
        Sim.Stop(ns.Seconds(t) - Sim.Now())
        t0 = time.perf_counter()
        Sim.Run()
        wall += time.perf_counter() - t0

    warm = float(a["warmup"])
    run_until(warm)
    rx0 = [s.GetTotalRx() for s in sinks]
    st = qd.GetStats()
    recv0, drop0, sent0 = st.nTotalReceivedPackets, st.nTotalDroppedPackets, st.nTotalSentPackets
    dbe0, dad0 = st.nTotalDroppedPacketsBeforeEnqueue, st.nTotalDroppedPacketsAfterDequeue
    step = parse_time_s(str(a.get("qsample", "10ms")))
    samples = []
    t = warm
    while t + 1e-12 < duration:
        samples.append(qd.GetNPackets())
        t = min(duration, t + step)
        run_until(t)
    rx = [s.GetTotalRx() - r for s, r in zip(sinks, rx0)]
    st = qd.GetStats()
    events = Sim.GetEventCount() if hasattr(Sim, "GetEventCount") else None
    Sim.Destroy()
    window = duration - warm
    gps = [8 * b / window / 1e6 for b in rx]
    s1, s2 = sum(gps), sum(g * g for g in gps)
    mean = sum(samples) / max(1, len(samples))
    std = math.sqrt(max(0.0, sum(x * x for x in samples) / max(1, len(samples)) - mean * mean))
    recv = st.nTotalReceivedPackets - recv0
    dropped = st.nTotalDroppedPackets - drop0
    return {
        "case": a.get("case", "custom"),
        "sim_seconds": duration,
        "window_s": [warm, duration],
        "wall_run_s": wall,
        "events": events,
        "events_per_s": (events / wall) if events else None,
        "aggregate_goodput_mbps": s1,
        "drop_ratio": dropped / recv if recv else 0.0,
        "qdisc_window": {
            "received": recv,
            "dropped": dropped,
            "dropped_before_enqueue": st.nTotalDroppedPacketsBeforeEnqueue - dbe0,
            "dropped_after_dequeue": st.nTotalDroppedPacketsAfterDequeue - dad0,
            "sent": st.nTotalSentPackets - sent0,
        },
        "queue_mean_pkts": mean,
        "queue_std_pkts": std,
        "jain": (s1 * s1 / (n * s2)) if s2 > 0 else 1.0,
        "args": {k: v for k, v in a.items() if k not in ("delays", "start_times")},
        "flows": [
            {"flow": k, "sender_delay": delays[k][0], "receiver_delay": delays[k][1], "start_s": float(starts[k]), "goodput_mbps": gps[k]}
            for k in range(n)
        ],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", help="take every argument (and ns-3's start times) from this fixture case")
    ap.add_argument("--out", type=Path, help="write the JSON record here instead of standard output")
    ap.add_argument("--flows", type=int, default=1)
    ap.add_argument("--access-rate", default="100Mbps")
    ap.add_argument("--access-delay", default="1ms")
    ap.add_argument("--rtt-table", choices=["eval9"], default=None)
    ap.add_argument("--bottleneck-rate", default="10Mbps")
    ap.add_argument("--bottleneck-delay", default="5ms")
    ap.add_argument("--qdisc", choices=["fifo", "codel", "pie"], default="fifo")
    ap.add_argument("--buffer", type=int, default=100, help="queue disc limit, packets")
    ap.add_argument("--tcp", default="ns3::TcpNewReno")
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--warmup", type=float, default=10.0)
    ap.add_argument("--start-window", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.case:
        a = args_from_case(args.case)
    else:
        a = {
            "flows": args.flows, "access_rate": args.access_rate, "access_delay": args.access_delay,
            "rtt_table": args.rtt_table, "bottleneck_rate": args.bottleneck_rate,
            "bottleneck_delay": args.bottleneck_delay, "qdisc": args.qdisc, "buffer": args.buffer,
            "tcp": args.tcp, "segment_size": 1448, "sndbuf": 8 << 20, "rcvbuf": 8 << 20,
            "duration": args.duration, "warmup": args.warmup, "start_window": args.start_window,
            "send_size": 11584, "seed": args.seed, "run": 1, "qsample": "10ms",
        }
    rec = run(a)
    text = json.dumps(rec, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
