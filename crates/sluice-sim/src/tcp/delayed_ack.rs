//! Linux's delayed-ACK engine, `delack = "linux"` (docs/tcp.md): a model of the receiver rules in
//! Linux's `tcp_input.c` (`tcp_event_data_recv`, `tcp_incr_quickack`, `__tcp_ack_snd_check`),
//! `tcp_output.c` (`tcp_send_delayed_ack`, `tcp_event_ack_sent`) and `tcp_timer.c`
//! (`tcp_delack_timer_handler`). Sans-IO: times come in as arguments; the endpoint
//! (`receiver.rs`) decides when each hook runs.
//!
//! The rules modelled:
//!
//! - **Quick-ACK mode.** The first data segment sets `quick = min(rcv_wnd / (2·rcv_mss), 16)`
//!   (at least 2) and `ato = 40 ms`. While `quick > 0` every data segment is acknowledged at
//!   once, and each such ACK uses one up; the last one resets `ato` to 40 ms. A gap in arrivals
//!   longer than the RTO, an entirely duplicate segment (up to 16), the first CE mark of an
//!   episode (2) and, once ECT has been seen, a Not-ECT data segment (a retransmission, 2) add
//!   quick ACKs again.
//! - **Adaptive ACK timeout (ATO).** On each in-order data segment, with `m` the time since the
//!   previous one: `m ≤ 20 ms` ⇒ `ato = ato/2 + 20 ms`; `m < ato` ⇒ `ato = min(ato/2 + m, RTO)`.
//!   When the delayed-ACK timer fires, `ato = min(2·ato, RTO)`.
//! - **When to ACK.** At once if more than one full segment (`rcv_mss`) has arrived since the
//!   last ACK sent, in quick-ACK mode, for out-of-order data, a filled gap or FIN; otherwise the
//!   delayed-ACK timer is set to `now + min(ato, 200 ms)` — bounded also by SRTT (at least
//!   40 ms) when `ato > 40 ms` and an SRTT is known — keeping an earlier pending deadline, and
//!   sending at once if that deadline is within `ato/4`.
//! - **`rcv_mss`** starts at `min(advmss, rcv_wnd/2, 536)` (at least 88) and follows the largest
//!   segment seen, up to `advmss`.
//!
//! Not modelled: pingpong (interactive) mode and the delayed ACK of a FIN it brings (Sluice
//! acknowledges FIN at once, as its other delayed-ACK policies do); SACK compression of duplicate
//! ACKs (Linux ≥ 4.18 sends the first three at once, then paces them at min(1 ms, SRTT/20));
//! `rcv_mss` learnt from short segments (`last_seg_size`); the `__tcp_select_window ≥ rcv_wnd` test
//! (Sluice's application reads at once, so the right edge always advances); the quick-ACK count
//! taken when an ACK rides on a data segment (it cannot be non-zero then for a one-way transfer);
//! jiffies.

use sluice_core::{Dur, Time};

/// `TCP_ATO_MIN` (= `TCP_DELACK_MIN`): 40 ms, Linux `include/net/tcp.h` (HZ/25).
pub const ATO_MIN: Dur = Dur::from_millis(40);
/// `TCP_DELACK_MAX`: 200 ms, Linux `include/net/tcp.h` (HZ/5).
pub const DELACK_MAX: Dur = Dur::from_millis(200);
/// `TCP_MAX_QUICKACKS`: 16, Linux `include/net/tcp.h`.
pub const MAX_QUICKACKS: u32 = 16;
/// Quick ACKs granted on a CE mark or a suspected retransmission (`tcp_ecn_check_ce`).
pub const ECN_QUICKACKS: u32 = 2;
/// `TCP_MSS_DEFAULT`: 536 B, the initial `rcv_mss` bound.
pub const MSS_DEFAULT: u32 = 536;
/// `TCP_MIN_MSS`: 88 B, the lower bound of `rcv_mss`.
pub const MIN_MSS: u32 = 88;

