//! Scripted SACK + PRR recoveries (RFC 6675 with RFC 6937 / RFC 9937 Proportional Rate
//! Reduction): cwnd, pipe and the segments sent, ACK by ACK, for both PRR variants.
//!
//! Every case: defaults (SACK, timestamps, NewReno), SMSS 1448 B, an ACK per segment
//! (`delack = "off"`), unlimited data. The network is a FIFO: the client's segments are delivered
//! one at a time in the order sent, except the dropped ones (each dropped once), and each ACK
//! reaches the client before the next segment is delivered. Segment `k` starts at data offset
//! `1 + k·1448`. Sizes are in bytes; "N MSS" = N·1448.
//!
//! The PRR formulas (RFC 6937 §3.1; RFC 9937 §5-6), per ACK during recovery:
//!   prr_delivered += DeliveredData (bytes newly acknowledged cumulatively or newly SACKed);
//!   if pipe > ssthresh: sndcnt = ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out
//!   else RFC 6937 (slow-start reduction bound, SSRB):
//!          sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) + MSS)
//!        RFC 9937 (conservative reduction bound, CRB, + MSS only on a "safe" ACK, which Sluice
//!        and ns-3 take as one that acknowledges retransmitted data):
//!          sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) [+ MSS])
//!   the first ACK of recovery sends at least one MSS (the fast retransmission);
//!   cwnd = pipe + max(sndcnt, 0).
//! RecoverFS is SND.NXT − SND.UNA at entry under RFC 6937 and pipe at entry under RFC 9937. The
//! RFC 9937 variant follows ns-3 ≥ 3.43 (see `PrrVariant`): while prr_delivered < RecoverFS a
//! duplicate ACK (with SACK: one that SACKs new data), and the entering ACK, add one MSS to
//! DeliveredData. ssthresh = max(pipe at entry / 2, 2 MSS) (NewReno, RFC 5681 eq. (4), with pipe
//! for FlightSize as RFC 6675 §5 step 4.2 allows).

use super::tests::{seg_seq, Pair, MSS};
use super::*;
use crate::packet::SimPacket;
use std::collections::VecDeque;

fn seg_no(s: &SimPacket) -> u64 {
    (seg_seq(s) as u64 - 1001) / MSS
}

/// After the ACK of segment `seg`: cwnd and pipe in bytes, and the segments sent in response.
#[derive(Debug, PartialEq, Eq)]
struct Step {
    seg: u64,
    cwnd: u64,
    pipe: u64,
    sent: Vec<u64>,
}

const M: u64 = MSS;

/// Runs `n` deliveries after the initial window of `iw` segments is sent, dropping the segments
/// in `drop` (once each); returns the steps and the pair.
fn run(variant: PrrVariant, iw: u32, drop: &[u64], n: usize) -> (Vec<Step>, Pair) {
    let cfg = TcpConfig { delack: DelAck::Off, iw: InitialWindow::Segments(iw), recovery: Recovery::Prr(variant), ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let mut wire: VecDeque<SimPacket> = p.client_sends().into();
    assert_eq!(wire.len(), iw as usize);
    let mut dropped = Vec::new();
    let mut steps = Vec::new();
    while steps.len() < n {
        let seg = wire.pop_front().expect("something in flight");
        let k = seg_no(&seg);
        if drop.contains(&k) && !dropped.contains(&k) {
            dropped.push(k);
            continue;
        }
        let acks = p.deliver_to_server(std::slice::from_ref(&seg));
        let out = p.deliver_to_client(&acks);
        steps.push(Step { seg: k, cwnd: p.c.w.cwnd, pipe: p.c.pipe(), sent: out.iter().map(seg_no).collect() });
        wire.extend(out);
    }
    (steps, p)
}

fn st(seg: u64, cwnd: u64, pipe: u64, sent: &[u64]) -> Step {
    Step { seg, cwnd, pipe, sent: sent.to_vec() }
}

fn check(got: &[Step], want: &[Step]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g, w, "after the ACK of segment {}", w.seg);
    }
}


