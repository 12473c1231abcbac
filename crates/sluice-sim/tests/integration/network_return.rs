//! The network-return seam runs the same code on both datapaths: a controller decides, and the
//! writer rewrites, identically whether a packet is the simulator's `SimPacket` or the bytes
//! `serialize_headers` writes for it (viewed through `RawPacket`, as a Linux gateway would).
//! The same holds for the writers of ECN + the IPv4 reserved flag, the TCP reserved bit and
//! IPv4 option 33 (`sluice_core::packet::signal`).

use sluice_core::control::{AwmConfig, Ngwa, NgwaConfig, ControllerConfig, EwaConfig, EwtConfig, NetworkReturn, PinkConfig, QueueReading, Readings, RwmConfig, SapLawConfig};
use sluice_core::flows::FlowTableConfig;
use sluice_core::packet::{set_ecn_cmi, set_tcp_reserved_bit, stamp_opt33, tcp_flags, AcnsIp, AcnsTcp, CmtMask, Ecn, HeaderSkip, HeaderView, OptLen, RawPacket, SignalField, WindowRewrite};
use sluice_core::time::{Rate, Time};
use sluice_core::units::QueueLimit;
use sluice_sim::monitor::pcap::serialize_headers;
use sluice_sim::packet::{SimPacket, TcpOptions, Tos, Transport};

const C: u32 = 0x0a00_0001;
const S: u32 = 0x0a00_0102;

fn pkt(from_client: bool, flags: u8, seq: u32, ack: u32, window: u16, opts: TcpOptions, payload: u32) -> SimPacket {
    let (src, dst, sport, dport) = if from_client { (C, S, 40_000, 80) } else { (S, C, 80, 40_000) };
    SimPacket { src, dst, sport, dport, tos: Tos::new(0, Ecn::NotEct), ttl: 64, ip_id: 0, transport: Transport::Tcp { seq, ack, flags, window, opts, bits: Default::default() }, payload, flow: 0, opt33: 0 }
}

/// The wire bytes of `p`, its zero payload included (what a gateway receives).
fn wire(p: &SimPacket) -> Vec<u8> {
    let mut b = Vec::new();
    serialize_headers(p, &mut b);
    b.resize(p.ip_len() as usize, 0);
    b
}

/// A small deterministic sequence generator (an LCG), for varied windows and queue levels.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    /// True with probability 1/n.
    fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
}

fn configs() -> Vec<ControllerConfig> {
    vec![
        ControllerConfig::Ewt(EwtConfig::default()),
        ControllerConfig::Ewt(EwtConfig { literal_floor: true, ..EwtConfig::default() }),
        ControllerConfig::Ewa(EwaConfig::default()),
        ControllerConfig::Awm(AwmConfig::default()),
        ControllerConfig::SapLaw(SapLawConfig::default()),
        ControllerConfig::Pink(PinkConfig::default()),
        ControllerConfig::Rwm(RwmConfig::default()),
        ControllerConfig::Rwm(RwmConfig { no_shrink: true, delta: -0.1, ..RwmConfig::default() }),
        ControllerConfig::Ngwa(NgwaConfig { stamp_ack: true, flow_division: true, ..NgwaConfig::default() }),
    ]
}

