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
