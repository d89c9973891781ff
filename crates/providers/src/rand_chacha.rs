//! `rand_chacha`, the ChaCha RNGs of the `rand` project.

use rand_chacha::rand_core::{Rng as _, SeedableRng as _};

use cryptobench_core::catalog::kinds::rng::{CHACHA20_RNG, Rng, RngAlgorithm, SeededRng};
use cryptobench_core::catalog::registry::Registry;

pub fn register(r: &mut Registry) {
    r.add(Rng::<ChaCha20Rng>::new("rand_chacha"));
}

/// The crates every implementation registered here comes from, whatever its algorithm.
pub fn crates(_algorithm: &str) -> &'static [&'static str] {
    &["rand_chacha"]
}

pub struct ChaCha20Rng(rand_chacha::ChaCha20Rng);

impl SeededRng for ChaCha20Rng {
    const ALGORITHM: &'static RngAlgorithm = &CHACHA20_RNG;
    fn from_seed(seed: [u8; 32]) -> Self {
        ChaCha20Rng(rand_chacha::ChaCha20Rng::from_seed(seed))
    }
    fn fill_bytes(&mut self, buf: &mut [u8]) {
        self.0.fill_bytes(buf);
    }
}
