#!/usr/bin/env python3
"""ns-3 runs of Sluice's validation dumbbells (ns-3 3.44 from PyPI: ``pip install ns3``).

Builds the reference set-up (see validation/README.md): one sender and one receiver node per
flow, each on its own point-to-point access link; routers A and B joined by the bottleneck; the
queue disc under test is the root queue disc of A's bottleneck device (A->B), every other device
has a 100,000-packet FIFO and every NetDevice transmit queue holds one packet; bulk TCP senders
start uniformly at random in [0, start_window) s (ns-3's UniformRandomVariable, one draw per flow
in flow order, drawn after the topology is built) or at explicit --start-times. Runs it and
prints (or writes) a JSON record with the field names of the stored ns-3 reference
(validation/fixtures/ns3-reference.json).

Measurement window [warmup, duration]: goodput = bytes delivered to the receiving applications;
drop_ratio = queue-disc drops / packets arriving at the queue disc; the queue-disc length is
sampled every --qsample from the warm-up on; per-flow queue-disc drops are counted by source
address. All probes are small C++ callbacks (compiled through cppyy), so Simulator::Run() is
called once and ``wall_run_s`` is its wall time only.

With ``--ewt`` router A runs EWT (Early Window Tailoring), which ns-3 does not have: a C++ hook
on the Dequeue trace of A's queue discs, reading the A->B queue disc (validation/ns3_ewt.py;
``--ewt-start``, ``--ewt-mss``, ``--ewt-trace``); the record's ``ewt`` holds its counters.

Examples:
    python3 validation/ns3_dumbbell.py --case e-single-newreno-fifo         # args from the fixture
    python3 validation/ns3_dumbbell.py --case d-dc90-newreno-fifo-10s --starts fixture
    python3 validation/ns3_dumbbell.py --flows 9 --rtt-table eval9 --bottleneck-rate 100Mbps \\
        --bottleneck-delay 2ms --buffer 900 --duration 100 --warmup 30 --start-window 3
    python3 validation/ns3_dumbbell.py --case a-access9-newreno-fifo --dry-run   # start times only
"""
from __future__ import annotations

import argparse
import json
import math
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import departures  # noqa: E402
import ns3_ewt  # noqa: E402
import ns3_loss  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "validation" / "fixtures" / "ns3-reference.json"

# rtt_table "eval9": flow k uses class k % 9; one-way access delays in ms.
EVAL9_LEFT = [0, 0, 0, 12, 12, 12, 25, 25, 25]  # sender side
EVAL9_RIGHT = [2, 37, 75, 2, 37, 75, 2, 37, 75]  # receiver side

DEFAULTS = {
    "flows": 1, "access_rate": "100Mbps", "access_delay": "1ms", "sender_delays": None,
    "receiver_delays": None, "rtt_table": None, "bottleneck_rate": "10Mbps",
    "bottleneck_delay": "5ms", "qdisc": "fifo", "buffer": 100, "pie_target": "15ms",
    "pie_tupdate": "15ms", "codel_target": "5ms", "codel_interval": "100ms",
    "red_min_th": 0.0, "red_max_th": 0.0, "red_target": "5ms", "red_mean_pkt_size": 500,
    "tcp": "ns3::TcpNewReno", "segment_size": 1448, "mtu": 1500, "no_sack": False,
    "sndbuf": 8 << 20, "rcvbuf": 8 << 20, "min_rto": None, "delack": None, "init_cwnd": None,
    "recovery": "prr",
    "access_delay_jitter": None, "jitter_seed": 1,
    "duration": 60.0, "warmup": 10.0, "start_window": 0.0, "file_size": 0, "send_size": 11584,
    "seed": 1, "run": 1, "qsample": "10ms", "loss": None, "reverse_loss": None,
    "ecn": False, "ewt": False, "ewt_start": 0.3, "ewt_mss": 1460, "reverse_flows": 0,
    "reverse_buffer": 100000, "bbr_streams": None,
}

# --bbr-streams: how many of each flow's ProbeBW draws the record keeps (a flow enters ProbeBW
# once after Drain and once after each ProbeRTT, at most every 10 s).
BBR_DRAWS = 32

# The port a reverse flow's receiver (on the sender node) listens on: the departure fingerprint's
# (validation/departures.py), which tells a reverse flow's ACKs from the forward data by it.
REVERSE_PORT = departures.REVERSE_PORT

