//! Scripted exchanges for the loss responses of Reno and Tahoe against NewReno (RFC 5681 §3.2,
//! RFC 6582), each congestion control's reduction after an ECN-Echo (RFC 3168 §6.1.2), and a
//! seeded random walk over every algorithm's window.

use super::cc::{AnyCc, CaState, CcMetrics, CongestionControl, CwndState, LossCause};
use super::tests::{seg_seq, Pair, MSS};
use super::*;
use crate::packet::SimPacket;
use sluice_core::{Dur, Time};

fn seg_no(s: &SimPacket) -> u64 {
    (seg_seq(s) as u64 - 1001) / MSS
}

/// No SACK, classic recovery, an ACK per segment.
fn cfg(cc: CcKind) -> TcpConfig {
    TcpConfig { cc, sack: false, recovery: Recovery::Classic, delack: DelAck::Off, ..TcpConfig::default() }
}

// tests Tahoe (RFC 5681 §3.2's Tahoe reading): the third duplicate ACK retransmits the first
// segment and sets ssthresh = FlightSize/2 = 6 SMSS (12 outstanding after limited transmit)
// and cwnd = 1 SMSS; no fast recovery (the loss state), and later duplicates send nothing.
// NewReno on the same ACKs: cwnd = ssthresh + 3 SMSS = 9 SMSS in recovery.
#[test]
fn tahoe_third_duplicate_sets_cwnd_to_one_segment() {
    let mut p = Pair::new(cfg(CcKind::Tahoe), Some(20 * MSS));
    let burst = p.client_sends();
    assert_eq!(burst.len(), 10);
    let dups = p.deliver_to_server(&burst[1..4]);
    let out = p.deliver_to_client(&dups);
    // Limited transmit sends 10 and 11 on the first two duplicates (RFC 3042), then the third
    // finds 12 segments outstanding: ssthresh 6 SMSS.
    assert_eq!(out.iter().map(seg_no).collect::<Vec<_>>(), [10, 11, 0], "the fast retransmission, nothing more");
    assert_eq!((p.c.w.cwnd, p.c.w.ssthresh, p.c.ca), (MSS, 6 * MSS, CaState::Loss));
    assert_eq!((p.c.counters.fast_retransmits, p.c.counters.loss_episodes), (1, 0));
    let mut rest = burst[4..].to_vec();
    rest.extend_from_slice(&out[..2]);
    let more = p.deliver_to_server(&rest);
    assert!(p.deliver_to_client(&more).is_empty(), "no inflation: duplicates send nothing");
    // The retransmission's ACK covers 0-11: slow start from 1 SMSS (+1 for the ACK) and Open.
    let ack = p.deliver_to_server(&out[2..]);
    let out = p.deliver_to_client(&ack);
    assert_eq!((p.c.ca, p.c.w.cwnd), (CaState::Open, 2 * MSS));
    assert_eq!(out.iter().map(seg_no).collect::<Vec<_>>(), [12, 13]);

    let mut p = Pair::new(cfg(CcKind::NewReno), Some(20 * MSS));
    let burst = p.client_sends();
    let dups = p.deliver_to_server(&burst[1..4]);
    p.deliver_to_client(&dups);
    assert_eq!((p.c.w.cwnd, p.c.w.ssthresh, p.c.ca), (9 * MSS, 6 * MSS, CaState::Recovery));
}

/// Ten segments in flight, the first transmissions of segments 0 and 4 lost; every other segment
/// and ACK delivered in order, timers fired when nothing else is left, until everything (30
/// segments) is acknowledged. Returns the client.
fn two_losses_in_one_window(cc: CcKind) -> Endpoint {
    let mut p = Pair::new(cfg(cc), Some(30 * MSS));
    let mut dropped = [false; 2];
    let mut to_server = p.client_sends();
    for _ in 0..1000 {
        if p.c.snd_una == 1 + 30 * MSS {
            return p.c;
        }
        if to_server.is_empty() {
            // Nothing in flight: the retransmission timer.
            p.now = p.c.poll_at().expect("a timer while data is outstanding");
            let mut out = Vec::new();
            p.c.on_wakeup(p.now, &mut out);
            to_server = out;
            continue;
        }
        p.now += Dur::from_millis(1);
        let mut pass = Vec::new();
        for s in to_server.drain(..) {
            let k = match seg_no(&s) {
                0 => 0,
                4 => 1,
                _ => 2,
            };
            if k < 2 && !dropped[k] {
                dropped[k] = true;
                continue;
            }
            pass.push(s);
        }
        let acks = p.deliver_to_server(&pass);
        p.now += Dur::from_millis(1);
        to_server = p.deliver_to_client(&acks);
    }
    panic!("transfer did not finish");
}

// tests RFC 6582 against RFC 5681 §3.2 with two losses in one window (no SACK). NewReno
// reduces once: the partial ACK for segment 4 retransmits it at once and recovery goes on to
// the full ACK; one fast retransmission, one recovery, no timeout. Reno leaves recovery at that
// partial ACK (cwnd = ssthresh) and repairs segment 4 with a second fast retransmission on the
// duplicates the segments sent in recovery bring (or, with too few, by a timeout; here there
// are enough): two recoveries, two reductions.
#[test]
fn two_losses_in_a_window_reno_reduces_twice_newreno_once() {
    let nr = two_losses_in_one_window(CcKind::NewReno);
    let c = &nr.counters;
    assert_eq!((c.recovery_episodes, c.fast_retransmits, c.rto_count), (1, 1, 0));
    let reno = two_losses_in_one_window(CcKind::Reno);
    let c = &reno.counters;
    assert_eq!((c.recovery_episodes, c.fast_retransmits, c.rto_count), (2, 2, 0));
}

