//! The sending loop (`send_what_the_windows_allow`) and what each segment leaving updates:
//! retransmission order and room, Nagle, the pacing rate, the counters, and the state the
//! congestion control and the delivery-rate sampler read. One rule per test, each a small
//! hand-checked exchange.

use super::cc::{AnyCc, CaState};
use super::config::{NextSeg, Pacing};
use super::tests::{seg_seq, Pair, MSS};
use super::*;
use crate::packet::{SimPacket, Transport};
use sluice_core::Dur;

/// Rewrite an ACK's window field to `bytes` (a gateway lowering it).
fn set_window(p: &Pair, ack: &mut SimPacket, bytes: u64) {
    let field = bytes >> p.c.snd_shift;
    if let Transport::Tcp { window, .. } = &mut ack.transport {
        *window = field as u16;
    }
}

fn app_limited(p: &Pair) -> u64 {
    p.c.rate.as_ref().expect("BBR keeps a rate sampler").app_limited
}

/// BBR without pacing or delayed ACKs (the windows alone decide what leaves), with ns-3's
/// application-limited test (`after_write`) or Linux's.
fn unpaced_bbr(after_write: bool) -> TcpConfig {
    let mut cfg = TcpConfig { cc: CcKind::Bbr, pacing: Pacing::Off, delack: DelAck::Off, ..TcpConfig::default() };
    cfg.compat.app_limited_after_write = after_write;
    cfg
}

// tests the retransmission counters: each retransmission adds its payload to `retx_bytes`
// and one to `retx_pkts`. Segment 0 of ten is lost; the third duplicate ACK retransmits it
// (RFC 5681 §3.2): 1448 bytes, one packet.
#[test]
fn retransmission_counters_add_the_payload() {
    let cfg = TcpConfig { delack: DelAck::Off, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(10 * MSS));
    let burst = p.client_sends();
    let dups = p.deliver_to_server(&burst[1..4]);
    let out = p.deliver_to_client(&dups);
    assert_eq!(out.iter().filter(|s| seg_seq(s) == seg_seq(&burst[0])).count(), 1);
    assert_eq!((p.c.counters.retx_bytes, p.c.counters.retx_pkts), (MSS, 1));
}

// tests Nagle's algorithm (RFC 896; RFC 9293 §3.7.4, `nagle = true`): a segment shorter than
// SMSS waits while data is outstanding; full segments never wait, and a short one goes when
// nothing is outstanding. 2 SMSS + 500 B written: two full segments, the 500 B held; once
// both are acknowledged the 500 B go. Then 300 B more with nothing outstanding: at once.
#[test]
fn nagle_holds_a_short_segment_while_data_is_outstanding() {
    let cfg = TcpConfig { delack: DelAck::Off, nagle: true, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(2 * MSS + 500));
    let burst = p.client_sends();
    let lens: Vec<u32> = burst.iter().map(|s| s.payload).collect();
    assert_eq!(lens, vec![MSS as u32, MSS as u32], "full segments go, the 500 B wait");
    let acks = p.deliver_to_server(&burst);
    let out = p.deliver_to_client(&acks);
    let lens: Vec<u32> = out.iter().map(|s| s.payload).collect();
    assert_eq!(lens, vec![500], "nothing outstanding: the short segment goes");
    let acks = p.deliver_to_server(&out);
    p.deliver_to_client(&acks);
    let mut out = Vec::new();
    p.c.app_write_more(300, p.now, &mut out);
    let lens: Vec<u32> = out.iter().map(|s| s.payload).collect();
    assert_eq!(lens, vec![300], "a short write with nothing outstanding goes at once");
}

