//! BBR v1 over whole runs: against ns-3.44's `TcpBbr` over seeds (validation/bbr_seeds.py,
//! docs/validation.md), and its queue on the access link against NewReno's
//! (docs/algorithms/bbr.md).

use crate::common::summary_of;

/// The stored ns-3 record (validation/fixtures/ns3/u-access9-bbr-seeds.json).
fn fixture() -> serde_json::Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../validation/fixtures/ns3/u-access9-bbr-seeds.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The nine-flow access link of q-access9-cubic (the fixture's eval9 delays, 100 Mbit/s, 2 ms
/// bottleneck, starts uniform in [0, 3) s), 30 s measured from 10 s, under the ns-3 profile,
/// with `cc` and a drop-tail buffer of `buffer` packets: (goodput Mbit/s, mean queue packets,
/// Jain).
fn access9(fx: &serde_json::Value, cc: &str, buffer: u64, seed: u64) -> (f64, f64, f64) {
    let list = |k: &str| {
        fx[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| format!("\"{}\"", v.as_str().unwrap()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (sd, rd) = (list("sender_delays"), list("receiver_delays"));
    let text = format!(
        "name = \"access9-{cc}\"\nduration = \"30s\"\nwarmup = \"10s\"\nseed = {seed}\n[tcp]\nvalidate = \"ns3.44\"\ncc = \"{cc}\"\nmss = 1448\nsnd_buf = \"8388608B\"\nrcv_buf = \"8388608B\"\n\
         [topology]\nkind = \"dumbbell\"\npairs = 9\naccess_rate = \"100Mbps\"\nsender_delays = [{sd}]\nreceiver_delays = [{rd}]\n\
         bottleneck = {{ rate = \"100Mbps\", delay = \"2ms\" }}\nqueue = {{ kind = \"drop_tail\", limit = \"{buffer}pkt\" }}\n\
         [[flows]]\ncount = 9\nsrc = \"senders\"\ndst = \"receivers\"\napp = {{ kind = \"bulk\", write_size = \"11584B\" }}\nstart = {{ uniform = [\"0s\", \"3s\"] }}\n"
    );
    let s = summary_of(&text);
    let qa = s["queues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["name"] == "A->B")
        .unwrap();
    (
        s["aggregate_goodput_bps"].as_f64().unwrap() / 1e6,
        qa["mean_len_pkts"].as_f64().unwrap(),
        s["jain_goodput"].as_f64().unwrap(),
    )
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    v.iter().sum::<f64>() / v.len() as f64
}

// tests BBR against ns-3.44's TcpBbr (validation/bbr_seeds.py): Sluice's seeds 1..5 against
// ns-3's runs 1..5 (each side draws ProbeBW's cycle start and the start times from its own
// generator), on the nine-flow access link with a 900- and a 50-packet buffer: the seed means
// of aggregate goodput within 5 %, of the mean queue within 25 %, of Jain's index within 0.1.
#[test]
fn bbr_agrees_with_ns3_seed_means() {
    let fx = fixture();
    for (key, buffer) in [("buf900", 900), ("buf50", 50)] {
        let ours: Vec<(f64, f64, f64)> = (1..=5)
            .map(|seed| access9(&fx, "bbr", buffer, seed))
            .collect();
        let runs = fx["runs"][key].as_array().unwrap();
        assert_eq!(runs.len(), 5, "{key}: five ns-3 runs");
        let theirs = |k: &str| mean(runs.iter().map(|r| r[k].as_f64().unwrap()));
        let (gp, q, j) = (
            mean(ours.iter().map(|o| o.0)),
            mean(ours.iter().map(|o| o.1)),
            mean(ours.iter().map(|o| o.2)),
        );
        let rel = |a: f64, b: f64| (a - b).abs() / b;
        assert!(
            rel(gp, theirs("goodput_mbps")) <= 0.05,
            "{key}: goodput {gp:.2} vs ns-3 {:.2}",
            theirs("goodput_mbps")
        );
        assert!(
            rel(q, theirs("queue_mean_pkts")) <= 0.25,
            "{key}: queue {q:.1} vs ns-3 {:.1}",
            theirs("queue_mean_pkts")
        );
        assert!(
            (j - theirs("jain")).abs() <= 0.1,
            "{key}: Jain {j:.3} vs ns-3 {:.3}",
            theirs("jain")
        );
    }
}