// tests RFC 3168 §6.1.2 with each algorithm's reduction (`ssthresh_after_loss(Ecn)`): NewReno,
// Reno and Tahoe max(FlightSize/2, 2·SMSS) = 8 SMSS of a flight of 16 (cwnd 20); CUBIC
// ⌊0.7·cwnd⌋ = 14 SMSS (from cwnd, not the flight); Vegas ns-3 max(min(ssthresh, cwnd −
// SMSS), 2·SMSS) = 19 SMSS (ssthresh ∞), Vegas Linux cwnd/2 = 10 SMSS; none keeps ssthresh;
// Compound, a loss like any other: win·(1 − β) = 10 SMSS of a window of 20 (from the window,
// not the flight), in both variants (all of it the Reno part: no dwnd yet).
#[test]
fn ecn_echo_ssthresh_per_algorithm() {
    let cases: [(CcKind, Option<VegasDiff>, u64); 8] = [
        (CcKind::NewReno, None, 8 * MSS),
        (CcKind::Reno, None, 8 * MSS),
        (CcKind::Tahoe, None, 8 * MSS),
        // From cwnd, not the flight: ⌊20/2⌋ segments.
        (CcKind::LinuxReno, None, 10 * MSS),
        (CcKind::Cubic, None, 14 * MSS),
        (CcKind::Vegas, Some(VegasDiff::Ns3), 19 * MSS),
        (CcKind::Vegas, Some(VegasDiff::Linux), 10 * MSS),
        (CcKind::None, None, u64::MAX),
    ];
    for (cc, diff, want) in cases {
        let mut cfg = TcpConfig { cc, ..TcpConfig::default() };
        if let Some(d) = diff {
            cfg.vegas.diff = d;
        }
        let mut a = AnyCc::new(&cfg);
        let w = CwndState { cwnd: 20 * MSS, ssthresh: u64::MAX, smss: MSS as u32 };
        assert_eq!(a.ssthresh_after_loss(&w, 16 * MSS, LossCause::Ecn, Time::ZERO), want, "{cc:?} {diff:?}");
    }
    for variant in [CompoundVariant::Draft, CompoundVariant::Linux] {
        let mut a = AnyCc::new(&TcpConfig { cc: CcKind::Compound, compound: CompoundConfig { variant, ..CompoundConfig::default() }, ..TcpConfig::default() });
        let w = CwndState { cwnd: 20 * MSS, ssthresh: u64::MAX, smss: MSS as u32 };
        assert_eq!(a.ssthresh_after_loss(&w, 16 * MSS, LossCause::Ecn, Time::ZERO), 10 * MSS, "{variant:?}");
    }
}

// tests the ECN-Echo through the endpoint for CUBIC (`ecn_cut = "immediate"`): the first
// echo of a 10-segment initial window sets ssthresh = ⌊0.7·cwnd⌋ and cwnd = max(ssthresh,
// 1 SMSS). The ACK of the marked segment first grows cwnd in slow start (10 → 11 SMSS; the
// echo is acted on after the ACK), then ssthresh = cwnd = ⌊0.7·11⌋ = 7 SMSS.
#[test]
fn cubic_ecn_echo_reduces_by_beta() {
    let cfg = TcpConfig { cc: CcKind::Cubic, ecn: true, delack: DelAck::Off, ecn_cut: EcnCut::Immediate, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, None);
    let mut burst = p.client_sends();
    burst[0].tos.set_ecn(sluice_core::packet::Ecn::Ce);
    let acks = p.deliver_to_server(&burst[0..1]);
    p.deliver_to_client(&acks);
    assert_eq!((p.c.w.ssthresh, p.c.w.cwnd), (7 * MSS, 7 * MSS));
}

/// A tiny seeded generator (xorshift64*), for the random walk below.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One seeded random walk through an algorithm's seam as the endpoint drives it: ACKs of any
/// size with RTT samples from 1 µs to 2 s (duplicates too) in any state, losses, ECN-Echoes
/// and timeouts. Returns `(cwnd, ssthresh, metrics)` after every step; with `check`, asserts
/// the floors of the property test below at each step.
fn walk<C: CongestionControl>(cc: &mut C, cfg: &TcpConfig, seed: u64, check: bool) -> Vec<(u64, u64, CcMetrics)> {
    let smss = MSS;
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1));
    let mut w = CwndState { cwnd: AnyCc::new(cfg).initial_cwnd(cfg.iw, smss as u32), ssthresh: u32::MAX as u64, smss: smss as u32 };
    let (mut now, mut una, mut nxt) = (Time::ZERO, 1u64, 1 + w.cwnd);
    let mut ca = CaState::Open;
    let mut trace = Vec::new();
    // An algorithm that owns cwnd in recovery (BBR) takes a delivery-rate sample on every ACK
    // and sets cwnd on entering recovery; the walk then draws those too.
    let owns = AnyCc::new(cfg).owns_recovery_cwnd();
    let mut delivered = 0u64;
    cc.on_established(&mut w, Some(Dur(40_000_000)), now);
    for step in 0..3000 {
        now += Dur(1 + rng.below(50_000_000));
        let r = Some(Dur(1_000 + rng.below(2_000_000_000)));
        match rng.below(100) {
            0..=79 => {
                let acked = rng.below(4 * smss);
                una += acked;
                nxt = nxt.max(una) + rng.below(3 * smss);
                let ev = cc::AckEvent { ca, rtt: r, srtt: r, min_rtt: r, ack: una, snd_nxt: nxt, prior_in_flight: nxt - una, delivered: acked, lost: 0, dup: acked == 0 };
                cc.on_ack_event(&mut w, &ev, now);
                if owns {
                    delivered += acked;
                    let interval = if rng.below(8) == 0 { Dur::ZERO } else { Dur(1 + rng.below(200_000_000)) };
                    let lost = if rng.below(10) == 0 { rng.below(3 * smss) } else { 0 };
                    let rs = crate::tcp::rate::RateSample { delivered: acked * (1 + rng.below(40)), interval, prior_delivered: delivered.saturating_sub(rng.below(60 * smss)), is_app_limited: rng.below(5) == 0, acked_sacked: acked, lost, prior_in_flight: nxt - una + acked };
                    let lost_change = if rng.below(10) == 0 { rng.below(3 * smss) } else { 0 };
                    let rev = cc::RateEvent { rs, ca, delivered, in_flight: nxt - una, rtt: r, srtt: r, lost_change };
                    cc.on_rate_sample(&mut w, &rev, now);
                    if check && acked > 0 && ca != CaState::Recovery {
                        // BBR's floor: 4 segments whenever it sets cwnd outside fast recovery's
                        // packet conservation.
                        assert!(w.cwnd >= 4 * smss, "{:?} seed {seed} step {step}: cwnd {}", cfg.cc, w.cwnd);
                    }
                }
                if matches!(ca, CaState::Open | CaState::Loss) {
                    let s = cc::AckSample { bytes_acked: acked, rtt: r, min_rtt: r, srtt: r, in_flight: nxt - una, ece: false, ack: una, snd_nxt: nxt, cwnd_limited: rng.below(4) != 0 };
                    cc.on_ack(&mut w, &s, now);
                }
                if ca != CaState::Open && rng.below(4) == 0 {
                    // Recovery, CWR or the loss state ends at cwnd = ssthresh (floor 1 SMSS).
                    if ca != CaState::Loss && !owns {
                        w.cwnd = w.ssthresh.max(smss);
                    }
                    cc.on_state_change(&mut w, ca, CaState::Open, nxt, now);
                    ca = CaState::Open;
                }
            }
            80..=89 => {
                let cause = if rng.below(2) == 0 { LossCause::DupAcks } else { LossCause::Ecn };
                w.ssthresh = cc.ssthresh_after_loss(&w, nxt - una, cause, now);
                let to = if cause == LossCause::Ecn { CaState::Cwr } else { CaState::Recovery };
                cc.on_state_change(&mut w, ca, to, nxt, now);
                if owns && to == CaState::Recovery {
                    cc.on_recovery_start(&mut w, nxt - una, rng.below(2 * smss), now);
                }
                ca = to;
                if check && cfg.cc != CcKind::None {
                    assert!(w.ssthresh >= 2 * smss, "{:?} seed {seed} step {step}: ssthresh {}", cfg.cc, w.ssthresh);
                }
            }
            _ => {
                w.ssthresh = cc.ssthresh_after_loss(&w, nxt - una, LossCause::Rto, now);
                cc.on_rto(&mut w, now);
                cc.on_state_change(&mut w, ca, CaState::Loss, nxt, now);
                ca = CaState::Loss;
                if check {
                    assert_eq!(w.cwnd, smss, "{:?}: one segment after a timeout", cfg.cc);
                }
            }
        }
        if check {
            assert!(w.cwnd >= smss && w.cwnd < 1 << 40, "{:?} seed {seed} step {step}: cwnd {}", cfg.cc, w.cwnd);
        }
        trace.push((w.cwnd, w.ssthresh, cc.metrics()));
    }
    trace
}

