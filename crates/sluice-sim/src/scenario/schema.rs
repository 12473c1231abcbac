//! The scenario file schema (TOML): the single source of truth. Every table denies unknown keys;
//! algorithm choices are tagged enums, so errors list the allowed values.

use serde::de::Error as _;
use serde::Deserialize;
use sluice_core::units::ByteSize;
use sluice_core::{Dur, Rate};

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub duration: Dur,
    #[serde(default)]
    pub warmup: Option<Dur>,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub tcp: TcpTable,
    pub topology: Topology,
    pub flows: Vec<FlowTable>,
    #[serde(default)]
    pub monitor: MonitorTable,
    /// `[[gateways]]`: network-return controllers on routers.
    #[serde(default)]
    pub gateways: Vec<GatewayTable>,
    /// `[ngwa]`: NGWA's mode, applied to every NGWA flow and router.
    #[serde(default)]
    pub ngwa: Option<NgwaModeTable>,
}

/// `[ngwa] mode = 1..8`: one of NGWA's eight modes (docs/algorithms/network-return.md, "NGWA"),
/// which sets every TCP flow's congestion control and `tcp.ngwa.smoothing` and every NGWA
/// router's `flow_division`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct NgwaModeTable {
    pub mode: i64,
}

/// `[tcp.ngwa]`: NGWA's endpoint half; every key optional, and giving the table turns it on
/// unless `enabled = false`.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct NgwaTcpTable {
    pub enabled: Option<bool>,
    pub alpha: Option<f64>,
    pub smoothing: Option<bool>,
    pub smooth_at: Option<crate::tcp::NgwaSmoothAt>,
    pub allow_shrink: Option<bool>,
    pub floor: Option<crate::tcp::NgwaFloor>,
    pub opt_len: Option<u32>,
}

/// `[[gateways]]`: a network-return controller on a router (docs/scenarios.md, "Gateways").
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct GatewayTable {
    /// The router's name.
    pub node: String,
    /// `{ kind = "ewt" | "ewa" | "awm" | "sap_law" | "pink" | "rwm" | "ngwa" | "acns", ... }`.
    pub controller: GatewayController,
    /// The egress queue the controller reads (`"A->B"`); default: the router's slowest egress
    /// towards another router.
    pub monitor: Option<String>,
    pub rewrite_at: Option<crate::model::RewriteAt>,
    /// The flow table's parameters.
    pub flow_table: Option<sluice_core::flows::FlowTableConfig>,
}

/// What a `[[gateways]]` entry runs: a window controller, NGWA's stamper (not a window
/// controller: it writes IPv4 option 33 on every egress of the router, see
/// docs/algorithms/network-return.md, "NGWA"), or ACNS's router (it writes commands into the ECN
/// bits and the IPv4 reserved flag at enqueue into every egress, "ACNS" there). All are written
/// `{ kind = ..., ... }`.
#[derive(Debug, Clone, PartialEq)]
pub enum GatewayController {
    Window(sluice_core::control::ControllerConfig),
    /// NGWA's router, and whether the table gave `flow_division` (`[ngwa] mode` sets it
    /// otherwise).
    Ngwa { config: sluice_core::control::NgwaConfig, flow_division_given: bool },
    Acns(sluice_core::control::AcnsConfig),
}

impl GatewayController {
    /// Every `kind`.
    pub fn kinds() -> Vec<&'static str> {
        let mut k = sluice_core::control::ControllerConfig::KINDS.to_vec();
        k.push("ngwa");
        k.push("acns");
        k
    }
}

