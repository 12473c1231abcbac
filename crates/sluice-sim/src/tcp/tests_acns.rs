//! ACNS's endpoint half (docs/tcp.md, "ACNS endpoint"): the trend rule and fallback history from
//! hand-checked numbers, then scripted exchanges between two endpoints wired directly.
//!
//! Every exchange: SMSS 1448 B, an initial window of 10 segments, NewReno, unlimited data, an ACK
//! per segment (`delack = "off"`), segments delivered one at a time and in order unless said.
//! Segment `k` starts at data offset `1 + k·1448`. "N MSS" = N·1448 bytes.

use super::acns::{fallback_target, trend_command, trend_weights, w_trend, AcnsConfig, AcnsEcho, AcnsHist, Command};
use super::cc::{AckSample, CaState, CongestionControl, Cubic, CwndState};
use super::tests::{flags, seg_seq, Pair, MSS};
use super::*;
use crate::packet::SimPacket;
use sluice_core::packet::{tcp_flags as F, Ecn};
use sluice_core::{Dur, Time};
use Command::{Fallback as C3, Freeze as C2, Normal as C1};

fn cmi(s: &SimPacket) -> bool {
    s.seg_bits().ip_reserved_flag()
}

fn cmt(s: &SimPacket) -> bool {
    s.seg_bits().tcp_reserved() & 0x08 != 0
}

/// The segment number of a data segment (the client's ISS is 1000, data starts one later).
fn seg_no(s: &SimPacket) -> u64 {
    (seg_seq(s) as u64 - 1001) / MSS
}

fn acns(echo: AcnsEcho) -> TcpConfig {
    TcpConfig { ecn: true, delack: DelAck::Off, acns: AcnsConfig { enabled: true, echo, ..AcnsConfig::default() }, ..TcpConfig::default() }
}

fn rfc3168() -> TcpConfig {
    TcpConfig { ecn: true, delack: DelAck::Off, ..TcpConfig::default() }
}

fn plain() -> TcpConfig {
    TcpConfig { delack: DelAck::Off, ..TcpConfig::default() }
}

/// The handshake between a client and a server with their own options; returns the pair (the
/// client with unlimited data), the SYN and the SYN-ACK.
fn pair(c: TcpConfig, s: TcpConfig) -> (Pair, SimPacket, SimPacket) {
    let ca = SockAddr { addr: 1, port: 1000 };
    let sa = SockAddr { addr: 2, port: 80 };
    let mut p = Pair { c: Endpoint::client(std::sync::Arc::new(c), ca, sa, 1_000, 0), s: Endpoint::server(std::sync::Arc::new(s), sa, ca, 5_000, 0), now: Time::ZERO };
    let mut out = Vec::new();
    p.c.connect(p.now, &mut out);
    let syn = out.pop().unwrap();
    p.now += Dur::from_millis(10);
    p.s.on_segment(&syn, p.now, &mut out);
    let synack = out.pop().unwrap();
    p.now += Dur::from_millis(10);
    p.c.on_segment(&synack, p.now, &mut out);
    let ack = out.remove(0);
    p.now += Dur::from_millis(10);
    p.s.on_segment(&ack, p.now, &mut out);
    assert_eq!((p.c.state, p.s.state), (ConnState::Established, ConnState::Established));
    p.c.app_send(None, 0);
    (p, syn, synack)
}

/// Deliver `seg` to the server and its one ACK to the client; returns the ACK and what the
/// client sent in answer.
fn step(p: &mut Pair, seg: &SimPacket) -> (SimPacket, Vec<SimPacket>) {
    let acks = p.deliver_to_server(std::slice::from_ref(seg));
    assert_eq!(acks.len(), 1, "an ACK per segment");
    let out = p.deliver_to_client(&acks);
    (acks[0].clone(), out)
}

/// Makes a segment carry a router's command: I4 → I6 (freeze) keeps CMI; `fallback` clears it
/// (I7).
fn command(seg: &mut SimPacket, fallback: bool) {
    seg.tos.set_ecn(Ecn::Ce);
    if let crate::packet::Transport::Tcp { bits, .. } = &mut seg.transport {
        bits.set_ip_reserved_flag(!fallback);
    }
}

// ---- the trend rule and the history, by hand

// tests the trend weights e^{−i/σ}/X for σ = 3, w_count = 10: X = Σ e^{−i/3} (i = 1..10) =
// 0.7165 + 0.5134 + 0.3679 + 0.2636 + 0.1889 + 0.1353 + 0.0970 + 0.0695 + 0.0498 + 0.0357 =
// 2.4376, so w_1 = 0.7165/2.4376 = 0.2940 … w_10 = 0.0357/2.4376 = 0.0146.
#[test]
fn trend_weights_sigma_3() {
    let w = trend_weights(10, 3.0);
    let want = [0.2940, 0.2106, 0.1509, 0.1081, 0.0775, 0.0555, 0.0398, 0.0285, 0.0204, 0.0146];
    for (i, (g, e)) in w.iter().zip(want).enumerate() {
        assert!((g - e).abs() < 5e-5, "weight {}: {g} vs {e}", i + 1);
    }
    assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
}

// tests eqn. 5 and the thresholds th_L1 = 1.8413, th_L2 = 2.1587 with the weights above:
// [3,3,2,1×7]: 3·(0.2940 + 0.2106) + 2·0.1509 + 1·(1 − 0.6555) = 1.5138 + 0.3018 + 0.3445 =
//   2.1601 ≥ 2.1587 → 3;
// [3,2,2,2,2,1×5]: 3·0.2940 + 2·(0.2106 + 0.1509 + 0.1081 + 0.0775) + 1·(1 − 0.8411) = 0.8820 +
//   1.0942 + 0.1589 = 2.1351 → 2;
// [2,2,2,1×7]: 2·0.6555 + 0.3445 = 1.6555 → 1; all 1 → 1.0 → 1; all 2 → 2.0 → 2 (2.0 < 2.1587);
// empty → 3. Fewer entries use only their own weights: [2,1] = (2·0.7165 + 0.5134)/(1.2299) =
// 1.5826.
#[test]
fn trend_rule_hand_values() {
    let cfg = AcnsConfig::default();
    let p = |v: &[u8]| v.iter().map(|&c| [C1, C2, C3][c as usize - 1]).collect::<Vec<_>>();
    let cases: [(&[u8], f64, Command); 5] = [
        (&[3, 3, 2, 1, 1, 1, 1, 1, 1, 1], 2.1601, C3),
        (&[3, 2, 2, 2, 2, 1, 1, 1, 1, 1], 2.1351, C2),
        (&[2, 2, 2, 1, 1, 1, 1, 1, 1, 1], 1.6555, C1),
        (&[1; 10], 1.0, C1),
        (&[2; 10], 2.0, C2),
    ];
    for (v, w, c) in cases {
        let got = w_trend(p(v), cfg.sigma).unwrap();
        assert!((got - w).abs() < 5e-5, "{v:?}: {got} vs {w}");
        assert_eq!(trend_command(p(v), &cfg), c, "{v:?}");
    }
    assert!((w_trend(p(&[2, 1]), 3.0).unwrap() - 1.5826).abs() < 5e-5);
    assert_eq!(w_trend(Vec::new(), 3.0), None);
    assert_eq!(trend_command(Vec::new(), &cfg), C3, "a loss before any command: the algorithm's own decrease");
}

