//! Whole-run behaviour of the RED family, PIE and CHOKe: ECN marking with the senders' response,
//! and CHOKe's protection of TCP against an unresponsive flow.

use sluice_sim::RunOptions;

fn run(text: &str) -> serde_json::Value {
    let out = sluice_sim::run_str(text, None, &RunOptions::default()).unwrap();
    serde_json::to_value(&out.summary).unwrap()
}

fn queue<'a>(s: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    s["queues"].as_array().unwrap().iter().find(|q| q["name"] == name).unwrap()
}

/// Four NewReno flows through a 10 Mbit/s, 20 ms bottleneck with the given queue, ECN on or off
/// at the endpoints.
fn ecn_scenario(queue: &str, ecn: bool) -> String {
    format!(
        r#"
name = "aqm-ecn"
duration = "20s"
warmup = "5s"
[tcp]
ecn = {ecn}
[topology]
kind = "dumbbell"
pairs = 4
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck = {{ rate = "10Mbps", delay = "20ms" }}
queue = {queue}
[[flows]]
count = 4
src = "senders"
dst = "receivers"
app = {{ kind = "bulk" }}
start = {{ uniform = ["0s", "1s"] }}
"#
    )
}

// tests ECN with RED, ARED and PIE: with ECN-capable senders the queue marks instead of dropping
// early (marks, and far fewer early drops than marks: only Not-ECT packets such as
// retransmissions and SYNs can be dropped early), the senders enter CWR, and fast retransmits
// all but vanish; with Not-ECT senders the same queue marks nothing and drops. (A 20 s run of
// four flows sees about 45 marks, 45 CWR entries and no recovery.) CHOKe is left out: with four
// flows nearly all its drops are matches, which drop ECT packets too.
#[test]
fn aqms_mark_ect_packets_and_senders_enter_cwr() {
    for q in [
        r#"{ kind = "red", limit = "200pkt", ecn = true }"#,
        r#"{ kind = "ared", limit = "200pkt", ecn = true }"#,
        r#"{ kind = "pie", limit = "200pkt", ecn = true }"#,
    ] {
        let on = run(&ecn_scenario(q, true));
        let qa = queue(&on, "A->B");
        let marked = qa["marked"].as_u64().unwrap();
        let early = qa["drops_by_reason"].as_object().unwrap().iter().filter(|(k, _)| k.ends_with("_early")).map(|(_, v)| v.as_u64().unwrap()).sum::<u64>();
        assert!(marked > 30, "{q}: marked {marked}");
        assert!(early * 10 < marked, "{q}: early drops {early} vs marks {marked}");
        let flows = on["flows"].as_array().unwrap();
        let cwr: u64 = flows.iter().map(|f| f["cwr_episodes"].as_u64().unwrap()).sum();
        let fr: u64 = flows.iter().map(|f| f["recovery_episodes"].as_u64().unwrap()).sum();
        assert!(cwr > 30, "{q}: CWR episodes {cwr}");
        assert!(fr * 5 < cwr, "{q}: recovery episodes {fr} vs CWR {cwr}");
        let off = run(&ecn_scenario(q, false));
        let qb = queue(&off, "A->B");
        assert_eq!(qb["marked"].as_u64().unwrap(), 0, "{q}: Not-ECT packets are never marked");
        assert!(qb["dropped"].as_u64().unwrap() > 30, "{q}: Not-ECT packets are dropped");
        let cwr_off: u64 = off["flows"].as_array().unwrap().iter().map(|f| f["cwr_episodes"].as_u64().unwrap()).sum();
        assert_eq!(cwr_off, 0, "{q}");
    }
}

/// Ten NewReno flows and one UDP source at twice the bottleneck's 10 Mbit/s.
fn udp_scenario(queue: &str) -> String {
    format!(
        r#"
name = "aqm-udp"
duration = "30s"
warmup = "10s"
[topology]
kind = "dumbbell"
pairs = 11
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck = {{ rate = "10Mbps", delay = "10ms" }}
queue = {queue}
[[flows]]
count = 10
src = "senders"
dst = "receivers"
app = {{ kind = "bulk" }}
start = {{ uniform = ["0s", "1s"] }}
[[flows]]
src = "s10"
dst = "r10"
app = {{ kind = "udp_cbr", rate = "20Mbps", packet_size = "1000B" }}
start = "0s"
"#
    )
}

