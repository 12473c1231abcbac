//! Classic pcap files (nanosecond timestamps, `LINKTYPE_PPP`) of simulated packets.
//!
//! Each record is a 2-byte PPP protocol field (`0x0021`, IPv4; no HDLC address/control bytes)
//! followed by the IPv4 header, the TCP or UDP header and the payload as zeros, cut at the
//! snap length. The original length is always the full `2 + ip_len`, and every checksum is
//! computed over the full packet (payload zeros add nothing to the one's-complement sum, but the
//! lengths in the IP header and pseudo-header are the full lengths), so Wireshark/tshark verify
//! them even on truncated records.
//!
//! The file is byte-identical across platforms: all file-level fields are written little-endian
//! (readers detect the byte order from the magic number).
//!
//! The writer keeps one scratch buffer and issues one `write_all` per packet; wrap a file in a
//! [`std::io::BufWriter`] for good throughput.

use std::io::{self, Write};

use sluice_core::packet::checksum::{checksum, fold, ones_sum};
use sluice_core::packet::{proto, HeaderView};
use sluice_core::Time;

use crate::packet::{SimPacket, TcpOptions, Transport, IPV4_HEADER, TCP_HEADER};
#[cfg(test)]
use crate::packet::Tos;

/// Magic number of a classic pcap file with nanosecond-resolution timestamps.
pub const PCAP_MAGIC_NSEC: u32 = 0xa1b2_3c4d;
/// `LINKTYPE_PPP`: the packet starts with the PPP protocol field.
pub const LINKTYPE_PPP: u32 = 9;
/// PPP protocol number of IPv4 (RFC 1332).
pub const PPP_PROTO_IPV4: u16 = 0x0021;
/// Bytes of PPP header in front of every IP packet.
pub const PPP_HEADER: u32 = 2;
/// Largest TCP option space (data offset 15 words minus the fixed 20-byte header).
pub const MAX_TCP_OPTIONS: u32 = 40;

const GLOBAL_HEADER_LEN: usize = 24;
const RECORD_HEADER_LEN: usize = 16;

/// TCP option kinds (RFC 9293, RFC 7323, RFC 2018).
mod opt {
    pub const EOL: u8 = 0;
    pub const NOP: u8 = 1;
    pub const MSS: u8 = 2;
    pub const WSCALE: u8 = 3;
    pub const SACK_PERMITTED: u8 = 4;
    pub const SACK: u8 = 5;
    pub const TIMESTAMPS: u8 = 8;
}

/// Writes a classic pcap stream of [`SimPacket`]s.
pub struct PcapWriter<W: Write> {
    out: W,
    snaplen: u32,
    /// Scratch record (record header + captured bytes); reused, so steady state allocates nothing.
    buf: Vec<u8>,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the global header. `snaplen` (bytes captured per packet, counting the 2-byte PPP
    /// header) must be at least 1.
    pub fn new(mut out: W, snaplen: u32) -> io::Result<Self> {
        if snaplen == 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "pcap snaplen must be at least 1"));
        }
        let mut h = [0u8; GLOBAL_HEADER_LEN];
        h[0..4].copy_from_slice(&PCAP_MAGIC_NSEC.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes()); // version major
        h[6..8].copy_from_slice(&4u16.to_le_bytes()); // version minor; thiszone, sigfigs stay 0
        h[16..20].copy_from_slice(&snaplen.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_PPP.to_le_bytes());
        out.write_all(&h)?;
        // Headers are at most 2 + 20 + 60 bytes; reserve the common case up front.
        let cap = RECORD_HEADER_LEN + (snaplen.min(2048) as usize);
        Ok(PcapWriter { out, snaplen, buf: Vec::with_capacity(cap) })
    }

    pub fn snaplen(&self) -> u32 {
        self.snaplen
    }

    /// Writes one record for `pkt` sent at `t`.
    ///
    /// Fails with [`io::ErrorKind::InvalidInput`] (writing nothing) if the packet cannot be
    /// represented on the wire: IP total length over 65535, or TCP options over 40 bytes.
    pub fn write(&mut self, t: Time, pkt: &SimPacket) -> io::Result<()> {
        check_representable(pkt)?;
        let orig_len = PPP_HEADER + pkt.ip_len();
        let incl_len = orig_len.min(self.snaplen);

        let buf = &mut self.buf;
        buf.clear();
        let ns = t.0;
        buf.extend_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        buf.extend_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        buf.extend_from_slice(&incl_len.to_le_bytes());
        buf.extend_from_slice(&orig_len.to_le_bytes());
        buf.extend_from_slice(&PPP_PROTO_IPV4.to_be_bytes());
        serialize_headers(pkt, buf);
        // Cut to the snap length, or extend with the zero payload up to it.
        buf.resize(RECORD_HEADER_LEN + incl_len as usize, 0);
        self.out.write_all(buf)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Whether `pkt` fits the wire formats: IPv4 total length ≤ 65535 and TCP options ≤ 40 bytes.
fn check_representable(pkt: &SimPacket) -> io::Result<()> {
    if let Transport::Tcp { opts, .. } = &pkt.transport {
        if opts.wire_len() > MAX_TCP_OPTIONS {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("TCP options of {} bytes exceed the 40-byte option space", opts.wire_len()),
            ));
        }
    }
    if pkt.ip_len() > u16::MAX as u32 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("IP total length {} exceeds 65535", pkt.ip_len()),
        ));
    }
    Ok(())
}

