//! Simulated time: integer nanoseconds, never floats on the clock.
//!
//! [`Time`] is an instant since the start of a run, [`Dur`] a span, [`Rate`] a link or pacing
//! rate in bit/s. Serialization time is exact to the byte: [`Rate::tx_time`] rounds the exact
//! rational `bytes · 8 · 10⁹ / rate` to the nearest nanosecond (ties up), once per packet.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant, in nanoseconds since the start of the run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of time, in nanoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

/// A rate in bits per second.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);
    pub fn from_secs_f64(s: f64) -> Time {
        Time((s * 1e9).round() as u64)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// `self − earlier`, saturating at zero.
    pub fn since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const fn from_nanos(ns: u64) -> Dur {
        Dur(ns)
    }
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * 1_000_000_000)
    }
    pub fn from_secs_f64(s: f64) -> Dur {
        Dur((s * 1e9).round() as u64)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn saturating_mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
}

impl Rate {
    pub const fn bps(b: u64) -> Rate {
        Rate(b)
    }
    pub const fn mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    pub fn as_bps(self) -> u64 {
        self.0
    }
    /// Time to serialize `bytes` at this rate, rounded to the nearest nanosecond.
    /// A zero rate is "infinitely fast" (zero time), used for ideal links.
    #[inline]
    pub fn tx_time(self, bytes: u64) -> Dur {
        if self.0 == 0 {
            return Dur::ZERO;
        }
        // Common rates (10/100 Mbit/s, 1 Gbit/s, ...) divide 8·10⁹: a whole number of ns per byte.
        if 8_000_000_000u64.is_multiple_of(self.0) {
            return Dur(bytes * (8_000_000_000 / self.0));
        }
        let r = self.0;
        if bytes < (1 << 24) {
            // bytes·8·10⁹ < 2⁵⁷ and r/2 < 2⁶³: fits in 64 bits, so no 128-bit division on the
            // hot path.
            let num = bytes * 8_000_000_000;
            return Dur((num + r / 2) / r);
        }
        let num = bytes as u128 * 8 * 1_000_000_000;
        let r = r as u128;
        Dur(((num + r / 2) / r) as u64)
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    #[inline]
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    #[inline]
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0)
    }
}
impl Sub<Time> for Time {
    type Output = Dur;
    #[inline]
    fn sub(self, o: Time) -> Dur {
        debug_assert!(self.0 >= o.0, "time went backwards: {} - {}", self.0, o.0);
        Dur(self.0 - o.0)
    }
}
impl Add for Dur {
    type Output = Dur;
    #[inline]
    fn add(self, d: Dur) -> Dur {
        Dur(self.0.saturating_add(d.0))
    }
}
impl Sub for Dur {
    type Output = Dur;
    #[inline]
    fn sub(self, d: Dur) -> Dur {
        Dur(self.0.saturating_sub(d.0))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::units::fmt_duration(*self, f)
    }
}
impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::units::fmt_rate(*self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_is_exact_to_the_byte() {
        // 1500-byte IP packet + 2-byte PPP header at 100 Mbit/s: 1502·8/1e8 s = 120.16 µs.
        assert_eq!(Rate::mbps(100).tx_time(1502), Dur(120_160));
        assert_eq!(Rate::mbps(10).tx_time(1502), Dur(1_201_600));
        assert_eq!(Rate::mbps(1000).tx_time(1502), Dur(12_016));
        // 1 byte at 3 bit/s = 8/3 s, rounded to the nearest ns.
        assert_eq!(Rate::bps(3).tx_time(1), Dur(2_666_666_667));
        assert_eq!(Rate::bps(0).tx_time(1500), Dur::ZERO);
    }
}
