//! CoDel, Controlled Delay (RFC 8289; Linux `codel.h`; ns-3 `CoDelQueueDisc`).
//!
//! Packets are time-stamped at enqueue; the decisions are taken at dequeue from the head's
//! sojourn time. When the sojourn time has stayed at or above `target` for `interval` (and more
//! than one `mtu` of data remains queued), CoDel enters the dropping state and drops (or, with
//! `ecn`, marks) the head; while it stays above, the next drop comes `interval/√count` after the
//! previous *scheduled* drop (the control law applied to the previous `drop_next`, not to the
//! time the drop happened). On re-entry within 16 intervals of the last drop, `count` restarts
//! from `count − lastcount` (the rate that controlled the last episode) instead of 1.
//!
//! Arithmetic (`arith`):
//!
//! * `"exact"` (Sluice's default): integer nanoseconds; `interval/√count` is
//!   `⌊√(interval²/count)⌋` exactly; the RFC's comparisons (`now ≥ first_above_time`, backlog
//!   `≤ mtu` suppresses drops); after a mark in the dropping state the next drop is scheduled
//!   from the previous `drop_next`, as Linux does.
//! * `"ns3"` (the ns-3.44 profile): ns-3's and Linux's 1.024 µs time units held in 32 bits,
//!   `1/√count` by one Newton step per change of `count` (16-bit reciprocal), ns-3's
//!   comparisons (`now > first_above_time`, backlog `< mtu`, its `MinBytes`), and after a mark
//!   the next drop scheduled from `now`, as ns-3's `CoDelQueueDisc` does.
//!
//! The core ([`CodelState`]) works on any FIFO that can pop its head and tell its backlog, so
//! FQ-CoDel runs one per queue.

use super::{Dequeued, DropReason, Enqueue, MarkReason, Occupancy, ParamError, Profile, QdiscCx, QdiscParams, QueueDisc, Queued};
use crate::packet::Ecn;
use crate::rng::RngStream;
use crate::time::{Dur, Time};
use crate::units::QueueLimit;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How CoDel computes (module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CodelArith {
    /// Integer nanoseconds, exact control law, the RFC's comparisons.
    Exact,
    /// ns-3.44's `CoDelQueueDisc`: 1.024 µs units, Newton's 1/√count, its comparisons.
    Ns3,
}

/// `{ kind = "codel", target = "5ms", interval = "100ms", limit = "1000pkt", mtu = 1500,
/// ecn = false, arith = "exact" }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CodelConfig {
    /// Acceptable standing sojourn time (RFC 8289: 5 ms).
    pub target: Dur,
    /// Window over which the sojourn time must stay above `target` (RFC 8289: 100 ms).
    pub interval: Dur,
    /// Packets (Linux `sch_codel`: 1000) or bytes (ns-3: 1,500,000 B); the arrival that does not
    /// fit is dropped.
    pub limit: QueueLimit,
    /// Bytes: a backlog (after the head leaves) of at most this much never counts as a standing
    /// queue (RFC 8289's MAXPACKET, Linux's device MTU; ns-3's `MinBytes`, compared with `<`).
    pub mtu: u32,
    /// Mark ECT packets instead of dropping them (Not-ECT packets are still dropped).
    pub ecn: bool,
    pub arith: CodelArith,
}

impl Default for CodelConfig {
    /// RFC 8289's target and interval; Linux `sch_codel`'s 1000-packet limit and ECN off;
    /// MAXPACKET one 1500-byte MTU.
    fn default() -> Self {
        CodelConfig { target: Dur::from_millis(5), interval: Dur::from_millis(100), limit: QueueLimit::Packets(1000), mtu: 1500, ecn: false, arith: CodelArith::Exact }
    }
}

impl QdiscParams for CodelConfig {
    /// ns-3.44 `CoDelQueueDisc`: `MaxSize` 1500 · 1000 bytes, `MinBytes` 1500, `UseEcn` false,
    /// Target 5 ms, Interval 100 ms, and its arithmetic.
    fn for_profile(profile: Profile) -> Self {
        match profile {
            Profile::Sluice => Self::default(),
            Profile::Ns3_44 => CodelConfig { limit: QueueLimit::Bytes(1_500_000), arith: CodelArith::Ns3, ..Self::default() },
        }
    }
    fn validate(&self) -> Result<(), ParamError> {
        check_codel_times(self.target, self.interval, self.arith)?;
        if matches!(self.limit, QueueLimit::Packets(0) | QueueLimit::Bytes(0)) {
            return Err(ParamError::new("limit", "must be greater than zero"));
        }
        Ok(())
    }
}

