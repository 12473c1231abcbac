//! `sluice-bench`: the per-packet cost of two scenarios measured side by side in one process.
//!
//! On a shared machine the speed of a run drifts by tens of percent from minute to minute, so
//! two runs made one after the other compare badly. Here the two runs advance in alternating
//! slices of events (`Stepper`), so both meet the same conditions throughout; each slice's wall
//! time is charged to its run. Switching costs a refill of the caches per slice, well under 1 %
//! at the default slice.

use sluice_sim::engine::Stepper;
use sluice_sim::scenario::load_str;
use sluice_sim::RunOptions;
use std::process::ExitCode;

const HELP: &str = "sluice-bench — per-packet cost of two scenarios, run interleaved in one process

USAGE:
    sluice-bench BASE.toml OTHER.toml [--rounds N] [--slice EVENTS]

Runs BASE and OTHER in alternating slices of EVENTS events (default 200000) until both end,
charging each slice's wall time to its run, and repeats that N times (default 3). Prints JSON:
per run the wall time, data packets and nanoseconds per data packet of each round, and
`ratio`, OTHER's cost per data packet over BASE's, for each round.

EXAMPLE:
    sluice-bench access10.toml access900.toml --rounds 5";

struct Args {
    files: Vec<String>,
    rounds: u32,
    slice: u64,
}

fn parse(args: &[String]) -> Result<Option<Args>, String> {
    let mut a = Args { files: Vec::new(), rounds: 3, slice: 200_000 };
    let mut i = 0;
    while i < args.len() {
        let s = args[i].as_str();
        let mut value = || {
            i += 1;
            args.get(i).cloned().ok_or_else(|| format!("{s} needs a value"))
        };
        match s {
            "-h" | "--help" => return Ok(None),
            "--rounds" => {
                let v = value()?;
                a.rounds = v.parse().ok().filter(|&n| n > 0).ok_or(format!("--rounds: expected a positive integer, got {v:?}"))?;
            }
            "--slice" => {
                let v = value()?;
                a.slice = v.parse().ok().filter(|&n| n > 0).ok_or(format!("--slice: expected a positive number of events, got {v:?}"))?;
            }
            s if s.starts_with('-') => return Err(format!("unknown option {s:?} (see --help)")),
            s => a.files.push(s.to_string()),
        }
        i += 1;
    }
    if a.files.len() != 2 {
        return Err(format!("expected two scenario files, got {} (see --help)", a.files.len()));
    }
    Ok(Some(a))
}

/// One round: both runs from the start, interleaved; (wall s, data packets) of each.
fn round(models: &[sluice_sim::model::Model; 2], slice: u64) -> Result<[(f64, u64); 2], String> {
    let opts = RunOptions::default();
    let mut runs = [Stepper::new(&models[0], &opts).map_err(|e| e.to_string())?, Stepper::new(&models[1], &opts).map_err(|e| e.to_string())?];
    let mut live = [true, true];
    while live[0] || live[1] {
        for (r, l) in runs.iter_mut().zip(live.iter_mut()) {
            if *l {
                *l = r.advance(slice);
            }
        }
    }
    let mut out = [(0.0, 0); 2];
    for (o, r) in out.iter_mut().zip(runs) {
        let packets = r.data_packets();
        let s = r.finish().map_err(|e| e.to_string())?.summary;
        *o = (s.wall_time_s, packets);
    }
    Ok(out)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let a = match parse(&args) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut models = Vec::new();
    for f in &a.files {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {f}: {e}");
                return ExitCode::from(2);
            }
        };
        match load_str(&text, None) {
            Ok(m) => models.push(m),
            Err(e) => {
                eprintln!("error: {f}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let models: [sluice_sim::model::Model; 2] = models.try_into().expect("two files");
    let mut per_run = [Vec::new(), Vec::new()];
    let mut ratios = Vec::new();
    for n in 0..a.rounds {
        let r = match round(&models, a.slice) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        };
        let ns = r.map(|(w, p)| w * 1e9 / p.max(1) as f64);
        eprintln!("round {}/{}: {:.0} and {:.0} ns per data packet, ratio {:.3}", n + 1, a.rounds, ns[0], ns[1], ns[1] / ns[0]);
        for (k, &(w, p)) in r.iter().enumerate() {
            per_run[k].push(serde_json::json!({ "wall_s": w, "data_packets": p, "ns_per_data_pkt": ns[k] }));
        }
        ratios.push(ns[1] / ns[0]);
    }
    let out = serde_json::json!({
        "slice_events": a.slice,
        "base": { "scenario": a.files[0], "rounds": per_run[0] },
        "other": { "scenario": a.files[1], "rounds": per_run[1] },
        "ratio": ratios,
    });
    println!("{}", serde_json::to_string_pretty(&out).expect("json"));
    ExitCode::SUCCESS
}
