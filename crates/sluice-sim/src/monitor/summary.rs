//! The run summary (a JSON contract, documented field by field in docs/summary.md) and the
//! result tables.
//!
//! Field names in [`Summary`], [`FlowSummary`] and [`QueueSummary`] are a contract other tools
//! rely on: keep them stable, add fields freely. Statistics exclude the warm-up period.

use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    pub id: u32,
    pub name: String,
    /// Application kind: `bulk`, `file`, `udp_cbr`, `on_off`, `tcp_rate`.
    pub kind: String,
    /// Congestion control (`new_reno`, `reno`, `tahoe`, `linux_reno`, `cubic`, `vegas`,
    /// `compound`, `none`), or `null` for UDP.
    pub cc: Option<String>,
    /// The flow's resolved congestion-control parameters under their scenario keys
    /// (`{"cubic.beta": "0.7", …}`; empty for algorithms without any), or `null` for UDP.
    pub cc_options: Option<serde_json::Map<String, serde_json::Value>>,
    pub src: String,
    pub dst: String,
    pub start_s: f64,
    /// Bytes delivered in order to the receiving application within the measurement window.
    pub bytes_delivered: u64,
    /// `bytes_delivered · 8` over the part of the window the flow was active, bit/s.
    pub goodput_bps: f64,
    /// Distinct payload bytes that reached the receiver within the window, in order or out of
    /// order (first copies; duplicates not counted). Unlike `bytes_delivered` it never counts
    /// data that crossed the network before the window and waited in the reassembly buffer,
    /// so the sum over flows is bounded by what the bottleneck carried in the window (plus
    /// what was already past it, in flight to the receivers, when the window opened).
    pub bytes_received: u64,
    /// `bytes_received · 8` over the same active part of the window as `goodput_bps`, bit/s.
    pub received_bps: f64,
    /// Payload bytes the sender retransmitted within the window.
    pub retransmitted_bytes: u64,
    /// Packets of this flow (either direction) dropped in the network within the window.
    pub lost_packets: u64,
    /// The run's `monitor.efficiency` formula for this flow, 0..1: `efficiency_ip` by default,
    /// `efficiency_retx` with `efficiency = "retx"` (UDP flows always `efficiency_ip`).
    pub efficiency: f64,
    /// Flow completion time (start to last byte delivered), finite transfers only.
    pub fct_s: Option<f64>,
    /// Mean of RTT samples within the window.
    pub mean_rtt_s: Option<f64>,
    /// Payload bytes the sender put on the wire within the window, retransmissions included.
    pub payload_bytes_sent: u64,
    /// Data segments (TCP, with payload) or datagrams (UDP) sent within the window.
    pub data_packets_sent: u64,
    /// Retransmission-timer expiries of the sender, each one counted (a timeout that repeats
    /// with backoff counts again; the handshake's SYN timeouts are not counted: see the client's
    /// SYN count).
    pub rto_count: u64,
    /// Timeout episodes: entries into the Loss state, as ns-3's `CongState` trace counts
    /// `CA_LOSS` entries (repeated timeouts in one episode count once; SYN timeouts not at all).
    pub timeout_episodes: u64,
    /// Fast-recovery episodes: entries into the Recovery state (ns-3's `CA_RECOVERY` entries).
    pub recovery_episodes: u64,
    /// ECN reductions: entries into the CWR state (ns-3's `CA_CWR` entries).
    pub cwr_episodes: u64,
    pub fast_retransmits: u64,
    /// Times the duplicate-ACK counter reached the threshold, once per run of duplicates, for
    /// every sender, also one without fast retransmit (docs/summary.md).
    pub triple_dupacks: u64,
    pub rtt_samples: u64,
    /// The client's connection state at the end of the run (`established`, `fin_wait2`,
    /// `failed`: the handshake gave up, `aborted`: `data_retries` ran out, …); none for UDP.
    pub tcp_state: Option<String>,
    /// IP packets the sender sent in the data direction (source to destination host) within
    /// the window: TCP segments of the client, handshake and FIN included; UDP datagrams.
    pub data_dir_packets_sent: u64,
    /// Their IP bytes (headers included).
    pub data_dir_bytes_sent: u64,
    /// Packets of the data direction dropped in the network (queues, link loss) within the
    /// window; `lost_packets` counts both directions.
    pub data_dir_packets_lost: u64,
    /// Their IP bytes.
    pub data_dir_bytes_lost: u64,
    /// `data_dir_packets_lost / data_dir_packets_sent` (0 when nothing was sent).
    pub data_dir_loss_ratio: f64,
    /// `(data_dir_bytes_sent - data_dir_bytes_lost) / data_dir_bytes_sent`: the share of IP
    /// bytes sent that the network delivered (FlowMonitor's rx/tx); 1 when nothing was sent.
    pub efficiency_ip: f64,
    /// `(payload_bytes_sent - retransmitted_bytes) / payload_bytes_sent`: the share of payload
    /// sent that was not a retransmission (TCP; none for UDP); 1 when nothing was sent.
    pub efficiency_retx: Option<f64>,
    /// Start-up time (RFC 7928 §2.2): from the flow's start (its connection attempt) until the
    /// sender transmitted its first data segment; none for UDP, or if no data was sent.
    pub startup_s: Option<f64>,
    /// ACNS's counts (docs/tcp.md, "ACNS endpoint"), for a flow whose connection negotiated ACNS;
    /// absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acns: Option<AcnsFlowSummary>,
}

