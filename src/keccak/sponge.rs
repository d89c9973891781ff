//! The SHAKE sponge, written once for every lane count.

/// The largest rate: the capacity must keep at least one lane.
pub(super) const MAX_RATE: usize = 192;

/// SHAKE's domain-separation suffix `1111` followed by the first bit of
/// pad10*1 (FIPS 202, appendix B.2); the last bit of the padding is `0x80` in
/// the last byte of the block.
const SHAKE_PAD: u8 = 0x1F;

/// SHAKE over `N` lanes whose inputs have equal lengths and whose outputs
/// have equal lengths, with `rate` a multiple of 8 in `8..=MAX_RATE`.
///
/// The backend supplies the three operations on its own state type `S`, which
/// must start zeroed: `absorb` XORs one block per lane (`rate` bytes each)
/// into the state, `squeeze` fills one block per lane from it. This function
/// is inlined into the backend's `#[target_feature]` function, so the
/// closures compile with its instructions and nothing here branches on the
/// backend.
#[inline(always)]
pub(super) fn shake<const N: usize, S>(
    state: &mut S,
    rate: usize,
    inputs: &[&[u8]; N],
    outputs: &mut [&mut [u8]; N],
    mut absorb: impl FnMut(&mut S, [&[u8]; N]),
    mut permute: impl FnMut(&mut S),
    mut squeeze: impl FnMut(&S, [&mut [u8]; N]),
) {
    debug_assert!(rate.is_multiple_of(8) && (8..=MAX_RATE).contains(&rate));
    let in_len = inputs[0].len();
    let full = in_len - in_len % rate;
    let mut off = 0;
    while off < full {
        absorb(state, blocks(inputs, off, rate));
        permute(state);
        off += rate;
    }

    let mut last = [[0u8; MAX_RATE]; N];
    for (block, input) in last.iter_mut().zip(inputs) {
        let tail = &input[full..];
        block[..tail.len()].copy_from_slice(tail);
        block[tail.len()] ^= SHAKE_PAD;
        block[rate - 1] ^= 0x80;
    }
    absorb(state, last.each_ref().map(|block| &block[..rate]));

    let out_len = outputs[0].len();
    let mut off = 0;
    while out_len - off >= rate {
        permute(state);
        squeeze(state, blocks_mut(outputs, off, rate));
        off += rate;
    }
    if off < out_len {
        permute(state);
        let mut buf = [[0u8; MAX_RATE]; N];
        squeeze(state, buf.each_mut().map(|block| &mut block[..rate]));
        for (out, block) in outputs.iter_mut().zip(&buf) {
            out[off..].copy_from_slice(&block[..out_len - off]);
        }
    }
}

/// `inputs[i][off..off + len]` for every lane. A plain loop rather than
/// `array::map`, which LLVM kept out of line: a call per block in the hot loop.
#[inline(always)]
fn blocks<'a, const N: usize>(inputs: &[&'a [u8]; N], off: usize, len: usize) -> [&'a [u8]; N] {
    let mut out: [&[u8]; N] = [&[]; N];
    for (block, input) in out.iter_mut().zip(inputs) {
        *block = &input[off..off + len];
    }
    out
}

/// [`blocks`] for the outputs.
#[inline(always)]
fn blocks_mut<'a, const N: usize>(
    outputs: &'a mut [&mut [u8]; N],
    off: usize,
    len: usize,
) -> [&'a mut [u8]; N] {
    let mut out: [&mut [u8]; N] = core::array::from_fn(|_| <&mut [u8]>::default());
    for (block, output) in out.iter_mut().zip(outputs.iter_mut()) {
        *block = &mut output[off..off + len];
    }
    out
}

/// The start of each lane's block, after checking that each holds `bytes`: what
/// a backend's word loader takes. A loop rather than `array::map`, for the
/// reason given at [`blocks`].
#[inline(always)]
pub(super) fn lane_ptrs<const N: usize>(blocks: &[&[u8]; N], bytes: usize) -> [*const u8; N] {
    let mut out = [core::ptr::null(); N];
    for (ptr, block) in out.iter_mut().zip(blocks) {
        assert!(block.len() >= bytes, "a block shorter than the rate");
        *ptr = block.as_ptr();
    }
    out
}

