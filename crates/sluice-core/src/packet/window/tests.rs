use super::*;
use crate::control::testutil::*;
use crate::packet::RawPacket;

/// An ACK from the client with `window` as wire bytes (valid checksum).
fn ack_bytes(window: u16, flags: u8) -> Vec<u8> {
    Seg { window, ..Seg::tcp(CLIENT, SERVER, flags) }.bytes()
}

fn rewrite(bytes: &mut [u8], desired: Desired, ws: Option<u8>, floor: Floor) -> WindowRewrite {
    let (t, id) = one_flow(ws, ws);
    let mut p = RawPacket::new_checked(bytes).unwrap();
    let r = lower_window(&mut p, desired, t.get(id).unwrap(), floor);
    assert_eq!(p.tcp_checksum_ok(), Some(true), "the checksum verifies after {r:?}");
    r
}

// tests RFC 1624 §4 through the writer: a window word 0x5555 under checksum 0xDD2F, changed
// to 0x3285, gives 0x0000 (eqn. 3), not 0xFFFF (the eqn. 2 pitfall).
#[test]
fn writer_applies_rfc1624_eqn3() {
    let mut b = ack_bytes(0x5555, tcp_flags::ACK);
    b[36..38].copy_from_slice(&0xDD2Fu16.to_be_bytes()); // the vector's HC, whatever the rest sums to
    let (t, id) = one_flow(None, None);
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    let r = lower_window(&mut p, Desired::Bytes(0x3285), t.get(id).unwrap(), Floor::None);
    assert_eq!(r, WindowRewrite::Lowered { from_field: 0x5555, to_field: 0x3285 });
    assert_eq!(p.tcp_checksum(), Some(0x0000));
}

// tests docs/algorithms/network-return.md, "The seam" examples, shift 7:
// 1,000,000 B → floor(1,000,000/128) = 7812 (7812 · 128 = 999,936); a receiver field of 5000
// (640,000 B) stays; 600,000 B → floor(4687.5) = 4687.
#[test]
fn writer_converts_with_the_advertisers_shift() {
    let mut b = ack_bytes(65_535, tcp_flags::ACK);
    assert_eq!(rewrite(&mut b, Desired::Bytes(1_000_000), Some(7), Floor::None), WindowRewrite::Lowered { from_field: 65_535, to_field: 7812 });
    let mut b = ack_bytes(5000, tcp_flags::ACK);
    assert_eq!(rewrite(&mut b, Desired::Bytes(1_000_000), Some(7), Floor::None), WindowRewrite::Unchanged);
    let mut b = ack_bytes(5000, tcp_flags::ACK);
    assert_eq!(rewrite(&mut b, Desired::Bytes(600_000), Some(7), Floor::None), WindowRewrite::Lowered { from_field: 5000, to_field: 4687 });
}

// The shift is the *sender's* own: the server announced 9, the client 7; an ACK from the
// server toward the client converts 1,000,000 B with 9: floor(1,000,000/512) = 1953.
#[test]
fn writer_uses_the_sender_shift_not_the_peer() {
    let mut t = crate::flows::FlowTable::new(Default::default());
    let id = handshake(&mut t, CLIENT, Some(7), Some(9), crate::time::Time::ZERO);
    let mut b = Seg { window: 65_535, ..Seg::tcp(SERVER, CLIENT, tcp_flags::ACK) }.bytes();
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    assert_eq!(lower_window(&mut p, Desired::Bytes(1_000_000), t.get(id).unwrap(), Floor::None), WindowRewrite::Lowered { from_field: 65_535, to_field: 1953 });
}