PROBE_CPP = r"""
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace sluice_validation {
using namespace ns3;

// Everything measured during Simulator::Run(), in C++ so the run never calls into Python.
class Probe {
 public:
  std::vector<Ptr<PacketSink>> sinks;
  std::vector<uint32_t> senderAddr;       // IPv4 address of flow k's sender
  Ptr<QueueDisc> qd;
  // taken at the warm-up instant
  std::vector<uint64_t> rx0;
  QueueDisc::Stats st0;
  // queue-disc length samples from the warm-up on
  std::vector<uint32_t> samples;
  // packets handed to the bottleneck devices over the whole run (A->B "data", B->A "acks")
  uint64_t dataPkts = 0, ackPkts = 0;
  std::map<uint32_t, uint64_t> dropsBySrc, dropsBySrcWindow;
  bool inWindow = false;
  double step = 0.01, end = 0;

  void AddSink(Ptr<Application> app) { sinks.push_back(DynamicCast<PacketSink>(app)); }
  void AddSender(Ipv4Address a) { senderAddr.push_back(a.Get()); }

  void Connect(Ptr<NetDevice> fwd, Ptr<NetDevice> rev) {
    fwd->TraceConnectWithoutContext("MacTx", MakeCallback(&Probe::OnFwd, this));
    rev->TraceConnectWithoutContext("MacTx", MakeCallback(&Probe::OnRev, this));
    qd->TraceConnectWithoutContext("Drop", MakeCallback(&Probe::OnDrop, this));
  }
  // MacTx: the packet is handed to the device (every IP packet, SYNs and pure ACKs included)
  void OnFwd(Ptr<const Packet> p) { ++dataPkts; }
  void OnRev(Ptr<const Packet> p) { ++ackPkts; }
  void OnDrop(Ptr<const QueueDiscItem> item) {
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    uint32_t src = ip ? ip->GetHeader().GetSource().Get() : 0;
    ++dropsBySrc[src];
    if (inWindow) ++dropsBySrcWindow[src];
  }
  void Schedule(double warm, double step_, double end_) {
    step = step_; end = end_;
    Simulator::Schedule(Seconds(warm), &Probe::OnWarm, this);
  }
  void OnWarm() {
    inWindow = true;
    rx0.clear();
    for (auto& s : sinks) rx0.push_back(s->GetTotalRx());
    st0 = qd->GetStats();
    Sample();
  }
  void Sample() {
    samples.push_back(qd->GetNPackets());
    // the next sample is due at now + step; none at (or after) the end
    if (Simulator::Now() + Seconds(step) < Seconds(end) - NanoSeconds(1))
      Simulator::Schedule(Seconds(step), &Probe::Sample, this);
  }
  // --trace-flow: every change of one sender's TCP state, as (time ns, variable, value)
  struct Change { int64_t t; const char* var; int64_t value; };
  std::vector<Change> changes;
  void Rec(const char* var, int64_t v) { changes.push_back({Simulator::Now().GetNanoSeconds(), var, v}); }
  void OnCwnd(uint32_t, uint32_t v) { Rec("cwnd", v); }
  void OnSsth(uint32_t, uint32_t v) { Rec("ssthresh", v); }
  void OnInflight(uint32_t, uint32_t v) { Rec("inflight", v); }
  void OnRwnd(uint32_t, uint32_t v) { Rec("rwnd", v); }
  void OnHigh(SequenceNumber32, SequenceNumber32 v) { Rec("high_tx", v.GetValue()); }
  void OnNext(SequenceNumber32, SequenceNumber32 v) { Rec("next_tx", v.GetValue()); }
  void OnState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v) { Rec("state", v); }
  void OnRto(Time, Time v) { Rec("rto_ns", v.GetNanoSeconds()); }
  void OnLastRtt(Time, Time v) { Rec("rtt_ns", v.GetNanoSeconds()); }
  void OnPacing(DataRate, DataRate v) { Rec("pacing_bps", v.GetBitRate()); }
  void OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    Rec(p->GetSize() ? "tx_seq" : "tx_ack", h.GetSequenceNumber().GetValue());
    if (p->GetSize() && p->GetSize() != 1448) Rec("tx_len", p->GetSize());
  }
  void OnRx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    Rec("rx_ack", h.GetAckNumber().GetValue());
    if (Ptr<const TcpOptionSack> s = DynamicCast<const TcpOptionSack>(h.GetOption(TcpOption::SACK))) {
      for (const auto& b : s->GetSackList()) { Rec("sack_l", b.first.GetValue()); Rec("sack_r", b.second.GetValue()); }
    }
  }
  void TraceSocket(uint32_t node) {
    std::string b = "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContext(b + "CongestionWindow", MakeCallback(&Probe::OnCwnd, this));
    Config::ConnectWithoutContext(b + "SlowStartThreshold", MakeCallback(&Probe::OnSsth, this));
    Config::ConnectWithoutContext(b + "BytesInFlight", MakeCallback(&Probe::OnInflight, this));
    Config::ConnectWithoutContext(b + "RWND", MakeCallback(&Probe::OnRwnd, this));
    Config::ConnectWithoutContext(b + "HighestSequence", MakeCallback(&Probe::OnHigh, this));
    Config::ConnectWithoutContext(b + "NextTxSequence", MakeCallback(&Probe::OnNext, this));
    Config::ConnectWithoutContext(b + "CongState", MakeCallback(&Probe::OnState, this));
    Config::ConnectWithoutContext(b + "RTO", MakeCallback(&Probe::OnRto, this));
    Config::ConnectWithoutContext(b + "LastRTT", MakeCallback(&Probe::OnLastRtt, this));
    Config::ConnectWithoutContext(b + "PacingRate", MakeCallback(&Probe::OnPacing, this));
    Config::ConnectWithoutContext(b + "Tx", MakeCallback(&Probe::OnTx, this));
    Config::ConnectWithoutContext(b + "Rx", MakeCallback(&Probe::OnRx, this));
  }
  // --queue-log: every arrival at the queue disc under test in [qlogT0, qlogT1] ns
  int64_t qlogT0 = -1, qlogT1 = -1;
  struct QEvent { int64_t t; uint32_t src; uint32_t seq; bool dropped; };
  std::vector<QEvent> qlog;
  void QLog(Ptr<const QueueDiscItem> item, bool dropped) {
    int64_t t = Simulator::Now().GetNanoSeconds();
    if (t < qlogT0 || t > qlogT1) return;
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    TcpHeader h;
    item->GetPacket()->PeekHeader(h);
    qlog.push_back({t, ip ? ip->GetHeader().GetSource().Get() : 0, h.GetSequenceNumber().GetValue(), dropped});
  }
  void OnQEnq(Ptr<const QueueDiscItem> item) { QLog(item, false); }
  void OnQDrop(Ptr<const QueueDiscItem> item) { QLog(item, true); }
  void LogQueue(int64_t t0, int64_t t1) {
    qlogT0 = t0; qlogT1 = t1;
    qd->TraceConnectWithoutContext("Enqueue", MakeCallback(&Probe::OnQEnq, this));
    qd->TraceConnectWithoutContext("Drop", MakeCallback(&Probe::OnQDrop, this));
  }
  size_t NQLog() const { return qlog.size(); }
  std::string QLogRow(size_t i) const {
    const auto& e = qlog[i];
    std::string a = std::to_string(e.src >> 24) + "." + std::to_string((e.src >> 16) & 255) + "." +
                    std::to_string((e.src >> 8) & 255) + "." + std::to_string(e.src & 255);
    return std::to_string(e.t) + "," + a + "," + std::to_string(e.seq) + "," + (e.dropped ? "drop" : "enq");
  }
  void TraceSocketAt(double t, uint32_t node) { Simulator::Schedule(Seconds(t), &Probe::TraceSocket, this, node); }
  size_t NChanges() const { return changes.size(); }
  std::string ChangeRow(size_t i) const {
    return std::to_string(changes[i].t) + "," + changes[i].var + "," + std::to_string(changes[i].value);
  }
  uint64_t Rx(uint32_t k) const { return sinks[k]->GetTotalRx() - rx0[k]; }
  uint64_t Drops(uint32_t k, bool window) const {
    const auto& m = window ? dropsBySrcWindow : dropsBySrc;
    auto it = m.find(senderAddr[k]);
    return it == m.end() ? 0 : it->second;
  }
  uint64_t EventCount() const { return Simulator::GetEventCount(); }

  // --bbr-streams: just after flow k's application has created its socket (at its start), the
  // socket gets a TcpBbr of its own whose generator is stream `stream` of the run (TcpBbr's
  // public SetStream; BBR initialises at the handshake's end, so nothing has run yet), and the
  // first draws of that stream, as EnterProbeBW makes them (int(U[0, 6))), are kept for Sluice's
  // bbr.cycle_draws.
  std::map<uint32_t, std::vector<int>> bbrDraws;
  void PinBbrAt(double t, Ptr<Node> node, int64_t stream, uint32_t k, uint32_t count) {
    Simulator::Schedule(Seconds(t) + NanoSeconds(1), &Probe::PinBbr, this, node, stream, k, count);
  }
  void PinBbr(Ptr<Node> node, int64_t stream, uint32_t k, uint32_t count) {
    Ptr<TcpSocketBase> sock;
    for (uint32_t i = 0; i < node->GetNApplications() && !sock; ++i) {
      Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(node->GetApplication(i));
      if (app) sock = DynamicCast<TcpSocketBase>(app->GetSocket());
    }
    NS_ABORT_MSG_IF(!sock, "--bbr-streams: no BulkSend socket on the sender of flow " << k);
    Ptr<TcpBbr> bbr = CreateObject<TcpBbr>();
    bbr->SetStream(stream);
    sock->SetCongestionControlAlgorithm(bbr);
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(stream);
    for (uint32_t i = 0; i < count; ++i) bbrDraws[k].push_back(int(u->GetValue(0, 6)));
  }
  int BbrDraw(uint32_t k, uint32_t i) { return bbrDraws[k].at(i); }
  uint32_t NBbrDraws(uint32_t k) { return bbrDraws[k].size(); }

  // Departure fingerprint: every packet that starts transmission on A's bottleneck device
  // (PhyTxBegin, i.e. PointToPointNetDevice::TransmitStart), as the 19-byte record
  // time_ns u64 | flow u32 | seq u32 | ip_len u16 | tcp_flags u8 (big-endian), for
  // transmission starts in [depT0, depT1) ns. seq is relative to the flow's first SYN seen here.
  std::map<uint32_t, uint32_t> flowOf;    // sender address -> flow index
  std::map<uint32_t, uint32_t> isn;       // flow -> sequence number of its SYN
  std::vector<uint8_t> dep;
  uint64_t depCount = 0, depUnknown = 0;
  uint32_t reversePort = 0;  // 0: no reverse flows
  int64_t depT0 = 0, depT1 = 0;
  void Put(uint64_t v, int bytes) { for (int i = bytes - 1; i >= 0; --i) dep.push_back(uint8_t(v >> (8 * i))); }
  void OnTxBegin(Ptr<const Packet> p) {
    uint8_t b[2 + 60 + 60];
    uint32_t n = p->CopyData(b, sizeof b);
    const uint8_t* ip = b + 2;  // after the 2-byte PPP header
    if (n < 2 + 20 || b[0] != 0x00 || b[1] != 0x21 || (ip[0] >> 4) != 4 || ip[9] != 6) { ++depUnknown; return; }
    uint32_t ihl = (ip[0] & 15) * 4;
    if (n < 2 + ihl + 20) { ++depUnknown; return; }
    const uint8_t* tcp = ip + ihl;
    uint32_t src = (uint32_t(ip[12]) << 24) | (uint32_t(ip[13]) << 16) | (uint32_t(ip[14]) << 8) | ip[15];
    auto it = flowOf.find(src);
    if (it == flowOf.end()) { ++depUnknown; return; }
    uint32_t flow = it->second;
    // a reverse flow's ACKs (from its receiver's port on the sender node) are a flow of their own
    if (reversePort && ((uint32_t(tcp[0]) << 8) | tcp[1]) == reversePort) flow |= 0x80000000u;
    uint32_t seq = (uint32_t(tcp[4]) << 24) | (uint32_t(tcp[5]) << 16) | (uint32_t(tcp[6]) << 8) | tcp[7];
    uint8_t flags = tcp[13];
    if ((flags & 0x02) && !isn.count(flow)) isn[flow] = seq;
    int64_t t = Simulator::Now().GetNanoSeconds();
    if (t < depT0 || t >= depT1) return;
    auto s0 = isn.find(flow);
    uint32_t rel = seq - (s0 == isn.end() ? 0u : s0->second);
    uint16_t len = uint16_t((uint32_t(ip[2]) << 8) | ip[3]);
    Put(uint64_t(t), 8); Put(flow, 4); Put(rel, 4); Put(len, 2); Put(flags, 1);
    ++depCount;
  }
  void Departures(Ptr<NetDevice> dev, int64_t t0, int64_t t1) {
    for (uint32_t k = 0; k < senderAddr.size(); ++k) flowOf[senderAddr[k]] = k;
    depT0 = t0; depT1 = t1;
    dev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Probe::OnTxBegin, this));
  }
  bool WriteDepartures(const std::string& path) const {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    bool ok = std::fwrite(dep.data(), 1, dep.size(), f) == dep.size();
    return std::fclose(f) == 0 && ok;
  }
};

}  // namespace sluice_validation
"""


