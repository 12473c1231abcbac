//! ACNS's router: Advanced Congestion Notification System (Olšovský, "Advanced Congestion
//! Notification System", ACM Slovakia Bulletin 6(2) 2014: "the ACNS paper"), the part that runs
//! on every router of a path. The endpoint part (negotiation, marking I2–I5, turning commands into
//! window actions) lives with the TCP endpoints.
//!
//! At enqueue into any egress queue of the router, every TCP packet asking for a command (the
//! IPv4 reserved flag CMI set: codes I4, I5 and I6) gets a command from a weight computed from
//! the queue's usage, the flow's age and the flow's priority (DSCP):
//!
//! ```text
//! A(q) = occupancy / limit of the queue it joins, before it is added      (in [0, 1])
//! F    = v_p · p_i / p_max           weight = "corrected" (default; 0 when p_max = 0)
//! F    = v_p · p_max / p_i           weight = "literal" (eqn. 4 as printed; p_i = 0 ⇒ W = 0)
//! T    = v_a · (1 − f_i / f_max)     age = "intent" (default: the newest flow is protected)
//! T    = v_a · f_i / f_max           age = "printed" (the oldest flow is protected)
//! W    = A(q) / max(F + T, eps)
//! C    = 1 (normal) if W < th_A1;  2 (freeze) if th_A1 ≤ W < th_A2;  3 (fallback) if W ≥ th_A2
//! ```
//!
//! `f_i = now − add_time` (the flow's first packet through this router, its SYN when seen),
//! `p_i` the DSCP of the packet evaluated, `f_max` and `p_max` the largest age and DSCP over the
//! active ACNS flows of this router's table, the evaluated one included (`p_max = "active"`,
//! default; a flow's DSCP is that of its SYN, then of its latest packet asking for a command), or
//! `p_max = 63` (the largest DSCP, a fixed scale). A flow is an ACNS flow when its SYN carried
//! ECE, CWR and CMT with ACK clear, unless its SYN-ACK then came back without ECE and CMT (the
//! endpoints agreed on plain ECN or none); a flow picked up mid-stream becomes one with its first
//! packet asking for a command. With `f_max = 0` (every flow started at this instant) `f_i /
//! f_max` counts as 1.
//!
//! The router's flow table sees only what ACNS reads: TCP segments with SYN, FIN or RST (a
//! connection's start, ACNS status and end) and ECN-capable ones (ECN field not 00: every data
//! segment of an ACNS flow, I2–I7, keeps the flow alive in the table; those asking for a
//! command also give its DSCP). Every other packet — pure ACKs (Not-ECT) and traffic without
//! ECN — passes without a lookup ([`Acns::wants`]). A flow whose every request was turned into
//! I7 upstream still refreshes its entry here, so its age is kept. A plain ECN-capable data
//! segment (no SYN, FIN, RST or CMI) whose flow the caller hints and that was seen less than
//! [`Acns::REFRESH`] ago is not passed to the table again: it would only move `last_seen`, and
//! a flow refreshed every second never reaches the idle timeout.
//!
//! The command is written into the IPv4 header ([`AcnsIp`], the ACNS paper's Table 2): C = 2
//! turns I4/I5 into I6 (freeze), C = 3 turns I4/I5/I6 into I7 (fallback), C = 1 leaves the
//! packet. Severity only rises: an I6 from an upstream router is never lowered, and I7 and every
//! packet with CMI = 0 (I1–I3, I7) are not evaluated. The writer updates the IPv4 header checksum
//! incrementally ([`crate::packet::set_ecn_cmi`]).
//!
//! Reconstructions (docs/algorithms/network-return.md, "ACNS"): the corrected priority term (eqn.
//! 4 as printed divides by a DSCP-0 flow's priority and never penalises best effort, against the
//! paper's own experiment), the age term oriented as the paper's stated aim (eqn. 3 prints
//! `v_a·age(f_i)`, undefined), the guard `eps`, the scope of `p_max` and `f_max`, the threshold
//! boundaries, evaluating I6 packets too (so a later router can raise a freeze to a fallback) and
//! evaluating at enqueue with the usage before the packet.
//!
//! [`Acns`] holds no packet and no clock: a datapath (the simulator's router, a Linux qdisc
//! hook) calls [`Acns::on_enqueue`] with each packet it puts into an egress queue.

