//! Hash functions: `hash` a message of `len` bytes.

use std::hint::black_box;
use std::marker::PhantomData;

use super::super::buffer::Buffer;
use super::super::reference;
use super::super::{Call, Implementation, Kind, Mismatch, Operation, PrepareError, pattern};
use super::{Faults, boundary_lengths, checked_in_part, param, refused, unhex};
use crate::record::{Param, Params};

/// What a provider implements for a hash function.
pub trait HashFunction: Send + 'static {
    /// The algorithm implemented: its sizes, and the vectors and reference the gate uses.
    const ALGORITHM: &'static HashAlgorithm;
    /// A fresh instance, ready for its first message.
    fn new() -> Self;
    /// Write the digest of `msg` to `out` (`out_len` bytes), leaving `self` ready for the
    /// next message.
    fn hash(&mut self, msg: &[u8], out: &mut [u8]);
}

/// The facts about an algorithm that every provider of it shares.
pub struct HashAlgorithm {
    /// The algorithm's name, e.g. `sha-256`: the second half of `provider/algorithm`.
    pub name: &'static str,
    /// Digest length in bytes.
    pub out_len: usize,
    /// Bytes per compression block (the rate, for a sponge): where padding bugs hide.
    pub block_len: usize,
    /// Published examples, checked first.
    pub vectors: &'static [HashVector],
    /// An independent digest for cross-checks at every length. An algorithm of a crate's
    /// own may have none: its implementations are then checked against its vectors and
    /// for giving one digest per message however they are reused, and reported as
    /// checked in part ([`Implementation::caveats`]).
    pub reference: Option<Digest>,
}

/// The digest of a message.
pub type Digest = fn(&[u8]) -> Vec<u8>;

/// A published example: `text` (ASCII) repeated `repeat` times hashes to `digest` (hex).
pub struct HashVector {
    /// Where the example is published; failing checks name it.
    pub source: &'static str,
    /// The message text; each character below U+0100 stands for one byte.
    pub text: &'static str,
    /// How many times `text` repeats in the message.
    pub repeat: usize,
    /// The expected digest, hex.
    pub digest: &'static str,
}

// Every digest below was also checked against Python's hashlib.
const ABC: &str = "abc";
/// The 448-bit and 896-bit two-block messages of the FIPS 180-4 examples.
const MSG_448: &str = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
const MSG_896: &str = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

/// SHA-256 (FIPS 180-4).
pub static SHA_256: HashAlgorithm = HashAlgorithm {
    name: "sha-256",
    out_len: 32,
    block_len: 64,
    vectors: &[
        HashVector {
            source: "FIPS 180-4 example SHA-256 (one block, \"abc\")",
            text: ABC,
            repeat: 1,
            digest: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        },
        HashVector {
            source: "FIPS 180-4 example SHA-256 (two blocks, 448 bits)",
            text: MSG_448,
            repeat: 1,
            digest: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        },
        HashVector {
            source: "FIPS 180-2 appendix B.3 SHA-256 (one million \"a\")",
            text: "a",
            repeat: 1_000_000,
            digest: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
        },
    ],
    reference: Some(reference::sha2::sha256),
};

/// SHA-512 (FIPS 180-4).
pub static SHA_512: HashAlgorithm = HashAlgorithm {
    name: "sha-512",
    out_len: 64,
    block_len: 128,
    vectors: &[
        HashVector {
            source: "FIPS 180-4 example SHA-512 (one block, \"abc\")",
            text: ABC,
            repeat: 1,
            digest: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
        },
        HashVector {
            source: "FIPS 180-4 example SHA-512 (two blocks, 896 bits)",
            text: MSG_896,
            repeat: 1,
            digest: "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
        },
        HashVector {
            source: "SHA-512 of the 448-bit FIPS 180-4 example message",
            text: MSG_448,
            repeat: 1,
            digest: "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445",
        },
        HashVector {
            source: "FIPS 180-2 appendix C.3 SHA-512 (one million \"a\")",
            text: "a",
            repeat: 1_000_000,
            digest: "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b",
        },
    ],
    reference: Some(reference::sha2::sha512),
};

