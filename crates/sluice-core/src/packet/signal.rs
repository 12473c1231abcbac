//! The writers of the header bits that carry network-return signals beyond the TCP window:
//! ECN together with the IPv4 reserved flag ([`set_ecn_cmi`]), one TCP reserved bit
//! ([`set_tcp_reserved_bit`]) and IPv4 option 33 ([`stamp_opt33`]); and ACNS's command codes
//! in those bits ([`AcnsIp`], [`AcnsTcp`]).
//!
//! They are sealed the way the window writer is (see [`super::window`]): the setters of
//! [`SignalField`] need a [`WriteToken`], which only this module and the window module can
//! make, so code outside `sluice-core` can implement them but only reach them through the three
//! functions here, which keep every packet valid:
//!
//! * only TCP segments are written (NGWA stamps TCP segments only, "if the packet isn't TCP,
//!   nothing will be done"; ACNS commands address TCP flows); any other packet is left byte for
//!   byte, with [`HeaderSkip::NotTcp`];
//! * an ECN or reserved-flag change updates the IPv4 header checksum incrementally, a TCP
//!   reserved-bit change the TCP checksum (RFC 1624 eqn. 3, [`checksum::update16`]);
//! * inserting option 33 grows the IP header (IHL, total length) and recomputes the IPv4 header
//!   checksum; the TCP checksum does not change (its pseudo-header holds the TCP length, not the
//!   IP length). An insertion that would take the options past 40 bytes or the packet past the
//!   egress MTU is refused ([`HeaderSkip`]): a router never fragments for it.
//!
//! # Option 33 layout
//!
//! NGWA (Talau & Wille) names only the type: 33 = `0b0_01_00001` (copy flag 0, class 1,
//! number 1). The rest is Sluice's layout, in two sizes ([`OptLen`]):
//!
//! * 8 bytes: `21 06 vv vv vv vv 01 00` — type 33, length 6, the value as a 32-bit big-endian
//!   unsigned integer (bytes), then NOP and EOL to keep the header a multiple of four bytes;
//! * 4 bytes: `21 04 vv vv` — type 33, length 4, a 16-bit big-endian value saturating at
//!   65,535 (the largest unscaled TCP window), no padding.
//!
//! On bytes the option is inserted at the end of the option list (before an EOL, if the packet
//! has one), so options already present stay readable.

use super::checksum;
use super::window::{WindowField, WriteToken};
use super::{tcp_flags, Ecn, HeaderView};

/// IPv4 option type of NGWA's window option.
pub const OPT33_TYPE: u8 = 33;
/// Largest IPv4 option space (IHL 15 words minus the fixed 20-byte header).
pub const MAX_IP_OPTIONS: u32 = 40;

/// The two sizes of option 33 (module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum OptLen {
    /// `21 04 vv vv`: 16-bit value, saturating at 65,535.
    Four = 4,
    /// `21 06 vv vv vv vv 01 00`: 32-bit value.
    Eight = 8,
}

impl OptLen {
    /// From a configured byte count (4 or 8).
    pub fn from_bytes(n: u64) -> Option<OptLen> {
        match n {
            4 => Some(OptLen::Four),
            8 => Some(OptLen::Eight),
            _ => None,
        }
    }
    /// Bytes the option occupies in the IP header, padding included.
    pub fn bytes(self) -> u32 {
        self as u32
    }
    /// The value this size carries for `v`: saturated at 65,535 or at `u32::MAX`.
    pub fn carry(self, v: u64) -> u32 {
        match self {
            OptLen::Four => v.min(u16::MAX as u64) as u32,
            OptLen::Eight => v.min(u32::MAX as u64) as u32,
        }
    }
}

/// An NGWA option as carried: its value (bytes) and its size.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Opt33 {
    pub value: u32,
    pub len: OptLen,
}

