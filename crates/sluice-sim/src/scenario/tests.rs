//! Scenario parsing and validation: every reference scenario loads; bad input fails with one
//! line naming the field.

use super::load_str;
use crate::model::{AppSpec, NodeKind, StartSpec};
use sluice_core::{Dur, Time};

const BASE: &str = r#"
name = "t"
duration = "10s"
warmup = "2s"
[topology]
kind = "dumbbell"
pairs = 2
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck = { rate = "10Mbps", delay = "5ms" }
queue = { kind = "drop_tail", limit = "50pkt" }
[[flows]]
count = 2
src = "senders"
dst = "receivers"
app = { kind = "bulk" }
"#;

/// Load `BASE` with `from` replaced by `to` and return the one-line error.
#[track_caller]
fn error_of(from: &str, to: &str) -> super::ScenarioError {
    let text = BASE.replacen(from, to, 1);
    assert_ne!(text, BASE, "the edit {from:?} must apply");
    let e = load_str(&text, None).expect_err("must be rejected");
    let line = e.to_string();
    assert!(!line.contains('\n'), "one line: {line}");
    e
}

#[test]
fn reference_and_example_scenarios_load() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
    let mut n = 0;
    for sub in ["reference", "examples"] {
        for e in std::fs::read_dir(format!("{dir}/{sub}")).expect("scenario folder") {
            let p = e.expect("entry").path();
            let text = std::fs::read_to_string(&p).expect("readable");
            load_str(&text, None).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            n += 1;
        }
    }
    assert!(n >= 8);
}

// tests the eval9 table: the access-link RTTs 8..204 ms of Table 1 of A. Piotrowska, "On
// Cross-Layer Interactions for Congestion Control in the Internet", Applied Sciences 2021.
#[test]
fn eval9_rtt_table() {
    let text = BASE.replace("access_delay = \"1ms\"", "rtt_table = \"eval9\"").replace("pairs = 2", "pairs = 9").replace("bottleneck = { rate = \"10Mbps\", delay = \"5ms\" }", "bottleneck = { rate = \"100Mbps\", delay = \"2ms\" }");
    let m = load_str(&text, None).unwrap();
    let a = m.nodes.iter().position(|n| n.name == "A").unwrap();
    let b = m.nodes.iter().position(|n| n.name == "B").unwrap();
    let delay = |x: usize, y: usize| m.links.iter().find(|l| (l.a, l.b) == (x, y) || (l.a, l.b) == (y, x)).unwrap().delay;
    let rtts: Vec<u64> = (0..9).map(|i| 2 * (delay(i, a) + delay(a, b) + delay(b, 9 + i)).0 / 1_000_000).collect();
    assert_eq!(rtts, vec![8, 78, 154, 32, 102, 178, 58, 128, 204]);
}

#[test]
fn groups_counts_starts_and_seed() {
    let text = BASE.replace("app = { kind = \"bulk\" }", "app = { kind = \"file\", size = \"5MB\" }\nstart = [\"1s\", \"2.5s\"]");
    let m = load_str(&text, Some(9)).unwrap();
    assert_eq!(m.seed, 9, "the argument overrides the file's seed");
    assert_eq!(m.flows.len(), 2);
    assert_eq!(m.nodes[m.flows[1].src].name, "s1");
    assert_eq!(m.nodes[m.flows[1].dst].name, "r1");
    assert_eq!(m.flows[1].start, StartSpec::At(Time(2_500_000_000)));
    assert_eq!(m.flows[0].app, AppSpec::File { size: 5_000_000, write: 0 });
    assert_eq!(m.nodes.iter().filter(|n| n.kind == NodeKind::Router).count(), 2);
    assert_eq!(m.warmup, Dur::from_secs(2));
}

#[test]
fn profile_then_overrides() {
    let text = BASE.replace("[topology]", "[tcp]\nvalidate = \"ns3.44\"\ndupack = \"strict\"\nmin_rto = \"200ms\"\n[topology]");
    let m = load_str(&text, None).unwrap();
    let t = &m.flows[0].tcp;
    assert_eq!(t.profile, "ns3.44");
    assert_eq!(t.syn_rto, crate::tcp::SynRto::Ns3, "from the profile");
    assert_eq!(t.dupack, crate::tcp::DupAckRule::Strict, "explicit key wins");
    assert_eq!(t.min_rto, Dur::from_millis(200));
}

// tests `tcp_preset = "ns3.30"` (docs/tcp.md, "Presets"): gives the ns-3.29–3.31 endpoint defaults;
// a key in the same table overrides it, and a flow's table can take the preset on its own.
#[test]
fn ns3_30_preset_then_overrides() {
    use crate::tcp::{DelAck, DupAckRule, InitialWindow, Recovery, SynRto};
    let text = BASE.replace("[topology]", "[tcp]\ntcp_preset = \"ns3.30\"\nmss = 1448\n[topology]");
    let m = load_str(&text, None).unwrap();
    let t = &m.flows[0].tcp;
    assert_eq!(t.preset, "ns3.30");
    assert_eq!(t.mss, 1448, "explicit key wins over the preset's 536");
    assert_eq!(t.iw, InitialWindow::Segments(1));
    assert_eq!(t.recovery, Recovery::Classic);
    assert_eq!((t.snd_buf, t.rcv_buf), (131_072, 131_072));
    assert_eq!(t.delack, DelAck::On { count: 2, timeout: Dur::from_millis(200) });
    assert_eq!((t.syn_rto, t.syn_retries, t.data_retries), (SynRto::Ns3, 5, Some(6)), "ConnCount 6 SYNs, DataRetries 6");
    assert_eq!(t.dupack, DupAckRule::Ns3);
    assert_eq!(t.min_rto, Dur::from_secs(1));
    assert!(t.sack && t.timestamps && t.window_scaling && !t.ecn && !t.nagle);
    let plain = load_str(BASE, None).unwrap();
    assert_eq!((plain.flows[0].tcp.preset, plain.flows[0].tcp.data_retries), ("none", None));
    let text = BASE.replace("app = { kind = \"bulk\" }", "app = { kind = \"bulk\" }\ntcp = { tcp_preset = \"ns3.30\", data_retries = 2 }");
    let m = load_str(&text, None).unwrap();
    assert_eq!((m.flows[0].tcp.mss, m.flows[0].tcp.data_retries), (536, Some(2)));
    let e = error_of("[topology]", "[tcp]\ntcp_preset = \"ns3.31\"\n[topology]");
    assert_eq!(e.path, "tcp.tcp_preset");
    assert!(e.message.contains("ns3.30"), "lists the presets: {e}");
}

// tests `tcp_preset = "ns3.13"` (docs/tcp.md, "Presets"), the ns-3 endpoint of 2012–13.
#[test]
fn ns3_13_preset() {
    use crate::tcp::{FullAck, InitialWindow, Recovery, RtoEstimator, WndUpdateRule};
    let text = BASE.replace("[topology]", "[tcp]\ntcp_preset = \"ns3.13\"\n[topology]");
    let t = load_str(&text, None).unwrap().flows[0].tcp.clone();
    assert_eq!((t.preset, t.mss, t.iw, t.initial_ssthresh), ("ns3.13", 1000, InitialWindow::Segments(1), 65_535));
    assert!(!t.sack && !t.timestamps && !t.window_scaling && !t.limited_transmit && !t.compat.recover_check);
    assert_eq!((t.recovery, t.full_ack, t.wnd_update), (Recovery::Classic, FullAck::FlightSize, WndUpdateRule::Always));
    assert_eq!((t.rto, t.min_rto), (RtoEstimator::Ns3Legacy, Dur::from_millis(200)));
}

#[test]
fn unknown_keys_are_named() {
    let e = error_of("warmup = \"2s\"", "warmup = \"2s\"\nwarmpu = \"1s\"");
    assert!(e.to_string().contains("warmpu"), "{e}");
    let e = error_of("pairs = 2", "pairs = 2\npair = 3");
    assert!(e.to_string().starts_with("topology"), "{e}");
    assert!(e.to_string().contains("pair"), "{e}");
}

#[test]
fn bad_units_and_values_name_the_field() {
    let e = error_of("rate = \"10Mbps\"", "rate = \"-10Mbps\"");
    assert_eq!(e.path, "topology.bottleneck.rate");
    assert!(e.message.contains("negative"), "{e}");
    let e = error_of("rate = \"10Mbps\"", "rate = \"10Mbs\"");
    assert_eq!(e.path, "topology.bottleneck.rate");
    assert!(e.message.contains("Mbps"), "lists the units: {e}");
    let e = error_of("duration = \"10s\"", "duration = 10");
    assert_eq!(e.path, "duration");
    assert!(e.message.contains("unit"), "{e}");
    let e = error_of("limit = \"50pkt\"", "limit = \"50 packets\"");
    assert_eq!(e.path, "topology.queue.limit");
    let e = error_of("warmup = \"2s\"", "warmup = \"20s\"");
    assert_eq!(e.path, "warmup");
}

