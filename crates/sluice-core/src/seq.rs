//! TCP sequence-number arithmetic and window scaling.
//!
//! On the wire, sequence numbers are 32-bit and compared modulo 2³² (RFC 9293 §3.4). Inside the
//! simulated endpoint, stream positions are 64-bit offsets from the initial sequence number, so
//! only the wire conversion ([`to_wire`], [`unwrap_near`]) deals with wrapping.

/// Wire sequence number of stream offset `off` for initial sequence number `isn`.
#[inline]
pub fn to_wire(isn: u32, off: u64) -> u32 {
    isn.wrapping_add(off as u32)
}

/// The 64-bit offset whose wire value is `wire`, choosing the one nearest to `near` (of two at
/// equal distance, 2³¹ either side, the lower); never below zero.
#[inline]
pub fn unwrap_near(isn: u32, wire: u32, near: u64) -> u64 {
    let rel = wire.wrapping_sub(isn); // offset modulo 2³²
    // The signed distance from `near` to the nearest offset with this residue, in [−2³¹, 2³¹).
    let diff = rel.wrapping_sub(near as u32) as i32 as i64;
    let v = near.wrapping_add(diff as u64);
    if diff < 0 && v > near {
        // Below zero: the next offset up with this residue.
        v.wrapping_add(1 << 32)
    } else {
        v
    }
}

/// `a < b` modulo 2³².
#[inline]
pub fn seq_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// `a ≤ b` modulo 2³².
#[inline]
pub fn seq_le(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) <= 0
}

/// The window-scale shift a receiver with `rcv_buf` bytes of buffer announces: the smallest `s`
/// with `rcv_buf ≤ 65535·2^s`, at most 14 (RFC 7323 §2.3).
pub fn wscale_for_buffer(rcv_buf: u64) -> u8 {
    let mut s = 0u8;
    while s < 14 && rcv_buf > (65_535u64 << s) {
        s += 1;
    }
    s
}

/// The 16-bit window field that advertises `window_bytes` under `shift` (floor, saturating).
#[inline]
pub fn window_field(window_bytes: u64, shift: u8) -> u16 {
    (window_bytes >> shift).min(65_535) as u16
}

/// The window in bytes that a field value means under `shift`.
#[inline]
pub fn window_bytes(field: u16, shift: u8) -> u64 {
    (field as u64) << shift
}

#[cfg(test)]
mod tests {
    use super::*;

    // tests RFC 7323 §2.3: shift choice, at most 14.
    #[test]
    fn wscale_choice() {
        assert_eq!(wscale_for_buffer(65_535), 0);
        assert_eq!(wscale_for_buffer(65_536), 1);
        assert_eq!(wscale_for_buffer(131_072), 2);
        assert_eq!(wscale_for_buffer(8 * 1024 * 1024), 8);
        assert_eq!(wscale_for_buffer(u64::MAX), 14);
    }

    // tests RFC 7323 §2.2: the field is the window right-shifted (floor); the peer shifts it back.
    #[test]
    fn window_scale_arithmetic() {
        assert_eq!(window_field(8 * 1024 * 1024, 8), 32_768);
        assert_eq!(window_bytes(32_768, 8), 8 * 1024 * 1024);
        assert_eq!(window_field(1000, 8), 3); // floor: 1000 / 256
        assert_eq!(window_bytes(3, 8), 768);
        assert_eq!(window_field(100_000, 0), 65_535); // saturates
    }

    /// The definition `unwrap_near` implements: of the offsets with `wire`'s residue in the
    /// 2³²-wide bands around `near`'s, the non-negative one nearest to `near`, the lower on a tie.
    fn unwrap_by_search(isn: u32, wire: u32, near: u64) -> u64 {
        let rel = wire.wrapping_sub(isn) as u64;
        let base = near & !0xffff_ffff;
        [base.checked_sub(1 << 32), Some(base), base.checked_add(1 << 32)]
            .into_iter()
            .flatten()
            .filter_map(|c| c.checked_add(rel))
            .min_by_key(|&v| (v.abs_diff(near), v))
            .unwrap()
    }

    // tests the closed form against the search on the cases that decide it: distances of
    // exactly 2³¹ either side (the lower wins), just under, residues that would put the result
    // below zero, offsets across 2³² boundaries; and on pseudo-random triples.
    #[test]
    fn unwrap_near_is_the_nearest_offset() {
        let h = 1u64 << 31;
        for near in [0u64, 1, 5, h - 1, h, h + 1, (1 << 32) - 1, 1 << 32, (1 << 32) + h, 7 << 32, (7 << 32) + 12_345] {
            for d in [0i64, 1, -1, (h - 1) as i64, -((h - 1) as i64), h as i64, -(h as i64), 1000, -1000] {
                let target = near as i64 + d;
                let wire = (target as u64 as u32).wrapping_add(77);
                assert_eq!(unwrap_near(77, wire, near), unwrap_by_search(77, wire, near), "near {near}, distance {d}");
            }
        }
        // At exactly 2³¹ away the lower candidate wins; below zero is never chosen.
        assert_eq!(unwrap_near(0, (3u64 << 31) as u32, 1 << 32), 1 << 31);
        assert_eq!(unwrap_near(0, u32::MAX, 10), u32::MAX as u64);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (isn, wire, near) = (x as u32, (x >> 32) as u32, x >> (x % 29));
            assert_eq!(unwrap_near(isn, wire, near), unwrap_by_search(isn, wire, near), "isn {isn}, wire {wire}, near {near}");
        }
    }

    #[test]
    fn wrapping_compare_and_unwrap() {
        assert!(seq_lt(0xffff_fff0, 0x10));
        assert!(!seq_lt(0x10, 0xffff_fff0));
        assert!(seq_le(5, 5));
        let isn = 0xffff_ff00;
        for off in [0u64, 100, 255, 256, 1 << 32, (1 << 32) + 5, 3 << 32] {
            let w = to_wire(isn, off);
            assert_eq!(unwrap_near(isn, w, off.saturating_sub(1000)), off);
            assert_eq!(unwrap_near(isn, w, off + 1000), off);
        }
    }
}
