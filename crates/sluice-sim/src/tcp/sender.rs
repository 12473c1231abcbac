//! The sending half: ACK processing, window updates, duplicate ACKs, loss recovery (RFC 6582
//! NewReno, RFC 6675 SACK, RFC 6937/9937 PRR), the retransmission timer (RFC 6298) and ECN
//! response (RFC 3168 §6.1.2).
//!
//! The code follows the RFCs; where the `validate = "ns3.44"` profile reproduces ns-3 instead,
//! the departure sits in a helper named `ns3_*` (or behind a test of a
//! [`super::config::Ns3Compat`] switch), documented with the ns-3 code it mirrors.

use super::cc::{AckEvent, AckSample, CaState, CongestionControl, LossCause, LossResponse, RateEvent};
use super::config::{DupAckRule, EcnCut, FullAck, NextSeg, Pacing, PrrVariant, Recovery, WndUpdateRule};
use super::endpoint::{ts_clock, ConnState, Endpoint, NEVER, PERSIST_TIMEOUT};
use super::scoreboard::Acked;
use crate::packet::{SackBlocks, SimPacket, TcpOptions, Transport};
use sluice_core::packet::{tcp_flags as F, Ecn};
use sluice_core::seq::{to_wire, unwrap_near};
use sluice_core::{Dur, Rate, Time};

/// PRR's proportional share ⌈prr_delivered · ssthresh / RecoverFS⌉ (RFC 6937 §3.1), exact; or,
/// with `u32_product`, as ns-3.44 computes it: the product in wrapping 32-bit arithmetic.
pub(super) fn prr_share(prr_delivered: u64, ssthresh: u64, recover_fs: u64, u32_product: bool) -> u64 {
    let fs = recover_fs.max(1);
    if u32_product {
        let num = (prr_delivered as u32).wrapping_mul(ssthresh as u32);
        return (num as f64 / fs as f64).ceil() as u64;
    }
    match prr_delivered.checked_mul(ssthresh) {
        Some(num) => num.div_ceil(fs),
        None => (prr_delivered as u128 * ssthresh as u128).div_ceil(fs as u128) as u64,
    }
}

/// PRR's catch-up base `max(prr_delivered − prr_out, DeliveredData)` (RFC 6937 §3.1 PRR-SSRB,
/// RFC 9937's PRR-CRB limit before its safe-ACK bonus), exactly, or as ns-3.44 computes it in
/// 32-bit unsigned arithmetic read back as an int (`Ns3Compat::prr_u32_limit`).
pub(super) fn prr_limit_base(prr_delivered: u64, prr_out: u64, delivered: u64, u32_limit: bool) -> i64 {
    if u32_limit {
        (prr_delivered as u32).wrapping_sub(prr_out as u32).max(delivered as u32) as i32 as i64
    } else {
        (prr_delivered as i64 - prr_out as i64).max(delivered as i64)
    }
}

/// An ACK that advanced SND.UNA, as the congestion-state handlers of [`Endpoint::new_ack`] see it.
struct NewAck {
    /// The cumulative ACK (now SND.UNA).
    ack: u64,
    /// SND.UNA before it.
    prev_una: u64,
    /// Bytes it took off the scoreboard.
    removed: u64,
    /// RFC 6937 DeliveredData: bytes acknowledged and not SACKed before, plus newly SACKed.
    delivered: u64,
    /// What the congestion control is told was acknowledged: `delivered`, or whole segments
    /// of it under `Ns3Compat::acked_whole_segments`.
    cc_bytes: u64,
    /// It acknowledged retransmitted data (RFC 9937's safe ACK as ns-3 approximates it).
    acked_retx: bool,
    /// It also SACKed new data and counted as a duplicate.
    is_dup: bool,
    /// Its RTT sample, if any.
    rtt: Option<Dur>,
    /// It carried ECN-Echo on an ECN connection.
    ece: bool,
}

/// What an [`AckEvent`] carries from the ACK itself (the rest is read when it is sent).
#[derive(Copy, Clone)]
struct AckEventArgs {
    rtt: Option<Dur>,
    delivered: u64,
    prior_in_flight: u64,
    lost: u64,
    dup: bool,
}

impl Endpoint {
    /// A segment in a synchronized state: ACK processing, then data.
    pub(super) fn established_segment(&mut self, pkt: &SimPacket, now: Time, out: &mut Vec<SimPacket>) {
        let Transport::Tcp { seq, ack, flags, window, ref opts, bits } = pkt.transport else {
            return;
        };
        if bits.opt33_len().is_some() {
            // NGWA (`tcp/ngwa.rs`): only stamped segments, so without NGWA a test of the
            // segment's own bits.
            self.ngwa_arrival(pkt.opt33);
        }
        if self.state == ConnState::TimeWait && !self.cfg.compat.time_wait_answers {
            return; // ns-3's TIME_WAIT does nothing
        }
        if flags & F::SYN != 0 {
            // A retransmitted SYN-ACK: our ACK was lost. Acknowledge again (RFC 9293
            // §3.10.7.4: an unacceptable segment is answered with an ACK); ns-3 ignores it.
            if self.cfg.compat.ack_duplicate_synack {
                self.send_ack(now, out);
            }
            if !self.cfg.compat.synack_keeps_window {
                self.ns3_synack_resets_window();
            }
            return;
        }
        let seg_seq = unwrap_near(self.irs, seq, self.rcv_nxt);
        if flags & F::ACK != 0 {
            self.process_ack(pkt, seg_seq, ack, window, opts, flags, now, out);
        }
        let fin = flags & F::FIN != 0;
        if pkt.payload > 0 || fin {
            self.receive_data(pkt, seg_seq, opts, flags, now, out);
        }
        self.send_pending(now, out);
    }

    #[allow(clippy::too_many_arguments)]
    fn process_ack(&mut self, pkt: &SimPacket, seg_seq: u64, ack_wire: u32, window: u16, opts: &TcpOptions, flags: u8, now: Time, out: &mut Vec<SimPacket>) {
        let ack = unwrap_near(self.iss, ack_wire, self.snd_una);
        if ack > self.snd_max {
            // Acknowledges data never sent (RFC 9293 §3.10.7.4): answer with an ACK, drop it.
            self.send_ack(now, out);
            return;
        }
        let snd_una_before = self.snd_una;
        let wnd_before = self.snd_wnd;
        let wnd_bytes = (window as u64) << self.snd_shift;
        let carries_data = pkt.payload > 0 || flags & (F::SYN | F::FIN) != 0;
        // Bytes in flight before this ACK, for an algorithm that takes every ACK's event.
        let rate_on = self.cc.wants_rate_samples();
        let prior_in_flight = if self.cc.wants_ack_events() || rate_on { self.pipe() } else { 0 };
        let lost_before = self.sb.lost_bytes;
        if rate_on {
            self.rate_mut().begin_ack();
        }

        // SACK information first (RFC 6675 §5: update the scoreboard on every ACK).
        let mut newly_sacked = 0;
        let mut newly_lost = 0;
        if self.sack_ok && opts.sack.n > 0 {
            for &(l, r) in opts.sack.as_slice() {
                let l = unwrap_near(self.iss, l, self.snd_una);
                let mut r = unwrap_near(self.iss, r, self.snd_una);
                if r == self.app_end && self.fin_rode_on_data() {
                    // A block up to the end of the data covers the FIN that rode on its last
                    // segment: ns-3's receiver reports only data, Linux's the FIN too.
                    r += 1;
                }
                if r > l && l >= ack && r <= self.snd_max {
                    newly_sacked += self.sb.sack(l, r);
                    if rate_on {
                        self.rate_mut().on_sacked(l, r, now);
                    }
                }
            }
            // RFC 6675 §5: the scoreboard, loss marks included, follows every ACK that brings
            // SACK information, whatever the state (after a timeout too). Only new SACK
            // information can mark a segment lost, so this is the one place that updates them.
            if newly_sacked > 0 {
                newly_lost = self.sb.update_lost(self.cfg.dupthresh, self.smss);
            }
        }

        self.update_window(seg_seq, ack, wnd_bytes, snd_una_before);

        // ECN-Echo (RFC 3168 §6.1.2); under ACNS the ACK's command instead.
        let ece = self.ecn_ok && self.ecn_echo_of(ack, flags, pkt.seg_bits(), now);

        // With SACK, the default and ns-3 rules count any ACK that SACKs new data as a duplicate,
        // a cumulative one included (RFC 6675 §5: "regardless of its status as a cumulative
        // acknowledgment").
        let sack_dup = self.sack_ok && newly_sacked > 0 && matches!(self.cfg.dupack, DupAckRule::Default | DupAckRule::Ns3);
        // The congestion control hears of the ACK before the endpoint acts on it (Linux
        // `pkts_acked`), or where ns-3's ProcessAck calls `PktsAcked` (`Ns3Compat::cc_linux` off).
        let early = self.cfg.compat.cc_linux;
        let mut ack_rtt = None;
        if ack > snd_una_before {
            if rate_on {
                self.rate_mut().on_acked(ack, now);
            }
            let n = self.take_cumulative_ack(ack, newly_sacked, sack_dup, ece, opts, now);
            ack_rtt = n.rtt;
            let ev = AckEventArgs { rtt: n.rtt, delivered: n.delivered, prior_in_flight, lost: newly_lost, dup: sack_dup };
            if early {
                self.ack_event(ev, now);
            }
            self.new_ack(n, (!early).then_some(ev), now, out);
        } else if ack == snd_una_before && self.snd_max > self.snd_una {
            let is_dup = match self.cfg.dupack {
                DupAckRule::Default | DupAckRule::Ns3 => {
                    if self.sack_ok {
                        sack_dup
                    } else {
                        !carries_data
                    }
                }
                DupAckRule::Strict => !carries_data && self.last_wnd_field == Some(window),
                DupAckRule::Linux => !carries_data && wnd_bytes <= wnd_before && wnd_bytes != 0,
            };
            let ev = AckEventArgs { rtt: None, delivered: newly_sacked, prior_in_flight, lost: newly_lost, dup: is_dup };
            if early {
                self.ack_event(ev, now);
            }
            if is_dup {
                self.dup_ack(newly_sacked, now, out);
            } else if self.ca == CaState::Recovery && newly_sacked > 0 {
                self.recovery_ack(newly_sacked, false, false, None, now);
            }
            if !early {
                // ns-3: `PktsAcked(1)` after `DupAck`.
                self.ack_event(ev, now);
            }
        }
        self.last_wnd_field = Some(window);
        // The delivery-rate sample, after the ACK was acted on (ns-3 `CongControl`), for an ACK
        // while data was outstanding.
        if rate_on && ack >= snd_una_before && snd_una_before < self.snd_max {
            let lost_change = self.sb.lost_bytes.abs_diff(lost_before);
            self.rate_event(newly_lost, lost_change, prior_in_flight, ack_rtt, now);
        }
        // An ECN-Echo on an ACK that moved SND.UNA was answered in `new_ack`, before the ACK
        // could grow cwnd; this one is on a duplicate (ns-3 ignores it: `Ns3Compat::ecn_echo_rfc`).
        if ece && self.cfg.compat.ecn_echo_rfc && self.ecn_response_due() {
            self.on_ecn_echo(now);
        }
    }

