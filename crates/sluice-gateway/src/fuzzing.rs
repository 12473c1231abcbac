//! The whole frame path without sockets, checked: arbitrary bytes become a gateway
//! configuration and a sequence of frames, fed through [`Gateway::on_frame`] and
//! [`Gateway::poll`] exactly as the ring loop does, and what leaves is compared with what came
//! in. One body, [`check`], run by the cargo-fuzz target `frame_path`
//! (`crates/sluice-gateway/fuzz/`) and by a proptest in CI (docs/testing.md, "Fuzzing").
//!
//! Input: byte 0 picks the queue discipline (each kind, small limit, ECN on where it has it),
//! byte 1 the controller (none, each window controller kind with default parameters, or NGWA's
//! gateway-only variant: `stamp_ack = true`, flow division on), byte 2 the monitored egress,
//! the rewrite point and the flow table's capacity (1, 2, 4 or 64). Then records, each a header
//! byte `h` and a time step byte (bit 0: egress, bit 1: `csum_not_ready`, bit 5: the step is
//! in ms rather than 10 µs):
//!
//! * `h & 0x40`: a well-formed TCP segment of one of 4 flows (client 10.0.0.1:40000+i,
//!   server 10.0.0.2:80) from the next 8 bytes: flags, window, payload length, a window-scale
//!   option on SYNs, ECN codepoint, sequence numbers; server segments leave through egress 0
//!   (the data direction), client segments through egress 1;
//! * otherwise a raw frame: a length byte and that many bytes, behind an IPv4 Ethernet header
//!   if `h & 0x80`.
//!
//! Properties checked (a panic says which failed):
//!
//! 1. nothing panics;
//! 2. every frame leaves exactly once or is counted as a drop (queue drops by reason, no
//!    buffer, oversize), and every buffer is back in its pool at the end;
//! 3. a frame the core cannot parse (non-IPv4, runt, malformed IPv4) leaves byte-identical;
//! 4. a parsed frame changes only in its ECN field (Not-ECT stays Not-ECT, ECN-capable stays
//!    ECN-capable: CE), its IP header checksum, and for TCP that is neither SYN nor RST, the
//!    window field and the TCP checksum: SYN and RST segments keep their window and checksum;
//! 5. an IP header checksum or TCP checksum that verified on arrival verifies on departure,
//!    and one that did not still does not (RFC 1624 keeps the error);
//! 6. no window field is raised (matched frame by frame among frames equal in every other
//!    byte);
//! 7. the flow table never holds more entries than its capacity.

use crate::config::Config;
use crate::datapath::Gateway;
use crate::packet::{complete_l4_checksum, ipv4_part, ETH_HLEN, SLOT};
use sluice_core::control::ControllerConfig;
use sluice_core::packet::{tcp_flags, HeaderView, RawPacket};
use sluice_core::qdisc::QdiscConfig;
use sluice_core::Time;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Flow table capacities byte 2 chooses from.
const CAPACITIES: [u32; 4] = [1, 2, 4, 64];
/// Frame buffers per direction: small, so that a burst runs out of them.
const BUFFERS: u32 = 24;

/// What one input did (for the caller's statistics and the tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub frames_in: u64,
    pub frames_out: u64,
    pub dropped: u64,
    /// Frames whose window field left lower than it came (matched as in property 6).
    pub lowered: u64,
}

/// The controllers byte 1 chooses from after "none": [`ControllerConfig::KINDS`], then NGWA
/// (live traffic runs it only with `stamp_ack = true`).
fn controllers() -> Vec<&'static str> {
    let mut k = ControllerConfig::KINDS.to_vec();
    k.push("ngwa");
    k
}

fn config_text(q: usize, c: usize, flags: u8) -> String {
    let kind = QdiscConfig::KINDS[q % QdiscConfig::KINDS.len()];
    let ecn = if kind == "drop_tail" { "" } else { ", ecn = true" };
    let qdisc = format!("qdisc = {{ kind = \"{kind}\", limit = \"16pkt\"{ecn} }}");
    let mut s = format!(
        "[[egress]]\ninterface = \"a0\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\nbuffers = {BUFFERS}\n{qdisc}\n\
         [[egress]]\ninterface = \"b0\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\nbuffers = {BUFFERS}\n{qdisc}\n"
    );
    let kinds = controllers();
    if !c.is_multiple_of(kinds.len() + 1) {
        let ctl = kinds[c % (kinds.len() + 1) - 1];
        let extra = if ctl == "ngwa" { ", stamp_ack = true, flow_division = true" } else { "" };
        let monitor = if flags & 1 == 0 { "a0" } else { "b0" };
        let at = if flags & 2 == 0 { "dequeue" } else { "forward" };
        let cap = CAPACITIES[(flags >> 2) as usize & 3];
        s += &format!("[gateway]\ncontroller = {{ kind = \"{ctl}\"{extra} }}\nmonitor = \"{monitor}\"\nrewrite_at = \"{at}\"\nflow_table = {{ capacity = {cap} }}\n");
    }
    s
}

