//! BBR's hand-checked values (docs/algorithms/bbr.md, "Tests").

use super::*;
use crate::tcp::rate::RateSample;
use sluice_core::rng::StreamKey;

const SMSS: u64 = 1460;
const MS: u64 = 1_000_000;

fn ms(n: u64) -> Dur {
    Dur(n * MS)
}

/// A BBR started with IW 10 segments and a 40-ms handshake RTT, and its window.
fn started(cfg: BbrConfig) -> (Bbr, CwndState) {
    let mut b = Bbr::new(cfg.clone());
    let mut w = CwndState {
        cwnd: 10 * SMSS,
        ssthresh: u32::MAX as u64,
        smss: SMSS as u32,
    };
    b.on_established(&mut w, Some(ms(40)), Time::ZERO);
    (b, w)
}

/// A BBR in ProbeBW with BtlBw 10 Mb/s and RTprop 40 ms, at gain-cycle phase `phase`.
fn probing(cfg: BbrConfig, phase: usize) -> (Bbr, CwndState) {
    let (mut b, w) = started(cfg.clone());
    b.bw = MaxFilter::reset(1, 10_000_000);
    b.rtprop = MinRtt {
        value: Some(ms(40)),
        stamp: Time::ZERO,
    };
    b.filled_pipe = true;
    b.mode = Mode::ProbeBw;
    b.cwnd_gain = 2.0;
    b.cycle_index = phase;
    b.pacing_gain = GAIN_CYCLE[phase];
    b.set_pacing_rate(b.pacing_gain);
    b.set_send_quantum();
    (b, w)
}

/// An ACK's event: `acked` bytes newly delivered (the connection's total `delivered`), a sample
/// of `rate_bps` over 40 ms from `prior_delivered`, `in_flight` after it.
#[allow(clippy::too_many_arguments)]
fn ack(
    delivered: u64,
    prior_delivered: u64,
    rate_bps: u64,
    acked: u64,
    in_flight: u64,
    rtt: Option<Dur>,
    ca: CaState,
) -> RateEvent {
    // rate · 40 ms / 8 bytes over a 40-ms interval.
    let rs = RateSample {
        delivered: rate_bps * 40 / 8_000,
        interval: ms(40),
        prior_delivered,
        is_app_limited: false,
        acked_sacked: acked,
        lost: 0,
        prior_in_flight: in_flight + acked,
    };
    RateEvent {
        rs,
        ca,
        delivered,
        in_flight,
        rtt,
        srtt: rtt,
        lost_change: 0,
    }
}

// tests the target window and pacing rate (draft-cardwell-iccrg-bbr-congestion-control-00 and
// ns-3 `InFlight`): BtlBw 10 Mb/s, RTprop 40 ms → BDP = 10⁷·0.040/8 = 50,000 B.
//   draft: pacing 10 Mb/s < 24 Mb/s → send quantum 2 MSS = 2920 B, target 2·50,000 + 3·2920 =
//     108,760 B; in the 5/4 phase the pacing rate is 1.25·10 Mb/s = 12.5 Mb/s (quantum still
//     2 MSS, target unchanged: cwnd_gain is 2 in every phase).
//   ns3: quantum 1 MSS: 2·50,000 + 3·1460 = 104,380 B; the 5/4 phase adds 2·1460: 107,300 B;
//     the pacing rate keeps a 1 % margin: 12.5 Mb/s · 0.99 = 12.375 Mb/s.
#[test]
fn target_window_and_pacing_from_btlbw_and_rtprop() {
    let (b, _) = probing(BbrConfig::default(), 2);
    assert_eq!(b.bdp(), Some(50_000.0));
    assert_eq!(b.send_quantum, 2 * SMSS);
    assert_eq!(b.inflight(2.0), 108_760);
    assert_eq!(b.pacing_rate(), Some(Rate(10_000_000)));
    let (b, _) = probing(BbrConfig::default(), 0);
    assert_eq!(b.pacing_rate(), Some(Rate(12_500_000)));
    assert_eq!((b.send_quantum, b.inflight(2.0)), (2 * SMSS, 108_760));
    let (b, _) = probing(BbrConfig::ns3(), 2);
    assert_eq!((b.send_quantum, b.inflight(2.0)), (SMSS, 104_380));
    let (b, _) = probing(BbrConfig::ns3(), 0);
    assert_eq!(b.inflight(2.0), 107_300);
    assert_eq!(b.pacing_rate(), Some(Rate(12_375_000)));
    // Above 24 Mb/s the draft's quantum is 1 ms of the pacing rate: 100 Mb/s → 12,500 B.
    let (mut b, _) = probing(BbrConfig::default(), 2);
    b.bw = MaxFilter::reset(1, 100_000_000);
    b.set_pacing_rate(1.0);
    b.set_send_quantum();
    assert_eq!(b.send_quantum, 12_500);
}

// tests the cwnd the per-ACK update sets in ProbeBW: it grows by what was acknowledged up to
// the target (108,760 B, draft) and stays there; with the pipe full it never passes it.
#[test]
fn cwnd_grows_to_the_target_and_stops() {
    let (mut b, mut w) = probing(BbrConfig::default(), 2);
    w.cwnd = 100_000;
    let mut delivered = 1_000_000;
    // An ACK of 5 segments: 100,000 + 7300 = 107,300 ≤ 108,760.
    delivered += 5 * SMSS;
    b.on_rate_sample(
        &mut w,
        &ack(
            delivered,
            delivered - 50_000,
            10_000_000,
            5 * SMSS,
            80_000,
            Some(ms(41)),
            CaState::Open,
        ),
        Time(ms(10).0),
    );
    assert_eq!(w.cwnd, 107_300);
    delivered += 5 * SMSS;
    b.on_rate_sample(
        &mut w,
        &ack(
            delivered,
            delivered - 50_000,
            10_000_000,
            5 * SMSS,
            80_000,
            Some(ms(41)),
            CaState::Open,
        ),
        Time(ms(11).0),
    );
    assert_eq!(w.cwnd, 108_760);
}

// tests the 4-segment floor: BtlBw 100 kb/s, RTprop 10 ms → BDP 125 B; the pacing rate
// (100 kb/s) is under 1.2 Mb/s, so the quantum is 1 MSS and the target 2·125 + 3·1460 =
// 4630 B < 4·1460 = 5840 B: cwnd is held at 5840, not the target.
#[test]
fn cwnd_never_goes_below_four_segments() {
    let (mut b, mut w) = probing(BbrConfig::default(), 2);
    b.bw = MaxFilter::reset(1, 100_000);
    b.rtprop = MinRtt {
        value: Some(ms(10)),
        stamp: Time::ZERO,
    };
    w.cwnd = 3 * SMSS;
    let d = 1_000_000;
    b.on_rate_sample(
        &mut w,
        &ack(
            d,
            d - 1250,
            100_000,
            SMSS,
            SMSS,
            Some(ms(10)),
            CaState::Open,
        ),
        Time(ms(5).0),
    );
    assert_eq!(b.target_cwnd, 4630);
    assert_eq!(w.cwnd, 4 * SMSS);
}