// tests the fallback history: samples 10, 11, 12, 13 segments and cwnd 14 → 13 (the newest below
// cwnd); at the next command ACK cwnd is 13 (held), its sample 13 joins, and the newest strictly
// below 13 is 12. No sample below cwnd: none.
#[test]
fn fallback_walks_back_through_the_history() {
    let mut h: Vec<u64> = [10, 11, 12, 13].iter().map(|k| k * MSS).collect();
    assert_eq!(fallback_target(h.iter(), 14 * MSS), Some(13 * MSS));
    h.push(13 * MSS);
    assert_eq!(fallback_target(h.iter(), 13 * MSS), Some(12 * MSS));
    assert_eq!(fallback_target(h.iter(), 10 * MSS), None);
}

// ---- negotiation

// tests the handshake all four ways: ACNS SYN = SYN + ECE + CWR + CMT, ACNS SYN-ACK = SYN + ACK +
// ECE + CMT; an RFC 3168 server answers an ACNS SYN as an ECN-setup SYN (ECE, no CMT) and the
// ACNS client runs plain RFC 3168; a server without ECN answers neither, and nothing is ECT; an
// ACNS server answers an RFC 3168 SYN as RFC 3168.
#[test]
fn negotiation_four_ways() {
    // ACNS both ends.
    let (mut p, syn, synack) = pair(acns(AcnsEcho::Once), acns(AcnsEcho::Once));
    assert_eq!(flags(&syn), F::SYN | F::ECE | F::CWR);
    assert!(cmt(&syn) && !cmi(&syn) && syn.tos.ecn() == Ecn::NotEct);
    assert_eq!(flags(&synack), F::SYN | F::ACK | F::ECE);
    assert!(cmt(&synack) && synack.tos.ecn() == Ecn::NotEct);
    assert!(p.c.acns().is_some() && p.s.acns().is_some() && p.c.ecn_ok && p.s.ecn_ok);
    let burst = p.client_sends();
    assert_eq!(burst.iter().filter(|s| cmi(s)).count(), 1, "one segment asks the routers");

    // ACNS client, RFC 3168 server.
    let (mut p, syn, synack) = pair(acns(AcnsEcho::Once), rfc3168());
    assert!(cmt(&syn));
    assert_eq!(flags(&synack), F::SYN | F::ACK | F::ECE);
    assert!(!cmt(&synack), "an RFC 3168 SYN-ACK");
    assert!(p.c.ecn_ok && p.c.acns().is_none() && p.s.ecn_ok);
    let burst = p.client_sends();
    assert!(burst.iter().all(|s| s.tos.ecn() == Ecn::Ect0 && !cmi(s)), "plain ECN mode: I2 only");

    // ACNS client, server without ECN.
    let (mut p, _, synack) = pair(acns(AcnsEcho::Once), plain());
    assert_eq!(flags(&synack), F::SYN | F::ACK);
    assert!(!cmt(&synack) && !p.c.ecn_ok && p.c.acns().is_none());
    assert!(p.client_sends().iter().all(|s| s.tos.ecn() == Ecn::NotEct && !cmi(s)), "no ECN: I1");

    // RFC 3168 client, ACNS server.
    let (mut p, syn, synack) = pair(rfc3168(), acns(AcnsEcho::Once));
    assert!(!cmt(&syn));
    assert_eq!(flags(&synack), F::SYN | F::ACK | F::ECE);
    assert!(!cmt(&synack) && p.s.acns().is_none() && p.s.ecn_ok && p.c.ecn_ok);
    // The server is an RFC 3168 receiver: a CE mark is echoed on every ACK until CWR.
    let mut burst = p.client_sends();
    burst[0].tos.set_ecn(Ecn::Ce);
    let acks = p.deliver_to_server(&burst[..3]);
    assert!(acks.iter().all(|a| flags(a) & F::ECE != 0 && !cmt(a)));
}

// ---- marking

// tests I4 marking: the segment after which flight ≥ min(cwnd, rwnd) is marked, one at a time,
// never a retransmission; pure ACKs Not-ECT.
// First window (cwnd 10 MSS): segments 0-8 I2, segment 9 (flight 10 MSS) I4. Each ACK of 0-8 grows
// cwnd by 1 MSS (slow start) and sends two segments, the second filling the window, but segment 9
// is still outstanding: no mark. The ACK of 9 is the command ACK (T1: normal): cwnd 19 → 20 MSS
// (the sample, 19 MSS, before), then segments 28, 29 go and 29 (flight 20 MSS) is the next I4.
#[test]
fn one_marked_segment_per_window() {
    let (mut p, _, _) = pair(acns(AcnsEcho::Once), acns(AcnsEcho::Once));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    let marks: Vec<u64> = burst.iter().filter(|s| cmi(s)).map(seg_no).collect();
    assert_eq!(marks, [9]);
    assert!(burst.iter().all(|s| s.tos.ecn() == Ecn::Ect0), "I2 / I4: ECT(0), nonce 0");
    let mut sent = Vec::new();
    for seg in &burst[..9] {
        let (ack, out) = step(&mut p, seg);
        assert_eq!(ack.tos.ecn(), Ecn::NotEct, "pure ACKs are Not-ECT");
        assert!(!cmi(&ack) && flags(&ack) & F::ECE == 0 && !cmt(&ack), "T1");
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|s| !cmi(s)), "segment 9 is still outstanding");
        sent.extend(out);
    }
    assert_eq!(p.c.w.cwnd, 19 * MSS);
    assert_eq!(p.c.acns().unwrap().marked(), Some((1 + 9 * MSS, 1 + 10 * MSS)));
    let (_, out) = step(&mut p, &burst[9]);
    let a = p.c.acns().unwrap();
    assert_eq!((a.counts.normal, a.counts.freeze, a.counts.fallback), (1, 0, 0));
    assert_eq!(a.p().collect::<Vec<_>>(), [C1]);
    assert_eq!(a.history().cloned().collect::<Vec<_>>(), [19 * MSS], "cwnd before the command");
    assert_eq!(p.c.w.cwnd, 20 * MSS);
    assert_eq!(out.iter().map(|s| (seg_no(s), cmi(s))).collect::<Vec<_>>(), [(28, false), (29, true)]);
    assert_eq!(p.c.acns().unwrap().counts.marked, 2);
}

