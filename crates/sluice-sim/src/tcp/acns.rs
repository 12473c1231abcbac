//! ACNS's endpoint half (Olšovský, "Advanced Congestion Notification System", ACM Slovakia
//! Bulletin 6(2), 2014): the handshake, the marking of data segments, the receiver's echo of a
//! router's command, the sender's reaction to commands and its trend rule on loss
//! (docs/tcp.md, "ACNS endpoint").
//!
//! The per-connection state lives in a box the endpoint keeps only for a connection that
//! negotiated ACNS, outside its hot cache lines; every hook in the endpoint sits behind a test of
//! `ecn_ok` (ACNS runs in ECN mode), so a connection without ECN pays one predictable branch.

use super::cc::{CaState, CongestionControl};
use super::endpoint::Endpoint;
use crate::packet::{SegBits, SimPacket, Transport};
use sluice_core::packet::{tcp_flags as F, CmtMask, Ecn};
use sluice_core::Time;
use std::collections::VecDeque;

/// How the receiver echoes a command (`acns.echo`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AcnsEcho {
    /// T5/T6 only on the ACK of the I6/I7 segment (with delayed ACK, the most severe command
    /// among the segments the ACK covers), T1/T2 on every other ACK; the sender sets CWR after
    /// applying a fallback.
    #[serde(rename = "once")]
    Once,
    /// RFC 3168 style: the most severe T5/T6 since the last CWR on every ACK until a data
    /// segment with CWR arrives; the sender sets CWR after applying any freeze or fallback.
    #[serde(rename = "latch")]
    Latch,
}

/// When the sender samples its window history (`acns.hist`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AcnsHist {
    /// One sample per command ACK: cwnd on its arrival, before the command is applied.
    #[serde(rename = "window")]
    Window,
    /// One sample per change of ⌊cwnd/SMSS⌋: the window before the change.
    #[serde(rename = "segment")]
    Segment,
}

impl AcnsEcho {
    pub fn as_str(self) -> &'static str {
        match self {
            AcnsEcho::Once => "once",
            AcnsEcho::Latch => "latch",
        }
    }
}

impl AcnsHist {
    pub fn as_str(self) -> &'static str {
        match self {
            AcnsHist::Window => "window",
            AcnsHist::Segment => "segment",
        }
    }
}

/// ACNS's endpoint options (`[tcp.acns]`).
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct AcnsConfig {
    /// Offer ACNS in the handshake (implies `ecn`).
    pub enabled: bool,
    pub echo: AcnsEcho,
    pub hist: AcnsHist,
    /// Window-history samples kept.
    pub hist_len: u32,
    /// Apply the trend rule on a retransmission timeout too (else only on fast retransmit).
    pub trend_on_rto: bool,
    /// Commands kept in `P` for the trend rule.
    pub w_count: u32,
    /// The trend weights' decay `σ`: weight `e^{−i/σ}` for the i-th newest command.
    pub sigma: f64,
    /// Trend thresholds: `C_trend = 1` below `th_l1`, 2 below `th_l2`, else 3.
    pub th_l1: f64,
    pub th_l2: f64,
    /// The TCP reserved bit (byte 12) that carries CMT: 0x08, 0x04 or 0x02.
    pub cmt_mask: u8,
}

impl Default for AcnsConfig {
    /// Off; the paper's Table 1 values (`w_count` 10, `σ` 3, `th_L1` 1.8413, `th_L2` 2.1587),
    /// `echo = "once"`, `hist = "window"` with 32 samples, CMT at 0x08.
    fn default() -> Self {
        AcnsConfig { enabled: false, echo: AcnsEcho::Once, hist: AcnsHist::Window, hist_len: 32, trend_on_rto: false, w_count: 10, sigma: 3.0, th_l1: 1.8413, th_l2: 2.1587, cmt_mask: 0x08 }
    }
}

impl AcnsConfig {
    /// ACNS is off (whatever the other values): nothing of it is recorded.
    pub fn is_off(&self) -> bool {
        !self.enabled
    }

