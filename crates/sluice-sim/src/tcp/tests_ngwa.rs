//! NGWA's endpoint half (`ngwa.rs`), segment by segment: the stored and smoothed value, when
//! smoothing runs, the floor, shrinking, and the MSS both ends lower. Windows are read without
//! window scaling, so a window field is the window in bytes.

use super::tests::Pair;
use super::*;
use crate::packet::{SimPacket, Transport};
use sluice_core::packet::OptLen;
use sluice_core::Dur;

/// `p` as a router would leave it: option 33 carrying `v` (8 bytes).
fn stamped(p: &SimPacket, v: u32) -> SimPacket {
    let mut p = p.clone();
    if let Transport::Tcp { bits, .. } = &mut p.transport {
        bits.set_opt33_len(Some(OptLen::Eight));
    }
    p.opt33 = v;
    p
}

fn window(p: &SimPacket) -> u16 {
    match p.transport {
        Transport::Tcp { window, .. } => window,
        Transport::Udp => unreachable!(),
    }
}

fn cfg(ngwa: NgwaTcp) -> TcpConfig {
    TcpConfig { window_scaling: false, delack: DelAck::Off, ngwa, ..TcpConfig::default() }
}

fn on() -> NgwaTcp {
    NgwaTcp { enabled: true, ..NgwaTcp::default() }
}

fn smoothed(at: NgwaSmoothAt) -> NgwaTcp {
    NgwaTcp { smoothing: true, smooth_at: at, ..on() }
}

// tests NGWA eqn. 4 with α = 0.3, one ACK per segment: W̄ starts at the first value (20,000),
// then 0.7·20,000 + 0.3·12,250 = 14,000 + 3,675 = 17,675, which the ACK advertises (the free
// buffer, 131,072 B, and W_max, 65,535 B, are larger). Both smoothing points agree here.
#[test]
fn smoothing_twenty_thousand_then_12250_gives_17675() {
    for at in [NgwaSmoothAt::Ack, NgwaSmoothAt::Arrival] {
        let mut p = Pair::new(cfg(smoothed(at)), None);
        let burst = p.client_sends();
        let a0 = p.deliver_to_server(&[stamped(&burst[0], 20_000)]);
        assert_eq!(window(&a0[0]), 20_000);
        let a1 = p.deliver_to_server(&[stamped(&burst[1], 12_250)]);
        assert_eq!(window(&a1[0]), 17_675, "{at:?}");
        assert_eq!(p.s.ngwa_values(), Some((12_250, 17_675.0)));
    }
}

// tests `smooth_at` with two stamped segments per delayed ACK (delack count 2), values 20,000
// and 12,250, then 30,000 and 10,000:
//   arrival: W̄ = 20,000 → 0.7·20,000 + 0.3·12,250 = 17,675 (ACK 1)
//            → 0.7·17,675 + 0.3·30,000 = 21,372.5 → 0.7·21,372.5 + 0.3·10,000 = 17,960.75 (ACK 2)
//   ack:     W̄ = 20,000, ACK 1 on the last value 12,250: 17,675;
//            ACK 2 on the last value 10,000: 0.7·17,675 + 0.3·10,000 = 15,372.5
// The advertised window is W̄ rounded down.
#[test]
fn smoothing_at_ack_and_at_arrival_differ_under_delayed_acks() {
    for (at, second) in [(NgwaSmoothAt::Arrival, 17_960), (NgwaSmoothAt::Ack, 15_372)] {
        let c = TcpConfig { delack: DelAck::On { count: 2, timeout: Dur::from_millis(200) }, ..cfg(smoothed(at)) };
        let mut p = Pair::new(c, None);
        let burst = p.client_sends();
        assert!(p.deliver_to_server(&[stamped(&burst[0], 20_000)]).is_empty(), "the first segment waits for a second");
        let a1 = p.deliver_to_server(&[stamped(&burst[1], 12_250)]);
        assert_eq!(window(&a1[0]), 17_675, "{at:?}");
        assert!(p.deliver_to_server(&[stamped(&burst[2], 30_000)]).is_empty());
        let a2 = p.deliver_to_server(&[stamped(&burst[3], 10_000)]);
        assert_eq!(window(&a2[0]), second, "{at:?}");
    }
}

