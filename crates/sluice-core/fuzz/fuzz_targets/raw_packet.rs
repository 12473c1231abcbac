//! `RawPacket::new_checked` on arbitrary bytes, then every accessor: none may panic; then the
//! signal writers (with headroom for an option): none may panic, and both checksums of a TCP
//! segment verify afterwards.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluice_core::packet::{set_ecn_cmi, set_tcp_reserved_bit, stamp_opt33, CmtMask, Ecn, HeaderView, OptLen, RawPacket, SignalField, WindowField};

fuzz_target!(|data: &[u8]| {
    let mut buf = data.to_vec();
    if let Ok(p) = RawPacket::new_checked(&mut buf) {
        let _ = (p.src_addr(), p.dst_addr(), p.protocol(), p.dscp(), p.ecn(), p.ip_len(), p.src_port(), p.dst_port());
        let _ = (p.tcp_flags(), p.tcp_seq(), p.tcp_ack(), p.tcp_window_field(), p.payload_len(), p.tcp_options());
        let _ = (p.tcp_checksum(), p.tcp_checksum_ok(), p.bytes(), p.header_len(), p.is_tcp());
        assert!(p.ip_len() as usize <= data.len());
        assert!(p.payload_len() <= p.ip_len());
        let _ = (p.ip_reserved_flag(), p.ip_options_len(), p.ip_option33(), p.tcp_reserved_bits(), p.ip_checksum());
    }
    let mut buf = data.to_vec();
    buf.extend_from_slice(&[0; 8]);
    if let Ok(mut p) = RawPacket::new_checked(&mut buf) {
        let ok = (p.ip_checksum_ok(), p.tcp_checksum_ok());
        let _ = set_ecn_cmi(&mut p, Ecn::Ce, true);
        let _ = set_tcp_reserved_bit(&mut p, CmtMask::DEFAULT, true);
        let _ = stamp_opt33(&mut p, 12_250, OptLen::Eight, 1500);
        if ok == (true, Some(true)) {
            assert_eq!((p.ip_checksum_ok(), p.tcp_checksum_ok()), ok);
        }
    }
});
