//! Reno/NewReno window growth (RFC 5681 §3.1), with three answers to duplicate ACKs: NewReno
//! (RFC 6582), Reno (RFC 5681 §3.2) and Tahoe ([`LossResponse`]). Loss recovery itself (RFC 6582,
//! RFC 6675, PRR) lives in the endpoint and is shared by every algorithm.

use super::{AckSample, CongestionControl, CwndState, LossCause, LossResponse};
use sluice_core::Time;

#[derive(Clone, Debug)]
pub struct NewReno {
    /// Slow start stops at ssthresh (Linux `tcp_slow_start`); ns-3 adds the whole segment
    /// even past ssthresh (`TcpNewReno::SlowStart`; `Ns3Compat::slow_start_capped`).
    pub capped: bool,
    /// NewReno, Reno or Tahoe.
    pub response: LossResponse,
}

impl Default for NewReno {
    fn default() -> Self {
        NewReno { capped: true, response: LossResponse::NewReno }
    }
}

/// RFC 5681 §3.1 growth: slow start `cwnd += min(N, SMSS)` (to ssthresh if `capped`), the
/// leftover segments and congestion avoidance `cwnd += max(1, SMSS²/cwnd)` per ACK.
pub(super) fn reno_grow(w: &mut CwndState, bytes_acked: u64, capped: bool) {
    NewReno { capped, response: LossResponse::NewReno }.grow(w, bytes_acked)
}

/// RFC 5681 §3.1 slow start only (no avoidance step): `cwnd += min(N, SMSS)`, to ssthresh if
/// `capped`.
pub(super) fn reno_slow_start(w: &mut CwndState, bytes_acked: u64, capped: bool) {
    if bytes_acked == 0 {
        return;
    }
    w.cwnd += bytes_acked.min(w.smss as u64);
    if capped {
        w.cwnd = w.cwnd.min(w.ssthresh);
    }
}

impl NewReno {
    #[inline]
    fn grow(&self, w: &mut CwndState, bytes_acked: u64) {
        let smss = w.smss as u64;
        if bytes_acked == 0 {
            return;
        }
        if w.cwnd < w.ssthresh {
            // RFC 5681 §3.1 slow start: cwnd += min(N, SMSS), up to ssthresh if capped.
            let before = w.cwnd;
            w.cwnd += bytes_acked.min(smss);
            if self.capped {
                w.cwnd = w.cwnd.min(w.ssthresh);
            }
            // Segments of this ACK that slow start did not use go to congestion avoidance
            // (ns-3's and Linux's leftover, once cwnd has reached ssthresh).
            let segs = bytes_acked.div_ceil(smss);
            if w.cwnd < w.ssthresh || segs <= (w.cwnd - before) / smss {
                return;
            }
        }
        // Congestion avoidance: cwnd += max(1, SMSS·SMSS/cwnd) per ACK (≈ 1 SMSS per RTT).
        w.cwnd += (smss * smss / w.cwnd.max(1)).max(1);
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        match self.response {
            LossResponse::Reno => "reno",
            LossResponse::Tahoe => "tahoe",
            _ => "new_reno",
        }
    }

    fn loss_response(&self) -> LossResponse {
        self.response
    }

    #[inline]
    fn on_ack(&mut self, w: &mut CwndState, ack: &AckSample, _now: Time) {
        self.grow(w, ack.bytes_acked);
    }