// tests the full-pipe test and Drain (draft §4.3.2.2): one round per ACK (each sample's
// prior_delivered reaches the round's end). BtlBw by round: 1, 2, 2.4, 2.4, 2.4 Mb/s.
//   round 1: 1 ≥ 1.25·0 → full_bw 1; round 2: 2 ≥ 1.25 → full_bw 2; rounds 3–5: 2.4 < 2.5 →
//   count 1, 2, 3 → the pipe is full at round 5: Drain (pacing gain 1/2.885), ssthresh =
//   inflight(1) = 2.4·10⁶·0.040/8 + 3·2920 = 20,760 B (Startup's pacing rate, 8.4 Mb/s, gave a
//   2-MSS quantum). Drain paces at 2.4/2.885 = 0.83 Mb/s < 1.2 Mb/s, so the quantum is then
//   1 MSS and Drain ends once in flight ≤ 12,000 + 3·1460 = 16,380 B.
#[test]
fn startup_ends_after_three_rounds_under_25_percent_growth() {
    let (mut b, mut w) = started(BbrConfig::default());
    assert_eq!(b.mode, Mode::Startup);
    assert!((b.pacing_gain - 2.885).abs() < 1e-3);
    let mut delivered = 0;
    let rates = [1_000_000, 2_000_000, 2_400_000, 2_400_000, 2_400_000];
    for (i, rate) in rates.into_iter().enumerate() {
        let prior = delivered;
        delivered += 10 * SMSS;
        b.on_rate_sample(
            &mut w,
            &ack(
                delivered,
                prior,
                rate,
                10 * SMSS,
                60_000,
                Some(ms(40)),
                CaState::Open,
            ),
            Time((i as u64 + 1) * 40 * MS),
        );
        assert_eq!(b.round_count, i as u64 + 1);
        let want = if i < 4 { Mode::Startup } else { Mode::Drain };
        assert_eq!(b.mode, want, "round {}", i + 1);
    }
    assert_eq!(b.full_bw_count, 3);
    assert!((b.pacing_gain - 1.0 / b.cfg.high_gain).abs() < 1e-12);
    assert_eq!(w.ssthresh, 20_760);
    // Still 60,000 B in flight: Drain holds; at 16,381 B too; at 16,380 B it ends in ProbeBW.
    let prior = delivered;
    delivered += SMSS;
    b.on_rate_sample(
        &mut w,
        &ack(
            delivered,
            prior - 1,
            2_400_000,
            SMSS,
            16_381,
            Some(ms(40)),
            CaState::Open,
        ),
        Time(250 * MS),
    );
    assert_eq!((b.mode, b.send_quantum), (Mode::Drain, SMSS));
    delivered += SMSS;
    b.on_rate_sample(
        &mut w,
        &ack(
            delivered,
            prior - 1,
            2_400_000,
            SMSS,
            16_380,
            Some(ms(40)),
            CaState::Open,
        ),
        Time(251 * MS),
    );
    assert_eq!(b.mode, Mode::ProbeBw);
    assert_eq!(b.cwnd_gain, 2.0);
    assert_ne!(b.pacing_gain, 0.75, "ProbeBW never starts in the 3/4 phase");
}

// tests ProbeRTT (draft §4.3.5): RTprop (40 ms, stamped at 0) expires after 10 s; the ACK at
// 10.001 s enters ProbeRTT, saves cwnd (100,000) and caps it at 4·1460 = 5840 B. The 200-ms
// hold starts at the first ACK with in flight ≤ 5840 (at 10.050 s, so it ends at 10.250 s)
// and also needs a round to end: at 10.150 s (a round start) cwnd is still 5840; at exactly
// 10.250 s it holds (not yet past); at 10.251 s RTprop is restamped, cwnd restored to 100,000
// and ProbeBW resumes, where this ACK's segment adds 1460 B (the target, now with RTprop
// 45 ms: 2·56,250 + 3·2920 = 121,260 B, is above).
#[test]
fn probe_rtt_holds_200_ms_at_four_segments() {
    let (mut b, mut w) = probing(BbrConfig::default(), 2);
    w.cwnd = 100_000;
    let t = |ms_: u64| Time(ms_ * MS);
    let mut d = 5_000_000;
    let mut step = |b: &mut Bbr, w: &mut CwndState, prior: u64, in_flight: u64, at: Time| {
        d += SMSS;
        b.on_rate_sample(
            w,
            &ack(
                d,
                prior,
                10_000_000,
                SMSS,
                in_flight,
                Some(ms(45)),
                CaState::Open,
            ),
            at,
        );
        d
    };
    // Not a round start (prior_delivered below the round's end).
    b.next_round_delivered = u64::MAX;
    step(&mut b, &mut w, 0, 50_000, t(10_001));
    assert_eq!(b.mode, Mode::ProbeRtt);
    assert_eq!((w.cwnd, b.prior_cwnd), (4 * SMSS, 100_000));
    step(&mut b, &mut w, 0, 10_000, t(10_020));
    assert_eq!(
        (b.mode, b.probe_rtt_done),
        (Mode::ProbeRtt, None),
        "in flight still above 4 segments"
    );
    let d1 = step(&mut b, &mut w, 0, 4 * SMSS, t(10_050));
    assert_eq!(b.probe_rtt_done, Some(t(10_250)));
    // The round that began at the hold ends with an ACK of data sent after it.
    step(&mut b, &mut w, d1, 4 * SMSS, t(10_150));
    assert!(b.probe_rtt_round_done);
    assert_eq!((b.mode, w.cwnd), (Mode::ProbeRtt, 4 * SMSS));
    step(&mut b, &mut w, 0, 4 * SMSS, t(10_250));
    assert_eq!(
        (b.mode, w.cwnd),
        (Mode::ProbeRtt, 4 * SMSS),
        "200 ms not yet past"
    );
    step(&mut b, &mut w, 0, 4 * SMSS, t(10_251));
    assert_eq!(b.mode, Mode::ProbeBw);
    assert_eq!(w.cwnd, 100_000 + SMSS);
    assert_eq!(b.rtprop.stamp, t(10_251));
}

