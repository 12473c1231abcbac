//! Scripted loss-recovery exchanges without SACK: NewReno's full ACK under `full_ack`, and PRR's
//! duplicate ACKs.

use super::tests::{seg_seq, Pair, MSS};
use super::*;
use crate::packet::SimPacket;

fn seg_no(s: &SimPacket) -> u64 {
    (seg_seq(s) as u64 - 1001) / MSS
}

/// Ten segments, NewReno with classic recovery and `full_ack` as given: segment 0 is lost, 1-9
/// arrive (duplicate ACKs), then the retransmission; returns the pair after the full ACK.
fn single_loss_full_ack(sack: bool, full_ack: FullAck) -> Pair {
    let cfg = TcpConfig { sack, recovery: Recovery::Classic, full_ack, delack: DelAck::Off, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(10 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    let dups = p.deliver_to_server(&burst[1..]);
    let out = p.deliver_to_client(&dups);
    assert_eq!(out.iter().map(seg_no).collect::<Vec<_>>(), [0], "the fast retransmission, nothing else: no new data");
    // Without SACK: FlightSize 10 MSS / 2. With SACK, pipe at the third duplicate: 10 − 3 SACKed
    // − 1 lost = 6 MSS, halved.
    assert_eq!(p.c.w.ssthresh, if sack { 3 * MSS } else { 5 * MSS }, "sack {sack}");
    let full = p.deliver_to_server(&out);
    p.deliver_to_client(&full);
    assert_eq!((p.c.ca, p.c.snd_una, p.c.snd_max), (cc::CaState::Open, 1 + 10 * MSS, 1 + 10 * MSS));
    p
}

// tests RFC 6582 §3.2 step 3 (the full ACK): option (1) cwnd = ssthresh; option (2)
// `full_ack = "flight_size"` (ns-3.13's NewReno) cwnd = min(ssthresh, max(FlightSize, SMSS) +
// SMSS), which after a full ACK of everything sent is min(5 MSS, max(0, 1 MSS) + 1 MSS) = 2 MSS.
// With SACK the recovery is RFC 6675's, which has no such option: cwnd = ssthresh (3 MSS) either
// way.
#[test]
fn full_ack_sets_cwnd_to_ssthresh_or_to_the_flight_plus_one_segment() {
    assert_eq!(single_loss_full_ack(false, FullAck::Ssthresh).c.w.cwnd, 5 * MSS);
    assert_eq!(single_loss_full_ack(false, FullAck::FlightSize).c.w.cwnd, 2 * MSS);
    assert_eq!(single_loss_full_ack(true, FullAck::FlightSize).c.w.cwnd, 3 * MSS);
}

// tests `full_ack = "flight_size"` with data still in flight at the full ACK (RFC 6582 §3.2
// step 3 option (2) reads FlightSize = SND.NXT − SND.UNA then). Unlimited data, no SACK: the
// first two duplicates release 10 and 11 (limited transmit), so the third finds FlightSize
// 12 MSS: ssthresh 6 MSS, cwnd 6 + 3 = 9 MSS, inflated by one MSS per later duplicate (12-14 go).
// The retransmitted 0 and the original 10 bring partial ACKs (each resends the next segment and
// sends one new: 15, 16). The ACK of 11 reaches recover = 1 + 12 MSS: FlightSize = 12-16 =
// 5 MSS, cwnd = min(6 MSS, 5 MSS + 1 MSS) = 6 MSS.
#[test]
fn full_ack_flight_size_counts_what_is_still_in_flight() {
    let cfg = TcpConfig { sack: false, recovery: Recovery::Classic, full_ack: FullAck::FlightSize, delack: DelAck::Off, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let burst = p.client_sends();
    let mut sent = Vec::new();
    for s in &burst[1..] {
        let d = p.deliver_to_server(std::slice::from_ref(s));
        sent.extend(p.deliver_to_client(&d));
    }
    assert_eq!(sent.iter().map(seg_no).collect::<Vec<_>>(), [10, 11, 0, 12, 13, 14]);
    assert_eq!(p.c.w.ssthresh, 6 * MSS);
    for s in [&sent[2], &sent[0]] {
        let a = p.deliver_to_server(std::slice::from_ref(s));
        p.deliver_to_client(&a);
        assert_eq!(p.c.ca, cc::CaState::Recovery, "partial ACK");
    }
    let a = p.deliver_to_server(std::slice::from_ref(&sent[1]));
    let before = p.c.snd_max;
    p.deliver_to_client(&a);
    assert_eq!((p.c.ca, p.c.snd_una, before), (cc::CaState::Open, 1 + 12 * MSS, 1 + 17 * MSS));
    assert_eq!(p.c.w.cwnd, 6 * MSS);
}
