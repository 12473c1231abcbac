//! CUBIC (RFC 9438), as Linux's `tcp_cubic.c` and ns-3's `TcpCubic` compute it: the window in
//! whole segments, grown by one segment every `cnt` acknowledged segments, where `cnt` follows
//! the cubic function `W(t) = C·(t − K)³ + W_max`; HyStart ends slow start early.
//!
//! Two flavours share the code (`Ns3Compat::cc_linux`): Linux's, and ns-3.44's (unlimited
//! byte counting in slow start, SRTT as the delay sample on every ACK, 10 ms `CubicDelta`,
//! `W_max` kept over a timeout). `cubic.hystart` picks HyStart's thresholds separately
//! (docs/algorithms/cubic.md).
//!
//! Not implemented: HyStart++ (RFC 9406), Linux's ACK-delay allowance in the ACK-train test
//! (`hystart_ack_delay`, at most 1 ms with pacing), Linux's idle-restart epoch shift
//! (`CA_EVENT_TX_START`) and Linux's `cwnd`-limited test (`tcp_is_cwnd_limited`; ns-3's simpler
//! one is, under the ns-3 flavour); the cubic
//! function uses floating point where Linux uses fixed point (`C` = 410/1024).

use super::linux_reno::{cong_avoid_ai, linux_slow_start};
use super::{AckEvent, AckSample, CaState, CcMetrics, CongestionControl, CwndState, LossCause};
use sluice_core::{Dur, Time};

/// HyStart's variant (`cubic.hystart`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Hystart {
    /// Linux since 2020 ("tcp_cubic: fix spurious HYSTART_DELAY exit upon drop in min RTT"):
    /// the round's RTT is the minimum of all its samples so far; exit once 8 are taken and it
    /// exceeds `delay_min + clamp(delay_min/8, 4 ms, 16 ms)`; ACK train over `delay_min/2`.
    #[serde(rename = "linux")]
    Linux,
    /// ns-3 `TcpCubic`: the round's RTT is the minimum of its first 8 samples; the threshold is
    /// `delay_min + clamp(delay_min, 4 ms, 1 s)`; ACK train over `delay_min`.
    #[serde(rename = "ns3")]
    Ns3,
    /// No HyStart: slow start runs to ssthresh or loss.
    #[serde(rename = "off")]
    Off,
}

impl Hystart {
    pub fn as_str(self) -> &'static str {
        match self {
            Hystart::Linux => "linux",
            Hystart::Ns3 => "ns3",
            Hystart::Off => "off",
        }
    }
}

/// CUBIC's parameters (`[tcp.cubic]`).
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct CubicConfig {
    /// `C`, segments/s³.
    pub c: f64,
    /// `β_cubic`: the window after a reduction, as a fraction of the window before it.
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7).
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 §4.3; Linux's counter form). ns-3 ≤ 3.40 had none.
    pub tcp_friendliness: bool,
    pub hystart: Hystart,
}

impl Default for CubicConfig {
    /// RFC 9438 §5 and Linux `tcp_cubic.c`: C 0.4 (Linux `bic_scale` 41 → 410/1024), β 0.7
    /// (Linux 717/1024), fast convergence, the Reno-friendly region and HyStart on.
    fn default() -> Self {
        CubicConfig { c: 0.4, beta: 0.7, fast_convergence: true, tcp_friendliness: true, hystart: Hystart::Linux }
    }
}

impl CubicConfig {
    /// Checks the values; `Err((key, message))`.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.c.is_finite() && self.c > 0.0) {
            return Err(("c", format!("must be a positive number of segments/s³, got {}", self.c)));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(("beta", format!("must be in (0, 1), got {}", self.beta)));
        }
        Ok(())
    }

    pub fn describe(&self) -> Vec<(&'static str, String)> {
        vec![
            ("cubic.c", self.c.to_string()),
            ("cubic.beta", self.beta.to_string()),
            ("cubic.fast_convergence", self.fast_convergence.to_string()),
            ("cubic.tcp_friendliness", self.tcp_friendliness.to_string()),
            ("cubic.hystart", self.hystart.as_str().to_string()),
        ]
    }
}

