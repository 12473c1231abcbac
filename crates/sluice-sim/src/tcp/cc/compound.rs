//! Compound TCP (Tan, Song, Zhang & Sridharan, INFOCOM 2006; draft-sridharan-tcpm-ctcp-02): a
//! Reno window `cwnd` plus a delay-based window `dwnd`, the sender using `win = cwnd + dwnd`.
//! Once per round (one window of data) with at least three RTT samples in it, the queued
//! segments `diff = win·(1 − baseRTT/RTT)` (RTT: the round's smallest sample; baseRTT: the
//! smallest ever) move dwnd: below γ it grows by `max(α·win^k − 1, 0)` (HighSpeed-TCP-like
//! scalable growth), from γ up it shrinks by `η·diff`, never below 0. A loss leaves
//! `win·(1 − β)`: the Reno part halves and dwnd takes the rest (`max(win·(1 − β) − cwnd/2, 0)`);
//! a timeout sets dwnd to 0.
//!
//! The endpoint's window (`CwndState::cwnd`, what the sender uses, traces and reports) is the
//! whole `win`, as the Linux module sets `snd_cwnd`; the algorithm keeps the split. When the
//! endpoint sets the window below `cwnd + dwnd` (the end of a reduction, a timeout), dwnd keeps
//! its value and cwnd takes the rest, or, when either part alone exceeds the window, cwnd takes
//! it all and dwnd becomes 0 (the Linux module's rule, used by both variants).
//!
//! `compound.variant`: `"draft"` (the rules above, fractional dwnd, dwnd held at 0 in slow
//! start, optional γ tuning) or `"linux"`, the out-of-tree Linux module `tcp_compound.c`
//! (Castellani & Hemminger): whole segments; `diff` and `α·win^k` from the segments sent in the
//! previous round; dwnd updated in slow start too; the loss halves the whole window and then
//! re-splits it by the rule above; the Reno part is in slow start while it is at most ssthresh.
//!
//! Not implemented: the idle restart (Linux's `CA_EVENT_CWND_RESTART`/`TX_START`; the endpoint
//! has no idle restart of its own); the draft's `awnd` bound on `win` other than through the
//! endpoint's own send limit (neither part grows while the window does not limit the sender,
//! Linux's `tcp_is_cwnd_limited` test, in both variants).

use super::{AckEvent, AckSample, CaState, CcMetrics, CongestionControl, CwndState, LossCause};
use sluice_core::{Dur, Time};

/// Which Compound TCP (`compound.variant`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CompoundVariant {
    /// draft-sridharan-tcpm-ctcp-02: fractional dwnd, the current window in `diff`, dwnd 0 in
    /// slow start, the loss split `cwnd/2` + `max(win·(1 − β) − cwnd/2, 0)`.
    #[serde(rename = "draft")]
    Draft,
    /// The Linux module `tcp_compound.c`: whole segments, the previous round's segments in
    /// `diff`, dwnd updated in slow start too, the loss re-split by the module's rule.
    #[serde(rename = "linux")]
    Linux,
}

impl CompoundVariant {
    pub fn as_str(self) -> &'static str {
        match self {
            CompoundVariant::Draft => "draft",
            CompoundVariant::Linux => "linux",
        }
    }
}

/// Compound TCP's parameters (`[tcp.compound]`); windows in segments.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct CompoundConfig {
    pub variant: CompoundVariant,
    /// α: dwnd grows by `α·win^k − 1` segments a round.
    pub alpha: f64,
    /// β: a loss leaves `win·(1 − β)`.
    pub beta: f64,
    /// k: the growth exponent.
    pub k: f64,
    /// γ: the queued segments from which dwnd shrinks.
    pub gamma: f64,
    /// η (the Linux module's ζ): dwnd shrinks by `η·diff` a round.
    pub eta: f64,
    /// Tune γ at each loss (draft only): `γ ← γ + ½·(¾·diff_reno − γ)`, clipped to [5, 30].
    pub gamma_tuning: bool,
}

