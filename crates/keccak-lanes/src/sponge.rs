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
/// The backend supplies two block operations on its state, which must start
/// zeroed: `absorb` XORs one block per lane into it, `squeeze` fills one block
/// per lane from it. Blocks are whole words: `rate` bytes, except at the end
/// of a message, where the last whole words go straight between the caller's
/// buffers and the state and the sponge handles the last partial word and the
/// padding itself (no per-call block buffers or copies). This function is
/// inlined into the backend's `#[target_feature]` function, so the closures
/// compile with its instructions and nothing here branches on the backend.
#[inline(always)]
pub(super) fn shake<const N: usize, V: Copy>(
    state: &mut [V; 25],
    rate: usize,
    inputs: &[&[u8]; N],
    outputs: &mut [&mut [u8]; N],
    mut absorb: impl FnMut(&mut [V; 25], [&[u8]; N]),
    mut permute: impl FnMut(&mut [V; 25]),
    mut squeeze: impl FnMut(&[V; 25], [&mut [u8]; N]),
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

    let whole = (in_len - full) & !7;
    if whole > 0 {
        absorb(state, blocks(inputs, full, whole));
    }
    // Whole words of all lanes at once, so that the permutation's vector
    // loads find them in one store each (store forwarding).
    let mut last = [0u64; N];
    for (word, input) in last.iter_mut().zip(inputs) {
        for (i, &byte) in input[full + whole..].iter().enumerate() {
            *word |= u64::from(byte) << (8 * i);
        }
        *word |= u64::from(SHAKE_PAD) << (8 * (in_len - full - whole));
    }
    let words = lane_words::<V, N>(state);
    xor_lanes(&mut words[whole / 8], &last);
    xor_lanes(&mut words[rate / 8 - 1], &[0x80 << 56; N]);

    let out_len = outputs[0].len();
    let mut off = 0;
    while out_len - off >= rate {
        permute(state);
        squeeze(state, blocks_mut(outputs, off, rate));
        off += rate;
    }
    if off < out_len {
        permute(state);
        let whole = (out_len - off) & !7;
        if whole > 0 {
            squeeze(state, blocks_mut(outputs, off, whole));
        }
        let words = lane_words::<V, N>(state);
        // Byte by byte from the word (at most 7): a copy of a variable length
        // would be a call to libc's memcpy per lane.
        for (output, &word) in outputs.iter_mut().zip(&words[whole / 8]) {
            for (i, byte) in output[off + whole..].iter_mut().enumerate() {
                *byte = (word >> (8 * i)) as u8;
            }
        }
    }
}

#[inline(always)]
fn xor_lanes<const N: usize>(word: &mut [u64; N], with: &[u64; N]) {
    for (w, x) in word.iter_mut().zip(with) {
        *w ^= x;
    }
}

/// The state as 25 words of `N` lanes: every backend keeps word `w` of lane
/// `i` in element `i` of its `w`-th vector (a `u64` for one lane).
#[inline(always)]
fn lane_words<V: Copy, const N: usize>(state: &mut [V; 25]) -> &mut [[u64; N]; 25] {
    const {
        assert!(size_of::<V>() == 8 * N && align_of::<V>() >= align_of::<u64>());
    }
    // SAFETY: the two types have the same size, the target's alignment is no
    // larger, and the backends' `V` (`u64` or an integer vector) has no
    // invalid bit patterns, nor has `u64`.
    unsafe { &mut *core::ptr::from_mut(state).cast::<[[u64; N]; 25]>() }
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
        fn $shake:ident, fn $permute:ident, fn $interleaved:ident;
        feature: $feature:literal, lanes: $lanes:literal, zero: $zero:expr $(,)?
    ) => {
        #[target_feature(enable = $feature)]
        pub(crate) fn $shake(
            rate: usize,
            inputs: &[&[u8]; $lanes],
            outputs: &mut [&mut [u8]; $lanes],
        ) {
            $crate::sponge::shake(
                &mut [$zero; 25],
                rate,
                inputs,
                outputs,
                |state, blocks| {
                    let words = blocks[0].len() / 8;
                    let lanes = $crate::sponge::lane_ptrs(&blocks, 8 * words);
                    // SAFETY: `lane_ptrs` checked that each block holds `8 * words` bytes.
                    unsafe { xor_words(state, lanes, words) }
                },
                |state| f1600(state),
                |state, mut blocks| {
                    let words = blocks[0].len() / 8;
                    let lanes = $crate::sponge::lane_ptrs_mut(&mut blocks, 8 * words);
                    // SAFETY: `lane_ptrs_mut` checked that each block holds `8 * words` bytes.
                    unsafe { write_words(state, lanes, words) }
                },
            );
        }

        #[target_feature(enable = $feature)]
        pub(crate) fn $permute(states: &mut [[u64; 25]; $lanes]) {
            let mut state = [$zero; 25];
            // SAFETY: each state is 25 readable words.
            unsafe { xor_words(&mut state, states.each_ref().map(|s| s.as_ptr().cast()), 25) };
            f1600(&mut state);
            // SAFETY: each state is 25 writable words.
            unsafe { write_words(&state, states.each_mut().map(|s| s.as_mut_ptr().cast()), 25) };
        }

        #[target_feature(enable = $feature)]
        pub(crate) fn $interleaved(words: &mut [[u64; $lanes]; 25]) {
            let in_place = words.as_mut_ptr().cast::<[V; 25]>();
            if in_place.is_aligned() {
                // SAFETY: a vector is `$lanes` 64-bit words, so both are 25 of them in a
                // row, any bits are a valid vector, and the pointer is aligned for one.
                return f1600(unsafe { &mut *in_place });
            }
            // SAFETY: a vector is `$lanes` 64-bit words, so both are 25 of them in a row;
            // read and written unaligned, as the words' alignment is 8 bytes.
            let mut state: [V; 25] = unsafe { core::ptr::read_unaligned(words.as_ptr().cast()) };
            f1600(&mut state);
            // SAFETY: as above.
            unsafe { core::ptr::write_unaligned(words.as_mut_ptr().cast(), state) };
        }
    };
    (
        checked $backend:expr, $supported:path;
        feature: $feature:literal, lanes: $lanes:literal, zero: $zero:expr $(,)?
    ) => {
        $crate::sponge::simd_entry_points!(
            fn shake_unchecked, fn permute_unchecked, fn permute_interleaved_unchecked;
            feature: $feature, lanes: $lanes, zero: $zero,
        );

        pub(crate) fn shake(
            rate: usize,
            inputs: &[&[u8]; $lanes],
            outputs: &mut [&mut [u8]; $lanes],
        ) -> Result<(), $crate::Error> {
            if !$supported() {
                return Err($crate::Error::Unsupported($backend));
            }
            // SAFETY: the CPU has the feature: checked just above.
            unsafe { shake_unchecked(rate, inputs, outputs) };
            Ok(())
        }

        pub(crate) fn permute(
            states: &mut [[u64; 25]; $lanes],
        ) -> Result<(), $crate::Error> {
            if !$supported() {
                return Err($crate::Error::Unsupported($backend));
            }
            // SAFETY: the CPU has the feature: checked just above.
            unsafe { permute_unchecked(states) };
            Ok(())
        }

        pub(crate) fn permute_interleaved(
            words: &mut [[u64; $lanes]; 25],
        ) -> Result<(), $crate::Error> {
            if !$supported() {
                return Err($crate::Error::Unsupported($backend));
            }
            // SAFETY: the CPU has the feature: checked just above.
            unsafe { permute_interleaved_unchecked(words) };
            Ok(())
        }
    };
}
pub(super) use simd_entry_points;