// tests NGWA eqn. 2 without smoothing: the last value is advertised as it is, up and down
// (allow_shrink, the default), and a segment without the option leaves it stored.
#[test]
fn without_smoothing_the_last_value_is_advertised() {
    let mut p = Pair::new(cfg(on()), None);
    let burst = p.client_sends();
    assert_eq!(window(&p.deliver_to_server(&[stamped(&burst[0], 20_000)])[0]), 20_000);
    assert_eq!(window(&p.deliver_to_server(&[stamped(&burst[1], 5_000)])[0]), 5_000);
    assert_eq!(window(&p.deliver_to_server(&[burst[2].clone()])[0]), 5_000, "no option: the stored value stays");
    assert_eq!(window(&p.deliver_to_server(&[stamped(&burst[3], 40_000)])[0]), 40_000);
    // Above the free buffer or W_max, those bound it: 65,535 without window scaling.
    assert_eq!(window(&p.deliver_to_server(&[stamped(&burst[4], 1_000_000)])[0]), 65_535);
}

// tests the start: before the first stamp the window is the one without NGWA (the free buffer,
// 131,072 B, in a 16-bit field: 65,535), and an endpoint without NGWA ignores stamps.
#[test]
fn before_the_first_stamp_and_without_ngwa_the_window_is_unchanged() {
    let mut p = Pair::new(cfg(on()), None);
    let burst = p.client_sends();
    assert_eq!(window(&p.deliver_to_server(&[burst[0].clone()])[0]), 65_535);
    assert_eq!(p.s.ngwa_values(), None);
    let mut q = Pair::new(cfg(NgwaTcp::default()), None);
    let burst = q.client_sends();
    assert_eq!(window(&q.deliver_to_server(&[stamped(&burst[0], 20_000)])[0]), 65_535);
    assert_eq!(q.s.ngwa_values(), None);
}

// tests "data or not": a stamped pure ACK reaching the data sender sets the window its own
// segments advertise (the sender stores the value too).
#[test]
fn a_stamped_pure_ack_is_stored() {
    let mut p = Pair::new(cfg(on()), None);
    let burst = p.client_sends();
    let acks = p.deliver_to_server(&burst[0..1]);
    // The ACK opens cwnd, so the client sends at once; its segments carry the stored value.
    let more = p.deliver_to_client(&[stamped(&acks[0], 7_000)]);
    assert_eq!(p.c.ngwa_values(), Some((7_000, 7_000.0)));
    assert!(!more.is_empty());
    assert_eq!(window(&more[0]), 7_000);
}

// tests `floor`: a full queue stamps 0; with no floor the window closes (0), with
// `floor = "mss"` it stays at one segment (SMSS 1448 − 8 = 1440 B).
#[test]
fn floor_none_closes_the_window_floor_mss_keeps_one_segment() {
    for (floor, want) in [(NgwaFloor::None, 0), (NgwaFloor::Mss, 1_440)] {
        let mut p = Pair::new(cfg(NgwaTcp { floor, ..on() }), None);
        assert_eq!(p.s.smss, 1_440);
        let burst = p.client_sends();
        assert_eq!(window(&p.deliver_to_server(&[stamped(&burst[0], 0)])[0]), want, "{floor:?}");
    }
}

// tests `allow_shrink` with a 20,000-byte receive buffer: the first stamp, 20,000, gives 20,000
// either way; the value then drops to 5,000 with the next segment (1,440 B). Shrinking allowed
// (NGWA eqn. 2): 5,000. Not allowed (RFC 9293 §3.8.6): the right edge stays 20,000 B past the
// first ACK point, so 20,000 − 1,440 = 18,560 B remain.
#[test]
fn shrink_allowed_or_not() {
    for (allow_shrink, want) in [(true, 5_000), (false, 18_560)] {
        let mut p = Pair::new(TcpConfig { rcv_buf: 20_000, ..cfg(NgwaTcp { allow_shrink, ..on() }) }, None);
        let burst = p.client_sends();
        assert_eq!(burst[0].payload, 1_440);
        assert_eq!(window(&p.deliver_to_server(&[stamped(&burst[0], 20_000)])[0]), 20_000);
        assert_eq!(window(&p.deliver_to_server(&[stamped(&burst[1], 5_000)])[0]), want, "allow_shrink = {allow_shrink}");
    }
}

