//! Cache prefetch hints.
//!
//! With hundreds of flows, the endpoint and interfaces a packet reaches are cold in cache, and an
//! event that reads them stalls on one miss after another. The engine knows which state the
//! next event will read before it runs (see `Sim::prefetch_next`), so it asks the processor to
//! start loading those lines while the current event runs. A prefetch is only a hint: it
//! changes no value and no order, and on targets without one it does nothing.
//!
//! Structures that span several cache lines list one field on each line they want loaded
//! ([`Endpoint::prefetch_lines`](crate::tcp::Endpoint::prefetch_lines),
//! [`Iface::prefetch_lines`](crate::net::Iface::prefetch_lines)) to a [`Lines`] visitor; the
//! layout tests walk the same lists with a visitor that records offsets.

/// Visits one value on each cache line to load.
pub trait Lines {
    fn line<T>(&mut self, x: &T);
}

/// The visitor that issues the prefetches.
pub struct Prefetch;

impl Lines for Prefetch {
    #[inline(always)]
    fn line<T>(&mut self, x: &T) {
        prefetch_index::prefetch_index(std::slice::from_ref(x), 0);
    }
}

/// A visitor that records which 64-byte lines of a structure at `base` were visited (tests).
#[cfg(test)]
pub(crate) struct Recorder {
    pub base: usize,
    pub lines: std::collections::BTreeSet<usize>,
}

#[cfg(test)]
impl Recorder {
    pub fn of<S>(s: &S) -> Recorder {
        Recorder { base: s as *const S as usize, lines: Default::default() }
    }
}

#[cfg(test)]
impl Lines for Recorder {
    fn line<T>(&mut self, x: &T) {
        let at = x as *const T as usize - self.base;
        self.lines.insert(at / 64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Iface;
    use crate::packet::{SimPacket, Transport};
    use crate::tcp::{Endpoint, SockAddr, TcpConfig};
    use std::sync::Arc;

    fn spanned<T>(x: &T, base: usize) -> std::collections::BTreeSet<usize> {
        let start = x as *const T as usize - base;
        (start / 64..=(start + std::mem::size_of::<T>() - 1) / 64).collect()
    }

    // A segment's arrival reads the endpoint from its first line through the scoreboard's last
    // (the layout in `Endpoint`): the prefetch list names every one of those lines.
    #[test]
    fn endpoint_lines_cover_start_through_scoreboard() {
        let a = SockAddr { addr: 1, port: 1 };
        let e = Endpoint::client(Arc::new(TcpConfig::default()), a, a, 0, 0);
        let mut r = Recorder::of(&e);
        e.prefetch_lines(&mut r);
        let want: std::collections::BTreeSet<usize> = (0..=(Endpoint::HOT_END - 1) / 64).collect();
        assert_eq!(r.lines, want);
        // Receiving only: from the start through `counters.delivered` and `last_delivery`.
        let mut r = Recorder::of(&e);
        e.prefetch_receive_lines(&mut r);
        let want: std::collections::BTreeSet<usize> = (0..=(Endpoint::RECEIVE_END - 1) / 64).collect();
        assert_eq!(r.lines, want);
    }

    // The boxed congestion-control states start on a line of their own (`repr(align(64))`), and
    // their prefetch list names each of their lines; the inline variants have none.
    #[test]
    fn boxed_cc_state_lines_are_all_named() {
        use crate::tcp::cc::AnyCc;
        use crate::tcp::config::CcKind;
        for kind in [CcKind::Cubic, CcKind::Vegas, CcKind::Compound] {
            let cc = AnyCc::new(&TcpConfig { cc: kind, ..TcpConfig::default() });
            let (base, size) = cc.boxed_state().expect("boxed");
            assert_eq!(base % 64, 0, "{kind:?}");
            let mut r = Recorder { base, lines: Default::default() };
            cc.prefetch_lines(&mut r);
            assert_eq!(r.lines, (0..size.div_ceil(64)).collect(), "{kind:?}");
        }
        let cc = AnyCc::new(&TcpConfig::default());
        assert!(cc.boxed_state().is_none());
        let mut r = Recorder { base: 0, lines: Default::default() };
        cc.prefetch_lines(&mut r);
        assert!(r.lines.is_empty());
    }

    // An interface's first two lines: serializer and wire head, queue statistics; more for a burst.
    #[test]
    fn iface_lines_are_its_first_two() {
        use sluice_core::qdisc::{AnyQdisc, DropTail};
        use sluice_core::units::QueueLimit;
        let q = AnyQdisc::DropTail(DropTail::new(QueueLimit::Packets(10)));
        let f = Iface::new(0, 1, sluice_core::Rate::mbps(10), sluice_core::Dur::ZERO, 0, 1, q, sluice_core::rng::RngStream::from_seed(1), false, false);
        let mut r = Recorder::of(&f);
        f.prefetch_lines(&mut r);
        assert_eq!(r.lines, [0, 1].into());
        // Sending adds the device slots' and the second wire packet's lines; an arrival reads
        // the wire head (line 0) and that second packet.
        let mut r = Recorder::of(&f);
        f.prefetch_send_lines(&mut r);
        assert_eq!(r.lines.len(), 4);
        let mut r = Recorder::of(&f);
        f.prefetch_arrival_lines(&mut r);
        assert_eq!(r.lines.len(), 2);
        assert!(r.lines.contains(&0));
    }

    // Packets sit in a slab at every offset modulo a line: each one's lines are all named.
    #[test]
    fn packet_lines_cover_the_packet_wherever_it_sits() {
        let p = SimPacket { src: 0, dst: 0, sport: 0, dport: 0, tos: crate::packet::Tos::new(0, sluice_core::packet::Ecn::NotEct), ttl: 0, ip_id: 0, transport: Transport::Udp, payload: 0, flow: 0, opt33: 0 };
        let slab = vec![p; 16];
        let base = slab.as_ptr() as usize & !63;
        for q in &slab {
            let mut r = Recorder { base, lines: Default::default() };
            q.prefetch_lines(&mut r);
            assert_eq!(r.lines, spanned(q, base));
        }
    }
}
