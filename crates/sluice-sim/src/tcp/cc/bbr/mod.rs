//! BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00; ns-3 `TcpBbr`, Linux `tcp_bbr.c`):
//! a model of the path — the bottleneck bandwidth (BtlBw, the windowed maximum of the
//! delivery rate over 10 rounds) and the round-trip propagation time (RTprop, the minimum RTT
//! over 10 s) — sets the pacing rate (`pacing_gain·BtlBw`) and cwnd (`cwnd_gain·BDP` plus
//! allowances), and a state machine probes it: Startup, Drain, ProbeBW, ProbeRTT
//! (docs/algorithms/bbr.md).
//!
//! BBR takes a delivery-rate sample on every ACK (the endpoint's [`crate::tcp::rate`]
//! sampler, through [`CongestionControl::on_rate_sample`]) and sets cwnd itself, in loss
//! recovery too (packet conservation instead of PRR). `bbr.target` picks the draft's target
//! window or ns-3.44's; `bbr.cycle_start` how ProbeBW's first phase is drawn.
//!
//! | file | concern |
//! |---|---|
//! | `mod.rs` | options, state, the per-ACK update, control outputs (pacing rate, send quantum, cwnd), loss |
//! | `states.rs` | Startup / full-pipe test, Drain, ProbeBW's gain cycle, ProbeRTT |
//! | `filters.rs` | the BtlBw windowed maximum and the RTprop filter |

mod filters;
mod states;
#[cfg(test)]
mod tests;

use super::{AckSample, CaState, CcMetrics, CongestionControl, CwndState, LossCause, RateEvent};
use filters::{MaxFilter, MinRtt};
use sluice_core::rng::RngStream;
use sluice_core::{Dur, Rate, Time};

/// Which target window BBR computes (`bbr.target`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BbrTarget {
    /// draft-cardwell-iccrg-bbr-congestion-control-00: `inflight(cwnd_gain) = cwnd_gain·BDP +
    /// 3·send_quantum`, the send quantum 1 MSS below 1.2 Mb/s, 2 MSS below 24 Mb/s, else
    /// `min(pacing_rate·1 ms, 64 KB)`.
    #[serde(rename = "draft")]
    Draft,
    /// ns-3.44 `TcpBbr`: a 1-MSS send quantum, 2 SMSS more in ProbeBW's 5/4 phase, plus the
    /// ACK-aggregation allowance (`extra_acked`) once the pipe is full; seeds BtlBw with the
    /// initial rate and sets cwnd to ssthresh at the end of fast recovery, as ns-3 does.
    #[serde(rename = "ns3")]
    Ns3,
}

/// How ProbeBW's first gain-cycle phase is drawn (`bbr.cycle_start`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BbrCycleStart {
    /// The draft: index `7 − U{0..6}`, then advanced once: any phase but 3/4.
    #[serde(rename = "draft")]
    Draft,
    /// ns-3.44: `7 − ⌊U[0, 6)⌋`, then advanced: never 3/4 nor the first 1 after it.
    #[serde(rename = "ns3")]
    Ns3,
}

/// Which stream ProbeBW's draws come from (`bbr.cycle_stream`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BbrCycleStream {
    /// Each flow its own, derived from the run's seed and the flow's name.
    #[serde(rename = "flow")]
    Flow,
    /// One sequence every flow draws in full, derived from the run's seed alone: ns-3.44's
    /// `TcpBbr` sets its generator to stream 4 (its `Stream` attribute's default) in every
    /// socket, so every BBR flow of a run draws the same numbers.
    #[serde(rename = "shared")]
    Shared,
}

impl BbrCycleStream {
    pub fn as_str(self) -> &'static str {
        match self {
            BbrCycleStream::Flow => "flow",
            BbrCycleStream::Shared => "shared",
        }
    }
}

impl BbrTarget {
    pub fn as_str(self) -> &'static str {
        match self {
            BbrTarget::Draft => "draft",
            BbrTarget::Ns3 => "ns3",
        }
    }
}

