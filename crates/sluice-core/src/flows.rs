//! The gateway's flow table: what network-return controllers know of each TCP connection.
//!
//! The table is fed every TCP segment the gateway forwards ([`FlowTable::observe`]) and keeps,
//! per connection: the normalised 5-tuple and which endpoint initiated it, its state, the
//! handshake timestamps and the handshake RTT, the window-scale shift and MSS each endpoint
//! announced, an ongoing RTT estimate, the DSCP of its latest data packet and byte and packet
//! counters. A separate estimator ([`UdpRate`]) keeps the UDP rate on the monitored egress.
//! The table has no clock: every call takes `now`. Everything is documented in
//! docs/algorithms/network-return.md, "Flow table".
//!
//! ```text
//!            SYN                 SYN-ACK                  ACK of SYN-ACK
//!  (none) ───────▶ SynSeen ─────────────▶ SynAckSeen ──────────────────▶ Established
//!     │                │ any non-SYN segment (SYN-ACK missed)                 │ FIN from one side
//!     │                └──────────────────────────────────────────────▶       ▼
//!     │ non-SYN segment of an unknown flow (mid-stream pickup)          FinSeen(side)
//!     └───────────────────────────────────────────────────▶ Established       │ FIN from the other
//!                                                                             ▼
//!  RST (either side): removed at once                                      Closed ── + fin_linger: removed
//!  no packet for idle_timeout: removed
//! ```
//!
//! **Bounded.** At `capacity` entries an insertion evicts, in this order, the earliest closed
//! flow, the least recently seen half-open flow (handshake not complete), the least recently
//! seen established flow idle for at least `active_window`; an established flow that sent a
//! packet within `active_window` is never evicted, and the new flow is then not recorded
//! ([`FlowTable::rejected`]). So a SYN flood recycles half-open entries and cannot grow the
//! table. Three intrusive lists ordered by recency make eviction and expiry O(1) per flow.
//!
//! **Lookup hash.** A 5-tuple is found through a hash map whose hasher is specified here, not
//! `RandomState`: the key as two 64-bit words (`address << 16 | port` of the lower end, then of
//! the higher), each folded in by one FNV-1a step (XOR, then multiply by the 64-bit FNV prime),
//! starting from the FNV offset basis XOR-ed with `hash_seed`, finished with the SplitMix64
//! mixer ([`FlowHasher`]). Nothing
//! iterates the map: flows are visited in slot order, which depends only on the sequence of
//! packets, so a run is deterministic. A gateway facing untrusted traffic should set a secret
//! `hash_seed`.

use crate::packet::{proto, tcp_flags, HeaderView};
use crate::seq::{seq_le, seq_lt};
use crate::time::{Dur, Rate, Time};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

/// One end of a connection: IPv4 address and port. Ordered by address, then port; compared
/// and hashed as one word ([`Endpoint::word`]).
#[derive(Copy, Clone, Debug, Default)]
pub struct Endpoint {
    pub addr: u32,
    pub port: u16,
}

impl Endpoint {
    /// `addr << 16 | port`: equal, and ordered, exactly as the endpoints.
    #[inline]
    pub fn word(self) -> u64 {
        (self.addr as u64) << 16 | self.port as u64
    }
    fn from_word(w: u64) -> Endpoint {
        Endpoint { addr: (w >> 16) as u32, port: w as u16 }
    }
}

impl PartialEq for Endpoint {
    #[inline]
    fn eq(&self, other: &Endpoint) -> bool {
        self.word() == other.word()
    }
}

impl Eq for Endpoint {}

impl PartialOrd for Endpoint {
    #[inline]
    fn partial_cmp(&self, other: &Endpoint) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Endpoint {
    #[inline]
    fn cmp(&self, other: &Endpoint) -> std::cmp::Ordering {
        self.word().cmp(&other.word())
    }
}

impl std::hash::Hash for Endpoint {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.word());
    }
}

/// A TCP 5-tuple normalised so both directions map to it: `lo < hi` (by address, then port).
/// The protocol is always TCP. Kept as the two ends' [`Endpoint::word`]s.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct FlowKey {
    lo: u64,
    hi: u64,
}

impl std::hash::Hash for FlowKey {
    /// Two 64-bit words, `addr << 16 | port` of each end, low end first (the module doc's
    /// lookup hash).
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.lo);
        h.write_u64(self.hi);
    }
}

impl FlowKey {
    /// The key of a segment from `src` to `dst`.
    #[inline]
    pub fn new(src: Endpoint, dst: Endpoint) -> FlowKey {
        let (a, b) = (src.word(), dst.word());
        FlowKey { lo: a.min(b), hi: a.max(b) }
    }
    /// The lower end.
    pub fn lo(&self) -> Endpoint {
        Endpoint::from_word(self.lo)
    }
    /// The higher end.
    pub fn hi(&self) -> Endpoint {
        Endpoint::from_word(self.hi)
    }
}

impl std::fmt::Debug for FlowKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlowKey").field("lo", &self.lo()).field("hi", &self.hi()).finish()
    }
}

/// Which endpoint of a connection.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The endpoint that sent the SYN (for a mid-stream pickup: the guess of
    /// [`FlowEntry::initiator_known`]).
    Initiator,
    /// The other one.
    Responder,
}

impl Side {
    fn idx(self) -> usize {
        match self {
            Side::Initiator => 0,
            Side::Responder => 1,
        }
    }
    /// The other endpoint.
    pub fn other(self) -> Side {
        match self {
            Side::Initiator => Side::Responder,
            Side::Responder => Side::Initiator,
        }
    }
}

/// A flow's identity in the table: stable while the entry lives, never reused for another
/// connection (a slot index and that slot's generation).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u64);

impl FlowId {
    fn new(slot: u32, gen: u32) -> FlowId {
        FlowId(((gen as u64) << 32) | slot as u64)
    }
    fn slot(self) -> usize {
        (self.0 & 0xffff_ffff) as usize
    }
}

/// Per-flow state of a table's user (a controller), keyed by [`FlowId`]: one place per table
/// slot, so a lookup is an index and a generation check. Holds at most as many places as the
/// table has slots (its `capacity`).
#[derive(Clone, Debug)]
pub struct FlowMap<T> {
    places: Vec<Option<(FlowId, T)>>,
}

impl<T> Default for FlowMap<T> {
    fn default() -> Self {
        FlowMap { places: Vec::new() }
    }
}

