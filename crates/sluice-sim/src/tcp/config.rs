//! Endpoint options. Where the RFCs, Linux and ns-3 differ, each behaviour is a named option
//! (docs/tcp.md); the `validate = "ns3.44"` profile selects ns-3's choices
//! ([`TcpConfig::ns3_44`]), those that only reproduce ns-3 gathered in [`Ns3Compat`].

use sluice_core::Dur;

pub use super::acns::{AcnsConfig, AcnsEcho, AcnsHist};
pub use super::cc::bbr::{BbrConfig, BbrCycleStart, BbrCycleStream, BbrTarget};
pub use super::cc::compound::{CompoundConfig, CompoundVariant};
pub use super::cc::cubic::{CubicConfig, Hystart};
pub use super::cc::vegas::{VegasConfig, VegasDiff};

/// Which congestion control runs (a closed set): the scenario key `cc` (docs/tcp.md,
/// "congestion control").
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CcKind {
    /// RFC 5681 window growth with RFC 6582 NewReno recovery.
    #[serde(rename = "new_reno")]
    NewReno,
    /// RFC 5681 §3.2 Reno: fast recovery ends at the first ACK of new data.
    #[serde(rename = "reno")]
    Reno,
    /// Tahoe: fast retransmit, then cwnd = 1 SMSS and slow start (no fast recovery).
    #[serde(rename = "tahoe")]
    Tahoe,
    /// Linux's Reno (`tcp_reno_cong_avoid`; ns-3 `TcpLinuxReno`): NewReno recovery, growth in
    /// whole segments, ssthresh from cwnd.
    #[serde(rename = "linux_reno")]
    LinuxReno,
    /// CUBIC (RFC 9438; Linux `tcp_cubic.c`, ns-3 `TcpCubic`), with `[tcp.cubic]` options.
    #[serde(rename = "cubic")]
    Cubic,
    /// TCP Vegas (Brakmo & Peterson 1995; ns-3 `TcpVegas`, Linux `tcp_vegas.c`), with
    /// `[tcp.vegas]` options.
    #[serde(rename = "vegas")]
    Vegas,
    /// Compound TCP (draft-sridharan-tcpm-ctcp-02; the Linux module `tcp_compound.c`), with
    /// `[tcp.compound]` options.
    #[serde(rename = "compound")]
    Compound,
    /// BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00; ns-3 `TcpBbr`), with `[tcp.bbr]`
    /// options.
    #[serde(rename = "bbr")]
    Bbr,
    /// "Plain RFC 793": no congestion window; only the peer's window limits the sender (RFC 793
    /// predates congestion control).
    #[serde(rename = "none")]
    None,
}

impl CcKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CcKind::NewReno => "new_reno",
            CcKind::Reno => "reno",
            CcKind::Tahoe => "tahoe",
            CcKind::LinuxReno => "linux_reno",
            CcKind::Cubic => "cubic",
            CcKind::Vegas => "vegas",
            CcKind::Compound => "compound",
            CcKind::Bbr => "bbr",
            CcKind::None => "none",
        }
    }
}

/// Recovery algorithm during fast recovery (docs/tcp.md, "proportional rate reduction").
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// Proportional Rate Reduction (RFC 6937 / RFC 9937), as Linux and ns-3 default.
    Prr(PrrVariant),
    /// RFC 5681/6582 window inflation (no SACK) or RFC 6675 pipe (SACK).
    Classic,
}

/// PRR's bound when `pipe ≤ ssthresh` (RFC 6937 §3.1, RFC 9937).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PrrVariant {
    /// RFC 9937 as ns-3 ≥ 3.43 implements it.
    Rfc9937,
    /// RFC 6937 slow-start reduction bound, unconditional.
    Rfc6937,
}

/// What counts as a duplicate ACK (RFC 5681 §2 and the variants of docs/tcp.md, "duplicate ACKs").
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DupAckRule {
    /// Ignore the window-equality test; with SACK, an ACK that SACKs new data counts.
    Default,
    /// RFC 5681 §2 including "the advertised window equals that of the previous ACK".
    Strict,
    /// ns-3: with SACK, iff the scoreboard changed; without, ACK = SND.UNA < HighTx, no payload.
    Ns3,
    /// Linux: not a duplicate if it carries data or is a window update (grown or zero window).
    Linux,
}

/// When a segment's window updates the send window.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WndUpdateRule {
    /// RFC 9293 §3.10.7.4: `SND.UNA ≤ SEG.ACK ≤ SND.NXT` and (`SEG.SEQ > WL1`, or `SEG.SEQ = WL1`
    /// and `SEG.ACK ≥ WL2`).
    Rfc9293,
    /// ns-3 `TcpSocketBase::UpdateWindowSize`: a new highest ACK, a new highest sequence number,
    /// or the same ACK with a larger window.
    Ns3,
    /// Linux `tcp_may_update_window`: `SEG.ACK > SND.UNA`, `SEG.SEQ > WL1`, or `SEG.SEQ = WL1`
    /// with a larger or zero window.
    Linux,
    /// Every segment's window (ns-3 ≤ 3.22, the `ns3.13` preset).
    Always,
}

/// How the SYN is retransmitted.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SynRto {
    /// RFC 6298: initial RTO 1 s, backed off; RTO reset to 3 s if the SYN was retransmitted
    /// (§5.7).
    Rfc6298,
    /// ns-3: ConnTimeout 3 s doubled per retry, at most `syn_retries + 1` SYNs.
    Ns3,
}

/// Which of RFC 6675's NextSeg rules (§4) send in SACK recovery when no lost segment waits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NextSeg {
    /// All four: after (1) lost segments and (2) new data, (3) the first un-SACKed hole below
    /// the highest SACK, then (4) once per recovery a rescue retransmission of the highest
    /// un-SACKed segment.
    Rfc6675,
    /// ns-3 (`TcpTxBuffer::NextSeg`): rule (3) only when no unsent data is left (unsent data
    /// the peer's window holds back sends nothing), and no rescue.
    Ns3,
}

/// Whether and how data segments are paced (docs/tcp.md, "pacing"): a segment of `L` payload
/// bytes may leave no earlier than `L·8/rate` after the one before it. Pacing never overrides
/// the windows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pacing {
    /// Never, even when the congestion control sets a rate.
    Off,
    /// At the congestion control's own rate when it sets one (BBR); others send as the windows
    /// allow.
    Cc,
    /// The congestion control's rate, else Linux's internal pacing rate for any algorithm
    /// (`tcp_update_pacing_rate`): `ratio · max(cwnd, in flight) / SRTT` with ratio 200 % in
    /// slow start (cwnd below half of ssthresh) and 120 % after; none before the first RTT
    /// sample.
    Linux,
}

impl Pacing {
    pub fn as_str(self) -> &'static str {
        match self {
            Pacing::Off => "off",
            Pacing::Cc => "cc",
            Pacing::Linux => "linux",
        }
    }
}

/// Which SACK blocks a receiver reports.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SackReport {
    /// RFC 2018 §4: the block holding the newest arrival first, then the most recently reported
    /// blocks, then any other held block, each block maximal (what the receiver holds).
    Rfc2018,
    /// ns-3 (`TcpRxBuffer::UpdateSackList`): a list of at most four blocks, newest first; a new
    /// arrival merges only with blocks exactly adjacent to it, a block pushed off the list is
    /// forgotten, and only listed blocks are reported.
    Ns3,
}

/// cwnd on a full ACK ending NewReno recovery (RFC 6582 §3.2 step 3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FullAck {
    Ssthresh,
    FlightSize,
}

/// How an ECN-Echo reduces cwnd (RFC 3168 §6.1.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnCut {
    /// Enter CWR and reduce through PRR (ns-3, Linux).
    Prr,
    /// cwnd = ssthresh at once (RFC 3168 reading).
    Immediate,
}

/// Delayed-ACK policy (RFC 1122 §4.2.3.2, RFC 5681 §4.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DelAck {
    /// ACK every `count`-th full segment or after `timeout`.
    On { count: u32, timeout: Dur },
    /// ACK every segment.
    Off,
    /// Linux's receiver: quick-ACK mode at start-up, an adaptive ACK timeout (ATO) of at least
    /// 40 ms, an ACK once more than one full segment is unacknowledged
    /// ([`super::delayed_ack`]).
    Linux,
}

