//! NGWA's routers in whole runs: both routers of a dumbbell stamp IPv4 option 33 on the TCP
//! segments leaving any of their egress queues, read back from the captures.

use sluice_sim::{run_str, Column, RunOptions};

/// Two bulk flows s0→r0, s1→r1 over a 10 Mb/s, 20 ms bottleneck with 100-packet drop-tail
/// queues everywhere, 1000-B segments without timestamps (a data segment is 1040 B, 1048 B
/// stamped, under the 1500-B MTU); NGWA with flow division on both routers; `ngwa` is extra
/// keys of the controller.
fn dumbbell(ngwa: &str) -> String {
    let gw = |n: &str| format!("[[gateways]]\nnode = \"{n}\"\ncontroller = {{ kind = \"ngwa\", flow_division = true{ngwa} }}\n");
    format!(
        "name = \"ngwa\"\nduration = \"4s\"\n[tcp]\nmss = 1000\ntimestamps = false\n[topology]\nkind = \"dumbbell\"\npairs = 2\naccess_rate = \"100Mbps\"\naccess_delay = \"1ms\"\n\
         bottleneck = {{ rate = \"10Mbps\", delay = \"20ms\" }}\nqueue = {{ kind = \"drop_tail\", limit = \"100pkt\" }}\n\
         [[flows]]\ncount = 2\nsrc = \"senders\"\ndst = \"receivers\"\napp = {{ kind = \"bulk\" }}\n\
         [monitor]\npcap = \"all\"\nrewrite_trace = true\n{}{}",
        gw("A"),
        gw("B")
    )
}

/// One captured packet: transmission start (ns), bytes on the wire (PPP 2 + IP), and the IP
/// packet.
struct Rec {
    t: u64,
    wire: usize,
    ip: Vec<u8>,
}

/// The records of a Sluice capture (nanosecond pcap, PPP): the snap length covers the headers.
fn records(path: &std::path::Path) -> Vec<Rec> {
    let b = std::fs::read(path).unwrap();
    let le32 = |s: &[u8]| u32::from_le_bytes(s[..4].try_into().unwrap());
    let (mut out, mut off) = (Vec::new(), 24usize);
    while off + 16 <= b.len() {
        let t = le32(&b[off..]) as u64 * 1_000_000_000 + le32(&b[off + 4..]) as u64;
        let (incl, orig) = (le32(&b[off + 8..]) as usize, le32(&b[off + 12..]) as usize);
        out.push(Rec { t, wire: orig, ip: b[off + 16 + 2..off + 16 + incl].to_vec() });
        off += 16 + incl;
    }
    out
}

impl Rec {
    fn ihl(&self) -> usize {
        (self.ip[0] & 0x0f) as usize * 4
    }
    fn ip_len(&self) -> usize {
        u16::from_be_bytes([self.ip[2], self.ip[3]]) as usize
    }
    fn payload(&self) -> usize {
        let thl = (self.ip[self.ihl() + 12] >> 4) as usize * 4;
        self.ip_len() - self.ihl() - thl
    }
    fn flags(&self) -> u8 {
        self.ip[self.ihl() + 13]
    }
    /// Option 33's value when the packet carries NGWA's 8-byte layout right after the fixed
    /// header (`21 06 vv vv vv vv 01 00`).
    fn opt33(&self) -> Option<u32> {
        (self.ihl() == 28 && self.ip[20..22] == [0x21, 0x06] && self.ip[26..28] == [0x01, 0x00]).then(|| u32::from_be_bytes(self.ip[22..26].try_into().unwrap()))
    }
}

