//! Congestion control: one trait, one file per algorithm, a closed enum to dispatch.
//!
//! The endpoint owns loss recovery and the window state ([`CwndState`]) and lends it to the
//! algorithm, which grows cwnd on ACKs and proposes ssthresh on loss: the split of Linux's
//! `tcp_congestion_ops` (`cong_avoid`, `ssthresh`) and ns-3's `TcpCongestionOps` /
//! `TcpRecoveryOps`, with the state lent as `&mut` instead of shared. Windows are in bytes.

mod new_reno;
mod none;

pub use new_reno::NewReno;
pub use none::NoCc;

use super::config::{CcKind, InitialWindow, TcpConfig};
use sluice_core::{Dur, Rate, Time};

/// The window state the endpoint owns and lends to the algorithm.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CwndState {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub smss: u32,
}

/// Linux / ns-3 congestion states, for comparability.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    Disorder,
    Cwr,
    Recovery,
    Loss,
}

/// Why the window is being reduced.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LossCause {
    DupAcks,
    Ecn,
    Rto,
}

/// What the endpoint tells the algorithm about an ACK of new data.
#[derive(Copy, Clone, Debug)]
pub struct AckSample {
    pub bytes_acked: u64,
    pub rtt: Option<Dur>,
    pub min_rtt: Option<Dur>,
    pub srtt: Option<Dur>,
    pub in_flight: u64,
    pub ece: bool,
}

/// The congestion-control seam.
pub trait CongestionControl {
    fn name(&self) -> &'static str;
    /// New data acknowledged in Open/Disorder state: grow cwnd.
    fn on_ack(&mut self, w: &mut CwndState, ack: &AckSample, now: Time);
    /// Loss or ECN detected: return the new ssthresh (do not set it).
    fn ssthresh_after_loss(&mut self, w: &CwndState, in_flight: u64, cause: LossCause, now: Time) -> u64;
    /// Retransmission timeout: set the loss window (default 1 SMSS, RFC 5681 §3.1).
    fn on_rto(&mut self, w: &mut CwndState, _now: Time) {
        w.cwnd = w.smss as u64;
    }
    fn on_state_change(&mut self, _w: &mut CwndState, _from: CaState, _to: CaState, _now: Time) {}
    fn on_sent(&mut self, _bytes: u64, _in_flight: u64, _now: Time) {}
    /// Pacing rate, if the algorithm paces (BBR).
    fn pacing_rate(&self) -> Option<Rate> {
        None
    }
    /// Whether duplicate ACKs trigger fast retransmit / fast recovery (false for plain RFC 793).
    fn fast_recovery(&self) -> bool {
        true
    }
}

/// The closed set of algorithms.
#[derive(Clone, Debug)]
pub enum AnyCc {
    NewReno(NewReno),
    None(NoCc),
    /// NewReno that paces at a fixed rate: the pacing seam's tests, until an algorithm of
    /// its own sets a rate.
    #[cfg(test)]
    FixedRate(FixedRate),
}

/// NewReno window growth plus a fixed pacing rate (tests).
#[cfg(test)]
#[derive(Clone, Debug)]
pub struct FixedRate(pub Rate);

#[cfg(test)]
impl CongestionControl for FixedRate {
    fn name(&self) -> &'static str {
        "fixed_rate"
    }
    fn on_ack(&mut self, w: &mut CwndState, ack: &AckSample, now: Time) {
        NewReno::default().on_ack(w, ack, now)
    }
    fn ssthresh_after_loss(&mut self, w: &CwndState, in_flight: u64, cause: LossCause, now: Time) -> u64 {
        NewReno::default().ssthresh_after_loss(w, in_flight, cause, now)
    }
    fn pacing_rate(&self) -> Option<Rate> {
        Some(self.0)
    }
}

impl AnyCc {
    pub fn new(cfg: &TcpConfig) -> AnyCc {
        match cfg.cc {
            CcKind::NewReno => AnyCc::NewReno(NewReno { capped: cfg.compat.slow_start_capped }),
            CcKind::None => AnyCc::None(NoCc),
        }
    }
    /// The initial window in bytes for this algorithm, given the configured rule and SMSS.
    pub fn initial_cwnd(&self, iw: InitialWindow, smss: u32) -> u64 {
        match self {
            AnyCc::None(_) => none::UNBOUNDED,
            _ => iw.bytes(smss),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyCc::NewReno($c) => $e,
            AnyCc::None($c) => $e,
            #[cfg(test)]
            AnyCc::FixedRate($c) => $e,
        }
    };
}

impl CongestionControl for AnyCc {
    fn name(&self) -> &'static str {
        dispatch!(self, c => c.name())
    }
    #[inline]
    fn on_ack(&mut self, w: &mut CwndState, ack: &AckSample, now: Time) {
        dispatch!(self, c => c.on_ack(w, ack, now))
    }
    fn ssthresh_after_loss(&mut self, w: &CwndState, in_flight: u64, cause: LossCause, now: Time) -> u64 {
        dispatch!(self, c => c.ssthresh_after_loss(w, in_flight, cause, now))
    }
    fn on_rto(&mut self, w: &mut CwndState, now: Time) {
        dispatch!(self, c => c.on_rto(w, now))
    }
    fn on_state_change(&mut self, w: &mut CwndState, from: CaState, to: CaState, now: Time) {
        dispatch!(self, c => c.on_state_change(w, from, to, now))
    }
    fn on_sent(&mut self, bytes: u64, in_flight: u64, now: Time) {
        dispatch!(self, c => c.on_sent(bytes, in_flight, now))
    }
    fn pacing_rate(&self) -> Option<Rate> {
        dispatch!(self, c => c.pacing_rate())
    }
    fn fast_recovery(&self) -> bool {
        dispatch!(self, c => c.fast_recovery())
    }
}
