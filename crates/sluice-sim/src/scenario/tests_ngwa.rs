//! NGWA's scenario keys: `[tcp.ngwa]` (global and per flow), `[ngwa] mode` applied to flows and
//! routers, the option size the endpoints derive from the routers, and the errors.

use super::load_str;
use crate::tcp::{CcKind, NgwaFloor, NgwaSmoothAt};

/// Two TCP flows over a dumbbell whose routers run NGWA; `extra` goes at the end, `gw` into each
/// router's controller table.
fn scenario(extra: &str, gw_a: &str, gw_b: &str) -> String {
    format!(
        r#"
name = "n"
duration = "10s"
[tcp]
tcp_preset = "ns3.13"
[topology]
kind = "dumbbell"
pairs = 2
access_rate = "10Mbps"
access_delay = "1ms"
bottleneck = {{ rate = "1100kbps", delay = "20ms" }}
queue = {{ kind = "drop_tail", limit = "97000B" }}
[[flows]]
count = 2
src = "senders"
dst = "receivers"
app = {{ kind = "bulk" }}
[[gateways]]
node = "A"
controller = {{ kind = "ngwa"{gw_a} }}
[[gateways]]
node = "B"
controller = {{ kind = "ngwa"{gw_b} }}
{extra}"#
    )
}

#[track_caller]
fn error(text: &str) -> String {
    let e = load_str(text, None).expect_err("must be rejected").to_string();
    assert!(!e.contains('\n'), "one line: {e}");
    e
}

// tests `[tcp.ngwa]`: the defaults (mode 1's receiver), a global table turning NGWA on with its
// keys, a flow's table overriding one key and another flow's turning it off; the summary's
// options record it.
#[test]
fn tcp_ngwa_table_global_and_per_flow() {
    let m = load_str(&scenario("", "", ""), None).unwrap();
    assert!(!m.flows[0].tcp.ngwa.enabled, "off unless asked for");
    let text = scenario("", "", "").replace(
        "[topology]",
        "[tcp.ngwa]\nalpha = 0.5\nsmoothing = true\nsmooth_at = \"arrival\"\nallow_shrink = false\nfloor = \"mss\"\n[topology]",
    );
    let text = text.replace("app = { kind = \"bulk\" }", "app = { kind = \"bulk\" }\ntcp = { ngwa = { alpha = 0.25 } }\n[[flows]]\nsrc = \"s0\"\ndst = \"r1\"\napp = { kind = \"bulk\" }\ntcp = { ngwa = { enabled = false } }");
    let m = load_str(&text, None).unwrap();
    let n = &m.flows[0].tcp.ngwa;
    assert!(n.enabled);
    assert_eq!((n.alpha, n.smoothing, n.smooth_at, n.allow_shrink, n.floor, n.opt_len), (0.25, true, NgwaSmoothAt::Arrival, false, NgwaFloor::Mss, 8));
    assert!(!m.flows[2].tcp.ngwa.enabled);
    let d = m.flows[0].tcp.describe();
    for (k, v) in [("ngwa", "true"), ("ngwa.alpha", "0.25"), ("ngwa.smooth_at", "arrival"), ("ngwa.floor", "mss"), ("ngwa.opt_len", "8"), ("ngwa.mode", "none")] {
        assert!(d.contains(&(k, v.to_string())), "{k} = {v} in {d:?}");
    }
    assert!(m.flows[2].tcp.describe().contains(&("ngwa", "false".to_string())));
}

// tests `[ngwa] mode` against Talau & Wille's Table 1, row by row: every flow's congestion
// control (new_reno with a congestion window, none without) and smoothing, and both routers'
// flow division.
#[test]
fn each_mode_sets_cc_smoothing_and_flow_division() {
    let table = [(1, true, false, false), (2, true, true, false), (3, false, false, false), (4, false, true, false), (5, true, false, true), (6, true, true, true), (7, false, false, true), (8, false, true, true)];
    for (mode, cw, se, fd) in table {
        let m = load_str(&scenario(&format!("[ngwa]\nmode = {mode}\n"), "", ""), None).unwrap();
        for f in &m.flows {
            assert_eq!(f.tcp.cc, if cw { CcKind::NewReno } else { CcKind::None }, "mode {mode}");
            assert!(f.tcp.ngwa.enabled);
            assert_eq!((f.tcp.ngwa.smoothing, f.tcp.ngwa.mode), (se, Some(mode)), "mode {mode}");
        }
        assert_eq!(m.ngwa.len(), 2);
        assert!(m.ngwa.iter().all(|g| g.config.flow_division == fd), "mode {mode}");
    }
}

