//! Nodes, interfaces and static routing.
//!
//! Every link direction is an [`Iface`] owned by its sending node: a queue discipline, a small
//! device queue (ns-3's transmit queue, default one packet), a serializer at the link rate and a
//! propagation delay. Timing model (ns-3's point-to-point link; docs/architecture.md): a packet
//! enters the queue at its arrival instant; serialization takes `(ip_len + l2_overhead)·8 / rate`;
//! the packet arrives at the far node one propagation delay after its last bit left; there is no
//! processing delay.

use crate::packet::SimPacket;
use sluice_core::packet::Ecn;
use sluice_core::qdisc::{AnyQdisc, Instrumented, QueueDisc, Queued};
use sluice_core::rng::RngStream;
use sluice_core::{Dur, Rate, Time};
use std::collections::VecDeque;

/// What a queue holds: a reference to a packet in the engine's slab plus what disciplines read.
#[derive(Copy, Clone, Debug, Default)]
pub struct QPkt {
    pub id: u32,
    pub len: u32,
    pub enq: Time,
    pub ecn: Ecn,
    pub hash: u32,
    /// Flow · 2, + 1 from the server ([`Queued::flow_key`]).
    pub key: u32,
    /// What the packet touches when it reaches the far end of this interface
    /// ([`NextHop`]), so the engine can bring that state into cache one event early.
    pub next: NextHop,
}

/// Where a packet goes at the far end of the interface it is queued on: the endpoint that
/// receives it, or the interface that forwards it. Only a hint for warming the cache before
/// the arrival runs (the arrival itself routes the packet as usual); computed when the packet
/// is queued, while its headers are in cache.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct NextHop(u32);

impl NextHop {
    const ENDPOINT: u32 = 1 << 31;
    /// With `ENDPOINT`: the packet carries data (its receiver reads only the receiving state).
    const DATA: u32 = 1 << 30;
    /// Nothing known (a datagram for a host, or no route).
    pub const NONE: NextHop = NextHop(u32::MAX);

    /// Delivery to endpoint `ep`; `data`: the packet carries payload.
    pub fn endpoint(ep: usize, data: bool) -> NextHop {
        debug_assert!((ep as u32) < Self::DATA - 1);
        NextHop(ep as u32 | Self::ENDPOINT | if data { Self::DATA } else { 0 })
    }
    pub fn iface(k: u32) -> NextHop {
        if k < Self::ENDPOINT {
            NextHop(k)
        } else {
            Self::NONE
        }
    }
    /// The endpoint the packet is delivered to, if any, and whether it carries data.
    #[inline]
    pub fn as_endpoint(self) -> Option<(usize, bool)> {
        (self != Self::NONE && self.0 & Self::ENDPOINT != 0).then_some(((self.0 & !(Self::ENDPOINT | Self::DATA)) as usize, self.0 & Self::DATA != 0))
    }
    /// The interface that forwards the packet, if any.
    #[inline]
    pub fn as_iface(self) -> Option<usize> {
        (self.0 & Self::ENDPOINT == 0).then_some(self.0 as usize)
    }
}

/// The port a TCP server listens on unless its flow gives `port` (clients take 49152 + flow
/// index, so a server's port is below 49152).
pub const SERVER_PORT: u16 = 5_001;

/// A UDP flow's destination port unless it gives `port` (discard).
pub const UDP_PORT: u16 = 9;

/// The first port of the clients' range.
pub const CLIENT_PORTS: u16 = 49_152;

impl Queued for QPkt {
    #[inline]
    fn len_bytes(&self) -> u32 {
        self.len
    }
    #[inline]
    fn enqueued_at(&self) -> Time {
        self.enq
    }
    #[inline]
    fn stamp(&mut self, t: Time) {
        self.enq = t
    }
    #[inline]
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    #[inline]
    fn set_ce(&mut self) {
        self.ecn = Ecn::Ce
    }
    #[inline]
    fn flow_hash(&self) -> u32 {
        self.hash
    }
    #[inline]
    fn flow_key(&self) -> u32 {
        self.key
    }
}