// A handshake (timestamps, shifts 7 and 9), then 400 segments both ways (the server's leaving
// through the monitored egress) with varied windows, queue levels and times, through two
// gateways running the same controller: one fed the simulator's packets, one the bytes. Every decision and every resulting window is the same,
// and the byte gateway's checksums verify after each rewrite.
#[test]
fn controllers_decide_identically_on_sim_packets_and_their_bytes() {
    for cfg in configs() {
        let mut on_sim = NetworkReturn::new(FlowTableConfig::default(), &cfg);
        let mut on_raw = NetworkReturn::new(FlowTableConfig::default(), &cfg);
        let syn_opts = |ws| TcpOptions { mss: Some(1460), wscale: Some(ws), sack_permitted: true, ts: Some((1, 0)), ..Default::default() };
        let mut script = vec![
            (0u64, pkt(true, tcp_flags::SYN, 100, 0, 65_535, syn_opts(7), 0)),
            (30_000_000, pkt(false, tcp_flags::SYN | tcp_flags::ACK, 900, 101, 65_535, syn_opts(9), 0)),
            (60_000_000, pkt(true, tcp_flags::ACK, 101, 901, 500, TcpOptions { ts: Some((2, 1)), ..Default::default() }, 0)),
        ];
        let mut rng = Lcg(42);
        let mut t = 60_000_000u64;
        let cseq = 101u32;
        let mut sseq = 901u32;
        for k in 0..400u32 {
            t += 1_000_000 + rng.next() % 5_000_000;
            let from_client = k % 3 == 0;
            let window = (rng.next() % 65_536) as u16;
            let opts = TcpOptions { ts: Some((10 + k, 9 + k)), ..Default::default() };
            let p = if from_client {
                pkt(true, tcp_flags::ACK, cseq, sseq, window, opts, 0)
            } else {
                let p = pkt(false, tcp_flags::ACK | tcp_flags::PSH, sseq, cseq, window, opts, 1448);
                sseq = sseq.wrapping_add(1448);
                p
            };
            script.push((t, p));
        }
        for (t, p) in script {
            let now = Time(t);
            let level = rng.next() % 150_000;
            let r = Readings { queue: QueueReading { bytes: level, packets: (level / 1500) as u32, limit: QueueLimit::Bytes(150_000) }, link: Rate::mbps(100), oracle_flows: Some(1) };
            let mut sim = p.clone();
            let mut bytes = wire(&p);
            // The server's segments leave through the monitored (data-direction) egress.
            let monitored = p.src == S;
            on_sim.on_forward(&sim, monitored, &r, now);
            {
                let raw = RawPacket::new_checked(&mut bytes).expect("serialized packets parse");
                on_raw.on_forward(&raw, monitored, &r, now);
            }
            let a = on_sim.at_rewrite_point(&mut sim, &r, now);
            let mut raw = RawPacket::new_checked(&mut bytes).unwrap();
            let b = on_raw.at_rewrite_point(&mut raw, &r, now);
            assert_eq!(a, b, "{} at {t} ns", cfg.kind());
            assert_eq!(sim.tcp_window_field(), raw.tcp_window_field(), "{} at {t} ns", cfg.kind());
            assert_eq!(raw.tcp_checksum_ok(), Some(true));
            // And the byte gateway's packet is what the simulator would now serialize.
            assert_eq!(bytes, wire(&sim), "{} at {t} ns: bytes differ from the rewritten SimPacket's", cfg.kind());
            if let WindowRewrite::Lowered { to_field, .. } = a {
                assert!(to_field <= p.tcp_window_field().unwrap());
            }
        }
        assert!(on_sim.stats.lowered > 100, "{}: the test never rewrote anything: {:?}", cfg.kind(), on_sim.stats);
        assert_eq!(on_sim.stats, on_raw.stats);
    }
}

/// One write of a signal writer, with its arguments.
#[derive(Copy, Clone, Debug)]
enum Op {
    EcnCmi(Ecn, bool),
    Cmt(CmtMask, bool),
    Opt(u64, OptLen, u32),
}

fn apply<P: SignalField>(p: &mut P, op: Op) -> Result<String, HeaderSkip> {
    match op {
        Op::EcnCmi(e, c) => set_ecn_cmi(p, e, c).map(|r| format!("{r:?}")),
        Op::Cmt(m, on) => set_tcp_reserved_bit(p, m, on).map(|r| format!("{r:?}")),
        Op::Opt(v, l, mtu) => stamp_opt33(p, v, l, mtu).map(|r| format!("{r:?}")),
    }
}

/// Every header field either view reads.
fn fields(p: &impl HeaderView) -> String {
    format!(
        "{:?}",
        (
            (p.src_addr(), p.dst_addr(), p.protocol(), p.dscp(), p.ecn(), p.ip_len(), p.payload_len()),
            (p.src_port(), p.dst_port(), p.tcp_flags(), p.tcp_seq(), p.tcp_ack(), p.tcp_window_field(), p.tcp_options()),
            (p.ip_reserved_flag(), p.ip_options_len(), p.ip_option33(), p.tcp_reserved_bits()),
        )
    )
}