#[test]
fn closed_choices_list_the_allowed_values() {
    let e = error_of("[topology]", "[tcp]\ncc = \"renoo\"\n[topology]");
    assert_eq!(e.path, "tcp.cc");
    assert!(e.message.contains("new_reno"), "{e}");
    let e = error_of("kind = \"drop_tail\"", "kind = \"drop_tial\"");
    assert!(e.path.starts_with("topology.queue"), "{e}");
    assert!(e.message.contains("drop_tail"), "{e}");
}

#[test]
fn flows_must_name_existing_hosts() {
    let e = error_of("dst = \"receivers\"", "dst = \"r9\"");
    assert_eq!(e.path, "flows[0].dst");
    assert!(e.message.contains("no host named \"r9\""), "{e}");
    assert!(e.allowed.as_ref().is_some_and(|a| a.contains(&"r0".to_string())));
    let e = error_of("dst = \"receivers\"", "dst = \"A\"");
    assert!(e.message.contains("router"), "{e}");
    let e = error_of("count = 2", "count = 3\nstart = [\"1s\"]");
    assert_eq!(e.path, "flows[0].start");
}

#[test]
fn mangled_files_are_errors_not_panics() {
    // Truncations and byte flips of a valid file: every outcome is Ok or a one-line Err.
    let mut r = sluice_core::rng::RngStream::from_seed(5);
    for cut in (0..BASE.len()).step_by(7) {
        if let Err(e) = load_str(&BASE[..cut], None) {
            assert!(!e.to_string().contains('\n'));
        }
    }
    for _ in 0..300 {
        let mut b = BASE.as_bytes().to_vec();
        let i = r.below(b.len() as u64) as usize;
        b[i] = b"=\"[]{}0-9ax ,."[r.below(14) as usize];
        if let Ok(text) = String::from_utf8(b) {
            if let Err(e) = load_str(&text, None) {
                assert!(!e.to_string().contains('\n'));
            }
        }
    }
}

#[test]
fn syntax_errors_say_where() {
    let e = load_str("name = \"x\"\nduration = \"1s\n", None).unwrap_err();
    assert!(e.to_string().contains("line 2"), "{e}");
}

#[test]
fn flow_names_starts_and_stops_are_checked() {
    assert!(load_str(&BASE.replace("count = 2\n", "count = 2\nname = \"x\"\n"), None).is_ok());
    let two = format!("{BASE}\n[[flows]]\nname = \"f00\"\nsrc = \"s0\"\ndst = \"r0\"\napp = {{ kind = \"bulk\" }}\n");
    let e = load_str(&two, None).unwrap_err();
    assert_eq!(e.path, "flows[1].name");
    let e = error_of("app = { kind = \"bulk\" }", "app = { kind = \"bulk\" }\nstart = \"10s\"");
    assert_eq!(e.path, "flows[0].start");
    let e = error_of("app = { kind = \"bulk\" }", "app = { kind = \"bulk\" }\nstart = \"2s\"\nstop = \"1s\"");
    assert_eq!(e.path, "flows[0].stop");
}

/// The resolved TCP options of each flow for `BASE` with a `[tcp]` table and, for flow 1 of a
/// second group, a per-flow `tcp` table.
#[track_caller]
fn tcp_of(global: &str, per_flow: &str) -> (crate::tcp::TcpConfig, crate::tcp::TcpConfig) {
    let text = format!("{}\n[[flows]]\nname = \"x\"\nsrc = \"s0\"\ndst = \"r0\"\napp = {{ kind = \"bulk\" }}\ntcp = {{ {per_flow} }}\n", BASE.replace("[topology]", &format!("[tcp]\n{global}\n[topology]")));
    let m = load_str(&text, None).unwrap_or_else(|e| panic!("{e}"));
    (m.flows[0].tcp.clone(), m.flows[2].tcp.clone())
}

// tests the `rto` option (docs/tcp.md): it picks the estimator and its own bounds unless the table
// gives them.
#[test]
fn rto_estimator_option_and_its_bounds() {
    use crate::tcp::RtoEstimator as E;
    let (g, f) = tcp_of("rto = \"linux\"", "rto = \"ns3_legacy\", min_rto = \"300ms\"");
    assert_eq!((g.rto, g.min_rto, g.max_rto), (E::Linux, Dur::from_millis(200), Dur::from_secs(120)));
    assert_eq!((f.rto, f.min_rto), (E::Ns3Legacy, Dur::from_millis(300)), "explicit min_rto wins");
    let (g, f) = tcp_of("rto = \"rfc793\"\nmax_rto = \"30s\"", "");
    assert_eq!((g.rto, g.min_rto, g.max_rto), (E::Rfc793, Dur::from_secs(1), Dur::from_secs(30)));
    assert_eq!(f.rto, E::Rfc793, "flows inherit");
    let (g, _) = tcp_of("", "");
    assert_eq!(g.rto, E::Rfc6298);
    assert!(g.describe().contains(&("rto", "rfc6298".to_string())));
    let e = error_of("[topology]", "[tcp]\nrto = \"jacobson\"\n[topology]");
    assert_eq!(e.path, "tcp.rto");
    for v in ["rfc6298", "linux", "ns3_legacy", "rfc793"] {
        assert!(e.message.contains(v), "lists {v}: {e}");
    }
}

// tests the `iw` option (docs/tcp.md, "initial window"): `iw` names a formula; `initial_cwnd` in
// the same table wins; a flow's own key replaces what it inherited.
#[test]
fn iw_option_and_initial_cwnd_precedence() {
    use crate::tcp::InitialWindow as Iw;
    let (g, f) = tcp_of("iw = \"rfc3390\"", "initial_cwnd = 4");
    assert_eq!((g.iw, f.iw), (Iw::Rfc3390, Iw::Segments(4)));
    let (g, f) = tcp_of("iw = \"rfc5681\"\ninitial_cwnd = 2", "iw = \"rfc6928\"");
    assert_eq!(g.iw, Iw::Segments(2), "initial_cwnd wins in the same table");
    assert_eq!(f.iw, Iw::Rfc6928, "the flow's iw replaces the inherited initial_cwnd");
    let (g, _) = tcp_of("", "");
    assert_eq!(g.iw, Iw::Segments(10));
    let d = g.describe();
    assert!(d.contains(&("iw", "segments".to_string())) && d.contains(&("initial_cwnd", "10".to_string())));
    let e = error_of("[topology]", "[tcp]\niw = \"rfc2414\"\n[topology]");
    assert_eq!(e.path, "tcp.iw");
    for v in ["rfc6928", "rfc3390", "rfc5681"] {
        assert!(e.message.contains(v), "lists {v}: {e}");
    }
}

// tests the `delack = "linux"` option (docs/tcp.md); its own timeouts exclude delack_count /
// delack_timeout.
#[test]
fn delack_linux_option() {
    use crate::tcp::DelAck;
    let (g, f) = tcp_of("delack = \"linux\"", "delack = \"on\"");
    assert_eq!(g.delack, DelAck::Linux);
    assert_eq!(f.delack, DelAck::On { count: 2, timeout: Dur::from_millis(200) });
    let (_, f) = tcp_of("delack = \"linux\"", "nagle = true");
    assert_eq!(f.delack, DelAck::Linux, "flows inherit");
    let (_, f) = tcp_of("delack = \"linux\"", "delack_count = 3");
    assert_eq!(f.delack, DelAck::On { count: 3, timeout: Dur::from_millis(200) }, "a count turns the counting rule on");
    let e = error_of("[topology]", "[tcp]\ndelack = \"linux\"\ndelack_timeout = \"40ms\"\n[topology]");
    assert_eq!(e.path, "tcp.delack_timeout");
    let e = error_of("[topology]", "[tcp]\ndelack = \"quick\"\n[topology]");
    assert_eq!(e.path, "tcp.delack");
    for v in ["on", "off", "linux"] {
        assert!(e.message.contains(v), "lists {v}: {e}");
    }
}

// tests the `pacing` option (docs/tcp.md): it parses per table (a flow's own over the scenario's),
// the validate profile keeps ns-3's unpaced fast retransmission, and a bad value names the field
// and the choices.
#[test]
fn pacing_option() {
    use crate::tcp::Pacing;
    let text = BASE.replace("[topology]", "[tcp]\npacing = \"linux\"\n[topology]");
    let t = load_str(&text, None).unwrap().flows[0].tcp.clone();
    assert_eq!((t.pacing, t.compat.pace_fast_retransmit), (Pacing::Linux, true));
    assert_eq!(
        load_str(BASE, None).unwrap().flows[0].tcp.pacing,
        Pacing::Cc,
        "default: the algorithm's own rate"
    );
    let text = BASE
        .replace("[topology]", "[tcp]\nvalidate = \"ns3.44\"\n[topology]")
        .replace(
            "app = { kind = \"bulk\" }",
            "app = { kind = \"bulk\" }\ntcp = { pacing = \"off\" }",
        );
    let t = load_str(&text, None).unwrap().flows[0].tcp.clone();
    assert_eq!((t.pacing, t.compat.pace_fast_retransmit), (Pacing::Off, false));
    let e = error_of("[topology]", "[tcp]\npacing = \"fq\"\n[topology]");
    assert_eq!(e.path, "tcp.pacing");
    assert!(e.message.contains("linux"), "lists the choices: {e}");
}

