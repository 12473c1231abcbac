//! RWM, Receive Window Modulation (Ciaccia et al., "Improving TCP Performance and Reducing Self-Induced
//! Congestion with Receive Window Modulation": "the RWM paper").
//!
//! At an edge router, each flow's advertised window is capped at its share of the local access
//! capacity times its RTT — its BDP — per traffic class. Algorithm 1 of the paper, run when a
//! flow is registered and (Sluice's addition, the paper's "triggered on a per-event basis")
//! when one is removed:
//!
//! ```text
//! for each class c:  C_c = C · P_c;   n_c = registered flows of class c (skipped ones included)
//!   for each flow f of c, for each endpoint X of f (each with its own shift ws_X):
//!     if ws_X unknown: skip                       (a SYN without WS gives a known shift 0)
//!     BDP_f = (C_c/8) · RTT_f / n_c
//!     cap   = max(floor(BDP_f · (1 + δ) / 2^ws_X),  ceil(MSS / 2^ws_X))
//! on every ACK of f from X:  field ← min(field, cap)            (the writer never raises)
//! ```
//!
//! The caps change only at those events, so RWM keeps `n_c` per class and evaluates a flow's
//! cap when its ACK arrives ([`Rwm`]): the values Algorithm 1 would have stored, at `O(1)` per
//! event instead of `O(n_c)`.
//!
//! * **Registration** is the handshake's end (the initiator's ACK of the SYN-ACK, when the RTT
//!   and both shifts are known) or a mid-stream pickup; `n_c` counts those, not bare SYNs.
//! * **RTT**: the handshake sample (`rtt_source = "handshake"`, the paper's), or the minimum
//!   ongoing sample (`"min"`); a flow without a handshake sample (retransmitted SYN or
//!   SYN-ACK) is skipped but counted until an ongoing sample exists, then uses the minimum.
//!   `bdp_source = "configured_rtt"` uses one configured RTT for every flow.
//! * **Classes** match the responder's port (first match wins); unmatched flows fall in a
//!   default class with the share left over, and are passed through if that is 0. Capacity idle
//!   in one class is not lent to another.
//! * **Directions**: the windows of both endpoints are capped, each with its own shift; `C` is
//!   `capacity` for windows the initiators advertise (data toward them) and `capacity_reverse`
//!   for the responders'. `directions = "data_receiver"` caps only the endpoint that has
//!   received more payload.
//! * **Floor**: one MSS in field units (Sluice's; the paper has none, and `floor(BDP/2^14)` is a
//!   zero window whenever the per-flow BDP is under 16 KiB).
//! * **`no_shrink`**: instead of stepping the right edge back when a cap falls, write
//!   `max(cap, last_right_edge − ack)` so the edge only stays or advances (RFC 9293 discourages
//!   shrinking windows).
//!
//! Reconstructions and their reasons: docs/algorithms/network-return.md, "RWM".

use super::{GatewayView, Proposal, WindowController};
use crate::flows::{FlowEntry, FlowEvent, FlowMap, OngoingRtt, Side};
use crate::packet::window::mss_floor_field;
use crate::packet::{Desired, Floor, HeaderView, WindowRewrite};
use crate::qdisc::ParamError;
use crate::seq::seq_lt;
use crate::time::{Dur, Rate};
use serde::{Deserialize, Serialize};

/// A port or an inclusive range, written `443` or `"8000-8080"`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "PortSpec", into = "PortSpec")]
pub struct PortRange {
    pub lo: u16,
    pub hi: u16,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
enum PortSpec {
    One(u16),
    Range(String),
}

impl TryFrom<PortSpec> for PortRange {
    type Error = String;
    fn try_from(s: PortSpec) -> Result<PortRange, String> {
        match s {
            PortSpec::One(p) => Ok(PortRange { lo: p, hi: p }),
            PortSpec::Range(r) => {
                let bad = || format!("expected a port like 443 or a range like \"8000-8080\", got {r:?}");
                let (a, b) = r.split_once('-').ok_or_else(bad)?;
                let lo: u16 = a.trim().parse().map_err(|_| bad())?;
                let hi: u16 = b.trim().parse().map_err(|_| bad())?;
                if lo > hi {
                    return Err(format!("a port range must not be reversed, got {r:?}"));
                }
                Ok(PortRange { lo, hi })
            }
        }
    }
}

impl From<PortRange> for PortSpec {
    fn from(p: PortRange) -> PortSpec {
        if p.lo == p.hi {
            PortSpec::One(p.lo)
        } else {
            PortSpec::Range(format!("{}-{}", p.lo, p.hi))
        }
    }
}

/// A traffic class: `{ name = "web", ports = [80, 443], share = 0.5 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RwmClass {
    pub name: String,
    /// Responder (SYN destination) ports.
    pub ports: Vec<PortRange>,
    /// `P_c`, the fraction of `C` this class may use.
    pub share: f64,
}

