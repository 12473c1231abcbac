#!/usr/bin/env python3
"""Run a Sluice multi-hop scenario (a parking lot or a graph) in ns-3 3.44, and compare.

Reads a Sluice scenario file whose topology is ``kind = "parking_lot"`` or ``kind = "graph"``
and builds the same network in ns-3: one node per Sluice node, in Sluice's order; one
point-to-point link per Sluice link, in Sluice's order (a parking lot's hops first, then its
hosts' access links), each device with a one-packet transmit queue and the link direction's
queue disc as root queue disc; IPv4 global routing (Sluice routes by fewest hops: a set-up
with two shortest paths between a pair of nodes is refused, since the two simulators may pick
different ones). Each flow is a BulkSend application on its source host towards a PacketSink
on its destination host, started at the flow's ``start``; the ``[tcp]`` table's keys become
ns-3's attributes.

Records, for every queue leaving a router (Sluice's ``"R0->R1"`` naming), the departure
fingerprint over the measurement window (validation/departures.py: the packets that start
transmission there, in order, at the same nanoseconds), with the flow index of a packet taken
from its source and destination hosts (flow k's packets from its source host are k, those from
its destination host, the ACKs, k + 2^31), and every flow's bytes delivered in the window.

``--sluice BIN`` also runs the scenario in Sluice (its pcaps of the same queues) and compares
queue by queue; ``crates/sluice-sim/tests/integration/multihop.rs`` (``multihop_cases_agree_with_ns3``) checks
the stored records (``validation/fixtures/ns3/mh-*.json``, each with its scenario inside).

What the scenario may hold (anything else is refused by name, as ns-3 would not run it):
``[tcp]`` with ``validate = "ns3.44"`` and ``cc`` (new_reno, cubic, vegas, linux_reno, bbr),
``mss``, ``snd_buf``, ``rcv_buf``, ``sack``, ``min_rto``, ``delack_count``, ``initial_cwnd``,
``recovery`` (``"classic"``), ``ecn``; queues ``drop_tail``, ``codel`` and ``fq_codel`` in
packets; flows with one source and one destination host each (no ``count``), an explicit
``start``, app ``bulk`` or ``file``, optional ``port`` and ``tcp.cc`` (one type per source host).

Usage:
    python3 validation/ns3_graph.py SCENARIO.toml --out RECORD.json [--sluice target/release/sluice-sim]
    python3 validation/ns3_graph.py --from-record validation/fixtures/ns3/mh-NAME.json --sluice target/release/sluice-sim
    python3 validation/ns3_graph.py --from-record validation/fixtures/ns3/mh-NAME.json --rerun --out mh-NAME.json
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tomllib
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import departures  # noqa: E402
from ns3_dumbbell import parse_time_s, versions  # noqa: E402

NS3_TYPE = {"new_reno": "ns3::TcpNewReno", "cubic": "ns3::TcpCubic", "vegas": "ns3::TcpVegas",
            "linux_reno": "ns3::TcpLinuxReno", "bbr": "ns3::TcpBbr"}
BIG = {"kind": "drop_tail", "limit": "100000pkt"}
TCP_KEYS = {"validate", "cc", "mss", "snd_buf", "rcv_buf", "sack", "min_rto", "delack_count", "initial_cwnd", "recovery", "ecn"}
LINK_KEYS = {"a", "b", "rate", "delay", "queue", "reverse_queue"}
FLOW_KEYS = {"name", "src", "dst", "app", "start", "port", "tcp"}
ACK_BIT = 1 << 31
SERVER_PORT = 5001

TAP_CPP = r"""
#include <cstdio>
#include <map>
#include <memory>
#include <vector>

