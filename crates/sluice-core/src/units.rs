//! Human-readable quantities, as scenario files write them: `"100Mbps"`, `"2ms"`, `"900pkt"`, `"5MB"`.
//!
//! Parsing is strict: a number followed by one of the listed units, no spaces inside, no negative
//! values. Errors are one line and list the units allowed, so the scenario layer can prefix the
//! field path. Decimal prefixes are powers of ten (`MB` = 10⁶ B, `Mbps` = 10⁶ bit/s); binary
//! prefixes are spelt `KiB`, `MiB`, `GiB`.

use crate::time::{Dur, Rate};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A size in bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ByteSize(pub u64);

/// A queue limit: in packets or in bytes (never ambiguous).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == '-' || *c == '+'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    let v: f64 = num.parse().ok()?;
    Some((v, unit))
}

fn number_and_unit<'a>(s: &'a str, what: &str, units: &str) -> Result<(f64, &'a str), String> {
    let (v, unit) = split_number(s).ok_or_else(|| format!("expected {what} like {units}, got {s:?}"))?;
    if !v.is_finite() {
        return Err(format!("expected {what} like {units}, got {s:?}"));
    }
    if v < 0.0 {
        return Err(format!("{what} must not be negative, got {s:?}"));
    }
    Ok((v, unit))
}

/// `v · scale` rounded to a whole number, or an error when that does not fit in 64 bits (a
/// saturated value would silently stand for something the file does not say).
fn whole(v: f64, scale: f64, s: &str, what: &str, max: &str) -> Result<u64, String> {
    let x = (v * scale).round();
    if x >= u64::MAX as f64 {
        return Err(format!("{what} {s:?} is too large (at most {max})"));
    }
    Ok(x as u64)
}

/// Parse a duration: `ns`, `us` (or `µs`), `ms`, `s`, `min`. At most 2⁶⁴ − 1 ns (584 years).
pub fn parse_duration(s: &str) -> Result<Dur, String> {
    const UNITS: &str = "\"2ms\", \"10us\", \"1.5s\" (units: ns, us, ms, s, min)";
    let (v, unit) = number_and_unit(s, "a duration", UNITS)?;
    let scale = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        _ => return Err(format!("expected a duration like {UNITS}, got {s:?}")),
    };
    whole(v, scale, s, "a duration", "18446744073s").map(Dur)
}

/// Parse a rate: `bps`, `kbps` (or `Kbps`), `Mbps`, `Gbps` (bits per second, decimal prefixes).
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    const UNITS: &str = "\"100Mbps\", \"1Gbps\", \"64kbps\" (units: bps, kbps, Mbps, Gbps)";
    let (v, unit) = number_and_unit(s, "a rate", UNITS)?;
    let scale = match unit {
        "bps" => 1.0,
        "kbps" | "Kbps" => 1e3,
        "Mbps" => 1e6,
        "Gbps" => 1e9,
        _ => return Err(format!("expected a rate like {UNITS}, got {s:?}")),
    };
    whole(v, scale, s, "a rate", "18446744073Gbps").map(Rate)
}

/// Parse a size: `B`, `kB`, `MB`, `GB` (decimal), `KiB`, `MiB`, `GiB` (binary). `KB` is refused:
/// it means 1000 B to some readers and 1024 B to others.
pub fn parse_size(s: &str) -> Result<ByteSize, String> {
    const UNITS: &str = "\"1500B\", \"64KiB\", \"5MB\" (units: B, kB, MB, GB, KiB, MiB, GiB)";
    let (v, unit) = number_and_unit(s, "a size", UNITS)?;
    let scale = match unit {
        "B" => 1.0,
        "kB" => 1e3,
        "KB" => return Err(format!("{s:?} is ambiguous: write kB (1000 B) or KiB (1024 B)")),
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(format!("expected a size like {UNITS}, got {s:?}")),
    };
    whole(v, scale, s, "a size", "18446744073GB").map(ByteSize)
}

/// Parse a queue limit: `"900pkt"` (or `"900p"`, `"900pkts"`) or a size (`"1500000B"`, `"1.5MB"`).
pub fn parse_queue_limit(s: &str) -> Result<QueueLimit, String> {
    const UNITS: &str = "\"900pkt\" or \"1500000B\" (units: pkt, or a size unit B, kB, MB, KiB, MiB)";
    let (v, unit) = number_and_unit(s, "a queue limit", UNITS)?;
    match unit {
        "pkt" | "p" | "pkts" => {
            if v.fract() != 0.0 || v > u32::MAX as f64 {
                return Err(format!("a packet limit must be a whole number, got {s:?}"));
            }
            Ok(QueueLimit::Packets(v as u32))
        }
        _ => parse_size(s).map(|b| QueueLimit::Bytes(b.0)).map_err(|e| {
            if e.contains("ambiguous") || e.contains("too large") {
                e
            } else {
                format!("expected a queue limit like {UNITS}, got {s:?}")
            }
        }),
    }
}

