use super::*;
use crate::control::testutil::*;
use crate::packet::checksum::{checksum, fold, ones_sum};
use crate::packet::{proto, RawPacket};
use proptest::prelude::*;

/// `seg`'s bytes with `extra` bytes of headroom past the packet (a gateway's buffer).
fn buf(seg: &Seg, extra: usize) -> Vec<u8> {
    let mut b = seg.bytes();
    b.resize(b.len() + extra, 0xee);
    b
}

/// Put `opts` (a multiple of 4 bytes) into the IPv4 header of packet bytes `b`, fixing IHL,
/// total length and the IP checksum (the transport checksum does not cover them).
fn with_ip_options(b: &[u8], opts: &[u8]) -> Vec<u8> {
    assert_eq!(opts.len() % 4, 0);
    let mut v = b[..20].to_vec();
    v.extend_from_slice(opts);
    v.extend_from_slice(&b[20..]);
    v[0] = 0x40 | ((20 + opts.len()) / 4) as u8;
    let total = u16::from_be_bytes([v[2], v[3]]) as usize + opts.len();
    v[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    v[10] = 0;
    v[11] = 0;
    let c = checksum(&v[..20 + opts.len()], 0);
    v[10..12].copy_from_slice(&c.to_be_bytes());
    v
}

/// Set TCP byte 12's low bits directly and recompute the TCP checksum (a sender building its
/// segment, not a gateway writer).
fn with_tcp_reserved(b: &mut [u8], bits: u8) {
    let ihl = (b[0] & 0x0f) as usize * 4;
    b[ihl + 12] = (b[ihl + 12] & 0xf0) | bits;
    b[ihl + 16] = 0;
    b[ihl + 17] = 0;
    let total = u16::from_be_bytes([b[2], b[3]]) as usize;
    let pseudo = ones_sum(&b[12..20], 0) + proto::TCP as u32 + (total - ihl) as u32;
    let c = !fold(ones_sum(&b[ihl..total], pseudo));
    b[ihl + 16..ihl + 18].copy_from_slice(&c.to_be_bytes());
}

// tests the option layout (module doc): NGWA's example value 12,250 = 0x2FDA.
// 8 bytes: 0x21 = type 33 (copy 0, class 1, number 1), 0x06 = length of type + length + the
// 4-byte value, 00 00 2F DA = 12,250 big-endian, then 01 (NOP) and 00 (EOL) as padding.
// 4 bytes: 21, length 04, 2F DA; 100,000 > 65,535 saturates to FF FF.
#[test]
fn option33_bytes_for_ngwa_examples() {
    assert_eq!(0x2FDA, 12_250);
    assert_eq!(Opt33 { value: 12_250, len: OptLen::Eight }.wire(), [0x21, 0x06, 0x00, 0x00, 0x2F, 0xDA, 0x01, 0x00]);
    assert_eq!(Opt33 { value: 12_250, len: OptLen::Four }.wire()[..4], [0x21, 0x04, 0x2F, 0xDA]);
    assert_eq!(Opt33 { value: 100_000, len: OptLen::Four }.wire()[..4], [0x21, 0x04, 0xFF, 0xFF]);
    // 100,000 = 0x000186A0 fits the 8-byte form.
    assert_eq!(Opt33 { value: 100_000, len: OptLen::Eight }.wire(), [0x21, 0x06, 0x00, 0x01, 0x86, 0xA0, 0x01, 0x00]);
    assert_eq!(OptLen::from_bytes(8), Some(OptLen::Eight));
    assert_eq!(OptLen::from_bytes(6), None);
}

// Inserting on bytes: the pure ACK of 40 B becomes 48 B, IHL 5 -> 7, the option at bytes
// 20..28, the IP checksum recomputed, the TCP checksum and segment untouched.
#[test]
fn insert_option33_on_bytes() {
    let seg = Seg::ack_from_client(1000);
    let orig = seg.bytes();
    let mut b = buf(&seg, 8);
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    assert_eq!(p.ip_option33(), None);
    assert_eq!(stamp_opt33(&mut p, 12_250, OptLen::Eight, 1500), Ok(Opt33Write::Inserted { value: 12_250, len: OptLen::Eight }));
    assert_eq!((p.ip_len(), p.header_len(), p.ip_options_len()), (48, 28, 8));
    assert_eq!(p.ip_option33(), Some(Opt33 { value: 12_250, len: OptLen::Eight }));
    assert!(p.ip_checksum_ok());
    assert_eq!(p.tcp_checksum_ok(), Some(true));
    assert_eq!(p.tcp_window_field(), Some(1000));
    let out = p.bytes().to_vec();
    assert_eq!(out[0], 0x47);
    assert_eq!(&out[2..4], &[0, 48]);
    assert_eq!(&out[20..28], &[0x21, 0x06, 0x00, 0x00, 0x2F, 0xDA, 0x01, 0x00]);
    assert_eq!(&out[28..], &orig[20..], "TCP header and checksum unchanged");
    // Read from scratch.
    let mut again = out.clone();
    let q = RawPacket::new_checked(&mut again).unwrap();
    assert_eq!((q.ip_option33(), q.tcp_window_field(), q.tcp_checksum_ok()), (Some(Opt33 { value: 12_250, len: OptLen::Eight }), Some(1000), Some(true)));

    // Replacing keeps the size: 12,250 -> 9,000 = 0x2328.
    let mut b = out;
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    assert_eq!(stamp_opt33(&mut p, 9_000, OptLen::Four, 1500), Ok(Opt33Write::Replaced { from: 12_250, to: 9_000 }));
    assert_eq!(stamp_opt33(&mut p, 9_000, OptLen::Eight, 1500), Ok(Opt33Write::Unchanged));
    assert_eq!(p.ip_len(), 48);
    assert!(p.ip_checksum_ok());
    assert_eq!(&p.bytes()[20..28], &[0x21, 0x06, 0x00, 0x00, 0x23, 0x28, 0x01, 0x00]);
}

// An option list already present stays readable: the new option goes before its EOL.
#[test]
fn insert_after_existing_options_before_eol() {
    // Router alert (RFC 2113: type 148, length 4, value 0), then EOL and padding.
    let b0 = with_ip_options(&Seg::ack_from_client(7).bytes(), &[148, 4, 0, 0, 0, 0, 0, 0]);
    let mut b = b0.clone();
    b.extend_from_slice(&[0; 4]);
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    assert_eq!(stamp_opt33(&mut p, 0x1234, OptLen::Four, 1500), Ok(Opt33Write::Inserted { value: 0x1234, len: OptLen::Four }));
    assert_eq!(&p.bytes()[20..32], &[148, 4, 0, 0, 0x21, 4, 0x12, 0x34, 0, 0, 0, 0]);
    assert!(p.ip_checksum_ok());
    assert_eq!((p.tcp_window_field(), p.tcp_checksum_ok()), (Some(7), Some(true)));
}

// Never past 40 B of options, the MTU, or the buffer; never on non-TCP packets.
#[test]
fn insertion_refused_rather_than_invalid() {
    let ack = Seg::ack_from_client(7).bytes();
    // 36 B of NOPs (IHL 14): 4 more fit, 8 do not.
    let nops = with_ip_options(&ack, &[1; 36]);
    let mut b = nops.clone();
    b.extend_from_slice(&[0; 8]);
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    assert_eq!(stamp_opt33(&mut p, 5, OptLen::Eight, 1500), Err(HeaderSkip::OptionSpace));
    assert_eq!(&b[..nops.len()], &nops[..]);
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    assert!(stamp_opt33(&mut p, 5, OptLen::Four, 1500).is_ok());
    assert_eq!((p.header_len(), p.ip_checksum_ok()), (60, true));
    // A 1496-byte packet with a 1500 MTU takes the 4-byte option, not the 8-byte one.
    let big = Seg { payload: 1456, ..Seg::ack_from_client(7) };
    assert_eq!(big.bytes().len(), 1496);
    let mut b = buf(&big, 8);
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    assert_eq!(stamp_opt33(&mut p, 5, OptLen::Eight, 1500), Err(HeaderSkip::Mtu));
    assert_eq!(stamp_opt33(&mut p, 5, OptLen::Four, 1500), Ok(Opt33Write::Inserted { value: 5, len: OptLen::Four }));
    // No headroom in the buffer: nothing written.
    let mut b = ack.clone();
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    assert_eq!(stamp_opt33(&mut p, 5, OptLen::Four, 1500), Err(HeaderSkip::NoHeadroom));
    assert_eq!(b, ack);
    // UDP: untouched by all three writers.
    let udp = Seg { proto: proto::UDP, ..Seg::ack_from_client(7) };
    let orig = buf(&udp, 8);
    let mut b = orig.clone();
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    assert_eq!(stamp_opt33(&mut p, 5, OptLen::Four, 1500), Err(HeaderSkip::NotTcp));
    assert_eq!(set_ecn_cmi(&mut p, Ecn::Ce, true), Err(HeaderSkip::NotTcp));
    assert_eq!(set_tcp_reserved_bit(&mut p, CmtMask::DEFAULT, true), Err(HeaderSkip::NotTcp));
    assert_eq!(b, orig);
    // An option 33 of another length is not overwritten, nor doubled.
    let foreign = with_ip_options(&ack, &[33, 3, 9, 0]);
    let mut b = foreign.clone();
    b.extend_from_slice(&[0; 8]);
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    assert_eq!(p.ip_option33(), None);
    assert_eq!(stamp_opt33(&mut p, 5, OptLen::Four, 1500), Err(HeaderSkip::ForeignOption));
    assert_eq!(&b[..foreign.len()], &foreign[..]);
}

// tests ACNS Table 2: every code written by the ECN/CMI writer reads back, on bytes, with a
// valid IP checksum; Not-ECT with CMI is no code. Byte 1 = DSCP 46 << 2 | ECN, byte 6 = 0x40
// (DF) | 0x80 for CMI: I6 = ECN 11 + CMI gives bytes 1, 6 = 0xBB, 0xC0.
#[test]
fn acns_ip_codes_round_trip_on_bytes() {
    let seg = Seg { dscp: 46, ..Seg::ack_from_client(7) };
    for from in AcnsIp::ALL {
        for to in AcnsIp::ALL {
            let mut b = seg.bytes();
            let mut p = RawPacket::new_checked(&mut b).unwrap();
            from.write(&mut p).unwrap();
            let r = to.write(&mut p).unwrap();
            assert_eq!(r == SignalWrite::Unchanged, from == to);
            assert_eq!((AcnsIp::of(&p), p.dscp()), (Some(to), 46));
            assert!(p.ip_checksum_ok(), "{from:?} -> {to:?}");
            assert_eq!(p.tcp_checksum_ok(), Some(true));
        }
    }
    let mut b = seg.bytes();
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    AcnsIp::I6.write(&mut p).unwrap();
    assert_eq!((b[1], b[6]), (0xBB, 0xC0));
    let mut b = seg.bytes();
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    set_ecn_cmi(&mut p, Ecn::NotEct, true).unwrap();
    assert_eq!(AcnsIp::of(&p), None);
}

// tests ACNS Table 3 on bytes: flags from `apply`, CMT written by the reserved-bit writer
// (TCP checksum updated incrementally), the code read back. T5 with CMT at 0x08: byte 12 =
// data offset 5 << 4 | 0x08 = 0x58, byte 13 = ACK | ECE = 0x50.
#[test]
fn acns_tcp_codes_round_trip_on_bytes() {
    for mask in [0x08, 0x04, 0x02].map(|m| CmtMask::new(m).unwrap()) {
        for code in AcnsTcp::ALL {
            let (flags, res) = code.apply(tcp_flags::ACK, 0, mask);
            let mut b = Seg::tcp(CLIENT, SERVER, flags).bytes();
            with_tcp_reserved(&mut b, res & 0x01); // NS as the endpoint builds it
            let mut p = RawPacket::new_checked(&mut b).unwrap();
            set_tcp_reserved_bit(&mut p, mask, res & mask.bits() != 0).unwrap();
            assert_eq!(AcnsTcp::of(&p, mask), Some(code), "{mask:?}");
            assert_eq!(p.tcp_reserved_bits(), Some(res));
            assert_eq!(p.tcp_checksum_ok(), Some(true));
            assert!(p.ip_checksum_ok());
        }
    }
    let (flags, res) = AcnsTcp::T5.apply(tcp_flags::ACK, 0, CmtMask::DEFAULT);
    let mut b = Seg::tcp(CLIENT, SERVER, flags).bytes();
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    set_tcp_reserved_bit(&mut p, CmtMask::DEFAULT, res & 0x08 != 0).unwrap();
    assert_eq!((b[32], b[33]), (0x58, 0x50));
    // The ACNS SYN (ECE + CWR + CMT) is no command.
    let mut b = Seg::tcp(CLIENT, SERVER, tcp_flags::SYN | tcp_flags::ECE | tcp_flags::CWR).bytes();
    let mut p = RawPacket::new_checked(&mut b).unwrap();
    set_tcp_reserved_bit(&mut p, CmtMask::DEFAULT, true).unwrap();
    assert_eq!(AcnsTcp::of(&p, CmtMask::DEFAULT), None);
    assert_eq!(CmtMask::new(0x01).unwrap_err(), "expected 0x08, 0x04 or 0x02 (a reserved bit of TCP byte 12), got 0x01");
}

#[derive(Clone, Debug)]
enum Op {
    EcnCmi(u8, bool),
    Cmt(u8, bool),
    Opt(u64, bool, u32),
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..4, any::<bool>()).prop_map(|(e, c)| Op::EcnCmi(e, c)),
        (prop_oneof![Just(2u8), Just(4), Just(8)], any::<bool>()).prop_map(|(m, on)| Op::Cmt(m, on)),
        (prop_oneof![0u64..70_000, any::<u64>()], any::<bool>(), prop_oneof![Just(1500u32), Just(65_535), 40u32..1600]).prop_map(|(v, eight, mtu)| Op::Opt(v, eight, mtu)),
    ]
}

