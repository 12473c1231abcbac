//! Random and scripted packet loss on a link direction.
//!
//! A [`LossModel`] says which packets a link loses; a [`LossProcess`] is its running state, one
//! per link direction, stepped once per packet that crosses it with a random stream of its own
//! (handed in by the caller), so adding loss on one link changes no draw elsewhere.
//!
//! - [`LossModel::Bernoulli`]: each packet is lost independently with probability `p` (ns-3's
//!   `RateErrorModel` in packet units). One uniform draw per packet.
//! - [`LossModel::GilbertElliott`]: bursty loss from a two-state Markov chain (Gilbert 1960,
//!   Elliott 1963), stepped per packet. For each packet the chain first moves (good → bad with
//!   probability `p_gb`, bad → good with `p_bg`), then the packet is lost with the new state's
//!   loss probability (`loss_good` or `loss_bad`). The chain starts in the good state. One 64-bit
//!   draw per packet: its high 32 bits decide the move, its low 32 bits the loss. Stationary
//!   loss rate `(p_bg·loss_good + p_gb·loss_bad) / (p_gb + p_bg)`; with `loss_good = 0` and
//!   `loss_bad = 1` (Gilbert's model) the mean burst of consecutive losses is `1 / p_bg`
//!   packets.
//! - [`LossModel::List`]: the n-th packet crossing the link direction is lost, for each n in
//!   the list (counting from 1): a scripted loss pattern that two simulators can share exactly.
//!   With [`ListMatch::Data`] only TCP segments carrying payload are counted (and lost).
//!   No random draw.

/// Which packets a link direction loses.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LossModel {
    /// Independent loss with probability `p` per packet.
    Bernoulli { p: f64 },
    /// Two-state Markov chain stepped per packet (module docs).
    GilbertElliott { p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64 },
    /// The listed packets (1-based, ascending) among those `matching` counts.
    List { packets: Vec<u64>, matching: ListMatch },
}

/// Which packets a [`LossModel::List`] counts.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ListMatch {
    /// TCP segments with payload only.
    Data,
    /// Every packet.
    All,
}

/// A parameter of a loss model out of its range: the field's name and what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct LossParamError {
    pub field: &'static str,
    pub message: String,
}

fn probability(field: &'static str, v: f64, upper_inclusive: bool) -> Result<(), LossParamError> {
    let ok = if upper_inclusive { (0.0..=1.0).contains(&v) } else { (0.0..1.0).contains(&v) };
    if ok {
        Ok(())
    } else {
        let range = if upper_inclusive { "[0, 1]" } else { "[0, 1)" };
        Err(LossParamError { field, message: format!("must be in {range}, got {v}") })
    }
}

impl LossModel {
    /// No loss at all.
    pub const NONE: LossModel = LossModel::Bernoulli { p: 0.0 };

    /// Check the parameters. A link that loses every packet would carry nothing, so `p`,
    /// `loss_good` and the stationary loss rate stay below 1; `loss_bad` may be 1 (Gilbert's
    /// model), as long as the chain can leave the bad state.
    pub fn validate(&self) -> Result<(), LossParamError> {
        match self {
            LossModel::Bernoulli { p } => probability("p", *p, false),
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => {
                probability("p_gb", *p_gb, true)?;
                probability("p_bg", *p_bg, true)?;
                probability("loss_good", *loss_good, false)?;
                probability("loss_bad", *loss_bad, true)?;
                if *p_bg == 0.0 && *p_gb > 0.0 && *loss_bad >= 1.0 {
                    return Err(LossParamError { field: "p_bg", message: "must be above 0 when loss_bad is 1 (the chain would stay in the bad state and lose every packet)".into() });
                }
                Ok(())
            }
            LossModel::List { packets, .. } => {
                let ascending = packets.windows(2).all(|w| w[0] < w[1]);
                if packets.first() == Some(&0) || !ascending {
                    return Err(LossParamError { field: "packets", message: "must be ascending positive integers (the n-th packet, counting from 1)".into() });
                }
                Ok(())
            }
        }
    }