/// Every configuration the first three bytes can name, parsed once.
fn config(q: u8, c: u8, flags: u8) -> &'static Config {
    const NQ: usize = 8;
    const NC: usize = 8;
    static CONFIGS: OnceLock<Vec<OnceLock<Config>>> = OnceLock::new();
    let all = CONFIGS.get_or_init(|| (0..NQ * NC * 16).map(|_| OnceLock::new()).collect());
    let q = q as usize % QdiscConfig::KINDS.len();
    let c = c as usize % (controllers().len() + 1);
    let f = flags as usize & 15;
    all[(q * NC + c) * 16 + f].get_or_init(|| Config::parse(&config_text(q, c, f as u8)).expect("fuzz configuration parses"))
}

/// A TCP segment to synthesize ([`tcp_frame`]).
#[derive(Copy, Clone, Debug)]
pub struct TcpSpec {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    /// Zero bytes of payload.
    pub payload: usize,
    /// The window-scale option (with MSS 1460 before it), if any.
    pub wscale: Option<u8>,
    /// The IP header's ECN field.
    pub ecn: u8,
}

/// An Ethernet frame carrying the segment `s`, its IPv4 and TCP checksums valid.
pub fn tcp_frame(s: &TcpSpec) -> Vec<u8> {
    let opts = if s.wscale.is_some() { 8 } else { 0 };
    let total = 20 + 20 + opts + s.payload;
    let mut ip = vec![0u8; total];
    ip[0] = 0x45;
    ip[1] = s.ecn;
    ip[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    ip[8] = 64;
    ip[9] = 6;
    ip[12..16].copy_from_slice(&s.src);
    ip[16..20].copy_from_slice(&s.dst);
    let c = sluice_core::packet::checksum::checksum(&ip[..20], 0);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    ip[20..22].copy_from_slice(&s.sport.to_be_bytes());
    ip[22..24].copy_from_slice(&s.dport.to_be_bytes());
    ip[24..28].copy_from_slice(&s.seq.to_be_bytes());
    ip[28..32].copy_from_slice(&s.ack.to_be_bytes());
    ip[32] = ((20 + opts as u8) / 4) << 4;
    ip[33] = s.flags;
    ip[34..36].copy_from_slice(&s.window.to_be_bytes());
    if let Some(ws) = s.wscale {
        ip[40..48].copy_from_slice(&[2, 4, 0x05, 0xb4, 1, 3, 3, ws]);
    }
    assert!(complete_l4_checksum(&mut ip), "a synthesized segment is TCP");
    let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00];
    f.extend_from_slice(&ip);
    f
}

/// A TCP segment of flow `i` (module doc), IPv4 and TCP checksums valid, in an Ethernet frame.
pub(crate) fn segment(b: &[u8; 8]) -> (usize, Vec<u8>) {
    let flow = (b[0] & 3) as u16;
    let from_client = b[0] & 4 != 0;
    let flags = b[1];
    let (client, server) = ([10, 0, 0, 1], [10, 0, 0, 2]);
    let (cport, sport) = (40_000 + flow, 80u16);
    let (src, dst, sp, dp) = if from_client { (client, server, cport, sport) } else { (server, client, sport, cport) };
    // Initial sequence numbers 0: a SYN's sequence number is b6·1448, any other segment's
    // b6·1448 + 1; the acknowledgment number b7·1448 + 1.
    let syn = (flags & tcp_flags::SYN != 0) as u32;
    let spec = TcpSpec {
        src,
        dst,
        sport: sp,
        dport: dp,
        seq: b[6] as u32 * 1448 + 1 - syn,
        ack: b[7] as u32 * 1448 + 1,
        flags,
        window: u16::from_be_bytes([b[2], b[3]]),
        payload: if b[4] & 0x80 != 0 { (b[4] as usize & 0x7f) * 12 } else { 0 },
        wscale: (flags & tcp_flags::SYN != 0 && b[5] < 15).then_some(b[5]),
        ecn: b[0] >> 6,
    };
    (if from_client { 1 } else { 0 }, tcp_frame(&spec))
}

/// What a frame is compared by (property 4): the bytes allowed to change are blanked, and
/// the checksums' verdicts, the ECN capability and (TCP, not SYN/RST) the window are kept
/// apart. Two frames with the same key differ at most in what the gateway may change.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Key {
    dir: usize,
    masked: Vec<u8>,
    ip_ok: Option<bool>,
    tcp_ok: Option<bool>,
    ect: bool,
}

/// Window fields (`None`: not rewritable) of the frames of one key, in and out.
type Windows = Vec<Option<u16>>;

