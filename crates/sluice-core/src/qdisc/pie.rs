//! PIE, Proportional Integral controller Enhanced (RFC 8033), in two variants:
//!
//! * [`PieVariant::Rfc8033`] — RFC 8033 as ns-3.32+ (and ns-3.44) implement it: six
//!   auto-scaling tiers for the increment, a 2 % cap per update once `drop_prob ≥ 10 %`
//!   (RFC 8033 §5.5), decay by 0.98 while both delays are zero, a clamp to [0, 1], optional
//!   de-randomisation (§5.4) and ECN marking below `mark_ecnth`. The queue delay is the sojourn
//!   time of the last dequeued packet ([`PieQdelay::Timestamp`], ns-3's default) or
//!   `bytes/avg_dq_rate` from the dequeue-rate estimator ([`PieQdelay::Rate`]).
//! * [`PieVariant::Ns3_30`] — ns-3.30/3.31's `PieQueueDisc`: rate estimator only, scaling tiers
//!   `/32, /8, /2, ×2, ×8, ×32`, `+2 %` when the delay exceeds 200 ms, no clamp at 1, no ECN,
//!   no de-randomisation; defaults `QDELAY_REF` 20 ms, `T_UPDATE` 30 ms, 10,000 B threshold,
//!   100 ms burst allowance.
//!
//! Burst allowance: [`PieBurst::Rfc`] starts at `MAX_BURST`, counts down by `T_UPDATE` and is
//! re-armed whenever `drop_prob = 0` and both delays are under `QDELAY_REF/2`.
//! [`PieBurst::Ns3`] arms it when the first packet meets the early-drop test, holds
//! `drop_prob = 0` while it lasts, and re-arms only after 1.5 s of quiet.
//!
//! The `T_UPDATE` timer is not an event of its own: every enqueue and dequeue first runs the
//! updates that fell due at or before its time (the first at time zero), in order. Between two
//! packet events nothing the update reads changes, so this gives the same result as a timer
//! that fires every `T_UPDATE` and runs before packet events of the same instant.

use super::auto::Auto;
use super::red::Fifo;
use super::{Dequeued, DropReason, Enqueue, MarkReason, Occupancy, ParamError, Periodic, Profile, QdiscCx, QdiscParams, QueueDisc, Queued};
use crate::packet::Ecn;
use crate::rng::RngStream;
use crate::time::{Dur, Time};
use crate::units::{ByteSize, QueueLimit};
use serde::{Deserialize, Serialize};

/// Which PIE (see the module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PieVariant {
    #[serde(rename = "rfc8033")]
    Rfc8033,
    #[serde(rename = "ns3.30")]
    Ns3_30,
}

/// How the queue delay is measured.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PieQdelay {
    /// Sojourn time of the most recently dequeued packet; 0 when that dequeue emptied the queue.
    Timestamp,
    /// `bytes / avg_dq_rate` from the dequeue-rate estimator; 0 until it has a rate.
    Rate,
}

/// How the burst allowance is armed (see the module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PieBurst {
    Rfc,
    Ns3,
}

/// PIE's parameters, validated by the caller.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PieSettings {
    pub variant: PieVariant,
    pub limit: QueueLimit,
    pub qdelay_ref: Dur,
    pub t_update: Dur,
    /// α, per second (0.125).
    pub alpha: f64,
    /// β, per second (1.25).
    pub beta: f64,
    pub max_burst: Dur,
    /// Backlog (bytes) that starts a dequeue-rate measurement.
    pub dq_threshold: u64,
    /// Byte mode's reference size and the "two packets" of the work-conserving guard (bytes).
    pub mean_pkt_size: u32,
    pub qdelay: PieQdelay,
    pub burst: PieBurst,
    pub derandomize: bool,
    pub ecn: bool,
    /// ECN-capable packets are marked instead of dropped while `drop_prob` is below this.
    pub mark_ecnth: f64,
}

impl PieSettings {
    /// RFC 8033 with ns-3.44's defaults (`QueueDelayReference` 15 ms, `Tupdate` 15 ms,
    /// `MaxBurstAllowance` 150 ms, `DequeueThreshold` 16,384 B, `MeanPktSize` 1000 B, 25
    /// packets, timestamps), and the RFC's burst allowance.
    pub fn rfc8033() -> PieSettings {
        PieSettings {
            variant: PieVariant::Rfc8033,
            limit: QueueLimit::Packets(25),
            qdelay_ref: Dur::from_millis(15),
            t_update: Dur::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Dur::from_millis(150),
            dq_threshold: 16_384,
            mean_pkt_size: 1000,
            qdelay: PieQdelay::Timestamp,
            burst: PieBurst::Rfc,
            derandomize: false,
            ecn: false,
            mark_ecnth: 0.1,
        }
    }

    /// ns-3.44's `PieQueueDisc` as configured by default: [`PieSettings::rfc8033`] with ns-3's
    /// burst allowance.
    pub fn ns3_44() -> PieSettings {
        PieSettings { burst: PieBurst::Ns3, ..PieSettings::rfc8033() }
    }

    /// ns-3.30's `PieQueueDisc` defaults.
    pub fn ns3_30() -> PieSettings {
        PieSettings {
            variant: PieVariant::Ns3_30,
            qdelay_ref: Dur::from_millis(20),
            t_update: Dur::from_millis(30),
            max_burst: Dur::from_millis(100),
            dq_threshold: 10_000,
            qdelay: PieQdelay::Rate,
            burst: PieBurst::Ns3,
            ..PieSettings::rfc8033()
        }
    }
}

/// `{ kind = "pie", limit = "900pkt", ... }`. Only `limit` is required; keys at `"auto"` take
/// the variant's value (RFC 8033 as ns-3.44: target and `t_update` 15 ms, `max_burst` 150 ms,
/// `dq_threshold` 16,384 B, timestamps; ns-3.30: 20 ms, 30 ms, 100 ms, 10,000 B, rate).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieConfig {
    pub limit: QueueLimit,
    pub variant: PieVariant,
    /// `QDELAY_REF`.
    pub target: Auto<Dur>,
    pub t_update: Auto<Dur>,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: Auto<Dur>,
    pub dq_threshold: Auto<ByteSize>,
    pub mean_pkt_size: ByteSize,
    pub qdelay: Auto<PieQdelay>,
    /// `"auto"`: `"rfc"` for RFC 8033 (`"ns3"` under the ns-3 profile), `"ns3"` for ns-3.30.
    pub burst: Auto<PieBurst>,
    pub derandomize: bool,
    pub ecn: bool,
    pub mark_ecnth: f64,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            limit: QueueLimit::Packets(1000),
            variant: PieVariant::Rfc8033,
            target: Auto::Auto,
            t_update: Auto::Auto,
            alpha: 0.125,
            beta: 1.25,
            max_burst: Auto::Auto,
            dq_threshold: Auto::Auto,
            mean_pkt_size: ByteSize(1000),
            qdelay: Auto::Auto,
            burst: Auto::Auto,
            derandomize: false,
            ecn: false,
            mark_ecnth: 0.1,
        }
    }
}