    /// RFC 3168 §6.1.2: an ECN-Echo calls for a reduction once per window of data (beyond
    /// `recover`), and none in loss recovery or while one is under way.
    fn ecn_response_due(&self) -> bool {
        matches!(self.ca, CaState::Open | CaState::Disorder) && self.snd_una > self.recover
    }

    /// ns-3's `DoForwardUp` on a segment with SYN, in any state (`Ns3Compat::synack_keeps_window`
    /// off): cwnd back to the initial window, ssthresh to the initial ssthresh.
    fn ns3_synack_resets_window(&mut self) {
        self.w.cwnd = self.cc.initial_cwnd(self.cfg.iw, self.smss);
        self.w.ssthresh = self.cfg.initial_ssthresh;
    }

    /// Whether the segment's window updates the send window: RFC 9293 §3.10.7.4, ns-3's
    /// `TcpSocketBase::UpdateWindowSize` or Linux's `tcp_may_update_window` ([`WndUpdateRule`]).
    fn update_window(&mut self, seg_seq: u64, ack: u64, wnd: u64, snd_una_before: u64) {
        let take = match self.cfg.wnd_update {
            WndUpdateRule::Rfc9293 => snd_una_before <= ack && ack <= self.snd_max && (seg_seq > self.wl1 || (seg_seq == self.wl1 && ack >= self.wl2)),
            WndUpdateRule::Ns3 => ack > snd_una_before || seg_seq > self.peer_seq_high || (ack == snd_una_before && wnd > self.snd_wnd),
            WndUpdateRule::Linux => ack > snd_una_before || seg_seq > self.wl1 || (seg_seq == self.wl1 && (wnd > self.snd_wnd || wnd == 0)),
            WndUpdateRule::Always => true,
        };
        self.peer_seq_high = self.peer_seq_high.max(seg_seq);
        if take {
            self.snd_wnd = wnd;
            self.wl1 = seg_seq;
            self.wl2 = ack;
            // (In LAST-ACK the slot holds ns-3's LastAckTimeout, which no window stops.)
            if wnd > 0 && self.state != ConnState::LastAck {
                self.persist_at = NEVER;
                self.persist_backoff = 0;
            }
        }
    }

    /// An ACK that advances SND.UNA; `is_dup`: it also SACKs new data and counts as a duplicate.
    ///
    /// The RFC path: take the acknowledged bytes off the scoreboard and time them
    /// ([`Self::take_cumulative_ack`]), count a duplicate, then act by congestion state — grow
    /// the window in Open (RFC 5681 §3), a full or partial ACK in recovery (RFC 6582, RFC 6675,
    /// PRR), the end of CWR (RFC 3168) or of the loss state (RFC 5681 §3.1) — and restart the
    /// retransmission timer (RFC 6298 §5.3). ns-3's departures are the `ns3_*` helpers, each
    /// behind its [`super::config::Ns3Compat`] switch.
    fn new_ack(&mut self, n: NewAck, mut ev: Option<AckEventArgs>, now: Time, out: &mut Vec<SimPacket>) {
        let (ack, is_dup) = (n.ack, n.is_dup);
        let old_dupacks = self.dupacks;
        if is_dup {
            // Counted and acted on as a duplicate first (ns-3 does the same), then processed
            // as a cumulative ACK below; the duplicate count carries on.
            self.dup_ack(n.delivered, now, out);
        } else {
            self.dupacks = 0;
        }
        // RFC 3168 §6.1.2: an ECN-Echo is answered before the ACK is processed, so the ACK that
        // carries it does not grow cwnd (Linux `tcp_ack` enters CWR in `tcp_fastretrans_alert`
        // before `tcp_cong_control`; ns-3 `ReceivedAck` calls `EnterCwr` before `ProcessAck`).
        // Under `ecn_cut = "prr"` the ACK is then the first of the reduction.
        if n.ece && !self.cfg.compat.ecn_echo_rfc {
            self.ns3_cwr_ends_before_the_echo(&n, now);
        }
        // ns-3 (`ecn_echo_rfc` off) answers an echo on any ACK that moves SND.UNA outside CWR,
        // in recovery and the loss state too (`ReceivedAck` → `EnterCwr`, before `ProcessAck`).
        let ecn_cut = n.ece && if self.cfg.compat.ecn_echo_rfc { self.ecn_response_due() } else { self.ca != CaState::Cwr };
        if ecn_cut {
            self.on_ecn_echo(now);
            if !self.cfg.compat.ecn_echo_rfc {
                self.ns3_cwr_entry_step(&n, now);
            }
        }
        // The state after the duplicate's own processing, which may have started recovery.
        // A deferred event goes where ns-3's ProcessAck calls `PktsAcked`: before the window
        // changes, except after a partial ACK's recovery step; in Disorder only for an ACK of at
        // least as many segments as duplicates came before it.
        let smss = self.smss as u64;
        if self.ca == CaState::Disorder && n.cc_bytes / smss < old_dupacks as u64 {
            ev = None;
        }
        let partial = self.ca == CaState::Recovery && !(ack >= self.recover || self.cc.loss_response() == LossResponse::Reno);
        if let Some(e) = ev.filter(|_| !partial) {
            self.ack_event(e, now);
        }
        let restart_timer = match self.ca {
            CaState::Open | CaState::Disorder if ecn_cut => true,
            CaState::Open | CaState::Disorder => self.new_ack_in_open(&n, now),
            // Reno's recovery ends at the first ACK of new data (RFC 5681 §3.2 step 6).
            CaState::Recovery if !partial => {
                self.full_ack(&n, now);
                true
            }
            CaState::Recovery => {
                // Restarts the timer itself, on the first partial ACK only.
                self.partial_ack(&n, now, out);
                if let Some(e) = ev {
                    self.ack_event(e, now);
                }
                false
            }
            CaState::Cwr => {
                self.new_ack_in_cwr(&n, now);
                true
            }
            CaState::Loss => {
                self.new_ack_in_loss(&n, now);
                true
            }
        };
        if restart_timer {
            self.restart_rto(now);
        }
        // ns-3's `NewAck`: the send pointer up to the ACK.
        self.move_send_ptr(self.send_ptr.max(ack));
    }

    /// Moves SND.UNA to `ack`: takes the acknowledged segments off the scoreboard, counts what
    /// the ACK delivered, takes its RTT sample and notes an acknowledged FIN.
    fn take_cumulative_ack(&mut self, ack: u64, newly_sacked: u64, is_dup: bool, ece: bool, opts: &TcpOptions, now: Time) -> NewAck {
        let a = self.sb.ack_to_from(ack, self.karn_floor);
        if self.reno_marks() {
            self.sb.fix_reno_sack_head();
        }
        let delivered = self.delivered_data(&a, ack, newly_sacked);
        let cc_bytes = if self.cfg.compat.acked_whole_segments { self.ns3_whole_segments(delivered) } else { delivered };
        let prev_una = self.snd_una;
        self.snd_una = ack;
        self.rto_streak = 0;
        let rtt = self.rtt_sample(&a, opts, now);
        self.note_fin_acked();
        NewAck { ack, prev_una, removed: a.bytes, delivered, cc_bytes, acked_retx: a.any_retx, is_dup, rtt, ece }
    }

