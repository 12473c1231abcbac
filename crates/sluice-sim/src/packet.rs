//! The simulator's packet: an IPv4 header plus a TCP or UDP header, payload by length only.
//!
//! Fields are the wire fields (the TCP window is the raw, scaled 16-bit value), so the header
//! view ([`HeaderView`]) and the pcap writer read exactly what a capture would show. Payload
//! bytes are not materialized: a pcap file carries zeros, and checksums are computed over them.

use sluice_core::packet::{proto, tcp_flags, Ecn, HeaderView};

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

/// The transport part of a packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    Tcp { seq: u32, ack: u32, flags: u8, window: u16, opts: TcpOptions },
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
    pub dscp: u8,
    pub ecn: Ecn,
    pub ttl: u8,
    /// IP identification (per-host counter; informational).
    pub ip_id: u16,
    pub transport: Transport,
    /// Transport payload bytes.
    pub payload: u32,
    /// Index of the flow this packet belongs to (simulator bookkeeping, not on the wire).
    pub flow: u32,
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

    /// Total IP length: IP header + transport header (with options) + payload.
    #[inline]
    pub fn ip_len(&self) -> u32 {
        IPV4_HEADER
            + match &self.transport {
                Transport::Tcp { opts, .. } => TCP_HEADER + opts.wire_len(),
                Transport::Udp => UDP_HEADER,
            }
            + self.payload
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
        self.dscp
    }
    fn ecn(&self) -> Ecn {
        self.ecn
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
        let p = SimPacket {
            src: 1,
            dst: 2,
            sport: 1,
            dport: 2,
            dscp: 0,
            ecn: Ecn::NotEct,
            ttl: 64,
            ip_id: 0,
            transport: Transport::Tcp { seq: 0, ack: 0, flags: tcp_flags::ACK, window: 0, opts: TcpOptions { ts: Some((0, 0)), ..Default::default() } },
            payload: 1448,
            flow: 0,
        };
        assert_eq!(p.ip_len(), 1500);
    }
}
