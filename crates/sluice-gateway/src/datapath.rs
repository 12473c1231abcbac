//! The forwarding engine, free of sockets and clocks: frames in ([`Gateway::on_frame`]) with
//! the time they arrived and the time now, frames out ([`Gateway::poll`]) through a callback.
//! `main` feeds it from the AF_PACKET rings; tests feed it bytes.
//!
//! Per direction (frames leaving through one interface): the queue discipline (any
//! [`AnyQdisc`], with its own random stream), the shaper and the delay line, over a pool of
//! frame buffers. Shared by both directions, as a router's gateway in the simulator: the flow
//! table and one controller ([`NetworkReturn`]), called at the same points as there:
//!
//! * forward: every frame as it arrives (before its queue);
//! * the monitored queue: every enqueue into and dequeue from it;
//! * the rewrite point: each frame as it leaves any queue (`rewrite_at = "dequeue"`), or right
//!   after the forward call (`"forward"`).

use crate::config::{Config, Control, RewriteAt};
use crate::emulation::{DelayLine, Shaper};
use crate::metrics::{DirCounters, EventLog};
use crate::packet::{complete_l4_checksum, flow_hash, ipv4_part, write_ce, FrameKind, GwPkt, Pool, ETH_HLEN, SLOT};
use sluice_core::control::{NetworkReturn, QueueEvent, QueueEventKind, QueueReading, Readings};
use sluice_core::flows::FlowId;
use sluice_core::packet::{HeaderView, RawPacket, WindowRewrite};
use sluice_core::qdisc::{AnyQdisc, DropReason, Instrumented, MarkReason, Occupancy, Offer, QdiscCx, QueueDisc};
use sluice_core::rng::{RngStream, StreamKey};
use sluice_core::units::QueueLimit;
use sluice_core::{Rate, Time};

/// Frames leaving through one interface.
#[derive(Debug)]
pub struct Direction {
    pub interface: String,
    pub qdisc: Instrumented<AnyQdisc<GwPkt>>,
    pub limit: QueueLimit,
    rng: RngStream,
    dropped: Vec<(GwPkt, DropReason)>,
    pub shaper: Shaper,
    pub delay: DelayLine,
    pub pool: Pool,
    /// Bytes the shaper adds to the IP packet per frame (the Ethernet header: 14).
    l2_overhead: u32,
    pub counters: DirCounters,
}

/// The network-return part and where it is bound.
#[derive(Debug)]
pub struct Hook {
    pub nr: NetworkReturn,
    pub monitor: usize,
    pub rewrite_at: RewriteAt,
    pub link: Rate,
}

/// The whole gateway.
#[derive(Debug)]
pub struct Gateway {
    pub name: String,
    pub dirs: [Direction; 2],
    pub hook: Option<Hook>,
    pub log: Option<EventLog>,
    /// The time the gateway started (the log's `t_s` counts from it).
    pub epoch: Time,
}

impl Direction {
    fn new(cfg: &crate::config::Egress, seed: u64) -> Direction {
        let mut rng = RngStream::derive(seed, StreamKey::Qdisc(&cfg.interface));
        let q = AnyQdisc::new(&cfg.queue, &mut rng);
        let limit = q.limit();
        Direction {
            interface: cfg.interface.clone(),
            qdisc: Instrumented::new(q),
            limit,
            rng,
            dropped: Vec::with_capacity(cfg.buffers as usize),
            shaper: Shaper::new(cfg.rate),
            delay: DelayLine::new(cfg.delay, cfg.buffers as usize),
            pool: Pool::new(cfg.buffers),
            l2_overhead: ETH_HLEN as u32,
            counters: DirCounters::default(),
        }
    }

    pub fn occupancy(&self) -> Occupancy {
        self.qdisc.inner.occupancy()
    }
}

fn readings(dirs: &[Direction; 2], hook: &Hook) -> Readings {
    let occ = dirs[hook.monitor].occupancy();
    Readings { queue: QueueReading { bytes: occ.bytes, packets: occ.packets, limit: dirs[hook.monitor].limit }, link: hook.link, oracle_flows: None }
}

