//! The event loop: builds the network from a [`Model`] and runs it.
//!
//! Single-threaded and deterministic. Entities live in `Vec`s indexed by ID; packets live in a
//! slab and move between queues as small references ([`QPkt`]); events are a few machine words
//! (see [`queue`] for the ordering rule). Per packet per hop there is one arrival event, and a
//! transmit-complete event only while packets wait behind the one being serialized. Endpoint
//! timers are lazy: the endpoint keeps its deadlines, the engine keeps one pending wake-up per
//! endpoint and re-arms it when it fires early (generation counters discard stale ones). The
//! engine also notes the endpoint's earliest deadline after every call into it, so a wake-up that
//! finds its deadline moved (most do: every new ACK restarts the retransmission timer) re-arms
//! from that note without touching the endpoint. Where the endpoint asks for it
//! (`Ns3Compat::timer_ties_as_set`), the note also carries a sequence number reserved when the
//! deadline was set, and the wake-up is scheduled with it: the timer then sorts among the events
//! of its instant as if scheduled when it was set (ns-3's order), not when it was re-armed.

pub(crate) mod gateway;
pub mod queue;

use crate::apps::App;
use crate::model::{AppSpec, Model, NodeKind, StartSpec};
use crate::monitor::collect::{self, FlowRecord};
use crate::monitor::pcap::PcapWriter;
use crate::net::{addr_node, compute_routes, node_addr, Flags, Iface, IfaceInfo, NextHop, Node, OnWire, QPkt};
use crate::packet::{SimPacket, Transport};
use crate::prefetch::{Lines, Prefetch};
use crate::tcp::{Endpoint, SockAddr};
use crate::{RunOptions, RunOutput, SimError};
use queue::{Event, EventQueue};
use sluice_core::packet::Ecn;
use sluice_core::qdisc::{AnyQdisc, DropReason, Offer, QdiscCx};
use sluice_core::rng::{RngStream, StreamKey};
use sluice_core::{Dur, Time};
use std::fs::File;
use std::io::BufWriter;

/// Per-flow counters kept by the engine (network side).
#[derive(Clone, Debug, Default)]
pub struct FlowNet {
    /// Packets of the flow, either direction, dropped in the network.
    pub lost_pkts: u64,
    /// The data direction (source to destination host), at the IP layer: packets and bytes
    /// sent (TCP: every segment the client sends, handshake and FIN included; UDP: every
    /// datagram), and those of them dropped in the network.
    pub fwd_sent_pkts: u64,
    pub fwd_sent_bytes: u64,
    pub fwd_lost_pkts: u64,
    pub fwd_lost_bytes: u64,
    /// When the sender put its first data segment (or datagram) on its way.
    pub first_data: Option<Time>,
    /// UDP: packets and bytes sent / delivered.
    pub udp_sent_pkts: u64,
    pub udp_sent_bytes: u64,
    pub udp_rcvd_bytes: u64,
    pub udp_last_rcvd: Time,
    pub fct: Option<Time>,
}

pub(crate) struct Sim<'m> {
    pub model: &'m Model,
    pub now: Time,
    pub end: Time,
    pub warm_at: Time,
    pub q: EventQueue,
    /// Observation events (samples, the warm-up snapshot), kept apart from the simulation.
    obs: EventQueue,
    pub nodes: Vec<Node>,
    /// Per node, its one interface if it has exactly one (every host of a dumbbell), else
    /// `u32::MAX` (look in the node's routes). Kept apart from [`Node`] so sending a packet
    /// reads four bytes instead of the node and its interface list.
    uplink: Vec<u32>,
    pub ifaces: Vec<Iface>,
    pub info: Vec<IfaceInfo>,
    /// Indices of the interfaces whose queues are sampled and reported.
    monitored: Vec<usize>,
    pkts: Vec<SimPacket>,
    free: Vec<u32>,
    /// The TCP endpoints, two per TCP flow: client at an even index, its server after it.
    pub eps: Vec<Endpoint>,
    /// Per flow, the index of its client endpoint in `eps` (`NO_EP` for a UDP flow).
    flow_ep: Vec<u32>,
    /// Whether to prefetch what the next event reads ([`Sim::prefetch_next`]): only when the
    /// endpoints and interfaces outgrow a core's cache (below that they stay cached, and the
    /// prefetches would cost instructions for nothing).
    prefetch: bool,
    /// Per endpoint, its wake-up ([`WakeSlot`]).
    wake: Vec<WakeSlot>,
    /// Per endpoint, its host's one interface (`u32::MAX` if the host has several), where
    /// what the endpoint sends is queued.
    ep_uplink: Vec<u32>,
    pub apps: Vec<App>,
    pub flownet: Vec<FlowNet>,
    /// Per flow, the destination node (where the server endpoint lives).
    flow_dst: Vec<u32>,
    /// Finite transfers still waiting for their last byte (one byte per flow: stays cached).
    fct_pending: Vec<bool>,
    pub events: u64,
    /// Sequence number of the event being run (for same-instant ordering at interfaces).
    cur_seq: u64,
    pub data_packets: u64,
    out: Vec<SimPacket>,
    /// Packets a discipline dropped from its queue during one call (at dequeue, or to make
    /// room at an enqueue), freed by the caller right after the call.
    drops: Vec<(QPkt, DropReason)>,
    pub samples: collect::Samples,
    pub warm: Option<collect::WarmSnapshot>,
    /// Per interface: its pcap writer and the file's path, when it is captured.
    pcaps: Vec<Option<(PcapWriter<BufWriter<File>>, String)>>,
    /// The first pcap write that failed: the run reports it instead of a summary.
    pcap_error: Option<SimError>,
    pub files: Vec<String>,
    /// Network-return gateways (`engine::gateway`), and per node the index of its gateway
    /// (`gateway::NO_GATEWAY` for none).
    /// NGWA routers (`engine::gateway`): a node's entry in `node_gw` is
    /// `gateway::NGWA | index` for them.
    pub(crate) gateways: Vec<gateway::Gateway>,
    pub(crate) stampers: Vec<gateway::Stamper>,
    /// ACNS routers (`engine::gateway`): a node's entry in `node_gw` is
    /// `gateway::ACNS | index` for them.
    pub(crate) markers: Vec<gateway::Marker>,
    node_gw: Vec<u32>,
    /// Per interface, its node's entry of `node_gw` (read at every hooked enqueue and
    /// departure without going through the interface's node).
    iface_gw: Vec<u32>,
    /// TCP flows started and not finished: the gateways' exact flow count
    /// (`flow_count = "oracle"`).
    tcp_active: u32,
}

/// Build and run a model.
pub fn run_model(model: &Model, opts: &RunOptions) -> Result<RunOutput, SimError> {
    let mut run = Stepper::new(model, opts)?;
    while run.advance(u64::MAX) {}
    run.finish()
}

/// A run that advances a slice at a time: what benchmarks use to interleave two runs in one
/// process, so that both meet the same machine conditions (`sluice-bench`). Sliced or not, a run
/// processes the same events in the same order: [`run_model`] is this with one slice.
pub struct Stepper<'m> {
    sim: Sim<'m>,
    /// Wall time spent building the run and in [`Stepper::advance`].
    wall: std::time::Duration,
    done: bool,
}

impl<'m> Stepper<'m> {
    pub fn new(model: &'m Model, opts: &RunOptions) -> Result<Stepper<'m>, SimError> {
        let t = std::time::Instant::now();
        let mut sim = Sim::build(model, opts)?;
        sim.start();
        Ok(Stepper { sim, wall: t.elapsed(), done: false })
    }

    /// Run up to `events` more events (simulation and observation events alike); false once
    /// the run has reached its end.
    pub fn advance(&mut self, events: u64) -> bool {
        if self.done {
            return false;
        }
        let t = std::time::Instant::now();
        if !self.sim.step(events) {
            self.sim.stop();
            self.done = true;
        }
        self.wall += t.elapsed();
        !self.done
    }

    /// Data segments sent so far (the benchmarks' unit of work).
    pub fn data_packets(&self) -> u64 {
        self.sim.data_packets
    }

    /// Simulated time reached, and the time the run ends at.
    pub fn progress(&self) -> (Time, Time) {
        (self.sim.now, self.sim.end)
    }

    /// The summary and tables; the run must have reached its end.
    pub fn finish(self) -> Result<RunOutput, SimError> {
        assert!(self.done, "Stepper::finish before the run reached its end");
        if let Some(e) = self.sim.pcap_error {
            return Err(e);
        }
        collect::finish(self.sim, self.wall.as_secs_f64())
    }
}

impl<'m> Sim<'m> {
    fn build(model: &'m Model, opts: &RunOptions) -> Result<Sim<'m>, SimError> {
        let mut nodes: Vec<Node> = model
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| Node { name: n.name.clone(), addr: node_addr(i), is_host: n.kind == NodeKind::Host, ifaces: Vec::new(), routes: Vec::new() })
            .collect();
        let mut ifaces = Vec::new();
        let mut info = Vec::new();
        let mut pcaps = Vec::new();
        let mut files = Vec::new();
        for l in &model.links {
            let mut jrng = RngStream::derive(model.seed, StreamKey::LinkJitter(&format!("{}-{}", model.nodes[l.a].name, model.nodes[l.b].name)));
            let jitter = if l.jitter.0 > 0 { Dur(jrng.below(l.jitter.0)) } else { Dur::ZERO };
            for (from, to, d) in [(l.a, l.b, &l.ab), (l.b, l.a, &l.ba)] {
                // Each queue draws from its own stream, named after it: adding a queue
                // elsewhere changes nothing another queue draws.
                let mut qrng = RngStream::derive(model.seed, StreamKey::Qdisc(&d.queue_name));
                let mut qdisc = AnyQdisc::new(&d.qdisc, &mut qrng);
                if let AnyQdisc::FqCodel(q) = &mut qdisc {
                    if q.wants_ns3_tuples() {
                        q.set_ns3_tuples(ns3_tuples(model));
                    }
                }
                let idx = ifaces.len() as u32;
                nodes[from].ifaces.push(idx);
                let pcap = opts.out_dir.is_some() && d.pcap;
                ifaces.push(Iface::new(from as u32, to as u32, l.rate, l.delay + jitter, l.l2_overhead, l.device_queue, qdisc, qrng, !d.loss.is_lossless(), pcap));
                info.push(IfaceInfo {
                    name: d.queue_name.clone(),
                    loss: sluice_core::loss::LossProcess::new(d.loss.clone()),
                    link_losses: 0,
                    qdisc: d.qdisc.clone(),
                    rng: RngStream::derive(model.seed, StreamKey::LinkLoss(&d.queue_name)),
                    monitored: match &model.monitor.queues {
                        Some(names) => names.contains(&d.queue_name),
                        None => model.nodes[from].kind == NodeKind::Router,
                    },
                    samples: 0,
                    sum_pkts: 0.0,
                    sum_pkts2: 0.0,
                    sum_bytes: 0.0,
                });
                let writer = match (&opts.out_dir, d.pcap) {
                    (Some(dir), true) => {
                        std::fs::create_dir_all(dir).map_err(|e| SimError::Io { path: dir.display().to_string(), source: e })?;
                        let fname = format!("{}.pcap", d.queue_name.replace("->", "-to-").replace(['/', ' '], "_"));
                        let path = dir.join(&fname);
                        let f = File::create(&path).map_err(|e| SimError::Io { path: path.display().to_string(), source: e })?;
                        files.push(fname);
                        let w = PcapWriter::new(BufWriter::new(f), model.monitor.pcap_snaplen).map_err(|e| SimError::Io { path: path.display().to_string(), source: e })?;
                        Some((w, path.display().to_string()))
                    }
                    _ => None,
                };
                pcaps.push(writer);
            }
        }
        compute_routes(&mut nodes, &ifaces.iter().map(|f: &Iface| (f.node, f.peer)).collect::<Vec<_>>());

        let mut eps = Vec::with_capacity(model.flows.len() * 2);
        let mut flow_ep = Vec::with_capacity(model.flows.len());
        let uplink: Vec<u32> = nodes.iter().map(|nd| if nd.ifaces.len() == 1 { nd.ifaces[0] } else { u32::MAX }).collect();
        let mut ep_uplink = Vec::with_capacity(model.flows.len() * 2);
        // Endpoints with equal options share one configuration.
        let mut configs: Vec<std::sync::Arc<crate::tcp::TcpConfig>> = Vec::new();
        let mut apps = Vec::with_capacity(model.flows.len());
        for (f, fl) in model.flows.iter().enumerate() {
            let mut rng = RngStream::derive(model.seed, StreamKey::App(&fl.name));
            let start = match fl.start {
                StartSpec::At(t) => t,
                StartSpec::Uniform(lo, hi) => Time(lo.0 + rng.below((hi.0 - lo.0).max(1))),
            };
            let client_addr = SockAddr { addr: node_addr(fl.src), port: crate::net::CLIENT_PORTS + (f as u16 % 16_000) };
            let server_addr = SockAddr { addr: node_addr(fl.dst), port: fl.port };
            if fl.app.is_tcp() {
                let mut erng = RngStream::derive(model.seed, StreamKey::Endpoint(&fl.name));
                let cfg = match configs.iter().find(|c| ***c == fl.tcp) {
                    Some(c) => c.clone(),
                    None => {
                        configs.push(std::sync::Arc::new(fl.tcp.clone()));
                        configs[configs.len() - 1].clone()
                    }
                };
                let mut c = Endpoint::client(cfg.clone(), client_addr, server_addr, erng.next_u32(), f as u32);
                let mut s = Endpoint::server(cfg, server_addr, client_addr, erng.next_u32(), f as u32);
                if c.cc_draws() {
                    // The sender's congestion control draws from a stream of the flow's own,
                    // or from the one every flow shares (BBR's `cycle_stream = "shared"`).
                    let key = match fl.tcp.bbr.cycle_stream {
                        crate::tcp::BbrCycleStream::Flow => StreamKey::Cc(&fl.name),
                        crate::tcp::BbrCycleStream::Shared => StreamKey::Other("bbr-cycle"),
                    };
                    c.set_cc_rng(RngStream::derive(model.seed, key));
                }
                if model.monitor.rtt_trace {
                    c.log_rtt();
                    s.log_rtt();
                }
                flow_ep.push(eps.len() as u32);
                ep_uplink.extend([uplink[fl.src], uplink[fl.dst]]);
                eps.push(c);
                eps.push(s);
            } else {
                flow_ep.push(NO_EP);
            }
            apps.push(App { flow: f as u32, spec: fl.app.clone(), start, stop: fl.stop, rng, gen: 0, on_until: Time::ZERO, stopped: false, train_start: Time::ZERO, train_sent: 0, on_carry: Dur::ZERO });
        }
        let mut node_gw = vec![gateway::NO_GATEWAY; nodes.len()];
        let mut gateways = Vec::with_capacity(model.gateways.len());
        for (g, spec) in model.gateways.iter().enumerate() {
            let monitor = info.iter().position(|i| i.name == spec.monitor).expect("the scenario layer resolved the monitored queue") as u32;
            for &k in &nodes[spec.node].ifaces {
                ifaces[k as usize].set_flag(Flags::HOOKED, true);
            }
            node_gw[spec.node] = g as u32;
            let (link, limit) = (ifaces[monitor as usize].rate, ifaces[monitor as usize].qdisc.limit::<crate::net::QPkt>());
            let nr = sluice_core::control::NetworkReturn::new(spec.flow_table.clone(), &spec.controller);
            gateways.push(gateway::Gateway::new(monitor, spec.rewrite_at, link, limit, nr, model.monitor.rewrite_trace, model.flows.len()));
        }
        let mut stampers = Vec::with_capacity(model.ngwa.len());
        for (s, spec) in model.ngwa.iter().enumerate() {
            let queues: Vec<(u32, sluice_core::units::QueueLimit)> = nodes[spec.node].ifaces.iter().map(|&k| (k, ifaces[k as usize].qdisc.limit::<crate::net::QPkt>())).collect();
            for &(k, _) in &queues {
                ifaces[k as usize].set_flag(Flags::HOOKED, true);
            }
            node_gw[spec.node] = gateway::NGWA | s as u32;
            let mut by_iface = vec![u32::MAX; ifaces.len()];
            for (q, &(k, _)) in queues.iter().enumerate() {
                by_iface[k as usize] = q as u32;
            }
            stampers.push(gateway::Stamper { ngwa: sluice_core::control::Ngwa::new(spec.config.clone(), queues.len()), queues, by_iface, trace: model.monitor.rewrite_trace.then(Vec::new) });
        }
        let mut markers = Vec::with_capacity(model.acns.len());
        for (m, spec) in model.acns.iter().enumerate() {
            for &k in &nodes[spec.node].ifaces {
                ifaces[k as usize].set_flag(Flags::HOOKED, true);
            }
            node_gw[spec.node] = gateway::ACNS | m as u32;
            markers.push(gateway::Marker {
                acns: sluice_core::control::Acns::new(spec.config.clone(), spec.flow_table.clone()),
                trace: model.monitor.rewrite_trace.then(Vec::new),
                by_flow: vec![None; model.flows.len()],
            });
        }
        let wake: Vec<WakeSlot> = eps.iter().map(|e| WakeSlot { as_set: e.timer_ties_as_set(), ..WakeSlot::IDLE }).collect();
        // The longest a full-sized packet spends on one link: the calendar of packet events
        // looks that far ahead (see `EventQueue`).
        let horizon = ifaces.iter().map(|f| f.delay + f.rate.tx_time(1_600 + f.l2_overhead as u64)).max().unwrap_or(Dur::ZERO);
        let iface_gw = ifaces.iter().map(|f| node_gw[f.node as usize]).collect();
        Ok(Sim {
            model,
            now: Time::ZERO,
            end: Time::ZERO + model.duration,
            warm_at: Time::ZERO + model.warmup,
            q: EventQueue::with_horizon(horizon),
            obs: EventQueue::new(),
            uplink,
            prefetch: eps.len() * std::mem::size_of::<Endpoint>() + ifaces.len() * std::mem::size_of::<Iface>() > PREFETCH_ABOVE,
            ep_uplink,
            flow_ep,
            nodes,
            monitored: info.iter().enumerate().filter(|(_, i)| i.monitored).map(|(k, _)| k).collect(),
            ifaces,
            info,
            pkts: Vec::with_capacity(4096),
            free: Vec::new(),
            eps,
            wake,
            apps,
            flownet: vec![FlowNet::default(); model.flows.len()],
            flow_dst: model.flows.iter().map(|f| f.dst as u32).collect(),
            fct_pending: model.flows.iter().map(|f| matches!(f.app, AppSpec::File { .. })).collect(),
            events: 0,
            cur_seq: 0,
            data_packets: 0,
            out: Vec::with_capacity(64),
            drops: Vec::new(),
            samples: collect::Samples::default(),
            warm: None,
            pcaps,
            pcap_error: None,
            files,
            gateways,
            stampers,
            markers,
            iface_gw,
            node_gw,
            tcp_active: 0,
        })
    }

