//! The Internet checksum (RFC 1071) and its incremental update (RFC 1624).

/// One's-complement sum of `data` as big-endian 16-bit words, folded, not inverted.
pub fn ones_sum(data: &[u8], mut acc: u32) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [b] = chunks.remainder() {
        acc += (*b as u32) << 8;
    }
    acc
}

/// Fold a 32-bit accumulator into 16 bits.
pub fn fold(mut acc: u32) -> u16 {
    while acc >> 16 != 0 {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// The checksum field value for `data` (plus any pre-summed pseudo-header in `acc`).
pub fn checksum(data: &[u8], acc: u32) -> u16 {
    !fold(ones_sum(data, acc))
}

/// RFC 1624 eqn. 3: the new checksum after a 16-bit field changes from `old` to `new`:
/// `HC' = ~(~HC + ~m + m')`. (The subtractive form of RFC 1141 gives 0xFFFF where 0x0000 is
/// right.)
pub fn update16(hc: u16, old: u16, new: u16) -> u16 {
    let acc = (!hc as u32) + (!old as u32) + new as u32;
    !fold(acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    // tests RFC 1624 §4 worked example: HC = 0xDD2F, m = 0x5555 -> m' = 0x3285 gives HC' = 0x0000.
    #[test]
    fn rfc1624_vector() {
        assert_eq!(update16(0xDD2F, 0x5555, 0x3285), 0x0000);
    }

    #[test]
    fn incremental_equals_full_recompute() {
        let mut data: Vec<u8> = (0u8..40).map(|i| i.wrapping_mul(37)).collect();
        data[16] = 0;
        data[17] = 0;
        let c = checksum(&data, 0);
        data[16..18].copy_from_slice(&c.to_be_bytes());
        assert_eq!(fold(ones_sum(&data, 0)), 0xffff, "a valid checksum sums to all ones");
        let old = u16::from_be_bytes([data[14], data[15]]);
        let new: u16 = 0x1234;
        data[14..16].copy_from_slice(&new.to_be_bytes());
        let c2 = update16(c, old, new);
        data[16..18].copy_from_slice(&c2.to_be_bytes());
        assert_eq!(fold(ones_sum(&data, 0)), 0xffff);
    }

    // tests the sum over an odd number of bytes: the last byte is the high half of a word
    // padded with zero (RFC 1071 §4.1): 0x0102 + 0x0300 = 0x0402, checksum 0xFBFD; a carry
    // is kept for the fold (0xFFFF + 0x0001 = 0x1_0000, folded to 0x0001).
    #[test]
    fn an_odd_byte_is_the_high_half_of_a_padded_word() {
        assert_eq!(ones_sum(&[0x01, 0x02, 0x03], 0), 0x0402);
        assert_eq!(checksum(&[0x01, 0x02, 0x03], 0), 0xFBFD);
        assert_eq!(ones_sum(&[0xFF, 0xFF, 0x00, 0x01], 0), 0x1_0000);
        assert_eq!(fold(0x1_0000), 0x0001);
        assert_eq!(ones_sum(&[0x00, 0x05], 7), 12, "added to the sum handed in");
    }
}