// 3,000 random packets (TCP with varied flags, options, payloads and DSCP, and UDP), each put
// through a random sequence of up to eight signal writes applied both to the SimPacket and to
// its bytes (with 0, 4 or 16 bytes of headroom in the byte buffer: with 0 or 4 an 8-byte
// option has no room on bytes, and that pair is left out of the comparison). After each write
// both give the same result and read the same, field by field and as ACNS codes; the bytes
// keep valid IP and TCP checksums and equal what the simulator would now serialize; UDP
// packets are untouched.
#[test]
fn signal_writers_agree_on_sim_packets_and_their_bytes() {
    let mut rng = Lcg(7);
    let masks = [0x08, 0x04, 0x02].map(|m| CmtMask::new(m).unwrap());
    let mut written = [0usize; 3];
    for case in 0..3_000 {
        let flags = (rng.next() % 256) as u8;
        let opts = match rng.next() % 3 {
            0 => TcpOptions::default(),
            1 => TcpOptions { ts: Some((rng.next() as u32, 5)), ..Default::default() },
            _ => TcpOptions { mss: Some(1460), wscale: Some(7), sack_permitted: true, ts: Some((1, 0)), ..Default::default() },
        };
        let mut sim = pkt(rng.one_in(2), flags, rng.next() as u32, rng.next() as u32, rng.next() as u16, opts, (rng.next() % 1461) as u32);
        sim.tos = Tos::new((rng.next() % 64) as u8, Ecn::from_bits(rng.next() as u8));
        let udp = rng.one_in(5);
        if udp {
            sim.transport = Transport::Udp;
        }
        let headroom = [0usize, 4, 16][(rng.next() % 3) as usize];
        let mut bytes = wire(&sim);
        let len0 = bytes.len();
        bytes.resize(len0 + headroom, 0xee);
        let before = bytes.clone();
        for _ in 0..rng.next() % 9 {
            let op = match rng.next() % 3 {
                0 => Op::EcnCmi(Ecn::from_bits(rng.next() as u8), rng.one_in(2)),
                1 => Op::Cmt(masks[(rng.next() % 3) as usize], rng.one_in(2)),
                _ => Op::Opt(if rng.one_in(2) { rng.next() % 70_000 } else { rng.next() << 20 }, if rng.one_in(2) { OptLen::Four } else { OptLen::Eight }, [1500, 576, 65_535][(rng.next() % 3) as usize]),
            };
            let mut raw = RawPacket::new_checked(&mut bytes).expect("written packets parse");
            let b = apply(&mut raw, op);
            let mut trial = sim.clone();
            let a = apply(&mut trial, op);
            if b == Err(HeaderSkip::NoHeadroom) {
                assert!(headroom < 8, "case {case}: {op:?}");
                continue;
            }
            sim = trial;
            assert_eq!(a, b, "case {case}: {op:?}");
            assert_eq!(fields(&sim), fields(&raw), "case {case}: {op:?}");
            assert_eq!(AcnsIp::of(&sim), AcnsIp::of(&raw));
            for m in masks {
                assert_eq!(AcnsTcp::of(&sim, m), AcnsTcp::of(&raw, m));
            }
            assert!(raw.ip_checksum_ok(), "case {case}: {op:?}");
            if !udp {
                assert_eq!(raw.tcp_checksum_ok(), Some(true), "case {case}: {op:?}");
            }
            let n = raw.ip_len() as usize;
            assert_eq!(&bytes[..n], &wire(&sim)[..], "case {case}: {op:?}: bytes differ from the SimPacket's");
            if a.is_ok() {
                written[match op {
                    Op::EcnCmi(..) => 0,
                    Op::Cmt(..) => 1,
                    Op::Opt(..) => 2,
                }] += 1;
            }
        }
        if udp {
            assert_eq!(bytes, before, "case {case}: UDP packets are never written");
        }
    }
    assert!(written.iter().all(|&w| w > 500), "every writer exercised: {written:?}");
}

// tests ACNS Tables 2 and 3 through the simulator's packet: each code written into a SimPacket
// reads back from it, and from the bytes the pcap writer makes of it.
#[test]
fn acns_codes_round_trip_through_sim_packets_and_bytes() {
    for ip in AcnsIp::ALL {
        for tcp in AcnsTcp::ALL {
            for mask in [0x08, 0x04, 0x02].map(|m| CmtMask::new(m).unwrap()) {
                let mut p = pkt(false, tcp_flags::ACK, 1, 2, 3, TcpOptions::default(), 100);
                let (flags, res) = tcp.apply(tcp_flags::ACK, 0, mask);
                if let Transport::Tcp { flags: f, bits, .. } = &mut p.transport {
                    *f = flags;
                    bits.set_tcp_reserved(res);
                }
                ip.write(&mut p).unwrap();
                assert_eq!((AcnsIp::of(&p), AcnsTcp::of(&p, mask)), (Some(ip), Some(tcp)));
                let mut b = wire(&p);
                let raw = RawPacket::new_checked(&mut b).unwrap();
                assert_eq!((AcnsIp::of(&raw), AcnsTcp::of(&raw, mask)), (Some(ip), Some(tcp)));
                assert!(raw.ip_checksum_ok() && raw.tcp_checksum_ok() == Some(true));
            }
        }
    }
}

