//! ACNS's endpoint half in whole runs (docs/tcp.md, "ACNS endpoint"): a legacy ECN AQM on the path
//! turns I2 into I7 (fallback) and I4 into I6 (freeze), which the ACNS senders answer with
//! fallbacks instead of RFC 3168 reductions; without any marking router every command is
//! normal and losses go to the trend rule. Bad `[tcp.acns]` input is one line naming the field.

use sluice_sim::RunOptions;

fn run(text: &str) -> serde_json::Value {
    let out = sluice_sim::run_str(text, None, &RunOptions::default()).unwrap();
    serde_json::to_value(&out.summary).unwrap()
}

/// Four CUBIC flows with ACNS through a 10 Mbit/s, 20 ms bottleneck with the given queue.
fn scenario(queue: &str, acns: &str) -> String {
    format!(
        r#"
name = "acns-endpoint"
duration = "20s"
warmup = "2s"
[tcp]
cc = "cubic"
acns = {acns}
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

fn sum(s: &serde_json::Value, key: &str) -> u64 {
    s["flows"].as_array().unwrap().iter().map(|f| f["acns"][key].as_u64().unwrap()).sum()
}

fn flows_sum(s: &serde_json::Value, key: &str) -> u64 {
    s["flows"].as_array().unwrap().iter().map(|f| f[key].as_u64().unwrap()).sum()
}

// tests the interop rule: RED with `ecn = true` (an RFC 3168 AQM, no ACNS) marks CE on ACNS's
// ECT(0) data: I2 becomes I7, I4 becomes I6. The receivers count both, the senders apply
// fallbacks at their command ACKs and never enter RFC 3168's CWR; the queue marks instead of
// dropping, so no loss and no trend decision. (A 20 s run sees about 3000 I7 and 180 I6
// segments per flow, and about 200 fallbacks per flow.)
#[test]
fn legacy_ce_turns_i2_into_fallbacks() {
    let s = run(&scenario(r#"{ kind = "red", limit = "200pkt", ecn = true }"#, "{ enabled = true }"));
    assert!(s["flows"].as_array().unwrap().iter().all(|f| f["acns"].is_object()), "every flow negotiated ACNS");
    let (rx7, rx6, fallback, marked) = (sum(&s, "rx_fallback"), sum(&s, "rx_freeze"), sum(&s, "fallback"), sum(&s, "marked"));
    assert!(rx7 > 100, "I7 at the receivers: {rx7}");
    assert!(rx6 > 10, "I6 (I4 marked CE) at the receivers: {rx6}");
    assert!(fallback > 100 && fallback <= marked, "fallbacks {fallback}, marked {marked}");
    assert_eq!(flows_sum(&s, "cwr_episodes"), 0, "ACNS replaces the RFC 3168 response");
    let q = s["queues"].as_array().unwrap().iter().find(|q| q["name"] == "A->B").unwrap();
    assert!(q["marked"].as_u64().unwrap() > 100);
    assert_eq!(s["options"]["tcp.acns.echo"], "once");
    assert_eq!(s["options"]["tcp.ecn"], "true", "ACNS turns ECN on");
}

// tests a drop-tail path (no router evaluates anything): every command ACK reads normal, no
// segment arrives I6/I7, and every fast-retransmit loss goes to the trend rule, one decision per
// recovery episode; with P all normal it is a freeze (W_trend = 1 < th_L1).
#[test]
fn drop_tail_path_commands_are_normal_and_losses_take_the_trend_rule() {
    let s = run(&scenario(r#"{ kind = "drop_tail", limit = "100pkt" }"#, "{ enabled = true }"));
    assert_eq!(sum(&s, "rx_fallback") + sum(&s, "rx_freeze") + sum(&s, "fallback") + sum(&s, "freeze"), 0);
    assert!(sum(&s, "normal") > 50);
    let trend = sum(&s, "trend_freeze") + sum(&s, "trend_fallback") + sum(&s, "trend_decrease");
    assert_eq!(trend, flows_sum(&s, "recovery_episodes"), "one trend decision per fast-retransmit episode");
    assert!(sum(&s, "trend_freeze") > 0);
}

// tests that a flow without ACNS has no `acns` in its summary and records no ACNS option.
#[test]
fn without_acns_nothing_is_recorded() {
    let s = run(&scenario(r#"{ kind = "drop_tail", limit = "100pkt" }"#, "{ enabled = false }"));
    assert!(s["flows"].as_array().unwrap().iter().all(|f| f.get("acns").is_none()));
    assert!(s["options"].as_object().unwrap().keys().all(|k| !k.contains("acns")));
}

// tests bad `[tcp.acns]` input: one line naming the field and what is allowed.
#[test]
fn bad_acns_input_names_the_field() {
    let err = |tcp: &str| {
        let text = scenario(r#"{ kind = "drop_tail", limit = "100pkt" }"#, "{ enabled = false }").replacen("start = {", &format!("tcp = {tcp}\nstart = {{"), 1);
        let e = sluice_sim::run_str(&text, None, &RunOptions::default()).map(|_| ()).expect_err("must be rejected").to_string();
        assert!(!e.contains('\n'), "{e}");
        e
    };
    assert_eq!(err("{ acns = { enabled = true, sigma = 0 } }"), "flows[0].tcp.acns.sigma: must be > 0, got 0");
    assert_eq!(err("{ acns = { hist_len = 0 } }"), "flows[0].tcp.acns.hist_len: must be at least 1, got 0");
    assert_eq!(err("{ acns = { th_l1 = 2.5 } }"), "flows[0].tcp.acns.th_l2: must be at least th_l1 (2.5), got 2.1587");
    assert!(err("{ acns = { cmt_mask = 1 } }").starts_with("flows[0].tcp.acns.cmt_mask: expected 0x08, 0x04 or 0x02"));
    assert_eq!(err("{ ecn = false, acns = { enabled = true } }"), "flows[0].tcp.ecn: must be true with acns.enabled (ACNS runs in ECN mode)");
    assert_eq!(err("{ cc = \"bbr\", acns = { enabled = true } }"), "flows[0].tcp.acns.enabled: ACNS holds and sets back a congestion window: not with cc = \"bbr\"");
    let e = err("{ acns = { echo = \"twice\" } }");
    assert!(e.starts_with("flows[0].tcp.acns.echo: unknown variant `twice`, expected `once` or `latch`"), "{e}");
}

// tests the model hash: ACNS off (no table, or `enabled = false` with other keys) leaves the
// resolved model, and so its hash, as it was before ACNS existed; on, or any option of it when on,
// moves it.
#[test]
fn model_hash_moves_only_with_acns_on() {
    let q = r#"{ kind = "drop_tail", limit = "100pkt" }"#;
    let hash = |acns: &str| sluice_sim::scenario::resolve(&scenario(q, acns), None, &[]).unwrap().model_hash;
    let without = sluice_sim::scenario::resolve(&scenario(q, "{}").replace("acns = {}\n", ""), None, &[]).unwrap().model_hash;
    assert_eq!(hash("{ enabled = false }"), without);
    assert_eq!(hash("{ enabled = false, sigma = 4 }"), without);
    let on = hash("{ enabled = true }");
    assert_ne!(on, without);
    assert_ne!(hash("{ enabled = true, echo = \"latch\" }"), on);
}
