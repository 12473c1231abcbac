//! The simulator's packet: an IPv4 header plus a TCP or UDP header, payload by length only.
//!
//! Fields are the wire fields (the TCP window is the raw, scaled 16-bit value), so the header
//! view ([`HeaderView`]) and the pcap writer read exactly what a capture would show. Payload
//! bytes are not materialized: a pcap file carries zeros, and checksums are computed over them.

use sluice_core::packet::{proto, tcp_flags, Ecn, HeaderSkip, HeaderView, Opt33, OptLen, SignalField, TcpOptionsView, WindowField, WriteToken};

/// Up to four SACK blocks (RFC 2018), as wire sequence numbers `[left, right)`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub n: u8,
    pub blocks: [(u32, u32); 4],
}

impl SackBlocks {
    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.blocks[..self.n as usize]
    }
    pub fn push(&mut self, b: (u32, u32)) {
        if (self.n as usize) < 4 {
            self.blocks[self.n as usize] = b;
            self.n += 1;
        }
    }
}

/// TCP options carried by a segment.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpOptions {
    /// MSS option (SYN only).
    pub mss: Option<u16>,
    /// Window-scale shift (SYN only).
    pub wscale: Option<u8>,
    pub sack_permitted: bool,
    /// Timestamps (TSval, TSecr).
    pub ts: Option<(u32, u32)>,
    pub sack: SackBlocks,
}

impl TcpOptions {
    /// Option bytes on the wire, padded to a multiple of 4 (kinds: MSS 4, WS 3, SACK-permitted 2,
    /// TS 10, SACK 2 + 8n).
    pub fn wire_len(&self) -> u32 {
        let mut n = 0;
        if self.mss.is_some() {
            n += 4;
        }
        if self.wscale.is_some() {
            n += 3;
        }
        if self.sack_permitted {
            n += 2;
        }
        if self.ts.is_some() {
            n += 10;
        }
        if self.sack.n > 0 {
            n += 2 + 8 * self.sack.n as u32;
        }
        (n + 3) & !3
    }
}

/// The IPv4 type-of-service byte as on the wire: DSCP in bits 7–2, ECN in bits 1–0 (RFC 2474,
/// RFC 3168).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tos(u8);

impl Tos {
    /// `dscp` is cut to its six bits.
    #[inline]
    pub const fn new(dscp: u8, ecn: Ecn) -> Tos {
        Tos(((dscp & 0x3f) << 2) | ecn as u8)
    }
    #[inline]
    pub fn dscp(self) -> u8 {
        self.0 >> 2
    }
    #[inline]
    pub fn ecn(self) -> Ecn {
        Ecn::from_bits(self.0)
    }
    #[inline]
    pub fn set_ecn(&mut self, ecn: Ecn) {
        self.0 = (self.0 & !3) | ecn as u8;
    }
    /// The byte as the IPv4 header carries it.
    #[inline]
    pub fn byte(self) -> u8 {
        self.0
    }
}

/// Header bits of a TCP segment beyond the other fields, in one byte (it fills the spare byte
/// of [`Transport::Tcp`], so the packet stays 96 bytes):
///
/// * bits 0–3: the low four bits of TCP byte 12 (0x01 NS/AE, 0x0E reserved; ACNS's CMT is one
///   of them);
/// * bit 4: the IPv4 reserved flag (ACNS's CMI);
/// * bits 5–6: the size of IPv4 option 33 (0 none, 1 four bytes, 2 eight bytes); its value is
///   [`SimPacket::opt33`].
///
/// The flag and the option are IP fields kept with the TCP part because only TCP segments carry
/// them here: the writers that set them ([`sluice_core::packet::signal`]) write TCP segments
/// only. All zero (the default) is a segment without any of them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SegBits(u8);

