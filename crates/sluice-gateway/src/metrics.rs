//! What the gateway reports: Prometheus text at `/metrics` (the exposition format written by
//! hand: a few counters and gauges need no library), and a JSON-lines log of rewrites, marks
//! and drops whose columns are the simulator's `rewrites` trace's (`t_s`, `gateway`, `flow`,
//! `orig_bytes`, `new_bytes`, `reason`) plus `event` and `queue`.

use crate::datapath::Gateway;
use sluice_core::flows::FlowId;
use sluice_core::qdisc::{DropReason, MarkReason, QueueDisc};
use sluice_core::{Dur, Time};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

/// Counters of one direction that the queue's own statistics do not hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DirCounters {
    /// Frames and bytes received for this direction (on the other interface).
    pub rx_frames: u64,
    pub rx_bytes: u64,
    /// Frames and bytes sent out of this interface.
    pub tx_frames: u64,
    pub tx_bytes: u64,
    /// Frames the device refused (its queue full).
    pub tx_errors: u64,
    /// Frames claiming IPv4 that did not parse (forwarded untouched).
    pub malformed: u64,
    /// Frames larger than a buffer (offloads on upstream), not forwarded.
    pub oversize: u64,
    /// Frames lost because every buffer was in use.
    pub no_buffer: u64,
    /// Partial checksums (`TP_STATUS_CSUMNOTREADY`) completed.
    pub csum_completed: u64,
    /// Time frames waited in the receive ring before the gateway read them, summed over the
    /// frames dequeued (ns).
    pub ring_wait_ns: u64,
}

/// The JSON-lines event log.
#[derive(Debug)]
pub struct EventLog {
    out: BufWriter<File>,
    gateway: String,
}

impl EventLog {
    pub fn new(file: File, gateway: &str) -> EventLog {
        EventLog { out: BufWriter::with_capacity(1 << 16, file), gateway: gateway.to_owned() }
    }

    fn flow(f: Option<FlowId>) -> i64 {
        f.map_or(-1, |f| f.0 as i64)
    }

    /// An ACK window lowered (or raised) from `orig` to `new` bytes; `reason` as the
    /// simulator's trace: `"window"`, or `"ngwa_ack"` for NGWA's gateway-only variant.
    pub fn rewrite(&mut self, t: Dur, queue: &str, flow: Option<FlowId>, orig: u64, new: u64, reason: &str) {
        let _ = writeln!(
            self.out,
            r#"{{"t_s":{:.9},"gateway":"{}","queue":"{}","flow":{},"orig_bytes":{},"new_bytes":{},"event":"rewrite","reason":"{}"}}"#,
            t.as_secs_f64(),
            self.gateway,
            queue,
            Self::flow(flow),
            orig,
            new,
            reason
        );
    }

    /// A packet of `len` bytes marked (`new_bytes` = `len`) or dropped (`new_bytes` = 0).
    pub fn mark_or_drop(&mut self, t: Dur, queue: &str, flow: Option<FlowId>, len: u32, event: &str, reason: &str) {
        let new = if event == "drop" { 0 } else { len };
        let _ = writeln!(
            self.out,
            r#"{{"t_s":{:.9},"gateway":"{}","queue":"{}","flow":{},"orig_bytes":{},"new_bytes":{},"event":"{}","reason":"{}"}}"#,
            t.as_secs_f64(),
            self.gateway,
            queue,
            Self::flow(flow),
            len,
            new,
            event,
            reason
        );
    }

    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
}

fn metric(s: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(s, "# HELP sluice_gateway_{name} {help}\n# TYPE sluice_gateway_{name} {kind}");
}

