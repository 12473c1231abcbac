//! Queue statistics kept by composition around any [`QueueDisc`].

use super::{DropReason, Enqueue, Occupancy, QdiscCx, QueueDisc, Queued};
use crate::time::Time;
use crate::units::QueueLimit;

/// Counters of one queue. Identities (checked by tests): `arrivals = enqueued + dropped_before`;
/// occupancy packets `= enqueued − dequeued − dropped_after`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QdiscStats {
    pub arrivals: u64,
    pub enqueued: u64,
    pub dequeued: u64,
    pub dropped_before: u64,
    pub dropped_after: u64,
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

/// A discipline plus its statistics.
#[derive(Debug)]
#[repr(C)]
pub struct Instrumented<Q> {
    pub stats: QdiscStats,
    pub inner: Q,
}

impl<Q> Instrumented<Q> {
    pub fn new(inner: Q) -> Self {
        Instrumented { inner, stats: QdiscStats::default() }
    }
}

/// What [`Instrumented::enqueue`] reports to the caller.
#[derive(Debug)]
pub enum Offer<P> {
    Queued { marked: bool },
    Dropped(DropReason, P),
}

impl<Q> Instrumented<Q> {
    #[inline]
    pub fn enqueue<P: Queued>(&mut self, pkt: P, now: Time, cx: &mut QdiscCx<'_, P>) -> Offer<P>
    where
        Q: QueueDisc<P>,
    {
        self.stats.arrivals += 1;
        // Packets a discipline removes from the queue while admitting another (CHOKe's victims)
        // were enqueued before: they count as dropped after enqueue.
        let before = cx.dequeue_drops.len();
        let r = self.inner.enqueue(pkt, now, cx);
        self.stats.dropped_after += (cx.dequeue_drops.len() - before) as u64;
        match r {
            Enqueue::Queued => {
                self.stats.enqueued += 1;
                Offer::Queued { marked: false }
            }
            Enqueue::QueuedMarked(_) => {
                self.stats.enqueued += 1;
                self.stats.marked += 1;
                Offer::Queued { marked: true }
            }
            Enqueue::Dropped(r, p) => {
                self.stats.dropped_before += 1;
                Offer::Dropped(r, p)
            }
        }
    }

    /// Account for a packet that went through an empty queue without waiting (see
    /// [`AnyQdisc::passes_through_when_empty`](super::AnyQdisc::passes_through_when_empty)): it
    /// arrived, was enqueued and dequeued at the same instant, sojourn zero.
    #[inline]
    pub fn pass_through(&mut self) {
        self.stats.arrivals += 1;
        self.stats.enqueued += 1;
        self.stats.dequeued += 1;
    }

    /// Dequeue; packets dropped at the head are appended to `cx.dequeue_drops` and counted.
    #[inline]
    pub fn dequeue<P: Queued>(&mut self, now: Time, cx: &mut QdiscCx<'_, P>) -> Option<P>
    where
        Q: QueueDisc<P>,
    {
        let before = cx.dequeue_drops.len();
        let p = self.inner.dequeue(now, cx);
        self.stats.dropped_after += (cx.dequeue_drops.len() - before) as u64;
        if let Some(p) = &p {
            self.stats.dequeued += 1;
            self.stats.sojourn_sum_ns += now.0.saturating_sub(p.enqueued_at().0);
        }
        p
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
    use super::super::{AnyQdisc, DropTail};
    use crate::packet::Ecn;
    use super::*;
    use crate::rng::RngStream;

    // Model-based check of the queue identities over a random operation sequence.
    #[test]
    fn identities_hold_over_random_operations() {
        for seed in 0..20u64 {
            let mut ops = RngStream::from_seed(seed);
            let mut rng = RngStream::from_seed(seed + 100);
            let mut drops = Vec::new();
            let mut q = Instrumented::new(AnyQdisc::DropTail(DropTail::new(QueueLimit::Packets(5))));
            let mut t = Time(0);
            for i in 0..500u32 {
                t = Time(t.0 + ops.below(1000));
                let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
                if ops.chance(0.6) {
                    let _ = q.enqueue(TestPkt::new(i, 40 + ops.below(1460) as u32), t, &mut cx);
                } else {
                    let _ = q.dequeue(t, &mut cx);
                }
                let s = &q.stats;
                let occ = q.occupancy::<TestPkt>();
                assert_eq!(occ.packets as u64, s.queued_pkts(), "seed {seed}");
                assert_eq!(s.arrivals, s.enqueued + s.dropped_before, "seed {seed}");
                assert_eq!(occ.packets as u64, s.enqueued - s.dequeued - s.dropped_after, "seed {seed}");
                assert!(occ.packets <= 5, "seed {seed}");
            }
        }
    }

    /// Drive `q` through a random operation sequence and check the identities after every step:
    /// arrivals = enqueued + dropped_before, queued = enqueued − dequeued − dropped_after,
    /// occupancy ≤ limit, and the bytes of arrivals = bytes dropped before + bytes still queued +
    /// bytes dequeued + bytes dropped after.
    fn check_conservation<Q: QueueDisc<TestPkt>>(mk: impl Fn() -> Q, limit_pkts: u32) {
        for seed in 0..10u64 {
            let mut ops = RngStream::from_seed(seed);
            let mut rng = RngStream::from_seed(seed + 100);
            let mut drops = Vec::new();
            let mut q = Instrumented::new(mk());
            let name = q.inner.name();
            let mut t = Time(0);
            let (mut b_in, mut b_before, mut b_out, mut b_after) = (0u64, 0u64, 0u64, 0u64);
            for i in 0..3000u32 {
                t = Time(t.0 + ops.below(400_000));
                // phases of overload and drain so the AQMs act
                let p_enq = if (i / 300) % 2 == 0 { 0.75 } else { 0.35 };
                let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
                if ops.chance(p_enq) {
                    let len = 40 + ops.below(1460) as u32;
                    b_in += len as u64;
                    // flows 0..7 by id, flow 0 heavy
                    let id = if ops.chance(0.5) { 7 * i } else { i };
                    let ecn = if ops.chance(0.5) { Ecn::Ect0 } else { Ecn::NotEct };
                    if let Offer::Dropped(_, p) = q.enqueue(TestPkt { ecn, ..TestPkt::new(id, len) }, t, &mut cx) {
                        b_before += p.len as u64;
                    }
                } else if let Some(p) = q.dequeue(t, &mut cx) {
                    b_out += p.len as u64;
                }
                for (p, _) in drops.drain(..) {
                    b_after += p.len as u64;
                }
                let s = &q.stats;
                let occ = q.inner.occupancy();
                assert_eq!(s.arrivals, s.enqueued + s.dropped_before, "{name} seed {seed}");
                assert_eq!(occ.packets as u64, s.enqueued - s.dequeued - s.dropped_after, "{name} seed {seed}");
                assert!(occ.packets <= limit_pkts, "{name} seed {seed}: {occ:?}");
                assert_eq!(b_in, b_before + occ.bytes + b_out + b_after, "{name} seed {seed}");
            }
            assert!(q.stats.dropped() > 0 && q.stats.dequeued > 0, "{name}: the run should drop and deliver");
        }
    }

    // Model-based conservation check for every discipline (ECN on where it exists, so marks
    // happen too).
    #[test]
    fn conservation_holds_for_every_discipline() {
        use super::super::choke::{Choke, ChokeSettings};
        use super::super::pie::{Pie, PieSettings};
        use super::super::red::{AredParams, Red, RedSettings, RedFlavor};
        use crate::time::{Dur, Rate};
        let lim = QueueLimit::Packets(40);
        let red = RedSettings { limit: lim, ecn: true, ..RedSettings::ns3_defaults(Rate::mbps(10)) };
        check_conservation(|| DropTail::new(lim), 40);
        check_conservation(|| Red::new(red), 40);
        check_conservation(|| Red::new(RedSettings { flavor: RedFlavor::Floyd, gentle: false, hard_drop: false, ..red }), 40);
        // byte limit: 30,000 B holds at most 750 packets of 40 B (bytes are checked below)
        check_conservation(|| Red::new(RedSettings { limit: QueueLimit::Bytes(30_000), min_th: 5000.0, max_th: 15000.0, ..red }), 750);
        check_conservation(|| Red::new(RedSettings::adaptive(red, Dur::from_millis(5), AredParams::standard(0.01))), 40);
        check_conservation(|| Pie::new(PieSettings { limit: lim, ecn: true, ..PieSettings::ns3_44() }), 40);
        check_conservation(|| Pie::new(PieSettings { limit: lim, derandomize: true, ..PieSettings::rfc8033() }), 40);
        check_conservation(|| Pie::new(PieSettings { limit: lim, ..PieSettings::ns3_30() }), 40);
        check_conservation(|| Choke::new(ChokeSettings { red: RedSettings { limit: lim, ..ChokeSettings::defaults(Rate::mbps(10)).red }, candidates: 1 }), 40);
        check_conservation(|| Choke::new(ChokeSettings { red: RedSettings { limit: lim, ..ChokeSettings::defaults(Rate::mbps(10)).red }, candidates: 3 }), 40);
    }
}