// tests loss (draft §4.2.3.2–3): fast recovery starts at in flight + delivered (30 + 1
// segments = 45,260 B) with cwnd 100,000 saved; packet conservation then keeps cwnd at least
// in flight + delivered (here 40 + 1 segments = 59,860 B) until a round ends; at the end of
// recovery cwnd is restored to 100,000 (draft) or set to ssthresh (ns-3's ProcessAck).
// A timeout leaves 1 segment, and the next ACK puts it back at the 4-segment floor.
#[test]
fn recovery_conserves_packets_then_restores_cwnd() {
    for cfg in [BbrConfig::default(), BbrConfig::ns3()] {
        let (mut b, mut w) = probing(cfg.clone(), 2);
        w.cwnd = 100_000;
        w.ssthresh = 70_000;
        b.next_round_delivered = u64::MAX;
        assert_eq!(
            b.ssthresh_after_loss(&w, 90_000, LossCause::DupAcks, Time::ZERO),
            70_000,
            "ssthresh untouched"
        );
        b.on_state_change(&mut w, CaState::Disorder, CaState::Recovery, 0, Time::ZERO);
        b.on_recovery_start(&mut w, 30 * SMSS, SMSS, Time::ZERO);
        assert_eq!(w.cwnd, 31 * SMSS);
        let d = 1_000_000;
        b.on_rate_sample(
            &mut w,
            &ack(
                d,
                0,
                10_000_000,
                SMSS,
                40 * SMSS,
                Some(ms(40)),
                CaState::Recovery,
            ),
            Time(ms(1).0),
        );
        assert_eq!(w.cwnd, 41 * SMSS, "{:?}", cfg.target);
        b.on_state_change(&mut w, CaState::Recovery, CaState::Open, 0, Time(ms(50).0));
        let want = if cfg.target == BbrTarget::Draft {
            100_000
        } else {
            70_000
        };
        assert_eq!(w.cwnd, want, "{:?}", cfg.target);
        b.on_rto(&mut w, Time(ms(60).0));
        assert_eq!(w.cwnd, SMSS);
        b.on_state_change(&mut w, CaState::Open, CaState::Loss, 0, Time(ms(60).0));
        b.on_rate_sample(
            &mut w,
            &ack(
                d + SMSS,
                0,
                10_000_000,
                SMSS,
                0,
                Some(ms(40)),
                CaState::Loss,
            ),
            Time(ms(70).0),
        );
        assert_eq!(w.cwnd, 4 * SMSS);
    }
}

// tests the cycle start: ProbeBW's first phase over 700 draws from a seeded stream: the draft
// (7 − U{0..6}, then advanced) gives phases {2..7, 0}, each about 100 times, never 1 (3/4);
// ns-3 (7 − ⌊U[0, 6)⌋) gives {3..7, 0}, never 1 or 2.
#[test]
fn cycle_start_draws_every_phase_but_the_drain_phase() {
    for (cfg, never) in [
        (BbrConfig::default(), vec![1]),
        (BbrConfig::ns3(), vec![1, 2]),
    ] {
        let (mut b, _) = started(cfg.clone());
        b.set_rng(RngStream::derive(1, StreamKey::Cc("f0")));
        let mut seen = [0u32; 8];
        for _ in 0..700 {
            b.enter_probe_bw(Time::ZERO);
            seen[b.cycle_index] += 1;
        }
        for (phase, n) in seen.iter().enumerate() {
            if never.contains(&phase) {
                assert_eq!(*n, 0, "{:?} phase {phase}", cfg.cycle_start);
            } else {
                assert!(*n > 50, "{:?} phase {phase}: {n}", cfg.cycle_start);
            }
        }
    }
}

// tests ns-3's 32-bit cwnd (`bbr.target = "ns3"`): a recovery that ended before Drain leaves
// cwnd at the unbounded initial ssthresh, 4,294,967,295 B. The next ACK's 2 SMSS (2920 B) grow it
// past 2³² − 1 in ns-3's `uint32_t`, to 2919 B; the target then does not cap it, and the floor
// of 4 SMSS (5840 B) does. The draft's arithmetic caps cwnd at the target instead.
#[test]
fn ns3_cwnd_growth_wraps_at_32_bits() {
    for (cfg, want) in [(BbrConfig::ns3(), None), (BbrConfig::default(), Some(()))] {
        let (mut b, mut w) = probing(cfg, 2);
        w.cwnd = u32::MAX as u64;
        b.on_rate_sample(&mut w, &ack(1_000_000, 0, 10_000_000, 2 * SMSS, 30 * SMSS, Some(ms(40)), CaState::Open), Time(2 * MS));
        match want {
            None => assert_eq!(w.cwnd, 4 * SMSS),
            Some(()) => assert_eq!(w.cwnd, b.target_cwnd),
        }
    }
}

// tests `bbr.cycle_draws`: given draws are used in order at each entry to ProbeBW (index
// 7 − d, then advanced once: d = 5 → phase 3, d = 0 → phase 0, d = 3 → phase 5), and once
// they run out the flow's stream draws again, from its start (the fourth entry lands where a
// BBR without given draws lands on its first).
#[test]
fn given_cycle_draws_are_used_in_order_then_the_stream() {
    let cfg = BbrConfig { cycle_draws: vec![5, 0, 3], ..BbrConfig::ns3() };
    let (mut b, _) = started(cfg.clone());
    let (mut plain, _) = started(BbrConfig::ns3());
    for x in [&mut b, &mut plain] {
        x.set_rng(RngStream::derive(1, StreamKey::Cc("f0")));
    }
    let mut phases = vec![];
    for _ in 0..4 {
        b.enter_probe_bw(Time::ZERO);
        phases.push(b.cycle_index);
    }
    plain.enter_probe_bw(Time::ZERO);
    assert_eq!(phases, vec![3, 0, 5, plain.cycle_index]);
    let d = b.cfg.describe();
    assert!(d.contains(&("bbr.cycle_draws", "[5,0,3]".to_string())), "{d:?}");
    assert!(!BbrConfig::ns3().describe().iter().any(|(k, _)| *k == "bbr.cycle_draws"));
}

// tests the range of given draws: at most 5 under ns-3's rule (⌊U[0, 6)⌋), 6 under the draft's.
#[test]
fn cycle_draws_are_checked_against_the_cycle_start_rule() {
    let ns3 = BbrConfig { cycle_draws: vec![0, 6], ..BbrConfig::ns3() };
    assert_eq!(
        ns3.validate(),
        Err(("cycle_draws", "each must be in 0..=5 under cycle_start = \"ns3\", got 6".to_string()))
    );
    let draft = BbrConfig { cycle_draws: vec![0, 6], ..BbrConfig::default() };
    assert_eq!(draft.validate(), Ok(()));
    let draft = BbrConfig { cycle_draws: vec![7], ..BbrConfig::default() };
    assert!(draft.validate().is_err());
}

// tests the initial pacing rate (draft BBRInitPacingRate): high_gain · IW / RTT =
// 2.885 · 14,600 B · 8 / 40 ms = 2.885 · 2.92 Mb/s ≈ 8.42 Mb/s; ns-3 (2.89 and whole
// milliseconds): 2.89 · 2,920,000 = 8,438,800 b/s, and BtlBw seeded with 2.92 Mb/s.
#[test]
fn initial_pacing_rate_is_high_gain_times_iw_over_rtt() {
    let (b, _) = started(BbrConfig::default());
    let want = 2.0 / std::f64::consts::LN_2 * 2_920_000.0;
    assert!(
        (b.pacing_rate as f64 - want).abs() <= 4.0,
        "{}",
        b.pacing_rate
    );
    assert_eq!(b.btl_bw(), 0);
    let (b, _) = started(BbrConfig::ns3());
    assert_eq!((b.pacing_rate, b.btl_bw()), (8_438_800, 2_920_000));
}

