//! Linux's Reno (`tcp_reno_cong_avoid`, `tcp_reno_ssthresh`; ns-3 `TcpLinuxReno`): NewReno's
//! loss recovery with Linux's own window arithmetic, in whole segments.
//!
//! - Slow start (`tcp_slow_start`): cwnd grows by every acknowledged segment, up to ssthresh.
//!   Linux hands the segments left over at ssthresh to avoidance; ns-3 drops them.
//! - Avoidance (`tcp_cong_avoid_ai`): a counter of acknowledged segments; each time it reaches
//!   w = ⌊cwnd/SMSS⌋, cwnd grows by one segment (one per window, as RFC 5681's
//!   SMSS²/cwnd per ACK approximates in bytes). ns-3 grows only a window that limits the
//!   sender (`m_suppressIncreaseIfCwndLimited`).
//! - Loss: ssthresh from cwnd, not from the flight: Linux `max(⌊cwnd/SMSS⌋/2, 2)` segments,
//!   ns-3 `max(cwnd/2, 2·SMSS)` bytes. Linux clears the counter when a reduction or the loss
//!   state begins (`tcp_init_cwnd_reduction`, `tcp_enter_loss`); ns-3 keeps it.
//!
//! Not implemented: Linux's `tcp_is_cwnd_limited` test (as for the other algorithms under the
//! default profile, every ACK grows the window).

use super::{AckSample, CaState, CongestionControl, CwndState, LossCause};
use sluice_core::Time;

#[derive(Clone, Debug)]
pub struct LinuxReno {
    /// Linux's rules, else ns-3's (`Ns3Compat::cc_linux`).
    linux: bool,
    /// Acknowledged segments towards the next avoidance step (`snd_cwnd_cnt`, `m_cWndCnt`).
    cwnd_cnt: u32,
}

impl LinuxReno {
    pub fn new(linux: bool) -> LinuxReno {
        LinuxReno { linux, cwnd_cnt: 0 }
    }
}

/// Linux `tcp_slow_start` in bytes: cwnd grows by `segs` segments, up to ssthresh; returns the
/// segments left over. ns-3's `TcpLinuxReno::SlowStart` and CUBIC's slow start compute the same.
pub(super) fn linux_slow_start(w: &mut CwndState, segs: u64) -> u64 {
    let smss = w.smss as u64;
    let room = w.ssthresh.saturating_sub(w.cwnd).div_ceil(smss);
    let used = segs.min(room);
    w.cwnd = (w.cwnd + used * smss).min(w.ssthresh.max(w.cwnd));
    segs - used
}

/// Linux `tcp_cong_avoid_ai`: one segment of growth per `per` acknowledged segments, counted in
/// `cnt` (a step owed from before is paid first).
pub(super) fn cong_avoid_ai(w: &mut CwndState, cnt: &mut u32, per: u32, acked: u32) {
    let smss = w.smss as u64;
    if *cnt >= per {
        *cnt = 0;
        w.cwnd += smss;
    }
    *cnt += acked;
    if *cnt >= per {
        let d = *cnt / per;
        *cnt -= d * per;
        w.cwnd += d as u64 * smss;
    }
}

