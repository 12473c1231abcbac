//! RED (Floyd & Jacobson 1993) and Adaptive RED (Floyd, Gummadi & Shenker 2001), with the
//! behaviour of ns-3's `RedQueueDisc` selectable where it differs from the paper.
//!
//! On each arrival the average queue `avg` is updated (decayed first for the time the queue was
//! idle, as if `m = ptc·idle_time` small packets had arrived to an empty queue), then:
//!
//! * `avg < min_th`: enqueue;
//! * `min_th ≤ avg < max_th` (`< 2·max_th` when gentle): drop or mark with the probability `p_a`
//!   obtained from `p_b = max_p·(avg − min_th)/(max_th − min_th)` (gentle above `max_th`:
//!   `p_b = max_p + (1 − max_p)·(avg − max_th)/max_th`) by the count-based uniform spacing
//!   (`wait`: `p_a = 0` while `count·p_b < 1`, `p_b/(2 − count·p_b)` below 2, else 1;
//!   without it `p_a = p_b/(1 − count·p_b)`);
//! * above that: forced drop (a mark instead only when ECN is on and `hard_drop` is off).
//!
//! A packet that RED lets in is still dropped if it does not fit the physical limit. Thresholds
//! and the average are in the unit of the limit (packets or bytes); in byte mode the probability
//! is scaled by `len/mean_pkt_size` ([`ByteScaling`]).
//!
//! [`RedFlavor::Ns3`] reproduces ns-3: the average is updated with the queue length before the
//! arrival, there is no early or forced drop while the queue holds at most one packet (one
//! byte in byte mode), the first arrival after the average crosses `min_th` is never dropped and
//! restarts the count, a forced drop leaves the count alone, the idle period starts when a
//! dequeue *finds* the queue empty (one transmission time after the last packet left, with a
//! one-packet device queue), and the gentle slope keeps the initial `max_p` under ARED.
//! [`RedFlavor::Floyd`] follows the paper: `count = −1` below `min_th`, `0` after every drop,
//! idle from the dequeue that empties the queue.
//!
//! [`linux_params`] derives `min`, `max`, `burst` and `Wlog` from `limit`, `avpkt` and the
//! bandwidth as iproute2's `tc red` does. Linux has no gentle mode (`gentle = false`).
//!
//! Adaptive RED is [`RedVariant::Adaptive`]: thresholds and `w_q` come from the link capacity
//! and a target delay ([`RedSettings::adaptive`]), and `max_p` is adapted every `interval` toward
//! the band 40–60 % between the thresholds.

use super::auto::Auto;
use super::{Dequeued, DropReason, Enqueue, MarkReason, Occupancy, ParamError, Profile, QdiscCx, QdiscParams, QueueDisc, Queued};
use crate::packet::Ecn;
use crate::rng::RngStream;
use crate::time::{Dur, Rate, Time};
use crate::units::{ByteSize, QueueLimit};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How byte mode scales the drop probability by the packet's size.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ByteScaling {
    /// Floyd & Jacobson: `p_b ← p_b·len/s` before the uniform spacing; `count` in packets.
    Spec,
    /// ns-3 `ModifyP`: `count = count_bytes/s` (integer division) in the spacing, and the
    /// `len/s` factor applied to `p_a` afterwards (only while `p_a < 1`).
    Ns3,
}

/// Which implementation's details RED follows where the paper leaves room (see the module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedFlavor {
    Floyd,
    Ns3,
}

/// Adaptive RED's `max_p` controller.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AredParams {
    /// Time between adaptations (0.5 s).
    pub interval: Dur,
    /// Upper bound of `max_p` (0.5).
    pub top: f64,
    /// Lower bound of `max_p` (0.01; ns-3 `min(0.01, 8·s·RTT/C)`, see [`ared_bottom_ns3`]).
    pub bottom: f64,
    /// Largest additive step (0.01); the step is `min(alpha, max_p/4)`.
    pub alpha: f64,
    /// Multiplicative decrease (0.9).
    pub beta: f64,
}

impl AredParams {
    /// The paper's values with the given bottom.
    pub fn standard(bottom: f64) -> AredParams {
        AredParams { interval: Dur::from_millis(500), top: 0.5, bottom, alpha: 0.01, beta: 0.9 }
    }
}

/// Plain RED or Adaptive RED.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum RedVariant {
    Classic,
    Adaptive(AredParams),
}

/// RED's parameters, validated by the caller (`0 ≤ min_th < max_th`, `0 < w_q ≤ 1`,
/// `0 < max_p ≤ 1`, `mean_pkt_size > 0`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RedSettings {
    /// Physical limit; its unit is the unit of the thresholds and of the average.
    pub limit: QueueLimit,
    pub min_th: f64,
    pub max_th: f64,
    /// Initial (for ARED) or fixed maximum early-drop probability, `1/l_interm`.
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    pub wait: bool,
    /// Mean packet size `s` (bytes): idle decay and byte-mode scaling.
    pub mean_pkt_size: u32,
    /// Link rate for the idle decay: `ptc = rate/(8·s)` packets per second.
    pub link_rate: Rate,
    pub byte_scaling: ByteScaling,
    /// Mark ECT packets instead of dropping them.
    pub ecn: bool,
    /// Forced drops (above `max_th`, or `2·max_th` when gentle) drop even ECT packets.
    pub hard_drop: bool,
    pub flavor: RedFlavor,
    pub variant: RedVariant,
}

impl RedSettings {
    /// ns-3's `RedQueueDisc` defaults on a link of `rate`: `MinTh 5`, `MaxTh 15`, `QW 0.002`,
    /// `LInterm 50`, gentle, wait, `MeanPktSize 500`, 25 packets, ECN off, hard drop.
    pub fn ns3_defaults(rate: Rate) -> RedSettings {
        RedSettings {
            limit: QueueLimit::Packets(25),
            min_th: 5.0,
            max_th: 15.0,
            max_p: 1.0 / 50.0,
            w_q: 0.002,
            gentle: true,
            wait: true,
            mean_pkt_size: 500,
            link_rate: rate,
            byte_scaling: ByteScaling::Ns3,
            ecn: false,
            hard_drop: true,
            flavor: RedFlavor::Ns3,
            variant: RedVariant::Classic,
        }
    }

    /// Adaptive RED on a link of `rate` with target delay `target`: `C = rate/(8·s)` packets/s,
    /// `min_th = max(5, target·C/2)` packets (times `s` in byte mode), `max_th = 3·min_th`,
    /// `w_q = 1 − exp(−1/C)`, gentle on; `max_p` starts at `base.max_p`.
    pub fn adaptive(base: RedSettings, target: Dur, params: AredParams) -> RedSettings {
        let c = ptc(base.link_rate, base.mean_pkt_size);
        let mut min_th = (target.as_secs_f64() * c / 2.0).max(5.0);
        if matches!(base.limit, QueueLimit::Bytes(_)) {
            min_th *= base.mean_pkt_size as f64;
        }
        RedSettings {
            min_th,
            max_th: 3.0 * min_th,
            w_q: 1.0 - (-1.0 / c).exp(),
            gentle: true,
            variant: RedVariant::Adaptive(params),
            ..base
        }
    }
}

/// ns-3's ARED bottom: `min(0.01, 8·s·rtt/rate)` (one over the window of a connection in
/// packets), with `rtt` 100 ms by default.
pub fn ared_bottom_ns3(rate: Rate, mean_pkt_size: u32, rtt: Dur) -> f64 {
    let b = 8.0 * mean_pkt_size as f64 * rtt.as_secs_f64() / rate.as_bps() as f64;
    b.min(0.01)
}

/// Packets per second the link serves at the mean packet size.
fn ptc(rate: Rate, s: u32) -> f64 {
    rate.as_bps() as f64 / (8.0 * s as f64)
}

/// What iproute2's `tc red` derives from `limit` and `avpkt` (bytes) when `min`, `max` and
/// `burst` are not given: `max = limit/4`, `min = max/3`, `burst = (2·min + max)/(3·avpkt)`
/// packets (integer arithmetic), and `Wlog`, the smallest integer ≥ 1 with
/// `burst + 1 − min/avpkt ≤ (1 − (1 − W)^burst)/W` for `W = 2^−Wlog`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LinuxRedParams {
    pub max: u64,
    pub min: u64,
    pub burst: u64,
    pub wlog: u32,
}

impl LinuxRedParams {
    /// `w_q = 2^−Wlog`.
    pub fn w_q(&self) -> f64 {
        1.0 / (1u64 << self.wlog) as f64
    }
}

