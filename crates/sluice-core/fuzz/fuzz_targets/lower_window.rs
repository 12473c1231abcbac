//! `lower_window` on arbitrary packets and proposals. Input: byte 0 selects the shift both
//! endpoints announce (≥ 15: no window-scale option), byte 1 the floor and unit, bytes 2..10
//! the proposal, the rest the packet. The flow is made from the packet's own addresses by a
//! SYN and SYN-ACK seen first. Checked: no panic; the field never rises (one MSS at most with
//! the paper-literal floor); a checksum that verified still verifies; a packet left alone is
//! byte-identical, and a rewrite changes only the window and checksum words.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluice_core::flows::{FlowTable, FlowTableConfig};
use sluice_core::packet::window::mss_floor_field;
use sluice_core::packet::{lower_window, Desired, Floor, HeaderView, RawPacket, WindowRewrite};
use sluice_core::time::Time;

/// A SYN (or SYN-ACK) from `src:sport` to `dst:dport` with an MSS option and, if `ws` < 15, a
/// window-scale option (checksum left zero: the flow table does not read it).
fn syn(src: u32, dst: u32, sport: u16, dport: u16, synack: bool, ws: u8) -> Vec<u8> {
    let mut b = vec![0u8; 48];
    b[0] = 0x45;
    b[2..4].copy_from_slice(&48u16.to_be_bytes());
    b[8] = 64;
    b[9] = 6;
    b[12..16].copy_from_slice(&src.to_be_bytes());
    b[16..20].copy_from_slice(&dst.to_be_bytes());
    b[20..22].copy_from_slice(&sport.to_be_bytes());
    b[22..24].copy_from_slice(&dport.to_be_bytes());
    b[32] = 7 << 4;
    b[33] = if synack { 0x12 } else { 0x02 };
    b[40..44].copy_from_slice(&[2, 4, 0x05, 0xb4]);
    if ws < 15 {
        b[44..48].copy_from_slice(&[1, 3, 3, ws]);
    }
    b
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 10 {
        return;
    }
    let ws = data[0] % 16;
    let mode = data[1];
    let amount = u64::from_le_bytes(data[2..10].try_into().unwrap());
    let mut buf = data[10..].to_vec();
    let before = buf.clone();
    let Ok(mut p) = RawPacket::new_checked(&mut buf) else { return };
    let (Some(sport), Some(dport)) = (p.src_port(), p.dst_port()) else { return };
    let mut table = FlowTable::new(FlowTableConfig::default());
    let (src, dst) = (p.src_addr(), p.dst_addr());
    let mut s = syn(dst, src, dport, sport, false, ws);
    let mut sa = syn(src, dst, sport, dport, true, ws);
    if src == dst && sport == dport {
        return; // a connection to itself has no initiator to tell apart
    }
    table.observe(&RawPacket::new_checked(&mut s).unwrap(), Time(0));
    table.observe(&RawPacket::new_checked(&mut sa).unwrap(), Time(1));
    let Some(flow) = table.lookup_segment(&p).cloned() else { return };
    let mss = 1 + (amount as u32 % 9000);
    let floor = match mode % 3 {
        0 => Floor::None,
        1 => Floor::Mss(mss),
        _ => Floor::LiteralMss(mss),
    };
    let desired = if mode & 0x80 != 0 { Desired::Field(amount) } else { Desired::Bytes(amount) };
    let orig = p.tcp_window_field();
    let ok_before = p.tcp_checksum_ok();
    let r = lower_window(&mut p, desired, &flow, floor);
    if let (Some(o), Some(n)) = (orig, p.tcp_window_field()) {
        match floor {
            Floor::LiteralMss(m) => assert!(n <= o.max(mss_floor_field(m, if ws == 15 { 0 } else { ws }).min(65_535) as u16)),
            _ => assert!(n <= o),
        }
    }
    if ok_before == Some(true) {
        assert_eq!(p.tcp_checksum_ok(), Some(true));
    }
    let ihl = p.header_len();
    drop(p);
    match r {
        WindowRewrite::Lowered { .. } | WindowRewrite::Raised { .. } => {
            for (i, (x, y)) in buf.iter().zip(&before).enumerate() {
                assert!(x == y || (ihl + 14..ihl + 18).contains(&i), "byte {i} changed");
            }
        }
        _ => assert_eq!(buf, before),
    }
});