/// SHA3-256 (FIPS 202).
pub static SHA3_256: HashAlgorithm = HashAlgorithm {
    name: "sha3-256",
    out_len: 32,
    block_len: 136,
    vectors: &[
        HashVector {
            source: "NIST FIPS 202 example SHA3-256 (0-bit message)",
            text: "",
            repeat: 1,
            digest: "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a",
        },
        HashVector {
            source: "NIST FIPS 202 example SHA3-256 (1600-bit message of 0xa3)",
            text: "\u{a3}",
            repeat: 200,
            digest: "79f38adec5c20307a98ef76e8324afbfd46cfd81b22e3973c65fa1bd9de31787",
        },
        HashVector {
            source: "SHA3-256 of \"abc\"",
            text: ABC,
            repeat: 1,
            digest: "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532",
        },
    ],
    reference: Some(reference::keccak::sha3_256),
};

/// Every algorithm of this kind with known answers: what a name is checked against.
pub static ALL: [&HashAlgorithm; 3] = [&SHA_256, &SHA_512, &SHA3_256];

/// The algorithm of this name whose known answers and reference any implementation of it
/// (a C build included) is checked against.
pub fn algorithm(name: &str) -> Option<&'static HashAlgorithm> {
    ALL.into_iter().find(|a| a.name == name)
}

/// The gate of every implementation of `alg`, the Rust catalog's and C builds alike: the
/// published vectors, then, where `alg` has a reference, every boundary length against it.
/// `hash` gives a message's digest, or why the implementation would not (a C function's name
/// and return code).
pub fn conformance(
    alg: &HashAlgorithm,
    mut hash: impl FnMut(&[u8]) -> Result<Vec<u8>, String>,
) -> Result<(), Mismatch> {
    for v in alg.vectors {
        let msg = v.message();
        let what = format!("{} of {} bytes ({})", alg.name, msg.len(), v.source);
        let got = hash(&msg).map_err(refused(&what))?;
        Mismatch::check_bytes(&what, &got, &unhex(v.digest))?;
    }
    for len in boundary_lengths(alg.block_len) {
        against_reference(alg, &mut hash, len)?;
    }
    Ok(())
}

/// The digest of a `len`-byte message against `alg`'s reference (nothing where it has
/// none): the gate's check at each boundary length, and at each length a run measures.
pub fn against_reference(
    alg: &HashAlgorithm,
    hash: &mut impl FnMut(&[u8]) -> Result<Vec<u8>, String>,
    len: usize,
) -> Result<(), Mismatch> {
    let Some(reference) = alg.reference else {
        return Ok(());
    };
    let msg = pattern(len);
    let what = format!("{len}-byte message against the reference implementation");
    let got = hash(&msg).map_err(refused(&what))?;
    Mismatch::check_bytes(&what, &got, &reference(&msg))
}

impl HashAlgorithm {
    /// What is wrong in this description: lengths of 0, vectors not hex or not of its
    /// lengths.
    pub fn faults(&self) -> Vec<String> {
        let mut f = Faults::new();
        f.positive("out_len", self.out_len);
        f.positive("block_len", self.block_len);
        for (i, v) in self.vectors.iter().enumerate() {
            let at = (i, v.source);
            f.hex(at, "digest", v.digest, Some((self.out_len, "out_len")));
            if let Some(c) = v.text.chars().find(|&c| c as u32 > 0xff) {
                f.vector(
                    at,
                    format!("its text has {c:?}, which stands for no byte (each character below U+0100 stands for one)"),
                );
            }
        }
        f.into_vec()
    }
}

impl HashVector {
    /// The message bytes: `text`, one byte per character, repeated `repeat` times.
    pub fn message(&self) -> Vec<u8> {
        // Characters below 256 stand for single bytes, so 0xa3 can be written as text.
        let bytes: Vec<u8> = self.text.chars().map(|c| c as u32 as u8).collect();
        bytes.repeat(self.repeat)
    }
}