/// See [`LinuxRedParams`]. `Err` when `tc` would refuse (`burst + 1 − min/avpkt < 1`, or no
/// `Wlog` below 32 satisfies the rule).
pub fn linux_params(limit: u64, avpkt: u32, max: Option<u64>, min: Option<u64>, burst: Option<u64>) -> Result<LinuxRedParams, String> {
    if avpkt == 0 {
        return Err("avpkt must be greater than zero".into());
    }
    let max = max.unwrap_or(limit / 4);
    let min = min.unwrap_or(max / 3);
    let burst = burst.unwrap_or((2 * min + max) / (3 * avpkt as u64));
    let a = burst as f64 + 1.0 - min as f64 / avpkt as f64;
    if a < 1.0 {
        return Err(format!("burst {burst} is too small for min {min} B at avpkt {avpkt} B (tc red needs burst + 1 - min/avpkt >= 1)"));
    }
    let mut w = 0.5f64;
    for wlog in 1..32u32 {
        if a <= (1.0 - (1.0 - w).powf(burst as f64)) / w {
            return Ok(LinuxRedParams { max, min, burst, wlog });
        }
        w /= 2.0;
    }
    Err(format!("no averaging weight fits burst {burst} (tc red needs Wlog < 32)"))
}

/// How `{ kind = "red" }` derives the thresholds and `w_q` it is not given.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedRule {
    /// `min_th` 5 and `max_th` 15 packets (times `mean_pkt_size` in byte mode), `w_q` 0.002:
    /// Floyd & Jacobson's suggestions, and ns-3's attribute defaults.
    Floyd,
    /// iproute2's `tc red` ([`linux_params`], `mean_pkt_size` as `avpkt`); byte limits only.
    Linux,
    /// From the target delay and the link ([`RedSettings::adaptive`]'s thresholds, what ns-3
    /// does when `MinTh` and `MaxTh` are both 0); `w_q` 0.002.
    Target,
}

/// A threshold as the user writes it: `"5pkt"` or `"5000B"`, in the limit's unit.
fn th_value(th: QueueLimit, bytes_mode: bool, field: &'static str) -> Result<f64, (&'static str, String)> {
    match (th, bytes_mode) {
        (QueueLimit::Packets(p), false) => Ok(p as f64),
        (QueueLimit::Bytes(b), true) => Ok(b as f64),
        (_, true) => Err((field, format!("in bytes like the limit (e.g. \"5000B\"), got {th}"))),
        (_, false) => Err((field, format!("in packets like the limit (e.g. \"5pkt\"), got {th}"))),
    }
}

/// A threshold for messages: `"5pkt"`, `"33333B"`, `"62.5pkt"`.
fn th_show(v: f64, bytes_mode: bool) -> String {
    format!("{v}{}", if bytes_mode { "B" } else { "pkt" })
}

/// Without a link (a gateway's queue), `bandwidth = "auto"` is tc's default, 10 Mbit/s.
pub const DEFAULT_BANDWIDTH: Rate = Rate::mbps(10);

fn check_common(limit: QueueLimit, max_p: f64, mean: ByteSize, bw: Auto<Rate>) -> Result<(), (&'static str, String)> {
    let zero = match limit {
        QueueLimit::Packets(p) => p == 0,
        QueueLimit::Bytes(b) => b == 0,
    };
    if zero {
        return Err(("limit", "must be greater than zero".into()));
    }
    if !(max_p > 0.0 && max_p <= 1.0) {
        return Err(("max_p", format!("must be in (0, 1], got {max_p}")));
    }
    if mean.0 == 0 || mean.0 > u32::MAX as u64 {
        return Err(("mean_pkt_size", format!("must be between 1B and {}B, got {mean}", u32::MAX)));
    }
    if bw == Auto::Value(Rate(0)) {
        return Err(("bandwidth", "must be greater than zero (or \"auto\": the link's rate)".into()));
    }
    Ok(())
}

/// `{ kind = "red", limit = "900pkt", ... }`. Only `limit` is required.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// Packets or bytes; the unit of the thresholds and of the average.
    pub limit: QueueLimit,
    /// How thresholds and `w_q` left at `"auto"` are derived.
    pub params: RedRule,
    pub min_th: Auto<QueueLimit>,
    pub max_th: Auto<QueueLimit>,
    pub w_q: Auto<f64>,
    pub max_p: f64,
    pub gentle: bool,
    pub wait: bool,
    /// `s`: idle decay, byte-mode scaling, `avpkt` of the Linux rule, packets of the target rule.
    pub mean_pkt_size: ByteSize,
    /// For the idle decay (and the target rule); `"auto"`: the link's rate.
    pub bandwidth: Auto<Rate>,
    /// Target queue delay of `params = "target"`.
    pub target: Dur,
    pub byte_scaling: ByteScaling,
    pub flavor: RedFlavor,
    pub ecn: bool,
    pub hard_drop: bool,
}

impl Default for RedConfig {
    /// Floyd & Jacobson with the gentle ramp, Linux's `avpkt` 1000 B, ECN off, forced drops
    /// mark ECT packets when ECN is on (Linux without `harddrop`).
    fn default() -> Self {
        RedConfig {
            limit: QueueLimit::Packets(1000),
            params: RedRule::Floyd,
            min_th: Auto::Auto,
            max_th: Auto::Auto,
            w_q: Auto::Auto,
            max_p: 0.02,
            gentle: true,
            wait: true,
            mean_pkt_size: ByteSize(1000),
            bandwidth: Auto::Auto,
            target: Dur::from_millis(5),
            byte_scaling: ByteScaling::Spec,
            flavor: RedFlavor::Floyd,
            ecn: false,
            hard_drop: false,
        }
    }
}

impl RedConfig {
    /// ns-3.44's `RedQueueDisc` attribute defaults (25 packets, `MeanPktSize` 500, hard drop)
    /// and its rules ([`RedFlavor::Ns3`], [`ByteScaling::Ns3`]).
    pub fn ns3() -> Self {
        RedConfig {
            limit: QueueLimit::Packets(25),
            mean_pkt_size: ByteSize(500),
            byte_scaling: ByteScaling::Ns3,
            flavor: RedFlavor::Ns3,
            hard_drop: true,
            ..RedConfig::default()
        }
    }

    /// The discipline's settings on a link of `link` (`None`: [`DEFAULT_BANDWIDTH`] unless
    /// `bandwidth` is given); checks every field (the error names it).
    pub fn settings(&self, link: Option<Rate>) -> Result<RedSettings, (&'static str, String)> {
        check_common(self.limit, self.max_p, self.mean_pkt_size, self.bandwidth)?;
        let bytes_mode = matches!(self.limit, QueueLimit::Bytes(_));
        let s = self.mean_pkt_size.0 as u32;
        let rate = self.bandwidth.or(link.unwrap_or(DEFAULT_BANDWIDTH));
        let given_min = self.min_th.value().map(|t| th_value(t, bytes_mode, "min_th")).transpose()?;
        let given_max = self.max_th.value().map(|t| th_value(t, bytes_mode, "max_th")).transpose()?;
        let pkt = if bytes_mode { s as f64 } else { 1.0 };
        let (min_th, max_th, w_q) = match self.params {
            RedRule::Floyd => (given_min.unwrap_or(5.0 * pkt), given_max.unwrap_or(15.0 * pkt), 0.002),
            RedRule::Linux => {
                let QueueLimit::Bytes(limit) = self.limit else {
                    return Err(("params", "\"linux\" needs a limit in bytes (tc red counts bytes)".into()));
                };
                let lp = linux_params(limit, s, given_max.map(|v| v as u64), given_min.map(|v| v as u64), None).map_err(|e| ("params", e))?;
                (lp.min as f64, lp.max as f64, lp.w_q())
            }
            RedRule::Target => {
                if self.min_th != Auto::Auto || self.max_th != Auto::Auto {
                    let f = if self.min_th != Auto::Auto { "min_th" } else { "max_th" };
                    return Err((f, "must be \"auto\" with params = \"target\" (derived from target and bandwidth)".into()));
                }
                if self.target == Dur::ZERO {
                    return Err(("target", "must be greater than zero".into()));
                }
                let base = RedSettings { mean_pkt_size: s, link_rate: rate, limit: self.limit, ..RedSettings::ns3_defaults(rate) };
                let a = RedSettings::adaptive(base, self.target, AredParams::standard(0.01));
                (a.min_th, a.max_th, 0.002)
            }
        };
        if max_th <= min_th {
            return Err(("max_th", format!("must be greater than min_th ({}), got {}", th_show(min_th, bytes_mode), th_show(max_th, bytes_mode))));
        }
        let w_q = self.w_q.or(w_q);
        if !(w_q > 0.0 && w_q <= 1.0) {
            return Err(("w_q", format!("must be in (0, 1], got {w_q}")));
        }
        Ok(RedSettings {
            limit: self.limit,
            min_th,
            max_th,
            max_p: self.max_p,
            w_q,
            gentle: self.gentle,
            wait: self.wait,
            mean_pkt_size: s,
            link_rate: rate,
            byte_scaling: self.byte_scaling,
            ecn: self.ecn,
            hard_drop: self.hard_drop,
            flavor: self.flavor,
            variant: RedVariant::Classic,
        })
    }
}

