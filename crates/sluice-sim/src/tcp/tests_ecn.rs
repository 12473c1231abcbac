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
    assert!(burst.iter().all(|s| s.ecn == Ecn::Ect0), "new data is ECT(0)");
    assert!(burst.iter().all(|s| flags(s) & F::CWR == 0));
    burst[0].ecn = Ecn::Ce;
    burst[5].ecn = Ecn::Ce; // a second mark in the same window of data
    let steps = burst.iter().map(|seg| step(&mut p, seg)).collect();
    (p, steps)
}

// tests RFC 3168 §6.1.2-6.1.3 with `ecn_cut = "prr"` (the default; ns-3 `EnterCwr`, Linux
// `tcp_enter_cwr`): one CE mark ⇒ ECE on every ACK until the receiver sees CWR; CWR on exactly one
// segment; ssthresh set once for the window (the second CE in it changes nothing); cwnd brought
// down ACK by ACK by PRR (RFC 9937 variant), and cwnd = ssthresh when CWR ends.
//
// Hand computation (bytes; MSS = 1448; PRR per RFC 6937 §3.1 / RFC 9937 as in `recovery_ack`):
// ACK 0 (ECE): processed first as in Open, slow start: cwnd 10 → 11 MSS = 15928. Then the ECN
//   response: FlightSize = pipe = segments 1-9 = 9 MSS = 13032; ssthresh = max(13032/2, 2 MSS) =
//   6516; RecoverFS = 13032; recover = SND.NXT = 1 + 10 MSS; prr_delivered = prr_out = 0. cwnd is
//   left at 15928, so cwnd − pipe = 2 MSS: segments 10 (with CWR) and 11 go; prr_out = 2896,
//   pipe = 11 MSS. (So this ACK grows cwnd and is not counted in prr_delivered; Linux's
//   `tcp_cong_control` instead runs the reduction on it already and does not grow cwnd.)
// ACK k = 1..8 (ECE, DeliveredData 1448): prr_delivered = k·1448; pipe before sending =
//   (11 − k) MSS, minus what PRR releases, plus what it sends.
//   pipe > ssthresh: sndcnt = ⌈prr_delivered·6516/13032⌉ − prr_out = ⌈k·724⌉ − prr_out:
//   k=1: 724 − 2896 < 0 → 0, cwnd = pipe = 10 MSS = 14480
//   k=2: 1448 − 2896 → 0, cwnd = 9 MSS = 13032
//   k=3: 2172 − 2896 → 0, cwnd = 8 MSS = 11584
//   k=4: 2896 − 2896 = 0, cwnd = 7 MSS = 10136
//   k=5 (segment 5, CE again; no second reduction): 3620 − 2896 = 724, cwnd = 6 MSS + 724 = 9412;
//        cwnd − pipe = 724 < MSS: nothing sent
//   k=6: 4344 − 2896 = 1448, cwnd = 5 MSS + 1448 = 8688: segment 12 goes, prr_out = 4344, pipe 6 MSS
//   k=7: 5068 − 4344 = 724, pipe 5 MSS, cwnd = 7240 + 724 = 7964
//   k=8: pipe = 4 MSS = 5792 ≤ ssthresh: RFC 9937 PRR-CRB: limit = max(prr_delivered − prr_out,
//        DeliveredData) = max(11584 − 4344, 1448) = 7240 (no retransmission acknowledged: no
//        extra MSS); sndcnt = min(ssthresh − pipe, limit) = min(724, 7240) = 724; cwnd = 6516
// ACK 9 (ECE; SEG.ACK = 1 + 10 MSS = recover): CWR ends, cwnd = ssthresh = 6516; pipe = segments
//   10-12 = 4344: segment 13 goes (pipe 5792).
#[test]
fn ecn_prr_reduction_ack_by_ack() {
    use CaState::{Cwr, Open};
    let (p, steps) = first_window_with_ce(EcnCut::Prr);
    let got: Vec<&Step> = steps.iter().map(|(s, _)| s).collect();
    let want = [
        s(true, 15_928, 15_928, Cwr, &[(10, true), (11, false)]),
        s(true, 14_480, 14_480, Cwr, &[]),
        s(true, 13_032, 13_032, Cwr, &[]),
        s(true, 11_584, 11_584, Cwr, &[]),
        s(true, 10_136, 10_136, Cwr, &[]),
        s(true, 9_412, 8_688, Cwr, &[]),
        s(true, 8_688, 8_688, Cwr, &[(12, false)]),
        s(true, 7_964, 7_240, Cwr, &[]),
        s(true, 6_516, 5_792, Cwr, &[]),
        s(true, 6_516, 5_792, Open, &[(13, false)]),
    ];
    for (i, (g, w)) in got.iter().zip(want.iter()).enumerate() {
        assert_eq!(*g, w, "ACK of segment {i}");
    }
    assert_eq!(p.c.w.ssthresh, 6_516, "one reduction for the window: FlightSize 9 MSS / 2");
    assert_eq!(p.c.w.cwnd, p.c.w.ssthresh, "cwnd = ssthresh once the reduction ends");
    assert_eq!((p.c.prr_delivered, p.c.prr_out, p.c.recover_fs), (11_584, 4_344, 13_032));
    assert_eq!(p.c.counters.fast_retransmits, 0, "no retransmission for a mark (RFC 3168 §6.1.2)");
    assert_eq!(p.c.counters.retx_pkts, 0);
}

