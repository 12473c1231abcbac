//! BBR's state machine: Startup and its full-pipe test, Drain, ProbeBW's gain cycle and
//! ProbeRTT (draft-cardwell-iccrg-bbr-congestion-control-00 §4.3; ns-3 `TcpBbr`).

use super::{
    Bbr, BbrCycleStart, BbrTarget, Mode, GAIN_CYCLE, PROBE_BW_CWND_GAIN, PROBE_RTT_DURATION,
    RTPROP_WINDOW,
};
use crate::tcp::cc::{CwndState, RateEvent};
use sluice_core::Time;

impl Bbr {
    // ---- Startup

    pub(super) fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = self.cfg.high_gain;
        self.cwnd_gain = self.cfg.high_gain;
    }

    /// The full-pipe test, once per round (not on app-limited samples): BtlBw grew less than
    /// 25 % for three rounds in a row.
    pub(super) fn check_full_pipe(&mut self, ev: &RateEvent) {
        if self.filled_pipe || !self.round_start || ev.rs.is_app_limited {
            return;
        }
        if self.bw.best() as f64 >= self.full_bw as f64 * 1.25 {
            self.full_bw = self.bw.best();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= 3 {
            self.filled_pipe = true;
        }
    }

    // ---- Drain

    /// Startup ends when the pipe is full (Drain; ssthresh takes `inflight(1)` as in ns-3);
    /// Drain ends once what is in flight fits the BDP (`inflight(1)`).
    pub(super) fn check_drain(&mut self, w: &mut CwndState, now: Time) {
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / self.cfg.high_gain;
            self.cwnd_gain = self.cfg.high_gain;
            w.ssthresh = self.inflight(1.0);
        }
        if self.mode == Mode::Drain && self.in_flight <= self.inflight(1.0) {
            self.enter_probe_bw(now);
        }
    }

    // ---- ProbeBW

    /// ProbeBW at a random phase other than 3/4 (`bbr.cycle_start`).
    pub(super) fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = PROBE_BW_CWND_GAIN;
        let given = self.cfg.cycle_draws.get(self.draws_used);
        self.draws_used += given.is_some() as usize;
        let draw = match (given, self.cfg.cycle_start) {
            (Some(&d), _) => d as usize,
            // 7 − U{0..6} ∈ {1..7}.
            (None, BbrCycleStart::Draft) => self.rng.below(7) as usize,
            // ns-3: 7 − ⌊U[0, 6)⌋ ∈ {2..7}.
            (None, BbrCycleStart::Ns3) => (self.rng.uniform() * 6.0) as usize,
        };
        self.cycle_index = GAIN_CYCLE.len() - 1 - draw;
        self.advance_cycle_phase(now);
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE.len();
        self.pacing_gain = GAIN_CYCLE[self.cycle_index];
    }

    /// A phase lasts RTprop; 5/4 also until a loss or `inflight(5/4)` is reached; 3/4 ends
    /// early once in flight is down to `inflight(1)`.
    pub(super) fn check_cycle_phase(&mut self, ev: &RateEvent, now: Time) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let full_length = self
            .rtprop
            .value
            .is_some_and(|r| now.since(self.cycle_stamp) > r);
        let next = if self.pacing_gain == 1.0 {
            full_length
        } else if self.pacing_gain > 1.0 {
            full_length
                && (self.lost > 0 || ev.rs.prior_in_flight >= self.inflight(self.pacing_gain))
        } else {
            full_length || ev.rs.prior_in_flight <= self.inflight(1.0)
        };
        if next {
            self.advance_cycle_phase(now);
        }
    }

    // ---- RTprop and ProbeRTT

    /// RTprop takes a sample at least as low, or any once 10 s old (the draft: this ACK's
    /// sample; ns-3: the last one taken, kept between ACKs).
    pub(super) fn update_rtprop(&mut self, ev: &RateEvent, now: Time) {
        self.rtprop_expired = self.rtprop.expired(now, RTPROP_WINDOW);
        let rtt = match self.cfg.target {
            BbrTarget::Draft => ev.rtt,
            BbrTarget::Ns3 => self.last_rtt,
        };
        if let Some(r) = rtt {
            self.rtprop.update(r, self.rtprop_expired, now);
        }
    }

    /// ProbeRTT from any state once RTprop expired (not on an idle restart): cwnd at most 4
    /// segments; once in flight is that low, hold 200 ms and one round, then RTprop is fresh,
    /// cwnd restored, and ProbeBW (pipe full) or Startup follow.
    pub(super) fn check_probe_rtt(&mut self, w: &mut CwndState, ev: &RateEvent, now: Time) {
        if self.mode != Mode::ProbeRtt && self.rtprop_expired && !self.idle_restart {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd(w.cwnd);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            self.handle_probe_rtt(w, now);
        }
        if ev.rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    fn handle_probe_rtt(&mut self, w: &mut CwndState, now: Time) {
        // ns-3's own application-limited mark (`m_appLimited`), read only by its idle restart
        // ([`Bbr::on_tx_start`]); the rate sampler never sees it.
        self.probe_rtt_app_limited = (self.delivered + self.in_flight).max(1);
        match self.probe_rtt_done {
            None if self.in_flight <= self.min_pipe() => {
                self.probe_rtt_done = Some(now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = self.delivered;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    self.exit_probe_rtt(w, now);
                }
            }
        }
    }

    /// ProbeRTT is over: RTprop counts as fresh, cwnd is restored, and ProbeBW (pipe full) or
    /// Startup follows.
    pub(super) fn exit_probe_rtt(&mut self, w: &mut CwndState, now: Time) {
        self.rtprop.stamp = now;
        self.restore_cwnd(w);
        if self.filled_pipe {
            self.enter_probe_bw(now);
        } else {
            self.enter_startup();
        }
    }
}