/// `{ kind = "ared", limit = "900pkt", ... }`: Adaptive RED. Thresholds and `w_q` come from
/// the link and `target`; only `limit` is required.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AredConfig {
    pub limit: QueueLimit,
    pub target: Dur,
    pub interval: Dur,
    /// Initial `max_p`.
    pub max_p: f64,
    pub top: f64,
    /// `"auto"`: 0.01, or ns-3's `min(0.01, 8·s·rtt/bandwidth)` under `flavor = "ns3"`.
    pub bottom: Auto<f64>,
    pub alpha: f64,
    pub beta: f64,
    /// RTT of ns-3's bottom rule.
    pub rtt: Dur,
    pub wait: bool,
    pub mean_pkt_size: ByteSize,
    pub bandwidth: Auto<Rate>,
    pub byte_scaling: ByteScaling,
    pub flavor: RedFlavor,
    pub ecn: bool,
    pub hard_drop: bool,
}

impl Default for AredConfig {
    fn default() -> Self {
        AredConfig {
            limit: QueueLimit::Packets(1000),
            target: Dur::from_millis(5),
            interval: Dur::from_millis(500),
            max_p: 0.02,
            top: 0.5,
            bottom: Auto::Auto,
            alpha: 0.01,
            beta: 0.9,
            rtt: Dur::from_millis(100),
            wait: true,
            mean_pkt_size: ByteSize(1000),
            bandwidth: Auto::Auto,
            byte_scaling: ByteScaling::Spec,
            flavor: RedFlavor::Floyd,
            ecn: false,
            hard_drop: false,
        }
    }
}

impl AredConfig {
    /// ns-3.44's `RedQueueDisc` with `ARED = true`.
    pub fn ns3() -> Self {
        AredConfig {
            limit: QueueLimit::Packets(25),
            mean_pkt_size: ByteSize(500),
            byte_scaling: ByteScaling::Ns3,
            flavor: RedFlavor::Ns3,
            hard_drop: true,
            ..AredConfig::default()
        }
    }

    pub fn settings(&self, link: Option<Rate>) -> Result<RedSettings, (&'static str, String)> {
        check_common(self.limit, self.max_p, self.mean_pkt_size, self.bandwidth)?;
        let pos = |v: f64, f: &'static str| if v > 0.0 && v <= 1.0 { Ok(()) } else { Err((f, format!("must be > 0 and at most 1, got {v}"))) };
        if self.alpha.is_nan() || self.alpha <= 0.0 {
            return Err(("alpha", "must be > 0".into()));
        }
        pos(self.alpha, "alpha")?;
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(("beta", format!("must be in (0, 1), got {}", self.beta)));
        }
        pos(self.top, "top")?;
        for (d, f) in [(self.target, "target"), (self.interval, "interval"), (self.rtt, "rtt")] {
            if d == Dur::ZERO {
                return Err((f, "must be greater than zero".into()));
            }
        }
        let s = self.mean_pkt_size.0 as u32;
        let rate = self.bandwidth.or(link.unwrap_or(DEFAULT_BANDWIDTH));
        let bottom = match self.bottom {
            Auto::Value(b) => b,
            Auto::Auto if self.flavor == RedFlavor::Ns3 => ared_bottom_ns3(rate, s, self.rtt),
            Auto::Auto => 0.01,
        };
        if !(bottom > 0.0 && bottom < self.top) {
            return Err(("bottom", format!("must be > 0 and below top ({}), got {bottom}", self.top)));
        }
        let base = RedSettings {
            limit: self.limit,
            max_p: self.max_p,
            wait: self.wait,
            mean_pkt_size: s,
            link_rate: rate,
            byte_scaling: self.byte_scaling,
            ecn: self.ecn,
            hard_drop: self.hard_drop,
            flavor: self.flavor,
            ..RedSettings::ns3_defaults(rate)
        };
        let params = AredParams { interval: self.interval, top: self.top, bottom, alpha: self.alpha, beta: self.beta };
        Ok(RedSettings::adaptive(base, self.target, params))
    }
}

impl QdiscParams for RedConfig {
    const REQUIRED: &'static [&'static str] = &["limit"];
    fn for_profile(profile: Profile) -> Self {
        match profile {
            Profile::Sluice => RedConfig::default(),
            Profile::Ns3_44 => RedConfig::ns3(),
        }
    }
    fn validate(&self) -> Result<(), ParamError> {
        self.settings(None).map(|_| ()).map_err(|(f, m)| ParamError::new(f, m))
    }
}

impl QdiscParams for AredConfig {
    const REQUIRED: &'static [&'static str] = &["limit"];
    fn for_profile(profile: Profile) -> Self {
        match profile {
            Profile::Sluice => AredConfig::default(),
            Profile::Ns3_44 => AredConfig::ns3(),
        }
    }
    fn validate(&self) -> Result<(), ParamError> {
        self.settings(None).map(|_| ()).map_err(|(f, m)| ParamError::new(f, m))
    }
}

/// A config that yields RED's settings: [`RedConfig`] or [`AredConfig`].
pub trait RedSource {
    fn red_settings(&self) -> Result<RedSettings, (&'static str, String)>;
}

impl RedSource for RedConfig {
    fn red_settings(&self) -> Result<RedSettings, (&'static str, String)> {
        self.settings(None)
    }
}

impl RedSource for AredConfig {
    fn red_settings(&self) -> Result<RedSettings, (&'static str, String)> {
        self.settings(None)
    }
}

/// RED's state: the average, the spacing count, the idle clock, `max_p` under ARED.
#[derive(Clone, Debug)]
pub(crate) struct RedCore {
    pub cfg: RedSettings,
    pub avg: f64,
    /// Floyd: −1 below `min_th`, then packets since the last drop. ns-3: `m_count`.
    pub count: i64,
    /// ns-3 byte mode: bytes since the last drop (`m_countBytes`).
    count_bytes: u64,
    /// ns-3's `m_old`: the average was at or above `min_th` (with more than one queued) at the
    /// previous arrival.
    old: bool,
    idle: bool,
    idle_since: Time,
    pub cur_max_p: f64,
    last_set: Time,
    ptc: f64,
    bytes_mode: bool,
}

/// What RED decided for an arrival (before the physical limit).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Pass,
    Early,
    Forced,
}

impl RedCore {
    pub fn new(cfg: RedSettings) -> RedCore {
        RedCore {
            cfg,
            avg: 0.0,
            count: match cfg.flavor {
                RedFlavor::Floyd => -1,
                RedFlavor::Ns3 => 0,
            },
            count_bytes: 0,
            old: false,
            idle: true,
            idle_since: Time::ZERO,
            cur_max_p: cfg.max_p,
            last_set: Time::ZERO,
            ptc: ptc(cfg.link_rate, cfg.mean_pkt_size),
            bytes_mode: matches!(cfg.limit, QueueLimit::Bytes(_)),
        }
    }

    /// The queue length in the unit of the thresholds.
    pub fn q_of(&self, occ: Occupancy) -> f64 {
        if self.bytes_mode {
            occ.bytes as f64
        } else {
            occ.packets as f64
        }
    }

    /// Update the average for an arrival that finds `q` queued at `now` (idle decay first),
    /// then adapt `max_p` under ARED.
    pub fn update_avg(&mut self, q: f64, now: Time) {
        let mut m = 0.0;
        if self.idle {
            // Small packets that could have been sent while idle (ns-3 truncates to an integer).
            m = (self.ptc * now.since(self.idle_since).as_secs_f64()).floor();
            if !m.is_finite() {
                m = 0.0;
            }
            self.idle = false;
        }
        let w = self.cfg.w_q;
        self.avg = self.avg * (1.0 - w).powf(m + 1.0) + w * q;
        if let RedVariant::Adaptive(a) = self.cfg.variant {
            if now > self.last_set + a.interval {
                self.adapt(a, now);
            }
        }
    }

    /// One ARED step: `max_p` up by `min(alpha, max_p/4)` above the band, times `beta` below.
    fn adapt(&mut self, a: AredParams, now: Time) {
        let part = 0.4 * (self.cfg.max_th - self.cfg.min_th);
        if self.avg < self.cfg.min_th + part && self.cur_max_p > a.bottom {
            self.cur_max_p *= a.beta;
            self.last_set = now;
        } else if self.avg > self.cfg.max_th - part && a.top > self.cur_max_p {
            self.cur_max_p += a.alpha.min(0.25 * self.cur_max_p);
            self.last_set = now;
        } else if self.cfg.flavor == RedFlavor::Floyd {
            // The paper adapts on a timer: the clock restarts whether or not max_p moved.
            self.last_set = now;
        }
    }

