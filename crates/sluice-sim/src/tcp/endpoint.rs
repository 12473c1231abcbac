//! Connection state, handshake, segment construction and timers.

use super::cc::{AnyCc, CaState, CwndState};
use super::config::{SynRto, TcpConfig};
use super::delayed_ack::LinuxDelAck;
use super::rate::RateSampler;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use crate::prefetch::Lines;
use crate::packet::{SackBlocks, SimPacket, TcpOptions, Tos, Transport};
use sluice_core::packet::{tcp_flags as F, Ecn};
use sluice_core::seq::{to_wire, unwrap_near, window_field, wscale_for_buffer};
use sluice_core::{Dur, Time};
use std::sync::Arc;

/// An IPv4 address and port.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SockAddr {
    pub addr: u32,
    pub port: u16,
}

/// RFC 9293 connection states (TIME-WAIT is not timed: the connection simply stays quiet).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ConnState {
    Closed,
    Listen,
    SynSent,
    SynRcvd,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    LastAck,
    TimeWait,
    /// The handshake failed (SYN retries exhausted).
    Failed,
    /// Given up after `data_retries` retransmission timeouts in a row without a new ACK (as
    /// ns-3's DataRetries; a real stack would also send a reset, which is not modelled).
    Aborted,
}

impl ConnState {
    pub fn as_str(self) -> &'static str {
        match self {
            ConnState::Closed => "closed",
            ConnState::Listen => "listen",
            ConnState::SynSent => "syn_sent",
            ConnState::SynRcvd => "syn_rcvd",
            ConnState::Established => "established",
            ConnState::FinWait1 => "fin_wait1",
            ConnState::FinWait2 => "fin_wait2",
            ConnState::CloseWait => "close_wait",
            ConnState::LastAck => "last_ack",
            ConnState::TimeWait => "time_wait",
            ConnState::Failed => "failed",
            ConnState::Aborted => "aborted",
        }
    }
}

/// Totals kept by an endpoint (the monitor subtracts the warm-up snapshot), ordered for the
/// endpoint's layout (see `Endpoint`).
#[derive(Clone, Debug, Default, PartialEq)]
#[repr(C)]
pub struct TcpCounters {
    /// Bytes delivered in order to the application (receiving side).
    pub delivered: u64,
    /// When the last new byte was delivered to the application.
    pub last_delivery: Time,
    pub retx_bytes: u64,
    pub retx_pkts: u64,
    pub rto_count: u64,
    pub fast_retransmits: u64,
    pub triple_dupacks: u64,
    pub syn_sent: u32,
    pub payload_sent: u64,
    pub data_pkts_sent: u64,
    pub rtt_sum_ns: u64,
    pub rtt_n: u64,
    /// Entries into the Loss state (a retransmission timeout outside it; further timeouts of
    /// the same episode do not count): ns-3's `CongState` trace entering `CA_LOSS`.
    pub loss_episodes: u64,
    /// Entries into the Recovery state (fast retransmit): ns-3's `CongState` entering
    /// `CA_RECOVERY`.
    pub recovery_episodes: u64,
    /// Entries into the CWR state (a reduction for an ECN-Echo): ns-3's `CongState` entering
    /// `CA_CWR`.
    pub cwr_episodes: u64,
}

/// Option size of a timestamp option on the wire (padded), subtracted from the MSS option.
pub(super) const TS_OVERHEAD: u32 = 12;
/// ns-3 PersistTimeout.
pub(super) const PERSIST_TIMEOUT: Dur = Dur::from_secs(6);
/// Effectively unlimited application data.
pub(super) const UNLIMITED: u64 = u64::MAX / 4;
/// The deadline of a timer that is not armed.
pub(super) const NEVER: Time = Time::MAX;

