//! Queue disciplines.
//!
//! A [`QueueDisc`] decides, per arriving packet, whether it is queued, marked or dropped, and
//! which packet leaves next. Statistics are not kept by the algorithms but by one wrapper,
//! [`Instrumented`], so the queue identities hold by construction:
//!
//! * `arrivals = enqueued + dropped_before`
//! * `queued = enqueued − dequeued − dropped_after`
//!
//! Randomness, when an algorithm needs it, comes from the [`QdiscCx`] the caller hands in: one
//! stream per queue, so that what one queue draws never depends on another. Packets move by
//! value; a dropped packet is handed back so the caller owns tracing and freeing.
//!
//! # Time
//!
//! A discipline has no clock and no timer of its own: it is told `now` on every call
//! ([`QueueDisc::enqueue`], [`QueueDisc::dequeue`]). A discipline with periodic work (PIE's
//! drop-probability update every `T_UPDATE`) runs, at the start of each call, every period that
//! fell due at or before `now` ([`Periodic`]). That is exact, not an approximation: what such
//! an update reads (the queue, the departure-rate estimate) changes only at enqueue and dequeue,
//! so an update run late, at the next packet event, with the time it was due, computes what it
//! would have computed on time. Nothing outside a discipline reads its internal state between
//! packet events except through [`QueueDisc::occupancy`], which no timer changes.
//!
//! # Adding a discipline
//!
//! Write `<name>.rs` with the discipline (a `from_config(&<Name>Config, &mut RngStream)`
//! constructor and a [`QueueDisc`] impl) and its `<Name>Config` (serde, a [`QdiscParams`]
//! impl); add one line to the `disciplines!` list below. That adds the variant to
//! [`AnyQdisc`] and to [`QdiscConfig`] (the scenario's `queue = { kind = "<name>", ... }`),
//! and the identity test in [`stats`] takes one more line.

pub mod auto;
pub mod choke;
pub mod codel;
pub mod config;
pub mod drop_tail;
pub mod fq_codel;
pub mod pie;
pub mod red;
pub mod stats;

pub use auto::Auto;
pub use choke::{Choke, ChokeConfig};
pub use codel::{Codel, CodelArith, CodelConfig};
pub use config::{ParamError, Profile, QdiscParams};
pub use drop_tail::{DropTail, DropTailConfig};
pub use fq_codel::{FqCodel, FqCodelConfig, FqEmpty, FqHash, Perturbation};
pub use pie::{Pie, PieConfig};
pub use red::{AredConfig, Red, RedConfig};
pub use stats::{Instrumented, Offer, QdiscStats, ReasonCounts};

use crate::packet::Ecn;
use crate::rng::RngStream;
use crate::time::{Dur, Time};
use crate::units::QueueLimit;
use serde::{Deserialize, Deserializer, Serialize};

/// What a queue discipline needs to know of a packet.
pub trait Queued {
    /// Length in bytes as the queue counts it (the IP packet).
    fn len_bytes(&self) -> u32;
    /// When the packet entered this queue (set by [`Queued::stamp`]).
    fn enqueued_at(&self) -> Time;
    fn stamp(&mut self, t: Time);
    fn ecn(&self) -> Ecn;
    /// Set CE (only valid on an ECT packet).
    fn set_ce(&mut self);
    /// A hash of the 5-tuple, for flow-queueing disciplines.
    fn flow_hash(&self) -> u32;
    /// Which entry of a flow-queueing discipline's table of 5-tuples describes this packet
    /// (FQ-CoDel's `hash = "ns3"`; the simulator gives flow · 2 + 1 for the server's
    /// direction, flow · 2 for the client's). By default the hash.
    fn flow_key(&self) -> u32 {
        self.flow_hash()
    }
}

