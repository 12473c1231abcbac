//! BBR's model filters: the windowed maximum of the delivery rate over rounds (BtlBw) and the
//! minimum RTT over time (RTprop).

use sluice_core::{Dur, Time};

/// A windowed running maximum kept in three samples (Kathleen Nichols' algorithm): the best,
/// second-best and third-best values of the window's thirds, so the maximum ages out without
/// keeping every sample. [`update`](Self::update) is Linux's `lib/win_minmax.c`,
/// [`update_ns3`](Self::update_ns3) ns-3.44's `WindowedFilter` (Chromium's), which differs in
/// two rules.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MaxFilter {
    /// `(time, value)`, best first.
    s: [(u64, u64); 3],
    /// ns-3's "zero value", the filter's uninitialised value (`update_ns3` only): the value
    /// it was built with ([`MaxFilter::seeded`]), else 0.
    zero: u64,
}

impl MaxFilter {
    /// A filter holding `value` at `t`.
    pub fn reset(t: u64, value: u64) -> MaxFilter {
        MaxFilter { s: [(t, value); 3], zero: 0 }
    }

    /// ns-3's filter built with `value` at `t` (`TcpBbr::InitPacingRate` builds BtlBw's with the
    /// initial rate): `value` is also its zero value, so [`update_ns3`](Self::update_ns3)
    /// replaces it by the first sample, whatever that is.
    pub fn seeded(t: u64, value: u64) -> MaxFilter {
        MaxFilter { s: [(t, value); 3], zero: value }
    }

    /// The maximum over the window.
    pub fn best(&self) -> u64 {
        self.s[0].1
    }

    /// Takes `value` measured at `t` (here a round count); samples older than `win` age out
    /// (Linux's `minmax_running_max`).
    pub fn update(&mut self, t: u64, value: u64, win: u64) {
        let val = (t, value);
        if value >= self.s[0].1 || t.saturating_sub(self.s[2].0) > win {
            *self = MaxFilter::reset(t, value);
            return;
        }
        if value >= self.s[1].1 {
            self.s[1] = val;
            self.s[2] = val;
        } else if value >= self.s[2].1 {
            self.s[2] = val;
        }
        // The best has aged out of the window: the second and third move up.
        let dt = t.saturating_sub(self.s[0].0);
        if dt > win {
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if t.saturating_sub(self.s[0].0) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            // A quarter of the window has passed with no second choice: take one.
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = val;
        }
    }
}

impl MaxFilter {
    /// [`update`](Self::update) as ns-3.44's `WindowedFilter::Update` does it. Two rules
    /// differ from Linux's: a best still equal to the zero value is replaced by any sample
    /// (the filter counts as empty), and the third-best is renewed once half a window has
    /// passed since the third-best itself was taken (Linux: since the best). The quarter-window
    /// rule compares values where Linux compares times, which comes to the same.
    pub fn update_ns3(&mut self, t: u64, value: u64, win: u64) {
        let val = (t, value);
        let s = &mut self.s;
        if s[0].1 == self.zero || value >= s[0].1 || t.saturating_sub(s[2].0) > win {
            *s = [val; 3];
            return;
        }
        if value >= s[1].1 {
            s[1] = val;
            s[2] = val;
        } else if value >= s[2].1 {
            s[2] = val;
        }
        if t.saturating_sub(s[0].0) > win {
            s[0] = s[1];
            s[1] = s[2];
            s[2] = val;
            if t.saturating_sub(s[0].0) > win {
                s[0] = s[1];
                s[1] = s[2];
            }
        } else if s[1].1 == s[0].1 && t.saturating_sub(s[1].0) > win / 4 {
            s[1] = val;
            s[2] = val;
        } else if s[2].1 == s[1].1 && t.saturating_sub(s[2].0) > win / 2 {
            s[2] = val;
        }
    }
}