/// One end of a TCP connection.
///
/// Field order is memory order (`repr(C)`) and follows use, because with many flows an
/// endpoint is cold whenever a segment reaches it, and each 64-byte line it touches is a cache
/// miss. Four lines hold what every segment reads or writes in either role, so an endpoint
/// that only receives reads those four: sequence and window state, the timers (the engine
/// polls all four after every event), addresses, and the receive-side counters last. The
/// sending side adds the rest of the counters, the congestion window, the RTT estimator and
/// the scoreboard's header. Last come what only the handshake, recovery episodes, reordering
/// at the receiver, RTT logs or the Linux delayed-ACK engine touch.
/// Aligned to a cache line, so the same fields share a line in every endpoint.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Endpoint {
    // ---- line 0: state, sequence numbers
    pub state: ConnState,
    /// Shift applied to window fields we receive (the peer's announced shift).
    pub(super) snd_shift: u8,
    /// Shift we apply to window fields we send.
    pub(super) rcv_shift: u8,
    pub(super) sack_ok: bool,
    pub(super) ts_ok: bool,
    pub(super) ecn_ok: bool,
    /// The application has closed: send FIN after `app_end`.
    pub(super) app_closed: bool,
    pub ca: CaState,
    pub(super) iss: u32,
    pub(super) irs: u32,
    pub snd_una: u64,
    pub snd_max: u64,
    pub snd_wnd: u64,
    pub(super) wl1: u64,
    pub(super) wl2: u64,
    pub(super) peer_seq_high: u64,
    // ---- line 1: receive sequence, application buffer
    pub rcv_nxt: u64,
    /// One past the last byte the application will hand over (data starts at offset 1).
    pub(super) app_end: u64,
    /// One past the last byte the application has written into the send buffer so far: the
    /// buffer holds `[snd_una, app_buffered)`, at most `snd_buf` bytes.
    pub(super) app_buffered: u64,
    /// The application's write size: a write goes in only whole (0: whatever fits).
    pub(super) app_write: u64,
    pub(super) rcv_buf: u64,
    pub(super) right_edge: u64,
    pub(super) last_ack_sent: u64,
    // Negotiated in the handshake.
    pub(super) smss: u32,
    pub(super) ts_recent: u32,
    // ---- line 2: timers
    pub(super) unacked_segs: u32,
    /// Window field of the last ACK received (for the strict duplicate-ACK rule).
    pub(super) last_wnd_field: Option<u16>,
    pub(super) ip_id: u16,
    pub(super) ece_pending: bool,
    /// A CE mark arrived and no ACK has echoed it yet (ns-3's `ECN_CE_RCVD`).
    pub(super) ce_unechoed: bool,
    pub(super) fin_rcvd: bool,
    pub(super) cwr_pending: bool,
    /// Out-of-order data or SACK blocks are held (`ooo` or `sack_recent` is not empty), so
    /// in-order arrivals need not look at them.
    pub(super) reasm_held: bool,
    /// `rtt_log` is kept.
    pub(super) rtt_logged: bool,
    pub(super) persist_backoff: u32,
    pub flow: u32,
    /// Timer deadlines, [`NEVER`] when not armed.
    pub(super) rto_at: Time,
    pub(super) delack_at: Time,
    /// The persist timer; in LAST-ACK under ns-3's rules (`Ns3Compat::fin_timeout_rfc` off)
    /// ns-3's `LastAckTimeout` instead (every byte has been sent there, so no window probe is
    /// ever due).
    pub(super) persist_at: Time,
    /// When to try sending again: the first data after the handshake (see
    /// `Ns3Compat::first_data_delay`), or the next segment pacing holds back.
    pub(super) send_at: Time,
    /// Shared by every endpoint with the same options (read-only).
    pub(super) cfg: Arc<TcpConfig>,
    // ---- line 3: addresses, then the counters (the receiver's first)
    pub(super) local: SockAddr,
    pub(super) remote: SockAddr,
    pub counters: TcpCounters,
    // ---- sending
    /// Earliest time pacing lets the next data segment leave (docs/tcp.md, "pacing"; zero when
    /// unpaced).
    pub(super) pace_next: Time,
    pub(super) cc: AnyCc,
    pub dupacks: u32,
    /// cwnd limited the sender at its last data segment: `cwnd < pipe + SMSS` just after it
    /// left (ns-3's `m_isCwndLimited`, set in `SendDataPacket`).
    pub(super) cwnd_limited: bool,
    /// Duplicate ACKs counted as delivered segments in recovery without SACK (RFC 6937's
    /// estimate; Linux's "Reno SACK").
    pub(super) reno_dup_bytes: u64,
    /// Bytes acknowledged short of a whole segment, carried to later ACKs
    /// (`Ns3Compat::acked_whole_segments`).
    pub(super) acked_rem: u64,
    pub w: CwndState,
    /// Recovery point: exclusive end of the data outstanding when recovery (or CWR / Loss) began.
    pub(super) recover: u64,
    pub rtt: RttEstimator,
    /// Pipe counters and the segment ring's header first: one line for an ACK without loss.
    pub(super) sb: Scoreboard,

    // ---- handshake, recovery episodes, reordering, traces
    pub(super) prr_delivered: u64,
    pub(super) prr_out: u64,
    pub(super) recover_fs: u64,
    pub(super) first_partial_done: bool,
    pub(super) syn_retransmitted: bool,
    /// When the (first) SYN left, for the handshake's RTT sample.
    pub(super) syn_at: Time,
    /// SND.MAX at the last retransmission timeout: under `rtt_from_ts` segments below it are
    /// no longer timed (ns-3 clears its RTT history on a timeout).
    pub(super) karn_floor: u64,
    /// The highest TSval received (`ts_recent_in_order`).
    pub(super) ts_seen: u32,
    pub(super) wscale_negotiated: bool,
    pub(super) syn_tries: u32,
    /// Retransmission timeouts since SND.UNA last advanced (against `data_retries`).
    pub(super) rto_streak: u32,
    /// ns-3's `LastAckTimeout` firings left in LAST-ACK (its `m_dataRetrCount`, set to
    /// `data_retries` when the peer's FIN closes the connection; `Ns3Compat::fin_timeout_rfc`
    /// off).
    pub(super) last_ack_tries: u32,
    /// RFC 6675 RescueRxt: a rescue retransmission is allowed once SND.UNA passes it.
    pub(super) rescue_rxt: Option<u64>,
    /// The fast retransmission waits for its pacing slot (`Ns3Compat::pace_fast_retransmit`).
    pub(super) fast_rtx_pending: bool,
    /// Out-of-order data held by the receiver: sorted, merged ranges.
    pub(super) ooo: Vec<(u64, u64)>,
    /// The sequence offset of a FIN that came on an out-of-order segment (RFC 9293
    /// §3.10.7.4: held with it, processed once the data before it is in; Linux keeps the
    /// flag in its out-of-order queue, ns-3 `TcpRxBuffer::SetFinSequence`); `u64::MAX` when
    /// none is held.
    pub(super) ooo_fin: u64,
    /// Recently received out-of-order ranges, newest first (RFC 2018 block order).
    pub(super) sack_recent: Vec<(u64, u64)>,
    /// Every RTT sample (time, rtt) when tracing is on.
    pub(super) rtt_log: Vec<(Time, Dur)>,
    /// Linux's delayed-ACK engine (used only with `delack = "linux"`).
    pub(super) lnx_ack: LinuxDelAck,
    /// Delivery-rate sampling, kept only for an algorithm that takes samples
    /// ([`AnyCc::wants_rate_samples`]).
    pub(super) rate: Option<Box<RateSampler>>,
    /// NGWA's receiver state, from the first segment stamped with option 33 (`tcp/ngwa.rs`).
    pub(super) ngwa: Option<Box<super::ngwa::NgwaState>>,
    /// ACNS's state, kept once the handshake agreed on ACNS (docs/tcp.md, "ACNS endpoint").
    pub(super) acns: Option<Box<super::acns::AcnsState>>,
    /// ns-3's send pointer (`m_nextTxSequence`), kept for Vegas under `vegas.diff = "ns3"`, whose
    /// rounds start from it, and for the delivery-rate sampler's application-limited test under
    /// `Ns3Compat::app_limited_after_write`: the end of the last segment sent by the sending
    /// loop, back to the start of a segment `DoRetransmit` re-sends, up to each new ACK (see
    /// `cc_snd_nxt`).
    pub(super) send_ptr: u64,
    /// Every ACK event handed to the congestion control, in order (tests only).
    #[cfg(test)]
    pub(super) ack_events: Vec<super::cc::AckEvent>,
}