// NGWA's router decides and stamps identically on the simulator's packets and their bytes: a
// handshake, then 400 segments both ways (data, pure ACKs, a FIN) at varied queue levels,
// some already stamped upstream with a value above or below this router's, through every
// combination of flow division, `br` and `opt_len`. Same outcome, same option,
// same length, the bytes equal to the stamped SimPacket's serialization, the IP checksum valid.
#[test]
fn ngwa_decides_identically_on_sim_packets_and_their_bytes() {
    use sluice_core::control::ngwa::NgwaBr;
    for (flow_division, br, opt_len) in [(false, NgwaBr::Pkts, 8), (true, NgwaBr::Pkts, 8), (true, NgwaBr::Bytes, 4), (false, NgwaBr::Bytes, 4)] {
        let cfg = NgwaConfig { flow_division, br, opt_len, ..NgwaConfig::default() };
        let (mut on_sim, mut on_raw) = (Ngwa::new(cfg.clone(), 1), Ngwa::new(cfg.clone(), 1));
        let mut upstream = Ngwa::new(NgwaConfig { opt_len, ..NgwaConfig::default() }, 1);
        let mut script = vec![pkt(true, tcp_flags::SYN, 100, 0, 65_535, TcpOptions::default(), 0), pkt(false, tcp_flags::SYN | tcp_flags::ACK, 900, 101, 65_535, TcpOptions::default(), 0)];
        let mut rng = Lcg(7);
        for k in 0..400u32 {
            let p = match k % 3 {
                0 => pkt(true, tcp_flags::ACK, 101, 901 + k, 500, TcpOptions::default(), 0),
                _ => pkt(false, tcp_flags::ACK | tcp_flags::PSH, 901 + k, 101, 500, TcpOptions::default(), 1000),
            };
            script.push(p);
        }
        script.push(pkt(false, tcp_flags::FIN | tcp_flags::ACK, 5000, 101, 500, TcpOptions::default(), 0));
        let mut counted = 0;
        for p in script {
            let level = rng.next() % 100;
            let limit = QueueLimit::Packets(100);
            let q = QueueReading { bytes: level * 1000, packets: level as u32, limit };
            let mut sim = p.clone();
            if rng.one_in(3) {
                let up = QueueReading { bytes: 0, packets: (rng.next() % 100) as u32, limit };
                upstream.on_departure(0, &mut sim, up);
            }
            let mut bytes = wire(&sim);
            bytes.resize(bytes.len() + 8, 0);
            let a = on_sim.on_departure(0, &mut sim, q);
            let mut raw = RawPacket::new_checked(&mut bytes).unwrap();
            let b = on_raw.on_departure(0, &mut raw, q);
            assert_eq!(a, b, "{cfg:?}");
            assert_eq!((sim.ip_len(), sim.ip_option33()), (raw.ip_len(), raw.ip_option33()), "{cfg:?}");
            assert!(raw.ip_checksum_ok());
            assert_eq!(raw.tcp_checksum_ok(), Some(true));
            let n = raw.ip_len() as usize;
            assert_eq!(bytes[..n], wire(&sim)[..], "{cfg:?}");
            counted += a.growth();
        }
        assert_eq!(format!("{:?}", on_sim.stats), format!("{:?}", on_raw.stats));
        assert!(on_sim.stats.inserted > 50 && on_sim.stats.lowered + on_sim.stats.kept > 50 && counted > 0, "{cfg:?}: {:?}", on_sim.stats);
    }
}

