//! The gateway's TOML configuration. Queue tables and controller tables are the scenarios'
//! (`queue = { kind = "pie", ... }`, here an egress's `qdisc`, and `[[gateways]].controller`), parsed with the same
//! `sluice-core` configs, so a discipline or controller tried in the simulator runs here with
//! the same keys and defaults. Every error is one line naming the field.

use crate::error::GatewayError;
use crate::sys::RingConfig;
use serde::Deserialize;
use sluice_core::control::{AwmConfig, ControllerConfig, EwaConfig, EwtConfig, NgwaConfig, PinkConfig, RwmConfig, SapLawConfig};
use sluice_core::flows::FlowTableConfig;
use sluice_core::qdisc::{AnyQdisc, DropTailConfig, Profile, QdiscConfig, QueueDisc};
use sluice_core::rng::RngStream;
use sluice_core::{Dur, Rate};

/// An example configuration (`--help` prints it; a test parses it).
pub const EXAMPLE: &str = r#"# sluice-gateway example: forward between gw-c and gw-s, 100 Mb/s and 20 ms toward the
# client (data direction), PIE on that queue, RWM rewriting the ACKs that go to the server.
name = "edge"
seed = 1
metrics = "127.0.0.1:9464"        # Prometheus text at /metrics (optional)
log = "/var/log/sluice/edge.jsonl" # JSON lines: rewrites, marks, drops (optional)
user = "nobody"                    # switch to this user after opening the sockets (optional)

[[egress]]                         # frames leaving through gw-c (they arrive on gw-s)
interface = "gw-c"
rate = "100Mbps"                   # optional: absent = no shaping
delay = "20ms"                     # optional: default 0
qdisc = { kind = "pie", limit = "1000pkt", target = "15ms" }  # optional: default drop_tail, 1000 packets

[[egress]]                         # frames leaving through gw-s (they arrive on gw-c)
interface = "gw-s"

[gateway]                          # optional: a network-return controller
controller = { kind = "rwm" }      # the scenarios' [[gateways]].controller table
monitor = "gw-c"                   # the egress queue it reads (default: egress[0])
rewrite_at = "dequeue"             # or "forward"
"#;

/// Where ACK windows are rewritten (the scenarios' `rewrite_at`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RewriteAt {
    /// As a packet leaves an egress queue (the default; EWT's Algorithm 1).
    Dequeue,
    /// As the gateway receives it.
    Forward,
}

/// One direction: frames leaving through `interface`.
#[derive(Clone, Debug, PartialEq)]
pub struct Egress {
    pub interface: String,
    /// `None`: no shaping (frames leave as soon as the queue hands them over).
    pub rate: Option<Rate>,
    pub delay: Dur,
    pub queue: QdiscConfig,
    /// Frame buffers of this direction (queue + delay line + shaper).
    pub buffers: u32,
}

/// The network-return part.
#[derive(Clone, Debug, PartialEq)]
pub struct Control {
    pub controller: ControllerConfig,
    /// Index into `egress` of the monitored queue.
    pub monitor: usize,
    pub rewrite_at: RewriteAt,
    pub flow_table: FlowTableConfig,
}

