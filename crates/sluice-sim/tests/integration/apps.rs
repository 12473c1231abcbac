//! The rate-limited TCP application and the flows' DSCP, end to end.

use sluice_sim::RunOptions;

fn dumbbell(flows: &str, duration: &str, warmup: &str, pcap: &str) -> String {
    format!(
        "name = \"apps\"\nduration = \"{duration}\"\nwarmup = \"{warmup}\"\n[topology]\nkind = \"dumbbell\"\npairs = 2\naccess_rate = \"100Mbps\"\n\
         bottleneck = {{ rate = \"10Mbps\", delay = \"10ms\" }}\nqueue = {{ kind = \"drop_tail\", limit = \"100pkt\" }}\n{flows}\n[monitor]\npcap = {pcap}\n"
    )
}

// A tcp_rate flow on a path faster than its rate delivers its rate: the application writes
// 1448 B every 1448·8/500,000 s = 23.168 ms (500 kbit/s), so over 180 s of measurement the
// receiver gets 500 kbit/s, give or take one write in flight at each end of the window
// (2 · 11,584 bit / 180 s = 129 bit/s, 0.03 %). A 5 Mbit/s flow of 1000-B writes beside it
// gets its 5 Mbit/s too (5.5 Mbit/s in all on a 10 Mbit/s bottleneck). Alone on a path slower
// than its rate, a flow gets the path (a 20 Mbit/s application on the 10 Mbit/s bottleneck
// delivers 1448/1500 of it, the rest being headers, within 2 %).
#[test]
fn tcp_rate_goodput_is_its_rate_on_a_faster_path() {
    let flows = "[[flows]]\nsrc = \"s0\"\ndst = \"r0\"\napp = { kind = \"tcp_rate\", rate = \"500kbps\" }\n\
                 [[flows]]\nsrc = \"s1\"\ndst = \"r1\"\napp = { kind = \"tcp_rate\", rate = \"5Mbps\", write_size = \"1000B\" }\nstart = \"1s\"\n";
    let s = sluice_sim::run_str(&dumbbell(flows, "200s", "20s", "\"none\""), None, &RunOptions::default()).unwrap().summary;
    for (f, want) in s.flows.iter().zip([500_000.0, 5_000_000.0]) {
        assert_eq!(f.kind, "tcp_rate");
        assert!((f.goodput_bps / want - 1.0).abs() < 0.001, "{}: goodput {} bit/s, want {want}", f.name, f.goodput_bps);
    }
    let flows = "[[flows]]\nsrc = \"s0\"\ndst = \"r0\"\napp = { kind = \"tcp_rate\", rate = \"20Mbps\" }\n";
    let s = sluice_sim::run_str(&dumbbell(flows, "60s", "10s", "\"none\""), None, &RunOptions::default()).unwrap().summary;
    let want = 10e6 * 1448.0 / 1502.0; // PPP 2 + IP 20 + TCP 32 per 1448-byte segment
    assert!((s.flows[0].goodput_bps / want - 1.0).abs() < 0.02, "goodput {} bit/s, path allows {want}", s.flows[0].goodput_bps);
}

