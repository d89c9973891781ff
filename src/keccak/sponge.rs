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