impl CongestionControl for LinuxReno {
    fn name(&self) -> &'static str {
        "linux_reno"
    }

    fn on_ack(&mut self, w: &mut CwndState, ack: &AckSample, _now: Time) {
        let smss = w.smss as u64;
        // An ACK of nothing new still runs avoidance (ns-3 calls IncreaseWindow with 0 segments
        // on leaving the loss state): a step the counter owes is paid (`tcp_cong_avoid_ai`).
        let mut segs = ack.bytes_acked.div_ceil(smss);
        if w.cwnd < w.ssthresh {
            segs = linux_slow_start(w, segs);
            if !self.linux || segs == 0 {
                return;
            }
        } else if !self.linux && !ack.cwnd_limited {
            return;
        }
        let per = (w.cwnd / smss).clamp(1, u32::MAX as u64) as u32;
        cong_avoid_ai(w, &mut self.cwnd_cnt, per, segs.min(u32::MAX as u64) as u32);
    }

    fn ssthresh_after_loss(&mut self, w: &CwndState, _in_flight: u64, _cause: LossCause, _now: Time) -> u64 {
        let smss = w.smss as u64;
        if self.linux {
            (w.cwnd / smss / 2).max(2) * smss
        } else {
            (w.cwnd / 2).max(2 * smss)
        }
    }

    fn on_state_change(&mut self, _w: &mut CwndState, _from: CaState, to: CaState, _snd_nxt: u64, _now: Time) {
        if self.linux && matches!(to, CaState::Recovery | CaState::Cwr | CaState::Loss) {
            self.cwnd_cnt = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMSS: u64 = 1448;

    fn ack(bytes: u64, cwnd_limited: bool) -> AckSample {
        AckSample { bytes_acked: bytes, rtt: None, min_rtt: None, srtt: None, in_flight: 0, ece: false, ack: 0, snd_nxt: 0, cwnd_limited }
    }

    // tests slow start by whole segments to ssthresh: cwnd 10, ssthresh 12, an ACK of 3
    // segments: 12, one segment left over. Linux spends it on avoidance (counter 1 of w = 12);
    // ns-3 drops it (counter 0). A delayed ACK of 2 segments below ssthresh adds 2 (RFC 5681's
    // min(N, SMSS) would add 1).
    #[test]
    fn slow_start_in_segments_and_the_leftover() {
        for (linux, cnt) in [(true, 1), (false, 0)] {
            let mut cc = LinuxReno::new(linux);
            let mut w = CwndState { cwnd: 10 * SMSS, ssthresh: 12 * SMSS, smss: SMSS as u32 };
            cc.on_ack(&mut w, &ack(3 * SMSS, true), Time::ZERO);
            assert_eq!((w.cwnd, cc.cwnd_cnt), (12 * SMSS, cnt), "linux {linux}");
            let mut w = CwndState { cwnd: 4 * SMSS, ssthresh: 100 * SMSS, smss: SMSS as u32 };
            cc.on_ack(&mut w, &ack(2 * SMSS, true), Time::ZERO);
            assert_eq!(w.cwnd, 6 * SMSS);
        }
    }

    // tests avoidance by counting: cwnd 4 segments at ssthresh: ACKs of one segment each; the
    // 4th fills the counter (w = 4): cwnd 5, counter 0; then 5 more to the next step. An ACK of
    // 11 segments at cwnd 5: counter 11 → two steps (d = 2), counter 1, cwnd 7.
    #[test]
    fn avoidance_one_segment_per_window() {
        let mut cc = LinuxReno::new(true);
        let mut w = CwndState { cwnd: 4 * SMSS, ssthresh: 4 * SMSS, smss: SMSS as u32 };
        for i in 1..=3 {
            cc.on_ack(&mut w, &ack(SMSS, true), Time::ZERO);
            assert_eq!((w.cwnd, cc.cwnd_cnt), (4 * SMSS, i));
        }
        cc.on_ack(&mut w, &ack(SMSS, true), Time::ZERO);
        assert_eq!((w.cwnd, cc.cwnd_cnt), (5 * SMSS, 0));
        cc.on_ack(&mut w, &ack(11 * SMSS, true), Time::ZERO);
        assert_eq!((w.cwnd, cc.cwnd_cnt), (7 * SMSS, 1));
        // A counter already at w (cwnd shrank under it) pays its step first: cnt 7 ≥ w 5 → cwnd
        // 6, counter 0 + 1.
        let mut w = CwndState { cwnd: 5 * SMSS, ssthresh: 5 * SMSS, smss: SMSS as u32 };
        cc.cwnd_cnt = 7;
        cc.on_ack(&mut w, &ack(SMSS, true), Time::ZERO);
        assert_eq!((w.cwnd, cc.cwnd_cnt), (6 * SMSS, 1));
    }

    // tests the owed step on an ACK of nothing new (ns-3's IncreaseWindow(0) when the loss state
    // ends): cwnd 2 segments + 724 B (ssthresh 2.5 segments) in avoidance, counter 2 from an
    // earlier, larger window: w = 2, the counter has reached it: cwnd + 1 segment, counter 0.
    // In slow start an ACK of nothing grows nothing.
    #[test]
    fn an_ack_of_nothing_pays_an_owed_step() {
        for linux in [true, false] {
            let mut cc = LinuxReno::new(linux);
            cc.cwnd_cnt = 2;
            let mut w = CwndState { cwnd: 2 * SMSS + 724, ssthresh: 2 * SMSS + 724, smss: SMSS as u32 };
            cc.on_ack(&mut w, &ack(0, true), Time::ZERO);
            assert_eq!((w.cwnd, cc.cwnd_cnt), (3 * SMSS + 724, 0), "linux {linux}");
            let mut w = CwndState { cwnd: 2 * SMSS, ssthresh: 10 * SMSS, smss: SMSS as u32 };
            cc.on_ack(&mut w, &ack(0, true), Time::ZERO);
            assert_eq!(w.cwnd, 2 * SMSS);
        }
    }

    // tests ns-3's suppression: in avoidance an ACK while the window does not limit the sender
    // grows nothing; slow start is not suppressed. Linux (here) grows either way.
    #[test]
    fn ns3_grows_avoidance_only_when_cwnd_limited() {
        let mut w = CwndState { cwnd: 4 * SMSS, ssthresh: 4 * SMSS, smss: SMSS as u32 };
        let mut ns3 = LinuxReno::new(false);
        ns3.on_ack(&mut w, &ack(4 * SMSS, false), Time::ZERO);
        assert_eq!((w.cwnd, ns3.cwnd_cnt), (4 * SMSS, 0));
        ns3.on_ack(&mut w, &ack(4 * SMSS, true), Time::ZERO);
        assert_eq!(w.cwnd, 5 * SMSS);
        let mut w = CwndState { cwnd: 4 * SMSS, ssthresh: 10 * SMSS, smss: SMSS as u32 };
        ns3.on_ack(&mut w, &ack(SMSS, false), Time::ZERO);
        assert_eq!(w.cwnd, 5 * SMSS);
        let mut w = CwndState { cwnd: 4 * SMSS, ssthresh: 4 * SMSS, smss: SMSS as u32 };
        let mut lnx = LinuxReno::new(true);
        lnx.on_ack(&mut w, &ack(4 * SMSS, false), Time::ZERO);
        assert_eq!(w.cwnd, 5 * SMSS);
    }

    // tests ssthresh from cwnd (not the flight): cwnd 21 segments + 700 B, flight 4 segments.
    // Linux: ⌊21/2⌋ = 10 segments. ns-3: (21·1448 + 700)/2 = 15,554 B. Tiny windows: 2 segments.
    // Linux clears the counter entering recovery; ns-3 keeps it.
    #[test]
    fn ssthresh_from_cwnd_and_the_counter_on_reduction() {
        let w = CwndState { cwnd: 21 * SMSS + 700, ssthresh: u64::MAX, smss: SMSS as u32 };
        assert_eq!(LinuxReno::new(true).ssthresh_after_loss(&w, 4 * SMSS, LossCause::DupAcks, Time::ZERO), 10 * SMSS);
        assert_eq!(LinuxReno::new(false).ssthresh_after_loss(&w, 4 * SMSS, LossCause::DupAcks, Time::ZERO), (21 * SMSS + 700) / 2);
        let tiny = CwndState { cwnd: 3 * SMSS, ..w };
        assert_eq!(LinuxReno::new(true).ssthresh_after_loss(&tiny, 0, LossCause::Ecn, Time::ZERO), 2 * SMSS);
        assert_eq!(LinuxReno::new(false).ssthresh_after_loss(&tiny, 0, LossCause::Rto, Time::ZERO), 2 * SMSS);
        for (linux, kept) in [(true, 0), (false, 3)] {
            let mut cc = LinuxReno::new(linux);
            cc.cwnd_cnt = 3;
            let mut w = w;
            cc.on_state_change(&mut w, CaState::Open, CaState::Recovery, 0, Time::ZERO);
            assert_eq!(cc.cwnd_cnt, kept, "linux {linux}");
        }
    }
}