impl QPkt {
    pub fn of(id: u32, p: &SimPacket) -> QPkt {
        let mut h = (p.src as u64) << 32 | p.dst as u64;
        h ^= (p.sport as u64) << 16 | p.dport as u64;
        h = h.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let key = p.flow.wrapping_mul(2) | (matches!(p.transport, crate::packet::Transport::Tcp { .. }) && p.sport < CLIENT_PORTS) as u32;
        QPkt { id, len: p.ip_len(), enq: Time::ZERO, ecn: p.tos.ecn(), hash: (h >> 32) as u32, key, next: NextHop::NONE }
    }
}

/// One direction of a link, owned by the sending node: the state the per-packet path touches.
/// Descriptive and sampling state lives beside it in [`IfaceInfo`] (same index).
///
/// Laid out by how often each part is touched (`repr(C)`, one cache line per 64 bytes): a
/// packet that finds the link idle and the queue empty — the common case on the access links
/// of a large topology — reads and writes the first two lines only: serializer and wire state
/// in the first, the queue statistics in the second (the counters also answer "is the queue
/// empty", [`QdiscStats::queued_pkts`](sluice_core::qdisc::QdiscStats::queued_pkts)). The
/// discipline's own state, the device slots and the packets behind the oldest on the wire
/// follow, touched only while packets wait. The layout test below keeps it so.
#[repr(C, align(64))]
pub struct Iface {
    // ---- line 1
    /// The serializer is busy until this instant.
    pub busy_until: Time,
    /// Event sequence number reserved, at the start of the current transmission, for its
    /// transmit-complete (scheduled only if packets wait behind it).
    pub tx_seq: u64,
    pub rate: Rate,
    pub delay: Dur,
    /// The oldest packet on the wire (valid when [`Flags::WIRE`] is set): its arrival time at
    /// the peer, its event sequence number, its slab index.
    wire_at: Time,
    wire_seq: u64,
    wire_id: u32,
    pub peer: u32,
    pub l2_overhead: u32,
    /// Device queue ring: index of the oldest slot, packets held.
    dev_head: u8,
    dev_len: u8,
    /// Packets the device queue takes while the serializer is busy (at most `DEVICE_MAX`).
    pub device_cap: u8,
    flags: Flags,
    // ---- line 2
    /// [`QueueDisc::pass_through_max_len`] of the discipline, kept here so the pass-through test
    /// does not read the discipline.
    pass_max: Option<u32>,
    /// The discipline; its statistics come first (`Instrumented` is `repr(C)`) and fill the
    /// rest of line 2.
    pub qdisc: Instrumented<AnyQdisc<QPkt>>,
    // ---- touched only while packets wait
    /// The discipline's own random stream (lent to it on every call; drop-tail draws nothing).
    pub qrng: RngStream,
    /// The device's transmit queue below the discipline (ns-3's transmit queue): a tiny ring
    /// held inline, `dev_len` packets from `dev_head`. In one line of its own, the next after
    /// the discipline's state.
    dev_slots: DeviceSlots,
    /// The second-oldest packet on the wire (valid when [`Flags::WIRE_MORE`] is set), so a
    /// burst of two needs no heap buffer: arrival time, sequence number, packet.
    wire2: OnWire,
    pub node: u32,
    /// Packets on the wire behind the second, oldest first (arrival times only grow).
    wire_rest: VecDeque<OnWire>,
}

/// A packet on the wire behind the oldest: when it arrives, its event sequence number, its slab
/// index and its [`NextHop`] (the oldest's is in its scheduled arrival event instead).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct OnWire {
    pub at: Time,
    pub seq: u64,
    pub id: u32,
    pub next: NextHop,
}

/// Device queue slots, aligned to a cache line.
#[derive(Copy, Clone, Debug, Default)]
#[repr(align(64))]
struct DeviceSlots([QPkt; Iface::DEVICE_MAX]);

/// One-bit state of an interface, packed into a byte of its first cache line.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags(u8);

