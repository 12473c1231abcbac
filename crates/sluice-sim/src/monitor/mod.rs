//! Measurement: statistics, traces, pcap files, the summary.
pub mod summary;