/// A validated configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub name: String,
    pub seed: u64,
    pub metrics: Option<String>,
    pub log: Option<String>,
    pub user: Option<String>,
    pub ring: RingConfig,
    pub egress: [Egress; 2],
    pub control: Option<Control>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTop {
    name: Option<String>,
    seed: Option<u64>,
    metrics: Option<String>,
    log: Option<String>,
    user: Option<String>,
    ring: Option<RingTable>,
    egress: Vec<EgressTable>,
    gateway: Option<GatewayTable>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RingTable {
    version: Option<u8>,
    block_size: Option<u32>,
    blocks: Option<u32>,
    block_timeout: Option<Dur>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EgressTable {
    interface: String,
    rate: Option<Rate>,
    delay: Option<Dur>,
    qdisc: Option<toml::Value>,
    buffers: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GatewayTable {
    controller: toml::Value,
    monitor: Option<String>,
    rewrite_at: Option<RewriteAt>,
    flow_table: Option<FlowTableConfig>,
}

fn err<T>(path: impl AsRef<str>, msg: impl AsRef<str>) -> Result<T, GatewayError> {
    Err(GatewayError::Config(format!("{}: {}", path.as_ref(), msg.as_ref())))
}

/// Deserialize `v` as `T`, the error naming the field under `path`.
fn de<T: serde::de::DeserializeOwned>(v: toml::Value, path: &str) -> Result<T, GatewayError> {
    let mut track = serde_path_to_error::Track::new();
    T::deserialize(serde_path_to_error::Deserializer::new(v, &mut track)).map_err(|e| {
        let at = track.path().to_string();
        let full = match (path.is_empty(), at.as_str()) {
            (true, ".") => "config".to_owned(),
            (true, _) => at,
            (false, ".") => path.to_owned(),
            (false, _) => format!("{path}.{at}"),
        };
        let mut msg = e.to_string().replace('\n', " ").trim().to_owned();
        if let Some(i) = msg.rfind(" in `") {
            if msg.ends_with('`') {
                msg.truncate(i);
            }
        }
        GatewayError::Config(format!("{full}: {msg}"))
    })
}

/// `{ kind = ..., rest }`: the kind (one of `kinds`) and the rest of the table.
fn kind_of(v: &toml::Value, path: &str, kinds: &[&str]) -> Result<(String, toml::map::Map<String, toml::Value>), GatewayError> {
    sluice_core::tables::kind_of(v, path, kinds).map_err(|e| GatewayError::Config(e.to_string()))
}

/// A queue table, as the simulator reads it: keys left out take the discipline's defaults.
fn queue(v: &toml::Value, path: &str) -> Result<QdiscConfig, GatewayError> {
    sluice_core::tables::qdisc(v, path, Profile::Sluice).map_err(|e| GatewayError::Config(e.to_string()))
}

/// A controller table (`[[gateways]].controller` of a scenario).
fn controller(v: &toml::Value, path: &str) -> Result<ControllerConfig, GatewayError> {
    let mut kinds = ControllerConfig::KINDS.to_vec();
    kinds.push("ngwa");
    let (kind, rest) = kind_of(v, path, &kinds)?;
    let rest = toml::Value::Table(rest);
    let cfg = match kind.as_str() {
        "ewt" => ControllerConfig::Ewt(de::<EwtConfig>(rest, path)?),
        "ewa" => ControllerConfig::Ewa(de::<EwaConfig>(rest, path)?),
        "awm" => ControllerConfig::Awm(de::<AwmConfig>(rest, path)?),
        "sap_law" => ControllerConfig::SapLaw(de::<SapLawConfig>(rest, path)?),
        "pink" => ControllerConfig::Pink(de::<PinkConfig>(rest, path)?),
        "rwm" => ControllerConfig::Rwm(de::<RwmConfig>(rest, path)?),
        _ => {
            let c = de::<NgwaConfig>(rest, path)?;
            if !c.stamp_ack {
                // The paper's receiver half (reading option 33) needs kernel changes.
                return err(format!("{path}.stamp_ack"), "live traffic needs stamp_ack = true (the gateway writes W_node into ACK windows): NGWA's receiver half needs kernel changes");
            }
            ControllerConfig::Ngwa(c)
        }
    };
    cfg.validate().map_err(|e| GatewayError::Config(format!("{path}.{}: {}", e.field, e.message)))?;
    Ok(cfg)
}

impl Config {
    /// Parse and validate a configuration file's text.
    pub fn parse(text: &str) -> Result<Config, GatewayError> {
        let value: toml::Value = toml::from_str(text).map_err(|e| GatewayError::Config(format!("config: {}", e.message().replace('\n', " "))))?;
        let top: FileTop = de(value, "")?;
        if top.egress.len() != 2 {
            return err("egress", format!("expected two [[egress]] tables (one per interface), got {}", top.egress.len()));
        }
        let mut egress = Vec::with_capacity(2);
        for (i, e) in top.egress.into_iter().enumerate() {
            let path = format!("egress[{i}]");
            if e.interface.is_empty() || e.interface.len() >= libc::IFNAMSIZ || e.interface.contains(['/', ' ', '\0']) {
                return err(format!("{path}.interface"), format!("{:?} is not an interface name (1-15 characters, no '/' or spaces)", e.interface));
            }
            if e.rate.is_some_and(|r| r.as_bps() == 0) {
                return err(format!("{path}.rate"), "must be above 0 (leave it out for no shaping)");
            }
            let queue = match &e.qdisc {
                Some(q) => queue(q, &format!("{path}.qdisc"))?,
                None => QdiscConfig::DropTail(DropTailConfig::default()),
            };
            let queue = queue.on_link(e.rate.unwrap_or(Rate(0)));
            let buffers = e.buffers.unwrap_or(8192);
            if !(16..=1 << 20).contains(&buffers) {
                return err(format!("{path}.buffers"), format!("must be between 16 and {}, got {buffers}", 1 << 20));
            }
            egress.push(Egress { interface: e.interface, rate: e.rate, delay: e.delay.unwrap_or(Dur::ZERO), queue, buffers });
        }
        if egress[0].interface == egress[1].interface {
            return err("egress[1].interface", format!("{:?} is egress[0]'s too; the two directions need two interfaces", egress[1].interface));
        }
        let names = || format!("\"{}\" or \"{}\"", egress[0].interface, egress[1].interface);
        let control = match top.gateway {
            None => None,
            Some(g) => {
                let c = controller(&g.controller, "gateway.controller")?;
                let monitor = match &g.monitor {
                    None => 0,
                    Some(m) => match egress.iter().position(|e| &e.interface == m) {
                        Some(i) => i,
                        None => return err("gateway.monitor", format!("no egress through {m:?}; expected {}", names())),
                    },
                };
                if egress[monitor].rate.is_none() {
                    return err(format!("egress[{monitor}].rate"), "the controller's monitored queue needs a rate (its link capacity C)");
                }
                let limit = AnyQdisc::<crate::packet::GwPkt>::new(&egress[monitor].queue, &mut RngStream::from_seed(0)).limit();
                c.validate_for_queue(limit).map_err(|e| GatewayError::Config(format!("gateway.controller.{}: {}", e.field, e.message)))?;
                let flow_table = g.flow_table.unwrap_or_default();
                flow_table.validate().map_err(|e| GatewayError::Config(format!("gateway.flow_table.{}: {}", e.field, e.message)))?;
                Some(Control { controller: c, monitor, rewrite_at: g.rewrite_at.unwrap_or(RewriteAt::Dequeue), flow_table })
            }
        };
        let mut ring = RingConfig::default();
        if let Some(r) = top.ring {
            if let Some(v) = r.version {
                if v != 2 && v != 3 {
                    return err("ring.version", format!("expected 2 or 3 (TPACKET_V2 or TPACKET_V3), got {v}"));
                }
                ring.version = v;
            }
            if let Some(b) = r.block_size {
                if !b.is_power_of_two() || !(1 << 13..=1 << 26).contains(&b) {
                    return err("ring.block_size", format!("must be a power of two between 8192 and {}, got {b}", 1 << 26));
                }
                ring.block_size = b;
            }
            if let Some(n) = r.blocks {
                if !(2..=4096).contains(&n) {
                    return err("ring.blocks", format!("must be between 2 and 4096, got {n}"));
                }
                ring.block_nr = n;
            }
            if let Some(t) = r.block_timeout {
                let ms = t.0 / 1_000_000;
                if t.0 % 1_000_000 != 0 || !(1..=1000).contains(&ms) {
                    return err("ring.block_timeout", format!("must be whole milliseconds between 1ms and 1s, got {t}"));
                }
                ring.block_timeout_ms = ms as u32;
            }
        }
        let name = top.name.unwrap_or_else(|| "gateway".to_owned());
        if let Some(m) = &top.metrics {
            if m.parse::<std::net::SocketAddr>().is_err() {
                return err("metrics", format!("expected an address like \"127.0.0.1:9464\", got {m:?}"));
            }
        }
        let [a, b]: [Egress; 2] = egress.try_into().expect("two egress tables checked above");
        Ok(Config { name, seed: top.seed.unwrap_or(1), metrics: top.metrics, log: top.log, user: top.user, ring, egress: [a, b], control })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(text: &str) -> String {
        Config::parse(text).unwrap_err().to_string()
    }

    const TWO: &str = "[[egress]]\ninterface = \"a0\"\n[[egress]]\ninterface = \"b0\"\n";

    #[test]
    fn example_parses_with_the_scenario_tables() {
        let c = Config::parse(EXAMPLE).unwrap();
        assert_eq!(c.egress[0].interface, "gw-c");
        assert_eq!(c.egress[0].rate, Some(Rate::mbps(100)));
        assert_eq!(c.egress[0].delay, Dur::from_millis(20));
        let QdiscConfig::Pie(p) = &c.egress[0].queue else { panic!("pie expected") };
        assert_eq!(p.target, sluice_core::qdisc::Auto::Value(Dur::from_millis(15)));
        // The other direction: drop-tail, Linux pfifo's 1000 packets.
        assert_eq!(c.egress[1].queue, QdiscConfig::DropTail(DropTailConfig::default()));
        let ctl = c.control.unwrap();
        assert_eq!(ctl.controller.kind(), "rwm");
        assert_eq!(ctl.monitor, 0);
        assert_eq!(ctl.rewrite_at, RewriteAt::Dequeue);
    }

    #[test]
    fn errors_name_the_field() {
        let bad_target = TWO.replacen("interface = \"a0\"", "interface = \"a0\"\nqdisc = { kind = \"pie\", limit = \"100pkt\", target = \"5 ms\" }", 1);
        assert!(msg(&bad_target).starts_with("egress[0].qdisc.target: expected a duration like"), "{}", msg(&bad_target));
        let bad_kind = TWO.replacen("interface = \"a0\"", "interface = \"a0\"\nqdisc = { kind = \"rde\" }", 1);
        assert!(msg(&bad_kind).starts_with("egress[0].qdisc.kind: unknown kind `rde`, expected one of `drop_tail`"), "{}", msg(&bad_kind));
        let unknown = TWO.replacen("interface = \"b0\"", "interface = \"b0\"\nqdisc = { kind = \"codel\", tagret = \"5ms\" }", 1);
        assert!(msg(&unknown).starts_with("egress[1].qdisc.tagret: unknown field for kind \"codel\""), "{}", msg(&unknown));
        let rate = TWO.replacen("interface = \"a0\"", "interface = \"a0\"\nrate = \"fast\"", 1);
        assert!(msg(&rate).starts_with("egress[0].rate: expected a rate like"), "{}", msg(&rate));
        assert!(msg(&format!("bogus = 1\n{TWO}")).starts_with("bogus: unknown field `bogus`, expected one of `name`"));
        assert_eq!(msg("[[egress]]\ninterface = \"a0\"\n"), "egress: expected two [[egress]] tables (one per interface), got 1");
        assert!(msg(&TWO.replace("b0", "a0")).starts_with("egress[1].interface:"));
        // Controllers: the scenarios' tables and their checks.
        let ctl = format!("{TWO}[gateway]\ncontroller = {{ kind = \"rwm\" }}\n");
        assert_eq!(msg(&ctl), "egress[0].rate: the controller's monitored queue needs a rate (its link capacity C)");
        let ctl = format!("{}[gateway]\ncontroller = {{ kind = \"rwm\", delta = \"x\" }}\n", TWO.replacen("\"a0\"", "\"a0\"\nrate = \"10Mbps\"", 1));
        assert!(msg(&ctl).starts_with("gateway.controller.delta:"), "{}", msg(&ctl));
        let ctl = format!("{}[gateway]\ncontroller = {{ kind = \"ewt\" }}\nmonitor = \"c0\"\n", TWO.replacen("\"a0\"", "\"a0\"\nrate = \"10Mbps\"", 1));
        assert_eq!(msg(&ctl), "gateway.monitor: no egress through \"c0\"; expected \"a0\" or \"b0\"");
        let rated = TWO.replacen("\"a0\"", "\"a0\"\nrate = \"10Mbps\"", 1);
        let ngwa = format!("{rated}[gateway]\ncontroller = {{ kind = \"ngwa\", flow_division = true }}\n");
        assert_eq!(msg(&ngwa), "gateway.controller.stamp_ack: live traffic needs stamp_ack = true (the gateway writes W_node into ACK windows): NGWA's receiver half needs kernel changes");
        let ngwa = format!("{rated}[gateway]\ncontroller = {{ kind = \"ngwa\", stamp_ack = true, opt_len = 6 }}\n");
        assert_eq!(msg(&ngwa), "gateway.controller.opt_len: expected 4 or 8, got 6");
        let ngwa = format!("{rated}[gateway]\ncontroller = {{ kind = \"ngwa\", stamp_ack = true, stamp_flor = \"mss\" }}\n");
        assert!(msg(&ngwa).starts_with("gateway.controller.stamp_flor: unknown field"), "{}", msg(&ngwa));
        assert!(msg("metrics = \"localhost\"\n[[egress]]\ninterface = \"a0\"\n[[egress]]\ninterface = \"b0\"\n").starts_with("metrics: expected an address"));
        assert!(msg("[[egress]\n").starts_with("config: "));
        assert_eq!(msg(&format!("[ring]\nversion = 1\n{TWO}")), "ring.version: expected 2 or 3 (TPACKET_V2 or TPACKET_V3), got 1");
    }

    // NGWA runs on live traffic only as the gateway-only variant: accepted with stamp_ack,
    // the scenarios' keys and defaults (flow division off, br = "pkts", floor none).
    #[test]
    fn ngwa_is_accepted_with_stamp_ack() {
        let t = format!("{}[gateway]\ncontroller = {{ kind = \"ngwa\", stamp_ack = true, flow_division = true, stamp_floor = \"mss\" }}\nmonitor = \"a0\"\n", TWO.replacen("\"a0\"", "\"a0\"\nrate = \"10Mbps\"", 1));
        let c = Config::parse(&t).unwrap().control.unwrap();
        assert_eq!(c.controller, ControllerConfig::Ngwa(NgwaConfig { stamp_ack: true, flow_division: true, stamp_floor: sluice_core::control::NgwaStampFloor::Mss, ..NgwaConfig::default() }));
        assert_eq!((c.monitor, c.rewrite_at), (0, RewriteAt::Dequeue));
    }

    #[test]
    fn red_bandwidth_auto_takes_the_egress_rate() {
        let t = TWO.replacen("\"a0\"", "\"a0\"\nrate = \"10Mbps\"\nqdisc = { kind = \"red\", limit = \"100pkt\" }", 1);
        let c = Config::parse(&t).unwrap();
        let QdiscConfig::Red(r) = &c.egress[0].queue else { panic!("red expected") };
        assert_eq!(r.bandwidth, sluice_core::qdisc::Auto::Value(Rate::mbps(10)));
    }
}