impl Flags {
    /// A transmit-complete event is scheduled for the current transmission.
    pub const TXDONE_SCHEDULED: u8 = 1;
    /// A deferred refill of the device queue is pending (the device takes nothing meanwhile).
    pub const REFILL_PENDING: u8 = 2;
    /// The link may lose packets ([`IfaceInfo::loss`]).
    pub const LOSSY: u8 = 4;
    /// Transmitted packets are written to a pcap file.
    pub const PCAP: u8 = 8;
    /// At least one packet is on the wire (the oldest is in `wire_*`).
    pub const WIRE: u8 = 16;
    /// More than one packet is on the wire (the second is in `wire2_*`).
    pub const WIRE_MORE: u8 = 32;
    /// More than two packets are on the wire (`wire_rest` is not empty).
    pub const WIRE_REST: u8 = 64;
    /// The interface leaves a router with a network-return gateway (`engine::gateway`).
    pub const HOOKED: u8 = 128;

    #[inline]
    pub fn get(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
    #[inline]
    pub fn set(&mut self, bit: u8, on: bool) {
        if on {
            self.0 |= bit;
        } else {
            self.0 &= !bit;
        }
    }
}

impl Iface {
    /// Largest device queue a scenario may ask for.
    pub const DEVICE_MAX: usize = 2;

    /// A new interface: idle, nothing queued, nothing on the wire. `lossy` and `pcap` say
    /// whether the loss stream and the pcap writer must be consulted per packet.
    #[allow(clippy::too_many_arguments)]
    pub fn new(node: u32, peer: u32, rate: Rate, delay: Dur, l2_overhead: u32, device_cap: u32, qdisc: AnyQdisc<QPkt>, qrng: RngStream, lossy: bool, pcap: bool) -> Iface {
        assert!(device_cap as usize <= Iface::DEVICE_MAX, "device queue of {device_cap} packets (checked when the scenario is built)");
        let mut flags = Flags::default();
        flags.set(Flags::LOSSY, lossy);
        flags.set(Flags::PCAP, pcap);
        Iface {
            busy_until: Time::ZERO,
            tx_seq: 0,
            rate,
            delay,
            wire_at: Time::ZERO,
            wire_seq: 0,
            wire_id: 0,
            peer,
            l2_overhead,
            dev_head: 0,
            dev_len: 0,
            device_cap: device_cap as u8,
            flags,
            pass_max: qdisc.pass_through_max_len(),
            qdisc: Instrumented::new(qdisc),
            qrng,
            dev_slots: DeviceSlots::default(),
            wire2: OnWire::default(),
            node,
            wire_rest: VecDeque::new(),
        }
    }

    /// Whether the serializer is free for an event running at (`now`, `seq`): the current
    /// transmission ended before `now`, or ends at `now` and its transmit-complete, which sorts
    /// at `tx_seq`, has already had its turn (ns-3 keeps the device busy until then).
    #[inline]
    pub fn idle_at(&self, now: Time, seq: u64) -> bool {
        self.busy_until < now || (self.busy_until == now && seq >= self.tx_seq)
    }

    #[inline]
    pub fn flag(&self, bit: u8) -> bool {
        self.flags.get(bit)
    }
    #[inline]
    pub fn set_flag(&mut self, bit: u8, on: bool) {
        self.flags.set(bit, on)
    }

    /// Whether a packet of `len` bytes arriving now would go through the queue discipline
    /// without waiting: the discipline is empty and would pass it straight on
    /// ([`QueueDisc::passes_through_when_empty`]). Reads the first two lines only.
    #[inline]
    pub fn qdisc_passes(&self, len: u32) -> bool {
        let pass = self.qdisc.stats.queued_pkts() == 0 && self.pass_max.is_some_and(|m| len <= m);
        debug_assert_eq!(pass, self.qdisc.inner.passes_through_when_empty(len));
        pass
    }

    /// Whether the discipline is known to hold nothing and to do nothing when asked for a
    /// packet while empty (a discipline that can pass packets through keeps no other state:
    /// [`QueueDisc::pass_through_max_len`]), so a dequeue may be skipped.
    #[inline]
    pub fn qdisc_idle(&self) -> bool {
        self.pass_max.is_some() && self.qdisc.stats.queued_pkts() == 0
    }