    /// RFC 6937 DeliveredData of a cumulative ACK (before SND.UNA moves): the bytes it
    /// acknowledges that were not SACKed before, plus the bytes it newly SACKs.
    fn delivered_data(&self, a: &Acked, ack: u64, newly_sacked: u64) -> u64 {
        let mut acked = a.bytes.max(ack - self.snd_una);
        let mut sacked_before = a.sacked_before;
        if self.cfg.compat.acked_whole_segments {
            // ns-3's rate sampling: a segment acknowledged in part counts when its rest is.
            acked = a.whole;
        }
        if self.reno_marks() {
            // Emulated SACK marks delivered nothing: their bytes count when acknowledged (as
            // ns-3's rate sampling counts them).
            sacked_before = 0;
        }
        acked - sacked_before + newly_sacked
    }

    /// ns-3's `segsAcked` (`Ns3Compat::acked_whole_segments`): the congestion control hears
    /// of whole segments of what was delivered, the remainder carried to later ACKs
    /// (`m_bytesAckedNotProcessed`).
    fn ns3_whole_segments(&mut self, delivered: u64) -> u64 {
        let smss = self.smss as u64;
        self.acked_rem += delivered;
        let whole = self.acked_rem / smss * smss;
        self.acked_rem -= whole;
        whole
    }

    /// The RTT sample a cumulative ACK gives, fed to the estimator: Karn's rule (RFC 6298 §3)
    /// from the newest acknowledged segment never retransmitted, to the nanosecond; with
    /// timestamps, a retransmitted one is timed by its echo (RFC 7323 §4).
    fn rtt_sample(&mut self, a: &Acked, opts: &TcpOptions, now: Time) -> Option<Dur> {
        let sample = if self.cfg.compat.rtt_from_ts {
            self.ns3_rtt_sample(a, opts, now)
        } else {
            match a.rtt_from {
                Some(t) => Some(now.since(t)),
                None if self.ts_ok => Self::ts_rtt(opts, now),
                None => None,
            }
        };
        if let Some(r) = sample {
            self.rtt.sample(r, self.snd_una, self.snd_max);
            self.counters.rtt_sum_ns += r.0;
            self.counters.rtt_n += 1;
            if self.rtt_logged {
                self.rtt_log.push((now, r));
            }
        }
        sample
    }

    /// ns-3's `TcpSocketBase::EstimateRtt` (`Ns3Compat::rtt_from_ts`): with timestamps the
    /// sample is the echo's age in whole ticks whenever the ACK covers a segment first sent
    /// since the last timeout, retransmitted since or not; and an ACK of new data that gives no
    /// sample still undoes the timeout backoff (ns-3 recomputes the RTO from the estimate on
    /// every one).
    fn ns3_rtt_sample(&mut self, a: &Acked, opts: &TcpOptions, now: Time) -> Option<Dur> {
        let sample = if !self.ts_ok {
            a.rtt_from.map(|t| now.since(t))
        } else if a.karn_front.is_some() {
            Self::ts_rtt(opts, now)
        } else {
            None
        };
        if sample.is_none() {
            self.rtt.collapse_backoff();
        }
        sample
    }

    /// Our FIN is acknowledged: FIN-WAIT-1 becomes FIN-WAIT-2, LAST-ACK becomes CLOSED.
    fn note_fin_acked(&mut self) {
        if self.app_closed && self.snd_una > self.app_end {
            self.state = match self.state {
                ConnState::FinWait1 => ConnState::FinWait2,
                ConnState::LastAck => {
                    self.persist_at = NEVER; // ns-3's LastAckTimeout, if it runs
                    ConnState::Closed
                }
                s => s,
            };
        }
    }

    /// Open or Disorder: the window grows (RFC 5681 §3.1) and any disorder ends. A cumulative
    /// ACK that counted as a duplicate leaves cwnd alone (RFC 5681 §3.2 / RFC 6675 §5 step 3;
    /// ns-3 grows only in Open). Returns whether the retransmission timer restarts.
    fn new_ack_in_open(&mut self, n: &NewAck, now: Time) -> bool {
        if n.is_dup {
            return !self.ns3_dup_ack_keeps_timer();
        }
        self.set_ca(CaState::Open, now);
        self.grow(n.cc_bytes, n.rtt, n.ece, now);
        true
    }

    /// ns-3 does not restart the timer for a cumulative ACK counted as a duplicate in
    /// Disorder: `ProcessAck` skips `NewAck` for it (`Ns3Compat::dup_ack_restarts_rto` off).
    fn ns3_dup_ack_keeps_timer(&self) -> bool {
        !self.cfg.compat.dup_ack_restarts_rto && self.ca == CaState::Disorder
    }

    /// The full ACK (RFC 6582 §3.2 step 3, RFC 6675 §5 (A)): recovery ends with cwnd =
    /// ssthresh (or FlightSize, [`FullAck`]).
    fn full_ack(&mut self, n: &NewAck, now: Time) {
        self.exit_recovery(now);
        // ns-3 runs `NewAck` (the send pointer up to the ACK) before `IncreaseWindow` here only.
        self.move_send_ptr(self.send_ptr.max(n.ack));
        if self.cfg.compat.exit_ack_grows {
            let by = self.ns3_exit_growth(n, CaState::Recovery);
            self.grow(by, n.rtt, n.ece, now);
        }
    }

    /// A partial ACK (RFC 6582 §3.2 step 5, RFC 6675 §5): recovery goes on. Without SACK the
    /// new head is taken as lost and retransmitted at once; with SACK the scoreboard and pipe
    /// decide, in `send_pending`. The timer restarts on the first partial ACK only (RFC 6582's
    /// "impatient" variant).
    fn partial_ack(&mut self, n: &NewAck, now: Time, out: &mut Vec<SimPacket>) {
        self.reno_dup_bytes = 0;
        // ns-3 reads bytes in flight for PRR before the head is marked lost here (it refreshes
        // m_bytesInFlight at the start of `ReceivedAck`; `ProcessAck` marks the head later).
        let pipe_before_mark = self.reno_marks().then(|| self.pipe());
        if !self.sack_ok {
            self.sb.mark_head_lost();
        }
        // ns-3 runs the recovery algorithm only for an ACK of a whole segment
        // (`Ns3Compat::acked_whole_segments`).
        let ns3_too_short = self.cfg.compat.acked_whole_segments && n.cc_bytes == 0;
        if !ns3_too_short {
            self.recovery_ack(n.delivered, false, n.acked_retx, pipe_before_mark, now);
        }
        if !self.first_partial_done {
            self.first_partial_done = true;
            self.restart_rto(now);
        }
        if self.cfg.compat.partial_ack_nextseg && (self.sack_ok || self.reno_marks()) {
            self.ns3_partial_ack_nextseg(now, out);
        } else if !self.sack_ok {
            self.retransmit_head(now, out);
        }
    }

    /// CWR after an ECN-Echo (RFC 3168 §6.1.2, reduced through PRR): an ACK short of the
    /// recovery point goes on reducing; one that covers it ends the reduction at cwnd =
    /// ssthresh.
    fn new_ack_in_cwr(&mut self, n: &NewAck, now: Time) {
        // CWR holds until data above `recover` is acknowledged, so that the CWR flag has
        // reached the receiver (Linux `tcp_fastretrans_alert`: SND.UNA ≠ high_seq; ns-3
        // `ReceivedAck`: ackNumber > m_recover).
        if n.ack <= self.recover {
            // ns-3 runs the recovery algorithm only for an ACK of a whole segment
            // (`Ns3Compat::acked_whole_segments`), in CWR as in recovery.
            if !(self.cfg.compat.acked_whole_segments && n.cc_bytes == 0) {
                self.recovery_ack(n.delivered, false, n.acked_retx, None, now);
            }
            return;
        }
        if !self.cc.owns_recovery_cwnd() {
            self.w.cwnd = self.w.ssthresh.max(self.smss as u64);
        }
        self.set_ca(CaState::Open, now);
        if self.cfg.compat.exit_ack_grows {
            let by = self.ns3_exit_growth(n, CaState::Cwr);
            self.grow(by, n.rtt, n.ece, now);
        }
    }

    /// ns-3 (`Ns3Compat::ecn_echo_rfc` off): `ReceivedAck` ends CWR on an ACK above the
    /// recovery point (cwnd = ssthresh, Open) *before* it looks at the ACK's ECN-Echo, so an
    /// echo on that ACK starts the next reduction at once. (RFC 3168 / Linux: the ACK that ends
    /// CWR is not answered; the next ECE is.)
    fn ns3_cwr_ends_before_the_echo(&mut self, n: &NewAck, now: Time) {
        if self.ca == CaState::Cwr && n.ack > self.recover && self.cfg.ecn_cut == EcnCut::Prr {
            if !self.cc.owns_recovery_cwnd() {
                self.w.cwnd = self.w.ssthresh.max(self.smss as u64);
            }
            self.set_ca(CaState::Open, now);
        }
    }

