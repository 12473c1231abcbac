//! Scripted ECN exchanges (RFC 3168 §6.1) under the default response, `ecn_cut = "prr"`, and
//! under `ecn_cut = "immediate"`: the receiver's echo, the sender's CWR, one reduction per window
//! of data, and cwnd ACK by ACK while the window comes down.
//!
//! Every case: SMSS 1448 B, an initial window of 10 segments, unlimited data, an ACK per segment
//! (`delack = "off"`), segments delivered one at a time and in order. Segment `k` is the one
//! starting at data offset `1 + k·1448`. Windows below are in bytes; "N MSS" = N·1448.

use super::cc::CaState;
use super::tests::{flags, seg_seq, Pair, MSS};
use super::*;
use crate::packet::SimPacket;
use sluice_core::packet::{tcp_flags as F, Ecn};
use sluice_core::Dur;

/// The segment number of a data segment (the client's ISS is 1000, data starts one later).
fn seg_no(s: &SimPacket) -> u64 {
    (seg_seq(s) as u64 - 1001) / MSS
}

fn ecn_cfg(cut: EcnCut) -> TcpConfig {
    TcpConfig { ecn: true, ecn_cut: cut, delack: DelAck::Off, ..TcpConfig::default() }
}

/// One step: the ACK of one segment reaches the sender. What the test checks after it.
#[derive(Debug, PartialEq, Eq)]
struct Step {
    ece: bool,
    cwnd: u64,
    pipe: u64,
    ca: CaState,
    /// Segments the sender put on the wire in response, with whether each carried CWR.
    sent: Vec<(u64, bool)>,
}

/// Deliver `seg` to the receiver, its ACK to the sender; returns the step and what was sent.
fn step(p: &mut Pair, seg: &SimPacket) -> (Step, Vec<SimPacket>) {
    let acks = p.deliver_to_server(std::slice::from_ref(seg));
    assert_eq!(acks.len(), 1, "an ACK per segment");
    let ece = flags(&acks[0]) & F::ECE != 0;
    let out = p.deliver_to_client(&acks);
    let sent = out.iter().map(|s| (seg_no(s), flags(s) & F::CWR != 0)).collect();
    (Step { ece, cwnd: p.c.w.cwnd, pipe: p.c.pipe(), ca: p.c.ca, sent }, out)
}

fn s(ece: bool, cwnd: u64, pipe: u64, ca: CaState, sent: &[(u64, bool)]) -> Step {
    Step { ece, cwnd, pipe, ca, sent: sent.to_vec() }
}

/// The first window, segments 0-9, with CE on segments 0 and 5, ACK by ACK; returns the pair
/// and the segments sent meanwhile (10, 11, 12, 13), not yet delivered.
fn first_window_with_ce(cut: EcnCut) -> (Pair, Vec<(Step, Vec<SimPacket>)>) {
    let mut p = Pair::new(ecn_cfg(cut), None);
    assert!(p.c.ecn_ok && p.s.ecn_ok, "ECN negotiated in the handshake (RFC 3168 §6.1.1)");
    let mut burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    assert!(burst.iter().all(|s| s.tos.ecn() == Ecn::Ect0), "new data is ECT(0)");
    assert!(burst.iter().all(|s| flags(s) & F::CWR == 0));
    burst[0].tos.set_ecn(Ecn::Ce);
    burst[5].tos.set_ecn(Ecn::Ce); // a second mark in the same window of data
    let steps = burst.iter().map(|seg| step(&mut p, seg)).collect();
    (p, steps)
}

