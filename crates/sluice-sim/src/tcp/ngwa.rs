//! NGWA's endpoint half (New General Window Advertising, Talau & Wille; the router half is
//! `sluice_core::control::ngwa`): the receiver keeps the value the routers wrote into IPv4
//! option 33, optionally smooths it, and advertises no more than it; both ends lower their MSS
//! by the option's size so that stamped segments still fit the path's MTU.
//!
//! ```text
//! arrival of an established-state segment carrying option 33 (data or not):  W_ngwa ← value
//!     (the first one also sets W̄ ← value; smooth_at = "arrival": W̄ ← (1 − α)·W̄ + α·W_ngwa)
//! building any segment's window (an ACK):
//!     smooth_at = "ack": W̄ ← (1 − α)·W̄ + α·W_ngwa   (once per segment built, on the last value)
//!     W_a = min(W_b, W_max, smoothing ? W̄ : W_ngwa),  floor = "mss": W_a ≥ min(MSS, W_b)
//!     field = W_a >> rcv_ws; allow_shrink = false keeps the right edge from moving left
//! before the first stamp: exactly the window without NGWA
//! ```
//!
//! `W_b` is the free receive buffer and `W_max` the largest window the field can carry
//! (65,535 B without window scaling). The sender side needs nothing of its own: it sends
//! `min(W_a, cwnd) − in flight`, or `W_a − in flight` with `cc = "none"` (NGWA eqn. 1). The
//! eight modes of the paper's Table 1 (congestion window, smoothing, flow division) are
//! [`NgwaMode`]. See docs/algorithms/network-return.md, "NGWA".
//!
//! The per-connection state is boxed and created at the first stamp, so an endpoint without
//! NGWA carries one null pointer in its cold lines; the receive path tests only the segment's
//! own option bit, and the window is built by the usual code until a stamp has arrived.

use super::endpoint::Endpoint;
use super::CcKind;
use sluice_core::packet::OptLen;
use sluice_core::seq::window_field;

/// When the receiver smooths (`[tcp.ngwa] smooth_at`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NgwaSmoothAt {
    /// Once per ACK built, on the last stored value (NGWA §2 places the processing at "the
    /// creation of an ACK segment").
    #[default]
    Ack,
    /// Once per stamped segment that arrives.
    Arrival,
}

impl NgwaSmoothAt {
    pub fn as_str(self) -> &'static str {
        match self {
            NgwaSmoothAt::Ack => "ack",
            NgwaSmoothAt::Arrival => "arrival",
        }
    }
}

/// A lower bound on the advertised window (`[tcp.ngwa] floor`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NgwaFloor {
    /// None: a full queue (`W_node = 0`) closes the window and the sender probes (NGWA eqns.
    /// 2–3 set no floor).
    #[default]
    None,
    /// At least one segment (or the free buffer, if less).
    Mss,
}

impl NgwaFloor {
    pub fn as_str(self) -> &'static str {
        match self {
            NgwaFloor::None => "none",
            NgwaFloor::Mss => "mss",
        }
    }
}

/// The endpoint's NGWA options (`[tcp.ngwa]`); the defaults are mode 1's receiver (no
/// smoothing), with α = 0.3 (NGWA §3) for when smoothing is on.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct NgwaTcp {
    /// The endpoint takes part: it reads option 33 and lowers its MSS.
    pub enabled: bool,
    /// Smoothing weight of the newest value, in (0, 1).
    pub alpha: f64,
    /// Advertise the smoothed `W̄` instead of the last `W_ngwa` (NGWA's "SE").
    pub smoothing: bool,
    pub smooth_at: NgwaSmoothAt,
    /// The window may shrink (the right edge move left) when the value drops, as NGWA's eqn. 2
    /// does; `false` applies RFC 9293 §3.8.6's rule.
    pub allow_shrink: bool,
    pub floor: NgwaFloor,
    /// Bytes of option 33 the endpoint makes room for: its MSS (sent and advertised) is the
    /// configured one less this. The routers' `opt_len` unless given (docs/scenarios.md).
    pub opt_len: u32,
    /// The NGWA mode (1–8) that set `smoothing` and `cc`, if one did (`[ngwa] mode`).
    pub mode: Option<u8>,
}

impl Default for NgwaTcp {
    fn default() -> Self {
        NgwaTcp { enabled: false, alpha: 0.3, smoothing: false, smooth_at: NgwaSmoothAt::Ack, allow_shrink: true, floor: NgwaFloor::None, opt_len: 8, mode: None }
    }
}

