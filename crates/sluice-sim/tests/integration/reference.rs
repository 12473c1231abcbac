//! Agreement with ns-3 on the reference dumbbells (fixtures in `validation/fixtures/`).
//!
//! Each case is rebuilt from the fixture's own arguments — same rates, delays, buffer, per-flow
//! start times, measurement window — and run under the `ns3.44` profile. Tolerances are those
//! of the foundation issue: aggregate goodput within 5 %, bottleneck drop ratio within 25 %
//! relative, Jain's index within 0.1.

use crate::common::*;
use sluice_core::control::{ControllerConfig, EwtConfig, Level};
use sluice_core::flows::FlowTableConfig;
use sluice_core::loss::{ListMatch, LossModel};
use sluice_core::qdisc::{CodelConfig, DropTailConfig, FqCodelConfig, Profile, QdiscConfig, QdiscParams};
use sluice_core::units::{parse_duration, parse_rate, QueueLimit};
use sluice_core::{Dur, Time};
use sluice_sim::engine::run_model;
use sluice_sim::model::{AppSpec, GatewaySpec, RewriteAt, StartSpec};
use sluice_sim::tcp::{CcKind, DelAck, InitialWindow, Recovery, TcpConfig};
use sluice_sim::{RunOptions, Summary};

fn fixture() -> serde_json::Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../validation/fixtures/ns3-reference.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture present")).expect("fixture parses")
}

fn dur(v: &serde_json::Value) -> Dur {
    parse_duration(v.as_str().unwrap()).unwrap()
}