// tests one loss in a window with SACK, RFC 9937 PRR (the default).
// Segment 0 of 10 is lost. ACKs of 1, 2 SACK one segment each: Disorder, cwnd − pipe = 1 MSS, so
// each releases one new segment (10, 11; RFC 6675 §5 step 3 via pipe).
// ACK 3, third SACKed segment: segment 0 lost; pipe = 12 outstanding − 3 SACKed − 1 lost = 8 MSS;
//   ssthresh = 4 MSS = 5792, RecoverFS = pipe = 8 MSS = 11584. DeliveredData = 1448 + 1448
//   (ns-3's extra MSS) → prr_delivered 2896; sndcnt = ⌈2896·5792/11584⌉ − 0 = 1448; cwnd = 9 MSS;
//   the retransmission of 0 goes (prr_out 1448), pipe 9 MSS.
// ACKs 4, 5, 6: pipe 8 MSS before sending; prr_delivered 5792, 8688, 11584 (with the extra MSS,
//   still below RecoverFS before each); share 2896, 4344, 5792 − prr_out 1448, 2896, 4344 = 1448:
//   cwnd 9 MSS, one new segment each (12, 13, 14).
// ACK 7: prr_delivered = RecoverFS: no extra MSS; 13032 → share 6516 − 5792 = 724; pipe 8 MSS:
//   cwnd 8.5 MSS = 12308, nothing.
// ACK 8: 14480 → 7240 − 5792 = 1448; pipe 7 MSS: cwnd 8 MSS, segment 15 (prr_out 7240).
// ACK 9: 15928 → 7964 − 7240 = 724; pipe 7 MSS: cwnd 10860.
// ACK 10: 17376 → 8688 − 7240 = 1448; pipe 6 MSS: cwnd 7 MSS, segment 16 (prr_out 8688).
// ACK 11: 18824 → 9412 − 8688 = 724; pipe 6 MSS: cwnd 9412.
// ACK of the retransmitted 0: SND.UNA = 1 + 12 MSS = recover: recovery ends, cwnd = ssthresh =
//   4 MSS; pipe = segments 12-16 = 5 MSS: nothing.
#[test]
fn sack_prr_rfc9937_one_loss() {
    let (got, p) = run(PrrVariant::Rfc9937, 10, &[0], 12);
    check(
        &got,
        &[
            st(1, 10 * M, 10 * M, &[10]),
            st(2, 10 * M, 10 * M, &[11]),
            st(3, 9 * M, 9 * M, &[0]),
            st(4, 9 * M, 9 * M, &[12]),
            st(5, 9 * M, 9 * M, &[13]),
            st(6, 9 * M, 9 * M, &[14]),
            st(7, 12_308, 8 * M, &[]),
            st(8, 8 * M, 8 * M, &[15]),
            st(9, 10_860, 7 * M, &[]),
            st(10, 7 * M, 7 * M, &[16]),
            st(11, 9_412, 6 * M, &[]),
            st(0, 4 * M, 5 * M, &[]),
        ],
    );
    assert_eq!((p.c.w.ssthresh, p.c.recover_fs, p.c.prr_delivered, p.c.prr_out), (4 * M, 8 * M, 13 * M, 6 * M));
    assert_eq!((p.c.counters.fast_retransmits, p.c.counters.retx_pkts), (1, 1));
}

