//! Cores: one block cipher call or one permutation, timed per call, with no parameters.

use std::hint::black_box;
use std::marker::PhantomData;

use super::super::reference;
use super::super::{Call, Implementation, Kind, Mismatch, Operation, PrepareError, pattern};
use super::{Faults, refused, unhex};
use crate::record::Params;

/// What a provider implements for a block cipher or a permutation.
pub trait CoreFunction: Send + 'static {
    /// The algorithm implemented: its sizes, and the vectors and reference the gate uses.
    const ALGORITHM: &'static CoreAlgorithm;
    /// The block in the library's own form, so that timed calls convert nothing.
    type State: Send;
    /// `key` has the length the algorithm declares (empty for a permutation).
    fn new(key: &[u8]) -> Self;
    /// `bytes` (`block_len` of them, in the vectors' byte form) in the library's own form.
    fn load(bytes: &[u8]) -> Self::State;
    /// Write `state` to `bytes` (`block_len` of them) in the vectors' byte form.
    fn store(state: &Self::State, bytes: &mut [u8]);
    /// Encrypt or permute `state` in place.
    fn apply(&self, state: &mut Self::State);
}

/// The facts about an algorithm that every provider of it shares.
pub struct CoreAlgorithm {
    /// The algorithm's name, e.g. `aes-128`: the second half of `provider/algorithm`.
    pub name: &'static str,
    /// One operation: `encrypt` for a block cipher, `permute` for a permutation.
    pub operations: &'static [Operation],
    /// Key length in bytes; 0 for a permutation.
    pub key_len: usize,
    /// Bytes one call processes: the cipher's block or the permutation's state.
    pub block_len: usize,
    /// Published examples, checked first.
    pub vectors: &'static [CoreVector],
    /// `block` after one call under `key`, from a reference written from the standard.
    pub reference: fn(key: &[u8], block: &[u8]) -> Vec<u8>,
}

/// A published example, hex-encoded.
pub struct CoreVector {
    /// Where the example is published; failing checks name it.
    pub source: &'static str,
    /// The key, hex; empty for a permutation.
    pub key: &'static str,
    /// The input block, hex.
    pub input: &'static str,
    /// The block after one call, hex.
    pub output: &'static str,
}

pub(crate) const ENCRYPT: &[Operation] = &[Operation {
    name: "encrypt",
    params: &[],
}];

pub(crate) const PERMUTE: &[Operation] = &[Operation {
    name: "permute",
    params: &[],
}];

/// AES-128 encryption of one 16-byte block (FIPS 197).
pub static AES_128: CoreAlgorithm = CoreAlgorithm {
    name: "aes-128",
    operations: ENCRYPT,
    key_len: 16,
    block_len: 16,
    vectors: &[CoreVector {
        source: "FIPS 197 appendix C.1",
        key: "000102030405060708090a0b0c0d0e0f",
        input: "00112233445566778899aabbccddeeff",
        output: "69c4e0d86a7b0430d8cdb78070b4c55a",
    }],
    reference: aes_reference,
};

/// AES-256 encryption of one 16-byte block (FIPS 197).
pub static AES_256: CoreAlgorithm = CoreAlgorithm {
    name: "aes-256",
    operations: ENCRYPT,
    key_len: 32,
    block_len: 16,
    vectors: &[CoreVector {
        source: "FIPS 197 appendix C.3",
        key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        input: "00112233445566778899aabbccddeeff",
        output: "8ea2b7ca516745bfeafc49904b496089",
    }],
    reference: aes_reference,
};