impl Endpoint {
    /// One field on each cache line a segment's arrival reads, in either role: the lines from
    /// the start through the scoreboard's (see the layout above; a test keeps the list whole).
    #[inline]
    pub fn prefetch_lines(&self, p: &mut impl Lines) {
        self.prefetch_receive_lines(p);
        p.line(&self.counters.payload_sent);
        self.rtt.prefetch_lines(p);
        p.line(&self.w);
        self.sb.prefetch_lines(p);
    }

    /// One field on each cache line a data segment's arrival reads at an endpoint with nothing
    /// of its own to send: the lines through the receive-side counters.
    #[inline]
    pub fn prefetch_receive_lines(&self, p: &mut impl Lines) {
        p.line(&self.state);
        p.line(&self.rcv_nxt);
        p.line(&self.unacked_segs);
        p.line(&self.counters.delivered);
    }

    /// End of the receiving state (layout tests).
    #[cfg(test)]
    pub(crate) const RECEIVE_END: usize = std::mem::offset_of!(Endpoint, counters) + std::mem::size_of::<u64>() * 2;

    /// End of the state a segment's arrival reads: the scoreboard's last byte (layout tests).
    #[cfg(test)]
    pub(crate) const HOT_END: usize = std::mem::offset_of!(Endpoint, sb) + std::mem::size_of::<Scoreboard>();