HELP = {
    "ecn": "ECN: the TCP sockets negotiate it (UseEcn On) and the queue disc (CoDel, FQ-CoDel, RED, ARED, PIE) "
           "marks (UseEcn true); "
           "without it both are off (FQ-CoDel's own default is on)",
    "flows": "number of sender/receiver pairs",
    "access_delay": "one-way delay of every access link (unless --sender-delays/--receiver-delays/--rtt-table)",
    "buffer": "limit of the queue disc under test, packets",
    "access_delay_jitter": "add a fixed offset drawn uniformly in [0, this] (whole ns) to every access "
                           "link's delay, e.g. 120us; the drawn delays are recorded per flow",
    "jitter_seed": "seed of the offsets' generator (Python's random.Random, sender then receiver "
                   "link of each flow in flow order)",
    "tcp": "ns-3 TCP type id (ns3::TcpNewReno, ns3::TcpCubic, ns3::TcpVegas, ns3::TcpLinuxReno, ...); "
           "a comma-separated list gives flow k the k-th type, cycled (SocketType on each sender's TcpL4Protocol)",
    "min_rto": "TcpSocketBase::MinRto, e.g. 200ms (default: ns-3's 1 s)",
    "delack": "TcpSocket::DelAckCount (default: ns-3's 2)",
    "init_cwnd": "TcpSocket::InitialCwnd, segments (default: ns-3's 10)",
    "recovery": "TcpL4Protocol::RecoveryType: prr (ns-3's default, TcpPrrRecovery) or classic (TcpClassicRecovery)",
    "duration": "simulated seconds; the senders stop then",
    "warmup": "start of the measurement window, s",
    "start_window": "flows start uniformly at random in [0, start_window) s",
    "file_size": "BulkSend MaxBytes, 0 = unlimited",
    "send_size": "BulkSend SendSize, bytes per socket write",
    "qsample": "queue-disc length sampling period",
    "red_min_th": "RedQueueDisc::MinTh, packets (red; with --red-max-th 0 both are set from --red-target as "
                  "ns-3 does: min = max(5, target*C/2), max = 3*min; ared always sets them so)",
    "red_max_th": "RedQueueDisc::MaxTh, packets (red)",
    "red_target": "RedQueueDisc::TargetDelay (automatic thresholds, ARED)",
    "red_mean_pkt_size": "RedQueueDisc::MeanPktSize, bytes (C = rate/(8*size); ns-3's default 500)",
    "loss": "loss on the bottleneck A->B, decided at B's receiving device: bernoulli:P, "
            "gilbert_elliott:P_GB,P_BG[,LOSS_GOOD,LOSS_BAD], list:all:N1,N2,.. or list:data:N1,.. "
            "(validation/ns3_loss.py)",
    "reverse_loss": "loss on the bottleneck B->A (SYN-ACKs, ACKs), decided at A's receiving device; as --loss",
    "ewt": "EWT on router A (validation/ns3_ewt.py): reads the occupancy of the A->B queue disc and lowers the "
           "window of every ACK leaving any of A's queue discs, as Sluice's [[gateways]] node = \"A\", "
           "controller = { kind = \"ewt\" } (rewrite_at = \"dequeue\")",
    "ewt_start": "EWT's start point S as a fraction of the A->B queue disc's limit B (B = limit * --mtu for a "
                 "packet limit); EWT acts while the occupancy is above S",
    "ewt_mss": "EWT's floor, bytes (ns-3's TCP announces no MSS option)",
    "bbr_streams": "pin ns-3 TcpBbr's draws: flow k's sender gets, at its start, a TcpBbr whose generator is "
                   "stream BASE+k of the run, and the record keeps that stream's first draws as ProbeBW makes "
                   "them (flows[k].bbr_draws), which Sluice replays as bbr.cycle_draws (validation/compare.py)",
    "reverse_buffer": "limit of B's FIFO queue disc towards A (B->A: ACKs, reverse flows' data), packets",
    "reverse_flows": "two-way traffic: pairs 0..N-1 also carry a bulk flow the other way, from receiver k to a "
                     f"PacketSink on sender k (port {REVERSE_PORT}), started after the forward flows' start times "
                     "are drawn (the same generator, one more draw each); its data crosses B->A, its ACKs "
                     "share A->B with the forward data",
}