/// RTO estimator (docs/tcp.md, "retransmission timer"; `rto` in scenarios). Choosing one in a
/// scenario also sets `min_rto`/`max_rto` to its bounds unless the same table gives them
/// ([`RtoEstimator::bounds`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimator {
    /// RFC 6298: `RTO = SRTT + max(G, 4·RTTVAR)` clamped to `[min_rto, max_rto]`.
    Rfc6298,
    /// Linux `tcp_rtt_estimator` / `__tcp_set_rto`: `RTO = SRTT + rttvar`, `min_rto` bounds
    /// rttvar (not the RTO), ceiling `max_rto` (120 s).
    Linux,
    /// ns-3 ≤ 3.21 `RttMeanDeviation` (gain 0.1), for the ns-3.13-era reproductions.
    Ns3Legacy,
    /// RFC 793 §3.7: `SRTT = a·SRTT + (1−a)·R`, `RTO = min(UBOUND, max(LBOUND, b·SRTT))`.
    Rfc793,
}

impl RtoEstimator {
    pub fn as_str(self) -> &'static str {
        match self {
            RtoEstimator::Rfc6298 => "rfc6298",
            RtoEstimator::Linux => "linux",
            RtoEstimator::Ns3Legacy => "ns3_legacy",
            RtoEstimator::Rfc793 => "rfc793",
        }
    }

    /// The estimator's own `(min_rto, max_rto)`: RFC 6298 1 s and 60 s (ns-3's ceiling); Linux
    /// `TCP_RTO_MIN` 200 ms (a floor on rttvar) and `TCP_RTO_MAX` 120 s; ns-3.13 `MinRTO`
    /// 200 ms and no ceiling but the ×64 backoff cap (`max_rto` is not used); RFC 793 LBOUND
    /// 1 s and UBOUND 60 s (RFC 793 §3.7's examples).
    pub fn bounds(self) -> (Dur, Dur) {
        match self {
            RtoEstimator::Rfc6298 | RtoEstimator::Rfc793 => (Dur::from_secs(1), Dur::from_secs(60)),
            RtoEstimator::Linux => (Dur::from_millis(200), Dur::from_secs(120)),
            RtoEstimator::Ns3Legacy => (Dur::from_millis(200), Dur::from_secs(60)),
        }
    }
}

/// The initial congestion window (docs/tcp.md, "initial window"; `iw` and `initial_cwnd` in
/// scenarios).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InitialWindow {
    /// A fixed number of segments: `n·SMSS` (ns-3 `InitialCwnd`, Linux `TCP_INIT_CWND`; the
    /// default is 10).
    Segments(u32),
    /// RFC 6928 §2: `min(10·SMSS, max(2·SMSS, 14600))` bytes; 10 segments for SMSS ≤ 1460.
    Rfc6928,
    /// RFC 3390 §1: `min(4·SMSS, max(2·SMSS, 4380))` bytes.
    Rfc3390,
    /// RFC 5681 §3.1: 2 segments if SMSS > 2190 B, 3 if SMSS > 1095 B, else 4.
    Rfc5681,
}

impl InitialWindow {
    /// The initial window in bytes for a sender maximum segment size of `smss` bytes.
    pub fn bytes(self, smss: u32) -> u64 {
        let s = smss as u64;
        match self {
            InitialWindow::Segments(n) => n as u64 * s,
            // RFC 6928 §2: min(10*MSS, max(2*MSS, 14600)).
            InitialWindow::Rfc6928 => (10 * s).min((2 * s).max(14_600)),
            // RFC 3390 §1: min(4*MSS, max(2*MSS, 4380)).
            InitialWindow::Rfc3390 => (4 * s).min((2 * s).max(4_380)),
            // RFC 5681 §3.1, the IW table.
            InitialWindow::Rfc5681 => match smss {
                2191.. => 2 * s,
                1096..=2190 => 3 * s,
                _ => 4 * s,
            },
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            InitialWindow::Segments(_) => "segments",
            InitialWindow::Rfc6928 => "rfc6928",
            InitialWindow::Rfc3390 => "rfc3390",
            InitialWindow::Rfc5681 => "rfc5681",
        }
    }
}

/// Everything that configures one TCP endpoint pair.
///
/// The fields here are the endpoint's parameters and the choices the RFCs themselves leave open
/// or that Linux and ns-3 make differently for reasons of their own (the duplicate-ACK and
/// window-update rules, the RTO estimator, delayed ACKs, the recovery algorithm and its PRR
/// variant, the SYN timer…); each is a scenario key (docs/scenarios.md). Behaviours that only
/// reproduce ns-3, its defects included, are grouped in [`Ns3Compat`] (`compat`), which the
/// `validate = "ns3.44"` profile switches on as a whole.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TcpConfig {
    pub cc: CcKind,
    /// CUBIC's parameters (`[tcp.cubic]`; used when `cc = "cubic"`).
    pub cubic: CubicConfig,
    /// Vegas's parameters (`[tcp.vegas]`; used when `cc = "vegas"`).
    pub vegas: VegasConfig,
    /// Compound TCP's parameters (`[tcp.compound]`; used when `cc = "compound"`).
    pub compound: CompoundConfig,
    /// BBR's parameters (`[tcp.bbr]`; used when `cc = "bbr"`).
    pub bbr: BbrConfig,
    /// Sender's maximum segment size (payload bytes).
    pub mss: u32,
    pub sack: bool,
    pub timestamps: bool,
    pub window_scaling: bool,
    pub ecn: bool,
    /// DSCP of every segment the endpoint sends: the flow's `dscp` (not a `[tcp]` key).
    pub dscp: u8,
    pub snd_buf: u64,
    pub rcv_buf: u64,
    /// Initial congestion window (a segment count or an RFC formula of SMSS).
    pub iw: InitialWindow,
    /// Initial ssthresh, bytes (ns-3 and Linux: effectively infinite).
    pub initial_ssthresh: u64,
    pub min_rto: Dur,
    pub max_rto: Dur,
    pub initial_rto: Dur,
    /// Clock granularity G of RFC 6298.
    pub clock_granularity: Dur,
    pub rto: RtoEstimator,
    pub delack: DelAck,
    pub recovery: Recovery,
    pub dupack: DupAckRule,
    pub dupthresh: u32,
    pub limited_transmit: bool,
    pub wnd_update: WndUpdateRule,
    pub syn_rto: SynRto,
    /// SYN retransmissions before giving up.
    pub syn_retries: u32,
    /// Retransmission timeouts in a row (without a new ACK) after which the connection is
    /// aborted at the next one; `None`: never (ns-3 DataRetries, 6 in its defaults).
    pub data_retries: Option<u32>,
    pub full_ack: FullAck,
    pub ecn_cut: EcnCut,
    pub nagle: bool,
    /// The client takes an RTT sample from its SYN when the SYN-ACK arrives, and the server
    /// from its SYN-ACK when the handshake's ACK arrives (Linux and ns-3 do both; Karn's rule
    /// without timestamps: none after a retransmission), so the first data segment's timer
    /// already follows the path (and a passive closer's FIN timers, ns-3's `LastAckTimeout`).
    /// Off, the first sample comes with the first data ACK and the RTO stays at its initial
    /// value until then. (Not an ns-3 switch: both profiles take the samples.)
    pub handshake_rtt: bool,
    /// Pacing of data segments (docs/tcp.md, "pacing").
    pub pacing: Pacing,
    /// NGWA's endpoint half (`[tcp.ngwa]`, docs/algorithms/network-return.md "NGWA"). Left
    /// out of the serialized model when off, so runs without NGWA keep their model hash.
    #[serde(skip_serializing_if = "super::ngwa::NgwaTcp::is_off")]
    pub ngwa: super::ngwa::NgwaTcp,
    /// ACNS's endpoint half (`[tcp.acns]`, docs/tcp.md, "ACNS endpoint"); off by default. Left
    /// out of the serialized model when off, so runs without ACNS keep their model hash.
    #[serde(skip_serializing_if = "AcnsConfig::is_off")]
    pub acns: AcnsConfig,
    /// Behaviours that reproduce ns-3 where it departs from the RFCs and Linux.
    pub compat: Ns3Compat,
    /// Name of the option bundle these values came from, recorded in summaries.
    pub profile: &'static str,
    /// The endpoint preset the options started from (`tcp_preset`; "none" if none).
    pub preset: &'static str,
}