/// Where the RTT of Algorithm 1 comes from.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RwmRttSource {
    /// The three-way handshake (the RWM paper §III).
    #[default]
    Handshake,
    /// The minimum ongoing sample (never the smoothed one, which includes queueing).
    Min,
}

/// Which RTT the BDP uses.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RwmBdpSource {
    /// Each flow's own (per `rtt_source`).
    #[default]
    Handshake,
    /// `configured_rtt` for every flow.
    ConfiguredRtt,
}

/// Whose windows are capped.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RwmDirections {
    /// Both endpoints', each with its own shift.
    #[default]
    Both,
    /// Only the endpoint that has received more payload bytes.
    DataReceiver,
}

/// `{ kind = "rwm", classes = [...], rtt_source = "handshake", bdp_source = "handshake",
/// delta = 0.0, no_shrink = false, directions = "both", mss = 1460 }`, optionally `capacity`,
/// `capacity_reverse`, `configured_rtt`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RwmConfig {
    /// `C` for the windows initiators advertise (the downlink toward them, in the paper's
    /// set-up); the monitored link's rate when absent.
    pub capacity: Option<Rate>,
    /// `C` for the windows responders advertise; `capacity` when absent.
    pub capacity_reverse: Option<Rate>,
    /// Traffic classes; flows matching none share what is left.
    pub classes: Vec<RwmClass>,
    pub rtt_source: RwmRttSource,
    pub bdp_source: RwmBdpSource,
    /// The RTT for `bdp_source = "configured_rtt"`.
    pub configured_rtt: Option<Dur>,
    /// `δ_mode`: the cap is `BDP·(1 + delta)` (the paper's runs: 0, −0.1, +0.1).
    pub delta: f64,
    pub no_shrink: bool,
    pub directions: RwmDirections,
    /// The floor (bytes) when the handshake showed no MSS.
    pub mss: u32,
}

impl Default for RwmConfig {
    /// One class holding every flow (the paper's experiments, §IV), handshake RTT, exact BDP,
    /// immediate step-down, both directions.
    fn default() -> Self {
        RwmConfig {
            capacity: None,
            capacity_reverse: None,
            classes: Vec::new(),
            rtt_source: RwmRttSource::Handshake,
            bdp_source: RwmBdpSource::Handshake,
            configured_rtt: None,
            delta: 0.0,
            no_shrink: false,
            directions: RwmDirections::Both,
            mss: 1460,
        }
    }
}

impl RwmConfig {
    /// Checks the fields; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        for (i, c) in self.classes.iter().enumerate() {
            if !(c.share > 0.0 && c.share <= 1.0) {
                return Err(ParamError::new("classes", format!("classes[{i}] ({}): share must be in (0, 1], got {}", c.name, c.share)));
            }
            if c.ports.is_empty() {
                return Err(ParamError::new("classes", format!("classes[{i}] ({}): ports must list at least one port", c.name)));
            }
        }
        let sum: f64 = self.classes.iter().map(|c| c.share).sum();
        if sum > 1.0 + 1e-9 {
            return Err(ParamError::new("classes", format!("shares sum to {}, at most 1", (sum * 1e6).round() / 1e6)));
        }
        if !(self.delta > -1.0 && self.delta <= 1.0) {
            return Err(ParamError::new("delta", format!("must be in (-1, 1], got {}", self.delta)));
        }
        if self.bdp_source == RwmBdpSource::ConfiguredRtt && self.configured_rtt.is_none_or(|d| d.0 == 0) {
            return Err(ParamError::new("configured_rtt", "required (and above 0) when bdp_source = \"configured_rtt\""));
        }
        if self.capacity == Some(Rate(0)) || self.capacity_reverse == Some(Rate(0)) {
            return Err(ParamError::new(if self.capacity == Some(Rate(0)) { "capacity" } else { "capacity_reverse" }, "must be greater than 0"));
        }
        if self.mss == 0 {
            return Err(ParamError::new("mss", "must be greater than 0"));
        }
        Ok(())
    }

    /// The class of a flow whose responder listens on `port`: the first class listing it, else
    /// the default class (index `classes.len()`).
    pub fn class_of(&self, port: u16) -> usize {
        self.classes.iter().position(|c| c.ports.iter().any(|r| r.lo <= port && port <= r.hi)).unwrap_or(self.classes.len())
    }

    /// `P_c` of class `c` (the default class: what the others leave, never below 0).
    pub fn share_of(&self, c: usize) -> f64 {
        match self.classes.get(c) {
            Some(k) => k.share,
            None => (1.0 - self.classes.iter().map(|k| k.share).sum::<f64>()).max(0.0),
        }
    }
}

