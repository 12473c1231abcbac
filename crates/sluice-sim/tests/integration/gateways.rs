//! Network-return gateways in whole runs: a controller on router A of a dumbbell sees the
//! packets A forwards and the bottleneck queue, and lowers the windows of the ACKs it sends
//! back to the senders.

use super::common::summary_of;
use sluice_sim::{Column, RunOptions};

/// Nine bulk NewReno flows over a 10 Mb/s, 20 ms bottleneck (base RTT 44 ms, a BDP of 55,000 B,
/// 37 packets) with a 100-packet drop-tail queue; `extra` is appended (a gateway, a monitor key).
fn dumbbell(extra: &str) -> String {
    format!(
        r#"name = "gw"
duration = "30s"
warmup = "10s"
seed = 3
[tcp]
rcv_buf = "1MB"
snd_buf = "1MB"
[topology]
kind = "dumbbell"
pairs = 9
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck = {{ rate = "10Mbps", delay = "20ms" }}
queue = {{ kind = "drop_tail", limit = "100pkt" }}
[[flows]]
count = 9
src = "senders"
dst = "receivers"
app = {{ kind = "bulk" }}
start = {{ uniform = ["0s", "1s"] }}
{extra}
"#
    )
}

fn queue(s: &serde_json::Value) -> &serde_json::Value {
    s["queues"].as_array().unwrap().iter().find(|q| q["name"] == "A->B").unwrap()
}

// EWT on A, reading A->B, with 64 KiB receive windows: above the start point S EWT writes
// W_r·(B − U)/B into each ACK (the EWT paper; B = 100 packets of 1500 B). A fluid model of the
// nine window-limited flows puts the queue where the windows just fill the path: with x
// packets queued, 9·(65,536/1448)·(1 − x/100) = 36.7 + x (BDP 55,000 B = 36.7 packets), so
// x = (407.3 − 36.7)/(1 + 4.073) = 73.0 packets. The run holds the queue within 10 % of that,
// steadily and without a drop, where drop-tail alone fills it and drops every cycle; goodput
// is unchanged. The gateway saw every flow and lowered the windows of most ACKs.
#[test]
fn ewt_holds_the_queue_where_the_windows_fill_the_path() {
    let plain = summary_of(&dumbbell("").replace("rcv_buf = \"1MB\"", "rcv_buf = \"64KiB\""));
    let ewt = summary_of(&dumbbell("[[gateways]]\nnode = \"A\"\ncontroller = { kind = \"ewt\" }\n").replace("rcv_buf = \"1MB\"", "rcv_buf = \"64KiB\""));
    let (qp, qe) = (queue(&plain), queue(&ewt));
    assert!(qp["dropped"].as_u64().unwrap() > 0, "drop-tail alone drops: {qp}");
    assert_eq!(qe["dropped"].as_u64().unwrap(), 0, "EWT: {qe}");
    let (me, se) = (qe["mean_len_pkts"].as_f64().unwrap(), qe["std_len_pkts"].as_f64().unwrap());
    assert!((me / 73.0 - 1.0).abs() < 0.1 && se < 5.0, "EWT queue {me} ± {se}, fluid model 73.0");
    let (gp, ge) = (plain["aggregate_goodput_bps"].as_f64().unwrap(), ewt["aggregate_goodput_bps"].as_f64().unwrap());
    assert!(ge > 0.99 * gp, "goodput: drop-tail {gp}, EWT {ge}");
    let g = &ewt["gateways"][0];
    assert_eq!((g["node"].as_str(), g["kind"].as_str(), g["monitor"].as_str(), g["rewrite_at"].as_str()), (Some("A"), Some("ewt"), Some("A->B"), Some("dequeue")));
    let (acks, lowered) = (g["acks"].as_u64().unwrap(), g["lowered"].as_u64().unwrap());
    assert!(acks > 10_000 && lowered > acks / 2 && lowered < acks, "{g}");
    assert_eq!(g["untracked"].as_u64(), Some(0));
    assert_eq!(g["flow_table_size"].as_u64(), Some(9));
    assert!(plain.get("gateways").is_none(), "a run without gateways reports none");
}

