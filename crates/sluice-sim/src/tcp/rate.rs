//! Delivery-rate sampling (draft-cheng-iccrg-delivery-rate-estimation; Linux `tcp_rate.c`,
//! ns-3 `TcpRateLinux`): each segment is stamped when sent with the connection's delivery
//! count and clock, and each ACK turns the newest stamp it delivers into a rate sample —
//! bytes delivered over `max(send elapsed, ACK elapsed)`.
//!
//! Kept only for a congestion control that asks for samples ([`super::cc::AnyCc::wants_rate_samples`]):
//! the stamps live here, beside the scoreboard, in their own ring, so the scoreboard's segments
//! (and every other algorithm's ACKs) carry nothing for it.

use sluice_core::{Dur, Time};
use std::collections::VecDeque;

/// The send-time stamps of one outstanding segment (the draft's `P.delivered`, …).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Stamp {
    start: u64,
    end: u64,
    /// The connection's `delivered` when the segment (last) left.
    delivered: u64,
    /// The connection's `delivered_time` then.
    delivered_time: Time,
    /// The connection's `first_sent_time` then.
    first_sent_time: Time,
    /// When it (last) left.
    sent_time: Time,
    is_app_limited: bool,
    /// Already counted delivered (SACKed before its cumulative ACK).
    done: bool,
}

/// One ACK's rate sample (the draft's `rs`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Bytes delivered over the interval (`delivered − prior_delivered`); 0 when invalid.
    pub delivered: u64,
    /// `max(send_elapsed, ack_elapsed)`; zero when the sample is invalid (no stamp delivered
    /// yet, or an interval shorter than the minimum RTT).
    pub interval: Dur,
    /// The connection's `delivered` when the sample's reference segment left.
    pub prior_delivered: u64,
    /// The reference segment left while the sender was application-limited.
    pub is_app_limited: bool,
    /// Bytes this ACK newly acknowledged or SACKed.
    pub acked_sacked: u64,
    /// Bytes this ACK's SACK information newly marked lost.
    pub lost: u64,
    /// Bytes in flight before the ACK.
    pub prior_in_flight: u64,
}

impl RateSample {
    /// Whether it carries a delivery rate.
    pub fn valid(&self) -> bool {
        self.interval > Dur::ZERO
    }

    /// The delivery rate, bit/s (0 when invalid).
    pub fn rate_bps(&self) -> u64 {
        if !self.valid() {
            return 0;
        }
        // In 64 bits below 2.3 GB delivered per sample, else in 128 (same value).
        match self.delivered.checked_mul(8_000_000_000) {
            Some(bits_ns) => bits_ns / self.interval.0,
            None => (self.delivered as u128 * 8_000_000_000 / self.interval.0 as u128).min(u64::MAX as u128) as u64,
        }
    }
}

/// The connection's rate state (the draft's `C.delivered`, …) and the stamps of the outstanding
/// segments.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// Bytes delivered (acknowledged or SACKed) so far.
    pub delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    /// Nonzero while application-limited: the `delivered` mark the bubble ends at.
    pub app_limited: u64,
    stamps: VecDeque<Stamp>,
    /// Ranges whose stamps are all delivered by SACKs (a delivery is for good), so a SACK
    /// block reported again is not walked again.
    sacked: super::scoreboard::KnownRanges,
    // The sample being built from this ACK's deliveries: the reference segment's stamps (the
    // draft's and Linux's per-ACK `rs`; an ACK that delivers nothing gives no sample).
    prior_delivered: u64,
    prior_time: Option<Time>,
    send_elapsed: Dur,
    ack_elapsed: Dur,
    is_app_limited: bool,
    /// `delivered` at the start of the ACK being processed.
    ack_start: u64,
    /// ns-3's reading (`TcpRateLinux` keeps its sample between ACKs): the reference segment
    /// carries over to later ACKs until one delivers a segment sent later, and an ACK that
    /// delivers nothing repeats the last sample.
    pub keep_between_acks: bool,
    /// Bytes in flight as ns-3 last recounted them, once a duplicate ACK's emulated SACK mark
    /// has lowered them since (`Ns3Compat::cc_sees_reno_mark` off): what its `CongControl`
    /// reads. Cleared when the next segment leaves (ns-3 recounts then) and at each ACK.
    pub ns3_in_flight: Option<u64>,
}

