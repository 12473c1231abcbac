use super::*;
use crate::control::testutil::*;
use crate::control::{ControllerConfig, NetworkReturn, QueueReading, Readings};
use crate::flows::FlowTableConfig;
use crate::packet::tcp_flags;
use crate::time::Time;
use crate::units::QueueLimit;

fn readings() -> Readings {
    Readings { queue: QueueReading { bytes: 0, packets: 0, limit: QueueLimit::Packets(1000) }, link: Rate::mbps(1000), oracle_flows: None }
}

/// The client of flow `i`: 10.0.0.1, port 40000 + i.
fn client(i: u16) -> (u32, u16) {
    (CLIENT.0, CLIENT.1 + i)
}

/// A gateway running RWM with `cfg`, and `n` flows whose handshakes took `rtt`, client shift
/// `ws_c`, server shift `ws_s`.
fn gateway(cfg: RwmConfig, n: u16, rtt: Dur, ws_c: Option<u8>, ws_s: Option<u8>) -> NetworkReturn {
    let mut g = NetworkReturn::new(FlowTableConfig::default(), &ControllerConfig::Rwm(cfg));
    for i in 0..n {
        handshake_via(&mut g, client(i), ws_c, ws_s, Time::ZERO, rtt);
    }
    g
}

fn handshake_via(g: &mut NetworkReturn, c: (u32, u16), ws_c: Option<u8>, ws_s: Option<u8>, t0: Time, rtt: Dur) {
    let syn = Seg { seq: 100, ack: 0, opts: syn_opts(ws_c), ..Seg::tcp(c, SERVER, tcp_flags::SYN) };
    let synack = Seg { seq: 900, ack: 101, opts: syn_opts(ws_s), ..Seg::tcp(SERVER, c, tcp_flags::SYN | tcp_flags::ACK) };
    let ack = Seg { seq: 101, ack: 901, ..Seg::tcp(c, SERVER, tcp_flags::ACK) };
    g.on_forward(&syn, false, &readings(), t0);
    g.on_forward(&synack, false, &readings(), t0 + Dur(rtt.0 / 2));
    g.on_forward(&ack, false, &readings(), t0 + rtt);
}

/// The field an ACK of `window` from `from` to `to` leaves the gateway with.
fn ack_through(g: &mut NetworkReturn, from: (u32, u16), to: (u32, u16), window: u16, ackno: u32, now: Time) -> u16 {
    let mut a = Seg { window, ack: ackno, ..Seg::tcp(from, to, tcp_flags::ACK) };
    g.on_forward(&a, false, &readings(), now);
    g.at_rewrite_point(&mut a, &readings(), now);
    a.window
}

// tests docs/algorithms/network-return.md, "RWM" example: C = 1 Gb/s, one class (P = 1),
// 4 flows, RTT 60 ms, shift 7: BDP_f = 125,000,000 · 0.06 / 4 = 1,875,000 B → field
// floor(1,875,000/128) = floor(14,648.4) = 14,648; a receiver field of 10,000 stays.
#[test]
fn rwm_exact_bdp_cap() {
    let mut g = gateway(RwmConfig::default(), 4, Dur::from_millis(60), Some(7), Some(7));
    let t = Time::from_secs_f64(1.0);
    assert_eq!(ack_through(&mut g, client(0), SERVER, 20_000, 901, t), 14_648);
    assert_eq!(ack_through(&mut g, client(1), SERVER, 10_000, 901, t), 10_000);
}

// The rewrite counters: the exact-BDP cap above lowers 20,000 to 14,648 (shift 7), a reduction
// of 5,352 units · 128 = 685,056 B; 10,000 stays (unchanged). With shift 10, 65,535 → 1,831:
// 63,704 · 1,024 = 65,232,896 B.
#[test]
fn rwm_counts_reductions_in_the_advertisers_bytes() {
    let t = Time::from_secs_f64(1.0);
    let mut g = gateway(RwmConfig::default(), 4, Dur::from_millis(60), Some(7), Some(7));
    ack_through(&mut g, client(0), SERVER, 20_000, 901, t);
    ack_through(&mut g, client(1), SERVER, 10_000, 901, t);
    assert_eq!((g.stats.acks, g.stats.lowered, g.stats.unchanged, g.stats.reduced_bytes), (2, 1, 1, 685_056));
    let mut g = gateway(RwmConfig::default(), 4, Dur::from_millis(60), Some(10), Some(10));
    ack_through(&mut g, client(0), SERVER, 65_535, 901, t);
    assert_eq!((g.stats.lowered, g.stats.reduced_bytes), (1, 65_232_896));
}

