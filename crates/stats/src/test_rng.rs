//! Seeded random variates for statistical tests, here and in the crates that test with
//! these statistics.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

pub struct TestRng(ChaCha8Rng);

impl TestRng {
    pub fn new(seed: u64) -> TestRng {
        TestRng(ChaCha8Rng::seed_from_u64(seed))
    }

    /// Uniform on (0, 1): the open interval keeps `ln` in `normal` finite.
    pub fn uniform(&mut self) -> f64 {
        ((self.0.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal, by the Box–Muller transform.
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}
