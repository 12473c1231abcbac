//! AWM, Active Window Management (Barbera, Lombardo, Panarello, Schembra, IEEE ICC 2007), as
//! summarised by the EWT paper §3.3.
//!
//! One suggested window `swnd`, shared by all flows, updated on every enqueue and dequeue at
//! the monitored queue by a discrete PI law on the queue length, and written into every ACK
//! whose window is larger:
//!
//! ```text
//! e = (q − q_ref)/MSS;   de = (q − q⁻)/MSS                 (packets)
//! Δ = −(α·e + β·de) / max(N, 1)
//! swnd ← clamp(swnd + MSS·Δ, MSS, swnd_max)
//! on each ACK: write min(W_r, swnd)
//! ```
//!
//! What survives of the paper's description: `swnd(t) = swnd(t⁻) + MSS·Δ(t)` on every segment
//! entering or leaving memory; `Δ` depends on the estimated flow count `N` and the memory in
//! use `q` through two user parameters `α`, `β`. The PI form, `q_ref` and every default are
//! Sluice's *fallback* reconstruction until Barbera et al.'s values are read
//! (docs/algorithms/network-return.md, "AWM"): `α = 0.002`, `β = 0.05`, `q_ref = B/4`,
//! `swnd₀ = 65,535`, `swnd_max = 2^30`. `flow_count = "oracle"` reproduces the EWT paper's runs.

use super::{flow_mss, GatewayView, Level, Proposal, QueueEvent, WindowController};
use crate::flows::{FlowCount, FlowEntry};
use crate::packet::{Desired, Floor, HeaderView};
use crate::qdisc::ParamError;
use crate::units::QueueLimit;
use serde::{Deserialize, Serialize};

/// `{ kind = "awm", alpha = 0.002, beta = 0.05, q_ref = "25%", swnd0 = 65535,
/// swnd_max = 1073741824, flow_count = "table", mss = 1460, mtu = 1500 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AwmConfig {
    /// Integral-like gain on the queue's distance from `q_ref` (per packet).
    pub alpha: f64,
    /// Gain on the queue's change (per packet).
    pub beta: f64,
    /// Target queue length.
    pub q_ref: Level,
    /// Initial and largest suggested window (bytes).
    pub swnd0: u64,
    pub swnd_max: u64,
    /// How `N` is counted.
    pub flow_count: FlowCount,
    /// The MSS (bytes) of the law's unit and of the floor.
    pub mss: u32,
    pub mtu: u32,
}

impl Default for AwmConfig {
    /// Sluice's fallback reconstruction (module doc), not Barbera et al.'s values.
    fn default() -> Self {
        AwmConfig { alpha: 0.002, beta: 0.05, q_ref: Level::Fraction(0.25), swnd0: 65_535, swnd_max: 1 << 30, flow_count: FlowCount::Table, mss: 1460, mtu: 1500 }
    }
}

impl AwmConfig {
    /// Checks the fields; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ParamError::new(name, format!("must be a finite number ≥ 0, got {v}")));
            }
        }
        self.q_ref.check("q_ref", None, self.mtu)?;
        if self.mss == 0 || self.mtu == 0 {
            return Err(ParamError::new(if self.mss == 0 { "mss" } else { "mtu" }, "must be greater than 0"));
        }
        if self.swnd_max < self.mss as u64 {
            return Err(ParamError::new("swnd_max", format!("must be at least mss ({}), got {}", self.mss, self.swnd_max)));
        }
        if self.swnd0 > self.swnd_max {
            return Err(ParamError::new("swnd0", format!("must not exceed swnd_max ({}), got {}", self.swnd_max, self.swnd0)));
        }
        Ok(())
    }
    /// `q_ref` below the monitored queue's limit.
    pub fn validate_for_queue(&self, limit: QueueLimit) -> Result<(), ParamError> {
        self.q_ref.check("q_ref", Some(limit), self.mtu)
    }
}

/// AWM (module doc).
#[derive(Clone, Debug)]
pub struct Awm {
    cfg: AwmConfig,
    /// The suggested window (bytes, fractional).
    swnd: f64,
}

impl Awm {
    pub fn new(cfg: AwmConfig) -> Awm {
        let swnd = cfg.swnd0 as f64;
        Awm { cfg, swnd }
    }
    /// The suggested window (bytes).
    pub fn swnd(&self) -> f64 {
        self.swnd
    }
}

