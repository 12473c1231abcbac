"""EWT (Early Window Tailoring) on ns-3's router A, for ns3_dumbbell.py ``--ewt``.

ns-3 has no EWT. The EWT paper (Talau, Fonseca, Wille, JCNC 2019) implemented it in ns-3 as a
queue disc derived from drop-tail that hands every dequeued segment to its routine; this is our
own hook of that kind, written again from Sluice's rules (docs/algorithms/network-return.md,
"EWT" and "The seam"; ``crates/sluice-core/src/control/ewt.rs`` and ``packet/window.rs``), so that
an ns-3 run and a Sluice run with ``[[gateways]] node = "A", controller = { kind = "ewt" }``
(``rewrite_at = "dequeue"``, the default) do the same thing:

* **monitored queue**: the root queue disc of A's bottleneck device (A->B); ``U`` is its
  ``GetNBytes()`` (IP packets, headers included: 1500 bytes per full data segment), ``B`` its
  limit in bytes, a packet limit counting ``mtu`` bytes per packet (900 packets: 1,350,000 B);
  ``S = round(start * B)``;
* **rewrite point**: every packet as it leaves any of A's queue discs (the ``Dequeue`` trace of
  the root queue disc of each of A's devices: the senders' access links, where the ACKs go, and
  A->B, where the data segments, which carry an ACK too, go). ns-3 has no bypass: a packet that
  finds its queue disc empty is enqueued and dequeued at once, as Sluice's pass-through counts
  it. The trace fires after the queue disc's byte count has dropped the packet, before the
  IPv4 header is added, so the packet starts with its TCP header;
* **flow table**: per connection (the 5-tuple, both directions), the window-scale option of each
  endpoint's SYN (initiator: SYN without ACK) and SYN-ACK, seen at the rewrite point; the shift
  of a side follows Sluice's ``FlowEntry::shift`` (both SYNs seen: the side's own option if both
  carried one, else 0; a SYN seen without the option: 0; only the SYN-ACK seen: its option; else
  unknown); an option above 14 counts 14;
* **EWT**: for a TCP segment with ACK and without SYN or RST (``acks``), if ``U <= S`` leave it
  (``unchanged``, as Sluice counts a controller's ``None``); else ``W_ewt = floor(field * (B - U)
  / B)`` in field units, ``floor = ceil(mss / 2^shift)`` (shift 0 when unknown), ``new =
  min(max(W_ewt, floor), field)``; an equal field is left (``unchanged``), a smaller one written
  (``lowered``; the reduction, ``(field - new) << shift``, summed for the mean). ns-3's TCP sends
  no MSS option, so the floor is the configured ``mss`` (1460), as in Sluice, whose flow table
  then has no MSS for the flow either;
* **writing**: ns-3 keeps the TCP header as an object in the packet: remove it, set the window
  field, add it back. ns-3 computes no checksums by default (``ChecksumEnabled`` false: a
  serialized TCP checksum is 0), so there is none to update; Sluice's writer would update it
  by RFC 1624 where a packet carries one.

The counters are those of Sluice's summary ``gateways`` entry (over the whole run).
"""
from __future__ import annotations