impl<T> FlowMap<T> {
    pub fn get(&self, id: FlowId) -> Option<&T> {
        match self.places.get(id.slot()) {
            Some(Some((k, v))) if *k == id => Some(v),
            _ => None,
        }
    }
    pub fn get_mut(&mut self, id: FlowId) -> Option<&mut T> {
        match self.places.get_mut(id.slot()) {
            Some(Some((k, v))) if *k == id => Some(v),
            _ => None,
        }
    }
    /// Store `v` for `id`; returns what `id` held before. Whatever an older flow of the same
    /// slot left there (its removal missed) is dropped.
    pub fn insert(&mut self, id: FlowId, v: T) -> Option<T> {
        let s = id.slot();
        if s >= self.places.len() {
            self.places.resize_with(s + 1, || None);
        }
        match self.places[s].replace((id, v)) {
            Some((k, old)) if k == id => Some(old),
            _ => None,
        }
    }
    pub fn remove(&mut self, id: FlowId) -> Option<T> {
        let place = self.places.get_mut(id.slot())?;
        match place {
            Some((k, _)) if *k == id => place.take().map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Connection state as the gateway sees it (module doc diagram).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FlowState {
    SynSeen,
    SynAckSeen,
    Established,
    /// One FIN seen, from this side.
    FinSeen(Side),
    /// FINs from both sides; removed `fin_linger` later.
    Closed,
}

/// What one endpoint announced and sent. Laid out with what every segment updates first
/// (endpoint, counters, highest sequence and acknowledgment: 48 bytes).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct EndInfo {
    pub endpoint: Endpoint,
    /// IP bytes and packets it sent through the gateway.
    pub bytes: u64,
    pub packets: u64,
    /// TCP payload bytes it sent (retransmissions included).
    pub payload_bytes: u64,
    /// One past the highest sequence number it has sent (data, SYN and FIN count).
    pub highest_end: Option<u32>,
    /// The highest acknowledgment number it has sent.
    pub highest_ack: Option<u32>,
    /// The MSS option of that SYN.
    pub mss: Option<u16>,
    /// The window-scale option of that SYN, clamped to 14 (RFC 7323 §2.3); `None` if absent
    /// or not seen.
    pub wscale_option: Option<u8>,
    /// Its SYN (initiator) or SYN-ACK (responder) passed the gateway.
    pub syn_seen: bool,
    /// That SYN carried the timestamps option.
    pub timestamps: bool,
    /// When its FIN first passed.
    pub fin_at: Option<Time>,
}

impl EndInfo {
    /// A segment from this end reaching sequence number `end_seq` (exclusive), carrying `ack`
    /// if it has the ACK flag: the highest of each, in sequence space.
    #[inline]
    fn advance(&mut self, end_seq: u32, ack: Option<u32>) {
        if self.highest_end.is_none_or(|h| seq_lt(h, end_seq)) {
            self.highest_end = Some(end_seq);
        }
        if let Some(a) = ack {
            if self.highest_ack.is_none_or(|h| seq_lt(h, a)) {
                self.highest_ack = Some(a);
            }
        }
    }
}

/// An RTT probe of the ongoing estimate (docs/algorithms/network-return.md, "Ongoing RTT").
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Probe {
    /// TSval to be echoed, or the sequence number to be acknowledged.
    value: u32,
    at: Time,
}

/// [`FlowEntry`]'s `mss` when the handshake showed none (an MSS option is 16 bits).
const NO_MSS: u32 = u32::MAX;

/// One connection.
///
/// Laid out for the per-segment paths: the first 64 bytes hold what finding the entry, telling
/// the sides apart and a controller's reading of an established flow need (identity, key,
/// state, shifts, MSS, handshake RTT); each side's [`EndInfo`] follows, its per-segment part
/// within one further 64-byte line when the table's slots are aligned to 64 bytes.
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct FlowEntry {
    pub id: FlowId,
    pub key: FlowKey,
    pub last_seen: Time,
    /// `t_ack − t_syn` when the handshake was seen whole, unrepeated, and the ACK acknowledges
    /// the SYN-ACK seen.
    pub rtt_handshake: Option<Dur>,
    /// The [`FlowEntry::sender_mss`] ([`NO_MSS`] for none) and each side's
    /// [`FlowEntry::shift`], derived again whenever a SYN passes.
    mss: u32,
    shifts: [Option<u8>; 2],
    pub state: FlowState,
    /// The initiator is `key.lo()` (else `key.hi()`).
    initiator_is_lo: bool,
    /// Handshake complete (or picked up mid-stream): what RWM counts and controls.
    pub registered: bool,
    /// DSCP of the latest data-carrying packet (either direction).
    pub dscp: u8,
    /// False for a mid-stream pickup whose SYN and SYN-ACK were both missed: the initiator is
    /// then guessed as the endpoint with the higher port (ephemeral ports are high), ties to
    /// the sender of the first packet seen.
    pub initiator_known: bool,
    ends: [EndInfo; 2],
    /// Ongoing estimate: `7/8·rtt + 1/8·sample` and the minimum sample.
    pub rtt_smoothed: Option<Dur>,
    pub rtt_min: Option<Dur>,
    pub first_seen: Time,
    /// When the SYN, the SYN-ACK and the initiator's ACK of the SYN-ACK passed (first copies).
    pub t_syn: Option<Time>,
    pub t_synack: Option<Time>,
    pub t_ack: Option<Time>,
    /// When both FINs had passed.
    pub closed_at: Option<Time>,
    /// A second SYN (same sequence number) or SYN-ACK passed: no handshake RTT (Karn).
    pub syn_retransmitted: bool,
    pub synack_retransmitted: bool,
    syn_seq: u32,
    synack_seq: u32,
    /// Timestamp probes by the side whose segment is to be echoed; and the newest loop time
    /// measured through each side (gateway → that side → gateway).
    ts_probe: [Option<Probe>; 2],
    seq_probe: [Option<Probe>; 2],
    ack_probe: [Option<Probe>; 2],
    loop_through: [Option<Dur>; 2],
}

impl FlowEntry {
    /// A new entry: nothing seen yet but its first segment's time; registered if `state` is
    /// established (a mid-stream pickup).
    fn new(id: FlowId, key: FlowKey, initiator: Endpoint, known: bool, state: FlowState, now: Time) -> FlowEntry {
        let responder = if initiator == key.lo() { key.hi() } else { key.lo() };
        let mut ends = [EndInfo::default(); 2];
        ends[0].endpoint = initiator;
        ends[1].endpoint = responder;
        FlowEntry {
            id,
            key,
            initiator_is_lo: initiator == key.lo(),
            initiator_known: known,
            state,
            first_seen: now,
            last_seen: now,
            t_syn: None,
            t_synack: None,
            t_ack: None,
            syn_retransmitted: false,
            synack_retransmitted: false,
            rtt_handshake: None,
            rtt_smoothed: None,
            rtt_min: None,
            registered: state == FlowState::Established,
            dscp: 0,
            closed_at: None,
            ends,
            shifts: [None; 2],
            mss: NO_MSS,
            syn_seq: 0,
            synack_seq: 0,
            ts_probe: [None; 2],
            seq_probe: [None; 2],
            ack_probe: [None; 2],
            loop_through: [None; 2],
        }
    }
    /// Which side sent a segment from `addr:port`, if it belongs to this flow.
    /// (Read from the key: the initiator is its low end when `initiator_is_lo`.)
    #[inline]
    pub fn side_of(&self, addr: u32, port: u16) -> Option<Side> {
        let w = Endpoint { addr, port }.word();
        let is_lo = if w == self.key.lo {
            true
        } else if w == self.key.hi {
            false
        } else {
            return None;
        };
        Some(if is_lo == self.initiator_is_lo { Side::Initiator } else { Side::Responder })
    }
    /// What `side` announced and sent.
    pub fn end(&self, side: Side) -> &EndInfo {
        &self.ends[side.idx()]
    }
    fn end_mut(&mut self, side: Side) -> &mut EndInfo {
        &mut self.ends[side.idx()]
    }
    /// The initiator's shift as recorded: `None` if its SYN was not seen, `Some(0)` if the SYN
    /// carried no window-scale option.
    pub fn wscale_init(&self) -> Option<u8> {
        let e = self.end(Side::Initiator);
        e.syn_seen.then(|| e.wscale_option.unwrap_or(0))
    }
    /// The responder's shift as recorded (as [`FlowEntry::wscale_init`]).
    pub fn wscale_resp(&self) -> Option<u8> {
        let e = self.end(Side::Responder);
        e.syn_seen.then(|| e.wscale_option.unwrap_or(0))
    }
    /// Both SYN and SYN-ACK were seen and both carried the window-scale option.
    pub fn ws_ok(&self) -> bool {
        let (i, r) = (self.end(Side::Initiator), self.end(Side::Responder));
        i.syn_seen && r.syn_seen && i.wscale_option.is_some() && r.wscale_option.is_some()
    }
    /// The shift by which `side` scales the windows it advertises, if known (RFC 7323 §2.2:
    /// scaling is on only when both SYNs carried the option, and then each side uses the shift
    /// it announced). Known from the SYNs seen: both seen; or one seen without the option
    /// (scaling is then off, shift 0 both ways); or only the SYN-ACK seen, with the option
    /// (the SYN must have carried it too): the responder's shift. Otherwise `None`.
    #[inline]
    pub fn shift(&self, side: Side) -> Option<u8> {
        self.shifts[side.idx()]
    }
    /// [`FlowEntry::shift`] from the SYNs seen (kept in `shifts` whenever a SYN passes).
    fn derive_shift(&self, side: Side) -> Option<u8> {
        let (i, r) = (self.end(Side::Initiator), self.end(Side::Responder));
        if i.syn_seen && r.syn_seen {
            return Some(if self.ws_ok() { self.end(side).wscale_option.unwrap_or(0) } else { 0 });
        }
        if (i.syn_seen && i.wscale_option.is_none()) || (r.syn_seen && r.wscale_option.is_none()) {
            return Some(0);
        }
        if r.syn_seen && side == Side::Responder {
            return r.wscale_option;
        }
        None
    }
    /// The endpoint that sent the SYN (see [`FlowEntry::initiator_known`]).
    pub fn initiator(&self) -> Endpoint {
        self.end(Side::Initiator).endpoint
    }
    /// The other endpoint; its port is what RWM's classes match.
    pub fn responder(&self) -> Endpoint {
        self.end(Side::Responder).endpoint
    }
    /// The payload size of a full segment, if the handshake showed it: the smaller MSS
    /// announced, less 12 bytes when both SYNs carried timestamps (Linux `tcp_mss_to_mtu`'s
    /// `mss_cache`: 1448 on a 1500-byte MTU).
    #[inline]
    pub fn sender_mss(&self) -> Option<u32> {
        (self.mss != NO_MSS).then_some(self.mss)
    }
    /// [`FlowEntry::sender_mss`] from the SYNs seen (kept in `mss` whenever a SYN passes).
    fn derive_mss(&self) -> Option<u32> {
        let (i, r) = (self.end(Side::Initiator), self.end(Side::Responder));
        let mss = match (i.mss, r.mss) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return None,
        } as u32;
        let ts = i.syn_seen && r.syn_seen && i.timestamps && r.timestamps;
        Some(if ts { mss.saturating_sub(12).max(1) } else { mss })
    }
    /// Both SYNs were seen with the timestamps option (RFC 7323 §3.2).
    fn ts_ok(&self) -> bool {
        let (i, r) = (self.end(Side::Initiator), self.end(Side::Responder));
        i.syn_seen && r.syn_seen && i.timestamps && r.timestamps
    }
    /// Not closed: what `flow_count = "table"` counts.
    pub fn is_active(&self) -> bool {
        self.state != FlowState::Closed
    }
}

/// Which flows keep the ongoing RTT estimate ([`FlowTable::set_ongoing_rtt`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OngoingRtt {
    /// None: the controller reads no ongoing RTT.
    Off,
    /// Flows without a handshake RTT (picked up mid-stream, or a SYN or SYN-ACK repeated): the
    /// controller falls back to the ongoing RTT only there.
    WithoutHandshake,
    /// Every flow.
    On,
}