/// A case of the reference fixture (`validation/fixtures/ns3-reference.json`), or one of our own
/// ns-3 runs (`validation/fixtures/ns3/NAME.json`).
fn case(name: &str) -> serde_json::Value {
    let fx = fixture();
    if let Some(c) = fx["cases"].as_array().unwrap().iter().find(|c| c["case"] == name) {
        return c.clone();
    }
    let path = format!("{}/../../validation/fixtures/ns3/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("no case {name}"))).expect("record parses")
}

/// The TCP options of a case: `base` (the `ns3.44` profile, except for the default-profile
/// table) with the ns-3 attributes its run set.
fn case_tcp_from(t: TcpConfig, a: &serde_json::Value) -> TcpConfig {
    // ns-3's TCP type (`--tcp`, SocketType; a list gives one per flow, set in `run_case_tcp`).
    case_tcp_typed(t, a, tcp_types(a)[0])
}

/// [`case_tcp_from`] with the ns-3 TCP type `ty` (one flow of a case with a type per flow).
fn case_tcp_typed(mut t: TcpConfig, a: &serde_json::Value, ty: &str) -> TcpConfig {
    set_ns3_type(&mut t, ty);
    t.mss = a["segment_size"].as_u64().unwrap() as u32;
    t.snd_buf = a["sndbuf"].as_u64().unwrap();
    t.rcv_buf = a["rcvbuf"].as_u64().unwrap();
    // ns3_dumbbell.py records optional flags as given on its command line (strings).
    if let Some(n) = a["init_cwnd"].as_u64().or_else(|| a["init_cwnd"].as_str().and_then(|v| v.parse().ok())) {
        t.iw = InitialWindow::Segments(n as u32);
    }
    if a["recovery"] == "classic" {
        t.recovery = Recovery::Classic;
    }
    if a["no_sack"] == true {
        t.sack = false;
    }
    // ns3_dumbbell.py --ecn: the sockets negotiate ECN (and the queue marks).
    if a["ecn"] == true {
        t.ecn = true;
    }
    if let Some(n) = a["delack"].as_u64().or_else(|| a["delack"].as_str().and_then(|v| v.parse().ok())) {
        if let DelAck::On { count, .. } = &mut t.delack {
            *count = n as u32;
        }
    }
    if let Some(v) = a["min_rto"].as_str() {
        t.min_rto = parse_duration(v).expect("min_rto in the record");
    }
    t
}

/// The case's ns-3 TCP types (`--tcp`, comma-separated: flow k has the k-th, cycled).
fn tcp_types(a: &serde_json::Value) -> Vec<&str> {
    a["tcp"].as_str().unwrap_or("ns3::TcpNewReno").split(',').map(str::trim).collect()
}

/// Sluice's equivalent of an ns-3 TCP type (`cc`; TcpLinuxReno is `linux_reno`).
fn set_ns3_type(t: &mut TcpConfig, ty: &str) {
    match ty {
        // Set, not left: a flow's options start from the first flow's type (`case_tcp_from`).
        "ns3::TcpNewReno" => t.cc = CcKind::NewReno,
        "ns3::TcpCubic" => t.cc = CcKind::Cubic,
        "ns3::TcpVegas" => t.cc = CcKind::Vegas,
        "ns3::TcpLinuxReno" => t.cc = CcKind::LinuxReno,
        "ns3::TcpBbr" => t.cc = CcKind::Bbr,
        other => panic!("no Sluice equivalent of {other}"),
    }
}

/// The bottleneck discipline of a case (ns3_dumbbell.py's `--qdisc`, with its `MaxSize` of
/// `buffer` packets): `None` for "fifo" (drop-tail), else the `ns3.44` profile's discipline with
/// the case's parameters.
fn case_qdisc(a: &serde_json::Value) -> Option<QdiscConfig> {
    let buffer = QueueLimit::Packets(a["buffer"].as_u64().unwrap() as u32);
    let ecn = a["ecn"] == true;
    match a["qdisc"].as_str().unwrap_or("fifo") {
        "fifo" => None,
        "codel" => Some(QdiscConfig::Codel(CodelConfig { limit: buffer, target: dur(&a["codel_target"]), interval: dur(&a["codel_interval"]), ecn, ..CodelConfig::for_profile(Profile::Ns3_44) })),
        "fq_codel" => Some(QdiscConfig::FqCodel(FqCodelConfig { limit: buffer, target: dur(&a["codel_target"]), interval: dur(&a["codel_interval"]), ecn, ..FqCodelConfig::for_profile(Profile::Ns3_44) })),
        other => panic!("no Sluice equivalent wired for qdisc {other:?}"),
    }
}

/// Run the Sluice equivalent of one ns-3 case.
pub fn run_case(name: &str) -> (Summary, serde_json::Value) {
    let (s, case, _) = run_case_with(name, false);
    (s, case)
}

/// Our own ns-3 record of a case (`validation/fixtures/ns3/NAME.json`): for the shared
/// reference's cases too, it carries what the reference does not (exact start times, the
/// departure fingerprint).
fn own_record(name: &str) -> serde_json::Value {
    let path = format!("{}/../../validation/fixtures/ns3/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("no record {path}"))).expect("record parses")
}

/// [`run_case`], and with `departures` the run's departure fingerprint on A->B over
/// [warmup, duration), from a capture of that queue (written to a temporary directory).
fn run_case_with(name: &str, departures: bool) -> (Summary, serde_json::Value, Option<Departures>) {
    run_case_tcp(name, departures, ns3_tcp())
}

/// [`run_case_with`] from `base` TCP options instead of the `ns3.44` profile's.
fn run_case_tcp(name: &str, departures: bool, base: TcpConfig) -> (Summary, serde_json::Value, Option<Departures>) {
    let case = case(name);
    let a = &case["args"];
    let flows = case["flows"].as_array().unwrap();
    let d = Dumbbell {
        pairs: flows.len(),
        access_rate: parse_rate(a["access_rate"].as_str().unwrap()).unwrap(),
        sender_delays: flows.iter().map(|f| dur(&f["sender_delay"])).collect(),
        receiver_delays: flows.iter().map(|f| dur(&f["receiver_delay"])).collect(),
        bottleneck_rate: parse_rate(a["bottleneck_rate"].as_str().unwrap()).unwrap(),
        bottleneck_delay: dur(&a["bottleneck_delay"]),
        buffer: QueueLimit::Packets(a["buffer"].as_u64().unwrap() as u32),
        qdisc: case_qdisc(a),
        loss: 0.0,
        duration: Dur::from_secs_f64(a["duration"].as_f64().unwrap()),
        warmup: Dur::from_secs_f64(a["warmup"].as_f64().unwrap()),
        seed: 1,
    };
    // Exact start times (ns) from our ns-3 runs; the reference lists them rounded to 1 µs.
    let exact_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../validation/fixtures/ns3/start_times.json");
    let exact: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(exact_path).expect("start times present")).expect("parses");
    let starts: Vec<StartSpec> = match exact[name].as_array() {
        Some(ns) => ns.iter().map(|t| StartSpec::At(Time(t.as_u64().unwrap()))).collect(),
        None => flows.iter().map(|f| StartSpec::At(f["start_ns"].as_u64().map(Time).unwrap_or_else(|| Time::from_secs_f64(f["start_s"].as_f64().unwrap())))).collect(),
    };
    // ns-3's BulkSendApplication writes `send_size` bytes at a time into the send buffer.
    let write = a["send_size"].as_u64().expect("send_size in the fixture");
    // With MaxBytes it is a file transfer of that size, closed when all is sent.
    let app = match a["file_size"].as_u64() {
        Some(size) if size > 0 => AppSpec::File { size, write },
        _ => AppSpec::Bulk { write },
    };
    let mut m = d.model(flows.len(), app, case_tcp_from(base.clone(), a), &starts);
    let types = tcp_types(a);
    if types.len() > 1 {
        for (k, f) in m.flows.iter_mut().enumerate() {
            // From the base each time: flow k's type alone, not laid over the first flow's.
            f.tcp = case_tcp_typed(base.clone(), a, types[k % types.len()]);
        }
    }
    // ns3_dumbbell.py --bbr-streams: each BBR flow replays the ProbeBW draws ns-3's made.
    for (f, rec) in m.flows.iter_mut().zip(flows) {
        if let Some(d) = rec["bbr_draws"].as_array() {
            f.tcp.bbr.cycle_draws = d.iter().map(|x| x.as_u64().expect("a draw") as u8).collect();
        }
    }
    // Two-way traffic (ns3_dumbbell.py --reverse-flows): receiver k sends to sender k's port
    // 5002 with the receivers' TCP type (ns-3's default SocketType, the first listed).
    let pairs = flows.len();
    for f in case["reverse_flows"].as_array().into_iter().flatten() {
        let k = f["pair"].as_u64().unwrap() as usize;
        let mut rev = m.flows[k].clone();
        (rev.name, rev.src, rev.dst, rev.port) = (format!("rev{k}"), pairs + k, k, REVERSE_PORT);
        rev.start = StartSpec::At(Time(f["start_ns"].as_u64().unwrap()));
        rev.tcp = case_tcp_typed(base.clone(), a, types[0]);
        m.flows.push(rev);
    }
    // Loss on the bottleneck, as ns3_dumbbell.py's --loss (A->B) and --reverse-loss (B->A).
    let bottleneck = m.links.last_mut().unwrap();
    // B's FIFO towards A (--reverse-buffer; 100,000 packets, as every other queue, unless set).
    if let Some(limit) = a["reverse_buffer"].as_u64() {
        bottleneck.ba.qdisc = QdiscConfig::DropTail(DropTailConfig { limit: QueueLimit::Packets(limit as u32) });
    }
    for (key, dir) in [("loss", &mut bottleneck.ab), ("reverse_loss", &mut bottleneck.ba)] {
        if let Some(spec) = a[key].as_str() {
            dir.loss = ns3_loss_spec(spec);
        }
    }
    // ns3_dumbbell.py --ewt: EWT on router A reading A->B, rewriting as packets leave A's
    // queues (validation/ns3_ewt.py), `B` the 900-packet limit times the MTU.
    if a["ewt"] == true {
        let node = m.nodes.iter().position(|n| n.name == "A").expect("router A");
        let ewt = EwtConfig { start: Level::Fraction(a["ewt_start"].as_f64().unwrap()), mss: a["ewt_mss"].as_u64().unwrap() as u32, mtu: a["mtu"].as_u64().unwrap() as u32, ..EwtConfig::default() };
        m.gateways.push(GatewaySpec { node, controller: ControllerConfig::Ewt(ewt), flow_table: FlowTableConfig::default(), monitor: "A->B".into(), rewrite_at: RewriteAt::Dequeue });
    }
    if !departures {
        let out = run_model(&m, &RunOptions::default()).unwrap();
        return (out.summary, case, None);
    }
    // Capture A->B (the last link's a->b direction), headers only: the fingerprint needs the
    // IP and TCP fixed headers (2 + 20 + 20 bytes).
    let bottleneck = m.links.last_mut().unwrap();
    assert_eq!(bottleneck.ab.queue_name, "A->B");
    bottleneck.ab.pcap = true;
    m.monitor.pcap_snaplen = 64;
    let dir = TempDir::new(name);
    let out = run_model(&m, &RunOptions { out_dir: Some(dir.0.clone()), ..Default::default() }).unwrap();
    let window = [m.warmup.0, m.duration.0];
    let fp = departures_from_pcap(&dir.0.join("A-to-B.pcap"), window);
    (out.summary, case, Some(fp))
}

/// An ns3_dumbbell.py `--loss` value (validation/ns3_loss.py) as Sluice's loss model.
fn ns3_loss_spec(spec: &str) -> LossModel {
    let (kind, rest) = spec.split_once(':').expect("KIND:PARAMS");
    let nums = |s: &str| s.split(',').filter(|x| !x.is_empty()).map(|x| x.parse::<f64>().expect("a number")).collect::<Vec<_>>();
    match kind {
        "bernoulli" => LossModel::Bernoulli { p: nums(rest)[0] },
        "gilbert_elliott" => {
            let v = nums(rest);
            LossModel::GilbertElliott { p_gb: v[0], p_bg: v[1], loss_good: v.get(2).copied().unwrap_or(0.0), loss_bad: v.get(3).copied().unwrap_or(1.0) }
        }
        "list" => {
            let (matching, packets) = rest.split_once(':').expect("list:MATCH:N1,..");
            let matching = if matching == "data" { ListMatch::Data } else { ListMatch::All };
            LossModel::List { packets: nums(packets).into_iter().map(|n| n as u64).collect(), matching }
        }
        other => panic!("unknown loss kind {other}"),
    }
}

/// Compare against the fixture, printing the table row; returns (goodput rel err, drop rel err, jain diff).
pub fn compare(name: &str) -> (f64, f64, f64) {
    let (gp, dr, jn, _) = compare_q(name);
    (gp, dr, jn)
}

/// [`compare`], with the relative difference of the queue's mean length as well.
fn compare_q(name: &str) -> (f64, f64, f64, f64) {
    let (s, case) = run_case(name);
    let q = s.queues.iter().find(|q| q.name == "A->B").unwrap();
    let ns_gp = case["aggregate_goodput_mbps"].as_f64().unwrap() * 1e6;
    let ns_drop = case["drop_ratio"].as_f64().unwrap();
    let ns_jain = case["jain"].as_f64().unwrap();
    let gp = (s.aggregate_goodput_bps - ns_gp).abs() / ns_gp;
    let dr = if ns_drop > 0.0 { (q.drop_ratio - ns_drop).abs() / ns_drop } else { q.drop_ratio };
    let jn = (s.jain_goodput - ns_jain).abs();
    eprintln!(
        "{name}: goodput {:.3} vs {:.3} Mbps | drop {:.3e} vs {:.3e} | jain {:.3} vs {:.3} | queue {:.1} vs {:.1} pkts | wall {:.2}s vs {:.1}s",
        s.aggregate_goodput_bps / 1e6,
        ns_gp / 1e6,
        q.drop_ratio,
        ns_drop,
        s.jain_goodput,
        ns_jain,
        q.mean_len_pkts,
        case["queue_mean_pkts"].as_f64().unwrap(),
        s.wall_time_s,
        case["wall_run_s"].as_f64().unwrap()
    );
    let ns_q = case["queue_mean_pkts"].as_f64().unwrap();
    let qd = (q.mean_len_pkts - ns_q).abs() / ns_q.max(1e-9);
    (gp, dr, jn, qd)
}

fn assert_agrees(name: &str) {
    let (gp, dr, jn) = compare(name);
    assert!(gp <= 0.05, "{name}: aggregate goodput differs from ns-3 by {:.1}%", gp * 100.0);
    assert!(dr <= 0.25, "{name}: drop ratio differs from ns-3 by {:.1}%", dr * 100.0);
    assert!(jn <= 0.1, "{name}: Jain index differs from ns-3 by {jn:.3}");
}

// tests CUBIC (ns-3 `TcpCubic`, ns-3.44 flavour under the profile) on the reference's 90-flow
// access case: goodput, drop ratio, queue and Jain's index within the tolerances above.
#[test]
fn access90_cubic_matches_ns3() {
    assert_agrees("c-access90-cubic-fifo");
}

#[test]
fn single_newreno_matches_ns3() {
    assert_agrees("e-single-newreno-fifo");
}

#[test]
fn access9_newreno_matches_ns3() {
    assert_agrees("a-access9-newreno-fifo");
}

#[test]
fn access90_newreno_matches_ns3() {
    assert_agrees("b-access90-newreno-fifo");
}

// CoDel at the bottleneck (ns-3.44's CoDelQueueDisc, 900 packets, target 5 ms, interval
// 100 ms), Sluice under `arith = "ns3"`.
#[test]
fn access90_newreno_codel_matches_ns3() {
    assert_agrees("b-access90-newreno-codel");
    assert_aqm_agrees("b-access90-newreno-codel", true);
}

/// The AQM tolerances beyond [`assert_agrees`]: mean queue within 20 %, and, where ns-3 marked
/// and `marks` asks, the marks within 25 % relative; every drop and mark has a reason.
fn assert_aqm_agrees(name: &str, marks: bool) {
    let (s, case) = run_case(name);
    let q = s.queues.iter().find(|q| q.name == "A->B").unwrap();
    let ns_q = case["queue_mean_pkts"].as_f64().unwrap();
    let dq = (q.mean_len_pkts - ns_q).abs() / ns_q;
    eprintln!("{name}: queue {:.1} vs {ns_q:.1} pkts; marked {} vs {}; drops {:?}, marks {:?}; ns-3 {}", q.mean_len_pkts, q.marked, case["qdisc_window"]["marked"], q.drops_by_reason, q.marks_by_reason, case["qdisc_window"]);
    assert!(dq <= 0.2, "{name}: mean queue differs from ns-3's by {:.1}%", dq * 100.0);
    if let Some(m) = case["qdisc_window"]["marked"].as_u64().filter(|&m| m > 0 && marks) {
        let dm = (q.marked as f64 - m as f64).abs() / m as f64;
        assert!(dm <= 0.25, "{name}: marks differ from ns-3's by {:.1}%", dm * 100.0);
    }
    assert_eq!(q.drops_by_reason.values().sum::<u64>(), q.dropped);
    assert_eq!(q.marks_by_reason.values().sum::<u64>(), q.marked);
}

// FQ-CoDel (ns-3.44's FqCoDelQueueDisc, its defaults: 1024 queues, 10240 packets, quantum = the
// 1500-byte MTU, ns-3's hash) on the same link, 20 s; and CoDel and FQ-CoDel with ECN (sockets
// and queue). All three are identical to ns-3 packet for packet (asserted with the other
// identical cases); here the tolerances, marks included.
#[test]
fn access90_newreno_fq_codel_and_ecn_match_ns3() {
    for (name, marks) in [("b-access90-newreno-fqcodel-20s", true), ("b-access90-newreno-codel-ecn-20s", true), ("b-access90-newreno-fqcodel-ecn-20s", true)] {
        assert_agrees(name);
        assert_aqm_agrees(name, marks);
    }
}

// EWT on router A of the nine-flow access case (100 s) and the 90-flow one (40 s from 10 s),
// start point 30 % of the 900-packet buffer, MSS floor 1460, against ns-3 with our EWT
// queue-disc hook (validation/ns3_ewt.py: it reads the A->B queue disc and lowers the window of
// every ACK leaving A's queue discs, with Sluice's arithmetic; docs/validation.md,
// "Network-return: EWT against an ns-3 queue-disc hook"). The tolerances: aggregate
// goodput within 5 %, losses at A->B both zero or within 25 % relative, and the mean queue
// within 20 %. Both runs are identical packet for packet (`identical_cases_agree_flow_by_flow`),
// so EWT's own counters are ns-3's too: every ACK at the rewrite point, each one lowered or
// left, and the mean reduction.
#[test]
fn access9_and_access90_newreno_ewt_match_ns3() {
    for name in ["v-access9-newreno-ewt", "v-access90-newreno-ewt-40s"] {
        assert_ewt_agrees(name);
    }
}

fn assert_ewt_agrees(name: &str) {
    let (gp, _, jn, qd) = compare_q(name);
    let (s, case) = run_case(name);
    let q = s.queues.iter().find(|q| q.name == "A->B").unwrap();
    let ns_drops = case["qdisc_window"]["dropped"].as_u64().unwrap();
    assert!(gp <= 0.05, "{name}: aggregate goodput differs from ns-3 by {:.1}%", gp * 100.0);
    assert!((q.dropped == 0) == (ns_drops == 0), "{name}: {} drops against ns-3's {ns_drops}", q.dropped);
    if ns_drops > 0 {
        let dd = (q.dropped as f64 - ns_drops as f64).abs() / ns_drops as f64;
        assert!(dd <= 0.25, "{name}: drops differ from ns-3's by {:.1}%", dd * 100.0);
    }
    assert!(qd <= 0.2, "{name}: mean queue differs from ns-3's by {:.1}%", qd * 100.0);
    assert!(jn <= 0.1, "{name}: Jain index differs from ns-3 by {jn:.3}");
    let (g, e) = (&s.gateways[0], &case["ewt"]);
    assert_eq!((g.kind.as_str(), g.monitor.as_str(), g.rewrite_at.as_str()), ("ewt", "A->B", "dequeue"));
    let ours = [g.acks, g.lowered, g.unchanged, g.skipped + g.raised + g.untracked];
    let theirs = [e["acks"].as_u64().unwrap(), e["lowered"].as_u64().unwrap(), e["unchanged"].as_u64().unwrap(), e["skipped"].as_u64().unwrap()];
    assert_eq!(ours, theirs, "{name}: EWT's ACKs, lowered, unchanged, other");
    let mr = e["mean_reduction_bytes"].as_f64().unwrap();
    assert!((g.mean_reduction_bytes - mr).abs() <= 1e-9 * mr, "{name}: mean reduction {} B against ns-3's {mr} B", g.mean_reduction_bytes);
}

#[test]
fn dc90_newreno_matches_ns3() {
    assert_agrees("d-dc90-newreno-fifo-10s");
}

// An ns-3.30-era endpoint on a 10 Mb/s bottleneck: classic recovery, initial window 1, MSS 536,
// 128 KiB buffers (what `tcp_preset = "ns3.30"` sets), run in ns-3.44 with those attributes.
#[test]
fn access9_ns330_endpoint_matches_ns3() {
    assert_agrees("f-access9-ns330-10mbps");
}

// The same without SACK: NewReno's own recovery (RFC 6582 partial ACKs, ns-3's rules).
#[test]
fn access9_ns330_endpoint_without_sack_matches_ns3() {
    assert_agrees("g-access9-nosack-10mbps");
}

/// Where a case's run differs from ns-3's: per flow, goodput as ns-3 measured it, to the
/// fixture's precision (what a packet-for-packet identical run gives), and the departure
/// fingerprint of our ns-3 record of the case (count and SHA-256). Empty when it agrees.
fn identical_case_differences(name: &str) -> Vec<String> {
    let (s, case, fp) = run_case_with(name, true);
    let fp = fp.expect("captured");
    let mut out = Vec::new();
    // The forward flows, then the reverse flows of a two-way case (--reverse-flows).
    let listed = case["flows"].as_array().unwrap().iter().chain(case["reverse_flows"].as_array().into_iter().flatten());
    let ns: Vec<f64> = listed.map(|f| f["goodput_mbps"].as_f64().unwrap()).collect();
    assert_eq!(s.flows.len(), ns.len());
    // ns-3's script divides every flow's bytes by the window; Sluice's goodput is over the part
    // of the window the flow was active (a file transfer's own duration, a flow starting inside
    // the window from its start), so compare the bytes over the window.
    let window_s = s.sim_time_s - s.warmup_s;
    let mbps = |f: &sluice_sim::monitor::summary::FlowSummary| f.bytes_delivered as f64 * 8.0 / window_s / 1e6;
    let d = s.flows.iter().zip(&ns).map(|(f, &n)| (mbps(f) - n).abs() / n.max(1e-9)).fold(0.0, f64::max);
    if d >= 1e-5 {
        out.push(format!("{name}: a flow's goodput differs from ns-3's by {d:.2e}"));
    }
    match Departures::from_record(&own_record(name)) {
        None => out.push(format!("{name}: validation/fixtures/ns3/{name}.json has no departure fingerprint")),
        Some(ns3) if ns3 != fp => out.push(format!(
            "{name}: departures on A->B differ from ns-3's: Sluice {} packets, sha256 {} over {:?} ns; ns-3 {} packets, sha256 {} over {:?} ns",
            fp.count, fp.sha256, fp.window_ns, ns3.count, ns3.sha256, ns3.window_ns
        )),
        Some(_) => {}
    }
    eprintln!("{name}: {} departures, sha256 {}{}", fp.count, fp.sha256, if out.is_empty() { " (as ns-3)" } else { "" });
    out
}

// Cases whose runs are identical to ns-3's packet for packet (docs/validation.md), the jitter
// case with ns-3's drawn offsets among them: every flow's goodput agrees with ns-3's to the
// fixture's precision, and the packets leaving A on the bottleneck in the measurement window
// are ns-3's, at the same nanoseconds, in the same order, with the same sequence numbers,
// lengths and flags (the departure fingerprint ns3_dumbbell.py recorded; validation/departures.py
// defines it). A change to a TCP rule the ns-3 profile follows shows here long before it moves
// an aggregate outside the tolerances above. Every case runs before the test fails, so one run
// lists every case that parts.
#[test]
fn identical_cases_agree_flow_by_flow() {
    let mut failures = Vec::new();
    for name in ["e-single-newreno-fifo", "a-access9-newreno-fifo", "d-dc90-newreno-fifo-10s", "f-access9-ns330-10mbps", "g-access9-nosack-10mbps", "b-access90-newreno-fifo", "x-access90-newreno-fifo-jitter120us-drawn", "h-access20-newreno-20mbps", "i-access12-nosack-64k-10mbps", "j-access12-nosack-minrto200ms-10mbps", "k-access12-sack-minrto200ms-10mbps", "l-access12-nosack-minrto200ms-iw4-10mbps", "m-access16-delack1-15mbps", "n-access30-buf10-5mbps", "q-single-cubic", "q-access9-cubic", "r-single-vegas", "r-access9-vegas", "b-access90-newreno-codel", "b-access90-newreno-codel-ecn-20s", "b-access90-newreno-fqcodel-20s", "b-access90-newreno-fqcodel-ecn-20s", "c-access90-cubic-codel", "s-single-linuxreno", "s-access9-linuxreno", "t-access9-mixed", "c-access90-cubic-fifo", "v-access9-newreno-ewt", "v-access90-newreno-ewt-40s", "w-access12-nosack-newreno-10mbps", "w-access12-nosack-cubic-10mbps", "w-access12-nosack-linuxreno-10mbps", "w-access20-cubic-20mbps", "w-access16-linuxreno-delack1-15mbps", "w-access15-mixed4-buf20-10mbps", "w-access6-cubic-200mbps", "w-access10-cubic-files3mb-20mbps", "w-access9-vegas-minrto200ms-30mbps", "w-access12-nosack-vegas-10mbps", "w-access8-cubic-buf64k-50mbps", "w-access12-linuxreno-fqcodel-20mbps", "w-access9-nosack-cubic-delack1-15mbps", "w-access12-mixed3-iw4-minrto200ms-25mbps", "w-access9-cubic-classic-10mbps", "w-access9-nosack-vegas-mss536-10mbps", "w-access12-cubic-codel-ecn-20mbps", "y-access10-cubic-fqcodel-ecn-30mbps", "y-access10-newreno-codel2ms-ecn-25mbps", "y-access12-linuxreno-codel-ecn-delack1-15mbps", "y-access12-mixed4-codel-ecn-15mbps", "y-access12-newreno-buf16k-30mbps", "y-access12-nosack-newreno-codel-ecn-20mbps", "y-access4-cubic-500mbps", "y-access6-vegas-files1mb-10mbps", "y-access8-cubic-mss1000-40mbps", "y-access9-nosack-cubic-fqcodel-ecn-minrto200ms-20mbps", "y-access9-nosack-linuxreno-iw1-classic-10mbps", "y-access9-vegas-codel-ecn-20mbps", "y-access10-cubic-iw2-minrto200ms-classic-20mbps", "y-access12-mixed4-files1mb-15mbps", "y-access12-nosack-cubic-files500kb-10mbps", "y-access12-nosack-vegas-codel-ecn-15mbps", "y-access10-mixed2-fqcodel-ecn-files1mb-20mbps", "y-access12-nosack-newreno-classic-codel-ecn-15mbps", "y-access6-newreno-iw1-10mbps", "y-access8-cubic-longrtt-20mbps", "y-access9-cubic-mss1200-delack3-15mbps", "y-access9-nosack-linuxreno-files1mb-delack1-10mbps", "y-access9-nosack-vegas-files500kb-minrto200ms-10mbps", "y-access12-vegas-codel-20mbps", "y-access9-nosack-vegas-fqcodel-15mbps", "y-access10-nosack-newreno-files500kb-ecn-delack1-10mbps", "y-access10-cubic-iw4-files300kb-codel-ecn-15mbps", "y-access4-linuxreno-500mbps", "y-access12-nosack-mixed2-buf12-minrto200ms-10mbps", "y-access6-newreno-jumbo-100mbps", "y-access8-cubic-rcvbuf32k-30mbps", "y-access12-linuxreno-classic-codel-ecn-20mbps", "y-access9-nosack-cubic-classic-fqcodel-ecn-15mbps", "y-access9-vegas-classic-15mbps", "y-access8-nosack-newreno-iw1-delack1-minrto200ms-buf8-5mbps", "y-access30-cubic-files100kb-20mbps", "y-access12-mixed3-mss536-delack1-fqcodel-ecn-10mbps", "y-access12-vegas-buf15-10mbps", "y-access16-nosack-linuxreno-buf16k-20mbps", "y-access20-newreno-files200kb-10mbps", "y-access6-vegas-300mbps", "y-access9-cubic-fqcodel-ecn-mss1000-delack1-20mbps", "y-access9-linuxreno-files1mb-codel-ecn-10mbps", "y-access9-newreno-mss536-codel-ecn-10mbps", "y-access9-vegas-fqcodel-ecn-delack1-15mbps", "z-access10-cubic-rev5-30mbps", "z-access12-newreno-codel-ecn-rev6-15mbps", "z-access12-nosack-newreno-rev12-rcvbuf64k-10mbps", "z-access6-cubic-files1mb-rev6-10mbps", "z-access8-linuxreno-rev4-delack1-15mbps", "z-access9-mixed3-rev9-rcvbuf128k-20mbps", "z-access9-newreno-rev9-20mbps", "z-access9-vegas-rev9-15mbps", "z-access10-cubic-rev10-revbuf30-30mbps", "z-access10-newreno-files500kb-rev10-revbuf20-10mbps", "z-access12-mixed4-rev12-revbuf60-fqcodel-ecn-20mbps", "z-access12-nosack-newreno-rev6-revbuf20-10mbps", "z-access9-cubic-rev9-revbuf30-minrto200ms-delack1-20mbps", "z-access9-linuxreno-rev9-revbuf25-classic-15mbps", "z-access9-newreno-rev9-revbuf50-20mbps", "z-access9-vegas-rev9-revbuf40-15mbps", "z-access90-newreno-rev90-revbuf900-100mbps"] {
        failures.extend(identical_case_differences(name));
    }
    assert!(failures.is_empty(), "cases that part from ns-3:\n{}", failures.join("\n"));
}

/// What each ns-3 behaviour of the profile does on its own on the reference cases: Sluice's
/// default options (the set-up's MSS and buffers kept) with one option at a time set as the
/// `ns3.44` profile sets it. Prints a table; judges nothing (docs/validation.md, "Default
/// profile"). `cargo test --release -p sluice-sim --test integration default_profile_options
/// -- --ignored --nocapture`
#[test]
#[ignore = "prints the default-profile table of docs/validation.md; run on demand"]
fn default_profile_options() {
    let ns3 = TcpConfig::ns3_44();
    type Set = fn(&mut TcpConfig, &TcpConfig);
    let options: Vec<(&str, Set)> = vec![
        ("(none: default)", |_, _| {}),
        ("syn_rto", |t, n| t.syn_rto = n.syn_rto),
        ("wnd_update", |t, n| t.wnd_update = n.wnd_update),
        ("dupack", |t, n| t.dupack = n.dupack),
        ("syn_mss_option", |t, n| t.compat.syn_mss_option = n.compat.syn_mss_option),
        ("ack_first_segment", |t, n| t.compat.ack_first_segment = n.compat.ack_first_segment),
        ("first_data_delay", |t, n| t.compat.first_data_delay = n.compat.first_data_delay),
        ("prr_u32_product", |t, n| t.compat.prr_u32_product = n.compat.prr_u32_product),
        ("prr_u32_limit", |t, n| t.compat.prr_u32_limit = n.compat.prr_u32_limit),
        ("prr_empty_ack_keeps_cwnd", |t, n| t.compat.prr_empty_ack_keeps_cwnd = n.compat.prr_empty_ack_keeps_cwnd),
        ("partial_ack_nextseg", |t, n| t.compat.partial_ack_nextseg = n.compat.partial_ack_nextseg),
        ("pipe_counts_sacked_retx", |t, n| t.compat.pipe_counts_sacked_retx = n.compat.pipe_counts_sacked_retx),
        ("exit_ack_grows", |t, n| t.compat.exit_ack_grows = n.compat.exit_ack_grows),
        ("ooo_shrinks_window", |t, n| t.compat.ooo_shrinks_window = n.compat.ooo_shrinks_window),
        ("slow_start_capped", |t, n| t.compat.slow_start_capped = n.compat.slow_start_capped),
        ("retx_merge", |t, n| t.compat.retx_merge = n.compat.retx_merge),
        ("rwnd_bounds_retx", |t, n| t.compat.rwnd_bounds_retx = n.compat.rwnd_bounds_retx),
        ("rtt_from_ts", |t, n| t.compat.rtt_from_ts = n.compat.rtt_from_ts),
        ("ts_recent_in_order", |t, n| t.compat.ts_recent_in_order = n.compat.ts_recent_in_order),
        ("edge_clip", |t, n| t.compat.edge_clip = n.compat.edge_clip),
        ("acked_whole_segments", |t, n| t.compat.acked_whole_segments = n.compat.acked_whole_segments),
        ("sack_report", |t, n| t.compat.sack_report = n.compat.sack_report),
        ("nextseg", |t, n| t.compat.nextseg = n.compat.nextseg),
        ("dup_ack_restarts_rto", |t, n| t.compat.dup_ack_restarts_rto = n.compat.dup_ack_restarts_rto),
        ("rto_holds_ssthresh", |t, n| t.compat.rto_holds_ssthresh = n.compat.rto_holds_ssthresh),
        ("ack_duplicate_synack", |t, n| t.compat.ack_duplicate_synack = n.compat.ack_duplicate_synack),
        ("pace_fast_retransmit", |t, n| t.compat.pace_fast_retransmit = n.compat.pace_fast_retransmit),
        ("ecn_echo_rfc", |t, n| t.compat.ecn_echo_rfc = n.compat.ecn_echo_rfc),
        ("cc_sees_cwr", |t, n| t.compat.cc_sees_cwr = n.compat.cc_sees_cwr),
        ("fin_acked_apart", |t, n| t.compat.fin_acked_apart = n.compat.fin_acked_apart),
        ("open_sends_after_fin", |t, n| t.compat.open_sends_after_fin = n.compat.open_sends_after_fin),
        ("time_wait_answers", |t, n| t.compat.time_wait_answers = n.compat.time_wait_answers),
        ("timer_ties_as_set", |t, n| t.compat.timer_ties_as_set = n.compat.timer_ties_as_set),
        ("data_retries", |t, n| t.data_retries = n.data_retries),
        ("(all: ns3.44)", |t, n| *t = n.clone()),
    ];
    for name in ["e-single-newreno-fifo", "a-access9-newreno-fifo", "b-access90-newreno-fifo", "d-dc90-newreno-fifo-10s"] {
        let c = case(name);
        println!(
            "{name}: ns-3 goodput {:.2} Mb/s, drop ratio {:.3e}, Jain {:.3}",
            c["aggregate_goodput_mbps"].as_f64().unwrap(),
            c["drop_ratio"].as_f64().unwrap(),
            c["jain"].as_f64().unwrap()
        );
        for (opt, set) in &options {
            let mut t = TcpConfig { snd_buf: 8 << 20, rcv_buf: 8 << 20, ..TcpConfig::default() };
            set(&mut t, &ns3);
            let (s, _, _) = run_case_tcp(name, false, t);
            let q = s.queues.iter().find(|q| q.name == "A->B").unwrap();
            println!("  {opt:24} goodput {:8.2}  drop {:.3e}  Jain {:.3}  queue {:6.1}", s.aggregate_goodput_bps / 1e6, q.drop_ratio, s.jain_goodput, q.mean_len_pkts);
        }
    }
}

// Scripted losses on the bottleneck, each list chosen to drive TCP down one loss-recovery path
// (docs/validation.md, "Under identical losses"): the same packets are lost in both
// simulators (the n-th packet, or data segment, crossing A->B or B->A), and then the runs are
// identical packet for packet: every flow's goodput, the departure fingerprint, the link's
// losses and every flow's timeout and recovery episodes (ns-3's CongState entries into
// CA_LOSS and CA_RECOVERY).
#[test]
fn scripted_loss_cases_agree_packet_for_packet() {
    let mut failures = Vec::new();
    for name in [
        "p-loss-retx-lost",
        "p-loss-two-timeouts",
        "p-loss-after-timeout",
        "p-loss-syn",
        "p-loss-synack",
        "p-loss-fin-segment",
        "p-loss-fin",
        "p-loss-ten-sack",
        "p-loss-ten-nosack",
    ] {
        let mut parts = identical_case_differences(name);
        let (s, case) = run_case(name);
        let q = s.queues.iter().find(|q| q.name == "A->B").unwrap();
        let ns_losses = case["link_losses_window"].as_u64().expect("a --loss record counts the link's losses");
        if q.link_losses != ns_losses {
            parts.push(format!("{name}: {} packets lost on A->B, ns-3 {ns_losses}", q.link_losses));
        }
        for (f, n) in s.flows.iter().zip(case["flows"].as_array().unwrap()) {
            let ours = (f.timeout_episodes, f.recovery_episodes);
            let theirs = (n["timeout_episodes"].as_u64().unwrap(), n["recovery_episodes"].as_u64().unwrap());
            if ours != theirs {
                parts.push(format!("{name}: flow {} (timeout, recovery) episodes {ours:?}, ns-3 {theirs:?}", f.id));
            }
        }
        failures.extend(parts);
    }
    assert!(failures.is_empty(), "cases that part from ns-3:\n{}", failures.join("\n"));
}

/// BBR's ns-3 cases, each run with ns-3's ProbeBW draws pinned and replayed
/// (`ns3_dumbbell.py --bbr-streams`, `bbr.cycle_draws`; docs/validation.md, "BBR packet for
/// packet"): every file `validation/fixtures/ns3/v-bbr-*.json`.
fn bbr_cases() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../validation/fixtures/ns3");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("fixtures present")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| Some(f.strip_prefix("v-bbr-")?.strip_suffix(".json")?.to_string()))
        .map(|n| format!("v-bbr-{n}"))
        .collect();
    names.sort();
    names
}

