//! Frames inside the gateway: a preallocated pool of frame buffers, the handle a queue
//! discipline holds ([`GwPkt`], implementing the core's [`Queued`]), and the checksum work on
//! raw bytes (completing a partial checksum, setting CE).

use sluice_core::flows::FlowId;
use sluice_core::packet::checksum::{fold, ones_sum, update16};
use sluice_core::packet::{proto, Ecn, HeaderView, RawLayout, RawPacket};
use sluice_core::qdisc::Queued;
use sluice_core::Time;

/// Bytes per frame buffer: an Ethernet frame of a 1500-byte MTU with a VLAN tag fits, with
/// room for NGWA's option later. Larger frames (offloads left on) are not forwarded.
pub const SLOT: usize = 2048;
/// The Ethernet header in front of the IP packet.
pub const ETH_HLEN: usize = 14;
const ETHERTYPE_IPV4: u16 = 0x0800;

/// Fixed-size frame buffers, allocated once: no allocation per packet.
#[derive(Debug)]
pub struct Pool {
    mem: Vec<u8>,
    free: Vec<u32>,
    /// Per buffer, what parsing its frame found, when the frame is to be viewed again at
    /// dequeue ([`RawPacket::with_layout`]); kept here rather than in the queued [`GwPkt`],
    /// which every queue operation copies.
    layouts: Vec<Option<RawLayout>>,
}

impl Pool {
    /// `n` buffers of [`SLOT`] bytes.
    pub fn new(n: u32) -> Pool {
        Pool { mem: vec![0; n as usize * SLOT], free: (0..n).rev().collect(), layouts: vec![None; n as usize] }
    }
    /// A free buffer, if any.
    #[inline]
    pub fn alloc(&mut self) -> Option<u32> {
        self.free.pop()
    }
    /// Give a buffer back.
    #[inline]
    pub fn free(&mut self, slot: u32) {
        debug_assert!(!self.free.contains(&slot), "slot freed twice");
        self.free.push(slot);
    }
    /// Buffers in use.
    pub fn in_use(&self) -> usize {
        self.mem.len() / SLOT - self.free.len()
    }
    #[inline]
    pub fn buf(&self, slot: u32) -> &[u8] {
        let at = slot as usize * SLOT;
        &self.mem[at..at + SLOT]
    }
    #[inline]
    pub fn buf_mut(&mut self, slot: u32) -> &mut [u8] {
        let at = slot as usize * SLOT;
        &mut self.mem[at..at + SLOT]
    }
    /// Buffer `slot`'s frame and the layout recorded for it ([`Pool::set_layout`]).
    #[inline]
    pub fn buf_and_layout(&mut self, slot: u32) -> (&mut [u8], Option<RawLayout>) {
        let at = slot as usize * SLOT;
        (&mut self.mem[at..at + SLOT], self.layouts[slot as usize])
    }
    #[inline]
    pub fn set_layout(&mut self, slot: u32, layout: Option<RawLayout>) {
        self.layouts[slot as usize] = layout;
    }
}

/// What a frame is, as parsed once at arrival.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// A valid IPv4 packet ([`RawPacket::new_checked`] accepted it).
    Ipv4,
    /// Not IPv4 (ARP, IPv6, ...): forwarded untouched.
    Other,
    /// Claims to be IPv4 but does not parse: counted, forwarded untouched.
    Malformed,
}

/// A frame held by a queue, the shaper or the delay line: a buffer index and what the queue
/// needs to know. `Copy`, a few words: queues move it by value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GwPkt {
    pub slot: u32,
    /// Frame length (Ethernet header included).
    pub frame_len: u16,
    pub kind: FrameKind,
    /// What the queue counts: the IP total length (IPv4), else the frame after its header.
    pub ip_len: u32,
    /// When it entered the queue ([`Queued::stamp`]).
    pub t: Time,
    /// How long it sat in the receive ring before the gateway read it (counted toward the
    /// delay line's delay, and reported).
    pub ring_wait_ns: u64,
    pub ecn: Ecn,
    /// The queue set CE; written to the bytes as the frame leaves the queue.
    pub ce: bool,
    pub hash: u32,
    /// The flow table's id for it, from the forward call.
    pub seen: Option<FlowId>,
}

