//! Network-return gateways: where a router's controller meets the simulator's packets.
//!
//! A gateway ([`crate::model::GatewaySpec`]) is `sluice_core::control::NetworkReturn` (a flow
//! table and one controller, the code a Linux gateway runs on live packets) bound to a router.
//! The engine calls it at three places:
//!
//! * **forward**: every packet the router forwards (the transit branch of `Sim::arrive`),
//!   before it is routed to an egress queue;
//! * **the monitored queue**: every enqueue into and dequeue from the one egress queue the
//!   controller reads (`monitor`), with the occupancy before and after;
//! * **the rewrite point**: with `rewrite_at = "dequeue"` (the default) each packet as it
//!   leaves any egress queue of the router — after `dequeue` in `Sim::kick`, and in both
//!   branches of `Sim::enqueue` that skip an empty discipline (an ACK leaving the router
//!   usually crosses an empty access queue); with `"forward"` right after the forward call.
//!
//! NGWA's gateway-only variant (`stamp_ack = true`) is a gateway like the others: its
//! controller (`sluice_core::control::NgwaAck`) counts connections from the segments whose
//! forward leads into the monitored queue and writes that queue's `W_node` into the windows of
//! the ACKs going the other way, at the rewrite point.
//!
//! An NGWA router ([`crate::model::NgwaSpec`], `stamp_ack = false`) is a [`Stamper`]: `sluice_core::control::Ngwa`
//! bound to every egress queue of the router. It is called only at departure (the rewrite
//! point's places: after `dequeue`, and in both pass-through branches of `Sim::enqueue`), where
//! it may insert IPv4 option 33; the caller then adds the growth to the queued packet's
//! length, so serialization and the next hop count the option's bytes. It reads no monitored
//! queue and no forward call.
//!
//! An ACNS router ([`crate::model::AcnsSpec`]) is a [`Marker`]: `sluice_core::control::Acns`
//! bound to every egress queue of the router. It is called only at enqueue (`Sim::enqueue`,
//! before the packet is offered to the discipline or passes an empty one), for the packets ACNS
//! reads (`Acns::wants`: TCP with SYN, FIN or RST, ECN-capable, or CMI set): its flow table sees them, and a
//! packet asking for a command gets one from that queue's usage before the packet, written into
//! its ECN bits and reserved flag. It reads no monitored
//! queue, no forward call and no departure.
//!
//! Interfaces leaving a gateway, NGWA or ACNS router carry [`crate::net::Flags::HOOKED`]: every other interface pays one
//! bit test per packet, and runs without gateways pay nothing more.

use super::Sim;
use crate::model::RewriteAt;
use sluice_core::flows::FlowId;
use sluice_core::control::{Acns, AcnsOutcome, NetworkReturn, Ngwa, NgwaStamp, QueueEvent, QueueEventKind, QueueReading, Readings};
use sluice_core::packet::WindowRewrite;
use sluice_core::qdisc::Occupancy;
use sluice_core::units::QueueLimit;
use sluice_core::Rate;

/// No gateway on this node.
pub(crate) const NO_GATEWAY: u32 = u32::MAX;
/// The bit that marks a node's entry as an NGWA router's (index in the low bits); entries
/// below it are window gateways.
pub(crate) const NGWA: u32 = 1 << 31;
/// The bit that marks a node's entry as an ACNS router's (index in the low bits; below
/// [`NGWA`], so entries below it are window gateways).
pub(crate) const ACNS: u32 = 1 << 30;

/// ACNS on one router.
pub(crate) struct Marker {
    pub acns: Acns,
    /// Commands written (freeze or fallback), when traced.
    pub trace: Option<Vec<CommandRow>>,
    /// Per simulated flow, the flow-table id its packets last had (the lookup hint).
    pub by_flow: Vec<Option<FlowId>>,
}

