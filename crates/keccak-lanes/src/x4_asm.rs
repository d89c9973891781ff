//! Four states in AVX2 registers, as assembly of our own: the register
//! allocation of `x4_asm.s` and its instruction order come from
//! `asm/x4_schedule.py`, as `x1-asm`'s come from `asm/x1_schedule.py`.
//!
//! LLVM's loop for `x4-avx2` spends 72 of its 238 instructions a round
//! loading and storing spilled lanes, and llvm-mca's Zen 4 model gives it 56
//! cycles a round where the four vector pipes need 47; this loop keeps the
//! lanes in the state itself between iterations and orders and spills the
//! round its own way (docs/keccak.md). The block transposition in and out
//! is `x4-avx2`'s.

use core::arch::x86_64::*;

use super::x4::{write_words, xor_words};
use super::{Backend, round, sponge, x4};

type V = __m256i;

/// What the assembly reads through its second argument: the byte shuffles
/// that rotate each 64-bit element left by 8 and by 56 bits, then each round
/// constant broadcast to the four states.
#[repr(C, align(32))]
struct Constants {
    rotations: [[u8; 32]; 2],
    rc: [[u64; 4]; 24],
}

static CONSTANTS: Constants = Constants {
    rotations: x4::BYTE_ROTATIONS,
    rc: {
        let mut rc = [[0; 4]; 24];
        let mut r = 0;
        while r < 24 {
            rc[r] = [round::RC[r]; 4];
            r += 1;
        }
        rc
    },
};

/// The state in rdi (its alignment is `V`'s, 32 bytes), the constants in rsi.
///
/// # Safety
/// The CPU must have AVX2.
#[unsafe(naked)]
unsafe extern "sysv64" fn f1600_asm(state: &mut [V; 25], constants: &Constants) {
    core::arch::naked_asm!(include_str!("x4_asm.s"))
}

#[target_feature(enable = "avx2")]
fn f1600(state: &mut [V; 25]) {
    // SAFETY: this function's feature is the one the assembly needs.
    unsafe { f1600_asm(state, &CONSTANTS) }
}

sponge::simd_entry_points!(
    checked Backend::Avx2x4Asm, x4::is_supported;
    feature: "avx2", lanes: 4, zero: _mm256_setzero_si256(),
);
