//! NGWA's router: New General Window Advertising (Talau & Wille), the part that runs on every
//! NGWA router of a path. The endpoint part (the receiver keeping, smoothing and advertising the
//! value) lives with the TCP endpoints.
//!
//! At dequeue, for every TCP segment leaving an egress queue (either direction), the router
//! computes how many bytes that queue can still absorb and writes it into IPv4 option 33:
//!
//! ```text
//! Br     = free bytes of the queue the segment leaves, read after it left
//! W_node = Br                      (no flow division)
//! W_node = floor(0.98 · Br / n_f)  (flow division; n_f = TCP connections through that queue)
//! no option 33: insert one carrying W_node;  option carrying W_pkt > W_node: overwrite with W_node
//! ```
//!
//! so a packet reaches its receiver with the smallest value of the path. The 0.98 leaves room
//! for ACKs (NGWA eqn. 3). Non-TCP packets are never touched ("If the packet isn't TCP, nothing
//! will be done", NGWA §4.1).
//!
//! `Br` of a packet-limited queue (NGWA's Linux runs used packet limits, yet the router
//! computes "the amount of available bytes"): `br = "pkts"` (default) counts
//! `(limit − queued packets) · mtu`; `br = "bytes"` counts `limit · mtu − queued bytes`. A
//! byte-limited queue always counts `limit − queued bytes`.
//!
//! `n_f` (`flow_count = "syn_fin"`, NGWA §4.1): per queue, a SYN or SYN-ACK of a connection not
//! recorded adds it, a FIN or RST (one suffices) removes it; connections are identified by
//! addresses and ports. Counted from the segments leaving that queue, before `W_node` is
//! computed; the divisor is at least 1.
//!
//! Every TCP segment is stamped, pure ACKs on the reverse path included (NGWA §4.1: only non-TCP
//! packets are left alone; a pure ACK grows from 40 to 48 B and its data sender stores the value
//! harmlessly). See docs/algorithms/network-return.md, "NGWA", for the insertion rules (option
//! layout and refusals are [`crate::packet::signal::stamp_opt33`]'s).
//!
//! [`Ngwa`] holds no packet and no clock: a datapath (the simulator's gateway router, a Linux
//! qdisc hook) calls [`Ngwa::on_departure`] with the segment, the queue's index and its reading.
//!
//! **Gateway-only variant** (`stamp_ack = true`, Sluice's own, not the paper's mechanism): for
//! receivers that cannot be changed, one router writes `W_node` straight into the window of the
//! ACKs it forwards, `min(W_r, W_node)`, and inserts no option. [`NgwaAck`] is that router: a
//! [`WindowController`] on the network-return seam (flow table, monitored queue, the one window
//! writer [`crate::packet::lower_window`]). `W_node` is computed as above for the monitored
//! queue, which is the *data-direction* egress (the queue the ACK's connection's data leaves
//! through, not the queue the ACK itself crosses); `n_f` counts the SYN / SYN-ACK / FIN / RST of
//! tracked flows leaving through that queue. An ACK is rewritten only when the other side of
//! its connection sends through the monitored queue; the ACKs leaving through it are those of
//! data that does not cross it, and are left alone. `stamp_floor = "none"` (default, as eqn. 3:
//! a full queue advertises a zero window and the sender persist-probes) or `"mss"` (at least one
//! MSS).

use super::{flow_mss, GatewayView, Proposal, QueueReading, WindowController};
use crate::flows::{FlowEntry, FlowEvent, FlowMap, OngoingRtt, Side};
use crate::packet::signal::{stamp_opt33, HeaderSkip, Opt33Write, OptLen, SignalField};
use crate::packet::{tcp_flags, Desired, Floor, HeaderView};
use crate::qdisc::ParamError;
use crate::units::QueueLimit;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// How a packet-limited queue's free bytes are counted (module doc).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NgwaBr {
    /// `(limit − queued packets) · mtu`.
    #[default]
    Pkts,
    /// `limit · mtu − queued bytes`.
    Bytes,
}

/// How `n_f` is counted. Only NGWA's own rule exists (module doc).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NgwaFlowCount {
    /// SYN / SYN-ACK add, FIN / RST remove, per queue.
    #[default]
    SynFin,
}

/// The lower bound of a window written by the gateway-only variant (`stamp_floor`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NgwaStampFloor {
    /// None, as NGWA's eqn. 3: a full data queue writes a zero window.
    #[default]
    None,
    /// One MSS (the flow's, from its handshake; else `mtu − 40`).
    Mss,
}

impl NgwaStampFloor {
    fn is_none(&self) -> bool {
        *self == NgwaStampFloor::None
    }
}

