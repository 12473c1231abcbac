//! The event queue.
//!
//! **Ordering rule.** Events run in time order; events at the same instant run in the order they
//! were scheduled (a monotonically increasing sequence number breaks ties). A caller may
//! [`EventQueue::reserve`] a sequence number now and schedule the event later with it, so an
//! event that is only sometimes needed (a link's transmit-complete) sorts exactly as if it had
//! been scheduled at the reservation.

use sluice_core::Time;

/// What happens at an instant. Small: IDs only.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The oldest packet in flight on interface `iface` finishes arriving at the peer node.
    /// (Packets in flight on a link wait in the interface's FIFO — their arrival times only
    /// grow — and only the head is in the heap, with the sequence number it was given when its
    /// transmission started, so the global order is the same as one event per packet.)
    Arrive { iface: u32 },
    /// Interface `iface` finished serializing a packet.
    TxDone { iface: u32 },
    /// Refill interface `iface`'s device queue from its queue discipline (deferred behind the
    /// other events of the same instant, as ns-3 wakes its device queue).
    Refill { iface: u32 },
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

impl Event {
    /// Events that are set far ahead and mostly wait: endpoint timers and application starts
    /// and stops. They live in their own heap (see [`EventQueue`]).
    #[inline]
    fn is_timer(&self) -> bool {
        matches!(self, Event::Wake { .. } | Event::AppStart { .. } | Event::AppStop { .. })
    }
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    /// Time in the high 64 bits, sequence number in the low 64: one integer compare orders both.
    key: u128,
    ev: Event,
}

#[inline]
fn key(time: Time, seq: u64) -> u128 {
    (time.0 as u128) << 64 | seq as u128
}

/// The pending events, in two 4-ary min-heaps keyed by `(time, seq)` that share one sequence
/// counter, so together they follow the ordering rule exactly: [`EventQueue::pop`] takes the
/// smaller of the two heads.
///
/// Why two: every TCP endpoint keeps one wake-up pending, mostly far ahead (a retransmission or
/// delayed-ACK deadline), so with many flows those entries outnumber the packet events by
/// far, and every pop of a packet event would sift through their levels. Kept apart, the
/// packet heap stays as small as the number of packets in flight, and the timer heap is
/// touched only when a timer is set earlier or fires.
#[derive(Default)]
pub struct EventQueue {
    /// Packet events: arrivals, transmit-completes, refills, application ticks.
    soon: Heap,
    /// Endpoint wake-ups and application starts and stops.
    timers: Heap,
    next_seq: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue { soon: Heap::with_capacity(4096), timers: Heap::with_capacity(256), next_seq: 0 }
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
        let heap = if ev.is_timer() { &mut self.timers } else { &mut self.soon };
        heap.push(Entry { key: key(time, seq), ev });
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, u64, Event)> {
        let top = match (self.soon.peek_key(), self.timers.peek_key()) {
            (Some(s), Some(t)) if t < s => self.timers.pop(),
            (Some(_), _) => self.soon.pop(),
            (None, _) => self.timers.pop(),
        }?;
        Some((Time((top.key >> 64) as u64), top.key as u64, top.ev))
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        let k = match (self.soon.peek_key(), self.timers.peek_key()) {
            (Some(s), Some(t)) => s.min(t),
            (s, t) => s.or(t)?,
        };
        Some(Time((k >> 64) as u64))
    }

    pub fn len(&self) -> usize {
        self.soon.len() + self.timers.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A 4-ary min-heap of entries. Four children per node halve the depth of a binary heap, and
/// the children of a node share a cache line or two, which matters when thousands of packets
/// are in flight.
#[derive(Default)]
struct Heap {
    v: Vec<Entry>,
}

impl Heap {
    fn with_capacity(n: usize) -> Self {
        Heap { v: Vec::with_capacity(n) }
    }

    #[inline]
    fn len(&self) -> usize {
        self.v.len()
    }

    #[inline]
    fn peek_key(&self) -> Option<u128> {
        self.v.first().map(|e| e.key)
    }

    #[inline]
    fn push(&mut self, e: Entry) {
        let mut i = self.v.len();
        self.v.push(e);
        while i > 0 {
            let parent = (i - 1) / 4;
            if self.v[parent].key <= e.key {
                break;
            }
            self.v[i] = self.v[parent];
            i = parent;
        }
        self.v[i] = e;
    }

    #[inline]
    fn pop(&mut self) -> Option<Entry> {
        let n = self.v.len();
        if n == 0 {
            return None;
        }
        let top = self.v[0];
        let last = self.v.pop().expect("non-empty");
        let n = n - 1;
        if n > 0 {
            // Sift the last entry down from the root.
            let mut i = 0;
            loop {
                let first = 4 * i + 1;
                if first >= n {
                    break;
                }
                let end = (first + 4).min(n);
                let mut m = first;
                let mut mk = self.v[first].key;
                for c in first + 1..end {
                    let k = self.v[c].key;
                    if k < mk {
                        m = c;
                        mk = k;
                    }
                }
                if mk >= last.key {
                    break;
                }
                self.v[i] = self.v[m];
                i = m;
            }
            self.v[i] = last;
        }
        Some(top)
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

    // The queue returns every entry in (time, seq) order, whatever the insertion order and
    // whichever of its two heaps holds it.
    #[test]
    fn pops_in_key_order() {
        let mut q = EventQueue::new();
        let mut r = sluice_core::rng::RngStream::from_seed(3);
        let mut expect = Vec::new();
        for i in 0..5000u32 {
            let t = Time(r.below(1000));
            let seq = q.reserve();
            let ev = if r.chance(0.5) { Event::Wake { ep: i, gen: 0 } } else { Event::Arrive { iface: i } };
            q.schedule_with(t, seq, ev);
            expect.push((t, seq));
            if r.chance(0.3) {
                expect.sort();
                let (et, es) = expect.remove(0);
                assert_eq!(q.peek_time(), Some(et));
                let (t2, s2, _) = q.pop().unwrap();
                assert_eq!((et, es), (t2, s2));
            }
        }
        expect.sort();
        for (et, es) in expect {
            let (t2, s2, _) = q.pop().unwrap();
            assert_eq!((et, es), (t2, s2));
        }
        assert!(q.pop().is_none());
    }
}
