//! AES-CTR with a 128-bit big-endian counter (SP 800-38A; what OpenSSL's `aes-*-ctr` and
//! the `ctr` crate's `Ctr128BE` do): block i of the key stream is AES(counter + i).
//! Encryption and decryption are the same XOR.

use std::arch::x86_64::__m128i;

use crate::{Aes, Lanes, Path, Xmm, Ymm, Zmm, prefetch_ahead};

/// Blocks `L::BLOCKS * W` at a time, as many whole groups as `data` holds; the counter's
/// low half must not wrap over them (the caller's segments see to it).
#[inline(always)]
unsafe fn ctr_groups<L: Lanes, const R: usize, const W: usize>(
    rk: &[__m128i; 15],
    lo: u64,
    hi: u64,
    data: &mut [u8],
) {
    // SAFETY (whole body): the caller enabled L's features; pointers stay inside `chunk`,
    // which is exactly W registers of L::BLOCKS blocks.
    unsafe {
        let k: [L::V; 15] = std::array::from_fn(|i| L::splat(rk[i]));
        let next = L::step(L::BLOCKS as u64);
        let mut ctr = L::counters(lo, hi);
        for chunk in data.chunks_exact_mut(16 * L::BLOCKS * W) {
            let p = chunk.as_mut_ptr();
            prefetch_ahead(p, chunk.len());
            let mut b: [L::V; W] = std::array::from_fn(|_| {
                let x = L::xor(L::byte_swap(ctr), k[0]);
                ctr = L::add(ctr, next);
                x
            });
            for key in &k[1..R] {
                for x in &mut b {
                    *x = L::enc(*x, *key);
                }
            }
            for (i, x) in b.iter().enumerate() {
                let q = p.add(i * 16 * L::BLOCKS);
                L::store(q, L::xor(L::load(q), L::enc_last(*x, k[R])));
            }
        }
    }
}

/// The whole of `data` from counter `ctr`, whose low 64 bits do not wrap within it: wide
/// groups, then single blocks, then a partial block through a buffer on the stack.
#[inline(always)]
unsafe fn ctr_segment<L: Lanes, const R: usize, const W: usize>(
    rk: &[__m128i; 15],
    ctr: u128,
    data: &mut [u8],
) {
    let group = 16 * L::BLOCKS * W;
    let wide = data.len() / group * group;
    let whole = data.len() / 16 * 16;
    // Wrapping only where no block is left to use the counter (a segment ending exactly
    // where the low half wraps).
    let (lo, hi) = (ctr as u64, (ctr >> 64) as u64);
    let (wide_part, rest) = data.split_at_mut(wide);
    let (blocks, partial) = rest.split_at_mut(whole - wide);
    // SAFETY: the caller enabled L's features, which include Xmm's (AES-NI, SSSE3).
    unsafe {
        ctr_groups::<L, R, W>(rk, lo, hi, wide_part);
        ctr_groups::<Xmm, R, 1>(rk, lo.wrapping_add((wide / 16) as u64), hi, blocks);
        if !partial.is_empty() {
            let mut t = [0u8; 16];
            t[..partial.len()].copy_from_slice(partial);
            ctr_groups::<Xmm, R, 1>(rk, lo.wrapping_add((whole / 16) as u64), hi, &mut t);
            partial.copy_from_slice(&t[..partial.len()]);
        }
    }
}

#[target_feature(enable = "aes,ssse3")]
unsafe fn ctr_aesni<const R: usize>(rk: &[__m128i; 15], ctr: u128, data: &mut [u8]) {
    // SAFETY: this function's features are Xmm's.
    unsafe { ctr_segment::<Xmm, R, 8>(rk, ctr, data) }
}

#[target_feature(enable = "aes,ssse3,avx2,vaes")]
unsafe fn ctr_vaes_avx2<const R: usize>(rk: &[__m128i; 15], ctr: u128, data: &mut [u8]) {
    // SAFETY: this function's features are Ymm's.
    unsafe { ctr_segment::<Ymm, R, 8>(rk, ctr, data) }
}

#[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
unsafe fn ctr_vaes_avx512<const R: usize>(rk: &[__m128i; 15], ctr: u128, data: &mut [u8]) {
    // SAFETY: this function's features are Zmm's.
    unsafe { ctr_segment::<Zmm, R, 4>(rk, ctr, data) }
}

impl Aes {
    /// XOR the key stream from block `counter` on into `data`, on one thread. A chunk of a
    /// larger buffer starting at byte `offset` (a multiple of 16) uses `iv + offset / 16`.
    pub fn ctr(&self, counter: u128, data: &mut [u8]) {
        let mut counter = counter;
        let mut rest = data;
        while !rest.is_empty() {
            // The kernels add to the counter's low 64 bits only, so cut where they wrap.
            let room = (1u128 << 64) - u128::from(counter as u64);
            let take = (rest.len() as u128).min(room * 16) as usize;
            let (segment, tail) = rest.split_at_mut(take);
            // SAFETY: `Aes::new` checked that the CPU has `self.path`'s features, and the
            // segment's counter does not wrap its low half.
            unsafe {
                match (self.path, self.rounds) {
                    (Path::AesNi, 10) => ctr_aesni::<10>(&self.enc, counter, segment),
                    (Path::AesNi, _) => ctr_aesni::<14>(&self.enc, counter, segment),
                    (Path::VaesAvx2, 10) => ctr_vaes_avx2::<10>(&self.enc, counter, segment),
                    (Path::VaesAvx2, _) => ctr_vaes_avx2::<14>(&self.enc, counter, segment),
                    (Path::VaesAvx512, 10) => ctr_vaes_avx512::<10>(&self.enc, counter, segment),
                    (Path::VaesAvx512, _) => ctr_vaes_avx512::<14>(&self.enc, counter, segment),
                }
            }
            counter = counter.wrapping_add((take / 16) as u128);
            rest = tail;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SP 800-38A F.5.1 (CTR-AES128.Encrypt), first two blocks.
    #[test]
    fn known_answer_sp800_38a() {
        let key = hex::decode("2b7e151628aed2a6abf7158809cf4f3c").unwrap();
        let ctr = u128::from_str_radix("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", 16).unwrap();
        let plain = hex::decode("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")
            .unwrap();
        for path in Path::every_supported() {
            let mut data = plain.clone();
            Aes::new(&key, path).unwrap().ctr(ctr, &mut data);
            assert_eq!(
                hex::encode(&data),
                "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff",
                "{path:?}"
            );
        }
    }
}
