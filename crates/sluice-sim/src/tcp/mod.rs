//! The simulated TCP endpoint: one implementation shared by every congestion control.
//!
//! Sans-IO: [`Endpoint`] never reads a clock and never touches the network. The engine hands it
//! segments and wake-ups with the current time and collects the segments it emits from an
//! outbox; the endpoint reports when it next needs waking ([`Endpoint::poll_at`]).
//!
//! | file | concern |
//! |---|---|
//! | `config.rs` | options, with the RFC / Linux / ns-3 variants named (docs/tcp.md) |
//! | `endpoint.rs` | connection state, handshake (RFC 9293 §3.5, options of RFC 7323 / RFC 2018), segment construction, timers |
//! | `sender.rs` | ACK processing, window update, duplicate ACKs, NewReno / SACK / PRR recovery, RTO |
//! | `receiver.rs` | reassembly, SACK blocks, delayed ACK, ECN echo, timestamps |
//! | `scoreboard.rs` | outstanding segments with SACK / lost / retransmitted marks, RFC 6675 pipe |
//! | `delayed_ack.rs` | Linux's delayed-ACK engine (quick-ACK mode, adaptive ATO) for `delack = "linux"` |
//! | `rate.rs` | delivery-rate sampling (send-time stamps, per-ACK samples) for BBR |
//! | `ngwa.rs` | NGWA's endpoint half: option 33 read, smoothed and advertised, MSS lowered by its size |
//! | `rtt.rs` | RTO estimators (RFC 6298, Linux, ns-3 legacy, RFC 793) with backoff |
//! | `acns.rs` | ACNS's endpoint half: handshake, marking, the receiver's echo, commands and the trend rule (docs/tcp.md, "ACNS endpoint") |
//! | `cc/` | congestion controls (`new_reno` with Reno and Tahoe, `cubic`, `vegas`, `compound`, `bbr`, `none`) behind one trait |
//!
//! Stream positions are 64-bit offsets from the initial sequence number (the SYN is offset 0,
//! data starts at 1); only segment construction and parsing convert to 32-bit wire numbers.

pub mod acns;
pub mod cc;
pub mod config;
pub mod delayed_ack;
mod endpoint;
pub mod ngwa;
mod receiver;
pub mod rate;
pub mod rtt;
pub mod scoreboard;
mod sender;

pub use config::*;
pub use endpoint::{ConnState, Endpoint, SockAddr, TcpCounters};
pub use ngwa::{NgwaFloor, NgwaMode, NgwaSmoothAt, NgwaTcp};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_acns;
#[cfg(test)]
mod tests_cc;
#[cfg(test)]
mod tests_ecn;
#[cfg(test)]
mod tests_ngwa;
#[cfg(test)]
mod tests_prr;
#[cfg(test)]
mod tests_receiver;
#[cfg(test)]
mod tests_recovery;
#[cfg(test)]
mod tests_send;
#[cfg(test)]
mod tests_timeouts;