namespace sluice_graph {
using namespace ns3;

// The departure records of one device (validation/departures.py's 19-byte format): packets
// that start transmission there in [t0, t1) ns, the flow from the (source node, destination
// node) pair, the sequence number relative to the first SYN of that flow and direction seen here.
struct Tap {
  const std::map<uint32_t, uint32_t>* nodeOf;
  const std::map<uint64_t, uint32_t>* flowOf;
  std::map<uint32_t, uint32_t> isn;
  std::vector<uint8_t> dep;
  uint64_t count = 0, unknown = 0;
  int64_t t0 = 0, t1 = 0;
  void Put(uint64_t v, int bytes) { for (int i = bytes - 1; i >= 0; --i) dep.push_back(uint8_t(v >> (8 * i))); }
  static uint32_t Be32(const uint8_t* p) { return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3]; }
  void OnTxBegin(Ptr<const Packet> p) {
    uint8_t b[2 + 60 + 60];
    uint32_t n = p->CopyData(b, sizeof b);
    const uint8_t* ip = b + 2;  // after the 2-byte PPP header
    if (n < 2 + 20 || b[0] != 0x00 || b[1] != 0x21 || (ip[0] >> 4) != 4 || ip[9] != 6) { ++unknown; return; }
    uint32_t ihl = (ip[0] & 15) * 4;
    if (n < 2 + ihl + 20) { ++unknown; return; }
    const uint8_t* tcp = ip + ihl;
    auto s = nodeOf->find(Be32(ip + 12));
    auto d = nodeOf->find(Be32(ip + 16));
    if (s == nodeOf->end() || d == nodeOf->end()) { ++unknown; return; }
    auto f = flowOf->find((uint64_t(s->second) << 32) | d->second);
    if (f == flowOf->end()) { ++unknown; return; }
    uint32_t flow = f->second;
    uint32_t seq = Be32(tcp + 4);
    uint8_t flags = tcp[13];
    if ((flags & 0x02) && !isn.count(flow)) isn[flow] = seq;
    int64_t t = Simulator::Now().GetNanoSeconds();
    if (t < t0 || t >= t1) return;
    auto s0 = isn.find(flow);
    uint32_t rel = seq - (s0 == isn.end() ? 0u : s0->second);
    uint16_t len = uint16_t((uint32_t(ip[2]) << 8) | ip[3]);
    Put(uint64_t(t), 8); Put(flow, 4); Put(rel, 4); Put(len, 2); Put(flags, 1);
    ++count;
  }
};

