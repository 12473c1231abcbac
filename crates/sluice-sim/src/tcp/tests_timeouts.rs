//! Timeouts as loss drives them, scripted: the SYN timer and its backoff (RFC 6298 §2.1 and
//! §5.5, ns-3's connection timeout) and Karn's rule on the ACK of a retransmitted data segment
//! (RFC 6298 §3 and §5.7). Each test is a hand-checked trace between two endpoints connected
//! directly; the test decides what is lost and when time advances.

use super::*;
use crate::packet::SimPacket;
use sluice_core::packet::tcp_flags as F;
use sluice_core::{Dur, Time};

const MSS: u64 = 1448;

use super::tests::endpoints;

/// Every SYN the client sends while none is answered, with its send time, until it gives up.
fn unanswered_syns(cfg: TcpConfig) -> (Vec<Time>, Endpoint) {
    let (mut c, _) = endpoints(cfg);
    let mut out = Vec::new();
    let mut times = Vec::new();
    c.connect(Time::ZERO, &mut out);
    times.push(Time::ZERO);
    while let Some(t) = c.poll_at() {
        out.clear();
        c.on_wakeup(t, &mut out);
        if c.state == ConnState::Failed {
            break;
        }
        assert!(out.iter().all(|p: &SimPacket| p.tcp_flags() & F::SYN != 0), "only SYNs while unanswered");
        assert_eq!(out.len(), 1);
        times.push(t);
        assert!(times.len() < 50, "the client must give up");
    }
    (times, c)
}

// tests RFC 6298 §2.1 (initial RTO 1 s) and §5.5 (double it at each expiry) on the SYN, and the
// give-up after `syn_retries` retransmissions (default 5, as Linux's tcp_syn_retries before
// 6): SYNs at 0, 1, 3, 7, 15 and 31 s, failure when the sixth times out at 31 + 32 = 63 s.
#[test]
fn syn_timer_starts_at_one_second_and_doubles() {
    let (times, c) = unanswered_syns(TcpConfig::default());
    let secs: Vec<u64> = times.iter().map(|t| t.0 / 1_000_000_000).collect();
    assert_eq!(secs, vec![0, 1, 3, 7, 15, 31]);
    assert_eq!(c.state, ConnState::Failed);
    assert_eq!(c.counters.syn_sent, 6);
    assert_eq!(c.counters.rto_count, 0, "SYN timeouts are not data RTOs");
}

// tests `syn_rto = "ns3"`: ns-3's ConnTimeout of 3 s, doubled per retry (TcpSocketBase
// ReTxTimeout in SYN_SENT): SYNs at 0, 3, 9, 21, 45 and 93 s.
#[test]
fn ns3_syn_timer_starts_at_three_seconds_and_doubles() {
    let cfg = TcpConfig { syn_rto: SynRto::Ns3, ..TcpConfig::default() };
    let (times, c) = unanswered_syns(cfg);
    let secs: Vec<u64> = times.iter().map(|t| t.0 / 1_000_000_000).collect();
    assert_eq!(secs, vec![0, 3, 9, 21, 45, 93]);
    assert_eq!(c.state, ConnState::Failed);
}

/// A connection over a direct 10 ms each-way path, handshake done at 20 ms (RTT sample 20 ms).
fn connected(cfg: TcpConfig) -> (Endpoint, Endpoint, Time) {
    let (mut c, mut s) = endpoints(cfg);
    let mut out = Vec::new();
    c.connect(Time::ZERO, &mut out);
    let syn = out.pop().unwrap();
    s.on_segment(&syn, Time::ZERO + Dur::from_millis(10), &mut out);
    let synack = out.pop().unwrap();
    c.on_segment(&synack, Time::ZERO + Dur::from_millis(20), &mut out);
    let ack = out.remove(0);
    s.on_segment(&ack, Time::ZERO + Dur::from_millis(30), &mut out);
    (c, s, Time::ZERO + Dur::from_millis(30))
}

// tests Karn's rule (RFC 6298 §3, and §5.7: the backed-off RTO stays until a sample from a
// segment not retransmitted). Without timestamps: the only segment is lost, retransmitted at
// the timeout (RTO 1 s: the handshake's 20 ms sample gives 20 + 4·10 ms, below the 1 s floor),
// and its ACK arrives 20 ms later — ambiguous, so SRTT stays the handshake's 20 ms and the RTO
// stays backed off at 2 s. A new segment, sent once and acknowledged after 20 ms, is timed:
// SRTT = 7/8·20 + 1/8·20 = 20 ms, RTTVAR = 3/4·10 + 1/4·0 = 7.5 ms, and the RTO, its backoff
// gone, falls back to the 1 s floor (20 + 4·7.5 = 50 ms below it).
#[test]
fn karn_no_sample_from_the_ack_of_a_retransmission() {
    let cfg = TcpConfig { timestamps: false, delack: DelAck::Off, ..TcpConfig::default() };
    let (mut c, mut s, mut now) = connected(cfg);
    assert_eq!((c.rtt.srtt, c.rtt.rttvar), (Some(Dur::from_millis(20)), Dur::from_millis(10)));
    c.app_send(Some(MSS), 0);
    let mut out = Vec::new();
    c.send_pending(now, &mut out);
    assert_eq!(out.len(), 1);
    out.clear(); // lost
    now = c.poll_at().unwrap();
    assert_eq!(now, Time::ZERO + Dur::from_millis(30) + Dur::from_secs(1));
    c.on_wakeup(now, &mut out);
    let retx = out.pop().expect("the retransmission");
    assert_eq!(c.rtt.rto(), Dur::from_secs(2), "backed off");
    let mut acks = Vec::new();
    s.on_segment(&retx, now + Dur::from_millis(10), &mut acks);
    now += Dur::from_millis(20);
    for a in acks.drain(..) {
        c.on_segment(&a, now, &mut out);
    }
    assert_eq!(c.snd_una, 1 + MSS, "the retransmission was acknowledged");
    assert_eq!(c.rtt.srtt, Some(Dur::from_millis(20)), "no sample from a retransmitted segment's ACK");
    assert_eq!(c.rtt.rto(), Dur::from_secs(2), "the backoff stays until a valid sample");
    // A new segment, sent once.
    out.clear();
    c.app_send(Some(MSS), 0);
    c.send_pending(now, &mut out);
    let fresh = out.pop().expect("new data");
    s.on_segment(&fresh, now + Dur::from_millis(10), &mut acks);
    now += Dur::from_millis(20);
    for a in acks.drain(..) {
        c.on_segment(&a, now, &mut out);
    }
    assert_eq!((c.rtt.srtt, c.rtt.rttvar), (Some(Dur::from_millis(20)), Dur::from_micros(7_500)));
    assert_eq!(c.rtt.rto(), Dur::from_secs(1), "a valid sample ends the backoff");
}

