//! EWA, Explicit Window Adaptation (Kalampoukas, Varma, Ramakrishnan, INFOCOM 1998 / IEEE/ACM
//! ToN 10(3) 2002), as summarised by the EWT paper §3.1.
//!
//! ```text
//! on each arrival to the monitored queue:  Q̄ ← (1 − w)·Q̄ + w·Q
//! every T:   if Q̄ < L: α ← α + Δα_inc        elif Q̄ > H: α ← max(α − Δα_dec, α_min)
//! on each ACK, if Q > 0:  W = max(f(B − Q), MSS),  write min(W_r, W)
//!     shape = "log":    f(x) = α · log2(1 + x)   (α in bytes)
//!     shape = "linear": f(x) = α · x             (α dimensionless)
//! ```
//!
//! What survives of the paper's description: the window is `max(f(B − Q(t)), MSS)`; `f` has a
//! scale `α`; EWA acts only with segments in memory; `α` is adapted every `T` from an
//! exponentially averaged occupancy compared with two marks. The exact `f`, the averaging
//! weight and every default were lost; the defaults here are Sluice's *fallback*
//! reconstruction until the values of Kalampoukas et al. are read (docs/algorithms/
//! network-return.md, "EWA"): `w = 0.002`, `T = 100 ms`, `L = B/8`, `H = 3B/8`, and for the
//! logarithmic shape `α₀ = MSS`, `Δα = MSS/16`, `α_min = MSS/16`; for the linear one `α₀ = 1`,
//! `Δα = α_min = 1/16`. A reproduction must state the shape it used.
//!
//! The periodic update runs from packet events: each call first runs every `T` tick that fell
//! due at or before `now`, with the average as it stood (nothing changes it between events).

use super::{flow_mss, GatewayView, Level, Proposal, QueueEvent, QueueEventKind, WindowController};
use crate::flows::FlowEntry;
use crate::packet::{Desired, Floor, HeaderView};
use crate::qdisc::{ParamError, Periodic};
use crate::time::{Dur, Time};
use crate::units::QueueLimit;
use serde::{Deserialize, Serialize};

/// The shape of EWA's window function `f`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EwaShape {
    /// `f(x) = α·log2(1 + x)`, α in bytes.
    #[default]
    Log,
    /// `f(x) = α·x`, α dimensionless.
    Linear,
}

/// `{ kind = "ewa", shape = "log", weight = 0.002, period = "100ms", low = "12.5%",
/// high = "37.5%", mss = 1460, mtu = 1500 }`; `alpha0`, `alpha_inc`, `alpha_dec`, `alpha_min`
/// default by shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EwaConfig {
    pub shape: EwaShape,
    /// Averaging weight `w` per arrival.
    pub weight: f64,
    /// Adaptation period `T`.
    pub period: Dur,
    /// Lower and upper marks `L`, `H` of the average occupancy.
    pub low: Level,
    pub high: Level,
    /// Initial `α` (log: MSS bytes; linear: 1).
    pub alpha0: Option<f64>,
    /// Steps up and down (log: MSS/16; linear: 1/16).
    pub alpha_inc: Option<f64>,
    pub alpha_dec: Option<f64>,
    /// Lowest `α` (log: MSS/16; linear: 1/16).
    pub alpha_min: Option<f64>,
    /// The floor (bytes) when the handshake showed no MSS; also the unit of the log defaults.
    pub mss: u32,
    /// Bytes per packet when the monitored queue's limit is in packets.
    pub mtu: u32,
}

impl Default for EwaConfig {
    /// Sluice's fallback reconstruction (module doc): not the values of Kalampoukas et al.,
    /// which are still to be read.
    fn default() -> Self {
        EwaConfig {
            shape: EwaShape::Log,
            weight: 0.002,
            period: Dur::from_millis(100),
            low: Level::Fraction(0.125),
            high: Level::Fraction(0.375),
            alpha0: None,
            alpha_inc: None,
            alpha_dec: None,
            alpha_min: None,
            mss: 1460,
            mtu: 1500,
        }
    }
}