// tests that a retransmitted marked segment takes its window's command with it: segment 9 (I4) is
// lost; segments 10-12 bring three duplicate ACKs, segment 9 goes again (Not-ECT, no CMI), the
// mark is gone, and the ACK that finally covers it is no command ACK.
#[test]
fn a_retransmitted_mark_delivers_no_command() {
    let (mut p, _, _) = pair(acns(AcnsEcho::Once), acns(AcnsEcho::Once));
    let burst = p.client_sends();
    let mut later = Vec::new();
    for seg in &burst[..9] {
        later.extend(step(&mut p, seg).1);
    }
    let mut retx = Vec::new();
    for seg in &later[..3] {
        retx.extend(step(&mut p, seg).1);
    }
    assert_eq!(p.c.ca, CaState::Recovery);
    let r = retx.iter().find(|s| seg_no(s) == 9).expect("segment 9 retransmitted");
    assert!(r.tos.ecn() == Ecn::NotEct && !cmi(r), "a retransmission is I1");
    let a = p.c.acns().unwrap();
    assert!(a.marked().is_none());
    assert_eq!(a.counts.trend_decrease, 1, "a loss with P empty: C_trend = 3");
    let (ack, _) = step(&mut p, r);
    assert!(flags(&ack) & F::ECE == 0);
    let a = p.c.acns().unwrap();
    assert_eq!(a.counts.normal + a.counts.freeze + a.counts.fallback + a.counts.in_recovery, 0, "no command ACK for that window");
}

// ---- commands

// tests a router's freeze (I6 on the marked segment) under `echo = "once"`: the receiver answers
// T5 (ECE + CMT) on that segment's ACK only; the command ACK keeps cwnd at 19 MSS (that ACK's
// slow-start increase not applied), ssthresh = 19 MSS, no CWR (a freeze); every later ACK leaves
// cwnd at 19 MSS until the next command ACK (the ACK of segment 28, the window's I4, T1), which
// ends the hold and grows cwnd in avoidance: 27512 + ⌊1448²/27512⌋ = 27512 + 76 = 27588.
#[test]
fn freeze_holds_cwnd_until_the_next_command_ack() {
    let (mut p, _, _) = pair(acns(AcnsEcho::Once), acns(AcnsEcho::Once));
    let mut burst = p.client_sends();
    command(&mut burst[9], false);
    let mut sent = Vec::new();
    for seg in &burst[..9] {
        sent.extend(step(&mut p, seg).1);
    }
    let (ack, out) = step(&mut p, &burst[9]);
    assert_eq!(flags(&ack) & (F::ECE | F::CWR), F::ECE);
    assert!(cmt(&ack), "T5");
    assert_eq!((p.c.w.cwnd, p.c.w.ssthresh), (19 * MSS, 19 * MSS));
    assert!(p.c.acns().unwrap().held());
    assert_eq!(p.c.acns().unwrap().counts.freeze, 1);
    assert_eq!(out.iter().map(|s| (seg_no(s), cmi(s), flags(s) & F::CWR != 0)).collect::<Vec<_>>(), [(28, true, false)]);
    sent.extend(out);
    assert_eq!(p.s.acns().unwrap().counts.rx_freeze, 1);
    // Segments 10-27: cwnd held, one segment out per ACK, no echo.
    for seg in sent.clone().iter().take_while(|s| seg_no(s) < 28) {
        let (ack, out) = step(&mut p, seg);
        assert!(flags(&ack) & F::ECE == 0, "`once`: T5 on one ACK only");
        assert_eq!(p.c.w.cwnd, 19 * MSS, "held");
        assert_eq!(out.len(), 1);
        sent.extend(out);
    }
    let s28 = sent.iter().find(|s| seg_no(s) == 28).cloned().unwrap();
    step(&mut p, &s28);
    let a = p.c.acns().unwrap();
    assert!(!a.held());
    assert_eq!((a.counts.normal, a.counts.freeze), (1, 1));
    assert_eq!(a.p().collect::<Vec<_>>(), [C1, C2]);
    assert_eq!(p.c.w.cwnd, 27_588);
}

/// A connection in avoidance at `cwnd` segments with the history `hist` (segments).
fn in_avoidance(cfg: TcpConfig, cwnd: u64, hist: &[u64]) -> Pair {
    let (mut p, _, _) = pair(cfg.clone(), cfg);
    p.c.w.cwnd = cwnd * MSS;
    p.c.w.ssthresh = cwnd * MSS;
    let a = p.c.acns.as_deref_mut().unwrap();
    a.hist.extend(hist.iter().map(|k| k * MSS));
    p
}

/// Deliver the segments of `queue` in order, with everything the client sends appended, until
/// the first marked (I4) segment has been delivered and its ACK, the command ACK, handled; the
/// marked segment is first turned I7 (a router's fallback, `Some(true)`), I6 (freeze,
/// `Some(false)`) or left as it is (`None`: T1). Returns the client's segments sent meanwhile and
/// what is still queued.
fn until_command_ack(p: &mut Pair, mut queue: std::collections::VecDeque<SimPacket>, cmd: Option<bool>) -> (Vec<SimPacket>, std::collections::VecDeque<SimPacket>) {
    let mut sent = Vec::new();
    while let Some(mut seg) = queue.pop_front() {
        let marked = cmi(&seg);
        if let (true, Some(fallback)) = (marked, cmd) {
            command(&mut seg, fallback);
        }
        let (ack, out) = step(p, &seg);
        sent.extend(out.iter().cloned());
        queue.extend(out);
        if marked {
            assert_eq!(flags(&ack) & F::ECE != 0, cmd.is_some(), "T5/T6 for a command, T1 without");
            assert_eq!(cmt(&ack), cmd == Some(false), "CMT for a freeze only");
            return (sent, queue);
        }
    }
    panic!("no marked segment");
}

/// [`until_command_ack`] with the marked segment turned I7: a fallback (T6).
fn until_fallback(p: &mut Pair, queue: std::collections::VecDeque<SimPacket>) -> (Vec<SimPacket>, std::collections::VecDeque<SimPacket>) {
    until_command_ack(p, queue, Some(true))
}

// tests the fallback: history 10, 11, 12, 13 MSS, cwnd 14 MSS in avoidance. The window of 14
// segments, its 14th marked and turned I7: the ACKs of segments 0-12 grow cwnd (NewReno
// avoidance, 1448²/cwnd each) to 14.9 MSS, the command ACK takes that as its sample and falls
// back to the newest sample below it, 13 MSS; ssthresh = 13 MSS; CWR (`once`: after a fallback)
// on the next new segment. The next window's command ACK, I7 again, samples the held 13 MSS and
// falls back to 12 MSS.
#[test]
fn fallback_returns_to_the_newest_smaller_window() {
    let mut p = in_avoidance(acns(AcnsEcho::Once), 14, &[10, 11, 12, 13]);
    let w = p.client_sends();
    assert_eq!(w.len(), 14);
    let (sent, queue) = until_fallback(&mut p, w.into());
    assert_eq!((p.c.w.cwnd, p.c.w.ssthresh), (13 * MSS, 13 * MSS));
    assert!(p.c.acns().unwrap().held());
    assert!(sent.iter().all(|s| flags(s) & F::CWR == 0), "nothing has left since the fallback");
    assert!(p.c.cwr_pending);
    let (sent, _) = until_fallback(&mut p, queue);
    assert_eq!(flags(&sent[0]) & F::CWR, F::CWR, "the first new segment after the fallback");
    assert_eq!(sent.iter().filter(|s| flags(s) & F::CWR != 0).count(), 1);
    assert_eq!((p.c.w.cwnd, p.c.w.ssthresh), (12 * MSS, 12 * MSS));
    let a = p.c.acns().unwrap();
    assert_eq!(a.counts.fallback, 2);
    assert_eq!(a.p().collect::<Vec<_>>(), [C3, C3]);
    let h: Vec<u64> = a.history().map(|b| b / MSS).collect();
    assert_eq!(&h[..5], [10, 11, 12, 13, 14], "the first command ACK's sample: 14.9 MSS");
    assert_eq!(a.history().last(), Some(&(13 * MSS)));
}

