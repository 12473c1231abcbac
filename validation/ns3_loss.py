"""Link loss and loss-recovery counters for the ns-3 validation runs (used by ns3_dumbbell.py).

Loss on the bottleneck A->B is decided on B's receiving device (its ReceiveErrorModel), so a
lost packet has crossed the link, as in Sluice (where the packet occupies the link and never
arrives). ``--loss`` takes one of:

- ``bernoulli:P``: ns-3's RateErrorModel, ERROR_UNIT_PACKET, rate P (its own
  UniformRandomVariable stream; vary ``--run`` for independent runs);
- ``gilbert_elliott:P_GB,P_BG[,LOSS_GOOD,LOSS_BAD]`` (defaults 0 and 1): a two-state Markov
  chain stepped per packet arriving at the device, first the move, then the loss with the new
  state's probability, starting good (Sluice's definition, docs/scenarios.md "Link loss"); two
  UniformRandomVariable draws per packet;
- ``list:all:N1,N2,...`` or ``list:data:N1,...``: the n-th packet arriving at the device is lost
  (counting from 1; ``data`` counts only TCP segments carrying payload). ns-3's ListErrorModel
  keys on packet UIDs, which no other simulator can match, so this counts arrivals instead.

``Episodes`` counts, per flow, the entries of the sender's ``CongState`` into CA_LOSS (timeout
episodes) and CA_RECOVERY (fast-recovery episodes) within the measurement window (Sluice's
``timeout_episodes`` and ``recovery_episodes``), and the packets the link lost (the receiving
device's ``PhyRxDrop`` trace; Sluice's ``link_losses`` of queue A->B).
"""
from __future__ import annotations

LOSS_CPP = r"""
#include <deque>
#include <vector>

namespace sluice_loss {
using namespace ns3;

// Gilbert-Elliott or a list of arrival indices, decided per packet arriving at the device.
class ScriptedErrorModel : public ErrorModel {
 public:
  int kind = 0;                         // 1 Gilbert-Elliott, 2 list
  double pGb = 0, pBg = 0, lossGood = 0, lossBad = 1;
  bool bad = false;
  Ptr<UniformRandomVariable> rv;
  bool dataOnly = false;
  std::vector<uint64_t> list;           // ascending, 1-based
  size_t next = 0;
  uint64_t counted = 0;

  // Set up from Python through methods only: cppyy's writes to data members of this class were
  // seen not to reach the compiled code (a bool written from Python read back false in DoCorrupt).
  void SetGilbertElliott(double gb, double bg, double good, double badLoss) {
    kind = 1; pGb = gb; pBg = bg; lossGood = good; lossBad = badLoss;
    rv = CreateObject<UniformRandomVariable>();
  }
  void SetList(bool dataOnly_) { kind = 2; dataOnly = dataOnly_; }
  void Push(uint64_t n) { list.push_back(n); }

 public:
  static bool IsData(Ptr<const Packet> p) {
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    c->RemoveHeader(ppp);
    Ipv4Header ip;
    c->RemoveHeader(ip);
    if (ip.GetProtocol() != 6) return false;
    TcpHeader t;
    c->RemoveHeader(t);
    return c->GetSize() > 0;
  }
  bool Decide(Ptr<Packet> p) {
    if (kind == 1) {
      double leave = bad ? pBg : pGb;
      if (rv->GetValue() < leave) bad = !bad;
      double q = bad ? lossBad : lossGood;
      return q >= 1.0 || rv->GetValue() < q;
    }
    if (dataOnly && !IsData(p)) return false;
    ++counted;
    if (next < list.size() && list[next] == counted) { ++next; return true; }
    return false;
  }
  bool DoCorrupt(Ptr<Packet> p) override { return Decide(p); }
  void DoReset() override {}
};

// Per flow: CongState entries into CA_LOSS and CA_RECOVERY within the window.
struct FlowEpisodes {
  uint64_t loss = 0, recovery = 0;
  const bool* inWindow = nullptr;
  void OnState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v) {
    if (!*inWindow) return;
    if (v == TcpSocketState::CA_LOSS) ++loss;
    if (v == TcpSocketState::CA_RECOVERY) ++recovery;
  }
};

class Episodes {
 public:
  std::deque<FlowEpisodes> flows;       // stable addresses for the bound callbacks
  bool inWindow = false;
  uint64_t linkLost = 0, linkLostWindow = 0;

  // Flow k's sender is node `node`; its socket exists once the application has started.
  void Watch(uint32_t node, double at) {
    flows.emplace_back();
    flows.back().inWindow = &inWindow;
    Simulator::Schedule(Seconds(at), &Episodes::Connect, this, node, &flows.back());
  }
  void Connect(uint32_t node, FlowEpisodes* f) {
    std::string b = "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContext(b + "CongState", MakeCallback(&FlowEpisodes::OnState, f));
  }
  // Packets the receiving device's error model discarded (PointToPointNetDevice PhyRxDrop).
  void WatchDevice(Ptr<NetDevice> d) {
    d->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&Episodes::OnRxDrop, this));
    d->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(&Episodes::OnRxEnd, this));
  }
  // Arrivals at the device, and the 1-based index of each one lost: a random run's losses
  // replayed as a list (`list:all:...`) in either simulator.
  uint64_t arrivals = 0;
  std::vector<uint64_t> lostIndex;
  void OnRxEnd(Ptr<const Packet>) { ++arrivals; }
  void OnRxDrop(Ptr<const Packet>) {
    ++arrivals;
    lostIndex.push_back(arrivals);
    ++linkLost;
    if (inWindow) ++linkLostWindow;
  }
  size_t NLost() const { return lostIndex.size(); }
  uint64_t LostIndex(size_t i) const { return lostIndex[i]; }
  void StartAt(double warm) { Simulator::Schedule(Seconds(warm), &Episodes::Start, this); }
  void Start() { inWindow = true; }
  uint64_t Loss(size_t k) const { return flows[k].loss; }
  uint64_t Recovery(size_t k) const { return flows[k].recovery; }
};

}  // namespace sluice_loss
"""