impl BbrCycleStart {
    pub fn as_str(self) -> &'static str {
        match self {
            BbrCycleStart::Draft => "draft",
            BbrCycleStart::Ns3 => "ns3",
        }
    }

    /// The largest draw: `U{0..6}` (draft), `⌊U[0, 6)⌋` (ns-3).
    pub fn draw_max(self) -> u8 {
        match self {
            BbrCycleStart::Draft => 6,
            BbrCycleStart::Ns3 => 5,
        }
    }
}

/// BBR's options (`[tcp.bbr]`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BbrConfig {
    pub target: BbrTarget,
    pub cycle_start: BbrCycleStart,
    /// Which stream the draws come from.
    pub cycle_stream: BbrCycleStream,
    /// ProbeBW's draws given in advance, used in order at each entry to ProbeBW instead of
    /// drawing from the flow's stream: each the integer `cycle_start` draws (0–5 under
    /// `"ns3"`, 0–6 under `"draft"`). Past the end of the list, draws come from the stream
    /// again. Lets a run replay another simulator's draws (docs/algorithms/bbr.md).
    pub cycle_draws: Vec<u8>,
    /// Startup's pacing and cwnd gain (its inverse is Drain's pacing gain).
    pub high_gain: f64,
    /// The fraction the pacing rate is held below `pacing_gain·BtlBw` (ns-3 `m_pacingMargin`,
    /// Linux `bbr_pacing_margin_percent`).
    pub pacing_margin: f64,
}

impl Default for BbrConfig {
    /// draft-cardwell-iccrg-bbr-congestion-control-00: `BBRHighGain = 2/ln 2` (2.885), no
    /// pacing margin, its target window and cycle start, a stream of draws per flow.
    /// (`validate = "ns3.44"` takes ns-3.44's `TcpBbr`: target and cycle start `"ns3"`, one
    /// stream shared by every flow, HighGain 2.89, a 1 % pacing margin.)
    fn default() -> Self {
        BbrConfig {
            target: BbrTarget::Draft,
            cycle_start: BbrCycleStart::Draft,
            cycle_stream: BbrCycleStream::Flow,
            cycle_draws: Vec::new(),
            high_gain: 2.0 / std::f64::consts::LN_2,
            pacing_margin: 0.0,
        }
    }
}

impl BbrConfig {
    /// ns-3.44 `TcpBbr`'s values.
    pub fn ns3() -> Self {
        BbrConfig {
            target: BbrTarget::Ns3,
            cycle_start: BbrCycleStart::Ns3,
            cycle_stream: BbrCycleStream::Shared,
            cycle_draws: Vec::new(),
            high_gain: 2.89,
            pacing_margin: 0.01,
        }
    }

    /// Checks the values; `Err((key, message))`.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.high_gain.is_finite() && self.high_gain > 1.0) {
            return Err((
                "high_gain",
                format!("must be a number above 1, got {}", self.high_gain),
            ));
        }
        let most = self.cycle_start.draw_max();
        if let Some(d) = self.cycle_draws.iter().find(|&&d| d > most) {
            return Err((
                "cycle_draws",
                format!(
                    "each must be in 0..={most} under cycle_start = \"{}\", got {d}",
                    self.cycle_start.as_str()
                ),
            ));
        }
        if !(self.pacing_margin >= 0.0 && self.pacing_margin < 1.0) {
            return Err((
                "pacing_margin",
                format!("must be in [0, 1), got {}", self.pacing_margin),
            ));
        }
        Ok(())
    }

    /// The options as recorded in a summary; `bbr.cycle_draws` only when some are given.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let mut d = vec![
            ("bbr.target", self.target.as_str().to_string()),
            ("bbr.cycle_start", self.cycle_start.as_str().to_string()),
            ("bbr.cycle_stream", self.cycle_stream.as_str().to_string()),
            ("bbr.high_gain", self.high_gain.to_string()),
            ("bbr.pacing_margin", self.pacing_margin.to_string()),
        ];
        if !self.cycle_draws.is_empty() {
            let list: Vec<String> = self.cycle_draws.iter().map(u8::to_string).collect();
            d.push(("bbr.cycle_draws", format!("[{}]", list.join(","))));
        }
        d
    }
}