/// The Prometheus text exposition of `gw`'s counters at `now` (the gateway's monotonic
/// clock).
pub fn render(gw: &Gateway, now: Time) -> String {
    let mut s = String::with_capacity(8192);
    // The clock the counters below were read at: a reader that divides the difference of two
    // scrapes' counters by the difference of their uptimes gets a rate free of the scrapes'
    // own delays (the loop answers a scrape only between its turns).
    metric(&mut s, "uptime_seconds", "gauge", "Seconds since the gateway started, when these counters were read.");
    let _ = writeln!(s, "sluice_gateway_uptime_seconds {:.9}", now.0.saturating_sub(gw.epoch.0) as f64 * 1e-9);
    let q = |i: usize| format!("queue=\"{}\"", gw.dirs[i].interface);
    let per_dir = |s: &mut String, name: &str, kind: &str, help: &str, f: &dyn Fn(usize) -> String| {
        metric(s, name, kind, help);
        for i in 0..2 {
            let _ = writeln!(s, "sluice_gateway_{name}{{{}}} {}", q(i), f(i));
        }
    };
    per_dir(&mut s, "rx_frames_total", "counter", "Frames received for this egress.", &|i| gw.dirs[i].counters.rx_frames.to_string());
    per_dir(&mut s, "rx_bytes_total", "counter", "Frame bytes received for this egress.", &|i| gw.dirs[i].counters.rx_bytes.to_string());
    per_dir(&mut s, "tx_frames_total", "counter", "Frames sent out of this egress.", &|i| gw.dirs[i].counters.tx_frames.to_string());
    per_dir(&mut s, "tx_bytes_total", "counter", "Frame bytes sent out of this egress.", &|i| gw.dirs[i].counters.tx_bytes.to_string());
    per_dir(&mut s, "tx_errors_total", "counter", "Frames the device refused.", &|i| gw.dirs[i].counters.tx_errors.to_string());
    per_dir(&mut s, "malformed_frames_total", "counter", "Frames claiming IPv4 that did not parse (forwarded untouched).", &|i| gw.dirs[i].counters.malformed.to_string());
    per_dir(&mut s, "oversize_frames_total", "counter", "Frames above the buffer size (offloads on), not forwarded.", &|i| gw.dirs[i].counters.oversize.to_string());
    per_dir(&mut s, "no_buffer_frames_total", "counter", "Frames lost with every buffer in use.", &|i| gw.dirs[i].counters.no_buffer.to_string());
    per_dir(&mut s, "checksums_completed_total", "counter", "Partial checksums completed.", &|i| gw.dirs[i].counters.csum_completed.to_string());
    per_dir(&mut s, "enqueued_total", "counter", "Packets queued.", &|i| gw.dirs[i].qdisc.stats.enqueued.to_string());
    per_dir(&mut s, "dequeued_total", "counter", "Packets that left the queue.", &|i| gw.dirs[i].qdisc.stats.dequeued.to_string());
    metric(&mut s, "dropped_total", "counter", "Packets dropped by the queue, by reason.");
    for i in 0..2 {
        for r in DropReason::ALL {
            let _ = writeln!(s, "sluice_gateway_dropped_total{{{},reason=\"{}\"}} {}", q(i), r.as_str(), gw.dirs[i].qdisc.by_reason.drops[r.index()]);
        }
    }
    metric(&mut s, "marked_total", "counter", "Packets ECN-marked by the queue, by reason.");
    for i in 0..2 {
        for r in MarkReason::ALL {
            let _ = writeln!(s, "sluice_gateway_marked_total{{{},reason=\"{}\"}} {}", q(i), r.as_str(), gw.dirs[i].qdisc.by_reason.marks[r.index()]);
        }
    }
    per_dir(&mut s, "queue_packets", "gauge", "Packets in the queue.", &|i| gw.dirs[i].qdisc.inner.occupancy().packets.to_string());
    per_dir(&mut s, "queue_bytes", "gauge", "Bytes in the queue.", &|i| gw.dirs[i].qdisc.inner.occupancy().bytes.to_string());
    per_dir(&mut s, "delay_line_packets", "gauge", "Frames in the delay line.", &|i| gw.dirs[i].delay.len().to_string());
    per_dir(&mut s, "shaper_lost_seconds_total", "counter", "Link time the shaper gave up after the loop stalled longer than its catch-up (2 ms).", &|i| format!("{:.9}", gw.dirs[i].shaper.lost_ns as f64 * 1e-9));
    per_dir(&mut s, "ring_wait_seconds_sum", "counter", "Time frames waited in the receive ring (kernel timestamp to the gateway's read), summed over dequeued frames.", &|i| format!("{:.9}", gw.dirs[i].counters.ring_wait_ns as f64 * 1e-9));
    per_dir(&mut s, "sojourn_seconds_sum", "counter", "Sum of the dequeued packets' times in the queue.", &|i| format!("{:.9}", gw.dirs[i].qdisc.stats.sojourn_sum_ns as f64 * 1e-9));
    per_dir(&mut s, "sojourn_seconds_count", "counter", "Packets dequeued (the sojourn sum's count).", &|i| gw.dirs[i].qdisc.stats.dequeued.to_string());
    if let Some(h) = &gw.hook {
        let st = h.nr.stats;
        let c = format!("controller=\"{}\"", sluice_core::control::WindowController::name(&h.nr.controller));
        let one = |s: &mut String, name: &str, kind: &str, help: &str, v: String| {
            metric(s, name, kind, help);
            let _ = writeln!(s, "sluice_gateway_{name}{{{c}}} {v}");
        };
        one(&mut s, "acks_total", "counter", "TCP ACKs at the rewrite point.", st.acks.to_string());
        one(&mut s, "rewrites_total", "counter", "ACK windows lowered.", st.lowered.to_string());
        one(&mut s, "raised_total", "counter", "ACK windows raised (only EWT's literal floor).", st.raised.to_string());
        one(&mut s, "unchanged_total", "counter", "ACKs left as they were.", st.unchanged.to_string());
        one(&mut s, "skips_total", "counter", "ACKs the writer skipped (unknown window scale, ...).", st.skipped.to_string());
        one(&mut s, "untracked_total", "counter", "ACKs of flows the table does not hold.", st.untracked.to_string());
        one(&mut s, "reduced_bytes_total", "counter", "Window reductions summed over the lowered ACKs (bytes).", st.reduced_bytes.to_string());
        let mean = if st.lowered > 0 { st.reduced_bytes as f64 / st.lowered as f64 } else { 0.0 };
        one(&mut s, "mean_reduction_bytes", "gauge", "Mean window reduction per lowered ACK (bytes).", format!("{mean:.1}"));
        one(&mut s, "flows", "gauge", "Entries in the flow table.", h.nr.flows.len().to_string());
        one(&mut s, "flow_evictions_total", "counter", "Flow-table entries evicted to make room.", h.nr.flows.evicted().to_string());
        one(&mut s, "flow_rejections_total", "counter", "New flows refused (table full of active flows).", h.nr.flows.rejected().to_string());
    }
    s
}

