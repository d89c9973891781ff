//! A portable ChaCha20 (RFC 8439), written here as a crate's own code under test would be,
//! and a toy stream cipher of the crate's own, which no catalog knows.

/// ChaCha20's keystream, 64 bytes a block, from a 32-byte key and a 12-byte nonce.
pub struct PortableChaCha20 {
    state: [u32; 16],
    block: [u8; 64],
    used: usize,
}

fn quarter(s: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    s[a] = s[a].wrapping_add(s[b]);
    s[d] = (s[d] ^ s[a]).rotate_left(16);
    s[c] = s[c].wrapping_add(s[d]);
    s[b] = (s[b] ^ s[c]).rotate_left(12);
    s[a] = s[a].wrapping_add(s[b]);
    s[d] = (s[d] ^ s[a]).rotate_left(8);
    s[c] = s[c].wrapping_add(s[d]);
    s[b] = (s[b] ^ s[c]).rotate_left(7);
}

impl PortableChaCha20 {
    pub fn new(key: &[u8], nonce: &[u8]) -> Self {
        let word = |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        let mut state = [0u32; 16];
        state[..4].copy_from_slice(&[0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]);
        for i in 0..8 {
            state[4 + i] = word(key, i);
        }
        state[12] = 0;
        for i in 0..3 {
            state[13 + i] = word(nonce, i);
        }
        PortableChaCha20 {
            state,
            block: [0; 64],
            used: 64,
        }
    }

    fn refill(&mut self) {
        let mut x = self.state;
        for _ in 0..10 {
            quarter(&mut x, 0, 4, 8, 12);
            quarter(&mut x, 1, 5, 9, 13);
            quarter(&mut x, 2, 6, 10, 14);
            quarter(&mut x, 3, 7, 11, 15);
            quarter(&mut x, 0, 5, 10, 15);
            quarter(&mut x, 1, 6, 11, 12);
            quarter(&mut x, 2, 7, 8, 13);
            quarter(&mut x, 3, 4, 9, 14);
        }
        for (i, w) in x.iter().enumerate() {
            let v = w.wrapping_add(self.state[i]);
            self.block[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        self.state[12] = self.state[12].wrapping_add(1);
        self.used = 0;
    }

    pub fn apply_keystream(&mut self, buf: &mut [u8]) {
        for b in buf {
            if self.used == 64 {
                self.refill();
            }
            *b ^= self.block[self.used];
            self.used += 1;
        }
    }
}

/// A toy stream cipher of this crate's own (not secure: an example of an algorithm no
/// catalog knows, checked against the crate's own vectors): a xorshift64 keystream, its
/// words little-endian, from a seed hashed out of the key and nonce.
pub struct ToyStream {
    state: u64,
    word: [u8; 8],
    used: usize,
}

/// The toy's seed: FNV-1a over key and nonce, made odd.
fn toy_seed(key: &[u8], nonce: &[u8]) -> u64 {
    let mut s = 0xcbf2_9ce4_8422_2325u64;
    for b in key.iter().chain(nonce) {
        s = (s ^ u64::from(*b)).wrapping_mul(0x0100_0000_01B3);
    }
    s | 1
}

/// One xorshift64 step.
fn toy_next(x: u64) -> u64 {
    let mut x = x;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

impl ToyStream {
    pub fn new(key: &[u8], nonce: &[u8]) -> Self {
        ToyStream {
            state: toy_seed(key, nonce),
            word: [0; 8],
            used: 8,
        }
    }

    pub fn apply_keystream(&mut self, buf: &mut [u8]) {
        for b in buf {
            if self.used == 8 {
                self.state = toy_next(self.state);
                self.word = self.state.to_le_bytes();
                self.used = 0;
            }
            *b ^= self.word[self.used];
            self.used += 1;
        }
    }
}