// The rewrite trace: without EWT's `literal_floor` (the only rule that may raise a window, to
// one MSS) every row lowers a window, and there is one row per lowered ACK; rewriting at
// forward time acts too.
#[test]
fn rewrite_trace_rows_only_lower() {
    for at in ["dequeue", "forward"] {
        let text = dumbbell(&format!("[monitor]\nrewrite_trace = true\n[[gateways]]\nnode = \"A\"\nrewrite_at = \"{at}\"\ncontroller = {{ kind = \"ewt\" }}\n"));
        let out = sluice_sim::run_str(&text, None, &RunOptions::default()).unwrap();
        let t = out.tables.iter().find(|t| t.name == "rewrites").expect("rewrites table");
        let col = |name: &str| t.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c).unwrap();
        let (Column::I64(orig), Column::I64(new)) = (col("orig_bytes"), col("new_bytes")) else { panic!("columns") };
        let s = serde_json::to_value(&out.summary).unwrap();
        assert_eq!(s["gateways"][0]["raised"].as_u64(), Some(0), "{at}");
        assert_eq!(orig.len() as u64, s["gateways"][0]["lowered"].as_u64().unwrap(), "{at}");
        assert!(!orig.is_empty(), "{at}");
        assert!(orig.iter().zip(new).all(|(o, n)| n < o && *n >= 0), "{at}");
        let Column::Str(gw) = col("gateway") else { panic!("gateway column") };
        assert!(gw.iter().all(|g| g == "A"));
    }
}

// RWM with one class and the RTT fixed by configuration gives every flow the same cap,
// C·RTT/N; with one flow, 10 Mb/s and 40 ms that is 50,000 B: the flow behaves as one whose
// receiver offers a 50,000-byte buffer, and its goodput is within 5 % of that one's.
#[test]
fn rwm_with_a_fixed_cap_matches_a_receiver_with_that_buffer() {
    let one = |tcp: &str, extra: &str| {
        format!(
            r#"name = "rwm1"
duration = "20s"
warmup = "5s"
[tcp]
snd_buf = "4MB"
{tcp}
[topology]
kind = "dumbbell"
pairs = 1
access_rate = "1Gbps"
access_delay = "1ms"
bottleneck = {{ rate = "1Gbps", delay = "18ms" }}
queue = {{ kind = "drop_tail", limit = "1000pkt" }}
[[flows]]
src = "s0"
dst = "r0"
app = {{ kind = "bulk" }}
start = "0s"
{extra}
"#
        )
    };
    let capped = summary_of(&one("rcv_buf = \"4MB\"", "[[gateways]]\nnode = \"A\"\ncontroller = { kind = \"rwm\", capacity = \"10Mbps\", bdp_source = \"configured_rtt\", configured_rtt = \"40ms\" }\n"));
    let small = summary_of(&one("rcv_buf = \"50000B\"", ""));
    let (gc, gs) = (capped["aggregate_goodput_bps"].as_f64().unwrap(), small["aggregate_goodput_bps"].as_f64().unwrap());
    assert!((gc / gs - 1.0).abs() < 0.05, "RWM cap {gc}, 50,000-B receiver {gs}");
    // A 50,000-B window over a 40-ms RTT: at most 10 Mb/s.
    assert!(gc < 10.5e6 && gc > 5e6, "{gc}");
    assert!(capped["gateways"][0]["lowered"].as_u64().unwrap() > 0);
}