    /// The count of TCP connections started and not finished is now `n`: the gateways'
    /// readings show it (`flow_count = "oracle"`).
    fn set_tcp_active(&mut self, n: u32) {
        self.tcp_active = n;
        for g in &mut self.gateways {
            g.readings.oracle_flows = Some(n);
        }
    }

    /// Schedule the applications and the observation events.
    fn start(&mut self) {
        // Applications due at the same instant start in the order of their source nodes, then
        // of the scenario's flows: ns-3 initialises the applications node by node at time zero,
        // each node's in the order they were installed, and each schedules its start (then its
        // stop) as it is initialised (docs/architecture.md, "Same-instant order").
        for a in self.app_order() {
            let t = self.apps[a].start;
            self.q.schedule(t, Event::AppStart { app: a as u32 });
            if let Some(stop) = self.apps[a].stop {
                self.q.schedule(stop, Event::AppStop { app: a as u32 });
            }
        }
        self.obs.schedule(self.warm_at, Event::WarmupEnd);
        self.obs.schedule(self.warm_at, Event::QueueSample);
        if self.model.monitor.cwnd_trace.is_some() {
            self.obs.schedule(Time::ZERO, Event::CwndSample);
        }
        if self.model.monitor.flow_sample.is_some() {
            // The first one only notes where the counts stand when the window opens.
            self.obs.schedule(self.warm_at, Event::FlowSample);
        }
    }

