//! "None": plain RFC 793, as ns-3's `TcpRfc793` (ns-3.8–3.24) modelled it. No congestion window —
//! the peer's advertised window alone limits the sender; loss is repaired only by the
//! retransmission timer (go-back-N from SND.UNA). Duplicate ACKs are counted for statistics but
//! trigger nothing.

use super::{AckSample, CongestionControl, CwndState, LossCause};
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
    fn fast_recovery(&self) -> bool {
        false
    }
}
