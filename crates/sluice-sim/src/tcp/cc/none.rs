//! "None": plain RFC 793, as ns-3's `TcpRfc793` (ns-3.8–3.24) modelled it. No congestion window —
//! the peer's advertised window alone limits the sender; loss is repaired only by the
//! retransmission timer (go-back-N from SND.UNA). Duplicate ACKs are counted for statistics but
//! trigger nothing.

use super::{AckSample, CongestionControl, CwndState, LossCause, LossResponse};
use sluice_core::Time;

/// "Unbounded" cwnd: 2^30 bytes, far above any receive window Sluice can advertise
/// (65,535·2^14).
pub const UNBOUNDED: u64 = 1 << 30;

#[derive(Clone, Debug, Default)]
pub struct NoCc;

impl CongestionControl for NoCc {
    fn name(&self) -> &'static str {
        "none"
    }
    fn on_ack(&mut self, w: &mut CwndState, _ack: &AckSample, _now: Time) {
        w.cwnd = UNBOUNDED;
    }
    fn ssthresh_after_loss(&mut self, w: &CwndState, _in_flight: u64, _cause: LossCause, _now: Time) -> u64 {
        w.ssthresh
    }
    fn on_rto(&mut self, w: &mut CwndState, _now: Time) {
        w.cwnd = UNBOUNDED;
    }
    fn loss_response(&self) -> LossResponse {
        LossResponse::RtoOnly
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // tests `cc = "none"` (plain RFC 793, docs/tcp.md): no congestion window, whatever happens. An ACK or a timeout
    // puts cwnd back to "unbounded" (2^30 B) from any value; a loss leaves ssthresh as it was;
    // duplicate ACKs start no fast recovery. The name is what summaries record for `cc = "none"`.
    #[test]
    fn no_window_ever() {
        let mut cc = NoCc;
        assert_eq!(UNBOUNDED, 1_073_741_824);
        assert_eq!(cc.name(), crate::tcp::CcKind::None.as_str());
        let mut w = CwndState { cwnd: 1448, ssthresh: 7 * 1448, smss: 1448 };
        let ack = AckSample { bytes_acked: 1448, rtt: None, min_rtt: None, srtt: None, in_flight: 0, ece: false, ack: 0, snd_nxt: 0, cwnd_limited: true };
        cc.on_ack(&mut w, &ack, Time::ZERO);
        assert_eq!(w.cwnd, UNBOUNDED);
        w.cwnd = 1448;
        cc.on_rto(&mut w, Time::ZERO);
        assert_eq!(w.cwnd, UNBOUNDED);
        assert_eq!(cc.ssthresh_after_loss(&w, 10 * 1448, LossCause::DupAcks, Time::ZERO), 7 * 1448);
        assert_eq!(cc.loss_response(), LossResponse::RtoOnly);
    }
}
