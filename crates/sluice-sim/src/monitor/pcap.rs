//! Pcap files of simulated links, readable by Wireshark and tshark.
//!
//! Classic pcap with nanosecond timestamps (magic `0xa1b23c4d`) and link type 9 (PPP): each
//! record is the 2-byte PPP protocol field `0x0021` (IPv4) followed by the IPv4 packet, which
//! matches the 2 bytes of framing the simulated point-to-point links serialize. Headers are
//! written exactly as the simulated packet carries them (the TCP window field scaled, options in
//! the order MSS, SACK-permitted, timestamps, window scale, SACK, padded to
//! [`TcpOptions::wire_len`]). Payload bytes are zeros; IPv4, TCP and UDP checksums are computed
//! over the full packet, payload included, so they verify even when `snaplen` cuts the payload.

use crate::packet::{SimPacket, TcpOptions, Transport, IPV4_HEADER, TCP_HEADER, UDP_HEADER};
use sluice_core::packet::checksum::{fold, ones_sum};
use sluice_core::packet::proto;
use sluice_core::Time;
use std::io::{self, Write};

/// LINKTYPE_PPP.
const LINKTYPE_PPP: u32 = 9;
const PPP_IPV4: [u8; 2] = [0x00, 0x21];

/// Writes packets to a pcap stream.
pub struct PcapWriter<W: Write> {
    w: W,
    snaplen: u32,
    buf: Vec<u8>,
}

