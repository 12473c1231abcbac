//! Multi-hop set-ups against ns-3 3.44: parking lots and graphs that `validation/ns3_graph.py`
//! ran in ns-3, each record holding its own scenario (docs/validation.md, "Multi-hop set-ups").

use crate::common::{departures_from_pcap_by, Departures};
use sluice_sim::RunOptions;

const RECORDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../validation/fixtures/ns3");

/// The parts of one record's comparison that disagree: every flow's bytes delivered in the
/// measurement window, and every router queue's departure fingerprint (the packets that start
/// transmission there, in order, at the same nanoseconds; a packet's flow is told by its two
/// hosts, the ACK direction with 2^31 added, as `ns3_graph.py` tells it).
fn multihop_differences(path: &std::path::Path) -> Vec<String> {
    let name = path.file_stem().unwrap().to_string_lossy().to_string();
    let rec: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let text = rec["scenario"].as_str().expect("the record holds its scenario");
    let model = sluice_sim::scenario::load_str(text, None).unwrap_or_else(|e| panic!("{name}: {e}"));
    let flow_of: std::collections::HashMap<(usize, usize), u32> = model
        .flows
        .iter()
        .enumerate()
        .flat_map(|(k, f)| [((f.src, f.dst), k as u32), ((f.dst, f.src), k as u32 | 1 << 31)])
        .collect();
    let queues = rec["departures"].as_object().expect("fingerprints by queue");
    let list = queues.keys().map(|q| format!("{q:?}")).collect::<Vec<_>>().join(", ");
    let captured = format!("{text}\n[monitor]\npcap = [{list}]\npcap_snaplen = 64\n");
    let dir = tempfile::tempdir().unwrap();
    let out = sluice_sim::run_str(&captured, None, &RunOptions { out_dir: Some(dir.path().to_path_buf()), ..Default::default() }).unwrap();
    let mut bad = Vec::new();
    for (f, n) in out.summary.flows.iter().zip(rec["flows"].as_array().unwrap()) {
        let want = n["bytes_window"].as_u64().unwrap();
        if f.bytes_delivered != want {
            bad.push(format!("{name}: flow {} delivered {} bytes in the window, ns-3 {want}", f.name, f.bytes_delivered));
        }
    }
    for (q, fp) in queues {
        let ns3 = Departures::from_record(&serde_json::json!({ "departures": fp })).expect("a fingerprint");
        let file = dir.path().join(format!("{}.pcap", q.replace("->", "-to-")));
        let mine = departures_from_pcap_by(&file, ns3.window_ns, |s, d, _| *flow_of.get(&(s, d)).unwrap_or_else(|| panic!("{name}: a packet from node {s} to node {d} of no flow")));
        if mine != ns3 {
            bad.push(format!("{name}: {q}: Sluice {} departures, sha256 {}; ns-3 {}, sha256 {}", mine.count, mine.sha256, ns3.count, ns3.sha256));
        }
    }
    eprintln!("{name}: {} router queues, {} flows{}", queues.len(), rec["flows"].as_array().unwrap().len(), if bad.is_empty() { " (as ns-3)" } else { "" });
    bad
}

// Every stored multi-hop record (`validation/fixtures/ns3/mh-*.json`) runs packet for packet as
// ns-3 ran it, on every router queue: the same packets leave each router at the same
// nanoseconds, and every flow delivers the same bytes in the window. Every record runs before
// the test fails, so one run lists each that parts.
#[test]
fn multihop_cases_agree_with_ns3() {
    let mut records: Vec<_> = std::fs::read_dir(RECORDS)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("mh-") && p.extension().is_some_and(|x| x == "json"))
        .collect();
    records.sort();
    assert!(records.len() >= 35, "the multi-hop records are stored ({} found)", records.len());
    let bad: Vec<String> = records.iter().flat_map(|p| multihop_differences(p)).collect();
    assert!(bad.is_empty(), "multi-hop cases that part from ns-3:\n{}", bad.join("\n"));
}