/// `{ kind = "ngwa", flow_division = false, br = "pkts", flow_count = "syn_fin", opt_len = 8,
/// stamp_ack = false, stamp_floor = "none", mtu = 1500 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NgwaConfig {
    /// `W_node = 0.98·Br/n_f` (NGWA's "flow division", modes 5–8) instead of `Br`.
    pub flow_division: bool,
    pub br: NgwaBr,
    pub flow_count: NgwaFlowCount,
    /// Bytes of option 33 inserted: 8 (32-bit value) or 4 (16-bit, saturating at 65,535).
    pub opt_len: u32,
    /// The gateway-only variant: the router writes `min(W_r, W_node)` into the window of ACKs
    /// (for receivers that cannot be changed; [`NgwaAck`]) and inserts no option.
    pub stamp_ack: bool,
    /// With `stamp_ack`: the floor of the written window. Left out of the serialized config
    /// when `"none"`, so models without it keep their hash.
    #[serde(skip_serializing_if = "NgwaStampFloor::is_none")]
    pub stamp_floor: NgwaStampFloor,
    /// Bytes per packet of a packet-limited queue, and the largest IP packet a stamp may
    /// make (a router never fragments for the option).
    pub mtu: u32,
}

impl Default for NgwaConfig {
    /// NGWA's basic router (Talau & Wille, Table 1 mode 1: no flow division); `br = "pkts"` and
    /// `opt_len = 8` are Sluice's reconstructions, `stamp_ack = false` is the paper's mechanism
    /// (docs/algorithms/network-return.md, "NGWA"); MTU 1500 (Ethernet).
    fn default() -> Self {
        NgwaConfig { flow_division: false, br: NgwaBr::Pkts, flow_count: NgwaFlowCount::SynFin, opt_len: 8, stamp_ack: false, stamp_floor: NgwaStampFloor::None, mtu: 1500 }
    }
}

impl NgwaConfig {
    /// Checks the fields; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        if OptLen::from_bytes(self.opt_len as u64).is_none() {
            return Err(ParamError::new("opt_len", format!("expected 4 or 8, got {}", self.opt_len)));
        }
        if !self.stamp_ack && !self.stamp_floor.is_none() {
            return Err(ParamError::new("stamp_floor", "applies only with stamp_ack = true (the window the router writes into ACKs)"));
        }
        if self.mtu < 68 {
            return Err(ParamError::new("mtu", format!("must be at least 68 (the IPv4 minimum), got {}", self.mtu)));
        }
        Ok(())
    }
    /// The option size (validated).
    pub fn opt(&self) -> OptLen {
        OptLen::from_bytes(self.opt_len as u64).unwrap_or(OptLen::Eight)
    }
}

/// `Br`: the free bytes of a queue read after the packet left it (module doc).
pub fn free_bytes(br: NgwaBr, q: QueueReading, mtu: u32) -> u64 {
    match (q.limit, br) {
        (QueueLimit::Packets(l), NgwaBr::Pkts) => l.saturating_sub(q.packets) as u64 * mtu as u64,
        (QueueLimit::Packets(l), NgwaBr::Bytes) => (l as u64 * mtu as u64).saturating_sub(q.bytes),
        (QueueLimit::Bytes(b), _) => b.saturating_sub(q.bytes),
    }
}

/// `W_node` from `Br`: as is, or `floor(0.98·Br/n_f)` with `n_f` at least 1 (exact in
/// integers: `98·Br / (100·n_f)`).
pub fn w_node(br: u64, flow_division: Option<u32>) -> u64 {
    match flow_division {
        None => br,
        Some(n) => (br as u128 * 98 / (100 * n.max(1) as u128)) as u64,
    }
}

/// A connection by its two ends, either direction.
type ConnKey = (u32, u16, u32, u16);

fn conn_key(seg: &impl HeaderView) -> Option<ConnKey> {
    let (a, b) = ((seg.src_addr(), seg.src_port()?), (seg.dst_addr(), seg.dst_port()?));
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    Some((lo.0, lo.1, hi.0, hi.1))
}

/// One egress queue's connection count (`flow_count = "syn_fin"`).
#[derive(Clone, Debug, Default)]
pub struct NgwaQueue {
    conns: HashSet<ConnKey>,
}

impl NgwaQueue {
    /// `n_f`: connections recorded.
    pub fn flows(&self) -> u32 {
        self.conns.len() as u32
    }
    /// A TCP segment leaving the queue: SYN (with or without ACK) adds, FIN or RST removes.
    pub fn observe(&mut self, seg: &impl HeaderView) {
        let Some(f) = seg.tcp_flags() else { return };
        if f & (tcp_flags::FIN | tcp_flags::RST) != 0 {
            if let Some(k) = conn_key(seg) {
                self.conns.remove(&k);
            }
        } else if f & tcp_flags::SYN != 0 {
            if let Some(k) = conn_key(seg) {
                self.conns.insert(k);
            }
        }
    }
}

/// What NGWA did to one packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NgwaStamp {
    /// Not a TCP segment: untouched.
    NotTcp,
    /// Option 33 inserted carrying `value`; the packet grew by `len` bytes.
    Inserted { value: u32, len: OptLen },
    /// The option carried `from`, more than `W_node`: now `to`.
    Lowered { from: u32, to: u32 },
    /// The option already carried `W_node` or less: left.
    Kept { carried: u32 },
    /// Not written ([`HeaderSkip`]: no option space, MTU, a foreign option 33, no headroom).
    Skipped(HeaderSkip),
}