impl Opt33 {
    /// The option's wire bytes (module doc); the first `len.bytes()` are used. The value is
    /// saturated to what the size carries.
    pub fn wire(self) -> [u8; 8] {
        let v = self.len.carry(self.value as u64);
        match self.len {
            OptLen::Four => {
                let [a, b] = (v as u16).to_be_bytes();
                [OPT33_TYPE, 4, a, b, 0, 0, 0, 0]
            }
            OptLen::Eight => {
                let [a, b, c, d] = v.to_be_bytes();
                [OPT33_TYPE, 6, a, b, c, d, 1, 0]
            }
        }
    }
}

/// Where option 33 sits in an IPv4 option area, as found by [`find_opt33`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Opt33At {
    /// None present; a new option goes at offset `end` of the option area (the end of the list:
    /// the first EOL, or the end of the area).
    Absent { end: usize },
    /// Present at offset `at` of the option area, in a layout NGWA writes.
    Found { at: usize, opt: Opt33 },
    /// An option 33 of another length: not ours to read or write.
    Foreign,
}

/// Walk an IPv4 option area (the bytes after the fixed 20-byte header) for option 33: NOP and
/// EOL are single bytes, every other kind carries a length (RFC 791); a length below 2 or past
/// the area ends the walk, as does EOL.
pub fn find_opt33(area: &[u8]) -> Opt33At {
    let mut i = 0usize;
    while let Some(&kind) = area.get(i) {
        match kind {
            0 => break,
            1 => i += 1,
            _ => {
                let Some(&len) = area.get(i + 1) else { break };
                let len = len as usize;
                if len < 2 || i + len > area.len() {
                    break;
                }
                if kind == OPT33_TYPE {
                    let b = &area[i + 2..i + len];
                    return match (len, b) {
                        (4, &[x, y]) => Opt33At::Found { at: i, opt: Opt33 { value: u16::from_be_bytes([x, y]) as u32, len: OptLen::Four } },
                        (6, &[w, x, y, z]) => Opt33At::Found { at: i, opt: Opt33 { value: u32::from_be_bytes([w, x, y, z]), len: OptLen::Eight } },
                        _ => Opt33At::Foreign,
                    };
                }
                i += len;
            }
        }
    }
    Opt33At::Absent { end: i.min(area.len()) }
}

/// A packet whose ECN/reserved flag, TCP reserved bits and option 33 the writers of this
/// module can set. Implemented by the simulator's packet (in `sluice-sim`) and by
/// [`super::RawPacket`]. Each setter is called only by the writer named on it, on a TCP
/// segment, and writes exactly the fields it names.
pub trait SignalField: WindowField {
    /// The IPv4 header checksum as carried, or `None` when the datapath carries no checksums
    /// (the simulator computes them whenever it serializes).
    fn ip_checksum(&self) -> Option<u16>;
    /// [`set_ecn_cmi`]: the ECN field, the reserved flag and, when carried, the IP checksum.
    fn write_ecn_cmi(&mut self, token: WriteToken<'_>, ecn: Ecn, cmi: bool, ip_checksum: Option<u16>);
    /// [`set_tcp_reserved_bit`]: the four low bits of TCP byte 12 and, when carried, the TCP
    /// checksum.
    fn write_tcp_reserved(&mut self, token: WriteToken<'_>, bits: u8, tcp_checksum: Option<u16>);
    /// [`stamp_opt33`]: overwrite the value of the option present (keeping its size, `opt.len`
    /// equals it), or insert `opt` when there is none, growing the IP header (IHL, total
    /// length, IP checksum recomputed). The writer has checked the 40-byte option space and
    /// the MTU; an implementation fails only if it has no room to grow
    /// ([`HeaderSkip::NoHeadroom`]), and then writes nothing.
    fn write_opt33(&mut self, token: WriteToken<'_>, opt: Opt33) -> Result<(), HeaderSkip>;
}

/// Why a writer of this module left a packet alone.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum HeaderSkip {
    /// Not a TCP segment (other protocols, IPv4 fragments).
    NotTcp,
    /// Option 33 would take the IPv4 options past 40 bytes.
    OptionSpace,
    /// The stamped packet would exceed the egress MTU (or 65,535 bytes).
    Mtu,
    /// An option 33 of a length NGWA does not write is present.
    ForeignOption,
    /// The byte buffer has no room past the packet to grow it by the option.
    NoHeadroom,
}

/// What a bit writer did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SignalWrite {
    /// The bits already had the asked values: nothing written.
    Unchanged,
    /// Written (with the checksum update).
    Written,
}

/// What [`stamp_opt33`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Opt33Write {
    /// No option was present: one of `len` bytes was inserted; the IP length grew by `len`.
    Inserted { value: u32, len: OptLen },
    /// The option present carried `from`; it now carries `to` (in its own size).
    Replaced { from: u32, to: u32 },
    /// The option present already carried the value.
    Unchanged,
}

