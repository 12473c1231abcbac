//! The forwarding loop: read both rings, hand frames to the engine with `CLOCK_MONOTONIC` time,
//! send what is due, serve `/metrics`, sleep until the next frame or due time.

use crate::config::Config;
use crate::datapath::Gateway;
use crate::error::GatewayError;
use crate::metrics::{self, EventLog, Server};
use crate::sys::{self, PacketSocket};
use sluice_core::Time;

/// Below this wait the loop spins rather than sleeps (a sleep's wake-up costs about as much).
const SPIN_NS: u64 = 20_000;
/// A sleep at least this long lets the CPU go idle, and a wake-up from idle takes 100-150 µs on
/// this project's 2-core VM (a quiet machine's delay line released frames that late at the
/// median): such a sleep ends [`IDLE_WAKE_NS`] before the due time and the loop spins the rest.
/// Shorter sleeps (a busy link) keep [`SPIN_NS`], so the loop never spins through traffic and
/// starves the kernel's packet processing.
const LONG_SLEEP_NS: u64 = 1_000_000;
const IDLE_WAKE_NS: u64 = 300_000;
/// How often the log is flushed and the ring clock's offset re-read.
const HOUSEKEEPING_NS: u64 = 100_000_000;
/// Ring blocks read per interface per turn (keeps the two directions fair).
const BLOCKS_PER_TURN: u32 = 4;
/// While the loop spins it learns of a metrics connection only by trying `accept`, and an
/// `accept` that finds none still allocates and frees a socket and a file in the kernel (Linux
/// allocates them before it looks): once per spin turn, that was half the gateway's CPU with a
/// 500 Mb/s shaper and a delay line. So a spinning loop tries at most this often.
const SPIN_SERVE_NS: u64 = 1_000_000;

/// Open everything `cfg` names, give up privileges, and forward until SIGINT or SIGTERM.
pub fn run(cfg: &Config) -> Result<(), GatewayError> {
    let mut socks = [PacketSocket::open(&cfg.egress[0].interface, cfg.ring)?, PacketSocket::open(&cfg.egress[1].interface, cfg.ring)?];
    let server = match &cfg.metrics {
        Some(a) => Some(Server::bind(a).map_err(|e| GatewayError::Sys { iface: String::new(), call: "bind(metrics)", source: e })?),
        None => None,
    };
    let log = match &cfg.log {
        Some(p) => Some(std::fs::OpenOptions::new().create(true).append(true).open(p).map_err(|e| GatewayError::Config(format!("log: {p}: {e}")))?),
        None => None,
    };
    sys::drop_privileges(cfg.user.as_deref())?;
    sys::tight_timer_slack();
    sys::install_stop_handler();

    let start = Time(sys::monotonic_ns());
    let mut gw = Gateway::new(cfg, start);
    gw.log = log.map(|f| EventLog::new(f, &cfg.name));
    // Ring timestamps are CLOCK_REALTIME: map them with the offset between the clocks.
    let mut offset = sys::realtime_ns().wrapping_sub(sys::monotonic_ns());
    let mut next_housekeeping = start.0 + HOUSEKEEPING_NS;
    let mut fds = vec![socks[0].raw_fd(), socks[1].raw_fd()];
    if let Some(s) = &server {
        fds.push(s.raw_fd());
    }
    let mut ready = vec![false; fds.len()];
    // After a long sleep that timed out: spin, not sleep, until this due time.
    let mut spin_until = 0u64;
    let mut next_spin_serve = 0u64;
    while !sys::stop_requested() {
        let now = Time(sys::monotonic_ns());
        for (i, sock) in socks.iter_mut().enumerate() {
            // A frame arriving on interface i leaves through the other one.
            let out = 1 - i;
            sock.rx(BLOCKS_PER_TURN, |frame, meta| {
                if meta.wire_len as usize > frame.len() {
                    // Captured short (larger than the ring's frame): never forward a truncated frame.
                    gw.dirs[out].counters.rx_frames += 1;
                    gw.dirs[out].counters.oversize += 1;
                    return;
                }
                let arrival = Time(meta.ts_real_ns.wrapping_sub(offset));
                let arrival = if arrival > now || now.0 - arrival.0 > 1_000_000_000 { now } else { arrival };
                gw.on_frame(out, frame, meta.csum_not_ready, arrival, now);
            });
        }
        let now = Time(sys::monotonic_ns());
        let mut fatal = None;
        gw.poll(now, |out, frame| match socks[out].send(frame) {
            Ok(sent) => sent,
            Err(e) => {
                fatal.get_or_insert(e);
                false
            }
        });
        if let Some(e) = fatal {
            return Err(e);
        }
        if now.0 >= next_housekeeping {
            if let Some(l) = gw.log.as_mut() {
                l.flush();
            }
            offset = sys::realtime_ns().wrapping_sub(sys::monotonic_ns());
            next_housekeeping = now.0 + HOUSEKEEPING_NS;
        }
        let wake = gw.next_wakeup().map_or(next_housekeeping, |t| t.0.min(next_housekeeping));
        let now = sys::monotonic_ns();
        if now >= spin_until && wake > now + SPIN_NS {
            let long = wake - now >= LONG_SLEEP_NS;
            sys::wait(&fds, Some(wake - now - if long { IDLE_WAKE_NS } else { SPIN_NS / 2 }), &mut ready)?;
            if long && !ready.iter().any(|&r| r) {
                spin_until = wake;
            }
            if ready.len() > 2 && ready[2] {
                if let Some(s) = &server {
                    s.serve(|| metrics::render(&gw, Time(sys::monotonic_ns())));
                }
            }
        } else if let Some(s) = server.as_ref().filter(|_| now >= next_spin_serve) {
            next_spin_serve = now + SPIN_SERVE_NS;
            s.serve(|| metrics::render(&gw, Time(sys::monotonic_ns())));
        }
    }
    if let Some(l) = gw.log.as_mut() {
        l.flush();
    }
    Ok(())
}