    /// The send scoreboard's segments and the congestion control's boxed state, which live outside
    /// the endpoint: a second step, run when the endpoint's own lines are cached, just before a
    /// segment is handed to it.
    #[inline]
    pub fn prefetch_segments(&self, p: &mut impl Lines) {
        self.sb.prefetch_ends(p);
        self.cc.prefetch_lines(p);
    }

    fn new(cfg: Arc<TcpConfig>, local: SockAddr, remote: SockAddr, iss: u32, flow: u32) -> Self {
        let cc = AnyCc::new(&cfg);
        // ns-3's sampler keeps its sample between ACKs; BBR's `target = "ns3"` takes that reading.
        let keep = cfg.bbr.target == super::config::BbrTarget::Ns3;
        let rate = cc.wants_rate_samples().then(|| {
            let mut r = RateSampler::new(keep);
            // Linux (`tcp_init_sock`) starts a connection application-limited until its first
            // delivery; ns-3's `TcpRateLinux` starts it unmarked.
            if !cfg.compat.app_limited_after_write {
                r.app_limited = 1;
            }
            Box::new(r)
        });
        let smss = cfg.mss - cfg.ngwa.mss_reduction();
        let cwnd = cc.initial_cwnd(cfg.iw, smss);
        let rcv_shift = if cfg.window_scaling { wscale_for_buffer(cfg.rcv_buf) } else { 0 };
        let (initial_ssthresh, rcv_buf) = (cfg.initial_ssthresh, cfg.rcv_buf);
        let rtt = RttEstimator::new(cfg.rto, cfg.initial_rto, cfg.min_rto, cfg.max_rto, cfg.clock_granularity);
        Endpoint {
            cfg,
            flow,
            local,
            remote,
            state: ConnState::Closed,
            smss,
            snd_shift: 0,
            rcv_shift,
            sack_ok: false,
            ts_ok: false,
            ecn_ok: false,
            wscale_negotiated: false,
            iss,
            snd_una: 0,
            snd_max: 0,
            snd_wnd: 0,
            wl1: 0,
            wl2: 0,
            peer_seq_high: 0,
            app_end: 1,
            app_buffered: 1,
            app_write: 0,
            app_closed: false,
            sb: Scoreboard::default(),
            w: CwndState { cwnd, ssthresh: initial_ssthresh, smss },
            cc,
            ca: CaState::Open,
            dupacks: 0,
            cwnd_limited: false,
            recover: 0,
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: 0,
            reno_dup_bytes: 0,
            acked_rem: 0,
            first_partial_done: false,
            rtt,
            rto_at: NEVER,
            persist_at: NEVER,
            send_at: NEVER,
            pace_next: Time::ZERO,
            persist_backoff: 0,
            syn_tries: 0,
            rto_streak: 0,
            last_ack_tries: 0,
            rescue_rxt: None,
            fast_rtx_pending: false,
            syn_retransmitted: false,
            syn_at: Time::ZERO,
            karn_floor: 0,
            ts_seen: 0,
            cwr_pending: false,
            last_wnd_field: None,
            irs: 0,
            rcv_nxt: 0,
            rcv_buf,
            ooo: Vec::new(),
            ooo_fin: u64::MAX,
            sack_recent: Vec::new(),
            unacked_segs: 0,
            delack_at: NEVER,
            lnx_ack: LinuxDelAck::default(),
            rate,
            ngwa: None,
            ts_recent: 0,
            last_ack_sent: 0,
            right_edge: 0,
            ece_pending: false,
            ce_unechoed: false,
            fin_rcvd: false,
            counters: TcpCounters::default(),
            rtt_log: Vec::new(),
            rtt_logged: false,
            acns: None,
            send_ptr: 0,
            #[cfg(test)]
            ack_events: Vec::new(),
            reasm_held: false,
            ip_id: 0,
        }
    }

    /// The active opener.
    pub fn client(cfg: Arc<TcpConfig>, local: SockAddr, remote: SockAddr, iss: u32, flow: u32) -> Self {
        Endpoint::new(cfg, local, remote, iss, flow)
    }

    /// The passive opener, listening for the client's SYN.
    pub fn server(cfg: Arc<TcpConfig>, local: SockAddr, remote: SockAddr, iss: u32, flow: u32) -> Self {
        let mut e = Endpoint::new(cfg, local, remote, iss, flow);
        e.state = ConnState::Listen;
        e
    }

    /// Hands the congestion control its random stream (BBR's ProbeBW cycle start; the engine
    /// derives it from the flow's name).
    pub fn set_cc_rng(&mut self, rng: sluice_core::rng::RngStream) {
        self.cc.set_rng(rng);
    }

