//! Poly1305 and the ChaCha20-Poly1305 AEAD as RFC 8439 sections 2.5 and 2.8 define them.

use super::chacha20;

/// 26-bit limbs: products of two limbs and sums of five such products fit in a u64.
const MASK: u64 = (1 << 26) - 1;

fn limbs(x: u128) -> [u64; 5] {
    std::array::from_fn(|i| ((x >> (26 * i)) as u64) & if i == 4 { u64::MAX } else { MASK })
}

/// Carry every limb into the next one; the carry out of the top limb (a multiple of
/// 2^130) comes back into the bottom one times 5, since 2^130 = 5 (mod 2^130 - 5).
fn carry(d: &mut [u64; 5]) {
    for _ in 0..2 {
        for i in 0..4 {
            d[i + 1] += d[i] >> 26;
            d[i] &= MASK;
        }
        let c = d[4] >> 26;
        d[4] &= MASK;
        d[0] += c * 5;
    }
}

/// h * r mod (2^130 - 5), partially reduced.
fn mul(h: &[u64; 5], r: &[u64; 5]) -> [u64; 5] {
    let mut d = [0u64; 5];
    for i in 0..5 {
        for j in 0..5 {
            if i + j < 5 {
                d[i + j] += h[i] * r[j];
            } else {
                d[i + j - 5] += h[i] * r[j] * 5;
            }
        }
    }
    carry(&mut d);
    d
}

/// The Poly1305 tag of `msg` under the one-time key `key` (RFC 8439 section 2.5).
pub fn poly1305(key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
    let half = |b: &[u8]| u128::from_le_bytes(b.try_into().expect("16 bytes"));
    let r = limbs(half(&key[..16]) & 0x0fff_fffc_0fff_fffc_0fff_fffc_0fff_ffff);
    let s = half(&key[16..]);
    let mut h = [0u64; 5];
    for chunk in msg.chunks(16) {
        // The block with a 1 byte appended, as a little-endian number (section 2.5.1).
        let mut block = [0u8; 17];
        block[..chunk.len()].copy_from_slice(chunk);
        block[chunk.len()] = 1;
        let mut n = limbs(half(&block[..16]));
        n[4] |= (block[16] as u64) << 24;
        for (a, b) in h.iter_mut().zip(n) {
            *a += b;
        }
        h = mul(&h, &r);
    }
    carry(&mut h);
    for i in 0..4 {
        h[i + 1] += h[i] >> 26;
        h[i] &= MASK;
    }
    // Now h is exact and below 2 * (2^130 - 5): subtract the modulus once if h + 5
    // reaches 2^130.
    let mut g = h;
    g[0] += 5;
    for i in 0..4 {
        g[i + 1] += g[i] >> 26;
        g[i] &= MASK;
    }
    if g[4] >> 26 != 0 {
        g[4] -= 1 << 26;
        h = g;
    }
    let h = (0..5).fold(0u128, |acc, i| acc.wrapping_add((h[i] as u128) << (26 * i)));
    h.wrapping_add(s).to_le_bytes()
}

/// Encrypt `msg`: ciphertext and 16-byte tag (RFC 8439 section 2.8).
pub fn encrypt(key: &[u8; 32], nonce: &[u8; 12], ad: &[u8], msg: &[u8]) -> (Vec<u8>, [u8; 16]) {
    let otk: [u8; 32] = chacha20::block(key, 0, nonce)[..32]
        .try_into()
        .expect("32 bytes");
    let ks = chacha20::keystream(key, nonce, 1, msg.len());
    let ct: Vec<u8> = msg.iter().zip(ks).map(|(m, k)| m ^ k).collect();
    let pad16 = |v: &mut Vec<u8>| v.resize(v.len().div_ceil(16) * 16, 0);
    let mut mac_data = ad.to_vec();
    pad16(&mut mac_data);
    mac_data.extend_from_slice(&ct);
    pad16(&mut mac_data);
    mac_data.extend_from_slice(&(ad.len() as u64).to_le_bytes());
    mac_data.extend_from_slice(&(ct.len() as u64).to_le_bytes());
    (ct, poly1305(&otk, &mac_data))
}