// tests docs/algorithms/network-return.md, "RWM" ±δ: 1,875,000 · 0.9 / 128 = 13,183.6 → 13,183;
// · 1.1 / 128 = 16,113.3 → 16,113.
#[test]
fn rwm_delta_modes() {
    let t = Time::from_secs_f64(1.0);
    let mut g = gateway(RwmConfig { delta: -0.1, ..RwmConfig::default() }, 4, Dur::from_millis(60), Some(7), Some(7));
    assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 901, t), 13_183);
    let mut g = gateway(RwmConfig { delta: 0.1, ..RwmConfig::default() }, 4, Dur::from_millis(60), Some(7), Some(7));
    assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 901, t), 16_113);
}

// tests docs/algorithms/network-return.md, "RWM": shift 10 (Linux's for a 60 MB tcp_rmem) →
// floor(1,875,000/1024) = floor(1,831.05) = 1,831.
#[test]
fn rwm_shift_ten() {
    let mut g = gateway(RwmConfig::default(), 4, Dur::from_millis(60), Some(10), Some(10));
    assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 901, Time::from_secs_f64(1.0)), 1_831);
}

// tests docs/algorithms/network-return.md, "RWM" zero-window floor: 1000 flows, 20 ms, shift
// 14: BDP_f = 125,000,000 · 0.02 / 1000 = 2,500 B → floor(2,500/16,384) = 0 → floored to
// ceil(1460/16,384) = 1 (16,384 B). (The example's MSS is 1448; with this handshake's MSS
// option of 1460 and no timestamps the floor is the same one field unit.)
#[test]
fn rwm_zero_window_floor() {
    let mut g = gateway(RwmConfig::default(), 1000, Dur::from_millis(20), Some(14), Some(14));
    assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 901, Time::from_secs_f64(1.0)), 1);
}

// Each endpoint with its own shift: the server announced 9, so its windows are capped at
// floor(1,875,000/512) = 3,662 while the client's (shift 7) are at 14,648.
#[test]
fn rwm_both_directions_each_with_own_shift() {
    let mut g = gateway(RwmConfig::default(), 4, Dur::from_millis(60), Some(7), Some(9));
    let t = Time::from_secs_f64(1.0);
    assert_eq!(ack_through(&mut g, SERVER, client(0), 65_535, 101, t), 3_662);
    assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 901, t), 14_648);
    // capacity_reverse = 500 Mb/s halves the server's cap: floor(937,500/512) = 1,831.
    let mut g = gateway(RwmConfig { capacity_reverse: Some(Rate::mbps(500)), ..RwmConfig::default() }, 4, Dur::from_millis(60), Some(7), Some(9));
    assert_eq!(ack_through(&mut g, SERVER, client(0), 65_535, 101, t), 1_831);
}

// Algorithm 1 re-runs on registration and on removal: 1 flow → 7,500,000/128 = 58,593.75 →
// 58,593; 4 flows → 14,648; a RST removes one → 2,500,000/128 = 19,531.25 → 19,531.
#[test]
fn rwm_recomputes_on_registration_and_removal() {
    let rtt = Dur::from_millis(60);
    let mut g = gateway(RwmConfig::default(), 1, rtt, Some(7), Some(7));
    let rwm = |g: &NetworkReturn| match &g.controller {
        crate::control::AnyController::Rwm(r) => r.cap(g.flows.lookup_segment(&Seg::ack_from_client(0)).unwrap(), Side::Initiator, Rate::mbps(1000)),
        _ => unreachable!(),
    };
    assert_eq!(rwm(&g), Some(58_593));
    for i in 1..4 {
        handshake_via(&mut g, client(i), Some(7), Some(7), Time::from_secs_f64(0.1), rtt);
    }
    assert_eq!(rwm(&g), Some(14_648));
    let rst = Seg { ..Seg::tcp(client(3), SERVER, tcp_flags::RST | tcp_flags::ACK) };
    g.on_forward(&rst, false, &readings(), Time::from_secs_f64(0.5));
    assert_eq!(rwm(&g), Some(19_531));
    // A bare SYN (no answer) does not count: still 3 registered flows.
    let syn = Seg { opts: syn_opts(Some(7)), ..Seg::tcp(client(9), SERVER, tcp_flags::SYN) };
    g.on_forward(&syn, false, &readings(), Time::from_secs_f64(0.6));
    assert_eq!(rwm(&g), Some(19_531));
}

