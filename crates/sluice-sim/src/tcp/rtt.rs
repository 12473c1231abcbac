//! Retransmission timer estimators (RFC 6298, Linux, ns-3 ≤ 3.21, RFC 793; docs/tcp.md): one
//! [`RttEstimator`] holding the state of whichever rule the `rto` option names.
//!
//! | `rto` | model | RTO from the estimate | bounds |
//! |---|---|---|---|
//! | `rfc6298` | RFC 6298 §2: α = 1/8, β = 1/4, first sample `RTTVAR = R/2` | `SRTT + max(G, 4·RTTVAR)` | clamped to `[min_rto, max_rto]` |
//! | `linux` | Linux `tcp_rtt_estimator`: mdev with the 1/32 gain on falling RTTs, `mdev_max` and `rttvar` decayed once per RTT | `SRTT + rttvar`, `rttvar ≥ min_rto` | no floor on the RTO; ceiling `max_rto` |
//! | `ns3_legacy` | ns-3 ≤ 3.21 `RttMeanDeviation`: gain 0.1 on mean and deviation, first sample `dev = R` | `b·(dev < SRTT/4 ? 2·SRTT : SRTT + 4·dev)` | floor `min_rto`, no ceiling; `b ≤ 64` |
//! | `rfc793` | RFC 793 §3.7: `SRTT = a·SRTT + (1−a)·R`, a = 7/8 | `b·SRTT`, b = 2 | clamped to `[min_rto, max_rto]` (LBOUND, UBOUND) |
//!
//! Every estimator doubles the RTO per expiry ([`RttEstimator::back_off`]) and a new sample
//! collapses the backoff. Arithmetic is integer nanoseconds; divisions truncate.
//!
//! Not modelled: Linux's jiffies rounding of the RTO and its `tcp_rtt_estimator` input floor of
//! 1 µs; ns-3's 64.64 fixed-point arithmetic (the gain-0.1 products here truncate to 1 ns).

use super::config::RtoEstimator;
use sluice_core::Dur;

/// ns-3.13 `RttEstimator::MaxMultiplier`: the backoff multiplier stops doubling at 64.
pub const NS3_MAX_MULTIPLIER: u64 = 64;

/// RFC 793 §3.7 smoothing factor `a` (ALPHA, "e.g. .8 to .9"): 7/8, exact in integer
/// arithmetic and the same weight RFC 6298 later gives SRTT. Written as the fraction `7/8`.
pub const RFC793_ALPHA: (u64, u64) = (7, 8);
/// RFC 793 §3.7 delay variance factor `b` (BETA, "e.g. 1.3 to 2.0"): 2, the conservative end.
pub const RFC793_BETA: u64 = 2;

/// SRTT, a deviation term and the RTO with exponential backoff. `repr(C)`: the endpoint
/// prefetches it by its first, middle and last fields.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct RttEstimator {
    /// Smoothed RTT (`None` before the first sample).
    pub srtt: Option<Dur>,
    /// The deviation term the RTO is built from: RFC 6298 RTTVAR; Linux `rttvar` (≥ `min_rto`);
    /// ns-3 legacy `dev`; zero under RFC 793.
    pub rttvar: Dur,
    /// Smallest RTT sample seen.
    pub min_rtt: Option<Dur>,
    /// Smallest SRTT so far, `u64::MAX` ns before the first sample (ns-3's `m_minRtt`, which
    /// it takes from SRTT after each measurement; see `Ns3Compat::rate_bound_srtt`).
    pub min_srtt: Dur,
    /// RTO before backoff and before the estimator's clamps.
    base_rto: Dur,
    /// Backoff multiplier (1, 2, 4, …).
    backoff: u64,
    kind: RtoEstimator,
    min_rto: Dur,
    max_rto: Dur,
    granularity: Dur,
    /// Linux only: `mdev_us`, i.e. 4·mdev (Linux keeps mdev scaled by 4).
    mdev4: Dur,
    /// Linux only: `mdev_max_us`, the largest 4·mdev in the current RTT (reset to `min_rto`).
    mdev_max: Dur,
    /// Linux only: `rtt_seq`, SND.NXT when the current once-per-RTT period began.
    rtt_seq: u64,
}