impl Gateway {
    pub fn new(cfg: &Config, epoch: Time) -> Gateway {
        let dirs = [Direction::new(&cfg.egress[0], cfg.seed), Direction::new(&cfg.egress[1], cfg.seed)];
        let hook = cfg.control.as_ref().map(|c: &Control| Hook {
            nr: NetworkReturn::new(c.flow_table.clone(), &c.controller),
            monitor: c.monitor,
            rewrite_at: c.rewrite_at,
            link: cfg.egress[c.monitor].rate.expect("config: the monitored egress has a rate"),
        });
        Gateway { name: cfg.name.clone(), dirs, hook, log: None, epoch }
    }

    /// A frame arrived at `arrival` (on the other interface) and leaves through egress `out`;
    /// the gateway handles it at `now` ≥ `arrival`. `csum_not_ready`: the kernel left a partial
    /// TCP/UDP checksum in it.
    pub fn on_frame(&mut self, out: usize, frame: &[u8], csum_not_ready: bool, arrival: Time, now: Time) {
        let arrival = arrival.min(now);
        let Gateway { dirs, hook, log, epoch, .. } = self;
        // The monitored queue's readings for the forward call, taken before the frame joins.
        let r = hook.as_ref().map(|h| readings(dirs, h));
        let d = &mut dirs[out];
        d.counters.rx_frames += 1;
        d.counters.rx_bytes += frame.len() as u64;
        if frame.len() > SLOT || frame.len() > u16::MAX as usize {
            d.counters.oversize += 1;
            return;
        }
        let Some(slot) = d.pool.alloc() else {
            d.counters.no_buffer += 1;
            return;
        };
        let buf = &mut d.pool.buf_mut(slot)[..frame.len()];
        buf.copy_from_slice(frame);
        let mut pkt = GwPkt {
            slot,
            frame_len: frame.len() as u16,
            kind: FrameKind::Other,
            ip_len: frame.len().saturating_sub(ETH_HLEN) as u32,
            t: now,
            ring_wait_ns: now.0 - arrival.0,
            ecn: Default::default(),
            ce: false,
            hash: 0,
            seen: None,
        };
        let mut layout = None;
        if let Some(ip) = ipv4_part(buf) {
            if csum_not_ready && complete_l4_checksum(ip) {
                d.counters.csum_completed += 1;
            }
            match RawPacket::new_checked(ip) {
                Ok(mut p) => {
                    pkt.kind = FrameKind::Ipv4;
                    pkt.ip_len = p.ip_len();
                    pkt.ecn = p.ecn();
                    pkt.hash = flow_hash(&p);
                    // The forward call (and a rewrite at forward) on the same parse.
                    if let (Some(h), Some(r)) = (hook.as_mut(), r) {
                        pkt.seen = h.nr.on_forward(&p, out == h.monitor, &r, now);
                        match h.rewrite_at {
                            RewriteAt::Forward => {
                                let o = h.nr.at_rewrite_point_seen(&mut p, pkt.seen, &r, now);
                                if log.is_some() {
                                    log_rewrite(log, *epoch, &d.interface, &h.nr, &p, pkt.seen, o, now);
                                }
                            }
                            // Viewed again at dequeue without a second parse.
                            RewriteAt::Dequeue => layout = Some(p.layout()),
                        }
                    }
                }
                Err(_) => {
                    pkt.kind = FrameKind::Malformed;
                    d.counters.malformed += 1;
                }
            }
        }
        if layout.is_some() {
            d.pool.set_layout(slot, layout);
        }
        self.enqueue(out, pkt, now);
    }

    fn enqueue(&mut self, out: usize, pkt: GwPkt, now: Time) {
        let Gateway { dirs, hook, log, epoch, .. } = self;
        let d = &mut dirs[out];
        let before = d.occupancy();
        if before.packets == 0 {
            d.shaper.on_arrival_idle(now);
        }
        let marks_before = d.qdisc.by_reason.marks;
        let mut cx = QdiscCx { rng: &mut d.rng, dequeue_drops: &mut d.dropped };
        let offer = d.qdisc.enqueue(pkt, now, &mut cx);
        match offer {
            Offer::Queued { marked } => {
                if marked {
                    if let Some(l) = log.as_mut() {
                        let i = (0..MarkReason::COUNT).find(|&i| d.qdisc.by_reason.marks[i] != marks_before[i]).unwrap_or(0);
                        l.mark_or_drop(now.since(*epoch), &d.interface, pkt.seen, pkt.ip_len, "mark", MarkReason::ALL[i].as_str());
                    }
                }
            }
            Offer::Dropped(reason, p) => {
                d.pool.free(p.slot);
                if let Some(l) = log.as_mut() {
                    l.mark_or_drop(now.since(*epoch), &d.interface, p.seen, p.ip_len, "drop", reason.as_str());
                }
            }
        }
        Self::free_dropped(d, log, *epoch, now);
        if let Some(h) = hook.as_mut() {
            if h.monitor == out && matches!(offer, Offer::Queued { .. }) && h.nr.queue_event_matters(now) {
                let r = readings(dirs, h);
                let after = Occupancy { packets: r.queue.packets, bytes: r.queue.bytes };
                h.nr.on_queue(&QueueEvent { kind: QueueEventKind::Enqueue, len_bytes: pkt.ip_len, before, after }, &r, now);
            }
        }
    }