// tests one loss in a window with SACK, RFC 6937 PRR. As `sack_prr_rfc9937_one_loss` up to the
// entering ACK; then RecoverFS = SND.NXT − SND.UNA = 12 MSS = 17376 and no extra MSS per ACK.
// ACK 3: prr_delivered 1448; ⌈1448·5792/17376⌉ = 483 < 1 MSS, raised to 1 MSS on the first ACK:
//   cwnd 9 MSS, the retransmission of 0 (prr_out 1448).
// ACK 4: 2896 → ⌈965.3⌉ = 966 − 1448 < 0 → 0: cwnd = pipe = 8 MSS.
// ACK 5: 4344 → 1448 − 1448 = 0: cwnd 7 MSS.
// ACK 6: 5792 → ⌈1930.7⌉ = 1931 − 1448 = 483: cwnd 6 MSS + 483 = 9171.
// ACK 7: 7240 → ⌈2413.3⌉ = 2414 − 1448 = 966: cwnd 5 MSS + 966 = 8206.
// ACK 8: pipe 4 MSS = ssthresh, so the bound: SSRB min(0, max(8688 − 1448, 1448) + 1448) = 0:
//   cwnd 4 MSS.
// ACKs 9, 10, 11: pipe 3 MSS: min(1 MSS, …) = 1 MSS: cwnd 4 MSS, one new segment each (12-14).
// ACK of 0: recovery ends, cwnd = ssthresh = 4 MSS; pipe 3 MSS: segment 15.
#[test]
fn sack_prr_rfc6937_one_loss() {
    let (got, p) = run(PrrVariant::Rfc6937, 10, &[0], 12);
    check(
        &got,
        &[
            st(1, 10 * M, 10 * M, &[10]),
            st(2, 10 * M, 10 * M, &[11]),
            st(3, 9 * M, 9 * M, &[0]),
            st(4, 8 * M, 8 * M, &[]),
            st(5, 7 * M, 7 * M, &[]),
            st(6, 9_171, 6 * M, &[]),
            st(7, 8_206, 5 * M, &[]),
            st(8, 4 * M, 4 * M, &[]),
            st(9, 4 * M, 4 * M, &[12]),
            st(10, 4 * M, 4 * M, &[13]),
            st(11, 4 * M, 4 * M, &[14]),
            st(0, 4 * M, 4 * M, &[15]),
        ],
    );
    assert_eq!((p.c.w.ssthresh, p.c.recover_fs, p.c.prr_delivered, p.c.prr_out), (4 * M, 12 * M, 9 * M, 4 * M));
}

// tests two losses in one window with SACK, RFC 9937 PRR: segments 0 and 5 of 10 are lost.
// Through ACK 4 as in `sack_prr_rfc9937_one_loss` (entry at ACK 3, ssthresh 4 MSS, RecoverFS
// 8 MSS; prr_delivered 5792, prr_out 2896 after ACK 4).
// ACK 6: one SACKed segment above the hole at 5: not lost yet; pipe 8 MSS; prr_delivered 8688
//   (extra MSS) → 4344 − 2896 = 1448: cwnd 9 MSS, segment 13.
// ACK 7: 11584 → 5792 − 4344 = 1448: cwnd 9 MSS, segment 14 (prr_out 5792).
// ACK 8: three SACKed above 5 (6, 7, 8): 5 is lost; pipe = 9 − 1 SACKed − 1 lost = 7 MSS;
//   prr_delivered = RecoverFS: no extra; 13032 → 6516 − 5792 = 724: cwnd 10860, nothing.
// ACK 9: 14480 → 7240 − 5792 = 1448; pipe 6 MSS: cwnd 7 MSS: the retransmission of 5 (NextSeg
//   rule 1: lost segments before new data), prr_out 7240.
// ACK 10: 15928 → 7964 − 7240 = 724; pipe 6 MSS: cwnd 9412.
// ACK 11: 17376 → 8688 − 7240 = 1448; pipe 5 MSS: cwnd 6 MSS, segment 15 (prr_out 8688).
// ACK of the retransmitted 0: partial (SND.UNA = 1 + 5 MSS < recover = 1 + 12 MSS);
//   DeliveredData = 1448 (1-4 were SACKed before); prr_delivered 18824 → 9412 − 8688 = 724;
//   pipe = 5..15 outstanding (11) − 6 SACKed = 5 MSS: cwnd 7964.
// ACK 12: pipe 4 MSS = ssthresh: CRB min(0, max(20272 − 8688, 1448)) = 0: cwnd 4 MSS.
// ACKs 13, 14: pipe 3 MSS: min(1 MSS, max(…, 1448)) = 1 MSS: cwnd 4 MSS, segments 16, 17.
// ACK of the retransmitted 5: SND.UNA = 1 + 15 MSS ≥ recover: recovery ends, cwnd = ssthresh =
//   4 MSS; pipe = 15-17 = 3 MSS: segment 18.
#[test]
fn sack_prr_rfc9937_two_losses() {
    let (got, p) = run(PrrVariant::Rfc9937, 10, &[0, 5], 15);
    check(
        &got,
        &[
            st(1, 10 * M, 10 * M, &[10]),
            st(2, 10 * M, 10 * M, &[11]),
            st(3, 9 * M, 9 * M, &[0]),
            st(4, 9 * M, 9 * M, &[12]),
            st(6, 9 * M, 9 * M, &[13]),
            st(7, 9 * M, 9 * M, &[14]),
            st(8, 10_860, 7 * M, &[]),
            st(9, 7 * M, 7 * M, &[5]),
            st(10, 9_412, 6 * M, &[]),
            st(11, 6 * M, 6 * M, &[15]),
            st(0, 7_964, 5 * M, &[]),
            st(12, 4 * M, 4 * M, &[]),
            st(13, 4 * M, 4 * M, &[16]),
            st(14, 4 * M, 4 * M, &[17]),
            st(5, 4 * M, 4 * M, &[18]),
        ],
    );
    assert_eq!((p.c.counters.fast_retransmits, p.c.counters.retx_pkts), (1, 2), "two losses, one reduction");
    assert_eq!(p.c.w.ssthresh, 4 * M);
}