/// BtlBw's window, rounds.
const BW_WINDOW: u64 = 10;
/// RTprop's window.
const RTPROP_WINDOW: Dur = Dur::from_secs(10);
/// ProbeRTT's duration at the minimum window.
const PROBE_RTT_DURATION: Dur = Dur::from_millis(200);
/// The minimum window, segments.
const MIN_PIPE_SEGMENTS: u64 = 4;
/// ProbeBW's cwnd gain.
const PROBE_BW_CWND_GAIN: f64 = 2.0;
/// ProbeBW's pacing-gain cycle.
const GAIN_CYCLE: [f64; 8] = [5.0 / 4.0, 3.0 / 4.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// ns-3's ACK-aggregation filter: two slots of 5 rounds, an epoch reset above 4096 B acked.
const EXTRA_ACKED_WIN_ROUNDS: u32 = 5;
const ACK_EPOCH_RESET_BYTES: u64 = 1 << 12;

/// BBR's state machine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    fn code(self) -> f64 {
        match self {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::ProbeBw => 2.0,
            Mode::ProbeRtt => 3.0,
        }
    }
}

/// BBR v1's state.
#[derive(Clone, Debug)]
pub struct Bbr {
    cfg: BbrConfig,
    pub(crate) mode: Mode,
    pub(crate) pacing_gain: f64,
    pub(crate) cwnd_gain: f64,
    /// BtlBw: the windowed maximum delivery rate, bit/s, over round counts.
    bw: MaxFilter,
    /// RTprop.
    rtprop: MinRtt,
    rtprop_expired: bool,
    /// The last RTT sample (ns-3 reads `m_lastRtt`, kept between ACKs).
    last_rtt: Option<Dur>,
    // Round counting.
    round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    // The full-pipe test.
    filled_pipe: bool,
    full_bw: u64,
    full_bw_count: u32,
    // ProbeBW.
    cycle_index: usize,
    cycle_stamp: Time,
    // ProbeRTT.
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    idle_restart: bool,
    /// ns-3's `m_appLimited`: `delivered + in_flight` at the last ProbeRTT step, 0 before
    /// any (its idle restart reads this, not the rate sampler's mark).
    probe_rtt_app_limited: u64,
    // Loss.
    packet_conservation: bool,
    prior_cwnd: u64,
    /// The congestion state, as the endpoint last reported it.
    ca: CaState,
    // Control outputs.
    /// bit/s; never 0 once initialized.
    pacing_rate: u64,
    send_quantum: u64,
    target_cwnd: u64,
    /// The connection's delivered bytes (the rate sampler's).
    delivered: u64,
    /// Bytes in flight after the ACK being processed.
    in_flight: u64,
    /// Bytes lost per the ACK being processed: newly marked lost (the draft), or ns-3's change
    /// of the bytes marked lost either way ([`RateEvent::lost_change`]).
    lost: u64,
    initial_cwnd: u64,
    smss: u64,
    initialized: bool,
    // ns-3's ACK-aggregation estimate (`bbr.target = "ns3"`).
    extra_acked: [u64; 2],
    extra_acked_win_rtt: u32,
    extra_acked_idx: usize,
    ack_epoch_time: Time,
    ack_epoch_acked: u64,
    /// ProbeBW's cycle-start draws: the flow's own stream (docs/algorithms/bbr.md).
    rng: RngStream,
    /// How many of `cfg.cycle_draws` ProbeBW has used.
    draws_used: usize,
}

