//! `RawPacket::new_checked` on arbitrary bytes, then every accessor: none may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluice_core::packet::{HeaderView, RawPacket, WindowField};

fuzz_target!(|data: &[u8]| {
    let mut buf = data.to_vec();
    if let Ok(p) = RawPacket::new_checked(&mut buf) {
        let _ = (p.src_addr(), p.dst_addr(), p.protocol(), p.dscp(), p.ecn(), p.ip_len(), p.src_port(), p.dst_port());
        let _ = (p.tcp_flags(), p.tcp_seq(), p.tcp_ack(), p.tcp_window_field(), p.payload_len(), p.tcp_options());
        let _ = (p.tcp_checksum(), p.tcp_checksum_ok(), p.bytes(), p.header_len(), p.is_tcp());
        assert!(p.ip_len() as usize <= data.len());
        assert!(p.payload_len() <= p.ip_len());
    }
});