    /// The applications in the order their start and stop events are scheduled: by source
    /// node, then by flow.
    fn app_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.apps.len()).collect();
        order.sort_by_key(|&a| (self.model.flows[self.apps[a].flow as usize].src, a));
        order
    }

    /// Run up to `budget` events; false when the run is over (no event left before the end).
    fn step(&mut self, budget: u64) -> bool {
        for _ in 0..budget {
            // Observation events run from their own queue, before the simulation events of the
            // same instant: they see the state as it stands and can never change what happens.
            let next_obs = self.obs.peek_time();
            if next_obs.is_some_and(|to| self.q.peek_time().is_none_or(|ts| to <= ts)) {
                let (t, _, ev) = self.obs.pop().expect("peeked");
                if t >= self.end {
                    return false;
                }
                self.now = t;
                self.observe(t, ev);
                continue;
            }
            let Some((t, seq, ev)) = self.q.pop() else { return false };
            if t >= self.end {
                return false;
            }
            self.now = t;
            self.cur_seq = seq;
            self.events += 1;
            if self.prefetch {
                self.prefetch_next();
            }

            match ev {
                Event::Arrive { iface, .. } => self.arrive(iface),
                Event::TxDone { iface } => self.tx_done(iface),
                Event::Refill { iface } => {
                    self.ifaces[iface as usize].set_flag(Flags::REFILL_PENDING, false);
                    self.kick(iface);
                }
                Event::Wake { ep, gen } => self.wake(ep, gen),
                Event::AppStart { app } => self.app_start(app),
                Event::AppTick { app, gen } => self.app_tick(app, gen),
                Event::AppStop { app } => self.app_stop(app),
                Event::QueueSample | Event::CwndSample | Event::FlowSample | Event::WarmupEnd => unreachable!("observation events run from their own queue"),
            }
        }
        true
    }

    /// The end of the run: the warm-up snapshot if the run ended before it, pcap files flushed.
    fn stop(&mut self) {
        self.now = self.end;
        if self.warm.is_none() {
            self.warm = Some(collect::snapshot(self));
        }
        // Observation events at the end instant do not run: the interval ending there is
        // sampled here, when it is a whole one.
        if let (Some(d), Some(last)) = (self.model.monitor.flow_sample, self.samples.last_flow_sample()) {
            if last + d == self.end {
                self.sample_flows(self.end);
            }
        }
        for i in 0..self.pcaps.len() {
            if let Some(Err(e)) = self.pcaps[i].as_mut().map(|(w, _)| w.flush()) {
                self.pcap_failed(i as u32, e);
            }
        }
    }

    /// Write packet `id`, leaving on `iface` now, to the interface's pcap file.
    #[inline(never)]
    fn capture(&mut self, iface: u32, id: u32) {
        if let Some((w, _)) = &mut self.pcaps[iface as usize] {
            if let Err(e) = w.write(self.now, &self.pkts[id as usize]) {
                self.pcap_failed(iface, e);
            }
        }
    }

    /// A pcap file could not be written: stop writing it and fail the run at its end (a
    /// capture with packets silently missing would mislead whoever reads it).
    #[cold]
    fn pcap_failed(&mut self, iface: u32, e: std::io::Error) {
        let path = self.pcaps[iface as usize].take().map(|(_, path)| path).unwrap_or_default();
        self.ifaces[iface as usize].set_flag(Flags::PCAP, false);
        if self.pcap_error.is_none() {
            self.pcap_error = Some(SimError::Io { path, source: e });
        }
    }

    // ----- packets -----

    #[inline]
    fn alloc(&mut self, p: SimPacket) -> u32 {
        if let Some(i) = self.free.pop() {
            self.pkts[i as usize] = p;
            i
        } else {
            self.pkts.push(p);
            (self.pkts.len() - 1) as u32
        }
    }

    #[inline]
    fn release(&mut self, id: u32) {
        self.free.push(id);
    }

    /// A packet leaves `node` towards its destination.
    #[inline]
    fn forward(&mut self, node: u32, id: u32) {
        let dst = self.pkts[id as usize].dst;
        let iface = self.route(node, dst);
        debug_assert!(iface != u32::MAX, "no route from {} to node {}", self.nodes[node as usize].name, addr_node(dst));
        self.enqueue(iface, id);
    }

    /// The interface `node` sends a packet for address `dst` on (`u32::MAX`: no route).
    #[inline]
    fn route(&self, node: u32, dst: u32) -> u32 {
        let up = self.uplink[node as usize];
        if up != u32::MAX {
            up
        } else {
            self.nodes[node as usize].routes[addr_node(dst)]
        }
    }

    /// The endpoint of `flow` at `node`: the server if `node` is the flow's destination.
    #[inline]
    fn endpoint_at(&self, flow: usize, node: u32) -> usize {
        self.flow_ep[flow] as usize + (self.flow_dst[flow] == node) as usize
    }

    fn enqueue(&mut self, iface: u32, id: u32) {
        let hooked = self.ifaces[iface as usize].flag(Flags::HOOKED);
        if hooked {
            self.gw_enqueue(iface, id);
        }
        let p = &self.pkts[id as usize];
        let mut qp = QPkt::of(id, p);
        if self.prefetch {
            qp.next = self.next_hop(self.ifaces[iface as usize].peer, p);
        }
        let now = self.now;
        let f = &mut self.ifaces[iface as usize];
        // Empty queue that would pass the packet on: it would be enqueued and dequeued at once,
        // so skip the discipline (same statistics, fewer memory touches on cold interfaces).
        // Idle link and empty device: transmit it. Busy link, room in the device, no refill
        // pending: it would move to the device at once (what `kick` does), so put it there.
        if f.qdisc_passes(qp.len) {
            let idle = f.idle_at(now, self.cur_seq);
            if idle && f.device_is_empty() {
                f.qdisc.pass_through();
                qp.enq = now;
                if hooked {
                    qp.len += self.gw_pass(iface, qp.id, qp.len);
                }
                self.transmit(iface, qp);
                // As in `kick`: the device took its packet, and its refill waits for the
                // events already due at this instant.
                if self.refill_waits(iface) {
                    self.defer_refill(iface);
                }
                return;
            }
            if !idle && f.device_len() < f.device_cap as usize && !f.flag(Flags::REFILL_PENDING) {
                f.qdisc.pass_through();
                qp.enq = now;
                if hooked {
                    qp.len += self.gw_pass(iface, qp.id, qp.len);
                }
                self.ifaces[iface as usize].device_push(qp);
                self.ensure_txdone(iface);
                return;
            }
        }
        let monitor = if hooked { self.gw_monitor_of(iface) } else { None };
        let watched = monitor.filter(|&g| self.gateways[g].nr.queue_event_matters(now));
        let f = &mut self.ifaces[iface as usize];
        let before = if watched.is_some() { f.qdisc.occupancy::<QPkt>() } else { Default::default() };
        let len = qp.len;
        let mut cx = QdiscCx { rng: &mut f.qrng, dequeue_drops: &mut self.drops };
        let offer = f.qdisc.enqueue(qp, now, &mut cx);
        if let Some(g) = monitor {
            self.gateways[g].set_occupancy(self.ifaces[iface as usize].qdisc.occupancy::<QPkt>());
        }
        match offer {
            Offer::Queued { .. } => {
                if let Some(g) = watched {
                    self.gw_queue(g, sluice_core::control::QueueEventKind::Enqueue, len, before);
                }
            }
            Offer::Dropped(_, p) => {
                self.lose(p.id);
            }
        }
        // Queued packets dropped to make room (CHOKe's victim, FQ-CoDel's overflow).
        while let Some((p, _)) = self.drops.pop() {
            self.lose(p.id);
        }
        self.kick(iface);
    }

    /// Move packets from the queue discipline to the device and start serializing if idle.
    fn kick(&mut self, iface: u32) {
        let now = self.now;
        loop {
            let f = &mut self.ifaces[iface as usize];
            let idle = f.idle_at(now, self.cur_seq);
            if idle && !f.device_is_empty() {
                self.start_tx(iface);
                // The device took its packet: as after a transmission (`tx_done`), refilling it
                // from the discipline waits for the events already due at this instant.
                if self.refill_waits(iface) {
                    self.defer_refill(iface);
                    break;
                }
                continue;
            }
            if f.device_len() >= f.device_cap.max(1) as usize {
                break;
            }
            if !idle && f.device_len() >= f.device_cap as usize {
                break;
            }
            if f.flag(Flags::REFILL_PENDING) {
                break; // the device queue stays stopped until its refill runs
            }
            if f.qdisc_idle() {
                break; // nothing to dequeue (without reading the discipline)
            }
            let hooked = f.flag(Flags::HOOKED);
            let monitor = if hooked { self.gw_monitor_of(iface) } else { None };
            let watched = monitor.filter(|&g| self.gateways[g].nr.queue_event_matters(now));
            let f = &mut self.ifaces[iface as usize];
            let before = if watched.is_some() { f.qdisc.occupancy::<QPkt>() } else { Default::default() };
            let mut cx = QdiscCx { rng: &mut f.qrng, dequeue_drops: &mut self.drops };
            let out = f.qdisc.dequeue(now, &mut cx);
            if let Some(g) = monitor {
                self.gateways[g].set_occupancy(self.ifaces[iface as usize].qdisc.occupancy::<QPkt>());
            }
            let Some(mut p) = out else { break };
            if p.ecn == Ecn::Ce {
                self.pkts[p.id as usize].tos.set_ecn(Ecn::Ce);
            }
            if let Some(g) = watched {
                self.gw_queue(g, sluice_core::control::QueueEventKind::Dequeue, p.len, before);
            }
            if hooked {
                p.len += self.gw_departure(iface, p.id);
            }
            self.ifaces[iface as usize].device_push(p);
        }
        while let Some((p, _)) = self.drops.pop() {
            self.lose(p.id);
        }
        self.ensure_txdone(iface);
    }

    /// Someone is waiting behind the packet on the wire: make sure TxDone will fire.
    #[inline]
    fn ensure_txdone(&mut self, iface: u32) {
        let f = &mut self.ifaces[iface as usize];
        if !f.idle_at(self.now, self.cur_seq) && !f.flag(Flags::TXDONE_SCHEDULED) && (!f.device_is_empty() || f.qdisc.stats.queued_pkts() > 0) {
            f.set_flag(Flags::TXDONE_SCHEDULED, true);
            self.q.schedule_with(f.busy_until, f.tx_seq, Event::TxDone { iface });
        }
    }

    /// Start serializing the device queue's oldest packet, if any.
    fn start_tx(&mut self, iface: u32) {
        if let Some(p) = self.ifaces[iface as usize].device_pop() {
            self.transmit(iface, p);
        }
    }

    /// Serialize `p` on the idle interface `iface` and put it on the wire (or lose it).
    fn transmit(&mut self, iface: u32, p: QPkt) {
        let now = self.now;
        let f = &mut self.ifaces[iface as usize];
        let bytes = p.len as u64 + f.l2_overhead as u64;
        let tx = f.rate.tx_time(bytes);
        f.busy_until = now + tx;
        // Reserve TxDone's place in the tie order now (ns-3 schedules it at transmission start,
        // before the arrival at the far end); it is scheduled only if someone waits.
        f.tx_seq = self.q.reserve();
        f.set_flag(Flags::TXDONE_SCHEDULED, false);
        // The loss decision is taken as the packet starts serializing: it holds the link for its
        // serialization but never arrives (ns-3's receive-side error model drops at the far
        // device, which gives the same timing). Capture happens on the sending side, so a lost
        // packet shows in that direction's pcap only.
        let lost = f.flag(Flags::LOSSY) && {
            let pkt = &self.pkts[p.id as usize];
            let is_data = matches!(pkt.transport, Transport::Tcp { .. }) && pkt.payload > 0;
            let info = &mut self.info[iface as usize];
            let lost = info.loss.lose(&mut info.rng, is_data);
            info.link_losses += lost as u64;
            lost
        };
        let arrive = now + tx + f.delay;
        if f.flag(Flags::PCAP) {
            self.capture(iface, p.id);
        }
        if lost {
            self.lose(p.id);
        } else {
            let seq = self.q.reserve();
            let f = &mut self.ifaces[iface as usize];
            if f.wire_push(OnWire { at: arrive, seq, id: p.id, next: p.next }) {
                self.q.schedule_with(arrive, seq, Event::Arrive { iface, pkt: p.id, next: p.next });
            }
        }
    }

    fn tx_done(&mut self, iface: u32) {
        let f = &mut self.ifaces[iface as usize];
        debug_assert_eq!(f.tx_seq, self.cur_seq, "one TxDone per transmission");
        f.set_flag(Flags::TXDONE_SCHEDULED, false);
        // The device starts its waiting packet at once; refilling the device from the queue
        // discipline is a separate step that runs after every event already scheduled for this
        // instant (ns-3 wakes the device queue with a new event). Only when such events exist
        // does the difference show, so only then is the refill deferred.
        if !f.device_is_empty() {
            self.start_tx(iface);
        }
        if self.q.peek_time() == Some(self.now) {
            self.defer_refill(iface);
        } else {
            self.kick(iface);
        }
    }

    /// Whether the device queue of `iface`, which has just handed its packet to the idle
    /// serializer, stays stopped for the events already due at this instant. ns-3's device
    /// queue stops when a packet fills it and is woken by an event scheduled as the device
    /// takes the packet (`NetDeviceQueue::PacketDequeued`, `ScheduleNow`): a one-packet device
    /// queue (or none) was full, a larger one was not. Without another event at this instant
    /// the wake would come next, so nothing is deferred.
    #[inline]
    fn refill_waits(&self, iface: u32) -> bool {
        self.ifaces[iface as usize].device_cap <= 1 && self.q.peek_time() == Some(self.now)
    }

    /// Refill the device from the discipline in an event of its own, after every event
    /// already scheduled for this instant (ns-3's `NetDeviceQueue` wakes with `ScheduleNow`
    /// once the device has dequeued a packet); the device takes nothing meanwhile.
    fn defer_refill(&mut self, iface: u32) {
        self.ifaces[iface as usize].set_flag(Flags::REFILL_PENDING, true);
        self.q.schedule(self.now, Event::Refill { iface });
    }

    /// Where packet `p` goes when it reaches `node`: see [`NextHop`].
    #[inline]
    fn next_hop(&self, node: u32, p: &SimPacket) -> NextHop {
        if node_addr(node as usize) == p.dst {
            return match p.transport {
                Transport::Tcp { .. } => NextHop::endpoint(self.endpoint_at(p.flow as usize, node), p.payload > 0),
                Transport::Udp => NextHop::NONE,
            };
        }
        NextHop::iface(self.route(node, p.dst))
    }

    /// Start loading into cache what the next event will read: the interface it runs at, the
    /// packet arriving, and the endpoint or interface the packet goes to next (with the
    /// endpoint's interface, for its reply). With hundreds of flows that state is cold at every
    /// packet, and fetched one line at a time as the event runs it stalls the event line after
    /// line; prefetched here, the lines load together while the current event runs. Prefetches
    /// only: what runs is unchanged.
    #[inline]
    fn prefetch_next(&self) {
        // Transmit-completes and refills run at busy interfaces, which are cached.
        let (iface, pkt, next) = match self.q.peek() {
            Some(Event::Arrive { iface, pkt, next }) => (iface as usize, pkt as usize, next),
            // Most wake-ups re-arm from their slot without reading the endpoint (see `wake`).
            Some(Event::Wake { ep, .. }) => {
                if let Some(w) = self.wake.get(ep as usize) {
                    Prefetch.line(w);
                }
                return;
            }
            _ => return,
        };
        let p = &mut Prefetch;
        if let Some(f) = self.ifaces.get(iface) {
            f.prefetch_arrival_lines(p);
        }
        if let Some(pkt) = self.pkts.get(pkt) {
            pkt.prefetch_lines(p);
        }
        if let Some((ep, data)) = next.as_endpoint() {
            self.prefetch_endpoint(ep, data);
        } else if let Some(f) = next.as_iface().and_then(|k| self.ifaces.get(k)) {
            f.prefetch_lines(p);
        }
    }

    /// Prefetch what running endpoint `ep` reads: its own lines (only the receiving ones for a
    /// data segment: a bulk receiver, or a sender's peer), its wake-up slot, and the interface
    /// its replies leave by.
    #[inline]
    fn prefetch_endpoint(&self, ep: usize, data: bool) {
        let p = &mut Prefetch;
        if let Some(e) = self.eps.get(ep) {
            if data {
                e.prefetch_receive_lines(p);
            } else {
                e.prefetch_lines(p);
            }
            p.line(&self.wake[ep]);
        }
        if let Some(f) = self.ep_uplink.get(ep).and_then(|&k| self.ifaces.get(k as usize)) {
            f.prefetch_send_lines(p);
        }
    }

    /// A packet was dropped (queue or wire).
    fn lose(&mut self, id: u32) {
        let p = &self.pkts[id as usize];
        let flow = p.flow as usize;
        // The data direction is the one towards the flow's destination host.
        let fwd = self.flow_dst.get(flow).is_some_and(|&d| addr_node(p.dst) as u32 == d);
        let len = p.ip_len() as u64;
        if let Some(fnet) = self.flownet.get_mut(flow) {
            fnet.lost_pkts += 1;
            if fwd {
                fnet.fwd_lost_pkts += 1;
                fnet.fwd_lost_bytes += len;
            }
        }
        self.release(id);
    }

    fn arrive(&mut self, iface: u32) {
        let f = &mut self.ifaces[iface as usize];
        let (id, next) = f.wire_pop().expect("an arrival has a packet in flight");
        if let Some(n) = next {
            self.q.schedule_with(n.at, n.seq, Event::Arrive { iface, pkt: n.id, next: n.next });
        }
        let node = f.peer;
        let dst = self.pkts[id as usize].dst;
        if node_addr(node as usize) != dst {
            let g = self.node_gw[node as usize];
            if g < gateway::ACNS {
                // (The forward's route, computed once for the hook and the queue.)
                let out = self.route(node, dst);
                debug_assert!(out != u32::MAX, "no route from {} to node {}", self.nodes[node as usize].name, addr_node(dst));
                self.gw_forward(g as usize, id, out);
                self.enqueue(out, id);
            } else {
                self.forward(node, id);
            }
            return;
        }
        let pkt = std::mem::replace(&mut self.pkts[id as usize], PLACEHOLDER);
        self.release(id);
        let flow = pkt.flow as usize;
        match pkt.transport {
            Transport::Udp => {
                let fnet = &mut self.flownet[flow];
                fnet.udp_rcvd_bytes += pkt.payload as u64;
                fnet.udp_last_rcvd = self.now;
            }
            Transport::Tcp { .. } => {
                let ep = self.endpoint_at(flow, node);
                let server = ep % 2 == 1;
                if self.prefetch && pkt.payload == 0 {
                    self.eps[ep].prefetch_segments(&mut Prefetch);
                }
                self.with_endpoint(ep, |e, now, out| e.on_segment(&pkt, now, out));
                if server {
                    self.check_fct(flow);
                }
            }
        }
    }

    fn check_fct(&mut self, flow: usize) {
        if !self.fct_pending[flow] {
            return; // not a finite transfer, or already complete
        }
        if let AppSpec::File { size, .. } = self.model.flows[flow].app {
            if let Some(e) = self.endpoint(flow, true) {
                if e.counters.delivered >= size {
                    self.flownet[flow].fct = Some(e.counters.last_delivery);
                    self.fct_pending[flow] = false;
                    self.set_tcp_active(self.tcp_active - 1);
                }
            }
        }
    }

    /// Run `f` on endpoint `ep`, send what it emits, and keep its wake-up armed.
    fn with_endpoint(&mut self, ep: usize, f: impl FnOnce(&mut Endpoint, Time, &mut Vec<SimPacket>)) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.out);
        let e = &mut self.eps[ep];
        f(e, now, &mut out);
        let want = e.poll_at();
        let host = addr_node(e.local_addr()) as u32;
        let flow = e.flow as usize;
        // What the client (the data sender, at an even index) sends is the data direction.
        let (mut fwd_pkts, mut fwd_bytes, mut data) = (0u64, 0u64, false);
        let client = ep.is_multiple_of(2);
        for p in out.drain(..) {
            if p.payload > 0 {
                self.data_packets += 1;
                data = true;
            }
            if client {
                fwd_pkts += 1;
                fwd_bytes += p.ip_len() as u64;
            }
            let id = self.alloc(p);
            self.forward(host, id);
        }
        self.out = out;
        if fwd_pkts > 0 {
            let fnet = &mut self.flownet[flow];
            fnet.fwd_sent_pkts += fwd_pkts;
            fnet.fwd_sent_bytes += fwd_bytes;
            if data && fnet.first_data.is_none() {
                fnet.first_data = Some(now);
            }
        }
        if self.wake[ep].note(want.unwrap_or(NEVER), &mut self.q) {
            self.arm(ep);
        }
    }

    /// Schedule endpoint `ep`'s wake-up at its noted deadline, superseding the pending one.
    fn arm(&mut self, ep: usize) {
        let w = &mut self.wake[ep];
        w.gen = w.gen.wrapping_add(1);
        w.armed = w.due;
        let ev = Event::Wake { ep: ep as u32, gen: w.gen };
        if w.as_set {
            self.q.schedule_with(w.due.max(self.now), w.due_seq, ev);
        } else {
            self.q.schedule(w.due.max(self.now), ev);
        }
    }

    fn wake(&mut self, ep: u32, gen: u32) {
        let w = &mut self.wake[ep as usize];
        if w.gen != gen {
            return; // superseded
        }
        w.armed = NEVER;
        if w.due > self.now {
            // The deadline moved later (or went away) since this wake-up was set: the endpoint
            // has nothing to do now, and the slot says when it will.
            if w.due != NEVER {
                self.arm(ep as usize);
            }
            return;
        }
        if self.prefetch {
            self.prefetch_endpoint(ep as usize, false);
        }
        self.with_endpoint(ep as usize, |e, now, out| {
            if e.poll_at().is_some_and(|t| t <= now) {
                e.on_wakeup(now, out);
            }
        });
        if ep % 2 == 1 {
            self.check_fct(self.eps[ep as usize].flow as usize);
        }
    }

    // ----- applications -----

    fn app_start(&mut self, app: u32) {
        let a = &self.apps[app as usize];
        let flow = a.flow as usize;
        match a.spec.clone() {
            AppSpec::Bulk { write } => {
                self.set_tcp_active(self.tcp_active + 1);
                let client = self.flow_ep[flow] as usize;
                self.with_endpoint(client + 1, |_, _, _| {});
                self.with_endpoint(client, |e, now, out| {
                    e.app_send(None, write);
                    e.connect(now, out);
                });
            }
            AppSpec::File { size, write } => {
                self.set_tcp_active(self.tcp_active + 1);
                self.with_endpoint(self.flow_ep[flow] as usize, |e, now, out| {
                    e.app_send(Some(size), write);
                    e.connect(now, out);
                    e.app_close(now, out);
                });
            }
            AppSpec::TcpRate { write, .. } => {
                self.set_tcp_active(self.tcp_active + 1);
                let client = self.flow_ep[flow] as usize;
                self.with_endpoint(client + 1, |_, _, _| {});
                self.with_endpoint(client, |e, now, out| {
                    e.app_send(Some(write), write);
                    e.connect(now, out);
                });
                let a = &mut self.apps[app as usize];
                a.udp_train(self.now);
                let (next, gen) = (a.udp_sent(self.now), a.gen);
                self.q.schedule(next, Event::AppTick { app, gen });
            }
            AppSpec::UdpCbr { .. } => {
                self.apps[app as usize].udp_train(self.now);
                self.udp_send(app);
            }
            AppSpec::OnOff { mean_on, .. } => {
                let a = &mut self.apps[app as usize];
                let on = Dur::from_secs_f64(a.rng.exponential(mean_on.as_secs_f64()));
                a.on_carry = Dur::ZERO;
                a.on_period(self.now, self.now + on);
                let (at, gen) = (a.on_next(), a.gen);
                self.q.schedule(at, Event::AppTick { app, gen });
            }
        }
    }

    fn app_stop(&mut self, app: u32) {
        let a = &mut self.apps[app as usize];
        a.stopped = true;
        a.gen += 1;
        let flow = a.flow as usize;
        if a.spec.is_tcp() {
            self.with_endpoint(self.flow_ep[flow] as usize, |e, now, out| {
                e.app_stop(now, out);
            });
        }
    }

    fn app_tick(&mut self, app: u32, gen: u32) {
        let a = &mut self.apps[app as usize];
        if a.gen != gen || a.stopped {
            return;
        }
        if let AppSpec::OnOff { mean_on, mean_off, .. } = a.spec {
            if a.on_packet_due(self.now) {
                a.on_sent();
                let next = a.on_next();
                self.udp_emit(app);
                self.q.schedule(next, Event::AppTick { app, gen });
            } else {
                // The on period is over: an off period, then the next on period.
                a.on_period_end();
                let off = Dur::from_secs_f64(a.rng.exponential(mean_off.as_secs_f64()));
                let on = Dur::from_secs_f64(a.rng.exponential(mean_on.as_secs_f64()));
                let resume = self.now + off;
                a.on_period(resume, resume + on);
                self.q.schedule(a.on_next(), Event::AppTick { app, gen });
            }
            return;
        }
        if let AppSpec::TcpRate { write, .. } = a.spec {
            let (next, flow) = (a.udp_sent(self.now), a.flow as usize);
            self.with_endpoint(self.flow_ep[flow] as usize, |e, now, out| e.app_write_more(write, now, out));
            self.q.schedule(next, Event::AppTick { app, gen });
            return;
        }
        self.udp_send(app);
    }

    /// A constant-bit-rate source's packet, and its timer for the next.
    fn udp_send(&mut self, app: u32) {
        let a = &mut self.apps[app as usize];
        let (next, gen) = (a.udp_sent(self.now), a.gen);
        self.udp_emit(app);
        self.q.schedule(next, Event::AppTick { app, gen });
    }

    /// Send one UDP packet of application `app`.
    fn udp_emit(&mut self, app: u32) {
        let a = &self.apps[app as usize];
        let flow = a.flow as usize;
        let fl = &self.model.flows[flow];
        let size = a.udp_size();
        let p = SimPacket {
            src: node_addr(fl.src),
            dst: node_addr(fl.dst),
            sport: 40_000 + (flow as u16 % 20_000),
            dport: fl.port,
            tos: crate::packet::Tos::new(fl.dscp, Ecn::NotEct),
            ttl: 64,
            ip_id: 0,
            transport: Transport::Udp,
            payload: size,
            flow: flow as u32,
            opt33: 0,
        };
        let fnet = &mut self.flownet[flow];
        fnet.udp_sent_pkts += 1;
        fnet.udp_sent_bytes += size as u64;
        fnet.fwd_sent_pkts += 1;
        fnet.fwd_sent_bytes += p.ip_len() as u64;
        fnet.first_data.get_or_insert(self.now);
        self.data_packets += 1;
        let id = self.alloc(p);
        self.forward(fl.src as u32, id);
    }

    // ----- observation -----

    fn observe(&mut self, t: Time, ev: Event) {
        match ev {
            Event::QueueSample => {
                self.sample_queues();
                self.obs.schedule(t + self.model.monitor.queue_sample, Event::QueueSample);
            }
            Event::CwndSample => {
                self.sample_cwnd();
                if let Some(d) = self.model.monitor.cwnd_trace {
                    self.obs.schedule(t + d, Event::CwndSample);
                }
            }
            Event::FlowSample => {
                self.sample_flows(t);
                if let Some(d) = self.model.monitor.flow_sample {
                    self.obs.schedule(t + d, Event::FlowSample);
                }
            }
            Event::WarmupEnd => self.warm = Some(collect::snapshot(self)),
            _ => unreachable!("only observation events are scheduled on the observation queue"),
        }
    }

    fn sample_queues(&mut self) {
        let t = self.now;
        for &k in &self.monitored {
            let occ = self.ifaces[k].qdisc.occupancy::<QPkt>();
            let f = &mut self.info[k];
            f.samples += 1;
            f.sum_pkts += occ.packets as f64;
            f.sum_pkts2 += (occ.packets as f64).powi(2);
            f.sum_bytes += occ.bytes as f64;
            self.samples.queue(t, k as u32, occ.packets, occ.bytes);
        }
    }

    /// Per flow, the payload delivered to the receiving application since the last sample
    /// (the first sample, when the window opens, only notes the counts).
    pub(crate) fn sample_flows(&mut self, t: Time) {
        // Per flow: payload delivered, data-direction packets lost, the sender's triple
        // duplicate ACKs, so far.
        let counts: Vec<[u64; 3]> = (0..self.model.flows.len())
            .map(|f| [self.delivered(f), self.flownet[f].fwd_lost_pkts, self.endpoint(f, false).map_or(0, |e| e.counters.triple_dupacks)])
            .collect();
        self.samples.flows(t, counts);
    }

    /// Payload flow `f` has delivered to its receiving application so far (UDP: received).
    pub(crate) fn delivered(&self, f: usize) -> u64 {
        match self.endpoint(f, true) {
            Some(e) => e.counters.delivered,
            None => self.flownet[f].udp_rcvd_bytes,
        }
    }

    fn sample_cwnd(&mut self) {
        let t = self.now;
        for e in self.eps.iter().step_by(2) {
            if e.is_synchronized() {
                self.samples.cwnd(t, e);
                if self.model.monitor.cc_trace {
                    self.samples.cc_state(t, e);
                }
            }
        }
    }

    pub(crate) fn flow_records(&self) -> Vec<FlowRecord<'_>> {
        self.model
            .flows
            .iter()
            .enumerate()
            .map(|(f, spec)| FlowRecord { spec, start: self.apps[f].start, client: self.endpoint(f, false), server: self.endpoint(f, true), net: &self.flownet[f] })
            .collect()
    }

    /// Flow `flow`'s client or server endpoint (none for a UDP flow).
    pub(crate) fn endpoint(&self, flow: usize, server: bool) -> Option<&Endpoint> {
        let c = self.flow_ep[flow];
        (c != NO_EP).then(|| &self.eps[c as usize + server as usize])
    }
}

