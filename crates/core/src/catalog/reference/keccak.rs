//! Keccak-f\[1600\] and the SHA-3 sponge as FIPS 202 defines them, with the round constants
//! and rotation offsets computed by the standard's own algorithms rather than copied.

use std::sync::OnceLock;

/// The state as FIPS 202 section 3.1.2 indexes it: lane (x, y) is `a[x + 5 * y]`.
pub type State = [u64; 25];

/// FIPS 202 Algorithm 5: rc(t), one bit of an LFSR over GF(2)[x] / (x^8 + x^6 + x^5 + x^4 + 1).
fn rc(t: usize) -> u64 {
    if t.is_multiple_of(255) {
        return 1;
    }
    let mut r: u16 = 1;
    for _ in 0..t % 255 {
        r <<= 1;
        if r & 0x100 != 0 {
            r ^= 0x171;
        }
    }
    (r & 1) as u64
}

/// FIPS 202 Algorithm 6 step 2: the round constant of round `ir`.
fn round_constant(ir: usize) -> u64 {
    (0..=6).fold(0, |acc, j| acc | rc(j + 7 * ir) << ((1 << j) - 1))
}

/// FIPS 202 Algorithm 2: the rotation offset of every lane.
fn rho_offsets() -> [u32; 25] {
    let mut off = [0u32; 25];
    let (mut x, mut y) = (1usize, 0usize);
    for t in 0..24u32 {
        off[x + 5 * y] = ((t + 1) * (t + 2) / 2) % 64;
        (x, y) = (y, (2 * x + 3 * y) % 5);
    }
    off
}

/// Keccak-f\[1600\]: the 24 rounds of Keccak-p\[1600, 24\] (FIPS 202 sections 3.2 and 3.3).
pub fn f1600(a: &mut State) {
    // Computed once: deriving them costs more than the permutation itself.
    static CONSTANTS: OnceLock<([u64; 24], [u32; 25])> = OnceLock::new();
    let (round_constants, offsets) =
        CONSTANTS.get_or_init(|| (std::array::from_fn(round_constant), rho_offsets()));
    for rc in round_constants {
        // theta
        let c: [u64; 5] = std::array::from_fn(|x| (0..5).fold(0, |acc, y| acc ^ a[x + 5 * y]));
        for x in 0..5 {
            let d = c[(x + 4) % 5] ^ c[(x + 1) % 5].rotate_left(1);
            for y in 0..5 {
                a[x + 5 * y] ^= d;
            }
        }
        // rho and pi: A'[x, y] = A[(x + 3y) mod 5, x], rotated by that lane's offset.
        let b: State = std::array::from_fn(|i| {
            let (x, y) = (i % 5, i / 5);
            let src = (x + 3 * y) % 5 + 5 * x;
            a[src].rotate_left(offsets[src])
        });
        // chi
        for y in 0..5 {
            for x in 0..5 {
                a[x + 5 * y] = b[x + 5 * y] ^ (!b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
            }
        }
        // iota
        a[0] ^= rc;
    }
}

/// The sponge of FIPS 202 section 4 over Keccak-f[1600] with `rate` bytes, the message
/// followed by the domain-separation bits `suffix` (with their first padding bit) and the
/// final padding bit.
fn sponge(rate: usize, suffix: u8, msg: &[u8], out_len: usize) -> Vec<u8> {
    let mut padded = msg.to_vec();
    padded.push(suffix);
    while !padded.len().is_multiple_of(rate) {
        padded.push(0);
    }
    *padded.last_mut().expect("at least one byte") |= 0x80;
    let mut a: State = [0; 25];
    for block in padded.chunks(rate) {
        for (i, b) in block.iter().enumerate() {
            a[i / 8] ^= (*b as u64) << (8 * (i % 8));
        }
        f1600(&mut a);
    }
    let mut out = Vec::with_capacity(out_len + rate);
    loop {
        out.extend((0..rate).map(|i| (a[i / 8] >> (8 * (i % 8))) as u8));
        if out.len() >= out_len {
            out.truncate(out_len);
            return out;
        }
        f1600(&mut a);
    }
}

/// SHA3-256 of `msg`: 32 bytes.
pub fn sha3_256(msg: &[u8]) -> Vec<u8> {
    sponge(136, 0x06, msg, 32)
}

/// The first `out_len` bytes of SHAKE128 of `msg`.
pub fn shake128(msg: &[u8], out_len: usize) -> Vec<u8> {
    sponge(168, 0x1f, msg, out_len)
}

/// The first `out_len` bytes of SHAKE256 of `msg`.
pub fn shake256(msg: &[u8], out_len: usize) -> Vec<u8> {
    sponge(136, 0x1f, msg, out_len)
}

/// SHA3-512 of `msg`: 64 bytes (ML-KEM's G).
pub fn sha3_512(msg: &[u8]) -> Vec<u8> {
    sponge(72, 0x06, msg, 64)
}