impl RttEstimator {
    /// One field on each cache line the estimator can span (see [`crate::prefetch`]).
    #[inline]
    pub fn prefetch_lines(&self, p: &mut impl crate::prefetch::Lines) {
        p.line(&self.srtt);
        p.line(&self.backoff);
        p.line(&self.rtt_seq);
    }

    /// `initial_rto` is the RTO before any sample, except under `ns3_legacy`, where it is ns-3's
    /// `InitialEstimation` of SRTT (1 s), which gives an initial RTO of 2 s.
    pub fn new(kind: RtoEstimator, initial_rto: Dur, min_rto: Dur, max_rto: Dur, granularity: Dur) -> Self {
        let mut e = RttEstimator {
            srtt: None,
            rttvar: Dur::ZERO,
            min_rtt: None,
            min_srtt: Dur(u64::MAX),
            base_rto: initial_rto,
            backoff: 1,
            kind,
            min_rto,
            max_rto,
            granularity,
            mdev4: Dur::ZERO,
            mdev_max: Dur::ZERO,
            rtt_seq: 0,
        };
        if kind == RtoEstimator::Ns3Legacy {
            // ns-3.13: est = InitialEstimation, variance 0, so RetransmitTimeout = 2·est.
            e.base_rto = ns3_legacy_rto(initial_rto, Dur::ZERO);
        }
        e
    }

