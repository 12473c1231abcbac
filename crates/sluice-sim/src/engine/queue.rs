//! The event queue.
//!
//! **Ordering rule.** Events run in time order; events at the same instant run in the order they
//! were scheduled (a monotonically increasing sequence number breaks ties). A caller may
//! [`EventQueue::reserve`] a sequence number now and schedule the event later with it, so an
//! event that is only sometimes needed (a link's transmit-complete) sorts exactly as if it had
//! been scheduled at the reservation.

use crate::net::NextHop;
use sluice_core::Time;

/// What happens at an instant. Small: IDs only.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The oldest packet in flight on interface `iface` finishes arriving at the peer node.
    /// (Packets in flight on a link wait in the interface's FIFO — their arrival times only
    /// grow — and only the head is in the heap, with the sequence number it was given when its
    /// transmission started, so the global order is the same as one event per packet.) `pkt`
    /// and `next` say which packet and where it goes next, for warming the cache before the
    /// event runs.
    Arrive { iface: u32, pkt: u32, next: NextHop },
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
    /// Sample per-flow delivered bytes (the `flow_samples` table).
    FlowSample,
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

/// The pending events: a calendar for what happens soon, a coarse wheel for timers, and a heap
/// for the rest, sharing one sequence counter, so together they follow the ordering rule
/// exactly: [`EventQueue::pop`] takes the smaller of the calendar's and the heap's heads, and
/// the wheel hands its timers to the calendar before either head could pass them.
///
/// Packet events (arrivals, transmit-completes, refills, application ticks) go to the
/// `Calendar` when they fall within its horizon, which is chosen to cover the longest link
/// delay: finding the next one costs the same whether ten or ten thousand are pending, where a
/// heap's cost grows with the flows in flight. Endpoint wake-ups and application starts and
/// stops go to the `Wheel`: every TCP endpoint keeps one wake-up pending, mostly far ahead (a
/// retransmission or delayed-ACK deadline), and with many flows a heap of them is cold, so each
/// one set or taken walks a path of cache misses; the wheel files a timer with one append and
/// moves each of its buckets to the calendar, in one sequential pass, as the bucket comes due.
/// Events beyond the wheel's reach (or set inside a bucket already moved, and too far ahead
/// for the calendar) go to the heap.
pub struct EventQueue {
    soon: Calendar,
    /// Endpoint wake-ups and application starts and stops, until their bucket comes due.
    timers: Wheel,
    /// Packet events beyond the calendar's horizon, and timers beyond the wheel's.
    later: Heap,
    next_seq: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::new()
    }
}

impl EventQueue {
    /// A queue whose calendar looks at least 16 ms ahead.
    pub fn new() -> Self {
        Self::with_horizon(sluice_core::Dur::from_millis(16))
    }

    /// A queue whose calendar holds packet events up to at least `horizon` ahead of the event
    /// being run (the longest a packet spends on a link: serialization plus propagation).
    pub fn with_horizon(horizon: sluice_core::Dur) -> Self {
        let soon = Calendar::covering(horizon.0);
        // Buckets a quarter of the calendar's horizon wide: a bucket moved when it comes due
        // fits in the calendar whole.
        let timers = Wheel::new(soon.shift + SLOTS.trailing_zeros() - 2);
        EventQueue { soon, timers, later: Heap::with_capacity(256), next_seq: 0 }
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
        if ev.is_timer() {
            if self.timers.insert(e) {
                self.settle();
            } else if !self.soon.insert(e) {
                self.later.push(e);
            }
        } else if !self.soon.insert(e) {
            self.later.push(e);
        }
    }

    /// Keep the next event at the head of the calendar or of the heap: move the wheel's first
    /// bucket to the calendar (or, what lies beyond its horizon, to the heap) while that bucket
    /// starts before the earliest event of the other two (keys are unique, so a bucket that
    /// starts at that key holds only later ones).
    #[inline]
    fn settle(&mut self) {
        if self.timers.first_key < self.soon.min_key.min(self.later.peek_key()) {
            self.settle_buckets();
        }
    }

