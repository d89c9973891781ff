//! AES-ECB over whole blocks, for parity with the seed and `openssl speed`: every block
//! on its own, so it shows the cipher's raw rate (and is no mode to protect data with).

use std::arch::x86_64::__m128i;

use crate::{Aes, Lanes, Path, Xmm, Ymm, Zmm, prefetch_ahead};

/// `L::BLOCKS * W` blocks at a time through the cipher (or, with `DECRYPT`, its inverse
/// with the decryption keys), as many whole groups as `data` holds.
#[inline(always)]
unsafe fn ecb_groups<L: Lanes, const R: usize, const W: usize, const DECRYPT: bool>(
    rk: &[__m128i; 15],
    data: &mut [u8],
) {
    // SAFETY (whole body): the caller enabled L's features; pointers stay inside `chunk`,
    // which is exactly W registers of L::BLOCKS blocks.
    unsafe {
        let k: [L::V; 15] = std::array::from_fn(|i| L::splat(rk[i]));
        for chunk in data.chunks_exact_mut(16 * L::BLOCKS * W) {
            let p = chunk.as_mut_ptr();
            prefetch_ahead(p, chunk.len());
            let mut b: [L::V; W] =
                std::array::from_fn(|i| L::xor(L::load(p.add(i * 16 * L::BLOCKS)), k[0]));
            for key in &k[1..R] {
                for x in &mut b {
                    *x = if DECRYPT {
                        L::dec(*x, *key)
                    } else {
                        L::enc(*x, *key)
                    };
                }
            }
            for (i, x) in b.iter().enumerate() {
                let y = if DECRYPT {
                    L::dec_last(*x, k[R])
                } else {
                    L::enc_last(*x, k[R])
                };
                L::store(p.add(i * 16 * L::BLOCKS), y);
            }
        }
    }
}

#[inline(always)]
unsafe fn ecb_all<L: Lanes, const R: usize, const W: usize, const DECRYPT: bool>(
    rk: &[__m128i; 15],
    data: &mut [u8],
) {
    let group = 16 * L::BLOCKS * W;
    let (wide, rest) = data.split_at_mut(data.len() / group * group);
    // SAFETY: the caller enabled L's features, which include Xmm's (AES-NI, SSSE3).
    unsafe {
        ecb_groups::<L, R, W, DECRYPT>(rk, wide);
        ecb_groups::<Xmm, R, 1, DECRYPT>(rk, rest);
    }
}

#[target_feature(enable = "aes,ssse3")]
unsafe fn ecb_aesni<const R: usize, const DECRYPT: bool>(rk: &[__m128i; 15], data: &mut [u8]) {
    // SAFETY: this function's features are Xmm's.
    unsafe { ecb_all::<Xmm, R, 8, DECRYPT>(rk, data) }
}

#[target_feature(enable = "aes,ssse3,avx2,vaes")]
unsafe fn ecb_vaes_avx2<const R: usize, const DECRYPT: bool>(rk: &[__m128i; 15], data: &mut [u8]) {
    // SAFETY: this function's features are Ymm's.
    unsafe { ecb_all::<Ymm, R, 8, DECRYPT>(rk, data) }
}

#[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
unsafe fn ecb_vaes_avx512<const R: usize, const DECRYPT: bool>(
    rk: &[__m128i; 15],
    data: &mut [u8],
) {
    // SAFETY: this function's features are Zmm's.
    unsafe { ecb_all::<Zmm, R, 4, DECRYPT>(rk, data) }
}

impl Aes {
    /// Encrypt whole blocks in place, on one thread.
    ///
    /// # Panics
    /// If `data` is not a whole number of 16-byte blocks (`bulk` sizes always are).
    pub fn ecb_encrypt(&self, data: &mut [u8]) {
        self.ecb::<false>(data)
    }

    /// Decrypt whole blocks in place, on one thread; panics as [`Aes::ecb_encrypt`].
    pub fn ecb_decrypt(&self, data: &mut [u8]) {
        self.ecb::<true>(data)
    }

    fn ecb<const DECRYPT: bool>(&self, data: &mut [u8]) {
        assert!(
            data.len().is_multiple_of(16),
            "ECB works on whole 16-byte blocks"
        );
        let rk = if DECRYPT { &self.dec } else { &self.enc };
        // SAFETY: `Aes::new` checked that the CPU has `self.path`'s features.
        unsafe {
            match (self.path, self.rounds) {
                (Path::AesNi, 10) => ecb_aesni::<10, DECRYPT>(rk, data),
                (Path::AesNi, _) => ecb_aesni::<14, DECRYPT>(rk, data),
                (Path::VaesAvx2, 10) => ecb_vaes_avx2::<10, DECRYPT>(rk, data),
                (Path::VaesAvx2, _) => ecb_vaes_avx2::<14, DECRYPT>(rk, data),
                (Path::VaesAvx512, 10) => ecb_vaes_avx512::<10, DECRYPT>(rk, data),
                (Path::VaesAvx512, _) => ecb_vaes_avx512::<14, DECRYPT>(rk, data),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FIPS 197 appendix C.1 and C.3.
    #[test]
    fn known_answers_fips_197() {
        let plain = hex::decode("00112233445566778899aabbccddeeff").unwrap();
        let key: Vec<u8> = (0u8..32).collect();
        for path in Path::every_supported() {
            for (key, expected) in [
                (&key[..16], "69c4e0d86a7b0430d8cdb78070b4c55a"),
                (&key[..], "8ea2b7ca516745bfeafc49904b496089"),
            ] {
                let aes = Aes::new(key, path).unwrap();
                let mut block = plain.clone();
                aes.ecb_encrypt(&mut block);
                assert_eq!(hex::encode(&block), expected, "{path:?}");
                aes.ecb_decrypt(&mut block);
                assert_eq!(block, plain, "{path:?}");
            }
        }
    }

    #[test]
    #[should_panic(expected = "whole 16-byte blocks")]
    fn partial_blocks_are_refused() {
        let aes = Aes::new(&[0; 16], Path::AesNi).unwrap();
        aes.ecb_encrypt(&mut [0u8; 17]);
    }
}
