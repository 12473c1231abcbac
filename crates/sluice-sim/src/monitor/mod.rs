//! Measurement: statistics, traces, pcap files, the summary.
//!
//! Statistics cover the measurement window `[warmup, duration)`: counters are snapshotted when
//! the warm-up ends (`collect::snapshot`) and subtracted at the end.
pub mod collect;
pub mod pcap;
pub mod summary;