    /// ns-3 (`Ns3Compat::ecn_echo_rfc` off): `EnterCwr` → `TcpPrrRecovery::EnterRecovery` runs
    /// a first PRR step as for a duplicate ACK (`DoRecovery(delivered, isDupAck = true)`, one
    /// segment added to what the ACK delivered), and then `ProcessAck`'s CWR branch runs the
    /// ACK's own step: prr_delivered is 2·DeliveredData + 1 SMSS after the entry ACK, where
    /// Linux counts DeliveredData once.
    fn ns3_cwr_entry_step(&mut self, n: &NewAck, now: Time) {
        if self.ca == CaState::Cwr {
            self.recovery_ack(n.delivered, true, false, None, now);
        }
    }

    /// The loss state after a timeout (RFC 5681 §3.1): the window grows, in slow start, by
    /// what each ACK delivered; the ACK that covers the recovery point returns to Open
    /// (RFC 6675 §5.1).
    fn new_ack_in_loss(&mut self, n: &NewAck, now: Time) {
        let mut by = n.cc_bytes;
        if n.ack >= self.recover {
            self.set_ca(CaState::Open, now);
            if self.cfg.compat.exit_ack_grows {
                by = self.ns3_exit_growth(n, CaState::Loss);
            }
        }
        self.grow(by, n.rtt, n.ece, now);
    }

    /// ns-3's growth on the ACK that ends recovery, CWR or the loss state
    /// (`Ns3Compat::exit_ack_grows`): `ProcessAck` calls `IncreaseWindow` once the state is
    /// Open again, with the segments the ACK acknowledged (whole ones under
    /// `acked_whole_segments`); after a timeout, only those beyond the recovery point.
    fn ns3_exit_growth(&self, n: &NewAck, from: CaState) -> u64 {
        let smss = self.smss as u64;
        let whole = self.cfg.compat.acked_whole_segments;
        match from {
            CaState::Loss => (n.ack - self.recover) / smss * smss,
            CaState::Recovery if whole => (n.ack - n.prev_una) / smss * smss,
            CaState::Cwr if whole => n.cc_bytes,
            _ => n.removed,
        }
    }

    fn grow(&mut self, acked: u64, sample: Option<Dur>, ece: bool, now: Time) {
        if self.ecn_ok && self.acns_holds() {
            return; // an ACNS freeze or fallback holds the window
        }
        let s = AckSample {
            bytes_acked: acked,
            rtt: sample,
            min_rtt: self.rtt.min_rtt,
            srtt: self.rtt.srtt,
            in_flight: self.pipe(),
            ece,
            ack: self.snd_una,
            snd_nxt: self.cc_snd_nxt(),
            cwnd_limited: self.cwnd_limited,
        };
        self.cc.on_ack(&mut self.w, &s, now);
    }

    /// The delivery-rate sampler (kept when the congestion control takes samples).
    #[inline]
    fn rate_mut(&mut self) -> &mut super::rate::RateSampler {
        self.rate.as_mut().expect("rate sampling is kept for an algorithm that takes samples")
    }

    /// Before a duplicate ACK's emulated SACK mark: under ns-3's reading
    /// (`Ns3Compat::cc_sees_reno_mark` off) the rate event's bytes in flight stay as they were
    /// unless a segment leaves first (ns-3's `CongControl` reads `m_bytesInFlight` as last
    /// recounted: before `ProcessAck`, or by `SendDataPacket`).
    fn note_pipe_before_mark(&mut self) {
        if !self.cfg.compat.cc_sees_reno_mark && self.cc.wants_rate_samples() {
            let pipe = self.pipe();
            self.rate_mut().ns3_in_flight.get_or_insert(pipe);
        }
    }

    /// Hands the congestion control this ACK's delivery-rate sample (see [`RateEvent`]).
    fn rate_event(&mut self, lost: u64, lost_change: u64, prior_in_flight: u64, rtt: Option<Dur>, now: Time) {
        let min_rtt = if self.cfg.compat.rate_bound_srtt {
            Some(self.rtt.min_srtt).filter(|m| m.0 != u64::MAX)
        } else {
            self.rtt.min_rtt
        };
        let r = self.rate_mut();
        let rs = r.sample(lost, prior_in_flight, min_rtt);
        let delivered = r.delivered;
        let in_flight = r.ns3_in_flight.take().unwrap_or_else(|| self.pipe());
        let ev = RateEvent { rs, ca: self.ca, delivered, in_flight, rtt, srtt: self.rtt.srtt, lost_change };
        self.cc.on_rate_sample(&mut self.w, &ev, now);
    }

    /// Tells the congestion control of an ACK that acknowledged or SACKed data or counted as a
    /// duplicate, before it is acted on (see [`AckEvent`]).
    #[inline]
    fn ack_event(&mut self, a: AckEventArgs, now: Time) {
        if !self.cc.wants_ack_events() {
            return;
        }
        let ev = AckEvent {
            ca: self.ca,
            rtt: a.rtt,
            srtt: self.rtt.srtt,
            min_rtt: self.rtt.min_rtt,
            ack: self.snd_una,
            snd_nxt: self.snd_max,
            prior_in_flight: a.prior_in_flight,
            delivered: a.delivered,
            lost: a.lost,
            dup: a.dup,
        };
        #[cfg(test)]
        self.ack_events.push(ev);
        self.cc.on_ack_event(&mut self.w, &ev, now);
    }

    fn restart_rto(&mut self, now: Time) {
        if self.snd_max > self.snd_una {
            self.rto_at = now + self.rtt.rto();
        } else {
            self.rto_at = NEVER;
        }
    }

    fn set_ca(&mut self, to: CaState, now: Time) {
        let from = self.ca;
        if from != to {
            self.ca = to;
            match to {
                CaState::Loss => self.counters.loss_episodes += 1,
                CaState::Recovery => self.counters.recovery_episodes += 1,
                CaState::Cwr => self.counters.cwr_episodes += 1,
                _ => {}
            }
            let unseen = !self.cfg.compat.cc_sees_cwr && (to == CaState::Cwr || (from == CaState::Cwr && to == CaState::Open));
            if !unseen {
                let snd_nxt = self.cc_snd_nxt();
                self.cc.on_state_change(&mut self.w, from, to, snd_nxt, now);
            }
        }
    }

    /// RFC 6675 §5 step (2): the segment at SND.UNA is judged lost (with SACK, or ns-3's
    /// emulated marks: ns-3's `IsLost`, which also wants a mark above it).
    fn head_lost(&self) -> bool {
        let Some(h) = self.sb.first() else { return false };
        h.lost && (self.sack_ok || (self.reno_marks() && self.sb.high_sacked > h.end))
    }

    /// The SND.NXT the congestion control's rounds start from: ns-3's send pointer for Vegas
    /// under `vegas.diff = "ns3"` (`TcpVegas` reads `m_nextTxSequence`, which retransmissions
    /// move back), SND.MAX otherwise (Linux's `snd_nxt`).
    #[inline]
    fn cc_snd_nxt(&self) -> u64 {
        if self.vegas_reads_send_ptr() {
            self.send_ptr
        } else {
            self.snd_max
        }
    }

    #[inline]
    fn vegas_reads_send_ptr(&self) -> bool {
        matches!(self.cc, super::cc::AnyCc::Vegas(_)) && self.cfg.vegas.diff == super::cc::vegas::VegasDiff::Ns3
    }

    /// Whether ns-3's send pointer is kept: Vegas's rounds read it, and ns-3's
    /// application-limited test counts unsent bytes from it.
    #[inline]
    fn tracks_send_ptr(&self) -> bool {
        self.vegas_reads_send_ptr() || (self.rate.is_some() && self.cfg.compat.app_limited_after_write)
    }

    /// ns-3's send pointer moves to `at` (see [`Endpoint::send_ptr`]).
    #[inline]
    fn move_send_ptr(&mut self, at: u64) {
        if self.tracks_send_ptr() {
            self.send_ptr = at;
        }
    }

    /// The first lost segment waiting for its retransmission (NextSeg rule 1, with ns-3's
    /// reading of (1.b) under `nextseg = "ns3"`).
    #[inline]
    fn next_lost(&mut self) -> Option<usize> {
        self.sb.next_lost(self.cfg.compat.nextseg == NextSeg::Ns3)
    }

    /// The scoreboard carries ns-3's emulated SACK marks (`Ns3Compat::reno_sack_marks`).
    #[inline]
    fn reno_marks(&self) -> bool {
        !self.sack_ok && self.cfg.compat.reno_sack_marks
    }

    /// Outstanding bytes per RFC 6675 `pipe` (with the Reno estimate when SACK is off).
    pub(super) fn pipe(&self) -> u64 {
        let extra = if self.cfg.compat.pipe_counts_sacked_retx { self.sb.sacked_retrans_bytes } else { 0 };
        (self.sb.pipe(self.snd_max - self.snd_una) + extra).saturating_sub(self.reno_dup_bytes)
    }