// tests BBR against ns-3.44's TcpBbr packet for packet: with ns-3's draws of ProbeBW's first
// phase replayed, every BBR case (one flow to ninety, drop-tail and CoDel, with and without
// SACK, losses at the bottleneck, BBR beside NewReno) is identical to ns-3 in every flow's
// goodput and in the departures from A on the bottleneck (see `identical_cases_agree_flow_by_flow`).
#[test]
fn bbr_cases_agree_with_ns3_packet_for_packet() {
    let names = bbr_cases();
    assert!(names.len() >= 15, "the BBR records: {names:?}");
    let failures: Vec<String> = names.iter().flat_map(|n| identical_case_differences(n)).collect();
    assert!(failures.is_empty(), "BBR cases that part from ns-3:\n{}", failures.join("\n"));
}

/// The other congestion controls' ns-3 cases (docs/validation.md, "Other congestion controls"):
/// CUBIC and Vegas, one flow and nine, Linux's Reno, and a type per flow, all identical packet
/// for packet (asserted with the NewReno cases above).
const OTHER_CC_CASES: [&str; 7] = ["q-single-cubic", "q-access9-cubic", "r-single-vegas", "r-access9-vegas", "s-single-linuxreno", "s-access9-linuxreno", "t-access9-mixed"];

// Prints, for each other-CC case, the comparison and whether the departures are ns-3's.
#[test]
#[ignore = "diagnostic: prints the other congestion controls' agreement with ns-3"]
fn other_cc_cases_report() {
    for name in OTHER_CC_CASES {
        let (gp, dr, jn, qd) = compare_q(name);
        eprintln!("{name}: goodput {:.2}% drop {:.1}% jain {jn:.3} queue {:.1}%", gp * 100.0, dr * 100.0, qd * 100.0);
        let d = identical_case_differences(name);
        eprintln!("{name}: {}", if d.is_empty() { "identical".to_string() } else { d.join("; ") });
    }
}

