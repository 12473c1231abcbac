//! `sluice-gateway-bench`: the gateway's cost per frame without sockets (bench/linux-gateway.md).
//!
//! A synthetic stream of TCP frames goes through [`Gateway::on_frame`] and [`Gateway::poll`],
//! the same calls the AF_PACKET loop makes, with the clock handed in: `--flows` connections each
//! open with a handshake (window scaling, a 10 ms handshake RTT), then send full-sized data
//! segments client → server at `--rate` (one every 1538 B of wire time) with a pure ACK back
//! every second segment, advertising 8 MiB. The server-side egress is shaped to the same rate
//! (a 1000-packet drop-tail queue) and is the controller's monitored queue; the other egress is
//! unshaped. Each round runs the whole stream through a fresh gateway of each configuration in
//! turn, drop-tail alone first, and charges the wall time of those calls to it; the figure to
//! quote is each configuration's cost per frame over drop-tail's, per round. System calls are not
//! counted: they cost the same per frame whatever the controller, so the ratio here is the
//! controller's own share at its largest.
//!
//! The frames of one flow are the same bytes each time (sequence numbers do not advance), so
//! what is measured is the per-frame work of parsing, the flow table, the controller, the queue
//! and the rewrite — not TCP semantics.

use clap::Parser;
use sluice_core::{Dur, Rate, Time};
use sluice_gateway::datapath::Gateway;
use sluice_gateway::fuzzing::{tcp_frame, TcpSpec};
use sluice_gateway::Config;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "sluice-gateway-bench",
    about = "The gateway's cost per frame (no sockets): drop-tail against each controller",
    after_help = "Example: sluice-gateway-bench --flows 90 --frames 2000000 --rounds 7 rwm ewt"
)]
struct Args {
    /// Controllers to compare with drop-tail alone (`kind` of a `[gateway]` controller).
    #[arg(default_values_t = vec!["rwm".to_string()])]
    controllers: Vec<String>,
    /// Connections in the stream.
    #[arg(long, default_value_t = 90)]
    flows: u16,
    /// Frames per run (data and ACKs, after the handshakes).
    #[arg(long, default_value_t = 2_000_000)]
    frames: u64,
    /// Rounds; in each, every configuration runs once.
    #[arg(long, default_value_t = 7)]
    rounds: usize,
    /// The data direction's rate: the shaper's and the data segments' arrival rate.
    #[arg(long, default_value = "1Gbps")]
    rate: String,
    /// Run one configuration once and nothing else (`drop_tail` or a controller's kind): for
    /// instruction counts under cachegrind, which do not move with the machine's load.
    #[arg(long, value_name = "KIND")]
    single: Option<String>,
}

const CLIENT: [u8; 4] = [10, 0, 0, 1];
const SERVER: [u8; 4] = [10, 0, 0, 2];
/// Egress 0 faces the server (data leaves through it), egress 1 the client (ACKs).
const TO_SERVER: usize = 0;
const TO_CLIENT: usize = 1;

/// A TCP segment of connection `flow` in an Ethernet frame, checksums valid.
#[allow(clippy::too_many_arguments)]
fn frame(flow: u16, from_client: bool, flags: u8, seq: u32, ack: u32, window: u16, payload: usize, wscale: Option<u8>) -> Vec<u8> {
    let (cport, sport) = (10_000 + flow, 80u16);
    let (src, dst, sp, dp) = if from_client { (CLIENT, SERVER, cport, sport) } else { (SERVER, CLIENT, sport, cport) };
    tcp_frame(&TcpSpec { src, dst, sport: sp, dport: dp, seq, ack, flags, window, payload, wscale, ecn: 0 })
}

const SYN: u8 = 0x02;
const ACK: u8 = 0x10;
const PSH: u8 = 0x08;

/// The stream: (egress, time offset, frame index) steps over a table of frames.
struct Stream {
    frames: Vec<Vec<u8>>,
    steps: Vec<(usize, Dur, u32)>,
}

fn stream(flows: u16, n: u64, rate: Rate) -> Stream {
    let mut frames = Vec::new();
    let mut steps = Vec::new();
    let mut push = |frames: &mut Vec<Vec<u8>>, out: usize, t: Dur, f: Vec<u8>| {
        frames.push(f);
        steps.push((out, t, (frames.len() - 1) as u32));
    };
    // Handshakes, 1 ms apart, each with a 10 ms RTT; the client and server scale by 7.
    let (isn_c, isn_s) = (1_000u32, 5_000u32);
    for i in 0..flows {
        let t = Dur::from_millis(i as u64);
        push(&mut frames, TO_SERVER, t, frame(i, true, SYN, isn_c, 0, 65_535, 0, Some(7)));
        push(&mut frames, TO_CLIENT, t + Dur::from_millis(5), frame(i, false, SYN | ACK, isn_s, isn_c + 1, 65_535, 0, Some(7)));
        push(&mut frames, TO_SERVER, t + Dur::from_millis(10), frame(i, true, ACK, isn_c + 1, isn_s + 1, 512, 0, None));
    }
    let start = Dur::from_millis(flows as u64 + 20);
    let data: Vec<u32> = (0..flows).map(|i| push_frame(&mut frames, frame(i, true, ACK | PSH, isn_c + 1, isn_s + 1, 512, 1448, None))).collect();
    // 8 MiB advertised with a shift of 7: 65,536 units.
    let acks: Vec<u32> = (0..flows).map(|i| push_frame(&mut frames, frame(i, false, ACK, isn_s + 1, isn_c + 1 + 2 * 1448, 65_535, 0, None))).collect();
    let gap = rate.tx_time(1538);
    let (mut t, mut k) = (start, 0u64);
    while k < n {
        let i = (k / 3) as usize % flows as usize;
        steps.push((TO_SERVER, t, data[i]));
        k += 1;
        if k % 3 == 2 {
            steps.push((TO_CLIENT, t, acks[i]));
            k += 1;
        }
        t = t + gap;
    }
    Stream { frames, steps }
}