impl SegBits {
    const CMI: u8 = 0x10;
    /// The low four bits of TCP byte 12.
    #[inline]
    pub fn tcp_reserved(self) -> u8 {
        self.0 & 0x0f
    }
    #[inline]
    pub fn set_tcp_reserved(&mut self, bits: u8) {
        self.0 = (self.0 & !0x0f) | (bits & 0x0f);
    }
    /// The IPv4 reserved flag.
    #[inline]
    pub fn ip_reserved_flag(self) -> bool {
        self.0 & Self::CMI != 0
    }
    #[inline]
    pub fn set_ip_reserved_flag(&mut self, on: bool) {
        self.0 = (self.0 & !Self::CMI) | if on { Self::CMI } else { 0 };
    }
    /// The size of option 33, if the segment carries it.
    #[inline]
    pub fn opt33_len(self) -> Option<OptLen> {
        match (self.0 >> 5) & 3 {
            1 => Some(OptLen::Four),
            2 => Some(OptLen::Eight),
            _ => None,
        }
    }
    #[inline]
    pub fn set_opt33_len(&mut self, len: Option<OptLen>) {
        let code = match len {
            None => 0,
            Some(OptLen::Four) => 1,
            Some(OptLen::Eight) => 2,
        };
        self.0 = (self.0 & !0x60) | (code << 5);
    }
    /// Bytes of IPv4 options: 0, 4 or 8 (the code times four).
    #[inline]
    pub fn ip_options_len(self) -> u32 {
        (((self.0 >> 5) & 3) as u32) * 4
    }
}

/// The transport part of a packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    Tcp { seq: u32, ack: u32, flags: u8, window: u16, opts: TcpOptions, bits: SegBits },
    Udp,
}

/// A simulated IPv4 packet. 32-byte aligned: at 96 bytes, one spans exactly two cache lines
/// wherever it sits in the engine's slab (see `prefetch_lines`).
#[derive(Clone, Debug, PartialEq)]
#[repr(align(32))]
pub struct SimPacket {
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
    /// DSCP and ECN.
    pub tos: Tos,
    pub ttl: u8,
    /// IP identification (per-host counter; informational).
    pub ip_id: u16,
    pub transport: Transport,
    /// Transport payload bytes.
    pub payload: u32,
    /// Index of the flow this packet belongs to (simulator bookkeeping, not on the wire).
    pub flow: u32,
    /// The value of IPv4 option 33 (NGWA), when the segment's [`SegBits::opt33_len`] says it
    /// carries one (0 otherwise).
    pub opt33: u32,
}

pub const IPV4_HEADER: u32 = 20;
pub const TCP_HEADER: u32 = 20;
pub const UDP_HEADER: u32 = 8;

impl SimPacket {
    /// One field on each of the two cache lines the packet spans (see [`crate::prefetch`]).
    #[inline]
    pub fn prefetch_lines(&self, p: &mut impl crate::prefetch::Lines) {
        p.line(self);
        p.line(&self.flow);
    }

    /// Total IP length: IP header (with option 33) + transport header (with options) + payload.
    #[inline]
    pub fn ip_len(&self) -> u32 {
        IPV4_HEADER
            + match &self.transport {
                Transport::Tcp { opts, bits, .. } => bits.ip_options_len() + TCP_HEADER + opts.wire_len(),
                Transport::Udp => UDP_HEADER,
            }
            + self.payload
    }

    /// The header bits of a TCP segment; all zero for UDP.
    #[inline]
    pub fn seg_bits(&self) -> SegBits {
        match self.transport {
            Transport::Tcp { bits, .. } => bits,
            Transport::Udp => SegBits::default(),
        }
    }

    pub fn tcp_flags(&self) -> u8 {
        match self.transport {
            Transport::Tcp { flags, .. } => flags,
            Transport::Udp => 0,
        }
    }

    /// A data-carrying TCP segment (payload or SYN/FIN) rather than a pure ACK.
    pub fn is_tcp_data(&self) -> bool {
        match self.transport {
            Transport::Tcp { flags, .. } => self.payload > 0 || flags & (tcp_flags::SYN | tcp_flags::FIN) != 0,
            Transport::Udp => false,
        }
    }
}

