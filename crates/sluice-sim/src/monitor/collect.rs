//! Turning a finished run into the summary and tables.

use super::summary::{jain, AcnsFlowSummary, AcnsSummary, Column, FlowSummary, GatewaySummary, NgwaSummary, QueueSummary, RunOutput, Summary, Table, SUMMARY_VERSION};
use crate::engine::{FlowNet, Sim};
use crate::model::{AppSpec, Efficiency, FlowSpec};
use crate::tcp::acns::AcnsCounts;
use crate::tcp::{Endpoint, TcpCounters};
use crate::{SimError, VERSION};
use sluice_core::qdisc::{QdiscStats, ReasonCounts};
use sluice_core::Time;

/// Time series recorded during the run.
#[derive(Default)]
pub struct Samples {
    q_t: Vec<f64>,
    q_iface: Vec<u32>,
    q_pkts: Vec<i64>,
    q_bytes: Vec<i64>,
    c_t: Vec<f64>,
    c_flow: Vec<i64>,
    c_cwnd: Vec<i64>,
    c_ssthresh: Vec<i64>,
    c_snd_wnd: Vec<i64>,
    c_pipe: Vec<i64>,
    c_srtt: Vec<f64>,
    c_state: Vec<String>,
    c_pacing: Vec<f64>,
    s_t: Vec<f64>,
    s_flow: Vec<i64>,
    s_name: Vec<String>,
    s_value: Vec<f64>,
    /// `flow_samples`: end of each interval, flow, payload delivered, data-direction packets
    /// lost and triple duplicate ACKs in it.
    f_t: Vec<f64>,
    f_flow: Vec<i64>,
    f_bytes: Vec<i64>,
    f_lost: Vec<i64>,
    f_tdup: Vec<i64>,
    /// Per flow, those three counts at the last sample, and when it was taken.
    f_last: Vec<[u64; 3]>,
    f_last_t: Option<Time>,
}

impl Samples {
    pub fn queue(&mut self, t: Time, iface: u32, pkts: u32, bytes: u64) {
        self.q_t.push(t.as_secs_f64());
        self.q_iface.push(iface);
        self.q_pkts.push(pkts as i64);
        self.q_bytes.push(bytes as i64);
    }
    /// One row per flow for the interval ending at `t`, from each flow's counts so far
    /// (payload delivered, data-direction packets lost, triple duplicate ACKs); the first call
    /// only notes them.
    pub fn flows(&mut self, t: Time, counts: Vec<[u64; 3]>) {
        if self.f_last_t.is_some() {
            for (f, (now, before)) in counts.iter().zip(&self.f_last).enumerate() {
                self.f_t.push(t.as_secs_f64());
                self.f_flow.push(f as i64);
                self.f_bytes.push((now[0] - before[0]) as i64);
                self.f_lost.push((now[1] - before[1]) as i64);
                self.f_tdup.push((now[2] - before[2]) as i64);
            }
        }
        self.f_last = counts;
        self.f_last_t = Some(t);
    }

    /// When the flows were last sampled.
    pub fn last_flow_sample(&self) -> Option<Time> {
        self.f_last_t
    }

    pub fn cwnd(&mut self, t: Time, e: &Endpoint) {
        self.c_t.push(t.as_secs_f64());
        self.c_flow.push(e.flow as i64);
        self.c_cwnd.push(e.w.cwnd.min(i64::MAX as u64) as i64);
        self.c_ssthresh.push(e.w.ssthresh.min(i64::MAX as u64) as i64);
        self.c_snd_wnd.push(e.snd_wnd as i64);
        self.c_pipe.push(e.in_flight() as i64);
        self.c_srtt.push(e.rtt.srtt.map_or(f64::NAN, |d| d.as_secs_f64()));
        self.c_state.push(format!("{:?}", e.ca).to_lowercase());
        self.c_pacing.push(e.pacing_bps().map_or(f64::NAN, |r| r as f64));
    }
    /// The congestion control's internal values (`monitor.cc_trace`), one row each.
    pub fn cc_state(&mut self, t: Time, e: &Endpoint) {
        for &(name, value) in e.cc_metrics().as_slice() {
            self.s_t.push(t.as_secs_f64());
            self.s_flow.push(e.flow as i64);
            self.s_name.push(name.to_string());
            self.s_value.push(value);
        }
    }
}

