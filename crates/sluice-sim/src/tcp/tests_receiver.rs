//! Scripted exchanges for the receiving half (`receiver.rs`): which segment's TSval the ACKs
//! echo (RFC 7323 §4.3, and ns-3's rule), duplicates and a bare FIN at the left edge, the
//! pull-in of held out-of-order data, and the Linux delayed-ACK engine's ECN inputs.
//!
//! The client's ISS is 1000, so data offset 1 is wire sequence number 1001; segment `k` starts
//! at 1001 + k·1448. Tests alter the TSval or the ECN field of a segment before delivering it
//! where the rule under test needs distinct values.

use super::tests::{flags, seg_seq, Pair, MSS};
use super::*;
use crate::packet::{SimPacket, Transport};
use sluice_core::packet::{tcp_flags as F, Ecn};
use sluice_core::Dur;

fn with_tsval(s: &SimPacket, tsval: u32) -> SimPacket {
    let mut s = s.clone();
    if let Transport::Tcp { opts, .. } = &mut s.transport {
        let (_, ecr) = opts.ts.expect("timestamps negotiated");
        opts.ts = Some((tsval, ecr));
    }
    s
}

fn tsecr(ack: &SimPacket) -> u32 {
    match ack.transport {
        Transport::Tcp { opts, .. } => opts.ts.expect("timestamps negotiated").1,
        Transport::Udp => unreachable!(),
    }
}

fn ack_no(ack: &SimPacket) -> u32 {
    match ack.transport {
        Transport::Tcp { ack, .. } => ack,
        Transport::Udp => unreachable!(),
    }
}

/// Wire sequence number just past segment `k`'s data.
fn end_of(k: u32) -> u32 {
    1001 + (k + 1) * MSS as u32
}

fn rfc() -> TcpConfig {
    TcpConfig::default()
}

fn ns3_ts() -> TcpConfig {
    TcpConfig { compat: Ns3Compat { ts_recent_in_order: true, ..Ns3Compat::RFC }, ..TcpConfig::default() }
}

// tests RFC 7323 §4.3 with a delayed ACK: TS.Recent is taken only from a segment that starts at
// or before Last.ACK.sent, so an ACK covering two segments echoes the first one's TSval (10),
// not the second's (20), which starts beyond the last ACK sent. ns-3's rule (the segment at
// RCV.NXT, and also at or before the last ACK) gives the same echo.
#[test]
fn a_delayed_ack_echoes_the_earliest_unacknowledged_tsval() {
    for base in [rfc(), ns3_ts()] {
        let cfg = TcpConfig { delack: DelAck::On { count: 2, timeout: Dur::from_millis(200) }, ..base };
        let mut p = Pair::new(cfg, None);
        let burst = p.client_sends();
        assert!(p.deliver_to_server(&[with_tsval(&burst[0], 10)]).is_empty(), "the first segment waits for a second");
        let acks = p.deliver_to_server(&[with_tsval(&burst[1], 20)]);
        assert_eq!(acks.len(), 1);
        assert_eq!((ack_no(&acks[0]), tsecr(&acks[0])), (end_of(1), 10));
    }
}

// tests RFC 7323 §4.3 against ns-3's `ts_recent_in_order`: a retransmitted old segment
// (SEG.SEQ < RCV.NXT ≤ Last.ACK.sent) updates TS.Recent under the RFC, not under ns-3, which
// takes it only from the segment at RCV.NXT.
#[test]
fn an_old_segment_updates_ts_recent_under_the_rfc_only() {
    for (cfg, echo) in [(rfc(), 30), (ns3_ts(), 10)] {
        let mut p = Pair::new(TcpConfig { delack: DelAck::Off, ..cfg }, None);
        let burst = p.client_sends();
        assert_eq!(tsecr(&p.deliver_to_server(&[with_tsval(&burst[0], 10)])[0]), 10);
        let acks = p.deliver_to_server(&[with_tsval(&burst[0], 30)]);
        assert_eq!((ack_no(&acks[0]), tsecr(&acks[0])), (end_of(0), echo));
    }
}