/// The configurations the walks cover: every algorithm under the defaults, CUBIC and Vegas
/// under ns-3's profile, Vegas with Linux's diff, a CUBIC far from its defaults, and Compound
/// in both variants, under ns-3's profile and far from its defaults.
fn walk_configs() -> Vec<TcpConfig> {
    let mut kinds: Vec<TcpConfig> = [CcKind::NewReno, CcKind::Reno, CcKind::Tahoe, CcKind::LinuxReno, CcKind::Cubic, CcKind::Vegas].into_iter().map(|cc| TcpConfig { cc, ..TcpConfig::default() }).collect();
    for cc in [CcKind::LinuxReno, CcKind::Cubic, CcKind::Vegas] {
        kinds.push(TcpConfig { cc, ..TcpConfig::ns3_44() });
    }
    kinds.push(TcpConfig { cc: CcKind::Vegas, vegas: VegasConfig { diff: VegasDiff::Linux, ..VegasConfig::default() }, ..TcpConfig::default() });
    kinds.push(TcpConfig { cc: CcKind::Cubic, cubic: CubicConfig { hystart: Hystart::Off, tcp_friendliness: false, beta: 0.05, c: 40.0, ..CubicConfig::default() }, ..TcpConfig::default() });
    kinds.push(TcpConfig { cc: CcKind::Compound, ..TcpConfig::default() });
    kinds.push(TcpConfig { cc: CcKind::Compound, ..TcpConfig::ns3_44() });
    kinds.push(TcpConfig { cc: CcKind::Compound, compound: CompoundConfig { variant: CompoundVariant::Linux, ..CompoundConfig::default() }, ..TcpConfig::default() });
    // Far from the defaults: fast growth (α 1, k 1), a tiny γ, a small β and η, γ tuning.
    kinds.push(TcpConfig { cc: CcKind::Compound, compound: CompoundConfig { alpha: 1.0, k: 1.0, gamma: 0.5, beta: 0.05, eta: 0.1, gamma_tuning: true, ..CompoundConfig::default() }, ..TcpConfig::default() });
    kinds.push(TcpConfig { cc: CcKind::Compound, compound: CompoundConfig { variant: CompoundVariant::Linux, alpha: 1.0, k: 1.0, beta: 0.9, eta: 3.0, ..CompoundConfig::default() }, ..TcpConfig::default() });
    // BBR: the draft, ns-3's, and a large gain with a large margin.
    kinds.push(TcpConfig { cc: CcKind::Bbr, ..TcpConfig::default() });
    kinds.push(TcpConfig { cc: CcKind::Bbr, ..TcpConfig::ns3_44() });
    kinds.push(TcpConfig { cc: CcKind::Bbr, bbr: BbrConfig { high_gain: 8.0, pacing_margin: 0.5, ..BbrConfig::default() }, ..TcpConfig::default() });
    kinds
}

// Property (a seeded loop; no proptest here): random walks (`walk`) keep cwnd finite (below
// 2^40 B) and at least its floor: 1 SMSS after a timeout, ssthresh ≥ 2 SMSS after a reduction
// (none excepted: no window), and never below 1 SMSS.
#[test]
fn random_walks_keep_every_window_finite_and_above_its_floor() {
    for (i, cfg) in walk_configs().iter().enumerate() {
        for seed in 1..=20u64 {
            walk(&mut AnyCc::new(cfg), cfg, seed * 64 + i as u64, true);
        }
    }
}

