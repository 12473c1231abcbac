//! Network-return controllers: gateway code that lowers the receive window carried by ACKs.
//!
//! A controller *proposes* a window for each ACK ([`WindowController::desired_window`]); the
//! one writer, [`crate::packet::lower_window`], *disposes* (skips SYN/RST, uses the
//! advertiser's shift, floors, never raises, fixes the checksum). A controller never gets
//! more than `&impl HeaderView`, so it cannot write a packet.
//!
//! | module | controller | source |
//! |---|---|---|
//! | [`ewt`] | EWT, Early Window Tailoring | Talau, Fonseca, Wille, JCNC 2019 |
//! | [`ewa`] | EWA, Explicit Window Adaptation | Kalampoukas, Varma, Ramakrishnan 1998/2002, as summarised in the EWT paper |
//! | [`awm`] | AWM, Active Window Management | Barbera et al., ICC 2007, as summarised in the EWT paper |
//! | [`sap_law`] | SAP-LAW | Palazzi et al. 2005–2006, as summarised in the EWT paper |
//! | [`pink`] | PINK | Grazia et al. 2015/2017, as summarised in the EWT paper |
//! | [`rwm`] | RWM, Receive Window Modulation | Ciaccia et al. |
//! | [`ngwa`] ([`NgwaAck`]) | NGWA's gateway-only variant (`stamp_ack = true`): `W_node` of the data-direction queue written into ACK windows | Sluice's own, after Talau & Wille |
//!
//! [`NetworkReturn`] is the hook a datapath calls (the simulator's gateway node, a Linux
//! gateway on live packets): it owns the flow table and one controller and runs the calls in
//! the documented order. Each controller's formula, options, defaults and reconstructions are
//! in docs/algorithms/network-return.md.
//!
//! Two routers that signal in other header bits share no call with [`WindowController`]
//! (NGWA's only with `stamp_ack = false`, the paper's mechanism):
//!
//! | module | router | source |
//! |---|---|---|
//! | [`ngwa`] | NGWA, New General Window Advertising: stamps IPv4 option 33 on every TCP segment leaving any egress queue ([`Ngwa::on_departure`]) | Talau & Wille |
//! | [`acns`] | ACNS, Advanced Congestion Notification System: writes commands into ECN and the IPv4 reserved flag of TCP packets asking for one, entering any egress queue ([`Acns::on_enqueue`]) | Olšovský, ACM Slovakia Bulletin 2014 |
//!
//! Their endpoint halves live with the simulator's TCP. The simulator binds a controller, NGWA
//! or ACNS to a router in `sluice-sim`'s `engine/gateway.rs`.

pub mod acns;
pub mod awm;
pub mod ewa;
pub mod ewt;
pub mod ngwa;
pub mod pink;
pub mod rwm;
pub mod sap_law;

pub use acns::{Acns, AcnsConfig, AcnsOutcome, AcnsStats};
pub use awm::{Awm, AwmConfig};
pub use ewa::{Ewa, EwaConfig, EwaShape};
pub use ewt::{Ewt, EwtConfig};
pub use ngwa::{Ngwa, NgwaAck, NgwaConfig, NgwaStamp, NgwaStampFloor, NgwaStats};
pub use pink::{Pink, PinkConfig};
pub use rwm::{Rwm, RwmConfig};
pub use sap_law::{SapLaw, SapLawConfig};

use crate::flows::{FlowCount, FlowEntry, FlowEvent, FlowId, FlowTable, FlowTableConfig, OngoingRtt};
use crate::packet::{lower_window_shifted, tcp_flags, Desired, Floor, HeaderView, WindowField, WindowRewrite};
use crate::qdisc::{Occupancy, ParamError};
use crate::time::{Dur, Rate, Time};
use crate::units::QueueLimit;
use serde::{Deserialize, Serialize};

/// A reading of the monitored queue (the gateway's data-direction egress, docs: "Where a
/// controller acts").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QueueReading {
    /// Bytes queued now.
    pub bytes: u64,
    /// Packets queued now.
    pub packets: u32,
    /// The queue's limit.
    pub limit: QueueLimit,
}

impl QueueReading {
    /// The queue's capacity `B` in bytes: a byte limit as is, a packet limit times `mtu`.
    pub fn capacity_bytes(&self, mtu: u32) -> u64 {
        limit_bytes(self.limit, mtu)
    }
}

/// A limit or threshold in bytes: packets count `mtu` bytes each.
pub fn limit_bytes(limit: QueueLimit, mtu: u32) -> u64 {
    match limit {
        QueueLimit::Bytes(b) => b,
        QueueLimit::Packets(p) => p as u64 * mtu as u64,
    }
}

/// What a controller may read of the gateway at one call.
#[derive(Copy, Clone, Debug)]
pub struct GatewayView<'a> {
    /// The monitored queue, read at this call.
    pub queue: QueueReading,
    /// The capacity of the monitored link (configured line rate).
    pub link: Rate,
    pub flows: &'a FlowTable,
    pub now: Time,
    /// The number of active TCP connections as the caller knows it (the simulator's exact
    /// count), for `flow_count = "oracle"`; `None` on a real gateway.
    pub oracle_flows: Option<u32>,
}

impl GatewayView<'_> {
    /// The active-flow count `N` under `mode`, at least 1 (every controller divides by it).
    pub fn flow_count(&self, mode: FlowCount) -> u32 {
        self.flows.count(mode, self.now, self.oracle_flows).max(1)
    }
}

/// A change of the monitored queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QueueEvent {
    pub kind: QueueEventKind,
    /// Size of the packet that arrived or left (bytes).
    pub len_bytes: u32,
    /// Occupancy before and after.
    pub before: Occupancy,
    pub after: Occupancy,
}

/// What happened at the monitored queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QueueEventKind {
    /// A packet was queued.
    Enqueue,
    /// A packet left (to the link, or dropped from the queue).
    Dequeue,
}

/// A controller's proposal for one ACK.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Proposal {
    pub desired: Desired,
    pub floor: Floor,
}