// tests the option checks and the recorded options.
#[test]
fn config_validates_and_describes() {
    assert!(BbrConfig::default().validate().is_ok());
    assert!(BbrConfig::ns3().validate().is_ok());
    let e = BbrConfig {
        high_gain: 1.0,
        ..BbrConfig::default()
    }
    .validate()
    .unwrap_err();
    assert_eq!(e.0, "high_gain");
    let e = BbrConfig {
        pacing_margin: 1.0,
        ..BbrConfig::default()
    }
    .validate()
    .unwrap_err();
    assert_eq!(e.0, "pacing_margin");
    let d = BbrConfig::ns3().describe();
    assert_eq!(d[0], ("bbr.target", "ns3".to_string()));
    assert_eq!(d[1], ("bbr.cycle_start", "ns3".to_string()));
}

// tests the restart from idle (draft `BBRHandleRestartFromIdle`): in ProbeBW's 5/4 phase
// (BtlBw 10 Mb/s, pacing 12.5 Mb/s) data leaving with nothing in flight paces at BtlBw,
// 10 Mb/s, only when the connection is application-limited; and ProbeRTT is skipped: RTprop
// (40 ms, stamped at 0) has expired at 10.001 s, yet the first ACK after the restart does not
// enter ProbeRTT; its 45-ms sample becomes RTprop, stamped 10.001 s (an expired RTprop takes
// any sample), and the restart ends (the ACK delivered data), so the next ACK finds RTprop
// fresh. The same ACK without the restart enters ProbeRTT.
#[test]
fn idle_restart_paces_at_btlbw_and_defers_probe_rtt() {
    let (mut b, mut w) = probing(BbrConfig::default(), 0);
    w.cwnd = 100_000;
    assert_eq!(b.pacing_rate(), Some(Rate(12_500_000)));
    b.on_tx_start(&mut w, false, Time(10_000 * MS));
    assert_eq!((b.pacing_rate(), b.idle_restart), (Some(Rate(12_500_000)), false), "not application-limited");
    b.on_tx_start(&mut w, true, Time(10_000 * MS));
    assert_eq!((b.pacing_rate(), b.idle_restart), (Some(Rate(10_000_000)), true));
    b.next_round_delivered = u64::MAX;
    let ev = |d: u64| ack(d, 0, 10_000_000, SMSS, 0, Some(ms(45)), CaState::Open);
    let mut fresh = b.clone();
    let mut fresh_w = w;
    b.on_rate_sample(&mut w, &ev(5_000_000), Time(10_001 * MS));
    assert_eq!((b.mode, b.idle_restart), (Mode::ProbeBw, false));
    assert_eq!((b.rtprop.value, b.rtprop.stamp), (Some(ms(45)), Time(10_001 * MS)));
    b.on_rate_sample(&mut w, &ev(5_001_460), Time(10_002 * MS));
    assert_eq!(b.mode, Mode::ProbeBw);
    fresh.idle_restart = false;
    fresh.on_rate_sample(&mut fresh_w, &ev(5_000_000), Time(10_001 * MS));
    assert_eq!(fresh.mode, Mode::ProbeRtt);
    // Outside ProbeBW the restart leaves the pacing rate alone (Startup's only rises).
    let (mut b, mut w) = started(BbrConfig::default());
    let before = b.pacing_rate();
    b.on_tx_start(&mut w, true, Time(MS));
    assert_eq!((b.pacing_rate(), b.idle_restart), (before, true));
}

// tests ns-3.44's restart (`CwndEvent(CA_EVENT_TX_START)`): its mark is `m_appLimited`, which
// only ProbeRTT sets, so before a flow's first ProbeRTT nothing happens whatever the rate
// sampler says. In ProbeRTT (entered at 10.001 s with cwnd 100,000 saved, the 200-ms hold
// stamped at 10.050 s, so done at 10.250 s) a restart at 10.200 s with the round done keeps
// ProbeRTT; one at 10.251 s ends it: RTprop restamped at 10.251 s, cwnd restored to 100,000,
// ProbeBW, and the ACK-aggregation epoch restarts there.
#[test]
fn ns3_idle_restart_needs_a_probe_rtt_first_and_can_end_one() {
    let (mut b, mut w) = probing(BbrConfig::ns3(), 0);
    w.cwnd = 100_000;
    let paced = b.pacing_rate();
    b.on_tx_start(&mut w, true, Time(5_000 * MS));
    assert_eq!((b.pacing_rate(), b.idle_restart), (paced, false), "no ProbeRTT yet");
    let t = |ms_: u64| Time(ms_ * MS);
    b.next_round_delivered = u64::MAX;
    let ev = |d: u64, in_flight: u64| ack(d, 0, 10_000_000, SMSS, in_flight, Some(ms(45)), CaState::Open);
    b.on_rate_sample(&mut w, &ev(5_000_000, 50_000), t(10_001));
    assert_eq!(b.mode, Mode::ProbeRtt);
    assert_eq!(b.probe_rtt_app_limited, 5_000_000 + 50_000, "delivered + in flight");
    b.on_rate_sample(&mut w, &ev(5_001_460, 4 * SMSS), t(10_050));
    assert_eq!(b.probe_rtt_done, Some(t(10_250)));
    b.probe_rtt_round_done = true;
    b.on_tx_start(&mut w, false, t(10_200));
    assert_eq!((b.mode, b.idle_restart, b.ack_epoch_time), (Mode::ProbeRtt, true, t(10_200)));
    b.on_tx_start(&mut w, false, t(10_251));
    assert_eq!((b.mode, w.cwnd, b.rtprop.stamp, b.ack_epoch_time), (Mode::ProbeBw, 100_000, t(10_251), t(10_251)));
}

// tests ProbeBW's phase lengths (draft §4.3.4.4 `BBRIsNextCyclePhase`), each case from a fresh
// ProbeBW (BtlBw 10 Mb/s, RTprop 40 ms, the phase begun at 0; draft target, 2-MSS quantum:
// inflight(1) = 50,000 + 3·2920 = 58,760 B, inflight(5/4) = 62,500 + 8760 = 71,260 B):
//   gain 1 (phase 2): only time ends it, strictly after RTprop: not at 20 ms nor at 40 ms,
//     at 40 ms + 1 ns, however little is in flight (10,000 B);
//   gain 5/4 (phase 0): after RTprop and once a loss was reported or the in flight before the
//     ACK reached inflight(5/4): 10,000 B at 20 ms holds, 80,000 B at 20 ms (too soon) holds,
//     71,259 B at 41 ms holds, 71,260 B at 41 ms ends it, a loss at 41 ms ends it;
//   gain 3/4 (phase 1): after RTprop, or as soon as the in flight before the ACK is down to
//     inflight(1): 58,761 B at 20 ms holds, 58,760 B at 20 ms ends it, 80,000 B at 41 ms too.
// The next phase starts at the ACK's time with its own gain.
#[test]
fn probe_bw_phase_ends_by_time_loss_or_in_flight() {
    // Whether an ACK at `at_ns`, with `prior_in_flight` before it and `lost` bytes newly
    // lost, ends `phase`.
    let ends = |phase: usize, at_ns: u64, prior_in_flight: u64, lost: u64| {
        let (mut b, _) = probing(BbrConfig::default(), phase);
        assert_eq!(b.cycle_stamp, Time::ZERO);
        b.lost = lost;
        let mut ev = ack(1_000_000, 0, 10_000_000, SMSS, 0, Some(ms(40)), CaState::Open);
        ev.rs.prior_in_flight = prior_in_flight;
        b.check_cycle_phase(&ev, Time(at_ns));
        if b.cycle_index == phase {
            return false;
        }
        assert_eq!(b.cycle_index, phase + 1);
        assert_eq!((b.cycle_stamp, b.pacing_gain), (Time(at_ns), GAIN_CYCLE[phase + 1]));
        true
    };
    assert_eq!((inflight_at(1, 1.0), inflight_at(0, 1.25)), (58_760, 71_260));
    // Gain 1.
    assert!(!ends(2, 20 * MS, 10_000, 0));
    assert!(!ends(2, 40 * MS, 10_000, 0));
    assert!(ends(2, 40 * MS + 1, 10_000, 0));
    // Gain 5/4.
    assert!(!ends(0, 20 * MS, 10_000, 0));
    assert!(!ends(0, 20 * MS, 80_000, 0));
    assert!(!ends(0, 41 * MS, 71_259, 0));
    assert!(ends(0, 41 * MS, 71_260, 0));
    assert!(ends(0, 41 * MS, 10_000, SMSS));
    // Gain 3/4.
    assert!(!ends(1, 20 * MS, 58_761, 0));
    assert!(ends(1, 20 * MS, 58_760, 0));
    assert!(ends(1, 41 * MS, 80_000, 0));
}