# options that only add traces; left out of the record's "args"
TRACING = ("pcap", "pcap_reverse", "until", "trace_flow", "trace_out", "queue_log", "queue_log_window", "departures_out", "ewt_trace")


def parse_time_s(s) -> float:
    s = str(s).strip()
    for unit, k in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if s.endswith(unit):
            return float(s[: -len(unit)]) * k
    return float(s)


def reference_cases() -> dict:
    fx = json.loads(FIXTURE.read_text())
    return {c["case"]: c for c in fx["cases"]}


def args_from_case(name: str, starts: str) -> dict:
    case = reference_cases()[name]
    a = dict(DEFAULTS)
    a.update(case["args"])
    a["case"] = name
    if starts == "fixture":
        a["start_times"] = [f["start_s"] for f in case["flows"]]
    return a


def flow_delays(a: dict) -> list[tuple[str, str]]:
    base = base_delays(a)
    jitter_ns = round(parse_time_s(a.get("access_delay_jitter") or "0s") * 1e9)
    if jitter_ns <= 0:
        return base
    # Our own draws (the reference's generator is not known), recorded with the run, so Sluice
    # can be given the same delays.
    rng = random.Random(int(a.get("jitter_seed") or 1))
    out = []
    for sd, rd in base:
        s_ns = round(parse_time_s(sd) * 1e9) + rng.randint(0, jitter_ns)
        r_ns = round(parse_time_s(rd) * 1e9) + rng.randint(0, jitter_ns)
        out.append((f"{s_ns}ns", f"{r_ns}ns"))
    return out


def base_delays(a: dict) -> list[tuple[str, str]]:
    n = int(a["flows"])
    if a.get("sender_delays") or a.get("receiver_delays"):
        sl = str(a.get("sender_delays") or a["access_delay"]).split(",")
        rl = str(a.get("receiver_delays") or a["access_delay"]).split(",")
        return [(sl[k % len(sl)].strip(), rl[k % len(rl)].strip()) for k in range(n)]
    if a.get("rtt_table") == "eval9":
        return [(f"{EVAL9_LEFT[k % 9]:.1f}ms", f"{EVAL9_RIGHT[k % 9]:.1f}ms") for k in range(n)]
    if a.get("rtt_table"):
        raise SystemExit(f"unknown rtt_table {a['rtt_table']!r}")
    return [(str(a["access_delay"]), str(a["access_delay"]))] * n


