//! Programmatic models for tests (the same shapes the scenario files describe).

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
            loss: 0.0,
            duration: Dur::from_secs(60),
            warmup: Dur::from_secs(10),
            seed: 1,
        }
    }
}

fn dir(name: String, limit: QueueLimit, loss: f64) -> DirSpec {
    DirSpec { qdisc: QdiscSpec::DropTail { limit }, loss: sluice_core::loss::LossModel::Bernoulli { p: loss }, queue_name: name, pcap: false }
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
            ab: dir("A->B".into(), self.buffer, self.loss),
            ba: dir("B->A".into(), big, 0.0),
            l2_overhead: 2,
            device_queue: 1,
        });
        let flows = (0..flows)
            .map(|k| FlowSpec {
                name: format!("f{k}"),
                src: k % n,
                dst: n + k % n,
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
        }
    }
}

pub fn ns3_tcp() -> TcpConfig {
    TcpConfig { snd_buf: 8 << 20, rcv_buf: 8 << 20, ..TcpConfig::ns3_44() }
}
