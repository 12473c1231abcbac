//! FQ-CoDel, flow queueing with CoDel (RFC 8290; Linux `sch_fq_codel.c`; ns-3
//! `FqCoDelQueueDisc`).
//!
//! Arrivals are hashed by their 5-tuple into one of `flows` queues, each managed by its own
//! CoDel ([`codel`](super::codel)). Queues take turns by deficit round robin with a `quantum` of
//! bytes per turn, and a queue that becomes active joins the *new* list, served before the
//! *old* one, so sparse flows (never building a queue) leave ahead of bulk ones. When the total
//! exceeds `limit` packets, packets are dropped from the head of the queue with the most bytes,
//! until `drop_batch` packets or half of its bytes are gone.
//!
//! Which queue a flow lands in: the packet's 5-tuple hash mixed with the queue's
//! `perturbation` (a salt), modulo `flows`. `"random"` draws the salt once from the queue's own
//! random stream (Linux draws one at set-up); ns-3.44 uses a fixed 0.
//!
//! An emptied queue taken from the new list moves to the old list (`fq_empty = "rfc"`, RFC 8290
//! §4.2 and ns-3, needed against starvation) or, with `fq_empty = "linux"`, only if the old list
//! is not empty, else it becomes inactive (Linux). Each queue's CoDel compares its own backlog
//! with `mtu` (ns-3; Linux compares the whole discipline's backlog).

use super::codel::{check_codel_times, CodelArith, CodelParams, CodelQueue, CodelState, Fifo};
use super::{Dequeued, DropReason, Enqueue, Occupancy, ParamError, Profile, QdiscCx, QdiscParams, QueueDisc, Queued};
use crate::rng::RngStream;
use crate::time::{Dur, Time};
use crate::units::QueueLimit;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::collections::VecDeque;
use std::fmt;

/// What an emptied new-list queue does (module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FqEmpty {
    Rfc,
    Linux,
}

/// How a packet's queue is chosen (module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FqHash {
    /// Sluice's 5-tuple hash mixed with the salt by MurmurHash3's finalizer.
    Sluice,
    /// ns-3.44's `Ipv4QueueDiscItem::Hash`: MurmurHash3 (x86, 32-bit, seed 0x8BADF00D) over
    /// ns-3's 17 bytes, then modulo `flows`.
    Ns3,
}

/// ns-3's `Hash32` seed (`Murmur3::SEED`).
pub const NS3_HASH_SEED: u32 = 0x8BAD_F00D;

/// MurmurHash3_x86_32 (Austin Appleby's public-domain reference; ns-3's `Hash32` with
/// `seed` = [`NS3_HASH_SEED`]): 4-byte little-endian blocks, the tail, then the length and the
/// finalizer.
pub fn murmur3_32(data: &[u8], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mut h = seed;
    let mut blocks = data.chunks_exact(4);
    for b in &mut blocks {
        let k = u32::from_le_bytes([b[0], b[1], b[2], b[3]]).wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h = (h ^ k).rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let mut k = 0u32;
        for (i, &b) in tail.iter().enumerate() {
            k |= (b as u32) << (8 * i);
        }
        h ^= k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    }
    fmix32(h ^ data.len() as u32)
}

/// The 13 bytes ns-3's `Ipv4QueueDiscItem::Hash` serializes before the perturbation: source
/// and destination address, protocol, source and destination port (big-endian).
pub fn ns3_tuple(src: u32, dst: u32, proto: u8, sport: u16, dport: u16) -> [u8; 13] {
    let mut t = [0u8; 13];
    t[..4].copy_from_slice(&src.to_be_bytes());
    t[4..8].copy_from_slice(&dst.to_be_bytes());
    t[8] = proto;
    t[9..11].copy_from_slice(&sport.to_be_bytes());
    t[11..13].copy_from_slice(&dport.to_be_bytes());
    t
}

/// The hash salt: drawn from the queue's stream, or fixed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Perturbation {
    Random,
    Fixed(u32),
}

impl Serialize for Perturbation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Perturbation::Random => s.serialize_str("random"),
            Perturbation::Fixed(v) => s.serialize_u32(*v),
        }
    }
}