def build_and_run(a: dict, dry_run: bool = False) -> dict:
    from ns import ns  # ~20 s
    import cppyy

    # Compiled once per process: several runs may share one (validation/loss_seeds.py).
    if not hasattr(cppyy.gbl, "sluice_validation"):
        cppyy.cppdef(PROBE_CPP)
        cppyy.cppdef(ns3_loss.LOSS_CPP)
        cppyy.cppdef(ns3_ewt.EWT_CPP)
    P = cppyy.gbl.sluice_validation

    n = int(a["flows"])
    rev = int(a.get("reverse_flows") or 0)
    if not 0 <= rev <= n:
        raise SystemExit(f"--reverse-flows: must be 0..{n} (one per pair at most), got {rev}")
    ns.RngSeedManager.SetSeed(int(a["seed"]))
    ns.RngSeedManager.SetRun(int(a["run"]))
    C = ns.Config
    tcp_types = [t.strip() for t in str(a["tcp"]).split(",") if t.strip()]
    C.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue(tcp_types[0]))
    C.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(int(a["segment_size"])))
    C.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(int(a["sndbuf"])))
    C.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(int(a["rcvbuf"])))
    C.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(not a["no_sack"]))
    if a.get("min_rto"):
        C.SetDefault("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(parse_time_s(a["min_rto"]))))
    if a.get("delack"):
        C.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(int(a["delack"])))
    if a.get("recovery", "prr") == "classic":
        C.SetDefault("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TcpClassicRecovery.GetTypeId()))
    if a.get("init_cwnd"):
        C.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(int(a["init_cwnd"])))
    C.SetDefault("ns3::CoDelQueueDisc::Target", ns.StringValue(str(a["codel_target"])))
    C.SetDefault("ns3::CoDelQueueDisc::Interval", ns.StringValue(str(a["codel_interval"])))
    C.SetDefault("ns3::FqCoDelQueueDisc::Target", ns.StringValue(str(a["codel_target"])))
    C.SetDefault("ns3::FqCoDelQueueDisc::Interval", ns.StringValue(str(a["codel_interval"])))
    ecn = bool(a.get("ecn"))
    C.SetDefault("ns3::CoDelQueueDisc::UseEcn", ns.BooleanValue(ecn))
    C.SetDefault("ns3::FqCoDelQueueDisc::UseEcn", ns.BooleanValue(ecn))
    C.SetDefault("ns3::RedQueueDisc::UseEcn", ns.BooleanValue(ecn))
    C.SetDefault("ns3::PieQueueDisc::UseEcn", ns.BooleanValue(ecn))
    if ecn:
        C.SetDefault("ns3::TcpSocketBase::UseEcn", ns.StringValue("On"))
    C.SetDefault("ns3::PieQueueDisc::QueueDelayReference", ns.TimeValue(ns.Seconds(parse_time_s(a["pie_target"]))))
    C.SetDefault("ns3::PieQueueDisc::Tupdate", ns.TimeValue(ns.Seconds(parse_time_s(a["pie_tupdate"]))))

    senders, receivers, routers = ns.NodeContainer(), ns.NodeContainer(), ns.NodeContainer()
    senders.Create(n)
    receivers.Create(n)
    routers.Create(2)
    ns.InternetStackHelper().InstallAll()
    if len(tcp_types) > 1:
        # A TCP type per flow: the sender's TcpL4Protocol creates its socket with it.
        for k in range(n):
            l4 = senders.Get(k).GetObject[ns.TcpL4Protocol]()
            l4.SetAttribute("SocketType", ns.TypeIdValue(ns.TypeId.LookupByName(tcp_types[k % len(tcp_types)])))

    def link(rate: str, delay: str):
        h = ns.PointToPointHelper()
        h.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        h.SetDeviceAttribute("Mtu", ns.UintegerValue(int(a["mtu"])))
        h.SetChannelAttribute("Delay", ns.StringValue(delay))
        h.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue("1p"))
        return h

    big = ns.TrafficControlHelper()
    big.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.StringValue("100000p"))
    ipv4 = ns.Ipv4AddressHelper()
    subnet = [0]

    def assign(devs):
        i = subnet[0]
        subnet[0] += 1
        ipv4.SetBase(ns.Ipv4Address(f"10.{i // 250}.{i % 250}.0"), ns.Ipv4Mask("255.255.255.0"))
        return ipv4.Assign(devs)

    delays = flow_delays(a)
    ra, rb = routers.Get(0), routers.Get(1)
    send_ips, recv_ips = [], []
    a_access_qdiscs = []  # the root queue discs of A's devices towards the senders
    for k in range(n):
        sd, rd = delays[k]
        left = link(a["access_rate"], sd).Install(senders.Get(k), ra)
        a_access_qdiscs.append(big.Install(left).Get(1))
        send_ips.append(assign(left).GetAddress(0))
        right = link(a["access_rate"], rd).Install(rb, receivers.Get(k))
        big.Install(right)
        recv_ips.append(assign(right).GetAddress(1))
    bn = link(a["bottleneck_rate"], a["bottleneck_delay"]).Install(ra, rb)
    tch = ns.TrafficControlHelper()
    kind = {"fifo": "ns3::FifoQueueDisc", "codel": "ns3::CoDelQueueDisc", "pie": "ns3::PieQueueDisc",
            "fq_codel": "ns3::FqCoDelQueueDisc", "red": "ns3::RedQueueDisc", "ared": "ns3::RedQueueDisc"}[a["qdisc"]]
    tch.SetRootQueueDisc(kind, "MaxSize", ns.StringValue(f"{int(a['buffer'])}p"))
    qd = tch.Install(bn.Get(0)).Get(0)
    if a["qdisc"] in ("red", "ared"):
        # RED learns the link only from these attributes (defaults 1.5 Mbps, 20 ms); set before
        # the queue disc is initialized at the start of the run.
        qd.SetAttribute("LinkBandwidth", ns.StringValue(a["bottleneck_rate"]))
        qd.SetAttribute("LinkDelay", ns.StringValue(a["bottleneck_delay"]))
        qd.SetAttribute("MeanPktSize", ns.UintegerValue(int(a.get("red_mean_pkt_size", 500))))
        qd.SetAttribute("TargetDelay", ns.TimeValue(ns.Seconds(parse_time_s(a.get("red_target", "5ms")))))
        qd.SetAttribute("MinTh", ns.DoubleValue(float(a.get("red_min_th", 0.0))))
        qd.SetAttribute("MaxTh", ns.DoubleValue(float(a.get("red_max_th", 0.0))))
        qd.SetAttribute("ARED", ns.BooleanValue(a["qdisc"] == "ared"))
    rev_fifo = ns.TrafficControlHelper()
    rev_fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.StringValue(f"{int(a['reverse_buffer'])}p"))
    rev_fifo.Install(bn.Get(1))
    assign(bn)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    # Start times: one UniformRandomVariable, created after the topology (its stream number
    # depends on the random variables created before it: nodes' stacks, PIE), one draw per flow.
    window = float(a["start_window"])
    if a.get("start_times"):
        starts = [float(x) for x in a["start_times"]]
        if len(starts) != n + rev:
            raise SystemExit(f"--start-times has {len(starts)} values for {n} flows and {rev} reverse flows")
        start_source = "given"
    else:
        rv = ns.CreateObject[ns.UniformRandomVariable]()
        rv.SetAttribute("Min", ns.DoubleValue(0.0))
        rv.SetAttribute("Max", ns.DoubleValue(window))
        starts = [rv.GetValue() if window > 0 else 0.0 for _ in range(n + rev)]
        start_source = "ns3-rng"
    if dry_run:
        return {"start_source": start_source, "start_s": starts}

    probe = P.Probe()
    probe.qd = qd
    ewt = None
    if a.get("ewt"):
        # EWT on A: reads A->B, rewrites at every queue disc of A (validation/ns3_ewt.py)
        ewt = cppyy.gbl.sluice_ewt.Ewt()
        ewt.Configure(qd, ns3_ewt.limit_bytes(qd, int(a["mtu"])), float(a["ewt_start"]), int(a["ewt_mss"]))
        if a.get("ewt_trace"):
            ewt.Trace()
        for q in [*a_access_qdiscs, qd]:
            ewt.Hook(q)
    duration = float(a["duration"])
    port = 5001
    for k in range(n):
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
        sapps = sink.Install(receivers.Get(k))
        sapps.Start(ns.Seconds(0.0))
        probe.AddSink(sapps.Get(0))
        probe.AddSender(send_ips[k])
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(recv_ips[k], port).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(int(a["file_size"])))
        bulk.SetAttribute("SendSize", ns.UintegerValue(int(a["send_size"])))
        apps = bulk.Install(senders.Get(k))
        apps.Start(ns.Seconds(starts[k]))
        apps.Stop(ns.Seconds(duration))
    for k in range(rev):
        # flow n + k: receiver k sends to a sink on sender k (sink n + k of the probe)
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), REVERSE_PORT).ConvertTo())
        sapps = sink.Install(senders.Get(k))
        sapps.Start(ns.Seconds(0.0))
        probe.AddSink(sapps.Get(0))
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(send_ips[k], REVERSE_PORT).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(int(a["file_size"])))
        bulk.SetAttribute("SendSize", ns.UintegerValue(int(a["send_size"])))
        apps = bulk.Install(receivers.Get(k))
        apps.Start(ns.Seconds(starts[n + k]))
        apps.Stop(ns.Seconds(duration))
    probe.reversePort = REVERSE_PORT if rev else 0
    probe.Connect(bn.Get(0), bn.Get(1))
    warm = float(a["warmup"])
    # the departure fingerprint over [warmup, duration) (validation/departures.py)
    dep_window = [int(ns.Seconds(warm).GetNanoSeconds()), int(ns.Seconds(duration).GetNanoSeconds())]
    probe.Departures(bn.Get(0), dep_window[0], dep_window[1])
    probe.Schedule(warm, parse_time_s(a["qsample"]), duration)
    # With --loss: the model on B's receiving device; timeout and recovery episodes per flow
    # and the link's losses (validation/ns3_loss.py). Without, nothing is scheduled, so the
    # records of the loss-free cases keep their event counts.
    episodes = cppyy.gbl.sluice_loss.Episodes() if a.get("loss") or a.get("reverse_loss") else None
    if episodes is not None:
        loss_models = [ns3_loss.install(ns, cppyy, dev, a[key])  # noqa: F841 (kept alive)
                       for key, dev in (("loss", bn.Get(1)), ("reverse_loss", bn.Get(0))) if a.get(key)]
        for k in range(n):
            episodes.Watch(senders.Get(k).GetId(), starts[k] + 1e-9)
        episodes.WatchDevice(bn.Get(1))
        episodes.StartAt(warm)

    bbr_base = a.get("bbr_streams")
    if bbr_base is not None:
        for k in range(n):
            if tcp_types[k % len(tcp_types)] == "ns3::TcpBbr":
                probe.PinBbrAt(starts[k], senders.Get(k), int(bbr_base) + k, k, BBR_DRAWS)
    if a.get("trace_flow") is not None:
        # the socket exists once the application has started (sender k is node k)
        probe.TraceSocketAt(starts[int(a["trace_flow"])] + 1e-9, int(a["trace_flow"]))
    if a.get("queue_log"):
        t0, t1 = (float(x) for x in a["queue_log_window"].split(","))
        probe.LogQueue(int(t0 * 1e9), int(t1 * 1e9))
    if a.get("pcap"):
        # transmissions on A's bottleneck device (A->B), as Sluice's pcap of queue "A->B"
        ns.PointToPointHelper().EnablePcap(str(a["pcap"]), bn.Get(0), False, True)
    if a.get("pcap_reverse"):
        # B's bottleneck device (B->A), as Sluice's pcap of queue "B->A"
        ns.PointToPointHelper().EnablePcap(str(a["pcap_reverse"]), bn.Get(1), False, True)
    ns.Simulator.Stop(ns.Seconds(float(a["until"]) if a.get("until") else duration))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0
    events = int(probe.EventCount())

    if a.get("trace_flow") is not None and a.get("trace_out"):
        with open(a["trace_out"], "w") as fh:
            fh.write("t_ns,var,value\n")
            for i in range(int(probe.NChanges())):
                fh.write(str(probe.ChangeRow(i)) + "\n")
    if ewt is not None and a.get("ewt_trace"):
        with open(a["ewt_trace"], "w") as fh:
            fh.write("t_ns,src,from_field,to_field\n")
            for i in range(int(ewt.NRows())):
                fh.write(str(ewt.Row(i)) + "\n")
    if a.get("queue_log"):
        with open(a["queue_log"], "w") as fh:
            fh.write("t_ns,src,seq,event\n")
            for i in range(int(probe.NQLog())):
                fh.write(str(probe.QLogRow(i)) + "\n")
    with tempfile.TemporaryDirectory() as d:
        tmp = str(Path(d) / "departures.bin")
        if not probe.WriteDepartures(tmp):
            raise SystemExit("could not write the departure records")
        blob = Path(tmp).read_bytes()
    if a.get("departures_out"):
        departures.write_csv(a["departures_out"], departures.unpack(blob))
    if int(probe.depUnknown):
        raise SystemExit(f"{int(probe.depUnknown)} packets on the bottleneck were not TCP from a sender")
    dep = {"window_ns": dep_window, **departures.fingerprint_bytes(blob)}
    assert dep["count"] == int(probe.depCount)
    span = duration - warm
    rx = [int(probe.Rx(k)) for k in range(n)]
    gps = [8 * b / span / 1e6 for b in rx]
    st, st0 = qd.GetStats(), probe.st0
    recv = st.nTotalReceivedPackets - st0.nTotalReceivedPackets
    dropped = st.nTotalDroppedPackets - st0.nTotalDroppedPackets
    sent = st.nTotalSentPackets - st0.nTotalSentPackets
    samples = list(probe.samples)
    m = sum(samples) / len(samples) if samples else 0.0
    sd = math.sqrt(max(0.0, sum(x * x for x in samples) / len(samples) - m * m)) if samples else 0.0
    s1, s2 = sum(gps), sum(g * g for g in gps)
    bn_rate = parse_rate_bps(a["bottleneck_rate"])
    ip_mbps = sent * int(a["mtu"]) * 8 / span / 1e6  # every data packet is a full MTU here
    rec = {
        "case": a.get("case", "custom"),
        "sim_seconds": duration,
        "window_s": [warm, duration],
        "wall_run_s": wall,
        "events": events,
        "events_per_s": events / wall if wall > 0 else None,
        "bottleneck_data_pkts_total": int(probe.dataPkts),
        "bottleneck_ack_pkts_total": int(probe.ackPkts),
        "aggregate_goodput_mbps": s1,
        "bottleneck_ip_throughput_mbps": ip_mbps,
        "bottleneck_utilization": ip_mbps * 1e6 / bn_rate,
        "drop_ratio": dropped / recv if recv else 0.0,
        "qdisc_window": {
            "received": int(recv),
            "dropped": int(dropped),
            "dropped_before_enqueue": int(st.nTotalDroppedPacketsBeforeEnqueue - st0.nTotalDroppedPacketsBeforeEnqueue),
            "dropped_after_dequeue": int(st.nTotalDroppedPacketsAfterDequeue - st0.nTotalDroppedPacketsAfterDequeue),
            "sent": int(sent),
            "marked": int(st.nTotalMarkedPackets - st0.nTotalMarkedPackets),
            # ns-3's own reason strings ("Overlimit drop", "Target exceeded drop", ...).
            "drops_before_by_reason": by_reason(st.nDroppedPacketsBeforeEnqueue, st0.nDroppedPacketsBeforeEnqueue),
            "drops_after_by_reason": by_reason(st.nDroppedPacketsAfterDequeue, st0.nDroppedPacketsAfterDequeue),
            "marks_by_reason": by_reason(st.nMarkedPackets, st0.nMarkedPackets),
        },
        "queue_mean_pkts": m,
        "queue_std_pkts": sd,
        "queue_mean_ms": m * int(a["mtu"]) * 8 / bn_rate * 1e3,
        "queue_samples": len(samples),
        "departures": dep,
        **({"link_losses_window": int(episodes.linkLostWindow), "link_losses_total": int(episodes.linkLost),
            # which arrivals at B's device were lost (1-based), to replay with --loss list:all:...
            "link_loss_packets": [int(episodes.LostIndex(i)) for i in range(int(episodes.NLost()))]}
           if episodes is not None else {}),
        "jain": s1 * s1 / (n * s2) if s2 > 0 else 1.0,
        # EWT's counters over the whole run, as Sluice's summary `gateways` entry
        **({"ewt": {"monitor": "A->B", "rewrite_at": "dequeue", "capacity_bytes": int(ewt.capacity),
                    "start_bytes": int(ewt.startBytes), "acks": int(ewt.acks), "lowered": int(ewt.lowered),
                    "unchanged": int(ewt.unchanged), "skipped": int(ewt.skipped),
                    "mean_reduction_bytes": int(ewt.reductionBytes) / int(ewt.lowered) if int(ewt.lowered) else 0.0}}
           if ewt is not None else {}),
        "start_source": start_source,
        "versions": versions(),
        "args": {k: v for k, v in a.items() if k not in ("case", "start_times") + TRACING},
        "flows": [
            {
                "flow": k,
                "sender_delay": delays[k][0],
                "receiver_delay": delays[k][1],
                "base_rtt_ms": round(2e3 * (parse_time_s(delays[k][0]) + parse_time_s(a["bottleneck_delay"]) + parse_time_s(delays[k][1])), 9),
                "start_s": starts[k],
                "start_ns": int(ns.Seconds(starts[k]).GetNanoSeconds()),
                "goodput_mbps": gps[k],
                "qdisc_drops_window": int(probe.Drops(k, True)),
                "qdisc_drops_total": int(probe.Drops(k, False)),
                **({"timeout_episodes": int(episodes.Loss(k)), "recovery_episodes": int(episodes.Recovery(k))}
                   if episodes is not None else {}),
                **({"bbr_draws": [int(probe.BbrDraw(k, i)) for i in range(int(probe.NBbrDraws(k)))]}
                   if int(probe.NBbrDraws(k)) else {}),
            }
            for k in range(n)
        ],
        # --reverse-flows: flow n + k, from receiver k to sender k
        **({"reverse_flows": [
            {
                "flow": n + k,
                "pair": k,
                "start_s": starts[n + k],
                "start_ns": int(ns.Seconds(starts[n + k]).GetNanoSeconds()),
                "goodput_mbps": 8 * int(probe.Rx(n + k)) / span / 1e6,
            }
            for k in range(rev)
        ]} if rev else {}),
    }
    ns.Simulator.Destroy()
    return rec


