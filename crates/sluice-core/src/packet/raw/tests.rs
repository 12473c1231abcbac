use super::*;
use crate::control::testutil::*;
use crate::flows::FlowTable;
use crate::packet::{lower_window, tcp_flags, Desired, Floor, WindowRewrite};
use proptest::prelude::*;

// A segment built field by field reads back the same through the raw view.
#[test]
fn raw_view_reads_what_was_written() {
    let s = Seg {
        seq: 0xdead_beef,
        ack: 0x0102_0304,
        window: 0x1234,
        payload: 100,
        dscp: 46,
        opts: TcpOptionsView { mss: Some(1460), wscale: Some(0), sack_permitted: true, timestamps: Some((7, 8)) },
        ..Seg::tcp(CLIENT, SERVER, tcp_flags::SYN)
    };
    let mut b = s.bytes();
    let p = RawPacket::new_checked(&mut b).unwrap();
    assert_eq!((p.src_addr(), p.dst_addr(), p.src_port(), p.dst_port()), (CLIENT.0, SERVER.0, Some(CLIENT.1), Some(SERVER.1)));
    assert_eq!((p.tcp_seq(), p.tcp_ack(), p.tcp_window_field(), p.tcp_flags()), (Some(0xdead_beef), Some(0x0102_0304), Some(0x1234), Some(tcp_flags::SYN)));
    assert_eq!((p.payload_len(), p.ip_len(), p.dscp()), (100, s.ip_len(), 46));
    // WS present with 0 is not the same as absent.
    assert_eq!(p.tcp_options(), s.opts);
    assert_eq!(p.tcp_checksum_ok(), Some(true));
}

// The readers take a field whole when it lies in the buffer, and byte by byte where it runs
// past the end, a missing byte reading as 0 (no validated header gets there; the fallback keeps
// the reader total). Bytes 01 02 03: be16 at 0 = 0x0102; at 2 = 03 and a missing byte =
// 0x0300; be32 at 0 = 0x01020300, at 1 = 0x02030000, at 7 = 0.
#[test]
fn readers_read_bytes_past_the_buffer_as_zero() {
    let mut b = [1u8, 2, 3];
    let p = RawPacket { buf: &mut b, ihl: 20, total: 3, l4: L4::None, opts: TcpOptionsView::default(), opt33: Opt33At::Foreign };
    assert_eq!((p.be16(0), p.be16(1), p.be16(2), p.be16(3)), (0x0102, 0x0203, 0x0300, 0));
    assert_eq!((p.be32(0), p.be32(1), p.be32(7)), (0x0102_0300, 0x0203_0000, 0));
    assert_eq!((p.byte(2), p.byte(3)), (3, 0));
}

// A second view from the first's layout reads the same, sees a rewrite made through the first,
// and is refused once an inserted option moved the headers (or for bytes of another length).
#[test]
fn a_view_from_a_layout_reads_as_validation_did() {
    let s = Seg { window: 4000, opts: TcpOptionsView { timestamps: Some((7, 8)), ..Default::default() }, ..Seg::ack_from_client(1) };
    let mut b = s.bytes();
    b.extend_from_slice(&[0; 16]);
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    let layout = p.layout();
    let (t, id) = one_flow(Some(7), Some(7));
    assert!(matches!(lower_window(&mut p, Desired::Field(1000), t.get(id).unwrap(), Floor::None), WindowRewrite::Lowered { from_field: 4000, to_field: 1000 }));
    let q = RawPacket::with_layout(&mut b, layout).expect("the headers did not move");
    assert_eq!((q.src_port(), q.tcp_ack(), q.tcp_window_field(), q.tcp_options()), (Some(CLIENT.1), Some(s.ack), Some(1000), s.opts));
    assert_eq!((q.ip_checksum_ok(), q.tcp_checksum_ok()), (true, Some(true)));
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    crate::packet::signal::stamp_opt33(&mut p, 12_250, crate::packet::signal::OptLen::Eight, 1500).expect("room for the option");
    assert!(RawPacket::with_layout(&mut b, layout).is_none(), "the option moved the TCP header");
    let mut short = s.bytes();
    short.truncate(30);
    assert!(RawPacket::with_layout(&mut short, layout).is_none());
}

