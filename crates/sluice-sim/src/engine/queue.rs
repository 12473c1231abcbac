//! The event heap.
//!
//! **Ordering rule.** Events run in time order; events at the same instant run in the order they
//! were scheduled (a monotonically increasing sequence number breaks ties). A caller may
//! [`EventQueue::reserve`] a sequence number now and schedule the event later with it, so an
//! event that is only sometimes needed (a link's transmit-complete) sorts exactly as if it had
//! been scheduled at the reservation.

use sluice_core::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens at an instant. Small: IDs only.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Packet `pkt` finishes arriving over interface `iface` at the interface's peer node.
    Arrive { iface: u32, pkt: u32 },
    /// Interface `iface` finished serializing a packet.
    TxDone { iface: u32 },
    /// Wake TCP endpoint `ep` if generation `gen` is still current.
    Wake { ep: u32, gen: u32 },
    /// Application `app` starts.
    AppStart { app: u32 },
    /// Application `app`'s own timer (UDP sources).
    AppTick { app: u32, gen: u32 },
    /// Application `app` stops sending.
    AppStop { app: u32 },
    /// Sample queue lengths.
    QueueSample,
    /// Sample congestion windows.
    CwndSample,
    /// The warm-up period ends: snapshot counters.
    WarmupEnd,
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    time: Time,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        // BinaryHeap is a max-heap: invert for earliest-first.
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(4096), next_seq: 0 }
    }

    #[inline]
    pub fn schedule(&mut self, time: Time, ev: Event) {
        let seq = self.reserve();
        self.schedule_with(time, seq, ev);
    }

    /// Take the next sequence number without scheduling anything yet.
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        let s = self.next_seq;
        self.next_seq += 1;
        s
    }

    #[inline]
    pub fn schedule_with(&mut self, time: Time, seq: u64, ev: Event) {
        self.heap.push(Entry { time, seq, ev });
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, u64, Event)> {
        self.heap.pop().map(|e| (e.time, e.seq, e.ev))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // tests the ordering rule: time order, ties in scheduling order, reserved seqs honoured.
    #[test]
    fn ties_run_in_scheduling_order() {
        let mut q = EventQueue::new();
        let r = q.reserve();
        q.schedule(Time(5), Event::AppStart { app: 1 });
        q.schedule(Time(3), Event::AppStart { app: 2 });
        q.schedule(Time(5), Event::AppStart { app: 3 });
        q.schedule_with(Time(5), r, Event::TxDone { iface: 9 });
        let order: Vec<Event> = std::iter::from_fn(|| q.pop().map(|(_, _, e)| e)).collect();
        assert_eq!(
            order,
            vec![Event::AppStart { app: 2 }, Event::TxDone { iface: 9 }, Event::AppStart { app: 1 }, Event::AppStart { app: 3 }]
        );
    }
}