impl WindowController for Awm {
    fn name(&self) -> &'static str {
        "awm"
    }
    fn reads_queue(&self) -> bool {
        true
    }
    fn ongoing_rtt(&self) -> crate::flows::OngoingRtt {
        crate::flows::OngoingRtt::Off
    }
    fn on_queue(&mut self, ev: &QueueEvent, gw: &GatewayView<'_>) {
        let mss = self.cfg.mss as f64;
        let b = gw.queue.capacity_bytes(self.cfg.mtu);
        let q_ref = self.cfg.q_ref.bytes(b, self.cfg.mtu) as f64;
        let q = ev.after.bytes as f64;
        let e = (q - q_ref) / mss;
        let de = (q - ev.before.bytes as f64) / mss;
        let n = gw.flow_count(self.cfg.flow_count) as f64;
        let delta = -(self.cfg.alpha * e + self.cfg.beta * de) / n;
        self.swnd = (self.swnd + mss * delta).clamp(mss, self.cfg.swnd_max as f64);
    }
    fn desired_window(&mut self, _ack: &impl HeaderView, flow: &FlowEntry, _gw: &GatewayView<'_>) -> Option<Proposal> {
        Some(Proposal { desired: Desired::Bytes(self.swnd as u64), floor: Floor::Mss(flow_mss(flow, self.cfg.mss)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::testutil::*;
    use crate::control::{QueueEventKind, QueueReading};
    use crate::qdisc::Occupancy;
    use crate::time::{Rate, Time};

    // tests docs/algorithms/network-return.md, "AWM" example: N = 4 (oracle), q − q_ref =
    // 14,600 after an enqueue of 1460 B, MSS 1460: e = 10, de = 1,
    // Δ = −(0.002·10 + 0.05·1)/4 = −0.0175 → swnd falls by 1460 · 0.0175 = 25.55 B.
    #[test]
    fn awm_pi_step() {
        let (flows, _) = one_flow(None, None);
        let mut awm = Awm::new(AwmConfig { flow_count: FlowCount::Oracle, ..AwmConfig::default() });
        // B = 100,000 B → q_ref = 25,000; q = 39,600 after the enqueue, 38,140 before.
        let gw = GatewayView { queue: QueueReading { bytes: 39_600, packets: 27, limit: QueueLimit::Bytes(100_000) }, link: Rate::mbps(10), flows: &flows, now: Time::ZERO, oracle_flows: Some(4) };
        let ev = QueueEvent { kind: QueueEventKind::Enqueue, len_bytes: 1460, before: Occupancy { packets: 26, bytes: 38_140 }, after: Occupancy { packets: 27, bytes: 39_600 } };
        awm.on_queue(&ev, &gw);
        assert!((awm.swnd() - (65_535.0 - 25.55)).abs() < 1e-6, "{}", awm.swnd());
        // The table's count instead (one flow): Δ = −0.07, 102.2 B.
        let mut awm = Awm::new(AwmConfig::default());
        awm.on_queue(&ev, &gw);
        assert!((awm.swnd() - (65_535.0 - 102.2)).abs() < 1e-6, "{}", awm.swnd());
    }

    // swnd never falls below one MSS nor rises above swnd_max.
    #[test]
    fn awm_window_is_clamped() {
        let (flows, id) = one_flow(None, None);
        let mut awm = Awm::new(AwmConfig { swnd0: 2_000, swnd_max: 3_000, ..AwmConfig::default() });
        let mut gw = GatewayView { queue: QueueReading { bytes: 0, packets: 0, limit: QueueLimit::Bytes(100_000) }, link: Rate::mbps(10), flows: &flows, now: Time::ZERO, oracle_flows: None };
        let full = QueueEvent { kind: QueueEventKind::Enqueue, len_bytes: 1460, before: Occupancy { packets: 0, bytes: 0 }, after: Occupancy { packets: 68, bytes: 100_000 } };
        awm.on_queue(&full, &gw);
        assert_eq!(awm.swnd(), 1460.0);
        let empty = QueueEvent { kind: QueueEventKind::Dequeue, len_bytes: 1460, before: Occupancy { packets: 68, bytes: 100_000 }, after: Occupancy::default() };
        gw.queue.bytes = 0;
        awm.on_queue(&empty, &gw);
        assert_eq!(awm.swnd(), 3000.0);
        let p = awm.desired_window(&Seg::ack_from_client(65_535), flows.get(id).unwrap(), &gw).unwrap();
        assert_eq!(p.desired, Desired::Bytes(3000));
    }

    #[test]
    fn awm_config_errors_name_the_field() {
        let c = AwmConfig { swnd0: 1 << 31, ..AwmConfig::default() };
        assert!(c.validate().unwrap_err().to_string().starts_with("swnd0: "));
        let c = AwmConfig { q_ref: Level::Absolute(QueueLimit::Packets(100)), ..AwmConfig::default() };
        assert_eq!(c.validate_for_queue(QueueLimit::Packets(100)).unwrap_err().to_string(), "q_ref: must be below the queue limit (100pkt)");
        // Each check at its edge.
        let field = |c: AwmConfig| c.validate().map_err(|e| e.field);
        let d = AwmConfig::default;
        assert_eq!(field(d()), Ok(()));
        assert_eq!(field(AwmConfig { alpha: 0.0, beta: 0.0, ..d() }), Ok(()), "zero gains are allowed");
        assert_eq!(field(AwmConfig { alpha: -0.001, ..d() }), Err("alpha"));
        assert_eq!(field(AwmConfig { beta: f64::INFINITY, ..d() }), Err("beta"));
        assert_eq!(field(AwmConfig { beta: f64::NAN, ..d() }), Err("beta"));
        assert_eq!(field(AwmConfig { q_ref: Level::Fraction(1.0), ..d() }), Err("q_ref"));
        assert_eq!(field(AwmConfig { mss: 0, ..d() }), Err("mss"));
        assert_eq!(field(AwmConfig { mtu: 0, ..d() }), Err("mtu"));
        assert_eq!(field(AwmConfig { swnd_max: 1459, ..d() }), Err("swnd_max"));
        assert_eq!(field(AwmConfig { swnd_max: 1460, swnd0: 1460, ..d() }), Ok(()), "swnd_max of one MSS");
        assert_eq!(field(AwmConfig { swnd0: 1 << 30, ..d() }), Ok(()), "swnd0 at swnd_max");
        assert_eq!(field(AwmConfig { swnd0: (1 << 30) + 1, ..d() }), Err("swnd0"));
        assert_eq!(Awm::new(d()).name(), "awm");
    }
}