// A flow's DSCP is on every packet it sends, both directions of a TCP flow and a UDP source's
// datagrams, and 0 for a flow without one: read back from the captures of the bottleneck's two
// directions by DSCP byte (byte 1 of the IPv4 header, after the 2-byte PPP field: DSCP << 2).
#[test]
fn flow_dscp_is_on_every_packet() {
    let flows = "[[flows]]\nsrc = \"s0\"\ndst = \"r0\"\ndscp = 46\napp = { kind = \"tcp_rate\", rate = \"1Mbps\" }\n\
                 [[flows]]\nsrc = \"s1\"\ndst = \"r1\"\ndscp = 26\napp = { kind = \"udp_cbr\", rate = \"1Mbps\", packet_size = \"1000B\" }\n\
                 [[flows]]\nsrc = \"s1\"\ndst = \"r1\"\napp = { kind = \"bulk\" }\nstop = \"1s\"\n";
    let dir = tempfile::tempdir().unwrap();
    let out = sluice_sim::run_str(&dumbbell(flows, "2s", "0s", "\"all\""), None, &RunOptions { out_dir: Some(dir.path().to_path_buf()), ..Default::default() }).unwrap();
    let mut seen = std::collections::BTreeMap::new();
    for f in ["A-to-B.pcap", "B-to-A.pcap"] {
        assert!(out.files.iter().any(|x| x == f), "{:?}", out.files);
        let bytes = std::fs::read(dir.path().join(f)).unwrap();
        let cap = pcap_parser::PcapCapture::from_file(&bytes).unwrap();
        for b in &cap.blocks {
            let ip = &b.data[2..];
            let ihl = (ip[0] & 0x0f) as usize * 4;
            let (proto, sport, dport) = (ip[9], u16::from_be_bytes([ip[ihl], ip[ihl + 1]]), u16::from_be_bytes([ip[ihl + 2], ip[ihl + 3]]));
            // Flow 0 is the TCP flow from client port 49152; flow 2 the bulk one, from 49154.
            let flow = match (proto, sport.min(dport)) {
                (17, _) => 1,
                (6, _) if sport == 49_152 || dport == 49_152 => 0,
                _ => 2,
            };
            *seen.entry((f, flow, ip[1] >> 2)).or_insert(0u32) += 1;
        }
    }
    let keys: Vec<_> = seen.keys().copied().collect();
    assert_eq!(
        keys,
        vec![("A-to-B.pcap", 0, 46), ("A-to-B.pcap", 1, 26), ("A-to-B.pcap", 2, 0), ("B-to-A.pcap", 0, 46), ("B-to-A.pcap", 2, 0)],
        "(capture, flow, DSCP): {seen:?}"
    );
}

// Flows due to start at the same instant start source node by source node, and within a node
// in the scenario's order, as ns-3 initialises its applications. Flow 0 is on s1, flows 1 and 2
// on s0: flow 1 starts first, then flow 2 (its SYN waits behind flow 1's on s0's access link),
// then flow 0, whose SYN reaches router A at the instant flow 1's does, after it. So the SYNs
// leave A as flows 1, 0, 2 (client ports 49153, 49152, 49154); in the flows' own order, flow
// 0's would lead.
#[test]
fn flows_starting_together_start_by_source_node_then_scenario_order() {
    let flows = "[[flows]]\nsrc = \"s1\"\ndst = \"r1\"\napp = { kind = \"bulk\" }\nstart = \"1s\"\n\
                 [[flows]]\nsrc = \"s0\"\ndst = \"r0\"\napp = { kind = \"bulk\" }\nstart = \"1s\"\n\
                 [[flows]]\nsrc = \"s0\"\ndst = \"r1\"\nport = 5002\napp = { kind = \"bulk\" }\nstart = \"1s\"\n";
    let dir = tempfile::tempdir().unwrap();
    sluice_sim::run_str(&dumbbell(flows, "1.1s", "0s", "[\"A->B\"]"), None, &RunOptions { out_dir: Some(dir.path().to_path_buf()), ..Default::default() }).unwrap();
    let bytes = std::fs::read(dir.path().join("A-to-B.pcap")).unwrap();
    let cap = pcap_parser::PcapCapture::from_file(&bytes).unwrap();
    let syns: Vec<u16> = cap
        .blocks
        .iter()
        .map(|b| &b.data[2..])
        .filter(|ip| ip[(ip[0] & 0x0f) as usize * 4 + 13] & 0x02 != 0)
        .map(|ip| {
            let tcp = &ip[(ip[0] & 0x0f) as usize * 4..];
            u16::from_be_bytes([tcp[0], tcp[1]])
        })
        .collect();
    assert_eq!(syns, vec![49_153, 49_152, 49_154]);
}
