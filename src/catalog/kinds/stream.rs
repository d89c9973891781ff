//! Stream ciphers: `xor` a message of `len` bytes with the keystream.

use std::hint::black_box;
use std::marker::PhantomData;

use super::super::reference;
use super::super::{
    Call, Implementation, Kind, Mismatch, Operation, Params, PrepareError, pattern,
};

/// What a provider implements for a stream cipher.
pub trait StreamCipher: Send + 'static {
    const ALGORITHM: &'static StreamAlgorithm;
    /// `key` and `nonce` have the lengths the algorithm declares.
    fn new(key: &[u8], nonce: &[u8]) -> Self;
    /// XOR the next `buf.len()` keystream bytes into `buf`, continuing the stream.
    fn apply_keystream(&mut self, buf: &mut [u8]);
}

/// The facts about an algorithm that every provider of it shares.
pub struct StreamAlgorithm {
    pub name: &'static str,
    pub key_len: usize,
    pub nonce_len: usize,
    /// Published vectors: (source, key, nonce, initial block counter, plaintext, ciphertext),
    /// hex-encoded.
    pub vectors: &'static [StreamVector],
    /// An independent keystream for cross-checks on long inputs.
    pub reference: fn(key: &[u8], nonce: &[u8], len: usize) -> Vec<u8>,
}

pub struct StreamVector {
    pub source: &'static str,
    pub key: &'static str,
    pub nonce: &'static str,
    /// Keystream bytes to discard before the plaintext (RFC 8439 starts at counter 1).
    pub skip: usize,
    pub plaintext: &'static str,
    pub ciphertext: &'static str,
}

pub static CHACHA20: StreamAlgorithm = StreamAlgorithm {
    name: "chacha20",
    key_len: 32,
    nonce_len: 12,
    vectors: &[StreamVector {
        source: "RFC 8439 section 2.4.2",
        key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        nonce: "000000000000004a00000000",
        skip: 64,
        plaintext: "4c616469657320616e642047656e746c656d656e206f662074686520636c617373206f66202739393a204966204920636f756c64206f6666657220796f75206f6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73637265656e20776f756c642062652069742e",
        ciphertext: "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8eedf2785e42874d",
    }],
    reference: |key, nonce, len| {
        let key: [u8; 32] = key.try_into().expect("chacha20 key is 32 bytes");
        let nonce: [u8; 12] = nonce.try_into().expect("chacha20 nonce is 12 bytes");
        reference::chacha20::keystream(&key, &nonce, 0, len)
    },
};

const OPERATIONS: &[Operation] = &[Operation {
    name: "xor",
    params: &["len"],
}];

/// Any [`StreamCipher`] as an [`Implementation`].
pub struct Stream<C> {
    provider: &'static str,
    cipher: PhantomData<fn() -> C>,
}

impl<C: StreamCipher> Stream<C> {
    pub const fn new(provider: &'static str) -> Self {
        Stream {
            provider,
            cipher: PhantomData,
        }
    }
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).expect("built-in test vectors are valid hex")
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

    fn verify(&self) -> Result<(), Mismatch> {
        let alg = C::ALGORITHM;
        for v in alg.vectors {
            let mut c = C::new(&unhex(v.key), &unhex(v.nonce));
            c.apply_keystream(&mut vec![0u8; v.skip]);
            let mut buf = unhex(v.plaintext);
            c.apply_keystream(&mut buf);
            Mismatch::check_bytes(v.source, &buf, &unhex(v.ciphertext))?;
        }
        // Uneven pieces catch buffering bugs at block boundaries that one long call hides.
        let key = pattern(alg.key_len);
        let nonce: Vec<u8> = pattern(alg.nonce_len).iter().map(|b| b ^ 0x5a).collect();
        let want = (alg.reference)(&key, &nonce, 70_000);
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
            "keystream against the reference implementation",
            &got,
            &want,
        )
    }

    fn prepare(&self, operation: &str, params: &Params) -> Result<Box<dyn Call>, PrepareError> {
        self.operation(operation)?;
        let len = params.get("len").ok_or(PrepareError::MissingParam {
            implementation: self.name(),
            operation: operation.to_string(),
            param: "len",
        })?;
        let alg = C::ALGORITHM;
        Ok(Box::new(XorCall {
            cipher: C::new(&pattern(alg.key_len), &pattern(alg.nonce_len)),
            buf: pattern(len as usize),
        }))
    }
}

struct XorCall<C> {
    cipher: C,
    buf: Vec<u8>,
}

impl<C: StreamCipher> Call for XorCall<C> {
    #[inline(never)]
    fn call(&mut self) {
        self.cipher.apply_keystream(black_box(&mut self.buf));
    }
}