    /// A duplicate ACK; `delivered`: bytes it newly SACKed (or, for a cumulative ACK that also
    /// SACKs, newly delivered).
    fn dup_ack(&mut self, delivered: u64, now: Time, out: &mut Vec<SimPacket>) {
        if self.ca == CaState::Loss {
            // Duplicates are ignored after an RTO until the recovery point is acked (ns-3;
            // RFC 6675 §5.1: no new recovery before HighACK ≥ RecoveryPoint).
            return;
        }
        self.dupacks += 1;
        if self.dupacks == self.cfg.dupthresh {
            self.counters.triple_dupacks += 1;
        }
        let response = self.cc.loss_response();
        if response == LossResponse::RtoOnly {
            return; // plain RFC 793: counted, nothing else
        }
        match self.ca {
            CaState::Recovery => {
                // RFC 6582 step 2 inflates cwnd; the PRR estimate counts the segment out of pipe.
                // An emulated mark does the latter for both (ns-3 keeps cwnd at ssthresh in
                // classic recovery; its inflated window is only traced).
                // ns-3 reads bytes in flight for PRR before this ACK's emulated mark (it refreshes
                // m_bytesInFlight at the start of ReceivedAck; DupAck adds the mark later).
                let pipe_before_mark = self.reno_marks().then(|| self.pipe());
                if self.reno_marks() {
                    self.note_pipe_before_mark();
                    self.sb.add_reno_sack();
                } else if !self.sack_ok {
                    match self.cfg.recovery {
                        Recovery::Classic if self.cc.owns_recovery_cwnd() => {}
                        Recovery::Classic => self.w.cwnd += self.smss as u64,
                        Recovery::Prr(_) => self.reno_dup_bytes += self.smss as u64,
                    }
                }
                // Without SACK a duplicate ACK is taken to have delivered one segment (RFC 6937
                // §3). The RFC 9937 variant adds that segment itself on every duplicate ACK
                // (`recovery_ack`), so it is not counted here as well.
                let delivered = match self.cfg.recovery {
                    _ if self.sack_ok => delivered,
                    Recovery::Prr(PrrVariant::Rfc9937) => 0,
                    _ => self.smss as u64,
                };
                if let Recovery::Prr(_) = self.cfg.recovery {
                    self.recovery_ack(delivered, true, false, pipe_before_mark, now);
                }
            }
            // ns-3 (`ecn_echo_rfc` off): `DupAck` has no CWR branch, so a duplicate in CWR is
            // only counted; lost segments still go in `send_pending`, within cwnd.
            CaState::Cwr if !self.cfg.compat.ecn_echo_rfc => {}
            CaState::Cwr => {
                let head_lost = self.head_lost();
                if self.dupacks >= self.cfg.dupthresh || head_lost {
                    self.fast_retransmit(response, delivered, now, out);
                } else {
                    self.recovery_ack(delivered, true, false, None, now);
                }
            }
            CaState::Open | CaState::Disorder => {
                self.set_ca(CaState::Disorder, now);
                let head_lost = self.head_lost();
                // RFC 6582 §3.2 step 1: enter only if the ACK covers `recover` (NewReno's test;
                // Reno and Tahoe have none).
                let covers = self.snd_una >= self.recover || !self.cfg.compat.recover_check || response != LossResponse::NewReno;
                if (self.dupacks >= self.cfg.dupthresh || head_lost) && covers {
                    self.fast_retransmit(response, delivered, now, out);
                } else if self.cfg.limited_transmit && !self.sack_ok && self.dupacks < self.cfg.dupthresh {
                    // With SACK, pipe already counts the SACKed segments out and cwnd − pipe
                    // governs new data (RFC 6675 §5 step 3), in send_pending; so it does with
                    // emulated marks.
                    if self.cfg.compat.reno_sack_marks {
                        self.note_pipe_before_mark();
                        self.sb.add_reno_sack();
                    } else {
                        self.limited_transmit(now, out);
                    }
                }
            }
            CaState::Loss => {}
        }
    }

    /// RFC 3042 (without SACK): on each of the first `dupthresh − 1` duplicate ACKs, send one
    /// new segment if the peer's window allows and no more than cwnd + 2·SMSS would be
    /// outstanding.
    fn limited_transmit(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        let smss = self.smss as u64;
        self.fill_send_buffer();
        if self.snd_max >= self.app_buffered {
            return;
        }
        let len = (self.app_buffered - self.snd_max).min(smss);
        let outstanding = self.snd_max - self.snd_una;
        let in_window = self.snd_max + len <= self.snd_una + self.snd_wnd;
        if in_window && outstanding + len <= self.w.cwnd + 2 * smss {
            let start = self.snd_max;
            self.send_new(start, start + len, now, out);
        }
    }

    /// Loss detected by duplicate ACKs (or SACK): fast recovery, or Tahoe's slow start.
    fn fast_retransmit(&mut self, response: LossResponse, delivered: u64, now: Time, out: &mut Vec<SimPacket>) {
        if response == LossResponse::Tahoe {
            self.enter_tahoe(now, out);
        } else {
            self.enter_recovery(delivered, now, out);
        }
    }

    /// Tahoe (RFC 5681 §3.2 before fast recovery; 4.3BSD-Tahoe): on the third duplicate,
    /// `ssthresh = max(FlightSize/2, 2·SMSS)`, retransmit the first unacknowledged segment,
    /// `cwnd = 1·SMSS` and slow start, the rest of the window resent as it opens (go-back-N,
    /// SACKed segments excepted). The loss state of a timeout without its backoff; it ends when
    /// the ACK covers what was outstanding.
    fn enter_tahoe(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        let flight = if self.sack_ok { self.pipe() } else { self.snd_max - self.snd_una };
        let acns = self.acns_loss_window(false, now);
        self.w.ssthresh = match acns {
            Some(w) => w,
            None => self.cc.ssthresh_after_loss(&self.w, flight, LossCause::DupAcks, now),
        };
        self.w.cwnd = acns.unwrap_or(self.smss as u64);
        self.recover = self.snd_max;
        self.counters.fast_retransmits += 1;
        self.reno_dup_bytes = 0;
        if self.reno_marks() {
            self.sb.reset_reno_sack();
        }
        self.sb.mark_all_lost();
        // The loss state, but not a timeout's episode (`loss_episodes` counts those).
        let from = self.ca;
        self.ca = CaState::Loss;
        self.cc.on_state_change(&mut self.w, from, CaState::Loss, self.snd_max, now);
        // The head leaves at once, or under `pace_fast_retransmit` in the next pacing slot, as
        // recovery's fast retransmission does: `send_pending` then resends it first (it is
        // lost, and one segment fits in cwnd).
        if self.next_lost() == Some(0) && (!self.cfg.compat.pace_fast_retransmit || self.pace_allows(now)) {
            self.retransmit(0, now, out);
        }
    }

    /// RFC 6675 §5 / RFC 6582 §3.2 / RFC 6937: start fast recovery.
    /// `delivered`: bytes newly delivered by the ACK that triggers it (the first PRR step
    /// counts them, as ns-3 does).
    fn enter_recovery(&mut self, delivered: u64, now: Time, out: &mut Vec<SimPacket>) {
        let owns = self.cc.owns_recovery_cwnd();
        // What an algorithm that owns cwnd in recovery sees in flight: before the head is
        // marked lost (ns-3 hands `CongestionStateSet` the value it read before `EnterRecovery`).
        let pipe_at_entry = if owns { self.pipe() } else { 0 };
        self.sb.mark_head_lost();
        let outstanding = self.snd_max - self.snd_una;
        let flight = if self.sack_ok {
            self.pipe()
        } else if self.cfg.compat.reno_sack_marks {
            // One more segment has left the network, and the head is lost — an earlier
            // retransmission of it too, so it leaves the count of bytes in flight first
            // (`MarkHeadAsLost`); ns-3 then takes bytes in flight plus one segment
            // (`EnterRecovery`, "for compatibility with old ns-3 versions").
            self.sb.add_reno_sack();
            self.sb.head_lost_again();
            self.pipe() + self.smss as u64
        } else {
            outstanding
        };
        self.w.ssthresh = match self.acns_loss_window(false, now) {
            Some(w) => w, // ACNS's trend rule: freeze or fallback in place of the decrease
            None => self.cc.ssthresh_after_loss(&self.w, flight, LossCause::DupAcks, now),
        };
        self.recover = self.snd_max;
        self.first_partial_done = false;
        self.counters.fast_retransmits += 1;
        self.set_ca(CaState::Recovery, now);
        match self.cfg.recovery {
            _ if owns => self.cc.on_recovery_start(&mut self.w, pipe_at_entry, delivered, now),
            Recovery::Classic => {
                // SACK: cwnd = ssthresh and pipe governs (RFC 6675); Reno: inflate by the
                // duplicates already seen (RFC 5681 §3.2 step 3).
                self.w.cwnd = if self.sack_ok || self.cfg.compat.reno_sack_marks { self.w.ssthresh } else { self.w.ssthresh + self.dupacks as u64 * self.smss as u64 };
            }
            Recovery::Prr(v) => {
                self.prr_delivered = 0;
                self.prr_out = 0;
                if !self.sack_ok && !self.cfg.compat.reno_sack_marks {
                    self.reno_dup_bytes = (self.dupacks as u64 * self.smss as u64).min(outstanding);
                }
                // May be 0 (everything outstanding SACKed or lost): then no duplicate ACK
                // counts an extra segment (`recovery_ack`), and the share divides by 1.
                self.recover_fs = match v {
                    PrrVariant::Rfc9937 => self.pipe(),
                    PrrVariant::Rfc6937 => outstanding,
                };
                self.recovery_ack(delivered, true, false, None, now);
            }
        }
        // RFC 6675 (4.3) / RFC 6582: retransmit the first segment presumed lost, whatever the
        // window says — again, if an earlier episode already retransmitted it. RescueRxt starts
        // at its end, so no rescue comes before it is acknowledged.
        self.rescue_rxt = self.sb.first().map(|s| s.end);
        if self.sb.head_lost_again() {
            if self.cfg.compat.pace_fast_retransmit && !self.pace_allows(now) {
                // It takes the next pacing slot (send_pending sends it first).
                self.fast_rtx_pending = true;
            } else {
                // `DoRetransmit` moves the send pointer to the start of what it sends.
                self.move_send_ptr(self.sb.segs()[0].start);
                self.retransmit(0, now, out);
            }
        }
    }