class Graph {
 public:
  std::map<uint32_t, uint32_t> nodeOf;   // IPv4 address -> node index
  std::map<uint64_t, uint32_t> flowOf;   // (source node << 32 | destination node) -> flow
  std::vector<std::unique_ptr<Tap>> taps;
  std::vector<Ptr<PacketSink>> sinks;
  std::vector<uint64_t> rx0;
  void AddAddress(Ipv4Address a, uint32_t node) { nodeOf[a.Get()] = node; }
  void AddFlow(uint32_t src, uint32_t dst, uint32_t k) {
    flowOf[(uint64_t(src) << 32) | dst] = k;
    flowOf[(uint64_t(dst) << 32) | src] = k | 0x80000000u;
  }
  void AddSink(Ptr<Application> app) { sinks.push_back(DynamicCast<PacketSink>(app)); }
  size_t Watch(Ptr<NetDevice> dev, int64_t t0, int64_t t1) {
    taps.emplace_back(new Tap());
    Tap* t = taps.back().get();
    t->nodeOf = &nodeOf; t->flowOf = &flowOf; t->t0 = t0; t->t1 = t1;
    dev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Tap::OnTxBegin, t));
    return taps.size() - 1;
  }
  void WarmAt(double t) { Simulator::Schedule(Seconds(t), &Graph::OnWarm, this); }
  void OnWarm() { rx0.clear(); for (auto& s : sinks) rx0.push_back(s->GetTotalRx()); }
  uint64_t Rx(uint32_t k) const { return sinks[k]->GetTotalRx() - (k < rx0.size() ? rx0[k] : 0); }
  uint64_t Count(size_t i) const { return taps[i]->count; }
  uint64_t Unknown(size_t i) const { return taps[i]->unknown; }
  bool Write(size_t i, const std::string& path) const {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    const auto& d = taps[i]->dep;
    bool ok = std::fwrite(d.data(), 1, d.size(), f) == d.size();
    return std::fclose(f) == 0 && ok;
  }
  uint64_t EventCount() const { return Simulator::GetEventCount(); }
};

}  // namespace sluice_graph
"""


def refuse(field: str, message: str) -> SystemExit:
    return SystemExit(f"{field}: {message}")


def time_ns(s, field: str) -> int:
    """A Sluice duration ("1.5s", "20ms", "300us", "123ns") in integer nanoseconds, exactly."""
    t = str(s).strip()
    for unit, k in (("ns", 1), ("us", 10**3), ("ms", 10**6), ("s", 10**9)):
        if t.endswith(unit):
            v = Decimal(t[: -len(unit)]) * k
            if v != v.to_integral_value() or v < 0:
                raise refuse(field, f"{s!r} is not a whole number of nanoseconds")
            return int(v)
    raise refuse(field, f"{s!r}: expected a duration such as \"5ms\"")


def size_bytes(s, field: str) -> int:
    t = str(s).strip()
    for unit, k in (("KiB", 1024), ("MiB", 1024**2), ("GiB", 1024**3), ("kB", 1000), ("KB", 1000), ("MB", 10**6), ("GB", 10**9), ("B", 1)):
        if t.endswith(unit):
            return int(Decimal(t[: -len(unit)]) * k)
    if isinstance(s, int):
        return s
    raise refuse(field, f"{s!r}: expected a size such as \"8MiB\"")


def packets(limit, field: str) -> int:
    t = str(limit)
    if not t.endswith("pkt"):
        raise refuse(field, f"{limit!r}: only limits in packets (\"100pkt\") are mapped to ns-3")
    return int(t[:-3])


def check_keys(table: dict, allowed: set, field: str) -> None:
    for k in table:
        if k not in allowed:
            raise refuse(f"{field}.{k}", f"not mapped to ns-3 by this script (allowed: {', '.join(sorted(allowed))})")


def topology(sc: dict) -> tuple[list[tuple[str, bool]], list[dict]]:
    """Nodes (name, is_host) and links {a, b, rate, delay, queue, reverse_queue} in Sluice's order."""
    t = sc["topology"]
    if t.get("kind") == "parking_lot":
        check_keys(t, {"kind", "hops", "rate", "delay", "queue", "access_rate", "access_delay", "access_queue"}, "topology")
        h = int(t["hops"])
        nodes = [(f"R{i}", False) for i in range(h + 1)]
        links = [{"a": i, "b": i + 1, "rate": t["rate"], "delay": t["delay"], "queue": t["queue"], "reverse_queue": BIG} for i in range(h)]
        aq = t.get("access_queue", BIG)

        def host(name: str, router: int) -> None:
            nodes.append((name, True))
            links.append({"a": len(nodes) - 1, "b": router, "rate": t["access_rate"], "delay": t.get("access_delay", "0s"), "queue": aq, "reverse_queue": aq})
        host("long_src", 0)
        host("long_dst", h)
        for i in range(h):
            host(f"c{i}_src", i)
            host(f"c{i}_dst", i + 1)
        return nodes, links
    if t.get("kind") == "graph":
        check_keys(t, {"kind", "nodes", "links"}, "topology")
        nodes = [(n["name"], n.get("kind", "host") == "host") for n in t["nodes"]]
        index = {name: i for i, (name, _) in enumerate(nodes)}
        links = []
        for i, l in enumerate(t["links"]):
            check_keys(l, LINK_KEYS, f"topology.links[{i}]")
            q = l.get("queue", BIG)
            links.append({"a": index[l["a"]], "b": index[l["b"]], "rate": l["rate"], "delay": l.get("delay", "0s"), "queue": q, "reverse_queue": l.get("reverse_queue", q)})
        return nodes, links
    raise refuse("topology.kind", f"{t.get('kind')!r}: this script builds \"parking_lot\" and \"graph\" (validation/ns3_dumbbell.py builds dumbbells)")


