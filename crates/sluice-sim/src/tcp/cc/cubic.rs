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
#[repr(align(64))] // boxed on its own cache lines, which `prefetch_lines` lists
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
    /// When an ACNS freeze began to hold the window ([`Time::MAX`]: none): the epoch is
    /// shifted by the time held when growth resumes.
    frozen_at: Time,
}

impl Cubic {
    /// One field on each of the state's cache lines (a layout test keeps the list whole).
    #[inline]
    pub(crate) fn prefetch_lines(&self, p: &mut impl crate::prefetch::Lines) {
        p.line(&self.epoch_start);
        p.line(&self.k);
        p.line(&self.sample_cnt);
    }

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
            frozen_at: Time::MAX,
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

    /// ACNS (docs/tcp.md, "ACNS endpoint"): a freeze pauses the epoch — when growth resumes, the
    /// epoch start moves on by the time held (as Linux shifts it after an idle period), so
    /// `W_cubic` and the Reno-friendly estimate (which grows only with growth ACKs) take up where
    /// they stopped; a fallback ends the epoch, and the next growth ACK starts one from the
    /// window fallen back to, with `K` from the unchanged `W_max`. Neither touches `W_max`.
    fn on_acns_hold(&mut self, fallback: bool, now: Time) {
        if fallback {
            self.epoch_start = None;
            self.frozen_at = Time::MAX;
        } else if self.frozen_at == Time::MAX {
            self.frozen_at = now;
        }
    }