impl RateSampler {
    /// A sampler; `keep_between_acks`: ns-3's reading (see the field).
    pub fn new(keep_between_acks: bool) -> RateSampler {
        RateSampler { keep_between_acks, ..RateSampler::default() }
    }

    /// A segment `[start, end)` leaves (first time or again); `idle`: nothing was in flight
    /// (the draft restarts the sampling clocks then).
    pub fn on_send(&mut self, start: u64, end: u64, idle: bool, now: Time) {
        self.ns3_in_flight = None;
        if idle {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let st = Stamp {
            start,
            end,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            sent_time: now,
            is_app_limited: self.app_limited != 0,
            done: false,
        };
        match self.stamps.back() {
            Some(b) if b.end > start => {
                // A retransmission: restamp what it covers.
                let i = super::scoreboard::seq_partition(&self.stamps, start, |s| (s.start, s.end), |s| s.end <= start);
                for s in self.stamps.range_mut(i..) {
                    if s.start >= end {
                        break;
                    }
                    if !s.done {
                        *s = Stamp {
                            start: s.start,
                            end: s.end,
                            ..st
                        };
                    }
                }
            }
            _ => self.stamps.push_back(st),
        }
    }

    /// Start of an ACK's processing.
    pub fn begin_ack(&mut self) {
        self.ack_start = self.delivered;
        self.ns3_in_flight = None;
        if !self.keep_between_acks {
            self.prior_time = None;
            self.prior_delivered = 0;
        }
    }

    fn deliver(&mut self, i: usize, now: Time) {
        let s = self.stamps[i];
        if s.done {
            return;
        }
        self.stamps[i].done = true;
        self.delivered += s.end - s.start;
        self.delivered_time = now;
        // The newest-sent segment this ACK delivers is the sample's reference (draft:
        // `P.delivered > rs.prior_delivered`, the ACK's first delivered segment in any case;
        // ns-3: also any segment while the kept reference is the initial 0).
        let first = if self.keep_between_acks { self.prior_delivered == 0 } else { self.prior_time.is_none() };
        if first || s.delivered > self.prior_delivered {
            self.prior_delivered = s.delivered;
            self.prior_time = Some(s.delivered_time);
            self.is_app_limited = s.is_app_limited;
            self.send_elapsed = s.sent_time.since(s.first_sent_time);
            self.ack_elapsed = now.since(s.delivered_time);
            self.first_sent_time = s.sent_time;
        }
    }

    /// `[l, r)` was newly SACKed: the segments inside it are delivered.
    pub fn on_sacked(&mut self, l: u64, r: u64, now: Time) {
        let l = self.sacked.skip(l);
        if l >= r {
            // Delivered already, whole (a block reported again).
            return;
        }
        let mut i = super::scoreboard::seq_partition(&self.stamps, l, |s| (s.start, s.end), |s| s.start < l);
        let lo = self.stamps.get(i).map_or(r, |s| s.start);
        while i < self.stamps.len() && self.stamps[i].end <= r {
            self.deliver(i, now);
            i += 1;
        }
        // Stamps lo.. up to (not including) i are delivered, whole.
        if let Some(hi) = i.checked_sub(1).and_then(|j| self.stamps.get(j)).map(|s| s.end).filter(|&hi| lo < hi) {
            self.sacked.note(lo, hi);
        }
    }

    /// The cumulative ACK moved to `ack`: every segment below it is delivered and forgotten.
    pub fn on_acked(&mut self, ack: u64, now: Time) {
        while self.stamps.front().is_some_and(|s| s.end <= ack) {
            self.deliver(0, now);
            self.stamps.pop_front();
        }
    }

    /// The ACK's sample, after its deliveries (draft "upon receiving ACK", ns-3
    /// `GenerateSample`): invalid without a delivered stamp, or when the interval is shorter
    /// than `min_rtt` (a compressed ACK train would overstate the rate).
    pub fn sample(&mut self, lost: u64, prior_in_flight: u64, min_rtt: Option<Dur>) -> RateSample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let mut rs = RateSample {
            acked_sacked: self.delivered - self.ack_start,
            lost,
            prior_in_flight,
            prior_delivered: self.prior_delivered,
            is_app_limited: self.is_app_limited,
            ..RateSample::default()
        };
        if self.prior_time.is_none() {
            return rs;
        }
        let interval = self.send_elapsed.max(self.ack_elapsed);
        if min_rtt.is_some_and(|m| interval < m) || interval == Dur::ZERO {
            // ns-3 zeroes the kept reference's time (`m_priorTime`), so its later ACKs give no
            // sample either until one delivers a segment sent after the reference.
            if self.keep_between_acks {
                self.prior_time = None;
            }
            return rs;
        }
        rs.interval = interval;
        rs.delivered = self.delivered - self.prior_delivered;
        rs
    }