impl PieConfig {
    /// ns-3.44's `PieQueueDisc` defaults: 25 packets and ns-3's burst allowance.
    pub fn ns3() -> Self {
        PieConfig { limit: QueueLimit::Packets(25), burst: Auto::Value(PieBurst::Ns3), ..PieConfig::default() }
    }

    pub fn settings(&self) -> Result<PieSettings, (&'static str, String)> {
        let zero = match self.limit {
            QueueLimit::Packets(p) => p == 0,
            QueueLimit::Bytes(b) => b == 0,
        };
        if zero {
            return Err(("limit", "must be greater than zero".into()));
        }
        if self.alpha.is_nan() || self.alpha <= 0.0 {
            return Err(("alpha", "must be > 0".into()));
        }
        if self.beta.is_nan() || self.beta <= 0.0 {
            return Err(("beta", "must be > 0".into()));
        }
        if !(0.0..=1.0).contains(&self.mark_ecnth) {
            return Err(("mark_ecnth", format!("must be in [0, 1], got {}", self.mark_ecnth)));
        }
        if self.mean_pkt_size.0 == 0 || self.mean_pkt_size.0 > u32::MAX as u64 {
            return Err(("mean_pkt_size", format!("must be between 1B and {}B, got {}", u32::MAX, self.mean_pkt_size)));
        }
        let base = match self.variant {
            PieVariant::Rfc8033 => PieSettings::rfc8033(),
            PieVariant::Ns3_30 => {
                let not = |f: &'static str, what: &str| Err((f, format!("{what} is not part of variant \"ns3.30\"")));
                if self.ecn {
                    return not("ecn", "ECN");
                }
                if self.derandomize {
                    return not("derandomize", "de-randomisation");
                }
                if self.qdelay == Auto::Value(PieQdelay::Timestamp) {
                    return not("qdelay", "\"timestamp\"");
                }
                if self.burst == Auto::Value(PieBurst::Rfc) {
                    return not("burst", "\"rfc\"");
                }
                PieSettings::ns3_30()
            }
        };
        let st = PieSettings {
            limit: self.limit,
            qdelay_ref: self.target.or(base.qdelay_ref),
            t_update: self.t_update.or(base.t_update),
            alpha: self.alpha,
            beta: self.beta,
            max_burst: self.max_burst.or(base.max_burst),
            dq_threshold: self.dq_threshold.value().map_or(base.dq_threshold, |b| b.0),
            mean_pkt_size: self.mean_pkt_size.0 as u32,
            qdelay: self.qdelay.or(base.qdelay),
            burst: self.burst.or(base.burst),
            derandomize: self.derandomize,
            ecn: self.ecn,
            mark_ecnth: self.mark_ecnth,
            ..base
        };
        if st.t_update == Dur::ZERO {
            return Err(("t_update", "must be greater than zero".into()));
        }
        if st.qdelay_ref == Dur::ZERO {
            return Err(("target", "must be greater than zero".into()));
        }
        if st.dq_threshold == 0 {
            return Err(("dq_threshold", "must be greater than zero".into()));
        }
        Ok(st)
    }
}

impl QdiscParams for PieConfig {
    const REQUIRED: &'static [&'static str] = &["limit"];
    fn for_profile(profile: Profile) -> Self {
        match profile {
            Profile::Sluice => PieConfig::default(),
            Profile::Ns3_44 => PieConfig::ns3(),
        }
    }
    fn validate(&self) -> Result<(), ParamError> {
        self.settings().map(|_| ()).map_err(|(f, m)| ParamError::new(f, m))
    }
}

/// ns-3's burst states.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum BurstState {
    NoBurst,
    Protecting,
    InBurst,
}

/// ns-3's "no measurement" count: all ones (adding to it wraps, as in ns-3).
const DQCOUNT_INVALID: u64 = u64::MAX;
/// Quiet time after which ns-3 re-arms the burst allowance, seconds.
const BURST_RESET_TIMEOUT: f64 = 1.5;

/// The PIE discipline.
#[derive(Debug)]
pub struct Pie<P> {
    cfg: PieSettings,
    fifo: Fifo<P>,
    drop_prob: f64,
    /// Current and previous queue delay (ns).
    qdelay: u64,
    qdelay_old: u64,
    burst_allowance: Dur,
    burst_state: BurstState,
    burst_reset: u32,
    accu_prob: f64,
    avg_dq_rate: f64,
    in_measurement: bool,
    dq_start: Time,
    dq_count: u64,
    timer: Periodic,
}