impl HeaderView for SimPacket {
    fn src_addr(&self) -> u32 {
        self.src
    }
    fn dst_addr(&self) -> u32 {
        self.dst
    }
    fn protocol(&self) -> u8 {
        match self.transport {
            Transport::Tcp { .. } => proto::TCP,
            Transport::Udp => proto::UDP,
        }
    }
    fn dscp(&self) -> u8 {
        self.tos.dscp()
    }
    fn ecn(&self) -> Ecn {
        self.tos.ecn()
    }
    fn ip_len(&self) -> u32 {
        SimPacket::ip_len(self)
    }
    fn src_port(&self) -> Option<u16> {
        Some(self.sport)
    }
    fn dst_port(&self) -> Option<u16> {
        Some(self.dport)
    }
    fn tcp_flags(&self) -> Option<u8> {
        match self.transport {
            Transport::Tcp { flags, .. } => Some(flags),
            Transport::Udp => None,
        }
    }
    fn tcp_seq(&self) -> Option<u32> {
        match self.transport {
            Transport::Tcp { seq, .. } => Some(seq),
            Transport::Udp => None,
        }
    }
    fn tcp_ack(&self) -> Option<u32> {
        match self.transport {
            Transport::Tcp { ack, .. } => Some(ack),
            Transport::Udp => None,
        }
    }
    fn tcp_window_field(&self) -> Option<u16> {
        match self.transport {
            Transport::Tcp { window, .. } => Some(window),
            Transport::Udp => None,
        }
    }
    fn payload_len(&self) -> u32 {
        self.payload
    }
    fn tcp_options(&self) -> TcpOptionsView {
        match &self.transport {
            Transport::Tcp { opts, .. } => TcpOptionsView { mss: opts.mss, wscale: opts.wscale, sack_permitted: opts.sack_permitted, timestamps: opts.ts },
            Transport::Udp => TcpOptionsView::default(),
        }
    }
    fn ip_reserved_flag(&self) -> bool {
        self.seg_bits().ip_reserved_flag()
    }
    fn ip_options_len(&self) -> u32 {
        self.seg_bits().ip_options_len()
    }
    fn ip_option33(&self) -> Option<Opt33> {
        self.seg_bits().opt33_len().map(|len| Opt33 { value: self.opt33, len })
    }
    fn tcp_reserved_bits(&self) -> Option<u8> {
        match self.transport {
            Transport::Tcp { bits, .. } => Some(bits.tcp_reserved()),
            Transport::Udp => None,
        }
    }
}

/// The simulator's packet is one of the two datapaths whose window `lower_window` rewrites.
/// It carries no checksum: checksums are computed from the fields whenever a packet is
/// serialized (`monitor::pcap::serialize_headers`), so they are always valid, and the
/// rewrite only sets the field. The setter can be called only by `lower_window` (it needs a
/// [`WriteToken`], which only `sluice-core` can make).
impl WindowField for SimPacket {
    fn tcp_checksum(&self) -> Option<u16> {
        None
    }
    fn write_window(&mut self, _token: WriteToken<'_>, field: u16, _checksum: Option<u16>) {
        if let Transport::Tcp { window, .. } = &mut self.transport {
            *window = field;
        }
    }
}