    /// The sender has less than a segment to send and room in cwnd with no lost segment
    /// waiting: mark the connection application-limited until what is in flight now is
    /// delivered (draft "application-limited", ns-3 `CalculateAppLimited`).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// The connection's sampling clocks, (`first_sent_time`, `delivered_time`).
    #[cfg(test)]
    pub(crate) fn clocks(&self) -> (Time, Time) {
        (self.first_sent_time, self.delivered_time)
    }

    #[cfg(test)]
    fn outstanding(&self) -> usize {
        self.stamps.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    // tests the sampler on a hand trace (draft-cheng-iccrg-delivery-rate-estimation): four
    // 1000-B segments leave 1 ms apart from idle at t = 0 (each stamped delivered 0,
    // delivered_time 0, first_sent 0); ACKs arrive from t = 50 ms, 1 ms apart.
    //   ACK of seg 1 at 50 ms: reference seg 1 (sent 0): send_elapsed 0, ack_elapsed 50 ms,
    //     delivered 1000 − 0 → 1000 B / 50 ms = 160 kb/s.
    //     first_sent moves to seg 1's send time, 0.
    //   ACK of seg 2 at 51 ms: reference seg 2 (sent 1 ms, stamped delivered 0): send_elapsed
    //     1 − 0 = 1 ms, ack_elapsed 51 − 0 = 51 ms → 2000 B / 51 ms = 313,725 b/s; first_sent
    //     moves to 1 ms.
    //   Seg 5 leaves at 51 ms stamped delivered 2000, delivered_time 51 ms, first_sent 1 ms.
    //   SACK of seg 5 at 100 ms (segs 3, 4 still out): reference seg 5: send_elapsed 51 − 1 =
    //     50 ms, ack_elapsed 100 − 51 = 49 ms → interval 50 ms, delivered 3000 − 2000 = 1000.
    //   ACK of 3 and 4 at 101 ms: reference seg 3 (sent 2 ms, delivered 0, first_sent 0):
    //     5000 B over max(2, 101) = 101 ms.
    // The rate in bit/s, delivered·8·10⁹ / interval: 2·10⁹ B over 1 s is 16·10⁹ b/s (the
    // product 1.6·10¹⁹ fits 64 bits); 3·10⁹ B over 1 s, 24·10⁹ b/s (2.4·10¹⁹ does not); 1500 B
    // over 3 ns, 4·10¹² b/s (12·10¹² / 3).
    #[test]
    fn rate_bps_is_exact_on_both_sides_of_64_bits() {
        let s = |delivered: u64, ns: u64| RateSample { delivered, interval: Dur(ns), ..RateSample::default() };
        assert_eq!(s(2_000_000_000, 1_000_000_000).rate_bps(), 16_000_000_000);
        assert_eq!(s(3_000_000_000, 1_000_000_000).rate_bps(), 24_000_000_000);
        assert_eq!(s(1500, 3).rate_bps(), 4_000_000_000_000);
        assert_eq!(s(1500, 0).rate_bps(), 0, "an invalid sample has no rate");
    }

    #[test]
    fn rate_samples_follow_the_hand_trace() {
        let mut r = RateSampler::default();
        for k in 0..4u64 {
            r.on_send(1 + k * 1000, 1 + (k + 1) * 1000, k == 0, Time(k * MS));
        }
        r.begin_ack();
        r.on_acked(1001, Time(50 * MS));
        let s = r.sample(0, 4000, Some(Dur(40 * MS)));
        assert_eq!(
            (s.delivered, s.interval, s.prior_delivered, s.acked_sacked),
            (1000, Dur(50 * MS), 0, 1000)
        );
        assert_eq!(s.rate_bps(), 160_000);
        r.begin_ack();
        r.on_acked(2001, Time(51 * MS));
        let s = r.sample(0, 3000, Some(Dur(40 * MS)));
        assert_eq!(
            (s.delivered, s.interval, s.rate_bps()),
            (2000, Dur(51 * MS), 313_725)
        );
        r.on_send(4001, 5001, false, Time(51 * MS));
        r.begin_ack();
        r.on_sacked(4001, 5001, Time(100 * MS));
        let s = r.sample(0, 3000, Some(Dur(40 * MS)));
        assert_eq!(
            (s.delivered, s.interval, s.prior_delivered, s.acked_sacked),
            (1000, Dur(50 * MS), 2000, 1000)
        );
        // The SACKed segment is not counted again when the cumulative ACK covers it: only
        // segs 3 and 4 are new.
        r.begin_ack();
        r.on_acked(5001, Time(101 * MS));
        assert_eq!(r.delivered, 5000);
        let s = r.sample(0, 0, None);
        assert_eq!(
            (s.acked_sacked, s.delivered, s.interval),
            (2000, 5000, Dur(101 * MS))
        );
        assert_eq!(r.outstanding(), 0);
        // An interval below the minimum RTT gives no rate (101 ms < 120 ms); nor does an ACK
        // that delivers nothing.
        assert!(!r.sample(0, 0, Some(Dur(120 * MS))).valid());
        r.begin_ack();
        assert!(!r.sample(0, 0, None).valid());
    }

    // A SACK block reported again delivers nothing more; one that grows delivers only what it
    // adds; one that starts inside a segment delivers only the segments it holds whole. Ten
    // segments of 1000 B from offset 1 (segment k = [1 + 1000k, 1001 + 1000k)):
    //   [2001, 4001): segments 2, 3 → 2000 B;   the same block again → 0;
    //   [2001, 6001): segments 4, 5 → 2000 B;   [2500, 7001): segment 6 only → 1000 B;
    //   [8001, 9001): segment 8 → 1000 B;       [2001, 10001): segments 7 and 9 → 2000 B.
    #[test]
    fn sack_blocks_deliver_each_segment_once() {
        let mut r = RateSampler::default();
        for k in 0..10u64 {
            r.on_send(1 + k * 1000, 1 + (k + 1) * 1000, k == 0, Time(k * MS));
        }
        let mut step = |l: u64, rr: u64| {
            let before = r.delivered;
            r.on_sacked(l, rr, Time(100 * MS));
            r.delivered - before
        };
        assert_eq!(step(2001, 4001), 2000);
        assert_eq!(step(2001, 4001), 0);
        assert_eq!(step(2001, 6001), 2000);
        assert_eq!(step(2500, 7001), 1000);
        assert_eq!(step(8001, 9001), 1000);
        assert_eq!(step(2001, 10001), 2000);
    }

    // tests application-limited marking: with 2000 B delivered and 1000 B in flight the bubble
    // ends at 3000; segments sent inside it carry the flag into their samples, and the mark
    // clears once delivered passes 3000 (at 4000 here, after the ACK of the app-limited segment).
    #[test]
    fn app_limited_marks_samples_until_the_bubble_is_delivered() {
        let mut r = RateSampler::default();
        r.on_send(1, 1001, true, Time(0));
        r.on_send(1001, 2001, false, Time(0));
        r.begin_ack();
        r.on_acked(2001, Time(50 * MS));
        assert!(!r.sample(0, 2000, None).is_app_limited);
        r.on_send(2001, 3001, true, Time(50 * MS));
        r.mark_app_limited(1000);
        assert_eq!(r.app_limited, 3000);
        r.on_send(3001, 4001, false, Time(51 * MS));
        r.begin_ack();
        r.on_acked(3001, Time(100 * MS));
        // Reference: seg 3, sent before the mark (2000 B delivered over max(0, 50) ms).
        let s = r.sample(0, 2000, None);
        assert!(!s.is_app_limited);
        assert_eq!(r.app_limited, 3000, "delivered 3000 is not past the mark");
        r.begin_ack();
        r.on_acked(4001, Time(101 * MS));
        let s = r.sample(0, 1000, None);
        assert!(s.is_app_limited, "seg 4 left inside the bubble");
        assert_eq!(r.app_limited, 0, "delivered 4000 > 3000 clears it");
        // seg 4: delivered 2000 at send, so 2000 B over max(51 − 50, 101 − 50) = 51 ms.
        assert_eq!((s.delivered, s.interval), (2000, Dur(51 * MS)));
    }

    // tests a retransmission restamps the segment: after a timeout at 300 ms the lost segment
    // leaves again from idle (first_sent, delivered_time = 300 ms); its ACK at 340 ms gives
    // 1000 B over 40 ms = 200 kb/s, not an interval from the original send.
    #[test]
    fn a_retransmission_is_sampled_from_its_new_send_time() {
        let mut r = RateSampler::default();
        r.on_send(1, 1001, true, Time(0));
        r.on_send(1, 1001, true, Time(300 * MS));
        r.begin_ack();
        r.on_acked(1001, Time(340 * MS));
        let s = r.sample(0, 1000, None);
        assert_eq!(
            (s.delivered, s.interval, s.rate_bps()),
            (1000, Dur(40 * MS), 200_000)
        );
    }

    // tests the reference segment of an ACK that delivers several: the one sent last (highest
    // `delivered` at its send; the draft's `P.delivered > rs.prior_delivered`), not the first
    // delivered. Segs 1, 2 leave at 0 from idle; seg 1's ACK at 50 ms (delivered 1000,
    // delivered_time 50 ms, first_sent 0); seg 3 leaves at 50 ms stamped delivered 1000,
    // delivered_time 50 ms, first_sent 0. One ACK at 100 ms covers segs 2 and 3: seg 2 (stamped
    // delivered 0) is taken first, then seg 3 replaces it: 3000 − 1000 = 2000 B over
    // max(50 − 0, 100 − 50) = 50 ms, 320 kb/s. Keeping seg 2 would give 3000 B over 100 ms.
    #[test]
    fn the_segment_sent_last_is_the_reference_of_an_ack() {
        let mut r = RateSampler::default();
        r.on_send(1, 1001, true, Time(0));
        r.on_send(1001, 2001, false, Time(0));
        r.begin_ack();
        r.on_acked(1001, Time(50 * MS));
        r.on_send(2001, 3001, false, Time(50 * MS));
        r.begin_ack();
        r.on_acked(3001, Time(100 * MS));
        // The loss and the flight before the ACK pass through to the sample (BBR reads both).
        let s = r.sample(1448, 2000, None);
        assert_eq!((s.prior_delivered, s.delivered, s.interval, s.rate_bps()), (1000, 2000, Dur(50 * MS), 320_000));
        assert_eq!((s.lost, s.prior_in_flight), (1448, 2000));
    }

    // tests that a retransmission covering two stamps restamps each in place, keeping its own
    // range: segs [1, 1001) and [1001, 2001) leave at 0, then go again as one 2000-B segment at
    // 300 ms (from idle). The ACK of the first 1000 B at 340 ms delivers exactly the first
    // stamp: 1000 B over 40 ms, 200 kb/s, one stamp left; the ACK of the rest delivers it.
    #[test]
    fn a_retransmission_over_two_stamps_keeps_their_ranges() {
        let mut r = RateSampler::default();
        r.on_send(1, 1001, true, Time(0));
        r.on_send(1001, 2001, false, Time(0));
        r.on_send(1, 2001, true, Time(300 * MS));
        assert_eq!(r.outstanding(), 2);
        r.begin_ack();
        r.on_acked(1001, Time(340 * MS));
        let s = r.sample(0, 2000, None);
        assert_eq!((r.delivered, r.outstanding()), (1000, 1));
        assert_eq!((s.delivered, s.interval, s.rate_bps()), (1000, Dur(40 * MS), 200_000));
        r.begin_ack();
        r.on_acked(2001, Time(341 * MS));
        assert_eq!((r.delivered, r.outstanding()), (2000, 0));
    }
}

#[cfg(test)]
mod tests_ns3 {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Segs 1–2 leave at 0 and are acknowledged at 50 ms (delivered 2000, first_sent 0); segs
    /// 3 and 4 leave at 50 and 51 ms stamped delivered 2000, delivered_time 50 ms, first_sent 0.
    fn two_delivered_two_more_sent(keep: bool) -> RateSampler {
        let mut r = RateSampler::new(keep);
        r.on_send(1, 1001, true, Time(0));
        r.on_send(1001, 2001, false, Time(0));
        r.begin_ack();
        r.on_acked(2001, Time(50 * MS));
        r.on_send(2001, 3001, false, Time(50 * MS));
        r.on_send(3001, 4001, false, Time(51 * MS));
        r
    }

