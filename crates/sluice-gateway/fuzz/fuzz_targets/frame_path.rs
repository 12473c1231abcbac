//! The gateway's frame path on arbitrary input: bytes → configuration and frames →
//! `Gateway::on_frame` (parse, flow table, controller hooks, queue) → `Gateway::poll` (dequeue,
//! rewrite, shaper, delay line) → frames out, checked by `sluice_gateway::fuzzing::check`
//! (input layout and properties in that module's documentation). The same body runs as a
//! proptest in `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    sluice_gateway::fuzzing::check(data);
});
