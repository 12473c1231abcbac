//! [`RawPacket`]: the header view over the bytes of a live IPv4 packet.
//!
//! [`RawPacket::new_checked`] validates every offset once (IPv4 header with `etherparse`, then
//! the TCP or UDP header inside the IP total length); afterwards no accessor can panic: each
//! reads at an offset proven in range, and reads through `get`, which returns zeros rather than
//! panicking even if that proof were wrong. A malformed frame is an `Err` (the gateway counts
//! it and forwards it untouched), never a crash.
//!
//! What is parsed:
//! * IPv4 only; the IP total length must lie between the header length and the buffer length
//!   (bytes past the total length, such as Ethernet padding, are ignored);
//! * TCP (data offset ≥ 5, header within the total length) and UDP (8-byte header);
//! * any other protocol, and every fragment (MF set or a non-zero offset: the transport header
//!   of a fragmented datagram is incomplete or absent), is a valid packet without a transport
//!   view: ports, flags and window are `None`, so nothing rewrites it.
//!
//! TCP options are walked here rather than with `etherparse`'s iterator, which stops at the
//! first kind it does not know (TCP Fast Open, MPTCP); like Linux's `tcp_parse_options`, the
//! walk skips unknown kinds by their length, ignores known kinds of the wrong length, and stops
//! at EOL or at a length that does not fit.

use super::checksum;
use super::signal::{find_opt33, HeaderSkip, Opt33, Opt33At, SignalField};
use super::window::{WindowField, WriteToken};
use super::{proto, Ecn, HeaderView, TcpOptionsView};
use etherparse::{Ipv4HeaderSlice, TcpHeaderSlice, UdpHeaderSlice};
use std::fmt;

/// Why bytes are not a packet [`RawPacket`] can view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Shorter than an IPv4 header, or than the header length it announces.
    Truncated { need: usize, have: usize },
    /// Version field not 4.
    NotIpv4 { version: u8 },
    /// IHL below 5.
    BadHeaderLength { ihl: u8 },
    /// IP total length below the header length or beyond the buffer.
    BadTotalLength { total: u16, header: usize, buffer: usize },
    /// TCP data offset below 5, or the TCP header does not fit in the IP payload.
    BadTcpHeader,
    /// The UDP header does not fit in the IP payload.
    BadUdpHeader,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Truncated { need, have } => write!(f, "truncated packet: {have} bytes, the header needs {need}"),
            ParseError::NotIpv4 { version } => write!(f, "not IPv4: version {version}"),
            ParseError::BadHeaderLength { ihl } => write!(f, "IPv4 header length {ihl} words is below 5"),
            ParseError::BadTotalLength { total, header, buffer } => {
                write!(f, "IPv4 total length {total} outside {header}..={buffer} (header length, buffer length)")
            }
            ParseError::BadTcpHeader => write!(f, "TCP header malformed or beyond the IP total length"),
            ParseError::BadUdpHeader => write!(f, "UDP header beyond the IP total length"),
        }
    }
}

impl std::error::Error for ParseError {}

/// The transport layer as validated.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum L4 {
    /// TCP header at `off`, `len` bytes long (options included).
    Tcp { off: usize, len: usize },
    /// UDP header at `off`.
    Udp { off: usize },
    /// Another protocol, or a fragment.
    None,
}

/// A validated packet's offsets and parsed options ([`RawPacket::layout`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RawLayout {
    ihl: u8,
    total: u16,
    l4: L4,
    opts: TcpOptionsView,
    opt33: Opt33At,
}

/// An IPv4 packet (TCP, UDP or other) in a mutable byte buffer, validated once.
#[derive(Debug)]
pub struct RawPacket<'a> {
    buf: &'a mut [u8],
    /// IPv4 header length in bytes (20..=60) and total length (≤ `buf.len()`).
    ihl: usize,
    total: usize,
    l4: L4,
    opts: TcpOptionsView,
    /// Option 33 in the IPv4 option area (offsets relative to byte 20).
    opt33: Opt33At,
}