// tests the consistency rule: a key given anywhere that contradicts the mode is refused naming
// where it was given; keys that agree with it, and a congestion control with a window for a
// mode with one, are accepted.
#[test]
fn explicit_settings_contradicting_the_mode_are_errors() {
    let mode = |n: u32| format!("[ngwa]\nmode = {n}\n");
    let with_tcp = |n: u32, tcp: &str| scenario(&mode(n), "", "").replace("[topology]", &format!("{tcp}\n[topology]"));
    assert_eq!(error(&with_tcp(3, "cc = \"new_reno\"")), "tcp.cc: ngwa.mode = 3 runs without a congestion window (cc = \"none\", RFC 793); got \"new_reno\"");
    let flow_cc = scenario(&mode(1), "", "").replace("app = { kind = \"bulk\" }", "app = { kind = \"bulk\" }\ntcp = { cc = \"none\" }");
    assert_eq!(error(&flow_cc), "flows[0].tcp.cc: ngwa.mode = 1 runs a congestion window (new_reno in the paper); cc = \"none\" has none");
    assert_eq!(error(&with_tcp(2, "[tcp.ngwa]\nsmoothing = false")), "tcp.ngwa.smoothing: ngwa.mode = 2 sets smoothing = true; got false");
    assert_eq!(error(&scenario(&mode(5), "", ", flow_division = false")), "gateways[1].controller.flow_division: ngwa.mode = 5 sets flow_division = true; got false");
    assert_eq!(error(&scenario(&mode(1), ", flow_division = true", "")), "gateways[0].controller.flow_division: ngwa.mode = 1 sets flow_division = false; got true");
    assert_eq!(error(&scenario(&mode(9), "", "")), "ngwa.mode: must be 1–8 (NGWA's Table 1), got 9");
    assert_eq!(error(&scenario(&mode(0), "", "")), "ngwa.mode: must be 1–8 (NGWA's Table 1), got 0");
    // Agreeing keys pass; a CUBIC flow keeps its window algorithm under mode 6.
    let ok = with_tcp(6, "cc = \"cubic\"\n[tcp.ngwa]\nsmoothing = true").replace("kind = \"ngwa\"", "kind = \"ngwa\", flow_division = true");
    let m = load_str(&ok, None).unwrap();
    assert!(m.flows.iter().all(|f| f.tcp.cc == CcKind::Cubic && f.tcp.ngwa.smoothing));
}

// tests the option size the endpoints make room for: the routers' unless given; given, it must
// be theirs; routers that disagree with each other are refused when NGWA endpoints need one.
#[test]
fn the_endpoints_option_size_follows_the_routers() {
    let m = load_str(&scenario("", ", opt_len = 4", ", opt_len = 4").replace("[topology]", "[tcp.ngwa]\n[topology]"), None).unwrap();
    assert!(m.flows.iter().all(|f| f.tcp.ngwa.enabled && f.tcp.ngwa.opt_len == 4));
    let text = scenario("", ", opt_len = 4", ", opt_len = 4").replace("[topology]", "[tcp.ngwa]\nopt_len = 8\n[topology]");
    assert_eq!(error(&text), "tcp.ngwa.opt_len: 8 B differs from gateways[0].controller.opt_len = 4: the endpoints make room for the option the routers insert");
    let text = scenario("", ", opt_len = 8", ", opt_len = 4").replace("[topology]", "[tcp.ngwa]\n[topology]");
    assert_eq!(error(&text), "gateways[1].controller.opt_len: 4 differs from gateways[0]'s 8: NGWA endpoints make room for one option size; give the same, or tcp.ngwa.opt_len");
    // Without NGWA endpoints the routers may differ (nothing reads the option).
    assert!(load_str(&scenario("", ", opt_len = 8", ", opt_len = 4"), None).is_ok());
}

// tests the errors' wording: one line naming the field and what is allowed.
#[test]
fn bad_ngwa_values_name_the_field() {
    let flow = |kv: &str| scenario("", "", "").replace("app = { kind = \"bulk\" }", &format!("app = {{ kind = \"bulk\" }}\ntcp = {{ ngwa = {{ {kv} }} }}"));
    assert_eq!(error(&flow("alpha = 1.5")), "flows[0].tcp.ngwa.alpha: must be in (0, 1), got 1.5");
    assert_eq!(error(&flow("alpha = 0.0")), "flows[0].tcp.ngwa.alpha: must be in (0, 1), got 0");
    assert_eq!(error(&flow("opt_len = 6")), "flows[0].tcp.ngwa.opt_len: expected 4 or 8, got 6");
    assert_eq!(error(&scenario("", "", ", opt_len = 6")), "gateways[1].controller.opt_len: expected 4 or 8, got 6");
    let e = error(&flow("smooth_at = \"segment\""));
    assert!(e.starts_with("flows[0].tcp") && e.contains("smooth_at") && e.contains("`ack`") && e.contains("`arrival`"), "{e}");
    let e = error(&flow("floor = 1"));
    assert!(e.contains("floor"), "{e}");
    let e = error(&flow("mode = 5"));
    assert!(e.contains("unknown field `mode`"), "{e}");
}