    /// Checks the values; `Err((key, message))`.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.hist_len == 0 {
            return Err(("hist_len", "must be at least 1, got 0".into()));
        }
        if self.w_count == 0 {
            return Err(("w_count", "must be at least 1, got 0".into()));
        }
        if !(self.sigma.is_finite() && self.sigma > 0.0) {
            return Err(("sigma", format!("must be > 0, got {}", self.sigma)));
        }
        if !(self.th_l1.is_finite() && self.th_l1 > 0.0) {
            return Err(("th_l1", format!("must be > 0, got {}", self.th_l1)));
        }
        if !(self.th_l2.is_finite() && self.th_l2 >= self.th_l1) {
            return Err(("th_l2", format!("must be at least th_l1 ({}), got {}", self.th_l1, self.th_l2)));
        }
        if let Err(m) = CmtMask::new(self.cmt_mask) {
            return Err(("cmt_mask", m));
        }
        Ok(())
    }

    /// The options under their scenario keys, for the summary (nothing when off).
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        if !self.enabled {
            return Vec::new();
        }
        vec![
            ("acns", "true".into()),
            ("acns.echo", self.echo.as_str().into()),
            ("acns.hist", self.hist.as_str().into()),
            ("acns.hist_len", self.hist_len.to_string()),
            ("acns.trend_on_rto", self.trend_on_rto.to_string()),
            ("acns.w_count", self.w_count.to_string()),
            ("acns.sigma", self.sigma.to_string()),
            ("acns.th_l1", self.th_l1.to_string()),
            ("acns.th_l2", self.th_l2.to_string()),
            ("acns.cmt_mask", format!("{:#04x}", self.cmt_mask)),
        ]
    }
}

/// A command: normal (1), freeze (2), fallback (3); ordered by severity.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Command {
    Normal = 1,
    Freeze = 2,
    Fallback = 3,
}

/// The trend weights `e^{−i/σ}/X`, `X = Σ_{i=1..n} e^{−i/σ}`, for i = 1..n (eqn. 5).
pub fn trend_weights(n: usize, sigma: f64) -> Vec<f64> {
    let raw: Vec<f64> = (1..=n).map(|i| (-(i as f64) / sigma).exp()).collect();
    let x: f64 = raw.iter().sum();
    raw.into_iter().map(|w| w / x).collect()
}

/// `W_trend` over the commands in `p`, newest first (eqn. 5 over the entries available); `None`
/// when `p` is empty.
pub fn w_trend(p: impl IntoIterator<Item = Command>, sigma: f64) -> Option<f64> {
    let (mut num, mut x) = (0.0, 0.0);
    for (i, c) in p.into_iter().enumerate() {
        let w = (-((i + 1) as f64) / sigma).exp();
        num += w * c as u8 as f64;
        x += w;
    }
    (x > 0.0).then(|| num / x)
}

/// The trend command: 1 below `th_l1`, 2 below `th_l2`, else 3; 3 when `p` is empty.
pub fn trend_command(p: impl IntoIterator<Item = Command>, cfg: &AcnsConfig) -> Command {
    match w_trend(p, cfg.sigma) {
        Some(w) if w < cfg.th_l1 => Command::Normal,
        Some(w) if w < cfg.th_l2 => Command::Freeze,
        _ => Command::Fallback,
    }
}

/// The newest history sample strictly below `cwnd` (`samples` oldest first).
pub fn fallback_target<'a>(samples: impl DoubleEndedIterator<Item = &'a u64>, cwnd: u64) -> Option<u64> {
    samples.rev().copied().find(|&s| s < cwnd)
}

/// What a connection counted of ACNS (the flow summary's `acns`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AcnsCounts {
    /// Command ACKs applied, by command.
    pub normal: u64,
    pub freeze: u64,
    pub fallback: u64,
    /// Command ACKs that arrived in loss recovery: entered into `P`, not applied.
    pub in_recovery: u64,
    /// Trend decisions on loss, by `C_trend`.
    pub trend_freeze: u64,
    pub trend_fallback: u64,
    pub trend_decrease: u64,
    /// Data segments sent marked I4 (routers asked for a command).
    pub marked: u64,
    /// Data segments received with I6 (freeze) or I7 (fallback; a legacy CE too).
    pub rx_freeze: u64,
    pub rx_fallback: u64,
}

/// One connection's ACNS state (kept only once ACNS is negotiated).
#[derive(Clone, Debug)]
pub struct AcnsState {
    pub(super) cfg: AcnsConfig,
    pub(super) mask: u8,
    // ---- receiver
    /// `echo = "once"`: the most severe command received since the last ACK sent.
    pub(super) rx_once: Option<Command>,
    /// `echo = "latch"`: the most severe command received since the last CWR.
    pub(super) rx_latch: Option<Command>,
    // ---- sender
    /// The outstanding I4-marked segment `[start, end)`.
    pub(super) marked: Option<(u64, u64)>,
    /// `echo = "once"`: the most severe code on any ACK since the previous command ACK.
    pub(super) since_cmd: Command,
    /// The window is held (after a freeze or fallback) until the next command ACK.
    pub(super) held: bool,
    /// `P`, newest first.
    pub(super) p: VecDeque<Command>,
    /// Window history, oldest first.
    pub(super) hist: VecDeque<u64>,
    /// `hist = "segment"`: cwnd when last looked at.
    pub(super) seg_last: u64,
    /// The trend rule decided for the loss episode ending here (SND.MAX at the decision).
    pub(super) trend_recover: u64,
    pub counts: AcnsCounts,
}