// tests RFC 3168 §6.1.2-6.1.3 with `ecn_cut = "prr"` (the default; ns-3 `EnterCwr`, Linux
// `tcp_enter_cwr`): one CE mark ⇒ ECE on every ACK until the receiver sees CWR; CWR on exactly one
// segment; ssthresh set once for the window (the second CE in it changes nothing); cwnd brought
// down ACK by ACK by PRR (RFC 9937 variant), and cwnd = ssthresh when CWR ends.
//
// Hand computation (bytes; MSS = 1448; PRR per RFC 6937 §3.1 / RFC 9937 as in `recovery_ack`):
// ACK 0 (ECE, DeliveredData 1448): the ECN response comes before the ACK can grow cwnd (Linux
//   enters CWR in `tcp_fastretrans_alert` before `tcp_cong_control`; ns-3 calls `EnterCwr`
//   before `ProcessAck`): FlightSize = pipe = segments 1-9 = 9 MSS = 13032; ssthresh =
//   max(13032/2, 2 MSS) = 6516; RecoverFS = 13032; recover = SND.NXT = 1 + 10 MSS. The ACK is
//   then the reduction's first: prr_delivered = 1448, share = ⌈1448·6516/13032⌉ = 724, raised to
//   1 MSS as nothing has been sent in the reduction yet; cwnd = 13032 + 1448 = 14480: segment 10
//   goes with CWR; prr_out = 1448.
// ACK k = 1..8 (ECE, 1448 each): prr_delivered = (k+1)·1448, pipe before sending = (9 − k) MSS
//   plus what the reduction has sent. pipe > ssthresh: sndcnt = ⌈prr_delivered/2⌉ − prr_out:
//   k=1: 1448 − 1448 = 0, cwnd = pipe = 13032
//   k=2: 2172 − 1448 = 724, cwnd = 11584 + 724 = 12308 (724 < MSS: nothing sent)
//   k=3: 2896 − 1448 = 1448, cwnd = 10136 + 1448 = 11584: segment 11 goes, prr_out = 2896
//   k=4: 3620 − 2896 = 724, cwnd = 10136 + 724 = 10860
//   k=5 (segment 5, CE again; no second reduction): 4344 − 2896 = 1448, cwnd = 8688 + 1448 =
//        10136: segment 12 goes, prr_out = 4344
//   k=6: 5068 − 4344 = 724, cwnd = 8688 + 724 = 9412
//   k=7: 5792 − 4344 = 1448, cwnd = 7240 + 1448 = 8688: segment 13 goes, prr_out = 5792
//   k=8: 6516 − 5792 = 724, cwnd = 7240 + 724 = 7964
// ACK 9 (SEG.ACK = 1 + 10 MSS = recover: CWR holds until data above recover is acknowledged):
//   prr_delivered = 14480, pipe = segments 10-13 = 5792 ≤ ssthresh: RFC 9937 PRR-CRB: limit =
//   max(14480 − 5792, 1448) = 8688 (no retransmission acknowledged: no extra MSS); sndcnt =
//   min(6516 − 5792, 8688) = 724; cwnd = 6516: nothing sent.
#[test]
fn ecn_prr_reduction_ack_by_ack() {
    use CaState::Cwr;
    let (p, steps) = first_window_with_ce(EcnCut::Prr);
    let got: Vec<&Step> = steps.iter().map(|(s, _)| s).collect();
    let want = [
        s(true, 14_480, 14_480, Cwr, &[(10, true)]),
        s(true, 13_032, 13_032, Cwr, &[]),
        s(true, 12_308, 11_584, Cwr, &[]),
        s(true, 11_584, 11_584, Cwr, &[(11, false)]),
        s(true, 10_860, 10_136, Cwr, &[]),
        s(true, 10_136, 10_136, Cwr, &[(12, false)]),
        s(true, 9_412, 8_688, Cwr, &[]),
        s(true, 8_688, 8_688, Cwr, &[(13, false)]),
        s(true, 7_964, 7_240, Cwr, &[]),
        s(true, 6_516, 5_792, Cwr, &[]),
    ];
    for (i, (g, w)) in got.iter().zip(want.iter()).enumerate() {
        assert_eq!(*g, w, "ACK of segment {i}");
    }
    assert_eq!(p.c.w.ssthresh, 6_516, "one reduction for the window: FlightSize 9 MSS / 2");
    assert_eq!(p.c.w.cwnd, p.c.w.ssthresh, "the reduction has brought cwnd to ssthresh");
    assert_eq!((p.c.prr_delivered, p.c.prr_out, p.c.recover_fs), (14_480, 5_792, 13_032));
    assert_eq!(p.c.counters.fast_retransmits, 0, "no retransmission for a mark (RFC 3168 §6.1.2)");
    assert_eq!(p.c.counters.retx_pkts, 0);
}