EWT_CPP = r"""
#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace sluice_ewt {
using namespace ns3;

// One endpoint of a connection, as its SYN or SYN-ACK showed it.
struct End {
  uint64_t ep = 0;          // address << 16 | port
  bool synSeen = false;
  bool wsPresent = false;
  uint8_t ws = 0;
};

struct Flow {
  End init, resp;           // initiator: the endpoint that sent the SYN
  // Sluice's FlowEntry::shift: -1 while unknown.
  int Shift(bool initiatorSide) const {
    if (init.synSeen && resp.synSeen) {
      bool wsOk = init.wsPresent && resp.wsPresent;
      return wsOk ? (initiatorSide ? init.ws : resp.ws) : 0;
    }
    if ((init.synSeen && !init.wsPresent) || (resp.synSeen && !resp.wsPresent)) return 0;
    if (resp.synSeen && !initiatorSide) return resp.wsPresent ? resp.ws : -1;
    return -1;
  }
};

class Ewt {
 public:
  Ptr<QueueDisc> monitored;
  uint64_t capacity = 0;    // B, bytes
  uint64_t startBytes = 0;  // S, bytes
  uint32_t mss = 1460;
  uint64_t acks = 0, lowered = 0, unchanged = 0, skipped = 0;
  uint64_t reductionBytes = 0;  // summed over lowered ACKs (bytes, each with its flow's shift)
  std::map<std::pair<uint64_t, uint64_t>, Flow> flows;
  // optional trace of the lowered ACKs: (time ns, source address, field before, field after)
  bool tracing = false;
  struct Row { int64_t t; uint32_t src; uint16_t from, to; };
  std::vector<Row> rows;

  // Set up through methods (cppyy's writes to data members of compiled classes are not to be
  // trusted, validation/ns3_loss.py).
  void Configure(Ptr<QueueDisc> q, uint64_t b, double startFraction, uint32_t mss_) {
    monitored = q;
    capacity = b;
    // Sluice's Level::Fraction(f).bytes: (f * B).round(), half away from zero.
    startBytes = uint64_t(std::round(startFraction * double(b)));
    mss = mss_;
  }
  void Trace() { tracing = true; }
  void Hook(Ptr<QueueDisc> q) {
    q->TraceConnectWithoutContext("Dequeue", MakeCallback(&Ewt::OnDequeue, this));
  }

  void OnDequeue(Ptr<const QueueDiscItem> item) {
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ip || ip->GetHeader().GetProtocol() != 6) return;
    Ptr<Packet> p = item->GetPacket();
    TcpHeader h;
    p->PeekHeader(h);
    uint8_t flags = h.GetFlags();
    uint64_t src = (uint64_t(ip->GetHeader().GetSource().Get()) << 16) | h.GetSourcePort();
    uint64_t dst = (uint64_t(ip->GetHeader().GetDestination().Get()) << 16) | h.GetDestinationPort();
    auto key = std::make_pair(std::min(src, dst), std::max(src, dst));
    auto it = flows.find(key);
    if (flags & TcpHeader::SYN) {
      Flow& f = flows[key];
      bool synAck = flags & TcpHeader::ACK;
      if (it == flows.end()) {  // new: the SYN's sender is the initiator
        f.init.ep = synAck ? dst : src;
        f.resp.ep = synAck ? src : dst;
      }
      End& e = synAck ? f.resp : f.init;
      e.synSeen = true;
      e.wsPresent = h.HasOption(TcpOption::WINSCALE);
      if (e.wsPresent) {
        Ptr<const TcpOptionWinScale> o = DynamicCast<const TcpOptionWinScale>(h.GetOption(TcpOption::WINSCALE));
        e.ws = std::min<uint8_t>(o->GetScale(), 14);
      }
      return;  // lower_window step 1: a SYN's window is never scaled
    }
    if ((flags & TcpHeader::RST) || !(flags & TcpHeader::ACK)) return;
    if (it == flows.end()) {
      // picked up mid-stream: Sluice guesses the initiator as the endpoint with the higher port
      Flow& f = flows[key];
      bool srcInit = (src & 0xffff) > (dst & 0xffff);
      f.init.ep = srcInit ? src : dst;
      f.resp.ep = srcInit ? dst : src;
      it = flows.find(key);
    }
    ++acks;
    uint64_t b = capacity, u = monitored->GetNBytes();
    // the EWT paper, Algorithm 1: EWT only works when the memory usage is greater than S
    if (b == 0 || u <= startBytes) { ++unchanged; return; }
    uint64_t freeBytes = b > u ? b - u : 0;
    uint64_t field = h.GetWindowSize();
    uint64_t wEwt = field * freeBytes / b;  // field < 2^16 and B < 2^40: no overflow
    int shift = it->second.Shift(it->second.init.ep == src);
    int s = shift < 0 ? 0 : std::min(shift, 14);
    uint64_t floorField = (uint64_t(mss) + (uint64_t(1) << s) - 1) >> s;
    uint64_t nw = std::min(std::max(wEwt, floorField), field);
    if (nw == field) { ++unchanged; return; }
    p->RemoveHeader(h);
    h.SetWindowSize(uint16_t(nw));
    p->AddHeader(h);
    ++lowered;
    reductionBytes += (field - nw) << s;
    if (tracing) rows.push_back({Simulator::Now().GetNanoSeconds(), ip->GetHeader().GetSource().Get(), uint16_t(field), uint16_t(nw)});
  }

  size_t NRows() const { return rows.size(); }
  std::string Row(size_t i) const {
    const auto& r = rows[i];
    std::string a = std::to_string(r.src >> 24) + "." + std::to_string((r.src >> 16) & 255) + "." +
                    std::to_string((r.src >> 8) & 255) + "." + std::to_string(r.src & 255);
    return std::to_string(r.t) + "," + a + "," + std::to_string(r.from) + "," + std::to_string(r.to);
  }
};

}  // namespace sluice_ewt
"""


def limit_bytes(queue_disc, mtu: int) -> int:
    """``B``: the queue disc's limit in bytes, a packet limit counting ``mtu`` bytes a packet."""
    size = queue_disc.GetMaxSize()
    n = int(size.GetValue())
    # QueueSizeUnit: PACKETS = 0, BYTES = 1
    return n * mtu if int(size.GetUnit()) == 0 else n