    /// Per-ACK window computation during Recovery and CWR (PRR, RFC 6937 §3 / RFC 9937).
    /// `delivered`: bytes newly delivered by this ACK (RFC 6937 DeliveredData).
    /// `pipe`: the bytes in flight PRR works from, when not the scoreboard's present value (ns-3's
    /// emulated marks and the partial ACK's head mark; see the duplicate-ACK and partial-ACK paths).
    fn recovery_ack(&mut self, delivered: u64, is_dup: bool, acked_retx: bool, pipe: Option<u64>, now: Time) {
        let _ = now;
        if self.cc.owns_recovery_cwnd() {
            return;
        }
        let Recovery::Prr(variant) = self.cfg.recovery else {
            if !self.sack_ok && !self.cfg.compat.reno_sack_marks && !is_dup && delivered > 0 {
                // RFC 6582 §3.2 step 5: deflate by the amount acked, add back one SMSS.
                let smss = self.smss as u64;
                self.w.cwnd = self.w.cwnd.saturating_sub(delivered) + if delivered >= smss { smss } else { 0 };
                self.w.cwnd = self.w.cwnd.max(smss);
            }
            return;
        };
        let smss = self.smss as u64;
        let mut delivered = delivered;
        if variant == PrrVariant::Rfc9937 && is_dup && self.prr_delivered < self.recover_fs {
            // ns-3 ≥ 3.43's RFC 9937 variant (`TcpPrrRecovery::DoRecovery`) counts one segment
            // delivered on every duplicate ACK while prr_delivered < RecoverFS.
            delivered += smss;
        }
        if delivered == 0 && (self.prr_out > 0 || self.cfg.compat.prr_empty_ack_keeps_cwnd) {
            return;
        }
        self.prr_delivered += delivered;
        let pipe = pipe.unwrap_or_else(|| self.pipe());
        let ssthresh = self.w.ssthresh;
        let mut sndcnt: i64 = if pipe > ssthresh {
            let share = prr_share(self.prr_delivered, ssthresh, self.recover_fs, self.cfg.compat.prr_u32_product);
            share as i64 - self.prr_out as i64
        } else {
            let base = prr_limit_base(self.prr_delivered, self.prr_out, delivered, self.cfg.compat.prr_u32_limit);
            let limit = match variant {
                PrrVariant::Rfc9937 => base + if acked_retx { smss as i64 } else { 0 },
                PrrVariant::Rfc6937 => base + smss as i64,
            };
            ((ssthresh - pipe) as i64).min(limit)
        };
        if self.prr_out == 0 && sndcnt < smss as i64 {
            sndcnt = smss as i64;
        }
        let sndcnt = sndcnt.max(0) as u64;
        self.w.cwnd = pipe + sndcnt;
    }

    fn exit_recovery(&mut self, now: Time) {
        let smss = self.smss as u64;
        if self.cc.owns_recovery_cwnd() {
            // The algorithm restores cwnd itself on the state change.
            self.reno_dup_bytes = 0;
            self.set_ca(CaState::Open, now);
            return;
        }
        self.w.cwnd = match (self.cfg.recovery, self.cfg.full_ack) {
            (Recovery::Classic, FullAck::FlightSize) if !self.sack_ok => {
                let flight = self.snd_max - self.snd_una;
                self.w.ssthresh.min(flight.max(smss) + smss)
            }
            _ => self.w.ssthresh,
        }
        .max(smss);
        self.reno_dup_bytes = 0;
        self.set_ca(CaState::Open, now);
    }

