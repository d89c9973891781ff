//! Eight states at once, one per 64-bit element of AVX-512 registers.
//!
//! AVX-512F has a native 64-bit rotate and `vpternlogq`, which computes any
//! function of three inputs: theta's XORs take half the instructions and chi
//! takes one per lane. With 32 registers the 25 lanes mostly stay in them.

use core::arch::x86_64::*;

use super::{Backend, sponge};

type V = __m512i;

/// `vpternlogq` truth table for `a ^ b ^ c`.
const XOR3: i32 = 0x96;
/// `vpternlogq` truth table for `a ^ (!b & c)`.
const CHI: i32 = 0xD2;

#[target_feature(enable = "avx512f")]
#[inline]
fn xor5(a: V, b: V, c: V, d: V, e: V) -> V {
    _mm512_ternarylogic_epi64::<XOR3>(_mm512_ternarylogic_epi64::<XOR3>(a, b, c), d, e)
}

/// Theta's column term is kept as its two parts, so that applying it is one
/// three-way XOR per lane.
#[target_feature(enable = "avx512f")]
#[inline]
fn theta_d(prev: V, next: V) -> (V, V) {
    (prev, _mm512_rol_epi64::<1>(next))
}

#[target_feature(enable = "avx512f")]
#[inline]
fn theta_apply(lane: V, (prev, next): (V, V)) -> V {
    _mm512_ternarylogic_epi64::<XOR3>(lane, prev, next)
}

#[target_feature(enable = "avx512f")]
#[inline]
fn rotl<const L: i32, const R: i32>(x: V) -> V {
    if L == 0 { x } else { _mm512_rol_epi64::<L>(x) }
}

#[target_feature(enable = "avx512f")]
#[inline]
fn chi(a: V, b: V, c: V) -> V {
    _mm512_ternarylogic_epi64::<CHI>(a, b, c)
}

#[target_feature(enable = "avx512f")]
#[inline]
fn iota(lane: V, rc: u64) -> V {
    _mm512_xor_si512(lane, _mm512_set1_epi64(rc as i64))
}

#[target_feature(enable = "avx512f")]
fn f1600(state: &mut [V; 25]) {
    super::round::keccak_f1600!(state);
}

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
unsafe fn xor_words(state: &mut [V; 25], lanes: [*const u8; 8], words: usize) {
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
unsafe fn write_words(state: &[V; 25], lanes: [*mut u8; 8], words: usize) {
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

sponge::simd_entry_points!(
    checked Backend::Avx512x8, is_supported;
    feature: "avx512f", lanes: 8, zero: _mm512_setzero_si512(),
);
