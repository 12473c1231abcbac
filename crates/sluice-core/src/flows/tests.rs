use super::*;
use crate::control::testutil::*;
use crate::packet::TcpOptionsView;

fn table() -> FlowTable {
    FlowTable::new(FlowTableConfig::default())
}

fn secs(s: f64) -> Time {
    Time::from_secs_f64(s)
}

// tests docs/algorithms/network-return.md, "Flow table": the shift each side uses, from the
// SYN and SYN-ACK (RFC 7323 §2.2–2.3).
#[test]
fn window_scale_known_unknown_and_zero() {
    // Both carried WS: each side its own.
    let (t, id) = one_flow(Some(7), Some(9));
    let f = t.get(id).unwrap();
    assert!(f.ws_ok());
    assert_eq!((f.wscale_init(), f.wscale_resp()), (Some(7), Some(9)));
    assert_eq!((f.shift(Side::Initiator), f.shift(Side::Responder)), (Some(7), Some(9)));
    // Server without WS: scaling off both ways, a *known* 0 (not unknown).
    let (t, id) = one_flow(Some(7), None);
    let f = t.get(id).unwrap();
    assert!(!f.ws_ok());
    assert_eq!((f.wscale_init(), f.wscale_resp()), (Some(7), Some(0)));
    assert_eq!((f.shift(Side::Initiator), f.shift(Side::Responder)), (Some(0), Some(0)));
    // WS present with shift 0 on both: on, shift 0.
    let (t, id) = one_flow(Some(0), Some(0));
    let f = t.get(id).unwrap();
    assert!(f.ws_ok());
    assert_eq!(f.shift(Side::Initiator), Some(0));
    // A shift above 14 is recorded as 14 (RFC 7323 §2.3).
    let (t, id) = one_flow(Some(15), Some(3));
    assert_eq!(t.get(id).unwrap().shift(Side::Initiator), Some(14));
    // Mid-stream pickup: unknown.
    let mut t = table();
    let id = t.observe(&Seg::ack_from_client(500), secs(1.0)).unwrap();
    let f = t.get(id).unwrap();
    assert_eq!((f.wscale_init(), f.wscale_resp()), (None, None));
    assert_eq!((f.shift(Side::Initiator), f.shift(Side::Responder)), (None, None));
    assert!(f.registered && !f.initiator_known);
    // The guess: the higher port (40000) initiated.
    assert_eq!(f.initiator(), Endpoint { addr: CLIENT.0, port: CLIENT.1 });
    // Only the SYN seen: with WS, unknown until the SYN-ACK; without WS, known 0.
    let mut t = table();
    let syn = Seg { opts: syn_opts(Some(7)), ..Seg::tcp(CLIENT, SERVER, tcp_flags::SYN) };
    let id = t.observe(&syn, secs(0.0)).unwrap();
    assert_eq!(t.get(id).unwrap().shift(Side::Responder), None);
    let mut t = table();
    let syn = Seg { opts: syn_opts(None), ..Seg::tcp(CLIENT, SERVER, tcp_flags::SYN) };
    let id = t.observe(&syn, secs(0.0)).unwrap();
    assert_eq!(t.get(id).unwrap().shift(Side::Responder), Some(0));
}