// tests `echo = "once"` against `"latch"` with a legacy CE mark (an RFC 3168 AQM sets ECN 11 on an
// I2 segment: I7) on segment 3 of the first window:
// once: T6 on the ACK of segment 3 only; the sender keeps the most severe code since the last
//   command ACK and applies it at the command ACK (segment 9's): a fallback (no smaller sample:
//   cwnd stays 19 MSS, held), then CWR.
// latch: T6 on the ACKs of segments 3-9 and after, until a data segment with CWR arrives; the
//   command ACK's own code is the command: the same fallback, CWR on the next new segment, and
//   the echo stops with it.
#[test]
fn once_and_latch_echo() {
    for echo in [AcnsEcho::Once, AcnsEcho::Latch] {
        let (mut p, _, _) = pair(acns(echo), acns(echo));
        let mut burst = p.client_sends();
        command(&mut burst[3], true);
        assert!(!cmi(&burst[3]), "I7");
        let mut sent = Vec::new();
        let mut echoed = Vec::new();
        for (k, seg) in burst.iter().enumerate() {
            let (ack, out) = step(&mut p, seg);
            if flags(&ack) & F::ECE != 0 {
                assert!(!cmt(&ack), "T6");
                echoed.push(k);
            }
            sent.extend(out);
        }
        match echo {
            AcnsEcho::Once => assert_eq!(echoed, [3]),
            AcnsEcho::Latch => assert_eq!(echoed, [3, 4, 5, 6, 7, 8, 9]),
        }
        let a = p.c.acns().unwrap();
        assert_eq!((a.counts.normal, a.counts.freeze, a.counts.fallback), (0, 0, 1), "{echo:?}");
        assert_eq!((p.c.w.cwnd, p.c.w.ssthresh), (19 * MSS, 19 * MSS), "{echo:?}: no smaller sample");
        let cwr: Vec<&SimPacket> = sent.iter().filter(|s| flags(s) & F::CWR != 0).collect();
        assert_eq!(cwr.len(), 1, "{echo:?}");
        assert_eq!(seg_no(cwr[0]), 28, "{echo:?}: the first segment after the command ACK");
        // Segments 10-28 reach the receiver: the echo stops (latch) at the CWR segment.
        let rest: Vec<SimPacket> = sent.iter().filter(|s| seg_no(s) <= 28).cloned().collect();
        let mut last_ece = None;
        for seg in &rest {
            let (ack, _) = step(&mut p, seg);
            if flags(&ack) & F::ECE != 0 {
                last_ece = Some(seg_no(seg));
            }
        }
        match echo {
            AcnsEcho::Once => assert_eq!(last_ece, None),
            AcnsEcho::Latch => assert_eq!(last_ece, Some(27), "the ACK of the CWR segment is the first without T6"),
        }
    }
}

// tests the trend rule at a fast retransmit with P = [1, 1, 1] (W_trend 1.0 → C_trend 1, freeze):
// segment 2 is lost; the ACKs of 0 and 1 grow cwnd to 12 MSS; the third duplicate ACK starts
// recovery with ssthresh = cwnd = 12 MSS (not NewReno's FlightSize/2 = 5.5 MSS), pushes 2 into P
// and holds the window; the recovery still retransmits segment 2.
// With P = [3, 3, 2] (W_trend = (3·0.7165 + 3·0.5134 + 2·0.3679)/1.5978 = 2.7697 → 3) the same
// loss is NewReno's own: ssthresh = FlightSize/2, 3 pushed.
#[test]
fn trend_rule_on_fast_retransmit() {
    for (p0, want_ssthresh, push) in [(vec![C1, C1, C1], 12 * MSS, C2), (vec![C3, C3, C2], 0, C3)] {
        let (mut p, _, _) = pair(acns(AcnsEcho::Once), acns(AcnsEcho::Once));
        p.c.acns.as_deref_mut().unwrap().p.extend(p0.iter().cloned());
        let burst = p.client_sends();
        let mut out = Vec::new();
        for (k, seg) in burst.iter().enumerate() {
            if k == 2 {
                continue;
            }
            out.extend(step(&mut p, seg).1);
            if p.c.ca == CaState::Recovery {
                break;
            }
        }
        assert_eq!(p.c.ca, CaState::Recovery);
        assert!(out.iter().any(|s| seg_no(s) == 2), "segment 2 retransmitted");
        let a = p.c.acns().unwrap();
        assert_eq!(a.p().next(), Some(push));
        if push == C2 {
            assert_eq!(p.c.w.ssthresh, want_ssthresh);
            assert!(a.held());
            assert_eq!(a.counts.trend_freeze, 1);
        } else {
            // FlightSize at the third duplicate: the ACKs of 0 and 1 sent 10-13; the first two
            // duplicates (SACKing 3, 4) let pipe fall below cwnd and sent 14, 15; at the third,
            // 14 segments outstanding (2-15) − 3 SACKed − 1 lost = 10 MSS; ssthresh = 5 MSS.
            assert_eq!(p.c.w.ssthresh, 5 * MSS);
            assert!(!a.held());
            assert_eq!(a.counts.trend_decrease, 1);
        }
    }
}

// tests that command ACKs in loss recovery enter P and are not applied: the marked segment 9
// arrives (turned I6: the receiver answers T5) while segment 2 is lost; the ACK of segment 2's
// retransmission is the command ACK, in recovery: it pushes 2 into P and leaves the window to
// the recovery (no hold).
#[test]
fn command_acks_in_recovery_are_not_applied() {
    let (mut p, _, _) = pair(acns(AcnsEcho::Once), acns(AcnsEcho::Once));
    let mut burst = p.client_sends();
    command(&mut burst[9], false);
    let mut sent = Vec::new();
    for (k, seg) in burst.iter().enumerate() {
        if k != 2 {
            sent.extend(step(&mut p, seg).1);
        }
    }
    assert_eq!(p.c.ca, CaState::Recovery);
    assert_eq!(p.c.acns().unwrap().counts.in_recovery, 0, "segment 2 holds the cumulative ACK back");
    // The retransmitted segment 2 fills the hole: its ACK covers segment 9 (a partial ACK: the
    // recovery goes on).
    let r = sent.iter().find(|s| seg_no(s) == 2).cloned().unwrap();
    step(&mut p, &r);
    assert_eq!(p.c.ca, CaState::Recovery);
    let a = p.c.acns().unwrap();
    assert_eq!((a.counts.in_recovery, a.counts.freeze), (1, 0));
    assert_eq!(a.p().collect::<Vec<_>>(), [C2, C3], "the loss's trend decision (P empty: 3), then the freeze");
    assert!(!a.held());
}

