//! Eight states at once, one per 64-bit element of AVX-512 registers (the
//! round is `avx512.rs`'s, shared with the AVX-512VL backends).

use core::arch::x86_64::*;

/// The eight-state backends' shared parameters, and the theta formulation of each.
macro_rules! x8_backend {
    ($backend:expr, $theta:ident) => {
        use super::{write_words, xor_words};

        crate::avx512::avx512_variant! {
            backend: $backend,
            lanes: 8,
            vector: __m512i,
            ternarylogic: _mm512_ternarylogic_epi64,
            rol: _mm512_rol_epi64,
            xor: _mm512_xor_si512,
            set1: _mm512_set1_epi64,
            setzero: _mm512_setzero_si512,
            theta: $theta,
            feature: "avx512f",
        }
    };
}

/// `x8-avx512`: theta's three-way XORs.
pub(super) mod ternary {
    x8_backend!(crate::Backend::Avx512x8, three_way);
}

/// `x8-avx512-xor`: theta's D once a column, two-way XORs.
pub(super) mod xor {
    x8_backend!(crate::Backend::Avx512x8Xor, two_way);
}

type V = __m512i;

/// XORs the first `words` little-endian words of each lane's bytes into the
/// state.
///
/// Each 128-bit load takes two consecutive words of one lane; the even lanes
/// go into one register and the odd lanes into another, and one unpack then
/// gives each word across all eight lanes in order.
///
/// # Safety
/// Each pointer must be valid for reading `8 * words` bytes, `words <= 25`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn xor_words(state: &mut [V; 25], lanes: [*const u8; 8], words: usize) {
    let mut w = 0;
    while w + 2 <= words {
        // SAFETY: bytes `8 * w..8 * w + 16` lie within the `8 * words` the
        // caller guarantees readable; the loads are unaligned.
        let gather = |first: usize| unsafe {
            let at = |lane: usize| _mm_loadu_si128(lanes[lane].add(8 * w).cast());
            let x = _mm512_castsi128_si512(at(first));
            let x = _mm512_inserti32x4::<1>(x, at(first + 2));
            let x = _mm512_inserti32x4::<2>(x, at(first + 4));
            _mm512_inserti32x4::<3>(x, at(first + 6))
        };
        let (even, odd) = (gather(0), gather(1));
        state[w] = _mm512_xor_si512(state[w], _mm512_unpacklo_epi64(even, odd));
        state[w + 1] = _mm512_xor_si512(state[w + 1], _mm512_unpackhi_epi64(even, odd));
        w += 2;
    }
    if w < words {
        // SAFETY: bytes `8 * w..8 * w + 8` lie within the `8 * words` the
        // caller guarantees readable.
        let word = |lane: usize| unsafe { lanes[lane].add(8 * w).cast::<i64>().read_unaligned() };
        let v = _mm512_setr_epi64(
            word(0),
            word(1),
            word(2),
            word(3),
            word(4),
            word(5),
            word(6),
            word(7),
        );
        state[w] = _mm512_xor_si512(state[w], v);
    }
}

/// Writes the first `words` words of each lane of the state as little-endian
/// bytes, undoing the transposition of [`xor_words`].
///
/// # Safety
/// Each pointer must be valid for writing `8 * words` bytes, `words <= 25`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn write_words(state: &[V; 25], lanes: [*mut u8; 8], words: usize) {
    let mut w = 0;
    while w + 2 <= words {
        let even = _mm512_unpacklo_epi64(state[w], state[w + 1]);
        let odd = _mm512_unpackhi_epi64(state[w], state[w + 1]);
        // SAFETY: bytes `8 * w..8 * w + 16` lie within the `8 * words` the
        // caller guarantees writable; the stores are unaligned.
        unsafe {
            let at = |lane: usize| lanes[lane].add(8 * w).cast::<__m128i>();
            _mm_storeu_si128(at(0), _mm512_castsi512_si128(even));
            _mm_storeu_si128(at(1), _mm512_castsi512_si128(odd));
            _mm_storeu_si128(at(2), _mm512_extracti32x4_epi32::<1>(even));
            _mm_storeu_si128(at(3), _mm512_extracti32x4_epi32::<1>(odd));
            _mm_storeu_si128(at(4), _mm512_extracti32x4_epi32::<2>(even));
            _mm_storeu_si128(at(5), _mm512_extracti32x4_epi32::<2>(odd));
            _mm_storeu_si128(at(6), _mm512_extracti32x4_epi32::<3>(even));
            _mm_storeu_si128(at(7), _mm512_extracti32x4_epi32::<3>(odd));
        }
        w += 2;
    }
    if w < words {
        let mut word = [0u64; 8];
        // SAFETY: `word` is 64 writable bytes; the store is unaligned.
        unsafe { _mm512_storeu_si512(word.as_mut_ptr().cast(), state[w]) };
        for (lane, word) in lanes.iter().zip(word) {
            // SAFETY: bytes `8 * w..8 * w + 8` lie within the `8 * words` the
            // caller guarantees writable.
            unsafe { lane.add(8 * w).cast::<u64>().write_unaligned(word) };
        }
    }
}

pub(super) fn is_supported() -> bool {
    is_x86_feature_detected!("avx512f")
}
