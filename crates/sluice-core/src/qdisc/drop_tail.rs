//! Drop-tail FIFO, the limit test of ns-3's `DropTailQueue` (drop when the current size plus the
//! packet would exceed the maximum) and of Linux's `pfifo` (packets) and `bfifo` (bytes).
//!
//! Drops the arriving packet if it does not fit: `packets + 1 > limit_pkts` or
//! `bytes + len > limit_bytes`. Never drops after enqueue, never marks.

use super::{Dequeued, DropReason, Enqueue, Occupancy, ParamError, Profile, QdiscCx, QdiscParams, QueueDisc, Queued};
use crate::rng::RngStream;
use crate::time::Time;
use crate::units::QueueLimit;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `{ kind = "drop_tail", limit = "900pkt" }`. The limit is required.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropTailConfig {
    /// In packets (`"900pkt"`, Linux `pfifo`) or bytes (`"1500000B"`, Linux `bfifo`).
    pub limit: QueueLimit,
}

impl Default for DropTailConfig {
    /// 1000 packets: Linux's `pfifo` takes the device's `txqueuelen`, 1000 by default.
    fn default() -> Self {
        DropTailConfig { limit: QueueLimit::Packets(1000) }
    }
}

impl QdiscParams for DropTailConfig {
    const REQUIRED: &'static [&'static str] = &["limit"];
    /// ns-3's `DropTailQueue` `MaxSize` default is 100 packets.
    fn for_profile(profile: Profile) -> Self {
        match profile {
            Profile::Sluice => Self::default(),
            Profile::Ns3_44 => DropTailConfig { limit: QueueLimit::Packets(100) },
        }
    }
    fn validate(&self) -> Result<(), ParamError> {
        let zero = match self.limit {
            QueueLimit::Packets(p) => p == 0,
            QueueLimit::Bytes(b) => b == 0,
        };
        if zero {
            return Err(ParamError::new("limit", "must be greater than zero"));
        }
        Ok(())
    }
}

#[derive(Debug)]
pub struct DropTail<P> {
    limit: QueueLimit,
    q: VecDeque<P>,
    bytes: u64,
}

impl<P> DropTail<P> {
    pub fn new(limit: QueueLimit) -> Self {
        // Grow on demand: most interfaces of a large topology never hold more than a few packets.
        DropTail { limit, q: VecDeque::new(), bytes: 0 }
    }
    /// Drop-tail draws nothing from `rng`.
    pub fn from_config(cfg: &DropTailConfig, _rng: &mut RngStream) -> Self {
        DropTail::new(cfg.limit)
    }
}

impl<P> DropTail<P> {
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    /// Whether a packet of `len` bytes fits into the empty queue.
    pub fn fits_alone(&self, len: u32) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => n >= 1,
            QueueLimit::Bytes(b) => len as u64 <= b,
        }
    }
    /// The largest packet that fits into the empty queue (`None`: none does).
    pub fn largest_alone(&self) -> Option<u32> {
        match self.limit {
            QueueLimit::Packets(n) => (n >= 1).then_some(u32::MAX),
            QueueLimit::Bytes(b) => Some(b.min(u32::MAX as u64) as u32),
        }
    }
}