// The caps the ACKs carry (kept between ACKs, computed again after each flow event) follow
// the same registrations and removal as above: 58,593 for one flow, 14,648 for four, 19,531
// once a RST removed one; and the link's rate when it changes (100 Mb/s, three flows:
// 2,500,000/10/128 = 1,953.1 → 1,953).
#[test]
fn rwm_ack_caps_follow_flow_events() {
    let rtt = Dur::from_millis(60);
    let mut g = gateway(RwmConfig::default(), 1, rtt, Some(7), Some(7));
    let t = |s: f64| Time::from_secs_f64(s);
    assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 901, t(0.08)), 58_593);
    assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 901, t(0.09)), 58_593);
    for i in 1..4 {
        handshake_via(&mut g, client(i), Some(7), Some(7), t(0.1), rtt);
    }
    assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 901, t(0.2)), 14_648);
    assert_eq!(ack_through(&mut g, client(2), SERVER, 65_535, 901, t(0.2)), 14_648);
    let rst = Seg { ..Seg::tcp(client(3), SERVER, tcp_flags::RST | tcp_flags::ACK) };
    g.on_forward(&rst, false, &readings(), t(0.5));
    assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 901, t(0.6)), 19_531);
    let slow = Readings { link: Rate::mbps(100), ..readings() };
    // (Client 2's cap was last computed two epochs ago, before the RST.)
    let mut a = Seg { window: 65_535, ack: 901, ..Seg::tcp(client(2), SERVER, tcp_flags::ACK) };
    g.on_forward(&a, false, &slow, t(0.7));
    g.at_rewrite_point(&mut a, &slow, t(0.7));
    assert_eq!(a.window, 1_953);
}

// Unknown scale (a flow picked up mid-stream) is counted in n_c but not controlled; a SYN
// without the WS option gives a *known* shift 0 and is controlled.
#[test]
fn rwm_unknown_scale_counts_but_is_skipped() {
    let rtt = Dur::from_millis(60);
    let mut g = gateway(RwmConfig::default(), 1, rtt, None, None); // no WS options: shift 0
    let t = Time::from_secs_f64(1.0);
    // Mid-stream pickup of a second flow (client port 40001): registered, unknown scale.
    assert_eq!(ack_through(&mut g, client(1), SERVER, 65_535, 901, t), 65_535);
    // Flow 0, shift 0, n_c = 2: 1e9 · 0.06 / 8 / 2 = 3,750,000 B → field 65,535 stays (≥ it);
    // with 100 Mb/s: 375,000 → still above 65,535; with 5 Mb/s: 18,750.
    let mut g = gateway(RwmConfig { capacity: Some(Rate::mbps(5)), ..RwmConfig::default() }, 1, rtt, None, None);
    assert_eq!(ack_through(&mut g, client(1), SERVER, 65_535, 901, t), 65_535);
    assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 901, t), 18_750);
}

// A retransmitted SYN leaves no handshake RTT: the flow is skipped (but counted).
#[test]
fn rwm_skips_a_flow_without_handshake_rtt() {
    let mut g = NetworkReturn::new(FlowTableConfig::default(), &ControllerConfig::Rwm(RwmConfig::default()));
    let c = client(0);
    let syn = Seg { seq: 100, ack: 0, opts: syn_opts(Some(7)), ..Seg::tcp(c, SERVER, tcp_flags::SYN) };
    g.on_forward(&syn, false, &readings(), Time::ZERO);
    g.on_forward(&syn, false, &readings(), Time::from_secs_f64(1.0)); // retransmission
    let synack = Seg { seq: 900, ack: 101, opts: syn_opts(Some(7)), ..Seg::tcp(SERVER, c, tcp_flags::SYN | tcp_flags::ACK) };
    g.on_forward(&synack, false, &readings(), Time::from_secs_f64(1.03));
    let ack = Seg { seq: 101, ack: 901, ..Seg::tcp(c, SERVER, tcp_flags::ACK) };
    g.on_forward(&ack, false, &readings(), Time::from_secs_f64(1.06));
    assert_eq!(g.flows.lookup_segment(&ack).unwrap().rtt_handshake, None);
    assert_eq!(ack_through(&mut g, c, SERVER, 20_000, 901, Time::from_secs_f64(1.1)), 20_000);
}

// Classes by the responder's port; the default class takes the rest; 0 left ⇒ pass-through.
#[test]
fn rwm_classes_and_default_share() {
    let web = RwmClass { name: "web".into(), ports: vec![PortRange { lo: 80, hi: 80 }], share: 0.5 };
    let cfg = RwmConfig { classes: vec![web.clone()], ..RwmConfig::default() };
    // 4 web flows at half of 1 Gb/s: 937,500 B → floor(937,500/128) = 7,324.
    let mut g = gateway(cfg, 4, Dur::from_millis(60), Some(7), Some(7));
    assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 901, Time::from_secs_f64(1.0)), 7_324);
    // The class takes everything and port 80 is not in it: default share 0, pass-through.
    let other = RwmClass { name: "other".into(), ports: vec![PortRange { lo: 8000, hi: 8080 }], share: 1.0 };
    let mut g = gateway(RwmConfig { classes: vec![other], ..RwmConfig::default() }, 4, Dur::from_millis(60), Some(7), Some(7));
    assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 901, Time::from_secs_f64(1.0)), 65_535);
}

