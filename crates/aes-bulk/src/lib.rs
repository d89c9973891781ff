//! Our AES for bulk work: AES-NI key schedules and three code paths, chosen at run time
//! from what the CPU says it has (never from the machine that built the binary):
//!
//! | path | registers | blocks in flight |
//! |---|---|---|
//! | `aesni` | 128-bit, AES-NI | 8 |
//! | `vaes-avx2` | 256-bit, VAES + AVX2 (Intel Ice Lake on, AMD Zen 3 on) | 16 |
//! | `vaes-avx512` | 512-bit, VAES + AVX-512 (Intel Ice Lake on, AMD Zen 4 on) | 16 |
//!
//! The modes (`ctr`, `ecb`) are written once, generic over a register width (`Lanes`);
//! each path is a `#[target_feature]` entry point instantiating them, inside which the
//! intrinsics inline into straight-line code. A measured subject of cryptobench's `bulk`
//! (checked there against OpenSSL and RustCrypto before every timing); x86-64 only.

#![deny(missing_docs)]
#![cfg(target_arch = "x86_64")]

mod ctr;
mod ecb;

use std::arch::x86_64::*;

/// One of the code paths in the table above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// 128-bit registers with AES-NI, 8 blocks in flight.
    AesNi,
    /// 256-bit registers with VAES and AVX2, 16 blocks in flight.
    VaesAvx2,
    /// 512-bit registers with VAES and AVX-512, 16 blocks in flight.
    VaesAvx512,
}

impl Path {
    /// Every path, narrowest first.
    pub const ALL: [Path; 3] = [Path::AesNi, Path::VaesAvx2, Path::VaesAvx512];

    /// The path's name in implementation names and reports (`aesni`, `vaes-avx2`, …).
    pub fn name(self) -> &'static str {
        match self {
            Path::AesNi => "aesni",
            Path::VaesAvx2 => "vaes-avx2",
            Path::VaesAvx512 => "vaes-avx512",
        }
    }

    /// Whether this CPU has every instruction the path needs (asked at run time).
    pub fn supported(self) -> bool {
        let aes_ni = is_x86_feature_detected!("aes") && is_x86_feature_detected!("ssse3");
        let vaes = aes_ni && is_x86_feature_detected!("vaes");
        match self {
            Path::AesNi => aes_ni,
            Path::VaesAvx2 => vaes && is_x86_feature_detected!("avx2"),
            Path::VaesAvx512 => {
                vaes && is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")
            }
        }
    }

    /// The widest path this CPU has. At sizes that fit in cache it is the fastest
    /// (`bulk --paths --sizes 1MiB` shows by how much); beyond cache all are bound by memory.
    pub fn best() -> Option<Path> {
        Path::ALL.into_iter().rev().find(|p| p.supported())
    }

    /// Every path this CPU has, narrowest first; for tests, which need at least AES-NI.
    #[doc(hidden)]
    pub fn every_supported() -> Vec<Path> {
        let ps: Vec<Path> = Path::ALL.into_iter().filter(|p| p.supported()).collect();
        assert!(!ps.is_empty(), "these tests need AES-NI");
        ps
    }
}

/// An expanded AES-128 or AES-256 key and the code path that uses it.
pub struct Aes {
    pub(crate) enc: [__m128i; 15],
    /// The equivalent inverse cipher's keys (FIPS 197 section 5.3.5), for `aesdec`.
    pub(crate) dec: [__m128i; 15],
    pub(crate) rounds: usize,
    pub(crate) path: Path,
}

impl Aes {
    /// AES-128 or AES-256 by the key's length (16 or 32 bytes) on `path`; `None` for another
    /// length or a path this CPU lacks.
    pub fn new(key: &[u8], path: Path) -> Option<Aes> {
        if !path.supported() {
            return None;
        }
        // SAFETY: every path includes AES-NI and SSSE3, checked just above; the key
        // lengths are the ones each expansion reads.
        let enc = unsafe {
            match key.len() {
                16 => expand128(key),
                32 => expand256(key),
                _ => return None,
            }
        };
        let rounds = key.len() / 4 + 6;
        // SAFETY: as above.
        let dec = unsafe { decryption_keys(&enc, rounds) };
        Some(Aes {
            enc,
            dec,
            rounds,
            path,
        })
    }
}