    /// Fold in an RTT sample `r` taken from an ACK that moved SND.UNA to `snd_una`, with
    /// `snd_nxt` the highest sequence sent so far (only `linux` reads them: its once-per-RTT
    /// decay runs when SND.UNA passes the `rtt_seq` mark). A sample collapses any backoff.
    pub fn sample(&mut self, r: Dur, snd_una: u64, snd_nxt: u64) {
        match self.kind {
            RtoEstimator::Rfc6298 => self.sample_rfc6298(r),
            RtoEstimator::Linux => self.sample_linux(r, snd_una, snd_nxt),
            RtoEstimator::Ns3Legacy => self.sample_ns3_legacy(r),
            RtoEstimator::Rfc793 => self.sample_rfc793(r),
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        if let Some(s) = self.srtt {
            self.min_srtt = self.min_srtt.min(s);
        }
        self.backoff = 1;
    }

    /// RFC 6298 §2.2–2.3.
    fn sample_rfc6298(&mut self, r: Dur) {
        let srtt = match self.srtt {
            None => {
                self.rttvar = Dur(r.0 / 2);
                r
            }
            Some(srtt) => {
                // RTTVAR <- (1 - 1/4) RTTVAR + 1/4 |SRTT - R|, then SRTT <- (1 - 1/8) SRTT + 1/8 R.
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = Dur((3 * self.rttvar.0 + err) / 4);
                Dur((7 * srtt.0 + r.0) / 8)
            }
        };
        self.srtt = Some(srtt);
        let var = (4 * self.rttvar.0).max(self.granularity.0);
        self.base_rto = Dur(srtt.0 + var);
    }

    /// Linux `tcp_rtt_estimator` (`tcp_input.c`), then `__tcp_set_rto` (`rto = "linux"`).
    fn sample_linux(&mut self, r: Dur, snd_una: u64, snd_nxt: u64) {
        let rto_min = self.min_rto;
        let srtt = match self.srtt {
            None => {
                // First sample: mdev = R/2 (4·mdev = 2R), rttvar = mdev_max = max(2R, rto_min).
                self.mdev4 = Dur(2 * r.0);
                self.rttvar = self.mdev4.max(rto_min);
                self.mdev_max = self.rttvar;
                self.rtt_seq = snd_nxt;
                r
            }
            Some(srtt) => {
                let (r_ns, srtt_ns) = (r.0 as i128, srtt.0 as i128);
                // SRTT <- 7/8 SRTT + 1/8 R.
                let new_srtt = Dur((7 * srtt.0 + r.0) / 8);
                let err = (r_ns - srtt_ns).abs();
                let mdev = self.mdev4.0 as i128 / 4;
                // 4·mdev moves by |err| − mdev (a 1/4 gain on mdev) ...
                let mut step = err - mdev;
                // ... except for an RTT below SRTT that would raise mdev: gain 1/32 (Linux's
                // variant of the Eifel idea: a falling RTT must not inflate the RTO).
                if r_ns < srtt_ns && step > 0 {
                    step /= 8;
                }
                self.mdev4 = Dur((self.mdev4.0 as i128 + step).max(0) as u64);
                if self.mdev4 > self.mdev_max {
                    self.mdev_max = self.mdev4;
                    if self.mdev_max > self.rttvar {
                        self.rttvar = self.mdev_max;
                    }
                }
                // Once per RTT: decay rttvar toward the period's largest 4·mdev, start a new period.
                if snd_una > self.rtt_seq {
                    if self.mdev_max < self.rttvar {
                        self.rttvar = Dur(self.rttvar.0 - (self.rttvar.0 - self.mdev_max.0) / 4);
                    }
                    self.rtt_seq = snd_nxt;
                    self.mdev_max = rto_min;
                }
                new_srtt
            }
        };
        self.srtt = Some(srtt);
        // __tcp_set_rto: no floor on the RTO itself.
        self.base_rto = Dur(srtt.0 + self.rttvar.0);
    }

    /// ns-3.13 `RttMeanDeviation::Measurement` (gain 0.1).
    fn sample_ns3_legacy(&mut self, r: Dur) {
        let srtt = match self.srtt {
            Some(srtt) => {
                let (r_ns, s_ns, d_ns) = (r.0 as i128, srtt.0 as i128, self.rttvar.0 as i128);
                let err = r_ns - s_ns;
                self.rttvar = Dur((d_ns + (err.abs() - d_ns) / 10).max(0) as u64);
                Dur((s_ns + err / 10).max(0) as u64)
            }
            None => {
                self.rttvar = r;
                r
            }
        };
        self.srtt = Some(srtt);
        self.base_rto = ns3_legacy_rto(srtt, self.rttvar);
    }

    /// RFC 793 §3.7 (first sample: SRTT = R).
    fn sample_rfc793(&mut self, r: Dur) {
        let (a, d) = RFC793_ALPHA;
        let srtt = match self.srtt {
            None => r,
            Some(srtt) => Dur((a * srtt.0 + (d - a) * r.0) / d),
        };
        self.srtt = Some(srtt);
        self.base_rto = srtt.saturating_mul(RFC793_BETA);
    }

    /// Undo the timeout backoff without a new sample (ns-3 recomputes its RTO from the
    /// estimate on every ACK of new data).
    pub fn collapse_backoff(&mut self) {
        self.backoff = 1;
    }

    /// The RTO in force: the estimator's RTO with its bounds, times the backoff.
    pub fn rto(&self) -> Dur {
        let (base, min, max) = (self.base_rto.0, self.min_rto.0, self.max_rto.0);
        match self.kind {
            RtoEstimator::Rfc6298 | RtoEstimator::Rfc793 => Dur(base.clamp(min, max).saturating_mul(self.backoff).min(max)),
            // Linux: icsk_rto = SRTT + rttvar (≤ TCP_RTO_MAX), doubled per expiry up to it.
            RtoEstimator::Linux => Dur(base.min(max).saturating_mul(self.backoff).min(max)),
            // ns-3.13: Max(multiplier · estimate, MinRTO), no ceiling.
            RtoEstimator::Ns3Legacy => Dur(base.saturating_mul(self.backoff).max(min)),
        }
    }

    /// RTO before bounds and backoff: under RFC 6298 SRTT + max(G, 4·RTTVAR) (also ns-3's
    /// LAST-ACK timer), before any sample the initial RTO.
    pub fn raw_rto(&self) -> Dur {
        self.base_rto
    }

    /// Which estimator runs.
    pub fn kind(&self) -> RtoEstimator {
        self.kind
    }

    /// On expiry: RFC 6298 §5.5 doubles the RTO (up to the ceiling); ns-3.13 doubles its
    /// multiplier up to 64.
    pub fn back_off(&mut self) {
        match self.kind {
            RtoEstimator::Ns3Legacy => self.backoff = (self.backoff * 2).min(NS3_MAX_MULTIPLIER),
            _ => {
                if self.rto().0 < self.max_rto.0 {
                    self.backoff = self.backoff.saturating_mul(2);
                }
            }
        }
    }

    /// RFC 6298 §5.7: after a retransmitted SYN, RTO is at least 3 s once data starts.
    pub fn at_least(&mut self, d: Dur) {
        if self.base_rto < d {
            self.base_rto = d;
        }
    }
}

/// ns-3.13 `RttMeanDeviation::RetransmitTimeout` before the multiplier and MinRTO.
fn ns3_legacy_rto(srtt: Dur, dev: Dur) -> Dur {
    if dev.0 < srtt.0 / 4 {
        srtt.saturating_mul(2)
    } else {
        Dur(srtt.0 + 4 * dev.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(kind: RtoEstimator) -> RttEstimator {
        let (min, max) = kind.bounds();
        RttEstimator::new(kind, Dur::from_secs(1), min, max, Dur::from_millis(1))
    }

    // tests RFC 6298 §2.2-2.3 on a worked example: 100 ms then 120 ms.
    #[test]
    fn rfc6298_worked_example() {
        let mut e = est(RtoEstimator::Rfc6298);
        assert_eq!(e.rto(), Dur::from_secs(1)); // before any sample
        e.sample(Dur::from_millis(100), 1, 1);
        assert_eq!(e.raw_rto(), Dur::from_millis(300));
        assert_eq!(e.rto(), Dur::from_secs(1)); // raised to the 1 s floor
        e.sample(Dur::from_millis(120), 1, 1);
        assert_eq!(e.rttvar, Dur::from_micros(42_500));
        assert_eq!(e.srtt, Some(Dur::from_micros(102_500)));
        assert_eq!(e.raw_rto(), Dur::from_micros(272_500));
    }

    // tests RFC 6298 §5.7: once data transfer starts after a retransmitted SYN, an RTO below 3 s
    // is raised to 3 s; one already above stays.
    #[test]
    fn rto_at_least_three_seconds_after_a_syn_retransmission() {
        let mut e = est(RtoEstimator::Rfc6298);
        assert_eq!(e.rto(), Dur::from_secs(1));
        e.at_least(Dur::from_secs(3));
        assert_eq!(e.rto(), Dur::from_secs(3));
        let mut f = RttEstimator::new(RtoEstimator::Rfc6298, Dur::from_secs(5), Dur::from_secs(1), Dur::from_secs(60), Dur::from_millis(1));
        f.at_least(Dur::from_secs(3));
        assert_eq!(f.rto(), Dur::from_secs(5));
    }

    // tests rto = "linux" (Linux `tcp_rtt_estimator`) on a worked example: 300 ms, then 302.5 ms
    // (4·mdev = 170 ms < rttvar = 200 ms); no 200 ms floor on the RTO, only on rttvar.
    #[test]
    fn linux_worked_example() {
        let mut e = est(RtoEstimator::Linux);
        assert_eq!(e.rto(), Dur::from_secs(1));
        // First sample at SND.UNA 1001, SND.NXT 5001: rtt_seq = 5001.
        e.sample(Dur::from_millis(100), 1001, 5001);
        assert_eq!(e.rttvar, Dur::from_millis(200)); // max(2R, rto_min) = max(200, 200)
        assert_eq!(e.rto(), Dur::from_millis(300));
        e.sample(Dur::from_millis(120), 2001, 6001);
        assert_eq!(e.srtt, Some(Dur::from_micros(102_500)));
        assert_eq!(e.mdev4, Dur::from_millis(170));
        assert_eq!(e.rttvar, Dur::from_millis(200));
        assert_eq!(e.rto(), Dur::from_micros(302_500));
    }

    // tests rto = "linux" (Linux `tcp_rtt_estimator`): a falling RTT raises mdev with gain 1/32,
    // not 1/4.
    #[test]
    fn linux_falling_rtt_uses_gain_one_thirty_second() {
        let mut e = est(RtoEstimator::Linux);
        e.sample(Dur::from_millis(100), 1, 10); // mdev 50 ms (4·mdev 200 ms)
        // R = 20 ms: |err| = 80 ms > mdev = 50 ms and R < SRTT, so mdev += (80 − 50)/32.
        e.sample(Dur::from_millis(20), 2, 10);
        assert_eq!(e.mdev4, Dur(200_000_000 + 30_000_000 / 8));
        // A rising RTT with the same error uses 1/4: mdev += (80 − mdev)/4.
        let mut f = est(RtoEstimator::Linux);
        f.sample(Dur::from_millis(100), 1, 10);
        f.sample(Dur::from_millis(180), 2, 10);
        assert_eq!(f.mdev4, Dur(200_000_000 + 30_000_000));
    }

    // tests Linux `tcp_rtt_estimator`: a rising RTT that takes 4·mdev above the period's
    // mdev_max raises mdev_max and, past it, rttvar at once (no waiting for the period's end).
    // 100 ms: 4·mdev = 200 ms, rttvar = mdev_max = max(200, rto_min 200) = 200 ms.
    // 500 ms in the same period: SRTT = (7·100 + 500)/8 = 150 ms; |err| = 400 ms, mdev = 50 ms,
    // 4·mdev += 400 − 50 → 550 ms > mdev_max: mdev_max = rttvar = 550 ms; RTO = 150 + 550 = 700 ms.
    // 150 ms (= SRTT): 4·mdev falls to 550 − 137.5 = 412.5 ms; mdev_max and rttvar stay.
    #[test]
    fn linux_rising_rtt_raises_rttvar_within_the_period() {
        let mut e = est(RtoEstimator::Linux);
        e.sample(Dur::from_millis(100), 1, 10);
        e.sample(Dur::from_millis(500), 2, 10);
        assert_eq!((e.mdev4, e.mdev_max, e.rttvar), (Dur::from_millis(550), Dur::from_millis(550), Dur::from_millis(550)));
        assert_eq!(e.rto(), Dur::from_millis(700));
        e.sample(Dur::from_millis(150), 3, 10);
        assert_eq!((e.mdev4, e.mdev_max, e.rttvar), (Dur::from_micros(412_500), Dur::from_millis(550), Dur::from_millis(550)));
    }

    // tests rto = "linux" (Linux `tcp_rtt_estimator`): rttvar ≥ rto_min; decays toward mdev_max
    // only once per RTT, i.e. when SND.UNA passes the rtt_seq mark.
    #[test]
    fn linux_rttvar_decays_once_per_rtt() {
        let mut e = est(RtoEstimator::Linux);
        e.sample(Dur::from_millis(400), 100, 1000); // rttvar = mdev_max = 800 ms, rtt_seq 1000
        assert_eq!(e.rttvar, Dur::from_millis(800));
        // Steady 400 ms samples inside the same RTT: 4·mdev falls, rttvar holds.
        for una in [200, 400, 1000] {
            e.sample(Dur::from_millis(400), una, 2000);
        }
        assert_eq!(e.rttvar, Dur::from_millis(800), "SND.UNA has not passed rtt_seq");
        // SND.UNA 1001 > rtt_seq: rttvar -= (rttvar − mdev_max)/4 with mdev_max = 800 ms still
        // (its reset comes after): no change; then mdev_max = rto_min and rtt_seq = 3000.
        e.sample(Dur::from_millis(400), 1001, 3000);
        assert_eq!(e.rttvar, Dur::from_millis(800));
        assert_eq!(e.mdev_max, Dur::from_millis(200));
        // Next period: the largest 4·mdev is below 200 ms, so mdev_max stays at rto_min and the
        // decay takes a quarter of the gap to it: 800 − (800 − 200)/4 = 650 ms.
        e.sample(Dur::from_millis(400), 3001, 4000);
        assert_eq!(e.rttvar, Dur::from_millis(650));
        for k in 0..80 {
            e.sample(Dur::from_millis(400), 4001 + 1000 * k, 5000 + 1000 * k);
        }
        // rttvar approaches rto_min (to within the 4 ns the truncating quarter leaves) but
        // never goes below it.
        assert!(e.rttvar >= Dur::from_millis(200) && e.rttvar < Dur::from_millis(200) + Dur(4), "{:?}", e.rttvar);
        assert!(e.rto() >= Dur::from_millis(600) && e.rto() < Dur::from_millis(600) + Dur(4));
    }

    // tests rto = "linux": doubling up to Linux's TCP_RTO_MAX 120 s; a sample collapses it.
    #[test]
    fn linux_backoff_caps_at_120s() {
        let mut e = est(RtoEstimator::Linux);
        e.sample(Dur::from_millis(100), 1, 2);
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), Dur::from_secs(120));
        e.sample(Dur::from_millis(100), 3, 4);
        assert!(e.rto() < Dur::from_secs(1));
    }

    // tests rto = "ns3_legacy" (ns-3.13 `RttMeanDeviation`) on a worked example: 500 ms (100 +
    // 4·100), then 470 ms (SRTT 102, dev 92).
    #[test]
    fn ns3_legacy_worked_example() {
        let mut e = est(RtoEstimator::Ns3Legacy);
        assert_eq!(e.rto(), Dur::from_secs(2), "2 × the 1 s initial estimate");
        e.sample(Dur::from_millis(100), 1, 1);
        assert_eq!(e.rto(), Dur::from_millis(500));
        e.sample(Dur::from_millis(120), 1, 1);
        assert_eq!(e.srtt, Some(Dur::from_millis(102)));
        assert_eq!(e.rttvar, Dur::from_millis(92));
        assert_eq!(e.rto(), Dur::from_millis(470));
    }

    // tests rto = "ns3_legacy" (ns-3.13 `RttMeanDeviation`): 2·SRTT when dev < SRTT/4; MinRTO
    // 200 ms after the multiplier; the multiplier stops at 64 and a sample resets it.
    #[test]
    fn ns3_legacy_floor_and_multiplier() {
        let mut e = est(RtoEstimator::Ns3Legacy);
        e.sample(Dur::from_millis(40), 1, 1);
        for _ in 0..30 {
            e.sample(Dur::from_millis(40), 1, 1); // dev decays geometrically: 40·0.9^30 ≈ 1.7 ms
        }
        assert!(e.rttvar < Dur::from_millis(10));
        assert_eq!(e.raw_rto(), Dur::from_millis(80), "2·SRTT");
        assert_eq!(e.rto(), Dur::from_millis(200), "MinRTO");
        e.back_off();
        assert_eq!(e.rto(), Dur::from_millis(200), "max(2·80 ms, 200 ms)");
        e.back_off();
        assert_eq!(e.rto(), Dur::from_millis(320));
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.rto(), Dur::from_millis(80 * 64), "multiplier capped at 64");
        e.sample(Dur::from_millis(40), 1, 1);
        assert_eq!(e.rto(), Dur::from_millis(200));
    }

