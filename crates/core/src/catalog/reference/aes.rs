//! AES (FIPS 197) one block at a time, with the S-box computed from its definition, and the
//! modes built on it: CTR with a 128-bit big-endian counter (SP 800-38A) and GCM with a
//! 96-bit IV (SP 800-38D).

use std::sync::OnceLock;

/// Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS 197 section 4.2).
fn gmul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
        b >>= 1;
    }
    p
}

/// FIPS 197 section 5.1.1: the multiplicative inverse followed by the affine transformation.
fn sbox(x: u8) -> u8 {
    let inv = (1..=255u8).find(|&y| gmul(x, y) == 1).unwrap_or(0);
    inv ^ inv.rotate_left(1) ^ inv.rotate_left(2) ^ inv.rotate_left(3) ^ inv.rotate_left(4) ^ 0x63
}

/// An expanded key: the round keys of FIPS 197 section 5.2, as bytes.
pub struct Aes {
    sbox: [u8; 256],
    round_keys: Vec<[u8; 16]>,
}

impl Aes {
    /// `key` is 16 or 32 bytes (AES-128 or AES-256).
    pub fn new(key: &[u8]) -> Aes {
        // Computed once: the search for inverses costs more than many encryptions.
        static SBOX: OnceLock<[u8; 256]> = OnceLock::new();
        let sbox = *SBOX.get_or_init(|| std::array::from_fn(|i| sbox(i as u8)));
        let nk = key.len() / 4;
        let rounds = nk + 6;
        let mut w: Vec<[u8; 4]> = key
            .chunks(4)
            .map(|c| c.try_into().expect("4 bytes"))
            .collect();
        let mut rcon = 1u8;
        for i in nk..4 * (rounds + 1) {
            let mut t = w[i - 1];
            if i % nk == 0 {
                t = [
                    sbox[t[1] as usize],
                    sbox[t[2] as usize],
                    sbox[t[3] as usize],
                    sbox[t[0] as usize],
                ];
                t[0] ^= rcon;
                rcon = gmul(rcon, 2);
            } else if nk > 6 && i % nk == 4 {
                t = t.map(|b| sbox[b as usize]);
            }
            w.push(std::array::from_fn(|j| w[i - nk][j] ^ t[j]));
        }
        let round_keys = w
            .chunks(4)
            .map(|c| std::array::from_fn(|j| c[j / 4][j % 4]))
            .collect();
        Aes { sbox, round_keys }
    }

    /// FIPS 197 section 5.1: the state is column-major, byte `r + 4c` in row r, column c.
    pub fn encrypt_block(&self, block: &[u8; 16]) -> [u8; 16] {
        let xor = |s: &mut [u8; 16], k: &[u8; 16]| s.iter_mut().zip(k).for_each(|(a, b)| *a ^= b);
        let mut s = *block;
        xor(&mut s, &self.round_keys[0]);
        let rounds = self.round_keys.len() - 1;
        for round in 1..=rounds {
            s = s.map(|b| self.sbox[b as usize]);
            // ShiftRows: row r moves left by r columns.
            s = std::array::from_fn(|i| s[(i % 4) + 4 * ((i / 4 + i % 4) % 4)]);
            if round != rounds {
                // MixColumns.
                for c in 0..4 {
                    let col = [s[4 * c], s[4 * c + 1], s[4 * c + 2], s[4 * c + 3]];
                    for r in 0..4 {
                        s[4 * c + r] = gmul(col[r], 2)
                            ^ gmul(col[(r + 1) % 4], 3)
                            ^ col[(r + 2) % 4]
                            ^ col[(r + 3) % 4];
                    }
                }
            }
            xor(&mut s, &self.round_keys[round]);
        }
        s
    }

    /// CTR keystream from `counter`, incremented as one 128-bit big-endian integer.
    pub fn ctr_keystream(&self, counter: &[u8; 16], len: usize) -> Vec<u8> {
        let mut ctr = u128::from_be_bytes(*counter);
        let mut out = Vec::with_capacity(len + 16);
        while out.len() < len {
            out.extend_from_slice(&self.encrypt_block(&ctr.to_be_bytes()));
            ctr = ctr.wrapping_add(1);
        }
        out.truncate(len);
        out
    }

    /// GCM encryption with a 96-bit IV (SP 800-38D Algorithm 4): ciphertext and 16-byte tag.
    pub fn gcm_encrypt(&self, iv: &[u8; 12], ad: &[u8], msg: &[u8]) -> (Vec<u8>, [u8; 16]) {
        let h = u128::from_be_bytes(self.encrypt_block(&[0; 16]));
        let mut j0 = [0u8; 16];
        j0[..12].copy_from_slice(iv);
        j0[15] = 1;
        // GCTR starts at inc32(J0); only the low 32 bits count (SP 800-38D section 6.2).
        let mut ct = Vec::with_capacity(msg.len());
        let mut cb = j0;
        for chunk in msg.chunks(16) {
            let low = u32::from_be_bytes(cb[12..].try_into().expect("4 bytes")).wrapping_add(1);
            cb[12..].copy_from_slice(&low.to_be_bytes());
            let ks = self.encrypt_block(&cb);
            ct.extend(chunk.iter().zip(ks).map(|(m, k)| m ^ k));
        }
        let mut s = 0u128;
        for data in [ad, &ct] {
            for chunk in data.chunks(16) {
                let mut block = [0u8; 16];
                block[..chunk.len()].copy_from_slice(chunk);
                s = gf128_mul(s ^ u128::from_be_bytes(block), h);
            }
        }
        let lengths = ((ad.len() as u128 * 8) << 64) | (ct.len() as u128 * 8);
        s = gf128_mul(s ^ lengths, h);
        let tag = (s ^ u128::from_be_bytes(self.encrypt_block(&j0))).to_be_bytes();
        (ct, tag)
    }
}

/// Multiplication in GF(2^128) with GCM's bit order (SP 800-38D Algorithm 1): bit 0 is the
/// most significant bit of the big-endian integer.
fn gf128_mul(x: u128, y: u128) -> u128 {
    const R: u128 = 0xe1 << 120;
    let mut z = 0;
    let mut v = y;
    for i in 0..128 {
        if (x >> (127 - i)) & 1 == 1 {
            z ^= v;
        }
        v = if v & 1 == 1 { (v >> 1) ^ R } else { v >> 1 };
    }
    z
}