impl Default for CompoundConfig {
    /// draft-sridharan-tcpm-ctcp-02 and Linux `tcp_compound.c`: α 1/8, β 1/2, k 0.75, γ 30
    /// segments, η 1 (`TCP_COMPOUND_ALPHA` 3 as a shift, `TCP_COMPOUND_BETA`,
    /// `TCP_COMPOUND_GAMMA` 30); γ tuning off (the Linux module has none).
    fn default() -> Self {
        CompoundConfig { variant: CompoundVariant::Draft, alpha: 0.125, beta: 0.5, k: 0.75, gamma: 30.0, eta: 1.0, gamma_tuning: false }
    }
}

/// γ tuning's bounds and forgetting factor (draft-sridharan-tcpm-ctcp-02: γ_low 5, γ_high 30,
/// λ 1/2).
const GAMMA_LOW: f64 = 5.0;
const GAMMA_HIGH: f64 = 30.0;
const LAMBDA: f64 = 0.5;

impl CompoundConfig {
    /// Checks the values; `Err((key, message))`.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let positive = |v: f64| v.is_finite() && v > 0.0;
        if !positive(self.alpha) {
            return Err(("alpha", format!("must be a positive number, got {}", self.alpha)));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(("beta", format!("must be in (0, 1), got {}", self.beta)));
        }
        if !(self.k > 0.0 && self.k <= 1.0) {
            return Err(("k", format!("must be in (0, 1], got {}", self.k)));
        }
        if !positive(self.gamma) {
            return Err(("gamma", format!("must be a positive number of segments, got {}", self.gamma)));
        }
        if !positive(self.eta) {
            return Err(("eta", format!("must be a positive number, got {}", self.eta)));
        }
        if self.gamma_tuning && self.variant == CompoundVariant::Linux {
            return Err(("gamma_tuning", "only variant = \"draft\" tunes γ (the Linux module has a fixed γ), got variant = \"linux\"".to_string()));
        }
        Ok(())
    }

    pub fn describe(&self) -> Vec<(&'static str, String)> {
        vec![
            ("compound.variant", self.variant.as_str().to_string()),
            ("compound.alpha", self.alpha.to_string()),
            ("compound.beta", self.beta.to_string()),
            ("compound.k", self.k.to_string()),
            ("compound.gamma", self.gamma.to_string()),
            ("compound.eta", self.eta.to_string()),
            ("compound.gamma_tuning", self.gamma_tuning.to_string()),
        ]
    }
}

/// `⌊n^k⌋` for a whole `n`; exact for k = 0.75 (the fourth root of `n³` in integers, where the
/// Linux module uses a Newton iteration that stops within one).
fn floor_pow(n: u64, k: f64) -> u64 {
    if k == 0.75 {
        let cube = (n as u128).pow(3);
        let mut r = (cube as f64).powf(0.25) as u128;
        while r.pow(4) > cube {
            r -= 1;
        }
        while (r + 1).pow(4) <= cube {
            r += 1;
        }
        r as u64
    } else {
        ((n as f64).powf(k) + 1e-9).floor() as u64
    }
}

#[derive(Clone, Debug)]
pub struct Compound {
    cfg: CompoundConfig,
    /// The Reno part, bytes.
    cwnd: u64,
    /// The delay-based part, bytes (whole segments in the Linux variant).
    dwnd: u64,
    /// γ now (tuned at losses when `gamma_tuning`), segments.
    gamma: f64,
    /// The delay part is on (Open state): off in recovery, CWR and loss, on again with a new
    /// round on return to Open.
    doing: bool,
    /// The round ends when an ACK passes this (SND.NXT at its start).
    beg_snd_nxt: u64,
    /// The previous round's mark (Linux's `old_wnd` is the distance between the two).
    beg_snd_una: Option<u64>,
    /// The Reno part at the round's start (γ tuning's `diff_reno`).
    round_cwnd: u64,
    base_rtt: Option<Dur>,
    min_rtt: Option<Dur>,
    cnt_rtt: u32,
    /// The last round's `diff` computed from the Reno part (γ tuning), segments; used once.
    diff_reno: Option<f64>,
    /// The last `diff` computed (tracing), segments.
    diff: f64,
    /// SMSS as last lent (tracing in segments).
    smss: u32,
}