/// Counter values when the warm-up ended.
pub struct WarmSnapshot {
    pub time: Time,
    pub clients: Vec<Option<TcpCounters>>,
    pub servers: Vec<Option<TcpCounters>>,
    /// Per flow, payload bytes the receiver held out of order (received, not yet delivered).
    pub held: Vec<u64>,
    pub net: Vec<FlowNet>,
    pub queues: Vec<QdiscStats>,
    pub queue_reasons: Vec<ReasonCounts>,
    /// Packets each link direction had lost.
    pub link_losses: Vec<u64>,
    /// Per flow, ACNS's counts at the client and the server (zero without ACNS).
    pub acns: Vec<(AcnsCounts, AcnsCounts)>,
}

/// An endpoint's ACNS counts (zero without ACNS).
fn acns_counts(e: Option<&Endpoint>) -> AcnsCounts {
    e.and_then(|e| e.acns()).map_or_else(AcnsCounts::default, |a| a.counts)
}

pub(crate) fn snapshot(sim: &Sim<'_>) -> WarmSnapshot {
    let n = sim.model.flows.len();
    WarmSnapshot {
        time: sim.now,
        clients: (0..n).map(|f| sim.endpoint(f, false).map(|e| e.counters.clone())).collect(),
        servers: (0..n).map(|f| sim.endpoint(f, true).map(|e| e.counters.clone())).collect(),
        held: (0..n).map(|f| sim.endpoint(f, true).map_or(0, |e| e.held_out_of_order())).collect(),
        net: sim.flownet.clone(),
        queues: sim.ifaces.iter().map(|f| f.qdisc.stats.clone()).collect(),
        queue_reasons: sim.ifaces.iter().map(|f| f.qdisc.by_reason.clone()).collect(),
        link_losses: sim.info.iter().map(|f| f.link_losses).collect(),
        acns: (0..n).map(|f| (acns_counts(sim.endpoint(f, false)), acns_counts(sim.endpoint(f, true)))).collect(),
    }
}

pub(crate) struct FlowRecord<'a> {
    pub spec: &'a FlowSpec,
    pub start: Time,
    pub client: Option<&'a Endpoint>,
    pub server: Option<&'a Endpoint>,
    pub net: &'a FlowNet,
}