    /// Whether the model can never lose a packet (the engine then skips it entirely).
    pub fn is_lossless(&self) -> bool {
        match self {
            LossModel::Bernoulli { p } => *p <= 0.0,
            LossModel::GilbertElliott { p_gb, loss_good, loss_bad, .. } => *loss_good <= 0.0 && (*p_gb <= 0.0 || *loss_bad <= 0.0),
            LossModel::List { packets, .. } => packets.is_empty(),
        }
    }

    /// The long-run fraction of packets lost (for a list: undefined, `None`).
    pub fn stationary_loss(&self) -> Option<f64> {
        match *self {
            LossModel::Bernoulli { p } => Some(p),
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => {
                if p_gb + p_bg == 0.0 {
                    Some(loss_good) // never leaves the good state it starts in
                } else {
                    Some((p_bg * loss_good + p_gb * loss_bad) / (p_gb + p_bg))
                }
            }
            LossModel::List { .. } => None,
        }
    }
}

/// Below `p` as a fraction of 2^32: the 32-bit threshold of a Bernoulli trial.
fn threshold32(p: f64) -> u64 {
    (p * 4_294_967_296.0) as u64
}

/// The running state of a [`LossModel`] on one link direction.
#[derive(Clone, Debug)]
pub struct LossProcess {
    model: LossModel,
    /// Gilbert–Elliott: the chain is in the bad state.
    bad: bool,
    /// List: packets counted so far, and the index of the next listed one.
    counted: u64,
    next: usize,
}

impl LossProcess {
    pub fn new(model: LossModel) -> LossProcess {
        LossProcess { model, bad: false, counted: 0, next: 0 }
    }

    pub fn model(&self) -> &LossModel {
        &self.model
    }