impl EwaConfig {
    fn unit(&self) -> f64 {
        match self.shape {
            EwaShape::Log => self.mss as f64,
            EwaShape::Linear => 1.0,
        }
    }
    /// `α₀` as configured or by shape.
    pub fn alpha0(&self) -> f64 {
        self.alpha0.unwrap_or(self.unit())
    }
    pub fn alpha_inc(&self) -> f64 {
        self.alpha_inc.unwrap_or(self.unit() / 16.0)
    }
    pub fn alpha_dec(&self) -> f64 {
        self.alpha_dec.unwrap_or(self.unit() / 16.0)
    }
    pub fn alpha_min(&self) -> f64 {
        self.alpha_min.unwrap_or(self.unit() / 16.0)
    }
    /// Checks the fields; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.weight > 0.0 && self.weight <= 1.0) {
            return Err(ParamError::new("weight", format!("must be in (0, 1], got {}", self.weight)));
        }
        if self.period.0 == 0 {
            return Err(ParamError::new("period", "must be greater than 0"));
        }
        self.low.check("low", None, self.mtu)?;
        self.high.check("high", None, self.mtu)?;
        if let (Level::Fraction(l), Level::Fraction(h)) = (self.low, self.high) {
            if l >= h {
                return Err(ParamError::new("high", format!("must be above low ({}), got {}", self.low, self.high)));
            }
        }
        for (name, v) in [("alpha0", self.alpha0), ("alpha_inc", self.alpha_inc), ("alpha_dec", self.alpha_dec), ("alpha_min", self.alpha_min)] {
            if let Some(v) = v {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(ParamError::new(name, format!("must be a finite number ≥ 0, got {v}")));
                }
            }
        }
        if self.alpha_min() > self.alpha0() {
            return Err(ParamError::new("alpha_min", format!("must not exceed alpha0 ({}), got {}", self.alpha0(), self.alpha_min())));
        }
        if self.mss == 0 || self.mtu == 0 {
            return Err(ParamError::new(if self.mss == 0 { "mss" } else { "mtu" }, "must be greater than 0"));
        }
        Ok(())
    }
    /// The marks below the monitored queue's limit, `low` below `high`.
    pub fn validate_for_queue(&self, limit: QueueLimit) -> Result<(), ParamError> {
        self.low.check("low", Some(limit), self.mtu)?;
        self.high.check("high", Some(limit), self.mtu)?;
        let b = super::limit_bytes(limit, self.mtu);
        if self.low.bytes(b, self.mtu) >= self.high.bytes(b, self.mtu) {
            return Err(ParamError::new("high", format!("must be above low ({}), got {}", self.low, self.high)));
        }
        Ok(())
    }
}

/// EWA (module doc).
#[derive(Clone, Debug)]
pub struct Ewa {
    cfg: EwaConfig,
    /// The averaged occupancy `Q̄` (bytes).
    q_avg: f64,
    /// The scale `α` of `f`.
    alpha: f64,
    /// The next adaptation, started at the first call.
    tick: Option<Periodic>,
}

impl Ewa {
    pub fn new(cfg: EwaConfig) -> Ewa {
        let alpha = cfg.alpha0();
        Ewa { cfg, q_avg: 0.0, alpha, tick: None }
    }
    /// The current `α`.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
    /// The current average occupancy `Q̄` (bytes).
    pub fn average(&self) -> f64 {
        self.q_avg
    }

    /// Run every adaptation due at or before `now` (the first call starts the clock).
    fn catch_up(&mut self, now: Time, b: u64) {
        let tick = self.tick.get_or_insert_with(|| Periodic::new(now + self.cfg.period, self.cfg.period));
        let low = self.cfg.low.bytes(b, self.cfg.mtu) as f64;
        let high = self.cfg.high.bytes(b, self.cfg.mtu) as f64;
        while tick.next_due(now).is_some() {
            if self.q_avg < low {
                self.alpha += self.cfg.alpha_inc();
            } else if self.q_avg > high {
                self.alpha = (self.alpha - self.cfg.alpha_dec()).max(self.cfg.alpha_min());
            }
        }
    }

    /// The window (bytes) for free memory `free`, before the MSS floor.
    pub fn window_for_free(&self, free: u64) -> u64 {
        let w = match self.cfg.shape {
            EwaShape::Log => self.alpha * ((1 + free) as f64).log2(),
            EwaShape::Linear => self.alpha * free as f64,
        };
        if w.is_finite() && w > 0.0 {
            w.min(u64::MAX as f64) as u64
        } else {
            0
        }
    }
}