impl<W: Write> PcapWriter<W> {
    /// Write the global header. `snaplen` bounds the bytes stored per packet (the original
    /// length is always recorded).
    pub fn new(mut w: W, snaplen: u32) -> io::Result<Self> {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&0xa1b2_3c4du32.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes());
        h.extend_from_slice(&0u32.to_le_bytes());
        h.extend_from_slice(&snaplen.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_PPP.to_le_bytes());
        w.write_all(&h)?;
        Ok(PcapWriter { w, snaplen, buf: Vec::with_capacity(128) })
    }

    /// Record `pkt` as seen at `t` (the start of its transmission).
    pub fn write(&mut self, t: Time, pkt: &SimPacket) -> io::Result<()> {
        self.buf.clear();
        self.buf.extend_from_slice(&PPP_IPV4);
        serialize_headers(pkt, &mut self.buf);
        let orig_len = 2 + pkt.ip_len();
        let incl = orig_len.min(self.snaplen);
        // Zero payload up to the capture length.
        if (self.buf.len() as u32) < incl {
            self.buf.resize(incl as usize, 0);
        }
        self.buf.truncate(incl as usize);
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((t.0 / 1_000_000_000) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((t.0 % 1_000_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&incl.to_le_bytes());
        rec[12..16].copy_from_slice(&orig_len.to_le_bytes());
        self.w.write_all(&rec)?;
        self.w.write_all(&self.buf)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

fn push16(b: &mut Vec<u8>, v: u16) {
    b.extend_from_slice(&v.to_be_bytes());
}
fn push32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_be_bytes());
}

/// TCP options in wire order, padded with NOPs and an end-of-list to `opts.wire_len()` bytes.
fn write_options(o: &TcpOptions, b: &mut Vec<u8>) {
    let start = b.len();
    if let Some(mss) = o.mss {
        b.extend_from_slice(&[2, 4]);
        push16(b, mss);
    }
    if o.sack_permitted {
        b.extend_from_slice(&[4, 2]);
    }
    if let Some((val, ecr)) = o.ts {
        b.extend_from_slice(&[8, 10]);
        push32(b, val);
        push32(b, ecr);
    }
    if let Some(ws) = o.wscale {
        b.extend_from_slice(&[3, 3, ws]);
    }
    if o.sack.n > 0 {
        b.extend_from_slice(&[5, 2 + 8 * o.sack.n]);
        for &(l, r) in o.sack.as_slice() {
            push32(b, l);
            push32(b, r);
        }
    }
    let want = start + o.wire_len() as usize;
    debug_assert!(b.len() <= want);
    if b.len() < want {
        b.push(0); // end of option list, then zero padding
    }
    b.resize(want, 0);
}

/// Append the IPv4 header and the TCP or UDP header of `pkt` to `buf`, checksums filled in.
pub fn serialize_headers(pkt: &SimPacket, buf: &mut Vec<u8>) {
    let ip_start = buf.len();
    let total = pkt.ip_len();
    let protocol = match pkt.transport {
        Transport::Tcp { .. } => proto::TCP,
        Transport::Udp => proto::UDP,
    };
    buf.push(0x45);
    buf.push(pkt.dscp << 2 | pkt.ecn as u8);
    push16(buf, total as u16);
    push16(buf, pkt.ip_id);
    push16(buf, 0x4000); // DF
    buf.push(pkt.ttl);
    buf.push(protocol);
    push16(buf, 0);
    push32(buf, pkt.src);
    push32(buf, pkt.dst);
    let c = !fold(ones_sum(&buf[ip_start..ip_start + IPV4_HEADER as usize], 0));
    buf[ip_start + 10..ip_start + 12].copy_from_slice(&c.to_be_bytes());

    let l4_start = buf.len();
    let l4_len = total - IPV4_HEADER;
    match &pkt.transport {
        Transport::Tcp { seq, ack, flags, window, opts } => {
            push16(buf, pkt.sport);
            push16(buf, pkt.dport);
            push32(buf, *seq);
            push32(buf, *ack);
            let off = ((TCP_HEADER + opts.wire_len()) / 4) as u8;
            buf.push(off << 4);
            buf.push(*flags);
            push16(buf, *window);
            push16(buf, 0);
            push16(buf, 0);
            write_options(opts, buf);
        }
        Transport::Udp => {
            push16(buf, pkt.sport);
            push16(buf, pkt.dport);
            push16(buf, (UDP_HEADER + pkt.payload) as u16);
            push16(buf, 0);
        }
    }
    // Pseudo-header: addresses, protocol, transport length. The zero payload adds nothing.
    let mut acc = ones_sum(&pkt.src.to_be_bytes(), 0);
    acc = ones_sum(&pkt.dst.to_be_bytes(), acc);
    acc += protocol as u32 + l4_len;
    acc = ones_sum(&buf[l4_start..], acc);
    let mut c = !fold(acc);
    let at = match pkt.transport {
        Transport::Tcp { .. } => l4_start + 16,
        Transport::Udp => {
            if c == 0 {
                c = 0xffff; // RFC 768: zero means "no checksum"
            }
            l4_start + 6
        }
    };
    buf[at..at + 2].copy_from_slice(&c.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::SackBlocks;
    use sluice_core::packet::{tcp_flags as F, Ecn};

    fn tcp(opts: TcpOptions, payload: u32, flags: u8) -> SimPacket {
        SimPacket {
            src: 0x0a00_0001,
            dst: 0x0a00_0002,
            sport: 49_152,
            dport: 5_001,
            dscp: 0,
            ecn: Ecn::Ect0,
            ttl: 64,
            ip_id: 7,
            transport: Transport::Tcp { seq: 0x0102_0304, ack: 0x0a0b_0c0d, flags, window: 32_768, opts },
            payload,
            flow: 0,
            enqueued_at: Time::ZERO,
        }
    }

    fn verify(pkt: &SimPacket) -> Vec<u8> {
        let mut b = Vec::new();
        serialize_headers(pkt, &mut b);
        assert_eq!(fold(ones_sum(&b[..20], 0)), 0xffff, "IPv4 header checksum verifies");
        let total = pkt.ip_len() as usize;
        let mut full = b.clone();
        full.resize(total, 0);
        assert_eq!(u16::from_be_bytes([full[2], full[3]]) as usize, total);
        let l4 = &full[20..];
        let mut acc = ones_sum(&full[12..20], 0);
        acc += full[9] as u32 + l4.len() as u32;
        assert_eq!(fold(ones_sum(l4, acc)), 0xffff, "transport checksum verifies over the full packet");
        b
    }

    // Option layouts: the header length always equals what the simulator accounts for.
    #[test]
    fn headers_and_checksums() {
        let syn = TcpOptions { mss: Some(1460), wscale: Some(8), sack_permitted: true, ts: Some((5, 0)), sack: SackBlocks::default() };
        let b = verify(&tcp(syn, 0, F::SYN | F::ECE | F::CWR));
        assert_eq!(b.len(), 20 + 40);
        assert_eq!(b[20 + 12] >> 4, 10, "data offset 40 bytes");
        assert_eq!(&b[40..44], &[2, 4, 0x05, 0xb4], "MSS first");
        assert_eq!(b[1] & 3, Ecn::Ect0 as u8);
        for n in 0..=3u8 {
            let mut o = TcpOptions { ts: Some((1, 2)), ..Default::default() };
            for k in 0..n {
                o.sack.push((100 * k as u32, 100 * k as u32 + 50));
            }
            let b = verify(&tcp(o, 1448, F::ACK));
            assert_eq!(b.len() as u32, 20 + 20 + o.wire_len());
        }
        verify(&tcp(TcpOptions::default(), 1000, F::ACK | F::PSH));
        let udp = SimPacket { transport: Transport::Udp, payload: 1000, ..tcp(TcpOptions::default(), 0, 0) };
        let b = verify(&udp);
        assert_eq!(b.len(), 28);
    }

    // Every pcap written opens in tshark without malformed packets or bad checksums.
    #[test]
    fn tshark_reads_the_capture() {
        let dir = std::env::temp_dir().join(format!("sluice-pcap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.pcap");
        {
            let f = std::fs::File::create(&path).unwrap();
            let mut w = PcapWriter::new(std::io::BufWriter::new(f), 128).unwrap();
            let syn = TcpOptions { mss: Some(1460), wscale: Some(8), sack_permitted: true, ts: Some((5, 0)), sack: SackBlocks::default() };
            w.write(Time(1_000), &tcp(syn, 0, F::SYN)).unwrap();
            let mut o = TcpOptions { ts: Some((6, 5)), ..Default::default() };
            o.sack.push((0x0102_0304 + 1448, 0x0102_0304 + 2896));
            w.write(Time(2_500_000_001), &tcp(o, 0, F::ACK)).unwrap();
            w.write(Time(3_000_000_000), &tcp(TcpOptions { ts: Some((7, 6)), ..Default::default() }, 1448, F::ACK)).unwrap();
            w.write(Time(3_000_000_100), &SimPacket { transport: Transport::Udp, payload: 1000, ..tcp(TcpOptions::default(), 0, 0) }).unwrap();
            w.flush().unwrap();
        }
        let Ok(out) = std::process::Command::new("tshark")
            .args(["-r", path.to_str().unwrap(), "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE", "-V"])
            .output()
        else {
            eprintln!("tshark not installed: skipping the dissector check");
            return;
        };
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(text.matches("Frame ").count() >= 4, true, "{text}");
        for bad in ["Malformed", "Bad checksum", "[incorrect", "Expert Info (Error"] {
            assert!(!text.contains(bad), "tshark reports {bad:?}:\n{text}");
        }
        assert!(text.contains("Window scale: 8"), "{text}");
        assert!(text.contains("SACK permitted"), "{text}");
        assert!(text.contains("Timestamps: TSval 6, TSecr 5"), "{text}");
        assert!(text.contains("[Checksum Status: Good]"), "{text}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