impl Compound {
    pub fn new(cfg: CompoundConfig) -> Compound {
        Compound {
            cfg,
            cwnd: 0,
            dwnd: 0,
            gamma: cfg.gamma,
            doing: true,
            beg_snd_nxt: 0,
            beg_snd_una: None,
            round_cwnd: 0,
            base_rtt: None,
            min_rtt: None,
            cnt_rtt: 0,
            diff_reno: None,
            diff: 0.0,
            smss: 0,
        }
    }

    fn linux(&self) -> bool {
        self.cfg.variant == CompoundVariant::Linux
    }

    /// Takes the endpoint's window as `cwnd + dwnd` again after the endpoint changed it: dwnd
    /// kept and cwnd the rest, or everything to cwnd when either part alone exceeds the window
    /// (Linux `tcp_compound_cong_avoid`'s first step).
    fn sync(&mut self, w: &CwndState) {
        self.smss = w.smss;
        let total = w.cwnd;
        if self.cwnd + self.dwnd > total && (self.cwnd > total || self.dwnd > total) {
            self.cwnd = total;
            self.dwnd = 0;
        } else {
            self.cwnd = total - self.dwnd;
        }
    }

    /// The end of a round with at least three samples: dwnd moves by the queued segments.
    /// `win`: the whole window, bytes; `old_wnd`: bytes sent in the previous round.
    fn update_dwnd(&mut self, win: u64, old_wnd: u64, smss: u64, base: Dur, rtt: Dur) {
        let c = &self.cfg;
        if self.linux() {
            // Whole segments, diff in halves (one bit of fixed point, as the module keeps it).
            let wnd = old_wnd / smss;
            let target2 = (2 * wnd as u128 * base.0 as u128 / rtt.0.max(1) as u128) as u64;
            let diff2 = (2 * wnd).saturating_sub(target2);
            self.diff = diff2 as f64 / 2.0;
            let dwnd = self.dwnd / smss;
            let dwnd = if (diff2 as f64) < 2.0 * self.gamma {
                let x = (c.alpha * floor_pow(wnd, c.k) as f64) as u64;
                dwnd + x.saturating_sub(1)
            } else {
                let v = 2.0 * dwnd as f64 - c.eta * diff2 as f64;
                if v < 0.0 {
                    0
                } else {
                    (v / 2.0) as u64
                }
            };
            self.dwnd = dwnd * smss;
        } else {
            let win_seg = win as f64 / smss as f64;
            // 1 − baseRTT/RTT, as (RTT − baseRTT)/RTT from whole nanoseconds.
            let queued = rtt.0.saturating_sub(base.0) as f64 / rtt.0.max(1) as f64;
            let diff = win_seg * queued;
            self.diff = diff;
            if c.gamma_tuning {
                self.diff_reno = Some(self.round_cwnd as f64 / smss as f64 * queued);
            }
            if diff < self.gamma {
                let inc = (c.alpha * win_seg.powf(c.k) - 1.0).max(0.0);
                self.dwnd += (inc * smss as f64) as u64;
            } else {
                let dec = (c.eta * diff * smss as f64) as u64;
                self.dwnd = self.dwnd.saturating_sub(dec);
            }
        }
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        "compound"
    }

    /// Every ACK's own RTT sample (Linux `pkts_acked`), under either profile: baseRTT is the
    /// smallest ever, the round's RTT the smallest of the round.
    fn on_ack_event(&mut self, _w: &mut CwndState, ev: &AckEvent, _now: Time) {
        let Some(r) = ev.rtt else { return };
        let r = Dur(r.0.max(1));
        self.base_rtt = Some(self.base_rtt.map_or(r, |m| m.min(r)));
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.cnt_rtt += 1;
    }