// The `ns3.44` profile's CoDel and FQ-CoDel defaults are ns-3.44's attribute defaults, as read
// from the installed ns-3 by validation/ns3_qdisc_defaults.py (FQ-CoDel's quantum is the
// device's MTU, the point-to-point device's 1500).
#[test]
fn ns3_profile_queue_defaults_are_ns3s() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../validation/fixtures/ns3/qdisc-defaults.json");
    let d: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).expect("record present")).expect("parses");
    let limit = |v: &serde_json::Value| sluice_core::units::parse_queue_limit(&v.as_str().unwrap().replace("p", "pkt")).unwrap();
    let (c, f, dev) = (&d["ns3::CoDelQueueDisc"], &d["ns3::FqCoDelQueueDisc"], &d["ns3::PointToPointNetDevice"]);
    let codel = CodelConfig::for_profile(Profile::Ns3_44);
    assert_eq!(codel.target, dur(&c["Target"]));
    assert_eq!(codel.interval, dur(&c["Interval"]));
    assert_eq!(codel.limit, limit(&c["MaxSize"]));
    assert_eq!(codel.mtu.to_string(), c["MinBytes"].as_str().unwrap());
    assert_eq!(codel.ecn.to_string(), c["UseEcn"].as_str().unwrap());
    let fq = FqCodelConfig::for_profile(Profile::Ns3_44);
    assert_eq!(fq.target, dur(&f["Target"]));
    assert_eq!(fq.interval, dur(&f["Interval"]));
    assert_eq!(fq.limit, limit(&f["MaxSize"]));
    assert_eq!(fq.flows.to_string(), f["Flows"].as_str().unwrap());
    assert_eq!(fq.drop_batch.to_string(), f["DropBatchSize"].as_str().unwrap());
    assert_eq!(fq.ecn.to_string(), f["UseEcn"].as_str().unwrap());
    assert_eq!(fq.perturbation, sluice_core::qdisc::Perturbation::Fixed(f["Perturbation"].as_str().unwrap().parse().unwrap()));
    assert_eq!(fq.quantum.to_string(), dev["Mtu"].as_str().unwrap());
    assert_eq!(fq.mtu.to_string(), c["MinBytes"].as_str().unwrap(), "each queue's CoDel keeps CoDel's MinBytes");
    // ns-3 classifies by its hash modulo Flows (`h = flowHash % m_flows`): set-associative
    // hashing is off by default, which is what `hash = "ns3"` reproduces.
    assert_eq!(f["EnableSetAssociativeHash"], "false");
    assert_eq!(fq.hash, sluice_core::qdisc::FqHash::Ns3);
}