// tests docs/algorithms/network-return.md, "Handshake RTT": t_ack − t_syn; none after a
// retransmitted SYN or SYN-ACK; the ACK must acknowledge the SYN-ACK seen.
#[test]
fn handshake_rtt_rules() {
    let (t, id) = one_flow(Some(7), Some(7));
    let f = t.get(id).unwrap();
    assert_eq!(f.rtt_handshake, Some(Dur::from_millis(60)));
    assert_eq!((f.t_syn, f.t_synack, f.t_ack), (Some(ms(0)), Some(ms(30)), Some(ms(60))));
    assert_eq!(f.state, FlowState::Established);

    let syn = Seg { seq: 100, ack: 0, opts: syn_opts(Some(7)), ..Seg::tcp(CLIENT, SERVER, tcp_flags::SYN) };
    let synack = Seg { seq: 900, ack: 101, opts: syn_opts(Some(7)), ..Seg::tcp(SERVER, CLIENT, tcp_flags::SYN | tcp_flags::ACK) };
    let ack = Seg { seq: 101, ack: 901, ..Seg::tcp(CLIENT, SERVER, tcp_flags::ACK) };
    // Retransmitted SYN: no sample.
    let mut t = table();
    t.observe(&syn, ms(0));
    t.observe(&syn, ms(1000));
    t.observe(&synack, ms(1030));
    let id = t.observe(&ack, ms(1060)).unwrap();
    let f = t.get(id).unwrap();
    assert!(f.syn_retransmitted);
    assert_eq!(f.rtt_handshake, None);
    assert!(f.registered);
    // Retransmitted SYN-ACK: no sample.
    let mut t = table();
    t.observe(&syn, ms(0));
    t.observe(&synack, ms(30));
    t.observe(&synack, ms(1030));
    let id = t.observe(&ack, ms(1060)).unwrap();
    assert_eq!(t.get(id).unwrap().rtt_handshake, None);
    // An ACK that does not acknowledge the SYN-ACK does not complete the handshake.
    let mut t = table();
    t.observe(&syn, ms(0));
    t.observe(&synack, ms(30));
    let id = t.observe(&Seg { ack: 555, ..ack.clone() }, ms(60)).unwrap();
    assert_eq!(t.get(id).unwrap().state, FlowState::SynAckSeen);
    t.observe(&ack, ms(70));
    assert_eq!(t.get(id).unwrap().rtt_handshake, Some(Dur::from_millis(70)));
    // Registration is reported once, at the handshake's end.
    let mut ev = Vec::new();
    t.take_events(&mut ev);
    assert_eq!(ev, vec![FlowEvent::Registered(id)]);
}

// tests docs/algorithms/network-return.md, "Flow table": removed after 10 s without packets.
#[test]
fn idle_flows_expire_after_ten_seconds() {
    let (mut t, id) = one_flow(Some(7), Some(7)); // last packet at 60 ms
    t.expire(ms(10_059));
    assert!(t.get(id).is_some());
    t.expire(ms(10_060));
    assert!(t.get(id).is_none());
    let mut ev = Vec::new();
    t.take_events(&mut ev);
    assert_eq!(ev.last(), Some(&FlowEvent::Removed { id, reason: RemoveReason::Idle, registered: true }));
    // A packet in between keeps it.
    let (mut t, id) = one_flow(Some(7), Some(7));
    t.observe(&Seg::ack_from_client(100), ms(5_000));
    t.expire(ms(14_999));
    assert!(t.get(id).is_some());
    t.expire(ms(15_000));
    assert!(t.get(id).is_none());
}

// A lookup right after the segment's own observe (the gateway's rewrite point) finds the same
// entry as the index; once the flow is gone it finds nothing, even when its slot is refilled.
#[test]
fn lookup_after_observe_and_after_removal() {
    let (mut t, id) = one_flow(Some(7), Some(7));
    let ack = Seg::ack_from_client(100);
    t.observe(&ack, ms(100));
    assert_eq!(t.lookup_segment(&ack).map(|e| e.id), Some(id));
    let back = Seg::tcp(SERVER, CLIENT, tcp_flags::ACK);
    assert_eq!(t.lookup_segment(&back).map(|e| e.id), Some(id), "either direction");
    t.expire(ms(10_100));
    assert!(t.lookup_segment(&ack).is_none(), "expired");
    // Another connection takes the freed slot; the old one's segments find nothing.
    let other = Seg::tcp((CLIENT.0, CLIENT.1 + 1), SERVER, tcp_flags::SYN);
    t.observe(&other, ms(10_200));
    t.expire(ms(10_200));
    assert!(t.lookup_segment(&ack).is_none());
    assert!(t.lookup_segment(&other).is_some());
    // The expired connection's next segment, the last one observed before it went, starts a
    // new entry (mid-stream pickup) in a slot of its own; the other connection keeps its own.
    let (mut t, id) = one_flow(Some(7), Some(7));
    t.observe(&ack, ms(100));
    let again = t.observe(&ack, ms(10_100)).expect("recorded again");
    assert_ne!(again, id);
    assert!(t.get(id).is_none());
    let e = t.get(again).unwrap();
    assert!(!e.initiator_known);
    assert_eq!((e.first_seen, e.end(Side::Initiator).packets), (ms(10_100), 1));
}