// ---- CUBIC's hook

fn cubic_ack(c: &mut Cubic, w: &mut CwndState, now: Time) {
    let s = AckSample { bytes_acked: MSS, rtt: None, min_rtt: None, srtt: None, in_flight: 0, ece: false, ack: 0, snd_nxt: 0, cwnd_limited: true };
    c.on_ack(w, &s, now);
}

// tests CUBIC's freeze (docs/tcp.md, "ACNS endpoint"): two CUBIC instances in avoidance at 50
// segments after a loss at 60 (W_max 60), ACKed every 10 ms. B is frozen for 2 s after 1 s and
// gets no ACK meanwhile; released, it must go on exactly as A does 2 s earlier: B's window at
// 1 s + 2 s + t equals A's at 1 s + t (the epoch start moved by the 2 s held).
#[test]
fn cubic_freeze_pauses_the_epoch() {
    let cfg = CubicConfig { hystart: Hystart::Off, ..CubicConfig::default() };
    let mk = || {
        let mut c = Cubic::new(cfg, true);
        let mut w = CwndState { cwnd: 60 * MSS, ssthresh: u64::MAX, smss: MSS as u32 };
        w.ssthresh = c.ssthresh_after_loss(&w, 60 * MSS, super::cc::LossCause::DupAcks, Time::ZERO);
        w.cwnd = w.ssthresh;
        (c, w)
    };
    let (mut a, mut wa) = mk();
    let (mut b, mut wb) = mk();
    assert_eq!(wa.cwnd, 42 * MSS, "⌊60·0.7⌋ = 42");
    let tick = Dur::from_millis(10);
    let mut t = Time::ZERO;
    for _ in 0..100 {
        t += tick;
        cubic_ack(&mut a, &mut wa, t);
        cubic_ack(&mut b, &mut wb, t);
    }
    assert_eq!(wa.cwnd, wb.cwnd);
    b.on_acns_hold(false, t);
    let held = Dur::from_secs(2);
    b.on_acns_release(t + held);
    let mut trace_a = Vec::new();
    let mut trace_b = Vec::new();
    let mut ta = t;
    for _ in 0..300 {
        ta += tick;
        cubic_ack(&mut a, &mut wa, ta);
        cubic_ack(&mut b, &mut wb, ta + held);
        trace_a.push(wa.cwnd);
        trace_b.push(wb.cwnd);
    }
    assert_eq!(trace_a, trace_b);
    assert!(wa.cwnd > 50 * MSS, "the window grew meanwhile");
    // Without the shift, the 2 s would count as epoch time: B would be ahead.
    let (mut c, mut wc) = mk();
    let mut tc = Time::ZERO;
    for _ in 0..100 {
        tc += tick;
        cubic_ack(&mut c, &mut wc, tc);
    }
    for _ in 0..300 {
        tc += tick;
        cubic_ack(&mut c, &mut wc, tc + held);
    }
    assert!(wc.cwnd > wb.cwnd, "an unpaused epoch jumps ahead");
}

// tests CUBIC's fallback: the epoch ends, W_max is kept, and the next growth ACK starts an epoch
// from the window fallen back to: K = ∛((W_max − cwnd)/C) = ∛((60 − 40)/0.4) = ∛50 = 3.6840 s.
#[test]
fn cubic_fallback_ends_the_epoch_and_keeps_w_max() {
    let mut c = Cubic::new(CubicConfig { hystart: Hystart::Off, ..CubicConfig::default() }, true);
    let mut w = CwndState { cwnd: 60 * MSS, ssthresh: u64::MAX, smss: MSS as u32 };
    w.ssthresh = c.ssthresh_after_loss(&w, 60 * MSS, super::cc::LossCause::DupAcks, Time::ZERO);
    w.cwnd = 45 * MSS;
    w.ssthresh = 45 * MSS;
    cubic_ack(&mut c, &mut w, Time(1_000_000));
    c.on_acns_hold(true, Time(2_000_000));
    w.cwnd = 40 * MSS;
    w.ssthresh = 40 * MSS;
    c.on_acns_release(Time(3_000_000));
    cubic_ack(&mut c, &mut w, Time(4_000_000));
    let m = c.metrics();
    let get = |k: &str| m.as_slice().iter().find(|(n, _)| *n == k).unwrap().1;
    assert_eq!(get("w_max"), 60.0);
    assert!((get("k") - 3.6840).abs() < 1e-4, "k = {}", get("k"));
}

// tests `hist = "segment"`: a sample each time ⌊cwnd/SMSS⌋ changes (the window before the change):
// slow start from 10 MSS through the ACKs of segments 0-8 (cwnd 11 … 19 MSS) samples 10 … 18 MSS.
#[test]
fn segment_history_samples_each_whole_segment() {
    let mut cfg = acns(AcnsEcho::Once);
    cfg.acns.hist = AcnsHist::Segment;
    let (mut p, _, _) = pair(cfg.clone(), cfg);
    let burst = p.client_sends();
    for seg in &burst[..10] {
        step(&mut p, seg);
    }
    // The ACK of segment k looks at cwnd as the ACK before it left it: 10 + k MSS.
    let h: Vec<u64> = p.c.acns().unwrap().history().map(|b| b / MSS).collect();
    assert_eq!(h, [10, 11, 12, 13, 14, 15, 16, 17, 18]);
}

// tests the echo under delayed ACKs (`delack = "on"`, every second segment, `echo = "once"`): an
// ACK echoes the most severe command among the segments it covers. Segments 0-1 plain → T1;
// 2 I6, 3 I7 → T6 (fallback outranks freeze); 4 I7, 5 I6 → T6 (order does not matter);
// 6 I6, 7 I2 → T5; 8-9 plain → T1 (`once`: nothing carried over).
#[test]
fn delayed_ack_echoes_the_most_severe_command() {
    let mut cfg = acns(AcnsEcho::Once);
    cfg.delack = DelAck::On { count: 2, timeout: Dur::from_millis(200) };
    let (mut p, _, _) = pair(cfg.clone(), cfg);
    let mut burst = p.client_sends();
    for (k, fallback) in [(2, false), (3, true), (4, true), (5, false), (6, false)] {
        command(&mut burst[k], fallback);
    }
    let mut codes = Vec::new();
    for pairs in burst.chunks(2) {
        let acks = p.deliver_to_server(pairs);
        assert_eq!(acks.len(), 1, "one ACK per two segments");
        codes.push(match (flags(&acks[0]) & F::ECE != 0, cmt(&acks[0])) {
            (false, false) => 1,
            (true, true) => 5,
            (true, false) => 6,
            _ => panic!("CMT without ECE"),
        });
    }
    assert_eq!(codes, [1, 6, 6, 5, 1]);
    let a = p.s.acns().unwrap();
    assert_eq!((a.counts.rx_freeze, a.counts.rx_fallback), (3, 2));
}

