//! Two and four states at once, one per 64-bit element of 128- and 256-bit
//! registers, with the AVX-512 instructions that AVX-512VL brings to them
//! (the round is `avx512.rs`'s, shared with the x8 backends).
//!
//! These are backends of their own rather than faster paths inside `x2-sse2`
//! and `x4-avx2`, so that a figure labelled with a backend's name always
//! comes from the instructions that name says. Loading and storing blocks
//! gains nothing from AVX-512, so each reuses the transposition of the
//! backend with its lane count, whose AVX instructions AVX-512F implies.

/// Whether the CPU has both: AVX-512F alone does not give the 128- and
/// 256-bit forms (Xeon Phi has AVX-512F without AVX-512VL).
pub(super) fn is_supported() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl")
}

/// The two-state backends' shared parameters, and the theta formulation of each.
macro_rules! x2_backend {
    ($backend:expr, $theta:ident) => {
        use super::super::x2::avx::{write_words, xor_words};

        crate::avx512::avx512_variant! {
            backend: $backend,
            lanes: 2,
            vector: __m128i,
            ternarylogic: _mm_ternarylogic_epi64,
            rol: _mm_rol_epi64,
            xor: _mm_xor_si128,
            set1: _mm_set1_epi64x,
            setzero: _mm_setzero_si128,
            theta: $theta,
            feature: "avx512f,avx512vl",
        }
    };
}

/// The four-state backends' shared parameters, and the theta formulation of each.
macro_rules! x4_backend {
    ($backend:expr, $theta:ident) => {
        use super::super::x4::{write_words, xor_words};

        crate::avx512::avx512_variant! {
            backend: $backend,
            lanes: 4,
            vector: __m256i,
            ternarylogic: _mm256_ternarylogic_epi64,
            rol: _mm256_rol_epi64,
            xor: _mm256_xor_si256,
            set1: _mm256_set1_epi64x,
            setzero: _mm256_setzero_si256,
            theta: $theta,
            feature: "avx512f,avx512vl",
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