// tests docs/algorithms/network-return.md, "Flow table": FIN from both sides, then 2 s.
#[test]
fn fin_from_both_sides_then_two_seconds() {
    let (mut t, id) = one_flow(Some(7), Some(7));
    let fin_c = Seg::tcp(CLIENT, SERVER, tcp_flags::FIN | tcp_flags::ACK);
    let fin_s = Seg::tcp(SERVER, CLIENT, tcp_flags::FIN | tcp_flags::ACK);
    t.observe(&fin_c, ms(1000));
    assert_eq!(t.get(id).unwrap().state, FlowState::FinSeen(Side::Initiator));
    assert_eq!(t.count(FlowCount::Table, ms(1000), None), 1);
    t.observe(&fin_s, ms(1500));
    assert_eq!(t.get(id).unwrap().state, FlowState::Closed);
    assert_eq!(t.count(FlowCount::Table, ms(1500), None), 0, "closed flows are not active");
    // The last ACK after both FINs does not move the deadline (1.5 s + 2 s).
    t.observe(&Seg::ack_from_client(100), ms(1600));
    t.expire(ms(3499));
    assert!(t.get(id).is_some());
    t.expire(ms(3500));
    assert!(t.get(id).is_none());
}

// tests docs/algorithms/network-return.md, "Flow table": RST from either side removes at once.
#[test]
fn rst_removes_from_either_side() {
    for from_server in [false, true] {
        let (mut t, id) = one_flow(Some(7), Some(7));
        let rst = if from_server { Seg::tcp(SERVER, CLIENT, tcp_flags::RST) } else { Seg::tcp(CLIENT, SERVER, tcp_flags::RST) };
        assert_eq!(t.observe(&rst, ms(100)), None);
        assert!(t.get(id).is_none() && t.is_empty());
    }
    // A RST of an unknown flow inserts nothing.
    let mut t = table();
    t.observe(&Seg::tcp(CLIENT, SERVER, tcp_flags::RST), ms(1));
    assert!(t.is_empty());
}

// tests docs/algorithms/network-return.md, "Flow table" bound: a SYN flood recycles half-open
// entries; established active flows stay; with only active flows the newcomer is refused.
#[test]
fn syn_flood_cannot_grow_the_table() {
    let mut t = FlowTable::new(FlowTableConfig { capacity: 100, ..FlowTableConfig::default() });
    let mut ids = Vec::new();
    for i in 0..10u16 {
        ids.push(handshake(&mut t, (CLIENT.0, 30_000 + i), Some(7), Some(7), Time::ZERO));
    }
    // 10,000 SYNs from distinct spoofed sources, one every 10 µs, while the 10 flows keep
    // sending (every 1000th SYN).
    for k in 0..10_000u32 {
        let now = Time(100_000_000 + k as u64 * 10_000);
        let syn = Seg { opts: syn_opts(Some(7)), ..Seg::tcp((0x0b00_0000 + k, 1024 + (k % 60_000) as u16), SERVER, tcp_flags::SYN) };
        t.observe(&syn, now);
        assert!(t.len() <= 100);
        if k % 1000 == 0 {
            for i in 0..10u16 {
                t.observe(&Seg::ack_from_client(100).clone_with_src((CLIENT.0, 30_000 + i)), now);
            }
        }
    }
    assert_eq!(t.len(), 100);
    assert!(ids.iter().all(|&id| t.get(id).is_some()), "established flows survive the flood");
    assert_eq!(t.evicted(), 10_000 - 90);
    // 100 active established flows: a new SYN is refused, nothing evicted.
    let mut t = FlowTable::new(FlowTableConfig { capacity: 100, ..FlowTableConfig::default() });
    for i in 0..100u16 {
        handshake(&mut t, (CLIENT.0, 30_000 + i), Some(7), Some(7), Time::ZERO);
    }
    let syn = Seg { opts: syn_opts(Some(7)), ..Seg::tcp((0x0b00_0001, 5555), SERVER, tcp_flags::SYN) };
    assert_eq!(t.observe(&syn, ms(500)), None);
    assert_eq!((t.len(), t.rejected(), t.evicted()), (100, 1, 0));
    // Once they have been idle for the activity window (1 s), the least recent one goes.
    assert!(t.observe(&syn, ms(1061)).is_some());
    assert_eq!(t.evicted(), 1);
}