impl<'de> Deserialize<'de> for GatewayController {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        let kind = v.get("kind").and_then(|k| k.as_str()).map(str::to_owned);
        match kind.as_deref() {
            Some("ngwa") => {
                let mut t = v.as_table().cloned().unwrap_or_default();
                t.remove("kind");
                let flow_division_given = t.contains_key("flow_division");
                toml::Value::Table(t).try_into().map(|config| GatewayController::Ngwa { config, flow_division_given }).map_err(|e| D::Error::custom(e.message()))
            }
            Some("acns") => {
                let mut t = v.as_table().cloned().unwrap_or_default();
                t.remove("kind");
                toml::Value::Table(t).try_into().map(GatewayController::Acns).map_err(|e| D::Error::custom(e.message()))
            }
            Some(k) if !sluice_core::control::ControllerConfig::KINDS.contains(&k) => {
                let all: Vec<String> = GatewayController::kinds().iter().map(|k| format!("`{k}`")).collect();
                Err(D::Error::custom(format!("unknown variant `{k}`, expected one of {}", all.join(", "))))
            }
            _ => v.try_into().map(GatewayController::Window).map_err(|e| D::Error::custom(e.message())),
        }
    }
}

/// TCP options; every key optional (docs/tcp.md and docs/scenarios.md name each variant).
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct TcpTable {
    pub validate: Option<Profile>,
    pub tcp_preset: Option<Preset>,
    pub cc: Option<Cc>,
    /// `[tcp.cubic]`: CUBIC's parameters (docs/algorithms/cubic.md).
    pub cubic: Option<CubicTable>,
    /// `[tcp.vegas]`: Vegas's parameters (docs/algorithms/vegas.md).
    pub vegas: Option<VegasTable>,
    /// `[tcp.compound]`: Compound TCP's parameters (docs/algorithms/compound.md).
    pub compound: Option<CompoundTable>,
    /// `[tcp.bbr]`: BBR's parameters (docs/algorithms/bbr.md).
    pub bbr: Option<BbrTable>,
    /// `[tcp.ngwa]`: NGWA's endpoint half (docs/algorithms/network-return.md, "NGWA").
    pub ngwa: Option<NgwaTcpTable>,
    pub mss: Option<u32>,
    pub sack: Option<bool>,
    pub timestamps: Option<bool>,
    pub window_scaling: Option<bool>,
    pub ecn: Option<bool>,
    pub snd_buf: Option<ByteSize>,
    pub rcv_buf: Option<ByteSize>,
    pub initial_cwnd: Option<u32>,
    pub iw: Option<IwOpt>,
    pub rto: Option<RtoOpt>,
    pub min_rto: Option<Dur>,
    pub max_rto: Option<Dur>,
    pub initial_rto: Option<Dur>,
    pub delack: Option<DelAckOpt>,
    pub delack_count: Option<u32>,
    pub delack_timeout: Option<Dur>,
    pub recovery: Option<RecoveryOpt>,
    pub prr: Option<PrrOpt>,
    pub dupack: Option<DupAckOpt>,
    pub dupthresh: Option<u32>,
    pub limited_transmit: Option<bool>,
    pub wnd_update: Option<WndUpdateOpt>,
    pub syn_rto: Option<SynRtoOpt>,
    pub syn_retries: Option<u32>,
    pub data_retries: Option<u32>,
    pub newreno_full_ack: Option<FullAckOpt>,
    pub ecn_cut: Option<EcnCutOpt>,
    pub nagle: Option<bool>,
    pub pacing: Option<PacingOpt>,
    /// `[tcp.acns]`: ACNS's endpoint half (docs/tcp.md, "ACNS endpoint").
    pub acns: Option<AcnsTable>,
}

/// The congestion control: one enum for the scenario key and the endpoint.
pub use crate::tcp::CcKind as Cc;

/// `[tcp.cubic]`; every key optional.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct CubicTable {
    pub c: Option<f64>,
    pub beta: Option<f64>,
    pub fast_convergence: Option<bool>,
    pub tcp_friendliness: Option<bool>,
    pub hystart: Option<crate::tcp::Hystart>,
}

/// `[tcp.acns]`; every key optional.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct AcnsTable {
    pub enabled: Option<bool>,
    pub echo: Option<crate::tcp::AcnsEcho>,
    pub hist: Option<crate::tcp::AcnsHist>,
    pub hist_len: Option<u32>,
    pub trend_on_rto: Option<bool>,
    pub w_count: Option<u32>,
    pub sigma: Option<f64>,
    pub th_l1: Option<f64>,
    pub th_l2: Option<f64>,
    pub cmt_mask: Option<u8>,
}

