//! Stream ciphers: `xor` a message of `len` bytes with the keystream.
//!
//! There is no `keystream`-only operation (SUPERCOP's `crypto_stream`): none of the
//! libraries here offers one apart from XOR into a buffer, so it would time the same code.

use std::hint::black_box;
use std::marker::PhantomData;

use super::super::buffer::Buffer;
use super::super::reference;
use super::super::{Call, Implementation, Kind, Mismatch, Operation, PrepareError, pattern};
use super::{Faults, boundary_lengths, checked_in_part, param, refused, unhex};
use crate::record::{Param, Params};

/// What a provider implements for a stream cipher.
pub trait StreamCipher: Send + 'static {
    /// The algorithm implemented: its sizes, and the vectors and reference the gate uses.
    const ALGORITHM: &'static StreamAlgorithm;
    /// `key` and `nonce` have the lengths the algorithm declares.
    fn new(key: &[u8], nonce: &[u8]) -> Self;
    /// XOR the next `buf.len()` keystream bytes into `buf`, continuing the stream.
    fn apply_keystream(&mut self, buf: &mut [u8]);
}

/// The facts about an algorithm that every provider of it shares.
pub struct StreamAlgorithm {
    /// The algorithm's name, e.g. `chacha20`; algorithms with different key or nonce
    /// lengths may share one.
    pub name: &'static str,
    /// Key length in bytes.
    pub key_len: usize,
    /// Nonce length in bytes.
    pub nonce_len: usize,
    /// Size of the keystream's blocks: where partial-block bugs hide.
    pub block_len: usize,
    /// Published examples ([`StreamVector`]), checked first.
    pub vectors: &'static [StreamVector],
    /// An independent keystream for cross-checks at every length. An algorithm of a
    /// crate's own may have none: its implementations are then checked against its
    /// vectors and for agreement between one call and many, and reported as checked in
    /// part ([`Implementation::caveats`]).
    pub reference: Option<Keystream>,
}

/// The first `len` keystream bytes under `key` and `nonce`.
pub type Keystream = fn(key: &[u8], nonce: &[u8], len: usize) -> Vec<u8>;

/// A published example, hex-encoded: `plaintext` XORed with the keystream after its
/// first `skip` bytes gives `ciphertext`.
pub struct StreamVector {
    /// Where the example is published; failing checks name it.
    pub source: &'static str,
    /// The key, hex.
    pub key: &'static str,
    /// The nonce, hex.
    pub nonce: &'static str,
    /// Keystream bytes to discard before the plaintext (RFC 8439 starts at counter 1).
    pub skip: usize,
    /// The message, hex.
    pub plaintext: &'static str,
    /// The expected ciphertext, hex.
    pub ciphertext: &'static str,
}

const RFC_8439_KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const RFC_8439_PLAINTEXT: &str = "4c616469657320616e642047656e746c656d656e206f662074686520636c617373206f66202739393a204966204920636f756c64206f6666657220796f75206f6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73637265656e20776f756c642062652069742e";
const RFC_8439_CIPHERTEXT: &str = "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8eedf2785e42874d";

/// ChaCha20 as RFC 8439 defines it: a 12-byte nonce and a 32-bit block counter
/// from 0.
pub static CHACHA20: StreamAlgorithm = StreamAlgorithm {
    name: "chacha20",
    key_len: 32,
    nonce_len: 12,
    block_len: 64,
    vectors: &[StreamVector {
        source: "RFC 8439 section 2.4.2",
        key: RFC_8439_KEY,
        nonce: "000000000000004a00000000",
        skip: 64,
        plaintext: RFC_8439_PLAINTEXT,
        ciphertext: RFC_8439_CIPHERTEXT,
    }],
    reference: Some(|key, nonce, len| {
        let key: [u8; 32] = key.try_into().expect("chacha20 key is 32 bytes");
        let nonce: [u8; 12] = nonce.try_into().expect("chacha20 nonce is 12 bytes");
        reference::chacha20::keystream(&key, &nonce, 0, len)
    }),
};