impl<P: Queued> Pie<P> {
    /// From a validated config. PIE draws nothing here.
    pub fn from_config(cfg: &PieConfig, _rng: &mut RngStream) -> Pie<P> {
        Pie::new(cfg.settings().unwrap_or_else(|(f, m)| panic!("an unvalidated PIE config: {f}: {m}")))
    }
    pub fn new(cfg: PieSettings) -> Pie<P> {
        Pie {
            cfg,
            fifo: Fifo::new(),
            drop_prob: 0.0,
            qdelay: 0,
            qdelay_old: 0,
            burst_allowance: match cfg.burst {
                PieBurst::Rfc => cfg.max_burst,
                PieBurst::Ns3 => Dur::ZERO,
            },
            burst_state: BurstState::NoBurst,
            burst_reset: 0,
            accu_prob: 0.0,
            avg_dq_rate: 0.0,
            in_measurement: false,
            dq_start: Time::ZERO,
            dq_count: DQCOUNT_INVALID,
            timer: Periodic::new(Time::ZERO, cfg.t_update),
        }
    }

    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }
    /// The queue delay PIE currently works with.
    pub fn qdelay(&self) -> Dur {
        Dur(self.qdelay)
    }
    pub fn config(&self) -> &PieSettings {
        &self.cfg
    }

    fn rate_mode(&self) -> bool {
        self.cfg.variant == PieVariant::Ns3_30 || self.cfg.qdelay == PieQdelay::Rate
    }
    fn ns3_burst(&self) -> bool {
        self.cfg.variant == PieVariant::Ns3_30 || self.cfg.burst == PieBurst::Ns3
    }

    /// Run every update due at or before `now`.
    pub fn catch_up(&mut self, now: Time) {
        while self.timer.next_due(now).is_some() {
            self.update();
        }
    }

    /// `p` scaled by the tier of the current `drop_prob`.
    fn scale(&self, p: f64) -> f64 {
        let d = self.drop_prob;
        match self.cfg.variant {
            PieVariant::Rfc8033 => {
                if d < 1e-6 {
                    p / 2048.0
                } else if d < 1e-5 {
                    p / 512.0
                } else if d < 1e-4 {
                    p / 128.0
                } else if d < 1e-3 {
                    p / 32.0
                } else if d < 1e-2 {
                    p / 8.0
                } else if d < 1e-1 {
                    p / 2.0
                } else {
                    p
                }
            }
            PieVariant::Ns3_30 => {
                if d < 0.001 {
                    p / 32.0
                } else if d < 0.01 {
                    p / 8.0
                } else if d < 0.1 {
                    p / 2.0
                } else if d < 1.0 {
                    p / 0.5
                } else if d < 10.0 {
                    p / 0.125
                } else {
                    p / 0.03125
                }
            }
        }
    }

    /// One `T_UPDATE` step.
    fn update(&mut self) {
        let c = self.cfg;
        let mut missing_rate = false;
        let qdelay = if self.rate_mode() {
            let q = if self.avg_dq_rate > 0.0 {
                (self.fifo.bytes as f64 / self.avg_dq_rate * 1e9).round() as u64
            } else {
                missing_rate = true;
                0
            };
            self.qdelay = q;
            q
        } else {
            self.qdelay
        };
        let secs = |ns: u64| ns as f64 / 1e9;
        let (qd, old, rf) = (secs(qdelay), secs(self.qdelay_old), c.qdelay_ref.as_secs_f64());
        let mut p = 0.0;
        if self.ns3_burst() && self.burst_allowance > Dur::ZERO {
            self.drop_prob = 0.0;
        } else {
            p = self.scale(c.alpha * (qd - rf) + c.beta * (qd - old));
            if self.drop_prob >= 0.1 && p > 0.02 {
                p = 0.02;
            }
        }
        p += self.drop_prob;
        if qdelay == 0 && self.qdelay_old == 0 {
            p *= 0.98;
        } else if c.variant == PieVariant::Ns3_30 && qd > 0.2 {
            p += 0.02;
        }
        self.drop_prob = match c.variant {
            PieVariant::Rfc8033 => p.clamp(0.0, 1.0),
            PieVariant::Ns3_30 => p.max(0.0),
        };
        self.burst_allowance = Dur(self.burst_allowance.0.saturating_sub(c.t_update.0));
        let quiet = qd < 0.5 * rf && old < 0.5 * rf && self.drop_prob == 0.0;
        if quiet && !missing_rate {
            self.dq_count = DQCOUNT_INVALID;
            self.avg_dq_rate = 0.0;
        }
        if self.ns3_burst() {
            let limit = (BURST_RESET_TIMEOUT / c.t_update.as_secs_f64()) as u32;
            if quiet && self.burst_allowance == Dur::ZERO {
                match self.burst_state {
                    BurstState::Protecting => {
                        self.burst_state = BurstState::InBurst;
                        self.burst_reset = 0;
                    }
                    BurstState::InBurst => {
                        self.burst_reset += 1;
                        if self.burst_reset > limit {
                            self.burst_reset = 0;
                            self.burst_state = BurstState::NoBurst;
                        }
                    }
                    BurstState::NoBurst => {}
                }
            } else if self.burst_state == BurstState::InBurst {
                self.burst_reset = 0;
            }
        } else if quiet {
            self.burst_allowance = c.max_burst;
        }
        self.qdelay_old = qdelay;
    }

    /// Whether an arrival of `len` bytes that finds `occ` queued is dropped early.
    fn drop_early(&mut self, len: u32, occ: Occupancy, rng: &mut RngStream) -> bool {
        let c = self.cfg;
        if self.burst_allowance > Dur::ZERO {
            return false;
        }
        if self.ns3_burst() && self.burst_state == BurstState::NoBurst {
            self.burst_state = BurstState::Protecting;
            self.burst_allowance = c.max_burst;
        }
        let bytes_mode = matches!(c.limit, QueueLimit::Bytes(_));
        let mut p = self.drop_prob;
        if bytes_mode {
            p = p * len as f64 / c.mean_pkt_size as f64;
        }
        // ns-3.30 draws before its guards; the RFC variant only when it gets to the draw.
        let early_u = (c.variant == PieVariant::Ns3_30).then(|| rng.uniform());
        let small = if bytes_mode { occ.bytes <= 2 * c.mean_pkt_size as u64 } else { occ.packets <= 2 };
        let old_low = (self.qdelay_old as f64) < 0.5 * c.qdelay_ref.0 as f64;
        if (old_low && self.drop_prob < 0.2) || small {
            return false;
        }
        if c.variant == PieVariant::Rfc8033 && c.derandomize {
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        let u = early_u.unwrap_or_else(|| rng.uniform());
        u < p
    }

    /// The dequeue-rate estimator, after `len` bytes left at `now`.
    fn measure(&mut self, len: u32, now: Time) {
        let c = self.cfg;
        if self.fifo.bytes >= c.dq_threshold && !self.in_measurement {
            self.dq_start = now;
            self.dq_count = 0;
            self.in_measurement = true;
        }
        if !self.in_measurement {
            return;
        }
        self.dq_count = self.dq_count.wrapping_add(len as u64);
        if self.dq_count >= c.dq_threshold {
            let dt = now.since(self.dq_start).as_secs_f64();
            if dt > 0.0 {
                let rate = self.dq_count as f64 / dt;
                self.avg_dq_rate = if self.avg_dq_rate == 0.0 { rate } else { 0.5 * self.avg_dq_rate + 0.5 * rate };
            }
            self.dq_count = 0;
            if self.fifo.bytes > c.dq_threshold {
                self.dq_start = now;
            } else {
                self.in_measurement = false;
            }
        }
    }
}