/// Bytes of endpoint and interface state above which the engine prefetches (about a core's
/// second-level cache on current x86 machines).
const PREFETCH_ABOVE: usize = 512 * 1024;

/// FQ-CoDel's `hash = "ns3"`: per flow, the 5-tuples ns-3 would hash for its two directions
/// (entry flow · 2 from the client, + 1 from the server), with the addresses and ports ns-3
/// gives the dumbbell as validation/ns3_dumbbell.py builds it: one /24 per access link, in the
/// order s0's, r0's, s1's, r1's, … (link i is 10.⌊i/250⌋.(i mod 250).0), the sender `s{k}` at
/// .1 of link 2k and the receiver `r{k}` at .2 of link 2k + 1; a client's port is its node's
/// next ephemeral port (49153 for the first socket), the server's its flow's `port` (5001). Nodes named otherwise
/// keep Sluice's own address; clients on them their own port.
fn ns3_tuples(model: &Model) -> Vec<[u8; 13]> {
    // ns-3's address of a dumbbell host, if the node is one.
    let ns3_addr = |node: usize| -> Option<u32> {
        let name = &model.nodes[node].name;
        let k = |rest: &str| rest.parse::<u32>().ok().filter(|_| !rest.starts_with('+'));
        let (link, host) = match (name.strip_prefix('s').and_then(k), name.strip_prefix('r').and_then(k)) {
            (Some(k), _) => (2 * k, 1),
            (_, Some(k)) => (2 * k + 1, 2),
            _ => return None,
        };
        Some(10 << 24 | (link / 250) << 16 | (link % 250) << 8 | host)
    };
    let mut next_port = vec![49_153u16; model.nodes.len()];
    let mut out = Vec::with_capacity(model.flows.len() * 2);
    for (f, fl) in model.flows.iter().enumerate() {
        let s = ns3_addr(fl.dst).unwrap_or(node_addr(fl.dst));
        let (c, cport) = match ns3_addr(fl.src) {
            Some(a) => {
                let p = next_port[fl.src];
                if fl.app.is_tcp() {
                    next_port[fl.src] = p.wrapping_add(1);
                }
                (a, p)
            }
            None => (node_addr(fl.src), crate::net::CLIENT_PORTS + (f as u16 % 16_000)),
        };
        out.push(sluice_core::qdisc::fq_codel::ns3_tuple(c, s, 6, cport, fl.port));
        out.push(sluice_core::qdisc::fq_codel::ns3_tuple(s, c, 6, fl.port, cport));
    }
    out
}

/// No deadline: later than any time a run reaches.
const NEVER: Time = Time(u64::MAX);

/// An endpoint's wake-up: the deadline its pending `Wake` event was set for and that event's
/// generation, and the endpoint's earliest deadline as of the last call into it. The endpoint
/// itself runs only when a wake-up finds `due` reached.
#[derive(Copy, Clone, Debug)]
struct WakeSlot {
    /// When the pending wake-up fires ([`NEVER`]: none pending).
    armed: Time,
    /// The endpoint's earliest deadline ([`NEVER`]: none).
    due: Time,
    /// With `as_set`: the sequence number reserved when `due` took its value, which the
    /// wake-up for it is scheduled with (`Ns3Compat::timer_ties_as_set`).
    due_seq: u64,
    gen: u32,
    as_set: bool,
}

impl WakeSlot {
    const IDLE: WakeSlot = WakeSlot { armed: NEVER, due: NEVER, due_seq: 0, gen: 0, as_set: false };

    /// The endpoint's earliest deadline is now `want` ([`NEVER`]: none). With `as_set`, a
    /// deadline that changed was set now: it takes a sequence number from `q` now, so its
    /// wake-up sorts among the events of its instant as if scheduled now, however late the
    /// lazy re-arm schedules it. True when the pending wake-up comes too late for it and must
    /// be superseded ([`Sim::arm`]).
    #[inline]
    fn note(&mut self, want: Time, q: &mut EventQueue) -> bool {
        if self.as_set && want != self.due && want != NEVER {
            self.due_seq = q.reserve();
        }
        self.due = want;
        self.due < self.armed
    }
}

/// `Sim::flow_ep` of a flow without TCP endpoints.
const NO_EP: u32 = u32::MAX;

const PLACEHOLDER: SimPacket = SimPacket {
    src: 0,
    dst: 0,
    sport: 0,
    dport: 0,
    tos: crate::packet::Tos::new(0, Ecn::NotEct),
    ttl: 0,
    ip_id: 0,
    transport: Transport::Udp,
    payload: 0,
    flow: 0,
    opt33: 0,
};

#[cfg(test)]
mod tests {
    use super::*;

    // Lossy, with file transfers that finish and delayed ACKs: deadlines are set, moved later,
    // moved earlier and cleared all through the run.
    const LOSSY: &str = r#"
name = "wake"
duration = "4s"
[topology]
kind = "dumbbell"
pairs = 3
access_rate = "100Mbps"
access_delay = "2ms"
bottleneck = { rate = "10Mbps", delay = "10ms", loss = 0.01 }
queue = { kind = "drop_tail", limit = "20pkt" }
[[flows]]
count = 2
src = "senders"
dst = "receivers"
app = { kind = "bulk" }
[[flows]]
count = 1
src = "senders"
dst = "receivers"
app = { kind = "file", size = "200kB" }
"#;

    // tests `bbr.cycle_stream`: under "flow" each BBR flow draws ProbeBW's phases from a stream
    // of its own (derived from the seed and the flow's name), under "shared" (ns-3.44's
    // `TcpBbr`, whose `Stream` attribute sets stream 4 in every socket) all three flows draw the
    // same numbers.
    #[test]
    fn bbr_flows_draw_from_their_own_stream_or_from_one_shared() {
        for (stream, shared) in [("flow", false), ("shared", true)] {
            let text = LOSSY.replace("[topology]", &format!("[tcp]\ncc = \"bbr\"\n[tcp.bbr]\ncycle_stream = \"{stream}\"\n[topology]"));
            let model = crate::scenario::load_str(&text, None).unwrap();
            let run = Stepper::new(&model, &RunOptions::default()).unwrap();
            let draws: Vec<Vec<u32>> = (0..3)
                .map(|f| {
                    let mut r = run.sim.endpoint(f, false).and_then(|e| e.cc_rng()).expect("a BBR sender").clone();
                    (0..8).map(|_| r.next_u32()).collect()
                })
                .collect();
            let same = [draws[0] == draws[1], draws[1] == draws[2], draws[0] == draws[2]];
            assert_eq!(same, [shared; 3], "cycle_stream = {stream}: {draws:?}");
        }
    }

    // After every event, each endpoint's slot holds its earliest deadline, and a wake-up is
    // pending at or before it: no deadline goes unserved, though most wake-ups that fire find
    // it moved and re-arm without running the endpoint.
    #[test]
    fn every_deadline_has_a_wake_up_at_or_before_it() {
        let model = crate::scenario::load_str(LOSSY, None).unwrap();
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        let (mut checked, mut rearmed) = (0u64, 0u64);
        let mut armed_before = vec![NEVER; run.sim.eps.len()];
        while run.advance(1) {
            let sim = &run.sim;
            for (ep, e) in sim.eps.iter().enumerate() {
                let w = sim.wake[ep];
                assert_eq!(w.due, e.poll_at().unwrap_or(NEVER), "endpoint {ep}'s slot at {:?}", sim.now);
                assert!(w.armed <= w.due, "endpoint {ep}: deadline {:?} but wake-up at {:?}", w.due, w.armed);
                if w.armed != armed_before[ep] && armed_before[ep] == sim.now && w.armed > sim.now {
                    rearmed += 1;
                }
                armed_before[ep] = w.armed;
                checked += 1;
            }
        }
        assert!(checked > 50_000, "checked {checked}, re-armed {rearmed}");
        assert!(rearmed > 10, "wake-ups re-armed from the slot: {rearmed}");
    }

    // FQ-CoDel's `hash = "ns3"` sees the 5-tuples ns-3 gives validation/ns3_dumbbell.py's
    // dumbbell: access link i is the /24 10.⌊i/250⌋.(i mod 250).0, links in the order s0, r0,
    // s1, r1, …; sender k is .1 on link 2k, receiver k .2 on link 2k + 1; the client's port is
    // its node's first ephemeral port 49153, the server's 5001. By hand: flow 0 = 10.0.0.1 ->
    // 10.0.1.2; flow 124 = link 248 -> link 249 = 10.0.248.1 -> 10.0.249.2; flow 125 = link 250
    // -> 251 = 10.1.0.1 -> 10.1.1.2 (the third octet wraps at 250, as the script counts).
    // Entry 2f is the client's direction, 2f + 1 the server's (ports and addresses swapped).
    #[test]
    fn ns3_hash_tuples_follow_the_ns3_dumbbell_plan() {
        let text = "name = \"t\"\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\npairs = 126\naccess_rate = \"100Mbps\"\n\
                    bottleneck = { rate = \"10Mbps\", delay = \"1ms\" }\nqueue = { kind = \"fq_codel\", hash = \"ns3\" }\n\
                    [[flows]]\ncount = 126\nsrc = \"senders\"\ndst = \"receivers\"\napp = { kind = \"bulk\" }\n";
        let model = crate::scenario::load_str(text, None).unwrap();
        let t = ns3_tuples(&model);
        assert_eq!(t.len(), 252);
        let tuple = |a: [u8; 4], b: [u8; 4], sp: u16, dp: u16| sluice_core::qdisc::fq_codel::ns3_tuple(u32::from_be_bytes(a), u32::from_be_bytes(b), 6, sp, dp);
        assert_eq!(t[0], tuple([10, 0, 0, 1], [10, 0, 1, 2], 49_153, 5_001));
        assert_eq!(t[1], tuple([10, 0, 1, 2], [10, 0, 0, 1], 5_001, 49_153));
        assert_eq!(t[248], tuple([10, 0, 248, 1], [10, 0, 249, 2], 49_153, 5_001));
        assert_eq!(t[250], tuple([10, 1, 0, 1], [10, 1, 1, 2], 49_153, 5_001));
        // And a packet's key picks its entry: flow · 2, + 1 from the server's port.
        let mut p = PLACEHOLDER;
        p.transport = crate::packet::Transport::Tcp { seq: 1, ack: 1, flags: 0x10, window: 100, opts: Default::default(), bits: Default::default() };
        (p.flow, p.sport, p.dport) = (125, 49_277, crate::net::SERVER_PORT);
        assert_eq!(sluice_core::qdisc::Queued::flow_key(&QPkt::of(0, &p)), 250);
        (p.sport, p.dport) = (crate::net::SERVER_PORT, 49_277);
        assert_eq!(sluice_core::qdisc::Queued::flow_key(&QPkt::of(0, &p)), 251);
        // Hosts not named as a dumbbell's keep Sluice's addresses, and each client its own
        // port, 49,152 + its flow's index.
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let model = chain(&[hop], QueueLimit::Packets(10), 1, &[(T0, AppSpec::BULK, None), (T0, AppSpec::BULK, None)]);
        let (h0, h1, port) = (node_addr(0), node_addr(1), crate::net::SERVER_PORT);
        let n = |a: u32, b: u32, sp: u16, dp: u16| sluice_core::qdisc::fq_codel::ns3_tuple(a, b, 6, sp, dp);
        assert_eq!(ns3_tuples(&model), [n(h0, h1, 49_152, port), n(h1, h0, port, 49_152), n(h0, h1, 49_153, port), n(h1, h0, port, 49_153)]);
    }

    /// A one-pair dumbbell carrying one flow with application `app` for `duration`, warm-up
    /// `warmup`.
    fn one_flow(app: &str, duration: &str, warmup: &str) -> String {
        format!(
            "name = \"one\"\nduration = \"{duration}\"\nwarmup = \"{warmup}\"\n[topology]\nkind = \"dumbbell\"\npairs = 1\naccess_rate = \"100Mbps\"\n\
             bottleneck = {{ rate = \"50Mbps\", delay = \"5ms\" }}\nqueue = {{ kind = \"drop_tail\", limit = \"100pkt\" }}\n[[flows]]\nsrc = \"s0\"\ndst = \"r0\"\napp = {app}\n"
        )
    }

    // A constant-bit-rate source keeps its rate exactly, however each gap rounds to the ns:
    // 1-byte packets at 32.62 Mbit/s leave every 245.25 ns, so 2 s send 8,155,000 B (not
    // 8,163,266, as 245 ns gaps would).
    #[test]
    fn udp_cbr_rate_is_exact_over_the_run() {
        let text = one_flow("{ kind = \"udp_cbr\", rate = \"32.62Mbps\", packet_size = \"1B\" }", "2s", "0s");
        let s = crate::run_str(&text, None, &RunOptions::default()).unwrap().summary;
        let sent = s.flows[0].payload_bytes_sent;
        assert!((8_155_000..=8_155_001).contains(&sent), "sent {sent} B");
        // A rate that divides evenly is unchanged: 1 Mbit/s of 1000 B packets, one per 8 ms.
        let text = one_flow("{ kind = \"udp_cbr\", rate = \"1Mbps\", packet_size = \"1000B\" }", "1s", "0s");
        let s = crate::run_str(&text, None, &RunOptions::default()).unwrap().summary;
        assert_eq!(s.flows[0].data_packets_sent, 125);
    }