/// ns-3's departures from the RFCs and Linux, each a switch of its own so that the
/// `validate = "ns3.44"` profile can reproduce ns-3 3.44 packet for packet (docs/validation.md)
/// while every other run follows the RFCs.
///
/// Each switch names the ns-3 code whose behaviour it reproduces and the RFC or Linux behaviour
/// it replaces. The switches keep the names (and polarity) under which summaries record them
/// in `options`, so some are on in the RFC behaviour and off for ns-3.
///
/// | profile | what it sets here |
/// |---|---|
/// | default (`validate = "sluice"` or none) | [`Ns3Compat::RFC`]: every switch at its RFC / Linux value |
/// | `validate = "ns3.44"` | [`Ns3Compat::NS3_44`]: every switch at ns-3's value except `recover_check` (ns-3.44 has that test) |
/// | `tcp_preset = "ns3.30"` | nothing: the preset sets parameter values and the RFC-level rules ns-3.30 used (`syn_rto`, `wnd_update`, `dupack`), the switches stay as the profile left them |
/// | `tcp_preset = "ns3.13"` | `recover_check = false` (ns-3.13's NewReno), the rest as the profile left them |
///
/// Not here: `syn_rto`, `wnd_update`, `dupack`, `data_retries` (which the ns-3 profile sets to
/// ns-3's rule), `full_ack`, `recovery` and its PRR variant, `rto`, `delack`, `ecn_cut` and
/// `pacing` stay fields of [`TcpConfig`]. Each chooses between behaviours that stand on their
/// own — an RFC's options, Linux's rule, an older RFC — and each is a scenario key, so a run
/// can take ns-3's rule for one of them with every other behaviour RFC-like (the `ns3.30`
/// preset does so).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Ns3Compat {
    // --- Handshake and receiver ---
    /// Send the MSS option in SYNs (RFC 9293 §3.7.1; without one a peer assumes 536 B). ns-3's
    /// `TcpSocketBase::AddOptions` puts no MSS option in a SYN and each end uses its own
    /// `SegmentSize`; off, Sluice does the same (a peer's missing option then means its
    /// configured MSS, not 536 B). ns-3: false.
    pub syn_mss_option: bool,
    /// Delay between completing the handshake and the first data segment. ns-3:
    /// 1 ns (`ConnectionSucceeded` is scheduled as an event of its own, and `TcpSocketBase::Send`
    /// schedules `SendPendingData` one time step later); RFC / Linux: 0, data may leave with
    /// the handshake ACK.
    pub first_data_delay: Dur,
    /// Answer a retransmitted SYN-ACK after the handshake with an ACK (RFC 9293 §3.10.7.4: an
    /// unacceptable segment is answered with an ACK; Linux). ns-3's
    /// `TcpSocketBase::ProcessEstablished` ignores it, so the peer completes its handshake
    /// only when data arrives. ns-3: false.
    pub ack_duplicate_synack: bool,
    /// Acknowledge the first data segment of a connection at once, then every
    /// `delack_count`-th segment: ns-3's delayed-ACK counter (`m_delAckCount`) starts full.
    /// RFC 1122 §4.2.3.2 / RFC 5681 §4.2: the first segment waits like any other (Linux's
    /// quick-ACK start-up is `delack = "linux"`). ns-3: true.
    pub ack_first_segment: bool,
    /// Out-of-order data the receiver holds takes room in its buffer, so the advertised window
    /// shrinks by it (RFC 9293 §3.8.6: the window is the free buffer space; Linux). ns-3
    /// advertises the whole buffer beyond the next expected byte whatever it holds out of
    /// order (`TcpSocketBase::AdvertisedWindowSize`, `TcpRxBuffer::MaxRxSequence`). ns-3: false.
    pub ooo_shrinks_window: bool,
    /// Which SACK blocks the receiver reports: RFC 2018 §4's maximal blocks, or ns-3's
    /// four-entry list (`TcpRxBuffer::UpdateSackList`). ns-3: [`SackReport::Ns3`].
    pub sack_report: SackReport,
    /// The receiver echoes the TSval of the segment at RCV.NXT only, ignoring TSvals below the
    /// highest one seen (ns-3 `TcpSocketBase::ProcessOptionTimestamp`); a duplicate of old data
    /// then leaves the echo alone. Off, RFC 7323 §4.3: any segment at or below Last.ACK.sent
    /// sets TS.Recent (Linux `tcp_replace_ts_recent`). ns-3: true.
    pub ts_recent_in_order: bool,

    // --- What an ACK is worth to the congestion control ---
    /// Reno slow start stops at ssthresh, the rest of the ACK going to congestion avoidance
    /// (Linux `tcp_slow_start`). ns-3's NewReno adds a whole segment while cwnd is below
    /// ssthresh, past it if need be (`TcpNewReno::SlowStart`). ns-3: false.
    pub slow_start_capped: bool,
    /// The congestion control hears of whole segments only: the bytes an ACK delivers (those
    /// of segments it acknowledges whole, not SACKed before) count in segments, the remainder
    /// carried to later ACKs, and recovery acts only on an ACK of a whole segment (ns-3
    /// `TcpSocketBase::ProcessAck`'s `segsAcked` and `m_bytesAckedNotProcessed`). Off, every
    /// byte an ACK delivers counts at once (RFC 5681 §3.1 / RFC 3465 byte counting; RFC 6937
    /// DeliveredData). ns-3: true.
    pub acked_whole_segments: bool,
    /// The ACK that ends recovery (or CWR) also grows the new window, as one in Open would
    /// (ns-3's `ProcessAck` calls `IncreaseWindow` once the state is Open again; Linux grows
    /// too); RFC 6582 §3.2 step 3's full ACK sets cwnd = ssthresh and stops there. With it, the
    /// ACK that ends the loss state after a timeout grows cwnd by the whole segments beyond the
    /// recovery point only (ns-3). ns-3: true.
    pub exit_ack_grows: bool,

    // --- Entering and running loss recovery ---
    /// RFC 6582 §3.2 step 1: duplicate ACKs start fast recovery only once the cumulative ACK
    /// has reached `recover` (one reduction per window of data, no false fast retransmit after
    /// a timeout). ns-3.13's `TcpNewReno::DupAck` has no such test (nor has RFC 2582's base
    /// algorithm, without its "careful" variant); ns-3.44 has it. Cleared by the `ns3.13`
    /// preset only.
    pub recover_check: bool,
    /// Without SACK, keep ns-3's emulated SACK marks on the scoreboard
    /// (`TcpTxBuffer::AddRenoSack`, `ResetRenoSack`, `DiscardUpTo`) instead of RFC 5681 §3.2 /
    /// RFC 6582's count of duplicate ACKs and window inflation: each duplicate ACK in disorder
    /// or recovery marks the first un-SACKed segment after the head as SACKed; a cumulative ACK
    /// whose new head carries such a mark moves the mark up and declares the head lost (in any
    /// state, so it is retransmitted); a timeout clears the marks; bytes in flight and
    /// recovery's ssthresh (from bytes in flight plus one segment, `EnterRecovery`) follow the
    /// marks, and the marks outlive the recovery episode. PRR in recovery works from the bytes
    /// in flight before a duplicate ACK's mark (ns-3 refreshes `m_bytesInFlight` at the start of
    /// `ReceivedAck`, and `DupAck` adds the mark afterwards), so cwnd is one segment above the
    /// pipe the mark leaves. ns-3: true.
    pub reno_sack_marks: bool,
    /// Keep a retransmitted segment in pipe after it is SACKed, until it is cumulatively
    /// acknowledged or the timer fires, as ns-3's `TcpTxBuffer::BytesInFlight` does (its
    /// retransmission mark is not cleared by a SACK). RFC 6675 §4's pipe drops it. ns-3: true.
    pub pipe_counts_sacked_retx: bool,
    /// RFC 6675 §4 NextSeg rules (3) and (4), or ns-3's `TcpTxBuffer::NextSeg` (rule (3) only
    /// when no unsent data is left, no rescue, rule (1.b) as ns-3 reads it). ns-3:
    /// [`NextSeg::Ns3`].
    pub nextseg: NextSeg,
    /// On a partial ACK in SACK recovery (or with `reno_sack_marks`), send one segment at once
    /// outside cwnd as ns-3's `TcpSocketBase::ProcessAck` does through `DoRetransmit`: the first
    /// lost segment, else new data, else the head. RFC 6675 has no such step (the scoreboard
    /// and pipe decide). ns-3: true.
    pub partial_ack_nextseg: bool,
    /// Compute PRR's proportional share `prr_delivered · ssthresh / RecoverFS` as ns-3.44's
    /// `TcpPrrRecovery::DoRecovery` does: the product in 32-bit unsigned arithmetic, which
    /// wraps once it exceeds 2³² (e.g. ssthresh 268 kB and 16 kB delivered), shrinking the share
    /// to almost nothing. An ns-3 defect; RFC 6937 §3 computes it exactly. ns-3: true.
    pub prr_u32_product: bool,
    /// Compute PRR's catch-up limit `max(prr_delivered − prr_out, DeliveredData)` as ns-3.44's
    /// `TcpPrrRecovery::DoRecovery` does, in 32-bit unsigned arithmetic read back as a signed
    /// int: once more has been sent than delivered in the recovery, the difference wraps, wins
    /// the max and comes back negative, so the ACK's own delivered bytes no longer let anything
    /// out. An ns-3 defect; RFC 6937 §3.1 / RFC 9937 compute it exactly. ns-3: true.
    pub prr_u32_limit: bool,
    /// PRR leaves cwnd as it is on an ACK that delivered nothing, the one that starts recovery
    /// included, as ns-3.44's `TcpPrrRecovery::DoRecovery` does (it returns when
    /// `deliveredBytes` is 0; Linux's `tcp_cwnd_reduction` likewise). It matters without SACK
    /// when nothing is left in flight at the start (every outstanding segment lost or marked):
    /// the window from before recovery then still governs. Off, the entry ACK runs PRR's step
    /// whatever it delivered, and its forced first segment makes cwnd = pipe + 1 SMSS (RFC 6937
    /// §3, which has no such return). ns-3: true.
    pub prr_empty_ack_keeps_cwnd: bool,

    // --- Retransmission timer and RTT samples ---
    /// ns-3's RTT sampling: with timestamps a sample is the echoed timestamp's age in whole
    /// clock ticks (1 ms; `TcpSocketBase::EstimateRtt`), taken from any ACK that covers a
    /// segment first sent since the last timeout (its history of sends, which a timeout
    /// clears), and every ACK of new data undoes the timeout backoff, sample or not. Off, a
    /// segment not retransmitted is timed from its send time to the nanosecond, timestamps
    /// time retransmitted ones, and only a sample undoes the backoff (Linux
    /// `tcp_ack_update_rtt`, RFC 6298 §5.7). ns-3: true.
    pub rtt_from_ts: bool,
    /// A cumulative ACK that counts as a duplicate (it SACKs new data) restarts the
    /// retransmission timer like any ACK of new data (RFC 6298 §5.3). ns-3's
    /// `TcpSocketBase::ProcessAck` skips `NewAck` for it in Disorder, so the timer runs on.
    /// ns-3: false.
    pub dup_ack_restarts_rto: bool,
    /// A repeated timeout of an already timer-retransmitted head keeps ssthresh (RFC 5681
    /// §3.1). ns-3.44's `TcpSocketBase::ReTxTimeout` means to, but calls `SetSentListLost`
    /// (which clears the retransmitted marks) before it tests `IsHeadRetransmitted`, so every
    /// timeout recomputes ssthresh from the bytes in flight. ns-3: false.
    pub rto_holds_ssthresh: bool,

    // --- What goes on the wire ---
    /// New data at the right edge of the peer's window goes out cut to the edge: a segment
    /// shorter than the MSS when less than one fits but cwnd − pipe has room for a whole one
    /// (ns-3's NextSeg rule (2), `TcpTxBuffer::NextSeg`, with pipe below the bytes outstanding
    /// after SACKs or emulated marks). Off, new data waits until a whole segment fits inside
    /// the window (Linux `tcp_snd_wnd_test`). ns-3: true.
    pub edge_clip: bool,
    /// A retransmitted segment shorter than the MSS (an application write boundary left it so)
    /// takes the start of the next un-SACKed segment with the same loss mark and goes out
    /// full-size, as ns-3 cuts every retransmission from its buffer afresh
    /// (`TcpTxBuffer::GetTransmittedSegment`, `CopyFromSequence`). Off, a retransmission
    /// reuses the segment's original boundaries. ns-3: true.
    pub retx_merge: bool,
    /// A retransmission (after a timeout, or by NextSeg rules (1), (3) and (4) in recovery)
    /// needs room in `min(cwnd, peer's window) − pipe`, as every segment ns-3 sends from
    /// `TcpSocketBase::SendPendingData` does (`AvailableWindow`), and has no other test against
    /// the peer's window. Off, it needs room in `cwnd − pipe` only and must end within the
    /// peer's window unless the timer fired (Linux `tcp_xmit_retransmit_queue` bounds
    /// retransmissions by cwnd alone). Shows only when the peer's window is below cwnd
    /// (window-limited flows, a gateway lowering windows). ns-3: true.
    pub rwnd_bounds_retx: bool,
    /// Under pacing, the fast retransmission (recovery's, or Tahoe's on the third duplicate)
    /// waits for the next pacing slot like every other segment (Linux). ns-3's `TcpSocketBase::DoRetransmit` sends it at once, skipping the
    /// pacing check. ns-3: false.
    pub pace_fast_retransmit: bool,
    /// Under pacing, pace the connection's initial window too (Linux paces every segment).
    /// ns-3's `TcpSocketBase::IsPacingEnabled` holds nothing back until data beyond the initial
    /// window has been sent (`PaceInitialWindow`, false by default): the first `IW·SMSS` bytes
    /// leave as the window allows, and the pacing clock starts with the segment that passes
    /// them. ns-3: false.
    pub pace_initial_window: bool,
    /// A retransmission timeout leaves the pacing clock running: the segments it sends go
    /// as the clock allows (the head at once in any case), and the next waits for the slot the
    /// clock had set. ns-3's `ReTxTimeout` cancels the pacing timer, so the retransmission
    /// restarts it at the current rate. ns-3: false.
    pub rto_keeps_pacing_clock: bool,
    /// The delivery-rate sampler discards a sample whose interval is below the least RTT
    /// sample so far (draft-cheng-iccrg-delivery-rate-estimation, Linux `tcp_min_rtt`); on,
    /// below the least SRTT so far, as ns-3's `GenerateSample` is handed `m_tcb->m_minRtt`,
    /// which `EstimateRtt` takes from SRTT after each measurement. ns-3: true.
    pub rate_bound_srtt: bool,
    /// When the application writes, the delivery-rate sampler asks whether the connection is
    /// application-limited (draft-cheng-iccrg-delivery-rate-estimation; Linux
    /// `tcp_rate_check_app_limited` at the start of `tcp_sendmsg`): less than a segment
    /// unsent, cwnd not full, every lost segment retransmitted. Off, as Linux: before the
    /// write, unsent counted from SND.NXT, and retransmissions SACKed since leave the count.
    /// On, as ns-3's `TcpSocketBase::Send`: after the first write lands in the buffer
    /// (`CalculateAppLimited` follows `TcpTxBuffer::Add`), unsent counted from the send pointer
    /// `m_nextTxSequence`, and retransmissions counted until cumulatively acknowledged. With
    /// writes of a segment or more, ns-3 so never finds a connection application-limited.
    /// Off, a new connection is application-limited until its first delivery (Linux's
    /// `tcp_init_sock`); on, it starts unmarked (ns-3's `TcpRateLinux`). ns-3: true.
    pub app_limited_after_write: bool,
    /// The congestion control's delivery-rate event (BBR) sees bytes in flight as the ACK
    /// left them, after a duplicate ACK's emulated SACK mark (`reno_sack_marks`). ns-3's
    /// `CongControl` reads `m_bytesInFlight` as last recounted: before `ProcessAck`, where
    /// `DupAck` adds the mark, unless a segment leaves in between (`SendDataPacket` recounts).
    /// ns-3: false.
    pub cc_sees_reno_mark: bool,
    /// A timeout with only the FIN outstanding (every data byte acknowledged) is a timeout like
    /// any other: Loss state, ssthresh and cwnd cut, the timer backed off, the FIN sent again
    /// in every closing state (Linux `tcp_retransmit_timer` → `tcp_enter_loss`; RFC 6298 §5.5,
    /// RFC 9293 §3.10.7). ns-3's `TcpSocketBase::ReTxTimeout` returns early when the send
    /// buffer is empty: in FIN_WAIT_1 or CLOSING it sends the FIN again with the same RTO and no
    /// congestion response (no CA_LOSS entry, no backoff, no retry counted); in LAST_ACK it
    /// sends nothing, so a lost final ACK leaves the passive closer there. ns-3: false.
    pub fin_timeout_rfc: bool,
    /// Congestion controls as Linux computes them (`tcp_cubic.c`, `tcp_vegas.c`): delay
    /// samples are each ACK's own RTT sample, taken on ACKs that give one; CUBIC's slow start
    /// stops at ssthresh (the rest of the ACK goes to avoidance), samples within 1 s of an
    /// epoch's start are ignored, and a timeout forgets `W_max`. ns-3.44 (`TcpCubic`,
    /// `TcpVegas`) hands them the SRTT on every ACK, duplicates included (`PktsAcked`); its
    /// CUBIC grows by whole segments acknowledged in slow start without stopping at ssthresh
    /// (unlimited ABC), ignores samples for 10 ms after an epoch's start (`CubicDelta`) and keeps
    /// `W_max` over a timeout (ns-3 ≥ 3.42). ns-3: false.
    pub cc_linux: bool,
    /// A SYN-ACK arriving after the handshake (the peer retransmitted it) leaves the window
    /// alone (RFC 9293 §3.10.7.4: it is answered or dropped, nothing more). ns-3's
    /// `TcpSocketBase::DoForwardUp` re-initialises cwnd to the initial window and ssthresh to
    /// the initial ssthresh on every segment with SYN, in any state. ns-3: false.
    pub synack_keeps_window: bool,
    /// The response to an ECN-Echo as RFC 3168 §6.1.2 and Linux give it: only in Open or
    /// Disorder, on any ACK (a duplicate too), one PRR step per ACK from the entry ACK on, and
    /// the ACK that ends CWR not answered. ns-3.44's `TcpSocketBase::ReceivedAck` answers ECE
    /// only on an ACK that moves SND.UNA; ends CWR on an ACK above the recovery point before
    /// it looks at the echo, so an echo on that ACK starts the next reduction at once; and on
    /// entry runs PRR twice (`EnterCwr` → `TcpPrrRecovery::EnterRecovery` →
    /// `DoRecovery(delivered, isDupAck = true)`, which adds one segment, then `ProcessAck`'s
    /// CWR branch → `DoRecovery(delivered, false)`). On the receiving side, a CWR stops the
    /// echo (RFC 3168 §6.1.3, Linux `tcp_ecn_accept_cwr`) even when a CE mark that arrived
    /// before it has not been echoed yet; ns-3 stays in `ECN_CE_RCVD` and echoes it. ns-3 also
    /// answers an echo in Recovery and Loss (the state becomes CWR, its recovery point moved to
    /// SND.NXT), and only counts a duplicate ACK in CWR (`DupAck` has no CWR branch: no PRR
    /// step, no fast recovery). ns-3: false.
    pub ecn_echo_rfc: bool,
    /// The congestion control is told when CWR starts and when it ends, as Linux's
    /// `tcp_set_ca_state` tells the module's `set_state` (Vegas, for one, stops its rounds in
    /// CWR and starts a fresh one on the return to Open). ns-3.44's `EnterCwr` and the CWR exit
    /// in `ReceivedAck` set `m_congState` without `CongestionStateSet`, so there the
    /// algorithm goes on as if still Open: `TcpVegas` keeps its round and its RTT samples
    /// through a CWR and may end the round on the ACK that ends it. Entering recovery or the
    /// loss state from CWR is told either way. ns-3: false.
    pub cc_sees_cwr: bool,
    /// The receiver acknowledges a FIN at once with an ACK of its own, and the receiving
    /// application's FIN follows (Linux: the kernel acknowledges the FIN, the application
    /// closes after reading end of stream). ns-3's `PacketSink` socket is shut for sending, so
    /// `DoPeerClose` closes within the FIN's processing and its FIN|ACK is the only answer to
    /// a bare FIN and to data that reaches a FIN held out of order (`ReceivedData` returns
    /// after `DoPeerClose`); a FIN on in-order data still gets the data's ACK first (the
    /// FIN's sequence number counts as a filled gap). ns-3: false.
    pub fin_acked_apart: bool,
    /// In the Open state the sender keeps sending what the scoreboard shows lost after its FIN
    /// is out (RFC 6675 §5 applies whatever the connection state; Linux). ns-3.44's
    /// `SendPendingData` stops at once in `CA_OPEN` while `FIN_WAIT_1`, so there a segment
    /// still marked lost when recovery ends (without SACK, the head whose emulated mark
    /// `DiscardUpTo` moves on) goes only when the retransmission timer fires. ns-3: false.
    pub open_sends_after_fin: bool,
    /// In TIME-WAIT a segment is processed as in any synchronized state, so a retransmitted
    /// FIN is acknowledged again (RFC 9293 §3.10.7.4; Linux `tcp_timewait_state_process`
    /// answers it with an ACK). ns-3's `DoForwardUp` does nothing in `TIME_WAIT`, so a
    /// passive closer whose final ACK was lost resends its FIN unanswered until it gives up.
    /// ns-3: false.
    pub time_wait_answers: bool,
    /// A timer sorts among the events of its instant by when it was set, as an ns-3 timer
    /// does (`Simulator::Schedule` when `m_delAckEvent`, `m_retxEvent`, … are set; events of
    /// one instant run in the order they were scheduled). Off, the engine's lazy wake-up sorts
    /// by when it was last re-armed (a deadline that moved later is re-armed only when the
    /// old wake-up comes due). Decides ties only: a receiver's delayed-ACK timer and another
    /// flow's packet at the same nanosecond. Not an RFC matter; kept off by default so that
    /// default runs keep their event order. ns-3: true.
    pub timer_ties_as_set: bool,
}