#[inline]
#[target_feature(enable = "aes")]
fn mix(k: __m128i, t: __m128i) -> __m128i {
    let k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    let k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    let k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    _mm_xor_si128(k, t)
}

/// FIPS 197 section 5.2 for Nk = 4, with `aeskeygenassist` doing SubWord(RotWord) ^ Rcon.
#[target_feature(enable = "aes")]
unsafe fn expand128(key: &[u8]) -> [__m128i; 15] {
    let mut rk = [_mm_setzero_si128(); 15];
    // SAFETY: the caller passes 16 bytes.
    rk[0] = unsafe { _mm_loadu_si128(key.as_ptr().cast()) };
    macro_rules! next {
        ($i:literal, $rcon:literal) => {
            rk[$i] = mix(
                rk[$i - 1],
                _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(rk[$i - 1])),
            );
        };
    }
    next!(1, 0x01);
    next!(2, 0x02);
    next!(3, 0x04);
    next!(4, 0x08);
    next!(5, 0x10);
    next!(6, 0x20);
    next!(7, 0x40);
    next!(8, 0x80);
    next!(9, 0x1b);
    next!(10, 0x36);
    rk
}

/// FIPS 197 section 5.2 for Nk = 8: even round keys take SubWord(RotWord) ^ Rcon of the
/// previous one, odd ones SubWord alone (`aeskeygenassist` word 2, no rotation).
#[target_feature(enable = "aes")]
unsafe fn expand256(key: &[u8]) -> [__m128i; 15] {
    let mut rk = [_mm_setzero_si128(); 15];
    // SAFETY: the caller passes 32 bytes.
    unsafe {
        rk[0] = _mm_loadu_si128(key.as_ptr().cast());
        rk[1] = _mm_loadu_si128(key.as_ptr().add(16).cast());
    }
    macro_rules! even {
        ($i:literal, $rcon:literal) => {
            rk[$i] = mix(
                rk[$i - 2],
                _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(rk[$i - 1])),
            );
        };
    }
    macro_rules! odd {
        ($i:literal) => {
            rk[$i] = mix(
                rk[$i - 2],
                _mm_shuffle_epi32::<0xaa>(_mm_aeskeygenassist_si128::<0>(rk[$i - 1])),
            );
        };
    }
    even!(2, 0x01);
    odd!(3);
    even!(4, 0x02);
    odd!(5);
    even!(6, 0x04);
    odd!(7);
    even!(8, 0x08);
    odd!(9);
    even!(10, 0x10);
    odd!(11);
    even!(12, 0x20);
    odd!(13);
    even!(14, 0x40);
    rk
}

#[target_feature(enable = "aes")]
unsafe fn decryption_keys(enc: &[__m128i; 15], rounds: usize) -> [__m128i; 15] {
    let mut dec = [_mm_setzero_si128(); 15];
    dec[0] = enc[rounds];
    for i in 1..rounds {
        dec[i] = _mm_aesimc_si128(enc[rounds - i]);
    }
    dec[rounds] = enc[0];
    dec
}

/// How far ahead of the block being encrypted its data is prefetched. Bulk buffers stream
/// from memory, and the hardware prefetchers alone leave the loads late: the rounds of a
/// group wait for its data (ECB) or the stores wait for the loads (CTR).
pub(crate) const PREFETCH_AHEAD: usize = 2048;