/// The network-return controller seam.
///
/// Call order for one packet (what [`NetworkReturn`] does): the flow table observes it, flow
/// events are delivered ([`WindowController::on_flow_event`]), then, if it leaves by the
/// monitored egress, [`WindowController::on_monitored_egress`]; a monitored-queue change is reported with
/// [`WindowController::on_queue`]; at the rewrite point of a TCP ACK,
/// [`WindowController::desired_window`], [`lower_window`](crate::packet::lower_window), then
/// [`WindowController::on_rewritten`].
pub trait WindowController {
    fn name(&self) -> &'static str;
    /// A TCP segment the gateway forwards leaves through the monitored egress (after the flow
    /// table saw it; `flow` is its entry if recorded): NGWA's gateway-only variant counts its
    /// connections there. Default: nothing.
    fn on_monitored_egress(&mut self, seg: &impl HeaderView, flow: Option<&FlowEntry>) {
        let _ = (seg, flow);
    }
    /// Whether [`WindowController::on_monitored_egress`] does anything: [`NetworkReturn`]
    /// skips the call (and the flow's look-up) for a controller that does not count there.
    fn reads_monitored_egress(&self) -> bool {
        false
    }
    /// The monitored queue changed (AWM, EWA). `gw.queue` already shows `ev.after`.
    fn on_queue(&mut self, ev: &QueueEvent, gw: &GatewayView<'_>) {
        let _ = (ev, gw);
    }
    /// Whether [`WindowController::on_queue`] does anything: a datapath may skip queue events
    /// for a controller that does not read them ([`NetworkReturn::queue_event_matters`]).
    fn reads_queue(&self) -> bool {
        false
    }
    /// Which flows' ongoing RTT (`rtt_smoothed`, `rtt_min`, [`FlowEvent::MinRttChanged`]) the
    /// controller reads: the flow table keeps that estimate only for them. Default: every
    /// flow's; a controller that reads fewer says so.
    fn ongoing_rtt(&self) -> OngoingRtt {
        OngoingRtt::On
    }
    /// A flow was registered or removed (RWM). `gw.flows` already shows the change.
    fn on_flow_event(&mut self, ev: &FlowEvent, gw: &GatewayView<'_>) {
        let _ = (ev, gw);
    }
    /// At the rewrite point: the window this ACK of `flow` should carry, or `None` to leave
    /// it. Only asked for TCP segments with ACK and without SYN or RST.
    fn desired_window(&mut self, ack: &impl HeaderView, flow: &FlowEntry, gw: &GatewayView<'_>) -> Option<Proposal>;
    /// After [`lower_window`](crate::packet::lower_window) ran on `ack` (which now carries the resulting field). Default:
    /// nothing.
    fn on_rewritten(&mut self, ack: &impl HeaderView, flow: &FlowEntry, outcome: WindowRewrite, gw: &GatewayView<'_>) {
        let _ = (ack, flow, outcome, gw);
    }
    /// Whether [`WindowController::on_rewritten`] does anything: [`NetworkReturn`] skips the
    /// call otherwise.
    fn reads_rewrites(&self) -> bool {
        false
    }
}

/// The controllers and their parameters: `{ kind = "ewt", start = "30000B", ... }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ControllerConfig {
    Ewt(EwtConfig),
    Ewa(EwaConfig),
    Awm(AwmConfig),
    SapLaw(SapLawConfig),
    Pink(PinkConfig),
    Rwm(RwmConfig),
    /// NGWA's gateway-only variant: only with `stamp_ack = true` ([`NgwaAck`]).
    Ngwa(NgwaConfig),
}

impl ControllerConfig {
    /// Every `kind` whose defaults make a window controller. `"ngwa"` is one too, but only with
    /// `stamp_ack = true` (its default is the paper's option-33 router, [`Ngwa`]).
    pub const KINDS: &'static [&'static str] = &["ewt", "ewa", "awm", "sap_law", "pink", "rwm"];

    pub fn kind(&self) -> &'static str {
        match self {
            ControllerConfig::Ewt(_) => "ewt",
            ControllerConfig::Ewa(_) => "ewa",
            ControllerConfig::Awm(_) => "awm",
            ControllerConfig::SapLaw(_) => "sap_law",
            ControllerConfig::Pink(_) => "pink",
            ControllerConfig::Rwm(_) => "rwm",
            ControllerConfig::Ngwa(_) => "ngwa",
        }
    }
    /// Checks across fields; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            ControllerConfig::Ewt(c) => c.validate(),
            ControllerConfig::Ewa(c) => c.validate(),
            ControllerConfig::Awm(c) => c.validate(),
            ControllerConfig::SapLaw(c) => c.validate(),
            ControllerConfig::Pink(c) => c.validate(),
            ControllerConfig::Rwm(c) => c.validate(),
            ControllerConfig::Ngwa(c) => {
                c.validate()?;
                if !c.stamp_ack {
                    return Err(ParamError::new("stamp_ack", "NGWA writes ACK windows only with stamp_ack = true (the gateway-only variant); without it NGWA is the option-33 router"));
                }
                Ok(())
            }
        }
    }
    /// Checks that need the monitored queue's limit (thresholds below it).
    pub fn validate_for_queue(&self, limit: QueueLimit) -> Result<(), ParamError> {
        match self {
            ControllerConfig::Ewt(c) => c.validate_for_queue(limit),
            ControllerConfig::Ewa(c) => c.validate_for_queue(limit),
            ControllerConfig::Awm(c) => c.validate_for_queue(limit),
            _ => Ok(()),
        }
    }
}

/// The closed set of controllers (dispatch without `dyn`).
#[derive(Clone, Debug)]
pub enum AnyController {
    Ewt(Ewt),
    Ewa(Ewa),
    Awm(Awm),
    SapLaw(SapLaw),
    Pink(Pink),
    Rwm(Rwm),
    Ngwa(NgwaAck),
}