def check_single_paths(n: int, links: list[dict]) -> None:
    """Refuse a topology where some pair of nodes has two shortest paths."""
    adj = [[] for _ in range(n)]
    for l in links:
        adj[l["a"]].append(l["b"])
        adj[l["b"]].append(l["a"])
    for s in range(n):
        dist, ways, frontier = {s: 0}, {s: 1}, [s]
        while frontier:
            nxt = []
            for u in frontier:
                for v in adj[u]:
                    if v not in dist:
                        dist[v], ways[v] = dist[u] + 1, 0
                        nxt.append(v)
                    if dist[v] == dist[u] + 1:
                        ways[v] += ways[u]
            frontier = nxt
        if any(w > 1 for w in ways.values()):
            raise refuse("topology", "some pair of nodes has two shortest paths (routing ties are broken differently by ns-3 and Sluice)")


def flows_of(sc: dict, nodes: list[tuple[str, bool]]) -> list[dict]:
    index = {name: i for i, (name, _) in enumerate(nodes)}
    out = []
    for i, f in enumerate(sc.get("flows", [])):
        p = f"flows[{i}]"
        check_keys(f, FLOW_KEYS, p)
        for key in ("src", "dst"):
            if f[key] not in index or not nodes[index[f[key]]][1]:
                raise refuse(f"{p}.{key}", f"{f[key]!r} is not a host of the topology (groups are not expanded here: one flow per table)")
        if "start" not in f or not isinstance(f["start"], str):
            raise refuse(f"{p}.start", "give the start time (\"1.25s\"): ns-3 draws its own random starts")
        app = f.get("app", {})
        if app.get("kind") not in ("bulk", "file"):
            raise refuse(f"{p}.app.kind", f"{app.get('kind')!r}: only \"bulk\" and \"file\" are mapped to ns-3 (BulkSend)")
        check_keys(app, {"kind", "size", "write_size"}, f"{p}.app")
        if "write_size" not in app:
            raise refuse(f"{p}.app.write_size", "give it (BulkSend's SendSize)")
        check_keys(f.get("tcp", {}), {"cc"}, f"{p}.tcp")
        cc = f.get("tcp", {}).get("cc", sc.get("tcp", {}).get("cc", "new_reno"))
        if cc not in NS3_TYPE:
            raise refuse(f"{p}.tcp.cc", f"{cc!r}: ns-3 3.44 has {', '.join(NS3_TYPE)}")
        out.append({"name": f.get("name", f"f{i}"), "src": index[f["src"]], "dst": index[f["dst"]], "port": int(f.get("port", SERVER_PORT)),
                    "start_ns": time_ns(f["start"], f"{p}.start"), "cc": cc,
                    "file_size": size_bytes(app["size"], f"{p}.app.size") if app["kind"] == "file" else 0,
                    "write": size_bytes(app["write_size"], f"{p}.app.write_size")})
    pairs = {}
    for k, f in enumerate(out):
        key = (min(f["src"], f["dst"]), max(f["src"], f["dst"]))
        if key in pairs:
            raise refuse(f"flows[{k}]", f"flows[{pairs[key]}] joins the same two hosts (a packet's flow is told by its hosts here)")
        pairs[key] = k
    served = {}
    for k, f in enumerate(out):
        if (f["dst"], f["port"]) in served:
            raise refuse(f"flows[{k}].port", f"flows[{served[(f['dst'], f['port'])]}] already ends at this host and port")
        served[(f["dst"], f["port"])] = k
    for k, f in enumerate(out):
        other = next((g for g in out if g["src"] == f["src"] and g["cc"] != f["cc"]), None)
        if other is not None:
            raise refuse(f"flows[{k}].tcp.cc", "ns-3 sets one TCP type per source node; two flows from this host differ")
    return out


def router_queues(nodes: list[tuple[str, bool]], links: list[dict]) -> list[tuple[str, int, int]]:
    """(Sluice queue name, link index, 0 for a->b / 1 for b->a) of every direction leaving a router."""
    out = []
    for i, l in enumerate(links):
        for d, (u, v) in enumerate(((l["a"], l["b"]), (l["b"], l["a"]))):
            if not nodes[u][1]:
                out.append((f"{nodes[u][0]}->{nodes[v][0]}", i, d))
    return out