/// One ACNS command written (`monitor.rewrite_trace`, reason `acns_freeze` or
/// `acns_fallback`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct CommandRow {
    pub t_ns: u64,
    pub flow: u32,
    /// True for a fallback (I7), false for a freeze (I6).
    pub fallback: bool,
    pub weight: f64,
}

/// NGWA on one router.
pub(crate) struct Stamper {
    pub ngwa: Ngwa,
    /// The router's egress interfaces and their queues' limits, in NGWA's queue order.
    pub queues: Vec<(u32, QueueLimit)>,
    /// Per interface of the network, its index in `queues` (`u32::MAX` for another node's): a
    /// router with many egress queues finds one without a search.
    pub by_iface: Vec<u32>,
    /// Stamps inserted or lowered, when traced.
    pub trace: Option<Vec<StampRow>>,
}

/// One option 33 inserted or lowered (`monitor.rewrite_trace`, reason `ngwa_stamp`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct StampRow {
    pub t_ns: u64,
    pub flow: u32,
    /// The value carried before; `None` when the option was inserted.
    pub from: Option<u32>,
    pub to: u32,
}

/// One gateway of a run.
pub(crate) struct Gateway {
    /// The monitored egress interface.
    pub monitor: u32,
    pub rewrite_at: RewriteAt,
    /// What the controller reads, handed to every call by reference: the monitored queue's
    /// occupancy, refreshed by the engine after every enqueue into it and dequeue from it (the
    /// only calls that change it; read here, not from the queue's own cold state), the queue's
    /// limit (fixed by its configuration), the monitored link's rate (the controller's `C`) and
    /// the simulator's count of TCP connections (set whenever it changes, [`Sim::set_tcp_active`]).
    pub readings: Readings,
    pub nr: NetworkReturn,
    /// ACKs whose window was lowered or raised, when traced.
    pub trace: Option<Vec<RewriteRow>>,
    /// Per simulated flow, the flow-table id its packets last had: the hint that spares the
    /// forward and the rewrite point a hash lookup (the table checks it against the packet's
    /// 5-tuple, so a stale hint costs only the check).
    pub by_flow: Vec<Option<FlowId>>,
}

/// One ACK whose window was lowered or raised (`monitor.rewrite_trace`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct RewriteRow {
    pub t_ns: u64,
    pub flow: u32,
    pub orig_bytes: u64,
    pub new_bytes: u64,
}

impl Gateway {
    /// A gateway monitoring interface `monitor` (a queue of `limit` on a link of `link`).
    pub fn new(monitor: u32, rewrite_at: RewriteAt, link: Rate, limit: QueueLimit, nr: NetworkReturn, trace: bool, flows: usize) -> Gateway {
        let readings = Readings { queue: QueueReading { bytes: 0, packets: 0, limit }, link, oracle_flows: Some(0) };
        Gateway { monitor, rewrite_at, readings, nr, trace: trace.then(Vec::new), by_flow: vec![None; flows] }
    }
    /// The monitored queue's occupancy as last refreshed.
    pub fn occupancy(&self) -> Occupancy {
        Occupancy { packets: self.readings.queue.packets, bytes: self.readings.queue.bytes }
    }
    /// Refresh the monitored queue's occupancy.
    #[inline]
    pub fn set_occupancy(&mut self, occ: Occupancy) {
        (self.readings.queue.packets, self.readings.queue.bytes) = (occ.packets, occ.bytes);
    }
}

impl<'m> Sim<'m> {

    /// Packet `id` is forwarded by `node`, which has gateway `g`; `out` is the interface it
    /// will leave by.
    pub(super) fn gw_forward(&mut self, g: usize, id: u32, out: u32) {
        let now = self.now;
        let gw = &mut self.gateways[g];
        let p = &self.pkts[id as usize];
        let hint = gw.by_flow.get(p.flow as usize).copied().flatten();
        let seen = gw.nr.on_forward_hinted(p, hint, out == gw.monitor, &gw.readings, now);
        if seen.is_some() && seen != hint {
            if let Some(h) = gw.by_flow.get_mut(p.flow as usize) {
                *h = seen;
            }
        }
        if gw.rewrite_at == RewriteAt::Forward {
            self.gw_rewrite(g, id);
        }
    }