/// HyStart's low window: it runs only from 16 segments (Linux `hystart_low_window`, ns-3
/// `HyStartLowWindow`).
const HYSTART_LOW_WINDOW: u64 = 16;
/// Samples per round before the delay test (`HYSTART_MIN_SAMPLES`, `HyStartMinSamples`).
const HYSTART_MIN_SAMPLES: u32 = 8;
/// ACKs closer than this form a train (`hystart_ack_delta_us`, `HyStartAckDelta`).
const HYSTART_ACK_DELTA: Dur = Dur::from_millis(2);
/// `cnt` before the first loss (`W_max` = 0): at least one segment per 20 acknowledged
/// (Linux's fixed clamp, ns-3 `CntClamp`).
const CNT_CLAMP: u32 = 20;

/// `K = ∛((W_max − cwnd_epoch)/C)` seconds (RFC 9438 eq. 2), 0 when `cwnd_epoch ≥ W_max`.
pub fn cubic_k(w_max: f64, cwnd_epoch: f64, c: f64) -> f64 {
    if cwnd_epoch >= w_max {
        0.0
    } else {
        ((w_max - cwnd_epoch) / c).cbrt()
    }
}

/// `W_cubic(t) = C·(t − K)³ + W_max` segments (RFC 9438 eq. 1).
pub fn w_cubic(t: f64, k: f64, w_max: f64, c: f64) -> f64 {
    c * (t - k).powi(3) + w_max
}

/// The Reno-friendly region's additive factor `α_cubic = 3(1 − β)/(1 + β)` (RFC 9438 §4.3).
pub fn alpha_cubic(beta: f64) -> f64 {
    3.0 * (1.0 - beta) / (1.0 + beta)
}

#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    /// Linux's flavour (else ns-3's; `Ns3Compat::cc_linux`).
    linux: bool,
    /// `W_max` (`last_max_cwnd`), segments; 0 before the first reduction.
    w_max: u32,
    /// The epoch's origin point (`bic_origin_point`), segments.
    origin: u32,
    /// `K`, seconds.
    k: f64,
    /// Start of the current avoidance epoch; `None` until the first avoidance ACK after a
    /// reduction.
    epoch_start: Option<Time>,
    /// Segments acknowledged in this epoch, for the Reno-friendly estimate.
    ack_cnt: u32,
    /// The Reno-friendly window estimate `W_est` (`tcp_cwnd`), segments.
    tcp_cwnd: u32,
    /// Acknowledged segments towards the next one-segment increase (`snd_cwnd_cnt`, `m_cWndCnt`).
    cwnd_cnt: u32,
    /// The last `cnt` computed (for tracing).
    cnt: u32,
    /// Minimum delay sample (`delay_min`).
    delay_min: Option<Dur>,
    // HyStart.
    found: bool,
    round_start: Time,
    last_ack: Time,
    end_seq: u64,
    curr_rtt: Option<Dur>,
    sample_cnt: u32,
}

impl Cubic {
    pub fn new(cfg: CubicConfig, linux: bool) -> Cubic {
        Cubic {
            cfg,
            linux,
            w_max: 0,
            origin: 0,
            k: 0.0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            cwnd_cnt: 0,
            cnt: 0,
            delay_min: None,
            found: false,
            round_start: Time::ZERO,
            last_ack: Time::ZERO,
            end_seq: 0,
            curr_rtt: None,
            sample_cnt: 0,
        }
    }