impl NgwaTcp {
    /// Checks the fields; the error names the field.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(("alpha", format!("must be in (0, 1), got {}", self.alpha)));
        }
        if OptLen::from_bytes(self.opt_len as u64).is_none() {
            return Err(("opt_len", format!("expected 4 or 8, got {}", self.opt_len)));
        }
        Ok(())
    }

    /// Not enabled (the serialized model leaves it out).
    pub fn is_off(&self) -> bool {
        !self.enabled
    }

    /// Bytes the MSS is lowered by: the option's size when enabled.
    #[inline]
    pub fn mss_reduction(&self) -> u32 {
        if self.enabled {
            self.opt_len
        } else {
            0
        }
    }

    /// (name, value) pairs for the summary's `options` (only when enabled).
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        if !self.enabled {
            return vec![("ngwa", "false".into())];
        }
        vec![
            ("ngwa", "true".into()),
            ("ngwa.mode", self.mode.map_or("none".into(), |m| m.to_string())),
            ("ngwa.alpha", self.alpha.to_string()),
            ("ngwa.smoothing", self.smoothing.to_string()),
            ("ngwa.smooth_at", self.smooth_at.as_str().into()),
            ("ngwa.allow_shrink", self.allow_shrink.to_string()),
            ("ngwa.floor", self.floor.as_str().into()),
            ("ngwa.opt_len", self.opt_len.to_string()),
        ]
    }
}

/// One of NGWA's eight modes (Talau & Wille, Table 1): which of the congestion window (CW),
/// smoothing (SE) and flow division (FD) run.
///
/// | mode | CW | SE | FD |
/// |---|---|---|---|
/// | 1 | on | off | off |
/// | 2 | on | on | off |
/// | 3 | off | off | off |
/// | 4 | off | on | off |
/// | 5 | on | off | on |
/// | 6 | on | on | on |
/// | 7 | off | off | on |
/// | 8 | off | on | on |
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NgwaMode {
    pub mode: u8,
    /// A congestion window: `cc = "new_reno"` (the paper's), else `cc = "none"` (RFC 793).
    pub congestion_window: bool,
    pub smoothing: bool,
    /// The routers' `flow_division`.
    pub flow_division: bool,
}

impl NgwaMode {
    /// Mode `m` (1–8), or `None`.
    pub fn new(m: u8) -> Option<NgwaMode> {
        if !(1..=8).contains(&m) {
            return None;
        }
        let k = m - 1;
        // Rows pair up: odd modes without smoothing, even with; modes 3–4 and 7–8 without a
        // congestion window; modes 5–8 with flow division.
        Some(NgwaMode { mode: m, congestion_window: k & 2 == 0, smoothing: k & 1 == 1, flow_division: k >= 4 })
    }

    /// The congestion control the mode runs when the scenario names none.
    pub fn cc(self) -> CcKind {
        if self.congestion_window {
            CcKind::NewReno
        } else {
            CcKind::None
        }
    }
}

/// A connection's NGWA state, created by the first stamped segment.
#[derive(Clone, Debug)]
pub(super) struct NgwaState {
    /// The last value received, `W_ngwa` (bytes).
    last: u32,
    /// The smoothed value `W̄` (bytes).
    smoothed: f64,
}

impl Endpoint {
    /// An established-state segment arrived carrying option 33 with `value`.
    #[cold]
    pub(super) fn ngwa_arrival(&mut self, value: u32) {
        let c = &self.cfg.ngwa;
        if !c.enabled {
            return;
        }
        let (alpha, arrival) = (c.alpha, c.smoothing && c.smooth_at == NgwaSmoothAt::Arrival);
        match self.ngwa.as_deref_mut() {
            None => self.ngwa = Some(Box::new(NgwaState { last: value, smoothed: value as f64 })),
            Some(s) => {
                s.last = value;
                if arrival {
                    s.smoothed = (1.0 - alpha) * s.smoothed + alpha * value as f64;
                }
            }
        }
    }

    /// The window field under NGWA once a stamp has arrived (`None` before: the usual window).
    pub(super) fn ngwa_window_field(&mut self) -> Option<u16> {
        let c = &self.cfg.ngwa;
        let s = self.ngwa.as_deref_mut()?;
        let w = if c.smoothing {
            if c.smooth_at == NgwaSmoothAt::Ack {
                s.smoothed = (1.0 - c.alpha) * s.smoothed + c.alpha * s.last as f64;
            }
            s.smoothed as u64
        } else {
            s.last as u64
        };
        let (allow_shrink, floor) = (c.allow_shrink, c.floor);
        let w_b = self.rcv_wnd();
        let mut wa = w_b.min(w);
        if floor == NgwaFloor::Mss {
            wa = wa.max((self.smss as u64).min(w_b));
        }
        let mut edge = self.rcv_nxt + wa;
        if !allow_shrink {
            edge = edge.max(self.right_edge);
        }
        self.right_edge = edge;
        Some(window_field(edge - self.rcv_nxt, self.rcv_shift))
    }

    /// The MSS this end sends with and advertises: the configured one less the option's size
    /// when NGWA is on.
    #[inline]
    pub(super) fn own_mss(&self) -> u32 {
        self.cfg.mss - self.cfg.ngwa.mss_reduction()
    }

    /// The receiver's current `(W_ngwa, W̄)`, once a stamp has arrived.
    pub fn ngwa_values(&self) -> Option<(u32, f64)> {
        self.ngwa.as_deref().map(|s| (s.last, s.smoothed))
    }
}