/// Ask for the cache lines of the group at `p` that lie [`PREFETCH_AHEAD`] bytes further.
#[inline(always)]
pub(crate) fn prefetch_ahead(p: *const u8, group: usize) {
    for line in (0..group).step_by(64) {
        // SAFETY: SSE is part of x86-64 itself. The address may lie past the buffer: a
        // prefetch of any address is harmless, and `wrapping_add` computes it without
        // claiming it is in bounds.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(PREFETCH_AHEAD + line).cast()) };
    }
}

/// One register width: how many AES blocks a register holds, and what the modes do to it.
///
/// Every method needs its implementation's CPU features (checked by [`Path::supported`])
/// and must only be called from a `#[target_feature]` function enabling them, where it
/// inlines; elsewhere it would be a call per instruction.
pub(crate) trait Lanes {
    type V: Copy;
    /// AES blocks per register.
    const BLOCKS: usize;
    unsafe fn splat(k: __m128i) -> Self::V;
    unsafe fn load(p: *const u8) -> Self::V;
    unsafe fn store(p: *mut u8, v: Self::V);
    unsafe fn xor(a: Self::V, b: Self::V) -> Self::V;
    unsafe fn enc(a: Self::V, k: Self::V) -> Self::V;
    unsafe fn enc_last(a: Self::V, k: Self::V) -> Self::V;
    unsafe fn dec(a: Self::V, k: Self::V) -> Self::V;
    unsafe fn dec_last(a: Self::V, k: Self::V) -> Self::V;
    /// Counters as two little-endian 64-bit halves per block: block i holds (`hi`, `lo + i`).
    unsafe fn counters(lo: u64, hi: u64) -> Self::V;
    /// `n` in the low half of every block, for [`Lanes::add`].
    unsafe fn step(n: u64) -> Self::V;
    /// 64-bit lane-wise addition: adds to the low halves without carrying into the high.
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V;
    /// Each block's 16 bytes reversed: little-endian counter halves to the big-endian block.
    unsafe fn byte_swap(a: Self::V) -> Self::V;
}

/// `pshufb` indices reversing the 16 bytes of a block.
#[inline]
#[target_feature(enable = "ssse3")]
fn reverse_bytes() -> __m128i {
    _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
}

pub(crate) struct Xmm;