    /// Whether the congestion control draws random numbers (and so wants [`Self::set_cc_rng`]).
    pub fn cc_draws(&self) -> bool {
        self.cc.draws_random()
    }

    /// The congestion control's stream of draws (BBR's); tests only.
    #[cfg(test)]
    pub(crate) fn cc_rng(&self) -> Option<&sluice_core::rng::RngStream> {
        match &self.cc {
            AnyCc::Bbr(b) => Some(b.rng()),
            _ => None,
        }
    }

    /// Keep every RTT sample from now on (see [`Endpoint::rtt_log`]).
    pub fn log_rtt(&mut self) {
        self.rtt_logged = true;
    }

    /// Every RTT sample (time, rtt) since [`Endpoint::log_rtt`], if it was called.
    pub fn rtt_log(&self) -> Option<&[(Time, Dur)]> {
        self.rtt_logged.then_some(&self.rtt_log[..])
    }

    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    /// The application will send `bytes` more (`None`: unlimited), writing them into the send
    /// buffer `write` bytes at a time as space frees up (0: whatever fits).
    pub fn app_send(&mut self, bytes: Option<u64>, write: u64) {
        self.app_end = match bytes {
            None => UNLIMITED,
            Some(b) => self.app_end.saturating_add(b).min(UNLIMITED),
        };
        self.app_write = write;
    }

    /// A rate-limited application writes `bytes` more: they join the stream, enter the send
    /// buffer as it has room, and leave as the windows allow.
    pub fn app_write_more(&mut self, bytes: u64, now: Time, out: &mut Vec<SimPacket>) {
        self.app_send(Some(bytes), self.app_write);
        if self.is_synchronized() {
            self.send_pending(now, out);
        }
    }

    /// The application stops writing and closes: what it has already written is still sent,
    /// then FIN.
    pub fn app_stop(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        self.fill_send_buffer();
        self.app_end = self.app_end.min(self.app_buffered);
        self.app_close(now, out);
    }

    /// The application writes into the send buffer (ns-3's `TcpTxBuffer` and Linux's
    /// `sk_sndbuf` both bound unacknowledged plus unsent bytes): whole writes of `app_write`
    /// bytes while they fit in `snd_buf` (the last, shorter write of a finite stream as well), or,
    /// with no write size, everything that fits. A write is when the delivery-rate sampler
    /// asks whether the connection is application-limited (`Ns3Compat::app_limited_after_write`).
    pub(super) fn fill_send_buffer(&mut self) {
        if self.app_buffered >= self.app_end {
            return;
        }
        let cap = self.snd_una.max(1).saturating_add(self.cfg.snd_buf).min(UNLIMITED);
        if cap <= self.app_buffered {
            return;
        }
        let (room, left) = (cap - self.app_buffered, self.app_end - self.app_buffered);
        let written = match self.app_write {
            _ if left <= room => left,
            0 => room,
            w => room / w * w,
        };
        if written == 0 {
            return;
        }
        if self.rate.is_some() && self.is_synchronized() {
            let first = if self.app_write == 0 { written } else { written.min(self.app_write) };
            self.check_app_limited(first);
        }
        self.app_buffered += written;
    }

    /// The rate data segments are paced at, bit/s, if paced (docs/tcp.md, "pacing").
    pub fn pacing_bps(&self) -> Option<u64> {
        self.pacing_rate().map(|r| r.0)
    }

    /// The congestion control's internal values (`monitor.cc_trace`).
    pub fn cc_metrics(&self) -> super::cc::CcMetrics {
        use super::cc::CongestionControl;
        self.cc.metrics()
    }

    /// Bytes in flight (RFC 6675 pipe).
    pub fn in_flight(&self) -> u64 {
        self.pipe()
    }

    /// Payload bytes received out of order and held for reassembly (not yet delivered to the
    /// application). With the bytes delivered, the distinct payload bytes received so far.
    pub fn held_out_of_order(&self) -> u64 {
        self.ooo.iter().map(|(a, b)| b - a).sum()
    }

    pub fn local_addr(&self) -> u32 {
        self.local.addr
    }

    /// The application has no more data: FIN follows the last byte.
    pub fn app_close(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        self.app_closed = true;
        if self.is_synchronized() {
            self.send_pending(now, out);
        }
    }

    pub fn is_synchronized(&self) -> bool {
        matches!(self.state, ConnState::Established | ConnState::CloseWait | ConnState::FinWait1 | ConnState::FinWait2 | ConnState::LastAck | ConnState::TimeWait)
    }