impl Seg {
    fn clone_with_src(&self, src: (u32, u16)) -> Seg {
        Seg { src, ..self.clone() }
    }
}

// flow_count = "table" (not closed), "recent" (a packet within 1 s), "oracle" (handed in).
#[test]
fn flow_counts() {
    let mut t = table();
    for i in 0..3u16 {
        handshake(&mut t, (CLIENT.0, 30_000 + i), None, None, ms(i as u64 * 1000));
    }
    // Last packets at 60, 1060, 2060 ms.
    assert_eq!(t.count(FlowCount::Table, ms(2060), None), 3);
    // At 2060 ms, 1060 is exactly 1 s back (counted) and 60 is not; 1 ms later only 2060.
    assert_eq!(t.count(FlowCount::Recent, ms(2060), None), 2);
    assert_eq!(t.count(FlowCount::Recent, ms(2061), None), 1);
    assert_eq!(t.count(FlowCount::Recent, ms(3061), None), 0);
    assert_eq!(t.count(FlowCount::Oracle, ms(2100), Some(42)), 42);
}

// tests docs/algorithms/network-return.md, "Ongoing RTT" with timestamps: the server's data
// (TSval 1000) at 1.000 s is echoed by the client at 1.030 s (30 ms through the client); the
// client's TSval 2000 of that ACK is echoed by the server's data at 1.100 s (70 ms through
// the server): one sample of 100 ms.
#[test]
fn ongoing_rtt_from_timestamps() {
    let mut t = table();
    let ts = |v: u32, e: u32| TcpOptionsView { mss: Some(1460), wscale: Some(7), sack_permitted: true, timestamps: Some((v, e)) };
    let syn = Seg { seq: 100, ack: 0, opts: ts(1, 0), ..Seg::tcp(CLIENT, SERVER, tcp_flags::SYN) };
    let synack = Seg { seq: 900, ack: 101, opts: ts(2, 1), ..Seg::tcp(SERVER, CLIENT, tcp_flags::SYN | tcp_flags::ACK) };
    let ack = Seg { seq: 101, ack: 901, opts: TcpOptionsView { timestamps: Some((3, 2)), ..Default::default() }, ..Seg::tcp(CLIENT, SERVER, tcp_flags::ACK) };
    t.observe(&syn, ms(0));
    t.observe(&synack, ms(30));
    let id = t.observe(&ack, ms(60)).unwrap();
    let only_ts = |v: u32, e: u32| TcpOptionsView { timestamps: Some((v, e)), ..Default::default() };
    // The handshake's ACK (TSval 3) opened the client's probe; the server's data echoes 3.
    let data = Seg { seq: 901, ack: 101, payload: 1448, opts: only_ts(1000, 3), ..Seg::tcp(SERVER, CLIENT, tcp_flags::ACK) };
    t.observe(&data, ms(1000)); // loop through the server: 1000 − 60 ms, but no sample yet (one side)
    let cack = Seg { seq: 101, ack: 2349, opts: only_ts(2000, 1000), ..Seg::tcp(CLIENT, SERVER, tcp_flags::ACK) };
    t.observe(&cack, ms(1030)); // loop through the client: 30 ms → sample 940 + 30 = 970 ms
    let f = t.get(id).unwrap();
    assert_eq!(f.rtt_smoothed, Some(Dur::from_millis(970)));
    let data2 = Seg { seq: 2349, ack: 101, payload: 1448, opts: only_ts(1001, 2000), ..Seg::tcp(SERVER, CLIENT, tcp_flags::ACK) };
    t.observe(&data2, ms(1100)); // through the server: 70 ms → sample 30 + 70 = 100 ms
    let f = t.get(id).unwrap();
    assert_eq!(f.rtt_min, Some(Dur::from_millis(100)));
    // 7/8 · 970 + 1/8 · 100 = 848.75 + 12.5 = 861.25 ms
    assert_eq!(f.rtt_smoothed, Some(Dur(861_250_000)));
}

