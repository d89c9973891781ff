//! Two and four states at once, one per 64-bit element of 128- and 256-bit
//! registers, with the AVX-512 instructions that AVX-512VL brings to them.
//!
//! AVX-512VL gives the narrow registers what the x8 backend gets from
//! AVX-512F: `vprolq` rotates in one instruction where SSE2 and AVX2 take two
//! shifts and an OR, and `vpternlogq` computes theta's three-way XORs and chi
//! in one instruction each. Its EVEX encoding also reaches 32 registers
//! instead of 16, so the 25 lanes mostly stay in them.
//!
//! These are backends of their own rather than faster paths inside `x2-sse2`
//! and `x4-avx2`, so that a figure labelled with a backend's name always
//! comes from the instructions that name says. Loading and storing blocks
//! gains nothing from AVX-512, so each reuses the transposition of the
//! backend with its lane count, whose AVX instructions AVX-512F implies.

/// The round operations and entry points for one register width; the
/// including module supplies `xor_words` and `write_words`, which transpose
/// blocks in and out of the state as in the other backends.
macro_rules! vl_variant {
    (
        backend: $backend:expr,
        lanes: $lanes:literal,
        vector: $V:ty,
        ternarylogic: $ternarylogic:ident,
        rol: $rol:ident,
        xor: $xor:ident,
        set1: $set1:ident,
        setzero: $setzero:ident,
        theta: $theta:ident $(,)?
    ) => {
        use core::arch::x86_64::*;

        use super::super::sponge;

        type V = $V;

        /// `vpternlogq` truth table for `a ^ b ^ c`.
        const XOR3: i32 = 0x96;
        /// `vpternlogq` truth table for `a ^ (!b & c)`.
        const CHI: i32 = 0xD2;

        #[target_feature(enable = "avx512f,avx512vl")]
        #[inline]
        fn xor5(a: V, b: V, c: V, d: V, e: V) -> V {
            $ternarylogic::<XOR3>($ternarylogic::<XOR3>(a, b, c), d, e)
        }

        $crate::avx512vl::theta!($theta, V, $ternarylogic, $rol, $xor);

        #[target_feature(enable = "avx512f,avx512vl")]
        #[inline]
        fn rotl<const L: i32, const R: i32>(x: V) -> V {
            if L == 0 { x } else { $rol::<L>(x) }
        }

        #[target_feature(enable = "avx512f,avx512vl")]
        #[inline]
        fn chi(a: V, b: V, c: V) -> V {
            $ternarylogic::<CHI>(a, b, c)
        }

        #[target_feature(enable = "avx512f,avx512vl")]
        #[inline]
        fn iota(lane: V, rc: u64) -> V {
            $xor(lane, $set1(rc as i64))
        }

        #[target_feature(enable = "avx512f,avx512vl")]
        fn f1600(state: &mut [V; 25]) {
            crate::round::keccak_f1600!(state);
        }

        sponge::simd_entry_points!(
            checked $backend, super::is_supported;
            feature: "avx512f,avx512vl", lanes: $lanes, zero: $setzero(),
        );
    };
}

/// Whether the CPU has both: AVX-512F alone does not give the 128- and
/// 256-bit forms (Xeon Phi has AVX-512F without AVX-512VL).
pub(super) fn is_supported() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl")
}

/// Theta's column term D and how each lane takes it: `three_way` keeps D as its two
/// parts and applies it with one three-way XOR a lane (`vpternlogq`); `two_way` XORs
/// the parts once a column and applies D with a two-input XOR a lane (`vpxorq`).
///
/// Measured with `cryptobench run keccak-f1600-x --processes 10` (core cycles per
/// permutation, docs/results/keccak-x2-bound.md): on AMD Zen 4 `two_way` takes 16 %
/// fewer (x2: 836 against 994; x4: 890 against 1045), there `vpternlogq` and `vprolq`
/// compete for the same pipes while `vpxorq` issues on any; on Intel Sapphire Rapids
/// 5 % more (x2: 871 against 827; x4: 929 against 884). Both are kept, as backends of
/// their own names, so that each host's figures say which one ran.
macro_rules! theta {
    (three_way, $V:ty, $ternarylogic:ident, $rol:ident, $xor:ident) => {
        #[target_feature(enable = "avx512f,avx512vl")]
        #[inline]
        fn theta_d(prev: $V, next: $V) -> ($V, $V) {
            (prev, $rol::<1>(next))
        }

        #[target_feature(enable = "avx512f,avx512vl")]
        #[inline]
        fn theta_apply(lane: $V, (prev, next): ($V, $V)) -> $V {
            $ternarylogic::<XOR3>(lane, prev, next)
        }
    };
    (two_way, $V:ty, $ternarylogic:ident, $rol:ident, $xor:ident) => {
        #[target_feature(enable = "avx512f,avx512vl")]
        #[inline]
        fn theta_d(prev: $V, next: $V) -> $V {
            $xor(prev, $rol::<1>(next))
        }

        #[target_feature(enable = "avx512f,avx512vl")]
        #[inline]
        fn theta_apply(lane: $V, d: $V) -> $V {
            $xor(lane, d)
        }
    };
}
pub(crate) use theta;

/// The two-state backends' shared parameters, and the theta formulation of each.
macro_rules! x2_backend {
    ($backend:expr, $theta:ident) => {
        use super::super::x2::avx::{write_words, xor_words};

        vl_variant! {
            backend: $backend,
            lanes: 2,
            vector: __m128i,
            ternarylogic: _mm_ternarylogic_epi64,
            rol: _mm_rol_epi64,
            xor: _mm_xor_si128,
            set1: _mm_set1_epi64x,
            setzero: _mm_setzero_si128,
            theta: $theta,
        }
    };
}

/// The four-state backends' shared parameters, and the theta formulation of each.
macro_rules! x4_backend {
    ($backend:expr, $theta:ident) => {
        use super::super::x4::{write_words, xor_words};

        vl_variant! {
            backend: $backend,
            lanes: 4,
            vector: __m256i,
            ternarylogic: _mm256_ternarylogic_epi64,
            rol: _mm256_rol_epi64,
            xor: _mm256_xor_si256,
            set1: _mm256_set1_epi64x,
            setzero: _mm256_setzero_si256,
            theta: $theta,
        }
    };
}

/// `x2-avx512vl`: theta's three-way XORs.
pub(super) mod x2 {
    x2_backend!(crate::Backend::Avx512vlX2, three_way);
}

/// `x2-avx512vl-xor`: theta's D once a column, two-way XORs.
pub(super) mod x2_xor {
    x2_backend!(crate::Backend::Avx512vlX2Xor, two_way);
}

/// `x4-avx512vl`: theta's three-way XORs.
pub(super) mod x4 {
    x4_backend!(crate::Backend::Avx512vlX4, three_way);
}

/// `x4-avx512vl-xor`: theta's D once a column, two-way XORs.
pub(super) mod x4_xor {
    x4_backend!(crate::Backend::Avx512vlX4Xor, two_way);
}