    // ----- device queue -----

    #[inline]
    pub fn device_len(&self) -> usize {
        self.dev_len as usize
    }
    #[inline]
    pub fn device_is_empty(&self) -> bool {
        self.dev_len == 0
    }
    #[inline]
    pub fn device_push(&mut self, p: QPkt) {
        assert!((self.dev_len as usize) < Self::DEVICE_MAX, "device queue overflow");
        let i = (self.dev_head as usize + self.dev_len as usize) % Self::DEVICE_MAX;
        self.dev_slots.0[i] = p;
        self.dev_len += 1;
    }
    #[inline]
    pub fn device_pop(&mut self) -> Option<QPkt> {
        if self.dev_len == 0 {
            return None;
        }
        let p = self.dev_slots.0[self.dev_head as usize];
        self.dev_head = ((self.dev_head as usize + 1) % Self::DEVICE_MAX) as u8;
        self.dev_len -= 1;
        Some(p)
    }

    // ----- the wire -----

    /// Put a packet on the wire. Returns true if it is the only one (then its arrival must be
    /// scheduled; later ones are scheduled one at a time by [`Iface::wire_pop`]).
    #[inline]
    pub fn wire_push(&mut self, p: OnWire) -> bool {
        if !self.flags.get(Flags::WIRE) {
            (self.wire_at, self.wire_seq, self.wire_id) = (p.at, p.seq, p.id);
            self.flags.set(Flags::WIRE, true);
            true
        } else if !self.flags.get(Flags::WIRE_MORE) {
            self.wire2 = p;
            self.flags.set(Flags::WIRE_MORE, true);
            false
        } else {
            self.wire_rest.push_back(p);
            self.flags.set(Flags::WIRE_REST, true);
            false
        }
    }

    /// Take the oldest packet off the wire. Returns its slab index and the packet that follows,
    /// if any (its arrival is the next to schedule).
    #[inline]
    pub fn wire_pop(&mut self) -> Option<(u32, Option<OnWire>)> {
        if !self.flags.get(Flags::WIRE) {
            return None;
        }
        let id = self.wire_id;
        if !self.flags.get(Flags::WIRE_MORE) {
            self.flags.set(Flags::WIRE, false);
            return Some((id, None));
        }
        let second = self.wire2;
        (self.wire_at, self.wire_seq, self.wire_id) = (second.at, second.seq, second.id);
        if self.flags.get(Flags::WIRE_REST) {
            self.wire2 = self.wire_rest.pop_front().expect("WIRE_REST: a third packet on the wire");
            self.flags.set(Flags::WIRE_REST, !self.wire_rest.is_empty());
        } else {
            self.flags.set(Flags::WIRE_MORE, false);
        }
        Some((id, Some(second)))
    }

    /// One field on each of the two lines a packet queued here reads (see [`crate::prefetch`]):
    /// serializer and wire head, queue statistics.
    #[inline]
    pub fn prefetch_lines(&self, p: &mut impl crate::prefetch::Lines) {
        p.line(&self.busy_until);
        p.line(&self.pass_max);
    }

    /// For the interface an endpoint is about to send a burst on: the lines above, the device
    /// slots (a packet waiting behind the one being serialized) and the second packet on the
    /// wire.
    #[inline]
    pub fn prefetch_send_lines(&self, p: &mut impl crate::prefetch::Lines) {
        self.prefetch_lines(p);
        p.line(&self.dev_slots);
        p.line(&self.wire2);
    }