impl AcnsState {
    pub fn new(cfg: AcnsConfig, cwnd: u64) -> AcnsState {
        AcnsState {
            cfg,
            mask: cfg.cmt_mask,
            rx_once: None,
            rx_latch: None,
            marked: None,
            since_cmd: Command::Normal,
            held: false,
            p: VecDeque::with_capacity(cfg.w_count as usize),
            hist: VecDeque::with_capacity(cfg.hist_len as usize),
            seg_last: cwnd,
            trend_recover: 0,
            counts: AcnsCounts::default(),
        }
    }

    /// `P`, newest first.
    pub fn p(&self) -> impl Iterator<Item = Command> + '_ {
        self.p.iter().copied()
    }

    pub fn history(&self) -> impl DoubleEndedIterator<Item = &u64> {
        self.hist.iter()
    }

    pub fn held(&self) -> bool {
        self.held
    }

    /// The outstanding marked segment.
    pub fn marked(&self) -> Option<(u64, u64)> {
        self.marked
    }

    fn push_p(&mut self, c: Command) {
        if self.p.len() == self.cfg.w_count as usize {
            self.p.pop_back();
        }
        self.p.push_front(c);
    }

    fn push_hist(&mut self, cwnd: u64) {
        if self.hist.len() == self.cfg.hist_len as usize {
            self.hist.pop_front();
        }
        self.hist.push_back(cwnd);
    }

    /// `hist = "segment"`: a sample when ⌊cwnd/SMSS⌋ changed since last looked at.
    fn look_at_window(&mut self, cwnd: u64, smss: u64) {
        if cwnd / smss != self.seg_last / smss {
            let before = self.seg_last;
            self.push_hist(before);
        }
        self.seg_last = cwnd;
    }

    /// The code an ACK carries: T5 (ECE + CMT) freeze, T6 (ECE) fallback, else normal.
    fn code_of(&self, flags: u8, bits: SegBits) -> Command {
        match (flags & F::ECE != 0, bits.tcp_reserved() & self.mask != 0) {
            (true, true) => Command::Freeze,
            (true, false) => Command::Fallback,
            _ => Command::Normal,
        }
    }
}

/// The command a data segment carries from the routers: I6 (ECN 11, CMI set) freeze, I7 (ECN 11,
/// CMI clear) fallback.
fn command_of(pkt: &SimPacket) -> Option<Command> {
    if pkt.tos.ecn() != Ecn::Ce {
        return None;
    }
    Some(if pkt.seg_bits().ip_reserved_flag() { Command::Freeze } else { Command::Fallback })
}

fn set_bits(pkt: &mut SimPacket, f: impl FnOnce(&mut SegBits)) {
    if let Transport::Tcp { bits, .. } = &mut pkt.transport {
        f(bits);
    }
}

impl Endpoint {
    /// The connection's ACNS state, if negotiated.
    pub fn acns(&self) -> Option<&AcnsState> {
        self.acns.as_deref()
    }

    // ---- handshake

    /// Marks a SYN (`ECE + CWR + CMT`) or SYN-ACK (`ECE + CMT`) as ACNS's.
    #[cold]
    pub(super) fn acns_syn(&self, pkt: &mut SimPacket, synack: bool) {
        let offer = if synack { self.acns.is_some() } else { self.cfg.acns.enabled };
        if offer {
            let mask = self.cfg.acns.cmt_mask;
            set_bits(pkt, |b| b.set_tcp_reserved(b.tcp_reserved() | mask));
        }
    }

    /// After the peer's SYN or SYN-ACK set `ecn_ok` (RFC 3168 §6.1.1): ACNS if both offered it,
    /// i.e. ECN was agreed and the segment carries CMT; else RFC 3168 ECN or none.
    #[cold]
    pub(super) fn acns_negotiate(&mut self, bits: SegBits) {
        let a = self.cfg.acns;
        self.acns = (a.enabled && self.ecn_ok && bits.tcp_reserved() & a.cmt_mask != 0).then(|| Box::new(AcnsState::new(a, self.w.cwnd)));
    }

    // ---- receiver

