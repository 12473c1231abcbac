//! The resolved description of one run: what the scenario layer produces and the engine builds.
//!
//! Everything here is already validated and typed (no strings to interpret, no defaults left to
//! fill). Hosts, routers and links are referred to by index; names are kept for output only.
//! `scenario::build` turns a TOML scenario into a [`Model`]; tests may build one directly.

use crate::tcp::TcpConfig;
use serde::{Serialize, Serializer};
use sluice_core::qdisc::QdiscConfig;
use sluice_core::{Dur, Rate, Time};

/// One simulation run, fully resolved. Its serialization is the resolved model of
/// [`crate::scenario::resolve`] (times as duration strings from the start of the run, rates as
/// rate strings, both exact), and what the model hash covers.
#[derive(Clone, Debug, Serialize)]
pub struct Model {
    pub name: String,
    pub seed: u64,
    pub duration: Dur,
    /// Statistics exclude `[0, warmup)`.
    pub warmup: Dur,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
    pub monitor: MonitorSpec,
    /// Network-return controllers on routers (docs/algorithms/network-return.md).
    pub gateways: Vec<GatewaySpec>,
    /// NGWA routers (docs/algorithms/network-return.md, "NGWA"): `[[gateways]]` entries with
    /// `controller = { kind = "ngwa", ... }`. Left out of the resolved model when empty, so
    /// the model hash of a run without NGWA is what it was before NGWA existed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ngwa: Vec<NgwaSpec>,
    /// ACNS routers (docs/algorithms/network-return.md, "ACNS"): `[[gateways]]` entries with
    /// `controller = { kind = "acns", ... }`. Left out of the resolved model when empty, as
    /// `ngwa`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub acns: Vec<AcnsSpec>,
    /// Free-form provenance recorded in the summary (profile, options that ran).
    pub notes: Vec<(String, String)>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Host,
    Router,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
}

/// One direction of a link.
#[derive(Clone, Debug, Serialize)]
pub struct DirSpec {
    /// The queue discipline and its parameters (validated, defaults resolved).
    pub qdisc: QdiscConfig,
    /// Which packets sent this way are lost on the wire (decided as each starts serializing;
    /// a lost packet occupies the link but never arrives).
    pub loss: sluice_core::loss::LossModel,
    /// Name used for the queue in outputs (e.g. `"A->B"`).
    pub queue_name: String,
    /// Whether to write a pcap file of packets sent this way.
    pub pcap: bool,
}

/// A full-duplex point-to-point link between nodes `a` and `b`.
#[derive(Clone, Debug, Serialize)]
pub struct LinkSpec {
    pub a: usize,
    pub b: usize,
    pub rate: Rate,
    pub delay: Dur,
    /// Extra per-link propagation delay drawn once, uniformly in `[0, jitter)`, from the link's own
    /// random stream (breaks drop-tail phase locking; see docs/architecture.md, "Timing model").
    pub jitter: Dur,
    pub ab: DirSpec,
    pub ba: DirSpec,
    /// Link-layer bytes added to each IP packet for serialization (PPP: 2).
    pub l2_overhead: u32,
    /// Packets the device holds beyond the queue discipline (ns-3 default transmit queue: 1).
    pub device_queue: u32,
}

/// How a flow's start time is chosen.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StartSpec {
    At(#[serde(serialize_with = "since_start")] Time),
    /// Uniform in `[lo, hi)`, drawn from the flow's own stream.
    Uniform(#[serde(serialize_with = "since_start")] Time, #[serde(serialize_with = "since_start")] Time),
}

/// What the sending application does.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AppSpec {
    /// Unlimited data for the whole run, written into the send buffer `write` bytes at a time
    /// (0: whatever fits).
    Bulk { write: u64 },
    /// A file of `size` bytes, written `write` bytes at a time (0: whatever fits), then FIN.
    File { size: u64, write: u64 },
    /// UDP packets of `packet_size` payload bytes at `rate`.
    UdpCbr { rate: Rate, packet_size: u32 },
    /// UDP on-off source: exponential on/off periods with the given means; CBR while on.
    OnOff { rate: Rate, packet_size: u32, mean_on: Dur, mean_off: Dur },
    /// TCP, rate-limited: the application writes `write` bytes into the send buffer each time
    /// `rate` allows (a write every `write·8/rate` seconds, timed from the flow's start), for
    /// the whole run.
    TcpRate { rate: Rate, write: u64 },
}

impl AppSpec {
    pub fn is_tcp(&self) -> bool {
        matches!(self, AppSpec::Bulk { .. } | AppSpec::File { .. } | AppSpec::TcpRate { .. })
    }
    /// The plain bulk sender: keeps the send buffer full.
    pub const BULK: AppSpec = AppSpec::Bulk { write: 0 };