def parse_rate_bps(s: str) -> float:
    s = str(s)
    for unit, k in (("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3), ("kbps", 1e3), ("bps", 1.0)):
        if s.endswith(unit):
            return float(s[: -len(unit)]) * k
    return float(s)


def by_reason(now, then) -> dict[str, int]:
    """A QueueDisc::Stats per-reason map (std::map<std::string, uint32_t>) over the window."""
    before = {str(kv.first): int(kv.second) for kv in then}
    return {str(kv.first): int(kv.second) - before.get(str(kv.first), 0) for kv in now if int(kv.second) > before.get(str(kv.first), 0)}


def versions() -> dict:
    from importlib import metadata

    def v(p):
        try:
            return metadata.version(p)
        except metadata.PackageNotFoundError:
            return None

    return {"ns3": f"3.44 (PyPI ns3 {v('ns3')})", "cppyy": v("cppyy"), "python": platform.python_version()}


def add_setup_flags(ap: argparse.ArgumentParser, with_defaults: bool) -> None:
    """One flag per set-up argument (DEFAULTS); without defaults a flag not given is absent from
    the parsed namespace (to tell which flags override a --case or --from-record)."""
    for key, val in DEFAULTS.items():
        flag = "--" + key.replace("_", "-")
        d = val if with_defaults else argparse.SUPPRESS
        if isinstance(val, bool):
            ap.add_argument(flag, action="store_true", default=d, help=HELP.get(key))
        elif key == "qdisc":
            ap.add_argument(flag, choices=["fifo", "codel", "fq_codel", "pie", "red", "ared"], default=d)
        elif key == "recovery":
            ap.add_argument(flag, choices=["prr", "classic"], default=d, help=HELP[key])
        elif key == "rtt_table":
            ap.add_argument(flag, choices=["eval9"], default=d,
                            help="eval9: flow k uses one-way delays left [0,0,0,12,12,12,25,25,25][k%%9] ms, "
                                 "right [2,37,75]*3 [k%%9] ms")
        elif key in ("sender_delays", "receiver_delays"):
            ap.add_argument(flag, default=d, help="comma-separated one-way delays, flow k uses item k mod len")
        else:
            typ = type(val) if val is not None else str
            ap.add_argument(flag, type=typ, default=d, help=HELP.get(key))


def setup(argv: list[str] | None = None) -> tuple[dict, argparse.Namespace]:
    """The run's set-up arguments from the command line, and the parsed command line."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", help="take every set-up argument from this case of validation/fixtures/ns3-reference.json; "
                    "set-up flags given as well override the case's values (e.g. --case b-access90-newreno-fifo "
                    "--tcp ns3::TcpBbr)")
    ap.add_argument("--starts", choices=["rng", "fixture"], default="rng",
                    help="with --case: draw start times from ns-3's RNG (default) or copy the fixture's start_s")
    ap.add_argument("--start-times", help="explicit per-flow start times in seconds, comma-separated")
    ap.add_argument("--name", help="the record's \"case\" field (default: the --case name, else \"custom\")")
    ap.add_argument("--out", type=Path, help="write the JSON record here instead of standard output")
    ap.add_argument("--pcap", help="write the A->B bottleneck device's transmissions to this pcap file")
    ap.add_argument("--pcap-reverse", help="write the B->A bottleneck device's transmissions to this pcap file")
    ap.add_argument("--until", type=float, help="stop the simulation at this time (s), for tracing; "
                    "the statistics are then not comparable")
    ap.add_argument("--trace-flow", type=int, help="record every change of this flow's sender state "
                    "(cwnd, ssthresh, bytes in flight, rwnd, highest/next sequence, state, segments sent and "
                    "ACKs received; absolute sequence numbers) into --trace-out")
    ap.add_argument("--trace-out", help="CSV file for --trace-flow (t_ns,var,value)")
    ap.add_argument("--queue-log", help="CSV of every arrival at the queue disc under test (time ns, source "
                    "address, TCP sequence number, enq/drop) within --queue-log-window")
    ap.add_argument("--queue-log-window", default="0,1e9", help="T0,T1 in seconds for --queue-log")
    ap.add_argument("--ewt-trace", help="with --ewt: CSV of every ACK whose window EWT lowered "
                    "(t_ns,src,from_field,to_field; the time it left A)")
    ap.add_argument("--departures-out", help="CSV of every packet in the departure fingerprint "
                    "(time_ns,flow,seq,len,flags; see validation/departures.py)")
    ap.add_argument("--from-record", type=Path, help="take every set-up argument and the case name from "
                    "this record of ours (validation/fixtures/ns3/NAME.json), to run it again; set-up flags "
                    "given as well override the record's values")
    ap.add_argument("--dry-run", action="store_true", help="build the topology, print the start times, do not run")
    add_setup_flags(ap, with_defaults=True)
    args = ap.parse_args(argv)
    # The set-up flags actually given: parsed again without defaults, so a flag left out is absent.
    given = argparse.ArgumentParser(add_help=False)
    add_setup_flags(given, with_defaults=False)
    explicit = vars(given.parse_known_args(argv)[0])
    if args.case and args.from_record:
        ap.error("--case and --from-record both name the set-up; give one")
    if args.case:
        a = args_from_case(args.case, args.starts)
    elif args.from_record:
        rec = json.loads(args.from_record.read_text())
        a = dict(DEFAULTS)
        a.update(rec["args"])
        a["case"] = rec["case"]
        if rec.get("start_source") == "given":
            a["start_times"] = [f["start_s"] for f in rec["flows"]]
    else:
        a = {k: getattr(args, k) for k in DEFAULTS}
    a.update(explicit)
    if args.name:
        a["case"] = args.name
    a["pcap"], a["pcap_reverse"], a["until"] = args.pcap, args.pcap_reverse, args.until
    a["trace_flow"], a["trace_out"] = args.trace_flow, args.trace_out
    a["queue_log"], a["queue_log_window"] = args.queue_log, args.queue_log_window
    a["departures_out"] = args.departures_out
    a["ewt_trace"] = args.ewt_trace
    if args.start_times:
        a["start_times"] = [float(x) for x in args.start_times.split(",")]
    return a, args


def main() -> int:
    a, args = setup()
    rec = build_and_run(a, dry_run=args.dry_run)
    text = json.dumps(rec, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