/// ChaCha20 as djb wrote it and SUPERCOP's `crypto_stream_chacha20` has it: a 64-bit block
/// counter and an 8-byte nonce. Below 2^32 blocks it is RFC 8439's ChaCha20 with the nonce
/// behind four zero bytes (the counter's high word), so the RFC's vector holds for it.
pub static CHACHA20_8_BYTE_NONCE: StreamAlgorithm = StreamAlgorithm {
    name: "chacha20",
    key_len: 32,
    nonce_len: 8,
    block_len: 64,
    vectors: &[StreamVector {
        source: "RFC 8439 section 2.4.2 (the last 8 bytes of its nonce)",
        key: RFC_8439_KEY,
        nonce: "0000004a00000000",
        skip: 64,
        plaintext: RFC_8439_PLAINTEXT,
        ciphertext: RFC_8439_CIPHERTEXT,
    }],
    reference: Some(|key, nonce, len| {
        let key: [u8; 32] = key.try_into().expect("chacha20 key is 32 bytes");
        let mut n12 = [0u8; 12];
        n12[4..].copy_from_slice(nonce);
        reference::chacha20::keystream(&key, &n12, 0, len)
    }),
};

/// SP 800-38A's four-block example: plaintext, and the initial counter block as the nonce
/// (both ciphertexts were also checked against Python's `cryptography` package).
const SP800_38A_PLAINTEXT: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
const SP800_38A_COUNTER: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/// AES in counter mode, the nonce being the whole initial counter block, incremented as
/// one 128-bit big-endian integer (as OpenSSL's and RustCrypto's `Ctr128BE` do).
pub static AES_128_CTR: StreamAlgorithm = StreamAlgorithm {
    name: "aes-128-ctr",
    key_len: 16,
    nonce_len: 16,
    block_len: 16,
    vectors: &[StreamVector {
        source: "NIST SP 800-38A F.5.1 (CTR-AES128.Encrypt)",
        key: "2b7e151628aed2a6abf7158809cf4f3c",
        nonce: SP800_38A_COUNTER,
        skip: 0,
        plaintext: SP800_38A_PLAINTEXT,
        ciphertext: "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
    }],
    reference: Some(aes_ctr_reference),
};

/// AES-256 in counter mode, with the nonce as [`AES_128_CTR`] takes it.
pub static AES_256_CTR: StreamAlgorithm = StreamAlgorithm {
    name: "aes-256-ctr",
    key_len: 32,
    nonce_len: 16,
    block_len: 16,
    vectors: &[StreamVector {
        source: "NIST SP 800-38A F.5.5 (CTR-AES256.Encrypt)",
        key: "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
        nonce: SP800_38A_COUNTER,
        skip: 0,
        plaintext: SP800_38A_PLAINTEXT,
        ciphertext: "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c52b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6",
    }],
    reference: Some(aes_ctr_reference),
};

fn aes_ctr_reference(key: &[u8], nonce: &[u8], len: usize) -> Vec<u8> {
    let counter: [u8; 16] = nonce.try_into().expect("AES-CTR nonce is 16 bytes");
    reference::aes::Aes::new(key).ctr_keystream(&counter, len)
}

/// Every algorithm of this kind with known answers: what a name is checked against.
pub static ALL: [&StreamAlgorithm; 4] = [
    &CHACHA20,
    &CHACHA20_8_BYTE_NONCE,
    &AES_128_CTR,
    &AES_256_CTR,
];

/// The algorithm of this name and these sizes whose known answers and reference any
/// implementation of it (a C build included) is checked against.
pub fn algorithm(name: &str, key_len: usize, nonce_len: usize) -> Option<&'static StreamAlgorithm> {
    ALL.into_iter()
        .find(|a| (a.name, a.key_len, a.nonce_len) == (name, key_len, nonce_len))
}

/// The nonces the gate checks keystreams under: an ordinary one, and all ones, which
/// makes every counter carry (8, 32, 64, 128 bits) happen at once.
fn nonces(alg: &StreamAlgorithm) -> [Vec<u8>; 2] {
    [
        pattern(alg.nonce_len).iter().map(|b| b ^ 0x5a).collect(),
        vec![0xff; alg.nonce_len],
    ]
}

/// The gate of every implementation of `alg`, the Rust catalog's and C builds alike, in
/// SUPERCOP's form: `xor(key, nonce, msg)` is `msg` XOR the keystream from its start, or
/// why the implementation would not give it (a C function's name and return code). The
/// published vectors, then, where `alg` has a reference, every boundary length under
/// each of two nonces (an ordinary one, and all ones for every counter carry) against it.
pub fn conformance(
    alg: &StreamAlgorithm,
    mut xor: impl FnMut(&[u8], &[u8], &[u8]) -> Result<Vec<u8>, String>,
) -> Result<(), Mismatch> {
    for v in alg.vectors {
        // The keystream the vector skips is XORed into zeros ahead of its plaintext.
        let msg = [vec![0u8; v.skip], unhex(v.plaintext)].concat();
        let got = xor(&unhex(v.key), &unhex(v.nonce), &msg).map_err(refused(v.source))?;
        let got = got.get(v.skip..).unwrap_or_default();
        Mismatch::check_bytes(v.source, got, &unhex(v.ciphertext))?;
    }
    let Some(reference) = alg.reference else {
        return Ok(());
    };
    let key = pattern(alg.key_len);
    let lengths = boundary_lengths(alg.block_len);
    let longest = lengths.iter().copied().max().unwrap_or_default();
    for nonce in nonces(alg) {
        let keystream = reference(&key, &nonce, longest);
        for &len in &lengths {
            message_against(&mut xor, &key, &nonce, &keystream, len)?;
        }
    }
    Ok(())
}