    /// A data segment's ECN field at an ACNS receiver: I6 → freeze and I7 → fallback for the
    /// next ACK (`once`), or until a CWR arrives (`latch`); under `delack = "linux"` a command
    /// is a CE mark, which enters quick-ACK mode unless an echo was already pending, as for the
    /// RFC 3168 receiver. Returns false without ACNS (the RFC 3168 receiver then runs).
    pub(super) fn acns_data(&mut self, pkt: &SimPacket, flags: u8) -> bool {
        let Some(a) = self.acns.as_deref_mut() else { return false };
        // Linux's `TCP_ECN_DEMAND_CWR`: whether an echo was pending before this segment.
        let echoing = self.ece_pending;
        let cmd = command_of(pkt);
        match cmd {
            Some(Command::Freeze) => a.counts.rx_freeze += 1,
            Some(Command::Fallback) => a.counts.rx_fallback += 1,
            _ => {}
        }
        match a.cfg.echo {
            AcnsEcho::Once => a.rx_once = a.rx_once.max(cmd),
            AcnsEcho::Latch => {
                if flags & F::CWR != 0 {
                    a.rx_latch = None;
                }
                a.rx_latch = a.rx_latch.max(cmd);
            }
        }
        self.ece_pending = a.rx_once.is_some() || a.rx_latch.is_some();
        if self.cfg.delack == super::config::DelAck::Linux && pkt.payload > 0 {
            let (ce, ect) = (pkt.tos.ecn() == Ecn::Ce, matches!(pkt.tos.ecn(), Ecn::Ect0 | Ecn::Ect1));
            let wnd = self.rcv_wnd();
            self.lnx_ack.on_ecn(ce, ect, echoing, wnd);
        }
        true
    }

    /// An ACK about to leave with ECE (`ece_pending`): T5 adds CMT; under `once` the command is
    /// echoed on this ACK only.
    #[cold]
    pub(super) fn acns_echo(&mut self, pkt: &mut SimPacket) {
        let Some(a) = self.acns.as_deref_mut() else { return };
        let cmd = match a.cfg.echo {
            AcnsEcho::Once => a.rx_once.take(),
            AcnsEcho::Latch => a.rx_latch,
        };
        if cmd == Some(Command::Freeze) {
            let mask = a.mask;
            set_bits(pkt, |b| b.set_tcp_reserved(b.tcp_reserved() | mask));
        }
        self.ece_pending = a.rx_latch.is_some();
    }

    // ---- sender

    /// A new data segment leaving as ECT(0) (I2): marked I4 if it fills the window
    /// (`flight ≥ min(cwnd, rwnd)` once it is sent) and no marked segment is outstanding.
    /// The ECN nonce (RFC 3540, historic) is not implemented: data is always ECT(0), nonce 0.
    pub(super) fn acns_mark(&mut self, pkt: &mut SimPacket, start: u64, end: u64) {
        if self.acns.as_deref().is_none_or(|a| a.marked.is_some()) {
            return; // RFC 3168 mode, or a marked segment is outstanding
        }
        if self.pipe() < self.w.cwnd.min(self.snd_wnd) {
            return;
        }
        if let Some(a) = self.acns.as_deref_mut() {
            a.marked = Some((start, end));
            a.counts.marked += 1;
            set_bits(pkt, |b| b.set_ip_reserved_flag(true));
        }
    }

    /// A window probe just sent (the last segment of `out`): Not-ECT under ACNS (I1), and never
    /// the window's marked segment.
    #[cold]
    pub(super) fn acns_probe(&mut self, out: &mut [SimPacket]) {
        let (Some(a), Some(pkt)) = (self.acns.as_deref_mut(), out.last_mut()) else { return };
        pkt.tos.set_ecn(Ecn::NotEct);
        if pkt.seg_bits().ip_reserved_flag() {
            set_bits(pkt, |b| b.set_ip_reserved_flag(false));
            a.marked = None;
            a.counts.marked -= 1;
        }
    }

    /// A retransmission of `[start, end)`: a retransmitted marked segment takes its window's
    /// command with it (the trend rule handled the loss); marking resumes with the next window.
    #[cold]
    pub(super) fn acns_retransmit(&mut self, start: u64, end: u64) {
        if let Some(a) = self.acns.as_deref_mut() {
            if a.marked.is_some_and(|(s, e)| start < e && end > s) {
                a.marked = None;
            }
        }
    }