pub(crate) fn finish(sim: Sim<'_>, wall_time_s: f64) -> Result<RunOutput, SimError> {
    let model = sim.model;
    let warm = sim.warm.as_ref().expect("snapshot taken");
    let t0 = warm.time;
    let t_end = sim.end;
    let zero = TcpCounters::default();
    let mut flows = Vec::new();
    let mut goodputs = Vec::new();
    let mut received_rates = Vec::new();
    let mut aggregate_bytes = 0u64;
    let mut aggregate_received = 0u64;
    for (f, r) in sim.flow_records().into_iter().enumerate() {
        let wn = &warm.net[f];
        // `received`: distinct payload bytes that reached the receiver within the window, in
        // order or not (first copies only). Every such byte is either delivered or held for
        // reassembly, so it is the growth of delivered + held over the window. `delivered`
        // (ns-3's PacketSink count) also includes bytes that arrived before the window and sat
        // in the reassembly buffer until a retransmission filled the hole in front of them.
        let (delivered, received, retx, sent, rtt_sum, rtt_n, rtos, fr, tdup) = if r.spec.app.is_tcp() {
            let cc = r.client.map(|e| &e.counters).unwrap_or(&zero);
            let sc = r.server.map(|e| &e.counters).unwrap_or(&zero);
            let cw = warm.clients[f].as_ref().unwrap_or(&zero);
            let sw = warm.servers[f].as_ref().unwrap_or(&zero);
            let held_end = r.server.map_or(0, |e| e.held_out_of_order());
            (
                sc.delivered - sw.delivered,
                (sc.delivered + held_end) - (sw.delivered + warm.held[f]),
                cc.retx_bytes - cw.retx_bytes,
                cc.payload_sent - cw.payload_sent,
                cc.rtt_sum_ns - cw.rtt_sum_ns,
                cc.rtt_n - cw.rtt_n,
                cc.rto_count - cw.rto_count,
                cc.fast_retransmits - cw.fast_retransmits,
                cc.triple_dupacks - cw.triple_dupacks,
            )
        } else {
            let rcvd = r.net.udp_rcvd_bytes - wn.udp_rcvd_bytes;
            (rcvd, rcvd, 0, r.net.udp_sent_bytes - wn.udp_sent_bytes, 0, 0, 0, 0, 0)
        };
        let begin = r.start.max(t0);
        let finish = match r.net.fct {
            Some(done) if done >= begin => done,
            _ => t_end,
        };
        let secs = finish.since(begin).as_secs_f64();
        let goodput = if secs > 0.0 { delivered as f64 * 8.0 / secs } else { 0.0 };
        let received_bps = if secs > 0.0 { received as f64 * 8.0 / secs } else { 0.0 };
        let fct = match (r.net.fct, &r.spec.app) {
            (Some(done), AppSpec::File { .. }) => Some(done.since(r.start).as_secs_f64()),
            _ => None,
        };
        aggregate_bytes += delivered;
        aggregate_received += received;
        goodputs.push(goodput);
        received_rates.push(received_bps);
        let tcp = r.spec.app.is_tcp();
        let efficiency_retx = tcp.then(|| if sent > 0 { (sent.saturating_sub(retx)) as f64 / sent as f64 } else { 1.0 });
        // The data direction at the IP layer. A drop is counted when it happens, so a packet
        // sent before the window and dropped in it counts as lost but not as sent: the ratios
        // are kept within [0, 1].
        let fwd_pkts = r.net.fwd_sent_pkts - wn.fwd_sent_pkts;
        let fwd_bytes = r.net.fwd_sent_bytes - wn.fwd_sent_bytes;
        let fwd_lost_pkts = r.net.fwd_lost_pkts - wn.fwd_lost_pkts;
        let fwd_lost_bytes = r.net.fwd_lost_bytes - wn.fwd_lost_bytes;
        let loss_ratio = if fwd_pkts > 0 { (fwd_lost_pkts as f64 / fwd_pkts as f64).min(1.0) } else { 0.0 };
        let efficiency_ip = if fwd_bytes > 0 { fwd_bytes.saturating_sub(fwd_lost_bytes) as f64 / fwd_bytes as f64 } else { 1.0 };
        let efficiency = match (model.monitor.efficiency, efficiency_retx) {
            (Efficiency::Retx, Some(e)) => e,
            _ => efficiency_ip,
        };
        let startup = match (tcp, r.net.first_data) {
            (true, Some(t)) => Some(t.since(r.start).as_secs_f64()),
            _ => None,
        };
        let data_pkts = match r.client {
            Some(e) => e.counters.data_pkts_sent - warm.clients[f].as_ref().map_or(0, |w| w.data_pkts_sent),
            None => r.net.udp_sent_pkts - wn.udp_sent_pkts,
        };
        let (timeout_episodes, recovery_episodes, cwr_episodes) = match r.client {
            Some(e) => {
                let w = warm.clients[f].as_ref().unwrap_or(&zero);
                (e.counters.loss_episodes - w.loss_episodes, e.counters.recovery_episodes - w.recovery_episodes, e.counters.cwr_episodes - w.cwr_episodes)
            }
            None => (0, 0, 0),
        };
        flows.push(FlowSummary {
            id: f as u32,
            name: r.spec.name.clone(),
            kind: r.spec.app.kind_str().to_string(),
            cc: r.spec.app.is_tcp().then(|| r.spec.tcp.cc.as_str().to_string()),
            cc_options: r.spec.app.is_tcp().then(|| r.spec.tcp.cc_options().into_iter().map(|(k, v)| (k.to_string(), serde_json::Value::String(v))).collect()),
            src: model.nodes[r.spec.src].name.clone(),
            dst: model.nodes[r.spec.dst].name.clone(),
            start_s: r.start.as_secs_f64(),
            bytes_delivered: delivered,
            goodput_bps: goodput,
            bytes_received: received,
            received_bps,
            retransmitted_bytes: retx,
            lost_packets: r.net.lost_pkts - wn.lost_pkts,
            efficiency,
            fct_s: fct,
            mean_rtt_s: (rtt_n > 0).then(|| rtt_sum as f64 / rtt_n as f64 * 1e-9),
            payload_bytes_sent: sent,
            data_packets_sent: data_pkts,
            rto_count: rtos,
            fast_retransmits: fr,
            triple_dupacks: tdup,
            timeout_episodes,
            recovery_episodes,
            cwr_episodes,
            rtt_samples: rtt_n,
            tcp_state: r.client.map(|e| e.state.as_str().to_string()),
            data_dir_packets_sent: fwd_pkts,
            data_dir_bytes_sent: fwd_bytes,
            data_dir_packets_lost: fwd_lost_pkts,
            data_dir_bytes_lost: fwd_lost_bytes,
            data_dir_loss_ratio: loss_ratio,
            efficiency_ip,
            efficiency_retx,
            startup_s: startup,
            acns: r.client.and_then(|e| e.acns()).map(|a| AcnsFlowSummary::of(&a.counts, &acns_counts(r.server), &warm.acns[f])),
        });
    }
    let window_s = t_end.since(t0).as_secs_f64();
    let mut queues = Vec::new();
    for (k, (q, f)) in sim.ifaces.iter().zip(sim.info.iter()).enumerate() {
        if !f.monitored {
            continue;
        }
        let s = &q.qdisc.stats;
        let w = &warm.queues[k];
        let arrivals = s.arrivals - w.arrivals;
        let dropped = s.dropped() - w.dropped();
        let dequeued = s.dequeued - w.dequeued;
        let reasons = q.qdisc.by_reason.since(&warm.queue_reasons[k]);
        let n = f.samples.max(1) as f64;
        let mean = f.sum_pkts / n;
        let var = (f.sum_pkts2 / n - mean * mean).max(0.0);
        queues.push(QueueSummary {
            name: f.name.clone(),
            kind: f.qdisc.kind().to_string(),
            limit: q.qdisc.limit::<crate::net::QPkt>().to_string(),
            arrivals,
            enqueued: s.enqueued - w.enqueued,
            dropped,
            dropped_after: s.dropped_after - w.dropped_after,
            marked: s.marked - w.marked,
            drops_by_reason: reasons.drops_by_name().map(|(r, n)| (r.to_string(), n)).collect(),
            marks_by_reason: reasons.marks_by_name().map(|(r, n)| (r.to_string(), n)).collect(),
            params: serde_json::to_value(&f.qdisc).expect("a config serializes"),
            drop_ratio: if arrivals > 0 { dropped as f64 / arrivals as f64 } else { 0.0 },
            mean_len_pkts: mean,
            std_len_pkts: var.sqrt(),
            mean_len_bytes: f.sum_bytes / n,
            mean_sojourn_s: if dequeued > 0 { (s.sojourn_sum_ns - w.sojourn_sum_ns) as f64 / dequeued as f64 * 1e-9 } else { 0.0 },
            dequeued,
            link_losses: f.link_losses - warm.link_losses[k],
            link_loss_model: describe_loss(f.loss.model()),
        });
    }
    let mut options = serde_json::Map::new();
    for (k, v) in &model.notes {
        options.insert(k.clone(), serde_json::Value::String(v.clone()));
    }
    if let Some(f0) = model.flows.iter().find(|f| f.app.is_tcp()) {
        for (k, v) in f0.tcp.describe() {
            options.entry(format!("tcp.{k}")).or_insert(serde_json::Value::String(v));
        }
    }
    options.insert("efficiency".into(), serde_json::Value::String(model.monitor.efficiency.as_str().into()));
    options.insert("timing".into(), serde_json::Value::String("serialization at link rate incl. l2 overhead, then propagation; no processing delay; ties in scheduling order".into()));
    let gateways = sim
        .gateways
        .iter()
        .zip(&model.gateways)
        .map(|(g, spec)| {
            let s = g.nr.stats;
            GatewaySummary {
                node: model.nodes[spec.node].name.clone(),
                kind: spec.controller.kind().to_string(),
                params: serde_json::to_value(&spec.controller).expect("a config serializes"),
                monitor: spec.monitor.clone(),
                rewrite_at: spec.rewrite_at.as_str().to_string(),
                acks: s.acks,
                lowered: s.lowered,
                raised: s.raised,
                unchanged: s.unchanged,
                skipped: s.skipped,
                untracked: s.untracked,
                mean_reduction_bytes: if s.lowered > 0 { s.reduced_bytes as f64 / s.lowered as f64 } else { 0.0 },
                flow_table_size: g.nr.flows.len() as u64,
                flow_table_evicted: g.nr.flows.evicted(),
                flow_table_rejected: g.nr.flows.rejected(),
                ngwa: None,
                acns: None,
            }
        })
        .chain(sim.stampers.iter().zip(&model.ngwa).map(|(st, spec)| {
            let n = st.ngwa.stats;
            let mut params = serde_json::to_value(&spec.config).expect("a config serializes");
            if let Some(o) = params.as_object_mut() {
                o.insert("kind".into(), serde_json::Value::String("ngwa".into()));
            }
            GatewaySummary {
                node: model.nodes[spec.node].name.clone(),
                kind: "ngwa".into(),
                params,
                monitor: "every egress".into(),
                rewrite_at: "dequeue".into(),
                acks: 0,
                lowered: 0,
                raised: 0,
                unchanged: 0,
                skipped: 0,
                untracked: 0,
                mean_reduction_bytes: 0.0,
                flow_table_size: 0,
                flow_table_evicted: 0,
                flow_table_rejected: 0,
                ngwa: Some(NgwaSummary { segments: n.segments, inserted: n.inserted, lowered: n.lowered, kept: n.kept, skipped: n.skipped }),
                acns: None,
            }
        }))
        .chain(sim.markers.iter().zip(&model.acns).map(|(mk, spec)| {
            let a = mk.acns.stats;
            let mut params = serde_json::to_value(&spec.config).expect("a config serializes");
            if let Some(o) = params.as_object_mut() {
                o.insert("kind".into(), serde_json::Value::String("acns".into()));
            }
            let flows = &mk.acns.flows;
            GatewaySummary {
                node: model.nodes[spec.node].name.clone(),
                kind: "acns".into(),
                params,
                monitor: "every egress".into(),
                rewrite_at: "enqueue".into(),
                acks: 0,
                lowered: 0,
                raised: 0,
                unchanged: 0,
                skipped: 0,
                untracked: 0,
                mean_reduction_bytes: 0.0,
                flow_table_size: flows.len() as u64,
                flow_table_evicted: flows.evicted(),
                flow_table_rejected: flows.rejected(),
                ngwa: None,
                acns: Some(AcnsSummary {
                    evaluated: a.evaluated,
                    freezes: a.freezes,
                    fallbacks: a.fallbacks,
                    skipped: a.skipped,
                    flow_table_size: flows.len() as u64,
                    flow_table_evicted: flows.evicted(),
                    flow_table_rejected: flows.rejected(),
                }),
            }
        }))
        .collect();
    let summary = Summary {
        scenario: model.name.clone(),
        seed: model.seed,
        sim_time_s: model.duration.as_secs_f64(),
        warmup_s: model.warmup.as_secs_f64(),
        wall_time_s,
        events: sim.events,
        data_packets: sim.data_packets,
        jain_goodput: jain(&goodputs),
        jain_received: jain(&received_rates),
        aggregate_goodput_bps: if window_s > 0.0 { aggregate_bytes as f64 * 8.0 / window_s } else { 0.0 },
        aggregate_received_bps: if window_s > 0.0 { aggregate_received as f64 * 8.0 / window_s } else { 0.0 },
        flows,
        queues,
        gateways,
        options,
        sluice_version: VERSION.to_string(),
        summary_version: SUMMARY_VERSION,
    };
    let names: Vec<String> = sim.info.iter().map(|f| f.name.clone()).collect();
    let s = sim.samples;
    let mut tables = vec![Table {
        name: "queue_samples".into(),
        columns: vec![
            ("t_s".into(), Column::F64(s.q_t)),
            ("queue".into(), Column::Str(s.q_iface.iter().map(|&i| names[i as usize].clone()).collect())),
            ("len_pkts".into(), Column::I64(s.q_pkts)),
            ("len_bytes".into(), Column::I64(s.q_bytes)),
        ],
    }];
    if model.monitor.cwnd_trace.is_some() {
        tables.push(Table {
            name: "cwnd".into(),
            columns: vec![
                ("t_s".into(), Column::F64(s.c_t)),
                ("flow".into(), Column::I64(s.c_flow)),
                ("cwnd_bytes".into(), Column::I64(s.c_cwnd)),
                ("ssthresh_bytes".into(), Column::I64(s.c_ssthresh)),
                ("snd_wnd_bytes".into(), Column::I64(s.c_snd_wnd)),
                ("pipe_bytes".into(), Column::I64(s.c_pipe)),
                ("srtt_s".into(), Column::F64(s.c_srtt)),
                ("state".into(), Column::Str(s.c_state)),
                ("pacing_bps".into(), Column::F64(s.c_pacing)),
            ],
        });
    }
    if model.monitor.cc_trace {
        tables.push(Table {
            name: "cc_state".into(),
            columns: vec![
                ("t_s".into(), Column::F64(s.s_t)),
                ("flow".into(), Column::I64(s.s_flow)),
                ("name".into(), Column::Str(s.s_name)),
                ("value".into(), Column::F64(s.s_value)),
            ],
        });
    }
    if model.monitor.rtt_trace {
        let (mut t, mut fl, mut r) = (Vec::new(), Vec::new(), Vec::new());
        for e in &sim.eps {
            if let Some(log) = e.rtt_log() {
                for &(at, rtt) in log {
                    t.push(at.as_secs_f64());
                    fl.push(e.flow as i64);
                    r.push(rtt.as_secs_f64());
                }
            }
        }
        tables.push(Table { name: "rtt".into(), columns: vec![("t_s".into(), Column::F64(t)), ("flow".into(), Column::I64(fl)), ("rtt_s".into(), Column::F64(r))] });
    }
    if model.monitor.rewrite_trace {
        let (mut t, mut gw, mut fl, mut orig, mut new, mut reason, mut weight) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (g, spec) in sim.gateways.iter().zip(&model.gateways) {
            // NGWA's gateway-only variant writes W_node: its own reason.
            let why = if matches!(spec.controller, sluice_core::control::ControllerConfig::Ngwa(_)) { "ngwa_ack" } else { "window" };
            for r in g.trace.iter().flatten() {
                t.push(r.t_ns as f64 * 1e-9);
                gw.push(model.nodes[spec.node].name.clone());
                fl.push(r.flow as i64);
                orig.push(r.orig_bytes as i64);
                new.push(r.new_bytes as i64);
                reason.push(why.to_string());
                weight.push(f64::NAN);
            }
        }
        // NGWA: the option's value before (-1: inserted) and after.
        for (st, spec) in sim.stampers.iter().zip(&model.ngwa) {
            for r in st.trace.iter().flatten() {
                t.push(r.t_ns as f64 * 1e-9);
                gw.push(model.nodes[spec.node].name.clone());
                fl.push(r.flow as i64);
                orig.push(r.from.map_or(-1, |v| v as i64));
                new.push(r.to as i64);
                reason.push("ngwa_stamp".to_string());
                weight.push(f64::NAN);
            }
        }
        // ACNS: no bytes (-1, -1); the command in the reason, the weight W that chose it.
        for (mk, spec) in sim.markers.iter().zip(&model.acns) {
            for r in mk.trace.iter().flatten() {
                t.push(r.t_ns as f64 * 1e-9);
                gw.push(model.nodes[spec.node].name.clone());
                fl.push(r.flow as i64);
                orig.push(-1);
                new.push(-1);
                reason.push(if r.fallback { "acns_fallback" } else { "acns_freeze" }.to_string());
                weight.push(r.weight);
            }
        }
        tables.push(Table {
            name: "rewrites".into(),
            columns: vec![
                ("t_s".into(), Column::F64(t)),
                ("gateway".into(), Column::Str(gw)),
                ("flow".into(), Column::I64(fl)),
                ("orig_bytes".into(), Column::I64(orig)),
                ("new_bytes".into(), Column::I64(new)),
                ("reason".into(), Column::Str(reason)),
                ("weight".into(), Column::F64(weight)),
            ],
        });
    }
    if model.monitor.flow_sample.is_some() {
        let bytes: Vec<f64> = s.f_bytes.iter().map(|&b| b as f64).collect();
        let secs = model.monitor.flow_sample.map_or(1.0, |d| d.as_secs_f64());
        tables.push(Table {
            name: "flow_samples".into(),
            columns: vec![
                ("t_s".into(), Column::F64(s.f_t)),
                ("flow".into(), Column::I64(s.f_flow)),
                ("bytes".into(), Column::I64(s.f_bytes)),
                ("throughput_bps".into(), Column::F64(bytes.iter().map(|b| b * 8.0 / secs).collect())),
                ("data_dir_lost".into(), Column::I64(s.f_lost)),
                ("triple_dupacks".into(), Column::I64(s.f_tdup)),
            ],
        });
    }
    Ok(RunOutput { summary, tables, files: sim.files })
}

/// The loss model of a link direction as the summary records it (`"none"`, `"bernoulli p=0.02"`).
fn describe_loss(m: &sluice_core::loss::LossModel) -> String {
    use sluice_core::loss::{ListMatch, LossModel};
    if m.is_lossless() {
        return "none".into();
    }
    match m {
        LossModel::Bernoulli { p } => format!("bernoulli p={p}"),
        LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => format!("gilbert_elliott p_gb={p_gb} p_bg={p_bg} loss_good={loss_good} loss_bad={loss_bad}"),
        LossModel::List { packets, matching } => {
            let m = if *matching == ListMatch::Data { "data" } else { "all" };
            format!("list match={m} packets={packets:?}")
        }
    }
}