impl WindowController for Ewa {
    fn name(&self) -> &'static str {
        "ewa"
    }
    fn reads_queue(&self) -> bool {
        true
    }
    fn ongoing_rtt(&self) -> crate::flows::OngoingRtt {
        crate::flows::OngoingRtt::Off
    }
    fn on_queue(&mut self, ev: &QueueEvent, gw: &GatewayView<'_>) {
        let b = gw.queue.capacity_bytes(self.cfg.mtu);
        self.catch_up(gw.now, b);
        if ev.kind == QueueEventKind::Enqueue {
            let w = self.cfg.weight;
            self.q_avg = (1.0 - w) * self.q_avg + w * ev.after.bytes as f64;
        }
    }
    fn desired_window(&mut self, _ack: &impl HeaderView, flow: &FlowEntry, gw: &GatewayView<'_>) -> Option<Proposal> {
        let b = gw.queue.capacity_bytes(self.cfg.mtu);
        self.catch_up(gw.now, b);
        // the EWT paper §3.1: EWA acts "in the presence of segments in memory".
        if gw.queue.bytes == 0 {
            return None;
        }
        let w = self.window_for_free(b.saturating_sub(gw.queue.bytes));
        Some(Proposal { desired: Desired::Bytes(w), floor: Floor::Mss(flow_mss(flow, self.cfg.mss)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::testutil::*;
    use crate::control::QueueReading;
    use crate::flows::FlowTable;
    use crate::qdisc::Occupancy;
    use crate::time::Rate;

    fn view(flows: &FlowTable, q: u64, now: Time) -> GatewayView<'_> {
        GatewayView { queue: QueueReading { bytes: q, packets: 1, limit: QueueLimit::Bytes(102_400) }, link: Rate::mbps(10), flows, now, oracle_flows: None }
    }

    // tests docs/algorithms/network-return.md, "EWA" example: B = 102,400, Q = 36,864 → free
    // 65,536; log2(65,537) = 16.00002; α = 2000 → W = 32,000.04 → 32,000 B.
    #[test]
    fn ewa_log_window() {
        let (flows, id) = one_flow(None, None);
        let mut ewa = Ewa::new(EwaConfig { alpha0: Some(2000.0), ..EwaConfig::default() });
        let p = ewa.desired_window(&Seg::ack_from_client(65_535), flows.get(id).unwrap(), &view(&flows, 36_864, Time::ZERO)).unwrap();
        assert_eq!(p.desired, Desired::Bytes(32_000));
        assert_eq!(p.floor, Floor::Mss(1460));
        // Empty queue: EWA does nothing.
        assert!(ewa.desired_window(&Seg::ack_from_client(65_535), flows.get(id).unwrap(), &view(&flows, 0, Time::ZERO)).is_none());
    }

    // tests docs/algorithms/network-return.md, "EWA" adaptation: Q̄ = 5,000 < L = 102,400/8 =
    // 12,800 at a T tick → α = 2000 + 1460/16 = 2091.25; above H = 38,400 → α − 91.25.
    #[test]
    fn ewa_alpha_steps_at_ticks() {
        let (flows, _) = one_flow(None, None);
        let mut ewa = Ewa::new(EwaConfig { alpha0: Some(2000.0), ..EwaConfig::default() });
        let ev = |q: u64| QueueEvent { kind: QueueEventKind::Dequeue, len_bytes: 1500, before: Occupancy::default(), after: Occupancy { packets: 1, bytes: q } };
        ewa.on_queue(&ev(5_000), &view(&flows, 5_000, Time::ZERO)); // starts the clock; first tick at 100 ms
        ewa.q_avg = 5_000.0;
        ewa.on_queue(&ev(5_000), &view(&flows, 5_000, ms(99)));
        assert_eq!(ewa.alpha(), 2000.0, "no tick before T");
        ewa.on_queue(&ev(5_000), &view(&flows, 5_000, ms(100)));
        assert_eq!(ewa.alpha(), 2091.25);
        ewa.q_avg = 50_000.0;
        ewa.on_queue(&ev(5_000), &view(&flows, 5_000, ms(200)));
        assert_eq!(ewa.alpha(), 2000.0);
        // Between the marks: no change. Two ticks (300, 400 ms) caught up at once.
        ewa.q_avg = 20_000.0;
        ewa.on_queue(&ev(5_000), &view(&flows, 5_000, ms(450)));
        assert_eq!(ewa.alpha(), 2000.0);
        // At either mark exactly: no change (below L raises, above H lowers).
        for (q, t) in [(12_800.0, 500), (38_400.0, 600)] {
            ewa.q_avg = q;
            ewa.on_queue(&ev(5_000), &view(&flows, 5_000, ms(t)));
            assert_eq!(ewa.alpha(), 2000.0, "Q̄ = {q} at the {t} ms tick");
        }
    }

    // tests the log window near an empty queue: α·log2(1 + free) is 0 at free 0, α at one
    // free byte, 2α at three.
    #[test]
    fn ewa_log_window_counts_one_more_than_the_free_bytes() {
        let ewa = Ewa::new(EwaConfig { alpha0: Some(2000.0), ..EwaConfig::default() });
        assert_eq!([ewa.window_for_free(0), ewa.window_for_free(1), ewa.window_for_free(3)], [0, 2000, 4000]);
    }

    // tests the marks against the queue's limit when given as sizes: low must lie below high
    // there too (60 packets above 50).
    #[test]
    fn ewa_marks_as_sizes_keep_their_order() {
        let c = EwaConfig { low: Level::Absolute(QueueLimit::Packets(60)), high: Level::Absolute(QueueLimit::Packets(50)), ..EwaConfig::default() };
        assert!(c.validate().is_ok(), "sizes are compared once the limit is known");
        assert_eq!(c.validate_for_queue(QueueLimit::Packets(100)).map_err(|e| e.field), Err("high"));
        let ok = EwaConfig { low: Level::Absolute(QueueLimit::Packets(20)), ..c };
        assert_eq!(ok.validate_for_queue(QueueLimit::Packets(100)), Ok(()));
    }

    // The average: after one enqueue with Q = 10,000 from 0, Q̄ = 0.002 · 10,000 = 20.
    #[test]
    fn ewa_average_moves_on_arrivals_only() {
        let (flows, _) = one_flow(None, None);
        let mut ewa = Ewa::new(EwaConfig::default());
        let mut ev = QueueEvent { kind: QueueEventKind::Enqueue, len_bytes: 1500, before: Occupancy::default(), after: Occupancy { packets: 7, bytes: 10_000 } };
        ewa.on_queue(&ev, &view(&flows, 10_000, Time::ZERO));
        assert!((ewa.average() - 20.0).abs() < 1e-9);
        ev.kind = QueueEventKind::Dequeue;
        ewa.on_queue(&ev, &view(&flows, 10_000, Time::ZERO));
        assert!((ewa.average() - 20.0).abs() < 1e-9);
        // A second arrival at 10,000: (1 − 0.002)·20 + 20 = 39.96.
        ev.kind = QueueEventKind::Enqueue;
        ewa.on_queue(&ev, &view(&flows, 10_000, Time::ZERO));
        assert!((ewa.average() - 39.96).abs() < 1e-9, "{}", ewa.average());
    }

    // Linear shape: α₀ = 1 → W = free bytes.
    #[test]
    fn ewa_linear_window_is_alpha_times_free() {
        let ewa = Ewa::new(EwaConfig { shape: EwaShape::Linear, ..EwaConfig::default() });
        assert_eq!(ewa.window_for_free(65_536), 65_536);
        assert_eq!(EwaConfig { shape: EwaShape::Linear, ..EwaConfig::default() }.alpha_inc(), 1.0 / 16.0);
    }

    #[test]
    fn ewa_config_errors_name_the_field() {
        let c = EwaConfig { low: Level::Fraction(0.5), high: Level::Fraction(0.25), ..EwaConfig::default() };
        assert!(c.validate().unwrap_err().to_string().starts_with("high: must be above low"));
        let c = EwaConfig { weight: 0.0, ..EwaConfig::default() };
        assert!(c.validate().unwrap_err().to_string().starts_with("weight: "));
        assert!(EwaConfig::default().validate().is_ok());
        // Each check at its edge.
        let field = |c: EwaConfig| c.validate().map_err(|e| e.field);
        let d = EwaConfig::default;
        assert_eq!(field(EwaConfig { weight: 1.0, ..d() }), Ok(()));
        assert_eq!(field(EwaConfig { weight: 1.5, ..d() }), Err("weight"));
        assert_eq!(field(EwaConfig { low: Level::Fraction(0.5), high: Level::Fraction(0.5), ..d() }), Err("high"), "high must be above low");
        assert_eq!(field(EwaConfig { alpha0: Some(0.0), alpha_min: Some(0.0), ..d() }), Ok(()), "zero steps are allowed");
        assert_eq!(field(EwaConfig { alpha_inc: Some(-1.0), ..d() }), Err("alpha_inc"));
        assert_eq!(field(EwaConfig { alpha_dec: Some(f64::NAN), ..d() }), Err("alpha_dec"));
        assert_eq!(field(EwaConfig { alpha0: Some(100.0), alpha_min: Some(100.0), ..d() }), Ok(()), "alpha_min may equal alpha0");
        assert_eq!(field(EwaConfig { alpha0: Some(100.0), alpha_min: Some(100.5), ..d() }), Err("alpha_min"));
        assert_eq!(field(EwaConfig { mss: 0, ..d() }), Err("mss"));
        assert_eq!(field(EwaConfig { mtu: 0, ..d() }), Err("mtu"));
        // The automatic steps: a sixteenth of the unit (one MSS for the log shape, 1 linear).
        let log = EwaConfig { shape: EwaShape::Log, mss: 1600, ..d() };
        assert_eq!((log.alpha0(), log.alpha_inc(), log.alpha_dec(), log.alpha_min()), (1600.0, 100.0, 100.0, 100.0));
        let lin = EwaConfig { shape: EwaShape::Linear, ..d() };
        assert_eq!((lin.alpha0(), lin.alpha_min()), (1.0, 0.0625));
    }
}
