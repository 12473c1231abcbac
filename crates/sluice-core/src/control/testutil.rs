//! Packets and flows for the unit tests of the packet, flow and control modules.

use crate::flows::{FlowId, FlowTable, FlowTableConfig};
use crate::packet::checksum::{checksum, fold, ones_sum};
use crate::packet::{proto, tcp_flags, Ecn, HeaderView, TcpOptionsView, WindowField, WriteToken};
use crate::time::Time;

/// 10.0.0.1:40000, the initiator (client, data receiver in these tests).
pub const CLIENT: (u32, u16) = (0x0a00_0001, 40_000);
/// 10.0.1.2:80, the responder (server, data sender).
pub const SERVER: (u32, u16) = (0x0a00_0102, 80);

/// A segment as fields (checksum not carried, like the simulator's packet).
#[derive(Clone, Debug, PartialEq)]
pub struct Seg {
    pub src: (u32, u16),
    pub dst: (u32, u16),
    pub proto: u8,
    pub flags: u8,
    pub seq: u32,
    pub ack: u32,
    pub window: u16,
    pub opts: TcpOptionsView,
    pub payload: u32,
    pub dscp: u8,
}

impl Seg {
    pub fn tcp(src: (u32, u16), dst: (u32, u16), flags: u8) -> Seg {
        Seg { src, dst, proto: proto::TCP, flags, seq: 1000, ack: 5000, window: 65_535, opts: TcpOptionsView::default(), payload: 0, dscp: 0 }
    }
    /// A pure ACK from the client carrying `window`.
    pub fn ack_from_client(window: u16) -> Seg {
        Seg { window, ..Seg::tcp(CLIENT, SERVER, tcp_flags::ACK) }
    }
    fn opt_len(&self) -> usize {
        let o = &self.opts;
        let n = o.mss.map_or(0, |_| 4) + o.wscale.map_or(0, |_| 3) + if o.sack_permitted { 2 } else { 0 } + o.timestamps.map_or(0, |_| 10);
        (n + 3) & !3
    }
    /// The wire bytes: IPv4 + TCP (options, valid checksum) or UDP, zero payload.
    pub fn bytes(&self) -> Vec<u8> {
        let l4_hdr = if self.proto == proto::TCP { 20 + self.opt_len() } else { 8 };
        let total = 20 + l4_hdr + self.payload as usize;
        let mut b = vec![0u8; total];
        b[0] = 0x45;
        b[1] = self.dscp << 2;
        b[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        b[6] = 0x40;
        b[8] = 64;
        b[9] = self.proto;
        b[12..16].copy_from_slice(&self.src.0.to_be_bytes());
        b[16..20].copy_from_slice(&self.dst.0.to_be_bytes());
        let c = checksum(&b[..20], 0);
        b[10..12].copy_from_slice(&c.to_be_bytes());
        b[20..22].copy_from_slice(&self.src.1.to_be_bytes());
        b[22..24].copy_from_slice(&self.dst.1.to_be_bytes());
        let csum_at = if self.proto == proto::TCP {
            b[24..28].copy_from_slice(&self.seq.to_be_bytes());
            b[28..32].copy_from_slice(&self.ack.to_be_bytes());
            b[32] = ((l4_hdr / 4) as u8) << 4;
            b[33] = self.flags;
            b[34..36].copy_from_slice(&self.window.to_be_bytes());
            let mut o = Vec::new();
            if let Some(m) = self.opts.mss {
                o.extend_from_slice(&[2, 4]);
                o.extend_from_slice(&m.to_be_bytes());
            }
            if self.opts.sack_permitted {
                o.extend_from_slice(&[4, 2]);
            }
            if let Some((v, e)) = self.opts.timestamps {
                o.extend_from_slice(&[8, 10]);
                o.extend_from_slice(&v.to_be_bytes());
                o.extend_from_slice(&e.to_be_bytes());
            }
            if let Some(w) = self.opts.wscale {
                o.extend_from_slice(&[3, 3, w]);
            }
            b[40..40 + o.len()].copy_from_slice(&o);
            36
        } else {
            b[24..26].copy_from_slice(&((8 + self.payload) as u16).to_be_bytes());
            26
        };
        let pseudo = ones_sum(&b[12..20], 0) + self.proto as u32 + (total - 20) as u32;
        let c = !fold(ones_sum(&b[20..], pseudo));
        b[csum_at..csum_at + 2].copy_from_slice(&c.to_be_bytes());
        b
    }
}

impl HeaderView for Seg {
    fn src_addr(&self) -> u32 {
        self.src.0
    }
    fn dst_addr(&self) -> u32 {
        self.dst.0
    }
    fn protocol(&self) -> u8 {
        self.proto
    }
    fn dscp(&self) -> u8 {
        self.dscp
    }
    fn ecn(&self) -> Ecn {
        Ecn::NotEct
    }
    fn ip_len(&self) -> u32 {
        (20 + if self.proto == proto::TCP { 20 + self.opt_len() } else { 8 }) as u32 + self.payload
    }
    fn src_port(&self) -> Option<u16> {
        Some(self.src.1)
    }
    fn dst_port(&self) -> Option<u16> {
        Some(self.dst.1)
    }
    fn tcp_flags(&self) -> Option<u8> {
        (self.proto == proto::TCP).then_some(self.flags)
    }
    fn tcp_seq(&self) -> Option<u32> {
        (self.proto == proto::TCP).then_some(self.seq)
    }
    fn tcp_ack(&self) -> Option<u32> {
        (self.proto == proto::TCP).then_some(self.ack)
    }
    fn tcp_window_field(&self) -> Option<u16> {
        (self.proto == proto::TCP).then_some(self.window)
    }
    fn payload_len(&self) -> u32 {
        self.payload
    }
    fn tcp_options(&self) -> TcpOptionsView {
        if self.proto == proto::TCP {
            self.opts
        } else {
            TcpOptionsView::default()
        }
    }
}

impl WindowField for Seg {
    fn tcp_checksum(&self) -> Option<u16> {
        None
    }
    fn write_window(&mut self, _token: WriteToken<'_>, field: u16, _checksum: Option<u16>) {
        self.window = field;
    }
}

pub fn ms(m: u64) -> Time {
    Time(m * 1_000_000)
}

/// SYN options: MSS 1460 and the given window-scale option, no timestamps.
pub fn syn_opts(ws: Option<u8>) -> TcpOptionsView {
    TcpOptionsView { mss: Some(1460), wscale: ws, sack_permitted: true, timestamps: None }
}

/// A handshake through `table`: SYN at 0 ms (client shift `ws_client`), SYN-ACK at 30 ms
/// (server shift `ws_server`), the client's ACK at 60 ms. Returns the flow's id.
pub fn handshake(table: &mut FlowTable, client: (u32, u16), ws_client: Option<u8>, ws_server: Option<u8>, t0: Time) -> FlowId {
    handshake_rtt(table, client, ws_client, ws_server, t0, crate::time::Dur::from_millis(60))
}

/// As [`handshake`], with the SYN-ACK at `rtt/2` and the ACK at `rtt`.
pub fn handshake_rtt(table: &mut FlowTable, client: (u32, u16), ws_client: Option<u8>, ws_server: Option<u8>, t0: Time, rtt: crate::time::Dur) -> FlowId {
    let syn = Seg { seq: 100, ack: 0, opts: syn_opts(ws_client), ..Seg::tcp(client, SERVER, tcp_flags::SYN) };
    let synack = Seg { seq: 900, ack: 101, opts: syn_opts(ws_server), ..Seg::tcp(SERVER, client, tcp_flags::SYN | tcp_flags::ACK) };
    let ack = Seg { seq: 101, ack: 901, ..Seg::tcp(client, SERVER, tcp_flags::ACK) };
    table.observe(&syn, t0).expect("SYN recorded");
    table.observe(&synack, t0 + crate::time::Dur(rtt.0 / 2));
    table.observe(&ack, t0 + rtt).expect("ACK recorded")
}

/// A table holding one established flow between CLIENT and SERVER.
pub fn one_flow(ws_client: Option<u8>, ws_server: Option<u8>) -> (FlowTable, FlowId) {
    let mut t = FlowTable::new(FlowTableConfig::default());
    let id = handshake(&mut t, CLIENT, ws_client, ws_server, Time::ZERO);
    (t, id)
}
