//! RustCrypto crates: `chacha20` (cipher and its `rng` feature).

use chacha20::cipher::{KeyIvInit, StreamCipher as _};
use chacha20::rand_core::{Rng as _, SeedableRng as _};

use crate::catalog::kinds::rng::{CHACHA20_RNG, Rng, RngAlgorithm, SeededRng};
use crate::catalog::kinds::stream::{CHACHA20, Stream, StreamAlgorithm, StreamCipher};
use crate::catalog::registry::Registry;

pub fn register(r: &mut Registry) {
    r.add(Stream::<ChaCha20>::new("rustcrypto"));
    r.add(Rng::<ChaCha20Rng>::new("rustcrypto"));
}

pub struct ChaCha20(chacha20::ChaCha20);

impl StreamCipher for ChaCha20 {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        ChaCha20(
            chacha20::ChaCha20::new_from_slices(key, nonce)
                .expect("the stream adapter passes the declared key and nonce lengths"),
        )
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
    }
}

pub struct ChaCha20Rng(chacha20::ChaCha20Rng);

impl SeededRng for ChaCha20Rng {
    const ALGORITHM: &'static RngAlgorithm = &CHACHA20_RNG;
    fn from_seed(seed: [u8; 32]) -> Self {
        ChaCha20Rng(chacha20::ChaCha20Rng::from_seed(seed))
    }
    fn fill_bytes(&mut self, buf: &mut [u8]) {
        self.0.fill_bytes(buf);
    }
}