impl<P: Queued> QueueDisc<P> for Pie<P> {
    fn name(&self) -> &'static str {
        "pie"
    }

    fn enqueue(&mut self, mut pkt: P, now: Time, cx: &mut QdiscCx<'_, P>) -> Enqueue<P> {
        self.catch_up(now);
        let len = pkt.len_bytes();
        if !self.fifo.fits(self.cfg.limit, len) {
            self.accu_prob = 0.0;
            return Enqueue::Dropped(DropReason::Overlimit, pkt);
        }
        let mut marked = false;
        if self.drop_early(len, self.fifo.occ(), cx.rng) {
            let ect = matches!(pkt.ecn(), Ecn::Ect0 | Ecn::Ect1 | Ecn::Ce);
            let c = &self.cfg;
            if c.variant == PieVariant::Rfc8033 && c.ecn && self.drop_prob < c.mark_ecnth && ect {
                pkt.set_ce();
                marked = true;
            } else {
                self.accu_prob = 0.0;
                return Enqueue::Dropped(DropReason::PieEarly, pkt);
            }
        }
        self.fifo.push(pkt, now);
        if marked {
            Enqueue::QueuedMarked(MarkReason::PieEarly)
        } else {
            Enqueue::Queued
        }
    }

    fn dequeue(&mut self, now: Time, _cx: &mut QdiscCx<'_, P>) -> Option<Dequeued<P>> {
        self.catch_up(now);
        let p = self.fifo.pop()?;
        if self.rate_mode() {
            self.measure(p.len_bytes(), now);
        } else {
            self.qdelay = if self.fifo.bytes == 0 { 0 } else { now.since(p.enqueued_at()).0 };
        }
        Some(Dequeued::plain(p))
    }

    fn occupancy(&self) -> Occupancy {
        self.fifo.occ()
    }

    fn limit(&self) -> QueueLimit {
        self.cfg.limit
    }
}

#[cfg(test)]
mod tests {
    use super::super::testpkt::TestPkt;
    use super::*;

    fn ms(x: u64) -> u64 {
        x * 1_000_000
    }

    // tests PIE's update (RFC 8033): drop_prob 0.005, qdelay 25 ms, old 20 ms, ref 15 ms:
    // p = 0.125·0.010 + 1.25·0.005 = 0.0075; tier 10⁻³..10⁻² → /8 = 0.0009375;
    // drop_prob = 0.0059375. ns-3.30 (ref 20 ms): p = 0.125·0.005 + 1.25·0.005 = 0.006875,
    // /8 = 0.000859375 → 0.005859375.
    #[test]
    fn update_hand_values() {
        for (cfg, want) in [(PieSettings::rfc8033(), 0.0059375), (PieSettings::ns3_30(), 0.005859375)] {
            let mut q: Pie<TestPkt> = Pie::new(PieSettings { qdelay: PieQdelay::Timestamp, ..cfg });
            q.burst_allowance = Dur::ZERO;
            q.drop_prob = 0.005;
            q.qdelay_old = ms(20);
            if q.rate_mode() {
                // 25 ms of backlog at 1.25 MB/s: 31,250 bytes
                q.avg_dq_rate = 1.25e6;
                q.fifo.bytes = 31_250;
            } else {
                q.qdelay = ms(25);
            }
            q.update();
            assert!((q.drop_prob - want).abs() < 1e-12, "{:?}: {}", cfg.variant, q.drop_prob);
            assert_eq!(q.qdelay_old, ms(25));
        }
    }

    // tests the 2 % cap (RFC 8033 §5.5): at drop_prob 0.15 a delay of 1 s (old 0) gives
    // p = 0.125·(1 − 0.015) + 1.25·1 = 1.373125 (tier ≥ 0.1: unscaled) → capped at 0.02 → 0.17.
    #[test]
    fn step_is_capped_above_ten_percent() {
        let mut q: Pie<TestPkt> = Pie::new(PieSettings::rfc8033());
        q.burst_allowance = Dur::ZERO;
        q.drop_prob = 0.15;
        q.qdelay = ms(1000);
        q.update();
        assert!((q.drop_prob - 0.17).abs() < 1e-12, "{}", q.drop_prob);
        // below 10 % no cap: drop_prob 0.05, same delays → 0.05 + 1.373125/2 = 0.7365625
        let mut q: Pie<TestPkt> = Pie::new(PieSettings::rfc8033());
        q.burst_allowance = Dur::ZERO;
        q.drop_prob = 0.05;
        q.qdelay = ms(1000);
        q.update();
        assert!((q.drop_prob - 0.7365625).abs() < 1e-12, "{}", q.drop_prob);
    }

    // tests the decay: both delays zero → drop_prob·0.98 (p = 0.125·(−0.015)/2 = −0.0009375
    // first, as drop_prob 0.05 is in the /2 tier): (0.05 − 0.0009375)·0.98 = 0.04808125.
    #[test]
    fn decays_when_both_delays_are_zero() {
        let mut q: Pie<TestPkt> = Pie::new(PieSettings::rfc8033());
        q.burst_allowance = Dur::ZERO;
        q.drop_prob = 0.05;
        q.update();
        assert!((q.drop_prob - 0.04808125).abs() < 1e-12, "{}", q.drop_prob);
    }

    // tests the ns-3.30 extras: +0.02 above 200 ms, no clamp at 1.
    #[test]
    fn ns3_30_extras() {
        let mut q: Pie<TestPkt> = Pie::new(PieSettings::ns3_30());
        q.drop_prob = 0.99;
        q.qdelay_old = ms(300);
        q.avg_dq_rate = 1e6;
        q.fifo.bytes = 300_000; // 300 ms
        q.update();
        // p = 0.125·0.28 + 0 = 0.035, tier <1 → ×2 = 0.07 → cap 0.02; +0.99; +0.02 = 1.03
        assert!((q.drop_prob - 1.03).abs() < 1e-12, "{}", q.drop_prob);
    }

    // tests the work-conserving guards: no drop while the old delay is under half the
    // reference and drop_prob < 0.2, nor with ≤ 2 packets queued; drop_prob 1 drops otherwise.
    #[test]
    fn guards_and_certain_drop() {
        let mut rng = RngStream::from_seed(5);
        let mut q: Pie<TestPkt> = Pie::new(PieSettings { limit: QueueLimit::Packets(100), ..PieSettings::rfc8033() });
        q.burst_allowance = Dur::ZERO;
        q.drop_prob = 0.19;
        let occ3 = Occupancy { packets: 3, bytes: 3000 };
        assert!(!q.drop_early(1000, occ3, &mut rng)); // old delay 0 < 7.5 ms
        q.qdelay_old = ms(10);
        q.drop_prob = 1.0;
        assert!(!q.drop_early(1000, Occupancy { packets: 2, bytes: 2000 }, &mut rng));
        assert!(q.drop_early(1000, occ3, &mut rng));
        // an allowance left: never
        q.burst_allowance = Dur::from_millis(1);
        assert!(!q.drop_early(1000, occ3, &mut rng));
    }

    // tests de-randomisation (RFC 8033 §5.4): at drop_prob 0.3 accu grows 0.3, 0.6, 0.9: the
    // first two arrivals pass without a draw; at 8.5 and above a drop is certain.
    #[test]
    fn derandomization() {
        let mut rng = RngStream::from_seed(5);
        let mut q: Pie<TestPkt> = Pie::new(PieSettings { derandomize: true, ..PieSettings::rfc8033() });
        q.burst_allowance = Dur::ZERO;
        q.drop_prob = 0.3;
        q.qdelay_old = ms(20);
        let occ = Occupancy { packets: 5, bytes: 5000 };
        let before = rng.clone();
        assert!(!q.drop_early(1000, occ, &mut rng));
        assert!(!q.drop_early(1000, occ, &mut rng));
        assert_eq!(rng.next_u64(), before.clone().next_u64(), "no draw below 0.85");
        q.accu_prob = 8.4;
        assert!(q.drop_early(1000, occ, &mut rng));
    }