/// `[tcp.vegas]`; every key optional.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct VegasTable {
    pub alpha: Option<u32>,
    pub beta: Option<u32>,
    pub gamma: Option<u32>,
    pub diff: Option<crate::tcp::VegasDiff>,
}

/// `[tcp.compound]`; every key optional. The variant's key is `variant`, also spelt `compound`.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct CompoundTable {
    #[serde(alias = "compound")]
    pub variant: Option<crate::tcp::CompoundVariant>,
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    pub k: Option<f64>,
    pub gamma: Option<f64>,
    pub eta: Option<f64>,
    pub gamma_tuning: Option<bool>,
}

/// `[tcp.bbr]`; every key optional.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct BbrTable {
    pub target: Option<crate::tcp::BbrTarget>,
    pub cycle_start: Option<crate::tcp::BbrCycleStart>,
    pub cycle_stream: Option<crate::tcp::BbrCycleStream>,
    pub cycle_draws: Option<Vec<u8>>,
    pub high_gain: Option<f64>,
    pub pacing_margin: Option<f64>,
}

macro_rules! choice {
    ($name:ident { $($variant:ident = $s:literal),+ $(,)? }) => {
        #[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $(#[serde(rename = $s)] $variant),+ }
        impl $name {
            pub fn as_str(self) -> &'static str { match self { $($name::$variant => $s),+ } }
        }
    };
}

choice!(Profile { Ns3_44 = "ns3.44", Sluice = "sluice" });
choice!(Preset { Ns3_30 = "ns3.30", Ns3_13 = "ns3.13" });
choice!(DelAckOpt { On = "on", Off = "off", Linux = "linux" });
choice!(RtoOpt { Rfc6298 = "rfc6298", Linux = "linux", Ns3Legacy = "ns3_legacy", Rfc793 = "rfc793" });
choice!(IwOpt { Rfc6928 = "rfc6928", Rfc3390 = "rfc3390", Rfc5681 = "rfc5681" });
choice!(RecoveryOpt { Prr = "prr", Classic = "classic" });
choice!(PacingOpt { Off = "off", Cc = "cc", Linux = "linux" });
choice!(PrrOpt { Rfc9937 = "rfc9937", Rfc6937 = "rfc6937" });
choice!(DupAckOpt { Default = "default", Strict = "strict", Ns3 = "ns3", Linux = "linux" });
choice!(WndUpdateOpt { Rfc9293 = "rfc9293", Ns3 = "ns3", Linux = "linux", Always = "always" });
choice!(SynRtoOpt { Rfc6298 = "rfc6298", Ns3 = "ns3" });
choice!(FullAckOpt { Ssthresh = "ssthresh", FlightSize = "flightsize" });
choice!(EcnCutOpt { Prr = "prr", Immediate = "immediate" });
choice!(RttTable { Eval9 = "eval9" });

/// A queue table: its `kind` picks the discipline, one of
/// [`QdiscConfig::KINDS`](sluice_core::qdisc::QdiscConfig::KINDS); the other keys are that
/// discipline's `<Name>Config` (sluice-core's `qdisc` module, shared with the gateway).
pub type QueueTable = toml::Value;

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    pub rate: Rate,
    pub delay: Dur,
    #[serde(default)]
    pub loss: Option<LossValue>,
    #[serde(default)]
    pub reverse_loss: Option<LossValue>,
}

/// A link direction's `loss`: a probability (`0.02`, shorthand for Bernoulli loss) or a
/// `{ kind = ... }` table (see [`LOSS_KINDS`]).
pub type LossValue = toml::Value;
pub const LOSS_KINDS: &[&str] = &["bernoulli", "gilbert_elliott", "list"];

/// `{ kind = "bernoulli", p }`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct BernoulliTable {
    pub p: f64,
}