// tests the endpoint's dispatch: an algorithm driven through `AnyCc` (what the endpoint holds)
// moves exactly as the algorithm driven on its own, hook by hook (ACK events, state changes,
// metrics included), on the random walks.
#[test]
fn any_cc_dispatches_every_hook_to_its_algorithm() {
    for (i, cfg) in walk_configs().iter().enumerate() {
        let seed = 7 + i as u64;
        let through_any = walk(&mut AnyCc::new(cfg), cfg, seed, false);
        let own = match cfg.cc {
            CcKind::Cubic => walk(&mut cc::cubic::Cubic::new(cfg.cubic, cfg.compat.cc_linux), cfg, seed, false),
            CcKind::Vegas => walk(&mut cc::vegas::Vegas::new(cfg.vegas, cfg.compat.cc_linux, cfg.compat.slow_start_capped), cfg, seed, false),
            CcKind::LinuxReno => walk(&mut cc::LinuxReno::new(cfg.compat.cc_linux), cfg, seed, false),
            CcKind::Compound => walk(&mut cc::compound::Compound::new(cfg.compound), cfg, seed, false),
            CcKind::Bbr => walk(&mut cc::bbr::Bbr::new(cfg.bbr.clone()), cfg, seed, false),
            _ => continue,
        };
        assert_eq!(through_any, own, "{:?} ({i})", cfg.cc);
        if cfg.cc != CcKind::LinuxReno {
            assert!(own.iter().any(|t| t.2.n > 0), "{:?}: the walk traces the algorithm's values", cfg.cc);
        }
        if cfg.cc == CcKind::Compound && cfg.compound.alpha >= 1.0 {
            // The walks' windows stay small (a reduction every ten steps), below where the
            // default α·win^k exceeds one segment; the fast-growing configurations reach the
            // delay part: dwnd above a segment at some step and 0 at another.
            let dwnd: Vec<f64> = own.iter().map(|t| t.2.as_slice()[0].1).collect();
            assert!(dwnd.iter().any(|d| *d > 1.0) && dwnd.contains(&0.0), "Compound ({i}): dwnd moves");
        }
    }
}

// tests the trace record's bound: an algorithm traces at most four values, and a fifth is
// dropped, not written past the end.
#[test]
fn cc_metrics_keep_the_first_four_values() {
    let mut m = CcMetrics::default();
    for (i, name) in ["a", "b", "c", "d", "e"].into_iter().enumerate() {
        m.push(name, i as f64);
    }
    assert_eq!(m.as_slice(), [("a", 0.0), ("b", 1.0), ("c", 2.0), ("d", 3.0)]);
}

// tests what the endpoint hands each algorithm: CUBIC, Vegas and Compound take ACK events (their RTT
// samples come from them), the window-only algorithms none; each reports its own name (the
// summary's `cc`); without congestion control the initial window is unbounded.
#[test]
fn any_cc_names_and_ack_events_per_algorithm() {
    let expect = [(CcKind::NewReno, "new_reno", false), (CcKind::Reno, "reno", false), (CcKind::Tahoe, "tahoe", false), (CcKind::LinuxReno, "linux_reno", false), (CcKind::Cubic, "cubic", true), (CcKind::Vegas, "vegas", true), (CcKind::Compound, "compound", true), (CcKind::Bbr, "bbr", false), (CcKind::None, "none", false)];
    for (kind, name, events) in expect {
        let c = AnyCc::new(&TcpConfig { cc: kind, ..TcpConfig::default() });
        assert_eq!((c.name(), c.wants_ack_events()), (name, events), "{kind:?}");
        // Only BBR takes rate samples, owns cwnd in recovery and draws random numbers.
        let bbr = kind == CcKind::Bbr;
        assert_eq!((c.wants_rate_samples(), c.owns_recovery_cwnd(), c.draws_random()), (bbr, bbr, bbr), "{kind:?}");
        // ns-3's `m_isCwndLimited` is kept for those that read it: the ACK-event algorithms
        // and Linux's Reno.
        assert_eq!(c.reads_cwnd_limited(), events || kind == CcKind::LinuxReno, "{kind:?}");
        let iw = c.initial_cwnd(InitialWindow::Segments(10), MSS as u32);
        assert_eq!(iw, if kind == CcKind::None { 1 << 30 } else { 10 * MSS }, "{kind:?}");
    }
}

// tests Vegas through the endpoint, RTT samples and all (Brakmo & Peterson's slow-start exit):
// with every round's RTT 20 ms the path holds no queue and Vegas slow-starts as NewReno
// would; with each round's RTT half the base longer than the last, the queued segments
// `cwnd − cwnd·baseRTT/minRTT` exceed γ = 1 and Vegas leaves slow start on its own, with no
// loss: cwnd down to the target + 1 segment and ssthresh finite.
#[test]
fn vegas_leaves_slow_start_on_rising_rtt_through_the_endpoint() {
    let run = |grow: bool| {
        let cfg = TcpConfig { cc: CcKind::Vegas, delack: DelAck::Off, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, Some(400 * MSS));
        let mut out = p.client_sends();
        for round in 0..6u64 {
            let half = Dur::from_millis(10 + if grow { 5 * round } else { 0 });
            p.now += half;
            let acks = p.deliver_to_server(&out);
            p.now += half;
            out = p.deliver_to_client(&acks);
        }
        (p.c.w.cwnd / MSS, p.c.w.ssthresh, p.c.counters.fast_retransmits + p.c.counters.rto_count)
    };
    let (flat_cwnd, flat_ssthresh, _) = run(false);
    let (cwnd, ssthresh, losses) = run(true);
    assert!(flat_ssthresh > 1 << 30 && flat_cwnd >= 160, "no queue: slow start throughout, cwnd {flat_cwnd}");
    assert_eq!(losses, 0);
    assert!(ssthresh < 1 << 30 && cwnd < flat_cwnd / 2, "rising RTT: Vegas left slow start (cwnd {cwnd}, ssthresh {ssthresh})");
}

