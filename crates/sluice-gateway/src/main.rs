//! `sluice-gateway`: forward between two interfaces through Sluice's queue disciplines,
//! controllers, shaper and delay line (docs/gateway.md).

use clap::Parser;
use sluice_gateway::config::{Config, EXAMPLE};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "sluice-gateway",
    version,
    about = "Forward between two interfaces through Sluice's queue disciplines, network-return controllers, rate shaper and delay line.",
    long_about = None,
    after_long_help = format!("Needs CAP_NET_RAW (run as root, or grant the capability); drops every capability after opening its sockets.\n\nExample configuration:\n\n{EXAMPLE}"),
)]
struct Cli {
    /// The TOML configuration file.
    #[arg(long, value_name = "FILE")]
    config: std::path::PathBuf,
    /// Parse and check the configuration, print nothing on success, and exit.
    #[arg(long)]
    check_config: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let text = match std::fs::read_to_string(&cli.config) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {}: {e}", cli.config.display());
            return ExitCode::from(2);
        }
    };
    let cfg = match Config::parse(&text) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if cli.check_config {
        return ExitCode::SUCCESS;
    }
    match sluice_gateway::run::run(&cfg) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