    fn free_dropped(d: &mut Direction, log: &mut Option<EventLog>, epoch: Time, now: Time) {
        for (p, reason) in d.dropped.drain(..) {
            d.pool.free(p.slot);
            if let Some(l) = log.as_mut() {
                l.mark_or_drop(now.since(epoch), &d.interface, p.seen, p.ip_len, "drop", reason.as_str());
            }
        }
    }

    /// Move frames at `now`: from each queue as far as its shaper allows, into its delay line;
    /// out of each delay line what is due, through `send(out, frame)` (false: the device
    /// refused it).
    pub fn poll(&mut self, now: Time, mut send: impl FnMut(usize, &[u8]) -> bool) {
        for out in 0..2 {
            self.service(out, now);
            let d = &mut self.dirs[out];
            while let Some(p) = d.delay.pop_due(now) {
                let frame = &d.pool.buf(p.slot)[..p.frame_len as usize];
                if send(out, frame) {
                    d.counters.tx_frames += 1;
                    d.counters.tx_bytes += p.frame_len as u64;
                } else {
                    d.counters.tx_errors += 1;
                }
                d.pool.free(p.slot);
            }
        }
    }

    /// Dequeue from `out`'s queue while its link is free at `now`.
    fn service(&mut self, out: usize, now: Time) {
        loop {
            let Gateway { dirs, hook, log, epoch, .. } = self;
            let d = &mut dirs[out];
            if d.shaper.free_at() > now || d.qdisc.stats.queued_pkts() == 0 {
                return;
            }
            let before = d.occupancy();
            let marks_before = d.qdisc.by_reason.marks;
            let mut cx = QdiscCx { rng: &mut d.rng, dequeue_drops: &mut d.dropped };
            let got = d.qdisc.dequeue(now, &mut cx);
            Self::free_dropped(d, log, *epoch, now);
            let Some(mut p) = got else { return };
            if let Some(l) = log.as_mut() {
                if let Some(i) = (0..MarkReason::COUNT).find(|&i| d.qdisc.by_reason.marks[i] != marks_before[i]) {
                    l.mark_or_drop(now.since(*epoch), &d.interface, p.seen, p.ip_len, "mark", MarkReason::ALL[i].as_str());
                }
            }
            if p.ce {
                if let Some(ip) = ipv4_part(&mut d.pool.buf_mut(p.slot)[..p.frame_len as usize]) {
                    write_ce(ip);
                }
                p.ce = false;
            }
            if let Some(h) = hook.as_mut() {
                if h.monitor == out && h.nr.queue_event_matters(now) {
                    let r = readings(dirs, h);
                    let after = Occupancy { packets: r.queue.packets, bytes: r.queue.bytes };
                    h.nr.on_queue(&QueueEvent { kind: QueueEventKind::Dequeue, len_bytes: p.ip_len, before, after }, &r, now);
                }
                if h.rewrite_at == RewriteAt::Dequeue && p.kind == FrameKind::Ipv4 {
                    let r = readings(dirs, h);
                    let d = &mut dirs[out];
                    let (buf, layout) = d.pool.buf_and_layout(p.slot);
                    if let Some(ip) = ipv4_part(&mut buf[..p.frame_len as usize]) {
                        let view = match layout {
                            Some(l) => RawPacket::with_layout(ip, l).ok_or(()),
                            None => RawPacket::new_checked(ip).map_err(|_| ()),
                        };
                        if let Ok(mut v) = view {
                            let o = h.nr.at_rewrite_point_seen(&mut v, p.seen, &r, now);
                            if log.is_some() {
                                log_rewrite(log, *epoch, &d.interface, &h.nr, &v, p.seen, o, now);
                            }
                        }
                    }
                }
            }
            let d = &mut dirs[out];
            let wire = (p.frame_len as u64).saturating_sub(ETH_HLEN as u64) + d.l2_overhead as u64;
            let end = d.shaper.start_at(now, wire);
            d.counters.ring_wait_ns += p.ring_wait_ns;
            d.delay.push(end, p.ring_wait_ns, p);
        }
    }

