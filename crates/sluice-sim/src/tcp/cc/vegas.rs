//! TCP Vegas (Brakmo & Peterson 1995), as ns-3's `TcpVegas` and Linux's `tcp_vegas.c` compute
//! it: once per round (one window of data), with more than two RTT samples in it, compare the
//! window with the one the base RTT would need, `target = ⌊cwnd·baseRTT/minRTT⌋`, and move cwnd
//! by one segment towards keeping between α and β segments queued. Outside the Open state and
//! with too few samples it grows as NewReno.
//!
//! `vegas.diff` picks how the queued segments are counted and the loss response: ns-3
//! `diff = cwnd − target` and loss ssthresh `max(min(ssthresh, cwnd − SMSS), 2·SMSS)`; Linux
//! `diff = ⌊cwnd·(minRTT − baseRTT)/baseRTT⌋` and Reno's `max(cwnd/2, 2·SMSS)`.
//!
//! Not implemented: Linux's reset on an idle restart (`CA_EVENT_CWND_RESTART`/`TX_START`).

use super::new_reno::{reno_grow, reno_slow_start};
use super::{AckEvent, AckSample, CaState, CcMetrics, CongestionControl, CwndState, LossCause};
use sluice_core::{Dur, Time};

/// How Vegas counts the segments it keeps queued (`vegas.diff`), and with it the loss response.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum VegasDiff {
    /// ns-3 `TcpVegas`: `cwnd − target`; loss ssthresh `max(min(ssthresh, cwnd − SMSS), 2·SMSS)`.
    #[serde(rename = "ns3")]
    Ns3,
    /// Linux `tcp_vegas.c`: `⌊cwnd·(minRTT − baseRTT)/baseRTT⌋`; loss ssthresh Reno's
    /// `max(cwnd/2, 2·SMSS)`.
    #[serde(rename = "linux")]
    Linux,
}

impl VegasDiff {
    pub fn as_str(self) -> &'static str {
        match self {
            VegasDiff::Ns3 => "ns3",
            VegasDiff::Linux => "linux",
        }
    }
}

/// Vegas's parameters (`[tcp.vegas]`), in segments.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct VegasConfig {
    /// Below α queued segments cwnd grows by one per round.
    pub alpha: u32,
    /// Above β it shrinks by one.
    pub beta: u32,
    /// In slow start, above γ slow start ends.
    pub gamma: u32,
    pub diff: VegasDiff,
}

impl Default for VegasConfig {
    /// Brakmo & Peterson's values as ns-3 (`TcpVegas` Alpha 2, Beta 4, Gamma 1) and Linux
    /// (`alpha = 2`, `beta = 4`, `gamma = 1`) set them; ns-3's diff.
    fn default() -> Self {
        VegasConfig { alpha: 2, beta: 4, gamma: 1, diff: VegasDiff::Ns3 }
    }
}

impl VegasConfig {
    /// Checks the values; `Err((key, message))`.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.alpha > self.beta {
            return Err(("alpha", format!("must not exceed beta ({}), got {}", self.beta, self.alpha)));
        }
        Ok(())
    }

    pub fn describe(&self) -> Vec<(&'static str, String)> {
        vec![
            ("vegas.alpha", self.alpha.to_string()),
            ("vegas.beta", self.beta.to_string()),
            ("vegas.gamma", self.gamma.to_string()),
            ("vegas.diff", self.diff.as_str().to_string()),
        ]
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    cfg: VegasConfig,
    /// Linux's RTT samples (each ACK's own), else ns-3's (the SRTT on every ACK;
    /// `Ns3Compat::cc_linux`).
    linux_samples: bool,
    /// NewReno's slow start stops at ssthresh (`Ns3Compat::slow_start_capped`).
    capped: bool,
    /// Vegas is on (Open state).
    doing: bool,
    /// The round ends when an ACK passes this (SND.NXT at its start).
    beg_snd_nxt: u64,
    base_rtt: Option<Dur>,
    min_rtt: Option<Dur>,
    cnt_rtt: u32,
    /// The last diff computed (tracing).
    diff: u64,
}