impl Ns3Compat {
    /// The RFC / Linux behaviour of every switch (the default profile).
    pub const RFC: Ns3Compat = Ns3Compat {
        syn_mss_option: true,
        first_data_delay: Dur::ZERO,
        ack_duplicate_synack: true,
        ack_first_segment: false,
        ooo_shrinks_window: true,
        sack_report: SackReport::Rfc2018,
        ts_recent_in_order: false,
        slow_start_capped: true,
        acked_whole_segments: false,
        exit_ack_grows: false,
        recover_check: true,
        reno_sack_marks: false,
        pipe_counts_sacked_retx: false,
        nextseg: NextSeg::Rfc6675,
        partial_ack_nextseg: false,
        prr_u32_product: false,
        prr_u32_limit: false,
        prr_empty_ack_keeps_cwnd: false,
        rtt_from_ts: false,
        dup_ack_restarts_rto: true,
        rto_holds_ssthresh: true,
        edge_clip: false,
        retx_merge: false,
        rwnd_bounds_retx: false,
        pace_fast_retransmit: true,
        pace_initial_window: true,
        rto_keeps_pacing_clock: true,
        rate_bound_srtt: false,
        app_limited_after_write: false,
        cc_sees_reno_mark: true,
        fin_timeout_rfc: true,
        cc_linux: true,
        synack_keeps_window: true,
        ecn_echo_rfc: true,
        cc_sees_cwr: true,
        fin_acked_apart: true,
        open_sends_after_fin: true,
        time_wait_answers: true,
        timer_ties_as_set: false,
    };