    /// Whether the average is at or above the forced-drop threshold.
    fn forced_region(&self) -> bool {
        let lim = if self.cfg.gentle { 2.0 * self.cfg.max_th } else { self.cfg.max_th };
        self.avg >= lim
    }

    /// `p_b` for the current average (between `min_th` and the forced region).
    pub fn p_b(&self) -> f64 {
        let c = &self.cfg;
        let p = if self.avg >= c.max_th {
            if c.gentle {
                // ns-3 computes the gentle slope once, from the initial max_p.
                let mp = if c.flavor == RedFlavor::Ns3 { c.max_p } else { self.cur_max_p };
                mp + (1.0 - mp) * (self.avg - c.max_th) / c.max_th
            } else {
                1.0
            }
        } else {
            let diff = if c.max_th > c.min_th { c.max_th - c.min_th } else { 1.0 };
            self.cur_max_p * (self.avg - c.min_th) / diff
        };
        p.min(1.0)
    }

    /// The uniform spacing: `p_a` from `p_b`, `count` and the packet's length.
    pub fn p_a(&self, p_b: f64, len: u32) -> f64 {
        let c = &self.cfg;
        let s = c.mean_pkt_size as f64;
        let ns3_bytes = self.bytes_mode && c.byte_scaling == ByteScaling::Ns3;
        let (mut p, count) = if ns3_bytes {
            (p_b, (self.count_bytes / c.mean_pkt_size as u64) as f64)
        } else if self.bytes_mode {
            (p_b * len as f64 / s, self.count as f64)
        } else {
            (p_b, self.count as f64)
        };
        let cp = count * p;
        p = if c.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            p / (1.0 - cp)
        } else {
            1.0
        };
        if ns3_bytes && p < 1.0 {
            p = p * len as f64 / s;
        }
        p.min(1.0)
    }

    /// RED's decision for an arrival of `len` bytes that finds `occ` queued at `now`. Updates the
    /// average, the count and (for early drops) draws from `rng`.
    pub fn arrival(&mut self, occ: Occupancy, len: u32, now: Time, rng: &mut crate::rng::RngStream) -> Verdict {
        let q = self.q_of(occ);
        self.update_avg(q, now);
        self.decide(q, len, rng)
    }

    /// RED's decision once the average has been updated; `q` is the queue the arrival found.
    pub fn decide(&mut self, q: f64, len: u32, rng: &mut crate::rng::RngStream) -> Verdict {
        match self.cfg.flavor {
            RedFlavor::Ns3 => self.arrival_ns3(q, len, rng),
            RedFlavor::Floyd => self.arrival_floyd(len, rng),
        }
    }

    fn arrival_floyd(&mut self, len: u32, rng: &mut crate::rng::RngStream) -> Verdict {
        if self.avg < self.cfg.min_th {
            self.count = -1;
            return Verdict::Pass;
        }
        if self.forced_region() {
            self.count = 0;
            return Verdict::Forced;
        }
        self.count += 1;
        let p = self.p_a(self.p_b(), len);
        if rng.uniform() < p {
            self.count = 0;
            Verdict::Early
        } else {
            Verdict::Pass
        }
    }

    fn arrival_ns3(&mut self, q: f64, len: u32, rng: &mut crate::rng::RngStream) -> Verdict {
        self.count += 1;
        self.count_bytes += len as u64;
        if self.avg >= self.cfg.min_th && q > 1.0 {
            if self.forced_region() {
                return Verdict::Forced;
            }
            if !self.old {
                // Just crossed min_th (or the queue just became non-trivial): restart the count.
                self.count = 1;
                self.count_bytes = len as u64;
                self.old = true;
                return Verdict::Pass;
            }
            let p = self.p_a(self.p_b(), len);
            let u = rng.uniform();
            if u < p {
                self.count = 0;
                self.count_bytes = 0;
                return Verdict::Early;
            }
            Verdict::Pass
        } else {
            self.old = false;
            Verdict::Pass
        }
    }

    /// A dequeue at `now` found the queue empty (`was_empty`) or left it empty (`now_empty`).
    pub fn on_dequeue(&mut self, now: Time, was_empty: bool, now_empty: bool) {
        match self.cfg.flavor {
            RedFlavor::Ns3 => {
                if was_empty {
                    self.idle = true;
                    self.idle_since = now;
                } else {
                    self.idle = false;
                }
            }
            RedFlavor::Floyd => {
                if (now_empty || was_empty) && !self.idle {
                    self.idle = true;
                    self.idle_since = now;
                }
            }
        }
    }

    /// Whether a marked-or-dropped packet is marked: ECN on, the packet ECT, and (for forced
    /// decisions) hard drop off.
    pub fn marks(&self, v: Verdict, ecn: Ecn) -> bool {
        let ect = matches!(ecn, Ecn::Ect0 | Ecn::Ect1 | Ecn::Ce);
        self.cfg.ecn && ect && (v == Verdict::Early || !self.cfg.hard_drop)
    }
}

/// A FIFO with an occupancy count, shared by the single-queue AQMs.
#[derive(Debug)]
pub(crate) struct Fifo<P> {
    pub q: VecDeque<P>,
    pub bytes: u64,
}

impl<P: Queued> Fifo<P> {
    pub fn new() -> Fifo<P> {
        Fifo { q: VecDeque::new(), bytes: 0 }
    }
    pub fn occ(&self) -> Occupancy {
        Occupancy { packets: self.q.len() as u32, bytes: self.bytes }
    }
    pub fn fits(&self, limit: QueueLimit, len: u32) -> bool {
        match limit {
            QueueLimit::Packets(n) => (self.q.len() as u64) < n as u64,
            QueueLimit::Bytes(b) => self.bytes + len as u64 <= b,
        }
    }
    pub fn push(&mut self, mut p: P, now: Time) {
        p.stamp(now);
        self.bytes += p.len_bytes() as u64;
        self.q.push_back(p);
    }
    pub fn pop(&mut self) -> Option<P> {
        let p = self.q.pop_front()?;
        self.bytes -= p.len_bytes() as u64;
        Some(p)
    }
    pub fn remove(&mut self, i: usize) -> Option<P> {
        let p = self.q.remove(i)?;
        self.bytes -= p.len_bytes() as u64;
        Some(p)
    }
}

/// Carry out RED's verdict `v` on `pkt`: mark or drop, then the physical limit.
pub(crate) fn admit<P: Queued>(core: &mut RedCore, fifo: &mut Fifo<P>, v: Verdict, mut pkt: P, len: u32, now: Time) -> Enqueue<P> {
    let mut mark = None;
    if v != Verdict::Pass {
        let early = v == Verdict::Early;
        if core.marks(v, pkt.ecn()) {
            pkt.set_ce();
            mark = Some(if early { MarkReason::RedEarly } else { MarkReason::RedForced });
        } else {
            return Enqueue::Dropped(if early { DropReason::RedEarly } else { DropReason::RedForced }, pkt);
        }
    }
    if !fifo.fits(core.cfg.limit, len) {
        return Enqueue::Dropped(DropReason::Overlimit, pkt);
    }
    fifo.push(pkt, now);
    match mark {
        Some(r) => Enqueue::QueuedMarked(r),
        None => Enqueue::Queued,
    }
}

/// RED or Adaptive RED over one FIFO.
#[derive(Debug)]
pub struct Red<P> {
    core: RedCore,
    fifo: Fifo<P>,
}

impl<P: Queued> Red<P> {
    pub fn new(cfg: RedSettings) -> Red<P> {
        Red { core: RedCore::new(cfg), fifo: Fifo::new() }
    }
    /// From a validated config (`bandwidth = "auto"` is the link's rate once the config went
    /// through `QdiscConfig::on_link`, else [`DEFAULT_BANDWIDTH`]). RED draws nothing here.
    pub fn from_config<C: RedSource>(cfg: &C, _rng: &mut RngStream) -> Red<P> {
        Red::new(cfg.red_settings().unwrap_or_else(|(f, m)| panic!("an unvalidated RED config: {f}: {m}")))
    }
    /// The current average queue (in the unit of the limit).
    pub fn avg(&self) -> f64 {
        self.core.avg
    }
    /// The current `max_p` (adapted under ARED).
    pub fn max_p(&self) -> f64 {
        self.core.cur_max_p
    }
    pub fn config(&self) -> &RedSettings {
        &self.core.cfg
    }
}