// Data segments reach r0 stamped by A with the bottleneck queue's free space shared by the two
// flows: W = 0.98·(100 − q)·1500/n_f with n_f = 2 (1 before the second SYN), i.e. a multiple
// of 735 up to 73,500 (B's own value, 0.98·150,000/1 = 147,000 for its empty access queue
// towards r0, is larger, so B keeps A's); every data segment is 1048 B (20 + 8 + 20 + 1000)
// and counts 1050 B on the wire. Pure ACKs going back are stamped too (NGWA §4.1: every TCP
// segment; IP header 28 B), and so is the SYN-ACK. Serialization counts the option: on the bottleneck A->B, two packets sent back
// to back are (1048 + 2)·8 bit / 10 Mb/s = 840 µs apart. Summary and trace count the stamps.
#[test]
fn both_routers_stamp_data_segments_with_the_path_minimum() {
    let dir = tempfile::tempdir().unwrap();
    let out = sluice_sim::run_str(&dumbbell(""), None, &RunOptions { out_dir: Some(dir.path().to_path_buf()), ..Default::default() }).unwrap();
    let to_r0 = records(&dir.path().join("B-to-r0.pcap"));
    let data: Vec<&Rec> = to_r0.iter().filter(|r| r.ip[9] == 6 && r.payload() > 0).collect();
    assert!(data.len() > 500, "{} data segments", data.len());
    for r in &data {
        let v = r.opt33().unwrap_or_else(|| panic!("data segment without option 33: {:02x?}", &r.ip[..28]));
        assert!(v % 735 == 0 && v <= 73_500, "stamp {v}");
        assert_eq!((r.ip_len(), r.wire, r.payload()), (1048, 1050, 1000));
    }
    let values: Vec<u32> = data.iter().filter_map(|r| r.opt33()).collect();
    assert!(values.iter().any(|&v| v < 73_500 / 2), "the queue fills at some point: {:?}", &values[..10]);

    let to_s0 = records(&dir.path().join("A-to-s0.pcap"));
    let syn_ack = to_s0.iter().find(|r| r.flags() & 0x12 == 0x12).expect("the SYN-ACK");
    assert!(syn_ack.opt33().is_some(), "SYN-ACK stamped");
    let pure: Vec<&Rec> = to_s0.iter().filter(|r| r.payload() == 0 && r.flags() & 0x07 == 0).collect();
    assert!(pure.len() > 200);
    let bad: Vec<_> = pure.iter().filter(|r| r.opt33().is_none()).map(|r| (r.ihl(), r.ip_len())).collect();
    assert!(bad.is_empty(), "pure ACKs stamped: {bad:?}");

    // Back to back on the bottleneck: the next transmission starts when the previous one ends.
    let ab = records(&dir.path().join("A-to-B.pcap"));
    let gaps: Vec<u64> = ab.windows(2).filter(|w| w[0].wire == 1050).map(|w| w[1].t - w[0].t).collect();
    assert!(gaps.iter().all(|&g| g >= 840_000), "a 1050-B packet takes 840 µs at 10 Mb/s");
    assert!(gaps.iter().filter(|&&g| g == 840_000).count() > gaps.len() / 2, "most back to back");

    let s = serde_json::to_value(&out.summary).unwrap();
    let (a, b) = (&s["gateways"][0], &s["gateways"][1]);
    assert_eq!((a["node"].as_str(), a["kind"].as_str(), b["node"].as_str()), (Some("A"), Some("ngwa"), Some("B")));
    assert_eq!(a["params"]["opt_len"].as_u64(), Some(8));
    let n = |g: &serde_json::Value, k: &str| g["ngwa"][k].as_u64().unwrap();
    // A inserts on the data segments, B keeps A's smaller values; B inserts on the pure ACKs
    // going back.
    assert!(n(a, "inserted") >= data.len() as u64 && n(b, "kept") >= data.len() as u64, "{a} {b}");
    assert!(n(b, "inserted") >= pure.len() as u64, "{b}");
    assert_eq!(n(a, "skipped") + n(b, "skipped"), 0);
    let t = out.tables.iter().find(|t| t.name == "rewrites").expect("rewrites table");
    let col = |name: &str| t.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c).unwrap();
    let (Column::Str(reason), Column::I64(orig), Column::I64(new)) = (col("reason"), col("orig_bytes"), col("new_bytes")) else { panic!("columns") };
    assert!(reason.iter().all(|r| r == "ngwa_stamp"));
    let stamps: u64 = [a, b].iter().map(|g| n(g, "inserted") + n(g, "lowered")).sum();
    assert_eq!(reason.len() as u64, stamps);
    assert!(orig.iter().zip(new).all(|(o, n)| *o == -1 || n < o), "rows insert (-1) or lower");
}