    /// Whether the next packet crossing the link is lost. `is_data`: the packet is a TCP
    /// segment with payload (only [`ListMatch::Data`] looks at it). Call once per packet, in
    /// the order packets cross the link.
    #[inline]
    pub fn lose(&mut self, rng: &mut crate::rng::RngStream, is_data: bool) -> bool {
        match &self.model {
            LossModel::Bernoulli { p } => rng.chance(*p),
            &LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => {
                let r = rng.next_u64();
                let (hi, lo) = (r >> 32, r & 0xffff_ffff);
                let leave = if self.bad { p_bg } else { p_gb };
                if hi < threshold32(leave) {
                    self.bad = !self.bad;
                }
                let p = if self.bad { loss_bad } else { loss_good };
                p >= 1.0 || lo < threshold32(p)
            }
            LossModel::List { packets, matching } => {
                if *matching == ListMatch::Data && !is_data {
                    return false;
                }
                self.counted += 1;
                if packets.get(self.next) == Some(&self.counted) {
                    self.next += 1;
                    true
                } else {
                    false
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::RngStream;

    fn run(model: &LossModel, seed: u64, n: usize, data: impl Fn(usize) -> bool) -> Vec<bool> {
        let mut rng = RngStream::from_seed(seed);
        let mut p = LossProcess::new(model.clone());
        (0..n).map(|i| p.lose(&mut rng, data(i))).collect()
    }

    #[test]
    fn list_loses_exactly_the_listed_packets_counting_from_one() {
        let m = LossModel::List { packets: vec![1, 3, 4, 10], matching: ListMatch::All };
        let lost: Vec<usize> = run(&m, 1, 12, |_| true).iter().enumerate().filter(|(_, &l)| l).map(|(i, _)| i + 1).collect();
        assert_eq!(lost, vec![1, 3, 4, 10]);
    }

    #[test]
    fn list_with_data_match_counts_only_data_packets() {
        // Packets alternate pure ACK, data, ACK, data...: data packets are the 2nd, 4th, 6th...
        // crossing. Losing data packets 1 and 3 loses crossings 2 and 6; no ACK is lost.
        let m = LossModel::List { packets: vec![1, 3], matching: ListMatch::Data };
        let lost: Vec<usize> = run(&m, 1, 10, |i| i % 2 == 1).iter().enumerate().filter(|(_, &l)| l).map(|(i, _)| i + 1).collect();
        assert_eq!(lost, vec![2, 6]);
    }

    #[test]
    fn bernoulli_draws_one_number_per_packet() {
        // The process consumes exactly one draw per packet: after n packets the stream is where
        // n uniform draws leave it.
        let mut a = RngStream::from_seed(9);
        let mut b = RngStream::from_seed(9);
        let mut p = LossProcess::new(LossModel::Bernoulli { p: 0.3 });
        for _ in 0..100 {
            p.lose(&mut a, true);
            b.uniform();
        }
        assert_eq!(a.next_u64(), b.next_u64());
        let mut g = LossProcess::new(LossModel::GilbertElliott { p_gb: 0.1, p_bg: 0.3, loss_good: 0.01, loss_bad: 0.5 });
        let (mut a, mut b) = (RngStream::from_seed(3), RngStream::from_seed(3));
        for _ in 0..100 {
            g.lose(&mut a, true);
            b.next_u64();
        }
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn lossless_models_are_recognised() {
        assert!(LossModel::NONE.is_lossless());
        assert!(!LossModel::Bernoulli { p: 1e-9 }.is_lossless());
        assert!(LossModel::GilbertElliott { p_gb: 0.0, p_bg: 0.5, loss_good: 0.0, loss_bad: 1.0 }.is_lossless());
        assert!(!LossModel::GilbertElliott { p_gb: 0.1, p_bg: 0.5, loss_good: 0.0, loss_bad: 1.0 }.is_lossless());
        assert!(!LossModel::GilbertElliott { p_gb: 0.0, p_bg: 0.5, loss_good: 0.1, loss_bad: 0.0 }.is_lossless());
        assert!(LossModel::List { packets: vec![], matching: ListMatch::All }.is_lossless());
    }

    #[test]
    fn validate_names_the_field() {
        let e = LossModel::Bernoulli { p: 1.5 }.validate().unwrap_err();
        assert_eq!((e.field, e.message.as_str()), ("p", "must be in [0, 1), got 1.5"));
        assert_eq!(LossModel::Bernoulli { p: 1.0 }.validate().unwrap_err().field, "p");
        assert!(LossModel::Bernoulli { p: -0.1 }.validate().is_err());
        assert_eq!(LossModel::List { packets: vec![2, 2], matching: ListMatch::All }.validate().unwrap_err().field, "packets");
        assert_eq!(LossModel::List { packets: vec![0, 3], matching: ListMatch::All }.validate().unwrap_err().field, "packets");
        assert!(LossModel::List { packets: vec![1, 5, 9], matching: ListMatch::Data }.validate().is_ok());
        let ge = |p_gb, p_bg, lg, lb| LossModel::GilbertElliott { p_gb, p_bg, loss_good: lg, loss_bad: lb }.validate();
        assert!(ge(0.01, 0.3, 0.0, 1.0).is_ok());
        assert_eq!(ge(0.01, 0.0, 0.0, 1.0).unwrap_err().field, "p_bg");
        assert_eq!(ge(0.01, 0.3, 1.0, 1.0).unwrap_err().field, "loss_good");
        assert_eq!(ge(1.2, 0.3, 0.0, 1.0).unwrap_err().field, "p_gb");
        assert_eq!(ge(0.1, 0.3, 0.0, 1.1).unwrap_err().field, "loss_bad");
        // A chain that never leaves the good state may have a certain bad state.
        assert!(ge(0.0, 0.0, 0.1, 1.0).is_ok());
    }

    #[test]
    fn gilbert_elliott_stationary_rate_formula() {
        // p_gb 0.02, p_bg 0.25, loss 0.01 / 0.6: π_bad = 0.02 / 0.27; rate = (0.25·0.01 + 0.02·0.6) / 0.27.
        let m = LossModel::GilbertElliott { p_gb: 0.02, p_bg: 0.25, loss_good: 0.01, loss_bad: 0.6 };
        let want = (0.25 * 0.01 + 0.02 * 0.6) / 0.27;
        assert!((m.stationary_loss().unwrap() - want).abs() < 1e-15);
        // Equal rates out of each state: half the time in each, (0 + 0.5)/2 = 0.25. A chain that
        // cannot leave the bad state ends there: loss_bad. One that never moves: loss_good.
        let ge = |p_gb, p_bg, loss_good, loss_bad| LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad }.stationary_loss().unwrap();
        assert!((ge(0.1, 0.1, 0.0, 0.5) - 0.25).abs() < 1e-15);
        assert!((ge(0.1, 0.0, 0.05, 0.5) - 0.5).abs() < 1e-15);
        assert_eq!(ge(0.0, 0.0, 0.05, 0.5), 0.05);
    }

    /// Mean and standard error of the mean over per-seed values.
    fn mean_se(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
        (m, (var / n).sqrt())
    }

    /// Realised loss rate and mean length of runs of consecutive losses.
    fn rate_and_burst(lost: &[bool]) -> (f64, f64) {
        let losses = lost.iter().filter(|&&l| l).count();
        let bursts = lost.iter().enumerate().filter(|&(i, &l)| l && (i == 0 || !lost[i - 1])).count();
        (losses as f64 / lost.len() as f64, losses as f64 / bursts.max(1) as f64)
    }

    #[test]
    fn gilbert_realised_rate_and_burst_length_match_the_formulas() {
        // Gilbert's model (loss only in the bad state): rate π_bad = p_gb / (p_gb + p_bg),
        // mean burst 1 / p_bg. 30 independent streams of 200,000 packets; each figure within
        // two standard errors of its formula (the chain starts good: the transient is ~1/p_bg
        // packets, negligible here).
        let (p_gb, p_bg) = (0.01, 0.25);
        let m = LossModel::GilbertElliott { p_gb, p_bg, loss_good: 0.0, loss_bad: 1.0 };
        let (mut rates, mut bursts) = (Vec::new(), Vec::new());
        for seed in 0..30 {
            let (r, b) = rate_and_burst(&run(&m, 1000 + seed, 200_000, |_| true));
            rates.push(r);
            bursts.push(b);
        }
        let (r, r_se) = mean_se(&rates);
        let (b, b_se) = mean_se(&bursts);
        let want_r = p_gb / (p_gb + p_bg);
        assert!((r - want_r).abs() < 2.0 * r_se, "rate {r} ± {r_se}, formula {want_r}");
        assert!((b - 1.0 / p_bg).abs() < 2.0 * b_se, "burst {b} ± {b_se}, formula {}", 1.0 / p_bg);
        // And the bursts are real: far longer than independent loss at the same rate gives
        // (1 / (1 - rate) ≈ 1.04).
        assert!(b > 3.0);
    }

    #[test]
    fn gilbert_elliott_realised_rate_matches_the_formula() {
        let m = LossModel::GilbertElliott { p_gb: 0.02, p_bg: 0.2, loss_good: 0.005, loss_bad: 0.4 };
        let rates: Vec<f64> = (0..30).map(|s| rate_and_burst(&run(&m, 77 + s, 100_000, |_| true)).0).collect();
        let (r, se) = mean_se(&rates);
        let want = m.stationary_loss().unwrap();
        assert!((r - want).abs() < 2.0 * se, "rate {r} ± {se}, formula {want}");
    }

    #[test]
    fn bernoulli_realised_rate_matches_p() {
        let m = LossModel::Bernoulli { p: 0.02 };
        let rates: Vec<f64> = (0..30).map(|s| rate_and_burst(&run(&m, s, 50_000, |_| true)).0).collect();
        let (r, se) = mean_se(&rates);
        assert!((r - 0.02).abs() < 2.0 * se, "rate {r} ± {se}");
    }
}