def queue_spec(q: dict, field: str) -> tuple[str, int, dict]:
    """ns-3's queue disc type, its limit in packets and its other attributes for a Sluice queue."""
    kind = q.get("kind")
    if kind == "drop_tail":
        check_keys(q, {"kind", "limit"}, field)
    elif kind in ("codel", "fq_codel"):
        check_keys(q, {"kind", "limit", "target", "interval", "ecn"}, field)
    else:
        raise refuse(f"{field}.kind", f"{kind!r}: drop_tail, codel and fq_codel are mapped to ns-3 here")
    if "limit" not in q:
        raise refuse(f"{field}.limit", "give the limit in packets (the defaults of the two simulators' disciplines are not compared here)")
    limit = packets(q["limit"], f"{field}.limit")
    if kind == "drop_tail":
        return "ns3::FifoQueueDisc", limit, {}
    return ("ns3::CoDelQueueDisc" if kind == "codel" else "ns3::FqCoDelQueueDisc"), limit, {
        "Target": f"{time_ns(q.get('target', '5ms'), field + '.target')}ns",
        "Interval": f"{time_ns(q.get('interval', '100ms'), field + '.interval')}ns",
        "UseEcn": bool(q.get("ecn", False))}


def plan(sc: dict) -> tuple[dict, list, list, list]:
    """Everything checked before ns-3 is loaded: the [tcp] table, nodes, links (each queue
    mapped), unique shortest paths and flows. A scenario this refuses names the field."""
    tcp = sc.get("tcp", {})
    check_keys(tcp, TCP_KEYS, "tcp")
    if tcp.get("validate") != "ns3.44":
        raise refuse("tcp.validate", "must be \"ns3.44\": only Sluice's ns-3 profile is compared with ns-3")
    if tcp.get("recovery", "prr") not in ("prr", "classic"):
        raise refuse("tcp.recovery", f"{tcp['recovery']!r}: \"prr\" or \"classic\"")
    nodes, links = topology(sc)
    for i, l in enumerate(links):
        queue_spec(l["queue"], f"topology.links[{i}].queue")
        queue_spec(l["reverse_queue"], f"topology.links[{i}].reverse_queue")
    check_single_paths(len(nodes), links)
    for i, (name, is_host) in enumerate(nodes):
        k = sum(i in (l["a"], l["b"]) for l in links)
        if is_host and k != 1:
            raise refuse("topology", f"host {name!r} has {k} links; here a host has one (ns-3 gives each interface its own address)")
    duration = time_ns(sc["duration"], "duration")
    flows = flows_of(sc, nodes)
    for k, f in enumerate(flows):
        if f["start_ns"] >= duration:
            raise refuse(f"flows[{k}].start", f"starts at or after the end of the run ({sc['duration']})")
    return tcp, nodes, links, flows


