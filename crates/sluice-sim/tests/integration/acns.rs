//! ACNS's routers in whole runs: the `[[gateways]]` entry, its summary and its bad input. (The
//! commands themselves, from hand-made packets at a known queue level, are tested at enqueue in
//! the engine's own tests and in `sluice_core::control::acns`.)

use sluice_sim::{Column, RunOptions};

/// Two bulk flows (DSCP 0 and 46) over a 10 Mb/s, 20 ms bottleneck with 100-packet drop-tail
/// queues, ACNS on both routers; `acns` is extra keys of the controller.
fn dumbbell(acns: &str) -> String {
    let gw = |n: &str| format!("[[gateways]]\nnode = \"{n}\"\ncontroller = {{ kind = \"acns\"{acns} }}\n");
    format!(
        "name = \"acns\"\nduration = \"2s\"\n[tcp]\nmss = 1000\ntimestamps = false\n[topology]\nkind = \"dumbbell\"\npairs = 2\naccess_rate = \"100Mbps\"\naccess_delay = \"1ms\"\n\
         bottleneck = {{ rate = \"10Mbps\", delay = \"20ms\" }}\nqueue = {{ kind = \"drop_tail\", limit = \"100pkt\" }}\n\
         [[flows]]\nsrc = \"s0\"\ndst = \"r0\"\napp = {{ kind = \"bulk\" }}\n\
         [[flows]]\nsrc = \"s1\"\ndst = \"r1\"\ndscp = 46\napp = {{ kind = \"bulk\" }}\n\
         [monitor]\nrewrite_trace = true\n{}{}",
        gw("A"),
        gw("B")
    )
}

// Both routers appear in the summary as `acns` with their resolved parameters (the ACNS
// paper's Table 1 and Sluice's defaults), evaluating at enqueue into every egress, with both
// connections in their flow tables; the `rewrites` table has the `weight` column, and every
// ACNS row in it names a command the counters count.
#[test]
fn acns_routers_in_the_summary_and_the_trace() {
    let out = sluice_sim::run_str(&dumbbell(""), None, &RunOptions::default()).unwrap();
    let s = serde_json::to_value(&out.summary).unwrap();
    for (k, node) in ["A", "B"].into_iter().enumerate() {
        let g = &s["gateways"][k];
        assert_eq!((g["node"].as_str(), g["kind"].as_str(), g["monitor"].as_str(), g["rewrite_at"].as_str()), (Some(node), Some("acns"), Some("every egress"), Some("enqueue")));
        let p = &g["params"];
        assert_eq!((p["kind"].as_str(), p["v_p"].as_f64(), p["v_a"].as_f64(), p["th_a1"].as_f64(), p["th_a2"].as_f64()), (Some("acns"), Some(0.8), Some(0.2), Some(0.95), Some(1.0)));
        assert_eq!((p["weight"].as_str(), p["age"].as_str(), p["eps"].as_f64(), p["p_max"].as_str(), p["cmt_mask"].as_u64()), (Some("corrected"), Some("intent"), Some(0.01), Some("active"), Some(8)));
        let a = &g["acns"];
        assert_eq!(a["flow_table_size"].as_u64(), Some(2), "{g}");
        assert_eq!(a["skipped"].as_u64(), Some(0));
    }
    let rw = out.tables.iter().find(|t| t.name == "rewrites").expect("rewrites table");
    let col = |n: &str| &rw.columns.iter().find(|c| c.0 == n).unwrap_or_else(|| panic!("column {n}")).1;
    let (Column::Str(reason), Column::F64(weight)) = (col("reason"), col("weight")) else { panic!("column types") };
    let count = |r: &str| reason.iter().filter(|x| *x == r).count() as u64;
    let sum = |k: &str| (0..2).map(|g| s["gateways"][g]["acns"][k].as_u64().unwrap()).sum::<u64>();
    assert_eq!((count("acns_freeze"), count("acns_fallback")), (sum("freezes"), sum("fallbacks")));
    for (r, w) in reason.iter().zip(weight) {
        assert!(r.starts_with("acns_") && *w >= 0.95, "{r} {w}");
    }
}

// Bad input: one line naming the field and what is allowed.
#[test]
fn bad_acns_names_the_field() {
    let err = |text: String| sluice_sim::scenario::load_str(&text, None).unwrap_err().to_string();
    let e = err(dumbbell(", v_p = 0.7"));
    assert!(e.contains("gateways[0].controller.v_p: v_p + v_a must be 1, got 0.9"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    let e = err(dumbbell(", eps = 0"));
    assert!(e.contains("gateways[0].controller.eps: must be in (0, 1], got 0"), "{e}");
    let e = err(dumbbell(", th_a2 = 0.5"));
    assert!(e.contains("gateways[0].controller.th_a2: must be at least th_a1 (0.95), got 0.5"), "{e}");
    let e = err(dumbbell(", cmt_mask = 1"));
    assert!(e.contains("gateways[0].controller.cmt_mask") && e.contains("0x08"), "{e}");
    let e = err(dumbbell(", p_max = 46"));
    assert!(e.contains("gateways[0]") && e.contains(r#"expected "active" or 63, got 46"#), "{e}");
    let e = err(dumbbell(", age = \"old\""));
    assert!(e.contains("gateways[0]") && e.contains("unknown variant `old`") && e.contains("printed"), "{e}");
    let e = err(dumbbell(", th_l1 = 1.8"));
    assert!(e.contains("gateways[0]") && e.contains("unknown field `th_l1`"), "{e}");
    let e = err(dumbbell("").replace("[[gateways]]\nnode = \"B\"", "[[gateways]]\nnode = \"B\"\nmonitor = \"B->A\""));
    assert!(e.contains("gateways[1].monitor") && e.contains("not used by ACNS"), "{e}");
    let e = err(dumbbell("").replace("node = \"B\"", "node = \"A\""));
    assert!(e.contains("gateways[1].node") && e.contains("already has a gateway"), "{e}");
    let e = err(dumbbell("").replace("kind = \"acns\"", "kind = \"acnz\""));
    assert!(e.contains("gateways[0].controller") && e.contains("`acns`"), "{e}");
}