impl Bbr {
    pub fn new(cfg: BbrConfig) -> Bbr {
        Bbr {
            mode: Mode::Startup,
            pacing_gain: cfg.high_gain,
            cwnd_gain: cfg.high_gain,
            cfg,
            bw: MaxFilter::default(),
            rtprop: MinRtt {
                value: None,
                stamp: Time::ZERO,
            },
            rtprop_expired: false,
            last_rtt: None,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            filled_pipe: false,
            full_bw: 0,
            full_bw_count: 0,
            cycle_index: 0,
            cycle_stamp: Time::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            idle_restart: false,
            probe_rtt_app_limited: 0,
            packet_conservation: false,
            prior_cwnd: 0,
            ca: CaState::Open,
            pacing_rate: 0,
            send_quantum: 0,
            target_cwnd: 0,
            delivered: 0,
            in_flight: 0,
            lost: 0,
            initial_cwnd: 0,
            smss: 0,
            initialized: false,
            extra_acked: [0; 2],
            extra_acked_win_rtt: 0,
            extra_acked_idx: 0,
            ack_epoch_time: Time::ZERO,
            ack_epoch_acked: 0,
            rng: RngStream::from_seed(0),
            draws_used: 0,
        }
    }

    /// Whether data last left on a restart from idle not yet ended by an ACK that delivered
    /// data ([`CongestionControl::on_tx_start`]).
    #[cfg(test)]
    pub(crate) fn restarting_from_idle(&self) -> bool {
        self.idle_restart
    }

    /// Bytes in flight as the last rate event reported them.
    #[cfg(test)]
    pub(crate) fn in_flight_seen(&self) -> u64 {
        self.in_flight
    }

    /// The stream ProbeBW's cycle start is drawn from.
    #[cfg(test)]
    pub(crate) fn rng(&self) -> &RngStream {
        &self.rng
    }

    /// The stream ProbeBW's cycle start is drawn from (the engine derives it from the flow's
    /// name).
    pub fn set_rng(&mut self, rng: RngStream) {
        self.rng = rng;
    }

    /// BtlBw, bit/s.
    pub fn btl_bw(&self) -> u64 {
        self.bw.best()
    }

    /// RTprop, if measured.
    pub fn rtprop(&self) -> Option<Dur> {
        self.rtprop.value
    }

    /// BDP = BtlBw·RTprop, bytes (unrounded).
    fn bdp(&self) -> Option<f64> {
        self.rtprop
            .value
            .map(|r| self.bw.best() as f64 * r.0 as f64 / 8e9)
    }

    /// `inflight(gain)`: `gain·BDP + 3·send_quantum` (the initial window before any RTT), with
    /// ns-3's 2 SMSS more in ProbeBW's 5/4 phase (`bbr.target = "ns3"`).
    pub(crate) fn inflight(&self, gain: f64) -> u64 {
        let Some(bdp) = self.bdp() else {
            return self.initial_cwnd;
        };
        let quanta = 3 * self.send_quantum;
        let mut v = (gain * bdp) as u64 + quanta;
        if self.cfg.target == BbrTarget::Ns3 && self.mode == Mode::ProbeBw && self.cycle_index == 0
        {
            v += 2 * self.smss;
        }
        v
    }

    /// BBRInit at the connection's start (ns-3: the first entry to Open): RTprop from the
    /// handshake's RTT, Startup, and an initial pacing rate of `high_gain·IW/RTT`.
    fn init(&mut self, w: &mut CwndState, srtt: Option<Dur>, now: Time) {
        self.initialized = true;
        self.smss = w.smss as u64;
        self.initial_cwnd = w.cwnd;
        self.prior_cwnd = w.cwnd;
        self.target_cwnd = w.cwnd;
        self.send_quantum = self.smss;
        self.rtprop = MinRtt {
            value: srtt,
            stamp: now,
        };
        self.ack_epoch_time = now;
        self.enter_startup();
        // Initial rate: IW over the RTT (ns-3: whole milliseconds of it), at least 1 ms.
        let rtt = match (self.cfg.target, srtt) {
            (BbrTarget::Ns3, Some(r)) => Dur::from_millis(r.0 / 1_000_000),
            (_, Some(r)) => r,
            (_, None) => Dur::ZERO,
        }
        .max(Dur::from_millis(1));
        let nominal = (w.cwnd as f64 * 8.0 / rtt.as_secs_f64()) as u64;
        self.pacing_rate = ((self.pacing_gain * nominal as f64) as u64).max(1);
        if self.cfg.target == BbrTarget::Ns3 {
            // ns-3 builds the bandwidth filter with that nominal rate at round 0 as its zero
            // value: it stands until the first sample, which replaces it whatever its value.
            self.bw = MaxFilter::seeded(0, nominal);
        }
    }