    /// A new HyStart round (Linux `bictcp_hystart_reset`, ns-3 `HystartReset`).
    pub(crate) fn hystart_reset(&mut self, now: Time, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// HyStart's test on one delay sample (Linux `hystart_update`, ns-3 `HystartUpdate`).
    fn hystart_update(&mut self, w: &mut CwndState, delay: Dur, now: Time) {
        let delay_min = self.delay_min.unwrap_or(delay);
        let linux = self.cfg.hystart == Hystart::Linux;
        // ACK train: ACKs closely spaced for longer than delay_min/2 (Linux, unpaced) or
        // delay_min (ns-3) since the round began.
        if now.since(self.last_ack) <= HYSTART_ACK_DELTA {
            self.last_ack = now;
            let threshold = if linux { Dur(delay_min.0 / 2) } else { delay_min };
            if now.since(self.round_start) > threshold {
                self.found = true;
            }
        }
        let thresh = if linux { Dur((delay_min.0 / 8).clamp(4_000_000, 16_000_000)) } else { Dur(delay_min.0.clamp(4_000_000, 1_000_000_000)) };
        if linux {
            // Every sample of the round updates its minimum.
            if self.curr_rtt.is_none_or(|c| c > delay) {
                self.curr_rtt = Some(delay);
            }
            if self.sample_cnt < HYSTART_MIN_SAMPLES {
                self.sample_cnt += 1;
            } else if self.curr_rtt.is_some_and(|c| c > delay_min + thresh) {
                self.found = true;
            }
        } else if self.sample_cnt < HYSTART_MIN_SAMPLES {
            // The first 8 samples only.
            if self.curr_rtt.is_none_or(|c| c > delay) {
                self.curr_rtt = Some(delay);
            }
            self.sample_cnt += 1;
        } else if self.curr_rtt.is_some_and(|c| c > delay_min + thresh) {
            self.found = true;
        }
        if self.found {
            w.ssthresh = w.cwnd;
        }
    }

    /// The growth counter for this ACK (Linux `bictcp_update`, ns-3 `TcpCubic::Update`): one
    /// segment of growth per `cnt` acknowledged segments.
    fn update(&mut self, seg_cwnd: u32, acked: u32, now: Time) -> u32 {
        let c = self.cfg.c;
        self.ack_cnt = self.ack_cnt.saturating_add(acked);
        let epoch_start = match self.epoch_start {
            Some(t) => t,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = acked;
                self.tcp_cwnd = seg_cwnd;
                if self.w_max <= seg_cwnd {
                    self.k = 0.0;
                    self.origin = seg_cwnd;
                } else {
                    self.k = cubic_k(self.w_max as f64, seg_cwnd as f64, c);
                    self.origin = self.w_max;
                }
                now
            }
        };
        // Look one minimum RTT ahead (Linux and ns-3 alike).
        let t = (now.since(epoch_start) + self.delay_min.unwrap_or(Dur::ZERO)).as_secs_f64();
        let offs = (t - self.k).abs();
        let delta = (c * offs.powi(3)) as u32;
        let target = if t < self.k { self.origin.saturating_sub(delta) } else { self.origin.saturating_add(delta) };
        let mut cnt = if target > seg_cwnd { seg_cwnd / (target - seg_cwnd) } else { 100 * seg_cwnd };
        if self.w_max == 0 && cnt > CNT_CLAMP {
            cnt = CNT_CLAMP;
        }
        if self.cfg.tcp_friendliness {
            // The Reno-friendly estimate grows one segment per `delta` acknowledged segments:
            // Linux's scale 8·(1024 + 717)/3/(1024 − 717) = 15, i.e. α_cubic ≈ 0.53 per RTT.
            let b = self.cfg.beta * 1024.0;
            let scale = (8.0 * (1024.0 + b) / 3.0 / (1024.0 - b)) as u32;
            let delta = ((seg_cwnd * scale) >> 3).max(1);
            while self.ack_cnt > delta {
                self.ack_cnt -= delta;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > seg_cwnd {
                let max_cnt = seg_cwnd / (self.tcp_cwnd - seg_cwnd);
                cnt = cnt.min(max_cnt);
            }
        }
        // Never faster than 1.5× per RTT.
        cnt.max(2)
    }

    /// Forget the epoch and HyStart state (Linux `bictcp_reset` + `bictcp_hystart_reset` on
    /// entering Loss; ns-3 `CubicReset` + `HystartReset`).
    fn reset(&mut self, snd_nxt: u64, now: Time) {
        if self.linux {
            self.w_max = 0;
            self.epoch_start = None;
            self.cnt = 0;
        }
        self.origin = 0;
        self.k = 0.0;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.delay_min = None;
        self.found = false;
        self.hystart_reset(now, snd_nxt);
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack_event(&mut self, w: &mut CwndState, ev: &AckEvent, now: Time) {
        // Linux takes each ACK's own sample; ns-3 hands PktsAcked the SRTT on every ACK.
        let sample = if self.linux { ev.rtt } else { ev.srtt };
        let Some(delay) = sample else { return };
        let delay = Dur(delay.0.max(1));
        // Discard samples right after a reduction: 1 s (Linux HZ) or 10 ms (ns-3 CubicDelta).
        let discard = if self.linux { Dur::from_secs(1) } else { Dur::from_millis(10) };
        if self.epoch_start.is_some_and(|t| now.since(t) < discard) {
            return;
        }
        if self.delay_min.is_none_or(|d| d > delay) {
            self.delay_min = Some(delay);
        }
        if self.cfg.hystart == Hystart::Off || self.found || w.cwnd < HYSTART_LOW_WINDOW * w.smss as u64 {
            return;
        }
        match self.cfg.hystart {
            Hystart::Linux if w.cwnd < w.ssthresh => {
                if ev.ack > self.end_seq {
                    self.hystart_reset(now, ev.snd_nxt);
                }
                self.hystart_update(w, delay, now);
            }
            Hystart::Ns3 if w.cwnd <= w.ssthresh => self.hystart_update(w, delay, now),
            _ => {}
        }
    }

    fn on_ack(&mut self, w: &mut CwndState, ack: &AckSample, now: Time) {
        let smss = w.smss as u64;
        if ack.bytes_acked == 0 {
            return;
        }
        if !self.linux && !ack.cwnd_limited {
            // ns-3 grows only a window that limits the sender (`m_isCwndLimited`).
            return;
        }
        let mut segs = ack.bytes_acked.div_ceil(smss);
        if w.cwnd < w.ssthresh {
            if self.cfg.hystart == Hystart::Ns3 && ack.ack > self.end_seq {
                // ns-3 starts HyStart's round in IncreaseWindow.
                self.hystart_reset(now, ack.snd_nxt);
            }
            if self.linux {
                // Linux tcp_slow_start: to ssthresh, the rest to avoidance.
                segs = linux_slow_start(w, segs);
            } else {
                // ns-3: every acknowledged segment, past ssthresh too (unlimited ABC).
                w.cwnd += segs * smss;
                segs = 0;
            }
            if segs == 0 {
                return;
            }
        }
        let seg_cwnd = (w.cwnd / smss).min(u32::MAX as u64) as u32;
        let acked = segs.min(u32::MAX as u64) as u32;
        let cnt = self.update(seg_cwnd.max(1), acked, now);
        self.cnt = cnt;
        if self.linux {
            cong_avoid_ai(w, &mut self.cwnd_cnt, cnt, acked);
        } else {
            // ns-3 TcpCubic::IncreaseWindow: at most one segment per ACK.
            self.cwnd_cnt += acked;
            if self.cwnd_cnt >= cnt {
                w.cwnd += smss;
                self.cwnd_cnt -= cnt;
            }
        }
    }

    /// RFC 9438 §4.6–4.7 (Linux `bictcp_recalc_ssthresh`, ns-3 `GetSsThresh`): `W_max` with fast
    /// convergence, `ssthresh = max(⌊cwnd·β⌋, 2)` segments, and the epoch ends. From cwnd, not
    /// the flight, as both do; the same for loss, ECN-Echo and timeout.
    fn ssthresh_after_loss(&mut self, w: &CwndState, _in_flight: u64, _cause: LossCause, _now: Time) -> u64 {
        let smss = w.smss as u64;
        let seg = (w.cwnd / smss).min(u32::MAX as u64) as u32;
        self.epoch_start = None;
        self.w_max = if seg < self.w_max && self.cfg.fast_convergence { (seg as f64 * (1.0 + self.cfg.beta) / 2.0) as u32 } else { seg };
        ((seg as f64 * self.cfg.beta) as u64).max(2) * smss
    }

    fn on_state_change(&mut self, _w: &mut CwndState, _from: CaState, to: CaState, snd_nxt: u64, now: Time) {
        if to == CaState::Loss {
            self.reset(snd_nxt, now);
        }
    }

    fn metrics(&self) -> CcMetrics {
        let mut m = CcMetrics::default();
        m.push("w_max", self.w_max as f64);
        m.push("k", self.k);
        m.push("cnt", self.cnt as f64);
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMSS: u64 = 1448;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    fn ev(ack: u64, snd_nxt: u64, rtt_ms: u64) -> AckEvent {
        let r = Some(Dur::from_millis(rtt_ms));
        AckEvent { ca: CaState::Open, rtt: r, srtt: r, min_rtt: None, ack, snd_nxt, prior_in_flight: 0, delivered: SMSS, lost: 0, dup: false }
    }

    fn sample(bytes: u64, ack: u64) -> AckSample {
        AckSample { bytes_acked: bytes, rtt: None, min_rtt: None, srtt: None, in_flight: 0, ece: false, ack, snd_nxt: ack, cwnd_limited: true }
    }

    // tests RFC 9438 eqs. 1-2 with W_max 100, β 0.7, C 0.4: K = ∛(100·0.3/0.4) = ∛75 =
    // 4.2172 s; W(t) = 0.4(t − 4.2172)³ + 100: W(0) = 100 − 0.4·75 = 70.00, W(1) = 100 −
    // 0.4·3.2172³ = 100 − 13.32 = 86.68, W(2) = 100 − 0.4·2.2172³ = 100 − 4.36 = 95.64, W(K) = 100,
    // W(6) = 100 + 0.4·1.7828³ = 100 + 2.27 = 102.27. α_cubic = 3·0.3/1.7 = 0.5294.
    #[test]
    fn window_function_hand_values() {
        let k = cubic_k(100.0, 70.0, 0.4);
        assert!(close(k, 4.2172, 5e-5), "K {k}");
        for (t, want) in [(0.0, 70.00), (1.0, 86.68), (2.0, 95.64), (k, 100.0), (6.0, 102.27)] {
            let got = w_cubic(t, k, 100.0, 0.4);
            assert!(close(got, want, 0.005), "W({t}) = {got}, want {want}");
        }
        assert!(close(alpha_cubic(0.7), 0.5294, 5e-5));
        assert_eq!(cubic_k(100.0, 120.0, 0.4), 0.0, "cwnd above W_max: K = 0");
    }

    // tests RFC 9438 §4.7 fast convergence: loss at cwnd 80 after W_max 100 gives W_max =
    // 80·1.7/2 = 68 and ssthresh = ⌊80·0.7⌋ = 56 segments; without fast convergence W_max = 80.
    // A loss above W_max sets W_max = cwnd. The floor is 2 segments.
    #[test]
    fn fast_convergence_and_ssthresh() {
        for linux in [true, false] {
            let mut cc = Cubic::new(CubicConfig::default(), linux);
            cc.w_max = 100;
            let w = CwndState { cwnd: 80 * SMSS, ssthresh: u64::MAX, smss: SMSS as u32 };
            assert_eq!(cc.ssthresh_after_loss(&w, 0, LossCause::DupAcks, Time::ZERO), 56 * SMSS);
            assert_eq!(cc.w_max, 68);
            assert_eq!(cc.metrics().as_slice()[0], ("w_max", 68.0));
            let w = CwndState { cwnd: 120 * SMSS, ..w };
            assert_eq!(cc.ssthresh_after_loss(&w, 0, LossCause::Ecn, Time::ZERO), 84 * SMSS);
            assert_eq!(cc.w_max, 120);
            let w = CwndState { cwnd: 2 * SMSS, ..w };
            assert_eq!(cc.ssthresh_after_loss(&w, 0, LossCause::Rto, Time::ZERO), 2 * SMSS, "floor 2 segments");
        }
        let mut cc = Cubic::new(CubicConfig { fast_convergence: false, ..CubicConfig::default() }, true);
        cc.w_max = 100;
        let w = CwndState { cwnd: 80 * SMSS, ssthresh: u64::MAX, smss: SMSS as u32 };
        cc.ssthresh_after_loss(&w, 0, LossCause::DupAcks, Time::ZERO);
        assert_eq!(cc.w_max, 80);
    }

    // tests the epoch start and the counter: after a loss at W_max 100 (cwnd 70 = ssthresh), the
    // first avoidance ACK starts an epoch with K = ∛(30/0.4) = 4.2172 s and origin 100. With no
    // delay sample, t = 0: target = 100 − ⌊0.4·4.2172³⌋ = 100 − 30 = 70 = cwnd, so cnt =
    // 100·cwnd, cut by the Reno-friendly estimate (W_est = 70, no gain yet) not at all: cwnd
    // holds. 4.2172 s later the target is 100: cnt = 70/30 = 2, cwnd grows one segment per
    // two ACKed.
    #[test]
    fn epoch_and_counter() {
        let mut cc = Cubic::new(CubicConfig { tcp_friendliness: false, ..CubicConfig::default() }, true);
        cc.w_max = 100;
        let mut w = CwndState { cwnd: 70 * SMSS, ssthresh: 70 * SMSS, smss: SMSS as u32 };
        cc.on_ack(&mut w, &sample(SMSS, 1), Time::ZERO);
        assert!(close(cc.k, 4.2172, 5e-5));
        assert_eq!((cc.origin, cc.cnt, w.cwnd), (100, 7000, 70 * SMSS));
        let t = Time::ZERO + Dur::from_nanos(4_217_200_000);
        cc.on_ack(&mut w, &sample(SMSS, 2), t);
        assert_eq!(cc.cnt, 2);
        cc.on_ack(&mut w, &sample(SMSS, 3), t);
        assert_eq!(w.cwnd, 71 * SMSS, "one segment per cnt = 2 acknowledged");
    }

    // tests Linux's clamp before the first loss (W_max = 0): cnt ≤ 20, so a flow above ssthresh
    // with no history grows at least one segment per 20 ACKed; and the 1.5×-per-RTT floor cnt ≥ 2.
    #[test]
    fn counter_clamps() {
        let mut cc = Cubic::new(CubicConfig { tcp_friendliness: false, ..CubicConfig::default() }, true);
        let mut w = CwndState { cwnd: 100 * SMSS, ssthresh: 50 * SMSS, smss: SMSS as u32 };
        cc.on_ack(&mut w, &sample(SMSS, 1), Time::ZERO);
        assert_eq!(cc.cnt, CNT_CLAMP, "origin = cwnd, target = cwnd: cnt 100·cwnd clamped to 20");
        // Far past K the target is far above cwnd: cnt = cwnd/(target − cwnd) = 0, floored to 2.
        cc.on_ack(&mut w, &sample(SMSS, 2), Time::ZERO + Dur::from_secs(100));
        assert_eq!(cc.cnt, 2);
    }

    // tests the Reno-friendly region (RFC 9438 §4.3, Linux's counter): W_est gains one segment
    // per ⌊cwnd·15/8⌋ acknowledged segments (α_cubic ≈ 0.53 of Reno's one per cwnd). With
    // cwnd 20 just after an epoch start with W_max 20 (target = cwnd for a while), 38 ACKs
    // (> ⌊20·15/8⌋ = 37) raise W_est to 21 > cwnd: cnt = 20/(21 − 20) = 20 instead of 2000.
    #[test]
    fn reno_friendly_estimate_bounds_cnt() {
        let mut cc = Cubic::new(CubicConfig::default(), true);
        cc.w_max = 20;
        let mut w = CwndState { cwnd: 20 * SMSS, ssthresh: 20 * SMSS, smss: SMSS as u32 };
        cc.on_ack(&mut w, &sample(SMSS, 1), Time::ZERO);
        assert_eq!(cc.cnt, 2000);
        cc.on_ack(&mut w, &sample(37 * SMSS, 2), Time::ZERO);
        assert_eq!((cc.tcp_cwnd, cc.cnt), (21, 20));
    }

    // tests slow start: Linux stops at ssthresh and spends the rest on avoidance; ns-3 adds every
    // acknowledged segment (unlimited ABC), past ssthresh too.
    #[test]
    fn slow_start_linux_and_ns3() {
        let cfg = CubicConfig { hystart: Hystart::Off, ..CubicConfig::default() };
        let mut w = CwndState { cwnd: 10 * SMSS, ssthresh: 11 * SMSS, smss: SMSS as u32 };
        Cubic::new(cfg, false).on_ack(&mut w, &sample(3 * SMSS, 1), Time::ZERO);
        assert_eq!(w.cwnd, 13 * SMSS);
        let mut w = CwndState { cwnd: 10 * SMSS, ssthresh: 11 * SMSS, smss: SMSS as u32 };
        let mut cc = Cubic::new(cfg, true);
        cc.on_ack(&mut w, &sample(3 * SMSS, 1), Time::ZERO);
        assert_eq!(w.cwnd, 11 * SMSS, "to ssthresh; the two left are avoidance, cnt 20 (no loss yet)");
        assert_eq!((cc.cwnd_cnt, cc.cnt), (2, 20));
    }

    /// A round of HyStart samples: a first round sets delay_min = 100 ms; the second gives
    /// `n` samples of `rtt_ms`, 10 ms apart (no ACK train). Returns whether slow start ended.
    fn hystart_second_round(hystart: Hystart, linux: bool, rtt_ms: u64, n: u32) -> bool {
        let mut cc = Cubic::new(CubicConfig { hystart, ..CubicConfig::default() }, linux);
        let mut w = CwndState { cwnd: 20 * SMSS, ssthresh: u64::MAX, smss: SMSS as u32 };
        let mut now = Time::ZERO + Dur::from_millis(100);
        cc.hystart_reset(now, 10_000);
        cc.on_ack_event(&mut w, &ev(5_000, 10_000, 100), now);
        assert_eq!(cc.delay_min, Some(Dur::from_millis(100)));
        now += Dur::from_millis(10);
        cc.hystart_reset(now, 1_000_000);
        for i in 0..n {
            now += Dur::from_millis(10);
            cc.on_ack_event(&mut w, &ev(20_000 + i as u64, 1_000_000, rtt_ms), now);
        }
        w.ssthresh != u64::MAX
    }

    // tests HyStart's delay exit after delay_min = 100 ms. Linux: threshold 100 + clamp(100/8,
    // 4, 16) = 112.5 ms, tested from the 9th sample of a round: nine samples of 120 ms exit,
    // eight do not, nine of 110 ms do not, nine of 115 ms do (above 112.5, below 100 + 16). ns-3: threshold 100 + clamp(100, 4, 1000) = 200 ms:
    // 120 ms does not exit, 210 ms does (the 9th sample tests the first eight's minimum).
    #[test]
    fn hystart_delay_thresholds() {
        assert!(hystart_second_round(Hystart::Linux, true, 120, 9));
        assert!(!hystart_second_round(Hystart::Linux, true, 120, 8));
        assert!(!hystart_second_round(Hystart::Linux, true, 110, 9));
        assert!(hystart_second_round(Hystart::Linux, true, 115, 9));
        assert!(!hystart_second_round(Hystart::Ns3, false, 120, 9));
        assert!(hystart_second_round(Hystart::Ns3, false, 210, 9));
        assert!(!hystart_second_round(Hystart::Ns3, false, 210, 8));
        assert!(!hystart_second_round(Hystart::Off, true, 500, 20));
    }

    // tests the two round-minimum rules: a round of eight samples of 120 ms then one of 105 ms.
    // Linux's running minimum drops to 105 < 112.5: no exit on the 9th; ns-3 keeps the first
    // eight's minimum (120), and with delay_min 10 ms (threshold 10 + 10 = 20 ms) exits.
    #[test]
    fn hystart_round_minimum_linux_running_ns3_first_eight() {
        let run = |hystart, linux, base: u64| {
            let mut cc = Cubic::new(CubicConfig { hystart, ..CubicConfig::default() }, linux);
            let mut w = CwndState { cwnd: 20 * SMSS, ssthresh: u64::MAX, smss: SMSS as u32 };
            let mut now = Time::ZERO + Dur::from_millis(100);
            cc.delay_min = Some(Dur::from_millis(base));
            cc.hystart_reset(now, 1_000_000);
            for (i, r) in [120, 120, 120, 120, 120, 120, 120, 120, 105].into_iter().enumerate() {
                now += Dur::from_millis(10);
                cc.on_ack_event(&mut w, &ev(20_000 + i as u64, 1_000_000, r), now);
            }
            w.ssthresh != u64::MAX
        };
        assert!(!run(Hystart::Linux, true, 100));
        assert!(run(Hystart::Ns3, false, 10));
        // The same samples with Linux's threshold from delay_min 10 ms (10 + 4 = 14 ms): 105 > 14.
        assert!(run(Hystart::Linux, true, 10));
    }

    // tests the ACK-train exit: ACKs 1 ms apart for longer than delay_min/2 (Linux) or
    // delay_min (ns-3) since the round began. delay_min 40 ms; 25 ACKs 1 ms apart (25 ms): Linux
    // exits (> 20 ms), ns-3 does not (≤ 40 ms); 45 ACKs: both. Linux at the edge: 20 ACKs
    // (exactly 20 ms) do not exit, 21 do.
    #[test]
    fn hystart_ack_train() {
        let run = |hystart, n: u64| {
            let mut cc = Cubic::new(CubicConfig { hystart, ..CubicConfig::default() }, true);
            let mut w = CwndState { cwnd: 20 * SMSS, ssthresh: u64::MAX, smss: SMSS as u32 };
            let mut now = Time::ZERO + Dur::from_millis(100);
            cc.delay_min = Some(Dur::from_millis(40));
            cc.hystart_reset(now, 1_000_000);
            for i in 0..n {
                now += Dur::from_millis(1);
                cc.on_ack_event(&mut w, &ev(20_000 + i, 1_000_000, 40), now);
            }
            w.ssthresh != u64::MAX
        };
        assert!(run(Hystart::Linux, 25));
        assert!(!run(Hystart::Ns3, 25));
        assert!(run(Hystart::Ns3, 45));
        assert!(!run(Hystart::Linux, 20));
        assert!(run(Hystart::Linux, 21));
    }

    // tests the parameters' check: β must lie strictly inside (0, 1), C be positive; each
    // refusal names its key.
    #[test]
    fn validate_bounds_beta_and_c() {
        let bad = |cfg: CubicConfig| cfg.validate().unwrap_err().0;
        assert_eq!(bad(CubicConfig { beta: 0.0, ..CubicConfig::default() }), "beta");
        assert_eq!(bad(CubicConfig { beta: 1.0, ..CubicConfig::default() }), "beta");
        assert_eq!(bad(CubicConfig { c: 0.0, ..CubicConfig::default() }), "c");
        assert_eq!(bad(CubicConfig { c: f64::INFINITY, ..CubicConfig::default() }), "c");
        assert!(CubicConfig { beta: 0.999, c: 1e-3, ..CubicConfig::default() }.validate().is_ok());
    }

    // tests the timeout: Linux forgets W_max (the next epoch starts at K = 0 from cwnd, with the
    // cnt clamp of 20), ns-3 ≥ 3.42 keeps it; both forget delay_min and HyStart's exit.
    #[test]
    fn timeout_resets() {
        for linux in [true, false] {
            let mut cc = Cubic::new(CubicConfig::default(), linux);
            cc.w_max = 100;
            cc.delay_min = Some(Dur::from_millis(50));
            cc.found = true;
            let mut w = CwndState { cwnd: 80 * SMSS, ssthresh: u64::MAX, smss: SMSS as u32 };
            w.ssthresh = cc.ssthresh_after_loss(&w, 0, LossCause::Rto, Time::ZERO);
            cc.on_state_change(&mut w, CaState::Open, CaState::Loss, 7, Time::ZERO);
            assert_eq!(cc.w_max, if linux { 0 } else { 68 });
            assert_eq!((cc.delay_min, cc.found, cc.end_seq), (None, false, 7));
        }
    }
}
