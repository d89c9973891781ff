//! Two states at once, one per 64-bit element of 128-bit registers.
//!
//! The same code is compiled twice: for SSE2, which every x86-64 CPU has,
//! and for AVX, whose three-operand VEX encodings spare the register copies
//! that SSE2's destructive two-operand forms need, and which brings SSSE3's
//! byte shuffle for the rotations by whole bytes.

/// The round operations, block transposition and entry points for one
/// target feature; the including module supplies `rotl_bytes`, used for the
/// rotations by 8 and 56.
macro_rules! x2_variant {
    ($feature:literal) => {
        use core::arch::x86_64::*;

        use super::super::sponge;

        type V = __m128i;

        #[target_feature(enable = $feature)]
        #[inline]
        fn xor(a: V, b: V) -> V {
            _mm_xor_si128(a, b)
        }

        #[target_feature(enable = $feature)]
        #[inline]
        fn xor5(a: V, b: V, c: V, d: V, e: V) -> V {
            xor(xor(xor(a, b), xor(c, d)), e)
        }

        #[target_feature(enable = $feature)]
        #[inline]
        fn theta_d(prev: V, next: V) -> V {
            xor(prev, rotl::<1, 63>(next))
        }

        #[target_feature(enable = $feature)]
        #[inline]
        fn theta_apply(lane: V, d: V) -> V {
            xor(lane, d)
        }

        /// Rotating by one shifts left with an add, which more execution
        /// ports accept than shifts.
        #[target_feature(enable = $feature)]
        #[inline]
        fn rotl<const L: i32, const R: i32>(x: V) -> V {
            match L {
                0 => x,
                1 => _mm_or_si128(_mm_add_epi64(x, x), _mm_srli_epi64::<R>(x)),
                8 | 56 => rotl_bytes::<L, R>(x),
                _ => _mm_or_si128(_mm_slli_epi64::<L>(x), _mm_srli_epi64::<R>(x)),
            }
        }

        #[target_feature(enable = $feature)]
        #[inline]
        fn chi(a: V, b: V, c: V) -> V {
            xor(a, _mm_andnot_si128(b, c))
        }

        #[target_feature(enable = $feature)]
        #[inline]
        fn iota(lane: V, rc: u64) -> V {
            xor(lane, _mm_set1_epi64x(rc as i64))
        }

        #[target_feature(enable = $feature)]
        pub(crate) fn f1600(state: &mut [V; 25]) {
            crate::round::keccak_f1600!(state);
        }

        /// XORs the first `words` little-endian words of each lane's bytes
        /// into the state: one 128-bit load per lane takes two consecutive
        /// words, and unpacking the two loads gives each word across both
        /// lanes.
        ///
        /// # Safety
        /// Each pointer must be valid for reading `8 * words` bytes,
        /// `words <= 25`.
        #[target_feature(enable = $feature)]
        #[inline]
        pub(crate) unsafe fn xor_words(
            state: &mut [V; 25],
            lanes: [*const u8; 2],
            words: usize,
        ) {
            let mut w = 0;
            while w + 2 <= words {
                // SAFETY: bytes `8 * w..8 * w + 16` lie within the
                // `8 * words` the caller guarantees readable; the loads are
                // unaligned.
                let [l0, l1] = lanes.map(|lane| unsafe { _mm_loadu_si128(lane.add(8 * w).cast()) });
                state[w] = xor(state[w], _mm_unpacklo_epi64(l0, l1));
                state[w + 1] = xor(state[w + 1], _mm_unpackhi_epi64(l0, l1));
                w += 2;
            }
            if w < words {
                // SAFETY: bytes `8 * w..8 * w + 8` lie within the `8 * words`
                // the caller guarantees readable; the loads are unaligned.
                let [l0, l1] = lanes.map(|lane| unsafe { _mm_loadl_epi64(lane.add(8 * w).cast()) });
                state[w] = xor(state[w], _mm_unpacklo_epi64(l0, l1));
            }
        }

        /// Writes the first `words` words of each lane of the state as
        /// little-endian bytes, undoing the transposition of `xor_words`.
        ///
        /// # Safety
        /// Each pointer must be valid for writing `8 * words` bytes,
        /// `words <= 25`.
        #[target_feature(enable = $feature)]
        #[inline]
        pub(crate) unsafe fn write_words(
            state: &[V; 25],
            lanes: [*mut u8; 2],
            words: usize,
        ) {
            let mut w = 0;
            while w + 2 <= words {
                let l0 = _mm_unpacklo_epi64(state[w], state[w + 1]);
                let l1 = _mm_unpackhi_epi64(state[w], state[w + 1]);
                // SAFETY: bytes `8 * w..8 * w + 16` lie within the
                // `8 * words` the caller guarantees writable; the stores are
                // unaligned.
                unsafe {
                    _mm_storeu_si128(lanes[0].add(8 * w).cast(), l0);
                    _mm_storeu_si128(lanes[1].add(8 * w).cast(), l1);
                }
                w += 2;
            }
            if w < words {
                let l1 = _mm_unpackhi_epi64(state[w], state[w]);
                // SAFETY: bytes `8 * w..8 * w + 8` lie within the `8 * words`
                // the caller guarantees writable; the stores are unaligned.
                unsafe {
                    _mm_storel_epi64(lanes[0].add(8 * w).cast(), state[w]);
                    _mm_storel_epi64(lanes[1].add(8 * w).cast(), l1);
                }
            }
        }

        sponge::simd_entry_points!(
            fn shake, fn permute, fn permute_interleaved;
            feature: $feature, lanes: 2, zero: _mm_setzero_si128(),
        );
    };
}

pub(super) mod sse2 {
    x2_variant!("sse2");

    /// SSE2 has no byte shuffle.
    #[target_feature(enable = "sse2")]
    #[inline]
    fn rotl_bytes<const L: i32, const R: i32>(x: V) -> V {
        _mm_or_si128(_mm_slli_epi64::<L>(x), _mm_srli_epi64::<R>(x))
    }
}

pub(super) mod avx {
    x2_variant!("avx");

    #[target_feature(enable = "avx")]
    #[inline]
    fn rotl_bytes<const L: i32, const R: i32>(x: V) -> V {
        let rotl8 = _mm_setr_epi8(7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14);
        let rotl56 = _mm_setr_epi8(1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8);
        _mm_shuffle_epi8(x, if L == 8 { rotl8 } else { rotl56 })
    }
}

pub(super) fn shake(rate: usize, inputs: &[&[u8]; 2], outputs: &mut [&mut [u8]; 2]) {
    if is_x86_feature_detected!("avx") {
        // SAFETY: AVX was detected just above.
        unsafe { avx::shake(rate, inputs, outputs) }
    } else {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe { sse2::shake(rate, inputs, outputs) }
    }
}

pub(super) fn permute(states: &mut [[u64; 25]; 2]) {
    if is_x86_feature_detected!("avx") {
        // SAFETY: AVX was detected just above.
        unsafe { avx::permute(states) }
    } else {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe { sse2::permute(states) }
    }
}

pub(super) fn permute_interleaved(words: &mut [[u64; 2]; 25]) {
    if is_x86_feature_detected!("avx") {
        // SAFETY: AVX was detected just above.
        unsafe { avx::permute_interleaved(words) }
    } else {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe { sse2::permute_interleaved(words) }
    }
}
