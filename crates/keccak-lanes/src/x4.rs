//! Four states at once, one per 64-bit element of AVX2 registers.

use core::arch::x86_64::*;

use super::round::FrameConstants;
use super::{Backend, sponge};

type V = __m256i;

#[target_feature(enable = "avx2")]
#[inline]
fn xor(a: V, b: V) -> V {
    _mm256_xor_si256(a, b)
}

#[target_feature(enable = "avx2")]
#[inline]
fn xor5(a: V, b: V, c: V, d: V, e: V) -> V {
    xor(xor(xor(a, b), xor(c, d)), e)
}

#[target_feature(enable = "avx2")]
#[inline]
fn theta_d(prev: V, next: V) -> V {
    xor(prev, rotl::<1, 63>(next))
}

#[target_feature(enable = "avx2")]
#[inline]
fn theta_apply(lane: V, d: V) -> V {
    xor(lane, d)
}

/// AVX2 has no 64-bit rotate. Rotations by whole bytes are one byte shuffle
/// instead of two shifts and an OR (its mask taken from `k`, in the
/// permutation's frame), and rotating by one shifts left with an add, which
/// more execution ports accept than shifts.
#[target_feature(enable = "avx2")]
#[inline]
fn rotl_with<const L: i32, const R: i32>(x: V, k: &Constants) -> V {
    match L {
        0 => x,
        1 => _mm256_or_si256(_mm256_add_epi64(x, x), _mm256_srli_epi64::<R>(x)),
        8 => _mm256_shuffle_epi8(x, k.masks[0]),
        56 => _mm256_shuffle_epi8(x, k.masks[1]),
        _ => _mm256_or_si256(_mm256_slli_epi64::<L>(x), _mm256_srli_epi64::<R>(x)),
    }
}

/// For theta's rotation by one, which needs no constant.
#[target_feature(enable = "avx2")]
#[inline]
fn rotl<const L: i32, const R: i32>(x: V) -> V {
    rotl_with::<L, R>(x, &CONSTANTS)
}

type Constants = FrameConstants<[V; 2]>;

/// Byte shuffles that rotate each 64-bit element left by 8 and by 56 bits
/// (`vpshufb` masks); `x4-avx2-asm` is passed them too.
pub(super) const BYTE_ROTATIONS: [[u8; 32]; 2] = [
    [
        7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14, 7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10,
        11, 12, 13, 14,
    ],
    [
        1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8, 1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11,
        12, 13, 14, 15, 8,
    ],
];

/// The round constants and [`BYTE_ROTATIONS`]; [`f1600`] copies them into its frame.
const CONSTANTS: Constants = FrameConstants {
    rc: super::round::RC,
    // SAFETY: any 32 bytes are a valid `__m256i`.
    masks: unsafe { core::mem::transmute::<[[u8; 32]; 2], [V; 2]>(BYTE_ROTATIONS) },
};

#[target_feature(enable = "avx2")]
#[inline]
fn chi(a: V, b: V, c: V) -> V {
    xor(a, _mm256_andnot_si256(b, c))
}

#[target_feature(enable = "avx2")]
#[inline]
fn iota(lane: V, rc: u64) -> V {
    xor(lane, _mm256_set1_epi64x(rc as i64))
}

#[target_feature(enable = "avx2")]
fn f1600(state: &mut [V; 25]) {
    super::round::keccak_f1600!(state, one_round_per_loop, CONSTANTS);
}

/// XORs the first `words` little-endian words of each lane's bytes into the
/// state.
///
/// Each 128-bit load takes two consecutive words of one lane; two loads go
/// into one register as lanes 0 and 2, two as lanes 1 and 3, and one unpack
/// then gives each word across all four lanes in order.
///
/// # Safety
/// Each pointer must be valid for reading `8 * words` bytes, `words <= 25`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn xor_words(state: &mut [V; 25], lanes: [*const u8; 4], words: usize) {
    let mut w = 0;
    while w + 2 <= words {
        // SAFETY: bytes `8 * w..8 * w + 16` lie within the `8 * words` the
        // caller guarantees readable; the loads are unaligned.
        let (lanes02, lanes13) = unsafe {
            let at = |lane: usize| lanes[lane].add(8 * w).cast::<__m128i>();
            (
                _mm256_loadu2_m128i(at(2), at(0)),
                _mm256_loadu2_m128i(at(3), at(1)),
            )
        };
        state[w] = xor(state[w], _mm256_unpacklo_epi64(lanes02, lanes13));
        state[w + 1] = xor(state[w + 1], _mm256_unpackhi_epi64(lanes02, lanes13));
        w += 2;
    }
    if w < words {
        // SAFETY: bytes `8 * w..8 * w + 8` lie within the `8 * words` the
        // caller guarantees readable.
        let word = |lane: usize| unsafe { lanes[lane].add(8 * w).cast::<i64>().read_unaligned() };
        state[w] = xor(
            state[w],
            _mm256_setr_epi64x(word(0), word(1), word(2), word(3)),
        );
    }
}

/// Writes the first `words` words of each lane of the state as little-endian
/// bytes, undoing the transposition of [`xor_words`].
///
/// # Safety
/// Each pointer must be valid for writing `8 * words` bytes, `words <= 25`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn write_words(state: &[V; 25], lanes: [*mut u8; 4], words: usize) {
    let mut w = 0;
    while w + 2 <= words {
        let lanes02 = _mm256_unpacklo_epi64(state[w], state[w + 1]);
        let lanes13 = _mm256_unpackhi_epi64(state[w], state[w + 1]);
        // SAFETY: bytes `8 * w..8 * w + 16` lie within the `8 * words` the
        // caller guarantees writable; the stores are unaligned.
        unsafe {
            let at = |lane: usize| lanes[lane].add(8 * w).cast::<__m128i>();
            _mm256_storeu2_m128i(at(2), at(0), lanes02);
            _mm256_storeu2_m128i(at(3), at(1), lanes13);
        }
        w += 2;
    }
    if w < words {
        let mut word = [0u64; 4];
        // SAFETY: `word` is 32 writable bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(word.as_mut_ptr().cast(), state[w]) };
        for (lane, word) in lanes.iter().zip(word) {
            // SAFETY: bytes `8 * w..8 * w + 8` lie within the `8 * words` the
            // caller guarantees writable.
            unsafe { lane.add(8 * w).cast::<u64>().write_unaligned(word) };
        }
    }
}

pub(super) fn is_supported() -> bool {
    is_x86_feature_detected!("avx2")
}

sponge::simd_entry_points!(
    checked Backend::Avx2x4, is_supported;
    feature: "avx2", lanes: 4, zero: _mm256_setzero_si256(),
);