/// What RWM keeps per registered flow.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct FlowState {
    /// Each endpoint's last cap and the epoch it was computed in.
    memo: [Memo; 2],
    /// The last right edge (`ack + window`) each endpoint's ACKs carried, for `no_shrink`.
    edges: [Option<u32>; 2],
    class: u32,
}

/// One endpoint's cap (`None`: not controlled) as computed in [`Rwm`]'s epoch `epoch` (0:
/// never).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Memo {
    epoch: u64,
    cap: Option<u16>,
}

fn idx(side: Side) -> usize {
    match side {
        Side::Initiator => 0,
        Side::Responder => 1,
    }
}

/// RWM (module doc).
///
/// Algorithm 1's caps depend only on the class's `n_c` and on the flow's own RTT and shift,
/// which change only at flow events (registration, removal, a new minimum RTT). So instead of
/// storing every flow's cap and rewriting all of a class's caps at each event (`O(n_c)` per
/// registration), RWM keeps `n_c` per class and evaluates a flow's cap when its ACK arrives:
/// the same values at every ACK, `O(1)` per event and per ACK. The value is kept with the
/// epoch it was computed in; every flow event (and a change of the link's rate) starts a new
/// epoch, so a cap is computed again at most once per side and event.
#[derive(Clone, Debug)]
pub struct Rwm {
    cfg: RwmConfig,
    flows: FlowMap<FlowState>,
    /// Registered flows per class (`n_c`); the default class last.
    n_c: Vec<u32>,
    /// `P_c` per class, the default class last.
    shares: Vec<f64>,
    /// Starts at 1; a memo of an older epoch is stale.
    epoch: u64,
    /// The link rate of the current epoch.
    link: Rate,
}

impl Rwm {
    pub fn new(cfg: RwmConfig) -> Rwm {
        let n_c = vec![0; cfg.classes.len() + 1];
        let shares = (0..=cfg.classes.len()).map(|c| cfg.share_of(c)).collect();
        Rwm { cfg, flows: FlowMap::default(), n_c, shares, epoch: 1, link: Rate(0) }
    }

    /// Registered flows of class `c` (`n_c`).
    pub fn class_count(&self, c: usize) -> u32 {
        self.n_c.get(c).copied().unwrap_or(0)
    }

    /// The RTT of Algorithm 1 for `f`.
    fn rtt_of(&self, f: &FlowEntry) -> Option<Dur> {
        match (self.cfg.bdp_source, self.cfg.rtt_source) {
            (RwmBdpSource::ConfiguredRtt, _) => self.cfg.configured_rtt,
            (RwmBdpSource::Handshake, RwmRttSource::Handshake) => f.rtt_handshake.or(f.rtt_min),
            (RwmBdpSource::Handshake, RwmRttSource::Min) => f.rtt_min.or(f.rtt_handshake),
        }
    }

    /// Algorithm 1's cap (field units) on the windows `side` of `flow` advertises, on a link of
    /// `link` (the rate used when `capacity` is not configured); `None` if the flow is not
    /// registered or not controlled (unknown shift, no RTT, a class share of 0).
    pub fn cap(&self, flow: &FlowEntry, side: Side, link: Rate) -> Option<u16> {
        let st = self.flows.get(flow.id)?;
        self.cap_of(st.class as usize, flow, side, link)
    }

    /// Algorithm 1 for one endpoint of a flow of class `class`; `None` when uncontrolled.
    fn cap_of(&self, class: usize, flow: &FlowEntry, side: Side, link: Rate) -> Option<u16> {
        let ws = flow.shift(side)?;
        let rtt = self.rtt_of(flow)?;
        let share = self.shares[class];
        if share <= 0.0 {
            return None;
        }
        let c_fwd = self.cfg.capacity.unwrap_or(link).as_bps();
        let c = if side == Side::Initiator { c_fwd } else { self.cfg.capacity_reverse.map_or(c_fwd, |r| r.as_bps()) };
        let mss = flow.sender_mss().unwrap_or(self.cfg.mss);
        let n_c = self.class_count(class).max(1) as f64;
        // the RWM paper, Alg. 1: BDP_f = (C_c/8)·RTT_f/n_c, then the ±δ knob (§IV).
        // C·RTT in bit·ns: each factor is exact in f64 (below 2^53), so their f64 product is
        // the exact product correctly rounded.
        let bdp = c as f64 * rtt.0 as f64 / 8e9 * share / n_c * (1.0 + self.cfg.delta);
        let field = (bdp / (1u64 << ws) as f64).floor();
        let field = field.max(mss_floor_field(mss, ws) as f64).min(u16::MAX as f64);
        Some(field as u16)
    }