/// `inflight(gain)` of a fresh ProbeBW (draft) at `phase`.
fn inflight_at(phase: usize, gain: f64) -> u64 {
    probing(BbrConfig::default(), phase).0.inflight(gain)
}

// tests that the full-pipe test counts rounds, not ACKs, and skips application-limited samples
// (draft §4.3.2.2 `BBRCheckFullPipe`): a flat BtlBw of 1 Mb/s. The first ACK starts round 1
// (full_bw 1 Mb/s, count 0); three more ACKs inside that round count nothing; three round
// starts whose samples are application-limited count nothing (their rate, equal to BtlBw, still
// enters the filter); then three round starts of ordinary samples count 1, 2, 3: Drain.
#[test]
fn full_pipe_counts_rounds_of_samples_not_limited_by_the_application() {
    let (mut b, mut w) = started(BbrConfig::default());
    let mut delivered = 0;
    let mut at = 0;
    let mut step = |b: &mut Bbr, w: &mut CwndState, round_start: bool, app_limited: bool| {
        // A round starts when the sample's prior_delivered reaches the round's end, which is
        // the delivered count at the previous round start.
        let prior = if round_start { delivered } else { 0 };
        delivered += SMSS;
        at += MS;
        let mut ev = ack(delivered, prior, 1_000_000, SMSS, 60_000, Some(ms(40)), CaState::Open);
        ev.rs.is_app_limited = app_limited;
        b.on_rate_sample(w, &ev, Time(at));
        assert_eq!(b.round_start, round_start);
        (b.full_bw, b.full_bw_count, b.mode)
    };
    assert_eq!(step(&mut b, &mut w, true, false), (1_000_000, 0, Mode::Startup));
    for _ in 0..3 {
        assert_eq!(step(&mut b, &mut w, false, false), (1_000_000, 0, Mode::Startup));
    }
    for _ in 0..3 {
        assert_eq!(step(&mut b, &mut w, true, true), (1_000_000, 0, Mode::Startup));
    }
    assert_eq!(step(&mut b, &mut w, true, false), (1_000_000, 1, Mode::Startup));
    assert_eq!(step(&mut b, &mut w, true, false), (1_000_000, 2, Mode::Startup));
    assert_eq!(step(&mut b, &mut w, true, false).1, 3);
    assert!(b.filled_pipe);
}

// tests ProbeRTT entered before the pipe is full (draft §4.3.5 `BBRExitProbeRTT`): it ends in
// Startup, with Startup's gains. Startup (IW 14,600 B, RTprop 40 ms stamped at 0); the ACK at
// 10.001 s starts round 1 (BtlBw 10 Mb/s), finds RTprop expired and enters ProbeRTT with 4
// segments in flight, so the hold runs to 10.201 s, the round to delivered = 100,000; cwnd is
// capped at 5840. At 10.100 s a round ends; at 10.202 s both are done: RTprop restamped,
// cwnd restored to 14,600 and, the pipe not full, Startup, where the ACK's segment adds 1460
// (below the target 2.885·56,250 + 3·2920): 16,060.
#[test]
fn probe_rtt_before_the_pipe_is_full_returns_to_startup() {
    let (mut b, mut w) = started(BbrConfig::default());
    let t = |ms_: u64| Time(ms_ * MS);
    let ev = |d: u64, prior: u64| ack(d, prior, 10_000_000, SMSS, 4 * SMSS, Some(ms(45)), CaState::Open);
    b.on_rate_sample(&mut w, &ev(100_000, 0), t(10_001));
    assert_eq!((b.mode, b.pacing_gain, b.cwnd_gain), (Mode::ProbeRtt, 1.0, 1.0));
    assert_eq!((b.probe_rtt_done, w.cwnd, b.prior_cwnd), (Some(t(10_201)), 4 * SMSS, 10 * SMSS));
    b.on_rate_sample(&mut w, &ev(101_460, 100_000), t(10_100));
    assert!(b.probe_rtt_round_done);
    assert_eq!(b.mode, Mode::ProbeRtt);
    b.on_rate_sample(&mut w, &ev(102_920, 100_000), t(10_202));
    assert!(!b.filled_pipe);
    assert_eq!((b.mode, b.pacing_gain, b.cwnd_gain), (Mode::Startup, b.cfg.high_gain, b.cfg.high_gain));
    assert_eq!((w.cwnd, b.rtprop.stamp), (16_060, t(10_202)));
}

// tests that only an ACK with a delivery sample ends a restart from idle (draft
// `BBRCheckProbeRTT`: `if rs.delivered > 0`; Linux the same). ProbeBW, RTprop 40 ms stamped
// at 0, restart at 10 s; no ACK here carries an RTT, so RTprop stays expired after 10 s. At
// 10.001 s an ACK whose sample is invalid (no interval, nothing delivered in it) leaves the
// restart on; at 10.002 s a valid one is still inside the restart (ProbeRTT is checked first)
// and ends it; at 10.003 s ProbeRTT begins.
#[test]
fn only_an_ack_with_a_delivery_sample_ends_the_idle_restart() {
    let (mut b, mut w) = probing(BbrConfig::default(), 2);
    b.on_tx_start(&mut w, true, Time(10_000 * MS));
    assert!(b.restarting_from_idle());
    b.next_round_delivered = u64::MAX;
    let mut invalid = ack(5_000_000, 0, 10_000_000, SMSS, 20_000, None, CaState::Open);
    invalid.rs.interval = Dur::ZERO;
    invalid.rs.delivered = 0;
    assert!(!invalid.rs.valid());
    b.on_rate_sample(&mut w, &invalid, Time(10_001 * MS));
    assert_eq!((b.mode, b.restarting_from_idle()), (Mode::ProbeBw, true));
    let valid = |d: u64| ack(d, 0, 10_000_000, SMSS, 20_000, None, CaState::Open);
    b.on_rate_sample(&mut w, &valid(5_001_460), Time(10_002 * MS));
    assert_eq!((b.mode, b.restarting_from_idle()), (Mode::ProbeBw, false));
    b.on_rate_sample(&mut w, &valid(5_002_920), Time(10_003 * MS));
    assert_eq!(b.mode, Mode::ProbeRtt);
}

