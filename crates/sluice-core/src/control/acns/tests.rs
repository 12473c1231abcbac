use super::*;
use crate::control::testutil::{Seg, CLIENT, SERVER};
use crate::packet::checksum::checksum;
use crate::packet::signal::set_tcp_reserved_bit;
use crate::packet::{proto, HeaderView, RawPacket};
use proptest::prelude::*;

fn secs(s: u64) -> Time {
    Time(s * 1_000_000_000)
}

/// A queue of 50 packets holding `packets`.
fn queue(packets: u32) -> QueueReading {
    QueueReading { bytes: packets as u64 * 1040, packets, limit: QueueLimit::Packets(50) }
}

/// The weight inputs of the hand-checked example: `p_max = 46`, `f_max = 60 s`, `A(q) = a`.
fn inputs(a: f64, p_i: u8, age_s: u64) -> WeightInputs {
    WeightInputs { usage: a, p_i, p_max: 46, f_i: Dur::from_secs(age_s), f_max: Dur::from_secs(60) }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 5e-4
}

// The hand-checked weights of flows A (DSCP 46, 30 s old), B (DSCP 26, 45 s), C (DSCP 0, 60 s)
// with p_max = 46, f_max = 60 s, eps = 0.01, v_p = 0.8, v_a = 0.2.
// Default (corrected, intent), A(q) = 0.5:
//   A: F = 0.8·46/46 = 0.8, T = 0.2·(1 − 30/60) = 0.1, W = 0.5/0.9 = 0.5556 → 1
//   B: F = 0.8·26/46 = 0.45217, T = 0.2·(1 − 45/60) = 0.05, W = 0.5/0.50217 = 0.99567 → 2
//   C: F = 0, T = 0.2·(1 − 1) = 0, guard: W = 0.5/0.01 = 50 → 3
// age = "printed", A(q) = 0.5: A T = 0.2·0.5 = 0.1, W 0.5556 → 1; B T = 0.15, W = 0.5/0.60217
//   = 0.8303 → 1; C T = 0.2, W = 2.5 → 3; at A(q) = 0.6, B: 0.6/0.60217 = 0.99640 → 2.
// weight = "literal" (printed age), A(q) = 0.5: A F = 0.8·46/46 = 0.8, W 0.5556; B F =
//   0.8·46/26 = 1.41538, + 0.15 = 1.56538, W = 0.31941; C p_i = 0: W = 0 (never commanded).
#[test]
fn weights_and_commands_of_the_worked_example() {
    let d = AcnsConfig::default();
    let cases = [(46u8, 30u64, 0.5556, Command::Normal), (26, 45, 0.99567, Command::Freeze), (0, 60, 50.0, Command::Fallback)];
    for (p, age, want, c) in cases {
        let w = weight(&d, inputs(0.5, p, age));
        assert!(close(w, want), "default DSCP {p}: {w}");
        assert_eq!(command(&d, w), c, "default DSCP {p}");
    }
    let printed = AcnsConfig { age: AcnsAge::Printed, ..d.clone() };
    for (p, age, want, c) in [(46u8, 30u64, 0.5556, Command::Normal), (26, 45, 0.8303, Command::Normal), (0, 60, 2.5, Command::Fallback)] {
        let w = weight(&printed, inputs(0.5, p, age));
        assert!(close(w, want), "printed DSCP {p}: {w}");
        assert_eq!(command(&printed, w), c, "printed DSCP {p}");
    }
    let w = weight(&printed, inputs(0.6, 26, 45));
    assert!(close(w, 0.99640) && command(&printed, w) == Command::Freeze, "{w}");
    let literal = AcnsConfig { weight: AcnsWeight::Literal, ..printed };
    for (p, age, want) in [(46u8, 30u64, 0.5556), (26, 45, 0.31941), (0, 60, 0.0)] {
        let w = weight(&literal, inputs(0.5, p, age));
        assert!(close(w, want), "literal DSCP {p}: {w}");
    }
    assert_eq!(weight(&literal, inputs(1.0, 0, 60)), 0.0, "a DSCP-0 flow is never commanded under the literal weight");
}

// The guard, the thresholds' boundaries and the degenerate scales: with every priority 0 the
// corrected F is 0 (only age counts); W exactly th_A1 freezes, exactly th_A2 falls back; an
// empty queue never commands; f_max = 0 (every flow started now) counts f_i/f_max as 1.
#[test]
fn boundaries_and_degenerate_scales() {
    let d = AcnsConfig::default();
    assert_eq!(command(&d, 0.9499), Command::Normal);
    assert_eq!(command(&d, 0.95), Command::Freeze);
    assert_eq!(command(&d, 0.9999), Command::Freeze);
    assert_eq!(command(&d, 1.0), Command::Fallback);
    // All DSCP 0: F = 0; the newest flow (age 0 of 60 s) has T = 0.2, W = 0.5/0.2 = 2.5.
    let x = WeightInputs { usage: 0.5, p_i: 0, p_max: 0, f_i: Dur::ZERO, f_max: Dur::from_secs(60) };
    assert!(close(weight(&d, x), 2.5));
    // Empty queue: 0 whatever the divisor.
    assert_eq!(weight(&d, WeightInputs { usage: 0.0, ..x }), 0.0);
    // f_max = 0: ratio 1, intent T = 0, F = 0.8·10/10: W = 0.5/0.8 = 0.625.
    let y = WeightInputs { usage: 0.5, p_i: 10, p_max: 10, f_i: Dur::ZERO, f_max: Dur::ZERO };
    assert!(close(weight(&d, y), 0.625));
    // eps = 1: every flow gets W = A(q) (F + T ≤ 1).
    let one = AcnsConfig { eps: 1.0, ..d.clone() };
    for (p, age) in [(46u8, 30u64), (26, 45), (0, 60)] {
        assert!(close(weight(&one, inputs(0.7, p, age)), 0.7));
    }
    assert_eq!(usage(queue(25)), 0.5);
    assert_eq!(usage(QueueReading { bytes: 30_000, packets: 3, limit: QueueLimit::Bytes(60_000) }), 0.5);
    assert_eq!(usage(queue(60)), 1.0, "at most 1");
}