    /// Packet `id` leaves hooked interface `iface` (dequeued, or passed through an empty
    /// discipline): the rewrite point under `rewrite_at = "dequeue"`, or NGWA's stamp.
    /// Returns the bytes the packet grew by (NGWA's option; 0 otherwise).
    #[inline]
    pub(super) fn gw_departure(&mut self, iface: u32, id: u32) -> u32 {
        let g = self.iface_gw[iface as usize];
        if g < ACNS {
            if self.gateways[g as usize].rewrite_at == RewriteAt::Dequeue {
                self.gw_rewrite(g as usize, id);
            }
            return 0;
        }
        if g >= NGWA {
            return self.ngwa_stamp((g & !NGWA) as usize, iface, id);
        }
        0
    }

    /// NGWA router `s` stamps packet `id` leaving `iface`, with the queue as it stands after
    /// the packet left it.
    #[inline(never)]
    fn ngwa_stamp(&mut self, s: usize, iface: u32, id: u32) -> u32 {
        let st = &mut self.stampers[s];
        let q = st.by_iface[iface as usize] as usize;
        debug_assert_eq!(st.queues[q].0, iface, "a hooked interface of an NGWA router is one of its queues");
        let occ = self.ifaces[iface as usize].qdisc.occupancy::<crate::net::QPkt>();
        let reading = QueueReading { bytes: occ.bytes, packets: occ.packets, limit: st.queues[q].1 };
        let p = &mut self.pkts[id as usize];
        let out = st.ngwa.on_departure(q, p, reading);
        if let Some(t) = &mut st.trace {
            match out {
                NgwaStamp::Inserted { value, .. } => t.push(StampRow { t_ns: self.now.0, flow: p.flow, from: None, to: value }),
                NgwaStamp::Lowered { from, to } => t.push(StampRow { t_ns: self.now.0, flow: p.flow, from: Some(from), to }),
                _ => {}
            }
        }
        out.growth()
    }

    /// Packet `id` is about to enter hooked interface `iface` (offered to its discipline, or
    /// passing it when empty): ACNS's call, if the interface's router runs ACNS.
    #[inline]
    pub(super) fn gw_enqueue(&mut self, iface: u32, id: u32) {
        let g = self.iface_gw[iface as usize];
        if g & NGWA == 0 && g >= ACNS && Acns::wants(&self.pkts[id as usize]) {
            self.acns_mark((g & !ACNS) as usize, iface, id);
        }
    }

    /// ACNS router `m` sees packet `id` entering `iface`, whose queue is read before it.
    #[inline(never)]
    fn acns_mark(&mut self, m: usize, iface: u32, id: u32) {
        let mk = &mut self.markers[m];
        let q = &self.ifaces[iface as usize].qdisc;
        let occ = q.occupancy::<crate::net::QPkt>();
        let reading = QueueReading { bytes: occ.bytes, packets: occ.packets, limit: q.limit::<crate::net::QPkt>() };
        let p = &mut self.pkts[id as usize];
        let hint = mk.by_flow.get(p.flow as usize).copied().flatten();
        let (seen, out) = mk.acns.on_enqueue(p, hint, reading, self.now);
        if seen.is_some() && seen != hint {
            if let Some(h) = mk.by_flow.get_mut(p.flow as usize) {
                *h = seen;
            }
        }
        if let (AcnsOutcome::Evaluated { weight, wrote: Some(code), .. }, Some(t)) = (out, &mut mk.trace) {
            t.push(CommandRow { t_ns: self.now.0, flow: p.flow, fallback: code == sluice_core::packet::AcnsIp::I7, weight });
        }
    }