    /// ns-3.44's behaviour of every switch (`validate = "ns3.44"`).
    pub const NS3_44: Ns3Compat = Ns3Compat {
        syn_mss_option: false,
        first_data_delay: Dur(1),
        ack_duplicate_synack: false,
        ack_first_segment: true,
        ooo_shrinks_window: false,
        sack_report: SackReport::Ns3,
        ts_recent_in_order: true,
        slow_start_capped: false,
        acked_whole_segments: true,
        exit_ack_grows: true,
        recover_check: true,
        reno_sack_marks: true,
        pipe_counts_sacked_retx: true,
        nextseg: NextSeg::Ns3,
        partial_ack_nextseg: true,
        prr_u32_product: true,
        prr_u32_limit: true,
        prr_empty_ack_keeps_cwnd: true,
        rtt_from_ts: true,
        dup_ack_restarts_rto: false,
        rto_holds_ssthresh: false,
        edge_clip: true,
        retx_merge: true,
        rwnd_bounds_retx: true,
        pace_fast_retransmit: false,
        pace_initial_window: false,
        rto_keeps_pacing_clock: false,
        rate_bound_srtt: true,
        app_limited_after_write: true,
        cc_sees_reno_mark: false,
        fin_timeout_rfc: false,
        cc_linux: false,
        synack_keeps_window: false,
        ecn_echo_rfc: false,
        cc_sees_cwr: false,
        fin_acked_apart: false,
        open_sends_after_fin: false,
        time_wait_answers: false,
        timer_ties_as_set: true,
    };
}