impl AnyController {
    /// Build from a validated config.
    pub fn new(cfg: &ControllerConfig) -> AnyController {
        match cfg {
            ControllerConfig::Ewt(c) => AnyController::Ewt(Ewt::new(c.clone())),
            ControllerConfig::Ewa(c) => AnyController::Ewa(Ewa::new(c.clone())),
            ControllerConfig::Awm(c) => AnyController::Awm(Awm::new(c.clone())),
            ControllerConfig::SapLaw(c) => AnyController::SapLaw(SapLaw::new(c.clone())),
            ControllerConfig::Pink(c) => AnyController::Pink(Pink::new(c.clone())),
            ControllerConfig::Rwm(c) => AnyController::Rwm(Rwm::new(c.clone())),
            ControllerConfig::Ngwa(c) => AnyController::Ngwa(NgwaAck::new(c.clone())),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyController::Ewt($c) => $e,
            AnyController::Ewa($c) => $e,
            AnyController::Awm($c) => $e,
            AnyController::SapLaw($c) => $e,
            AnyController::Pink($c) => $e,
            AnyController::Rwm($c) => $e,
            AnyController::Ngwa($c) => $e,
        }
    };
}

impl WindowController for AnyController {
    fn name(&self) -> &'static str {
        dispatch!(self, c => c.name())
    }
    fn on_monitored_egress(&mut self, seg: &impl HeaderView, flow: Option<&FlowEntry>) {
        dispatch!(self, c => c.on_monitored_egress(seg, flow))
    }
    fn reads_monitored_egress(&self) -> bool {
        dispatch!(self, c => c.reads_monitored_egress())
    }
    fn on_queue(&mut self, ev: &QueueEvent, gw: &GatewayView<'_>) {
        dispatch!(self, c => c.on_queue(ev, gw))
    }
    fn reads_queue(&self) -> bool {
        dispatch!(self, c => c.reads_queue())
    }
    fn ongoing_rtt(&self) -> OngoingRtt {
        dispatch!(self, c => c.ongoing_rtt())
    }
    fn on_flow_event(&mut self, ev: &FlowEvent, gw: &GatewayView<'_>) {
        dispatch!(self, c => c.on_flow_event(ev, gw))
    }
    fn desired_window(&mut self, ack: &impl HeaderView, flow: &FlowEntry, gw: &GatewayView<'_>) -> Option<Proposal> {
        dispatch!(self, c => c.desired_window(ack, flow, gw))
    }
    fn on_rewritten(&mut self, ack: &impl HeaderView, flow: &FlowEntry, outcome: WindowRewrite, gw: &GatewayView<'_>) {
        dispatch!(self, c => c.on_rewritten(ack, flow, outcome, gw))
    }
    fn reads_rewrites(&self) -> bool {
        dispatch!(self, c => c.reads_rewrites())
    }
}

/// A TCP segment with ACK and without SYN or RST: what a controller is asked about.
pub fn is_rewritable_ack(seg: &impl HeaderView) -> bool {
    seg.is_tcp() && seg.tcp_flags().is_some_and(|f| f & tcp_flags::ACK != 0 && f & (tcp_flags::SYN | tcp_flags::RST) == 0)
}

/// What the datapath reads for a call: the monitored queue now, the link's rate, and the
/// caller's flow count for `flow_count = "oracle"`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Readings {
    pub queue: QueueReading,
    pub link: Rate,
    pub oracle_flows: Option<u32>,
}

/// Counters of one controller's rewrites.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RewriteStats {
    /// TCP ACKs seen at the rewrite point.
    pub acks: u64,
    pub lowered: u64,
    pub raised: u64,
    /// Left as they were: the controller proposed nothing (EWT at or below its start point),
    /// or nothing below the receiver's window.
    pub unchanged: u64,
    /// Skipped by the writer (unknown scale, ...).
    pub skipped: u64,
    /// ACKs of flows the table does not hold (full of active flows).
    pub untracked: u64,
    /// Window reductions summed over the lowered ACKs, in bytes: each field's drop scaled by
    /// its advertiser's shift (0 while unknown). Over `lowered`: the mean reduction.
    pub reduced_bytes: u128,
}

/// The network-return hook of one gateway: a flow table and one controller, called by the
/// datapath (the simulator's gateway node, or a Linux gateway on live packets).
///
/// * [`NetworkReturn::on_forward`] for every packet the gateway forwards (both directions);
/// * [`NetworkReturn::on_queue`] for every enqueue and dequeue at the monitored queue;
/// * [`NetworkReturn::at_rewrite_point`] for every packet at the rewrite point (by default
///   when it leaves the gateway on the reverse path).
#[derive(Clone, Debug)]
pub struct NetworkReturn {
    pub flows: FlowTable,
    pub controller: AnyController,
    pub stats: RewriteStats,
    events: Vec<FlowEvent>,
    /// `controller.reads_queue()`, `reads_monitored_egress()`, `reads_rewrites()`, read once.
    reads_queue: bool,
    reads_egress: bool,
    reads_rewrites: bool,
}

impl NetworkReturn {
    /// Both configs validated by the caller.
    pub fn new(flows: FlowTableConfig, controller: &ControllerConfig) -> NetworkReturn {
        let controller = AnyController::new(controller);
        let mut flows = FlowTable::new(flows);
        flows.set_ongoing_rtt(controller.ongoing_rtt());
        let (reads_queue, reads_egress, reads_rewrites) = (controller.reads_queue(), controller.reads_monitored_egress(), controller.reads_rewrites());
        NetworkReturn { flows, controller, stats: RewriteStats::default(), events: Vec::new(), reads_queue, reads_egress, reads_rewrites }
    }

    #[inline]
    fn deliver_events(&mut self, r: &Readings, now: Time) {
        if self.flows.has_events() {
            self.deliver_events_now(r, now);
        }
    }

    #[inline(never)]
    fn deliver_events_now(&mut self, r: &Readings, now: Time) {
        self.flows.take_events(&mut self.events);
        let gw = GatewayView { queue: r.queue, link: r.link, flows: &self.flows, now, oracle_flows: r.oracle_flows };
        for ev in self.events.drain(..) {
            self.controller.on_flow_event(&ev, &gw);
        }
    }