    // An on-off source's long-run rate is rate · mean_on / (mean_on + mean_off), whether its
    // periods are short next to a packet time (1 ms against 8 ms: a packet every eighth on
    // period, not one each) or long (100 ms on, 300 ms off).
    #[test]
    fn on_off_long_run_rate_is_the_duty_cycle() {
        for (on, off, secs, share) in [("1ms", "1ms", 400u64, 0.5), ("100ms", "300ms", 4000, 0.25)] {
            let app = format!("{{ kind = \"on_off\", rate = \"1Mbps\", packet_size = \"1000B\", mean_on = \"{on}\", mean_off = \"{off}\" }}");
            let text = one_flow(&app, &format!("{secs}s"), "0s");
            let s = crate::run_str(&text, None, &RunOptions::default()).unwrap().summary;
            let want = 125_000.0 * secs as f64 * share;
            let sent = s.flows[0].payload_bytes_sent as f64;
            assert!((sent / want - 1.0).abs() < 0.03, "{on}/{off}: sent {sent} B, want {want}");
        }
    }

    // Every per-flow count covers the measurement window [warmup, duration): 1 s of a
    // 1 Mbit/s source of 1000 B packets is 125 packets and 125,000 B, whatever ran before.
    #[test]
    fn per_flow_counts_exclude_the_warm_up() {
        let text = one_flow("{ kind = \"udp_cbr\", rate = \"1Mbps\", packet_size = \"1000B\" }", "10s", "9s");
        let f = &crate::run_str(&text, None, &RunOptions::default()).unwrap().summary.flows[0];
        assert_eq!((f.data_packets_sent, f.payload_bytes_sent), (125, 125_000));
        let text = one_flow("{ kind = \"bulk\" }", "3s", "2s");
        let f = &crate::run_str(&text, None, &RunOptions::default()).unwrap().summary.flows[0];
        // Segments are full-sized but for a few (recovery sends some short ones): packets and
        // bytes agree within 2 %, where counting the warm-up's packets too would add half.
        let full = f.payload_bytes_sent / 1448;
        assert!(f.data_packets_sent >= full && f.data_packets_sent <= full + full / 50, "{} packets for {} B", f.data_packets_sent, f.payload_bytes_sent);
    }

    // ----- link timing, by hand-computed nanoseconds -----
    //
    // The models below send single datagrams: flow k is a UDP source whose second packet would
    // be due 7,776 s after its first (972 B at 1 bit/s), long after the 1 s run, so each flow
    // is one packet and its counters say what became of that packet. A 972-byte payload makes
    // a 1000-byte IP packet (20 B IPv4 + 8 B UDP).

    use crate::model::{DirSpec, FlowSpec, LinkSpec, MonitorSpec, NodeSpec};
    use sluice_core::qdisc::{DropTailConfig, QdiscConfig};
    use sluice_core::units::QueueLimit;
    use sluice_core::Rate;

    /// Start of the flows in the models below: 5 ms.
    const T0: u64 = 5_000_000;

    /// One direction of a link in a chain: rate, propagation delay, link-layer bytes per packet.
    #[derive(Clone, Copy)]
    struct Hop {
        rate: Rate,
        delay: Dur,
        l2: u32,
    }

    /// Hosts `h0` and `h1` joined by `hops` (routers between them); every queue is drop-tail of
    /// `limit` with a device queue of `device` packets. One flow per entry of `flows`,
    /// `(start_ns, application, stop_ns)`, from `h0` to `h1`.
    fn chain(hops: &[Hop], limit: QueueLimit, device: u32, flows: &[(u64, AppSpec, Option<u64>)]) -> Model {
        let n = hops.len() + 1;
        let nodes = (0..n)
            .map(|i| match i {
                0 => NodeSpec { name: "h0".into(), kind: NodeKind::Host },
                i if i == n - 1 => NodeSpec { name: "h1".into(), kind: NodeKind::Host },
                i => NodeSpec { name: format!("r{i}"), kind: NodeKind::Router },
            })
            .collect::<Vec<_>>();
        let dir = |name: String| DirSpec { qdisc: QdiscConfig::DropTail(DropTailConfig { limit }), loss: sluice_core::loss::LossModel::NONE, queue_name: name, pcap: false };
        let links = hops
            .iter()
            .enumerate()
            .map(|(i, h)| LinkSpec {
                a: i,
                b: i + 1,
                rate: h.rate,
                delay: h.delay,
                jitter: Dur::ZERO,
                ab: dir(format!("{}->{}", nodes[i].name, nodes[i + 1].name)),
                ba: dir(format!("{}->{}", nodes[i + 1].name, nodes[i].name)),
                l2_overhead: h.l2,
                device_queue: device,
            })
            .collect();
        let flows = flows
            .iter()
            .enumerate()
            .map(|(k, (start, app, stop))| FlowSpec {
                name: format!("f{k}"),
                src: 0,
                dst: n - 1,
                port: if app.is_tcp() { crate::net::SERVER_PORT } else { crate::net::UDP_PORT },
                dscp: 0,
                app: app.clone(),
                start: StartSpec::At(Time(*start)),
                stop: stop.map(Time),
                tcp: crate::tcp::TcpConfig::default(),
            })
            .collect();
        Model { name: "chain".into(), seed: 1, duration: Dur::from_secs(1), warmup: Dur::ZERO, nodes, links, flows, monitor: MonitorSpec::default(), notes: vec![], gateways: vec![], ngwa: vec![], acns: vec![] }
    }

    /// A source of one 1000-byte IP packet (see above).
    const ONE: AppSpec = AppSpec::UdpCbr { rate: Rate::bps(1), packet_size: 972 };

    /// Flows of one packet each, all from `h0` at the given instants.
    fn singles(starts: &[u64]) -> Vec<(u64, AppSpec, Option<u64>)> {
        starts.iter().map(|&t| (t, ONE, None)).collect()
    }

    /// Runs `model` one event at a time; per flow, the instants its datagrams reached `h1`
    /// and how many it lost.
    fn deliveries(model: &Model) -> Vec<(Vec<u64>, u64)> {
        let mut run = Stepper::new(model, &RunOptions::default()).unwrap();
        let mut seen = vec![(Vec::new(), 0); model.flows.len()];
        let mut rcvd = vec![0u64; model.flows.len()];
        while run.advance(1) {
            for (f, net) in run.sim.flownet.iter().enumerate() {
                if net.udp_rcvd_bytes != rcvd[f] {
                    seen[f].0.push(run.sim.now.0);
                    rcvd[f] = net.udp_rcvd_bytes;
                }
            }
        }
        for (f, net) in run.sim.flownet.iter().enumerate() {
            seen[f].1 = net.lost_pkts;
        }
        seen
    }

    // Serialization takes (IP length + link-layer bytes) · 8 / rate, ns-3's point-to-point
    // link sending 2 bytes of PPP with every IP packet; the packet arrives one propagation
    // delay after its last bit left. A second packet sent at the same instant waits in the
    // device queue and arrives one serialization time later. At 10 Mbit/s a byte takes 800 ns:
    //   l2 =  0: 1000 B · 800 ns =   800,000 ns; arrivals 5 ms + 0.8 ms + 1 ms = 6,800,000, then 7,600,000
    //   l2 =  2: 1002 B · 800 ns =   801,600 ns; arrivals 6,801,600 and 7,603,200
    //   l2 = 38: 1038 B · 800 ns =   830,400 ns; arrivals 6,830,400 and 7,660,800
    // At 7 Mbit/s, 1002 B take 8016/7e6 s = 1,145,142.86 ns, rounded to 1,145,143 per packet:
    //   arrivals 5 ms + 1,145,143 + 1 ms = 7,145,143 and 8,290,286.
    #[test]
    fn serialization_counts_the_link_header() {
        for (rate, l2, first, second) in [(10, 0, 6_800_000, 7_600_000), (10, 2, 6_801_600, 7_603_200), (10, 38, 6_830_400, 7_660_800), (7, 2, 7_145_143, 8_290_286)] {
            let hop = Hop { rate: Rate::mbps(rate), delay: Dur::from_millis(1), l2 };
            let got = deliveries(&chain(&[hop], QueueLimit::Packets(100), 1, &singles(&[T0, T0])));
            assert_eq!(got, vec![(vec![first], 0), (vec![second], 0)], "{rate} Mbit/s, l2_overhead {l2}");
        }
    }