/// How a controller counts the active flows `N` (docs/algorithms/network-return.md).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowCount {
    /// Entries not closed.
    #[default]
    Table,
    /// Entries not closed with a packet within the table's `active_window` (1 s).
    Recent,
    /// The count the caller hands in ([`crate::control::GatewayView::oracle_flows`]): the
    /// simulator's exact number of connections, for reproductions.
    Oracle,
}

/// The flow table's parameters: `[gateway.flows]`-style keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FlowTableConfig {
    /// Most entries kept (65,536, Sluice's choice).
    pub capacity: u32,
    /// A flow with no packet for this long is removed (10 s, Sluice's choice).
    pub idle_timeout: Dur,
    /// A flow is removed this long after FINs from both sides (2 s, Sluice's choice).
    pub fin_linger: Dur,
    /// "Recent" for `flow_count = "recent"` and for eviction (1 s, Sluice's choice).
    pub active_window: Dur,
    /// Mixed into the lookup hash (module doc); 0 by default.
    pub hash_seed: u64,
}

impl Default for FlowTableConfig {
    /// Sluice's own choices (no source speaks to them): 65,536 entries, 10 s idle timeout,
    /// 2 s FIN linger, 1 s activity window.
    fn default() -> Self {
        FlowTableConfig { capacity: 65_536, idle_timeout: Dur::from_secs(10), fin_linger: Dur::from_secs(2), active_window: Dur::from_secs(1), hash_seed: 0 }
    }
}