/// The `/metrics` endpoint: a non-blocking listener served from the forwarding loop, one short
/// request at a time.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
}

impl Server {
    pub fn bind(addr: &str) -> std::io::Result<Server> {
        let listener = TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        Ok(Server { listener })
    }

    pub fn raw_fd(&self) -> std::os::fd::RawFd {
        std::os::fd::AsRawFd::as_raw_fd(&self.listener)
    }

    /// Answer every waiting connection with `body()` (any path: it is the only page).
    pub fn serve(&self, body: impl Fn() -> String) {
        while let Ok((stream, _)) = self.listener.accept() {
            let _ = respond(stream, &body);
        }
    }
}

fn respond(mut stream: TcpStream, body: &impl Fn() -> String) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_millis(100)))?;
    stream.set_write_timeout(Some(Duration::from_millis(200)))?;
    // Read the request if it comes within the timeout; answer either way (the page is the same
    // for every request), so a slow client still gets its metrics.
    let mut req = [0u8; 2048];
    let _ = stream.read(&mut req);
    let b = body();
    write!(stream, "HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}", b.len(), b)?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    // The exposition carries the clock its counters were read at, from the gateway's start:
    // 1.5 s after a start at 2 s of the monotonic clock.
    #[test]
    fn exposition_carries_its_uptime() {
        let cfg = Config::parse("[[egress]]\ninterface = \"a0\"\n[[egress]]\ninterface = \"b0\"\n").unwrap();
        let gw = Gateway::new(&cfg, Time(2_000_000_000));
        let page = render(&gw, Time(3_500_000_000));
        assert!(page.contains("# TYPE sluice_gateway_uptime_seconds gauge\n"), "{page}");
        assert!(page.lines().any(|l| l == "sluice_gateway_uptime_seconds 1.500000000"), "{page}");
        assert!(page.lines().any(|l| l == "sluice_gateway_tx_bytes_total{queue=\"a0\"} 0"), "{page}");
    }
}