// tests CHOKe (Pan, Prabhakar, Psounis 2000): an unresponsive UDP source sending at twice the
// link rate beside 10 TCP flows takes nearly the whole link under RED (every arrival sees the
// same drop probability, so it keeps what TCP gives up: 99.6 %), and far less under CHOKe. With
// one candidate a flow holding a share x of the queue matches with probability x and loses two
// packets per match, so in steady state 2C·(1 − 2x) = C·x: x = 0.4 of the link. That holds while
// the average stays above min_th, as with thresholds of 100 and 200 packets in a 300-packet
// queue (measured 0.43). With the default thresholds (5 and 15 packets) the queue falls below
// min_th after each burst of matches and the UDP flow refills it unopposed: 0.73.
#[test]
fn choke_protects_tcp_from_udp() {
    let share = |q: &str| {
        let s = run(&udp_scenario(q));
        let flows = s["flows"].as_array().unwrap();
        let udp = flows.iter().find(|f| f["kind"] == "udp_cbr").unwrap()["received_bps"].as_f64().unwrap();
        let all: f64 = flows.iter().map(|f| f["received_bps"].as_f64().unwrap()).sum();
        udp / all
    };
    let red = share(r#"{ kind = "red", limit = "300pkt", min_th = "100pkt", max_th = "200pkt" }"#);
    let choke = share(r#"{ kind = "choke", limit = "300pkt", min_th = "100pkt", max_th = "200pkt" }"#);
    assert!(red > 0.95, "RED: UDP share {red}");
    assert!((choke - 0.4).abs() < 0.1, "CHOKe: UDP share {choke}");
    let red_d = share(r#"{ kind = "red", limit = "100pkt" }"#);
    let choke_d = share(r#"{ kind = "choke", limit = "100pkt" }"#);
    assert!(red_d > 0.95 && choke_d < red_d - 0.2, "defaults: CHOKe {choke_d} vs RED {red_d}");
}

// tests RED, ARED and PIE against ns-3.44 (validation/aqm_seeds.py, docs/validation.md): one
// Sluice seed of each on the access link of b-access90-newreno-pie5ms lies within the
// tolerances of ns-3's seed means recorded in validation/fixtures/ns3/aqm-seeds.json (goodput
// 5 %, mean queue 20 %, drop and mark ratios 25 %, Jain 0.1), without ECN and with it (ECN
// senders and a marking queue: the `-ecn` runs). The seed-to-seed spread on either side is far
// smaller than these (queue ±3 %, drop and mark ratios ±2 %).
#[test]
fn red_ared_pie_agree_with_ns3_seed_means() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation/fixtures/ns3/aqm-seeds.json");
    let fx: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let list = |k: &str| fx[k].as_array().unwrap().iter().map(|v| format!("\"{}\"", v.as_str().unwrap())).collect::<Vec<_>>().join(", ");
    let (sd, rd) = (list("sender_delays"), list("receiver_delays"));
    for (q, table) in [
        ("red", r#"{ kind = "red", limit = "900pkt", params = "target", target = "5ms" }"#),
        ("ared", r#"{ kind = "ared", limit = "900pkt", target = "5ms" }"#),
        ("pie", r#"{ kind = "pie", limit = "900pkt", target = "5ms", t_update = "15ms" }"#),
    ] {
        for ecn in [false, true] {
            let (name, table) = if ecn { (format!("{q}-ecn"), table.replace(" }", ", ecn = true }")) } else { (q.to_string(), table.to_string()) };
            let text = format!(
                "name = \"aqm-{name}\"\nduration = \"100s\"\nwarmup = \"30s\"\nseed = 1\n[tcp]\nvalidate = \"ns3.44\"\necn = {ecn}\nmss = 1448\nsnd_buf = \"8388608B\"\nrcv_buf = \"8388608B\"\n\
                 [topology]\nkind = \"dumbbell\"\npairs = 90\naccess_rate = \"100Mbps\"\nsender_delays = [{sd}]\nreceiver_delays = [{rd}]\n\
                 bottleneck = {{ rate = \"100Mbps\", delay = \"2ms\" }}\nqueue = {table}\n\
                 [[flows]]\ncount = 90\nsrc = \"senders\"\ndst = \"receivers\"\napp = {{ kind = \"bulk\", write_size = \"11584B\" }}\nstart = {{ uniform = [\"0s\", \"3s\"] }}\n"
            );
            let s = run(&text);
            let qa = queue(&s, "A->B");
            let runs = fx["runs"][&name].as_array().unwrap_or_else(|| panic!("no ns-3 runs of {name}"));
            let mean = |k: &str| runs.iter().map(|r| r[k].as_f64().unwrap_or(0.0)).sum::<f64>() / runs.len() as f64;
            let rel = |a: f64, b: f64| (a - b).abs() / b;
            let gp = s["aggregate_goodput_bps"].as_f64().unwrap() / 1e6;
            assert!(rel(gp, mean("goodput_mbps")) <= 0.05, "{name}: goodput {gp} vs {}", mean("goodput_mbps"));
            let ql = qa["mean_len_pkts"].as_f64().unwrap();
            assert!(rel(ql, mean("queue_mean_pkts")) <= 0.20, "{name}: queue {ql} vs {}", mean("queue_mean_pkts"));
            let marks = qa["marked"].as_f64().unwrap() / qa["arrivals"].as_f64().unwrap();
            for (what, ours, theirs) in [("drop ratio", qa["drop_ratio"].as_f64().unwrap(), mean("drop_ratio")), ("mark ratio", marks, mean("mark_ratio"))] {
                // Both none (no marks without ECN; no drops where every early drop became a mark), or close.
                assert!((ours == 0.0 && theirs == 0.0) || (theirs > 0.0 && rel(ours, theirs) <= 0.25), "{name}: {what} {ours} vs {theirs}");
            }
            assert_eq!(marks > 0.0, ecn, "{name}: marks only with ECN");
            let j = s["jain_goodput"].as_f64().unwrap();
            assert!((j - mean("jain")).abs() <= 0.1, "{name}: Jain {j} vs {}", mean("jain"));
        }
    }
}