impl Default for Ns3Compat {
    fn default() -> Self {
        Ns3Compat::RFC
    }
}

impl Default for TcpConfig {
    /// Sluice defaults (docs/tcp.md): RFC behaviour, Linux's or ns-3's choice where the RFC
    /// leaves one.
    fn default() -> Self {
        TcpConfig {
            cc: CcKind::NewReno,
            cubic: CubicConfig::default(),
            vegas: VegasConfig::default(),
            compound: CompoundConfig::default(),
            bbr: BbrConfig::default(),
            mss: 1448,
            sack: true,
            timestamps: true,
            window_scaling: true,
            ecn: false,
            dscp: 0,
            snd_buf: 131_072,
            rcv_buf: 131_072,
            iw: InitialWindow::Segments(10),
            initial_ssthresh: u32::MAX as u64,
            min_rto: Dur::from_secs(1),
            max_rto: Dur::from_secs(60),
            initial_rto: Dur::from_secs(1),
            clock_granularity: Dur::from_millis(1),
            rto: RtoEstimator::Rfc6298,
            delack: DelAck::On { count: 2, timeout: Dur::from_millis(200) },
            recovery: Recovery::Prr(PrrVariant::Rfc9937),
            dupack: DupAckRule::Default,
            dupthresh: 3,
            limited_transmit: true,
            wnd_update: WndUpdateRule::Rfc9293,
            syn_rto: SynRto::Rfc6298,
            syn_retries: 5,
            data_retries: None,
            full_ack: FullAck::Ssthresh,
            ecn_cut: EcnCut::Prr,
            nagle: false,
            handshake_rtt: true,
            pacing: Pacing::Cc,
            ngwa: super::ngwa::NgwaTcp::default(),
            acns: AcnsConfig::default(),
            compat: Ns3Compat::RFC,
            profile: "sluice",
            preset: "none",
        }
    }
}

impl TcpConfig {
    /// The `validate = "ns3.44"` profile: Sluice defaults with ns-3's choices where they differ:
    /// ns-3's SYN timer, window-update and duplicate-ACK rules, DataRetries 6, and every
    /// [`Ns3Compat`] switch at ns-3's value, and the algorithms' ns-3 options (CUBIC's HyStart
    /// and Reno-friendly region, Vegas's diff, BBR's `TcpBbr` values). (Recovery, PRR variant,
    /// ECN cut and full ACK are the defaults, which are ns-3's too.)
    pub fn ns3_44() -> Self {
        TcpConfig {
            syn_rto: SynRto::Ns3,
            wnd_update: WndUpdateRule::Ns3,
            dupack: DupAckRule::Ns3,
            recovery: Recovery::Prr(PrrVariant::Rfc9937),
            ecn_cut: EcnCut::Prr,
            full_ack: FullAck::Ssthresh,
            data_retries: Some(6),
            compat: Ns3Compat::NS3_44,
            cubic: CubicConfig { tcp_friendliness: true, hystart: Hystart::Ns3, ..CubicConfig::default() },
            vegas: VegasConfig { diff: VegasDiff::Ns3, ..VegasConfig::default() },
            bbr: BbrConfig::ns3(),
            profile: "ns3.44",
            ..TcpConfig::default()
        }
    }

    /// `tcp_preset = "ns3.30"` (docs/tcp.md, "Presets"): the ns-3 endpoint defaults of
    /// 2019–2020 (ns-3.29 to 3.31), for reproducing papers of that era. Sets parameter values
    /// and ns-3's SYN timer, window-update and duplicate-ACK rules only; the [`Ns3Compat`]
    /// switches of a `validate` profile given with it stay.
    pub fn apply_ns3_30(&mut self) {
        self.cc = CcKind::NewReno;
        self.recovery = Recovery::Classic;
        self.mss = 536;
        self.iw = InitialWindow::Segments(1);
        self.initial_ssthresh = u32::MAX as u64;
        self.snd_buf = 131_072;
        self.rcv_buf = 131_072;
        self.delack = DelAck::On { count: 2, timeout: Dur::from_millis(200) };
        self.rto = RtoEstimator::Rfc6298;
        self.min_rto = Dur::from_secs(1);
        self.clock_granularity = Dur::from_millis(1);
        self.dupthresh = 3;
        self.limited_transmit = true;
        self.sack = true;
        self.timestamps = true;
        self.window_scaling = true;
        self.ecn = false;
        self.nagle = false;
        // ConnTimeout 3 s doubled per retry, ConnCount 6 SYNs; DataRetries 6.
        self.syn_rto = SynRto::Ns3;
        self.syn_retries = 5;
        self.data_retries = Some(6);
        self.wnd_update = WndUpdateRule::Ns3;
        self.dupack = DupAckRule::Ns3;
        self.preset = "ns3.30";
    }

    /// `tcp_preset = "ns3.13"` (docs/tcp.md, "Presets"): the ns-3 endpoint of 2012–13
    /// (ns-3.9–3.16), for the papers of that era: NewReno as ns-3.13 wrote it (fast recovery
    /// on the third duplicate without the `recover` test, full ACK deflating to FlightSize, no
    /// PRR, no limited transmit), no window scaling, timestamps or SACK, ns-3.13's RTO
    /// estimator.
    pub fn apply_ns3_13(&mut self) {
        self.cc = CcKind::NewReno;
        self.recovery = Recovery::Classic;
        self.full_ack = FullAck::FlightSize;
        self.compat.recover_check = false;
        self.limited_transmit = false;
        self.mss = 1000;
        self.iw = InitialWindow::Segments(1);
        self.initial_ssthresh = 65_535;
        self.snd_buf = 131_072;
        self.rcv_buf = 131_072;
        self.sack = false;
        self.timestamps = false;
        self.window_scaling = false;
        self.ecn = false;
        self.nagle = false;
        self.delack = DelAck::On { count: 2, timeout: Dur::from_millis(200) };
        self.rto = RtoEstimator::Ns3Legacy;
        (self.min_rto, self.max_rto) = RtoEstimator::Ns3Legacy.bounds();
        self.dupthresh = 3;
        self.syn_rto = SynRto::Ns3;
        self.syn_retries = 5;
        self.wnd_update = WndUpdateRule::Always;
        self.dupack = DupAckRule::Ns3;
        self.preset = "ns3.13";
    }