/// Checks shared with FQ-CoDel.
pub(crate) fn check_codel_times(target: Dur, interval: Dur, arith: CodelArith) -> Result<(), ParamError> {
    // ns-3 units are 1,024 ns held in 32 bits; 16 intervals must fit them.
    let max = Dur::from_secs(60);
    if interval.0 == 0 || interval > max {
        return Err(ParamError::new("interval", format!("must be greater than 0 and at most {max}, got {interval}")));
    }
    if target.0 == 0 || target >= interval {
        return Err(ParamError::new("target", format!("must be greater than 0 and less than interval ({interval}), got {target}")));
    }
    if arith == CodelArith::Ns3 && target.0 < 1024 {
        return Err(ParamError::new("target", format!("must be at least 1024ns with arith = \"ns3\" (its time unit), got {target}")));
    }
    Ok(())
}

/// CoDel's parameters in the units its arithmetic uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct CodelParams {
    /// In the arithmetic's units (ns, or 1.024 µs).
    target: u64,
    interval: u64,
    mtu: u64,
    ecn: bool,
    arith: CodelArith,
}

impl CodelParams {
    pub(crate) fn new(target: Dur, interval: Dur, mtu: u32, ecn: bool, arith: CodelArith) -> Self {
        let p = CodelParams { target: 0, interval: 0, mtu: mtu as u64, ecn, arith };
        CodelParams { target: p.units(target.0), interval: p.units(interval.0), ..p }
    }
    /// A span or an instant in the arithmetic's units (ns-3: `ns >> 10` cut to 32 bits).
    #[inline]
    fn units(&self, ns: u64) -> u64 {
        match self.arith {
            CodelArith::Exact => ns,
            CodelArith::Ns3 => (ns >> 10) as u32 as u64,
        }
    }
    /// `a + b` in the arithmetic's units (ns-3: 32-bit wrap).
    #[inline]
    fn add(&self, a: u64, b: u64) -> u64 {
        match self.arith {
            CodelArith::Exact => a + b,
            CodelArith::Ns3 => (a as u32).wrapping_add(b as u32) as u64,
        }
    }
}

/// The state of one CoDel instance (one per FQ-CoDel queue).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CodelState {
    count: u32,
    lastcount: u32,
    dropping: bool,
    /// ns-3 arithmetic: 1/√count as a 16-bit fraction (0xFFFF for count 1).
    rec_inv_sqrt: u16,
    /// In the arithmetic's units; 0: not above target.
    first_above_time: u64,
    drop_next: u64,
}

/// The FIFO a [`CodelState`] controls.
pub(crate) trait CodelQueue<P> {
    fn pop(&mut self) -> Option<P>;
    /// Bytes still queued.
    fn backlog(&self) -> u64;
}

/// A FIFO of packets with a byte count.
#[derive(Debug)]
pub(crate) struct Fifo<P> {
    pub q: VecDeque<P>,
    pub bytes: u64,
}

impl<P> Default for Fifo<P> {
    fn default() -> Self {
        Fifo { q: VecDeque::new(), bytes: 0 }
    }
}

impl<P: Queued> Fifo<P> {
    #[inline]
    pub fn push(&mut self, p: P) {
        self.bytes += p.len_bytes() as u64;
        self.q.push_back(p);
    }
}

impl<P: Queued> CodelQueue<P> for Fifo<P> {
    #[inline]
    fn pop(&mut self) -> Option<P> {
        let p = self.q.pop_front()?;
        self.bytes -= p.len_bytes() as u64;
        Some(p)
    }
    #[inline]
    fn backlog(&self) -> u64 {
        self.bytes
    }
}

/// One Newton step of ns-3's (and Linux's) 16-bit reciprocal square root:
/// `r' = r · (3 − count · r²) / 2`, in their fixed-point layout.
fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let invsqrt = (rec_inv_sqrt as u32) << 16;
    let invsqrt2 = ((invsqrt as u64 * invsqrt as u64) >> 32) as u32;
    let mut val = (3u64 << 32).wrapping_sub(count as u64 * invsqrt2 as u64);
    val >>= 2;
    val = (val * invsqrt as u64) >> (32 - 2 + 1);
    (val >> 16) as u16
}