impl NgwaStamp {
    /// Bytes the packet grew by.
    pub fn growth(self) -> u32 {
        match self {
            NgwaStamp::Inserted { len, .. } => len.bytes(),
            _ => 0,
        }
    }
}

/// Counters over a router's stamps.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct NgwaStats {
    /// TCP segments considered (pure ACKs included).
    pub segments: u64,
    pub inserted: u64,
    pub lowered: u64,
    pub kept: u64,
    /// Refused by the writer (option space, MTU, foreign option, headroom).
    pub skipped: u64,
}

/// NGWA on one router: one [`NgwaQueue`] per egress queue, indexed by the datapath.
#[derive(Clone, Debug)]
pub struct Ngwa {
    cfg: NgwaConfig,
    opt: OptLen,
    queues: Vec<NgwaQueue>,
    pub stats: NgwaStats,
}

impl Ngwa {
    /// `queues` egress queues; `cfg` validated.
    pub fn new(cfg: NgwaConfig, queues: usize) -> Ngwa {
        Ngwa { opt: cfg.opt(), cfg, queues: vec![NgwaQueue::default(); queues], stats: NgwaStats::default() }
    }

    pub fn config(&self) -> &NgwaConfig {
        &self.cfg
    }

    /// Queue `queue`'s count.
    pub fn queue(&self, queue: usize) -> &NgwaQueue {
        &self.queues[queue]
    }

    /// `W_node` for queue `queue` in state `q`.
    pub fn w_node(&self, queue: usize, q: QueueReading) -> u64 {
        let br = free_bytes(self.cfg.br, q, self.cfg.mtu);
        w_node(br, self.cfg.flow_division.then(|| self.queues[queue].flows()))
    }

    /// `seg` leaves egress queue `queue`, whose state after it left is `q`: count it, then
    /// stamp it (module doc). A datapath that sizes packets itself adds
    /// [`NgwaStamp::growth`] to its length.
    pub fn on_departure(&mut self, queue: usize, seg: &mut impl SignalField, q: QueueReading) -> NgwaStamp {
        if seg.tcp_flags().is_none() || !seg.is_tcp() {
            return NgwaStamp::NotTcp;
        }
        self.stats.segments += 1;
        self.queues[queue].observe(seg);
        let w = self.w_node(queue, q);
        if let Some(cur) = seg.ip_option33() {
            if cur.len.carry(w) >= cur.value {
                self.stats.kept += 1;
                return NgwaStamp::Kept { carried: cur.value };
            }
        }
        match stamp_opt33(seg, w, self.opt, self.cfg.mtu) {
            Ok(Opt33Write::Inserted { value, len }) => {
                self.stats.inserted += 1;
                NgwaStamp::Inserted { value, len }
            }
            Ok(Opt33Write::Replaced { from, to }) => {
                self.stats.lowered += 1;
                NgwaStamp::Lowered { from, to }
            }
            Ok(Opt33Write::Unchanged) => {
                self.stats.kept += 1;
                NgwaStamp::Kept { carried: self.opt.carry(w) }
            }
            Err(e) => {
                self.stats.skipped += 1;
                NgwaStamp::Skipped(e)
            }
        }
    }
}

/// NGWA's gateway-only variant (`stamp_ack = true`, module doc): one router writes `W_node`
/// of the data-direction queue (the monitored one) into the window of the ACKs going the other
/// way, through [`crate::packet::lower_window`] (never raising, checksum updated, SYN and RST
/// skipped). Its state is bounded by the flow table: connections are counted and remembered
/// only while the table tracks them.
#[derive(Clone, Debug)]
pub struct NgwaAck {
    cfg: NgwaConfig,
    /// `n_f` of the monitored queue.
    queue: NgwaQueue,
    /// Per tracked flow: its connection and the side whose segments leave through the
    /// monitored queue (the data sender whose ACKs get `W_node`).
    data: FlowMap<(ConnKey, Side)>,
}

impl NgwaAck {
    /// `cfg` validated, with `stamp_ack = true`.
    pub fn new(cfg: NgwaConfig) -> NgwaAck {
        NgwaAck { cfg, queue: NgwaQueue::default(), data: FlowMap::default() }
    }

    pub fn config(&self) -> &NgwaConfig {
        &self.cfg
    }

    /// The monitored queue's connection count.
    pub fn queue(&self) -> &NgwaQueue {
        &self.queue
    }

    /// `W_node` of the monitored queue in state `q`.
    pub fn w_node(&self, q: QueueReading) -> u64 {
        w_node(free_bytes(self.cfg.br, q, self.cfg.mtu), self.cfg.flow_division.then(|| self.queue.flows()))
    }
}

