//! Link emulation the kernel cannot do here (no netem): a rate shaper and a delay line.
//!
//! The shaper is a virtual clock: while the queue is backlogged, a frame of `b` bytes started
//! at the link's free time ends `b·8/rate` later, and the free time is kept as bytes sent since
//! the link last went idle, so rounding never accumulates: after `B` bytes of one busy period
//! the link is free at `origin + round(B·8·10⁹/rate)` ns, exact to the nanosecond whatever the
//! number of frames. A frame arriving at an idle link restarts the clock at its arrival.
//!
//! The delay line holds each frame from the end of its serialization until `delay` later, in
//! FIFO order (the delay is fixed and serialization ends in order, so due times never decrease).

use crate::packet::GwPkt;
use sluice_core::{Dur, Rate, Time};
use std::collections::VecDeque;

/// A rate shaper (module doc). `rate = None` shapes nothing: every frame ends when it starts.
#[derive(Clone, Debug)]
pub struct Shaper {
    rate: Option<Rate>,
    /// Start of the current busy period, and bytes sent in it.
    origin: Time,
    bytes: u64,
    /// When the link is free (the end of the last frame started).
    free_at: Time,
    /// Link time given up after stalls longer than [`MAX_CATCH_UP`] (ns).
    pub lost_ns: u64,
}

impl Shaper {
    pub fn new(rate: Option<Rate>) -> Shaper {
        Shaper { rate, origin: Time::ZERO, bytes: 0, free_at: Time::ZERO, lost_ns: 0 }
    }

    /// When the link can start the next frame.
    #[inline]
    pub fn free_at(&self) -> Time {
        self.free_at
    }

    /// A frame is to start at `now` or at the free time, whichever is later: if the link went
    /// idle before `now`, a new busy period starts at `now`.
    #[inline]
    fn resume(&mut self, now: Time) {
        if self.free_at < now {
            self.origin = now;
            self.bytes = 0;
            self.free_at = now;
        }
    }

    /// The link is idle and a frame arrives at `now`: the next frame may start no earlier.
    #[inline]
    pub fn on_arrival_idle(&mut self, now: Time) {
        self.resume(now);
    }

    /// Start a frame of `bytes` (on the wire) at the free time, which is at or before `now`
    /// while the queue is backlogged; returns when its last bit leaves.
    #[inline]
    pub fn start(&mut self, bytes: u64) -> Time {
        let Some(rate) = self.rate else { return self.free_at };
        self.bytes += bytes;
        self.free_at = self.origin + rate.tx_time(self.bytes);
        self.free_at
    }

    /// [`Shaper::start`] for a frame dequeued at `now` from a backlogged queue. A loop that ran
    /// late starts it at the free time in the past (the link was busy all along), so the rate
    /// holds over time; but a stall longer than [`MAX_CATCH_UP`] is not made up for in a burst:
    /// the link restarts at `now`.
    #[inline]
    pub fn start_at(&mut self, now: Time, bytes: u64) -> Time {
        if self.rate.is_none() {
            self.free_at = self.free_at.max(now);
            return now;
        }
        if self.free_at.0 + MAX_CATCH_UP.0 < now.0 {
            self.lost_ns += now.0 - self.free_at.0;
            self.resume(now);
        }
        self.start(bytes)
    }
}

/// The longest lateness the shaper makes up for (2 ms: a scheduling hiccup, not a stall).
pub const MAX_CATCH_UP: Dur = Dur::from_millis(2);

/// The fixed delay after serialization.
#[derive(Debug)]
pub struct DelayLine {
    delay: Dur,
    q: VecDeque<(Time, GwPkt)>,
}

impl DelayLine {
    /// Room for `capacity` frames, allocated now.
    pub fn new(delay: Dur, capacity: usize) -> DelayLine {
        DelayLine { delay, q: VecDeque::with_capacity(capacity) }
    }

    pub fn delay(&self) -> Dur {
        self.delay
    }

    /// A frame whose serialization ended at `end`: due `delay` later, less `already_ns`, the
    /// time it had waited in the receive ring before the gateway saw it (the kernel's receive
    /// timestamp is when it reached the gateway, and the delay emulates propagation from
    /// there). Never reordered: a frame is not due before the one ahead of it.
    #[inline]
    pub fn push(&mut self, end: Time, already_ns: u64, p: GwPkt) {
        let due = end + Dur(self.delay.0.saturating_sub(already_ns));
        let due = self.q.back().map_or(due, |&(t, _)| due.max(t));
        self.q.push_back((due, p));
    }