    /// RFC 3168 §6.1.2: reduce at most once per window of data.
    fn on_ecn_echo(&mut self, now: Time) {
        let flight = self.pipe();
        self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight, LossCause::Ecn, now);
        self.cwr_pending = true;
        self.recover = self.snd_max;
        match self.cfg.ecn_cut {
            EcnCut::Immediate if self.cc.owns_recovery_cwnd() => {}
            EcnCut::Immediate => {
                self.w.cwnd = self.w.ssthresh.max(self.smss as u64);
            }
            EcnCut::Prr => {
                self.prr_delivered = 0;
                self.prr_out = 0;
                self.recover_fs = flight.max(1);
                if self.cfg.recovery == Recovery::Classic && !self.cc.owns_recovery_cwnd() {
                    // Classic recovery has no proportional reduction: the window comes down
                    // at once (RFC 3168 §6.1.2; ns-3's `TcpClassicRecovery::EnterRecovery`),
                    // and CWR holds it there until the reduction's window is acknowledged.
                    self.w.cwnd = self.w.ssthresh.max(self.smss as u64);
                }
                self.set_ca(CaState::Cwr, now);
            }
        }
    }

    /// RFC 6298 §5.4–5.6 and RFC 5681 §3.1: retransmission timeout.
    pub(super) fn on_rto(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        if self.snd_max <= self.snd_una {
            return;
        }
        if !self.cfg.compat.fin_timeout_rfc && self.only_fin_outstanding() {
            self.ns3_fin_timeout(now, out);
            return;
        }
        self.rto_streak += 1;
        self.fast_rtx_pending = false;
        if self.cfg.data_retries.is_some_and(|n| self.rto_streak > n) {
            self.abort();
            return;
        }
        self.counters.rto_count += 1;
        let head_retransmitted = self.sb.first().is_some_and(|s| s.retrans);
        // ACNS (`trend_on_rto`): the trend rule's window in place of the loss window.
        if self.acns_loss_window(true, now).is_none() {
            if !self.cfg.compat.rto_holds_ssthresh || self.ca != CaState::Loss || !head_retransmitted {
                let flight = self.pipe();
                self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight, LossCause::Rto, now);
            }
            self.cc.on_rto(&mut self.w, now);
        }
        self.recover = self.snd_max;
        self.dupacks = 0;
        self.reno_dup_bytes = 0;
        self.set_ca(CaState::Loss, now);
        if self.reno_marks() {
            self.sb.reset_reno_sack();
        }
        self.sb.mark_all_lost();
        self.karn_floor = self.snd_max;
        self.rtt.back_off();
        self.rto_at = now + self.rtt.rto();
        if !self.cfg.compat.rto_keeps_pacing_clock {
            // ns-3's `ReTxTimeout` cancels the pacing timer.
            self.pace_next = self.pace_next.min(now);
        }
        self.send_pending(now, out);
        if self.next_lost() == Some(0) {
            self.retransmit_head(now, out);
        }
    }

    /// Every data byte is acknowledged and the FIN is not.
    fn only_fin_outstanding(&self) -> bool {
        self.app_closed && self.snd_una == self.app_end && self.snd_max == self.app_end + 1
    }

    /// ns-3's timeout with only the FIN outstanding (`Ns3Compat::fin_timeout_rfc`): the FIN
    /// again, the timer re-armed with the same RTO, no congestion response. In FIN-WAIT-1 that
    /// is `ReTxTimeout` with an empty send buffer; in LAST-ACK it is the event `SendEmptyPacket`
    /// schedules for a FIN sent with no retransmission timer running (the passive closer's
    /// always is: Sluice's servers send no data), which sends the segment again and re-arms
    /// itself.
    fn ns3_fin_timeout(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        self.counters.rto_count += 1;
        let start = self.snd_una;
        self.emit_data(start, start + 1, false, now, out);
        self.rto_at = now + self.rtt.rto();
    }

    /// Give the connection up (see [`ConnState::Aborted`]): nothing is sent or answered again.
    fn abort(&mut self) {
        self.state = ConnState::Aborted;
        (self.rto_at, self.delack_at, self.persist_at, self.send_at) = (NEVER, NEVER, NEVER, NEVER);
    }

    pub(super) fn on_persist(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        if self.state == ConnState::LastAck {
            // ns-3's LastAckTimeout, the only timer this slot holds in LAST-ACK.
            self.ns3_last_ack_timeout(now, out);
            return;
        }
        // No probe while data (an earlier probe) is outstanding: the retransmission timer resends
        // it (Linux `tcp_probe_timer` returns while packets are out; ns-3 and BSD probe again
        // with the same byte).
        if self.snd_wnd >= self.smss as u64 || self.snd_max > self.snd_una || self.snd_max >= self.app_buffered {
            return;
        }
        // Window probe: one byte of new data beyond the window (RFC 9293 §3.8.6.1).
        let start = self.snd_max;
        self.send_new(start, start + 1, now, out);
        if self.ecn_ok {
            self.acns_probe(out);
        }
        self.persist_backoff = (self.persist_backoff + 1).min(6);
        self.persist_at = now + PERSIST_TIMEOUT.saturating_mul(1 << self.persist_backoff.min(4));
    }

    /// ns-3's partial ACK with SACK (`DoRetransmit`): unless a retransmission still in flight
    /// ends one segment above the new SND.UNA, send one segment at once, outside cwnd: the
    /// first lost one, else new data if the peer's window has room, else the head again,
    /// retransmitted before or not.
    fn ns3_partial_ack_nextseg(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        let smss = self.smss as u64;
        // `TcpTxBuffer::IsRetransmittedDataAcked(ack + segment size)` looks at every segment:
        // with full-size segments that is the head; a short head (cut at the window's edge, or
        // by a merge) does not end there, and its partial ACK re-sends it below.
        let una = self.snd_una;
        let retx_in_flight = self.sb.segs().iter().any(|h| h.retrans && !h.sacked && h.end == una + smss);
        if retx_in_flight {
            return;
        }
        // `DoRetransmit` moves the send pointer to the start of what it sends.
        if let Some(i) = self.next_lost() {
            self.move_send_ptr(self.sb.segs()[i].start);
            self.retransmit(i, now, out);
            return;
        }
        self.fill_send_buffer();
        let outstanding = self.snd_max - self.snd_una;
        if self.snd_max < self.app_buffered && outstanding < self.snd_wnd {
            let len = (self.app_buffered - self.snd_max).min(smss).min(self.snd_wnd - outstanding);
            let start = self.snd_max;
            self.move_send_ptr(start);
            self.send_new(start, start + len, now, out);
        } else {
            self.move_send_ptr(self.snd_una);
            if self.sb.first().is_some_and(|h| h.retrans && !h.sacked) {
                // NextSeg found nothing and the head went before: `DoRetransmit` sends it again.
                self.retransmit(0, now, out);
            } else {
                self.retransmit_head(now, out);
            }
        }
    }

    fn retransmit_head(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        if let Some(s) = self.sb.first().copied() {
            if !s.sacked {
                if !s.lost {
                    self.sb.mark_head_lost();
                }
                if !self.sb.first().is_some_and(|s| s.retrans) {
                    self.retransmit(0, now, out);
                }
            }
        }
    }

    /// RFC 6675 NextSeg rules (3) and (4), in SACK recovery when neither a lost segment nor new
    /// data can go: the first un-SACKed hole below the highest SACKed byte, else, once per
    /// recovery (when SND.UNA has passed RescueRxt), the highest un-SACKed segment. Returns
    /// whether one was sent.
    fn retransmit_hole(&mut self, now: Time, out: &mut Vec<SimPacket>) -> bool {
        if self.ca != CaState::Recovery || !self.sack_ok {
            return false;
        }
        if let Some(i) = self.sb.next_hole() {
            self.retransmit(i, now, out);
            return true;
        }
        if self.cfg.compat.nextseg == NextSeg::Rfc6675 && self.rescue_rxt.is_none_or(|r| self.snd_una > r) {
            if let Some(i) = self.sb.last_unsacked() {
                self.retransmit(i, now, out);
                self.rescue_rxt = Some(self.recover);
                return true;
            }
        }
        false
    }

    fn retransmit(&mut self, i: usize, now: Time, out: &mut Vec<SimPacket>) {
        if self.cfg.compat.retx_merge {
            self.sb.merge_next(i, self.smss as u64, self.app_end);
        }
        let idle = self.cc.wants_rate_samples() && self.pipe() == 0;
        self.tx_start_if_idle(idle, now);
        let (start, end) = self.sb.retransmit(i, now);
        if self.ecn_ok {
            self.acns_retransmit(start, end);
        }
        if self.cc.wants_rate_samples() {
            self.rate_mut().on_send(start, end, idle, now);
        }
        let len = self.emit_data(start, end, false, now, out);
        self.counters.retx_bytes += len;
        self.counters.retx_pkts += 1;
        if matches!(self.ca, CaState::Recovery | CaState::Cwr) {
            self.prr_out += end - start;
        }
        if self.rto_at == NEVER {
            self.rto_at = now + self.rtt.rto();
        }
    }

    /// A data segment, new or retransmitted, about to leave with nothing in flight is a restart
    /// from idle for a rate-sampling algorithm (Linux's `__tcp_transmit_skb` and ns-3's
    /// `SendPendingData` raise CA_EVENT_TX_START then), with the sampler's application-limited
    /// mark handed along.
    fn tx_start_if_idle(&mut self, idle: bool, now: Time) {
        if idle {
            let app_limited = self.rate_mut().app_limited != 0;
            self.cc.on_tx_start(&mut self.w, app_limited, now);
        }
    }

    fn send_new(&mut self, start: u64, end: u64, now: Time, out: &mut Vec<SimPacket>) {
        if self.cc.wants_rate_samples() {
            let idle = self.pipe() == 0;
            self.tx_start_if_idle(idle, now);
            self.rate_mut().on_send(start, end, idle, now);
        }
        self.sb.push(start, end, now);
        self.snd_max = end;
        self.emit_data(start, end, true, now, out);
        if matches!(self.ca, CaState::Recovery | CaState::Cwr) {
            self.prr_out += end - start;
        }
        if self.rto_at == NEVER {
            self.rto_at = now + self.rtt.rto();
        }
        self.cc.on_sent(end - start, self.pipe(), now);
    }

    /// Put `[start, end)` on the wire (data, or FIN when the range covers the FIN slot).
    /// Returns payload bytes.
    fn emit_data(&mut self, start: u64, end: u64, new: bool, now: Time, out: &mut Vec<SimPacket>) -> u64 {
        let data_end = end.min(self.app_end);
        let payload = data_end.saturating_sub(start);
        let mut flags = F::ACK;
        if end > self.app_end {
            flags |= F::FIN;
        }
        let mut ecn = Ecn::NotEct;
        if self.ecn_ok && new && payload > 0 {
            ecn = Ecn::Ect0; // RFC 3168 §6.1.5: retransmissions are Not-ECT
            if self.cwr_pending {
                flags |= F::CWR;
                self.cwr_pending = false;
            }
        }
        let window = self.adv_window_field();
        let opts = TcpOptions { ts: if self.ts_ok { Some((ts_clock(now), self.ts_recent)) } else { None }, ..Default::default() };
        let mut pkt = self.segment(to_wire(self.iss, start), to_wire(self.irs, self.rcv_nxt), flags, window, opts, payload as u32, ecn);
        if ecn == Ecn::Ect0 {
            self.acns_mark(&mut pkt, start, end);
        }
        out.push(pkt);
        // A segment spaces the next one; one that left while pacing held others back (a
        // window probe, or a fast retransmission without `pace_fast_retransmit`) leaves the
        // pacing clock as it was (ns-3 restarts only an expired pacing timer). Without
        // `pace_initial_window` the clock starts only once the data sent passes the initial
        // window (ns-3's `IsPacingEnabled`, which compares its highest sequence sent, the SYN
        // counted, with IW·SMSS).
        if self.pace_next <= now {
            if let Some(rate) = self.pacing_rate() {
                if self.cfg.compat.pace_initial_window || self.snd_max > self.cfg.iw.bytes(self.smss) {
                    self.pace_next = now + rate.tx_time(payload);
                }
            }
        }
        // A data segment carries our ACK: the delayed ACK is satisfied.
        self.unacked_segs = 0;
        self.delack_at = NEVER;
        self.last_ack_sent = self.rcv_nxt;
        self.counters.payload_sent += payload;
        self.counters.data_pkts_sent += (payload > 0) as u64;
        if self.cc.reads_cwnd_limited() {
            // After the segment is counted in flight (ns-3 SendDataPacket).
            self.cwnd_limited = self.w.cwnd < self.pipe() + self.smss as u64;
        }
        payload
    }

    /// Send whatever the windows allow: lost segments first (RFC 6675 NextSeg rule 1), then new
    /// data, then FIN.
    pub(super) fn send_pending(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        self.send_what_the_windows_allow(now, out);
    }

    /// Delivery-rate sampling's application-limited mark, asked as the application writes
    /// `first` bytes (its first write of this call) into the send buffer
    /// (draft-cheng-iccrg-delivery-rate-estimation; Linux `tcp_rate_check_app_limited`, ns-3
    /// `CalculateAppLimited`): less than a segment left to send, cwnd not filled, and no more
    /// bytes marked lost than retransmitted. Linux asks before the write, ns-3 after it
    /// (`Ns3Compat::app_limited_after_write`).
    pub(super) fn check_app_limited(&mut self, first: u64) {
        let (unsent, retrans) = if self.cfg.compat.app_limited_after_write {
            (self.app_buffered + first - self.send_ptr.min(self.app_buffered), self.sb.retrans_bytes + self.sb.sacked_retrans_bytes)
        } else {
            (self.app_buffered.saturating_sub(self.snd_max), self.sb.retrans_bytes)
        };
        let pipe = self.pipe();
        if unsent < self.smss as u64 && pipe < self.w.cwnd && self.sb.lost_bytes <= retrans {
            self.rate_mut().mark_app_limited(pipe);
        }
    }

    fn send_what_the_windows_allow(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        if !self.is_synchronized() {
            return;
        }
        self.fill_send_buffer();
        // Nothing outstanding, nothing unsent, no FIN due: nothing to send. (A receiving
        // endpoint comes here after every segment; this keeps it off its sending state.)
        if self.snd_max == self.snd_una && self.snd_max >= self.app_buffered && !self.fin_due() {
            return;
        }
        // ns-3 (`Ns3Compat::open_sends_after_fin` off): `SendPendingData` sends nothing in Open
        // once the FIN is out; a segment found lost after recovery waits for the timeout.
        if self.state == ConnState::FinWait1 && self.ca == CaState::Open && !self.cfg.compat.open_sends_after_fin {
            return;
        }
        let smss = self.smss as u64;
        loop {
            if !self.pace_allows(now) {
                break;
            }
            // (`ca` first: the flag lives with the recovery state, off the lines every send reads.)
            if self.ca == CaState::Recovery && std::mem::take(&mut self.fast_rtx_pending) && self.sb.first().is_some_and(|s| s.lost && !s.retrans && !s.sacked) {
                // The fast retransmission pacing held back: whatever the window says, as if
                // sent on entering recovery.
                self.retransmit(0, now, out);
                continue;
            }
            let pipe = self.pipe();
            let cwnd = self.w.cwnd;
            // Room for a retransmission: cwnd − pipe, or with `rwnd_bounds_retx` ns-3's
            // AvailableWindow, min(cwnd, rwnd) − pipe, for every segment.
            let rwnd_bounds = self.cfg.compat.rwnd_bounds_retx;
            let room = if rwnd_bounds { cwnd.min(self.snd_wnd) } else { cwnd }.saturating_sub(pipe);
            if let Some(i) = self.next_lost() {
                let s = self.sb.segs()[i];
                // A retransmission stays inside the peer's window unless the timer fired (with
                // `rwnd_bounds_retx` the window bounds it through `room` instead).
                let in_window = rwnd_bounds || s.end <= self.snd_una + self.snd_wnd.max(smss) || self.ca == CaState::Loss;
                // The room it needs: its own length, or with `retx_merge` (it may go out longer)
                // a full segment unless less data than that is left (ns-3's silly-window test).
                let need = if self.cfg.compat.retx_merge { self.app_buffered.max(s.end) - s.start } else { s.len() };
                if room >= need.min(smss) && in_window {
                    self.retransmit(i, now, out);
                    // ns-3's `SendPendingData`: the send pointer past what went.
                    self.move_send_ptr(self.sb.segs().get(i).map_or(self.snd_max, |s| s.end));
                    continue;
                }
                // NextSeg found a segment by rule (1): rules (2)-(4) are not tried, so nothing
                // goes before it, whether cwnd or the peer's window holds it back.
                break;
            }
            if self.snd_max < self.app_buffered {
                let len = (self.app_buffered - self.snd_max).min(smss);
                // ns-3 AvailableWindow: min(cwnd, rwnd) − pipe; and stay inside the right edge,
                // cut to it under `edge_clip`.
                let usable = cwnd.min(self.snd_wnd).saturating_sub(pipe);
                let right_edge = self.snd_una + self.snd_wnd;
                let fits = if self.cfg.compat.edge_clip { len.min(right_edge.saturating_sub(self.snd_max)) } else { len };
                if usable >= len && fits > 0 && self.snd_max + fits <= right_edge {
                    if self.cfg.nagle && len < smss && self.snd_max > self.snd_una {
                        break;
                    }
                    let start = self.snd_max;
                    // The FIN rides on the segment that carries the last byte when the
                    // application has closed by then (Linux tcp_send_fin; ns-3's closeOnEmpty
                    // in SendDataPacket): it occupies the sequence number after the data.
                    let fin = self.app_closed && start + fits == self.app_end;
                    self.send_new(start, start + fits + fin as u64, now, out);
                    self.move_send_ptr(self.snd_max);
                    if fin {
                        self.enter_fin_sent(now);
                        break;
                    }
                    continue;
                }
                if self.snd_wnd < smss.min(len) && self.snd_max == self.snd_una && self.persist_at == NEVER {
                    self.persist_at = now + PERSIST_TIMEOUT;
                }
                // Rule (2) failed for the peer's window: RFC 6675 goes on to rules (3)–(4).
                if self.cfg.compat.nextseg == NextSeg::Rfc6675 && room >= smss && self.retransmit_hole(now, out) {
                    continue;
                }
                break;
            }
            if self.fin_due() {
                // FIN occupies one sequence number after the data.
                let start = self.snd_max;
                self.send_new(start, start + 1, now, out);
                self.enter_fin_sent(now);
                break;
            }
            if room >= smss && self.retransmit_hole(now, out) {
                continue;
            }
            break;
        }
    }

    /// The rate data segments leave at, if paced (docs/tcp.md, "pacing"; see [`Pacing`]).
    pub(super) fn pacing_rate(&self) -> Option<Rate> {
        match self.cfg.pacing {
            Pacing::Off => None,
            Pacing::Cc => self.cc.pacing_rate(),
            Pacing::Linux => self.cc.pacing_rate().or_else(|| {
                let srtt = self.rtt.srtt?.0.max(1) as u128;
                let ratio: u128 = if self.w.cwnd < self.w.ssthresh / 2 { 200 } else { 120 };
                let window = self.w.cwnd.max(self.snd_max - self.snd_una) as u128;
                let bps = ratio * window * 8_000_000_000 / (100 * srtt);
                Some(Rate(bps.clamp(1, u64::MAX as u128) as u64))
            }),
        }
    }

    /// Whether pacing lets a data segment leave now; if not, the wake-up is set for when it
    /// may (`send_pending` then runs again).
    #[inline]
    fn pace_allows(&mut self, now: Time) -> bool {
        if self.pace_next <= now {
            return true;
        }
        self.send_at = self.send_at.min(self.pace_next);
        false
    }

    /// Our FIN has been sent (RFC 9293 §3.6: ESTABLISHED → FIN-WAIT-1, CLOSE-WAIT → LAST-ACK).
    ///
    /// Under ns-3's rules (`Ns3Compat::fin_timeout_rfc` off) the passive closer, which closes
    /// as soon as the peer's FIN arrives (ns-3's `DoPeerClose` with `ShutdownSend`, as
    /// `PacketSink` does), also starts `LastAckTimeout`: the FIN again every
    /// SRTT + max(G, 4·RTTVAR), with no floor and no backoff, `data_retries` times, then the
    /// connection is dropped. Its FIN, sent with nothing else outstanding, has the ordinary
    /// retransmission timer besides (ns-3's `SendEmptyPacket` event; see `ns3_fin_timeout`).
    fn enter_fin_sent(&mut self, now: Time) {
        self.state = match self.state {
            ConnState::CloseWait => ConnState::LastAck,
            _ => ConnState::FinWait1,
        };
        if self.state == ConnState::LastAck && !self.cfg.compat.fin_timeout_rfc {
            self.last_ack_tries = self.cfg.data_retries.unwrap_or(u32::MAX);
            self.persist_at = now + self.rtt.raw_rto();
        }
    }

    /// ns-3's `LastAckTimeout` (see `enter_fin_sent`): the FIN again and the timer re-armed,
    /// or, with no tries left, the connection dropped.
    fn ns3_last_ack_timeout(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        if self.last_ack_tries == 0 {
            self.abort();
            return;
        }
        self.last_ack_tries -= 1;
        let start = self.snd_una;
        self.emit_data(start, start + 1, false, now, out);
        if self.rto_at == NEVER {
            self.rto_at = now + self.rtt.rto();
        }
        self.persist_at = now + self.rtt.raw_rto();
    }

    /// Our FIN is out, on the segment that carries the last data byte (not alone).
    fn fin_rode_on_data(&self) -> bool {
        self.snd_max == self.app_end + 1 && self.sb.segs().back().is_some_and(|s| s.start < self.app_end && s.end == self.snd_max)
    }

    /// The application has closed and every byte it wrote is sent: the FIN goes next.
    #[inline]
    fn fin_due(&self) -> bool {
        self.app_closed && self.snd_max == self.app_end
    }

    /// A pure ACK (with SACK blocks and timestamps as negotiated).
    pub(super) fn send_ack(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        let mut flags = F::ACK;
        if self.ece_pending {
            flags |= F::ECE;
            self.ce_unechoed = false;
        }
        let sack = if self.sack_ok { self.sack_blocks() } else { SackBlocks::default() };
        let opts = TcpOptions { ts: if self.ts_ok { Some((ts_clock(now), self.ts_recent)) } else { None }, sack, ..Default::default() };
        let window = self.adv_window_field();
        let seq = to_wire(self.iss, self.snd_max);
        let mut pkt = self.segment(seq, to_wire(self.irs, self.rcv_nxt), flags, window, opts, 0, Ecn::NotEct);
        if self.ece_pending {
            self.acns_echo(&mut pkt); // ACNS: T5 or T6, and `once` echoes once
        }
        out.push(pkt);
        self.unacked_segs = 0;
        self.delack_at = NEVER;
        self.last_ack_sent = self.rcv_nxt;
    }
}