// tests RFC 3168 §6.1.2-6.1.3 across windows (`ecn_cut = "prr"`): the CWR segment stops the echo;
// a CE mark on a segment sent after the reduction began (beyond `recover`) is a new window of
// data and cuts again.
//
// Hand computation, continuing from `ecn_prr_reduction_ack_by_ack` (cwnd = ssthresh = 6516,
// Open, segments 10-13 outstanding, SND.NXT = 1 + 14 MSS):
// ACK 10 (segment 10 carried CWR: no ECE): congestion avoidance, cwnd += ⌊1448²/6516⌋ = 321 →
//   6837; pipe 3 MSS = 4344: segment 14 goes.
// ACK 11 (no ECE): cwnd += ⌊2096704/6837⌋ = 306 → 7143; pipe 4344: segment 15 goes.
// ACK 12 (segment 12 was CE: ECE; SND.UNA = 1 + 13 MSS > recover = 1 + 10 MSS): avoidance first,
//   cwnd += ⌊2096704/7143⌋ = 293 → 7436; then a new reduction: FlightSize = pipe = segments 13-15 =
//   4344, ssthresh = max(2172, 2 MSS) = 2896, RecoverFS = 4344, recover = 1 + 16 MSS; cwnd − pipe
//   = 3092: segments 16 (with CWR) and 17 go.
#[test]
fn ecn_cwr_stops_the_echo_and_a_mark_in_the_next_window_cuts_again() {
    use CaState::{Cwr, Open};
    let (mut p, steps) = first_window_with_ce(EcnCut::Prr);
    let mut pending: Vec<SimPacket> = steps.into_iter().flat_map(|(_, out)| out).collect();
    assert_eq!(pending.iter().map(seg_no).collect::<Vec<_>>(), [10, 11, 12, 13]);
    pending[2].ecn = Ecn::Ce; // segment 12
    assert!(p.s.ece_pending, "the receiver still echoes: no CWR seen yet");
    let (a10, _) = step(&mut p, &pending[0]);
    assert!(!p.s.ece_pending, "CWR ends the echo");
    assert_eq!(a10, s(false, 6_837, 5_792, Open, &[(14, false)]));
    let (a11, _) = step(&mut p, &pending[1]);
    assert_eq!(a11, s(false, 7_143, 5_792, Open, &[(15, false)]));
    let (a12, _) = step(&mut p, &pending[2]);
    assert_eq!(a12, s(true, 7_436, 7_240, Cwr, &[(16, true), (17, false)]));
    assert_eq!((p.c.w.ssthresh, p.c.recover_fs, p.c.recover), (2_896, 4_344, 1 + 16 * MSS));
}

// tests `ecn_cut = "immediate"` (RFC 3168 §6.1.2 read literally): cwnd = ssthresh on the ACK
// that carries ECE, no CWR state, the rest of the window's ECE ACKs ignored.
//
// Hand computation (bytes): ACK 0: slow start to 15928, then ssthresh = 13032/2 = 6516 and
// cwnd = 6516 at once; pipe 9 MSS: nothing sent, and recover = 1 + 10 MSS. ACKs 1-9 (all ECE, at
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

// tests `ecn_cut = "prr"` with `recovery = "classic"`: no PRR, so CWR holds cwnd where it was
// (no RFC 6582 deflation either, whatever an ACK delivers) and the cut to ssthresh comes when the
// window ends. With delayed ACKs (every second segment), each ACK delivers 2 MSS.
// ACK of 0-1 (ECE): slow start, cwnd 10 → 11 MSS = 15928; FlightSize = pipe = 8 MSS: ssthresh
//   4 MSS = 5792; CWR; cwnd − pipe = 3 MSS: 10 (with CWR), 11, 12 go.
// ACKs of 2-3, 4-5, 6-7: cwnd stays 15928; pipe 9 MSS after each: two new segments each.
// ACK of 8-9 = recover: cwnd = ssthresh = 5792; pipe = 10-18 = 9 MSS: nothing.
#[test]
fn ecn_prr_cut_with_classic_recovery_holds_cwnd_until_the_window_ends() {
    let cfg = TcpConfig { ecn: true, recovery: Recovery::Classic, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let mut burst = p.client_sends();
    burst[0].ecn = Ecn::Ce;
    let mut got = Vec::new();
    for pair in burst.chunks(2) {
        let acks = p.deliver_to_server(pair);
        assert_eq!(acks.len(), 1, "an ACK every second segment");
        assert!(flags(&acks[0]) & F::ECE != 0);
        let out = p.deliver_to_client(&acks);
        got.push((p.c.w.cwnd, p.c.pipe(), p.c.ca, out.iter().map(|s| (seg_no(s), flags(s) & F::CWR != 0)).collect::<Vec<_>>()));
    }
    use CaState::{Cwr, Open};
    let want = vec![
        (15_928, 15_928, Cwr, vec![(10, true), (11, false), (12, false)]),
        (15_928, 15_928, Cwr, vec![(13, false), (14, false)]),
        (15_928, 15_928, Cwr, vec![(15, false), (16, false)]),
        (15_928, 15_928, Cwr, vec![(17, false), (18, false)]),
        (5_792, 13_032, Open, vec![]),
    ];
    assert_eq!(got, want);
}
