//! Queue disciplines.
//!
//! A [`QueueDisc`] decides, per arriving packet, whether it is queued, marked or dropped, and
//! which packet leaves next. Statistics are not kept by the algorithms but by one wrapper,
//! [`Instrumented`], so the queue identities hold by construction:
//!
//! * `arrivals = enqueued + dropped_before`
//! * `queued = enqueued − dequeued − dropped_after`
//!
//! Randomness, when an algorithm needs it, comes from the [`QdiscCx`] the caller hands in.
//! Packets move by value; a dropped packet is handed back so the caller owns tracing and freeing.
//!
//! Implemented: drop-tail ([`drop_tail`], as ns-3's `DropTailQueue` and Linux's `pfifo`/`bfifo`).
//! RED, ARED, PIE, CoDel, FQ-CoDel and CHOKe arrive as further variants of [`AnyQdisc`] and of the
//! `kind` of a scenario's `queue` table (`sluice-sim`'s scenario schema).

pub mod auto;
pub mod choke;
pub mod drop_tail;
pub mod pie;
pub mod red;
pub mod stats;

pub use choke::{Choke, ChokeSettings};
pub use drop_tail::DropTail;
pub use pie::{Pie, PieSettings};
pub use red::{Red, RedSettings};
pub use stats::{Instrumented, Offer, QdiscStats};

use crate::packet::Ecn;
use crate::rng::RngStream;
use crate::time::Time;
use crate::units::QueueLimit;

/// What a queue discipline needs to know of a packet.
pub trait Queued {
    /// Length in bytes as the queue counts it (the IP packet).
    fn len_bytes(&self) -> u32;
    /// When the packet entered this queue (set by [`Queued::stamp`]).
    fn enqueued_at(&self) -> Time;
    fn stamp(&mut self, t: Time);
    fn ecn(&self) -> Ecn;
    /// Set CE (only valid on an ECT packet).
    fn set_ce(&mut self);
    /// A hash of the 5-tuple, for flow-queueing disciplines.
    fn flow_hash(&self) -> u32;
}

/// Why a packet was dropped.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DropReason {
    /// The queue was full (limit in packets or bytes).
    Overlimit,
    /// RED's (or CHOKe's) random early drop.
    RedEarly,
    /// RED's forced drop: the average at or above the hard threshold.
    RedForced,
    /// PIE's random early drop.
    PieEarly,
    /// CHOKe: the arrival matched a packet drawn from the queue (both are dropped).
    ChokeMatch,
}

impl DropReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::Overlimit => "overlimit",
            DropReason::RedEarly => "red_early",
            DropReason::RedForced => "red_forced",
            DropReason::PieEarly => "pie_early",
            DropReason::ChokeMatch => "choke_match",
        }
    }
}

/// Why a packet was ECN-marked.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MarkReason {
    Early,
}

/// What became of an offered packet.
#[derive(Debug)]
pub enum Enqueue<P> {
    Queued,
    QueuedMarked(MarkReason),
    Dropped(DropReason, P),
}

/// What the caller lends a discipline for one call.
pub struct QdiscCx<'a, P> {
    pub rng: &'a mut RngStream,
    /// Packets dropped while dequeuing (AQMs that drop at the head).
    pub dequeue_drops: &'a mut Vec<(P, DropReason)>,
}

/// Current occupancy.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Occupancy {
    pub packets: u32,
    pub bytes: u64,
}

/// The queue-discipline seam.
pub trait QueueDisc<P: Queued> {
    fn name(&self) -> &'static str;
    /// Offer `pkt` at `now`. Never blocks; returns what became of it.
    fn enqueue(&mut self, pkt: P, now: Time, cx: &mut QdiscCx<'_, P>) -> Enqueue<P>;
    /// Next packet to send at `now`, if any. Packets dropped while looking are pushed to `cx`.
    fn dequeue(&mut self, now: Time, cx: &mut QdiscCx<'_, P>) -> Option<P>;
    fn occupancy(&self) -> Occupancy;
    fn limit(&self) -> QueueLimit;
}

/// The closed set of disciplines, dispatched without dynamic dispatch on the hot path.
#[derive(Debug)]
pub enum AnyQdisc<P> {
    DropTail(DropTail<P>),
}

impl<P: Queued> AnyQdisc<P> {
    /// Whether a packet of `len` bytes offered to this discipline while it is empty would be
    /// queued and then be the very next packet dequeued, with no other effect — so a caller
    /// whose link is idle may hand it straight to the link. True for drop-tail when the packet
    /// fits; AQMs keep state at enqueue and dequeue and always take the full path.
    #[inline]
    pub fn passes_through_when_empty(&self, len: u32) -> bool {
        match self {
            AnyQdisc::DropTail(q) => q.is_empty() && q.fits_alone(len),
        }
    }

    /// The largest packet (bytes) for which [`AnyQdisc::passes_through_when_empty`] holds while
    /// the discipline is empty; `None` if no packet ever passes through. Fixed for the life of
    /// the discipline, so a caller may keep it beside its own hot state. `Some` only for
    /// disciplines that keep no state beyond the queue itself, so for them a dequeue from the
    /// empty queue does nothing at all.
    pub fn pass_through_max_len(&self) -> Option<u32> {
        match self {
            AnyQdisc::DropTail(q) => q.largest_alone(),
        }
    }
}

impl<P: Queued> QueueDisc<P> for AnyQdisc<P> {
    fn name(&self) -> &'static str {
        match self {
            AnyQdisc::DropTail(q) => q.name(),
        }
    }
    #[inline]
    fn enqueue(&mut self, pkt: P, now: Time, cx: &mut QdiscCx<'_, P>) -> Enqueue<P> {
        match self {
            AnyQdisc::DropTail(q) => q.enqueue(pkt, now, cx),
        }
    }
    #[inline]
    fn dequeue(&mut self, now: Time, cx: &mut QdiscCx<'_, P>) -> Option<P> {
        match self {
            AnyQdisc::DropTail(q) => q.dequeue(now, cx),
        }
    }
    #[inline]
    fn occupancy(&self) -> Occupancy {
        match self {
            AnyQdisc::DropTail(q) => q.occupancy(),
        }
    }
    fn limit(&self) -> QueueLimit {
        match self {
            AnyQdisc::DropTail(q) => q.limit(),
        }
    }
}

#[cfg(test)]
pub(crate) mod testpkt {
    use super::*;

    /// A minimal packet for queue tests.
    #[derive(Clone, Debug, PartialEq)]
    pub struct TestPkt {
        pub id: u32,
        pub len: u32,
        pub t: Time,
        pub ecn: Ecn,
    }
    impl TestPkt {
        pub fn new(id: u32, len: u32) -> Self {
            TestPkt { id, len, t: Time::ZERO, ecn: Ecn::NotEct }
        }
    }
    impl Queued for TestPkt {
        fn len_bytes(&self) -> u32 {
            self.len
        }
        fn enqueued_at(&self) -> Time {
            self.t
        }
        fn stamp(&mut self, t: Time) {
            self.t = t
        }
        fn ecn(&self) -> Ecn {
            self.ecn
        }
        fn set_ce(&mut self) {
            self.ecn = Ecn::Ce
        }
        fn flow_hash(&self) -> u32 {
            self.id % 7
        }
    }
}