// tests `fin_timeout_rfc`: with every data byte acknowledged and the FIN lost, the
// timeout is by default one like any other (Loss, RTO doubled: Linux tcp_enter_loss, RFC 6298
// §5.5); ns-3 sends the FIN again with the same RTO and no congestion response.
#[test]
fn a_lost_fin_times_out_as_loss_or_as_ns3_resends_it() {
    for (enters_loss, want_rto, want_episodes) in [(true, Dur::from_secs(2), 1), (false, Dur::from_secs(1), 0)] {
        let cfg = TcpConfig { compat: Ns3Compat { fin_timeout_rfc: enters_loss, ..Ns3Compat::RFC }, delack: DelAck::Off, ..TcpConfig::default() };
        let (mut c, mut s, mut now) = connected(cfg);
        c.app_send(Some(MSS), 0);
        let mut out = Vec::new();
        c.send_pending(now, &mut out);
        let data = out.pop().expect("the data");
        // The application closes once its data has left: a bare FIN, lost.
        c.app_close(now, &mut out);
        let fin = out.pop().expect("the FIN");
        assert_eq!((fin.tcp_flags() & F::FIN, fin.payload), (F::FIN, 0));
        let mut acks = Vec::new();
        s.on_segment(&data, now + Dur::from_millis(10), &mut acks);
        now += Dur::from_millis(20);
        out.clear();
        for a in acks.drain(..) {
            c.on_segment(&a, now, &mut out);
        }
        assert_eq!(c.snd_una, 1 + MSS, "the data is acknowledged, the FIN is lost");
        let (cwnd, ssthresh) = (c.w.cwnd, c.w.ssthresh);
        now = c.poll_at().unwrap();
        c.on_wakeup(now, &mut out);
        let again = out.pop().expect("the FIN again");
        assert_eq!((again.tcp_flags() & F::FIN, again.payload), (F::FIN, 0));
        assert_eq!(c.counters.data_pkts_sent, 1, "bare FINs carry no data");
        assert_eq!(c.poll_at(), Some(now + want_rto), "enters_loss {enters_loss}");
        assert_eq!(c.counters.loss_episodes, want_episodes);
        assert_eq!(c.counters.rto_count, 1);
        if !enters_loss {
            assert_eq!((c.w.cwnd, c.w.ssthresh), (cwnd, ssthresh), "no congestion response");
        }
    }
}

// tests RFC 6298 §5.7 at the endpoint: after a retransmitted SYN, the RTO once data transfer
// starts is at least 3 s (`syn_rto = "rfc6298"`). The first SYN is lost; the second (1 s
// later under RFC 6298, 3 s under ns-3's SYN timer) is answered over a direct 10 ms each-way
// path. The SYN-ACK echoes the second SYN's timestamp: a 20-ms sample, RTO 20 + 4·10 ms below
// the 1-s floor: 1 s, raised to 3 s under RFC 6298; ns-3's SYN timer (`syn_rto = "ns3"`) has
// no such rule, and the RTO stays 1 s.
#[test]
fn rto_at_least_three_seconds_after_a_retransmitted_syn_unless_ns3() {
    for (syn_rto, retry_at, want) in [(SynRto::Rfc6298, 1, 3), (SynRto::Ns3, 3, 1)] {
        let (mut c, mut s) = endpoints(TcpConfig { syn_rto, ..TcpConfig::default() });
        let mut out = Vec::new();
        c.connect(Time::ZERO, &mut out);
        out.clear(); // lost
        let now = c.poll_at().unwrap();
        assert_eq!(now, Time(retry_at * 1_000_000_000));
        c.on_wakeup(now, &mut out);
        let syn = out.pop().unwrap();
        s.on_segment(&syn, now + Dur::from_millis(10), &mut out);
        let synack = out.pop().unwrap();
        c.on_segment(&synack, now + Dur::from_millis(20), &mut out);
        assert_eq!(c.state, ConnState::Established);
        assert_eq!(c.rtt.srtt, Some(Dur::from_millis(20)), "{syn_rto:?}");
        assert_eq!(c.rtt.rto(), Dur::from_secs(want), "{syn_rto:?}");
    }
}
