//! # sluice-gateway
//!
//! Sluice's Linux gateway: the queue disciplines and network-return controllers of
//! `sluice-core` on live traffic. Two interfaces without IP addresses, frames read through
//! AF_PACKET receive rings (TPACKET_V2 by default, or TPACKET_V3) and sent with `send`, a single-threaded loop.
//!
//! | module | what it holds |
//! |---|---|
//! | [`config`] | the TOML configuration (the scenarios' queue and controller tables) |
//! | [`datapath`] | the forwarding engine: queue, controller hooks, shaper, delay line per direction |
//! | [`emulation`] | the rate shaper (virtual clock) and the delay line |
//! | [`packet`] | frame buffers, the queued handle, checksum completion and CE |
//! | [`fuzzing`] | the frame path without sockets, checked (the fuzz target's and a proptest's body) |
//! | [`metrics`] | Prometheus text, the JSON-lines event log |
//! | [`run`] | the loop that ties the rings, the engine and the clock together |
//! | [`sys`] | the only unsafe code: AF_PACKET, mmap, ppoll, capabilities |
//!
//! Depends on `sluice-core` only (never on the simulator). docs/gateway.md is the user's guide.
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod config;
pub mod datapath;
pub mod emulation;
pub mod error;
pub mod fuzzing;
pub mod metrics;
pub mod packet;
pub mod run;
pub mod sys;

pub use config::Config;
pub use error::GatewayError;