def run_ns3(sc: dict, dump: Path | None = None) -> dict:
    from ns import ns  # ~20 s
    import cppyy

    if not hasattr(cppyy.gbl, "sluice_graph"):
        cppyy.cppdef(TAP_CPP)
    tcp, nodes, links, flows = plan(sc)
    duration_ns = time_ns(sc["duration"], "duration")
    warm_ns = time_ns(sc.get("warmup", "0s"), "warmup")

    ns.RngSeedManager.SetSeed(int(sc.get("seed", 1)))
    ns.RngSeedManager.SetRun(1)
    C = ns.Config
    C.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue(NS3_TYPE[tcp.get("cc", "new_reno")]))
    if "mss" in tcp:
        C.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(int(tcp["mss"])))
    for key, attr in (("snd_buf", "SndBufSize"), ("rcv_buf", "RcvBufSize")):
        if key in tcp:
            C.SetDefault(f"ns3::TcpSocket::{attr}", ns.UintegerValue(size_bytes(tcp[key], f"tcp.{key}")))
    if "sack" in tcp:
        C.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(bool(tcp["sack"])))
    if "min_rto" in tcp:
        C.SetDefault("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.NanoSeconds(time_ns(tcp["min_rto"], "tcp.min_rto"))))
    if "delack_count" in tcp:
        C.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(int(tcp["delack_count"])))
    if "initial_cwnd" in tcp:
        C.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(int(tcp["initial_cwnd"])))
    if tcp.get("recovery", "prr") == "classic":
        C.SetDefault("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TcpClassicRecovery.GetTypeId()))
    if tcp.get("ecn"):
        C.SetDefault("ns3::TcpSocketBase::UseEcn", ns.StringValue("On"))

    nc = ns.NodeContainer()
    nc.Create(len(nodes))
    ns.InternetStackHelper().InstallAll()
    for f in flows:
        if f["cc"] != tcp.get("cc", "new_reno"):
            l4 = nc.Get(f["src"]).GetObject[ns.TcpL4Protocol]()
            l4.SetAttribute("SocketType", ns.TypeIdValue(ns.TypeId.LookupByName(NS3_TYPE[f["cc"]])))

    def qdisc_helper(q: dict, field: str):
        kind, limit, attrs = queue_spec(q, field)
        h = ns.TrafficControlHelper()
        h.SetRootQueueDisc(kind, "MaxSize", ns.StringValue(f"{limit}p"),
                           *[x for k, v in attrs.items() for x in (k, ns.BooleanValue(v) if isinstance(v, bool) else ns.StringValue(v))])
        return h

    g = cppyy.gbl.sluice_graph.Graph()
    ipv4 = ns.Ipv4AddressHelper()
    devs = []
    for i, l in enumerate(links):
        h = ns.PointToPointHelper()
        h.SetDeviceAttribute("DataRate", ns.StringValue(str(l["rate"])))
        h.SetDeviceAttribute("Mtu", ns.UintegerValue(1500))
        h.SetChannelAttribute("Delay", ns.StringValue(f"{time_ns(l['delay'], f'topology.links[{i}].delay')}ns"))
        h.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue("1p"))
        d = h.Install(nc.Get(l["a"]), nc.Get(l["b"]))
        qdisc_helper(l["queue"], f"topology.links[{i}].queue").Install(d.Get(0))
        qdisc_helper(l["reverse_queue"], f"topology.links[{i}].reverse_queue").Install(d.Get(1))
        ipv4.SetBase(ns.Ipv4Address(f"10.{i // 250}.{i % 250}.0"), ns.Ipv4Mask("255.255.255.0"))
        addrs = ipv4.Assign(d)
        g.AddAddress(addrs.GetAddress(0), l["a"])
        g.AddAddress(addrs.GetAddress(1), l["b"])
        devs.append(d)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    def address_of(node: int):
        return nc.Get(node).GetObject[ns.Ipv4]().GetAddress(1, 0).GetLocal()

    for k, f in enumerate(flows):
        g.AddFlow(f["src"], f["dst"], k)
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), f["port"]).ConvertTo())
        sapps = sink.Install(nc.Get(f["dst"]))
        sapps.Start(ns.Seconds(0.0))
        g.AddSink(sapps.Get(0))
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(address_of(f["dst"]), f["port"]).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(f["file_size"]))
        bulk.SetAttribute("SendSize", ns.UintegerValue(f["write"]))
        apps = bulk.Install(nc.Get(f["src"]))
        apps.Start(ns.NanoSeconds(f["start_ns"]))
        apps.Stop(ns.NanoSeconds(duration_ns))
    queues = router_queues(nodes, links)
    taps = [int(g.Watch(devs[i].Get(d), warm_ns, duration_ns)) for _, i, d in queues]
    g.WarmAt(warm_ns / 1e9)
    ns.Simulator.Stop(ns.NanoSeconds(duration_ns))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0
    out_queues = {}
    with tempfile.TemporaryDirectory() as d:
        for (name, _, _), tap in zip(queues, taps):
            if int(g.Unknown(tap)):
                raise SystemExit(f"{name}: {int(g.Unknown(tap))} packets were not TCP of a listed flow")
            path = str(Path(d) / "dep.bin")
            if not g.Write(tap, path):
                raise SystemExit("could not write the departure records")
            blob = Path(path).read_bytes()
            if dump is not None:
                write_csv(dump / "ns3" / f"{name.replace('->', '-to-')}.csv", departures.unpack(blob))
            fp = departures.fingerprint_bytes(blob)
            assert fp["count"] == int(g.Count(tap))
            out_queues[name] = {"window_ns": [warm_ns, duration_ns], **fp}
    rec = {
        "events": int(g.EventCount()),
        "wall_run_s": wall,
        "versions": versions(),
        "flows": [{"flow": k, "name": f["name"], "bytes_window": int(g.Rx(k))} for k, f in enumerate(flows)],
        "departures": out_queues,
    }
    ns.Simulator.Destroy()
    return rec


