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

// tests ns-3's emulated SACK marks in PRR recovery (`Ns3Compat::reno_sack_marks`, ns-3.44
// `TcpSocketBase::ReceivedAck` / `DupAck` / `TcpPrrRecovery::DoRecovery`): ns-3 refreshes bytes
// in flight before `DupAck` adds a duplicate ACK's mark, so PRR sets cwnd = (pipe before the
// mark) + sndcnt, one segment more than the pipe the mark leaves. Ten segments, the first lost:
// duplicates 1-3 mark segments 1-3 (3 MSS out of pipe) and the third enters recovery with the
// fast retransmission. The fourth duplicate marks segment 4: pipe falls by one MSS, while cwnd
// is the pipe before the mark plus PRR's share
// ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out (RFC 6937 §3, above ssthresh).
#[test]
fn ns3_prr_without_sack_works_from_the_pipe_before_the_mark() {
    let cfg = TcpConfig { sack: false, delack: DelAck::Off, compat: Ns3Compat { reno_sack_marks: true, ..Ns3Compat::RFC }, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(40 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    for seg in &burst[1..4] {
        let dup = p.deliver_to_server(std::slice::from_ref(seg));
        p.deliver_to_client(&dup);
    }
    assert_eq!(p.c.ca, super::cc::CaState::Recovery);
    let pipe_before = p.c.in_flight();
    let dup = p.deliver_to_server(&burst[4..5]);
    let sent = p.deliver_to_client(&dup);
    let share = (p.c.prr_delivered * p.c.w.ssthresh).div_ceil(p.c.recover_fs);
    let sndcnt = share + sent.len() as u64 * MSS - p.c.prr_out; // prr_out before this ACK's sends
    assert!(pipe_before > p.c.w.ssthresh, "the proportional part of PRR");
    assert_eq!(p.c.w.cwnd, pipe_before + sndcnt, "cwnd from the pipe before the mark");
    assert!(sndcnt < MSS, "PRR's share alone lets no segment out of the pipe after the mark");
    assert_eq!(sent.len(), 1, "but one goes: cwnd − (pipe before − 1 MSS) ≥ 1 MSS");
    assert_eq!(p.c.in_flight(), pipe_before - MSS + MSS, "the mark took one out, the new segment put one in");
}

/// Runs ns-3's emulated-mark recovery (`reno_sack_marks`, PRR) with `compat` on ten segments of
/// which 0 and 9 are lost: segments 1-8 arrive (their duplicates mark 1-8; the third enters
/// recovery with the retransmission of 0; limited transmit and PRR send 10-16), then the
/// retransmission of 0 arrives first. Returns cwnd and the segments sent on that partial ACK.
fn partial_ack_after_marks(compat: Ns3Compat) -> (u64, Vec<u64>) {
    let cfg = TcpConfig { sack: false, delack: DelAck::Off, compat, ..TcpConfig::default() };
    let (p, _, sent) = to_partial_ack(cfg, 40);
    assert_eq!(p.c.snd_una, 1 + 9 * MSS, "a partial ACK: 9 is still missing");
    (p.c.w.cwnd, sent.iter().map(seg_of).collect())
}

fn seg_of(s: &SimPacket) -> u64 {
    (super::tests::seg_seq(s) as u64 - 1001) / MSS
}

/// Ten segments out of `data` segments, 0 and 9 lost: 1-8 arrive (their duplicates release 10,
/// 11, the retransmission of 0 and 12-16), then the retransmission of 0. Returns the pair, what
/// the duplicates released, and what its (partial) ACK released.
fn to_partial_ack(cfg: TcpConfig, data: u64) -> (Pair, Vec<SimPacket>, Vec<SimPacket>) {
    let mut p = Pair::new(cfg, Some(data * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    let mut later = Vec::new();
    for seg in &burst[1..9] {
        let dup = p.deliver_to_server(std::slice::from_ref(seg));
        later.extend(p.deliver_to_client(&dup));
    }
    assert_eq!(later.iter().map(seg_of).collect::<Vec<_>>(), [10, 11, 0, 12, 13, 14, 15, 16]);
    let ack = p.deliver_to_server(&later[2..3]);
    let sent = p.deliver_to_client(&ack);
    (p, later, sent)
}

// tests ns-3's PRR step on a partial ACK without SACK (`reno_sack_marks`; ns-3.44
// `TcpSocketBase::ReceivedAck` refreshes bytes in flight after the cumulative ACK, then
// `ProcessAck` marks the new head lost and `TcpPrrRecovery::DoRecovery` reads the refreshed
// value). Hand-checked on `partial_ack_after_marks`: the ACK of 0-8 leaves 9-16 outstanding,
// 8 segments with no mark (the marks were on 1-8): 11,584 B in flight before the head is
// marked, 10,136 after. ssthresh 6,516 B (half of 12 MSS, NewReno), RecoverFS 11,584 B,
// prr_delivered 21,720 B (15 MSS), prr_out 8,688 B (the retransmission of 0 and 12-16).
// Above ssthresh: sndcnt = ⌈21,720 · 6,516 / 11,584⌉ − 8,688 = 12,218 − 8,688 = 3,530 B, so
// cwnd = 11,584 + 3,530 = 15,114 B: the head's retransmission, then pipe 11,584 B leaves room
// for two new segments (17, 18). From the pipe after the mark, cwnd would be 13,666 B and one.
#[test]
fn ns3_partial_ack_without_sack_works_from_the_pipe_before_the_head_mark() {
    let (cwnd, sent) = partial_ack_after_marks(Ns3Compat { reno_sack_marks: true, ..Ns3Compat::RFC });
    assert_eq!((cwnd, sent), (15_114, vec![9, 17, 18]));
}

// tests `prr_empty_ack_keeps_cwnd` (ns-3.44 `TcpPrrRecovery::DoRecovery` returns when nothing
// was delivered, as Linux's `tcp_cwnd_reduction` does): recovery entered with nothing in
// flight. Two segments out, cwnd 2 MSS; an earlier episode left the head lost and the segment
// after it marked (as after a recovery whose full ACK left lost segments above it). The
// duplicate ACK of segment 1 starts recovery (a lost head with a mark above it); the entry
// marks nothing more (no unmarked segment is left), so bytes in flight — RecoverFS — are 0,
// no segment is added to DeliveredData (prr_delivered is not below RecoverFS) and the ACK
// delivered nothing. ns-3 leaves cwnd at 2 MSS: after the fast retransmission (pipe 1 MSS) one
// new segment goes. PRR's step run anyway (the switch off) forces its first segment: cwnd =
// pipe 0 + 1 MSS, and only the retransmission goes.
#[test]
fn ns3_prr_entry_with_nothing_delivered_keeps_cwnd() {
    for (keeps, cwnd, sent) in [(true, 2 * MSS, vec![0, 2]), (false, MSS, vec![0])] {
        let compat = Ns3Compat { reno_sack_marks: true, prr_empty_ack_keeps_cwnd: keeps, ..Ns3Compat::RFC };
        let cfg = TcpConfig { sack: false, delack: DelAck::Off, iw: InitialWindow::Segments(2), compat, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(40 * MSS));
        let burst = p.client_sends();
        assert_eq!(burst.len(), 2);
        p.c.sb.mark_head_lost();
        p.c.sb.add_reno_sack();
        let dup = p.deliver_to_server(&burst[1..2]);
        let out = p.deliver_to_client(&dup);
        assert_eq!(p.c.ca, super::cc::CaState::Recovery, "entered on one duplicate");
        assert_eq!(p.c.recover_fs, 0, "nothing in flight at entry");
        let segs: Vec<u64> = out.iter().map(seg_of).collect();
        assert_eq!((p.c.w.cwnd, segs), (cwnd, sent), "prr_empty_ack_keeps_cwnd = {keeps}");
    }
}


/// Vegas (`vegas.diff = "ns3"`) without SACK under ns-3's recovery rules (emulated marks, the
/// partial ACK's `DoRetransmit`, growth on the exit ACK), 17 segments of data, 0 and 9 lost:
/// 1-8 arrive (limited transmit sends 10 and 11, the third duplicate the retransmission of 0,
/// PRR 12-16: all the data), then the retransmission of 0 (a partial ACK: 9 is re-sent, nothing
/// new is left), then 10 and 11, then the retransmission of 9: the ACK of 0-11 covers the
/// recovery point (12 segments) with 12-16 still out. Returns the send pointer after the
/// partial ACK and cwnd after the full one.
fn vegas_exit_after_partial_ack(track: bool) -> (u64, u64, u64) {
    use super::cc::vegas::{VegasConfig, VegasDiff};
    let compat = Ns3Compat { reno_sack_marks: true, partial_ack_nextseg: true, exit_ack_grows: true, ..Ns3Compat::RFC };
    let diff = if track { VegasDiff::Ns3 } else { VegasDiff::Linux };
    let cfg = TcpConfig { sack: false, delack: DelAck::Off, compat, cc: CcKind::Vegas, vegas: VegasConfig { diff, ..VegasConfig::default() }, ..TcpConfig::default() };
    let (mut p, later, rexmit) = to_partial_ack(cfg, 17);
    assert_eq!(rexmit.iter().map(seg_of).collect::<Vec<_>>(), [9], "a partial ACK");
    let ptr = p.c.send_ptr;
    assert!(!track || ptr < p.c.snd_max);
    for seg in &later[0..2] {
        let dup = p.deliver_to_server(std::slice::from_ref(seg));
        p.deliver_to_client(&dup);
    }
    let ack = p.deliver_to_server(&rexmit);
    p.deliver_to_client(&ack);
    assert_eq!((p.c.ca, p.c.snd_una, p.c.snd_max), (super::cc::CaState::Open, 1 + 12 * MSS, 1 + 17 * MSS));
    (ptr, p.c.w.ssthresh, p.c.w.cwnd)
}

// tests ns-3's send pointer for Vegas (`TcpVegas` starts its round from `m_nextTxSequence`:
// `EnableVegas` on the return to Open, and at each round's end). `DoRetransmit` moves the
// pointer back to the segment it re-sends and `NewAck` up to each ACK, before `IncreaseWindow`
// on the ACK that ends recovery. On `vegas_exit_after_partial_ack`: after the partial ACK the
// pointer is at the start of 9 (1 + 9·1448 = 13,033), below SND.MAX (17 segments). The exit ACK
// (12 segments) is at or above that mark, so the round is over, with no RTT samples in it
// (`EnableVegas` cleared them): a NewReno step from cwnd = ssthresh = 13,032 B (Vegas's loss
// rule: cwnd 10 MSS − 1 MSS), 1448² / 13,032 = 160 B, so 13,192 B. From SND.MAX (Linux's
// snd_nxt; `vegas.diff = "linux"`, whose loss rule halves cwnd: 7,240 B) the round runs to 17
// segments and cwnd stays at ssthresh.
#[test]
fn ns3_vegas_round_starts_from_the_send_pointer() {
    assert_eq!(vegas_exit_after_partial_ack(true), (1 + 9 * MSS, 13_032, 13_192));
    let (ptr, ssthresh, cwnd) = vegas_exit_after_partial_ack(false);
    assert_eq!(ptr, 0, "kept only where it is read");
    assert_eq!((ssthresh, cwnd), (7_240, 7_240));
}
