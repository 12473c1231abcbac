//! Scripted, segment-by-segment exchanges: one test per TCP rule, each a small hand-checked
//! trace. The harness connects a client and a server endpoint directly; a test decides which
//! segments are delivered, dropped or altered, and when time advances.

use super::cc::{CaState, CongestionControl};
use super::*;
use super::config::{NextSeg, SackReport};
use crate::packet::{SimPacket, Transport};
use sluice_core::packet::{tcp_flags as F, Ecn};
use sluice_core::{Dur, Time};

pub(super) const MSS: u64 = 1448;

pub(super) struct Pair {
    pub(super) c: Endpoint,
    pub(super) s: Endpoint,
    pub(super) now: Time,
}

pub(super) fn seg_seq(p: &SimPacket) -> u32 {
    match p.transport {
        Transport::Tcp { seq, .. } => seq,
        Transport::Udp => unreachable!(),
    }
}

pub(super) fn seg_ack(p: &SimPacket) -> u32 {
    match p.transport {
        Transport::Tcp { ack, .. } => ack,
        Transport::Udp => unreachable!(),
    }
}

pub(super) fn flags(p: &SimPacket) -> u8 {
    p.tcp_flags()
}

/// A client (1:1000, ISS 1000) and a server (2:80, ISS 5000) with `cfg`, not yet connected.
pub(super) fn endpoints(cfg: TcpConfig) -> (Endpoint, Endpoint) {
    let ca = SockAddr { addr: 1, port: 1000 };
    let sa = SockAddr { addr: 2, port: 80 };
    (Endpoint::client(std::sync::Arc::new(cfg.clone()), ca, sa, 1_000, 0), Endpoint::server(std::sync::Arc::new(cfg), sa, ca, 5_000, 0))
}

impl Pair {
    /// Handshake done, nothing sent yet; the client will send `data` bytes (None: unlimited).
    pub(super) fn new(cfg: TcpConfig, data: Option<u64>) -> Pair {
        let (c, s) = endpoints(cfg);
        let mut p = Pair { c, s, now: Time::ZERO };
        let mut out = Vec::new();
        p.c.connect(p.now, &mut out);
        let syn = out.pop().unwrap();
        assert_eq!(flags(&syn) & F::SYN, F::SYN);
        p.now += Dur::from_millis(10);
        p.s.on_segment(&syn, p.now, &mut out);
        let synack = out.pop().unwrap();
        p.now += Dur::from_millis(10);
        p.c.on_segment(&synack, p.now, &mut out);
        let ack = out.remove(0);
        assert!(out.is_empty(), "no data before the application writes");
        p.now += Dur::from_millis(10);
        p.s.on_segment(&ack, p.now, &mut out);
        assert!(out.is_empty());
        assert_eq!(p.c.state, ConnState::Established);
        assert_eq!(p.s.state, ConnState::Established);
        p.c.app_send(data, 0);
        p
    }

    /// Let the client send what its windows allow.
    pub(super) fn client_sends(&mut self) -> Vec<SimPacket> {
        let mut out = Vec::new();
        self.c.send_pending(self.now, &mut out);
        out
    }

    /// After the server received data (with its Linux quick-ACK count cleared here): the
    /// client closes, its bare FIN leaves Not-ECT, the server answers it, and the FIN puts the
    /// server in no quick-ACK mode (only data segments feed the Linux engine's ECN input).
    pub(super) fn bare_fin_leaves_no_quick_ack(&mut self) {
        self.s.lnx_ack.quick = 0;
        let mut out = Vec::new();
        self.c.app_close(self.now, &mut out);
        let fin = out.pop().unwrap();
        assert_eq!((fin.payload, fin.tos.ecn()), (0, sluice_core::packet::Ecn::NotEct));
        assert!(!self.deliver_to_server(&[fin]).is_empty());
        assert_eq!(self.s.lnx_ack.quick, 0, "no quick-ACK mode from a FIN");
    }

    /// The application stops: the client sends what it has buffered, the FIN on the last segment.
    pub(super) fn stop_sending(&mut self) -> Vec<SimPacket> {
        let mut out = Vec::new();
        self.c.app_stop(self.now, &mut out);
        out
    }

    /// The client sends what its windows allow, then the application closes: (data, bare FIN).
    pub(super) fn send_then_close(&mut self) -> (Vec<SimPacket>, Vec<SimPacket>) {
        let sent = self.client_sends();
        let mut fin = Vec::new();
        self.c.app_close(self.now, &mut fin);
        (sent, fin)
    }

    pub(super) fn deliver_to_server(&mut self, pkts: &[SimPacket]) -> Vec<SimPacket> {
        let mut out = Vec::new();
        for p in pkts {
            self.s.on_segment(p, self.now, &mut out);
        }
        out
    }

    pub(super) fn deliver_to_client(&mut self, pkts: &[SimPacket]) -> Vec<SimPacket> {
        let mut out = Vec::new();
        for p in pkts {
            self.c.on_segment(p, self.now, &mut out);
        }
        out
    }

}

fn reno_cfg() -> TcpConfig {
    TcpConfig { sack: false, recovery: Recovery::Classic, delack: DelAck::Off, dupack: DupAckRule::Default, ..TcpConfig::default() }
}

// tests RFC 7323 §2.2-2.3: SYN windows unscaled; the shift from rcv_buf; fields carried scaled.
#[test]
fn window_scale_negotiation_and_scaled_fields() {
    let cfg = TcpConfig { rcv_buf: 8 << 20, snd_buf: 8 << 20, ..TcpConfig::default() };
    let ca = SockAddr { addr: 1, port: 1000 };
    let sa = SockAddr { addr: 2, port: 80 };
    let mut c = Endpoint::client(std::sync::Arc::new(cfg.clone()), ca, sa, 7, 0);
    let mut s = Endpoint::server(std::sync::Arc::new(cfg.clone()), sa, ca, 9, 0);
    let mut out = Vec::new();
    c.connect(Time::ZERO, &mut out);
    let syn = out.pop().unwrap();
    let Transport::Tcp { window, opts, .. } = syn.transport else { unreachable!() };
    assert_eq!(window, 65_535, "a SYN's window is never scaled");
    assert_eq!(opts.wscale, Some(8), "8 MiB needs shift 8");
    assert_eq!(opts.mss, Some(1460), "MSS option = payload 1448 + 12 option bytes");
    s.on_segment(&syn, Time(1), &mut out);
    let synack = out.pop().unwrap();
    c.on_segment(&synack, Time(2), &mut out);
    let ack = out.pop().unwrap();
    let Transport::Tcp { window, .. } = ack.transport else { unreachable!() };
    assert_eq!(window, 32_768, "8 MiB >> 8");
    s.on_segment(&ack, Time(3), &mut out);
    assert_eq!(s.snd_wnd, 8 << 20, "the server shifts the client's field back by 8");
}

// tests RFC 7323 §2.2: window scaling only if both SYNs carry the option.
#[test]
fn window_scale_needs_both_sides() {
    let on = TcpConfig { rcv_buf: 8 << 20, ..TcpConfig::default() };
    let off = TcpConfig { rcv_buf: 8 << 20, window_scaling: false, ..TcpConfig::default() };
    let ca = SockAddr { addr: 1, port: 1000 };
    let sa = SockAddr { addr: 2, port: 80 };
    let mut c = Endpoint::client(std::sync::Arc::new(on.clone()), ca, sa, 7, 0);
    let mut s = Endpoint::server(std::sync::Arc::new(off.clone()), sa, ca, 9, 0);
    let mut out = Vec::new();
    c.connect(Time::ZERO, &mut out);
    s.on_segment(&out.pop().unwrap(), Time(1), &mut out);
    let synack = out.pop().unwrap();
    let Transport::Tcp { opts, .. } = synack.transport else { unreachable!() };
    assert_eq!(opts.wscale, None);
    c.on_segment(&synack, Time(2), &mut out);
    let Transport::Tcp { window, .. } = out.pop().unwrap().transport else { unreachable!() };
    assert_eq!(window, 65_535, "unscaled: 8 MiB saturates the 16-bit field");
    // The other way round: a server with window scaling does not offer it to a client that
    // did not.
    let mut c = Endpoint::client(std::sync::Arc::new(off), ca, sa, 7, 0);
    let mut s = Endpoint::server(std::sync::Arc::new(on), sa, ca, 9, 0);
    c.connect(Time::ZERO, &mut out);
    s.on_segment(&out.pop().unwrap(), Time(1), &mut out);
    let Transport::Tcp { opts, .. } = out.pop().unwrap().transport else { unreachable!() };
    assert_eq!(opts.wscale, None);
}

// tests RFC 2018 §2 and RFC 7323 §3.2: SACK and timestamps, like window scaling, only if
// both ends offer them. A client offering both meets a server configured without one of
// them: the SYN-ACK does not carry that option and neither end uses it.
#[test]
fn sack_and_timestamps_need_both_sides() {
    let ca = SockAddr { addr: 1, port: 1000 };
    let sa = SockAddr { addr: 2, port: 80 };
    for (sack, timestamps) in [(false, true), (true, false)] {
        let off = TcpConfig { sack, timestamps, ..TcpConfig::default() };
        let mut c = Endpoint::client(std::sync::Arc::new(TcpConfig::default()), ca, sa, 7, 0);
        let mut s = Endpoint::server(std::sync::Arc::new(off), sa, ca, 9, 0);
        let mut out = Vec::new();
        c.connect(Time::ZERO, &mut out);
        let syn = out.pop().unwrap();
        let Transport::Tcp { opts, .. } = syn.transport else { unreachable!() };
        assert!(opts.sack_permitted && opts.ts.is_some(), "the client offers both");
        s.on_segment(&syn, Time(1), &mut out);
        let synack = out.pop().unwrap();
        let Transport::Tcp { opts, .. } = synack.transport else { unreachable!() };
        assert_eq!((opts.sack_permitted, opts.ts.is_some()), (sack, timestamps), "the SYN-ACK offers what the server has");
        assert_eq!((s.sack_ok, s.ts_ok), (sack, timestamps));
        c.on_segment(&synack, Time(2), &mut out);
        assert_eq!((c.sack_ok, c.ts_ok), (sack, timestamps));
    }
}

// tests the endpoint's read-outs for the monitor: state names, the bytes held out of order
// (segment 2 of 3 lost: the third, 1448 B, waits for it), and the RTT log, which keeps each
// sample only once asked to: segment 1 sent at 30 ms and acknowledged at 40 ms gives
// (40 ms, 10 ms).
#[test]
fn monitor_read_outs_state_names_held_bytes_and_the_rtt_log() {
    assert_eq!([ConnState::Established, ConnState::SynSent, ConnState::Aborted].map(ConnState::as_str), ["established", "syn_sent", "aborted"]);
    let mut p = Pair::new(TcpConfig { delack: DelAck::Off, ..TcpConfig::default() }, Some(3 * MSS));
    assert_eq!(p.c.rtt_log(), None, "not kept unless asked for");
    p.c.log_rtt();
    let burst = p.client_sends();
    assert_eq!(burst.len(), 3);
    p.now += Dur::from_millis(5);
    let acks = p.deliver_to_server(&[burst[0].clone(), burst[2].clone()]);
    assert_eq!(p.s.held_out_of_order(), MSS);
    p.now += Dur::from_millis(5);
    p.deliver_to_client(&acks[..1]);
    assert_eq!(p.c.rtt_log(), Some(&[(Time(40_000_000), Dur::from_millis(10))][..]));
}