    // tests the burst allowances. RFC: starts at MAX_BURST (150 ms = 10 updates of 15 ms) and is
    // re-armed while quiet; ns-3: zero until the first early-drop test, then 150 ms, and
    // drop_prob held at 0 while it lasts.
    #[test]
    fn burst_allowance_variants() {
        let mut rng = RngStream::from_seed(5);
        let mut rfc: Pie<TestPkt> = Pie::new(PieSettings::rfc8033());
        assert_eq!(rfc.burst_allowance, Dur::from_millis(150));
        rfc.update(); // quiet: re-armed
        assert_eq!(rfc.burst_allowance, Dur::from_millis(150));
        rfc.qdelay = ms(40);
        rfc.update();
        assert_eq!(rfc.burst_allowance, Dur::from_millis(135));
        assert!(rfc.drop_prob > 0.0, "the RFC variant does not hold drop_prob at 0");

        let mut n3: Pie<TestPkt> = Pie::new(PieSettings::ns3_44());
        assert_eq!(n3.burst_allowance, Dur::ZERO);
        n3.drop_early(1000, Occupancy::default(), &mut rng);
        assert_eq!((n3.burst_allowance, n3.burst_state), (Dur::from_millis(150), BurstState::Protecting));
        n3.qdelay = ms(40);
        n3.update();
        assert_eq!((n3.drop_prob, n3.burst_allowance), (0.0, Dur::from_millis(135)));
        // allowance used up, then quiet for 1.5 s (100 updates) + 1 → NoBurst again
        n3.burst_allowance = Dur::ZERO;
        n3.qdelay = 0;
        n3.qdelay_old = 0;
        n3.update();
        assert_eq!(n3.burst_state, BurstState::InBurst);
        for _ in 0..100 {
            n3.update();
        }
        assert_eq!(n3.burst_state, BurstState::InBurst);
        n3.update();
        assert_eq!(n3.burst_state, BurstState::NoBurst);
    }

    // tests ECN: an ECT packet selected for dropping is marked and queued while drop_prob is under
    // mark_ecnth (0.1), dropped at or above it; a Not-ECT packet is dropped.
    #[test]
    fn ecn_marks_below_threshold() {
        let mut rng = RngStream::from_seed(5);
        let mut q: Pie<TestPkt> = Pie::new(PieSettings { ecn: true, limit: QueueLimit::Packets(100), ..PieSettings::rfc8033() });
        let mut v = Vec::new();
        for i in 0..3 {
            q.fifo.push(TestPkt::new(i, 1000), Time(0));
        }
        q.burst_allowance = Dur::ZERO;
        q.timer = Periodic::new(Time::MAX, q.cfg.t_update);
        q.qdelay_old = ms(20);
        let ect = |id| TestPkt { ecn: Ecn::Ect0, ..TestPkt::new(id, 1000) };
        // drop_prob 0.09: about 18 of 200 ECT arrivals are selected, and all of them are marked.
        q.drop_prob = 0.09;
        let mut marked = 0;
        for i in 0..200 {
            match q.enqueue(ect(10 + i), Time(1), &mut QdiscCx { rng: &mut rng, dequeue_drops: &mut v }) {
                Enqueue::QueuedMarked(_) => marked += 1,
                Enqueue::Queued => {}
                Enqueue::Dropped(..) => panic!("ECT below mark_ecnth must not be dropped early"),
            }
            q.fifo.pop();
        }
        assert!(marked > 5, "{marked}");
        q.drop_prob = 1.0;
        assert!(matches!(q.enqueue(ect(1), Time(1), &mut QdiscCx { rng: &mut rng, dequeue_drops: &mut v }), Enqueue::Dropped(DropReason::PieEarly, _)));
        q.drop_prob = 0.05;
        let mut dropped = 0;
        for i in 0..200 {
            if let Enqueue::Dropped(DropReason::PieEarly, _) = q.enqueue(TestPkt::new(500 + i, 1000), Time(1), &mut QdiscCx { rng: &mut rng, dequeue_drops: &mut v }) {
                dropped += 1;
            } else {
                q.fifo.pop();
            }
        }
        assert!(dropped > 2, "{dropped}");
    }

    // tests lazy updates: a discipline driven only by packet events ends in exactly the state of
    // one whose updates are run by a per-tick driver at every multiple of T_UPDATE (before packet
    // events of the same instant), over a random arrival/departure pattern, in both delay modes.
    #[test]
    fn lazy_updates_equal_a_per_tick_driver() {
        for cfg in [PieSettings::ns3_44(), PieSettings::rfc8033(), PieSettings::ns3_30(), PieSettings { qdelay: PieQdelay::Rate, ..PieSettings::rfc8033() }] {
            let cfg = PieSettings { limit: QueueLimit::Packets(200), ..cfg };
            let mut ops = RngStream::from_seed(77);
            let (mut r1, mut r2) = (RngStream::from_seed(1), RngStream::from_seed(1));
            let (mut v1, mut v2) = (Vec::new(), Vec::new());
            let mut lazy: Pie<TestPkt> = Pie::new(cfg);
            let mut ticked: Pie<TestPkt> = Pie::new(cfg);
            let mut t = 0u64;
            let mut next_tick = 0u64;
            let mut out = (Vec::new(), Vec::new());
            let mut max_p = 0.0f64;
            for i in 0..20_000u32 {
                t += ops.below(400_000); // up to 0.4 ms between events: queues build at 1 Mpkt/s
                while next_tick <= t {
                    ticked.catch_up(Time(next_tick)); // the per-tick driver
                    next_tick += cfg.t_update.0;
                }
                let enq = ops.chance(if (i / 2000) % 2 == 0 { 0.7 } else { 0.4 });
                if enq {
                    let a = lazy.enqueue(TestPkt::new(i, 1000), Time(t), &mut QdiscCx { rng: &mut r1, dequeue_drops: &mut v1 });
                    let b = ticked.enqueue(TestPkt::new(i, 1000), Time(t), &mut QdiscCx { rng: &mut r2, dequeue_drops: &mut v2 });
                    assert_eq!(format!("{a:?}"), format!("{b:?}"));
                } else {
                    out.0.push(lazy.dequeue(Time(t), &mut QdiscCx { rng: &mut r1, dequeue_drops: &mut v1 }).map(|d| d.pkt.id));
                    out.1.push(ticked.dequeue(Time(t), &mut QdiscCx { rng: &mut r2, dequeue_drops: &mut v2 }).map(|d| d.pkt.id));
                }
                assert_eq!(lazy.drop_prob.to_bits(), ticked.drop_prob.to_bits(), "{:?} event {i}", cfg.variant);
                max_p = max_p.max(lazy.drop_prob);
            }
            assert_eq!(out.0, out.1);
            assert!(max_p > 0.01 && out.0.iter().any(|x| x.is_none()), "the run should exercise PIE: max drop_prob {max_p}");
        }
    }