    // tests ns-3's reading (`keep_between_acks`: `TcpRateLinux` keeps its sample between ACKs),
    // from `two_delivered_two_more_sent`.
    //   Seg 3's ACK at 100 ms: reference seg 3: max(50 − 0, 100 − 50) = 50 ms, 1000 B: 160 kb/s.
    //   Seg 4's ACK at 101 ms: the draft's per-ACK sample takes seg 4: max(51 − 0, 101 − 50) =
    //   51 ms for 4000 − 2000 = 2000 B, 313,725 b/s; ns-3 keeps seg 3 (seg 4's delivered 2000 is
    //   not above the kept 2000): 2000 B over seg 3's 50 ms, 320 kb/s. An ACK that delivers
    //   nothing then repeats ns-3's sample and gives none in the draft's.
    #[test]
    fn ns3_keeps_the_reference_between_acks() {
        for (keep, want) in [(false, (2000, Dur(51 * MS), 313_725)), (true, (2000, Dur(50 * MS), 320_000))] {
            let mut r = two_delivered_two_more_sent(keep);
            r.begin_ack();
            r.on_acked(3001, Time(100 * MS));
            assert_eq!(r.sample(0, 2000, None).rate_bps(), 160_000);
            r.begin_ack();
            r.on_acked(4001, Time(101 * MS));
            let s = r.sample(0, 1000, None);
            assert_eq!((s.delivered, s.interval, s.rate_bps()), want, "keep {keep}");
            r.begin_ack();
            assert_eq!(r.sample(0, 0, None).valid(), keep);
        }
    }

