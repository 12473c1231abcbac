//! Queue statistics kept by composition around any [`QueueDisc`].

use super::{DropReason, Enqueue, MarkReason, Occupancy, QdiscCx, QueueDisc, Queued};
use crate::time::Time;
use crate::units::QueueLimit;

/// Counters of one queue. Identities (checked by tests): `arrivals = enqueued + dropped_before`;
/// occupancy packets `= enqueued − dequeued − dropped_after`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QdiscStats {
    pub arrivals: u64,
    pub enqueued: u64,
    pub dequeued: u64,
    /// Arrivals refused (never queued).
    pub dropped_before: u64,
    /// Packets dropped after they were queued: at dequeue (CoDel, PIE) or to make room at
    /// an enqueue (CHOKe's victim, FQ-CoDel's overflow).
    pub dropped_after: u64,
    /// Packets ECN-marked, at enqueue or at dequeue.
    pub marked: u64,
    /// Sum of sojourn times of dequeued packets, ns (u64: 584 years of queueing).
    pub sojourn_sum_ns: u64,
}

impl QdiscStats {
    pub fn dropped(&self) -> u64 {
        self.dropped_before + self.dropped_after
    }

    /// Packets in the queue, from the counters alone (the identity above): lets a caller that
    /// is about to update the counters anyway ask whether the queue is empty without reading
    /// the discipline itself.
    #[inline]
    pub fn queued_pkts(&self) -> u64 {
        self.enqueued - self.dequeued - self.dropped_after
    }
}

/// Drops and marks by reason (indexed by [`DropReason::index`], [`MarkReason::index`]). Their
/// sums are [`QdiscStats::dropped`] and [`QdiscStats::marked`]. Kept apart from
/// [`QdiscStats`], which a caller may keep in a hot cache line: these are touched only when a
/// packet is dropped or marked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReasonCounts {
    pub drops: [u64; DropReason::COUNT],
    pub marks: [u64; MarkReason::COUNT],
}

impl ReasonCounts {
    /// Non-zero drop counts by name, in reason order.
    pub fn drops_by_name(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        DropReason::ALL.iter().map(|r| (r.as_str(), self.drops[r.index()])).filter(|&(_, n)| n > 0)
    }
    /// Non-zero mark counts by name, in reason order.
    pub fn marks_by_name(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        MarkReason::ALL.iter().map(|r| (r.as_str(), self.marks[r.index()])).filter(|&(_, n)| n > 0)
    }
    /// `self − earlier`, counter by counter (the counts within a window).
    pub fn since(&self, earlier: &ReasonCounts) -> ReasonCounts {
        let mut d = self.clone();
        for (a, b) in d.drops.iter_mut().zip(earlier.drops) {
            *a -= b;
        }
        for (a, b) in d.marks.iter_mut().zip(earlier.marks) {
            *a -= b;
        }
        d
    }
}

/// A discipline plus its statistics.
#[derive(Debug)]
#[repr(C)]
pub struct Instrumented<Q> {
    pub stats: QdiscStats,
    pub by_reason: ReasonCounts,
    pub inner: Q,
}

impl<Q> Instrumented<Q> {
    pub fn new(inner: Q) -> Self {
        Instrumented { inner, stats: QdiscStats::default(), by_reason: ReasonCounts::default() }
    }
}

/// What [`Instrumented::enqueue`] reports to the caller.
#[derive(Debug)]
pub enum Offer<P> {
    Queued { marked: bool },
    Dropped(DropReason, P),
}