fn apply(p: &mut RawPacket<'_>, op: &Op) -> Result<(), HeaderSkip> {
    match *op {
        Op::EcnCmi(e, c) => set_ecn_cmi(p, Ecn::from_bits(e), c).map(drop),
        Op::Cmt(m, on) => set_tcp_reserved_bit(p, CmtMask::new(m).unwrap(), on).map(drop),
        Op::Opt(v, eight, mtu) => stamp_opt33(p, v, if eight { OptLen::Eight } else { OptLen::Four }, mtu).map(drop),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    // After any sequence of writes on a valid packet (TCP or UDP, with or without IP options
    // before, with or without headroom), both checksums verify, the bytes parse again to the
    // same view, non-TCP packets are byte-identical, and every field a writer does not own is
    // unchanged.
    #[test]
    fn writes_keep_packets_valid(
        udp in any::<bool>(), flags in any::<u8>(), payload in 0u32..1500, dscp in 0u8..64,
        ip_opts in 0usize..10, headroom in prop_oneof![Just(0usize), Just(4), 8usize..16],
        ops in proptest::collection::vec(op_strategy(), 0..8),
    ) {
        let seg = Seg { proto: if udp { proto::UDP } else { proto::TCP }, payload, dscp, ..Seg::tcp(CLIENT, SERVER, flags) };
        let mut b = with_ip_options(&seg.bytes(), &vec![1u8; ip_opts * 4]);
        b.resize(b.len() + headroom, 0xee);
        let before = b.clone();
        let mut p = RawPacket::new_checked(&mut b).unwrap();
        let (ports, seq, win, opts) = (p.src_port(), p.tcp_seq(), p.tcp_window_field(), p.tcp_options());
        for op in &ops {
            let len0 = p.ip_len();
            match apply(&mut p, op) {
                Ok(()) => prop_assert!(!udp),
                Err(HeaderSkip::NotTcp) => prop_assert!(udp),
                Err(e) => prop_assert!(matches!(op, Op::Opt(..)), "{e:?}"),
            }
            prop_assert!(p.ip_checksum_ok());
            prop_assert!(p.ip_options_len() <= 40 && p.ip_len() <= 65_535);
            if let Op::Opt(_, _, mtu) = *op {
                prop_assert!(p.ip_len() == len0 || p.ip_len() <= mtu);
            }
            if !udp {
                prop_assert_eq!(p.tcp_checksum_ok(), Some(true));
            }
            prop_assert_eq!((p.src_port(), p.tcp_seq(), p.tcp_window_field(), p.tcp_options(), p.dscp(), p.payload_len()), (ports, seq, win, opts, dscp, payload));
        }
        let view = (p.ecn(), p.ip_reserved_flag(), p.tcp_reserved_bits(), p.ip_option33(), p.ip_len(), p.ip_options_len());
        let mut again = p.bytes().to_vec();
        let q = RawPacket::new_checked(&mut again).unwrap();
        prop_assert_eq!(view, (q.ecn(), q.ip_reserved_flag(), q.tcp_reserved_bits(), q.ip_option33(), q.ip_len(), q.ip_options_len()));
        if udp {
            prop_assert_eq!(&b, &before);
        }
    }
}

// The IPv4 option walk (RFC 791): EOL ends it, whatever follows; NOP is one byte; an option of
// length 2 (no body) is stepped over; a length of 1, or one past the area, ends it.
#[test]
fn the_option_walk_follows_rfc_791() {
    let found = |at| Opt33At::Found { at, opt: Opt33 { value: 9, len: OptLen::Four } };
    assert_eq!(find_opt33(&[0, 4, 0, 0, 33, 4, 0, 9]), Opt33At::Absent { end: 0 }, "after EOL");
    assert_eq!(find_opt33(&[1, 33, 4, 0, 9]), found(1), "after a NOP");
    assert_eq!(find_opt33(&[7, 2, 33, 4, 0, 9]), found(2), "after an empty option");
    assert_eq!(find_opt33(&[7, 1, 33, 4, 0, 9]), Opt33At::Absent { end: 0 }, "a length of 1");
    assert_eq!(find_opt33(&[7, 10, 0]), Opt33At::Absent { end: 0 }, "a length past the area");
}

// An endpoint's code written over any previous one: every code applied to a segment whose
// CWR, ECE, CMT and NS bits are all set reads back as that code, and every other flag and
// reserved bit (SYN, ACK, PSH…; the two reserved bits not used) is kept.
#[test]
fn a_code_applied_over_another_reads_back_and_keeps_the_other_bits() {
    let mask = CmtMask::DEFAULT;
    let (other_flags, other_res) = (0xFF & !(tcp_flags::CWR | tcp_flags::ECE), 0x0F & !(mask.bits() | 0x01));
    for code in AcnsTcp::ALL {
        let (flags, res) = code.apply(0xFF, 0x0F, mask);
        let (f, cmt, ns) = code.bits();
        assert_eq!(flags, other_flags | f, "{code:?}");
        assert_eq!(res, other_res | if cmt { mask.bits() } else { 0 } | if ns { 0x01 } else { 0 }, "{code:?}");
        let mut b = Seg { flags, ..Seg::tcp(CLIENT, SERVER, 0) }.bytes();
        b[32] = (b[32] & 0xF0) | res;
        assert_eq!(AcnsTcp::of(&RawPacket::new_checked(&mut b).unwrap(), mask), Some(code));
    }
}