// tests NGWA §4.2's MSS reduction on both ends: a configured MSS of 1,460 B (no timestamps)
// becomes 1,452 B with the 8-byte option and 1,456 B with the 4-byte one, in the SYN's and
// SYN-ACK's MSS options, in both ends' SMSS and in the data segments.
#[test]
fn both_ends_lower_their_mss_by_the_option() {
    for (opt_len, want) in [(8, 1_452u32), (4, 1_456)] {
        let c = TcpConfig { mss: 1_460, timestamps: false, ngwa: NgwaTcp { opt_len, ..on() }, ..cfg(on()) };
        let (ca, sa) = (SockAddr { addr: 1, port: 1000 }, SockAddr { addr: 2, port: 80 });
        let mut cl = Endpoint::client(std::sync::Arc::new(c.clone()), ca, sa, 1_000, 0);
        let mut sv = Endpoint::server(std::sync::Arc::new(c.clone()), sa, ca, 5_000, 0);
        let mss_opt = |p: &SimPacket| match p.transport {
            Transport::Tcp { opts, .. } => opts.mss,
            Transport::Udp => unreachable!(),
        };
        let mut out = Vec::new();
        let now = sluice_core::Time::ZERO;
        cl.connect(now, &mut out);
        let syn = out.pop().unwrap();
        assert_eq!(mss_opt(&syn), Some(want as u16));
        sv.on_segment(&syn, now, &mut out);
        let synack = out.pop().unwrap();
        assert_eq!(mss_opt(&synack), Some(want as u16));
        assert_eq!((cl.smss, sv.smss), (want, want));
        // Without NGWA the same configuration keeps 1,460.
        let plain = TcpConfig { ngwa: NgwaTcp::default(), ..c.clone() };
        let mut p = Pair::new(plain, None);
        assert_eq!(p.client_sends()[0].payload, 1_460);
        let mut p = Pair::new(c, None);
        assert_eq!(p.client_sends()[0].payload, want);
    }
}

// tests the eight modes against Talau & Wille's Table 1 (congestion window, smoothing, flow
// division), written out row by row.
#[test]
fn the_eight_modes_match_table_1() {
    let table = [
        (1, true, false, false),
        (2, true, true, false),
        (3, false, false, false),
        (4, false, true, false),
        (5, true, false, true),
        (6, true, true, true),
        (7, false, false, true),
        (8, false, true, true),
    ];
    for (m, cw, se, fd) in table {
        let mode = NgwaMode::new(m).unwrap();
        assert_eq!((mode.congestion_window, mode.smoothing, mode.flow_division), (cw, se, fd), "mode {m}");
        assert_eq!(mode.cc(), if cw { CcKind::NewReno } else { CcKind::None });
    }
    assert_eq!(NgwaMode::new(0), None);
    assert_eq!(NgwaMode::new(9), None);
}

// tests the option checks: alpha strictly inside (0, 1), opt_len 4 or 8.
#[test]
fn validate_names_alpha_and_opt_len() {
    for a in [0.0, 1.0, -0.1, f64::NAN] {
        assert_eq!(NgwaTcp { alpha: a, ..on() }.validate(), Err(("alpha", format!("must be in (0, 1), got {a}"))));
    }
    assert_eq!(NgwaTcp { opt_len: 6, ..on() }.validate(), Err(("opt_len", "expected 4 or 8, got 6".to_string())));
    assert!(NgwaTcp { alpha: 0.5, opt_len: 4, ..on() }.validate().is_ok());
}

// tests that the serialized TCP configuration (the summary's `options`, the model hash) names
// NGWA's endpoint half only when it is on: a run without NGWA serializes as before NGWA existed.
#[test]
fn serialized_config_names_ngwa_only_when_on() {
    let off = serde_json::to_value(TcpConfig::default()).unwrap();
    assert!(off.get("ngwa").is_none(), "off: left out");
    let on = TcpConfig { ngwa: super::ngwa::NgwaTcp { enabled: true, ..Default::default() }, ..TcpConfig::default() };
    let v = serde_json::to_value(&on).unwrap();
    assert_eq!(v["ngwa"]["enabled"], serde_json::Value::Bool(true), "on: written");
}