pub(crate) fn fmt_duration(d: Dur, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let ns = d.0;
    if ns.is_multiple_of(1_000_000_000) {
        write!(f, "{}s", ns / 1_000_000_000)
    } else if ns.is_multiple_of(1_000_000) {
        write!(f, "{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1_000) {
        write!(f, "{}us", ns / 1_000)
    } else {
        write!(f, "{ns}ns")
    }
}

pub(crate) fn fmt_rate(r: Rate, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let b = r.0;
    if b != 0 && b.is_multiple_of(1_000_000_000) {
        write!(f, "{}Gbps", b / 1_000_000_000)
    } else if b != 0 && b.is_multiple_of(1_000_000) {
        write!(f, "{}Mbps", b / 1_000_000)
    } else if b != 0 && b.is_multiple_of(1_000) {
        write!(f, "{}kbps", b / 1_000)
    } else {
        write!(f, "{b}bps")
    }
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}
impl fmt::Display for QueueLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueLimit::Packets(p) => write!(f, "{p}pkt"),
            QueueLimit::Bytes(b) => write!(f, "{b}B"),
        }
    }
}

macro_rules! string_serde {
    ($ty:ty, $parse:path, $expect:literal) => {
        impl FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                $parse(s)
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expect)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        $parse(s).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        if v == 0 {
                            $parse("0B").or_else(|_| $parse("0s")).or_else(|_| $parse("0bps")).map_err(E::custom)
                        } else {
                            Err(E::custom(format!(concat!("missing unit: write ", $expect, ", got {}"), v)))
                        }
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        self.visit_i64(v as i64)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        Err(E::custom(format!(concat!("missing unit: write ", $expect, ", got {}"), v)))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

string_serde!(Dur, parse_duration, "a duration string such as \"2ms\"");
string_serde!(Rate, parse_rate, "a rate string such as \"100Mbps\"");
string_serde!(ByteSize, parse_size, "a size string such as \"5MB\"");
string_serde!(QueueLimit, parse_queue_limit, "a queue limit such as \"900pkt\"");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_units_scenarios_use() {
        assert_eq!(parse_rate("100Mbps").unwrap(), Rate(100_000_000));
        assert_eq!(parse_rate("1Gbps").unwrap(), Rate(1_000_000_000));
        assert_eq!(parse_rate("1.5Mbps").unwrap(), Rate(1_500_000));
        assert_eq!(parse_duration("2ms").unwrap(), Dur(2_000_000));
        assert_eq!(parse_duration("10us").unwrap(), Dur(10_000));
        assert_eq!(parse_duration("0.5s").unwrap(), Dur(500_000_000));
        assert_eq!(parse_queue_limit("900pkt").unwrap(), QueueLimit::Packets(900));
        assert_eq!(parse_queue_limit("1500000B").unwrap(), QueueLimit::Bytes(1_500_000));
        assert_eq!(parse_size("5MB").unwrap(), ByteSize(5_000_000));
        assert_eq!(parse_size("8MiB").unwrap(), ByteSize(8 * 1024 * 1024));
    }

    #[test]
    fn rejects_typos_negatives_and_missing_units() {
        assert!(parse_rate("100Mbs").unwrap_err().contains("Mbps"));
        assert!(parse_rate("-5Mbps").unwrap_err().contains("negative"));
        assert!(parse_duration("2").unwrap_err().contains("ms"));
        assert!(parse_queue_limit("5 packets").is_err());
        assert!(parse_queue_limit("1.5pkt").is_err());
        assert!(parse_size("abc").is_err());
    }

    #[test]
    fn refuses_values_that_do_not_fit_rather_than_saturating() {
        // 10¹⁴ s is 10²³ ns, beyond 64 bits: an error, not 584 years.
        assert!(parse_duration("99999999999999s").unwrap_err().contains("too large"));
        assert!(parse_rate("99999999999999999999Gbps").unwrap_err().contains("too large"));
        assert!(parse_size("99999999999GB").unwrap_err().contains("too large"));
        assert!(parse_queue_limit("99999999999GB").unwrap_err().contains("too large"));
        // The largest durations that fit still parse (to f64's 53 bits beyond 104 days).
        assert!(parse_duration("18446744073s").unwrap() > Dur(18_446_744_072_000_000_000));
        assert_eq!(parse_duration("1000000s").unwrap(), Dur(1_000_000_000_000_000));
    }

    #[test]
    fn ambiguous_kilobytes_are_refused_with_both_readings() {
        let e = parse_size("64KB").unwrap_err();
        assert!(e.contains("kB") && e.contains("KiB"), "{e}");
        assert!(parse_queue_limit("64KB").unwrap_err().contains("KiB"));
        assert_eq!(parse_size("64kB").unwrap(), ByteSize(64_000));
        // The documented aliases.
        assert_eq!(parse_rate("64Kbps").unwrap(), Rate(64_000));
        assert_eq!(parse_duration("10µs").unwrap(), Dur(10_000));
        assert_eq!(parse_queue_limit("9p").unwrap(), QueueLimit::Packets(9));
        assert_eq!(parse_queue_limit("9pkts").unwrap(), QueueLimit::Packets(9));
    }

    #[test]
    fn display_round_trips() {
        for s in ["100Mbps", "1Gbps", "64kbps"] {
            assert_eq!(parse_rate(s).unwrap().to_string(), s);
        }
        for s in ["2ms", "10us", "1s", "7ns"] {
            assert_eq!(parse_duration(s).unwrap().to_string(), s);
        }
    }
}