#[test]
fn zero_and_rounded_to_zero_link_rates_are_refused_everywhere() {
    // A 0 bit/s link would serialize in no time: an infinitely fast link, never what was meant.
    for (from, to, path) in [
        ("access_rate = \"100Mbps\"", "access_rate = \"0bps\"", "topology.access_rate"),
        ("access_rate = \"100Mbps\"", "access_rate = \"0.4bps\"", "topology.access_rate"),
        ("rate = \"10Mbps\"", "rate = \"0Gbps\"", "topology.bottleneck.rate"),
        ("app = { kind = \"bulk\" }", "app = { kind = \"udp_cbr\", rate = \"0kbps\", packet_size = \"100B\" }", "flows[0].app.rate"),
    ] {
        let e = error_of(from, to);
        assert_eq!(e.path, path, "{e}");
        assert!(e.message.contains("at least 1bps"), "{e}");
    }
    let lot = |rate: &str, access: &str| {
        format!("name = \"p\"\nduration = \"1s\"\n[topology]\nkind = \"parking_lot\"\nhops = 1\nrate = \"{rate}\"\ndelay = \"1ms\"\nqueue = {{ kind = \"drop_tail\", limit = \"10pkt\" }}\naccess_rate = \"{access}\"\n[[flows]]\nsrc = \"long_src\"\ndst = \"long_dst\"\napp = {{ kind = \"bulk\" }}\n")
    };
    // `access_delay` may be left out, as in the dumbbell (0 s).
    let m = load_str(&lot("10Mbps", "100Mbps"), None).unwrap();
    assert!(m.links.iter().all(|l| l.rate.0 > 0));
    assert_eq!(load_str(&lot("0bps", "100Mbps"), None).unwrap_err().path, "topology.rate");
    assert_eq!(load_str(&lot("10Mbps", "0bps"), None).unwrap_err().path, "topology.access_rate");
    let graph = |rate: &str| {
        format!("name = \"g\"\nduration = \"1s\"\n[topology]\nkind = \"graph\"\nnodes = [{{ name = \"h1\", kind = \"host\" }}, {{ name = \"r\", kind = \"router\" }}, {{ name = \"h2\", kind = \"host\" }}]\nlinks = [{{ a = \"h1\", b = \"r\", rate = \"10Mbps\", delay = \"1ms\" }}, {{ a = \"r\", b = \"h2\", rate = \"{rate}\", delay = \"1ms\" }}]\n[[flows]]\nsrc = \"h1\"\ndst = \"h2\"\napp = {{ kind = \"bulk\" }}\n")
    };
    assert!(load_str(&graph("1bps"), None).is_ok());
    assert_eq!(load_str(&graph("0bps"), None).unwrap_err().path, "topology.links[1].rate");
}

// Node names become queue names ("A->B") and pcap file names, and a pair of nodes has one link:
// anything else would give two queues one name, or a file name with a slash in it.
#[test]
fn graph_names_and_links_are_unambiguous() {
    let graph = |names: [&str; 3], links: &str| {
        let nodes = format!("[{{ name = {:?}, kind = \"host\" }}, {{ name = {:?}, kind = \"router\" }}, {{ name = {:?}, kind = \"host\" }}]", names[0], names[1], names[2]);
        format!("name = \"g\"\nduration = \"1s\"\n[topology]\nkind = \"graph\"\nnodes = {nodes}\nlinks = [{links}]\n[[flows]]\nsrc = {:?}\ndst = {:?}\napp = {{ kind = \"bulk\" }}\n", names[0], names[2])
    };
    let chain = |a: &str, r: &str, b: &str| format!("{{ a = {a:?}, b = {r:?}, rate = \"10Mbps\", delay = \"1ms\" }}, {{ a = {r:?}, b = {b:?}, rate = \"10Mbps\", delay = \"1ms\" }}");
    assert!(load_str(&graph(["h_1", "core-2.a", "H3"], &chain("h_1", "core-2.a", "H3")), None).is_ok());
    for (i, bad) in ["", "a/b", "a->b", "x y", ".hidden", "-x", &"n".repeat(65)].into_iter().enumerate() {
        let mut names = ["h1", "r", "h2"];
        names[i % 3] = bad;
        let e = load_str(&graph(names, &chain(names[0], names[1], names[2])), None).unwrap_err();
        assert_eq!(e.path, format!("topology.nodes[{}].name", i % 3), "{bad:?}: {e}");
        assert!(e.message.contains("letters, digits"), "{e}");
    }
    // A second link between the same two nodes, in either direction.
    for extra in ["{ a = \"h1\", b = \"r\", rate = \"1Mbps\", delay = \"5ms\" }", "{ a = \"r\", b = \"h1\", rate = \"1Mbps\", delay = \"5ms\" }"] {
        let e = load_str(&graph(["h1", "r", "h2"], &format!("{}, {extra}", chain("h1", "r", "h2"))), None).unwrap_err();
        assert_eq!(e.path, "topology.links[2]", "{e}");
        assert!(e.message.contains("links[0] already joins"), "{e}");
    }
}

// An application writes into the send buffer a whole write at a time: a write larger than the
// buffer would never go in and the flow would stall without a word, and a write of 0 B is a
// typo for leaving the key out.
#[test]
fn writes_must_fit_the_send_buffer() {
    let bulk = "app = { kind = \"bulk\" }";
    let e = error_of(bulk, "app = { kind = \"bulk\", write_size = \"129KiB\" }");
    assert_eq!(e.path, "flows[0].app.write_size");
    assert!(e.message.contains("131072 B (tcp.snd_buf)"), "{e}");
    // A flow's own snd_buf counts, and a file's write is never more than the file.
    let e = error_of(bulk, "app = { kind = \"file\", size = \"10MB\", write_size = \"1MiB\" }\ntcp = { snd_buf = \"512KiB\" }");
    assert!(e.message.contains("1048576 B can never fit in the send buffer of 524288 B"), "{e}");
    assert!(load_str(&BASE.replace(bulk, "app = { kind = \"file\", size = \"100kB\", write_size = \"1MiB\" }"), None).is_ok());
    assert!(load_str(&BASE.replace(bulk, "app = { kind = \"bulk\", write_size = \"128KiB\" }"), None).is_ok());
    let e = error_of(bulk, "app = { kind = \"file\", size = \"1MB\", write_size = \"0B\" }");
    assert_eq!(e.path, "flows[0].app.write_size");
    assert!(e.message.contains("at least 1B"), "{e}");
}

// A receive buffer smaller than one segment never admits a full-sized one (the sender waits for
// room for a whole segment): refused, naming the key that made it so.
#[test]
fn the_receive_buffer_holds_a_segment() {
    let e = error_of("[topology]", "[tcp]\nrcv_buf = \"1000B\"\n[topology]");
    assert_eq!(e.path, "tcp.rcv_buf");
    assert!(e.message.contains("(1000 B) must hold at least one full segment (mss = 1448 B)"), "{e}");
    assert!(load_str(&BASE.replace("[topology]", "[tcp]\nrcv_buf = \"1448B\"\n[topology]"), None).is_ok());
    // A flow's larger segments against the scenario's small buffer: the flow's mss is named.
    let text = BASE.replace("[topology]", "[tcp]\nrcv_buf = \"8KiB\"\n[topology]");
    assert!(load_str(&text, None).is_ok());
    let e = load_str(&format!("{text}tcp = {{ mss = 9000 }}\n"), None).unwrap_err();
    assert_eq!(e.path, "flows[0].tcp.mss", "{e}");
}

// A send buffer smaller than one segment lets the flow send nothing (`0B`) or only short
// segments: refused like the receive buffer, naming the key and the smallest size it takes.
#[test]
fn the_send_buffer_holds_a_segment() {
    for (size, bytes) in [("0B", 0), ("1447B", 1447)] {
        let e = error_of("[topology]", &format!("[tcp]\nsnd_buf = \"{size}\"\n[topology]"));
        assert_eq!(e.path, "tcp.snd_buf", "{e}");
        assert!(e.message.contains(&format!("the send buffer ({bytes} B) must hold at least one full segment (mss = 1448 B)")), "{e}");
    }
    assert!(load_str(&BASE.replace("[topology]", "[tcp]\nsnd_buf = \"1448B\"\n[topology]"), None).is_ok());
    // A flow's own table is checked too, and a flow whose larger segments outgrow the
    // scenario's buffer is told its mss is the cause.
    let e = error_of("app = { kind = \"bulk\" }", "app = { kind = \"bulk\" }\ntcp = { snd_buf = \"0B\" }");
    assert_eq!(e.path, "flows[0].tcp.snd_buf", "{e}");
    let text = BASE.replace("[topology]", "[tcp]\nsnd_buf = \"8KiB\"\n[topology]");
    assert!(load_str(&text, None).is_ok());
    let e = load_str(&format!("{text}tcp = {{ mss = 9000 }}\n"), None).unwrap_err();
    assert_eq!(e.path, "flows[0].tcp.mss", "{e}");
    assert!(e.message.contains("the send buffer (8192 B)"), "{e}");
}