def parse_loss(spec: str) -> dict:
    """``bernoulli:0.01`` -> {"kind": "bernoulli", "p": 0.01}; raises ValueError naming the part."""
    kind, _, rest = spec.partition(":")
    if kind == "bernoulli":
        p = float(rest)
        if not 0.0 <= p < 1.0:
            raise ValueError(f"--loss bernoulli:P: P must be in [0, 1), got {p}")
        return {"kind": "bernoulli", "p": p}
    if kind == "gilbert_elliott":
        v = [float(x) for x in rest.split(",")]
        if len(v) not in (2, 4):
            raise ValueError("--loss gilbert_elliott:P_GB,P_BG[,LOSS_GOOD,LOSS_BAD]")
        v += [0.0, 1.0][len(v) - 2:]
        return {"kind": "gilbert_elliott", "p_gb": v[0], "p_bg": v[1], "loss_good": v[2], "loss_bad": v[3]}
    if kind == "list":
        match, _, nums = rest.partition(":")
        if match not in ("all", "data"):
            raise ValueError(f"--loss list:MATCH:N1,..: MATCH is all or data, got {match!r}")
        packets = [int(x) for x in nums.split(",") if x]
        if any(n < 1 for n in packets) or packets != sorted(set(packets)):
            raise ValueError("--loss list: packets must be ascending positive integers")
        return {"kind": "list", "match": match, "packets": packets}
    raise ValueError(f"--loss: kind must be bernoulli, gilbert_elliott or list, got {kind!r}")


def sluice_toml(spec: str) -> str:
    """The same model as Sluice's `loss` value (an inline TOML table, docs/scenarios.md)."""
    m = parse_loss(spec)
    if m["kind"] == "bernoulli":
        return f'{{ kind = "bernoulli", p = {m["p"]!r} }}'
    if m["kind"] == "gilbert_elliott":
        return ('{ kind = "gilbert_elliott", ' + ", ".join(f"{k} = {m[k]!r}" for k in ("p_gb", "p_bg", "loss_good", "loss_bad")) + " }")
    return f'{{ kind = "list", match = "{m["match"]}", packets = [{", ".join(map(str, m["packets"]))}] }}'


def install(ns, cppyy, device, spec: str):
    """Put the loss model `spec` on `device` (the receiving end of the lossy link direction).

    Returns (RateErrorModel or None, ScriptedErrorModel or None)."""
    m = parse_loss(spec)
    if m["kind"] == "bernoulli":
        em = ns.CreateObject[ns.RateErrorModel]()
        em.SetAttribute("ErrorUnit", ns.StringValue("ERROR_UNIT_PACKET"))
        em.SetAttribute("ErrorRate", ns.DoubleValue(m["p"]))
        device.SetAttribute("ReceiveErrorModel", ns.PointerValue(em))
        return em, None
    L = cppyy.gbl.sluice_loss
    em = ns.CreateObject[L.ScriptedErrorModel]()
    if m["kind"] == "gilbert_elliott":
        em.SetGilbertElliott(m["p_gb"], m["p_bg"], m["loss_good"], m["loss_bad"])
    else:
        em.SetList(m["match"] == "data")
        for n in m["packets"]:
            em.Push(n)
    device.SetAttribute("ReceiveErrorModel", ns.PointerValue(em))
    return None, em