/// Receiver state of Linux's delayed-ACK engine (`icsk_ack`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinuxDelAck {
    /// `icsk_ack.ato`: the current ACK timeout; zero until the first data segment.
    pub ato: Dur,
    /// `icsk_ack.quick`: immediate ACKs left in quick-ACK mode.
    pub quick: u32,
    /// `icsk_ack.lrcvtime`: when the previous in-order data segment arrived.
    pub lrcvtime: Time,
    /// `icsk_ack.rcv_mss`: estimate of the peer's segment size, bytes (0 until the first data).
    pub rcv_mss: u32,
    /// `TCP_ECN_SEEN`: an ECT or CE data segment has arrived.
    pub ecn_seen: bool,
}

impl LinuxDelAck {
    /// `tcp_incr_quickack`: raise the quick-ACK budget to `min(rcv_wnd / (2·rcv_mss), max)`,
    /// at least 2; never lower it.
    fn incr_quickack(&mut self, max: u32, rcv_wnd: u64) {
        let per = 2 * self.rcv_mss.max(1) as u64;
        let mut q = (rcv_wnd / per).min(u32::MAX as u64) as u32;
        if q == 0 {
            q = 2;
        }
        self.quick = self.quick.max(q.min(max));
    }

    /// `tcp_enter_quickack_mode`: add quick ACKs (up to `max`) and reset the ATO to 40 ms.
    pub fn enter_quickack(&mut self, max: u32, rcv_wnd: u64) {
        self.incr_quickack(max, rcv_wnd);
        self.ato = ATO_MIN;
    }

    /// `tcp_in_quickack_mode` (no pingpong mode here).
    pub fn in_quickack(&self) -> bool {
        self.quick > 0
    }

    /// `tcp_measure_rcv_mss` (full-segment branch), with `tcp_initialize_rcv_mss` on first use:
    /// `len` payload bytes arrived; `advmss` is the segment size this end announced.
    fn measure_rcv_mss(&mut self, len: u32, advmss: u32, rcv_wnd: u64) {
        if self.rcv_mss == 0 {
            let half_wnd = (rcv_wnd / 2).min(u32::MAX as u64) as u32;
            self.rcv_mss = advmss.min(half_wnd).clamp(MIN_MSS, MSS_DEFAULT);
        }
        if len >= self.rcv_mss {
            self.rcv_mss = len.min(advmss);
        }
    }

    /// A data segment arrived with ECN codepoint: `ce` (CE) or `ect` (ECT(0)/ECT(1)); `demand_cwr`
    /// is whether this receiver is already echoing ECE (`tcp_ecn_check_ce`, ECN connections only).
    pub fn on_ecn(&mut self, ce: bool, ect: bool, demand_cwr: bool, rcv_wnd: u64) {
        if ce {
            // The first CE of an episode: do not delay ACKs, the sender may have a tiny cwnd.
            if !demand_cwr {
                self.enter_quickack(ECN_QUICKACKS, rcv_wnd);
            }
            self.ecn_seen = true;
        } else if ect {
            self.ecn_seen = true;
        } else if self.ecn_seen {
            // Not-ECT after ECT: probably a retransmission.
            self.enter_quickack(ECN_QUICKACKS, rcv_wnd);
        }
    }

    /// `tcp_event_data_recv`: `len` bytes of in-order data arrived at `now`. `rto` is this end's
    /// current RTO, `rcv_wnd` the receive window it advertises, `advmss` its own MSS.
    pub fn on_data(&mut self, len: u32, advmss: u32, rcv_wnd: u64, rto: Dur, now: Time) {
        self.measure_rcv_mss(len, advmss, rcv_wnd);
        if self.ato == Dur::ZERO {
            // The first data segment: start the engine in quick-ACK mode.
            self.incr_quickack(MAX_QUICKACKS, rcv_wnd);
            self.ato = ATO_MIN;
        } else {
            let m = now.since(self.lrcvtime);
            if m.0 <= ATO_MIN.0 / 2 {
                self.ato = Dur(self.ato.0 / 2 + ATO_MIN.0 / 2);
            } else if m < self.ato {
                self.ato = Dur(self.ato.0 / 2 + m.0).min(rto);
            } else if m > rto {
                // Too long a gap: the sender probably had to restart its window.
                self.incr_quickack(MAX_QUICKACKS, rcv_wnd);
            }
        }
        self.lrcvtime = now;
    }