    // tests rto = "rfc793" (RFC 793 §3.7, with docs/tcp.md's choice of constants): a = 7/8, b = 2,
    // LBOUND 1 s, UBOUND 60 s.
    #[test]
    fn rfc793_smoothing_and_bounds() {
        let mut e = est(RtoEstimator::Rfc793);
        assert_eq!(e.rto(), Dur::from_secs(1));
        e.sample(Dur::from_millis(800), 1, 1);
        assert_eq!(e.rto(), Dur::from_millis(1600)); // b·SRTT
        e.sample(Dur::from_millis(1600), 1, 1); // SRTT = 7/8·800 + 1/8·1600 = 900
        assert_eq!(e.srtt, Some(Dur::from_millis(900)));
        assert_eq!(e.rto(), Dur::from_millis(1800));
        // (7·900 ms + 1·1000.000007 ms)/8 = 912.500000875 ms: truncated to the nanosecond.
        e.sample(Dur(1_000_000_007), 1, 1);
        assert_eq!(e.srtt, Some(Dur(912_500_000)));
        let mut f = est(RtoEstimator::Rfc793);
        f.sample(Dur::from_millis(100), 1, 1);
        assert_eq!(f.raw_rto(), Dur::from_millis(200));
        assert_eq!(f.rto(), Dur::from_secs(1), "LBOUND");
        f.sample(Dur::from_secs(500), 1, 1);
        assert_eq!(f.rto(), Dur::from_secs(60), "UBOUND");
    }

    // tests RFC 6298 §5.5: the timer doubles on each expiry, capped at the maximum; a sample resets.
    #[test]
    fn backoff_doubles_and_caps() {
        let mut e = RttEstimator::new(RtoEstimator::Rfc6298, Dur::from_secs(1), Dur::from_millis(200), Dur::from_secs(60), Dur::from_millis(1));
        e.sample(Dur::from_millis(100), 1, 1);
        assert_eq!(e.rto(), Dur::from_millis(300));
        e.back_off();
        assert_eq!(e.rto(), Dur::from_millis(600));
        e.back_off();
        assert_eq!(e.rto(), Dur::from_millis(1200));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), Dur::from_secs(60));
        e.sample(Dur::from_millis(100), 1, 1);
        assert!(e.rto() < Dur::from_secs(1));
    }
}