/// The type of service byte as the IPv4 header carries it.
fn tos(p: &impl HeaderView) -> u16 {
    ((p.dscp() as u16) << 2) | p.ecn() as u16
}

/// Set the ECN field and the IPv4 reserved flag (ACNS's CMI bit) of a TCP segment. The IPv4
/// header checksum is updated incrementally over the two 16-bit words that change (bytes 0–1
/// hold the ECN bits, bytes 6–7 the flag): in RFC 1624's `~m + m'` the unchanged byte of each
/// word cancels, so the words are formed from the changing byte alone.
pub fn set_ecn_cmi(p: &mut impl SignalField, ecn: Ecn, cmi: bool) -> Result<SignalWrite, HeaderSkip> {
    if !p.is_tcp() || p.tcp_flags().is_none() {
        return Err(HeaderSkip::NotTcp);
    }
    let (old_ecn, old_cmi) = (p.ecn(), p.ip_reserved_flag());
    if (old_ecn, old_cmi) == (ecn, cmi) {
        return Ok(SignalWrite::Unchanged);
    }
    let old_tos = tos(p);
    let new_tos = (old_tos & !3) | ecn as u16;
    let flag = |c: bool| if c { 0x8000u16 } else { 0 };
    let csum = p.ip_checksum().map(|c| checksum::update16(checksum::update16(c, old_tos, new_tos), flag(old_cmi), flag(cmi)));
    p.write_ecn_cmi(WriteToken::new(), ecn, cmi, csum);
    Ok(SignalWrite::Written)
}

/// A single TCP reserved bit of header byte 12 that may carry ACNS's CMT: 0x08 (default, the
/// first reserved bit after the data offset), 0x04 or 0x02. 0x01 (NS, AccECN's AE) is not
/// allowed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CmtMask(u8);

impl CmtMask {
    pub const DEFAULT: CmtMask = CmtMask(0x08);
    /// `Err` names the allowed masks.
    pub fn new(mask: u8) -> Result<CmtMask, String> {
        match mask {
            0x02 | 0x04 | 0x08 => Ok(CmtMask(mask)),
            _ => Err(format!("expected 0x08, 0x04 or 0x02 (a reserved bit of TCP byte 12), got {mask:#04x}")),
        }
    }
    pub fn bits(self) -> u8 {
        self.0
    }
}

impl Default for CmtMask {
    fn default() -> Self {
        CmtMask::DEFAULT
    }
}

/// Set or clear the TCP reserved bit `mask` of a TCP segment, updating the TCP checksum
/// incrementally (the word of bytes 12–13; the data offset and flags cancel as in
/// [`set_ecn_cmi`]).
pub fn set_tcp_reserved_bit(p: &mut impl SignalField, mask: CmtMask, on: bool) -> Result<SignalWrite, HeaderSkip> {
    let (true, Some(old)) = (p.is_tcp(), p.tcp_reserved_bits()) else {
        return Err(HeaderSkip::NotTcp);
    };
    let new = if on { old | mask.0 } else { old & !mask.0 };
    if new == old {
        return Ok(SignalWrite::Unchanged);
    }
    let csum = p.tcp_checksum().map(|c| checksum::update16(c, (old as u16) << 8, (new as u16) << 8));
    p.write_tcp_reserved(WriteToken::new(), new, csum);
    Ok(SignalWrite::Written)
}