impl<P: Queued> QueueDisc<P> for Red<P> {
    fn name(&self) -> &'static str {
        match self.core.cfg.variant {
            RedVariant::Classic => "red",
            RedVariant::Adaptive(_) => "ared",
        }
    }

    fn enqueue(&mut self, pkt: P, now: Time, cx: &mut QdiscCx<'_, P>) -> Enqueue<P> {
        let len = pkt.len_bytes();
        let v = self.core.arrival(self.fifo.occ(), len, now, cx.rng);
        admit(&mut self.core, &mut self.fifo, v, pkt, len, now)
    }

    fn dequeue(&mut self, now: Time, _cx: &mut QdiscCx<'_, P>) -> Option<Dequeued<P>> {
        let p = self.fifo.pop();
        self.core.on_dequeue(now, p.is_none(), self.fifo.q.is_empty());
        p.map(Dequeued::plain)
    }

    fn occupancy(&self) -> Occupancy {
        self.fifo.occ()
    }

    fn limit(&self) -> QueueLimit {
        self.core.cfg.limit
    }
}

#[cfg(test)]
mod tests {
    use super::super::testpkt::TestPkt;
    use super::*;
    use crate::rng::RngStream;

    fn floyd(limit: u32) -> RedSettings {
        RedSettings { flavor: RedFlavor::Floyd, limit: QueueLimit::Packets(limit), ..RedSettings::ns3_defaults(Rate::mbps(10)) }
    }

    // tests RED's average: constant queue of 10 for 500 arrivals from avg 0 with w_q 0.002:
    // avg = 10·(1 − 0.998^500) = 10·(1 − 0.367511) = 6.3249; p_b = 0.02·(6.3249 − 5)/10 =
    // 0.0026498; without wait at count 100: p_a = p_b/(1 − 100·p_b) = 0.0026498/0.73502 = 0.003605.
    #[test]
    fn average_and_spacing_match_hand_values() {
        let mut c = RedCore::new(RedSettings { wait: false, ..floyd(1000) });
        let occ = Occupancy { packets: 10, bytes: 10_000 };
        for i in 0..500u64 {
            // back-to-back arrivals, never idle after the first
            c.update_avg(c.q_of(occ), Time(i));
            c.idle = false;
        }
        assert!((c.avg - 6.3249).abs() < 5e-5, "avg {}", c.avg);
        let pb = c.p_b();
        assert!((pb - 0.002650).abs() < 5e-7, "p_b {pb}");
        c.count = 100;
        let pa = c.p_a(pb, 1000);
        assert!((pa - 0.003605).abs() < 5e-7, "p_a {pa}");
        // With wait, count·p_b = 0.265 < 1: no drop yet; at count 500 (1.325): p_b/(2 − 1.325).
        let w = RedCore { cfg: RedSettings { wait: true, ..c.cfg }, ..c.clone() };
        assert_eq!(w.p_a(pb, 1000), 0.0);
        let w500 = RedCore { count: 500, ..w.clone() };
        assert!((w500.p_a(pb, 1000) - pb / (2.0 - 500.0 * pb)).abs() < 1e-12);
    }

    // tests RED's idle decay: after an idle period of 1 s at 10 Mbit/s and s = 500 B, ptc =
    // 2500 pkt/s, so m = 2500 and avg ← avg·0.998^2501 + 0.002·0 (= 6.3249·0.00668 ≈ 0.0423).
    #[test]
    fn idle_period_decays_the_average() {
        let mut c = RedCore::new(floyd(1000));
        c.avg = 6.3249;
        c.on_dequeue(Time(0), false, true); // the queue empties at 0
        c.update_avg(0.0, Time::from_secs_f64(1.0));
        let want = 6.3249 * 0.998f64.powi(2501);
        assert!((c.avg - want).abs() < 1e-12 && (c.avg - 0.0423).abs() < 1e-3, "avg {}", c.avg);
        // not idle any more: the next update is one ordinary step
        c.update_avg(0.0, Time::from_secs_f64(2.0));
        assert!((c.avg - want * 0.998).abs() < 1e-12);
    }

    // tests ns-3's idle start: the idle clock starts when a dequeue finds the queue empty, not
    // when the last packet leaves; under Floyd it starts when the queue empties.
    #[test]
    fn ns3_idle_starts_at_the_empty_dequeue() {
        for (flavor, start) in [(RedFlavor::Ns3, 0.5), (RedFlavor::Floyd, 0.0)] {
            let mut c = RedCore::new(RedSettings { flavor, ..floyd(1000) });
            c.idle = false;
            c.avg = 6.0;
            c.on_dequeue(Time(0), false, true);
            c.on_dequeue(Time::from_secs_f64(0.5), true, true);
            c.update_avg(0.0, Time::from_secs_f64(1.0));
            let m: f64 = (2500.0f64 * (1.0 - start)).floor();
            assert!((c.avg - 6.0 * 0.998f64.powf(m + 1.0)).abs() < 1e-12, "{flavor:?}");
        }
    }

    // tests iproute2's rules: limit 400,000 B, avpkt 1000 → max 100,000, min 33,333,
    // burst (66,666 + 100,000)/3000 = 55, a = 56 − 33.333 = 22.667; (1 − (31/32)^55)·32 = 26.4 ≥ a
    // while W = 1/16 gives 15.5 < a → Wlog 5.
    #[test]
    fn linux_parameter_rules() {
        let p = linux_params(400_000, 1000, None, None, None).unwrap();
        assert_eq!(p, LinuxRedParams { max: 100_000, min: 33_333, burst: 55, wlog: 5 });
        assert_eq!(p.w_q(), 1.0 / 32.0);
        assert!(linux_params(400_000, 1000, None, None, Some(10)).is_err()); // 11 − 33.3 < 1
    }

    // tests ARED adaptation: band [5 + 4, 15 − 4] = [9, 11]; above: 0.02 + min(0.01, 0.005) =
    // 0.025; below: 0.02·0.9 = 0.018; inside: unchanged. Only after the interval has passed.
    #[test]
    fn ared_max_p_steps() {
        let base = RedSettings { variant: RedVariant::Adaptive(AredParams::standard(0.01)), ..RedSettings::ns3_defaults(Rate::mbps(10)) };
        let t = Time::from_secs_f64(0.6);
        for (avg, want) in [(12.0, 0.025), (8.0, 0.018), (10.0, 0.02)] {
            let mut c = RedCore::new(base);
            c.idle = false;
            c.avg = avg / (1.0 - base.w_q); // so that the update leaves avg at `avg` with q = 0
            c.update_avg(0.0, Time::from_secs_f64(0.4)); // before the interval: no change
            assert_eq!(c.cur_max_p, 0.02);
            c.avg = avg / (1.0 - base.w_q);
            c.update_avg(0.0, t);
            assert!((c.cur_max_p - want).abs() < 1e-12, "avg {avg}: {}", c.cur_max_p);
        }
        // bounds: never above top, never decreased at or below bottom
        let mut c = RedCore::new(base);
        c.cur_max_p = 0.5;
        c.idle = false;
        c.avg = 14.0 / (1.0 - base.w_q);
        c.update_avg(0.0, t);
        assert_eq!(c.cur_max_p, 0.5);
        c.cur_max_p = 0.01;
        c.avg = 1.0;
        c.update_avg(0.0, Time::from_secs_f64(2.0));
        assert_eq!(c.cur_max_p, 0.01);
    }

    // tests ARED's automatic parameters: 833 pkt/s (3.332 Mbit/s at 500 B): target queue
    // 0.005·833 = 4.165 pkts, /2 < 5 → min_th 5, max_th 15; w_q = 1 − e^(−1/833) = 0.0012; ns-3's
    // bottom min(0.01, 8·500·0.1/3.332e6 = 0.00012) = 0.00012.
    #[test]
    fn ared_automatic_parameters() {
        let rate = Rate(833 * 8 * 500);
        let c = RedSettings::adaptive(RedSettings::ns3_defaults(rate), Dur::from_millis(5), AredParams::standard(0.01));
        assert_eq!((c.min_th, c.max_th), (5.0, 15.0));
        assert!((c.w_q - 0.0012).abs() < 5e-6, "w_q {}", c.w_q);
        assert!(c.gentle);
        assert!((ared_bottom_ns3(rate, 500, Dur::from_millis(100)) - 0.00012005).abs() < 1e-7);
        // 100 Mbit/s: C = 25,000 pkt/s, target queue 125 → min_th 62.5, max_th 187.5
        let c = RedSettings::adaptive(RedSettings::ns3_defaults(Rate::mbps(100)), Dur::from_millis(5), AredParams::standard(0.01));
        assert_eq!((c.min_th, c.max_th), (62.5, 187.5));
    }

