//! BBR's model filters: the windowed maximum of the delivery rate over rounds (BtlBw) and the
//! minimum RTT over time (RTprop).

use sluice_core::{Dur, Time};

/// A windowed running maximum kept in three samples (Kathleen Nichols' algorithm, as Linux's
/// `lib/win_minmax.c` and ns-3's `WindowedFilter`): the best, second-best and third-best values
/// of the window's thirds, so the maximum ages out without keeping every sample.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MaxFilter {
    /// `(time, value)`, best first.
    s: [(u64, u64); 3],
}

impl MaxFilter {
    /// A filter holding `value` at `t`.
    pub fn reset(t: u64, value: u64) -> MaxFilter {
        MaxFilter { s: [(t, value); 3] }
    }

    /// The maximum over the window.
    pub fn best(&self) -> u64 {
        self.s[0].1
    }

    /// Takes `value` measured at `t` (here a round count); samples older than `win` age out.
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