impl Queued for GwPkt {
    #[inline]
    fn len_bytes(&self) -> u32 {
        self.ip_len
    }
    #[inline]
    fn enqueued_at(&self) -> Time {
        self.t
    }
    #[inline]
    fn stamp(&mut self, t: Time) {
        self.t = t;
    }
    #[inline]
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    #[inline]
    fn set_ce(&mut self) {
        if self.kind == FrameKind::Ipv4 && self.ecn.is_ect() {
            self.ecn = Ecn::Ce;
            self.ce = true;
        }
    }
    #[inline]
    fn flow_hash(&self) -> u32 {
        self.hash
    }
}

/// The IPv4 packet inside an Ethernet frame, if the EtherType says IPv4 (`None`: another
/// protocol or a runt).
#[inline]
pub fn ipv4_part(frame: &mut [u8]) -> Option<&mut [u8]> {
    let et = u16::from_be_bytes([*frame.get(12)?, *frame.get(13)?]);
    (et == ETHERTYPE_IPV4).then(|| frame.get_mut(ETH_HLEN..)).flatten()
}

/// A hash of the 5-tuple (protocol, addresses, ports), symmetric in neither direction; for
/// flow-queueing disciplines. A 64-bit multiply-xorshift mix of the words.
pub fn flow_hash(p: &impl HeaderView) -> u32 {
    let ports = ((p.src_port().unwrap_or(0) as u64) << 16) | p.dst_port().unwrap_or(0) as u64;
    let mut h = ((p.src_addr() as u64) << 32 | p.dst_addr() as u64) ^ (ports << 8 | p.protocol() as u64).rotate_left(29);
    h = (h ^ (h >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    h = (h ^ (h >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    (h ^ (h >> 33)) as u32
}

/// Compute the full TCP or UDP checksum of a validated IPv4 packet (`ip`, trailing bytes past
/// the total length allowed), replacing what is there. A frame the kernel flagged
/// `TP_STATUS_CSUMNOTREADY` carries only the pseudo-header sum in that field. Returns whether a
/// checksum was written (not for other protocols or fragments).
pub fn complete_l4_checksum(ip: &mut [u8]) -> bool {
    let Ok(p) = RawPacket::new_checked(ip) else { return false };
    let (ihl, total, prot) = (p.header_len(), p.ip_len() as usize, p.protocol());
    let has_l4 = p.src_port().is_some();
    if !has_l4 || !(prot == proto::TCP || prot == proto::UDP) {
        return false;
    }
    let at = if prot == proto::TCP { 16 } else { 6 };
    let Some(hdr) = ip.get(12..20) else { return false };
    let pseudo = ones_sum(hdr, 0) + prot as u32 + (total - ihl) as u32;
    let Some(seg) = ip.get_mut(ihl..total) else { return false };
    let Some(w) = seg.get_mut(at..at + 2) else { return false };
    w.copy_from_slice(&[0, 0]);
    let mut c = !fold(ones_sum(seg, pseudo));
    if prot == proto::UDP && c == 0 {
        // RFC 768: a computed zero is sent as all ones (zero means "no checksum").
        c = 0xffff;
    }
    seg[at..at + 2].copy_from_slice(&c.to_be_bytes());
    true
}

/// Set CE in a validated IPv4 packet's header and update its checksum (RFC 1624).
pub fn write_ce(ip: &mut [u8]) {
    let (Some(&b0), Some(&b1)) = (ip.first(), ip.get(1)) else { return };
    let old = u16::from_be_bytes([b0, b1]);
    let new = old | Ecn::Ce as u16;
    if new == old {
        return;
    }
    let Some(hc) = ip.get(10..12).map(|w| u16::from_be_bytes([w[0], w[1]])) else { return };
    ip[1] = new as u8;
    ip[10..12].copy_from_slice(&update16(hc, old, new).to_be_bytes());
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A TCP/IPv4 segment 10.0.0.1:5001 -> 10.0.0.2:80, ACK, window 1000, 4 payload bytes,
    /// ECT(0), with both checksums computed from scratch.
    pub(crate) fn tcp_packet() -> Vec<u8> {
        let mut p = vec![0u8; 20 + 20 + 4];
        p[0] = 0x45;
        p[1] = 0x02;
        p[2..4].copy_from_slice(&44u16.to_be_bytes());
        p[8] = 64;
        p[9] = proto::TCP;
        p[12..16].copy_from_slice(&[10, 0, 0, 1]);
        p[16..20].copy_from_slice(&[10, 0, 0, 2]);
        let c = sluice_core::packet::checksum::checksum(&p[..20], 0);
        p[10..12].copy_from_slice(&c.to_be_bytes());
        let t = &mut p[20..];
        t[0..2].copy_from_slice(&5001u16.to_be_bytes());
        t[2..4].copy_from_slice(&80u16.to_be_bytes());
        t[12] = 5 << 4;
        t[13] = 0x10;
        t[14..16].copy_from_slice(&1000u16.to_be_bytes());
        t[20..24].copy_from_slice(b"abcd");
        assert!(complete_l4_checksum(&mut p));
        p
    }

    #[test]
    fn partial_checksum_is_completed() {
        let good = tcp_packet();
        assert_eq!(RawPacket::new_checked(&mut good.clone()).unwrap().tcp_checksum_ok(), Some(true));
        // What CHECKSUM_PARTIAL leaves: the folded pseudo-header sum, not inverted.
        let mut partial = good.clone();
        let pseudo = fold(ones_sum(&good[12..20], 0) + proto::TCP as u32 + 24);
        partial[36..38].copy_from_slice(&pseudo.to_be_bytes());
        assert_eq!(RawPacket::new_checked(&mut partial.clone()).unwrap().tcp_checksum_ok(), Some(false));
        assert!(complete_l4_checksum(&mut partial));
        assert_eq!(partial, good);
    }

    #[test]
    fn ce_keeps_the_ip_checksum_valid() {
        let mut p = tcp_packet();
        write_ce(&mut p);
        let v = RawPacket::new_checked(&mut p).unwrap();
        assert_eq!(v.ecn(), Ecn::Ce);
        assert!(v.ip_checksum_ok());
    }

    #[test]
    fn set_ce_only_on_ect_ipv4() {
        let mut g = GwPkt { slot: 0, frame_len: 58, kind: FrameKind::Ipv4, ip_len: 44, t: Time::ZERO, ring_wait_ns: 0, ecn: Ecn::NotEct, ce: false, hash: 0, seen: None };
        g.set_ce();
        assert!(!g.ce);
        g.ecn = Ecn::Ect0;
        g.set_ce();
        assert!(g.ce && g.ecn == Ecn::Ce);
        let mut o = GwPkt { kind: FrameKind::Other, ecn: Ecn::Ect0, ce: false, ..g };
        o.set_ce();
        assert!(!o.ce);
    }

    #[test]
    fn pool_hands_out_each_buffer_once() {
        let mut p = Pool::new(3);
        let a: Vec<u32> = (0..3).map(|_| p.alloc().unwrap()).collect();
        assert_eq!(p.alloc(), None);
        assert_eq!(p.in_use(), 3);
        let mut s = a.clone();
        s.sort();
        assert_eq!(s, [0, 1, 2]);
        p.free(a[1]);
        assert_eq!(p.alloc(), Some(a[1]));
    }
}