// tests docs/algorithms/network-return.md, "Ongoing RTT" without timestamps. The handshake's
// ACK (60 ms) is answered by the server's first data at 1.000 s (940 ms through the server:
// the server was idle); that data, ending at 2349, is acknowledged at 1.030 s (30 ms through
// the client): sample 970 ms. That ACK releases new data at 1.100 s (70 ms through the
// server): sample 100 ms; smoothed 7/8 · 970 + 1/8 · 100 = 861.25 ms.
#[test]
fn ongoing_rtt_from_sequence_numbers() {
    let (mut t, id) = one_flow(Some(7), Some(7));
    let data = |seq: u32| Seg { seq, ack: 101, payload: 1448, ..Seg::tcp(SERVER, CLIENT, tcp_flags::ACK) };
    let cack = |a: u32| Seg { seq: 101, ack: a, ..Seg::tcp(CLIENT, SERVER, tcp_flags::ACK) };
    t.observe(&data(901), ms(1000));
    t.observe(&cack(2349), ms(1030));
    assert_eq!(t.get(id).unwrap().rtt_min, Some(Dur::from_millis(970)));
    t.observe(&data(2349), ms(1100));
    assert_eq!(t.get(id).unwrap().rtt_min, Some(Dur::from_millis(100)));
    assert_eq!(t.get(id).unwrap().rtt_smoothed, Some(Dur(861_250_000)));
}

// Karn: the probed range 901..2349 is sent at 1.0 s and again at 1.5 s; the ACK at 1.53 s
// gives no loop through the client, so no sample at all.
#[test]
fn ongoing_rtt_skips_retransmitted_ranges() {
    let (mut t, id) = one_flow(Some(7), Some(7));
    let data = |seq: u32| Seg { seq, ack: 101, payload: 1448, ..Seg::tcp(SERVER, CLIENT, tcp_flags::ACK) };
    let cack = |a: u32| Seg { seq: 101, ack: a, ..Seg::tcp(CLIENT, SERVER, tcp_flags::ACK) };
    t.observe(&data(901), ms(1000));
    t.observe(&data(901), ms(1500));
    t.observe(&cack(2349), ms(1530));
    t.observe(&data(2349), ms(1600));
    assert_eq!(t.get(id).unwrap().rtt_min, None);
}

// The lookup hash is FNV-1a 64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3) before
// the SplitMix64 finish: FNV-1a("a") = 0xaf63dc4c8601ec8c (the FNV reference vector). A key
// folds in two words whole: 1:2 <-> 3:4 gives the words 0x10002 and 0x30004, FNV state
// 0x7139500a9d332f73, and after SplitMix64 0x2ef8a9ebed1e0b58 (computed by hand in Python's
// integers, masking to 64 bits).
#[test]
fn lookup_hash_is_the_specified_one() {
    let mut h = FlowHashBuilder(0).build_hasher();
    h.write(b"a");
    assert_eq!(h.0, 0xaf63_dc4c_8601_ec8c);
    // Same key, same hash, in any table: no per-process randomness.
    let k = FlowKey::new(Endpoint { addr: 1, port: 2 }, Endpoint { addr: 3, port: 4 });
    let mut w = FlowHashBuilder(0).build_hasher();
    std::hash::Hash::hash(&k, &mut w);
    assert_eq!(w.0, 0x7139_500a_9d33_2f73);
    assert_eq!(FlowHashBuilder(0).hash_one(k), 0x2ef8_a9eb_ed1e_0b58);
    assert_eq!(FlowHashBuilder(0).hash_one(FlowKey::new(Endpoint { addr: 3, port: 4 }, Endpoint { addr: 1, port: 2 })), 0x2ef8_a9eb_ed1e_0b58, "either direction");
    assert_eq!(FlowHashBuilder(0).hash_one(k), FlowHashBuilder(0).hash_one(k));
    assert_ne!(FlowHashBuilder(0).hash_one(k), FlowHashBuilder(1).hash_one(k));
}