    // tests the scenario-facing config: "auto" keys take the variant's values, options the
    // ns-3.30 code does not have are refused, and errors name their field.
    #[test]
    fn config_variants_and_errors() {
        let r = PieConfig::default().settings().unwrap();
        assert_eq!((r.qdelay_ref, r.t_update, r.max_burst, r.dq_threshold, r.qdelay, r.burst), (Dur::from_millis(15), Dur::from_millis(15), Dur::from_millis(150), 16_384, PieQdelay::Timestamp, PieBurst::Rfc));
        assert_eq!(PieConfig::ns3().settings().unwrap().burst, PieBurst::Ns3);
        let n = PieConfig { variant: PieVariant::Ns3_30, target: Auto::Value(Dur::from_millis(5)), ..PieConfig::default() }.settings().unwrap();
        assert_eq!((n.qdelay_ref, n.t_update, n.max_burst, n.dq_threshold, n.qdelay, n.burst), (Dur::from_millis(5), Dur::from_millis(30), Dur::from_millis(100), 10_000, PieQdelay::Rate, PieBurst::Ns3));
        let e = |c: PieConfig| c.settings().unwrap_err();
        assert_eq!(e(PieConfig { alpha: 0.0, ..PieConfig::default() }), ("alpha", "must be > 0".to_string()));
        assert_eq!(e(PieConfig { variant: PieVariant::Ns3_30, ecn: true, ..PieConfig::default() }).0, "ecn");
        assert_eq!(e(PieConfig { variant: PieVariant::Ns3_30, qdelay: Auto::Value(PieQdelay::Timestamp), ..PieConfig::default() }).0, "qdelay");
        assert_eq!(e(PieConfig { t_update: Auto::Value(Dur::ZERO), ..PieConfig::default() }).0, "t_update");
        assert_eq!(e(PieConfig { mark_ecnth: 1.5, ..PieConfig::default() }).0, "mark_ecnth");
    }

    // tests the tiers that scale PIE's step by the current drop probability, at each edge
    // (a tier's lower edge belongs to it) and inside: RFC 8033 §5.2 (/2048 below 10⁻⁶, /512,
    // /128, /32, /8, /2 up to 10⁻¹, then unscaled) and ns-3.30's own table (/32 below 10⁻³,
    // /8, /2 below 0.1, ×2 below 1, ×8 below 10, ×32 above).
    #[test]
    fn the_step_is_scaled_by_the_tier_of_drop_prob() {
        let at = |st: PieSettings, d: f64| {
            let mut q: Pie<TestPkt> = Pie::new(st);
            q.drop_prob = d;
            q.scale(1.0)
        };
        let rfc = PieSettings::rfc8033();
        let tiers = [(0.0, 2048.0), (0.9e-6, 2048.0), (1e-6, 512.0), (1e-5, 128.0), (1e-4, 32.0), (1e-3, 8.0), (1e-2, 2.0), (0.05, 2.0), (1e-1, 1.0), (0.5, 1.0)];
        for (d, div) in tiers {
            assert_eq!(at(rfc, d), 1.0 / div, "RFC 8033 at drop_prob {d}");
        }
        let n3 = PieSettings::ns3_30();
        let tiers = [(0.0, 1.0 / 32.0), (0.0005, 1.0 / 32.0), (0.001, 1.0 / 8.0), (0.01, 0.5), (0.1, 2.0), (0.5, 2.0), (1.0, 8.0), (10.0, 32.0), (20.0, 32.0)];
        for (d, f) in tiers {
            assert_eq!(at(n3, d), f, "ns-3.30 at drop_prob {d}");
        }
    }

    // tests which delay estimate each set-up uses: timestamps for RFC 8033 by default, the
    // dequeue rate when asked and always for ns-3.30; and the accessors reporting the state.
    #[test]
    fn the_delay_comes_from_timestamps_or_the_dequeue_rate() {
        let mode = |st: PieSettings| Pie::<TestPkt>::new(st).rate_mode();
        assert!(!mode(PieSettings::rfc8033()));
        assert!(mode(PieSettings { qdelay: PieQdelay::Rate, ..PieSettings::rfc8033() }));
        assert!(mode(PieSettings::ns3_30()));
        let mut q: Pie<TestPkt> = Pie::new(PieSettings::rfc8033());
        q.burst_allowance = Dur::ZERO;
        q.drop_prob = 0.005;
        q.qdelay = ms(25);
        q.qdelay_old = ms(20);
        q.update();
        assert!((q.drop_prob() - 0.0059375).abs() < 1e-12, "{}", q.drop_prob());
        assert_eq!(q.qdelay(), Dur::from_millis(25));
        // Without a dequeue rate yet, the rate estimate is no delay at all, however many bytes
        // wait (30,000 here): drop_prob stays 0 (α·(0 − 20 ms), scaled, is negative).
        let mut q: Pie<TestPkt> = Pie::new(PieSettings::ns3_30());
        q.fifo.bytes = 30_000;
        q.update();
        assert_eq!((q.qdelay(), q.drop_prob()), (Dur::ZERO, 0.0));
    }

