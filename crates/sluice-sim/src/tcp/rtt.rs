//! Retransmission timer estimator (RFC 6298, spec §2.3).

use sluice_core::Dur;

/// SRTT / RTTVAR / RTO with exponential backoff.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Option<Dur>,
    pub rttvar: Dur,
    /// Smallest RTT sample seen.
    pub min_rtt: Option<Dur>,
    /// RTO before backoff.
    base_rto: Dur,
    /// Backoff multiplier (1, 2, 4, …).
    backoff: u64,
    min_rto: Dur,
    max_rto: Dur,
    granularity: Dur,
}

impl RttEstimator {
    pub fn new(initial_rto: Dur, min_rto: Dur, max_rto: Dur, granularity: Dur) -> Self {
        RttEstimator { srtt: None, rttvar: Dur::ZERO, min_rtt: None, base_rto: initial_rto, backoff: 1, min_rto, max_rto, granularity }
    }

    /// RFC 6298 §2.2–2.3: fold in a sample `r`. A new sample collapses any backoff (§5.7 note in
    /// spec §2.3).
    pub fn sample(&mut self, r: Dur) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Dur(r.0 / 2);
            }
            Some(srtt) => {
                // RTTVAR <- (1 - 1/4) RTTVAR + 1/4 |SRTT - R|, then SRTT <- (1 - 1/8) SRTT + 1/8 R.
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = Dur((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Dur((7 * srtt.0 + r.0) / 8));
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        let srtt = self.srtt.unwrap_or(r);
        let var = (4 * self.rttvar.0).max(self.granularity.0);
        self.base_rto = Dur(srtt.0 + var);
        self.backoff = 1;
    }

    /// The RTO in force: base RTO clamped to [min_rto, max_rto], times the backoff, at most max.
    pub fn rto(&self) -> Dur {
        let base = self.base_rto.0.clamp(self.min_rto.0, self.max_rto.0);
        Dur(base.saturating_mul(self.backoff).min(self.max_rto.0))
    }

    /// Unclamped RTO (for tests and traces).
    pub fn raw_rto(&self) -> Dur {
        self.base_rto
    }

    /// RFC 6298 §5.5: double the RTO on expiry.
    pub fn back_off(&mut self) {
        if self.rto().0 < self.max_rto.0 {
            self.backoff = self.backoff.saturating_mul(2);
        }
    }

    /// RFC 6298 §5.7: after a retransmitted SYN, RTO is at least 3 s once data starts.
    pub fn at_least(&mut self, d: Dur) {
        if self.base_rto < d {
            self.base_rto = d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // tests spec §2.3 worked example (RFC 6298 §2.2-2.3): 100 ms then 120 ms.
    #[test]
    fn rfc6298_worked_example() {
        let mut e = RttEstimator::new(Dur::from_secs(1), Dur::from_secs(1), Dur::from_secs(60), Dur::from_millis(1));
        assert_eq!(e.rto(), Dur::from_secs(1)); // before any sample
        e.sample(Dur::from_millis(100));
        assert_eq!(e.raw_rto(), Dur::from_millis(300));
        assert_eq!(e.rto(), Dur::from_secs(1)); // raised to the 1 s floor
        e.sample(Dur::from_millis(120));
        assert_eq!(e.rttvar, Dur::from_micros(42_500));
        assert_eq!(e.srtt, Some(Dur::from_micros(102_500)));
        assert_eq!(e.raw_rto(), Dur::from_micros(272_500));
    }

    // tests RFC 6298 §5.5: the timer doubles on each expiry, capped at the maximum; a sample resets.
    #[test]
    fn backoff_doubles_and_caps() {
        let mut e = RttEstimator::new(Dur::from_secs(1), Dur::from_millis(200), Dur::from_secs(60), Dur::from_millis(1));
        e.sample(Dur::from_millis(100));
        assert_eq!(e.rto(), Dur::from_millis(300));
        e.back_off();
        assert_eq!(e.rto(), Dur::from_millis(600));
        e.back_off();
        assert_eq!(e.rto(), Dur::from_millis(1200));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), Dur::from_secs(60));
        e.sample(Dur::from_millis(100));
        assert!(e.rto() < Dur::from_secs(1));
    }
}