    pub fn kind_str(&self) -> &'static str {
        match self {
            AppSpec::Bulk { .. } => "bulk",
            AppSpec::File { .. } => "file",
            AppSpec::UdpCbr { .. } => "udp_cbr",
            AppSpec::OnOff { .. } => "on_off",
            AppSpec::TcpRate { .. } => "tcp_rate",
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowSpec {
    pub name: String,
    pub src: usize,
    pub dst: usize,
    /// The responder's port: the TCP server's (5001 by default), or a UDP flow's destination
    /// port (9, discard, by default). Clients take 49152 + the flow's index.
    pub port: u16,
    /// DSCP of the flow's packets, both directions (0 by default).
    pub dscp: u8,
    pub app: AppSpec,
    pub start: StartSpec,
    /// Stop sending at this time (None: run to the end).
    #[serde(serialize_with = "since_start_opt")]
    pub stop: Option<Time>,
    pub tcp: TcpConfig,
}

/// A network-return controller on a router: it sees every packet the router forwards, the
/// enqueues and dequeues of one of its egress queues, and rewrites the receive window of ACKs
/// at the rewrite point.
#[derive(Clone, Debug, Serialize)]
pub struct GatewaySpec {
    /// The router (node index).
    pub node: usize,
    pub controller: sluice_core::control::ControllerConfig,
    pub flow_table: sluice_core::flows::FlowTableConfig,
    /// The egress queue whose occupancy the controller reads (a link direction's
    /// `queue_name`, leaving `node`).
    pub monitor: String,
    pub rewrite_at: RewriteAt,
}

/// NGWA on a router: every TCP segment leaving any of its egress queues (after dequeue, or
/// passing an empty discipline) gets IPv4 option 33 with that queue's free bytes.
#[derive(Clone, Debug, Serialize)]
pub struct NgwaSpec {
    /// The router (node index).
    pub node: usize,
    pub config: sluice_core::control::NgwaConfig,
}

/// ACNS on a router: every TCP packet entering any of its egress queues is seen by its flow
/// table, and those asking for a command (CMI set) get one from that queue's usage before the
/// packet.
#[derive(Clone, Debug, Serialize)]
pub struct AcnsSpec {
    /// The router (node index).
    pub node: usize,
    pub config: sluice_core::control::AcnsConfig,
    pub flow_table: sluice_core::flows::FlowTableConfig,
}

/// Where a gateway rewrites the window of an ACK it forwards.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RewriteAt {
    /// When the ACK leaves the router's egress queue (after any time it waited there): the
    /// value is computed from the queue as it stands when the ACK goes on the wire.
    Dequeue,
    /// When the router forwards the ACK, before it joins the egress queue.
    Forward,
}

impl RewriteAt {
    pub fn as_str(self) -> &'static str {
        match self {
            RewriteAt::Dequeue => "dequeue",
            RewriteAt::Forward => "forward",
        }
    }
}

/// What to measure and record.
#[derive(Clone, Debug, Serialize)]
pub struct MonitorSpec {
    /// Queue-length sampling interval.
    pub queue_sample: Dur,
    /// Sampling interval of the cwnd / window trace (None: no trace).
    pub cwnd_trace: Option<Dur>,
    /// Record every RTT sample (can be large).
    pub rtt_trace: bool,
    /// Sample the congestion controls' internal values with the cwnd trace (table `cc_state`).
    pub cc_trace: bool,
    /// Record every window a gateway lowered (table `rewrites`).
    pub rewrite_trace: bool,
    /// Bytes captured per packet in pcap files.
    pub pcap_snaplen: u32,
    /// Queues reported in the summary and sampled (by name); `None`: every router egress queue.
    pub queues: Option<Vec<String>>,
    /// Interval of the per-flow throughput table `flow_samples` (None: no table).
    pub flow_sample: Option<Dur>,
    /// Which formula the summary's per-flow `efficiency` uses.
    pub efficiency: Efficiency,
}

/// The per-flow `efficiency` of the summary (docs/summary.md, "Efficiency").
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Efficiency {
    /// IP bytes the network delivered over IP bytes sent in the flow's data direction,
    /// FlowMonitor-style: `(tx_bytes - lost_bytes) / tx_bytes`.
    #[default]
    Ip,
    /// Payload bytes sent that were not retransmissions over payload bytes sent (TCP sender).
    Retx,
}

impl Efficiency {
    pub fn as_str(self) -> &'static str {
        match self {
            Efficiency::Ip => "ip",
            Efficiency::Retx => "retx",
        }
    }
}

impl Default for MonitorSpec {
    fn default() -> Self {
        MonitorSpec { queue_sample: Dur::from_millis(10), cwnd_trace: None, rtt_trace: false, cc_trace: false, rewrite_trace: false, pcap_snaplen: 128, queues: None, flow_sample: None, efficiency: Efficiency::Ip }
    }
}

/// An instant as the span since the start of the run (`"1500ms"`): exact, unlike seconds as a
/// float.
fn since_start<S: Serializer>(t: &Time, s: S) -> Result<S::Ok, S::Error> {
    Dur(t.0).serialize(s)
}

fn since_start_opt<S: Serializer>(t: &Option<Time>, s: S) -> Result<S::Ok, S::Error> {
    t.map(|t| Dur(t.0)).serialize(s)
}