// tests two losses in one window with SACK, RFC 6937 PRR: segments 0 and 5 of 10 are lost.
// Through ACK 4 as in `sack_prr_rfc6937_one_loss` (RecoverFS 12 MSS; prr_delivered 2896,
// prr_out 1448).
// ACK 6: 4344 → 1448 − 1448 = 0; pipe 7 MSS: cwnd 7 MSS.
// ACK 7: 5792 → 1931 − 1448 = 483; pipe 6 MSS: cwnd 9171.
// ACK 8: 5 becomes lost: pipe = 6 − 1 − 1 = 4 MSS = ssthresh: SSRB min(0, …) = 0: cwnd 4 MSS.
// ACK 9: pipe 3 MSS: min(1 MSS, max(8688 − 1448, 1448) + 1448) = 1 MSS: the retransmission of 5.
// ACKs 10, 11: pipe 3 MSS: 1 MSS each: segments 12, 13.
// ACK of the retransmitted 0: partial; pipe = 5..13 (9) − 6 SACKed = 3 MSS: 1 MSS, segment 14.
// ACK of the retransmitted 5: SND.UNA = 1 + 12 MSS = recover: cwnd = ssthresh = 4 MSS; pipe =
//   12-14 = 3 MSS: segment 15.
#[test]
fn sack_prr_rfc6937_two_losses() {
    let (got, p) = run(PrrVariant::Rfc6937, 10, &[0, 5], 12);
    check(
        &got,
        &[
            st(1, 10 * M, 10 * M, &[10]),
            st(2, 10 * M, 10 * M, &[11]),
            st(3, 9 * M, 9 * M, &[0]),
            st(4, 8 * M, 8 * M, &[]),
            st(6, 7 * M, 7 * M, &[]),
            st(7, 9_171, 6 * M, &[]),
            st(8, 4 * M, 4 * M, &[]),
            st(9, 4 * M, 4 * M, &[5]),
            st(10, 4 * M, 4 * M, &[12]),
            st(11, 4 * M, 4 * M, &[13]),
            st(0, 4 * M, 4 * M, &[14]),
            st(5, 4 * M, 4 * M, &[15]),
        ],
    );
    assert_eq!((p.c.counters.fast_retransmits, p.c.counters.retx_pkts), (1, 2));
}