/// A closed list of reasons, each with a stable name (the summary's keys) and an index into
/// per-reason counters.
macro_rules! reasons {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name { $($(#[$vm])* $variant),+ }
        impl $name {
            /// Every reason, in index order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            pub const COUNT: usize = Self::ALL.len();
            /// The name the summary uses (`drops_by_reason`, `marks_by_reason`).
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $s),+ }
            }
            /// Index into per-reason counters (`0..COUNT`).
            #[inline]
            pub fn index(self) -> usize {
                self as usize
            }
        }
    };
}

reasons! {
    /// Why a packet was dropped.
    DropReason {
        /// The queue was full (limit in packets or bytes).
        Overlimit = "overlimit",
        /// RED: early drop, the average between the thresholds (or between `max_th` and
        /// `2·max_th` in gentle mode).
        RedEarly = "red_early",
        /// RED: forced drop, the average above `max_th` (`2·max_th` gentle).
        RedForced = "red_forced",
        /// PIE: random drop with the current drop probability.
        PieEarly = "pie_early",
        /// CoDel (alone or per FQ-CoDel queue): the sojourn time stayed above target for an
        /// interval; dropped at dequeue.
        CodelTargetExceeded = "codel_target_exceeded",
        /// CHOKe: the arrival and a queued packet drawn at random belong to the same flow (both
        /// are dropped, the queued one after enqueue).
        ChokeMatch = "choke_match",
        /// FQ-CoDel: the total limit was reached; packets dropped from the head of the fattest
        /// queue.
        FqOverlimit = "fq_overlimit",
    }
}

reasons! {
    /// Why a packet was ECN-marked (CE set instead of a drop).
    MarkReason {
        RedEarly = "red_early",
        RedForced = "red_forced",
        PieEarly = "pie_early",
        /// CoDel (alone or per FQ-CoDel queue), marked at dequeue.
        CodelTargetExceeded = "codel_target_exceeded",
    }
}

/// What became of an offered packet.
#[derive(Debug)]
pub enum Enqueue<P> {
    Queued,
    QueuedMarked(MarkReason),
    Dropped(DropReason, P),
}

/// A packet leaving the discipline, and whether the discipline set CE on it on the way out
/// (CoDel and FQ-CoDel mark at dequeue).
#[derive(Debug)]
pub struct Dequeued<P> {
    pub pkt: P,
    pub mark: Option<MarkReason>,
}

impl<P> Dequeued<P> {
    #[inline]
    pub fn plain(pkt: P) -> Self {
        Dequeued { pkt, mark: None }
    }
}

/// What the caller lends a discipline for one call.
pub struct QdiscCx<'a, P> {
    /// This queue's own random stream.
    pub rng: &'a mut RngStream,
    /// Packets that were in the queue and were dropped during this call: at dequeue (CoDel,
    /// PIE's head drops) or at enqueue (CHOKe's victim, FQ-CoDel's overflow from the fattest
    /// queue). Counted as `dropped_after` by [`Instrumented`]; the caller frees them.
    pub dequeue_drops: &'a mut Vec<(P, DropReason)>,
}

/// Current occupancy.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Occupancy {
    pub packets: u32,
    pub bytes: u64,
}