// tests RFC 3168 §6.1.2-6.1.3 across windows (`ecn_cut = "prr"`): the CWR segment stops the echo;
// a CE mark on a segment sent after the reduction began (beyond `recover`) is a new window of
// data and cuts again.
//
// Hand computation, continuing from `ecn_prr_reduction_ack_by_ack` (cwnd = ssthresh = 6516,
// still CWR, segments 10-13 outstanding, SND.NXT = 1 + 14 MSS, recover = 1 + 10 MSS):
// ACK 10 (segment 10 carried CWR: no ECE; above recover): CWR ends, cwnd = ssthresh = 6516;
//   pipe 3 MSS = 4344: segment 14 goes.
// ACK 11 (no ECE): congestion avoidance, cwnd += ⌊1448²/6516⌋ = 321 → 6837; pipe 4344: segment
//   15 goes.
// ACK 12 (segment 12 was CE: ECE; SND.UNA = 1 + 13 MSS > recover): a new reduction, before any
//   growth: FlightSize = pipe = segments 13-15 = 4344, ssthresh = max(2172, 2 MSS) = 2896,
//   RecoverFS = 4344, recover = 1 + 16 MSS; prr_delivered = 1448, share = ⌈1448·2896/4344⌉ =
//   966, raised to 1 MSS: cwnd = 4344 + 1448 = 5792: segment 16 goes with CWR.
#[test]
fn ecn_cwr_stops_the_echo_and_a_mark_in_the_next_window_cuts_again() {
    use CaState::{Cwr, Open};
    let (mut p, steps) = first_window_with_ce(EcnCut::Prr);
    let mut pending: Vec<SimPacket> = steps.into_iter().flat_map(|(_, out)| out).collect();
    assert_eq!(pending.iter().map(seg_no).collect::<Vec<_>>(), [10, 11, 12, 13]);
    pending[2].tos.set_ecn(Ecn::Ce); // segment 12
    assert!(p.s.ece_pending, "the receiver still echoes: no CWR seen yet");
    let (a10, _) = step(&mut p, &pending[0]);
    assert!(!p.s.ece_pending, "CWR ends the echo");
    assert_eq!(a10, s(false, 6_516, 5_792, Open, &[(14, false)]));
    let (a11, _) = step(&mut p, &pending[1]);
    assert_eq!(a11, s(false, 6_837, 5_792, Open, &[(15, false)]));
    let (a12, _) = step(&mut p, &pending[2]);
    assert_eq!(a12, s(true, 5_792, 5_792, Cwr, &[(16, true)]));
    assert_eq!((p.c.w.ssthresh, p.c.recover_fs, p.c.recover), (2_896, 4_344, 1 + 16 * MSS));
}

// tests `ecn_cut = "immediate"` (RFC 3168 §6.1.2 read literally): cwnd = ssthresh on the ACK
// that carries ECE, no CWR state, the rest of the window's ECE ACKs ignored.
//
// Hand computation (bytes): ACK 0: the cut comes first and the ACK does not grow cwnd:
// ssthresh = 13032/2 = 6516 and cwnd = 6516 at once; pipe 9 MSS: nothing sent, and recover = 1 + 10 MSS. ACKs 1-9 (all ECE, at
// or below recover: no new cut) grow cwnd by congestion avoidance, ⌊1448²/cwnd⌋ each:
//   +321 → 6837, +306 → 7143, +293 → 7436, +281 → 7717, +271 → 7988, +262 → 8250,
//   +254 → 8504, +246 → 8750, +239 → 8989;
// pipe falls one segment per ACK from 8 MSS until cwnd − pipe ≥ 1 MSS: ACK 5 (pipe 4 MSS = 5792,
// cwnd 7988) sends segment 10 with CWR; then 11, 12 on ACKs 6, 7; ACK 8 (cwnd 8750, pipe 5792)
// sends 13 and 14; ACK 9 (cwnd 8989, pipe 7240) sends 15.
#[test]
fn ecn_immediate_cuts_at_once() {
    use CaState::Open;
    let (p, steps) = first_window_with_ce(EcnCut::Immediate);
    let got: Vec<&Step> = steps.iter().map(|(s, _)| s).collect();
    let want = [
        s(true, 6_516, 13_032, Open, &[]),
        s(true, 6_837, 11_584, Open, &[]),
        s(true, 7_143, 10_136, Open, &[]),
        s(true, 7_436, 8_688, Open, &[]),
        s(true, 7_717, 7_240, Open, &[]),
        s(true, 7_988, 7_240, Open, &[(10, true)]),
        s(true, 8_250, 7_240, Open, &[(11, false)]),
        s(true, 8_504, 7_240, Open, &[(12, false)]),
        s(true, 8_750, 8_688, Open, &[(13, false), (14, false)]),
        s(true, 8_989, 8_688, Open, &[(15, false)]),
    ];
    for (i, (g, w)) in got.iter().zip(want.iter()).enumerate() {
        assert_eq!(*g, w, "ACK of segment {i}");
    }
    assert_eq!(p.c.w.ssthresh, 6_516, "one reduction for the window");
}