// tests where the variants part: pipe falls far below ssthresh in mid-recovery. Initial window
// 20; segment 0 and the run 4-15 are lost. ACKs 1, 2 release 20, 21 (Disorder). ACK 3 enters
// recovery: pipe = 22 − 3 SACKed − 1 lost = 18 MSS, ssthresh = 9 MSS = 13032. ACK 18 brings the
// third SACKed segment above 4-15: twelve segments become lost at once and pipe collapses.
//
// RFC 6937 (RecoverFS = 22 MSS = 31856):
//   ACK 3: prr_delivered 1448, ⌈1448·13032/31856⌉ = 593 → raised to 1 MSS: cwnd 19 MSS, 0 resent.
//   ACK 16: 2896 → ⌈1184.7⌉ = 1185 − 1448 < 0 → 0: cwnd = pipe = 18 MSS.
//   ACK 17: 4344 → ⌈1777.1⌉ = 1778 − 1448 = 330: cwnd 17 MSS + 330 = 24946.
//   ACK 18: pipe = 17 − 1 − 12 = 4 MSS < ssthresh. The slow-start reduction bound binds:
//     max(5792 − 1448, 1448) + 1448 = 5792 < ssthresh − pipe = 7240: sndcnt 4 MSS, cwnd 8 MSS:
//     4, 5, 6, 7 resent (prr_out 7240 = prr_delivered).
//   ACK 19: pipe 7 MSS; SSRB: max(0, 1448) + 1448 = 2896 = ssthresh − pipe: two segments for one
//     delivered (8, 9): slow start back up to ssthresh.
//   ACK 20: pipe 8 MSS: min(1448, 2896): one (10).
// RFC 9937 (RecoverFS = pipe = 18 MSS = 26064; the extra MSS per ACK while prr_delivered < 26064):
//   ACK 3: 2896 → ⌈2896·13032/26064⌉ = 1448: cwnd 19 MSS, 0 resent.
//   ACKs 16, 17: 5792, 8688 → 2896 − 1448, 4344 − 2896 = 1448: cwnd 19 MSS, 22 and 23 go.
//   ACK 18: pipe = 19 − 1 − 12 = 6 MSS; prr_delivered 11584, prr_out 4344; CRB: max(7240, 2896)
//     = 7240 > ssthresh − pipe = 4344: sndcnt 3 MSS, cwnd 9 MSS: 4, 5, 6 resent.
//   ACK 19: pipe 8 MSS: min(1448, max(14480 − 8688, 2896)) = 1448: one (7).
//   ACK 20: the same: one (8).
#[test]
fn sack_prr_variants_part_when_pipe_falls_below_ssthresh() {
    let drop: Vec<u64> = std::iter::once(0).chain(4..=15).collect();
    let (got, p) = run(PrrVariant::Rfc6937, 20, &drop, 8);
    check(
        &got,
        &[
            st(1, 20 * M, 20 * M, &[20]),
            st(2, 20 * M, 20 * M, &[21]),
            st(3, 19 * M, 19 * M, &[0]),
            st(16, 18 * M, 18 * M, &[]),
            st(17, 24_946, 17 * M, &[]),
            st(18, 8 * M, 8 * M, &[4, 5, 6, 7]),
            st(19, 9 * M, 9 * M, &[8, 9]),
            st(20, 9 * M, 9 * M, &[10]),
        ],
    );
    assert_eq!((p.c.w.ssthresh, p.c.recover_fs), (9 * M, 22 * M));
    let (got, p) = run(PrrVariant::Rfc9937, 20, &drop, 8);
    check(
        &got,
        &[
            st(1, 20 * M, 20 * M, &[20]),
            st(2, 20 * M, 20 * M, &[21]),
            st(3, 19 * M, 19 * M, &[0]),
            st(16, 19 * M, 19 * M, &[22]),
            st(17, 19 * M, 19 * M, &[23]),
            st(18, 9 * M, 9 * M, &[4, 5, 6]),
            st(19, 9 * M, 9 * M, &[7]),
            st(20, 9 * M, 9 * M, &[8]),
        ],
    );
    assert_eq!((p.c.w.ssthresh, p.c.recover_fs), (9 * M, 18 * M));
}