impl<Q> Instrumented<Q> {
    /// Offer a packet. Queued packets the discipline drops to make room are appended to
    /// `cx.dequeue_drops` and counted as `dropped_after`; the caller frees them.
    #[inline]
    pub fn enqueue<P: Queued>(&mut self, pkt: P, now: Time, cx: &mut QdiscCx<'_, P>) -> Offer<P>
    where
        Q: QueueDisc<P>,
    {
        self.stats.arrivals += 1;
        let before = cx.dequeue_drops.len();
        let offer = match self.inner.enqueue(pkt, now, cx) {
            Enqueue::Queued => {
                self.stats.enqueued += 1;
                Offer::Queued { marked: false }
            }
            Enqueue::QueuedMarked(r) => {
                self.stats.enqueued += 1;
                self.stats.marked += 1;
                self.by_reason.marks[r.index()] += 1;
                Offer::Queued { marked: true }
            }
            Enqueue::Dropped(r, p) => {
                self.stats.dropped_before += 1;
                self.by_reason.drops[r.index()] += 1;
                Offer::Dropped(r, p)
            }
        };
        if cx.dequeue_drops.len() > before {
            self.count_after(&cx.dequeue_drops[before..]);
        }
        offer
    }

    #[cold]
    fn count_after<P>(&mut self, dropped: &[(P, DropReason)]) {
        self.stats.dropped_after += dropped.len() as u64;
        for (_, r) in dropped {
            self.by_reason.drops[r.index()] += 1;
        }
    }

    /// Account for a packet that went through an empty queue without waiting (see
    /// [`QueueDisc::passes_through_when_empty`]): it arrived, was enqueued and dequeued at the
    /// same instant, sojourn zero.
    #[inline]
    pub fn pass_through(&mut self) {
        self.stats.arrivals += 1;
        self.stats.enqueued += 1;
        self.stats.dequeued += 1;
    }

    /// Dequeue; packets dropped at the head are appended to `cx.dequeue_drops` and counted, and
    /// so is a mark set on the packet returned.
    #[inline]
    pub fn dequeue<P: Queued>(&mut self, now: Time, cx: &mut QdiscCx<'_, P>) -> Option<P>
    where
        Q: QueueDisc<P>,
    {
        let before = cx.dequeue_drops.len();
        let d = self.inner.dequeue(now, cx);
        if cx.dequeue_drops.len() > before {
            self.count_after(&cx.dequeue_drops[before..]);
        }
        let d = d?;
        if let Some(r) = d.mark {
            self.stats.marked += 1;
            self.by_reason.marks[r.index()] += 1;
        }
        self.stats.dequeued += 1;
        self.stats.sojourn_sum_ns += now.0.saturating_sub(d.pkt.enqueued_at().0);
        Some(d.pkt)
    }

    pub fn occupancy<P: Queued>(&self) -> Occupancy
    where
        Q: QueueDisc<P>,
    {
        self.inner.occupancy()
    }

    pub fn limit<P: Queued>(&self) -> QueueLimit
    where
        Q: QueueDisc<P>,
    {
        self.inner.limit()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testpkt::TestPkt;
    use super::super::{AnyQdisc, CodelArith, CodelConfig, Dequeued, DropTailConfig, FqCodelConfig, FqEmpty, QdiscConfig};
    use crate::time::Dur;
    use super::*;
    use crate::packet::Ecn;
    use crate::rng::RngStream;
    use std::collections::VecDeque;

    /// Drive `q` through a random sequence of enqueues and dequeues (ECT and Not-ECT packets of
    /// seven flows, sizes 40-1499 B, bursts and idle gaps) and check after every step: the
    /// identities, occupancy within `limit` packets, bytes equal to the sum of the packets
    /// inside (tracked from what went in and what came out), per-reason sums, and that every
    /// packet offered is accounted for exactly once.
    /// Returns the drops and marks by reason over all seeds.
    fn check_identities<Q: QueueDisc<TestPkt>>(make: impl Fn() -> Q, limit_pkts: u32, what: &str) -> ReasonCounts {
        let mut total = ReasonCounts::default();
        for seed in 0..20u64 {
            let mut ops = RngStream::from_seed(seed);
            let mut rng = RngStream::from_seed(seed + 100);
            let mut drops = Vec::new();
            let mut q = Instrumented::new(make());
            let mut inside: std::collections::HashMap<u32, u32> = Default::default();
            let mut t = Time(0);
            let mut out = 0u64;
            for i in 0..3000u32 {
                // Mostly sub-millisecond steps, now and then a long idle gap.
                t = Time(t.0 + if ops.chance(0.01) { 200_000_000 } else { ops.below(400_000) });
                let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
                // Phases of overload and of draining.
                let p_enq = if (i / 500) % 2 == 0 { 0.7 } else { 0.4 };
                if ops.chance(p_enq) {
                    let mut p = TestPkt::new(i, 40 + ops.below(1460) as u32);
                    p.flow = ops.below(7) as u32;
                    p.ecn = if ops.chance(0.5) { Ecn::Ect0 } else { Ecn::NotEct };
                    let len = p.len;
                    match q.enqueue(p, t, &mut cx) {
                        Offer::Queued { .. } => {
                            inside.insert(i, len);
                        }
                        Offer::Dropped(_, p) => assert_eq!(p.id, i, "{what}: the refused packet is the arrival"),
                    }
                } else if let Some(p) = q.dequeue(t, &mut cx) {
                    assert!(inside.remove(&p.id).is_some(), "{what}: dequeued packet {} was queued", p.id);
                    assert!(p.t <= t, "{what}: stamped at enqueue");
                    out += 1;
                }
                for (p, _) in drops.drain(..) {
                    assert!(inside.remove(&p.id).is_some(), "{what}: dropped packet {} was queued", p.id);
                }
                let s = &q.stats;
                let occ = q.occupancy::<TestPkt>();
                assert_eq!(occ.packets as u64, s.queued_pkts(), "{what} seed {seed}");
                assert_eq!(occ.packets as usize, inside.len(), "{what} seed {seed}");
                assert_eq!(occ.bytes, inside.values().map(|&l| l as u64).sum::<u64>(), "{what} seed {seed}: bytes add up");
                assert_eq!(s.arrivals, s.enqueued + s.dropped_before, "{what} seed {seed}");
                assert_eq!(occ.packets as u64, s.enqueued - s.dequeued - s.dropped_after, "{what} seed {seed}");
                assert_eq!(s.dequeued, out, "{what} seed {seed}");
                assert!(occ.packets <= limit_pkts, "{what} seed {seed}: {} > {limit_pkts}", occ.packets);
                assert_eq!(q.by_reason.drops.iter().sum::<u64>(), s.dropped(), "{what} seed {seed}");
                assert_eq!(q.by_reason.marks.iter().sum::<u64>(), s.marked, "{what} seed {seed}");
            }
            assert!(q.stats.dequeued > 0 && q.stats.dropped() > 0, "{what} seed {seed}: the sequence exercises drops");
            for (a, b) in total.drops.iter_mut().zip(q.by_reason.drops) {
                *a += b;
            }
            for (a, b) in total.marks.iter_mut().zip(q.by_reason.marks) {
                *a += b;
            }
        }
        total
    }

    fn any(cfg: QdiscConfig) -> impl Fn() -> AnyQdisc<TestPkt> {
        move || AnyQdisc::new(&cfg, &mut RngStream::from_seed(9))
    }

    // Every discipline, one line each. Limits small enough that the random sequence overloads
    // each of them.
    #[test]
    fn identities_hold_for_every_discipline() {
        check_identities(any(QdiscConfig::DropTail(DropTailConfig { limit: QueueLimit::Packets(5) })), 5, "drop_tail 5pkt");
        check_identities(any(QdiscConfig::DropTail(DropTailConfig { limit: QueueLimit::Bytes(6000) })), 150, "drop_tail 6000B");
        let codel = |limit, ecn, arith| CodelConfig { target: Dur::from_millis(1), interval: Dur::from_millis(10), limit, ecn, arith, ..CodelConfig::default() };
        let r = check_identities(any(QdiscConfig::Codel(codel(QueueLimit::Packets(12), false, CodelArith::Exact))), 12, "codel");
        assert!(r.drops[DropReason::CodelTargetExceeded.index()] > 0, "CoDel's own drops are exercised");
        let r = check_identities(any(QdiscConfig::Codel(codel(QueueLimit::Packets(12), true, CodelArith::Exact))), 12, "codel ecn");
        assert!(r.marks[MarkReason::CodelTargetExceeded.index()] > 0 && r.drops[DropReason::CodelTargetExceeded.index()] > 0, "marks and Not-ECT drops");
        check_identities(any(QdiscConfig::Codel(codel(QueueLimit::Bytes(9000), true, CodelArith::Ns3))), 250, "codel ns3 9000B");
        let fq = |limit, fq_empty, arith| FqCodelConfig { flows: 4, target: Dur::from_millis(1), interval: Dur::from_millis(10), limit: QueueLimit::Packets(limit), fq_empty, arith, ..FqCodelConfig::default() };
        let r = check_identities(any(QdiscConfig::FqCodel(fq(12, FqEmpty::Rfc, CodelArith::Exact))), 12, "fq_codel");
        assert!(r.drops[DropReason::FqOverlimit.index()] > 0 && r.drops[DropReason::CodelTargetExceeded.index()] > 0 && r.marks.iter().sum::<u64>() > 0, "{r:?}");
        check_identities(any(QdiscConfig::FqCodel(fq(12, FqEmpty::Linux, CodelArith::Ns3))), 12, "fq_codel linux ns3");
        let r = check_identities(Victim::default, 8, "test discipline");
        assert!(r.drops[DropReason::ChokeMatch.index()] > 0 && r.marks.iter().sum::<u64>() > 0, "drops during enqueue and marks at dequeue are exercised");
        // The RED family, PIE and CHOKe with ECN on (marks as well as drops), in packets and bytes.
        use super::super::{AredConfig, Auto, ChokeConfig, PieConfig, RedConfig};
        use super::super::pie::PieVariant;
        use super::super::red::{RedFlavor, RedRule};
        let p40 = QueueLimit::Packets(40);
        let red = RedConfig { limit: p40, ecn: true, ..RedConfig::ns3() };
        check_identities(any(QdiscConfig::Red(red.clone())), 40, "red ns3");
        check_identities(any(QdiscConfig::Red(RedConfig { limit: p40, ecn: true, gentle: false, ..RedConfig::default() })), 40, "red floyd");
        check_identities(any(QdiscConfig::Red(RedConfig { limit: QueueLimit::Bytes(30_000), params: RedRule::Linux, ecn: true, ..RedConfig::default() })), 750, "red linux 30000B");
        check_identities(any(QdiscConfig::Red(RedConfig { limit: QueueLimit::Bytes(30_000), ..red })), 750, "red ns3 30000B");
        check_identities(any(QdiscConfig::Ared(AredConfig { limit: p40, ecn: true, bandwidth: Auto::Value(crate::time::Rate::mbps(1)), ..AredConfig::ns3() })), 40, "ared");
        check_identities(any(QdiscConfig::Ared(AredConfig { limit: p40, flavor: RedFlavor::Floyd, ..AredConfig::default() })), 40, "ared floyd");
        check_identities(any(QdiscConfig::Pie(PieConfig { limit: p40, ecn: true, ..PieConfig::ns3() })), 40, "pie");
        check_identities(any(QdiscConfig::Pie(PieConfig { limit: p40, derandomize: true, ..PieConfig::default() })), 40, "pie derandomized");
        check_identities(any(QdiscConfig::Pie(PieConfig { limit: QueueLimit::Bytes(30_000), variant: PieVariant::Ns3_30, ..PieConfig::default() })), 750, "pie ns3.30 30000B");
        check_identities(any(QdiscConfig::Choke(ChokeConfig { limit: p40, ecn: true, ..ChokeConfig::default() })), 40, "choke");
        check_identities(any(QdiscConfig::Choke(ChokeConfig { limit: p40, candidates: 3, ..ChokeConfig::default() })), 40, "choke 3 candidates");
    }

    // A test discipline that exercises the rest of the seam: when full it drops the oldest
    // queued packet to make room (a drop after enqueue, during an enqueue) and marks at dequeue
    // every third ECT packet.
    #[derive(Default)]
    struct Victim {
        q: VecDeque<TestPkt>,
        bytes: u64,
        n: u32,
    }

    impl QueueDisc<TestPkt> for Victim {
        fn name(&self) -> &'static str {
            "victim"
        }
        fn enqueue(&mut self, mut pkt: TestPkt, now: Time, cx: &mut QdiscCx<'_, TestPkt>) -> Enqueue<TestPkt> {
            if pkt.len > 1400 {
                return Enqueue::Dropped(DropReason::Overlimit, pkt);
            }
            if self.q.len() == 8 {
                let v = self.q.pop_front().expect("full");
                self.bytes -= v.len as u64;
                cx.dequeue_drops.push((v, DropReason::ChokeMatch));
            }
            pkt.stamp(now);
            self.bytes += pkt.len as u64;
            self.q.push_back(pkt);
            Enqueue::Queued
        }
        fn dequeue(&mut self, _now: Time, _cx: &mut QdiscCx<'_, TestPkt>) -> Option<Dequeued<TestPkt>> {
            let mut p = self.q.pop_front()?;
            self.bytes -= p.len as u64;
            self.n += 1;
            if p.ecn == Ecn::Ect0 && self.n.is_multiple_of(3) {
                p.set_ce();
                return Some(Dequeued { pkt: p, mark: Some(MarkReason::CodelTargetExceeded) });
            }
            Some(Dequeued::plain(p))
        }
        fn occupancy(&self) -> Occupancy {
            Occupancy { packets: self.q.len() as u32, bytes: self.bytes }
        }
        fn limit(&self) -> QueueLimit {
            QueueLimit::Packets(8)
        }
    }

    // Drops during an enqueue and marks at dequeue are counted by reason; hand-counted over a
    // fixed sequence: 10 arrivals of 100 B (ECT) into the 8-packet test discipline push out the
    // two oldest (dropped_after 2, reason choke_match); one 1500 B arrival is refused
    // (dropped_before 1, overlimit); dequeuing the 8 left marks the 3rd and 6th (marked 2).
    #[test]
    fn drops_at_enqueue_and_marks_at_dequeue_are_counted() {
        let (mut rng, mut v) = (RngStream::from_seed(1), Vec::new());
        let mut q = Instrumented::new(Victim::default());
        for i in 0..10 {
            let mut p = TestPkt::new(i, 100);
            p.ecn = Ecn::Ect0;
            assert!(matches!(q.enqueue(p, Time(i as u64), &mut QdiscCx { rng: &mut rng, dequeue_drops: &mut v }), Offer::Queued { marked: false }));
        }
        assert_eq!(v.iter().map(|(p, _)| p.id).collect::<Vec<_>>(), [0, 1], "the victims are handed back");
        assert!(matches!(q.enqueue(TestPkt::new(10, 1500), Time(10), &mut QdiscCx { rng: &mut rng, dequeue_drops: &mut v }), Offer::Dropped(DropReason::Overlimit, _)));
        let mut ce = Vec::new();
        while let Some(p) = q.dequeue(Time(20), &mut QdiscCx { rng: &mut rng, dequeue_drops: &mut v }) {
            if p.ecn == Ecn::Ce {
                ce.push(p.id);
            }
        }
        assert_eq!(ce, [4, 7]);
        let s = &q.stats;
        assert_eq!((s.arrivals, s.enqueued, s.dropped_before, s.dropped_after, s.dequeued, s.marked), (11, 10, 1, 2, 8, 2));
        assert_eq!(q.by_reason.drops_by_name().collect::<Vec<_>>(), [("overlimit", 1), ("choke_match", 2)]);
        assert_eq!(q.by_reason.marks_by_name().collect::<Vec<_>>(), [("codel_target_exceeded", 2)]);
        // Sojourn: packets 2..9 queued at 2..9 ns, all dequeued at 20 ns: 18+17+...+11 = 116.
        assert_eq!(s.sojourn_sum_ns, 116);
    }

    // Only drop-tail may pass packets through an empty queue; every other kind takes the full
    // path (its state changes at enqueue and dequeue).
    #[test]
    fn only_drop_tail_passes_through() {
        for &kind in QdiscConfig::KINDS {
            let mut cfg = QdiscConfig::defaults(kind, crate::qdisc::Profile::Sluice).expect("a kind");
            if let QdiscConfig::DropTail(c) = &mut cfg {
                c.limit = QueueLimit::Packets(10);
            }
            let q: AnyQdisc<TestPkt> = AnyQdisc::new(&cfg, &mut RngStream::from_seed(1));
            assert_eq!(q.passes_through_when_empty(1500), kind == "drop_tail", "{kind}");
            assert_eq!(q.pass_through_max_len().is_some(), kind == "drop_tail", "{kind}");
            assert_eq!(q.name(), kind, "the discipline's name is its kind");
        }
    }

    // tests the counts within a window (each counter minus its value at the window's start)
    // and a pass-through's accounting: one arrival, enqueued and dequeued, nothing else.
    #[test]
    fn window_counts_and_a_pass_through() {
        let mut a = ReasonCounts::default();
        a.drops[DropReason::Overlimit.index()] = 7;
        a.marks[MarkReason::CodelTargetExceeded.index()] = 5;
        let mut b = a.clone();
        b.drops[DropReason::Overlimit.index()] = 10;
        b.marks[MarkReason::CodelTargetExceeded.index()] = 9;
        let d = b.since(&a);
        assert_eq!(d.drops_by_name().collect::<Vec<_>>(), [(DropReason::Overlimit.as_str(), 3)]);
        assert_eq!(d.marks_by_name().collect::<Vec<_>>(), [(MarkReason::CodelTargetExceeded.as_str(), 4)]);
        let mut q = Instrumented::new(super::super::DropTail::<TestPkt>::new(crate::units::QueueLimit::Packets(5)));
        q.pass_through();
        q.pass_through();
        assert_eq!(q.stats, QdiscStats { arrivals: 2, enqueued: 2, dequeued: 2, ..QdiscStats::default() });
    }
}