// tests `trend_on_rto`: with P = [1, 1, 1] (W_trend 1.0 → C_trend 1) a retransmission timeout of
// the first window (10 MSS outstanding, nothing acknowledged) sets ssthresh = cwnd = 10 MSS (a
// freeze, in place of the loss window of 1 MSS), pushes 2 and holds; the head is retransmitted
// (Not-ECT) and the RTO backs off as usual. A second timeout in the same episode (SND.UNA has not
// passed the first decision's SND.MAX) makes no decision: the algorithm's own loss window, 1 MSS,
// and the hold ends. Without `trend_on_rto` the first timeout is NewReno's own: cwnd = 1 MSS, no
// decision, P unchanged.
#[test]
fn trend_rule_on_rto_when_asked() {
    for on in [true, false] {
        let mut cfg = acns(AcnsEcho::Once);
        cfg.acns.trend_on_rto = on;
        let (mut p, _, _) = pair(cfg.clone(), cfg);
        p.c.acns.as_deref_mut().unwrap().p.extend([C1, C1, C1]);
        let burst = p.client_sends();
        assert_eq!(burst.len(), 10);
        let rto = p.c.rtt.rto();
        p.now = p.c.rto_at;
        let mut out = Vec::new();
        p.c.on_wakeup(p.now, &mut out);
        assert_eq!(out.first().map(seg_no), Some(0), "the head is retransmitted");
        assert!(out[0].tos.ecn() == Ecn::NotEct && !cmi(&out[0]));
        assert_eq!(p.c.ca, CaState::Loss);
        assert_eq!(p.c.rtt.rto(), rto.saturating_mul(2), "backoff as usual");
        let a = p.c.acns().unwrap();
        if on {
            assert_eq!((p.c.w.cwnd, p.c.w.ssthresh), (10 * MSS, 10 * MSS));
            assert!(a.held());
            assert_eq!(a.counts.trend_freeze, 1);
            assert_eq!(a.p().collect::<Vec<_>>(), [C2, C1, C1, C1]);
            p.now = p.c.rto_at;
            p.c.on_wakeup(p.now, &mut out);
            let a = p.c.acns().unwrap();
            assert_eq!(p.c.w.cwnd, MSS, "same episode: the algorithm's loss window");
            assert!(!a.held());
            assert_eq!(a.counts.trend_freeze + a.counts.trend_fallback + a.counts.trend_decrease, 1);
        } else {
            assert_eq!(p.c.w.cwnd, MSS);
            assert!(!a.held());
            assert_eq!(a.counts.trend_freeze + a.counts.trend_fallback + a.counts.trend_decrease, 0);
            assert_eq!(a.p().collect::<Vec<_>>(), [C1, C1, C1]);
        }
    }
}

// tests that an ACNS window probe is I1 (Not-ECT, CMI clear): the receiver's ACKs of the first
// window are edited to a zero window, the persist timer fires after 6 s and sends a one-byte
// probe, which fills min(cwnd, rwnd = 0) but is neither ECT nor marked.
#[test]
fn window_probes_are_not_ect() {
    let (mut p, _, _) = pair(acns(AcnsEcho::Once), acns(AcnsEcho::Once));
    let burst = p.client_sends();
    let acks: Vec<SimPacket> = p
        .deliver_to_server(&burst)
        .iter()
        .map(|a| {
            let mut q = a.clone();
            if let crate::packet::Transport::Tcp { window, .. } = &mut q.transport {
                *window = 0;
            }
            q
        })
        .collect();
    assert!(p.deliver_to_client(&acks).is_empty(), "a zero window holds the sender");
    let marked = p.c.acns().unwrap().counts.marked;
    p.now = p.c.persist_at;
    let mut probe = Vec::new();
    p.c.on_wakeup(p.now, &mut probe);
    assert_eq!(probe.iter().map(|s| s.payload).collect::<Vec<_>>(), [1], "a one-byte probe");
    assert_eq!(probe[0].tos.ecn(), Ecn::NotEct);
    assert!(!cmi(&probe[0]));
    assert!(p.c.acns().unwrap().marked().is_none());
    assert_eq!(p.c.acns().unwrap().counts.marked, marked);
}

// ---- the rules at their edges (mutation testing, docs/testing.md)

// tests that the trend thresholds compare strictly (`C_trend = 1` if `W_trend < th_L1`, 2 if
// `< th_L2`): with th_L1 = 1 and th_L2 = 2, P = [1, 1] gives W_trend exactly 1 (each term is its
// weight times 1, summed as the weights are) → 2, not 1; P = [2, 2] exactly 2 (each term its
// weight doubled, which binary arithmetic does exactly) → 3, not 2. Just above: P = [1, 2]
// (newest first) = (0.7165 + 2·0.5134)/1.2299 = 1.4174 → 2; [2, 3] = 2.4174 → 3.
#[test]
fn trend_thresholds_compare_strictly() {
    let cfg = AcnsConfig { th_l1: 1.0, th_l2: 2.0, ..AcnsConfig::default() };
    assert_eq!(w_trend([C1, C1], cfg.sigma), Some(1.0));
    assert_eq!(trend_command([C1, C1], &cfg), C2);
    assert_eq!(w_trend([C2, C2], cfg.sigma), Some(2.0));
    assert_eq!(trend_command([C2, C2], &cfg), C3);
    assert!((w_trend([C1, C2], 3.0).unwrap() - 1.4174).abs() < 5e-5);
    assert_eq!(trend_command([C1, C2], &cfg), C2);
    assert_eq!(trend_command([C2, C3], &cfg), C3);
}

