//! One state in general-purpose registers, as assembly of our own: the
//! register allocation of `x1_asm.s` and its instruction order come from
//! `asm/x1_schedule.py`, which searched the order against llvm-mca's Zen 4
//! model and then on a Zen 4 core (docs/keccak.md).
//!
//! LLVM and gcc do the same 130 integer operations a round and both spill
//! about ten lanes; what differs is the order and the spills. On a Zen 4
//! core LLVM's loop (the `x1-scalar` backend) takes 927 cycles per
//! permutation, gcc's build of XKCP's opt64 914-918, this one 877-881
//! (docs/results/keccak-xkcp-permutation.md). It was tuned on that core
//! only, so it is the default there alone (`choice.rs`).

use super::{round, scalar};

/// `state` in rdi, the round constants in rsi (passed in, so the text needs
/// no data section of its own on any object format).
///
/// # Safety
/// The CPU must have BMI1 (`andn`) and BMI2 (`rorx`).
#[unsafe(naked)]
unsafe extern "sysv64" fn f1600_asm(state: &mut [u64; 25], rc: &[u64; 24]) {
    core::arch::naked_asm!(include_str!("x1_asm.s"))
}

pub(super) fn is_supported() -> bool {
    scalar::has_bmi()
}

fn f1600(state: &mut [u64; 25]) {
    debug_assert!(is_supported());
    // SAFETY: every caller checked `is_supported` (BMI1 and BMI2).
    unsafe { f1600_asm(state, &round::RC) }
}

/// The caller checked [`is_supported`].
pub(super) fn shake(rate: usize, input: &[u8], output: &mut [u8]) {
    scalar::shake_with(rate, input, output, f1600);
}

/// The caller checked [`is_supported`].
pub(super) fn permute(states: &mut [[u64; 25]; 1]) {
    f1600(&mut states[0]);
}
