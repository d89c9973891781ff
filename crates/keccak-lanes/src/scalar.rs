//! One state at a time, in general-purpose registers.

use core::array;

use super::sponge;

#[inline(always)]
fn xor5(a: u64, b: u64, c: u64, d: u64, e: u64) -> u64 {
    a ^ b ^ c ^ d ^ e
}

#[inline(always)]
fn theta_d(prev: u64, next: u64) -> u64 {
    prev ^ next.rotate_left(1)
}

#[inline(always)]
fn theta_apply(lane: u64, d: u64) -> u64 {
    lane ^ d
}

#[inline(always)]
fn rotl<const L: u32, const R: u32>(lane: u64) -> u64 {
    lane.rotate_left(L)
}

#[inline(always)]
fn chi(a: u64, b: u64, c: u64) -> u64 {
    a ^ (!b & c)
}

#[inline(always)]
fn iota(lane: u64, rc: u64) -> u64 {
    lane ^ rc
}

/// The permutation stays out of line: inlined into the sponge loop, the
/// allocation of its 25 lanes to 15 registers came out about 15 % slower.
#[inline(never)]
pub(super) fn f1600_portable(state: &mut [u64; 25]) {
    super::round::keccak_f1600!(state, unrolled);
}

/// Chi's `!b & c` is one `andn` with BMI1 instead of a copy, a `not` and an
/// `and`, and BMI2's `rorx` rotates into a fresh register. Six rounds a loop
/// rather than all 24 unrolled: 2 % fewer cycles per permutation on Zen 4, and
/// far fewer for short messages (see `keccak_f1600`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
#[inline(never)]
fn f1600_bmi(state: &mut [u64; 25]) {
    super::round::keccak_f1600!(state, rounds_per_loop: 0 1 2 3 4 5);
}

#[inline(always)]
pub(super) fn shake_with(
    rate: usize,
    input: &[u8],
    output: &mut [u8],
    mut f1600: impl FnMut(&mut [u64; 25]),
) {
    sponge::shake(
        &mut [0u64; 25],
        rate,
        array::from_ref(&input),
        array::from_mut(&mut &mut *output),
        |state, [block]| {
            for (lane, word) in state.iter_mut().zip(block.as_chunks::<8>().0) {
                *lane ^= u64::from_le_bytes(*word);
            }
        },
        |state| f1600(state),
        |state, [block]| {
            for (word, lane) in block.as_chunks_mut::<8>().0.iter_mut().zip(state) {
                *word = lane.to_le_bytes();
            }
        },
    );
}

pub(super) fn shake_portable(rate: usize, input: &[u8], output: &mut [u8]) {
    shake_with(rate, input, output, f1600_portable);
}

#[cfg(target_arch = "x86_64")]
pub(super) fn has_bmi() -> bool {
    is_x86_feature_detected!("bmi1") && is_x86_feature_detected!("bmi2")
}

pub(super) fn shake(rate: usize, input: &[u8], output: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if has_bmi() {
        // SAFETY: BMI1 and BMI2 were detected just above.
        return shake_with(rate, input, output, |state| unsafe { f1600_bmi(state) });
    }
    shake_portable(rate, input, output);
}

pub(super) fn permute(states: &mut [[u64; 25]; 1]) {
    #[cfg(target_arch = "x86_64")]
    if has_bmi() {
        // SAFETY: BMI1 and BMI2 were detected just above.
        return unsafe { f1600_bmi(&mut states[0]) };
    }
    f1600_portable(&mut states[0]);
}
