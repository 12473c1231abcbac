//! The event heap.
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

#[derive(Copy, Clone, Debug)]
struct Entry {
    /// Time in the high 64 bits, sequence number in the low 64: one integer compare orders both.
    key: u128,
    ev: Event,
}

/// A 4-ary min-heap keyed by `(time, seq)`. Four children per node halve the depth of a binary
/// heap, and the children of a node share a cache line or two, which matters when thousands of
/// packets are in flight.
#[derive(Default)]
pub struct EventQueue {
    heap: Vec<Entry>,
    next_seq: u64,
}

#[inline]
fn key(time: Time, seq: u64) -> u128 {
    (time.0 as u128) << 64 | seq as u128
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue { heap: Vec::with_capacity(4096), next_seq: 0 }
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
        let e = Entry { key: key(time, seq), ev };
        let mut i = self.heap.len();
        self.heap.push(e);
        while i > 0 {
            let parent = (i - 1) / 4;
            if self.heap[parent].key <= e.key {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = e;
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, u64, Event)> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        let top = self.heap[0];
        let last = self.heap.pop().expect("non-empty");
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
                let mut mk = self.heap[first].key;
                for c in first + 1..end {
                    let k = self.heap[c].key;
                    if k < mk {
                        m = c;
                        mk = k;
                    }
                }
                if mk >= last.key {
                    break;
                }
                self.heap[i] = self.heap[m];
                i = m;
            }
            self.heap[i] = last;
        }
        Some((Time((top.key >> 64) as u64), top.key as u64, top.ev))
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.first().map(|e| Time((e.key >> 64) as u64))
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

    // The heap returns every entry in (time, seq) order, whatever the insertion order.
    #[test]
    fn pops_in_key_order() {
        let mut q = EventQueue::new();
        let mut r = sluice_core::rng::RngStream::from_seed(3);
        let mut expect = Vec::new();
        for i in 0..5000u32 {
            let t = Time(r.below(1000));
            let seq = q.reserve();
            q.schedule_with(t, seq, Event::AppStart { app: i });
            expect.push((t, seq));
            if r.chance(0.3) {
                expect.sort();
                let (et, es) = expect.remove(0);
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
