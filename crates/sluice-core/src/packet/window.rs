//! The one writer of the TCP window field: [`lower_window`].
//!
//! A network-return controller *proposes* a window ([`Desired`]); this module *disposes*. Every
//! rule that keeps a rewrite safe lives in [`lower_window`] and nowhere else
//! (docs/algorithms/network-return.md, "The seam"):
//!
//! 1. skip non-TCP segments, segments without ACK, and SYN or RST segments (a SYN's window is
//!    never scaled and belongs to the handshake, RFC 7323 §2.2);
//! 2. use the shift that the *sender of this segment* announced in its own SYN or SYN-ACK
//!    (RFC 7323 §2.3), taken from the flow table; skip when it is unknown, unless the proposal
//!    is already in field units ([`Desired::Field`]);
//! 3. convert bytes to the field, rounding down;
//! 4. apply the controller's floor, `ceil(MSS / 2^shift)` ([`Floor`]);
//! 5. never raise the field the receiver wrote (except [`Floor::LiteralMss`], see there);
//! 6. leave an equal field alone (no checksum work);
//! 7. write the field and update the TCP checksum incrementally (RFC 1624 eqn. 3,
//!    [`checksum::update16`]).
//!
//! # Why the setter is sealed, and how
//!
//! The invariant "no gateway code raises a receiver's window or forgets the checksum" is made
//! structural: the only method that writes a window, [`WindowField::write_window`], needs a
//! [`WriteToken`], and a `WriteToken` can be made only inside this module (its one field is
//! private, it is neither `Clone` nor `Default`, and its lifetime ties it to one call). So code
//! outside this module — controllers, the simulator, the gateway — can *implement*
//! `WindowField` but can never *call* its setter; only [`lower_window`] can.
//!
//! The textbook sealed trait (a supertrait in a private module) would forbid every
//! implementation outside `sluice-core`, and the simulator's packet lives in `sluice-sim`,
//! which depends on this crate and not the other way round. Sealing the *method* instead
//! keeps the property that matters — the setter is unreachable from ordinary code — while the
//! simulator implements the trait next to its packet. What the token cannot stop is a crate
//! writing its *own* fields directly (the simulator's endpoint builds its segments' windows
//! through `SimPacket`'s fields, as it must); the rule for gateway code is that it reaches a
//! packet's window only through [`lower_window`], and controllers never get more than
//! `&impl HeaderView`.

use super::checksum;
use super::{tcp_flags, HeaderView};
use crate::flows::FlowEntry;
use std::marker::PhantomData;

/// Permission to call [`WindowField::write_window`]. Only [`lower_window`] can make one.
///
/// The private field makes it impossible to build outside this module; the invariant lifetime
/// `'a` keeps an implementation from storing the token it was handed beyond the call.
#[derive(Debug)]
pub struct WriteToken<'a> {
    _call: PhantomData<fn(&'a ()) -> &'a ()>,
}

impl WriteToken<'_> {
    /// Made only by the writers of this module and of [`super::signal`].
    pub(super) fn new() -> Self {
        WriteToken { _call: PhantomData }
    }
}

/// A packet whose TCP window [`lower_window`] can rewrite.
///
/// Implemented by the simulator's packet (in `sluice-sim`) and by [`super::RawPacket`].
pub trait WindowField: HeaderView {
    /// The TCP checksum field as this packet carries it, or `None` when the datapath carries no
    /// checksums (the simulator: its packets are fields, and their checksums are computed from
    /// those fields whenever they are serialized, so they are always valid).
    fn tcp_checksum(&self) -> Option<u16>;

    /// Write `field` into the TCP window and, when the packet carries a checksum, `checksum`
    /// into the TCP checksum field (`checksum` is `Some` exactly when
    /// [`WindowField::tcp_checksum`] is). Only called by [`lower_window`], on a TCP segment,
    /// which is the only code that can produce the token. An implementation writes exactly
    /// these two fields and nothing else.
    fn write_window(&mut self, token: WriteToken<'_>, field: u16, checksum: Option<u16>);
}

/// The window a controller proposes for one ACK.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Desired {
    /// In bytes; converted with the advertiser's shift (`floor(bytes / 2^shift)`). A flow whose
    /// shift is unknown (picked up mid-stream) is skipped.
    Bytes(u64),
    /// Already in field units, for controllers that scale the ACK's own field by a ratio (EWT):
    /// the ratio is scale-free, so an unknown shift does not stop the rewrite; the floor then
    /// assumes shift 0 (docs/algorithms/network-return.md, "Unknown scale").
    Field(u64),
}

/// The lower bound a controller puts under its proposal.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Floor {
    /// No floor (a proposal of 0 advertises a zero window, if the receiver's is larger).
    None,
    /// One MSS of this many bytes: `floor_field = ceil(mss / 2^shift)`, and still never above
    /// the receiver's own field.
    Mss(u32),
    /// Paper-literal EWT (Algorithm 1 writes `max(W_ewt, MSS)` unconditionally): like
    /// [`Floor::Mss`], but a receiver field below the floor is *raised* to it. The only way
    /// [`lower_window`] ever writes a larger field, and then never above the floor; never for a
    /// flow whose shift is unknown (then it acts as [`Floor::Mss`]).
    LiteralMss(u32),
}