/// The state is 25 little-endian 64-bit lanes, lane (x, y) at byte 8 * (x + 5y), as in
/// FIPS 202 section 3.1.2.
pub static KECCAK_F1600: CoreAlgorithm = CoreAlgorithm {
    name: "keccak-f1600",
    operations: PERMUTE,
    key_len: 0,
    block_len: 200,
    vectors: &[CoreVector {
        source: "Keccak team, KeccakF-1600-IntermediateValues.txt (all-zero state)",
        key: "",
        input: "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        output: "e7dde140798f25f18a47c033f9ccd584eea95aa61e2698d54d49806f304715bd57d05362054e288bd46f8e7f2da497ffc44746a4a0e5fe90762e19d60cda5b8c9c05191bf7a630ad64fc8fd0b75a933035d617233fa95aeb0321710d26e6a6a95f55cfdb167ca58126c84703cd31b8439f56a5111a2ff20161aed9215a63e505f270c98cf2febe641166c47b95703661cb0ed04f555a7cb8c832cf1c8ae83e8c14263aae22790c94e409c5a224f94118c26504e72635f5163ba1307fe944f67549a2ec5c7bfff1ea",
    }],
    reference: keccak_states_reference,
};

/// Keccak-f\[1600\] on N independent states at once, each 200 bytes as FIPS 202 lays out
/// a state, one after the other: what an N-way implementation (XKCP's `times4`, our
/// `x4`) takes and gives when measured as a whole call. Checked by the chained reference
/// on a pattern that differs from state to state, so a mixed-up lane cannot pass.
macro_rules! keccak_states {
    ($name:ident, $algorithm:literal, $states:literal) => {
        #[doc = concat!("Keccak-f\\[1600\\] on ", $states, " states, one call.")]
        pub static $name: CoreAlgorithm = CoreAlgorithm {
            name: $algorithm,
            operations: PERMUTE,
            key_len: 0,
            block_len: 200 * $states,
            vectors: &[],
            reference: keccak_states_reference,
        };
    };
}
keccak_states!(KECCAK_F1600_X2, "keccak-f1600-x2", 2);
keccak_states!(KECCAK_F1600_X4, "keccak-f1600-x4", 4);
keccak_states!(KECCAK_F1600_X8, "keccak-f1600-x8", 8);

/// Every 200-byte state of `block` permuted.
fn keccak_states_reference(_key: &[u8], block: &[u8]) -> Vec<u8> {
    block
        .chunks_exact(200)
        .flat_map(|state| {
            let mut a: reference::keccak::State = std::array::from_fn(|i| {
                u64::from_le_bytes(state[8 * i..8 * i + 8].try_into().expect("8 bytes"))
            });
            reference::keccak::f1600(&mut a);
            a.into_iter().flat_map(u64::to_le_bytes)
        })
        .collect()
}

fn aes_reference(key: &[u8], block: &[u8]) -> Vec<u8> {
    let block: [u8; 16] = block.try_into().expect("AES block is 16 bytes");
    reference::aes::Aes::new(key).encrypt_block(&block).to_vec()
}

/// Every algorithm of this kind with known answers: what a name is checked against.
pub static ALL: [&CoreAlgorithm; 6] = [
    &AES_128,
    &AES_256,
    &KECCAK_F1600,
    &KECCAK_F1600_X2,
    &KECCAK_F1600_X4,
    &KECCAK_F1600_X8,
];

/// The algorithm of this name whose known answers and reference any implementation of it
/// (a C build included) is checked against.
pub fn algorithm(name: &str) -> Option<&'static CoreAlgorithm> {
    ALL.into_iter().find(|a| a.name == name)
}

/// Iterations of the chained check: each output is the next input, so one wrong bit
/// anywhere carries through to the end.
const CHAIN: usize = 1000;

