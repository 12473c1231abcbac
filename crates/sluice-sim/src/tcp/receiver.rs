//! The receiving half: reassembly, SACK blocks (RFC 2018), delayed ACKs (RFC 1122 §4.2.3.2,
//! RFC 5681 §4.2; Linux's engine in [`super::delayed_ack`]), ECN echo (RFC 3168 §6.1.3) and
//! TS.Recent (RFC 7323 §4.3).

use super::config::{DelAck, SackReport};
use super::endpoint::{ConnState, Endpoint, NEVER};
use crate::packet::{SackBlocks, SimPacket, TcpOptions};
use sluice_core::packet::{tcp_flags as F, Ecn};
use sluice_core::seq::to_wire;
use sluice_core::Time;

impl Endpoint {
    pub(super) fn receive_data(&mut self, pkt: &SimPacket, seg_seq: u64, opts: &TcpOptions, flags: u8, now: Time, out: &mut Vec<SimPacket>) {
        let len = pkt.payload as u64;
        let fin = flags & F::FIN != 0;
        let end = seg_seq + len;

        // RFC 7323 §4.3: TS.Recent from a segment that starts at or before the last ACK sent;
        // ns-3 (`ts_recent_in_order`) takes it only from the segment at RCV.NXT, and ignores a
        // TSval below the highest one seen (`ProcessOptionTimestamp`).
        if let Some((tsval, _)) = opts.ts {
            if self.ts_ok && self.cfg.compat.ts_recent_in_order {
                if tsval >= self.ts_seen {
                    self.ts_seen = tsval;
                    if seg_seq == self.rcv_nxt && seg_seq <= self.last_ack_sent {
                        self.ts_recent = tsval;
                    }
                }
            } else if self.ts_ok && seg_seq <= self.last_ack_sent {
                self.ts_recent = tsval;
            }
        }
        // RFC 3168 §6.1.3: CWR stops the echo; CE (re)starts it. ns-3 (`ecn_echo_rfc` off)
        // keeps echoing through a CWR while a CE mark has not yet been echoed by any ACK
        // (`ECN_CE_RCVD` is left only by sending an ACK with ECE).
        if self.ecn_ok && !self.acns_data(pkt, flags) {
            if flags & F::CWR != 0 && (self.cfg.compat.ecn_echo_rfc || !self.ce_unechoed) {
                self.ece_pending = false;
            }
            if self.cfg.delack == DelAck::Linux && len > 0 {
                let (ce, ect) = (pkt.tos.ecn() == Ecn::Ce, matches!(pkt.tos.ecn(), Ecn::Ect0 | Ecn::Ect1));
                let wnd = self.rcv_wnd();
                self.lnx_ack.on_ecn(ce, ect, self.ece_pending, wnd);
            }
            if pkt.tos.ecn() == Ecn::Ce {
                self.ece_pending = true;
                self.ce_unechoed = true;
            }
        }

        let linux = self.cfg.delack == DelAck::Linux;
        if end <= self.rcv_nxt && !(fin && end == self.rcv_nxt && !self.fin_rcvd) {
            // Entirely old: a spurious retransmission. ACK at once (RFC 5681 §4.2); Linux also
            // re-enters quick-ACK mode (`tcp_data_queue`, out of window).
            if linux {
                let wnd = self.rcv_wnd();
                self.lnx_ack.enter_quickack(super::delayed_ack::MAX_QUICKACKS, wnd);
            }
            self.ack_data_now(now, out);
            return;
        }
        if seg_seq > self.rcv_nxt {
            // Out of order: hold it (and its FIN) and send an immediate duplicate ACK with SACK
            // (a bare FIN adds no data to report).
            if len > 0 {
                self.insert_ooo(seg_seq, end);
            }
            if fin {
                self.ooo_fin = end;
                self.reasm_held = true; // in-order arrivals look for it
            }
            self.ack_data_now(now, out);
            return;
        }
        // In order (possibly overlapping what we have).
        let had_gap = self.reasm_held && !self.ooo.is_empty();
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        let mut held_fin = false;
        if self.reasm_held {
            // Pull in any out-of-order data now contiguous.
            while let Some(&(l, r)) = self.ooo.first() {
                if l > self.rcv_nxt {
                    break;
                }
                self.rcv_nxt = self.rcv_nxt.max(r);
                self.ooo.remove(0);
            }
            let rcv_nxt = self.rcv_nxt;
            self.sack_recent.retain(|&(_, r)| r > rcv_nxt);
            held_fin = self.ooo_fin == rcv_nxt;
            let fin_waits = self.ooo_fin != u64::MAX && !held_fin;
            self.reasm_held = !self.ooo.is_empty() || !self.sack_recent.is_empty() || fin_waits;
        }
        let new_bytes = self.rcv_nxt - before;
        if new_bytes > 0 {
            self.counters.delivered += new_bytes;
            self.counters.last_delivery = now;
        }
        if linux && len > 0 {
            let (wnd, rto) = (self.rcv_wnd(), self.rtt.rto());
            self.lnx_ack.on_data(pkt.payload, self.own_mss(), wnd, rto, now);
        }
        if (fin && end == self.rcv_nxt) || held_fin {
            self.rcv_nxt += 1;
            self.ooo_fin = u64::MAX;
            self.fin_rcvd = true;
            self.state = match self.state {
                ConnState::Established => ConnState::CloseWait,
                ConnState::FinWait1 | ConnState::FinWait2 => ConnState::TimeWait,
                s => s,
            };
            // ns-3 (`Ns3Compat::fin_acked_apart` off): the FIN, closing at once, carries the
            // ACK of a bare FIN and of data that reached a held one; data with its FIN still
            // gets the data's ACK first.
            let fin_carries_ack = !self.cfg.compat.fin_acked_apart
                && self.state == ConnState::CloseWait
                && (len == 0 || !fin)
                && self.snd_max == self.app_end;
            if !fin_carries_ack {
                self.ack_data_now(now, out);
            }
            if self.state == ConnState::CloseWait {
                // The receiving application closes as soon as it sees end of stream.
                self.app_closed = true;
            }
            return;
        }
        if had_gap {
            // Filled all or part of a gap: ACK at once.
            self.ack_data_now(now, out);
            return;
        }
        match self.cfg.delack {
            DelAck::Off => self.send_ack(now, out),
            DelAck::Linux => {
                // __tcp_ack_snd_check: more than one full segment since the last ACK, or
                // quick-ACK mode: now; otherwise the delayed-ACK timer.
                let unacked = self.rcv_nxt - self.last_ack_sent;
                if self.lnx_ack.more_than_one_segment(unacked) || self.lnx_ack.in_quickack() {
                    self.ack_data_now(now, out);
                } else {
                    match self.lnx_ack.deadline(now, (self.delack_at != NEVER).then_some(self.delack_at), self.rtt.srtt) {
                        Some(t) => self.delack_at = t,
                        None => self.ack_data_now(now, out),
                    }
                }
            }
            DelAck::On { count, timeout } => {
                self.unacked_segs += 1;
                let first = before == 1 && self.cfg.compat.ack_first_segment;
                if self.unacked_segs >= count || first {
                    self.send_ack(now, out);
                } else if self.delack_at == NEVER {
                    self.delack_at = now + timeout;
                }
            }
        }
    }