impl<'a> RawPacket<'a> {
    /// Validate `buf` as an IPv4 packet (module doc). After `Ok`, no method panics.
    pub fn new_checked(buf: &'a mut [u8]) -> Result<RawPacket<'a>, ParseError> {
        use etherparse::err::ipv4::{HeaderError, HeaderSliceError};
        let (ihl, total, protocol, fragment) = {
            let ip = Ipv4HeaderSlice::from_slice(buf).map_err(|e| match e {
                HeaderSliceError::Len(l) => ParseError::Truncated { need: l.required_len, have: l.len },
                HeaderSliceError::Content(HeaderError::UnexpectedVersion { version_number }) => ParseError::NotIpv4 { version: version_number },
                HeaderSliceError::Content(HeaderError::HeaderLengthSmallerThanHeader { ihl }) => ParseError::BadHeaderLength { ihl },
            })?;
            let ihl = ip.ihl() as usize * 4;
            let total = ip.total_len();
            if (total as usize) < ihl || total as usize > buf.len() {
                return Err(ParseError::BadTotalLength { total, header: ihl, buffer: buf.len() });
            }
            let fragment = ip.more_fragments() || ip.fragments_offset().value() != 0;
            (ihl, total as usize, ip.protocol().0, fragment)
        };
        let opt33 = find_opt33(buf.get(20..ihl).unwrap_or(&[]));
        let seg = &buf[ihl..total];
        let mut opts = TcpOptionsView::default();
        let l4 = match protocol {
            _ if fragment => L4::None,
            proto::TCP => {
                let tcp = TcpHeaderSlice::from_slice(seg).map_err(|_| ParseError::BadTcpHeader)?;
                opts = parse_tcp_options(tcp.options());
                L4::Tcp { off: ihl, len: tcp.slice().len() }
            }
            proto::UDP => {
                UdpHeaderSlice::from_slice(seg).map_err(|_| ParseError::BadUdpHeader)?;
                L4::Udp { off: ihl }
            }
            _ => L4::None,
        };
        Ok(RawPacket { buf, ihl, total, l4, opts, opt33 })
    }

    /// What validation found, to view the same bytes again later ([`RawPacket::with_layout`])
    /// without parsing them twice.
    pub fn layout(&self) -> RawLayout {
        RawLayout { ihl: self.ihl as u8, total: self.total as u16, l4: self.l4, opts: self.opts, opt33: self.opt33 }
    }

    /// View bytes validated before, with the [`RawLayout`] their validation returned, if the
    /// header still says so: the IPv4 version and header length byte and the total length must
    /// match and fit in `buf`, else `None` (the caller validates again). Between the two views
    /// only this type's writers may have changed the bytes, and none that moves a header
    /// (window, ECN, the reserved bits, checksums, an option 33 value in place); an inserted
    /// option changes the length fields, so its old layout is refused.
    pub fn with_layout(buf: &'a mut [u8], l: RawLayout) -> Option<RawPacket<'a>> {
        let (ihl, total) = (l.ihl as usize, l.total as usize);
        let fits = total <= buf.len() && ihl >= 20 && ihl <= total;
        let same = fits && buf[0] == 0x40 | (ihl / 4) as u8 && u16::from_be_bytes([buf[2], buf[3]]) as usize == total;
        same.then_some(RawPacket { buf, ihl, total, l4: l.l4, opts: l.opts, opt33: l.opt33 })
    }

    /// The packet's bytes (the IP total length; trailing bytes of the buffer excluded).
    pub fn bytes(&self) -> &[u8] {
        self.buf.get(..self.total).unwrap_or(&[])
    }

    /// The IPv4 header length in bytes.
    pub fn header_len(&self) -> usize {
        self.ihl
    }

    // The readers: a byte past the buffer reads as 0. One bounds check for the whole field when
    // it fits (always, for the fields of a validated header), byte by byte only when it does not.
    #[inline]
    fn byte(&self, at: usize) -> u8 {
        self.buf.get(at).copied().unwrap_or(0)
    }
    #[inline]
    fn be16(&self, at: usize) -> u16 {
        match self.buf.get(at..at + 2) {
            Some(&[a, b]) => u16::from_be_bytes([a, b]),
            _ => u16::from_be_bytes([self.byte(at), self.byte(at + 1)]),
        }
    }
    #[inline]
    fn be32(&self, at: usize) -> u32 {
        match self.buf.get(at..at + 4) {
            Some(&[a, b, c, d]) => u32::from_be_bytes([a, b, c, d]),
            _ => u32::from_be_bytes([self.byte(at), self.byte(at + 1), self.byte(at + 2), self.byte(at + 3)]),
        }
    }
    fn tcp_off(&self) -> Option<usize> {
        match self.l4 {
            L4::Tcp { off, .. } => Some(off),
            _ => None,
        }
    }
    fn ports_off(&self) -> Option<usize> {
        match self.l4 {
            L4::Tcp { off, .. } | L4::Udp { off } => Some(off),
            L4::None => None,
        }
    }

    /// Whether the IPv4 header checksum verifies (RFC 791).
    pub fn ip_checksum_ok(&self) -> bool {
        self.buf.get(..self.ihl).is_some_and(|h| checksum::fold(checksum::ones_sum(h, 0)) == 0xffff)
    }

    /// Recompute the IPv4 header checksum from scratch.
    fn refresh_ip_checksum(&mut self) {
        if let Some(h) = self.buf.get_mut(..self.ihl) {
            h[10] = 0;
            h[11] = 0;
            let c = checksum::checksum(h, 0);
            h[10..12].copy_from_slice(&c.to_be_bytes());
        }
    }

    /// Whether the TCP checksum verifies over the pseudo-header and the whole segment
    /// (RFC 9293 §3.1). `None` if not TCP.
    pub fn tcp_checksum_ok(&self) -> Option<bool> {
        let off = self.tcp_off()?;
        let seg = self.buf.get(off..self.total)?;
        let src = self.buf.get(12..20)?;
        let pseudo = checksum::ones_sum(src, 0) + proto::TCP as u32 + seg.len() as u32;
        Some(checksum::fold(checksum::ones_sum(seg, pseudo)) == 0xffff)
    }
}

impl HeaderView for RawPacket<'_> {
    #[inline]
    fn src_addr(&self) -> u32 {
        self.be32(12)
    }
    #[inline]
    fn dst_addr(&self) -> u32 {
        self.be32(16)
    }
    #[inline]
    fn protocol(&self) -> u8 {
        self.byte(9)
    }
    #[inline]
    fn dscp(&self) -> u8 {
        self.byte(1) >> 2
    }
    #[inline]
    fn ecn(&self) -> Ecn {
        Ecn::from_bits(self.byte(1))
    }
    #[inline]
    fn ip_len(&self) -> u32 {
        self.total as u32
    }
    #[inline]
    fn src_port(&self) -> Option<u16> {
        self.ports_off().map(|o| self.be16(o))
    }
    #[inline]
    fn dst_port(&self) -> Option<u16> {
        self.ports_off().map(|o| self.be16(o + 2))
    }
    #[inline]
    fn tcp_flags(&self) -> Option<u8> {
        self.tcp_off().map(|o| self.byte(o + 13))
    }
    #[inline]
    fn tcp_seq(&self) -> Option<u32> {
        self.tcp_off().map(|o| self.be32(o + 4))
    }
    #[inline]
    fn tcp_ack(&self) -> Option<u32> {
        self.tcp_off().map(|o| self.be32(o + 8))
    }
    #[inline]
    fn tcp_window_field(&self) -> Option<u16> {
        self.tcp_off().map(|o| self.be16(o + 14))
    }
    #[inline]
    fn payload_len(&self) -> u32 {
        let hdr = match self.l4 {
            L4::Tcp { off, len } => off + len,
            L4::Udp { off } => off + 8,
            L4::None => self.ihl,
        };
        self.total.saturating_sub(hdr) as u32
    }
    #[inline]
    fn tcp_options(&self) -> TcpOptionsView {
        self.opts
    }
    #[inline]
    fn ip_reserved_flag(&self) -> bool {
        self.byte(6) & 0x80 != 0
    }
    #[inline]
    fn ip_options_len(&self) -> u32 {
        self.ihl.saturating_sub(20) as u32
    }
    #[inline]
    fn ip_option33(&self) -> Option<Opt33> {
        match self.opt33 {
            Opt33At::Found { opt, .. } => Some(opt),
            _ => None,
        }
    }
    #[inline]
    fn tcp_reserved_bits(&self) -> Option<u8> {
        self.tcp_off().map(|o| self.byte(o + 12) & 0x0f)
    }
}

impl SignalField for RawPacket<'_> {
    fn ip_checksum(&self) -> Option<u16> {
        Some(self.be16(10))
    }
    fn write_ecn_cmi(&mut self, _token: WriteToken<'_>, ecn: Ecn, cmi: bool, ip_checksum: Option<u16>) {
        if let Some(b) = self.buf.get_mut(1) {
            *b = (*b & !3) | ecn as u8;
        }
        if let Some(b) = self.buf.get_mut(6) {
            *b = (*b & 0x7f) | if cmi { 0x80 } else { 0 };
        }
        if let (Some(c), Some(w)) = (ip_checksum, self.buf.get_mut(10..12)) {
            w.copy_from_slice(&c.to_be_bytes());
        }
    }
    fn write_tcp_reserved(&mut self, _token: WriteToken<'_>, bits: u8, tcp_checksum: Option<u16>) {
        let Some(off) = self.tcp_off() else { return };
        if let Some(b) = self.buf.get_mut(off + 12) {
            *b = (*b & 0xf0) | (bits & 0x0f);
        }
        if let (Some(c), Some(w)) = (tcp_checksum, self.buf.get_mut(off + 16..off + 18)) {
            w.copy_from_slice(&c.to_be_bytes());
        }
    }
    fn write_opt33(&mut self, _token: WriteToken<'_>, opt: Opt33) -> Result<(), HeaderSkip> {
        let wire = opt.wire();
        match self.opt33 {
            Opt33At::Foreign => Err(HeaderSkip::ForeignOption),
            Opt33At::Found { at, opt: cur } => {
                // Same size: only the value bytes change.
                let n = cur.len.bytes() as usize;
                let v = Opt33 { value: opt.value, len: cur.len }.wire();
                let Some(w) = self.buf.get_mut(20 + at + 2..20 + at + n.min(6)) else { return Err(HeaderSkip::ForeignOption) };
                w.copy_from_slice(&v[2..n.min(6)]);
                self.opt33 = Opt33At::Found { at, opt: Opt33 { value: cur.len.carry(opt.value as u64), len: cur.len } };
                self.refresh_ip_checksum();
                Ok(())
            }
            Opt33At::Absent { end } => {
                let n = opt.len.bytes() as usize;
                if self.ihl + n > 60 {
                    return Err(HeaderSkip::OptionSpace);
                }
                if self.total + n > self.buf.len() {
                    return Err(HeaderSkip::NoHeadroom);
                }
                let at = 20 + end;
                self.buf.copy_within(at..self.total, at + n);
                self.buf[at..at + n].copy_from_slice(&wire[..n]);
                self.ihl += n;
                self.total += n;
                self.buf[0] = 0x40 | (self.ihl / 4) as u8;
                self.buf[2..4].copy_from_slice(&(self.total as u16).to_be_bytes());
                self.l4 = match self.l4 {
                    L4::Tcp { off, len } => L4::Tcp { off: off + n, len },
                    L4::Udp { off } => L4::Udp { off: off + n },
                    L4::None => L4::None,
                };
                self.opt33 = Opt33At::Found { at: end, opt: Opt33 { value: opt.len.carry(opt.value as u64), len: opt.len } };
                self.refresh_ip_checksum();
                Ok(())
            }
        }
    }
}