    // Store and forward over two hops: each hop adds its own serialization and propagation.
    // 1002 B (with PPP) take 80,160 ns at 100 Mbit/s and 801,600 ns at 10 Mbit/s, so a packet
    // sent at 5 ms reaches h1 at 5,000,000 + 80,160 + 2,000,000 + 801,600 + 5,000,000
    // = 12,881,760 ns. A second sent with it reaches r1 80,160 ns later, 2,160,320 ns after
    // the start, while the first is still on the slow link (until 2,881,760): it leaves r1 then
    // and arrives 801,600 ns after the first, at 13,683,360.
    #[test]
    fn each_hop_adds_serialization_and_propagation() {
        let hops = [Hop { rate: Rate::mbps(100), delay: Dur::from_millis(2), l2: 2 }, Hop { rate: Rate::mbps(10), delay: Dur::from_millis(5), l2: 2 }];
        let got = deliveries(&chain(&hops, QueueLimit::Packets(100), 1, &singles(&[T0, T0])));
        assert_eq!(got, vec![(vec![12_881_760], 0), (vec![13_683_360], 0)]);
        // Propagation alone: over one 10 Mbit/s hop of 3 ms, 5 ms + 801,600 ns + 3 ms.
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(3), l2: 2 };
        assert_eq!(deliveries(&chain(&[hop], QueueLimit::Packets(100), 1, &singles(&[T0])))[0], (vec![8_801_600], 0));
    }

    // A drop-tail queue of N packets holds N, in the simulator as in the discipline: a burst
    // of seven packets at one instant, each sent by an event of its own, puts one on the wire
    // and N = 3 in the discipline, and drops the rest, the last to arrive. With a device queue
    // of one packet (or none) the first packet filled it, so it stays stopped until the events
    // of the instant have run (ns-3's wake) and the other six meet the discipline alone; a
    // device queue of two takes two of them first. Those kept leave back to back: packet k
    // arrives at 5 ms + (k + 1) · 801,600 + 1 ms. A byte limit of 3000 B holds three
    // 1000-byte packets, one of 2999 B two.
    #[test]
    fn drop_tail_of_n_packets_drops_the_next_one() {
        for (limit, device, kept) in [
            (QueueLimit::Packets(3), 0, 4),
            (QueueLimit::Packets(3), 1, 4),
            (QueueLimit::Packets(3), 2, 6),
            (QueueLimit::Bytes(3000), 1, 4),
            (QueueLimit::Bytes(2999), 1, 3),
        ] {
            let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
            let got = deliveries(&chain(&[hop], limit, device, &singles(&[T0; 7])));
            let want: Vec<(Vec<u64>, u64)> = (0..7u64).map(|k| if k < kept { (vec![T0 + (k + 1) * 801_600 + 1_000_000], 0) } else { (vec![], 1) }).collect();
            assert_eq!(got, want, "{limit:?}, device queue {device}");
        }
    }

    // What happens at the instant a transmission ends (the ordering rule of `queue`, with
    // `Iface::idle_at` and `Sim::tx_done`): an event that sorts before the transmission's
    // transmit-complete still finds the serializer busy; the transmit-complete starts the
    // packet waiting in the device queue; refilling the device from the discipline waits
    // until every other event of that instant has run (ns-3 wakes its device queue with a new
    // event), so those events still find the discipline as it was.
    //
    // 10 Mbit/s, 1 ms, drop-tail of 2 packets, device queue of 1; 1002 B take 801,600 ns.
    // At 5 ms, f0, f1 and f2 send: f0 is serialized until T1 = 5,801,600, f1 and f2 wait in
    // the discipline while the device queue is stopped, and the refill moves f1 to the device.
    // g sends 1000-byte payloads (1030 B on the wire, 824,000 ns) every 800,000 ns from
    // 5,001,600: its first finds the device full and room in the discipline, behind f2. f3
    // starts at T1, but its start was scheduled before f0's transmission began, so it runs
    // before that transmit-complete: link busy, device and discipline full, dropped. g's second
    // is due at T1, its timer set after f0's transmission began, so it runs after the
    // transmit-complete has started f1 but before the refill: the discipline still holds f2
    // and g's first, dropped. The refill then moves f2 to the device. Arrivals: f0 at 5 ms +
    // 801,600 + 1 ms = 6,801,600; f1 at 7,603,200; f2 at 8,404,800; g's first at 7,404,800 +
    // 824,000 + 1 ms = 9,228,800.
    #[test]
    fn one_instant_at_a_busy_link_follows_the_ordering_rule() {
        let t1 = T0 + 801_600;
        let g = AppSpec::UdpCbr { rate: Rate::mbps(10), packet_size: 1000 };
        let mut flows = singles(&[T0, T0, T0, t1]);
        flows.push((t1 - 800_000, g, Some(t1 + 1)));
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let got = deliveries(&chain(&[hop], QueueLimit::Packets(2), 1, &flows));
        assert_eq!(got, vec![(vec![6_801_600], 0), (vec![7_603_200], 0), (vec![8_404_800], 0), (vec![], 1), (vec![9_228_800], 1)]);
    }

    // A packet that grows on its way out (NGWA's router inserting its 8-byte IP option 33) is
    // serialized at its grown length, whichever way it reaches the wire: passing an idle link
    // and empty discipline, passing into the device queue of a busy link, or dequeued from
    // the discipline by the transmit-complete's refill. h0 - r1 - h1, NGWA on r1; three
    // hand-made TCP segments (20 B IP + 20 B TCP + 1000 B payload = 1040 B) offered to r1->h1
    // (10 Mbit/s, 2 B PPP, device queue of 1) at 5 ms: A goes to the wire, B to the device, C
    // to the discipline. Each leaves at 1048 B, (1048 + 2) · 800 ns = 840,000 ns on the link
    // (at 1040 B it would be 833,600; shrunk by 8 B, 827,200), so the transmissions end at
    // 5,840,000, 6,680,000 and 7,520,000.
    #[test]
    fn a_packet_stamped_on_the_way_out_is_serialized_at_its_grown_length() {
        use crate::model::NgwaSpec;
        use crate::packet::{SegBits, TcpOptions, Tos, Transport};
        use sluice_core::packet::tcp_flags;
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        // A TCP flow that starts after the test's packets are gone, so that h1 has an
        // endpoint (listening: it ignores the segments).
        let mut model = chain(&[hop, hop], QueueLimit::Packets(10), 1, &[(500_000_000, AppSpec::BULK, None)]);
        model.ngwa.push(NgwaSpec { node: 1, config: sluice_core::control::NgwaConfig::default() });
        model.monitor.rewrite_trace = true;
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        let k = run.sim.info.iter().position(|i| i.name == "r1->h1").unwrap() as u32;
        let (h0, h1) = (crate::net::node_addr(0), crate::net::node_addr(2));
        let seg = SimPacket {
            src: h0,
            dst: h1,
            sport: 40_000,
            dport: 80,
            tos: Tos::new(0, Ecn::NotEct),
            ttl: 64,
            ip_id: 0,
            transport: Transport::Tcp { seq: 1, ack: 1, flags: tcp_flags::ACK, window: 1000, opts: TcpOptions::default(), bits: SegBits::default() },
            payload: 1000,
            flow: 0,
            opt33: 0,
        };
        assert_eq!(seg.ip_len(), 1040);
        run.sim.now = Time(T0);
        for _ in 0..3 {
            let id = run.sim.alloc(seg.clone());
            run.sim.enqueue(k, id);
        }
        let mut ends = vec![run.sim.ifaces[k as usize].busy_until.0];
        while run.sim.now < Time(T0 + 10_000_000) && run.advance(1) {
            let b = run.sim.ifaces[k as usize].busy_until.0;
            if *ends.last().unwrap() != b {
                ends.push(b);
            }
        }
        assert_eq!(ends, [5_840_000, 6_680_000, 7_520_000]);
        assert_eq!(run.sim.stampers[0].ngwa.stats.inserted, 3);
        // Each stamp is traced when its packet leaves, with the value it carries.
        let rows = run.sim.stampers[0].trace.as_ref().unwrap();
        assert_eq!(rows.iter().map(|r| (r.t_ns, r.from)).collect::<Vec<_>>(), [(T0, None), (T0, None), (5_840_000, None)]);
        assert!(rows.iter().all(|r| r.to == rows[0].to && r.to > 0), "{rows:?}");
        let w = rows[0].to;
        // A segment already carrying a larger value (an 8-byte option, so 1048 B) has it
        // lowered in place: traced with the value it came with, serialized at its own length.
        let mut bits = SegBits::default();
        bits.set_opt33_len(Some(sluice_core::packet::OptLen::Eight));
        let carried = SimPacket { transport: Transport::Tcp { seq: 1, ack: 1, flags: tcp_flags::ACK, window: 1000, opts: TcpOptions::default(), bits }, opt33: u32::MAX, ..seg };
        assert_eq!(carried.ip_len(), 1048);
        let t = run.sim.now;
        let id = run.sim.alloc(carried);
        run.sim.enqueue(k, id);
        assert_eq!(run.sim.ifaces[k as usize].busy_until, t + Dur(840_000));
        let rows = run.sim.stampers[0].trace.as_ref().unwrap();
        assert_eq!((rows.len(), rows[3].t_ns, rows[3].from, rows[3].to), (4, t.0, Some(u32::MAX), w));
        assert_eq!(run.sim.stampers[0].ngwa.stats.lowered, 1);
    }

    /// Enqueue `n` copies of packet 0 on interface `k` at the present instant.
    fn enqueue_copies(sim: &mut Sim<'_>, k: u32, n: usize) {
        let p = sim.pkts[0].clone();
        for _ in 0..n {
            let id = sim.alloc(p.clone());
            sim.enqueue(k, id);
        }
    }

    // A packet offered while the device's refill is pending goes to the discipline, even into
    // a device with room: the refill moves it later in the same instant (ns-3's device queue
    // wakes with a new event), so a second packet of that instant finds the discipline full.
    // 10 Mbit/s, 1 ms, drop-tail of 1, device queue of 1; 1002 B take 801,600 ns. f0 and f1
    // send at 5 ms: f0 on the wire until T1 = 5,801,600, f1 in the device. An event placed at
    // T1 after f0's transmission began makes the transmit-complete at T1 defer its refill; it
    // starts f1, and then C and D are offered: C joins the discipline, D finds it full and is
    // dropped. Arrivals: f0 5 ms + 801,600 + 1 ms = 6,801,600; f1 7,603,200; C 8,404,800.
    // (Into the device at once, C would leave the discipline free for D, delivered at
    // 9,206,400.)
    /// One event per call; the instant of each event after which the UDP bytes received grew
    /// is pushed to `arrivals`.
    fn arrival_stepper(arrivals: &mut Vec<u64>) -> impl FnMut(&mut Stepper) + '_ {
        let mut rcvd = 0;
        move |run: &mut Stepper| {
            assert!(run.advance(1));
            let r: u64 = run.sim.flownet.iter().map(|f| f.udp_rcvd_bytes).sum();
            if r != rcvd {
                arrivals.push(run.sim.now.0);
                rcvd = r;
            }
        }
    }

    #[test]
    fn a_packet_offered_while_the_refill_is_pending_waits_in_the_discipline() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let model = chain(&[hop], QueueLimit::Packets(1), 1, &singles(&[T0, T0]));
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        let k = run.sim.info.iter().position(|i| i.name == "h0->h1").unwrap();
        let t1 = Time(T0 + 801_600);
        let mut arrivals = Vec::new();
        let mut step = arrival_stepper(&mut arrivals);
        while run.sim.ifaces[k].device_is_empty() {
            step(&mut run);
        }
        assert_eq!((run.sim.now, run.sim.ifaces[k].busy_until), (Time(T0), t1));
        // The application stop of f0, which has sent its one packet: nothing happens but an
        // event at T1 after the transmit-complete.
        run.sim.q.schedule(t1, Event::AppStop { app: 0 });
        while !run.sim.ifaces[k].flag(Flags::REFILL_PENDING) {
            step(&mut run);
        }
        assert_eq!(run.sim.now, t1);
        enqueue_copies(&mut run.sim, k as u32, 2);
        while run.sim.now < Time(T0 + 100_000_000) {
            step(&mut run);
        }
        drop(step);
        assert_eq!(arrivals, [6_801_600, 7_603_200, 8_404_800]);
        assert_eq!(run.sim.flownet.iter().map(|f| f.lost_pkts).sum::<u64>(), 1);
    }

    // The transmit-complete starts the device's waiting packet itself, at once (ns-3's
    // `PointToPointNetDevice::TransmitComplete` dequeues it from the device queue in the same
    // event); only the refill from the discipline waits behind the other events of that
    // instant. So the next transmission's transmit-complete takes its place in the tie order
    // at the transmit-complete, before the events scheduled after it in that instant (it would
    // be behind them if the packet waited for the refill). 10 Mbit/s, 1 ms, drop-tail of 2,
    // device queue of 1; 1002 B take 801,600 ns. f0, f1, f2 send at 5 ms: f0 on the wire until
    // T1 = 5,801,600, f1 and f2 in the discipline until the refill of that instant moves f1 to
    // the device. An event placed at T1 after f0's transmission began makes the
    // transmit-complete at T1 defer its refill: right after it, f1
    // is on the wire (until 6,603,200) and the device empty, the refill pending. Arrivals: f0
    // 6,801,600, f1 7,603,200, f2 8,404,800.
    #[test]
    fn a_transmit_complete_starts_the_waiting_packet_at_once() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let model = chain(&[hop], QueueLimit::Packets(2), 1, &singles(&[T0, T0, T0]));
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        let k = run.sim.info.iter().position(|i| i.name == "h0->h1").unwrap();
        let t1 = Time(T0 + 801_600);
        let mut arrivals = Vec::new();
        let mut step = arrival_stepper(&mut arrivals);
        while run.sim.now < Time(T0) || run.sim.ifaces[k].qdisc_idle() || run.sim.ifaces[k].device_is_empty() {
            step(&mut run);
        }
        assert_eq!((run.sim.ifaces[k].busy_until, run.sim.ifaces[k].device_len()), (t1, 1));
        run.sim.q.schedule(t1, Event::AppStop { app: 0 });
        while !run.sim.ifaces[k].flag(Flags::REFILL_PENDING) {
            step(&mut run);
        }
        assert_eq!(run.sim.now, t1);
        assert_eq!(run.sim.ifaces[k].busy_until, Time(T0 + 2 * 801_600), "f1 started by the transmit-complete");
        assert!(run.sim.ifaces[k].device_is_empty());
        while run.sim.now < Time(T0 + 100_000_000) {
            step(&mut run);
        }
        drop(step);
        assert_eq!(arrivals, [6_801_600, 7_603_200, 8_404_800]);
    }

    // A transmission with nothing waiting behind it has no transmit-complete: packets offered
    // at the instant it ends find the link idle (the first goes to the wire), then the device
    // queue with room (the second goes there at once, no refill being pending), then the
    // discipline. 10 Mbit/s, 1 ms, drop-tail of 1, device queue of 1; 1002 B take 801,600 ns.
    // f0 and f1 send at 5 ms: f0 on the wire until T1 = 5,801,600, f1 in the device; at T1 the
    // transmit-complete starts f1, until T2 = 6,603,200, with nothing behind it. At T2 C, D and
    // E are offered, after an event placed at T2 once f1's transmission began. Arrivals: f0
    // 6,801,600, f1 7,603,200, then C, D, E one serialization apart: 8,404,800, 9,206,400,
    // 10,008,000; nothing lost. (A needless transmit-complete at T2 would defer a refill behind
    // that event: D would go to the discipline and E, finding it full, would be dropped.)
    #[test]
    fn a_link_with_nothing_waiting_ends_its_transmission_without_a_transmit_complete() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let model = chain(&[hop], QueueLimit::Packets(1), 1, &singles(&[T0, T0]));
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        let k = run.sim.info.iter().position(|i| i.name == "h0->h1").unwrap();
        let t2 = Time(T0 + 2 * 801_600);
        let mut arrivals = Vec::new();
        let mut step = arrival_stepper(&mut arrivals);
        while run.sim.ifaces[k].busy_until != t2 {
            step(&mut run);
        }
        run.sim.q.schedule(t2, Event::AppStop { app: 0 });
        while run.sim.now < t2 {
            step(&mut run);
        }
        enqueue_copies(&mut run.sim, k as u32, 3);
        while run.sim.now < Time(T0 + 100_000_000) {
            step(&mut run);
        }
        drop(step);
        assert_eq!(arrivals, [6_801_600, 7_603_200, 8_404_800, 9_206_400, 10_008_000]);
        assert_eq!(run.sim.flownet.iter().map(|f| f.lost_pkts).sum::<u64>(), 0);
    }

    // A packet the discipline hands to an idle device leaves the device queue stopped until the
    // events already due at that instant have run (ns-3: the device enqueues, stops its queue
    // as full, dequeues to transmit, and wakes the queue with `ScheduleNow`), so a packet
    // offered by one of those events waits in the discipline and the refill moves it. An
    // FQ-CoDel queue (which never passes packets through) on h0->h1, 10 Mbit/s, 1 ms, device
    // queue of 1; two one-packet flows start at 5 ms, each from its own event. After the first
    // event f0 is on the wire (until 5,801,600) and the refill is pending; the second event
    // puts f1 in the discipline; the refill moves it to the device. With f0 alone no event is
    // due after it and nothing is deferred. Arrivals 6,801,600 and 7,603,200 either way. The
    // same with an empty drop-tail queue, which f0 passes straight through to the idle device:
    // f1 is not passed on into the device, it waits in the discipline for the refill.
    #[test]
    fn the_device_queue_waits_for_the_instants_events_before_its_refill() {
        use sluice_core::qdisc::{FqCodelConfig, FqHash, Perturbation};
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        for (both, fq) in [(true, true), (false, true), (true, false), (false, false)] {
            let starts: &[u64] = if both { &[T0, T0] } else { &[T0] };
            let mut model = chain(&[hop], QueueLimit::Packets(100), 1, &singles(starts));
            if fq {
                model.links[0].ab.qdisc = QdiscConfig::FqCodel(FqCodelConfig { perturbation: Perturbation::Fixed(0), hash: FqHash::Sluice, ..FqCodelConfig::default() });
            }
            let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
            let k = run.sim.info.iter().position(|i| i.name == "h0->h1").unwrap();
            let mut arrivals = Vec::new();
            let mut step = arrival_stepper(&mut arrivals);
            while run.sim.ifaces[k].busy_until != Time(T0 + 801_600) {
                step(&mut run);
            }
            let f = &run.sim.ifaces[k];
            assert_eq!((run.sim.now, f.flag(Flags::REFILL_PENDING), f.device_len()), (Time(T0), both, 0), "both = {both}, fq = {fq}");
            if both {
                step(&mut run); // f1's start
                let f = &run.sim.ifaces[k];
                assert_eq!((f.device_len(), f.qdisc.stats.queued_pkts()), (0, 1), "f1 waits in the discipline");
                step(&mut run); // the refill
                let f = &run.sim.ifaces[k];
                assert_eq!((run.sim.now, f.device_len(), f.qdisc.stats.queued_pkts(), f.flag(Flags::REFILL_PENDING)), (Time(T0), 1, 0, false));
            }
            while run.sim.now < Time(T0 + 100_000_000) {
                step(&mut run);
            }
            drop(step);
            assert_eq!(arrivals, if both { vec![6_801_600, 7_603_200] } else { vec![6_801_600] });
        }
    }

    // A loss list that counts data segments only (`matching = "data"`) counts TCP segments
    // with payload and nothing else: with packet 1 listed on h0->h1, the client's SYN and its
    // ACK pass, and the first data segment (1448 B payload + 20 B IP + 20 B TCP + 12 B
    // timestamp option = 1500 B) is the one lost, once, and counted against the link.
    #[test]
    fn a_data_only_loss_list_counts_tcp_segments_with_payload() {
        use sluice_core::loss::{ListMatch, LossModel};
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let mut model = chain(&[hop], QueueLimit::Packets(100), 1, &[(T0, AppSpec::File { size: 4 * 1448, write: 0 }, None)]);
        model.links[0].ab.loss = LossModel::List { packets: vec![1], matching: ListMatch::Data };
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        while run.advance(1_000) {}
        let k = run.sim.info.iter().position(|i| i.name == "h0->h1").unwrap();
        let f = &run.sim.flownet[0];
        assert_eq!((f.lost_pkts, f.fwd_lost_pkts, f.fwd_lost_bytes, run.sim.info[k].link_losses), (1, 1, 1500, 1));
    }

    // The engine copies a mark the discipline set onto the packet, and only a mark: a packet
    // that waited in a drop-tail queue (which never marks) leaves with its own codepoint.
    // f0's datagram goes to the wire of h0->h1 at 5 ms; two ECT(0) datagrams offered right
    // after it go to the device queue (of 1) and to the discipline, which hands the second to
    // the device when f0's transmission ends (5,801,600).
    #[test]
    fn a_dequeued_packet_keeps_its_codepoint_unless_marked() {
        use crate::packet::Tos;
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let model = chain(&[hop], QueueLimit::Packets(10), 1, &singles(&[T0]));
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        let k = run.sim.info.iter().position(|i| i.name == "h0->h1").unwrap();
        while run.sim.now < Time(T0) {
            assert!(run.advance(1));
        }
        let mut p = run.sim.pkts[0].clone();
        p.tos = Tos::new(0, Ecn::Ect0);
        let ids: Vec<u32> = (0..2).map(|_| run.sim.alloc(p.clone())).collect();
        for &id in &ids {
            run.sim.enqueue(k as u32, id);
        }
        assert_eq!(run.sim.ifaces[k].qdisc.stats.queued_pkts(), 1);
        while run.sim.ifaces[k].qdisc.stats.queued_pkts() > 0 {
            assert!(run.advance(1));
        }
        assert_eq!(run.sim.now, Time(T0 + 801_600));
        assert_eq!(run.sim.pkts[ids[1] as usize].tos.ecn(), Ecn::Ect0);
    }

    // Each endpoint's wake-up slot sorts its timer ties the way the endpoint's configuration
    // asks (`timer_ties_as_set`), flow by flow: f0 with it (its client and server slots), f1
    // without.
    #[test]
    fn wake_slots_take_each_endpoints_timer_tie_rule() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let mut model = chain(&[hop], QueueLimit::Packets(10), 1, &[(T0, AppSpec::BULK, None), (T0, AppSpec::BULK, None)]);
        model.flows[0].tcp.compat.timer_ties_as_set = true;
        let sim = Sim::build(&model, &RunOptions::default()).unwrap();
        assert_eq!(sim.wake.iter().map(|w| w.as_set).collect::<Vec<_>>(), [true, true, false, false]);
    }

    // The timer tie rule's book-keeping (`timer_ties_as_set`), by hand: under it a deadline
    // takes a sequence number when it changes (not when it stays, and not when it goes away),
    // so its wake-up sorts as if scheduled then; without it none is taken. The pending
    // wake-up is superseded only by an earlier deadline.
    #[test]
    fn a_deadline_takes_its_sequence_number_when_set() {
        let mut q = EventQueue::new();
        let mut w = WakeSlot { as_set: true, ..WakeSlot::IDLE };
        assert!(w.note(Time(500), &mut q), "nothing pending: arm");
        assert_eq!((w.due, w.due_seq, q.reserve()), (Time(500), 0, 1));
        assert!(w.note(Time(500), &mut q), "still not armed");
        assert_eq!((w.due_seq, q.reserve()), (0, 2), "the same deadline keeps its number");
        w.armed = Time(500);
        assert!(!w.note(Time(500), &mut q), "armed for it already");
        assert!(!w.note(Time(700), &mut q), "a later deadline waits for the pending wake-up");
        assert_eq!((w.due, w.due_seq), (Time(700), 3));
        assert!(w.note(Time(400), &mut q), "an earlier one supersedes it");
        assert_eq!(w.due_seq, 4);
        assert!(!w.note(NEVER, &mut q));
        assert_eq!((w.due, w.due_seq, q.reserve()), (NEVER, 4, 5), "no deadline, no number");
        let mut plain = WakeSlot::IDLE;
        assert!(plain.note(Time(500), &mut q));
        assert_eq!((plain.due, plain.due_seq, q.reserve()), (Time(500), 0, 6), "without the rule no number is taken");
    }

    // A router's gateway sees every packet it forwards: its flow table learns the flow from
    // the handshake, so each ACK at the rewrite point belongs to a tracked flow.
    #[test]
    fn a_gateway_tracks_the_flows_it_forwards() {
        let text = one_flow("{ kind = \"bulk\" }", "1s", "0s") + "[[gateways]]\nnode = \"A\"\ncontroller = { kind = \"ewt\" }\n";
        let s = crate::run_str(&text, None, &RunOptions::default()).unwrap().summary;
        let g = &s.gateways[0];
        assert!(g.acks > 1000, "{} ACKs", g.acks);
        assert_eq!((g.untracked, g.flow_table_size), (0, 1));
        assert!(g.lowered > 0, "EWT lowers windows while the queue is above its start");
    }

    // A finite transfer completes at the segment that delivers its last byte to the server:
    // the flow completion time is recorded, and the flow stops counting as active, in the
    // event of that arrival (not at some later wake-up or at the client's next segment).
    #[test]
    fn a_transfer_completes_at_the_arrival_of_its_last_byte() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let size = 3 * 1448;
        let model = chain(&[hop], QueueLimit::Packets(100), 1, &[(T0, AppSpec::File { size, write: 0 }, None)]);
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        loop {
            assert!(run.advance(1), "the transfer completes");
            let delivered = run.sim.endpoint(0, true).map_or(0, |e| e.counters.delivered);
            if delivered >= size {
                break;
            }
            assert_eq!(run.sim.flownet[0].fct, None);
        }
        assert_eq!(run.sim.flownet[0].fct, Some(run.sim.now));
        assert_eq!(run.sim.tcp_active, 0);
    }

    // Only a window gateway has a forward hook: a router running ACNS (or NGWA) forwards
    // like any other. h0 - r1 - h1 with ACNS on r1, 10 Mbit/s and 1 ms per hop: a datagram
    // sent at 5 ms reaches h1 after two serializations of 801,600 ns and two propagation
    // delays, at 5,000,000 + 2 · (801,600 + 1,000,000) = 8,603,200.
    #[test]
    fn an_acns_router_forwards_without_the_gateway_hook() {
        use crate::model::AcnsSpec;
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let mut model = chain(&[hop, hop], QueueLimit::Packets(10), 1, &singles(&[T0]));
        model.acns.push(AcnsSpec { node: 1, config: Default::default(), flow_table: Default::default() });
        assert_eq!(deliveries(&model), vec![(vec![8_603_200], 0)]);
    }

    // An ACNS router keeps, per simulated flow, the flow-table entry its packets last had, as
    // the hint for the next look-up: after a transfer's handshake (which ACNS reads) it holds
    // the connection's entry.
    #[test]
    fn an_acns_router_remembers_each_flows_table_entry() {
        use crate::model::AcnsSpec;
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let mut model = chain(&[hop, hop], QueueLimit::Packets(10), 1, &[(T0, AppSpec::File { size: 1448, write: 0 }, None)]);
        model.acns.push(AcnsSpec { node: 1, config: Default::default(), flow_table: Default::default() });
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        while run.sim.now < Time(T0 + 20_000_000) && run.advance(1) {}
        let mk = &run.sim.markers[0];
        let hint = mk.by_flow[0].expect("a hint once the handshake passed");
        assert!(mk.acns.flows.get(hint).is_some(), "the hint names a live entry");
    }

    // The stepper's read-outs: the run's simulated time against its end (progress bars), and
    // the data packets sent (the benchmarks' unit of work): two datagrams and a 3-segment
    // transfer over an idle path send five, handshake, ACKs and FIN not counted.
    #[test]
    fn the_stepper_reports_time_and_data_packets() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let mut flows = singles(&[T0, T0 + 1_000_000]);
        flows.push((T0, AppSpec::File { size: 3 * 1448, write: 0 }, None));
        let model = chain(&[hop], QueueLimit::Packets(100), 1, &flows);
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        assert_eq!((run.progress(), run.data_packets()), ((Time::ZERO, Time(1_000_000_000)), 0));
        while run.sim.now < Time(T0 + 500_000) {
            assert!(run.advance(1));
        }
        assert_eq!(run.progress(), (run.sim.now, Time(1_000_000_000)));
        assert_eq!(run.data_packets(), 1, "the first datagram; the handshake is under way");
        while run.advance(100) {}
        assert_eq!((run.progress(), run.data_packets()), ((Time(1_000_000_000), Time(1_000_000_000)), 5));
    }

    // A link's jitter is one draw per link, from the stream named after the link, added to
    // its propagation delay in both directions: with up to 1 ms on h0 - h1 (10 Mbit/s, 1 ms),
    // a datagram sent at 5 ms arrives at 5 ms + 801,600 + 1 ms + J, J the stream's first draw
    // below 1 ms.
    #[test]
    fn link_jitter_is_one_draw_added_to_the_delay() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let mut model = chain(&[hop], QueueLimit::Packets(10), 1, &singles(&[T0, T0 + 10_000_000]));
        (model.flows[1].src, model.flows[1].dst) = (1, 0);
        model.links[0].jitter = Dur::from_millis(1);
        let j = RngStream::derive(1, StreamKey::LinkJitter("h0-h1")).below(1_000_000);
        assert!(j > 0, "a draw that shows");
        let at = |t: u64| t + 801_600 + 1_000_000 + j;
        assert_eq!(deliveries(&model), vec![(vec![at(T0)], 0), (vec![at(T0 + 10_000_000)], 0)]);
    }

    // Which queues the summary reports by default: every router's egress queue, no host's;
    // `monitor.queues` names them instead.
    #[test]
    fn routers_queues_are_monitored_unless_named() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let mut model = chain(&[hop, hop], QueueLimit::Packets(10), 1, &[]);
        let monitored = |m: &Model| {
            let sim = Sim::build(m, &RunOptions::default()).unwrap();
            let mut v: Vec<String> = sim.info.iter().filter(|i| i.monitored).map(|i| i.name.clone()).collect();
            v.sort();
            v
        };
        assert_eq!(monitored(&model), ["r1->h0", "r1->h1"]);
        model.monitor.queues = Some(vec!["h0->r1".into()]);
        assert_eq!(monitored(&model), ["h0->r1"]);
    }

    // A start drawn uniformly in [lo, hi) is lo plus the flow's application stream's first
    // draw below hi − lo; an empty interval starts at lo.
    #[test]
    fn a_uniform_start_is_drawn_from_the_flows_stream() {
        let mut model = chain(&[Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 }], QueueLimit::Packets(10), 1, &singles(&[0, 0]));
        model.flows[0].start = StartSpec::Uniform(Time(2_000_000), Time(3_000_000));
        model.flows[1].start = StartSpec::Uniform(Time(7_000_000), Time(7_000_000));
        let sim = Sim::build(&model, &RunOptions::default()).unwrap();
        let d = RngStream::derive(1, StreamKey::App("f0")).below(1_000_000);
        assert_eq!((sim.apps[0].start, sim.apps[1].start), (Time(2_000_000 + d), Time(7_000_000)));
    }

    // Flow k's TCP client sends from port 49,152 + k (the first of the dynamic ports, RFC
    // 6335), a UDP source from 40,000 + k.
    #[test]
    fn each_flows_client_has_a_port_of_its_own() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let model = chain(&[hop], QueueLimit::Packets(10), 1, &[(T0, AppSpec::BULK, None), (T0, AppSpec::BULK, None), (T0, AppSpec::BULK, None), (T0, ONE, None)]);
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        let mut ports = vec![None; 4];
        while ports.contains(&None) {
            assert!(run.advance(1));
            for p in &run.sim.pkts {
                match p.transport {
                    Transport::Tcp { flags, .. } if flags == sluice_core::packet::tcp_flags::SYN => ports[p.flow as usize] = Some(p.sport),
                    Transport::Udp if p.payload > 0 => ports[p.flow as usize] = Some(p.sport),
                    _ => {}
                }
            }
        }
        assert_eq!(ports, [Some(49_152), Some(49_153), Some(49_154), Some(40_003)]);
    }

    // The run counts each simulation event it runs once (observation events apart): two
    // datagrams sent at one instant over an idle link are two application starts, the refill
    // the first start defers behind the second (which finds the device stopped and waits in
    // the discipline), the first packet's transmit-complete (the refill moved the second to
    // the device behind it) and two arrivals: six.
    #[test]
    fn the_run_counts_each_event_once() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let model = chain(&[hop], QueueLimit::Packets(10), 1, &singles(&[T0, T0]));
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        while run.advance(1) {}
        assert_eq!(run.sim.events, 6);
    }

    // A packet's slot is freed when it arrives or is dropped, and reused: datagrams of 972 B
    // at 800 kbit/s, one every 9.72 ms from 5 ms (103 before the run ends at 1 s), each
    // delivered 1.8 ms after it leaves, never need more than one slot.
    #[test]
    fn a_finished_packets_slot_is_reused() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let every_10ms = AppSpec::UdpCbr { rate: Rate::bps(800_000), packet_size: 972 };
        let model = chain(&[hop], QueueLimit::Packets(10), 1, &[(T0, every_10ms, None)]);
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        while run.advance(1) {}
        let net = &run.sim.flownet[0];
        assert_eq!((net.udp_rcvd_bytes, net.fwd_sent_pkts, net.fwd_sent_bytes), (103 * 972, 103, 103 * 1000));
        assert_eq!(run.sim.pkts.len(), 1);
    }

    // A link direction's pcap holds each packet as it starts serializing: two datagrams sent
    // at 5 ms over 10 Mbit/s, recorded at 5 ms and one serialization (801,600 ns) later.
    #[test]
    fn a_pcap_records_each_packet_as_it_starts_serializing() {
        let dir = tempfile::tempdir().unwrap();
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let mut model = chain(&[hop], QueueLimit::Packets(10), 1, &singles(&[T0, T0]));
        model.links[0].ab.pcap = true;
        let opts = RunOptions { out_dir: Some(dir.path().to_path_buf()), ..Default::default() };
        let mut run = Stepper::new(&model, &opts).unwrap();
        while run.advance(1) {}
        run.finish().unwrap();
        let file = std::fs::read(dir.path().join("h0-to-h1.pcap")).unwrap();
        let cap = pcap_parser::PcapCapture::from_file(&file).expect("a pcap file");
        let at: Vec<(u32, u32, u32)> = cap.blocks.iter().map(|b| (b.ts_sec, b.ts_usec, b.origlen)).collect();
        assert_eq!(at, [(0, 5_000_000, 1002), (0, 5_801_600, 1002)]);
    }

    // The flow samples' last interval ends with the run when it is a whole one (the event at
    // the end instant does not run; the end samples it), and not otherwise: samples every
    // 100 ms end at 1.0 s in runs of 1 s and of 1.05 s.
    #[test]
    fn the_last_whole_flow_sample_is_taken_at_the_end() {
        for duration in ["1s", "1.05s"] {
            let text = one_flow("{ kind = \"bulk\" }", duration, "0s") + "[monitor]\nflow_sample = \"100ms\"\n";
            let out = crate::run_str(&text, None, &RunOptions::default()).unwrap();
            let t = out.tables.iter().find(|t| t.name == "flow_samples").expect("flow_samples");
            let Some((_, crate::Column::F64(ts))) = t.columns.iter().find(|(n, _)| n == "t_s") else { panic!("t_s") };
            let want: Vec<f64> = (1..=10).map(|k| k as f64 / 10.0).collect();
            assert_eq!(ts.len(), want.len(), "{duration}: {ts:?}");
            assert!(ts.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-9), "{duration}: {ts:?}");
        }
    }

    // What a TCP client sends is the flow's data direction at the IP layer: its packets and
    // bytes, handshake and FIN included, are those the h0->h1 capture holds (nothing is lost),
    // and its first data segment leaves with the handshake's ACK, in the event of the
    // SYN-ACK's arrival (the ACK's record; the segment queues behind it): not with the SYN,
    // nor with the segments of 20 that wait for ACKs beyond the initial window.
    #[test]
    fn a_clients_packets_and_first_data_are_counted_where_they_leave() {
        let dir = tempfile::tempdir().unwrap();
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let mut model = chain(&[hop], QueueLimit::Packets(100), 1, &[(T0, AppSpec::File { size: 20 * 1448, write: 0 }, None)]);
        model.links[0].ab.pcap = true;
        let opts = RunOptions { out_dir: Some(dir.path().to_path_buf()), ..Default::default() };
        let mut run = Stepper::new(&model, &opts).unwrap();
        while run.advance(1) {}
        let net = run.sim.flownet[0].clone();
        run.finish().unwrap();
        let file = std::fs::read(dir.path().join("h0-to-h1.pcap")).unwrap();
        let cap = pcap_parser::PcapCapture::from_file(&file).expect("a pcap file");
        let ip_bytes: u64 = cap.blocks.iter().map(|b| b.origlen as u64 - 2).sum();
        assert_eq!((net.fwd_sent_pkts, net.fwd_sent_bytes), (cap.blocks.len() as u64, ip_bytes));
        assert!(cap.blocks.len() >= 23, "SYN, ACK, 20 segments, FIN: {}", cap.blocks.len());
        let at = |b: &pcap_parser::LegacyPcapBlock| Time(b.ts_sec as u64 * 1_000_000_000 + b.ts_usec as u64);
        assert_eq!(at(&cap.blocks[0]), Time(T0), "the SYN");
        assert_eq!(net.first_data, Some(at(&cap.blocks[1])));
    }

    // A TCP flow counts as active from its application's start, whatever the application
    // (bulk, rate-limited, finite transfer): three flows started, three active.
    #[test]
    fn every_tcp_application_counts_as_active_from_its_start() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let rate = AppSpec::TcpRate { rate: Rate::mbps(1), write: 1448 };
        let file = AppSpec::File { size: 1_000_000, write: 0 };
        let model = chain(&[hop], QueueLimit::Packets(100), 1, &[(T0, AppSpec::BULK, None), (T0, rate, None), (T0, file, None)]);
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        while run.sim.now < Time(T0 + 1) {
            assert!(run.advance(1));
        }
        assert_eq!(run.sim.tcp_active, 3);
    }

    // Queue samples read the monitored discipline's occupancy, before the simulation events
    // of their instant. Ten 1000-byte datagrams at 5 ms into h0->h1 (10 Mbit/s, device queue
    // of 1): one goes to the wire, one to the device at the refill, eight wait; the k-th
    // transmission ends at 5 ms + k · 801,600 ns and the discipline then holds 8 − k. Sampled
    // every millisecond from 0 to 999 ms: 7, 6, 5, 4, 2, 1 at 6 to 11 ms, 0 elsewhere, so
    // 1000 samples summing to 25 packets (squares 131) and 25,000 bytes.
    #[test]
    fn queue_samples_read_the_discipline_each_interval() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let mut model = chain(&[hop], QueueLimit::Packets(100), 1, &singles(&[T0; 10]));
        model.monitor.queues = Some(vec!["h0->h1".into()]);
        model.monitor.queue_sample = Dur::from_millis(1);
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        while run.advance(1) {}
        let k = run.sim.info.iter().position(|i| i.name == "h0->h1").unwrap();
        let f = &run.sim.info[k];
        assert_eq!((f.samples, f.sum_pkts, f.sum_pkts2, f.sum_bytes), (1000, 25.0, 131.0, 25_000.0));
    }

    // Flow samples count the payload delivered in each interval: 972-byte datagrams every
    // 8 ms from 0 (972,000 bit/s), 1.8 ms on the way, are 125 a second: 121,500 B in each of
    // the three 1-s intervals of a 3-s run.
    #[test]
    fn flow_samples_count_the_payload_delivered_per_interval() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let cbr = AppSpec::UdpCbr { rate: Rate::bps(972_000), packet_size: 972 };
        let mut model = chain(&[hop], QueueLimit::Packets(100), 1, &[(0, cbr, None)]);
        model.duration = Dur::from_secs(3);
        model.monitor.flow_sample = Some(Dur::from_secs(1));
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        while run.advance(1000) {}
        let out = run.finish().unwrap();
        let t = out.tables.iter().find(|t| t.name == "flow_samples").expect("flow_samples");
        let Some((_, crate::Column::I64(bytes))) = t.columns.iter().find(|(n, _)| n == "bytes") else { panic!("bytes") };
        assert_eq!(bytes, &[121_500, 121_500, 121_500]);
    }

    // Every queue draws from its own stream, named after the queue: adding a hop (and its
    // queues) elsewhere leaves the draws of `h0->r1` as they were, and two queues' streams
    // differ.
    #[test]
    fn each_queue_has_its_own_stream() {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let draws = |hops: &[Hop], queue: &str| {
            let m = chain(hops, QueueLimit::Packets(10), 1, &singles(&[T0]));
            let sim = Sim::build(&m, &RunOptions::default()).unwrap();
            let k = sim.info.iter().position(|i| i.name == queue).expect("queue exists");
            let mut r = sim.ifaces[k].qrng.clone();
            (0..4).map(|_| r.next_u64()).collect::<Vec<_>>()
        };
        let one = draws(&[hop], "h0->h1");
        assert_eq!(one, draws(&[hop], "h0->h1"), "deterministic");
        assert_ne!(one, draws(&[hop], "h1->h0"), "the reverse queue has a stream of its own");
        let two_a = draws(&[hop, hop], "h0->r1");
        let two_b = draws(&[hop, hop, hop], "h0->r1");
        assert_eq!(two_a, two_b, "more queues elsewhere change nothing");
        let mut named = RngStream::derive(1, StreamKey::Qdisc("h0->r1"));
        assert_eq!(two_a, (0..4).map(|_| named.next_u64()).collect::<Vec<_>>(), "the stream is keyed by the queue's name");
    }

    // A pcap file that cannot be written fails the run, naming the file, rather than leaving
    // a capture with packets silently missing.
    #[test]
    fn a_pcap_write_failure_fails_the_run() {
        // Removed when the guard drops, whether the test passes or panics.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("A-to-B.pcap");
        // Writes to /dev/full fail with "no space left on device".
        std::os::unix::fs::symlink("/dev/full", &path).unwrap();
        let text = one_flow("{ kind = \"bulk\" }", "1s", "0s") + "[monitor]\npcap = \"A->B\"\n";
        let Err(e) = crate::run_str(&text, None, &RunOptions { out_dir: Some(dir.path().to_path_buf()), ..Default::default() }) else { panic!("the run must fail") };
        match e {
            SimError::Io { path, .. } => assert!(path.ends_with("A-to-B.pcap"), "{path}"),
            e => panic!("expected an I/O error, got {e}"),
        }
    }

    // ----- window gateways at the engine's places -----

    use crate::model::RewriteAt;

    /// h0 - r1 - h1 (10 Mbit/s, 1 ms, 2 B PPP per hop, drop-tail of 10, device queue of 1)
    /// with a window gateway on r1 reading r1->h1; `flows` as in [`chain`].
    fn gateway_chain(controller: sluice_core::control::ControllerConfig, rewrite_at: RewriteAt, flows: &[(u64, AppSpec, Option<u64>)]) -> Model {
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let mut model = chain(&[hop, hop], QueueLimit::Packets(10), 1, flows);
        model.monitor.rewrite_trace = true;
        model.gateways.push(crate::model::GatewaySpec { node: 1, controller, flow_table: Default::default(), monitor: "r1->h1".into(), rewrite_at });
        model
    }

    /// A hand-made 1040-byte TCP segment (20 B IP, 20 B TCP, 1000 B payload) from h0 to h1.
    fn tcp_segment(sim: &Sim<'_>) -> SimPacket {
        use crate::packet::{SegBits, TcpOptions, Tos, Transport};
        let (h0, h1) = (crate::net::node_addr(0), crate::net::node_addr(sim.nodes.len() - 1));
        let transport = Transport::Tcp { seq: 1, ack: 1, flags: sluice_core::packet::tcp_flags::ACK, window: 1000, opts: TcpOptions::default(), bits: SegBits::default() };
        SimPacket { src: h0, dst: h1, sport: 40_000, dport: 80, tos: Tos::new(0, Ecn::NotEct), ttl: 64, ip_id: 0, transport, payload: 1000, flow: 0, opt33: 0 }
    }

    // The monitored queue reports each change to its controller, with the occupancy before
    // and after, whichever way a packet crosses it: AWM (α = 0.5, β = 0.25, q_ref = 25 % of
    // 10 · 1500 B = 3750 B, one flow) moves its window by −α·(q − q_ref) − β·(q − q⁻) bytes
    // at each event (q after, q⁻ before). Three 1040-byte segments offered to r1->h1 at 5 ms:
    //   A, idle link: passes the empty discipline, an enqueue (0 → 1040: +1355 − 260 = +1095)
    //     and a dequeue at once (1040 → 0: +1875 + 260 = +2135);
    //   B, busy link and room in the device: passes the same way, +3230;
    //   C, device full: enters the discipline, 0 → 1040, +1095;
    // then the refill after A's transmission moves C to the device, 1040 → 0, +2135.
    // From 65,535: 68,765, 71,995, 73,090, 75,225.
    #[test]
    fn a_monitored_queue_reports_each_change_to_its_gateway() {
        use sluice_core::control::{AnyController, AwmConfig, ControllerConfig};
        let awm = AwmConfig { alpha: 0.5, beta: 0.25, flow_count: sluice_core::flows::FlowCount::Oracle, ..Default::default() };
        let model = gateway_chain(ControllerConfig::Awm(awm), RewriteAt::Dequeue, &[]);
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        let k = run.sim.info.iter().position(|i| i.name == "r1->h1").unwrap() as u32;
        let swnd = |sim: &Sim<'_>| match &sim.gateways[0].nr.controller {
            AnyController::Awm(a) => a.swnd(),
            _ => unreachable!("an AWM gateway"),
        };
        run.sim.now = Time(T0);
        let seg = tcp_segment(&run.sim);
        let mut seen = vec![];
        for _ in 0..3 {
            let id = run.sim.alloc(seg.clone());
            run.sim.enqueue(k, id);
            seen.push(swnd(&run.sim));
        }
        assert_eq!(run.sim.gateways[0].occupancy(), sluice_core::qdisc::Occupancy { packets: 1, bytes: 1040 });
        while !run.sim.ifaces[k as usize].qdisc_idle() {
            assert!(run.advance(1));
        }
        seen.push(swnd(&run.sim));
        assert_eq!(run.sim.now, Time(T0 + 833_600), "C leaves the discipline when A's transmission ends");
        assert_eq!(run.sim.gateways[0].occupancy(), sluice_core::qdisc::Occupancy::default());
        for (got, want) in seen.iter().zip([68_765.0, 71_995.0, 73_090.0, 75_225.0]) {
            assert!((got - want).abs() < 1e-6, "{seen:?}");
        }
    }

    // A gateway counts UDP on its monitored egress only (the UDP rate a controller reads is
    // the monitored link's): 1000 B towards h1 (through r1->h1, the monitored queue) and 500 B
    // towards h0 (through r1->h0) at 5 ms, in the first 100-ms bin. When that bin closes the
    // estimate is a quarter of its 80,000 bit/s: 20,000 bit/s.
    #[test]
    fn a_gateway_counts_udp_on_its_monitored_egress_only() {
        let back = AppSpec::UdpCbr { rate: Rate::bps(1), packet_size: 472 };
        let ewt = sluice_core::control::ControllerConfig::Ewt(Default::default());
        let mut model = gateway_chain(ewt, RewriteAt::Dequeue, &[(T0, ONE, None), (T0, back, None)]);
        (model.flows[1].src, model.flows[1].dst) = (2, 0);
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        while run.sim.now < Time(T0 + 10_000_000) && run.advance(1) {}
        assert_eq!(run.sim.flownet.iter().map(|f| f.udp_rcvd_bytes).collect::<Vec<_>>(), [972, 472], "both datagrams crossed r1");
        let rate = run.sim.gateways[0].nr.flows.udp().rate(Time(150_000_000));
        assert_eq!(rate, Rate::bps(20_000));
    }

    // Each ACK meets the rewrite point once, where `rewrite_at` puts it, and a lowered window
    // is traced in bytes: the field shifted by its sender's window scale. A 20-segment
    // transfer through AWM on r1 holding its window at 10,000 B (α = β = 0); both ends' 1 MB
    // buffers need a shift of 4 (1,000,000 > 65,535 · 8), so each ACK offers
    // (1,000,000 >> 4) << 4 = 1,000,000 B and is lowered to (10,000 >> 4) << 4 = 10,000 B.
    // The gateway sees more than 30 ACKs (the 20 data segments, each carrying an ACK, and the
    // receiver's ACKs of them, one per two segments), the same number in either mode, and
    // remembers the flow's table entry as the hint for its next packets.
    #[test]
    fn each_ack_meets_the_rewrite_point_once_where_configured() {
        use sluice_core::control::{AwmConfig, ControllerConfig};
        let awm = AwmConfig { alpha: 0.0, beta: 0.0, swnd0: 10_000, ..Default::default() };
        let mut acks = vec![];
        for at in [RewriteAt::Dequeue, RewriteAt::Forward] {
            let mut model = gateway_chain(ControllerConfig::Awm(awm.clone()), at, &[(T0, AppSpec::File { size: 20 * 1448, write: 0 }, None)]);
            model.flows[0].tcp.rcv_buf = 1_000_000;
            let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
            while run.advance(1000) {}
            let gw = &run.sim.gateways[0];
            let rows = gw.trace.as_ref().unwrap();
            assert!(gw.nr.stats.acks > 30, "{at:?}: {:?}", gw.nr.stats);
            assert_eq!((gw.nr.stats.lowered, rows.len() as u64), (gw.nr.stats.acks, gw.nr.stats.acks), "{at:?}");
            assert!(rows.iter().all(|r| (r.orig_bytes, r.new_bytes) == (1_000_000, 10_000)), "{at:?}: {rows:?}");
            assert!(gw.by_flow[0].is_some(), "{at:?}: the flow's hint");
            acks.push(gw.nr.stats.acks);
        }
        assert_eq!(acks[0], acks[1]);
    }

    // ----- ACNS at enqueue, with hand-made packets -----
    //
    // h0 - r1 - r2 - h1, drop-tail 50 packets everywhere, ACNS on r1. Three ACNS connections
    // (SYN with ECE, CWR and CMT 0x08, carrying the flow's DSCP) set up through r1's other
    // egress (r1->h0) so that r1->r2 holds only what the test puts there: C (DSCP 0) at 0 s, B
    // (DSCP 26) at 15 s, A (DSCP 46) at 30 s, each with one I2 data segment. At 60 s r1->r2 is filled with
    // UDP datagrams until its discipline holds 24 packets (the first went to the wire, the
    // second to the one-packet device), then one I4 segment of each flow enters it, each
    // raising the occupancy by one. p_max = 46, f_max = 60 s, v_p = 0.8, v_a = 0.2, eps = 0.01:
    //   B at 24/50 = 0.48: F = 0.8·26/46 = 0.45217, T = 0.2·(1 − 45/60) = 0.05,
    //     W = 0.48/0.50217 = 0.95585 ≥ 0.95 → freeze, I6;
    //   A at 25/50 = 0.5: F = 0.8, T = 0.1, W = 0.5556 → normal, stays I4;
    //   C at 26/50 = 0.52: F + T = 0 → eps, W = 52 → fallback, I7.
    // An I7 of C and a UDP datagram with ECT(0) enter after them untouched. The trace has one
    // freeze row and one fallback row with those weights, the counters 3 evaluated.
    #[test]
    fn acns_router_commands_at_enqueue_from_the_queue_it_joins() {
        use crate::model::AcnsSpec;
        use crate::packet::{SegBits, TcpOptions, Tos, Transport};
        use sluice_core::control::AcnsConfig;
        use sluice_core::packet::{tcp_flags, AcnsIp, Ecn};
        let hop = Hop { rate: Rate::mbps(10), delay: Dur::from_millis(1), l2: 2 };
        let mut model = chain(&[hop, hop, hop], QueueLimit::Packets(50), 1, &[]);
        model.monitor.rewrite_trace = true;
        let flow_table = sluice_core::flows::FlowTableConfig { idle_timeout: Dur::from_secs(1000), ..Default::default() };
        model.acns.push(AcnsSpec { node: 1, config: AcnsConfig::default(), flow_table });
        let mut run = Stepper::new(&model, &RunOptions::default()).unwrap();
        let sim = &mut run.sim;
        let iface = |sim: &Sim, name: &str| sim.info.iter().position(|i| i.name == name).unwrap() as u32;
        let (fwd, back) = (iface(sim, "r1->r2"), iface(sim, "r1->h0"));
        let (h0, h1) = (crate::net::node_addr(0), crate::net::node_addr(3));
        let seg = |port: u16, flags: u8, dscp: u8, code: AcnsIp, cmt: bool| {
            let (ecn, cmi) = code.bits();
            let mut bits = SegBits::default();
            bits.set_tcp_reserved(if cmt { 0x08 } else { 0 });
            bits.set_ip_reserved_flag(cmi);
            let payload = if flags & tcp_flags::SYN != 0 { 0 } else { 1000 };
            SimPacket { src: h0, dst: h1, sport: port, dport: 80, tos: Tos::new(dscp, ecn), ttl: 64, ip_id: 0, transport: Transport::Tcp { seq: 1, ack: 1, flags, window: 1000, opts: TcpOptions::default(), bits }, payload, flow: 0, opt33: 0 }
        };
        let send = |sim: &mut Sim, at: u64, iface: u32, p: SimPacket| -> u32 {
            sim.now = Time(at * 1_000_000_000);
            let id = sim.alloc(p);
            sim.enqueue(iface, id);
            id
        };
        let syn = tcp_flags::SYN | tcp_flags::ECE | tcp_flags::CWR;
        for (port, dscp, at) in [(40_000u16, 0u8, 0u64), (40_001, 26, 15), (40_002, 46, 30)] {
            send(sim, at, back, seg(port, syn, dscp, AcnsIp::I1, true));
            send(sim, at, back, seg(port, tcp_flags::ACK, dscp, AcnsIp::I2, false));
        }
        let udp = |ecn: Ecn| SimPacket { transport: Transport::Udp, payload: 972, tos: Tos::new(0, ecn), ..seg(9, 0, 0, AcnsIp::I1, false) };
        while sim.ifaces[fwd as usize].qdisc.occupancy::<QPkt>().packets < 24 {
            send(sim, 60, fwd, udp(Ecn::NotEct));
        }
        let b = send(sim, 60, fwd, seg(40_001, tcp_flags::ACK, 26, AcnsIp::I4, false));
        let a = send(sim, 60, fwd, seg(40_002, tcp_flags::ACK, 46, AcnsIp::I4, false));
        let c = send(sim, 60, fwd, seg(40_000, tcp_flags::ACK, 0, AcnsIp::I4, false));
        let c7 = send(sim, 60, fwd, seg(40_000, tcp_flags::ACK, 0, AcnsIp::I7, false));
        let u = send(sim, 60, fwd, udp(Ecn::Ect0));
        let code = |sim: &Sim, id: u32| AcnsIp::of(&sim.pkts[id as usize]);
        assert_eq!([b, a, c, c7].map(|id| code(sim, id)), [Some(AcnsIp::I6), Some(AcnsIp::I4), Some(AcnsIp::I7), Some(AcnsIp::I7)]);
        assert_eq!(sim.pkts[u as usize].tos, Tos::new(0, Ecn::Ect0));
        let mk = &sim.markers[0];
        assert_eq!((mk.acns.stats.evaluated, mk.acns.stats.freezes, mk.acns.stats.fallbacks, mk.acns.stats.skipped), (3, 1, 1, 0));
        let rows = mk.trace.as_ref().unwrap();
        assert_eq!(rows.iter().map(|r| r.fallback).collect::<Vec<_>>(), [false, true]);
        assert!((rows[0].weight - 0.95585).abs() < 5e-4 && (rows[1].weight - 52.0).abs() < 1e-9, "{rows:?}");
    }
}