/// The operations every implementation of this kind offers (C builds included).
pub const OPERATIONS: &[Operation] = &[Operation {
    name: "hash",
    params: &[Param::Len],
}];

/// Any [`HashFunction`] as an [`Implementation`].
pub struct Hash<H> {
    provider: &'static str,
    hash: PhantomData<fn() -> H>,
}

impl<H: HashFunction> Hash<H> {
    /// The adapter for `H`, credited to `provider` (e.g. `rustcrypto`).
    pub const fn new(provider: &'static str) -> Self {
        Hash {
            provider,
            hash: PhantomData,
        }
    }
}

impl<H: HashFunction> Implementation for Hash<H> {
    fn provider(&self) -> &str {
        self.provider
    }
    fn algorithm(&self) -> &str {
        H::ALGORITHM.name
    }
    fn kind(&self) -> Kind {
        Kind::Hash
    }
    fn operations(&self) -> &[Operation] {
        OPERATIONS
    }

    fn verify(&self) -> Result<(), Mismatch> {
        // One instance for everything: reusing it checks that it resets after each digest.
        let alg = H::ALGORITHM;
        let mut h = H::new();
        let digest = |h: &mut H, msg: &[u8]| {
            let mut out = vec![0u8; alg.out_len];
            h.hash(msg, &mut out);
            out
        };
        conformance(alg, |msg| Ok(digest(&mut h, msg)))?;
        if alg.reference.is_none() {
            // Without a reference, what can still be checked: the reused instance gives
            // every message the digest a fresh one gives it.
            for len in boundary_lengths(alg.block_len) {
                let msg = pattern(len);
                let what = format!("{len}-byte message, a reused instance against a fresh one");
                let fresh = digest(&mut H::new(), &msg);
                Mismatch::check_bytes(&what, &digest(&mut h, &msg), &fresh)?;
            }
        }
        Ok(())
    }

    fn verify_at(&self, operation: &str, params: &Params) -> Result<(), Mismatch> {
        let Ok(len) = param(self, operation, params, Param::Len) else {
            return Ok(());
        };
        let alg = H::ALGORITHM;
        let mut h = H::new();
        against_reference(
            alg,
            &mut |msg| {
                let mut out = vec![0u8; alg.out_len];
                h.hash(msg, &mut out);
                Ok(out)
            },
            len,
        )
    }

    fn description_faults(&self) -> Vec<String> {
        H::ALGORITHM.faults()
    }

    fn caveats(&self) -> Vec<String> {
        let alg = H::ALGORITHM;
        checked_in_part(
            self,
            alg.reference.is_some(),
            alg.vectors.len(),
            "a reused instance agrees with a fresh one",
        )
    }

    fn prepare(&self, operation: &str, params: &Params) -> Result<Box<dyn Call>, PrepareError> {
        self.operation(operation)?;
        let len = param(self, operation, params, Param::Len)?;
        Ok(Box::new(HashCall {
            hash: H::new(),
            msg: Buffer::from_slice(&pattern(len)),
            out: Buffer::zeroed(H::ALGORITHM.out_len),
        }))
    }
}

struct HashCall<H> {
    hash: H,
    msg: Buffer,
    out: Buffer,
}