// tests the read-outs: no pacing rate before BBR is initialized (its rate is 0 then); RTprop
// as measured; the metrics of `monitor.cc_trace`: the mode's code (Startup 0, Drain 1,
// ProbeBW 2, ProbeRTT 3), BtlBw in bit/s, RTprop in seconds and the pacing gain (ProbeBW's
// 5/4 phase, BtlBw 10 Mb/s, RTprop 40 ms).
#[test]
fn read_outs_and_metrics() {
    assert_eq!(Bbr::new(BbrConfig::default()).pacing_rate(), None);
    let (mut b, _) = probing(BbrConfig::default(), 0);
    assert_eq!(b.rtprop(), Some(ms(40)));
    assert_eq!(
        b.metrics().as_slice(),
        &[("mode", 2.0), ("btl_bw_bps", 10_000_000.0), ("rtprop_s", 0.04), ("pacing_gain", 1.25)]
    );
    for (mode, code) in [(Mode::Startup, 0.0), (Mode::Drain, 1.0), (Mode::ProbeRtt, 3.0)] {
        b.mode = mode;
        assert_eq!(b.metrics().as_slice()[0], ("mode", code));
    }
}

// tests which samples BtlBw takes (draft §4.1.1.5: `if rs.delivery_rate >= BBR.BtlBw or not
// rs.is_app_limited`; Linux the same). BtlBw 10 Mb/s from round 0; each sample comes at
// round 11, when that maximum has left the 10-round window, so a sample taken becomes BtlBw
// and one ignored leaves it at 10 Mb/s: an application-limited 8 Mb/s is ignored, an
// ordinary 8 Mb/s is taken, an application-limited 12 Mb/s is taken. An application-limited
// sample equal to BtlBw (10 Mb/s at round 11) is taken too: it restarts the window at round
// 11, so at round 15 an ordinary 5 Mb/s does not replace it (ignored, the 10 Mb/s of round 0
// would have aged out and 5 Mb/s become BtlBw).
#[test]
fn btl_bw_takes_application_limited_samples_only_at_or_above_it() {
    let at = |round: u64, rate: u64, app_limited: bool, b: &mut Bbr| {
        b.round_count = round;
        b.next_round_delivered = u64::MAX;
        let mut ev = ack(1_000_000, 0, rate, SMSS, 0, Some(ms(40)), CaState::Open);
        ev.rs.is_app_limited = app_limited;
        b.update_btl_bw(&ev);
        b.btl_bw()
    };
    for (rate, app_limited, want) in [(8_000_000, true, 10_000_000), (8_000_000, false, 8_000_000), (12_000_000, true, 12_000_000)] {
        let (mut b, _) = probing(BbrConfig::default(), 2);
        b.bw = MaxFilter::reset(0, 10_000_000);
        assert_eq!(at(11, rate, app_limited, &mut b), want, "{rate} app-limited {app_limited}");
    }
    let (mut b, _) = probing(BbrConfig::default(), 2);
    b.bw = MaxFilter::reset(0, 10_000_000);
    assert_eq!(at(11, 10_000_000, true, &mut b), 10_000_000);
    assert_eq!(at(15, 5_000_000, false, &mut b), 10_000_000);
}

// tests the draft's send quantum at its steps: 1 MSS below a pacing rate of 1.2 Mb/s, 2 MSS
// from there to below 24 Mb/s, then 1 ms of the pacing rate (24 Mb/s: 3000 B).
#[test]
fn send_quantum_steps_at_1_2_and_24_mbps() {
    for (rate, want) in [(1_199_999, SMSS), (1_200_000, 2 * SMSS), (23_999_999, 2 * SMSS), (24_000_000, 3000)] {
        let (mut b, _) = probing(BbrConfig::default(), 2);
        b.bw = MaxFilter::reset(1, rate);
        b.set_pacing_rate(1.0);
        assert_eq!(b.pacing_rate, rate);
        b.set_send_quantum();
        assert_eq!(b.send_quantum, want, "{rate}");
    }
}

// tests cwnd in Startup (draft `BBRSetCwnd` before the pipe is full): it grows by what is
// acknowledged while below the target or while less than the initial window has been
// delivered, and is never cut to the target. IW 14,600 B; BtlBw 1 Mb/s, RTprop 40 ms: BDP
// 5000 B; quantum 1 MSS: target ⌊2.885·5000⌋ + 3·1460 = 14,426 + 4380 = 18,806 B. With
// 100,000 B delivered: 14,600 → 16,060; 18,806 (at the target) and 20,000 stay. With 10,000
// B delivered (under IW) 20,000 → 21,460; with exactly 14,600 it stays. An ACK that
// acknowledges nothing leaves even a 1-segment cwnd (after a timeout) alone.
#[test]
fn startup_cwnd_grows_below_the_target_or_the_initial_window() {
    let grow = |cwnd: u64, delivered: u64, acked: u64| {
        let (mut b, mut w) = started(BbrConfig::default());
        b.bw = MaxFilter::reset(1, 1_000_000);
        b.delivered = delivered;
        w.cwnd = cwnd;
        b.set_cwnd(&mut w, &ack(delivered, 0, 1_000_000, acked, 10_000, Some(ms(40)), CaState::Open));
        assert_eq!(b.target_cwnd, if acked > 0 { 18_806 } else { 10 * SMSS }, "the initial window until set");
        w.cwnd
    };
    assert_eq!(grow(14_600, 100_000, SMSS), 16_060);
    assert_eq!(grow(18_806, 100_000, SMSS), 18_806);
    assert_eq!(grow(20_000, 100_000, SMSS), 20_000);
    assert_eq!(grow(20_000, 10_000, SMSS), 21_460);
    assert_eq!(grow(20_000, 14_600, SMSS), 20_000);
    assert_eq!(grow(SMSS, 100_000, 0), SMSS);
}