    // tests the gentle ramp: p_b = max_p at max_th, rising linearly to 1 at 2·max_th; without
    // gentle the region above max_th is forced.
    #[test]
    fn gentle_ramp_and_forced_region() {
        let mut c = RedCore::new(floyd(1000));
        c.avg = 22.5; // halfway between 15 and 30: 0.02 + 0.98·0.5 = 0.51
        assert!((c.p_b() - 0.51).abs() < 1e-12);
        assert!(!c.forced_region());
        c.avg = 30.0;
        assert!(c.forced_region());
        let mut c = RedCore::new(RedSettings { gentle: false, ..floyd(1000) });
        c.avg = 15.0;
        assert!(c.forced_region());
    }

    // tests byte-mode scaling: a 1500 B packet with s = 500 triples the probability; under "spec"
    // before the spacing (count 0, no wait: p_a = 3·p_b), under "ns3" after it.
    #[test]
    fn byte_mode_scaling_variants() {
        let base = RedSettings { limit: QueueLimit::Bytes(100_000), wait: false, ..floyd(0) };
        let mut spec = RedCore::new(RedSettings { byte_scaling: ByteScaling::Spec, ..base });
        spec.count = 10;
        // count·p = 10·0.03 = 0.3: p_a = 0.03/0.7
        assert!((spec.p_a(0.01, 1500) - 0.03 / 0.7).abs() < 1e-12);
        let mut ns3 = RedCore::new(RedSettings { byte_scaling: ByteScaling::Ns3, ..base });
        ns3.count_bytes = 5250; // 5250/500 = 10 (integer division)
        // 0.01/(1 − 0.1) = 0.011111, then ·3 = 0.033333
        assert!((ns3.p_a(0.01, 1500) - 0.01 / 0.9 * 3.0).abs() < 1e-12);
    }

    fn run(q: &mut Red<TestPkt>, rng: &mut RngStream, pkt: TestPkt, t: Time) -> Enqueue<TestPkt> {
        let mut v = Vec::new();
        q.enqueue(pkt, t, &mut QdiscCx { rng, dequeue_drops: &mut v })
    }

    // tests ns-3's guards: with one packet queued no drop happens however high the average, and
    // the first arrival with the average above min_th restarts the count instead of dropping.
    #[test]
    fn ns3_guards() {
        let mut rng = RngStream::from_seed(3);
        let mut q: Red<TestPkt> = Red::new(RedSettings { limit: QueueLimit::Packets(100), ..RedSettings::ns3_defaults(Rate::mbps(10)) });
        q.core.idle = false;
        assert!(matches!(run(&mut q, &mut rng, TestPkt::new(0, 500), Time(0)), Enqueue::Queued));
        q.core.avg = 40.0; // far into the forced region
        // one packet queued: nQueued > 1 fails, so no drop, and `old` is cleared
        assert!(matches!(run(&mut q, &mut rng, TestPkt::new(1, 500), Time(1)), Enqueue::Queued));
        q.core.avg = 40.0;
        // two queued: forced
        assert!(matches!(run(&mut q, &mut rng, TestPkt::new(2, 500), Time(2)), Enqueue::Dropped(DropReason::RedForced, _)));
        q.core.avg = 9.0;
        assert!(!q.core.old);
        // first arrival in the band: never dropped, count restarts at 1
        assert!(matches!(run(&mut q, &mut rng, TestPkt::new(3, 500), Time(3)), Enqueue::Queued));
        assert_eq!(q.core.count, 1);
        assert!(q.core.old);
    }

    // tests ECN: an early decision marks an ECT packet (queued, CE) and drops a Not-ECT one; a
    // forced decision drops even ECT with hard drop and marks it without.
    #[test]
    fn ecn_marks_ect_and_drops_not_ect() {
        let mut rng = RngStream::from_seed(1);
        let base = RedSettings { ecn: true, limit: QueueLimit::Packets(100), ..floyd(100) };
        let mut q: Red<TestPkt> = Red::new(base);
        q.core.idle = false;
        let ect = |id| TestPkt { ecn: Ecn::Ect0, ..TestPkt::new(id, 500) };
        for i in 0..3 {
            run(&mut q, &mut rng, ect(100 + i), Time(0));
        }
        // in the band with count·p_b ≥ 2: p_a = 1 (wait)
        q.core.avg = 14.9;
        q.core.count = 1000;
        assert!(matches!(run(&mut q, &mut rng, ect(1), Time(1)), Enqueue::QueuedMarked(_)));
        assert_eq!(q.fifo.q.back().unwrap().ecn, Ecn::Ce);
        q.core.avg = 14.9;
        q.core.count = 1000;
        assert!(matches!(run(&mut q, &mut rng, TestPkt::new(2, 500), Time(2)), Enqueue::Dropped(DropReason::RedEarly, _)));
        q.core.avg = 40.0;
        assert!(matches!(run(&mut q, &mut rng, ect(3), Time(3)), Enqueue::Dropped(DropReason::RedForced, _)));
        q.core.cfg.hard_drop = false;
        q.core.avg = 40.0;
        assert!(matches!(run(&mut q, &mut rng, ect(4), Time(4)), Enqueue::QueuedMarked(_)));
    }

    // tests uniform spacing with wait at a steady average of 10 (p_b = 0.01): no drop while
    // count·p_b < 1 (count < 100), a certain drop at count·p_b = 2 (count 200), so every gap
    // between drops is 100..=200 arrivals and the drop rate lies between 1/200 and 1/100.
    #[test]
    fn early_drops_are_spaced() {
        let mut rng = RngStream::from_seed(9);
        let mut c = RedCore::new(RedSettings { w_q: 1e-9, ..floyd(1000) });
        c.idle = false;
        c.avg = 10.0; // p_b = 0.01
        let occ = Occupancy { packets: 10, bytes: 5000 };
        let mut drops = 0;
        let mut gaps = Vec::new();
        let mut since = 0;
        for i in 0..200_000u64 {
            c.avg = 10.0;
            since += 1;
            if c.arrival(occ, 500, Time(i), &mut rng) == Verdict::Early {
                drops += 1;
                gaps.push(since);
                since = 0;
            }
        }
        // wait: no drop before count·p_b ≥ 1 (100 packets), always by count·p_b = 2 (200).
        assert!(gaps.iter().skip(1).all(|&g| (100..=200).contains(&g)), "{:?}", &gaps[..10]);
        let rate = drops as f64 / 200_000.0;
        assert!(rate > 1.0 / 200.0 && rate < 1.0 / 100.0, "rate {rate}");
    }

    // tests the scenario-facing config: the Linux rule from limit 400,000 B and avpkt 1000
    // (min 33,333 B, max 100,000 B, w_q 1/32), the target rule at 100 Mbit/s with s = 500 B
    // (C = 25,000 pkt/s → min 62.5, max 187.5 pkt), and the errors, each naming its field.
    #[test]
    fn config_rules_and_errors() {
        let linux = RedConfig { limit: QueueLimit::Bytes(400_000), params: RedRule::Linux, ..RedConfig::default() };
        let st = linux.settings(None).unwrap();
        assert_eq!((st.min_th, st.max_th, st.w_q), (33_333.0, 100_000.0, 1.0 / 32.0));
        assert_eq!(st.link_rate, DEFAULT_BANDWIDTH);
        let t = RedConfig { params: RedRule::Target, mean_pkt_size: ByteSize(500), ..RedConfig::default() };
        let st = t.settings(Some(Rate::mbps(100))).unwrap();
        assert_eq!((st.min_th, st.max_th, st.w_q, st.link_rate), (62.5, 187.5, 0.002, Rate::mbps(100)));
        let d = RedConfig::default().settings(Some(Rate::mbps(10))).unwrap();
        assert_eq!((d.min_th, d.max_th, d.w_q, d.max_p, d.gentle, d.wait), (5.0, 15.0, 0.002, 0.02, true, true));
        let e = |c: RedConfig| c.settings(None).unwrap_err();
        assert_eq!(e(RedConfig { max_th: Auto::Value(QueueLimit::Packets(3)), ..RedConfig::default() }), ("max_th", "must be greater than min_th (5pkt), got 3pkt".to_string()));
        assert_eq!(e(RedConfig { min_th: Auto::Value(QueueLimit::Bytes(3)), ..RedConfig::default() }).0, "min_th");
        assert_eq!(e(RedConfig { params: RedRule::Linux, ..RedConfig::default() }).0, "params");
        assert_eq!(e(RedConfig { w_q: Auto::Value(0.0), ..RedConfig::default() }).0, "w_q");
        assert_eq!(e(RedConfig { max_p: 1.5, ..RedConfig::default() }).0, "max_p");
        assert_eq!(e(RedConfig { params: RedRule::Target, min_th: Auto::Value(QueueLimit::Packets(9)), ..RedConfig::default() }).0, "min_th");
        let a = AredConfig::default();
        assert_eq!(AredConfig { alpha: 0.0, ..a.clone() }.settings(None).unwrap_err(), ("alpha", "must be > 0".to_string()));
        assert_eq!(AredConfig { beta: 1.0, ..a.clone() }.settings(None).unwrap_err().0, "beta");
        assert_eq!(AredConfig { bottom: Auto::Value(0.6), ..a.clone() }.settings(None).unwrap_err().0, "bottom");
        // ns-3 flavour: bottom from the link, 8·500·0.1/100e6 = 400/1e8 = 4e-6
        let st = AredConfig::ns3().settings(Some(Rate::mbps(100))).unwrap();
        let RedVariant::Adaptive(p) = st.variant else { panic!() };
        assert!((p.bottom - 4e-6).abs() < 1e-15);
        assert_eq!((st.min_th, st.max_th), (62.5, 187.5));
    }