// tests docs/algorithms/network-return.md, "UDP rate": 3 Mb/s of UDP in one 100 ms bin →
// 0.25 · 3 Mb/s = 750 kb/s after it; an empty bin decays it by 0.75.
#[test]
fn udp_rate_estimate() {
    let mut u = UdpRate::default();
    u.on_bytes(37_500, ms(10)); // 37,500 B in 0.1 s = 3 Mb/s
    assert_eq!(u.rate(ms(99)).as_bps(), 0, "the bin is not complete");
    assert_eq!(u.rate(ms(100)).as_bps(), 750_000);
    assert_eq!(u.rate(ms(200)).as_bps(), 562_500);
    assert_eq!(u.rate(ms(100_000)).as_bps(), 0);
}

// Both directions of a connection map to one entry, whichever side is first.
#[test]
fn key_is_direction_free() {
    let a = Endpoint { addr: 9, port: 1 };
    let b = Endpoint { addr: 3, port: 7 };
    assert_eq!(FlowKey::new(a, b), FlowKey::new(b, a));
}

// A controller's per-flow state follows the flow's id, not its slot: a later flow in the same
// slot (a new generation) neither sees nor is seen as the old one.
#[test]
fn flow_map_keys_by_id_and_generation() {
    let mut m = FlowMap::default();
    let (a, a2, b) = (FlowId::new(3, 0), FlowId::new(3, 1), FlowId::new(0, 0));
    assert_eq!(m.insert(a, "a"), None);
    assert_eq!(m.insert(b, "b"), None);
    assert_eq!((m.get(a), m.get(b), m.get(a2)), (Some(&"a"), Some(&"b"), None));
    assert_eq!(m.insert(a, "a'"), Some("a"), "the same flow again");
    assert_eq!(m.remove(a2), None, "another generation removes nothing");
    assert_eq!(m.get(a), Some(&"a'"));
    *m.get_mut(b).unwrap() = "b'";
    assert_eq!(m.remove(b), Some("b'"));
    assert_eq!(m.get(b), None);
    // A newer flow of the slot replaces what a missed removal left behind.
    assert_eq!(m.insert(a2, "c"), None);
    assert_eq!((m.get(a), m.get(a2)), (None, Some(&"c")));
    assert_eq!(m.get(FlowId::new(99, 0)), None, "past the end");
}

// A lookup with the id the forward returned finds that entry; with another flow's id, a stale
// one or none it finds the segment's own entry, as the plain lookup does.
#[test]
fn lookup_with_the_forwarded_id() {
    let (mut t, id) = one_flow(Some(7), Some(7));
    let other_client = (CLIENT.0, CLIENT.1 + 1);
    let other = t.observe(&Seg::tcp(other_client, SERVER, tcp_flags::ACK), ms(100)).unwrap();
    let ack = Seg::ack_from_client(100);
    for seen in [Some(id), Some(other), Some(FlowId::new(7, 3)), None] {
        assert_eq!(t.lookup_segment_seen(&ack, seen).map(|e| e.id), Some(id), "{seen:?}");
    }
    let theirs = Seg::tcp(SERVER, other_client, tcp_flags::ACK);
    assert_eq!(t.lookup_segment_seen(&theirs, Some(id)).map(|e| e.id), Some(other));
    let stranger = Seg::tcp((CLIENT.0, 9), SERVER, tcp_flags::ACK);
    assert!(t.lookup_segment_seen(&stranger, Some(id)).is_none());
}

// The forward's hint: the right id, another flow's, a stale one or none all record the segment
// in its own entry (two tables fed the same segments with different hints stay equal).
#[test]
fn observe_with_any_hint_records_the_same() {
    let (mut plain, id) = one_flow(Some(7), Some(7));
    let other_client = (CLIENT.0, CLIENT.1 + 1);
    let other = plain.observe(&Seg::tcp(other_client, SERVER, tcp_flags::SYN), ms(70)).unwrap();
    let segs = [Seg::ack_from_client(100), Seg::tcp(SERVER, other_client, tcp_flags::SYN | tcp_flags::ACK), Seg::tcp(SERVER, CLIENT, tcp_flags::ACK)];
    for hint in [Some(id), Some(other), Some(FlowId::new(9, 4)), None] {
        let mut t = plain.clone();
        let mut reference = plain.clone();
        for (k, seg) in segs.iter().enumerate() {
            let now = ms(100 + k as u64);
            assert_eq!(t.observe_hinted(seg, now, hint), reference.observe(seg, now), "{hint:?} {k}");
        }
        for f in [id, other] {
            assert_eq!(t.get(f), reference.get(f), "{hint:?}");
        }
    }
    assert_eq!(plain.observe(&segs[0], ms(200)), Some(id));
}