impl FlowTableConfig {
    /// Checks the fields; the error names the field.
    pub fn validate(&self) -> Result<(), crate::qdisc::ParamError> {
        use crate::qdisc::ParamError;
        if self.capacity == 0 || self.capacity >= u32::MAX / 2 {
            return Err(ParamError::new("capacity", format!("must be between 1 and {}, got {}", u32::MAX / 2 - 1, self.capacity)));
        }
        if self.idle_timeout.0 == 0 {
            return Err(ParamError::new("idle_timeout", "must be greater than 0"));
        }
        if self.active_window.0 == 0 {
            return Err(ParamError::new("active_window", "must be greater than 0"));
        }
        Ok(())
    }
}

/// Why a flow left the table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RemoveReason {
    Rst,
    /// FINs from both sides, plus the linger.
    Fin,
    Idle,
    /// Evicted to make room.
    Evicted,
    /// A new SYN on the 5-tuple of a closing connection.
    Reused,
}

/// What happened to flows, for controllers that keep per-flow state (RWM).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FlowEvent {
    /// The handshake completed, or a flow was picked up mid-stream.
    Registered(FlowId),
    /// The flow left the table; `registered` says whether it had been.
    Removed { id: FlowId, reason: RemoveReason, registered: bool },
    /// The minimum ongoing RTT sample fell.
    MinRttChanged(FlowId),
}

/// The specified lookup hasher: FNV-1a 64 steps (XOR, then multiply by the FNV prime) over
/// each byte written, or over each 64-bit word written whole; SplitMix64 at the end.
#[derive(Clone, Debug)]
pub struct FlowHasher(u64);

const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

