//! `libcrux-sha3` (Cryspen; formally verified with hax): its AVX2 four-lane SHAKE256 and
//! its portable single-lane SHAKE. Pinned to 0.0.11 and patched (vendor/README.md).
//!
//! The crate has no run-time detection and no `#[target_feature]` of its own: its AVX2
//! code is `#[inline(always)]` down to the intrinsics, and runs at AVX2 speed only inside
//! a function compiled with AVX2. So the four-lane call goes through a
//! `#[target_feature(enable = "avx2")]` entry point, taken only where the CPU has AVX2;
//! a plain call would run the same algorithm 60 times slower, every intrinsic out of
//! line. Its four-lane SHAKE128 exists only as an incremental API for inputs shorter
//! than the rate (no long messages), so it is not in the catalog.

use cryptobench_core::catalog::kinds::xof::{SHAKE128, SHAKE256, XofAlgorithm, XofFunction};
use cryptobench_core::catalog::kinds::xof_lanes::{LaneXof, Lanes};
use cryptobench_core::catalog::registry::Registry;

pub fn register(r: &mut Registry) {
    r.add(cryptobench_core::catalog::kinds::xof::Xof::<PortableShake128>::new("libcrux"));
    r.add(cryptobench_core::catalog::kinds::xof::Xof::<PortableShake256>::new("libcrux"));
    r.add(Lanes(Shake256X4Avx2));
}

/// The crates every implementation registered here comes from, whatever its algorithm.
pub fn crates(_algorithm: &str) -> &'static [&'static str] {
    &["libcrux-sha3"]
}

pub struct PortableShake128;

impl XofFunction for PortableShake128 {
    const ALGORITHM: &'static XofAlgorithm = &SHAKE128;
    fn new() -> Self {
        PortableShake128
    }
    fn xof(&mut self, msg: &[u8], out: &mut [u8]) {
        libcrux_sha3::shake128_ema(out, msg);
    }
}

pub struct PortableShake256;

impl XofFunction for PortableShake256 {
    const ALGORITHM: &'static XofAlgorithm = &SHAKE256;
    fn new() -> Self {
        PortableShake256
    }
    fn xof(&mut self, msg: &[u8], out: &mut [u8]) {
        libcrux_sha3::shake256_ema(out, msg);
    }
}

#[derive(Clone)]
pub struct Shake256X4Avx2;

impl LaneXof for Shake256X4Avx2 {
    fn provider(&self) -> &str {
        "libcrux"
    }
    fn algorithm(&self) -> &str {
        "shake256-x4-avx2"
    }
    fn xof(&self) -> &'static XofAlgorithm {
        &SHAKE256
    }
    fn lanes(&self) -> usize {
        4
    }
    fn unsupported(&self) -> Option<String> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return None;
        }
        Some("libcrux's four-lane SHAKE256 needs AVX2, which this CPU lacks".into())
    }
    fn shake(&self, ins: &[&[u8]], outs: &mut [&mut [u8]]) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the adapter calls only where `unsupported` found AVX2.
        unsafe {
            shake256_x4_avx2(ins, outs)
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!(
            "unsupported on this architecture: {} {}",
            ins.len(),
            outs.len()
        );
    }
}

/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn shake256_x4_avx2(ins: &[&[u8]], outs: &mut [&mut [u8]]) {
    let [o0, o1, o2, o3] = outs else {
        unreachable!("four lanes")
    };
    libcrux_sha3::avx2::x4::shake256(ins[0], ins[1], ins[2], ins[3], o0, o1, o2, o3);
}