// tests the outputs of docs/summary.md for the algorithms' parameters and state: a CUBIC flow
// and a Vegas flow through a 10-packet bottleneck queue. Each flow's `cc_options` holds its own
// algorithm's resolved keys; `monitor.cc_trace` samples CUBIC's W_max, K and cnt and Vegas's
// diff with the cwnd trace; after the first loss CUBIC's W_max is positive and K =
// ∛((W_max − cwnd_epoch)/C) at most ∛(W_max/C); the cwnd table carries `pacing_bps` (NaN:
// unpaced).
#[test]
fn summary_records_cc_options_and_cc_state() {
    let text = r#"
name = "cc-out"
duration = "4s"
[topology]
kind = "dumbbell"
pairs = 2
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck = { rate = "10Mbps", delay = "10ms" }
queue = { kind = "drop_tail", limit = "10pkt" }
[[flows]]
name = "c"
src = "s0"
dst = "r0"
app = { kind = "bulk" }
tcp = { cc = "cubic", cubic = { beta = 0.6 } }
[[flows]]
name = "v"
src = "s1"
dst = "r1"
app = { kind = "bulk" }
tcp = { cc = "vegas" }
[monitor]
cwnd_trace = "50ms"
cc_trace = true
"#;
    let out = crate::run_str(text, None, &crate::RunOptions::default()).unwrap();
    let f = &out.summary.flows;
    let opt = |i: usize, k: &str| f[i].cc_options.as_ref().unwrap().get(k).and_then(|v| v.as_str()).map(str::to_string);
    assert_eq!((f[0].cc.as_deref(), opt(0, "cubic.beta").as_deref(), opt(0, "vegas.alpha")), (Some("cubic"), Some("0.6"), None));
    assert_eq!((f[1].cc.as_deref(), opt(1, "vegas.diff").as_deref()), (Some("vegas"), Some("ns3")));
    let t = out.tables.iter().find(|t| t.name == "cc_state").expect("cc_state table");
    let col = |n: &str| &t.columns.iter().find(|c| c.0 == n).unwrap().1;
    let (crate::monitor::summary::Column::I64(flow), crate::monitor::summary::Column::Str(name), crate::monitor::summary::Column::F64(value)) = (col("flow"), col("name"), col("value")) else { panic!("column types") };
    let rows = |fl: i64, n: &'static str| flow.iter().zip(name).zip(value).filter(move |((f, m), _)| **f == fl && m.as_str() == n).map(|(_, v)| *v);
    let w_max: Vec<f64> = rows(0, "w_max").collect();
    let k: Vec<f64> = rows(0, "k").collect();
    assert!(w_max.len() > 10 && w_max.len() == k.len());
    let (wm, kk) = w_max.iter().zip(&k).find(|(w, k)| **w > 0.0 && **k > 0.0).expect("a loss sets W_max and K");
    assert!(*wm >= 2.0 && *kk <= (wm / 0.4).cbrt(), "W_max {wm} K {kk}");
    assert!(rows(1, "diff").count() > 10 && rows(0, "diff").count() == 0);
    let cw = out.tables.iter().find(|t| t.name == "cwnd").unwrap();
    let crate::monitor::summary::Column::F64(p) = &cw.columns.iter().find(|c| c.0 == "pacing_bps").unwrap().1 else { panic!() };
    assert!(!p.is_empty() && p.iter().all(|x| x.is_nan()));
}

// tests the endpoint's layout budget: the algorithm sits on the lines every ACK reads, so
// `AnyCc` stays two words whatever the algorithm (CUBIC's and Vegas's state is boxed).
#[test]
fn any_cc_stays_two_words() {
    assert!(std::mem::size_of::<AnyCc>() <= 16, "AnyCc is {} B", std::mem::size_of::<AnyCc>());
}

// tests Compound through the endpoint, RTT samples and all: in avoidance from the start
// (initial window and ssthresh 40 segments, an ACK per segment), with every round's RTT 20 ms
// (no queue: diff 0 < γ) dwnd grows each round by α·win^k − 1, and the endpoint's window is
// cwnd + dwnd; when the RTT then rises to 60 ms, diff = win·(1 − 20/60) ≈ ⅔·win > γ = 30 and
// dwnd drops to 0 at the next round's end, with no loss.
#[test]
fn compound_dwnd_grows_without_queue_and_goes_on_rising_rtt() {
    let cfg = TcpConfig { cc: CcKind::Compound, delack: DelAck::Off, iw: InitialWindow::Segments(40), initial_ssthresh: 40 * MSS, snd_buf: 8 << 20, rcv_buf: 8 << 20, ..TcpConfig::default() };
    let mut p = Pair::new(cfg, Some(3000 * MSS));
    let dwnd = |p: &Pair| p.c.cc.metrics().as_slice()[0].1;
    let mut out = p.client_sends();
    let mut trace = Vec::new();
    for round in 0..10u64 {
        let half = Dur::from_millis(if round < 6 { 10 } else { 30 });
        p.now += half;
        let acks = p.deliver_to_server(&out);
        p.now += half;
        out = p.deliver_to_client(&acks);
        trace.push((p.c.w.cwnd as f64 / MSS as f64, dwnd(&p)));
    }
    // The first round ends at the first ACK (one sample): no step. The second round's end, at
    // win 40.973 segments (40 + 40 avoidance steps of ⌊1448²/cwnd⌋ ≈ 35 B): dwnd += 0.125·
    // 40.973^0.75 − 1 = 0.125·16.195 − 1 = 1.0244 segments = ⌊1.0244·1448⌋ = 1483 B.
    assert_eq!(trace[0].1, 0.0);
    assert_eq!(trace[1].1, 1483.0 / MSS as f64, "{trace:?}");
    // Then every round adds more (the window grows): 7.26 segments after six rounds.
    assert!(trace[1..7].windows(2).all(|x| x[1].1 > x[0].1 + 1.0) && trace[6].1 > 7.0, "{trace:?}");
    // The round with the first 60-ms samples still had its 20-ms minimum; the next one ends with
    // diff = 53.9·⅔ ≈ 36 ≥ 30 ⇒ dwnd = max(7.26 − 36, 0) = 0, and stays 0 (⅔·48 = 32 ≥ 30).
    assert!(trace[7..].iter().all(|t| t.1 == 0.0), "{trace:?}");
    // The endpoint's window loses dwnd and keeps the Reno part, which grew by about a segment.
    let reno_before = trace[6].0 - trace[6].1;
    assert!((0.5..1.5).contains(&(trace[7].0 - reno_before)), "{trace:?}");
    assert_eq!(p.c.counters.fast_retransmits + p.c.counters.rto_count, 0);
}