// Malformed input is an error naming what is wrong.
#[test]
fn raw_view_rejects_malformed_packets() {
    let good = Seg::ack_from_client(1).bytes();
    assert!(matches!(RawPacket::new_checked(&mut good[..10].to_vec()), Err(ParseError::Truncated { .. })));
    let mut b = good.clone();
    b[0] = 0x65;
    assert_eq!(RawPacket::new_checked(&mut b).unwrap_err(), ParseError::NotIpv4 { version: 6 });
    let mut b = good.clone();
    b[0] = 0x44;
    assert_eq!(RawPacket::new_checked(&mut b).unwrap_err(), ParseError::BadHeaderLength { ihl: 4 });
    let mut b = good.clone();
    b[2..4].copy_from_slice(&500u16.to_be_bytes());
    assert!(matches!(RawPacket::new_checked(&mut b), Err(ParseError::BadTotalLength { total: 500, .. })));
    let mut b = good.clone();
    b[2..4].copy_from_slice(&16u16.to_be_bytes());
    assert_eq!(RawPacket::new_checked(&mut b).unwrap_err(), ParseError::BadTotalLength { total: 16, header: 20, buffer: good.len() });
    // A header and nothing else (total length 20, a protocol without a transport view) is a
    // packet.
    let mut b = good[..20].to_vec();
    b[2..4].copy_from_slice(&20u16.to_be_bytes());
    b[9] = 253;
    assert_eq!(RawPacket::new_checked(&mut b).unwrap().bytes().len(), 20);
    let mut b = good.clone();
    b[32] = 0x40; // data offset 4
    assert_eq!(RawPacket::new_checked(&mut b).unwrap_err(), ParseError::BadTcpHeader);
    // A fragment is a packet without a transport view.
    let mut b = good.clone();
    b[6] = 0x20; // MF
    let p = RawPacket::new_checked(&mut b).unwrap();
    assert_eq!((p.src_port(), p.tcp_flags()), (None, None));
    // Trailing bytes past the total length (Ethernet padding) are ignored.
    let mut b = good.clone();
    b.extend_from_slice(&[0xee; 6]);
    assert_eq!(RawPacket::new_checked(&mut b).unwrap().bytes().len(), good.len());
}

// Options: unknown kinds are skipped by length (TFO kind 34 before WS), a wrong-length MSS
// is ignored, a length past the end stops the walk.
#[test]
fn tcp_options_walk_like_linux() {
    let o = [34, 4, 0xaa, 0xbb, 3, 3, 6, 1, 2, 3, 0x05, 0xb4];
    let v = parse_tcp_options(&o);
    assert_eq!(v.wscale, Some(6));
    assert_eq!(v.mss, None);
    let v = parse_tcp_options(&[1, 1, 2, 4, 0x05, 0xb4, 3, 9, 7]);
    assert_eq!((v.mss, v.wscale), (Some(1460), None));
    assert_eq!(parse_tcp_options(&[3, 0, 3, 3, 1]), TcpOptionsView::default(), "length 0 stops the walk");
}

/// Calls every accessor; none may panic.
fn touch(p: &RawPacket<'_>) {
    let _ = (p.src_addr(), p.dst_addr(), p.protocol(), p.dscp(), p.ecn(), p.ip_len(), p.src_port(), p.dst_port());
    let _ = (p.tcp_flags(), p.tcp_seq(), p.tcp_ack(), p.tcp_window_field(), p.payload_len(), p.tcp_options());
    let _ = (p.tcp_checksum(), p.tcp_checksum_ok(), p.bytes(), p.header_len(), p.is_tcp());
}

fn seg_strategy() -> impl Strategy<Value = Seg> {
    (any::<u8>(), any::<u16>(), any::<bool>(), 0u32..64, proptest::option::of(0u8..16), proptest::option::of(any::<(u32, u32)>()), any::<bool>(), any::<bool>()).prop_map(
        |(flags, window, udp, payload, ws, ts, from_server, mss)| {
            let (src, dst) = if from_server { (SERVER, CLIENT) } else { (CLIENT, SERVER) };
            Seg {
                proto: if udp { crate::packet::proto::UDP } else { crate::packet::proto::TCP },
                window,
                payload,
                opts: TcpOptionsView { mss: mss.then_some(1460), wscale: ws, sack_permitted: false, timestamps: ts },
                seq: 12345,
                ack: 67890,
                ..Seg::tcp(src, dst, flags)
            }
        },
    )
}