/// A `len`-byte message under each of the gate's nonces against `alg`'s reference
/// (nothing where it has none): the gate's check at each length a run measures.
pub fn against_reference(
    alg: &StreamAlgorithm,
    mut xor: impl FnMut(&[u8], &[u8], &[u8]) -> Result<Vec<u8>, String>,
    len: usize,
) -> Result<(), Mismatch> {
    let Some(reference) = alg.reference else {
        return Ok(());
    };
    let key = pattern(alg.key_len);
    for nonce in nonces(alg) {
        message_against(&mut xor, &key, &nonce, &reference(&key, &nonce, len), len)?;
    }
    Ok(())
}

/// A `len`-byte message XORed under `key` and `nonce` against `keystream`, the
/// reference's (at least `len` bytes).
fn message_against(
    xor: &mut impl FnMut(&[u8], &[u8], &[u8]) -> Result<Vec<u8>, String>,
    key: &[u8],
    nonce: &[u8],
    keystream: &[u8],
    len: usize,
) -> Result<(), Mismatch> {
    let msg = pattern(len);
    let what = format!(
        "{len}-byte message, nonce {} against the reference implementation",
        hex::encode(nonce)
    );
    let got = xor(key, nonce, &msg).map_err(refused(&what))?;
    let want: Vec<u8> = msg.iter().zip(keystream).map(|(m, k)| m ^ k).collect();
    Mismatch::check_bytes(&what, &got, &want)
}

/// A Rust cipher continues its keystream from one call to the next (C's
/// `crypto_stream_xor` has no such state): uneven pieces catch buffering bugs at block
/// boundaries that one long call hides. They are compared with the reference, or, for an
/// algorithm without one, with the cipher's own keystream from one call.
fn continues_across_calls<C: StreamCipher>() -> Result<(), Mismatch> {
    let alg = C::ALGORITHM;
    let key = pattern(alg.key_len);
    let (against, keystream): (_, Keystream) = match alg.reference {
        Some(reference) => ("the reference implementation", reference),
        None => (
            "its own keystream from one call",
            |key: &[u8], nonce: &[u8], len| {
                let mut one_call = vec![0u8; len];
                C::new(key, nonce).apply_keystream(&mut one_call);
                one_call
            },
        ),
    };
    for nonce in nonces(alg) {
        let want = keystream(&key, &nonce, 70_000);
        let mut got = vec![0u8; want.len()];
        let mut c = C::new(&key, &nonce);
        let mut at = 0;
        for piece in [1usize, 63, 64, 65, 127, 1000, 4096].iter().cycle() {
            let end = (at + piece).min(got.len());
            c.apply_keystream(&mut got[at..end]);
            at = end;
            if at == got.len() {
                break;
            }
        }
        Mismatch::check_bytes(
            &format!(
                "keystream in pieces against {against}, nonce {}",
                hex::encode(&nonce)
            ),
            &got,
            &want,
        )?;
    }
    Ok(())
}

/// `msg` XORed by a fresh instance: one call from the start of the keystream, as C's.
fn one_call<C: StreamCipher>(key: &[u8], nonce: &[u8], msg: &[u8]) -> Result<Vec<u8>, String> {
    let mut buf = msg.to_vec();
    C::new(key, nonce).apply_keystream(&mut buf);
    Ok(buf)
}

/// The operations every implementation of this kind offers (C builds included).
pub const OPERATIONS: &[Operation] = &[Operation {
    name: "xor",
    params: &[Param::Len],
}];

/// Any [`StreamCipher`] as an [`Implementation`].
pub struct Stream<C> {
    provider: &'static str,
    cipher: PhantomData<fn() -> C>,
}

impl<C: StreamCipher> Stream<C> {
    /// The adapter for `C`, credited to `provider` (e.g. `rustcrypto`).
    pub const fn new(provider: &'static str) -> Self {
        Stream {
            provider,
            cipher: PhantomData,
        }
    }
}

