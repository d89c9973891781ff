//! Random number generators: `fill_bytes` of `len` bytes from a seeded generator.

use std::hint::black_box;
use std::marker::PhantomData;

use super::super::buffer::Buffer;
use super::super::reference;
use super::super::{Call, Implementation, Kind, Mismatch, Operation, PrepareError, pattern};
use super::param;
use crate::record::{Param, Params};

/// What a provider implements for a seeded RNG.
pub trait SeededRng: Send + 'static {
    /// The algorithm implemented: its name and the reference stream the gate compares.
    const ALGORITHM: &'static RngAlgorithm;
    /// A generator seeded with `seed`.
    fn from_seed(seed: [u8; 32]) -> Self;
    /// Fill `buf` with the next `buf.len()` bytes of the output stream.
    fn fill_bytes(&mut self, buf: &mut [u8]);
}

/// The facts about an algorithm that every provider of it shares.
pub struct RngAlgorithm {
    /// The algorithm's name, e.g. `chacha20-rng`: the second half of `provider/algorithm`.
    pub name: &'static str,
    /// The exact output stream the algorithm defines for a seed; a generator that
    /// deviates from it is refused.
    pub reference: fn(seed: &[u8; 32], len: usize) -> Vec<u8>,
    /// How a failing check names the reference stream.
    pub reference_name: &'static str,
}

/// ChaCha20 as an RNG: the ChaCha20 keystream with key = seed, nonce = 0 and block counter
/// from 0 (both `chacha20::ChaCha20Rng` and `rand_chacha::ChaCha20Rng` document this).
pub static CHACHA20_RNG: RngAlgorithm = RngAlgorithm {
    name: "chacha20-rng",
    reference: |seed, len| reference::chacha20::keystream(seed, &[0; 12], 0, len),
    reference_name: "ChaCha20 keystream (RFC 8439) with key = seed, nonce = 0",
};

const OPERATIONS: &[Operation] = &[Operation {
    name: "fill_bytes",
    params: &[Param::Len],
}];

/// Any [`SeededRng`] as an [`Implementation`].
pub struct Rng<R> {
    provider: &'static str,
    rng: PhantomData<fn() -> R>,
}

impl<R: SeededRng> Rng<R> {
    /// The adapter for `R`, credited to `provider` (e.g. `rand_chacha`).
    pub const fn new(provider: &'static str) -> Self {
        Rng {
            provider,
            rng: PhantomData,
        }
    }
}

impl<R: SeededRng> Implementation for Rng<R> {
    fn provider(&self) -> &str {
        self.provider
    }
    fn algorithm(&self) -> &str {
        R::ALGORITHM.name
    }
    fn kind(&self) -> Kind {
        Kind::Rng
    }
    fn operations(&self) -> &[Operation] {
        OPERATIONS
    }

    fn verify(&self) -> Result<(), Mismatch> {
        let alg = R::ALGORITHM;
        for seed in [
            [0u8; 32],
            std::array::from_fn(|i| (i as u8).wrapping_mul(37)),
        ] {
            let want = (alg.reference)(&seed, 65_536);
            let mut rng = R::from_seed(seed);
            let mut got = vec![0u8; want.len()];
            // Uneven pieces exercise the generator's internal buffering. They stay multiples
            // of 4 bytes: word-based generators (rand_core's block RNGs) discard the rest of
            // a 32-bit word after a partial fill, which is their documented behaviour.
            let mut at = 0;
            for piece in [4usize, 64, 8, 252, 4096, 16_384].iter().cycle() {
                let end = (at + piece).min(got.len());
                rng.fill_bytes(&mut got[at..end]);
                at = end;
                if at == got.len() {
                    break;
                }
            }
            Mismatch::check_bytes(alg.reference_name, &got, &want)?;
        }
        Ok(())
    }

    fn verify_at(&self, operation: &str, params: &Params) -> Result<(), Mismatch> {
        let Ok(len) = param(self, operation, params, Param::Len) else {
            return Ok(());
        };
        let alg = R::ALGORITHM;
        let seed: [u8; 32] = pattern(32).try_into().expect("32 bytes");
        let mut got = vec![0u8; len];
        R::from_seed(seed).fill_bytes(&mut got);
        Mismatch::check_bytes(
            &format!("{}, one fill of {len} bytes", alg.reference_name),
            &got,
            &(alg.reference)(&seed, len),
        )
    }

    fn prepare(&self, operation: &str, params: &Params) -> Result<Box<dyn Call>, PrepareError> {
        self.operation(operation)?;
        let len = param(self, operation, params, Param::Len)?;
        let seed: [u8; 32] = pattern(32).try_into().expect("32 bytes");
        Ok(Box::new(FillCall {
            rng: R::from_seed(seed),
            buf: Buffer::zeroed(len),
        }))
    }
}

struct FillCall<R> {
    rng: R,
    buf: Buffer,
}

impl<R: SeededRng> Call for FillCall<R> {
    #[inline(never)]
    fn call(&mut self) {
        self.rng.fill_bytes(black_box(&mut self.buf));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The right stream, but each fill starts a new 64-byte block: bytes left over from
    /// a partial block are lost, which single long fills never show.
    struct DropsPartialBlocks([u8; 32], usize);

    impl SeededRng for DropsPartialBlocks {
        const ALGORITHM: &'static RngAlgorithm = &CHACHA20_RNG;
        fn from_seed(seed: [u8; 32]) -> Self {
            DropsPartialBlocks(seed, 0)
        }
        fn fill_bytes(&mut self, buf: &mut [u8]) {
            let stream = (CHACHA20_RNG.reference)(&self.0, self.1 + buf.len());
            buf.copy_from_slice(&stream[self.1..]);
            self.1 = (self.1 + buf.len()).next_multiple_of(64);
        }
    }

    #[test]
    fn the_gate_refuses_a_generator_that_drops_bytes() {
        let err = Rng::<DropsPartialBlocks>::new("test").verify().unwrap_err();
        assert!(err.check.contains("ChaCha20 keystream"), "{err}");
    }
}
