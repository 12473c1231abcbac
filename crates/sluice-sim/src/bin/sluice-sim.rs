//! `sluice-sim`: run one scenario from Rust alone (benchmarks, debugging). The user-facing CLI
//! is `sluice` (Python), which adds Parquet tables and figures.

use std::process::ExitCode;

const HELP: &str = "sluice-sim — run one Sluice scenario and print its summary JSON

USAGE:
    sluice-sim SCENARIO.toml [--seed N] [--set PATH=VALUE]... [--summary OUT.json] [--out DIR]

OPTIONS:
    --seed N          override the scenario's seed
    --set PATH=VALUE  set a scenario field before it is read (repeatable): PATH is dotted keys
                      with [i] indices, VALUE a TOML value or else a plain string
    --summary FILE    write the summary JSON to FILE instead of standard output
    --out DIR         directory for pcap files the scenario asks for
    -h, --help        this text

EXAMPLE:
    sluice-sim scenarios/reference/single-newreno.toml --seed 2
    sluice-sim scenarios/reference/single-newreno.toml --set topology.queue.limit=20pkt --set flows[0].count=4";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut file = None;
    let mut seed = None;
    let mut summary = None;
    let mut opts = sluice_sim::RunOptions::default();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let mut value = || {
            i += 1;
            args.get(i).cloned().ok_or_else(|| format!("{a} needs a value"))
        };
        let r: Result<(), String> = match a {
            "-h" | "--help" => {
                println!("{HELP}");
                return ExitCode::SUCCESS;
            }
            "--seed" => value().and_then(|v| v.parse::<u64>().map(|s| seed = Some(s)).map_err(|_| format!("--seed: expected a non-negative integer, got {v:?}"))),
            "--summary" => value().map(|v| summary = Some(v)),
            "--set" => value().and_then(|v| sluice_sim::scenario::Override::parse_arg(&v)).map(|o| opts.overrides.push(o)),
            "--out" => value().map(|v| opts.out_dir = Some(v.into())),
            s if s.starts_with('-') => Err(format!("unknown option {s:?} (see --help)")),
            s => match &file {
                Some(first) => Err(format!("one scenario file per run: {first:?} was given, then {s:?} (run each on its own, or sweep them: docs/harness.md)")),
                None => {
                    file = Some(s.to_string());
                    Ok(())
                }
            },
        };
        if let Err(e) = r {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
        i += 1;
    }
    let Some(file) = file else {
        eprintln!("error: no scenario file given (see --help)");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {file}: {e}");
            return ExitCode::from(2);
        }
    };
    match sluice_sim::run_str(&text, seed, &opts) {
        Ok(out) => {
            let json = out.summary.to_json();
            match summary {
                Some(path) => {
                    if let Err(e) = std::fs::write(&path, json + "\n") {
                        eprintln!("error: {path}: {e}");
                        return ExitCode::from(1);
                    }
                }
                None => println!("{json}"),
            }
            ExitCode::SUCCESS
        }
        Err(e @ sluice_sim::SimError::Scenario(_)) => {
            eprintln!("error: {file}: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