// tests `[tcp.acns]`'s checks field by field (docs/tcp.md, the option table): the defaults pass;
// `hist_len` and `w_count` at least 1 (1 passes); `sigma` and `th_l1` finite and > 0 (0, −1, NaN
// and ∞ refused, 1e-9 passes); `th_l2` finite and ≥ `th_l1` (below it, NaN and ∞ refused, equal
// passes); `cmt_mask` one of 0x08, 0x04, 0x02.
#[test]
fn acns_options_are_checked_field_by_field() {
    let ok = AcnsConfig::default();
    let key = |c: AcnsConfig| c.validate().map_err(|(k, _)| k);
    assert_eq!(key(ok), Ok(()));
    assert_eq!(ok.validate(), Ok(()));
    assert_eq!(AcnsConfig { hist_len: 0, ..ok }.validate(), Err(("hist_len", "must be at least 1, got 0".to_string())));
    assert_eq!(AcnsConfig { w_count: 0, ..ok }.validate(), Err(("w_count", "must be at least 1, got 0".to_string())));
    assert_eq!(key(AcnsConfig { hist_len: 1, w_count: 1, ..ok }), Ok(()));
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(key(AcnsConfig { sigma: bad, ..ok }), Err("sigma"), "sigma {bad}");
        assert_eq!(key(AcnsConfig { th_l1: bad, ..ok }), Err("th_l1"), "th_l1 {bad}");
    }
    assert_eq!(AcnsConfig { sigma: 0.0, ..ok }.validate(), Err(("sigma", "must be > 0, got 0".to_string())));
    assert_eq!(key(AcnsConfig { sigma: 1e-9, th_l1: 1e-9, ..ok }), Ok(()));
    for bad in [1.8412, f64::NAN, f64::INFINITY] {
        assert_eq!(key(AcnsConfig { th_l2: bad, ..ok }), Err("th_l2"), "th_l2 {bad}");
    }
    assert_eq!(key(AcnsConfig { th_l2: 1.8413, ..ok }), Ok(()), "th_l2 = th_l1");
    assert_eq!(key(AcnsConfig { cmt_mask: 0x01, ..ok }), Err("cmt_mask"));
    assert_eq!(key(AcnsConfig { cmt_mask: 0x02, ..ok }), Ok(()));
}

// tests the options' record: ACNS off, the summary's options and the serialized configuration
// (which the model hash reads) name nothing of it; on, every option under its scenario key with
// its value as a scenario writes it (the enums by their scenario names, the mask in hex), the
// defaults `once` and `window`.
#[test]
fn the_options_record_names_acns_only_when_on() {
    let acns_keys = |c: &TcpConfig| c.describe().into_iter().filter(|(k, _)| k.starts_with("acns")).map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>();
    let off = TcpConfig { acns: AcnsConfig { sigma: 4.0, ..AcnsConfig::default() }, ..rfc3168() };
    assert_eq!(acns_keys(&off), Vec::<String>::new());
    assert!(serde_json::to_value(&off).unwrap().get("acns").is_none(), "off: left out");
    let on = acns(AcnsEcho::Once);
    assert_eq!(acns_keys(&on)[..3], ["acns=true", "acns.echo=once", "acns.hist=window"]);
    let mut on = acns(AcnsEcho::Latch);
    on.acns = AcnsConfig { hist: AcnsHist::Segment, hist_len: 7, trend_on_rto: true, w_count: 5, sigma: 2.5, th_l1: 1.5, th_l2: 2.0, cmt_mask: 0x04, ..on.acns };
    assert_eq!(
        acns_keys(&on),
        ["acns=true", "acns.echo=latch", "acns.hist=segment", "acns.hist_len=7", "acns.trend_on_rto=true", "acns.w_count=5", "acns.sigma=2.5", "acns.th_l1=1.5", "acns.th_l2=2", "acns.cmt_mask=0x04"]
    );
    let v = serde_json::to_value(&on).unwrap();
    assert_eq!((v["acns"]["enabled"].as_bool(), v["acns"]["echo"].as_str(), v["acns"]["hist"].as_str()), (Some(true), Some("latch"), Some("segment")), "on: written");
}

// tests which retransmissions take the marked segment's command with them: only one that
// overlaps it. Marked segment 9 = [1 + 9·1448, 1 + 10·1448); segment 8, ending where it starts,
// and segment 10, starting where it ends, leave the mark; a range holding its last byte or its
// first byte clears it.
#[test]
fn only_an_overlapping_retransmission_clears_the_mark() {
    let (mut p, _, _) = pair(acns(AcnsEcho::Once), acns(AcnsEcho::Once));
    p.client_sends();
    let (s, e) = (1 + 9 * MSS, 1 + 10 * MSS);
    assert_eq!(p.c.acns().unwrap().marked(), Some((s, e)));
    p.c.acns_retransmit(s - MSS, s);
    p.c.acns_retransmit(e, e + MSS);
    assert_eq!(p.c.acns().unwrap().marked(), Some((s, e)), "adjacent ranges leave it");
    p.c.acns_retransmit(e - 1, e + MSS);
    assert_eq!(p.c.acns().unwrap().marked(), None, "its last byte");
    p.c.acns.as_deref_mut().unwrap().marked = Some((s, e));
    p.c.acns_retransmit(s - MSS, s + 1);
    assert_eq!(p.c.acns().unwrap().marked(), None, "its first byte");
}

// tests the trend rule's loss episodes: a decision records SND.MAX (here 1 + 10·1448, the first
// window sent); a later loss decides again only once SND.UNA has reached that point. With P =
// [1, 1, 1] (W_trend 1 → freeze at cwnd 10 MSS): the first decision; with the recorded point one
// byte above SND.UNA, none (the same episode; the hold ends); with it equal to SND.UNA, a new
// decision, another freeze (P = [2, 1, 1, 1]: (2·0.7165 + 0.5134 + 0.3679 + 0.2636)/1.8614 =
// 1.3849 → 1).
#[test]
fn a_new_trend_decision_once_snd_una_reaches_the_last_decision_point() {
    let (mut p, _, _) = pair(acns(AcnsEcho::Once), acns(AcnsEcho::Once));
    p.c.acns.as_deref_mut().unwrap().p.extend([C1, C1, C1]);
    p.client_sends();
    assert_eq!((p.c.snd_una, p.c.snd_max), (1, 1 + 10 * MSS));
    assert_eq!(p.c.acns_trend(false, p.now), Some(10 * MSS));
    assert_eq!(p.c.acns().unwrap().trend_recover, 1 + 10 * MSS);
    assert!(p.c.acns().unwrap().held());
    p.c.acns.as_deref_mut().unwrap().trend_recover = p.c.snd_una + 1;
    assert_eq!(p.c.acns_trend(false, p.now), None, "the same episode");
    assert!(!p.c.acns().unwrap().held());
    p.c.acns.as_deref_mut().unwrap().trend_recover = p.c.snd_una;
    assert_eq!(p.c.acns_trend(false, p.now), Some(10 * MSS), "a new episode");
    let a = p.c.acns().unwrap();
    assert_eq!(a.counts.trend_freeze, 2);
    assert_eq!(a.p().collect::<Vec<_>>(), [C2, C2, C1, C1, C1]);
}