    /// A packet the gateway forwards at `now`. `monitored`: it leaves through the monitored
    /// egress (UDP is then counted in the UDP rate, TCP shown to
    /// [`WindowController::on_monitored_egress`]). Returns its flow's id (TCP and recorded),
    /// for [`NetworkReturn::at_rewrite_point_seen`].
    pub fn on_forward(&mut self, seg: &impl HeaderView, monitored: bool, r: &Readings, now: Time) -> Option<FlowId> {
        self.on_forward_hinted(seg, None, monitored, r, now)
    }

    /// [`NetworkReturn::on_forward`] with a hint of the segment's flow
    /// ([`FlowTable::observe_hinted`]; same outcome).
    #[inline]
    pub fn on_forward_hinted(&mut self, seg: &impl HeaderView, hint: Option<FlowId>, monitored: bool, r: &Readings, now: Time) -> Option<FlowId> {
        if monitored && seg.protocol() == crate::packet::proto::UDP {
            self.flows.count_udp(seg.ip_len(), now);
        }
        let id = self.flows.observe_hinted(seg, now, hint);
        self.deliver_events(r, now);
        if monitored && self.reads_egress && seg.is_tcp() {
            let flow = id.and_then(|id| self.flows.get(id));
            self.controller.on_monitored_egress(seg, flow);
        }
        id
    }

    /// Whether [`NetworkReturn::on_queue`] at `now` would do anything: the controller reads
    /// queue events, or a flow's time may be up, or flow events wait. When it would not, a
    /// datapath may skip the call (and the readings it needs) with the same outcome.
    #[inline]
    pub fn queue_event_matters(&self, now: Time) -> bool {
        self.reads_queue || self.flows.expiry_due(now) || self.flows.has_events()
    }

    /// The monitored queue changed at `now`; `r.queue` shows the state after `ev`.
    pub fn on_queue(&mut self, ev: &QueueEvent, r: &Readings, now: Time) {
        self.flows.expire(now);
        self.deliver_events(r, now);
        let gw = GatewayView { queue: r.queue, link: r.link, flows: &self.flows, now, oracle_flows: r.oracle_flows };
        self.controller.on_queue(ev, &gw);
    }

    /// `seg` is at the rewrite point at `now`: ask the controller and apply its proposal
    /// through [`lower_window`](crate::packet::lower_window).
    pub fn at_rewrite_point(&mut self, seg: &mut impl WindowField, r: &Readings, now: Time) -> WindowRewrite {
        self.at_rewrite_point_seen(seg, None, r, now)
    }

    /// [`NetworkReturn::at_rewrite_point`] for a segment whose [`NetworkReturn::on_forward`]
    /// returned `seen`: the flow is found without a second hash lookup (same outcome).
    pub fn at_rewrite_point_seen(&mut self, seg: &mut impl WindowField, seen: Option<FlowId>, r: &Readings, now: Time) -> WindowRewrite {
        if !is_rewritable_ack(seg) {
            // lower_window's own verdict (not TCP, no ACK, SYN, RST), nothing written.
            return classify_unwritable(seg);
        }
        self.flows.expire(now);
        self.deliver_events(r, now);
        self.stats.acks += 1;
        let gw = GatewayView { queue: r.queue, link: r.link, flows: &self.flows, now, oracle_flows: r.oracle_flows };
        let Some(flow) = self.flows.lookup_segment_seen(seg, seen) else {
            self.stats.untracked += 1;
            return WindowRewrite::Unchanged;
        };
        let (outcome, shift) = match self.controller.desired_window(seg, flow, &gw) {
            Some(p) => lower_window_shifted(seg, p.desired, flow, p.floor),
            None => (WindowRewrite::Unchanged, 0),
        };
        match outcome {
            WindowRewrite::Lowered { from_field, to_field } => {
                self.stats.lowered += 1;
                // A field's drop (< 2^16) scaled by a shift of at most 14 fits 64 bits.
                self.stats.reduced_bytes += (((from_field - to_field) as u64) << shift) as u128;
            }
            WindowRewrite::Raised { .. } => self.stats.raised += 1,
            WindowRewrite::Unchanged => self.stats.unchanged += 1,
            _ => self.stats.skipped += 1,
        }
        if self.reads_rewrites {
            self.controller.on_rewritten(seg, flow, outcome, &gw);
        }
        outcome
    }
}

fn classify_unwritable(seg: &impl HeaderView) -> WindowRewrite {
    use crate::packet::SkipReason;
    match seg.tcp_flags() {
        Some(f) if seg.is_tcp() && f & tcp_flags::SYN != 0 => WindowRewrite::Skipped(SkipReason::Syn),
        Some(f) if seg.is_tcp() && f & tcp_flags::RST != 0 => WindowRewrite::Skipped(SkipReason::Rst),
        _ => WindowRewrite::NotTcpAck,
    }
}

/// A level of the monitored queue: a fraction of its capacity `B` (`"30%"`) or a size
/// (`"30000B"`, `"20pkt"`; packets count one MTU each).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Level {
    Fraction(f64),
    Absolute(QueueLimit),
}