    /// The draft's BBRSaveCwnd: remember cwnd on entering loss recovery or ProbeRTT (keeping
    /// the larger when already in one).
    fn save_cwnd(&mut self, cwnd: u64) {
        self.prior_cwnd = if self.ca != CaState::Recovery && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    fn restore_cwnd(&mut self, w: &mut CwndState) {
        w.cwnd = w.cwnd.max(self.prior_cwnd);
    }

    fn min_pipe(&self) -> u64 {
        MIN_PIPE_SEGMENTS * self.smss
    }

    /// The per-ACK update (ns-3 `CongControl`; the draft's `BBRUpdateOnACK`).
    fn on_sample(&mut self, w: &mut CwndState, ev: &RateEvent, now: Time) {
        if !self.initialized {
            self.init(w, ev.srtt, now);
        }
        self.ca = ev.ca;
        self.delivered = ev.delivered;
        self.in_flight = ev.in_flight;
        self.lost = match self.cfg.target {
            BbrTarget::Draft => ev.rs.lost,
            BbrTarget::Ns3 => ev.lost_change,
        };
        if ev.rtt.is_some() {
            self.last_rtt = ev.rtt;
        }
        // The model and the state machine.
        self.update_btl_bw(ev);
        if self.cfg.target == BbrTarget::Ns3 {
            self.update_ack_aggregation(w, ev, now);
        }
        self.check_cycle_phase(ev, now);
        self.check_full_pipe(ev);
        self.check_drain(w, now);
        self.update_rtprop(ev, now);
        self.check_probe_rtt(w, ev, now);
        // The control outputs.
        self.set_pacing_rate(self.pacing_gain);
        self.set_send_quantum();
        self.set_cwnd(w, ev);
    }

    /// Round counting, then BtlBw takes the sample if it is not app-limited or beats the
    /// maximum (an invalid sample does neither, as in ns-3 and Linux).
    fn update_btl_bw(&mut self, ev: &RateEvent) {
        let rs = &ev.rs;
        if !rs.valid() {
            return;
        }
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = self.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        } else {
            self.round_start = false;
        }
        let rate = rs.rate_bps();
        if rate >= self.bw.best() || !rs.is_app_limited {
            match self.cfg.target {
                BbrTarget::Draft => self.bw.update(self.round_count, rate, BW_WINDOW),
                BbrTarget::Ns3 => self.bw.update_ns3(self.round_count, rate, BW_WINDOW),
            }
        }
    }

