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

use super::QueueReading;
use crate::packet::signal::{stamp_opt33, HeaderSkip, Opt33Write, OptLen, SignalField};
use crate::packet::{tcp_flags, HeaderView};
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

/// `{ kind = "ngwa", flow_division = false, br = "pkts", flow_count = "syn_fin", opt_len = 8,
/// stamp_ack = false, mtu = 1500 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NgwaConfig {
    /// `W_node = 0.98·Br/n_f` (NGWA's "flow division", modes 5–8) instead of `Br`.
    pub flow_division: bool,
    pub br: NgwaBr,
    pub flow_count: NgwaFlowCount,
    /// Bytes of option 33 inserted: 8 (32-bit value) or 4 (16-bit, saturating at 65,535).
    pub opt_len: u32,
    /// The gateway-only variant (a single router writing `min(W_r, W_node)` into ACK windows,
    /// for receivers that cannot be changed): not implemented, so only `false` is accepted.
    pub stamp_ack: bool,
    /// Bytes per packet of a packet-limited queue, and the largest IP packet a stamp may
    /// make (a router never fragments for the option).
    pub mtu: u32,
}

impl Default for NgwaConfig {
    /// NGWA's basic router (Talau & Wille, Table 1 mode 1: no flow division); `br = "pkts"` and
    /// `opt_len = 8` are Sluice's reconstructions, `stamp_ack = false` is the paper's mechanism
    /// (docs/algorithms/network-return.md, "NGWA"); MTU 1500 (Ethernet).
    fn default() -> Self {
        NgwaConfig { flow_division: false, br: NgwaBr::Pkts, flow_count: NgwaFlowCount::SynFin, opt_len: 8, stamp_ack: false, mtu: 1500 }
    }
}

impl NgwaConfig {
    /// Checks the fields; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        if OptLen::from_bytes(self.opt_len as u64).is_none() {
            return Err(ParamError::new("opt_len", format!("expected 4 or 8, got {}", self.opt_len)));
        }
        if self.stamp_ack {
            return Err(ParamError::new("stamp_ack", "the gateway-only variant (ACK windows written by the router) is not implemented; only false is accepted"));
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

    // Bad input names the field.
    #[test]
    fn validate_names_the_field() {
        assert!(NgwaConfig::default().validate().is_ok());
        let e = NgwaConfig { opt_len: 6, ..NgwaConfig::default() }.validate().unwrap_err();
        assert_eq!((e.field, e.message.as_str()), ("opt_len", "expected 4 or 8, got 6"));
        assert_eq!(NgwaConfig { mtu: 0, ..NgwaConfig::default() }.validate().unwrap_err().field, "mtu");
        assert_eq!(NgwaConfig { stamp_ack: true, ..NgwaConfig::default() }.validate().unwrap_err().field, "stamp_ack");
        let c: NgwaConfig = serde_json::from_str(r#"{"br": "bytes", "opt_len": 4, "flow_division": true}"#).unwrap();
        assert_eq!((c.br, c.opt(), c.flow_division), (NgwaBr::Bytes, OptLen::Four, true));
        let e = serde_json::from_str::<NgwaConfig>(r#"{"br": "pkt"}"#).unwrap_err().to_string();
        assert!(e.contains("unknown variant `pkt`") && e.contains("bytes"), "{e}");
    }
}