/// Appends the IPv4 header and the TCP or UDP header (with options, checksums filled in) of
/// `pkt` to `buf`. The payload is not written; the transport checksum covers it as zeros.
///
/// Precondition: the packet is representable (IP total length ≤ 65535, TCP options ≤ 40 bytes);
/// [`PcapWriter::write`] checks this. Otherwise length fields are truncated (debug builds panic).
pub fn serialize_headers(pkt: &SimPacket, buf: &mut Vec<u8>) {
    debug_assert!(check_representable(pkt).is_ok(), "packet not representable on the wire");
    let ip_len = pkt.ip_len();
    let seg_bits = pkt.seg_bits();
    let ihl = IPV4_HEADER + seg_bits.ip_options_len();
    let l4_len = ip_len - ihl; // transport header + options + payload
    let protocol = match pkt.transport {
        Transport::Tcp { .. } => proto::TCP,
        Transport::Udp => proto::UDP,
    };

    // IPv4 header (RFC 791), with option 33 when the packet carries it.
    let ip = buf.len();
    buf.push(0x40 | (ihl / 4) as u8); // version 4, IHL
    buf.push(pkt.tos.byte());
    buf.extend_from_slice(&(ip_len as u16).to_be_bytes());
    buf.extend_from_slice(&pkt.ip_id.to_be_bytes());
    // Reserved flag (ACNS's CMI), DF, fragment offset 0.
    let ip_flags = 0x4000u16 | if seg_bits.ip_reserved_flag() { 0x8000 } else { 0 };
    buf.extend_from_slice(&ip_flags.to_be_bytes());
    buf.push(pkt.ttl);
    buf.push(protocol);
    buf.extend_from_slice(&[0, 0]); // header checksum, below
    buf.extend_from_slice(&pkt.src.to_be_bytes());
    buf.extend_from_slice(&pkt.dst.to_be_bytes());
    if let Some(o) = pkt.ip_option33() {
        buf.extend_from_slice(&o.wire()[..o.len.bytes() as usize]);
    }
    let c = checksum(&buf[ip..ip + ihl as usize], 0);
    buf[ip + 10..ip + 12].copy_from_slice(&c.to_be_bytes());

    // Pseudo-header (RFC 9293 §3.1, RFC 768): src, dst, zero + protocol, transport length.
    let pseudo = ones_sum(&buf[ip + 12..ip + 20], 0) + protocol as u32 + l4_len;

    let l4 = buf.len();
    buf.extend_from_slice(&pkt.sport.to_be_bytes());
    buf.extend_from_slice(&pkt.dport.to_be_bytes());
    let csum_at = match &pkt.transport {
        Transport::Tcp { seq, ack, flags, window, opts, bits } => {
            let data_offset = ((TCP_HEADER + opts.wire_len()) / 4) as u8;
            buf.extend_from_slice(&seq.to_be_bytes());
            buf.extend_from_slice(&ack.to_be_bytes());
            buf.push(data_offset << 4 | bits.tcp_reserved()); // NS/AE and reserved bits
            buf.push(*flags);
            buf.extend_from_slice(&window.to_be_bytes());
            buf.extend_from_slice(&[0, 0]); // checksum, below
            buf.extend_from_slice(&[0, 0]); // urgent pointer
            write_tcp_options(opts, buf);
            l4 + 16
        }
        Transport::Udp => {
            buf.extend_from_slice(&(l4_len as u16).to_be_bytes());
            buf.extend_from_slice(&[0, 0]); // checksum, below
            l4 + 6
        }
    };
    // The header length is even, so the zero payload would start word-aligned: it adds nothing.
    let mut c = !fold(ones_sum(&buf[l4..], pseudo));
    if c == 0 && protocol == proto::UDP {
        c = 0xffff; // RFC 768: a computed zero is sent as all ones (0 means "no checksum")
    }
    buf[csum_at..csum_at + 2].copy_from_slice(&c.to_be_bytes());
}