// Pure ACKs carry the option (IP header 20 + 8 B); opt_len = 4 inserts 4 bytes (20 + 4 B), the
// value saturating at 65,535.
#[test]
fn pure_acks_and_the_short_option() {
    for (extra, len) in [("", 48), (", opt_len = 4", 44)] {
        let dir = tempfile::tempdir().unwrap();
        sluice_sim::run_str(&dumbbell(extra).replace("duration = \"4s\"", "duration = \"1s\""), None, &RunOptions { out_dir: Some(dir.path().to_path_buf()), ..Default::default() }).unwrap();
        let to_s0 = records(&dir.path().join("A-to-s0.pcap"));
        let pure: Vec<&Rec> = to_s0.iter().filter(|r| r.payload() == 0 && r.flags() & 0x07 == 0).collect();
        assert!(pure.len() > 20);
        // IHL grows by the option; a SACK-carrying duplicate ACK has TCP options besides.
        let bad: Vec<_> = pure.iter().filter(|r| !(r.ihl() == len - 20 && r.ip[20] == 0x21)).map(|r| (r.ihl(), r.ip_len())).take(5).collect();
        assert!(bad.is_empty(), "{extra}: {bad:?}");
        // With 4 bytes the value saturates: A's empty access queue towards s0 offers
        // 0.98·150,000/1 = 147,000, B's reverse bottleneck queue (ACKs only, q ≤ 10 packets)
        // at least 0.98·90·1500/2 = 66,150, both above 65,535: every pure ACK carries FF FF.
        if len == 44 {
            assert!(pure.iter().all(|r| r.ip[21] == 4 && r.ip[22..24] == [0xFF, 0xFF]));
        }
    }
}