/// Why [`lower_window`] left a TCP ACK alone without comparing windows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// SYN set: the window of a SYN or SYN-ACK is never scaled (RFC 7323 §2.2).
    Syn,
    /// RST set.
    Rst,
    /// The advertiser's window-scale shift is unknown (its SYN or SYN-ACK was not seen) and the
    /// proposal is in bytes.
    UnknownScale,
    /// The segment's source is neither endpoint of the flow entry handed in (a caller error:
    /// nothing is written).
    NotInFlow,
}

/// What [`lower_window`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WindowRewrite {
    /// Not TCP, or TCP without the ACK flag (and neither SYN nor RST).
    NotTcpAck,
    /// A TCP ACK left alone, and why.
    Skipped(SkipReason),
    /// The proposal was not below the receiver's field (or equal to it): nothing written.
    Unchanged,
    /// The field was lowered and the checksum updated.
    Lowered { from_field: u16, to_field: u16 },
    /// Only with [`Floor::LiteralMss`]: a field below one MSS raised to it.
    Raised { from_field: u16, to_field: u16 },
}

impl WindowRewrite {
    /// The field the packet carries after the call, if it is a TCP ACK that was considered.
    pub fn written_field(&self) -> Option<u16> {
        match *self {
            WindowRewrite::Lowered { to_field, .. } | WindowRewrite::Raised { to_field, .. } => Some(to_field),
            _ => None,
        }
    }
}

/// `ceil(mss / 2^shift)`, the smallest field that advertises at least one MSS.
#[inline]
pub fn mss_floor_field(mss: u32, shift: u8) -> u64 {
    let s = shift.min(14);
    (mss as u64 + (1u64 << s) - 1) >> s
}

/// Rewrite the window of `seg` toward `desired`, following the seven steps in the module doc.
///
/// `flow` is the flow table's entry of `seg`'s connection; the shift used is that of the
/// endpoint that sent `seg` (the data receiver, for an ACK toward a data sender).
#[inline]
pub fn lower_window(seg: &mut impl WindowField, desired: Desired, flow: &FlowEntry, floor: Floor) -> WindowRewrite {
    lower_window_shifted(seg, desired, flow, floor).0
}

/// [`lower_window`], with the advertiser's shift it applied (0 while unknown, or when it
/// returned before reading it): what one unit of a lowered field is worth, `2^shift` bytes.
#[inline]
pub fn lower_window_shifted(seg: &mut impl WindowField, desired: Desired, flow: &FlowEntry, floor: Floor) -> (WindowRewrite, u8) {
    // Step 1: only ACK-bearing TCP segments without SYN or RST.
    let (Some(flags), Some(orig), Some(sport)) = (seg.tcp_flags(), seg.tcp_window_field(), seg.src_port()) else {
        return (WindowRewrite::NotTcpAck, 0);
    };
    if !seg.is_tcp() {
        return (WindowRewrite::NotTcpAck, 0);
    }
    if flags & tcp_flags::SYN != 0 {
        return (WindowRewrite::Skipped(SkipReason::Syn), 0);
    }
    if flags & tcp_flags::RST != 0 {
        return (WindowRewrite::Skipped(SkipReason::Rst), 0);
    }
    if flags & tcp_flags::ACK == 0 {
        return (WindowRewrite::NotTcpAck, 0);
    }
    // Step 2: the advertiser's own shift (RFC 7323 §2.3), never its peer's.
    let Some(side) = flow.side_of(seg.src_addr(), sport) else {
        return (WindowRewrite::Skipped(SkipReason::NotInFlow), 0);
    };
    // A proposal in field units at or above the field leaves it, whatever the shift (steps
    // 4-6 below give `orig`: the floor cannot lift the result above `orig` but for LiteralMss).
    if let (Desired::Field(f), Floor::None | Floor::Mss(_)) = (desired, floor) {
        if f >= orig as u64 {
            return (WindowRewrite::Unchanged, 0);
        }
    }
    let shift = flow.shift(side);
    // Step 3: bytes to field units, rounding down.
    let (proposed, floor_shift) = match desired {
        Desired::Bytes(b) => match shift {
            Some(ws) => (b >> ws.min(14), ws),
            None => return (WindowRewrite::Skipped(SkipReason::UnknownScale), 0),
        },
        Desired::Field(f) => (f, shift.unwrap_or(0)),
    };
    // Steps 4 and 5: floor, then never above the receiver's field.
    let orig64 = orig as u64;
    let new = match floor {
        Floor::None => proposed.min(orig64),
        Floor::Mss(m) => proposed.max(mss_floor_field(m, floor_shift)).min(orig64),
        // Raising needs the true shift: with an unknown one, one MSS "in field units" could be
        // up to 2^14 MSS, so the literal floor then acts as the plain one.
        Floor::LiteralMss(m) if shift.is_none() => proposed.max(mss_floor_field(m, 0)).min(orig64),
        Floor::LiteralMss(m) => proposed.min(orig64).max(mss_floor_field(m, floor_shift)),
    };
    let new = new.min(u16::MAX as u64) as u16;
    // Step 6.
    if new == orig {
        return (WindowRewrite::Unchanged, floor_shift);
    }
    // Step 7: RFC 1624 eqn. 3 over the old and new window words.
    let csum = seg.tcp_checksum().map(|hc| checksum::update16(hc, orig, new));
    seg.write_window(WriteToken::new(), new, csum);
    if new < orig {
        (WindowRewrite::Lowered { from_field: orig, to_field: new }, floor_shift)
    } else {
        (WindowRewrite::Raised { from_field: orig, to_field: new }, floor_shift)
    }
}

#[cfg(test)]
mod tests;