    /// Option values as (name, value) pairs, for the summary. The [`Ns3Compat`] switches are
    /// recorded flat, under their own names, among the other options.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let x = &self.compat;
        let mut v = vec![
            ("profile", self.profile.to_string()),
            ("tcp_preset", self.preset.to_string()),
            ("cc", self.cc.as_str().to_string()),
            ("mss", self.mss.to_string()),
            ("sack", self.sack.to_string()),
            ("timestamps", self.timestamps.to_string()),
            ("window_scaling", self.window_scaling.to_string()),
            ("ecn", self.ecn.to_string()),
            ("recovery", format!("{:?}", self.recovery).to_lowercase()),
            ("dupack", format!("{:?}", self.dupack).to_lowercase()),
            ("wnd_update", format!("{:?}", self.wnd_update).to_lowercase()),
            ("syn_rto", format!("{:?}", self.syn_rto).to_lowercase()),
            ("delack", format!("{:?}", self.delack).to_lowercase()),
            ("rto", self.rto.as_str().to_string()),
            ("min_rto", self.min_rto.to_string()),
            ("max_rto", self.max_rto.to_string()),
            ("syn_mss_option", x.syn_mss_option.to_string()),
            ("ack_first_segment", x.ack_first_segment.to_string()),
            ("prr_u32_product", x.prr_u32_product.to_string()),
            ("prr_u32_limit", x.prr_u32_limit.to_string()),
            ("prr_empty_ack_keeps_cwnd", x.prr_empty_ack_keeps_cwnd.to_string()),
            ("partial_ack_nextseg", x.partial_ack_nextseg.to_string()),
            ("pipe_counts_sacked_retx", x.pipe_counts_sacked_retx.to_string()),
            ("exit_ack_grows", x.exit_ack_grows.to_string()),
            ("reno_sack_marks", x.reno_sack_marks.to_string()),
            ("ooo_shrinks_window", x.ooo_shrinks_window.to_string()),
            ("slow_start_capped", x.slow_start_capped.to_string()),
            ("retx_merge", x.retx_merge.to_string()),
            ("rwnd_bounds_retx", x.rwnd_bounds_retx.to_string()),
            ("edge_clip", x.edge_clip.to_string()),
            ("handshake_rtt", self.handshake_rtt.to_string()),
            ("rtt_from_ts", x.rtt_from_ts.to_string()),
            ("ts_recent_in_order", x.ts_recent_in_order.to_string()),
            ("acked_whole_segments", x.acked_whole_segments.to_string()),
            ("sack_report", format!("{:?}", x.sack_report).to_lowercase()),
            ("nextseg", format!("{:?}", x.nextseg).to_lowercase()),
            ("pacing", self.pacing.as_str().to_string()),
            ("pace_fast_retransmit", x.pace_fast_retransmit.to_string()),
            ("pace_initial_window", x.pace_initial_window.to_string()),
            ("rto_keeps_pacing_clock", x.rto_keeps_pacing_clock.to_string()),
            ("rate_bound_srtt", x.rate_bound_srtt.to_string()),
            ("app_limited_after_write", x.app_limited_after_write.to_string()),
            ("cc_sees_reno_mark", x.cc_sees_reno_mark.to_string()),
            ("fin_timeout_rfc", x.fin_timeout_rfc.to_string()),
            ("cc_linux", x.cc_linux.to_string()),
            ("synack_keeps_window", x.synack_keeps_window.to_string()),
            ("ecn_echo_rfc", x.ecn_echo_rfc.to_string()),
            ("cc_sees_cwr", x.cc_sees_cwr.to_string()),
            ("fin_acked_apart", x.fin_acked_apart.to_string()),
            ("open_sends_after_fin", x.open_sends_after_fin.to_string()),
            ("time_wait_answers", x.time_wait_answers.to_string()),
            ("timer_ties_as_set", x.timer_ties_as_set.to_string()),
            ("dup_ack_restarts_rto", x.dup_ack_restarts_rto.to_string()),
            ("rto_holds_ssthresh", x.rto_holds_ssthresh.to_string()),
            ("ack_duplicate_synack", x.ack_duplicate_synack.to_string()),
            ("iw", self.iw.as_str().to_string()),
            ("recover_check", x.recover_check.to_string()),
            ("syn_retries", self.syn_retries.to_string()),
            ("data_retries", self.data_retries.map_or("none".into(), |n| n.to_string())),
        ];
        if let InitialWindow::Segments(n) = self.iw {
            v.push(("initial_cwnd", n.to_string()));
        }
        v.extend(self.cc_options());
        v.extend(self.ngwa.describe());
        v.extend(self.acns.describe());
        v
    }

    /// The resolved parameters of the congestion control this endpoint runs, as (name, value)
    /// pairs under their scenario keys (`cubic.beta`, …): empty for algorithms without any.
    pub fn cc_options(&self) -> Vec<(&'static str, String)> {
        match self.cc {
            CcKind::Cubic => self.cubic.describe(),
            CcKind::Vegas => self.vegas.describe(),
            CcKind::Compound => self.compound.describe(),
            CcKind::Bbr => self.bbr.describe(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::InitialWindow as Iw;
    use super::*;

    // tests the profile table of `Ns3Compat` and the summary's `options`: the ns3.44 profile
    // differs from the default in exactly ns-3's SYN timer, window-update and duplicate-ACK
    // rules, DataRetries and every recorded compatibility switch but `recover_check`, each under
    // the key summaries have always used.
    #[test]
    fn ns3_profile_differs_from_the_default_in_the_documented_options() {
        let (rfc, ns3) = (TcpConfig::default().describe(), TcpConfig::ns3_44().describe());
        assert_eq!(rfc.iter().map(|(k, _)| k).collect::<Vec<_>>(), ns3.iter().map(|(k, _)| k).collect::<Vec<_>>());
        let differ: Vec<&str> = rfc.iter().zip(&ns3).filter(|(a, b)| a.1 != b.1).map(|(a, _)| a.0).collect();
        let want = [
            "profile", "dupack", "wnd_update", "syn_rto", "syn_mss_option", "ack_first_segment",
            "prr_u32_product", "prr_u32_limit", "prr_empty_ack_keeps_cwnd", "partial_ack_nextseg", "pipe_counts_sacked_retx",
            "exit_ack_grows", "reno_sack_marks", "ooo_shrinks_window", "slow_start_capped",
            "retx_merge", "rwnd_bounds_retx", "edge_clip", "rtt_from_ts", "ts_recent_in_order", "acked_whole_segments",
            "sack_report", "nextseg", "pace_fast_retransmit", "pace_initial_window", "rto_keeps_pacing_clock", "rate_bound_srtt", "app_limited_after_write", "cc_sees_reno_mark", "fin_timeout_rfc", "cc_linux", "synack_keeps_window", "ecn_echo_rfc", "cc_sees_cwr", "fin_acked_apart", "open_sends_after_fin", "time_wait_answers", "timer_ties_as_set", "dup_ack_restarts_rto",
            "rto_holds_ssthresh", "ack_duplicate_synack", "data_retries",
        ];
        assert_eq!(differ, want);
        // The one switch not in the summary: ns-3's first data leaves 1 ns after the handshake.
        assert_eq!((TcpConfig::default().compat.first_data_delay.0, TcpConfig::ns3_44().compat.first_data_delay.0), (0, 1));
    }

    // tests RFC 6928 §2, RFC 3390 §1 and RFC 5681 §3.1: the initial window formulas, including
    // docs/tcp.md's SMSS 2000 example (RFC 5681 6000 B against RFC 3390 4380 B).
    #[test]
    fn initial_window_formulas() {
        assert_eq!(Iw::Segments(10).bytes(1448), 14_480);
        assert_eq!(Iw::Rfc5681.bytes(2000), 6_000);
        assert_eq!(Iw::Rfc3390.bytes(2000), 4_380);
        // RFC 3390: min(4·SMSS, max(2·SMSS, 4380)).
        assert_eq!(Iw::Rfc3390.bytes(536), 2_144);
        assert_eq!(Iw::Rfc3390.bytes(1448), 4_380);
        assert_eq!(Iw::Rfc3390.bytes(4000), 8_000);
        // RFC 5681: 4 segments up to 1095 B, 3 up to 2190 B, then 2; the borders.
        assert_eq!(Iw::Rfc5681.bytes(1095), 4 * 1095);
        assert_eq!(Iw::Rfc5681.bytes(1096), 3 * 1096);
        assert_eq!(Iw::Rfc5681.bytes(2190), 3 * 2190);
        assert_eq!(Iw::Rfc5681.bytes(2191), 2 * 2191);
        // The two agree up to SMSS 1460 and differ for 1461–2190.
        assert_eq!(Iw::Rfc5681.bytes(1460), Iw::Rfc3390.bytes(1460));
        assert!(Iw::Rfc5681.bytes(1461) > Iw::Rfc3390.bytes(1461));
        assert_eq!(Iw::Rfc5681.bytes(2191), Iw::Rfc3390.bytes(2191));
        // RFC 6928: min(10·SMSS, max(2·SMSS, 14600)): 10 segments up to SMSS 1460 only.
        assert_eq!(Iw::Rfc6928.bytes(1448), Iw::Segments(10).bytes(1448));
        assert_eq!(Iw::Rfc6928.bytes(1460), 14_600);
        assert_eq!(Iw::Rfc6928.bytes(2000), 14_600);
        assert_eq!(Iw::Rfc6928.bytes(9000), 18_000);
    }

    /// The value the summary records under `key`.
    fn recorded(c: &TcpConfig, key: &str) -> String {
        c.describe().into_iter().find(|(k, _)| *k == key).unwrap_or_else(|| panic!("{key} not recorded")).1
    }

    // tests the names the summary records: each choice under the name a scenario gives it (the
    // serialized form is the scenario's spelling), the initial window's kind and, for a number
    // of segments, the number; the defaults `new_reno`, `cc`, `rfc6298`, `segments`, 10.
    #[test]
    fn recorded_names_are_the_scenario_names() {
        use CcKind::*;
        for k in [NewReno, Reno, Tahoe, LinuxReno, Cubic, Vegas, Compound, Bbr, CcKind::None] {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
        for p in [Pacing::Off, Pacing::Cc, Pacing::Linux] {
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
        }
        for r in [RtoEstimator::Rfc6298, RtoEstimator::Linux, RtoEstimator::Ns3Legacy, RtoEstimator::Rfc793] {
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
        let iw: Vec<&str> = [Iw::Segments(4), Iw::Rfc6928, Iw::Rfc3390, Iw::Rfc5681].iter().map(|w| w.as_str()).collect();
        assert_eq!(iw, ["segments", "rfc6928", "rfc3390", "rfc5681"]);
        let d = TcpConfig::default();
        let got: Vec<String> = ["cc", "pacing", "rto", "iw", "initial_cwnd"].iter().map(|k| recorded(&d, k)).collect();
        assert_eq!(got, ["new_reno", "cc", "rfc6298", "segments", "10"]);
        let c = TcpConfig { cc: Cubic, pacing: Pacing::Linux, rto: RtoEstimator::Linux, iw: Iw::Rfc3390, ..TcpConfig::default() };
        let got: Vec<String> = ["cc", "pacing", "rto", "iw"].iter().map(|k| recorded(&c, k)).collect();
        assert_eq!(got, ["cubic", "linux", "linux", "rfc3390"]);
        assert!(c.describe().iter().all(|(k, _)| *k != "initial_cwnd"), "no segment count for a formula");
    }

    // tests each estimator's own RTO bounds (docs/tcp.md, "retransmission timer"): RFC 6298 and
    // RFC 793 1 s and 60 s, Linux 200 ms and 120 s, ns-3.13's 200 ms (and the unused 60 s).
    #[test]
    fn rto_bounds_per_estimator() {
        let (s, ms) = (Dur::from_secs, Dur::from_millis);
        assert_eq!(RtoEstimator::Rfc6298.bounds(), (s(1), s(60)));
        assert_eq!(RtoEstimator::Rfc793.bounds(), (s(1), s(60)));
        assert_eq!(RtoEstimator::Linux.bounds(), (ms(200), s(120)));
        assert_eq!(RtoEstimator::Ns3Legacy.bounds(), (ms(200), s(60)));
    }

    // tests that the record carries the running algorithm's own options under its kind's
    // prefix: CUBIC's, Vegas's, Compound's, BBR's; none for the others.
    #[test]
    fn the_record_carries_the_running_algorithms_options_only() {
        let d = TcpConfig::default();
        let own = [
            (CcKind::Cubic, "cubic.", d.cubic.describe()),
            (CcKind::Vegas, "vegas.", d.vegas.describe()),
            (CcKind::Compound, "compound.", d.compound.describe()),
            (CcKind::Bbr, "bbr.", d.bbr.describe()),
        ];
        for (cc, prefix, want) in own {
            let c = TcpConfig { cc, ..TcpConfig::default() };
            assert!(!want.is_empty() && want.iter().all(|(k, _)| k.starts_with(prefix)), "{prefix}");
            assert_eq!(c.cc_options(), want);
            assert!(c.describe().windows(want.len()).any(|w| w == want), "{prefix}");
        }
        for cc in [CcKind::NewReno, CcKind::Reno, CcKind::Tahoe, CcKind::LinuxReno, CcKind::None] {
            assert_eq!(TcpConfig { cc, ..TcpConfig::default() }.cc_options(), Vec::new(), "{cc:?}");
        }
    }

    // tests the profile's algorithm options (docs/tcp.md, "Profiles"): ns-3's HyStart (the
    // default is Linux's) with the Reno-friendly region, ns-3's Vegas diff, and ns-3.44 `TcpBbr`'s
    // values (the default is the draft's).
    #[test]
    fn ns3_profile_takes_the_algorithms_ns3_options() {
        let (d, n) = (TcpConfig::default(), TcpConfig::ns3_44());
        assert_eq!((d.cubic.hystart, n.cubic.hystart), (Hystart::Linux, Hystart::Ns3));
        assert!(n.cubic.tcp_friendliness);
        assert_eq!(n.vegas.diff, VegasDiff::Ns3);
        assert_ne!(d.bbr, BbrConfig::ns3());
        assert_eq!(n.bbr, BbrConfig::ns3());
    }

    // tests the presets (docs/tcp.md, "Profiles, presets and the ns-3 compatibility switches"),
    // each applied over a configuration that differs in what it sets. ns3.30: NewReno, classic
    // recovery, MSS 536, IW 1 segment, ns-3's SYN timer, window-update and duplicate-ACK rules,
    // DataRetries 6, and no switch (over the ns3.44 profile, its switches stay). ns3.13: no window
    // scaling, timestamps or SACK, MSS 1000, IW 1 and ssthresh 65,535 B, the ns-3.13 estimator
    // with its bounds (200 ms; 60 s unused), every segment's window, full ACK to FlightSize, no
    // limited transmit, `recover_check = false`.
    #[test]
    fn presets_set_their_era_values() {
        let start = TcpConfig { cc: CcKind::Cubic, ecn: true, nagle: true, mss: 1448, iw: Iw::Rfc6928, ..TcpConfig::ns3_44() };
        let mut c = start.clone();
        c.apply_ns3_30();
        assert_eq!((c.cc, c.recovery, c.mss, c.iw, c.ecn, c.nagle), (CcKind::NewReno, Recovery::Classic, 536, Iw::Segments(1), false, false));
        assert_eq!((c.syn_rto, c.wnd_update, c.dupack, c.data_retries, c.preset), (SynRto::Ns3, WndUpdateRule::Ns3, DupAckRule::Ns3, Some(6), "ns3.30"));
        assert_eq!((c.compat, c.profile), (Ns3Compat::NS3_44, "ns3.44"), "the profile's switches stay");
        let mut c = TcpConfig { ecn: true, iw: Iw::Rfc6928, ..TcpConfig::default() };
        c.apply_ns3_13();
        assert_eq!((c.sack, c.timestamps, c.window_scaling, c.ecn, c.mss, c.iw, c.initial_ssthresh), (false, false, false, false, 1000, Iw::Segments(1), 65_535));
        assert_eq!((c.rto, c.min_rto, c.max_rto), (RtoEstimator::Ns3Legacy, Dur::from_millis(200), Dur::from_secs(60)));
        assert_eq!((c.wnd_update, c.full_ack, c.limited_transmit, c.compat.recover_check, c.recovery), (WndUpdateRule::Always, FullAck::FlightSize, false, false, Recovery::Classic));
        assert_eq!(c.compat, Ns3Compat { recover_check: false, ..Ns3Compat::RFC }, "the one switch");
        assert_eq!((c.syn_rto, c.dupack, c.preset), (SynRto::Ns3, DupAckRule::Ns3, "ns3.13"));
    }
}