use super::QueueReading;
use crate::flows::{Endpoint, FlowEvent, FlowId, FlowKey, FlowMap, FlowTable, FlowTableConfig, OngoingRtt};
use crate::packet::signal::{CmtMask, SignalField};
use crate::packet::{tcp_flags, AcnsIp};
use crate::qdisc::ParamError;
use crate::time::{Dur, Time};
use crate::units::QueueLimit;
use serde::{Deserialize, Serialize};

/// How the priority term `F` is computed (module doc).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AcnsWeight {
    /// `F = v_p · p_i / p_max` (0 when `p_max = 0`).
    #[default]
    Corrected,
    /// `F = v_p · p_max / p_i`, eqn. (4) as printed; `p_i = 0` gives `W = 0`.
    Literal,
}

/// How the age term `T` is computed (module doc).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AcnsAge {
    /// `T = v_a · (1 − f_i / f_max)`: the newest flow is protected, the oldest gets `T = 0`.
    #[default]
    Intent,
    /// `T = v_a · f_i / f_max`: the oldest flow is protected.
    Printed,
}

/// The scale of the priority term: the largest DSCP among the router's active ACNS flows, or
/// the largest DSCP there is (63). Written `"active"` or `63`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum AcnsPMax {
    #[default]
    Active,
    /// 63.
    Fixed,
}

impl AcnsPMax {
    /// The one fixed scale.
    pub const FIXED: u8 = 63;
}

impl Serialize for AcnsPMax {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AcnsPMax::Active => s.serialize_str("active"),
            AcnsPMax::Fixed => s.serialize_u8(AcnsPMax::FIXED),
        }
    }
}

impl<'de> Deserialize<'de> for AcnsPMax {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<AcnsPMax, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = AcnsPMax;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("\"active\" or 63")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<AcnsPMax, E> {
                match v {
                    "active" => Ok(AcnsPMax::Active),
                    _ => Err(E::custom(format!("expected \"active\" or 63, got {v:?}"))),
                }
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<AcnsPMax, E> {
                match v {
                    63 => Ok(AcnsPMax::Fixed),
                    _ => Err(E::custom(format!("expected \"active\" or 63, got {v}"))),
                }
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<AcnsPMax, E> {
                self.visit_i64(v.min(i64::MAX as u64) as i64)
            }
        }
        d.deserialize_any(V)
    }
}

/// `{ kind = "acns", th_a1 = 0.95, th_a2 = 1.0, v_p = 0.8, v_a = 0.2, weight = "corrected",
/// age = "intent", eps = 0.01, p_max = "active", cmt_mask = 0x08 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AcnsConfig {
    /// Freeze from this weight on.
    pub th_a1: f64,
    /// Fallback from this weight on.
    pub th_a2: f64,
    /// Share of the priority term.
    pub v_p: f64,
    /// Share of the age term; `v_p + v_a = 1`.
    pub v_a: f64,
    pub weight: AcnsWeight,
    pub age: AcnsAge,
    /// Least divisor of the weight (a guard against `F + T = 0`), in (0, 1].
    pub eps: f64,
    pub p_max: AcnsPMax,
    /// The TCP reserved bit (byte 12) the endpoints carry CMT in, read on the SYN to tell an
    /// ACNS flow: 0x08 (default), 0x04 or 0x02.
    pub cmt_mask: u8,
}

impl Default for AcnsConfig {
    /// The ACNS paper's Table 1 (`th_A1 = 0.95`, `th_A2 = 1.0`, `v_p = 0.8`, `v_a = 0.2`); the
    /// corrected weight, the intent age, `eps = 0.01`, `p_max = "active"` and CMT at 0x08 are
    /// Sluice's reconstructions (docs/algorithms/network-return.md, "ACNS").
    fn default() -> Self {
        AcnsConfig { th_a1: 0.95, th_a2: 1.0, v_p: 0.8, v_a: 0.2, weight: AcnsWeight::Corrected, age: AcnsAge::Intent, eps: 0.01, p_max: AcnsPMax::Active, cmt_mask: 0x08 }
    }
}

/// `x` for a message: rounded to nine decimals, so `0.7 + 0.2` reads `0.9`.
fn show(x: f64) -> String {
    format!("{}", (x * 1e9).round() / 1e9)
}

