//! Programmatic models for tests (the same shapes the scenario files describe).

use sluice_core::qdisc::{DropTailConfig, QdiscConfig};
use sluice_core::units::QueueLimit;
use sluice_core::{Dur, Rate, Time};
use sluice_sim::model::*;
use sluice_sim::tcp::TcpConfig;

pub struct Dumbbell {
    pub pairs: usize,
    pub access_rate: Rate,
    pub sender_delays: Vec<Dur>,
    pub receiver_delays: Vec<Dur>,
    pub bottleneck_rate: Rate,
    pub bottleneck_delay: Dur,
    pub buffer: QueueLimit,
    /// The bottleneck's discipline (A->B); `None`: drop-tail of `buffer`.
    pub qdisc: Option<QdiscConfig>,
    pub loss: f64,
    pub duration: Dur,
    pub warmup: Dur,
    pub seed: u64,
}

impl Default for Dumbbell {
    fn default() -> Self {
        Dumbbell {
            pairs: 1,
            access_rate: Rate::mbps(100),
            sender_delays: vec![Dur::from_micros(2500)],
            receiver_delays: vec![Dur::from_micros(2500)],
            bottleneck_rate: Rate::mbps(10),
            bottleneck_delay: Dur::from_millis(5),
            buffer: QueueLimit::Packets(100),
            qdisc: None,
            loss: 0.0,
            duration: Dur::from_secs(60),
            warmup: Dur::from_secs(10),
            seed: 1,
        }
    }
}

fn dir(name: String, limit: QueueLimit, loss: f64) -> DirSpec {
    DirSpec { qdisc: QdiscConfig::DropTail(DropTailConfig { limit }), loss: sluice_core::loss::LossModel::Bernoulli { p: loss }, queue_name: name, pcap: false }
}

impl Dumbbell {
    /// Nodes s0.., r0.., A, B; flows i -> pair i % pairs with `app` and `tcp`, starting at `starts[i]`.
    pub fn model(&self, flows: usize, app: AppSpec, tcp: TcpConfig, starts: &[StartSpec]) -> Model {
        let n = self.pairs;
        let mut nodes = Vec::new();
        for i in 0..n {
            nodes.push(NodeSpec { name: format!("s{i}"), kind: NodeKind::Host });
        }
        for i in 0..n {
            nodes.push(NodeSpec { name: format!("r{i}"), kind: NodeKind::Host });
        }
        let a = 2 * n;
        let b = 2 * n + 1;
        nodes.push(NodeSpec { name: "A".into(), kind: NodeKind::Router });
        nodes.push(NodeSpec { name: "B".into(), kind: NodeKind::Router });
        let big = QueueLimit::Packets(100_000);
        let mut links = Vec::new();
        for i in 0..n {
            links.push(LinkSpec {
                a: i,
                b: a,
                rate: self.access_rate,
                delay: self.sender_delays[i % self.sender_delays.len()],
                jitter: Dur::ZERO,
                ab: dir(format!("s{i}->A"), big, 0.0),
                ba: dir(format!("A->s{i}"), big, 0.0),
                l2_overhead: 2,
                device_queue: 1,
            });
        }
        for i in 0..n {
            links.push(LinkSpec {
                a: b,
                b: n + i,
                rate: self.access_rate,
                delay: self.receiver_delays[i % self.receiver_delays.len()],
                jitter: Dur::ZERO,
                ab: dir(format!("B->r{i}"), big, 0.0),
                ba: dir(format!("r{i}->B"), big, 0.0),
                l2_overhead: 2,
                device_queue: 1,
            });
        }
        links.push(LinkSpec {
            a,
            b,
            rate: self.bottleneck_rate,
            delay: self.bottleneck_delay,
            jitter: Dur::ZERO,
            ab: DirSpec { qdisc: self.qdisc.clone().unwrap_or(QdiscConfig::DropTail(DropTailConfig { limit: self.buffer })), ..dir("A->B".into(), self.buffer, self.loss) },
            ba: dir("B->A".into(), big, 0.0),
            l2_overhead: 2,
            device_queue: 1,
        });
        let flows = (0..flows)
            .map(|k| FlowSpec {
                name: format!("f{k}"),
                src: k % n,
                dst: n + k % n,
                port: if app.is_tcp() { sluice_sim::net::SERVER_PORT } else { sluice_sim::net::UDP_PORT },
                dscp: 0,
                app: app.clone(),
                start: starts.get(k).cloned().unwrap_or(StartSpec::At(Time::ZERO)),
                stop: None,
                tcp: tcp.clone(),
            })
            .collect();
        Model {
            name: "test-dumbbell".into(),
            seed: self.seed,
            duration: self.duration,
            warmup: self.warmup,
            nodes,
            links,
            flows,
            monitor: MonitorSpec::default(),
            notes: vec![],
            gateways: vec![],
            ngwa: vec![],
            acns: vec![],
        }
    }
}