impl Hasher for FlowHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(FNV_PRIME);
        }
    }
    #[inline]
    fn write_u64(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(FNV_PRIME);
    }
    fn finish(&self) -> u64 {
        let mut z = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Builds [`FlowHasher`]s from the FNV offset basis XOR the seed.
#[derive(Clone, Debug)]
pub struct FlowHashBuilder(u64);

impl BuildHasher for FlowHashBuilder {
    type Hasher = FlowHasher;
    fn build_hasher(&self) -> FlowHasher {
        FlowHasher(0xcbf2_9ce4_8422_2325 ^ self.0)
    }
}

const NIL: u32 = u32::MAX;
/// The lists' count: `links` holds one sentinel per list first, then slot `s`'s link at
/// `s + LISTS`.
const LISTS: u32 = 3;
/// Lists: 0 closed (by `closed_at`), 1 half-open, 2 established and closing (by `last_seen`).
const CLOSED: usize = 0;
const HALF_OPEN: usize = 1;
const OPEN: usize = 2;

/// A table slot, aligned so that an entry's first bytes start a 64-byte line ([`FlowEntry`]).
/// A free slot keeps its last entry with the id [`VACANT`]: telling a slot's entry from none
/// reads the id, in the line a lookup reads anyway.
#[derive(Clone, Debug)]
#[repr(align(64))]
struct Slot {
    entry: FlowEntry,
    gen: u32,
}

/// The id of a free slot's entry: no flow has it (its slot index is above any capacity).
const VACANT: FlowId = FlowId(u64::MAX);

/// A slot's place in its list. Kept apart from the slots: moving a flow to the tail of its
/// list touches its neighbours' links, a few bytes each, not their entries. Each list is a
/// ring through its sentinel (`prev` and `next` are indices into `links`), so linking and
/// unlinking have no end cases.
#[derive(Copy, Clone, Debug)]
struct Link {
    list: u32,
    prev: u32,
    next: u32,
}

/// The flow table (module doc).
#[derive(Clone, Debug)]
pub struct FlowTable {
    cfg: FlowTableConfig,
    index: HashMap<FlowKey, u32, FlowHashBuilder>,
    slots: Vec<Slot>,
    /// The lists' sentinels (their `next` is the list's head, their `prev` its tail), then per
    /// slot its place in its list.
    links: Vec<Link>,
    free: Vec<u32>,
    lens: [u32; 3],
    /// No entry's time is up before this: `expire` has nothing to do until then. A lower
    /// bound, kept by `expire` (the earliest list head), `insert` (each new entry) and `update`
    /// (an entry that closes; one moving to its list's tail only goes later than it would have).
    next_expiry: Time,
    /// The key and slot `observe` last touched, while that slot holds that key's entry
    /// (removing the entry clears it): consecutive segments are often of one connection, and
    /// a gateway looks a segment up again at its rewrite point, usually right after forwarding
    /// it.
    last: Option<(FlowKey, u32)>,
    events: Vec<FlowEvent>,
    evicted: u64,
    rejected: u64,
    udp: UdpRate,
    /// Which flows keep the ongoing RTT estimate.
    ongoing_rtt: OngoingRtt,
}

impl FlowTable {
    /// An empty table (`cfg` validated by the caller).
    pub fn new(cfg: FlowTableConfig) -> FlowTable {
        let h = FlowHashBuilder(cfg.hash_seed);
        FlowTable {
            cfg,
            index: HashMap::with_hasher(h),
            slots: Vec::new(),
            links: (0..LISTS).map(|l| Link { list: l, prev: l, next: l }).collect(),
            free: Vec::new(),
            lens: [0; 3],
            next_expiry: Time::MAX,
            last: None,
            events: Vec::new(),
            evicted: 0,
            rejected: 0,
            udp: UdpRate::default(),
            ongoing_rtt: OngoingRtt::On,
        }
    }

    /// Which flows keep the ongoing RTT estimate (`rtt_smoothed`, `rtt_min` and
    /// [`FlowEvent::MinRttChanged`]): a gateway whose controller reads no RTT, or reads it only
    /// for flows without a handshake RTT, saves the per-segment work. All flows by default; the
    /// handshake RTT is kept either way.
    pub fn set_ongoing_rtt(&mut self, mode: OngoingRtt) {
        self.ongoing_rtt = mode;
    }

    pub fn config(&self) -> &FlowTableConfig {
        &self.cfg
    }
    /// Entries in the table (closed ones included).
    pub fn len(&self) -> usize {
        self.index.len()
    }
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
    /// Entries evicted to make room so far.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }
    /// New flows not recorded because every entry was an active established flow.
    pub fn rejected(&self) -> u64 {
        self.rejected
    }
    /// The entry of `id`, if it is still in the table.
    pub fn get(&self, id: FlowId) -> Option<&FlowEntry> {
        let e = &self.slots.get(id.slot())?.entry;
        (e.id == id).then_some(e)
    }
    /// The entry of the connection a segment from `src` to `dst` belongs to.
    pub fn lookup(&self, src: Endpoint, dst: Endpoint) -> Option<&FlowEntry> {
        self.lookup_key(FlowKey::new(src, dst))
    }
    fn lookup_key(&self, key: FlowKey) -> Option<&FlowEntry> {
        if let Some((k, s)) = self.last {
            if k == key {
                return Some(&self.slots[s as usize].entry);
            }
        }
        let &s = self.index.get(&key)?;
        Some(&self.slots[s as usize].entry)
    }
    /// The entry `seg` belongs to (TCP only).
    pub fn lookup_segment(&self, seg: &impl HeaderView) -> Option<&FlowEntry> {
        self.lookup_segment_seen(seg, None)
    }
    /// The entry `seg` belongs to, trying first `seen`, the id [`FlowTable::observe`] returned
    /// for this segment (a datapath that carries it from forward to departure saves a hash
    /// lookup). A stale or wrong `seen` costs only the check.
    pub fn lookup_segment_seen(&self, seg: &impl HeaderView, seen: Option<FlowId>) -> Option<&FlowEntry> {
        let (src, dst) = endpoints(seg)?;
        let key = FlowKey::new(src, dst);
        if let Some(e) = seen.and_then(|id| self.get(id)) {
            if e.key == key {
                return Some(e);
            }
        }
        self.lookup_key(key)
    }
    /// Every entry, in slot order (deterministic).
    pub fn iter(&self) -> impl Iterator<Item = &FlowEntry> + '_ {
        self.slots.iter().map(|s| &s.entry).filter(|e| e.id != VACANT)
    }
    /// The number of active flows under `mode` at `now` (`oracle` is the caller's count, used
    /// only by [`FlowCount::Oracle`]; without it the table's count). Not `max(N, 1)`: callers
    /// that divide take that themselves.
    pub fn count(&self, mode: FlowCount, now: Time, oracle: Option<u32>) -> u32 {
        match mode {
            FlowCount::Table => self.lens[HALF_OPEN] + self.lens[OPEN],
            FlowCount::Oracle => oracle.unwrap_or(self.lens[HALF_OPEN] + self.lens[OPEN]),
            FlowCount::Recent => {
                let mut n = 0;
                for list in [HALF_OPEN, OPEN] {
                    let mut s = self.tail(list);
                    while s != NIL {
                        let e = &self.slots[s as usize].entry;
                        if now.since(e.last_seen) > self.cfg.active_window {
                            break;
                        }
                        n += 1;
                        s = Self::slot_of(self.links[(s + LISTS) as usize].prev);
                    }
                }
                n
            }
        }
    }
    /// Moves the events since the last call into `out` (appending).
    pub fn take_events(&mut self, out: &mut Vec<FlowEvent>) {
        out.append(&mut self.events);
    }
    /// Whether [`FlowTable::expire`] at `now` may remove a flow (false: it certainly removes
    /// none).
    #[inline]
    pub fn expiry_due(&self, now: Time) -> bool {
        now >= self.next_expiry
    }
    /// Whether events wait for [`FlowTable::take_events`].
    #[inline]
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }
    /// The UDP rate estimator of the monitored egress.
    pub fn udp(&self) -> &UdpRate {
        &self.udp
    }
    /// Count a UDP packet of `ip_bytes` forwarded on the monitored egress at `now`.
    pub fn count_udp(&mut self, ip_bytes: u32, now: Time) {
        self.udp.on_bytes(ip_bytes as u64, now);
    }

    /// Remove the flows whose time is up at `now`: closed for `fin_linger`, or idle for
    /// `idle_timeout`. [`FlowTable::observe`] calls it first; call it before reading counts
    /// when no packet passed for a while.
    #[inline]
    pub fn expire(&mut self, now: Time) {
        if self.expiry_due(now) {
            self.expire_now(now);
        }
    }

    #[inline(never)]
    fn expire_now(&mut self, now: Time) {
        loop {
            let h = self.head(CLOSED);
            if h == NIL {
                break;
            }
            let e = &self.slots[h as usize].entry;
            if e.closed_at.is_none_or(|c| c + self.cfg.fin_linger <= now) {
                self.remove_slot(h, RemoveReason::Fin);
            } else {
                break;
            }
        }
        for list in [HALF_OPEN, OPEN] {
            loop {
                let h = self.head(list);
                if h == NIL {
                    break;
                }
                let e = &self.slots[h as usize].entry;
                if e.last_seen + self.cfg.idle_timeout <= now {
                    self.remove_slot(h, RemoveReason::Idle);
                } else {
                    break;
                }
            }
        }
        // Each list is in time order: its head is the first of it to go.
        self.next_expiry = Time::MAX;
        for list in [CLOSED, HALF_OPEN, OPEN] {
            let h = self.head(list);
            if h != NIL {
                self.next_expiry = self.next_expiry.min(self.expiry(h, list));
            }
        }
    }

    /// When the entry in slot `s`, on `list`, goes: `fin_linger` after it closed, or
    /// `idle_timeout` after it was last seen.
    fn expiry(&self, s: u32, list: usize) -> Time {
        let e = &self.slots[s as usize].entry;
        if list == CLOSED {
            e.closed_at.map_or(Time::ZERO, |c| c + self.cfg.fin_linger)
        } else {
            e.last_seen + self.cfg.idle_timeout
        }
    }

    /// Record a segment the gateway forwards at `now` (either direction; non-TCP packets are
    /// ignored). Returns the flow's id, or `None` for non-TCP, for a RST (the flow is removed)
    /// or when the table was full of active flows.
    pub fn observe(&mut self, seg: &impl HeaderView, now: Time) -> Option<FlowId> {
        self.observe_hinted(seg, now, None)
    }

    /// [`FlowTable::observe`] with `hint`, the id the caller believes the segment's connection
    /// has (a simulator knows which connection sent a packet): when that entry holds the
    /// segment's 5-tuple it is used without a hash lookup. A wrong or stale hint costs only
    /// the check; the outcome is the same.
    pub fn observe_hinted(&mut self, seg: &impl HeaderView, now: Time, hint: Option<FlowId>) -> Option<FlowId> {
        if let Some(id) = hint {
            if self.observe_established(seg, now, id) {
                return Some(id);
            }
        }
        self.observe_any(seg, now, hint)
    }

    /// The forward's common case, in few instructions: a segment without SYN, FIN or RST of
    /// the established connection `id` names, no expiry due and no ongoing RTT to sample.
    /// Records it as [`FlowTable::observe_any`] would and returns true; false (nothing
    /// changed) for any other segment.
    #[inline]
    fn observe_established(&mut self, seg: &impl HeaderView, now: Time, id: FlowId) -> bool {
        if self.expiry_due(now) {
            return false;
        }
        let Some((src, dst)) = endpoints(seg) else { return false };
        let Some(flags) = seg.tcp_flags() else { return false };
        if flags & (tcp_flags::SYN | tcp_flags::FIN | tcp_flags::RST) != 0 {
            return false;
        }
        let s = id.slot();
        let mode = self.ongoing_rtt;
        let Some(slot) = self.slots.get_mut(s) else { return false };
        let e = &mut slot.entry;
        if e.id != id || e.state != FlowState::Established || e.key != FlowKey::new(src, dst) {
            return false;
        }
        let track_rtt = match mode {
            OngoingRtt::On => true,
            OngoingRtt::WithoutHandshake => e.rtt_handshake.is_none(),
            OngoingRtt::Off => false,
        };
        if track_rtt {
            return false;
        }
        let is_lo = src.word() == e.key.lo;
        let side = if is_lo == e.initiator_is_lo { Side::Initiator } else { Side::Responder };
        let (seq, ackno, payload) = (seg.tcp_seq().unwrap_or(0), seg.tcp_ack().unwrap_or(0), seg.payload_len());
        e.last_seen = now;
        if payload > 0 {
            e.dscp = seg.dscp();
        }
        let end = e.end_mut(side);
        end.bytes += seg.ip_len() as u64;
        end.packets += 1;
        end.payload_bytes += payload as u64;
        end.advance(seq.wrapping_add(payload), (flags & tcp_flags::ACK != 0).then_some(ackno));
        // To the open list's tail, unless already there.
        let n = s as u32 + LISTS;
        if !(self.links[n as usize].list == OPEN as u32 && self.links[OPEN].prev == n) {
            self.unlink(s as u32);
            self.link_tail(s as u32, OPEN);
        }
        true
    }

    /// [`FlowTable::observe_hinted`] for any segment.
    #[inline(never)]
    fn observe_any(&mut self, seg: &impl HeaderView, now: Time, hint: Option<FlowId>) -> Option<FlowId> {
        self.expire(now);
        let (src, dst) = endpoints(seg)?;
        let flags = seg.tcp_flags()?;
        let key = FlowKey::new(src, dst);
        let syn = flags & tcp_flags::SYN != 0;
        let ack = flags & tcp_flags::ACK != 0;
        let seq = seg.tcp_seq().unwrap_or(0);
        let hinted = hint.and_then(|id| self.get(id)).filter(|e| e.key == key).map(|e| e.id.slot() as u32);
        let mut slot = match hinted {
            Some(s) => Some(s),
            None => match self.last {
                // A filled slot was last filled by `observe` for `k` (a removal clears `last`).
                Some((k, s)) if k == key => Some(s),
                _ => self.index.get(&key).copied(),
            },
        };

        if flags & tcp_flags::RST != 0 {
            // Either direction removes (no insertion for an unknown flow).
            if let Some(s) = slot {
                self.remove_slot(s, RemoveReason::Rst);
            }
            return None;
        }
        if let (Some(s), true, false) = (slot, syn, ack) {
            // A SYN on a known 5-tuple: a retransmission, or a new connection reusing the
            // tuple of a closing one.
            let e = &self.slots[s as usize].entry;
            let closing = matches!(e.state, FlowState::Closed | FlowState::FinSeen(_));
            let restarted = e.state == FlowState::Established && (e.t_syn.is_none() || e.syn_seq != seq);
            if closing || restarted {
                self.remove_slot(s, RemoveReason::Reused);
                slot = None;
            }
        }
        let s = match slot {
            Some(s) => s,
            None => {
                let (initiator, known, state) = if syn && !ack {
                    (src, true, FlowState::SynSeen)
                } else if syn {
                    (dst, true, FlowState::SynAckSeen)
                } else if src.port != dst.port {
                    (if src.port > dst.port { src } else { dst }, false, FlowState::Established)
                } else {
                    (src, false, FlowState::Established)
                };
                self.insert(key, initiator, known, state, now)?
            }
        };
        let id = self.update(s, seg, src, flags, seq, now);
        if hinted.is_none() {
            // (A caller that hints does not need it.)
            self.last = Some((key, s));
        }
        Some(id)
    }

    fn insert(&mut self, key: FlowKey, initiator: Endpoint, known: bool, state: FlowState, now: Time) -> Option<u32> {
        if self.index.len() >= self.cfg.capacity as usize && !self.evict_one(now) {
            self.rejected += 1;
            return None;
        }
        let s = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(Slot { entry: FlowEntry::new(VACANT, key, initiator, known, state, now), gen: 0 });
                self.links.push(Link { list: OPEN as u32, prev: NIL, next: NIL }); // linked below
                (self.slots.len() - 1) as u32
            }
        };
        let slot = &mut self.slots[s as usize];
        let id = FlowId::new(s, slot.gen);
        slot.entry = FlowEntry::new(id, key, initiator, known, state, now);
        let registered = slot.entry.registered;
        let list = if registered { OPEN } else { HALF_OPEN };
        self.link_tail(s, list);
        self.next_expiry = self.next_expiry.min(self.expiry(s, list));
        self.index.insert(key, s);
        if registered {
            self.events.push(FlowEvent::Registered(id));
        }
        Some(s)
    }

    /// Evict one entry to make room (module doc order); false if none may go.
    fn evict_one(&mut self, now: Time) -> bool {
        for list in [CLOSED, HALF_OPEN] {
            let h = self.head(list);
            if h != NIL {
                self.remove_slot(h, RemoveReason::Evicted);
                self.evicted += 1;
                return true;
            }
        }
        let h = self.head(OPEN);
        if h != NIL {
            let e = &self.slots[h as usize].entry;
            if now.since(e.last_seen) >= self.cfg.active_window {
                self.remove_slot(h, RemoveReason::Evicted);
                self.evicted += 1;
                return true;
            }
        }
        false
    }

    fn remove_slot(&mut self, s: u32, reason: RemoveReason) {
        if self.last.is_some_and(|(_, l)| l == s) {
            self.last = None;
        }
        self.unlink(s);
        let slot = &mut self.slots[s as usize];
        debug_assert!(slot.entry.id != VACANT, "removing an empty slot");
        let (id, key, registered) = (slot.entry.id, slot.entry.key, slot.entry.registered);
        slot.entry.id = VACANT;
        slot.gen = slot.gen.wrapping_add(1);
        self.index.remove(&key);
        self.free.push(s);
        self.events.push(FlowEvent::Removed { id, reason, registered });
    }

    /// The slot a link index stands for (`NIL` for a sentinel).
    #[inline]
    fn slot_of(link: u32) -> u32 {
        if link < LISTS {
            NIL
        } else {
            link - LISTS
        }
    }
    /// The first slot of `list` (`NIL` if empty).
    fn head(&self, list: usize) -> u32 {
        Self::slot_of(self.links[list].next)
    }
    /// The last slot of `list` (`NIL` if empty).
    fn tail(&self, list: usize) -> u32 {
        Self::slot_of(self.links[list].prev)
    }

    fn link_tail(&mut self, s: u32, list: usize) {
        let n = s + LISTS;
        let t = self.links[list].prev;
        self.links[n as usize] = Link { list: list as u32, prev: t, next: list as u32 };
        self.links[t as usize].next = n;
        self.links[list].prev = n;
        self.lens[list] += 1;
    }

    fn unlink(&mut self, s: u32) {
        let Link { list, prev, next } = self.links[(s + LISTS) as usize];
        self.links[prev as usize].next = next;
        self.links[next as usize].prev = prev;
        self.lens[list as usize] -= 1;
    }

    /// Apply one segment from `src` to the entry in slot `s`. (The handshake's and the FINs'
    /// steps are apart, [`handshake_syn`], [`handshake_end`] and [`on_fin`]: most segments
    /// take none of them.)
    fn update(&mut self, s: u32, seg: &impl HeaderView, src: Endpoint, flags: u8, seq: u32, now: Time) -> FlowId {
        let syn = flags & tcp_flags::SYN != 0;
        let ack = flags & tcp_flags::ACK != 0;
        let fin = flags & tcp_flags::FIN != 0;
        let ackno = seg.tcp_ack().unwrap_or(0);
        let payload = seg.payload_len();
        let mode = self.ongoing_rtt;
        let e = &mut self.slots[s as usize].entry;
        let id = e.id;
        let Some(side) = e.side_of(src.addr, src.port) else {
            return id;
        };
        let was_registered = e.registered;
        e.last_seen = now;
        {
            let end = e.end_mut(side);
            end.bytes += seg.ip_len() as u64;
            end.packets += 1;
            end.payload_bytes += payload as u64;
        }
        if payload > 0 {
            e.dscp = seg.dscp();
        }

        if syn {
            handshake_syn(e, side, ack, seq, &seg.tcp_options(), now);
        } else if matches!(e.state, FlowState::SynSeen | FlowState::SynAckSeen) {
            handshake_end(e, side, ack, ackno, now);
        }
        if fin {
            on_fin(e, side, now);
        }

        // Ongoing RTT (docs/algorithms/network-return.md, "Ongoing RTT").
        let track_rtt = match mode {
            OngoingRtt::On => true,
            OngoingRtt::WithoutHandshake => e.rtt_handshake.is_none(),
            OngoingRtt::Off => false,
        };
        let mut min_fell = false;
        if !syn && track_rtt {
            let old_min = e.rtt_min;
            ongoing_rtt(e, side, seq, ack.then_some(ackno), payload, fin, seg.tcp_options().timestamps, now);
            min_fell = e.rtt_min.is_some() && e.rtt_min != old_min;
        }
        // Sequence bookkeeping after the probes (they compare with what was sent before).
        {
            let end_seq = seq.wrapping_add(payload).wrapping_add(syn as u32).wrapping_add(fin as u32);
            e.end_mut(side).advance(end_seq, ack.then_some(ackno));
        }

        let registered_now = e.registered && !was_registered;
        // Keep the lists in order: the closed list by closing time, the others by recency.
        let want = match e.state {
            FlowState::Closed => CLOSED,
            FlowState::SynSeen | FlowState::SynAckSeen => HALF_OPEN,
            _ => OPEN,
        };
        let cur = self.links[(s + LISTS) as usize].list as usize;
        if (want != CLOSED || cur != CLOSED) && !(cur == want && self.links[want].prev == s + LISTS) {
            // (Already the tail of its list: it stays there.)
            self.unlink(s);
            self.link_tail(s, want);
            // `next_expiry` is a lower bound of every entry's time: an entry moving to the
            // half-open or the open list goes later than it would have (`last_seen` grew), one
            // just closed may go sooner.
            if want == CLOSED {
                self.next_expiry = self.next_expiry.min(self.expiry(s, CLOSED));
            }
        }
        if registered_now {
            self.events.push(FlowEvent::Registered(id));
        }
        if min_fell {
            self.events.push(FlowEvent::MinRttChanged(id));
        }
        id
    }
}

