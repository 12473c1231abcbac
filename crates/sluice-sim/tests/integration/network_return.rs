//! The network-return seam runs the same code on both datapaths: a controller decides, and the
//! writer rewrites, identically whether a packet is the simulator's `SimPacket` or the bytes
//! `serialize_headers` writes for it (viewed through `RawPacket`, as a Linux gateway would).

use sluice_core::control::{AwmConfig, ControllerConfig, EwaConfig, EwtConfig, NetworkReturn, PinkConfig, QueueReading, Readings, RwmConfig, SapLawConfig};
use sluice_core::flows::FlowTableConfig;
use sluice_core::packet::{tcp_flags, Ecn, HeaderView, RawPacket, WindowRewrite};
use sluice_core::time::{Rate, Time};
use sluice_core::units::QueueLimit;
use sluice_sim::monitor::pcap::serialize_headers;
use sluice_sim::packet::{SimPacket, TcpOptions, Transport};

const C: u32 = 0x0a00_0001;
const S: u32 = 0x0a00_0102;

fn pkt(from_client: bool, flags: u8, seq: u32, ack: u32, window: u16, opts: TcpOptions, payload: u32) -> SimPacket {
    let (src, dst, sport, dport) = if from_client { (C, S, 40_000, 80) } else { (S, C, 80, 40_000) };
    SimPacket { src, dst, sport, dport, dscp: 0, ecn: Ecn::NotEct, ttl: 64, ip_id: 0, transport: Transport::Tcp { seq, ack, flags, window, opts }, payload, flow: 0 }
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
    ]
}

// A handshake (timestamps, shifts 7 and 9), then 400 segments both ways with varied windows,
// queue levels and times, through two gateways running the same controller: one fed the
// simulator's packets, one the bytes. Every decision and every resulting window is the same,
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
            on_sim.on_forward(&sim, false, r, now);
            {
                let raw = RawPacket::new_checked(&mut bytes).expect("serialized packets parse");
                on_raw.on_forward(&raw, false, r, now);
            }
            let a = on_sim.at_rewrite_point(&mut sim, r, now);
            let mut raw = RawPacket::new_checked(&mut bytes).unwrap();
            let b = on_raw.at_rewrite_point(&mut raw, r, now);
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