    // tests ns-3's invalid sample (`GenerateSample` zeroes `m_priorTime` when the interval is
    // below the minimum RTT), from `two_delivered_two_more_sent` and seg 5 leaving at 52 ms
    // with the same stamps as segs 3 and 4.
    //   Seg 3's ACK at 100 ms, minimum RTT 60 ms: interval max(50 − 0, 100 − 50) = 50 ms < 60:
    //   no sample in either reading.
    //   Seg 4's ACK at 101 ms, minimum RTT 45 ms: the draft's sample takes seg 4 (51 ms for
    //   2000 B, 313,725 b/s); ns-3 keeps seg 3 as reference (seg 4's delivered 2000 is not
    //   above it) with its time zeroed: still no sample.
    //   Seg 6 leaves at 101 ms stamped delivered 4000, delivered_time 101 ms, and first_sent
    //   the reference's send time: 51 ms (seg 4) in the draft, 50 ms (seg 3) in ns-3. The ACK
    //   of segs 5 and 6 at 150 ms makes seg 6, stamped later, the reference in both readings:
    //   2000 B over max(101 − first_sent, 150 − 101): 50 ms, 320 kb/s (draft); 51 ms, 313,725
    //   b/s (ns-3): a sample again.
    #[test]
    fn ns3_invalid_sample_stays_invalid_until_a_later_reference() {
        for keep in [false, true] {
            let mut r = two_delivered_two_more_sent(keep);
            r.on_send(4001, 5001, false, Time(52 * MS));
            r.begin_ack();
            r.on_acked(3001, Time(100 * MS));
            assert!(!r.sample(0, 3000, Some(Dur(60 * MS))).valid(), "keep {keep}");
            r.begin_ack();
            r.on_acked(4001, Time(101 * MS));
            let s = r.sample(0, 2000, Some(Dur(45 * MS)));
            if keep {
                assert!(!s.valid(), "ns-3: the zeroed reference gives no sample");
            } else {
                assert_eq!((s.delivered, s.interval, s.rate_bps()), (2000, Dur(51 * MS), 313_725));
            }
            r.on_send(5001, 6001, false, Time(101 * MS));
            r.begin_ack();
            r.on_acked(6001, Time(150 * MS));
            let s = r.sample(0, 2000, Some(Dur(45 * MS)));
            let want = if keep { (2000, Dur(51 * MS), 313_725) } else { (2000, Dur(50 * MS), 320_000) };
            assert_eq!((s.delivered, s.interval, s.rate_bps()), want, "keep {keep}");
        }
    }
}