    /// The next frame's due time.
    #[inline]
    pub fn next_due(&self) -> Option<Time> {
        self.q.front().map(|&(t, _)| t)
    }

    /// The head frame if it is due at `now`.
    #[inline]
    pub fn pop_due(&mut self, now: Time) -> Option<GwPkt> {
        match self.q.front() {
            Some(&(t, _)) if t <= now => self.q.pop_front().map(|(_, p)| p),
            _ => None,
        }
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::FrameKind;
    use sluice_core::packet::Ecn;

    // 1514-byte frames at 100 Mb/s take 121,120 ns each (80 ns per byte), back to back from the
    // first arrival at 1 ms: the n-th ends at 1 ms + n·121,120 ns.
    #[test]
    fn backlogged_frames_leave_back_to_back() {
        let mut s = Shaper::new(Some(Rate::mbps(100)));
        let t0 = Time(1_000_000);
        s.on_arrival_idle(t0);
        let mut ends = Vec::new();
        for _ in 0..3 {
            // The loop may run late: starting at the free time, not at `now`.
            ends.push(s.start(1514));
        }
        assert_eq!(ends, [Time(1_121_120), Time(1_242_240), Time(1_363_360)]);
    }

    // At 3 Mb/s one byte takes 2666.67 ns: frame by frame rounding would drift by 1/3 ns per
    // frame; over 3,000,000 one-byte frames (8 s at 3 Mb/s... 24 Mbit / 3 Mb/s = 8 s) the clock
    // ends at exactly 8 s after the origin.
    #[test]
    fn the_clock_is_exact_over_a_busy_period() {
        let mut s = Shaper::new(Some(Rate::bps(3_000_000)));
        s.on_arrival_idle(Time(5));
        let mut end = Time::ZERO;
        for _ in 0..3_000_000 {
            end = s.start(1);
        }
        assert_eq!(end, Time(5 + 8_000_000_000));
    }

    // An idle link restarts its clock at the next arrival; a late dequeue of a backlogged queue
    // does not.
    #[test]
    fn idle_restarts_the_clock() {
        let mut s = Shaper::new(Some(Rate::mbps(100)));
        s.on_arrival_idle(Time(0));
        assert_eq!(s.start(100), Time(8_000));
        // Dequeued at 5 µs, before the link is free: the frame starts at 8 µs.
        assert_eq!(s.start_at(Time(5_000), 100), Time(16_000));
        // Dequeued at 1 ms, late but within the catch-up: it starts at 16 µs, back to back.
        assert_eq!(s.start_at(Time(1_000_000), 100), Time(24_000));
        // Dequeued at 3 ms, a stall beyond 2 ms of catch-up: it starts then.
        assert_eq!(s.start_at(Time(3_000_000), 100), Time(3_008_000));
        // An arrival at an idle link restarts the clock too.
        s.on_arrival_idle(Time(5_000_000));
        assert_eq!(s.start(100), Time(5_008_000));
    }

    fn pkt(slot: u32) -> GwPkt {
        GwPkt { slot, frame_len: 60, kind: FrameKind::Other, ip_len: 46, t: Time::ZERO, ring_wait_ns: 0, ecn: Ecn::NotEct, ce: false, hash: 0, seen: None }
    }

    // 20 ms delay: a frame ending at 1 ms is due at 21 ms; one that waited 300 µs in the ring
    // is due 300 µs sooner, but never before the frame ahead of it.
    #[test]
    fn delay_counts_the_ring_wait_and_keeps_order() {
        let mut d = DelayLine::new(Dur::from_millis(20), 4);
        d.push(Time(1_000_000), 0, pkt(1));
        d.push(Time(1_100_000), 300_000, pkt(2));
        d.push(Time(2_000_000), 300_000, pkt(3));
        assert_eq!(d.next_due(), Some(Time(21_000_000)));
        assert_eq!(d.pop_due(Time(20_999_999)), None);
        assert_eq!(d.pop_due(Time(21_000_000)).map(|p| p.slot), Some(1));
        // 1.1 ms + 20 ms − 0.3 ms = 20.8 ms < 21 ms: held to 21 ms.
        assert_eq!(d.next_due(), Some(Time(21_000_000)));
        assert_eq!(d.pop_due(Time(21_000_000)).map(|p| p.slot), Some(2));
        assert_eq!(d.next_due(), Some(Time(21_700_000)));
        assert_eq!(d.pop_due(Time(21_699_999)), None);
    }
}