/// The minimum RTT over a time window, with the time it was taken (BBR's RTprop filter: a
/// single value and its stamp, replaced when a sample is at least as low or the window expired).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MinRtt {
    pub value: Option<Dur>,
    pub stamp: Time,
}

impl MinRtt {
    /// Whether the value is older than `win` at `now`.
    pub fn expired(&self, now: Time, win: Dur) -> bool {
        now > self.stamp + win
    }

    /// Takes `rtt` if it is at least as low as the value, or `expired`. Returns whether it did.
    pub fn update(&mut self, rtt: Dur, expired: bool, now: Time) -> bool {
        if rtt > Dur::ZERO && (self.value.is_none_or(|v| rtt <= v) || expired) {
            self.value = Some(rtt);
            self.stamp = now;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // tests the windowed max over 10 rounds: a peak of 100 at round 0 holds through round 10
    // and ages out at round 11 (11 − 0 > 10), when the best of the later samples (80, taken at
    // round 3 and kept as second-best) takes over; that ages out at round 14 and the newest
    // (50) remains.
    #[test]
    fn max_filter_holds_the_peak_for_its_window_then_forgets_it() {
        let mut f = MaxFilter::reset(0, 100);
        f.update(3, 80, 10);
        for r in 4..=10 {
            f.update(r, 50, 10);
            assert_eq!(f.best(), 100, "round {r}");
        }
        f.update(11, 50, 10);
        assert_eq!(f.best(), 80);
        for r in 12..=13 {
            f.update(r, 50, 10);
        }
        assert_eq!(f.best(), 80, "80 from round 3 holds to round 13");
        f.update(14, 50, 10);
        assert_eq!(f.best(), 50);
        // A new maximum replaces everything at once.
        f.update(15, 120, 10);
        assert_eq!(f.best(), 120);
    }

    // tests ns-3's filter (`WindowedFilter::Update`, window 10 rounds) where it parts from
    // Linux's, each sequence worked by hand:
    //   a) built with 100 at round 0 (`TcpBbr` builds BtlBw's with its initial rate, also the
    //      filter's zero value): 30 at round 1 replaces it, as the filter counts as empty;
    //      Linux's keeps 100 until round 11. Whenever the best equals the zero value again
    //      (100 at round 2), the next sample (40 at round 3) replaces it too.
    //   b) from [(0, 100), (3, 80), (3, 80)] (80 at round 3, a quarter window after the best:
    //      second and third in both), 75 at round 6 becomes third in Linux's (6 − 0 > 10/2
    //      since the best) but not in ns-3's (6 − 3 = 3, not > 5, since the third itself);
    //      70 at round 9 becomes ns-3's third (9 − 3 > 5), not Linux's (its third is 6's 75,
    //      with times of its own). At round 14 rounds 0 and 3 have aged out: Linux's best is
    //      75, ns-3's 70.
    #[test]
    fn ns3_filter_replaces_its_seed_and_renews_the_third_choice_from_its_own_time() {
        // a)
        let mut ns3 = MaxFilter::seeded(0, 100);
        let mut linux = MaxFilter::seeded(0, 100);
        ns3.update_ns3(1, 30, 10);
        linux.update(1, 30, 10);
        assert_eq!((ns3.best(), linux.best()), (30, 100));
        ns3.update_ns3(2, 100, 10);
        ns3.update_ns3(3, 40, 10);
        assert_eq!(ns3.best(), 40, "a best equal to the zero value counts as empty");
        let mut once = MaxFilter::reset(0, 100);
        once.update_ns3(1, 30, 10);
        assert_eq!(once.best(), 100, "a filter built by reset has zero value 0");
        // b)
        let (mut ns3, mut linux) = (MaxFilter::reset(0, 100), MaxFilter::reset(0, 100));
        ns3.update_ns3(3, 80, 10);
        linux.update(3, 80, 10);
        assert_eq!(ns3.s, [(0, 100), (3, 80), (3, 80)]);
        assert_eq!(linux.s, ns3.s);
        ns3.update_ns3(6, 75, 10);
        linux.update(6, 75, 10);
        assert_eq!(ns3.s, [(0, 100), (3, 80), (3, 80)]);
        assert_eq!(linux.s, [(0, 100), (3, 80), (6, 75)]);
        ns3.update_ns3(9, 70, 10);
        linux.update(9, 70, 10);
        assert_eq!(ns3.s, [(0, 100), (3, 80), (9, 70)]);
        assert_eq!(linux.s, [(0, 100), (3, 80), (6, 75)]);
        ns3.update_ns3(14, 10, 10);
        linux.update(14, 10, 10);
        assert_eq!((ns3.best(), linux.best()), (70, 75));
    }

    // tests that ns-3's filter keeps Linux's other rules: the edges of
    // `max_filter_window_edges` (below) give the same bests under `update_ns3`.
    #[test]
    fn ns3_filter_ages_out_like_linux_elsewhere() {
        for (t, v) in [(17, 20), (18, 20), (13, 5), (11, 10)] {
            let (mut a, mut b) = (three_choices(), three_choices());
            a.update(t, v, 10);
            b.update_ns3(t, v, 10);
            assert_eq!(a.best(), b.best(), "{v} at round {t}");
        }
        let mut f = MaxFilter::reset(0, 100);
        for (t, v) in [(3, 80), (11, 50), (12, 50), (13, 50), (14, 50), (15, 120)] {
            f.update_ns3(t, v, 10);
        }
        assert_eq!(f.best(), 120);
        let mut f = MaxFilter::reset(0, 100);
        f.update_ns3(3, 80, 10);
        f.update_ns3(11, 50, 10);
        assert_eq!(f.best(), 80, "the peak of round 0 ages out at round 11");
    }

    /// A filter built by updates over a 10-round window: `[(0, 100), (3, 80), (7, 75)]`
    /// (best, second, third). reset(0, 100); at round 3, 80 is below every slot (all hold
    /// 100) but a quarter window (3 > 10/4) has passed with no second choice, so it becomes
    /// second and third; at round 7, 75 ≥ the third (80)? no, but 7 > 10/2 with third = second,
    /// so it becomes third.
    fn three_choices() -> MaxFilter {
        let mut f = MaxFilter::reset(0, 100);
        f.update(3, 80, 10);
        assert_eq!(f.s, [(0, 100), (3, 80), (3, 80)]);
        f.update(7, 75, 10);
        assert_eq!(f.s, [(0, 100), (3, 80), (7, 75)]);
        f
    }

    // tests the windowed max's edges (Linux `minmax_running_max`, window 10 rounds), each by
    // where a later update lands:
    //   a) every slot older than the window (17 − 7 = 10 > 10? no; at 18, 11 > 10): the
    //      filter restarts at the new value, 20; one round earlier (17) the window still holds
    //      the third choice: the best (0) and second (3) age out in two shifts and 75 remains;
    //   b) a value between the second and third choices (78, round 8) replaces the third:
    //      at round 14 the best (0) and the second (3: 14 − 3 = 11 > 10) age out and 78 is best;
    //   c) after the first shift the new best (round 3) ages out only past the window: at round
    //      13, 13 − 3 = 10 is not past it, so 80 is best;
    //   d) a second choice is taken only once more than a quarter window has passed: at round
    //      2 (2 > 10/4 = 2? no) 80 is not kept, so at round 11 every slot (round 0) is old and
    //      the filter restarts at 10; with an 8-round window a quarter is also 2;
    //   e) a third choice is taken when the second has none of its own (third = second) and
    //      more than half a window has passed: 50 at round 6 (6 > 5) is kept and is best at
    //      round 14 once rounds 0 and 3 aged out; 50 at round 5 (not > 5) is not, and at round
    //      14 the filter restarts (14 − 3 > 10); with a third of its own (round 7), 10 at
    //      round 8 is not taken, and 75 is best at round 14.
    #[test]
    fn max_filter_window_edges() {
        // a)
        let mut f = three_choices();
        f.update(17, 20, 10);
        assert_eq!(f.best(), 75, "round 7 is still inside the window at round 17");
        let mut f = three_choices();
        f.update(18, 20, 10);
        assert_eq!(f.s, [(18, 20); 3], "nothing left in the window at round 18");
        // b)
        let mut f = three_choices();
        f.update(8, 78, 10);
        assert_eq!(f.s[2], (8, 78));
        f.update(14, 10, 10);
        assert_eq!(f.best(), 78);
        // c)
        let mut f = three_choices();
        f.update(13, 10, 10);
        assert_eq!(f.s, [(3, 80), (7, 75), (13, 10)]);
        // d)
        let mut f = MaxFilter::reset(0, 100);
        f.update(2, 80, 10);
        assert_eq!(f.s, [(0, 100); 3]);
        f.update(11, 10, 10);
        assert_eq!(f.best(), 10);
        let mut f = MaxFilter::reset(0, 100);
        f.update(1, 80, 8);
        assert_eq!(f.s, [(0, 100); 3], "1 round is not past 8/4 = 2");
        f.update(3, 80, 8);
        assert_eq!(f.s, [(0, 100), (3, 80), (3, 80)]);
        // e)
        let mut f = MaxFilter::reset(0, 100);
        f.update(3, 80, 10);
        f.update(6, 50, 10);
        assert_eq!(f.s, [(0, 100), (3, 80), (6, 50)]);
        f.update(14, 10, 10);
        assert_eq!(f.best(), 50);
        let mut f = MaxFilter::reset(0, 100);
        f.update(3, 80, 10);
        f.update(5, 50, 10);
        assert_eq!(f.s, [(0, 100), (3, 80), (3, 80)]);
        f.update(14, 10, 10);
        assert_eq!(f.s, [(14, 10); 3]);
        let mut f = three_choices();
        f.update(8, 10, 10);
        assert_eq!(f.s, [(0, 100), (3, 80), (7, 75)]);
    }

    // tests the RTprop filter's edges: at exactly stamp + 10 s the value has not expired (the
    // draft: `now > rtprop_stamp + RTpropFilterLen`); a zero RTT is never a sample.
    #[test]
    fn min_rtt_expires_only_past_its_window_and_ignores_a_zero_rtt() {
        let mut m = MinRtt {
            value: Some(Dur::from_millis(40)),
            stamp: Time(1_000),
        };
        assert!(!m.expired(Time(10_000_001_000), Dur::from_secs(10)));
        assert!(m.expired(Time(10_000_001_001), Dur::from_secs(10)));
        assert!(!m.update(Dur::ZERO, true, Time(10_000_001_001)));
        assert_eq!((m.value, m.stamp), (Some(Dur::from_millis(40)), Time(1_000)));
    }

    // tests the RTprop filter: a higher sample is ignored until the 10-s window expires, then
    // taken (the path's delay may have grown); a lower one is always taken.
    #[test]
    fn min_rtt_takes_lower_samples_and_any_once_expired() {
        let ms = Dur::from_millis;
        let mut m = MinRtt {
            value: Some(ms(40)),
            stamp: Time(0),
        };
        assert!(!m.update(
            ms(50),
            m.expired(Time(5_000_000_000), Dur::from_secs(10)),
            Time(5_000_000_000)
        ));
        assert_eq!(m.value, Some(ms(40)));
        let t = Time(10_000_000_001);
        assert!(m.expired(t, Dur::from_secs(10)));
        assert!(m.update(ms(50), true, t));
        assert_eq!((m.value, m.stamp), (Some(ms(50)), t));
        assert!(m.update(ms(30), false, t));
        assert_eq!(m.value, Some(ms(30)));
    }
}