/// [`lane_ptrs`] for the output blocks.
#[inline(always)]
pub(super) fn lane_ptrs_mut<const N: usize>(
    blocks: &mut [&mut [u8]; N],
    bytes: usize,
) -> [*mut u8; N] {
    let mut out = [core::ptr::null_mut(); N];
    for (ptr, block) in out.iter_mut().zip(blocks) {
        assert!(block.len() >= bytes, "a block shorter than the rate");
        *ptr = block.as_mut_ptr();
    }
    out
}

/// The entry points of a SIMD backend that keeps one vector per state word,
/// written once: the backend module supplies its vector's `xor_words`,
/// `write_words` and `f1600` (block transposition in, out, and the
/// permutation), and this wires them to [`shake`].
///
/// - `fn SHAKE, fn PERMUTE; feature: ..., lanes: ..., zero: ...` defines the
///   two as `#[target_feature]` functions: callers must know the CPU has the
///   feature (x2 picks between its SSE2 and AVX builds itself).
/// - `checked BACKEND, SUPPORTED; feature: ...` also defines `shake` and
///   `permute` that refuse with [`Error::Unsupported`](super::Error) unless
///   `SUPPORTED()` holds.
macro_rules! simd_entry_points {
    (
        fn $shake:ident, fn $permute:ident;
        feature: $feature:literal, lanes: $lanes:literal, zero: $zero:expr $(,)?
    ) => {
        #[target_feature(enable = $feature)]
        pub(in crate::keccak) fn $shake(
            rate: usize,
            inputs: &[&[u8]; $lanes],
            outputs: &mut [&mut [u8]; $lanes],
        ) {
            let words = rate / 8;
            $crate::keccak::sponge::shake(
                &mut [$zero; 25],
                rate,
                inputs,
                outputs,
                |state, blocks| {
                    let lanes = $crate::keccak::sponge::lane_ptrs(&blocks, 8 * words);
                    // SAFETY: `lane_ptrs` checked that each block holds `8 * words` bytes.
                    unsafe { xor_words(state, lanes, words) }
                },
                |state| f1600(state),
                |state, mut blocks| {
                    let lanes = $crate::keccak::sponge::lane_ptrs_mut(&mut blocks, 8 * words);
                    // SAFETY: `lane_ptrs_mut` checked that each block holds `8 * words` bytes.
                    unsafe { write_words(state, lanes, words) }
                },
            );
        }

        #[target_feature(enable = $feature)]
        pub(in crate::keccak) fn $permute(states: &mut [[u64; 25]; $lanes]) {
            let mut state = [$zero; 25];
            // SAFETY: each state is 25 readable words.
            unsafe { xor_words(&mut state, states.each_ref().map(|s| s.as_ptr().cast()), 25) };
            f1600(&mut state);
            // SAFETY: each state is 25 writable words.
            unsafe { write_words(&state, states.each_mut().map(|s| s.as_mut_ptr().cast()), 25) };
        }
    };
    (
        checked $backend:expr, $supported:path;
        feature: $feature:literal, lanes: $lanes:literal, zero: $zero:expr $(,)?
    ) => {
        $crate::keccak::sponge::simd_entry_points!(
            fn shake_unchecked, fn permute_unchecked;
            feature: $feature, lanes: $lanes, zero: $zero,
        );

        pub(in crate::keccak) fn shake(
            rate: usize,
            inputs: &[&[u8]; $lanes],
            outputs: &mut [&mut [u8]; $lanes],
        ) -> Result<(), $crate::keccak::Error> {
            if !$supported() {
                return Err($crate::keccak::Error::Unsupported($backend));
            }
            // SAFETY: the CPU has the feature: checked just above.
            unsafe { shake_unchecked(rate, inputs, outputs) };
            Ok(())
        }

        pub(in crate::keccak) fn permute(
            states: &mut [[u64; 25]; $lanes],
        ) -> Result<(), $crate::keccak::Error> {
            if !$supported() {
                return Err($crate::keccak::Error::Unsupported($backend));
            }
            // SAFETY: the CPU has the feature: checked just above.
            unsafe { permute_unchecked(states) };
            Ok(())
        }
    };
}
pub(super) use simd_entry_points;