// tests `pacing = "linux"`'s rate (Linux `tcp_update_pacing_rate`): ratio 200 % only while
// cwnd < ssthresh / 2, and the window is max(cwnd, what is in flight). After the first ACK
// (RTT 20 ms, so SRTT = 20 ms) 10 segments are in flight. With cwnd = 11 SMSS and ssthresh =
// 22 SMSS, cwnd is not below ssthresh / 2: 120 % · 11 · 1448 B · 8 / 20 ms = 7,645,440 b/s.
// With cwnd = ssthresh = 4 SMSS (as after a loss) and 10 SMSS in flight: 120 % · 10 · 1448 B ·
// 8 / 20 ms = 6,950,400 b/s.
#[test]
fn linux_pacing_ratio_at_half_ssthresh_and_window_of_what_is_in_flight() {
    let cfg = TcpConfig { delack: DelAck::Off, pacing: Pacing::Linux, handshake_rtt: false, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    p.now += Dur::from_millis(10);
    let acks = p.deliver_to_server(&burst);
    p.now += Dur::from_millis(10);
    let out = p.deliver_to_client(&acks[..1]);
    assert_eq!(out.len(), 1, "pacing lets one of the two go");
    assert_eq!(p.c.rtt.srtt, Some(Dur::from_millis(20)));
    assert_eq!(p.c.snd_max - p.c.snd_una, 10 * MSS);
    p.c.w.cwnd = 11 * MSS;
    p.c.w.ssthresh = 22 * MSS;
    assert_eq!(p.c.pacing_rate(), Some(sluice_core::Rate(7_645_440)), "cwnd = ssthresh / 2: 120 %");
    p.c.w.cwnd = 4 * MSS;
    p.c.w.ssthresh = 4 * MSS;
    assert_eq!(p.c.pacing_rate(), Some(sluice_core::Rate(6_950_400)), "10 SMSS in flight > cwnd");
}

// tests ns-3's `m_isCwndLimited` (`SendDataPacket`: cwnd < bytes in flight + one segment after
// each data segment), which ns-3's TcpLinuxReno (`cc_linux = false`) reads: congestion
// avoidance grows cwnd only while cwnd-limited. cwnd = ssthresh = 4 SMSS. Writes of 3 SMSS
// leave one segment of room (4 < 3 + 1 is false): not limited, and six ACKs grow nothing (a
// limited sender would have counted 4 ACKs to one segment more). A write of 4 SMSS fills cwnd
// (4 < 4 + 1): limited, and its four ACKs grow cwnd to 5 SMSS (`tcp_cong_avoid_ai`, 4 ACKs at
// cwnd 4).
#[test]
fn ns3_linux_reno_grows_only_when_cwnd_limited() {
    let cfg = TcpConfig { cc: CcKind::LinuxReno, delack: DelAck::Off, iw: InitialWindow::Segments(4), initial_ssthresh: 4 * MSS, compat: Ns3Compat { cc_linux: false, ..Ns3Compat::RFC }, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(3 * MSS));
    assert_eq!((p.c.w.cwnd, p.c.w.ssthresh), (4 * MSS, 4 * MSS));
    let ack_each = |p: &mut Pair, segs: Vec<SimPacket>| {
        for s in segs {
            let acks = p.deliver_to_server(&[s]);
            assert!(p.deliver_to_client(&acks).is_empty());
        }
    };
    for round in 0..2 {
        let segs = if round == 0 {
            p.client_sends()
        } else {
            let mut out = Vec::new();
            p.c.app_write_more(3 * MSS, p.now, &mut out);
            out
        };
        assert_eq!(segs.len(), 3);
        assert!(!p.c.cwnd_limited, "4 SMSS < 3 SMSS + 1 SMSS is false");
        ack_each(&mut p, segs);
    }
    assert_eq!(p.c.w.cwnd, 4 * MSS, "six ACKs while not cwnd-limited: no growth");
    let mut segs = Vec::new();
    p.c.app_write_more(4 * MSS, p.now, &mut segs);
    assert_eq!(segs.len(), 4);
    assert!(p.c.cwnd_limited, "4 SMSS < 4 SMSS + 1 SMSS");
    ack_each(&mut p, segs);
    assert_eq!(p.c.w.cwnd, 5 * MSS, "four ACKs while cwnd-limited: one segment more");
}

// tests the delivery-rate sampler's application-limited mark (draft-cheng-iccrg-delivery-rate-
// estimation "application-limited"): asked only when the application writes, set to delivered
// + in flight when less than a segment is unsent, cwnd is not full and no more bytes are lost
// than retransmitted. BBR without pacing, so the windows alone decide what leaves; nothing is
// delivered yet; cwnd is the initial 10 SMSS. A first write of `first` bytes leaves what the
// peer's window allows, then the application writes 1000 B more.
// Linux (`tcp_rate_check_app_limited` at the start of `tcp_sendmsg`, before the write; a new
// connection starts marked, 1, until its first delivery):
// - 9 SMSS, all sent: nothing unsent, 9 SMSS < cwnd: the write marks 0 + 9 SMSS;
// - 10 SMSS, all sent: in flight = cwnd (not below): still 1;
// - peer window 4 SMSS, 5 SMSS − 1 B: 1447 B unsent, 4 SMSS in flight: 4 SMSS;
// - peer window 4 SMSS, 5 SMSS: exactly a segment unsent, not less: 1.
// ns-3 (`CalculateAppLimited` after `TcpTxBuffer::Add`, unsent counted from the send pointer;
// a new connection unmarked, 0): the 1000 B count as unsent, so only the first case marks
// (1000 B < 1448); with 1447 B already unsent, 2447 B are: no mark.
#[test]
fn bbr_app_limited_mark_is_asked_when_the_application_writes() {
    let cases: [(u64, u64, usize, u64, u64); 4] = [
        (131_072, 9 * MSS, 9, 9 * MSS, 9 * MSS),
        (131_072, 10 * MSS, 10, 1, 0),
        (4 * MSS, 5 * MSS - 1, 4, 4 * MSS, 0),
        (4 * MSS, 5 * MSS, 4, 1, 0),
    ];
    for (rcv_buf, first, sent, linux, ns3) in cases {
        for after_write in [false, true] {
            let cfg = TcpConfig { rcv_buf, window_scaling: false, ..unpaced_bbr(after_write) };
            let mut p = Pair::new(cfg, Some(first));
            assert_eq!(p.c.w.cwnd, 10 * MSS);
            assert_eq!(p.client_sends().len(), sent, "{rcv_buf} {first}");
            assert_eq!(app_limited(&p), if after_write { 0 } else { 1 }, "the first write: nothing sent yet");
            p.c.app_write_more(1000, p.now, &mut Vec::new());
            assert_eq!(app_limited(&p), if after_write { ns3 } else { linux }, "{rcv_buf} {first} after_write {after_write}");
        }
    }
}

// tests where ns-3 counts unsent bytes from for the application-limited test: its send pointer,
// which a retransmission moves back. Ten segments written and sent, segment 0 lost; three
// SACKed duplicates bring its fast retransmission (`DoRetransmit`), after which the send
// pointer stands at its start while SND.NXT is at 10 SMSS. With cwnd opened to 20 SMSS the
// application writes 100 B: counted from the send pointer 10 SMSS + 100 B are unsent under
// ns-3 (no mark); Linux
// counts from SND.NXT before the write, nothing unsent, and marks (delivered 3 SMSS + in flight).
#[test]
fn ns3_counts_unsent_bytes_from_its_send_pointer() {
    for after_write in [false, true] {
        let mut p = Pair::new(unpaced_bbr(after_write), Some(10 * MSS));
        let burst = p.client_sends();
        assert_eq!(burst.len(), 10);
        let dups = p.deliver_to_server(&burst[1..4]);
        let rtx = p.deliver_to_client(&dups);
        assert_eq!(rtx.iter().map(seg_seq).collect::<Vec<_>>(), vec![seg_seq(&burst[0])], "the fast retransmission");
        p.c.w.cwnd = 20 * MSS;
        p.c.rate.as_mut().expect("BBR keeps a rate sampler").app_limited = 0;
        let pipe = p.c.pipe();
        p.c.app_write_more(100, p.now, &mut Vec::new());
        let want = if after_write { 0 } else { 3 * MSS + pipe };
        assert_eq!(app_limited(&p), want, "after_write {after_write}");
    }
}

// tests the lost-against-retransmitted part of the application-limited test: Linux compares
// lost bytes with retransmitted ones still un-SACKed (`lost_out <= retrans_out`); ns-3's
// `TcpTxBuffer` keeps counting a retransmission once SACKed (`m_retrans` falls only at the
// cumulative ACK). Ten segments sent, all written; the scoreboard then holds 2 SMSS lost and
// either 1 SMSS retransmitted and un-SACKed with 1 SMSS retransmitted and SACKed, or both
// retransmissions SACKed (8 SMSS in flight): on a write Linux finds a lost segment not yet
// retransmitted (2 > 1, 2 > 0: no mark), ns-3 does not (2 ≤ 1 + 1, 2 ≤ 0 + 2: marked at
// delivered 0 + in flight).
#[test]
fn app_limited_counts_sacked_retransmissions_only_under_ns3() {
    for (retrans, sacked_retrans) in [(MSS, MSS), (0, 2 * MSS)] {
        for after_write in [false, true] {
            let mut p = Pair::new(unpaced_bbr(after_write), Some(10 * MSS));
            assert_eq!(p.client_sends().len(), 10);
            p.c.w.cwnd = 20 * MSS;
            p.c.rate.as_mut().expect("BBR keeps a rate sampler").app_limited = 0;
            p.c.sb.lost_bytes = 2 * MSS;
            p.c.sb.retrans_bytes = retrans;
            p.c.sb.sacked_retrans_bytes = sacked_retrans;
            p.c.check_app_limited(100);
            let want = if after_write { p.c.pipe() } else { 0 };
            assert_eq!(app_limited(&p), want, "retransmitted {retrans} (SACKed {sacked_retrans}), after_write {after_write}");
        }
    }
}

// tests the delivery-rate sampler's clocks on a retransmission (draft-cheng-iccrg-delivery-
// rate-estimation "upon transmitting", Linux `tcp_rate_skb_sent`): they restart at the send time
// only when nothing is in flight. The fast retransmission at t1 leaves with 6 SMSS in flight
// (10 outstanding, 3 SACKed, the head lost): first_sent_time stays the send time of the SACKed
// segments (t0) and delivered_time their delivery (t1 as well here, the ACKs' time). After a
// timeout everything is lost and nothing is in flight: the head's retransmission at t2 restarts
// both at t2.
#[test]
fn rate_clocks_restart_only_for_a_retransmission_with_nothing_in_flight() {
    let cfg = TcpConfig { cc: CcKind::Bbr, pacing: Pacing::Off, delack: DelAck::Off, ..TcpConfig::default() };
    let mut p = Pair::new(cfg.clone(), Some(10 * MSS));
    let t0 = p.now;
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    let dups = p.deliver_to_server(&burst[1..4]);
    p.now += Dur::from_millis(20);
    let t1 = p.now;
    let out = p.deliver_to_client(&dups);
    assert_eq!(out.iter().map(seg_seq).collect::<Vec<_>>(), vec![seg_seq(&burst[0])], "the fast retransmission");
    assert_eq!(p.c.pipe(), 7 * MSS, "6 SMSS before it, 7 after");
    assert_eq!(p.c.rate.as_ref().unwrap().clocks(), (t0, t1));

    let mut p = Pair::new(cfg, Some(10 * MSS));
    p.client_sends();
    p.now = p.c.poll_at().unwrap();
    let t2 = p.now;
    let mut out = Vec::new();
    p.c.on_wakeup(p.now, &mut out);
    assert_eq!(p.c.counters.rto_count, 1);
    assert_eq!(p.c.rate.as_ref().unwrap().clocks(), (t2, t2));
}

/// Ten segments paced 1 ms apart (FixedRate at 11.584 Mb/s, 1448 B each), SACK recovery with
/// `recovery` and `pace_fast_retransmit`; segment 1 does not arrive with the others. Returns the
/// pair once the third duplicate ACK has entered recovery with the fast retransmission held for
/// the pacing slot (at `p.now` + 1 ms), and the first flight.
fn paced_recovery_held(recovery: Recovery) -> (Pair, Vec<SimPacket>) {
    let cfg = TcpConfig { delack: DelAck::Off, recovery, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    p.c.cc = AnyCc::FixedRate(super::cc::FixedRate(sluice_core::Rate::bps(11_584_000), super::cc::LossResponse::NewReno));
    let t0 = p.now;
    let mut sent = p.client_sends();
    sent.extend(super::tests::run_client_timers(&mut p, t0 + Dur::from_millis(20)).into_iter().map(|(_, s)| s));
    assert_eq!(sent.len(), 10);
    p.now = t0 + Dur::from_millis(30);
    let others: Vec<SimPacket> = sent.iter().enumerate().filter(|(i, _)| *i != 1).map(|(_, s)| s.clone()).collect();
    let acks = p.deliver_to_server(&others);
    p.now = t0 + Dur::from_millis(40);
    // The ACK of segment 0 sends segment 10 and starts a 1 ms pacing gap.
    let out = p.deliver_to_client(&acks[..1]);
    assert_eq!(out.len(), 1);
    let out = p.deliver_to_client(&acks[1..4]);
    assert!(out.is_empty(), "the retransmission waits for the slot");
    assert_eq!(p.c.ca, CaState::Recovery);
    assert!(p.c.fast_rtx_pending);
    (p, sent)
}

// tests the held fast retransmission (`pace_fast_retransmit`, Linux): it takes the next pacing
// slot "whatever the window says", as if sent on entering recovery (RFC 6675 §5 step 4.3
// retransmits the first lost segment on entry regardless of pipe). Classic SACK recovery:
// pipe = 10 outstanding (segments 1-10) − 3 SACKed − 1 lost = 6 SMSS, ssthresh = cwnd = 6 / 2
// = 3 SMSS (RFC 6675 §5 step 4.2, FlightSize read as pipe) < pipe: NextSeg's own rule would
// send nothing. At the slot: segment 1, alone.
#[test]
fn a_held_fast_retransmission_goes_in_its_slot_whatever_the_window() {
    let (mut p, sent) = paced_recovery_held(Recovery::Classic);
    assert_eq!((p.c.w.cwnd, p.c.pipe()), (3 * MSS, 6 * MSS));
    let until = p.now + Dur::from_millis(1);
    let later = super::tests::run_client_timers(&mut p, until);
    let seqs: Vec<u32> = later.iter().map(|(_, s)| seg_seq(s)).collect();
    assert_eq!(seqs, vec![seg_seq(&sent[1])]);
    assert_eq!(p.c.counters.retx_pkts, 1);
}

// tests that a held fast retransmission is dropped when its segment is acknowledged before the
// slot (segment 1 was only late, as in reordering): the partial ACK makes segment 10, in
// flight and neither lost nor SACKed, the head, and the slot must not resend it. (Linux's
// `tcp_xmit_retransmit_queue` retransmits only segments marked lost.)
#[test]
fn a_held_fast_retransmission_is_dropped_if_its_segment_arrives_first() {
    let (mut p, sent) = paced_recovery_held(Recovery::Prr(PrrVariant::Rfc9937));
    let acks = p.deliver_to_server(&sent[1..2]);
    p.now += Dur::from_micros(500);
    p.deliver_to_client(&acks);
    assert_eq!(p.c.snd_una, 1 + 10 * MSS, "segments 1-9 acknowledged: segment 10 is the head");
    assert_eq!(p.c.ca, CaState::Recovery, "a partial ACK (the recovery point is after segment 10)");
    let head = seg_seq(&sent[9]).wrapping_add(MSS as u32);
    let until = p.now + Dur::from_millis(5);
    let later = super::tests::run_client_timers(&mut p, until);
    assert!(later.iter().all(|(_, s)| seg_seq(s) != head), "segment 10 is not resent");
    assert_eq!(p.c.counters.retx_pkts, 0);
}

// tests `retx_merge`'s room test (ns-3 `SendPendingData`'s silly-window test with
// `rwnd_bounds_retx`'s AvailableWindow = min(cwnd, rwnd) − pipe): a retransmission needs a whole
// segment of room unless less data than that is left from its start. The timer fires on the
// whole flight; the head goes again and its ACK (cwnd 2 SMSS, nothing in flight) carries a
// window a gateway lowered to 1000 B: 1000 B of room. With 1 SMSS + 700 B written, segment 1 is
// the last 700 B: 700 ≤ 1000, it goes. With 2 SMSS + 700 B, 1 SMSS + 700 B are left from
// segment 1's start: a whole segment is needed, and 1000 < 1448: nothing goes.
#[test]
fn ns3_retransmission_room_is_a_segment_unless_less_is_left() {
    for (data, want) in [(MSS + 700, vec![700u32]), (2 * MSS + 700, vec![])] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { retx_merge: true, rwnd_bounds_retx: true, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(data));
        let burst = p.client_sends();
        assert_eq!(burst.len() as u64, data.div_ceil(MSS));
        p.now = p.c.poll_at().unwrap();
        let mut out = Vec::new();
        p.c.on_wakeup(p.now, &mut out);
        assert_eq!(out.iter().map(seg_seq).collect::<Vec<_>>(), vec![seg_seq(&burst[0])], "the head again");
        let mut acks = p.deliver_to_server(&out);
        set_window(&p, &mut acks[0], 1000);
        let rtx = p.deliver_to_client(&acks);
        assert_eq!((p.c.w.cwnd, p.c.snd_wnd), (2 * MSS, 1000));
        assert_eq!(rtx.iter().map(|s| s.payload).collect::<Vec<_>>(), want, "{data} B written");
    }
}

// tests RFC 6675 §4 NextSeg when rule (2) fails for the peer's window, not cwnd: the RFC goes on
// to rule (3), ns-3 (`nextseg = "ns3"`) does not while unsent data is left. A peer window of
// 10 SMSS (no scaling), unlimited data; segments 1 and 8 of the first ten are lost. The ACK of
// segment 0 moves the right edge one segment: segment 10 goes, and the window is full. The
// duplicates for 2-7 and 9 SACK seven segments: segment 1 is lost and retransmitted; segment 8
// has only segment 9 SACKed above it, so it is a hole below the highest SACK, not lost. pipe is
// then 3 SMSS (1 again, 8, 10) = cwnd. Segment 10's arrival SACKs it: pipe 2 SMSS, a segment of
// room. New data cannot go (SND.NXT is at the right edge): the RFC resends segment 8, ns-3 not.
#[test]
fn rule3_after_rule2_fails_for_the_peer_window_unless_ns3() {
    for (nextseg, rule3) in [(NextSeg::Rfc6675, true), (NextSeg::Ns3, false)] {
        let cfg = TcpConfig { delack: DelAck::Off, rcv_buf: 10 * MSS, window_scaling: false, compat: Ns3Compat { nextseg, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        let burst = p.client_sends();
        assert_eq!(burst.len(), 10);
        let arrived: Vec<SimPacket> = burst.iter().enumerate().filter(|(i, _)| ![1, 8].contains(i)).map(|(_, s)| s.clone()).collect();
        let acks = p.deliver_to_server(&arrived);
        let out = p.deliver_to_client(&acks);
        let seg10 = seg_seq(&burst[9]).wrapping_add(MSS as u32);
        assert_eq!(out.iter().map(seg_seq).collect::<Vec<_>>(), vec![seg10, seg_seq(&burst[1])], "{nextseg:?}: segment 10, then the fast retransmission");
        assert_eq!((p.c.pipe(), p.c.w.cwnd), (3 * MSS, 3 * MSS), "{nextseg:?}");
        let acks = p.deliver_to_server(&out[..1]);
        let out = p.deliver_to_client(&acks);
        assert_eq!((p.c.snd_max, p.c.snd_una + p.c.snd_wnd), (1 + 11 * MSS, 1 + 11 * MSS), "{nextseg:?}: at the right edge");
        let want = if rule3 { vec![seg_seq(&burst[8])] } else { vec![] };
        assert_eq!(out.iter().map(seg_seq).collect::<Vec<_>>(), want, "{nextseg:?}");
    }
}

// tests `edge_clip` (ns-3) at the right edge: with SACKed segments out of pipe, cwnd and the
// peer's window (min(cwnd, rwnd) − pipe) leave room for a segment, but SND.NXT is at the right
// edge, so the segment cut to the edge would be empty: nothing new goes (and no empty segment).
// A 10-SMSS peer window; segment 0 lost, 1-9 arrive and are SACKed: pipe falls to 1 SMSS (the
// retransmission) while the right edge stays at segment 10.
#[test]
fn ns3_edge_clip_sends_nothing_at_the_right_edge() {
    let cfg = TcpConfig { delack: DelAck::Off, rcv_buf: 10 * MSS, window_scaling: false, compat: Ns3Compat { edge_clip: true, ..Ns3Compat::RFC }, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    let acks = p.deliver_to_server(&burst[1..]);
    let out = p.deliver_to_client(&acks);
    assert_eq!(out.iter().map(seg_seq).collect::<Vec<_>>(), vec![seg_seq(&burst[0])], "only the retransmission");
    assert_eq!(p.c.snd_max, 1 + 10 * MSS);
    assert_eq!(p.c.pipe(), MSS);
    assert!(p.c.w.cwnd.min(p.c.snd_wnd) >= 2 * MSS, "room for a segment but for the edge");
}

// tests RFC 6675 §4 NextSeg rule (1) before rule (2): while a lost segment waits for cwnd − pipe
// to hold it, no new data goes, not even a write short enough for the room left. Classic SACK
// recovery, 10 SMSS written; segments 0 and 1 are lost. The third duplicate (2, 3, 4 SACKed)
// marks both lost: pipe = 10 − 3 − 2 = 5 SMSS, ssthresh = cwnd = 5 · 1448 / 2 = 3620 B; segment
// 0 goes again (pipe 6 SMSS). The duplicates for 5-8 bring pipe to 2 SMSS: room 3620 − 2896 =
// 724 B, less than segment 1 needs. The application then writes 700 B, which would fit: they
// wait. The duplicate for 9 (pipe 1 SMSS, room 2172 B) sends segment 1; then no lost segment
// waits, and the 700 B fit the 724 B left (rule 2).
#[test]
fn a_lost_segment_waiting_for_room_holds_back_new_data() {
    let cfg = TcpConfig { delack: DelAck::Off, recovery: Recovery::Classic, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(10 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    let dups = p.deliver_to_server(&burst[2..9]);
    let out = p.deliver_to_client(&dups);
    assert_eq!(out.iter().map(seg_seq).collect::<Vec<_>>(), vec![seg_seq(&burst[0])], "only the fast retransmission");
    assert_eq!((p.c.w.cwnd, p.c.pipe()), (3620, 2 * MSS));
    let mut out = Vec::new();
    p.c.app_write_more(700, p.now, &mut out);
    assert!(out.is_empty(), "700 B fit the room, but segment 1 comes first");
    let dup = p.deliver_to_server(&burst[9..]);
    let out = p.deliver_to_client(&dup);
    let sent: Vec<(u32, u32)> = out.iter().map(|s| (seg_seq(s), s.payload)).collect();
    assert_eq!(sent, vec![(seg_seq(&burst[1]), MSS as u32), (seg_seq(&burst[9]) + MSS as u32, 700)], "segment 1, then the 700 B");
}

// tests the same rule when the peer's window, not cwnd, holds the lost segment back (a gateway
// lowered the window to 3 SMSS on every ACK; a retransmission stays inside the peer's window
// unless the timer fired): NextSeg's rule (1) found a segment, so rules (2)-(4) are not tried,
// and no hole above it is retransmitted instead. A first segment is acknowledged (SND.UNA = 1 +
// 1 SMSS, cwnd 11 SMSS), then ten are written and sent. Segments 0, 5 and 8 of those ten are
// lost; 1-4, 6, 7 and 9 arrive. Classic SACK recovery on the third duplicate: pipe 10 − 3 − 1 =
// 6 SMSS, ssthresh = cwnd = 3 SMSS, segment 0 again (inside the window). After the duplicate for
// 9, segment 5 is lost (6, 7, 9 SACKed above it) and segment 8 is a hole (only 9 above): pipe =
// 0 again + 8 = 2 SMSS, a segment of room. Segment 5 ends 6 SMSS above SND.UNA, beyond its 3
// SMSS: it waits, and so does segment 8 (rule 3).
#[test]
fn a_lost_segment_beyond_the_peer_window_holds_back_the_holes_above_it() {
    let cfg = TcpConfig { delack: DelAck::Off, recovery: Recovery::Classic, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(MSS));
    let first = p.client_sends();
    let acks = p.deliver_to_server(&first);
    p.deliver_to_client(&acks);
    assert_eq!((p.c.snd_una, p.c.w.cwnd), (1 + MSS, 11 * MSS));
    let mut burst = Vec::new();
    p.c.app_write_more(10 * MSS, p.now, &mut burst);
    assert_eq!(burst.len(), 10);
    let arrived: Vec<SimPacket> = burst.iter().enumerate().filter(|(i, _)| ![0, 5, 8].contains(i)).map(|(_, s)| s.clone()).collect();
    let mut dups = p.deliver_to_server(&arrived);
    assert_eq!(dups.len(), 7);
    for d in dups.iter_mut() {
        set_window(&p, d, 3 * MSS);
    }
    let out = p.deliver_to_client(&dups);
    assert_eq!(p.c.snd_wnd, 3 * MSS);
    assert_eq!((p.c.w.cwnd, p.c.pipe()), (3 * MSS, 2 * MSS));
    assert_eq!(out.iter().map(seg_seq).collect::<Vec<_>>(), vec![seg_seq(&burst[0])], "only the fast retransmission");
}

// tests the persist timer while its probe is unacknowledged (RFC 9293 §3.8.6.1: keep probing,
// with exponential backoff; Linux `tcp_probe_timer` does nothing while packets are out, and
// ns-3's `PersistTimeout` and BSD re-send the same byte): the retransmission timer resends the
// one-byte probe, and the persist timeout sends no further byte beyond the zero window. Ten
// segments acknowledged with a zero window (RTT 0, so RTO = min_rto = 1 s); the probe leaves at
// t = 6 s and is lost; the RTO resends it at t + 1 s, t + 3 s and t + 7 s (backed off, 1, 2,
// 4 s); the persist timer's t + 12 s finds the probe outstanding and sends nothing.
#[test]
fn no_second_window_probe_while_the_first_is_outstanding() {
    let cfg = TcpConfig { delack: DelAck::Off, sack: false, recovery: Recovery::Classic, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(20 * MSS));
    let burst = p.client_sends();
    let mut acks = p.deliver_to_server(&burst);
    for a in acks.iter_mut() {
        set_window(&p, a, 0);
    }
    assert!(p.deliver_to_client(&acks).is_empty(), "a zero window holds the sender");
    let t = p.c.persist_at;
    assert_eq!(t, p.now + super::endpoint::PERSIST_TIMEOUT);
    p.now = t;
    let mut probe = Vec::new();
    p.c.on_wakeup(t, &mut probe);
    assert_eq!(probe.iter().map(|s| s.payload).collect::<Vec<_>>(), vec![1], "a one-byte probe");
    assert_eq!(p.c.persist_at, t + Dur::from_secs(12));
    let sent = super::tests::run_client_timers(&mut p, t + Dur::from_secs(12));
    let got: Vec<(Dur, u32, u32)> = sent.iter().map(|(at, s)| (at.since(t), seg_seq(s), s.payload)).collect();
    let want: Vec<(Dur, u32, u32)> = [1, 3, 7].iter().map(|&s| (Dur::from_secs(s), seg_seq(&probe[0]), 1)).collect();
    assert_eq!(got, want);
    assert_eq!(p.c.snd_max, p.c.snd_una + 1, "one byte beyond the window, no more");
}

// tests the persist timer with nothing left to send: the probe carried the last byte and was
// acknowledged with the window still zero; the backed-off timer then fires with nothing to
// probe with, and sends nothing (no byte past the application's data).
#[test]
fn no_window_probe_when_nothing_is_left_to_send() {
    let cfg = TcpConfig { delack: DelAck::Off, sack: false, recovery: Recovery::Classic, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(10 * MSS + 1));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    let mut acks = p.deliver_to_server(&burst);
    for a in acks.iter_mut() {
        set_window(&p, a, 0);
    }
    assert!(p.deliver_to_client(&acks).is_empty());
    let t = p.c.persist_at;
    p.now = t;
    let mut probe = Vec::new();
    p.c.on_wakeup(t, &mut probe);
    assert_eq!(probe.iter().map(|s| s.payload).collect::<Vec<_>>(), vec![1], "the last byte as the probe");
    p.now += Dur::from_millis(10);
    let mut answer = p.deliver_to_server(&probe);
    set_window(&p, &mut answer[0], 0);
    assert!(p.deliver_to_client(&answer).is_empty());
    assert_eq!((p.c.snd_una, p.c.snd_max), (1 + 10 * MSS + 1, 1 + 10 * MSS + 1), "all acknowledged");
    assert_eq!(p.c.persist_at, t + Dur::from_secs(12), "the backed-off timer is still set");
    let mut out = Vec::new();
    p.now = t + Dur::from_secs(12);
    p.c.on_wakeup(p.now, &mut out);
    assert!(out.is_empty(), "nothing to probe with");
    assert_eq!(p.c.snd_max, 1 + 10 * MSS + 1);
}

// tests RFC 3042: limited transmit sends on the first dupthresh − 1 = 2 duplicate ACKs only,
// also when the recovery point (RFC 6582 §3.2 step 1, here left by an earlier episode) keeps
// the third from starting fast recovery. Ten segments outstanding, nothing else written: the
// first two duplicates have nothing to send. Then 2 SMSS are written (cwnd full: they wait).
// The third duplicate neither retransmits nor sends new data, though outstanding + 1 SMSS
// would be within cwnd + 2 SMSS.
#[test]
fn limited_transmit_never_on_the_third_duplicate() {
    let cfg = TcpConfig { sack: false, recovery: Recovery::Classic, delack: DelAck::Off, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(10 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    p.c.recover = p.c.snd_max; // as if a timeout had just set it
    let dups = p.deliver_to_server(&burst[1..4]);
    assert!(p.deliver_to_client(&dups[..2]).is_empty(), "nothing to send on the first two");
    let mut out = Vec::new();
    p.c.app_write_more(2 * MSS, p.now, &mut out);
    assert!(out.is_empty(), "cwnd is full");
    let out = p.deliver_to_client(&dups[2..]);
    assert_eq!(p.c.dupacks, 3);
    assert_eq!(p.c.ca, CaState::Disorder, "the recovery point blocks fast recovery");
    assert!(out.is_empty(), "no limited transmit on the third duplicate");
}

// tests `exit_ack_grows` with `acked_whole_segments` on the ACK that ends CWR (ns-3's
// ProcessAck: IncreaseWindow once Open, with the whole segments the ACK acknowledged, counting
// earlier remainders; NewReno's CongestionAvoidance does nothing for 0 segments). 10 SMSS +
// 100 B written; segment 0 is CE: its echo starts CWR with ssthresh = pipe / 2 = 9 · 1448 / 2
// = 6516 and the recovery point after segment 9. The 100 B leave later (with CWR), and their
// ACK, above the recovery point, ends CWR: cwnd = ssthresh = 6516, then with whole segments 0
// of them (the earlier ACKs were whole segments, no remainder): no growth; without the switch
// the 100 bytes: one avoidance step, + ⌊1448² / 6516⌋ = 321.
#[test]
fn ns3_cwr_exit_of_less_than_a_segment_grows_nothing_by_whole_segments() {
    for (whole, expect) in [(true, 6_516), (false, 6_516 + 321)] {
        let cfg = TcpConfig { ecn: true, ecn_cut: EcnCut::Prr, delack: DelAck::Off, compat: Ns3Compat { exit_ack_grows: true, acked_whole_segments: whole, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(10 * MSS + 100));
        let mut burst = p.client_sends();
        assert_eq!(burst.len(), 10);
        burst[0].tos.set_ecn(sluice_core::packet::Ecn::Ce);
        let acks = p.deliver_to_server(&burst);
        let out = p.deliver_to_client(&acks);
        assert_eq!((p.c.ca, p.c.w.ssthresh, p.c.recover), (CaState::Cwr, 6_516, 1 + 10 * MSS), "whole {whole}");
        assert_eq!(out.iter().map(|s| s.payload).collect::<Vec<_>>(), vec![100], "whole {whole}");
        let a = p.deliver_to_server(&out);
        p.deliver_to_client(&a);
        assert_eq!((p.c.ca, p.c.snd_una), (CaState::Open, 1 + 10 * MSS + 100), "whole {whole}");
        assert_eq!(p.c.w.cwnd, expect, "acked_whole_segments = {whole}");
    }
}

// tests `exit_ack_grows` without `acked_whole_segments` on the ACK that ends CWR: the algorithm
// hears every byte the ACK removed, those SACKed earlier included (ns-3's ProcessAck hands
// IncreaseWindow the segments acknowledged), not only the bytes newly delivered. Linux Reno,
// 4 SMSS + 100 B written, segment 0 CE: its echo starts CWR with ssthresh = max(4 / 2, 2) = 2
// SMSS (Linux counts whole segments; the counter cleared) and the recovery point after segment
// 3. Segments 1 and 2 are ACKed, and PRR sends the 100 B; they arrive before segment 3 (one
// duplicate, SACKed). Segment 3's ACK, past the recovery point, ends CWR with cwnd = ssthresh
// = 2 SMSS and removes 1448 + 100 B, of which 1448 newly delivered: ⌈1548 / 1448⌉ = 2 segments
// reach the avoidance counter's w = 2: cwnd 3 SMSS (4344). Counting only the delivered bytes,
// 1 segment: no step, 2896.
#[test]
fn ns3_cwr_exit_grows_by_the_bytes_removed_sacked_ones_included() {
    let cfg = TcpConfig { cc: CcKind::LinuxReno, ecn: true, ecn_cut: EcnCut::Prr, delack: DelAck::Off, iw: InitialWindow::Segments(4), compat: Ns3Compat { exit_ack_grows: true, acked_whole_segments: false, ..Ns3Compat::RFC }, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(4 * MSS + 100));
    let mut burst = p.client_sends();
    assert_eq!(burst.len(), 4);
    burst[0].tos.set_ecn(sluice_core::packet::Ecn::Ce);
    let acks = p.deliver_to_server(&burst[..3]);
    let out = p.deliver_to_client(&acks);
    assert_eq!((p.c.ca, p.c.w.ssthresh, p.c.recover), (CaState::Cwr, 2 * MSS, 1 + 4 * MSS));
    assert_eq!(out.iter().map(|s| s.payload).collect::<Vec<_>>(), vec![100]);
    let dup = p.deliver_to_server(&out);
    p.deliver_to_client(&dup);
    assert_eq!((p.c.ca, p.c.sb.sacked_bytes), (CaState::Cwr, 100), "one duplicate: still CWR, 100 B SACKed");
    let exit = p.deliver_to_server(&burst[3..]);
    p.deliver_to_client(&exit);
    assert_eq!((p.c.ca, p.c.snd_una), (CaState::Open, 1 + 4 * MSS + 100));
    assert_eq!(p.c.w.cwnd, 3 * MSS, "2 segments removed: one avoidance step from 2 SMSS");
}

/// A copy of `ack` acknowledging `to` instead (wire sequence number).
fn acking(ack: &SimPacket, to: u32) -> SimPacket {
    let mut a = ack.clone();
    if let Transport::Tcp { ack, .. } = &mut a.transport {
        *ack = to;
    }
    a
}

// tests ns-3's emulated SACK marks without SACK (`reno_sack_marks`, `TcpTxBuffer::AddRenoSack`
// and `IsLost`): a head marked lost counts as lost only with a mark above it. When a
// cumulative ACK makes a marked segment the head, the mark moves to the next unmarked segment
// and the head is marked lost (`fix_reno_sack_head`); the next duplicate then retransmits it at
// once. Case 1: segments 0-2; 2 arrives first (a duplicate: segment 1 marked), then 0 (ACK up
// to 1: 1 is the head, marked; the mark moves to 2, 1 lost); a duplicate of 2: segment 1 goes
// again, with one duplicate. Case 2: segments 0-1; a duplicate marks 1; an ACK up to 1 makes it
// the head, and no segment above takes the mark (the highest mark ends where the head ends):
// the next duplicate retransmits nothing.
#[test]
fn ns3_emulated_marks_a_lost_head_needs_a_mark_above_it() {
    let cfg = TcpConfig { sack: false, recovery: Recovery::Classic, delack: DelAck::Off, compat: Ns3Compat { reno_sack_marks: true, ..Ns3Compat::RFC }, ..TcpConfig::default() };
    let mut p = Pair::new(cfg.clone(), Some(3 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 3);
    let dup = p.deliver_to_server(&burst[2..3]);
    p.deliver_to_client(&dup);
    let ack = p.deliver_to_server(&burst[0..1]);
    p.deliver_to_client(&ack);
    assert_eq!(p.c.snd_una, 1 + MSS);
    assert!(p.c.sb.first().unwrap().lost, "the head took over the mark: lost");
    assert_eq!(p.c.sb.high_sacked, 1 + 3 * MSS, "the mark moved to segment 2");
    let dup = p.deliver_to_server(&burst[2..3]);
    let out = p.deliver_to_client(&dup);
    assert_eq!((p.c.dupacks, p.c.ca), (1, CaState::Recovery), "case 1");
    assert_eq!(out.iter().map(seg_seq).collect::<Vec<_>>(), vec![seg_seq(&burst[1])], "case 1");

    let mut p = Pair::new(cfg, Some(2 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 2);
    let dup = p.deliver_to_server(&burst[1..2]);
    p.deliver_to_client(&dup);
    let partial = acking(&dup[0], seg_seq(&burst[1]));
    p.deliver_to_client(std::slice::from_ref(&partial));
    assert_eq!(p.c.snd_una, 1 + MSS);
    assert!(p.c.sb.first().unwrap().lost);
    assert_eq!(p.c.sb.high_sacked, 1 + 2 * MSS, "the highest mark ends where the head ends");
    let out = p.deliver_to_client(std::slice::from_ref(&partial));
    assert_eq!(p.c.dupacks, 1, "case 2");
    assert!(out.is_empty(), "case 2: no mark above the head, no retransmission");
    assert_eq!(p.c.ca, CaState::Disorder);
}