/// The gate of every implementation of `alg`, the Rust catalog's and C builds alike: the
/// published vectors, then `CHAIN` chained calls against the reference written from the
/// standard. `apply(key, block, calls)` is `block` after `calls` calls in a row, each on
/// the last one's output, or why the implementation would not give it (a C function's
/// name and return code).
pub fn conformance(
    alg: &CoreAlgorithm,
    mut apply: impl FnMut(&[u8], &[u8], usize) -> Result<Vec<u8>, String>,
) -> Result<(), Mismatch> {
    for v in alg.vectors {
        let got = apply(&unhex(v.key), &unhex(v.input), 1).map_err(refused(v.source))?;
        Mismatch::check_bytes(v.source, &got, &unhex(v.output))?;
    }
    let key = pattern(alg.key_len);
    // One call first: a fault that undoes itself on the next call (two states swapped
    // every call) would pass an even chain.
    let what = "one call against the reference implementation";
    let got = apply(&key, &pattern(alg.block_len), 1).map_err(refused(what))?;
    Mismatch::check_bytes(what, &got, &(alg.reference)(&key, &pattern(alg.block_len)))?;
    let mut want = pattern(alg.block_len);
    for _ in 0..CHAIN {
        want = (alg.reference)(&key, &want);
    }
    let what = format!("{CHAIN} chained calls against the reference implementation");
    let got = apply(&key, &pattern(alg.block_len), CHAIN).map_err(refused(&what))?;
    Mismatch::check_bytes(&what, &got, &want)
}

/// Any [`CoreFunction`] as an [`Implementation`].
pub struct Core<C> {
    provider: &'static str,
    core: PhantomData<fn() -> C>,
}

impl<C: CoreFunction> Core<C> {
    /// The adapter for `C`, credited to `provider` (e.g. `rustcrypto`).
    pub const fn new(provider: &'static str) -> Self {
        Core {
            provider,
            core: PhantomData,
        }
    }
}

impl CoreAlgorithm {
    /// What is wrong in this description: lengths of 0, vectors not hex or not of its
    /// lengths.
    pub fn faults(&self) -> Vec<String> {
        let mut f = Faults::new();
        f.positive("block_len", self.block_len);
        for (i, v) in self.vectors.iter().enumerate() {
            let at = (i, v.source);
            f.hex(at, "key", v.key, Some((self.key_len, "key_len")));
            f.hex(at, "input", v.input, Some((self.block_len, "block_len")));
            f.hex(at, "output", v.output, Some((self.block_len, "block_len")));
        }
        f.into_vec()
    }
}

impl<C: CoreFunction> Implementation for Core<C> {
    fn provider(&self) -> &str {
        self.provider
    }
    fn algorithm(&self) -> &str {
        C::ALGORITHM.name
    }
    fn kind(&self) -> Kind {
        Kind::Core
    }
    fn operations(&self) -> &[Operation] {
        C::ALGORITHM.operations
    }

    fn description_faults(&self) -> Vec<String> {
        C::ALGORITHM.faults()
    }

    fn verify(&self) -> Result<(), Mismatch> {
        // The calls run on the library's own form of the block, as the timed calls do.
        conformance(C::ALGORITHM, |key, block, calls| {
            let c = C::new(key);
            let mut s = C::load(block);
            for _ in 0..calls {
                c.apply(&mut s);
            }
            let mut out = vec![0u8; C::ALGORITHM.block_len];
            C::store(&s, &mut out);
            Ok(out)
        })
    }

    fn prepare(&self, operation: &str, _params: &Params) -> Result<Box<dyn Call>, PrepareError> {
        self.operation(operation)?;
        let alg = C::ALGORITHM;
        Ok(Box::new(CoreCall {
            state: C::load(&pattern(alg.block_len)),
            core: C::new(&pattern(alg.key_len)),
        }))
    }
}

struct CoreCall<C: CoreFunction> {
    core: C,
    state: C::State,
}