def write_csv(path: Path, rows) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    departures.write_csv(path, rows)


def run_sluice(binary: str, text: str, sc: dict, dump: Path | None = None) -> dict:
    nodes, links = topology(sc)
    flows = flows_of(sc, nodes)
    flow_of = {}
    for k, f in enumerate(flows):
        flow_of[(f["src"], f["dst"])] = k
        flow_of[(f["dst"], f["src"])] = k | ACK_BIT
    names = [q[0] for q in router_queues(nodes, links)]
    t0, t1 = time_ns(sc.get("warmup", "0s"), "warmup"), time_ns(sc["duration"], "duration")
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "s.toml"
        f.write_text(text + "\n[monitor]\npcap = [" + ", ".join(f'"{n}"' for n in names) + "]\npcap_snaplen = 64\n")
        out = subprocess.run([binary, str(f), "--out", d], capture_output=True, text=True, check=True)
        s = json.loads(out.stdout)
        deps = {}
        for n in names:
            rows = list(departures.sluice_pcap(str(Path(d) / (n.replace("->", "-to-") + ".pcap")), t0, t1, lambda s, d, _: flow_of[(s, d)]))
            if dump is not None:
                write_csv(dump / "sluice" / f"{n.replace('->', '-to-')}.csv", rows)
            deps[n] = {"window_ns": [t0, t1], **departures.fingerprint(rows)}
    return {"flows": [{"flow": k, "name": fl["name"], "bytes_window": fl["bytes_delivered"]} for k, fl in enumerate(s["flows"])], "departures": deps}


def compare(ns3: dict, sl: dict) -> list[str]:
    bad = []
    for a, b in zip(sl["flows"], ns3["flows"]):
        if a["bytes_window"] != b["bytes_window"]:
            bad.append(f"flow {b['name']}: {a['bytes_window']} bytes in the window in Sluice, {b['bytes_window']} in ns-3")
    for name, fp in ns3["departures"].items():
        mine = sl["departures"].get(name)
        if mine != fp:
            bad.append(f"{name}: Sluice {mine and mine['count']} departures, ns-3 {fp['count']}")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", nargs="?", help="a Sluice scenario file (parking_lot or graph topology)")
    ap.add_argument("--from-record", help="take the scenario, and ns-3's results unless --rerun, from this record (validation/fixtures/ns3/mh-*.json)")
    ap.add_argument("--rerun", action="store_true", help="with --from-record: run ns-3 again on the record's scenario")
    ap.add_argument("--out", help="write the record (the scenario's text, ns-3's flows and fingerprints) here")
    ap.add_argument("--dump", type=Path, help="write each router queue's departures as CSV under DIR/ns3/ and (with --sluice) DIR/sluice/, to diff where the two part")
    ap.add_argument("--sluice", help="also run the scenario with this sluice-sim binary and compare; exit 1 if they part")
    args = ap.parse_args()
    if bool(args.scenario) == bool(args.from_record):
        ap.error("give a scenario file or --from-record, not both")
    if args.rerun and not args.from_record:
        ap.error("--rerun goes with --from-record")
    if args.from_record:
        rec = json.loads(Path(args.from_record).read_text())
        text = rec["scenario"]
    else:
        text = Path(args.scenario).read_text()
    sc = tomllib.loads(text)
    if not args.from_record or args.rerun:
        rec = {"case": sc.get("name", "custom"), "scenario": text, **run_ns3(sc, args.dump)}
        if args.out:
            Path(args.out).write_text(json.dumps(rec, indent=1) + "\n")
        else:
            print(json.dumps(rec, indent=1))
    if args.sluice:
        bad = compare(rec, run_sluice(args.sluice, text, sc, args.dump))
        for line in bad:
            print(line)
        print(f"{rec['case']}: " + ("identical to ns-3 (every router queue's departures, every flow's bytes)" if not bad else "PARTS from ns-3"))
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
