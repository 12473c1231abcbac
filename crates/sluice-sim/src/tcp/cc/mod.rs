//! Congestion control: one trait, one file per algorithm, a closed enum to dispatch.
//!
//! The endpoint owns loss recovery and the window state ([`CwndState`]) and lends it to the
//! algorithm, which grows cwnd on ACKs and proposes ssthresh on loss: the split of Linux's
//! `tcp_congestion_ops` (`cong_avoid`, `ssthresh`) and ns-3's `TcpCongestionOps` /
//! `TcpRecoveryOps`, with the state lent as `&mut` instead of shared. Windows are in bytes.

pub mod bbr;
pub mod compound;
pub mod cubic;
mod linux_reno;
mod new_reno;
mod none;
pub mod vegas;

pub use bbr::Bbr;
pub use compound::Compound;
pub use cubic::Cubic;
pub use linux_reno::LinuxReno;
pub use new_reno::NewReno;
pub use none::NoCc;
pub use vegas::Vegas;

use super::config::{CcKind, InitialWindow, TcpConfig};
use super::rate::RateSample;
use sluice_core::rng::RngStream;
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

/// What the endpoint tells the algorithm about an ACK of new data when it may grow the window
/// (Open, Disorder, or the loss state after a timeout; Linux `cong_avoid`, ns-3
/// `IncreaseWindow`).
#[derive(Copy, Clone, Debug)]
pub struct AckSample {
    pub bytes_acked: u64,
    pub rtt: Option<Dur>,
    pub min_rtt: Option<Dur>,
    pub srtt: Option<Dur>,
    pub in_flight: u64,
    pub ece: bool,
    /// The cumulative ACK (SND.UNA after it) and SND.NXT (the highest sequence sent), for
    /// algorithms that count rounds (one window of data) by them.
    pub ack: u64,
    pub snd_nxt: u64,
    /// cwnd limited the sender when it last sent (ns-3 `m_isCwndLimited`); kept for the
    /// algorithms that have an AckEvent (false until then for the others).
    pub cwnd_limited: bool,
}

/// Every ACK that acknowledges or SACKs data, or counts as a duplicate, in any congestion state,
/// before the endpoint acts on it, or (ns-3 profile) where ns-3 calls `PktsAcked` (Linux
/// `pkts_acked` / ns-3 `PktsAcked`, with what Linux's
/// `cong_control` and ns-3's `CongControl` also see). Delay-based and model-based algorithms
/// take their samples here; the window grows only through [`CongestionControl::on_ack`].
///
/// The delivery-rate sample of an ACK comes separately, as a [`RateEvent`], to the algorithms
/// that ask for one ([`AnyCc::wants_rate_samples`]).
#[derive(Copy, Clone, Debug)]
pub struct AckEvent {
    /// The congestion state when the event is delivered: before the ACK is acted on (Linux
    /// order), or where ns-3's `ProcessAck` calls `PktsAcked` under `Ns3Compat::cc_linux` off.
    pub ca: CaState,
    /// This ACK's RTT sample (Karn's rule; timestamps), if it gave one.
    pub rtt: Option<Dur>,
    pub srtt: Option<Dur>,
    pub min_rtt: Option<Dur>,
    /// The cumulative ACK (SND.UNA after it) and SND.NXT, for round counting.
    pub ack: u64,
    pub snd_nxt: u64,
    /// Bytes in flight (RFC 6675 pipe) before the ACK.
    pub prior_in_flight: u64,
    /// Bytes the ACK newly acknowledged or SACKed (RFC 6937 DeliveredData).
    pub delivered: u64,
    /// Bytes the ACK's SACK information newly marked lost.
    pub lost: u64,
    /// The ACK counted as a duplicate.
    pub dup: bool,
}

/// Every ACK's delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation), with the
/// connection state a model-based algorithm reads, after the endpoint has acted on the ACK
/// (where ns-3 calls `CongControl` and Linux `cong_control`). Only for algorithms that ask
/// ([`AnyCc::wants_rate_samples`]): BBR.
#[derive(Copy, Clone, Debug)]
pub struct RateEvent {
    pub rs: RateSample,
    /// The congestion state after the ACK.
    pub ca: CaState,
    /// Bytes delivered (acknowledged or SACKed) since the connection began.
    pub delivered: u64,
    /// Bytes in flight (RFC 6675 pipe) after the ACK.
    pub in_flight: u64,
    /// This ACK's RTT sample, if it gave one.
    pub rtt: Option<Dur>,
    pub srtt: Option<Dur>,
    /// How much the bytes marked lost changed over the ACK, either way: ns-3's reading of the
    /// sample's losses (`TcpSocketBase::ReceivedAck` hands `CongControl` the absolute difference
    /// of `GetLost()`, so lost bytes acknowledged after their retransmission count again).
    pub lost_change: u64,
}