// tests `FlowEntry::side_of` (read from the key and which end initiated): the initiator and
// the responder whichever end of the key the initiator is (CLIENT, 10.0.0.1, is the low end;
// SERVER, 10.0.1.2, the high end), and no side for an endpoint of neither.
#[test]
fn sides_whichever_end_of_the_key_initiated() {
    for (init, resp) in [(CLIENT, SERVER), (SERVER, CLIENT)] {
        let mut t = table();
        let id = t.observe(&Seg::tcp(init, resp, tcp_flags::SYN), ms(0)).unwrap();
        let e = t.get(id).unwrap();
        assert_eq!(e.initiator(), Endpoint { addr: init.0, port: init.1 });
        assert_eq!(e.side_of(init.0, init.1), Some(Side::Initiator));
        assert_eq!(e.side_of(resp.0, resp.1), Some(Side::Responder));
        assert_eq!(e.side_of(init.0, resp.1), None);
        assert_eq!(e.side_of(resp.0, init.1), None);
        // The responder's segment counts on its side.
        t.observe(&Seg::tcp(resp, init, tcp_flags::SYN | tcp_flags::ACK), ms(1));
        let e = t.get(id).unwrap();
        assert_eq!((e.end(Side::Initiator).packets, e.end(Side::Responder).packets), (1, 1));
    }
}

// The recency order through interleaved traffic: three flows up at 0 ms (their handshakes' last
// packets at 60 ms), then packets from flows 0, 1, 2, 0 at 1, 2, 3, 4 s. Flows 1 and 2 go
// 10 s after their last packet (12 s, 13 s), in that order, not a nanosecond before; flow 0 at
// 14 s. The "recent" count walks back from the latest; the least recent idle flow is the one
// evicted when the table is full.
#[test]
fn interleaved_flows_expire_and_count_in_recency_order() {
    let client = |i: u16| (CLIENT.0, 30_000 + i);
    let mut t = FlowTable::new(FlowTableConfig { capacity: 3, ..FlowTableConfig::default() });
    let ids: Vec<FlowId> = (0..3).map(|i| handshake(&mut t, client(i), Some(7), Some(7), Time::ZERO)).collect();
    for (k, i) in [0u16, 1, 2, 0].into_iter().enumerate() {
        t.observe(&Seg::ack_from_client(100).clone_with_src(client(i)), ms(1000 * (k as u64 + 1)));
    }
    // At 4.5 s: flow 0 (4 s) is within 1 s, flow 2 (3 s) is not.
    assert_eq!(t.count(FlowCount::Recent, ms(4500), None), 1);
    assert_eq!(t.count(FlowCount::Recent, ms(4000), None), 2, "3 s is exactly 1 s back");
    let mut full = t.clone();
    let syn = Seg { opts: syn_opts(Some(7)), ..Seg::tcp((CLIENT.0, 40_001), SERVER, tcp_flags::SYN) };
    assert!(full.observe(&syn, ms(5000)).is_some());
    assert_eq!((full.get(ids[1]).is_none(), full.get(ids[0]).is_some(), full.get(ids[2]).is_some()), (true, true, true), "flow 1 was the least recent");
    let mut ev = Vec::new();
    t.take_events(&mut ev);
    ev.clear();
    t.expire(Time(ms(12_000).0 - 1));
    assert!(ids.iter().all(|&id| t.get(id).is_some()));
    t.expire(ms(13_000));
    t.take_events(&mut ev);
    let gone = |id| FlowEvent::Removed { id, reason: RemoveReason::Idle, registered: true };
    assert_eq!(ev, [gone(ids[1]), gone(ids[2])]);
    t.expire(Time(ms(14_000).0 - 1));
    assert!(t.get(ids[0]).is_some());
    t.expire(ms(14_000));
    assert!(t.is_empty());
}

