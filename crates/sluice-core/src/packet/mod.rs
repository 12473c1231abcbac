//! The header view shared by both datapaths, and the one writer of the TCP window.
//!
//! Controllers and queue disciplines read packets only through [`HeaderView`] (and the
//! [`crate::qdisc::Queued`] trait). The simulator implements it on its packet struct; the
//! gateway implements it on raw bytes ([`raw::RawPacket`]). So an algorithm written once runs in
//! both.
//!
//! | module | what it holds |
//! |---|---|
//! | [`checksum`] | RFC 1071 sum, RFC 1624 incremental update |
//! | [`window`] | [`WindowField`] (sealed setter) and [`lower_window`], the only code that writes a TCP window |
//! | [`raw`] | [`RawPacket`]: IPv4 + TCP/UDP over a byte buffer, checked once, panic-free afterwards |
//! | [`signal`] | [`SignalField`] (sealed setters) and the writers of ECN + the IPv4 reserved flag, a TCP reserved bit and IPv4 option 33; ACNS's command codes |

pub mod checksum;
pub mod raw;
pub mod signal;
pub mod window;

pub use raw::{ParseError, RawLayout, RawPacket};
pub use signal::{set_ecn_cmi, set_tcp_reserved_bit, stamp_opt33, AcnsIp, AcnsTcp, CmtMask, HeaderSkip, Opt33, Opt33Write, OptLen, SignalField, SignalWrite};
pub use window::{lower_window, lower_window_shifted, Desired, Floor, SkipReason, WindowField, WindowRewrite, WriteToken};

/// The two ECN bits of the IP header (RFC 3168 §5).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Ecn {
    #[default]
    NotEct = 0b00,
    Ect1 = 0b01,
    Ect0 = 0b10,
    Ce = 0b11,
}

impl Ecn {
    pub fn from_bits(b: u8) -> Ecn {
        match b & 3 {
            0 => Ecn::NotEct,
            1 => Ecn::Ect1,
            2 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }
    /// ECN-capable transport (ECT(0), ECT(1), or already CE).
    pub fn is_ect(self) -> bool {
        self != Ecn::NotEct
    }
}

/// IP protocol numbers used here.
pub mod proto {
    pub const TCP: u8 = 6;
    pub const UDP: u8 = 17;
}

/// TCP header flag bits (RFC 9293 §3.1, RFC 3168 §6.1).
pub mod tcp_flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
    pub const URG: u8 = 0x20;
    pub const ECE: u8 = 0x40;
    pub const CWR: u8 = 0x80;
}

/// Read access to the IPv4 and TCP/UDP header fields that gateway algorithms use.
///
/// TCP accessors return `None` for non-TCP packets. The window is the raw 16-bit field, exactly
/// as on the wire (scaled by the sender's negotiated shift except in SYN segments).
pub trait HeaderView {
    fn src_addr(&self) -> u32;
    fn dst_addr(&self) -> u32;
    fn protocol(&self) -> u8;
    fn dscp(&self) -> u8;
    fn ecn(&self) -> Ecn;
    /// Total IP length in bytes (header + payload).
    fn ip_len(&self) -> u32;
    fn src_port(&self) -> Option<u16>;
    fn dst_port(&self) -> Option<u16>;
    fn tcp_flags(&self) -> Option<u8>;
    fn tcp_seq(&self) -> Option<u32>;
    fn tcp_ack(&self) -> Option<u32>;
    fn tcp_window_field(&self) -> Option<u16>;
    /// TCP or UDP payload length in bytes.
    fn payload_len(&self) -> u32;
    /// The TCP options a flow table reads (all absent for non-TCP packets). Absent and
    /// present-with-zero are different: a SYN whose window-scale option says 0 enables scaling
    /// with shift 0, a SYN without the option disables scaling for both directions (RFC 7323
    /// §2.2).
    fn tcp_options(&self) -> TcpOptionsView;

    fn is_tcp(&self) -> bool {
        self.protocol() == proto::TCP
    }

    /// The IPv4 reserved flag (bytes 6–7, mask 0x8000; RFC 791), which ACNS uses as its "CMI"
    /// bit. A view that carries no such bit says `false`.
    fn ip_reserved_flag(&self) -> bool {
        false
    }
    /// Bytes of IPv4 options (IHL·4 − 20, at most 40).
    fn ip_options_len(&self) -> u32 {
        0
    }
    /// The NGWA option (IPv4 option type 33) if the packet carries one in a layout NGWA writes
    /// ([`Opt33`]); `None` otherwise.
    fn ip_option33(&self) -> Option<Opt33> {
        None
    }
    /// The low four bits of TCP header byte 12 (0x01 is NS/AccECN's AE, 0x0E the reserved bits;
    /// ACNS's "CMT" bit is one of them), `None` for non-TCP packets.
    fn tcp_reserved_bits(&self) -> Option<u8> {
        self.is_tcp().then_some(0)
    }
}

/// The TCP options gateway algorithms read: MSS and window scale (meaningful on SYN and
/// SYN-ACK only, RFC 7323 §2.2, RFC 9293 §3.7.1), SACK-permitted, timestamps.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpOptionsView {
    /// MSS option (kind 2): the largest segment the sender of this SYN accepts; `None` if absent.
    pub mss: Option<u16>,
    /// Window-scale option (kind 3) as carried, not clamped; `None` if absent, `Some(0)` if
    /// present with shift 0.
    pub wscale: Option<u8>,
    /// SACK-permitted (kind 4).
    pub sack_permitted: bool,
    /// Timestamps (kind 8): `(TSval, TSecr)`.
    pub timestamps: Option<(u32, u32)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::testutil::{Seg, CLIENT, SERVER};

    // tests which codepoints are ECN-capable: ECT(0), ECT(1) and CE, not Not-ECT.
    #[test]
    fn ect_codepoints_are_ecn_capable() {
        assert!(!Ecn::NotEct.is_ect());
        assert!(Ecn::Ect0.is_ect() && Ecn::Ect1.is_ect() && Ecn::Ce.is_ect());
    }

    // tests what a view that carries no IPv4 options or reserved bits reports by default: TCP
    // by its protocol number, no reserved flag, no options, and TCP's reserved bits as 0 (none
    // for other protocols).
    #[test]
    fn a_plain_view_reports_no_options_or_reserved_bits() {
        let tcp = Seg::tcp(CLIENT, SERVER, tcp_flags::ACK);
        assert!(tcp.is_tcp());
        assert!(!tcp.ip_reserved_flag());
        assert_eq!(tcp.ip_options_len(), 0);
        assert_eq!(tcp.ip_option33(), None);
        assert_eq!(tcp.tcp_reserved_bits(), Some(0));
        let udp = Seg { proto: proto::UDP, ..tcp };
        assert!(!udp.is_tcp());
        assert_eq!(udp.tcp_reserved_bits(), None);
    }
}