    /// `__tcp_ack_snd_check`'s first test: more than one full segment is unacknowledged.
    pub fn more_than_one_segment(&self, unacked_bytes: u64) -> bool {
        unacked_bytes > self.rcv_mss as u64
    }

    /// `tcp_send_delayed_ack`: the deadline for a delayed ACK given the one already `pending`
    /// (if any), or `None` to send it now (the pending deadline is within `ato/4`).
    pub fn deadline(&self, now: Time, pending: Option<Time>, srtt: Option<Dur>) -> Option<Time> {
        let mut ato = self.ato;
        if ato > ATO_MIN {
            // A slow sender: bound the ATO by the measured RTT (at least 40 ms).
            if let Some(s) = srtt {
                ato = ato.min(s.max(ATO_MIN));
            }
        }
        let ato = ato.min(DELACK_MAX);
        let at = now + ato;
        match pending {
            Some(p) if p <= now + Dur(ato.0 / 4) => None,
            Some(p) => Some(at.min(p)),
            None => Some(at),
        }
    }

    /// `tcp_dec_quickack_mode`: an ACK of newly received data was sent.
    pub fn on_ack_sent(&mut self) {
        if self.quick > 0 {
            self.quick -= 1;
            if self.quick == 0 {
                // Leaving quick-ACK mode deflates the ATO.
                self.ato = ATO_MIN;
            }
        }
    }