    fn on_ack(&mut self, w: &mut CwndState, ack: &AckSample, _now: Time) {
        self.sync(w);
        let smss = w.smss as u64;
        if ack.bytes_acked == 0 || !ack.cwnd_limited {
            return;
        }
        // Slow start by the whole window (the draft), or by the Reno part alone, up to and
        // including ssthresh (the Linux module).
        let slow_start = if self.linux() { self.cwnd <= w.ssthresh } else { w.cwnd < w.ssthresh };
        // The delay part, once per round, before this ACK's Reno step.
        if self.doing && ack.ack > self.beg_snd_nxt {
            let old_wnd = self.beg_snd_una.map_or(w.cwnd, |u| self.beg_snd_nxt.saturating_sub(u));
            self.beg_snd_una = Some(self.beg_snd_nxt);
            self.beg_snd_nxt = ack.snd_nxt;
            if let (Some(base), Some(rtt)) = (self.base_rtt, self.min_rtt) {
                if self.cnt_rtt >= 3 && (self.linux() || !slow_start) {
                    self.update_dwnd(w.cwnd, old_wnd, smss, base, rtt);
                }
            }
            self.round_cwnd = self.cwnd;
            self.cnt_rtt = 0;
            self.min_rtt = None;
        }
        // The Reno part: slow start one segment an ACK; avoidance 1/win a segment an ACK.
        if slow_start {
            let mut inc = ack.bytes_acked.min(smss);
            if !self.linux() {
                inc = inc.min(w.ssthresh - w.cwnd);
            }
            self.cwnd += inc;
        } else {
            self.cwnd += (smss * smss / w.cwnd.max(1)).max(1);
        }
        w.cwnd = self.cwnd + self.dwnd;
    }

    /// A loss, ECN-Echo or timeout leaves `win·(1 − β)` (at least 2 SMSS): the draft halves the
    /// Reno part and gives dwnd the rest; the Linux module splits `win·(1 − β)` by its rule (dwnd
    /// kept if both parts fit, else all to cwnd). γ tuning runs here.
    fn ssthresh_after_loss(&mut self, w: &CwndState, _in_flight: u64, _cause: LossCause, _now: Time) -> u64 {
        self.sync(w);
        let smss = w.smss as u64;
        if let Some(d) = self.diff_reno.take() {
            if self.cfg.gamma_tuning {
                self.gamma = (self.gamma + LAMBDA * (0.75 * d - self.gamma)).clamp(GAMMA_LOW, GAMMA_HIGH);
            }
        }
        let target = (w.cwnd as f64 * (1.0 - self.cfg.beta)).round() as u64;
        if self.linux() {
            if self.cwnd > target || self.dwnd > target {
                self.cwnd = target;
                self.dwnd = 0;
            } else {
                self.cwnd = target - self.dwnd;
            }
        } else {
            self.cwnd /= 2;
            self.dwnd = target.saturating_sub(self.cwnd);
        }
        (self.cwnd + self.dwnd).max(2 * smss)
    }

    /// A timeout: dwnd 0, cwnd 1 SMSS.
    fn on_rto(&mut self, w: &mut CwndState, _now: Time) {
        w.cwnd = w.smss as u64;
        self.cwnd = w.cwnd;
        self.dwnd = 0;
    }

    fn on_state_change(&mut self, _w: &mut CwndState, _from: CaState, to: CaState, snd_nxt: u64, _now: Time) {
        if to == CaState::Open {
            // A full round of fresh samples before the next update.
            self.doing = true;
            self.beg_snd_nxt = snd_nxt;
            self.cnt_rtt = 0;
            self.min_rtt = None;
            self.diff_reno = None;
        } else {
            self.doing = false;
        }
    }