/// The key and the window field a rewrite may lower (`None`: no window may change).
fn key(dir: usize, frame: &[u8]) -> (Key, Option<u16>) {
    let mut masked = frame.to_vec();
    let mut probe = frame.to_vec();
    let parsed = ipv4_part(&mut probe).and_then(|ip| RawPacket::new_checked(ip).ok().map(|p| {
        let rewritable = p.tcp_flags().is_some_and(|f| f & (tcp_flags::SYN | tcp_flags::RST) == 0);
        (p.header_len(), p.ip_checksum_ok(), p.tcp_checksum_ok(), p.ecn().is_ect() || p.ecn() == sluice_core::packet::Ecn::Ce, rewritable.then(|| p.tcp_window_field()).flatten())
    }));
    let Some((ihl, ip_ok, tcp_ok, ect, window)) = parsed else {
        return (Key { dir, masked, ip_ok: None, tcp_ok: None, ect: false }, None);
    };
    let ip = ETH_HLEN;
    masked[ip + 1] &= !3;
    masked[ip + 10..ip + 12].fill(0);
    if window.is_some() {
        masked[ip + ihl + 14..ip + ihl + 18].fill(0);
    }
    (Key { dir, masked, ip_ok: Some(ip_ok), tcp_ok, ect }, window)
}