/// `{ kind = "gilbert_elliott", p_gb, p_bg, loss_good = 0, loss_bad = 1 }`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottTable {
    pub p_gb: f64,
    pub p_bg: f64,
    #[serde(default)]
    pub loss_good: f64,
    #[serde(default = "one")]
    pub loss_bad: f64,
}

fn one() -> f64 {
    1.0
}

/// `{ kind = "list", packets = [..], match = "all" | "data" }`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ListLossTable {
    /// Signed so that a negative entry gets the list's own message, not a type error.
    pub packets: Vec<i64>,
    #[serde(default, rename = "match")]
    pub matching: Option<ListMatchOpt>,
}

choice!(ListMatchOpt { Data = "data", All = "all" });

/// `[topology]`: its `kind` picks one of the tables below (see [`TOPOLOGY_KINDS`]).
pub type Topology = toml::Value;
pub const TOPOLOGY_KINDS: &[&str] = &["dumbbell", "parking_lot", "graph"];

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct DumbbellTable {
    pub pairs: u32,
    pub access_rate: Rate,
    #[serde(default)]
    pub access_delay: Option<Dur>,
    #[serde(default)]
    pub sender_delays: Option<Vec<Dur>>,
    #[serde(default)]
    pub receiver_delays: Option<Vec<Dur>>,
    #[serde(default)]
    pub rtt_table: Option<RttTable>,
    pub bottleneck: LinkParams,
    pub queue: QueueTable,
    #[serde(default)]
    pub reverse_queue: Option<QueueTable>,
    #[serde(default)]
    pub access_queue: Option<QueueTable>,
    #[serde(default)]
    pub jitter: Option<Dur>,
    #[serde(default)]
    pub l2_overhead: Option<u32>,
    #[serde(default)]
    pub device_queue: Option<u32>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ParkingLotTable {
    pub hops: u32,
    pub rate: Rate,
    pub delay: Dur,
    pub queue: QueueTable,
    pub access_rate: Rate,
    #[serde(default)]
    pub access_delay: Option<Dur>,
    #[serde(default)]
    pub access_queue: Option<QueueTable>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct GraphTable {
    pub nodes: Vec<GraphNode>,
    pub links: Vec<GraphLink>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct GraphNode {
    pub name: String,
    pub kind: NodeKindOpt,
}

choice!(NodeKindOpt { Host = "host", Router = "router" });

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct GraphLink {
    pub a: String,
    pub b: String,
    pub rate: Rate,
    pub delay: Dur,
    #[serde(default)]
    pub queue: Option<QueueTable>,
    #[serde(default)]
    pub reverse_queue: Option<QueueTable>,
    #[serde(default)]
    pub loss: Option<LossValue>,
    #[serde(default)]
    pub reverse_loss: Option<LossValue>,
    #[serde(default)]
    pub jitter: Option<Dur>,
    #[serde(default)]
    pub l2_overhead: Option<u32>,
    #[serde(default)]
    pub device_queue: Option<u32>,
}

/// One name or a list of names: `src = "senders"`, `pcap = ["A->B", "B->A"]`.
#[derive(Debug)]
pub enum Endpoints {
    One(String),
    Many(Vec<String>),
}

/// A flow's start: a time, `{ uniform = [lo, hi] }`, or one time per generated flow.
#[derive(Debug)]
pub enum StartTable {
    At(Dur),
    Uniform { uniform: (Dur, Dur) },
    List(Vec<Dur>),
}

// Hand-written rather than `#[serde(untagged)]`, whose only error is "data did not match any
// variant": these say which shapes are allowed and, inside a list, which entry is wrong.

impl<'de> Deserialize<'de> for Endpoints {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const EXPECTED: &str = "expected a name (\"s0\") or a list of names ([\"s0\", \"s1\"])";
        match toml::Value::deserialize(d)? {
            toml::Value::String(s) => Ok(Endpoints::One(s)),
            toml::Value::Array(a) => a
                .into_iter()
                .enumerate()
                .map(|(i, v)| match v {
                    toml::Value::String(s) => Ok(s),
                    other => Err(D::Error::custom(format!("entry [{i}]: expected a name (a string), got {}", other.type_str()))),
                })
                .collect::<Result<_, _>>()
                .map(Endpoints::Many),
            other => Err(D::Error::custom(format!("{EXPECTED}, got {}", other.type_str()))),
        }
    }
}

impl<'de> Deserialize<'de> for StartTable {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const EXPECTED: &str = "expected a duration (\"2s\"), { uniform = [\"1s\", \"8s\"] } or a list of durations, one per generated flow";
        let dur = |v: toml::Value, at: &str| Dur::deserialize(v).map_err(|e| D::Error::custom(format!("{at}{}", e.message())));
        match toml::Value::deserialize(d)? {
            v @ (toml::Value::String(_) | toml::Value::Integer(_)) => dur(v, "").map(StartTable::At),
            toml::Value::Array(a) => a.into_iter().enumerate().map(|(i, v)| dur(v, &format!("entry [{i}]: "))).collect::<Result<_, _>>().map(StartTable::List),
            toml::Value::Table(mut t) => {
                let bounds = t.remove("uniform");
                if let Some(k) = t.keys().next() {
                    return Err(D::Error::custom(format!("unknown key `{k}`; {EXPECTED}")));
                }
                match bounds {
                    Some(toml::Value::Array(a)) if a.len() == 2 => {
                        let mut a = a.into_iter();
                        let lo = dur(a.next().expect("two entries"), "uniform[0]: ")?;
                        let hi = dur(a.next().expect("two entries"), "uniform[1]: ")?;
                        Ok(StartTable::Uniform { uniform: (lo, hi) })
                    }
                    _ => Err(D::Error::custom("uniform: expected two durations, [lo, hi]")),
                }
            }
            other => Err(D::Error::custom(format!("{EXPECTED}, got {}", other.type_str()))),
        }
    }
}

/// An application table: its `kind` picks one of the tables below (see [`APP_KINDS`]).
pub type AppTable = toml::Value;
pub const APP_KINDS: &[&str] = &["bulk", "file", "udp_cbr", "on_off", "tcp_rate"];

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct BulkTable {
    pub write_size: Option<ByteSize>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct FileTable {
    pub size: ByteSize,
    pub write_size: Option<ByteSize>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct UdpCbrTable {
    pub rate: Rate,
    pub packet_size: ByteSize,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct TcpRateTable {
    pub rate: Rate,
    pub write_size: Option<ByteSize>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct OnOffTable {
    pub rate: Rate,
    pub packet_size: ByteSize,
    pub mean_on: Dur,
    pub mean_off: Dur,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct FlowTable {
    #[serde(default)]
    pub name: Option<String>,
    pub src: Endpoints,
    pub dst: Endpoints,
    #[serde(default)]
    pub count: Option<u32>,
    /// The responder's port (checked in the scenario layer, which names the range).
    #[serde(default)]
    pub port: Option<i64>,
    /// DSCP of every packet the flow's endpoints or source send (checked in the scenario
    /// layer: 0–63).
    #[serde(default)]
    pub dscp: Option<i64>,
    pub app: AppTable,
    #[serde(default)]
    pub start: Option<StartTable>,
    #[serde(default)]
    pub stop: Option<Dur>,
    #[serde(default)]
    pub tcp: Option<TcpTable>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct MonitorTable {
    pub queue_sample: Option<Dur>,
    pub cwnd_trace: Option<Dur>,
    pub rtt_trace: Option<bool>,
    pub rewrite_trace: Option<bool>,
    pub cc_trace: Option<bool>,
    pub pcap: Option<Endpoints>,
    pub pcap_snaplen: Option<u32>,
    pub queues: Option<Endpoints>,
    pub flow_sample: Option<Dur>,
    pub efficiency: Option<EfficiencyOpt>,
}

choice!(EfficiencyOpt { Ip = "ip", Retx = "retx" });