impl Lanes for Xmm {
    type V = __m128i;
    const BLOCKS: usize = 1;
    #[inline]
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn splat(k: __m128i) -> __m128i {
        k
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn load(p: *const u8) -> __m128i {
        // SAFETY: the caller passes 16 readable bytes.
        unsafe { _mm_loadu_si128(p.cast()) }
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn store(p: *mut u8, v: __m128i) {
        // SAFETY: the caller passes 16 writable bytes.
        unsafe { _mm_storeu_si128(p.cast(), v) }
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn xor(a: __m128i, b: __m128i) -> __m128i {
        _mm_xor_si128(a, b)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn enc(a: __m128i, k: __m128i) -> __m128i {
        _mm_aesenc_si128(a, k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn enc_last(a: __m128i, k: __m128i) -> __m128i {
        _mm_aesenclast_si128(a, k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn dec(a: __m128i, k: __m128i) -> __m128i {
        _mm_aesdec_si128(a, k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn dec_last(a: __m128i, k: __m128i) -> __m128i {
        _mm_aesdeclast_si128(a, k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn counters(lo: u64, hi: u64) -> __m128i {
        _mm_set_epi64x(hi as i64, lo as i64)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn step(n: u64) -> __m128i {
        _mm_set_epi64x(0, n as i64)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn add(a: __m128i, b: __m128i) -> __m128i {
        _mm_add_epi64(a, b)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn byte_swap(a: __m128i) -> __m128i {
        _mm_shuffle_epi8(a, reverse_bytes())
    }
}

pub(crate) struct Ymm;

impl Lanes for Ymm {
    type V = __m256i;
    const BLOCKS: usize = 2;
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx2,vaes")]
    unsafe fn splat(k: __m128i) -> __m256i {
        _mm256_broadcastsi128_si256(k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx2,vaes")]
    unsafe fn load(p: *const u8) -> __m256i {
        // SAFETY: the caller passes 32 readable bytes.
        unsafe { _mm256_loadu_si256(p.cast()) }
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx2,vaes")]
    unsafe fn store(p: *mut u8, v: __m256i) {
        // SAFETY: the caller passes 32 writable bytes.
        unsafe { _mm256_storeu_si256(p.cast(), v) }
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx2,vaes")]
    unsafe fn xor(a: __m256i, b: __m256i) -> __m256i {
        _mm256_xor_si256(a, b)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx2,vaes")]
    unsafe fn enc(a: __m256i, k: __m256i) -> __m256i {
        _mm256_aesenc_epi128(a, k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx2,vaes")]
    unsafe fn enc_last(a: __m256i, k: __m256i) -> __m256i {
        _mm256_aesenclast_epi128(a, k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx2,vaes")]
    unsafe fn dec(a: __m256i, k: __m256i) -> __m256i {
        _mm256_aesdec_epi128(a, k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx2,vaes")]
    unsafe fn dec_last(a: __m256i, k: __m256i) -> __m256i {
        _mm256_aesdeclast_epi128(a, k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx2,vaes")]
    unsafe fn counters(lo: u64, hi: u64) -> __m256i {
        _mm256_set_epi64x(hi as i64, lo.wrapping_add(1) as i64, hi as i64, lo as i64)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx2,vaes")]
    unsafe fn step(n: u64) -> __m256i {
        _mm256_set_epi64x(0, n as i64, 0, n as i64)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx2,vaes")]
    unsafe fn add(a: __m256i, b: __m256i) -> __m256i {
        _mm256_add_epi64(a, b)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx2,vaes")]
    unsafe fn byte_swap(a: __m256i) -> __m256i {
        _mm256_shuffle_epi8(a, _mm256_broadcastsi128_si256(reverse_bytes()))
    }
}

pub(crate) struct Zmm;

impl Lanes for Zmm {
    type V = __m512i;
    const BLOCKS: usize = 4;
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
    unsafe fn splat(k: __m128i) -> __m512i {
        _mm512_broadcast_i32x4(k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
    unsafe fn load(p: *const u8) -> __m512i {
        // SAFETY: the caller passes 64 readable bytes.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
    unsafe fn store(p: *mut u8, v: __m512i) {
        // SAFETY: the caller passes 64 writable bytes.
        unsafe { _mm512_storeu_si512(p.cast(), v) }
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
    unsafe fn xor(a: __m512i, b: __m512i) -> __m512i {
        _mm512_xor_si512(a, b)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
    unsafe fn enc(a: __m512i, k: __m512i) -> __m512i {
        _mm512_aesenc_epi128(a, k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
    unsafe fn enc_last(a: __m512i, k: __m512i) -> __m512i {
        _mm512_aesenclast_epi128(a, k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
    unsafe fn dec(a: __m512i, k: __m512i) -> __m512i {
        _mm512_aesdec_epi128(a, k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
    unsafe fn dec_last(a: __m512i, k: __m512i) -> __m512i {
        _mm512_aesdeclast_epi128(a, k)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
    unsafe fn counters(lo: u64, hi: u64) -> __m512i {
        let (hi, lane) = (hi as i64, |i: u64| lo.wrapping_add(i) as i64);
        _mm512_set_epi64(hi, lane(3), hi, lane(2), hi, lane(1), hi, lane(0))
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
    unsafe fn step(n: u64) -> __m512i {
        let n = n as i64;
        _mm512_set_epi64(0, n, 0, n, 0, n, 0, n)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
    unsafe fn add(a: __m512i, b: __m512i) -> __m512i {
        _mm512_add_epi64(a, b)
    }
    #[inline]
    #[target_feature(enable = "aes,ssse3,avx512f,avx512bw,vaes")]
    unsafe fn byte_swap(a: __m512i) -> __m512i {
        _mm512_shuffle_epi8(a, _mm512_broadcast_i32x4(reverse_bytes()))
    }
}