// tests the outputs of docs/algorithms/compound.md: a Compound flow's `cc_options` holds its
// seven resolved keys, and `monitor.cc_trace` samples dwnd, diff, baseRTT and γ; on a 10 Mbit/s
// path (a path of about 20 packets, a 100-packet buffer) dwnd rises above a segment while the
// queue is short and is 0 again once more than γ = 30 packets are queued, baseRTT is the 24-ms
// path's (2·(1 + 10 + 1) ms plus transmission times), and γ stays 30 without tuning. (1-MiB
// buffers: with the default 128 KiB the peer's 90-packet window holds the flow, the window no
// longer limits it, and neither part moves.)
#[test]
fn summary_records_compound_options_and_dwnd() {
    let text = r#"
name = "ctcp-out"
duration = "8s"
[tcp]
snd_buf = "1MiB"
rcv_buf = "1MiB"
[topology]
kind = "dumbbell"
pairs = 1
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck = { rate = "10Mbps", delay = "10ms" }
queue = { kind = "drop_tail", limit = "100pkt" }
[[flows]]
src = "s0"
dst = "r0"
app = { kind = "bulk" }
tcp = { cc = "compound", compound = { variant = "linux" } }
[monitor]
cwnd_trace = "20ms"
cc_trace = true
"#;
    let out = crate::run_str(text, None, &crate::RunOptions::default()).unwrap();
    let f = &out.summary.flows[0];
    let opts = f.cc_options.as_ref().unwrap();
    assert_eq!(f.cc.as_deref(), Some("compound"));
    assert_eq!(opts.len(), 7, "{opts:?}");
    assert_eq!((opts["compound.variant"].as_str(), opts["compound.gamma"].as_str()), (Some("linux"), Some("30")));
    let t = out.tables.iter().find(|t| t.name == "cc_state").expect("cc_state table");
    let col = |n: &str| &t.columns.iter().find(|c| c.0 == n).unwrap().1;
    let (crate::monitor::summary::Column::Str(name), crate::monitor::summary::Column::F64(value)) = (col("name"), col("value")) else { panic!("column types") };
    let rows = |n: &'static str| name.iter().zip(value).filter(move |(m, _)| m.as_str() == n).map(|(_, v)| *v);
    let dwnd: Vec<f64> = rows("dwnd").collect();
    assert!(dwnd.len() > 100 && dwnd.iter().any(|d| *d >= 1.0) && dwnd.iter().skip(10).any(|d| *d == 0.0), "{dwnd:?}");
    assert!(dwnd.iter().all(|d| *d == d.floor()), "the Linux variant's dwnd is whole segments");
    let base: Vec<f64> = rows("base_rtt_s").filter(|b| *b > 0.0).collect();
    assert!(!base.is_empty() && base.iter().all(|b| (0.024..0.03).contains(b)), "{base:?}");
    assert!(rows("gamma").all(|g| g == 30.0) && rows("diff").count() == dwnd.len());
}

// tests Tahoe's FlightSize later in a connection (RFC 5681 eq. (4): FlightSize = SND.NXT −
// SND.UNA, not a ratio of them): 20 segments of data; the first 10 are acknowledged (cwnd 20),
// segments 10-19 go; 10 is lost; no data is left for limited transmit, so the third duplicate
// finds 10 segments outstanding: ssthresh = 5 SMSS, cwnd 1 SMSS, segment 10 resent.
#[test]
fn tahoe_flight_size_is_the_outstanding_data() {
    let mut p = Pair::new(cfg(CcKind::Tahoe), Some(20 * MSS));
    let first = p.client_sends();
    let acks = p.deliver_to_server(&first);
    let burst = p.deliver_to_client(&acks);
    assert_eq!(burst.iter().map(seg_no).collect::<Vec<_>>(), (10..20).collect::<Vec<_>>());
    let dups = p.deliver_to_server(&burst[1..4]);
    let out = p.deliver_to_client(&dups);
    assert_eq!(out.iter().map(seg_no).collect::<Vec<_>>(), [10]);
    assert_eq!((p.c.w.cwnd, p.c.w.ssthresh, p.c.ca), (MSS, 5 * MSS, CaState::Loss));
}

// tests `rate_bound_srtt` (docs/tcp.md): the handshake's RTT is 20 ms; the first segment's ACK
// comes 5 ms after it left, so the RTT sample is 5 ms and SRTT 20·7/8 + 5/8 = 18.125 ms
// (RFC 6298). The delivery-rate sample's interval is 5 ms: not below the least RTT sample
// (5 ms), so BtlBw takes it (1448 B in 5 ms, 2,316,800 b/s); below the least SRTT
// (18.125 ms, ns-3's `m_minRtt`), so it is dropped and BtlBw stays empty.
#[test]
fn the_rate_samples_bound_is_the_least_srtt_under_ns3() {
    for (bound_srtt, bw) in [(false, 2_316_800), (true, 0)] {
        let mut c = cfg(CcKind::Bbr);
        c.compat.rate_bound_srtt = bound_srtt;
        let mut p = Pair::new(c, Some(MSS));
        let sent = p.client_sends();
        p.now += Dur::from_millis(5);
        let acks = p.deliver_to_server(&sent);
        p.deliver_to_client(&acks);
        assert_eq!((p.c.rtt.min_rtt, p.c.rtt.min_srtt), (Some(Dur::from_millis(5)), Dur(18_125_000)));
        let AnyCc::Bbr(b) = &p.c.cc else { unreachable!("a BBR flow") };
        assert_eq!(b.btl_bw(), bw, "rate_bound_srtt = {bound_srtt}");
    }
}