// tests the trend rule's fallback at a fast retransmit: P = [2, 2, 2] (W_trend exactly 2.0:
// th_L1 1.8413 ≤ 2.0 < th_L2 2.1587 → C_trend 2) and the history 10, 11 MSS; segment 2 is lost,
// the ACKs of 0 and 1 grow cwnd to 12 MSS, and the third duplicate ACK falls back to the newest
// sample below 12 MSS: ssthresh = 11 MSS (not NewReno's FlightSize/2 = 5 MSS), 3 pushed, the
// window held, CWR due (`once`: after a fallback); segment 2 still retransmitted.
#[test]
fn trend_fallback_on_fast_retransmit() {
    let (mut p, _, _) = pair(acns(AcnsEcho::Once), acns(AcnsEcho::Once));
    let a = p.c.acns.as_deref_mut().unwrap();
    a.p.extend([C2, C2, C2]);
    a.hist.extend([10 * MSS, 11 * MSS]);
    let burst = p.client_sends();
    let mut out = Vec::new();
    for seg in burst.iter().filter(|s| seg_no(s) != 2) {
        out.extend(step(&mut p, seg).1);
        if p.c.ca == CaState::Recovery {
            break;
        }
    }
    assert_eq!(p.c.ca, CaState::Recovery);
    assert!(out.iter().any(|s| seg_no(s) == 2), "segment 2 retransmitted");
    assert_eq!(p.c.w.ssthresh, 11 * MSS);
    let a = p.c.acns().unwrap();
    assert_eq!((a.counts.trend_freeze, a.counts.trend_fallback, a.counts.trend_decrease), (0, 1, 0));
    assert_eq!(a.p().collect::<Vec<_>>(), [C3, C2, C2, C2]);
    assert!(a.held());
    assert!(p.c.cwr_pending || out.iter().any(|s| flags(s) & F::CWR != 0), "CWR due or sent");
}

// tests the congestion control's half of a fallback through the endpoint (CUBIC): the epoch
// ends, and the first growth ACK after the hold starts a new one from the window fallen back to.
// W_max = 20 segments (a loss at 20), cwnd 14 MSS in avoidance, history 12, 13 MSS. The first
// ACK starts an epoch at 14 segments: K = ∛((20 − 14)/0.4) = ∛15 = 2.4662 s; the first window's
// ACKs grow nothing (cnt = 14 per segment, 13 ACKs). Its command ACK, turned I7, falls back to
// 13 MSS and holds; the next window's command ACK (T1) releases, and its growth starts an epoch
// at 13 segments: K = ∛((20 − 13)/0.4) = ∛17.5 = 2.5962 s. (Had the fallback only paused the
// epoch, as a freeze does, K would still be 2.4662 s.)
#[test]
fn cubic_fallback_through_the_endpoint_restarts_the_epoch() {
    let mut cfg = acns(AcnsEcho::Once);
    cfg.cc = CcKind::Cubic;
    cfg.cubic = CubicConfig { hystart: Hystart::Off, ..CubicConfig::default() };
    let mut p = in_avoidance(cfg, 14, &[12, 13]);
    let loss = CwndState { cwnd: 20 * MSS, ssthresh: u64::MAX, smss: MSS as u32 };
    p.c.cc.ssthresh_after_loss(&loss, 20 * MSS, super::cc::LossCause::DupAcks, p.now);
    let k = |p: &Pair| p.c.cc_metrics().as_slice().iter().find(|(n, _)| *n == "k").unwrap().1;
    let w = p.client_sends();
    assert_eq!(w.len(), 14);
    let (_, queue) = until_command_ack(&mut p, w.into(), Some(true));
    assert!((k(&p) - 2.4662).abs() < 1e-4, "k = {}", k(&p));
    assert_eq!(p.c.w.cwnd, 13 * MSS);
    assert!(p.c.acns().unwrap().held());
    until_command_ack(&mut p, queue, None);
    assert!(!p.c.acns().unwrap().held());
    assert!((k(&p) - 2.5962).abs() < 1e-4, "k = {}", k(&p));
}

/// An ACNS connection under `delack = "linux"` whose quick ACKs are used up; returns the rest of
/// the first flight (segments 1..).
fn acns_linux_past_quickack(echo: AcnsEcho) -> (Pair, Vec<SimPacket>) {
    let mut cfg = acns(echo);
    cfg.delack = DelAck::Linux;
    let (mut p, _, _) = pair(cfg.clone(), cfg);
    let burst = p.client_sends();
    assert_eq!(p.deliver_to_server(&burst[0..1]).len(), 1, "first data: quick ACK");
    p.s.lnx_ack.quick = 0;
    (p, burst[1..].to_vec())
}

// tests the ACNS receiver's input to Linux's delayed-ACK engine (`tcp_ecn_check_ce`), as the
// RFC 3168 receiver's: past the first quick ACKs, an I2 segment waits for the delayed-ACK timer;
// a command (I7, I6: CE to Linux) while no echo is pending enters quick-ACK mode (2 quick ACKs,
// one used at once, carrying T6 or T5); a Not-ECT data segment after ECT ones (a
// retransmission) enters it too; a bare FIN (no data) is no input. Under `latch` the echo stays
// pending after the first command: a second command grants no more quick ACKs (the one left is
// used: 0, where a new grant would leave 1).
#[test]
fn linux_delack_sees_acns_commands_as_ce() {
    let (mut p, rest) = acns_linux_past_quickack(AcnsEcho::Once);
    assert!(p.deliver_to_server(&rest[0..1]).is_empty(), "I2: delayed");
    for fallback in [true, false] {
        let (mut p, rest) = acns_linux_past_quickack(AcnsEcho::Once);
        let mut seg = rest[0].clone();
        command(&mut seg, fallback);
        let acks = p.deliver_to_server(&[seg]);
        assert_eq!(acks.len(), 1, "a command: quick ACK");
        assert_eq!((flags(&acks[0]) & F::ECE, cmt(&acks[0])), (F::ECE, !fallback));
        assert_eq!(p.s.lnx_ack.quick, super::delayed_ack::ECN_QUICKACKS - 1, "two quick ACKs granted, one used");
    }
    let (mut p, rest) = acns_linux_past_quickack(AcnsEcho::Latch);
    let mut cmds = rest[0..2].to_vec();
    cmds.iter_mut().for_each(|s| command(s, true));
    assert_eq!(p.deliver_to_server(&cmds[0..1]).len(), 1);
    assert_eq!(p.s.lnx_ack.quick, 1);
    assert_eq!(p.deliver_to_server(&cmds[1..2]).len(), 1, "the quick ACK left");
    assert_eq!(p.s.lnx_ack.quick, 0, "no new grant while the echo is pending");
    let (mut p, rest) = acns_linux_past_quickack(AcnsEcho::Once);
    let mut plain = rest[0].clone();
    plain.tos.set_ecn(Ecn::NotEct);
    assert_eq!(p.deliver_to_server(&[plain]).len(), 1, "Not-ECT after ECT: quick ACK");
    // A bare FIN after two segments of data.
    let mut cfg = acns(AcnsEcho::Once);
    cfg.delack = DelAck::Linux;
    let mut p = Pair::new(cfg, Some(2 * MSS));
    let data = p.client_sends();
    assert_eq!(data.iter().map(|s| (s.tos.ecn(), cmi(s))).collect::<Vec<_>>(), [(Ecn::Ect0, false); 2]);
    p.deliver_to_server(&data);
    p.bare_fin_leaves_no_quick_ack();
}