// tests ns-3's `ProcessOptionTimestamp`: a TSval below the highest seen is ignored, even on the
// in-order segment; the RFC path (without PAWS) takes it.
#[test]
fn ns3_ignores_a_tsval_below_the_highest_seen() {
    for (cfg, echo) in [(rfc(), 40), (ns3_ts(), 50)] {
        let mut p = Pair::new(TcpConfig { delack: DelAck::Off, ..cfg }, None);
        let burst = p.client_sends();
        assert_eq!(tsecr(&p.deliver_to_server(&[with_tsval(&burst[0], 50)])[0]), 50);
        let acks = p.deliver_to_server(&[with_tsval(&burst[1], 40)]);
        assert_eq!((ack_no(&acks[0]), tsecr(&acks[0])), (end_of(1), echo));
    }
}

// tests RFC 5681 §4.2: a duplicate of the last segment received (its end equal to RCV.NXT) is
// acknowledged at once, although a new segment would wait for a second under delayed ACKs.
#[test]
fn a_duplicate_ending_at_rcv_nxt_is_acknowledged_at_once() {
    let cfg = TcpConfig { delack: DelAck::On { count: 2, timeout: Dur::from_millis(200) }, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let burst = p.client_sends();
    assert!(p.deliver_to_server(&burst[0..1]).is_empty());
    assert_eq!(p.deliver_to_server(&burst[1..2]).len(), 1);
    let acks = p.deliver_to_server(&burst[1..2]);
    assert_eq!(acks.len(), 1, "duplicate: ACK at once");
    assert_eq!(ack_no(&acks[0]), end_of(1));
    assert_eq!(p.s.counters.delivered, 2 * MSS, "delivered once");
}

// tests RFC 9293 §3.10.7.4 (eighth step): a FIN alone at RCV.NXT is taken (CLOSE-WAIT,
// RCV.NXT advances by one, the ACK covers it at once) although it carries no new byte; a
// retransmission of it is old and only re-acknowledged. Neither counts as a delivery: the
// flow's completion time is that of its last data byte.
#[test]
fn a_bare_fin_at_rcv_nxt_is_taken_once() {
    let cfg = TcpConfig { delack: DelAck::On { count: 2, timeout: Dur::from_millis(200) }, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(2 * MSS));
    let data = p.client_sends();
    assert_eq!(p.deliver_to_server(&data).len(), 1);
    let t_data = p.now;
    assert_eq!(p.s.counters.last_delivery, t_data);
    p.now += Dur::from_millis(50);
    let mut out = Vec::new();
    p.c.app_close(p.now, &mut out);
    let fin = out.pop().unwrap();
    assert_eq!((fin.payload, flags(&fin) & F::FIN), (0, F::FIN));
    let acks = p.deliver_to_server(std::slice::from_ref(&fin));
    // CLOSE-WAIT, then LAST-ACK: the receiving application closes as soon as it sees the end.
    assert_eq!(p.s.state, ConnState::LastAck);
    assert!(!acks.is_empty(), "the FIN is acknowledged at once");
    assert!(acks.iter().all(|a| ack_no(a) == end_of(1) + 1), "the ACK covers the FIN");
    assert_eq!((p.s.counters.delivered, p.s.counters.last_delivery), (2 * MSS, t_data), "a FIN is no data");
    p.now += Dur::from_millis(50);
    let again = p.deliver_to_server(std::slice::from_ref(&fin));
    assert!(!again.is_empty(), "a retransmitted FIN is re-acknowledged");
    assert!(again.iter().all(|a| ack_no(a) == end_of(1) + 1));
    assert_eq!(p.s.state, ConnState::LastAck);
    assert_eq!(p.s.counters.last_delivery, t_data);
}

// tests reassembly: segments 2 and 3 held out of order, then segment 1 filling the hole and
// segment 0 abutting segment 1: the cumulative ACK pulls in every held block that now touches
// RCV.NXT, including one that starts exactly at it.
#[test]
fn filling_a_hole_pulls_in_the_abutting_held_blocks() {
    let mut p = Pair::new(TcpConfig { delack: DelAck::Off, ..TcpConfig::default() }, None);
    let burst = p.client_sends();
    assert_eq!(ack_no(&p.deliver_to_server(&burst[0..1])[0]), end_of(0));
    assert_eq!(ack_no(&p.deliver_to_server(&burst[3..4])[0]), end_of(0), "held");
    assert_eq!(ack_no(&p.deliver_to_server(&burst[2..3])[0]), end_of(0), "held");
    let acks = p.deliver_to_server(&burst[1..2]);
    assert_eq!(ack_no(&acks[0]), end_of(3), "segments 2 and 3 pulled in");
    assert_eq!(p.s.counters.delivered, 4 * MSS);
}

/// A connection under `delack = "linux"` with ECN whose quick ACKs are used up; returns the
/// rest of the first flight (segments 1..).
fn linux_ecn_past_quickack() -> (Pair, Vec<SimPacket>) {
    let cfg = TcpConfig { delack: DelAck::Linux, ecn: true, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let burst = p.client_sends();
    assert_eq!(burst[0].tos.ecn(), Ecn::Ect0);
    assert_eq!(p.deliver_to_server(&burst[0..1]).len(), 1, "first data: quick ACK");
    p.s.lnx_ack.quick = 0;
    (p, burst[1..].to_vec())
}

// tests Linux `tcp_ecn_check_ce` (delack = "linux"): the first CE mark of an episode enters
// quick-ACK mode, so the marked segment is acknowledged at once (with ECE), where an unmarked
// one waits for the delayed-ACK timer.
#[test]
fn linux_delack_acknowledges_a_ce_segment_at_once() {
    let (mut p, rest) = linux_ecn_past_quickack();
    assert!(p.deliver_to_server(&rest[0..1]).is_empty(), "ECT, unmarked: delayed");
    let (mut p2, rest2) = linux_ecn_past_quickack();
    let mut ce = rest2[0].clone();
    ce.tos.set_ecn(Ecn::Ce);
    let acks = p2.deliver_to_server(&[ce]);
    assert_eq!(acks.len(), 1, "CE: quick ACK");
    assert_eq!(flags(&acks[0]) & F::ECE, F::ECE);
    assert_eq!(p2.s.lnx_ack.quick, delayed_ack::ECN_QUICKACKS - 1, "two quick ACKs granted, one used");
}

// tests Linux `tcp_ecn_check_ce`: a Not-ECT data segment after ECT ones is probably a
// retransmission (RFC 3168 §6.1.5 sends those Not-ECT), so it enters quick-ACK mode too.
#[test]
fn linux_delack_a_not_ect_segment_after_ect_ones_is_acknowledged_at_once() {
    let (mut p, rest) = linux_ecn_past_quickack();
    let mut plain = rest[0].clone();
    plain.tos.set_ecn(Ecn::NotEct);
    assert_eq!(p.deliver_to_server(&[plain]).len(), 1, "Not-ECT after ECT: quick ACK");
    // Without ECT seen first, a Not-ECT segment is just data.
    let cfg = TcpConfig { delack: DelAck::Linux, ecn: true, ..TcpConfig::default() };
    let mut q = Pair::new(cfg, None);
    let burst: Vec<SimPacket> = q.client_sends().into_iter().map(|mut s| { s.tos.set_ecn(Ecn::NotEct); s }).collect();
    assert_eq!(q.deliver_to_server(&burst[0..1]).len(), 1);
    q.s.lnx_ack.quick = 0;
    assert!(q.deliver_to_server(&burst[1..2]).is_empty(), "no ECT seen: delayed");
}

// tests that only data segments feed the Linux engine's ECN input (`tcp_event_data_recv` runs
// for data): a bare FIN, Not-ECT after ECT data, leaves quick-ACK mode as it was.
#[test]
fn linux_delack_a_bare_fin_is_no_ecn_input() {
    let cfg = TcpConfig { delack: DelAck::Linux, ecn: true, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(2 * MSS));
    let data = p.client_sends();
    assert_eq!(data.iter().map(|s| s.tos.ecn()).collect::<Vec<_>>(), [Ecn::Ect0, Ecn::Ect0]);
    p.deliver_to_server(&data);
    p.bare_fin_leaves_no_quick_ack();
    assert_eq!(seg_seq(&data[1]), 1001 + MSS as u32);
}

fn sack_of(ack: &SimPacket) -> Vec<(u32, u32)> {
    match ack.transport {
        Transport::Tcp { opts, .. } => opts.sack.as_slice().to_vec(),
        Transport::Udp => unreachable!(),
    }
}

// tests RFC 2018 §4 after a hole fills: blocks now below RCV.NXT leave the report and the
// others keep their order of arrival (segment 4 arrived after segment 6, so it is reported
// first), under the RFC's list and ns-3's alike. Segments 0, 6, 4, 2 arrive, then 1 fills the
// first hole and pulls in 2.
#[test]
fn a_filled_hole_leaves_the_other_blocks_in_arrival_order() {
    let block = |k: u32| (1001 + k * MSS as u32, end_of(k));
    for report in [SackReport::Rfc2018, SackReport::Ns3] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { sack_report: report, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        let burst = p.client_sends();
        for k in [0, 6, 4, 2] {
            p.deliver_to_server(&burst[k..k + 1]);
        }
        let acks = p.deliver_to_server(&burst[1..2]);
        assert_eq!(ack_no(&acks[0]), end_of(2), "{report:?}");
        assert_eq!(sack_of(&acks[0]), [block(4), block(6)], "{report:?}");
    }
}

// tests ns-3's `ack_first_segment` (`TcpSocketBase::ReceivedData` sends the ACK of the first
// data segment at once, its delayed-ACK count starting there): with every second segment
// acknowledged, segments 0, 2, 4 are acknowledged at once under ns-3's rule and 1, 3, 5 under
// RFC 1122's.
#[test]
fn ns3_acknowledges_the_first_data_segment_at_once() {
    for (first, acked) in [(false, [1, 3, 5]), (true, [0, 2, 4])] {
        let cfg = TcpConfig { delack: DelAck::On { count: 2, timeout: Dur::from_millis(200) }, compat: Ns3Compat { ack_first_segment: first, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        let burst = p.client_sends();
        let got: Vec<usize> = (0..6).filter(|&k| !p.deliver_to_server(&burst[k..k + 1]).is_empty()).collect();
        assert_eq!(got, acked, "ack_first_segment = {first}");
    }
}

/// A copy of `seg` cut to `len` payload bytes starting `offset` bytes into it.
fn piece(seg: &SimPacket, offset: u32, len: u32) -> SimPacket {
    let mut s = seg.clone();
    if let Transport::Tcp { seq, .. } = &mut s.transport {
        *seq += offset;
    }
    s.payload = len;
    s
}

// tests Linux `tcp_send_delayed_ack` (delack = "linux"): a second short segment arriving while a
// delayed ACK is pending keeps the earlier deadline, and sends at once if that deadline is
// within ato/4. Segment 0 (full size: rcv_mss 1448) at T; quick ACKs used up; 500-byte pieces
// of segment 1 at T+10 ms (gap ≤ 20 ms: ato = 40/2 + 20 = 40 ms, deadline T+50) and T+20 ms
// (1000 bytes unacknowledged ≤ rcv_mss: no ACK; new deadline T+60, the pending T+50 is earlier
// and beyond T+20 + 10 ms: T+50 stays). A third piece at T+45 ms (gap 25 ms: ato = 40/2 + 25 =
// 45 ms): T+50 ≤ T+45 + 11.25 ms: ACK now.
#[test]
fn linux_delack_keeps_the_earlier_deadline_or_sends_when_it_is_near() {
    let cfg = TcpConfig { delack: DelAck::Linux, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let burst = p.client_sends();
    let t = p.now;
    assert_eq!(p.deliver_to_server(&burst[0..1]).len(), 1);
    p.s.lnx_ack.quick = 0;
    p.now = t + Dur::from_millis(10);
    assert!(p.deliver_to_server(&[piece(&burst[1], 0, 500)]).is_empty());
    assert_eq!(p.s.poll_at(), Some(t + Dur::from_millis(50)));
    p.now = t + Dur::from_millis(20);
    assert!(p.deliver_to_server(&[piece(&burst[1], 500, 500)]).is_empty());
    assert_eq!(p.s.poll_at(), Some(t + Dur::from_millis(50)), "the earlier deadline stays");
    p.now = t + Dur::from_millis(45);
    let acks = p.deliver_to_server(&[piece(&burst[1], 1000, 100)]);
    assert_eq!(acks.len(), 1, "the pending deadline is within ato/4: ACK now");
    assert_eq!(ack_no(&acks[0]), end_of(0) + 1100);
}

fn block(k: u32) -> (u32, u32) {
    (1001 + k * MSS as u32, end_of(k))
}

/// Deliver segments `ks` of `burst` to the server one at a time; the SACK blocks of the last ACK.
fn sack_after(p: &mut Pair, burst: &[SimPacket], ks: &[usize]) -> Vec<(u32, u32)> {
    let mut last = Vec::new();
    for &k in ks {
        last = p.deliver_to_server(&burst[k..k + 1]);
    }
    sack_of(&last[0])
}

// tests RFC 2018 §4: the first block reports the most recent arrival, the others the most
// recently reported blocks, in that order (three fit beside timestamps); a block that grows by
// merging replaces the entries it swallowed. Segment 0 arrives in order, then 8, 6, 4 (three
// holes): blocks 4, 6, 8; then 5 joins 4 and 6: blocks [4, 7), 8. Another connection: 8, 4, 10:
// blocks 10, 4, 8 (not the order of the sequence space).
#[test]
fn rfc2018_reports_blocks_most_recent_first() {
    let cfg = TcpConfig { delack: DelAck::Off, ..TcpConfig::default() };
    let mut p = Pair::new(cfg.clone(), None);
    let burst = p.client_sends();
    assert_eq!(sack_after(&mut p, &burst, &[0, 8, 6, 4]), [block(4), block(6), block(8)]);
    assert_eq!(sack_after(&mut p, &burst, &[5]), [(block(4).0, block(6).1), block(8)]);
    let mut q = Pair::new(cfg, None);
    let burst = q.client_sends();
    assert_eq!(sack_after(&mut q, &burst, &[0, 8, 4]), [block(4), block(8)]);
    // Segment 10, beyond the first flight, made from segment 0's header.
    let ten: Vec<SimPacket> = (0..11).map(|k| piece(&burst[0], k * MSS as u32, MSS as u32)).collect();
    assert_eq!(sack_after(&mut q, &ten, &[10]), [block(10), block(4), block(8)]);
}

// tests ns-3's SACK list (`TcpRxBuffer::UpdateSackList`): an arrival is trimmed to the bytes not
// already held at either end, put in front, and merged with listed blocks it exactly abuts; an
// arrival held already changes nothing. Segment 0 in order, 3 held; then 2 and the first 500
// bytes of 3 arrive together: trimmed to [2, 3), which abuts 3: one block [2, 4). Then the last
// 948 bytes of 3 with all of 4: trimmed to 4, which abuts: [2, 5). Then 3 again: no change.
#[test]
fn ns3_sack_list_trims_overlaps_and_merges_abutting_blocks() {
    let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { sack_report: SackReport::Ns3, ..Ns3Compat::RFC }, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let burst = p.client_sends();
    assert_eq!(sack_after(&mut p, &burst, &[0, 3]), [block(3)]);
    let acks = p.deliver_to_server(&[piece(&burst[2], 0, MSS as u32 + 500)]);
    assert_eq!(sack_of(&acks[0]), [(block(2).0, block(3).1)]);
    let acks = p.deliver_to_server(&[piece(&burst[3], 500, 2 * MSS as u32 - 500)]);
    assert_eq!(sack_of(&acks[0]), [(block(2).0, block(4).1)]);
    assert_eq!(sack_after(&mut p, &burst, &[3]), [(block(2).0, block(4).1)]);
}

// tests ns-3's trimming (`TcpRxBuffer::Add`) when the arrival spans a held block: only a held
// block that reaches past the arrival's end trims it, so segments 2-4 arriving in one piece
// over a held segment 3 go into the list whole, beside the entry for 3 (ns-3 reports both).
#[test]
fn ns3_sack_list_keeps_an_arrival_that_spans_a_held_block_whole() {
    let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { sack_report: SackReport::Ns3, ..Ns3Compat::RFC }, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let burst = p.client_sends();
    assert_eq!(sack_after(&mut p, &burst, &[0, 3]), [block(3)]);
    let acks = p.deliver_to_server(&[piece(&burst[2], 0, 3 * MSS as u32)]);
    assert_eq!(sack_of(&acks[0]), [(block(2).0, block(4).1), block(3)]);
}