/// One ACNS connection's commands and trend decisions within the window (docs/summary.md).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AcnsFlowSummary {
    /// Data segments the sender marked I4 (routers asked for a command).
    pub marked: u64,
    /// Command ACKs applied by the sender: normal, freeze, fallback.
    pub normal: u64,
    pub freeze: u64,
    pub fallback: u64,
    /// Command ACKs that arrived in loss recovery (entered into the trend history, not applied).
    pub in_recovery: u64,
    /// Trend decisions on loss: freeze (`C_trend` 1), fallback (2), the algorithm's own
    /// decrease (3).
    pub trend_freeze: u64,
    pub trend_fallback: u64,
    pub trend_decrease: u64,
    /// Data segments the receiver got with I6 (freeze) or I7 (fallback, a legacy CE mark too).
    pub rx_freeze: u64,
    pub rx_fallback: u64,
}

impl AcnsFlowSummary {
    /// The sender's counts (`client`) and the receiver's (`server`) since the warm-up snapshot.
    pub fn of(client: &crate::tcp::acns::AcnsCounts, server: &crate::tcp::acns::AcnsCounts, warm: &(crate::tcp::acns::AcnsCounts, crate::tcp::acns::AcnsCounts)) -> Self {
        let (wc, ws) = warm;
        AcnsFlowSummary {
            marked: client.marked - wc.marked,
            normal: client.normal - wc.normal,
            freeze: client.freeze - wc.freeze,
            fallback: client.fallback - wc.fallback,
            in_recovery: client.in_recovery - wc.in_recovery,
            trend_freeze: client.trend_freeze - wc.trend_freeze,
            trend_fallback: client.trend_fallback - wc.trend_fallback,
            trend_decrease: client.trend_decrease - wc.trend_decrease,
            rx_freeze: server.rx_freeze - ws.rx_freeze,
            rx_fallback: server.rx_fallback - ws.rx_fallback,
        }
    }
}

/// One network-return gateway over the whole run (warm-up included: a controller's state
/// builds from the first packet).
#[derive(Clone, Debug, Serialize)]
pub struct GatewaySummary {
    /// The router.
    pub node: String,
    /// The controller (`ewt`, `rwm`, ...).
    pub kind: String,
    /// Its resolved parameters, defaults included.
    pub params: serde_json::Value,
    /// The queue it reads.
    pub monitor: String,
    pub rewrite_at: String,
    /// TCP ACKs (without SYN or RST) at the rewrite point.
    pub acks: u64,
    /// ... whose window was lowered; raised (EWT's `literal_floor` writing one MSS over a
    /// smaller receiver window); left as it was (no proposal from the controller, or none
    /// below the receiver's window); skipped by the writer (unknown shift); or of flows the
    /// table does not hold.
    pub lowered: u64,
    pub raised: u64,
    pub unchanged: u64,
    pub skipped: u64,
    pub untracked: u64,
    /// Mean reduction of a lowered ACK's window, bytes (field × the ACK sender's shift).
    pub mean_reduction_bytes: f64,
    /// Flows in the table at the end; flows evicted to make room; flows refused with the table
    /// full of active flows.
    pub flow_table_size: u64,
    pub flow_table_evicted: u64,
    pub flow_table_rejected: u64,
    /// NGWA's stamps (absent for window controllers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ngwa: Option<NgwaSummary>,
    /// ACNS's commands (absent for other controllers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acns: Option<AcnsSummary>,
}

/// An ACNS router's evaluations over the run, all egress queues together.
#[derive(Clone, Debug, Serialize)]
pub struct AcnsSummary {
    /// TCP packets asking for a command (CMI set: I4, I5, I6) that were evaluated.
    pub evaluated: u64,
    /// Rewritten to I6 (freeze); to I7 (fallback).
    pub freezes: u64,
    pub fallbacks: u64,
    /// Asking, but not evaluated: the flow table was full of active flows.
    pub skipped: u64,
    /// Flows in the router's table at the end; evicted; refused.
    pub flow_table_size: u64,
    pub flow_table_evicted: u64,
    pub flow_table_rejected: u64,
}