// A sampling interval that would make more rows than memory holds (a typed "1ns" for "1ms",
// or the default 10 ms over a years-long run) is refused with the shortest interval that fits.
#[test]
fn sampling_tables_stay_bounded() {
    let e = error_of("[[flows]]", "[monitor]\nqueue_sample = \"1ns\"\n[[flows]]");
    assert_eq!(e.path, "monitor.queue_sample");
    // 2 queues over the 8 s window: at least 801 ns, rounded up to 900 ns.
    assert!(e.message.contains("sampling 2 queues every 1ns for 8s") && e.message.ends_with("at least 900ns"), "{e}");
    let e = error_of("duration = \"10s\"", "duration = \"10000000s\"");
    assert_eq!(e.path, "monitor.queue_sample");
    assert!(e.message.contains("10ms (the default)"), "{e}");
    // Windows are sampled over the whole run, one row per TCP flow.
    let e = error_of("[[flows]]", "[monitor]\ncwnd_trace = \"1us\"\n[[flows]]");
    assert_eq!(e.path, "monitor.cwnd_trace", "{e}");
    assert!(load_str(&BASE.replace("[[flows]]", "[monitor]\ncwnd_trace = \"2us\"\nqueue_sample = \"1us\"\n[[flows]]"), None).is_ok());
}

#[test]
fn on_off_periods_name_the_zero_one() {
    let app = |on: &str, off: &str| format!("app = {{ kind = \"on_off\", rate = \"1Mbps\", packet_size = \"1000B\", mean_on = \"{on}\", mean_off = \"{off}\" }}");
    assert_eq!(error_of("app = { kind = \"bulk\" }", &app("1s", "0s")).path, "flows[0].app.mean_off");
    assert_eq!(error_of("app = { kind = \"bulk\" }", &app("0s", "1s")).path, "flows[0].app.mean_on");
    // Each period is an event: below a microsecond a short run would take billions of them.
    let e = error_of("app = { kind = \"bulk\" }", &app("1ms", "999ns"));
    assert_eq!((e.path.as_str(), e.message.as_str()), ("flows[0].app.mean_off", "must be at least 1us, got 999ns"));
    assert!(load_str(&BASE.replace("app = { kind = \"bulk\" }", &app("1us", "1us")), None).is_ok());
}

#[test]
fn mss_must_leave_a_segment_inside_an_ipv4_packet() {
    // 20 B IP + 20 B TCP + 12 B timestamp option + 65483 B = 65535 B, the IPv4 maximum.
    let (g, _) = tcp_of("mss = 65483", "");
    assert_eq!(g.mss, 65_483);
    let e = error_of("[topology]", "[tcp]\nmss = 65484\n[topology]");
    assert_eq!(e.path, "tcp.mss");
    assert!(e.message.contains("65483") && e.message.contains("timestamps"), "{e}");
    // Without timestamps the option bytes are free.
    let (g, _) = tcp_of("mss = 65495\ntimestamps = false", "");
    assert_eq!(g.mss, 65_495);
    // A flow turning timestamps back on for the inherited MSS is caught at the flow.
    let text = format!("{}\n[[flows]]\nname = \"x\"\nsrc = \"s0\"\ndst = \"r0\"\napp = {{ kind = \"bulk\" }}\ntcp = {{ timestamps = true }}\n", BASE.replace("[topology]", "[tcp]\nmss = 65495\ntimestamps = false\n[topology]"));
    assert_eq!(load_str(&text, None).unwrap_err().path, "flows[1].tcp.mss");
}

#[test]
fn l2_overhead_is_bounded() {
    assert!(load_str(&BASE.replace("pairs = 2", "pairs = 2\nl2_overhead = 38"), None).is_ok());
    let e = error_of("pairs = 2", "pairs = 2\nl2_overhead = 2305841982");
    assert_eq!(e.path, "topology.l2_overhead");
    assert!(e.message.contains("256"), "{e}");
}

#[test]
fn durations_and_sizes_beyond_range_are_refused_not_clamped() {
    let e = error_of("duration = \"10s\"", "duration = \"99999999999999s\"");
    assert_eq!(e.path, "duration");
    assert!(e.message.contains("too large"), "{e}");
    // Representable, but beyond what a run may ask for.
    let e = error_of("duration = \"10s\"", "duration = \"1000000000s\"");
    assert_eq!(e.path, "duration");
    assert!(e.message.contains("at most"), "{e}");
    let e = error_of("rate = \"10Mbps\"", "rate = \"99999999999999999999Gbps\"");
    assert_eq!(e.path, "topology.bottleneck.rate");
    let e = error_of("limit = \"50pkt\"", "limit = \"64KB\"");
    assert_eq!(e.path, "topology.queue.limit");
    assert!(e.message.contains("KiB"), "{e}");
}

#[test]
fn a_flow_table_overrides_only_the_keys_it_gives_profile_included() {
    // The flow picks its own profile; the scenario's [tcp] keys still apply, then the flow's.
    let (g, f) = tcp_of("mss = 200\nrcv_buf = \"1MiB\"\nsack = false", "validate = \"ns3.44\", dupthresh = 5");
    assert_eq!((g.mss, g.rcv_buf, g.sack), (200, 1 << 20, false));
    assert_eq!((f.mss, f.rcv_buf, f.sack, f.dupthresh), (200, 1 << 20, false, 5));
    let ns3 = crate::tcp::TcpConfig::ns3_44();
    assert_eq!((f.dupack, f.wnd_update, f.data_retries), (ns3.dupack, ns3.wnd_update, ns3.data_retries), "the flow runs ns-3's behaviour options");
    // And the other way round: a scenario-wide profile with one flow back on Sluice's defaults.
    let (g, f) = tcp_of("validate = \"ns3.44\"\nmss = 1000", "validate = \"sluice\"");
    assert_eq!((g.dupack, g.mss), (ns3.dupack, 1000));
    let sluice = crate::tcp::TcpConfig::default();
    assert_eq!((f.dupack, f.wnd_update, f.mss), (sluice.dupack, sluice.wnd_update, 1000));
}

#[test]
fn start_and_endpoint_errors_say_what_is_allowed() {
    let e = error_of("count = 2", "count = 2\nstart = true");
    assert_eq!(e.path, "flows[0].start");
    assert!(e.message.contains("uniform") && e.message.contains("list"), "{e}");
    let e = error_of("count = 2", "count = 2\nstart = [\"1s\", \"2x\"]");
    assert!(e.message.contains("entry [1]") && e.message.contains("duration"), "{e}");
    let e = error_of("count = 2", "count = 2\nstart = { uniform = [\"1s\"] }");
    assert!(e.message.contains("two durations"), "{e}");
    let e = error_of("count = 2", "count = 2\nstart = { unifrom = [\"1s\", \"2s\"] }");
    assert!(e.message.contains("unifrom"), "{e}");
    let e = error_of("src = \"senders\"", "src = 3");
    assert_eq!(e.path, "flows[0].src");
    assert!(e.message.contains("name"), "{e}");
    let e = error_of("src = \"senders\"", "src = [\"s0\", 1]");
    assert!(e.message.contains("entry [1]"), "{e}");
    let e = error_of("app = { kind = \"bulk\" }", "app = { kind = \"bulk\" }\n[monitor]\npcap = { all = true }");
    assert_eq!(e.path, "monitor.pcap");
    // The accepted shapes still load.
    let m = load_str(&BASE.replace("count = 2", "count = 2\nstart = { uniform = [\"1s\", \"2s\"] }"), None).unwrap();
    assert_eq!(m.flows[0].start, StartSpec::Uniform(Time(1_000_000_000), Time(2_000_000_000)));
    assert!(load_str(&BASE.replace("count = 2", "count = 2\nstart = 0"), None).is_ok());
}