// tests RFC 9937's conservative bound and its "safe ACK" exception late in a recovery, once
// prr_delivered ≥ RecoverFS (no extra MSS per ACK any more). Initial window 20; lost: 0, 4-15
// and 20-23. The recovery runs as in `sack_prr_variants_part_when_pipe_falls_below_ssthresh`
// (ssthresh 9 MSS) and holds pipe at ssthresh while the retransmissions of 0 and 4-15 are
// acknowledged. Then:
// ACK 26: its SACK is the third above 20-23: four more segments lost; pipe = 9 − 1 − 4 = 4 MSS;
//   prr_delivered − prr_out = 3 MSS before + 1 MSS delivered = 4 MSS; CRB: sndcnt = min(ssthresh
//   − pipe = 5 MSS, max(4 MSS, 1 MSS)) = 4 MSS: cwnd 8 MSS, 20-23 resent; prr_out has caught up.
// ACKs 27-30 (SACK only): pipe 7 MSS; CRB: min(2 MSS, max(1 MSS, 1 MSS)) = 1 MSS: cwnd 8 MSS,
//   one new segment each (31-34): one for one although pipe is below ssthresh (RFC 6937's bound
//   would allow 2 MSS).
// ACK of the resent 20: cumulative, acknowledges a retransmission (a safe ACK): limit = 1 MSS +
//   1 MSS = 2 MSS = ssthresh − pipe: cwnd 9 MSS, 35 and 36 go.
// ACK of the resent 21: SND.UNA = 1 + 22 MSS = recover: cwnd = ssthresh = 9 MSS; pipe 8 MSS: 37.
#[test]
fn sack_prr_rfc9937_conservative_bound_and_safe_ack() {
    let drop: Vec<u64> = std::iter::once(0).chain(4..=15).chain(20..=23).collect();
    let (got, p) = run(PrrVariant::Rfc9937, 20, &drop, 29);
    let order: Vec<u64> = got.iter().map(|s| s.seg).collect();
    assert_eq!(order[..8], [1, 2, 3, 16, 17, 18, 19, 0]);
    assert_eq!(order[8..20], (4..=15).collect::<Vec<_>>()[..]);
    check(
        &got[20..],
        &[
            st(24, 9 * M, 9 * M, &[29]),
            st(25, 9 * M, 9 * M, &[30]),
            st(26, 8 * M, 8 * M, &[20, 21, 22, 23]),
            st(27, 8 * M, 8 * M, &[31]),
            st(28, 8 * M, 8 * M, &[32]),
            st(29, 8 * M, 8 * M, &[33]),
            st(30, 8 * M, 8 * M, &[34]),
            st(20, 9 * M, 9 * M, &[35, 36]),
            st(21, 9 * M, 9 * M, &[37]),
        ],
    );
    assert_eq!((p.c.ca, p.c.w.ssthresh), (cc::CaState::Open, 9 * M));
}