/// An NGWA router's stamps over the run, all egress queues together.
#[derive(Clone, Debug, Serialize)]
pub struct NgwaSummary {
    /// TCP segments that left the router (pure ACKs included).
    pub segments: u64,
    /// Option 33 inserted; lowered (a larger value from upstream); kept (upstream's value
    /// already at or below this router's).
    pub inserted: u64,
    pub lowered: u64,
    pub kept: u64,
    /// Not stamped: the option would not fit the 40 B of IPv4 options or the MTU.
    pub skipped: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct QueueSummary {
    pub name: String,
    pub kind: String,
    pub limit: String,
    /// Arrivals at the queue discipline within the window.
    pub arrivals: u64,
    pub enqueued: u64,
    /// Drops within the window: arrivals refused plus `dropped_after`.
    pub dropped: u64,
    /// Packets dropped after they were queued (CoDel's and PIE's drops at dequeue, CHOKe's
    /// victims, FQ-CoDel's overflow from the fattest queue).
    pub dropped_after: u64,
    /// ECN marks within the window (at enqueue or at dequeue).
    pub marked: u64,
    /// `dropped` by reason (`overlimit`, `codel_target_exceeded`, ...); reasons that did not
    /// occur are left out, so an empty map means no drops.
    pub drops_by_reason: std::collections::BTreeMap<String, u64>,
    /// `marked` by reason, as `drops_by_reason`.
    pub marks_by_reason: std::collections::BTreeMap<String, u64>,
    /// The discipline's resolved parameters, defaults included, as a scenario would write
    /// them (`{"kind": "codel", "target": "5ms", ...}`).
    pub params: serde_json::Value,
    /// `dropped / arrivals` (0 when nothing arrived).
    pub drop_ratio: f64,
    /// Queue length sampled every `queue_sample`, within the window.
    pub mean_len_pkts: f64,
    pub std_len_pkts: f64,
    pub mean_len_bytes: f64,
    /// Mean time packets dequeued within the window spent in the queue.
    pub mean_sojourn_s: f64,
    pub dequeued: u64,
    /// Packets lost on the link after leaving this queue, within the window (the link's loss
    /// model; not counted in `dropped`, which is the queue's own drops).
    pub link_losses: u64,
    /// The link direction's loss model (`"none"`, `"bernoulli p=0.02"`, ...).
    pub link_loss_model: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub sim_time_s: f64,
    pub warmup_s: f64,
    pub wall_time_s: f64,
    pub events: u64,
    /// Data packets (TCP segments with payload, UDP datagrams) the hosts sent over the whole
    /// run, warm-up included: the benchmarks' unit of work.
    pub data_packets: u64,
    pub flows: Vec<FlowSummary>,
    pub queues: Vec<QueueSummary>,
    /// Network-return gateways (absent without any).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gateways: Vec<GatewaySummary>,
    /// Jain's index over the flows' `goodput_bps`.
    pub jain_goodput: f64,
    /// Jain's index over the flows' `received_bps`.
    pub jain_received: f64,
    /// Σ `bytes_delivered` · 8 over the window (ns-3's PacketSink definition: may exceed the
    /// bottleneck's payload capacity by what sat in reassembly buffers when the window opened).
    pub aggregate_goodput_bps: f64,
    /// Σ `bytes_received` · 8 over the window: payload that reached the receivers in it.
    pub aggregate_received_bps: f64,
    /// Options that ran (profile, TCP options, timing model), so results say how they were made.
    pub options: serde_json::Map<String, serde_json::Value>,
    pub sluice_version: String,
    /// The version of this summary's layout and meanings ([`SUMMARY_VERSION`]).
    pub summary_version: u32,
}

/// The summary's version, raised when a field changes meaning (adding fields does not):
/// 2: `efficiency` is IP-level by default (`monitor.efficiency`); before it was the
/// retransmission form, now `efficiency_retx`. docs/summary.md lists the versions.
pub const SUMMARY_VERSION: u32 = 2;

impl Summary {
    /// JSON with fields in a fixed order. `wall_time_s` is the only field that varies between
    /// identical runs.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("summary serializes")
    }
}

/// One column of a result table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    I64(Vec<i64>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A named table of equal-length columns (turned into a DataFrame / Parquet file by Python).
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub name: String,
    pub columns: Vec<(String, Column)>,
}

/// Everything a run produces.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub summary: Summary,
    /// `queue_samples` (t_s, queue, len_pkts, len_bytes), and when enabled `cwnd`, `rtt` and
    /// `flow_samples`.
    pub tables: Vec<Table>,
    /// Files written (pcap), relative to the output directory.
    pub files: Vec<String>,
}

/// Jain's fairness index `(Σx)² / (n·Σx²)`; 1 for an empty or all-zero set.
pub fn jain(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || s2 == 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // tests Jain's index (Jain, Chiu, Hawe 1984) on worked examples: equal shares give 1, one
    // flow with everything 1/n = 0.25, and [2, 1, 1] gives 4² / (3·6) = 16/18.
    #[test]
    fn jain_worked_examples() {
        assert!((jain(&[1.0, 1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[4.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert!((jain(&[2.0, 1.0, 1.0]) - 0.888_888_888_9).abs() < 1e-9);
    }
}