impl WindowField for RawPacket<'_> {
    fn tcp_checksum(&self) -> Option<u16> {
        self.tcp_off().map(|o| self.be16(o + 16))
    }
    fn write_window(&mut self, _token: WriteToken<'_>, field: u16, checksum: Option<u16>) {
        let Some(off) = self.tcp_off() else { return };
        if let Some(w) = self.buf.get_mut(off + 14..off + 16) {
            w.copy_from_slice(&field.to_be_bytes());
        }
        if let (Some(c), Some(w)) = (checksum, self.buf.get_mut(off + 16..off + 18)) {
            w.copy_from_slice(&c.to_be_bytes());
        }
    }
}

/// Walk TCP options (module doc): MSS (2, len 4), WS (3, len 3), SACK-permitted (4, len 2),
/// timestamps (8, len 10).
pub fn parse_tcp_options(o: &[u8]) -> TcpOptionsView {
    let mut v = TcpOptionsView::default();
    let mut i = 0usize;
    while let Some(&kind) = o.get(i) {
        match kind {
            0 => break,
            1 => i += 1,
            _ => {
                let Some(&len) = o.get(i + 1) else { break };
                let len = len as usize;
                let Some(body) = o.get(i + 2..i + len.max(2)) else { break };
                if len < 2 {
                    break;
                }
                match (kind, len) {
                    (2, 4) => v.mss = Some(u16::from_be_bytes([body[0], body[1]])),
                    (3, 3) => v.wscale = Some(body[0]),
                    (4, 2) => v.sack_permitted = true,
                    (8, 10) => {
                        let tsval = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
                        let tsecr = u32::from_be_bytes([body[4], body[5], body[6], body[7]]);
                        v.timestamps = Some((tsval, tsecr));
                    }
                    _ => {}
                }
                i += len;
            }
        }
    }
    v
}

#[cfg(test)]
mod tests;