    /// Every ACK on an ECN connection, before it is acted on: returns whether it calls for the
    /// RFC 3168 response (its ECE, without ACNS). Under ACNS it reads the ACK's code, and the
    /// command ACK (the first whose cumulative ACK covers the marked segment) delivers its
    /// window's command.
    pub(super) fn ecn_echo_of(&mut self, ack: u64, flags: u8, bits: SegBits, now: Time) -> bool {
        let smss = self.smss as u64;
        let in_recovery = matches!(self.ca, CaState::Recovery | CaState::Loss);
        let cwnd = self.w.cwnd;
        let Some(a) = self.acns.as_deref_mut() else { return flags & F::ECE != 0 };
        if a.cfg.hist == AcnsHist::Segment && !in_recovery {
            a.look_at_window(cwnd, smss);
        }
        let code = a.code_of(flags, bits);
        a.since_cmd = a.since_cmd.max(code);
        let Some((_, end)) = a.marked else { return false };
        if ack < end {
            return false;
        }
        a.marked = None;
        let cmd = match a.cfg.echo {
            AcnsEcho::Once => std::mem::replace(&mut a.since_cmd, Command::Normal),
            AcnsEcho::Latch => code,
        };
        a.push_p(cmd);
        if in_recovery {
            a.counts.in_recovery += 1;
            return false;
        }
        if a.cfg.hist == AcnsHist::Window {
            a.push_hist(cwnd);
        }
        match cmd {
            Command::Normal => {
                a.counts.normal += 1;
                if std::mem::take(&mut a.held) {
                    self.cc.on_acns_release(now);
                }
            }
            Command::Freeze => {
                a.counts.freeze += 1;
                self.acns_hold(Command::Freeze, cwnd, now);
            }
            Command::Fallback => {
                a.counts.fallback += 1;
                let to = fallback_target(a.hist.iter(), cwnd).unwrap_or(cwnd);
                self.acns_hold(Command::Fallback, to, now);
            }
        }
        false
    }

    /// Apply a freeze or fallback: cwnd = `to`, ssthresh = cwnd, the window held until the next
    /// command ACK; CWR on the next new data segment after a fallback (`once`) or any (`latch`).
    #[cold]
    fn acns_hold(&mut self, cmd: Command, to: u64, now: Time) {
        let Some(a) = self.acns.as_deref_mut() else { return };
        a.held = true;
        if cmd == Command::Fallback || a.cfg.echo == AcnsEcho::Latch {
            self.cwr_pending = true;
        }
        self.w.cwnd = to.max(self.smss as u64);
        self.w.ssthresh = self.w.cwnd;
        self.cc.on_acns_hold(cmd == Command::Fallback, now);
    }

    /// Whether an ACNS command holds the window (the ACK does not grow it).
    #[inline]
    pub(super) fn acns_holds(&self) -> bool {
        self.acns.as_deref().is_some_and(|a| a.held)
    }

    /// The trend rule at a loss (fast retransmit; a timeout with `trend_on_rto`), once per loss
    /// episode: `Some(window)` for `C_trend` 1 (freeze: the window as it is) or 2 (fallback: the
    /// newest history sample below it), which the caller takes as ssthresh and cwnd in place of
    /// the algorithm's decrease; `None` for the algorithm's own decrease (`C_trend` 3, or a
    /// loss within an episode already decided). The hold ends either way.
    #[cold]
    pub(super) fn acns_trend(&mut self, rto: bool, now: Time) -> Option<u64> {
        let (snd_una, snd_max, cwnd) = (self.snd_una, self.snd_max, self.w.cwnd);
        let a = self.acns.as_deref_mut()?;
        if std::mem::take(&mut a.held) {
            self.cc.on_acns_release(now);
        }
        if (rto && !a.cfg.trend_on_rto) || snd_una < a.trend_recover {
            return None;
        }
        a.trend_recover = snd_max;
        let (cmd, to) = match trend_command(a.p.iter().copied(), &a.cfg) {
            Command::Normal => {
                a.counts.trend_freeze += 1;
                a.push_p(Command::Freeze);
                (Command::Freeze, cwnd)
            }
            Command::Freeze => {
                a.counts.trend_fallback += 1;
                a.push_p(Command::Fallback);
                (Command::Fallback, fallback_target(a.hist.iter(), cwnd).unwrap_or(cwnd))
            }
            Command::Fallback => {
                a.counts.trend_decrease += 1;
                a.push_p(Command::Fallback);
                return None;
            }
        };
        self.acns_hold(cmd, to, now);
        Some(self.w.cwnd)
    }

    /// The trend rule at a loss on an ECN connection ([`Self::acns_trend`]); `None` without
    /// ACNS.
    #[inline]
    pub(super) fn acns_loss_window(&mut self, rto: bool, now: Time) -> Option<u64> {
        if !self.ecn_ok {
            return None;
        }
        self.acns_trend(rto, now)
    }
}
