//! The per-flow metrics of the summary (docs/summary.md): data-direction loss and loss ratio,
//! IP-level and retransmission efficiency, start-up time, and the `flow_samples` table, checked
//! against hand computations on small runs, and conservation over a congested one.

use sluice_sim::monitor::summary::{FlowSummary, Summary};
use sluice_sim::{run_str, Column, RunOutput, RunOptions};

/// A one-pair dumbbell: access links 100 Mb/s and 1 ms, bottleneck 10 Mb/s and 10 ms with
/// `loss` on A->B and `rloss` on B->A, and the flows and monitor lines given.
fn dumbbell(loss: &str, rloss: &str, duration: &str, warmup: &str, flows: &str, monitor: &str) -> String {
    format!(
        r#"
name = "metrics"
duration = "{duration}"
warmup = "{warmup}"
seed = 1
[topology]
kind = "dumbbell"
pairs = 1
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck = {{ rate = "10Mbps", delay = "10ms", loss = {loss}, reverse_loss = {rloss} }}
queue = {{ kind = "drop_tail", limit = "1000pkt" }}
{flows}
[monitor]
{monitor}
"#
    )
}

fn run(text: &str) -> RunOutput {
    run_str(text, None, &RunOptions::default()).expect("runs")
}

const CBR: &str = r#"[[flows]]
src = "s0"
dst = "r0"
app = { kind = "udp_cbr", rate = "1Mbps", packet_size = "1000B" }"#;