    // tests that every parameter given reaches the settings (none left at the variant's
    // value), the ns-3 profile's 25 packets, and the checks' edges: β must be a positive
    // number like α, and mean_pkt_size from 1 B to 4,294,967,295 B.
    #[test]
    fn given_parameters_reach_the_settings_and_are_checked() {
        let c = PieConfig {
            limit: QueueLimit::Bytes(60_000),
            target: Auto::Value(Dur::from_millis(7)),
            t_update: Auto::Value(Dur::from_millis(9)),
            alpha: 0.25,
            beta: 2.5,
            max_burst: Auto::Value(Dur::from_millis(40)),
            dq_threshold: Auto::Value(ByteSize(5_000)),
            mean_pkt_size: ByteSize(1_400),
            qdelay: Auto::Value(PieQdelay::Rate),
            burst: Auto::Value(PieBurst::Ns3),
            derandomize: true,
            ecn: true,
            mark_ecnth: 0.3,
            ..PieConfig::default()
        };
        let st = c.settings().unwrap();
        assert_eq!(
            st,
            PieSettings {
                variant: PieVariant::Rfc8033,
                limit: QueueLimit::Bytes(60_000),
                qdelay_ref: Dur::from_millis(7),
                t_update: Dur::from_millis(9),
                alpha: 0.25,
                beta: 2.5,
                max_burst: Dur::from_millis(40),
                dq_threshold: 5_000,
                mean_pkt_size: 1_400,
                qdelay: PieQdelay::Rate,
                burst: PieBurst::Ns3,
                derandomize: true,
                ecn: true,
                mark_ecnth: 0.3,
            }
        );
        assert_eq!(PieConfig::for_profile(Profile::Ns3_44), PieConfig { limit: QueueLimit::Packets(25), burst: Auto::Value(PieBurst::Ns3), ..PieConfig::default() });
        assert_eq!(PieConfig::for_profile(Profile::Sluice), PieConfig::default());
        let field = |c: PieConfig| c.validate().map_err(|e| e.field);
        let d = PieConfig::default;
        assert_eq!(field(d()), Ok(()));
        assert_eq!(field(PieConfig { beta: 0.0, ..d() }), Err("beta"));
        assert_eq!(field(PieConfig { beta: f64::NAN, ..d() }), Err("beta"));
        assert_eq!(field(PieConfig { alpha: f64::NAN, ..d() }), Err("alpha"));
        assert_eq!(field(PieConfig { mean_pkt_size: ByteSize(0), ..d() }), Err("mean_pkt_size"));
        assert_eq!(field(PieConfig { mean_pkt_size: ByteSize(1), ..d() }), Ok(()));
        assert_eq!(field(PieConfig { mean_pkt_size: ByteSize(u32::MAX as u64), ..d() }), Ok(()));
        assert_eq!(field(PieConfig { mean_pkt_size: ByteSize(u32::MAX as u64 + 1), ..d() }), Err("mean_pkt_size"));
        assert_eq!(field(PieConfig { limit: QueueLimit::Packets(0), ..d() }), Err("limit"));
        assert_eq!(field(PieConfig { limit: QueueLimit::Bytes(0), ..d() }), Err("limit"));
    }

    // tests the early-drop test's guards at their edges, in byte mode (limit in bytes, mean
    // packet 1000 B), where a 6000 B arrival makes the drop certain once past the guards
    // (p = drop_prob · 6000/1000 ≥ 1.14 from drop_prob 0.19): RFC 8033 §5.1 skips the draw
    // while the old delay is under half the 15 ms reference and drop_prob under 0.2, or with at
    // most two mean packets (2000 B) queued. A 500 B arrival at drop_prob 1 is dropped with
    // probability 500/1000: about half of 4000.
    #[test]
    fn early_drop_guards_hold_at_their_edges_in_byte_mode() {
        let mut rng = RngStream::from_seed(9);
        let st = PieSettings { limit: QueueLimit::Bytes(1_000_000), ..PieSettings::rfc8033() };
        let mut drop = |dp: f64, old_ms: f64, queued: u64, len: u32| {
            let mut q: Pie<TestPkt> = Pie::new(st);
            q.burst_allowance = Dur::ZERO;
            q.drop_prob = dp;
            q.qdelay_old = (old_ms * 1e6) as u64;
            q.drop_early(len, Occupancy { packets: 10, bytes: queued }, &mut rng)
        };
        assert!(!drop(0.19, 0.0, 10_000, 6000), "old delay 0, drop_prob below 0.2");
        assert!(!drop(0.19, 5.0, 10_000, 6000), "old delay below 7.5 ms");
        assert!(drop(0.19, 7.5, 10_000, 6000), "old delay of half the reference");
        assert!(drop(0.2, 0.0, 10_000, 6000), "drop_prob of 0.2");
        assert!(!drop(0.5, 20.0, 2000, 6000), "two mean packets queued");
        assert!(drop(0.5, 20.0, 2001, 6000));
        let dropped = (0..4000).filter(|_| drop(1.0, 20.0, 10_000, 500)).count();
        assert!((1800..2200).contains(&dropped), "{dropped} of 4000");
        // De-randomisation at its edge: an accumulated 0.85 goes on to the draw (certain here).
        let mut q: Pie<TestPkt> = Pie::new(PieSettings { derandomize: true, ..st });
        q.burst_allowance = Dur::ZERO;
        q.drop_prob = 0.85;
        assert!(q.drop_early(6000, Occupancy { packets: 10, bytes: 10_000 }, &mut rng));
    }

    // tests RFC 8033's quiet condition, which re-arms the burst allowance (150 ms; an update
    // otherwise spends 15 ms of it): the delay now and the old delay both under half the 15 ms
    // reference, and drop_prob 0. Each pair below keeps drop_prob at 0 (its step is negative).
    #[test]
    fn quiet_means_both_delays_under_half_the_reference_and_no_drop_probability() {
        let after = |now_us: u64, old_us: u64, dp: f64| {
            let mut q: Pie<TestPkt> = Pie::new(PieSettings::rfc8033());
            q.qdelay = now_us * 1000;
            q.qdelay_old = old_us * 1000;
            q.drop_prob = dp;
            q.update();
            q.burst_allowance
        };
        let (rearmed, spent) = (Dur::from_millis(150), Dur::from_millis(135));
        assert_eq!(after(0, 0, 0.0), rearmed);
        assert_eq!(after(7_400, 7_400, 0.0), rearmed);
        assert_eq!(after(7_500, 7_400, 0.0), spent, "the delay now at half the reference");
        assert_eq!(after(7_400, 7_500, 0.0), spent, "the old delay at half the reference");
        assert_eq!(after(7_500, 7_500, 0.0), spent);
        assert_eq!(after(0, 0, 0.5), spent, "a drop probability left");
    }

    // tests ns-3.30's +0.02 above 200 ms, which starts above it: at exactly 200 ms (200,000 B
    // at 1 MB/s, old delay the same) drop_prob 0.5 takes only the capped step: p = 0.125 ·
    // (0.2 − 0.02) = 0.0225, ×2 in its tier = 0.045, capped at 0.02 → 0.52.
    #[test]
    fn ns3_30s_extra_step_starts_above_200_ms() {
        let mut q: Pie<TestPkt> = Pie::new(PieSettings::ns3_30());
        q.drop_prob = 0.5;
        q.avg_dq_rate = 1e6;
        q.fifo.bytes = 200_000;
        q.qdelay_old = ms(200);
        q.update();
        assert!((q.drop_prob - 0.52).abs() < 1e-12, "{}", q.drop_prob);
    }