    /// For an interface whose oldest packet on the wire arrives: the wire head, and the second
    /// packet, which then moves up.
    #[inline]
    pub fn prefetch_arrival_lines(&self, p: &mut impl crate::prefetch::Lines) {
        p.line(&self.wire_at);
        p.line(&self.wire2);
    }
}

/// The cold half of an interface: names, the loss stream, sampling accumulators.
pub struct IfaceInfo {
    pub name: String,
    /// Which packets the link loses (stepped with `rng` per packet when it can lose any).
    pub loss: sluice_core::loss::LossProcess,
    /// Packets the link lost (all time; the summary takes the window's share).
    pub link_losses: u64,
    /// The discipline's kind and resolved parameters (the summary's `kind` and `params`).
    pub qdisc: sluice_core::qdisc::QdiscConfig,
    pub rng: RngStream,
    /// Reported in the summary and sampled.
    pub monitored: bool,
    pub samples: u64,
    pub sum_pkts: f64,
    pub sum_pkts2: f64,
    pub sum_bytes: f64,
}

/// A node: a host or a router.
pub struct Node {
    pub name: String,
    pub addr: u32,
    pub is_host: bool,
    pub ifaces: Vec<u32>,
    /// Next-hop interface per destination node (only for nodes with several interfaces).
    pub routes: Vec<u32>,
}

/// Base of the simulated address space: node `i` has address 10.0.0.0 + i + 1 (as u32).
pub const ADDR_BASE: u32 = 0x0A00_0000;

pub fn node_addr(i: usize) -> u32 {
    ADDR_BASE + i as u32 + 1
}

pub fn addr_node(a: u32) -> usize {
    (a - ADDR_BASE - 1) as usize
}

/// Shortest-hop routes towards every destination, by breadth-first search from the destination.
/// Ties go to the lowest interface index, so routes are deterministic. `u32::MAX` marks
/// "unreachable".
///
/// A host with a single link (a leaf, as every host of a dumbbell) is reached through its one
/// neighbour: from any other node, the shortest paths to the leaf are the shortest paths to that
/// neighbour plus the last hop, so the leaf's routes are the neighbour's, and the search runs
/// once per neighbour instead of once per host (quadratic in the host count otherwise).
/// `ifaces[k]` is interface `k` as (sending node, receiving node).
pub fn compute_routes(nodes: &mut [Node], ifaces: &[(u32, u32)]) {
    let n = nodes.len();
    let multi: Vec<bool> = nodes.iter().map(|nd| nd.ifaces.len() > 1).collect();
    for (i, nd) in nodes.iter_mut().enumerate() {
        nd.routes = if multi[i] { vec![u32::MAX; n] } else { Vec::new() };
    }
    // Only nodes with several interfaces keep a table (the routers): the per-destination loop
    // below visits those alone, so set-up stays linear in hosts.
    let routers: Vec<usize> = (0..n).filter(|&u| multi[u]).collect();
    // The last hop to each node from a neighbour with a table: the lowest-numbered interface
    // from that neighbour to it (one pass over the routers' interfaces).
    let mut last_hop = vec![u32::MAX; n];
    for &u in &routers {
        for &k in &nodes[u].ifaces {
            let peer = ifaces[k as usize].1 as usize;
            last_hop[peer] = last_hop[peer].min(k);
        }
    }
    let mut search = RouteSearch::new(n, ifaces);
    // Next hops towards each node searched so far (searches are shared by the leaves behind it).
    let mut towards: Vec<Option<Vec<u32>>> = vec![None; n];
    for dst in 0..n {
        if !nodes[dst].is_host {
            continue;
        }
        let via = match nodes[dst].ifaces.as_slice() {
            &[only] => ifaces[only as usize].1 as usize,
            _ => dst,
        };
        let hops = towards[via].get_or_insert_with(|| search.next_hops(via, &multi));
        for &u in &routers {
            if u != via {
                nodes[u].routes[dst] = hops[u];
            }
        }
        if via != dst && multi[via] {
            // The last hop: the lowest-numbered interface from the neighbour to the leaf (a
            // leaf has one interface, so one neighbour: `via`).
            nodes[via].routes[dst] = last_hop[dst];
        }
    }
}

/// Breadth-first search over the reversed links, reusing its buffers between destinations.
struct RouteSearch<'a> {
    ifaces: &'a [(u32, u32)],
    /// Incoming interfaces per node (interfaces whose peer is the node).
    incoming: Vec<Vec<u32>>,
    dist: Vec<u32>,
    queue: VecDeque<usize>,
}