/// A SYN or SYN-ACK from `side` (RFC 9293 §3.5, as a bystander sees it): the options of the
/// first copy, the handshake's times and sequence numbers, a repeat (Karn).
#[inline(never)]
fn handshake_syn(e: &mut FlowEntry, side: Side, ack: bool, seq: u32, opts: &crate::packet::TcpOptionsView, now: Time) {
    let end = e.end_mut(side);
    let first = !end.syn_seen;
    if first {
        end.syn_seen = true;
        end.wscale_option = opts.wscale.map(|w| w.min(14));
        end.mss = opts.mss;
        end.timestamps = opts.timestamps.is_some();
    }
    match (side, ack) {
        (Side::Initiator, false) => {
            if first {
                e.t_syn = Some(now);
                e.syn_seq = seq;
            } else if seq == e.syn_seq {
                e.syn_retransmitted = true;
            }
        }
        (Side::Responder, true) => {
            if first {
                e.t_synack = Some(now);
                e.synack_seq = seq;
                if e.state == FlowState::SynSeen {
                    e.state = FlowState::SynAckSeen;
                }
            } else if seq == e.synack_seq {
                e.synack_retransmitted = true;
            }
        }
        _ => {} // simultaneous open or a reflected SYN: nothing to learn
    }
    e.shifts = [e.derive_shift(Side::Initiator), e.derive_shift(Side::Responder)];
    e.mss = e.derive_mss().unwrap_or(NO_MSS);
}