// tests RFC 6582 (NewReno) on a worked example: segments 1–10 in flight, 3 and 6 lost; the partial
// ACK retransmits the second hole and the full ACK ends recovery: two losses, one reduction.
#[test]
fn newreno_partial_and_full_ack_worked_example() {
    let mut p = Pair::new(reno_cfg(), Some(10 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10, "initial window of 10 segments");
    let (lost3, lost6) = (burst[2].clone(), burst[5].clone());
    // Segments 1, 2 arrive: two new ACKs (cwnd grows in slow start to 12).
    let acks = p.deliver_to_server(&burst[0..2]);
    let out = p.deliver_to_client(&acks);
    assert!(out.is_empty(), "no new data to send");
    p.c.w.cwnd = 10 * MSS; // the example starts from cwnd = 10 SMSS
    // 4, 5, 7 arrive out of order: three duplicate ACKs.
    let dups = p.deliver_to_server(&[burst[3].clone(), burst[4].clone(), burst[6].clone()]);
    assert_eq!(dups.len(), 3);
    let out = p.deliver_to_client(&dups);
    assert_eq!(out.len(), 1, "exactly one retransmission");
    assert_eq!(seg_seq(&out[0]), seg_seq(&lost3));
    assert_eq!(p.c.ca, CaState::Recovery);
    // FlightSize was 8 segments (3..=10): ssthresh = 4, cwnd = ssthresh + 3 = 7.
    assert_eq!(p.c.w.ssthresh, 4 * MSS);
    assert_eq!(p.c.w.cwnd, 7 * MSS);
    // 8, 9, 10: three more duplicates inflate cwnd by one SMSS each.
    let dups = p.deliver_to_server(&burst[7..10]);
    assert!(p.deliver_to_client(&dups).is_empty());
    assert_eq!(p.c.w.cwnd, 10 * MSS);
    // The retransmitted 3 fills the first hole: ACK through 5 is partial (3 segments).
    let partial = p.deliver_to_server(&[lost3]);
    let out = p.deliver_to_client(&partial);
    assert_eq!(out.len(), 1, "partial ACK retransmits the next hole");
    assert_eq!(seg_seq(&out[0]), seg_seq(&lost6));
    assert_eq!(p.c.ca, CaState::Recovery, "stay in recovery on a partial ACK");
    assert_eq!(p.c.w.cwnd, 10 * MSS - 3 * MSS + MSS, "deflate by the amount acked, add one SMSS");
    // The retransmitted 6 completes the data: full ACK ends recovery with cwnd = ssthresh.
    let full = p.deliver_to_server(&[lost6]);
    p.deliver_to_client(&full);
    assert_eq!(p.c.ca, CaState::Open);
    assert_eq!(p.c.w.cwnd, p.c.w.ssthresh);
    assert_eq!(p.c.counters.fast_retransmits, 1, "exactly one reduction for the two losses");
}

// tests RFC 5681 §3.2: a single drop gives three duplicate ACKs, one retransmission, cwnd halved.
#[test]
fn single_drop_three_dupacks_one_retransmission_cwnd_halved() {
    let mut p = Pair::new(reno_cfg(), Some(10 * MSS));
    let burst = p.client_sends();
    let dropped = burst[0].clone();
    let dups = p.deliver_to_server(&burst[1..4]);
    let mut out = Vec::new();
    for (i, d) in dups.iter().enumerate() {
        out = p.deliver_to_client(std::slice::from_ref(d));
        if i < 2 {
            assert!(out.iter().all(|s| seg_seq(s) != seg_seq(&dropped)), "no retransmission before the third duplicate");
        }
    }
    assert_eq!(out.iter().filter(|s| seg_seq(s) == seg_seq(&dropped)).count(), 1);
    assert_eq!(p.c.w.ssthresh, 5 * MSS, "ssthresh = FlightSize / 2 = 10 / 2 segments");
    let rest = p.deliver_to_server(&burst[4..]);
    p.deliver_to_client(&rest);
    let fin = p.deliver_to_server(&[dropped]);
    p.deliver_to_client(&fin);
    assert_eq!(p.c.w.cwnd, 5 * MSS, "after recovery cwnd = ssthresh: halved from 10 segments");
}

// tests RFC 6298 §5.4-5.6 and RFC 5681 §3.1: timeout ⇒ retransmit head, cwnd = 1 SMSS, RTO doubled.
#[test]
fn rto_sets_loss_window_and_doubles_timer() {
    let mut p = Pair::new(TcpConfig::default(), Some(20 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    let rto = p.c.rtt.rto();
    assert_eq!(rto, Dur::from_secs(1), "no RTT sample yet: RTO = 1 s");
    let deadline = p.c.poll_at().unwrap();
    p.now = deadline;
    let mut out = Vec::new();
    p.c.on_wakeup(p.now, &mut out);
    assert_eq!(out.len(), 1, "one retransmission after the timeout");
    assert_eq!(seg_seq(&out[0]), seg_seq(&burst[0]));
    assert_eq!(p.c.w.cwnd, MSS);
    assert_eq!(p.c.w.ssthresh, 5 * MSS);
    assert_eq!(p.c.rtt.rto(), Dur::from_secs(2));
    assert_eq!(p.c.poll_at(), Some(p.now + Dur::from_secs(2)));
    // A second expiry doubles again and keeps ssthresh (RFC 5681 §3.1 on repeated timeouts).
    p.now += Dur::from_secs(2);
    p.c.on_wakeup(p.now, &mut out);
    assert_eq!(p.c.rtt.rto(), Dur::from_secs(4));
    assert_eq!(p.c.w.ssthresh, 5 * MSS);
    assert_eq!(p.c.counters.rto_count, 2);
}

// tests RFC 1122 §4.2.3.2 / RFC 5681 §4.2: ACK every second segment, else within the timeout;
// out-of-order data is acknowledged at once.
#[test]
fn delayed_ack_every_second_segment_and_timer() {
    let mut p = Pair::new(TcpConfig::default(), Some(3 * MSS));
    let burst = p.client_sends();
    assert!(p.deliver_to_server(&burst[0..1]).is_empty(), "first segment: ACK delayed");
    let acks = p.deliver_to_server(&burst[1..2]);
    assert_eq!(acks.len(), 1, "second segment: ACK now");
    assert!(p.deliver_to_server(&burst[2..3]).is_empty());
    let t = p.s.poll_at().unwrap();
    assert_eq!(t, p.now + Dur::from_millis(200));
    let mut out = Vec::new();
    p.s.on_wakeup(t, &mut out);
    assert_eq!(out.len(), 1, "the delayed-ACK timer fires");
}

// tests RFC 2018 §4 and RFC 5681 §4.2: an out-of-order segment gets an immediate ACK with a SACK
// block naming it; ns-3's duplicate rule counts ACKs that carry new SACK information.
#[test]
fn out_of_order_immediate_ack_with_sack_block() {
    let mut p = Pair::new(TcpConfig::default(), Some(10 * MSS));
    let burst = p.client_sends();
    let acks = p.deliver_to_server(&burst[1..2]);
    assert_eq!(acks.len(), 1);
    let Transport::Tcp { ack, opts, .. } = acks[0].transport else { unreachable!() };
    assert_eq!(ack, seg_seq(&burst[0]), "cumulative ACK stays at the hole");
    assert_eq!(opts.sack.as_slice(), &[(seg_seq(&burst[1]), seg_seq(&burst[1]).wrapping_add(MSS as u32))]);
}

// tests RFC 6675 + RFC 6937: with SACK, one loss gives one retransmission; PRR brings cwnd to
// ssthresh by the end of recovery.
#[test]
fn sack_prr_recovery_single_loss() {
    let cfg = TcpConfig { delack: DelAck::Off, ..TcpConfig::ns3_44() };
    let mut p = Pair::new(cfg, None);
    let burst = p.client_sends();
    let lost = burst[0].clone();
    let mut retx = 0;
    let mut inflight: Vec<SimPacket> = Vec::new();
    for s in &burst[1..] {
        let acks = p.deliver_to_server(std::slice::from_ref(s));
        for seg in p.deliver_to_client(&acks) {
            if seg_seq(&seg) == seg_seq(&lost) {
                retx += 1;
            } else {
                inflight.push(seg);
            }
        }
    }
    assert_eq!(retx, 1);
    assert_eq!(p.c.ca, CaState::Recovery);
    let ss = p.c.w.ssthresh;
    let acks = p.deliver_to_server(&[lost]);
    p.deliver_to_client(&acks);
    let acks = p.deliver_to_server(&inflight);
    p.deliver_to_client(&acks);
    assert_eq!(p.c.ca, CaState::Open);
    assert!(p.c.w.cwnd >= ss && p.c.w.cwnd <= ss + 2 * MSS, "cwnd {} vs ssthresh {ss}", p.c.w.cwnd);
}

// tests the duplicate-ACK definition of RFC 5681 §2: a strict sender does not count ACKs whose
// window changed (as a window-rewriting gateway makes them); the default rule ignores the window.
#[test]
fn strict_dupack_rule_ignores_acks_with_changed_window() {
    for (rule, expect_fr) in [(DupAckRule::Default, 1), (DupAckRule::Strict, 0)] {
        let mut p = Pair::new(TcpConfig { dupack: rule, ..reno_cfg() }, Some(10 * MSS));
        let burst = p.client_sends();
        let mut dups = p.deliver_to_server(&burst[1..5]);
        for (i, d) in dups.iter_mut().enumerate() {
            if let Transport::Tcp { window, .. } = &mut d.transport {
                *window -= 1 + i as u16; // a gateway lowers the window on every ACK
            }
        }
        p.deliver_to_client(&dups);
        assert_eq!(p.c.counters.fast_retransmits, expect_fr, "{rule:?}");
    }
}

// tests RFC 3168 §6.1.2-6.1.3: CE ⇒ ECE until CWR; the sender reduces once per window and sets CWR.
#[test]
fn ecn_echo_reduces_once_and_sets_cwr() {
    let cfg = TcpConfig { ecn: true, delack: DelAck::Off, ecn_cut: EcnCut::Immediate, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let mut burst = p.client_sends();
    assert!(burst.iter().all(|s| s.tos.ecn() == Ecn::Ect0), "data is ECT(0)");
    burst[0].tos.set_ecn(Ecn::Ce);
    let acks = p.deliver_to_server(&burst[0..3]);
    assert!(acks.iter().all(|a| flags(a) & F::ECE != 0), "ECE on every ACK until CWR");
    let cwnd_before = p.c.w.cwnd;
    let out = p.deliver_to_client(&acks);
    assert!(p.c.w.ssthresh < cwnd_before, "one reduction");
    assert!(p.c.w.cwnd <= p.c.w.ssthresh + MSS, "cwnd cut to ssthresh at once (ecn_cut = immediate)");
    assert!(out.is_empty(), "cwnd below the flight: nothing new yet");
    // The rest of the window is acknowledged (still with ECE): no second reduction.
    let ss = p.c.w.ssthresh;
    let acks = p.deliver_to_server(&burst[3..]);
    let out = p.deliver_to_client(&acks);
    assert_eq!(p.c.w.ssthresh, ss, "at most one reduction per window of data");
    let cwr: Vec<&SimPacket> = out.iter().filter(|s| flags(s) & F::CWR != 0).collect();
    assert_eq!(cwr.len(), 1, "CWR on the next new data segment only");
    let acks = p.deliver_to_server(&out);
    assert!(acks.iter().all(|a| flags(a) & F::ECE == 0), "CWR stops the echo");
}

// tests plain RFC 793 (`cc = "none"`, as ns-3's `TcpRfc793`, whose `DupAck` does nothing):
// duplicates are counted but never trigger a fast retransmission.
#[test]
fn rfc793_none_cc_has_no_fast_retransmit() {
    let mut p = Pair::new(TcpConfig { cc: CcKind::None, ..reno_cfg() }, Some(10 * MSS));
    let burst = p.client_sends();
    let dups = p.deliver_to_server(&burst[1..6]);
    let out = p.deliver_to_client(&dups);
    assert!(out.is_empty());
    assert_eq!(p.c.counters.triple_dupacks, 1);
    assert_eq!(p.c.counters.fast_retransmits, 0);
}

// tests RFC 9293 §3.8.6: a receiver never moves its right edge left.
#[test]
fn receiver_never_shrinks_its_window() {
    let cfg = TcpConfig { rcv_buf: 4 * MSS, snd_buf: 4 * MSS, window_scaling: false, delack: DelAck::Off, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(20 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 4, "the peer's 4-segment window limits the sender");
    // Out-of-order data occupies buffer, but the advertised right edge stays put.
    let acks = p.deliver_to_server(&burst[1..4]);
    for a in &acks {
        let Transport::Tcp { ack, window, .. } = a.transport else { unreachable!() };
        let edge = ack.wrapping_add(window as u32);
        assert_eq!(edge, seg_seq(&burst[0]).wrapping_add(4 * MSS as u32));
    }
}

// tests RFC 9293 §3.8.6 against ns-3 (`ooo_shrinks_window`): out-of-order data held takes
// receive buffer space, so once SND.UNA advances past a first hole while a second remains, the
// window is the buffer less what is held; ns-3 advertises the whole buffer beyond the next
// expected byte whatever it holds.
#[test]
fn out_of_order_data_held_shrinks_the_window_unless_ns3() {
    for (shrinks, held) in [(true, 4 * MSS), (false, 0)] {
        let cfg = TcpConfig { rcv_buf: 20 * MSS, window_scaling: false, delack: DelAck::Off, compat: Ns3Compat { ooo_shrinks_window: shrinks, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(20 * MSS));
        let burst = p.client_sends();
        assert_eq!(burst.len(), 10);
        // Segments 0 and 5 are lost; 1–4 and 6–9 are held out of order.
        p.deliver_to_server(&burst[1..5]);
        p.deliver_to_server(&burst[6..10]);
        let acks = p.deliver_to_server(&burst[0..1]);
        let Transport::Tcp { window, .. } = acks.last().unwrap().transport else { unreachable!() };
        assert_eq!(window as u64, 20 * MSS - held, "ooo_shrinks_window = {shrinks}");
    }
}

/// A lossy, reordering channel between the two endpoints, driven until a transfer completes.
/// Returns (delivered bytes, simulated seconds).
fn lossy_transfer(cfg: TcpConfig, bytes: u64, loss: f64, seed: u64) -> (u64, f64) {
    use sluice_core::rng::RngStream;
    let mut rng = RngStream::from_seed(seed);
    let ca = SockAddr { addr: 1, port: 1000 };
    let sa = SockAddr { addr: 2, port: 80 };
    let cfg = std::sync::Arc::new(cfg);
    let mut c = Endpoint::client(cfg.clone(), ca, sa, rng.next_u32(), 0);
    let mut s = Endpoint::server(cfg, sa, ca, rng.next_u32(), 0);
    // (arrival time, seq for ties, to_server, packet)
    let mut wire: Vec<(Time, u64, bool, SimPacket)> = Vec::new();
    let mut n = 0u64;
    let mut now = Time::ZERO;
    let mut out = Vec::new();
    c.app_send(Some(bytes), 0);
    c.connect(now, &mut out);
    c.app_close(now, &mut out);
    let limit = Time::ZERO + Dur::from_secs(3_000);
    loop {
        for p in out.drain(..) {
            if rng.chance(loss) {
                continue;
            }
            let to_server = p.dst == sa.addr;
            let delay = Dur::from_millis(20) + Dur(rng.below(2_000_000)); // up to 2 ms reordering
            n += 1;
            wire.push((now + delay, n, to_server, p));
        }
        c.sb.check();
        let held = !s.ooo.is_empty() || !s.sack_recent.is_empty() || s.ooo_fin != u64::MAX;
        assert_eq!(s.reasm_held, held, "the receiver's reordering flag follows its lists and a held FIN");
        if c.cc.loss_response() != cc::LossResponse::RtoOnly {
            assert!(c.w.cwnd >= c.smss as u64, "cwnd below one segment");
        }
        assert!(c.snd_una <= c.snd_max);
        if c.all_acked() && c.state != ConnState::SynSent {
            break;
        }
        let next_pkt = wire.iter().map(|w| (w.0, w.1)).min();
        let next_timer = [c.poll_at(), s.poll_at()].into_iter().flatten().min();
        match (next_pkt, next_timer) {
            (Some((t, k)), tm) if tm.is_none_or(|tm| t <= tm) => {
                now = t;
                let i = wire.iter().position(|w| (w.0, w.1) == (t, k)).unwrap();
                let (_, _, to_server, p) = wire.swap_remove(i);
                if to_server {
                    s.on_segment(&p, now, &mut out);
                } else {
                    c.on_segment(&p, now, &mut out);
                }
            }
            (_, Some(tm)) => {
                now = tm;
                c.on_wakeup(now, &mut out);
                s.on_wakeup(now, &mut out);
            }
            (None, None) => break,
            _ => unreachable!(),
        }
        assert!(now < limit, "transfer did not finish (seed {seed})");
    }
    (s.counters.delivered, now.as_secs_f64())
}

// Model-based check: under random loss and reordering, every configuration delivers every byte
// exactly once, keeps the scoreboard consistent and cwnd at least one segment.
#[test]
fn random_loss_and_reordering_deliver_everything() {
    let configs = [
        TcpConfig::default(),
        TcpConfig::ns3_44(),
        TcpConfig { sack: false, ..TcpConfig::default() },
        TcpConfig { recovery: Recovery::Classic, ..TcpConfig::default() },
        TcpConfig { sack: false, recovery: Recovery::Classic, full_ack: FullAck::FlightSize, ..TcpConfig::default() },
        TcpConfig { recovery: Recovery::Prr(PrrVariant::Rfc6937), delack: DelAck::Off, ..TcpConfig::default() },
        TcpConfig { dupack: DupAckRule::Linux, wnd_update: WndUpdateRule::Linux, timestamps: false, ..TcpConfig::default() },
        TcpConfig { cc: CcKind::None, rcv_buf: 32 * 1448, ..TcpConfig::default() },
        TcpConfig { cc: CcKind::Reno, sack: false, ..TcpConfig::default() },
        TcpConfig { cc: CcKind::Tahoe, ..TcpConfig::default() },
        TcpConfig { cc: CcKind::Tahoe, sack: false, recovery: Recovery::Classic, ..TcpConfig::default() },
        TcpConfig { cc: CcKind::Cubic, ..TcpConfig::default() },
        TcpConfig { cc: CcKind::Cubic, ..TcpConfig::ns3_44() },
        TcpConfig { cc: CcKind::Vegas, ..TcpConfig::default() },
        TcpConfig { cc: CcKind::Vegas, ..TcpConfig::ns3_44() },
        TcpConfig { cc: CcKind::Compound, ..TcpConfig::default() },
        TcpConfig { cc: CcKind::Compound, compound: CompoundConfig { variant: CompoundVariant::Linux, ..CompoundConfig::default() }, ..TcpConfig::ns3_44() },
    ];
    for (i, cfg) in configs.into_iter().enumerate() {
        for seed in 0..4 {
            let loss = [0.0, 0.01, 0.03, 0.08][seed as usize];
            let size = 300 * MSS + 17;
            let (got, _) = lossy_transfer(cfg.clone(), size, loss, seed * 31 + i as u64);
            assert_eq!(got, size, "config {i}, seed {seed}: SLUICE_SEED={} to reproduce", seed * 31 + i as u64);
        }
    }
}

// tests RFC 7323 §4.3: the first data segment (SEG.SEQ = Last.ACK.sent of the SYN-ACK) updates
// TS.Recent, so its ACK echoes the segment's TSval, not the SYN's.
#[test]
fn first_data_segment_updates_ts_recent() {
    let mut p = Pair::new(TcpConfig { delack: DelAck::Off, ..TcpConfig::default() }, Some(MSS));
    p.now += Dur::from_secs(5);
    let data = p.client_sends();
    let Transport::Tcp { opts, .. } = data[0].transport else { unreachable!() };
    let tsval = opts.ts.unwrap().0;
    let acks = p.deliver_to_server(&data);
    let Transport::Tcp { opts, .. } = acks[0].transport else { unreachable!() };
    assert_eq!(opts.ts.unwrap().1, tsval, "TSecr echoes the data segment, not the SYN");
}

// tests RFC 3042: the first two duplicate ACKs each release one new segment; the third
// triggers the fast retransmit.
#[test]
fn limited_transmit_sends_one_new_segment_per_early_dupack() {
    let mut p = Pair::new(reno_cfg(), Some(20 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    let last = seg_seq(&burst[9]);
    for (k, seg) in burst[1..3].iter().enumerate() {
        let dup = p.deliver_to_server(std::slice::from_ref(seg));
        let out = p.deliver_to_client(&dup);
        assert_eq!(out.len(), 1, "duplicate {} releases one segment", k + 1);
        assert_eq!(seg_seq(&out[0]), last.wrapping_add((k as u32 + 1) * MSS as u32), "new data, in order");
    }
    let dup = p.deliver_to_server(&burst[3..4]);
    let out = p.deliver_to_client(&dup);
    assert_eq!(seg_seq(&out[0]), seg_seq(&burst[0]), "third duplicate: fast retransmit");
    let off = TcpConfig { limited_transmit: false, ..reno_cfg() };
    let mut q = Pair::new(off, Some(20 * MSS));
    let burst = q.client_sends();
    let dup = q.deliver_to_server(&burst[1..2]);
    assert!(q.deliver_to_client(&dup).is_empty(), "without limited transmit nothing is sent");
}

// tests the ns3.44 profile without SACK (`reno_sack_marks`, ns-3's `AddRenoSack`): the two
// early duplicates each mark a segment and release one new one through pipe; the third marks a
// third and starts recovery with ssthresh from bytes in flight plus one segment, not from the
// whole flight (12 − 3 marked − 1 lost + 1 = 9 segments, so 4.5 instead of 6), and cwnd is not
// inflated; a timeout clears the marks.
#[test]
fn ns3_reno_sack_marks_without_sack() {
    let cfg = TcpConfig { compat: Ns3Compat { reno_sack_marks: true, ..Ns3Compat::RFC }, ..reno_cfg() };
    let mut p = Pair::new(cfg, Some(40 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    for (k, seg) in burst[1..3].iter().enumerate() {
        let dup = p.deliver_to_server(std::slice::from_ref(seg));
        let out = p.deliver_to_client(&dup);
        assert_eq!(out.len(), 1, "duplicate {} releases one new segment", k + 1);
        assert_eq!(p.c.sb.sacked_bytes, (k as u64 + 1) * MSS);
    }
    let dup = p.deliver_to_server(&burst[3..4]);
    let out = p.deliver_to_client(&dup);
    assert_eq!(seg_seq(&out[0]), seg_seq(&burst[0]), "third duplicate: fast retransmit");
    assert_eq!(p.c.sb.sacked_bytes, 3 * MSS);
    assert_eq!(p.c.w.ssthresh, 9 * MSS / 2);
    assert_eq!(p.c.w.cwnd, p.c.w.ssthresh, "no inflation: the marks take the segments out of pipe");
    // The same exchange counting duplicates (Sluice's default): ssthresh from the whole flight.
    let mut q = Pair::new(reno_cfg(), Some(40 * MSS));
    let burst = q.client_sends();
    for seg in &burst[1..4] {
        let dup = q.deliver_to_server(std::slice::from_ref(seg));
        q.deliver_to_client(&dup);
    }
    assert_eq!(q.c.w.ssthresh, 6 * MSS);
    // A timeout clears the marks.
    p.now = p.c.poll_at().unwrap();
    let mut out = Vec::new();
    p.c.on_wakeup(p.now, &mut out);
    assert_eq!(p.c.counters.rto_count, 1);
    assert_eq!(p.c.sb.sacked_bytes, 0);
}

// tests PRR's RFC 9937 variant as ns-3 ≥ 3.43 implements it (`TcpPrrRecovery`): RecoverFS is pipe
// at entry, and the extra segment per duplicate ACK applies only while prr_delivered < RecoverFS.
// With every outstanding segment SACKed or lost, pipe and RecoverFS are 0: the entering ACK
// delivers its one SACKed segment, and only the fast retransmission goes out.
#[test]
fn prr_entry_with_nothing_in_flight_sends_only_the_retransmission() {
    let cfg = TcpConfig { delack: DelAck::Off, iw: InitialWindow::Segments(4), ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(4 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 4);
    let mut out = Vec::new();
    for seg in &burst[1..4] {
        let dup = p.deliver_to_server(std::slice::from_ref(seg));
        out = p.deliver_to_client(&dup);
    }
    assert_eq!(p.c.ca, CaState::Recovery);
    assert_eq!(p.c.recover_fs, 0);
    assert_eq!(out.len(), 1, "the fast retransmission alone");
    assert_eq!(seg_seq(&out[0]), seg_seq(&burst[0]));
    assert_eq!(p.c.w.cwnd, MSS);
}

// tests PRR (RFC 6937 / RFC 9937) without SACK: a duplicate ACK in PRR recovery counts one segment
// as delivered. The RFC 9937 variant adds that segment itself (as ns-3 does), so the endpoint must
// not add RFC 6937's estimate on top; the RFC 6937 variant takes the estimate.
#[test]
fn prr_without_sack_counts_one_segment_per_duplicate() {
    for (variant, per_dup) in [(PrrVariant::Rfc9937, MSS), (PrrVariant::Rfc6937, MSS)] {
        let cfg = TcpConfig { sack: false, delack: DelAck::Off, recovery: Recovery::Prr(variant), ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(40 * MSS));
        let burst = p.client_sends();
        for seg in &burst[1..4] {
            let dup = p.deliver_to_server(std::slice::from_ref(seg));
            p.deliver_to_client(&dup);
        }
        assert_eq!(p.c.ca, CaState::Recovery);
        let before = p.c.prr_delivered;
        let dup = p.deliver_to_server(&burst[4..5]);
        p.deliver_to_client(&dup);
        assert_eq!(p.c.prr_delivered - before, per_dup, "{variant:?}");
    }
}

// tests RFC 6675 §5: an ACK that advances SND.UNA and SACKs new data is a duplicate as well
// ("regardless of its status as a cumulative acknowledgment"): it counts towards DupThresh and
// does not grow cwnd. The strict RFC 5681 rule takes it as an ordinary new ACK.
#[test]
fn cumulative_ack_with_new_sack_counts_as_duplicate() {
    for rule in [DupAckRule::Default, DupAckRule::Ns3, DupAckRule::Strict] {
        let mut p = Pair::new(TcpConfig { dupack: rule, ..TcpConfig::default() }, None);
        let burst = p.client_sends();
        // Segment 0 arrives (its ACK is delayed), 1 is lost, 2 arrives out of order: the
        // immediate ACK acknowledges 0 and SACKs 2.
        assert!(p.deliver_to_server(&burst[0..1]).is_empty(), "delayed ACK");
        let adv = p.deliver_to_server(&burst[2..3]);
        let Transport::Tcp { ack, opts, .. } = adv[0].transport else { unreachable!() };
        assert_eq!((ack, opts.sack.n), (seg_seq(&burst[1]), 1), "advances and SACKs");
        let cwnd = p.c.w.cwnd;
        p.deliver_to_client(&adv);
        if rule == DupAckRule::Strict {
            assert_eq!((p.c.dupacks, p.c.ca), (0, CaState::Open));
            assert_eq!(p.c.w.cwnd, cwnd + MSS, "slow start on new data");
        } else {
            assert_eq!((p.c.dupacks, p.c.ca), (1, CaState::Disorder), "{rule:?}: the first duplicate");
            assert_eq!(p.c.w.cwnd, cwnd, "{rule:?}: a duplicate does not grow cwnd");
        }
        let dups = p.deliver_to_server(&burst[3..5]);
        let out = p.deliver_to_client(&dups);
        assert_eq!(p.c.counters.fast_retransmits, 1, "{rule:?}: three SACKed segments mark the hole lost");
        assert!(out.iter().any(|s| seg_seq(s) == seg_seq(&burst[1])), "the hole is retransmitted");
        if rule != DupAckRule::Strict {
            assert_eq!(p.c.counters.triple_dupacks, 1, "{rule:?}: and it was the third duplicate");
        }
    }
}

// tests RFC 6937 §3 DeliveredData: a cumulative ACK counts only bytes not SACKed before, so a
// retransmission that fills the hole below four SACKed segments delivers one segment, not five.
#[test]
fn prr_counts_previously_sacked_bytes_once() {
    let cfg = TcpConfig { delack: DelAck::Off, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let burst = p.client_sends();
    // Segment 0 lost; 1-4 arrive (SACKed): recovery starts at the third duplicate.
    let dups = p.deliver_to_server(&burst[1..5]);
    let out = p.deliver_to_client(&dups);
    assert_eq!(p.c.ca, CaState::Recovery);
    let retx = out.iter().find(|s| seg_seq(s) == seg_seq(&burst[0])).expect("fast retransmit").clone();
    let before = p.c.prr_delivered;
    let ack = p.deliver_to_server(&[retx]);
    p.deliver_to_client(&ack);
    assert_eq!(p.c.snd_una, 1 + 5 * MSS, "the ACK covers the hole and the four SACKed segments");
    assert_eq!(p.c.prr_delivered - before, MSS, "only the retransmitted segment is newly delivered");
}

// tests PRR arithmetic (the proportional share of RFC 6937 / RFC 9937): the exact share, and
// ns-3.44's 32-bit product, which wraps. Numbers from an ns-3 trace of the data-centre dumbbell:
// ssthresh 268,604 B, RecoverFS 537,208 B; ns-3 stopped sending once prr_delivered reached
// 17,376 B.
#[test]
fn prr_share_exact_and_ns3_wrapping() {
    use super::sender::prr_share;
    assert_eq!(prr_share(14_480, 268_604, 537_208, false), 7_240);
    assert_eq!(prr_share(14_480, 268_604, 537_208, true), 7_240, "below 2^32 both agree");
    assert_eq!(prr_share(17_376, 268_604, 537_208, false), 8_688);
    // 17,376 · 268,604 = 4,667,263,104 wraps to 372,295,808; / 537,208 = 693.02…
    assert_eq!(prr_share(17_376, 268_604, 537_208, true), 694);
    assert!(TcpConfig::ns3_44().compat.prr_u32_product && !TcpConfig::default().compat.prr_u32_product);
}

// tests PRR's catch-up base: max(prr_delivered − prr_out, DeliveredData), and ns-3.44's, whose
// unsigned difference wraps once more has gone out than was delivered, wins the max and comes
// back negative. Numbers from an ns-3 trace of the 90-flow access-link case (flow 81 at 0.906 s:
// one segment delivered, one more sent than delivered so far; ns-3 set cwnd to bytes in flight).
#[test]
fn prr_limit_exact_and_ns3_wrapping() {
    use super::sender::prr_limit_base;
    assert_eq!(prr_limit_base(10 * MSS, 8 * MSS, MSS, false), 2 * MSS as i64);
    assert_eq!(prr_limit_base(10 * MSS, 8 * MSS, MSS, true), 2 * MSS as i64, "no wrap: both agree");
    assert_eq!(prr_limit_base(5 * MSS, 6 * MSS, MSS, false), MSS as i64, "the ACK's own delivery");
    assert_eq!(prr_limit_base(5 * MSS, 6 * MSS, MSS, true), -(MSS as i64), "wrapped: the difference");
    assert!(TcpConfig::ns3_44().compat.prr_u32_limit && !TcpConfig::default().compat.prr_u32_limit);
}

// tests the send buffer: unacknowledged plus unsent bytes never exceed snd_buf, and the
// application writes only whole `write` units (ns-3 BulkSendApplication's SendSize).
#[test]
fn send_buffer_bounds_outstanding_data_and_takes_whole_writes() {
    let cfg = TcpConfig { delack: DelAck::Off, snd_buf: 4 * MSS, rcv_buf: 1 << 20, ..TcpConfig::default() };
    let mut p = Pair::new(cfg.clone(), None);
    let burst = p.client_sends();
    assert_eq!(burst.len(), 4, "cwnd allows 10, the 4-segment send buffer 4");
    let acks = p.deliver_to_server(&burst[0..2]);
    let out = p.deliver_to_client(&acks);
    assert_eq!(out.len(), 2, "two acknowledged segments free room for two more");

    let cfg = TcpConfig { snd_buf: 10 * MSS, ..cfg };
    let mut p = Pair::new(cfg, None);
    p.c.app_send(None, 3 * MSS);
    let burst = p.client_sends();
    assert_eq!(burst.len(), 9, "three whole writes of 3 segments fit in 10");
    let out = {
        let a = p.deliver_to_server(&burst[0..1]);
        p.deliver_to_client(&a)
    };
    assert!(out.is_empty(), "2 segments free: not enough for a 3-segment write");
    let a = p.deliver_to_server(&burst[1..2]);
    assert_eq!(p.deliver_to_client(&a).len(), 3, "3 free: one more write goes out");
}

// tests application stop: what is already in the send buffer is still sent, and the FIN rides
// on the segment with the last byte (RFC 9293 §3.6; Linux tcp_send_fin and ns-3's closeOnEmpty
// both set it on the last unsent segment). With everything already sent, a bare FIN follows.
#[test]
fn stopping_the_application_sends_buffered_data_then_fin() {
    let cfg = TcpConfig { delack: DelAck::Off, snd_buf: 4 * MSS, ..TcpConfig::default() };
    let mut p = Pair::new(cfg.clone(), None);
    let mut out = Vec::new();
    p.c.app_stop(p.now, &mut out);
    let data: Vec<_> = out.iter().filter(|s| s.payload > 0).collect();
    assert_eq!(data.len(), 4, "the four buffered segments");
    let fin: Vec<_> = out.iter().filter(|s| flags(s) & F::FIN != 0).collect();
    assert_eq!(fin.len(), 1);
    assert_eq!((seg_seq(fin[0]), fin[0].payload), (1_001 + 3 * MSS as u32, MSS as u32), "FIN on the last data segment");
    assert_eq!(p.c.state, ConnState::FinWait1);
    // The application closes after its data has left: the FIN goes alone.
    let mut p = Pair::new(cfg, Some(2 * MSS));
    let sent = p.client_sends();
    assert!(sent.iter().all(|s| flags(s) & F::FIN == 0));
    out.clear();
    p.c.app_close(p.now, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((seg_seq(&out[0]), out[0].payload, flags(&out[0]) & F::FIN), (1_001 + 2 * MSS as u32, 0, F::FIN));
}

// tests the ns-3 option `partial_ack_nextseg`: a partial ACK in SACK recovery sends one segment
// at once outside cwnd (ns-3's DoRetransmit) — here new data, since the next hole has too few
// SACKed segments above it to count as lost. RFC 6675 sends only what cwnd and pipe allow.
#[test]
fn ns3_partial_ack_sends_next_segment_outside_cwnd() {
    let mut sent = Vec::new();
    for nextseg in [false, true] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { partial_ack_nextseg: nextseg, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        let burst = p.client_sends();
        // Segments 0 and 7 lost; 1-6 and 8 arrive.
        let mut delivered: Vec<SimPacket> = burst[1..7].to_vec();
        delivered.push(burst[8].clone());
        let dups = p.deliver_to_server(&delivered);
        let out = p.deliver_to_client(&dups);
        let retx = out.iter().find(|s| seg_seq(s) == seg_seq(&burst[0])).expect("fast retransmit").clone();
        let high = p.c.snd_max;
        // PRR's budget used up: whatever goes out now goes out regardless of cwnd.
        p.c.prr_out = 1 << 40;
        let partial = p.deliver_to_server(&[retx]);
        let Transport::Tcp { ack, .. } = partial[0].transport else { unreachable!() };
        assert_eq!(ack, seg_seq(&burst[7]), "a partial ACK, up to the second hole");
        let out = p.deliver_to_client(&partial);
        assert_eq!(p.c.ca, CaState::Recovery);
        sent.push((out.len(), out.iter().any(|s| seg_seq(s) == 1_001 + high as u32 - 1)));
    }
    assert_eq!(sent[0], (0, false), "RFC 6675: nothing beyond what cwnd allows");
    assert_eq!(sent[1], (1, true), "ns-3: one segment, new data (the hole is not yet lost)");
}

// tests `partial_ack_nextseg` with a short head (ns-3's partial ACK: `DoRetransmit` unless
// `IsRetransmittedDataAcked(ack + segment size)`, which looks for any retransmitted, un-SACKed
// segment ending exactly there; with nothing else to send `DoRetransmit` re-sends the head,
// retransmitted before or not). Two writes make S0 and S1, then three full segments S2-S4, all
// sent; S0 and S1 are lost, S2-S4 SACKed, both holes retransmitted. The retransmission of S0
// brings a partial ACK up to S1, whose retransmission is in flight; nothing is lost and
// unsent, no new data is left. S1 full-size: it ends one segment above the ACK, so ns-3 waits.
// S1 of half a segment: it ends half a segment above, no segment ends a whole one above (S2 is
// SACKed), so ns-3 sends S1 again.
#[test]
fn ns3_partial_ack_resends_a_short_retransmitted_head() {
    for s1 in [MSS, MSS / 2] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { partial_ack_nextseg: true, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(MSS + s1));
        let mut burst = p.client_sends();
        p.c.app_send(Some(3 * MSS), 0);
        burst.extend(p.client_sends());
        let lens: Vec<u64> = burst.iter().map(|s| s.payload as u64).collect();
        assert_eq!(lens, [MSS, s1, MSS, MSS, MSS]);
        let dups = p.deliver_to_server(&burst[2..5]);
        let mut out = p.deliver_to_client(&dups);
        assert_eq!(p.c.ca, CaState::Recovery);
        // Let both holes go (PRR would space them out).
        p.c.w.cwnd = 10 * MSS;
        out.extend(p.client_sends());
        let seqs: Vec<u32> = out.iter().map(seg_seq).collect();
        assert_eq!(seqs, [seg_seq(&burst[0]), seg_seq(&burst[1])], "S0 and S1 retransmitted");
        p.c.prr_out = 1 << 40; // nothing through PRR from here
        let partial = p.deliver_to_server(&out[0..1]);
        let Transport::Tcp { ack, .. } = partial[0].transport else { unreachable!() };
        assert_eq!(ack, seg_seq(&burst[1]), "a partial ACK, up to S1");
        let again = p.deliver_to_client(&partial);
        assert_eq!(p.c.ca, CaState::Recovery);
        let want: Vec<u32> = if s1 == MSS { vec![] } else { vec![seg_seq(&burst[1])] };
        assert_eq!(again.iter().map(seg_seq).collect::<Vec<_>>(), want, "S1 of {s1} B");
        p.c.sb.check();
    }
}

// tests the ns-3 option `pipe_counts_sacked_retx`: a retransmitted segment that is SACKed stays
// in pipe until it is cumulatively acknowledged (ns-3's BytesInFlight); RFC 6675's pipe drops it.
#[test]
fn ns3_pipe_keeps_sacked_retransmissions() {
    let mut pipes = Vec::new();
    for keep in [false, true] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { pipe_counts_sacked_retx: keep, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        let burst = p.client_sends();
        // Segments 0 and 1 lost; 2-5 arrive: both holes are lost and retransmitted.
        let dups = p.deliver_to_server(&burst[2..6]);
        let out = p.deliver_to_client(&dups);
        let r1 = out.iter().find(|s| seg_seq(s) == seg_seq(&burst[1])).expect("second hole retransmitted").clone();
        // Only the retransmission of 1 arrives: it is SACKed, 0 is still missing.
        let ack = p.deliver_to_server(&[r1]);
        p.deliver_to_client(&ack);
        assert_eq!(p.c.sb.sacked_retrans_bytes, MSS);
        p.c.sb.check();
        pipes.push(p.c.pipe());
    }
    assert_eq!(pipes[1], pipes[0] + MSS);
}

// tests the ns-3 option `exit_ack_grows`: the full ACK sets cwnd = ssthresh and then grows it
// once in congestion avoidance; without it cwnd = ssthresh exactly (RFC 6582 §3.2 step 3,
// option (2)).
#[test]
fn ns3_full_ack_also_grows_the_window() {
    let cfg = TcpConfig { compat: Ns3Compat { exit_ack_grows: true, ..Ns3Compat::RFC }, ..reno_cfg() };
    let mut p = Pair::new(cfg, Some(10 * MSS));
    let burst = p.client_sends();
    let dups = p.deliver_to_server(&burst[1..]);
    p.deliver_to_client(&dups);
    let full = p.deliver_to_server(&burst[0..1]);
    p.deliver_to_client(&full);
    assert_eq!(p.c.ca, CaState::Open);
    assert_eq!(p.c.w.ssthresh, 5 * MSS);
    assert_eq!(p.c.w.cwnd, 5 * MSS + MSS * MSS / (5 * MSS), "ssthresh + SMSS²/cwnd");
}

// tests RFC 2018 §4 SACK reporting against ns-3's list (option `sack_report`): after five
// separate blocks, the oldest has left ns-3's four-entry list, so when the segment between it
// and the next arrives, ns-3 reports only the merge with the listed neighbour; RFC 2018
// reports the whole block the receiver holds.
#[test]
fn sack_blocks_rfc2018_versus_ns3_list() {
    for (report, first_block) in [(SackReport::Rfc2018, (1, 4)), (SackReport::Ns3, (2, 4))] {
        let cfg = TcpConfig { compat: Ns3Compat { sack_report: report, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        let burst = p.client_sends();
        let odd: Vec<SimPacket> = [1, 3, 5, 7, 9].iter().map(|&i| burst[i].clone()).collect();
        let acks = p.deliver_to_server(&odd);
        let Transport::Tcp { opts, .. } = &acks.last().unwrap().transport else { unreachable!() };
        let seg = |i: u32| seg_seq(&burst[0]).wrapping_add(i * MSS as u32);
        assert_eq!(opts.sack.as_slice()[0], (seg(9), seg(10)), "{report:?}: newest first");
        let acks = p.deliver_to_server(&burst[2..3]);
        let Transport::Tcp { opts, .. } = &acks[0].transport else { unreachable!() };
        assert_eq!(opts.sack.as_slice()[0], (seg(first_block.0), seg(first_block.1)), "{report:?}");
        assert_eq!(opts.sack.n, 3, "three blocks beside timestamps");
    }
}

// tests RFC 6675 §5 (4.3): entering recovery retransmits the first unacknowledged segment even
// if an earlier episode already retransmitted it (that retransmission is presumed lost too).
#[test]
fn new_recovery_retransmits_the_head_again() {
    let cfg = TcpConfig { delack: DelAck::Off, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let burst = p.client_sends();
    let dups = p.deliver_to_server(&burst[1..4]);
    let out = p.deliver_to_client(&dups);
    assert_eq!(out.iter().filter(|s| seg_seq(s) == seg_seq(&burst[0])).count(), 1, "fast retransmit");
    // That retransmission is lost too; suppose the episode is over (as when the head was new
    // data sent during the previous recovery) and new duplicates start another one.
    p.c.ca = CaState::Open;
    p.c.dupacks = 0;
    p.c.recover = 0;
    let dups = p.deliver_to_server(&burst[4..7]);
    let out = p.deliver_to_client(&dups);
    assert_eq!(p.c.ca, CaState::Recovery);
    assert_eq!(out.iter().filter(|s| seg_seq(s) == seg_seq(&burst[0])).count(), 1, "the head goes out again");
    p.c.sb.check();
}

// tests the initial window (RFC 3390 §1) computed with the SMSS negotiated in the handshake (iw =
// "rfc3390" with MSS 1448: 4380 B, so three full segments leave and the fourth waits).
#[test]
fn initial_window_formula_uses_negotiated_smss() {
    let cfg = TcpConfig { iw: InitialWindow::Rfc3390, delack: DelAck::Off, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    assert_eq!(p.c.w.cwnd, 4_380);
    let sent = p.client_sends();
    assert_eq!(sent.len(), 3, "4380 B admits three 1448 B segments");
    let cfg = TcpConfig { iw: InitialWindow::Rfc5681, mss: 536, delack: DelAck::Off, ..TcpConfig::default() };
    let p = Pair::new(cfg, None);
    assert_eq!(p.c.w.cwnd, 4 * 536);
}

// tests delack = "linux" (Linux `tcp_incr_quickack`, `__tcp_ack_snd_check`,
// `tcp_delack_timer_handler`): 16 quick ACKs from the first data segment (131072 B window
// / (2·1448) = 45, capped at 16), then an ACK for every second full segment and a 40 ms
// delayed-ACK timer that doubles the ATO when it fires.
#[test]
fn linux_delack_quickack_then_every_second_segment() {
    let cfg = TcpConfig { delack: DelAck::Linux, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    let mut acks = Vec::new();
    for s in &burst {
        let a = p.deliver_to_server(std::slice::from_ref(s));
        assert_eq!(a.len(), 1, "quick-ACK mode: every segment acknowledged at once");
        acks.extend(a);
    }
    assert_eq!(p.s.lnx_ack.quick, 6);
    p.now += Dur::from_millis(1);
    let more = p.deliver_to_client(&acks);
    assert!(more.len() >= 10, "slow start sent {}", more.len());
    for s in &more[..6] {
        assert_eq!(p.deliver_to_server(std::slice::from_ref(s)).len(), 1);
    }
    assert!(!p.s.lnx_ack.in_quickack(), "16 quick ACKs used");
    assert!(p.deliver_to_server(&more[6..7]).is_empty(), "one segment: ACK delayed");
    assert_eq!(p.s.poll_at(), Some(p.now + Dur::from_millis(40)), "ATO 40 ms");
    assert_eq!(p.deliver_to_server(&more[7..8]).len(), 1, "more than one full segment: ACK now");
    assert_eq!(p.s.poll_at(), None);
    assert!(p.deliver_to_server(&more[8..9]).is_empty());
    let t = p.s.poll_at().unwrap();
    let mut out = Vec::new();
    p.s.on_wakeup(t, &mut out);
    assert_eq!(out.len(), 1, "the delayed-ACK timer fires");
    assert_eq!(p.s.lnx_ack.ato, Dur::from_millis(80), "a missed delayed ACK doubles the ATO");
}

// tests delack = "linux" (Linux `tcp_data_queue` → `tcp_enter_quickack_mode`): an entirely
// duplicate segment re-enters quick-ACK mode.
#[test]
fn linux_delack_duplicate_segment_reenters_quickack() {
    let cfg = TcpConfig { delack: DelAck::Linux, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let burst = p.client_sends();
    p.s.lnx_ack.quick = 0;
    let first = p.deliver_to_server(&burst[0..1]);
    assert_eq!(first.len(), 1, "first data: quick-ACK mode starts");
    p.s.lnx_ack.quick = 0;
    assert!(p.deliver_to_server(&burst[1..2]).is_empty());
    assert_eq!(p.deliver_to_server(&burst[0..1]).len(), 1, "duplicate: ACK at once");
    assert_eq!(p.s.lnx_ack.quick, 15, "16 granted, one used");
}

// tests the ns-3 option `rto_holds_ssthresh = false`: every timeout recomputes ssthresh from
// the bytes in flight, a repeated one of the same head too (ns-3.44 clears the retransmitted
// marks before its check); RFC 5681 §3.1 keeps it (see rto_sets_loss_window_and_doubles_timer).
#[test]
fn ns3_repeated_timeout_lowers_ssthresh_again() {
    let cfg = TcpConfig { compat: Ns3Compat { rto_holds_ssthresh: false, ..Ns3Compat::RFC }, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(20 * MSS));
    p.client_sends();
    let mut out = Vec::new();
    p.now = p.c.poll_at().unwrap();
    p.c.on_wakeup(p.now, &mut out);
    assert_eq!(p.c.w.ssthresh, 5 * MSS, "first timeout: half of 10 segments in flight");
    p.now += Dur::from_secs(2);
    p.c.on_wakeup(p.now, &mut out);
    assert_eq!(p.c.counters.rto_count, 2);
    assert_eq!(p.c.w.ssthresh, 2 * MSS, "second: one segment in flight, the 2-SMSS floor");
}

// tests the ns-3 option `dup_ack_restarts_rto = false`: a cumulative ACK that counts as a
// duplicate leaves the retransmission timer running; by default it restarts it (RFC 6298 §5.3).
#[test]
fn ns3_duplicate_cumulative_ack_leaves_the_timer() {
    for restarts in [true, false] {
        let mut p = Pair::new(TcpConfig { compat: Ns3Compat { dup_ack_restarts_rto: restarts, ..Ns3Compat::RFC }, ..TcpConfig::default() }, None);
        let burst = p.client_sends();
        let before = p.c.rto_at;
        p.now += Dur::from_millis(5);
        assert!(p.deliver_to_server(&burst[0..1]).is_empty(), "delayed ACK");
        let adv = p.deliver_to_server(&burst[2..3]);
        p.deliver_to_client(&adv);
        assert_eq!(p.c.ca, CaState::Disorder);
        if restarts {
            assert_eq!(p.c.rto_at, p.now + p.c.rtt.rto(), "restarted");
        } else {
            assert_eq!(p.c.rto_at, before, "left running");
        }
    }
}

// tests the ns-3 option `ack_duplicate_synack = false`: a retransmitted SYN-ACK after the
// handshake is ignored; by default it is answered with an ACK (RFC 9293 §3.10.7.4).
#[test]
fn duplicate_synack_is_acknowledged_or_ignored() {
    for (answer, expect) in [(true, 1), (false, 0)] {
        let cfg = std::sync::Arc::new(TcpConfig { compat: Ns3Compat { ack_duplicate_synack: answer, ..Ns3Compat::RFC }, ..TcpConfig::default() });
        let (ca, sa) = (SockAddr { addr: 1, port: 1000 }, SockAddr { addr: 2, port: 80 });
        let mut c = Endpoint::client(cfg.clone(), ca, sa, 7, 0);
        let mut s = Endpoint::server(cfg, sa, ca, 9, 0);
        let mut out = Vec::new();
        c.connect(Time::ZERO, &mut out);
        s.on_segment(&out.pop().unwrap(), Time(1), &mut out);
        let synack = out.pop().unwrap();
        c.on_segment(&synack, Time(2), &mut out);
        out.clear();
        c.on_segment(&synack, Time(3), &mut out);
        assert_eq!(out.len(), expect, "answer = {answer}");
    }
}

// tests `exit_ack_grows` after a timeout (ns-3): the ACK that ends the loss state grows cwnd
// only by the whole segments beyond the recovery point (here none); otherwise it grows it as
// any ACK of new data (RFC 5681).
#[test]
fn ns3_loss_exit_grows_only_beyond_the_recovery_point() {
    for (ns3, expect) in [(false, 2 * MSS + MSS / 2), (true, 2 * MSS)] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { exit_ack_grows: ns3, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(2 * MSS));
        p.client_sends(); // both segments lost
        let mut out = Vec::new();
        p.now = p.c.poll_at().unwrap();
        p.c.on_wakeup(p.now, &mut out);
        assert_eq!((p.c.ca, p.c.w.cwnd, p.c.w.ssthresh), (CaState::Loss, MSS, 2 * MSS));
        let acks = p.deliver_to_server(&out);
        let out = p.deliver_to_client(&acks);
        assert_eq!(p.c.w.cwnd, 2 * MSS, "slow start in the loss state");
        let acks = p.deliver_to_server(&out);
        p.deliver_to_client(&acks);
        assert_eq!(p.c.ca, CaState::Open);
        assert_eq!(p.c.w.cwnd, expect, "ns3 = {ns3}");
    }
}

// tests `data_retries` (ns-3's `TcpSocketBase` attribute DataRetries): with n = 2 the first two
// timeouts in a row retransmit and the third aborts the connection, which then sends and answers
// nothing; a new ACK in between starts the count again.
#[test]
fn data_retries_abort_after_consecutive_timeouts() {
    let mut p = Pair::new(TcpConfig { data_retries: Some(2), delack: DelAck::Off, ..TcpConfig::default() }, Some(20 * MSS));
    let burst = p.client_sends();
    // One timeout, then the first segment is acknowledged: the streak restarts.
    let mut out = Vec::new();
    p.now = p.c.poll_at().unwrap();
    p.c.on_wakeup(p.now, &mut out);
    assert_eq!(out.len(), 1, "first timeout retransmits");
    let acks = p.deliver_to_server(&burst[..1]);
    out.clear();
    p.c.on_segment(&acks[0], p.now, &mut out);
    assert!(p.c.snd_una > 1, "the head was acknowledged");
    for k in 1..=2 {
        out.clear();
        p.now = p.c.poll_at().unwrap();
        p.c.on_wakeup(p.now, &mut out);
        assert_eq!(p.c.state, ConnState::Established, "timeout {k} after the new ACK still retransmits");
        assert!(!out.is_empty());
    }
    out.clear();
    p.now = p.c.poll_at().unwrap();
    p.c.on_wakeup(p.now, &mut out);
    assert_eq!(p.c.state, ConnState::Aborted, "the third in a row aborts");
    assert!(out.is_empty(), "nothing is sent on abort");
    assert_eq!(p.c.poll_at(), None, "no timer left");
    assert_eq!(p.c.counters.rto_count, 3, "the aborting expiry is not a retransmission timeout");
    let late = p.deliver_to_server(&burst[1..3]);
    p.c.on_segment(&late[0], p.now, &mut out);
    assert!(out.is_empty() && p.c.poll_at().is_none(), "an aborted connection answers nothing");
}

/// Ten segments of a finite transfer, `lost` dropped on the way; everything else reaches the
/// server and its ACKs reach the client. Returns the pair, the first flight and what the client
/// sent in response, in order.
fn tail_losses(cfg: TcpConfig, lost: &[usize]) -> (Pair, Vec<SimPacket>, Vec<SimPacket>) {
    let mut p = Pair::new(TcpConfig { delack: DelAck::Off, ..cfg }, Some(10 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    let arrived: Vec<SimPacket> = burst.iter().enumerate().filter(|(i, _)| !lost.contains(i)).map(|(_, s)| s.clone()).collect();
    p.now += Dur::from_millis(10);
    let acks = p.deliver_to_server(&arrived);
    p.now += Dur::from_millis(10);
    let sent = p.deliver_to_client(&acks);
    (p, burst, sent)
}

// tests RFC 6675 §4 NextSeg rule (3): with no new data to send, an un-SACKed hole
// below the highest SACKed segment that is not yet judged lost is retransmitted in recovery,
// under both NextSeg variants (ns-3 has rule 3 when no unsent data is left), not left to the RTO.
#[test]
fn nextseg_rule3_retransmits_an_unlost_hole_below_the_highest_sack() {
    for nextseg in [NextSeg::Rfc6675, NextSeg::Ns3] {
        // Segments 1 and 8 lost: 8 has only segment 9 SACKed above it, so it is not lost.
        let (mut p, burst, sent) = tail_losses(TcpConfig { compat: Ns3Compat { nextseg, ..Ns3Compat::RFC }, ..TcpConfig::default() }, &[1, 8]);
        assert_eq!(p.c.ca, CaState::Recovery);
        let mut retx: Vec<u32> = sent.iter().map(seg_seq).collect();
        if !retx.contains(&seg_seq(&burst[8])) {
            // Not yet: the retransmitted segment 1 comes back as a partial ACK first.
            let acks = p.deliver_to_server(&sent);
            retx.extend(p.deliver_to_client(&acks).iter().map(seg_seq));
        }
        assert_eq!(retx[0], seg_seq(&burst[1]), "{nextseg:?}: the head first");
        assert!(retx.contains(&seg_seq(&burst[8])), "{nextseg:?}: rule 3 retransmits segment 8");
        assert_eq!(p.c.counters.rto_count, 0);
        p.c.sb.check();
    }
}

// tests RFC 6675 §4 NextSeg rule (4), the rescue retransmission: a lost last segment
// with nothing SACKed above it is resent once SND.UNA passes RescueRxt (the end of the first
// retransmission), instead of waiting for the RTO; ns-3 sends no rescue.
#[test]
fn nextseg_rescue_retransmits_the_tail_once_per_recovery() {
    for (nextseg, rescue) in [(NextSeg::Rfc6675, true), (NextSeg::Ns3, false)] {
        let (mut p, burst, sent) = tail_losses(TcpConfig { compat: Ns3Compat { nextseg, ..Ns3Compat::RFC }, ..TcpConfig::default() }, &[1, 9]);
        assert_eq!(p.c.ca, CaState::Recovery);
        assert_eq!(sent.iter().map(seg_seq).collect::<Vec<_>>(), vec![seg_seq(&burst[1])], "{nextseg:?}: no rescue before the head is acknowledged");
        // The retransmitted head arrives: a partial ACK up to segment 9.
        let acks = p.deliver_to_server(&sent);
        let after: Vec<u32> = p.deliver_to_client(&acks).iter().map(seg_seq).collect();
        assert_eq!(p.c.snd_una, 1 + 9 * MSS, "partial ACK");
        if rescue {
            assert_eq!(after, vec![seg_seq(&burst[9])], "rescue: the highest un-SACKed segment");
            assert_eq!(p.c.rescue_rxt, Some(p.c.recover), "RescueRxt = RecoveryPoint: once per recovery");
        } else {
            assert!(after.is_empty(), "ns-3: the tail waits for the RTO");
        }
        p.c.sb.check();
    }
}

// tests RFC 6582 §3.2 step 1 and the ns-3.13 option `recover_check = false`: three duplicate
// ACKs for data sent before the recovery point (here left by an earlier episode) start fast
// recovery only without the check.
#[test]
fn recover_check_blocks_recovery_below_the_recovery_point() {
    for check in [true, false] {
        let mut p = Pair::new(TcpConfig { compat: Ns3Compat { recover_check: check, ..Ns3Compat::RFC }, ..reno_cfg() }, Some(10 * MSS));
        let burst = p.client_sends();
        p.c.recover = p.c.snd_max; // as if a timeout had just set it
        let dups = p.deliver_to_server(&burst[1..4]);
        let out = p.deliver_to_client(&dups);
        let retx = out.iter().any(|s| seg_seq(s) == seg_seq(&burst[0]));
        assert_eq!(retx, !check, "check {check}");
        assert_eq!(p.c.ca == CaState::Recovery, !check);
    }
}

/// Wake the client whenever it asks to be woken, for `until`; the data segments it sends, with
/// their times.
pub(super) fn run_client_timers(p: &mut Pair, until: Time) -> Vec<(Time, SimPacket)> {
    let mut sent = Vec::new();
    while let Some(t) = p.c.poll_at().filter(|&t| t <= until) {
        p.now = t;
        let mut out = Vec::new();
        p.c.on_wakeup(p.now, &mut out);
        sent.extend(out.into_iter().filter(|s| s.payload > 0).map(|s| (t, s)));
    }
    sent
}

// tests pacing (docs/tcp.md, "pacing") with a congestion control that sets a pacing rate: each
// segment of L bytes leaves L·8/rate after the one before it, the initial window included, and
// pacing never overrides the window (the eleventh segment waits for an ACK). With pacing off, the
// same algorithm sends its initial window at once.
#[test]
fn pacing_spaces_segments_at_the_congestion_controls_rate() {
    // 1448 B · 8 / 11.584 Mb/s = 1 ms.
    let rate = sluice_core::Rate::bps(11_584_000);
    let cfg = TcpConfig {
        delack: DelAck::Off,
        ..TcpConfig::default()
    };
    let mut p = Pair::new(cfg.clone(), None);
    p.c.cc = super::cc::AnyCc::FixedRate(super::cc::FixedRate(rate, super::cc::LossResponse::NewReno));
    let t0 = p.now;
    let first = p.client_sends();
    assert_eq!(first.len(), 1, "one segment, then the pacing gap");
    assert_eq!(p.c.poll_at(), Some(t0 + Dur::from_millis(1)));
    let rest = run_client_timers(&mut p, t0 + Dur::from_millis(50));
    let times: Vec<Time> = rest.iter().map(|(t, _)| *t).collect();
    let want: Vec<Time> = (1..10).map(|i| t0 + Dur::from_millis(i)).collect();
    assert_eq!(times, want, "the rest of the initial window, 1 ms apart");
    assert_eq!(
        p.c.snd_max - p.c.snd_una,
        10 * MSS,
        "cwnd holds the eleventh back"
    );

    let mut unpaced = Pair::new(
        TcpConfig {
            pacing: super::config::Pacing::Off,
            ..cfg
        },
        None,
    );
    unpaced.c.cc = super::cc::AnyCc::FixedRate(super::cc::FixedRate(rate, super::cc::LossResponse::NewReno));
    assert_eq!(
        unpaced.client_sends().len(),
        10,
        "pacing = \"off\": the window at once"
    );
}

/// A pair whose client paces at `rate` (a fixed-rate algorithm, NewReno's loss response),
/// delayed ACKs off, with `compat`'s switches.
fn fixed_rate_pair(rate: sluice_core::Rate, compat: Ns3Compat) -> Pair {
    let cfg = TcpConfig { delack: DelAck::Off, compat, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    p.c.cc = super::cc::AnyCc::FixedRate(super::cc::FixedRate(rate, super::cc::LossResponse::NewReno));
    p
}

// tests `pace_initial_window` (docs/tcp.md): with it cleared (ns-3's `IsPacingEnabled`), the
// initial window of 10 segments leaves at once, and the pacing clock starts with the tenth,
// whose end (sequence 1 + 10·1448, the SYN counted) passes IW·SMSS = 14,480: the next segment
// waits 1 ms after it (1448 B at 11.584 Mb/s). The ACKs of the first two segments at 20 ms
// free room for more, but only one leaves then (the clock expired at 1 ms), the next 1 ms later.
#[test]
fn ns3_sends_the_initial_window_unpaced() {
    let rate = sluice_core::Rate::bps(11_584_000);
    let mut p = fixed_rate_pair(rate, Ns3Compat { pace_initial_window: false, ..Ns3Compat::RFC });
    let t0 = p.now;
    let burst = p.client_sends();
    assert_eq!(burst.iter().filter(|s| s.payload > 0).count(), 10, "the initial window at once");
    assert_eq!(p.c.poll_at(), Some(t0 + Dur::from_millis(1)), "the clock starts with the tenth");
    assert!(run_client_timers(&mut p, t0 + Dur::from_millis(20)).is_empty(), "cwnd is full");
    p.now = t0 + Dur::from_millis(20);
    let acks = p.deliver_to_server(&burst[..2]);
    let out = p.deliver_to_client(&acks);
    assert_eq!(out.iter().filter(|s| s.payload > 0).count(), 1);
    assert_eq!(p.c.poll_at(), Some(p.now + Dur::from_millis(1)));
}

// tests `rto_keeps_pacing_clock` (docs/tcp.md): at 1,000 b/s a 1448-B segment takes an 11.584 s
// pacing slot, so the first segment's clock still runs when the retransmission timer fires.
// Kept (the default), the head leaves at once and the next segment, freed by the ACK of the
// retransmission, waits for the first slot, t0 + 11.584 s; cancelled (ns-3's `ReTxTimeout`),
// the retransmission restarts the clock, and the next waits until the timeout + 11.584 s.
#[test]
fn a_timeout_cancels_the_pacing_clock_under_ns3() {
    let rate = sluice_core::Rate::bps(1_000);
    let slot = rate.tx_time(1448);
    assert_eq!(slot, Dur::from_millis(11_584));
    for keep in [true, false] {
        let mut p = fixed_rate_pair(rate, Ns3Compat { rto_keeps_pacing_clock: keep, ..Ns3Compat::RFC });
        let t0 = p.now;
        let first = p.client_sends();
        assert_eq!(first.iter().filter(|s| s.payload > 0).count(), 1);
        let rto_at = p.c.rto_at;
        assert!(rto_at < t0 + slot);
        let rtx = run_client_timers(&mut p, rto_at);
        assert_eq!(rtx.len(), 1, "the head again at the timeout");
        assert_eq!((rtx[0].0, seg_seq(&rtx[0].1)), (rto_at, seg_seq(&first[0])));
        p.now = rto_at + Dur::from_millis(20);
        let acks = p.deliver_to_server(&[rtx[0].1.clone()]);
        let out = p.deliver_to_client(&acks);
        assert!(out.iter().all(|s| s.payload == 0), "the next waits for its slot");
        let want = if keep { t0 + slot } else { rto_at + slot };
        let next = run_client_timers(&mut p, rto_at + slot);
        assert_eq!(next.first().map(|(t, _)| *t), Some(want), "keep = {keep}");
    }
}

// tests `pacing = "linux"` (Linux's internal pacing rate for any algorithm,
// `tcp_update_pacing_rate`): none before the first RTT sample; then ratio·max(cwnd, in flight)/SRTT
// with ratio 200 % in slow start and 120 % once cwnd reaches half of ssthresh. The default (`"cc"`)
// does not pace NewReno.
#[test]
fn linux_pacing_rate_follows_cwnd_over_srtt() {
    for (ssthresh, ratio) in [(u32::MAX as u64, 2.0), (12 * MSS, 1.2)] {
        let cfg = TcpConfig {
            delack: DelAck::Off,
            pacing: super::config::Pacing::Linux,
            initial_ssthresh: ssthresh,
            // No sample from the handshake, so the first comes with the first ACK below.
            handshake_rtt: false,
            ..TcpConfig::default()
        };
        let mut p = Pair::new(cfg, None);
        let burst = p.client_sends();
        assert_eq!(
            burst.len(),
            10,
            "no RTT sample yet: the initial window at once"
        );
        p.now += Dur::from_millis(10);
        let acks = p.deliver_to_server(&burst);
        p.now += Dur::from_millis(10);
        // The first ACK: RTT 20 ms, cwnd 11 segments; two may go, pacing lets one.
        let out = p.deliver_to_client(&acks[..1]);
        assert_eq!(
            out.iter().filter(|s| s.payload > 0).count(),
            1,
            "ratio {ratio}"
        );
        let srtt = p.c.rtt.srtt.expect("sampled").0 as f64;
        let window = p.c.w.cwnd.max(p.c.snd_max - p.c.snd_una) as f64;
        let gap = MSS as f64 * srtt / (ratio * window);
        let next = p.c.poll_at().expect("the paced segment's wake-up");
        assert!(
            (next.since(p.now).0 as f64 - gap).abs() <= 1.0,
            "ratio {ratio}: gap {} ns, want {gap:.0}",
            next.since(p.now).0
        );
        let until = p.now + Dur::from_millis(5);
        let more = run_client_timers(&mut p, until);
        assert_eq!(
            more.len(),
            1,
            "ratio {ratio}: the second segment at the gap, then cwnd is full"
        );
        assert_eq!(more[0].0, next);
    }
    let mut plain = Pair::new(
        TcpConfig {
            delack: DelAck::Off,
            ..TcpConfig::default()
        },
        None,
    );
    let burst = plain.client_sends();
    plain.now += Dur::from_millis(20);
    let acks = plain.deliver_to_server(&burst);
    assert_eq!(
        plain.deliver_to_client(&acks[..1]).len(),
        2,
        "pacing = \"cc\" with NewReno: no pacing"
    );
}

// tests `pace_fast_retransmit` (docs/tcp.md, "pacing"): under pacing, the fast retransmission on
// the third duplicate ACK takes the next pacing slot like any segment (Linux); with the option
// cleared (the ns3.44 profile) it leaves at once, as ns-3's DoRetransmit does. Tahoe's
// retransmission on the third duplicate (cwnd one segment, Loss state) follows the same rule.
#[test]
fn fast_retransmission_waits_for_its_pacing_slot() {
    use super::cc::LossResponse;
    for (wait, response) in [(true, LossResponse::NewReno), (false, LossResponse::NewReno), (true, LossResponse::Tahoe), (false, LossResponse::Tahoe)] {
        let cfg = TcpConfig {
            delack: DelAck::Off,
            compat: Ns3Compat { pace_fast_retransmit: wait, ..Ns3Compat::RFC },
            ..TcpConfig::default()
        };
        let mut p = Pair::new(cfg, None);
        p.c.cc =
            super::cc::AnyCc::FixedRate(super::cc::FixedRate(sluice_core::Rate::bps(11_584_000), response));
        let t0 = p.now;
        let mut sent = p.client_sends();
        sent.extend(
            run_client_timers(&mut p, t0 + Dur::from_millis(20))
                .into_iter()
                .map(|(_, s)| s),
        );
        assert_eq!(sent.len(), 10);
        // Segment 1 is lost; the rest arrive: one ACK of new data, then duplicates.
        p.now = t0 + Dur::from_millis(30);
        let delivered: Vec<SimPacket> = sent
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 1)
            .map(|(_, s)| s.clone())
            .collect();
        let acks = p.deliver_to_server(&delivered);
        p.now = t0 + Dur::from_millis(40);
        // The ACK of segment 0 sends one new segment and starts a 1 ms pacing gap.
        let out = p.deliver_to_client(&acks[..1]);
        assert_eq!(out.iter().filter(|s| s.payload > 0).count(), 1);
        let out = p.deliver_to_client(&acks[1..4]);
        let rtx: Vec<&SimPacket> = out
            .iter()
            .filter(|s| seg_seq(s) == seg_seq(&sent[1]))
            .collect();
        let state = if response == LossResponse::Tahoe { CaState::Loss } else { CaState::Recovery };
        assert_eq!(p.c.ca, state);
        if wait {
            assert!(rtx.is_empty(), "the retransmission waits for the gap");
            assert_eq!(p.c.poll_at(), Some(p.now + Dur::from_millis(1)));
            let until = p.now + Dur::from_millis(1);
            let later = run_client_timers(&mut p, until);
            assert_eq!(
                seg_seq(&later[0].1),
                seg_seq(&sent[1]),
                "first in the next slot"
            );
        } else {
            assert_eq!(rtx.len(), 1, "ns-3: the retransmission leaves at once");
        }
    }
}

fn payload_and_seq(p: &SimPacket) -> (u64, u32) {
    (p.payload as u64, seg_seq(p))
}

// tests `retx_merge` (ns-3 `TcpTxBuffer::GetTransmittedSegment`): writes of 1.25 segments into a
// 4-segment send buffer leave a 0.75-segment runt at the end of the first burst; when it is lost
// and the timer fires, ns-3 retransmits it full-size, taking the start of the segment after it,
// and the next retransmission starts where that one ended. Off, the runt goes out as it was.
#[test]
fn ns3_retransmission_of_a_short_segment_goes_out_full_size() {
    for merge in [false, true] {
        let cfg = TcpConfig { delack: DelAck::Off, snd_buf: 4 * MSS, compat: Ns3Compat { retx_merge: merge, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        p.c.app_send(None, MSS + MSS / 4);
        let burst = p.client_sends();
        let sizes: Vec<u64> = burst.iter().map(|s| s.payload as u64).collect();
        assert_eq!(sizes, [MSS, MSS, MSS, 3 * MSS / 4], "three writes of 1.25 segments");
        let acks = p.deliver_to_server(&burst[0..3]);
        let more = p.deliver_to_client(&acks);
        assert_eq!(more.iter().map(|s| s.payload as u64).sum::<u64>(), 5 * MSS / 2, "two more writes");
        // The runt and everything after it are lost; the timer fires.
        p.now = p.c.poll_at().unwrap();
        let mut out = Vec::new();
        p.c.on_wakeup(p.now, &mut out);
        let (len, seq) = payload_and_seq(&out[0]);
        assert_eq!(seq, seg_seq(&burst[3]), "the head again");
        assert_eq!(len, if merge { MSS } else { 3 * MSS / 4 }, "merge = {merge}");
        // Its ACK lets two more go in slow start; the first starts where the retransmission ended.
        let acks = p.deliver_to_server(&out);
        let next = p.deliver_to_client(&acks);
        assert_eq!(seg_seq(&next[0]), seg_seq(&burst[3]).wrapping_add(len as u32));
        p.c.sb.check();
    }
}

// tests `rwnd_bounds_retx` (ns-3 `TcpSocketBase::SendPendingData`, which sends every segment,
// retransmissions included, within `AvailableWindow` = min(rWnd, cWnd) − BytesInFlight): the
// initial window of ten segments is lost, the timer fires and the head goes again; its ACK
// grows cwnd to two segments (slow start) but carries a window of 1.5 segments (a gateway
// lowered it). Nine segments are marked lost and pipe is 0. ns-3: min(2, 1.5) − 0 = 1.5
// segments of room, one retransmission (then 0.5 < 1 segment). Off: cwnd − pipe = 2 segments,
// and in Loss the window does not hold a retransmission back: two go.
#[test]
fn ns3_retransmissions_need_room_in_the_peer_window() {
    for bounds in [false, true] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { rwnd_bounds_retx: bounds, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        let burst = p.client_sends();
        assert_eq!(burst.len(), 10, "IW10");
        p.now = p.c.poll_at().unwrap();
        let mut out = Vec::new();
        p.c.on_wakeup(p.now, &mut out);
        assert_eq!(out.len(), 1, "the head again");
        assert_eq!(seg_seq(&out[0]), seg_seq(&burst[0]));
        let mut acks = p.deliver_to_server(&out);
        assert_eq!(acks.len(), 1);
        let field = (3 * MSS / 2) >> p.c.snd_shift;
        if let Transport::Tcp { window, .. } = &mut acks[0].transport {
            *window = field as u16;
        }
        let rtx = p.deliver_to_client(&acks);
        assert_eq!(p.c.w.cwnd, 2 * MSS, "slow start after the timeout");
        assert_eq!(p.c.snd_wnd, field << p.c.snd_shift, "the lowered window is taken (the ACK moves SND.UNA)");
        let seqs: Vec<u32> = rtx.iter().map(seg_seq).collect();
        let want: Vec<u32> = burst[1..if bounds { 2 } else { 3 }].iter().map(seg_seq).collect();
        assert_eq!(seqs, want, "rwnd_bounds_retx = {bounds}");
        p.c.sb.check();
    }
}

// tests `acked_whole_segments` (ns-3 `segsAcked` with `m_bytesAckedNotProcessed`): in
// congestion avoidance an ACK grows cwnd only if it delivers a whole segment, counting the
// remainders of earlier ACKs; off, every ACK of new data grows it.
#[test]
fn ns3_congestion_avoidance_counts_whole_segments() {
    for whole in [false, true] {
        let cfg = TcpConfig { delack: DelAck::Off, snd_buf: 2 * MSS, initial_ssthresh: 2 * MSS, compat: Ns3Compat { acked_whole_segments: whole, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        p.c.app_send(None, MSS + MSS / 2);
        let mut grew = Vec::new();
        let mut flight = p.client_sends();
        for _ in 0..4 {
            let seg = flight.remove(0);
            let before = p.c.w.cwnd;
            let acks = p.deliver_to_server(std::slice::from_ref(&seg));
            flight.extend(p.deliver_to_client(&acks));
            grew.push((seg.payload as u64, p.c.w.cwnd > before));
        }
        let expect = if whole {
            // 1, ½ (carried), 1 (½ carried), ½ + ½ = 1.
            [(MSS, true), (MSS / 2, false), (MSS, true), (MSS / 2, true)]
        } else {
            [(MSS, true), (MSS / 2, true), (MSS, true), (MSS / 2, true)]
        };
        assert_eq!(grew, expect, "whole = {whole}");
    }
}

/// `p` with its TCP flags and acknowledgment field replaced.
fn with_flags_ack(p: &SimPacket, f: u8, a: u32) -> SimPacket {
    let mut p = p.clone();
    if let Transport::Tcp { flags, ack, .. } = &mut p.transport {
        (*flags, *ack) = (f, a);
    }
    p
}

// tests RFC 9293 §3.10.7.2-3 (handshake states): a listener takes only a SYN without ACK; a
// client in SYN-SENT only a SYN-ACK acknowledging its SYN (ISS 1000: ACK 1001); a server in
// SYN-RECEIVED answers a repeated SYN with its SYN-ACK and ignores a segment without ACK.
// Whatever else arrives changes no state and sends nothing.
#[test]
fn handshake_states_take_only_their_own_segments() {
    let cfg = TcpConfig::default();
    let (mut c, mut s) = endpoints(cfg);
    let mut out = Vec::new();
    c.connect(Time::ZERO, &mut out);
    let syn = out.pop().unwrap();
    let t = Time(1_000_000);
    // Listen: a SYN-ACK, a bare segment (no flags) and a FIN are not SYNs.
    for f in [F::SYN | F::ACK, 0, F::FIN] {
        s.on_segment(&with_flags_ack(&syn, f, 0), t, &mut out);
        assert_eq!((s.state, out.len()), (ConnState::Listen, 0), "flags {f:#x} at a listener");
    }
    s.on_segment(&syn, t, &mut out);
    assert_eq!(s.state, ConnState::SynRcvd);
    let synack = out.pop().unwrap();
    assert_eq!(flags(&synack), F::SYN | F::ACK);
    // SYN-SENT: a SYN-ACK acknowledging the wrong number, a SYN without the ACK bit (its
    // acknowledgment field holding the right number), an ACK without SYN.
    for (f, a) in [(F::SYN | F::ACK, 1_002), (F::SYN, 1_001), (F::ACK, 1_001)] {
        c.on_segment(&with_flags_ack(&synack, f, a), t, &mut out);
        assert_eq!((c.state, out.len()), (ConnState::SynSent, 0), "flags {f:#x}, ack {a} in SYN-SENT");
    }
    // SYN-RECEIVED: a segment without the ACK bit (its acknowledgment field holding the
    // right number, ISS 5000: 5001), an ACK of the wrong number and a SYN-ACK are ignored; a
    // repeated SYN brings the SYN-ACK again.
    for (f, a) in [(0, 5_001), (F::ACK, 5_002), (F::SYN | F::ACK, 0)] {
        s.on_segment(&with_flags_ack(&syn, f, a), t, &mut out);
        assert_eq!((s.state, out.len()), (ConnState::SynRcvd, 0), "flags {f:#x}, ack {a} in SYN-RECEIVED");
    }
    s.on_segment(&syn, t, &mut out);
    assert_eq!((s.state, out.len(), out.pop().map(|p| flags(&p))), (ConnState::SynRcvd, 1, Some(F::SYN | F::ACK)));
    c.on_segment(&synack, t, &mut out);
    assert_eq!(c.state, ConnState::Established);
}

// tests the server's side of `handshake_rtt` (Linux `tcp_synack_rtt_meas`, ns-3 `EstimateRtt`
// on the handshake's ACK): the SYN-ACK leaves at 10 ms, the ACK arrives at 30 ms, a 20-ms first
// sample (SRTT 20 ms, RTTVAR 10 ms); after a retransmitted SYN-ACK, none without timestamps
// (Karn). And a repeated SYN gets the SYN-ACK at once without restarting the SYN-ACK's timer
// (ns-3 schedules it only when none is pending; Linux's `inet_rtx_syn_ack` leaves it): under
// ns-3's SYN timer (3 s, doubled per try) the first SYN-ACK's timer still fires at 3.010 s,
// its retry counted, and the next comes 3 s · 2² later.
#[test]
fn the_server_times_its_syn_ack_and_a_repeated_syn_keeps_the_timer() {
    for resend in [false, true] {
        let (mut c, mut s) = endpoints(TcpConfig { timestamps: false, syn_rto: SynRto::Ns3, ..TcpConfig::default() });
        let mut out = Vec::new();
        c.connect(Time::ZERO, &mut out);
        let syn = out.pop().unwrap();
        s.on_segment(&syn, Time(10_000_000), &mut out);
        let mut synack = out.pop().unwrap();
        assert_eq!(s.poll_at(), Some(Time(3_010_000_000)));
        if resend {
            s.on_segment(&syn, Time(2_000_000_000), &mut out);
            synack = out.pop().expect("the SYN-ACK again");
            assert_eq!(s.poll_at(), Some(Time(3_010_000_000)), "the timer left running");
            s.on_wakeup(Time(3_010_000_000), &mut out);
            assert_eq!(flags(&out.pop().unwrap()), F::SYN | F::ACK);
            assert_eq!(s.poll_at(), Some(Time(15_010_000_000)), "the third try waits 3 s · 4");
        }
        let t = if resend { Time(3_020_000_000) } else { Time(20_000_000) };
        c.on_segment(&synack, t, &mut out);
        let ack = out.remove(0);
        s.on_segment(&ack, t + Dur::from_millis(10), &mut out);
        assert_eq!(s.state, ConnState::Established);
        let want = (!resend).then_some((Dur::from_millis(20), Dur::from_millis(10)));
        assert_eq!(s.rtt.srtt.map(|v| (v, s.rtt.rttvar)), want, "resend {resend}");
    }
}

// tests `handshake_rtt`'s clock: the SYN's round trip runs from when the first SYN was sent,
// not from the start of the run, and to the nanosecond unless `rtt_from_ts` (or a
// retransmitted SYN) asks for the echoed timestamp. A SYN sent at 0.4 ms whose SYN-ACK
// arrives at 20.9 ms gives a first sample of 20.5 ms (SRTT 20.5 ms, RTTVAR 10.25 ms), with
// timestamps or without; from the timestamp it would be 20 − 0 = 20 ticks, 20 ms.
#[test]
fn the_handshake_sample_runs_from_the_syns_send_time() {
    for (timestamps, from_ts, want) in [(false, false, 20_500_000), (true, false, 20_500_000), (true, true, 20_000_000)] {
        let cfg = TcpConfig { timestamps, compat: Ns3Compat { rtt_from_ts: from_ts, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let (mut c, mut s) = endpoints(cfg);
        let mut out = Vec::new();
        c.connect(Time(400_000), &mut out);
        let syn = out.pop().unwrap();
        s.on_segment(&syn, Time(10_400_000), &mut out);
        let synack = out.pop().unwrap();
        c.on_segment(&synack, Time(20_900_000), &mut out);
        assert_eq!((c.rtt.srtt, c.rtt.rttvar), (Some(Dur(want)), Dur(want / 2)), "timestamps {timestamps}, rtt_from_ts {from_ts}");
    }
}

// tests `handshake_rtt` (Linux and ns-3 time the SYN): the 20 ms handshake of `Pair` is the
// first sample (SRTT 20 ms, RTTVAR 10 ms); without the option there is none until data is
// acknowledged; after a retransmitted SYN Karn's rule leaves none (no timestamps), while the
// echoed timestamp still gives one, in whole milliseconds.
#[test]
fn the_handshake_gives_the_first_rtt_sample() {
    let p = Pair::new(TcpConfig::default(), None);
    assert_eq!((p.c.rtt.srtt, p.c.rtt.rttvar), (Some(Dur::from_millis(20)), Dur::from_millis(10)));
    let p = Pair::new(TcpConfig { handshake_rtt: false, ..TcpConfig::default() }, None);
    assert_eq!(p.c.rtt.srtt, None);
    // A SYN sent at 0.4 ms, lost, sent again at 1.0004 s; its SYN-ACK arrives at 1.0211 s.
    for (timestamps, want) in [(false, None), (true, Some(Dur::from_millis(21)))] {
        let cfg = TcpConfig { timestamps, ..TcpConfig::default() };
        let (mut c, mut s) = endpoints(cfg);
        let mut out = Vec::new();
        c.connect(Time(400_000), &mut out);
        out.clear();
        let t = c.poll_at().expect("the SYN timer");
        c.on_wakeup(t, &mut out);
        let syn = out.pop().expect("the SYN again");
        s.on_segment(&syn, t + Dur::from_millis(10), &mut out);
        let synack = out.pop().unwrap();
        c.on_segment(&synack, t + Dur::from_micros(20_700), &mut out);
        assert_eq!(c.state, ConnState::Established);
        assert_eq!(c.rtt.srtt, want, "timestamps {timestamps}");
    }
}

// tests `rtt_from_ts` (ns-3): with timestamps every sample is the echo's age in whole
// milliseconds; without the option a segment not retransmitted is timed to the nanosecond.
#[test]
fn rtt_from_timestamps_counts_whole_ticks() {
    for (from_ts, want) in [(false, Dur::from_micros(20_700)), (true, Dur::from_millis(21))] {
        let cfg = TcpConfig { delack: DelAck::Off, handshake_rtt: false, compat: Ns3Compat { rtt_from_ts: from_ts, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        p.now += Dur::from_micros(300);
        let burst = p.client_sends();
        p.now += Dur::from_micros(10_000);
        let acks = p.deliver_to_server(&burst[..1]);
        p.now += Dur::from_micros(10_700);
        p.deliver_to_client(&acks);
        assert_eq!(p.c.rtt.srtt, Some(want), "rtt_from_ts {from_ts}");
    }
}

// tests `edge_clip` (ns-3 NextSeg rule (2)): with a SACKed segment out of pipe, cwnd − pipe
// has room for a whole segment but the peer's window only for half of one: ns-3 sends the
// half up to the right edge, the default waits for the window to open.
#[test]
fn new_data_at_the_window_edge() {
    for (clip, want) in [(false, vec![]), (true, vec![MSS / 2])] {
        let cfg = TcpConfig { delack: DelAck::Off, rcv_buf: 10 * MSS + MSS / 2, window_scaling: false, compat: Ns3Compat { edge_clip: clip, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        let burst = p.client_sends();
        assert_eq!(burst.len(), 10, "the initial window fits the peer's");
        let acks = p.deliver_to_server(&burst[1..2]);
        let out = p.deliver_to_client(&acks);
        let sent: Vec<u64> = out.iter().filter(|s| s.payload > 0).map(|s| s.payload as u64).collect();
        assert_eq!(sent, want, "edge_clip {clip}");
    }
}

// tests `rtt_from_ts` after a timeout (ns-3): the ACK of the retransmission gives no sample
// even with timestamps (the timeout cleared ns-3's history of sends), yet undoes the backoff;
// the default takes the timestamp's sample instead (RFC 7323, Linux).
#[test]
fn an_ack_after_a_timeout_undoes_the_backoff_under_ns3_sampling() {
    for from_ts in [false, true] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { rtt_from_ts: from_ts, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(MSS));
        let first = p.client_sends();
        assert_eq!(first.len(), 1);
        let (srtt, rto) = (p.c.rtt.srtt, p.c.rtt.rto());
        let t = p.c.poll_at().expect("the retransmission timer");
        p.now = t;
        let mut out = Vec::new();
        p.c.on_wakeup(t, &mut out);
        assert_eq!(p.c.rtt.rto(), rto.saturating_mul(2), "backed off");
        p.now += Dur::from_millis(10);
        let acks = p.deliver_to_server(&out);
        p.now += Dur::from_millis(10);
        p.deliver_to_client(&acks);
        assert_eq!(p.c.rtt.rto(), rto, "backoff undone");
        // The handshake left SRTT 20 ms, RTTVAR 10 ms; the echo's 20 ms sample takes RTTVAR
        // to 7.5 ms, no sample leaves it.
        let want = if from_ts { Dur::from_millis(10) } else { Dur::from_micros(7_500) };
        assert_eq!((p.c.rtt.srtt, p.c.rtt.rttvar), (srtt, want), "rtt_from_ts {from_ts}");
    }
}

// tests `ts_recent_in_order` (ns-3) against RFC 7323 §4.3: a duplicate of data already
// acknowledged (seq below RCV.NXT) sets TS.Recent under the RFC rule, not under ns-3's, which
// takes the echo only from the segment at RCV.NXT.
#[test]
fn a_duplicate_leaves_the_echo_under_ns3() {
    for (in_order, moves) in [(false, true), (true, false)] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { ts_recent_in_order: in_order, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        let burst = p.client_sends();
        p.now += Dur::from_millis(10);
        p.deliver_to_server(&burst[..1]);
        let echo = p.s.ts_recent;
        p.now += Dur::from_millis(50);
        let mut dup = burst[0].clone();
        if let Transport::Tcp { ref mut opts, .. } = dup.transport {
            opts.ts = Some((super::endpoint::ts_clock(p.now), 0));
        }
        p.deliver_to_server(&[dup]);
        assert_eq!(p.s.ts_recent != echo, moves, "ts_recent_in_order {in_order}");
    }
}

/// Sets an ACK's window field (what a network-return gateway writes).
fn set_window_field(p: &mut SimPacket, field: u16) {
    if let Transport::Tcp { window, .. } = &mut p.transport {
        *window = field;
    }
}

// tests a right edge lowered by a gateway: the sender sends nothing past SND.UNA + SND.WND. On a
// new ACK every rule takes the lower window; on a pure duplicate ACK (the same ACK and sequence
// number) only rfc9293 takes it (SEG.SEQ = WL1 and SEG.ACK ≥ WL2, RFC 9293 §3.10.7.4), while
// ns-3 (a smaller window only with a new ACK or sequence number) and Linux
// (`tcp_may_update_window`: a larger or zero window on the same ACK) keep the old one until the
// next new ACK. Window fields count the server's shift: 4 segments are 4·1448 >> shift.
#[test]
fn lowered_window_bounds_the_sender_by_update_rule() {
    for (rule, duplicate_applies) in [(WndUpdateRule::Rfc9293, true), (WndUpdateRule::Ns3, false), (WndUpdateRule::Linux, false)] {
        let mut p = Pair::new(TcpConfig { wnd_update: rule, ..reno_cfg() }, Some(100 * MSS));
        let shift = p.c.snd_shift;
        let burst = p.client_sends();
        assert_eq!(burst.len(), 10, "{rule:?}");
        // The ACK of the first segment, lowered to 4 segments: SND.UNA + 4 segments is below the
        // 10 sent, so nothing new goes out (slow start alone would send two).
        let mut ack1 = p.deliver_to_server(&burst[..1]);
        let four = ((4 * MSS) >> shift) as u16;
        set_window_field(&mut ack1[0], four);
        assert!(p.deliver_to_client(&ack1).is_empty(), "{rule:?}: a new ACK's lower window holds the sender");
        assert_eq!(p.c.snd_wnd, (four as u64) << shift, "{rule:?}");
        // The ACK of the second segment, as the server wrote it: the window opens again and the
        // sender fills cwnd (12 segments after two ACKs in slow start, 8 of the 10 still in flight).
        let ack2 = p.deliver_to_server(&burst[1..2]);
        let out = p.deliver_to_client(&ack2);
        assert_eq!(out.len(), 4, "{rule:?}: cwnd 12 with 8 in flight releases 4 segments");
        let wide = p.c.snd_wnd;
        assert!(wide > 20 * MSS, "{rule:?}");
        // The same ACK again with the window lowered to 4 segments: a pure duplicate.
        let mut dup = ack2.clone();
        set_window_field(&mut dup[0], four);
        // It counts as the first duplicate: limited transmit (RFC 3042) releases one new segment
        // if the window the sender holds allows it, and only then.
        let max_before = p.c.snd_max;
        let out = p.deliver_to_client(&dup);
        let want = if duplicate_applies { (four as u64) << shift } else { wide };
        assert_eq!(p.c.snd_wnd, want, "{rule:?}: a duplicate ACK's lower window");
        assert_eq!(out.len(), if duplicate_applies { 0 } else { 1 }, "{rule:?}");
        assert!(p.c.snd_max <= (p.c.snd_una + p.c.snd_wnd).max(max_before), "{rule:?}: nothing past the right edge");
    }
}

// ---- Sender rules pinned down by mutation testing (docs/testing.md, "Mutation testing") ----

/// A copy of `p` with its TCP header changed by `f` (SEQ, ACK, flags, window, options).
fn edited(p: &SimPacket, f: impl FnOnce(&mut u32, &mut u32, &mut u8, &mut u16, &mut crate::packet::TcpOptions)) -> SimPacket {
    let mut q = p.clone();
    if let Transport::Tcp { seq, ack, flags, window, opts, .. } = &mut q.transport {
        f(seq, ack, flags, window, opts);
    }
    q
}

/// The send window (in window-field units) after the client takes, from the state left by two
/// in-order ACKs (WL1 = SEG.SEQ = S, WL2 = SND.UNA = A, field W), segments that copy the second
/// ACK with SEG.SEQ = S + dseq, SEG.ACK = A + dack segments and the field W·frac.
fn window_after(rule: WndUpdateRule, steps: &[(u32, i32, f64)]) -> (u64, u64) {
    let mut p = Pair::new(TcpConfig { wnd_update: rule, ..reno_cfg() }, Some(100 * MSS));
    let shift = p.c.snd_shift;
    let burst = p.client_sends();
    let ack1 = p.deliver_to_server(&burst[..1]);
    p.deliver_to_client(&ack1);
    let ack2 = p.deliver_to_server(&burst[1..2]);
    p.deliver_to_client(&ack2);
    let w = p.c.snd_wnd >> shift;
    for &(dseq, dack, frac) in steps {
        let seg = edited(&ack2[0], |seq, ack, _, window, _| {
            *seq = seq.wrapping_add(dseq);
            *ack = ack.wrapping_add_signed(dack * MSS as i32);
            *window = (w as f64 * frac) as u16;
        });
        p.deliver_to_client(&[seg]);
    }
    (p.c.snd_wnd >> shift, w)
}

// tests the three window-update rules (`wnd_update`) case by case. From WL1 = S, WL2 = SND.UNA
// = A and window W:
//   rfc9293 (RFC 9293 §3.10.7.4): SND.UNA ≤ SEG.ACK ≤ SND.NXT and (SEG.SEQ > WL1, or SEG.SEQ =
//     WL1 and SEG.ACK ≥ WL2);
//   ns3 (`TcpSocketBase::UpdateWindowSize`): SEG.ACK > SND.UNA, or SEG.SEQ above the highest
//     sequence number received, or SEG.ACK = SND.UNA with a larger window;
//   linux (`tcp_may_update_window`): SEG.ACK > SND.UNA, or SEG.SEQ > WL1, or SEG.SEQ = WL1 with
//     a larger or a zero window.
// Expected windows (fraction of W) per case, in the order rfc9293, ns3, linux:
//   a. old ACK (A − 1 segment), newer SEQ (S + 1), W/2:  RFC ignores an ACK below SND.UNA: 1;
//      ns3 and linux take it for its newer sequence number: 1/2, 1/2.
//   b. same ACK, newer SEQ, W/2: every rule takes it (SEG.SEQ > WL1 / above the highest): 1/2.
//   c. same ACK, SEQ S + 1 with W (taken by all), then SEQ S (older) with W/2: none takes the
//      older segment's window: 1.
//   d. new ACK (A + 1) with W/2 (taken by all), then the same ACK and SEQ with W: a larger
//      window on a duplicate is taken by all: 1.
//   e. same ACK and SEQ, zero window: RFC takes it (SEG.SEQ = WL1, SEG.ACK ≥ WL2), ns3 does not
//      (not larger), linux does (zero): 0, 1, 0.
//   f. new ACK (A + 1), same SEQ, W/2: every rule takes a new ACK's window: 1/2.
#[test]
fn window_update_rules_case_by_case() {
    let cases: [(&str, &[(u32, i32, f64)], [f64; 3]); 6] = [
        ("a", &[(1, -1, 0.5)], [1.0, 0.5, 0.5]),
        ("b", &[(1, 0, 0.5)], [0.5, 0.5, 0.5]),
        ("c", &[(1, 0, 1.0), (0, 0, 0.5)], [1.0, 1.0, 1.0]),
        ("d", &[(0, 1, 0.5), (0, 1, 1.0)], [1.0, 1.0, 1.0]),
        ("e", &[(0, 0, 0.0)], [0.0, 1.0, 0.0]),
        ("f", &[(0, 1, 0.5)], [0.5, 0.5, 0.5]),
    ];
    for (name, steps, want) in cases {
        for (rule, frac) in [WndUpdateRule::Rfc9293, WndUpdateRule::Ns3, WndUpdateRule::Linux].into_iter().zip(want) {
            let (got, w) = window_after(rule, steps);
            assert!(w > 100, "a wide window to halve");
            assert_eq!(got, (w as f64 * frac) as u64, "case {name}, {rule:?}");
        }
    }
}

// tests the persist timer (RFC 9293 §3.8.6.1) against window updates: with data waiting and a
// zero window it is armed for 6 s; at 6 s a one-byte probe goes and the timer backs off to
// 12 s; the probe's ACK, again with a zero window, leaves the backed-off timer alone; the
// window update that opens the window stops it, and data goes.
#[test]
fn persist_timer_backs_off_on_zero_windows_and_stops_when_the_window_opens() {
    let mut p = Pair::new(TcpConfig { wnd_update: WndUpdateRule::Rfc9293, ..reno_cfg() }, Some(20 * MSS));
    let burst = p.client_sends();
    let acks: Vec<_> = p.deliver_to_server(&burst).iter().map(|a| edited(a, |_, _, _, w, _| *w = 0)).collect();
    assert!(p.deliver_to_client(&acks).is_empty(), "a zero window holds the sender");
    assert_eq!(p.c.snd_una, p.c.snd_max);
    assert_eq!(p.c.persist_at, p.now + super::endpoint::PERSIST_TIMEOUT);
    let t = p.c.persist_at;
    p.now = t;
    let mut probe = Vec::new();
    p.c.on_wakeup(t, &mut probe);
    assert_eq!(probe.iter().map(|s| s.payload).collect::<Vec<_>>(), vec![1], "a one-byte probe");
    assert_eq!(p.c.persist_at, t + Dur::from_secs(12), "backed off once");
    p.now += Dur::from_millis(10);
    let answer = p.deliver_to_server(&probe);
    assert_eq!(answer.len(), 1);
    let zero = edited(&answer[0], |_, _, _, w, _| *w = 0);
    assert!(p.deliver_to_client(&[zero]).is_empty());
    assert_eq!(p.c.snd_wnd, 0);
    assert_eq!(p.c.persist_at, t + Dur::from_secs(12), "a zero window leaves the backed-off timer");
    // The server's window as it wrote it: a duplicate ACK with a larger window (SEG.SEQ = WL1,
    // SEG.ACK ≥ WL2) opens the window.
    let out = p.deliver_to_client(&answer);
    assert!(!out.is_empty(), "the window opened: data goes");
    assert_eq!(p.c.persist_at, super::endpoint::NEVER, "an open window stops the persist timer");
}

// tests RFC 5681 §2's duplicate ACK without SACK: an ACK at SND.UNA with data outstanding is a
// duplicate only if it carries no data and neither SYN nor FIN. The peer's data segment and its
// bare FIN are not (dupacks stays 0); the pure ACK after them is (dupacks 1).
#[test]
fn data_or_fin_at_snd_una_is_not_a_duplicate_ack() {
    let mut p = Pair::new(reno_cfg(), Some(10 * MSS));
    let burst = p.client_sends();
    let dup = p.deliver_to_server(&burst[1..2]);
    assert_eq!(dup.len(), 1, "segment 2 out of order: a duplicate ACK");
    let mut data = dup[0].clone();
    data.payload = 100;
    p.deliver_to_client(&[data]);
    assert_eq!(p.c.rcv_nxt, p.s.snd_max + 100, "the client took the 100 bytes");
    assert_eq!(p.c.dupacks, 0, "a data segment is not a duplicate ACK");
    let fin = edited(&dup[0], |seq, _, fl, _, _| {
        *seq = seq.wrapping_add(100);
        *fl |= F::FIN;
    });
    p.deliver_to_client(&[fin]);
    assert_eq!(p.c.dupacks, 0, "a FIN is not a duplicate ACK");
    let pure = edited(&dup[0], |seq, _, _, _, _| *seq = seq.wrapping_add(101));
    p.deliver_to_client(&[pure]);
    assert_eq!(p.c.dupacks, 1, "a pure ACK at SND.UNA is");
}

// tests RFC 5681 §2 conditions (a) and (e): an ACK below SND.UNA (reordered) is not a
// duplicate, even three of them with data outstanding; nor is an ACK at SND.UNA when nothing
// is outstanding, which also leaves the retransmission timer off (RFC 6298 §5.2).
#[test]
fn old_acks_and_acks_with_nothing_outstanding_are_not_duplicates() {
    let mut p = Pair::new(reno_cfg(), Some(10 * MSS));
    let burst = p.client_sends();
    let acks = p.deliver_to_server(&burst[..3]);
    p.deliver_to_client(&acks[2..]);
    let una = p.c.snd_una;
    p.deliver_to_client(&[acks[0].clone(), acks[1].clone(), acks[1].clone(), acks[1].clone()]);
    assert_eq!((p.c.snd_una, p.c.dupacks), (una, 0), "ACKs below SND.UNA");
    assert_eq!(p.c.counters.fast_retransmits, 0);
    let mut p = Pair::new(reno_cfg(), Some(MSS));
    let one = p.client_sends();
    let ack = p.deliver_to_server(&one);
    p.deliver_to_client(&ack);
    assert_eq!(p.c.snd_una, p.c.snd_max, "all acknowledged");
    assert_eq!(p.c.rto_at, super::endpoint::NEVER, "RFC 6298 §5.2: no timer with nothing outstanding");
    p.deliver_to_client(&[ack[0].clone(), ack[0].clone(), ack[0].clone()]);
    assert_eq!(p.c.dupacks, 0, "nothing outstanding: not duplicates");
    assert_eq!(p.c.rto_at, super::endpoint::NEVER);
}

// tests RFC 2018 §1: SACK blocks count only if SACK was negotiated. A non-SACK connection
// ignores a block on a duplicate ACK: the scoreboard holds no SACKed byte.
#[test]
fn sack_blocks_without_sack_permitted_are_ignored() {
    let mut p = Pair::new(reno_cfg(), Some(10 * MSS));
    let burst = p.client_sends();
    let dup = p.deliver_to_server(&burst[1..2]);
    let l = seg_seq(&burst[1]);
    let with_block = edited(&dup[0], |_, _, _, _, o| {
        o.sack.n = 0;
        o.sack.push((l, l + MSS as u32));
    });
    p.deliver_to_client(&[with_block]);
    assert_eq!(p.c.sb.sacked_bytes, 0);
    assert_eq!(p.c.dupacks, 1, "still a duplicate ACK (no data, no SYN/FIN)");
}

// tests RFC 6675 §5 / RFC 2883: a SACK block below the cumulative ACK (a D-SACK reporting a
// duplicate) is no new SACK information. The ACK of segment 1 carrying a block for segment 1
// is a plain new ACK: no duplicate counted, cwnd grows in slow start by one SMSS (10 -> 11).
#[test]
fn a_block_below_the_cumulative_ack_is_not_new_sack_information() {
    let mut p = Pair::new(TcpConfig { delack: DelAck::Off, ..TcpConfig::default() }, Some(20 * MSS));
    let burst = p.client_sends();
    let ack = p.deliver_to_server(&burst[..1]);
    let l = seg_seq(&burst[0]);
    let dsack = edited(&ack[0], |_, _, _, _, o| {
        o.sack.n = 0;
        o.sack.push((l, l + MSS as u32));
    });
    p.deliver_to_client(&[dsack]);
    assert_eq!(p.c.dupacks, 0);
    assert_eq!(p.c.w.cwnd, 11 * MSS);
}

// tests RFC 9293 §3.10.7.4: a segment without the ACK bit is dropped for ACK processing; its
// acknowledgment field does not move SND.UNA.
#[test]
fn a_segment_without_the_ack_bit_acknowledges_nothing() {
    let mut p = Pair::new(reno_cfg(), Some(10 * MSS));
    let burst = p.client_sends();
    let ack = p.deliver_to_server(&burst[..1]);
    let una = p.c.snd_una;
    p.deliver_to_client(&[edited(&ack[0], |_, _, fl, _, _| *fl &= !F::ACK)]);
    assert_eq!(p.c.snd_una, una);
    p.deliver_to_client(&ack);
    assert_eq!(p.c.snd_una, una + MSS, "the same segment with ACK set does");
}

// tests `synack_keeps_window = false` (ns-3's DoForwardUp on a SYN): a retransmitted SYN-ACK
// after the handshake resets cwnd to the initial window (10 · 1448) and ssthresh to the
// initial ssthresh; by default (RFC 9293) the window is untouched.
#[test]
fn ns3_duplicate_synack_resets_the_window() {
    for keeps in [true, false] {
        let cfg = TcpConfig { compat: Ns3Compat { synack_keeps_window: keeps, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let (ca, sa) = (SockAddr { addr: 1, port: 1000 }, SockAddr { addr: 2, port: 80 });
        let mut c = Endpoint::client(std::sync::Arc::new(cfg.clone()), ca, sa, 7, 0);
        let mut s = Endpoint::server(std::sync::Arc::new(cfg.clone()), sa, ca, 9, 0);
        let mut out = Vec::new();
        c.connect(Time::ZERO, &mut out);
        s.on_segment(&out.pop().unwrap(), Time(1), &mut out);
        let synack = out.pop().unwrap();
        c.on_segment(&synack, Time(2), &mut out);
        c.w.cwnd = 50 * MSS;
        c.w.ssthresh = 20 * MSS;
        c.on_segment(&synack, Time(3), &mut out);
        let want = if keeps { (50 * MSS, 20 * MSS) } else { (10 * MSS, cfg.initial_ssthresh) };
        assert_eq!((c.w.cwnd, c.w.ssthresh), want, "synack_keeps_window {keeps}");
    }
}

// tests the RTT counters behind the summary's mean RTT: one data segment sent at t, delivered
// at t + 10 ms, its ACK back at t + 20 ms: one more sample of 20 ms.
#[test]
fn rtt_counters_add_each_sample() {
    let mut p = Pair::new(reno_cfg(), Some(2 * MSS));
    let (sum0, n0) = (p.c.counters.rtt_sum_ns, p.c.counters.rtt_n);
    let one = p.client_sends();
    p.now += Dur::from_millis(10);
    let acks = p.deliver_to_server(&one);
    p.now += Dur::from_millis(10);
    p.deliver_to_client(&acks[..1]);
    assert_eq!((p.c.counters.rtt_sum_ns, p.c.counters.rtt_n), (sum0 + 20_000_000, n0 + 1));
    p.deliver_to_client(&acks[1..]);
    assert_eq!((p.c.counters.rtt_sum_ns, p.c.counters.rtt_n), (sum0 + 40_000_000, n0 + 2));
}

// tests RFC 9293 §3.10.7.4 (FIN-WAIT-1, LAST-ACK): the state moves only when the FIN itself is
// acknowledged (SND.UNA past the last data byte), not when the data before it is: the client
// goes FIN-WAIT-1 -> FIN-WAIT-2; the server, closing on the client's FIN, LAST-ACK -> CLOSED.
#[test]
fn the_state_moves_when_the_fin_is_acknowledged() {
    let mut p = Pair::new(TcpConfig { delack: DelAck::Off, ..TcpConfig::default() }, Some(2 * MSS));
    let sent = p.client_sends();
    let mut fin = Vec::new();
    p.c.app_close(p.now, &mut fin);
    assert_eq!(p.c.state, ConnState::FinWait1);
    let acks = p.deliver_to_server(&sent);
    p.deliver_to_client(&acks);
    assert_eq!(p.c.snd_una, p.c.app_end, "all data acknowledged, the FIN not");
    assert_eq!(p.c.state, ConnState::FinWait1);
    // The server acknowledges the FIN, then (its application closing on end of data) sends
    // its own: it is in LAST-ACK.
    let fin_ack = p.deliver_to_server(&fin);
    assert_eq!(fin_ack.iter().map(|s| flags(s) & F::FIN).collect::<Vec<_>>(), vec![0, F::FIN]);
    assert_eq!(p.s.state, ConnState::LastAck);
    p.deliver_to_client(&fin_ack[..1]);
    assert_eq!(p.c.state, ConnState::FinWait2);
    let last = p.deliver_to_client(&fin_ack[1..]);
    assert_eq!(p.c.state, ConnState::TimeWait);
    p.deliver_to_server(&last);
    assert_eq!(p.s.state, ConnState::Closed);
}

// tests RFC 9293 §3.10.7.4 ("segments with higher beginning sequence numbers may be held for
// later processing"; the FIN is processed in sequence): a FIN that rides on an out-of-order
// segment is held with it (Linux keeps the flag in its out-of-order queue, ns-3 remembers the
// FIN's position) and takes effect when the gap before it fills. Four segments, the FIN on the
// last, the first lost: the other three are SACKed and only duplicate ACKs answer them; the
// retransmission of the first then ACKs the four segments *and* the FIN (4 MSS + 1), and the
// server, closing on end of data, sends its own FIN. A bare FIN out of order is held the same
// way and adds no SACK block.
#[test]
fn a_fin_on_out_of_order_data_counts_once_the_gap_fills() {
    let cfg = TcpConfig { delack: DelAck::Off, snd_buf: 4 * MSS, ..TcpConfig::default() };
    let mut p = Pair::new(cfg.clone(), None);
    let out = p.stop_sending();
    assert_eq!(flags(&out[3]) & F::FIN, F::FIN);
    let dups = p.deliver_to_server(&out[1..]);
    assert_eq!(dups.len(), 3);
    assert!(dups.iter().all(|a| seg_ack(a) == 1_001 && flags(a) & F::FIN == 0));
    assert_eq!(p.s.state, ConnState::Established, "the FIN waits for the gap");
    let fill = p.deliver_to_server(&out[..1]);
    assert_eq!(fill.iter().map(|a| (seg_ack(a), flags(a) & F::FIN)).collect::<Vec<_>>(), [(1_002 + 4 * MSS as u32, 0), (1_002 + 4 * MSS as u32, F::FIN)]);
    assert_eq!(p.s.state, ConnState::LastAck);

    // A bare FIN ahead of the data before it.
    let mut p = Pair::new(cfg, Some(2 * MSS));
    let (sent, fin) = p.send_then_close();
    let dup = p.deliver_to_server(&fin);
    assert_eq!((dup.len(), seg_ack(&dup[0])), (1, 1_001));
    assert!(p.s.ooo.is_empty(), "no SACK block for a bare FIN");
    let acks = p.deliver_to_server(&sent);
    assert_eq!(acks.iter().map(seg_ack).max(), Some(1_002 + 2 * MSS as u32));
    assert_eq!(p.s.state, ConnState::LastAck);
}

// tests RFC 2018 for a FIN that rode on the last data segment: a receiver's SACK block reports
// the data it holds (ns-3's ends at the last data byte, Linux's includes the FIN's sequence
// number), and a block that reaches the end of the data covers that segment, FIN included.
// Four segments, the FIN on the last, the first lost: the duplicate ACKs SACK 1-3 (up to
// 1 + 4 MSS); all three are SACKed at the sender, so the first is lost by RFC 6675's IsLost
// (three SACKed segments above it) and pipe holds only its retransmission. A bare FIN is not
// covered by a block that ends where it starts.
#[test]
fn a_sack_block_to_the_end_of_the_data_covers_a_fin_riding_on_it() {
    let cfg = TcpConfig { delack: DelAck::Off, snd_buf: 4 * MSS, ..TcpConfig::default() };
    let mut p = Pair::new(cfg.clone(), None);
    let out = p.stop_sending();
    let dups = p.deliver_to_server(&out[1..]);
    p.deliver_to_client(&dups);
    assert_eq!(p.c.sb.segs().iter().map(|s| s.sacked).collect::<Vec<_>>(), [false, true, true, true]);
    assert!(p.c.sb.segs()[0].lost);
    assert_eq!(p.c.pipe(), MSS, "the retransmission of the first");

    // The FIN alone after the data: a block up to the data's end leaves it un-SACKed.
    let mut p = Pair::new(cfg, Some(4 * MSS));
    let (sent, _fin) = p.send_then_close();
    let dups = p.deliver_to_server(&sent[1..]);
    p.deliver_to_client(&dups);
    assert_eq!(p.c.sb.segs().iter().map(|s| s.sacked).collect::<Vec<_>>(), [false, true, true, true, false]);
}

// tests `open_sends_after_fin`: four segments then a bare FIN (FIN-WAIT-1), all in flight; the
// head is then marked lost while the state is Open (as ns-3's `DiscardUpTo` does when it moves
// an emulated SACK mark off a new head). RFC 6675 / Linux (true): the next send opportunity
// retransmits it. ns-3 (false; `SendPendingData` stops in `CA_OPEN` during `FIN_WAIT_1`):
// nothing goes, and the retransmission timer is left to recover it.
#[test]
fn ns3_sends_nothing_in_open_once_its_fin_is_out() {
    for (sends, want) in [(true, vec![1_001]), (false, vec![])] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { open_sends_after_fin: sends, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(4 * MSS));
        let (sent, fin) = p.send_then_close();
        assert_eq!((sent.len(), fin.len(), p.c.state, p.c.ca), (4, 1, ConnState::FinWait1, super::cc::CaState::Open));
        assert_eq!(p.c.sb.mark_head_lost(), MSS);
        let mut out = Vec::new();
        p.c.send_pending(p.now, &mut out);
        assert_eq!(out.iter().map(seg_seq).collect::<Vec<_>>(), want, "open_sends_after_fin = {sends}");
    }
}

// tests `fin_acked_apart`: how a receiver whose application closes on end of stream answers the
// FIN. Three ways the FIN arrives (two segments of data, then the FIN): on the last data segment
// in order; alone, in order; on the last segment, held out of order until the first arrives.
// Linux (true): an ACK at once, then the application's FIN, every time. ns-3 (false;
// `PacketSink`'s socket is shut for sending, so `DoPeerClose` closes at once): the FIN|ACK alone
// answers the bare FIN and the segment that completes the data before the held FIN; the FIN on
// in-order data gets the data's ACK first (its sequence number counts as a filled gap in
// `ReceivedData`). Each answer acknowledges the FIN (2 MSS + 1 after the data).
#[test]
fn ns3_the_closing_fin_carries_the_ack() {
    let fin_of = |a: &SimPacket| flags(a) & F::FIN;
    for (apart, answers) in [(true, [2, 2, 2]), (false, [2, 1, 1])] {
        let cfg = TcpConfig { delack: DelAck::Off, snd_buf: 2 * MSS, compat: Ns3Compat { fin_acked_apart: apart, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut got = Vec::new();
        for way in 0..3 {
            let mut p = Pair::new(cfg.clone(), (way == 1).then_some(2 * MSS));
            let segs = if way == 1 {
                let (mut sent, fin) = p.send_then_close();
                sent.extend(fin);
                sent
            } else {
                p.stop_sending()
            };
            assert_eq!(fin_of(segs.last().unwrap()), F::FIN);
            let answer = if way == 2 {
                assert_eq!(p.deliver_to_server(&segs[1..]).len(), 1, "a duplicate ACK");
                p.deliver_to_server(&segs[..1])
            } else {
                let mut acks = p.deliver_to_server(&segs[..segs.len() - 1]);
                if way == 1 {
                    assert_eq!(acks.len(), 2, "the data's ACKs");
                }
                acks.clear();
                p.deliver_to_server(&segs[segs.len() - 1..])
            };
            assert!(answer.iter().all(|a| seg_ack(a) == 1_002 + 2 * MSS as u32), "fin_acked_apart = {apart}, way {way}");
            assert_eq!(fin_of(answer.last().unwrap()), F::FIN);
            assert_eq!(p.s.state, ConnState::LastAck);
            got.push(answer.len());
        }
        assert_eq!(got, answers, "fin_acked_apart = {apart}");
    }
}

// tests ns-3's LAST-ACK timers (`fin_timeout_rfc = false`). The server closes as the client's
// FIN arrives (ns-3's DoPeerClose with PacketSink's ShutdownSend); its FIN|ACK is lost, and so
// is everything it sends after. The handshake gave it one RTT sample, 20 ms (SYN-ACK at 10 ms,
// ACK at 30 ms): SRTT 20 ms, RTTVAR 10 ms, so ns-3's LastAckTimeout comes every
// 20 + max(1, 4·10) = 60 ms, with no floor and no backoff, `data_retries` times; at the next
// expiry the connection is dropped. The FIN's own retransmission event (SendEmptyPacket's, at
// the RTO with its 1 s floor) sends it too and re-arms at the same RTO. An ACK of the FIN
// stops both. Under RFC rules only the retransmission timer runs, and it backs off.
#[test]
fn ns3_resends_the_passive_closers_fin_on_its_last_ack_timer() {
    let fin_times = |ns3: bool, retries: u32, until: Dur| {
        let compat = Ns3Compat { fin_timeout_rfc: !ns3, ..Ns3Compat::RFC };
        let cfg = TcpConfig { delack: DelAck::Off, data_retries: Some(retries), compat, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(MSS));
        let (sent, fin) = p.send_then_close();
        p.deliver_to_server(&sent);
        let answer = p.deliver_to_server(&fin);
        assert_eq!(flags(answer.last().unwrap()) & F::FIN, F::FIN, "the server's FIN, lost");
        assert_eq!(p.s.state, ConnState::LastAck);
        assert_eq!((p.s.rtt.srtt, p.s.rtt.raw_rto()), (Some(Dur::from_millis(20)), Dur::from_millis(60)));
        let t0 = p.now;
        let (mut times, mut last) = (Vec::new(), None);
        while let Some(t) = p.s.poll_at().filter(|&t| t <= t0 + until) {
            let mut out = Vec::new();
            p.s.on_wakeup(t, &mut out);
            p.now = t;
            for a in out {
                assert_eq!((flags(&a) & (F::FIN | F::ACK), a.payload), (F::FIN | F::ACK, 0));
                times.push((t.0 - t0.0) / 1_000_000);
                last = Some(a);
            }
        }
        (times, p, last)
    };
    // Six resends 60 ms apart, the connection dropped at the seventh expiry.
    let (times, p, _) = fin_times(true, 6, Dur::from_secs(5));
    assert_eq!(times, [60, 120, 180, 240, 300, 360]);
    assert_eq!((p.s.state, p.s.poll_at()), (ConnState::Aborted, None));
    // With more tries the retransmission event shows, at 1 s and 2 s.
    let (times, _, _) = fin_times(true, 40, Dur::from_millis(2_100));
    let mut want: Vec<u64> = (1..=35).map(|k| 60 * k).collect();
    want.extend([1_000, 2_000]);
    want.sort();
    assert_eq!(times, want);
    // RFC rules: the retransmission timer alone, doubled after each expiry.
    let (times, _, _) = fin_times(false, 6, Dur::from_secs(5));
    assert_eq!(times, [1_000, 3_000]);
    // A segment from the client that updates the window leaves the timer (it holds the
    // persist timer's slot in LAST-ACK).
    let (times, mut p, _) = fin_times(true, 6, Dur::from_millis(70));
    assert_eq!(times, [60]);
    let mut ack = Vec::new();
    p.c.send_ack(p.now, &mut ack);
    assert!(p.deliver_to_server(&ack).is_empty());
    assert_eq!(p.s.poll_at(), Some(p.now + Dur::from_millis(60)));
    // The second resend arrives and is acknowledged: both of ns-3's timers stop.
    let (times, mut p, fin) = fin_times(true, 6, Dur::from_millis(130));
    assert_eq!(times, [60, 120]);
    let ack = p.deliver_to_client(&[fin.unwrap()]);
    assert!(p.deliver_to_server(&ack).is_empty());
    assert_eq!((p.s.state, p.s.poll_at()), (ConnState::Closed, None));
}

// tests `time_wait_answers`: the client's data and FIN arrive, the server's FIN|ACK closes
// the client into TIME-WAIT and its ACK is lost; the server's FIN comes again. RFC 9293
// §3.10.7.4 (and Linux) acknowledge it again; ns-3's TIME_WAIT does nothing.
#[test]
fn a_repeated_fin_in_time_wait_is_acknowledged_unless_ns3() {
    for answers in [true, false] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { time_wait_answers: answers, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(MSS));
        let (sent, fin) = p.send_then_close();
        p.deliver_to_server(&sent);
        let answer = p.deliver_to_server(&fin);
        let server_fin = answer.last().unwrap().clone();
        assert_eq!(flags(&server_fin) & F::FIN, F::FIN);
        let acks = p.deliver_to_client(&answer);
        assert_eq!((p.c.state, acks.len()), (ConnState::TimeWait, 1), "the final ACK, lost");
        let again = p.deliver_to_client(&[server_fin]);
        let want = if answers { vec![(1_002 + MSS as u32, 5_002)] } else { vec![] };
        assert_eq!(again.iter().map(|a| (seg_seq(a), seg_ack(a))).collect::<Vec<_>>(), want, "time_wait_answers = {answers}");
        assert_eq!(p.c.state, ConnState::TimeWait);
    }
}

// tests PRR's share beyond 64 bits: ⌈2^40 · 2^40 / 2^30⌉ = 2^50 (the product taken in 128
// bits), and ⌈(2^40 + 1) · 2^40 / 2^41⌉ = 2^39 + 1 (rounded up).
#[test]
fn prr_share_past_64_bits() {
    use super::sender::prr_share;
    assert_eq!(prr_share(1 << 40, 1 << 40, 1 << 30, false), 1 << 50);
    assert_eq!(prr_share((1 << 40) + 1, 1 << 40, 1 << 41, false), (1 << 39) + 1);
}

// tests the Linux duplicate-ACK rule (`dupack = "linux"`, `tcp_ack`: no FLAG_DATA and no
// FLAG_WIN_UPDATE, the latter set when `tcp_may_update_window` takes the window): at SND.UNA a
// data segment is no duplicate; a pure ACK with a lower window is (not a window update:
// dupacks 1); one with a larger window is a window update, no duplicate (dupacks stays 1).
#[test]
fn linux_duplicate_rule_data_and_window_updates() {
    let mut p = Pair::new(TcpConfig { dupack: DupAckRule::Linux, wnd_update: WndUpdateRule::Linux, ..reno_cfg() }, Some(10 * MSS));
    let burst = p.client_sends();
    let dup = p.deliver_to_server(&burst[1..2]);
    let Transport::Tcp { window: w, .. } = dup[0].transport else { unreachable!() };
    let mut data = dup[0].clone();
    data.payload = 100;
    p.deliver_to_client(&[data]);
    assert_eq!(p.c.dupacks, 0, "a data segment");
    let lower = edited(&dup[0], |seq, _, _, win, _| {
        *seq = seq.wrapping_add(100);
        *win = w / 2;
    });
    p.deliver_to_client(&[lower]);
    assert_eq!(p.c.dupacks, 1, "a pure ACK, lower window");
    let larger = edited(&dup[0], |seq, _, _, _, _| *seq = seq.wrapping_add(100));
    p.deliver_to_client(&[larger]);
    assert_eq!(p.c.dupacks, 1, "a window update");
}

// tests the strict duplicate-ACK rule with SACK (`dupack = "strict"`, RFC 5681 §2 (d): the
// window field unchanged) in and out of recovery. Segment 1 of 10 lost; the ACKs of 2-6 SACK
// one new segment each. The first, with a changed window field, is no duplicate: nothing
// happens (dupacks 0, cwnd 10 SMSS, no PRR accounting outside recovery). The next three, with
// the same field, are duplicates 1-3: recovery. The last changes the field again: no
// duplicate, but its newly SACKed segment is delivered data for PRR all the same (RFC 6937:
// DeliveredData counts the bytes newly SACKed by every ACK): prr_delivered + 1448.
#[test]
fn strict_rule_a_sacking_ack_with_a_changed_window_still_feeds_prr() {
    let mut p = Pair::new(TcpConfig { delack: DelAck::Off, dupack: DupAckRule::Strict, ..TcpConfig::default() }, Some(20 * MSS));
    let burst = p.client_sends();
    let dups = p.deliver_to_server(&burst[1..6]);
    assert_eq!(dups.len(), 5);
    let Transport::Tcp { window: w, .. } = dups[0].transport else { unreachable!() };
    let with = |d: &SimPacket, f: u16| edited(d, |_, _, _, win, _| *win = f);
    p.deliver_to_client(&[with(&dups[0], w - 1)]);
    assert_eq!((p.c.dupacks, p.c.w.cwnd, p.c.prr_delivered, p.c.ca), (0, 10 * MSS, 0, CaState::Open));
    for d in &dups[1..4] {
        p.deliver_to_client(&[with(d, w - 1)]);
    }
    assert_eq!((p.c.dupacks, p.c.ca), (3, CaState::Recovery));
    let before = p.c.prr_delivered;
    p.deliver_to_client(&[with(&dups[4], w - 2)]);
    assert_eq!(p.c.dupacks, 3, "no duplicate");
    assert_eq!(p.c.prr_delivered, before + MSS);
}

// tests RFC 6582 §3.2 step 5 with the "impatient" timer (RFC 6582 §4.1): segments 3, 6 and 9
// of 10 lost (NewReno, no SACK). The first partial ACK (through 5, 100 ms after the fast
// retransmission) restarts the retransmission timer: RTO from then; the second (through 8,
// 100 ms later) leaves it.
#[test]
fn only_the_first_partial_ack_restarts_the_timer() {
    let mut p = Pair::new(reno_cfg(), Some(10 * MSS));
    let burst = p.client_sends();
    let kept: Vec<SimPacket> = [0, 1, 3, 4, 6, 7, 9].iter().map(|&i| burst[i].clone()).collect();
    let acks = p.deliver_to_server(&kept);
    let mut retx = p.deliver_to_client(&acks);
    assert_eq!(p.c.ca, CaState::Recovery);
    assert_eq!(retx.iter().map(seg_seq).collect::<Vec<_>>(), vec![seg_seq(&burst[2])]);
    p.now += Dur::from_millis(100);
    let partial = p.deliver_to_server(&retx);
    retx = p.deliver_to_client(&partial);
    assert_eq!(p.c.snd_una, seg_seq(&burst[5]) as u64 - 1_000, "a partial ACK, through 5");
    let t1 = p.now + p.c.rtt.rto();
    assert_eq!(p.c.rto_at, t1, "the first partial ACK restarts the timer");
    assert_eq!(retx.iter().map(seg_seq).collect::<Vec<_>>(), vec![seg_seq(&burst[5])]);
    p.now += Dur::from_millis(100);
    let partial = p.deliver_to_server(&retx);
    p.deliver_to_client(&partial);
    assert_eq!(p.c.snd_una, seg_seq(&burst[8]) as u64 - 1_000, "a partial ACK, through 8");
    assert_eq!(p.c.rto_at, t1, "the second leaves it");
}

// tests `acked_whole_segments` (ns-3 runs the recovery step for an ACK of at least one whole
// segment): segments 0 and 4 of 10 lost, SACK, PRR. The retransmitted 0 brings the partial ACK
// through 3: DeliveredData = 4 segments acknowledged − 3 SACKed before = 1448, one whole
// segment, so the PRR step runs: prr_delivered + 1448 (as without the switch).
#[test]
fn ns3_whole_segment_partial_ack_runs_prr() {
    for whole in [false, true] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { acked_whole_segments: whole, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(20 * MSS));
        let burst = p.client_sends();
        let kept: Vec<SimPacket> = [1, 2, 3, 5, 6, 7, 8, 9].iter().map(|&i| burst[i].clone()).collect();
        let acks = p.deliver_to_server(&kept);
        let out = p.deliver_to_client(&acks);
        assert_eq!(p.c.ca, CaState::Recovery);
        let retx: Vec<SimPacket> = out.into_iter().filter(|s| seg_seq(s) == seg_seq(&burst[0])).collect();
        assert_eq!(retx.len(), 1);
        let before = p.c.prr_delivered;
        let partial = p.deliver_to_server(&retx);
        p.deliver_to_client(&partial);
        assert_eq!((p.c.ca, p.c.snd_una), (CaState::Recovery, 4 * MSS + 1), "whole {whole}");
        assert_eq!(p.c.prr_delivered, before + MSS, "whole {whole}");
    }
}

// tests `acked_whole_segments` in CWR (ns-3 runs the PRR step there too for an ACK of a whole
// segment): segment 0 CE; its echo starts CWR; the ACK of segment 1 (below the recovery point)
// delivers one whole segment: prr_delivered + 1448 (as without the switch).
#[test]
fn ns3_whole_segment_ack_in_cwr_runs_prr() {
    for whole in [false, true] {
        let cfg = TcpConfig { ecn: true, ecn_cut: EcnCut::Prr, delack: DelAck::Off, compat: Ns3Compat { acked_whole_segments: whole, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        let mut burst = p.client_sends();
        burst[0].tos.set_ecn(Ecn::Ce);
        let a0 = p.deliver_to_server(&burst[..1]);
        p.deliver_to_client(&a0);
        assert_eq!(p.c.ca, CaState::Cwr, "whole {whole}");
        let before = p.c.prr_delivered;
        let a1 = p.deliver_to_server(&burst[1..2]);
        p.deliver_to_client(&a1);
        assert_eq!(p.c.ca, CaState::Cwr);
        assert_eq!(p.c.prr_delivered, before + MSS, "whole {whole}");
    }
}

// tests RFC 7323 §3.2: timestamp options count only if both SYNs carried them. Without
// timestamps, the ACK of a retransmitted segment gives no RTT sample (Karn, RFC 6298 §3) even
// if it carries a TS option echoing a clock value 30 ms old.
#[test]
fn a_timestamp_without_negotiation_gives_no_sample() {
    let mut p = Pair::new(TcpConfig { timestamps: false, ..reno_cfg() }, Some(MSS));
    assert!(!p.c.ts_ok);
    let first = p.client_sends();
    let t = p.c.rto_at;
    p.now = t;
    let mut retx = Vec::new();
    p.c.on_wakeup(t, &mut retx);
    assert_eq!(retx.len(), 1, "the timeout retransmits");
    p.now += Dur::from_millis(10);
    let ack = p.deliver_to_server(&retx);
    let stamped = edited(&ack[0], |_, _, _, _, o| o.ts = Some((1, super::endpoint::ts_clock(Time(p.now.0 - 30_000_000)))));
    p.now += Dur::from_millis(10);
    let n = p.c.counters.rtt_n;
    p.deliver_to_client(&[stamped]);
    assert_eq!(p.c.snd_una, p.c.snd_max);
    assert_eq!(p.c.counters.rtt_n, n, "no sample");
    drop(first);
}

// tests ns-3's CWR exit without an echo (`ecn_echo_rfc` off, `exit_ack_grows` off): segment 0
// CE; CWR as in `ns3_cwr_entry_runs_prr_twice` (ssthresh 6516); the ACK of segment 10 (sent
// with CWR, so no ECE) is above the recovery point: CWR ends with cwnd = ssthresh = 6516, and
// the ACK does not grow it (RFC 3168 §6.1.2: the reduction ends at ssthresh).
#[test]
fn ns3_cwr_ends_at_ssthresh_on_an_ack_without_echo() {
    let mut cfg = TcpConfig { ecn: true, ecn_cut: EcnCut::Prr, delack: DelAck::Off, ..TcpConfig::default() };
    cfg.compat.ecn_echo_rfc = false;
    let mut p = Pair::new(cfg, None);
    let mut burst = p.client_sends();
    burst[0].tos.set_ecn(Ecn::Ce);
    let acks = p.deliver_to_server(&burst);
    let out = p.deliver_to_client(&acks);
    assert_eq!((p.c.ca, p.c.w.ssthresh), (CaState::Cwr, 6_516));
    assert!(flags(&out[0]) & F::CWR != 0);
    let a = p.deliver_to_server(&out[..1]);
    assert_eq!(flags(&a[0]) & F::ECE, 0, "the CWR stopped the echo");
    p.deliver_to_client(&a);
    assert_eq!((p.c.ca, p.c.w.cwnd), (CaState::Open, 6_516));
}

// tests `exit_ack_grows` with `acked_whole_segments` (ns-3's ProcessAck after a full ACK:
// IncreaseWindow with the whole segments between the old and new SND.UNA): a first window of
// 10 segments is acknowledged (slow start: cwnd 20), segments 10-19 go, 10 is lost; the
// full ACK (SND.UNA from 1 + 10 MSS to 1 + 20 MSS: 10 whole segments) sets cwnd = ssthresh =
// FlightSize / 2 = 5 MSS and grows it once in congestion avoidance: + ⌊1448² / 7240⌋ = 289.
#[test]
fn ns3_full_ack_grows_by_whole_segments() {
    let cfg = TcpConfig { compat: Ns3Compat { exit_ack_grows: true, acked_whole_segments: true, ..Ns3Compat::RFC }, ..reno_cfg() };
    let mut p = Pair::new(cfg, Some(20 * MSS));
    let first = p.client_sends();
    let acks = p.deliver_to_server(&first);
    let burst = p.deliver_to_client(&acks);
    assert_eq!((burst.len(), p.c.w.cwnd), (10, 20 * MSS));
    let dups = p.deliver_to_server(&burst[1..]);
    p.deliver_to_client(&dups);
    assert_eq!(p.c.ca, CaState::Recovery);
    let full = p.deliver_to_server(&burst[0..1]);
    p.deliver_to_client(&full);
    assert_eq!((p.c.ca, p.c.snd_una), (CaState::Open, 20 * MSS + 1));
    assert_eq!(p.c.w.ssthresh, 5 * MSS);
    assert_eq!(p.c.w.cwnd, 5 * MSS + 289);
}

// tests RFC 3042 §2's bounds on limited transmit (no SACK): (a) with dupthresh 5 and 10
// segments outstanding (cwnd 10), the sender may go at most two segments beyond cwnd: the
// first two duplicates release one new segment each (11, 12 outstanding), the third and fourth
// nothing; (b) the new segment is the application's next data, however short: with 100 bytes
// left after the first window, the first duplicate releases a 100-byte segment; (c) it must
// fit the peer's window: duplicates advertising exactly the 10 outstanding segments release
// nothing, while (d) a window with room for the 100-byte tail but not a full segment releases
// the tail.
#[test]
fn limited_transmit_stays_within_two_segments_the_data_and_the_window() {
    let dup_sends = |cfg: TcpConfig, data: u64, field: Option<u64>, n: usize| -> Vec<Vec<u32>> {
        let mut p = Pair::new(cfg, Some(data));
        let burst = p.client_sends();
        assert_eq!(burst.len(), 10);
        let shift = p.c.snd_shift;
        (1..=n)
            .map(|k| {
                let mut dup = p.deliver_to_server(&burst[k..k + 1]);
                if let Some(bytes) = field {
                    set_window_field(&mut dup[0], bytes.div_ceil(1 << shift) as u16);
                }
                p.deliver_to_client(&dup).iter().map(|s| s.payload).collect()
            })
            .collect()
    };
    let five = TcpConfig { dupthresh: 5, ..reno_cfg() };
    let m = MSS as u32;
    assert_eq!(dup_sends(five, 20 * MSS, None, 4), vec![vec![m], vec![m], vec![], vec![]], "(a)");
    assert_eq!(dup_sends(reno_cfg(), 10 * MSS + 100, None, 1), vec![vec![100]], "(b)");
    assert_eq!(dup_sends(reno_cfg(), 20 * MSS, Some(10 * MSS), 2), vec![Vec::<u32>::new(), vec![]], "(c)");
    assert_eq!(dup_sends(reno_cfg(), 10 * MSS + 100, Some(10 * MSS + 100), 1), vec![vec![100]], "(d)");
}

// tests a loss during CWR (RFC 3168 §6.1.2 with RFC 5681 §3.2, no SACK): segment 0 CE, so its
// ECN-Echo starts CWR; segment 1 is lost; the ACKs of 2 and 3 are the first two duplicates:
// CWR holds, no retransmission; the third (ACK of 4) starts fast recovery and resends 1.
#[test]
fn a_loss_in_cwr_waits_for_the_third_duplicate() {
    let cfg = TcpConfig { ecn: true, ecn_cut: EcnCut::Prr, ..reno_cfg() };
    let mut p = Pair::new(cfg, None);
    let mut burst = p.client_sends();
    burst[0].tos.set_ecn(Ecn::Ce);
    let a0 = p.deliver_to_server(&burst[..1]);
    p.deliver_to_client(&a0);
    assert_eq!(p.c.ca, CaState::Cwr);
    for k in 2..4 {
        let dup = p.deliver_to_server(&burst[k..k + 1]);
        let out = p.deliver_to_client(&dup);
        assert_eq!((p.c.ca, p.c.dupacks), (CaState::Cwr, k as u32 - 1));
        assert!(out.iter().all(|s| seg_seq(s) != seg_seq(&burst[1])), "no retransmission yet");
    }
    let dup = p.deliver_to_server(&burst[4..5]);
    let out = p.deliver_to_client(&dup);
    assert_eq!(p.c.ca, CaState::Recovery);
    assert_eq!(out.iter().filter(|s| seg_seq(s) == seg_seq(&burst[1])).count(), 1);
}

// tests the loss state after a timeout with SACK (RFC 5681 §3.1 slow start from 1 SMSS, every
// outstanding segment taken as lost, SACKed ones skipped), against ns-3's reading of NextSeg
// rule (1.b) (`nextseg = "ns3"`: only lost segments below the highest SACKed one while it lies
// above SND.UNA). Ten segments; only segment 2 arrives (SACKed). The timeout resends 0; its ACK
// (through 0, SACK 2) grows cwnd to 2 with nothing in flight: the default resends 1 and 3;
// ns-3 resends 1 only (3 lies above the SACKed 2, and no new data is left).
#[test]
fn after_a_timeout_lost_segments_above_the_highest_sack_go_unless_ns3() {
    for (ns3, want) in [(false, vec![1u32, 3]), (true, vec![1])] {
        let nextseg = if ns3 { NextSeg::Ns3 } else { NextSeg::Rfc6675 };
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { nextseg, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(10 * MSS));
        let burst = p.client_sends();
        let dup = p.deliver_to_server(&burst[2..3]);
        assert!(p.deliver_to_client(&dup).is_empty(), "no data left to send");
        let t = p.c.rto_at;
        p.now = t;
        let mut retx = Vec::new();
        p.c.on_wakeup(t, &mut retx);
        assert_eq!(retx.iter().map(seg_seq).collect::<Vec<_>>(), vec![seg_seq(&burst[0])]);
        p.now += Dur::from_millis(20);
        let ack = p.deliver_to_server(&retx);
        let out = p.deliver_to_client(&ack);
        assert_eq!((p.c.ca, p.c.w.cwnd), (CaState::Loss, 2 * MSS));
        let segs: Vec<u32> = out.iter().map(|s| (seg_seq(s) - 1_001) / MSS as u32).collect();
        assert_eq!(segs, want, "nextseg ns3 = {ns3}");
    }
}

// tests `exit_ack_grows` after a timeout with new data sent in the loss state (ns-3's
// ProcessAck on leaving CA_LOSS: IncreaseWindow with (ack − m_recover) / segment size whole
// segments). S0 and S1 are lost; the timeout resends S0 (ssthresh set to 3 MSS here, as after a
// timeout with six segments in flight); S0's ACK grows cwnd to 2 MSS in slow start and releases
// S1 again and new data S2 (recover = S2's start). S1's ACK is lost; S2's covers the one
// segment beyond recover: ns-3 grows cwnd by it, 2 MSS + 1 MSS = 3 MSS = ssthresh, and no
// more. RFC 5681 (off) grows by what the ACK covers, two segments: + min(2 MSS, SMSS) to 3 MSS,
// then the second segment's avoidance step + ⌊1448² / 4344⌋ = 482.
#[test]
fn ns3_loss_exit_counts_the_segments_beyond_the_recovery_point() {
    for (ns3, expect) in [(false, 3 * MSS + 482), (true, 3 * MSS)] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { exit_ack_grows: ns3, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(2 * MSS));
        let burst = p.client_sends(); // both lost
        let mut out = Vec::new();
        p.now = p.c.poll_at().unwrap();
        p.c.on_wakeup(p.now, &mut out);
        assert_eq!(out.iter().map(seg_seq).collect::<Vec<_>>(), [seg_seq(&burst[0])]);
        assert_eq!((p.c.ca, p.c.w.cwnd, p.c.recover), (CaState::Loss, MSS, 1 + 2 * MSS));
        p.c.w.ssthresh = 3 * MSS;
        p.c.app_send(Some(MSS), 0);
        let acks = p.deliver_to_server(&out);
        let out = p.deliver_to_client(&acks);
        assert_eq!(p.c.w.cwnd, 2 * MSS, "slow start in the loss state");
        let seqs: Vec<u32> = out.iter().map(seg_seq).collect();
        assert_eq!(seqs, [seg_seq(&burst[1]), 1_001 + 2 * MSS as u32], "S1 again and new S2");
        let acks = p.deliver_to_server(&out);
        assert_eq!(acks.len(), 2);
        p.deliver_to_client(&acks[1..]);
        assert_eq!((p.c.ca, p.c.snd_una), (CaState::Open, 1 + 3 * MSS));
        assert_eq!(p.c.w.cwnd, expect, "ns3 = {ns3}");
    }
}

// tests RFC 5681 §3.1 (equation 4 and its note) on a timeout in fast recovery: the head went
// out once by fast retransmit, never by the timer, so the timeout sets ssthresh again from the
// flight; only a repeated timeout of the same segment holds it (see
// rto_sets_loss_window_and_doubles_timer). Ten segments, S0 lost; S1-S9 are SACKed and S0 is
// fast-retransmitted, and lost again. At the timeout pipe is S0's retransmission alone, 1 MSS:
// ssthresh = max(1 MSS / 2, 2 SMSS) = 2 MSS, below the recovery's own.
#[test]
fn a_timeout_in_recovery_sets_ssthresh_again() {
    let (mut p, burst, sent) = tail_losses(TcpConfig::default(), &[0]);
    assert_eq!(p.c.ca, CaState::Recovery);
    assert_eq!(sent.iter().map(seg_seq).collect::<Vec<_>>(), [seg_seq(&burst[0])], "the fast retransmission");
    let in_recovery = p.c.w.ssthresh;
    assert!(in_recovery > 2 * MSS, "recovery's ssthresh {in_recovery}");
    assert_eq!(p.c.pipe(), MSS);
    let mut out = Vec::new();
    p.now = p.c.poll_at().unwrap();
    p.c.on_wakeup(p.now, &mut out);
    assert_eq!((p.c.ca, p.c.counters.rto_count), (CaState::Loss, 1));
    assert_eq!(p.c.w.ssthresh, 2 * MSS);
}

// tests ns-3's timeout with only the FIN outstanding (`fin_timeout_rfc = false`, ns-3's
// ReTxTimeout with an empty send buffer) against a timeout with data and the FIN outstanding:
// the second is an ordinary timeout (RFC 6298 §5.4-5.6, RFC 5681 §3.1), in ns-3 as everywhere:
// the head's data again, cwnd = 1 SMSS, ssthresh = max(FlightSize / 2, 2 SMSS) = 2 MSS (two
// segments and the FIN in flight), the loss state.
#[test]
fn a_timeout_with_data_and_the_fin_outstanding_is_an_ordinary_timeout() {
    let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { fin_timeout_rfc: false, ..Ns3Compat::RFC }, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(2 * MSS));
    let burst = p.client_sends();
    let mut fin = Vec::new();
    p.c.app_close(p.now, &mut fin);
    assert_eq!((fin.len(), flags(&fin[0]) & F::FIN), (1, F::FIN));
    assert_eq!(burst.len(), 2); // all three lost
    let mut out = Vec::new();
    p.now = p.c.poll_at().unwrap();
    p.c.on_wakeup(p.now, &mut out);
    assert_eq!(out.iter().map(|s| (seg_seq(s), s.payload as u64)).collect::<Vec<_>>(), [(seg_seq(&burst[0]), MSS)]);
    assert_eq!((p.c.ca, p.c.w.cwnd, p.c.w.ssthresh), (CaState::Loss, MSS, 2 * MSS));
}

// tests the timeout's retransmission against a closed peer window: the earliest
// unacknowledged segment goes again (RFC 6298 §5.4) whatever the windows say (Linux's
// `tcp_retransmit_timer` retransmits the head into a zero window too: the retransmission is
// then the window probe). S0 arrives, its ACK closes the window (field 0), S1 is lost. With
// `rwnd_bounds_retx` (ns-3's AvailableWindow, min(cwnd, rwnd) − pipe = 0) the sending loop
// sends nothing, and the timeout sends S1 itself; without it the loop sends S1 (in the loss
// state the peer's window does not hold a retransmission back). Either way S1 exactly once.
#[test]
fn a_timeout_resends_the_head_into_a_closed_window() {
    for bounds in [false, true] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { rwnd_bounds_retx: bounds, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(2 * MSS));
        let burst = p.client_sends();
        let mut acks = p.deliver_to_server(&burst[0..1]);
        set_window_field(&mut acks[0], 0);
        assert!(p.deliver_to_client(&acks).is_empty());
        assert_eq!((p.c.snd_wnd, p.c.snd_una), (0, 1 + MSS));
        let mut out = Vec::new();
        p.now = p.c.poll_at().unwrap();
        p.c.on_wakeup(p.now, &mut out);
        assert_eq!(p.c.counters.rto_count, 1);
        let got: Vec<(u32, u64)> = out.iter().map(|s| (seg_seq(s), s.payload as u64)).collect();
        assert_eq!(got, [(seg_seq(&burst[1]), MSS)], "rwnd_bounds_retx = {bounds}");
    }
}

// tests that a repeated window below one segment is no window update under the ns-3 and Linux
// rules (ns-3's UpdateWindowSize takes a window on the same ACK and sequence number only if it
// is larger; Linux's `tcp_may_update_window` only if it is larger or zero), so the persist timer
// armed for it (RFC 9293 §3.8.6.1: data waiting, nothing outstanding, a window too small for a
// segment) keeps its deadline through a duplicate of the ACK that set it: a stream of such
// duplicates cannot put the probe off. Ten segments are acknowledged with a window field of 1
// (2^shift bytes, below 1448); one second later the last ACK comes again.
#[test]
fn a_repeated_small_window_leaves_the_persist_timer() {
    for rule in [WndUpdateRule::Ns3, WndUpdateRule::Linux] {
        let mut p = Pair::new(TcpConfig { wnd_update: rule, ..reno_cfg() }, Some(20 * MSS));
        let burst = p.client_sends();
        let acks: Vec<_> = p.deliver_to_server(&burst).iter().map(|a| edited(a, |_, _, _, w, _| *w = 1)).collect();
        assert!(p.deliver_to_client(&acks).is_empty(), "{rule:?}: no room for a segment");
        let small = 1u64 << p.c.snd_shift;
        assert!(small < MSS);
        assert_eq!((p.c.snd_una, p.c.snd_wnd), (p.c.snd_max, small));
        let deadline = p.now + super::endpoint::PERSIST_TIMEOUT;
        assert_eq!(p.c.persist_at, deadline, "{rule:?}: armed by the last ACK");
        p.now += Dur::from_secs(1);
        assert!(p.deliver_to_client(&acks[9..]).is_empty());
        assert_eq!(p.c.persist_at, deadline, "{rule:?}: the same window again leaves the timer");
    }
}

// tests `exit_ack_grows` with and without `acked_whole_segments` on a full ACK of less than a
// segment (ns-3's ProcessAck after a full ACK: IncreaseWindow with the whole segments acked,
// and NewReno's CongestionAvoidance does nothing for 0 segments). No SACK; nine full segments
// and a 100-byte tail S9; S0 and S9 are lost. S1-S8 bring eight duplicates: recovery,
// ssthresh = FlightSize / 2 = (9·1448 + 100) / 2 = 6566, S0 again; its ACK is partial (up to
// S9), S9 goes again, and its ACK, the full one, acknowledges 100 bytes: cwnd = ssthresh =
// 6566, then with whole segments 0 of them (no growth), else the 100 bytes removed: one
// avoidance step, + ⌊1448² / 6566⌋ = 319.
#[test]
fn ns3_full_ack_of_less_than_a_segment_grows_nothing_by_whole_segments() {
    for (whole, expect) in [(true, 6_566), (false, 6_566 + 319)] {
        let cfg = TcpConfig { compat: Ns3Compat { exit_ack_grows: true, acked_whole_segments: whole, ..Ns3Compat::RFC }, ..reno_cfg() };
        let mut p = Pair::new(cfg, Some(9 * MSS + 100));
        let burst = p.client_sends();
        assert_eq!(burst.iter().map(|s| s.payload as u64).collect::<Vec<_>>(), [[MSS; 9].as_slice(), &[100]].concat());
        let dups = p.deliver_to_server(&burst[1..9]);
        let out = p.deliver_to_client(&dups);
        assert_eq!(out.iter().map(seg_seq).collect::<Vec<_>>(), [seg_seq(&burst[0])]);
        assert_eq!((p.c.ca, p.c.w.ssthresh), (CaState::Recovery, 6_566));
        let partial = p.deliver_to_server(&out);
        let out = p.deliver_to_client(&partial);
        assert_eq!(out.iter().map(|s| (seg_seq(s), s.payload)).collect::<Vec<_>>(), [(seg_seq(&burst[9]), 100)]);
        let full = p.deliver_to_server(&out);
        p.deliver_to_client(&full);
        assert_eq!((p.c.ca, p.c.snd_una), (CaState::Open, 1 + 9 * MSS + 100));
        assert_eq!(p.c.w.cwnd, expect, "acked_whole_segments = {whole}");
    }
}

// tests `partial_ack_nextseg` against the peer's window (ns-3's DoRetransmit, as in
// `ns3_partial_ack_sends_next_segment_outside_cwnd`): the new segment it sends is cut to the
// room the window leaves, SND.UNA + SND.WND − SND.NXT; with no room the head goes again
// instead, marked lost first. The partial ACK (SND.UNA = S7) carries a window of the outstanding bytes + 724
// (new data, 724 bytes), then of exactly the outstanding bytes (S7 again). Window fields count
// the shift, 2 for the 128 KiB receive buffer.
#[test]
fn ns3_partial_ack_nextseg_stays_inside_the_peer_window() {
    for extra in [MSS / 2, 0] {
        let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { partial_ack_nextseg: true, ..Ns3Compat::RFC }, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, None);
        let burst = p.client_sends();
        let mut delivered: Vec<SimPacket> = burst[1..7].to_vec();
        delivered.push(burst[8].clone());
        let dups = p.deliver_to_server(&delivered);
        let out = p.deliver_to_client(&dups);
        let retx = out.iter().find(|s| seg_seq(s) == seg_seq(&burst[0])).expect("fast retransmit").clone();
        let high = p.c.snd_max;
        p.c.prr_out = 1 << 40; // nothing through PRR from here
        let mut partial = p.deliver_to_server(&[retx]);
        let outstanding = high - (1 + 7 * MSS);
        // Both multiples of 4 = 2^shift, so the field carries them exactly.
        assert_eq!(p.c.snd_shift, 2);
        set_window_field(&mut partial[0], ((outstanding + extra) >> 2) as u16);
        let out = p.deliver_to_client(&partial);
        assert_eq!((p.c.ca, p.c.snd_wnd), (CaState::Recovery, outstanding + extra));
        let got: Vec<(u32, u64)> = out.iter().map(|s| (seg_seq(s), s.payload as u64)).collect();
        let want = if extra > 0 { (1_000 + high as u32, extra) } else { (seg_seq(&burst[7]), MSS) };
        assert_eq!(got, [want], "window = outstanding + {extra}");
        // RFC 6675 pipe: S8 SACKed; S7 once, lost and retransmitted (ns-3 marks the head lost
        // before re-sending it) or neither; every other segment once, the new one included.
        assert_eq!(p.c.pipe(), outstanding - MSS + extra);
    }
}

// tests `partial_ack_nextseg` at the end of the application's data: the new segment it sends
// carries what the application has written and no more (ns-3's DoRetransmit sends through
// SendDataPacket, which takes at most what the send buffer holds). Ten segments, S0 and S7
// lost; after the duplicates the application writes 500 bytes more; the partial ACK (up to
// S7, not yet lost) sends them: one 500-byte segment at SND.NXT, which then moves 500 bytes.
#[test]
fn ns3_partial_ack_nextseg_sends_the_last_short_write() {
    let cfg = TcpConfig { delack: DelAck::Off, compat: Ns3Compat { partial_ack_nextseg: true, ..Ns3Compat::RFC }, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(10 * MSS));
    let burst = p.client_sends();
    let mut delivered: Vec<SimPacket> = burst[1..7].to_vec();
    delivered.push(burst[8].clone());
    let dups = p.deliver_to_server(&delivered);
    let out = p.deliver_to_client(&dups);
    assert_eq!(out.iter().map(seg_seq).collect::<Vec<_>>(), [seg_seq(&burst[0])], "the fast retransmission alone");
    let high = p.c.snd_max;
    assert_eq!(high, 1 + 10 * MSS);
    p.c.app_send(Some(500), 0);
    p.c.prr_out = 1 << 40; // nothing through PRR from here
    let partial = p.deliver_to_server(&out);
    let out = p.deliver_to_client(&partial);
    assert_eq!(p.c.ca, CaState::Recovery);
    let got: Vec<(u32, u64)> = out.iter().map(|s| (seg_seq(s), s.payload as u64)).collect();
    assert_eq!(got, [(1_000 + high as u32, 500)]);
    assert_eq!(p.c.snd_max, high + 500, "SND.NXT past the written data only");
    p.c.sb.check();
}

// tests the endpoint's read-outs for the engine and the monitor: the configuration it was
// built with (the run summary's options); the pacing rate (the pacing trace): none for
// NewReno under `pacing = "cc"`, and under `pacing = "linux"` Linux's rate with the handshake's
// 20-ms SRTT and IW 10 segments in slow start (cwnd < ssthresh/2: 200 %):
// 2·10·1448 B·8 / 20 ms = 11,584,000 bit/s; whether all data is acknowledged (1000 B
// written: not before the ACK of its segment, and then so).
#[test]
fn read_outs_config_pacing_rate_and_all_acked() {
    let cfg = TcpConfig { cc: CcKind::Cubic, sack: false, ..TcpConfig::default() };
    let p = Pair::new(cfg, Some(1000));
    assert_eq!((p.c.config().cc, p.c.config().sack), (CcKind::Cubic, false));
    assert_eq!(p.c.pacing_bps(), None);
    let mut p = Pair::new(TcpConfig { pacing: super::config::Pacing::Linux, delack: DelAck::Off, ..TcpConfig::default() }, Some(1000));
    assert_eq!(p.c.rtt.srtt, Some(Dur::from_millis(20)));
    assert_eq!(p.c.pacing_bps(), Some(11_584_000));
    assert!(!p.c.all_acked());
    let seg = p.client_sends();
    assert_eq!(seg.len(), 1);
    assert!(!p.c.all_acked(), "sent, not acknowledged");
    let acks = p.deliver_to_server(&seg);
    p.deliver_to_client(&acks);
    assert!(p.c.all_acked());
}

// tests that an endpoint sends no data before its handshake is done (RFC 9293 §3.10.2: data
// is queued until ESTABLISHED): a client in SYN-SENT whose application writes and closes sends
// nothing; nor does a server in SYN-RECEIVED, which knows the client's window from its SYN,
// before the ACK of its SYN-ACK; that ACK then releases the data.
#[test]
fn no_data_or_fin_before_the_handshake() {
    let ca = SockAddr { addr: 1, port: 1000 };
    let sa = SockAddr { addr: 2, port: 80 };
    let mut c = Endpoint::client(std::sync::Arc::new(TcpConfig::default()), ca, sa, 1_000, 0);
    let mut out = Vec::new();
    c.connect(Time::ZERO, &mut out);
    assert_eq!(out.len(), 1, "the SYN");
    out.clear();
    assert!(!c.is_synchronized());
    c.app_send(Some(0), 0);
    c.app_write_more(5000, Time(1_000), &mut out);
    c.app_close(Time(2_000), &mut out);
    assert!(out.is_empty(), "{} segments before the handshake", out.len());
    assert_eq!(c.state, ConnState::SynSent);
    // The server's side.
    let (mut c, mut s) = (Endpoint::client(std::sync::Arc::new(TcpConfig::default()), ca, sa, 1_000, 0), Endpoint::server(std::sync::Arc::new(TcpConfig::default()), sa, ca, 5_000, 0));
    c.connect(Time::ZERO, &mut out);
    let syn = out.pop().unwrap();
    s.on_segment(&syn, Time(10_000_000), &mut out);
    let synack = out.pop().unwrap();
    assert_eq!(s.state, ConnState::SynRcvd);
    s.app_send(Some(0), 0);
    s.app_write_more(5000, Time(11_000_000), &mut out);
    assert!(out.is_empty(), "{} segments from SYN-RECEIVED", out.len());
    c.on_segment(&synack, Time(20_000_000), &mut out);
    let ack = out.pop().unwrap();
    s.on_segment(&ack, Time(30_000_000), &mut out);
    assert_eq!(s.state, ConnState::Established);
    assert_eq!(out.iter().map(|p| p.payload as u64).sum::<u64>(), 5000, "the data once ESTABLISHED");
}