    fn ssthresh_after_loss(&mut self, w: &CwndState, in_flight: u64, _cause: LossCause, _now: Time) -> u64 {
        // RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2·SMSS).
        (in_flight / 2).max(2 * w.smss as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(bytes: u64) -> AckSample {
        AckSample { bytes_acked: bytes, rtt: None, min_rtt: None, srtt: None, in_flight: 0, ece: false, ack: 0, snd_nxt: 0, cwnd_limited: true }
    }

    // tests RFC 5681 §3.1: slow start adds min(N, SMSS); avoidance ~1 SMSS per window.
    #[test]
    fn growth_rules() {
        let mut cc = NewReno::default();
        let mut w = CwndState { cwnd: 10 * 1448, ssthresh: u64::MAX, smss: 1448 };
        cc.on_ack(&mut w, &ack(2 * 1448), Time::ZERO);
        assert_eq!(w.cwnd, 11 * 1448, "delayed ACK of 2 segments grows by one SMSS");
        w.ssthresh = w.cwnd;
        let before = w.cwnd;
        for _ in 0..11 {
            cc.on_ack(&mut w, &ack(1448), Time::ZERO);
        }
        let grown = w.cwnd - before;
        assert!((1300..=1448).contains(&grown), "one window of ACKs grows cwnd by about one SMSS, got {grown}");
    }

    // tests the slow-start crossing with ssthresh between two whole segments: Linux stops at
    // ssthresh and spends the rest of the segment on one avoidance step; ns-3 adds the whole
    // segment (`TcpNewReno::SlowStart`) and, nothing of the ACK being left, no avoidance step.
    #[test]
    fn slow_start_past_ssthresh_linux_and_ns3() {
        let mut w = CwndState { cwnd: 4 * 1448, ssthresh: 4 * 1448 + 724, smss: 1448 };
        NewReno::default().on_ack(&mut w, &ack(1448), Time::ZERO);
        assert_eq!(w.cwnd, 4 * 1448 + 724 + 1448 * 1448 / (4 * 1448 + 724));
        let mut w = CwndState { cwnd: 4 * 1448, ssthresh: 4 * 1448 + 724, smss: 1448 };
        NewReno { capped: false, response: LossResponse::NewReno }.on_ack(&mut w, &ack(1448), Time::ZERO);
        assert_eq!(w.cwnd, 5 * 1448);
        // A delayed ACK of two segments: the second goes to avoidance in both.
        let mut w = CwndState { cwnd: 4 * 1448, ssthresh: 4 * 1448 + 724, smss: 1448 };
        NewReno { capped: false, response: LossResponse::NewReno }.on_ack(&mut w, &ack(2 * 1448), Time::ZERO);
        assert_eq!(w.cwnd, 5 * 1448 + 1448 * 1448 / (5 * 1448));
    }

    // tests slow start's end: cwnd stops at ssthresh and the rest of the ACK is congestion
    // avoidance (ns-3 TcpNewReno::IncreaseWindow, Linux tcp_reno_cong_avoid).
    #[test]
    fn slow_start_stops_at_ssthresh_and_the_rest_is_avoidance() {
        let mut cc = NewReno::default();
        // A delayed ACK of 2 segments at cwnd 4 SMSS, ssthresh 5 SMSS: +1 SMSS, then one step.
        let mut w = CwndState { cwnd: 4 * 1448, ssthresh: 5 * 1448, smss: 1448 };
        cc.on_ack(&mut w, &ack(2 * 1448), Time::ZERO);
        assert_eq!(w.cwnd, 5 * 1448 + 1448 * 1448 / (5 * 1448));
        // One segment that slow start uses whole: no avoidance step.
        let mut w = CwndState { cwnd: 4 * 1448, ssthresh: 5 * 1448, smss: 1448 };
        cc.on_ack(&mut w, &ack(1448), Time::ZERO);
        assert_eq!(w.cwnd, 5 * 1448);
        // One segment of which slow start uses 500 B: capped at ssthresh, then one step.
        let mut w = CwndState { cwnd: 5 * 1448 - 500, ssthresh: 5 * 1448, smss: 1448 };
        cc.on_ack(&mut w, &ack(1448), Time::ZERO);
        assert_eq!(w.cwnd, 5 * 1448 + 1448 * 1448 / (5 * 1448));
    }

    // tests RFC 5681 §3.1 "cwnd < ssthresh" for slow start, strictly: at cwnd = ssthresh an ACK
    // is congestion avoidance, +⌊1448²/5792⌋ = 362 B, for Linux and ns-3 alike (ns-3 would add a
    // whole segment if it took cwnd = ssthresh as slow start).
    #[test]
    fn cwnd_equal_to_ssthresh_is_congestion_avoidance() {
        for capped in [true, false] {
            let mut w = CwndState { cwnd: 4 * 1448, ssthresh: 4 * 1448, smss: 1448 };
            NewReno { capped, response: LossResponse::NewReno }.on_ack(&mut w, &ack(1448), Time::ZERO);
            assert_eq!(w.cwnd, 4 * 1448 + 362, "capped {capped}");
        }
    }

    // tests RFC 5681 eq. (4). (And the name summaries record for `cc = "new_reno"`.)
    #[test]
    fn ssthresh_is_half_the_flight_with_floor() {
        let mut cc = NewReno::default();
        assert_eq!(cc.name(), crate::tcp::CcKind::NewReno.as_str());
        let w = CwndState { cwnd: 10 * 1448, ssthresh: u64::MAX, smss: 1448 };
        assert_eq!(cc.ssthresh_after_loss(&w, 10 * 1448, LossCause::DupAcks, Time::ZERO), 5 * 1448);
        assert_eq!(cc.ssthresh_after_loss(&w, 1448, LossCause::DupAcks, Time::ZERO), 2 * 1448);
    }
}