/// How an algorithm answers loss detected by duplicate ACKs (RFC 5681 §3.2, RFC 6582).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LossResponse {
    /// Fast retransmit and fast recovery until the ACK that covers the recovery point, one
    /// reduction per window (RFC 6582; with SACK RFC 6675; PRR as configured).
    NewReno,
    /// Reno (RFC 5681 §3.2): as NewReno, but recovery ends at the first ACK of new data (a
    /// partial ACK too), and a further loss in the same window starts a new reduction.
    Reno,
    /// Tahoe: fast retransmit, then `cwnd = 1·SMSS` and slow start, the rest of the window sent
    /// again as the window allows (go-back-N; no fast recovery).
    Tahoe,
    /// Duplicate ACKs are counted and trigger nothing: only the retransmission timer repairs
    /// loss (plain RFC 793).
    RtoOnly,
}

/// An algorithm's internal values for tracing (`monitor.cc_trace`): up to four named numbers.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct CcMetrics {
    pub n: usize,
    pub v: [(&'static str, f64); 4],
}

impl CcMetrics {
    pub fn push(&mut self, name: &'static str, value: f64) {
        if self.n < self.v.len() {
            self.v[self.n] = (name, value);
            self.n += 1;
        }
    }
    pub fn as_slice(&self) -> &[(&'static str, f64)] {
        &self.v[..self.n]
    }
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
    /// The congestion state changes; `snd_nxt`: SND.NXT at the change.
    fn on_state_change(&mut self, _w: &mut CwndState, _from: CaState, _to: CaState, _snd_nxt: u64, _now: Time) {}
    /// Every ACK that acknowledges or SACKs data or counts as a duplicate, in any state,
    /// before the endpoint acts on it (see [`AckEvent`]).
    fn on_ack_event(&mut self, _w: &mut CwndState, _ev: &AckEvent, _now: Time) {}
    fn on_sent(&mut self, _bytes: u64, _in_flight: u64, _now: Time) {}
    /// New data is about to leave with nothing in flight (Linux and ns-3 `CA_EVENT_TX_START`);
    /// `app_limited`: the delivery-rate sampler's application-limited mark is set. Called
    /// only for algorithms with [`AnyCc::wants_rate_samples`].
    fn on_tx_start(&mut self, _w: &mut CwndState, _app_limited: bool, _now: Time) {}
    /// The connection is established (cwnd is the initial window; `srtt` from the handshake,
    /// if it gave a sample).
    fn on_established(&mut self, _w: &mut CwndState, _srtt: Option<Dur>, _now: Time) {}
    /// Every ACK's delivery-rate sample, after the endpoint acted on the ACK (algorithms with
    /// [`AnyCc::wants_rate_samples`]).
    fn on_rate_sample(&mut self, _w: &mut CwndState, _ev: &RateEvent, _now: Time) {}
    /// Fast recovery begins and the algorithm owns cwnd in recovery
    /// ([`AnyCc::owns_recovery_cwnd`]): set it, given the bytes in flight and what the ACK
    /// delivered.
    fn on_recovery_start(&mut self, _w: &mut CwndState, _in_flight: u64, _delivered: u64, _now: Time) {}
    /// Pacing rate, if the algorithm paces (BBR).
    fn pacing_rate(&self) -> Option<Rate> {
        None
    }
    /// ACNS holds the window from now until [`Self::on_acns_release`] (docs/tcp.md, "ACNS endpoint"):
    /// a freeze (`fallback` false; cwnd kept) or a fallback (cwnd set back to an earlier
    /// window). The endpoint applies no growth meanwhile and has set cwnd and ssthresh; an
    /// algorithm with a time-based window adjusts its clock (CUBIC: a freeze pauses the epoch,
    /// a fallback ends it). Reno-style algorithms need nothing.
    fn on_acns_hold(&mut self, _fallback: bool, _now: Time) {}
    /// The ACNS hold ends: the next ACK may grow the window again.
    fn on_acns_release(&mut self, _now: Time) {}
    /// How duplicate ACKs are answered.
    fn loss_response(&self) -> LossResponse {
        LossResponse::NewReno
    }
    /// Internal values for tracing.
    fn metrics(&self) -> CcMetrics {
        CcMetrics::default()
    }
}

/// The closed set of algorithms. The endpoint keeps this on the lines every ACK reads, so the
/// variants stay small: an algorithm with more than a few words of state keeps it boxed.
#[derive(Clone, Debug)]
pub enum AnyCc {
    /// NewReno, Reno and Tahoe: one growth rule, three loss responses.
    NewReno(NewReno),
    /// Linux's Reno: whole-segment slow start and avoidance counter, ssthresh from cwnd.
    LinuxReno(LinuxReno),
    Cubic(Box<Cubic>),
    Vegas(Box<Vegas>),
    Compound(Box<Compound>),
    Bbr(Box<Bbr>),
    None(NoCc),
    /// NewReno that paces at a fixed rate: the pacing seam's tests, until an algorithm of
    /// its own sets a rate.
    #[cfg(test)]
    FixedRate(FixedRate),
}

/// NewReno window growth plus a fixed pacing rate (tests), answering duplicate ACKs as
/// told.
#[cfg(test)]
#[derive(Clone, Debug)]
pub struct FixedRate(pub Rate, pub LossResponse);

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
    fn loss_response(&self) -> LossResponse {
        self.1
    }
}

impl AnyCc {
    pub fn new(cfg: &TcpConfig) -> AnyCc {
        match cfg.cc {
            CcKind::NewReno => AnyCc::NewReno(NewReno { capped: cfg.compat.slow_start_capped, response: LossResponse::NewReno }),
            CcKind::Reno => AnyCc::NewReno(NewReno { capped: cfg.compat.slow_start_capped, response: LossResponse::Reno }),
            CcKind::Tahoe => AnyCc::NewReno(NewReno { capped: cfg.compat.slow_start_capped, response: LossResponse::Tahoe }),
            CcKind::LinuxReno => AnyCc::LinuxReno(LinuxReno::new(cfg.compat.cc_linux)),
            CcKind::Cubic => AnyCc::Cubic(Box::new(Cubic::new(cfg.cubic, cfg.compat.cc_linux))),
            CcKind::Vegas => AnyCc::Vegas(Box::new(Vegas::new(cfg.vegas, cfg.compat.cc_linux, cfg.compat.slow_start_capped))),
            CcKind::Compound => AnyCc::Compound(Box::new(Compound::new(cfg.compound))),
            CcKind::Bbr => AnyCc::Bbr(Box::new(Bbr::new(cfg.bbr.clone()))),
            CcKind::None => AnyCc::None(NoCc),
        }
    }
    /// Whether the algorithm takes [`AckEvent`]s (the endpoint builds none for those that do
    /// not: NewReno's ACKs cost what they did before the hook).
    #[inline]
    pub fn wants_ack_events(&self) -> bool {
        matches!(self, AnyCc::Cubic(_) | AnyCc::Vegas(_) | AnyCc::Compound(_))
    }

    /// Whether the algorithm takes a delivery-rate sample on every ACK ([`RateEvent`]): the
    /// endpoint keeps the send-time stamps and builds samples only for those that do.
    #[inline]
    pub fn wants_rate_samples(&self) -> bool {
        matches!(self, AnyCc::Bbr(_))
    }

    /// Whether the algorithm sets cwnd itself in loss recovery and CWR (BBR's packet
    /// conservation and restore) instead of the endpoint's PRR or classic recovery and the
    /// `cwnd = ssthresh` at their end.
    #[inline]
    pub fn owns_recovery_cwnd(&self) -> bool {
        matches!(self, AnyCc::Bbr(_))
    }

    /// Whether the algorithm draws random numbers (BBR's ProbeBW cycle start).
    pub fn draws_random(&self) -> bool {
        matches!(self, AnyCc::Bbr(_))
    }

    /// Hands the algorithm its random stream (derived from the flow's name by the engine);
    /// only BBR draws.
    pub fn set_rng(&mut self, rng: RngStream) {
        if let AnyCc::Bbr(b) = self {
            b.set_rng(rng);
        }
    }

    /// Whether the algorithm reads [`AckSample::cwnd_limited`] (ns-3's `m_isCwndLimited`): the
    /// endpoint updates it after each data segment only for those that do.
    #[inline]
    pub fn reads_cwnd_limited(&self) -> bool {
        self.wants_ack_events() || matches!(self, AnyCc::LinuxReno(_))
    }

    /// One field on each cache line of the algorithm's out-of-line state, for the endpoint's
    /// second prefetch step (`Endpoint::prefetch_segments`); nothing for the inline variants.
    #[inline]
    pub fn prefetch_lines(&self, p: &mut impl crate::prefetch::Lines) {
        match self {
            AnyCc::Cubic(c) => c.prefetch_lines(p),
            AnyCc::Vegas(v) => v.prefetch_lines(p),
            AnyCc::Compound(c) => c.prefetch_lines(p),
            _ => {}
        }
    }

    /// Address and size of the out-of-line state (layout tests).
    #[cfg(test)]
    pub(crate) fn boxed_state(&self) -> Option<(usize, usize)> {
        fn span<T>(b: &T) -> Option<(usize, usize)> {
            Some((b as *const T as usize, std::mem::size_of::<T>()))
        }
        match self {
            AnyCc::Cubic(c) => span(&**c),
            AnyCc::Vegas(v) => span(&**v),
            AnyCc::Compound(c) => span(&**c),
            _ => None,
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
            AnyCc::LinuxReno($c) => $e,
            AnyCc::Cubic($c) => $e,
            AnyCc::Vegas($c) => $e,
            AnyCc::Compound($c) => $e,
            AnyCc::Bbr($c) => $e,
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
    fn on_state_change(&mut self, w: &mut CwndState, from: CaState, to: CaState, snd_nxt: u64, now: Time) {
        dispatch!(self, c => c.on_state_change(w, from, to, snd_nxt, now))
    }
    #[inline]
    fn on_ack_event(&mut self, w: &mut CwndState, ev: &AckEvent, now: Time) {
        match self {
            // Nothing to do for the window-only algorithms: keep their ACKs off the dispatch.
            AnyCc::NewReno(_) | AnyCc::LinuxReno(_) | AnyCc::None(_) | AnyCc::Bbr(_) => {}
            AnyCc::Cubic(c) => c.on_ack_event(w, ev, now),
            AnyCc::Vegas(c) => c.on_ack_event(w, ev, now),
            AnyCc::Compound(c) => c.on_ack_event(w, ev, now),
            #[cfg(test)]
            AnyCc::FixedRate(_) => {}
        }
    }
    fn metrics(&self) -> CcMetrics {
        dispatch!(self, c => c.metrics())
    }
    fn on_sent(&mut self, bytes: u64, in_flight: u64, now: Time) {
        dispatch!(self, c => c.on_sent(bytes, in_flight, now))
    }
    fn on_tx_start(&mut self, w: &mut CwndState, app_limited: bool, now: Time) {
        dispatch!(self, c => c.on_tx_start(w, app_limited, now))
    }
    fn pacing_rate(&self) -> Option<Rate> {
        dispatch!(self, c => c.pacing_rate())
    }
    fn on_established(&mut self, w: &mut CwndState, srtt: Option<Dur>, now: Time) {
        dispatch!(self, c => c.on_established(w, srtt, now))
    }
    fn on_rate_sample(&mut self, w: &mut CwndState, ev: &RateEvent, now: Time) {
        dispatch!(self, c => c.on_rate_sample(w, ev, now))
    }
    fn on_recovery_start(&mut self, w: &mut CwndState, in_flight: u64, delivered: u64, now: Time) {
        dispatch!(self, c => c.on_recovery_start(w, in_flight, delivered, now))
    }
    fn on_acns_hold(&mut self, fallback: bool, now: Time) {
        dispatch!(self, c => c.on_acns_hold(fallback, now))
    }
    fn on_acns_release(&mut self, now: Time) {
        dispatch!(self, c => c.on_acns_release(now))
    }
    #[inline]
    fn loss_response(&self) -> LossResponse {
        dispatch!(self, c => c.loss_response())
    }
}