    /// Send the ACK that newly received data calls for; under `delack = "linux"` it uses up one
    /// quick ACK (`tcp_event_ack_sent`).
    fn ack_data_now(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        self.send_ack(now, out);
        if self.cfg.delack == DelAck::Linux {
            self.lnx_ack.on_ack_sent();
        }
    }

    /// The delayed-ACK timer fired: send the ACK (Linux also inflates its ATO).
    pub(super) fn on_delack_timer(&mut self, now: Time, out: &mut Vec<SimPacket>) {
        if self.cfg.delack == DelAck::Linux {
            let rto = self.rtt.rto();
            self.lnx_ack.on_timer(rto);
            self.ack_data_now(now, out);
        } else {
            self.send_ack(now, out);
        }
    }

    fn insert_ooo(&mut self, l: u64, r: u64) {
        if self.cfg.compat.sack_report == SackReport::Ns3 {
            self.ns3_sack_update(l, r);
        }
        // Keep `ooo` sorted and merged.
        let i = self.ooo.partition_point(|&(_, e)| e < l);
        let (mut nl, mut nr) = (l, r);
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= nr {
            nl = nl.min(self.ooo[j].0);
            nr = nr.max(self.ooo[j].1);
            j += 1;
        }
        // Ranges i..j merge into one: usually it extends one range (j = i + 1) or is new (j = i).
        if j == i {
            self.ooo.insert(i, (nl, nr));
        } else {
            self.ooo[i] = (nl, nr);
            self.ooo.drain(i + 1..j);
        }
        if self.cfg.compat.sack_report == SackReport::Rfc2018 {
            // RFC 2018 §4: the first block reports the most recent arrival.
            self.sack_recent.retain(|&(a, b)| b < nl || a > nr);
            self.sack_recent.insert(0, (nl, nr));
            self.sack_recent.truncate(4);
        }
        self.reasm_held = true;
    }