fn floor_strategy() -> impl Strategy<Value = Floor> {
    prop_oneof![Just(Floor::None), (1u32..9000).prop_map(Floor::Mss)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    // tests docs/algorithms/network-return.md, "The seam": new_checked never panics, and no
    // accessor panics once it succeeded.
    #[test]
    fn new_checked_never_panics(mut bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
        if let Ok(p) = RawPacket::new_checked(&mut bytes) {
            touch(&p);
        }
    }

    // The same on mutations of valid packets (which parse far more often).
    #[test]
    fn mutated_packets_never_panic(seg in seg_strategy(), flips in proptest::collection::vec((0usize..200, any::<u8>()), 0..6), cut in 0usize..200) {
        let mut b = seg.bytes();
        for (i, v) in flips {
            if let Some(x) = b.get_mut(i) { *x = v; }
        }
        b.truncate(cut.max(1).min(b.len()));
        if let Ok(mut p) = RawPacket::new_checked(&mut b) {
            touch(&p);
            let (t, id) = one_flow(Some(7), Some(7));
            let _ = lower_window(&mut p, Desired::Bytes(1000), t.get(id).unwrap(), Floor::Mss(1460));
            touch(&p);
        }
    }

    // tests docs/algorithms/network-return.md, "The seam": the writer never raises the field;
    // the TCP checksum verifies from scratch after a rewrite; non-TCP, SYN and RST packets are
    // byte-identical afterwards.
    #[test]
    fn lower_window_properties(seg in seg_strategy(), desired in any::<u64>(), field_units in any::<bool>(), ws in proptest::option::of(0u8..15), floor in floor_strategy()) {
        let mut t = FlowTable::new(Default::default());
        let id = handshake(&mut t, CLIENT, ws, ws, crate::time::Time::ZERO);
        let flow = t.get(id).unwrap();
        let mut b = seg.bytes();
        let before = b.clone();
        let mut p = RawPacket::new_checked(&mut b).unwrap();
        let orig = p.tcp_window_field();
        let d = if field_units { Desired::Field(desired) } else { Desired::Bytes(desired) };
        let r = lower_window(&mut p, d, flow, floor);
        if let Some(o) = orig {
            prop_assert!(p.tcp_window_field().unwrap() <= o, "{r:?}");
            prop_assert_eq!(p.tcp_checksum_ok(), Some(true));
        }
        let control = seg.proto != crate::packet::proto::TCP || seg.flags & (tcp_flags::SYN | tcp_flags::RST) != 0 || seg.flags & tcp_flags::ACK == 0;
        if control {
            prop_assert!(matches!(r, WindowRewrite::NotTcpAck | WindowRewrite::Skipped(_)));
            prop_assert_eq!(&b, &before);
        }
        if matches!(r, WindowRewrite::Unchanged | WindowRewrite::Skipped(_) | WindowRewrite::NotTcpAck) {
            prop_assert_eq!(&b, &before);
        } else {
            // Only the window and checksum words changed.
            for (i, (x, y)) in b.iter().zip(&before).enumerate() {
                if x != y { prop_assert!((34..38).contains(&i), "byte {i} changed"); }
            }
        }
    }

    // The paper-literal floor raises a field only up to the floor itself.
    #[test]
    fn literal_floor_raises_at_most_to_one_mss(window in any::<u16>(), desired in any::<u64>(), ws in 0u8..15, mss in 1u32..9000) {
        let (t, id) = one_flow(Some(ws), Some(ws));
        let mut a = Seg::ack_from_client(window);
        lower_window(&mut a, Desired::Bytes(desired), t.get(id).unwrap(), Floor::LiteralMss(mss));
        let floor = crate::packet::window::mss_floor_field(mss, ws).min(65_535) as u16;
        prop_assert!(a.window <= window.max(floor));
    }
}

// Each parse error says what is wrong with the numbers that show it.
#[test]
fn parse_errors_say_what_is_wrong() {
    let cases = [
        (ParseError::Truncated { need: 20, have: 10 }, "truncated packet: 10 bytes, the header needs 20"),
        (ParseError::NotIpv4 { version: 6 }, "not IPv4: version 6"),
        (ParseError::BadHeaderLength { ihl: 4 }, "IPv4 header length 4 words is below 5"),
        (ParseError::BadTotalLength { total: 16, header: 20, buffer: 40 }, "IPv4 total length 16 outside 20..=40 (header length, buffer length)"),
        (ParseError::BadTcpHeader, "TCP header malformed or beyond the IP total length"),
        (ParseError::BadUdpHeader, "UDP header beyond the IP total length"),
    ];
    for (e, want) in cases {
        assert_eq!(e.to_string(), want);
    }
}


// The checksum checks catch a damaged packet (they are what the rewrite properties rest on): a
// flipped TTL fails the IPv4 header's, a flipped window the TCP segment's; a UDP datagram has
// no TCP checksum to check.
#[test]
fn checksum_checks_catch_a_flipped_bit() {
    let good = Seg::ack_from_client(1000).bytes();
    let mut b = good.clone();
    let p = RawPacket::new_checked(&mut b).unwrap();
    assert!(p.ip_checksum_ok());
    assert_eq!(p.tcp_checksum_ok(), Some(true));
    let mut b = good.clone();
    b[8] ^= 0x01; // TTL
    let p = RawPacket::new_checked(&mut b).unwrap();
    assert!(!p.ip_checksum_ok());
    assert_eq!(p.tcp_checksum_ok(), Some(true), "the TTL is not in the pseudo-header");
    let mut b = good.clone();
    b[35] ^= 0x10; // window, low byte
    let p = RawPacket::new_checked(&mut b).unwrap();
    assert!(p.ip_checksum_ok());
    assert_eq!(p.tcp_checksum_ok(), Some(false));
    let mut u = Seg { proto: crate::packet::proto::UDP, payload: 8, ..Seg::tcp(CLIENT, SERVER, 0) }.bytes();
    assert_eq!(RawPacket::new_checked(&mut u).unwrap().tcp_checksum_ok(), None);
}

// The end-of-option-list kind ends the walk, whatever bytes follow it (RFC 9293 §3.2): an MSS
// option after it is not read.
#[test]
fn end_of_option_list_ends_the_walk() {
    assert_eq!(parse_tcp_options(&[0, 2, 2, 4, 0x05, 0xb4]).mss, None);
    assert_eq!(parse_tcp_options(&[1, 2, 4, 0x05, 0xb4, 0]).mss, Some(1460), "after a NOP it is read");
}