// tests `cc_sees_reno_mark` (docs/tcp.md): without SACK, under emulated SACK marks, BBR's
// first window of 10 segments loses segment 0; three duplicates start recovery (the head
// retransmitted). The fourth duplicate, in recovery, adds a mark, which takes one segment out
// of what is in flight, and nothing leaves before the rate event: under ns-3's reading BBR
// sees what was in flight before the mark, 1448 B more than Linux's reading.
#[test]
fn bbr_sees_in_flight_before_the_duplicates_mark_under_ns3() {
    let seen = |live: bool| {
        let mut c = cfg(CcKind::Bbr);
        c.pacing = super::config::Pacing::Off;
        c.compat.reno_sack_marks = true;
        c.compat.cc_sees_reno_mark = live;
        let mut p = Pair::new(c, Some(40 * MSS));
        let burst = p.client_sends();
        assert_eq!(burst.len(), 10);
        p.now += Dur::from_millis(20);
        let dups = p.deliver_to_server(&burst[1..5]);
        p.deliver_to_client(&dups[..3]);
        assert_eq!(p.c.ca, CaState::Recovery);
        p.deliver_to_client(&dups[3..]);
        match &p.c.cc {
            AnyCc::Bbr(b) => b.in_flight_seen(),
            _ => unreachable!("a BBR flow"),
        }
    };
    assert_eq!(seen(false), seen(true) + MSS);
}

/// Whether the client's BBR is in a restart from idle.
fn restarting(p: &Pair) -> bool {
    match &p.c.cc {
        AnyCc::Bbr(b) => b.restarting_from_idle(),
        _ => unreachable!("a BBR flow"),
    }
}

// tests that a retransmission leaving with nothing in flight is a restart from idle too (Linux's
// `__tcp_transmit_skb` and ns-3's `SendPendingData` raise CA_EVENT_TX_START for any data
// segment then): a 2000-B write leaves as two segments, paced (a restart); the ACK of the first
// ends it; the application then writes 100 B with nothing unsent, which marks the connection
// application-limited; the second segment and the 100 B are lost, and the retransmission
// timer's retransmission, with nothing in flight, restarts again.
#[test]
fn bbr_restarts_from_idle_on_a_timeout_retransmission() {
    let mut p = Pair::new(cfg(CcKind::Bbr), Some(2000));
    let mut sent = p.client_sends();
    let until = p.now + Dur::from_millis(10);
    sent.extend(super::tests::run_client_timers(&mut p, until).into_iter().map(|(_, s)| s));
    assert_eq!((sent.len(), restarting(&p)), (2, true), "the second in its pacing slot");
    p.now += Dur::from_millis(40);
    let acks = p.deliver_to_server(&sent[..1]);
    p.deliver_to_client(&acks);
    assert!(!restarting(&p), "the ACK delivered data");
    let mut lost = Vec::new();
    p.c.app_write_more(100, p.now, &mut lost);
    let until = p.now + Dur::from_millis(10);
    lost.extend(super::tests::run_client_timers(&mut p, until).into_iter().map(|(_, s)| s));
    assert_eq!(lost.len(), 1, "the 100 B, paced");
    assert!(!restarting(&p), "the second segment is in flight");
    let rto_at = p.c.rto_at;
    let rtx = super::tests::run_client_timers(&mut p, rto_at);
    assert_eq!(rtx.len(), 1, "the second segment again");
    assert!(restarting(&p), "nothing was in flight when it left");
}

// tests when the sender reports a restart from idle to BBR (Linux and ns-3
// `CA_EVENT_TX_START`): new data leaving with nothing in flight, the delivery-rate sampler's
// application-limited mark handed along. The first write's segment is a restart (a connection
// that had nothing to send is marked application-limited, as Linux starts one); the ACK that
// delivers it ends the restart. A second write while a segment is in flight is none: segments
// 2 and 3 leave 1 ms apart, the ACK of 2 ends that flight's restart with 3 still out, and
// segment 4 leaves with 3 in flight, no restart. Once all is acknowledged (the connection
// marked again: less than a segment left, cwnd not filled), segment 5 is one again.
#[test]
fn bbr_restarts_from_idle_only_with_nothing_in_flight() {
    let mut p = Pair::new(cfg(CcKind::Bbr), Some(1000));
    let s1 = p.client_sends();
    assert_eq!((s1.len(), restarting(&p)), (1, true));
    p.now += Dur::from_millis(40);
    let acks = p.deliver_to_server(&s1);
    assert!(p.deliver_to_client(&acks).is_empty(), "nothing left to send");
    assert!(!restarting(&p), "the ACK delivered data");
    let write = |p: &mut Pair| {
        p.now += Dur::from_millis(1);
        let mut out = Vec::new();
        p.c.app_write_more(1000, p.now, &mut out);
        assert_eq!(out.len(), 1);
        out
    };
    let s2 = write(&mut p);
    assert!(restarting(&p), "nothing was in flight");
    let s3 = write(&mut p);
    let acks = p.deliver_to_server(&s2);
    p.deliver_to_client(&acks);
    assert!(!restarting(&p));
    let s4 = write(&mut p);
    assert!(!restarting(&p), "segment 3 is in flight");
    p.now += Dur::from_millis(40);
    let acks = p.deliver_to_server(&[s3, s4].concat());
    p.deliver_to_client(&acks);
    write(&mut p);
    assert!(restarting(&p), "idle again");
}

/// (state, bytes in flight before the ACK, duplicate) of each ACK event CUBIC was handed.
fn events(p: &Pair) -> Vec<(CaState, u64, bool)> {
    p.c.ack_events.iter().map(|e| (e.ca, e.prior_in_flight, e.dup)).collect()
}

