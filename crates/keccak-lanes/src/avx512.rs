//! The AVX-512 round for any register width: 128 and 256 bits with
//! AVX-512VL (`avx512vl.rs`), 512 bits with AVX-512F alone (`x8.rs`).
//!
//! AVX-512F has a native 64-bit rotate (`vprolq`) where SSE2 and AVX2 take two
//! shifts and an OR, and `vpternlogq`, which computes any function of three
//! inputs: theta's column parities take half the instructions and chi one
//! per lane. Its EVEX encoding reaches 32 registers instead of 16, so the 25
//! lanes mostly stay in them.

/// The round operations and entry points for one register width, with the
/// target features `$feature`; the including module supplies `xor_words` and
/// `write_words`, which transpose blocks in and out of the state, and its
/// parent `is_supported`.
macro_rules! avx512_variant {
    (
        backend: $backend:expr,
        lanes: $lanes:literal,
        vector: $V:ty,
        ternarylogic: $ternarylogic:ident,
        rol: $rol:ident,
        xor: $xor:ident,
        set1: $set1:ident,
        setzero: $setzero:ident,
        theta: $theta:ident,
        feature: $feature:literal $(,)?
    ) => {
        use core::arch::x86_64::*;

        use super::super::sponge;

        type V = $V;

        /// `vpternlogq` truth table for `a ^ b ^ c`.
        const XOR3: i32 = 0x96;
        /// `vpternlogq` truth table for `a ^ (!b & c)`.
        const CHI: i32 = 0xD2;

        #[target_feature(enable = $feature)]
        #[inline]
        fn xor5(a: V, b: V, c: V, d: V, e: V) -> V {
            $ternarylogic::<XOR3>($ternarylogic::<XOR3>(a, b, c), d, e)
        }

        $crate::avx512::theta!($theta, $feature, V, $ternarylogic, $rol, $xor);

        #[target_feature(enable = $feature)]
        #[inline]
        fn rotl<const L: i32, const R: i32>(x: V) -> V {
            if L == 0 { x } else { $rol::<L>(x) }
        }

        #[target_feature(enable = $feature)]
        #[inline]
        fn chi(a: V, b: V, c: V) -> V {
            $ternarylogic::<CHI>(a, b, c)
        }

        #[target_feature(enable = $feature)]
        #[inline]
        fn iota(lane: V, rc: u64) -> V {
            $xor(lane, $set1(rc as i64))
        }

        #[target_feature(enable = $feature)]
        fn f1600(state: &mut [V; 25]) {
            crate::round::keccak_f1600!(state);
        }

        sponge::simd_entry_points!(
            checked $backend, super::is_supported;
            feature: $feature, lanes: $lanes, zero: $setzero(),
        );
    };
}

pub(crate) use avx512_variant;

/// Theta's column term D and how each lane takes it: `three_way` keeps D as its two
/// parts and applies it with one three-way XOR a lane (`vpternlogq`); `two_way` XORs
/// the parts once a column and applies D with a two-input XOR a lane (`vpxorq`).
///
/// Measured with `cryptobench run keccak-f1600-x --processes 10` (core cycles per
/// permutation, docs/results/keccak-x2-bound.md): on AMD Zen 4 `two_way` takes 16 %
/// fewer (x2: 836 against 994; x4: 890 against 1045), there `vpternlogq` and `vprolq`
/// compete for the same pipes while `vpxorq` issues on any; on Intel Sapphire Rapids
/// 5 % more (x2: 871 against 827; x4: 929 against 884). At 512 bits on Zen 4, `two_way`
/// takes 11 % fewer (x8: 1782-1798 against 1994-2007, the whole call, in session 16's runs;
/// docs/results/keccak-xkcp-permutation.md); three-way D also keeps ten values live beside
/// the 25 lanes, more than 32 registers hold. Both are kept, as backends of their own
/// names, so that each host's figures say which one ran.
macro_rules! theta {
    (three_way, $feature:literal, $V:ty, $ternarylogic:ident, $rol:ident, $xor:ident) => {
        #[target_feature(enable = $feature)]
        #[inline]
        fn theta_d(prev: $V, next: $V) -> ($V, $V) {
            (prev, $rol::<1>(next))
        }

        #[target_feature(enable = $feature)]
        #[inline]
        fn theta_apply(lane: $V, (prev, next): ($V, $V)) -> $V {
            $ternarylogic::<XOR3>(lane, prev, next)
        }
    };
    (two_way, $feature:literal, $V:ty, $ternarylogic:ident, $rol:ident, $xor:ident) => {
        #[target_feature(enable = $feature)]
        #[inline]
        fn theta_d(prev: $V, next: $V) -> $V {
            $xor(prev, $rol::<1>(next))
        }

        #[target_feature(enable = $feature)]
        #[inline]
        fn theta_apply(lane: $V, d: $V) -> $V {
            $xor(lane, d)
        }
    };
}
pub(crate) use theta;