    /// When [`Gateway::poll`] next has work, if ever without new frames.
    pub fn next_wakeup(&self) -> Option<Time> {
        let mut t: Option<Time> = None;
        for d in &self.dirs {
            if d.qdisc.stats.queued_pkts() > 0 {
                t = Some(t.map_or(d.shaper.free_at(), |t| t.min(d.shaper.free_at())));
            }
            if let Some(due) = d.delay.next_due() {
                t = Some(t.map_or(due, |t| t.min(due)));
            }
        }
        t
    }
}

#[allow(clippy::too_many_arguments)]
fn log_rewrite(log: &mut Option<EventLog>, epoch: Time, iface: &str, nr: &NetworkReturn, p: &RawPacket<'_>, seen: Option<FlowId>, o: WindowRewrite, now: Time) {
    let (WindowRewrite::Lowered { from_field, to_field } | WindowRewrite::Raised { from_field, to_field }) = o else { return };
    let Some(l) = log.as_mut() else { return };
    let flow = nr.flows.lookup_segment_seen(p, seen);
    let shift = flow.and_then(|f| p.src_port().and_then(|sp| f.side_of(p.src_addr(), sp)).and_then(|s| f.shift(s))).unwrap_or(0);
    let reason = if matches!(nr.controller, sluice_core::control::AnyController::Ngwa(_)) { "ngwa_ack" } else { "window" };
    l.rewrite(now.since(epoch), iface, seen, (from_field as u64) << shift, (to_field as u64) << shift, reason);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn gateway(extra: &str) -> Gateway {
        let cfg = Config::parse(&format!("[[egress]]\ninterface = \"a0\"\n{extra}\n[[egress]]\ninterface = \"b0\"\n")).unwrap();
        Gateway::new(&cfg, Time::ZERO)
    }

    fn drain(gw: &mut Gateway, until: Time) -> Vec<(usize, Time, Vec<u8>)> {
        drain_from(gw, Time::ZERO, until)
    }

    fn drain_from(gw: &mut Gateway, from: Time, until: Time) -> Vec<(usize, Time, Vec<u8>)> {
        let mut out = Vec::new();
        let mut now = from;
        while now <= until {
            gw.poll(now, |o, f| {
                out.push((o, now, f.to_vec()));
                true
            });
            now = gw.next_wakeup().unwrap_or(Time(until.0 + 1)).max(Time(now.0 + 1));
        }
        out
    }

    /// An Ethernet frame around `ip` (EtherType IPv4).
    fn eth(ip: &[u8]) -> Vec<u8> {
        let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00];
        f.extend_from_slice(ip);
        f
    }

    // ARP, a runt, and an IPv4 frame whose total length exceeds the frame: all leave as they
    // came, and only the last counts as malformed.
    #[test]
    fn frames_the_core_cannot_parse_pass_untouched() {
        let mut gw = gateway("");
        let mut arp = vec![0xffu8; 6];
        arp.extend_from_slice(&[2, 0, 0, 0, 0, 1, 0x08, 0x06]);
        arp.extend_from_slice(&[0u8; 28]);
        let runt = vec![1u8, 2, 3];
        let mut bad = crate::packet::tests::tcp_packet();
        bad[2..4].copy_from_slice(&2000u16.to_be_bytes());
        let bad = eth(&bad);
        for f in [&arp, &runt, &bad] {
            gw.on_frame(0, f, false, Time::ZERO, Time::ZERO);
        }
        let out = drain(&mut gw, Time(1));
        let got: Vec<&Vec<u8>> = out.iter().map(|(o, _, f)| {
            assert_eq!(*o, 0);
            f
        }).collect();
        assert_eq!(got, vec![&arp, &runt, &bad]);
        assert_eq!(gw.dirs[0].counters.malformed, 1);
        assert_eq!(gw.dirs[0].counters.tx_frames, 3);
        assert_eq!(gw.dirs[0].pool.in_use(), 0);
    }

    // Three 1514-byte frames arrive together at a 100 Mb/s, 20 ms egress: each takes
    // 1514 × 80 ns = 121.12 µs on the link, so they leave at 20 ms + 121.12, 242.24 and
    // 363.36 µs.
    #[test]
    fn frames_leave_at_the_shaped_and_delayed_times() {
        let mut gw = gateway("rate = \"100Mbps\"\ndelay = \"20ms\"");
        let mut ip = vec![0u8; 1500];
        ip[0] = 0x45;
        ip[2..4].copy_from_slice(&1500u16.to_be_bytes());
        ip[9] = 200; // an unparsed protocol: the frame is still IPv4 and counted at its length
        let f = eth(&ip);
        for _ in 0..3 {
            gw.on_frame(0, &f, false, Time::ZERO, Time::ZERO);
        }
        let times: Vec<u64> = drain(&mut gw, Time(30_000_000)).iter().map(|(_, t, _)| t.0).collect();
        assert_eq!(times, [20_121_120, 20_242_240, 20_363_360]);
        assert_eq!(gw.dirs[0].qdisc.stats.sojourn_sum_ns, 121_120 + 242_240);
    }

    // A full drop-tail queue (2 packets) drops the third arrival and frees its buffer.
    #[test]
    fn a_full_queue_drops_and_frees_the_buffer() {
        let mut gw = gateway("rate = \"1Mbps\"\nqdisc = { kind = \"drop_tail\", limit = \"2pkt\" }\nbuffers = 16");
        let f = eth(&crate::packet::tests::tcp_packet());
        for _ in 0..3 {
            gw.on_frame(0, &f, false, Time::ZERO, Time::ZERO);
        }
        // Nothing leaves before a poll: the queue holds two, the third is refused.
        assert_eq!(gw.dirs[0].qdisc.by_reason.drops[DropReason::Overlimit.index()], 1);
        assert_eq!(gw.dirs[0].pool.in_use(), 2);
        assert_eq!(drain(&mut gw, Time(10_000_000)).len(), 2);
        assert_eq!(gw.dirs[0].pool.in_use(), 0);
    }

    /// A TCP segment 10.0.0.1:`sport` -> 10.0.0.2:80 with `flags`, window 60000, valid
    /// checksums, in an Ethernet frame.
    fn tcp_frame(sport: u16, flags: u8) -> Vec<u8> {
        let mut p = crate::packet::tests::tcp_packet();
        p[20..22].copy_from_slice(&sport.to_be_bytes());
        p[33] = flags;
        p[34..36].copy_from_slice(&60000u16.to_be_bytes());
        assert!(crate::packet::complete_l4_checksum(&mut p));
        eth(&p)
    }

    // Through a gateway running EWT (start point 0 bytes), SYN, SYN-ACK and RST-ACK segments
    // and UDP leave byte-identical, in both directions, and none is offered to the writer.
    #[test]
    fn syn_rst_and_udp_leave_untouched_under_a_controller() {
        let cfg = Config::parse("[[egress]]\ninterface = \"a0\"\nrate = \"10Mbps\"\n[[egress]]\ninterface = \"b0\"\n[gateway]\ncontroller = { kind = \"ewt\", start = \"0B\" }\n").unwrap();
        let mut gw = Gateway::new(&cfg, Time::ZERO);
        let mut udp = crate::packet::tests::tcp_packet();
        udp[9] = sluice_core::packet::proto::UDP;
        udp[2..4].copy_from_slice(&44u16.to_be_bytes());
        udp[24..26].copy_from_slice(&24u16.to_be_bytes());
        udp[10..12].copy_from_slice(&[0, 0]);
        let c = sluice_core::packet::checksum::checksum(&udp[..20], 0);
        udp[10..12].copy_from_slice(&c.to_be_bytes());
        assert!(crate::packet::complete_l4_checksum(&mut udp));
        let frames = [tcp_frame(5001, 0x02), tcp_frame(5001, 0x12), tcp_frame(5001, 0x14), eth(&udp)];
        for (i, f) in frames.iter().enumerate() {
            gw.on_frame(i % 2, f, false, Time(i as u64), Time(i as u64));
        }
        let out = drain_from(&mut gw, Time(4), Time(100_000_000));
        assert_eq!(out.len(), 4);
        for (i, f) in frames.iter().enumerate() {
            let sent: Vec<&Vec<u8>> = out.iter().filter(|(o, _, _)| *o == i % 2).map(|(_, _, b)| b).collect();
            assert!(sent.contains(&f), "frame {i} changed");
        }
        assert_eq!(gw.hook.as_ref().unwrap().nr.stats.acks, 0);
    }

    // A SYN flood from 10,000 source ports against a flow table of 64 entries: the table stays
    // at most 64 entries, and every SYN is still forwarded.
    #[test]
    fn the_flow_table_stays_bounded_under_a_syn_flood() {
        let cfg = Config::parse("[[egress]]\ninterface = \"a0\"\nrate = \"1Gbps\"\nbuffers = 16384\n[[egress]]\ninterface = \"b0\"\n[gateway]\ncontroller = { kind = \"rwm\" }\nflow_table = { capacity = 64 }\n").unwrap();
        let mut gw = Gateway::new(&cfg, Time::ZERO);
        let (mut max, mut sent) = (0, 0);
        for port in 0..10_000u16 {
            let now = Time(port as u64 * 1000);
            gw.on_frame(0, &tcp_frame(1024 + port, 0x02), false, now, now);
            gw.poll(now, |_, _| {
                sent += 1;
                true
            });
            max = max.max(gw.hook.as_ref().unwrap().nr.flows.len());
        }
        assert!(max <= 64, "{max} entries");
        sent += drain_from(&mut gw, Time(10_000_000), Time(1_000_000_000)).len();
        assert_eq!(sent, 10_000);
    }

    // NGWA's gateway-only variant, rewriting at forward, monitoring a0 (the server's data
    // direction; 10-packet drop-tail, so W_node = 0.98·(10 − q)·1500 B with n_f = 1: the
    // SYN-ACK left through a0). After the handshake (shift 0 both ways) and with a0 empty:
    // 8 client ACKs (window 65,535) queued on b0 each leave with 0.98·15,000 = 14,700, however
    // full b0 (the ACKs' own queue) gets. Then 6 server data segments wait in a0: a client ACK
    // leaves with 0.98·(10 − 6)·1,500 = 5,880, one carrying 3,000 keeps it, and the server's
    // segments (which carry ACK, but their data is the monitored queue's) keep 65,535. The
    // handshake's SYN keeps its window, its last ACK gets 0.98·(10 − 1)·1,500 = 13,230 (the
    // SYN-ACK still waits in a0 when the ACK is forwarded). Every
    // checksum verifies on the way out; no frame grows (no option 33).
    #[test]
    fn ngwa_stamp_ack_writes_the_data_queues_w_node_into_acks() {
        let cfg = Config::parse(
            "[[egress]]\ninterface = \"a0\"\nrate = \"10Mbps\"\nqdisc = { kind = \"drop_tail\", limit = \"10pkt\" }\n\
             [[egress]]\ninterface = \"b0\"\nrate = \"10Mbps\"\nqdisc = { kind = \"drop_tail\", limit = \"10pkt\" }\n\
             [gateway]\ncontroller = { kind = \"ngwa\", stamp_ack = true, flow_division = true }\nmonitor = \"a0\"\nrewrite_at = \"forward\"\n",
        )
        .unwrap();
        let mut gw = Gateway::new(&cfg, Time::ZERO);
        use crate::fuzzing::segment;
        use sluice_core::packet::tcp_flags::{ACK, SYN};
        let mut t = 0u64;
        let mut send = |gw: &mut Gateway, b: [u8; 8]| {
            let (dir, f) = segment(&b);
            t += 1;
            gw.on_frame(dir, &f, false, Time(t), Time(t));
            f.len()
        };
        // Client (bit 2 of byte 0) SYN and ACK, server SYN-ACK, both announcing shift 0.
        send(&mut gw, [4, SYN, 0xff, 0xff, 0, 0, 0, 0]);
        send(&mut gw, [0, SYN | ACK, 0xff, 0xff, 0, 0, 0, 0]);
        send(&mut gw, [4, ACK, 0xff, 0xff, 0, 15, 0, 0]);
        let hs = drain_from(&mut gw, Time(3), Time(10_000_000));
        assert_eq!(hs.len(), 3);
        let mut sizes = Vec::new();
        for k in 0..8 {
            sizes.push(send(&mut gw, [4, ACK, 0xff, 0xff, 0, 15, 1, k]));
        }
        for k in 0..6 {
            send(&mut gw, [0, ACK, 0xff, 0xff, 0x80 | 121, 15, 1 + k, 1]);
        }
        assert_eq!(gw.dirs[0].occupancy().packets, 6);
        sizes.push(send(&mut gw, [4, ACK, 0xff, 0xff, 0, 15, 1, 8]));
        sizes.push(send(&mut gw, [4, ACK, 0x0b, 0xb8, 0, 15, 1, 9]));
        let out = drain_from(&mut gw, Time(t), Time(100_000_000));
        let field = |f: &[u8]| -> (u16, bool) {
            let mut b = f.to_vec();
            let p = RawPacket::new_checked(ipv4_part(&mut b).unwrap()).unwrap();
            (p.tcp_window_field().unwrap(), p.tcp_checksum_ok() == Some(true) && p.ip_checksum_ok())
        };
        assert_eq!(hs.iter().filter(|(o, _, _)| *o == 1).map(|(_, _, f)| field(f)).collect::<Vec<_>>(), [(65_535, true), (13_230, true)], "the SYN is never rewritten; the ACK is");
        let to_server: Vec<(u16, bool)> = out.iter().filter(|(o, _, _)| *o == 1).map(|(_, _, f)| field(f)).collect();
        let mut want = vec![(14_700, true); 8];
        want.extend([(5_880, true), (3_000, true)]);
        assert_eq!(to_server, want);
        assert_eq!(out.iter().filter(|(o, _, _)| *o == 1).map(|(_, _, f)| f.len()).collect::<Vec<_>>(), sizes, "no frame grows");
        let to_client: Vec<(u16, bool)> = out.iter().filter(|(o, _, _)| *o == 0).map(|(_, _, f)| field(f)).collect();
        assert_eq!(to_client, vec![(65_535, true); 6]);
        let st = gw.hook.as_ref().unwrap().nr.stats;
        // The 8, the 5,880 one and the handshake's own ACK (13,230, checked above).
        assert_eq!((st.lowered, st.raised), (10, 0));
    }

    proptest! {
        // A flood of arbitrary frames (half claiming IPv4) through a gateway with a controller,
        // CoDel and a shaper: nothing panics, every frame leaves once, and a frame the core
        // cannot parse leaves byte-identical.
        #[test]
        fn arbitrary_frames_are_forwarded_or_counted(frames in proptest::collection::vec((any::<bool>(), proptest::collection::vec(any::<u8>(), 0..120)), 1..60)) {
            let cfg = Config::parse("[[egress]]\ninterface = \"a0\"\nrate = \"10Mbps\"\nqdisc = { kind = \"codel\" }\n[[egress]]\ninterface = \"b0\"\n[gateway]\ncontroller = { kind = \"rwm\" }\n").unwrap();
            let mut gw = Gateway::new(&cfg, Time::ZERO);
            let mut sent_in = Vec::new();
            for (i, (ipv4, body)) in frames.iter().enumerate() {
                let f = if *ipv4 { let mut b = body.clone(); if !b.is_empty() { b[0] = 0x45 } eth(&b) } else { body.clone() };
                gw.on_frame(i % 2, &f, i % 3 == 0, Time(i as u64 * 1000), Time(i as u64 * 1000));
                sent_in.push((i % 2, f));
            }
            let out = drain_from(&mut gw, Time(frames.len() as u64 * 1000), Time(1_000_000_000));
            prop_assert_eq!(out.len(), frames.len());
            for o in 0..2 {
                let ins: Vec<&Vec<u8>> = sent_in.iter().filter(|(d, _)| *d == o).map(|(_, f)| f).collect();
                let outs: Vec<&Vec<u8>> = out.iter().filter(|(d, _, _)| *d == o).map(|(_, _, f)| f).collect();
                prop_assert_eq!(ins.len(), outs.len());
                for (a, b) in ins.iter().zip(&outs) {
                    prop_assert_eq!(a.len(), b.len());
                    let mut a2 = (*a).clone();
                    let parses = ipv4_part(&mut a2).is_some_and(|ip| RawPacket::new_checked(ip).is_ok());
                    if !parses {
                        prop_assert_eq!(*a, *b);
                    }
                }
            }
            prop_assert_eq!(gw.dirs[0].pool.in_use() + gw.dirs[1].pool.in_use(), 0);
        }
    }
}