/// Runs a scenario's TOML text (its own seed, default options) and returns the summary as JSON.
pub fn summary_of(text: &str) -> serde_json::Value {
    let out = sluice_sim::run_str(text, None, &sluice_sim::RunOptions::default()).unwrap();
    serde_json::to_value(&out.summary).unwrap()
}

pub fn ns3_tcp() -> TcpConfig {
    TcpConfig { snd_buf: 8 << 20, rcv_buf: 8 << 20, ..TcpConfig::ns3_44() }
}

/// The departure fingerprint of a run (validation/departures.py defines it): the packets that
/// start transmission on one interface at times in `window_ns` = [t0, t1), each as the 19 bytes
/// `time_ns u64 | flow u32 | seq u32 | ip_len u16 | tcp_flags u8` (big-endian; seq relative to
/// the flow's SYN, mod 2³²), counted and hashed with SHA-256 in departure order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Departures {
    pub window_ns: [u64; 2],
    pub count: u64,
    pub sha256: String,
}

impl Departures {
    /// The fingerprint a record carries (`"departures"` of an ns3_dumbbell.py record), if any.
    pub fn from_record(rec: &serde_json::Value) -> Option<Departures> {
        let d = rec.get("departures")?;
        let w = d["window_ns"].as_array()?;
        Some(Departures {
            window_ns: [w[0].as_u64()?, w[1].as_u64()?],
            count: d["count"].as_u64()?,
            sha256: d["sha256"].as_str()?.to_string(),
        })
    }
}

/// A directory under the system's temporary directory, removed (with its contents) when dropped,
/// so every path out of a test cleans it up, a failing assertion's unwinding too.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("sluice-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("temporary directory");
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The port a reverse flow's receiver listens on, on the sender node (ns3_dumbbell.py
/// `--reverse-flows`).
pub const REVERSE_PORT: u16 = 5002;

/// The fingerprint of a Sluice capture (nanosecond pcap, PPP link type, as the engine writes
/// it when the packet starts serializing) over transmission starts in [t0, t1). The flow of a
/// packet is its source node's index (a dumbbell's sender k is node k and carries flow k). The
/// snap length must cover the IP and TCP fixed headers (42 bytes with the PPP field).
pub fn departures_from_pcap(path: &std::path::Path, window_ns: [u64; 2]) -> Departures {
    // A reverse flow's ACKs (source port 5002 on the sender node) are flow k + 2^31
    // (validation/departures.py).
    departures_from_pcap_by(path, window_ns, |src, _, sport| src as u32 | if sport == REVERSE_PORT { 1 << 31 } else { 0 })
}

/// [`departures_from_pcap`] with the flow of a packet given by `flow_of(source node,
/// destination node, source port)`.
pub fn departures_from_pcap_by(path: &std::path::Path, window_ns: [u64; 2], flow_of: impl Fn(usize, usize, u16) -> u32) -> Departures {
    use sha2::{Digest, Sha256};
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(u32::from_le_bytes(b[0..4].try_into().unwrap()), 0xa1b2_3c4d, "a nanosecond pcap");
    let be16 = |s: &[u8]| u16::from_be_bytes([s[0], s[1]]);
    let be32 = |s: &[u8]| u32::from_be_bytes(s[..4].try_into().unwrap());
    let le32 = |s: &[u8]| u32::from_le_bytes(s[..4].try_into().unwrap());
    let mut isn = std::collections::HashMap::new();
    let (mut h, mut count, mut off) = (Sha256::new(), 0u64, 24usize);
    while off + 16 <= b.len() {
        let t = le32(&b[off..]) as u64 * 1_000_000_000 + le32(&b[off + 4..]) as u64;
        let incl = le32(&b[off + 8..]) as usize;
        let ip = &b[off + 16 + 2..off + 16 + incl]; // after the PPP protocol field
        off += 16 + incl;
        assert_eq!(ip[9], 6, "TCP only on the captured queue");
        let tcp = &ip[(ip[0] & 15) as usize * 4..];
        let flow = flow_of(sluice_sim::net::addr_node(be32(&ip[12..])), sluice_sim::net::addr_node(be32(&ip[16..])), be16(tcp));
        let (seq, flags) = (be32(&tcp[4..]), tcp[13]);
        if flags & 0x02 != 0 {
            isn.entry(flow).or_insert(seq);
        }
        if (window_ns[0]..window_ns[1]).contains(&t) {
            let rel = seq.wrapping_sub(*isn.get(&flow).unwrap_or(&0));
            h.update(t.to_be_bytes());
            h.update(flow.to_be_bytes());
            h.update(rel.to_be_bytes());
            h.update(be16(&ip[2..]).to_be_bytes());
            h.update([flags]);
            count += 1;
        }
    }
    let sha256 = h.finalize().iter().map(|x| format!("{x:02x}")).collect();
    Departures { window_ns, count, sha256 }
}