fn push_frame(frames: &mut Vec<Vec<u8>>, f: Vec<u8>) -> u32 {
    frames.push(f);
    (frames.len() - 1) as u32
}

fn config(controller: Option<&str>, rate: &str) -> Config {
    let mut s = format!(
        "[[egress]]\ninterface = \"srv\"\nrate = \"{rate}\"\nbuffers = 4096\nqdisc = {{ kind = \"drop_tail\", limit = \"1000pkt\" }}\n\
         [[egress]]\ninterface = \"cli\"\nbuffers = 4096\n"
    );
    if let Some(c) = controller {
        s += &format!("[gateway]\ncontroller = {{ kind = \"{c}\" }}\nmonitor = \"srv\"\n");
    }
    Config::parse(&s).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    })
}

/// One run: the stream through a fresh gateway; returns (wall ns, frames sent, frames rewritten).
fn run(cfg: &Config, s: &Stream) -> (u128, u64, u64) {
    let mut gw = Gateway::new(cfg, Time::ZERO);
    let mut sent = 0u64;
    let begin = Instant::now();
    for &(out, t, f) in &s.steps {
        let now = Time(t.0);
        gw.on_frame(out, &s.frames[f as usize], false, now, now);
        gw.poll(now, |_, _| {
            sent += 1;
            true
        });
    }
    while let Some(t) = gw.next_wakeup() {
        gw.poll(t, |_, _| {
            sent += 1;
            true
        });
    }
    let ns = begin.elapsed().as_nanos();
    let rewritten = gw.hook.as_ref().map_or(0, |h| h.nr.stats.lowered);
    (ns, sent, rewritten)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let a = Args::parse();
    let rate: Rate = a.rate.parse().unwrap_or_else(|e| {
        eprintln!("error: --rate: {e}");
        std::process::exit(2)
    });
    if a.flows == 0 || a.rounds == 0 || a.frames == 0 {
        eprintln!("error: --flows, --frames and --rounds must be at least 1");
        std::process::exit(2);
    }
    let s = stream(a.flows, a.frames, rate);
    if let Some(k) = &a.single {
        let cfg = config((k != "drop_tail").then_some(k.as_str()), &a.rate);
        let (ns, sent, rewritten) = run(&cfg, &s);
        println!("{{ \"kind\": \"{k}\", \"frames\": {}, \"sent\": {sent}, \"rewritten\": {rewritten}, \"ns_per_frame\": {:.1} }}", s.steps.len(), ns as f64 / s.steps.len() as f64);
        return;
    }
    let mut cfgs: Vec<(String, Config)> = vec![("drop_tail".into(), config(None, &a.rate))];
    for c in &a.controllers {
        cfgs.push((c.clone(), config(Some(c), &a.rate)));
    }
    let frames_in = s.steps.len() as f64;
    let mut per: Vec<Vec<f64>> = vec![Vec::new(); cfgs.len()];
    for r in 0..a.rounds {
        let mut line = format!("round {}/{}:", r + 1, a.rounds);
        for (k, (name, cfg)) in cfgs.iter().enumerate() {
            let (ns, sent, rewritten) = run(cfg, &s);
            let per_frame = ns as f64 / frames_in;
            per[k].push(per_frame);
            line += &format!(" {name} {per_frame:.0} ns/frame ({sent} sent, {rewritten} rewritten)");
        }
        eprintln!("{line}");
    }
    let base = &per[0];
    println!("{{\n  \"frames\": {},\n  \"flows\": {},\n  \"rate\": \"{}\",", s.steps.len(), a.flows, a.rate);
    println!("  \"drop_tail_ns_per_frame\": {:.1},", median(base.clone()));
    let rows: Vec<String> = cfgs
        .iter()
        .enumerate()
        .skip(1)
        .map(|(k, (name, _))| {
            let ratios: Vec<f64> = per[k].iter().zip(base).map(|(x, b)| x / b).collect();
            let (lo, hi) = ratios.iter().fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
            format!("    \"{name}\": {{ \"ns_per_frame\": {:.1}, \"ratio_median\": {:.3}, \"ratio_min\": {lo:.3}, \"ratio_max\": {hi:.3} }}", median(per[k].clone()), median(ratios.clone()))
        })
        .collect();
    println!("  \"controllers\": {{\n{}\n  }}\n}}", rows.join(",\n"));
}