// ACNS's router decides and writes identically on the simulator's packets and their bytes:
// three clients (ACNS handshakes from 0, 2 and 4 s, DSCP 0, 26 and 46), one plain ECN client,
// then 600 segments both ways (data with every IPv4 code, pure ACKs, UDP datagrams with ECN and
// the reserved flag) at varied queue levels and times, through every combination of weight,
// age and p_max. Same outcome, same code, the bytes equal to the written SimPacket's
// serialization, both checksums valid, the same counters.
#[test]
fn acns_decides_identically_on_sim_packets_and_their_bytes() {
    use sluice_core::control::acns::{AcnsAge, AcnsPMax, AcnsWeight};
    use sluice_core::control::{Acns, AcnsConfig, AcnsOutcome};
    let ece_cwr = tcp_flags::ECE | tcp_flags::CWR;
    let client = |k: u16, mut p: SimPacket| {
        if p.sport == 40_000 {
            p.sport += k;
        } else {
            p.dport += k;
        }
        p
    };
    let with_cmt = |mut p: SimPacket| {
        if let Transport::Tcp { bits, .. } = &mut p.transport {
            bits.set_tcp_reserved(0x08);
        }
        p
    };
    for weight in [AcnsWeight::Corrected, AcnsWeight::Literal] {
        for age in [AcnsAge::Intent, AcnsAge::Printed] {
            for p_max in [AcnsPMax::Active, AcnsPMax::Fixed] {
                let cfg = AcnsConfig { weight, age, p_max, ..AcnsConfig::default() };
                let (mut on_sim, mut on_raw) = (Acns::new(cfg.clone(), FlowTableConfig::default()), Acns::new(cfg.clone(), FlowTableConfig::default()));
                let mut script: Vec<(u64, SimPacket)> = Vec::new();
                for k in 0..4u16 {
                    let t = k as u64 * 2_000_000_000;
                    let acns = k < 3;
                    let syn = pkt(true, tcp_flags::SYN | ece_cwr, 100, 0, 65_535, TcpOptions::default(), 0);
                    let synack = pkt(false, tcp_flags::SYN | tcp_flags::ACK | tcp_flags::ECE, 900, 101, 65_535, TcpOptions::default(), 0);
                    script.push((t, client(k, if acns { with_cmt(syn) } else { syn })));
                    script.push((t, client(k, if acns { with_cmt(synack) } else { synack })));
                }
                let mut rng = Lcg(11);
                let mut t = 8_000_000_000u64;
                for n in 0..600u32 {
                    t += rng.next() % 50_000_000;
                    let k = (rng.next() % 4) as u16;
                    let mut p = match n % 4 {
                        0 => pkt(false, tcp_flags::ACK, 901, 101 + n, 500, TcpOptions::default(), 0),
                        _ => pkt(true, tcp_flags::ACK | tcp_flags::PSH, 101 + n * 1000, 901, 500, TcpOptions::default(), 1000),
                    };
                    if rng.one_in(8) {
                        p.transport = Transport::Udp;
                    }
                    p.tos = Tos::new([0u8, 26, 46, 63][k as usize], Ecn::from_bits(rng.next() as u8));
                    let cmi = rng.one_in(2);
                    let p = client(k, p);
                    let mut p = p;
                    match &mut p.transport {
                        Transport::Tcp { bits, .. } => bits.set_ip_reserved_flag(cmi),
                        Transport::Udp => {}
                    }
                    script.push((t, p));
                }
                let mut evaluated = 0;
                for (t, mut sim) in script {
                    let q = QueueReading { bytes: 0, packets: (rng.next() % 51) as u32, limit: QueueLimit::Packets(50) };
                    let mut bytes = wire(&sim);
                    let before = bytes.clone();
                    let a = on_sim.on_enqueue(&mut sim, None, q, Time(t)).1;
                    let mut raw = RawPacket::new_checked(&mut bytes).unwrap();
                    let b = on_raw.on_enqueue(&mut raw, None, q, Time(t)).1;
                    assert_eq!(a, b, "{cfg:?}");
                    assert_eq!(AcnsIp::of(&sim), AcnsIp::of(&raw));
                    assert!(raw.ip_checksum_ok());
                    if sim.protocol() == sluice_core::packet::proto::TCP {
                        assert_eq!(raw.tcp_checksum_ok(), Some(true));
                    } else {
                        assert_eq!(bytes, before, "UDP untouched");
                    }
                    assert_eq!(bytes[..], wire(&sim)[..], "{cfg:?}");
                    evaluated += matches!(a, AcnsOutcome::Evaluated { .. }) as u32;
                }
                assert_eq!(on_sim.stats, on_raw.stats);
                let s = on_sim.stats;
                assert!(evaluated > 100 && s.freezes + s.fallbacks > 0, "{cfg:?}: {s:?}");
            }
        }
    }
}