/// `⌊√n⌋` for 128-bit `n`.
fn isqrt(n: u128) -> u128 {
    if n < 2 {
        return n;
    }
    // Newton from above: x' = (x + n/x)/2 decreases to ⌊√n⌋.
    let mut x = 1u128 << (128 - n.leading_zeros()).div_ceil(2);
    loop {
        let y = (x + n / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

impl CodelState {
    pub(crate) fn new() -> Self {
        CodelState { rec_inv_sqrt: u16::MAX, ..Default::default() }
    }

    /// `t + interval/√count` (module docs).
    #[inline]
    fn control_law(&self, p: &CodelParams, t: u64) -> u64 {
        match p.arith {
            CodelArith::Exact => t + isqrt((p.interval as u128 * p.interval as u128) / self.count.max(1) as u128) as u64,
            CodelArith::Ns3 => {
                let r = ((p.interval * (((self.rec_inv_sqrt as u32) << 16) as u64)) >> 32) as u32;
                (t as u32).wrapping_add(r) as u64
            }
        }
    }

    /// `count` changed: refresh ns-3's reciprocal.
    #[inline]
    fn newton(&mut self, p: &CodelParams) {
        if p.arith == CodelArith::Ns3 {
            self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
        }
    }

    /// Whether the packet just popped (enqueued at `enq`; `backlog` bytes remain behind it)
    /// finds the sojourn time above target long enough (RFC 8289 `dodequeue`).
    fn ok_to_drop(&mut self, p: &CodelParams, enq: Option<Time>, now_ns: Time, now: u64, backlog: u64) -> bool {
        let Some(enq) = enq else {
            self.first_above_time = 0;
            return false;
        };
        let sojourn = p.units(now_ns.0.saturating_sub(enq.0));
        let small = match p.arith {
            CodelArith::Exact => backlog <= p.mtu,
            CodelArith::Ns3 => backlog < p.mtu,
        };
        if sojourn < p.target || small {
            self.first_above_time = 0;
            return false;
        }
        if self.first_above_time == 0 {
            self.first_above_time = p.add(now, p.interval);
            return false;
        }
        match p.arith {
            CodelArith::Exact => now >= self.first_above_time,
            CodelArith::Ns3 => now > self.first_above_time,
        }
    }

    /// CoDel's dequeue from `q` at `now`: drops go to `drops`; a mark is reported with the packet.
    pub(crate) fn dequeue<P: Queued, Q: CodelQueue<P>>(&mut self, p: &CodelParams, q: &mut Q, now_ns: Time, drops: &mut Vec<(P, DropReason)>) -> Option<Dequeued<P>> {
        let Some(mut pkt) = q.pop() else {
            self.dropping = false;
            return None;
        };
        let now = p.units(now_ns.0);
        let mut ok = self.ok_to_drop(p, Some(pkt.enqueued_at()), now_ns, now, q.backlog());
        if self.dropping {
            if !ok {
                self.dropping = false;
                return Some(Dequeued::plain(pkt));
            }
            while self.dropping && now >= self.drop_next {
                self.count = self.count.wrapping_add(1);
                self.newton(p);
                if p.ecn && pkt.ecn() != Ecn::NotEct {
                    pkt.set_ce();
                    let from = match p.arith {
                        CodelArith::Exact => self.drop_next,
                        CodelArith::Ns3 => now,
                    };
                    self.drop_next = self.control_law(p, from);
                    return Some(Dequeued { pkt, mark: Some(MarkReason::CodelTargetExceeded) });
                }
                drops.push((pkt, DropReason::CodelTargetExceeded));
                let next = q.pop();
                ok = self.ok_to_drop(p, next.as_ref().map(|n| n.enqueued_at()), now_ns, now, q.backlog());
                let Some(n) = next else {
                    self.dropping = false;
                    return None;
                };
                pkt = n;
                if !ok {
                    self.dropping = false;
                } else {
                    self.drop_next = self.control_law(p, self.drop_next);
                }
            }
            return Some(Dequeued::plain(pkt));
        }
        if !ok {
            return Some(Dequeued::plain(pkt));
        }
        // Enter the dropping state: drop (or mark) this packet.
        let mut mark = None;
        let mut out = Some(pkt);
        if p.ecn && out.as_ref().is_some_and(|k| k.ecn() != Ecn::NotEct) {
            let k = out.as_mut().expect("checked");
            k.set_ce();
            mark = Some(MarkReason::CodelTargetExceeded);
        } else {
            drops.push((out.take().expect("checked"), DropReason::CodelTargetExceeded));
            out = q.pop();
            self.ok_to_drop(p, out.as_ref().map(|n| n.enqueued_at()), now_ns, now, q.backlog());
        }
        self.dropping = true;
        let delta = self.count.wrapping_sub(self.lastcount);
        let recent = match p.arith {
            CodelArith::Exact => (now as i128 - self.drop_next as i128) < 16 * p.interval as i128,
            CodelArith::Ns3 => ((now as u32).wrapping_sub(self.drop_next as u32) as i64) < (16u32.wrapping_mul(p.interval as u32)) as i64,
        };
        if delta > 1 && delta < u32::MAX / 2 && recent {
            self.count = delta;
            self.newton(p);
        } else {
            self.count = 1;
            self.rec_inv_sqrt = u16::MAX;
        }
        self.lastcount = self.count;
        self.drop_next = self.control_law(p, now);
        out.map(|pkt| Dequeued { pkt, mark })
    }

    #[cfg(test)]
    pub(crate) fn peek(&self) -> (u32, u32, bool, u64) {
        (self.count, self.lastcount, self.dropping, self.drop_next)
    }
}

/// A CoDel queue.
#[derive(Debug)]
pub struct Codel<P> {
    limit: QueueLimit,
    params: CodelParams,
    state: CodelState,
    q: Fifo<P>,
}

impl<P: Queued> Codel<P> {
    /// CoDel draws nothing from `rng`.
    pub fn from_config(cfg: &CodelConfig, _rng: &mut RngStream) -> Self {
        Codel { limit: cfg.limit, params: CodelParams::new(cfg.target, cfg.interval, cfg.mtu, cfg.ecn, cfg.arith), state: CodelState::new(), q: Fifo::default() }
    }
}

impl<P: Queued> QueueDisc<P> for Codel<P> {
    fn name(&self) -> &'static str {
        "codel"
    }

    fn enqueue(&mut self, mut pkt: P, now: Time, _cx: &mut QdiscCx<'_, P>) -> Enqueue<P> {
        let fits = match self.limit {
            QueueLimit::Packets(n) => (self.q.q.len() as u64) < n as u64,
            QueueLimit::Bytes(b) => self.q.bytes + pkt.len_bytes() as u64 <= b,
        };
        if !fits {
            return Enqueue::Dropped(DropReason::Overlimit, pkt);
        }
        pkt.stamp(now);
        self.q.push(pkt);
        Enqueue::Queued
    }

    fn dequeue(&mut self, now: Time, cx: &mut QdiscCx<'_, P>) -> Option<Dequeued<P>> {
        self.state.dequeue(&self.params, &mut self.q, now, cx.dequeue_drops)
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy { packets: self.q.q.len() as u32, bytes: self.q.bytes }
    }

    fn limit(&self) -> QueueLimit {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::super::testpkt::TestPkt;
    use super::*;

    const MS: u64 = 1_000_000;

    // tests the bounds of each time parameter at their edges, the field each error names, and
    // the ns-3 profile's defaults (ns-3.44 `CoDelQueueDisc`: 1,500,000 bytes, its arithmetic;
    // RFC 8289's 5 ms and 100 ms).
    #[test]
    fn times_are_checked_at_their_bounds_and_the_ns3_profile_takes_its_limit() {
        let d = Dur;
        let ok = |t: u64, i: u64, a: CodelArith| check_codel_times(d(t), d(i), a).map_err(|e| e.field);
        let min = 60_000_000_000;
        assert_eq!(ok(5 * MS, 100 * MS, CodelArith::Exact), Ok(()));
        assert_eq!(ok(5 * MS, 0, CodelArith::Exact), Err("interval"));
        assert_eq!(ok(5 * MS, min, CodelArith::Exact), Ok(()), "60 s is the largest interval");
        assert_eq!(ok(5 * MS, min + 1, CodelArith::Exact), Err("interval"));
        assert_eq!(ok(0, 100 * MS, CodelArith::Exact), Err("target"));
        assert_eq!(ok(100 * MS, 100 * MS, CodelArith::Exact), Err("target"), "target must be below interval");
        assert_eq!(ok(100 * MS - 1, 100 * MS, CodelArith::Exact), Ok(()));
        assert_eq!(ok(1023, 100 * MS, CodelArith::Ns3), Err("target"), "below ns-3's 1,024 ns unit");
        assert_eq!(ok(1024, 100 * MS, CodelArith::Ns3), Ok(()));
        assert_eq!(ok(1023, 100 * MS, CodelArith::Exact), Ok(()), "the exact arithmetic has no unit");
        let e = check_codel_times(d(200 * MS), d(100 * MS), CodelArith::Exact).unwrap_err();
        assert_eq!(e.to_string(), "target: must be greater than 0 and less than interval (100ms), got 200ms");
        assert_eq!(CodelConfig { limit: QueueLimit::Packets(0), ..CodelConfig::default() }.validate().map_err(|e| e.field), Err("limit"));
        assert_eq!(CodelConfig { target: d(0), ..CodelConfig::default() }.validate().map_err(|e| e.field), Err("target"));
        let n = CodelConfig::for_profile(Profile::Ns3_44);
        assert_eq!(n, CodelConfig { limit: QueueLimit::Bytes(1_500_000), arith: CodelArith::Ns3, ..CodelConfig::default() });
        assert_eq!((n.target, n.interval, n.mtu, n.ecn), (d(5 * MS), d(100 * MS), 1500, false));
        assert_eq!(CodelConfig::for_profile(Profile::Sluice), CodelConfig::default());
    }

    /// A standing queue: prefilled with 20 packets of 1000 B at `T0 − 20 ms`, then every 1 ms
    /// one packet arrives and one is dequeued, so a packet dequeued from `T0` on has waited
    /// 20 ms less 1 ms per drop so far (above target for the first 14 drops) with the rest
    /// behind it. Runs
    /// until `until` and returns, per drop, the instant (from `T0`) and CoDel's
    /// `(count, drop_next)` after it (`drop_next` in the arithmetic's units).
    fn standing_queue(cfg: &CodelConfig, until: u64) -> (Codel<TestPkt>, Vec<(u64, u32, u64)>) {
        let mut rng = RngStream::from_seed(1);
        let mut q = Codel::from_config(cfg, &mut rng);
        let mut drops = Vec::new();
        let mut log = Vec::new();
        let mut id = 0;
        let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
        for _ in 0..20 {
            let _ = q.enqueue(TestPkt::new(id, 1000), Time(T0 - 20 * MS), &mut cx);
            id += 1;
        }
        let mut t = T0;
        while t <= until {
            let _ = q.enqueue(TestPkt::new(id, 1000), Time(t), &mut cx);
            id += 1;
            let before = cx.dequeue_drops.len();
            let _ = q.dequeue(Time(t), &mut cx);
            for _ in before..cx.dequeue_drops.len() {
                let (count, _, _, next) = q.state.peek();
                log.push((t - T0, count, next));
            }
            t += MS;
        }
        (q, log)
    }

    const T0: u64 = 1_000 * MS;

    // RFC 8289's schedule with no re-use, exact arithmetic. The sojourn time is above target
    // from T0, so `first_above_time = T0 + 100 ms` and the first drop is at 100 ms (count 1,
    // next at 200 ms). Each later drop schedules the next from the previous `drop_next`, not
    // from the (1 ms tick) instant it happened: 100 ms/√2 = 70,710,678.1 ns, /√3 = 57,735,026.9,
    // /√4 = 50,000,000, /√5 = 44,721,359.5, /√6 = 40,824,829.0 (floored):
    //   drop_next 200 → 270.710678 → 328.445704 → 378.445704 → 423.167063 → 463.991892 ms,
    // and the drops fall on the first 1 ms tick at or after each: 100, 200, 271, 329, 379, 424.
    #[test]
    fn control_law_schedules_from_the_previous_drop_next() {
        let (_, log) = standing_queue(&CodelConfig::default(), T0 + 424 * MS);
        let log: Vec<_> = log.into_iter().map(|(t, c, next)| (t, c, next - T0)).collect();
        assert_eq!(
            log,
            [(100 * MS, 1, 200 * MS), (200 * MS, 2, 270_710_678), (271 * MS, 3, 328_445_704), (329 * MS, 4, 378_445_704), (379 * MS, 5, 423_167_063), (424 * MS, 6, 463_991_892)]
        );
    }

    // Re-entry within 16 intervals re-uses the rate of the last episode. Leave the dropping
    // state with count 4 and lastcount 1 (the episode above, stopped after its fourth drop at
    // 329 ms, by draining the queue so the backlog falls to one MTU): delta = 3 > 1 and
    // `now − drop_next` < 1.6 s, so count = 3 and the next drop is 100 ms/√3 = 57,735,026 ns
    // after the re-entry.
    #[test]
    fn reentry_reuses_count_minus_lastcount() {
        let (mut q, log) = standing_queue(&CodelConfig::default(), T0 + 329 * MS);
        assert_eq!(log.last().map(|l| l.1), Some(4));
        assert_eq!(q.state.peek().1, 1, "lastcount");
        let mut rng = RngStream::from_seed(1);
        let mut drops = Vec::new();
        let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
        // Drain at 330 ms: the dequeue that leaves ≤ 1500 B behind ends the dropping state.
        let t = Time(T0 + 330 * MS);
        while q.dequeue(t, &mut cx).is_some() {}
        assert!(!q.state.peek().2, "left the dropping state");
        assert!(cx.dequeue_drops.is_empty(), "no drops while draining: the count is not due again until 378 ms");
        // Refill at 340 ms; the sojourn is above target again from 350 ms, so at 450 ms
        // (first_above_time + interval) CoDel re-enters: 450 − 378.4 ms is within 16 intervals.
        let mut id = 10_000;
        let mut now = T0 + 340 * MS;
        for _ in 0..10 {
            let _ = q.enqueue(TestPkt::new(id, 1000), Time(now), &mut cx);
            id += 1;
        }
        now += 10 * MS;
        let entered = loop {
            let _ = q.enqueue(TestPkt::new(id, 1000), Time(now), &mut cx);
            id += 1;
            let _ = q.dequeue(Time(now), &mut cx);
            if !cx.dequeue_drops.is_empty() {
                break now;
            }
            now += MS;
        };
        assert_eq!(entered, T0 + 450 * MS);
        let (count, lastcount, dropping, next) = q.state.peek();
        assert_eq!((count, lastcount, dropping), (3, 3, true));
        assert_eq!(next - entered, 57_735_026);
        let _ = log;
    }

    // ns-3's arithmetic: 1.024 µs units and Newton's reciprocal, computed by hand with
    // ns-3.44's formulas (units u = ⌊ns/1024⌋; interval 97,656 u; T0 = 976,562 u):
    //   first_above_time = T0u + 97,656 = 1,074,218 u, and the drop needs now > it; at
    //   100 ms now is 1,074,218 u (equal), so the first drop comes one tick late, at 101 ms
    //   (1,075,195 u): count 1, drop_next = now + ⌊97,656 · 0xFFFF0000 / 2³²⌋
    //   = 1,075,195 + 97,654 = 1,172,849 u;
    //   at 200 ms (1,171,875 u) not yet due; at 201 ms (1,172,851 u) count 2 and one Newton step
    //   from 1: r = 1·(3 − 2·1)/2 ≈ 0.5, 0x8001 in 16 bits (ns-3, like Linux, converges over
    //   successive counts), so drop_next = 1,172,849 + ⌊97,656 · 0x80010000 / 2³²⌋
    //   = 1,172,849 + 48,829 = 1,221,678 u (about 50 ms, where the exact law gives 70.7).
    #[test]
    fn ns3_arithmetic_follows_ns3() {
        assert_eq!(newton_step(0xFFFF, 2), 0x8001);
        let cfg = CodelConfig { arith: CodelArith::Ns3, ..CodelConfig::default() };
        let (_, log) = standing_queue(&cfg, T0 + 201 * MS);
        assert_eq!(log, [(101 * MS, 1, 1_172_849), (201 * MS, 2, 1_221_678)]);
    }

    // With ECN an ECT packet is marked where a Not-ECT one would be dropped, and delivered;
    // the mark is reported with it. A Not-ECT packet chosen is dropped.
    #[test]
    fn ecn_marks_ect_and_drops_not_ect() {
        let cfg = CodelConfig { ecn: true, ..CodelConfig::default() };
        let mut rng = RngStream::from_seed(1);
        let mut q: Codel<TestPkt> = Codel::from_config(&cfg, &mut rng);
        let mut drops = Vec::new();
        let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
        for i in 0..10u32 {
            let mut p = TestPkt::new(i, 1000);
            p.ecn = if i == 0 || i == 1 { Ecn::Ect0 } else { Ecn::NotEct };
            let _ = q.enqueue(p, Time(0), &mut cx);
        }
        // 10 ms later: above target, first_above_time = 110 ms; nothing dropped.
        let d = q.dequeue(Time(10 * MS), &mut cx).unwrap();
        assert_eq!((d.pkt.id, d.mark), (0, None));
        // At 110 ms the head (ECT) is marked and delivered, and the dropping state begins.
        let d = q.dequeue(Time(110 * MS), &mut cx).unwrap();
        assert_eq!((d.pkt.id, d.pkt.ecn, d.mark), (1, Ecn::Ce, Some(MarkReason::CodelTargetExceeded)));
        assert!(cx.dequeue_drops.is_empty());
        // At 210 ms (drop_next) the head is Not-ECT: dropped, the next one returned.
        let d = q.dequeue(Time(210 * MS), &mut cx).unwrap();
        assert_eq!(cx.dequeue_drops.iter().map(|(p, r)| (p.id, *r)).collect::<Vec<_>>(), [(2, DropReason::CodelTargetExceeded)]);
        assert_eq!((d.pkt.id, d.mark), (3, None));
    }

    // Nothing is dropped while at most one MTU remains behind the head, however long it waited.
    #[test]
    fn a_backlog_of_one_mtu_is_not_a_standing_queue() {
        let mut rng = RngStream::from_seed(1);
        let mut q: Codel<TestPkt> = Codel::from_config(&CodelConfig::default(), &mut rng);
        let mut drops = Vec::new();
        let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
        // Two 1500 B packets per 100 ms step, one dequeued per step: after the head leaves,
        // 1500 B (one MTU) remain; the sojourn grows without bound, yet nothing is dropped.
        let _ = q.enqueue(TestPkt::new(0, 1500), Time(0), &mut cx);
        for k in 1..50u64 {
            let _ = q.enqueue(TestPkt::new(k as u32, 1500), Time(k * 100 * MS), &mut cx);
            assert!(q.dequeue(Time(k * 100 * MS + 50 * MS), &mut cx).is_some());
        }
        assert!(cx.dequeue_drops.is_empty());
    }

    // tests the edges of RFC 8289's `dodequeue` test on one popped packet: a sojourn of
    // exactly `target` counts as above it (only `sojourn < target` resets), and the backlog
    // left behind is "small" at ≤ one MTU (RFC 8289, Linux) but only below one MTU in ns-3's
    // reading. Above target, the first such packet starts the clock: first_above_time =
    // now + interval (ns-3: in 1,024 ns units, 110 ms → 107,421 + 97,656 = 205,077).
    #[test]
    fn the_target_and_one_mtu_are_edges_of_the_standing_queue_test() {
        let above = |arith: CodelArith, sojourn: u64, backlog: u64| {
            let p = CodelParams::new(Dur::from_millis(5), Dur::from_millis(100), 1500, false, arith);
            let mut st = CodelState::new();
            let now = Time(100 * MS + sojourn);
            assert!(!st.ok_to_drop(&p, Some(Time(100 * MS)), now, p.units(now.0), backlog), "the first packet above target only starts the clock");
            st.first_above_time
        };
        let exact = CodelArith::Exact;
        assert_eq!(above(exact, 5 * MS, 3000), 105 * MS + 100 * MS, "a sojourn of exactly target");
        assert_eq!(above(exact, 5 * MS - 1, 3000), 0, "just below target");
        assert_eq!(above(exact, 10 * MS, 1500), 0, "one MTU behind: small");
        assert_eq!(above(exact, 10 * MS, 1501), 210 * MS);
        assert_eq!(above(CodelArith::Ns3, 10 * MS, 1499), 0);
        assert_eq!(above(CodelArith::Ns3, 10 * MS, 1500), 205_077, "ns-3: one MTU behind is not small");
    }

    // tests that without ECN an ECT packet is dropped like any other (the mark is for `ecn =
    // true` only): the standing queue's first drop at 100 ms takes the head, ECT or not.
    #[test]
    fn without_ecn_an_ect_packet_is_dropped() {
        let mut rng = RngStream::from_seed(1);
        let mut q: Codel<TestPkt> = Codel::from_config(&CodelConfig::default(), &mut rng);
        let mut drops = Vec::new();
        let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
        for i in 0..10u32 {
            let _ = q.enqueue(TestPkt { ecn: Ecn::Ect0, ..TestPkt::new(i, 1000) }, Time(0), &mut cx);
        }
        assert_eq!(q.dequeue(Time(10 * MS), &mut cx).map(|d| (d.pkt.id, d.mark)), Some((0, None)));
        let d = q.dequeue(Time(110 * MS), &mut cx).unwrap();
        assert_eq!(cx.dequeue_drops.iter().map(|(p, r)| (p.id, *r)).collect::<Vec<_>>(), [(1, DropReason::CodelTargetExceeded)]);
        assert_eq!((d.pkt.id, d.pkt.ecn, d.mark), (2, Ecn::Ect0, None));
    }

    /// Enter the dropping state at `now` from a state with `count` and `lastcount` after an
    /// episode whose last `drop_next` was `drop_next` (ns for the exact arithmetic, units for
    /// ns-3's), its reciprocal at `rec`, with ten 1000 B packets queued since 0 and the sojourn
    /// above target for an interval already. Returns (count, rec_inv_sqrt) after the entry.
    fn enter(arith: CodelArith, count: u32, lastcount: u32, drop_next: u64, rec: u16, now: u64) -> (u32, u16) {
        let cfg = CodelConfig { arith, ..CodelConfig::default() };
        let mut rng = RngStream::from_seed(1);
        let mut q: Codel<TestPkt> = Codel::from_config(&cfg, &mut rng);
        let mut drops = Vec::new();
        let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
        for i in 0..10u32 {
            let _ = q.enqueue(TestPkt::new(i, 1000), Time(0), &mut cx);
        }
        q.state = CodelState { count, lastcount, dropping: false, rec_inv_sqrt: rec, first_above_time: 1, drop_next };
        assert!(q.dequeue(Time(now), &mut cx).is_some());
        assert_eq!(cx.dequeue_drops.len(), 1, "entered the dropping state");
        (q.state.count, q.state.rec_inv_sqrt)
    }

    // tests RFC 8289's re-entry rule at its edges: count − lastcount is re-used when it is
    // above 1 (and not a wrapped difference, ≥ 2³¹ − 1) and the last episode's drop_next lies
    // less than 16 intervals back (1.6 s; ns-3: 16 · 97,656 units); otherwise count restarts
    // at 1, and ns-3's reciprocal at 1 (0xFFFF) rather than a Newton step from the old one.
    #[test]
    fn reentry_reuses_the_count_only_within_sixteen_intervals() {
        let (exact, ns3) = (CodelArith::Exact, CodelArith::Ns3);
        let now = 10_000 * MS;
        let sixteen = 1_600 * MS;
        assert_eq!(enter(exact, 5, 1, now - sixteen + 1, u16::MAX, now).0, 4, "just inside");
        assert_eq!(enter(exact, 5, 1, now - sixteen, u16::MAX, now).0, 1, "exactly 16 intervals back");
        assert_eq!(enter(exact, 5, 1, now - 2 * 100 * MS, u16::MAX, now).0, 4, "two intervals back");
        assert_eq!(enter(exact, 5, 3, now - MS, u16::MAX, now).0, 2);
        assert_eq!(enter(exact, 5, 4, now - MS, u16::MAX, now).0, 1, "a difference of 1 restarts");
        assert_eq!(enter(exact, 5 + u32::MAX / 2, 5, now - MS, u16::MAX, now).0, 1, "a wrapped difference restarts");
        assert_eq!(enter(exact, 4 + u32::MAX / 2, 5, now - MS, u16::MAX, now).0, u32::MAX / 2 - 1);
        let now_u = (now >> 10) as u32 as u64;
        let sixteen_u = 16 * 97_656;
        assert_eq!(enter(ns3, 5, 1, now_u - sixteen_u + 1, 0x8001, now).0, 4);
        assert_eq!(enter(ns3, 5, 1, now_u - sixteen_u, 0x8001, now).0, 1);
        assert_eq!(enter(ns3, 5, 1, now_u - 10, 0x8001, now).0, 4);
        assert_eq!(enter(ns3, 5, 4, now_u - 10, 0x8001, now), (1, u16::MAX), "restart: the reciprocal of 1");
    }

    // tests a byte limit: a packet is admitted while the bytes queued with it stay within the
    // limit (3,000 B: three 1000 B packets, not a fourth).
    #[test]
    fn a_byte_limit_admits_up_to_its_bytes() {
        let mut rng = RngStream::from_seed(1);
        let mut q: Codel<TestPkt> = Codel::from_config(&CodelConfig { limit: QueueLimit::Bytes(3000), ..CodelConfig::default() }, &mut rng);
        let mut drops = Vec::new();
        let mut cx = QdiscCx { rng: &mut rng, dequeue_drops: &mut drops };
        let got: Vec<bool> = (0..4).map(|i| matches!(q.enqueue(TestPkt::new(i, 1000), Time(0), &mut cx), Enqueue::Queued)).collect();
        assert_eq!(got, [true, true, true, false]);
    }

    // 1/√count by ⌊√(interval²/count)⌋ is exact: checked against the definition.
    #[test]
    fn isqrt_is_the_floor_square_root() {
        for n in [0u128, 1, 2, 3, 4, 15, 16, 17, 10u128.pow(16) / 3, u64::MAX as u128 * 7, u128::MAX] {
            let r = isqrt(n);
            assert!(r * r <= n, "{n}");
            assert!((r + 1).checked_mul(r + 1).is_none_or(|s| s > n), "{n}");
        }
    }
}