impl Level {
    /// In bytes, for a queue of `capacity` bytes.
    pub fn bytes(&self, capacity: u64, mtu: u32) -> u64 {
        match *self {
            Level::Fraction(f) => (f * capacity as f64).round() as u64,
            Level::Absolute(l) => limit_bytes(l, mtu),
        }
    }
    /// Checks a level against the queue limit: below it (`field: must be below the queue
    /// limit (900pkt)`); a fraction in `[0, 1)`.
    pub fn check(&self, field: &'static str, limit: Option<QueueLimit>, mtu: u32) -> Result<(), ParamError> {
        match (*self, limit) {
            (Level::Fraction(f), _) if !(0.0..1.0).contains(&f) => Err(ParamError::new(field, format!("must be a fraction of the queue limit in [0%, 100%), got {self}"))),
            (Level::Absolute(a), Some(l)) if limit_bytes(a, mtu) >= limit_bytes(l, mtu) => Err(ParamError::new(field, format!("must be below the queue limit ({l})"))),
            _ => Ok(()),
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Level::Fraction(x) => write!(f, "{}%", x * 100.0),
            Level::Absolute(l) => write!(f, "{l}"),
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Level, String> {
        if let Some(p) = s.trim().strip_suffix('%') {
            let v: f64 = p.parse().map_err(|_| format!("expected a level like \"30%\", \"30000B\" or \"20pkt\", got {s:?}"))?;
            if !v.is_finite() || v < 0.0 {
                return Err(format!("a level must be a non-negative percentage, got {s:?}"));
            }
            return Ok(Level::Fraction(v / 100.0));
        }
        crate::units::parse_queue_limit(s).map(Level::Absolute).map_err(|_| format!("expected a level like \"30%\", \"30000B\" or \"20pkt\", got {s:?}"))
    }
}

impl Serialize for Level {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Level {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Level, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Which RTT a per-flow controller uses.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttChoice {
    /// The smoothed ongoing estimate, else the handshake sample.
    #[default]
    Smoothed,
    /// The minimum ongoing sample, else the handshake sample.
    Min,
}

impl RttChoice {
    /// The flow's RTT under this choice, if any is known.
    pub fn of(self, flow: &FlowEntry) -> Option<Dur> {
        match self {
            RttChoice::Smoothed => flow.rtt_smoothed.or(flow.rtt_handshake),
            RttChoice::Min => flow.rtt_min.or(flow.rtt_handshake),
        }
    }
}

/// `rate · rtt / 8 / n` in bytes (rounded down), exact in integers.
pub fn share_bdp_bytes(rate_bps: u64, rtt: Dur, n: u32) -> u64 {
    let num = rate_bps as u128 * rtt.0 as u128;
    let den = 8u128 * 1_000_000_000 * n.max(1) as u128;
    (num / den).min(u64::MAX as u128) as u64
}

/// The floor MSS for a flow: what its handshake showed, else the configured value.
pub fn flow_mss(flow: &FlowEntry, configured: u32) -> u32 {
    flow.sender_mss().unwrap_or(configured)
}

#[cfg(test)]
pub(crate) mod testutil;

#[cfg(test)]
mod tests {
    use super::*;

    // The tagged config: every kind parses with its defaults; unknown kinds and keys are
    // refused with serde's one-line message naming the allowed values or the key.
    #[test]
    fn controller_config_is_tagged_by_kind() {
        for kind in ControllerConfig::KINDS {
            let c: ControllerConfig = serde_json::from_str(&format!(r#"{{"kind": "{kind}"}}"#)).unwrap();
            assert_eq!(c.kind(), *kind);
            assert!(c.validate().is_ok(), "{kind}");
            assert!(c.validate_for_queue(QueueLimit::Packets(100)).is_ok(), "{kind}");
        }
        let c: ControllerConfig = serde_json::from_str(r#"{"kind": "ewt", "start": "20pkt", "literal_floor": true}"#).unwrap();
        assert_eq!(c, ControllerConfig::Ewt(EwtConfig { start: Level::Absolute(QueueLimit::Packets(20)), literal_floor: true, ..EwtConfig::default() }));
        let e = serde_json::from_str::<ControllerConfig>(r#"{"kind": "ewx"}"#).unwrap_err().to_string();
        assert!(e.contains("unknown variant `ewx`") && e.contains("sap_law"), "{e}");
        let e = serde_json::from_str::<ControllerConfig>(r#"{"kind": "ewt", "strat": "30%"}"#).unwrap_err().to_string();
        assert!(e.contains("unknown field `strat`"), "{e}");
        let e = serde_json::from_str::<ControllerConfig>(r#"{"kind": "ewt", "start": "thirty"}"#).unwrap_err().to_string();
        assert!(e.contains("expected a level like"), "{e}");
    }

    // A controller that says it does not read queue events (so a datapath may skip them) is
    // left exactly as it was by one, after a handshake, at an empty, a half-full and a full
    // queue; AWM and EWA read them.
    #[test]
    fn only_controllers_that_read_queue_events_change_on_them() {
        use crate::qdisc::Occupancy;
        use testutil::{handshake, ms, CLIENT};
        let mut flows = FlowTable::new(crate::flows::FlowTableConfig::default());
        handshake(&mut flows, CLIENT, Some(7), Some(7), ms(0));
        let mut reading = Vec::new();
        for kind in ControllerConfig::KINDS {
            let cfg: ControllerConfig = serde_json::from_str(&format!(r#"{{"kind": "{kind}"}}"#)).unwrap();
            let mut c = AnyController::new(&cfg);
            let before = format!("{c:?}");
            for (k, pkts) in [0u32, 50, 100].into_iter().enumerate() {
                let occ = |p: u32| Occupancy { packets: p, bytes: p as u64 * 1500 };
                let queue = QueueReading { bytes: pkts as u64 * 1500, packets: pkts, limit: QueueLimit::Packets(100) };
                let gw = GatewayView { queue, link: Rate::mbps(10), flows: &flows, now: ms(100 * (k as u64 + 1)), oracle_flows: Some(1) };
                let ev = QueueEvent { kind: QueueEventKind::Enqueue, len_bytes: 1500, before: occ(pkts.saturating_sub(1)), after: occ(pkts) };
                c.on_queue(&ev, &gw);
            }
            if c.reads_queue() {
                reading.push(*kind);
                assert_ne!(format!("{c:?}"), before, "{kind} reads queue events and they move it");
            } else {
                assert_eq!(format!("{c:?}"), before, "{kind} says it ignores queue events");
            }
        }
        assert_eq!(reading, ["ewa", "awm"]);
    }

    // tests `ongoing_rtt`: every controller proposes the same window whatever a flow's ongoing
    // RTT, for the flows it says it does not read it of; and it does read it for the others.
    // Flows with and without a handshake RTT (60 ms), whose smoothed and minimum RTT go from none
    // to 20 ms to 200 ms.
    #[test]
    fn only_controllers_that_read_the_ongoing_rtt_change_with_it() {
        use testutil::{one_flow, Seg};
        let (flows, id) = one_flow(Some(7), Some(7));
        let queue = QueueReading { bytes: 90 * 1500, packets: 90, limit: QueueLimit::Packets(100) };
        let ack = Seg::ack_from_client(1000);
        let mut modes = Vec::new();
        for kind in ControllerConfig::KINDS {
            let cfg: ControllerConfig = serde_json::from_str(&format!(r#"{{"kind": "{kind}"}}"#)).unwrap();
            let mode = AnyController::new(&cfg).ongoing_rtt();
            for handshake in [None, Some(Dur::from_millis(60))] {
                let mut proposals = Vec::new();
                for rtt in [None, Some(Dur::from_millis(20)), Some(Dur::from_millis(200))] {
                    let mut e = flows.get(id).unwrap().clone();
                    (e.rtt_handshake, e.rtt_smoothed, e.rtt_min) = (handshake, rtt, rtt);
                    let mut c = AnyController::new(&cfg);
                    let gw = GatewayView { queue, link: Rate::mbps(10), flows: &flows, now: Time(1_000_000_000), oracle_flows: Some(1) };
                    c.on_flow_event(&FlowEvent::Registered(id), &gw);
                    proposals.push(c.desired_window(&ack, &e, &gw));
                }
                let same = proposals.iter().all(|p| *p == proposals[0]);
                let read = mode == OngoingRtt::On || (mode == OngoingRtt::WithoutHandshake && handshake.is_none());
                if read {
                    assert!(!same, "{kind} reads the ongoing RTT (handshake {handshake:?}) and it moves the window: {proposals:?}");
                } else {
                    assert!(same, "{kind} says it reads no ongoing RTT (handshake {handshake:?}): {proposals:?}");
                    assert!(proposals[0].is_some(), "{kind} proposes nothing here: the test shows nothing");
                }
            }
            modes.push((*kind, mode));
        }
        use OngoingRtt::*;
        assert_eq!(modes, [("ewt", Off), ("ewa", Off), ("awm", Off), ("sap_law", On), ("pink", On), ("rwm", WithoutHandshake)]);
    }

    // tests the flow table's switch: a flow whose handshake was seen keeps its handshake RTT and,
    // only with every flow's estimate on (the default), a smoothed and minimum RTT from its data
    // and ACKs; a flow picked up mid-stream gets them unless the estimate is off.
    #[test]
    fn the_ongoing_rtt_is_kept_only_when_asked() {
        use testutil::{handshake_rtt, ms, Seg, CLIENT, SERVER};
        for mode in [OngoingRtt::On, OngoingRtt::WithoutHandshake, OngoingRtt::Off] {
            let mut flows = FlowTable::new(crate::flows::FlowTableConfig::default());
            flows.set_ongoing_rtt(mode);
            let id = handshake_rtt(&mut flows, CLIENT, Some(7), Some(7), ms(0), Dur::from_millis(30));
            let picked = (CLIENT.0, CLIENT.1 + 1);
            for (client, t0) in [(CLIENT, 100), (picked, 200)] {
                // The server's data (its SYN-ACK took 900), the client's ACK of it 40 ms later,
                // more data 10 ms after that: a 50 ms sample.
                let data = Seg { seq: 901, ack: 101, payload: 1000, ..Seg::tcp(SERVER, client, tcp_flags::ACK) };
                flows.observe(&data, ms(t0));
                flows.observe(&Seg { seq: 101, ack: 1901, ..Seg::tcp(client, SERVER, tcp_flags::ACK) }, ms(t0 + 40));
                flows.observe(&Seg { seq: 1901, ..data.clone() }, ms(t0 + 50));
            }
            let e = flows.get(id).unwrap();
            assert_eq!(e.rtt_handshake, Some(Dur::from_millis(30)));
            let on = mode == OngoingRtt::On;
            assert_eq!((e.rtt_min.is_some(), e.rtt_smoothed.is_some()), (on, on), "{mode:?}: {e:?}");
            let p = flows.lookup_segment(&Seg::tcp(picked, SERVER, tcp_flags::ACK)).unwrap();
            assert_eq!(p.rtt_handshake, None);
            let want = (mode != OngoingRtt::Off).then_some(Dur::from_millis(50));
            assert_eq!((p.rtt_min, p.rtt_smoothed), (want, want), "{mode:?}: picked up mid-stream");
        }
    }

    // Levels: a fraction of B or a size; B of a packet limit counts the MTU.
    #[test]
    fn levels_resolve_against_the_capacity() {
        assert_eq!("30%".parse::<Level>().unwrap().bytes(100_000, 1500), 30_000);
        assert_eq!("20pkt".parse::<Level>().unwrap().bytes(100_000, 1500), 30_000);
        assert_eq!("30000B".parse::<Level>().unwrap().bytes(0, 1500), 30_000);
        assert_eq!(QueueReading { bytes: 0, packets: 0, limit: QueueLimit::Packets(100) }.capacity_bytes(1500), 150_000);
        assert!("-5%".parse::<Level>().is_err());
        assert_eq!("0%".parse::<Level>(), Ok(Level::Fraction(0.0)), "zero is a level");
        for l in ["30%", "12.5%", "20pkt", "30000B"] {
            assert_eq!(l.parse::<Level>().unwrap().to_string(), l, "a level prints as written");
        }
    }

    /// Every controller kind, NGWA's gateway-only variant included, with its defaults.
    fn every_kind() -> Vec<(String, ControllerConfig)> {
        let mut v: Vec<_> = ControllerConfig::KINDS.iter().map(|k| (k.to_string(), serde_json::from_str(&format!(r#"{{"kind": "{k}"}}"#)).unwrap())).collect();
        v.push(("ngwa".to_string(), serde_json::from_str(r#"{"kind": "ngwa", "stamp_ack": true}"#).unwrap()));
        v.push(("rwm".to_string(), serde_json::from_str(r#"{"kind": "rwm", "no_shrink": true}"#).unwrap()));
        v
    }

    // tests the flags a datapath skips calls by: a controller that says it reads the monitored
    // egress (NGWA's gateway-only variant counts connections there) or its rewrites (RWM) is
    // moved by them (RWM only with `no_shrink`, which remembers what it wrote), and every other
    // is left exactly as it was; and each reports its kind.
    #[test]
    fn only_controllers_that_read_egress_or_rewrites_change_on_them() {
        use testutil::{one_flow, Seg, CLIENT, SERVER};
        let (flows, id) = one_flow(Some(7), Some(7));
        let queue = QueueReading { bytes: 90 * 1500, packets: 90, limit: QueueLimit::Packets(100) };
        let gw = GatewayView { queue, link: Rate::mbps(10), flows: &flows, now: Time(1_000_000_000), oracle_flows: Some(1) };
        let (mut egress, mut rewrites) = (Vec::new(), Vec::new());
        for (kind, cfg) in every_kind() {
            let mut c = AnyController::new(&cfg);
            assert_eq!(c.name(), kind);
            c.on_flow_event(&FlowEvent::Registered(id), &gw);
            let before = format!("{c:?}");
            let data = Seg { payload: 1448, ..Seg::tcp(SERVER, CLIENT, tcp_flags::ACK) };
            c.on_monitored_egress(&data, flows.get(id));
            let after_egress = format!("{c:?}");
            let ack = Seg::ack_from_client(100);
            c.on_rewritten(&ack, flows.get(id).unwrap(), WindowRewrite::Lowered { from_field: 1000, to_field: 100 }, &gw);
            let after_rewrite = format!("{c:?}");
            if c.reads_monitored_egress() {
                egress.push(kind.clone());
                assert_ne!(after_egress, before, "{kind} reads the monitored egress and it moves it");
            } else {
                assert_eq!(after_egress, before, "{kind} says it ignores the monitored egress");
            }
            if c.reads_rewrites() {
                rewrites.push(kind.clone());
                assert_ne!(after_rewrite, after_egress, "{kind} reads its rewrites and they move it");
            } else {
                assert_eq!(after_rewrite, after_egress, "{kind} says it ignores its rewrites");
            }
        }
        assert_eq!((egress, rewrites), (vec!["ngwa".to_string()], vec!["rwm".to_string()]));
    }

    // tests which segments a controller is asked about: TCP with ACK and without SYN or RST.
    #[test]
    fn a_rewritable_ack_has_ack_and_neither_syn_nor_rst() {
        use testutil::{Seg, CLIENT, SERVER};
        use tcp_flags::{ACK, FIN, PSH, RST, SYN};
        for (flags, want) in [(ACK, true), (ACK | PSH, true), (ACK | FIN, true), (SYN | ACK, false), (RST | ACK, false), (SYN, false), (RST, false), (0, false), (FIN, false)] {
            assert_eq!(is_rewritable_ack(&Seg::tcp(CLIENT, SERVER, flags)), want, "flags {flags:#04x}");
        }
        let udp = Seg { proto: crate::packet::proto::UDP, ..Seg::tcp(CLIENT, SERVER, ACK) };
        assert!(!is_rewritable_ack(&udp));
    }

    // tests the thresholds checked against the monitored queue's limit (100 packets): EWT's
    // start, EWA's low and high, AWM's q_ref must lie below it; the others have none.
    #[test]
    fn levels_are_checked_against_the_queue_limit() {
        let field = |json: &str| serde_json::from_str::<ControllerConfig>(json).unwrap().validate_for_queue(QueueLimit::Packets(100)).map_err(|e| e.field);
        assert_eq!(field(r#"{"kind": "ewt", "start": "120pkt"}"#), Err("start"));
        assert_eq!(field(r#"{"kind": "ewt", "start": "90pkt"}"#), Ok(()));
        assert_eq!(field(r#"{"kind": "ewa", "low": "120pkt"}"#), Err("low"));
        assert_eq!(field(r#"{"kind": "ewa", "high": "100pkt"}"#), Err("high"));
        assert_eq!(field(r#"{"kind": "awm", "q_ref": "150pkt"}"#), Err("q_ref"));
        assert_eq!(field(r#"{"kind": "awm", "q_ref": "50pkt"}"#), Ok(()));
        assert_eq!(field(r#"{"kind": "rwm"}"#), Ok(()));
    }

    // tests the datapath hook's accounting at the rewrite point, with EWT writing its literal
    // floor (B = 100,000 B, 90,000 queued: W_ewt = field · 10,000/100,000; both shifts 7):
    //   field 1000 → 100 and 500 → 50: lowered, (900 + 450) · 2⁷ = 172,800 B taken off;
    //   field 10 (1,280 B) → W_ewt 1, below the 1,460 B MSS: raised to the MSS;
    //   at 20,000 B queued (below S = 30 %): no proposal, unchanged;
    //   an ACK of a flow the table does not hold: untracked;
    //   a SYN-ACK is not an ACK to rewrite: not counted at all.
    // UDP is counted in the table's UDP rate only where it leaves by the monitored egress.
    #[test]
    fn the_datapath_hook_counts_each_ack_by_its_outcome() {
        use testutil::{handshake, ms, Seg, CLIENT, SERVER};
        let cfg = ControllerConfig::Ewt(EwtConfig { literal_floor: true, start: Level::Fraction(0.3), ..EwtConfig::default() });
        let mut nr = NetworkReturn::new(crate::flows::FlowTableConfig::default(), &cfg);
        handshake(&mut nr.flows, CLIENT, Some(7), Some(7), ms(0));
        let r = |bytes: u64| Readings { queue: QueueReading { bytes, packets: (bytes / 1500) as u32, limit: QueueLimit::Bytes(100_000) }, link: Rate::mbps(10), oracle_flows: None };
        let full = r(90_000);
        let mut outcomes = Vec::new();
        for w in [1000, 500, 10] {
            outcomes.push(nr.at_rewrite_point(&mut Seg::ack_from_client(w), &full, ms(100)));
        }
        assert_eq!(outcomes[..2], [WindowRewrite::Lowered { from_field: 1000, to_field: 100 }, WindowRewrite::Lowered { from_field: 500, to_field: 50 }]);
        assert!(matches!(outcomes[2], WindowRewrite::Raised { from_field: 10, .. }), "{:?}", outcomes[2]);
        assert_eq!(nr.at_rewrite_point(&mut Seg::ack_from_client(1000), &r(20_000), ms(101)), WindowRewrite::Unchanged);
        let stranger = Seg { window: 1000, ..Seg::tcp((CLIENT.0, CLIENT.1 + 1), SERVER, tcp_flags::ACK) };
        assert_eq!(nr.at_rewrite_point(&mut stranger.clone(), &full, ms(102)), WindowRewrite::Unchanged);
        let synack = Seg::tcp(SERVER, CLIENT, tcp_flags::SYN | tcp_flags::ACK);
        assert_eq!(nr.at_rewrite_point(&mut synack.clone(), &full, ms(103)), WindowRewrite::Skipped(crate::packet::SkipReason::Syn));
        let rst = Seg::tcp(CLIENT, SERVER, tcp_flags::RST | tcp_flags::ACK);
        assert_eq!(nr.at_rewrite_point(&mut rst.clone(), &full, ms(104)), WindowRewrite::Skipped(crate::packet::SkipReason::Rst));
        assert_eq!(nr.at_rewrite_point(&mut Seg::tcp(CLIENT, SERVER, tcp_flags::FIN), &full, ms(105)), WindowRewrite::NotTcpAck);
        let udp_ack = Seg { proto: crate::packet::proto::UDP, ..Seg::tcp(CLIENT, SERVER, tcp_flags::ACK) };
        assert_eq!(nr.at_rewrite_point(&mut udp_ack.clone(), &full, ms(106)), WindowRewrite::NotTcpAck);
        assert_eq!(nr.stats, RewriteStats { acks: 5, lowered: 2, raised: 1, unchanged: 1, skipped: 0, untracked: 1, reduced_bytes: 172_800 });
        let udp = Seg { proto: crate::packet::proto::UDP, payload: 972, ..Seg::tcp(CLIENT, SERVER, 0) };
        nr.on_forward(&udp, false, &full, ms(110));
        let before = format!("{:?}", nr.flows.udp());
        nr.on_forward(&Seg::tcp(CLIENT, SERVER, tcp_flags::ACK), true, &full, ms(111));
        assert_eq!(format!("{:?}", nr.flows.udp()), before, "neither UDP off the monitored egress nor TCP on it counts");
        nr.on_forward(&udp, true, &full, ms(112));
        assert_ne!(format!("{:?}", nr.flows.udp()), before, "UDP on the monitored egress counts");
    }

    // tests when a queue event matters to the hook: always for a controller that reads them
    // (AWM); for one that does not (EWT), only while flow events wait or a flow's time is up.
    #[test]
    fn a_queue_event_matters_when_read_or_when_flows_wait() {
        use testutil::{ms, CLIENT};
        let awm = NetworkReturn::new(crate::flows::FlowTableConfig::default(), &serde_json::from_str(r#"{"kind": "awm"}"#).unwrap());
        assert!(awm.queue_event_matters(ms(0)));
        let mut ewt = NetworkReturn::new(crate::flows::FlowTableConfig::default(), &ControllerConfig::Ewt(EwtConfig::default()));
        assert!(!ewt.queue_event_matters(ms(0)), "no flow, nothing waits");
        testutil::handshake(&mut ewt.flows, CLIENT, Some(7), Some(7), ms(0));
        assert!(ewt.flows.has_events() && !ewt.flows.expiry_due(ms(61)));
        assert!(ewt.queue_event_matters(ms(61)), "the flow's registration waits");
        ewt.flows.take_events(&mut Vec::new());
        assert!(!ewt.queue_event_matters(ms(61)));
        assert!(ewt.queue_event_matters(ms(1_000_000)), "the idle flow's time is up");
    }

    // tests the hook's queue event: the flow table's idle flows expire first (a flow last
    // seen at 60 ms is gone at 1,000 s), then the controller reads the event (AWM's window
    // moves).
    #[test]
    fn a_queue_event_expires_idle_flows_then_reaches_the_controller() {
        use crate::qdisc::Occupancy;
        use testutil::{handshake, ms, CLIENT};
        let mut nr = NetworkReturn::new(crate::flows::FlowTableConfig::default(), &serde_json::from_str(r#"{"kind": "awm"}"#).unwrap());
        let id = handshake(&mut nr.flows, CLIENT, Some(7), Some(7), ms(0));
        let before = format!("{:?}", nr.controller);
        let queue = QueueReading { bytes: 90 * 1500, packets: 90, limit: QueueLimit::Packets(100) };
        let r = Readings { queue, link: Rate::mbps(10), oracle_flows: None };
        let ev = QueueEvent { kind: QueueEventKind::Enqueue, len_bytes: 1500, before: Occupancy { packets: 89, bytes: 89 * 1500 }, after: Occupancy { packets: 90, bytes: 90 * 1500 } };
        nr.on_queue(&ev, &r, ms(1_000_000));
        assert!(nr.flows.get(id).is_none(), "expired");
        assert_ne!(format!("{:?}", nr.controller), before);
    }

    // tests the count of ACKs the writer skips: EWA proposes bytes, which a flow picked up
    // mid-stream (its scale unknown) cannot take: skipped, counted once.
    #[test]
    fn an_ack_the_writer_skips_is_counted_as_skipped() {
        use testutil::{ms, Seg, CLIENT, SERVER};
        let mut nr = NetworkReturn::new(crate::flows::FlowTableConfig::default(), &serde_json::from_str(r#"{"kind": "ewa"}"#).unwrap());
        let r = Readings { queue: QueueReading { bytes: 50 * 1500, packets: 50, limit: QueueLimit::Packets(100) }, link: Rate::mbps(10), oracle_flows: None };
        let ack = Seg { window: 1000, ..Seg::tcp(CLIENT, SERVER, tcp_flags::ACK) };
        nr.on_forward(&ack, false, &r, ms(1));
        assert_eq!(nr.at_rewrite_point(&mut ack.clone(), &r, ms(1)), WindowRewrite::Skipped(crate::packet::SkipReason::UnknownScale));
        assert_eq!(nr.stats, RewriteStats { acks: 1, skipped: 1, ..RewriteStats::default() });
    }
}