    /// [`Rwm::cap`], computed again only when the epoch changed since the last ACK from this
    /// side.
    fn cap_memo(&mut self, flow: &FlowEntry, side: Side, link: Rate) -> Option<u16> {
        if link != self.link {
            (self.link, self.epoch) = (link, self.epoch + 1);
        }
        let st = self.flows.get(flow.id)?;
        let m = st.memo[idx(side)];
        if m.epoch == self.epoch {
            return m.cap;
        }
        let cap = self.cap_of(st.class as usize, flow, side, link);
        let epoch = self.epoch;
        if let Some(st) = self.flows.get_mut(flow.id) {
            st.memo[idx(side)] = Memo { epoch, cap };
        }
        cap
    }
}

impl WindowController for Rwm {
    fn name(&self) -> &'static str {
        "rwm"
    }
    fn ongoing_rtt(&self) -> OngoingRtt {
        match (self.cfg.bdp_source, self.cfg.rtt_source) {
            (RwmBdpSource::ConfiguredRtt, _) => OngoingRtt::Off,
            (RwmBdpSource::Handshake, RwmRttSource::Handshake) => OngoingRtt::WithoutHandshake,
            (RwmBdpSource::Handshake, RwmRttSource::Min) => OngoingRtt::On,
        }
    }
    fn on_flow_event(&mut self, ev: &FlowEvent, gw: &GatewayView<'_>) {
        // Any event may change a cap: `n_c`, or a flow's minimum RTT.
        self.epoch += 1;
        match *ev {
            FlowEvent::Registered(id) => {
                let Some(entry) = gw.flows.get(id) else { return };
                let class = self.cfg.class_of(entry.responder().port);
                if self.flows.insert(id, FlowState { class: class as u32, ..FlowState::default() }).is_none() {
                    self.n_c[class] += 1;
                }
            }
            FlowEvent::Removed { id, .. } => {
                if let Some(f) = self.flows.remove(id) {
                    self.n_c[f.class as usize] -= 1;
                }
            }
            FlowEvent::MinRttChanged(_) => {} // read at the next ACK
        }
    }
    fn desired_window(&mut self, ack: &impl HeaderView, flow: &FlowEntry, gw: &GatewayView<'_>) -> Option<Proposal> {
        let side = flow.side_of(ack.src_addr(), ack.src_port()?)?;
        let cap = self.cap_memo(flow, side, gw.link)?;
        if self.cfg.directions == RwmDirections::DataReceiver && flow.end(side.other()).payload_bytes <= flow.end(side).payload_bytes {
            return None;
        }
        let mut want = cap as u64;
        if self.cfg.no_shrink {
            let st = self.flows.get(flow.id)?;
            if let (Some(edge), Some(a), Some(ws)) = (st.edges[idx(side)], ack.tcp_ack(), flow.shift(side)) {
                if seq_lt(a, edge) {
                    want = want.max((edge.wrapping_sub(a) >> ws) as u64);
                }
            }
        }
        let mss = flow.sender_mss().unwrap_or(self.cfg.mss);
        Some(Proposal { desired: Desired::Field(want), floor: Floor::Mss(mss) })
    }
    fn reads_rewrites(&self) -> bool {
        self.cfg.no_shrink
    }
    fn on_rewritten(&mut self, ack: &impl HeaderView, flow: &FlowEntry, _outcome: WindowRewrite, _gw: &GatewayView<'_>) {
        if !self.cfg.no_shrink {
            return;
        }
        let Some(st) = self.flows.get_mut(flow.id) else { return };
        let (Some(port), Some(a), Some(field)) = (ack.src_port(), ack.tcp_ack(), ack.tcp_window_field()) else { return };
        let Some(side) = flow.side_of(ack.src_addr(), port) else { return };
        let Some(ws) = flow.shift(side) else { return };
        st.edges[idx(side)] = Some(a.wrapping_add((field as u32) << ws));
    }
}

#[cfg(test)]
mod tests;