impl StreamAlgorithm {
    /// What is wrong in this description: lengths of 0, vectors not hex or not of its
    /// lengths.
    pub fn faults(&self) -> Vec<String> {
        let mut f = Faults::new();
        f.positive("block_len", self.block_len);
        for (i, v) in self.vectors.iter().enumerate() {
            let at = (i, v.source);
            f.hex(at, "key", v.key, Some((self.key_len, "key_len")));
            f.hex(at, "nonce", v.nonce, Some((self.nonce_len, "nonce_len")));
            let plaintext = f.hex(at, "plaintext", v.plaintext, None);
            if let Some(len) = plaintext {
                f.hex(at, "ciphertext", v.ciphertext, Some((len, "its plaintext")));
            }
        }
        f.into_vec()
    }
}

impl<C: StreamCipher> Implementation for Stream<C> {
    fn provider(&self) -> &str {
        self.provider
    }
    fn algorithm(&self) -> &str {
        C::ALGORITHM.name
    }
    fn kind(&self) -> Kind {
        Kind::Stream
    }
    fn operations(&self) -> &[Operation] {
        OPERATIONS
    }

    fn description_faults(&self) -> Vec<String> {
        C::ALGORITHM.faults()
    }

    fn verify(&self) -> Result<(), Mismatch> {
        conformance(C::ALGORITHM, one_call::<C>)?;
        continues_across_calls::<C>()
    }

    fn verify_at(&self, operation: &str, params: &Params) -> Result<(), Mismatch> {
        let Ok(len) = param(self, operation, params, Param::Len) else {
            return Ok(());
        };
        against_reference(C::ALGORITHM, one_call::<C>, len)
    }

    fn caveats(&self) -> Vec<String> {
        let alg = C::ALGORITHM;
        checked_in_part(
            self,
            alg.reference.is_some(),
            alg.vectors.len(),
            "its keystream in pieces agrees with one call",
        )
    }

    fn prepare(&self, operation: &str, params: &Params) -> Result<Box<dyn Call>, PrepareError> {
        self.operation(operation)?;
        let len = param(self, operation, params, Param::Len)?;
        let alg = C::ALGORITHM;
        Ok(Box::new(XorCall {
            cipher: C::new(&pattern(alg.key_len), &pattern(alg.nonce_len)),
            buf: Buffer::from_slice(&pattern(len)),
        }))
    }
}

struct XorCall<C> {
    cipher: C,
    buf: Buffer,
}