    /// `tcp_delack_timer_handler`: the delayed ACK was not sent in time; inflate the ATO.
    pub fn on_timer(&mut self, rto: Dur) {
        self.ato = self.ato.saturating_mul(2).min(rto);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1448;
    const WND: u64 = 131_072;
    const RTO: Dur = Dur::from_secs(1);

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    // tests Linux `tcp_event_data_recv` / `tcp_incr_quickack`: the first data segment starts
    // quick-ACK mode with min(rcv_wnd / (2·rcv_mss), 16) ACKs and ATO 40 ms; the last quick ACK
    // resets ATO.
    #[test]
    fn first_segment_starts_quickack_mode() {
        let mut d = LinuxDelAck::default();
        d.on_data(MSS, MSS, WND, RTO, ms(0));
        assert_eq!(d.rcv_mss, MSS, "rcv_mss follows a full segment");
        assert_eq!(d.quick, 16, "131072 / 2896 = 45, capped at 16");
        assert_eq!(d.ato, ATO_MIN);
        for _ in 0..15 {
            d.on_ack_sent();
        }
        assert!(d.in_quickack());
        d.on_ack_sent();
        assert!(!d.in_quickack());
        // A small window grants fewer quick ACKs, never fewer than 2.
        let mut s = LinuxDelAck::default();
        s.on_data(MSS, MSS, 4 * MSS as u64, RTO, ms(0));
        assert_eq!(s.quick, 2);
        let mut t = LinuxDelAck::default();
        t.on_data(MSS, MSS, MSS as u64, RTO, ms(0));
        assert_eq!(t.quick, 2, "0 becomes 2");
    }

    // tests Linux `tcp_initialize_rcv_mss` / `tcp_measure_rcv_mss`: rcv_mss starts at
    // min(advmss, rcv_wnd/2, 536), at least 88, and only a segment at least that long moves it.
    // A 100-byte first segment leaves it at min(1448, 65536, 536) = 536; in a 600-byte window it
    // starts at 600/2 = 300; in a 100-byte window at max(50, 88) = 88.
    #[test]
    fn rcv_mss_starts_bounded_and_short_segments_leave_it() {
        let mut d = LinuxDelAck::default();
        d.on_data(100, MSS, WND, RTO, ms(0));
        assert_eq!(d.rcv_mss, 536);
        let mut d = LinuxDelAck::default();
        d.on_data(100, MSS, 600, RTO, ms(0));
        assert_eq!(d.rcv_mss, 300);
        let mut d = LinuxDelAck::default();
        d.on_data(50, MSS, 100, RTO, ms(0));
        assert_eq!(d.rcv_mss, 88);
    }

    // tests Linux `tcp_event_data_recv`: ATO adapts to the arrival gap.
    #[test]
    fn ato_follows_interarrival_time() {
        let mut d = LinuxDelAck::default();
        d.on_data(MSS, MSS, WND, RTO, ms(0));
        d.on_data(MSS, MSS, WND, RTO, ms(10)); // m ≤ 20 ms: ato/2 + 20 = 40 ms
        assert_eq!(d.ato, Dur::from_millis(40));
        d.on_timer(RTO); // missed: 80 ms
        assert_eq!(d.ato, Dur::from_millis(80));
        d.on_data(MSS, MSS, WND, RTO, ms(40)); // m = 30 ms < ato: 40 + 30
        assert_eq!(d.ato, Dur::from_millis(70));
        d.on_data(MSS, MSS, WND, Dur::from_millis(60), ms(90)); // m = 50 < 70: min(35 + 50, RTO 60)
        assert_eq!(d.ato, Dur::from_millis(60));
        d.quick = 0;
        d.on_data(MSS, MSS, WND, RTO, ms(1200)); // gap > RTO: quick ACKs again
        assert_eq!(d.quick, 16);
    }

    // tests Linux `tcp_event_data_recv`'s strict comparisons: a gap equal to ATO leaves ATO
    // alone (only m < ato moves it to ato/2 + m), and a gap equal to the RTO grants no quick ACKs
    // (only m > rto does).
    #[test]
    fn ato_boundaries_are_strict() {
        let mut d = LinuxDelAck::default();
        d.on_data(MSS, MSS, WND, RTO, ms(0));
        d.on_timer(RTO); // ato 40 → 80 ms
        d.quick = 0;
        d.on_data(MSS, MSS, WND, RTO, ms(80)); // m = 80 ms = ato
        assert_eq!(d.ato, Dur::from_millis(80), "not min(40 + 80, RTO) = 120 ms");
        d.on_data(MSS, MSS, WND, RTO, ms(1080)); // m = 1 s = RTO
        assert_eq!(d.quick, 0, "a gap of exactly the RTO is not too long");
        assert_eq!(d.ato, Dur::from_millis(80));
    }

    // tests Linux `tcp_send_delayed_ack`: the delayed ACK waits at most 200 ms, at most SRTT when
    // ATO > 40 ms, keeps an earlier deadline, and goes at once when that is within ATO/4.
    #[test]
    fn delayed_ack_deadline() {
        let mut d = LinuxDelAck { ato: ATO_MIN, rcv_mss: MSS, ..Default::default() };
        assert_eq!(d.deadline(ms(100), None, None), Some(ms(140)));
        d.ato = Dur::from_millis(300);
        assert_eq!(d.deadline(ms(100), None, None), Some(ms(300)), "TCP_DELACK_MAX");
        assert_eq!(d.deadline(ms(100), None, Some(Dur::from_millis(70))), Some(ms(170)), "bounded by SRTT");
        assert_eq!(d.deadline(ms(100), None, Some(Dur::from_millis(10))), Some(ms(140)), "SRTT bound ≥ 40 ms");
        d.ato = ATO_MIN;
        assert_eq!(d.deadline(ms(100), Some(ms(120)), None), Some(ms(120)), "earlier deadline kept");
        assert_eq!(d.deadline(ms(100), Some(ms(110)), None), None, "within ato/4 = 10 ms: now");
        assert!(d.more_than_one_segment(MSS as u64 + 1));
        assert!(!d.more_than_one_segment(MSS as u64));
    }

    // tests Linux `tcp_ecn_check_ce` (`delack = "linux"` with ECN): the first CE of an episode and
    // a Not-ECT segment after ECT each grant 2 quick ACKs.
    #[test]
    fn ecn_marks_grant_quick_acks() {
        let mut d = LinuxDelAck { ato: Dur::from_millis(100), rcv_mss: MSS, ..Default::default() };
        d.on_ecn(false, true, false, WND);
        assert_eq!(d.quick, 0);
        d.on_ecn(true, false, false, WND);
        assert_eq!((d.quick, d.ato), (2, ATO_MIN));
        d.quick = 0;
        d.on_ecn(true, false, true, WND);
        assert_eq!(d.quick, 0, "already echoing ECE");
        d.on_ecn(false, false, true, WND);
        assert_eq!(d.quick, 2, "Not-ECT after ECT");
    }
}