impl AcnsConfig {
    /// Checks the fields; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        for (field, v) in [("v_p", self.v_p), ("v_a", self.v_a)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(ParamError::new(field, format!("must be in [0, 1], got {v}")));
            }
        }
        let sum = self.v_p + self.v_a;
        if (sum - 1.0).abs() > 1e-9 {
            return Err(ParamError::new("v_p", format!("v_p + v_a must be 1, got {}", show(sum))));
        }
        if !(self.th_a1.is_finite() && self.th_a1 > 0.0) {
            return Err(ParamError::new("th_a1", format!("must be a positive number, got {}", self.th_a1)));
        }
        if !(self.th_a2.is_finite() && self.th_a2 >= self.th_a1) {
            return Err(ParamError::new("th_a2", format!("must be at least th_a1 ({}), got {}", self.th_a1, self.th_a2)));
        }
        if !(self.eps > 0.0 && self.eps <= 1.0) {
            return Err(ParamError::new("eps", format!("must be in (0, 1], got {}", self.eps)));
        }
        CmtMask::new(self.cmt_mask).map_err(|m| ParamError::new("cmt_mask", m))?;
        Ok(())
    }
    /// The CMT mask (validated; the default otherwise).
    pub fn mask(&self) -> CmtMask {
        CmtMask::new(self.cmt_mask).unwrap_or_default()
    }
}

/// A router's command (the ACNS paper's `C`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Command {
    /// C = 1.
    Normal = 1,
    /// C = 2.
    Freeze = 2,
    /// C = 3.
    Fallback = 3,
}

/// What the weight is computed from for one packet.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct WeightInputs {
    /// `A(q)`, in [0, 1].
    pub usage: f64,
    /// The flow's DSCP `p_i` and the scale `p_max`.
    pub p_i: u8,
    pub p_max: u8,
    /// The flow's age `f_i` and the oldest active ACNS flow's `f_max`.
    pub f_i: Dur,
    pub f_max: Dur,
}

/// The weight `W` (module doc).
pub fn weight(cfg: &AcnsConfig, x: WeightInputs) -> f64 {
    let f = match cfg.weight {
        AcnsWeight::Corrected if x.p_max == 0 => 0.0,
        AcnsWeight::Corrected => cfg.v_p * x.p_i as f64 / x.p_max as f64,
        AcnsWeight::Literal if x.p_i == 0 => return 0.0,
        AcnsWeight::Literal => cfg.v_p * x.p_max as f64 / x.p_i as f64,
    };
    let ratio = if x.f_max.0 == 0 { 1.0 } else { (x.f_i.0 as f64 / x.f_max.0 as f64).min(1.0) };
    let t = match cfg.age {
        AcnsAge::Intent => cfg.v_a * (1.0 - ratio),
        AcnsAge::Printed => cfg.v_a * ratio,
    };
    x.usage / (f + t).max(cfg.eps)
}

/// The command for weight `w` (module doc).
pub fn command(cfg: &AcnsConfig, w: f64) -> Command {
    if w >= cfg.th_a2 {
        Command::Fallback
    } else if w >= cfg.th_a1 {
        Command::Freeze
    } else {
        Command::Normal
    }
}

/// `A(q)`: the queue's occupancy over its limit, in packets or bytes as the limit is counted,
/// at most 1.
pub fn usage(q: QueueReading) -> f64 {
    let (have, limit) = match q.limit {
        QueueLimit::Packets(l) => (q.packets as f64, l as f64),
        QueueLimit::Bytes(l) => (q.bytes as f64, l as f64),
    };
    if limit <= 0.0 {
        1.0
    } else {
        (have / limit).min(1.0)
    }
}

/// The code a packet asking for a command leaves with, for command `c` (severity only rises):
/// `None` when it keeps its code.
pub fn rewrite(code: AcnsIp, c: Command) -> Option<AcnsIp> {
    match (code, c) {
        (AcnsIp::I4 | AcnsIp::I5, Command::Freeze) => Some(AcnsIp::I6),
        (AcnsIp::I4 | AcnsIp::I5 | AcnsIp::I6, Command::Fallback) => Some(AcnsIp::I7),
        _ => None,
    }
}

/// What the router did with one packet.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum AcnsOutcome {
    /// Not a TCP segment, or CMI clear (I1–I3, I7): not evaluated, untouched.
    NotAsked,
    /// CMI set, but the flow is not in the table (full of active flows): untouched.
    Untracked,
    /// Evaluated: the weight, the command, and the code written (`None`: left as it was).
    Evaluated { weight: f64, command: Command, wrote: Option<AcnsIp> },
}