/// Stamp `value` (bytes) into option 33 of a TCP segment: when the packet carries the option,
/// its value is overwritten in the option's own size (saturated to it), whatever `len` says, so
/// the packet does not change length; otherwise an option of `len` bytes is inserted, unless the
/// IPv4 options would pass 40 bytes or the packet `max_ip_len` (the egress MTU) or 65,535.
/// Which value to stamp (NGWA lowers, never raises) is the caller's rule.
pub fn stamp_opt33(p: &mut impl SignalField, value: u64, len: OptLen, max_ip_len: u32) -> Result<Opt33Write, HeaderSkip> {
    if !p.is_tcp() || p.tcp_flags().is_none() {
        return Err(HeaderSkip::NotTcp);
    }
    if let Some(cur) = p.ip_option33() {
        let to = cur.len.carry(value);
        if to == cur.value {
            return Ok(Opt33Write::Unchanged);
        }
        p.write_opt33(WriteToken::new(), Opt33 { value: to, len: cur.len })?;
        return Ok(Opt33Write::Replaced { from: cur.value, to });
    }
    if p.ip_options_len() + len.bytes() > MAX_IP_OPTIONS {
        return Err(HeaderSkip::OptionSpace);
    }
    if p.ip_len() + len.bytes() > max_ip_len.min(u16::MAX as u32) {
        return Err(HeaderSkip::Mtu);
    }
    let opt = Opt33 { value: len.carry(value), len };
    p.write_opt33(WriteToken::new(), opt)?;
    Ok(Opt33Write::Inserted { value: opt.value, len })
}

/// ACNS's IPv4 codes (Olšovský 2014, Table 2): the ECN field (bit 1, bit 0) and CMI, the IPv4
/// reserved flag.
///
/// | code | ECN | CMI | meaning |
/// |---|---|---|---|
/// | I1 | 00 | 0 | ACNS not supported (Not-ECT) |
/// | I2 | 10 | 0 | ACNS in ECN mode, command normal, nonce 0 |
/// | I3 | 01 | 0 | the same, nonce 1 |
/// | I4 | 10 | 1 | routers asked to set a command, nonce 0 |
/// | I5 | 01 | 1 | the same, nonce 1 |
/// | I6 | 11 | 1 | command freeze (set by a router) |
/// | I7 | 11 | 0 | command fallback (set by a router; CE to a non-ACNS node) |
///
/// ECN 00 with CMI set is no code.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AcnsIp {
    I1,
    I2,
    I3,
    I4,
    I5,
    I6,
    I7,
}

impl AcnsIp {
    pub const ALL: [AcnsIp; 7] = [AcnsIp::I1, AcnsIp::I2, AcnsIp::I3, AcnsIp::I4, AcnsIp::I5, AcnsIp::I6, AcnsIp::I7];

    /// The (ECN, CMI) pair that carries the code.
    pub fn bits(self) -> (Ecn, bool) {
        match self {
            AcnsIp::I1 => (Ecn::NotEct, false),
            AcnsIp::I2 => (Ecn::Ect0, false),
            AcnsIp::I3 => (Ecn::Ect1, false),
            AcnsIp::I4 => (Ecn::Ect0, true),
            AcnsIp::I5 => (Ecn::Ect1, true),
            AcnsIp::I6 => (Ecn::Ce, true),
            AcnsIp::I7 => (Ecn::Ce, false),
        }
    }
    /// The code a packet carries, `None` for Not-ECT with CMI set.
    pub fn of(p: &impl HeaderView) -> Option<AcnsIp> {
        AcnsIp::ALL.into_iter().find(|c| c.bits() == (p.ecn(), p.ip_reserved_flag()))
    }
    /// Write the code into a TCP segment ([`set_ecn_cmi`]).
    pub fn write(self, p: &mut impl SignalField) -> Result<SignalWrite, HeaderSkip> {
        let (ecn, cmi) = self.bits();
        set_ecn_cmi(p, ecn, cmi)
    }
}