// tests the ACK events an algorithm that takes them (CUBIC, Vegas, Compound) gets: one per ACK
// that acknowledges data or counts as a duplicate, with the bytes in flight before the ACK;
// before the endpoint acts on it (Linux `pkts_acked`, `cc_linux = true`: a duplicate's event
// sees the state before it) or where ns-3's ProcessAck calls `PktsAcked` (after `DupAck`: the
// duplicate's event sees Disorder). Ten segments, no SACK; the ACKs of 0 and 1 (10 and 9
// SMSS in flight before them), then segment 3 arrives without 2: a duplicate (8 SMSS before).
#[test]
fn one_ack_event_per_ack_before_or_after_the_endpoint_acts() {
    for (linux, dup_state) in [(true, CaState::Open), (false, CaState::Disorder)] {
        let mut c = cfg(CcKind::Cubic);
        c.compat.cc_linux = linux;
        let mut p = Pair::new(c, Some(10 * MSS));
        let burst = p.client_sends();
        for s in [&burst[0], &burst[1], &burst[3]] {
            let acks = p.deliver_to_server(std::slice::from_ref(s));
            p.deliver_to_client(&acks);
        }
        let want = vec![(CaState::Open, 10 * MSS, false), (CaState::Open, 9 * MSS, false), (dup_state, 8 * MSS, true)];
        assert_eq!(events(&p), want, "cc_linux = {linux}");
    }
}

// tests ns-3's ProcessAck in Disorder (`cc_linux = false`): an ACK of new data calls
// `PktsAcked` only if it acknowledges at least as many segments as duplicates came before it.
// Segment 0 is late: segments 2 and 3 arrive first (two duplicates), then 0: the ACK
// acknowledges one segment (1 is missing), fewer than two, and CUBIC hears nothing of it.
// With one duplicate before it (only 2 arrived first), the same one-segment ACK is heard.
#[test]
fn ns3_disorder_ack_event_needs_as_many_segments_as_duplicates() {
    for (early, heard) in [(2usize, false), (1, true)] {
        let mut c = cfg(CcKind::Cubic);
        c.compat.cc_linux = false;
        let mut p = Pair::new(c, Some(10 * MSS));
        let burst = p.client_sends();
        let dups = p.deliver_to_server(&burst[2..2 + early]);
        p.deliver_to_client(&dups);
        assert_eq!(p.c.ca, CaState::Disorder);
        let n = p.c.ack_events.len();
        assert_eq!(n, early, "one event per duplicate");
        let ack = p.deliver_to_server(&burst[..1]);
        p.deliver_to_client(&ack);
        assert_eq!(p.c.snd_una, 1 + MSS, "one segment acknowledged");
        assert_eq!(p.c.ack_events.len() - n, heard as usize, "after {early} duplicates");
    }
}

// tests that the endpoint leaves cwnd in fast recovery to an algorithm that owns it (BBR):
// on entering recovery, packet conservation (draft-cardwell-iccrg-bbr-congestion-control,
// "Packet conservation"; Linux `tcp_cwnd_reduction` is not used): cwnd = what was in flight
// before the loss was marked + what the ACK delivered, at least a segment. No SACK: the
// third duplicate delivers nothing known, 10 SMSS in flight: cwnd = 11 SMSS (not classic
// recovery's ssthresh + 3 SMSS). The six later duplicates leave it (no Reno inflation; without
// SACK they carry no delivered bytes for BBR's own update).
#[test]
fn bbr_owns_cwnd_in_classic_recovery() {
    let mut c = cfg(CcKind::Bbr);
    c.pacing = super::config::Pacing::Off;
    let mut p = Pair::new(c, Some(10 * MSS));
    let burst = p.client_sends();
    assert_eq!((burst.len(), p.c.w.cwnd), (10, 10 * MSS));
    let dups = p.deliver_to_server(&burst[1..]);
    let out = p.deliver_to_client(&dups[..3]);
    assert_eq!(out.iter().map(seg_no).collect::<Vec<_>>(), vec![0], "the fast retransmission");
    assert_eq!((p.c.ca, p.c.w.cwnd), (CaState::Recovery, 11 * MSS));
    p.deliver_to_client(&dups[3..]);
    assert_eq!((p.c.dupacks, p.c.w.cwnd), (9, 11 * MSS), "no inflation by the later duplicates");
}

// tests that an ACK with nothing outstanding gives no delivery-rate sample (Linux `tcp_ack`
// skips `tcp_cong_control` when nothing was in flight, its `no_queue` path): BBR's model is
// not run on it. Ten segments acknowledged, nothing left; 11 s later a duplicate of the last
// ACK (a window update) arrives. Run on it, BBR would find its 10-s RTprop expired and enter
// ProbeRTT, cutting cwnd to 4 segments; it does not, and cwnd stays where it was.
#[test]
fn bbr_takes_no_sample_from_an_ack_with_nothing_outstanding() {
    let mut c = cfg(CcKind::Bbr);
    c.pacing = super::config::Pacing::Off;
    let mut p = Pair::new(c, Some(10 * MSS));
    let burst = p.client_sends();
    p.now += Dur::from_millis(20);
    let acks = p.deliver_to_server(&burst);
    p.deliver_to_client(&acks);
    assert_eq!(p.c.snd_una, p.c.snd_max, "all acknowledged");
    let cwnd = p.c.w.cwnd;
    assert!(cwnd > 4 * MSS);
    p.now += Dur::from_secs(11);
    p.deliver_to_client(&acks[acks.len() - 1..]);
    assert_eq!(p.c.w.cwnd, cwnd, "no ProbeRTT from an ACK with nothing in flight");
}

// tests the endpoint's random stream for its congestion control (the engine derives one from
// the flow's name for an algorithm that draws: only BBR, for ProbeBW's cycle start): a BBR
// endpoint asks for one and its BBR then draws from the stream handed in, not from the
// default (seed 0) it was built with; a NewReno endpoint asks for none.
#[test]
fn bbr_draws_from_the_stream_the_endpoint_hands_it() {
    use sluice_core::rng::{RngStream, StreamKey};
    let draws = |mut r: RngStream| (0..4).map(|_| r.below(1 << 20)).collect::<Vec<_>>();
    let given = || RngStream::derive(7, StreamKey::Cc("f1"));
    assert_ne!(draws(given()), draws(RngStream::from_seed(0)));
    let mut p = Pair::new(cfg(CcKind::Bbr), Some(MSS));
    assert!(p.c.cc_draws());
    p.c.set_cc_rng(given());
    let AnyCc::Bbr(b) = &p.c.cc else { unreachable!("a BBR flow") };
    assert_eq!(draws(b.rng().clone()), draws(given()));
    assert!(!Pair::new(cfg(CcKind::NewReno), Some(MSS)).c.cc_draws());
}