    /// ns-3's `UpdateAckAggregation`: bytes acknowledged beyond what BtlBw explains since the
    /// epoch began, its maximum kept in two slots of five rounds. ns-3 counts the epoch's age in
    /// whole seconds: the difference of the two times in seconds, truncated to an integer
    /// (`uint32_t epochProp`), so an epoch begun at 3.9 s is 0 s old at 4.1 s.
    fn update_ack_aggregation(&mut self, w: &CwndState, ev: &RateEvent, now: Time) {
        let acked = ev.rs.acked_sacked;
        if acked == 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtt = (self.extra_acked_win_rtt + 1).min(31);
            if self.extra_acked_win_rtt >= EXTRA_ACKED_WIN_ROUNDS {
                self.extra_acked_win_rtt = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0;
            }
        }
        let epoch_secs = (now.0 - self.ack_epoch_time.0) / 1_000_000_000;
        let mut expected = (self.bw.best() as u128 * epoch_secs as u128 / 8) as u64;
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + acked >= ACK_EPOCH_RESET_BYTES
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_time = now;
            expected = 0;
        }
        self.ack_epoch_acked += acked;
        let extra = (self.ack_epoch_acked - expected).min(w.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_idx];
        *slot = (*slot).max(extra);
    }

    /// ns-3's `AckAggregationCwnd`: the larger slot, at most BtlBw·100 ms, once the pipe is full.
    fn ack_aggregation_cwnd(&self) -> u64 {
        if self.cfg.target != BbrTarget::Ns3 || !self.filled_pipe {
            return 0;
        }
        let cap = self.bw.best() / 80;
        self.extra_acked[0].max(self.extra_acked[1]).min(cap)
    }

    /// `pacing_rate = gain·BtlBw·(1 − margin)`; before the pipe is full it only rises.
    pub(crate) fn set_pacing_rate(&mut self, gain: f64) {
        let mut rate = (gain * self.bw.best() as f64) as u64;
        if self.cfg.pacing_margin > 0.0 {
            rate = (rate as f64 * (1.0 - self.cfg.pacing_margin)) as u64;
        }
        if (self.filled_pipe || rate > self.pacing_rate) && rate > 0 {
            self.pacing_rate = rate;
        }
    }

    /// The draft's send quantum (`bbr.target = "draft"`), or ns-3's one segment.
    fn set_send_quantum(&mut self) {
        self.send_quantum = match self.cfg.target {
            BbrTarget::Ns3 => self.smss,
            BbrTarget::Draft if self.pacing_rate < 1_200_000 => self.smss,
            BbrTarget::Draft if self.pacing_rate < 24_000_000 => 2 * self.smss,
            BbrTarget::Draft => (self.pacing_rate / 8_000).min(64 * 1024),
        };
    }

    /// The draft's BBRSetCwnd (ns-3 `SetCwnd`): packet conservation in the first round of
    /// recovery, then toward the target `inflight(cwnd_gain)` (+ ns-3's aggregation allowance):
    /// capped at it once the pipe is full, growing by what was delivered before; at least 4
    /// segments; at most 4 in ProbeRTT.
    fn set_cwnd(&mut self, w: &mut CwndState, ev: &RateEvent) {
        let acked = ev.rs.acked_sacked;
        if acked > 0 {
            let recovering = match self.cfg.target {
                // ns-3 subtracts losses only in recovery, and skips the growth whenever it
                // conserves packets there.
                BbrTarget::Ns3 => self.ca == CaState::Recovery && self.modulate_for_recovery(w, ev),
                BbrTarget::Draft => self.modulate_for_recovery(w, ev),
            };
            if !recovering {
                self.target_cwnd = self.inflight(self.cwnd_gain) + self.ack_aggregation_cwnd();
                // ns-3 keeps cwnd in 32 bits: after a recovery that ended at the unbounded
                // initial ssthresh (`UINT32_MAX`, before Drain set one), the growth wraps
                // around to a few bytes.
                let grown = match self.cfg.target {
                    BbrTarget::Ns3 => (w.cwnd + acked) as u32 as u64,
                    BbrTarget::Draft => w.cwnd + acked,
                };
                if self.filled_pipe {
                    w.cwnd = grown.min(self.target_cwnd);
                } else if w.cwnd < self.target_cwnd || self.delivered < self.initial_cwnd {
                    w.cwnd = grown;
                }
                w.cwnd = w.cwnd.max(self.min_pipe());
            }
        }
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(self.min_pipe());
        }
    }

    /// Losses come off cwnd (at least 1 SMSS left); in packet conservation cwnd covers what is
    /// in flight plus what this ACK delivered. Returns whether packet conservation holds.
    fn modulate_for_recovery(&mut self, w: &mut CwndState, ev: &RateEvent) -> bool {
        if self.lost > 0 {
            w.cwnd = w.cwnd.saturating_sub(self.lost).max(self.smss);
        }
        if self.packet_conservation {
            w.cwnd = w.cwnd.max(ev.in_flight + ev.rs.acked_sacked);
            return true;
        }
        false
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// BBR sets cwnd on its rate samples; the window-growth hook does nothing.
    fn on_ack(&mut self, _w: &mut CwndState, _ack: &AckSample, _now: Time) {}

    /// ssthresh is left as it is (BBR has none of its own; ns-3 returns the current value),
    /// cwnd remembered for the end of recovery.
    fn ssthresh_after_loss(
        &mut self,
        w: &CwndState,
        _in_flight: u64,
        _cause: LossCause,
        _now: Time,
    ) -> u64 {
        self.save_cwnd(w.cwnd);
        w.ssthresh
    }

    /// A timeout: cwnd remembered, then 1 segment (the draft's `packets_in_flight + 1` with
    /// everything marked lost); the next sample starts a round (ns-3).
    fn on_rto(&mut self, w: &mut CwndState, _now: Time) {
        self.save_cwnd(w.cwnd);
        w.cwnd = w.smss as u64;
        self.round_start = true;
    }

    fn on_established(&mut self, w: &mut CwndState, srtt: Option<Dur>, now: Time) {
        if !self.initialized {
            self.init(w, srtt, now);
        }
    }

    /// The restart from idle: data leaves with nothing in flight while application-limited.
    /// ProbeBW paces this flight at BtlBw (gain 1) instead of the phase's gain, and ProbeRTT
    /// is not entered until an ACK delivers data (draft-cardwell-iccrg-bbr-congestion-control-00
    /// `BBRHandleRestartFromIdle`, with the rate sampler's mark). `bbr.target = "ns3"` follows
    /// ns-3.44's `CwndEvent(CA_EVENT_TX_START)`: the mark is its own `m_appLimited`, set by
    /// ProbeRTT and never cleared (so nothing happens before a flow's first ProbeRTT); it also
    /// restarts the ACK-aggregation epoch, and in ProbeRTT ends it if its round is done and its
    /// 200 ms have passed (a done stamp not yet set counts as 0, as ns-3's `Seconds(0)`).
    fn on_tx_start(&mut self, w: &mut CwndState, app_limited: bool, now: Time) {
        let ns3 = self.cfg.target == BbrTarget::Ns3;
        if !self.initialized || !(if ns3 { self.probe_rtt_app_limited != 0 } else { app_limited }) {
            return;
        }
        self.idle_restart = true;
        if ns3 {
            self.ack_epoch_time = now;
            self.ack_epoch_acked = 0;
        }
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(1.0),
            Mode::ProbeRtt if ns3 && self.probe_rtt_round_done && now > self.probe_rtt_done.unwrap_or(Time::ZERO) => self.exit_probe_rtt(w, now),
            _ => {}
        }
    }

    fn on_recovery_start(&mut self, w: &mut CwndState, in_flight: u64, delivered: u64, _now: Time) {
        // Packet conservation for one round: what is in flight plus what this ACK delivered
        // (at least a segment, for the fast retransmission).
        self.save_cwnd(w.cwnd);
        w.cwnd = in_flight + delivered.max(w.smss as u64);
        self.packet_conservation = true;
    }

    fn on_state_change(
        &mut self,
        w: &mut CwndState,
        from: CaState,
        to: CaState,
        _snd_nxt: u64,
        _now: Time,
    ) {
        self.ca = to;
        if from == CaState::Recovery {
            // Packet conservation belongs to fast recovery (a timeout ends it too).
            self.packet_conservation = false;
        }
        if to != CaState::Open {
            return;
        }
        match from {
            CaState::Recovery => {
                self.restore_cwnd(w);
                if self.cfg.target == BbrTarget::Ns3 {
                    // ns-3's ProcessAck then sets cwnd to ssthresh whatever the algorithm.
                    w.cwnd = w.ssthresh;
                }
            }
            // The draft restores cwnd after a timeout's recovery too; ns-3 does not.
            CaState::Loss if self.cfg.target == BbrTarget::Draft => self.restore_cwnd(w),
            _ => {}
        }
    }

    fn on_rate_sample(&mut self, w: &mut CwndState, ev: &RateEvent, now: Time) {
        self.on_sample(w, ev, now);
    }

    fn pacing_rate(&self) -> Option<Rate> {
        (self.pacing_rate > 0).then_some(Rate(self.pacing_rate))
    }

    fn metrics(&self) -> CcMetrics {
        let mut m = CcMetrics::default();
        m.push("mode", self.mode.code());
        m.push("btl_bw_bps", self.bw.best() as f64);
        m.push(
            "rtprop_s",
            self.rtprop.value.map_or(0.0, |d| d.as_secs_f64()),
        );
        m.push("pacing_gain", self.pacing_gain);
        m
    }
}