// Severity only rises: I4/I5 become I6 on a freeze and I7 on a fallback; I6 becomes I7 on a
// fallback and stays I6 otherwise; normal leaves everything.
#[test]
fn rewrites_only_raise_severity() {
    use AcnsIp::*;
    for code in [I4, I5] {
        assert_eq!(rewrite(code, Command::Normal), None);
        assert_eq!(rewrite(code, Command::Freeze), Some(I6));
        assert_eq!(rewrite(code, Command::Fallback), Some(I7));
    }
    assert_eq!(rewrite(I6, Command::Normal), None);
    assert_eq!(rewrite(I6, Command::Freeze), None);
    assert_eq!(rewrite(I6, Command::Fallback), Some(I7));
    for code in [I1, I2, I3, I7] {
        for c in [Command::Normal, Command::Freeze, Command::Fallback] {
            assert_eq!(rewrite(code, c), None);
        }
    }
}

// Bad input names the field and what is allowed.
#[test]
fn validate_names_the_field() {
    let d = AcnsConfig::default();
    assert!(d.validate().is_ok());
    let e = AcnsConfig { v_p: 0.7, ..d.clone() }.validate().unwrap_err();
    assert_eq!((e.field, e.message.as_str()), ("v_p", "v_p + v_a must be 1, got 0.9"));
    let e = AcnsConfig { v_a: 0.3, ..d.clone() }.validate().unwrap_err();
    assert_eq!((e.field, e.message.as_str()), ("v_p", "v_p + v_a must be 1, got 1.1"));
    assert_eq!(AcnsConfig { v_p: 1.2, v_a: -0.2, ..d.clone() }.validate().unwrap_err().field, "v_p");
    assert_eq!(AcnsConfig { v_p: 0.0, v_a: 1.0, ..d.clone() }.validate(), Ok(()));
    let e = AcnsConfig { th_a2: 0.9, ..d.clone() }.validate().unwrap_err();
    assert_eq!((e.field, e.message.as_str()), ("th_a2", "must be at least th_a1 (0.95), got 0.9"));
    assert_eq!(AcnsConfig { th_a1: 0.0, ..d.clone() }.validate().unwrap_err().field, "th_a1");
    assert_eq!(AcnsConfig { th_a1: f64::NAN, ..d.clone() }.validate().unwrap_err().field, "th_a1");
    let e = AcnsConfig { eps: 0.0, ..d.clone() }.validate().unwrap_err();
    assert_eq!((e.field, e.message.as_str()), ("eps", "must be in (0, 1], got 0"));
    assert_eq!(AcnsConfig { eps: 1.5, ..d.clone() }.validate().unwrap_err().field, "eps");
    let e = AcnsConfig { cmt_mask: 1, ..d.clone() }.validate().unwrap_err();
    assert_eq!(e.field, "cmt_mask");
    assert!(e.message.contains("0x08"), "{}", e.message);
    // The TOML/JSON forms.
    let c: AcnsConfig = serde_json::from_str(r#"{"p_max": 63, "age": "printed", "weight": "literal", "eps": 0.05}"#).unwrap();
    assert_eq!((c.p_max, c.age, c.weight, c.eps), (AcnsPMax::Fixed, AcnsAge::Printed, AcnsWeight::Literal, 0.05));
    assert_eq!(serde_json::to_value(&c).unwrap()["p_max"], 63);
    assert_eq!(serde_json::to_value(AcnsConfig::default()).unwrap()["p_max"], "active");
    for bad in [r#"{"p_max": 46}"#, r#"{"p_max": "max"}"#] {
        let e = serde_json::from_str::<AcnsConfig>(bad).unwrap_err().to_string();
        assert!(e.contains(r#"expected "active" or 63"#), "{e}");
    }
    let e = serde_json::from_str::<AcnsConfig>(r#"{"age": "old"}"#).unwrap_err().to_string();
    assert!(e.contains("unknown variant `old`") && e.contains("intent"), "{e}");
    let e = serde_json::from_str::<AcnsConfig>(r#"{"th_l1": 1.8}"#).unwrap_err().to_string();
    assert!(e.contains("unknown field `th_l1`"), "{e}");
}

/// The bytes of a TCP segment from `src` to `dst` carrying `code`, DSCP `dscp`, `payload` bytes
/// and CMT (mask 0x08) when `cmt`; checksums valid.
fn tcp(src: (u32, u16), dst: (u32, u16), flags: u8, dscp: u8, payload: u32, code: AcnsIp, cmt: bool) -> Vec<u8> {
    let mut b = Seg { dscp, payload, ..Seg::tcp(src, dst, flags) }.bytes();
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    code.write(&mut p).unwrap();
    set_tcp_reserved_bit(&mut p, CmtMask::DEFAULT, cmt).unwrap();
    b
}

/// Client `port`'s ACNS handshake at `at` (SYN: ECE + CWR + CMT; SYN-ACK: ECE + CMT), both
/// with DSCP `dscp` (as the flow's every packet), then one data segment (I2: seen, not asking)
/// and a pure ACK back (Not-ECT: not seen).
fn acns_flow(r: &mut Acns, port: u16, dscp: u8, at: Time) -> FlowId {
    let c = (CLIENT.0, port);
    let ece_cwr = tcp_flags::ECE | tcp_flags::CWR;
    let mut syn = tcp(c, SERVER, tcp_flags::SYN | ece_cwr, dscp, 0, AcnsIp::I1, true);
    let (id, o) = r.on_enqueue(&mut RawPacket::new_checked(&mut syn).unwrap(), None, queue(0), at);
    assert_eq!(o, AcnsOutcome::NotAsked);
    let mut synack = tcp(SERVER, c, tcp_flags::SYN | tcp_flags::ACK | tcp_flags::ECE, dscp, 0, AcnsIp::I1, true);
    assert_eq!(r.on_enqueue(&mut RawPacket::new_checked(&mut synack).unwrap(), None, queue(0), at).0, id);
    let mut data = tcp(c, SERVER, tcp_flags::ACK, dscp, 1000, AcnsIp::I2, false);
    assert_eq!(r.on_enqueue(&mut RawPacket::new_checked(&mut data).unwrap(), id, queue(0), at), (id, AcnsOutcome::NotAsked));
    let mut ack = tcp(SERVER, c, tcp_flags::ACK, dscp, 0, AcnsIp::I1, false);
    assert_eq!(r.on_enqueue(&mut RawPacket::new_checked(&mut ack).unwrap(), id, queue(0), at), (None, AcnsOutcome::NotAsked));
    let id = id.unwrap();
    assert!(r.is_acns(id));
    id
}

/// Client `port` sends a data segment with `code` into a queue of 50 holding `queued`.
fn ask(r: &mut Acns, port: u16, dscp: u8, code: AcnsIp, queued: u32, at: Time) -> (AcnsOutcome, Vec<u8>) {
    let mut b = tcp((CLIENT.0, port), SERVER, tcp_flags::ACK, dscp, 1000, code, false);
    let out = r.on_enqueue(&mut RawPacket::new_checked(&mut b).unwrap(), None, queue(queued), at).1;
    let p = RawPacket::new_checked(&mut b).unwrap();
    assert!(p.ip_checksum_ok() && p.tcp_checksum_ok() == Some(true));
    (out, b)
}

fn code_of(b: &mut [u8]) -> Option<AcnsIp> {
    AcnsIp::of(&RawPacket::new_checked(b).unwrap())
}

fn table() -> FlowTableConfig {
    FlowTableConfig { idle_timeout: Dur::from_secs(1000), ..FlowTableConfig::default() }
}

// The worked example through the router: flows C (DSCP 0) from 0 s, B (26) from 15 s, A (46)
// from 30 s, all ACNS; at 60 s each sends an I4 segment into a 50-packet queue holding 25
// (A(q) = 0.5, before the packet): A stays I4 (W 0.556), B becomes I6 (0.9957), C becomes I7
// (W 50). p_max = 46 and f_max = 60 s come from the table.
#[test]
fn the_router_commands_the_worked_example() {
    let mut r = Acns::new(AcnsConfig::default(), table());
    acns_flow(&mut r, 40_000, 0, secs(0));
    acns_flow(&mut r, 40_001, 26, secs(15));
    acns_flow(&mut r, 40_002, 46, secs(30));
    let at = secs(60);
    let cases = [(40_002u16, 46u8, 0.5556, Command::Normal, None), (40_001, 26, 0.99567, Command::Freeze, Some(AcnsIp::I6)), (40_000, 0, 50.0, Command::Fallback, Some(AcnsIp::I7))];
    for (port, dscp, want, c, wrote) in cases {
        let (out, mut b) = ask(&mut r, port, dscp, AcnsIp::I4, 25, at);
        let AcnsOutcome::Evaluated { weight, command, wrote: w } = out else { panic!("{out:?}") };
        assert!(close(weight, want), "port {port}: {weight}");
        assert_eq!((command, w), (c, wrote), "port {port}");
        assert_eq!(code_of(&mut b), Some(wrote.unwrap_or(AcnsIp::I4)));
    }
    // I5 (nonce 1) the same as I4.
    assert_eq!(code_of(&mut ask(&mut r, 40_001, 26, AcnsIp::I5, 25, at).1), Some(AcnsIp::I6));
    // An I6 from upstream: raised to I7 for C, kept for B (freeze) and A (normal: never lowered).
    assert_eq!(code_of(&mut ask(&mut r, 40_000, 0, AcnsIp::I6, 25, at).1), Some(AcnsIp::I7));
    assert_eq!(code_of(&mut ask(&mut r, 40_001, 26, AcnsIp::I6, 25, at).1), Some(AcnsIp::I6));
    let (out, mut b) = ask(&mut r, 40_002, 46, AcnsIp::I6, 25, at);
    assert!(matches!(out, AcnsOutcome::Evaluated { command: Command::Normal, wrote: None, .. }), "{out:?}");
    assert_eq!(code_of(&mut b), Some(AcnsIp::I6));
    // CMI clear (I2, I3, I7; I1): not evaluated, untouched, even for C at a full queue.
    for code in [AcnsIp::I1, AcnsIp::I2, AcnsIp::I3, AcnsIp::I7] {
        let before = tcp((CLIENT.0, 40_000), SERVER, tcp_flags::ACK, 0, 1000, code, false);
        let (out, b) = ask(&mut r, 40_000, 0, code, 50, at);
        assert_eq!((out, b), (AcnsOutcome::NotAsked, before), "{code:?}");
    }
    // 1 + 1 + 1 (I4) + 1 (I5) + 3 (I6) evaluated; freezes: B's I4 and I5; fallbacks: C's I4, I6.
    assert_eq!(r.stats, AcnsStats { evaluated: 7, freezes: 2, fallbacks: 2, skipped: 0 });
}

// p_max: "active" follows the table. With A reset (RST), B is the highest priority left:
// F = 0.8·26/26 = 0.8, T = 0.2·(1 − 45/60) = 0.05, W = 0.5/0.85 = 0.588 → normal. With
// p_max = 63 (A still there): B F = 0.8·26/63 = 0.33016, + 0.05 = 0.38016, W = 0.5/0.38016
// = 1.3152 → fallback; A F = 0.8·46/63 = 0.58413, + 0.1, W = 0.5/0.68413 = 0.73086.
#[test]
fn p_max_follows_the_active_flows_or_is_fixed() {
    for fixed in [false, true] {
        let cfg = AcnsConfig { p_max: if fixed { AcnsPMax::Fixed } else { AcnsPMax::Active }, ..AcnsConfig::default() };
        let mut r = Acns::new(cfg, table());
        acns_flow(&mut r, 40_000, 0, secs(0));
        acns_flow(&mut r, 40_001, 26, secs(15));
        acns_flow(&mut r, 40_002, 46, secs(30));
        let w = |o: AcnsOutcome| match o {
            AcnsOutcome::Evaluated { weight, .. } => weight,
            _ => panic!("{o:?}"),
        };
        if fixed {
            assert!(close(w(ask(&mut r, 40_001, 26, AcnsIp::I4, 25, secs(60)).0), 1.3152));
            assert!(close(w(ask(&mut r, 40_002, 46, AcnsIp::I4, 25, secs(60)).0), 0.73086));
        } else {
            let mut rst = tcp((CLIENT.0, 40_002), SERVER, tcp_flags::RST, 46, 0, AcnsIp::I1, false);
            r.on_enqueue(&mut RawPacket::new_checked(&mut rst).unwrap(), None, queue(0), secs(59));
            assert!(close(w(ask(&mut r, 40_001, 26, AcnsIp::I4, 25, secs(60)).0), 0.5882));
        }
    }
}

// Only flows that negotiated ACNS count for p_max and f_max: a SYN without CMT, and an ACNS
// SYN answered by a plain ECN SYN-ACK (ECE, no CMT), make no ACNS flow, so a DSCP-63 flow D
// of either kind, and an older one, leave B's weight as in the worked example (0.9957). A
// flow's DSCP comes from its SYN and its packets asking for a command, not from other data.
#[test]
fn only_acns_flows_set_the_scales() {
    let mut r = Acns::new(AcnsConfig::default(), table());
    let ece_cwr = tcp_flags::ECE | tcp_flags::CWR;
    // D1 at -: a plain RFC 3168 SYN (no CMT), before everything else.
    let d1 = (CLIENT.0, 41_000);
    let mut syn = tcp(d1, SERVER, tcp_flags::SYN | ece_cwr, 63, 0, AcnsIp::I1, false);
    let (id1, _) = r.on_enqueue(&mut RawPacket::new_checked(&mut syn).unwrap(), None, queue(0), secs(0));
    let mut data = tcp(d1, SERVER, tcp_flags::ACK, 63, 1000, AcnsIp::I2, false);
    r.on_enqueue(&mut RawPacket::new_checked(&mut data).unwrap(), None, queue(0), secs(0));
    acns_flow(&mut r, 40_000, 0, secs(0));
    acns_flow(&mut r, 40_001, 26, secs(15));
    acns_flow(&mut r, 40_002, 46, secs(30));
    // D2: an ACNS SYN answered without CMT.
    let d2 = (CLIENT.0, 41_001);
    let mut syn = tcp(d2, SERVER, tcp_flags::SYN | ece_cwr, 63, 0, AcnsIp::I1, true);
    let (id2, _) = r.on_enqueue(&mut RawPacket::new_checked(&mut syn).unwrap(), None, queue(0), secs(40));
    assert!(r.is_acns(id2.unwrap()));
    let mut synack = tcp(SERVER, d2, tcp_flags::SYN | tcp_flags::ACK | tcp_flags::ECE, 0, 0, AcnsIp::I1, false);
    r.on_enqueue(&mut RawPacket::new_checked(&mut synack).unwrap(), None, queue(0), secs(40));
    let mut data = tcp(d2, SERVER, tcp_flags::ACK, 63, 1000, AcnsIp::I2, false);
    r.on_enqueue(&mut RawPacket::new_checked(&mut data).unwrap(), None, queue(0), secs(40));
    assert!(!r.is_acns(id1.unwrap()) && !r.is_acns(id2.unwrap()));
    let (out, _) = ask(&mut r, 40_001, 26, AcnsIp::I4, 25, secs(60));
    assert!(matches!(out, AcnsOutcome::Evaluated { weight, command: Command::Freeze, .. } if close(weight, 0.99567)), "{out:?}");
    // C's plain data at DSCP 63 (I2) keeps it alive but gives no DSCP; its next request at
    // DSCP 10 does: p_max stays 46.
    let mut data = tcp((CLIENT.0, 40_000), SERVER, tcp_flags::ACK, 63, 1000, AcnsIp::I2, false);
    r.on_enqueue(&mut RawPacket::new_checked(&mut data).unwrap(), None, queue(0), secs(60));
    ask(&mut r, 40_000, 10, AcnsIp::I4, 0, secs(60));
    let (out, _) = ask(&mut r, 40_001, 26, AcnsIp::I4, 25, secs(60));
    assert!(matches!(out, AcnsOutcome::Evaluated { weight, .. } if close(weight, 0.99567)), "{out:?}");
}

// A flow whose requests all became I7 upstream sends this router only I7 (and I2) data: still
// seen, so it stays in the table past the idle timeout (10 s) with its age; a flow sending
// nothing for 10 s leaves. With idle_timeout 10 s: C from 0 s sends I7 every 5 s, B from 15 s
// falls silent after its handshake (gone at 25 s); at 39 s A (46, from 30 s) asks at A(q) =
// 0.5: f_max = 39 s (C), p_max = 46, F = 0.8, T = 0.2·(1 − 9/39) = 0.15385, W = 0.5/0.95385 =
// 0.52419.
#[test]
fn ect_data_keeps_a_flow_alive() {
    let mut r = Acns::new(AcnsConfig::default(), FlowTableConfig::default());
    let c = acns_flow(&mut r, 40_000, 0, secs(0));
    let mut b = None;
    for t in (5..=35).step_by(5) {
        let (out, _) = ask(&mut r, 40_000, 0, AcnsIp::I7, 25, secs(t));
        assert_eq!(out, AcnsOutcome::NotAsked);
        match t {
            15 => b = Some(acns_flow(&mut r, 40_001, 26, secs(15))),
            30 => drop(acns_flow(&mut r, 40_002, 46, secs(30))),
            _ => {}
        }
    }
    let b = b.unwrap();
    assert!(r.flows.get(c).is_some(), "C kept");
    assert!(r.flows.get(b).is_none(), "B gone: {:?}", r.flows.get(b));
    let (out, _) = ask(&mut r, 40_002, 46, AcnsIp::I4, 25, secs(39));
    assert!(matches!(out, AcnsOutcome::Evaluated { weight, .. } if close(weight, 0.52419)), "{out:?}");
}

// With its flow hinted, a plain I2 data segment seen less than REFRESH (1 s) after the entry's
// last update leaves the table alone (the same id back); one 1 s later updates `last_seen`; a
// wrong hint (another flow's id) goes to the table, which finds the right entry.
#[test]
fn plain_ect_data_refreshes_at_most_once_a_second() {
    let mut r = Acns::new(AcnsConfig::default(), table());
    let c = acns_flow(&mut r, 40_000, 0, Time(0));
    let b = acns_flow(&mut r, 40_001, 0, Time(0));
    let send = |r: &mut Acns, port: u16, hint: FlowId, at: u64| {
        let mut d = tcp((CLIENT.0, port), SERVER, tcp_flags::ACK, 0, 1000, AcnsIp::I2, false);
        r.on_enqueue(&mut RawPacket::new_checked(&mut d).unwrap(), Some(hint), queue(0), Time(at))
    };
    assert_eq!(send(&mut r, 40_000, c, 999_999_999), (Some(c), AcnsOutcome::NotAsked));
    assert_eq!(r.flows.get(c).unwrap().last_seen, Time(0));
    assert_eq!(send(&mut r, 40_000, c, 1_000_000_000), (Some(c), AcnsOutcome::NotAsked));
    assert_eq!(r.flows.get(c).unwrap().last_seen, Time(1_000_000_000));
    assert_eq!(send(&mut r, 40_001, c, 1_000_000_001), (Some(b), AcnsOutcome::NotAsked));
    assert_eq!(r.flows.get(b).unwrap().last_seen, Time(1_000_000_001));
}

// A CMI packet of a flow the table cannot hold (capacity 1, taken by a flow picked up
// mid-stream, active this instant) is counted as skipped and left; a non-TCP packet with CMI
// is never touched.
#[test]
fn untracked_and_non_tcp_packets_are_left() {
    let mut r = Acns::new(AcnsConfig::default(), FlowTableConfig { capacity: 1, ..table() });
    let (o, _) = ask(&mut r, 40_000, 0, AcnsIp::I4, 0, secs(0));
    assert!(matches!(o, AcnsOutcome::Evaluated { command: Command::Normal, .. }), "{o:?}");
    let (out, mut b) = ask(&mut r, 40_001, 0, AcnsIp::I4, 50, secs(0));
    assert_eq!(out, AcnsOutcome::Untracked);
    assert_eq!(code_of(&mut b), Some(AcnsIp::I4));
    assert_eq!(r.stats.skipped, 1);
    let mut u = udp_with(AcnsIp::I4, 0);
    let before = u.clone();
    assert_eq!(r.on_enqueue(&mut RawPacket::new_checked(&mut u).unwrap(), None, queue(50), secs(1)).1, AcnsOutcome::NotAsked);
    assert_eq!(u, before);
}

/// A UDP datagram whose IPv4 header carries `code` (checksum fixed).
fn udp_with(code: AcnsIp, dscp: u8) -> Vec<u8> {
    let mut b = Seg { proto: proto::UDP, payload: 100, dscp, ..Seg::tcp(CLIENT, SERVER, 0) }.bytes();
    let (ecn, cmi) = code.bits();
    b[1] = (dscp << 2) | ecn as u8;
    if cmi {
        b[6] |= 0x80;
    }
    b[10] = 0;
    b[11] = 0;
    let c = checksum(&b[..20], 0);
    b[10..12].copy_from_slice(&c.to_be_bytes());
    b
}

/// Rank of severity of a code asking or carrying a command.
fn severity(c: Option<AcnsIp>) -> u8 {
    match c {
        Some(AcnsIp::I6) => 1,
        Some(AcnsIp::I7) => 2,
        _ => 0,
    }
}

fn code_strategy() -> impl Strategy<Value = AcnsIp> {
    (0usize..7).prop_map(|k| AcnsIp::ALL[k])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    // Any sequence of packets from a few flows (ACNS handshakes or not, data with any code and
    // DSCP, UDP with any code) at any queue level and time, under any weight options: both
    // checksums verify after each packet; non-TCP packets and TCP packets with CMI clear are
    // byte-identical; severity never falls (I6 never lowered, I7 never touched); only the ECN
    // bits, the reserved flag and the IP checksum change; the code written is what the outcome
    // says.
    #[test]
    fn the_router_keeps_packets_valid_and_never_lowers(
        literal in any::<bool>(), printed in any::<bool>(), fixed in any::<bool>(), eps in 0.001f64..1.0,
        pkts in proptest::collection::vec((0u16..4, 0u8..4, code_strategy(), 0u8..64, 0u32..=60, 0u64..100), 1..60),
    ) {
        let cfg = AcnsConfig {
            weight: if literal { AcnsWeight::Literal } else { AcnsWeight::Corrected },
            age: if printed { AcnsAge::Printed } else { AcnsAge::Intent },
            p_max: if fixed { AcnsPMax::Fixed } else { AcnsPMax::Active },
            eps,
            ..AcnsConfig::default()
        };
        let mut r = Acns::new(cfg, table());
        let mut t = 0u64;
        let ece_cwr = tcp_flags::ECE | tcp_flags::CWR;
        for (flow, kind, code, dscp, queued, dt) in pkts {
            t += dt * 100_000_000;
            let port = 40_000 + flow;
            let mut b = match kind {
                0 => tcp((CLIENT.0, port), SERVER, tcp_flags::SYN | ece_cwr, 0, 0, AcnsIp::I1, dscp % 2 == 0),
                1 => udp_with(code, dscp),
                _ => tcp((CLIENT.0, port), SERVER, tcp_flags::ACK, dscp, 1000, code, false),
            };
            let before = b.clone();
            let out = r.on_enqueue(&mut RawPacket::new_checked(&mut b).unwrap(), None, queue(queued), Time(t)).1;
            let p = RawPacket::new_checked(&mut b).unwrap();
            prop_assert!(p.ip_checksum_ok());
            let after = AcnsIp::of(&p);
            let was = AcnsIp::of(&RawPacket::new_checked(&mut before.clone()).unwrap());
            if kind == 1 || !RawPacket::new_checked(&mut before.clone()).unwrap().ip_reserved_flag() {
                prop_assert_eq!(&b, &before);
                prop_assert_eq!(out, AcnsOutcome::NotAsked);
                continue;
            }
            prop_assert_eq!(p.tcp_checksum_ok(), Some(true));
            prop_assert!(severity(after) >= severity(was), "{:?} -> {:?}", was, after);
            for (k, (x, y)) in before.iter().zip(&b).enumerate() {
                if ![1, 6, 10, 11].contains(&k) {
                    prop_assert_eq!(x, y, "byte {}", k);
                }
            }
            prop_assert_eq!(&b[1] >> 2, &before[1] >> 2, "DSCP kept");
            match out {
                AcnsOutcome::Evaluated { wrote: Some(w), .. } => prop_assert_eq!(after, Some(w)),
                _ => prop_assert_eq!(&b, &before),
            }
        }
        prop_assert!(r.stats.freezes + r.stats.fallbacks <= r.stats.evaluated);
    }
}

// A plain flow older than every ACNS flow sets neither scale: a plain ECN SYN at 0 s (DSCP
// 63), then B (DSCP 26) the only ACNS flow, from 30 s; B asks at 60 s at A(q) = 0.5: p_max =
// 26 (its own), f_max = 30 s (its own age), F = 0.8, T = 0.2·(1 − 30/30) = 0, W = 0.5/0.8 =
// 0.625. (Counted in, the plain flow would make f_max 60 s: T = 0.1, W = 0.5556.)
#[test]
fn a_plain_flow_older_than_every_acns_flow_sets_no_scale() {
    let mut r = Acns::new(AcnsConfig::default(), table());
    let plain = (CLIENT.0, 41_000);
    let mut syn = tcp(plain, SERVER, tcp_flags::SYN | tcp_flags::ECE | tcp_flags::CWR, 63, 0, AcnsIp::I1, false);
    r.on_enqueue(&mut RawPacket::new_checked(&mut syn).unwrap(), None, queue(0), secs(0));
    let mut data = tcp(plain, SERVER, tcp_flags::ACK, 63, 1000, AcnsIp::I2, false);
    r.on_enqueue(&mut RawPacket::new_checked(&mut data).unwrap(), None, queue(0), secs(0));
    acns_flow(&mut r, 40_001, 26, secs(30));
    let (out, _) = ask(&mut r, 40_001, 26, AcnsIp::I4, 25, secs(60));
    assert!(matches!(out, AcnsOutcome::Evaluated { weight, command: Command::Normal, .. } if close(weight, 0.625)), "{out:?}");
}

// The literal weight with every priority 0 (p_i = p_max = 0): W = 0, never commanded (its
// F = v_p·p_max/p_i is not taken at 0/0).
#[test]
fn the_literal_weight_of_priority_zero_is_zero_even_when_p_max_is() {
    let lit = AcnsConfig { weight: AcnsWeight::Literal, ..AcnsConfig::default() };
    let x = WeightInputs { usage: 0.5, p_i: 0, p_max: 0, f_i: Dur::from_secs(10), f_max: Dur::from_secs(60) };
    assert_eq!(weight(&lit, x), 0.0);
}

// `p_max` is "active" or 63, anything else refused with what is allowed; the router keeps the
// configuration and the CMT mask it was given.
#[test]
fn p_max_values_and_the_routers_configuration() {
    use serde::de::value::{Error, F64Deserializer, I64Deserializer, StrDeserializer, U64Deserializer};
    use serde::de::IntoDeserializer;
    use serde::Deserialize;
    let d: StrDeserializer<'_, Error> = "active".into_deserializer();
    assert_eq!(AcnsPMax::deserialize(d).unwrap(), AcnsPMax::Active);
    let d: StrDeserializer<'_, Error> = "passive".into_deserializer();
    assert_eq!(AcnsPMax::deserialize(d).unwrap_err().to_string(), "expected \"active\" or 63, got \"passive\"");
    let d: I64Deserializer<Error> = 63i64.into_deserializer();
    assert_eq!(AcnsPMax::deserialize(d).unwrap(), AcnsPMax::Fixed);
    let d: U64Deserializer<Error> = 62u64.into_deserializer();
    assert!(AcnsPMax::deserialize(d).is_err());
    let d: F64Deserializer<Error> = 63.5f64.into_deserializer();
    assert_eq!(AcnsPMax::deserialize(d).unwrap_err().to_string(), "invalid type: floating point `63.5`, expected \"active\" or 63");
    let cfg = AcnsConfig { cmt_mask: 0x04, th_a1: 0.9, ..AcnsConfig::default() };
    assert_eq!(cfg.mask(), CmtMask::new(0x04).unwrap());
    let r = Acns::new(cfg.clone(), table());
    assert_eq!(r.config(), &cfg);
}

// A flow that leaves takes its place in the scales with it, even when they were computed
// before: idle timeout 10 s; C (DSCP 0) from 10 s, silent after; B (26) from 15 s asks at
// 16 s (A(q) = 0.5: f_max = 6 s, C's age; T = 0.2·(1 − 1/6), W = 0.5/0.96667 = 0.51724),
// and again at 21 s, after C's 10 s of silence: only B is left, f_max = its own 6 s, T = 0,
// W = 0.5/0.8 = 0.625. Nothing is kept for C.
#[test]
fn a_flow_that_leaves_leaves_the_scales() {
    let mut r = Acns::new(AcnsConfig::default(), FlowTableConfig { idle_timeout: Dur::from_secs(10), ..table() });
    let c = acns_flow(&mut r, 40_000, 0, secs(10));
    acns_flow(&mut r, 40_001, 26, secs(15));
    let (out, _) = ask(&mut r, 40_001, 26, AcnsIp::I4, 25, secs(16));
    assert!(matches!(out, AcnsOutcome::Evaluated { weight, .. } if close(weight, 0.51724)), "{out:?}");
    let (out, _) = ask(&mut r, 40_001, 26, AcnsIp::I4, 25, secs(21));
    assert!(matches!(out, AcnsOutcome::Evaluated { weight, .. } if close(weight, 0.625)), "{out:?}");
    assert!(!r.is_acns(c) && r.acns_flows.len() == 1 && r.info.get(c).is_none());
}

// The refresh shortcut is for plain data only: with its flow hinted and seen this instant, a
// request (I4) is still evaluated and a FIN still reaches the table.
#[test]
fn a_hinted_request_or_fin_is_never_skipped() {
    let mut r = Acns::new(AcnsConfig::default(), table());
    let b = acns_flow(&mut r, 40_001, 26, secs(15));
    let mut req = tcp((CLIENT.0, 40_001), SERVER, tcp_flags::ACK, 26, 1000, AcnsIp::I4, false);
    let (id, out) = r.on_enqueue(&mut RawPacket::new_checked(&mut req).unwrap(), Some(b), queue(25), secs(15));
    assert_eq!(id, Some(b));
    assert!(matches!(out, AcnsOutcome::Evaluated { .. }), "{out:?}");
    let mut fin = tcp((CLIENT.0, 40_001), SERVER, tcp_flags::FIN | tcp_flags::ACK, 26, 0, AcnsIp::I2, false);
    r.on_enqueue(&mut RawPacket::new_checked(&mut fin).unwrap(), Some(b), queue(0), secs(15));
    assert!(matches!(r.flows.get(b).unwrap().state, crate::flows::FlowState::FinSeen(_)), "{:?}", r.flows.get(b).unwrap().state);
}

// ACNS is negotiated only with ECN's setup and the CMT bit on both sides: a SYN with CMT and
// ECE but not CWR, or an ACNS SYN answered by a SYN-ACK with CMT but not ECE, makes no ACNS
// flow.
#[test]
fn acns_needs_both_ecn_flags_on_the_syn_and_ece_on_the_syn_ack() {
    let mut r = Acns::new(AcnsConfig::default(), table());
    let a = (CLIENT.0, 41_000);
    let mut syn = tcp(a, SERVER, tcp_flags::SYN | tcp_flags::ECE, 10, 0, AcnsIp::I1, true);
    let (ia, _) = r.on_enqueue(&mut RawPacket::new_checked(&mut syn).unwrap(), None, queue(0), secs(0));
    assert!(!r.is_acns(ia.unwrap()), "ECE without CWR");
    let b = (CLIENT.0, 41_001);
    let mut syn = tcp(b, SERVER, tcp_flags::SYN | tcp_flags::ECE | tcp_flags::CWR, 10, 0, AcnsIp::I1, true);
    let (ib, _) = r.on_enqueue(&mut RawPacket::new_checked(&mut syn).unwrap(), None, queue(0), secs(0));
    assert!(r.is_acns(ib.unwrap()));
    let mut synack = tcp(SERVER, b, tcp_flags::SYN | tcp_flags::ACK, 10, 0, AcnsIp::I1, true);
    r.on_enqueue(&mut RawPacket::new_checked(&mut synack).unwrap(), None, queue(0), secs(0));
    assert!(!r.is_acns(ib.unwrap()), "a SYN-ACK with CMT but without ECE");
}

// A flow's DSCP is the one its latest request carries: X (ACNS, SYN at DSCP 0) from 0 s asks
// at DSCP 46 at 20 s; then B (26, from 15 s) asks at A(q) = 0.5: p_max = 46, f_max = 20 s,
// F = 0.8·26/46 = 0.45217, T = 0.2·(1 − 5/20) = 0.15, W = 0.5/0.60217 = 0.83033 (with X
// still at 0, p_max would be 26: W = 0.5/0.95 = 0.52632). A flow picked up mid-stream that
// asks is an ACNS flow.
#[test]
fn a_request_sets_its_flows_dscp_and_shows_a_picked_up_flow_runs_acns() {
    let mut r = Acns::new(AcnsConfig::default(), table());
    acns_flow(&mut r, 40_000, 0, secs(0));
    acns_flow(&mut r, 40_001, 26, secs(15));
    ask(&mut r, 40_000, 46, AcnsIp::I4, 0, secs(20));
    let (out, _) = ask(&mut r, 40_001, 26, AcnsIp::I4, 25, secs(20));
    assert!(matches!(out, AcnsOutcome::Evaluated { weight, .. } if close(weight, 0.83033)), "{out:?}");
    let mut req = tcp((CLIENT.0, 42_000), SERVER, tcp_flags::ACK, 10, 1000, AcnsIp::I4, false);
    let (id, _) = r.on_enqueue(&mut RawPacket::new_checked(&mut req).unwrap(), None, queue(0), secs(21));
    assert!(r.is_acns(id.unwrap()));
}


// A retransmitted ACNS SYN leaves its flow counted: X (DSCP 46) from 0 s sends its SYN again
// at 1 s; B (26, from 15 s) asks at 20 s at A(q) = 0.5 and meets p_max = 46 and f_max = 20 s:
// W = 0.5/(0.8·26/46 + 0.2·(1 − 5/20)) = 0.5/0.60217 = 0.83033 (without X: 0.625).
#[test]
fn a_retransmitted_syn_keeps_its_flow_in_the_scales() {
    let mut r = Acns::new(AcnsConfig::default(), table());
    let x = acns_flow(&mut r, 40_000, 46, secs(0));
    let mut syn = tcp((CLIENT.0, 40_000), SERVER, tcp_flags::SYN | tcp_flags::ECE | tcp_flags::CWR, 46, 0, AcnsIp::I1, true);
    assert_eq!(r.on_enqueue(&mut RawPacket::new_checked(&mut syn).unwrap(), None, queue(0), secs(1)).0, Some(x));
    assert!(r.is_acns(x));
    acns_flow(&mut r, 40_001, 26, secs(15));
    let (out, _) = ask(&mut r, 40_001, 26, AcnsIp::I4, 25, secs(20));
    assert!(matches!(out, AcnsOutcome::Evaluated { weight, .. } if close(weight, 0.83033)), "{out:?}");
}