    // tests what a quiet update forgets in rate mode: the dequeue rate and the measurement in
    // progress, unless there was no rate to forget (then a measurement under way goes on);
    // an update that is not quiet keeps both.
    #[test]
    fn a_quiet_update_forgets_the_dequeue_rate() {
        let st = PieSettings { qdelay: PieQdelay::Rate, ..PieSettings::rfc8033() };
        let mut q: Pie<TestPkt> = Pie::new(st);
        q.avg_dq_rate = 1e6;
        q.dq_count = 5000;
        q.update(); // nothing queued: no delay, quiet
        assert_eq!((q.avg_dq_rate, q.dq_count), (0.0, DQCOUNT_INVALID));
        q.dq_count = 5000;
        q.update(); // quiet, but no rate: the count stays
        assert_eq!((q.avg_dq_rate, q.dq_count), (0.0, 5000));
        let mut q: Pie<TestPkt> = Pie::new(st);
        q.avg_dq_rate = 1e6;
        q.dq_count = 5000;
        q.fifo.bytes = 20_000; // 20 ms at 1 MB/s: not quiet
        q.update();
        assert_eq!((q.avg_dq_rate, q.dq_count), (1e6, 5000));
    }

    // tests ns-3's burst states: a protected burst (allowance left) moves on to InBurst only
    // once the allowance is spent and the queue quiet; in InBurst an update that is not quiet
    // restarts the count towards NoBurst, and only there.
    #[test]
    fn ns3_burst_states_move_only_when_spent_and_quiet() {
        let mut q: Pie<TestPkt> = Pie::new(PieSettings::ns3_44());
        q.burst_state = BurstState::Protecting;
        q.burst_allowance = Dur::from_millis(100);
        q.update(); // quiet, allowance left
        assert_eq!(q.burst_state, BurstState::Protecting);
        q.burst_allowance = Dur::ZERO;
        q.qdelay = ms(40);
        q.update(); // spent, not quiet
        assert_eq!(q.burst_state, BurstState::Protecting);
        q.burst_state = BurstState::InBurst;
        q.burst_reset = 5;
        q.update(); // not quiet (the old delay is 40 ms)
        assert_eq!((q.burst_state, q.burst_reset), (BurstState::InBurst, 0));
        q.burst_state = BurstState::Protecting;
        q.burst_reset = 5;
        q.qdelay = ms(40);
        q.update();
        assert_eq!((q.burst_state, q.burst_reset), (BurstState::Protecting, 5), "the count is InBurst's");
    }

    // tests the dequeue-rate estimator (ns-3's reading of RFC 8033 §5.3), threshold 3000 B,
    // nine 1000 B packets queued, dequeued at 1, 2, 3, 4, 5, 7 and 8 ms:
    //   1 ms: 8000 B left ≥ 3000: a measurement starts (at 1 ms), 1000 B counted; 2 ms: 2000;
    //   3 ms: 3000 B in 2 ms → 1.5 MB/s, the first rate taken whole; 6000 B left > 3000: the
    //         next measurement starts at 3 ms;
    //   4, 5, 7 ms: 3000 B in 4 ms → 0.75 MB/s, averaged with the last: 1.125 MB/s; 3000 B
    //         left, not above the threshold: measuring stops;
    //   8 ms: 2000 B left, below the threshold: nothing starts.
    // Dequeues all at one instant give no rate (no time elapsed).
    #[test]
    fn the_dequeue_rate_is_measured_over_threshold_bytes() {
        let st = PieSettings { qdelay: PieQdelay::Rate, dq_threshold: 3000, limit: QueueLimit::Packets(100), ..PieSettings::rfc8033() };
        let mut rng = RngStream::from_seed(1);
        let mut v = Vec::new();
        let mut q: Pie<TestPkt> = Pie::new(st);
        q.timer = Periodic::new(Time::MAX, st.t_update);
        for i in 0..9 {
            q.fifo.push(TestPkt::new(i, 1000), Time(0));
        }
        let mut deq = |q: &mut Pie<TestPkt>, t_ms: u64| {
            q.dequeue(Time(ms(t_ms)), &mut QdiscCx { rng: &mut rng, dequeue_drops: &mut v }).expect("queued");
            (q.avg_dq_rate, q.in_measurement, q.dq_count)
        };
        assert_eq!(deq(&mut q, 1), (0.0, true, 1000));
        assert_eq!(deq(&mut q, 2), (0.0, true, 2000));
        let (r, on, n) = deq(&mut q, 3);
        assert!((r - 1.5e6).abs() < 1e-3 && on && n == 0, "{r} {on} {n}");
        assert_eq!(q.dq_start, Time(ms(3)));
        deq(&mut q, 4);
        deq(&mut q, 5);
        let (r, on, n) = deq(&mut q, 7);
        assert!((r - 1.125e6).abs() < 1e-3 && !on && n == 0, "{r} {on} {n}");
        let (r2, on, _) = deq(&mut q, 8);
        assert!(r2 == r && !on);
        let mut q: Pie<TestPkt> = Pie::new(st);
        q.timer = Periodic::new(Time::MAX, st.t_update);
        for i in 0..9 {
            q.fifo.push(TestPkt::new(i, 1000), Time(0));
        }
        for _ in 0..9 {
            deq(&mut q, 1);
        }
        assert_eq!(q.avg_dq_rate, 0.0, "no time elapsed, no rate");
    }

    // tests the marking threshold's edge: at drop_prob = mark_ecnth (0.1) an ECT packet chosen
    // is dropped, just below it marked (byte mode makes the choice certain: p = 0.1 · 12).
    #[test]
    fn at_the_marking_threshold_ect_packets_are_dropped() {
        let mut rng = RngStream::from_seed(1);
        let mut v = Vec::new();
        for (dp, marked) in [(0.1, false), (0.099, true)] {
            let mut q: Pie<TestPkt> = Pie::new(PieSettings { ecn: true, limit: QueueLimit::Bytes(1_000_000), ..PieSettings::rfc8033() });
            q.timer = Periodic::new(Time::MAX, q.cfg.t_update);
            for i in 0..10 {
                q.fifo.push(TestPkt::new(i, 1000), Time(0));
            }
            q.burst_allowance = Dur::ZERO;
            q.qdelay_old = ms(20);
            q.drop_prob = dp;
            let r = q.enqueue(TestPkt { ecn: Ecn::Ect0, ..TestPkt::new(99, 12_000) }, Time(1), &mut QdiscCx { rng: &mut rng, dequeue_drops: &mut v });
            assert_eq!(matches!(r, Enqueue::QueuedMarked(MarkReason::PieEarly)), marked, "{dp}: {r:?}");
            assert_eq!(matches!(r, Enqueue::Dropped(DropReason::PieEarly, _)), !marked, "{dp}: {r:?}");
        }
    }
}