/// The slots of `list` from head to tail (the recency order expiry and eviction follow).
fn list_order(t: &FlowTable, list: usize) -> Vec<u32> {
    let mut out = Vec::new();
    let mut n = t.links[list].next;
    while n >= LISTS {
        out.push(n - LISTS);
        n = t.links[n as usize].next;
    }
    out
}

// The forward's fast path for established flows (`observe_established`) records a segment
// exactly as the general path does: under each ongoing-RTT mode, a table fed with the right
// hints and one fed without any stay equal — entries, list order, events — through data, pure
// ACKs, segments without ACK, timestamps, FINs, a RST, a reused tuple, idle expiry and mid-stream
// pickups.
#[test]
fn hinted_fast_path_records_as_the_general_path() {
    let clients: Vec<(u32, u16)> = (0..4).map(|i| (CLIENT.0 + i, CLIENT.1 + i as u16)).collect();
    for mode in [OngoingRtt::On, OngoingRtt::WithoutHandshake, OngoingRtt::Off] {
        let (mut hinted, mut plain) = (table(), table());
        hinted.set_ongoing_rtt(mode);
        plain.set_ongoing_rtt(mode);
        let mut hints: Vec<Option<FlowId>> = clients.iter().map(|&c| Some(handshake(&mut hinted, c, Some(7), Some(9), Time::ZERO))).collect();
        for &c in &clients {
            handshake(&mut plain, c, Some(7), Some(9), Time::ZERO);
        }
        let mut seq = [[1000u32; 2]; 4];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut now = ms(60);
        let mut fast = 0;
        for step in 0..4000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Flow 3 is picked rarely, so it idles past the timeout now and then.
            let k = match x % 16 {
                0 => 3,
                r => (r % 3) as usize,
            };
            let (c, from_client) = (clients[k], (x >> 8) & 1 == 0);
            now = now + Dur((x >> 16) % 400_000_000);
            let (src, dst) = if from_client { (c, SERVER) } else { (SERVER, c) };
            let d = from_client as usize;
            let mut flags = tcp_flags::ACK;
            let roll = (x >> 40) % 200;
            let mut opts = TcpOptionsView::default();
            match roll {
                0 => flags |= tcp_flags::FIN,
                1 if step % 7 == 0 => flags = tcp_flags::RST,
                2 => {
                    flags = if from_client { tcp_flags::SYN } else { tcp_flags::SYN | tcp_flags::ACK };
                    opts = syn_opts(Some(7));
                }
                // A segment without ACK (not valid TCP past the handshake, but seen all the same).
                3..=5 => flags = 0,
                6..=60 => opts.timestamps = Some((step as u32, step as u32 - 1)),
                _ => {}
            }
            let payload = if (x >> 50) & 1 == 0 { 1448 } else { 0 };
            let s = Seg { seq: seq[k][d], ack: seq[k][1 - d], payload, opts, dscp: (x >> 56) as u8 & 63, ..Seg::tcp(src, dst, flags) };
            seq[k][d] = seq[k][d].wrapping_add(payload);
            let was = hinted.clone();
            let got = hinted.observe_hinted(&s, now, hints[k]);
            let mut probe = was;
            fast += probe.observe_established(&s, now, hints[k].unwrap_or(VACANT)) as u32;
            assert_eq!(got, plain.observe(&s, now), "{mode:?} step {step}");
            hints[k] = got;
            assert_eq!(hinted.iter().collect::<Vec<_>>(), plain.iter().collect::<Vec<_>>(), "{mode:?} step {step}");
            for list in [CLOSED, HALF_OPEN, OPEN] {
                assert_eq!(list_order(&hinted, list), list_order(&plain, list), "{mode:?} step {step} list {list}");
            }
            let (mut a, mut b) = (Vec::new(), Vec::new());
            hinted.take_events(&mut a);
            plain.take_events(&mut b);
            assert_eq!(a, b, "{mode:?} step {step}");
        }
        // The fast path did run (always but under `On`, which samples RTTs at every segment).
        assert_eq!(fast > 400, mode != OngoingRtt::On, "{mode:?}: {fast} segments on the fast path");
    }
}