// tests RFC 6937 §3.1 "on any ACK": an ACK that delivers nothing (DeliveredData = 0; here the
// receiver re-acknowledges a duplicate of a segment it holds, with the same SACK blocks) leaves
// cwnd as it was and lets nothing out, under both variants, at every ACK of a recovery from six
// losses in a window of ten. Recomputing cwnd would matter under RFC 6937's slow-start bound once
// prr_out has caught up with prr_delivered: pipe has grown by what was sent since the last ACK,
// and min(ssthresh − pipe, 0 + MSS) would release one more segment.
#[test]
fn an_ack_that_delivers_nothing_changes_nothing() {
    for variant in [PrrVariant::Rfc6937, PrrVariant::Rfc9937] {
        let cfg = TcpConfig { delack: DelAck::Off, recovery: Recovery::Prr(variant), ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        let mut wire: VecDeque<SimPacket> = p.client_sends().into();
        let mut dropped = std::collections::HashSet::new();
        let mut probes = 0;
        while let Some(seg) = wire.pop_front() {
            let k = seg_no(&seg);
            if k < 6 && dropped.insert(k) {
                continue;
            }
            let acks = p.deliver_to_server(std::slice::from_ref(&seg));
            wire.extend(p.deliver_to_client(&acks));
            if p.c.ca != super::cc::CaState::Recovery {
                if probes > 0 { break; }
                continue;
            }
            // The probe: a copy of the connection sees a duplicate of this segment re-acknowledged.
            let mut q = Pair { c: p.c.clone(), s: p.s.clone(), now: p.now };
            let (cwnd, pipe) = (q.c.w.cwnd, q.c.pipe());
            eprintln!("{variant:?} seg {k}: cwnd {} pipe {} ssthresh {} prr_out {} prr_del {}", cwnd/MSS, pipe/MSS, q.c.w.ssthresh/MSS, q.c.prr_out/MSS, q.c.prr_delivered/MSS);
            let dup = q.deliver_to_server(std::slice::from_ref(&seg));
            assert_eq!(dup.len(), 1, "the duplicate is re-acknowledged");
            let sent = q.deliver_to_client(&dup);
            assert!(sent.is_empty(), "{variant:?}, after segment {k}: nothing delivered, nothing sent");
            assert_eq!((q.c.w.cwnd, q.c.pipe()), (cwnd, pipe), "{variant:?}, after segment {k}");
            probes += 1;
        }
        assert!(probes >= 8, "{variant:?}: {probes} ACKs probed in recovery");
    }
}

// tests ns-3's RFC 9937 variant without SACK (`TcpPrrRecovery::DoRecovery`): a duplicate ACK
// counts one segment delivered only while prr_delivered < RecoverFS; past that it delivers
// nothing, and an ACK that delivers nothing leaves cwnd alone. Without SACK each duplicate still
// takes one segment out of the estimated pipe, so each lets exactly one segment out (packet
// conservation). Segments 0 and
// 1 of ten are lost: the partial ACK for the retransmitted segment 0 brings prr_delivered past
// RecoverFS (8 segments: twelve outstanding — ten and two sent by limited transmit — less the
// head taken as lost, less three duplicates), and the duplicates caused by the new data sent
// during the recovery arrive after it.
#[test]
fn without_sack_duplicates_past_recover_fs_change_nothing() {
    let cfg = TcpConfig { sack: false, delack: DelAck::Off, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let mut wire: VecDeque<SimPacket> = p.client_sends().into();
    let mut dropped = std::collections::HashSet::new();
    let mut past = 0;
    while let Some(seg) = wire.pop_front() {
        let k = seg_no(&seg);
        if k < 2 && dropped.insert(k) {
            continue;
        }
        let acks = p.deliver_to_server(std::slice::from_ref(&seg));
        let (cwnd, una, in_rec) = (p.c.w.cwnd, p.c.snd_una, p.c.ca == super::cc::CaState::Recovery);
        let beyond = p.c.prr_delivered >= p.c.recover_fs;
        let sent = p.deliver_to_client(&acks);
        if in_rec && beyond && p.c.snd_una == una && p.c.ca == super::cc::CaState::Recovery {
            assert_eq!((p.c.w.cwnd, sent.len()), (cwnd, 1), "duplicate ACK for segment {k}");
            past += 1;
        }
        wire.extend(sent);
        if past > 0 && p.c.ca == super::cc::CaState::Open {
            break;
        }
    }
    assert_eq!(p.c.recover_fs, 8 * MSS);
    assert!(past >= 2, "{past} duplicates past RecoverFS");
}

// tests RFC 6937 §3.1's first ACK of a recovery, when it delivers nothing: under
// `dupack = "linux"` (no data, window not grown, whatever the SACK blocks) the third duplicate
// can be the receiver's re-acknowledgement of a duplicate segment, which SACKs nothing new
// (DeliveredData = 0). PRR still runs on it: sndcnt = ⌈0 · ssthresh / RecoverFS⌉ − 0 = 0, raised
// to one MSS for the fast retransmission, so cwnd = pipe + 1 MSS. The application has written
// ten segments only, so the sender is not window-limited and cwnd (11 after the ACK of segment
// 0) is well above what is in flight.
#[test]
fn rfc6937_entry_on_a_duplicate_that_sacks_nothing_new() {
    let cfg = TcpConfig { delack: DelAck::Off, dupack: DupAckRule::Linux, limited_transmit: false, recovery: Recovery::Prr(PrrVariant::Rfc6937), ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(10 * MSS));
    let burst = p.client_sends();
    // Segment 0 is acknowledged (slow start: cwnd 11 segments, nothing more to send); 1 is lost;
    // the ACKs of 2 and 3 are duplicates SACKing them; the third re-acknowledges 3.
    for k in [0, 2, 3] {
        let acks = p.deliver_to_server(&burst[k..k + 1]);
        assert!(p.deliver_to_client(&acks).is_empty());
    }
    assert_eq!((p.c.dupacks, p.c.ca, p.c.w.cwnd), (2, super::cc::CaState::Disorder, 11 * MSS));
    let acks = p.deliver_to_server(&burst[3..4]);
    let sent = p.deliver_to_client(&acks);
    assert_eq!(p.c.ca, super::cc::CaState::Recovery);
    assert_eq!(sent.iter().map(seg_no).collect::<Vec<_>>(), [1], "the fast retransmission alone");
    // Outstanding 1-9: 9 segments, 2 SACKed, the head taken as lost: pipe 6 before the
    // retransmission, cwnd 6 + 1; pipe 7 after it.
    assert_eq!((p.c.w.cwnd, p.c.pipe()), (7 * MSS, 7 * MSS));
    assert_eq!((p.c.prr_delivered, p.c.prr_out), (0, MSS));
}