/// Counters over a router's evaluations, all egress queues together.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AcnsStats {
    /// Packets that asked for a command (CMI set) and were evaluated.
    pub evaluated: u64,
    /// Rewritten to I6 (freeze).
    pub freezes: u64,
    /// Rewritten to I7 (fallback).
    pub fallbacks: u64,
    /// Asked for a command but not evaluated: the flow is not in the table.
    pub skipped: u64,
}

/// What the router keeps of a flow besides the flow table's entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct AcnsFlow {
    /// The flow negotiated ACNS (module doc).
    acns: bool,
    /// DSCP of its SYN, then of its latest packet asking for a command.
    dscp: u8,
}

/// ACNS on one router: its flow table (every TCP packet it forwards) and its counters.
#[derive(Clone, Debug)]
pub struct Acns {
    cfg: AcnsConfig,
    mask: CmtMask,
    pub flows: FlowTable,
    info: FlowMap<AcnsFlow>,
    /// The flows marked ACNS (some may have left the table; pruned on its events).
    acns_flows: Vec<FlowId>,
    events: Vec<FlowEvent>,
    /// The largest DSCP and the earliest `first_seen` over the active ACNS flows, while valid:
    /// cleared whenever the set or a DSCP may have changed (a flow marked or unmarked, a
    /// request with another DSCP, a FIN, a removal).
    scale_cache: Option<(u8, Time)>,
    pub stats: AcnsStats,
}

impl Acns {
    /// Both configs validated by the caller.
    pub fn new(cfg: AcnsConfig, flows: FlowTableConfig) -> Acns {
        let mut flows = FlowTable::new(flows);
        flows.set_ongoing_rtt(OngoingRtt::Off);
        Acns { mask: cfg.mask(), cfg, flows, info: FlowMap::default(), acns_flows: Vec::new(), events: Vec::new(), scale_cache: None, stats: AcnsStats::default() }
    }

    pub fn config(&self) -> &AcnsConfig {
        &self.cfg
    }

    /// Whether the flow `id` is recorded as an ACNS flow.
    pub fn is_acns(&self, id: FlowId) -> bool {
        self.info.get(id).is_some_and(|f| f.acns)
    }

    /// `(p_max, f_max)` at `now` over the active ACNS flows (module doc), with `own` (the
    /// evaluated flow's DSCP and age) counted in.
    fn scales(&mut self, now: Time, own: (u8, Dur)) -> (u8, Dur) {
        let (p_all, oldest) = match self.scale_cache {
            Some(c) => c,
            None => {
                let (mut p, mut t) = (0u8, Time::MAX);
                for &id in &self.acns_flows {
                    if let (Some(e), Some(i)) = (self.flows.get(id).filter(|e| e.is_active()), self.info.get(id)) {
                        p = p.max(i.dscp);
                        t = t.min(e.first_seen);
                    }
                }
                self.scale_cache = Some((p, t));
                (p, t)
            }
        };
        let p = own.0.max(p_all);
        let f = if oldest == Time::MAX { own.1 } else { own.1.max(now.since(oldest)) };
        match self.cfg.p_max {
            AcnsPMax::Active => (p, f),
            AcnsPMax::Fixed => (AcnsPMax::FIXED, f),
        }
    }

    fn mark(&mut self, id: FlowId, acns: bool, dscp: u8) {
        self.scale_cache = None;
        let was = self.info.insert(id, AcnsFlow { acns, dscp }).is_some_and(|f| f.acns);
        if acns && !was {
            self.acns_flows.push(id);
        } else if !acns && was {
            self.acns_flows.retain(|&k| k != id);
        }
    }

    fn take_events(&mut self) {
        self.flows.take_events(&mut self.events);
        for ev in self.events.drain(..) {
            if let FlowEvent::Removed { id, .. } = ev {
                self.scale_cache = None;
                if self.info.remove(id).is_some_and(|f| f.acns) {
                    self.acns_flows.retain(|&k| k != id);
                }
            }
        }
    }

    /// How often a plain ECN-capable data segment refreshes its flow's entry (module doc).
    pub const REFRESH: Dur = Dur::from_secs(1);