// RWM's classes go by the responder's port. Four flows on an uncongested 1 Gb/s path (base RTT
// 40 ms): two to port 80 in class "web" (share 0.75), two to the default port 5001 in the
// default class (the remaining 0.25). With C = 10 Mb/s and a configured RTT of 40 ms each class
// splits C·share·RTT among its flows: web 0.75 · 1,250,000 B/s · 0.04 s / 2 = 18,750 B each,
// the others 0.25 · 50,000 B / 2 = 6,250 B each. Window-limited over about 40 ms, a web flow
// gets about 18,750 B / 40 ms = 3.75 Mb/s and another about 1.25 Mb/s: three times as much.
#[test]
fn rwm_classes_go_by_the_responders_port() {
    let text = r#"name = "rwm-classes"
duration = "20s"
warmup = "5s"
[tcp]
snd_buf = "4MB"
rcv_buf = "4MB"
[topology]
kind = "dumbbell"
pairs = 4
access_rate = "1Gbps"
access_delay = "1ms"
bottleneck = { rate = "1Gbps", delay = "18ms" }
queue = { kind = "drop_tail", limit = "1000pkt" }
[[flows]]
name = "web"
count = 2
src = ["s0", "s1"]
dst = ["r0", "r1"]
port = 80
app = { kind = "bulk" }
[[flows]]
name = "other"
count = 2
src = ["s2", "s3"]
dst = ["r2", "r3"]
app = { kind = "bulk" }
[[gateways]]
node = "A"
controller = { kind = "rwm", capacity = "10Mbps", bdp_source = "configured_rtt", configured_rtt = "40ms", classes = [{ name = "web", ports = [80], share = 0.75 }] }
"#;
    let s = summary_of(text);
    let goodput = |name: &str| s["flows"].as_array().unwrap().iter().find(|f| f["name"] == name).unwrap()["goodput_bps"].as_f64().unwrap();
    let (w0, w1, o0, o1) = (goodput("web0"), goodput("web1"), goodput("other0"), goodput("other1"));
    for (w, o) in [(w0, o0), (w1, o1)] {
        assert!((w / o - 3.0).abs() < 0.3, "web {w}, other {o}: ratio {}", w / o);
    }
    assert!((w0 + w1) > 6.5e6 && (w0 + w1) < 7.6e6, "web class {} b/s, at most 0.75 of 10 Mb/s", w0 + w1);
    assert!((o0 + o1) > 2.1e6 && (o0 + o1) < 2.6e6, "default class {} b/s, at most 0.25 of 10 Mb/s", o0 + o1);
}

// A flow's port: a TCP server's lies below the clients' range; a UDP flow's is its destination.
#[test]
fn flow_ports_are_checked() {
    let err = |port: &str| sluice_sim::scenario::load_str(&dumbbell("").replace("count = 9\n", &format!("count = 9\nport = {port}\n")), None).unwrap_err().to_string();
    let e = err("49152");
    assert!(e.contains("flows[0].port") && e.contains("from 1 to 49151"), "{e}");
    let e = err("0");
    assert!(e.contains("flows[0].port"), "{e}");
    let m = sluice_sim::scenario::load_str(&dumbbell("").replace("count = 9\n", "count = 9\nport = 443\n"), None).unwrap();
    assert!(m.flows.iter().all(|f| f.port == 443));
    assert!(sluice_sim::scenario::load_str(&dumbbell(""), None).unwrap().flows.iter().all(|f| f.port == 5001), "default 5001");
}

// The default monitored queue is the bottleneck towards the other router, even where the
// access links are as fast as it (the 100 Mb/s access-link study): A->B, not A->s0.
#[test]
fn default_monitor_is_the_egress_towards_the_other_router() {
    let text = dumbbell("[[gateways]]\nnode = \"A\"\ncontroller = { kind = \"ewt\" }\n").replace("access_rate = \"100Mbps\"", "access_rate = \"10Mbps\"");
    let m = sluice_sim::scenario::load_str(&text, None).unwrap();
    assert_eq!(m.gateways[0].monitor, "A->B");
}

// Bad gateway tables: one line naming the field.
#[test]
fn bad_gateways_name_the_field() {
    let err = |extra: &str| sluice_sim::scenario::load_str(&dumbbell(extra), None).unwrap_err().to_string();
    let e = err("[[gateways]]\nnode = \"s3\"\ncontroller = { kind = \"ewt\" }\n");
    assert!(e.contains("gateways[0].node") && e.contains("\"s3\" is not a router"), "{e}");
    let e = err("[[gateways]]\nnode = \"A\"\nmonitor = \"A->C\"\ncontroller = { kind = \"ewt\" }\n");
    assert!(e.contains("gateways[0].monitor") && e.contains("no queue named \"A->C\""), "{e}");
    let e = err("[[gateways]]\nnode = \"A\"\ncontroller = { kind = \"ewt\", start = \"200pkt\" }\n");
    assert!(e.contains("gateways[0].controller.start"), "{e}");
    let e = err("[[gateways]]\nnode = \"A\"\ncontroller = { kind = \"ewx\" }\n");
    assert!(e.contains("gateways[0].controller") && e.contains("ewt"), "{e}");
    let e = err("[[gateways]]\nnode = \"A\"\ncontroller = { kind = \"ewt\" }\n[[gateways]]\nnode = \"A\"\ncontroller = { kind = \"pink\" }\n");
    assert!(e.contains("gateways[1].node") && e.contains("already has a gateway"), "{e}");
}