    // tests tc red's rules where they bite, avpkt 1000 B, with min and burst given:
    //   min 3000, burst 3: a = 3 + 1 − 3 = 1, the least tc accepts; (1 − 0.5³)/0.5 = 1.75 ≥ 1
    //     at W = 1/2 → Wlog 1;
    //   min 1200, burst 2: a = 1.8; (1 − (1 − W)²)/W = 2 − W is 1.5, 1.75, 1.875 for W = 1/2,
    //     1/4, 1/8 → Wlog 3;
    //   min 1100, burst 2: a = 1.9 → W = 1/16 (2 − W = 1.9375) → Wlog 4;
    //   min 900, burst 1: a = 1.1, above (1 − (1 − W))/W = 1 for every W → refused.
    #[test]
    fn linux_parameter_rules_at_their_edges() {
        let lp = |min, burst| linux_params(400_000, 1000, Some(10_000), Some(min), Some(burst));
        assert_eq!(lp(3000, 3).map(|p| p.wlog), Ok(1));
        assert_eq!(lp(1200, 2).map(|p| p.wlog), Ok(3));
        assert_eq!(lp(1100, 2).map(|p| p.wlog), Ok(4));
        assert!(lp(900, 1).unwrap_err().contains("no averaging weight"));
        assert!(lp(3001, 3).unwrap_err().contains("too small"));
        assert!(linux_params(400_000, 0, None, None, None).is_err(), "avpkt 0");
    }

    // tests ARED's thresholds in byte mode and what it forces: at 10 Mbit/s and 1000 B,
    // C = 1250 pkt/s; a 20 ms target gives min_th = 0.02·1250/2 = 12.5 packets, 12,500 B in
    // byte mode (max_th three times that), w_q = 1 − e^(−1/1250), gentle on even over a base
    // without it.
    #[test]
    fn ared_thresholds_scale_to_bytes_and_gentle_is_forced() {
        let base = RedSettings { limit: QueueLimit::Bytes(200_000), mean_pkt_size: 1000, gentle: false, ..RedSettings::ns3_defaults(Rate::mbps(10)) };
        let a = RedSettings::adaptive(base, Dur::from_millis(20), AredParams::standard(0.01));
        assert_eq!((a.min_th, a.max_th), (12_500.0, 37_500.0));
        assert!((a.w_q - (1.0 - (-1.0f64 / 1250.0).exp())).abs() < 1e-15);
        assert!(a.gentle);
        let a = RedSettings::adaptive(RedSettings { limit: QueueLimit::Packets(200), ..base }, Dur::from_millis(20), AredParams::standard(0.01));
        assert_eq!((a.min_th, a.max_th), (12.5, 37.5));
        // The target rule of plain RED takes the same thresholds from the config's own mean
        // packet size and limit.
        let t = RedConfig { params: RedRule::Target, target: Dur::from_millis(20), limit: QueueLimit::Bytes(200_000), ..RedConfig::default() };
        let st = t.settings(Some(Rate::mbps(10))).unwrap();
        assert_eq!((st.min_th, st.max_th, st.mean_pkt_size, st.limit), (12_500.0, 37_500.0, 1000, QueueLimit::Bytes(200_000)));
        let st = RedConfig { limit: QueueLimit::Packets(200), ..t }.settings(Some(Rate::mbps(10))).unwrap();
        assert_eq!((st.min_th, st.max_th), (12.5, 37.5), "in packets of the config's 1000 B");
    }

    // tests the checks shared by RED, ARED and CHOKe at their edges (max_p in (0, 1],
    // mean_pkt_size from 1 B to 4,294,967,295 B), ARED's own (top and bottom, β in (0, 1)),
    // where ARED's automatic bottom comes from (0.01, or ns-3's rule under its flavour: 8 ·
    // 1000 · 0.1 / 10⁷ = 8·10⁻⁵ at 10 Mbit/s), and the ns-3 profiles.
    #[test]
    fn shared_checks_ared_bounds_and_ns3_profiles() {
        let e = |c: RedConfig| c.settings(None).map(|_| ()).map_err(|e| e.0);
        let d = RedConfig::default;
        assert_eq!(e(RedConfig { max_p: 0.0, ..d() }), Err("max_p"));
        assert_eq!(e(RedConfig { max_p: 1.0, ..d() }), Ok(()));
        assert_eq!(e(RedConfig { mean_pkt_size: ByteSize(0), ..d() }), Err("mean_pkt_size"));
        assert_eq!(e(RedConfig { mean_pkt_size: ByteSize(u32::MAX as u64), ..d() }), Ok(()));
        assert_eq!(e(RedConfig { mean_pkt_size: ByteSize(u32::MAX as u64 + 1), ..d() }), Err("mean_pkt_size"));
        assert_eq!(e(RedConfig { limit: QueueLimit::Packets(0), ..d() }), Err("limit"));
        assert_eq!(e(RedConfig { bandwidth: Auto::Value(Rate(0)), ..d() }), Err("bandwidth"));
        let a = |c: AredConfig| c.settings(None).map(|_| ()).map_err(|e| e.0);
        let ad = AredConfig::default;
        assert_eq!(a(ad()), Ok(()));
        assert_eq!(a(AredConfig { top: 0.0, ..ad() }), Err("top"));
        assert_eq!(a(AredConfig { top: 1.0, ..ad() }), Ok(()));
        assert_eq!(a(AredConfig { top: 1.5, ..ad() }), Err("top"));
        assert_eq!(a(AredConfig { alpha: 1.5, ..ad() }), Err("alpha"));
        assert_eq!(a(AredConfig { beta: 0.0, ..ad() }), Err("beta"));
        assert_eq!(a(AredConfig { bottom: Auto::Value(0.0), ..ad() }), Err("bottom"));
        assert_eq!(a(AredConfig { bottom: Auto::Value(0.5), ..ad() }), Err("bottom"), "bottom must be below top (0.5)");
        assert_eq!(a(AredConfig { target: Dur::ZERO, ..ad() }), Err("target"));
        let bottom = |c: AredConfig| match c.settings(Some(Rate::mbps(10))).unwrap().variant {
            RedVariant::Adaptive(p) => p.bottom,
            RedVariant::Classic => panic!("ARED is adaptive"),
        };
        assert_eq!(bottom(ad()), 0.01);
        assert!((bottom(AredConfig { flavor: RedFlavor::Ns3, ..ad() }) - 8e-5).abs() < 1e-15);
        let ns3 = RedConfig { limit: QueueLimit::Packets(25), mean_pkt_size: ByteSize(500), byte_scaling: ByteScaling::Ns3, flavor: RedFlavor::Ns3, hard_drop: true, ..d() };
        assert_eq!(RedConfig::for_profile(Profile::Ns3_44), ns3);
        assert_eq!(RedConfig::for_profile(Profile::Sluice), d());
        let ns3 = AredConfig { limit: QueueLimit::Packets(25), mean_pkt_size: ByteSize(500), byte_scaling: ByteScaling::Ns3, flavor: RedFlavor::Ns3, hard_drop: true, ..ad() };
        assert_eq!(AredConfig::for_profile(Profile::Ns3_44), ns3);
        assert_eq!(AredConfig::for_profile(Profile::Sluice), ad());
        assert_eq!(RedConfig { max_p: 0.0, ..d() }.validate().unwrap_err().field, "max_p");
        assert_eq!(AredConfig { top: 0.0, ..ad() }.validate().unwrap_err().field, "top");
    }