    /// Whether [`Acns::on_enqueue`] does anything with `seg`: a TCP segment with SYN, FIN or
    /// RST, ECN-capable, or asking for a command (CMI set). A datapath may skip the call (and
    /// the queue reading) for any other packet, with the same outcome.
    #[inline]
    pub fn wants(seg: &impl crate::packet::HeaderView) -> bool {
        seg.is_tcp() && seg.tcp_flags().is_some_and(|f| f & (tcp_flags::SYN | tcp_flags::FIN | tcp_flags::RST) != 0 || seg.ecn() != crate::packet::Ecn::NotEct || seg.ip_reserved_flag())
    }

    /// `seg` joins an egress queue whose state before it is `q`, at `now`: the flow table sees
    /// it if ACNS reads it ([`Acns::wants`]), then a packet asking for a command is evaluated
    /// and its code raised (module doc). `hint`: the flow id the caller believes it has
    /// ([`FlowTable::observe_hinted`]). Returns the flow's id (for the next hint; `None` for a
    /// packet the table did not see) and what was done.
    pub fn on_enqueue(&mut self, seg: &mut impl SignalField, hint: Option<FlowId>, q: QueueReading, now: Time) -> (Option<FlowId>, AcnsOutcome) {
        if !Acns::wants(seg) {
            return (None, AcnsOutcome::NotAsked);
        }
        let Some(flags) = seg.tcp_flags() else {
            return (None, AcnsOutcome::NotAsked);
        };
        let cmi = seg.ip_reserved_flag();
        if !cmi && flags & (tcp_flags::SYN | tcp_flags::FIN | tcp_flags::RST) == 0 {
            if let (Some(h), Some(sp), Some(dp)) = (hint, seg.src_port(), seg.dst_port()) {
                let key = FlowKey::new(Endpoint { addr: seg.src_addr(), port: sp }, Endpoint { addr: seg.dst_addr(), port: dp });
                if self.flows.get(h).is_some_and(|e| e.key == key && now.since(e.last_seen) < Acns::REFRESH) {
                    return (Some(h), AcnsOutcome::NotAsked);
                }
            }
        }
        let id = self.flows.observe_hinted(seg, now, hint);
        if self.flows.has_events() {
            self.take_events();
        }
        if flags & tcp_flags::FIN != 0 {
            // Possibly the second FIN: the flow may no longer be active.
            self.scale_cache = None;
        }
        if let Some(id) = id {
            if flags & tcp_flags::SYN != 0 {
                let ece_cwr = tcp_flags::ECE | tcp_flags::CWR;
                let cmt = seg.tcp_reserved_bits().is_some_and(|r| r & self.mask.bits() != 0);
                if flags & tcp_flags::ACK == 0 {
                    self.mark(id, flags & ece_cwr == ece_cwr && cmt, seg.dscp());
                } else if let Some(f) = self.info.get(id).filter(|f| f.acns && !(flags & tcp_flags::ECE != 0 && cmt)) {
                    // The responder answered without ACNS: the connection runs plain ECN or none.
                    self.mark(id, false, f.dscp);
                }
            }
        }
        if !cmi {
            return (id, AcnsOutcome::NotAsked);
        }
        let Some(code) = AcnsIp::of(seg) else {
            // CMI with Not-ECT is no code: not a request.
            return (id, AcnsOutcome::NotAsked);
        };
        let Some(entry) = id.and_then(|id| self.flows.get(id)) else {
            self.stats.skipped += 1;
            return (id, AcnsOutcome::Untracked);
        };
        let (fid, p_i, f_i) = (entry.id, seg.dscp(), now.since(entry.first_seen));
        let picked_up = entry.t_syn.is_none();
        match self.info.get_mut(fid) {
            Some(f) if f.dscp != p_i => {
                f.dscp = p_i;
                self.scale_cache = None;
            }
            Some(_) => {}
            // Picked up mid-stream: asking for a command shows it runs ACNS.
            None if picked_up => self.mark(fid, true, p_i),
            None => {}
        }
        let (p_max, f_max) = self.scales(now, (p_i, f_i));
        let w = weight(&self.cfg, WeightInputs { usage: usage(q), p_i, p_max, f_i, f_max });
        let c = command(&self.cfg, w);
        self.stats.evaluated += 1;
        let wrote = rewrite(code, c).filter(|to| to.write(seg).is_ok());
        match wrote {
            Some(AcnsIp::I6) => self.stats.freezes += 1,
            Some(AcnsIp::I7) => self.stats.fallbacks += 1,
            _ => {}
        }
        (id, AcnsOutcome::Evaluated { weight: w, command: c, wrote })
    }
}

#[cfg(test)]
mod tests;