impl WindowController for NgwaAck {
    fn name(&self) -> &'static str {
        "ngwa"
    }
    fn ongoing_rtt(&self) -> OngoingRtt {
        OngoingRtt::Off
    }
    fn reads_monitored_egress(&self) -> bool {
        true
    }
    fn on_monitored_egress(&mut self, seg: &impl HeaderView, flow: Option<&FlowEntry>) {
        let Some(f) = flow else { return };
        self.queue.observe(seg);
        if let (Some(side), Some(k)) = (seg.src_port().and_then(|p| f.side_of(seg.src_addr(), p)), conn_key(seg)) {
            if self.data.get(f.id) != Some(&(k, side)) {
                self.data.insert(f.id, (k, side));
            }
        }
    }
    fn on_flow_event(&mut self, ev: &FlowEvent, _gw: &GatewayView<'_>) {
        if let FlowEvent::Removed { id, .. } = ev {
            if let Some((k, _)) = self.data.remove(*id) {
                self.queue.conns.remove(&k);
            }
        }
    }
    fn desired_window(&mut self, ack: &impl HeaderView, flow: &FlowEntry, gw: &GatewayView<'_>) -> Option<Proposal> {
        let side = ack.src_port().and_then(|p| flow.side_of(ack.src_addr(), p))?;
        let &(_, data_side) = self.data.get(flow.id)?;
        if side == data_side {
            // This ACK leaves through the monitored queue: its own data does not.
            return None;
        }
        let floor = match self.cfg.stamp_floor {
            NgwaStampFloor::None => Floor::None,
            NgwaStampFloor::Mss => Floor::Mss(flow_mss(flow, self.cfg.mtu.saturating_sub(40))),
        };
        Some(Proposal { desired: Desired::Bytes(self.w_node(gw.queue)), floor })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::testutil::{Seg, CLIENT, SERVER};
    use crate::packet::signal::Opt33;
    use crate::packet::RawPacket;

    fn reading(packets: u32, bytes: u64, limit: QueueLimit) -> QueueReading {
        QueueReading { bytes, packets, limit }
    }

    /// A data segment from the server with `payload` bytes, as bytes with 8 B of headroom.
    fn data(payload: u32) -> Vec<u8> {
        let mut b = Seg { payload, ..Seg::tcp(SERVER, CLIENT, tcp_flags::ACK) }.bytes();
        b.resize(b.len() + 8, 0);
        b
    }

    fn fd() -> NgwaConfig {
        NgwaConfig { flow_division: true, ..NgwaConfig::default() }
    }

    /// Register `n` connections on queue 0 with SYNs from distinct client ports.
    fn syns(ng: &mut Ngwa, n: u16) {
        for k in 0..n {
            ng.queues[0].observe(&Seg::tcp((CLIENT.0, CLIENT.1 + k), SERVER, tcp_flags::SYN));
        }
    }

    // NGWA's worked example: free 50,000 B, n_f = 4 => 0.98·50,000/4 = 49,000/4 = 12,250.
    // Packet-limited: limit 100, 40 queued, MTU 1500 => Br = (100 − 40)·1500 = 90,000;
    // n_f = 2 => 0.98·90,000/2 = 88,200/2 = 44,100. `br = "bytes"` with 40 packets of 1000 B:
    // 150,000 − 40,000 = 110,000.
    #[test]
    fn w_node_from_the_worked_examples() {
        assert_eq!(w_node(50_000, Some(4)), 12_250);
        assert_eq!(w_node(50_000, None), 50_000);
        assert_eq!(w_node(50_000, Some(0)), 49_000, "n_f is at least 1");
        let q = reading(40, 40_000, QueueLimit::Packets(100));
        assert_eq!(free_bytes(NgwaBr::Pkts, q, 1500), 90_000);
        assert_eq!(w_node(free_bytes(NgwaBr::Pkts, q, 1500), Some(2)), 44_100);
        assert_eq!(free_bytes(NgwaBr::Bytes, q, 1500), 110_000);
        assert_eq!(free_bytes(NgwaBr::Pkts, reading(3, 4_000, QueueLimit::Bytes(54_000)), 1500), 50_000);
        // Over the limit (a queue that admits one more packet over its bytes): 0, not negative.
        assert_eq!(free_bytes(NgwaBr::Bytes, reading(1, 60_000, QueueLimit::Bytes(54_000)), 1500), 0);
    }

    // A byte queue with 50,000 B free and 4 connections: a packet without the option gets
    // 12,250 inserted (+8 B); one stamped 9,000 upstream keeps 9,000; one stamped 20,000
    // becomes 12,250; both keep their size (1000 B payload + 40 B headers + 8 B option).
    #[test]
    fn insert_or_lower_only() {
        let mut ng = Ngwa::new(fd(), 1);
        syns(&mut ng, 4);
        assert_eq!(ng.queue(0).flows(), 4);
        let q = reading(4, 4_000, QueueLimit::Bytes(54_000));
        let mut b = data(1000);
        let mut p = RawPacket::new_checked(&mut b).unwrap();
        assert_eq!(ng.on_departure(0, &mut p, q), NgwaStamp::Inserted { value: 12_250, len: OptLen::Eight });
        assert_eq!((p.ip_len(), p.ip_option33()), (1048, Some(Opt33 { value: 12_250, len: OptLen::Eight })));
        assert!(p.ip_checksum_ok());
        for (upstream, want) in [(9_000u32, NgwaStamp::Kept { carried: 9_000 }), (20_000, NgwaStamp::Lowered { from: 20_000, to: 12_250 })] {
            // A plain router upstream with `upstream` bytes free stamps it as is.
            let mut up = Ngwa::new(NgwaConfig::default(), 1);
            let mut b = data(1000);
            let mut p = RawPacket::new_checked(&mut b).unwrap();
            assert_eq!(up.on_departure(0, &mut p, reading(0, 0, QueueLimit::Bytes(upstream as u64))), NgwaStamp::Inserted { value: upstream, len: OptLen::Eight });
            assert_eq!(ng.on_departure(0, &mut p, q), want);
            assert_eq!(p.ip_len(), 1048, "an overwrite keeps the size");
            assert_eq!(p.ip_option33().unwrap().value, upstream.min(12_250));
            assert!(p.ip_checksum_ok());
        }
        assert_eq!((ng.stats.inserted, ng.stats.lowered, ng.stats.kept), (1, 1, 1));
    }

    // opt_len = 4 inserts `21 04 vv vv` (+4 B), saturating: 100,000 free => FF FF.
    #[test]
    fn four_byte_option_saturates() {
        let mut ng = Ngwa::new(NgwaConfig { opt_len: 4, ..NgwaConfig::default() }, 1);
        let mut b = data(100);
        let mut p = RawPacket::new_checked(&mut b).unwrap();
        assert_eq!(ng.on_departure(0, &mut p, reading(0, 0, QueueLimit::Bytes(100_000))), NgwaStamp::Inserted { value: 65_535, len: OptLen::Four });
        assert_eq!(p.ip_len(), 144);
        assert_eq!(&p.bytes()[20..24], &[0x21, 0x04, 0xFF, 0xFF]);
        // A second router with more room keeps it (65,535 carried, 100,000 saturates to it).
        assert_eq!(ng.on_departure(0, &mut p, reading(0, 0, QueueLimit::Bytes(200_000))), NgwaStamp::Kept { carried: 65_535 });
    }

    // Every TCP segment is stamped (NGWA §4.1): a pure ACK grows from 40 to 48 B, a SYN (no
    // payload) is stamped; a UDP datagram never. An empty 100-packet queue: 150,000 B free.
    #[test]
    fn every_tcp_segment_is_stamped_and_nothing_else() {
        let q = reading(0, 0, QueueLimit::Packets(100));
        {
            let mut ng = Ngwa::new(NgwaConfig::default(), 1);
            let mut b = Seg::ack_from_client(1000).bytes();
            b.resize(b.len() + 8, 0);
            let mut p = RawPacket::new_checked(&mut b).unwrap();
            assert_eq!(ng.on_departure(0, &mut p, q), NgwaStamp::Inserted { value: 150_000, len: OptLen::Eight });
            assert_eq!(p.ip_len(), 48);
        }
        let mut ng = Ngwa::new(NgwaConfig::default(), 1);
        let mut b = Seg::tcp(CLIENT, SERVER, tcp_flags::SYN).bytes();
        b.resize(b.len() + 8, 0);
        let mut p = RawPacket::new_checked(&mut b).unwrap();
        assert_eq!(ng.on_departure(0, &mut p, q), NgwaStamp::Inserted { value: 150_000, len: OptLen::Eight });
        let mut b = Seg { proto: crate::packet::proto::UDP, payload: 100, ..Seg::tcp(CLIENT, SERVER, 0) }.bytes();
        b.resize(b.len() + 8, 0);
        let before = b.clone();
        let mut p = RawPacket::new_checked(&mut b).unwrap();
        assert_eq!(ng.on_departure(0, &mut p, q), NgwaStamp::NotTcp);
        assert_eq!(b, before);
        assert_eq!(ng.stats.segments, 1, "the UDP datagram is not a segment");
    }

    // A full-sized segment (1500 B) does not fit the MTU with the option: skipped, unchanged.
    #[test]
    fn no_stamp_past_the_mtu() {
        let mut ng = Ngwa::new(NgwaConfig::default(), 1);
        let mut b = data(1460);
        let mut p = RawPacket::new_checked(&mut b).unwrap();
        assert_eq!(ng.on_departure(0, &mut p, reading(0, 0, QueueLimit::Packets(100))), NgwaStamp::Skipped(HeaderSkip::Mtu));
        assert_eq!(p.ip_len(), 1500);
        assert_eq!(ng.stats.skipped, 1);
    }

    // flow_count = "syn_fin" per queue: SYN and SYN-ACK of the same connection count once; a
    // second connection makes 2; one FIN (either side) removes its connection; RST removes;
    // another queue counts only what left through it.
    #[test]
    fn flows_counted_from_syn_and_fin_per_queue() {
        let mut ng = Ngwa::new(fd(), 2);
        let other = (CLIENT.0, CLIENT.1 + 1);
        let go = |ng: &mut Ngwa, queue: usize, s: Seg| {
            let mut b = s.bytes();
            b.resize(b.len() + 8, 0);
            let mut p = RawPacket::new_checked(&mut b).unwrap();
            ng.on_departure(queue, &mut p, reading(0, 0, QueueLimit::Bytes(100_000)))
        };
        go(&mut ng, 0, Seg::tcp(CLIENT, SERVER, tcp_flags::SYN));
        go(&mut ng, 0, Seg::tcp(SERVER, CLIENT, tcp_flags::SYN | tcp_flags::ACK));
        assert_eq!(ng.queue(0).flows(), 1);
        go(&mut ng, 0, Seg::tcp(SERVER, other, tcp_flags::SYN | tcp_flags::ACK));
        assert_eq!((ng.queue(0).flows(), ng.queue(1).flows()), (2, 0));
        // 0.98·100,000/2 = 49,000 for a data segment now.
        assert_eq!(go(&mut ng, 0, Seg { payload: 100, ..Seg::tcp(SERVER, CLIENT, tcp_flags::ACK) }), NgwaStamp::Inserted { value: 49_000, len: OptLen::Eight });
        go(&mut ng, 0, Seg::tcp(SERVER, CLIENT, tcp_flags::FIN | tcp_flags::ACK));
        assert_eq!(ng.queue(0).flows(), 1);
        go(&mut ng, 0, Seg::tcp(other, SERVER, tcp_flags::RST));
        assert_eq!(ng.queue(0).flows(), 0);
        // 0 connections: divided by 1.
        assert_eq!(go(&mut ng, 0, Seg { payload: 100, ..Seg::tcp(SERVER, CLIENT, tcp_flags::ACK) }), NgwaStamp::Inserted { value: 98_000, len: OptLen::Eight });
    }

    // tests that only a SYN opens a count: data and ACKs of a connection whose SYN the queue
    // never saw add nothing; and what a stamp adds to a packet's length (the option's 4 or 8
    // bytes when inserted, nothing otherwise); and that each router keeps its configuration.
    #[test]
    fn only_syns_count_and_only_insertions_grow() {
        let mut ng = Ngwa::new(fd(), 1);
        for flags in [tcp_flags::ACK, tcp_flags::ACK | tcp_flags::PSH, tcp_flags::ECE | tcp_flags::ACK] {
            let mut b = Seg { payload: 100, ..Seg::tcp(SERVER, CLIENT, flags) }.bytes();
            b.resize(b.len() + 8, 0);
            ng.on_departure(0, &mut RawPacket::new_checked(&mut b).unwrap(), reading(0, 0, QueueLimit::Bytes(100_000)));
        }
        assert_eq!(ng.queue(0).flows(), 0);
        assert_eq!(NgwaStamp::Inserted { value: 1, len: OptLen::Eight }.growth(), 8);
        assert_eq!(NgwaStamp::Inserted { value: 1, len: OptLen::Four }.growth(), 4);
        for s in [NgwaStamp::NotTcp, NgwaStamp::Lowered { from: 9, to: 1 }, NgwaStamp::Kept { carried: 1 }, NgwaStamp::Skipped(HeaderSkip::Mtu)] {
            assert_eq!(s.growth(), 0, "{s:?}");
        }
        let cfg = NgwaConfig { opt_len: 4, mtu: 9000, ..NgwaConfig::default() };
        assert_eq!(Ngwa::new(cfg.clone(), 1).config(), &cfg);
        let ack_cfg = NgwaConfig { stamp_ack: true, ..cfg };
        assert_eq!(NgwaAck::new(ack_cfg.clone()).config(), &ack_cfg);
    }

    // Bad input names the field.
    #[test]
    fn validate_names_the_field() {
        assert!(NgwaConfig::default().validate().is_ok());
        let e = NgwaConfig { opt_len: 6, ..NgwaConfig::default() }.validate().unwrap_err();
        assert_eq!((e.field, e.message.as_str()), ("opt_len", "expected 4 or 8, got 6"));
        assert_eq!(NgwaConfig { mtu: 0, ..NgwaConfig::default() }.validate().unwrap_err().field, "mtu");
        assert_eq!(NgwaConfig { mtu: 67, ..NgwaConfig::default() }.validate().unwrap_err().field, "mtu");
        assert!(NgwaConfig { mtu: 68, ..NgwaConfig::default() }.validate().is_ok(), "the IPv4 minimum itself");
        assert!(NgwaConfig { stamp_ack: true, stamp_floor: NgwaStampFloor::Mss, ..NgwaConfig::default() }.validate().is_ok());
        let e = NgwaConfig { stamp_floor: NgwaStampFloor::Mss, ..NgwaConfig::default() }.validate().unwrap_err();
        assert_eq!((e.field, e.message.as_str()), ("stamp_floor", "applies only with stamp_ack = true (the window the router writes into ACKs)"));
        // As a window controller NGWA needs stamp_ack.
        use crate::control::ControllerConfig;
        assert_eq!(ControllerConfig::Ngwa(NgwaConfig::default()).validate().unwrap_err().field, "stamp_ack");
        let c: ControllerConfig = serde_json::from_str(r#"{"kind": "ngwa", "stamp_ack": true, "stamp_floor": "mss"}"#).unwrap();
        assert_eq!(c, ControllerConfig::Ngwa(NgwaConfig { stamp_ack: true, stamp_floor: NgwaStampFloor::Mss, ..NgwaConfig::default() }));
        assert!(c.validate().is_ok());
        // The default floor is left out of the serialized config (models keep their hash).
        assert!(!serde_json::to_string(&NgwaConfig::default()).unwrap().contains("stamp_floor"));
        let c: NgwaConfig = serde_json::from_str(r#"{"br": "bytes", "opt_len": 4, "flow_division": true}"#).unwrap();
        assert_eq!((c.br, c.opt(), c.flow_division), (NgwaBr::Bytes, OptLen::Four, true));
        let e = serde_json::from_str::<NgwaConfig>(r#"{"br": "pkt"}"#).unwrap_err().to_string();
        assert!(e.contains("unknown variant `pkt`") && e.contains("bytes"), "{e}");
    }

    mod stamp_ack {
        use super::*;
        use crate::control::testutil::syn_opts;
        use crate::control::{ControllerConfig, NetworkReturn, Readings};
        use crate::flows::FlowTableConfig;
        use crate::packet::{SkipReason, WindowRewrite};
        use crate::time::{Rate, Time};

        /// The data direction is server → client (the monitored egress); the client's ACKs go
        /// the other way.
        fn gateway(cfg: NgwaConfig) -> NetworkReturn {
            NetworkReturn::new(FlowTableConfig::default(), &ControllerConfig::Ngwa(NgwaConfig { stamp_ack: true, ..cfg }))
        }

        /// The monitored queue, 54,000 B byte-limited, holding `bytes`.
        fn r(bytes: u64) -> Readings {
            Readings { queue: QueueReading { bytes, packets: (bytes / 1000) as u32, limit: QueueLimit::Bytes(54_000) }, link: Rate::mbps(10), oracle_flows: None }
        }

        fn client(i: u16) -> (u32, u16) {
            (CLIENT.0, CLIENT.1 + i)
        }

        /// A handshake of client `i` (both ends announcing shift `ws`): the SYN and the
        /// client's ACK leave through the other egress, the SYN-ACK through the monitored one.
        fn handshake(g: &mut NetworkReturn, i: u16, ws: u8) {
            let t = Time::ZERO;
            g.on_forward(&Seg { seq: 100, ack: 0, opts: syn_opts(Some(ws)), ..Seg::tcp(client(i), SERVER, tcp_flags::SYN) }, false, &r(0), t);
            g.on_forward(&Seg { seq: 900, ack: 101, opts: syn_opts(Some(ws)), ..Seg::tcp(SERVER, client(i), tcp_flags::SYN | tcp_flags::ACK) }, true, &r(0), t);
            g.on_forward(&Seg { seq: 101, ack: 901, ..Seg::tcp(client(i), SERVER, tcp_flags::ACK) }, false, &r(0), t);
        }

        /// Segment `s` (as bytes, real checksum) forwarded through the egress `monitored` says
        /// and rewritten at the rewrite point, the monitored queue holding `queued` bytes:
        /// the outcome and the field it leaves with; its checksum verifies afterwards.
        fn through(g: &mut NetworkReturn, s: Seg, monitored: bool, queued: u64) -> (WindowRewrite, u16) {
            let mut b = s.bytes();
            let mut p = RawPacket::new_checked(&mut b).unwrap();
            let t = Time::from_secs_f64(1.0);
            g.on_forward(&p, monitored, &r(queued), t);
            let o = g.at_rewrite_point(&mut p, &r(queued), t);
            assert_eq!(p.tcp_checksum_ok(), Some(true), "checksum after {o:?}");
            (o, p.tcp_window_field().unwrap())
        }

        fn ack(i: u16, window: u16) -> Seg {
            Seg { seq: 101, ack: 901, window, ..Seg::tcp(client(i), SERVER, tcp_flags::ACK) }
        }

        // NGWA's worked example on the data queue: 54,000 − 4,000 = 50,000 B free, n_f = 4
        // (four SYN-ACKs left through it) → 0.98·50,000/4 = 12,250. A client ACK (shift 0)
        // carrying 20,000 leaves with 12,250; one carrying 9,000 keeps it. Shift 2 (client 4,
        // a fifth connection: n_f = 5 → 0.98·50,000/5 = 9,800 → field 9,800 >> 2 = 2,450;
        // with only four connections it would be 12,250 >> 2 = 3,062: checked on a gateway
        // whose client 0 announced shift 2).
        #[test]
        fn w_node_of_the_data_queue_lowers_the_ack_window() {
            let mut g = gateway(NgwaConfig { flow_division: true, ..NgwaConfig::default() });
            for i in 0..4 {
                handshake(&mut g, i, 0);
            }
            assert_eq!(match &g.controller { crate::control::AnyController::Ngwa(n) => n.queue().flows(), _ => unreachable!() }, 4);
            assert_eq!(through(&mut g, ack(0, 20_000), false, 4_000), (WindowRewrite::Lowered { from_field: 20_000, to_field: 12_250 }, 12_250));
            assert_eq!(through(&mut g, ack(1, 9_000), false, 4_000), (WindowRewrite::Unchanged, 9_000));
            handshake(&mut g, 4, 2);
            assert_eq!(through(&mut g, ack(4, 20_000), false, 4_000).1, 2_450);

            let mut g = gateway(NgwaConfig { flow_division: true, ..NgwaConfig::default() });
            handshake(&mut g, 0, 2);
            for i in 1..4 {
                handshake(&mut g, i, 0);
            }
            assert_eq!(through(&mut g, ack(0, 20_000), false, 4_000), (WindowRewrite::Lowered { from_field: 20_000, to_field: 3_062 }, 3_062));
            assert_eq!((g.stats.lowered, g.stats.unchanged), (1, 0));
            // Without flow division: W_node = Br = 50,000 ≥ 20,000: left.
            let mut g = gateway(NgwaConfig::default());
            handshake(&mut g, 0, 0);
            assert_eq!(through(&mut g, ack(0, 20_000), false, 4_000), (WindowRewrite::Unchanged, 20_000));
            assert_eq!(through(&mut g, ack(0, 20_000), false, 44_000).1, 10_000, "54,000 − 44,000 free");
        }

        // SYN and RST are never rewritten, even with the data queue full (W_node = 0).
        #[test]
        fn syn_and_rst_are_untouched() {
            let mut g = gateway(NgwaConfig::default());
            handshake(&mut g, 0, 0);
            let syn = Seg { window: 20_000, ..Seg::tcp(client(1), SERVER, tcp_flags::SYN) };
            assert_eq!(through(&mut g, syn, false, 54_000), (WindowRewrite::Skipped(SkipReason::Syn), 20_000));
            let rst = Seg { window: 20_000, ..Seg::tcp(client(0), SERVER, tcp_flags::RST | tcp_flags::ACK) };
            assert_eq!(through(&mut g, rst, false, 54_000), (WindowRewrite::Skipped(SkipReason::Rst), 20_000));
        }

        // The value is the data queue's: the client's ACK gets 0 (no floor) when the monitored
        // queue is full, whatever its own queue holds (the readings are the monitored queue's
        // only); an ACK from the server, which itself leaves through the monitored queue (its
        // data would go the other way), is left alone even then; and so is an ACK of a flow
        // none of whose segments has left through the monitored queue yet.
        #[test]
        fn only_acks_whose_data_crosses_the_monitored_queue() {
            let mut g = gateway(NgwaConfig::default());
            handshake(&mut g, 0, 0);
            assert_eq!(through(&mut g, ack(0, 20_000), false, 54_000).1, 0);
            let from_server = Seg { seq: 901, ack: 101, window: 20_000, ..Seg::tcp(SERVER, client(0), tcp_flags::ACK) };
            assert_eq!(through(&mut g, from_server, true, 54_000), (WindowRewrite::Unchanged, 20_000));
            // Client 1's connection, seen only on the other egress (picked up mid-stream).
            assert_eq!(through(&mut g, ack(1, 20_000), false, 54_000), (WindowRewrite::Unchanged, 20_000));
            // stamp_floor = "mss": one MSS of the handshake (1,460 B, shift 0).
            let mut g = gateway(NgwaConfig { stamp_floor: NgwaStampFloor::Mss, ..NgwaConfig::default() });
            handshake(&mut g, 0, 0);
            assert_eq!(through(&mut g, ack(0, 20_000), false, 54_000).1, 1_460);
        }

        // n_f counts SYN / SYN-ACK / FIN / RST on the monitored egress only: four connections,
        // a client FIN (other egress) leaves it at 4, a server FIN (monitored) makes 3
        // (0.98·50,000/3 = 16,333), a client RST removes the flow from the table and with it
        // from the count: 2 (24,500).
        #[test]
        fn n_f_from_the_data_queue_segments() {
            let mut g = gateway(NgwaConfig { flow_division: true, ..NgwaConfig::default() });
            for i in 0..4 {
                handshake(&mut g, i, 0);
            }
            let n_f = |g: &NetworkReturn| match &g.controller {
                crate::control::AnyController::Ngwa(n) => n.queue().flows(),
                _ => unreachable!(),
            };
            through(&mut g, Seg { seq: 101, ack: 901, ..Seg::tcp(client(1), SERVER, tcp_flags::FIN | tcp_flags::ACK) }, false, 4_000);
            assert_eq!(n_f(&g), 4);
            through(&mut g, Seg { seq: 901, ack: 101, ..Seg::tcp(SERVER, client(2), tcp_flags::FIN | tcp_flags::ACK) }, true, 4_000);
            assert_eq!(n_f(&g), 3);
            assert_eq!(through(&mut g, ack(0, 65_535), false, 4_000).1, 16_333);
            through(&mut g, Seg { seq: 101, ack: 901, ..Seg::tcp(client(3), SERVER, tcp_flags::RST) }, false, 4_000);
            assert_eq!(n_f(&g), 2);
            assert_eq!(through(&mut g, ack(0, 65_535), false, 4_000).1, 24_500);
        }
    }
}