/// The queue-discipline seam.
pub trait QueueDisc<P: Queued> {
    fn name(&self) -> &'static str;
    /// Offer `pkt` at `now`. Never blocks; returns what became of it. Queued packets dropped
    /// to make room are pushed to `cx.dequeue_drops`.
    fn enqueue(&mut self, pkt: P, now: Time, cx: &mut QdiscCx<'_, P>) -> Enqueue<P>;
    /// Next packet to send at `now`, if any. Packets dropped while looking are pushed to `cx`.
    fn dequeue(&mut self, now: Time, cx: &mut QdiscCx<'_, P>) -> Option<Dequeued<P>>;
    fn occupancy(&self) -> Occupancy;
    fn limit(&self) -> QueueLimit;
    /// Whether a packet of `len` bytes offered while the discipline is empty would be queued
    /// and then be the very next packet dequeued, with no other effect — so a caller whose
    /// link is idle may hand it straight to the link. False unless a discipline says
    /// otherwise: AQMs keep state at enqueue and dequeue and always take the full path.
    #[inline]
    fn passes_through_when_empty(&self, _len: u32) -> bool {
        false
    }
    /// The largest packet (bytes) for which [`QueueDisc::passes_through_when_empty`] holds
    /// while the discipline is empty; `None` if no packet ever passes through. Fixed for the
    /// life of the discipline, so a caller may keep it beside its own hot state. `Some` only
    /// for disciplines that keep no state beyond the queue itself, so for them a dequeue from
    /// the empty queue does nothing at all.
    #[inline]
    fn pass_through_max_len(&self) -> Option<u32> {
        None
    }
}

/// Periodic work driven by packet events (see "Time" above): `next_due` hands out, one at a
/// time, each instant `first + k·period` at or before `now` not yet handed out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Periodic {
    next: Time,
    period: Dur,
}

impl Periodic {
    /// Due first at `first`, then every `period` (`period` > 0).
    pub fn new(first: Time, period: Dur) -> Self {
        assert!(period.0 > 0, "a periodic update needs a positive period");
        Periodic { next: first, period }
    }
    /// The next due instant at or before `now`, if any (and it counts as done).
    #[inline]
    pub fn next_due(&mut self, now: Time) -> Option<Time> {
        (self.next <= now).then(|| {
            let t = self.next;
            self.next = t + self.period;
            t
        })
    }
    /// When the next update falls due.
    pub fn next(&self) -> Time {
        self.next
    }
}

/// The list of disciplines: generates [`AnyQdisc`] (dispatch without dynamic dispatch on the
/// hot path) and [`QdiscConfig`] (the `queue` table of a scenario, tagged by `kind`).
macro_rules! disciplines {
    ($($(#[$m:meta])* $variant:ident($ty:ident, $cfg:ident) = $kind:literal,)+) => {
        /// The closed set of disciplines.
        #[derive(Debug)]
        pub enum AnyQdisc<P> {
            $($(#[$m])* $variant($ty<P>),)+
        }

        /// A discipline and its parameters: `{ kind = "codel", target = "5ms", ... }`.
        /// Deserializing it directly fills omitted keys from each config's `Default`; the
        /// simulator's scenario layer resolves them per profile ([`QdiscParams::for_profile`])
        /// and keeps field paths in its errors.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "kind")]
        pub enum QdiscConfig {
            $($(#[$m])* #[serde(rename = $kind)] $variant($cfg),)+
        }

        impl QdiscConfig {
            /// Every `kind`, in the order of the list.
            pub const KINDS: &'static [&'static str] = &[$($kind),+];

            pub fn kind(&self) -> &'static str {
                match self { $(QdiscConfig::$variant(_) => $kind),+ }
            }
            /// The parameters of `kind` under `profile`, every one at its default.
            pub fn defaults(kind: &str, profile: Profile) -> Option<QdiscConfig> {
                match kind {
                    $($kind => Some(QdiscConfig::$variant(<$cfg as QdiscParams>::for_profile(profile))),)+
                    _ => None,
                }
            }
            /// Keys of `kind` that have no default (a table must give them).
            pub fn required(kind: &str) -> &'static [&'static str] {
                match kind {
                    $($kind => <$cfg as QdiscParams>::REQUIRED,)+
                    _ => &[],
                }
            }
            /// Deserialize the parameters of `kind` (the table without its `kind` key).
            pub fn deserialize_kind<'de, D: Deserializer<'de>>(kind: &str, d: D) -> Result<QdiscConfig, D::Error> {
                match kind {
                    $($kind => <$cfg as Deserialize>::deserialize(d).map(QdiscConfig::$variant),)+
                    other => Err(<D::Error as serde::de::Error>::unknown_variant(other, Self::KINDS)),
                }
            }
            /// Checks across fields; the error names the field.
            pub fn validate(&self) -> Result<(), ParamError> {
                match self { $(QdiscConfig::$variant(c) => c.validate(),)+ }
            }
        }

        impl<P: Queued> AnyQdisc<P> {
            /// Build the discipline; `rng` is the queue's own stream (a discipline may draw
            /// from it once here, e.g. FQ-CoDel's hash perturbation).
            pub fn new(cfg: &QdiscConfig, rng: &mut RngStream) -> Self {
                match cfg { $(QdiscConfig::$variant(c) => AnyQdisc::$variant($ty::from_config(c, rng)),)+ }
            }
        }

        impl<P: Queued> QueueDisc<P> for AnyQdisc<P> {
            fn name(&self) -> &'static str {
                match self { $(AnyQdisc::$variant(q) => q.name(),)+ }
            }
            #[inline]
            fn enqueue(&mut self, pkt: P, now: Time, cx: &mut QdiscCx<'_, P>) -> Enqueue<P> {
                match self { $(AnyQdisc::$variant(q) => q.enqueue(pkt, now, cx),)+ }
            }
            #[inline]
            fn dequeue(&mut self, now: Time, cx: &mut QdiscCx<'_, P>) -> Option<Dequeued<P>> {
                match self { $(AnyQdisc::$variant(q) => q.dequeue(now, cx),)+ }
            }
            #[inline]
            fn occupancy(&self) -> Occupancy {
                match self { $(AnyQdisc::$variant(q) => q.occupancy(),)+ }
            }
            fn limit(&self) -> QueueLimit {
                match self { $(AnyQdisc::$variant(q) => q.limit(),)+ }
            }
            #[inline]
            fn passes_through_when_empty(&self, len: u32) -> bool {
                match self { $(AnyQdisc::$variant(q) => q.passes_through_when_empty(len),)+ }
            }
            #[inline]
            fn pass_through_max_len(&self) -> Option<u32> {
                match self { $(AnyQdisc::$variant(q) => q.pass_through_max_len(),)+ }
            }
        }
    };
}

disciplines! {
    /// Drop-tail FIFO ([`drop_tail`]).
    DropTail(DropTail, DropTailConfig) = "drop_tail",
    /// CoDel ([`codel`], RFC 8289).
    Codel(Codel, CodelConfig) = "codel",
    /// FQ-CoDel ([`fq_codel`], RFC 8290).
    FqCodel(FqCodel, FqCodelConfig) = "fq_codel",
    /// RED ([`red`]).
    Red(Red, RedConfig) = "red",
    /// Adaptive RED: RED with its parameters from the link and `max_p` adapted ([`red`]).
    Ared(Red, AredConfig) = "ared",
    /// PIE, RFC 8033 or ns-3.30's ([`pie`]).
    Pie(Pie, PieConfig) = "pie",
    /// CHOKe ([`choke`]).
    Choke(Choke, ChokeConfig) = "choke",
}

#[cfg(test)]
pub(crate) mod testpkt {
    use super::*;

    /// A minimal packet for queue tests.
    #[derive(Clone, Debug, PartialEq)]
    pub struct TestPkt {
        pub id: u32,
        pub len: u32,
        pub t: Time,
        pub ecn: Ecn,
        /// The flow (what `flow_hash` returns).
        pub flow: u32,
    }
    impl TestPkt {
        pub fn new(id: u32, len: u32) -> Self {
            TestPkt { id, len, t: Time::ZERO, ecn: Ecn::NotEct, flow: id % 7 }
        }
    }
    impl Queued for TestPkt {
        fn len_bytes(&self) -> u32 {
            self.len
        }
        fn enqueued_at(&self) -> Time {
            self.t
        }
        fn stamp(&mut self, t: Time) {
            self.t = t
        }
        fn ecn(&self) -> Ecn {
            self.ecn
        }
        fn set_ce(&mut self) {
            self.ecn = Ecn::Ce
        }
        fn flow_hash(&self) -> u32 {
            self.flow
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Updates due every 15 ms from 15 ms, caught up at packet events: an event at 50 ms runs
    // the ones due at 15, 30 and 45 ms, in order and with their own times; one at 60 ms runs
    // the 60 ms update (due at the event's instant counts); nothing again until 75 ms.
    #[test]
    fn periodic_work_runs_every_due_instant_once_in_order() {
        let ms = |m: u64| Time(m * 1_000_000);
        let mut p = Periodic::new(ms(15), Dur::from_millis(15));
        assert_eq!(p.next_due(ms(14)), None);
        let mut got = Vec::new();
        while let Some(t) = p.next_due(ms(50)) {
            got.push(t);
        }
        assert_eq!(got, [ms(15), ms(30), ms(45)]);
        assert_eq!(p.next_due(ms(60)), Some(ms(60)));
        assert_eq!(p.next_due(ms(74)), None);
        assert_eq!(p.next(), ms(75));
    }

    // tests that RED, ARED and CHOKe, whose `bandwidth` defaults to the link's rate, take it
    // on a link; that a bandwidth given stays; that an ideal link (rate 0) leaves "auto" for
    // the discipline's own default; and that the other disciplines are handed back unchanged.
    #[test]
    fn the_red_family_takes_its_links_rate_for_an_automatic_bandwidth() {
        use crate::time::Rate;
        let link = Rate::mbps(100);
        let bw = |c: &QdiscConfig| match c {
            QdiscConfig::Red(c) => c.bandwidth,
            QdiscConfig::Ared(c) => c.bandwidth,
            QdiscConfig::Choke(c) => c.bandwidth,
            _ => unreachable!(),
        };
        let family = [
            QdiscConfig::Red(RedConfig::default()),
            QdiscConfig::Ared(AredConfig::default()),
            QdiscConfig::Choke(ChokeConfig::default()),
        ];
        for c in family {
            assert_eq!(bw(&c), Auto::Auto, "{c:?}");
            assert_eq!(bw(&c.clone().on_link(link)), Auto::Value(link), "{c:?}");
            assert_eq!(bw(&c.clone().on_link(Rate(0))), Auto::Auto, "an ideal link: {c:?}");
        }
        let given = QdiscConfig::Red(RedConfig { bandwidth: Auto::Value(Rate::mbps(10)), ..RedConfig::default() });
        assert_eq!(bw(&given.on_link(link)), Auto::Value(Rate::mbps(10)));
        let codel = QdiscConfig::Codel(CodelConfig::default());
        assert_eq!(codel.clone().on_link(link), codel);
    }

    #[test]
    fn reason_names_are_distinct_and_indices_dense() {
        for (i, r) in DropReason::ALL.iter().enumerate() {
            assert_eq!(r.index(), i);
        }
        for (i, r) in MarkReason::ALL.iter().enumerate() {
            assert_eq!(r.index(), i);
        }
        let mut names: Vec<_> = DropReason::ALL.iter().map(|r| r.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), DropReason::COUNT);
    }
}

impl QdiscConfig {
    /// The config on a link of `rate`: parameters that default to the link's rate (the RED
    /// family's `bandwidth = "auto"`) take it. A zero rate (an ideal link) leaves them alone.
    pub fn on_link(mut self, rate: crate::time::Rate) -> QdiscConfig {
        if rate.as_bps() == 0 {
            return self;
        }
        let bw = match &mut self {
            QdiscConfig::Red(c) => Some(&mut c.bandwidth),
            QdiscConfig::Ared(c) => Some(&mut c.bandwidth),
            QdiscConfig::Choke(c) => Some(&mut c.bandwidth),
            _ => None,
        };
        if let Some(bw) = bw {
            if *bw == Auto::Auto {
                *bw = Auto::Value(rate);
            }
        }
        self
    }
}
