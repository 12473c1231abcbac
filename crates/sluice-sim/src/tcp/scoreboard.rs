//! The sender's record of outstanding segments: SACK, loss and retransmission marks, and the
//! RFC 6675 `pipe` kept incrementally.
//!
//! Segments cover `[snd_una, snd_max)` in order, as sent (a retransmission reuses the original
//! boundaries, unless [`Scoreboard::merge_next`] first lengthens a short one). Invariant (checked by [`Scoreboard::check`] in tests):
//! `pipe = outstanding − sacked − lost + retrans`, where `lost` and `retrans` count only un-SACKed
//! bytes — i.e. RFC 6675's pipe: an un-SACKed octet counts once if not lost, once more if
//! retransmitted.

use sluice_core::Time;
use std::collections::VecDeque;

/// `v.partition_point(pred)` for ranges `[start, end)` sorted by sequence number (`span`), where
/// `pred` holds below sequence number `at` and not above it. The first probe is where `at`
/// would fall if the ranges were of one size (they mostly are: segments), then a gallop from
/// it and a binary search inside the bracket it finds: the same index as `partition_point`,
/// in one or two probes near the answer instead of a dozen across the deque (the searches
/// run on state last touched a round trip ago, so each probe is a cache miss).
pub(crate) fn seq_partition<T>(v: &VecDeque<T>, at: u64, span: impl Fn(&T) -> (u64, u64), pred: impl Fn(&T) -> bool) -> usize {
    let n = v.len();
    let (Some(first), Some(last)) = (v.front(), v.back()) else { return 0 };
    let (lo_seq, hi_seq) = (span(first).0, span(last).1);
    let guess = if at <= lo_seq || hi_seq <= lo_seq {
        0
    } else {
        // (at − lo)·n / (hi − lo), in 64 bits when the product fits (always, for a window of
        // less than 4 GB of small segments), else in 128.
        let (d, span) = (at - lo_seq, hi_seq - lo_seq);
        match d.checked_mul(n as u64) {
            Some(p) => (p / span).min(n as u64) as usize,
            None => (d as u128 * n as u128 / span as u128).min(n as u128) as usize,
        }
    };
    // Bracket the answer in [lo, hi].
    let (mut lo, mut hi);
    if guess < n && pred(&v[guess]) {
        (lo, hi) = (guess + 1, n);
        let mut step = 1;
        while lo + step - 1 < n {
            let probe = lo + step - 1;
            if pred(&v[probe]) {
                lo = probe + 1;
                step *= 2;
            } else {
                hi = probe;
                break;
            }
        }
    } else {
        (lo, hi) = (0, guess);
        let mut step = 1;
        while step <= hi {
            let probe = hi - step;
            if pred(&v[probe]) {
                lo = probe + 1;
                break;
            }
            hi = probe;
            step *= 2;
        }
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(&v[mid]) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Seg {
    pub start: u64,
    pub end: u64,
    pub sacked: bool,
    pub lost: bool,
    /// Retransmitted since it was last marked lost.
    pub retrans: bool,
    /// Ever retransmitted (Karn: no RTT sample from it).
    pub ever_retrans: bool,
    pub sent_at: Time,
}

impl Seg {
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// `repr(C)`: the pipe counters and the ring's header first, in one 64-byte block (all an ACK
/// without loss or SACK reads), then the loss-recovery fields.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct Scoreboard {
    pub sacked_bytes: u64,
    pub lost_bytes: u64,
    pub retrans_bytes: u64,
    /// SACKed bytes of segments retransmitted since last marked lost (ns-3 keeps counting
    /// them in flight until they are cumulatively acknowledged).
    pub sacked_retrans_bytes: u64,
    segs: VecDeque<Seg>,
    /// Un-SACKed bytes both lost and retransmitted (a NextSeg rule (3) or (4) retransmission
    /// is retransmitted without being lost, so `retrans_bytes` alone does not say how many
    /// lost bytes still wait).
    lost_retrans_bytes: u64,
    /// Highest SACKed offset + 1 (0 if none).
    pub high_sacked: u64,
    /// Every un-SACKed segment below this offset is already marked lost (RFC 6675 IsLost is
    /// monotone: once lost, a segment stays lost until acknowledged).
    lost_frontier: u64,
    /// No segment below this offset is waiting for a retransmission.
    rexmit_hint: u64,
    /// No segment below this offset is a NextSeg rule (3) hole (a segment stops being one for
    /// good once SACKed, lost or retransmitted, so the search never needs to look below).
    hole_hint: u64,
    /// Ranges recently marked SACKed, so a block reported again is not walked again.
    known: KnownRanges,
}

/// Up to four ranges of sequence space whose whole segments are known to be SACKed already
/// (the scoreboard's marks, the rate sampler's deliveries): a SACK block mostly repeats what
/// earlier ACKs reported and grows at its top, so a block is walked from the end of the range
/// that holds its start. Each range's edges are segment edges, so a block that skips to one
/// misses no segment it holds whole.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct KnownRanges([(u64, u64); 4]);

impl KnownRanges {
    /// Where a block starting at `l` needs walking from.
    #[inline]
    pub fn skip(&self, mut l: u64) -> u64 {
        for &(kl, kr) in &self.0 {
            if kl <= l && l < kr {
                l = kr;
            }
        }
        l
    }

    /// Remember `[lo, hi)`, extending a range that ends at lo, else in a free slot, else in
    /// place of the lowest range.
    #[inline]
    pub fn note(&mut self, lo: u64, hi: u64) {
        let k = &mut self.0;
        let slot = k.iter().position(|&(kl, kr)| kr == lo || (kl, kr) == (0, 0)).unwrap_or_else(|| (0..4).min_by_key(|&i| k[i].1).expect("four slots"));
        let kl = if k[slot].1 == lo && k[slot].0 != 0 { k[slot].0 } else { lo };
        k[slot] = (kl, hi);
    }

    /// The last slot (a field on the structure's last cache line).
    pub fn last(&self) -> &(u64, u64) {
        &self.0[3]
    }
}

/// What a cumulative ACK removed from the scoreboard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acked {
    /// Bytes now below SND.UNA.
    pub bytes: u64,
    /// Of those, the bytes of segments acknowledged whole (a segment acknowledged in part is
    /// trimmed and counts when its rest is acknowledged: ns-3's rate sampling).
    pub whole: u64,
    /// Of those, bytes that had already been SACKed (delivered earlier: RFC 6937's
    /// DeliveredData counts them once, when SACKed).
    pub sacked_before: u64,
    /// Send time of the newest removed segment, when it gives a valid RTT sample.
    pub rtt_from: Option<Time>,
    /// Whether any removed segment had ever been retransmitted.
    pub any_retx: bool,
    /// The oldest removed segment starting at or above the floor given to
    /// [`Scoreboard::ack_to_from`]: whether it was never retransmitted (ns-3 times the front of
    /// its history of new-data sends, which a timeout clears); `None` if no such segment.
    pub karn_front: Option<bool>,
}

impl Scoreboard {
    /// One field on each cache line the scoreboard can span (see [`crate::prefetch`]).
    #[inline]
    pub fn prefetch_lines(&self, p: &mut impl crate::prefetch::Lines) {
        p.line(&self.sacked_bytes);
        p.line(&self.segs);
        p.line(&self.lost_frontier);
        p.line(self.known.last());
    }

    /// The segments an ACK reads first and a new segment is written after: the ring's two ends
    /// (its header must be cached already; see `Endpoint::prefetch_segments`).
    #[inline]
    pub fn prefetch_ends(&self, p: &mut impl crate::prefetch::Lines) {
        if let (Some(a), Some(b)) = (self.segs.front(), self.segs.back()) {
            p.line(a);
            p.line(b);
        }
    }

    pub fn segs(&self) -> &VecDeque<Seg> {
        &self.segs
    }
    pub fn first(&self) -> Option<&Seg> {
        self.segs.front()
    }

    /// Record a newly sent segment (new data at the top).
    #[inline]
    pub fn push(&mut self, start: u64, end: u64, now: Time) {
        debug_assert!(self.segs.back().is_none_or(|s| s.end == start), "segments must be contiguous");
        self.segs.push_back(Seg { start, end, sacked: false, lost: false, retrans: false, ever_retrans: false, sent_at: now });
    }

    /// Bytes in flight per RFC 6675, given the outstanding byte count.
    #[inline]
    pub fn pipe(&self, outstanding: u64) -> u64 {
        (outstanding + self.retrans_bytes).saturating_sub(self.sacked_bytes + self.lost_bytes)
    }

    /// Change segment `i` through `f`, keeping the counters in step; returns the new segment.
    fn update(&mut self, i: usize, f: impl FnOnce(&mut Seg)) -> Seg {
        let old = self.segs[i];
        self.unmark(&old);
        f(&mut self.segs[i]);
        let new = self.segs[i];
        self.remark(&new);
        new
    }

    fn unmark(&mut self, s: &Seg) {
        if s.sacked {
            self.sacked_bytes -= s.len();
            if s.retrans {
                self.sacked_retrans_bytes -= s.len();
            }
        } else {
            if s.lost {
                self.lost_bytes -= s.len();
            }
            if s.retrans {
                self.retrans_bytes -= s.len();
            }
            if s.lost && s.retrans {
                self.lost_retrans_bytes -= s.len();
            }
        }
    }

    /// Remove everything below `ack` (cumulative ACK). Karn's rule (RFC 6298 §3): no RTT sample
    /// when any removed segment was retransmitted; otherwise the send time of the newest removed
    /// segment not already SACKed (a SACKed one left the network earlier).
    pub fn ack_to(&mut self, ack: u64) -> Acked {
        self.ack_to_from(ack, 0)
    }

    /// [`Scoreboard::ack_to`], also saying whether the oldest removed segment at or above
    /// `floor` was never retransmitted ([`Acked::karn_front`]).
    pub fn ack_to_from(&mut self, ack: u64, floor: u64) -> Acked {
        let mut a = Acked::default();
        while let Some(front) = self.segs.front().copied() {
            if front.end <= ack {
                if a.karn_front.is_none() && front.start >= floor {
                    a.karn_front = Some(!front.ever_retrans);
                }
                self.unmark(&front);
                a.bytes += front.len();
                a.whole += front.len();
                if front.sacked {
                    a.sacked_before += front.len();
                } else {
                    a.rtt_from = Some(front.sent_at);
                }
                a.any_retx |= front.ever_retrans;
                self.segs.pop_front();
            } else if front.start < ack {
                // Partial ACK of a segment: trim it.
                a.bytes += ack - front.start;
                self.update(0, |f| f.start = ack);
                break;
            } else {
                break;
            }
        }
        if a.any_retx {
            a.rtt_from = None;
        }
        a
    }

    fn remark(&mut self, s: &Seg) {
        if s.sacked {
            self.sacked_bytes += s.len();
            if s.retrans {
                self.sacked_retrans_bytes += s.len();
            }
        } else {
            if s.lost {
                self.lost_bytes += s.len();
            }
            if s.retrans {
                self.retrans_bytes += s.len();
            }
            if s.lost && s.retrans {
                self.lost_retrans_bytes += s.len();
            }
        }
    }

    /// Mark segments fully inside `[l, r)` as SACKed. Returns the bytes newly SACKed.
    pub fn sack(&mut self, l: u64, r: u64) -> u64 {
        // Skip the part of the block already marked (SACK blocks mostly grow at the top).
        let l = self.known.skip(l);
        if l >= r {
            return 0;
        }
        let mut newly = 0;
        // The whole segments inside the block, marked now or before: what the cache may claim.
        let (mut lo, mut hi) = (u64::MAX, 0);
        // Segments are sorted by start: find the first that may overlap.
        let idx = seq_partition(&self.segs, l, |s| (s.start, s.end), |s| s.end <= l);
        for i in idx..self.segs.len() {
            let s = self.segs[i];
            if s.start >= r {
                break;
            }
            if s.start >= l && s.end <= r {
                (lo, hi) = (lo.min(s.start), s.end);
                if !s.sacked {
                    let m = self.update(i, |m| m.sacked = true);
                    newly += m.len();
                    self.high_sacked = self.high_sacked.max(m.end);
                }
            }
        }
        if lo < hi {
            self.known.note(lo, hi);
        }
        newly
    }

    /// RFC 6675 `IsLost` for all segments: mark lost every un-SACKed segment that has at least
    /// `dupthresh` SACKed segments above it, or more than `(dupthresh − 1)·smss` SACKed bytes
    /// above it. Returns bytes newly marked lost. Cost: a walk down from the highest SACKed
    /// segment to the point where the rule starts to hold, plus the newly lost segments.
    pub fn update_lost(&mut self, dupthresh: u32, smss: u32) -> u64 {
        if self.sacked_bytes == 0 {
            return 0;
        }
        let byte_limit = (dupthresh.saturating_sub(1)) as u64 * smss as u64;
        let top = seq_partition(&self.segs, self.high_sacked, |s| (s.start, s.end), |s| s.start < self.high_sacked);
        let mut count = 0u32;
        let mut bytes = 0u64;
        let mut i = top.min(self.segs.len());
        // Find the highest index p such that every segment below p satisfies the rule.
        let mut p = None;
        while i > 0 {
            i -= 1;
            let s = self.segs[i];
            if s.start < self.lost_frontier {
                break;
            }
            if s.sacked {
                count += 1;
                bytes += s.len();
                if count >= dupthresh || bytes > byte_limit {
                    p = Some(i);
                    break;
                }
            }
        }
        let Some(p) = p else { return 0 };
        let mut newly = 0;
        let from = seq_partition(&self.segs, self.lost_frontier, |s| (s.start, s.end), |s| s.end <= self.lost_frontier);
        for j in from..p {
            newly += self.mark_lost_at(j);
        }
        self.lost_frontier = self.lost_frontier.max(self.segs[p].start);
        newly
    }

    fn mark_lost_at(&mut self, i: usize) -> u64 {
        let s = self.segs[i];
        if s.sacked || s.lost {
            return 0;
        }
        // A segment retransmitted before it was judged lost (NextSeg rules 3 and 4) keeps its
        // retransmission in flight: lost and retransmitted, it is not sent again.
        let m = self.update(i, |m| m.lost = true);
        self.rexmit_hint = self.rexmit_hint.min(m.start);
        m.len()
    }

    /// Mark the first outstanding segment lost (fast retransmit without SACK information).
    pub fn mark_head_lost(&mut self) -> u64 {
        if self.segs.is_empty() {
            0
        } else {
            self.mark_lost_at(0)
        }
    }

    /// A new loss episode at the head: it is lost, and an earlier retransmission of it is
    /// presumed lost too (so it is retransmitted again). Returns whether the head is un-SACKed.
    pub fn head_lost_again(&mut self) -> bool {
        match self.segs.front() {
            Some(s) if !s.sacked => {
                self.update(0, |m| {
                    m.lost = true;
                    m.retrans = false;
                });
                self.rexmit_hint = 0;
                true
            }
            _ => false,
        }
    }

    /// RTO: every un-SACKed segment is lost and no retransmission is in flight any more.
    pub fn mark_all_lost(&mut self) {
        self.rexmit_hint = 0;
        if let Some(b) = self.segs.back() {
            self.lost_frontier = self.lost_frontier.max(b.end);
        }
        for i in 0..self.segs.len() {
            if !self.segs[i].sacked {
                self.update(i, |m| {
                    m.lost = true;
                    m.retrans = false;
                });
            } else if self.segs[i].retrans {
                self.update(i, |m| m.retrans = false);
            }
        }
    }

    /// The first lost, un-SACKed segment not yet retransmitted (RFC 6675 NextSeg rule 1).
    /// With `below_highest_sack` (ns-3's reading of rule (1.b)), while a SACKed segment lies
    /// above SND.UNA only segments below the highest SACKed one qualify: after a timeout, lost
    /// segments above it wait for SACKs to pass them. Advances the retransmission hint to the
    /// segment found, or past the segments walked when none is found, so repeated calls do not
    /// walk the same segments again.
    pub fn next_lost(&mut self, below_highest_sack: bool) -> Option<usize> {
        // Lost segments still waiting for their retransmission.
        if self.lost_bytes <= self.lost_retrans_bytes {
            return None;
        }
        let from = seq_partition(&self.segs, self.rexmit_hint, |s| (s.start, s.end), |s| s.end <= self.rexmit_hint);
        let sack_seen = self.segs.front().is_some_and(|h| self.high_sacked > h.start);
        let top = if below_highest_sack && sack_seen { self.high_sacked } else { u64::MAX };
        let mut i = from;
        while i < self.segs.len() && self.segs[i].start < top {
            let s = &self.segs[i];
            if s.lost && !s.sacked && !s.retrans {
                self.rexmit_hint = self.rexmit_hint.max(s.start);
                return Some(i);
            }
            i += 1;
        }
        // Nothing waits among the segments walked: the next call starts after them (a segment
        // marked lost later lowers the hint again).
        let walked = self.segs.get(i).map_or_else(|| self.segs.back().map_or(0, |b| b.end), |s| s.start);
        self.rexmit_hint = self.rexmit_hint.max(walked);
        None
    }

    /// RFC 6675 NextSeg rule (3): the first un-SACKed segment below the highest SACKed byte
    /// that is neither lost nor retransmitted yet.
    pub fn next_hole(&mut self) -> Option<usize> {
        if self.high_sacked <= self.hole_hint {
            return None;
        }
        let top = seq_partition(&self.segs, self.high_sacked, |s| (s.start, s.end), |s| s.start < self.high_sacked);
        let from = seq_partition(&self.segs, self.hole_hint, |s| (s.start, s.end), |s| s.end <= self.hole_hint);
        for i in from..top {
            let s = &self.segs[i];
            if !s.sacked && !s.lost && !s.retrans {
                self.hole_hint = s.start;
                return Some(i);
            }
        }
        if let Some(s) = top.checked_sub(1).map(|i| self.segs[i]) {
            self.hole_hint = self.hole_hint.max(s.end);
        }
        None
    }

    /// ns-3's SACK emulation without SACK (`TcpTxBuffer::AddRenoSack`): a duplicate ACK means
    /// one more segment reached the receiver, so mark the first un-SACKed segment after the
    /// head (never the head) as SACKed. Returns the bytes marked (0 if none is left).
    pub fn add_reno_sack(&mut self) -> u64 {
        let Some(i) = (1..self.segs.len()).find(|&i| !self.segs[i].sacked) else { return 0 };
        let m = self.update(i, |m| m.sacked = true);
        self.high_sacked = self.high_sacked.max(m.end);
        m.len()
    }

    /// After a cumulative ACK under the emulation: a mark on the new head was a wrong guess
    /// (the head has not arrived, or it would be acknowledged). Move the mark to the next
    /// un-SACKed segment and declare the head lost (ns-3's `DiscardUpTo`).
    pub fn fix_reno_sack_head(&mut self) {
        if self.segs.front().is_some_and(|h| h.sacked) {
            self.update(0, |m| m.sacked = false);
            self.add_reno_sack();
            self.mark_head_lost();
        }
    }

    /// Clear every emulated SACK mark (ns-3's `ResetRenoSack`, on a timeout).
    pub fn reset_reno_sack(&mut self) {
        for i in 0..self.segs.len() {
            if self.segs[i].sacked {
                self.update(i, |m| m.sacked = false);
            }
        }
        self.high_sacked = 0;
    }

    /// The highest un-SACKed segment (RFC 6675 NextSeg rule (4), the rescue retransmission).
    pub fn last_unsacked(&self) -> Option<usize> {
        (0..self.segs.len()).rev().find(|&i| !self.segs[i].sacked)
    }

    /// Before retransmitting segment `i`, make it up to `max_len` bytes long by taking the
    /// start of the segment after it, if that one is not SACKed, has the same loss mark and
    /// ends at or below `limit` (ns-3's `TcpTxBuffer::GetTransmittedSegment`: a retransmission
    /// is cut from the buffer afresh, so a short segment left by an application write boundary
    /// goes out again full-size, merged with at most the next one). The bytes keep their marks;
    /// a segment emptied by it goes away.
    pub fn merge_next(&mut self, i: usize, max_len: u64, limit: u64) {
        let (Some(&cur), Some(&next)) = (self.segs.get(i), self.segs.get(i + 1)) else { return };
        if cur.len() >= max_len || next.sacked || next.lost != cur.lost || next.end > limit {
            return;
        }
        let take = (max_len - cur.len()).min(next.len());
        self.update(i, |m| m.end += take);
        if take == next.len() {
            self.unmark(&next);
            self.segs.remove(i + 1);
        } else {
            self.update(i + 1, |m| m.start += take);
        }
    }

    /// Mark segment `i` as retransmitted at `now`; returns its range. A lost one (NextSeg rule
    /// 1, RTO), or under rules (3) and (4) one not (yet) judged lost.
    pub fn retransmit(&mut self, i: usize, now: Time) -> (u64, u64) {
        let m = self.update(i, |m| {
            m.retrans = true;
            m.ever_retrans = true;
            m.sent_at = now;
        });
        if i == 0 || self.rexmit_hint >= m.start {
            self.rexmit_hint = self.rexmit_hint.max(m.end);
        }
        (m.start, m.end)
    }

    /// Recompute the counters from scratch and compare (tests).
    pub fn check(&self) {
        let (mut s, mut l, mut r, mut sr, mut lr) = (0, 0, 0, 0, 0);
        for g in &self.segs {
            if g.sacked {
                s += g.len();
                if g.retrans {
                    sr += g.len();
                }
            } else {
                if g.lost {
                    l += g.len();
                }
                if g.retrans {
                    r += g.len();
                }
                if g.lost && g.retrans {
                    lr += g.len();
                }
            }
        }
        assert_eq!(
            (s, l, r, sr, lr),
            (self.sacked_bytes, self.lost_bytes, self.retrans_bytes, self.sacked_retrans_bytes, self.lost_retrans_bytes),
            "scoreboard counters drifted"
        );
        for g in &self.segs {
            if g.end <= self.lost_frontier {
                assert!(g.sacked || g.lost, "below the frontier every un-SACKed segment is lost");
            }
            if g.end <= self.rexmit_hint {
                assert!(!(g.lost && !g.sacked && !g.retrans), "a segment below the hint waits for retransmission");
            }
            if g.end <= self.hole_hint {
                assert!(g.sacked || g.lost || g.retrans, "a hole below the hole hint");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Property (a seeded loop): `seq_partition` returns `partition_point`'s index for
    // contiguous ranges of mixed sizes (mostly one size, some short, some merged), deques that
    // wrapped (popped at the front, pushed at the back), and sequence numbers below, inside,
    // at every edge of and above them, for both predicates the scoreboard uses. Hand cases:
    // ranges [1, 11), [11, 21), [21, 26): `end <= 11` → 1, `end <= 10` → 0, `start < 26` → 3,
    // `end <= 100` → 3; an empty deque → 0.
    #[test]
    fn seq_partition_agrees_with_partition_point() {
        let r = |v: &VecDeque<(u64, u64)>, at: u64, p: &dyn Fn(&(u64, u64)) -> bool| seq_partition(v, at, |s| *s, p);
        let v: VecDeque<(u64, u64)> = [(1, 11), (11, 21), (21, 26)].into_iter().collect();
        assert_eq!(r(&v, 11, &|s| s.1 <= 11), 1);
        assert_eq!(r(&v, 10, &|s| s.1 <= 10), 0);
        assert_eq!(r(&v, 26, &|s| s.0 < 26), 3);
        assert_eq!(r(&v, 100, &|s| s.1 <= 100), 3);
        assert_eq!(r(&VecDeque::new(), 5, &|s| s.1 <= 5), 0);
        // Ranges so wide that (at − lo)·n overflows 64 bits: the guess is taken in 128.
        let w = 1u64 << 61;
        let v: VecDeque<(u64, u64)> = (0..5).map(|i| (1 + i * w, 1 + (i + 1) * w)).collect();
        for at in [1, w, 2 * w + 1, 4 * w + 7, 5 * w, 5 * w + 1] {
            assert_eq!(r(&v, at, &|s| s.1 <= at), v.partition_point(|s| s.1 <= at), "end <= {at}");
            assert_eq!(r(&v, at, &|s| s.0 < at), v.partition_point(|s| s.0 < at), "start < {at}");
        }
        let mut rng = sluice_core::rng::RngStream::from_seed(7);
        for _ in 0..2_000 {
            let mut v = VecDeque::with_capacity(4);
            let mut seq = 1 + rng.below(1 << 40);
            let n = rng.below(300);
            for _ in 0..n {
                let len = match rng.below(10) {
                    0 => 1 + rng.below(1448),
                    1 => 1448 * (2 + rng.below(3)),
                    _ => 1448,
                };
                v.push_back((seq, seq + len));
                seq += len;
            }
            for _ in 0..rng.below(n + 1) / 2 {
                v.pop_front();
                let len = 1448;
                v.push_back((seq, seq + len));
                seq += len;
            }
            let lo = v.front().map_or(0, |s| s.0);
            let mut ats: Vec<u64> = (0..20).map(|_| lo.saturating_sub(3000) + rng.below(seq - lo + 6000)).collect();
            ats.extend(v.iter().flat_map(|s| [s.0, s.1, s.0 + 1, s.1 - 1]).take(40));
            for at in ats {
                let by_end = |s: &(u64, u64)| s.1 <= at;
                let by_start = |s: &(u64, u64)| s.0 < at;
                assert_eq!(r(&v, at, &by_end), v.partition_point(by_end), "end <= {at}, {} ranges", v.len());
                assert_eq!(r(&v, at, &by_start), v.partition_point(by_start), "start < {at}, {} ranges", v.len());
            }
        }
    }

    fn board(n: u64, mss: u64) -> Scoreboard {
        let mut b = Scoreboard::default();
        for i in 0..n {
            b.push(1 + i * mss, 1 + (i + 1) * mss, Time::ZERO);
        }
        b
    }

    // ns-3's retransmission cut (`Ns3Compat::retx_merge`): a short segment takes the start of
    // the next one if that is un-SACKed with the same loss mark, the whole of it if it fits, and
    // nothing from a SACKed one, one with another loss mark, or one past the limit (the FIN).
    // tests a cumulative ACK inside a segment (a peer that acknowledges part of one, or ns-3's
    // re-cut retransmissions): the acknowledged part leaves, the rest stays with its marks.
    // Segments of 1448 B from offset 1; ACK 700 takes 699 bytes of the first; ACK 1449 the rest.
    #[test]
    fn an_ack_inside_a_segment_trims_it() {
        let mut b = board(3, 1448);
        let a = b.ack_to(700);
        assert_eq!((a.bytes, a.whole), (699, 0));
        assert_eq!((b.segs()[0].start, b.segs()[0].end, b.segs().len()), (700, 1449, 3));
        let a = b.ack_to(1449);
        assert_eq!((a.bytes, a.whole), (749, 749));
        assert_eq!((b.segs()[0].start, b.segs().len()), (1449, 2));
        b.check();
    }

    // tests RFC 6675 §5's SACK marking: only a segment wholly inside a block is marked, and a
    // block reported later over a gap between marked ranges marks what the gap holds, whatever
    // the board remembers of the ranges already marked (its `known` cache of four ranges, the
    // lowest replaced when a fifth comes). Segments k = 0..11 of 1448 B from offset 1.
    #[test]
    fn sack_marks_whole_segments_and_later_gaps() {
        let seg = |k: u64| (1 + k * 1448, 1 + (k + 1) * 1448);
        let mut b = board(12, 1448);
        // A block from inside segment 2 to inside segment 4 marks segment 3 only.
        assert_eq!(b.sack(seg(2).0 + 100, seg(4).0 + 100), 1448);
        assert!(!b.segs()[2].sacked && b.segs()[3].sacked && !b.segs()[4].sacked);
        // Disjoint blocks 5, 7, 9 fill the cache; 11 replaces the lowest range. Then the gaps.
        for k in [5, 7, 9, 11] {
            assert_eq!(b.sack(seg(k).0, seg(k).1), 1448, "segment {k}");
        }
        assert_eq!(b.sack(seg(4).0, seg(5).1), 1448, "segment 4 (5 already marked)");
        for k in [6, 8, 10, 2, 1] {
            assert_eq!(b.sack(seg(k).0, seg(k).1), 1448, "segment {k}");
        }
        assert_eq!(b.sack(seg(1).0, seg(11).1), 0, "all marked already");
        let marked: Vec<bool> = b.segs().iter().map(|s| s.sacked).collect();
        assert_eq!(marked, [false, true, true, true, true, true, true, true, true, true, true, true]);
        b.check();
    }

    // tests that a block whose edges fall inside segments (a peer acknowledging part of one)
    // leaves those segments to a later block that holds them whole: [2+100, 4+100) marks 3; then
    // [4, 6) marks 4 and 5, although the first block's range reached into 4.
    #[test]
    fn a_partial_block_leaves_its_edge_segments_to_later_blocks() {
        let seg = |k: u64| (1 + k * 1448, 1 + (k + 1) * 1448);
        let mut b = board(12, 1448);
        assert_eq!(b.sack(seg(2).0 + 100, seg(4).0 + 100), 1448);
        assert_eq!(b.sack(seg(4).0, seg(5).1), 2896);
        assert_eq!(b.sack(seg(2).0, seg(2).1), 1448);
        assert_eq!(b.sack(seg(2).0, seg(5).1), 0);
        b.check();
    }

    // tests RFC 6675 §4 IsLost: an un-SACKed segment is lost when DupThresh (3) SACKed segments
    // lie above it, or more than (DupThresh − 1)·SMSS SACKed bytes; a SACKed segment is never
    // marked lost. (a) 1448-B segments, 1 and 3-5 SACKed: 0 and 2 lost (1 is SACKed). (b) 5 and
    // 6 SACKed with SMSS 1000: 2 segments but 2896 > 2000 bytes: 0-4 lost. (c) 500-B segments,
    // 3-5 SACKed: 1500 ≤ 2896 bytes but 3 segments: 0-2 lost.
    #[test]
    fn rfc6675_is_lost_by_count_or_by_bytes() {
        let lost = |b: &Scoreboard| b.segs().iter().enumerate().filter(|(_, s)| s.lost).map(|(k, _)| k).collect::<Vec<_>>();
        let mut b = board(10, 1448);
        for k in [1, 3, 4, 5] {
            b.sack(1 + k * 1448, 1 + (k + 1) * 1448);
        }
        assert_eq!(b.update_lost(3, 1448), 2 * 1448);
        assert_eq!(lost(&b), [0, 2]);
        let mut b = board(10, 1448);
        for k in [5, 6] {
            b.sack(1 + k * 1448, 1 + (k + 1) * 1448);
        }
        assert_eq!(b.update_lost(3, 1000), 5 * 1448);
        assert_eq!(lost(&b), [0, 1, 2, 3, 4]);
        let mut b = board(10, 500);
        for k in [3, 4, 5] {
            b.sack(1 + k * 500, 1 + (k + 1) * 500);
        }
        assert_eq!(b.update_lost(3, 1448), 3 * 500);
        assert_eq!(lost(&b), [0, 1, 2]);
        b.check();
    }

    // tests the invariant check the other tests lean on: a counter out of step with the marks
    // is caught.
    #[test]
    #[should_panic]
    fn check_catches_a_counter_out_of_step() {
        let mut b = board(4, 1448);
        b.sack(1 + 1448, 1 + 2 * 1448);
        b.sacked_bytes += 1;
        b.check();
    }

    // tests the retransmission bookkeeping of NextSeg (RFC 6675 §4): rule (1) finds the first
    // lost segment not yet retransmitted, skipping one that is not lost, even after a later one
    // went first; rule (1.b)'s bound is off once SND.UNA reaches the highest SACKed byte; the
    // rescue (rule 4) takes the highest un-SACKed segment; ns-3's re-marking of the head leaves a
    // SACKed head alone. Segments of 100 B from offset 1.
    #[test]
    fn nextseg_bookkeeping() {
        let mut b = board(6, 100);
        b.mark_lost_at(1);
        b.mark_lost_at(3);
        b.retransmit(3, Time::ZERO);
        assert_eq!(b.next_lost(false), Some(1), "0 is not lost; 3 went first");
        let mut b = board(6, 100);
        b.sack(301, 401);
        b.mark_all_lost();
        b.ack_to(401);
        assert_eq!(b.next_lost(true), Some(0), "SND.UNA at the highest SACKed byte: no bound");
        let mut b = board(4, 100);
        b.sack(301, 401);
        assert_eq!(b.last_unsacked(), Some(2));
        let mut b = board(4, 100);
        b.sack(1, 101);
        assert!(!b.head_lost_again(), "a SACKed head is not lost");
        assert!(!b.segs()[0].lost);
        let mut b = board(4, 100);
        b.retransmit(0, Time::ZERO);
        assert!(b.head_lost_again());
        assert!(b.segs()[0].lost && !b.segs()[0].retrans);
        b.check();
    }

    #[test]
    fn merge_next_lengthens_a_short_segment() {
        let m = 100;
        let mut b = Scoreboard::default();
        for (s, e) in [(1, 101), (101, 176), (176, 276), (276, 296), (296, 396), (396, 397)] {
            b.push(s, e, Time::ZERO);
        }
        b.mark_all_lost();
        b.merge_next(1, m, 396);
        let ranges: Vec<(u64, u64)> = b.segs().iter().map(|g| (g.start, g.end)).collect();
        assert_eq!(ranges, [(1, 101), (101, 201), (201, 276), (276, 296), (296, 396), (396, 397)]);
        b.check();
        b.merge_next(3, m, 396); // 20 bytes, then the next segment's whole 100 would be too much
        assert_eq!((b.segs()[3].start, b.segs()[3].end, b.segs()[4].start), (276, 376, 376));
        b.check();
        let before = b.segs().clone();
        b.merge_next(4, m, 396); // the next is the FIN, past the limit
        assert_eq!(b.segs(), &before);
        // Absorbing a whole next segment removes it.
        let mut b = Scoreboard::default();
        for (s, e) in [(1, 61), (61, 101), (101, 201)] {
            b.push(s, e, Time::ZERO);
        }
        b.merge_next(0, m, 1000);
        assert_eq!(b.segs().iter().map(|g| (g.start, g.end)).collect::<Vec<_>>(), [(1, 101), (101, 201)]);
        b.check();
        // A SACKed next segment, or one with another loss mark, stays as it is.
        let mut b = Scoreboard::default();
        for (s, e) in [(1, 61), (61, 161), (161, 221), (221, 321)] {
            b.push(s, e, Time::ZERO);
        }
        b.sack(61, 161);
        b.merge_next(0, m, 1000);
        assert_eq!(b.segs()[0].end, 61);
        b.mark_head_lost();
        b.merge_next(2, m, 1000); // segment 2 is not lost, the head is; 2 and 3 alike
        assert_eq!((b.segs()[2].end, b.segs()[3].start), (261, 261));
        b.check();
    }

    // NextSeg rule (1.b) as ns-3 applies it: after a timeout marks everything lost, lost
    // segments above the highest SACKed one wait while it lies above SND.UNA.
    #[test]
    fn lost_segments_above_the_highest_sack_wait_under_rule_1b() {
        let mut b = board(6, 100);
        b.sack(201, 301);
        b.mark_all_lost();
        for i in [0, 1] {
            assert_eq!(b.next_lost(true), Some(i));
            b.retransmit(i, Time::ZERO);
        }
        assert_eq!(b.next_lost(true), None, "segments 3-5 lie above the highest SACK");
        assert_eq!(b.next_lost(false), Some(3));
        // Once SND.UNA passes the SACKed segment, they qualify again.
        b.ack_to(401);
        assert_eq!(b.next_lost(true), Some(0));
        b.check();
    }

    // A search that finds nothing moves the retransmission hint past the segments it walked,
    // and no further: segment 6 (lost, above the highest SACK, segment 5) waits under rule
    // (1.b) and is found once the bound is lifted; segment 1, marked lost after the hint moved,
    // lowers it again and is found first. Segments of 100 B from offset 1.
    #[test]
    fn the_retransmission_hint_skips_only_what_was_walked() {
        let mut b = board(8, 100);
        b.sack(501, 601);
        b.mark_lost_at(6);
        assert_eq!(b.next_lost(true), None, "segment 6 lies above the highest SACK");
        assert_eq!(b.rexmit_hint, 601, "past segments 0-5, not past 6");
        b.check();
        b.mark_lost_at(1);
        assert_eq!(b.next_lost(true), Some(1));
        b.retransmit(1, Time::ZERO);
        assert_eq!(b.next_lost(true), None);
        assert_eq!(b.next_lost(false), Some(6));
        b.check();
    }

    // ns-3's SACK emulation without SACK: marks go on the first un-SACKed segment after the
    // head, one per call; a mark found on the head after a cumulative ACK moves up and the
    // head is declared lost; a timeout clears them all.
    #[test]
    fn reno_sack_marks_follow_ns3() {
        let mut b = board(6, 100);
        assert_eq!(b.add_reno_sack(), 100);
        assert_eq!(b.add_reno_sack(), 100);
        let marked: Vec<bool> = b.segs().iter().map(|s| s.sacked).collect();
        assert_eq!(marked, [false, true, true, false, false, false], "never the head");
        assert_eq!(b.pipe(600), 400);
        // The head arrives and is acknowledged: the mark now on the head was a wrong guess.
        b.ack_to(101);
        b.fix_reno_sack_head();
        let s: Vec<(bool, bool)> = b.segs().iter().map(|s| (s.sacked, s.lost)).collect();
        assert_eq!(s, [(false, true), (true, false), (true, false), (false, false), (false, false)]);
        assert_eq!(b.next_lost(false), Some(0), "the head goes out again");
        b.check();
        // Nothing left to mark after the head: nothing marked.
        let mut c = board(1, 100);
        assert_eq!(c.add_reno_sack(), 0);
        b.reset_reno_sack();
        assert_eq!(b.sacked_bytes, 0);
        assert!(b.segs().iter().all(|s| !s.sacked));
        b.check();
    }

    // tests `Acked::karn_front` (ns-3's RTT history): after a timeout at SND.MAX = 301 the
    // segments below it are retransmitted and no longer timed; an ACK that covers only them
    // gives no sample, one that also covers the first new segment gives one, and without the
    // floor the retransmitted head forbids it (Karn).
    #[test]
    fn the_rtt_front_after_a_timeout_is_the_first_new_segment() {
        let mut b = board(3, 100);
        b.retransmit(0, Time(10));
        b.retransmit(1, Time(10));
        b.push(301, 401, Time(20));
        let mut c = b.clone();
        assert_eq!(b.ack_to_from(201, 301).karn_front, None, "only retransmitted segments");
        assert_eq!(b.ack_to_from(401, 301).karn_front, Some(true), "the first new one, clean");
        assert_eq!(c.ack_to_from(401, 0).karn_front, Some(false), "the retransmitted head");
    }

    // tests RFC 6675 §4 IsLost and §3 pipe on a single hole.
    #[test]
    fn one_hole_is_lost_after_three_sacked_segments() {
        let mss = 1000;
        let mut b = board(10, mss);
        let out = 10 * mss;
        assert_eq!(b.pipe(out), out);
        b.sack(1 + mss, 1 + 2 * mss);
        b.sack(1 + mss, 1 + 3 * mss);
        assert_eq!(b.update_lost(3, mss as u32), 0, "two SACKed segments are not enough");
        b.sack(1 + mss, 1 + 4 * mss);
        assert_eq!(b.update_lost(3, mss as u32), mss);
        // pipe = 10 − 3 sacked − 1 lost.
        assert_eq!(b.pipe(out), 6 * mss);
        let i = b.next_lost(false).unwrap();
        assert_eq!(i, 0);
        b.retransmit(i, Time(5));
        assert_eq!(b.pipe(out), 7 * mss);
        b.check();
        let a = b.ack_to(1 + 4 * mss);
        assert_eq!(a, Acked { bytes: 4 * mss, whole: 4 * mss, sacked_before: 3 * mss, rtt_from: None, any_retx: true, karn_front: Some(false) });
        assert_eq!(b.pipe(6 * mss), 6 * mss);
        b.check();
    }

    #[test]
    fn counters_stay_consistent_under_random_marks() {
        use sluice_core::rng::RngStream;
        for seed in 0..30 {
            let mut r = RngStream::from_seed(seed);
            let mss = 100;
            let mut b = board(40, mss);
            let mut una = 1;
            for _ in 0..200 {
                match r.below(6) {
                    0 => {
                        let l = una + r.below(40) * mss;
                        b.sack(l, l + (1 + r.below(4)) * mss);
                    }
                    1 => {
                        b.update_lost(3, mss as u32);
                    }
                    2 => {
                        if let Some(i) = b.next_lost(false) {
                            b.retransmit(i, Time(1));
                        }
                    }
                    3 => {
                        una += r.below(3) * mss;
                        b.ack_to(una);
                    }
                    4 => b.mark_all_lost(),
                    _ => {
                        b.mark_head_lost();
                    }
                }
                b.check();
            }
        }
    }
}