    #[inline(never)]
    fn settle_buckets(&mut self) {
        while self.timers.first_key < self.soon.min_key.min(self.later.peek_key()) {
            let mut bucket = self.timers.take_first();
            for &e in &bucket {
                if !self.soon.insert(e) {
                    self.later.push(e);
                }
            }
            bucket.clear();
            self.timers.give_back(bucket);
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, u64, Event)> {
        let top = if self.later.peek_key() < self.soon.min_key {
            let e = self.later.pop().expect("a key below the empty sentinel");
            self.soon.advance(e.key);
            e
        } else {
            self.soon.pop_min()?
        };
        self.settle();
        Some((Time((top.key >> 64) as u64), top.key as u64, top.ev))
    }

    /// The event [`EventQueue::pop`] returns next.
    #[inline]
    pub fn peek(&self) -> Option<Event> {
        if self.later.peek_key() < self.soon.min_key {
            self.later.v.first().map(|e| e.ev)
        } else {
            self.soon.min_entry().map(|e| e.ev)
        }
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        let k = self.later.peek_key().min(self.soon.min_key);
        (k != EMPTY).then_some(Time((k >> 64) as u64))
    }

    pub fn len(&self) -> usize {
        self.soon.len + self.timers.len + self.later.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// No entry (end of a list, empty slot).
const NIL: u32 = u32::MAX;

/// The key of no event: above every real key (times are far below `u64::MAX`).
const EMPTY: u128 = u128::MAX;

/// Buckets in a calendar, and in the timers' wheel.
const SLOTS: usize = 1 << 12;

/// The first set bit of a slot bitmap at or after slot `from`, circularly (one must be set).
#[inline]
fn first_set_from(bits: &[u64; SLOTS / 64], from: usize) -> usize {
    let mut w = from / 64;
    let mut word = bits[w] & (!0u64 << (from % 64));
    while word == 0 {
        w = (w + 1) % (SLOTS / 64);
        word = bits[w];
    }
    w * 64 + word.trailing_zeros() as usize
}

/// A calendar queue (a timing wheel) for events in the near future: [`SLOTS`] buckets of
/// `1 << shift` nanoseconds each, covering `SLOTS << shift` ns from the bucket of the event last
/// taken. Each bucket is a list of entries in a slab, kept in key order (an entry usually goes
/// at its tail: events come mostly in time order); a bitmap of non-empty buckets finds the next
/// one with a few word scans, and the smallest entry, the head of that bucket, is kept at hand.
/// A bucket can grow long (superseded endpoint wake-ups pile up at one instant): taking its
/// entries in order then costs one step each, where searching an unsorted list for the
/// smallest would cost its length each time.
/// Buckets are as narrow as the horizon allows (16 µs on the 100 Mb/s access-link dumbbells,
/// whose events come about that far apart), so a bucket holds a few entries at most and every
/// operation takes the same few steps however many events are pending.
struct Calendar {
    shift: u32,
    /// Absolute number (time >> shift) of the bucket of the last event taken from the queue:
    /// every entry lies in `[base, base + SLOTS)`, so slot order from `base` is time order.
    base: u64,
    /// Key of the smallest entry ([`EMPTY`] if none) and its node.
    min_key: u128,
    min: u32,
    /// Free slab nodes, linked through `next`.
    free: u32,
    len: usize,
    head: Box<[u32; SLOTS]>,
    /// Each bucket's last node (meaningful only while the bucket is non-empty).
    tail: Box<[u32; SLOTS]>,
    /// One bit per slot: the slot's list is non-empty.
    bits: Box<[u64; SLOTS / 64]>,
    nodes: Vec<Node>,
}

#[derive(Copy, Clone, Debug)]
struct Node {
    e: Entry,
    next: u32,
}

impl Calendar {
    /// A calendar whose buckets are the narrowest that still cover `horizon` ns, between 256 ns
    /// and 65.5 µs: wider buckets would hold many events each (a 100 Mb/s link sends one every
    /// 120 µs), so past 268 ms a long link's events go to the heap instead.
    fn covering(horizon: u64) -> Self {
        let per_slot = horizon.div_ceil(SLOTS as u64).clamp(256, 1 << 16);
        let shift = 64 - (per_slot - 1).leading_zeros();
        Calendar {
            shift,
            base: 0,
            min_key: EMPTY,
            min: NIL,
            free: NIL,
            len: 0,
            head: Box::new([NIL; SLOTS]),
            tail: Box::new([NIL; SLOTS]),
            bits: Box::new([0; SLOTS / 64]),
            nodes: Vec::with_capacity(1024),
        }
    }

    #[inline]
    fn bucket(&self, key: u128) -> u64 {
        ((key >> 64) as u64) >> self.shift
    }

    /// Add `e` if it falls within the horizon; false if it does not.
    #[inline]
    fn insert(&mut self, e: Entry) -> bool {
        let b = self.bucket(e.key);
        debug_assert!(b >= self.base, "an event in the past");
        if b - self.base >= SLOTS as u64 {
            return false;
        }
        let slot = b as usize % SLOTS;
        let n = if self.free != NIL {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = Node { e, next: NIL };
            n
        } else {
            self.nodes.push(Node { e, next: NIL });
            (self.nodes.len() - 1) as u32
        };
        let h = self.head[slot];
        if h == NIL {
            (self.head[slot], self.tail[slot]) = (n, n);
        } else if e.key > self.nodes[self.tail[slot] as usize].e.key {
            let t = self.tail[slot];
            self.nodes[t as usize].next = n;
            self.tail[slot] = n;
        } else if e.key < self.nodes[h as usize].e.key {
            self.nodes[n as usize].next = h;
            self.head[slot] = n;
        } else {
            // Between the head and the tail: after the last node with a smaller key.
            let mut p = h;
            loop {
                let next = self.nodes[p as usize].next;
                if self.nodes[next as usize].e.key > e.key {
                    self.nodes[n as usize].next = next;
                    self.nodes[p as usize].next = n;
                    break;
                }
                p = next;
            }
        }
        self.bits[slot / 64] |= 1 << (slot % 64);
        self.len += 1;
        if e.key < self.min_key {
            (self.min_key, self.min) = (e.key, n);
        }
        true
    }

    #[inline]
    fn min_entry(&self) -> Option<&Entry> {
        self.nodes.get(self.min as usize).filter(|_| self.min_key != EMPTY).map(|n| &n.e)
    }

    /// Remove and return the smallest entry.
    #[inline]
    fn pop_min(&mut self) -> Option<Entry> {
        if self.min_key == EMPTY {
            return None;
        }
        let n = self.min;
        let Node { e, next } = self.nodes[n as usize];
        let slot = self.bucket(e.key) as usize % SLOTS;
        // The smallest entry heads its bucket.
        debug_assert_eq!(self.head[slot], n);
        self.head[slot] = next;
        if next == NIL {
            self.bits[slot / 64] &= !(1 << (slot % 64));
        }
        self.nodes[n as usize].next = self.free;
        self.free = n;
        self.len -= 1;
        self.base = self.bucket(e.key);
        self.find_min(slot);
        Some(e)
    }

    /// The event at `key` was taken from the other part of the queue: nothing earlier can be
    /// scheduled any more, so the calendar's window starts at its bucket.
    #[inline]
    fn advance(&mut self, key: u128) {
        let b = self.bucket(key);
        debug_assert!(self.min_key == EMPTY || self.bucket(self.min_key) >= b);
        self.base = b;
    }

    /// Set the minimum: the smallest entry of the first non-empty bucket at or after `slot`
    /// (`slot` is the bucket of `base`).
    #[inline]
    fn find_min(&mut self, slot: usize) {
        if self.len == 0 {
            (self.min_key, self.min) = (EMPTY, NIL);
            return;
        }
        // A bucket is in key order: the smallest entry heads the first non-empty one.
        let n = self.head[self.first_occupied(slot)];
        (self.min_key, self.min) = (self.nodes[n as usize].e.key, n);
    }

    /// The first non-empty slot at or after `from`, circularly: every entry lies within one turn
    /// of `base`, so from a slot at or before the earliest entry this is time order. At least
    /// one slot must be non-empty.
    #[inline]
    fn first_occupied(&self, from: usize) -> usize {
        debug_assert!(self.len > 0);
        first_set_from(&self.bits, from)
    }
}

/// A coarse timing wheel for timers: [`SLOTS`] buckets of `1 << shift` nanoseconds, each
/// an unordered vector of entries. A bucket is never searched: [`EventQueue`] takes it whole,
/// in time order of buckets, and files its entries in the calendar (which orders them) before
/// the first of them can be due. Filing a timer is one append to a bucket that, with timers
/// set a similar time ahead, was appended to just before.
struct Wheel {
    shift: u32,
    /// Absolute number (time >> shift) of the first bucket not yet taken: every entry lies in
    /// `[base, base + SLOTS)`.
    base: u64,
    /// The key of the first non-empty bucket's start, below every key in it ([`EMPTY`] if none).
    first_key: u128,
    len: usize,
    /// One bit per slot: the slot's bucket is non-empty.
    bits: Box<[u64; SLOTS / 64]>,
    buckets: Vec<Vec<Entry>>,
    /// Emptied bucket vectors, most recently used last: an empty bucket takes one, so the wheel
    /// reuses a few warm allocations instead of growing a cold one per bucket.
    spare: Vec<Vec<Entry>>,
}

impl Wheel {
    fn new(shift: u32) -> Self {
        Wheel { shift, base: 0, first_key: EMPTY, len: 0, bits: Box::new([0; SLOTS / 64]), buckets: vec![Vec::new(); SLOTS], spare: Vec::new() }
    }

    /// File `e` if its bucket has not been taken and lies within reach; false if not.
    #[inline]
    fn insert(&mut self, e: Entry) -> bool {
        let b = ((e.key >> 64) as u64) >> self.shift;
        if b < self.base || b - self.base >= SLOTS as u64 {
            return false;
        }
        let slot = b as usize % SLOTS;
        let bucket = &mut self.buckets[slot];
        if bucket.capacity() == 0 {
            if let Some(v) = self.spare.pop() {
                *bucket = v;
            }
        }
        bucket.push(e);
        self.bits[slot / 64] |= 1 << (slot % 64);
        self.len += 1;
        self.first_key = self.first_key.min(self.start_key(b));
        true
    }

    /// The key of absolute bucket `b`'s start.
    #[inline]
    fn start_key(&self, b: u64) -> u128 {
        ((b << self.shift) as u128) << 64
    }

    /// Take the first non-empty bucket's entries (there must be one); every earlier bucket is
    /// taken with it. Hand the emptied vector back with [`Wheel::give_back`].
    #[inline]
    fn take_first(&mut self) -> Vec<Entry> {
        let b = ((self.first_key >> 64) as u64) >> self.shift;
        let slot = b as usize % SLOTS;
        let bucket = std::mem::take(&mut self.buckets[slot]);
        self.bits[slot / 64] &= !(1 << (slot % 64));
        self.len -= bucket.len();
        self.base = b + 1;
        self.first_key = if self.len == 0 { EMPTY } else { self.start_key(self.next_occupied(b + 1)) };
        bucket
    }

    /// Return an emptied bucket vector (kept for its capacity).
    #[inline]
    fn give_back(&mut self, v: Vec<Entry>) {
        debug_assert!(v.is_empty());
        self.spare.push(v);
    }

    /// The first non-empty bucket at or after absolute bucket `from` (at least one exists, and
    /// all lie within one turn of `from`).
    #[inline]
    fn next_occupied(&self, from: u64) -> u64 {
        let start = from as usize % SLOTS;
        let slot = first_set_from(&self.bits, start);
        // Slots from `start` onwards, wrapping once.
        from + ((slot + SLOTS - start) % SLOTS) as u64
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
    /// The smallest key, or [`EMPTY`].
    fn peek_key(&self) -> u128 {
        self.v.first().map_or(EMPTY, |e| e.key)
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

    // The queue returns every entry in (time, seq) order, as a discrete-event run uses it:
    // events are scheduled at or after the one being run, some at the same instant, some with
    // a sequence number reserved earlier, some beyond the calendar's horizon, some timers beyond
    // the wheel's, and the calendar and the wheel turn many times over. An ordered map is the
    // reference.
    #[test]
    fn pops_in_key_order() {
        for (seed, horizon_ns) in [(3, 1_000_000), (4, 300_000), (5, 50_000), (6, 5_000_000_000)] {
            let mut q = EventQueue::with_horizon(sluice_core::Dur(horizon_ns));
            let mut r = sluice_core::rng::RngStream::from_seed(seed);
            let mut expect = std::collections::BTreeMap::new();
            let mut now = Time::ZERO;
            let mut reserved = Vec::new();
            let mut popped = 0;
            while popped < 50_000 {
                for _ in 0..r.below(4) {
                    let lag = match r.below(100) {
                        0..=9 => 0,
                        10..=19 => r.below(20 * horizon_ns),
                        // Beyond the wheel's reach (4096 buckets of a quarter horizon or more).
                        20 => r.below(4000 * horizon_ns.max(1_000_000)),
                        _ => r.below(horizon_ns),
                    };
                    let i = r.below(1000) as u32;
                    let ev = match r.below(3) {
                        0 => Event::Wake { ep: i, gen: 0 },
                        1 => Event::TxDone { iface: i },
                        _ => Event::Arrive { iface: i, pkt: i, next: NextHop::NONE },
                    };
                    let seq = if r.chance(0.1) && !reserved.is_empty() { reserved.swap_remove(0) } else { q.reserve() };
                    if r.chance(0.05) {
                        reserved.push(q.reserve());
                    }
                    let t = Time(now.0 + lag);
                    q.schedule_with(t, seq, ev);
                    expect.insert((t, seq), ev);
                }
                if expect.is_empty() {
                    continue;
                }
                let ((et, es), eev) = expect.pop_first().expect("not empty");
                assert_eq!(q.peek_time(), Some(et));
                assert_eq!(q.peek(), Some(eev));
                let (t, s, ev) = q.pop().unwrap();
                assert_eq!((t, s, ev), (et, es, eev), "seed {seed}, pop {popped}");
                assert_eq!((q.len(), q.is_empty()), (expect.len(), expect.is_empty()));
                now = t;
                popped += 1;
            }
            for ((et, es), _) in expect {
                let (t, s, _) = q.pop().unwrap();
                assert_eq!((et, es), (t, s));
            }
            assert!(q.pop().is_none() && q.is_empty());
        }
    }
}