    fn metrics(&self) -> CcMetrics {
        let seg = self.smss.max(1) as f64;
        let mut m = CcMetrics::default();
        m.push("dwnd", self.dwnd as f64 / seg);
        m.push("diff", self.diff);
        m.push("base_rtt_s", self.base_rtt.map_or(0.0, |d| d.as_secs_f64()));
        m.push("gamma", self.gamma);
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMSS: u64 = 1448;

    fn ack(ack: u64, snd_nxt: u64) -> AckSample {
        AckSample { bytes_acked: SMSS, rtt: None, min_rtt: None, srtt: None, in_flight: 0, ece: false, ack, snd_nxt, cwnd_limited: true }
    }

    /// Compound in avoidance with cwnd 80 and dwnd 20 segments (win 100, ssthresh 50), baseRTT
    /// 100 ms, a round of three samples whose smallest is `rtt_ms`, the previous round 100
    /// segments long; one ACK ends the round. Returns (dwnd in bytes, the algorithm, window).
    fn round_end(variant: CompoundVariant, rtt_ms: u64) -> (u64, Compound, CwndState) {
        let mut c = Compound::new(CompoundConfig { variant, ..CompoundConfig::default() });
        c.cwnd = 80 * SMSS;
        c.dwnd = 20 * SMSS;
        c.base_rtt = Some(Dur::from_millis(100));
        c.min_rtt = Some(Dur::from_millis(rtt_ms));
        c.cnt_rtt = 3;
        c.beg_snd_una = Some(1);
        c.beg_snd_nxt = 1 + 100 * SMSS;
        let mut w = CwndState { cwnd: 100 * SMSS, ssthresh: 50 * SMSS, smss: SMSS as u32 };
        c.on_ack(&mut w, &ack(2 + 100 * SMSS, 1 + 200 * SMSS), Time::ZERO);
        assert_eq!((c.beg_snd_una, c.beg_snd_nxt, c.cnt_rtt), (Some(1 + 100 * SMSS), 1 + 200 * SMSS, 0), "a new round");
        (c.dwnd, c, w)
    }

    // tests the once-a-round dwnd step, win 100, dwnd 20, baseRTT 100 ms. RTT 110 ms: diff =
    // 100·(1 − 100/110) = 9.09 < γ 30 ⇒ dwnd += 0.125·100^0.75 − 1 = 0.125·31.623 − 1 = 2.953
    // segments = ⌊2.953·1448⌋ = 4275 B (draft). Linux: old_wnd 100 segments, diff in halves
    // 200 − ⌊200·100/110⌋ = 200 − 181 = 19 (9.5) < 60; ⌊⌊100^0.75⌋/8⌋ = ⌊31/8⌋ = 3 ⇒ dwnd += 2.
    // RTT 200 ms: diff = 100·(1 − ½) = 50 ≥ 30 ⇒ dwnd = max(20 − 50, 0) = 0 in both. The Reno
    // part steps by ⌊1448²/(100·1448)⌋ = 14 B, and the endpoint's window is cwnd + dwnd.
    #[test]
    fn dwnd_round_step_hand_values() {
        let (d, c, w) = round_end(CompoundVariant::Draft, 110);
        assert_eq!(d, 20 * SMSS + 4275);
        assert!((c.diff - 9.0909).abs() < 1e-3, "diff {}", c.diff);
        assert_eq!((c.cwnd, w.cwnd), (80 * SMSS + 14, 80 * SMSS + 14 + 20 * SMSS + 4275));
        let (d, c, _) = round_end(CompoundVariant::Linux, 110);
        assert_eq!((d, c.diff), (22 * SMSS, 9.5));
        assert_eq!(round_end(CompoundVariant::Draft, 200).0, 0);
        assert_eq!(round_end(CompoundVariant::Linux, 200).0, 0);
        // Just below and at γ (draft): RTT 142 ms ⇒ diff 29.58 < 30 grows; 143 ms ⇒ 30.07 shrinks
        // by ⌊30.07·1448⌋ = 43,541 B: 20 segments (28,960 B) go to 0.
        assert!(round_end(CompoundVariant::Draft, 142).0 > 20 * SMSS);
        assert_eq!(round_end(CompoundVariant::Draft, 143).0, 0);
        // A smaller η keeps part of dwnd: γ 10, η ½, RTT 125 ms ⇒ diff = 100·25/125 = 20 ≥ 10 ⇒
        // dwnd = 20 − ½·20 = 10 segments.
        let mut c = Compound::new(CompoundConfig { gamma: 10.0, eta: 0.5, ..CompoundConfig::default() });
        c.dwnd = 20 * SMSS;
        c.update_dwnd(100 * SMSS, 100 * SMSS, SMSS, Dur::from_millis(100), Dur::from_millis(125));
        assert_eq!(c.dwnd, 10 * SMSS);
    }

    // tests the sample count and the restart: two samples end the round without a step; outside
    // Open the delay part is off, and back in Open it waits a full round (the mark moves to
    // SND.NXT at the return).
    #[test]
    fn too_few_samples_and_restart_leave_dwnd() {
        let mut c = Compound::new(CompoundConfig::default());
        c.cwnd = 80 * SMSS;
        c.dwnd = 20 * SMSS;
        c.base_rtt = Some(Dur::from_millis(100));
        c.min_rtt = Some(Dur::from_millis(200));
        c.cnt_rtt = 2;
        let mut w = CwndState { cwnd: 100 * SMSS, ssthresh: 50 * SMSS, smss: SMSS as u32 };
        c.on_ack(&mut w, &ack(5000, 900_000), Time::ZERO);
        assert_eq!(c.dwnd, 20 * SMSS);
        c.on_state_change(&mut w, CaState::Open, CaState::Disorder, 900_000, Time::ZERO);
        c.min_rtt = Some(Dur::from_millis(200));
        c.cnt_rtt = 5;
        c.on_ack(&mut w, &ack(950_000, 990_000), Time::ZERO);
        assert_eq!(c.dwnd, 20 * SMSS, "off outside Open");
        c.on_state_change(&mut w, CaState::Disorder, CaState::Open, 990_000, Time::ZERO);
        assert_eq!((c.cnt_rtt, c.min_rtt, c.beg_snd_nxt), (0, None, 990_000));
    }

    // tests the loss split, β ½, cwnd 80, dwnd 20 (win 100): the draft halves cwnd to 40 and
    // gives dwnd max(100·½ − 40, 0) = 10, win 50; the Linux module's target is 50 and cwnd 80
    // exceeds it ⇒ cwnd 50, dwnd 0. cwnd 30, dwnd 70: the draft 15 + 35; Linux dwnd 70 > 50 ⇒
    // 50 + 0. With β ½ the module keeps dwnd only when both parts are exactly win/2 (cwnd then
    // 0); with β 0.3, cwnd 40, dwnd 60 (target 70, both ≤ 70): Linux keeps dwnd 60 and cwnd =
    // 70 − 60 = 10, the draft 20 + max(70 − 20, 0) = 20 + 50. The same for an ECN-Echo and a
    // timeout, which then leaves cwnd 1 SMSS, dwnd 0.
    #[test]
    fn loss_split_by_variant() {
        let split = |variant, beta, cwnd: u64, dwnd: u64, cause| {
            let mut c = Compound::new(CompoundConfig { variant, beta, ..CompoundConfig::default() });
            c.cwnd = cwnd * SMSS;
            c.dwnd = dwnd * SMSS;
            let w = CwndState { cwnd: (cwnd + dwnd) * SMSS, ssthresh: u64::MAX, smss: SMSS as u32 };
            let ss = c.ssthresh_after_loss(&w, 0, cause, Time::ZERO);
            assert_eq!(ss, c.cwnd + c.dwnd);
            (c.cwnd / SMSS, c.dwnd / SMSS)
        };
        use CompoundVariant::{Draft, Linux};
        for cause in [LossCause::DupAcks, LossCause::Ecn, LossCause::Rto] {
            assert_eq!(split(Draft, 0.5, 80, 20, cause), (40, 10));
            assert_eq!(split(Linux, 0.5, 80, 20, cause), (50, 0));
            assert_eq!(split(Draft, 0.5, 30, 70, cause), (15, 35));
            assert_eq!(split(Linux, 0.5, 30, 70, cause), (50, 0));
            assert_eq!(split(Linux, 0.5, 50, 50, cause), (0, 50));
            assert_eq!(split(Draft, 0.3, 40, 60, cause), (20, 50));
            assert_eq!(split(Linux, 0.3, 40, 60, cause), (10, 60));
        }
        let mut c = Compound::new(CompoundConfig::default());
        let mut w = CwndState { cwnd: 100 * SMSS, ssthresh: u64::MAX, smss: SMSS as u32 };
        c.dwnd = 20 * SMSS;
        w.ssthresh = c.ssthresh_after_loss(&w, 0, LossCause::Rto, Time::ZERO);
        c.on_rto(&mut w, Time::ZERO);
        assert_eq!((w.cwnd, c.cwnd, c.dwnd), (SMSS, SMSS, 0));
        // A tiny window keeps the 2-SMSS floor.
        let w = CwndState { cwnd: SMSS, ssthresh: u64::MAX, smss: SMSS as u32 };
        assert_eq!(Compound::new(CompoundConfig::default()).ssthresh_after_loss(&w, 0, LossCause::DupAcks, Time::ZERO), 2 * SMSS);
    }

    // tests the split's bookkeeping when the endpoint sets the window (Linux's rule): at the
    // end of a reduction to the ssthresh the draft chose (50 = 40 + 10) nothing moves; set to 45
    // with cwnd 40, dwnd 10 (each part fits) ⇒ cwnd 35; set to 8 (a part exceeds it) ⇒ cwnd 8,
    // dwnd 0.
    #[test]
    fn endpoint_window_changes_resplit() {
        let mut c = Compound::new(CompoundConfig::default());
        c.cwnd = 40 * SMSS;
        c.dwnd = 10 * SMSS;
        for (total, want) in [(50, (40, 10)), (45, (35, 10)), (8, (8, 0))] {
            c.sync(&CwndState { cwnd: total * SMSS, ssthresh: 0, smss: SMSS as u32 });
            assert_eq!((c.cwnd / SMSS, c.dwnd / SMSS), want, "window {total}");
        }
    }

    // tests the draft's slow start: dwnd stays 0 (no step with win < ssthresh, even with a
    // round of samples and no queue) while the Linux module steps in slow start too: win 16
    // below ssthresh 100, previous round 16 segments: ⌊16^0.75⌋ = 8, ⌊8/8⌋ = 1 ⇒ + 0; at 32:
    // ⌊32^0.75⌋ = 13 (13⁴ = 28,561 ≤ 32³ = 32,768 < 14⁴), ⌊13/8⌋ = 1 ⇒ + 0; at 64: 22
    // (22⁴ = 234,256 ≤ 262,144 < 23⁴), ⌊22/8⌋ = 2 ⇒ + 1 segment.
    #[test]
    fn slow_start_draft_holds_dwnd_linux_steps() {
        assert_eq!((floor_pow(16, 0.75), floor_pow(32, 0.75), floor_pow(64, 0.75), floor_pow(100, 0.75)), (8, 13, 22, 31));
        let step = |variant, wnd: u64| {
            let mut c = Compound::new(CompoundConfig { variant, ..CompoundConfig::default() });
            c.base_rtt = Some(Dur::from_millis(100));
            c.min_rtt = Some(Dur::from_millis(100));
            c.cnt_rtt = 3;
            c.beg_snd_una = Some(1);
            c.beg_snd_nxt = 1 + wnd * SMSS;
            let mut w = CwndState { cwnd: wnd * SMSS, ssthresh: 100 * SMSS, smss: SMSS as u32 };
            c.on_ack(&mut w, &ack(2 + wnd * SMSS, 1 + 3 * wnd * SMSS), Time::ZERO);
            assert_eq!(c.cwnd, (wnd + 1) * SMSS, "slow start: one segment for the ACK");
            c.dwnd / SMSS
        };
        assert_eq!((step(CompoundVariant::Draft, 16), step(CompoundVariant::Draft, 64)), (0, 0));
        assert_eq!((step(CompoundVariant::Linux, 16), step(CompoundVariant::Linux, 32), step(CompoundVariant::Linux, 64)), (0, 0, 1));
    }

    // tests γ tuning (draft): a round with the Reno part 40 segments at its start, RTT 200 ms
    // over baseRTT 100 ms ⇒ diff_reno = 40·½ = 20; the next loss: g = ¾·20 = 15, γ = 30 +
    // ½·(15 − 30) = 22.5; a second loss without a new round leaves it. Off: γ stays 30.
    #[test]
    fn gamma_tuning_at_loss() {
        for tuning in [true, false] {
            let mut c = Compound::new(CompoundConfig { gamma_tuning: tuning, ..CompoundConfig::default() });
            c.round_cwnd = 40 * SMSS;
            c.update_dwnd(60 * SMSS, 60 * SMSS, SMSS, Dur::from_millis(100), Dur::from_millis(200));
            let w = CwndState { cwnd: 60 * SMSS, ssthresh: 10 * SMSS, smss: SMSS as u32 };
            c.ssthresh_after_loss(&w, 0, LossCause::DupAcks, Time::ZERO);
            assert_eq!(c.gamma, if tuning { 22.5 } else { 30.0 });
            c.ssthresh_after_loss(&w, 0, LossCause::DupAcks, Time::ZERO);
            assert_eq!(c.gamma, if tuning { 22.5 } else { 30.0 });
        }
        // Clipped: diff_reno 2 each time ⇒ g 1.5: 30 + ½·(1.5 − 30) = 15.75, then 8.625, 5.0625,
        // then 3.28… clipped to 5.
        let mut c = Compound::new(CompoundConfig { gamma_tuning: true, ..CompoundConfig::default() });
        let w = CwndState { cwnd: 60 * SMSS, ssthresh: 10 * SMSS, smss: SMSS as u32 };
        for want in [15.75, 8.625, 5.0625, 5.0] {
            c.diff_reno = Some(2.0);
            c.ssthresh_after_loss(&w, 0, LossCause::DupAcks, Time::ZERO);
            assert_eq!(c.gamma, want);
        }
    }

    // tests `validate`: each field's bound named, and γ tuning refused for the Linux variant.
    #[test]
    fn validate_names_the_field() {
        let bad = |c: CompoundConfig| c.validate().unwrap_err().0;
        let d = CompoundConfig::default();
        assert!(d.validate().is_ok());
        assert_eq!(bad(CompoundConfig { alpha: 0.0, ..d }), "alpha");
        assert_eq!(bad(CompoundConfig { beta: 1.2, ..d }), "beta");
        assert_eq!(bad(CompoundConfig { k: 1.5, ..d }), "k");
        assert_eq!(bad(CompoundConfig { gamma: f64::NAN, ..d }), "gamma");
        assert_eq!(bad(CompoundConfig { eta: -1.0, ..d }), "eta");
        assert_eq!(bad(CompoundConfig { variant: CompoundVariant::Linux, gamma_tuning: true, ..d }), "gamma_tuning");
        assert_eq!(CompoundConfig { beta: 1.2, ..d }.validate().unwrap_err().1, "must be in (0, 1), got 1.2");
    }
}