impl Vegas {
    pub fn new(cfg: VegasConfig, linux_samples: bool, capped: bool) -> Vegas {
        Vegas { cfg, linux_samples, capped, doing: true, beg_snd_nxt: 0, base_rtt: None, min_rtt: None, cnt_rtt: 0, diff: 0 }
    }

    /// `loss` ssthresh of Vegas's own cuts (ns-3 `GetSsThresh`; Linux `tcp_vegas_ssthresh`):
    /// `min(ssthresh, cwnd − 1 segment)`, at least 2 segments in ns-3.
    fn lower_ssthresh(&self, w: &CwndState) -> u64 {
        let smss = w.smss as u64;
        let v = w.ssthresh.min(w.cwnd.saturating_sub(smss));
        match self.cfg.diff {
            VegasDiff::Ns3 => v.max(2 * smss),
            VegasDiff::Linux => v,
        }
    }

    /// The once-per-round adjustment, given more than two samples.
    fn adjust(&mut self, w: &mut CwndState, bytes_acked: u64, base: Dur, min: Dur) {
        let smss = w.smss as u64;
        let seg = w.cwnd / smss;
        let (target, diff) = match self.cfg.diff {
            VegasDiff::Ns3 => {
                let target = (seg as f64 * (base.as_secs_f64() / min.as_secs_f64())) as u64;
                (target, seg.saturating_sub(target))
            }
            VegasDiff::Linux => {
                let target = (seg as u128 * base.0 as u128 / min.0.max(1) as u128) as u64;
                let diff = (seg as u128 * (min.0.saturating_sub(base.0)) as u128 / base.0.max(1) as u128) as u64;
                (target, diff)
            }
        };
        self.diff = diff;
        if diff > self.cfg.gamma as u64 && w.cwnd < w.ssthresh {
            // Too fast in slow start: down to the target and into avoidance.
            w.cwnd = seg.min(target + 1) * smss;
            w.ssthresh = self.lower_ssthresh(w);
        } else if w.cwnd < w.ssthresh {
            reno_slow_start(w, bytes_acked, self.capped);
        } else if diff > self.cfg.beta as u64 {
            w.cwnd = seg.saturating_sub(1) * smss;
            w.ssthresh = self.lower_ssthresh(w);
        } else if diff < self.cfg.alpha as u64 {
            w.cwnd = (seg + 1) * smss;
        }
        if self.cfg.diff == VegasDiff::Linux {
            w.cwnd = w.cwnd.max(2 * smss);
        }
        w.ssthresh = w.ssthresh.max(3 * w.cwnd / 4);
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_ack_event(&mut self, _w: &mut CwndState, ev: &AckEvent, _now: Time) {
        let sample = if self.linux_samples { ev.rtt } else { ev.srtt };
        let Some(r) = sample else { return };
        if r.0 == 0 {
            return;
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.base_rtt = Some(self.base_rtt.map_or(r, |m| m.min(r)));
        self.cnt_rtt += 1;
    }

    fn on_ack(&mut self, w: &mut CwndState, ack: &AckSample, _now: Time) {
        if !self.doing {
            reno_grow(w, ack.bytes_acked, self.capped);
            return;
        }
        // ns-3 ends the round at an ACK ≥ the mark, Linux past it.
        let round_over = if self.cfg.diff == VegasDiff::Linux { ack.ack > self.beg_snd_nxt } else { ack.ack >= self.beg_snd_nxt };
        if round_over {
            self.beg_snd_nxt = ack.snd_nxt;
            match (self.base_rtt, self.min_rtt) {
                (Some(base), Some(min)) if self.cnt_rtt > 2 => self.adjust(w, ack.bytes_acked, base, min),
                _ => reno_grow(w, ack.bytes_acked, self.capped),
            }
            self.cnt_rtt = 0;
            self.min_rtt = None;
        } else if w.cwnd < w.ssthresh {
            reno_slow_start(w, ack.bytes_acked, self.capped);
        }
    }

    fn ssthresh_after_loss(&mut self, w: &CwndState, _in_flight: u64, _cause: LossCause, _now: Time) -> u64 {
        let smss = w.smss as u64;
        match self.cfg.diff {
            // ns-3 TcpVegas::GetSsThresh, for every reduction.
            VegasDiff::Ns3 => w.ssthresh.min(w.cwnd.saturating_sub(smss)).max(2 * smss),
            // Linux: tcp_reno_ssthresh.
            VegasDiff::Linux => (w.cwnd / 2).max(2 * smss),
        }
    }

    fn on_state_change(&mut self, _w: &mut CwndState, _from: CaState, to: CaState, snd_nxt: u64, _now: Time) {
        if to == CaState::Open {
            self.doing = true;
            self.beg_snd_nxt = snd_nxt;
            self.cnt_rtt = 0;
            self.min_rtt = None;
        } else {
            self.doing = false;
        }
    }

    fn metrics(&self) -> CcMetrics {
        let mut m = CcMetrics::default();
        m.push("diff", self.diff as f64);
        m.push("base_rtt_s", self.base_rtt.map_or(0.0, |d| d.as_secs_f64()));
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMSS: u64 = 1448;

    /// One round's end with cwnd 20, avoidance (ssthresh 10), baseRTT 100 ms and the round's
    /// minimum `min_ms`, three samples: the cwnd after it.
    fn round(diff: VegasDiff, min_ms: u64) -> u64 {
        let mut v = Vegas::new(VegasConfig { diff, ..VegasConfig::default() }, true, true);
        v.base_rtt = Some(Dur::from_millis(100));
        v.min_rtt = Some(Dur::from_millis(min_ms));
        v.cnt_rtt = 3;
        v.beg_snd_nxt = 1000;
        let mut w = CwndState { cwnd: 20 * SMSS, ssthresh: 10 * SMSS, smss: SMSS as u32 };
        let ack = AckSample { bytes_acked: SMSS, rtt: None, min_rtt: None, srtt: None, in_flight: 0, ece: false, ack: 2000, snd_nxt: 50_000, cwnd_limited: true };
        v.on_ack(&mut w, &ack, Time::ZERO);
        assert_eq!(v.beg_snd_nxt, 50_000, "the next round ends past SND.NXT");
        w.cwnd / SMSS
    }

    // tests Vegas's avoidance step (α 2, β 4), cwnd 20, baseRTT 100 ms. ns-3: minRTT 125 ms →
    // target ⌊20·100/125⌋ = 16, diff 4: not > β, not < α: hold at 20; 150 ms → target 13, diff
    // 7 > 4 → 19. Linux: 125 ms → diff ⌊20·25/100⌋ = 5 > 4 → 19; 150 ms → 10 → 19. No queue
    // (minRTT = baseRTT): diff 0 < α → 21 in both.
    #[test]
    fn avoidance_step_hand_values() {
        assert_eq!(round(VegasDiff::Ns3, 125), 20);
        assert_eq!(round(VegasDiff::Linux, 125), 19);
        assert_eq!(round(VegasDiff::Ns3, 150), 19);
        assert_eq!(round(VegasDiff::Linux, 150), 19);
        assert_eq!(round(VegasDiff::Ns3, 100), 21);
        assert_eq!(round(VegasDiff::Linux, 100), 21);
    }

    // tests slow start's end: cwnd 20 below ssthresh 100, diff 7 > γ → cwnd = min(20, 13 + 1) =
    // 14, ssthresh = max(min(100, 13), 2) = 13 segments, then raised to ⌊3·14/4⌋·… = 10.5 → 13.
    #[test]
    fn slow_start_ends_above_gamma() {
        let mut v = Vegas::new(VegasConfig::default(), true, true);
        v.base_rtt = Some(Dur::from_millis(100));
        v.min_rtt = Some(Dur::from_millis(150));
        v.cnt_rtt = 3;
        let mut w = CwndState { cwnd: 20 * SMSS, ssthresh: 100 * SMSS, smss: SMSS as u32 };
        let ack = AckSample { bytes_acked: SMSS, rtt: None, min_rtt: None, srtt: None, in_flight: 0, ece: false, ack: 2000, snd_nxt: 50_000, cwnd_limited: true };
        v.on_ack(&mut w, &ack, Time::ZERO);
        assert_eq!((w.cwnd, w.ssthresh), (14 * SMSS, 13 * SMSS));
    }

    // tests the round's sample count: with two samples Vegas grows as NewReno (avoidance:
    // +⌊1448²/(20·1448)⌋ = 72 B), and outside Open it is off.
    #[test]
    fn too_few_samples_and_outside_open_is_new_reno() {
        let mut v = Vegas::new(VegasConfig::default(), true, true);
        v.base_rtt = Some(Dur::from_millis(100));
        v.min_rtt = Some(Dur::from_millis(150));
        v.cnt_rtt = 2;
        let mut w = CwndState { cwnd: 20 * SMSS, ssthresh: 10 * SMSS, smss: SMSS as u32 };
        let ack = AckSample { bytes_acked: SMSS, rtt: None, min_rtt: None, srtt: None, in_flight: 0, ece: false, ack: 2000, snd_nxt: 50_000, cwnd_limited: true };
        v.on_ack(&mut w, &ack, Time::ZERO);
        assert_eq!(w.cwnd, 20 * SMSS + 72);
        v.on_state_change(&mut w, CaState::Open, CaState::Recovery, 0, Time::ZERO);
        v.cnt_rtt = 5;
        v.min_rtt = Some(Dur::from_millis(150));
        v.on_ack(&mut w, &AckSample { ack: 60_000, ..ack }, Time::ZERO);
        assert_eq!(w.cwnd, 20 * SMSS + 72 + 1448 * 1448 / (20 * SMSS + 72));
    }

    /// One ACK with baseRTT 100 ms, the round's minimum `min_ms` and three samples, the round
    /// ending at SND.NXT 1000: `(cwnd, ssthresh)` in bytes after it.
    fn ack_in_round(diff: VegasDiff, capped: bool, w: (u64, u64), min_ms: u64, bytes_acked: u64, ack: u64) -> (u64, u64) {
        let mut v = Vegas::new(VegasConfig { diff, ..VegasConfig::default() }, true, capped);
        v.base_rtt = Some(Dur::from_millis(100));
        v.min_rtt = Some(Dur::from_millis(min_ms));
        v.cnt_rtt = 3;
        v.beg_snd_nxt = 1000;
        let mut cw = CwndState { cwnd: w.0 * SMSS, ssthresh: w.1 * SMSS, smss: SMSS as u32 };
        let a = AckSample { bytes_acked, rtt: None, min_rtt: None, srtt: None, in_flight: 0, ece: false, ack, snd_nxt: 50_000, cwnd_limited: true };
        v.on_ack(&mut cw, &a, Time::ZERO);
        (cw.cwnd, cw.ssthresh)
    }

    // tests the avoidance band's edges, cwnd 20 in avoidance (ssthresh 10). ns-3, minRTT
    // 110 ms: target ⌊20·100/110⌋ = 18, diff 2 = α: not below α, hold at 20. minRTT 115 ms:
    // ns-3 target ⌊17.39⌋ = 17, diff 3; Linux diff ⌊20·15/100⌋ = 3: inside [α, β], hold.
    // ssthresh is raised to ⌊3·cwnd/4⌋ = 15 SMSS.
    #[test]
    fn avoidance_holds_inside_the_band() {
        let held = (20 * SMSS, 15 * SMSS);
        assert_eq!(ack_in_round(VegasDiff::Ns3, true, (20, 10), 110, SMSS, 2000), held);
        assert_eq!(ack_in_round(VegasDiff::Ns3, true, (20, 10), 115, SMSS, 2000), held);
        assert_eq!(ack_in_round(VegasDiff::Linux, true, (20, 10), 115, SMSS, 2000), held);
    }

    // tests slow start's end under both diffs and at its edges, cwnd 20, ssthresh 100:
    // - Linux, minRTT 150 ms: target ⌊20·100/150⌋ = 13, diff ⌊20·50/100⌋ = 10 > γ: cwnd =
    //   min(20, 13 + 1) = 14, ssthresh = min(100, 14 − 1) = 13 (above ⌊3·14/4⌋ = 10.5).
    // - ns-3, minRTT 105 ms: target ⌊19.05⌋ = 19, diff 1 = γ: not above γ, slow start goes on,
    //   +1 SMSS for one SMSS acknowledged → 21 (ssthresh stays 100).
    // - diff 1 with a 500-byte ACK: slow start +500 B (avoidance would give 21 segments).
    #[test]
    fn slow_start_exit_by_diff_and_at_gamma() {
        assert_eq!(ack_in_round(VegasDiff::Linux, true, (20, 100), 150, SMSS, 2000), (14 * SMSS, 13 * SMSS));
        assert_eq!(ack_in_round(VegasDiff::Ns3, true, (20, 100), 105, SMSS, 2000), (21 * SMSS, 100 * SMSS));
        assert_eq!(ack_in_round(VegasDiff::Ns3, true, (20, 100), 105, 500, 2000), (20 * SMSS + 500, 100 * SMSS));
    }

    // tests cwnd = ssthresh (20, uncapped slow start) at a round's end: that is avoidance, not
    // slow start. minRTT 150 ms (ns-3 diff 7 > β): cwnd 19, ssthresh min(20, 18) = 18 (above
    // ⌊3·19/4⌋); slow start's exit would give (14, 13). minRTT 105 ms (diff 1 < α) with a
    // 500-byte ACK: +1 segment → 21 (slow start would add 500 B), ssthresh stays 20.
    #[test]
    fn at_ssthresh_a_round_end_is_avoidance() {
        assert_eq!(ack_in_round(VegasDiff::Ns3, false, (20, 20), 150, SMSS, 2000), (19 * SMSS, 18 * SMSS));
        assert_eq!(ack_in_round(VegasDiff::Ns3, false, (20, 20), 105, 500, 2000), (21 * SMSS, 20 * SMSS));
    }

    // tests the floors at a tiny window: cwnd 2, ssthresh 100, minRTT 400 ms: target ⌊2/4⌋ = 0,
    // diff 2 (ns-3) or ⌊2·300/100⌋ = 6 (Linux) > γ: cwnd = min(2, 0 + 1) = 1 segment. ns-3:
    // ssthresh = max(min(100, 1 − 1), 2) = 2 SMSS, cwnd stays 1 SMSS. Linux: no 2-segment
    // ssthresh floor (min(100, 0) = 0) but a 2-segment cwnd floor, then ssthresh = ⌊3·2896/4⌋
    // = 2172 B. cwnd 3, minRTT 300 ms (ns-3): target 1, diff 2: cwnd 2, ssthresh max(min(100,
    // 1), 2) = 2 SMSS.
    #[test]
    fn tiny_window_floors_by_variant() {
        assert_eq!(ack_in_round(VegasDiff::Ns3, true, (2, 100), 400, SMSS, 2000), (SMSS, 2 * SMSS));
        assert_eq!(ack_in_round(VegasDiff::Linux, true, (2, 100), 400, SMSS, 2000), (2 * SMSS, 2172));
        assert_eq!(ack_in_round(VegasDiff::Ns3, true, (3, 100), 300, SMSS, 2000), (2 * SMSS, 2 * SMSS));
    }

    // tests where a round ends: ns-3 at an ACK reaching the mark (ACK = 1000 adjusts: minRTT 150
    // ms, diff 7 > β, 20 → 19), Linux only past it (ACK = 1000 is inside the round: avoidance
    // holds until the round ends; ACK 1001 adjusts: diff 10 → 19).
    #[test]
    fn a_round_ends_at_the_mark_in_ns3_past_it_in_linux() {
        assert_eq!(ack_in_round(VegasDiff::Ns3, true, (20, 10), 150, SMSS, 1000).0, 19 * SMSS);
        assert_eq!(ack_in_round(VegasDiff::Linux, true, (20, 10), 150, SMSS, 1000), (20 * SMSS, 10 * SMSS));
        assert_eq!(ack_in_round(VegasDiff::Linux, true, (20, 10), 150, SMSS, 1001).0, 19 * SMSS);
    }

    // tests ACKs inside a round: slow start grows by the bytes acknowledged (20 → 21 below
    // ssthresh 100); at cwnd = ssthresh (uncapped) or above it nothing moves until the round ends.
    #[test]
    fn inside_a_round_only_slow_start_grows() {
        assert_eq!(ack_in_round(VegasDiff::Ns3, false, (20, 100), 150, SMSS, 500).0, 21 * SMSS);
        assert_eq!(ack_in_round(VegasDiff::Ns3, false, (20, 20), 150, SMSS, 500).0, 20 * SMSS);
        assert_eq!(ack_in_round(VegasDiff::Ns3, false, (20, 10), 150, SMSS, 500).0, 20 * SMSS);
    }

    // tests the parameters' check: α = β is a valid (zero-width) band, α above β is refused by name.
    #[test]
    fn alpha_may_equal_beta_not_exceed_it() {
        assert!(VegasConfig { alpha: 3, beta: 3, ..VegasConfig::default() }.validate().is_ok());
        let e = VegasConfig { alpha: 5, beta: 4, ..VegasConfig::default() }.validate().unwrap_err();
        assert_eq!(e.0, "alpha");
        assert!(e.1.contains("must not exceed beta (4), got 5"), "{}", e.1);
    }

    // tests the loss response tied to `vegas.diff`: ns-3 max(min(ssthresh, cwnd − SMSS), 2·SMSS)
    // (cwnd 20, ssthresh 30 → 19 SMSS: barely lower), Linux Reno's max(cwnd/2, 2·SMSS) → 10 SMSS;
    // for an ECN-Echo too.
    #[test]
    fn loss_ssthresh_by_variant() {
        let w = CwndState { cwnd: 20 * SMSS, ssthresh: 30 * SMSS, smss: SMSS as u32 };
        for cause in [LossCause::DupAcks, LossCause::Ecn, LossCause::Rto] {
            let mut ns3 = Vegas::new(VegasConfig::default(), false, false);
            assert_eq!(ns3.ssthresh_after_loss(&w, 0, cause, Time::ZERO), 19 * SMSS);
            let mut lnx = Vegas::new(VegasConfig { diff: VegasDiff::Linux, ..VegasConfig::default() }, true, true);
            assert_eq!(lnx.ssthresh_after_loss(&w, 0, cause, Time::ZERO), 10 * SMSS);
        }
    }

    // tests the samples: Linux counts each ACK's own sample, ns-3 the SRTT (every ACK).
    #[test]
    fn samples_by_flavour() {
        let mut w = CwndState { cwnd: 20 * SMSS, ssthresh: 10 * SMSS, smss: SMSS as u32 };
        let ev = AckEvent { ca: CaState::Open, rtt: None, srtt: Some(Dur::from_millis(120)), min_rtt: None, ack: 1, snd_nxt: 1, prior_in_flight: 0, delivered: 0, lost: 0, dup: true };
        let mut lnx = Vegas::new(VegasConfig::default(), true, true);
        lnx.on_ack_event(&mut w, &ev, Time::ZERO);
        assert_eq!(lnx.cnt_rtt, 0);
        let mut ns3 = Vegas::new(VegasConfig::default(), false, false);
        ns3.on_ack_event(&mut w, &ev, Time::ZERO);
        assert_eq!((ns3.cnt_rtt, ns3.base_rtt), (1, Some(Dur::from_millis(120))));
    }
}