    // tests that ARED's settings carry every RED field the config gives (the rest are ns-3
    // RED's), and that max_p adapts only once more than `interval` (0.5 s) has passed since it
    // was last set: not at exactly 0.5 s, at 0.5 s + 1 ns (avg above the band: +0.005).
    #[test]
    fn ared_takes_its_fields_and_adapts_after_the_interval() {
        let c = AredConfig {
            limit: QueueLimit::Bytes(90_000),
            max_p: 0.1,
            wait: false,
            mean_pkt_size: ByteSize(1200),
            byte_scaling: ByteScaling::Ns3,
            ecn: true,
            hard_drop: true,
            flavor: RedFlavor::Ns3,
            ..AredConfig::default()
        };
        let st = c.settings(Some(Rate::mbps(10))).unwrap();
        assert_eq!(
            (st.limit, st.max_p, st.wait, st.mean_pkt_size, st.byte_scaling, st.ecn, st.hard_drop, st.flavor, st.link_rate),
            (QueueLimit::Bytes(90_000), 0.1, false, 1200, ByteScaling::Ns3, true, true, RedFlavor::Ns3, Rate::mbps(10))
        );
        let d = AredConfig::default().settings(Some(Rate::mbps(10))).unwrap();
        assert_eq!((d.limit, d.max_p, d.wait, d.mean_pkt_size, d.byte_scaling, d.ecn, d.hard_drop, d.flavor), (QueueLimit::Packets(1000), 0.02, true, 1000, ByteScaling::Spec, false, false, RedFlavor::Floyd));
        let base = RedSettings { variant: RedVariant::Adaptive(AredParams::standard(0.01)), ..RedSettings::ns3_defaults(Rate::mbps(10)) };
        for (t, want) in [(500_000_000, 0.02), (500_000_001, 0.025)] {
            let mut c = RedCore::new(base);
            c.idle = false;
            c.avg = 12.0 / (1.0 - base.w_q);
            c.update_avg(0.0, Time(t));
            assert!((c.cur_max_p - want).abs() < 1e-12, "at {t} ns: {}", c.cur_max_p);
        }
    }

    // tests ARED's band at its edges (min_th 5, max_th 15: the band is [9, 11]): an average
    // of exactly 9 or 11 is inside it and leaves max_p alone; and inside the band Floyd's
    // timer restarts anyway while ns-3's clock keeps the last change.
    #[test]
    fn ared_band_edges_and_the_clock_inside_it() {
        let base = RedSettings { variant: RedVariant::Adaptive(AredParams::standard(0.01)), ..RedSettings::ns3_defaults(Rate::mbps(10)) };
        let t = Time::from_secs_f64(0.6);
        for flavor in [RedFlavor::Floyd, RedFlavor::Ns3] {
            for avg in [9.0, 11.0] {
                let mut c = RedCore::new(RedSettings { flavor, ..base });
                c.idle = false;
                c.avg = avg;
                c.adapt(AredParams::standard(0.01), t);
                assert_eq!(c.cur_max_p, 0.02, "{flavor:?} at {avg}");
                assert_eq!(c.last_set, if flavor == RedFlavor::Floyd { t } else { Time::ZERO }, "{flavor:?}");
            }
        }
    }

    // tests the gentle ramp's slope: Floyd's from the current (adapted) max_p, ns-3's from the
    // configured one. Halfway from max_th 15 to 30 with max_p adapted to 0.1 (configured 0.02):
    // 0.1 + 0.9/2 = 0.55 against 0.02 + 0.98/2 = 0.51.
    #[test]
    fn the_gentle_slope_starts_from_the_adapted_or_the_configured_max_p() {
        for (flavor, want) in [(RedFlavor::Floyd, 0.55), (RedFlavor::Ns3, 0.51)] {
            let mut c = RedCore::new(RedSettings { flavor, ..RedSettings::ns3_defaults(Rate::mbps(10)) });
            c.cur_max_p = 0.1;
            c.avg = 22.5;
            assert!((c.p_b() - want).abs() < 1e-12, "{flavor:?}: {}", c.p_b());
        }
    }

    // tests the uniform spacing at cp = count · p_b = 1 (p_b 0.25, count 4): with `wait` the
    // first drop waits until cp reaches 1, then p_a = p_b/(2 − cp) = 0.25; and ns-3's byte mode,
    // which scales p_a by len/s only while below 1: at count·p_b ≥ 2 p_a is 1 for any length.
    #[test]
    fn spacing_at_its_edges() {
        let mut c = RedCore::new(RedSettings::ns3_defaults(Rate::mbps(10)));
        c.count = 4;
        assert_eq!(c.p_a(0.25, 500), 0.25);
        c.count = 3;
        assert_eq!(c.p_a(0.25, 500), 0.0, "cp 0.75: wait");
        let st = RedSettings { limit: QueueLimit::Bytes(100_000), mean_pkt_size: 1000, byte_scaling: ByteScaling::Ns3, ..RedSettings::ns3_defaults(Rate::mbps(10)) };
        let mut c = RedCore::new(st);
        c.count_bytes = 8_000; // 8 mean packets: cp = 2
        assert_eq!(c.p_a(0.25, 500), 1.0);
        c.count_bytes = 4_000; // cp = 1: 0.25, then × 500/1000
        assert_eq!(c.p_a(0.25, 500), 0.125);
    }

    // tests Floyd's arrival at the lower threshold: an average of exactly min_th (5) is in the
    // band (count goes on: 3 → 4), below it the count resets to −1.
    #[test]
    fn floyd_counts_from_min_th_and_resets_below() {
        let mut rng = RngStream::from_seed(1);
        for (avg, count) in [(5.0, 4), (4.9, -1), (0.0, -1)] {
            let mut c = RedCore::new(floyd(100));
            c.avg = avg;
            c.count = 3;
            let _ = c.decide(10.0, 500, &mut rng);
            assert_eq!(c.count, count, "avg {avg}");
        }
    }

    // tests ns-3's arrival in the band: the byte count grows by each arrival's length after
    // the count restarts (500 B at the crossing, then 700 B: 1200 B), and the draw drops with
    // certainty at p_a = 1 (count·p_b ≥ 2 under `wait`) and never at p_a = 0 (cp < 1).
    #[test]
    fn ns3_counts_bytes_and_drops_when_the_draw_is_below_p_a() {
        let mut rng = RngStream::from_seed(1);
        let mut c = RedCore::new(RedSettings::ns3_defaults(Rate::mbps(10)));
        c.avg = 5.0;
        assert_eq!(c.decide(10.0, 500, &mut rng), Verdict::Pass, "the crossing");
        assert_eq!((c.count, c.count_bytes), (1, 500));
        c.avg = 5.0; // p_b 0
        assert_eq!(c.decide(10.0, 700, &mut rng), Verdict::Pass);
        assert_eq!((c.count, c.count_bytes), (2, 1200));
        c.avg = 14.0; // p_b = 0.02 · 9/10 = 0.018; count 200 → cp 3.6: p_a 1
        c.count = 199;
        for _ in 0..20 {
            c.count = 199;
            assert_eq!(c.decide(10.0, 500, &mut rng), Verdict::Early);
        }
        c.count = 0; // cp 0.018: p_a 0 under `wait`
        for _ in 0..20 {
            c.count = 0;
            assert_eq!(c.decide(10.0, 500, &mut rng), Verdict::Pass);
        }
    }

    // tests the single-queue AQMs' byte limit: a packet fits while the bytes queued with it
    // stay within the limit (3000 B: two 1000 B packets queued leave room for a third, and
    // for nothing more; a packet limit counts packets).
    #[test]
    fn the_fifo_fits_a_packet_while_its_bytes_stay_within_the_limit() {
        let mut f: Fifo<TestPkt> = Fifo::new();
        let lim = QueueLimit::Bytes(3000);
        assert!(f.fits(lim, 1000));
        f.push(TestPkt::new(0, 1000), Time(0));
        f.push(TestPkt::new(1, 1000), Time(0));
        assert!(f.fits(lim, 1000));
        assert!(!f.fits(lim, 1001));
        f.push(TestPkt::new(2, 1000), Time(0));
        assert!(!f.fits(lim, 1));
        assert!(f.fits(QueueLimit::Packets(4), 60_000));
        assert!(!f.fits(QueueLimit::Packets(3), 1));
    }

    // tests what a RED queue reports: its average (w_q · q after one arrival finding q) and
    // its current max_p, the configured one until ARED adapts it.
    #[test]
    fn a_red_queue_reports_its_average_and_max_p() {
        let mut rng = RngStream::from_seed(1);
        let mut q: Red<TestPkt> = Red::new(RedSettings { w_q: 0.5, max_p: 0.04, limit: QueueLimit::Packets(100), ..floyd(100) });
        q.core.idle = false;
        for i in 0..4 {
            q.fifo.push(TestPkt::new(i, 500), Time(0));
        }
        let _ = run(&mut q, &mut rng, TestPkt::new(9, 500), Time(1));
        assert_eq!((q.avg(), q.max_p()), (2.0, 0.04));
        q.core.cur_max_p = 0.07;
        assert_eq!(q.max_p(), 0.07);
    }
}