impl<C: CoreFunction> Call for CoreCall<C> {
    #[inline(never)]
    fn call(&mut self) {
        self.core.apply(black_box(&mut self.state));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    #[test]
    fn references_reproduce_the_published_vectors() {
        for alg in [&AES_128, &AES_256, &KECCAK_F1600] {
            for v in alg.vectors {
                let got = (alg.reference)(&unhex(v.key), &unhex(v.input));
                assert_eq!(hex::encode(got), v.output, "{}", v.source);
            }
        }
    }

    /// The N-state permutations permute each state as the one-state reference does, and
    /// their gate fails an implementation that swaps two states or permutes one only.
    #[test]
    fn n_state_permutations_check_every_state() {
        for alg in [&KECCAK_F1600_X2, &KECCAK_F1600_X4, &KECCAK_F1600_X8] {
            let block = pattern(alg.block_len);
            let got = (alg.reference)(&[], &block);
            for (i, state) in block.chunks(200).enumerate() {
                let want = (KECCAK_F1600.reference)(&[], state);
                assert_eq!(
                    &got[200 * i..200 * (i + 1)],
                    want.as_slice(),
                    "{}",
                    alg.name
                );
            }
            assert_eq!(
                algorithm(alg.name).map(|a| a.block_len),
                Some(alg.block_len)
            );
            let chain = |f: &dyn Fn(&[u8]) -> Vec<u8>, block: &[u8], calls: usize| {
                Ok((0..calls).fold(block.to_vec(), |b, _| f(&b)))
            };
            let right = |b: &[u8]| (alg.reference)(&[], b);
            assert!(conformance(alg, |_, b, n| chain(&right, b, n)).is_ok());
            let swapped = |b: &[u8]| {
                let mut out = (alg.reference)(&[], b);
                let (first, rest) = out.split_at_mut(200);
                first.swap_with_slice(&mut rest[..200]);
                out
            };
            assert!(conformance(alg, |_, b, n| chain(&swapped, b, n)).is_err());
            let first_only = |b: &[u8]| {
                let mut out = b.to_vec();
                out[..200].copy_from_slice(&(KECCAK_F1600.reference)(&[], &b[..200]));
                out
            };
            assert!(conformance(alg, |_, b, n| chain(&first_only, b, n)).is_err());
        }
    }

    /// Keccak-f[1600] with one output bit flipped.
    struct FlippedBit;

    impl CoreFunction for FlippedBit {
        const ALGORITHM: &'static CoreAlgorithm = &KECCAK_F1600;
        type State = Vec<u8>;
        fn new(_key: &[u8]) -> Self {
            FlippedBit
        }
        fn load(bytes: &[u8]) -> Vec<u8> {
            bytes.to_vec()
        }
        fn store(state: &Vec<u8>, bytes: &mut [u8]) {
            bytes.copy_from_slice(state);
        }
        fn apply(&self, state: &mut Vec<u8>) {
            *state = (KECCAK_F1600.reference)(&[], state);
            state[199] ^= 0x80;
        }
    }

    /// AES-128 that is right on its first call only: a single known answer misses it.
    struct FirstCallOnly(AtomicBool, Vec<u8>);

    impl CoreFunction for FirstCallOnly {
        const ALGORITHM: &'static CoreAlgorithm = &AES_128;
        type State = Vec<u8>;
        fn new(key: &[u8]) -> Self {
            FirstCallOnly(AtomicBool::new(false), key.to_vec())
        }
        fn load(bytes: &[u8]) -> Vec<u8> {
            bytes.to_vec()
        }
        fn store(state: &Vec<u8>, bytes: &mut [u8]) {
            bytes.copy_from_slice(state);
        }
        fn apply(&self, state: &mut Vec<u8>) {
            *state = aes_reference(&self.1, state);
            if self.0.swap(true, Ordering::Relaxed) {
                state[0] ^= 1;
            }
        }
    }

    #[test]
    fn the_gate_refuses_broken_cores() {
        let err = Core::<FlippedBit>::new("test").verify().unwrap_err();
        assert!(err.check.contains("IntermediateValues"), "{err}");
        let err = Core::<FirstCallOnly>::new("test").verify().unwrap_err();
        assert!(err.check.contains("chained calls"), "{err}");
    }
}
