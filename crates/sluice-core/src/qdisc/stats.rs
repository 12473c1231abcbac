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
        match self.inner.enqueue(pkt, now, cx) {
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
}