// tests the losses an ACK reports coming off cwnd (draft `BBRModulateCwndForRecovery`:
// `cwnd = max(cwnd − rs.losses, 1)`, in any state; ns-3 only in fast recovery, with its
// change of the bytes marked lost). ProbeBW, cwnd 100,000; fast recovery entered with 30
// segments in flight and 1 delivered: 45,260. An ACK in recovery (not a round start) that
// delivers a segment, reports 2 segments lost and leaves 20 in flight: 45,260 − 2920 =
// 42,340, and packet conservation keeps at least 21 segments (30,660): 42,340, in both.
// In Open, cwnd 50,000, the same ACK: the draft takes 2920 off and grows by 1460 (below
// the 108,760 target): 48,540; ns-3 only grows: 51,460.
#[test]
fn losses_come_off_cwnd_in_recovery_and_for_the_draft_in_open() {
    for cfg in [BbrConfig::default(), BbrConfig::ns3()] {
        let (mut b, mut w) = probing(cfg.clone(), 2);
        w.cwnd = 100_000;
        b.next_round_delivered = u64::MAX;
        let lossy = |ca: CaState| {
            let mut ev = ack(1_000_000, 0, 10_000_000, SMSS, 20 * SMSS, Some(ms(40)), ca);
            ev.rs.lost = 2 * SMSS;
            ev.lost_change = 2 * SMSS;
            ev
        };
        b.on_state_change(&mut w, CaState::Disorder, CaState::Recovery, 0, Time::ZERO);
        b.on_recovery_start(&mut w, 30 * SMSS, SMSS, Time::ZERO);
        assert_eq!(w.cwnd, 45_260);
        b.on_rate_sample(&mut w, &lossy(CaState::Recovery), Time(MS));
        assert_eq!(w.cwnd, 42_340, "{:?}", cfg.target);
        let (mut b, mut w) = probing(cfg.clone(), 2);
        w.cwnd = 50_000;
        b.next_round_delivered = u64::MAX;
        b.on_rate_sample(&mut w, &lossy(CaState::Open), Time(MS));
        let want = if cfg.target == BbrTarget::Draft { 48_540 } else { 51_460 };
        assert_eq!(w.cwnd, want, "{:?}", cfg.target);
    }
}

// tests the draft's BBRSaveCwnd: outside fast recovery and ProbeRTT the saved cwnd is cwnd
// (even below an older saved value); inside, the larger of the two. ProbeBW, saved 100,000:
// a loss at cwnd 50,000 saves 50,000; entering recovery at 40,000 keeps 50,000; in ProbeRTT
// (Open) a timeout at 30,000 keeps 50,000; outside it, at 30,000, saves 30,000.
#[test]
fn save_cwnd_takes_cwnd_outside_recovery_and_probe_rtt_the_larger_inside() {
    let (mut b, mut w) = probing(BbrConfig::default(), 2);
    b.prior_cwnd = 100_000;
    w.cwnd = 50_000;
    b.ssthresh_after_loss(&w, 50_000, LossCause::DupAcks, Time::ZERO);
    assert_eq!(b.prior_cwnd, 50_000);
    b.on_state_change(&mut w, CaState::Disorder, CaState::Recovery, 0, Time::ZERO);
    w.cwnd = 40_000;
    b.on_recovery_start(&mut w, 30 * SMSS, SMSS, Time::ZERO);
    assert_eq!(b.prior_cwnd, 50_000);
    let (mut b, mut w) = probing(BbrConfig::default(), 2);
    b.prior_cwnd = 50_000;
    b.mode = Mode::ProbeRtt;
    w.cwnd = 30_000;
    b.on_rto(&mut w, Time::ZERO);
    assert_eq!(b.prior_cwnd, 50_000);
    b.mode = Mode::ProbeBw;
    w.cwnd = 30_000;
    b.on_rto(&mut w, Time::ZERO);
    assert_eq!(b.prior_cwnd, 30_000);
}

// tests the ends of recovery: leaving fast recovery ends packet conservation (draft
// `BBROnExitRecovery`), so the next ACK in Open (not a round start) grows cwnd toward the
// target — restored to 100,000, + 1460 = 101,460 (below 108,760) — and is not raised to
// what is in flight + delivered (131,400 + 1460). After a timeout (cwnd 1 segment, 100,000
// saved) the draft restores 100,000 on returning to Open; ns-3 does not, and cwnd stays 1460.
#[test]
fn recovery_ends_packet_conservation_and_a_timeouts_recovery_restores_for_the_draft() {
    let (mut b, mut w) = probing(BbrConfig::default(), 2);
    w.cwnd = 100_000;
    b.next_round_delivered = u64::MAX;
    b.on_state_change(&mut w, CaState::Disorder, CaState::Recovery, 0, Time::ZERO);
    b.on_recovery_start(&mut w, 30 * SMSS, SMSS, Time::ZERO);
    b.on_state_change(&mut w, CaState::Recovery, CaState::Open, 0, Time(MS));
    assert_eq!(w.cwnd, 100_000);
    b.on_rate_sample(&mut w, &ack(1_000_000, 0, 10_000_000, SMSS, 90 * SMSS, Some(ms(40)), CaState::Open), Time(2 * MS));
    assert_eq!(w.cwnd, 101_460);
    for (cfg, want) in [(BbrConfig::default(), 100_000), (BbrConfig::ns3(), SMSS)] {
        let (mut b, mut w) = probing(cfg.clone(), 2);
        w.cwnd = 100_000;
        b.on_rto(&mut w, Time::ZERO);
        b.on_state_change(&mut w, CaState::Open, CaState::Loss, 0, Time::ZERO);
        assert_eq!(w.cwnd, SMSS);
        b.on_state_change(&mut w, CaState::Loss, CaState::Open, 0, Time(MS));
        assert_eq!(w.cwnd, want, "{:?}", cfg.target);
    }
}