// no_shrink: 1 flow, cap 58,593; an ACK at 1000 leaves the edge at 1000 + 58,593·128 =
// 7,500,904. Three flows join (cap 14,648). The next ACK at 129,000 may only move the edge
// back to where it was: max(14,648, (7,500,904 − 129,000)/128 = 57,593) = 57,593.
// Without no_shrink: 14,648.
#[test]
fn rwm_no_shrink_keeps_the_right_edge() {
    for (no_shrink, want) in [(true, 57_593), (false, 14_648)] {
        let rtt = Dur::from_millis(60);
        let mut g = gateway(RwmConfig { no_shrink, ..RwmConfig::default() }, 1, rtt, Some(7), Some(7));
        assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 1000, Time::from_secs_f64(0.2)), 58_593);
        for i in 1..4 {
            handshake_via(&mut g, client(i), Some(7), Some(7), Time::from_secs_f64(0.3), rtt);
        }
        assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 129_000, Time::from_secs_f64(0.5)), want, "no_shrink = {no_shrink}");
    }
}

#[test]
fn rwm_config_errors_name_the_field() {
    let c = |share: f64| RwmClass { name: "a".into(), ports: vec![PortRange { lo: 1, hi: 2 }], share };
    let cfg = RwmConfig { classes: vec![c(0.7), c(0.5)], ..RwmConfig::default() };
    assert_eq!(cfg.validate().unwrap_err().to_string(), "classes: shares sum to 1.2, at most 1");
    let cfg = RwmConfig { bdp_source: RwmBdpSource::ConfiguredRtt, ..RwmConfig::default() };
    assert!(cfg.validate().unwrap_err().to_string().starts_with("configured_rtt: "));
    let cfg: RwmConfig = serde_json::from_str(r#"{"classes": [{"name": "web", "ports": [80, "8000-8080"], "share": 0.5}], "delta": -0.1}"#).unwrap();
    assert_eq!(cfg.classes[0].ports, vec![PortRange { lo: 80, hi: 80 }, PortRange { lo: 8000, hi: 8080 }]);
    assert_eq!(cfg.class_of(8042), 0);
    assert_eq!(cfg.class_of(22), 1);
    assert!((cfg.share_of(1) - 0.5).abs() < 1e-12);
    assert!(serde_json::from_str::<RwmConfig>(r#"{"classes": [{"name": "x", "ports": ["90-80"], "share": 0.5}]}"#).is_err());
    // Each check at its edge.
    let field = |cfg: RwmConfig| cfg.validate().map_err(|e| e.field);
    let d = RwmConfig::default;
    assert_eq!(field(RwmConfig { classes: vec![c(1.0)], ..d() }), Ok(()), "one class may take everything");
    assert_eq!(field(RwmConfig { classes: vec![c(0.0)], ..d() }), Err("classes"));
    assert_eq!(field(RwmConfig { classes: vec![c(1.5)], ..d() }), Err("classes"));
    assert_eq!(field(RwmConfig { classes: vec![c(0.5), c(0.5)], ..d() }), Ok(()), "shares summing to exactly 1");
    assert_eq!(field(RwmConfig { classes: vec![c(0.6), c(0.4000001)], ..d() }), Err("classes"));
    let none = RwmClass { ports: vec![], ..c(0.5) };
    assert_eq!(field(RwmConfig { classes: vec![none], ..d() }), Err("classes"));
    assert_eq!(field(RwmConfig { delta: 1.0, ..d() }), Ok(()));
    assert_eq!(field(RwmConfig { delta: -1.0, ..d() }), Err("delta"));
    assert_eq!(field(RwmConfig { delta: 1.01, ..d() }), Err("delta"));
    assert_eq!(field(RwmConfig { bdp_source: RwmBdpSource::ConfiguredRtt, configured_rtt: Some(Dur::ZERO), ..d() }), Err("configured_rtt"));
    assert_eq!(field(RwmConfig { bdp_source: RwmBdpSource::ConfiguredRtt, configured_rtt: Some(Dur::from_millis(50)), ..d() }), Ok(()));
    assert_eq!(field(RwmConfig { capacity: Some(Rate(0)), ..d() }), Err("capacity"));
    assert_eq!(field(RwmConfig { capacity_reverse: Some(Rate(0)), ..d() }), Err("capacity_reverse"));
    assert_eq!(field(RwmConfig { mss: 0, ..d() }), Err("mss"));
    // A range's ends belong to it; a one-port range reads back as that port.
    let r = RwmConfig { classes: vec![RwmClass { ports: vec![PortRange { lo: 8000, hi: 8080 }], ..c(0.5) }], ..d() };
    assert_eq!([r.class_of(7999), r.class_of(8000), r.class_of(8080), r.class_of(8081)], [1, 0, 0, 1]);
    assert!(matches!(PortSpec::from(PortRange { lo: 443, hi: 443 }), PortSpec::One(443)));
    assert!(matches!(PortSpec::from(PortRange { lo: 80, hi: 81 }), PortSpec::Range(r) if r == "80-81"));
    assert_eq!(PortRange::try_from(PortSpec::Range("80-80".into())), Ok(PortRange { lo: 80, hi: 80 }));
}

// rtt_source = "min": the cap follows the flow's minimum ongoing RTT from the ACK that lowers it
// (60 ms from the handshake, then a 50 ms sample: the client's handshake ACK at 60 ms answered
// by the server's data at 80 ms, 20 ms through the server; that data answered by the client's
// ACK at 110 ms, 30 ms through the client). One flow, 1 Gb/s, shift 7:
// floor(7,500,000/128) = 58,593, then floor(6,250,000/128) = 48,828.
#[test]
fn rwm_min_rtt_source_follows_a_new_minimum() {
    let cfg = RwmConfig { rtt_source: RwmRttSource::Min, ..RwmConfig::default() };
    let mut g = gateway(cfg, 1, Dur::from_millis(60), Some(7), Some(7));
    let c = client(0);
    assert_eq!(ack_through(&mut g, c, SERVER, 65_535, 901, ms(70)), 58_593);
    let data = Seg { seq: 901, ack: 101, payload: 1000, ..Seg::tcp(SERVER, c, tcp_flags::ACK) };
    g.on_forward(&data, false, &readings(), ms(80));
    assert_eq!(ack_through(&mut g, c, SERVER, 65_535, 1901, ms(110)), 48_828);
    assert_eq!(g.flows.lookup_segment(&data).unwrap().rtt_min, Some(Dur::from_millis(50)));
    assert_eq!(ack_through(&mut g, c, SERVER, 65_535, 1901, ms(120)), 48_828);
}

// A change of the link's rate changes the cap at the next ACK, with no flow event between:
// one flow, 60 ms, shift 7: 7,500,000/128 → 58,593 at 1 Gb/s; 3,750,000/128 → 29,296 at
// 500 Mb/s; back to 58,593.
#[test]
fn rwm_follows_the_links_rate() {
    let mut g = gateway(RwmConfig::default(), 1, Dur::from_millis(60), Some(7), Some(7));
    let at = |g: &mut NetworkReturn, mbps: u64, ms: u64| {
        let r = Readings { link: Rate::mbps(mbps), ..readings() };
        let mut a = Seg { window: 65_535, ack: 901, ..Seg::tcp(client(0), SERVER, tcp_flags::ACK) };
        g.on_forward(&a, false, &r, Time(ms * 1_000_000));
        g.at_rewrite_point(&mut a, &r, Time(ms * 1_000_000));
        a.window
    };
    assert_eq!(at(&mut g, 1000, 100), 58_593);
    assert_eq!(at(&mut g, 500, 200), 29_296);
    assert_eq!(at(&mut g, 500, 300), 29_296);
    assert_eq!(at(&mut g, 1000, 400), 58_593);
}

// directions = "data_receiver": only the endpoint that has received more payload has its
// windows capped. The server sends 1000 B of data; the client's ACK is capped (14,648 with 4
// flows), the server's left as it came.
#[test]
fn rwm_caps_only_the_data_receiver_when_asked() {
    let mut g = gateway(RwmConfig { directions: RwmDirections::DataReceiver, ..RwmConfig::default() }, 4, Dur::from_millis(60), Some(7), Some(7));
    let t = Time::from_secs_f64(1.0);
    let data = Seg { seq: 901, ack: 101, payload: 1000, ..Seg::tcp(SERVER, client(0), tcp_flags::ACK) };
    g.on_forward(&data, false, &readings(), t);
    assert_eq!(ack_through(&mut g, client(0), SERVER, 65_535, 1901, t), 14_648);
    assert_eq!(ack_through(&mut g, SERVER, client(0), 65_535, 101, t), 65_535);
}