impl<P: Queued> QueueDisc<P> for DropTail<P> {
    fn name(&self) -> &'static str {
        "drop_tail"
    }

    #[inline]
    fn enqueue(&mut self, mut pkt: P, now: Time, _cx: &mut QdiscCx<'_, P>) -> Enqueue<P> {
        let len = pkt.len_bytes() as u64;
        let fits = match self.limit {
            QueueLimit::Packets(n) => (self.q.len() as u64) < n as u64,
            QueueLimit::Bytes(b) => self.bytes + len <= b,
        };
        if !fits {
            return Enqueue::Dropped(DropReason::Overlimit, pkt);
        }
        pkt.stamp(now);
        self.bytes += len;
        self.q.push_back(pkt);
        Enqueue::Queued
    }

    #[inline]
    fn dequeue(&mut self, _now: Time, _cx: &mut QdiscCx<'_, P>) -> Option<Dequeued<P>> {
        let p = self.q.pop_front()?;
        self.bytes -= p.len_bytes() as u64;
        Some(Dequeued::plain(p))
    }

    #[inline]
    fn passes_through_when_empty(&self, len: u32) -> bool {
        self.is_empty() && self.fits_alone(len)
    }

    #[inline]
    fn pass_through_max_len(&self) -> Option<u32> {
        self.largest_alone()
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy { packets: self.q.len() as u32, bytes: self.bytes }
    }

    fn limit(&self) -> QueueLimit {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::super::testpkt::TestPkt;
    use super::*;
    use crate::rng::RngStream;

    fn cx<'a>(rng: &'a mut RngStream, v: &'a mut Vec<(TestPkt, DropReason)>) -> QdiscCx<'a, TestPkt> {
        QdiscCx { rng, dequeue_drops: v }
    }

    // tests drop-tail: drop the arriving packet when the packet limit is reached; FIFO order.
    #[test]
    fn packet_limit_drops_the_arrival() {
        let (mut rng, mut v) = (RngStream::from_seed(1), Vec::new());
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert!(matches!(q.enqueue(TestPkt::new(1, 100), Time(0), &mut cx(&mut rng, &mut v)), Enqueue::Queued));
        assert!(matches!(q.enqueue(TestPkt::new(2, 100), Time(1), &mut cx(&mut rng, &mut v)), Enqueue::Queued));
        match q.enqueue(TestPkt::new(3, 100), Time(2), &mut cx(&mut rng, &mut v)) {
            Enqueue::Dropped(DropReason::Overlimit, p) => assert_eq!(p.id, 3),
            other => panic!("expected a drop, got {other:?}"),
        }
        assert_eq!(q.occupancy(), Occupancy { packets: 2, bytes: 200 });
        let first = q.dequeue(Time(3), &mut cx(&mut rng, &mut v)).unwrap().pkt;
        assert_eq!((first.id, first.t), (1, Time(0)));
        assert_eq!(q.dequeue(Time(3), &mut cx(&mut rng, &mut v)).unwrap().pkt.id, 2);
        assert!(q.dequeue(Time(3), &mut cx(&mut rng, &mut v)).is_none());
    }

    // tests drop-tail: a byte limit admits a packet only if it fits entirely (Linux `bfifo`).
    #[test]
    fn byte_limit_checks_the_whole_packet() {
        let (mut rng, mut v) = (RngStream::from_seed(1), Vec::new());
        let mut q = DropTail::new(QueueLimit::Bytes(3000));
        assert!(matches!(q.enqueue(TestPkt::new(1, 1500), Time(0), &mut cx(&mut rng, &mut v)), Enqueue::Queued));
        assert!(matches!(q.enqueue(TestPkt::new(2, 1501), Time(0), &mut cx(&mut rng, &mut v)), Enqueue::Dropped(..)));
        assert!(matches!(q.enqueue(TestPkt::new(3, 1500), Time(0), &mut cx(&mut rng, &mut v)), Enqueue::Queued));
        assert_eq!(q.occupancy().bytes, 3000);
    }

    // tests when a packet may skip the queue (the engine's pass-through: an empty drop-tail
    // queue that would admit it): any packet with a packet limit, up to the limit's bytes with
    // a byte limit (a limit past 4 GiB caps at the largest length), and nothing once a packet
    // waits.
    #[test]
    fn an_empty_queue_passes_what_it_would_admit() {
        let (mut rng, mut v) = (RngStream::from_seed(1), Vec::new());
        let mut q = DropTail::<TestPkt>::new(QueueLimit::Packets(2));
        assert!(q.is_empty());
        assert!(q.passes_through_when_empty(65_535));
        assert_eq!(q.pass_through_max_len(), Some(u32::MAX));
        let _ = q.enqueue(TestPkt::new(1, 100), Time(0), &mut cx(&mut rng, &mut v));
        assert!(!q.is_empty());
        assert!(!q.passes_through_when_empty(100), "a packet waits");
        let b = DropTail::<TestPkt>::new(QueueLimit::Bytes(1500));
        assert!(b.passes_through_when_empty(1500));
        assert!(!b.passes_through_when_empty(1501));
        assert_eq!(b.pass_through_max_len(), Some(1500));
        assert_eq!(DropTail::<TestPkt>::new(QueueLimit::Bytes(10_000_000_000)).pass_through_max_len(), Some(u32::MAX));
        let none = DropTail::<TestPkt>::new(QueueLimit::Packets(0));
        assert!(!none.passes_through_when_empty(1));
        assert_eq!(none.pass_through_max_len(), None);
    }

    // tests the parameter checks (a zero limit of either unit names `limit`) and the ns-3
    // profile's default (`DropTailQueue`'s 100 packets; Linux `pfifo`'s 1000 otherwise).
    #[test]
    fn a_zero_limit_is_refused_and_ns3_defaults_to_100_packets() {
        let v = |l| DropTailConfig { limit: l }.validate().map_err(|e| e.field);
        assert_eq!(v(QueueLimit::Packets(0)), Err("limit"));
        assert_eq!(v(QueueLimit::Bytes(0)), Err("limit"));
        assert_eq!(v(QueueLimit::Packets(1)), Ok(()));
        assert_eq!(v(QueueLimit::Bytes(1)), Ok(()));
        assert_eq!(DropTailConfig::for_profile(Profile::Ns3_44).limit, QueueLimit::Packets(100));
        assert_eq!(DropTailConfig::for_profile(Profile::Sluice).limit, QueueLimit::Packets(1000));
    }
}