#[test]
fn loss_models_parse_and_shorthand_is_bernoulli() {
    use sluice_core::loss::{ListMatch, LossModel};
    let bn = |edit: &str| {
        let text = BASE.replacen(r#"bottleneck = { rate = "10Mbps", delay = "5ms" }"#, &format!(r#"bottleneck = {{ rate = "10Mbps", delay = "5ms", {edit} }}"#), 1);
        let m = load_str(&text, None).unwrap_or_else(|e| panic!("{edit}: {e}"));
        let l = m.links.iter().find(|l| l.ab.queue_name == "A->B").expect("bottleneck");
        (l.ab.loss.clone(), l.ba.loss.clone())
    };
    assert_eq!(bn("loss = 0.02").0, LossModel::Bernoulli { p: 0.02 });
    assert_eq!(bn("loss = 0.02").1, LossModel::NONE);
    assert_eq!(bn(r#"reverse_loss = { kind = "bernoulli", p = 0.1 }"#).1, LossModel::Bernoulli { p: 0.1 });
    assert_eq!(
        bn(r#"loss = { kind = "gilbert_elliott", p_gb = 0.01, p_bg = 0.3 }"#).0,
        LossModel::GilbertElliott { p_gb: 0.01, p_bg: 0.3, loss_good: 0.0, loss_bad: 1.0 },
        "Gilbert's model by default: no loss in the good state, all in the bad"
    );
    assert_eq!(bn(r#"loss = { kind = "list", packets = [3, 7] }"#).0, LossModel::List { packets: vec![3, 7], matching: ListMatch::All });
    assert_eq!(bn(r#"loss = { kind = "list", packets = [1], match = "data" }"#).0, LossModel::List { packets: vec![1], matching: ListMatch::Data });
}

#[test]
fn bad_loss_models_name_the_field() {
    let edit = |loss: &str| error_of(r#"delay = "5ms" }"#, &format!(r#"delay = "5ms", loss = {loss} }}"#));
    let e = edit(r#"{ kind = "bernoulli", p = 1.5 }"#);
    assert_eq!((e.path.as_str(), e.message.as_str()), ("topology.bottleneck.loss.p", "must be in [0, 1), got 1.5"));
    let e = edit("1.5");
    assert_eq!((e.path.as_str(), e.message.as_str()), ("topology.bottleneck.loss", "must be a probability in [0, 1), got 1.5"));
    for list in ["[3, 2]", "[0, 4]", "[-1]", "[2, 2]"] {
        let e = edit(&format!(r#"{{ kind = "list", packets = {list} }}"#));
        assert_eq!(e.path, "topology.bottleneck.loss.packets", "{list}");
        assert!(e.message.starts_with("must be ascending positive integers"), "{list}: {}", e.message);
    }
    let e = edit(r#"{ kind = "burst", p = 0.1 }"#);
    assert_eq!(e.path, "topology.bottleneck.loss.kind");
    assert!(e.message.contains("`bernoulli`, `gilbert_elliott`, `list`"), "{}", e.message);
    let e = edit(r#"{ kind = "list", packets = [1], match = "acks" }"#);
    assert_eq!(e.path, "topology.bottleneck.loss.match");
    let e = edit(r#"{ kind = "gilbert_elliott", p_gb = 0.1, p_bg = 0.0 }"#);
    assert_eq!(e.path, "topology.bottleneck.loss.p_bg");
    let e = edit(r#"{ kind = "gilbert_elliott", p_gb = 0.1, p_bg = 0.2, loss_good = 1.0 }"#);
    assert_eq!(e.path, "topology.bottleneck.loss.loss_good");
    let e = edit(r#"{ kind = "bernoulli", p = 0.1, q = 2 }"#);
    assert_eq!(e.path, "topology.bottleneck.loss.q");
    assert!(e.message.contains("unknown field `q`"), "{}", e.message);
}

// ----- overrides and the resolved model -----

use super::{load_str_with, resolve, Override};

fn ov(path: &str, value: toml::Value) -> Override {
    Override::new(path, value)
}

// An override is judged as the same value written in the file: the same field path and the
// same message, less the line and column (the value is not in the file).
#[test]
fn an_override_fails_as_the_file_would() {
    let cases: [(&str, &str, &str, toml::Value); 4] = [
        ("count = 2", "count = 0", "flows[0].count", toml::Value::Integer(0)),
        ("count = 2", "count = \"x\"", "flows[0].count", toml::Value::String("x".into())),
        ("kind = \"drop_tail\"", "kind = \"pei\"", "topology.queue.kind", toml::Value::String("pei".into())),
        ("limit = \"50pkt\"", "limit = \"50 packets\"", "topology.queue.limit", toml::Value::String("50 packets".into())),
    ];
    for (from, to, path, value) in cases {
        let in_file = error_of(from, to);
        let by_override = load_str_with(BASE, None, &[ov(path, value)]).expect_err("must be rejected");
        assert_eq!(by_override.path, in_file.path, "{path}");
        assert_eq!(by_override.path, path);
        let file_msg = in_file.message.split(" (line ").next().unwrap();
        assert_eq!(by_override.message, file_msg, "{path}");
    }
}

// A misspelt key is the schema's own unknown-field error, naming the allowed keys; an index past
// the end of `flows` (one [[flows]] entry) fails naming the override.
#[test]
fn unknown_keys_and_bad_indices() {
    let e = load_str_with(BASE, None, &[ov("topology.queue.limt", toml::Value::String("5pkt".into()))]).unwrap_err();
    assert_eq!(e.path, "topology.queue.limt");
    assert_eq!(e.message, "unknown field for kind \"drop_tail\"; its fields: `limit`");
    let e = load_str_with(BASE, None, &[ov("monitor.no_such", toml::Value::Boolean(true))]).unwrap_err();
    assert_eq!(e.path, "monitor.no_such");
    assert!(e.message.starts_with("unknown field `no_such`"), "{e}");
    let e = load_str_with(BASE, None, &[ov("flows[1].count", toml::Value::Integer(3))]).unwrap_err();
    assert_eq!(e.to_string(), "flows[1].count: override: index 1 is past the end of `flows` (1 entry)");
    let e = load_str_with(BASE, None, &[ov("duration.s", toml::Value::Integer(3))]).unwrap_err();
    assert_eq!(e.to_string(), "duration.s: override: `duration` is a string, not a table");
}

// Overrides change what runs: 90 flows of a dumbbell's 2 pairs, and a queue of 20 packets.
#[test]
fn overrides_change_the_model() {
    let m = load_str_with(BASE, None, &[ov("flows[0].count", toml::Value::Integer(90)), ov("topology.queue.limit", toml::Value::String("20pkt".into()))]).unwrap();
    assert_eq!(m.flows.len(), 90);
    let q = m.links.iter().flat_map(|l| [&l.ab, &l.ba]).find(|d| d.queue_name == "A->B").unwrap();
    assert_eq!(q.qdisc, sluice_core::qdisc::QdiscConfig::DropTail(sluice_core::qdisc::DropTailConfig { limit: sluice_core::units::QueueLimit::Packets(20) }));
    // A later override of the same field wins; the seed is an ordinary field.
    let m = load_str_with(BASE, None, &[ov("seed", toml::Value::Integer(7)), ov("seed", toml::Value::Integer(9))]).unwrap();
    assert_eq!(m.seed, 9);
}

fn hash(text: &str, seed: Option<u64>, overrides: &[Override]) -> String {
    resolve(text, seed, overrides).unwrap().model_hash
}

// The hash sees the run, not the text: key order, comments, whitespace and defaults spelt out
// leave it alone, as does the seed (the file's, an override's or the caller's).
#[test]
fn model_hash_ignores_spelling_and_seed() {
    let h = hash(BASE, None, &[]);
    assert_eq!(h.len(), 64);
    assert!(h.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    let reordered = r#"
# the same scenario, keys in another order, with comments and defaults spelt out
warmup   = "2000ms"   # 2 s
duration = "10s"
name = "t"
seed = 42
[tcp]
sack = true
mss = 1448
[monitor]
queue_sample = "10ms"
rtt_trace = false
[[flows]]
app = { kind = "bulk" }
dst = "receivers"
src = "senders"
count = 2
start = "0s"
[topology]
queue = { limit = "50pkt", kind = "drop_tail" }
bottleneck = { delay = "5ms", rate = "10000kbps" }
access_delay = "1ms"
access_rate = "100Mbps"
pairs = 2
kind = "dumbbell"
"#;
    assert_eq!(hash(reordered, None, &[]), h);
    assert_eq!(hash(BASE, Some(5), &[]), h);
    assert_eq!(hash(BASE, None, &[ov("seed", toml::Value::Integer(3))]), h);
    // The same value set by an override is the same model.
    assert_eq!(hash(BASE, None, &[ov("flows[0].count", toml::Value::Integer(2))]), h);
    // A description is provenance, not configuration.
    assert_eq!(hash(&format!("description = \"x\"\n{BASE}"), None, &[]), h);
    // The model keeps the seed (the caller's over the file's).
    assert_eq!(resolve(reordered, Some(5), &[]).unwrap().model["seed"], 5);
    assert_eq!(resolve(reordered, None, &[]).unwrap().model["seed"], 42);
}

// Every parameter of the run moves the hash: one change each, all hashes distinct.
#[test]
fn model_hash_changes_with_every_parameter() {
    let variants: [(&str, toml::Value); 14] = [
        ("name", toml::Value::String("u".into())),
        ("duration", toml::Value::String("11s".into())),
        ("warmup", toml::Value::String("1s".into())),
        ("topology.pairs", toml::Value::Integer(3)),
        ("topology.bottleneck.rate", toml::Value::String("10000001bps".into())),
        ("topology.bottleneck.delay", toml::Value::String("5000001ns".into())),
        ("topology.queue.limit", toml::Value::String("51pkt".into())),
        ("topology.bottleneck.loss", toml::Value::Float(0.01)),
        ("flows[0].count", toml::Value::Integer(3)),
        ("flows[0].tcp.sack", toml::Value::Boolean(false)),
        ("tcp.min_rto", toml::Value::String("200ms".into())),
        ("monitor.queue_sample", toml::Value::String("1ms".into())),
        ("monitor.flow_sample", toml::Value::String("1s".into())),
        ("monitor.efficiency", toml::Value::String("retx".into())),
    ];
    let mut seen = std::collections::HashSet::new();
    seen.insert(hash(BASE, None, &[]));
    for (path, value) in variants {
        assert!(seen.insert(hash(BASE, None, &[ov(path, value)])), "{path} left the hash unchanged");
    }
}

// `monitor.flow_sample` and `monitor.efficiency`: defaults, and bad values named.
#[test]
fn flow_sample_and_efficiency_options() {
    let m = load_str(BASE, None).unwrap();
    assert_eq!((m.monitor.flow_sample, m.monitor.efficiency), (None, crate::model::Efficiency::Ip));
    let text = format!("{BASE}[monitor]\nflow_sample = \"1s\"\nefficiency = \"retx\"\n");
    let m = load_str(&text, None).unwrap();
    assert_eq!((m.monitor.flow_sample, m.monitor.efficiency), (Some(Dur::from_secs(1)), crate::model::Efficiency::Retx));
    let e = load_str_with(BASE, None, &[ov("monitor.flow_sample", toml::Value::String("0s".into()))]).unwrap_err();
    assert_eq!(e.to_string(), "monitor.flow_sample: must be greater than zero");
    let e = load_str_with(BASE, None, &[ov("monitor.efficiency", toml::Value::String("tcp".into()))]).unwrap_err();
    assert_eq!(e.path, "monitor.efficiency");
    assert!(e.message.contains("`ip`") && e.message.contains("`retx`"), "{e}");
    // 2 flows every 1 ns over the 8 s window: far beyond the row limit.
    let e = load_str_with(BASE, None, &[ov("monitor.flow_sample", toml::Value::String("1ns".into()))]).unwrap_err();
    assert_eq!(e.path, "monitor.flow_sample");
    assert!(e.message.contains("sampling 2 flows every 1ns"), "{e}");
}

// tests the congestion-control keys (docs/scenarios.md, docs/algorithms/): `cc` lists the
// algorithms; `[tcp.cubic]`, `[tcp.vegas]` and `[tcp.compound]` check their values and must
// serve some flow;
// a flow's own table sets only its flow, over the scenario's.
#[test]
fn congestion_control_tables() {
    let e = error_of("[topology]", "[tcp]\ncc = \"cubc\"\n[topology]");
    assert_eq!(e.path, "tcp.cc");
    assert!(e.to_string().contains("unknown variant `cubc`, expected one of `new_reno`, `reno`, `tahoe`, `linux_reno`, `cubic`, `vegas`, `compound`, `bbr`, `none`"), "{e}");
    let e = error_of("[topology]", "[tcp]\ncc = \"cubic\"\ncubic = { beta = 1.2 }\n[topology]");
    assert_eq!(e.to_string(), "tcp.cubic.beta: must be in (0, 1), got 1.2");
    let e = error_of("[topology]", "[tcp]\ncubic = { c = 0 }\n[topology]");
    assert!(e.to_string().starts_with("tcp.cubic.c: "), "{e}");
    let e = error_of("[topology]", "[tcp.vegas]\nalpha = 3\n[topology]");
    assert_eq!(e.to_string(), "tcp.vegas: no flow runs cc = \"vegas\"");
    let e = error_of("[topology]", "[tcp]\ncc = \"vegas\"\n[tcp.vegas]\nalpha = 5\n[topology]");
    assert_eq!(e.to_string(), "tcp.vegas.alpha: must not exceed beta (4), got 5");
    let e = error_of("[topology]", "[tcp]\ncc = \"cubic\"\n[tcp.cubic]\nhystart = \"bsd\"\n[topology]");
    assert_eq!(e.path, "tcp.cubic.hystart");
    let e = error_of("app = { kind = \"bulk\" }\n", "app = { kind = \"bulk\" }\ntcp = { vegas = { alpha = 1 } }\n");
    assert_eq!(e.to_string(), "flows[0].tcp.vegas: this flow runs cc = \"new_reno\", not \"vegas\"");
    // Per flow: the scenario's CUBIC with β 0.6, a second flow group running Vegas (linux diff),
    // the first group's C from its own table.
    let text = BASE.replacen("[topology]", "[tcp]\ncc = \"cubic\"\ncubic = { beta = 0.6 }\n[topology]", 1).replacen(
        "app = { kind = \"bulk\" }\n",
        "app = { kind = \"bulk\" }\ntcp = { cubic = { c = 0.8 } }\n[[flows]]\nname = \"v\"\nsrc = \"senders\"\ndst = \"receivers\"\napp = { kind = \"bulk\" }\ntcp = { cc = \"vegas\", vegas = { diff = \"linux\" } }\n",
        1,
    );
    let m = load_str(&text, None).unwrap();
    let (a, v) = (&m.flows[0].tcp, &m.flows[2].tcp);
    assert_eq!((a.cc, a.cubic.beta, a.cubic.c), (crate::tcp::CcKind::Cubic, 0.6, 0.8));
    assert_eq!((v.cc, v.vegas.diff), (crate::tcp::CcKind::Vegas, crate::tcp::VegasDiff::Linux));
    let d = a.describe();
    assert!(d.contains(&("cubic.beta", "0.6".to_string())) && d.contains(&("cubic.hystart", "linux".to_string())), "{d:?}");
    assert!(v.describe().contains(&("vegas.diff", "linux".to_string())));
    // Compound: `[tcp.compound]` checked and recorded; the variant's key is `variant` or
    // `compound`; γ tuning is the draft's only.
    let e = error_of("[topology]", "[tcp.compound]\nbeta = 0.3\n[topology]");
    assert_eq!(e.to_string(), "tcp.compound: no flow runs cc = \"compound\"");
    let e = error_of("[topology]", "[tcp]\ncc = \"compound\"\ncompound = { beta = 1.2 }\n[topology]");
    assert_eq!(e.to_string(), "tcp.compound.beta: must be in (0, 1), got 1.2");
    for (table, key) in [("alpha = 0", "alpha"), ("k = 1.5", "k"), ("gamma = -3", "gamma"), ("eta = 0", "eta"), ("variant = \"linux\"\ngamma_tuning = true", "gamma_tuning")] {
        let e = error_of("[topology]", &format!("[tcp]\ncc = \"compound\"\n[tcp.compound]\n{table}\n[topology]"));
        assert_eq!(e.path, format!("tcp.compound.{key}"), "{e}");
        assert!(!e.message.contains('\n'), "one line: {e}");
    }
    let e = error_of("[topology]", "[tcp]\ncc = \"compound\"\n[tcp.compound]\nvariant = \"windows\"\n[topology]");
    assert_eq!(e.path, "tcp.compound.variant");
    assert!(e.to_string().contains("expected `draft` or `linux`"), "{e}");
    let e = error_of("[topology]", "[tcp]\ncc = \"compound\"\n[tcp.compound]\nzeta = 1\n[topology]");
    assert_eq!(e.path, "tcp.compound.zeta");
    let e = error_of("app = { kind = \"bulk\" }\n", "app = { kind = \"bulk\" }\ntcp = { compound = { k = 0.8 } }\n");
    assert_eq!(e.to_string(), "flows[0].tcp.compound: this flow runs cc = \"new_reno\", not \"compound\"");
    let text = BASE.replacen("[topology]", "[tcp]\ncc = \"compound\"\n[tcp.compound]\ncompound = \"linux\"\ngamma = 20\n[topology]", 1).replacen(
        "app = { kind = \"bulk\" }\n",
        "app = { kind = \"bulk\" }\ntcp = { compound = { variant = \"draft\", gamma_tuning = true } }\n[[flows]]\nname = \"l\"\nsrc = \"senders\"\ndst = \"receivers\"\napp = { kind = \"bulk\" }\n",
        1,
    );
    let m = load_str(&text, None).unwrap();
    let (a, b) = (&m.flows[0].tcp.compound, &m.flows[2].tcp.compound);
    assert_eq!((a.variant, a.gamma, a.gamma_tuning), (crate::tcp::CompoundVariant::Draft, 20.0, true));
    assert_eq!((b.variant, b.gamma, b.gamma_tuning), (crate::tcp::CompoundVariant::Linux, 20.0, false));
    let d = m.flows[2].tcp.describe();
    for kv in [("compound.variant", "linux"), ("compound.alpha", "0.125"), ("compound.beta", "0.5"), ("compound.k", "0.75"), ("compound.gamma", "20"), ("compound.eta", "1"), ("compound.gamma_tuning", "false")] {
        assert!(d.contains(&(kv.0, kv.1.to_string())), "{kv:?} in {d:?}");
    }
    // The ns-3 profile: ns-3's HyStart and Vegas diff.
    let m = load_str(&BASE.replacen("[topology]", "[tcp]\nvalidate = \"ns3.44\"\ncc = \"cubic\"\n[topology]", 1), None).unwrap();
    assert_eq!(m.flows[0].tcp.cubic.hystart, crate::tcp::Hystart::Ns3);
}

// tests `[tcp.bbr]` (docs/algorithms/bbr.md): its keys are checked, one line naming the key;
// it must serve some flow; a flow's own table only for a flow running BBR; the ns-3 profile
// takes ns-3's target and cycle start; BBR mixes per flow with other algorithms.
#[test]
fn bbr_table() {
    use crate::tcp::{BbrCycleStart, BbrTarget, CcKind};
    let e = error_of("[topology]", "[tcp]\ncc = \"bbr\"\n[tcp.bbr]\ncycle_start = \"linux\"\n[topology]");
    assert_eq!(e.path, "tcp.bbr.cycle_start");
    assert!(e.to_string().contains("unknown variant `linux`, expected `draft` or `ns3`"), "{e}");
    let e = error_of("[topology]", "[tcp]\ncc = \"bbr\"\n[tcp.bbr]\ntarget = \"linux\"\n[topology]");
    assert_eq!(e.path, "tcp.bbr.target");
    let e = error_of("[topology]", "[tcp]\ncc = \"bbr\"\nbbr = { high_gain = 0.5 }\n[topology]");
    assert_eq!(e.to_string(), "tcp.bbr.high_gain: must be a number above 1, got 0.5");
    let e = error_of("[topology]", "[tcp]\ncc = \"bbr\"\nbbr = { pacing_margin = 1.5 }\n[topology]");
    assert_eq!(e.to_string(), "tcp.bbr.pacing_margin: must be in [0, 1), got 1.5");
    let e = error_of("[topology]", "[tcp.bbr]\ntarget = \"ns3\"\n[topology]");
    assert_eq!(e.to_string(), "tcp.bbr: no flow runs cc = \"bbr\"");
    // The second flow group runs the scenario's NewReno and gives a BBR table.
    let second = "app = { kind = \"bulk\" }\n[[flows]]\nname = \"x\"\nsrc = \"senders\"\ndst = \"receivers\"\napp = { kind = \"bulk\" }\ntcp = { bbr = { target = \"ns3\" } }\n";
    let e = error_of("app = { kind = \"bulk\" }\n", second);
    assert_eq!(e.to_string(), "flows[1].tcp.bbr: this flow runs cc = \"new_reno\", not \"bbr\"");
    // Mixed: the first group BBR (draft, ns-3 cycle start), the second CUBIC.
    let text = BASE.replacen("app = { kind = \"bulk\" }\n", "app = { kind = \"bulk\" }\ntcp = { cc = \"bbr\", bbr = { cycle_start = \"ns3\" } }\n[[flows]]\nname = \"c\"\nsrc = \"senders\"\ndst = \"receivers\"\napp = { kind = \"bulk\" }\ntcp = { cc = \"cubic\" }\n", 1);
    let m = load_str(&text, None).unwrap();
    let (a, c) = (&m.flows[0].tcp, &m.flows[2].tcp);
    assert_eq!((a.cc, a.bbr.target, a.bbr.cycle_start), (CcKind::Bbr, BbrTarget::Draft, BbrCycleStart::Ns3));
    assert_eq!(c.cc, CcKind::Cubic);
    let d = a.describe();
    assert!(d.contains(&("bbr.cycle_start", "ns3".to_string())) && d.contains(&("bbr.pacing_margin", "0".to_string())), "{d:?}");
    let m = load_str(&BASE.replacen("[topology]", "[tcp]\nvalidate = \"ns3.44\"\ncc = \"bbr\"\n[topology]", 1), None).unwrap();
    let b = &m.flows[0].tcp.bbr;
    assert_eq!((b.target, b.cycle_start, b.high_gain, b.pacing_margin), (BbrTarget::Ns3, BbrCycleStart::Ns3, 2.89, 0.01));
}

// Queue tables: the kind picks the discipline's own table; every error names the key.
#[test]
fn queue_tables_name_the_key_in_errors() {
    let e = error_of("kind = \"drop_tail\"", "kind = \"pei\"");
    assert_eq!(e.path, "topology.queue.kind");
    assert!(e.message.contains("unknown kind `pei`, expected one of `drop_tail`"), "{e}");
    assert!(e.allowed.as_ref().is_some_and(|a| a.iter().any(|k| k == "drop_tail")), "{e:?}");
    let e = error_of("limit = \"50pkt\" }", "limit = \"50pkt\", interval = \"100ms\" }");
    assert_eq!(e.path, "topology.queue.interval");
    assert_eq!(e.message, "unknown field for kind \"drop_tail\"; its fields: `limit`");
    let e = error_of("kind = \"drop_tail\", limit = \"50pkt\"", "kind = \"drop_tail\"");
    assert_eq!(e.path, "topology.queue.limit");
    assert!(e.message.starts_with("missing"), "{e}");
    let e = error_of("limit = \"50pkt\"", "limit = \"0pkt\"");
    assert_eq!((e.path.as_str(), e.message.as_str()), ("topology.queue.limit", "must be greater than zero"));
    // The same checks under another key.
    let e = error_of("[[flows]]", "reverse_queue = { kind = \"drop_tail\", limit = \"5pkt\", target = \"5ms\" }\n[[flows]]");
    assert_eq!(e.path, "topology.reverse_queue.target");
}

// The resolved discipline reaches the model, and the summary reports it with its counts.
#[test]
fn queue_parameters_reach_the_model_and_the_summary() {
    use sluice_core::qdisc::{DropTailConfig, QdiscConfig};
    use sluice_core::units::QueueLimit;
    let m = load_str(BASE, None).unwrap();
    let l = m.links.iter().find(|l| l.ab.queue_name == "A->B").expect("bottleneck");
    assert_eq!(l.ab.qdisc, QdiscConfig::DropTail(DropTailConfig { limit: QueueLimit::Packets(50) }));
    let text = BASE.replace("duration = \"10s\"", "duration = \"4s\"").replace("warmup = \"2s\"", "warmup = \"1s\"");
    let out = crate::run_str(&text, None, &crate::RunOptions::default()).unwrap();
    let q = out.summary.queues.iter().find(|q| q.name == "A->B").expect("A->B reported");
    assert_eq!(q.kind, "drop_tail");
    assert_eq!(q.params, serde_json::json!({ "kind": "drop_tail", "limit": "50pkt" }));
    // Two bulk flows through a 50-packet queue at 10 Mbit/s overflow it.
    assert!(q.dropped > 0, "{q:?}");
    assert_eq!(q.drops_by_reason.get("overlimit"), Some(&q.dropped), "drop-tail drops only on overflow");
    assert_eq!(q.drops_by_reason.len(), 1);
    assert!(q.marks_by_reason.is_empty() && q.marked == 0);
    assert_eq!(q.dropped_after, 0, "drop-tail never drops a queued packet");
}

// The RED family, PIE and CHOKe: their tables' errors name the key, "auto" bandwidth becomes the
// link's rate, and the ns-3 profile picks ns-3's rules.
#[test]
fn aqm_tables_name_the_key_and_resolve_per_link_and_profile() {
    use sluice_core::qdisc::red::RedFlavor;
    use sluice_core::qdisc::{Auto, QdiscConfig};
    use sluice_core::Rate;
    let dt = "{ kind = \"drop_tail\", limit = \"50pkt\" }";
    let e = error_of(dt, "{ kind = \"red\", limit = \"50pkt\", max_th = \"3pkt\" }");
    assert_eq!((e.path.as_str(), e.message.as_str()), ("topology.queue.max_th", "must be greater than min_th (5pkt), got 3pkt"));
    assert_eq!(e.to_string(), "topology.queue.max_th: must be greater than min_th (5pkt), got 3pkt");
    let e = error_of(dt, "{ kind = \"ared\", limit = \"50pkt\", alpha = 0.0 }");
    assert_eq!(e.to_string(), "topology.queue.alpha: must be > 0");
    let e = error_of(dt, "{ kind = \"pie\", limit = \"50pkt\", alpha = -1.0 }");
    assert_eq!(e.to_string(), "topology.queue.alpha: must be > 0");
    let e = error_of(dt, "{ kind = \"red\", limit = \"50pkt\", min_th = \"5000B\" }");
    assert_eq!(e.path, "topology.queue.min_th");
    let e = error_of(dt, "{ kind = \"red\", limit = \"50pkt\", params = \"linux\" }");
    assert_eq!(e.path, "topology.queue.params");
    let e = error_of(dt, "{ kind = \"red\", limit = \"50pkt\", w_q = \"fast\" }");
    assert_eq!(e.path, "topology.queue.w_q");
    let e = error_of(dt, "{ kind = \"pie\", limit = \"50pkt\", variant = \"ns3.30\", ecn = true }");
    assert_eq!(e.path, "topology.queue.ecn");
    let e = error_of(dt, "{ kind = \"choke\", limit = \"50pkt\", candidates = 0 }");
    assert_eq!(e.path, "topology.queue.candidates");
    let e = error_of(dt, "{ kind = \"pie\" }");
    assert_eq!(e.path, "topology.queue.limit");
    let e = error_of(dt, "{ kind = \"ared\", limit = \"50pkt\", min_th = \"5pkt\" }");
    assert_eq!(e.path, "topology.queue.min_th");
    // bandwidth "auto" → the bottleneck's 10 Mbit/s; the profile's rules
    let red = |profile: &str| {
        let text = BASE.replacen(dt, "{ kind = \"red\", limit = \"50pkt\" }", 1).replacen("[topology]", &format!("[tcp]\nvalidate = \"{profile}\"\n[topology]"), 1);
        let m = load_str(&text, None).unwrap();
        let l = m.links.iter().find(|l| l.ab.queue_name == "A->B").expect("bottleneck");
        match &l.ab.qdisc {
            QdiscConfig::Red(c) => c.clone(),
            other => panic!("{other:?}"),
        }
    };
    let s = red("sluice");
    assert_eq!((s.bandwidth, s.flavor, s.hard_drop), (Auto::Value(Rate::mbps(10)), RedFlavor::Floyd, false));
    let n = red("ns3.44");
    assert_eq!((n.flavor, n.hard_drop, n.mean_pkt_size.0), (RedFlavor::Ns3, true, 500));
}

// A CoDel queue: keys left out take the defaults of the scenario's profile, ns-3.44's under
// `validate = "ns3.44"` (1,500,000-byte limit, its arithmetic); errors name the key.
#[test]
fn codel_defaults_follow_the_profile() {
    use sluice_core::qdisc::{CodelArith, CodelConfig, QdiscConfig};
    use sluice_core::units::QueueLimit;
    let codel = BASE.replace("queue = { kind = \"drop_tail\", limit = \"50pkt\" }", "queue = { kind = \"codel\", target = \"2ms\" }");
    let bottleneck = |text: &str| load_str(text, None).unwrap().links.iter().find(|l| l.ab.queue_name == "A->B").unwrap().ab.qdisc.clone();
    let want = CodelConfig { target: Dur::from_millis(2), ..CodelConfig::default() };
    assert_eq!(bottleneck(&codel), QdiscConfig::Codel(want.clone()));
    assert_eq!(want.limit, QueueLimit::Packets(1000));
    let ns3 = codel.replace("[topology]", "[tcp]\nvalidate = \"ns3.44\"\n[topology]");
    let want = CodelConfig { target: Dur::from_millis(2), limit: QueueLimit::Bytes(1_500_000), arith: CodelArith::Ns3, ..CodelConfig::default() };
    assert_eq!(bottleneck(&ns3), QdiscConfig::Codel(want));
    // The profile's defaults, overridden key by key.
    let mixed = ns3.replace("target = \"2ms\"", "limit = \"900pkt\", arith = \"exact\"");
    let QdiscConfig::Codel(c) = bottleneck(&mixed) else { panic!("codel") };
    assert_eq!((c.limit, c.arith, c.target), (QueueLimit::Packets(900), CodelArith::Exact, Dur::from_millis(5)));
    let e = load_str(&codel.replace("target = \"2ms\"", "target = \"200ms\""), None).unwrap_err();
    assert_eq!(e.to_string(), "topology.queue.target: must be greater than 0 and less than interval (100ms), got 200ms");
    let e = load_str(&codel.replace("target = \"2ms\"", "arith = \"linux\""), None).unwrap_err();
    assert_eq!(e.path, "topology.queue.arith");
    assert!(e.message.contains("exact") && e.message.contains("ns3"), "{e}");
    let e = load_str(&codel.replace("target = \"2ms\"", "min_th = \"5pkt\""), None).unwrap_err();
    assert_eq!(e.path, "topology.queue.min_th");
    assert!(e.message.starts_with("unknown field for kind \"codel\"; its fields: "), "{e}");
    let e = load_str(&codel.replace("target = \"2ms\"", "target = 5"), None).unwrap_err();
    assert_eq!(e.path, "topology.queue.target");
}

// AQMs through the engine: CoDel drops at dequeue, FQ-CoDel also drops queued packets to make
// room at an enqueue; both are freed and counted (`dropped_after`), and the counts add up:
// `arrivals = enqueued + (dropped − dropped_after)`, every drop has a reason, and the flows'
// lost packets include them.
#[test]
fn aqm_drops_reach_the_summary() {
    let base = BASE.replace("duration = \"10s\"", "duration = \"6s\"").replace("count = 2", "count = 8");
    for (queue, reasons) in [
        ("{ kind = \"codel\" }", &["codel_target_exceeded"][..]),
        ("{ kind = \"fq_codel\", limit = \"8pkt\", ecn = false }", &["fq_overlimit"][..]),
    ] {
        let text = base.replace("{ kind = \"drop_tail\", limit = \"50pkt\" }", queue);
        let out = crate::run_str(&text, None, &crate::RunOptions::default()).unwrap();
        let q = out.summary.queues.iter().find(|q| q.name == "A->B").unwrap();
        assert_eq!(q.arrivals, q.enqueued + (q.dropped - q.dropped_after), "{queue}");
        assert!(q.dropped_after > 0, "{queue}: {q:?}");
        assert_eq!(q.drops_by_reason.values().sum::<u64>(), q.dropped, "{queue}");
        for r in reasons {
            assert!(q.drops_by_reason.get(*r).is_some_and(|&n| n > 0), "{queue}: {r} in {:?}", q.drops_by_reason);
        }
        assert_eq!(q.params["kind"], queue.split('"').nth(1).unwrap());
        let lost: u64 = out.summary.flows.iter().map(|f| f.lost_packets).sum();
        assert!(lost >= q.dropped, "{queue}: flows lost {lost}, queue dropped {}", q.dropped);
    }
}

#[test]
fn flow_dscp_is_a_six_bit_codepoint() {
    let e = error_of("app = { kind = \"bulk\" }", "dscp = 64\napp = { kind = \"bulk\" }");
    assert_eq!(e.to_string(), "flows[0].dscp: must be 0–63, got 64");
    assert_eq!(error_of("app = { kind = \"bulk\" }", "dscp = -1\napp = { kind = \"bulk\" }").path, "flows[0].dscp");
    let m = load_str(&BASE.replace("app = { kind = \"bulk\" }", "dscp = 46\napp = { kind = \"bulk\" }"), None).unwrap();
    // The flow keeps it, and so does the configuration its endpoints send with.
    assert_eq!((m.flows[0].dscp, m.flows[0].tcp.dscp), (46, 46));
    let m = load_str(BASE, None).unwrap();
    assert_eq!((m.flows[0].dscp, m.flows[0].tcp.dscp), (0, 0));
}

#[test]
fn tcp_rate_app_takes_a_rate_and_a_write_size() {
    let app = |a: &str| BASE.replace("app = { kind = \"bulk\" }", a);
    let m = load_str(&app("app = { kind = \"tcp_rate\", rate = \"500kbps\" }"), None).unwrap();
    assert_eq!(m.flows[0].app, AppSpec::TcpRate { rate: sluice_core::Rate::bps(500_000), write: 1448 });
    assert!(m.flows[0].app.is_tcp());
    let m = load_str(&app("app = { kind = \"tcp_rate\", rate = \"1Mbps\", write_size = \"1000B\" }"), None).unwrap();
    assert_eq!(m.flows[0].app, AppSpec::TcpRate { rate: sluice_core::Rate::mbps(1), write: 1000 });
    let e = error_of("app = { kind = \"bulk\" }", "app = { kind = \"tcp_rate\", rate = \"0bps\" }");
    assert_eq!(e.path, "flows[0].app.rate");
    let e = error_of("app = { kind = \"bulk\" }", "app = { kind = \"tcp_rate\" }");
    assert!(e.path.starts_with("flows[0].app"), "{e}");
}