impl<C: StreamCipher> Call for XorCall<C> {
    #[inline(never)]
    fn call(&mut self) {
        self.cipher.apply_keystream(black_box(&mut self.buf));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALGORITHMS: [&StreamAlgorithm; 4] = [
        &CHACHA20,
        &CHACHA20_8_BYTE_NONCE,
        &AES_128_CTR,
        &AES_256_CTR,
    ];

    #[test]
    fn references_reproduce_the_published_vectors() {
        for alg in ALGORITHMS {
            for v in alg.vectors {
                let ks = alg.reference.expect("the catalog's algorithms have one")(
                    &unhex(v.key),
                    &unhex(v.nonce),
                    v.skip + v.plaintext.len() / 2,
                );
                let ct: Vec<u8> = unhex(v.plaintext)
                    .iter()
                    .zip(&ks[v.skip..])
                    .map(|(p, k)| p ^ k)
                    .collect();
                assert_eq!(hex::encode(ct), v.ciphertext, "{}", v.source);
            }
        }
    }

    /// AES-128-CTR from the reference, restarting its keystream on every call instead of
    /// continuing it: right on every one-call vector, wrong as a stream.
    struct Restarts(Vec<u8>, Vec<u8>);

    impl StreamCipher for Restarts {
        const ALGORITHM: &'static StreamAlgorithm = &AES_128_CTR;
        fn new(key: &[u8], nonce: &[u8]) -> Self {
            Restarts(key.to_vec(), nonce.to_vec())
        }
        fn apply_keystream(&mut self, buf: &mut [u8]) {
            let ks = aes_ctr_reference(&self.0, &self.1, buf.len());
            buf.iter_mut().zip(ks).for_each(|(b, k)| *b ^= k);
        }
    }

    /// A counter that carries only within its low 64 bits, a classic CTR bug.
    struct Ctr64(reference::aes::Aes, u128, Vec<u8>);

    impl StreamCipher for Ctr64 {
        const ALGORITHM: &'static StreamAlgorithm = &AES_128_CTR;
        fn new(key: &[u8], nonce: &[u8]) -> Self {
            let nonce: [u8; 16] = nonce.try_into().expect("16 bytes");
            Ctr64(
                reference::aes::Aes::new(key),
                u128::from_be_bytes(nonce),
                Vec::new(),
            )
        }
        fn apply_keystream(&mut self, buf: &mut [u8]) {
            for b in buf {
                if self.2.is_empty() {
                    let high = self.1 >> 64 << 64;
                    let low = (self.1 as u64).wrapping_add(1) as u128;
                    self.2 = self.0.encrypt_block(&self.1.to_be_bytes()).to_vec();
                    self.2.reverse();
                    self.1 = high | low;
                }
                *b ^= self.2.pop().expect("refilled above");
            }
        }
    }

    #[test]
    fn the_gate_refuses_broken_ciphers() {
        let err = Stream::<Restarts>::new("test").verify().unwrap_err();
        assert!(err.check.contains("reference implementation"), "{err}");
        let err = Stream::<Ctr64>::new("test").verify().unwrap_err();
        assert!(err.check.contains("nonce ffff"), "{err}");
    }

    /// The one-call gate, as C builds meet it: a cipher right on the published vectors
    /// but that returns the bare keystream for long messages (ignoring the message, as a
    /// C build that XORs into the wrong buffer would) is refused at the first such length.
    #[test]
    fn the_one_call_gate_checks_the_message_at_every_length() {
        let alg = &CHACHA20;
        let reference = alg.reference.expect("the catalog's algorithms have one");
        let keystream_only_past_1000 = |key: &[u8], nonce: &[u8], msg: &[u8]| {
            let ks = reference(key, nonce, msg.len());
            Ok(if msg.len() >= 1000 {
                ks
            } else {
                msg.iter().zip(&ks).map(|(m, k)| m ^ k).collect()
            })
        };
        let err = conformance(alg, keystream_only_past_1000).unwrap_err();
        assert!(err.check.starts_with("1000-byte message, nonce"), "{err}");
        let right = |key: &[u8], nonce: &[u8], msg: &[u8]| {
            let ks = reference(key, nonce, msg.len());
            Ok(msg.iter().zip(&ks).map(|(m, k)| m ^ k).collect())
        };
        conformance(alg, right).unwrap();
        let failing = |_: &[u8], _: &[u8], _: &[u8]| Err("crypto_stream_xor returned -1".into());
        let err = conformance(alg, failing).unwrap_err();
        assert!(err.to_string().contains("returned -1"), "{err}");
    }

    /// An algorithm of a crate's own with one vector and no reference: ChaCha20 under
    /// another name, its vector RFC 8439's.
    static NO_REFERENCE: StreamAlgorithm = StreamAlgorithm {
        name: "mine",
        reference: None,
        ..CHACHA20
    };

    /// Key, nonce and the keystream's position.
    struct Mine([u8; 32], [u8; 12], usize);

    impl StreamCipher for Mine {
        const ALGORITHM: &'static StreamAlgorithm = &NO_REFERENCE;
        fn new(key: &[u8], nonce: &[u8]) -> Self {
            Mine(key.try_into().unwrap(), nonce.try_into().unwrap(), 0)
        }
        fn apply_keystream(&mut self, buf: &mut [u8]) {
            let ks = reference::chacha20::keystream(&self.0, &self.1, 0, self.2 + buf.len());
            buf.iter_mut().zip(&ks[self.2..]).for_each(|(b, k)| *b ^= k);
            self.2 += buf.len();
        }
    }

    /// The same, dropping the keystream's state between calls after the first 64 bytes.
    struct MineForgets(Mine, usize);

    impl StreamCipher for MineForgets {
        const ALGORITHM: &'static StreamAlgorithm = &NO_REFERENCE;
        fn new(key: &[u8], nonce: &[u8]) -> Self {
            MineForgets(Mine::new(key, nonce), 0)
        }
        fn apply_keystream(&mut self, buf: &mut [u8]) {
            if self.1 >= 64 {
                self.0 = Mine::new(&pattern(32), &[0; 12]);
            }
            self.0.apply_keystream(buf);
            self.1 += buf.len();
        }
    }

    #[test]
    fn without_a_reference_the_gate_checks_in_part() {
        let mine = Stream::<Mine>::new("crate");
        mine.verify().unwrap();
        let caveats = mine.caveats();
        assert_eq!(caveats.len(), 1, "{caveats:?}");
        assert!(
            caveats[0]
                .starts_with("crate/mine: no reference function; checked against 1 vector(s)"),
            "{caveats:?}"
        );
        assert!(Stream::<MineForgets>::new("crate").verify().is_err());
        assert!(Stream::<Restarts>::new("test").caveats().is_empty());
    }
}