// tests `ecn_cut = "prr"` with `recovery = "classic"`: no PRR, so the window comes down at once
// (RFC 3168 §6.1.2's halving; ns-3's `TcpClassicRecovery::EnterRecovery` from `EnterCwr`) and
// CWR holds it until the window of the reduction is acknowledged. With delayed ACKs (every second
// segment), each ACK delivers 2 MSS.
// ACK of 0-1 (ECE): the response first, no growth: FlightSize = pipe = 8 MSS: ssthresh = cwnd =
//   4 MSS = 5792; CWR, recover = 1 + 10 MSS; pipe 11,584 > cwnd: nothing goes.
// ACKs of 2-3 and 4-5: pipe 6 MSS, then 4 MSS = cwnd: nothing.
// ACK of 6-7: pipe 2 MSS: 10 (with CWR) and 11 go. ACK of 8-9 (= recover: CWR holds): 12 and 13.
// ACK of 10-11 (above recover; no echo, CWR having reached the receiver): Open, cwnd = ssthresh =
//   5792, pipe 12-13 = 2 MSS: 14 and 15 go.
#[test]
fn ecn_cut_with_classic_recovery_comes_at_once_and_holds() {
    let cfg = TcpConfig { ecn: true, recovery: Recovery::Classic, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let mut burst = p.client_sends();
    burst[0].tos.set_ecn(Ecn::Ce);
    let mut got = Vec::new();
    let mut sent = Vec::new();
    for pair in burst.chunks(2) {
        let acks = p.deliver_to_server(pair);
        assert_eq!(acks.len(), 1, "an ACK every second segment");
        assert!(flags(&acks[0]) & F::ECE != 0);
        let out = p.deliver_to_client(&acks);
        got.push((p.c.w.cwnd, p.c.pipe(), p.c.ca, out.iter().map(|s| (seg_no(s), flags(s) & F::CWR != 0)).collect::<Vec<_>>()));
        sent.extend(out);
    }
    let acks = p.deliver_to_server(&sent[0..2]);
    assert_eq!(flags(&acks[0]) & F::ECE, 0, "CWR has stopped the echo");
    let out = p.deliver_to_client(&acks);
    got.push((p.c.w.cwnd, p.c.pipe(), p.c.ca, out.iter().map(|s| (seg_no(s), false)).collect()));
    use CaState::{Cwr, Open};
    let want = vec![
        (5_792, 11_584, Cwr, vec![]),
        (5_792, 8_688, Cwr, vec![]),
        (5_792, 5_792, Cwr, vec![]),
        (5_792, 5_792, Cwr, vec![(10, true), (11, false)]),
        (5_792, 5_792, Cwr, vec![(12, false), (13, false)]),
        (5_792, 5_792, Open, vec![(14, false), (15, false)]),
    ];
    assert_eq!(got, want);
}

/// `ecn_cfg` with ns-3's ECN-Echo handling (`Ns3Compat::ecn_echo_rfc` off), every other switch
/// at the default.
fn ns3_ecn_cfg() -> TcpConfig {
    let mut cfg = ecn_cfg(EcnCut::Prr);
    cfg.compat.ecn_echo_rfc = false;
    cfg
}

// tests ns-3.44's entry into CWR (`ecn_echo_rfc` off): `EnterCwr` → `TcpPrrRecovery::
// EnterRecovery` runs a PRR step as for a duplicate ACK (one segment added to what the ACK
// delivered, prr_delivered < RecoverFS), then `ProcessAck`'s CWR branch runs the ACK's own step;
// later ACKs take one step each. Same exchange as `ecn_prr_reduction_ack_by_ack`.
//
// Hand computation (bytes; ssthresh 6516, RecoverFS 13032 as there; share =
// ⌈prr_delivered · 6516 / 13032⌉ = ⌈prr_delivered / 2⌉ while pipe > ssthresh):
// ACK 0 (ECE, 1448 delivered): entry step: prr_delivered = 1448 + 1448 = 2896, share 1448,
//   cwnd = 13032 + 1448; then the ACK's step: prr_delivered = 4344, share 2172 − prr_out 0,
//   cwnd = 13032 + 2172 = 15204: segment 10 goes with CWR (prr_out 1448), pipe 14480.
// ACK 1: 5792 → 2896 − 1448 = 1448; pipe 13032, cwnd 14480: segment 11 (prr_out 2896).
// ACK 2: 7240 → 3620 − 2896 = 724; pipe 13032, cwnd 13756: nothing.
// ACK 3: 8688 → 4344 − 2896 = 1448; pipe 11584, cwnd 13032: segment 12 (prr_out 4344).
// ACK 4: 10136 → 5068 − 4344 = 724; pipe 11584, cwnd 12308.
// ACK 5: 11584 → 5792 − 4344 = 1448; pipe 10136, cwnd 11584: segment 13 (prr_out 5792).
// ACK 6: 13032 → 6516 − 5792 = 724; pipe 10136, cwnd 10860.
// ACK 7: 14480 → 7240 − 5792 = 1448; pipe 8688, cwnd 10136: segment 14 (prr_out 7240).
// ACK 8: 15928 → 7964 − 7240 = 724; pipe 8688, cwnd 9412.
// ACK 9 (= recover: CWR holds): 17376 → 8688 − 7240 = 1448; pipe 7240 > ssthresh, cwnd 8688:
//   segment 15 (prr_out 8688).
// The RFC/Linux path sends 4 segments for these 10 ACKs (ecn_prr_reduction_ack_by_ack), ns-3 6.
#[test]
fn ns3_cwr_entry_runs_prr_twice() {
    use CaState::Cwr;
    let mut p = Pair::new(ns3_ecn_cfg(), None);
    let mut burst = p.client_sends();
    burst[0].tos.set_ecn(Ecn::Ce);
    burst[5].tos.set_ecn(Ecn::Ce);
    let got: Vec<Step> = burst.iter().map(|seg| step(&mut p, seg).0).collect();
    let want = [
        s(true, 15_204, 14_480, Cwr, &[(10, true)]),
        s(true, 14_480, 14_480, Cwr, &[(11, false)]),
        s(true, 13_756, 13_032, Cwr, &[]),
        s(true, 13_032, 13_032, Cwr, &[(12, false)]),
        s(true, 12_308, 11_584, Cwr, &[]),
        s(true, 11_584, 11_584, Cwr, &[(13, false)]),
        s(true, 10_860, 10_136, Cwr, &[]),
        s(true, 10_136, 10_136, Cwr, &[(14, false)]),
        s(true, 9_412, 8_688, Cwr, &[]),
        s(true, 8_688, 8_688, Cwr, &[(15, false)]),
    ];
    for (i, (g, w)) in got.iter().zip(want.iter()).enumerate() {
        assert_eq!(g, w, "ACK of segment {i}");
    }
    assert_eq!((p.c.w.ssthresh, p.c.prr_delivered, p.c.prr_out, p.c.recover_fs), (6_516, 17_376, 8_688, 13_032));
    assert_eq!(p.c.counters.cwr_episodes, 1);
}

// tests ns-3.44's echo through a CWR and its CWR exit before the echo (`ecn_echo_rfc` off),
// against the RFC / Linux path. Delayed ACKs (every second segment), initial window 11.
// Segment 0 is CE; the sender enters CWR on the ACK of 0-1 and sends segment 11 with CWR.
// Segment 10 is CE too and arrives alone (held by the delayed ACK), then segment 11 (CWR):
// RFC 3168 §6.1.3 / Linux: the CWR stops the echo, so the ACK of 10-11 carries no ECE and
// segment 10's mark is never echoed; ns-3: the receiver is still in ECN_CE_RCVD (10's mark not
// echoed yet), ignores the CWR and sets ECE.
//
// ns-3's sender, by hand (bytes; PRR as in `ns3_cwr_entry_runs_prr_twice`):
// ACK 0-1 (ECE, 2896 delivered): pipe 9 MSS = 13032, ssthresh 6516, RecoverFS 13032, recover =
//   1 + 11 MSS; entry step prr_delivered 4344 (share 2172), the ACK's step 7240: share 3620,
//   cwnd 13032 + 3620 = 16652: segments 11 (CWR) and 12 (prr_out 2896), pipe 15928.
// ACKs 2-3, 4-5, 6-7, 8-9 (ECE; at or below recover): prr_delivered 10136, 13032, 15928,
//   18824: shares 5068, 6516, 7964, 9412, each 2172 above prr_out: one segment each (13-16);
//   pipe after 8-9: segments 10-16 = 10136.
// ACK 10-11 (ECE, SEG.ACK 1 + 12 MSS > recover): CWR ends first (cwnd = ssthresh 6516, Open),
//   then the echo starts a new reduction at once: pipe = 12-16 = 7240, ssthresh = 3620,
//   RecoverFS 7240, recover = SND.NXT = 1 + 17 MSS; entry step prr_delivered 4344, share
//   ⌈4344·3620/7240⌉ = 2172; the ACK's step 7240: share 3620, cwnd = 7240 + 3620 = 10860:
//   segments 17 (CWR) and 18.
#[test]
fn ns3_echo_survives_a_cwr_and_cwr_ends_before_the_echo() {
    for ns3 in [false, true] {
        let mut cfg = if ns3 { ns3_ecn_cfg() } else { ecn_cfg(EcnCut::Prr) };
        cfg.delack = DelAck::On { count: 2, timeout: sluice_core::Dur::from_millis(200) };
        cfg.iw = InitialWindow::Segments(11);
        let mut p = Pair::new(cfg, None);
        let mut segs: Vec<SimPacket> = p.client_sends();
        assert_eq!(segs.len(), 11);
        segs[0].tos.set_ecn(Ecn::Ce);
        let ack_pair = |p: &mut Pair, segs: &mut Vec<SimPacket>, a: usize| {
            let acks = p.deliver_to_server(&segs[a..a + 2]);
            assert_eq!(acks.len(), 1);
            assert!(flags(&acks[0]) & F::ECE != 0, "echoing until CWR");
            let out = p.deliver_to_client(&acks);
            segs.extend(out);
        };
        for a in [0, 2, 4, 6, 8] {
            ack_pair(&mut p, &mut segs, a);
        }
        assert!(flags(&segs[11]) & F::CWR != 0 && seg_no(&segs[11]) == 11);
        segs[10].tos.set_ecn(Ecn::Ce);
        assert!(p.deliver_to_server(&segs[10..11]).is_empty(), "held by the delayed ACK");
        let acks = p.deliver_to_server(&segs[11..12]);
        assert_eq!(acks.len(), 1);
        let ece = flags(&acks[0]) & F::ECE != 0;
        let out = p.deliver_to_client(&acks);
        let sent: Vec<(u64, bool)> = out.iter().map(|s| (seg_no(s), flags(s) & F::CWR != 0)).collect();
        if ns3 {
            assert!(ece, "ns-3 echoes segment 10's mark through the CWR");
            assert_eq!(segs.len(), 17, "segments 11-16 sent during the first reduction");
            assert_eq!((p.c.ca, p.c.w.ssthresh, p.c.recover, p.c.w.cwnd), (CaState::Cwr, 3_620, 1 + 17 * MSS, 10_860));
            assert_eq!(sent, [(17, true), (18, false)]);
            assert_eq!(p.c.counters.cwr_episodes, 2);
        } else {
            assert!(!ece, "the CWR stops the echo; segment 10's mark is not echoed");
            assert_eq!(p.c.ca, CaState::Open);
            assert_eq!(p.c.counters.cwr_episodes, 1);
        }
    }
}

// tests that an algorithm which sets cwnd itself (BBR) keeps it on an ECN-Echo under
// `ecn_cut = "immediate"`: ns-3's EnterCwr sets ssthresh (TcpBbr::GetSsThresh returns the one it
// has) but runs the recovery algorithm's window cut only for a congestion control without a
// CongControl of its own, and Linux's BBR sets cwnd from its model on every ACK. The same first
// window is acknowledged with and without a CE mark on segment 0: the echo arrives, and cwnd is
// the same after every ACK, ssthresh the initial one (u32::MAX).
#[test]
fn bbr_keeps_its_cwnd_on_an_ecn_echo() {
    let run = |mark: bool| {
        let cfg = TcpConfig { cc: CcKind::Bbr, ..ecn_cfg(EcnCut::Immediate) };
        let mut p = Pair::new(cfg, None);
        let mut burst = p.client_sends();
        assert!(!burst.is_empty());
        if mark {
            burst[0].tos.set_ecn(Ecn::Ce);
        }
        let steps: Vec<(bool, u64)> = burst.iter().map(|seg| step(&mut p, seg).0).map(|s| (s.ece, s.cwnd)).collect();
        (steps, p.c.w.ssthresh)
    };
    let (plain, ss_plain) = run(false);
    let (marked, ss_marked) = run(true);
    // The clock does not move here, so BBR's pacing lets one segment go; its ACK's rate sample
    // grows cwnd by what it delivered (startup with less delivered than the initial window: the
    // BBR draft's BBRSetCwnd, cwnd += newly acked): 10 + 1 = 11 MSS.
    assert_eq!(plain, [(false, 11 * MSS)]);
    assert!(marked[0].0 && !plain[0].0, "the mark is echoed");
    let cwnds = |v: &[(bool, u64)]| v.iter().map(|s| s.1).collect::<Vec<_>>();
    assert_eq!(cwnds(&marked), cwnds(&plain), "cwnd as without the mark");
    assert_eq!((ss_plain, ss_marked), (u32::MAX as u64, u32::MAX as u64));
}

// tests ns-3's CWR exit before the echo (`ecn_echo_rfc` off) with an algorithm whose ssthresh
// comes from cwnd (ns-3's TcpLinuxReno, `cc_linux` off: max(cwnd / 2, 2 SMSS)): the ACK above the recovery
// point first ends CWR at cwnd = ssthresh, then its echo cuts again from that cwnd, so the
// second ssthresh is half the first. Same exchange as
// `ns3_echo_survives_a_cwr_and_cwr_ends_before_the_echo`.
#[test]
fn ns3_cwr_exit_sets_cwnd_to_ssthresh_before_the_next_cut() {
    let mut cfg = ns3_ecn_cfg();
    cfg.cc = CcKind::LinuxReno;
    cfg.compat.cc_linux = false;
    cfg.delack = DelAck::On { count: 2, timeout: sluice_core::Dur::from_millis(200) };
    cfg.iw = InitialWindow::Segments(11);
    let mut p = Pair::new(cfg, None);
    let mut segs: Vec<SimPacket> = p.client_sends();
    segs[0].tos.set_ecn(Ecn::Ce);
    for a in [0, 2, 4, 6, 8] {
        let acks = p.deliver_to_server(&segs[a..a + 2]);
        let out = p.deliver_to_client(&acks);
        segs.extend(out);
    }
    assert_eq!(p.c.ca, CaState::Cwr);
    let first = p.c.w.ssthresh;
    assert_ne!(p.c.w.cwnd, first, "PRR's cwnd inside the reduction");
    segs[10].tos.set_ecn(Ecn::Ce);
    p.deliver_to_server(&segs[10..11]);
    let acks = p.deliver_to_server(&segs[11..12]);
    assert!(flags(&acks[0]) & F::ECE != 0);
    p.deliver_to_client(&acks);
    assert_eq!((p.c.ca, p.c.counters.cwr_episodes), (CaState::Cwr, 2));
    assert_eq!(p.c.w.ssthresh, (first / 2).max(2 * MSS), "first {first}");
}

// tests ns-3.44's answer to an ECN-Echo on an ACK that moves SND.UNA during fast recovery
// (`ecn_echo_rfc` off): `ReceivedAck` calls `EnterCwr` for any such ACK outside CWR, before
// `ProcessAck`, so the recovery becomes a CWR (ssthresh from bytes in flight then, the recovery
// point moved to SND.NXT), where RFC 3168 §6.1.2 / Linux answer no echo in loss recovery.
// Ten segments, 0 lost, 5 marked CE: the receiver echoes from the ACK of 5 on (duplicates, which
// no rule answers); limited transmit sends 10 and 11, the third duplicate the retransmission of
// 0, PRR 12-15. The retransmission's ACK (of 0-9, ECE) is a partial ACK (recovery point 12).
// ns-3 by hand: in flight after it 10-15 = 8,688 B, ssthresh 4,344 (NewReno, half), RecoverFS
// 8,688, recovery point SND.NXT = 16 segments; the entry step (the ACK delivered segment 0,
// 1,448 B, plus one segment as for a duplicate: prr_delivered 2,896, share ⌈2,896·4,344/8,688⌉ =
// 1,448) and the ACK's own (4,344: share 2,172): cwnd 8,688 + 2,172 = 10,860, segment 16 with CWR.
// The RFC path stays in recovery: the partial ACK's PRR step, cwnd 10,136, segment 16 without CWR.
#[test]
fn ns3_echo_on_an_ack_in_recovery_starts_cwr() {
    for (ns3, want) in [(true, s(true, 10_860, 10_136, CaState::Cwr, &[(16, true)])), (false, s(true, 10_136, 10_136, CaState::Recovery, &[(16, false)]))] {
        let mut p = Pair::new(if ns3 { ns3_ecn_cfg() } else { ecn_cfg(EcnCut::Prr) }, None);
        let mut burst = p.client_sends();
        burst[5].tos.set_ecn(Ecn::Ce);
        let mut later = Vec::new();
        for seg in &burst[1..10] {
            later.extend(step(&mut p, seg).1);
        }
        assert_eq!(later.iter().map(seg_no).collect::<Vec<_>>(), [10, 11, 0, 12, 13, 14, 15]);
        let (st, _) = step(&mut p, &later[2]);
        assert_eq!(st, want, "ns-3's rule: {ns3}");
        if ns3 {
            assert_eq!((p.c.w.ssthresh, p.c.recover, p.c.counters.cwr_episodes), (4_344, 1 + 16 * MSS, 1));
        }
    }
}

// tests ns-3.44's duplicate ACKs in CWR (`ecn_echo_rfc` off): `DupAck` has no CWR branch, so
// they are counted and nothing else — no PRR step, no fast recovery — while `SendPendingData`
// still re-sends what SACK shows lost, within cwnd. Ten segments, 0 marked CE, 2 lost. ns-3 by
// hand: the ACK of 0 enters CWR (ssthresh 6,516) and, after the ACK of 1, cwnd is 14,480 with
// 2-11 in flight (14,480). Each duplicate (3, 4, ...) SACKs a segment out of pipe and one new
// segment goes; at the third (5) segment 2 has three SACKed above it and is lost (RFC 6675
// IsLost): pipe 11,584, room for its retransmission and segment 14. cwnd stays 14,480 and the
// state CWR, with no recovery episode. The RFC path runs PRR on each duplicate (cwnd 13,032) and
// the third starts fast recovery (ssthresh 5,068).
#[test]
fn ns3_duplicates_in_cwr_are_only_counted() {
    use CaState::{Cwr, Recovery};
    for (ns3, at_5, recoveries) in [
        (true, s(true, 14_480, 14_480, Cwr, &[(2, false), (14, false)]), 0),
        (false, s(true, 11_584, 11_584, Recovery, &[(2, false)]), 1),
    ] {
        let mut p = Pair::new(if ns3 { ns3_ecn_cfg() } else { ecn_cfg(EcnCut::Prr) }, None);
        let mut burst = p.client_sends();
        burst[0].tos.set_ecn(Ecn::Ce);
        let steps: Vec<Step> = [0, 1, 3, 4, 5].iter().map(|&k| step(&mut p, &burst[k]).0).collect();
        if ns3 {
            assert_eq!(steps[1], s(true, 14_480, 14_480, Cwr, &[(11, false)]));
            assert_eq!(steps[2], s(true, 14_480, 14_480, Cwr, &[(12, false)]), "a duplicate: no PRR step");
            assert_eq!(steps[3], s(true, 14_480, 14_480, Cwr, &[(13, false)]));
            assert_eq!(p.c.w.ssthresh, 6_516);
        }
        assert_eq!(steps[4], at_5, "the third duplicate, ns-3's rule: {ns3}");
        assert_eq!((p.c.dupacks, p.c.counters.recovery_episodes), (3, recoveries));
    }
}

// tests `cc_sees_cwr` (ns-3.44's `EnterCwr` and the CWR exit in `ReceivedAck` call no
// `CongestionStateSet`) with Vegas (`vegas.diff = "ns3"`) and ns-3's CWR rules. Segments 0-9 go
// at 30 ms, segment 0 marked CE; every ACK arrives 20 ms after its segment left, so each RTT
// sample is 20 ms. The ACK of 0 enters CWR: ssthresh = Vegas's min(ssthresh, cwnd − 1 MSS) =
// 13,032, recovery point 1 + 10 MSS; PRR sends 10-12 on the next ACKs (at 50 ms, ACKed at
// 70 ms). The ACK of 10 ends CWR: cwnd = ssthresh = 13,032 (9 segments) and, ns-3's exit
// growth, `IncreaseWindow`. Told nothing, Vegas's round is the one it started with (mark 0), so
// it ends here with 11 samples of 20 ms: target = 9·20/20 = 9, diff 0 < α = 2 ⇒ 10 segments,
// 14,480 B. Told (Linux's `tcp_vegas_state`), Vegas started a fresh round at SND.NXT on the
// return to Open, the ACK is inside it, and cwnd stays at 13,032.
#[test]
fn ns3_vegas_keeps_its_round_through_cwr() {
    use super::cc::vegas::{VegasConfig, VegasDiff};
    for (sees, want) in [(false, 14_480), (true, 13_032)] {
        let mut cfg = ns3_ecn_cfg();
        cfg.compat.exit_ack_grows = true;
        cfg.compat.cc_sees_cwr = sees;
        cfg.cc = CcKind::Vegas;
        cfg.vegas = VegasConfig { diff: VegasDiff::Ns3, ..VegasConfig::default() };
        let mut p = Pair::new(cfg, None);
        let mut burst = p.client_sends();
        burst[0].tos.set_ecn(Ecn::Ce);
        p.now += Dur::from_millis(20);
        let mut later = Vec::new();
        for seg in &burst {
            later.extend(step(&mut p, seg).1);
        }
        assert_eq!(later.iter().map(seg_no).collect::<Vec<_>>()[..3], [10, 11, 12]);
        assert_eq!((p.c.ca, p.c.w.ssthresh, p.c.recover), (CaState::Cwr, 13_032, 1 + 10 * MSS));
        p.now += Dur::from_millis(20);
        let (st, _) = step(&mut p, &later[0]);
        assert_eq!((st.ca, st.cwnd, p.c.w.ssthresh), (CaState::Open, want, 13_032), "cc_sees_cwr = {sees}");
    }
}