    /// ns-3's SACK list: the bytes of `[l, r)` not already held (trimmed at either end) go in
    /// front, merge with exactly adjacent listed blocks (repeatedly), and the list keeps four.
    fn ns3_sack_update(&mut self, l: u64, r: u64) {
        let (mut h, mut t) = (l, r);
        let i = self.ooo.partition_point(|&(_, e)| e <= h);
        if let Some(&(a, b)) = self.ooo.get(i) {
            if a <= h {
                h = b;
            }
        }
        let j = self.ooo.partition_point(|&(a, _)| a < t);
        if j > 0 {
            let (a, b) = self.ooo[j - 1];
            if b >= t && a > h {
                t = a;
            }
        }
        if h >= t {
            return; // nothing new
        }
        let list = &mut self.sack_recent;
        list.insert(0, (h, t));
        let mut k = 1;
        while k < list.len() {
            let ((bl, br), (cl, cr)) = (list[0], list[k]);
            let merged = if bl == cr {
                Some((cl, br))
            } else if br == cl {
                Some((bl, cr))
            } else {
                None
            };
            match merged {
                Some(m) => {
                    list.remove(k);
                    list[0] = m;
                    k = 1;
                }
                None => k += 1,
            }
        }
        list.truncate(4);
    }

    /// SACK blocks for the next ACK: the block holding the newest arrival first, then the other
    /// recently reported blocks (RFC 2018 §4). Three fit beside timestamps, four without.
    pub(super) fn sack_blocks(&self) -> SackBlocks {
        let mut b = SackBlocks::default();
        if !self.reasm_held {
            return b;
        }
        let max = if self.ts_ok { 3 } else { 4 };
        if self.cfg.compat.sack_report == SackReport::Ns3 {
            for &(l, r) in self.sack_recent.iter().take(max) {
                b.push((to_wire(self.irs, l), to_wire(self.irs, r)));
            }
            return b;
        }
        for &(l, r) in &self.sack_recent {
            if (b.n as usize) == max {
                break;
            }
            // Report the current (merged) block that contains this range.
            if let Some(&(bl, br)) = self.ooo.iter().find(|&&(bl, br)| bl <= l && r <= br) {
                let w = (to_wire(self.irs, bl), to_wire(self.irs, br));
                if !b.as_slice().contains(&w) {
                    b.push(w);
                }
            }
        }
        for &(bl, br) in self.ooo.iter().rev() {
            if (b.n as usize) == max {
                break;
            }
            let w = (to_wire(self.irs, bl), to_wire(self.irs, br));
            if !b.as_slice().contains(&w) {
                b.push(w);
            }
        }
        b
    }
}