impl<'a> RouteSearch<'a> {
    fn new(n: usize, ifaces: &'a [(u32, u32)]) -> Self {
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (k, &(_, to)) in ifaces.iter().enumerate() {
            incoming[to as usize].push(k as u32);
        }
        RouteSearch { ifaces, incoming, dist: vec![u32::MAX; n], queue: VecDeque::new() }
    }

    /// For every node with several interfaces, the lowest-numbered interface that starts a
    /// shortest path to `dst` (`u32::MAX`: none, or `dst` itself).
    fn next_hops(&mut self, dst: usize, multi: &[bool]) -> Vec<u32> {
        let mut hops = vec![u32::MAX; multi.len()];
        self.dist.iter_mut().for_each(|d| *d = u32::MAX);
        self.dist[dst] = 0;
        self.queue.clear();
        self.queue.push_back(dst);
        while let Some(v) = self.queue.pop_front() {
            for &k in &self.incoming[v] {
                let u = self.ifaces[k as usize].0 as usize;
                if self.dist[u] == u32::MAX {
                    self.dist[u] = self.dist[v] + 1;
                    self.queue.push_back(u);
                }
                if self.dist[u] == self.dist[v] + 1 && multi[u] && k < hops[u] {
                    hops[u] = k;
                }
            }
        }
        hops
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_core::rng::RngStream;

    /// The plain search, one breadth-first search per host: the reference for `compute_routes`.
    fn routes_by_full_search(nodes: &[Node], ifaces: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let n = nodes.len();
        let multi: Vec<bool> = nodes.iter().map(|nd| nd.ifaces.len() > 1).collect();
        let mut search = RouteSearch::new(n, ifaces);
        let mut routes: Vec<Vec<u32>> = multi.iter().map(|&m| if m { vec![u32::MAX; n] } else { Vec::new() }).collect();
        for dst in (0..n).filter(|&d| nodes[d].is_host) {
            let hops = search.next_hops(dst, &multi);
            for u in (0..n).filter(|&u| multi[u]) {
                routes[u][dst] = hops[u];
            }
        }
        routes
    }

    // The next-hop hint's packing: an endpoint with or without data, an interface, or nothing;
    // an interface index too large to pack is nothing.
    #[test]
    fn next_hop_packs_endpoint_interface_or_nothing() {
        for (ep, data) in [(0usize, false), (0, true), (5, true), (1_000_000, false)] {
            let h = NextHop::endpoint(ep, data);
            assert_eq!((h.as_endpoint(), h.as_iface()), (Some((ep, data)), None), "{ep} {data}");
        }
        for k in [0u32, 1, 77, (1 << 31) - 1] {
            let h = NextHop::iface(k);
            assert_eq!((h.as_endpoint(), h.as_iface()), (None, Some(k as usize)), "{k}");
        }
        assert_eq!(NextHop::iface(1 << 31), NextHop::NONE);
        assert_eq!((NextHop::NONE.as_endpoint(), NextHop::NONE.as_iface()), (None, None));
        assert_ne!(NextHop::endpoint(3, false), NextHop::endpoint(3, true));
    }

    fn tcp_packet(src: u32, dst: u32, sport: u16, dport: u16, flow: u32) -> SimPacket {
        use crate::packet::{TcpOptions, Transport};
        let transport = Transport::Tcp { seq: 1, ack: 1, flags: 0x10, window: 100, opts: TcpOptions::default(), bits: Default::default() };
        SimPacket { src, dst, sport, dport, tos: crate::packet::Tos::new(0, Ecn::Ect0), ttl: 64, ip_id: 0, transport, payload: 1000, flow, opt33: 0 }
    }

    // What the disciplines read of a queued packet: its length, the enqueue stamp, its ECN field
    // (and a CE mark set on it), its flow (flow · 2, + 1 from the server) and its 5-tuple hash.
    // The hash (Sluice's own, under the default profile FQ-CoDel's bucket) of 10.0.0.1:49152 →
    // 10.0.0.2:5001: ((src << 32 | dst) ^ (sport << 16 | dport)) · 0x9e3779b97f4a7c15, high 32
    // bits = 0xb5e31e28; each field of the tuple changes it. Port 5003 (a bit that the
    // destination address also has, so XOR and OR part): 0x79742ab5.
    #[test]
    fn queued_packet_fields_and_hash() {
        let (a, b) = (0x0A00_0001, 0x0A00_0002);
        let p = tcp_packet(a, b, 49152, SERVER_PORT, 3);
        let mut q = QPkt::of(9, &p);
        assert_eq!((q.id, q.len_bytes(), q.flow_key(), q.flow_hash()), (9, p.ip_len(), 6, 0xb5e3_1e28));
        assert_eq!(QPkt::of(9, &tcp_packet(b, a, SERVER_PORT, 49152, 3)).flow_key(), 7, "from the server");
        // Any server port (below the clients' 49152) is the server's; a UDP packet is its
        // flow's one direction whatever its port.
        assert_eq!(QPkt::of(9, &tcp_packet(b, a, 80, 49152, 3)).flow_key(), 7, "from a server on port 80");
        assert_eq!(QPkt::of(9, &tcp_packet(a, b, 49152, 80, 3)).flow_key(), 6, "to a server on port 80");
        let udp = SimPacket { transport: crate::packet::Transport::Udp, sport: 40_003, dport: UDP_PORT, ..tcp_packet(a, b, 0, 0, 3) };
        assert_eq!(QPkt::of(9, &udp).flow_key(), 6, "UDP");
        assert_eq!(QPkt::of(9, &tcp_packet(a, b, 49152, 5003, 3)).flow_hash(), 0x7974_2ab5);
        for other in [tcp_packet(a + 2, b, 49152, SERVER_PORT, 3), tcp_packet(a, b + 2, 49152, SERVER_PORT, 3), tcp_packet(a, b, 49153, SERVER_PORT, 3), tcp_packet(a, b, 49152, 5002, 3)] {
            assert_ne!(QPkt::of(9, &other).flow_hash(), q.flow_hash(), "{other:?}");
        }
        assert_eq!(q.enqueued_at(), Time::ZERO);
        q.stamp(Time(1234));
        assert_eq!(q.enqueued_at(), Time(1234));
        assert_eq!(q.ecn(), Ecn::Ect0);
        q.set_ce();
        assert_eq!(q.ecn(), Ecn::Ce);
    }

    // The pass-through test the engine's fast path asks: an empty drop-tail queue lets a packet
    // that fits through (and is idle); one packet queued, neither; a discipline that keeps state
    // (RED) never passes packets through.
    #[test]
    fn pass_through_only_for_an_empty_stateless_queue() {
        use sluice_core::qdisc::{DropTail, QdiscCx, RedConfig};
        use sluice_core::units::QueueLimit;
        let q = AnyQdisc::DropTail(DropTail::new(QueueLimit::Packets(2)));
        let mut f = Iface::new(0, 1, Rate::mbps(10), Dur::ZERO, 2, 1, q, RngStream::from_seed(1), false, false);
        assert!(f.qdisc_passes(1500) && f.qdisc_idle());
        let mut drops = Vec::new();
        let mut cx = QdiscCx { rng: &mut f.qrng, dequeue_drops: &mut drops };
        let _ = f.qdisc.enqueue(QPkt { len: 1500, ..QPkt::default() }, Time::ZERO, &mut cx);
        assert!(!f.qdisc_passes(1500) && !f.qdisc_idle());
        let red = AnyQdisc::new(&sluice_core::qdisc::QdiscConfig::Red(RedConfig::default()), &mut RngStream::from_seed(2));
        let g = Iface::new(0, 1, Rate::mbps(10), Dur::ZERO, 2, 1, red, RngStream::from_seed(1), false, false);
        assert!(!g.qdisc_passes(100) && !g.qdisc_idle());
    }

    // The pass-through path reads and writes the first two cache lines only (see `Iface`).
    #[test]
    fn iface_hot_state_fills_two_lines() {
        use sluice_core::qdisc::QdiscStats;
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<Iface>(), 64);
        assert!(offset_of!(Iface, flags) < 64 && offset_of!(Iface, device_cap) < 64, "line 1: serializer, wire head, device, flags");
        assert!(offset_of!(Iface, pass_max) >= 64);
        assert!(offset_of!(Iface, qdisc) + size_of::<QdiscStats>() <= 128, "line 2: queue statistics");
    }