// Floors: Mss gives ceil(1460/128) = 12 at shift 7 but never raises; LiteralMss raises to it.
#[test]
fn writer_floors() {
    let mut b = ack_bytes(468, tcp_flags::ACK);
    assert_eq!(rewrite(&mut b, Desired::Bytes(0), Some(7), Floor::Mss(1460)), WindowRewrite::Lowered { from_field: 468, to_field: 12 });
    let mut b = ack_bytes(5, tcp_flags::ACK);
    assert_eq!(rewrite(&mut b, Desired::Bytes(0), Some(7), Floor::Mss(1460)), WindowRewrite::Unchanged);
    let mut b = ack_bytes(5, tcp_flags::ACK);
    assert_eq!(rewrite(&mut b, Desired::Bytes(0), Some(7), Floor::LiteralMss(1460)), WindowRewrite::Raised { from_field: 5, to_field: 12 });
    let mut b = ack_bytes(468, tcp_flags::ACK);
    assert_eq!(rewrite(&mut b, Desired::Bytes(0), Some(7), Floor::None), WindowRewrite::Lowered { from_field: 468, to_field: 0 });
}

// Skips: SYN, RST, no ACK flag, non-TCP, unknown scale in bytes (field units still work).
#[test]
fn writer_skips_what_it_must() {
    for (flags, want) in [
        (tcp_flags::SYN | tcp_flags::ACK, WindowRewrite::Skipped(SkipReason::Syn)),
        (tcp_flags::RST | tcp_flags::ACK, WindowRewrite::Skipped(SkipReason::Rst)),
        (tcp_flags::PSH, WindowRewrite::NotTcpAck),
    ] {
        let mut b = ack_bytes(65_535, flags);
        let before = b.clone();
        assert_eq!(rewrite(&mut b, Desired::Bytes(1000), Some(7), Floor::None), want);
        assert_eq!(b, before);
    }
    let mut b = Seg { proto: crate::packet::proto::UDP, payload: 20, ..Seg::ack_from_client(0) }.bytes();
    let before = b.clone();
    let (t, id) = one_flow(None, None);
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    assert_eq!(lower_window(&mut p, Desired::Bytes(0), t.get(id).unwrap(), Floor::None), WindowRewrite::NotTcpAck);
    assert_eq!(b, before);
    // Mid-stream pickup: shift unknown.
    let mut t = crate::flows::FlowTable::new(Default::default());
    let id = t.observe(&Seg::ack_from_client(60_000), crate::time::Time::ZERO).unwrap();
    let mut a = Seg::ack_from_client(60_000);
    assert_eq!(lower_window(&mut a, Desired::Bytes(1000), t.get(id).unwrap(), Floor::None), WindowRewrite::Skipped(SkipReason::UnknownScale));
    // Field units, floor for shift 0: max(30,000, 1460) = 30,000.
    assert_eq!(lower_window(&mut a, Desired::Field(30_000), t.get(id).unwrap(), Floor::Mss(1460)), WindowRewrite::Lowered { from_field: 60_000, to_field: 30_000 });
    // The literal floor never raises a flow of unknown shift (one MSS in field units could be
    // 2^14 MSS): a field of 500 stays.
    let mut small = Seg::ack_from_client(500);
    assert_eq!(lower_window(&mut small, Desired::Field(100), t.get(id).unwrap(), Floor::LiteralMss(1460)), WindowRewrite::Unchanged);
    // A segment of another connection is refused.
    let mut other = Seg { src: (7, 7), ..Seg::ack_from_client(60_000) };
    assert_eq!(lower_window(&mut other, Desired::Bytes(0), t.get(id).unwrap(), Floor::None), WindowRewrite::Skipped(SkipReason::NotInFlow));
}

// The field a packet carries after the writer: the new one when lowered or raised, none to
// report otherwise.
#[test]
fn the_written_field_is_the_new_one() {
    assert_eq!(WindowRewrite::Lowered { from_field: 900, to_field: 100 }.written_field(), Some(100));
    assert_eq!(WindowRewrite::Raised { from_field: 10, to_field: 12 }.written_field(), Some(12));
    assert_eq!(WindowRewrite::Unchanged.written_field(), None);
    assert_eq!(WindowRewrite::NotTcpAck.written_field(), None);
}