/// Appends the TCP options in the order MSS, SACK-permitted, Timestamps, Window scale, SACK,
/// then pads with EOL (and zero bytes, i.e. more EOL) to exactly [`TcpOptions::wire_len`].
fn write_tcp_options(o: &TcpOptions, buf: &mut Vec<u8>) {
    let start = buf.len();
    if let Some(mss) = o.mss {
        buf.extend_from_slice(&[opt::MSS, 4]);
        buf.extend_from_slice(&mss.to_be_bytes());
    }
    if o.sack_permitted {
        buf.extend_from_slice(&[opt::SACK_PERMITTED, 2]);
    }
    if let Some((tsval, tsecr)) = o.ts {
        buf.extend_from_slice(&[opt::TIMESTAMPS, 10]);
        buf.extend_from_slice(&tsval.to_be_bytes());
        buf.extend_from_slice(&tsecr.to_be_bytes());
    }
    let end = start + o.wire_len() as usize;
    if let Some(shift) = o.wscale {
        // Linux's SYN layout (MSS, SACK_PERM, TS, NOP, WS) when the padding allows it.
        let unpadded_rest = 3 + if o.sack.n > 0 { 2 + 8 * o.sack.n as usize } else { 0 };
        if buf.len() + 1 + unpadded_rest <= end {
            buf.push(opt::NOP);
        }
        buf.extend_from_slice(&[opt::WSCALE, 3, shift]);
    }
    let sack = o.sack.as_slice();
    if !sack.is_empty() {
        buf.extend_from_slice(&[opt::SACK, (2 + 8 * sack.len()) as u8]);
        for &(left, right) in sack {
            buf.extend_from_slice(&left.to_be_bytes());
            buf.extend_from_slice(&right.to_be_bytes());
        }
    }
    debug_assert!(buf.len() <= end);
    buf.resize(end, opt::EOL);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::UDP_HEADER;
    use sluice_core::packet::{tcp_flags, Ecn};

    const A: u32 = 0x0a00_0001; // 10.0.0.1
    const B: u32 = 0x0a00_0102; // 10.0.1.2

    fn tcp(flags: u8, opts: TcpOptions, payload: u32) -> SimPacket {
        SimPacket {
            src: A,
            dst: B,
            sport: 40000,
            dport: 5001,
            tos: Tos::new(10, Ecn::Ect0),
            ttl: 63,
            ip_id: 0x1234,
            transport: Transport::Tcp { seq: 0xdead_beef, ack: 0x0102_0304, flags, window: 0xfffe, opts, bits: Default::default() },
            payload,
            flow: 0,
            opt33: 0,
        }
    }

    fn udp(payload: u32) -> SimPacket {
        SimPacket { transport: Transport::Udp, ..tcp(0, TcpOptions::default(), payload) }
    }

    fn syn_opts() -> TcpOptions {
        TcpOptions { mss: Some(1460), wscale: Some(7), sack_permitted: true, ts: Some((1000, 0)), ..Default::default() }
    }

    fn ts_sack(n: usize) -> TcpOptions {
        let mut o = TcpOptions { ts: Some((5000, 4000)), ..Default::default() };
        for i in 0..n as u32 {
            o.sack.push((100_000 + 3000 * i, 101_448 + 3000 * i));
        }
        o
    }

    fn ser(p: &SimPacket) -> Vec<u8> {
        let mut b = Vec::new();
        serialize_headers(p, &mut b);
        b
    }

    /// Sum of the pseudo-header, transport header and (zero) payload, folded: 0xFFFF if valid.
    fn transport_sum(b: &[u8], l4_len: u32) -> u16 {
        let pseudo = ones_sum(&b[12..20], 0) + b[9] as u32 + l4_len;
        // Zero payload bytes contribute nothing; append them anyway to check the claim.
        let mut seg = b[20..].to_vec();
        seg.resize(l4_len as usize, 0);
        fold(ones_sum(&seg, pseudo))
    }

    /// Walks the option list, returning (kind, len) pairs; EOL ends it.
    fn option_kinds(opts: &[u8]) -> Vec<(u8, u8)> {
        let mut v = Vec::new();
        let mut i = 0;
        while i < opts.len() {
            match opts[i] {
                0 => {
                    v.push((0, 1));
                    assert!(opts[i..].iter().all(|&x| x == 0), "bytes after EOL must be zero");
                    break;
                }
                1 => {
                    v.push((1, 1));
                    i += 1;
                }
                k => {
                    let l = opts[i + 1];
                    assert!(l >= 2 && i + l as usize <= opts.len(), "option {k} overruns");
                    v.push((k, l));
                    i += l as usize;
                }
            }
        }
        v
    }

    #[test]
    fn syn_header_bytes() {
        let p = tcp(tcp_flags::SYN, syn_opts(), 0);
        let b = ser(&p);
        assert_eq!(b.len() as u32, p.ip_len());
        assert_eq!(b.len(), 20 + 20 + 20);
        // IPv4
        assert_eq!(b[0], 0x45);
        assert_eq!(b[1], (10 << 2) | 0b10);
        assert_eq!(u16::from_be_bytes([b[2], b[3]]), 60);
        assert_eq!(&b[4..6], &[0x12, 0x34]);
        assert_eq!(&b[6..8], &[0x40, 0x00]);
        assert_eq!(b[8], 63);
        assert_eq!(b[9], 6);
        assert_eq!(&b[12..16], &[10, 0, 0, 1]);
        assert_eq!(&b[16..20], &[10, 0, 1, 2]);
        assert_eq!(fold(ones_sum(&b[..20], 0)), 0xffff, "IP header checksum verifies");
        // TCP
        let t = &b[20..];
        assert_eq!(u16::from_be_bytes([t[0], t[1]]), 40000);
        assert_eq!(u16::from_be_bytes([t[2], t[3]]), 5001);
        assert_eq!(&t[4..8], &[0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(&t[8..12], &[1, 2, 3, 4]);
        assert_eq!(t[12] >> 4, 10, "data offset: 40 bytes");
        assert_eq!(t[12] & 0x0f, 0);
        assert_eq!(t[13], tcp_flags::SYN);
        assert_eq!(&t[14..16], &[0xff, 0xfe]);
        assert_eq!(&t[18..20], &[0, 0], "urgent pointer");
        #[rustfmt::skip]
        let expected_opts = [
            2, 4, 0x05, 0xb4,                    // MSS 1460
            4, 2,                                // SACK permitted
            8, 10, 0, 0, 0x03, 0xe8, 0, 0, 0, 0, // TS 1000, 0
            1,                                   // NOP
            3, 3, 7,                             // WS 7
        ];
        assert_eq!(&t[20..], &expected_opts);
        assert_eq!(transport_sum(&b, 40), 0xffff, "TCP checksum verifies");
    }

    // NGWA and ACNS bits on the wire. A 100-byte data segment with timestamps (20 + 12 TCP
    // header) stamped with W = 12,250 in the 8-byte option, CMI and CMT set:
    // IHL 7 (byte 0 = 0x47), total 28 + 32 + 100 = 160 = 0x00A0, flags 0xC0 (reserved + DF),
    // option bytes 21 06 00 00 2F DA 01 00 (type 33, length 6, 0x00002FDA = 12,250, NOP, EOL),
    // TCP byte 12 = data offset 8 << 4 | 0x08 = 0x88. With the 4-byte option and 100,000:
    // IHL 6, 21 04 FF FF (saturated at 65,535).
    #[test]
    fn stamped_header_bytes() {
        use sluice_core::packet::OptLen;
        let mut p = tcp(tcp_flags::ACK, TcpOptions { ts: Some((1, 2)), ..Default::default() }, 100);
        p.opt33 = 12_250;
        if let Transport::Tcp { bits, .. } = &mut p.transport {
            bits.set_ip_reserved_flag(true);
            bits.set_tcp_reserved(0x08);
            bits.set_opt33_len(Some(OptLen::Eight));
        }
        let b = ser(&p);
        assert_eq!((b[0], &b[2..4], b[6], b[7]), (0x47, &[0x00, 0xA0][..], 0xC0, 0x00));
        assert_eq!(&b[20..28], &[0x21, 0x06, 0x00, 0x00, 0x2F, 0xDA, 0x01, 0x00]);
        assert_eq!((b[28 + 12], b[28 + 13]), (0x88, tcp_flags::ACK));
        assert_eq!(fold(ones_sum(&b[..28], 0)), 0xffff, "IP header checksum over the options");
        let pseudo = ones_sum(&b[12..20], 0) + 6 + (160 - 28);
        assert_eq!(fold(ones_sum(&b[28..], pseudo)), 0xffff, "TCP checksum");
        p.opt33 = 100_000;
        if let Transport::Tcp { bits, .. } = &mut p.transport {
            bits.set_opt33_len(Some(OptLen::Four));
        }
        let b = ser(&p);
        assert_eq!((b[0], &b[20..24]), (0x46, &[0x21, 0x04, 0xFF, 0xFF][..]));
        assert_eq!(fold(ones_sum(&b[..24], 0)), 0xffff);
    }

    #[test]
    fn ack_with_ts_and_sack_layout_and_checksum() {
        let p = tcp(tcp_flags::ACK, ts_sack(2), 1000);
        let b = ser(&p);
        let t = &b[20..];
        assert_eq!(t[12] >> 4, 5 + 7, "20 + TS 10 + SACK 18 = 48 bytes");
        assert_eq!(option_kinds(&t[20..]), vec![(8, 10), (5, 18)]);
        assert_eq!(&t[32..40], &[0, 1, 0x86, 0xa0, 0, 1, 0x8c, 0x48]); // 100000, 101448
        assert_eq!(u16::from_be_bytes([b[2], b[3]]) as u32, p.ip_len());
        assert_eq!(fold(ones_sum(&b[..20], 0)), 0xffff);
        assert_eq!(transport_sum(&b, p.ip_len() - 20), 0xffff);
    }

    #[test]
    fn udp_header_and_checksum() {
        for payload in [0, 1, 7, 1472] {
            let p = udp(payload);
            let b = ser(&p);
            assert_eq!(b.len(), 28);
            assert_eq!(b[9], 17);
            assert_eq!(u16::from_be_bytes([b[2], b[3]]) as u32, 28 + payload);
            assert_eq!(u16::from_be_bytes([b[24], b[25]]) as u32, 8 + payload, "UDP length");
            assert_ne!(&b[26..28], &[0, 0]);
            assert_eq!(fold(ones_sum(&b[..20], 0)), 0xffff);
            assert_eq!(transport_sum(&b, 8 + payload), 0xffff);
        }
    }

    #[test]
    fn udp_zero_checksum_is_sent_as_all_ones() {
        // Search for a packet whose computed UDP checksum is 0 (sum folds to 0xFFFF).
        let mut hit = None;
        for sport in 0..=u16::MAX {
            let p = SimPacket { sport, ..udp(0) };
            let mut b = ser(&p);
            b[26] = 0;
            b[27] = 0;
            if checksum(&b[20..], ones_sum(&b[12..20], 0) + 17 + 8) == 0 {
                hit = Some(p);
                break;
            }
        }
        let p = hit.expect("some source port gives a zero checksum");
        let b = ser(&p);
        assert_eq!(&b[26..28], &[0xff, 0xff]);
        assert_eq!(transport_sum(&b, 8), 0xffff, "0xFFFF verifies as well");
    }

    #[test]
    fn options_length_equals_wire_len() {
        let mut cases = vec![
            TcpOptions::default(),
            syn_opts(),
            TcpOptions { mss: Some(1460), ..Default::default() },
            TcpOptions { mss: Some(1460), wscale: Some(0), ..Default::default() },
            TcpOptions { mss: Some(536), sack_permitted: true, ..Default::default() },
            TcpOptions { wscale: Some(14), ts: Some((1, 2)), ..Default::default() },
            TcpOptions { ts: Some((1, 2)), ..Default::default() },
        ];
        for n in 1..=3 {
            cases.push(ts_sack(n));
        }
        let mut no_ts = TcpOptions::default();
        for n in 1..=4 {
            no_ts.sack.push((n, n + 1));
            cases.push(no_ts);
        }
        for o in cases {
            let p = tcp(tcp_flags::ACK, o, 100);
            let b = ser(&p);
            let opts = &b[40..];
            assert_eq!(opts.len() as u32, o.wire_len(), "{o:?}");
            assert_eq!((b[32] >> 4) as u32 * 4, 20 + o.wire_len(), "{o:?}");
            let kinds: Vec<u8> = option_kinds(opts).into_iter().map(|(k, _)| k).filter(|&k| k > 1).collect();
            let mut want = Vec::new();
            if o.mss.is_some() {
                want.push(2);
            }
            if o.sack_permitted {
                want.push(4);
            }
            if o.ts.is_some() {
                want.push(8);
            }
            if o.wscale.is_some() {
                want.push(3);
            }
            if o.sack.n > 0 {
                want.push(5);
            }
            assert_eq!(kinds, want, "{o:?}");
            assert_eq!(fold(ones_sum(&b[..20], 0)), 0xffff);
            assert_eq!(transport_sum(&b, p.ip_len() - 20), 0xffff, "{o:?}");
        }
    }

    #[test]
    fn odd_payload_and_odd_option_checksums() {
        // Odd payload lengths with every header layout: zeros never change the sum.
        for payload in [1, 3, 1447] {
            for o in [TcpOptions::default(), syn_opts(), ts_sack(3)] {
                let p = tcp(tcp_flags::ACK | tcp_flags::PSH, o, payload);
                let b = ser(&p);
                assert_eq!(transport_sum(&b, p.ip_len() - 20), 0xffff);
            }
        }
    }

    #[test]
    fn unrepresentable_packets_are_rejected() {
        let mut o = syn_opts();
        for i in 0..4 {
            o.sack.push((i, i + 1));
        }
        let mut w = PcapWriter::new(Vec::new(), 128).unwrap();
        let e = w.write(Time::ZERO, &tcp(tcp_flags::ACK, o, 0)).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        let e = w.write(Time::ZERO, &udp(70_000)).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(w.get_ref().len(), GLOBAL_HEADER_LEN, "nothing written");
        assert!(PcapWriter::new(Vec::new(), 0).is_err());
    }

    #[test]
    fn file_and_record_headers() {
        let mut w = PcapWriter::new(Vec::new(), 100).unwrap();
        let p = tcp(tcp_flags::ACK, ts_sack(1), 1448);
        w.write(Time(3_000_000_123), &p).unwrap();
        let small = udp(10);
        w.write(Time(3_500_000_000), &small).unwrap();
        let cap = w.buf.capacity();
        w.write(Time(4_000_000_000), &p).unwrap();
        assert_eq!(w.buf.capacity(), cap, "buffer reused");
        let f = w.into_inner().unwrap();
        assert_eq!(&f[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(&f[4..8], &[2, 0, 4, 0]);
        assert_eq!(&f[16..20], &100u32.to_le_bytes());
        assert_eq!(&f[20..24], &9u32.to_le_bytes());
        let r = &f[24..];
        let le = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        assert_eq!((le(&r[0..]), le(&r[4..]), le(&r[8..]), le(&r[12..])), (3, 123, 100, 2 + p.ip_len()));
        assert_eq!(&r[16..18], &[0x00, 0x21]);
        assert_eq!(&r[18..18 + 60], &ser(&p)[..], "headers then zeros, cut at snaplen");
        assert!(r[18 + 60..116].iter().all(|&x| x == 0));
        let r = &r[116..];
        assert_eq!((le(&r[0..]), le(&r[4..]), le(&r[8..]), le(&r[12..])), (3, 500_000_000, 40, 40));
        assert_eq!(&r[18..46], &ser(&small)[..]);
        assert!(r[46..56].iter().all(|&x| x == 0));
        assert_eq!(r.len(), 56 + 116);
    }

    /// A coherent exchange as captured at the sender, with the instants its packets leave:
    /// handshake, seven data segments of which the receiver misses 0, 2 and 4 (so its ACKs
    /// carry 1, 2 and 3 SACK blocks), an odd-length segment, a CE-marked segment with CWR and
    /// the ACK echoing it with ECE, FIN, then UDP datagrams; the sender's ISN is close to wrap.
    fn exchange() -> Vec<(Time, SimPacket)> {
        let (s0, r0) = (0xffff_f000u32, 0x1000_0000u32);
        let seg = |k: u32| s0.wrapping_add(1 + 1448 * k);
        let a2b = |seq: u32, ack: u32, flags: u8, opts: TcpOptions, payload: u32| SimPacket {
            transport: Transport::Tcp { seq, ack, flags, window: 502, opts, bits: Default::default() },
            ..tcp(0, TcpOptions::default(), payload)
        };
        let b2a = |seq: u32, ack: u32, flags: u8, opts: TcpOptions| {
            let mut p = a2b(seq, ack, flags, opts, 0);
            std::mem::swap(&mut p.src, &mut p.dst);
            std::mem::swap(&mut p.sport, &mut p.dport);
            p
        };
        let ts = |v: u32| TcpOptions { ts: Some((v, v.wrapping_sub(7))), ..Default::default() };
        let sacked = |v: u32, blocks: &[u32]| {
            let mut o = ts(v);
            for &k in blocks {
                o.sack.push((seg(k), seg(k + 1)));
            }
            o
        };
        let syn_ack_opts = TcpOptions { ts: Some((2000, 1000)), ..syn_opts() };
        let mut pkts = vec![
            a2b(s0, 0, tcp_flags::SYN, syn_opts(), 0),
            b2a(r0, s0.wrapping_add(1), tcp_flags::SYN | tcp_flags::ACK, syn_ack_opts),
            a2b(seg(0), r0 + 1, tcp_flags::ACK, ts(1001), 0),
        ];
        for k in 0..7 {
            pkts.push(a2b(seg(k), r0 + 1, tcp_flags::ACK, ts(1002 + k), 1448));
        }
        pkts.push(b2a(r0 + 1, seg(0), tcp_flags::ACK, sacked(2010, &[1])));
        pkts.push(b2a(r0 + 1, seg(0), tcp_flags::ACK, sacked(2011, &[3, 1])));
        pkts.push(b2a(r0 + 1, seg(0), tcp_flags::ACK, sacked(2012, &[5, 3, 1])));
        let after_odd = seg(7).wrapping_add(1);
        pkts.push(a2b(seg(7), r0 + 1, tcp_flags::ACK | tcp_flags::PSH, ts(1020), 1)); // odd length
        pkts.push(SimPacket { tos: Tos::new(10, Ecn::Ce), ..a2b(after_odd, r0 + 1, tcp_flags::ACK | tcp_flags::CWR, ts(1021), 1448) });
        pkts.push(b2a(r0 + 1, after_odd.wrapping_add(1448), tcp_flags::ACK | tcp_flags::ECE, ts(2013)));
        // ACNS and NGWA header bits: a data segment asking for a command (ECT(0) + CMI, ACNS's
        // I4) stamped with an 8-byte option 33, and the ACK of it echoing a freeze (ECE + CMT,
        // T5) stamped with a 4-byte one that saturated.
        let mut i4 = a2b(after_odd.wrapping_add(1448), r0 + 1, tcp_flags::ACK, ts(1022), 1448);
        i4.opt33 = 12_250;
        if let Transport::Tcp { bits, .. } = &mut i4.transport {
            bits.set_ip_reserved_flag(true);
            bits.set_opt33_len(Some(sluice_core::packet::OptLen::Eight));
        }
        pkts.push(i4);
        let mut t5 = b2a(r0 + 1, after_odd.wrapping_add(2896), tcp_flags::ACK | tcp_flags::ECE, ts(2014));
        t5.opt33 = 65_535;
        if let Transport::Tcp { bits, .. } = &mut t5.transport {
            bits.set_tcp_reserved(0x08);
            bits.set_opt33_len(Some(sluice_core::packet::OptLen::Four));
        }
        pkts.push(t5);
        pkts.push(a2b(after_odd.wrapping_add(2896), r0 + 1, tcp_flags::FIN | tcp_flags::ACK, ts(1023), 0));
        pkts.extend([udp(0), udp(1472), udp(33)]);
        pkts.into_iter().enumerate().map(|(i, p)| (Time(1_000_000_000 + 250_000 * i as u64 + 7), p)).collect()
    }

    fn capture(pkts: &[(Time, SimPacket)], snaplen: u32) -> Vec<u8> {
        let mut w = PcapWriter::new(Vec::new(), snaplen).unwrap();
        for (t, p) in pkts {
            w.write(*t, p).unwrap();
        }
        w.into_inner().unwrap()
    }

    /// The options a parser reads from the segment, in order, without NOP padding.
    fn expected_options(o: &TcpOptions) -> Vec<etherparse::TcpOptionElement> {
        use etherparse::TcpOptionElement as E;
        let mut v = Vec::new();
        if let Some(mss) = o.mss {
            v.push(E::MaximumSegmentSize(mss));
        }
        if o.sack_permitted {
            v.push(E::SelectiveAcknowledgementPermitted);
        }
        if let Some((val, ecr)) = o.ts {
            v.push(E::Timestamp(val, ecr));
        }
        if let Some(shift) = o.wscale {
            v.push(E::WindowScale(shift));
        }
        if let [first, rest @ ..] = o.sack.as_slice() {
            let mut more = [None; 3];
            for (m, b) in more.iter_mut().zip(rest) {
                *m = Some(*b);
            }
            v.push(E::SelectiveAcknowledgement(*first, more));
        }
        v
    }

    /// Reads `file` back with parsers of other authors (pcap-parser for the file and record
    /// headers, etherparse for the packets) and checks every field written against the packet
    /// it came from, and every checksum over the packet's full length (the payload as zeros,
    /// whatever the snap length cut).
    fn read_back(file: &[u8], snaplen: u32, sent: &[(Time, SimPacket)]) {
        use etherparse::{IpNumber, Ipv4Header, TcpHeader, UdpHeader};
        let cap = pcap_parser::PcapCapture::from_file(file).expect("pcap-parser reads the file");
        let h = &cap.header;
        assert!(h.is_nanosecond_precision() && !h.is_bigendian(), "magic {:#x}", h.magic_number);
        assert_eq!((h.version_major, h.version_minor, h.thiszone, h.sigfigs, h.snaplen), (2, 4, 0, 0, snaplen));
        assert_eq!(h.network, pcap_parser::Linktype(9), "LINKTYPE_PPP");
        assert_eq!(cap.blocks.len(), sent.len());
        for (i, (b, (t, p))) in cap.blocks.iter().zip(sent).enumerate() {
            let orig = PPP_HEADER + p.ip_len();
            assert_eq!((b.ts_sec as u64, b.ts_usec as u64), (t.0 / 1_000_000_000, t.0 % 1_000_000_000), "record {i}: time");
            assert_eq!((b.caplen, b.origlen, b.data.len()), (orig.min(snaplen), orig, orig.min(snaplen) as usize), "record {i}: lengths");
            assert_eq!(&b.data[..2], &[0x00, 0x21], "record {i}: PPP protocol field, IPv4");
            let (ip, rest) = Ipv4Header::from_slice(&b.data[2..]).unwrap_or_else(|e| panic!("record {i}: IPv4 header: {e}"));
            assert_eq!(ip.header_len() as u32, 20 + p.ip_options_len(), "record {i}: IHL");
            let want_opts = p.ip_option33().map(|o| o.wire()[..o.len.bytes() as usize].to_vec()).unwrap_or_default();
            assert_eq!(ip.options.as_slice(), &want_opts[..], "record {i}: IP options");
            assert_eq!(b.data[2 + 6] & 0x80 != 0, p.ip_reserved_flag(), "record {i}: reserved flag");
            assert_eq!((ip.dscp.value(), ip.ecn.value(), ip.total_len as u32, ip.identification), (p.tos.dscp(), p.tos.ecn() as u8, p.ip_len(), p.ip_id), "record {i}");
            assert_eq!((ip.dont_fragment, ip.more_fragments, ip.fragment_offset.value()), (true, false, 0), "record {i}: DF, not fragmented");
            assert_eq!((ip.time_to_live, ip.source, ip.destination), (p.ttl, p.src.to_be_bytes(), p.dst.to_be_bytes()), "record {i}");
            // etherparse keeps no reserved flag, so its recomputed sum is checked only without
            // one; the bytes are summed in every case.
            if !p.ip_reserved_flag() {
                assert_eq!(ip.header_checksum, ip.calc_header_checksum(), "record {i}: IPv4 header checksum");
            }
            assert_eq!(fold(ones_sum(&b.data[2..2 + ip.header_len()], 0)), 0xffff, "record {i}: IPv4 header checksum");
            let zeros = vec![0u8; p.payload as usize];
            match p.transport {
                Transport::Tcp { seq, ack, flags, window, opts, .. } => {
                    assert_eq!(ip.protocol, IpNumber::TCP, "record {i}");
                    let (tcp, data) = TcpHeader::from_slice(rest).unwrap_or_else(|e| panic!("record {i}: TCP header: {e}"));
                    assert_eq!((tcp.source_port, tcp.destination_port, tcp.sequence_number, tcp.acknowledgment_number), (p.sport, p.dport, seq, ack), "record {i}");
                    let bits = [tcp.fin, tcp.syn, tcp.rst, tcp.psh, tcp.ack, tcp.urg, tcp.ece, tcp.cwr];
                    let read = bits.iter().enumerate().fold(0u8, |f, (k, &on)| f | (on as u8) << k);
                    let reserved = b.data[2 + ip.header_len() + 12] & 0x0f;
                    assert_eq!((read, tcp.ns, Some(reserved)), (flags, reserved & 1 != 0, p.tcp_reserved_bits()), "record {i}: flags, reserved bits");
                    assert_eq!((tcp.window_size, tcp.urgent_pointer), (window, 0), "record {i}");
                    assert_eq!(tcp.header_len() as u32, TCP_HEADER + opts.wire_len(), "record {i}: data offset");
                    let read: Vec<_> = tcp.options_iterator().map(|o| o.unwrap_or_else(|e| panic!("record {i}: option: {e:?}"))).filter(|o| *o != etherparse::TcpOptionElement::Noop).collect();
                    assert_eq!(read, expected_options(&opts), "record {i}: options");
                    assert!(data.iter().all(|&x| x == 0) && data.len() <= zeros.len(), "record {i}: payload of zeros");
                    // etherparse keeps NS but no other reserved bit: its recomputed sum is
                    // checked without them; the bytes (header, then zeros) are summed always.
                    if reserved & 0x0e == 0 {
                        assert_eq!(tcp.checksum, tcp.calc_checksum_ipv4(&ip, &zeros).unwrap(), "record {i}: TCP checksum");
                    }
                    let at = 2 + ip.header_len();
                    let pseudo = ones_sum(&b.data[2 + 12..2 + 20], 0) + proto::TCP as u32 + (p.ip_len() - ip.header_len() as u32);
                    assert_eq!(fold(ones_sum(&b.data[at..at + tcp.header_len()], pseudo)), 0xffff, "record {i}: TCP checksum");
                }
                Transport::Udp => {
                    assert_eq!(ip.protocol, IpNumber::UDP, "record {i}");
                    let (udp, data) = UdpHeader::from_slice(rest).unwrap_or_else(|e| panic!("record {i}: UDP header: {e}"));
                    assert_eq!((udp.source_port, udp.destination_port, udp.length as u32), (p.sport, p.dport, UDP_HEADER + p.payload), "record {i}");
                    assert!(data.iter().all(|&x| x == 0) && data.len() <= zeros.len(), "record {i}: payload of zeros");
                    assert_eq!(udp.checksum, udp.calc_checksum_ipv4(&ip, &zeros).unwrap(), "record {i}: UDP checksum");
                }
            }
        }
    }

    // Every header and checksum written, read back by independent parsers: whole packets, the
    // default snap length (which cuts payloads, never a header: the longest here is the ACK
    // with three SACK blocks, 2 + 20 + 56 bytes), and a snap length 2 bytes past that header.
    #[test]
    fn independent_parsers_read_back_every_field_and_checksum() {
        let pkts = exchange();
        for snaplen in [65_535, 128, 80] {
            read_back(&capture(&pkts, snaplen), snaplen, &pkts);
        }
    }

    /// The exchange above, verified by tshark's dissectors (checksums, options, expert info).
    /// An extra to the parsers' check, for machines with Wireshark's command-line tool.
    #[test]
    #[ignore = "needs tshark: run with --ignored"]
    fn tshark_accepts_capture() {
        let pkts = exchange();
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(&capture(&pkts, 65_535)).unwrap();
        let out = std::process::Command::new("tshark")
            .arg("-r")
            .arg(file.path())
            .args(["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"])
            .args(["-T", "fields", "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=;"])
            .args(["-e", "ip.checksum.status", "-e", "tcp.checksum.status", "-e", "udp.checksum.status"])
            .args(["-e", "tcp.options.sack_le", "-e", "tcp.options.timestamp.tsval", "-e", "tcp.options.mss_val"])
            .args(["-e", "_ws.expert.message", "-e", "_ws.malformed", "-e", "_ws.expert.severity"])
            .args(["-e", "ip.hdr_len", "-e", "ip.flags.rb", "-e", "ip.opt.type", "-e", "tcp.flags.res"])
            .output()
            .unwrap_or_else(|e| panic!("tshark not runnable ({e}): install it (Debian: tshark) to run this check"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "tshark failed: {stderr}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), pkts.len(), "{stdout}\n{stderr}");
        for (line, (_, p)) in lines.iter().zip(&pkts) {
            let f: Vec<&str> = line.split('|').collect();
            // checksum.status: 0 bad, 1 good, 2 unverified.
            assert_eq!(f[0], "1", "IP checksum: {line}");
            // Header length, reserved flag and option 33 (booleans print as 1/0 or True/False).
            let set = |v: &str| matches!(v, "1" | "True");
            assert_eq!(f[9], (20 + p.ip_options_len()).to_string(), "IP header length: {line}");
            assert_eq!(set(f[10]), p.ip_reserved_flag(), "reserved flag: {line}");
            // tshark names option 33 "Unknown (0x21)" without a type field; it lists the 8-byte
            // form's padding (NOP 1, EOL 0), which it could only reach by stepping over 33's
            // length.
            let padding = matches!(p.ip_option33(), Some(o) if o.len == sluice_core::packet::OptLen::Eight);
            assert_eq!(f[11], if padding { "1;0" } else { "" }, "IP options: {line}");
            if let Some(r) = p.tcp_reserved_bits() {
                assert_eq!(set(f[12]), r & 0x0e != 0, "TCP reserved bits: {line}");
            }
            match p.transport {
                Transport::Tcp { opts, .. } => {
                    assert_eq!(f[1], "1", "TCP checksum: {line}");
                    let sle: Vec<&str> = f[3].split(';').filter(|s| !s.is_empty()).collect();
                    assert_eq!(sle.len(), opts.sack.n as usize, "SACK blocks: {line}");
                    assert_eq!(!f[4].is_empty(), opts.ts.is_some(), "TS option: {line}");
                    if let Some(mss) = opts.mss {
                        assert_eq!(f[5], mss.to_string(), "{line}");
                    }
                }
                Transport::Udp => assert_eq!(f[2], "1", "UDP checksum: {line}"),
            }
            let lower = line.to_lowercase();
            for bad in ["malformed", "bad checksum", "incorrect", "invalid", "bogus", "exception"] {
                assert!(!lower.contains(bad), "tshark complains ({bad}): {line}");
            }
            assert!(f[7].is_empty(), "malformed: {line}");
            // Expert severities: chat 0x200000, note 0x400000, warn 0x600000, error 0x800000.
            for sev in f[8].split(';').filter(|s| !s.is_empty()) {
                let v = match sev.strip_prefix("0x") {
                    Some(h) => u32::from_str_radix(h, 16).unwrap(),
                    None => sev.parse().unwrap(),
                };
                assert!(v < 0x0060_0000, "tshark warns or errs: {line}");
            }
        }
    }
}