// tests ns-3's ACK-aggregation allowance (`UpdateAckAggregation`, `AckAggregationCwnd`):
//  1. BtlBw 10 Mb/s, the epoch begun at 0, ACKs of 1000 B at 1-5 ms (no round start, so one
//     slot): the first finds nothing acknowledged beyond the 0 B expected in the epoch's 0 whole
//     seconds and restarts the epoch at 1 ms; then 2000, 3000, 4000 B acknowledged, each all
//     extra: the slot holds 4000; the fifth would make 5000 ≥ 4096, so the epoch restarts with
//     1000. The allowance is 4000 (under BtlBw·100 ms = 125,000 B), and only once the pipe is
//     full, and never for the draft.
//  2. Ten round starts (ACKs of 100 B): the fifth moves to the other slot, emptied (epoch at
//     1000 + 5·100: 1500), the tenth back to the first, emptied: 2000; the allowance is the
//     larger slot: 4000 after the fourth and the ninth (1900 in the other), 2000 after the tenth.
//  3. BtlBw 4000 b/s: an ACK of 1500 B at 1.5 s restarts the epoch (0 acknowledged ≤ 4000·1/8 =
//     500 expected); at 3.2 s the epoch is 1.7 s old, 1 whole second: 500 B are expected and
//     3000 B acknowledged: 2500 extra; the allowance is capped at BtlBw·100 ms = 50 B.
//  4. An epoch begun at 3.9 s is 0 whole seconds old at 4.1 s, though the two times lie in
//     different seconds: nothing is expected, and the 1500 B acknowledged add to the epoch's.
#[test]
fn ns3_ack_aggregation_allowance() {
    let (mut b, mut w) = probing(BbrConfig::ns3(), 2);
    w.cwnd = 100_000;
    b.next_round_delivered = u64::MAX;
    let mut d = 1_000_000;
    for i in 1..=5 {
        d += 1000;
        b.on_rate_sample(&mut w, &ack(d, 0, 10_000_000, 1000, 50_000, Some(ms(40)), CaState::Open), Time(i * MS));
        let want = if i < 5 { i * 1000 } else { 1000 };
        assert_eq!((b.extra_acked, b.ack_epoch_acked), ([(i.min(4)) * 1000, 0], want), "ACK {i}");
    }
    assert_eq!(b.ack_epoch_time, Time(5 * MS));
    assert_eq!(b.ack_aggregation_cwnd(), 4000);
    assert_eq!(b.target_cwnd, 104_380 + 4000);
    b.filled_pipe = false;
    assert_eq!(b.ack_aggregation_cwnd(), 0);
    b.filled_pipe = true;
    let (mut draft, _) = probing(BbrConfig::default(), 2);
    draft.extra_acked = [4000, 0];
    assert_eq!(draft.ack_aggregation_cwnd(), 0);
    // 2.
    let ev = ack(d, 0, 10_000_000, 100, 50_000, Some(ms(40)), CaState::Open);
    let mut agg = vec![];
    for _ in 1..=10 {
        b.round_start = true;
        b.update_ack_aggregation(&w, &ev, Time(6 * MS));
        agg.push((b.extra_acked_idx, b.ack_aggregation_cwnd()));
    }
    assert_eq!(b.extra_acked, [2000, 1900]);
    assert_eq!(agg, [(0, 4000), (0, 4000), (0, 4000), (0, 4000), (1, 4000), (1, 4000), (1, 4000), (1, 4000), (1, 4000), (0, 2000)]);
    // 3.
    let (mut b, w) = probing(BbrConfig::ns3(), 2);
    b.bw = MaxFilter::reset(1, 4000);
    let ev = ack(d, 0, 10_000_000, 1500, 50_000, Some(ms(40)), CaState::Open);
    b.update_ack_aggregation(&w, &ev, Time(1_500 * MS));
    assert_eq!((b.ack_epoch_time, b.extra_acked[0]), (Time(1_500 * MS), 1500));
    b.update_ack_aggregation(&w, &ev, Time(3_200 * MS));
    assert_eq!((b.ack_epoch_acked, b.extra_acked[0]), (3000, 2500));
    assert_eq!(b.ack_aggregation_cwnd(), 50);
    // 4.
    let (mut b, w) = probing(BbrConfig::ns3(), 2);
    b.bw = MaxFilter::reset(1, 4000);
    b.ack_epoch_time = Time(3_900 * MS);
    b.ack_epoch_acked = 1000;
    b.update_ack_aggregation(&w, &ev, Time(4_100 * MS));
    assert_eq!((b.ack_epoch_time, b.ack_epoch_acked, b.extra_acked[0]), (Time(3_900 * MS), 2500, 2500));
}

// tests ns-3's initial pacing rate in whole milliseconds of the handshake's RTT
// (`TcpBbr::InitPacingRate`): 40.7 ms counts as 40: 14,600 B · 8 / 40 ms = 2.92 Mb/s seeds
// BtlBw (and 2.89 · that is the pacing rate); the draft divides by 40.7 ms: 2,869,778 b/s.
#[test]
fn ns3_initial_rate_takes_whole_milliseconds_of_the_rtt() {
    for (cfg, nominal) in [(BbrConfig::ns3(), 2_920_000.0), (BbrConfig::default(), 14_600.0 * 8.0 / 0.0407)] {
        let mut b = Bbr::new(cfg.clone());
        let mut w = CwndState { cwnd: 10 * SMSS, ssthresh: u32::MAX as u64, smss: SMSS as u32 };
        b.on_established(&mut w, Some(Dur(40_700_000)), Time::ZERO);
        let want = (cfg.high_gain * (nominal as u64) as f64) as u64;
        assert_eq!(b.pacing_rate, want, "{:?}", cfg.target);
    }
}

// tests that the pacing rate only rises before the pipe is full (draft `BBRSetPacingRate`),
// then follows gain·BtlBw, and is never set to 0. Startup (8.42 Mb/s from the initial
// window): BtlBw 2 Mb/s would pace at 2.885·2 = 5.77 Mb/s: kept at 8.42; BtlBw 4 Mb/s:
// 11,541,560 b/s. Once the pipe is full, BtlBw 2 Mb/s at gain 1: 2 Mb/s; BtlBw 0: kept.
#[test]
fn pacing_rate_only_rises_before_the_pipe_is_full_and_is_never_zero() {
    let (mut b, _) = started(BbrConfig::default());
    let initial = b.pacing_rate;
    assert!(initial > 8_400_000 && initial < 8_500_000);
    b.bw = MaxFilter::reset(1, 2_000_000);
    b.set_pacing_rate(b.cfg.high_gain);
    assert_eq!(b.pacing_rate, initial);
    b.bw = MaxFilter::reset(1, 4_000_000);
    b.set_pacing_rate(b.cfg.high_gain);
    assert_eq!(b.pacing_rate, 11_541_560);
    b.filled_pipe = true;
    b.bw = MaxFilter::reset(1, 2_000_000);
    b.set_pacing_rate(1.0);
    assert_eq!(b.pacing_rate, 2_000_000);
    b.bw = MaxFilter::reset(1, 0);
    b.set_pacing_rate(1.0);
    assert_eq!(b.pacing_rate(), Some(Rate(2_000_000)));
}

// tests ns-3's restart from idle in ProbeRTT at its edges: the hold (stamped at 10.050 s)
// is done at 10.250 s; a restart exactly then keeps ProbeRTT (not yet past), one 1 ns later
// ends it; with its round not done, a restart at 10.3 s keeps it; the draft's restart never
// ends ProbeRTT.
#[test]
fn ns3_idle_restart_ends_probe_rtt_only_past_the_hold_with_its_round_done() {
    let t = |ms_: u64| Time(ms_ * MS);
    let in_probe_rtt = |cfg: BbrConfig| {
        let (mut b, mut w) = probing(cfg.clone(), 0);
        w.cwnd = 100_000;
        b.next_round_delivered = u64::MAX;
        let ev = |d: u64, in_flight: u64| ack(d, 0, 10_000_000, SMSS, in_flight, Some(ms(45)), CaState::Open);
        b.on_rate_sample(&mut w, &ev(5_000_000, 50_000), t(10_001));
        b.on_rate_sample(&mut w, &ev(5_001_460, 4 * SMSS), t(10_050));
        assert_eq!((b.mode, b.probe_rtt_done), (Mode::ProbeRtt, Some(t(10_250))));
        (b, w)
    };
    let (mut b, mut w) = in_probe_rtt(BbrConfig::ns3());
    b.probe_rtt_round_done = true;
    b.on_tx_start(&mut w, false, t(10_250));
    assert_eq!(b.mode, Mode::ProbeRtt);
    b.on_tx_start(&mut w, false, Time(10_250 * MS + 1));
    assert_eq!(b.mode, Mode::ProbeBw);
    let (mut b, mut w) = in_probe_rtt(BbrConfig::ns3());
    assert!(!b.probe_rtt_round_done);
    b.on_tx_start(&mut w, false, t(10_300));
    assert_eq!(b.mode, Mode::ProbeRtt);
    let (mut b, mut w) = in_probe_rtt(BbrConfig::default());
    b.probe_rtt_round_done = true;
    b.on_tx_start(&mut w, true, t(10_300));
    assert_eq!((b.mode, b.idle_restart), (Mode::ProbeRtt, true));
}