    #[inline]
    fn gw_rewrite(&mut self, g: usize, id: u32) {
        let now = self.now;
        let gw = &mut self.gateways[g];
        let p = &mut self.pkts[id as usize];
        let seen = gw.by_flow.get(p.flow as usize).copied().flatten();
        let outcome = gw.nr.at_rewrite_point_seen(p, seen, &gw.readings, now);
        if gw.trace.is_some() {
            self.gw_trace_rewrite(g, id, seen, outcome);
        }
    }

    /// Gateway `g` rewrote packet `id` with `outcome`: its row of the rewrite trace, if it
    /// changed the window.
    #[cold]
    #[inline(never)]
    fn gw_trace_rewrite(&mut self, g: usize, id: u32, seen: Option<FlowId>, outcome: WindowRewrite) {
        let gw = &mut self.gateways[g];
        let p = &self.pkts[id as usize];
        if let (WindowRewrite::Lowered { from_field, to_field } | WindowRewrite::Raised { from_field, to_field }, Some(t)) = (outcome, &mut gw.trace) {
            // The field is in the units of the ACK sender's own shift, fixed by the handshake.
            let flows = &gw.nr.flows;
            let shift = flows.lookup_segment_seen(p, seen).and_then(|f| f.side_of(p.src, p.sport).and_then(|s| f.shift(s))).unwrap_or(0);
            t.push(RewriteRow { t_ns: self.now.0, flow: p.flow, orig_bytes: (from_field as u64) << shift, new_bytes: (to_field as u64) << shift });
        }
    }

    /// The gateway whose monitored queue hooked interface `iface` is, if it is one. The engine
    /// then refreshes the gateway's occupancy ([`Gateway::set_occupancy`]) after each enqueue
    /// and dequeue, and reads the occupancy before them and calls [`Sim::gw_queue`] only when
    /// the change matters ([`NetworkReturn::queue_event_matters`]).
    #[inline]
    pub(super) fn gw_monitor_of(&self, iface: u32) -> Option<usize> {
        let g = self.iface_gw[iface as usize];
        (g < ACNS && self.gateways[g as usize].monitor == iface).then_some(g as usize)
    }

    /// Gateway `g`'s monitored queue changed: `before` → now, by a packet of `len` bytes
    /// (called when the change matters, after [`Gateway::set_occupancy`]).
    pub(super) fn gw_queue(&mut self, g: usize, kind: QueueEventKind, len: u32, before: Occupancy) {
        let now = self.now;
        let gw = &mut self.gateways[g];
        let after = gw.occupancy();
        gw.nr.on_queue(&QueueEvent { kind, len_bytes: len, before, after }, &gw.readings, now);
    }

    /// Packet `id` of `len` bytes passes through the empty discipline of hooked interface
    /// `iface`: at the monitored queue an enqueue and a dequeue at once (one packet for an
    /// instant), then the rewrite point. Returns the bytes the packet grew by.
    pub(super) fn gw_pass(&mut self, iface: u32, id: u32, len: u32) -> u32 {
        if let Some(g) = self.gw_monitor_of(iface).filter(|&g| self.gateways[g].nr.queue_event_matters(self.now)) {
            let now = self.now;
            let gw = &mut self.gateways[g];
            let empty = gw.occupancy();
            let one = Occupancy { packets: empty.packets + 1, bytes: empty.bytes + len as u64 };
            gw.set_occupancy(one);
            gw.nr.on_queue(&QueueEvent { kind: QueueEventKind::Enqueue, len_bytes: len, before: empty, after: one }, &gw.readings, now);
            gw.set_occupancy(empty);
            gw.nr.on_queue(&QueueEvent { kind: QueueEventKind::Dequeue, len_bytes: len, before: one, after: empty }, &gw.readings, now);
        }
        self.gw_departure(iface, id)
    }
}
