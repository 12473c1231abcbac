//! Whole-run behaviour that tells the congestion controls apart (docs/algorithms/): properties
//! of the algorithms, not numbers of one run.

use crate::common::summary_of;

/// Goodput of the two flows (b/s) and Jain's index, for `cc` on a 20 Mbit/s dumbbell with a
/// 100-packet drop-tail buffer, the flows' base RTTs 20 ms and 80 ms (sender access delays 4
/// and 34 ms, receivers 1 ms, bottleneck 5 ms); 60 s, the first 10 s not counted.
fn two_rtts(cc: &str) -> (f64, f64, f64) {
    let text = format!(
        r#"
name = "rtt-fairness"
duration = "60s"
warmup = "10s"
[tcp]
cc = "{cc}"
[topology]
kind = "dumbbell"
pairs = 2
access_rate = "100Mbps"
sender_delays = ["4ms", "34ms"]
receiver_delays = ["1ms", "1ms"]
bottleneck = {{ rate = "20Mbps", delay = "5ms" }}
queue = {{ kind = "drop_tail", limit = "100pkt" }}
[[flows]]
count = 2
src = "senders"
dst = "receivers"
app = {{ kind = "bulk" }}
"#
    );
    let s = summary_of(&text);
    let g = |i: usize| s["flows"][i]["goodput_bps"].as_f64().unwrap();
    (g(0), g(1), s["jain_goodput"].as_f64().unwrap())
}

// tests RFC 9438 §1's aim of RTT fairness: CUBIC's window grows with the time since the last
// reduction, not per RTT, so of two flows at 20 and 80 ms the short one takes less of the
// long one's share than under NewReno, whose window grows one segment per RTT. (Recorded:
// NewReno 13.04 / 6.24 Mb/s, 2.09×, Jain 0.889; CUBIC 12.03 / 7.25 Mb/s, 1.66×, Jain 0.942.)
#[test]
fn cubic_shares_between_two_rtts_more_evenly_than_new_reno() {
    let (nr_short, nr_long, nr_jain) = two_rtts("new_reno");
    let (cu_short, cu_long, cu_jain) = two_rtts("cubic");
    assert!(nr_short > nr_long && cu_short > cu_long, "the short-RTT flow leads under both");
    assert!(cu_short / cu_long < nr_short / nr_long - 0.2, "CUBIC {:.2}× against NewReno {:.2}×", cu_short / cu_long, nr_short / nr_long);
    assert!(cu_jain > nr_jain + 0.02, "Jain CUBIC {cu_jain:.3}, NewReno {nr_jain:.3}");
    assert!((cu_short + cu_long) > 0.9 * 19.3e6 && (nr_short + nr_long) > 0.9 * 19.3e6, "both fill the link");
}