/// ACNS's TCP codes (Olšovský 2014, Table 3): CWR, ECE and CMT (a TCP reserved bit, [`CmtMask`]);
/// T1–T4 also tell the ECN nonce sum NS (TCP byte 12, mask 0x01).
///
/// | code | CWR | ECE | CMT | NS | meaning |
/// |---|---|---|---|---|---|
/// | T1 | 0 | 0 | 0 | 0 | command normal (receiver) |
/// | T2 | 0 | 0 | 0 | 1 | command normal (receiver) |
/// | T3 | 1 | 0 | 0 | 0 | congestion window reduced (sender) |
/// | T4 | 1 | 0 | 0 | 1 | congestion window reduced (sender) |
/// | T5 | 0 | 1 | 1 | any | command freeze (receiver) |
/// | T6 | 0 | 1 | 0 | any | command fallback (receiver; plain ECE to a non-ACNS sender) |
///
/// CWR with ECE, or CMT without ECE, is no code (the ACNS SYN's ECE + CWR + CMT is a handshake,
/// not a command).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AcnsTcp {
    T1,
    T2,
    T3,
    T4,
    T5,
    T6,
}

impl AcnsTcp {
    pub const ALL: [AcnsTcp; 6] = [AcnsTcp::T1, AcnsTcp::T2, AcnsTcp::T3, AcnsTcp::T4, AcnsTcp::T5, AcnsTcp::T6];
    const NS: u8 = 0x01;

    /// (CWR and ECE as TCP flag bits, CMT, NS) for the code; T5 and T6 are written with NS 0.
    pub fn bits(self) -> (u8, bool, bool) {
        match self {
            AcnsTcp::T1 => (0, false, false),
            AcnsTcp::T2 => (0, false, true),
            AcnsTcp::T3 => (tcp_flags::CWR, false, false),
            AcnsTcp::T4 => (tcp_flags::CWR, false, true),
            AcnsTcp::T5 => (tcp_flags::ECE, true, false),
            AcnsTcp::T6 => (tcp_flags::ECE, false, false),
        }
    }
    /// The code a TCP segment carries with CMT at `mask`; `None` for non-TCP packets and
    /// combinations outside the table.
    pub fn of(p: &impl HeaderView, mask: CmtMask) -> Option<AcnsTcp> {
        let (flags, res) = (p.tcp_flags()?, p.tcp_reserved_bits()?);
        let (cwr, ece, cmt, ns) = (flags & tcp_flags::CWR != 0, flags & tcp_flags::ECE != 0, res & mask.0 != 0, res & Self::NS != 0);
        Some(match (cwr, ece, cmt, ns) {
            (false, false, false, false) => AcnsTcp::T1,
            (false, false, false, true) => AcnsTcp::T2,
            (true, false, false, false) => AcnsTcp::T3,
            (true, false, false, true) => AcnsTcp::T4,
            (false, true, true, _) => AcnsTcp::T5,
            (false, true, false, _) => AcnsTcp::T6,
            _ => return None,
        })
    }
    /// The TCP flags and reserved bits that carry the code, from a segment's `flags` and
    /// `reserved` bits (other flag and reserved bits kept): for an endpoint that builds its
    /// segments.
    pub fn apply(self, flags: u8, reserved: u8, mask: CmtMask) -> (u8, u8) {
        let (f, cmt, ns) = self.bits();
        let flags = (flags & !(tcp_flags::CWR | tcp_flags::ECE)) | f;
        let reserved = (reserved & !(mask.0 | Self::NS)) | if cmt { mask.0 } else { 0 } | if ns { Self::NS } else { 0 };
        (flags, reserved)
    }
}

#[cfg(test)]
mod tests;