    // The serializer's tie-break at the instant a transmission ends: an event that sorts before
    // the transmission's transmit-complete (sequence number below `tx_seq`) still finds it
    // busy; the transmit-complete itself and every event after it find it free.
    #[test]
    fn serializer_is_free_from_its_transmit_complete_on() {
        use sluice_core::qdisc::DropTail;
        use sluice_core::units::QueueLimit;
        let q = AnyQdisc::DropTail(DropTail::new(QueueLimit::Packets(10)));
        let mut f = Iface::new(0, 1, Rate::mbps(10), Dur::ZERO, 2, 1, q, RngStream::from_seed(1), false, false);
        assert!(f.idle_at(Time::ZERO, 0), "a new interface is idle");
        (f.busy_until, f.tx_seq) = (Time(801_600), 7);
        assert!(!f.idle_at(Time(801_599), 100), "before the end: busy whatever the order");
        assert!(!f.idle_at(Time(801_600), 6), "at the end, sorting before the transmit-complete: busy");
        assert!(f.idle_at(Time(801_600), 7), "the transmit-complete itself");
        assert!(f.idle_at(Time(801_600), 8), "at the end, after the transmit-complete");
        assert!(f.idle_at(Time(801_601), 0), "after the end: idle whatever the order");
    }

    // The wire is a FIFO whatever mix of inline slots and overflow buffer holds it.
    #[test]
    fn wire_keeps_fifo_order() {
        use sluice_core::qdisc::DropTail;
        use sluice_core::units::QueueLimit;
        let q = AnyQdisc::DropTail(DropTail::new(QueueLimit::Packets(10)));
        let mut f = Iface::new(0, 1, Rate::mbps(10), Dur::ZERO, 0, 1, q, RngStream::from_seed(1), false, false);
        let mut r = RngStream::from_seed(7);
        let on_wire = |k: u32| OnWire { at: Time(k as u64), seq: k as u64, id: k, next: NextHop::iface(k) };
        let (mut pushed, mut popped) = (0u32, 0u32);
        for _ in 0..2000 {
            if r.chance(0.5) {
                let first = f.wire_push(on_wire(pushed));
                assert_eq!(first, pushed == popped, "only the packet onto an empty wire is scheduled");
                pushed += 1;
            } else if let Some((id, next)) = f.wire_pop() {
                assert_eq!(id, popped);
                popped += 1;
                assert_eq!(next, (pushed > popped).then(|| on_wire(popped)));
            } else {
                assert_eq!(pushed, popped);
            }
        }
    }