/// A non-SYN segment of a half-open flow: the initiator's ACK of the SYN-ACK completes the
/// handshake (with its RTT when measurable); after a SYN whose SYN-ACK took another path, any
/// segment does, unmeasured.
#[inline(never)]
fn handshake_end(e: &mut FlowEntry, side: Side, ack: bool, ackno: u32, now: Time) {
    match e.state {
        FlowState::SynAckSeen if side == Side::Initiator && ack && ackno == e.synack_seq.wrapping_add(1) => {
            e.state = FlowState::Established;
            e.t_ack = Some(now);
            if let (Some(t0), false, false) = (e.t_syn, e.syn_retransmitted, e.synack_retransmitted) {
                e.rtt_handshake = Some(now.since(t0));
            }
            e.registered = true;
        }
        FlowState::SynSeen => {
            e.state = FlowState::Established;
            e.registered = true;
        }
        _ => {}
    }
}

/// A FIN from `side`: closed once both sides sent one.
#[inline(never)]
fn on_fin(e: &mut FlowEntry, side: Side, now: Time) {
    let end = e.end_mut(side);
    if end.fin_at.is_none() {
        end.fin_at = Some(now);
    }
    let both = e.ends[0].fin_at.is_some() && e.ends[1].fin_at.is_some();
    if both {
        if e.state != FlowState::Closed {
            e.state = FlowState::Closed;
            e.closed_at = Some(now);
        }
    } else if matches!(e.state, FlowState::Established | FlowState::SynAckSeen | FlowState::SynSeen) {
        e.state = FlowState::FinSeen(side);
    }
}