impl<H: HashFunction> Call for HashCall<H> {
    #[inline(never)]
    fn call(&mut self) {
        self.hash
            .hash(black_box(&self.msg), black_box(&mut self.out));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_reproduce_the_published_vectors() {
        for alg in [&SHA_256, &SHA_512, &SHA3_256] {
            for v in alg.vectors {
                assert_eq!(
                    hex::encode(alg.reference.expect("the catalog's algorithms have one")(
                        &v.message()
                    )),
                    v.digest,
                    "{}",
                    v.source
                );
            }
        }
    }

    /// SHA-256 that forgets the message length for messages of exactly 55 bytes, the
    /// longest that still fits one padded block: every published vector passes.
    struct OffByOne;

    impl HashFunction for OffByOne {
        const ALGORITHM: &'static HashAlgorithm = &SHA_256;
        fn new() -> Self {
            OffByOne
        }
        fn hash(&mut self, msg: &[u8], out: &mut [u8]) {
            let d = reference::sha2::sha256(if msg.len() == 55 { &msg[..54] } else { msg });
            out.copy_from_slice(&d);
        }
    }

    /// SHA-256 wrong for 119-byte messages only, the longest whose padding fits two
    /// blocks (as the C test build `FAULT_AT_119`).
    struct WrongAt119;

    impl HashFunction for WrongAt119 {
        const ALGORITHM: &'static HashAlgorithm = &SHA_256;
        fn new() -> Self {
            WrongAt119
        }
        fn hash(&mut self, msg: &[u8], out: &mut [u8]) {
            out.copy_from_slice(&reference::sha2::sha256(msg));
            if msg.len() == 119 {
                out[31] ^= 1;
            }
        }
    }

    /// The right function in the wrong state: the second digest continues the first.
    struct NoReset(Vec<u8>);

    impl HashFunction for NoReset {
        const ALGORITHM: &'static HashAlgorithm = &SHA3_256;
        fn new() -> Self {
            NoReset(Vec::new())
        }
        fn hash(&mut self, msg: &[u8], out: &mut [u8]) {
            self.0.extend_from_slice(msg);
            out.copy_from_slice(&reference::keccak::sha3_256(&self.0));
        }
    }

    #[test]
    fn the_gate_refuses_broken_hashes() {
        let err = Hash::<OffByOne>::new("test").verify().unwrap_err();
        assert!(err.check.starts_with("55-byte message"), "{err}");
        let err = Hash::<WrongAt119>::new("test").verify().unwrap_err();
        assert!(err.check.starts_with("119-byte message"), "{err}");
        let err = Hash::<NoReset>::new("test").verify().unwrap_err();
        assert!(err.check.contains("\"abc\""), "{err}");
    }

    /// SHA-256 under a name of a crate's own, with FIPS 180-4's "abc" and no reference.
    static NO_REFERENCE: HashAlgorithm = HashAlgorithm {
        name: "mine",
        vectors: SHA_256.vectors.split_at(1).0,
        reference: None,
        ..SHA_256
    };

    struct Mine;

    impl HashFunction for Mine {
        const ALGORITHM: &'static HashAlgorithm = &NO_REFERENCE;
        fn new() -> Self {
            Mine
        }
        fn hash(&mut self, msg: &[u8], out: &mut [u8]) {
            out.copy_from_slice(&reference::sha2::sha256(msg));
        }
    }

    /// The same, continuing from the previous message once past the first (as `NoReset`).
    struct MineNoReset(Vec<u8>, usize);

    impl HashFunction for MineNoReset {
        const ALGORITHM: &'static HashAlgorithm = &NO_REFERENCE;
        fn new() -> Self {
            MineNoReset(Vec::new(), 0)
        }
        fn hash(&mut self, msg: &[u8], out: &mut [u8]) {
            if self.1 < 2 {
                self.0.clear();
            }
            self.1 += 1;
            self.0.extend_from_slice(msg);
            out.copy_from_slice(&reference::sha2::sha256(&self.0));
        }
    }

    #[test]
    fn without_a_reference_the_gate_checks_in_part() {
        let mine = Hash::<Mine>::new("crate");
        mine.verify().unwrap();
        let caveats = mine.caveats();
        assert_eq!(caveats.len(), 1, "{caveats:?}");
        assert!(
            caveats[0]
                .starts_with("crate/mine: no reference function; checked against 1 vector(s)"),
            "{caveats:?}"
        );
        let err = Hash::<MineNoReset>::new("crate").verify().unwrap_err();
        assert!(
            err.check.contains("a reused instance against a fresh one"),
            "{err}"
        );
        assert!(Hash::<OffByOne>::new("test").caveats().is_empty());
    }
}