impl<'de> Deserialize<'de> for Perturbation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Perturbation;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"random\" or a salt from 0 to 4294967295")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Perturbation, E> {
                match s {
                    "random" => Ok(Perturbation::Random),
                    _ => Err(E::custom(format!("expected \"random\" or a salt from 0 to 4294967295, got {s:?}"))),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Perturbation, E> {
                u32::try_from(v).map(Perturbation::Fixed).map_err(|_| E::custom(format!("expected \"random\" or a salt from 0 to 4294967295, got {v}")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Perturbation, E> {
                u32::try_from(v).map(Perturbation::Fixed).map_err(|_| E::custom(format!("expected \"random\" or a salt from 0 to 4294967295, got {v}")))
            }
        }
        d.deserialize_any(V)
    }
}

/// `{ kind = "fq_codel", flows = 1024, quantum = 1514, limit = "10240pkt", target = "5ms",
/// interval = "100ms", mtu = 1500, ecn = true, drop_batch = 64, fq_empty = "rfc",
/// perturbation = "random", arith = "exact", hash = "sluice" }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FqCodelConfig {
    /// Number of queues (RFC 8290, Linux and ns-3: 1024).
    pub flows: u32,
    /// Bytes a queue may send per round (Linux: device MTU + 14 = 1514; ns-3: the device MTU,
    /// 1500).
    pub quantum: u32,
    /// Packets in all queues together (Linux and ns-3: 10240).
    pub limit: QueueLimit,
    /// Each queue's CoDel ([`CodelConfig`](super::CodelConfig)).
    pub target: Dur,
    pub interval: Dur,
    pub mtu: u32,
    /// ECN marking (Linux and ns-3: on).
    pub ecn: bool,
    /// Most packets dropped from the fattest queue per overflow (Linux and ns-3: 64).
    pub drop_batch: u32,
    pub fq_empty: FqEmpty,
    pub perturbation: Perturbation,
    pub arith: CodelArith,
    pub hash: FqHash,
}

impl Default for FqCodelConfig {
    /// RFC 8290 with Linux's values: 1024 queues, quantum 1514, 10240 packets, CoDel 5 ms /
    /// 100 ms, ECN on, drop batch 64, a random salt.
    fn default() -> Self {
        FqCodelConfig {
            flows: 1024,
            quantum: 1514,
            limit: QueueLimit::Packets(10_240),
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
            mtu: 1500,
            ecn: true,
            drop_batch: 64,
            fq_empty: FqEmpty::Rfc,
            perturbation: Perturbation::Random,
            arith: CodelArith::Exact,
            hash: FqHash::Sluice,
        }
    }
}

impl QdiscParams for FqCodelConfig {
    /// ns-3.44 `FqCoDelQueueDisc`: quantum = the device MTU (1500 on a point-to-point link),
    /// `Perturbation` 0, CoDel's arithmetic, ns-3's hash; the rest as Linux.
    fn for_profile(profile: Profile) -> Self {
        match profile {
            Profile::Sluice => Self::default(),
            Profile::Ns3_44 => FqCodelConfig { quantum: 1500, perturbation: Perturbation::Fixed(0), arith: CodelArith::Ns3, hash: FqHash::Ns3, ..Self::default() },
        }
    }
    fn validate(&self) -> Result<(), ParamError> {
        check_codel_times(self.target, self.interval, self.arith)?;
        if !(1..=65_536).contains(&self.flows) {
            return Err(ParamError::new("flows", format!("must be from 1 to 65536, got {}", self.flows)));
        }
        if self.quantum == 0 {
            return Err(ParamError::new("quantum", "must be at least 1 byte"));
        }
        match self.limit {
            QueueLimit::Packets(0) => Err(ParamError::new("limit", "must be greater than zero")),
            QueueLimit::Packets(_) => Ok(()),
            QueueLimit::Bytes(_) => Err(ParamError::new("limit", "must be in packets (\"10240pkt\"): FQ-CoDel's limit counts packets")),
        }?;
        if self.drop_batch == 0 {
            return Err(ParamError::new("drop_batch", "must be at least 1"));
        }
        Ok(())
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Status {
    Inactive,
    New,
    Old,
}

/// One queue's state.
#[derive(Debug)]
struct Flow<P> {
    q: Fifo<P>,
    deficit: i64,
    status: Status,
    /// ns-3 arithmetic: whether ns-3 would have created this queue yet.
    used: bool,
    codel: CodelState,
}

/// An FQ-CoDel queue.
#[derive(Debug)]
pub struct FqCodel<P> {
    flows: Vec<Flow<P>>,
    new: VecDeque<u32>,
    old: VecDeque<u32>,
    /// ns-3 arithmetic: queues in the order they were first used (ns-3 creates them on first
    /// use and looks for the fattest in that order; Linux in index order).
    created: Vec<u32>,
    params: CodelParams,
    quantum: i64,
    limit: u32,
    drop_batch: u32,
    fq_empty: FqEmpty,
    salt: u32,
    ns3: bool,
    hash: FqHash,
    /// `hash = "ns3"`: the queue of each entry of the table of ns-3's 5-tuples, indexed by
    /// [`Queued::flow_key`] (set by the simulator): hashed once, not per packet.
    ns3_buckets: Vec<u32>,
    packets: u32,
    bytes: u64,
}

/// The mixing step of MurmurHash3's finalizer: spreads every input bit over the output.
fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

impl<P: Queued> FqCodel<P> {
    /// Draws the salt from `rng` when `perturbation = "random"`.
    pub fn from_config(cfg: &FqCodelConfig, rng: &mut RngStream) -> Self {
        let salt = match cfg.perturbation {
            Perturbation::Random => rng.next_u32(),
            Perturbation::Fixed(v) => v,
        };
        let n = cfg.flows as usize;
        let QueueLimit::Packets(limit) = cfg.limit else { panic!("FQ-CoDel's limit is in packets (checked by validate)") };
        FqCodel {
            flows: (0..n).map(|_| Flow { q: Fifo::default(), deficit: 0, status: Status::Inactive, used: false, codel: CodelState::new() }).collect(),
            new: VecDeque::new(),
            old: VecDeque::new(),
            created: Vec::new(),
            params: CodelParams::new(cfg.target, cfg.interval, cfg.mtu, cfg.ecn, cfg.arith),
            quantum: cfg.quantum as i64,
            limit,
            drop_batch: cfg.drop_batch,
            fq_empty: cfg.fq_empty,
            salt,
            ns3: cfg.arith == CodelArith::Ns3,
            hash: cfg.hash,
            ns3_buckets: Vec::new(),
            packets: 0,
            bytes: 0,
        }
    }

    /// The queue a packet belongs to.
    #[inline]
    pub fn bucket(&self, p: &P) -> usize {
        match self.hash {
            FqHash::Sluice => self.reduce(fmix32(p.flow_hash() ^ self.salt)),
            FqHash::Ns3 => match self.ns3_buckets.get(p.flow_key() as usize) {
                Some(&b) => b as usize,
                // A packet the table does not describe hashes its own hash in the address field.
                None => self.ns3_bucket(None, p.flow_hash()),
            },
        }
    }

    /// ns-3's queue for a 5-tuple (or, without one, for `hash` in the address field): its 17
    /// bytes, the 5-tuple then the perturbation (big-endian), through MurmurHash3.
    fn ns3_bucket(&self, tuple: Option<&[u8; 13]>, hash: u32) -> usize {
        let mut buf = [0u8; 17];
        match tuple {
            Some(t) => buf[..13].copy_from_slice(t),
            None => buf[..4].copy_from_slice(&hash.to_be_bytes()),
        }
        buf[13..].copy_from_slice(&self.salt.to_be_bytes());
        self.reduce(murmur3_32(&buf, NS3_HASH_SEED))
    }

    #[inline]
    fn reduce(&self, h: u32) -> usize {
        (h % self.flows.len() as u32) as usize
    }

    /// `hash = "ns3"`: the 5-tuples ns-3 would hash, indexed by [`Queued::flow_key`].
    pub fn set_ns3_tuples(&mut self, tuples: Vec<[u8; 13]>) {
        self.ns3_buckets = tuples.iter().map(|t| self.ns3_bucket(Some(t), 0) as u32).collect();
    }

    /// Whether this queue wants [`FqCodel::set_ns3_tuples`].
    pub fn wants_ns3_tuples(&self) -> bool {
        self.hash == FqHash::Ns3
    }

    /// Drop from the head of the queue with the most bytes until `drop_batch` packets or half
    /// its bytes are gone (RFC 8290 §4.1.3; Linux and ns-3 alike).
    fn drop_from_fattest(&mut self, drops: &mut Vec<(P, DropReason)>) {
        let mut fat = 0usize;
        let mut max = 0u64;
        if self.ns3 {
            for &i in &self.created {
                if self.flows[i as usize].q.bytes > max {
                    (fat, max) = (i as usize, self.flows[i as usize].q.bytes);
                }
            }
        } else {
            for (i, f) in self.flows.iter().enumerate() {
                if f.q.bytes > max {
                    (fat, max) = (i, f.q.bytes);
                }
            }
        }
        let threshold = max >> 1;
        let (mut len, mut count) = (0u64, 0u32);
        let q = &mut self.flows[fat].q;
        while let Some(p) = q.pop() {
            len += p.len_bytes() as u64;
            self.packets -= 1;
            self.bytes -= p.len_bytes() as u64;
            drops.push((p, DropReason::FqOverlimit));
            count += 1;
            if count >= self.drop_batch || len >= threshold {
                break;
            }
        }
    }
}

impl<P: Queued> QueueDisc<P> for FqCodel<P> {
    fn name(&self) -> &'static str {
        "fq_codel"
    }

    fn enqueue(&mut self, mut pkt: P, now: Time, cx: &mut QdiscCx<'_, P>) -> Enqueue<P> {
        let i = self.bucket(&pkt);
        let f = &mut self.flows[i];
        if self.ns3 && !f.used {
            f.used = true;
            self.created.push(i as u32);
        }
        if f.status == Status::Inactive {
            f.status = Status::New;
            f.deficit = self.quantum;
            self.new.push_back(i as u32);
        }
        // ns-3 gives each queue's CoDel the whole limit as its own: it refuses an arrival
        // only when that one queue already holds the limit.
        if self.ns3 && f.q.q.len() as u64 >= self.limit as u64 {
            return Enqueue::Dropped(DropReason::Overlimit, pkt);
        }
        pkt.stamp(now);
        self.bytes += pkt.len_bytes() as u64;
        f.q.push(pkt);
        self.packets += 1;
        if self.packets > self.limit {
            self.drop_from_fattest(cx.dequeue_drops);
        }
        Enqueue::Queued
    }

    fn dequeue(&mut self, now: Time, cx: &mut QdiscCx<'_, P>) -> Option<Dequeued<P>> {
        loop {
            let (i, from_new) = if let Some(&i) = self.new.front() {
                let f = &mut self.flows[i as usize];
                if f.deficit <= 0 {
                    f.deficit += self.quantum;
                    f.status = Status::Old;
                    self.new.pop_front();
                    self.old.push_back(i);
                    continue;
                }
                (i as usize, true)
            } else if let Some(&i) = self.old.front() {
                let f = &mut self.flows[i as usize];
                if f.deficit <= 0 {
                    f.deficit += self.quantum;
                    self.old.pop_front();
                    self.old.push_back(i);
                    continue;
                }
                (i as usize, false)
            } else {
                return None;
            };
            let before = cx.dequeue_drops.len();
            let params = self.params;
            let f = &mut self.flows[i];
            let out = f.codel.dequeue(&params, &mut f.q, now, cx.dequeue_drops);
            for (p, _) in &cx.dequeue_drops[before..] {
                self.packets -= 1;
                self.bytes -= p.len_bytes() as u64;
            }
            let f = &mut self.flows[i];
            match out {
                Some(d) => {
                    let len = d.pkt.len_bytes();
                    f.deficit -= len as i64;
                    self.packets -= 1;
                    self.bytes -= len as u64;
                    return Some(d);
                }
                None => {
                    if from_new {
                        self.new.pop_front();
                        if self.fq_empty == FqEmpty::Rfc || !self.old.is_empty() {
                            f.status = Status::Old;
                            self.old.push_back(i as u32);
                        } else {
                            f.status = Status::Inactive;
                        }
                    } else {
                        self.old.pop_front();
                        f.status = Status::Inactive;
                    }
                }
            }
        }
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy { packets: self.packets, bytes: self.bytes }
    }

    fn limit(&self) -> QueueLimit {
        QueueLimit::Packets(self.limit)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testpkt::TestPkt;
    use super::super::MarkReason;
    use super::*;
    use crate::packet::Ecn;

    const MS: u64 = 1_000_000;

    fn fq(cfg: FqCodelConfig) -> FqCodel<TestPkt> {
        FqCodel::from_config(&cfg, &mut RngStream::from_seed(3))
    }

    /// Two flows that land in different queues of `q`.
    fn two_flows(q: &FqCodel<TestPkt>) -> (u32, u32) {
        let mk = |flow| TestPkt { flow, ..TestPkt::new(0, 100) };
        let b = (1..).find(|&f| q.bucket(&mk(f)) != q.bucket(&mk(0))).expect("some flow lands elsewhere");
        (0, b)
    }

    // RFC 8290's promise for sparse flows. A bulk flow keeps the queue backlogged: 1500-byte
    // packets arrive at twice the 10 Mbit/s link rate (one per 600 µs; the link takes one per
    // 1.2 ms). A sparse flow sends one 100-byte packet every 50 ms. Each sparse packet finds its
    // queue inactive, joins the new list with a full quantum and is served at the next dequeue:
    // it waits at most one packet transmission (1.2 ms, the link busy with a bulk packet),
    // within one quantum time (1514 B at 10 Mbit/s = 1.21 ms), and is never dropped, while the
    // bulk flow's standing queue makes CoDel drop its packets.
    #[test]
    fn a_sparse_flow_leaves_within_one_quantum_time_and_is_never_dropped() {
        let mut q = fq(FqCodelConfig { ecn: false, ..FqCodelConfig::default() });
        let (bulk, sparse) = two_flows(&q);
        let mut rng = RngStream::from_seed(1);
        let mut drops = Vec::new();
        let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
        let (mut next_bulk, mut next_sparse, mut next_tx) = (0u64, 5 * MS, 0u64);
        let mut id = 0u32;
        let mut sparse_sent = 0;
        let mut waits = Vec::new();
        let quantum_time = 1514 * 8 * 100; // ns at 10 Mbit/s
        while next_tx < 5_000 * MS {
            let t = next_bulk.min(next_sparse).min(next_tx);
            if t == next_bulk {
                let _ = q.enqueue(TestPkt { flow: bulk, ..TestPkt::new(id, 1500) }, Time(t), &mut cx);
                id += 1;
                next_bulk += 600_000;
            } else if t == next_sparse {
                let _ = q.enqueue(TestPkt { flow: sparse, ..TestPkt::new(id, 100) }, Time(t), &mut cx);
                id += 1;
                sparse_sent += 1;
                next_sparse += 50 * MS;
            } else {
                match q.dequeue(Time(t), &mut cx) {
                    Some(d) => {
                        if d.pkt.flow == sparse {
                            waits.push(t - d.pkt.t.0);
                        }
                        next_tx = t + d.pkt.len as u64 * 8 * 100;
                    }
                    None => next_tx = t + 100_000,
                }
            }
        }
        assert!(cx.dequeue_drops.iter().all(|(p, _)| p.flow == bulk), "only the bulk flow loses packets");
        assert!(cx.dequeue_drops.iter().any(|(_, r)| *r == DropReason::CodelTargetExceeded), "CoDel controls the bulk flow");
        assert_eq!(waits.len(), sparse_sent, "every sparse packet left");
        assert!(waits.iter().all(|&w| w <= quantum_time), "sparse waits {:?} within {quantum_time} ns", waits.iter().max());
    }

    // Overflow drops from the head of the fattest queue until half its bytes are gone: limit
    // 10 packets; flow a holds 8 × 1000 B, flow b 2 × 100 B; the 11th packet (b) overflows:
    // the fattest is a (8000 B), threshold 4000 B, so a loses its 4 oldest (4000 B), the
    // arrival stays queued.
    #[test]
    fn overflow_drops_half_the_fattest_queue_from_its_head() {
        let mut q = fq(FqCodelConfig { limit: QueueLimit::Packets(10), ..FqCodelConfig::default() });
        let (a, b) = two_flows(&q);
        let mut rng = RngStream::from_seed(1);
        let mut drops = Vec::new();
        let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
        for i in 0..8 {
            assert!(matches!(q.enqueue(TestPkt { flow: a, ..TestPkt::new(i, 1000) }, Time(0), &mut cx), Enqueue::Queued));
        }
        for i in 8..11 {
            assert!(matches!(q.enqueue(TestPkt { flow: b, ..TestPkt::new(i, 100) }, Time(0), &mut cx), Enqueue::Queued));
        }
        assert_eq!(cx.dequeue_drops.iter().map(|(p, r)| (p.id, *r)).collect::<Vec<_>>(), (0..4).map(|i| (i, DropReason::FqOverlimit)).collect::<Vec<_>>());
        assert_eq!(q.occupancy(), Occupancy { packets: 7, bytes: 4300 });
        // With a batch of 2 it stops at two packets.
        let mut q = fq(FqCodelConfig { limit: QueueLimit::Packets(10), drop_batch: 2, ..FqCodelConfig::default() });
        cx.dequeue_drops.clear();
        for i in 0..8 {
            let _ = q.enqueue(TestPkt { flow: a, ..TestPkt::new(i, 1000) }, Time(0), &mut cx);
        }
        for i in 8..11 {
            let _ = q.enqueue(TestPkt { flow: b, ..TestPkt::new(i, 100) }, Time(0), &mut cx);
        }
        assert_eq!(cx.dequeue_drops.len(), 2);
    }

    // Deficit round robin with a new list: a newly active queue is served first; a queue that
    // used its quantum goes to the back of the old list. Quantum 1514: flow a (1000 B packets,
    // active first) sends two (deficit 1514 → 514 → −486), then b, newly active, sends two,
    // then a again.
    #[test]
    fn queues_take_turns_by_quantum_new_ones_first() {
        let mut q = fq(FqCodelConfig::default());
        let (a, b) = two_flows(&q);
        let mut rng = RngStream::from_seed(1);
        let mut drops = Vec::new();
        let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
        for i in 0..4 {
            let _ = q.enqueue(TestPkt { flow: a, ..TestPkt::new(i, 1000) }, Time(0), &mut cx);
        }
        let first = q.dequeue(Time(0), &mut cx).unwrap().pkt.id;
        for i in 10..14 {
            let _ = q.enqueue(TestPkt { flow: b, ..TestPkt::new(i, 1000) }, Time(0), &mut cx);
        }
        let mut order = vec![first];
        while let Some(d) = q.dequeue(Time(0), &mut cx) {
            order.push(d.pkt.id);
        }
        // a: 0 (deficit 514), 1 (−486: to the old list); b new: 10, 11; a: 2, 3; b: 12, 13.
        assert_eq!(order, [0, 1, 10, 11, 2, 3, 12, 13]);
    }

    // `fq_empty`: with the old list empty, a new-list queue found empty moves to the old list
    // (RFC 8290 §4.2, ns-3) or becomes inactive (Linux). a and b each queue one packet (both
    // new); a's leaves; the next dequeue finds a empty at the head of the new list, disposes
    // of it, and serves b.
    #[test]
    fn an_emptied_new_queue_moves_to_the_old_list_per_fq_empty() {
        for (mode, want) in [(FqEmpty::Rfc, Status::Old), (FqEmpty::Linux, Status::Inactive)] {
            let mut q = fq(FqCodelConfig { fq_empty: mode, ..FqCodelConfig::default() });
            let (a, b) = two_flows(&q);
            let mut rng = RngStream::from_seed(1);
            let mut drops = Vec::new();
            let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
            let _ = q.enqueue(TestPkt { flow: a, ..TestPkt::new(0, 1000) }, Time(0), &mut cx);
            let _ = q.enqueue(TestPkt { flow: b, ..TestPkt::new(1, 1000) }, Time(0), &mut cx);
            assert_eq!(q.dequeue(Time(0), &mut cx).unwrap().pkt.id, 0);
            assert_eq!(q.dequeue(Time(0), &mut cx).unwrap().pkt.id, 1);
            let i = q.bucket(&TestPkt { flow: a, ..TestPkt::new(0, 1) });
            assert_eq!(q.flows[i].status, want, "{mode:?}");
        }
    }

    // ECN on by default: an ECT packet of a standing queue is marked, not dropped.
    #[test]
    fn ecn_marks_by_default() {
        let mut q = fq(FqCodelConfig::default());
        let mut rng = RngStream::from_seed(1);
        let mut drops = Vec::new();
        let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
        for i in 0..20 {
            let _ = q.enqueue(TestPkt { flow: 1, ecn: Ecn::Ect0, ..TestPkt::new(i, 1000) }, Time(0), &mut cx);
        }
        assert!(q.dequeue(Time(10 * MS), &mut cx).unwrap().mark.is_none(), "above target, not yet for an interval");
        let d = q.dequeue(Time(110 * MS), &mut cx).unwrap();
        assert_eq!((d.pkt.ecn, d.mark), (Ecn::Ce, Some(MarkReason::CodelTargetExceeded)));
        assert!(cx.dequeue_drops.is_empty());
    }

    // tests the turns when a queue joins one that has been served alone: quantum 1500,
    // 1500 B packets. a sends 0 from the new list, moves to the old list with a fresh quantum
    // and sends 1; b, newly active, sends 10 from the new list, then both take one packet per
    // turn, b first (it joined the old list behind a, which used its turn's replenishment):
    // 0, 1, 10, 11, 2, 12, 3. A penalty once on leaving the new list, or a deficit not charged
    // by the bytes sent, would reorder them.
    #[test]
    fn a_queue_joining_a_busy_one_takes_turns_from_its_first_packet() {
        let mut q = fq(FqCodelConfig { quantum: 1500, ..FqCodelConfig::default() });
        let (a, b) = two_flows(&q);
        let mut rng = RngStream::from_seed(1);
        let mut drops = Vec::new();
        let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
        for i in 0..4 {
            let _ = q.enqueue(TestPkt { flow: a, ..TestPkt::new(i, 1500) }, Time(0), &mut cx);
        }
        let mut order = vec![q.dequeue(Time(0), &mut cx).unwrap().pkt.id, q.dequeue(Time(0), &mut cx).unwrap().pkt.id];
        for i in 10..13 {
            let _ = q.enqueue(TestPkt { flow: b, ..TestPkt::new(i, 1500) }, Time(0), &mut cx);
        }
        while let Some(d) = q.dequeue(Time(0), &mut cx) {
            order.push(d.pkt.id);
        }
        assert_eq!(order, [0, 1, 10, 11, 2, 12, 3]);
        assert!(drops.is_empty());
    }

    // tests the two readings of the limit (4 packets, one flow, 1000 B packets). Linux and RFC
    // 8290: the fifth packet is queued, then the fattest queue (this one, 5000 B) loses packets
    // from its head until half its bytes are gone (three: 3000 ≥ 2500). ns-3: each queue's
    // CoDel holds the whole limit, so a queue holding 4 refuses the fifth and nothing else is
    // dropped.
    #[test]
    fn the_limit_is_the_whole_queues_in_linux_and_each_queues_in_ns3() {
        for (arith, victims, refused, left) in [(CodelArith::Exact, vec![0, 1, 2], false, 2), (CodelArith::Ns3, vec![], true, 4)] {
            let mut q = fq(FqCodelConfig { limit: QueueLimit::Packets(4), arith, ..FqCodelConfig::default() });
            let mut rng = RngStream::from_seed(1);
            let mut drops = Vec::new();
            let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
            for i in 0..4 {
                assert!(matches!(q.enqueue(TestPkt { flow: 1, ..TestPkt::new(i, 1000) }, Time(0), &mut cx), Enqueue::Queued));
            }
            let fifth = q.enqueue(TestPkt { flow: 1, ..TestPkt::new(4, 1000) }, Time(0), &mut cx);
            assert_eq!(matches!(fifth, Enqueue::Dropped(DropReason::Overlimit, _)), refused, "{arith:?}");
            assert_eq!(cx.dequeue_drops.iter().map(|(p, _)| p.id).collect::<Vec<_>>(), victims, "{arith:?}");
            assert_eq!(q.occupancy().packets, left, "{arith:?}");
        }
    }

    // tests the fattest queue among equals: Linux scans the queues by index and keeps the
    // first of the largest; ns-3 scans them in the order they were created. Queues a and b hold
    // 2000 B each (b's created first), a third packet of 100 B overflows the limit of 4, and
    // one 1000 B packet (half of 2000) goes from the chosen queue's head.
    #[test]
    fn among_equally_fat_queues_the_first_scanned_loses() {
        for arith in [CodelArith::Exact, CodelArith::Ns3] {
            let mut q = fq(FqCodelConfig { limit: QueueLimit::Packets(4), arith, ..FqCodelConfig::default() });
            let (x, y) = two_flows(&q);
            let at = |f| q.bucket(&TestPkt { flow: f, ..TestPkt::new(0, 1) });
            // b: the queue with the higher index, created first.
            let (a, b) = if at(x) < at(y) { (x, y) } else { (y, x) };
            let c = (1..).find(|&f| at(f) != at(a) && at(f) != at(b)).expect("a third queue");
            let mut rng = RngStream::from_seed(1);
            let mut drops = Vec::new();
            let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
            for (id, flow) in [(20, b), (21, b), (10, a), (11, a)] {
                let _ = q.enqueue(TestPkt { flow, ..TestPkt::new(id, 1000) }, Time(0), &mut cx);
            }
            let _ = q.enqueue(TestPkt { flow: c, ..TestPkt::new(30, 100) }, Time(0), &mut cx);
            let want = if arith == CodelArith::Ns3 { 20 } else { 10 };
            assert_eq!(cx.dequeue_drops.iter().map(|(p, _)| p.id).collect::<Vec<_>>(), [want], "{arith:?}");
        }
    }

    // tests the queue a packet lands in: MurmurHash3's finalizer (fmix32) of its flow hash
    // XOR the salt, modulo the number of queues. Salt 0x9E3779B9, 1024 queues; the expected
    // queues computed apart (Python): hash 0 → 782, 1 → 259, 0xDEADBEEF → 691, and the salt
    // itself → fmix32(0) = 0 → 0.
    #[test]
    fn a_flow_lands_in_the_queue_of_its_salted_hash() {
        let q = fq(FqCodelConfig { perturbation: Perturbation::Fixed(0x9E37_79B9), ..FqCodelConfig::default() });
        let at = |flow| q.bucket(&TestPkt { flow, ..TestPkt::new(0, 1) });
        assert_eq!([at(0), at(1), at(0xDEAD_BEEF), at(0x9E37_79B9)], [782, 259, 691, 0]);
    }

    // tests the parameter checks, each error naming its field, and the ns-3 profile.
    #[test]
    fn parameters_are_checked_and_ns3_takes_its_own() {
        let v = |c: FqCodelConfig| c.validate().map_err(|e| e.field);
        let d = FqCodelConfig::default;
        assert_eq!(v(d()), Ok(()));
        assert_eq!(v(FqCodelConfig { flows: 0, ..d() }), Err("flows"));
        assert_eq!(v(FqCodelConfig { flows: 1, ..d() }), Ok(()));
        assert_eq!(v(FqCodelConfig { flows: 65_536, ..d() }), Ok(()));
        assert_eq!(v(FqCodelConfig { flows: 65_537, ..d() }), Err("flows"));
        assert_eq!(v(FqCodelConfig { quantum: 0, ..d() }), Err("quantum"));
        assert_eq!(v(FqCodelConfig { quantum: 1, ..d() }), Ok(()));
        assert_eq!(v(FqCodelConfig { limit: QueueLimit::Packets(0), ..d() }), Err("limit"));
        assert_eq!(v(FqCodelConfig { limit: QueueLimit::Bytes(100_000), ..d() }), Err("limit"));
        assert_eq!(v(FqCodelConfig { drop_batch: 0, ..d() }), Err("drop_batch"));
        assert_eq!(v(FqCodelConfig { drop_batch: 1, ..d() }), Ok(()));
        assert_eq!(v(FqCodelConfig { interval: Dur(0), ..d() }), Err("interval"));
        assert_eq!(
            FqCodelConfig::for_profile(Profile::Ns3_44),
            FqCodelConfig { quantum: 1500, perturbation: Perturbation::Fixed(0), arith: CodelArith::Ns3, hash: FqHash::Ns3, ..d() }
        );
        assert_eq!(FqCodelConfig::for_profile(Profile::Sluice), d());
    }

    // tests `perturbation`: "random", or a salt that fits 32 bits; anything else is refused
    // with what is allowed.
    #[test]
    fn perturbation_is_random_or_a_32_bit_salt() {
        use serde::de::value::{Error, F64Deserializer, I64Deserializer, U64Deserializer};
        use serde::de::IntoDeserializer;
        let s = |x: &str| Perturbation::deserialize(IntoDeserializer::<Error>::into_deserializer(x));
        assert_eq!(s("random").unwrap(), Perturbation::Random);
        assert_eq!(s("often").unwrap_err().to_string(), "expected \"random\" or a salt from 0 to 4294967295, got \"often\"");
        let d: U64Deserializer<Error> = 4_294_967_295u64.into_deserializer();
        assert_eq!(Perturbation::deserialize(d).unwrap(), Perturbation::Fixed(u32::MAX));
        let d: U64Deserializer<Error> = 4_294_967_296u64.into_deserializer();
        assert!(Perturbation::deserialize(d).is_err());
        let d: I64Deserializer<Error> = 7i64.into_deserializer();
        assert_eq!(Perturbation::deserialize(d).unwrap(), Perturbation::Fixed(7));
        let d: I64Deserializer<Error> = (-1i64).into_deserializer();
        assert!(Perturbation::deserialize(d).is_err());
        let d: F64Deserializer<Error> = 1.5f64.into_deserializer();
        assert_eq!(Perturbation::deserialize(d).unwrap_err().to_string(), "invalid type: floating point `1.5`, expected \"random\" or a salt from 0 to 4294967295");
    }

    // The salt: "random" draws it from the queue's own stream (so two queues with different
    // streams hash differently); ns-3's profile fixes it at 0.
    #[test]
    fn the_salt_comes_from_the_queue_stream_or_is_fixed() {
        let a: FqCodel<TestPkt> = FqCodel::from_config(&FqCodelConfig::default(), &mut RngStream::from_seed(1));
        let b: FqCodel<TestPkt> = FqCodel::from_config(&FqCodelConfig::default(), &mut RngStream::from_seed(2));
        assert_eq!(a.salt, RngStream::from_seed(1).next_u32());
        assert_ne!(a.salt, b.salt);
        let n: FqCodel<TestPkt> = FqCodel::from_config(&FqCodelConfig::for_profile(Profile::Ns3_44), &mut RngStream::from_seed(1));
        assert_eq!(n.salt, 0);
        assert_eq!(n.quantum, 1500);
    }

    // MurmurHash3_x86_32 against its published test vectors (the reference implementation's
    // verification values, as listed with it; the same from Python's mmh3 5.3.1): empty input
    // with seeds 0, 1 and 0xFFFFFFFF; four zero bytes; every tail length (1-3 bytes) and a whole
    // block; and longer strings. ns-3's `Hash32` is this with seed 0x8BADF00D.
    #[test]
    fn murmur3_matches_its_published_vectors() {
        let v: [(&[u8], u32, u32); 11] = [
            (b"", 0, 0),
            (b"", 1, 0x514e_28b7),
            (b"", 0xffff_ffff, 0x81f1_6f39),
            (&[0, 0, 0, 0], 0, 0x2362_f9de),
            (b"a", 0x9747_b28c, 0x7fa0_9ea6),
            (b"aa", 0x9747_b28c, 0x5d21_1726),
            (b"aaa", 0x9747_b28c, 0x283e_0130),
            (b"aaaa", 0x9747_b28c, 0x5a97_808a),
            (b"abcd", 0x9747_b28c, 0xf047_8627),
            (b"Hello, world!", 0x9747_b28c, 0x2488_4cba),
            (b"The quick brown fox jumps over the lazy dog", 0x9747_b28c, 0x2fa8_26cd),
        ];
        for (data, seed, want) in v {
            assert_eq!(murmur3_32(data, seed), want, "{:?} seed {seed:#x}", std::str::from_utf8(data));
        }
    }

    // `hash = "ns3"` puts a flow where ns-3.44's FqCoDelQueueDisc does. Flow 0 of
    // validation/ns3_dumbbell.py's dumbbell: 10.0.0.1:49153 -> 10.0.1.2:5001, TCP, perturbation
    // 0; ns-3 hashes the 17 bytes 0a000001 0a000102 06 c001 1389 00000000 with MurmurHash3 seed
    // 0x8BADF00D: 0xfca4fa35 (computed independently with Python's mmh3 5.3.1:
    // mmh3.hash(bytes, 0x8BADF00D, signed=False)), and 0xfca4fa35 mod 1024 = 0x235 = 565.
    // A perturbation of 1 changes the last byte and the queue.
    #[test]
    fn ns3_hash_puts_a_flow_where_ns3_does() {
        let t = ns3_tuple(0x0a00_0001, 0x0a00_0102, 6, 49_153, 5_001);
        assert_eq!(t, [10, 0, 0, 1, 10, 0, 1, 2, 6, 0xc0, 0x01, 0x13, 0x89]);
        let mut bytes = [0u8; 17];
        bytes[..13].copy_from_slice(&t);
        assert_eq!(murmur3_32(&bytes, NS3_HASH_SEED), 0xfca4_fa35);
        let mut q = fq(FqCodelConfig::for_profile(Profile::Ns3_44));
        assert!(q.wants_ns3_tuples());
        q.set_ns3_tuples(vec![t]);
        // TestPkt's flow_key is its flow: entry 0 of the table.
        let p = TestPkt { flow: 0, ..TestPkt::new(0, 1500) };
        assert_eq!(q.bucket(&p), 565);
        // A packet the table does not describe (entry 1) hashes its own hash (TestPkt's: its
        // flow) in the address field.
        let beyond = TestPkt { flow: 1, ..TestPkt::new(0, 1500) };
        let mut own = [0u8; 17];
        own[3] = 1;
        assert_eq!(q.bucket(&beyond), (murmur3_32(&own, NS3_HASH_SEED) % 1024) as usize);
        let mut q1 = fq(FqCodelConfig { perturbation: Perturbation::Fixed(1), ..FqCodelConfig::for_profile(Profile::Ns3_44) });
        q1.set_ns3_tuples(vec![t]);
        bytes[16] = 1;
        assert_eq!(q1.bucket(&p), (murmur3_32(&bytes, NS3_HASH_SEED) % 1024) as usize);
        assert_ne!(q1.bucket(&p), 565);
        // The default hash is Sluice's own.
        assert!(!fq(FqCodelConfig::default()).wants_ns3_tuples());
    }
}