    fn on_acns_release(&mut self, now: Time) {
        let since = std::mem::replace(&mut self.frozen_at, Time::MAX);
        if since != Time::MAX {
            if let Some(t) = self.epoch_start {
                self.epoch_start = Some(t + now.since(since));
            }
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
        // A loss exactly at W_max is not below it: no fast convergence, W_max stays 100 (not
        // 100·1.7/2 = 85).
        let mut cc = Cubic::new(CubicConfig::default(), true);
        cc.w_max = 100;
        cc.ssthresh_after_loss(&CwndState { cwnd: 100 * SMSS, ..w }, 0, LossCause::DupAcks, Time::ZERO);
        assert_eq!(cc.w_max, 100);
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

    // tests the window function as the counter sees it, one minimum RTT ahead (RFC 9438 §4.2,
    // Linux and ns-3): W_max 100, cwnd 80 at the epoch's start, delay_min 100 ms, C 0.4. K =
    // ∛(20/0.4) = 3.6840 s. At 0 s: t = 0.1 s, 0.4·|0.1 − 3.684|³ = 18.42 → target 100 − 18 =
    // 82, cnt = ⌊80/(82 − 80)⌋ = 40. At 2 s: t = 2.1, 0.4·1.584³ = 1.59 → 99, cnt ⌊80/19⌋ = 4.
    // At 5 s: t = 5.1 > K, 0.4·1.416³ = 1.14 → 101, cnt ⌊80/21⌋ = 3.
    #[test]
    fn counter_from_the_window_function_one_rtt_ahead() {
        let mut cc = Cubic::new(CubicConfig { tcp_friendliness: false, hystart: Hystart::Off, ..CubicConfig::default() }, true);
        cc.w_max = 100;
        cc.delay_min = Some(Dur::from_millis(100));
        let mut w = CwndState { cwnd: 80 * SMSS, ssthresh: 80 * SMSS, smss: SMSS as u32 };
        let mut cnts = Vec::new();
        for (i, t) in [0u64, 2, 5].into_iter().enumerate() {
            w.cwnd = 80 * SMSS;
            cc.on_ack(&mut w, &sample(SMSS, 1 + i as u64), Time::ZERO + Dur::from_secs(t));
            cnts.push(cc.cnt);
        }
        assert!(close(cc.k, 3.6840, 5e-5), "K {}", cc.k);
        assert_eq!(cnts, [40, 4, 3]);
    }

    // tests the Reno-friendly estimate's counter at its edges (cwnd 20, W_max 20, so CUBIC's own
    // cnt is 2000): one step per ⌊20·15/8⌋ = 37 acknowledged segments, taken only while more
    // than 37 are counted. 1 + 73 = 74 counted: one step (74 > 37 → 37 left, not > 37): W_est
    // 21, cnt = 20/(21 − 20) = 20. One more (38 > 37): W_est 22, 1 left, cnt = ⌊20/2⌋ = 10.
    #[test]
    fn reno_friendly_counter_edges() {
        let mut cc = Cubic::new(CubicConfig { hystart: Hystart::Off, ..CubicConfig::default() }, true);
        cc.w_max = 20;
        let mut w = CwndState { cwnd: 20 * SMSS, ssthresh: 20 * SMSS, smss: SMSS as u32 };
        cc.on_ack(&mut w, &sample(SMSS, 1), Time::ZERO);
        w.cwnd = 20 * SMSS;
        cc.on_ack(&mut w, &sample(73 * SMSS, 2), Time::ZERO);
        assert_eq!((cc.tcp_cwnd, cc.ack_cnt, cc.cnt), (21, 37, 20));
        w.cwnd = 20 * SMSS;
        cc.on_ack(&mut w, &sample(SMSS, 3), Time::ZERO);
        assert_eq!((cc.tcp_cwnd, cc.ack_cnt, cc.cnt), (22, 1, 10));
    }

    // tests ns-3's avoidance step (TcpCubic::IncreaseWindow): at most one segment per ACK, the
    // counter keeping the rest. W_max 0 (no loss yet): cnt clamped to 20. cwnd 100 above
    // ssthresh 50: 19 ACKs of one segment grow nothing, the 20th one segment (counter back to
    // 0); an ACK of 45 segments grows one segment, counter 25.
    #[test]
    fn ns3_avoidance_one_segment_per_ack_at_most() {
        let mut cc = Cubic::new(CubicConfig { tcp_friendliness: false, hystart: Hystart::Off, ..CubicConfig::default() }, false);
        let mut w = CwndState { cwnd: 100 * SMSS, ssthresh: 50 * SMSS, smss: SMSS as u32 };
        for i in 1..=19 {
            cc.on_ack(&mut w, &sample(SMSS, i), Time::ZERO);
        }
        assert_eq!((w.cwnd, cc.cwnd_cnt, cc.cnt), (100 * SMSS, 19, 20));
        cc.on_ack(&mut w, &sample(SMSS, 20), Time::ZERO);
        assert_eq!((w.cwnd, cc.cwnd_cnt), (101 * SMSS, 0));
        cc.on_ack(&mut w, &sample(45 * SMSS, 21), Time::ZERO);
        assert_eq!((w.cwnd, cc.cwnd_cnt), (102 * SMSS, 25));
    }

    // tests which windows grow: ns-3 only one that limits the sender (`m_isCwndLimited`), Linux
    // (as modelled) any; and cwnd = ssthresh is avoidance, not slow start (ns-3 slow start would
    // add the segment: 20 → 21; avoidance with cnt 20 adds nothing yet).
    #[test]
    fn growth_needs_a_limiting_window_in_ns3_and_slow_start_ends_at_ssthresh() {
        let cfg = CubicConfig { hystart: Hystart::Off, ..CubicConfig::default() };
        let idle = AckSample { cwnd_limited: false, ..sample(SMSS, 1) };
        for (linux, want) in [(false, 10), (true, 11)] {
            let mut w = CwndState { cwnd: 10 * SMSS, ssthresh: 100 * SMSS, smss: SMSS as u32 };
            Cubic::new(cfg, linux).on_ack(&mut w, &idle, Time::ZERO);
            assert_eq!(w.cwnd, want * SMSS, "linux {linux}");
        }
        let mut w = CwndState { cwnd: 20 * SMSS, ssthresh: 20 * SMSS, smss: SMSS as u32 };
        Cubic::new(cfg, false).on_ack(&mut w, &sample(SMSS, 1), Time::ZERO);
        assert_eq!(w.cwnd, 20 * SMSS);
    }

    // tests where ns-3 starts HyStart's round: in the window increase (IncreaseWindow), in slow
    // start, on an ACK past the round's end (ACK 1000 = end: no; 1001: the round restarts at
    // SND.NXT 5000, now). Linux starts it on the ACK event, never here; nor does ns-3 CUBIC with
    // HyStart off.
    #[test]
    fn ns3_hystart_round_starts_in_the_window_increase() {
        let run = |hystart, linux, ack: u64| {
            let mut cc = Cubic::new(CubicConfig { hystart, ..CubicConfig::default() }, linux);
            cc.hystart_reset(Time::ZERO, 1000);
            let mut w = CwndState { cwnd: 10 * SMSS, ssthresh: 100 * SMSS, smss: SMSS as u32 };
            let now = Time::ZERO + Dur::from_millis(7);
            cc.on_ack(&mut w, &AckSample { snd_nxt: 5000, ..sample(SMSS, ack) }, now);
            (cc.end_seq, cc.round_start == now)
        };
        assert_eq!(run(Hystart::Ns3, false, 1000), (1000, false));
        assert_eq!(run(Hystart::Ns3, false, 1001), (5000, true));
        assert_eq!(run(Hystart::Linux, true, 1001), (1000, false));
        assert_eq!(run(Hystart::Off, false, 1001), (1000, false));
    }

    // tests the samples after a reduction: discarded for 1 s (Linux) or 10 ms (ns-3) after the
    // epoch starts, taken from then on; and delay_min follows the smallest sample.
    #[test]
    fn samples_after_an_epoch_start_and_delay_min() {
        for (linux, quiet) in [(true, Dur::from_secs(1)), (false, Dur::from_millis(10))] {
            let mut cc = Cubic::new(CubicConfig { hystart: Hystart::Off, ..CubicConfig::default() }, linux);
            let mut w = CwndState { cwnd: 20 * SMSS, ssthresh: 20 * SMSS, smss: SMSS as u32 };
            let t0 = Time::ZERO + Dur::from_secs(3);
            cc.epoch_start = Some(t0);
            cc.on_ack_event(&mut w, &ev(1, 1, 50), t0 + Dur(quiet.0 / 2));
            assert_eq!(cc.delay_min, None, "linux {linux}: inside the quiet time");
            cc.on_ack_event(&mut w, &ev(2, 2, 100), t0 + quiet);
            assert_eq!(cc.delay_min, Some(Dur::from_millis(100)), "linux {linux}: at its end");
            cc.on_ack_event(&mut w, &ev(3, 3, 80), t0 + quiet);
            cc.on_ack_event(&mut w, &ev(4, 4, 90), t0 + quiet);
            assert_eq!(cc.delay_min, Some(Dur::from_millis(80)));
        }
    }

    /// One HyStart round with delay_min 100 ms: the window `(cwnd, ssthresh)` in segments,
    /// `found` beforehand, and samples of `delays_ns` 10 ms apart (no ACK train) inside a round
    /// ending far ahead. Returns ssthresh in segments (None: unset) and `found`.
    fn hystart_round(hystart: Hystart, linux: bool, w: (u64, u64), found: bool, delays_ns: &[u64]) -> (Option<u64>, bool) {
        let mut cc = Cubic::new(CubicConfig { hystart, ..CubicConfig::default() }, linux);
        cc.delay_min = Some(Dur::from_millis(100));
        cc.found = found;
        let mut cw = CwndState { cwnd: w.0 * SMSS, ssthresh: w.1.saturating_mul(SMSS), smss: SMSS as u32 };
        let mut now = Time::ZERO + Dur::from_millis(100);
        cc.hystart_reset(now, 1_000_000);
        for (i, d) in delays_ns.iter().enumerate() {
            now += Dur::from_millis(10);
            let r = Some(Dur(*d));
            let e = AckEvent { ca: CaState::Open, rtt: r, srtt: r, min_rtt: None, ack: 20_000 + i as u64, snd_nxt: 1_000_000, prior_in_flight: 0, delivered: SMSS, lost: 0, dup: false };
            cc.on_ack_event(&mut cw, &e, now);
        }
        ((cw.ssthresh != u64::MAX).then_some(cw.ssthresh / SMSS), cc.found)
    }

    // tests when HyStart runs at all, with nine samples of 250 ms after delay_min 100 ms (an
    // exit under either threshold, 112.5 ms Linux, 200 ms ns-3): from 16 segments of cwnd
    // (`hystart_low_window`), not below; in slow start only (Linux cwnd < ssthresh, ns-3 cwnd ≤
    // ssthresh: at cwnd = ssthresh = 20 Linux does nothing, ns-3 exits); above ssthresh never
    // (ssthresh stays 20, not raised to cwnd 30); once found, never again; off, never.
    #[test]
    fn hystart_runs_from_the_low_window_in_slow_start_once() {
        let slow = [250_000_000; 9];
        let max = u64::MAX;
        assert_eq!(hystart_round(Hystart::Linux, true, (20, max), false, &slow), (Some(20), true));
        assert_eq!(hystart_round(Hystart::Linux, true, (16, max), false, &slow), (Some(16), true));
        assert_eq!(hystart_round(Hystart::Linux, true, (10, max), false, &slow), (None, false));
        assert_eq!(hystart_round(Hystart::Ns3, false, (10, max), false, &slow), (None, false));
        assert_eq!(hystart_round(Hystart::Linux, true, (20, max), true, &slow), (None, true));
        assert_eq!(hystart_round(Hystart::Linux, true, (20, 20), false, &slow), (Some(20), false));
        assert_eq!(hystart_round(Hystart::Ns3, false, (20, 20), false, &slow), (Some(20), true));
        assert_eq!(hystart_round(Hystart::Linux, true, (30, 20), false, &slow), (Some(20), false));
        assert_eq!(hystart_round(Hystart::Ns3, false, (30, 20), false, &slow), (Some(20), false));
        assert_eq!(hystart_round(Hystart::Off, true, (20, max), false, &slow), (None, false));
    }

    // tests the delay thresholds at equality (an exit needs the round's minimum above
    // delay_min + threshold): Linux nine samples of exactly 112.5 ms, ns-3 of exactly 200 ms: no
    // exit. ns-3's round minimum is the first eight's: [250, 190, 250 × 6] then 250: minimum
    // 190 ≤ 200, no exit (a maximum, or the first sample, would exit).
    #[test]
    fn hystart_delay_thresholds_at_equality_and_ns3_minimum() {
        let max = u64::MAX;
        assert_eq!(hystart_round(Hystart::Linux, true, (20, max), false, &[112_500_000; 9]), (None, false));
        assert_eq!(hystart_round(Hystart::Ns3, false, (20, max), false, &[200_000_000; 9]), (None, false));
        let mut d = [250_000_000u64; 9];
        d[1] = 190_000_000;
        assert_eq!(hystart_round(Hystart::Ns3, false, (20, max), false, &d), (None, false));
        d[1] = 250_000_000;
        assert_eq!(hystart_round(Hystart::Ns3, false, (20, max), false, &d), (Some(20), true));
    }

    // tests where Linux starts HyStart's round: on the ACK event of an ACK past the round's end
    // (1000: same round, its sample count goes on; 1001: a new round from SND.NXT 9000).
    #[test]
    fn linux_hystart_round_starts_past_the_end() {
        let mut cc = Cubic::new(CubicConfig::default(), true);
        let mut w = CwndState { cwnd: 20 * SMSS, ssthresh: u64::MAX, smss: SMSS as u32 };
        cc.hystart_reset(Time::ZERO, 1000);
        cc.on_ack_event(&mut w, &ev(500, 2000, 100), Time::ZERO + Dur::from_millis(10));
        cc.on_ack_event(&mut w, &ev(1000, 9000, 100), Time::ZERO + Dur::from_millis(20));
        assert_eq!((cc.end_seq, cc.sample_cnt), (1000, 2));
        cc.on_ack_event(&mut w, &ev(1001, 9000, 100), Time::ZERO + Dur::from_millis(30));
        assert_eq!((cc.end_seq, cc.sample_cnt), (9000, 1));
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