// UDP at 1 Mb/s in 1000-byte datagrams: one every 8 ms, at 0, 8, .., 992 ms: 125 in 1 s, each
// 1000 + 8 (UDP) + 20 (IP) = 1028 IP bytes, 128,500 in all. The 2nd and 5th packets to cross
// A->B are lost on the wire:
//   data_dir_packets_lost = 2, data_dir_bytes_lost = 2,056;
//   data_dir_loss_ratio = 2 / 125 = 0.016;
//   efficiency_ip = (128,500 - 2,056) / 128,500 = 126,444 / 128,500.
// A UDP flow has no retransmission form (efficiency_retx none) and no handshake (startup none),
// and its `efficiency` is the IP form even when the run asks for `efficiency = "retx"`.
#[test]
fn udp_loss_ratio_and_efficiency_by_hand() {
    for option in ["", "efficiency = \"retx\""] {
        let out = run(&dumbbell(r#"{ kind = "list", packets = [2, 5] }"#, "0.0", "1s", "0s", CBR, option));
        let f = &out.summary.flows[0];
        assert_eq!((f.data_dir_packets_sent, f.data_dir_bytes_sent), (125, 128_500));
        assert_eq!((f.data_dir_packets_lost, f.data_dir_bytes_lost, f.lost_packets), (2, 2_056, 2));
        assert_eq!(f.data_dir_loss_ratio, 2.0 / 125.0);
        assert_eq!(f.efficiency_ip, 126_444.0 / 128_500.0);
        assert_eq!(f.efficiency, f.efficiency_ip, "{option}");
        assert_eq!((f.efficiency_retx, f.startup_s), (None, None));
        let want = if option.is_empty() { "ip" } else { "retx" };
        assert_eq!(out.summary.options["efficiency"], want);
    }
}

/// A 14,480-byte file (ten 1448-byte segments: the whole initial window) from s0 to r0.
const FILE: &str = r#"[[flows]]
src = "s0"
dst = "r0"
app = { kind = "file", size = "14480B" }"#;

// The third data segment is lost on A->B; the seven after it bring duplicate ACKs and one fast
// retransmission repairs the hole. Payload sent: 11 x 1448 = 15,928 B, of which 1448
// retransmitted, so efficiency_retx = 14,480 / 15,928 = 10/11. Each data segment is 1448 + 20
// (TCP) + 12 (timestamps, padded) + 20 (IP) = 1500 IP bytes; the SYN is 20 + 20 + 20 option
// bytes (MSS 4, window scale 3, SACK-permitted 2, timestamps 10: 19, padded) = 60; every other
// segment of the client (handshake ACK, FIN, ACK of the server's FIN) 52. So
//   data_dir_bytes_sent = 60 + 11 x 1500 + 52 x (data_dir_packets_sent - 12),
//   data_dir_bytes_lost = 1500, efficiency_ip = 1 - 1500 / data_dir_bytes_sent.
// Start-up: the SYN and the SYN-ACK are 60 + 2 (PPP) = 62 bytes on the wire, 4,960 ns at
// 100 Mb/s and 49,600 ns at 10 Mb/s; one way is 2 x 4,960 + 49,600 + 12 ms of propagation =
// 12,059,520 ns, and the first data segment leaves as the SYN-ACK arrives: 24,119,040 ns.
#[test]
fn tcp_efficiency_loss_and_startup_by_hand() {
    let lose_third = r#"{ kind = "list", packets = [3], match = "data" }"#;
    let out = run(&dumbbell(lose_third, "0.0", "2s", "0s", FILE, ""));
    let f = &out.summary.flows[0];
    assert!(f.fct_s.is_some(), "the transfer completes");
    assert_eq!((f.payload_bytes_sent, f.retransmitted_bytes, f.fast_retransmits), (15_928, 1_448, 1));
    assert_eq!(f.efficiency_retx, Some(10.0 / 11.0));
    assert_eq!((f.data_dir_packets_lost, f.data_dir_bytes_lost, f.lost_packets), (1, 1_500, 1));
    let control = f.data_dir_packets_sent - 12;
    assert!((1..=3).contains(&control), "{} packets", f.data_dir_packets_sent);
    assert_eq!(f.data_dir_bytes_sent, 60 + 11 * 1_500 + 52 * control);
    assert_eq!(f.efficiency_ip, 1.0 - 1_500.0 / f.data_dir_bytes_sent as f64);
    assert_eq!(f.efficiency, f.efficiency_ip, "the IP form is the default");
    assert_eq!(f.data_dir_loss_ratio, 1.0 / f.data_dir_packets_sent as f64);
    assert_eq!(f.startup_s.map(|s| (s * 1e9).round() as u64), Some(24_119_040));
    assert_eq!(out.summary.options["efficiency"], "ip");

    // With `efficiency = "retx"` the same run reports the retransmission form.
    let retx = run(&dumbbell(lose_third, "0.0", "2s", "0s", FILE, "efficiency = \"retx\""));
    assert_eq!(retx.summary.flows[0].efficiency, 10.0 / 11.0);

    // A lost ACK (the second packet back across B->A, after the SYN-ACK) counts in
    // `lost_packets`, not in the data direction's loss.
    let s = run(&dumbbell(lose_third, r#"{ kind = "list", packets = [2] }"#, "2s", "0s", FILE, "")).summary;
    let f = &s.flows[0];
    assert_eq!((f.lost_packets, f.data_dir_packets_lost), (2, 1));

    // Without loss, nothing is lost: efficiency 1 in both forms.
    let s = run(&dumbbell("0.0", "0.0", "2s", "0s", FILE, "")).summary;
    let f = &s.flows[0];
    assert_eq!((f.efficiency_ip, f.efficiency_retx, f.data_dir_loss_ratio), (1.0, Some(1.0), 0.0));
    assert_eq!(f.data_dir_bytes_sent, 60 + 10 * 1_500 + 52 * (f.data_dir_packets_sent - 11));
}

// A lost SYN (the first packet across A->B) costs the initial RTO of 1 s (RFC 6298 §2.1): the
// SYN goes again at 1 s and data starts one handshake later, 1 s + 24,119,040 ns.
#[test]
fn a_lost_syn_shows_in_the_startup_time() {
    let s = run(&dumbbell(r#"{ kind = "list", packets = [1] }"#, "0.0", "3s", "0s", FILE, "")).summary;
    let f = &s.flows[0];
    assert_eq!(f.startup_s.map(|s| (s * 1e9).round() as u64), Some(1_024_119_040));
    assert_eq!((f.data_dir_packets_lost, f.data_dir_bytes_lost), (1, 60));
}

fn column<'a>(out: &'a RunOutput, table: &str, name: &str) -> &'a Column {
    let t = out.tables.iter().find(|t| t.name == table).unwrap_or_else(|| panic!("no table {table}"));
    &t.columns.iter().find(|(n, _)| n == name).expect("column").1
}

fn floats(c: &Column) -> Vec<f64> {
    match c {
        Column::F64(v) => v.clone(),
        other => panic!("not floats: {other:?}"),
    }
}

fn ints(c: &Column) -> Vec<i64> {
    match c {
        Column::I64(v) => v.clone(),
        other => panic!("not integers: {other:?}"),
    }
}

// The same UDP source, without loss, sampled every 100 ms. A datagram is 1030 bytes on the wire
// (with PPP): 82,400 ns at 100 Mb/s, 824,000 ns at 10 Mb/s; it arrives 2 x 82.4 us + 824 us +
// 12 ms = 12.9888 ms after it is sent at 8k ms. Interval (100j, 100(j+1)] ms holds the k with
// 100j < 8k + 12.9888 <= 100(j+1):
//   j = 0: k = 0..10 (11);  1: 11..23 (13);  2: 24..35 (12);  3: 36..48 (13);  4: 49..60 (12);
//   5: 61..73 (13);  6: 74..85 (12);  7: 86..98 (13);  8: 99..110 (12);  9: 111..123 (13).
// The interval ending with the run (1 s) is included; datagram 124 (sent at 992 ms) is still in
// flight at the end. Throughput = bytes x 8 / 0.1 s.
#[test]
fn flow_samples_by_hand() {
    let out = run(&dumbbell("0.0", "0.0", "1s", "0s", CBR, "flow_sample = \"100ms\""));
    let want = [11, 13, 12, 13, 12, 13, 12, 13, 12, 13];
    let bytes: Vec<i64> = want.iter().map(|n| n * 1000).collect();
    assert_eq!(ints(column(&out, "flow_samples", "bytes")), bytes);
    assert_eq!(ints(column(&out, "flow_samples", "flow")), vec![0; 10]);
    let t: Vec<f64> = floats(column(&out, "flow_samples", "t_s"));
    assert_eq!(t, (1..=10).map(|j| j as f64 / 10.0).collect::<Vec<_>>());
    let bps = floats(column(&out, "flow_samples", "throughput_bps"));
    assert_eq!(bps, bytes.iter().map(|&b| b as f64 * 8.0 / 0.1).collect::<Vec<_>>());
    assert_eq!(bytes.iter().sum::<i64>() as u64, out.summary.flows[0].bytes_delivered);

    // With a warm-up of 0.5 s the table covers the window only: the last five intervals.
    let out = run(&dumbbell("0.0", "0.0", "1s", "500ms", CBR, "flow_sample = \"100ms\""));
    assert_eq!(ints(column(&out, "flow_samples", "bytes")), bytes[5..].to_vec());
    assert_eq!(floats(column(&out, "flow_samples", "t_s")), vec![0.6, 0.7, 0.8, 0.9, 1.0]);

    // Only whole intervals: 300 ms into 1 s gives three rows, (0, 300], (300, 600], (600, 900]:
    // k = 0..35 (36), 36..73 (38), 74..110 (37).
    let out = run(&dumbbell("0.0", "0.0", "1s", "0s", CBR, "flow_sample = \"300ms\""));
    assert_eq!(ints(column(&out, "flow_samples", "bytes")), vec![36_000, 38_000, 37_000]);

    // Without `flow_sample` there is no table.
    let out = run(&dumbbell("0.0", "0.0", "1s", "0s", CBR, ""));
    assert!(out.tables.iter().all(|t| t.name != "flow_samples"));
}

/// Four bulk TCP flows and a UDP source through a 20-packet drop-tail bottleneck: heavy loss.
fn congested(warmup: &str, monitor: &str) -> RunOutput {
    let text = format!(
        r#"
name = "congested"
duration = "4s"
warmup = "{warmup}"
seed = 3
[topology]
kind = "dumbbell"
pairs = 5
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck = {{ rate = "10Mbps", delay = "10ms" }}
queue = {{ kind = "drop_tail", limit = "20pkt" }}
[[flows]]
count = 4
src = ["s0", "s1", "s2", "s3"]
dst = ["r0", "r1", "r2", "r3"]
app = {{ kind = "bulk" }}
start = {{ uniform = ["0s", "0.5s"] }}
[[flows]]
src = "s4"
dst = "r4"
app = {{ kind = "udp_cbr", rate = "3Mbps", packet_size = "1000B" }}
[monitor]
{monitor}
"#
    );
    run(&text)
}

fn check_bounds(f: &FlowSummary) {
    assert!(f.data_dir_packets_lost <= f.lost_packets, "{f:?}");
    assert!((0.0..=1.0).contains(&f.data_dir_loss_ratio), "{f:?}");
    assert!((0.0..=1.0).contains(&f.efficiency_ip), "{f:?}");
    assert!(f.efficiency_retx.is_none_or(|e| (0.0..=1.0).contains(&e)), "{f:?}");
}

// Conservation: every packet dropped belongs to one flow, in one direction; without a warm-up
// a flow cannot lose more than it sent, and the IP bytes it lost are part of those it sent.
// The flow table's intervals add up to what each flow delivered.
#[test]
fn congested_run_conserves_packets_and_bytes() {
    let out = congested("0s", "flow_sample = \"100ms\"");
    let s: &Summary = &out.summary;
    let dropped: u64 = s.queues.iter().map(|q| q.dropped + q.link_losses).sum();
    assert!(dropped > 50, "the bottleneck must drop: {dropped}");
    assert_eq!(s.flows.iter().map(|f| f.lost_packets).sum::<u64>(), dropped);
    for f in &s.flows {
        check_bounds(f);
        assert!(f.data_dir_packets_lost <= f.data_dir_packets_sent, "{f:?}");
        assert!(f.data_dir_bytes_lost <= f.data_dir_bytes_sent, "{f:?}");
        assert!(f.data_dir_packets_lost > 0 && f.efficiency_ip < 1.0, "every flow loses here: {f:?}");
        if f.kind == "udp_cbr" {
            // Every datagram lost is in the data direction.
            assert_eq!(f.data_dir_packets_lost, f.lost_packets);
            assert_eq!(f.data_dir_bytes_lost, f.data_dir_packets_lost * 1028);
        }
    }
    let flows = ints(column(&out, "flow_samples", "flow"));
    let bytes = ints(column(&out, "flow_samples", "bytes"));
    assert_eq!(flows.len(), 40 * 5);
    for (k, f) in s.flows.iter().enumerate() {
        let sum: i64 = flows.iter().zip(&bytes).filter(|(fl, _)| **fl == k as i64).map(|(_, b)| b).sum();
        assert_eq!(sum as u64, f.bytes_delivered, "flow {k}");
    }
    // With a warm-up, drops of packets sent before it count in the window: the ratios stay
    // bounded all the same.
    let out = congested("1s", "");
    out.summary.flows.iter().for_each(check_bounds);
}

// tests the `flow_samples` loss columns on the UDP case above: datagrams 2 and 5 (k = 1 and 4,
// sent at 8 and 32 ms) are lost on A->B about 1 ms later, both in the first 100-ms interval, so
// `data_dir_lost` is [2, 0, …, 0], adding up to `data_dir_packets_lost`; a UDP flow has no
// duplicate ACKs. With a warm-up of 50 ms the first interval is (50, 150] ms: no loss in it.
#[test]
fn flow_samples_count_losses_per_interval() {
    let out = run(&dumbbell(r#"{ kind = "list", packets = [2, 5] }"#, "0.0", "1s", "0s", CBR, "flow_sample = \"100ms\""));
    let mut want = vec![0; 10];
    want[0] = 2;
    assert_eq!(ints(column(&out, "flow_samples", "data_dir_lost")), want);
    assert_eq!(ints(column(&out, "flow_samples", "triple_dupacks")), vec![0; 10]);
    assert_eq!(out.summary.flows[0].data_dir_packets_lost, 2);
    let out = run(&dumbbell(r#"{ kind = "list", packets = [2, 5] }"#, "0.0", "1s", "50ms", CBR, "flow_sample = \"100ms\""));
    assert_eq!(ints(column(&out, "flow_samples", "data_dir_lost")), vec![0; 9]);
}
