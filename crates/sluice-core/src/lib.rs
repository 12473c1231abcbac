//! # sluice-core
//!
//! The pure algorithm core of Sluice: no I/O, no clock of its own, no global state. Time and
//! randomness arrive as arguments, so the same code runs in the simulator and in the gateway.
//!
//! | module | what it holds |
//! |---|---|
//! | [`time`] | [`Time`] and [`Dur`] (integer ns), [`Rate`] (bit/s), exact serialization time |
//! | [`units`] | strict parsing of `"100Mbps"`, `"2ms"`, `"900pkt"`, `"5MB"` |
//! | [`seq`] | TCP sequence arithmetic and window scaling (RFC 7323) |
//! | [`rng`] | seeded, portable random streams keyed by stable names |
//! | [`loss`] | random (Bernoulli, Gilbert–Elliott) and scripted packet loss on a link direction |
//! | [`packet`] | the header view both datapaths implement; checksums (RFC 1071/1624) |
//! | [`qdisc`] | the queue-discipline trait, its statistics wrapper, drop-tail |
//! | [`flows`] | the gateway's flow table: handshake, window scale, RTT, counts; the UDP rate |
//! | `tables` | (feature `toml`) the `{ kind = ... }` tables of a configuration, as scenarios and the gateway read them |
//! | [`control`] | network-return controllers (EWT, EWA, AWM, SAP-LAW, PINK, RWM) and their hook |
#![forbid(unsafe_code)]

pub mod control;
pub mod flows;
pub mod loss;
pub mod packet;
pub mod qdisc;
pub mod rng;
pub mod seq;
#[cfg(feature = "toml")]
pub mod tables;
pub mod time;
pub mod units;

pub use time::{Dur, Rate, Time};