    /// Whether all application data (and FIN, if closed) has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd_una >= self.app_end
    }

    /// Whether the engine sorts this endpoint's wake-up among same-instant events by when its
    /// deadline was set (`Ns3Compat::timer_ties_as_set`).
    pub fn timer_ties_as_set(&self) -> bool {
        self.cfg.compat.timer_ties_as_set
    }

    /// The earliest time this endpoint needs [`Endpoint::on_wakeup`].
    pub fn poll_at(&self) -> Option<Time> {
        let t = self.rto_at.min(self.delack_at).min(self.persist_at).min(self.send_at);
        (t != NEVER).then_some(t)
    }

    /// Start the handshake: send SYN.
    pub fn connect(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        debug_assert_eq!(self.state, ConnState::Closed);
        self.state = ConnState::SynSent;
        self.snd_una = 0;
        self.snd_max = 1;
        self.send_syn(now, out);
    }

    fn syn_timeout(&self) -> Dur {
        match self.cfg.syn_rto {
            // ns-3: ConnTimeout 3 s, doubled per retry.
            SynRto::Ns3 => Dur::from_secs(3).saturating_mul(1u64 << (self.syn_tries.saturating_sub(1)).min(20)),
            SynRto::Rfc6298 => self.rtt.rto(),
        }
    }

    pub(super) fn send_syn(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        let ack_flag = self.state == ConnState::SynRcvd;
        let mut flags = F::SYN;
        if ack_flag {
            flags |= F::ACK;
            if self.ecn_ok {
                flags |= F::ECE; // RFC 3168 §6.1.1: SYN-ACK carries ECE, not CWR
            }
        } else if self.cfg.ecn {
            flags |= F::ECE | F::CWR;
        }
        // A SYN-ACK carries an option only if the SYN did (RFC 7323, RFC 2018).
        let offer = |ok: bool, cfg: bool| if ack_flag { ok } else { cfg };
        let opts = TcpOptions {
            mss: self.cfg.compat.syn_mss_option.then(|| (self.own_mss() + if self.cfg.timestamps { TS_OVERHEAD } else { 0 }).min(65_535) as u16),
            wscale: if offer(self.snd_shift_offered(), self.cfg.window_scaling) { Some(self.rcv_shift) } else { None },
            sack_permitted: offer(self.sack_ok, self.cfg.sack),
            ts: if offer(self.ts_ok, self.cfg.timestamps) { Some((ts_clock(now), if ack_flag { self.ts_recent } else { 0 })) } else { None },
            sack: SackBlocks::default(),
        };
        let window = self.rcv_buf.min(65_535) as u16; // never scaled in SYNs (RFC 7323 §2.2)
        let ack = if ack_flag { to_wire(self.irs, self.rcv_nxt) } else { 0 };
        if ack_flag {
            // RFC 7323 §4.3: Last.ACK.sent is the SYN-ACK's acknowledgment, so the first data
            // segment (SEG.SEQ = RCV.NXT) updates TS.Recent.
            self.last_ack_sent = self.rcv_nxt;
        }
        let mut pkt = self.segment(to_wire(self.iss, 0), ack, flags, window, opts, 0, Ecn::NotEct);
        if flags & F::ECE != 0 {
            self.acns_syn(&mut pkt, ack_flag);
        }
        out.push(pkt);
        if self.syn_tries == 0 {
            self.syn_at = now;
        }
        self.syn_tries += 1;
        self.counters.syn_sent += 1;
        if self.syn_tries > 1 {
            self.syn_retransmitted = true;
        }
        self.rto_at = now + self.syn_timeout();
    }

    fn snd_shift_offered(&self) -> bool {
        // On the server, window scaling is in effect iff both sides offered it.
        self.cfg.window_scaling && self.wscale_negotiated
    }

    /// Build a segment from this endpoint.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn segment(&mut self, seq: u32, ack: u32, flags: u8, window: u16, opts: TcpOptions, payload: u32, ecn: Ecn) -> SimPacket {
        self.ip_id = self.ip_id.wrapping_add(1);
        SimPacket {
            src: self.local.addr,
            dst: self.remote.addr,
            sport: self.local.port,
            dport: self.remote.port,
            tos: Tos::new(self.cfg.dscp, ecn),
            ttl: 64,
            ip_id: self.ip_id,
            transport: Transport::Tcp { seq, ack, flags, window, opts, bits: Default::default() },
            payload,
            flow: self.flow,
            opt33: 0,
        }
    }

    /// Handle an arriving segment addressed to this endpoint.
    pub fn on_segment(&mut self, pkt: &SimPacket, now: Time, out: &mut Vec<SimPacket>) {
        let Transport::Tcp { seq, ack, flags, window, ref opts, .. } = pkt.transport else {
            return;
        };
        if flags & F::RST != 0 {
            self.state = ConnState::Closed;
            self.rto_at = NEVER;
            return;
        }
        match self.state {
            ConnState::Closed | ConnState::Failed | ConnState::Aborted => {}
            ConnState::Listen => {
                if flags & F::SYN != 0 && flags & F::ACK == 0 {
                    self.accept_syn(seq, window, opts, flags, pkt.seg_bits(), now, out);
                }
            }
            ConnState::SynSent => {
                if flags & F::SYN != 0 && flags & F::ACK != 0 && ack == to_wire(self.iss, 1) {
                    self.irs = seq;
                    self.rcv_nxt = 1;
                    self.peer_seq_high = 0;
                    self.negotiate(opts, flags);
                    self.acns_negotiate(pkt.seg_bits());
                    self.snd_una = 1;
                    self.snd_wnd = window as u64; // SYN-ACK window is never scaled
                    self.wl1 = 0;
                    self.wl2 = 1;
                    if opts.ts.is_some() && self.ts_ok {
                        self.ts_recent = opts.ts.map_or(0, |t| t.0);
                    }
                    self.handshake_rtt_sample(opts, now);
                    self.on_established(now);
                    self.state = ConnState::Established;
                    self.send_ack(now, out);
                    if self.cfg.compat.first_data_delay == Dur::ZERO {
                        self.send_pending(now, out);
                    } else {
                        self.send_at = now + self.cfg.compat.first_data_delay;
                    }
                } else if flags & F::SYN != 0 && flags & F::ACK == 0 {
                    // Simultaneous open is not modelled; ignore.
                }
            }
            ConnState::SynRcvd => {
                if flags & F::SYN != 0 && flags & F::ACK == 0 {
                    // Our SYN-ACK was lost and the client retransmitted its SYN: the SYN-ACK
                    // again at once, counted as a retry, the timer left running (ns-3's
                    // `SendEmptyPacket` schedules it only when none is pending; Linux's
                    // `inet_rtx_syn_ack` does not touch the request's timer).
                    let due = self.rto_at;
                    self.send_syn(now, out);
                    if due != NEVER {
                        self.rto_at = due;
                    }
                    return;
                }
                if flags & F::ACK != 0 && ack == to_wire(self.iss, 1) {
                    self.handshake_rtt_sample(opts, now);
                    self.snd_una = 1;
                    self.snd_wnd = (window as u64) << self.snd_shift;
                    self.wl1 = unwrap_near(self.irs, seq, self.rcv_nxt);
                    self.wl2 = 1;
                    self.on_established(now);
                    self.state = ConnState::Established;
                    self.established_segment(pkt, now, out);
                }
            }
            _ => self.established_segment(pkt, now, out),
        }
    }

    /// The round trip of our SYN (client) or SYN-ACK (server), when the segment that
    /// completes it arrives (`handshake_rtt`; Linux `tcp_synack_rtt_meas` and the SYN's RTT in
    /// `tcp_ack`, ns-3 `EstimateRtt` from the SYN's entry in its RTT history): from its send
    /// time unless it was retransmitted (Karn), or from the echoed timestamp.
    fn handshake_rtt_sample(&mut self, opts: &TcpOptions, now: Time) {
        if !self.cfg.handshake_rtt {
            return;
        }
        let from_ts = self.ts_ok && (self.cfg.compat.rtt_from_ts || self.syn_retransmitted);
        let r = if from_ts { Self::ts_rtt(opts, now) } else { (!self.syn_retransmitted).then(|| now.since(self.syn_at)) };
        if let Some(r) = r {
            self.rtt.sample(r, 1, 1);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn accept_syn(&mut self, seq: u32, window: u16, opts: &TcpOptions, flags: u8, bits: crate::packet::SegBits, now: Time, out: &mut Vec<SimPacket>) {
        self.irs = seq;
        self.rcv_nxt = 1;
        self.negotiate(opts, flags);
        self.acns_negotiate(bits);
        if let Some((tsval, _)) = opts.ts {
            self.ts_recent = tsval;
        }
        self.snd_wnd = window as u64;
        self.state = ConnState::SynRcvd;
        self.snd_una = 0;
        self.snd_max = 1;
        self.send_syn(now, out);
    }

    /// Apply the peer's SYN options (RFC 7323 §2.2: window scaling only if both offer it; a shift
    /// above 14 is treated as 14).
    fn negotiate(&mut self, opts: &TcpOptions, flags: u8) {
        let server = self.state == ConnState::Listen;
        self.wscale_negotiated = self.cfg.window_scaling && opts.wscale.is_some();
        if self.wscale_negotiated {
            self.snd_shift = opts.wscale.unwrap_or(0).min(14);
        } else {
            self.snd_shift = 0;
            self.rcv_shift = 0;
        }
        self.sack_ok = self.cfg.sack && opts.sack_permitted;
        self.ts_ok = self.cfg.timestamps && opts.ts.is_some();
        self.ecn_ok = self.cfg.ecn && if server { flags & (F::ECE | F::CWR) == (F::ECE | F::CWR) } else { flags & F::ECE != 0 && flags & F::CWR == 0 };
        if let Some(m) = opts.mss {
            let peer = (m as u32).saturating_sub(if self.ts_ok { TS_OVERHEAD } else { 0 });
            self.smss = self.own_mss().min(peer).max(1);
        } else {
            // RFC 9293 §3.7.1: no option means 536 B — unless this end does not send the
            // option either (ns-3 style), where both sides use their configured size.
            self.smss = if self.cfg.compat.syn_mss_option { self.own_mss().min(536) } else { self.own_mss() };
        }
        self.w.smss = self.smss;
        self.w.cwnd = self.cc.initial_cwnd(self.cfg.iw, self.smss);
    }

    fn on_established(&mut self, now: Time) {
        use super::cc::CongestionControl;
        self.cc.on_established(&mut self.w, self.rtt.srtt, now);
        self.rto_at = NEVER;
        self.syn_tries = 0;
        if self.syn_retransmitted && self.cfg.syn_rto == SynRto::Rfc6298 {
            // RFC 6298 §5.7: RTO of at least 3 s once data transfer starts.
            self.rtt.at_least(Dur::from_secs(3));
        }
        self.right_edge = self.rcv_nxt + self.rcv_wnd();
    }

    /// Free receive space (the application reads in-order data at once).
    pub(super) fn rcv_wnd(&self) -> u64 {
        if !self.cfg.compat.ooo_shrinks_window {
            return self.rcv_buf;
        }
        if !self.reasm_held {
            return self.rcv_buf;
        }
        let held: u64 = self.ooo.iter().map(|(a, b)| b - a).sum();
        self.rcv_buf.saturating_sub(held)
    }

    /// Window field to advertise now (RFC 9293 §3.8.6: the right edge never moves left).
    pub(super) fn adv_window_field(&mut self) -> u16 {
        if self.cfg.ngwa.enabled {
            if let Some(f) = self.ngwa_window_field() {
                return f;
            }
        }
        let edge = (self.rcv_nxt + self.rcv_wnd()).max(self.right_edge);
        self.right_edge = edge;
        window_field(edge - self.rcv_nxt, self.rcv_shift)
    }

    /// Fire expired timers.
    pub fn on_wakeup(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        if self.send_at <= now {
            self.send_at = NEVER;
            self.send_pending(now, out);
        }
        if self.delack_at <= now {
            self.delack_at = NEVER;
            self.on_delack_timer(now, out);
        }
        if self.persist_at <= now {
            self.persist_at = NEVER;
            self.on_persist(now, out);
        }
        if self.rto_at <= now {
            self.rto_at = NEVER;
            match self.state {
                ConnState::SynSent | ConnState::SynRcvd => {
                    if self.syn_tries > self.cfg.syn_retries {
                        self.state = ConnState::Failed;
                        return;
                    }
                    if self.cfg.syn_rto == SynRto::Rfc6298 {
                        self.rtt.back_off();
                    }
                    self.send_syn(now, out);
                }
                _ => self.on_rto(now, out),
            }
        }
    }
}

/// The timestamp clock (RFC 7323 TSval): 1 ms ticks since the start of the run, as ns-3's
/// `TcpOptionTS::NowToTsValue` and Linux's TS clock (1 ms since Linux 4.13).
#[inline]
pub(super) fn ts_clock(now: Time) -> u32 {
    (now.0 / 1_000_000) as u32
}

impl Endpoint {
    /// An RTT sample from a segment's echoed timestamp (RFC 7323 §4.1): whole clock ticks, and
    /// 1 µs for a round trip shorter than one tick (as ns-3 rounds a zero sample up).
    pub(super) fn ts_rtt(opts: &TcpOptions, now: Time) -> Option<Dur> {
        let (_, ecr) = opts.ts?;
        Some(Dur::from_millis(ts_clock(now).wrapping_sub(ecr) as u64).max(Dur::from_micros(1)))
    }
}