/// The ongoing RTT estimate from one non-SYN segment sent by `side`.
///
/// With timestamps on both sides: a segment from X with TSval `v` passing at `t1` and the first
/// segment from Y echoing `v` at `t2` measure the loop through Y, `t2 − t1`; an echo of a later
/// TSval drops the probe. Without: X's new data ending at `e` passing at `t1` and Y's first ACK
/// covering `e` measure the loop through Y (a retransmission overlapping the probe drops it);
/// Y's ACK advancing at `t1` and X's next new data measure the loop through X. A sample is the
/// sum of the newest loops through both sides.
#[allow(clippy::too_many_arguments)]
fn ongoing_rtt(e: &mut FlowEntry, side: Side, seq: u32, ack: Option<u32>, payload: u32, fin: bool, ts: Option<(u32, u32)>, now: Time) {
    let x = side.idx();
    let y = side.other().idx();
    let mut measured: Option<(usize, Dur)> = None;
    if e.ts_ok() {
        if let Some((tsval, tsecr)) = ts {
            if let Some(p) = e.ts_probe[y] {
                if tsecr == p.value {
                    measured = Some((x, now.since(p.at)));
                    e.ts_probe[y] = None;
                } else if seq_lt(p.value, tsecr) {
                    e.ts_probe[y] = None;
                }
            }
            if e.ts_probe[x].is_none() {
                e.ts_probe[x] = Some(Probe { value: tsval, at: now });
            }
        }
    } else {
        let end_seq = seq.wrapping_add(payload).wrapping_add(fin as u32);
        let new_data = payload > 0 && e.ends[x].highest_end.is_none_or(|h| seq_le(h, seq));
        let retransmission = payload > 0 && e.ends[x].highest_end.is_some_and(|h| seq_lt(seq, h));
        // X's ACK closes Y's data probe: the loop through X.
        if let (Some(a), Some(p)) = (ack, e.seq_probe[y]) {
            if seq_le(p.value, a) {
                measured = Some((x, now.since(p.at)));
                e.seq_probe[y] = None;
            }
        }
        // Y's ACK probe closed by X's new data: the loop through X as well.
        if new_data {
            if let Some(p) = e.ack_probe[y] {
                measured = Some((x, now.since(p.at)));
                e.ack_probe[y] = None;
            }
        }
        if let Some(p) = e.seq_probe[x] {
            if retransmission && seq_lt(seq, p.value) {
                e.seq_probe[x] = None; // Karn: the range was sent twice
            }
        }
        if new_data && e.seq_probe[x].is_none() {
            e.seq_probe[x] = Some(Probe { value: end_seq, at: now });
        }
        if let Some(a) = ack {
            let advances = e.ends[x].highest_ack.is_none_or(|h| seq_lt(h, a));
            if advances && e.ack_probe[x].is_none() {
                e.ack_probe[x] = Some(Probe { value: a, at: now });
            }
        }
    }
    if let Some((through, d)) = measured {
        e.loop_through[through] = Some(d);
        if let (Some(a), Some(b)) = (e.loop_through[0], e.loop_through[1]) {
            let sample = a + b;
            e.rtt_smoothed = Some(match e.rtt_smoothed {
                None => sample,
                Some(r) => Dur((7 * r.0 as u128 / 8 + sample.0 as u128 / 8) as u64),
            });
            e.rtt_min = Some(e.rtt_min.map_or(sample, |m| m.min(sample)));
        }
    }
}

fn endpoints(seg: &impl HeaderView) -> Option<(Endpoint, Endpoint)> {
    if seg.protocol() != proto::TCP {
        return None;
    }
    let src = Endpoint { addr: seg.src_addr(), port: seg.src_port()? };
    let dst = Endpoint { addr: seg.dst_addr(), port: seg.dst_port()? };
    Some((src, dst))
}

/// Bin length of the UDP rate estimate (100 ms, Sluice's choice).
pub const UDP_BIN: Dur = Dur::from_millis(100);
/// Weight of each bin in the average (0.25, Sluice's choice: a ≈ 0.4 s time constant).
pub const UDP_WEIGHT: f64 = 0.25;

/// The UDP rate on the monitored egress: bytes counted per 100 ms bin (bins aligned to
/// multiples of 100 ms from time 0), `rate ← (1 − w)·rate + w·(8·bytes_bin/0.1 s)` per bin
/// with `w = 0.25`; bins without UDP count as zero.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UdpRate {
    /// Index of the bin being filled.
    bin: u64,
    bytes: u64,
    rate_bps: f64,
}

impl UdpRate {
    fn roll(&mut self, now: Time) {
        let b = now.0 / UDP_BIN.0;
        if b <= self.bin {
            return;
        }
        let bin_bps = self.bytes as f64 * 8.0 / UDP_BIN.as_secs_f64();
        self.rate_bps = (1.0 - UDP_WEIGHT) * self.rate_bps + UDP_WEIGHT * bin_bps;
        // Empty bins in between decay the rate; past 256 of them it is below 1e-32 of itself.
        let empty = (b - self.bin - 1).min(256);
        self.rate_bps *= (1.0 - UDP_WEIGHT).powi(empty as i32);
        if empty == 256 {
            self.rate_bps = 0.0;
        }
        self.bin = b;
        self.bytes = 0;
    }
    /// Count `bytes` of UDP at `now`.
    pub fn on_bytes(&mut self, bytes: u64, now: Time) {
        self.roll(now);
        self.bytes += bytes;
    }
    /// The estimate over the bins completed by `now`, in bit/s.
    pub fn rate(&self, now: Time) -> Rate {
        let mut c = self.clone();
        c.roll(now);
        Rate(c.rate_bps.round() as u64)
    }
}

#[cfg(test)]
mod tests;