    fn node(i: usize, is_host: bool) -> Node {
        Node { name: format!("n{i}"), addr: node_addr(i), is_host, ifaces: Vec::new(), routes: Vec::new() }
    }

    // The leaf shortcut gives exactly the routes of one search per host, ties included, on
    // random graphs with leaves, parallel links, multi-homed hosts and unreachable parts.
    #[test]
    fn leaf_routes_match_one_search_per_host() {
        for seed in 0..200 {
            let mut r = RngStream::from_seed(seed);
            let n = 2 + r.below(12) as usize;
            let mut nodes: Vec<Node> = (0..n).map(|i| node(i, r.chance(0.6))).collect();
            let mut ifaces = Vec::new();
            for _ in 0..r.below(3 * n as u64) {
                let (a, b) = (r.below(n as u64) as u32, r.below(n as u64) as u32);
                if a == b {
                    continue;
                }
                for (from, to) in [(a, b), (b, a)] {
                    nodes[from as usize].ifaces.push(ifaces.len() as u32);
                    ifaces.push((from, to));
                }
            }
            let expect = routes_by_full_search(&nodes, &ifaces);
            compute_routes(&mut nodes, &ifaces);
            for (u, nd) in nodes.iter().enumerate() {
                assert_eq!(nd.routes, expect[u], "seed {seed}, node {u}");
            }
        }
    }
}