// Bad input: one line naming the field.
#[test]
fn bad_ngwa_names_the_field() {
    let err = |text: String| sluice_sim::scenario::load_str(&text, None).unwrap_err().to_string();
    let e = err(dumbbell(", opt_len = 6"));
    assert!(e.contains("gateways[0].controller.opt_len") && e.contains("expected 4 or 8"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    let e = err(dumbbell(", stamp_floor = \"mss\""));
    assert!(e.contains("gateways[0].controller.stamp_floor") && e.contains("only with stamp_ack = true"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    let e = err(dumbbell(", br = \"pkt\""));
    assert!(e.contains("gateways[0]") && e.contains("unknown variant `pkt`") && e.contains("bytes"), "{e}");
    let e = err(dumbbell("").replace("kind = \"ngwa\"", "kind = \"ngwx\""));
    assert!(e.contains("gateways[0].controller") && e.contains("ngwa") && e.contains("ewt"), "{e}");
    let e = err(dumbbell("").replace("[[gateways]]\nnode = \"B\"", "[[gateways]]\nnode = \"B\"\nmonitor = \"B->A\""));
    assert!(e.contains("gateways[1].monitor") && e.contains("not used by NGWA"), "{e}");
    // With stamp_ack = true NGWA is a window controller: it takes a monitored queue.
    let m = sluice_sim::scenario::load_str(&dumbbell(", stamp_ack = true").replace("[[gateways]]\nnode = \"B\"", "[[gateways]]\nnode = \"B\"\nmonitor = \"B->A\""), None).unwrap();
    assert_eq!((m.gateways.len(), m.ngwa.len(), m.gateways[1].monitor.as_str(), m.gateways[0].monitor.as_str()), (2, 0, "B->A", "A->B"));
    let e = err(dumbbell("").replace("node = \"B\"", "node = \"A\""));
    assert!(e.contains("gateways[1].node") && e.contains("already has a gateway"), "{e}");
}

/// The NGWA paper's set-up (scenarios/papers/talau2013-ngwa/ngwa.toml) cut to `secs` seconds,
/// with `tcp` extra `[tcp]` keys and `rest` appended (a mode and the routers).
fn talau2013(secs: u32, tcp: &str, rest: &str) -> String {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/papers/talau2013-ngwa/ngwa.toml")).unwrap();
    let text = text.replacen("duration = \"600s\"", &format!("duration = \"{secs}s\""), 1).replacen("\n[tcp]\n", &format!("\n[tcp]\n{tcp}\n"), 1);
    format!("{text}\n{rest}")
}

// tests the robust claim of Talau & Wille's Table 2 on the first 60 s of the reproduction (four
// 500-kbit/s flows into 1.1 Mbit/s): NGWA's modes 2 and 5-8 lose no data packet (nor an ACK),
// while standard TCP (RFC 793) and NewReno lose some, RFC 793 the most. Every NGWA flow runs
// 1000-B segments (mss 1008 less the 8-byte option) and gets a share near a quarter of the link.
#[test]
fn talau2013_modes_with_smoothing_or_flow_division_lose_nothing() {
    let lost = |tcp: &str, rest: &str| {
        let s = run_str(&talau2013(60, tcp, rest), None, &RunOptions::default()).unwrap().summary;
        let data: u64 = s.flows.iter().map(|f| f.data_dir_packets_lost).sum();
        let all: u64 = s.flows.iter().map(|f| f.lost_packets).sum();
        (data, all, s)
    };
    let (rfc793, _, _) = lost("cc = \"none\"\ndelack = \"off\"", "");
    let (newreno, _, _) = lost("", "");
    assert!(rfc793 > newreno && newreno > 0, "RFC 793 {rfc793}, NewReno {newreno}");
    let routers = "[[gateways]]\nnode = \"A\"\ncontroller = { kind = \"ngwa\" }\n[[gateways]]\nnode = \"B\"\ncontroller = { kind = \"ngwa\" }\n";
    for mode in [2, 5, 6, 7, 8] {
        let delack = if mode >= 7 { "\ndelack = \"off\"" } else { "" };
        let (data, all, s) = lost(&format!("mss = 1008{delack}"), &format!("[ngwa]\nmode = {mode}\n{routers}"));
        assert_eq!((data, all), (0, 0), "mode {mode}");
        for f in &s.flows {
            assert_eq!(f.payload_bytes_sent % 1000, 0, "mode {mode}: 1000-B segments");
            assert!(f.goodput_bps > 0.2 * 1.1e6 && f.goodput_bps < 0.3 * 1.1e6, "mode {mode}: {}", f.goodput_bps);
        }
        assert!(s.gateways.iter().all(|g| g.ngwa.as_ref().is_some_and(|n| n.inserted > 0 && n.skipped == 0)), "mode {mode}");
    }
}

/// Two NewReno bulk flows s0→r0, s1→r1 with standard (non-NGWA) endpoints, MSS 1460 (1500-B
/// packets), over a 10 Mb/s, 20 ms bottleneck; 100-packet drop-tail queues; `gateway` appended.
fn standard_dumbbell(gateway: &str) -> String {
    format!(
        "name = \"ngwa_ack\"\nduration = \"4s\"\n[tcp]\nmss = 1460\ntimestamps = false\n[topology]\nkind = \"dumbbell\"\npairs = 2\naccess_rate = \"100Mbps\"\naccess_delay = \"1ms\"\n\
         bottleneck = {{ rate = \"10Mbps\", delay = \"20ms\" }}\nqueue = {{ kind = \"drop_tail\", limit = \"100pkt\" }}\n\
         [[flows]]\ncount = 2\nsrc = \"senders\"\ndst = \"receivers\"\napp = {{ kind = \"bulk\" }}\n\
         [monitor]\npcap = \"all\"\nrewrite_trace = true\n{gateway}"
    )
}

// The gateway-only variant on A alone, flow division on, standard receivers. W_node of the
// bottleneck queue A->B (100 packets, br = "pkts": (100 − q)·1500 B free) with n_f = 2 is at
// most 0.98·150,000/2 = 73,500 B, written into the ACKs leaving A toward the senders:
//
// * every row of the rewrites trace (reason `ngwa_ack`) lowers (new < orig) to at most
//   0.98·150,000 = 147,000 B (n_f ≥ 1), most to at most 73,500 + one scaled unit;
// * the summary counts them (lowered > 0, raised = 0);
// * no packet carries option 33 (IHL 5 on every captured packet: the variant only writes
//   windows);
// * loss: the two senders together may have at most 2·73,500 = 147,000 B of payload in
//   flight, 100.7 segments of 1460 B, i.e. 101 packets at most, of which the bottleneck
//   queue can hold only those not on the wire: with the bottleneck busy at least the packet
//   being sent and the ACK clock's packets in the 44-ms loop (10 Mb/s · 44 ms = 55,000 B ≈ 36
//   packets once the flows are past slow start) are elsewhere, so A->B never reaches 100 and
//   drops nothing. Drop-tail alone lets NewReno's windows grow until the queue overflows
//   (slow start alone doubles past 100 packets of queue + 36 in the pipe), so it drops some.
#[test]
fn stamp_ack_lowers_ack_windows_and_keeps_the_queue_below_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    let gw = "[[gateways]]\nnode = \"A\"\ncontroller = { kind = \"ngwa\", stamp_ack = true, flow_division = true }\n";
    let out = run_str(&standard_dumbbell(gw), None, &RunOptions { out_dir: Some(dir.path().to_path_buf()), ..Default::default() }).unwrap();
    let plain = run_str(&standard_dumbbell(""), None, &RunOptions::default()).unwrap();
    let drops = |s: &sluice_sim::Summary| s.queues.iter().find(|q| q.name == "A->B").unwrap().dropped;
    assert_eq!(drops(&out.summary), 0, "NGWA's windows keep A->B below its limit");
    assert!(drops(&plain.summary) > 0, "drop-tail alone overflows");
    let lost = |s: &sluice_sim::Summary| s.flows.iter().map(|f| f.lost_packets).sum::<u64>();
    assert!(lost(&out.summary) < lost(&plain.summary), "{} vs {}", lost(&out.summary), lost(&plain.summary));
    // Both flows still use the link: the windows limit the queue, not the throughput.
    let goodput: f64 = out.summary.flows.iter().map(|f| f.goodput_bps).sum();
    assert!(goodput > 0.9 * 10e6, "{goodput}");

    let s = serde_json::to_value(&out.summary).unwrap();
    let g = &s["gateways"][0];
    assert_eq!((g["node"].as_str(), g["kind"].as_str(), g["params"]["stamp_ack"].as_bool(), g["monitor"].as_str()), (Some("A"), Some("ngwa"), Some(true), Some("A->B")));
    let n = |k: &str| g[k].as_u64().unwrap();
    assert!(n("lowered") > 100 && n("raised") == 0, "{g}");
    let t = out.tables.iter().find(|t| t.name == "rewrites").expect("rewrites table");
    let col = |name: &str| t.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c).unwrap();
    let (Column::Str(reason), Column::I64(orig), Column::I64(new)) = (col("reason"), col("orig_bytes"), col("new_bytes")) else { panic!("columns") };
    assert_eq!(reason.len() as u64, n("lowered"));
    assert!(reason.iter().all(|r| r == "ngwa_ack"));
    assert!(orig.iter().zip(new).all(|(o, n)| n < o && *n <= 147_000), "lowered, never raised, at most 0.98·B");
    let shared = new.iter().filter(|&&n| n <= 73_500).count();
    assert!(shared > new.len() * 9 / 10, "{shared} of {} at most 0.98·B/2", new.len());

    // No option anywhere: every captured packet has a 20-byte IP header.
    for f in ["A-to-B.pcap", "A-to-s0.pcap", "B-to-r0.pcap", "B-to-A.pcap"] {
        let recs = records(&dir.path().join(f));
        assert!(!recs.is_empty());
        assert!(recs.iter().all(|r| r.ihl() == 20), "{f}: option 33 inserted");
    }
    // The ACKs reaching s0 carry the lowered windows: none above what A may leave (the
    // receivers' own windows are larger: the ACKs arriving at A on B-to-A carry more).
    let shift_of = |recs: &[Rec]| -> u32 {
        let syn = recs.iter().find(|r| r.flags() & 0x02 != 0).expect("a SYN or SYN-ACK");
        let opts = &syn.ip[40..syn.ihl() + ((syn.ip[syn.ihl() + 12] >> 4) as usize * 4)];
        let mut i = 0;
        while i < opts.len() {
            match opts[i] {
                0 => break,
                1 => i += 1,
                3 => return opts[i + 2] as u32,
                _ => i += opts[i + 1].max(2) as usize,
            }
        }
        0
    };
    let to_s0 = records(&dir.path().join("A-to-s0.pcap"));
    let ws = shift_of(&to_s0);
    let win = |r: &Rec| (u16::from_be_bytes([r.ip[r.ihl() + 14], r.ip[r.ihl() + 15]]) as u64) << ws;
    let acks: Vec<u64> = to_s0.iter().filter(|r| r.flags() & 0x12 == 0x10).map(win).collect();
    assert!(acks.len() > 500);
    assert!(acks.iter().all(|&w| w <= 147_000), "{:?}", acks.iter().max());
    let from_r: Vec<u64> = records(&dir.path().join("B-to-A.pcap")).iter().filter(|r| r.flags() & 0x12 == 0x10).map(win).collect();
    assert!(from_r.iter().max() > acks.iter().max(), "the receivers advertise more than A leaves");
}