/// (time ns, source address, TCP flags, payload bytes) of every TCP packet in a Sluice pcap
/// (nanosecond timestamps, 2-byte PPP header).
fn pcap_tcp(path: &std::path::Path) -> Vec<(u64, u32, u8, u32)> {
    let b = std::fs::read(path).expect("pcap written");
    let u32le = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let mut out = Vec::new();
    let mut off = 24;
    while off + 16 <= b.len() {
        let (sec, nsec, incl) = (u32le(off) as u64, u32le(off + 4) as u64, u32le(off + 8) as usize);
        let ip = &b[off + 18..off + 16 + incl];
        off += 16 + incl;
        let ihl = (ip[0] & 15) as usize * 4;
        let tcp = &ip[ihl..];
        let len = u16::from_be_bytes([ip[2], ip[3]]) as u32 - ihl as u32 - (tcp[12] >> 4) as u32 * 4;
        out.push((sec * 1_000_000_000 + nsec, u32::from_be_bytes(ip[12..16].try_into().unwrap()), tcp[13], len));
    }
    out
}

// tests `Ns3Compat::timer_ties_as_set`: a timer sorts among the events of its instant as of
// when it was set (ns-3 schedules `m_delAckEvent` then), not when the engine's lazy wake-up was
// re-armed. Two flows; receiver r0 (10.0.0.3) and r1 (10.0.0.4) 10 ms from B, senders 150 ms
// and 1 ms from A, 100 Mb/s everywhere. Flow 0's first window (10 segments, 120.16 µs apart)
// reaches r0 at t1…t10: segment 1 is ACKed at once (ns-3's counter starts full), 2 starts the
// 200 ms delayed-ACK timer (wake-up armed for t2 + 200 ms), 3 is ACKed, …, 10 starts it again:
// deadline t10 + 200 ms = T, later than the armed wake-up, which re-arms only when it fires at
// t2 + 200 ms = T − 0.96 ms. No more data reaches r0 before T (the next window needs a 320 ms
// round trip). Flow 1 starts so that its first data segment reaches r1 at exactly T (found by a
// first run), and r1 ACKs it at once; that arrival was scheduled when the segment started
// crossing B→r1, at T − 10 ms − 120.16 µs: after t10, before T − 0.96 ms. Both ACKs leave at T
// on equal links and reach B together, so B→A carries them in the order their endpoints ran at
// T: ns-3's, r0's timer first (set at t10); re-armed at T − 0.96 ms, it would run after r1.
#[test]
fn ns3_timer_sorts_as_of_when_it_was_set() {
    let scenario = |start1: &str| {
        format!(
            "name = \"ties\"\nduration = \"1s\"\nseed = 1\n[tcp]\nvalidate = \"ns3.44\"\n[topology]\nkind = \"dumbbell\"\npairs = 2\naccess_rate = \"100Mbps\"\n\
             sender_delays = [\"150ms\", \"1ms\"]\nreceiver_delays = [\"10ms\", \"10ms\"]\nbottleneck = {{ rate = \"100Mbps\", delay = \"1ms\" }}\n\
             queue = {{ kind = \"drop_tail\", limit = \"1000pkt\" }}\n\
             [[flows]]\nname = \"x\"\nsrc = \"s0\"\ndst = \"r0\"\napp = {{ kind = \"bulk\" }}\nstart = \"0s\"\n\
             [[flows]]\nname = \"y\"\nsrc = \"s1\"\ndst = \"r1\"\napp = {{ kind = \"bulk\" }}\nstart = \"{start1}\"\n\
             [monitor]\npcap = [\"r0->B\", \"r1->B\", \"B->A\"]\n"
        )
    };
    let (r0, r1) = (0x0a00_0003u32, 0x0a00_0004u32);
    let run = |start1: u64, as_set: bool| {
        let mut m = sluice_sim::scenario::load_str(&scenario(&format!("{start1}ns")), None).unwrap();
        for f in &mut m.flows {
            f.tcp.compat.timer_ties_as_set = as_set;
        }
        let dir = TempDir::new(&format!("ties-{as_set}-{start1}"));
        run_model(&m, &RunOptions { out_dir: Some(dir.0.clone()), ..Default::default() }).unwrap();
        let acks = |name: &str| pcap_tcp(&dir.0.join(name)).into_iter().filter(|p| p.3 == 0).map(|p| p.0).collect::<Vec<u64>>();
        // r0's pure ACKs: the SYN-ACK, the ACKs of 1, 3, 5, 7 and 9, then the timer's for 10
        // (index 6); r1's: the SYN-ACK, then its first data segment's (index 1).
        let (a0, a1) = (acks("r0-to-B.pcap"), acks("r1-to-B.pcap"));
        let order: Vec<u32> = pcap_tcp(&dir.0.join("B-to-A.pcap")).into_iter().filter(|p| p.0 > a0[6] && p.3 == 0).take(2).map(|p| p.1).collect();
        (a0[6], a0[5], a1[1], order)
    };
    let (t, before, arrive, _) = run(500_000_000, true);
    assert!(t - before > 199_000_000, "r0's ACK at T is its timer's ({} ns after the previous)", t - before);
    let start1 = 500_000_000 + t - arrive;
    for as_set in [true, false] {
        let (t2, _, arrive2, order) = run(start1, as_set);
        assert_eq!((t2, arrive2), (t, t), "flow 1's first data reaches r1 at T");
        let want = if as_set { [r0, r1] } else { [r1, r0] };
        assert_eq!(order, want, "timer_ties_as_set = {as_set}");
    }
}