/// Run one input through a gateway (module doc) and check every property; panics on a
/// violation.
pub fn check(data: &[u8]) -> Outcome {
    let [q, c, flags, rest @ ..] = data else { return Outcome::default() };
    let cfg = config(*q, *c, *flags);
    let capacity = cfg.control.as_ref().map(|c| c.flow_table.capacity as usize);
    let mut gw = Gateway::new(cfg, Time::ZERO);
    let mut now = Time::ZERO;
    let mut ins: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut outs: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut rest = rest;
    let bound = |gw: &Gateway| {
        if let (Some(h), Some(cap)) = (gw.hook.as_ref(), capacity) {
            assert!(h.nr.flows.len() <= cap, "flow table holds {} entries, capacity {cap}", h.nr.flows.len());
        }
    };
    while let [h, step, tail @ ..] = rest {
        let (dir, frame, tail) = if h & 0x40 != 0 {
            let Some((b, tail)) = tail.split_first_chunk::<8>() else { break };
            let (dir, f) = segment(b);
            (dir, f, tail)
        } else {
            let Some((&n, tail)) = tail.split_first() else { break };
            let n = (n as usize).min(tail.len());
            let mut f = Vec::with_capacity(n + ETH_HLEN);
            if h & 0x80 != 0 {
                f.extend_from_slice(&[2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00]);
            }
            f.extend_from_slice(&tail[..n]);
            ((h & 1) as usize, f, &tail[n..])
        };
        rest = tail;
        now += sluice_core::Dur(*step as u64 * if h & 0x20 != 0 { 1_000_000 } else { 10_000 });
        let csum_not_ready = h & 2 != 0;
        gw.on_frame(dir, &frame, csum_not_ready, now, now);
        bound(&gw);
        // What the gateway works on: the frame after checksum completion.
        let mut seen = frame;
        if csum_not_ready && seen.len() <= SLOT {
            if let Some(ip) = ipv4_part(&mut seen) {
                complete_l4_checksum(ip);
            }
        }
        ins.push((dir, seen));
        gw.poll(now, |o, f| {
            outs.push((o, f.to_vec()));
            true
        });
        bound(&gw);
    }
    // Drain: every queue and delay line empties (10 Mb/s, at most 2 × 40 frames queued or
    // delayed, each due within a few ms: far fewer steps than the bound).
    let mut steps = 0;
    while let Some(t) = gw.next_wakeup() {
        now = t.max(now);
        gw.poll(now, |o, f| {
            outs.push((o, f.to_vec()));
            true
        });
        bound(&gw);
        steps += 1;
        assert!(steps < 100_000, "the gateway does not drain");
    }
    // Property 2.
    let mut dropped = 0;
    for d in &gw.dirs {
        assert_eq!(d.pool.in_use(), 0, "{}: buffers still in use after draining", d.interface);
        assert_eq!(d.counters.tx_errors, 0);
        dropped += d.qdisc.by_reason.drops.iter().sum::<u64>() + d.counters.no_buffer + d.counters.oversize;
    }
    assert_eq!(outs.len() as u64 + dropped, ins.len() as u64, "{} in, {} out, {dropped} counted as dropped", ins.len(), outs.len());
    // Properties 3–6: group by key; within a group the windows that left, highest first, are
    // each at most the matching window that came, highest first (the exact condition for a
    // one-to-one matching out → in with window_out ≤ window_in).
    let mut groups: HashMap<Key, (Windows, Windows)> = HashMap::new();
    for (dir, f) in &ins {
        let (k, w) = key(*dir, f);
        groups.entry(k).or_default().0.push(w);
    }
    let mut lowered = 0;
    for (dir, f) in &outs {
        let (k, w) = key(*dir, f);
        let Some(g) = groups.get_mut(&k) else {
            panic!("a frame left on egress {dir} that matches no frame that came in, outside the bytes the gateway may change: {f:02x?}");
        };
        g.1.push(w);
    }
    for (k, (mut win_in, mut win_out)) in groups {
        assert!(win_out.len() <= win_in.len(), "more frames left than came in: {k:?}");
        win_in.sort_unstable_by(|a, b| b.cmp(a));
        win_out.sort_unstable_by(|a, b| b.cmp(a));
        for (i, o) in win_in.iter().zip(&win_out) {
            assert!(o <= i, "a window field was raised: {o:?} > {i:?} ({k:?})");
            lowered += (o < i) as u64;
        }
    }
    Outcome { frames_in: ins.len() as u64, frames_out: outs.len() as u64, dropped, lowered }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A record: a synthesized segment (`h = 0x40 | dir-bits`), step `step`.
    fn seg(out: &mut Vec<u8>, h: u8, step: u8, b: [u8; 8]) {
        out.extend_from_slice(&[0x40 | h, step]);
        out.extend_from_slice(&b);
    }

    // Every configuration the first three bytes name parses (7 disciplines × 8 controller
    // choices × 16 flag values).
    #[test]
    fn every_configuration_parses() {
        for q in 0..QdiscConfig::KINDS.len() as u8 {
            for c in 0..=controllers().len() as u8 {
                for f in 0..16 {
                    config(q, c, f);
                }
            }
        }
    }

    /// Input: controller `kind` on the data egress (a0), drop_tail, dequeue, 64 flows. A
    /// handshake with window scale 0 both ways (RTT 20 µs), then 40 server segments of 1,512 B
    /// (payload 1,464) in one burst fill a0's 16-packet queue (the rest are dropped), and a
    /// client ACK with window 65,535 sent after them, while the queue is long.
    fn congested_flow(kind: &str) -> Vec<u8> {
        let c = 1 + controllers().iter().position(|k| *k == kind).unwrap() as u8;
        let mut d = vec![0, c, 0b1100];
        // SYN (client, ws 0), SYN-ACK (server, ws 0).
        seg(&mut d, 0, 0, [4, tcp_flags::SYN, 0xff, 0xff, 0, 0, 0, 0]);
        seg(&mut d, 0, 1, [0, tcp_flags::SYN | tcp_flags::ACK, 0xff, 0xff, 0, 0, 0, 0]);
        seg(&mut d, 0, 1, [4, tcp_flags::ACK, 0xff, 0xff, 0, 15, 0, 0]);
        for i in 0..40 {
            seg(&mut d, 0, 0, [0, tcp_flags::ACK, 0xff, 0xff, 0x80 | 122, 15, i, 0]);
        }
        seg(&mut d, 0, 1, [4, tcp_flags::ACK, 0xff, 0xff, 0, 15, 1, 10]);
        d
    }

    // RWM on [`congested_flow`] (its cap is its floor, one MSS: 1,460, at an RTT of 20 µs): the
    // final ACK must leave lowered. Everything else about the frames is checked by `check`:
    // this test shows the checks see real rewrites and drops, so they are not vacuous.
    #[test]
    fn a_congested_flow_sees_drops_and_a_lowered_window() {
        let o = check(&congested_flow("rwm"));
        // 44 in; a0's queue takes 16 of the burst of 40 (the link drains 1 frame in 1.2 ms,
        // the burst arrives in 0 ns): 24 dropped, 20 leave. RWM caps every ACK of a registered
        // flow from either end at one MSS (field 1,460 < 65,535): the handshake's last ACK, the
        // 16 data segments (they carry ACK) and the final ACK: 18 lowered.
        assert_eq!(o, Outcome { frames_in: 44, frames_out: 20, dropped: 24, lowered: 18 });
    }

    // The same input through NGWA's gateway-only variant on a0: the two client ACKs (the
    // handshake's and the last) leave lowered — W_node is at most 0.98·16·1,500 = 23,520 B
    // (shift 0) below their 65,535 whatever a0 holds — while the server's 16 data segments,
    // whose data is a0's, keep their windows: 2 lowered, with the same drops as under RWM.
    #[test]
    fn ngwa_stamp_ack_lowers_only_the_client_acks() {
        assert_eq!(check(&congested_flow("ngwa")), Outcome { frames_in: 44, frames_out: 20, dropped: 24, lowered: 2 });
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
        // The fuzz target's body on proptest's inputs (module doc: properties 1–7).
        #[test]
        fn the_frame_path_keeps_its_properties(data in proptest::collection::vec(any::<u8>(), 0..800)) {
            check(&data);
        }
    }
}