/// The other header bits a gateway writes, through `sluice_core::packet::signal` only, like the
/// window. No checksums to update (see [`WindowField`] above); an inserted option 33 grows
/// [`SimPacket::ip_len`] by its size.
impl SignalField for SimPacket {
    fn ip_checksum(&self) -> Option<u16> {
        None
    }
    fn write_ecn_cmi(&mut self, _token: WriteToken<'_>, ecn: Ecn, cmi: bool, _ip_checksum: Option<u16>) {
        if let Transport::Tcp { bits, .. } = &mut self.transport {
            self.tos.set_ecn(ecn);
            bits.set_ip_reserved_flag(cmi);
        }
    }
    fn write_tcp_reserved(&mut self, _token: WriteToken<'_>, new: u8, _tcp_checksum: Option<u16>) {
        if let Transport::Tcp { bits, .. } = &mut self.transport {
            bits.set_tcp_reserved(new);
        }
    }
    fn write_opt33(&mut self, _token: WriteToken<'_>, opt: Opt33) -> Result<(), HeaderSkip> {
        let Transport::Tcp { bits, .. } = &mut self.transport else { return Err(HeaderSkip::NotTcp) };
        bits.set_opt33_len(Some(opt.len));
        self.opt33 = opt.len.carry(opt.value as u64);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_sizes_match_the_wire() {
        let mut o = TcpOptions { ts: Some((1, 2)), ..Default::default() };
        assert_eq!(o.wire_len(), 12); // TS 10 -> padded 12: a 1448-byte payload makes 1500 B
        o.sack.push((1, 2));
        assert_eq!(o.wire_len(), 20);
        let syn = TcpOptions { mss: Some(1460), wscale: Some(8), sack_permitted: true, ts: Some((0, 0)), ..Default::default() };
        assert_eq!(syn.wire_len(), 20); // 4 + 3 + 2 + 10 = 19 -> 20
        // Each option alone, and SACK blocks without timestamps: 0; MSS 4; WS 3 -> 4;
        // SACK-permitted 2 -> 4; three blocks 2 + 24 = 26 -> 28.
        assert_eq!(TcpOptions::default().wire_len(), 0);
        assert_eq!(TcpOptions { mss: Some(1460), ..Default::default() }.wire_len(), 4);
        assert_eq!(TcpOptions { wscale: Some(7), ..Default::default() }.wire_len(), 4);
        assert_eq!(TcpOptions { sack_permitted: true, ..Default::default() }.wire_len(), 4);
        let mut sack = TcpOptions::default();
        for b in 0..3 {
            sack.sack.push((b, b + 1));
        }
        assert_eq!(sack.wire_len(), 28);
        assert_eq!(TcpOptions { mss: Some(1460), wscale: Some(7), ..Default::default() }.wire_len(), 8);
        let p = SimPacket {
            src: 1,
            dst: 2,
            sport: 1,
            dport: 2,
            tos: Tos::new(0, Ecn::NotEct),
            ttl: 64,
            ip_id: 0,
            transport: Transport::Tcp { seq: 0, ack: 0, flags: tcp_flags::ACK, window: 0, opts: TcpOptions { ts: Some((0, 0)), ..Default::default() }, bits: Default::default() },
            payload: 1448,
            flow: 0,
            opt33: 0,
        };
        assert_eq!(p.ip_len(), 1500);
    }

    // The packet stays two cache lines: 96 bytes at 32-byte alignment span exactly two 64-byte
    // lines wherever the slab puts it; the new header bits fill spare bytes (the TCP variant's
    // last byte, the type-of-service byte shared by DSCP and ECN).
    #[test]
    fn packet_is_two_cache_lines() {
        use std::mem::{align_of, size_of};
        assert_eq!((size_of::<SimPacket>(), align_of::<SimPacket>()), (96, 32));
        assert_eq!(size_of::<Transport>(), 68);
        assert_eq!((size_of::<Tos>(), size_of::<SegBits>()), (1, 1));
    }

    fn ack(payload: u32) -> SimPacket {
        SimPacket {
            src: 1,
            dst: 2,
            sport: 1,
            dport: 2,
            tos: Tos::new(46, Ecn::Ect0),
            ttl: 64,
            ip_id: 0,
            transport: Transport::Tcp { seq: 0, ack: 0, flags: tcp_flags::ACK, window: 9, opts: TcpOptions { ts: Some((0, 0)), ..Default::default() }, bits: SegBits::default() },
            payload,
            flow: 0,
            opt33: 0,
        }
    }

    // The header bits read back through the view, and option 33 counts in ip_len: a 1448-byte
    // segment with timestamps is 1500 B, 1508 B with the 8-byte option, refused at MTU 1500
    // and 1504 B with the 4-byte one at MTU 1504. A packet already stamped keeps its size.
    #[test]
    fn header_bits_and_option33_on_the_sim_packet() {
        use sluice_core::packet::{set_ecn_cmi, set_tcp_reserved_bit, stamp_opt33, CmtMask, Opt33Write};
        let mut p = ack(1448);
        assert_eq!((p.dscp(), p.ecn(), p.ip_reserved_flag(), p.tcp_reserved_bits(), p.ip_option33(), p.ip_options_len()), (46, Ecn::Ect0, false, Some(0), None, 0));
        assert_eq!(stamp_opt33(&mut p, 12_250, OptLen::Eight, 1500), Err(HeaderSkip::Mtu));
        assert_eq!(stamp_opt33(&mut p, 12_250, OptLen::Four, 1504), Ok(Opt33Write::Inserted { value: 12_250, len: OptLen::Four }));
        assert_eq!((p.ip_len(), p.ip_options_len()), (1504, 4));
        assert_eq!(stamp_opt33(&mut p, 100_000, OptLen::Eight, 1504), Ok(Opt33Write::Replaced { from: 12_250, to: 65_535 }));
        assert_eq!(p.ip_len(), 1504);
        let mut p = ack(1448);
        stamp_opt33(&mut p, 12_250, OptLen::Eight, 1508).unwrap();
        assert_eq!((p.ip_len(), p.ip_option33()), (1508, Some(Opt33 { value: 12_250, len: OptLen::Eight })));
        set_ecn_cmi(&mut p, Ecn::Ce, true).unwrap();
        set_tcp_reserved_bit(&mut p, CmtMask::DEFAULT, true).unwrap();
        assert_eq!((p.tos, p.ip_reserved_flag(), p.tcp_reserved_bits()), (Tos::new(46, Ecn::Ce), true, Some(0x08)));
        // Only the named bits changed.
        let mut q = ack(1448);
        if let Transport::Tcp { bits, .. } = &mut q.transport {
            bits.set_ip_reserved_flag(true);
            bits.set_tcp_reserved(0x08);
            bits.set_opt33_len(Some(OptLen::Eight));
        }
        q.tos.set_ecn(Ecn::Ce);
        q.opt33 = 12_250;
        assert_eq!(p, q);
        // A UDP packet carries none of them and is never written.
        let mut u = SimPacket { transport: Transport::Udp, ..ack(100) };
        let before = u.clone();
        assert_eq!(stamp_opt33(&mut u, 1, OptLen::Four, 1500), Err(HeaderSkip::NotTcp));
        assert_eq!(set_ecn_cmi(&mut u, Ecn::Ce, true), Err(HeaderSkip::NotTcp));
        assert_eq!((u, before.tcp_reserved_bits()), (before.clone(), None));
    }

    #[test]
    fn seg_bits_fields_are_independent() {
        let mut b = SegBits::default();
        b.set_tcp_reserved(0xff);
        b.set_opt33_len(Some(OptLen::Eight));
        b.set_ip_reserved_flag(true);
        assert_eq!((b.tcp_reserved(), b.opt33_len(), b.ip_reserved_flag(), b.ip_options_len()), (0x0f, Some(OptLen::Eight), true, 8));
        b.set_opt33_len(Some(OptLen::Four));
        b.set_tcp_reserved(0);
        assert_eq!((b.tcp_reserved(), b.opt33_len(), b.ip_reserved_flag(), b.ip_options_len()), (0, Some(OptLen::Four), true, 4));
        b.set_ip_reserved_flag(false);
        b.set_opt33_len(None);
        assert_eq!(b, SegBits::default());
        let t = Tos::new(0xff, Ecn::Ect1);
        assert_eq!((t.dscp(), t.ecn(), t.byte()), (63, Ecn::Ect1, 0xfd));
    }
}
